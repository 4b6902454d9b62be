//! The artist's promise: quit while a job runs, start again, and the job is still in the
//! tray and finishes. Exercised through `Session`, which owns the embedded sandbox and the
//! engine exactly as the studio does, on real loopback HTTP.

use framewright::api::{GenerationKind, GenerationRequest, GenerationSpec, WorkflowType};
use framewright::engine::{Command, Event, JobPhase, JobRecord};
use framewright::session::{Session, SessionOptions};
use framewright::settings::AppPaths;
use std::sync::Arc;
use std::time::{Duration, Instant};

const WAIT_LIMIT: Duration = Duration::from_secs(90);

fn open(paths: &AppPaths) -> Session {
    // Slow enough that the job is still running when we quit, fast enough for CI.
    let options = SessionOptions {
        sandbox_speed: 1.5,
        use_os_keychain: false,
    };
    Session::open_with(paths.clone(), options, Arc::new(|| {}))
}

/// Drains events until `done` says so for a job update (or the restored job list).
fn wait_for_job(session: &mut Session, mut done: impl FnMut(&JobRecord) -> bool) -> JobRecord {
    let started = Instant::now();
    while started.elapsed() < WAIT_LIMIT {
        while let Some(event) = session.try_recv() {
            let jobs = match event {
                Event::JobUpdated(job) => vec![job],
                Event::JobsRestored(jobs) => jobs,
                _ => continue,
            };
            if let Some(job) = jobs.into_iter().find(|job| done(job)) {
                return job;
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("timed out waiting for the job");
}

#[test]
fn a_job_running_at_quit_is_resumed_and_finishes_after_restart() {
    let home = tempfile::tempdir().expect("tempdir");
    let paths = AppPaths::under(home.path());

    let mut first = open(&paths);
    assert!(
        first.connection_error().is_none(),
        "{:?}",
        first.connection_error()
    );
    let spec = GenerationSpec {
        catalog: None,
        kind: GenerationKind::Image,
        request: GenerationRequest {
            prompt: "lighthouse in a storm, long exposure".into(),
            ..Default::default()
        },
        video: None,
        audio: None,
    };
    first
        .send(Command::Submit {
            spec,
            model_label: "Auto".into(),
            credits_estimate: None,
        })
        .expect("submit command accepted");
    let running = wait_for_job(&mut first, |job| {
        matches!(job.phase, JobPhase::Running { .. })
    });
    let generation_id = running
        .generation_id
        .clone()
        .expect("a running job has its id");

    // Quit mid-job: engine and embedded sandbox both stop.
    first.shutdown();
    drop(first);

    let mut second = open(&paths);
    let restored = wait_for_job(&mut second, |job| {
        job.generation_id.as_deref() == Some(&generation_id)
    });
    assert!(
        !restored.phase.is_finished(),
        "the job was still running when the studio quit, got {:?}",
        restored.phase
    );
    let finished = wait_for_job(&mut second, |job| {
        job.generation_id.as_deref() == Some(&generation_id) && job.phase.is_finished()
    });
    assert_eq!(
        finished.phase,
        JobPhase::Completed,
        "resumed job must complete"
    );
    let result = finished.result.expect("completed job has a result");
    assert!(!result.urls.is_empty(), "completed job has output URLs");
    assert!(
        finished.credits_used.is_some_and(|c| c > 0.0),
        "credits_used is reported"
    );
}

/// A Creative Director batch running at quit is polled again on its own route after a
/// restart, its scenes land, and the finished storyboard (scenes and outputs) is still
/// there after another restart.
#[test]
fn a_creative_director_batch_resumes_after_restart_and_keeps_its_storyboard() {
    let home = tempfile::tempdir().expect("tempdir");
    let paths = AppPaths::under(home.path());
    let mut first = open(&paths);
    let spec = GenerationSpec {
        catalog: None,
        kind: GenerationKind::CreativeDirector,
        request: GenerationRequest {
            prompt: "a kite's flight over the dunes".into(),
            model: Some("fal-ai/flux/schnell".into()),
            scene_count: Some(2),
            workflow_type: Some(WorkflowType::Image),
            ..Default::default()
        },
        video: None,
        audio: None,
    };
    first
        .send(Command::Submit {
            spec,
            model_label: "Flux Schnell".into(),
            credits_estimate: Some(4.0),
        })
        .expect("submit command accepted");
    let running = wait_for_job(&mut first, |job| {
        matches!(job.phase, JobPhase::Running { .. })
    });
    let batch_id = running.generation_id.clone().expect("the batch id");
    first.shutdown();
    drop(first);

    let mut second = open(&paths);
    let finished = wait_for_job(&mut second, |job| {
        job.generation_id.as_deref() == Some(&batch_id) && job.phase.is_finished()
    });
    assert_eq!(finished.phase, JobPhase::Completed, "{finished:?}");
    assert_eq!(finished.scenes.len(), 2);
    assert!(finished.scenes.iter().all(|s| s.image_urls.len() == 1));
    assert_eq!(finished.credits_used, Some(4.0));
    second.shutdown();
    drop(second);

    let mut third = open(&paths);
    let restored = wait_for_job(&mut third, |job| {
        job.generation_id.as_deref() == Some(&batch_id)
    });
    assert_eq!(restored.phase, JobPhase::Completed);
    assert_eq!(restored.scenes, finished.scenes, "the storyboard survives");
    let result = restored.result.expect("result");
    assert_eq!(result.urls.len(), 2, "one output per scene");
    assert_eq!(result.urls[0], finished.scenes[0].image_urls[0]);
}

/// The window and the view are stored through the session and read back, as `main`
/// does, from the settings file; a window saved on a larger screen is fitted to a
/// 1440×900 one so the status bar stays visible.
#[test]
fn window_geometry_and_last_view_are_restored_from_the_settings_file() {
    use framewright::settings::{Settings, WindowGeometry};
    use framewright::ui::{View, window};

    let home = tempfile::tempdir().expect("tempdir");
    let paths = AppPaths::under(home.path());
    let saved = WindowGeometry {
        inner_width_pt: 2200.0,
        inner_height_pt: 1300.0,
        position_pt: Some([300.0, 120.0]),
        maximized: true,
    };
    let mut first = open(&paths);
    first.update_ui_memory(|memory| {
        memory.window = Some(saved);
        memory.last_view = Some("palettes".into());
    });
    first.shutdown();
    drop(first);

    let memory = Settings::load(&paths.settings_file()).ui;
    let restored = window::initial_geometry(memory.window);
    assert_eq!(
        restored, saved,
        "size, position and maximised state come back"
    );
    assert_eq!(window::startup_view(None, &memory), View::Palettes);
    assert_eq!(
        window::startup_view(Some(View::Library), &memory),
        View::Library,
        "--view wins over the remembered view"
    );

    let fitted = window::fit_to_monitor(restored, [1440.0, 900.0]);
    let [x, y] = fitted.position_pt.expect("position kept");
    let outer_bottom = y + fitted.inner_height_pt + window::DECORATION_ALLOWANCE_PT[1];
    let outer_right = x + fitted.inner_width_pt + window::DECORATION_ALLOWANCE_PT[0];
    assert!(outer_bottom <= 900.0 && outer_right <= 1440.0, "{fitted:?}");
    assert!(fitted.maximized);

    // A fresh home opens at the default size on Create.
    let fresh = Settings::default().ui;
    assert_eq!(window::startup_view(None, &fresh), View::Create);
    let default = window::initial_geometry(fresh.window);
    assert_eq!(
        [default.inner_width_pt, default.inner_height_pt],
        window::DEFAULT_INNER_SIZE_PT
    );
}
