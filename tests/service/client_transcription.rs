//! Transcription through the client against a real sandbox on loopback: the submit goes to
//! POST /v1/transcribe in its own 100/min group, the job is polled like any generation,
//! and the result's text and SRT (read with the studio's own subtitle reader) hold the
//! words a sandbox speech output spoke, with cue times inside its length. The price is per
//! started minute, at least one.

use crate::service_support;

use framewright::api::audio::SpeechRequest;
use framewright::api::transcription::{self, TranscriptionRequest};
use framewright::api::{
    ApiClient, ApiError, AudioJobRequest, GenerationKind, GenerationSpec, JobResult, JobState,
    RateLimitGroup,
};
use framewright::media::subtitles::parse_srt;
use service_support::{LocalService, client, local_service};
use std::time::{Duration, Instant};

const SPEED: f64 = 50.0;
const SPOKEN: &str =
    "The harbour wakes at dawn. Gulls circle the boats while the fog lifts slowly.";

/// Submit `spec` and poll at the hint until it ends; the final result.
async fn run_job(client: &ApiClient, spec: &GenerationSpec) -> (JobResult, Option<f64>) {
    let submitted = client.submit(spec).await.expect("submit accepted");
    let id = submitted.generation_id.expect("generation id");
    assert_eq!(submitted.kind.as_deref(), Some(spec.kind_wire_type()));
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let status = client.status(&id).await.expect("status");
        match status.state {
            JobState::Completed => {
                return (status.result.expect("a result"), status.credits_used);
            }
            JobState::Failed | JobState::Cancelled => panic!("job ended: {status:?}"),
            _ => {}
        }
        assert!(Instant::now() < deadline, "job {id} never finished");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

trait WireType {
    fn kind_wire_type(&self) -> &'static str;
}

impl WireType for GenerationSpec {
    fn kind_wire_type(&self) -> &'static str {
        match self.kind {
            GenerationKind::Speech => "speech",
            GenerationKind::Transcription => "transcription",
            other => panic!("not used here: {other:?}"),
        }
    }
}

async fn speech_output(service: &LocalService, client: &ApiClient) -> (String, f64) {
    let _ = service;
    let voices = client
        .voices(&Default::default())
        .await
        .expect("the voice list");
    let voice = voices.first().expect("at least one voice").voice_id.clone();
    let spec = GenerationSpec::for_audio(AudioJobRequest::Speech(SpeechRequest {
        text: SPOKEN.to_owned(),
        voice,
        ..SpeechRequest::default()
    }));
    let (result, _) = run_job(client, &spec).await;
    let url = result.urls.first().expect("a speech file").clone();
    (url, result.duration.expect("a duration"))
}

fn words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

#[tokio::test]
async fn the_transcript_of_a_sandbox_speech_output_is_the_text_spoken() {
    let service = local_service(SPEED);
    let client = client(&service);
    let (audio_url, speech_secs) = speech_output(&service, &client).await;
    let before = client
        .credits()
        .await
        .expect("credits")
        .total
        .expect("a total");

    let spec = GenerationSpec::for_audio(AudioJobRequest::Transcription(TranscriptionRequest {
        words_per_line: Some(4),
        lines_per_subtitle: Some(1),
        ..TranscriptionRequest::of(&audio_url)
    }));
    assert_eq!(spec.kind, GenerationKind::Transcription);
    let (result, credits_used) = run_job(&client, &spec).await;

    assert_eq!(
        words(result.text.as_deref().unwrap_or_default()),
        words(SPOKEN)
    );
    let srt_url = transcription::srt_url(&result).expect("an SRT").to_owned();
    assert!(result.txt_url.is_some(), "a TXT too: {result:?}");
    let srt = client
        .fetch_output(&srt_url)
        .await
        .expect("the SRT downloads");
    let cues = parse_srt(&srt).expect("the SRT reads");
    let spoken: Vec<String> = cues.iter().flat_map(|c| words(&c.text)).collect();
    assert_eq!(
        spoken,
        words(SPOKEN),
        "cues carry the spoken words in order"
    );
    assert!(
        cues.iter().all(|c| c.text.split_whitespace().count() <= 4),
        "4 words per line, 1 line per cue: {cues:?}"
    );
    assert!(cues.len() >= 3);
    for pair in cues.windows(2) {
        assert!(
            pair[0].end_secs <= pair[1].start_secs + 1e-3,
            "cues in order: {pair:?}"
        );
    }
    let last_end = cues.last().map_or(0.0, |c| c.end_secs);
    assert!(
        last_end <= speech_secs + 0.3 && last_end > speech_secs * 0.5,
        "cue times follow the speech ({last_end} s of {speech_secs} s)"
    );

    // A few seconds of speech: one minute, at the stt model's credit.
    let per_minute = client
        .list_models(Some("stt"))
        .await
        .expect("stt models")
        .iter()
        .filter_map(|m| m.credit)
        .fold(0.0, f64::max);
    assert!(per_minute > 0.0);
    assert_eq!(credits_used, Some(per_minute));
    let after = client
        .credits()
        .await
        .expect("credits")
        .total
        .expect("a total");
    assert!(
        (before - after - per_minute).abs() < 1e-6,
        "billed one minute: {before} → {after}"
    );
    assert_eq!(transcription::billed_minutes(speech_secs), 1);
}

#[tokio::test]
async fn speaker_labels_come_back_as_cue_speakers() {
    let service = local_service(SPEED);
    let client = client(&service);
    let (audio_url, _) = speech_output(&service, &client).await;
    let spec = GenerationSpec::for_audio(AudioJobRequest::Transcription(TranscriptionRequest {
        diarize: true,
        ..TranscriptionRequest::of(&audio_url)
    }));
    let (result, _) = run_job(&client, &spec).await;
    let srt = client
        .fetch_output(transcription::srt_url(&result).expect("an SRT"))
        .await
        .expect("the SRT downloads");
    let cues = parse_srt(&srt).expect("the SRT reads");
    assert!(
        cues.iter().all(|c| c
            .speaker
            .as_deref()
            .is_some_and(|s| s.starts_with("Speaker"))),
        "every cue names its speaker: {cues:?}"
    );
}

#[tokio::test]
async fn transcriptions_have_their_own_rate_group_and_refusals_are_said() {
    assert_eq!(
        GenerationKind::Transcription.rate_limit_group(),
        RateLimitGroup::Transcription
    );
    assert_eq!(
        GenerationKind::Transcription.submit_path(),
        "/v1/transcribe"
    );
    let service = local_service(SPEED);
    let client = client(&service);
    // Twelve at once: more than the 10/min of "Other generation", all accepted.
    let source = format!("{}/files/none.mp3", service.sandbox.base_url());
    for n in 0..12 {
        let spec = GenerationSpec::for_audio(AudioJobRequest::Transcription(
            TranscriptionRequest::of(&source),
        ));
        let submitted = client.submit(&spec).await;
        assert!(submitted.is_ok(), "transcription {n}: {submitted:?}");
    }
    // No source: refused by the service with words, nothing created.
    let spec = GenerationSpec::for_audio(AudioJobRequest::Transcription(
        TranscriptionRequest::default(),
    ));
    match client.submit(&spec).await {
        Err(ApiError::Status { status: 400, .. }) => {}
        other => panic!("an empty source must be refused: {other:?}"),
    }
}
