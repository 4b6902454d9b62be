//! Frame time of Create's Visual DNA picker, open, with 1,000 entries.
//!
//! Headless egui passes (`run_ui` then `tessellate`) at 1440×900 of the picker row with its
//! popup open: the thumbnail grid scrolled row by row with the arrow keys (the keyboard
//! cursor keeps its row in view), then the same while a search narrows the grid. Every
//! entry has a placeholder texture (64×64) in the texture cache, one in ten is building.
//! Every timed frame is checked to have drawn thumbnails (at least a few rows' worth while
//! scrolling), so an empty or closed popup cannot pass for a fast one.
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

/// Thumbnails a frame of the open picker at 1440×900 shows at the least (a few rows).
const MIN_THUMBNAILS_DRAWN: usize = 8;

/// Distinct textures other than the font atlas among the frame's meshes.
fn thumbnails_in(primitives: &[egui::ClippedPrimitive]) -> usize {
    primitives
        .iter()
        .filter_map(|p| match &p.primitive {
            egui::epaint::Primitive::Mesh(mesh)
                if mesh.texture_id != egui::TextureId::default() =>
            {
                Some(mesh.texture_id)
            }
            _ => None,
        })
        .collect::<std::collections::HashSet<egui::TextureId>>()
        .len()
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
            let typed = &search[..shown];
            if state.search != typed {
                // As the search field does on a change: the cursor goes back to the first
                // match (else it points past the narrowed grid and nothing is in view).
                state.search = typed.to_owned();
                state.cursor = 0;
            }
        }
        // Down a row each frame; back to the top at the end.
        let key = if state.cursor + 8 >= state.matches(&list).len() {
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
        // What was timed really drew the grid: thumbnails (each its own texture, the font
        // atlas being the default one) from the 1,000 entries, not an empty popup.
        let thumbnails_drawn = thumbnails_in(&primitives);
        let least = if search.is_some() {
            1
        } else {
            MIN_THUMBNAILS_DRAWN
        };
        assert!(
            frame < WARMUP_FRAMES || thumbnails_drawn >= least,
            "frame {frame}: {thumbnails_drawn} thumbnails drawn (search {:?}, cursor {})",
            state.search,
            state.cursor
        );
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
