//! Where settings, data, cache and logs live.

use std::path::{Path, PathBuf};

/// Set this to keep everything (settings, data, cache, logs) under one folder.
pub const HOME_ENV: &str = "FRAMEWRIGHT_HOME";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppPaths {
    /// settings.json and, without an OS keychain, secrets.json
    pub config_dir: PathBuf,
    /// job journal, the local sandbox's database and generated files
    pub data_dir: PathBuf,
    /// downloaded outputs opened in the system viewer
    pub cache_dir: PathBuf,
    pub log_dir: PathBuf,
}

impl AppPaths {
    /// Platform locations (XDG on Linux, Application Support on macOS, AppData on Windows),
    /// or everything under `$FRAMEWRIGHT_HOME` when set.
    pub fn discover() -> Option<Self> {
        if let Some(home) = std::env::var_os(HOME_ENV).filter(|v| !v.is_empty()) {
            return Some(Self::under(Path::new(&home)));
        }
        let dirs = directories::ProjectDirs::from("app", "Framewright", "framewright")?;
        Some(Self {
            config_dir: dirs.config_dir().to_path_buf(),
            data_dir: dirs.data_dir().to_path_buf(),
            cache_dir: dirs.cache_dir().to_path_buf(),
            log_dir: dirs.data_dir().join("logs"),
        })
    }

    /// Everything under one root (tests, portable installs).
    pub fn under(root: &Path) -> Self {
        Self {
            config_dir: root.join("config"),
            data_dir: root.join("data"),
            cache_dir: root.join("cache"),
            log_dir: root.join("logs"),
        }
    }

    pub fn settings_file(&self) -> PathBuf {
        self.config_dir.join("settings.json")
    }
    pub fn secrets_file(&self) -> PathBuf {
        self.config_dir.join("secrets.json")
    }
    pub fn journal_file(&self) -> PathBuf {
        self.data_dir.join("journal.sqlite3")
    }
    /// The studio's log (appended to by every run; see `init_logging` in main.rs).
    pub fn log_file(&self) -> PathBuf {
        self.log_dir.join("framewright.log")
    }
    pub fn sandbox_dir(&self) -> PathBuf {
        self.data_dir.join("sandbox")
    }

    pub fn create_all(&self) -> std::io::Result<()> {
        for dir in [
            &self.config_dir,
            &self.data_dir,
            &self.cache_dir,
            &self.log_dir,
        ] {
            // Private (0700): the data folder holds the journal and the sandbox's key store.
            crate::local_files::create_private_dir_all(dir)?;
        }
        Ok(())
    }
}
