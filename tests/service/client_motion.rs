//! Elements, first and last frame, and lip sync through the studio's engine over real HTTP
//! against one embedded sandbox: local files uploaded through the engine, each kind
//! checked before sending (nothing to say), submitted, polled to a finished MP4, and
//! charged what the studio estimated; a check made before sending agrees with what the
//! service refuses; and a restart of the studio resumes a catalog job from the journal.

use crate::service_support;

use framewright::api::catalog_jobs::{ElementsRequest, FirstLastFrameRequest, LipsyncRequest};
use framewright::api::pricing::estimate_credits;
use framewright::api::validate::{CatalogMediaFacts, Field, validate_catalog_with};
use framewright::api::{CatalogJobRequest, GenerationKind, GenerationSpec, ModelRecord};
use framewright::engine::{Command, EngineHandle, Event, JobPhase, JobRecord};
use service_support::{
    LocalService, client, client_with_key, local_service, restored_jobs, submit_until_accepted,
    until_finished, wait_for,
};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

/// Jobs run this much faster than real time (a catalog video takes ~2 simulated minutes).
const SPEED: f64 = 200.0;
const WAIT: Duration = Duration::from_secs(120);

fn service() -> &'static LocalService {
    static SERVICE: OnceLock<LocalService> = OnceLock::new();
    SERVICE.get_or_init(|| local_service(SPEED))
}

fn photo(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/photos")
        .join(name)
}

/// A WAV of `secs` of tone written under `dir`.
fn wav_file(dir: &Path, secs: f64) -> PathBuf {
    use framewright::audio::testing::{tones, wav_bytes};
    let path = dir.join(format!("line_{}.wav", (secs * 10.0) as u32));
    let samples = tones(&[(secs / 2.0, 330.0), (secs / 2.0, 550.0)], 22_050, 0.5);
    std::fs::write(&path, wav_bytes(&samples, 22_050, 1)).expect("write wav");
    path
}

fn start_engine(dir: &Path) -> EngineHandle {
    service_support::start_engine(service(), dir, "sandbox-motion-test")
}

/// Uploads `path` the way Create does; its web address.
fn upload(engine: &mut EngineHandle, path: &Path) -> String {
    engine
        .send(Command::UploadSource {
            path: path.to_owned(),
        })
        .expect("queue upload");
    let wanted = path.to_owned();
    wait_for(engine, "the upload", WAIT, |event| match event {
        Event::SourceUploaded { path, result } if *path == wanted => Some(result.clone()),
        _ => None,
    })
    .expect("upload succeeds")
}

fn models(catalog_type: &str) -> Vec<ModelRecord> {
    let client = client(service());
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(client.list_models(Some(catalog_type)))
        .expect("catalog")
}

fn model(identifier: &str, catalog_type: &str) -> ModelRecord {
    models(catalog_type)
        .into_iter()
        .find(|m| m.identifier == identifier)
        .unwrap_or_else(|| panic!("the sandbox lists {identifier}"))
}

/// Submits every spec at once and waits for all of them to end; the finished records in
/// the order given.
fn run_all(engine: &mut EngineHandle, jobs: &[(GenerationSpec, Option<f64>)]) -> Vec<JobRecord> {
    for (spec, estimate) in jobs {
        engine
            .send(Command::Submit {
                spec: spec.clone(),
                model_label: "test".into(),
                credits_estimate: *estimate,
            })
            .expect("queue submit");
    }
    let mut done: Vec<Option<JobRecord>> = vec![None; jobs.len()];
    while done.iter().any(Option::is_none) {
        let (index, record) = wait_for(engine, "the jobs to finish", WAIT, |event| match event {
            Event::JobUpdated(record) if record.phase.is_finished() => jobs
                .iter()
                .position(|(spec, _)| *spec == record.spec)
                .map(|i| (i, record.clone())),
            _ => None,
        });
        done[index] = Some(record);
    }
    done.into_iter().flatten().collect()
}

fn assert_video(record: &JobRecord, kind: GenerationKind) {
    assert_eq!(record.phase, JobPhase::Completed, "{record:?}");
    assert_eq!(record.spec.kind, kind);
    let result = record.result.as_ref().expect("a result");
    assert!(
        result.urls.first().is_some_and(|u| u.ends_with(".mp4")),
        "an MP4: {result:?}"
    );
    assert!(result.thumbnail_url.is_some(), "a poster: {result:?}");
}

#[test]
fn each_motion_kind_goes_from_checked_request_to_a_finished_video_at_the_estimated_price() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut engine = start_engine(dir.path());
    let first = upload(&mut engine, &photo("chelsea_160.png"));
    let last = upload(&mut engine, &photo("coffee_160.png"));
    let wav = wav_file(dir.path(), 2.5);
    let sound = upload(&mut engine, &wav);

    // Elements: a picture and a sound, 5 s.
    let elements = model("kling/elements", "elements");
    let spec = GenerationSpec::for_catalog(CatalogJobRequest::Elements(ElementsRequest {
        prompt: "the cat sniffs the coffee".into(),
        model: Some(elements.identifier.clone()),
        reference_images: vec![first.clone()],
        reference_audio_urls: vec![sound.clone()],
        duration: Some(5.0),
        resolution: Some("1080p".into()),
        ..ElementsRequest::default()
    }));
    let facts = CatalogMediaFacts::default();
    assert_eq!(
        validate_catalog_with(&spec, Some(&elements), &facts),
        vec![]
    );
    let elements_estimate = estimate_credits(&elements, &spec);
    assert_eq!(elements_estimate, Some(24.0 * 5.0 * 1.5));
    let elements_spec = spec;

    // First and last frame: only the models that can are listed; it moves between the
    // two photos.
    let first_last_models = models("firstlastgenerations");
    assert!(
        first_last_models
            .iter()
            .all(|m| m.supports_first_last_frame != Some(false))
    );
    let vidu = model("vidu/q1-first-last", "firstlastgenerations");
    let first_last_spec =
        GenerationSpec::for_catalog(CatalogJobRequest::FirstLastFrame(FirstLastFrameRequest {
            first_frame_url: first.clone(),
            last_frame_url: last.clone(),
            model: Some(vidu.identifier.clone()),
            duration: Some(5.0),
            ..FirstLastFrameRequest::default()
        }));
    assert_eq!(
        validate_catalog_with(&first_last_spec, Some(&vidu), &facts),
        vec![]
    );
    let first_last_estimate = estimate_credits(&vidu, &first_last_spec);

    // Lip sync of a photo speaking the WAV: priced by the sound's length as probed.
    let hedra = model("hedra/character-3", "lipsync");
    let audio_secs = framewright::audio::open_file(&wav)
        .expect("the WAV opens")
        .1
        .duration_secs;
    let mut lipsync_spec =
        GenerationSpec::for_catalog(CatalogJobRequest::Lipsync(LipsyncRequest {
            source_url: first.clone(),
            audio_url: Some(sound.clone()),
            model: Some(hedra.identifier.clone()),
            ..LipsyncRequest::default()
        }));
    lipsync_spec.request.duration = audio_secs;
    let lipsync_facts = CatalogMediaFacts {
        audio_secs,
        audio_format: Some("wav".into()),
        source_is_video: Some(false),
        ..CatalogMediaFacts::default()
    };
    assert_eq!(
        validate_catalog_with(&lipsync_spec, Some(&hedra), &lipsync_facts),
        vec![]
    );
    let lipsync_estimate = estimate_credits(&hedra, &lipsync_spec);
    assert_eq!(
        lipsync_estimate,
        Some(11.0 * 3.0),
        "2.5 s is billed as 3 started seconds"
    );

    // Lip sync of a typed line in a chosen voice, with Auto.
    let line_spec = GenerationSpec::for_catalog(CatalogJobRequest::Lipsync(LipsyncRequest {
        source_url: last.clone(),
        text_prompt: Some("Good evening, and welcome.".into()),
        voice: Some("rachel".into()),
        ..LipsyncRequest::default()
    }));
    assert_eq!(validate_catalog_with(&line_spec, None, &facts), vec![]);

    // All four at once (each polls at the service's 8 s hint).
    let done = run_all(
        &mut engine,
        &[
            (elements_spec, elements_estimate),
            (first_last_spec, first_last_estimate),
            (lipsync_spec, lipsync_estimate),
            (line_spec, None),
        ],
    );
    assert_video(&done[0], GenerationKind::Elements);
    assert_eq!(
        done[0].credits_used, elements_estimate,
        "charged what was shown"
    );
    assert_video(&done[1], GenerationKind::FirstLastFrame);
    assert_eq!(done[1].credits_used, first_last_estimate);
    assert_video(&done[2], GenerationKind::Lipsync);
    assert_eq!(done[2].credits_used, lipsync_estimate);
    let result = done[2].result.clone().expect("result");
    assert!(
        result.duration.is_some_and(|d| (d - 2.5).abs() < 0.3),
        "as long as the sound: {result:?}"
    );
    assert_video(&done[3], GenerationKind::Lipsync);
}

#[test]
fn too_many_references_are_refused_before_sending_as_the_service_refuses_them() {
    let elements = model("kling/elements", "elements");
    let urls: Vec<String> = (0..5)
        .map(|i| format!("{}/never/{i}.png", service().sandbox.base_url()))
        .collect();
    let spec = GenerationSpec::for_catalog(CatalogJobRequest::Elements(ElementsRequest {
        prompt: "a parade".into(),
        model: Some(elements.identifier.clone()),
        reference_images: urls,
        duration: Some(5.0),
        ..ElementsRequest::default()
    }));
    let errors = validate_catalog_with(&spec, Some(&elements), &CatalogMediaFacts::default());
    assert_eq!(
        errors.iter().map(|e| e.field).collect::<Vec<_>>(),
        vec![Field::ReferenceImages],
        "{errors:?}"
    );
    assert!(errors[0].message.contains("at most 4"), "{errors:?}");
    // The service says no to the same request. Asked as a user of its own: the other
    // tests' submits and uploads share the 10/min group of the default user.
    let key = service()
        .sandbox
        .create_api_key_for_user("ana@studio.test", false)
        .expect("a directory user");
    let client = client_with_key(service(), &key);
    let refused = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(client.submit(&spec));
    match refused {
        Err(error) => assert_eq!(error.status(), Some(400), "{error:?}"),
        Ok(answer) => panic!("refused with 400, got {answer:?}"),
    }
}

#[test]
fn a_restart_resumes_a_first_last_frame_job_from_the_journal() {
    let dir = tempfile::tempdir().expect("temp dir");
    let spec = {
        let mut engine = start_engine(dir.path());
        let first = upload(&mut engine, &photo("coffee_160.png"));
        let last = upload(&mut engine, &photo("chelsea_160.png"));
        let spec =
            GenerationSpec::for_catalog(CatalogJobRequest::FirstLastFrame(FirstLastFrameRequest {
                first_frame_url: first,
                last_frame_url: last,
                prompt: "a slow dolly".into(),
                ..FirstLastFrameRequest::default()
            }));
        submit_until_accepted(&mut engine, &spec, WAIT);
        spec
    };
    let mut engine = start_engine(dir.path());
    let restored = restored_jobs(&mut engine, WAIT);
    let job = restored
        .iter()
        .find(|j| j.spec == spec)
        .expect("the body survives the restart");
    let done = until_finished(&mut engine, job, WAIT);
    assert_video(&done, GenerationKind::FirstLastFrame);
}
