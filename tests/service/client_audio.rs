//! Music, speech and sound effects through the studio's client and engine over real HTTP
//! against one embedded sandbox: each kind submitted to its route and polled to
//! completion with the result fields the tiles show; the voice list and its filters; the
//! checks made before sending agree with what the service refuses (VOICE_REQUIRED,
//! VOICE_NOT_FOUND, lengths); the live price is what the service charges; and a restart of
//! the studio resumes an audio job from the journal.

use crate::service_support;

use framewright::api::audio::{AudioJobRequest, MusicRequest, SoundRequest, SpeechRequest};
use framewright::api::media::{MediaCategory, MediaQuery, MediaTypeFilter};
use framewright::api::pricing::estimate_credits;
use framewright::api::validate::{Field, validate_audio_job};
use framewright::api::{
    ApiClient, ApiError, GenerationKind, GenerationSpec, JobState, ModelRecord, StatusResponse,
    Voice, VoiceFilter,
};
use framewright::engine::{Command, Event, JobPhase, LocalJobId};
use service_support::{
    LocalService, client, local_service, restored_jobs, start_engine, submit_until_accepted,
    until_finished, wait_for,
};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Jobs run this much faster than real time (music takes ~30 s of simulated time).
const SPEED: f64 = 30.0;
const WAIT: Duration = Duration::from_secs(90);

/// One sandbox for the whole binary.
fn service() -> &'static LocalService {
    static SERVICE: OnceLock<LocalService> = OnceLock::new();
    SERVICE.get_or_init(|| local_service(SPEED))
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

fn model_of(models: &[ModelRecord], catalog_type: &str) -> ModelRecord {
    models
        .iter()
        .find(|m| m.has_type(catalog_type))
        .cloned()
        .unwrap_or_else(|| panic!("the sandbox catalog has a {catalog_type} model"))
}

/// Polls the job until it ends (at the client's own pace: the test needs no hint).
async fn finish(client: &ApiClient, generation_id: &str) -> StatusResponse {
    let deadline = Instant::now() + WAIT;
    loop {
        let status = client.status(generation_id).await.expect("status");
        if status.state.is_terminal() {
            return status;
        }
        assert!(Instant::now() < deadline, "job {generation_id} never ended");
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
}

fn speech(text: &str, voice: &str) -> GenerationSpec {
    GenerationSpec::for_audio(AudioJobRequest::Speech(SpeechRequest {
        text: text.to_owned(),
        voice: voice.to_owned(),
        ..SpeechRequest::default()
    }))
}

#[test]
fn music_makes_two_titled_variations_with_lyrics() {
    let client = client(service());
    runtime().block_on(async {
        let spec = GenerationSpec::for_audio(AudioJobRequest::Music(MusicRequest {
            prompt: "a sunny road trip pop song".into(),
            style: Some("upbeat pop".into()),
            lyrics: Some("Windows down, the radio on".into()),
            vocal_gender: Some("f".into()),
            duration: Some(30.0),
            ..MusicRequest::default()
        }));
        assert_eq!(spec.kind.submit_path(), "/v1/generate/music");
        let submitted = client.submit(&spec).await.expect("music accepted");
        assert_eq!(submitted.kind.as_deref(), Some("music"));
        // Music echoes a concrete default model, never "auto".
        let model = submitted.model.clone().expect("model echo");
        assert!(!model.is_empty() && model != "auto", "{model}");
        assert_eq!(submitted.poll_interval_hint, Some(8.0));

        let id = submitted.generation_id.expect("id");
        let status = finish(&client, &id).await;
        assert_eq!(status.state, JobState::Completed, "{status:?}");
        let result = status.result.expect("result");
        let tracks = result.audio_tracks();
        assert_eq!(tracks.len(), 2, "two variations: {result:?}");
        assert_ne!(tracks[0].url, tracks[1].url);
        for track in &tracks {
            assert!(framewright::api::is_audio_url(&track.url), "{}", track.url);
            assert!(track.title.as_deref().is_some_and(|t| !t.is_empty()));
            assert!(
                track
                    .lyrics
                    .as_deref()
                    .is_some_and(|l| l.contains("Windows down")),
                "{track:?}"
            );
            let secs = track.duration.expect("duration");
            assert!((secs - 30.0).abs() < 0.5, "asked 30 s, got {secs}");
        }

        // The results are audio items in the Library.
        let page = client
            .list_media(
                &MediaQuery {
                    media_type: MediaTypeFilter::Audio,
                    category: MediaCategory::Ai,
                    ..MediaQuery::default()
                },
                1,
                20,
            )
            .await
            .expect("library");
        let ours: Vec<_> = page
            .items
            .iter()
            .filter(|item| tracks.iter().any(|t| t.url == item.url))
            .collect();
        assert_eq!(ours.len(), 2, "{:?}", page.items);
        assert!(ours.iter().all(|item| item.kind() == "audio"));
    });
}

#[test]
fn speech_and_sound_finish_with_their_fields() {
    let client = client(service());
    runtime().block_on(async {
        let submitted = client
            .submit(&speech("Hello from the studio.", "Rachel"))
            .await
            .expect("speech accepted");
        assert_eq!(submitted.kind.as_deref(), Some("speech"));
        assert!(submitted.model.as_deref().is_some_and(|m| m != "auto"));
        let status = finish(&client, &submitted.generation_id.expect("id")).await;
        assert_eq!(status.state, JobState::Completed, "{status:?}");
        let result = status.result.expect("result");
        assert_eq!(result.voice.as_deref(), Some("Rachel"));
        assert_eq!(result.audio_tracks().len(), 1);
        assert!(result.duration.is_some_and(|d| d > 0.5));

        let sound = GenerationSpec::for_audio(AudioJobRequest::Sound(SoundRequest {
            prompt: "a heavy door creaking open".into(),
            duration: Some(5.0),
            sound_loop: true,
            ..SoundRequest::default()
        }));
        let submitted = client.submit(&sound).await.expect("sound accepted");
        assert_eq!(submitted.kind.as_deref(), Some("sound"));
        assert_eq!(submitted.poll_interval_hint, Some(5.0));
        let status = finish(&client, &submitted.generation_id.expect("id")).await;
        assert_eq!(status.state, JobState::Completed, "{status:?}");
        let result = status.result.expect("result");
        let tracks = result.audio_tracks();
        assert_eq!(tracks.len(), 1);
        assert!(result.duration.is_some_and(|d| (d - 5.0).abs() < 0.5));
    });
}

#[test]
fn voices_are_listed_and_filtered() {
    let client = client(service());
    runtime().block_on(async {
        let all = client
            .voices(&VoiceFilter::default())
            .await
            .expect("voices");
        assert!(all.len() >= 4, "{all:?}");
        assert!(all.iter().any(|v| v.name == "Rachel"));
        // Every built-in voice has a preview that can be played.
        assert!(all.iter().all(|v| v.playable_preview_url().is_some()));
        let women = client
            .voices(&VoiceFilter {
                gender: Some("female".into()),
                ..VoiceFilter::default()
            })
            .await
            .expect("filtered voices");
        assert!(!women.is_empty() && women.len() < all.len());
        assert!(women.iter().all(|v| v.gender.as_deref() == Some("Female")));
    });
}

/// The checks made before sending say what the service would refuse: a missing voice
/// (VOICE_REQUIRED) and one not in the list (VOICE_NOT_FOUND) at the voice field.
#[test]
fn voice_checks_before_sending_match_the_services_refusals() {
    let client = client(service());
    runtime().block_on(async {
        let models = client.list_models(None).await.expect("catalog");
        let tts = model_of(&models, "text_to_speech");
        let voices: Vec<Voice> = client
            .voices(&VoiceFilter::default())
            .await
            .expect("voices");

        let missing = speech("Hello", "");
        let errors = validate_audio_job(&missing, Some(&tts), Some(&voices));
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].field, Field::Voice);
        assert_eq!(errors[0].message, "Choose a voice.");
        match client.submit(&missing).await {
            Err(error @ ApiError::Status { status: 400, .. }) => {
                assert_eq!(error.code(), Some("VOICE_REQUIRED"), "{error:?}");
            }
            other => panic!("expected VOICE_REQUIRED, got {other:?}"),
        }

        let unknown = speech("Hello", "Nobody Atall");
        let errors = validate_audio_job(&unknown, Some(&tts), Some(&voices));
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].field, Field::Voice);
        assert!(errors[0].message.contains("Nobody Atall"), "{errors:?}");
        match client.submit(&unknown).await {
            Err(error @ ApiError::Status { status: 404, .. }) => {
                assert_eq!(error.code(), Some("VOICE_NOT_FOUND"), "{error:?}");
            }
            other => panic!("expected VOICE_NOT_FOUND, got {other:?}"),
        }

        // A voice from the list passes, by id or by name.
        let rachel = voices.iter().find(|v| v.name == "Rachel").expect("Rachel");
        assert!(
            validate_audio_job(&speech("Hi", &rachel.voice_id), Some(&tts), Some(&voices))
                .is_empty()
        );
        assert!(validate_audio_job(&speech("Hi", "rachel"), Some(&tts), Some(&voices)).is_empty());
    });
}

#[test]
fn lengths_and_text_limits_come_from_the_model_record() {
    let client = client(service());
    let models = runtime()
        .block_on(client.list_models(None))
        .expect("catalog");
    let music = model_of(&models, "music_gen");
    let sound = model_of(&models, "text_to_sound");
    assert!(!music.supported_durations.is_empty());

    let song = |secs| {
        GenerationSpec::for_audio(AudioJobRequest::Music(MusicRequest {
            prompt: "jazz".into(),
            duration: Some(secs),
            ..MusicRequest::default()
        }))
    };
    let offered = music.supported_durations[0];
    assert!(validate_audio_job(&song(offered), Some(&music), None).is_empty());
    let errors = validate_audio_job(&song(offered + 1.0), Some(&music), None);
    assert_eq!(errors[0].field, Field::Duration, "{errors:?}");

    let long = "x".repeat(sound.max_prompt_chars() as usize + 1);
    let effect = GenerationSpec::for_audio(AudioJobRequest::Sound(SoundRequest {
        prompt: long,
        ..SoundRequest::default()
    }));
    let errors = validate_audio_job(&effect, Some(&sound), None);
    assert_eq!(errors[0].field, Field::Prompt, "{errors:?}");
    // A speech model cannot make a sound effect.
    let tts = model_of(&models, "text_to_speech");
    let errors = validate_audio_job(&effect, Some(&tts), None);
    assert!(errors.iter().any(|e| e.field == Field::Model), "{errors:?}");
}

/// The live price (ceil(chars / 100) × credit) is what the service charges.
#[test]
fn the_speech_price_shown_is_what_the_service_charges() {
    let client = client(service());
    runtime().block_on(async {
        let models = client.list_models(None).await.expect("catalog");
        let tts = model_of(&models, "text_to_speech");
        let credit = tts.credit.expect("a speech price");
        let text = "a".repeat(312);
        let mut spec = speech(&text, "Rachel");
        if let Some(AudioJobRequest::Speech(body)) = spec.audio.as_mut() {
            body.model = Some(tts.identifier.clone());
        }
        let estimate = estimate_credits(&tts, &spec).expect("estimate");
        assert_eq!(estimate, 4.0 * credit);
        assert_eq!(
            framewright::api::pricing::speech_price_line(312, Some(credit)),
            format!(
                "312 characters · 4 × {} = {}",
                credits(credit),
                credits(4.0 * credit)
            )
        );
        let submitted = client.submit(&spec).await.expect("speech accepted");
        assert_eq!(submitted.credits_charged, Some(estimate));
    });
}

fn credits(value: f64) -> String {
    let number = format!("{value}");
    if value == 1.0 {
        format!("{number} credit")
    } else {
        format!("{number} credits")
    }
}

// ---- through the engine: the journal keeps an audio job across a restart ----

#[test]
fn a_restart_resumes_an_audio_job_and_the_voice_list_comes_through_the_engine() {
    let service = service();
    let dir = tempfile::tempdir().expect("temp dir");
    let spec = GenerationSpec::for_audio(AudioJobRequest::Sound(SoundRequest {
        prompt: "rain on a tin roof".into(),
        duration: Some(10.0),
        ..SoundRequest::default()
    }));
    let local_id: LocalJobId = {
        let mut engine = start_engine(service, dir.path(), "sandbox-audio-test");
        engine.send(Command::Voices).expect("ask for the voices");
        let voices = wait_for(&mut engine, "the voices", WAIT, |event| match event {
            Event::Voices(result) => Some(result.clone()),
            _ => None,
        })
        .expect("voices load");
        assert!(voices.iter().any(|v| v.name == "Rachel"));

        // Accepted (the service has its id): stop the studio while it runs.
        let record = submit_until_accepted(&mut engine, &spec, WAIT);
        // The contract's hint for sound, as the service sent it.
        assert_eq!(record.poll_interval_secs, 5.0);
        record.local_id
    };

    let mut engine = start_engine(service, dir.path(), "sandbox-audio-test");
    let restored = restored_jobs(&mut engine, WAIT);
    let job = restored
        .iter()
        .find(|j| j.local_id == local_id)
        .expect("the audio job is in the journal");
    assert_eq!(job.spec, spec, "the body survives the restart");
    assert_eq!(job.spec.kind, GenerationKind::Sound);
    let done = until_finished(&mut engine, job, WAIT);
    assert_eq!(done.phase, JobPhase::Completed, "{done:?}");
    let tracks = done.result.expect("result").audio_tracks();
    assert_eq!(tracks.len(), 1);
    assert!(tracks[0].duration.is_some_and(|d| (d - 10.0).abs() < 0.5));
}
