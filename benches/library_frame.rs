//! Frame time of the Library panel with 1,000, 100,000 and 1,000,000 items (or one size
//! given, beside 1,000 for the ratio).
//!
//! Headless egui passes at 1440×900 including tessellation (`run_ui` then `tessellate`),
//! scrolling the whole grid from top to bottom, with synthetic items (no network): first
//! with no thumbnails (placeholders and glyphs), then with textures for a share of the
//! items. Reports median, p95 and max CPU time per frame.
//!
//! `cargo bench --bench library_frame`
//! `LIBRARY_ITEMS=250000 cargo bench --bench library_frame` (or `-- 250000`)

use framewright::api::media::MediaItem;
use framewright::media::DecodedImage;
use framewright::ui::library::grid::{GridGeometry, wanted_tile_px};
use framewright::ui::library::{LibraryState, library_ui};
use framewright::ui::model::Model;
use framewright::ui::textures::TextureCache;
use std::time::{Duration, Instant};

const WIDTH: f32 = 1440.0;
const HEIGHT: f32 = 900.0;
const WARMUP_FRAMES: usize = 60;
const FRAMES: usize = 600;
/// A wheel notch's scroll; every `JUMP_EVERY`-th frame instead jumps (a scrollbar drag)
/// far enough that the measured frames end at the bottom of the grid.
const WHEEL_STEP_PX: f32 = 120.0;
const JUMP_EVERY: usize = 50;
/// The size to measure instead of the default ones (also the first argument).
const ITEMS_ENV: &str = "LIBRARY_ITEMS";
const DEFAULT_SIZES: [usize; 3] = [1_000, 100_000, 1_000_000];
const BASELINE_ITEMS: usize = 1_000;

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
    max: Duration,
}

/// The measured frames' scroll offsets: wheel steps with a jump every `JUMP_EVERY` frames,
/// from the top to `bottom_px`. Jumps are sized so the last frame is at the bottom; when
/// wheel steps alone pass it (small grids), the offset stops once at the bottom and then
/// starts over from the top.
fn scroll_plan(bottom_px: f32) -> Vec<f32> {
    let bottom_px = f64::from(bottom_px);
    let step_px = f64::from(WHEEL_STEP_PX);
    // Frames 1.. move; frame 0 is the top.
    let jumps = (1..FRAMES)
        .filter(|frame| frame % JUMP_EVERY == JUMP_EVERY - 1)
        .count();
    let wheel_px = (FRAMES - 1 - jumps) as f64 * step_px;
    let jump_px = ((bottom_px - wheel_px) / jumps as f64).max(step_px);
    let mut offset = 0.0f64;
    (0..FRAMES)
        .map(|frame| {
            if frame > 0 {
                let at_bottom = offset >= bottom_px;
                offset += if frame % JUMP_EVERY == JUMP_EVERY - 1 {
                    jump_px
                } else {
                    step_px
                };
                if offset > bottom_px {
                    offset = if at_bottom { 0.0 } else { bottom_px };
                }
            }
            offset as f32
        })
        .collect()
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

    let frame_input = |frame: usize| egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(WIDTH, HEIGHT),
        )),
        time: Some(frame as f64 / 60.0),
        ..Default::default()
    };
    let mut run_frame = |frame: usize, offset: f32, state: &mut LibraryState| {
        state.scroll_offset_request = Some(offset);
        let started = Instant::now();
        textures.begin_frame();
        let output = ctx.run_ui(frame_input(frame), |ui| {
            let _actions = library_ui(ui, state, &model, &textures);
        });
        let primitives = ctx.tessellate(output.shapes, output.pixels_per_point);
        let elapsed = started.elapsed();
        std::hint::black_box(primitives);
        let _ = textures.take_thumbnail_wishes();
        elapsed
    };

    // Warm-up at the top, which also lays the grid out once to learn its geometry.
    for frame in 0..WARMUP_FRAMES {
        run_frame(frame, frame as f32 * WHEEL_STEP_PX, &mut state);
    }
    let viewport = state.grid_viewport;
    let width = viewport.width() - framewright::ui::tokens::SCROLLBAR_ALLOWANCE;
    let geometry = GridGeometry::new(width, wanted_tile_px(width, state.thumb_px));
    assert_eq!(
        geometry.columns, state.columns,
        "grid geometry as the panel lays it out"
    );
    // The offset whose viewport shows the last row.
    let bottom_px =
        (geometry.rows(count) as f32 * geometry.row_height() - geometry.gap - viewport.height())
            .max(0.0);

    let mut samples = Vec::with_capacity(FRAMES);
    let plan = scroll_plan(bottom_px);
    let mut reached_bottom = false;
    for (frame, offset) in plan.iter().enumerate() {
        samples.push(run_frame(WARMUP_FRAMES + frame, *offset, &mut state));
        if frame == 0 {
            assert_eq!(
                state.visible.start, 0,
                "the measured scroll starts at the top"
            );
        }
        reached_bottom |= state.visible.end == count;
    }
    assert!(
        reached_bottom,
        "the measured scroll reaches the bottom of the grid"
    );
    samples.sort();
    Stats {
        median: samples[samples.len() / 2],
        p95: samples[(samples.len() * 95) / 100],
        max: samples[samples.len() - 1],
    }
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

/// The size from `LIBRARY_ITEMS` or the first argument that is a number (cargo passes
/// `--bench`), if any.
fn requested_items() -> Result<Option<usize>, String> {
    let from_args = std::env::args()
        .skip(1)
        .find(|arg| !arg.starts_with('-'))
        .map(|arg| ("argument", arg));
    let from_env = std::env::var(ITEMS_ENV)
        .ok()
        .map(|value| (ITEMS_ENV, value));
    match from_args.or(from_env) {
        None => Ok(None),
        Some((source, value)) => match value.replace(['_', ','], "").parse::<usize>() {
            Ok(items) if items > 0 => Ok(Some(items)),
            _ => Err(format!(
                "{source} “{value}” is not a positive number of items"
            )),
        },
    }
}

fn main() {
    let sizes: Vec<usize> = match requested_items() {
        Ok(Some(items)) if items != BASELINE_ITEMS => vec![BASELINE_ITEMS, items],
        Ok(Some(_)) => vec![BASELINE_ITEMS],
        Ok(None) => DEFAULT_SIZES.to_vec(),
        Err(message) => {
            eprintln!("library_frame: {message}");
            std::process::exit(2);
        }
    };
    println!(
        "library_frame: {WIDTH}×{HEIGHT}, {FRAMES} frames after {WARMUP_FRAMES} warm-up, run_ui + tessellate, top to bottom"
    );
    for (variant, textured) in [("placeholders", None), ("textures on 1 in 3", Some(3))] {
        let mut baseline: Option<Duration> = None;
        for &count in &sizes {
            let stats = run(count, textured);
            let label = format!("{count:>9} items, {variant}");
            let ratio = match baseline {
                Some(base) => format!(
                    "   {:.2}× the {BASELINE_ITEMS}-item median",
                    stats.median.as_secs_f64() / base.as_secs_f64().max(1e-9)
                ),
                None => String::new(),
            };
            println!(
                "{label:<40} median {}   p95 {}   max {}{ratio}",
                ms(stats.median),
                ms(stats.p95),
                ms(stats.max)
            );
            if count == BASELINE_ITEMS {
                baseline = Some(stats.median);
            }
        }
    }
}
