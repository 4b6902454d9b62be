//! Seeded content: shared placeholder files, the two stock-library stills, and bulk media
//! seeding for benchmarks (many rows, a handful of shared files).

use std::path::Path;

use rusqlite::OptionalExtension;
use serde_json::json;

use super::clock::Clock;
use super::files::{write_bytes, write_jpeg};
use super::ids::new_object_id;
use super::media_store::{NewMedia, insert_media_in};
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
/// The seeded audio items' file: ten seconds of music (see `sound::render_seed_track`).
const SEED_TRACK: &[u8] = include_bytes!("../../assets/sandbox-seed/track.mp3");
const SEED_TRACK_REL_PATH: &str = "seed/track.mp3";

const MODELS: [(&str, &str); 4] = [
    ("flux-pro", "Flux Pro"),
    ("imagen-4", "Imagen 4"),
    ("kling-2", "Kling 2"),
    ("suno-v4", "Suno v4"),
];

/// The shared stills (PNG) and their thumbnails (JPEG), as the sandbox's renderer draws
/// them (`render_art`: prompt "seed still N", seed N, 640×400). They are shipped rather than
/// drawn at every start: drawing them took most of a sandbox's start (about 3 s in a debug
/// build, paid by every test sandbox). A unit test checks them against the renderer.
const SEED_STILLS: [(&[u8], &[u8]); SEED_VARIANTS] = [
    (
        include_bytes!("../../assets/sandbox-seed/still_0.png"),
        include_bytes!("../../assets/sandbox-seed/still_0_thumb.jpg"),
    ),
    (
        include_bytes!("../../assets/sandbox-seed/still_1.png"),
        include_bytes!("../../assets/sandbox-seed/still_1_thumb.jpg"),
    ),
    (
        include_bytes!("../../assets/sandbox-seed/still_2.png"),
        include_bytes!("../../assets/sandbox-seed/still_2_thumb.jpg"),
    ),
    (
        include_bytes!("../../assets/sandbox-seed/still_3.png"),
        include_bytes!("../../assets/sandbox-seed/still_3_thumb.jpg"),
    ),
    (
        include_bytes!("../../assets/sandbox-seed/still_4.png"),
        include_bytes!("../../assets/sandbox-seed/still_4_thumb.jpg"),
    ),
    (
        include_bytes!("../../assets/sandbox-seed/still_5.png"),
        include_bytes!("../../assets/sandbox-seed/still_5_thumb.jpg"),
    ),
];

/// One stock-library import: file name, prompt (its title), the JPEG and its thumbnail,
/// drawn by `render_art` at 960×540 with seed 900 + its index.
struct StockStill {
    file_name: &'static str,
    prompt: &'static str,
    jpeg: &'static [u8],
    thumb: &'static [u8],
}

const STOCK_STILLS: [StockStill; 2] = [
    StockStill {
        file_name: "city-skyline-dusk.jpg",
        prompt: "city skyline at dusk, aerial",
        jpeg: include_bytes!("../../assets/sandbox-seed/city-skyline-dusk.jpg"),
        thumb: include_bytes!("../../assets/sandbox-seed/thumb_city-skyline-dusk.jpg"),
    },
    StockStill {
        file_name: "forest-mist-morning.jpg",
        prompt: "misty forest in the morning",
        jpeg: include_bytes!("../../assets/sandbox-seed/forest-mist-morning.jpg"),
        thumb: include_bytes!("../../assets/sandbox-seed/thumb_forest-mist-morning.jpg"),
    },
];
const STOCK_SIDE_PX: (u32, u32) = (960, 540);

/// Writes (once per data folder) the placeholder that replaces NSFW media URLs and the
/// shared stills that seeded items point at.
pub(crate) fn ensure_shared_files(files_dir: &Path) -> Result<(), String> {
    let placeholder = files_dir.join(NSFW_PLACEHOLDER);
    if !placeholder.exists() {
        let image = image::RgbImage::from_pixel(256, 256, image::Rgb([58, 58, 64]));
        write_jpeg(&placeholder, &image)?;
    }
    for (n, (png, thumb_jpeg)) in SEED_STILLS.iter().enumerate() {
        let full = files_dir.join(format!("seed/still_{n}.png"));
        let thumb = files_dir.join(format!("seed/still_{n}_thumb.jpg"));
        if full.exists() && thumb.exists() {
            continue;
        }
        write_bytes(&full, png)?;
        write_bytes(&thumb, thumb_jpeg)?;
    }
    // The seeded video rows' stand-in (a real file so the URL resolves, not playable) and
    // the seeded audio rows' real, playable track (an older data dir's placeholder is
    // replaced: it differs in length).
    for (rel, bytes) in [
        (
            "seed/clip.mp4",
            b"framewright sandbox placeholder video".as_slice(),
        ),
        (SEED_TRACK_REL_PATH, SEED_TRACK),
    ] {
        let path = files_dir.join(rel);
        let current_len = std::fs::metadata(&path).map(|m| m.len()).ok();
        if current_len != Some(bytes.len() as u64) {
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
    for (n, still) in STOCK_STILLS.iter().enumerate() {
        let title = still.file_name;
        let prompt = still.prompt;
        let rel = format!("stock/{title}");
        let thumb_rel = format!("stock/thumb_{title}");
        write_bytes(&state.files_dir.join(&rel), still.jpeg)?;
        write_bytes(&state.files_dir.join(&thumb_rel), still.thumb)?;
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
            size_bytes: Some(still.jpeg.len() as u64),
            width: Some(STOCK_SIDE_PX.0),
            height: Some(STOCK_SIDE_PX.1),
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
                Some(SEED_TRACK_REL_PATH),
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
                "title": (media_type == "audio").then_some("Seed track"),
                "duration": (media_type == "audio").then_some(super::sound::SEED_TRACK_SECS),
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
            size_bytes: Some(if media_type == "audio" {
                SEED_TRACK.len() as u64
            } else {
                200_000 + (i as u64 * 7_919) % 4_000_000
            }),
            prompt: (!uploaded).then_some(prompt),
            width: (media_type != "audio").then_some(SEED_IMAGE_SIDE_PX.0),
            height: (media_type != "audio").then_some(SEED_IMAGE_SIDE_PX.1),
            duration_secs: match media_type {
                "image" => None,
                "audio" => Some(super::sound::SEED_TRACK_SECS),
                _ => Some(5.0 + (i % 4) as f64 * 5.0),
            },
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::render::{RenderSpec, THUMBNAIL_LONG_SIDE_PX, render_art, thumbnail};

    fn draw(prompt: &str, seed: i64, (width, height): (u32, u32)) -> image::RgbImage {
        render_art(&RenderSpec {
            prompt,
            seed,
            index: 0,
            width,
            height,
        })
    }

    fn still_prompt(n: usize) -> String {
        format!("seed still {n}")
    }

    #[test]
    fn the_shipped_stills_are_what_the_renderer_draws() {
        // One variant in full (PNG is lossless): the renderer is slow in a debug build.
        let drawn = draw(&still_prompt(0), 0, SEED_IMAGE_SIDE_PX);
        let shipped = image::load_from_memory(SEED_STILLS[0].0)
            .expect("still 0 decodes")
            .to_rgb8();
        assert!(
            drawn == shipped,
            "assets/sandbox-seed/ is out of date with render_art: run \
             `cargo test --lib sandbox::seed::tests::write_the_shipped_stills -- --ignored`"
        );
    }

    #[test]
    fn every_shipped_file_decodes_at_its_size() {
        for (png, thumb) in SEED_STILLS {
            let still = image::load_from_memory(png).expect("still decodes");
            assert_eq!((still.width(), still.height()), SEED_IMAGE_SIDE_PX);
            let thumb = image::load_from_memory(thumb).expect("thumbnail decodes");
            assert_eq!(thumb.width(), THUMBNAIL_LONG_SIDE_PX);
        }
        for stock in &STOCK_STILLS {
            let still = image::load_from_memory(stock.jpeg).expect("stock decodes");
            assert_eq!((still.width(), still.height()), STOCK_SIDE_PX);
            let thumb = image::load_from_memory(stock.thumb).expect("thumbnail decodes");
            assert_eq!(thumb.width(), THUMBNAIL_LONG_SIDE_PX);
        }
    }

    /// Redraws `assets/sandbox-seed/` after a change to the renderer.
    #[test]
    #[ignore = "writes the repository's assets; run by hand after changing render_art"]
    fn write_the_shipped_stills() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/sandbox-seed");
        for n in 0..SEED_VARIANTS {
            let image = draw(&still_prompt(n), n as i64, SEED_IMAGE_SIDE_PX);
            crate::sandbox::files::write_png(&dir.join(format!("still_{n}.png")), &image)
                .expect("write still");
            write_jpeg(
                &dir.join(format!("still_{n}_thumb.jpg")),
                &thumbnail(&image),
            )
            .expect("write thumbnail");
        }
        for (n, stock) in STOCK_STILLS.iter().enumerate() {
            let image = draw(stock.prompt, 900 + n as i64, STOCK_SIDE_PX);
            write_jpeg(&dir.join(stock.file_name), &image).expect("write stock");
            write_jpeg(
                &dir.join(format!("thumb_{}", stock.file_name)),
                &thumbnail(&image),
            )
            .expect("write stock thumbnail");
        }
    }
}

/// One seeded global Visual DNA: its name, type, the shipped picture and the thumbnail its
/// colours and square thumbnail come from (the small file keeps a sandbox start cheap).
struct GlobalDna {
    name: &'static str,
    dna_type: &'static str,
    prompt_helper: &'static str,
    file_name: &'static str,
    picture: &'static [u8],
    small: &'static [u8],
}

const GLOBAL_DNAS: [GlobalDna; 3] = [
    GlobalDna {
        name: "City at Dusk",
        dna_type: "environment",
        prompt_helper: "aerial skyline, warm windows against a cooling sky",
        file_name: "city-skyline-dusk.jpg",
        picture: include_bytes!("../../assets/sandbox-seed/city-skyline-dusk.jpg"),
        small: include_bytes!("../../assets/sandbox-seed/thumb_city-skyline-dusk.jpg"),
    },
    GlobalDna {
        name: "Misty Forest",
        dna_type: "environment",
        prompt_helper: "soft morning haze between tall trees",
        file_name: "forest-mist-morning.jpg",
        picture: include_bytes!("../../assets/sandbox-seed/forest-mist-morning.jpg"),
        small: include_bytes!("../../assets/sandbox-seed/thumb_forest-mist-morning.jpg"),
    },
    GlobalDna {
        name: "Painted Strokes",
        dna_type: "style",
        prompt_helper: "flowing brush strokes over smooth colour fields",
        file_name: "still_2.png",
        picture: include_bytes!("../../assets/sandbox-seed/still_2.png"),
        small: include_bytes!("../../assets/sandbox-seed/still_2_thumb.jpg"),
    },
];

/// The global Visual DNAs (`is_global`, ready, undeletable), created once per data dir.
pub(crate) fn ensure_global_visual_dnas(state: &AppState) -> Result<(), String> {
    use super::visual_dna::describe::{describe, dominant_colors, square_thumbnail};
    use super::visual_dna::store::VisualDnaRow;
    if state
        .store
        .has_global_visual_dnas()
        .map_err(|e| e.to_string())?
    {
        return Ok(());
    }
    let now_ms = state.clock.now_ms();
    for (n, dna) in GLOBAL_DNAS.iter().enumerate() {
        let id = new_object_id();
        let picture_rel = format!("visual_dna/{id}/{}", dna.file_name);
        write_bytes(&state.files_dir.join(&picture_rel), dna.picture)?;
        let small = image::load_from_memory(dna.small).map_err(|e| e.to_string())?;
        let thumb_rel = format!("visual_dna/{id}/thumb.jpg");
        write_jpeg(&state.files_dir.join(&thumb_rel), &square_thumbnail(&small))?;
        let colors = dominant_colors(std::slice::from_ref(&small));
        let (description, system_prompt) =
            describe(dna.name, dna.dna_type, Some(dna.prompt_helper), 1, &colors);
        // Spaced a second apart so their order is stable.
        let created_ms = now_ms - (n as i64) * 1000;
        state
            .store
            .insert_visual_dna(&VisualDnaRow {
                id,
                owner_id: None,
                name: dna.name.to_owned(),
                dna_type: dna.dna_type.to_owned(),
                prompt_helper: Some(dna.prompt_helper.to_owned()),
                image_paths: vec![picture_rel],
                thumb_rel_path: thumb_rel,
                colors: colors.into_iter().map(|c| c.0).collect(),
                description,
                system_prompt,
                folder_id: None,
                failed: false,
                ready_at_ms: created_ms,
                created_at: Clock::iso_at(created_ms),
                created_ms,
            })
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}
