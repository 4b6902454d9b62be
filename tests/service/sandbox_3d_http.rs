//! The sandbox's POST /v1/generate/3d over real HTTP, checked with plain JSON values: the
//! submit answer and price, every validation error, cancel, the completed result, the
//! files (the GLB read back with the `gltf` crate, the OBJ counted line by line, the PNG
//! preview decoded) and the `3d_model` library items.
//!
//! Each test starts its own sandbox: the "Other generation" limiter allows 10 requests a
//! minute per user, so one shared sandbox would make the tests depend on each other.

use std::time::Duration;

use crate::service_support;
use service_support::{LocalService, local_service};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// Fast jobs (a 90-s model takes ~1.8 s).
const FAST: f64 = 50.0;
/// Jobs that stay running long enough to be cancelled.
const SLOW: f64 = 1.0;
const POLL_TIMEOUT: Duration = Duration::from_secs(60);
const TEXT_MODEL: &str = "tripo/v2.5-text";
const TEXT_CREDIT: f64 = 30.0;
const MULTI_MODEL: &str = "hunyuan3d/v2-multiview";
const MULTI_CREDIT: f64 = 40.0;
const WORLD_MODEL: &str = "worldlabs/marble";
const WORLD_CREDIT: f64 = 60.0;
/// Triangles of a model when the request names no `target_polycount`.
const DEFAULT_TRIANGLES: usize = 20_000;

struct Harness(LocalService);

impl std::ops::Deref for Harness {
    type Target = LocalService;
    fn deref(&self) -> &LocalService {
        &self.0
    }
}

fn harness(speed: f64) -> Harness {
    Harness(local_service(speed))
}

impl Harness {
    async fn get(&self, path: &str) -> (StatusCode, Value) {
        self.call_as(&self.key, Method::GET, path, None).await
    }

    async fn post(&self, path: &str, body: &Value) -> (StatusCode, Value) {
        self.call_as(&self.key, Method::POST, path, Some(body.clone()))
            .await
    }

    /// Submits and asserts the contract's submit answer (200, type 3d, hint 8); returns it.
    async fn submit(&self, body: &Value) -> Value {
        let (status, submit) = self.post("/v1/generate/3d", body).await;
        assert_eq!(status, StatusCode::OK, "{submit}");
        assert_eq!(submit["success"], true);
        assert_eq!(submit["type"], "3d");
        assert_eq!(submit["poll_interval_hint"], 8);
        let id = submit["generation_id"].as_str().expect("generation_id");
        assert_eq!(
            submit["poll_url"],
            format!("/api/v1/generate/{id}/status"),
            "{submit}"
        );
        submit
    }

    async fn available_credits(&self) -> f64 {
        let (status, body) = self.get("/v1/account/credits").await;
        assert_eq!(status, StatusCode::OK);
        body["credits"]["available"].as_f64().expect("available")
    }

    async fn wait_generation(&self, submit: &Value) -> Value {
        let id = submit["generation_id"].as_str().expect("generation_id");
        let path = format!("/v1/generate/{id}/status");
        let deadline = tokio::time::Instant::now() + POLL_TIMEOUT;
        loop {
            let (status, body) = self.get(&path).await;
            assert_eq!(status, StatusCode::OK, "{body}");
            if matches!(
                body["state"].as_str(),
                Some("completed" | "failed" | "cancelled")
            ) {
                return body;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{path} never finished: {body}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Downloads a public file URL (no API key); returns its content type and bytes.
    async fn download(&self, url: &str) -> (String, Vec<u8>) {
        let response = self.http.get(url).send().await.expect("download");
        assert_eq!(response.status(), StatusCode::OK, "{url}");
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        (
            content_type,
            response.bytes().await.expect("bytes").to_vec(),
        )
    }

    /// Uploads a flat `rgb` PNG and returns its URL.
    async fn upload_colour(&self, name: &str, rgb: [u8; 3]) -> String {
        let image = image::RgbImage::from_pixel(48, 48, image::Rgb(rgb));
        let mut bytes = Vec::new();
        image::DynamicImage::ImageRgb8(image)
            .write_to(
                &mut std::io::Cursor::new(&mut bytes),
                image::ImageFormat::Png,
            )
            .expect("png");
        let media = self.upload_png(&self.key, name, bytes).await;
        media["url"].as_str().expect("url").to_owned()
    }
}

fn assert_error(status: StatusCode, body: &Value, code: &str) {
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["success"], false, "{body}");
    assert_eq!(body["code"], code, "{body}");
    assert!(
        body["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{body}"
    );
}

/// What the GLB holds, read with the `gltf` crate (both the parser and the importer).
struct GlbFacts {
    triangles: usize,
    vertices: usize,
    /// Mean vertex colour (linear RGB).
    mean_color: [f32; 3],
    metallic: f32,
}

fn read_glb(bytes: &[u8]) -> GlbFacts {
    let parsed = gltf::Gltf::from_slice(bytes).expect("GLB parses");
    assert_eq!(parsed.meshes().count(), 1);
    let (document, buffers, _images) = gltf::import_slice(bytes).expect("GLB imports");
    let mesh = document.meshes().next().expect("a mesh");
    let primitive = mesh.primitives().next().expect("a primitive");
    assert_eq!(primitive.mode(), gltf::mesh::Mode::Triangles);
    let reader = primitive.reader(|buffer| buffers.get(buffer.index()).map(|data| &data.0[..]));
    let positions: Vec<[f32; 3]> = reader.read_positions().expect("POSITION").collect();
    let normals: Vec<[f32; 3]> = reader.read_normals().expect("NORMAL").collect();
    let colors: Vec<[f32; 3]> = reader
        .read_colors(0)
        .expect("COLOR_0")
        .into_rgb_f32()
        .collect();
    let indices = match reader.read_indices().expect("indices") {
        gltf::mesh::util::ReadIndices::U32(indices) => indices.collect::<Vec<u32>>(),
        _ => panic!("indices are not u32"),
    };
    assert_eq!(normals.len(), positions.len());
    assert_eq!(colors.len(), positions.len());
    assert_eq!(indices.len() % 3, 0);
    assert!(indices.iter().all(|&i| (i as usize) < positions.len()));
    for position in &positions {
        assert!(position.iter().all(|c| c.is_finite()), "{position:?}");
    }
    for normal in &normals {
        let length = normal.iter().map(|c| c * c).sum::<f32>().sqrt();
        assert!((length - 1.0).abs() < 1e-3, "normal {normal:?}");
    }
    // The accessor's bounds are written and agree with the data.
    let accessor = primitive.get(&gltf::Semantic::Positions).expect("POSITION");
    let (min, max) = (accessor.min().expect("min"), accessor.max().expect("max"));
    for axis in 0..3 {
        let lowest = positions.iter().map(|p| p[axis]).fold(f32::MAX, f32::min);
        let highest = positions.iter().map(|p| p[axis]).fold(f32::MIN, f32::max);
        assert_eq!(min[axis].as_f64().expect("min") as f32, lowest);
        assert_eq!(max[axis].as_f64().expect("max") as f32, highest);
        assert!(highest > lowest, "a flat model on axis {axis}");
    }
    let mut mean_color = [0.0f32; 3];
    for color in &colors {
        for channel in 0..3 {
            mean_color[channel] += color[channel] / colors.len() as f32;
        }
    }
    GlbFacts {
        triangles: indices.len() / 3,
        vertices: positions.len(),
        mean_color,
        metallic: primitive
            .material()
            .pbr_metallic_roughness()
            .metallic_factor(),
    }
}

fn assert_near(actual: usize, target: usize) {
    let error = (actual as f64 - target as f64).abs() / target as f64;
    assert!(error <= 0.05, "{actual} triangles for a target of {target}");
}

/// A text model: submit answer and price, the result's shape, the GLB, OBJ and preview,
/// the content types, and the library item (listed under type=all only, counted in stats).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_model_completes_with_glb_obj_and_preview_in_the_library() {
    let service = harness(FAST);
    let before = service.available_credits().await;
    let submit = service
        .submit(&json!({
            "mode": "text",
            "prompt": "a ceramic vase with a twisted neck",
            "target_polycount": 5000,
            "enable_pbr": true,
        }))
        .await;
    assert_eq!(submit["model"], "auto");
    assert_eq!(submit["credits_charged"].as_f64(), Some(TEXT_CREDIT));
    let done = service.wait_generation(&submit).await;
    assert_eq!(done["state"], "completed", "{done}");
    assert_eq!(done["type"], "3d");
    assert_eq!(done["credits_used"].as_f64(), Some(TEXT_CREDIT));
    assert_eq!(service.available_credits().await, before - TEXT_CREDIT);
    let result = &done["result"];
    assert_eq!(result["mode"], "text");
    assert_eq!(result["model"], TEXT_MODEL);
    assert!(
        result["prompt_used"]
            .as_str()
            .is_some_and(|p| p.contains("twisted neck")),
        "{result}"
    );
    let urls: Vec<&str> = result["urls"]
        .as_array()
        .expect("urls")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(urls.len(), 2, "{result}");
    assert!(urls[0].ends_with(".glb"), "GLB first: {urls:?}");
    assert!(urls[1].ends_with(".obj"), "{urls:?}");
    assert_eq!(result["formats"]["glb"], urls[0]);
    assert_eq!(result["formats"]["obj"], urls[1]);

    let (glb_type, glb) = service.download(urls[0]).await;
    assert_eq!(glb_type, "model/gltf-binary");
    let facts = read_glb(&glb);
    assert_near(facts.triangles, 5000);
    assert!(facts.metallic > 0.0, "enable_pbr gives a metallic surface");

    let (obj_type, obj) = service.download(urls[1]).await;
    assert!(obj_type.starts_with("model/obj"), "{obj_type}");
    let obj = String::from_utf8(obj).expect("OBJ is text");
    let count = |prefix: &str| obj.lines().filter(|l| l.starts_with(prefix)).count();
    assert_eq!(count("f "), facts.triangles);
    assert_eq!(count("v "), facts.vertices);
    assert_eq!(count("vn "), facts.vertices);
    // Vertex colours ride along: `v x y z r g b`.
    let first_vertex = obj.lines().find(|l| l.starts_with("v ")).expect("a vertex");
    assert_eq!(first_vertex.split_whitespace().count(), 7, "{first_vertex}");

    let thumbnail_url = result["thumbnail_url"].as_str().expect("thumbnail_url");
    let (png_type, png) = service.download(thumbnail_url).await;
    assert_eq!(png_type, "image/png");
    let preview = image::load_from_memory_with_format(&png, image::ImageFormat::Png)
        .expect("PNG")
        .to_rgb8();
    assert_eq!(preview.dimensions(), (512, 512));
    let first = *preview.get_pixel(0, 0);
    let distinct = preview.pixels().filter(|p| **p != first).count();
    assert!(distinct > 512 * 512 / 10, "the preview shows the model");

    // The library: one 3d_model item (the GLB) under type=all, none under type=image.
    let (status, all) = service.get("/v1/media?type=all").await;
    assert_eq!(status, StatusCode::OK, "{all}");
    let models: Vec<&Value> = all["media"]
        .as_array()
        .expect("media")
        .iter()
        .filter(|m| m["type"] == "3d_model")
        .collect();
    assert_eq!(models.len(), 1, "{all}");
    let item = models[0];
    assert_eq!(item["url"], urls[0]);
    assert_eq!(item["thumbnail_url"], thumbnail_url);
    assert_eq!(item["metadata"]["thumbnailUrl"], thumbnail_url);
    assert_eq!(item["metadata"]["formats"]["obj"], urls[1]);
    assert_eq!(item["metadata"]["generationId"], submit["generation_id"]);
    let (status, images) = service.get("/v1/media?type=image").await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        images["media"]
            .as_array()
            .expect("media")
            .iter()
            .all(|m| m["type"] != "3d_model"),
        "{images}"
    );
    let (status, stats) = service.get("/v1/media/stats").await;
    assert_eq!(status, StatusCode::OK, "{stats}");
    let stats = &stats["stats"];
    let listed = ["images", "videos", "audio"]
        .iter()
        .map(|k| stats[*k].as_u64().expect("count"))
        .sum::<u64>();
    assert!(stats["total"].as_u64().expect("total") > listed, "{stats}");
    // The single item carries the thumbnail too.
    let item_id = item["id"].as_str().expect("id");
    let (status, single) = service.get(&format!("/v1/media/{item_id}")).await;
    assert_eq!(status, StatusCode::OK, "{single}");
    assert_eq!(single["media"]["metadata"]["thumbnailUrl"], thumbnail_url);

    // No target_polycount: the default count.
    let submit = service.submit(&json!({"prompt": "a red apple"})).await;
    let done = service.wait_generation(&submit).await;
    assert_eq!(done["state"], "completed", "{done}");
    let (_, glb) = service
        .download(done["result"]["urls"][0].as_str().expect("url"))
        .await;
    let facts = read_glb(&glb);
    assert_near(facts.triangles, DEFAULT_TRIANGLES);
    assert_eq!(facts.metallic, 0.0, "no PBR: matte");
}

/// Image modes: the reference images' colours colour the model; named models are priced by
/// their own credit and echoed; a world model takes a prompt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn image_modes_take_the_references_colours_and_named_models_their_price() {
    let service = harness(FAST);
    let red = service.upload_colour("red.png", [220, 30, 30]).await;
    let blue = service.upload_colour("blue.png", [30, 40, 220]).await;

    let single = service
        .submit(&json!({"mode": "single", "reference_images": [red], "target_polycount": 2000}))
        .await;
    assert_eq!(single["model"], "auto");
    assert_eq!(single["credits_charged"].as_f64(), Some(TEXT_CREDIT));
    let multi = service
        .submit(&json!({
            "mode": "multi",
            "model": MULTI_MODEL,
            "prompt": "a toy robot",
            "reference_images": [blue, blue],
            "target_polycount": 2000,
        }))
        .await;
    assert_eq!(multi["model"], MULTI_MODEL);
    assert_eq!(multi["credits_charged"].as_f64(), Some(MULTI_CREDIT));
    let world = service
        .submit(&json!({"mode": "text", "model": WORLD_MODEL, "prompt": "a floating island"}))
        .await;
    assert_eq!(world["model"], WORLD_MODEL);
    assert_eq!(world["credits_charged"].as_f64(), Some(WORLD_CREDIT));

    let single = service.wait_generation(&single).await;
    assert_eq!(single["state"], "completed", "{single}");
    assert_eq!(single["result"]["mode"], "single");
    assert!(
        single["result"]["prompt_used"]
            .as_str()
            .is_some_and(|p| p.contains("#DC1E1E")),
        "{single}"
    );
    let (_, glb) = service
        .download(single["result"]["urls"][0].as_str().expect("url"))
        .await;
    let reddish = read_glb(&glb).mean_color;
    assert!(reddish[0] > 2.0 * reddish[2], "{reddish:?}");

    let multi = service.wait_generation(&multi).await;
    assert_eq!(multi["state"], "completed", "{multi}");
    assert_eq!(multi["result"]["mode"], "multi");
    assert_eq!(multi["credits_used"].as_f64(), Some(MULTI_CREDIT));
    let (_, glb) = service
        .download(multi["result"]["urls"][0].as_str().expect("url"))
        .await;
    let bluish = read_glb(&glb).mean_color;
    assert!(bluish[2] > 2.0 * bluish[0], "{bluish:?}");
    let world = service.wait_generation(&world).await;
    assert_eq!(world["state"], "completed", "{world}");

    let (_, all) = service.get("/v1/media?type=all").await;
    let kinds: Vec<&str> = all["media"]
        .as_array()
        .expect("media")
        .iter()
        .filter(|m| m["type"] == "3d_model")
        .filter_map(|m| m["generation_type"].as_str())
        .collect();
    assert_eq!(kinds.len(), 3, "{all}");
    for kind in ["3d_image_to_model", "3d_multi_image_to_model", "3d_world"] {
        assert!(kinds.contains(&kind), "{kinds:?}");
    }
}

/// Every refusal is a 400 with its code and charges nothing; the route is in the "Other
/// generation" group (10 a minute).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_requests_are_refused_and_the_route_is_rate_limited() {
    let service = harness(FAST);
    let before = service.available_credits().await;
    let missing = format!("{}/files/uploads/missing.png", service.sandbox.base_url());
    let url = "https://example.com/a.png";
    let cases = [
        (json!({"mode": "text"}), "INVALID_PROMPT"),
        (json!({"mode": "sculpt", "prompt": "a cat"}), "INVALID_MODE"),
        (json!({"mode": "single"}), "INVALID_REFERENCE_IMAGES"),
        (
            json!({"mode": "single", "reference_images": [url, url]}),
            "INVALID_REFERENCE_IMAGES",
        ),
        (
            json!({"mode": "multi", "reference_images": [url, url, url, url, url]}),
            "INVALID_REFERENCE_IMAGES",
        ),
        (
            json!({"prompt": "a cat", "target_polycount": 300_001}),
            "INVALID_POLYCOUNT",
        ),
        (
            json!({"prompt": "a cat", "target_polycount": "many"}),
            "INVALID_POLYCOUNT",
        ),
        (
            json!({"prompt": "x".repeat(1001), "model": TEXT_MODEL}),
            "INVALID_PROMPT",
        ),
        (
            json!({"mode": "single", "reference_images": [missing]}),
            "REFERENCE_IMAGE_UNAVAILABLE",
        ),
        (
            json!({"mode": "multi", "model": TEXT_MODEL, "reference_images": [url, url]}),
            "INVALID_MODE",
        ),
    ];
    for (body, code) in &cases {
        let (status, answer) = service.post("/v1/generate/3d", body).await;
        assert_error(status, &answer, code);
    }
    assert_eq!(service.available_credits().await, before);
    let (status, answer) = service
        .post("/v1/generate/3d", &json!({"prompt": "one too many"}))
        .await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{answer}");
}

/// A running model can be cancelled; its reservation comes back and nothing is filed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_stops_a_running_model_and_refunds_it() {
    let service = harness(SLOW);
    let before = service.available_credits().await;
    let submit = service.submit(&json!({"prompt": "a chess knight"})).await;
    assert_eq!(service.available_credits().await, before - TEXT_CREDIT);
    let id = submit["generation_id"].as_str().expect("id");
    let (status, cancelled) = service
        .post(&format!("/v1/generate/{id}/cancel"), &json!({}))
        .await;
    assert_eq!(status, StatusCode::OK, "{cancelled}");
    assert_eq!(cancelled["state"], "cancelled");
    let done = service.wait_generation(&submit).await;
    assert_eq!(done["state"], "cancelled", "{done}");
    assert_eq!(service.available_credits().await, before);
    let (_, all) = service.get("/v1/media?type=all").await;
    assert!(
        all["media"]
            .as_array()
            .expect("media")
            .iter()
            .all(|m| m["type"] != "3d_model"),
        "{all}"
    );
}
