//! Settings → "Add remote service": a profile with a base URL and an API key, activated,
//! talks to that service; the key lives only in the secret store and is shown masked.
//! The "remote" service here is a second sandbox on loopback.

use framewright::engine::Event;
use framewright::sandbox::{SandboxConfig, start};
use framewright::session::{Session, SessionError, SessionOptions};
use framewright::settings::{AppPaths, ProfileKind};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn open(paths: &AppPaths) -> Session {
    let options = SessionOptions {
        sandbox_speed: 20.0,
        use_os_keychain: false,
    };
    Session::open_with(paths.clone(), options, Arc::new(|| {}))
}

/// Waits for the catalog event of the current connection and returns the model count.
fn catalog_size(session: &mut Session) -> usize {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(30) {
        while let Some(event) = session.try_recv() {
            if let Event::Catalog(result) = event {
                return result.expect("catalog loads").len();
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("no catalog event");
}

#[test]
fn a_remote_profile_connects_with_its_key_and_never_stores_it_in_settings() {
    let remote_dir = tempfile::tempdir().expect("tempdir");
    let remote_key = "fw_remote_key_7f3a9c2e41d8";
    let mut remote_config = SandboxConfig::new(remote_dir.path().to_path_buf());
    remote_config.api_key = Some(remote_key.to_owned());
    let remote = start(remote_config).expect("remote service starts");

    let home = tempfile::tempdir().expect("tempdir");
    let paths = AppPaths::under(home.path());
    let mut session = open(&paths);
    assert!(
        session.active_profile().is_local_sandbox(),
        "local sandbox by default"
    );
    assert!(catalog_size(&mut session) > 0);

    // Field-level refusals before anything is stored.
    assert!(matches!(
        session.add_remote_profile("Studio", "not a url", remote_key),
        Err(SessionError::InvalidBaseUrl(_))
    ));
    assert!(matches!(
        session.add_remote_profile("Studio", remote.base_url(), "   "),
        Err(SessionError::EmptyApiKey)
    ));

    // The user may leave out /api; it is added.
    let base_without_api = remote.base_url().trim_end_matches("/api").to_owned();
    let id = session
        .add_remote_profile("Studio", &base_without_api, remote_key)
        .expect("profile saved");
    let profile = session
        .settings()
        .profile(&id)
        .expect("profile listed")
        .clone();
    assert_eq!(
        profile.kind,
        ProfileKind::Remote {
            base_url: remote.base_url().to_owned()
        }
    );

    let epoch_before = session.connection_epoch();
    session.activate_profile(&id).expect("activates");
    assert!(
        session.connection_epoch() > epoch_before,
        "UI is told to reset"
    );
    assert!(
        session.connection_error().is_none(),
        "{:?}",
        session.connection_error()
    );
    assert!(
        session.local_sandbox().is_none(),
        "the embedded sandbox is stopped"
    );
    assert!(
        catalog_size(&mut session) > 0,
        "the remote service answers with the key"
    );

    let masked = session.masked_api_key(&id).expect("masked key");
    assert!(
        !masked.contains("remote_key_7f3a"),
        "never shown in full: {masked}"
    );

    let settings_text = std::fs::read_to_string(paths.settings_file()).expect("settings saved");
    assert!(
        !settings_text.contains(remote_key),
        "settings.json must not hold the key"
    );
    let secrets_text = std::fs::read_to_string(paths.secrets_file()).expect("key file");
    assert!(
        secrets_text.contains(remote_key),
        "the key is in the secret store"
    );

    // Survives a restart: the remote profile is still active and still connects.
    drop(session);
    let mut session = open(&paths);
    assert_eq!(session.active_profile().id, id);
    assert!(catalog_size(&mut session) > 0);

    // A wrong key is reported by the service, not hidden.
    session
        .update_remote_profile(
            &id,
            "Studio",
            remote.base_url(),
            Some("fw_wrong_key_000000"),
        )
        .expect("updated");
    let started = Instant::now();
    let error = loop {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no catalog event"
        );
        match session.try_recv() {
            Some(Event::Catalog(Err(error))) => break error,
            Some(Event::Catalog(Ok(_))) => panic!("a wrong key must not load the catalog"),
            _ => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    assert_eq!(error.status(), Some(401));

    // Removing the active profile falls back to the local sandbox and forgets the key.
    session.remove_profile(&id).expect("removed");
    assert!(session.active_profile().is_local_sandbox());
    assert!(session.local_sandbox().is_some());
    let secrets_text = std::fs::read_to_string(paths.secrets_file()).unwrap_or_default();
    assert!(
        !secrets_text.contains("fw_wrong_key"),
        "the key is deleted with its profile"
    );
}
