//! Frame time of Create's Visual DNA picker, open, with 1,000 entries.
//!
//! Headless egui passes (`run_ui` then `tessellate`) at 1440×900 of the picker row with its
//! popup open: the thumbnail grid scrolled row by row with the arrow keys (the keyboard
//! cursor keeps its row in view), then the same while a search narrows the grid. Every
//! entry has a placeholder texture (64×64) in the texture cache, one in ten is building.
//! Reports median and p95 CPU time per frame; the target is ≤ 1 ms.
//!
//! `cargo bench --locked --bench visual_dna_picker`

use framewright::api::visual_dna::VisualDna;
use framewright::media::DecodedImage;
use framewright::ui::compose::dna_picker::{self, DnaList, DnaPickerState};
use framewright::ui::textures::TextureCache;
use std::time::{Duration, Instant};

const WIDTH: f32 = 1440.0;
const HEIGHT: f32 = 900.0;
const WARMUP_FRAMES: usize = 60;
const FRAMES: usize = 600;
const ENTRIES: usize = 1_000;

fn synthetic_entries(count: usize) -> Vec<VisualDna> {
    const TYPES: [&str; 4] = ["character", "product", "style", "environment"];
    (0..count)
        .map(|i| VisualDna {
            id: format!("{i:024x}"),
            name: format!("Character {i:04} with a longer name"),
            dna_type: TYPES[i % 4].to_owned(),
            thumbnail_url: Some(format!("http://bench.invalid/dna/{i}.png")),
            status: Some(if i % 10 == 9 { "building" } else { "ready" }.to_owned()),
            ..Default::default()
        })
        .collect()
}

struct Stats {
    median: Duration,
    p95: Duration,
}

fn run(search: Option<&str>) -> Stats {
    let ctx = egui::Context::default();
    framewright::ui::tokens::apply_theme(&ctx);
    let list = DnaList::from_entries(synthetic_entries(ENTRIES));
    let mut textures = TextureCache::default();
    let image = DecodedImage {
        width: 64,
        height: 64,
        rgba: vec![120; 64 * 64 * 4],
        source_width: 512,
        source_height: 512,
    };
    for entry in &list.entries {
        if let Some(url) = &entry.thumbnail_url {
            textures.insert(&ctx, url, &image);
        }
    }
    let mut state = DnaPickerState::default();
    state.open();
    let mut samples = Vec::with_capacity(FRAMES);
    for frame in 0..WARMUP_FRAMES + FRAMES {
        if let Some(search) = search {
            // Type the search one letter more each frame, then start over.
            let shown = frame % (search.len() + 1);
            state.search = search[..shown].to_owned();
        }
        // Down a row each frame; back to the top at the end.
        let key = if state.cursor + 8 >= list.entries.len() {
            egui::Key::Home
        } else {
            egui::Key::ArrowDown
        };
        if key == egui::Key::Home {
            state.cursor = 0;
        }
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(WIDTH, HEIGHT),
            )),
            time: Some(frame as f64 / 60.0),
            events: vec![egui::Event::Key {
                key,
                physical_key: None,
                pressed: true,
                repeat: false,
                modifiers: egui::Modifiers::NONE,
            }],
            ..Default::default()
        };
        let started = Instant::now();
        textures.begin_frame();
        let mut output = ctx.run_ui(input, |ui| {
            let _action = dna_picker::show(ui, &mut state, &list, 3, &textures);
        });
        // No GPU here: the texture uploads are dropped unapplied.
        output.textures_delta.clear();
        let primitives = ctx.tessellate(output.shapes, output.pixels_per_point);
        let elapsed = started.elapsed();
        std::hint::black_box(primitives);
        let _ = textures.take_wanted();
        assert!(
            state.popup_open,
            "the picker stays open through the run (frame {frame}, cursor {}, picked {:?})",
            state.cursor, state.picked
        );
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
        "visual_dna_picker: {ENTRIES} entries, {WIDTH}×{HEIGHT}, {FRAMES} frames after {WARMUP_FRAMES} warm-up, run_ui + tessellate"
    );
    for (label, search) in [
        ("open, scrolling by arrow keys", None),
        ("open, typing a search", Some("character 01")),
    ] {
        let stats = run(search);
        println!(
            "{label:<32} median {}   p95 {}",
            ms(stats.median),
            ms(stats.p95)
        );
    }
}
