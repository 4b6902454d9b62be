//! The studio's log: `<log_dir>/framewright.log` at `info` (or `RUST_LOG`), rotated by size
//! ([`rotating_file`]), and warnings on stderr. The standalone `framewright sandbox`
//! installs its own stderr-only subscriber (`sandbox::cli`).

pub mod rotating_file;

use std::path::Path;
use std::sync::Mutex;

use tracing_subscriber::{EnvFilter, Layer, fmt, layer::SubscriberExt, util::SubscriberInitExt};

pub use rotating_file::RotatingFile;

/// A log file is rotated before a line would take it past this size.
pub const LOG_FILE_LIMIT_BYTES: u64 = 10 * 1024 * 1024;
/// `framewright.log` and its rotated predecessors `framewright.log.1` … `.4`: at most
/// 50 MB of log.
pub const LOG_FILES_KEPT: usize = 5;

/// Installs the studio's subscriber: the file at `info` and stderr at `warn`, both
/// replaced by `RUST_LOG` when it is set. Without a log file (it could not be opened) only
/// stderr logs.
pub fn init_studio(log_file: &Path) {
    let rust_log = || EnvFilter::try_from_default_env().ok();
    let file_filter = rust_log().unwrap_or_else(|| EnvFilter::new("info"));
    let stderr_filter = rust_log().unwrap_or_else(|| EnvFilter::new("warn"));
    install(Some(log_file), file_filter, stderr_filter);
}

/// [`init_studio`] with the filters given (tests). Does nothing when a global subscriber
/// is already set.
pub fn install(log_file: Option<&Path>, file_filter: EnvFilter, stderr_filter: EnvFilter) {
    let stderr_layer = fmt::layer()
        .with_writer(std::io::stderr)
        .with_filter(stderr_filter);
    let file = log_file.and_then(|path| {
        match RotatingFile::open(path, LOG_FILE_LIMIT_BYTES, LOG_FILES_KEPT) {
            Ok(file) => Some(file),
            Err(error) => {
                // No subscriber yet: stderr is the only place to say it.
                eprintln!(
                    "framewright: cannot write the log file {}: {error}",
                    path.display()
                );
                None
            }
        }
    });
    let file_layer = file.map(|file| {
        fmt::layer()
            .with_ansi(false)
            .with_writer(Mutex::new(file))
            .with_filter(file_filter)
    });
    let _ = tracing_subscriber::registry()
        .with(stderr_layer)
        .with(file_layer)
        .try_init();
}
