//! The sandbox's color palette routes (document 2), graded generations and cinematic
//! presets (document 1) over real HTTP, checked with plain JSON values (deliberately not
//! the crate's api types, so a shared misreading cannot hide).

use crate::service_support;
use service_support::LocalService as Harness;

fn harness() -> Harness {
    service_support::local_service(SPEED)
}

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

const SPEED: f64 = 40.0;
const POLL_TIMEOUT: Duration = Duration::from_secs(40);
const FIXTURE_PHOTO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/fixtures/photos/chelsea.png"
);
const NEEDS_PROJECT: &str = "Color DNA";

fn fixture_photo() -> Option<Vec<u8>> {
    // The shared fixtures live outside the repository; without them the analyze tests
    // fall back to a generated photo-like image.
    std::fs::read(FIXTURE_PHOTO).ok()
}

fn synthetic_png() -> Vec<u8> {
    let image = image::RgbImage::from_fn(120, 80, |x, y| {
        if y < 48 {
            image::Rgb([20, 110 + (x % 7) as u8, 130])
        } else if x < 90 {
            image::Rgb([200, 170, 120 + (y % 5) as u8])
        } else {
            image::Rgb([230, 60, 40])
        }
    });
    let mut png = Vec::new();
    image
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .expect("encode png");
    png
}

impl Harness {
    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        self.call_as(&self.key, method, path, body).await
    }

    async fn get(&self, path: &str) -> (StatusCode, Value) {
        self.call(Method::GET, path, None).await
    }

    async fn post(&self, path: &str, body: Value) -> (StatusCode, Value) {
        self.call(Method::POST, path, Some(body)).await
    }

    async fn project_as(&self, key: &str, name: &str) -> String {
        let (status, body) = self
            .call_as(
                key,
                Method::POST,
                "/v1/projects",
                Some(json!({"name": name})),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body["project"]["id"]
            .as_str()
            .expect("project id")
            .to_owned()
    }

    async fn project(&self, name: &str) -> String {
        self.project_as(&self.key.clone(), name).await
    }

    async fn palette_as(&self, key: &str, body: Value) -> Value {
        let (status, body) = self
            .call_as(key, Method::POST, "/v1/color-palettes", Some(body))
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body["color_palette"].clone()
    }

    async fn palette(&self, body: Value) -> Value {
        self.palette_as(&self.key.clone(), body).await
    }

    /// `{palette id: is_active}` of a list call.
    async fn activity(&self, query: &str) -> Vec<(String, bool)> {
        let (status, body) = self.get(&format!("/v1/color-palettes{query}")).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body["color_palettes"]
            .as_array()
            .expect("palettes")
            .iter()
            .map(|p| {
                (
                    p["id"].as_str().unwrap_or("").to_owned(),
                    p["is_active"] == json!(true),
                )
            })
            .collect()
    }

    async fn upload(&self, name: &str, bytes: Vec<u8>) -> String {
        let media = self.upload_png(&self.key, name, bytes).await;
        media["url"].as_str().expect("url").to_owned()
    }

    /// Submits an image generation and waits for it; returns (prompt_used, first output bytes).
    async fn generate(&self, body: Value) -> (String, Vec<u8>) {
        let (status, submit) = self.post("/v1/generate/image", body).await;
        assert!(status.is_success(), "{submit}");
        let id = submit["generation_id"]
            .as_str()
            .expect("generation id")
            .to_owned();
        let started = std::time::Instant::now();
        loop {
            let (_, status) = self.get(&format!("/v1/generate/{id}/status")).await;
            match status["state"].as_str() {
                Some("completed") => {
                    let result = &status["result"];
                    let url = result["urls"][0].as_str().expect("url");
                    let bytes = self
                        .http
                        .get(url)
                        .send()
                        .await
                        .expect("download")
                        .bytes()
                        .await
                        .expect("bytes")
                        .to_vec();
                    return (
                        result["prompt_used"]
                            .as_str()
                            .expect("prompt_used")
                            .to_owned(),
                        bytes,
                    );
                }
                Some("processing") => {}
                other => panic!("generation ended {other:?}: {status}"),
            }
            assert!(
                started.elapsed() < POLL_TIMEOUT,
                "generation never finished"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

fn teal_sand() -> Value {
    json!({
        "name": "Teal & Sand",
        "colors": [
            {"hex": "#008080", "name": "Deep Teal", "role": "dominant"},
            {"hex": "#C2B280", "name": "Sand", "role": "secondary"},
            {"hex": "#FF7F50", "name": "Coral"}
        ]
    })
}

fn assert_validation_error(status: StatusCode, body: &Value) {
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["status"], json!(false), "{body}");
    assert_eq!(body["message"], json!("Validation error"), "{body}");
    assert!(
        body["details"].as_array().is_some_and(|d| !d.is_empty()),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_includes_the_organisation_palette_newest_first_with_clamped_pages() {
    let h = harness();
    let (status, body) = h.get("/v1/color-palettes").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["success"], json!(true));
    assert_eq!(
        body["pagination"],
        json!({"page": 1, "limit": 50, "total": 1, "pages": 1})
    );
    let org = &body["color_palettes"][0];
    assert_eq!(org["content_scope"], json!("organization"));
    assert_eq!(org["is_active"], json!(false));
    for field in [
        "id",
        "name",
        "colors",
        "source_image_urls",
        "created_at",
        "updated_at",
    ] {
        assert!(org.get(field).is_some(), "{field} missing: {org}");
    }
    let mut created = Vec::new();
    for n in 0..3 {
        let palette = h
            .palette(json!({"name": format!("P{n}"), "colors": [{"hex": "#112233"}]}))
            .await;
        created.push(palette["id"].as_str().expect("id").to_owned());
    }
    let (_, page1) = h.get("/v1/color-palettes?limit=2").await;
    assert_eq!(
        page1["pagination"],
        json!({"page": 1, "limit": 2, "total": 4, "pages": 2})
    );
    assert_eq!(
        page1["color_palettes"][0]["id"],
        json!(created[2]),
        "newest first"
    );
    let (_, page2) = h.get("/v1/color-palettes?limit=2&page=2").await;
    assert_eq!(page2["color_palettes"].as_array().map(Vec::len), Some(2));
    for (query, page, limit) in [
        ("?limit=0", 1, 1),
        ("?limit=500", 1, 100),
        ("?limit=-4&page=-2", 1, 1),
        ("?limit=abc&page=zero", 1, 50),
    ] {
        let (status, body) = h.get(&format!("/v1/color-palettes{query}")).await;
        assert_eq!(status, StatusCode::OK, "{query}");
        assert_eq!(body["pagination"]["page"], json!(page), "{query}");
        assert_eq!(body["pagination"]["limit"], json!(limit), "{query}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_validates_strictly_and_fills_defaults() {
    let h = harness();
    let color = json!({"hex": "#FF0000"});
    let too_many: Vec<Value> = (0..11).map(|_| color.clone()).collect();
    let urls: Vec<String> = (0..6)
        .map(|n| format!("https://example.com/{n}.png"))
        .collect();
    for bad in [
        json!({"name": "A", "colors": [color], "extra": 1}),
        json!({"name": "A", "colors": [color], "project_id": "x"}),
        json!({"name": "   ", "colors": [color]}),
        json!({"name": "x".repeat(101), "colors": [color]}),
        json!({"colors": [color]}),
        json!({"name": "A"}),
        json!({"name": "A", "colors": []}),
        json!({"name": "A", "colors": too_many}),
        json!({"name": "A", "colors": [{"hex": "#FFF"}]}),
        json!({"name": "A", "colors": [{"hex": "FF0000"}]}),
        json!({"name": "A", "colors": [{"hex": "#GG0000"}]}),
        json!({"name": "A", "colors": [{"hex": "#FF0000", "name": "n".repeat(61)}]}),
        json!({"name": "A", "colors": [{"hex": "#FF0000", "role": "primary"}]}),
        json!({"name": "A", "colors": [{"hex": "#FF0000", "weight": 2}]}),
        json!({"name": "A", "colors": [color], "source_image_urls": urls}),
        json!({"name": "A", "colors": [color], "source_image_urls": ["not a uri"]}),
        json!({"name": "A", "colors": [color], "is_active": "yes"}),
    ] {
        let (status, body) = h.post("/v1/color-palettes", bad.clone()).await;
        assert_validation_error(status, &body);
    }
    let (status, body) = h
        .post(
            "/v1/color-palettes",
            json!({
                "name": "  Warm  ",
                "colors": [
                    {"hex": "#ff0000", "name": ""},
                    {"hex": "#0000FF", "name": "  Ink  ", "role": "background"},
                    {"hex": "#FFFF00", "name": "n".repeat(60)}
                ],
                "is_active": true
            }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["success"], json!(true));
    let palette = &body["color_palette"];
    assert_eq!(palette["name"], json!("Warm"));
    assert_eq!(
        palette["colors"][0],
        json!({"hex": "#FF0000", "name": "Red", "role": "accent"})
    );
    assert_eq!(
        palette["colors"][1],
        json!({"hex": "#0000FF", "name": "Ink", "role": "background"})
    );
    assert_eq!(palette["source_image_urls"], json!([]));
    assert_eq!(palette["content_scope"], json!("personal"));
    // is_active true without projectId activates nothing.
    assert_eq!(palette["is_active"], json!(false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn is_active_is_project_relative_in_lists_and_legacy_in_updates() {
    let h = harness();
    let project = h.project("Graded").await;
    let other = h.project("Other").await;
    let mut body = teal_sand();
    body["projectId"] = json!(project);
    let graded = h.palette(body).await;
    assert_eq!(graded["is_active"], json!(true));
    let graded_id = graded["id"].as_str().expect("id").to_owned();
    let mut suppressed = teal_sand();
    suppressed["projectId"] = json!(other);
    suppressed["is_active"] = json!(false);
    assert_eq!(h.palette(suppressed).await["is_active"], json!(false));

    let with_project = h.activity(&format!("?projectId={project}")).await;
    assert!(
        with_project.contains(&(graded_id.clone(), true)),
        "{with_project:?}"
    );
    assert_eq!(with_project.iter().filter(|(_, a)| *a).count(), 1);
    // No projectId, the snake spelling, or the suppressed project: nothing active.
    for query in [
        "".to_owned(),
        format!("?project_id={project}"),
        format!("?projectId={other}"),
        "?projectId=nope".to_owned(),
    ] {
        let activity = h.activity(&query).await;
        assert!(activity.iter().all(|(_, a)| !a), "{query}: {activity:?}");
    }
    let (status, updated) = h
        .call(
            Method::PUT,
            &format!("/v1/color-palettes/{graded_id}"),
            Some(json!({"name": "Renamed"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    assert_eq!(updated["color_palette"]["name"], json!("Renamed"));
    assert_eq!(
        updated["color_palette"]["is_active"],
        json!(false),
        "legacy field"
    );
    // The update did not touch the activation.
    assert!(
        h.activity(&format!("?projectId={project}"))
            .await
            .contains(&(graded_id, true))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_checks_the_project_only_when_activating() {
    let h = harness();
    let ana = h
        .sandbox
        .create_api_key_for_user("ana@studio.test", false)
        .expect("ana");
    let anas_project = h.project_as(&ana, "Ana's").await;
    let mut body = teal_sand();
    body["projectId"] = json!(anas_project);
    let (status, denied) = h.post("/v1/color-palettes", body.clone()).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{denied}");
    assert_eq!(denied["success"], json!(false));
    assert!(denied["error"].is_string());
    body["projectId"] = json!("000000000000000000000000");
    assert_eq!(
        h.post("/v1/color-palettes", body.clone()).await.0,
        StatusCode::FORBIDDEN
    );
    body["is_active"] = json!(false);
    let (status, saved) = h.post("/v1/color-palettes", body).await;
    assert_eq!(status, StatusCode::CREATED, "{saved}");
    assert_eq!(saved["color_palette"]["is_active"], json!(false));
    // A member with edit permission may grade; a view-only member may not.
    assert!(
        h.sandbox
            .set_project_member_permission(&anas_project, "sandbox@localhost", "view")
    );
    let mut body = teal_sand();
    body["projectId"] = json!(anas_project);
    assert_eq!(
        h.post("/v1/color-palettes", body.clone()).await.0,
        StatusCode::FORBIDDEN
    );
    assert!(
        h.sandbox
            .set_project_member_permission(&anas_project, "sandbox@localhost", "edit")
    );
    assert_eq!(h.palette(body).await["is_active"], json!(true));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn organisation_palettes_are_list_only_and_others_palettes_are_invisible() {
    let h = harness();
    let project = h.project("Mine").await;
    let (_, list) = h.get("/v1/color-palettes").await;
    let org_id = list["color_palettes"][0]["id"]
        .as_str()
        .expect("org id")
        .to_owned();
    let (status, body) = h
        .call(
            Method::PUT,
            &format!("/v1/color-palettes/{org_id}"),
            Some(json!({"name": "Mine now"})),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(body["success"], json!(false));
    assert_eq!(
        h.call(
            Method::DELETE,
            &format!("/v1/color-palettes/{org_id}"),
            None
        )
        .await
        .0,
        StatusCode::NOT_FOUND
    );
    let (status, _) = h
        .post(
            &format!("/v1/color-palettes/{org_id}/activate"),
            json!({"projectId": project}),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    let ana = h
        .sandbox
        .create_api_key_for_user("ana@studio.test", false)
        .expect("ana");
    let mine = h.palette(teal_sand()).await;
    let id = mine["id"].as_str().expect("id");
    let path = format!("/v1/color-palettes/{id}");
    assert_eq!(
        h.call_as(&ana, Method::PUT, &path, Some(json!({"name": "x"})))
            .await
            .0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        h.call_as(&ana, Method::DELETE, &path, None).await.0,
        StatusCode::NOT_FOUND
    );
    let (_, anas_list) = h
        .call_as(&ana, Method::GET, "/v1/color-palettes", None)
        .await;
    assert_eq!(
        anas_list["pagination"]["total"],
        json!(1),
        "ana sees only the org palette"
    );
    assert_eq!(
        h.call(Method::PUT, "/v1/color-palettes/not-an-id", Some(json!({})))
            .await
            .0,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn update_is_strict_and_replaces_colours() {
    let h = harness();
    let palette = h.palette(teal_sand()).await;
    let path = format!("/v1/color-palettes/{}", palette["id"].as_str().expect("id"));
    for bad in [
        json!({"projectId": "x"}),
        json!({"project_id": "x"}),
        json!({"is_active": true}),
        json!({"name": ""}),
        json!({"colors": []}),
        json!({"colors": [{"hex": "#12345"}]}),
        json!({"source_image_urls": ["a:b", "a:b", "a:b", "a:b", "a:b", "a:b"]}),
    ] {
        let (status, body) = h.call(Method::PUT, &path, Some(bad)).await;
        assert_validation_error(status, &body);
    }
    let (status, body) = h
        .call(
            Method::PUT,
            &path,
            Some(json!({"colors": [{"hex": "#000080"}], "source_image_urls": ["https://example.com/a.png"]})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let updated = &body["color_palette"];
    assert_eq!(updated["name"], json!("Teal & Sand"), "name kept");
    assert_eq!(
        updated["colors"],
        json!([{"hex": "#000080", "name": "Navy", "role": "accent"}])
    );
    assert_eq!(
        updated["source_image_urls"],
        json!(["https://example.com/a.png"])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn activate_and_deactivate_follow_the_permission_rules() {
    let h = harness();
    let ana = h
        .sandbox
        .create_api_key_for_user("ana@studio.test", false)
        .expect("ana");
    let ben = h
        .sandbox
        .create_api_key_for_user("ben@studio.test", false)
        .expect("ben");
    let project = h.project("Film").await;
    assert!(h.sandbox.add_project_member(&project, "ana@studio.test"));
    let first = h.palette(teal_sand()).await;
    let first_id = first["id"].as_str().expect("id").to_owned();
    let activate = |id: &str| format!("/v1/color-palettes/{id}/activate");

    let (status, body) = h.post(&activate(&first_id), json!({})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body["error"]
            .as_str()
            .is_some_and(|e| e.contains(NEEDS_PROJECT)),
        "{body}"
    );
    assert_eq!(
        h.post(&activate(&first_id), json!({"project_id": project}))
            .await
            .0,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        h.post(
            &activate(&first_id),
            json!({"projectId": "000000000000000000000000"})
        )
        .await
        .0,
        StatusCode::FORBIDDEN
    );
    let bens_project = h.project_as(&ben, "Ben's").await;
    assert_eq!(
        h.post(&activate(&first_id), json!({"projectId": bens_project}))
            .await
            .0,
        StatusCode::FORBIDDEN
    );

    let (status, body) = h
        .post(&activate(&first_id), json!({"projectId": project}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["success"], json!(true));
    assert_eq!(body["color_palette"]["is_active"], json!(true));
    assert_eq!(body["color_palette"]["id"], json!(first_id));

    // Ana (a member) activates her own palette: it replaces the grade, and the owner sees
    // it in his list although Ana owns it.
    let anas = h
        .palette_as(&ana, json!({"name": "Ana", "colors": [{"hex": "#800020"}]}))
        .await;
    let anas_id = anas["id"].as_str().expect("id").to_owned();
    let (status, _) = h
        .call_as(
            &ana,
            Method::POST,
            &activate(&anas_id),
            Some(json!({"projectId": project})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let activity = h.activity(&format!("?projectId={project}")).await;
    assert!(activity.contains(&(anas_id.clone(), true)), "{activity:?}");
    assert!(
        activity.contains(&(first_id.clone(), false)),
        "{activity:?}"
    );
    // The owner may activate a member's palette; an outsider's palette is 404.
    assert_eq!(
        h.post(&activate(&anas_id), json!({"projectId": project}))
            .await
            .0,
        StatusCode::OK
    );
    let bens = h
        .palette_as(&ben, json!({"name": "Ben", "colors": [{"hex": "#36454F"}]}))
        .await;
    let bens_id = bens["id"].as_str().expect("id");
    assert_eq!(
        h.post(&activate(bens_id), json!({"projectId": project}))
            .await
            .0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        h.post(
            &activate("ffffffffffffffffffffffff"),
            json!({"projectId": project})
        )
        .await
        .0,
        StatusCode::NOT_FOUND
    );
    // A view-only member may neither activate nor deactivate.
    assert!(
        h.sandbox
            .set_project_member_permission(&project, "ana@studio.test", "view")
    );
    let (status, _) = h
        .call_as(
            &ana,
            Method::POST,
            &activate(&anas_id),
            Some(json!({"projectId": project})),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _) = h
        .call_as(
            &ana,
            Method::POST,
            "/v1/color-palettes/deactivate",
            Some(json!({"projectId": project})),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    let (status, body) = h.post("/v1/color-palettes/deactivate", json!({})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        body["error"]
            .as_str()
            .is_some_and(|e| e.contains(NEEDS_PROJECT)),
        "{body}"
    );
    assert_eq!(
        h.post(
            "/v1/color-palettes/deactivate",
            json!({"projectId": bens_project})
        )
        .await
        .0,
        StatusCode::FORBIDDEN
    );
    let (status, body) = h
        .post(
            "/v1/color-palettes/deactivate",
            json!({"projectId": project}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, json!({"success": true}));
    let activity = h.activity(&format!("?projectId={project}")).await;
    assert!(activity.iter().all(|(_, a)| !a), "{activity:?}");
    // The palettes stay in the library.
    assert!(activity.iter().any(|(id, _)| *id == first_id));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graded_generations_carry_the_directive_and_a_graded_render() {
    let h = harness();
    let graded_project = h.project("Graded").await;
    let plain_project = h.project("Plain").await;
    let mut body = teal_sand();
    body["projectId"] = json!(graded_project);
    h.palette(body).await;
    let request = |project: &str, skip: Option<Value>| {
        let mut body =
            json!({"prompt": "a lighthouse on a cliff", "seed": 42, "project_id": project});
        if let Some(skip) = skip {
            body["skip_color_palette"] = skip;
        }
        body
    };
    let (plain_prompt, plain_png) = h.generate(request(&plain_project, None)).await;
    let (graded_prompt, graded_png) = h.generate(request(&graded_project, None)).await;
    assert!(!plain_prompt.contains("Color grade"), "{plain_prompt}");
    for needle in [
        "dominant Deep Teal",
        "secondary Sand",
        "accent Coral",
        "lighting, atmosphere, set dressing and wardrobe",
    ] {
        assert!(
            graded_prompt.contains(needle),
            "{needle:?} missing: {graded_prompt}"
        );
    }
    assert!(
        !graded_prompt.contains('#'),
        "no hex codes: {graded_prompt}"
    );
    assert_ne!(plain_png, graded_png, "the grade changes the render");
    // The grade pulls the render toward teal: less red than the ungraded picture.
    let mean_red = |png: &[u8]| {
        let image = image::load_from_memory(png).expect("png").to_rgb8();
        image.pixels().map(|p| f64::from(p.0[0])).sum::<f64>()
            / f64::from(image.width() * image.height())
    };
    assert!(mean_red(&graded_png) < mean_red(&plain_png));

    let (skipped_prompt, skipped_png) = h
        .generate(request(&graded_project, Some(json!(true))))
        .await;
    assert!(!skipped_prompt.contains("Color grade"), "{skipped_prompt}");
    assert_eq!(skipped_png, plain_png, "opted out: same render as ungraded");
    let (string_prompt, string_png) = h
        .generate(request(&graded_project, Some(json!("true"))))
        .await;
    assert!(
        string_prompt.contains("dominant Deep Teal"),
        "the string \"true\" does not opt out"
    );
    assert_eq!(string_png, graded_png);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grade_changes_reach_generations_through_the_cache() {
    let h = harness();
    let project = h.project("Cached").await;
    let mut body = teal_sand();
    body["projectId"] = json!(project);
    let first = h.palette(body).await;
    let request = json!({"prompt": "harbour at dusk", "seed": 7, "project_id": project});
    let (prompt, _) = h.generate(request.clone()).await;
    assert!(prompt.contains("Deep Teal"));
    let second = h
        .palette(json!({"name": "Wine", "colors": [{"hex": "#800020", "name": "Oxblood", "role": "dominant"}]}))
        .await;
    let id = second["id"].as_str().expect("id");
    let (status, _) = h
        .post(
            &format!("/v1/color-palettes/{id}/activate"),
            json!({"projectId": project}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    // Within the 60-second cache the previous grade still applies...
    let (cached, _) = h.generate(request.clone()).await;
    assert!(cached.contains("Deep Teal"), "{cached}");
    // ...until the cache is cleared.
    h.sandbox.clear_palette_cache();
    let (fresh, _) = h.generate(request.clone()).await;
    assert!(
        fresh.contains("dominant Oxblood") && !fresh.contains("Deep Teal"),
        "{fresh}"
    );
    // Deleting the grading palette clears the project's grade.
    let (status, body) = h
        .call(Method::DELETE, &format!("/v1/color-palettes/{id}"), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, json!({"success": true, "id": id}));
    h.sandbox.clear_palette_cache();
    let (ungraded, _) = h.generate(request).await;
    assert!(!ungraded.contains("Color grade"), "{ungraded}");
    let activity = h.activity(&format!("?projectId={project}")).await;
    assert!(activity.iter().all(|(_, a)| !a));
    assert!(
        activity
            .iter()
            .any(|(pid, _)| Some(pid.as_str()) == first["id"].as_str())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn analyze_extracts_the_same_colours_as_the_local_preview() {
    let h = harness();
    let bytes = fixture_photo().unwrap_or_else(synthetic_png);
    let url = h.upload("photo.png", bytes.clone()).await;
    let (status, body) = h
        .post(
            "/v1/color-palettes/analyze",
            json!({"image_urls": [url], "name": "ignored", "projectId": "x"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["success"], json!(true));
    let colors = body["colors"].as_array().expect("colors");
    assert!((1..=6).contains(&colors.len()), "{body}");
    assert_eq!(colors[0]["role"], json!("dominant"));
    if colors.len() > 1 {
        assert_eq!(colors[1]["role"], json!("secondary"));
    }
    for color in colors.iter().skip(2) {
        assert_eq!(color["role"], json!("accent"));
    }

    // The studio's local preview: decode locally, run crate::palette::analyze.
    let decoded = image::load_from_memory(&bytes).expect("decode").to_rgba8();
    let local = framewright::palette::analyze(&[framewright::palette::ImageRef {
        width: decoded.width(),
        height: decoded.height(),
        rgba: decoded.as_raw(),
    }]);
    let local_colors: Vec<Value> = local
        .colors
        .iter()
        .map(|c| json!({"hex": c.hex, "name": c.name, "role": c.role.as_str()}))
        .collect();
    assert_eq!(body["colors"], Value::Array(local_colors));
    assert_eq!(body["name"], json!(local.name));

    // Undownloadable images are skipped: a private address (refused before connecting) and
    // a missing own file next to a good one still give the same answer.
    let missing = format!(
        "http://127.0.0.1:{}/files/uploads/missing.png",
        h.sandbox.port()
    );
    let (status, mixed) = h
        .post(
            "/v1/color-palettes/analyze",
            json!({"image_urls": ["http://10.0.0.1/x.png", missing, url]}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{mixed}");
    assert_eq!(mixed["colors"], body["colors"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn analyze_refuses_bad_input_and_unreachable_images() {
    let h = harness();
    let six: Vec<String> = (0..6)
        .map(|n| format!("https://example.com/{n}.png"))
        .collect();
    for bad in [
        json!({}),
        json!({"imageUrls": ["https://example.com/a.png"]}),
        json!({"image_urls": []}),
        json!({"image_urls": six}),
        json!({"image_urls": "https://example.com/a.png"}),
        json!({"image_urls": [5]}),
    ] {
        let (status, body) = h.post("/v1/color-palettes/analyze", bad.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
        assert_eq!(body["success"], json!(false));
        assert_eq!(
            body["error"],
            json!("imageUrls must be an array of 1-5 URLs")
        );
    }
    for unreachable in [
        json!({"image_urls": ["http://10.0.0.1/x.png"]}),
        json!({"image_urls": ["http://192.168.1.20/x.png", "http://[::1]/x.png", "http://localhost:1/x.png"]}),
        json!({"image_urls": ["ftp://example.com/x.png", "not a url"]}),
    ] {
        let (status, body) = h
            .post("/v1/color-palettes/analyze", unreachable.clone())
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{unreachable}: {body}");
        assert_eq!(body["success"], json!(false));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn analyze_has_its_own_ten_per_minute_limit() {
    let h = harness();
    for _ in 0..10 {
        let (status, _) = h.post("/v1/color-palettes/analyze", json!({})).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
    }
    let response = h
        .http
        .post(h.url("/v1/color-palettes/analyze"))
        .header("X-API-Key", &h.key)
        .json(&json!({}))
        .send()
        .await
        .expect("request");
    let status = response.status();
    // The analyze limiter refused, so its own RateLimit-* headers speak (10/min), not the
    // palettes' shared 120/min bucket that also counted the request.
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned)
    };
    assert_eq!(header("ratelimit-limit").as_deref(), Some("10"));
    assert_eq!(header("ratelimit-remaining").as_deref(), Some("0"));
    assert_eq!(header("ratelimit-policy").as_deref(), Some("10;w=60"));
    let body: Value = response.json().await.expect("json body");
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(body["success"], json!(false));
    assert_eq!(body["code"], json!("RATE_LIMITED"));
    assert_eq!(body["retryAfter"], json!(60));
    assert!(body["message"].is_string());
    // Other palette routes still answer.
    assert_eq!(h.get("/v1/color-palettes").await.0, StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn palette_routes_share_the_120_per_minute_bucket() {
    let h = harness();
    for n in 0..120 {
        let (status, _) = h.get("/v1/color-palettes?limit=1").await;
        assert_eq!(status, StatusCode::OK, "request {n}");
    }
    let (status, body) = h.post("/v1/color-palettes/deactivate", json!({})).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(body["status"], json!(false));
    assert_eq!(body["error"], json!("Too many generation requests"));
    assert_eq!(body["retryAfter"], json!(60));
    assert!(body["message"].is_string());
    // Cinematic presets have no per-endpoint limiter.
    assert_eq!(h.get("/v1/cinematic-presets").await.0, StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cinematic_presets_are_a_bare_map_with_real_thumbnails_and_an_etag() {
    let h = harness();
    let response = h
        .http
        .get(h.url("/v1/cinematic-presets"))
        .header("X-API-Key", &h.key)
        .send()
        .await
        .expect("presets");
    assert_eq!(response.status(), StatusCode::OK);
    let etag = response
        .headers()
        .get("etag")
        .expect("etag")
        .to_str()
        .expect("ascii")
        .to_owned();
    let map: Value = response.json().await.expect("json");
    let dimensions = map.as_object().expect("bare map");
    let mut names: Vec<&str> = dimensions.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "angle",
            "aperture",
            "camera",
            "color_palette",
            "focal_length",
            "lens",
            "lighting",
            "shot_type"
        ]
    );
    for (dimension, presets) in dimensions {
        let presets = presets.as_array().expect("presets");
        assert!((4..=6).contains(&presets.len()), "{dimension}");
        for preset in presets {
            for field in ["id", "name", "description", "thumbnail_url", "sort_order"] {
                assert!(preset.get(field).is_some(), "{field} missing in {preset}");
            }
            assert_ne!(
                preset["id"],
                json!("camera-vhs-camcorder"),
                "inactive presets are hidden"
            );
        }
    }
    let thumbnail = map["lighting"][0]["thumbnail_url"]
        .as_str()
        .expect("thumbnail url");
    let png = h.http.get(thumbnail).send().await.expect("thumbnail");
    assert_eq!(png.headers()["content-type"], "image/png");
    let png = png.bytes().await.expect("bytes");
    let image = image::load_from_memory(&png).expect("a real png");
    assert_eq!((image.width(), image.height()), (160, 100));

    let cached = h
        .http
        .get(h.url("/v1/cinematic-presets"))
        .header("X-API-Key", &h.key)
        .header("If-None-Match", &etag)
        .send()
        .await
        .expect("conditional");
    assert_eq!(cached.status(), StatusCode::NOT_MODIFIED);
    let stale = h
        .http
        .get(h.url("/v1/cinematic-presets"))
        .header("X-API-Key", &h.key)
        .header("If-None-Match", "\"stale\"")
        .send()
        .await
        .expect("conditional");
    assert_eq!(stale.status(), StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cinematic_choices_are_validated_and_shape_the_render() {
    let h = harness();
    for (bad, why) in [
        (
            json!({"lighting": "camera-super-8"}),
            "id of another dimension",
        ),
        (json!({"genre": "noir"}), "unknown dimension"),
        (json!({"lighting": "lighting-moonbeam"}), "unknown id"),
        (json!({"lighting": 3}), "not a string"),
        (json!("lighting-low-key"), "not an object"),
    ] {
        let (status, body) = h
            .post(
                "/v1/generate/image",
                json!({"prompt": "a quiet street", "cinematic": bad}),
            )
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{why}: {body}");
        assert_eq!(body["success"], json!(false));
        assert_eq!(body["code"], json!("INVALID_CINEMATIC"), "{why}");
        assert!(body["error"].is_string());
    }
    let base = json!({"prompt": "a quiet street", "seed": 3});
    let (plain_prompt, plain_png) = h.generate(base.clone()).await;
    let mut chosen = base.clone();
    chosen["cinematic"] =
        json!({"lighting": "lighting-low-key", "shot_type": "shot_type-close-up", "camera": null});
    let (prompt, png) = h.generate(chosen).await;
    assert!(
        prompt.contains("Low-key") && prompt.contains("Close-up"),
        "{prompt}"
    );
    assert!(!plain_prompt.contains("Cinematic look"), "{plain_prompt}");
    assert_ne!(png, plain_png);
    // Low-key lighting darkens the picture.
    let mean = |png: &[u8]| {
        let image = image::load_from_memory(png).expect("png").to_luma8();
        image.pixels().map(|p| f64::from(p.0[0])).sum::<f64>()
            / f64::from(image.width() * image.height())
    };
    assert!(mean(&png) < mean(&plain_png));
    // image-edit takes the same object.
    let (status, body) = h
        .post(
            "/v1/generate/image-edit",
            json!({"prompt": "x", "cinematic": {"lens": "lens-macro"}}),
        )
        .await;
    assert!(status.is_success(), "{body}");
    let (status, _) = h
        .post(
            "/v1/generate/image-edit",
            json!({"prompt": "x", "cinematic": {"lens": "angle-low-angle"}}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}
