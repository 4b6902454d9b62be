//! The sandbox's media library (document 3) over real HTTP, checked with plain JSON values
//! (deliberately not the crate's api types, so a shared misreading cannot hide).

use crate::service_support;
use service_support::LocalService;

/// This file's calls on a local service (a wrapper: other modules of this test binary add
/// their own calls of the same names to theirs).
struct Harness(LocalService);

impl std::ops::Deref for Harness {
    type Target = LocalService;
    fn deref(&self) -> &LocalService {
        &self.0
    }
}

fn harness() -> Harness {
    Harness(service_support::local_service(SPEED))
}

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

const SPEED: f64 = 40.0;
const POLL_TIMEOUT: Duration = Duration::from_secs(40);
const LIST_FIELDS: [&str; 25] = [
    "id",
    "url",
    "thumbnail_url",
    "name",
    "filename",
    "type",
    "media_type",
    "category",
    "size",
    "source_type",
    "generation_type",
    "session_type",
    "prompt",
    "width",
    "height",
    "duration",
    "is_favorited",
    "nsfw_detected",
    "project_id",
    "session_id",
    "user_id",
    "user_email",
    "user_name",
    "created_at",
    "metadata",
];

fn tiny_png(seed: u8) -> Vec<u8> {
    let image = image::RgbImage::from_fn(40, 30, |x, y| image::Rgb([x as u8, y as u8, seed]));
    let mut png = Vec::new();
    image
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .expect("encode png");
    png
}

fn png_form(name: &str, seed: u8) -> reqwest::multipart::Form {
    reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(tiny_png(seed))
            .file_name(name.to_owned())
            .mime_str("image/png")
            .expect("mime"),
    )
}

fn ids(list: &Value) -> Vec<String> {
    list["media"]
        .as_array()
        .expect("media array")
        .iter()
        .map(|m| m["id"].as_str().expect("id").to_owned())
        .collect()
}

impl Harness {
    async fn get(&self, path: &str) -> (StatusCode, Value) {
        self.call_as(&self.key, Method::GET, path, None).await
    }

    async fn post(&self, path: &str, body: Value) -> (StatusCode, Value) {
        self.call_as(&self.key, Method::POST, path, Some(body))
            .await
    }

    async fn delete(&self, path: &str) -> (StatusCode, Value) {
        self.call_as(&self.key, Method::DELETE, path, None).await
    }

    async fn project(&self, key: &str, name: &str) -> String {
        let (status, body) = self
            .call_as(
                key,
                Method::POST,
                "/v1/projects",
                Some(json!({"name": name})),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body["project"]["id"].as_str().expect("id").to_owned()
    }

    async fn list(&self, key: &str, query: &str) -> Value {
        let (status, body) = self
            .call_as(key, Method::GET, &format!("/v1/media?{query}"), None)
            .await;
        assert_eq!(status, StatusCode::OK, "{query}: {body}");
        assert_eq!(body["success"], true);
        body
    }

    /// Uploads a tiny PNG as `key`; returns (stored-file id, url, library id).
    async fn upload(
        &self,
        key: &str,
        name: &str,
        project: Option<&str>,
    ) -> (String, String, String) {
        let mut form = png_form(name, name.len() as u8);
        if let Some(project) = project {
            form = form.text("project_id", project.to_owned());
        }
        let response = self
            .http
            .post(self.url("/v1/media/upload"))
            .header("X-API-Key", key)
            .multipart(form)
            .send()
            .await
            .expect("upload");
        assert_eq!(response.status(), StatusCode::CREATED);
        let body: Value = response.json().await.expect("json");
        let stored_id = body["media"]["id"].as_str().expect("id").to_owned();
        let url = body["media"]["url"].as_str().expect("url").to_owned();
        let library_id = self.library_id_for_url(key, &url).await;
        (stored_id, url, library_id)
    }

    /// The contract's way back from an upload to its library id: match `url` in the list.
    async fn library_id_for_url(&self, key: &str, url: &str) -> String {
        let list = self.list(key, "source_type=uploaded&page_size=200").await;
        list["media"]
            .as_array()
            .expect("media")
            .iter()
            .find(|m| m["url"] == url)
            .and_then(|m| m["id"].as_str())
            .expect("upload is listed")
            .to_owned()
    }

    async fn wait_completed(&self, id: &str) -> Value {
        let deadline = tokio::time::Instant::now() + POLL_TIMEOUT;
        loop {
            let (status, body) = self.get(&format!("/v1/generate/{id}/status")).await;
            assert_eq!(status, StatusCode::OK, "{body}");
            if body["state"] == "completed" {
                return body;
            }
            assert!(body["state"] == "processing", "{body}");
            assert!(
                tokio::time::Instant::now() < deadline,
                "job {id} never finished"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

#[tokio::test]
async fn list_paging_filters_and_validation() {
    let h = harness();
    let project = h.project(&h.key, "Paging").await;
    assert_eq!(h.sandbox.seed_media(250, Some(&project)), 250);

    let first = h
        .list(&h.key, &format!("project_id={project}&page_size=100"))
        .await;
    let pagination = &first["pagination"];
    assert_eq!(first["media"].as_array().map(Vec::len), Some(100));
    assert_eq!(pagination["page"], 1);
    assert_eq!(pagination["page_size"], 100);
    assert_eq!(pagination["total_items"], 250);
    assert_eq!(pagination["total_pages"], 3);
    assert_eq!(pagination["has_next"], true);
    let item = &first["media"][0];
    for field in LIST_FIELDS {
        assert!(item.get(field).is_some(), "missing {field}: {item}");
    }
    assert_eq!(item["user_email"], "sandbox@localhost");
    assert!(item["user_name"].is_string());
    assert!(item["metadata"]["projectId"] == project.as_str());
    assert!(item["metadata"].get("creditsUsed").is_some());

    // Page 2 on: no total, paginate on has_next.
    let second = h
        .list(
            &h.key,
            &format!("project_id={project}&page_size=100&page=2"),
        )
        .await;
    assert_eq!(second["pagination"]["total_items"], -1);
    assert_eq!(second["pagination"]["total_pages"], 0);
    assert_eq!(second["pagination"]["has_next"], true);
    let third = h
        .list(
            &h.key,
            &format!("project_id={project}&page_size=100&page=3"),
        )
        .await;
    assert_eq!(third["media"].as_array().map(Vec::len), Some(50));
    assert_eq!(third["pagination"]["has_next"], false);
    let mut seen = std::collections::HashSet::new();
    for page in [&first, &second, &third] {
        for id in ids(page) {
            assert!(seen.insert(id), "an item appeared twice");
        }
    }
    assert_eq!(seen.len(), 250);

    // Newest first by default.
    let dates: Vec<&str> = first["media"]
        .as_array()
        .expect("media")
        .iter()
        .map(|m| m["created_at"].as_str().expect("created_at"))
        .collect();
    assert!(dates.windows(2).all(|w| w[0] >= w[1]));

    // page_size: capped at 200, default 50, legacy pageSize, positive or 400.
    let capped = h
        .list(&h.key, &format!("project_id={project}&page_size=500"))
        .await;
    assert_eq!(capped["pagination"]["page_size"], 200);
    assert_eq!(capped["media"].as_array().map(Vec::len), Some(200));
    let default = h.list(&h.key, &format!("project_id={project}")).await;
    assert_eq!(default["media"].as_array().map(Vec::len), Some(50));
    let legacy = h
        .list(&h.key, &format!("project_id={project}&pageSize=7"))
        .await;
    assert_eq!(legacy["media"].as_array().map(Vec::len), Some(7));
    for bad in ["page_size=0", "page=0", "page=-1", "page=abc", "pageSize=0"] {
        let (status, body) = h.get(&format!("/v1/media?{bad}")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {body}");
        assert_eq!(body["success"], false);
    }

    // Enum 400s list the allowed values.
    for (query, allowed) in [
        ("type=gif", "image, video, audio, all"),
        (
            "category=stars",
            "ai, uploaded, edited, favorites, training-lab, all",
        ),
        ("source_type=robot", "uploaded, generated, chat-generated"),
        (
            "sort=random",
            "created_desc, created_asc, name_asc, name_desc",
        ),
    ] {
        let (status, body) = h.get(&format!("/v1/media?{query}")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{query}");
        assert_eq!(body["success"], false);
        let error = body["error"].as_str().expect("error");
        assert!(error.contains(allowed), "{query}: {error}");
    }
    let (status, _) = h.get("/v1/media?project_id=nope").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = h.get("/v1/media?preset_id=nope").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // Filters.
    let scoped = |q: &str| format!("project_id={project}&page_size=200&{q}");
    let videos = h.list(&h.key, &scoped("type=video")).await;
    assert!(
        videos["media"]
            .as_array()
            .expect("media")
            .iter()
            .all(|m| m["type"] == "video")
    );
    assert_eq!(videos["pagination"]["total_items"], 50);
    let uploaded = h.list(&h.key, &scoped("category=uploaded")).await;
    assert!(
        uploaded["media"]
            .as_array()
            .expect("m")
            .iter()
            .all(|m| m["source_type"] == "uploaded")
    );
    let generated = h.list(&h.key, &scoped("source_type=generated")).await;
    let sources: std::collections::HashSet<&str> = generated["media"]
        .as_array()
        .expect("m")
        .iter()
        .map(|m| m["source_type"].as_str().expect("source_type"))
        .collect();
    assert!(
        sources.contains("generated") && sources.contains("chat-generated"),
        "{sources:?}"
    );
    let edited = h.list(&h.key, &scoped("category=edited")).await;
    assert!(
        edited["media"]
            .as_array()
            .expect("m")
            .iter()
            .all(|m| m["category"] == "edited-image")
    );
    assert_eq!(edited["pagination"]["total_items"], 25);
    let tagged = h.list(&h.key, &scoped("source=web")).await;
    assert!(tagged["pagination"]["total_items"].as_i64().expect("n") > 0);
    assert!(
        tagged["media"]
            .as_array()
            .expect("m")
            .iter()
            .all(|m| m["metadata"]["source"] == "web")
    );

    // Sorting by name.
    let by_name = h.list(&h.key, &scoped("sort=name_asc")).await;
    let names: Vec<String> = by_name["media"]
        .as_array()
        .expect("m")
        .iter()
        .map(|m| m["name"].as_str().expect("name").to_lowercase())
        .collect();
    assert!(names.windows(2).all(|w| w[0] <= w[1]));

    // Search: case-insensitive literal substring; `.*` is not a pattern; legacy searchTerm.
    let search = h.list(&h.key, &scoped("search=LIGHTHOUSE")).await;
    let found = search["pagination"]["total_items"].as_i64().expect("n");
    assert!(found > 0 && found < 250);
    let legacy = h.list(&h.key, &scoped("searchTerm=lighthouse")).await;
    assert_eq!(legacy["pagination"]["total_items"], found);
    for pattern in [".*", "%25", "^seed", "[a-z]"] {
        let none = h.list(&h.key, &scoped(&format!("search={pattern}"))).await;
        assert_eq!(none["pagination"]["total_items"], 0, "search {pattern}");
    }
    let by_model = h.list(&h.key, &scoped("search=suno")).await;
    assert_eq!(
        by_model["pagination"]["total_items"], 25,
        "model names are searchable"
    );

    // No project filter: user_email is null; stock items only without category/source_type.
    let all = h.list(&h.key, "page_size=200&sort=created_asc").await;
    assert!(
        all["media"]
            .as_array()
            .expect("m")
            .iter()
            .all(|m| m["user_email"].is_null())
    );
    let stock_in = |body: &Value| {
        body["media"]
            .as_array()
            .expect("m")
            .iter()
            .filter(|m| m["source_type"] == "stock")
            .count()
    };
    let search_stock = h.list(&h.key, "search=stock").await;
    assert_eq!(stock_in(&search_stock), 2);
    assert!(
        search_stock["media"]
            .as_array()
            .expect("m")
            .iter()
            .any(|m| m["category"] == "stock-footage")
    );
    assert_eq!(
        stock_in(&h.list(&h.key, "search=stock&category=all").await),
        0
    );
    assert_eq!(
        stock_in(&h.list(&h.key, "search=stock&source_type=uploaded").await),
        0
    );

    // NSFW items: both URLs are the placeholder.
    let flagged = h.list(&h.key, &scoped("")).await;
    let nsfw = flagged["media"]
        .as_array()
        .expect("m")
        .iter()
        .find(|m| m["nsfw_detected"] == true)
        .expect("a flagged seeded item");
    assert_eq!(nsfw["url"], nsfw["thumbnail_url"]);
    assert!(nsfw["url"].as_str().expect("url").contains("placeholder"));

    // A project without access: empty list, not an error.
    let ana = h
        .sandbox
        .create_api_key_for_user("ana@studio.test", false)
        .expect("ana");
    let outsider = h.list(&ana, &format!("project_id={project}")).await;
    assert_eq!(outsider["media"], json!([]));
    assert_eq!(outsider["pagination"]["total_items"], 0);
    assert!(
        h.sandbox
            .create_api_key_for_user("nobody@studio.test", false)
            .is_none()
    );
}

#[tokio::test]
async fn generations_and_uploads_become_library_items() {
    let h = harness();
    let project = h.project(&h.key, "Library").await;
    let (status, submit) = h
        .post(
            "/v1/generate/image",
            json!({"prompt": "a paper boat on a rainy street", "num_images": 2, "project_id": project}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{submit}");
    let generation_id = submit["generation_id"].as_str().expect("id").to_owned();
    let done = h.wait_completed(&generation_id).await;
    let credits_used = done["credits_used"].as_f64().expect("credits");

    let list = h
        .list(&h.key, &format!("project_id={project}&sort=created_asc"))
        .await;
    let media = list["media"].as_array().expect("media");
    assert_eq!(media.len(), 2);
    let urls = done["result"]["urls"].as_array().expect("urls");
    for item in media {
        assert!(urls.contains(&item["url"]), "{item}");
        assert_ne!(item["id"], generation_id.as_str());
        assert_eq!(item["category"], "generated");
        assert_eq!(item["source_type"], "generated");
        assert_eq!(item["generation_type"], "text_to_img");
        assert_eq!(item["prompt"], "a paper boat on a rainy street");
        assert_eq!(item["metadata"]["creditsUsed"].as_f64(), Some(credits_used));
        assert_eq!(item["metadata"]["model"], done["result"]["model"]);
        assert_eq!(item["metadata"]["projectId"], project.as_str());
        assert_eq!(item["metadata"]["sessionId"], submit["session_id"]);
        assert!(item["metadata"]["generationDurationSeconds"].is_number());
        assert!(item["thumbnail_url"].is_string());
        assert!(item["width"].as_u64().is_some() && item["size"].as_u64().expect("size") > 0);
    }

    // The generation id finds its lowest-index item, in the camelCase single shape.
    let (status, single) = h.get(&format!("/v1/media/{generation_id}")).await;
    assert_eq!(status, StatusCode::OK, "{single}");
    let one = &single["media"];
    assert_eq!(one["url"], urls[0]);
    assert_eq!(one["metadata"]["outputIndex"], 0);
    for field in [
        "id",
        "type",
        "category",
        "filename",
        "url",
        "size",
        "created",
        "projectId",
        "creditsUsed",
        "generationDurationSeconds",
        "sessionId",
        "session_id",
        "userId",
        "userEmail",
        "userName",
        "userAvatar",
        "isFavorited",
        "isDisliked",
        "generationType",
        "sessionType",
        "metadata",
        "referenceMedia",
    ] {
        assert!(one.get(field).is_some(), "missing {field}: {one}");
    }
    for absent in [
        "thumbnail_url",
        "name",
        "media_type",
        "source_type",
        "prompt",
        "width",
        "nsfw_detected",
    ] {
        assert!(one.get(absent).is_none(), "unexpected {absent}");
    }
    assert!(one["metadata"]["thumbnailUrl"].is_string());
    assert_eq!(one["creditsUsed"].as_f64(), Some(credits_used));
    let item_id = one["id"].as_str().expect("id").to_owned();
    let (status, again) = h.get(&format!("/v1/media/{item_id}")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(again["media"]["id"], item_id.as_str());
    let (status, _) = h.get("/v1/media/not-an-id").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = h.get("/v1/media/0123456789abcdef01234567").await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Uploads: a library item whose id is not the stored-file id in the upload response.
    let (stored_id, url, library_id) = h.upload(&h.key, "sketch.png", Some(&project)).await;
    assert_ne!(stored_id, library_id);
    let (status, _) = h.get(&format!("/v1/media/{stored_id}")).await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "the stored-file id is not a library id"
    );
    let (status, uploaded) = h.get(&format!("/v1/media/{library_id}")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(uploaded["media"]["url"], url.as_str());
    assert_eq!(uploaded["media"]["category"], "uploaded");
    let listed = h
        .list(&h.key, &format!("project_id={project}&category=uploaded"))
        .await;
    assert_eq!(ids(&listed), vec![library_id.clone()]);
    assert_eq!(listed["media"][0]["generation_type"], Value::Null);

    // An edit of the upload is an edited-image item (category=edited).
    let (status, edit) = h
        .post(
            "/v1/generate/image-edit",
            json!({"prompt": "ink wash", "source_images": [url], "project_id": project}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{edit}");
    h.wait_completed(edit["generation_id"].as_str().expect("id"))
        .await;
    let edited = h
        .list(&h.key, &format!("project_id={project}&category=edited"))
        .await;
    assert_eq!(edited["media"].as_array().map(Vec::len), Some(1));
    assert_eq!(edited["media"][0]["category"], "edited-image");
    assert_eq!(edited["media"][0]["generation_type"], "image_editing");
    let ai = h
        .list(&h.key, &format!("project_id={project}&category=ai"))
        .await;
    assert_eq!(ai["pagination"]["total_items"], 3);
}

#[tokio::test]
async fn trash_restore_permanent_and_move() {
    let h = harness();
    let project = h.project(&h.key, "Trash").await;
    let other_project = h.project(&h.key, "Elsewhere").await;
    let (status, submit) = h
        .post(
            "/v1/generate/image",
            json!({"prompt": "a lone tree", "project_id": project}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let generation_id = submit["generation_id"].as_str().expect("id").to_owned();
    let done = h.wait_completed(&generation_id).await;
    let file_url = done["result"]["urls"][0].as_str().expect("url").to_owned();
    let id = ids(&h.list(&h.key, &format!("project_id={project}")).await)[0].clone();
    let ana = h
        .sandbox
        .create_api_key_for_user("ana@studio.test", false)
        .expect("ana");

    // Trash: owner only.
    let (status, _) = h
        .call_as(&ana, Method::DELETE, &format!("/v1/media/{id}"), None)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, body) = h.delete(&format!("/v1/media/{id}")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["success"], true);
    assert_eq!(body["id"], id.as_str());
    assert!(body["message"].is_string());
    let (status, _) = h.get(&format!("/v1/media/{id}")).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "trashed items are 404");
    let live = h.list(&h.key, &format!("project_id={project}")).await;
    assert_eq!(live["media"], json!([]));
    let trashed = h
        .list(
            &h.key,
            &format!("project_id={project}&include_deleted=true"),
        )
        .await;
    assert_eq!(ids(&trashed), vec![id.clone()]);
    let not_literal = h
        .list(&h.key, &format!("project_id={project}&include_deleted=1"))
        .await;
    assert_eq!(not_literal["media"], json!([]));

    // Restore: 404 unless trashed.
    let (status, _) = h.post(&format!("/v1/media/{id}/restore"), json!({})).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = h.post(&format!("/v1/media/{id}/restore"), json!({})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Move to another project.
    let path = format!("/v1/media/{id}/project");
    let (status, _) = h
        .call_as(&h.key, Method::PATCH, &path, Some(json!({})))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = h
        .call_as(
            &h.key,
            Method::PATCH,
            &path,
            Some(json!({"project_id": "xyz"})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let anas_project = h.project(&ana, "Ana's").await;
    let (status, _) = h
        .call_as(
            &h.key,
            Method::PATCH,
            &path,
            Some(json!({"project_id": anas_project})),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _) = h
        .call_as(
            &ana,
            Method::PATCH,
            &path,
            Some(json!({"project_id": anas_project})),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "not owned");
    let (status, moved) = h
        .call_as(
            &h.key,
            Method::PATCH,
            &path,
            Some(json!({"newProjectId": other_project})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{moved}");
    assert_eq!(
        moved,
        json!({"success": true, "id": id, "project_id": other_project})
    );
    let there = h.list(&h.key, &format!("project_id={other_project}")).await;
    assert_eq!(ids(&there), vec![id.clone()]);
    assert_eq!(
        there["media"][0]["metadata"]["projectId"],
        other_project.as_str()
    );
    h.delete(&format!("/v1/media/{id}")).await;
    let (status, _) = h
        .call_as(
            &h.key,
            Method::PATCH,
            &path,
            Some(json!({"project_id": project})),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "trashed items cannot move");

    // Permanent: not for others, removes the file and the generation, idempotent.
    let (status, _) = h
        .call_as(
            &ana,
            Method::DELETE,
            &format!("/v1/media/{id}/permanent"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(
        reqwest::get(&file_url).await.expect("fetch").status(),
        StatusCode::OK
    );
    let (status, body) = h.delete(&format!("/v1/media/{id}/permanent")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["id"], id.as_str());
    assert_eq!(
        reqwest::get(&file_url).await.expect("fetch").status(),
        StatusCode::NOT_FOUND
    );
    let (status, _) = h.delete(&format!("/v1/media/{id}/permanent")).await;
    assert_eq!(status, StatusCode::OK, "idempotent");
    let (status, _) = h.get(&format!("/v1/generate/{generation_id}/status")).await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "the source generation record is gone"
    );
    let (status, _) = h.get(&format!("/v1/media/{generation_id}")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = h.delete("/v1/media/bad/permanent").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn bulk_routes() {
    let h = harness();
    let project = h.project(&h.key, "Bulk").await;
    let target = h.project(&h.key, "Target").await;
    h.sandbox.seed_media(5, Some(&project));
    let mine = ids(&h.list(&h.key, &format!("project_id={project}")).await);
    let ana = h
        .sandbox
        .create_api_key_for_user("ana@studio.test", false)
        .expect("ana");
    let (_, _, anas_item) = h.upload(&ana, "ana.png", None).await;
    let unknown = "0123456789abcdef01234567";

    // One malformed id rejects the whole call; limits.
    let (status, body) = h
        .post(
            "/v1/media/bulk/delete",
            json!({"media_ids": [mine[0], "oops"]}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["success"], false);
    assert_eq!(
        h.list(&h.key, &format!("project_id={project}")).await["media"]
            .as_array()
            .map(Vec::len),
        Some(5)
    );
    let (status, _) = h
        .post("/v1/media/bulk/delete", json!({"media_ids": []}))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let too_many: Vec<&str> = std::iter::repeat_n(unknown, 1001).collect();
    let (status, _) = h
        .post("/v1/media/bulk/delete", json!({"media_ids": too_many}))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // Delete: partial match → one error entry; no match → empty errors and a zero count.
    let (status, body) = h
        .post(
            "/v1/media/bulk/delete",
            json!({"media_ids": [mine[0], mine[1], anas_item, unknown]}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["deleted_count"], 2);
    let errors = body["errors"].as_array().expect("errors");
    assert_eq!(errors.len(), 1);
    assert!(errors[0]["error"].as_str().expect("error").contains('2'));
    let (_, body) = h
        .post("/v1/media/bulk/delete", json!({"mediaIds": [unknown]}))
        .await;
    assert_eq!(body["deleted_count"], 0);
    assert_eq!(body["errors"], json!([]));
    let (_, body) = h
        .post("/v1/media/bulk/delete", json!({"media_ids": [mine[2]]}))
        .await;
    assert_eq!(
        (body["deleted_count"].clone(), body["errors"].clone()),
        (json!(1), json!([]))
    );

    // Restore: count plus not_found as a number.
    let (_, body) = h
        .post(
            "/v1/media/bulk/restore",
            json!({"media_ids": [mine[0], mine[1], mine[3], unknown]}),
        )
        .await;
    assert_eq!(body["restored_count"], 2);
    assert_eq!(body["not_found"], 2);

    // Move is atomic: one foreign or trashed id → 403 and nothing moves.
    let (status, body) = h
        .post(
            "/v1/media/bulk/move",
            json!({"media_ids": [mine[0], mine[1], anas_item], "project_id": target}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(
        body["error"].as_str().expect("error").contains("2 of 3"),
        "{body}"
    );
    let (status, _) = h
        .post(
            "/v1/media/bulk/move",
            json!({"media_ids": [mine[0], mine[2]], "project_id": target}),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "trashed items block the move"
    );
    assert_eq!(
        h.list(&h.key, &format!("project_id={target}")).await["media"],
        json!([])
    );
    let (status, _) = h
        .post("/v1/media/bulk/move", json!({"media_ids": [mine[0]]}))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let anas_project = h.project(&ana, "Ana's").await;
    let (status, _) = h
        .post(
            "/v1/media/bulk/move",
            json!({"media_ids": [mine[0]], "project_id": anas_project}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, body) = h
        .post(
            "/v1/media/bulk/move",
            json!({"media_ids": [mine[0], mine[1]], "newProjectId": target}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["moved_count"], 2);
    assert_eq!(body["project_id"], target.as_str());

    // Permanent: others' ids skipped.
    let (_, body) = h
        .post(
            "/v1/media/bulk/permanent",
            json!({"media_ids": [mine[2], mine[4], anas_item]}),
        )
        .await;
    assert_eq!(body["deleted_count"], 2);
    assert_eq!(body["errors"].as_array().map(Vec::len), Some(1));
    let (status, _) = h
        .call_as(&ana, Method::GET, &format!("/v1/media/{anas_item}"), None)
        .await;
    assert_eq!(status, StatusCode::OK, "ana's item survived");
}

#[tokio::test]
async fn favorites_stats_and_project_members() {
    let h = harness();
    let project = h.project(&h.key, "Shared").await;
    assert!(h.sandbox.add_project_member(&project, "ana@studio.test"));
    h.sandbox.seed_media(20, Some(&project));
    let items = ids(&h.list(&h.key, &format!("project_id={project}")).await);
    let ana = h
        .sandbox
        .create_api_key_for_user("ana@studio.test", false)
        .expect("ana");
    let ben = h
        .sandbox
        .create_api_key_for_user("ben@studio.test", false)
        .expect("ben");
    let (_, _, anas_upload) = h.upload(&ana, "ana-in-shared.png", Some(&project)).await;

    // Members read each other's items and see user details with project_id.
    let (status, _) = h
        .call_as(&ana, Method::GET, &format!("/v1/media/{}", items[0]), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = h
        .call_as(&ben, Method::GET, &format!("/v1/media/{}", items[0]), None)
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let shared = h
        .list(&ana, &format!("project_id={project}&page_size=200"))
        .await;
    assert_eq!(shared["pagination"]["total_items"], 21);
    let anas_row = shared["media"]
        .as_array()
        .expect("m")
        .iter()
        .find(|m| m["id"] == anas_upload.as_str())
        .expect("ana's upload listed");
    assert_eq!(anas_row["user_email"], "ana@studio.test");
    assert_eq!(anas_row["user_name"], "Ana Ortega");

    // Favourites: project-wide, idempotent; DELETE clears every member's star.
    let fav = format!("/v1/media/{}/favorite", items[0]);
    let (status, body) = h.call_as(&ana, Method::POST, &fav, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        body,
        json!({"success": true, "id": items[0], "is_favorited": true})
    );
    let (status, _) = h.call_as(&ana, Method::POST, &fav, None).await;
    assert_eq!(status, StatusCode::OK);
    h.call_as(&h.key, Method::POST, &fav, None).await;
    let favorites = h
        .list(&h.key, &format!("project_id={project}&category=favorites"))
        .await;
    assert_eq!(ids(&favorites), vec![items[0].clone()]);
    assert_eq!(favorites["media"][0]["is_favorited"], true);
    let (status, _) = h.call_as(&ben, Method::POST, &fav, None).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, body) = h.call_as(&h.key, Method::DELETE, &fav, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["is_favorited"], false);
    let favorites = h
        .list(&ana, &format!("project_id={project}&category=favorites"))
        .await;
    assert_eq!(favorites["media"], json!([]), "cleared for every member");
    let (status, body) = h.call_as(&h.key, Method::DELETE, &fav, None).await;
    assert_eq!(
        (status, body["is_favorited"].clone()),
        (StatusCode::OK, json!(false))
    );

    // Stats.
    let stats = |body: &Value| body["stats"].clone();
    let (status, body) = h
        .get(&format!("/v1/media/stats?project_id={project}"))
        .await;
    assert_eq!(status, StatusCode::OK);
    let project_stats = stats(&body);
    assert_eq!(project_stats["total"], 21);
    assert_eq!(project_stats["images"], 15);
    assert_eq!(project_stats["videos"], 4);
    assert_eq!(project_stats["audio"], 2);
    assert!(project_stats["total_size_bytes"].as_u64().expect("size") > 0);
    let (_, by_ana) = h
        .call_as(
            &ana,
            Method::GET,
            &format!("/v1/media/stats?projectId={project}"),
            None,
        )
        .await;
    assert_eq!(
        stats(&by_ana),
        project_stats,
        "members count everyone's media"
    );
    let (status, by_ben) = h
        .call_as(
            &ben,
            Method::GET,
            &format!("/v1/media/stats?project_id={project}"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        stats(&by_ben),
        json!({"total": 0, "images": 0, "videos": 0, "audio": 0, "total_size_bytes": 0})
    );
    let (status, _) = h.get("/v1/media/stats?project_id=zz").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    h.delete(&format!("/v1/media/{}", items[1])).await;
    let (_, body) = h
        .get(&format!("/v1/media/stats?project_id={project}"))
        .await;
    assert_eq!(stats(&body)["total"], 20, "trashed items are excluded");
    let (_, own) = h.get("/v1/media/stats").await;
    // Own media across projects: 19 live seeded + 2 stock items in the default project.
    assert_eq!(stats(&own)["total"], 21);
}

#[tokio::test]
async fn folders_sharing_and_member_rules() {
    let h = harness();
    let project = h.project(&h.key, "Folders").await;
    h.sandbox.seed_media(6, Some(&project));
    let items = ids(&h
        .list(&h.key, &format!("project_id={project}&sort=created_asc"))
        .await);
    let ana = h
        .sandbox
        .create_api_key_for_user("ana@studio.test", false)
        .expect("ana");
    let ben = h
        .sandbox
        .create_api_key_for_user("ben@studio.test", false)
        .expect("ben");
    let ana_id = h
        .sandbox
        .user_id_for_email("ana@studio.test")
        .expect("ana id");

    // Create: validation, defaults, platform shape for an over-long icon.
    for bad in [
        json!({}),
        json!({"name": "   "}),
        json!({"name": "x".repeat(101)}),
        json!({"name": "ok", "description": "d".repeat(501)}),
        json!({"name": "ok", "color": "red"}),
        json!({"name": "ok", "color": "#12345G"}),
    ] {
        let (status, body) = h.post("/v1/media/folders", bad.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
        assert_eq!(body["success"], false);
    }
    let (status, body) = h
        .post(
            "/v1/media/folders",
            json!({"name": "ok", "icon": "i".repeat(51)}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        body,
        json!({"status": false, "message": "Validation Error", "code": "VALIDATION_ERROR"})
    );
    let (status, body) = h
        .post(
            "/v1/media/folders",
            json!({"name": "  Moodboard  ", "description": "refs"}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let folder = body["folder"].clone();
    let folder_id = folder["id"].as_str().expect("id").to_owned();
    assert_eq!(folder["name"], "Moodboard");
    assert_eq!(folder["color"], "#3B82F6");
    assert_eq!(folder["icon"], "folder");
    assert_eq!(folder["item_count"], 0);
    assert_eq!(folder["is_owner"], true);
    assert_eq!(folder["shared_with"], json!([]));
    assert_eq!(folder["shared_with_count"], 0);
    assert_eq!(folder["project_id"], Value::Null);
    assert!(folder["created_at"].is_string() && folder["last_updated"].is_string());
    let (_, second) = h
        .post(
            "/v1/media/folders",
            json!({"name": "Second", "color": "#a1b2c3"}),
        )
        .await;
    let (_, listed) = h.get("/v1/media/folders").await;
    assert_eq!(listed["count"], 2);
    assert_eq!(
        listed["folders"][0]["id"], second["folder"]["id"],
        "newest first"
    );

    // Update: owner only, omitted fields unchanged, "" clears, null colour 400.
    let folder_path = format!("/v1/media/folders/{folder_id}");
    let (status, _) = h
        .call_as(
            &ana,
            Method::PUT,
            &folder_path,
            Some(json!({"name": "mine"})),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, body) = h
        .call_as(
            &h.key,
            Method::PUT,
            &folder_path,
            Some(json!({"color": "#FF0000", "description": ""})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["folder"]["name"], "Moodboard");
    assert_eq!(body["folder"]["color"], "#FF0000");
    assert_eq!(body["folder"]["description"], Value::Null);
    for bad in [
        json!({"color": null}),
        json!({"color": "FF0000"}),
        json!({"name": ""}),
    ] {
        let (status, _) = h
            .call_as(&h.key, Method::PUT, &folder_path, Some(bad.clone()))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
    }

    // Add items: only owned; none owned → 403; already present → skipped.
    let items_path = format!("/v1/media/folders/{folder_id}/items");
    let (_, _, anas_item) = h.upload(&ana, "ana.png", None).await;
    let (status, body) = h
        .post(
            &items_path,
            json!({"media_ids": [items[0], items[1], anas_item]}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["folder_id"], folder_id.as_str());
    assert_eq!(body["added"], 2);
    assert_eq!(body["skipped"], 0);
    assert_eq!(body["rejected"], json!([anas_item]));
    let (_, body) = h
        .post(&items_path, json!({"media_ids": [items[1], items[2]]}))
        .await;
    assert_eq!(
        (body["added"].clone(), body["skipped"].clone()),
        (json!(1), json!(1))
    );
    let (status, _) = h.post(&items_path, json!({"media_ids": [anas_item]})).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _) = h.post(&items_path, json!({"media_ids": ["bad"]})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // Folder listing: folder order (latest added first), other filters ignored.
    let in_folder = h
        .list(
            &h.key,
            &format!("folder_id={folder_id}&type=audio&sort=name_asc&search=zzz&project_id=nope"),
        )
        .await;
    // Same-call additions share a timestamp; the later insert counts as more recent.
    assert_eq!(
        ids(&in_folder),
        vec![items[2].clone(), items[1].clone(), items[0].clone()],
        "most recently added first"
    );
    assert_eq!(in_folder["pagination"]["total_items"], 3);
    let paged = h
        .list(&h.key, &format!("folder_id={folder_id}&page_size=2&page=2"))
        .await;
    assert_eq!(paged["media"].as_array().map(Vec::len), Some(1));
    assert_eq!(paged["pagination"]["total_items"], -1);
    h.delete(&format!("/v1/media/{}", items[0])).await;
    let trashed = h
        .list(
            &h.key,
            &format!("folder_id={folder_id}&include_deleted=true"),
        )
        .await;
    assert_eq!(ids(&trashed), vec![items[0].clone()]);
    h.post(&format!("/v1/media/{}/restore", items[0]), json!({}))
        .await;
    let (status, _) = h.get("/v1/media?folder_id=nope").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = h
        .call_as(
            &ana,
            Method::GET,
            &format!("/v1/media?folder_id={folder_id}"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "not shared yet");

    // Share by e-mail: trimmed, lower-cased, owner's own ignored, unknown listed.
    let share_path = format!("/v1/media/folders/{folder_id}/share");
    let (status, body) = h
        .post(&share_path, json!({"user_emails": ["  ANA@studio.test ", "nobody@nowhere.test", "sandbox@localhost"]}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["shared_with_user_ids"], json!([ana_id]));
    assert_eq!(body["not_found"], json!(["nobody@nowhere.test"]));
    assert_eq!(body["folder"]["shared_with_count"], 1);
    let (_, again) = h
        .post(&share_path, json!({"user_emails": ["ana@studio.test"]}))
        .await;
    assert_eq!(again["shared_with_user_ids"], json!([ana_id]), "idempotent");
    let (status, _) = h.post(&share_path, json!({"user_emails": []})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let fifty_one: Vec<String> = (0..51).map(|n| format!("u{n}@x.test")).collect();
    let (status, _) = h.post(&share_path, json!({"user_emails": fifty_one})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // The shared member: lists, adds own items, removes only what they added.
    let (_, anas_folders) = h
        .call_as(&ana, Method::GET, "/v1/media/folders", None)
        .await;
    assert_eq!(anas_folders["count"], 1);
    assert_eq!(anas_folders["folders"][0]["is_owner"], false);
    let seen_by_ana = h.list(&ana, &format!("folder_id={folder_id}")).await;
    assert_eq!(seen_by_ana["media"].as_array().map(Vec::len), Some(3));
    let (status, body) = h
        .call_as(
            &ana,
            Method::POST,
            &items_path,
            Some(json!({"media_ids": [anas_item]})),
        )
        .await;
    assert_eq!((status, body["added"].clone()), (StatusCode::OK, json!(1)));
    let (_, body) = h
        .call_as(
            &ana,
            Method::DELETE,
            &items_path,
            Some(json!({"media_ids": [items[0]]})),
        )
        .await;
    assert_eq!(
        body["removed"], 0,
        "a member cannot remove the owner's items"
    );
    for (method, path, body) in [
        (Method::PUT, folder_path.clone(), json!({"name": "renamed"})),
        (Method::DELETE, folder_path.clone(), json!({})),
        (
            Method::POST,
            share_path.clone(),
            json!({"user_emails": ["ben@studio.test"]}),
        ),
        (Method::DELETE, format!("{share_path}/{ana_id}"), json!({})),
    ] {
        let (status, _) = h.call_as(&ana, method, &path, Some(body)).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "member may not: {path}");
    }
    let (status, _) = h
        .call_as(
            &ben,
            Method::GET,
            &format!("/v1/media?folder_id={folder_id}"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Move contents: the owner does not own ana's item → 403 with the count; nothing moves.
    let move_path = format!("/v1/media/folders/{folder_id}/move-contents");
    let target = h.project(&h.key, "Target").await;
    let (status, body) = h.post(&move_path, json!({"project_id": target})).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(
        body["error"]
            .as_str()
            .expect("error")
            .contains("1 of the 4"),
        "{body}"
    );
    let anas_project = h.project(&ana, "Ana's").await;
    let (status, _) = h
        .post(&move_path, json!({"project_id": anas_project}))
        .await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "target must be owned outright"
    );
    let (status, _) = h.post(&move_path, json!({})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // Removing: malformed id → platform shape; the member removes what they added.
    let (status, body) = h
        .call_as(
            &h.key,
            Method::DELETE,
            &items_path,
            Some(json!({"media_ids": ["nope"]})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        body,
        json!({"status": false, "message": "Invalid ID format", "code": "INVALID_ID_FORMAT"})
    );
    let (_, body) = h
        .call_as(
            &ana,
            Method::DELETE,
            &items_path,
            Some(json!({"media_ids": [anas_item]})),
        )
        .await;
    assert_eq!(
        body,
        json!({"success": true, "folder_id": folder_id, "removed": 1})
    );
    let (status, body) = h.post(&move_path, json!({"newProjectId": target})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["moved_count"], 3);
    assert_eq!(body["project_id"], target.as_str());
    assert_eq!(
        h.list(&h.key, &format!("project_id={target}")).await["pagination"]["total_items"],
        3
    );
    let (_, body) = h
        .call_as(
            &h.key,
            Method::DELETE,
            &items_path,
            Some(json!({"media_ids": [items[0]]})),
        )
        .await;
    assert_eq!(body["removed"], 1, "the owner removes anything");

    // Unshare: object id required, idempotent.
    let (status, _) = h.delete(&format!("{share_path}/not-an-id")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    for _ in 0..2 {
        let (status, body) = h.delete(&format!("{share_path}/{ana_id}")).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body["revoked_user_id"], ana_id.as_str());
        assert_eq!(body["folder"]["shared_with"], json!([]));
    }
    let (_, anas_folders) = h
        .call_as(&ana, Method::GET, "/v1/media/folders", None)
        .await;
    assert_eq!(anas_folders["count"], 0);

    // A folder visible only through a shared project is listed but not readable.
    let (_, body) = h
        .post("/v1/media/folders", json!({"name": "Project folder"}))
        .await;
    let project_folder = body["folder"]["id"].as_str().expect("id").to_owned();
    assert!(
        h.sandbox
            .assign_folder_to_project(&project_folder, &project)
    );
    assert!(h.sandbox.add_project_member(&project, "ben@studio.test"));
    let (_, bens) = h
        .call_as(&ben, Method::GET, "/v1/media/folders", None)
        .await;
    assert_eq!(bens["count"], 1);
    assert_eq!(bens["folders"][0]["is_owner"], false);
    let (status, _) = h
        .call_as(
            &ben,
            Method::GET,
            &format!("/v1/media?folder_id={project_folder}"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Empty folder move → 0; soft delete keeps the items.
    let empty_move = format!("/v1/media/folders/{project_folder}/move-contents");
    let (status, body) = h.post(&empty_move, json!({"project_id": target})).await;
    assert_eq!(
        (status, body["moved_count"].clone()),
        (StatusCode::OK, json!(0))
    );
    let (status, body) = h.delete(&folder_path).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, json!({"success": true, "id": folder_id}));
    let (status, _) = h.get(&format!("/v1/media?folder_id={folder_id}")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = h.get(&format!("/v1/media/{}", items[1])).await;
    assert_eq!(status, StatusCode::OK, "items stay in the library");
}

#[tokio::test]
async fn upload_ticket_flow() {
    let h = harness();
    let project = h.project(&h.key, "Tickets").await;
    let (status, ticket) = h
        .post("/v1/media/upload-ticket", json!({"project_id": project}))
        .await;
    assert_eq!(status, StatusCode::OK, "{ticket}");
    assert_eq!(ticket["success"], true);
    assert!(ticket["token"].is_string());
    assert_eq!(ticket["expires_in"], 600);
    assert_eq!(ticket["max_file_mb"], 500);
    let upload_url = ticket["upload_url"]
        .as_str()
        .expect("upload_url")
        .to_owned();

    // No API key: the ticket is the credential, once.
    let response = h
        .http
        .post(&upload_url)
        .multipart(png_form("ticket.png", 9))
        .send()
        .await
        .expect("upload");
    assert_eq!(response.status(), StatusCode::CREATED);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["media"]["project_id"], project.as_str());
    let url = body["media"]["url"].as_str().expect("url").to_owned();
    let listed = h.list(&h.key, &format!("project_id={project}")).await;
    assert_eq!(listed["media"][0]["url"], url.as_str());
    assert_eq!(listed["media"][0]["source_type"], "uploaded");
    let response = h
        .http
        .post(&upload_url)
        .multipart(png_form("again.png", 9))
        .send()
        .await
        .expect("upload");
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "single use");

    // Token in the query works too; expired tickets do not.
    let (_, ticket) = h.post("/v1/media/upload-ticket", json!({})).await;
    let token = ticket["token"].as_str().expect("token").to_owned();
    let origin = upload_url
        .split("/upload-tickets/")
        .next()
        .expect("origin")
        .to_owned();
    let response = h
        .http
        .post(format!("{origin}/upload-tickets?token={token}"))
        .multipart(png_form("query.png", 3))
        .send()
        .await
        .expect("upload");
    assert_eq!(response.status(), StatusCode::CREATED);
    let (_, ticket) = h.post("/v1/media/upload-ticket", json!({})).await;
    h.sandbox.advance_clock_days(1);
    let response = h
        .http
        .post(ticket["upload_url"].as_str().expect("url"))
        .multipart(png_form("late.png", 4))
        .send()
        .await
        .expect("upload");
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "expired");
    let (status, _) = h
        .post("/v1/media/upload-ticket", json!({"project_id": "bad"}))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn trash_retention_sweep_after_30_days() {
    let h = harness();
    let project = h.project(&h.key, "Retention").await;
    let (_, url, uploaded) = h.upload(&h.key, "old.png", Some(&project)).await;
    h.sandbox.seed_media(3, Some(&project));
    let items = ids(&h.list(&h.key, &format!("project_id={project}")).await);
    let keep = items
        .iter()
        .find(|id| **id != uploaded)
        .expect("seeded")
        .clone();
    let (_, body) = h
        .post(
            "/v1/media/bulk/delete",
            json!({"media_ids": [uploaded, keep]}),
        )
        .await;
    assert_eq!(body["deleted_count"], 2);
    h.sandbox.advance_clock_days(29);
    let trashed = h
        .list(
            &h.key,
            &format!("project_id={project}&include_deleted=true"),
        )
        .await;
    assert_eq!(
        trashed["media"].as_array().map(Vec::len),
        Some(2),
        "still recoverable"
    );
    h.post(&format!("/v1/media/{keep}/restore"), json!({}))
        .await;
    h.sandbox.advance_clock_days(2);
    let trashed = h
        .list(
            &h.key,
            &format!("project_id={project}&include_deleted=true"),
        )
        .await;
    assert_eq!(trashed["media"], json!([]), "expired trash is gone");
    let (status, _) = h
        .post(&format!("/v1/media/{uploaded}/restore"), json!({}))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(
        reqwest::get(&url).await.expect("fetch").status(),
        StatusCode::NOT_FOUND
    );
    let live = h.list(&h.key, &format!("project_id={project}")).await;
    assert_eq!(
        live["pagination"]["total_items"], 3,
        "restored and untouched items stay"
    );
    assert_eq!(h.sandbox.purge_expired_trash(), 0);
}

#[tokio::test]
async fn media_rate_limits() {
    let h = harness();
    let dev = h
        .sandbox
        .create_api_key_for_user("dev@studio.test", false)
        .expect("dev");
    let body = json!({"media_ids": ["0123456789abcdef01234567"]});
    for _ in 0..20 {
        let (status, _) = h
            .call_as(
                &dev,
                Method::POST,
                "/v1/media/bulk/restore",
                Some(body.clone()),
            )
            .await;
        assert_eq!(status, StatusCode::OK);
    }
    let (status, limited) = h
        .call_as(&dev, Method::POST, "/v1/media/bulk/restore", Some(body))
        .await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(limited["retryAfter"], 60);
    // The 120/min group is separate from the bulk group.
    for _ in 0..120 {
        let (status, _) = h.call_as(&dev, Method::GET, "/v1/media/stats", None).await;
        assert_eq!(status, StatusCode::OK);
    }
    let (status, limited) = h.call_as(&dev, Method::GET, "/v1/media?page=1", None).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(limited["retryAfter"], 60);
    assert_eq!(limited["status"], false);
}

#[tokio::test]
async fn seeds_a_hundred_thousand_items() {
    let h = harness();
    assert_eq!(h.sandbox.seed_media(100_000, None), 100_000);
    let first = h.list(&h.key, "page_size=200").await;
    assert_eq!(
        first["pagination"]["total_items"], 100_002,
        "plus the two stock items"
    );
    assert_eq!(first["media"].as_array().map(Vec::len), Some(200));
    let deep = h
        .list(&h.key, "page=300&page_size=200&type=image&sort=name_desc")
        .await;
    assert_eq!(deep["pagination"]["has_next"], true);
    let search = h.list(&h.key, "search=koi%20pond&category=ai").await;
    assert!(search["pagination"]["total_items"].as_i64().expect("n") > 1000);
    let thumb = first["media"][1]["thumbnail_url"]
        .as_str()
        .expect("thumb")
        .to_owned();
    assert_eq!(
        reqwest::get(&thumb).await.expect("fetch").status(),
        StatusCode::OK
    );
}

/// A decompression bomb (issue 19) is stored as the file it is, never decoded: the upload
/// succeeds, the library item has a placeholder thumbnail, its size from the header, and
/// says why in its metadata.
#[tokio::test]
async fn a_decompression_bomb_is_stored_with_a_placeholder_and_a_reason() {
    let h = harness();
    let bomb = service_support::png_of_zeros(16_384);
    let media = h.upload_png(&h.key, "zeros.png", bomb.clone()).await;
    let url = media["url"].as_str().expect("url").to_owned();
    let thumbnail_url = media["thumbnail_url"]
        .as_str()
        .expect("a placeholder thumbnail")
        .to_owned();

    let list = h.list(&h.key, "source_type=uploaded&page_size=200").await;
    let item = list["media"]
        .as_array()
        .expect("media")
        .iter()
        .find(|m| m["url"] == url.as_str())
        .expect("the upload is listed")
        .clone();
    assert_eq!(item["thumbnail_url"], thumbnail_url.as_str());
    assert_eq!(
        (item["width"].clone(), item["height"].clone()),
        (json!(16_384), json!(16_384))
    );
    let reason = item["metadata"]["previewUnavailable"]
        .as_str()
        .unwrap_or_else(|| panic!("the item says why: {item}"));
    assert!(
        reason.contains("16384 × 16384 px") && reason.contains("50 megapixels"),
        "{reason}"
    );

    // The file is kept byte for byte; the thumbnail is a small picture.
    let stored = h.http.get(&url).send().await.expect("file");
    assert_eq!(
        stored.bytes().await.expect("bytes").as_ref(),
        bomb.as_slice()
    );
    let thumb = h.http.get(&thumbnail_url).send().await.expect("thumbnail");
    let thumb = image::load_from_memory(&thumb.bytes().await.expect("bytes")).expect("jpeg");
    assert!(thumb.width().max(thumb.height()) <= 256);
}

// ---- Hardening (issue 19): the sandbox shares the studio's process, so no request or
// ---- connection may exhaust it.

/// Upper bound for waiting on an answer or a close; reaching it fails the test.
const HARDENING_WAIT: Duration = Duration::from_secs(20);

/// A multipart body: `description` of `description_bytes` bytes, then a small PNG as `file`.
/// Returns the bytes up to the end of the description and the rest.
fn description_form(description_bytes: usize) -> (Vec<u8>, Vec<u8>) {
    let mut head =
        b"--XBOUNDARY\r\nContent-Disposition: form-data; name=\"description\"\r\n\r\n".to_vec();
    head.resize(head.len() + description_bytes, b'a');
    let mut tail = b"\r\n--XBOUNDARY\r\nContent-Disposition: form-data; name=\"file\"; \
filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n"
        .to_vec();
    tail.extend_from_slice(&tiny_png(1));
    tail.extend_from_slice(b"\r\n--XBOUNDARY--\r\n");
    (head, tail)
}

/// The request line and headers of a multipart POST declaring `content_length`.
fn multipart_head(path: &str, key: Option<&str>, content_length: u64) -> Vec<u8> {
    let key = key
        .map(|key| format!("X-API-Key: {key}\r\n"))
        .unwrap_or_default();
    format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{key}\
Content-Type: multipart/form-data; boundary=XBOUNDARY\r\nContent-Length: {content_length}\r\n\r\n"
    )
    .into_bytes()
}

/// Sends `sent` on a new connection and then nothing more (the request stays unfinished),
/// and reads what comes back until the server closes or `HARDENING_WAIT` passes. `None`:
/// the server neither answered nor closed.
async fn send_and_stall(port: u16, sent: Vec<u8>) -> Option<String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    let (mut read, mut write) = stream.into_split();
    // Writing may block once the server stops reading; the answer is read meanwhile.
    let writer = tokio::spawn(async move {
        let _ = write.write_all(&sent).await;
        // Keep the write half open: the request is never finished.
        tokio::time::sleep(HARDENING_WAIT * 2).await;
        drop(write);
    });
    let mut received = Vec::new();
    let read_all = async {
        let mut buf = [0u8; 4096];
        loop {
            match read.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => received.extend_from_slice(&buf[..n]),
            }
        }
    };
    let closed = tokio::time::timeout(HARDENING_WAIT, read_all).await.is_ok();
    writer.abort();
    closed.then(|| String::from_utf8_lossy(&received).into_owned())
}

/// Status code and JSON body of a raw HTTP/1.1 answer.
fn parse_answer(answer: &str) -> (u16, Value) {
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {answer:?}"));
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, body)| body);
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

/// Shape 2 of contract document 1 with status 413.
fn assert_too_large_shape_2(answer: &str) {
    let (status, body) = parse_answer(answer);
    assert_eq!(status, 413, "{answer}");
    assert_eq!(body["status"], false, "{answer}");
    let message = body["message"].as_str().expect("message");
    assert_eq!(body["errors"], json!([message]), "{answer}");
}

#[tokio::test]
async fn oversized_text_fields_are_refused_while_still_arriving() {
    let h = harness();
    let port = h.sandbox.port();
    // 16 MB of description, then the request stalls with the rest unsent: only a server
    // that stops reading the field at its cap can answer.
    let (head, tail) = description_form(16 * 1024 * 1024);
    let length = (head.len() + tail.len()) as u64;
    let mut sent = multipart_head("/api/v1/media/upload", Some(&h.key), length);
    sent.extend_from_slice(&head);
    let answer = send_and_stall(port, sent)
        .await
        .expect("an answer before the request was complete: the field was read whole");
    assert_too_large_shape_2(&answer);
    assert!(answer.contains("description"), "{answer}");

    // The same on a ticket upload, for `project_id`.
    let (_, ticket) = h.post("/v1/media/upload-ticket", json!({})).await;
    let token = ticket["token"].as_str().expect("token").to_owned();
    let mut form =
        b"--XBOUNDARY\r\nContent-Disposition: form-data; name=\"project_id\"\r\n\r\n".to_vec();
    form.resize(form.len() + 1024 * 1024, b'0');
    let mut sent = multipart_head(&format!("/upload-tickets/{token}"), None, 4 * 1024 * 1024);
    sent.extend_from_slice(&form);
    let answer = send_and_stall(port, sent).await.expect("an answer");
    assert_too_large_shape_2(&answer);

    // A description within the cap is kept (video and audio record it).
    let response = h
        .http
        .post(h.url("/v1/media/upload"))
        .header("X-API-Key", &h.key)
        .multipart(
            reqwest::multipart::Form::new()
                .text("description", "d".repeat(8 * 1024))
                .part(
                    "file",
                    reqwest::multipart::Part::bytes(vec![0u8; 64])
                        .file_name("clip.mp4")
                        .mime_str("video/mp4")
                        .expect("mime"),
                ),
        )
        .send()
        .await
        .expect("upload");
    assert_eq!(response.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn uploads_declaring_more_than_the_cap_are_refused_from_the_header() {
    let h = harness();
    let port = h.sandbox.port();
    let declared = 600 * 1024 * 1024;
    // Only the headers are sent: the answer can only come from the declared length.
    let answer = send_and_stall(
        port,
        multipart_head("/api/v1/media/upload", Some(&h.key), declared),
    )
    .await
    .expect("an answer without the body");
    assert_too_large_shape_2(&answer);

    let (_, ticket) = h.post("/v1/media/upload-ticket", json!({})).await;
    let token = ticket["token"].as_str().expect("token").to_owned();
    for path in [
        format!("/upload-tickets/{token}"),
        format!("/upload-tickets?token={token}"),
    ] {
        let answer = send_and_stall(port, multipart_head(&path, None, declared))
            .await
            .expect("an answer without the body");
        assert_too_large_shape_2(&answer);
    }
    // The refusals did not use up the ticket.
    let response = h
        .http
        .post(ticket["upload_url"].as_str().expect("url"))
        .multipart(png_form("after.png", 5))
        .send()
        .await
        .expect("upload");
    assert_eq!(response.status(), StatusCode::CREATED);

    // The coding-assistant upload answers in its own envelope.
    let answer = send_and_stall(
        port,
        multipart_head("/api/kolbo/v1/files", Some(&h.key), declared),
    )
    .await
    .expect("an answer without the body");
    let (status, body) = parse_answer(&answer);
    assert_eq!(status, 413, "{answer}");
    assert_eq!(body["error"]["type"], "validation_error", "{answer}");
}

/// A sandbox with `limits`, its data in `dir`.
fn sandbox_with(
    dir: &tempfile::TempDir,
    limits: framewright::sandbox::ConnectionLimits,
) -> framewright::sandbox::SandboxHandle {
    let mut config = framewright::sandbox::SandboxConfig::new(dir.path().join("sandbox"));
    config.connection_limits = limits;
    framewright::sandbox::start(config).expect("sandbox starts")
}

#[tokio::test]
async fn slow_and_idle_connections_are_closed_by_the_timeouts() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sandbox = sandbox_with(
        &dir,
        framewright::sandbox::ConnectionLimits {
            header_read_timeout_secs: 1,
            body_idle_timeout_secs: 1,
            ..Default::default()
        },
    );
    let port = sandbox.port();
    // Half a request line and header, then silence (slowloris).
    let slow_headers =
        send_and_stall(port, b"GET /api/v1/models HTTP/1.1\r\nHost: 1".to_vec()).await;
    assert!(slow_headers.is_some(), "a stalled header is closed");
    // Nothing at all.
    assert!(
        send_and_stall(port, Vec::new()).await.is_some(),
        "an idle connection is closed"
    );
    // A body that stops arriving.
    let body_head = format!(
        "POST /api/v1/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: {}\r\n\
Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"name\":",
        sandbox.api_key()
    );
    let slow_body = send_and_stall(port, body_head.into_bytes()).await;
    assert!(slow_body.is_some(), "a stalled body is closed");
    // The server still serves.
    let response = reqwest::Client::new()
        .get(format!("{}/v1/models", sandbox.base_url()))
        .header("X-API-Key", sandbox.api_key())
        .send()
        .await
        .expect("models");
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test]
async fn connections_over_the_cap_are_closed_and_served_again_below_it() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let dir = tempfile::tempdir().expect("temp dir");
    let sandbox = sandbox_with(
        &dir,
        framewright::sandbox::ConnectionLimits {
            max_connections: 2,
            ..Default::default()
        },
    );
    let port = sandbox.port();
    let request = format!(
        "GET /api/v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: {}\r\n\r\n",
        sandbox.api_key()
    );
    // Two kept-alive connections that were served, so the server holds both.
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .expect("connect");
        stream.write_all(request.as_bytes()).await.expect("write");
        let mut buf = [0u8; 64];
        let n = stream.read(&mut buf).await.expect("answer");
        assert!(buf[..n].starts_with(b"HTTP/1.1 200"), "{:?}", &buf[..n]);
        held.push(stream);
    }
    // A third is closed without an answer, however long it waits.
    let third = send_and_stall(port, request.clone().into_bytes())
        .await
        .expect("closed at the cap");
    assert!(third.is_empty(), "no answer over the cap: {third}");
    // Once one closes, new connections are served again.
    drop(held.pop());
    let deadline = tokio::time::Instant::now() + HARDENING_WAIT;
    loop {
        let response = reqwest::Client::new()
            .get(format!("{}/v1/models", sandbox.base_url()))
            .header("X-API-Key", sandbox.api_key())
            .send()
            .await;
        if response.is_ok_and(|r| r.status() == StatusCode::OK) {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "never served again");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn the_admin_clock_stays_in_range_and_every_route_survives_its_end() {
    let h = harness();
    let advance = |seconds: Value| {
        let request = h
            .http
            .post(format!("{}/admin/clock/advance", h.sandbox.origin()))
            .bearer_auth(h.sandbox.admin_token())
            .json(&json!({ "seconds": seconds }));
        async move {
            let response = request.send().await.expect("advance");
            let status = response.status();
            (
                status,
                response.json::<Value>().await.unwrap_or(Value::Null),
            )
        }
    };
    let (status, refused) = advance(json!(1e17)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    assert!(refused["error"].is_string(), "{refused}");
    let max_seconds = refused["max_seconds"].as_i64().expect("max_seconds");
    assert!(max_seconds >= 99 * 365 * 24 * 3600, "{refused}");
    let (status, _) = advance(json!(-1)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // The largest advance accepted, then every route of a smoke set still works.
    let (status, moved) = advance(json!(max_seconds)).await;
    assert_eq!(status, StatusCode::OK, "{moved}");
    let (status, refused) = advance(json!(1)).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "the end of the range: {refused}"
    );

    let project = h.project(&h.key, "Far future").await;
    for path in [
        "/v1/models",
        "/v1/account/credits",
        "/v1/projects",
        "/v1/media",
        "/v1/media/stats",
        "/v1/media/folders",
        "/v1/presets",
        "/v1/cinematic-presets",
        "/v1/color-palettes",
        "/v1/chat/conversations",
    ] {
        let (status, body) = h.get(path).await;
        assert!(status.is_success(), "{path}: {status} {body}");
    }
    let (_, url, library_id) = h.upload(&h.key, "future.png", Some(&project)).await;
    let (status, body) = h.delete(&format!("/v1/media/{library_id}")).await;
    assert!(status.is_success(), "trash: {status} {body}");
    h.sandbox.purge_expired_trash();
    let (status, body) = h
        .post(
            "/v1/generate/image",
            json!({"prompt": "a lighthouse", "project_id": project}),
        )
        .await;
    assert!(status.is_success(), "generate: {status} {body}");
    let id = body["generation_id"].as_str().expect("generation_id");
    let (status, body) = h.get(&format!("/v1/generate/{id}/status")).await;
    assert!(status.is_success(), "status: {status} {body}");
    let (status, ticket) = h.post("/v1/media/upload-ticket", json!({})).await;
    assert!(status.is_success(), "ticket: {status} {ticket}");
    let response = h
        .http
        .post(ticket["upload_url"].as_str().expect("url"))
        .multipart(png_form("ticket.png", 2))
        .send()
        .await
        .expect("upload");
    assert_eq!(response.status(), StatusCode::CREATED, "the ticket is live");
    let response = h
        .http
        .post(format!("{}/kolbo/v1/files", h.sandbox.base_url()))
        .header("X-API-Key", &h.key)
        .multipart(png_form("code.png", 3))
        .send()
        .await
        .expect("code upload");
    assert!(response.status().is_success(), "{}", response.status());
    let response = h
        .http
        .get(format!("{}/kolbo/v1/balance", h.sandbox.base_url()))
        .header("X-API-Key", &h.key)
        .send()
        .await
        .expect("balance");
    assert!(response.status().is_success(), "{}", response.status());
    assert!(
        reqwest::get(&url)
            .await
            .expect("file")
            .status()
            .is_success()
    );
}
