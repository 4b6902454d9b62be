//! The studio's connection to a service: settings, the secret store, the embedded sandbox
//! (for the local profile) and the engine. Not UI code: the app shell owns one `Session`
//! and panels only emit commands.
//!
//! One profile is active: its engine's events all reach the UI. Profiles switched away from
//! while their jobs ran keep their engine (and sandbox) in `background` until those jobs
//! finish; only their jobs are shown (the tray), and job commands are routed to them.

mod background;

use crate::engine::{self, Command, EngineConfig, EngineHandle, Event, Journal};
use crate::sandbox::{self, RequestLogLevel, SandboxConfig, SandboxHandle};
use crate::settings::secrets::mask_api_key;
use crate::settings::{
    AppPaths, BrokenFileNotice, LOCAL_SANDBOX_PROFILE_ID, ProfileKind, SecretStore, ServiceProfile,
    Settings, UiMemory,
};
use background::{BackgroundProfile, JobBook, job_of};
pub use background::{KeptRunning, OtherProfileJob};
use std::sync::Arc;

/// Jobs of profiles other than the active one, as the status bar and rail count them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OtherProfileCounts {
    pub shown: usize,
    pub running: usize,
}

pub type RepaintHook = Arc<dyn Fn() + Send + Sync>;

/// Environment variable that speeds up the local sandbox's jobs (demos, tests).
pub const SANDBOX_SPEED_ENV: &str = "FRAMEWRIGHT_SANDBOX_SPEED";

#[derive(Clone, Debug)]
pub struct SessionOptions {
    /// Job speed factor of the embedded sandbox (1.0 = realistic).
    pub sandbox_speed: f64,
    /// Try the OS keychain before the private key file.
    pub use_os_keychain: bool,
}

impl Default for SessionOptions {
    fn default() -> Self {
        let sandbox_speed = std::env::var(SANDBOX_SPEED_ENV)
            .ok()
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v > 0.0)
            .unwrap_or(1.0);
        Self {
            sandbox_speed,
            use_os_keychain: true,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("Enter a base URL starting with http:// or https:// (got “{0}”).")]
    InvalidBaseUrl(String),
    #[error("Enter an API key.")]
    EmptyApiKey,
    #[error("Give the profile a name.")]
    EmptyName,
    #[error("No such profile.")]
    UnknownProfile,
    #[error("The local sandbox profile can't be changed or removed.")]
    LocalProfileIsFixed,
    #[error("{0}")]
    Secrets(#[from] crate::settings::SecretStoreError),
    #[error("{0}")]
    Settings(#[from] crate::settings::SettingsError),
}

struct Connection {
    profile_id: String,
    profile_name: String,
    engine: EngineHandle,
    /// Kept alive for as long as the local profile is active; dropped = stopped.
    sandbox: Option<SandboxHandle>,
    label: String,
    /// Where the engine sends requests (for "can't reach …" messages).
    base_url: String,
    /// The jobs its engine reported, for keeping them in view after a switch.
    jobs: JobBook,
}

pub struct Session {
    paths: AppPaths,
    settings: Settings,
    options: SessionOptions,
    secrets: SecretStore,
    repaint: RepaintHook,
    connection: Option<Connection>,
    /// Other profiles whose jobs are still shown (see `background`).
    background: Vec<BackgroundProfile>,
    connection_error: Option<String>,
    epoch: u64,
    /// Broken files found while opening (settings, journal), until the shell shows them.
    startup_notices: Vec<BrokenFileNotice>,
}

impl Session {
    /// Opens with platform paths and default options.
    pub fn open(paths: AppPaths, repaint: RepaintHook) -> Self {
        Self::open_with(paths, SessionOptions::default(), repaint)
    }

    /// Loads settings and connects the active profile. A failed connection does not fail
    /// the session: the studio opens and shows `connection_error()`.
    pub fn open_with(paths: AppPaths, options: SessionOptions, repaint: RepaintHook) -> Self {
        if let Err(err) = paths.create_all() {
            tracing::warn!("could not create app folders: {err}");
        }
        let (settings, settings_notice) = Settings::load_or_recover(&paths.settings_file());
        let secrets = SecretStore::open(options.use_os_keychain, &paths.secrets_file());
        let mut session = Self {
            paths,
            settings,
            options,
            secrets,
            repaint,
            connection: None,
            background: Vec::new(),
            connection_error: None,
            epoch: 0,
            startup_notices: settings_notice.into_iter().collect(),
        };
        session.connect();
        session.resume_other_profiles();
        session
    }

    /// What was found broken on disk while opening (a damaged settings file or job
    /// journal, moved aside), each returned once for the shell to show.
    pub fn take_startup_notices(&mut self) -> Vec<BrokenFileNotice> {
        std::mem::take(&mut self.startup_notices)
    }

    pub fn paths(&self) -> &AppPaths {
        &self.paths
    }

    /// The embedded sandbox while the local profile is active (its fault-injection and
    /// credit controls serve demos and tests).
    pub fn local_sandbox(&self) -> Option<&SandboxHandle> {
        self.connection.as_ref()?.sandbox.as_ref()
    }

    /// The service address the engine talks to, while connected.
    pub fn base_url(&self) -> Option<&str> {
        self.connection.as_ref().map(|c| c.base_url.as_str())
    }

    /// Stops the embedded sandbox while the engine keeps running, as if the service went
    /// away mid-session (tests, demos). False when the local profile is not active.
    pub fn stop_local_sandbox(&mut self) -> bool {
        let Some(sandbox) = self.connection.as_mut().and_then(|c| c.sandbox.take()) else {
            return false;
        };
        sandbox.shutdown();
        true
    }

    /// Starts the embedded sandbox again on the port the engine already talks to, after
    /// [`Session::stop_local_sandbox`]. Same data folder, so the same key and data.
    pub fn restart_local_sandbox(&mut self) -> Result<(), String> {
        let Some(connection) = self.connection.as_mut() else {
            return Err("not connected".to_owned());
        };
        if connection.sandbox.is_some() {
            return Ok(());
        }
        let port = self
            .settings
            .last_sandbox_port
            .ok_or_else(|| "the sandbox never ran in this session".to_owned())?;
        let mut config = embedded_sandbox_config(&self.paths, &self.options);
        config.port = port;
        config.port_fallback = false;
        let sandbox = sandbox::start(config).map_err(|e| e.to_string())?;
        let recovery = sandbox.store_recovery().cloned();
        connection.sandbox = Some(sandbox);
        if let Some(recovery) = recovery {
            self.push_sandbox_notice(recovery);
        }
        Ok(())
    }

    /// A damaged sandbox database was moved aside at start: told once, like a broken
    /// settings file or journal.
    fn note_sandbox_recovery(&mut self, sandbox: &SandboxHandle) {
        if let Some(recovery) = sandbox.store_recovery().cloned() {
            self.push_sandbox_notice(recovery);
        }
    }

    fn push_sandbox_notice(&mut self, recovery: sandbox::StoreRecovery) {
        let message = recovery.message();
        tracing::warn!("{message}");
        self.startup_notices.push(BrokenFileNotice {
            file: recovery.file,
            moved_to: Some(recovery.moved_to),
            message,
        });
    }

    /// Sends to the active profile's engine; a command about one job goes to the engine
    /// of the profile that job belongs to (Cancel on a background profile's job).
    pub fn send(&mut self, command: Command) -> Result<(), String> {
        if let Some(local_id) = job_of(&command)
            && let Some(profile) = self
                .background
                .iter_mut()
                .find(|profile| profile.jobs.contains(local_id))
        {
            return profile.send(command, &self.paths.journal_file());
        }
        match &self.connection {
            Some(connection) => connection.engine.send(command).map_err(|e| e.to_string()),
            None => Err(self
                .connection_error
                .clone()
                .unwrap_or_else(|| "Not connected to a service.".to_owned())),
        }
    }

    /// The active engine's next event. When none is waiting, the background profiles'
    /// job events are read too (the tray shows them through [`Session::other_profile_jobs`]).
    pub fn try_recv(&mut self) -> Option<Event> {
        if let Some(connection) = self.connection.as_mut()
            && let Some(event) = connection.engine.try_recv()
        {
            connection.jobs.observe(&event);
            return Some(event);
        }
        for profile in &mut self.background {
            profile.drain();
        }
        self.background.retain(|profile| !profile.is_done());
        None
    }

    /// The jobs of profiles other than the active one that are still shown: running on
    /// (or finished since the switch away from) their profile, oldest first per profile.
    pub fn other_profile_jobs(&self) -> impl Iterator<Item = OtherProfileJob<'_>> {
        self.background.iter().flat_map(|profile| {
            profile.jobs.records().map(|record| OtherProfileJob {
                profile_name: &profile.profile_name,
                record,
            })
        })
    }

    /// How many jobs of other profiles the tray shows, and how many of them still run.
    pub fn other_profile_job_counts(&self) -> OtherProfileCounts {
        self.other_profile_jobs()
            .fold(OtherProfileCounts::default(), |mut counts, job| {
                counts.shown += 1;
                counts.running += usize::from(!job.record.phase.is_finished());
                counts
            })
    }

    pub fn connection_epoch(&self) -> u64 {
        self.epoch
    }

    pub fn connection_error(&self) -> Option<&str> {
        self.connection_error.as_deref()
    }

    pub fn service_label(&self) -> String {
        match &self.connection {
            Some(connection) => connection.label.clone(),
            None => format!("{} · offline", self.active_profile().name),
        }
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn active_profile(&self) -> &ServiceProfile {
        self.settings.active_profile()
    }

    pub fn masked_api_key(&self, profile_id: &str) -> Option<String> {
        let profile = self.settings.profile(profile_id)?;
        match profile.kind {
            ProfileKind::LocalSandbox => None,
            ProfileKind::Remote { .. } => self.secrets.get(profile_id).map(|k| mask_api_key(&k)),
        }
    }

    pub fn secret_store_description(&self) -> String {
        self.secrets.description()
    }

    pub fn add_remote_profile(
        &mut self,
        name: &str,
        base_url: &str,
        api_key: &str,
    ) -> Result<String, SessionError> {
        let name = non_empty_name(name)?;
        let base_url = normalise_base_url(base_url)?;
        let api_key = api_key.trim();
        if api_key.is_empty() {
            return Err(SessionError::EmptyApiKey);
        }
        let id = format!("remote-{}", uuid::Uuid::new_v4().simple());
        self.secrets.set(&id, api_key)?;
        self.settings.profiles.push(ServiceProfile {
            id: id.clone(),
            name,
            kind: ProfileKind::Remote { base_url },
        });
        self.save_settings()?;
        Ok(id)
    }

    pub fn update_remote_profile(
        &mut self,
        id: &str,
        name: &str,
        base_url: &str,
        new_api_key: Option<&str>,
    ) -> Result<(), SessionError> {
        let name = non_empty_name(name)?;
        let base_url = normalise_base_url(base_url)?;
        let index = self.remote_index(id)?;
        if let Some(key) = new_api_key.map(str::trim).filter(|k| !k.is_empty()) {
            self.secrets.set(id, key)?;
        }
        self.settings.profiles[index] = ServiceProfile {
            id: id.to_owned(),
            name,
            kind: ProfileKind::Remote { base_url },
        };
        self.save_settings()?;
        if self.settings.active_profile_id == id {
            self.reconnect();
        }
        Ok(())
    }

    pub fn remove_profile(&mut self, id: &str) -> Result<(), SessionError> {
        let index = self.remote_index(id)?;
        self.secrets.remove(id)?;
        self.settings.profiles.remove(index);
        // Its jobs resume if the same service is added again; nothing more is shown now.
        self.background.retain(|profile| profile.profile_id != id);
        let was_active = self.settings.active_profile_id == id;
        if was_active {
            self.settings.active_profile_id = LOCAL_SANDBOX_PROFILE_ID.to_owned();
        }
        self.save_settings()?;
        if was_active {
            self.reconnect();
        }
        Ok(())
    }

    /// Makes `id` the active profile. The profile switched away from keeps its engine
    /// (and sandbox) while it has unfinished jobs; the answer says how many keep running.
    pub fn activate_profile(&mut self, id: &str) -> Result<Option<KeptRunning>, SessionError> {
        if self.settings.profile(id).is_none() {
            return Err(SessionError::UnknownProfile);
        }
        if self.settings.active_profile_id == id && self.connection.is_some() {
            return Ok(None);
        }
        self.settings.active_profile_id = id.to_owned();
        self.settings.last_project_id = None;
        self.save_settings()?;
        let kept = self
            .connection
            .take()
            .and_then(|connection| self.keep_in_background(connection));
        self.connect();
        Ok(kept)
    }

    /// A connection being switched away from: kept running in the background while it
    /// has unfinished jobs, else stopped.
    fn keep_in_background(&mut self, mut connection: Connection) -> Option<KeptRunning> {
        // Events the UI has not read yet still count (a job submitted just before).
        while let Some(event) = connection.engine.try_recv() {
            connection.jobs.observe(&event);
        }
        let job_count = connection.jobs.unfinished_count();
        if job_count == 0 {
            stop_connection(connection);
            return None;
        }
        tracing::info!(
            "{job_count} job(s) keep running on {} in the background",
            connection.profile_name
        );
        let kept = KeptRunning {
            profile_name: connection.profile_name.clone(),
            job_count,
        };
        self.background.push(connection.into_background());
        Some(kept)
    }

    /// At start: profiles other than the active one with unfinished jobs in the journal
    /// get their engine back in the background, so their jobs keep running too.
    fn resume_other_profiles(&mut self) {
        let Ok(journal) = Journal::open(&self.paths.journal_file()) else {
            return; // The active connection already said what is wrong with it.
        };
        let others: Vec<ServiceProfile> = self
            .settings
            .profiles
            .iter()
            .filter(|p| p.id != self.settings.active_profile_id)
            .filter(|p| {
                journal
                    .load_all(&p.id)
                    .is_ok_and(|rows| rows.iter().any(|row| !row.record.phase.is_finished()))
            })
            .cloned()
            .collect();
        drop(journal);
        for profile in others {
            match self.open_connection(&profile, None) {
                Ok(connection) => {
                    tracing::info!("{}: resuming its jobs in the background", profile.name);
                    // Its engine has not restored the journal yet: it stops by itself
                    // once it has and no job is left unfinished.
                    self.background.push(connection.into_background());
                }
                Err(message) => {
                    tracing::warn!(
                        "{}: its jobs wait until it is active: {message}",
                        profile.name
                    )
                }
            }
        }
    }

    pub fn set_last_project(&mut self, project_id: Option<String>) {
        if self.settings.last_project_id != project_id {
            self.settings.last_project_id = project_id;
            if let Err(err) = self.save_settings() {
                tracing::warn!("{err}");
            }
        }
    }

    /// What the screens remember between runs.
    pub fn ui_memory(&self) -> &UiMemory {
        &self.settings.ui
    }

    /// Changes what the screens remember and writes the settings file when it changed.
    /// Callers change it on a user action or at most about once a second, never per frame.
    pub fn update_ui_memory(&mut self, change: impl FnOnce(&mut UiMemory)) {
        let mut memory = self.settings.ui.clone();
        change(&mut memory);
        if memory != self.settings.ui {
            self.settings.ui = memory;
            if let Err(err) = self.save_settings() {
                tracing::warn!("{err}");
            }
        }
    }

    /// Change the studio's own preferences (Create defaults, the low-balance threshold…)
    /// and save them. Profiles and keys change only through the profile methods above.
    pub fn update_preferences(&mut self, change: impl FnOnce(&mut Settings)) {
        let mut settings = self.settings.clone();
        change(&mut settings);
        // Whatever `change` did, profiles stay as they were.
        settings.profiles = self.settings.profiles.clone();
        settings.active_profile_id = self.settings.active_profile_id.clone();
        if settings != self.settings {
            self.settings = settings;
            if let Err(err) = self.save_settings() {
                tracing::warn!("{err}");
            }
        }
    }

    /// The engine command that tests `profile_id`'s connection (its address and stored
    /// key; the key stays out of the UI). The local sandbox can be tested only while it
    /// runs, that is while its profile is active.
    pub fn test_connection_command(
        &self,
        request_id: u64,
        profile_id: &str,
    ) -> Result<Command, String> {
        let profile = self
            .settings
            .profile(profile_id)
            .ok_or_else(|| SessionError::UnknownProfile.to_string())?;
        let (base_url, api_key) = match &profile.kind {
            ProfileKind::LocalSandbox => {
                let sandbox = self.local_sandbox().ok_or_else(|| {
                    "The local sandbox runs only while its profile is active: activate it first."
                        .to_owned()
                })?;
                (sandbox.base_url().to_owned(), sandbox.api_key().to_owned())
            }
            ProfileKind::Remote { base_url } => {
                let key = self.secrets.get(profile_id).ok_or_else(|| {
                    format!(
                        "No API key is stored for “{}”: edit the profile to add one.",
                        profile.name
                    )
                })?;
                (base_url.clone(), key)
            }
        };
        Ok(Command::Account(engine::AccountCommand::TestConnection {
            request_id,
            profile_id: profile_id.to_owned(),
            base_url,
            api_key: engine::ApiKey(api_key),
        }))
    }

    /// Stops every engine, the background profiles' too (jobs keep running on the service
    /// and resume next start), and the embedded sandbox.
    pub fn shutdown(&mut self) {
        self.shutdown_active();
        self.background.clear();
    }

    fn shutdown_active(&mut self) {
        if let Some(connection) = self.connection.take() {
            stop_connection(connection);
        }
    }

    fn remote_index(&self, id: &str) -> Result<usize, SessionError> {
        let index = self
            .settings
            .profiles
            .iter()
            .position(|p| p.id == id)
            .ok_or(SessionError::UnknownProfile)?;
        if self.settings.profiles[index].is_local_sandbox() {
            return Err(SessionError::LocalProfileIsFixed);
        }
        Ok(index)
    }

    /// Changes the theme and UI scale and writes the settings file when they changed.
    pub fn set_appearance(&mut self, appearance: crate::settings::Appearance) {
        if self.settings.appearance != appearance {
            self.settings.appearance = appearance;
            if let Err(err) = self.save_settings() {
                tracing::warn!("{err}");
            }
        }
    }

    /// Records that the first-run welcome was answered (or asks for it again: `false`).
    pub fn set_welcome_seen(&mut self, seen: bool) {
        if self.settings.welcome_seen != seen {
            self.settings.welcome_seen = seen;
            if let Err(err) = self.save_settings() {
                tracing::warn!("{err}");
            }
        }
    }

    fn save_settings(&self) -> Result<(), SessionError> {
        self.settings
            .save(&self.paths.settings_file())
            .map_err(SessionError::from)
    }

    fn reconnect(&mut self) {
        self.shutdown_active();
        self.connect();
    }

    fn connect(&mut self) {
        self.epoch += 1;
        self.connection_error = None;
        let profile = self.settings.active_profile().clone();
        // Back to a profile whose jobs ran in the background: its engine restarts from the
        // journal (so the UI gets every job), its sandbox keeps running throughout.
        let sandbox = self
            .background
            .iter()
            .position(|p| p.profile_id == profile.id)
            .and_then(|index| self.background.remove(index).into_sandbox());
        let result = self.open_connection(&profile, sandbox);
        match result {
            Ok(connection) => self.connection = Some(connection),
            Err(message) => {
                tracing::error!("could not connect to {}: {message}", profile.name);
                self.connection_error = Some(message);
            }
        }
        (self.repaint)();
    }

    fn open_connection(
        &mut self,
        profile: &ServiceProfile,
        running_sandbox: Option<SandboxHandle>,
    ) -> Result<Connection, String> {
        match &profile.kind {
            ProfileKind::LocalSandbox => self.connect_local(profile, running_sandbox),
            ProfileKind::Remote { base_url } => self.connect_remote(profile, base_url),
        }
    }

    fn connect_local(
        &mut self,
        profile: &ServiceProfile,
        running_sandbox: Option<SandboxHandle>,
    ) -> Result<Connection, String> {
        let sandbox = match running_sandbox {
            Some(sandbox) => sandbox,
            None => {
                let mut config = embedded_sandbox_config(&self.paths, &self.options);
                config.port = self.settings.last_sandbox_port.unwrap_or(0);
                config.port_fallback = true;
                let sandbox = sandbox::start(config)
                    .map_err(|e| format!("The local sandbox could not start: {e}"))?;
                self.note_sandbox_recovery(&sandbox);
                sandbox
            }
        };
        if self.settings.last_sandbox_port != Some(sandbox.port()) {
            self.settings.last_sandbox_port = Some(sandbox.port());
            if let Err(err) = self.save_settings() {
                tracing::warn!("{err}");
            }
        }
        let engine = self.start_engine(profile, sandbox.base_url(), sandbox.api_key())?;
        let label = format!("{} · 127.0.0.1:{}", profile.name, sandbox.port());
        Ok(Connection {
            profile_id: profile.id.clone(),
            profile_name: profile.name.clone(),
            engine,
            base_url: sandbox.base_url().to_owned(),
            sandbox: Some(sandbox),
            label,
            jobs: JobBook::default(),
        })
    }

    fn connect_remote(
        &mut self,
        profile: &ServiceProfile,
        base_url: &str,
    ) -> Result<Connection, String> {
        let api_key = self.secrets.get(&profile.id).ok_or_else(|| {
            format!(
                "No API key is stored for “{}”. Add it in Settings.",
                profile.name
            )
        })?;
        let engine = self.start_engine(profile, base_url, &api_key)?;
        let host = base_url
            .split("://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .unwrap_or(base_url);
        Ok(Connection {
            profile_id: profile.id.clone(),
            profile_name: profile.name.clone(),
            engine,
            sandbox: None,
            label: format!("{} · {host}", profile.name),
            base_url: base_url.to_owned(),
            jobs: JobBook::default(),
        })
    }

    fn start_engine(
        &mut self,
        profile: &ServiceProfile,
        base_url: &str,
        api_key: &str,
    ) -> Result<EngineHandle, String> {
        self.repair_journal()?;
        engine::start(EngineConfig {
            base_url: base_url.to_owned(),
            api_key: api_key.to_owned(),
            journal_path: self.paths.journal_file(),
            service_id: profile.id.clone(),
            cache_dir: self.paths.cache_dir.clone(),
            repaint: self.repaint.clone(),
        })
        .map_err(|e| format!("The studio's job engine could not start: {e}"))
    }

    /// Before the engine opens the journal: a broken one is moved aside (or its unreadable
    /// rows removed) here, so the person is told; the engine then opens a healthy file.
    fn repair_journal(&mut self) -> Result<(), String> {
        let path = self.paths.journal_file();
        match Journal::open_or_recover(&path) {
            Ok((_journal, None)) => Ok(()),
            Ok((_journal, Some(recovery))) => {
                let message = recovery.message(&path);
                tracing::warn!("{message}");
                self.startup_notices.push(BrokenFileNotice {
                    file: path,
                    moved_to: Some(recovery.kept_at().to_path_buf()),
                    message,
                });
                Ok(())
            }
            Err(e) => Err(format!(
                "The job journal {} could not be opened because {}.",
                path.display(),
                e.reason_in_words()
            )),
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.shutdown();
    }
}

impl Connection {
    fn into_background(self) -> BackgroundProfile {
        BackgroundProfile::new(
            self.profile_id,
            self.profile_name,
            self.engine,
            self.sandbox,
            self.jobs,
        )
    }
}

/// Stops an engine, then the sandbox it talks to.
fn stop_connection(connection: Connection) {
    let _ = connection.engine.send(Command::Shutdown);
    connection.engine.shutdown();
    drop(connection.sandbox);
}

fn non_empty_name(name: &str) -> Result<String, SessionError> {
    let name = name.trim();
    if name.is_empty() {
        Err(SessionError::EmptyName)
    } else {
        Ok(name.to_owned())
    }
}

/// Accepts `https://host`, `https://host/` or `https://host/api` and returns the form
/// ending in `/api` that the client expects.
pub fn normalise_base_url(input: &str) -> Result<String, SessionError> {
    let trimmed = input.trim().trim_end_matches('/');
    let valid_scheme = trimmed.starts_with("https://") || trimmed.starts_with("http://");
    let has_host = trimmed
        .split("://")
        .nth(1)
        .is_some_and(|rest| !rest.is_empty());
    if !valid_scheme || !has_host || trimmed.contains(char::is_whitespace) {
        return Err(SessionError::InvalidBaseUrl(input.trim().to_owned()));
    }
    Ok(if trimmed.ends_with("/api") {
        trimmed.to_owned()
    } else {
        format!("{trimmed}/api")
    })
}

/// The embedded sandbox's settings; the caller picks the port.
fn embedded_sandbox_config(paths: &AppPaths, options: &SessionOptions) -> SandboxConfig {
    let mut config = SandboxConfig::new(paths.sandbox_dir());
    config.speed = options.sandbox_speed;
    // One line per request would fill the studio's log: they are there with RUST_LOG=debug.
    config.request_log_level = RequestLogLevel::Debug;
    config
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_url_is_normalised_to_api_root() {
        assert_eq!(
            normalise_base_url(" https://gen.example.com/ ")
                .ok()
                .as_deref(),
            Some("https://gen.example.com/api")
        );
        assert_eq!(
            normalise_base_url("http://127.0.0.1:8080/api")
                .ok()
                .as_deref(),
            Some("http://127.0.0.1:8080/api")
        );
        assert!(normalise_base_url("gen.example.com").is_err());
        assert!(normalise_base_url("https://").is_err());
    }
}
