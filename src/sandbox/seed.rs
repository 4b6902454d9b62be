//! Seeded content: shared placeholder files, the two stock-library stills, and bulk media
//! seeding for benchmarks (many rows, a handful of shared files).

use std::path::Path;

use rusqlite::OptionalExtension;
use serde_json::json;

use super::clock::Clock;
use super::files::{write_jpeg, write_png};
use super::ids::new_object_id;
use super::media_store::{NewMedia, insert_media_in};
use super::render::{RenderSpec, render_art, thumbnail};
use super::state::AppState;

pub(crate) const NSFW_PLACEHOLDER: &str = "placeholders/nsfw.jpg";
/// Distinct shared stills behind seeded items.
const SEED_VARIANTS: usize = 6;
const SEED_IMAGE_SIDE_PX: (u32, u32) = (640, 400);
/// Seeded items are spaced this far apart, newest now.
const SEED_SPACING_MS: i64 = 60_000;

const SUBJECTS: [&str; 12] = [
    "lighthouse on a cliff",
    "neon alley in the rain",
    "desert caravan at dawn",
    "koi pond in autumn",
    "retro diner interior",
    "snowy mountain cabin",
    "floating market",
    "jazz trio on stage",
    "greenhouse full of ferns",
    "harbour at golden hour",
    "robot tending a garden",
    "paper lanterns over a river",
];
const STYLES: [&str; 8] = [
    "cinematic",
    "watercolor",
    "35mm film",
    "isometric",
    "oil painting",
    "studio photo",
    "ink sketch",
    "low poly",
];
const MODELS: [(&str, &str); 4] = [
    ("flux-pro", "Flux Pro"),
    ("imagen-4", "Imagen 4"),
    ("kling-2", "Kling 2"),
    ("suno-v4", "Suno v4"),
];

fn variant_prompt(n: usize) -> String {
    format!("seed still {n}")
}

/// Renders (once) the placeholder that replaces NSFW media URLs and the shared stills that
/// seeded items point at.
pub(crate) fn ensure_shared_files(files_dir: &Path) -> Result<(), String> {
    let placeholder = files_dir.join(NSFW_PLACEHOLDER);
    if !placeholder.exists() {
        let image = image::RgbImage::from_pixel(256, 256, image::Rgb([58, 58, 64]));
        write_jpeg(&placeholder, &image)?;
    }
    for n in 0..SEED_VARIANTS {
        let full = files_dir.join(format!("seed/still_{n}.png"));
        let thumb = files_dir.join(format!("seed/still_{n}_thumb.jpg"));
        if full.exists() && thumb.exists() {
            continue;
        }
        let prompt = variant_prompt(n);
        let image = render_art(&RenderSpec {
            prompt: &prompt,
            seed: n as i64,
            index: 0,
            width: SEED_IMAGE_SIDE_PX.0,
            height: SEED_IMAGE_SIDE_PX.1,
        });
        write_png(&full, &image)?;
        write_jpeg(&thumb, &thumbnail(&image))?;
    }
    // Stand-ins for seeded video/audio rows: real files so URLs resolve, not playable media.
    for (rel, bytes) in [
        (
            "seed/clip.mp4",
            b"framewright sandbox placeholder video".as_slice(),
        ),
        (
            "seed/track.mp3",
            b"framewright sandbox placeholder audio".as_slice(),
        ),
    ] {
        let path = files_dir.join(rel);
        if !path.exists() {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
            }
            std::fs::write(&path, bytes).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

/// Two stock-library imports in the default user's default project, created once.
pub(crate) fn ensure_stock_items(state: &AppState) -> Result<(), String> {
    let user_id = &state.default_user_id;
    let seeded: Option<String> = state
        .store
        .lock()
        .query_row(
            "SELECT value FROM meta WHERE key = 'stock_seeded'",
            [],
            |r| r.get(0),
        )
        .optional()
        .map_err(|e| e.to_string())?;
    if seeded.is_some() {
        return Ok(());
    }
    let project = state
        .store
        .ensure_default_project(user_id)
        .map_err(|e| e.to_string())?;
    let now_ms = state.clock.now_ms();
    for (n, (title, prompt)) in [
        ("city-skyline-dusk.jpg", "city skyline at dusk, aerial"),
        ("forest-mist-morning.jpg", "misty forest in the morning"),
    ]
    .into_iter()
    .enumerate()
    {
        let rel = format!("stock/{title}");
        let thumb_rel = format!("stock/thumb_{title}");
        let image = render_art(&RenderSpec {
            prompt,
            seed: 900 + n as i64,
            index: 0,
            width: 960,
            height: 540,
        });
        write_jpeg(&state.files_dir.join(&rel), &image)?;
        write_jpeg(&state.files_dir.join(&thumb_rel), &thumbnail(&image))?;
        let size = std::fs::metadata(state.files_dir.join(&rel))
            .map(|m| m.len())
            .ok();
        let created_ms = now_ms - (n as i64 + 1) * 3_600_000;
        let item = NewMedia {
            id: new_object_id(),
            user_id: user_id.clone(),
            project_id: project.id.clone(),
            source_type: "stock".to_owned(),
            category: "stock-footage".to_owned(),
            media_type: "image".to_owned(),
            name: prompt.to_owned(),
            filename: title.to_owned(),
            rel_path: rel,
            thumb_rel_path: Some(thumb_rel),
            owns_files: true,
            size_bytes: size,
            width: Some(960),
            height: Some(540),
            source_tag: Some("stock".to_owned()),
            metadata: json!({
                "category": "stock-footage",
                "source": "stock",
                "stockSource": "sandbox-stock",
                "title": prompt,
            }),
            created_at: Clock::iso_at(created_ms),
            created_ms,
            ..NewMedia::default()
        };
        state.store.insert_media(&item).map_err(|e| e.to_string())?;
    }
    state
        .store
        .lock()
        .execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('stock_seeded', '1')",
            [],
        )
        .map_err(|e| e.to_string())?;
    Ok(())
}

/// Inserts `count` realistic items for the default user in one transaction. The newest is
/// "now", each older one a minute earlier. Returns how many were inserted (0 when the project
/// is unknown or not the default user's).
pub(crate) fn seed_media(
    state: &AppState,
    count: usize,
    project_id: Option<&str>,
) -> Result<usize, String> {
    let user_id = state.default_user_id.clone();
    let project_id = match project_id {
        Some(id) => match state.store.find_project(&user_id, id) {
            Ok(Some(project)) => project.id,
            Ok(None) => return Ok(0),
            Err(error) => return Err(error.to_string()),
        },
        None => {
            state
                .store
                .ensure_default_project(&user_id)
                .map_err(|e| e.to_string())?
                .id
        }
    };
    let now_ms = state.clock.now_ms();
    let conn = state.store.lock();
    let tx = conn.unchecked_transaction().map_err(|e| e.to_string())?;
    for i in 0..count {
        let variant = i % SEED_VARIANTS;
        let subject = SUBJECTS[i % SUBJECTS.len()];
        let style = STYLES[(i / SUBJECTS.len()) % STYLES.len()];
        let prompt = format!("{subject}, {style}");
        let created_ms = now_ms - i as i64 * SEED_SPACING_MS;
        // 70 % images, 20 % video, 10 % audio; a mix of sections within each.
        let (media_type, category, source_type, generation_type, rel, model) = match i % 10 {
            0..=3 => (
                "image",
                "generated",
                "generated",
                Some("text_to_img"),
                None,
                MODELS[i % 2],
            ),
            4 => (
                "image",
                "edited-image",
                "generated",
                Some("image_editing"),
                None,
                MODELS[0],
            ),
            5 => (
                "image",
                "generated",
                "chat-generated",
                Some("chat"),
                None,
                MODELS[1],
            ),
            6 => ("image", "uploaded", "uploaded", None, None, MODELS[0]),
            7 => (
                "video",
                "text-to-video",
                "generated",
                Some("text_to_video"),
                Some("seed/clip.mp4"),
                MODELS[2],
            ),
            8 => (
                "video",
                "uploaded",
                "uploaded",
                None,
                Some("seed/clip.mp4"),
                MODELS[2],
            ),
            _ => (
                "audio",
                "music",
                "generated",
                Some("music_gen"),
                Some("seed/track.mp3"),
                MODELS[3],
            ),
        };
        let uploaded = source_type == "uploaded";
        let ext = match media_type {
            "video" => "mp4",
            "audio" => "mp3",
            _ => "png",
        };
        let filename = if uploaded {
            format!("{}-{i}.{ext}", subject.replace(' ', "-"))
        } else {
            format!("seed_{i:06}.{ext}")
        };
        let rel_path = rel
            .map(str::to_owned)
            .unwrap_or_else(|| format!("seed/still_{variant}.png"));
        let thumb = (media_type != "audio").then(|| format!("seed/still_{variant}_thumb.jpg"));
        let metadata = if uploaded {
            json!({"category": "uploaded", "source": "upload", "originalFilename": filename})
        } else {
            json!({
                "category": category,
                "source": if i % 3 == 0 { "web" } else { "api" },
                "prompt": prompt,
                "model": model.0,
                "modelName": model.1,
                "aspectRatio": "16:10",
                "seeded": true,
            })
        };
        let item = NewMedia {
            id: new_object_id(),
            user_id: user_id.clone(),
            project_id: project_id.clone(),
            session_id: (!uploaded).then(new_object_id),
            source_type: source_type.to_owned(),
            category: category.to_owned(),
            media_type: media_type.to_owned(),
            generation_type: generation_type.map(str::to_owned),
            name: if uploaded {
                filename.clone()
            } else {
                prompt.clone()
            },
            filename,
            rel_path,
            thumb_rel_path: thumb,
            owns_files: false,
            size_bytes: Some(200_000 + (i as u64 * 7_919) % 4_000_000),
            prompt: (!uploaded).then_some(prompt),
            width: (media_type != "audio").then_some(SEED_IMAGE_SIDE_PX.0),
            height: (media_type != "audio").then_some(SEED_IMAGE_SIDE_PX.1),
            duration_secs: (media_type != "image").then_some(5.0 + (i % 4) as f64 * 5.0),
            nsfw: i % 97 == 96,
            credits_used: (!uploaded).then_some(4.0),
            generation_duration_secs: (!uploaded).then_some(6.0),
            source_tag: Some(
                if uploaded {
                    "upload"
                } else if i % 3 == 0 {
                    "web"
                } else {
                    "api"
                }
                .to_owned(),
            ),
            metadata,
            created_at: Clock::iso_at(created_ms),
            created_ms,
            ..NewMedia::default()
        };
        insert_media_in(&tx, &item).map_err(|e| e.to_string())?;
    }
    tx.commit().map_err(|e| e.to_string())?;
    Ok(count)
}
