//! Mutation fuzzing of every answer the client decodes: the published wire examples in
//! `../shared/fixtures/wire-examples/` and one realistic body per library, palette and
//! preset answer, mutated as bytes (flips, cuts, splices) and as JSON (type swaps, nulls,
//! huge numbers, deep nesting, awkward unicode), read through the client's own envelopes
//! with random HTTP statuses and headers (`ApiError::from_response` first, as the client
//! does). No input may panic. Replay a case with the `FUZZ_SEED=… FUZZ_CASE=…` printed.

use crate::fuzz_support;

use framewright::api::fuzz_entry::{WIRE_KINDS, decode};
use fuzz_support::{FuzzInput, Rng, mutate, mutate_json, run};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::OnceLock;

/// A realistic body for the answers the published examples do not cover.
fn handwritten_seeds() -> Vec<(&'static str, Value)> {
    let item = json!({
        "id": "65f0c0ffee0000000000001", "url": "http://127.0.0.1:1/files/a.png",
        "thumbnail_url": "http://127.0.0.1:1/files/a_t.png", "name": "a.png",
        "filename": "a.png", "type": "image", "media_type": "image/png", "category": "ai",
        "size": 12345, "source_type": "generated", "generation_type": "image",
        "prompt": "a lighthouse at dusk", "width": 1024, "height": 768, "duration": null,
        "is_favorited": false, "nsfw_detected": false, "project_id": "p1",
        "session_id": "s1", "user_id": "u1", "created_at": "2026-03-01T10:00:00Z",
        "metadata": {"creditsUsed": 4, "generationDurationSeconds": 9.5, "model": "flux",
                     "generationId": "gen_1", "prompt": "a lighthouse"}
    });
    let folder = json!({
        "_id": "f1", "name": "Moodboard", "description": "refs", "color": "#ff8800",
        "icon": "star", "itemCount": 3, "isOwner": true, "sharedWithCount": 1,
        "sharedWith": ["u2"], "projectId": "p1", "createdAt": "2026-03-01T10:00:00Z",
        "lastUpdated": "2026-03-02T10:00:00Z"
    });
    let palette = json!({
        "_id": "pal1", "name": "Dusk", "colors": [{"hex": "#112233", "name": "Navy"},
        {"hex": "#ffcc00", "weight": 0.3}], "sourceImageUrls": ["http://127.0.0.1:1/a.png"],
        "isActive": true, "contentScope": "personal", "createdAt": "2026-03-01T10:00:00Z",
        "updatedAt": "2026-03-01T10:00:00Z"
    });
    let preset = json!({"id": "cam_1", "name": "Dolly in", "description": "slow push",
        "thumbnailUrl": "http://127.0.0.1:1/t.png", "sortOrder": 2, "previewUrl": null});
    vec![
        (
            "trim_job",
            json!({"success": true, "jobId": "trim_1", "generationId": "trim_1",
            "status": "uploading", "progress": 95, "message": "Uploading", "error": null,
            "updatedAt": 1795567525000_u64, "videoUrl": "http://127.0.0.1:1/files/t.mp4"}),
        ),
        (
            "media_list",
            json!({"media": [item.clone(), item.clone()],
            "pagination": {"page": 1, "page_size": 50, "total_items": 2, "total_pages": 1,
                           "has_next": false}}),
        ),
        ("media_item", item.clone()),
        (
            "media_detail",
            json!({"media": {"id": "m1", "type": "image", "category": "ai",
            "filename": "a.png", "url": "http://127.0.0.1:1/a.png", "size": 10,
            "created": "2026-03-01T10:00:00Z",
            "metadata": {"thumbnailUrl": "http://127.0.0.1:1/t.png", "generationId": "g1"}}}),
        ),
        (
            "media_stats",
            json!({"stats": {"total": 10, "images": 7, "videos": 2, "audio": 1,
            "totalSizeBytes": 123456789}}),
        ),
        ("favorite", json!({"is_favorited": true})),
        (
            "folders",
            json!({"folders": [folder.clone(), folder.clone()]}),
        ),
        ("folder", json!({"folder": folder.clone()})),
        (
            "bulk_counts",
            json!({"deleted_count": 3, "restored_count": 0, "moved_count": 2,
            "removed": 1, "not_found": 0, "errors": [{"error": "one failed"}]}),
        ),
        ("folder_add", json!({"added": 2, "already_present": 1})),
        (
            "share",
            json!({"folder": folder, "shared_with_user_ids": ["u2", "u3"],
            "not_found": ["x@example.com"]}),
        ),
        (
            "upload_ticket",
            json!({"token": "t", "upload_url": "http://127.0.0.1:1/up",
            "expires_in": 300, "max_file_mb": 100}),
        ),
        (
            "palette_list",
            json!({"colorPalettes": [palette.clone(), palette.clone()],
            "pagination": {"page": 1, "limit": 20, "total": 2, "pages": 1}}),
        ),
        ("palette", json!({"colorPalette": palette})),
        (
            "palette_analyze",
            json!({"name": "Analyzed", "colors": [{"hex": "#000000"}],
            "source_image_urls": ["http://127.0.0.1:1/a.png"]}),
        ),
        (
            "presets",
            json!({"presets": {"camera": [preset.clone()], "lighting": [preset]},
            "dimensions": ["camera", "lighting"]}),
        ),
        (
            "projects",
            json!({"projects": [{"id": "p1", "name": "One"}, {"_id": "p2"}]}),
        ),
        ("project", json!({"project": {"id": "p1", "name": "One"}})),
        (
            "upload",
            json!({"media": {"url": "http://127.0.0.1:1/u.png", "id": "m9"}}),
        ),
    ]
}

/// The answer kind a published example is read as.
fn kind_of_example(file_name: &str) -> &'static str {
    match file_name {
        n if n.starts_with("status_") => "status",
        n if n.starts_with("post_generate_") => "submit",
        n if n.starts_with("error_") => "any_json",
        "get_models.json" => "models",
        n if n.contains("credits") || n.contains("balance") => "credits",
        _ => "any_json",
    }
}

struct Corpus {
    /// (kind, body text).
    seeds: Vec<(&'static str, Vec<u8>)>,
    all_bodies: Vec<Vec<u8>>,
}

fn corpus() -> &'static Corpus {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let dir =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/wire-examples");
        let mut seeds = Vec::new();
        let mut entries: Vec<_> = std::fs::read_dir(&dir)
            .expect("wire examples")
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json" || x == "txt"))
            .collect();
        entries.sort();
        for path in entries {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            let body = std::fs::read(&path).expect("read example");
            seeds.push((kind_of_example(name), body));
        }
        assert!(seeds.len() >= 30, "the wire examples are there");
        for (kind, value) in handwritten_seeds() {
            seeds.push((kind, serde_json::to_vec(&value).expect("seed json")));
        }
        for kind in WIRE_KINDS {
            assert!(
                seeds.iter().any(|(k, _)| k == kind),
                "no seed for answer kind {kind}"
            );
        }
        let all_bodies = seeds.iter().map(|(_, body)| body.clone()).collect();
        Corpus { seeds, all_bodies }
    })
}

/// One decode: an answer kind, an HTTP status, headers and a body.
struct WireCase {
    kind: &'static str,
    status: u16,
    headers: Vec<(&'static str, Vec<u8>)>,
    body: Vec<u8>,
}

impl FuzzInput for WireCase {
    fn to_bytes(&self) -> Vec<u8> {
        let mut out = format!("kind: {}\nstatus: {}\n", self.kind, self.status).into_bytes();
        for (name, value) in &self.headers {
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b": ");
            out.extend_from_slice(value);
            out.push(b'\n');
        }
        out.push(b'\n');
        out.extend_from_slice(&self.body);
        out
    }
}

const HEADER_VALUES: &[&str] = &[
    "0",
    "5",
    "-1",
    "1.5",
    "1e309",
    "NaN",
    "inf",
    "18446744073709551616",
    "",
    " 7 ",
    "Wed, 21 Oct 2015 07:28:00 GMT",
    "Mon, 32 Foo 99999 99:99:99 GMT",
    "limit=30, remaining=0, reset=12",
    "application/json",
    "text/html",
];

fn status(rng: &mut Rng) -> u16 {
    match rng.below(6) {
        0..=2 => 200,
        3 => *rng.pick(&[201, 202, 204, 299]),
        4 => *rng.pick(&[
            400, 401, 402, 403, 404, 409, 413, 422, 429, 500, 502, 503, 504,
        ]),
        _ => 100 + rng.below(500) as u16,
    }
}

fn headers(rng: &mut Rng) -> Vec<(&'static str, Vec<u8>)> {
    let names = [
        "retry-after",
        "ratelimit-reset",
        "ratelimit-remaining",
        "ratelimit-limit",
        "ratelimit",
        "content-type",
        "x-request-id",
    ];
    (0..rng.below(4))
        .map(|_| {
            let name = *rng.pick(&names);
            let value = if rng.one_in(4) {
                (0..rng.below(12)).map(|_| rng.next_u64() as u8).collect()
            } else {
                rng.pick(HEADER_VALUES).as_bytes().to_vec()
            };
            (name, value)
        })
        .collect()
}

fn make_case(rng: &mut Rng) -> WireCase {
    let corpus = corpus();
    let (seed_kind, seed_body) = rng.pick(&corpus.seeds).clone();
    // Mostly the body's own kind; sometimes another kind's reader gets it.
    let kind = if rng.one_in(4) {
        *rng.pick(WIRE_KINDS)
    } else {
        seed_kind
    };
    let body = match serde_json::from_slice::<Value>(&seed_body) {
        Ok(value) if rng.one_in(2) => {
            serde_json::to_vec(&mutate_json(rng, &value)).expect("mutated json")
        }
        _ => mutate(rng, &seed_body, &corpus.all_bodies),
    };
    WireCase {
        kind,
        status: status(rng),
        headers: headers(rng),
        body,
    }
}

fn decode_case(case: &WireCase) -> Result<(), String> {
    let mut headers = HeaderMap::new();
    for (name, value) in &case.headers {
        // Bytes no HTTP stack would deliver as a header value are skipped.
        if let Ok(value) = HeaderValue::from_bytes(value) {
            headers.append(HeaderName::from_static(name), value);
        }
    }
    // A refusal is fine: only a panic (caught by the runner) is a failure.
    let _ = decode(case.kind, case.status, &headers, &case.body);
    Ok(())
}

#[test]
fn every_answer_kind_survives_mutated_bodies_statuses_and_headers() {
    run("wire", 40_000, make_case, decode_case);
}

#[test]
fn unmutated_seeds_decode_as_their_kind() {
    // The fuzzing means something only if the seeds are read, not refused, as they are.
    for (kind, body) in &corpus().seeds {
        // Error examples are errors; `.txt` examples are not JSON (placeholders).
        if *kind == "any_json" || serde_json::from_slice::<Value>(body).is_err() {
            continue;
        }
        let outcome = decode(kind, 200, &HeaderMap::new(), body);
        assert!(
            outcome.is_ok(),
            "{kind}: {outcome:?} for {}",
            String::from_utf8_lossy(body)
        );
    }
}

#[test]
fn huge_counts_summed_over_split_calls_do_not_overflow() {
    // Found by this fuzzer: a split bulk or folder call summed the counts of its chunks
    // with `+`, so two answers near u64::MAX overflowed (a panic in debug builds).
    for (kind, body) in [
        (
            "bulk_counts",
            json!({"deleted_count": u64::MAX, "restored_count": u64::MAX,
                               "not_found": u64::MAX}),
        ),
        (
            "folder_add",
            json!({"added": u64::MAX, "skipped": u64::MAX}),
        ),
    ] {
        let body = serde_json::to_vec(&body).expect("json");
        assert!(
            decode(kind, 200, &HeaderMap::new(), &body).is_ok(),
            "{kind}"
        );
    }
}
