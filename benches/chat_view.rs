//! Frame time of the Chat view with a 2,000-message conversation.
//!
//! Headless egui passes at 1440×900 including tessellation (`run_ui` then `tessellate`),
//! scrolling through the conversation with synthetic messages (no network): user questions
//! and Markdown replies with lists and fenced code, of varied lengths. Only the rows in the
//! viewport are laid out, so the cost should not depend on the conversation's length: the
//! same run with 20 messages is the comparison. Reports median and p95 CPU time per frame.
//!
//! `cargo bench --bench chat_view`

use framewright::api::code_assistant::{ChatRole, CodeModel};
use framewright::engine::conversations::{ConversationSummary, MessageState, StoredMessage};
use framewright::ui::chat::{ChatState, chat_ui};
use framewright::ui::model::Model;
use framewright::ui::textures::TextureCache;
use std::time::{Duration, Instant};

const WIDTH: f32 = 1440.0;
const HEIGHT: f32 = 900.0;
const WARMUP_FRAMES: usize = 60;
const FRAMES: usize = 600;

fn model() -> CodeModel {
    CodeModel {
        id: "kolbo/coder-large".into(),
        name: "Coder Large".into(),
        owned_by: "kolbo".into(),
        prompt_credits_per_token: 0.002,
        completion_credits_per_token: 0.008,
        context_length: 128_000,
        supports_vision: true,
    }
}

fn reply(i: usize) -> String {
    let paragraph = "The simplest way is to keep the last query and the instant it was typed, \
                     and only send it once the field has been quiet for a moment. ";
    let mut text = paragraph.repeat(1 + i % 4);
    text.push_str("\n\n- keep the timer in the state\n- restart it on every keystroke\n- send when it fires\n\n");
    if !i.is_multiple_of(3) {
        text.push_str("```rust\nfn debounce(last: Instant, now: Instant) -> bool {\n    now - last > Duration::from_millis(300)\n}\n");
        for line in 0..(i % 12) {
            text.push_str(&format!("// step {line}: check the query again\n"));
        }
        text.push_str("```\n\nThat is all it takes.");
    }
    text
}

fn messages(count: usize) -> Vec<StoredMessage> {
    (0..count)
        .map(|i| {
            let user = i % 2 == 0;
            StoredMessage {
                role: if user {
                    ChatRole::User
                } else {
                    ChatRole::Assistant
                },
                text: if user {
                    format!("Question {i}: how do I debounce a search box in Rust?")
                } else {
                    reply(i)
                },
                attachments: Vec::new(),
                model_id: "kolbo/coder-large".into(),
                cost_credits: (!user).then_some(0.4),
                state: MessageState::Complete,
                error: None,
                created_at: "2026-11-25T10:30:00.000Z".into(),
            }
        })
        .collect()
}

struct Stats {
    median: Duration,
    p95: Duration,
    /// Different first visible rows seen (the view really moved through the conversation).
    first_rows_seen: usize,
    /// Most rows laid out in one frame.
    most_rows_laid_out: usize,
}

fn run(count: usize) -> Stats {
    let ctx = egui::Context::default();
    framewright::ui::tokens::apply_theme(&ctx);
    let model_state = Model::default();
    let mut textures = TextureCache::default();
    let conversation = ConversationSummary {
        id: 1,
        title: "Debouncing a search box".into(),
        model_id: "kolbo/coder-large".into(),
        updated_at: "2026-11-25T10:30:00.000Z".into(),
        message_count: count as u64,
        preview: "That is all it takes.".into(),
    };
    let mut state = ChatState::with_conversation(vec![model()], conversation, messages(count));

    let mut samples = Vec::with_capacity(FRAMES);
    let mut first_rows = std::collections::HashSet::new();
    let mut most_rows_laid_out = 0;
    let mut offset = 0.0f32;
    for frame in 0..WARMUP_FRAMES + FRAMES {
        // Scroll: wheel-like steps with an occasional long jump (scrollbar drag).
        offset = if frame % 50 == 49 {
            offset + 25_000.0
        } else {
            offset + 90.0
        };
        if offset > count as f32 * 120.0 {
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
            let _actions = chat_ui(ui, &mut state, &model_state, &textures);
        });
        let primitives = ctx.tessellate(output.shapes, output.pixels_per_point);
        let elapsed = started.elapsed();
        std::hint::black_box(primitives);
        if frame >= WARMUP_FRAMES {
            samples.push(elapsed);
            first_rows.insert(state.visible_rows.start);
            most_rows_laid_out = most_rows_laid_out.max(state.visible_rows.len());
        }
    }
    samples.sort();
    Stats {
        median: samples[samples.len() / 2],
        p95: samples[(samples.len() * 95) / 100],
        first_rows_seen: first_rows.len(),
        most_rows_laid_out,
    }
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is parsed.
    println!(
        "chat_view: {WIDTH}×{HEIGHT}, {FRAMES} frames after {WARMUP_FRAMES} warm-up, run_ui + tessellate, scrolling"
    );
    let mut results = Vec::new();
    for (label, count) in [("2,000 messages", 2_000), ("   20 messages", 20)] {
        let stats = run(count);
        println!(
            "{label:<16} median {}   p95 {}   ({} different first rows, at most {} rows laid out a frame)",
            ms(stats.median),
            ms(stats.p95),
            stats.first_rows_seen,
            stats.most_rows_laid_out
        );
        results.push(stats);
    }
    println!(
        "median ratio 2,000/20: {:.2}×",
        results[0].median.as_secs_f64() / results[1].median.as_secs_f64().max(1e-9)
    );
}
