//! The studio's own folders for Settings: how big the cache is, clearing it, the tail of
//! the log, and opening a folder in the file manager. All of it is disk work, so it runs
//! on the blocking pool and answers with one `StorageEvent` per command.

use super::guard::spawn_reported;
use super::protocol::Event;
use super::runtime::Ctx;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Lines of the log the viewer shows.
pub const LOG_TAIL_LINES: usize = 500;
/// Most bytes read from the end of the log to find those lines (long lines are rare).
const LOG_TAIL_MAX_BYTES: u64 = 512 * 1024;

#[derive(Clone, Debug, PartialEq)]
pub enum StorageCommand {
    /// Size of everything under the cache folder; answered by `CacheMeasured`.
    MeasureCache,
    /// Delete the files under the cache folder (asked for after a confirmation); answered
    /// by `CacheCleared`. Files another part of the studio holds open and cannot be removed
    /// (Windows) are skipped and counted, never an error.
    ClearCache,
    /// The last `max_lines` lines of the log file; answered by `LogTail`.
    ReadLogTail { log_file: PathBuf, max_lines: usize },
    /// Open a folder in the system's file manager; a failure answers `FolderOpenFailed`.
    OpenFolder { path: PathBuf },
}

#[derive(Clone, Debug, PartialEq)]
pub enum StorageEvent {
    CacheMeasured(Result<CacheSize, String>),
    CacheCleared(Result<CacheCleared, String>),
    LogTail {
        log_file: PathBuf,
        result: Result<Vec<String>, String>,
    },
    FolderOpenFailed {
        path: PathBuf,
        error: String,
    },
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheSize {
    pub bytes: u64,
    pub files: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheCleared {
    pub freed_bytes: u64,
    pub removed_files: u64,
    /// Files that could not be removed (in use); they stay and are counted next time.
    pub kept_files: u64,
}

pub(crate) fn handle(ctx: &Arc<Ctx>, command: StorageCommand) {
    let task_ctx = ctx.clone();
    let cache_dir = ctx.cache_dir.clone();
    let doing = match &command {
        StorageCommand::MeasureCache => "measuring the cache",
        StorageCommand::ClearCache => "clearing the cache",
        StorageCommand::ReadLogTail { .. } => "reading the log",
        StorageCommand::OpenFolder { .. } => "opening a folder",
    };
    spawn_reported(ctx, doing, async move {
        let work = move || -> Option<StorageEvent> {
            match command {
                StorageCommand::MeasureCache => Some(StorageEvent::CacheMeasured(
                    measure(&cache_dir).map_err(|e| io_words(&e)),
                )),
                StorageCommand::ClearCache => {
                    let result = clear(&cache_dir).map_err(|e| io_words(&e));
                    if let Ok(done) = &result {
                        tracing::info!(
                            freed_bytes = done.freed_bytes,
                            removed = done.removed_files,
                            kept = done.kept_files,
                            "cache cleared"
                        );
                    }
                    Some(StorageEvent::CacheCleared(result))
                }
                StorageCommand::ReadLogTail {
                    log_file,
                    max_lines,
                } => {
                    let result = read_tail(&log_file, max_lines).map_err(|e| io_words(&e));
                    Some(StorageEvent::LogTail { log_file, result })
                }
                StorageCommand::OpenFolder { path } => {
                    // Make sure there is something to open (a fresh install has no cache yet).
                    let _ = std::fs::create_dir_all(&path);
                    match open::that_detached(&path) {
                        Ok(()) => None,
                        Err(e) => {
                            tracing::warn!("could not open {}: {e}", path.display());
                            Some(StorageEvent::FolderOpenFailed {
                                path,
                                error: io_words(&e),
                            })
                        }
                    }
                }
            }
        };
        let event = match tokio::task::spawn_blocking(work).await {
            Ok(event) => event,
            Err(e) => {
                tracing::error!("storage task failed: {e}");
                None
            }
        };
        if let Some(event) = event {
            task_ctx.emit(Event::Storage(event)).await;
        }
    });
}

fn io_words(error: &std::io::Error) -> String {
    crate::settings::broken_file::describe_io_error(error)
}

/// Every file under `dir` (a missing folder is an empty cache).
pub fn measure(dir: &Path) -> std::io::Result<CacheSize> {
    let mut size = CacheSize::default();
    visit_files(dir, &mut |_, len| {
        size.bytes += len;
        size.files += 1;
    })?;
    Ok(size)
}

/// Remove every file under `dir`, keeping the folders (the thumbnail pipeline and the
/// downloads write into them at any moment). A file that cannot be removed is kept.
pub fn clear(dir: &Path) -> std::io::Result<CacheCleared> {
    let mut done = CacheCleared::default();
    visit_files(dir, &mut |path, len| match std::fs::remove_file(path) {
        Ok(()) => {
            done.freed_bytes += len;
            done.removed_files += 1;
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            tracing::debug!("cache file kept ({}): {e}", path.display());
            done.kept_files += 1;
        }
    })?;
    Ok(done)
}

fn visit_files(dir: &Path, visit: &mut dyn FnMut(&Path, u64)) -> std::io::Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() {
            // A sub-folder that vanished or cannot be read does not stop the rest.
            if let Err(e) = visit_files(&path, visit) {
                tracing::debug!("cache folder skipped ({}): {e}", path.display());
            }
        } else if kind.is_file() {
            let len = entry.metadata().map(|m| m.len()).unwrap_or(0);
            visit(&path, len);
        }
    }
    Ok(())
}

/// The last `max_lines` lines of a text file (read from its end; invalid UTF-8 replaced).
/// A missing file has no lines.
pub fn read_tail(path: &Path, max_lines: usize) -> std::io::Result<Vec<String>> {
    let mut file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let len = file.metadata()?.len();
    let start = len.saturating_sub(LOG_TAIL_MAX_BYTES);
    file.seek(SeekFrom::Start(start))?;
    let mut bytes = Vec::new();
    file.take(LOG_TAIL_MAX_BYTES).read_to_end(&mut bytes)?;
    let text = String::from_utf8_lossy(&bytes);
    let mut lines: Vec<&str> = text.lines().collect();
    // Reading from the middle of the file: the first line is probably cut.
    if start > 0 && !lines.is_empty() {
        lines.remove(0);
    }
    let skip = lines.len().saturating_sub(max_lines);
    Ok(lines[skip..].iter().map(|l| (*l).to_owned()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_and_clears_nested_cache_files_but_keeps_folders() {
        let dir = tempfile::tempdir().expect("tempdir");
        let thumbs = dir.path().join("thumbnails");
        std::fs::create_dir_all(&thumbs).expect("mkdir");
        std::fs::write(thumbs.join("a.png"), [0u8; 100]).expect("write");
        std::fs::write(dir.path().join("b.bin"), [0u8; 50]).expect("write");
        assert_eq!(
            measure(dir.path()).expect("measure"),
            CacheSize {
                bytes: 150,
                files: 2
            }
        );
        let cleared = clear(dir.path()).expect("clear");
        assert_eq!(cleared.freed_bytes, 150);
        assert_eq!(cleared.removed_files, 2);
        assert!(thumbs.is_dir());
        assert_eq!(measure(dir.path()).expect("measure").bytes, 0);
        assert_eq!(
            measure(&dir.path().join("missing")).expect("missing"),
            CacheSize::default()
        );
    }

    #[test]
    fn the_tail_keeps_the_last_lines() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("log");
        let text: String = (1..=800).map(|n| format!("line {n}\n")).collect();
        std::fs::write(&path, text).expect("write");
        let tail = read_tail(&path, 500).expect("tail");
        assert_eq!(tail.len(), 500);
        assert_eq!(tail.first().map(String::as_str), Some("line 301"));
        assert_eq!(tail.last().map(String::as_str), Some("line 800"));
        assert!(
            read_tail(&dir.path().join("none"), 5)
                .expect("none")
                .is_empty()
        );
    }
}
