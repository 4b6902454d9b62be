//! The sandbox's video routes (text-to-video, image-to-video, Creative Director) over real
//! HTTP, checked against the contract with plain JSON values. Output MP4s are demuxed and
//! decoded with the studio's own `media::video` decoder.
//!
//! Each test starts its own sandbox: the "Other generation" limiter allows 10 requests a
//! minute per user, and fault controls are sandbox-wide, so one shared sandbox would make
//! the tests depend on each other.

use std::time::Duration;

use crate::service_support;
use service_support::{LocalService, local_service};

use framewright::media::video::VideoDecoder;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// Fast jobs (a 90-s video job takes ~1.8 s); renders still take their real time.
const FAST: f64 = 50.0;
/// Jobs that stay running long enough to be validated or cancelled without rendering.
const SLOW: f64 = 1.0;
const POLL_TIMEOUT: Duration = Duration::from_secs(60);
const START_CREDITS: f64 = 1500.0;
const FPS: f64 = 24.0;
const KLING: &str = "kling/v2.1-master";
const VEO: &str = "google/veo-3";
const HAILUO: &str = "minimax/hailuo-02";
/// Image model at 2 credits (1K), for cheap Creative Director image scenes.
const SCHNELL: &str = "fal-ai/flux/schnell";

/// A sandbox of this test's own (see the module note), with JSON calls on its key.
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

fn id_of(body: &Value) -> String {
    body["generation_id"]
        .as_str()
        .expect("generation_id")
        .to_owned()
}

impl Harness {
    async fn get(&self, path: &str) -> (StatusCode, Value) {
        self.call_as(&self.key, Method::GET, path, None).await
    }

    async fn post(&self, path: &str, body: &Value) -> (StatusCode, Value) {
        self.call_as(&self.key, Method::POST, path, Some(body.clone()))
            .await
    }

    /// Submits and asserts the contract's 202 submit response; returns it.
    async fn submit(&self, path: &str, body: &Value) -> Value {
        let (status, submit) = self.post(path, body).await;
        assert_eq!(status, StatusCode::ACCEPTED, "{submit}");
        assert_eq!(submit["success"], true);
        submit
    }

    async fn download(&self, url: &str) -> Vec<u8> {
        // Output URLs are plain links: no API key.
        let response = self.http.get(url).send().await.expect("download");
        assert_eq!(response.status(), StatusCode::OK, "{url}");
        response.bytes().await.expect("bytes").to_vec()
    }

    async fn credits(&self) -> (f64, f64) {
        let (status, body) = self.get("/v1/account/credits").await;
        assert_eq!(status, StatusCode::OK);
        (
            body["credits"]["available"].as_f64().expect("available"),
            body["credits"]["total"].as_f64().expect("total"),
        )
    }

    async fn wait_terminal(&self, poll_path: &str) -> Value {
        let deadline = tokio::time::Instant::now() + POLL_TIMEOUT;
        loop {
            let (status, body) = self.get(poll_path).await;
            assert_eq!(status, StatusCode::OK, "{body}");
            if matches!(
                body["state"].as_str(),
                Some("completed" | "failed" | "cancelled")
            ) {
                return body;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{poll_path} never finished: {body}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn wait_generation(&self, id: &str) -> Value {
        self.wait_terminal(&format!("/v1/generate/{id}/status"))
            .await
    }

    /// A project graded by teal, sand and coral.
    async fn graded_project(&self) -> String {
        let (status, project) = self
            .post("/v1/projects", &json!({"name": "Graded video"}))
            .await;
        assert_eq!(status, StatusCode::CREATED, "{project}");
        let project_id = project["project"]["id"].as_str().expect("id").to_owned();
        let (status, palette) = self
            .post(
                "/v1/color-palettes",
                &json!({
                    "name": "Teal & Sand",
                    "projectId": project_id,
                    "colors": [
                        {"hex": "#008080", "name": "Deep Teal", "role": "dominant"},
                        {"hex": "#C2B280", "name": "Sand", "role": "secondary"},
                        {"hex": "#FF7F50", "name": "Coral"}
                    ]
                }),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{palette}");
        assert_eq!(palette["color_palette"]["is_active"], true);
        project_id
    }
}

fn assert_sdk_error(status: StatusCode, body: &Value, code: &str) {
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["success"], false, "{body}");
    assert_eq!(body["code"], code, "{body}");
    assert!(body["error"].is_string(), "{body}");
}

fn assert_submit_shape(submit: &Value, wire_type: &str, hint: u64) {
    assert_eq!(submit["type"], wire_type, "{submit}");
    assert_eq!(submit["poll_interval_hint"], hint, "{submit}");
    let id = id_of(submit);
    assert!(
        submit["poll_url"].as_str().expect("poll_url").contains(&id),
        "{submit}"
    );
    assert!(submit["session_id"].is_string() && submit["project_id"].is_string());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_to_video_validation_auto_echo_and_reservation() {
    let h = harness(SLOW);
    // Automatic selection routes to the recommended veo-3 and echoes "auto"; 5 s maps to
    // veo-3's closest length, 6 s (tie between 4 and 6 goes to the longer): 40 x 1 x 1.5 (native sound on by default) x 6.
    let submit = h
        .submit(
            "/v1/generate/video",
            &json!({"prompt": "a lighthouse at dusk", "model": "Smart-Select "}),
        )
        .await;
    assert_submit_shape(&submit, "video", 8);
    assert_eq!(submit["model"], "auto");
    assert_eq!(submit["credits_charged"].as_f64(), Some(360.0));
    assert_eq!(h.credits().await, (START_CREDITS - 360.0, START_CREDITS));

    for bad in [json!({}), json!({"prompt": "  "}), json!({"prompt": 7})] {
        let (status, body) = h.post("/v1/generate/video", &bad).await;
        assert_sdk_error(status, &body, "INVALID_PROMPT");
    }
    let (status, body) = h
        .post(
            "/v1/generate/video",
            &json!({"prompt": "x", "model": ["kling/v2.1-master"]}),
        )
        .await;
    assert_sdk_error(status, &body, "INVALID_MODEL");
    let (status, body) = h
        .post(
            "/v1/generate/video",
            &json!({"prompt": "x", "model": "nobody/video-9"}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body["error"]
            .as_str()
            .expect("error")
            .contains("nobody/video-9")
    );
    let (status, body) = h
        .post(
            "/v1/generate/video",
            &json!({"prompt": "x", "visual_dna_ids": ["a", "b", "c", "d"]}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (status, body) = h
        .post(
            "/v1/generate/video",
            &json!({"prompt": "x", "model": KLING, "resolution": "4k"}),
        )
        .await;
    assert_sdk_error(status, &body, "INVALID_RESOLUTION");
    let message = body["error"].as_str().expect("error");
    assert!(message.contains("720p, 1080p"), "{message}");
    // Nothing but the first submit reserved anything.
    assert_eq!(h.credits().await.0, START_CREDITS - 360.0);

    // Tiers are case-insensitive and multiply the price: 28 x 1.5 x 5.
    let hd = h
        .submit(
            "/v1/generate/video",
            &json!({"prompt": "x", "model": KLING, "resolution": "1080P"}),
        )
        .await;
    assert_eq!(hd["credits_charged"].as_f64(), Some(210.0));
    // Image-to-video auto-selects too (veo-3, 6 s); the prompt may be omitted.
    let i2v = h
        .submit(
            "/v1/generate/video/from-image",
            &json!({"image_url": "https://example.test/still.png"}),
        )
        .await;
    assert_submit_shape(&i2v, "video_from_image", 8);
    assert_eq!(i2v["model"], "auto");
    assert_eq!(i2v["credits_charged"].as_f64(), Some(360.0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn image_to_video_and_creative_director_validation() {
    let h = harness(SLOW);
    let (status, body) = h
        .post("/v1/generate/video/from-image", &json!({"prompt": "drift"}))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body["error"].as_str().expect("error").contains("image_url"));
    let (status, body) = h
        .post(
            "/v1/generate/video/from-image",
            &json!({"image_url": "https://example.test/a.png", "prompt": 5}),
        )
        .await;
    assert_sdk_error(status, &body, "INVALID_PROMPT");
    let (status, body) = h
        .post(
            "/v1/generate/video/from-image",
            &json!({"image_url": "https://example.test/a.png", "model": {"id": HAILUO}}),
        )
        .await;
    assert_sdk_error(status, &body, "INVALID_MODEL");

    let (status, body) = h
        .post("/v1/generate/creative-director", &json!({"scene_count": 2}))
        .await;
    assert_sdk_error(status, &body, "INVALID_PROMPT");
    for scene_count in [0, 9] {
        let (status, body) = h
            .post(
                "/v1/generate/creative-director",
                &json!({"prompt": "a heist", "scene_count": scene_count}),
            )
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(body["success"], false);
    }
    let (status, body) = h
        .post(
            "/v1/generate/creative-director",
            &json!({"prompt": "a heist", "visual_dna_ids": ["a", "b", "c", "d"]}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");

    // Defaults: 4 image scenes; each priced like one image of the model (2 credits).
    let submit = h
        .submit(
            "/v1/generate/creative-director",
            &json!({"prompt": "a heist in four acts", "model": SCHNELL}),
        )
        .await;
    assert_submit_shape(&submit, "creative_director", 5);
    assert_eq!(submit["scene_count"], 4);
    assert_eq!(submit["model"], SCHNELL);
    assert_eq!(submit["credits_charged"].as_f64(), Some(8.0));
    assert_eq!(h.credits().await.0, START_CREDITS - 8.0);
    // An automatic model on the video workflow echoes "auto".
    let submit = h
        .submit(
            "/v1/generate/creative-director",
            &json!({"prompt": "a chase", "workflow_type": "video", "scene_count": 1,
                    "model": null, "duration": 4}),
        )
        .await;
    assert_eq!(submit["model"], "auto");
    // veo-3, 720p, sound x 1.5, 4 s.
    assert_eq!(submit["credits_charged"].as_f64(), Some(240.0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_to_video_completes_decodes_settles_and_lands_in_the_library() {
    let h = harness(FAST);
    let prompt = "a harbour at dawn";
    let submit = h
        .submit(
            "/v1/generate/video",
            &json!({"prompt": prompt, "model": KLING}),
        )
        .await;
    let id = id_of(&submit);
    assert_eq!(submit["model"], KLING);
    // 28 credits x 1 (720p, the first tier) x 5 s.
    assert_eq!(submit["credits_charged"].as_f64(), Some(140.0));
    assert_eq!(h.credits().await, (START_CREDITS - 140.0, START_CREDITS));

    let done = h.wait_generation(&id).await;
    assert_eq!(done["state"], "completed", "{done}");
    assert_eq!(done["type"], "video");
    let result = &done["result"];
    assert_eq!(result["aspect_ratio"], "16:9");
    assert_eq!(result["duration"].as_f64(), Some(5.0));
    assert_eq!(result["model"], KLING);
    assert!(result["created_at"].is_string());
    assert!(
        result["prompt_used"]
            .as_str()
            .expect("prompt_used")
            .contains(prompt)
    );
    assert_eq!(done["credits_used"].as_f64(), Some(140.0));
    let item = &done["credits_breakdown"][0];
    assert_eq!(item["model"], KLING);
    assert_eq!(item["amount"].as_f64(), Some(140.0));
    assert_eq!(item["final"].as_f64(), Some(140.0));
    assert_eq!(item["base"].as_f64(), Some(28.0));
    assert_eq!(item["duration_multiplier"].as_f64(), Some(5.0));
    assert_eq!(
        h.credits().await,
        (START_CREDITS - 140.0, START_CREDITS - 140.0)
    );

    // The MP4 decodes with the studio's own decoder to the requested size and length.
    let url = result["urls"][0].as_str().expect("url");
    assert!(url.ends_with(".mp4"), "{url}");
    let mp4 = h.download(url).await;
    let mut decoder = VideoDecoder::from_bytes(mp4).expect("our demuxer opens it");
    let info = decoder.info().clone();
    assert_eq!((info.width, info.height), (1280, 720));
    assert_eq!(info.frame_count, 120);
    assert!((info.duration_secs - 5.0).abs() <= 1.0 / FPS, "{info:?}");
    let mut decoded = 0;
    while let Some(frame) = decoder.next_frame().expect("decodes") {
        assert_eq!((frame.width, frame.height), (1280, 720));
        assert_eq!(frame.index, decoded);
        decoded += 1;
    }
    assert_eq!(decoded, 120);
    let poster_url = result["thumbnail_url"].as_str().expect("thumbnail_url");
    let poster = h.download(poster_url).await;
    assert_eq!(&poster[..3], &[0xFF, 0xD8, 0xFF], "poster is a JPEG");

    // The finished video is a library item of type video.
    let (status, list) = h.get("/v1/media?type=video&category=ai").await;
    assert_eq!(status, StatusCode::OK, "{list}");
    let media = list["media"].as_array().expect("media");
    let item = media
        .iter()
        .find(|m| m["metadata"]["generationId"] == id)
        .unwrap_or_else(|| panic!("no media item for {id}: {list}"));
    assert_eq!(item["type"], "video");
    assert_eq!(item["media_type"], "video");
    assert_eq!(item["generation_type"], "text_to_video");
    assert_eq!(item["duration"].as_f64(), Some(5.0));
    assert_eq!(
        (item["width"].as_u64(), item["height"].as_u64()),
        (Some(1280), Some(720))
    );
    assert_eq!(item["prompt"], prompt);
    assert_eq!(item["url"], url);
    assert_eq!(
        item["thumbnail_url"], poster_url,
        "the thumbnail is the poster"
    );
    let (_, images) = h.get("/v1/media?type=image").await;
    assert!(
        images["media"]
            .as_array()
            .expect("media")
            .iter()
            .all(|m| m["metadata"]["generationId"] != id),
        "a video is not listed as an image"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsupported_durations_and_ratios_map_to_the_closest() {
    let h = harness(FAST);
    // kling renders 5 or 10 s: 3 -> 5; 4:5 is nearest 1:1 in log space.
    let kling = h
        .submit(
            "/v1/generate/video",
            &json!({"prompt": "koi pond", "model": KLING, "duration": 3, "aspect_ratio": "4:5",
                    "enhance_prompt": false}),
        )
        .await;
    assert_eq!(kling["credits_charged"].as_f64(), Some(140.0));
    // veo-3 renders 4, 6 or 8 s: 5 is a tie -> 6; 2:3 is nearest 9:16.
    let veo = h
        .submit(
            "/v1/generate/video",
            &json!({"prompt": "rain on glass", "model": VEO, "duration": 5, "aspect_ratio": "2:3"}),
        )
        .await;
    assert_eq!(veo["credits_charged"].as_f64(), Some(360.0));
    let kling = h.wait_generation(&id_of(&kling)).await;
    let veo = h.wait_generation(&id_of(&veo)).await;
    assert_eq!(kling["state"], "completed", "{kling}");
    assert_eq!(kling["result"]["aspect_ratio"], "1:1");
    assert_eq!(kling["result"]["duration"].as_f64(), Some(5.0));
    // enhance_prompt false keeps the prompt verbatim; the default (true) extends it.
    assert_eq!(kling["result"]["prompt_used"], "koi pond");
    let enhanced = veo["result"]["prompt_used"].as_str().expect("prompt_used");
    assert!(
        enhanced.starts_with("rain on glass") && enhanced.len() > "rain on glass".len(),
        "{enhanced}"
    );
    assert_eq!(veo["state"], "completed", "{veo}");
    assert_eq!(veo["result"]["aspect_ratio"], "9:16");
    assert_eq!(veo["result"]["duration"].as_f64(), Some(6.0));
    assert_eq!(veo["credits_used"].as_f64(), Some(360.0));
    let mp4 = h
        .download(veo["result"]["urls"][0].as_str().expect("url"))
        .await;
    let info = VideoDecoder::from_bytes(mp4).expect("opens").info().clone();
    assert_eq!(
        (info.width, info.height, info.frame_count),
        (720, 1280, 144)
    );
}

/// Share of a frame's pixels within `radius` (RGB distance) of any palette colour.
fn palette_share(rgba: &[u8], palette: &[[u8; 3]], radius: f64) -> f64 {
    let pixels = rgba.len() / 4;
    let near = rgba
        .chunks_exact(4)
        .filter(|px| {
            palette.iter().any(|c| {
                let d: f64 = (0..3)
                    .map(|i| (f64::from(px[i]) - f64::from(c[i])).powi(2))
                    .sum();
                d.sqrt() <= radius
            })
        })
        .count();
    near as f64 / pixels.max(1) as f64
}

async fn first_frame(h: &Harness, status: &Value) -> Vec<u8> {
    let mp4 = h
        .download(status["result"]["urls"][0].as_str().expect("url"))
        .await;
    let mut decoder = VideoDecoder::from_bytes(mp4).expect("opens");
    decoder
        .next_frame()
        .expect("decodes")
        .expect("a frame")
        .rgba
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grading_follows_the_table_for_every_video_type() {
    let h = harness(FAST);
    let project_id = h.graded_project().await;
    let body = |extra: Value| {
        let mut body = json!({"prompt": "a busy night market", "model": KLING,
                              "aspect_ratio": "1:1", "project_id": project_id});
        if let (Some(map), Value::Object(extra)) = (body.as_object_mut(), extra) {
            map.extend(extra);
        }
        body
    };
    let graded = h.submit("/v1/generate/video", &body(json!({}))).await;
    let skipped = h
        .submit(
            "/v1/generate/video",
            &body(json!({"skip_color_palette": true})),
        )
        .await;
    let string_skip = h
        .submit(
            "/v1/generate/video",
            &body(json!({"skip_color_palette": "true"})),
        )
        .await;
    // Creative Director has no opt-out: the field is ignored and every scene is graded.
    let director = h
        .submit(
            "/v1/generate/creative-director",
            &json!({"prompt": "a busy night market", "model": SCHNELL, "scene_count": 1,
                    "project_id": project_id, "skip_color_palette": true}),
        )
        .await;
    let graded = h.wait_generation(&id_of(&graded)).await;
    let skipped = h.wait_generation(&id_of(&skipped)).await;
    let string_skip = h.wait_generation(&id_of(&string_skip)).await;
    let prompt_used = |s: &Value| {
        s["result"]["prompt_used"]
            .as_str()
            .expect("prompt_used")
            .to_owned()
    };
    assert!(prompt_used(&graded).contains("Deep Teal"), "{graded}");
    assert!(!prompt_used(&skipped).contains("Deep Teal"), "{skipped}");
    assert!(
        prompt_used(&string_skip).contains("Deep Teal"),
        "{string_skip}"
    );

    // Image-to-video is never graded, whatever skip_color_palette says.
    let source = graded["result"]["thumbnail_url"].as_str().expect("poster");
    let i2v = h
        .submit(
            "/v1/generate/video/from-image",
            &json!({"image_url": source, "model": HAILUO, "aspect_ratio": "1:1",
                    "project_id": project_id}),
        )
        .await;
    assert_submit_shape(&i2v, "video_from_image", 8);
    // hailuo: 12 credits, no multiplier map, 5 s -> 6 s.
    assert_eq!(i2v["credits_charged"].as_f64(), Some(72.0));

    // The palette's colours dominate a graded frame, not an ungraded one.
    let palette = [[0x00, 0x80, 0x80], [0xC2, 0xB2, 0x80], [0xFF, 0x7F, 0x50]];
    let graded_share = palette_share(&first_frame(&h, &graded).await, &palette, 60.0);
    let skipped_share = palette_share(&first_frame(&h, &skipped).await, &palette, 60.0);
    assert!(
        graded_share > 0.5 && graded_share > skipped_share + 0.2,
        "graded {graded_share:.2}, skipped {skipped_share:.2}"
    );

    let director = h
        .wait_terminal(&format!(
            "/v1/generate/creative-director/{}/status",
            id_of(&director)
        ))
        .await;
    assert_eq!(director["state"], "completed", "{director}");
    let scene_id = director["scenes"][0]["generation_id"]
        .as_str()
        .expect("scene id");
    let scene = h.wait_generation(scene_id).await;
    assert!(prompt_used(&scene).contains("Deep Teal"), "{scene}");

    let i2v = h.wait_generation(&id_of(&i2v)).await;
    assert_eq!(i2v["state"], "completed", "{i2v}");
    assert!(!prompt_used(&i2v).contains("Deep Teal"), "{i2v}");
    assert_eq!(i2v["result"]["duration"].as_f64(), Some(6.0));
    let (_, list) = h
        .get(&format!("/v1/media?type=video&project_id={project_id}"))
        .await;
    let i2v_item = list["media"]
        .as_array()
        .expect("media")
        .iter()
        .find(|m| m["metadata"]["generationId"] == i2v["generation_id"])
        .cloned()
        .expect("i2v media item");
    assert_eq!(i2v_item["generation_type"], "img_to_video");
}

/// (batch state, scene statuses) of one poll.
fn snapshot(status: &Value) -> (String, Vec<String>) {
    (
        status["state"].as_str().expect("state").to_owned(),
        status["scenes"]
            .as_array()
            .expect("scenes")
            .iter()
            .map(|s| s["status"].as_str().expect("status").to_owned())
            .collect(),
    )
}

fn rank(status: &str) -> u8 {
    match status {
        "pending" => 0,
        "processing" => 1,
        _ => 2,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creative_director_scenes_run_in_order_and_the_generic_route_delegates() {
    let h = harness(FAST);
    let submit = h
        .submit(
            "/v1/generate/creative-director",
            &json!({"prompt": "a lighthouse keeper's long night", "model": SCHNELL,
                    "scene_count": 3}),
        )
        .await;
    let id = id_of(&submit);
    let poll = format!("/v1/generate/creative-director/{id}/status");
    let mut seen: Vec<(String, Vec<String>)> = Vec::new();
    let deadline = tokio::time::Instant::now() + POLL_TIMEOUT;
    let last = loop {
        let (status, body) = h.get(&poll).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["type"], "creative_director");
        let snap = snapshot(&body);
        if seen.last() != Some(&snap) {
            seen.push(snap.clone());
        }
        if matches!(snap.0.as_str(), "completed" | "failed" | "cancelled") {
            break body;
        }
        for scene in body["scenes"].as_array().expect("scenes") {
            if scene["status"] == "processing" {
                assert!(
                    scene["progress"].as_u64().is_some_and(|p| p <= 100),
                    "{scene}"
                );
            }
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "batch never finished"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(last["state"], "completed", "{last}");
    // Scenes never move backwards and run one at a time, in scene order.
    for pair in seen.windows(2) {
        for (before, after) in pair[0].1.iter().zip(&pair[1].1) {
            assert!(rank(before) <= rank(after), "{seen:?}");
        }
    }
    for (_, scenes) in &seen {
        assert!(
            scenes.iter().filter(|s| *s == "processing").count() <= 1,
            "{seen:?}"
        );
        let ranks: Vec<u8> = scenes.iter().map(|s| rank(s)).collect();
        assert!(ranks.windows(2).all(|w| w[0] >= w[1]), "{seen:?}");
    }
    assert!(
        seen.iter()
            .any(|(state, s)| state == "processing" && s[0] == "processing" && s[2] == "pending"),
        "scene 3 waited while scene 1 ran: {seen:?}"
    );
    let mut urls = Vec::new();
    for (index, scene) in last["scenes"]
        .as_array()
        .expect("scenes")
        .iter()
        .enumerate()
    {
        assert_eq!(scene["scene_number"], index as u64 + 1);
        assert!(scene["title"].as_str().is_some_and(|t| !t.is_empty()));
        assert!(scene.get("video_urls").is_none());
        let url = scene["image_urls"][0]
            .as_str()
            .expect("image url")
            .to_owned();
        let png = h.download(&url).await;
        assert_eq!(&png[..4], b"\x89PNG");
        urls.push(png);
    }
    assert!(urls[0] != urls[1] && urls[1] != urls[2], "scenes differ");
    assert_eq!(last["progress"], 100);
    assert_eq!(last["credits_used"].as_f64(), Some(6.0));
    assert_eq!(last["credits_breakdown"].as_array().map(Vec::len), Some(3));
    let (status, generic) = h.get(&format!("/v1/generate/{id}/status")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        generic, last,
        "the generic status route delegates to the batch"
    );
    assert_eq!(
        h.credits().await,
        (START_CREDITS - 6.0, START_CREDITS - 6.0)
    );

    // Video workflow: scenes carry playable video_urls.
    let submit = h
        .submit(
            "/v1/generate/creative-director",
            &json!({"prompt": "paper boats", "model": KLING, "workflow_type": "video",
                    "scene_count": 2, "duration": 5}),
        )
        .await;
    assert_eq!(submit["credits_charged"].as_f64(), Some(280.0));
    let done = h.wait_generation(&id_of(&submit)).await;
    assert_eq!(done["state"], "completed", "{done}");
    assert_eq!(done["credits_used"].as_f64(), Some(280.0));
    for scene in done["scenes"].as_array().expect("scenes") {
        assert!(scene.get("image_urls").is_none());
        let mp4 = h
            .download(scene["video_urls"][0].as_str().expect("video url"))
            .await;
        let info = VideoDecoder::from_bytes(mp4).expect("opens").info().clone();
        // CD defaults to 1:1.
        assert_eq!((info.width, info.height, info.frame_count), (720, 720, 120));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_running_batch_releases_every_scene() {
    let h = harness(SLOW);
    let submit = h
        .submit(
            "/v1/generate/creative-director",
            &json!({"prompt": "a storm over the bay", "model": KLING,
                    "workflow_type": "video", "scene_count": 4}),
        )
        .await;
    let id = id_of(&submit);
    assert_eq!(submit["credits_charged"].as_f64(), Some(560.0));
    assert_eq!(h.credits().await, (START_CREDITS - 560.0, START_CREDITS));
    let (_, running) = h.get(&format!("/v1/generate/{id}/status")).await;
    assert!(
        matches!(running["state"].as_str(), Some("pending" | "processing")),
        "{running}"
    );
    let (status, body) = h
        .post(&format!("/v1/generate/{id}/cancel"), &json!({}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, cancelled) = h
        .get(&format!("/v1/generate/creative-director/{id}/status"))
        .await;
    assert_eq!(cancelled["state"], "cancelled", "{cancelled}");
    assert!(
        cancelled["scenes"]
            .as_array()
            .expect("scenes")
            .iter()
            .all(|s| s["status"] == "cancelled"),
        "{cancelled}"
    );
    assert!(cancelled.get("credits_used").is_none());
    assert_eq!(h.credits().await, (START_CREDITS, START_CREDITS));
    let (status, body) = h
        .post(&format!("/v1/generate/{id}/cancel"), &json!({}))
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["code"], "CANNOT_CANCEL");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn insufficient_credits_and_injected_failures() {
    let h = harness(FAST);
    h.sandbox.set_credits(100.0);
    let (status, body) = h
        .post(
            "/v1/generate/video",
            &json!({"prompt": "x", "model": KLING}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["success"], false);
    assert_eq!(body["code"], "INSUFFICIENT_CREDITS");
    let message = body["error"].as_str().expect("error");
    assert!(
        message.contains("balance 100") && message.contains("minimum 140"),
        "{message}"
    );
    let (status, body) = h
        .post(
            "/v1/generate/creative-director",
            &json!({"prompt": "x", "model": HAILUO, "workflow_type": "video"}),
        )
        .await;
    // hailuo is image-to-video only: no text_to_video model of that name.
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (status, body) = h
        .post(
            "/v1/generate/creative-director",
            &json!({"prompt": "x", "model": KLING, "workflow_type": "video", "scene_count": 1}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["code"], "INSUFFICIENT_CREDITS");
    assert_eq!(h.sandbox.generation_count(), 0);

    h.sandbox.set_credits(START_CREDITS);
    h.sandbox.fail_next_jobs(1, true);
    let submit = h
        .submit(
            "/v1/generate/video",
            &json!({"prompt": "doomed", "model": KLING}),
        )
        .await;
    let failed = h.wait_generation(&id_of(&submit)).await;
    assert_eq!(failed["state"], "failed", "{failed}");
    assert_eq!(failed["failure"]["retryable"], true);
    assert_eq!(failed["error"], failed["failure"]["message"]);
    assert!(failed.get("result").is_none() && failed.get("credits_used").is_none());

    // A failed scene fails the batch (error, no failure object); unstarted scenes are
    // cancelled, and every reservation comes back.
    h.sandbox.fail_next_jobs(1, false);
    let submit = h
        .submit(
            "/v1/generate/creative-director",
            &json!({"prompt": "doomed", "model": SCHNELL, "scene_count": 3}),
        )
        .await;
    let batch = h.wait_generation(&id_of(&submit)).await;
    assert_eq!(batch["state"], "failed", "{batch}");
    assert!(
        batch["error"].is_string() && batch.get("failure").is_none(),
        "{batch}"
    );
    let (_, batch) = h
        .get(&format!("/v1/generate/{}/status", id_of(&submit)))
        .await;
    assert!(
        batch["scenes"]
            .as_array()
            .expect("scenes")
            .iter()
            .skip(1)
            .all(|s| s["status"] == "cancelled"),
        "{batch}"
    );
    assert_eq!(h.credits().await, (START_CREDITS, START_CREDITS));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unfinished_batch_resumes_after_a_restart() {
    let h = harness(FAST);
    let submit = h
        .submit(
            "/v1/generate/creative-director",
            &json!({"prompt": "tides", "model": SCHNELL, "scene_count": 3}),
        )
        .await;
    let h = Harness(h.0.restarted(FAST));
    let (_, resumed) = h
        .get(&format!("/v1/generate/{}/status", id_of(&submit)))
        .await;
    assert!(
        matches!(resumed["state"].as_str(), Some("pending" | "processing")),
        "the batch was still running at shutdown: {resumed}"
    );
    let done = h
        .wait_terminal(&format!(
            "/v1/generate/creative-director/{}/status",
            id_of(&submit)
        ))
        .await;
    assert_eq!(done["state"], "completed", "{done}");
    assert_eq!(done["credits_used"].as_f64(), Some(6.0));
    assert_eq!(
        h.credits().await,
        (START_CREDITS - 6.0, START_CREDITS - 6.0)
    );
}
