//! Garbage bodies for every write route of the sandbox over real loopback HTTP (one
//! sandbox for the binary): valid bodies mutated as JSON and as bytes, wrong content
//! types, random bytes, truncated and damaged multipart, awkward ids in the path, and
//! the read routes' query strings (paging numbers past every integer type), as the
//! default user, directory users and unknown keys. Every answer must be a well-formed HTTP
//! answer with a 2xx or 4xx status (a 5xx means a handler failed; a dropped connection is
//! a failure too), and the sandbox must still answer a normal request afterwards.
//!
//! Most write routes are rate limited per user (10 to 120 a minute), so after the first
//! requests of each user many answers are 429s; rotating five users' keys keeps a few
//! hundred requests reaching the handlers themselves. Replay one request with the
//! `FUZZ_SEED=… FUZZ_CASE=…` the report prints.

use crate::fuzz_support;

use framewright::sandbox::{self, SandboxConfig, SandboxHandle};
use fuzz_support::{Rng, case_count, mutate, mutate_json, seed_for};
use reqwest::Method;
use serde_json::{Value, json};
use std::time::Duration;

/// Requests sent: thousands, not tens of thousands, to stay fast.
const DEFAULT_CASES: u64 = 4_000;
/// A request that gets no answer in this long counts as dropped.
const ANSWER_TIMEOUT_SECS: u64 = 30;
const BOUNDARY: &str = "fuzzboundary7MA4YWxkTrZu0gW";

/// What a route takes.
#[derive(Clone)]
enum Body {
    Json(Value),
    Multipart,
    /// A read route: the query string is what gets mutated.
    Query(String),
}

#[derive(Clone)]
struct Route {
    method: Method,
    /// `{id}` is replaced by `id` (or an awkward id).
    path: &'static str,
    id: String,
    body: Body,
}

/// Ids of real things on the sandbox, so valid bodies reach the handlers' deeper checks.
struct Fixtures {
    project_id: String,
    media_ids: Vec<String>,
    folder_id: String,
    palette_id: String,
    ticket_token: String,
    file_url: String,
    doc_id: String,
}

async fn call(
    http: &reqwest::Client,
    sandbox: &SandboxHandle,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> Value {
    let mut request = http
        .request(method, format!("{}{path}", sandbox.base_url()))
        .header("X-API-Key", sandbox.api_key());
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.expect("fixture request");
    let status = response.status();
    let value: Value = response.json().await.unwrap_or(Value::Null);
    assert!(status.is_success(), "fixture {path}: {status} {value}");
    value
}

async fn fixtures(http: &reqwest::Client, sandbox: &SandboxHandle) -> Fixtures {
    let projects = call(http, sandbox, Method::GET, "/v1/projects", None).await;
    let project_id = projects["projects"][0]["id"]
        .as_str()
        .or_else(|| projects["projects"][0]["_id"].as_str())
        .expect("a project")
        .to_owned();
    let media = call(http, sandbox, Method::GET, "/v1/media", None).await;
    let media_ids: Vec<String> = media["media"]
        .as_array()
        .expect("media list")
        .iter()
        .filter_map(|m| m["id"].as_str().map(str::to_owned))
        .collect();
    assert!(!media_ids.is_empty(), "seeded media");
    let file_url = media["media"][0]["url"].as_str().unwrap_or("").to_owned();
    let folder = call(
        http,
        sandbox,
        Method::POST,
        "/v1/media/folders",
        Some(json!({"name": "Fuzz folder"})),
    )
    .await;
    let folder_id = folder["folder"]["_id"]
        .as_str()
        .or_else(|| folder["folder"]["id"].as_str())
        .expect("folder id")
        .to_owned();
    let palette = call(
        http,
        sandbox,
        Method::POST,
        "/v1/color-palettes",
        Some(json!({"name": "Fuzz", "colors": [{"hex": "#112233"}]})),
    )
    .await;
    let palette_id = palette["colorPalette"]["_id"]
        .as_str()
        .or_else(|| palette["colorPalette"]["id"].as_str())
        .or_else(|| palette["palette"]["_id"].as_str())
        .unwrap_or("000000000000000000000000")
        .to_owned();
    let ticket = call(
        http,
        sandbox,
        Method::POST,
        "/v1/media/upload-ticket",
        Some(json!({})),
    )
    .await;
    let ticket_token = ticket["token"]
        .as_str()
        .or_else(|| ticket["data"]["token"].as_str())
        .unwrap_or("no-token")
        .to_owned();
    let doc = call(
        http,
        sandbox,
        Method::POST,
        "/v1/docs",
        Some(json!({"title": "Fuzz doc", "content": "<p>x</p>"})),
    )
    .await;
    let doc_id = doc["doc"]["id"].as_str().expect("doc id").to_owned();
    Fixtures {
        project_id,
        media_ids,
        folder_id,
        palette_id,
        ticket_token,
        file_url,
        doc_id,
    }
}

fn routes(f: &Fixtures) -> Vec<Route> {
    let media = &f.media_ids;
    let one_media = media[0].clone();
    let project = f.project_id.clone();
    let route = |method: Method, path: &'static str, id: &str, body: Body| Route {
        method,
        path,
        id: id.to_owned(),
        body,
    };
    let j = Body::Json;
    vec![
        route(
            Method::POST,
            "/v1/projects",
            "",
            j(json!({"name": "Fuzz project"})),
        ),
        route(
            Method::GET,
            "/v1/media",
            "",
            Body::Query(format!(
                "page=2&page_size=50&type=image&category=ai&source_type=generated\
                 &sort=newest&search=cat&include_deleted=true&project_id={project}"
            )),
        ),
        route(
            Method::GET,
            "/v1/media",
            "",
            Body::Query(format!("folder_id={}&page=1&pageSize=10", f.folder_id)),
        ),
        route(
            Method::GET,
            "/v1/media/stats",
            "",
            Body::Query(format!("project_id={project}")),
        ),
        route(
            Method::GET,
            "/v1/color-palettes",
            "",
            Body::Query(format!("page=1&limit=20&projectId={project}")),
        ),
        route(
            Method::GET,
            "/v1/models",
            "",
            Body::Query("type=image".to_owned()),
        ),
        route(
            Method::GET,
            "/v1/generate/{id}/status",
            "gen_0",
            Body::Query(String::new()),
        ),
        route(
            Method::GET,
            "/v1/media/{id}",
            &one_media,
            Body::Query(String::new()),
        ),
        route(
            Method::POST,
            "/v1/generate/image",
            "",
            j(
                json!({"prompt": "a lighthouse at dusk", "aspect_ratio": "16:9",
                     "model": "fal-ai/flux/schnell", "num_images": 1, "project_id": project}),
            ),
        ),
        route(
            Method::POST,
            "/v1/generate/image-edit",
            "",
            j(json!({"prompt": "ink wash", "source_images": [f.file_url],
                     "project_id": project})),
        ),
        route(
            Method::POST,
            "/v1/generate/music",
            "",
            j(
                json!({"prompt": "a summer song", "style": "pop", "duration": 30,
                     "vocal_gender": "f", "instrumental": false, "project_id": project}),
            ),
        ),
        route(
            Method::POST,
            "/v1/generate/speech",
            "",
            j(json!({"text": "Hello there.", "voice": "Rachel", "language": "en-US"})),
        ),
        route(
            Method::POST,
            "/v1/generate/sound",
            "",
            j(json!({"prompt": "a door knock", "duration": 1.5, "sound_loop": true})),
        ),
        route(
            Method::POST,
            "/v1/generate/3d",
            "",
            j(
                json!({"mode": "single", "prompt": "a teapot", "reference_images": [f.file_url],
                     "target_polycount": 2000, "enable_pbr": true, "project_id": project}),
            ),
        ),
        route(
            Method::POST,
            "/v1/transcribe",
            "",
            j(
                json!({"audio_url": f.file_url, "words_per_line": 6, "lines_per_subtitle": 2,
                     "diarize": true, "generate_srt": true}),
            ),
        ),
        route(
            Method::GET,
            "/v1/voices",
            "",
            Body::Query("provider=elevenLabs&language=en&gender=female".to_owned()),
        ),
        route(
            Method::POST,
            "/v1/generate/{id}/cancel",
            "gen_0",
            j(json!({})),
        ),
        route(Method::POST, "/v1/media/upload", "", Body::Multipart),
        route(
            Method::POST,
            "/upload-tickets/{id}",
            &f.ticket_token,
            Body::Multipart,
        ),
        route(
            Method::POST,
            "/v1/media/upload-ticket",
            "",
            j(json!({"project_id": project})),
        ),
        route(
            Method::POST,
            "/v1/media/folders",
            "",
            j(
                json!({"name": "F", "description": "d", "color": "#ff0000", "icon": "star",
                     "project_id": project}),
            ),
        ),
        route(
            Method::PUT,
            "/v1/media/folders/{id}",
            &f.folder_id,
            j(json!({"name": "G", "description": "e", "color": "#00ff00"})),
        ),
        route(
            Method::POST,
            "/v1/media/folders/{id}/items",
            &f.folder_id,
            j(json!({"media_ids": media})),
        ),
        route(
            Method::DELETE,
            "/v1/media/folders/{id}/items",
            &f.folder_id,
            j(json!({"media_ids": [one_media]})),
        ),
        route(
            Method::POST,
            "/v1/media/folders/{id}/share",
            &f.folder_id,
            j(json!({"emails": ["ana@studio.test", "nobody@studio.test"]})),
        ),
        route(
            Method::POST,
            "/v1/media/folders/{id}/move-contents",
            &f.folder_id,
            j(json!({"project_id": project})),
        ),
        route(
            Method::POST,
            "/v1/media/bulk/delete",
            "",
            j(json!({"media_ids": [media[0]]})),
        ),
        route(
            Method::POST,
            "/v1/media/bulk/restore",
            "",
            j(json!({"media_ids": [media[0]]})),
        ),
        route(
            Method::POST,
            "/v1/media/bulk/permanent",
            "",
            j(json!({"media_ids": ["000000000000000000000000"]})),
        ),
        route(
            Method::POST,
            "/v1/media/bulk/move",
            "",
            j(json!({"media_ids": [media[0]], "project_id": project})),
        ),
        route(
            Method::POST,
            "/v1/media/{id}/restore",
            &one_media,
            j(json!({})),
        ),
        route(
            Method::PATCH,
            "/v1/media/{id}/project",
            &one_media,
            j(json!({"project_id": project})),
        ),
        route(
            Method::POST,
            "/v1/media/{id}/favorite",
            &one_media,
            j(json!({})),
        ),
        route(
            Method::POST,
            "/v1/color-palettes",
            "",
            j(
                json!({"name": "Dusk", "colors": [{"hex": "#112233", "name": "Navy"},
                     {"hex": "#FFCC00"}], "source_image_urls": [f.file_url]}),
            ),
        ),
        route(
            Method::PUT,
            "/v1/color-palettes/{id}",
            &f.palette_id,
            j(json!({"name": "Dawn", "colors": [{"hex": "#445566"}]})),
        ),
        route(
            Method::POST,
            "/v1/color-palettes/analyze",
            "",
            j(json!({"image_urls": [f.file_url]})),
        ),
        route(
            Method::POST,
            "/v1/color-palettes/deactivate",
            "",
            j(json!({"projectId": project})),
        ),
        route(
            Method::POST,
            "/v1/color-palettes/{id}/activate",
            &f.palette_id,
            j(json!({"projectId": project})),
        ),
        route(
            Method::GET,
            "/v1/docs",
            "",
            Body::Query(format!("project_id={project}&page=1&limit=20")),
        ),
        route(
            Method::POST,
            "/v1/docs",
            "",
            j(
                json!({"title": "Notes", "content": "<h1>Hi</h1><p><a href=\"https://x.test\">x</a></p>",
                "project_id": project}),
            ),
        ),
        route(
            Method::PUT,
            "/v1/docs/{id}",
            &f.doc_id,
            j(json!({"title": "Renamed", "content": "<ul><li>one</li></ul><script>x</script>"})),
        ),
        route(
            Method::PATCH,
            "/v1/docs/{id}/share",
            &f.doc_id,
            j(json!({"shared": true, "editable": true})),
        ),
    ]
}

fn tiny_png() -> Vec<u8> {
    let image = image::RgbaImage::from_pixel(4, 4, image::Rgba([200, 30, 30, 255]));
    let mut out = Vec::new();
    image::DynamicImage::ImageRgba8(image)
        .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .expect("encode png");
    out
}

fn multipart_body(project_id: &str) -> Vec<u8> {
    let mut body = format!(
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.png\"\r\n\
         Content-Type: image/png\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(&tiny_png());
    body.extend_from_slice(
        format!(
            "\r\n--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"project_id\"\r\n\r\n\
             {project_id}\r\n--{BOUNDARY}--\r\n"
        )
        .as_bytes(),
    );
    body
}

const AWKWARD_IDS: &[&str] = &[
    "",
    "x",
    "%00",
    "..%2F..%2Fetc",
    "%F0%9F%8E%9E",
    "000000000000000000000000",
    "ffffffffffffffffffffffffffffffffffffffffffffffffffff",
    "%20",
    "gen_%FF",
];

const CONTENT_TYPES: &[&str] = &[
    "application/json",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data",
    "multipart/form-data; boundary=",
    "application/json; charset=utf-16",
    "image/png",
];

/// One request of the run.
struct Request {
    method: Method,
    path: String,
    content_type: Option<String>,
    body: Vec<u8>,
    key: Option<String>,
}

fn make_request(rng: &mut Rng, routes: &[Route], keys: &[String], multipart: &[u8]) -> Request {
    let route = rng.pick(routes).clone();
    let id = if route.id.is_empty() || !rng.one_in(8) {
        route.id.clone()
    } else {
        (*rng.pick(AWKWARD_IDS)).to_owned()
    };
    let mut path = route.path.replace("{id}", &id);
    let (valid_type, seed): (String, Vec<u8>) = match &route.body {
        Body::Json(value) => {
            let bytes = if rng.one_in(2) {
                serde_json::to_vec(&mutate_json(rng, value)).expect("json")
            } else {
                let text = serde_json::to_vec(value).expect("json");
                mutate(rng, &text, &[])
            };
            ("application/json".to_owned(), bytes)
        }
        Body::Query(query) => {
            let mutated = if rng.one_in(2) && !query.is_empty() {
                awkward_parameter(rng, query).into_bytes()
            } else {
                mutate(rng, query.as_bytes(), &[])
            };
            path.push('?');
            path.push_str(&percent_encode_query(&mutated));
            return Request {
                method: route.method,
                path,
                content_type: None,
                body: Vec::new(),
                key: Some(rng.pick(keys).clone()),
            };
        }
        Body::Multipart => (
            format!("multipart/form-data; boundary={BOUNDARY}"),
            if rng.one_in(4) {
                // Cut short: an upload that stopped mid-file or mid-header.
                multipart[..rng.below(multipart.len())].to_vec()
            } else {
                mutate(rng, multipart, &[])
            },
        ),
    };
    let (content_type, body) = match rng.below(10) {
        0 => (
            Some((*rng.pick(CONTENT_TYPES)).to_owned()),
            seed, // the right body under a wrong content type
        ),
        1 => (
            Some(valid_type),
            (0..rng.below(2048)).map(|_| rng.next_u64() as u8).collect(),
        ),
        2 => (None, seed),
        _ => (Some(valid_type), seed),
    };
    let key = match rng.below(20) {
        0 => None,
        1 => Some("fw_not_a_key".to_owned()),
        _ => Some(rng.pick(keys).clone()),
    };
    Request {
        method: route.method,
        path,
        content_type,
        body,
        key,
    }
}

const AWKWARD_NUMBERS: &[&str] = &[
    "0",
    "-1",
    "18446744073709551615",
    "18446744073709551616",
    "9223372036854775807",
    "-9223372036854775808",
    "4294967296",
    "1e9",
    "1.5",
    "",
    "NaN",
];

/// The query with one parameter's value set to an awkward number (paging maths).
fn awkward_parameter(rng: &mut Rng, query: &str) -> String {
    let mut pairs: Vec<(String, String)> = query
        .split('&')
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            (name.to_owned(), value.to_owned())
        })
        .collect();
    let at = rng.below(pairs.len());
    pairs[at].1 = (*rng.pick(AWKWARD_NUMBERS)).to_owned();
    if rng.one_in(3) {
        // Both paging parameters at once.
        pairs.push(("page".to_owned(), (*rng.pick(AWKWARD_NUMBERS)).to_owned()));
        pairs.push(("limit".to_owned(), (*rng.pick(AWKWARD_NUMBERS)).to_owned()));
        pairs.push((
            "page_size".to_owned(),
            (*rng.pick(AWKWARD_NUMBERS)).to_owned(),
        ));
    }
    pairs
        .iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect::<Vec<_>>()
        .join("&")
}

/// Query bytes as a URL carries them: `&`, `=` and plain characters as they are (so the
/// structure survives), everything else percent-encoded.
fn percent_encode_query(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'&' | b'=' | b'-' | b'_' | b'.' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

async fn send(
    http: &reqwest::Client,
    base_url: &str,
    request: &Request,
) -> Result<(u16, String), String> {
    let mut builder = http
        .request(
            request.method.clone(),
            format!("{base_url}{}", request.path),
        )
        .body(request.body.clone());
    if let Some(content_type) = &request.content_type {
        builder = builder.header(reqwest::header::CONTENT_TYPE, content_type.as_str());
    }
    if let Some(key) = &request.key {
        builder = builder.header("X-API-Key", key.as_str());
    }
    let response = builder
        .send()
        .await
        .map_err(|e| format!("no answer: {}", error_chain(&e)))?;
    let status = response.status().as_u16();
    let body = response
        .text()
        .await
        .map_err(|e| format!("{status} with a broken body: {e}"))?;
    Ok((status, body))
}

/// An error with its causes ("connection closed before message completed" is in a source).
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text += &format!(": {cause}");
        source = cause.source();
    }
    text
}

#[test]
fn every_route_answers_garbage_with_a_4xx_or_2xx_and_keeps_serving() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut config = SandboxConfig::new(dir.path().to_path_buf());
    config.speed = 20.0;
    let sandbox = sandbox::start(config).expect("sandbox starts");
    sandbox.seed_media(6, None);
    // Few credits: submits still run every check, but only a handful of jobs render.
    sandbox.set_credits(40.0);
    let mut keys = vec![sandbox.api_key().to_owned(), sandbox.create_api_key(true)];
    for email in ["ana@studio.test", "ben@studio.test", "chloe@studio.test"] {
        keys.extend(sandbox.create_api_key_for_user(email, false));
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    // A fresh connection per request: when a handler answers without reading the whole
    // body (a 401 or 429 before a large upload), the server closes that connection, and a
    // pooled client could race that close on its next request. Not pooling keeps every
    // dropped connection this request's own doing.
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(ANSWER_TIMEOUT_SECS))
        .pool_max_idle_per_host(0)
        .build()
        .expect("client");
    let fixtures = runtime.block_on(fixtures(&http, &sandbox));
    let routes = routes(&fixtures);
    let multipart = multipart_body(&fixtures.project_id);

    let seed = seed_for("sandbox");
    let cases: Vec<u64> = match std::env::var("FUZZ_CASE")
        .ok()
        .and_then(|s| s.trim().parse().ok())
    {
        Some(only) => vec![only],
        None => (0..case_count(DEFAULT_CASES)).collect(),
    };
    let mut failures = Vec::new();
    let mut handled = 0usize;
    let mut statuses = std::collections::BTreeMap::<u16, usize>::new();
    for &case in &cases {
        let request = make_request(&mut Rng::for_case(seed, case), &routes, &keys, &multipart);
        let outcome = runtime.block_on(send(&http, sandbox.base_url(), &request));
        let failure = match outcome {
            Ok((status, _)) if (200..300).contains(&status) || (400..500).contains(&status) => {
                *statuses.entry(status).or_default() += 1;
                if status != 429 && status != 401 {
                    handled += 1;
                }
                None
            }
            Ok((status, body)) => Some(format!(
                "{status}: {}",
                body.chars().take(300).collect::<String>()
            )),
            Err(error) => Some(error),
        };
        if let Some(failure) = failure {
            failures.push(format!(
                "  FUZZ_SEED={seed} FUZZ_CASE={case}: {} {} ({} bytes, {:?}): {failure}",
                request.method,
                request.path,
                request.body.len(),
                request.content_type
            ));
        }
    }
    eprintln!("sandbox fuzz: {handled} requests past auth and limits; statuses {statuses:?}");
    assert!(
        failures.is_empty(),
        "{} of {} requests failed:\n{}",
        failures.len(),
        cases.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    if cases.len() > 1 {
        assert!(
            handled >= cases.len() / 10,
            "only {handled} of {} requests got past auth and rate limits",
            cases.len()
        );
    }
    // Still serving normal requests.
    let models = runtime.block_on(async {
        http.get(format!("{}/v1/models", sandbox.base_url()))
            .header("X-API-Key", sandbox.api_key())
            .send()
            .await
            .map(|r| r.status().as_u16())
    });
    assert_eq!(
        models.ok(),
        Some(200),
        "the sandbox answers normally afterwards"
    );
    sandbox.shutdown();
}
