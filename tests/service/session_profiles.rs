//! Settings → "Add remote service": a profile with a base URL and an API key, activated,
//! talks to that service; the key lives only in the secret store and is shown masked.
//! The "remote" service here is a second sandbox on loopback.

use framewright::engine::{Command, Event, JobPhase, JobRecord, LocalJobId};
use framewright::sandbox::{SandboxConfig, start};
use framewright::session::{Session, SessionError, SessionOptions};
use framewright::settings::{AppPaths, ProfileKind};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::service_support;
use service_support::image_spec;

fn open(paths: &AppPaths) -> Session {
    open_at_speed(paths, 20.0)
}

fn open_at_speed(paths: &AppPaths, sandbox_speed: f64) -> Session {
    let options = SessionOptions {
        sandbox_speed,
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

// ---- Switching profile while jobs run ------------------------------------------------

/// Wait limit for every loop below; reaching it fails the test (no timing assertion).
const WAIT_LIMIT: Duration = Duration::from_secs(60);

/// Reads events (as the UI does every frame) until `done`; the active profile's events.
fn pump_until(
    session: &mut Session,
    what: &str,
    mut done: impl FnMut(&Session, &[Event]) -> bool,
) -> Vec<Event> {
    let started = Instant::now();
    let mut seen = Vec::new();
    loop {
        while let Some(event) = session.try_recv() {
            seen.push(event);
        }
        if done(session, &seen) {
            return seen;
        }
        assert!(
            started.elapsed() < WAIT_LIMIT,
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn job_in(events: &[Event], prompt: &str) -> Option<JobRecord> {
    events.iter().rev().find_map(|event| match event {
        Event::JobUpdated(job) if job.spec.request.prompt == prompt => Some(job.clone()),
        _ => None,
    })
}

/// Submits on the active profile and waits until the service accepted the job.
fn submit_and_wait_running(session: &mut Session, prompt: &str) -> LocalJobId {
    session
        .send(Command::Submit {
            spec: image_spec(prompt),
            model_label: "Auto".to_owned(),
            credits_estimate: None,
        })
        .expect("submitted");
    let events = pump_until(session, "the job to run", |_, events| {
        job_in(events, prompt).is_some_and(|job| matches!(job.phase, JobPhase::Running { .. }))
    });
    job_in(&events, prompt).expect("job").local_id
}

/// The background (other profile) copy of a job, with the profile it is labelled with.
fn other_profile_job(session: &Session, local_id: LocalJobId) -> Option<(String, JobRecord)> {
    session
        .other_profile_jobs()
        .find(|job| job.record.local_id == local_id)
        .map(|job| (job.profile_name.to_owned(), job.record.clone()))
}

fn remote_service(dir: &tempfile::TempDir, key: &str) -> framewright::sandbox::SandboxHandle {
    let mut config = SandboxConfig::new(dir.path().to_path_buf());
    config.api_key = Some(key.to_owned());
    config.speed = 20.0;
    start(config).expect("remote service starts")
}

#[test]
fn a_local_job_keeps_running_and_completes_while_another_profile_is_active() {
    let remote_dir = tempfile::tempdir().expect("tempdir");
    let remote = remote_service(&remote_dir, "fw_remote_key_switch_01");
    let home = tempfile::tempdir().expect("tempdir");
    let paths = AppPaths::under(home.path());
    // Slow local jobs (several seconds each): still running when the profile changes.
    let mut session = open_at_speed(&paths, 0.5);
    let local_name = session.active_profile().name.clone();
    let remote_id = session
        .add_remote_profile("Studio", remote.base_url(), "fw_remote_key_switch_01")
        .expect("profile saved");

    let prompt = "a harbour crane at night";
    let local_id = submit_and_wait_running(&mut session, prompt);
    let kept = session
        .activate_profile(&remote_id)
        .expect("activates")
        .expect("the running job is reported as kept");
    assert_eq!(kept.job_count, 1);
    assert_eq!(
        kept.message(),
        format!("1 job keeps running on {local_name}")
    );
    let (label, job) = other_profile_job(&session, local_id).expect("still in view");
    assert_eq!(label, local_name, "labelled with its own profile");
    let progress_at_switch = job.progress_percent;

    // The remote profile is active and answers; the local job keeps progressing (the
    // embedded sandbox did not stop) and completes, without reaching the active stream.
    let active_events = pump_until(&mut session, "the local job to complete", |s, _| {
        other_profile_job(s, local_id).is_some_and(|(_, job)| job.phase == JobPhase::Completed)
    });
    let (_, done) = other_profile_job(&session, local_id).expect("finished job stays in view");
    assert!(done.progress_percent > progress_at_switch, "{done:?}");
    assert!(done.result.is_some_and(|r| !r.urls.is_empty()));
    assert!(
        !active_events.iter().any(|event| matches!(
            event,
            Event::JobUpdated(job) if job.local_id == local_id
        )),
        "panels of the active profile never see the other profile's job"
    );
    assert!(
        active_events
            .iter()
            .any(|event| matches!(event, Event::Catalog(Ok(_)))),
        "the remote profile is the active one"
    );

    // Restart: the job is still the local profile's, finished.
    drop(session);
    let mut session = open(&paths);
    assert_eq!(session.active_profile().id, remote_id);
    session
        .activate_profile(framewright::settings::LOCAL_SANDBOX_PROFILE_ID)
        .expect("back to local");
    let events = pump_until(&mut session, "the journal's jobs", |_, events| {
        events
            .iter()
            .any(|event| matches!(event, Event::JobsRestored(_)))
    });
    let restored = events
        .iter()
        .find_map(|event| match event {
            Event::JobsRestored(jobs) => Some(jobs.clone()),
            _ => None,
        })
        .expect("restored");
    let job = restored
        .iter()
        .find(|job| job.local_id == local_id)
        .expect("the job survived the restart");
    assert_eq!(job.phase, JobPhase::Completed);
}

#[test]
fn cancel_reaches_a_background_job_and_a_restart_resumes_the_other_profiles_jobs() {
    let remote_dir = tempfile::tempdir().expect("tempdir");
    let remote = remote_service(&remote_dir, "fw_remote_key_switch_02");
    let home = tempfile::tempdir().expect("tempdir");
    let paths = AppPaths::under(home.path());
    let mut session = open_at_speed(&paths, 0.5);
    let remote_id = session
        .add_remote_profile("Studio", remote.base_url(), "fw_remote_key_switch_02")
        .expect("profile saved");

    // Cancel on a job of the profile switched away from reaches that profile's engine.
    let cancelled_id = submit_and_wait_running(&mut session, "a kite over dunes");
    session.activate_profile(&remote_id).expect("activates");
    session
        .send(Command::Cancel {
            local_id: cancelled_id,
        })
        .expect("routed to the local engine");
    pump_until(
        &mut session,
        "the background job to be cancelled",
        |s, _| {
            other_profile_job(s, cancelled_id)
                .is_some_and(|(_, job)| job.phase == JobPhase::Cancelled)
        },
    );
    // Dismiss after its engine stopped (no job left running there) removes it for good.
    session
        .send(Command::Dismiss {
            local_id: cancelled_id,
        })
        .expect("dismissed");
    pump_until(&mut session, "the dismissed job to go", |s, _| {
        other_profile_job(s, cancelled_id).is_none()
    });

    // Quit while a local job runs with the remote profile active: the next start resumes
    // it in the background and it completes there.
    session
        .activate_profile(framewright::settings::LOCAL_SANDBOX_PROFILE_ID)
        .expect("back to local");
    let resumed_id = submit_and_wait_running(&mut session, "rain on a tin roof");
    let kept = session.activate_profile(&remote_id).expect("activates");
    assert_eq!(kept.map(|k| k.job_count), Some(1));
    drop(session);

    let mut session = open_at_speed(&paths, 0.5);
    assert_eq!(session.active_profile().id, remote_id);
    pump_until(&mut session, "the resumed job to complete", |s, _| {
        other_profile_job(s, resumed_id).is_some_and(|(_, job)| job.phase == JobPhase::Completed)
    });

    session
        .activate_profile(framewright::settings::LOCAL_SANDBOX_PROFILE_ID)
        .expect("back to local");
    let events = pump_until(&mut session, "the journal's jobs", |_, events| {
        events
            .iter()
            .any(|event| matches!(event, Event::JobsRestored(_)))
    });
    let restored: Vec<LocalJobId> = events
        .iter()
        .find_map(|event| match event {
            Event::JobsRestored(jobs) => Some(jobs.iter().map(|j| j.local_id).collect()),
            _ => None,
        })
        .expect("restored");
    assert!(restored.contains(&resumed_id));
    assert!(!restored.contains(&cancelled_id), "dismissed for good");
}
