//! What the studio remembers between runs: service profiles, the active one, the last
//! project and the local sandbox's port. Runtime-only state never lives here. API keys are
//! not part of this file: they live in the secret store (see `secrets`).

pub mod broken_file;
pub mod paths;
pub mod secrets;

pub use broken_file::BrokenFileNotice;
pub use paths::AppPaths;
pub use secrets::{SecretStore, SecretStoreError, mask_api_key};

use serde::{Deserialize, Serialize};
use std::path::Path;

/// Id of the built-in profile that runs the embedded sandbox.
pub const LOCAL_SANDBOX_PROFILE_ID: &str = "local-sandbox";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ProfileKind {
    /// The embedded sandbox, started in-process on a loopback port.
    LocalSandbox,
    /// A hosted service; the key is in the secret store under the profile id.
    Remote { base_url: String },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServiceProfile {
    pub id: String,
    pub name: String,
    #[serde(flatten)]
    pub kind: ProfileKind,
}

impl ServiceProfile {
    pub fn local_sandbox() -> Self {
        Self {
            id: LOCAL_SANDBOX_PROFILE_ID.to_owned(),
            name: "Local sandbox".to_owned(),
            kind: ProfileKind::LocalSandbox,
        }
    }
    pub fn is_local_sandbox(&self) -> bool {
        self.kind == ProfileKind::LocalSandbox
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub profiles: Vec<ServiceProfile>,
    pub active_profile_id: String,
    pub last_project_id: Option<String>,
    /// Reused so output URLs of earlier local jobs keep working after a restart.
    pub last_sandbox_port: Option<u16>,
    /// Where the artist was: window, view, the panels' remembered choices.
    pub ui: UiMemory,
    /// Create's starting model, resolution and duration per generation type, keyed by the
    /// type's wire name (`"image"`, `"text_to_video"`…). A type without an entry (or a
    /// field left `None`) uses the service's own default (Auto).
    pub generation_defaults: std::collections::BTreeMap<String, GenerationDefaults>,
    /// Warn when the spendable balance drops below this many credits; 0 turns it off.
    pub low_balance_threshold_credits: f64,
    /// Theme and UI scale.
    pub appearance: Appearance,
    /// The first-run welcome was answered (shown again only when asked from Help).
    pub welcome_seen: bool,
    /// Size limit of the Library's thumbnail cache on disk, in MB (10^6 bytes); least
    /// recently used thumbnails are deleted beyond it.
    pub thumbnail_cache_mb: u32,
}

/// Which theme the studio shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThemeChoice {
    /// Follow the desktop's light/dark preference.
    #[default]
    System,
    Light,
    Dark,
}

/// How the studio looks. Missing fields (older settings files) take the defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Appearance {
    pub theme: ThemeChoice,
    /// Size of everything on screen, in percent of the normal size (75..=200).
    pub ui_scale_percent: u16,
}

impl Appearance {
    pub const MIN_UI_SCALE_PERCENT: u16 = 75;
    pub const MAX_UI_SCALE_PERCENT: u16 = 200;

    /// The scale kept within the supported range (a hand-edited file may hold anything).
    pub fn ui_scale_percent_clamped(&self) -> u16 {
        self.ui_scale_percent
            .clamp(Self::MIN_UI_SCALE_PERCENT, Self::MAX_UI_SCALE_PERCENT)
    }
}

impl Default for Appearance {
    fn default() -> Self {
        Self {
            theme: ThemeChoice::System,
            ui_scale_percent: 100,
        }
    }
}

/// What Create starts from for one generation type (see `Settings::generation_defaults`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GenerationDefaults {
    /// `None` = Auto (the service picks).
    pub model_id: Option<String>,
    pub resolution: Option<String>,
    /// Video types only.
    pub duration_secs: Option<f64>,
}

impl GenerationDefaults {
    pub fn is_empty(&self) -> bool {
        self == &Self::default()
    }
}

/// The low-balance threshold a fresh install starts with.
pub const DEFAULT_LOW_BALANCE_THRESHOLD_CREDITS: f64 = 100.0;

/// What the studio's screens remember between runs. Each panel keeps its own part as a
/// JSON value under its name (`"create"`, `"library"`), so settings need not know UI
/// types and a panel's unreadable part falls back to that panel's defaults alone.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct UiMemory {
    pub window: Option<WindowGeometry>,
    /// The view shown last (`View`'s lower-case name).
    pub last_view: Option<String>,
    pub panels: std::collections::BTreeMap<String, serde_json::Value>,
}

/// The main window as last seen, in logical points.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct WindowGeometry {
    pub inner_width_pt: f32,
    pub inner_height_pt: f32,
    /// Outer top-left corner; `None` where the platform does not tell it (Wayland).
    pub position_pt: Option<[f32; 2]>,
    pub maximized: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            profiles: vec![ServiceProfile::local_sandbox()],
            active_profile_id: LOCAL_SANDBOX_PROFILE_ID.to_owned(),
            last_project_id: None,
            last_sandbox_port: None,
            ui: UiMemory::default(),
            generation_defaults: Default::default(),
            low_balance_threshold_credits: DEFAULT_LOW_BALANCE_THRESHOLD_CREDITS,
            appearance: Appearance::default(),
            welcome_seen: false,
            thumbnail_cache_mb: crate::media::thumb_cache::DEFAULT_BUDGET_MB,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("Your settings could not be saved to {path}: {}.", broken_file::describe_io_error(.source))]
    Write {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("could not encode settings: {0}")]
    Encode(#[from] serde_json::Error),
}

impl Settings {
    /// The thumbnail cache's byte budget, its MB kept within the supported range (a
    /// hand-edited file may hold anything, even 0, which would empty the cache at start).
    pub fn thumbnail_cache_budget_bytes(&self) -> u64 {
        use crate::media::thumb_cache::{MAX_BUDGET_MB, MIN_BUDGET_MB, budget_bytes_of_mb};
        budget_bytes_of_mb(self.thumbnail_cache_mb.clamp(MIN_BUDGET_MB, MAX_BUDGET_MB))
    }

    /// Loads settings at start-up: a missing file gives defaults; a file that cannot be
    /// decoded is moved aside (`settings.json.broken-<time>`) and defaults are used, with a
    /// notice for the person. Never fatal: a broken settings file must not keep the studio
    /// from opening.
    pub fn load_or_recover(path: &Path) -> (Self, Option<BrokenFileNotice>) {
        let (mut settings, notice) = match std::fs::read(path) {
            Ok(bytes) => match serde_json::from_slice::<Settings>(&bytes) {
                Ok(settings) => (settings, None),
                Err(err) => {
                    let moved = broken_file::move_aside(path, &[]);
                    tracing::warn!(
                        "settings file {} unreadable ({err}); using defaults; moved aside: {moved:?}",
                        path.display()
                    );
                    let message = format!(
                        "Your settings file {} was damaged, so Framewright started with \
                         default settings (your API keys are stored separately and are safe). \
                         {}",
                        path.display(),
                        broken_file::kept_sentence(&moved)
                    );
                    let notice = BrokenFileNotice {
                        file: path.to_path_buf(),
                        moved_to: moved.ok(),
                        message,
                    };
                    (Settings::default(), Some(notice))
                }
            },
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => (Settings::default(), None),
            Err(err) => {
                tracing::warn!("could not read settings {}: {err}", path.display());
                let message = format!(
                    "Your settings file {} could not be read because {}, so Framewright \
                     started with default settings.",
                    path.display(),
                    broken_file::describe_io_error(&err)
                );
                let notice = BrokenFileNotice {
                    file: path.to_path_buf(),
                    moved_to: None,
                    message,
                };
                (Settings::default(), Some(notice))
            }
        };
        settings.normalise();
        (settings, notice)
    }

    /// Reads settings without changing anything on disk (a missing or unreadable file gives
    /// defaults, logged). For reads before the session opens; the session uses
    /// [`Settings::load_or_recover`], which tells the person about a broken file.
    pub fn load(path: &Path) -> Self {
        let mut settings = match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice::<Settings>(&bytes).unwrap_or_else(|err| {
                tracing::warn!(
                    "settings file {} unreadable ({err}); using defaults",
                    path.display()
                );
                Settings::default()
            }),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Settings::default(),
            Err(err) => {
                tracing::warn!("could not read settings {}: {err}", path.display());
                Settings::default()
            }
        };
        settings.normalise();
        settings
    }

    /// The local sandbox profile always exists and the active id always names a profile.
    fn normalise(&mut self) {
        if !self.profiles.iter().any(|p| p.is_local_sandbox()) {
            self.profiles.insert(0, ServiceProfile::local_sandbox());
        }
        if !self.profiles.iter().any(|p| p.id == self.active_profile_id) {
            self.active_profile_id = LOCAL_SANDBOX_PROFILE_ID.to_owned();
        }
    }

    pub fn save(&self, path: &Path) -> Result<(), SettingsError> {
        let bytes = serde_json::to_vec_pretty(self)?;
        write_atomically(path, &bytes, Some(crate::local_files::PRIVATE_FILE_MODE)).map_err(
            |source| SettingsError::Write {
                path: path.display().to_string(),
                source,
            },
        )
    }

    pub fn profile(&self, id: &str) -> Option<&ServiceProfile> {
        self.profiles.iter().find(|p| p.id == id)
    }

    pub fn active_profile(&self) -> &ServiceProfile {
        // normalise() guarantees the active id exists; fall back to the first profile.
        self.profile(&self.active_profile_id)
            .or_else(|| self.profiles.first())
            .expect("settings always hold the local sandbox profile")
    }
}

/// Writes via a temporary file and a rename so a crash never leaves a half-written file.
/// `unix_mode` sets permissions on the temporary file before any byte is written.
pub(crate) fn write_atomically(
    path: &Path,
    bytes: &[u8],
    unix_mode: Option<u32>,
) -> std::io::Result<()> {
    use std::io::Write;
    if let Some(parent) = path.parent() {
        crate::local_files::create_private_dir_all(parent)?;
    }
    let tmp = path.with_extension("tmp");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    if let Some(mode) = unix_mode {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(mode);
    }
    #[cfg(not(unix))]
    let _ = unix_mode;
    let mut file = options.open(&tmp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_file_gives_local_sandbox_default() {
        let dir = tempfile::tempdir().expect("tempdir");
        let settings = Settings::load(&dir.path().join("settings.json"));
        assert_eq!(settings.active_profile().name, "Local sandbox");
        assert!(settings.active_profile().is_local_sandbox());
    }

    #[test]
    fn an_older_file_without_appearance_loads_with_its_defaults() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("settings.json");
        std::fs::write(
            &path,
            br#"{"active_profile_id":"local-sandbox","appearance":{"theme":"light"}}"#,
        )
        .expect("write");
        let loaded = Settings::load(&path);
        assert_eq!(loaded.appearance.theme, ThemeChoice::Light);
        assert_eq!(loaded.appearance.ui_scale_percent, 100);
        assert!(!loaded.welcome_seen);
        let mut odd = loaded.appearance;
        odd.ui_scale_percent = 900;
        assert_eq!(
            odd.ui_scale_percent_clamped(),
            Appearance::MAX_UI_SCALE_PERCENT
        );
    }

    #[test]
    fn round_trips_remote_profiles_and_repairs_dangling_active_id() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("settings.json");
        let mut settings = Settings::default();
        settings.profiles.push(ServiceProfile {
            id: "studio".into(),
            name: "Studio account".into(),
            kind: ProfileKind::Remote {
                base_url: "https://example.test/api".into(),
            },
        });
        settings.active_profile_id = "studio".into();
        settings.save(&path).expect("save");
        let loaded = Settings::load(&path);
        assert_eq!(loaded, settings);

        std::fs::write(&path, br#"{"profiles":[],"active_profile_id":"gone"}"#).expect("write");
        let repaired = Settings::load(&path);
        assert_eq!(repaired.active_profile_id, LOCAL_SANDBOX_PROFILE_ID);
    }

    #[test]
    fn corrupt_file_does_not_prevent_start() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("settings.json");
        std::fs::write(&path, b"{ not json").expect("write");
        assert_eq!(Settings::load(&path), Settings::default());
        assert!(path.exists(), "a plain load changes nothing on disk");
    }

    #[test]
    fn a_broken_file_is_moved_aside_once_with_a_notice() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("settings.json");
        for broken in [
            &b"{ not json"[..],
            b"\xff\xfe\x00garbage",
            b"{\"profiles\": 42}",
            b"",
        ] {
            std::fs::write(&path, broken).expect("write");
            let (settings, notice) = Settings::load_or_recover(&path);
            assert_eq!(settings, Settings::default());
            let notice = notice.expect("the person is told");
            let moved_to = notice.moved_to.clone().expect("moved aside");
            assert_eq!(std::fs::read(&moved_to).expect("the copy"), broken);
            assert!(notice.message.contains(&path.display().to_string()));
            assert!(notice.message.contains(&moved_to.display().to_string()));
            assert!(!path.exists());
            // The next start finds no file: defaults and no second notice.
            let (_, again) = Settings::load_or_recover(&path);
            assert_eq!(again, None);
        }
    }

    #[test]
    fn an_older_file_without_defaults_or_threshold_loads_with_their_defaults() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("settings.json");
        std::fs::write(
            &path,
            br#"{"active_profile_id":"local-sandbox","last_sandbox_port":4242}"#,
        )
        .expect("write");
        let (settings, notice) = Settings::load_or_recover(&path);
        assert_eq!(notice, None);
        assert_eq!(settings.last_sandbox_port, Some(4242));
        assert!(settings.generation_defaults.is_empty());
        assert_eq!(
            settings.low_balance_threshold_credits,
            DEFAULT_LOW_BALANCE_THRESHOLD_CREDITS
        );
        assert_eq!(
            settings.thumbnail_cache_mb,
            crate::media::thumb_cache::DEFAULT_BUDGET_MB
        );
    }

    #[test]
    fn the_thumbnail_cache_limit_is_remembered() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("settings.json");
        let settings = Settings {
            thumbnail_cache_mb: 250,
            ..Settings::default()
        };
        settings.save(&path).expect("save");
        let (loaded, notice) = Settings::load_or_recover(&path);
        assert_eq!(notice, None);
        assert_eq!(loaded.thumbnail_cache_mb, 250);
    }

    #[test]
    fn a_good_file_gives_no_notice() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("settings.json");
        let settings = Settings {
            last_sandbox_port: Some(4242),
            ..Settings::default()
        };
        settings.save(&path).expect("save");
        assert_eq!(Settings::load_or_recover(&path), (settings, None));
    }
}
