//! The sandbox's video edit (POST /v1/edit/video), video-to-video and trim routes over real
//! HTTP, checked against the contract with plain JSON values.
//!
//! One sandbox serves the whole binary. The "Other generation" limiter allows 10 requests a
//! minute per user and trim polls share the 120/min media group, so requests that meet a 429
//! move the sandbox clock past the window and retry (the limiters' own tests have sandboxes of
//! their own, where nothing moves the clock).
//! Credit checks run on the default user, one at a time; everything else runs as
//! ana@studio.test, and ben@studio.test plays "another account".

use std::sync::OnceLock;
use std::time::Duration;

use crate::service_support;
use service_support::{LocalService, local_service};

use framewright::media::video::VideoDecoder;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tokio::sync::{Mutex, MutexGuard, OnceCell};

/// Fast jobs: a 60-s edit waits ~1.2 s, a 20-s trim ~0.4 s (renders take their real time).
const FAST: f64 = 50.0;
const POLL_TIMEOUT: Duration = Duration::from_secs(40);
const ANA: &str = "ana@studio.test";
const BEN: &str = "ben@studio.test";
const FIXTURE_MP4: &str = "tests/fixtures/video/baseline_160x90_24fps_48f.mp4";
const FIXTURE_SECS: f64 = 2.0;
const ALEPH: &str = "runway/aleph";
const OPERATIONS: [&str; 11] = [
    "upscale",
    "reframe",
    "generate_audio",
    "remove_watermark",
    "face_swap",
    "extend",
    "magic_edit",
    "lipsync",
    "remove_background",
    "inpaint",
    "retake",
];

struct Shared {
    service: LocalService,
    ana: String,
    ben: String,
}

fn shared() -> &'static Shared {
    static SHARED: OnceLock<Shared> = OnceLock::new();
    SHARED.get_or_init(|| {
        let mut service = local_service(FAST);
        // Tests run on separate runtimes: no pooled connection may outlive its runtime.
        service.http = reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .build()
            .expect("client");
        let ana = service
            .sandbox
            .create_api_key_for_user(ANA, false)
            .expect("ana's key");
        let ben = service
            .sandbox
            .create_api_key_for_user(BEN, false)
            .expect("ben's key");
        Shared { service, ana, ben }
    })
}

/// Credit checks on the default user run one at a time.
async fn credit_turn() -> MutexGuard<'static, ()> {
    static TURN: Mutex<()> = Mutex::const_new(());
    TURN.lock().await
}

/// A caller of the shared sandbox.
struct Caller {
    key: &'static str,
}

fn ana() -> Caller {
    Caller { key: &shared().ana }
}

fn ben() -> Caller {
    Caller { key: &shared().ben }
}

fn default_user() -> Caller {
    Caller {
        key: &shared().service.key,
    }
}

fn service() -> &'static LocalService {
    &shared().service
}

impl Caller {
    /// GET; a 429 (trim polls share the 120/min media group across this binary's tests, and
    /// a slow machine polls more often per job) moves the clock past the window and retries.
    async fn get(&self, path: &str) -> (StatusCode, Value) {
        loop {
            let (status, answer) = service().call_as(self.key, Method::GET, path, None).await;
            if status != StatusCode::TOO_MANY_REQUESTS {
                return (status, answer);
            }
            service().sandbox.advance_clock(61.0);
        }
    }

    /// POST; a per-endpoint 429 moves the clock past the window and retries.
    async fn post(&self, path: &str, body: &Value) -> (StatusCode, Value) {
        loop {
            let (status, answer) = service()
                .call_as(self.key, Method::POST, path, Some(body.clone()))
                .await;
            if status != StatusCode::TOO_MANY_REQUESTS {
                return (status, answer);
            }
            service().sandbox.advance_clock(61.0);
        }
    }

    async fn submit(&self, path: &str, body: &Value) -> Value {
        let (status, answer) = self.post(path, body).await;
        assert_eq!(status, StatusCode::ACCEPTED, "{answer}");
        assert_eq!(answer["success"], true, "{answer}");
        answer
    }

    async fn edit(&self, body: Value) -> Value {
        self.submit("/v1/edit/video", &body).await
    }

    async fn wait_generation(&self, id: &str) -> Value {
        let deadline = tokio::time::Instant::now() + POLL_TIMEOUT;
        loop {
            let (status, body) = self.get(&format!("/v1/generate/{id}/status")).await;
            assert_eq!(status, StatusCode::OK, "{body}");
            if matches!(
                body["state"].as_str(),
                Some("completed" | "failed" | "cancelled")
            ) {
                return body;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{id} never finished"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Submits an edit and waits for its end.
    async fn edit_outcome(&self, body: Value) -> Value {
        let submit = self.edit(body).await;
        self.wait_generation(submit["generation_id"].as_str().expect("id"))
            .await
    }

    async fn trim(&self, body: Value) -> String {
        let answer = self.submit("/v1/video/trim", &body).await;
        answer["jobId"].as_str().expect("jobId").to_owned()
    }

    /// Polls a trim to its end; returns every body seen.
    async fn trim_bodies(&self, job_id: &str) -> Vec<Value> {
        let deadline = tokio::time::Instant::now() + POLL_TIMEOUT;
        let mut seen = Vec::new();
        loop {
            let (status, body) = self.get(&format!("/v1/video/trim/{job_id}")).await;
            assert_eq!(status, StatusCode::OK, "{body}");
            let done = matches!(body["status"].as_str(), Some("completed" | "failed"));
            seen.push(body);
            if done {
                return seen;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{job_id} never finished"
            );
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    async fn available_credits(&self) -> f64 {
        self.credits("available").await
    }

    async fn credits(&self, which: &str) -> f64 {
        let (status, body) = self.get("/v1/account/credits").await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body["credits"][which].as_f64().expect("credits")
    }
}

async fn download(url: &str) -> Vec<u8> {
    service().download(url).await
}

/// Uploads bytes through the media upload route (as ana); returns the file URL.
async fn upload(bytes: Vec<u8>, filename: &str, mime: &str) -> String {
    service()
        .upload_media(&shared().ana, bytes, filename, mime)
        .await
}

/// The 2-second 160x90 fixture, uploaded once.
async fn fixture_url() -> &'static str {
    static URL: OnceCell<String> = OnceCell::const_new();
    URL.get_or_init(|| async {
        let bytes = std::fs::read(FIXTURE_MP4).expect("fixture");
        upload(bytes, "baseline.mp4", "video/mp4").await
    })
    .await
}

/// A sandbox-rendered clip of `secs` seconds at 56x32, uploaded.
async fn rendered_source_url(secs: f64) -> String {
    let mp4 = tokio::task::spawn_blocking(move || {
        framewright::sandbox::render_text_to_video_mp4("edit source", 7, "16:9", "32p", secs)
            .expect("render")
    })
    .await
    .expect("join");
    upload(mp4, "source.mp4", "video/mp4").await
}

/// A 4-second source (retake needs at least 3 s).
async fn four_second_url() -> &'static str {
    static URL: OnceCell<String> = OnceCell::const_new();
    URL.get_or_init(|| rendered_source_url(4.0)).await
}

/// A 31-second source (extend and retake refuse more than 30 s).
async fn long_source_url() -> &'static str {
    static URL: OnceCell<String> = OnceCell::const_new();
    URL.get_or_init(|| rendered_source_url(31.0)).await
}

/// A small PNG face, uploaded.
async fn face_url() -> &'static str {
    static URL: OnceCell<String> = OnceCell::const_new();
    URL.get_or_init(|| async {
        let image = image::RgbImage::from_fn(64, 64, |x, y| {
            image::Rgb([200, (x * 3) as u8, (y * 3) as u8])
        });
        let mut png = Vec::new();
        image::DynamicImage::ImageRgb8(image)
            .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
            .expect("png");
        upload(png, "face.png", "image/png").await
    })
    .await
}

const EXTERNAL_URL: &str = "https://cdn.example.com/clip.mp4";

fn assert_400(status: StatusCode, body: &Value, code: &str) {
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["success"], false, "{body}");
    assert_eq!(body["code"], code, "{body}");
}

fn error_text(body: &Value) -> String {
    body["error"].as_str().unwrap_or_default().to_owned()
}

fn assert_failed_with(outcome: &Value, needle: &str) {
    assert_eq!(outcome["state"], "failed", "{outcome}");
    assert!(error_text(outcome).contains(needle), "{outcome}");
    assert_eq!(outcome["failure"]["message"], outcome["error"], "{outcome}");
}

fn mp4_duration_secs(mp4: Vec<u8>) -> f64 {
    VideoDecoder::from_bytes(mp4)
        .expect("our demuxer opens it")
        .info()
        .duration_secs
}

// ---- POST /v1/edit/video: fields every operation shares ----

#[tokio::test]
async fn edit_unknown_operation_is_400_listing_the_valid_operations() {
    let (status, body) = ana()
        .post(
            "/v1/edit/video",
            &json!({"video_url": EXTERNAL_URL, "operation": "colorize"}),
        )
        .await;
    assert_400(status, &body, "INVALID_OPERATION");
    for operation in OPERATIONS {
        assert!(error_text(&body).contains(operation), "{operation}: {body}");
    }
}

#[tokio::test]
async fn edit_missing_operation_is_400_listing_the_valid_operations() {
    let (status, body) = ana()
        .post("/v1/edit/video", &json!({"video_url": EXTERNAL_URL}))
        .await;
    assert_400(status, &body, "INVALID_OPERATION");
    assert!(
        error_text(&body).contains("remove_watermark, face_swap"),
        "{body}"
    );
}

#[tokio::test]
async fn edit_missing_video_url_is_400() {
    let (status, body) = ana()
        .post("/v1/edit/video", &json!({"operation": "upscale"}))
        .await;
    assert_400(status, &body, "VIDEO_REQUIRED");
}

#[tokio::test]
async fn edit_video_url_not_a_string_or_not_a_url_is_invalid_video_url() {
    for video_url in [
        json!(42),
        json!(["https://a.example/x.mp4"]),
        json!("not a url"),
    ] {
        let (status, body) = ana()
            .post(
                "/v1/edit/video",
                &json!({"video_url": video_url, "operation": "upscale"}),
            )
            .await;
        assert_400(status, &body, "INVALID_VIDEO_URL");
    }
}

#[tokio::test]
async fn edit_model_not_a_string_is_invalid_model() {
    let (status, body) = ana()
        .post(
            "/v1/edit/video",
            &json!({"video_url": EXTERNAL_URL, "operation": "upscale", "model": {"id": 1}}),
        )
        .await;
    assert_400(status, &body, "INVALID_MODEL");
}

#[tokio::test]
async fn edit_model_naming_no_model_of_the_operation_is_400_model_not_found() {
    for model in ["nobody/no-such-model", "luma/reframe"] {
        let (status, body) = ana()
            .post(
                "/v1/edit/video",
                &json!({"video_url": EXTERNAL_URL, "operation": "upscale", "model": model}),
            )
            .await;
        assert_400(status, &body, "MODEL_NOT_FOUND");
    }
}

#[tokio::test]
async fn edit_submit_is_202_global_video_edit_with_model_null_when_omitted() {
    let submit = ana()
        .edit(json!({"video_url": fixture_url().await, "operation": "remove_watermark"}))
        .await;
    assert_eq!(submit["type"], "global_video_edit", "{submit}");
    assert_eq!(submit["model"], Value::Null, "{submit}");
    assert_eq!(submit["poll_interval_hint"], 8, "{submit}");
    let id = submit["generation_id"].as_str().expect("id");
    assert_eq!(submit["poll_url"], format!("/api/v1/generate/{id}/status"));
    assert!(submit["session_id"].is_string() && submit["project_id"].is_string());
    let (status, poll) = ana().get(&format!("/v1/generate/{id}/status")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(poll["type"], "global_video_edit", "{poll}");
}

#[tokio::test]
async fn edit_submit_echoes_the_model_as_sent() {
    for model in ["luma/reframe", "auto"] {
        let submit = ana()
            .edit(
                json!({"video_url": fixture_url().await, "operation": "reframe",
                "aspect_ratio": "9:16", "model": model}),
            )
            .await;
        assert_eq!(submit["model"], model, "{submit}");
    }
}

#[tokio::test]
async fn edit_can_be_cancelled_like_other_generations() {
    let submit = ana()
        .edit(
            json!({"video_url": fixture_url().await, "operation": "magic_edit",
            "prompt": "make it snow"}),
        )
        .await;
    let id = submit["generation_id"].as_str().expect("id");
    let (status, body) = ana()
        .post(&format!("/v1/generate/{id}/cancel"), &json!({}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let outcome = ana().wait_generation(id).await;
    assert_eq!(outcome["state"], "cancelled", "{outcome}");
    assert!(outcome.get("result").is_none() && outcome.get("error").is_none());
}

// ---- per-operation field rules (400 at submit) ----

#[tokio::test]
async fn reframe_without_aspect_ratio_is_400() {
    let (status, body) = ana()
        .post(
            "/v1/edit/video",
            &json!({"video_url": EXTERNAL_URL, "operation": "reframe"}),
        )
        .await;
    assert_400(status, &body, "INVALID_ASPECT_RATIO");
}

#[tokio::test]
async fn magic_edit_without_prompt_is_400() {
    let (status, body) = ana()
        .post(
            "/v1/edit/video",
            &json!({"video_url": EXTERNAL_URL, "operation": "magic_edit", "prompt": "  "}),
        )
        .await;
    assert_400(status, &body, "INVALID_PROMPT");
}

#[tokio::test]
async fn face_swap_without_image_url_is_400() {
    let (status, body) = ana()
        .post(
            "/v1/edit/video",
            &json!({"video_url": EXTERNAL_URL, "operation": "face_swap"}),
        )
        .await;
    assert_400(status, &body, "IMAGE_REQUIRED");
}

#[tokio::test]
async fn lipsync_without_audio_url_or_text_prompt_is_400() {
    let (status, body) = ana()
        .post(
            "/v1/edit/video",
            &json!({"video_url": EXTERNAL_URL, "operation": "lipsync"}),
        )
        .await;
    assert_400(status, &body, "AUDIO_REQUIRED");
    let submit = ana()
        .edit(
            json!({"video_url": fixture_url().await, "operation": "lipsync",
            "text_prompt": "hello there"}),
        )
        .await;
    assert_eq!(submit["type"], "global_video_edit");
}

#[tokio::test]
async fn generate_audio_without_any_prompt_is_400() {
    let (status, body) = ana()
        .post(
            "/v1/edit/video",
            &json!({"video_url": EXTERNAL_URL, "operation": "generate_audio"}),
        )
        .await;
    assert_400(status, &body, "INVALID_PROMPT");
    assert!(error_text(&body).contains("sound_effect_prompt"), "{body}");
}

#[tokio::test]
async fn generate_audio_auto_captioning_model_needs_no_prompt() {
    let submit = ana()
        .edit(
            json!({"video_url": fixture_url().await, "operation": "generate_audio",
            "model": "mirelo/autocaption-v1"}),
        )
        .await;
    assert_eq!(submit["model"], "mirelo/autocaption-v1");
}

#[tokio::test]
async fn remove_watermark_ignores_fields_of_other_operations() {
    let outcome = ana()
        .edit_outcome(
            json!({"video_url": fixture_url().await, "operation": "remove_watermark",
            "target_fps": 999, "aspect_ratio": 5, "audio_format": "ogg", "duration": "long"}),
        )
        .await;
    assert!(!error_text(&outcome).contains("Invalid"), "{outcome}");
}

// ---- rules that fail the job ----

#[tokio::test]
async fn upscale_target_fps_outside_16_to_60_fails_the_job() {
    for fps in [15, 61] {
        let outcome = ana()
            .edit_outcome(
                json!({"video_url": fixture_url().await, "operation": "upscale",
                "target_fps": fps}),
            )
            .await;
        assert_failed_with(&outcome, "Invalid target_fps");
    }
}

#[tokio::test]
async fn audio_scoring_unlisted_audio_format_fails_the_job() {
    let outcome = ana()
        .edit_outcome(
            json!({"video_url": fixture_url().await, "operation": "generate_audio",
            "model": "mirelo/sfx-v1", "prompt": "footsteps", "audio_format": "flac"}),
        )
        .await;
    assert_failed_with(&outcome, "Invalid audio_format");
}

#[tokio::test]
async fn audio_scoring_with_no_listed_formats_accepts_the_fallback_list() {
    let outcome = ana()
        .edit_outcome(
            json!({"video_url": fixture_url().await, "operation": "generate_audio",
            "model": "mirelo/autocaption-v1", "audio_format": "flac"}),
        )
        .await;
    assert_eq!(outcome["state"], "completed", "{outcome}");
    let outcome = ana()
        .edit_outcome(
            json!({"video_url": fixture_url().await, "operation": "generate_audio",
            "model": "mirelo/autocaption-v1", "audio_format": "ogg"}),
        )
        .await;
    assert_failed_with(&outcome, "Invalid audio_format");
}

#[tokio::test]
async fn extend_of_a_source_over_30_seconds_fails_the_job() {
    let outcome = ana()
        .edit_outcome(json!({"video_url": long_source_url().await, "operation": "extend"}))
        .await;
    assert_failed_with(&outcome, "30 seconds");
}

#[tokio::test]
async fn retake_of_a_source_over_30_seconds_fails_the_job() {
    let outcome = ana()
        .edit_outcome(json!({"video_url": long_source_url().await, "operation": "retake"}))
        .await;
    assert_failed_with(&outcome, "30 seconds");
}

#[tokio::test]
async fn retake_of_a_source_under_3_seconds_fails_the_job() {
    let outcome = ana()
        .edit_outcome(json!({"video_url": fixture_url().await, "operation": "retake"}))
        .await;
    assert_failed_with(&outcome, "at least 3 seconds");
}

// ---- completion ----

#[tokio::test]
async fn completed_edit_has_urls_download_url_edit_type_duration_model_and_created_at() {
    let outcome = ana()
        .edit_outcome(
            json!({"video_url": fixture_url().await, "operation": "magic_edit",
            "prompt": "paint it gold"}),
        )
        .await;
    assert_eq!(outcome["state"], "completed", "{outcome}");
    let result = &outcome["result"];
    let url = result["urls"][0].as_str().expect("url");
    assert_eq!(result["download_url"], url, "{result}");
    assert_eq!(result["edit_type"], "magic_edit");
    assert_eq!(result["model"], "decart/magic-edit");
    assert!(result["created_at"].is_string() && result["thumbnail_url"].is_string());
    let duration = result["duration"].as_f64().expect("duration");
    assert!((duration - FIXTURE_SECS).abs() < 0.1, "{result}");
    assert!((mp4_duration_secs(download(url).await) - duration).abs() < 0.1);
}

#[tokio::test]
async fn completed_edits_report_the_contracts_internal_edit_types() {
    let face = face_url().await;
    for (body, edit_type) in [
        (
            json!({"operation": "generate_audio", "prompt": "rain"}),
            "audio_generation",
        ),
        (
            json!({"operation": "remove_watermark"}),
            "watermark_removal",
        ),
        (
            json!({"operation": "face_swap", "image_url": face}),
            "video_face_swap",
        ),
        (
            json!({"operation": "remove_background"}),
            "background_removal",
        ),
    ] {
        let mut body = body;
        body["video_url"] = json!(fixture_url().await);
        let outcome = ana().edit_outcome(body).await;
        assert_eq!(outcome["state"], "completed", "{outcome}");
        assert_eq!(outcome["result"]["edit_type"], edit_type, "{outcome}");
    }
}

// ---- billing (default user, one test at a time) ----

/// Submits as the default user and returns the credits reserved (the drop in `available`).
async fn reserved_by(body: Value) -> (f64, String) {
    let caller = default_user();
    let before = caller.available_credits().await;
    let submit = caller.submit("/v1/edit/video", &body).await;
    assert_eq!(submit["credits_charged"], Value::Null, "{submit}");
    let after = caller.available_credits().await;
    (
        before - after,
        submit["generation_id"].as_str().expect("id").to_owned(),
    )
}

#[tokio::test]
async fn extend_reserves_the_extension_plus_one_second_capped_at_21() {
    let _turn = credit_turn().await;
    // luma/ray2-extend: 10 credits/s, default 5 s extension -> 6 billed seconds.
    let (reserved, first) =
        reserved_by(json!({"video_url": fixture_url().await, "operation": "extend"})).await;
    assert_eq!(reserved, 60.0);
    // pixverse/v4-extend: 6 credits/s, no min/max (1-20): 25 -> 20 s -> 21 billed seconds.
    let (reserved, second) = reserved_by(json!({"video_url": fixture_url().await,
        "operation": "extend", "model": "pixverse/v4-extend", "duration": 25}))
    .await;
    assert_eq!(reserved, 126.0);
    for id in [first, second] {
        default_user().wait_generation(&id).await;
    }
}

#[tokio::test]
async fn completed_extend_bills_extension_plus_one_second() {
    let _turn = credit_turn().await;
    let (_, id) = reserved_by(json!({"video_url": fixture_url().await,
        "operation": "extend", "duration": 3}))
    .await;
    let outcome = default_user().wait_generation(&id).await;
    assert_eq!(outcome["state"], "completed", "{outcome}");
    // 10 credits x (3 + 1) seconds.
    assert_eq!(outcome["credits_used"].as_f64(), Some(40.0), "{outcome}");
}

#[tokio::test]
async fn completed_retake_bills_the_whole_input_length() {
    let _turn = credit_turn().await;
    // Reserved at the 30-second ceiling (4 credits/s), settled on the 4-second source.
    let (reserved, id) = reserved_by(json!({"video_url": four_second_url().await,
        "operation": "retake", "start_time": 1, "duration": 2}))
    .await;
    assert_eq!(reserved, 120.0);
    let outcome = default_user().wait_generation(&id).await;
    assert_eq!(outcome["state"], "completed", "{outcome}");
    assert_eq!(outcome["credits_used"].as_f64(), Some(16.0), "{outcome}");
    assert_eq!(outcome["result"]["edit_type"], "video_retake");
}

#[tokio::test]
async fn edit_below_the_reservation_is_403_insufficient_credits_before_work() {
    let _turn = credit_turn().await;
    let caller = default_user();
    let total = caller.credits("total").await;
    service().sandbox.set_credits(5.0);
    let jobs_before = service().sandbox.generation_count();
    let (status, body) = caller
        .post(
            "/v1/edit/video",
            &json!({"video_url": EXTERNAL_URL, "operation": "upscale", "resolution": "4k"}),
        )
        .await;
    service().sandbox.set_credits(total);
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["code"], "INSUFFICIENT_CREDITS", "{body}");
    assert_eq!(service().sandbox.generation_count(), jobs_before);
}

#[tokio::test]
async fn video_from_video_reserves_by_the_video_input_formula() {
    let _turn = credit_turn().await;
    let caller = default_user();
    let before = caller.available_credits().await;
    let submit = caller
        .submit(
            "/v1/generate/video-from-video",
            &json!({"video_url": fixture_url().await, "model": ALEPH, "resolution": "1080p"}),
        )
        .await;
    // ceil(8 x (10 + 10) x 1.5) on the assumed 10-second source.
    assert_eq!(before - caller.available_credits().await, 240.0);
    caller
        .wait_generation(submit["generation_id"].as_str().expect("id"))
        .await;
}

// ---- rate limit (a sandbox of its own: nothing else moves its clock) ----

#[tokio::test]
async fn edit_video_and_trim_share_the_10_per_minute_other_generation_limit() {
    let own = local_service(FAST);
    let post = |path: &'static str| own.call_as(&own.key, Method::POST, path, Some(json!({})));
    for index in 0..10 {
        let path = if index % 2 == 0 {
            "/v1/edit/video"
        } else {
            "/v1/video/trim"
        };
        let (status, body) = post(path).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{index}: {body}");
    }
    let (status, body) = post("/v1/edit/video").await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
    assert_eq!(body["status"], false);
    assert_eq!(body["retryAfter"], 60);
}

#[tokio::test]
async fn trim_status_reads_count_in_the_120_per_minute_media_group() {
    let own = local_service(FAST);
    let get = || {
        own.call_as(
            &own.key,
            Method::GET,
            "/v1/video/trim/trim_00000000000000000000000000000000",
            None,
        )
    };
    for index in 0..120 {
        let (status, body) = get().await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{index}: {body}");
    }
    let (status, body) = get().await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
    assert_eq!(body["retryAfter"], 60);
}

// ---- POST /v1/generate/video-from-video ----

#[tokio::test]
async fn video_from_video_without_an_explicit_model_is_model_required() {
    for model in [
        None,
        Some(json!(null)),
        Some(json!("")),
        Some(json!("   ")),
        Some(json!("auto")),
        Some(json!(" AUTO-SELECT ")),
        Some(json!("Smart-Select")),
        Some(json!("smart_select")),
        Some(json!("smartselect")),
    ] {
        let mut body = json!({"video_url": EXTERNAL_URL, "prompt": "as a watercolour"});
        if let Some(model) = model {
            body["model"] = model;
        }
        let (status, answer) = ana().post("/v1/generate/video-from-video", &body).await;
        assert_400(status, &answer, "MODEL_REQUIRED");
    }
}

#[tokio::test]
async fn video_from_video_non_string_model_is_invalid_model() {
    let (status, body) = ana()
        .post(
            "/v1/generate/video-from-video",
            &json!({"video_url": EXTERNAL_URL, "model": [ALEPH]}),
        )
        .await;
    assert_400(status, &body, "INVALID_MODEL");
}

#[tokio::test]
async fn video_from_video_needs_a_video_url() {
    let (status, body) = ana()
        .post("/v1/generate/video-from-video", &json!({"model": ALEPH}))
        .await;
    assert_400(status, &body, "VIDEO_REQUIRED");
}

#[tokio::test]
async fn video_from_video_submit_is_202_with_the_model() {
    let submit = ana()
        .submit(
            "/v1/generate/video-from-video",
            &json!({"video_url": fixture_url().await, "model": ALEPH, "prompt": "neon noir"}),
        )
        .await;
    assert_eq!(submit["type"], "video_from_video", "{submit}");
    assert_eq!(submit["model"], ALEPH);
    assert_eq!(submit["poll_interval_hint"], 8);
}

#[tokio::test]
async fn video_from_video_completes_with_a_restyled_video() {
    let submit = ana()
        .submit(
            "/v1/generate/video-from-video",
            &json!({"video_url": fixture_url().await, "model": ALEPH, "prompt": "neon noir"}),
        )
        .await;
    let outcome = ana()
        .wait_generation(submit["generation_id"].as_str().expect("id"))
        .await;
    assert_eq!(outcome["state"], "completed", "{outcome}");
    let result = &outcome["result"];
    assert_eq!(result["model"], ALEPH);
    let url = result["urls"][0].as_str().expect("url");
    assert!((mp4_duration_secs(download(url).await) - FIXTURE_SECS).abs() < 0.1);
    // ceil(8 x (2 + 2)) for the 2-second source at 720p.
    assert_eq!(outcome["credits_used"].as_f64(), Some(32.0), "{outcome}");
}

// ---- POST /v1/video/trim ----

#[tokio::test]
async fn trim_submit_is_202_with_a_prefixed_job_id() {
    let (status, body) = ana()
        .post(
            "/v1/video/trim",
            &json!({"video_url": fixture_url().await, "start_time": 0.5, "end_time": 1.5,
                "project_id": "ignored"}),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    assert_eq!(body["success"], true);
    let job_id = body["jobId"].as_str().expect("jobId");
    assert!(job_id.starts_with("trim_"), "{job_id}");
    assert_ne!(job_id.len(), 24);
    assert_eq!(body["generationId"], job_id);
    assert_eq!(body["status"], "processing");
    assert!(body["message"].is_string());
    assert!(
        body["pollingUrl"]
            .as_str()
            .expect("pollingUrl")
            .contains(job_id)
    );
    assert!(body.get("credits_charged").is_none() && body.get("poll_interval_hint").is_none());
}

#[tokio::test]
async fn trim_without_video_url_is_400() {
    let (status, body) = ana()
        .post("/v1/video/trim", &json!({"start_time": 0, "end_time": 1}))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["success"], false);
    assert!(body["error"].is_string());
}

#[tokio::test]
async fn trim_times_must_be_json_numbers() {
    for (start, end) in [
        (json!("0"), json!(1)),
        (json!(0), json!("1.5")),
        (json!(null), json!(1)),
    ] {
        let (status, body) = ana()
            .post(
                "/v1/video/trim",
                &json!({"video_url": EXTERNAL_URL, "start_time": start, "end_time": end}),
            )
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(body["success"], false);
    }
}

#[tokio::test]
async fn trim_rejects_internal_and_private_addresses() {
    for url in [
        "http://127.0.0.1:9/clip.mp4",
        "http://localhost/clip.mp4",
        "http://10.0.0.8/clip.mp4",
        "http://192.168.1.20/clip.mp4",
        "http://172.20.0.1/clip.mp4",
        "http://169.254.169.254/latest/meta-data",
        "http://0.0.0.0/clip.mp4",
        "http://[::1]/clip.mp4",
        "http://[fd12::1]/clip.mp4",
        "http://[fe80::1]/clip.mp4",
    ] {
        let (status, body) = ana()
            .post(
                "/v1/video/trim",
                &json!({"video_url": url, "start_time": 0, "end_time": 1}),
            )
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{url}: {body}");
        assert!(error_text(&body).contains("internal"), "{body}");
    }
}

#[tokio::test]
async fn trim_accepts_the_sandboxs_own_output_urls() {
    let own = fixture_url().await;
    assert!(own.starts_with("http://127.0.0.1:"), "{own}");
    ana()
        .trim(json!({"video_url": own, "start_time": 0, "end_time": 1}))
        .await;
}

#[tokio::test]
async fn trim_status_of_an_unknown_job_is_404() {
    let (status, body) = ana().get("/v1/video/trim/trim_doesnotexist").await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(body["success"], false);
    assert!(body["error"].is_string());
}

#[tokio::test]
async fn trim_status_of_another_accounts_job_is_403() {
    let job_id = ben()
        .trim(json!({"video_url": fixture_url().await, "start_time": 0, "end_time": 1}))
        .await;
    let (status, body) = ana().get(&format!("/v1/video/trim/{job_id}")).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["success"], false);
}

#[tokio::test]
async fn generate_status_rejects_a_trim_id() {
    let job_id = ana()
        .trim(json!({"video_url": fixture_url().await, "start_time": 0, "end_time": 1}))
        .await;
    let (status, body) = ana().get(&format!("/v1/generate/{job_id}/status")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["message"], "Invalid generation ID format", "{body}");
}

#[tokio::test]
async fn failed_trim_is_200_success_true_with_error_and_no_urls() {
    let job_id = ana()
        .trim(json!({"video_url": fixture_url().await, "start_time": 100, "end_time": 101}))
        .await;
    let last = ana().trim_bodies(&job_id).await.pop().expect("a body");
    assert_eq!(last["status"], "failed", "{last}");
    assert_eq!(last["success"], true);
    assert!(!error_text(&last).is_empty(), "{last}");
    for field in ["url", "videoUrl", "fileUrl", "publicUrl"] {
        assert!(last.get(field).is_none(), "{field}: {last}");
    }
}

#[tokio::test]
async fn trim_starting_at_or_beyond_the_source_end_fails() {
    let job_id = ana()
        .trim(
            json!({"video_url": fixture_url().await, "start_time": FIXTURE_SECS,
            "end_time": 3}),
        )
        .await;
    let last = ana().trim_bodies(&job_id).await.pop().expect("a body");
    assert_eq!(last["status"], "failed", "{last}");
    assert!(
        error_text(&last).contains("beyond the video duration"),
        "{last}"
    );
}

#[tokio::test]
async fn trim_runs_through_its_statuses_to_identical_url_fields() {
    let job_id = ana()
        .trim(json!({"video_url": fixture_url().await, "start_time": 0.5, "end_time": 1.5}))
        .await;
    let bodies = ana().trim_bodies(&job_id).await;
    let order = [
        "initializing",
        "analyzing",
        "processing",
        "uploading",
        "completed",
    ];
    let mut last_rank = 0;
    for body in &bodies {
        let status = body["status"].as_str().expect("status");
        let rank = order
            .iter()
            .position(|s| *s == status)
            .expect("known status");
        assert!(rank >= last_rank, "{status} after {}", order[last_rank]);
        last_rank = rank;
        let progress = body["progress"].as_u64().expect("progress");
        assert!(progress <= 100);
        assert!(body["message"].is_string());
        assert!(body["updatedAt"].as_i64().expect("updatedAt") > 1_600_000_000_000);
        assert_eq!(body["success"], true);
        assert_eq!(body["jobId"], job_id);
    }
    let done = bodies.last().expect("a body");
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["error"], Value::Null);
    let url = done["url"].as_str().expect("url");
    for field in ["videoUrl", "fileUrl", "publicUrl"] {
        assert_eq!(done[field], url, "{field}");
    }
    assert!((mp4_duration_secs(download(url).await) - 1.0).abs() < 0.1);
}

#[tokio::test]
async fn trim_end_beyond_the_source_is_clamped() {
    let job_id = ana()
        .trim(json!({"video_url": fixture_url().await, "start_time": 1, "end_time": 60}))
        .await;
    let done = ana().trim_bodies(&job_id).await.pop().expect("a body");
    assert_eq!(done["status"], "completed", "{done}");
    let url = done["url"].as_str().expect("url");
    assert!((mp4_duration_secs(download(url).await) - (FIXTURE_SECS - 1.0)).abs() < 0.1);
}

#[tokio::test]
async fn trim_makes_a_new_file_and_leaves_the_original_untouched() {
    let original_url = fixture_url().await;
    let original = std::fs::read(FIXTURE_MP4).expect("fixture");
    let job_id = ana()
        .trim(json!({"video_url": original_url, "start_time": 0, "end_time": 1}))
        .await;
    let done = ana().trim_bodies(&job_id).await.pop().expect("a body");
    assert_eq!(done["status"], "completed", "{done}");
    assert_ne!(done["url"], original_url);
    assert_eq!(download(original_url).await, original);
    let (status, library) = ana().get("/v1/media?type=video&limit=100").await;
    assert_eq!(status, StatusCode::OK, "{library}");
    let trimmed_file = done["url"].as_str().expect("url");
    assert!(library.to_string().contains(trimmed_file), "{library}");
}

/// The frame number the fixture draws in its top 16 rows: ten 16-px blocks, bit `b` white
/// in block `b` (tests/fixtures/video/README).
fn frame_code(frame: &framewright::video_codec::DecodedFrame) -> u32 {
    let block_px = (frame.width / 10) as usize;
    let row = 8 * frame.width as usize;
    (0..10)
        .map(|bit| {
            let x = bit * block_px + block_px / 2;
            let luma = frame.rgba.get((row + x) * 4).copied().unwrap_or(0);
            u32::from(luma > 128) << bit
        })
        .sum()
}

#[tokio::test]
async fn trim_is_frame_accurate_by_our_own_demuxer_and_decoder() {
    // 24 fps: 0.5 s is frame 12, 1.5 s frame 36; [0.5, 1.5) holds frames 12..=35.
    let job_id = ana()
        .trim(json!({"video_url": fixture_url().await, "start_time": 0.5, "end_time": 1.5}))
        .await;
    let done = ana().trim_bodies(&job_id).await.pop().expect("a body");
    assert_eq!(done["status"], "completed", "{done}");
    let bytes = download(done["url"].as_str().expect("url")).await;
    let mut decoder = VideoDecoder::from_bytes(bytes).expect("our demuxer opens the cut");
    assert_eq!(
        decoder.info().frame_count,
        24,
        "exactly the frames in [start, end)"
    );
    let mut codes = Vec::new();
    while let Some(frame) = decoder.next_frame().expect("decodes") {
        codes.push(frame_code(&frame));
    }
    assert_eq!(
        codes.first(),
        Some(&12),
        "the first frame is the source's at 0.5 s"
    );
    assert_eq!(
        codes,
        (12..36).collect::<Vec<u32>>(),
        "every frame, in order"
    );
}
