//! Frame time of the Library panel with 100,000 and 1,000 items.
//!
//! Headless egui passes at 1440×900 including tessellation (`run_ui` then `tessellate`),
//! scrolling through the grid, with synthetic items (no network): first with no
//! thumbnails (placeholders and glyphs), then with textures for a share of the items.
//! Reports median and p95 CPU time per frame.
//!
//! `cargo bench --bench library_frame`

use framewright::api::media::MediaItem;
use framewright::media::DecodedImage;
use framewright::ui::library::{LibraryState, library_ui};
use framewright::ui::model::Model;
use framewright::ui::textures::TextureCache;
use std::time::{Duration, Instant};

const WIDTH: f32 = 1440.0;
const HEIGHT: f32 = 900.0;
const WARMUP_FRAMES: usize = 60;
const FRAMES: usize = 600;

fn synthetic_items(count: usize) -> Vec<MediaItem> {
    (0..count)
        .map(|i| {
            let kind = match i % 10 {
                0 => "video",
                1 => "audio",
                _ => "image",
            };
            MediaItem {
                id: format!("{i:024x}"),
                url: format!("http://bench.invalid/media/{i}.png"),
                thumbnail_url: Some(format!("http://bench.invalid/thumbs/{i}.jpg")),
                name: Some(format!("render-{i:06}.png")),
                item_type: Some(kind.to_owned()),
                duration: (kind != "image").then_some(12.5 + (i % 50) as f64),
                is_favorited: Some(i % 7 == 0),
                width: Some(1024),
                height: Some(768),
                prompt: Some(format!("a lighthouse on a cliff, variation {i}")),
                ..Default::default()
            }
        })
        .collect()
}

struct Stats {
    median: Duration,
    p95: Duration,
}

fn run(count: usize, textured_share: Option<usize>) -> Stats {
    let ctx = egui::Context::default();
    framewright::ui::tokens::apply_theme(&ctx);
    let model = Model::default();
    let mut textures = TextureCache::default();
    let mut state = LibraryState::with_items(synthetic_items(count));
    if let Some(every) = textured_share {
        // A 96×64 thumbnail for every `every`-th item (textures shared by none).
        let image = DecodedImage {
            width: 96,
            height: 64,
            rgba: vec![90; 96 * 64 * 4],
            source_width: 1024,
            source_height: 768,
        };
        let ids: Vec<String> = state
            .items
            .loaded_items()
            .filter(|(i, _)| i % every == 0)
            .map(|(_, item)| item.id.clone())
            .take(4_000)
            .collect();
        for id in ids {
            textures.insert_thumbnail(&ctx, &id, 256, &image);
        }
    }

    let mut samples = Vec::with_capacity(FRAMES);
    let mut offset = 0.0f32;
    for frame in 0..WARMUP_FRAMES + FRAMES {
        // Scroll: steady wheel-like steps with an occasional long jump (scrollbar drag).
        offset = if frame % 50 == 49 {
            offset + 40_000.0
        } else {
            offset + 120.0
        };
        let max_offset = (state.items.len() / state.columns.max(1)) as f32 * 180.0;
        if offset > max_offset {
            offset = 0.0;
        }
        state.scroll_offset_request = Some(offset);
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(WIDTH, HEIGHT),
            )),
            time: Some(frame as f64 / 60.0),
            ..Default::default()
        };
        let started = Instant::now();
        textures.begin_frame();
        let output = ctx.run_ui(input, |ui| {
            let _actions = library_ui(ui, &mut state, &model, &textures);
        });
        let primitives = ctx.tessellate(output.shapes, output.pixels_per_point);
        let elapsed = started.elapsed();
        std::hint::black_box(primitives);
        let _ = textures.take_thumbnail_wishes();
        if frame >= WARMUP_FRAMES {
            samples.push(elapsed);
        }
    }
    samples.sort();
    Stats {
        median: samples[samples.len() / 2],
        p95: samples[(samples.len() * 95) / 100],
    }
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is parsed.
    println!(
        "library_frame: {WIDTH}×{HEIGHT}, {FRAMES} frames after {WARMUP_FRAMES} warm-up, run_ui + tessellate"
    );
    let mut results = Vec::new();
    for (label, count, textured) in [
        ("100,000 items, placeholders", 100_000, None),
        ("  1,000 items, placeholders", 1_000, None),
        ("100,000 items, textures on 1 in 3", 100_000, Some(3)),
        ("  1,000 items, textures on 1 in 3", 1_000, Some(3)),
    ] {
        let stats = run(count, textured);
        println!(
            "{label:<36} median {}   p95 {}",
            ms(stats.median),
            ms(stats.p95)
        );
        results.push(stats);
    }
    let ratio = |a: &Stats, b: &Stats| a.median.as_secs_f64() / b.median.as_secs_f64().max(1e-9);
    println!(
        "median ratio 100k/1k: placeholders {:.2}×, textured {:.2}×",
        ratio(&results[0], &results[1]),
        ratio(&results[2], &results[3])
    );
}
