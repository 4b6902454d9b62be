//! The sandbox's Visual DNA and moodboard routes over real HTTP (INTERFACES §1), and their
//! effect on renders, checked with plain JSON values (not the crate's api types). One
//! sandbox for the binary; every test works as its own user, so lists and rate limits do
//! not mix.

use crate::service_support;

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use service_support::LocalService;

/// Building takes 10–30 s at speed 1: 0.5–1.5 s here.
const SPEED: f64 = 20.0;
const WAIT: Duration = Duration::from_secs(60);
const ROCKET_JPG: &[u8] = include_bytes!("../fixtures/images/rocket.jpg");
const UNKNOWN_ID: &str = "0123456789abcdef01234567";

fn service() -> &'static LocalService {
    static SERVICE: OnceLock<LocalService> = OnceLock::new();
    SERVICE.get_or_init(|| service_support::local_service(SPEED))
}

/// A plain PNG of one colour.
fn solid_png(rgb: [u8; 3], width: u32, height: u32) -> Vec<u8> {
    let image = image::RgbImage::from_pixel(width, height, image::Rgb(rgb));
    let mut png = Vec::new();
    image
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .expect("encode png");
    png
}

/// One user of the shared sandbox, with its own key and HTTP client.
struct User {
    key: String,
    http: reqwest::Client,
}

/// A directory user of the sandbox (`None`: the default user). Each test has its own, so
/// the per-user rate limits of parallel tests do not mix.
fn user(email: Option<&str>) -> User {
    let key = match email {
        Some(email) => service()
            .sandbox
            .create_api_key_for_user(email, false)
            .expect("a directory user"),
        None => service().key.clone(),
    };
    User {
        key,
        http: reqwest::Client::new(),
    }
}

enum Part {
    Text(&'static str, String),
    File(&'static str, &'static str, &'static str, Vec<u8>),
}

impl User {
    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        let mut request = self
            .http
            .request(method, service().url(path))
            .header("X-API-Key", &self.key);
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

    async fn get(&self, path: &str) -> (StatusCode, Value) {
        self.call(Method::GET, path, None).await
    }

    async fn post(&self, path: &str, body: Value) -> (StatusCode, Value) {
        self.call(Method::POST, path, Some(body)).await
    }

    async fn put(&self, path: &str, body: Value) -> (StatusCode, Value) {
        self.call(Method::PUT, path, Some(body)).await
    }

    async fn delete(&self, path: &str) -> (StatusCode, Value) {
        self.call(Method::DELETE, path, None).await
    }

    async fn multipart(&self, parts: Vec<Part>) -> (StatusCode, Value) {
        let mut form = reqwest::multipart::Form::new();
        for part in parts {
            form = match part {
                Part::Text(name, value) => form.text(name, value),
                Part::File(name, file_name, mime, bytes) => form.part(
                    name,
                    reqwest::multipart::Part::bytes(bytes)
                        .file_name(file_name)
                        .mime_str(mime)
                        .expect("mime"),
                ),
            };
        }
        let response = self
            .http
            .post(service().url("/v1/visual-dna"))
            .header("X-API-Key", &self.key)
            .multipart(form)
            .send()
            .await
            .expect("multipart request");
        let status = response.status();
        let text = response.text().await.expect("body");
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }

    /// Creates a Visual DNA from solid-colour pictures; asserts the 201.
    async fn create_dna(&self, name: &str, dna_type: &str, colors: &[[u8; 3]]) -> Value {
        let mut parts = vec![
            Part::Text("name", name.to_owned()),
            Part::Text("dna_type", dna_type.to_owned()),
        ];
        for rgb in colors {
            parts.push(Part::File(
                "images",
                "swatch.png",
                "image/png",
                solid_png(*rgb, 64, 48),
            ));
        }
        let (status, body) = self.multipart(parts).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body["visual_dna"].clone()
    }

    async fn wait_ready(&self, id: &str) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let (status, body) = self.get(&format!("/v1/visual-dna/{id}")).await;
            assert_eq!(status, StatusCode::OK, "{body}");
            match body["visual_dna"]["status"].as_str() {
                Some("ready") => return body["visual_dna"].clone(),
                Some("building") => {}
                other => panic!("visual DNA ended {other:?}: {body}"),
            }
            assert!(Instant::now() < deadline, "visual DNA never became ready");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn download(&self, url: &str) -> Vec<u8> {
        let response = self.http.get(url).send().await.expect("download");
        assert_eq!(response.status(), StatusCode::OK, "{url}");
        response.bytes().await.expect("bytes").to_vec()
    }

    async fn upload(&self, name: &str, bytes: Vec<u8>) -> String {
        let media = service().upload_png(&self.key, name, bytes).await;
        media["url"].as_str().expect("url").to_owned()
    }

    /// Submits an image generation and waits for it; returns the finished status.
    async fn generate(&self, body: Value) -> Value {
        self.submit_and_wait("/v1/generate/image", body).await
    }

    /// Submits to `path` and waits for the job (or batch) to complete.
    async fn submit_and_wait(&self, path: &str, body: Value) -> Value {
        let (status, submit) = self.post(path, body).await;
        assert!(status.is_success(), "{submit}");
        let id = submit["generation_id"].as_str().expect("id").to_owned();
        let deadline = Instant::now() + WAIT;
        loop {
            let (_, status) = self.get(&format!("/v1/generate/{id}/status")).await;
            match status["state"].as_str() {
                Some("completed") => return status,
                Some("processing") | Some("queued") | Some("pending") => {}
                other => panic!("generation ended {other:?}: {status}"),
            }
            assert!(Instant::now() < deadline, "generation never finished");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn render(&self, body: Value) -> (Value, image::RgbImage) {
        let status = self.generate(body).await;
        let url = status["result"]["urls"][0]
            .as_str()
            .expect("url")
            .to_owned();
        let bytes = self.download(&url).await;
        let image = image::load_from_memory(&bytes).expect("png").to_rgb8();
        (status, image)
    }
}

fn assert_field_error(status: StatusCode, body: &Value, field: &str) {
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["success"], json!(false), "{body}");
    assert_eq!(body["field"], json!(field), "{body}");
    let message = body["error"].as_str().unwrap_or("");
    assert!(message.contains(field), "the message names {field}: {body}");
}

fn ids(list: &Value) -> Vec<String> {
    list["visual_dnas"]
        .as_array()
        .expect("visual_dnas")
        .iter()
        .map(|d| d["id"].as_str().unwrap_or("").to_owned())
        .collect()
}

fn media_items(list: &Value) -> Vec<Value> {
    list["data"]
        .as_array()
        .or_else(|| list["media"].as_array())
        .or_else(|| list["items"].as_array())
        .cloned()
        .unwrap_or_else(|| panic!("media list: {list}"))
}

/// Mean of each channel.
fn mean_rgb(image: &image::RgbImage) -> [f64; 3] {
    let n = f64::from(image.width() * image.height());
    let mut sum = [0.0; 3];
    for pixel in image.pixels() {
        for (s, c) in sum.iter_mut().zip(pixel.0) {
            *s += f64::from(c);
        }
    }
    sum.map(|s| s / n)
}

#[tokio::test]
async fn a_visual_dna_is_created_builds_and_is_listed_read_updated_and_deleted() {
    let me = user(None);
    let (status, body) = me
        .multipart(vec![
            Part::Text("name", "  Rocket Hero  ".into()),
            Part::Text("dnaType", "Product".into()),
            Part::Text("promptHelper", "white hull, red fins".into()),
            Part::File("images", "rocket.jpg", "image/jpeg", ROCKET_JPG.to_vec()),
            Part::File(
                "images",
                "green.png",
                "image/png",
                solid_png([0, 200, 0], 40, 40),
            ),
        ])
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["success"], json!(true));
    let dna = &body["visual_dna"];
    let id = dna["id"].as_str().expect("id").to_owned();
    assert_eq!(dna["name"], json!("Rocket Hero"));
    assert_eq!(dna["dna_type"], json!("product"));
    assert_eq!(dna["status"], json!("building"));
    assert_eq!(dna["description"], Value::Null);
    assert_eq!(dna["is_global"], json!(false));
    assert_eq!(dna["folder_id"], Value::Null);
    assert_eq!(dna["images"].as_array().map(Vec::len), Some(2));
    // The thumbnail is a square crop served as a file.
    let thumb = me
        .download(dna["thumbnail_url"].as_str().expect("thumbnail_url"))
        .await;
    let thumb = image::load_from_memory(&thumb).expect("thumbnail decodes");
    assert_eq!((thumb.width(), thumb.height()), (256, 256));
    for url in dna["images"].as_array().expect("images") {
        me.download(url.as_str().expect("image url")).await;
    }

    // Building: no system prompt yet; then ready with generated words.
    let (_, early) = me.get(&format!("/v1/visual-dna/{id}")).await;
    assert_eq!(early["visual_dna"]["system_prompt"], Value::Null, "{early}");
    let ready = me.wait_ready(&id).await;
    let description = ready["description"].as_str().expect("description");
    assert!(description.contains("Rocket Hero"), "{description}");
    assert!(description.contains("red fins"), "{description}");
    let system_prompt = ready["system_prompt"].as_str().expect("system prompt");
    assert!(
        system_prompt.contains('#'),
        "names the colours: {system_prompt}"
    );

    // Listed after the globals, without the system prompt.
    let (status, list) = me.get("/v1/visual-dna").await;
    assert_eq!(status, StatusCode::OK);
    let entries = list["visual_dnas"].as_array().expect("list");
    assert!(entries.len() >= 4, "{list}");
    let first_own = entries
        .iter()
        .position(|d| d["is_global"] == json!(false))
        .expect("own entry");
    assert!(first_own >= 3, "globals come first: {list}");
    assert!(
        entries[..first_own]
            .iter()
            .all(|d| d["is_global"] == json!(true))
    );
    assert!(entries.iter().all(|d| d.get("system_prompt").is_none()));
    assert_eq!(list["count"], json!(entries.len()));
    assert_eq!(list["total"], json!(entries.len()));

    // PUT changes the fields; the words follow the new name.
    let (status, updated) = me
        .put(
            &format!("/v1/visual-dna/{id}"),
            json!({"name": "Rocket Mk II", "dna_type": "character", "prompt_helper": null}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    assert_eq!(updated["visual_dna"]["name"], json!("Rocket Mk II"));
    assert_eq!(updated["visual_dna"]["dna_type"], json!("character"));
    assert!(
        updated["visual_dna"]["description"]
            .as_str()
            .is_some_and(|d| d.contains("Rocket Mk II") && !d.contains("red fins")),
        "{updated}"
    );
    let (status, body) = me
        .put(
            &format!("/v1/visual-dna/{id}"),
            json!({"dna_type": "vehicle"}),
        )
        .await;
    assert_field_error(status, &body, "dna_type");

    // Globals cannot be changed or deleted; unknown ids are 404.
    let global = entries[0]["id"].as_str().expect("global id");
    let (status, body) = me.delete(&format!("/v1/visual-dna/{global}")).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let (status, body) = me
        .put(
            &format!("/v1/visual-dna/{global}"),
            json!({"name": "Mine now"}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let (status, global_body) = me.get(&format!("/v1/visual-dna/{global}")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(global_body["visual_dna"]["status"], json!("ready"));
    assert!(global_body["visual_dna"]["system_prompt"].is_string());
    for path in [
        format!("/v1/visual-dna/{UNKNOWN_ID}"),
        "/v1/visual-dna/not-an-id".to_owned(),
    ] {
        let (status, body) = me.delete(&path).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}: {body}");
        let (status, _) = me.get(&path).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
    }
    // Another user neither sees nor deletes it.
    let other = user(Some("ana@studio.test"));
    let (status, _) = other.get(&format!("/v1/visual-dna/{id}")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (_, other_list) = other.get("/v1/visual-dna").await;
    assert!(!ids(&other_list).contains(&id));

    // A picture over the decode budget is stored, never decoded: the entry fails to build
    // and cannot be used.
    let (status, body) = me
        .multipart(vec![
            Part::Text("name", "Too big".into()),
            Part::Text("dna_type", "style".into()),
            Part::File(
                "images",
                "huge.png",
                "image/png",
                service_support::png_of_zeros(16_384),
            ),
        ])
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["visual_dna"]["status"], json!("failed"), "{body}");
    let failed_id = body["visual_dna"]["id"].as_str().expect("id");
    let (status, answer) = me
        .post(
            "/v1/generate/image",
            json!({"prompt": "anything", "visual_dna_ids": [failed_id]}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    assert_eq!(answer["code"], json!("VISUAL_DNA_NOT_READY"));

    let (status, body) = me.delete(&format!("/v1/visual-dna/{id}")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        body,
        json!({"success": true, "message": "Visual DNA deleted successfully"})
    );
    let (status, _) = me.get(&format!("/v1/visual-dna/{id}")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

/// Eight refused creates and two accepted: all ten count in the 10/min group, so the
/// eleventh create is a 429.
#[tokio::test]
async fn a_create_that_breaks_a_field_rule_is_refused_naming_the_field_and_counts_in_the_limit() {
    let me = user(Some("ana@studio.test"));
    let png = || Part::File("images", "a.png", "image/png", solid_png([9, 9, 9], 8, 8));
    let text = |name: &'static str, value: &str| Part::Text(name, value.to_owned());
    let cases: Vec<(Vec<Part>, &str)> = vec![
        (vec![text("dna_type", "style"), png()], "name"),
        (
            vec![text("name", "   "), text("dna_type", "style"), png()],
            "name",
        ),
        (
            vec![
                text("name", &"x".repeat(101)),
                text("dna_type", "style"),
                png(),
            ],
            "name",
        ),
        (vec![text("name", "A"), png()], "dna_type"),
        (
            vec![text("name", "A"), text("dna_type", "vehicle"), png()],
            "dna_type",
        ),
        (vec![text("name", "A"), text("dna_type", "style")], "images"),
        (
            vec![
                text("name", "A"),
                text("dna_type", "style"),
                png(),
                png(),
                png(),
                png(),
                png(),
            ],
            "images",
        ),
        (
            vec![
                text("name", "A"),
                text("dna_type", "style"),
                Part::File(
                    "images",
                    "notes.txt",
                    "text/plain",
                    b"not a picture".to_vec(),
                ),
            ],
            "images",
        ),
    ];
    for (parts, field) in cases {
        let (status, body) = me.multipart(parts).await;
        assert_field_error(status, &body, field);
    }
    // 100 characters is fine.
    let (status, body) = me
        .multipart(vec![
            text("name", &"y".repeat(100)),
            text("dna_type", "environment"),
            png(),
        ])
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = me
        .multipart(vec![
            text("name", "Tenth"),
            text("dna_type", "style"),
            png(),
        ])
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = me
        .multipart(vec![
            text("name", "Eleventh"),
            text("dna_type", "style"),
            png(),
        ])
        .await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
    // Reading is not limited.
    for _ in 0..12 {
        let (status, _) = me.get("/v1/visual-dna?limit=1").await;
        assert_eq!(status, StatusCode::OK);
    }
}

#[tokio::test]
async fn lists_search_filter_by_type_and_folder_and_page() {
    let me = user(Some("ben@studio.test"));
    let alpha = me
        .create_dna("Alpha Fox", "character", &[[200, 80, 0]])
        .await;
    let beta = me
        .create_dna("Beta Bottle", "product", &[[0, 80, 200]])
        .await;
    let gamma = me
        .create_dna("Gamma Fox", "character", &[[80, 200, 0]])
        .await;
    let id = |v: &Value| v["id"].as_str().expect("id").to_owned();

    let (_, found) = me.get("/v1/visual-dna?search=fox").await;
    assert_eq!(ids(&found), vec![id(&gamma), id(&alpha)], "newest first");
    let (_, products) = me.get("/v1/visual-dna?dna_type=product").await;
    assert_eq!(ids(&products), vec![id(&beta)]);
    let (status, body) = me.get("/v1/visual-dna?dna_type=vehicle").await;
    assert_field_error(status, &body, "dna_type");

    // 3 globals + 3 own: pages of 4.
    let (_, page1) = me.get("/v1/visual-dna?limit=4&page=1").await;
    let (_, page2) = me.get("/v1/visual-dna?limit=4&page=2").await;
    assert_eq!(page1["count"], json!(4));
    assert_eq!(page2["count"], json!(2));
    assert_eq!(page1["total"], json!(6));
    assert_eq!(page2["page"], json!(2));
    assert_eq!(page2["limit"], json!(4));
    assert_eq!(ids(&page2), vec![id(&beta), id(&alpha)]);

    // Folders: create, move in, count, filter, rename, move out, delete.
    let (status, created) = me
        .post("/v1/visual-dna/folders", json!({"name": "Heroes"}))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let folder = created["folder"]["id"]
        .as_str()
        .expect("folder id")
        .to_owned();
    let (status, _) = me.post("/v1/visual-dna/folders", json!({"name": ""})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    for dna in [&alpha, &gamma] {
        let (status, moved) = me
            .put(
                &format!("/v1/visual-dna/{}/folder", id(dna)),
                json!({"folder_id": folder}),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{moved}");
        assert_eq!(moved["visual_dna"]["folder_id"], json!(folder));
    }
    let (status, body) = me
        .put(
            &format!("/v1/visual-dna/{}/folder", id(&beta)),
            json!({"folder_id": UNKNOWN_ID}),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let (_, folders) = me.get("/v1/visual-dna/folders").await;
    assert_eq!(
        folders["folders"],
        json!([{"id": folder, "name": "Heroes", "item_count": 2}])
    );
    let (_, in_folder) = me.get(&format!("/v1/visual-dna?folder_id={folder}")).await;
    assert_eq!(ids(&in_folder), vec![id(&gamma), id(&alpha)]);
    let (status, renamed) = me
        .put(
            &format!("/v1/visual-dna/folders/{folder}"),
            json!({"name": "Foxes"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{renamed}");
    assert_eq!(renamed["folder"]["name"], json!("Foxes"));
    let (status, moved) = me
        .put(
            &format!("/v1/visual-dna/{}/folder", id(&gamma)),
            json!({"folder_id": null}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(moved["visual_dna"]["folder_id"], Value::Null);
    let (status, _) = me.delete(&format!("/v1/visual-dna/folders/{folder}")).await;
    assert_eq!(status, StatusCode::OK);
    let (_, folders) = me.get("/v1/visual-dna/folders").await;
    assert_eq!(folders["folders"], json!([]));
    let (_, alpha_now) = me.get(&format!("/v1/visual-dna/{}", id(&alpha))).await;
    assert_eq!(
        alpha_now["visual_dna"]["folder_id"],
        Value::Null,
        "back to no folder"
    );
    let (status, _) = me.delete(&format!("/v1/visual-dna/folders/{folder}")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn renders_take_the_dna_and_moodboard_colours_and_unknown_ids_are_refused() {
    let me = user(Some("chloe@studio.test"));
    let green = me
        .create_dna("Green Sprite", "character", &[[0, 210, 40]])
        .await;
    let green_id = green["id"].as_str().expect("id").to_owned();

    // Still building: refused, nothing billed.
    let prompt = "a quiet harbour at night";
    let (status, body) = me
        .post(
            "/v1/generate/image",
            json!({"prompt": prompt, "visual_dna_ids": [green_id]}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["code"], json!("VISUAL_DNA_NOT_READY"));
    me.wait_ready(&green_id).await;
    for (request, code) in [
        (
            json!({"visual_dna_ids": [UNKNOWN_ID]}),
            "VISUAL_DNA_NOT_FOUND",
        ),
        (json!({"visual_dna_ids": ["nope"]}), "VISUAL_DNA_NOT_FOUND"),
        (json!({"moodboard_id": UNKNOWN_ID}), "MOODBOARD_NOT_FOUND"),
    ] {
        let mut body = request.clone();
        body["prompt"] = json!(prompt);
        let (status, answer) = me.post("/v1/generate/image", body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
        assert_eq!(answer["code"], json!(code), "{answer}");
    }
    let (status, body) = me
        .post(
            "/v1/generate/image",
            json!({"prompt": prompt, "visual_dna_ids": [UNKNOWN_ID, UNKNOWN_ID, UNKNOWN_ID, UNKNOWN_ID]}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");

    // The same request with and without the DNA: greener, with the thumbnail inset.
    let base = json!({"prompt": prompt, "seed": 42, "aspect_ratio": "1:1"});
    let (_, plain) = me.render(base.clone()).await;
    let mut with_dna = base.clone();
    with_dna["visual_dna_ids"] = json!([green_id]);
    let (status, tinted) = me.render(with_dna).await;
    let (p, t) = (mean_rgb(&plain), mean_rgb(&tinted));
    let greenness = |c: [f64; 3]| c[1] - (c[0] + c[2]) / 2.0;
    assert!(
        greenness(t) > greenness(p) + 20.0,
        "plain {p:?}, with the DNA {t:?}"
    );
    // The inset (bottom-left) is the DNA's own green.
    let (w, h) = tinted.dimensions();
    let inset = tinted.get_pixel(w / 12 + w / 48, h - h / 12 - h / 48).0;
    assert!(
        inset[1] > 180 && inset[0] < 60 && inset[2] < 90,
        "inset pixel {inset:?}"
    );
    assert!(
        status["result"]["prompt_used"]
            .as_str()
            .is_some_and(|p| p.contains("Green Sprite")),
        "{status}"
    );

    // A moodboard of a red picture pulls toward red; its items record it.
    let red_url = me.upload("red.png", solid_png([220, 20, 20], 64, 64)).await;
    let (status, created) = me
        .post(
            "/v1/moodboards",
            json!({"name": "Red Room", "images": [{"type": "url", "url": red_url}], "style_guide": "bold and warm"}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let moodboard_id = created["moodboard"]["id"].as_str().expect("id").to_owned();
    let mut with_board = base.clone();
    with_board["moodboard_id"] = json!(moodboard_id);
    let (_, red) = me.render(with_board).await;
    let r = mean_rgb(&red);
    let redness = |c: [f64; 3]| c[0] - (c[1] + c[2]) / 2.0;
    assert!(
        redness(r) > redness(p) + 20.0,
        "plain {p:?}, moodboard {r:?}"
    );

    let (status, filtered) = me
        .get(&format!("/v1/media?moodboard_id={moodboard_id}"))
        .await;
    assert_eq!(status, StatusCode::OK, "{filtered}");
    assert_eq!(media_items(&filtered).len(), 1, "{filtered}");
    let (status, _) = me.get("/v1/media?moodboard_id=nope").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // Creative Director: moodboard_ids gives scene 1 the board, scene 2 none.
    let (status, refused) = me
        .post(
            "/v1/generate/creative-director",
            json!({"prompt": prompt, "scene_count": 2, "moodboard_ids": [UNKNOWN_ID]}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    assert_eq!(refused["code"], json!("MOODBOARD_NOT_FOUND"));
    let done = me
        .submit_and_wait(
            "/v1/generate/creative-director",
            json!({"prompt": prompt, "scene_count": 2, "moodboard_ids": [moodboard_id, ""]}),
        )
        .await;
    assert_eq!(done["state"], json!("completed"), "{done}");
    let (_, filtered) = me
        .get(&format!("/v1/media?moodboard_id={moodboard_id}"))
        .await;
    let items = media_items(&filtered);
    assert_eq!(items.len(), 2, "the image and scene 1: {filtered}");

    // Video: the clip is coloured from the DNA (the prompt alone reads blue).
    let video = me
        .submit_and_wait(
            "/v1/generate/video",
            json!({"prompt": prompt, "model": "google/veo-3", "duration": 4, "visual_dna_ids": [green_id]}),
        )
        .await;
    let poster = me
        .download(video["result"]["thumbnail_url"].as_str().expect("poster"))
        .await;
    let poster = image::load_from_memory(&poster)
        .expect("poster decodes")
        .to_rgb8();
    let v = mean_rgb(&poster);
    assert!(greenness(v) > 40.0, "video poster {v:?}");
    let (_, all) = me.get("/v1/media?limit=50").await;
    let all = all.to_string();
    assert!(
        all.contains("Green Sprite"),
        "visualDnaNames recorded: {all}"
    );
}

#[tokio::test]
async fn moodboards_are_created_read_updated_and_deleted() {
    let me = user(Some("dev@studio.test"));
    let url_a = me.upload("rocket.jpg", ROCKET_JPG.to_vec()).await;
    let url_b = me
        .upload("blue.png", solid_png([20, 40, 220], 48, 48))
        .await;
    let (status, created) = me
        .post(
            "/v1/moodboards",
            json!({"name": "  Launch  ", "images": [{"type": "url", "url": url_a}, {"type": "url", "url": url_b}], "style_guide": "clean, high contrast"}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let board = &created["moodboard"];
    let id = board["id"].as_str().expect("id").to_owned();
    assert_eq!(board["name"], json!("Launch"));
    assert_eq!(board["style_guide"], json!("clean, high contrast"));
    assert_eq!(
        board["images"],
        json!([{"type": "url", "url": url_a}, {"type": "url", "url": url_b}])
    );
    let master = board["master_prompt"].as_str().expect("master prompt");
    assert!(
        master.contains("clean, high contrast") && master.contains('#'),
        "{master}"
    );
    let collage = me
        .download(board["thumbnail_url"].as_str().expect("thumbnail"))
        .await;
    image::load_from_memory(&collage).expect("collage decodes");

    let (status, list) = me.get("/v1/moodboards").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(list["count"], json!(1));
    assert_eq!(list["moodboards"][0]["id"], json!(id));
    let (status, one) = me.get(&format!("/v1/moodboards/{id}")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(one["moodboard"]["id"], json!(id));

    let (status, updated) = me
        .put(
            &format!("/v1/moodboards/{id}"),
            json!({"style_guide": "soft pastels", "images": [{"type": "url", "url": url_b}]}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    assert_eq!(updated["moodboard"]["name"], json!("Launch"));
    assert!(
        updated["moodboard"]["master_prompt"]
            .as_str()
            .is_some_and(|m| m.contains("soft pastels")),
        "{updated}"
    );
    assert_eq!(
        updated["moodboard"]["images"].as_array().map(Vec::len),
        Some(1)
    );

    let too_many: Vec<Value> = (0..16)
        .map(|_| json!({"type": "url", "url": url_b}))
        .collect();
    for (body, field) in [
        (
            json!({"name": "", "images": [{"type": "url", "url": url_b}]}),
            "name",
        ),
        (
            json!({"name": "x".repeat(101), "images": [{"type": "url", "url": url_b}]}),
            "name",
        ),
        (json!({"name": "A", "images": []}), "images"),
        (json!({"name": "A", "images": too_many}), "images"),
        (json!({"name": "A", "images": ["not a url"]}), "images"),
        (
            json!({"name": "A", "images": [{"type": "url", "url": url_b}], "style_guide": "s".repeat(501)}),
            "style_guide",
        ),
        (
            json!({"name": "A", "images": [{"type": "url", "url": format!("{}/files/uploads/missing.png", service().sandbox.origin())}]}),
            "images",
        ),
    ] {
        let (status, answer) = me.post("/v1/moodboards", body).await;
        assert_field_error(status, &answer, field);
    }
    let (status, answer) = me.post("/v1/moodboards", json!({"name": "A", "images": [{"type": "url", "url": url_b}], "style_guide": "s".repeat(500)})).await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");

    let other = user(Some("ben@studio.test"));
    let (status, _) = other.get(&format!("/v1/moodboards/{id}")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, body) = me.delete(&format!("/v1/moodboards/{id}")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body, json!({"success": true}));
    let (status, _) = me.get(&format!("/v1/moodboards/{id}")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = me.delete(&format!("/v1/moodboards/{id}")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}
