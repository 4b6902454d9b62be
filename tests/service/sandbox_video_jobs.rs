//! Video edits, video to video and trims against the embedded sandbox over real HTTP.
//!
//! Through the studio's typed client: the submit bodies of each kind reach their route and
//! each job ends on its own status route (trims on /v1/video/trim/:jobId). The engine's
//! handling of trims is in `engine_trim.rs`.

use crate::service_support;

use framewright::api::{
    ApiClient, GenerationKind, GenerationRequest, GenerationSpec, JobState, StatusResponse,
    TrimRequest, VideoEditOperation, VideoEditRequest, VideoJobRequest, VideoToVideoRequest,
};
use service_support::{client, local_service};
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(120);

/// A 4-s sandbox video to work on.
async fn source_video(client: &ApiClient) -> String {
    let spec = GenerationSpec::new(
        GenerationKind::TextToVideo,
        GenerationRequest {
            prompt: "a lighthouse beam over a foggy harbour".into(),
            model: Some("google/veo-3".into()),
            duration: Some(4.0),
            ..GenerationRequest::default()
        },
    );
    let status = follow(client, &spec).await;
    status.result.expect("result").urls[0].clone()
}

/// Submit `spec` and poll its route until terminal.
async fn follow(client: &ApiClient, spec: &GenerationSpec) -> StatusResponse {
    let submitted = client.submit(spec).await.expect("accepted");
    let id = submitted.generation_id.expect("handle");
    let deadline = Instant::now() + WAIT;
    loop {
        let status = client.status_of(spec.kind, &id).await.expect("status");
        if status.state.is_terminal() {
            return status;
        }
        assert!(Instant::now() < deadline, "{id} did not finish");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

#[tokio::test]

async fn an_upscale_edit_completes_with_a_video() {
    let service = local_service(50.0);
    let client = client(&service);
    let source = source_video(&client).await;
    let spec = GenerationSpec::for_video(VideoJobRequest::Edit(VideoEditRequest {
        video_url: source,
        model: None,
        project_id: None,
        operation: VideoEditOperation::Upscale {
            resolution: Some("1080p".into()),
            target_fps: None,
            scale: None,
        },
    }));
    let answer = client.submit(&spec).await.expect("accepted");
    assert_eq!(answer.kind.as_deref(), Some("global_video_edit"));
    assert_eq!(answer.model, None, "echoes the omitted model");
    let status = follow(&client, &spec).await;
    assert_eq!(
        status.state,
        JobState::Completed,
        "{:?}",
        status.failure_message()
    );
    assert!(!status.result.expect("result").urls.is_empty());
}

#[tokio::test]

async fn video_to_video_completes_with_a_named_model() {
    let service = local_service(50.0);
    let client = client(&service);
    let source = source_video(&client).await;
    let spec = GenerationSpec::for_video(VideoJobRequest::FromVideo(VideoToVideoRequest {
        video_url: source,
        model: "runway/aleph".into(),
        prompt: "as a watercolour".into(),
        duration: Some(5.0),
        ..VideoToVideoRequest::default()
    }));
    let status = follow(&client, &spec).await;
    assert_eq!(
        status.state,
        JobState::Completed,
        "{:?}",
        status.failure_message()
    );
}

#[tokio::test]

async fn a_trim_completes_on_its_own_route_and_cannot_be_cancelled() {
    let service = local_service(50.0);
    let client = client(&service);
    let source = source_video(&client).await;
    let spec = GenerationSpec::for_video(VideoJobRequest::Trim(TrimRequest {
        video_url: source,
        start_time: 1.0,
        end_time: 3.0,
        project_id: None,
    }));
    let answer = client.submit(&spec).await.expect("accepted");
    let job_id = answer.generation_id.expect("jobId");
    assert!(job_id.starts_with("trim_"), "{job_id}");
    assert!(
        client
            .cancel(GenerationKind::VideoTrim, &job_id)
            .await
            .is_err()
    );
    let deadline = Instant::now() + WAIT;
    let job = loop {
        let job = client.trim_status(&job_id).await.expect("trim status");
        if job.url.is_some() || job.error.is_some() {
            break job;
        }
        assert!(Instant::now() < deadline, "the trim did not finish");
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    assert!(job.url.is_some(), "{:?}", job.error);
    // A start past the source's end fails the job (200, status failed, error set).
    let late = GenerationSpec::for_video(VideoJobRequest::Trim(TrimRequest {
        video_url: job.url.clone().expect("url"),
        start_time: 60.0,
        end_time: 61.0,
        project_id: None,
    }));
    let status = follow(&client, &late).await;
    assert_eq!(status.state, JobState::Failed);
    assert!(status.failure_message().is_some());
}
