//! Every route that downloads a caller's URL refuses internal addresses in every spelling,
//! after resolution and after every redirect, with that route's own message; the sandbox's
//! own `/files/` URLs are read from storage (docs/SANDBOX.md, "Fetching callers' URLs").
//!
//! A sandbox of its own, whose only allowed internal host is a "remote" test server (it
//! redirects and serves a PNG); a second loopback server plays the internal service a
//! caller must not reach and counts every request it gets.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::{Query, State};
use axum::http::{StatusCode as AxumStatus, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use framewright::sandbox::{SandboxConfig, SandboxHandle, start};
use reqwest::StatusCode;
use serde_json::{Value, json};

const FAST: f64 = 50.0;
const POLL_TIMEOUT: Duration = Duration::from_secs(40);

struct World {
    sandbox: SandboxHandle,
    http: reqwest::Client,
    /// The allowed "remote" host: `/redirect?to=URL` (302), `/hop` (302 to `/image.png`),
    /// `/image.png`.
    remote: SocketAddr,
    /// The internal service: every request counts.
    victim: SocketAddr,
    victim_hits: Arc<AtomicUsize>,
    _dir: tempfile::TempDir,
}

fn world() -> &'static World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(|| {
        let remote_listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind remote");
        let victim_listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind victim");
        let remote = remote_listener.local_addr().expect("remote addr");
        let victim = victim_listener.local_addr().expect("victim addr");
        let victim_hits = Arc::new(AtomicUsize::new(0));
        serve_forever(remote_listener, victim_listener, victim_hits.clone());
        let dir = tempfile::tempdir().expect("temp dir");
        let mut config = SandboxConfig::new(dir.path().join("sandbox"));
        config.speed = FAST;
        config.allow_private_fetch_hosts = vec![remote];
        let sandbox = start(config).expect("sandbox starts");
        sandbox.set_credits(1_000_000.0);
        World {
            sandbox,
            // Tests run on separate runtimes: no pooled connection may outlive its runtime.
            http: reqwest::Client::builder()
                .pool_max_idle_per_host(0)
                .build()
                .expect("client"),
            remote,
            victim,
            victim_hits,
            _dir: dir,
        }
    })
}

fn png_bytes() -> Vec<u8> {
    let image = image::RgbImage::from_fn(48, 32, |x, y| {
        image::Rgb([(x * 5) as u8, 90, (y * 7) as u8])
    });
    let mut png = Vec::new();
    image::DynamicImage::ImageRgb8(image)
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .expect("png");
    png
}

/// Both servers on a thread of their own (each test has its own runtime).
fn serve_forever(
    remote: std::net::TcpListener,
    victim: std::net::TcpListener,
    victim_hits: Arc<AtomicUsize>,
) {
    std::thread::Builder::new()
        .name("callers-urls-servers".into())
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .expect("runtime");
            runtime.block_on(async move {
                remote.set_nonblocking(true).expect("nonblocking");
                victim.set_nonblocking(true).expect("nonblocking");
                let remote = tokio::net::TcpListener::from_std(remote).expect("remote");
                let victim = tokio::net::TcpListener::from_std(victim).expect("victim");
                let remote_app = Router::new()
                    .route("/redirect", get(redirect))
                    .route("/hop", get(|| async { found("/image.png") }))
                    .route("/image.png", get(|| async { png_response() }));
                let victim_app = Router::new()
                    .fallback(|State(hits): State<Arc<AtomicUsize>>| async move {
                        hits.fetch_add(1, Ordering::SeqCst);
                        png_response()
                    })
                    .with_state(victim_hits);
                let remote = axum::serve(remote, remote_app);
                let victim = axum::serve(victim, victim_app);
                let _ = tokio::join!(remote, victim);
            });
        })
        .expect("server thread");
}

fn found(location: &str) -> Response {
    (AxumStatus::FOUND, [(header::LOCATION, location.to_owned())]).into_response()
}

async fn redirect(Query(query): Query<HashMap<String, String>>) -> Response {
    found(query.get("to").map(String::as_str).unwrap_or("/"))
}

fn png_response() -> Response {
    ([(header::CONTENT_TYPE, "image/png")], png_bytes()).into_response()
}

/// A route that downloads a caller's URL, and how it says "refused".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Route {
    VideoEdit,
    ImageEdit,
    VideoFromImage,
    EditImage,
    Trim,
    Elements,
    FirstLastFrame,
    Lipsync,
}

impl Route {
    fn path(self) -> &'static str {
        match self {
            Route::VideoEdit => "/v1/edit/video",
            Route::ImageEdit => "/v1/generate/image-edit",
            Route::VideoFromImage => "/v1/generate/video/from-image",
            Route::EditImage => "/v1/edit/image",
            Route::Trim => "/v1/video/trim",
            Route::Elements => "/v1/generate/elements",
            Route::FirstLastFrame => "/v1/generate/first-last-frame",
            Route::Lipsync => "/v1/generate/lipsync",
        }
    }

    fn body(self, url: &str) -> Value {
        match self {
            Route::VideoEdit => json!({"video_url": url, "operation": "remove_watermark"}),
            Route::ImageEdit => json!({"prompt": "as a poster", "source_images": [url]}),
            Route::VideoFromImage => json!({"image_url": url, "prompt": "slow push in"}),
            Route::EditImage => json!({"image_url": url, "operation": "upscale"}),
            Route::Trim => json!({"video_url": url, "start_time": 0, "end_time": 1}),
            Route::Elements => json!({"prompt": "a duel", "reference_images": [url]}),
            Route::FirstLastFrame => json!({"first_frame_url": url, "last_frame_url": url}),
            Route::Lipsync => json!({"source_url": url, "text_prompt": "Hello there"}),
        }
    }

    /// The message of a refusal: the submit's 400 (trim, /edit/image) or the failed job's.
    fn message(self) -> &'static str {
        match self {
            Route::VideoEdit | Route::Trim => {
                "video_url points at an internal or private network address"
            }
            Route::ImageEdit => {
                "source_images entry points at an internal or private network address"
            }
            Route::VideoFromImage | Route::EditImage => {
                "image_url points at an internal or private network address"
            }
            Route::Elements => "reference_images points at an internal or private network address",
            Route::FirstLastFrame => {
                "first_frame_url points at an internal or private network address"
            }
            Route::Lipsync => "source_url points at an internal or private network address",
        }
    }

    /// `failure.code` of a job refused while downloading (generation routes).
    fn job_code(self) -> Option<&'static str> {
        match self {
            Route::VideoEdit | Route::Elements => Some("SOURCE_UNAVAILABLE"),
            Route::ImageEdit | Route::VideoFromImage => Some("SOURCE_IMAGE_UNAVAILABLE"),
            Route::EditImage => Some("INVALID_IMAGE_URL"),
            Route::Trim | Route::FirstLastFrame | Route::Lipsync => None,
        }
    }

    /// Routes that answer an internal address they can see without DNS at submit.
    fn refuses_literals_at_submit(self) -> bool {
        matches!(self, Route::EditImage | Route::Trim | Route::Elements)
            || self.downloads_at_submit()
    }

    /// Routes that download at submit (first-last frame, lip sync): every refusal, names
    /// and redirects included, is their submit's 400.
    fn downloads_at_submit(self) -> bool {
        matches!(self, Route::FirstLastFrame | Route::Lipsync)
    }
}

async fn call(method: reqwest::Method, path: &str, body: Option<&Value>) -> (StatusCode, Value) {
    let w = world();
    loop {
        let mut request = w
            .http
            .request(method.clone(), format!("{}{path}", w.sandbox.base_url()))
            .header("X-API-Key", w.sandbox.api_key());
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request.send().await.expect("request");
        let status = response.status();
        let text = response.text().await.expect("body");
        if status == StatusCode::TOO_MANY_REQUESTS {
            // Per-endpoint limits: move the sandbox clock past the window and retry.
            w.sandbox.advance_clock(61.0);
            continue;
        }
        return (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        );
    }
}

/// Where a submit ended up.
enum Outcome {
    /// Refused at submit.
    Rejected(StatusCode, Value),
    /// The job's terminal status body.
    Finished(Value),
}

async fn run(route: Route, url: &str) -> Outcome {
    let (status, answer) = call(reqwest::Method::POST, route.path(), Some(&route.body(url))).await;
    if !status.is_success() {
        return Outcome::Rejected(status, answer);
    }
    let (poll, id_field) = match route {
        Route::Trim => ("/v1/video/trim/", "jobId"),
        _ => ("/v1/generate/", "generation_id"),
    };
    let id = answer[id_field].as_str().expect("job id").to_owned();
    let path = match route {
        Route::Trim => format!("{poll}{id}"),
        _ => format!("{poll}{id}/status"),
    };
    let deadline = tokio::time::Instant::now() + POLL_TIMEOUT;
    loop {
        let (status, body) = call(reqwest::Method::GET, &path, None).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let state = match route {
            Route::Trim => body["status"].as_str(),
            _ => body["state"].as_str(),
        };
        if matches!(state, Some("completed" | "failed" | "cancelled")) {
            return Outcome::Finished(body);
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{url} never finished"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Why `url` was not refused with the route's message (and code, for generation jobs) at
/// the expected place, or None when it was.
async fn refusal_miss(route: Route, url: &str, at_submit: bool) -> Option<String> {
    let expected = route.message();
    match run(route, url).await {
        Outcome::Rejected(status, body) => {
            let as_the_route_refuses = at_submit
                && status == StatusCode::BAD_REQUEST
                && body["success"] == false
                && body["error"] == expected
                && (route != Route::EditImage || body["code"] == "INVALID_IMAGE_URL");
            (!as_the_route_refuses).then(|| format!("{url}: answered {status} {body}"))
        }
        Outcome::Finished(body) => {
            let state = if route == Route::Trim {
                &body["status"]
            } else {
                &body["state"]
            };
            let code_matches = route.job_code().is_none_or(|code| {
                body["failure"]["code"] == code && body["failure"]["message"] == expected
            });
            let as_the_route_refuses =
                !at_submit && state == "failed" && body["error"] == expected && code_matches;
            (!as_the_route_refuses).then(|| format!("{url}: job ended {body}"))
        }
    }
}

/// Spellings of internal addresses, each with whether a route that checks literals at
/// submit sees it there (a name needs DNS, a redirect a download).
fn internal_urls() -> Vec<(String, bool)> {
    let w = world();
    let port = w.victim.port();
    let victim = format!("http://127.0.0.1:{port}/v.png");
    let mut urls = vec![
        (format!("http://127.1:{port}/v.png"), true),
        (format!("http://2130706433:{port}/v.png"), true),
        (format!("http://0x7f000001:{port}/v.png"), true),
        (format!("http://[::ffff:127.0.0.1]:{port}/v.png"), true),
        (format!("http://[::1]:{port}/v.png"), true),
        (format!("http://localhost:{port}/v.png"), true),
        (format!("http://localhost.:{port}/v.png"), true),
        ("http://10.0.0.1/v.png".to_owned(), true),
        ("http://169.254.169.254/latest/meta-data".to_owned(), true),
        (format!("http://0.0.0.0:{port}/v.png"), true),
        // The allowed remote host redirects to the internal service.
        (format!("http://{}/redirect?to={victim}", w.remote), false),
        (
            format!(
                "http://{}/redirect?to=http://2130706433:{port}/v.png",
                w.remote
            ),
            false,
        ),
    ];
    if let Some(name) = machine_name_on_loopback() {
        // Not a localhost name: only resolution shows it is this machine.
        urls.push((format!("http://{name}:{port}/v.png"), false));
    }
    urls
}

/// The machine's own name when it resolves to loopback only (as /etc/hosts or
/// nss-myhostname usually make it): a name no route can judge without DNS. None elsewhere.
fn machine_name_on_loopback() -> Option<String> {
    use std::net::ToSocketAddrs;
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").ok()?;
    let name = name.trim();
    let addrs: Vec<SocketAddr> = (name, 80).to_socket_addrs().ok()?.collect();
    let on_loopback = !addrs.is_empty() && addrs.iter().all(|addr| addr.ip().is_loopback());
    on_loopback.then(|| name.to_owned())
}

async fn assert_route_refuses_every_spelling(route: Route) {
    let urls = internal_urls();
    let tried = urls.len();
    let checks = urls.into_iter().map(|(url, literal)| async move {
        let at_submit =
            route.downloads_at_submit() || (literal && route.refuses_literals_at_submit());
        refusal_miss(route, &url, at_submit).await
    });
    let misses: Vec<String> = futures_util::future::join_all(checks)
        .await
        .into_iter()
        .flatten()
        .collect();
    assert!(
        misses.is_empty(),
        "{route:?}: {} of {tried} not refused as the route refuses:\n{}",
        misses.len(),
        misses.join("\n")
    );
    // The tests of all eight routes share the internal service; none may have reached it.
    assert_eq!(
        world().victim_hits.load(Ordering::SeqCst),
        0,
        "a route reached the internal service"
    );
}

#[tokio::test]
async fn video_edit_refuses_internal_addresses_in_every_spelling_and_after_redirects() {
    assert_route_refuses_every_spelling(Route::VideoEdit).await;
}

#[tokio::test]
async fn image_edit_refuses_internal_addresses_in_every_spelling_and_after_redirects() {
    assert_route_refuses_every_spelling(Route::ImageEdit).await;
}

#[tokio::test]
async fn video_from_image_refuses_internal_addresses_in_every_spelling_and_after_redirects() {
    assert_route_refuses_every_spelling(Route::VideoFromImage).await;
}

#[tokio::test]
async fn edit_image_refuses_internal_addresses_in_every_spelling_and_after_redirects() {
    assert_route_refuses_every_spelling(Route::EditImage).await;
}

#[tokio::test]
async fn trim_refuses_internal_addresses_in_every_spelling_and_after_redirects() {
    assert_route_refuses_every_spelling(Route::Trim).await;
}

/// The test opt-in is exact: the allowed host is fetched (its redirect to itself followed).
#[tokio::test]
async fn elements_refuses_internal_addresses_in_every_spelling_and_after_redirects() {
    assert_route_refuses_every_spelling(Route::Elements).await;
}

#[tokio::test]
async fn first_last_frame_refuses_internal_addresses_in_every_spelling_and_after_redirects() {
    assert_route_refuses_every_spelling(Route::FirstLastFrame).await;
}

#[tokio::test]
async fn lipsync_refuses_internal_addresses_in_every_spelling_and_after_redirects() {
    assert_route_refuses_every_spelling(Route::Lipsync).await;
}

#[tokio::test]
async fn an_allowed_remote_host_is_fetched_and_its_redirects_followed() {
    let url = format!("http://{}/hop", world().remote);
    match run(Route::ImageEdit, &url).await {
        Outcome::Finished(body) => assert_eq!(body["state"], "completed", "{body}"),
        Outcome::Rejected(status, body) => panic!("{status} {body}"),
    }
}

/// An upload's own `/files/` URL is read from storage: no request reaches `/files`.
#[tokio::test]
async fn the_sandboxs_own_file_urls_are_read_from_storage_without_http() {
    let w = world();
    let media = super::service_support::upload_png(
        &w.http,
        w.sandbox.base_url(),
        w.sandbox.api_key(),
        "own.png",
        png_bytes(),
    )
    .await;
    let url = media["url"].as_str().expect("url").to_owned();
    let file_path = url
        .split_once("/files/")
        .expect("a /files/ URL")
        .1
        .to_owned();
    for route in [Route::ImageEdit, Route::EditImage] {
        match run(route, &url).await {
            Outcome::Finished(body) => assert_eq!(body["state"], "completed", "{route:?}: {body}"),
            Outcome::Rejected(status, body) => panic!("{route:?}: {status} {body}"),
        }
    }
    let fetched_over_http = w
        .sandbox
        .file_requests()
        .iter()
        .any(|request| request.path.contains(&file_path));
    assert!(!fetched_over_http, "{url} was fetched over HTTP");
}
