//! Every client route against a real sandbox on loopback.

use framewright::api::{
    ApiClient, ApiError, ClientConfig, GenerationKind, GenerationRequest, GenerationSpec, JobState,
    StatusResponse,
};
use framewright::sandbox::{SandboxConfig, SandboxHandle, start};
use std::path::Path;
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// A sandbox in its own temp dir. Field order matters: the sandbox stops before the dir goes.
struct Env {
    sandbox: SandboxHandle,
    dir: TempDir,
}

fn env() -> Env {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut config = SandboxConfig::new(dir.path().join("sandbox"));
    config.speed = 20.0;
    let sandbox = start(config).expect("sandbox starts");
    Env { sandbox, dir }
}

fn client_with_key(env: &Env, key: &str) -> ApiClient {
    ApiClient::new(ClientConfig {
        base_url: env.sandbox.base_url().to_owned(),
        api_key: key.to_owned(),
        request_timeout_secs: 20,
    })
    .expect("client")
}

fn client(env: &Env) -> ApiClient {
    client_with_key(env, env.sandbox.api_key())
}

fn image_spec(prompt: &str, model: Option<&str>) -> GenerationSpec {
    GenerationSpec {
        catalog: None,
        kind: GenerationKind::Image,
        request: GenerationRequest {
            prompt: prompt.to_owned(),
            model: model.map(str::to_owned),
            ..GenerationRequest::default()
        },
        video: None,
        audio: None,
    }
}

/// Poll at the service's hint until the job is terminal (generous cap against hangs).
async fn poll_until_terminal(
    client: &ApiClient,
    generation_id: &str,
    hint_secs: f64,
) -> StatusResponse {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        tokio::time::sleep(Duration::from_secs_f64(hint_secs)).await;
        let status = client.status(generation_id).await.expect("status");
        if status.state.is_terminal() {
            return status;
        }
        assert!(
            Instant::now() < deadline,
            "job {generation_id} never finished"
        );
    }
}

fn write_png(path: &Path, width: u32, height: u32) {
    let image = image::RgbaImage::from_pixel(width, height, image::Rgba([20, 120, 200, 255]));
    image.save(path).expect("write png");
}

#[tokio::test]
async fn catalog_filters_and_aliases() {
    let env = env();
    let client = client(&env);
    let all = client.list_models(None).await.expect("models");
    assert!(all.len() > 10);
    let images = client
        .list_models(Some("text_to_img"))
        .await
        .expect("text_to_img");
    assert!(!images.is_empty());
    assert!(images.iter().all(|m| m.has_type("text_to_img")));
    let alias: Vec<String> = client
        .list_models(Some("image"))
        .await
        .expect("alias image")
        .into_iter()
        .map(|m| m.identifier)
        .collect();
    let raw: Vec<String> = images.iter().map(|m| m.identifier.clone()).collect();
    assert_eq!(alias, raw, "alias `image` = text_to_img");
    let lipsync = client.list_models(Some("lipsync")).await.expect("lipsync");
    assert!(lipsync.iter().any(|m| m.has_type("lipsync-image")));
    assert!(lipsync.iter().any(|m| m.has_type("lipsync-video")));
    let unknown = client
        .list_models(Some("no_such_type"))
        .await
        .expect("unknown type");
    assert!(
        unknown.is_empty(),
        "unknown type gives an empty list, not an error"
    );
    let flux = all
        .iter()
        .find(|m| m.identifier == "fal-ai/flux/schnell")
        .expect("flux schnell in the catalog");
    assert_eq!(flux.credit, Some(2.0));
}

#[tokio::test]
async fn credits_and_projects() {
    let env = env();
    let client = client(&env);
    env.sandbox.set_credits(750.0);
    let credits = client.credits().await.expect("credits");
    assert_eq!(credits.total, Some(750.0));
    assert_eq!(credits.spendable(), Some(750.0));

    let projects = client.projects().await.expect("projects");
    assert!(
        projects.iter().any(|p| p.is_default == Some(true)),
        "{projects:?}"
    );
    let created = client
        .create_project("Storyboards")
        .await
        .expect("create project");
    assert_eq!(created.name, "Storyboards");
    assert!(!created.id.is_empty());
    let projects = client.projects().await.expect("projects");
    assert!(projects.iter().any(|p| p.id == created.id));
}

#[tokio::test]
async fn image_job_completes_and_output_downloads() {
    let env = env();
    let client = client(&env);
    let answer = client
        .submit(&image_spec(
            "a lighthouse at dusk",
            Some("fal-ai/flux/schnell"),
        ))
        .await
        .expect("submit");
    let id = answer.generation_id.clone().expect("generation id");
    assert_eq!(answer.kind.as_deref(), Some("image"));
    assert_eq!(answer.poll_interval_hint, Some(3.0));
    assert_eq!(answer.credits_charged, Some(2.0));

    let status = poll_until_terminal(&client, &id, 3.0).await;
    assert_eq!(status.state, JobState::Completed);
    assert_eq!(status.progress, Some(100.0));
    assert_eq!(status.credits_used, Some(2.0));
    assert!(!status.credits_breakdown.is_empty());
    let result = status.result.expect("result");
    assert_eq!(result.model.as_deref(), Some("fal-ai/flux/schnell"));
    assert!(result.created_at.is_some());
    let url = result.urls.first().expect("an output url").clone();

    // Output URLs are fetched verbatim without the key.
    let bytes = client.fetch_output(&url).await.expect("fetch output");
    let decoded = framewright::media::decode_image(&bytes, 64).expect("decodes");
    assert!(decoded.width <= 64 && decoded.height <= 64);
    let dest = env.dir.path().join("saved").join("out.png");
    std::fs::create_dir_all(dest.parent().expect("parent")).expect("dir");
    client
        .download_output_to(&url, &dest)
        .await
        .expect("download");
    assert_eq!(std::fs::read(&dest).expect("saved file"), bytes);
    let leftovers: Vec<_> = std::fs::read_dir(dest.parent().expect("parent"))
        .expect("list")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".part"))
        .collect();
    assert!(leftovers.is_empty(), "temp file renamed away");

    // Cancelling a finished job: 409 CANNOT_CANCEL.
    let error = client
        .cancel(GenerationKind::Image, &id)
        .await
        .expect_err("already finished");
    assert_eq!(error.status(), Some(409));
    assert_eq!(error.code(), Some("CANNOT_CANCEL"));
}

#[tokio::test]
async fn image_edit_with_uploaded_source() {
    let env = env();
    let client = client(&env);
    let source = env.dir.path().join("source.png");
    write_png(&source, 96, 64);
    let media = client.upload_file(&source, None).await.expect("upload");
    assert!(media.url.starts_with("http"), "{}", media.url);
    assert_eq!(media.media_type.as_deref(), Some("image"));

    let spec = GenerationSpec {
        catalog: None,
        kind: GenerationKind::ImageEdit,
        request: GenerationRequest {
            prompt: "make the sky stormy".to_owned(),
            source_images: vec![media.url.clone()],
            ..GenerationRequest::default()
        },
        video: None,
        audio: None,
    };
    // 201 on this route; any 2xx with a handle is a success.
    let answer = client.submit(&spec).await.expect("image-edit submit");
    assert_eq!(answer.kind.as_deref(), Some("image_edit"));
    assert_eq!(answer.model.as_deref(), Some("auto"));
    let id = answer.generation_id.expect("generation id");
    let status = poll_until_terminal(&client, &id, answer.poll_interval_hint.unwrap_or(3.0)).await;
    assert_eq!(status.state, JobState::Completed);
    assert!(status.result.is_some_and(|r| !r.urls.is_empty()));

    // A missing file is a local error, not a network one.
    let missing = client
        .upload_file(&env.dir.path().join("nope.png"), None)
        .await
        .expect_err("missing file");
    assert!(matches!(missing, ApiError::Io(_)), "{missing:?}");
}

#[tokio::test]
async fn cancel_a_running_job() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut config = SandboxConfig::new(dir.path().join("sandbox"));
    config.speed = 0.5; // slow enough to still be running
    let sandbox = start(config).expect("sandbox");
    let client = ApiClient::new(ClientConfig {
        base_url: sandbox.base_url().to_owned(),
        api_key: sandbox.api_key().to_owned(),
        request_timeout_secs: 20,
    })
    .expect("client");
    let id = client
        .submit(&image_spec("a slow painting", None))
        .await
        .expect("submit")
        .generation_id
        .expect("id");
    client
        .cancel(GenerationKind::Image, &id)
        .await
        .expect("cancel a running job");
    let status = client.status(&id).await.expect("status");
    assert_eq!(status.state, JobState::Cancelled);
    assert!(status.result.is_none() && status.error.is_none());
    drop(sandbox);
}

#[tokio::test]
async fn error_shapes() {
    let env = env();

    // 401: `{message, tokenExpired: false}`, no code.
    let wrong = client_with_key(&env, "kolbo_live_wrong");
    let error = wrong.credits().await.expect_err("wrong key");
    assert_eq!(error.status(), Some(401));
    assert_eq!(error.code(), None);
    assert!(!error.to_string().is_empty());

    // 403 API_KEY_READ_ONLY on a mutating request.
    let read_only = client_with_key(&env, &env.sandbox.create_api_key(true));
    read_only.credits().await.expect("a read-only key can read");
    let error = read_only
        .submit(&image_spec("a cat", None))
        .await
        .expect_err("read-only key cannot submit");
    assert_eq!(error.status(), Some(403));
    assert_eq!(error.code(), Some("API_KEY_READ_ONLY"));

    let client = client(&env);
    // 400 INVALID_PROMPT.
    let error = client
        .submit(&image_spec("", None))
        .await
        .expect_err("empty prompt");
    assert_eq!(error.status(), Some(400));
    assert_eq!(error.code(), Some("INVALID_PROMPT"));
    // MODEL_NOT_FOUND.
    let error = client
        .submit(&image_spec("a cat", Some("no-such/model")))
        .await
        .expect_err("unknown model");
    assert_eq!(error.code(), Some("MODEL_NOT_FOUND"));
    assert!(!error.is_transient());
    // Unknown generation: 404.
    let error = client
        .status("0123456789abcdef01234567")
        .await
        .expect_err("unknown generation");
    assert_eq!(error.status(), Some(404));

    // 403 INSUFFICIENT_CREDITS; the message states balance and minimum.
    env.sandbox.set_credits(0.0);
    let error = client
        .submit(&image_spec("a cat", None))
        .await
        .expect_err("no credits");
    assert_eq!(error.status(), Some(403));
    assert_eq!(error.code(), Some("INSUFFICIENT_CREDITS"));
    assert!(error.to_string().contains("INSUFFICIENT_CREDITS"));
    assert_eq!(env.sandbox.generation_count(), 0);
}

#[tokio::test]
async fn image_rate_limit_gives_retry_after() {
    let env = env();
    env.sandbox.set_credits(100_000.0);
    let client = client(&env);
    let spec = image_spec("a grid of tiny stars", Some("fal-ai/flux/schnell"));
    let mut limited = None;
    for attempt in 1..=31 {
        match client.submit(&spec).await {
            Ok(answer) => assert!(answer.generation_id.is_some()),
            Err(error) => {
                limited = Some((attempt, error));
                break;
            }
        }
    }
    let (attempt, error) = limited.expect("the 31st image submit within a minute is limited");
    assert_eq!(attempt, 31, "30 per minute are allowed: {error}");
    assert_eq!(error.status(), Some(429));
    assert!(error.is_rate_limited() && error.is_transient());
    let retry_after = error.retry_after_secs().expect("retry after");
    assert!(retry_after > 0.0 && retry_after <= 60.0, "{retry_after}");
}

#[tokio::test]
async fn failed_job_carries_failure_object() {
    let env = env();
    env.sandbox.fail_next_jobs(1, false);
    let client = client(&env);
    let id = client
        .submit(&image_spec("something that will be refused", None))
        .await
        .expect("submit")
        .generation_id
        .expect("id");
    let status = poll_until_terminal(&client, &id, 3.0).await;
    assert_eq!(status.state, JobState::Failed);
    let failure = status.failure.clone().expect("failure object");
    assert_eq!(failure.retryable, Some(false));
    assert!(!failure.message.is_empty());
    assert_eq!(status.failure_message(), Some(failure.message));
    assert!(status.error.is_some());
    assert!(status.result.is_none());
}

#[tokio::test]
async fn lost_submit_answer_is_outcome_unknown() {
    let env = env();
    env.sandbox.drop_next_submit_responses(1);
    let client = client(&env);
    let error = client
        .submit(&image_spec("a lost answer", None))
        .await
        .expect_err("the answer is dropped");
    assert!(error.outcome_unknown(), "{error:?}");
    assert_eq!(
        env.sandbox.generation_count(),
        1,
        "the job was created anyway"
    );
}

#[tokio::test]
async fn nothing_listening_is_connect_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    drop(listener);
    let client = ApiClient::new(ClientConfig {
        base_url: format!("http://127.0.0.1:{port}/api"),
        api_key: "key".into(),
        request_timeout_secs: 5,
    })
    .expect("client");
    let error = client
        .submit(&image_spec("never sent", None))
        .await
        .expect_err("refused");
    assert!(matches!(error, ApiError::Connect(_)), "{error:?}");
    assert!(!error.outcome_unknown());
}

/// Output URLs never see the key; service routes always carry it in X-API-Key.
#[tokio::test]
async fn key_goes_only_to_the_service() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let server = tokio::spawn(async move {
        let mut requests = Vec::new();
        for _ in 0..2 {
            let (mut socket, _) = listener.accept().await.expect("accept");
            let mut buffer = vec![0u8; 8192];
            let n = socket.read(&mut buffer).await.expect("read");
            requests.push(String::from_utf8_lossy(&buffer[..n]).to_ascii_lowercase());
            let body = br#"{"success":true,"credits":{"total":5}}"#;
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            );
            socket.write_all(head.as_bytes()).await.expect("write");
            socket.write_all(body).await.expect("write");
        }
        requests
    });
    let client = ApiClient::new(ClientConfig {
        base_url: format!("http://127.0.0.1:{port}/api"),
        api_key: "kolbo_live_secret".into(),
        request_timeout_secs: 5,
    })
    .expect("client");
    client.credits().await.expect("credits");
    client
        .fetch_output(&format!("http://127.0.0.1:{port}/files/out.png"))
        .await
        .expect("output");
    let requests = server.await.expect("server");
    assert!(
        requests[0].contains("x-api-key: kolbo_live_secret"),
        "{}",
        requests[0]
    );
    assert!(!requests[1].contains("x-api-key"), "{}", requests[1]);
    assert!(!requests[1].contains("kolbo_live_secret"));
}

#[tokio::test]
async fn projects_rename_archive_and_prompt_presets() {
    use framewright::api::PromptPresetType;
    let env = env();
    let client = client(&env);
    let project = client.create_project("Lookbook").await.expect("created");
    assert!(!project.archived);
    let renamed = client
        .rename_project(&project.id, "Lookbook 2026")
        .await
        .expect("renamed");
    assert_eq!(renamed.name, "Lookbook 2026");
    let archived = client
        .set_project_archived(&project.id, true)
        .await
        .expect("archived");
    assert!(archived.archived);
    // The studio's list holds archived projects too, flagged, so pickers can hide them.
    let listed = client.projects().await.expect("projects");
    let found = listed.iter().find(|p| p.id == project.id).expect("listed");
    assert!(found.archived && found.name == "Lookbook 2026");
    assert!(
        listed
            .iter()
            .any(|p| p.is_default == Some(true) && !p.archived)
    );
    let back = client
        .set_project_archived(&project.id, false)
        .await
        .expect("unarchived");
    assert!(!back.archived);
    assert_eq!(
        client.project(&project.id).await.expect("one").name,
        "Lookbook 2026"
    );
    match client.rename_project(&project.id, "   ").await {
        Err(ApiError::Status {
            status: 400, code, ..
        }) => {
            assert_eq!(code.as_deref(), Some("INVALID_NAME"))
        }
        other => panic!("a blank name is refused: {other:?}"),
    }

    let images = client
        .prompt_presets(PromptPresetType::Image)
        .await
        .expect("presets");
    assert!(images.len() >= 12);
    assert!(
        images
            .iter()
            .all(|p| p.kind.as_deref() == Some("image") && p.prompt.is_some())
    );
    assert!(
        images
            .iter()
            .any(|p| p.label() == "Product shot on seamless")
    );
    let videos = client
        .prompt_presets(PromptPresetType::Video)
        .await
        .expect("presets");
    assert!(
        videos
            .iter()
            .any(|p| p.label() == "Drone establishing shot")
    );
}
