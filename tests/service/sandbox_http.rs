//! The embedded sandbox over real HTTP, checked against the contract with plain JSON values
//! (deliberately not the crate's api types, so a shared misreading cannot hide).

use std::time::Duration;

use framewright::sandbox::{self, SandboxConfig, SandboxHandle};
use reqwest::StatusCode;
use serde_json::{Value, json};

const SPEED: f64 = 40.0;
const POLL_TIMEOUT: Duration = Duration::from_secs(40);

struct Harness {
    _dir: tempfile::TempDir,
    sandbox: SandboxHandle,
    http: reqwest::Client,
}

fn config(dir: &std::path::Path, speed: f64) -> SandboxConfig {
    let mut config = SandboxConfig::new(dir.to_path_buf());
    config.speed = speed;
    config
}

fn harness() -> Harness {
    let dir = tempfile::tempdir().expect("tempdir");
    let sandbox = sandbox::start(config(dir.path(), SPEED)).expect("sandbox starts");
    Harness {
        _dir: dir,
        sandbox,
        http: reqwest::Client::new(),
    }
}

impl Harness {
    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.sandbox.base_url())
    }

    async fn get(&self, path: &str) -> (StatusCode, Value) {
        let response = self
            .http
            .get(self.url(path))
            .header("X-API-Key", self.sandbox.api_key())
            .send()
            .await
            .expect("request");
        let status = response.status();
        (status, response.json().await.expect("json body"))
    }

    async fn post_raw(&self, path: &str, body: &Value) -> reqwest::Response {
        self.http
            .post(self.url(path))
            .header("X-API-Key", self.sandbox.api_key())
            .json(body)
            .send()
            .await
            .expect("request")
    }

    async fn post(&self, path: &str, body: &Value) -> (StatusCode, Value) {
        let response = self.post_raw(path, body).await;
        let status = response.status();
        (status, response.json().await.expect("json body"))
    }

    async fn credits(&self) -> Value {
        let (status, body) = self.get("/v1/account/credits").await;
        assert_eq!(status, StatusCode::OK);
        body["credits"].clone()
    }

    async fn wait_terminal(&self, id: &str) -> Value {
        let deadline = tokio::time::Instant::now() + POLL_TIMEOUT;
        loop {
            let (status, body) = self.get(&format!("/v1/generate/{id}/status")).await;
            assert_eq!(status, StatusCode::OK, "{body}");
            let state = body["state"].as_str().expect("state").to_owned();
            if matches!(state.as_str(), "completed" | "failed" | "cancelled") {
                return body;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "job {id} never finished: {body}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

fn id_of(body: &Value) -> String {
    body["generation_id"]
        .as_str()
        .expect("generation_id")
        .to_owned()
}

#[tokio::test]
async fn models_filters_aliases_and_unknowns() {
    let h = harness();
    let (status, all) = h.get("/v1/models").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(all["success"], true);
    let models = all["models"].as_array().expect("models");
    assert!(models.len() >= 24);
    assert_eq!(all["count"].as_u64(), Some(models.len() as u64));
    for model in models {
        assert!(model.get("sort_order").is_none() && model.get("hidden").is_none());
        assert!(model["identifier"].is_string() && model["types"].is_array());
    }

    let count = |body: &Value| body["count"].as_u64().expect("count");
    let has_type = |body: &Value, raw: &str| {
        body["models"].as_array().expect("models").iter().all(|m| {
            m["types"]
                .as_array()
                .expect("types")
                .iter()
                .any(|t| t == raw)
        })
    };
    let (_, images) = h.get("/v1/models?type=image").await;
    assert!(count(&images) >= 5 && has_type(&images, "text_to_img"));
    let (_, by_name) = h.get("/v1/models?type=text_to_img").await;
    assert_eq!(count(&by_name), count(&images));
    let (_, edits) = h.get("/v1/models?type=image_edit").await;
    assert!(count(&edits) >= 4 && has_type(&edits, "image_editing"));
    for (alias, raw) in [
        ("video", "text_to_video"),
        ("video_from_image", "img_to_video"),
        ("video_from_video", "video_to_video"),
        ("music", "music_gen"),
        ("speech", "text_to_speech"),
        ("sound", "text_to_sound"),
        ("chat", "text"),
        ("first_last_frame", "firstlastgenerations"),
        ("transcription", "stt"),
    ] {
        let (_, body) = h.get(&format!("/v1/models?type={alias}")).await;
        assert!(count(&body) >= 1 && has_type(&body, raw), "{alias}");
    }
    let (_, lipsync) = h.get("/v1/models?type=lipsync").await;
    let (_, lip_img) = h.get("/v1/models?type=lipsync-image").await;
    let (_, lip_vid) = h.get("/v1/models?type=lipsync-video").await;
    assert_eq!(count(&lipsync), count(&lip_img) + count(&lip_vid));
    assert!(count(&lip_img) >= 1 && count(&lip_vid) >= 1);
    let (_, three_d) = h.get("/v1/models?type=three_d").await;
    assert!(count(&three_d) >= 4);
    let (_, world) = h.get("/v1/models?type=3d_world").await;
    assert!(count(&world) >= 1 && has_type(&world, "3d_world"));
    let (_, fal) = h.get("/v1/models?provider=fal&type=image").await;
    assert!(
        fal["models"]
            .as_array()
            .expect("models")
            .iter()
            .all(|m| m["provider"] == "fal")
    );
    assert!(count(&fal) >= 1);

    for unknown in ["/v1/models?type=hologram", "/v1/models?provider=nobody"] {
        let (status, body) = h.get(unknown).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body["count"], 0);
        assert_eq!(body["models"], json!([]));
    }
}

#[tokio::test]
async fn auth_errors_have_contract_shapes() {
    let h = harness();
    for key in [None, Some("not-a-key")] {
        let mut request = h.http.get(h.url("/v1/account/credits"));
        if let Some(key) = key {
            request = request.header("X-API-Key", key);
        }
        let response = request.send().await.expect("request");
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        let body: Value = response.json().await.expect("json");
        assert!(body["message"].is_string());
        assert_eq!(body["tokenExpired"], false);
        assert!(body.get("code").is_none());
    }

    let read_only = h.sandbox.create_api_key(true);
    let response = h
        .http
        .get(h.url("/v1/models"))
        .header("X-API-Key", &read_only)
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::OK, "read-only keys may read");
    let response = h
        .http
        .post(h.url("/v1/generate/image"))
        .header("X-API-Key", &read_only)
        .json(&json!({"prompt": "a lighthouse"}))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["status"], false);
    assert_eq!(body["code"], "API_KEY_READ_ONLY");
    assert!(body["message"].is_string());
    assert_eq!(h.sandbox.generation_count(), 0);

    let (status, body) = h.get("/v1/no-such-route").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["success"], false);
}

#[tokio::test]
async fn image_submit_completes_and_settles_credits() {
    let h = harness();
    let before = h.credits().await;
    assert_eq!(before["total"].as_f64(), Some(1500.0));
    assert_eq!(before["available"].as_f64(), Some(1500.0));

    let (status, submit) = h
        .post(
            "/v1/generate/image",
            &json!({"prompt": "a quiet ocean at night", "aspect_ratio": "16:9", "model": "fal-ai/flux/schnell"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{submit}");
    assert_eq!(submit["success"], true);
    assert_eq!(submit["type"], "image");
    assert_eq!(submit["model"], "fal-ai/flux/schnell");
    assert_eq!(submit["poll_interval_hint"], 3);
    let id = id_of(&submit);
    assert_eq!(id.len(), 24);
    assert_eq!(submit["poll_url"], format!("/api/v1/generate/{id}/status"));
    assert!(submit["session_id"].is_string() && submit["project_id"].is_string());
    let charged = submit["credits_charged"].as_f64().expect("credits_charged");
    assert_eq!(charged, 2.0);

    // Reserved: available drops, total does not.
    let reserved = h.credits().await;
    assert_eq!(reserved["total"].as_f64(), Some(1500.0));
    assert_eq!(reserved["available"].as_f64(), Some(1500.0 - charged));

    let done = h.wait_terminal(&id).await;
    assert_eq!(done["state"], "completed", "{done}");
    assert_eq!(done["progress"], 100);
    let result = &done["result"];
    assert_eq!(result["model"], "fal-ai/flux/schnell");
    assert!(
        result["prompt_used"]
            .as_str()
            .expect("prompt_used")
            .starts_with("a quiet ocean at night")
    );
    assert!(chrono_like(
        result["created_at"].as_str().expect("created_at")
    ));
    assert_eq!(done["credits_used"].as_f64(), Some(charged));
    assert_eq!(done["credits_breakdown"][0]["model"], "fal-ai/flux/schnell");

    // Settled: the total drops by credits_used and nothing stays reserved.
    let after = h.credits().await;
    assert_eq!(after["total"].as_f64(), Some(1500.0 - charged));
    assert_eq!(after["available"].as_f64(), Some(1500.0 - charged));

    // Output URLs are plain and fetched without the key.
    let url = result["urls"][0].as_str().expect("url");
    assert!(!url.contains('?'));
    let response = reqwest::get(url).await.expect("fetch output");
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["content-type"], "image/png");
    let bytes = response.bytes().await.expect("bytes");
    let image = image::load_from_memory(&bytes).expect("decodes");
    assert_eq!((image.width(), image.height()), (1024, 576));
    let thumb = reqwest::get(result["thumbnail_url"].as_str().expect("thumbnail"))
        .await
        .expect("thumb");
    assert_eq!(thumb.status(), StatusCode::OK);

    // The auto-routed default echoes "auto" and reports the concrete model on completion.
    let (status, auto) = h
        .post(
            "/v1/generate/image",
            &json!({"prompt": "red fox", "model": " Smart-Select "}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(auto["model"], "auto");
    let done = h.wait_terminal(&id_of(&auto)).await;
    assert!(
        done["result"]["model"]
            .as_str()
            .is_some_and(|m| m != "auto")
    );

    // The default project exists and holds the generations.
    let (_, projects) = h.get("/v1/projects").await;
    let list = projects["projects"].as_array().expect("projects");
    assert!(list.iter().any(|p| p["is_default"] == true
        && p["name"] == "API Generations"
        && p["id"] == submit["project_id"]));
}

fn chrono_like(value: &str) -> bool {
    value.len() >= 20 && value.as_bytes()[4] == b'-' && value.contains('T')
}

#[tokio::test]
async fn validation_errors_and_projects() {
    let h = harness();
    let cases = [
        (json!({}), "INVALID_PROMPT"),
        (json!({"prompt": "   "}), "INVALID_PROMPT"),
        (json!({"prompt": 42}), "INVALID_PROMPT"),
        (
            json!({"prompt": "x".repeat(501), "model": "ideogram/v3"}),
            "INVALID_PROMPT",
        ),
        (json!({"prompt": "ok", "model": ["a"]}), "INVALID_MODEL"),
        (
            json!({"prompt": "ok", "model": "no/such-model"}),
            "MODEL_NOT_FOUND",
        ),
        (
            json!({"prompt": "ok", "model": "google/nano-banana-2-edit"}),
            "MODEL_NOT_FOUND",
        ),
        (
            json!({"prompt": "ok", "aspect_ratio": "7:5"}),
            "INVALID_ASPECT_RATIO",
        ),
        (
            json!({"prompt": "ok", "model": "fal-ai/flux/schnell", "resolution": "4K"}),
            "INVALID_RESOLUTION",
        ),
        (
            json!({"prompt": "ok", "visual_dna_ids": ["a", "b", "c", "d"]}),
            "INVALID_VISUAL_DNA",
        ),
    ];
    for (body, code) in cases {
        let (status, error) = h.post("/v1/generate/image", &body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(error["success"], false);
        assert_eq!(error["code"], code, "{body} -> {error}");
    }
    let (_, long) = h
        .post(
            "/v1/generate/image",
            &json!({"prompt": "x".repeat(501), "model": "ideogram/v3"}),
        )
        .await;
    assert!(long["error"].as_str().expect("error").contains("500"));

    // Malformed JSON is the global-middleware shape.
    let response = h
        .http
        .post(h.url("/v1/generate/image"))
        .header("X-API-Key", h.sandbox.api_key())
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["status"], false);
    assert!(body["message"].is_string() && body["errors"].is_array());

    // Projects.
    let (status, created) = h.post("/v1/projects", &json!({"name": "Moodboards"})).await;
    assert_eq!(status, StatusCode::CREATED);
    let project_id = created["project"]["id"].as_str().expect("id").to_owned();
    assert_eq!(created["project"]["is_default"], false);
    let (status, _) = h.post("/v1/projects", &json!({"name": ""})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = h
        .post("/v1/projects", &json!({"name": "x".repeat(101)}))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, routed) = h
        .post(
            "/v1/generate/image",
            &json!({"prompt": "ok", "project_id": project_id}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(routed["project_id"], project_id.as_str());
    let (status, missing) = h
        .post(
            "/v1/generate/image",
            &json!({"prompt": "ok", "project_id": "0123456789abcdef01234567"}),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(missing["code"], "NOT_FOUND");
    let (status, malformed) = h
        .post(
            "/v1/generate/image",
            &json!({"prompt": "ok", "project_id": "nope"}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(malformed["status"], false);

    // Status ids.
    let (status, body) = h.get("/v1/generate/not-an-id/status").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["message"], "Invalid generation ID format");
    let (status, _) = h.get("/v1/generate/0123456789abcdef01234567/status").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn insufficient_credits_is_403() {
    let h = harness();
    h.sandbox.set_credits(3.0);
    let (status, body) = h
        .post(
            "/v1/generate/image",
            &json!({"prompt": "castle", "model": "fal-ai/flux-pro/v1.1-ultra"}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(body["success"], false);
    assert_eq!(body["code"], "INSUFFICIENT_CREDITS");
    let message = body["error"].as_str().expect("error");
    assert!(
        message.contains("balance 3") && message.contains("minimum 6"),
        "{message}"
    );
    assert_eq!(h.sandbox.generation_count(), 0);
    assert_eq!(h.sandbox.credits_available(), 3.0);
}

#[tokio::test]
async fn image_edit_with_uploaded_source() {
    let h = harness();
    // A real photo when the shared fixtures are present, else a small generated PNG.
    let photo = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/fixtures/photos/coffee.png"
    ))
    .or_else(|_| std::fs::read("/work/shared/fixtures/photos/coffee.png"))
    .unwrap_or_else(|_| {
        let image = image::RgbImage::from_fn(300, 200, |x, y| image::Rgb([x as u8, y as u8, 128]));
        let mut png = Vec::new();
        image
            .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
            .expect("encode png");
        png
    });
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(photo.clone())
            .file_name("coffee.png")
            .mime_str("image/png")
            .expect("mime"),
    );
    let response = h
        .http
        .post(h.url("/v1/media/upload"))
        .header("X-API-Key", h.sandbox.api_key())
        .multipart(form)
        .send()
        .await
        .expect("upload");
    assert_eq!(response.status(), StatusCode::CREATED);
    let upload: Value = response.json().await.expect("json");
    let media = &upload["media"];
    assert_eq!(media["type"], "image");
    assert_eq!(media["size_bytes"].as_u64(), Some(photo.len() as u64));
    assert_eq!(media["mime_type"], "image/png");
    let source_url = media["url"].as_str().expect("url").to_owned();
    let served = reqwest::get(&source_url)
        .await
        .expect("fetch")
        .bytes()
        .await
        .expect("bytes");
    assert_eq!(served.len(), photo.len());
    assert!(media["thumbnail_url"].is_string());

    // No file field: 400.
    let response = h
        .http
        .post(h.url("/v1/media/upload"))
        .header("X-API-Key", h.sandbox.api_key())
        .multipart(reqwest::multipart::Form::new().text("project_id", ""))
        .send()
        .await
        .expect("upload");
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);

    let (status, submit) = h
        .post(
            "/v1/generate/image-edit",
            &json!({"prompt": "turn it into a neon poster", "source_images": [source_url], "aspect_ratio": "3:4", "num_images": 2}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{submit}");
    assert_eq!(submit["type"], "image_edit");
    assert_eq!(submit["model"], "auto");
    let done = h.wait_terminal(&id_of(&submit)).await;
    assert_eq!(done["state"], "completed", "{done}");
    let urls = done["result"]["urls"].as_array().expect("urls");
    assert_eq!(urls.len(), 2);
    let bytes = reqwest::get(urls[0].as_str().expect("url"))
        .await
        .expect("fetch")
        .bytes()
        .await
        .expect("bytes");
    let image = image::load_from_memory(&bytes).expect("decodes");
    assert_eq!((image.width(), image.height()), (768, 1024));

    // An unreachable source fails the job with a clear failure object.
    let (status, submit) = h
        .post(
            "/v1/generate/image-edit",
            &json!({"prompt": "edit", "source_images": [format!("http://127.0.0.1:{}/files/uploads/missing.png", h.sandbox.port())]}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let failed = h.wait_terminal(&id_of(&submit)).await;
    assert_eq!(failed["state"], "failed");
    assert_eq!(failed["failure"]["retryable"], false);
    assert_eq!(failed["error"], failed["failure"]["message"]);
}

#[tokio::test]
async fn cancel_releases_credits_then_conflicts() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Slow jobs so the cancel surely lands while running.
    let sandbox = sandbox::start(config(dir.path(), 1.0)).expect("start");
    let h = Harness {
        _dir: dir,
        sandbox,
        http: reqwest::Client::new(),
    };
    let (_, submit) = h
        .post("/v1/generate/image", &json!({"prompt": "slow"}))
        .await;
    let id = id_of(&submit);
    assert!(h.credits().await["available"].as_f64().expect("available") < 1500.0);
    let (status, cancelled) = h
        .post(&format!("/v1/generate/{id}/cancel"), &json!({}))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(cancelled["state"], "cancelled");
    assert_eq!(cancelled["generation_id"], id.as_str());
    let (status, again) = h
        .post(&format!("/v1/generate/{id}/cancel"), &json!({}))
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(again["code"], "CANNOT_CANCEL");
    let (_, state) = h.get(&format!("/v1/generate/{id}/status")).await;
    assert_eq!(state["state"], "cancelled");
    assert!(state.get("result").is_none() && state.get("error").is_none());
    let credits = h.credits().await;
    assert_eq!(credits["available"].as_f64(), Some(1500.0));
    assert_eq!(credits["total"].as_f64(), Some(1500.0));
}

#[tokio::test]
async fn injected_failures_have_the_failure_envelope() {
    let h = harness();
    for retryable in [true, false] {
        h.sandbox.fail_next_jobs(1, retryable);
        let (_, submit) = h
            .post("/v1/generate/image", &json!({"prompt": "doomed"}))
            .await;
        let failed = h.wait_terminal(&id_of(&submit)).await;
        assert_eq!(failed["state"], "failed");
        let failure = &failed["failure"];
        assert_eq!(failure["retryable"], retryable);
        assert_eq!(failed["error"], failure["message"]);
        for field in ["category", "code", "severity", "provider"] {
            assert!(failure[field].is_string(), "{field}");
        }
        assert!(failed.get("result").is_none() && failed.get("credits_used").is_none());
    }
    // Failed jobs release their reservations.
    let credits = h.credits().await;
    assert_eq!(credits["available"].as_f64(), Some(1500.0));
}

#[tokio::test]
async fn image_rate_limit_429_on_31st_submit() {
    let h = harness();
    // Make the 30 allowed jobs fail quickly instead of rendering.
    h.sandbox.fail_next_jobs(31, true);
    let other_key = h.sandbox.create_api_key(false);
    for i in 0..30 {
        // Two keys of one user share the per-endpoint counter.
        let key = if i % 2 == 0 {
            h.sandbox.api_key().to_owned()
        } else {
            other_key.clone()
        };
        let response = h
            .http
            .post(h.url("/v1/generate/image"))
            .header("X-API-Key", key)
            .json(&json!({"prompt": format!("frame {i}")}))
            .send()
            .await
            .expect("request");
        assert_eq!(response.status(), StatusCode::OK, "submit {i}");
        assert_eq!(response.headers()["ratelimit-limit"], "30");
    }
    let response = h
        .post_raw("/v1/generate/image", &json!({"prompt": "one too many"}))
        .await;
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    let headers = response.headers().clone();
    assert_eq!(headers["ratelimit-remaining"], "0");
    let reset: u64 = headers["ratelimit-reset"]
        .to_str()
        .expect("ascii")
        .parse()
        .expect("seconds");
    assert!((1..=60).contains(&reset));
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["status"], false);
    assert_eq!(body["retryAfter"], 60);
    assert!(body["error"].is_string() && body["message"].is_string());
    assert_eq!(h.sandbox.generation_count(), 30);

    // Status polling has no per-endpoint limiter.
    let (status, _) = h.get("/v1/models?type=image").await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn unfinished_jobs_resume_after_restart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let first = sandbox::start(config(dir.path(), 5.0)).expect("start");
    let key = first.api_key().to_owned();
    let http = reqwest::Client::new();
    let submit: Value = http
        .post(format!("{}/v1/generate/image", first.base_url()))
        .header("X-API-Key", &key)
        .json(&json!({"prompt": "a bridge that survives restarts"}))
        .send()
        .await
        .expect("submit")
        .json()
        .await
        .expect("json");
    let id = id_of(&submit);
    tokio::time::sleep(Duration::from_millis(300)).await;
    first.shutdown();

    let second = sandbox::start(config(dir.path(), 5.0)).expect("restart");
    assert_eq!(
        second.api_key(),
        key,
        "the generated key is persisted and reused"
    );
    let h = Harness {
        _dir: dir,
        sandbox: second,
        http,
    };
    let (_, status) = h.get(&format!("/v1/generate/{id}/status")).await;
    assert!(
        status["progress"].as_u64().expect("progress") > 0,
        "progress survived: {status}"
    );
    let done = h.wait_terminal(&id).await;
    assert_eq!(done["state"], "completed", "{done}");
    assert_eq!(h.sandbox.generation_count(), 1);
}

#[tokio::test]
async fn dropped_submit_response_still_creates_one_job() {
    let h = harness();
    h.sandbox.drop_next_submit_responses(1);
    let before = h.sandbox.generation_count();
    let outcome = h
        .http
        .post(h.url("/v1/generate/image"))
        .header("X-API-Key", h.sandbox.api_key())
        .json(&json!({"prompt": "lost in transit"}))
        .send()
        .await;
    let learned_id = match outcome {
        Ok(response) => response
            .json::<Value>()
            .await
            .ok()
            .and_then(|b| b["generation_id"].as_str().map(str::to_owned)),
        Err(_) => None,
    };
    assert!(learned_id.is_none(), "the client must not learn the id");
    assert_eq!(h.sandbox.generation_count(), before + 1);
    // Reconciling through the balance shows the reservation.
    assert!(h.sandbox.credits_available() < 1500.0);
    // The next submit is answered normally.
    let (status, body) = h
        .post("/v1/generate/image", &json!({"prompt": "second try"}))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(body["generation_id"].is_string());
}

/// Without the `h264` feature there is no encoder: a video job ends failed and says why.
#[cfg(not(feature = "h264"))]
#[tokio::test]
async fn without_h264_video_jobs_fail_with_the_reason() {
    let h = harness();
    let (status, submit) = h
        .post(
            "/v1/generate/video",
            &json!({"prompt": "waves breaking on a pier"}),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{submit}");
    let done = h.wait_terminal(&id_of(&submit)).await;
    assert_eq!(done["state"], "failed", "{done}");
    assert!(
        done.to_string()
            .contains("This build has no H.264 encoder (built without the h264 feature)"),
        "{done}"
    );
}

// ---- Projects: GET/PUT /v1/projects/:id, archive and unarchive (docs/SANDBOX.md) ----

impl Harness {
    /// One request with `key` (any method); the body is JSON (or a JSON string if not).
    async fn call(
        &self,
        key: &str,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut request = self
            .http
            .request(method, self.url(path))
            .header("X-API-Key", key);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.expect("request");
        let status = response.status();
        let text = response.text().await.expect("body");
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }

    async fn put(&self, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        let key = self.sandbox.api_key().to_owned();
        self.call(&key, reqwest::Method::PUT, path, body).await
    }

    async fn listed_ids(&self, path: &str) -> Vec<String> {
        let (status, body) = self.get(path).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body["projects"]
            .as_array()
            .expect("projects")
            .iter()
            .map(|p| p["id"].as_str().expect("id").to_owned())
            .collect()
    }
}

#[tokio::test]
async fn projects_get_rename_archive_and_unarchive() {
    let h = harness();
    let (_, created) = h.post("/v1/projects", &json!({"name": "Moodboards"})).await;
    let id = created["project"]["id"].as_str().expect("id").to_owned();
    assert_eq!(created["project"]["archived"], false);
    assert!(created["project"]["archived_at"].is_null());
    let path = format!("/v1/projects/{id}");

    let (status, one) = h.get(&path).await;
    assert_eq!(status, StatusCode::OK, "{one}");
    assert_eq!(one["success"], true);
    assert_eq!(one["project"]["name"], "Moodboards");
    assert_eq!(one["project"]["is_owner"], true);
    assert!(one["project"]["updated_at"].is_string());

    // Rename: trimmed, the same 1-100 rule and error as create. Not rate limited like
    // POST /projects (10/min): twelve renames in a row all succeed.
    for round in 0..12 {
        let name = format!("  Spring campaign {round}  ");
        let (status, renamed) = h.put(&path, Some(json!({"name": name}))).await;
        assert_eq!(status, StatusCode::OK, "{renamed}");
        assert_eq!(
            renamed["project"]["name"],
            format!("Spring campaign {round}")
        );
    }
    let (_, one) = h.get(&path).await;
    assert_eq!(one["project"]["name"], "Spring campaign 11");
    assert!(one["project"]["updated_at"].as_str() >= one["project"]["created_at"].as_str());
    for bad in [
        json!({"name": "   "}),
        json!({"name": "x".repeat(101)}),
        json!({}),
        json!({"name": 7}),
    ] {
        let (status, body) = h.put(&path, Some(bad.clone())).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad} → {body}");
        assert_eq!(body["code"], "INVALID_NAME", "{body}");
        assert_eq!(body["success"], false);
    }
    let (_, one) = h.get(&path).await;
    assert_eq!(
        one["project"]["name"], "Spring campaign 11",
        "a refused rename changes nothing"
    );

    // Archive: idempotent, hidden from the list unless asked for, still readable by id.
    let (status, archived) = h.put(&format!("{path}/archive"), None).await;
    assert_eq!(status, StatusCode::OK, "{archived}");
    assert_eq!(archived["project"]["archived"], true);
    let archived_at = archived["project"]["archived_at"]
        .as_str()
        .expect("archived_at")
        .to_owned();
    let (status, again) = h.put(&format!("{path}/archive"), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        again["project"]["archived_at"],
        archived_at.as_str(),
        "archiving twice keeps the first time"
    );
    assert!(!h.listed_ids("/v1/projects").await.contains(&id));
    assert!(
        h.listed_ids("/v1/projects?include_archived=true")
            .await
            .contains(&id)
    );
    let (status, body) = h.get("/v1/projects?include_archived=maybe").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (_, one) = h.get(&path).await;
    assert_eq!(one["project"]["archived"], true);

    // Work can still be routed into an archived project (the studio hides it from pickers).
    let (status, routed) = h
        .post(
            "/v1/generate/image",
            &json!({"prompt": "still works", "project_id": id}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{routed}");

    // Unarchive: back in the list; idempotent too.
    for _ in 0..2 {
        let (status, back) = h.put(&format!("{path}/unarchive"), None).await;
        assert_eq!(status, StatusCode::OK, "{back}");
        assert_eq!(back["project"]["archived"], false);
        assert!(back["project"]["archived_at"].is_null());
    }
    assert!(h.listed_ids("/v1/projects").await.contains(&id));

    // The default project cannot be archived (generations without project_id land there),
    // but can be renamed.
    let (_, list) = h.get("/v1/projects").await;
    let default_id = list["projects"]
        .as_array()
        .expect("projects")
        .iter()
        .find(|p| p["is_default"] == true)
        .and_then(|p| p["id"].as_str())
        .expect("default project")
        .to_owned();
    let (status, body) = h
        .put(&format!("/v1/projects/{default_id}/archive"), None)
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["code"], "DEFAULT_PROJECT");
    let (status, body) = h
        .put(
            &format!("/v1/projects/{default_id}"),
            Some(json!({"name": "Inbox"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["project"]["is_default"], true);
}

#[tokio::test]
async fn project_routes_answer_404_403_and_400_like_the_media_routes() {
    let h = harness();
    let (_, created) = h.post("/v1/projects", &json!({"name": "Private"})).await;
    let id = created["project"]["id"].as_str().expect("id").to_owned();
    let unknown = "0123456789abcdef01234567";
    for (method, suffix, request_body) in [
        (reqwest::Method::GET, "", None),
        (reqwest::Method::PUT, "", Some(json!({"name": "x"}))),
        (reqwest::Method::PUT, "/archive", None),
        (reqwest::Method::PUT, "/unarchive", None),
    ] {
        let key = h.sandbox.api_key().to_owned();
        let (status, body) = h
            .call(
                &key,
                method.clone(),
                &format!("/v1/projects/{unknown}{suffix}"),
                request_body.clone(),
            )
            .await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{method} {suffix}: {body}");
        assert_eq!(body["code"], "NOT_FOUND");
        let (status, body) = h
            .call(
                &key,
                method.clone(),
                &format!("/v1/projects/nope{suffix}"),
                request_body.clone(),
            )
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{method} {suffix}: {body}");
        assert_eq!(body["message"], "Invalid project ID format");
    }

    // Another account: the project does not exist for it (404), until it is a member;
    // a member reads it (is_owner false) but only the owner changes it (403).
    let ana = h
        .sandbox
        .create_api_key_for_user("ana@studio.test", false)
        .expect("ana's key");
    let path = format!("/v1/projects/{id}");
    let (status, _) = h.call(&ana, reqwest::Method::GET, &path, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = h
        .call(&ana, reqwest::Method::PUT, &format!("{path}/archive"), None)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(h.sandbox.add_project_member(&id, "ana@studio.test"));
    let (status, body) = h.call(&ana, reqwest::Method::GET, &path, None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["project"]["is_owner"], false);
    let (status, body) = h
        .call(
            &ana,
            reqwest::Method::PUT,
            &path,
            Some(json!({"name": "Mine now"})),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["code"], "FORBIDDEN");
    let (status, _) = h
        .call(&ana, reqwest::Method::PUT, &format!("{path}/archive"), None)
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (_, one) = h.get(&path).await;
    assert_eq!(one["project"]["name"], "Private");
    assert_eq!(one["project"]["archived"], false);

    // A read-only key cannot change a project.
    let read_only = h.sandbox.create_api_key(true);
    let (status, body) = h
        .call(
            &read_only,
            reqwest::Method::PUT,
            &format!("{path}/archive"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["code"], "API_KEY_READ_ONLY");
}

#[tokio::test]
async fn prompt_presets_list_by_type() {
    let h = harness();
    let (status, all) = h.get("/v1/presets").await;
    assert_eq!(status, StatusCode::OK, "{all}");
    assert_eq!(all["success"], true);
    let presets = all["presets"].as_array().expect("presets");
    assert_eq!(all["count"].as_u64(), Some(presets.len() as u64));
    for preset in presets {
        for field in ["id", "name", "type", "prompt", "description"] {
            assert!(
                preset[field].as_str().is_some_and(|v| !v.is_empty()),
                "{field}: {preset}"
            );
        }
    }
    for kind in ["image", "video", "music", "text_to_video", "shorts"] {
        let (status, body) = h.get(&format!("/v1/presets?type={kind}")).await;
        assert_eq!(status, StatusCode::OK);
        let list = body["presets"].as_array().expect("presets");
        assert!(!list.is_empty(), "{kind} has presets");
        assert!(list.iter().all(|p| p["type"] == kind), "{body}");
        if kind == "image" || kind == "video" {
            assert!(list.len() >= 12, "a dozen {kind} presets");
        }
    }
    let (status, body) = h.get("/v1/presets?type=cinematic").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["code"], "INVALID_TYPE");
    assert!(
        body["error"]
            .as_str()
            .expect("error")
            .contains("text_to_video")
    );
    // No per-endpoint limiter: well past any 10/min or 30/min group.
    for _ in 0..35 {
        let (status, _) = h.get("/v1/presets?type=image").await;
        assert_eq!(status, StatusCode::OK);
    }
}
