//! The studio's typeface: Inter (SIL Open Font License, `assets/fonts/Inter-OFL.txt`) in
//! two weights, shipped in the binary. egui's own proportional font (Ubuntu Light) has no
//! bold face, so `**bold**` and headings could only change colour; with Inter Regular for
//! text and Inter Bold as the [`bold`] family they change weight, as a reader expects.
//!
//! egui's fonts stay behind Inter as fallbacks (emoji, symbols, the monospace face).

use egui::{FontData, FontDefinitions, FontFamily, FontId, FontTweak};
use std::sync::Arc;

const REGULAR_NAME: &str = "Inter-Regular";
const BOLD_NAME: &str = "Inter-Bold";
/// The family name of the bold face (`FontFamily::Name`).
const BOLD_FAMILY: &str = "bold";

static INTER_REGULAR: &[u8] = include_bytes!("../../assets/fonts/Inter-Regular.otf");
static INTER_BOLD: &[u8] = include_bytes!("../../assets/fonts/Inter-Bold.otf");

/// Inter draws larger than Ubuntu Light at the same size (taller x-height, wider letters);
/// scaled so a line of text keeps about the width the layout was designed with.
const INTER_SCALE: f32 = 0.92;

/// The family of bold text: `**bold**` in documents and chat, headings, table headers.
pub fn bold() -> FontFamily {
    FontFamily::Name(BOLD_FAMILY.into())
}

/// `font` in the bold face (same size).
pub fn bold_of(font: &FontId) -> FontId {
    FontId::new(font.size, bold())
}

/// egui's default fonts with Inter first in the proportional family and Inter Bold as the
/// [`bold`] family (both falling back to egui's fonts for glyphs Inter lacks).
pub fn definitions() -> FontDefinitions {
    let mut fonts = FontDefinitions::default();
    let tweak = FontTweak {
        scale: INTER_SCALE,
        ..FontTweak::default()
    };
    fonts.font_data.insert(
        REGULAR_NAME.to_owned(),
        Arc::new(FontData::from_static(INTER_REGULAR).tweak(tweak.clone())),
    );
    fonts.font_data.insert(
        BOLD_NAME.to_owned(),
        Arc::new(FontData::from_static(INTER_BOLD).tweak(tweak)),
    );
    let fallbacks = fonts
        .families
        .get(&FontFamily::Proportional)
        .cloned()
        .unwrap_or_default();
    let with_first = |first: &str| {
        std::iter::once(first.to_owned())
            .chain(fallbacks.iter().cloned())
            .collect::<Vec<_>>()
    };
    fonts
        .families
        .insert(FontFamily::Proportional, with_first(REGULAR_NAME));
    fonts.families.insert(bold(), with_first(BOLD_NAME));
    fonts
}

/// Load the studio's fonts into `ctx` (they take effect from the next frame).
pub fn install(ctx: &egui::Context) {
    ctx.set_fonts(definitions());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A context that has run one pass (fonts are loaded at the start of a pass).
    fn ready(ctx: &egui::Context) {
        let mut output = ctx.run_ui(egui::RawInput::default(), |_| {});
        output.textures_delta.clear();
    }

    fn width(ctx: &egui::Context, text: &str, font: FontId) -> f32 {
        ctx.fonts_mut(|f| {
            f.layout_no_wrap(text.to_owned(), font, egui::Color32::WHITE)
                .rect
                .width()
        })
    }

    #[test]
    fn bold_text_is_drawn_with_a_heavier_wider_face() {
        let ctx = egui::Context::default();
        install(&ctx);
        ready(&ctx);
        let text = "The quick brown fox jumps over the lazy dog";
        let regular = width(&ctx, text, FontId::proportional(14.0));
        let bold = width(&ctx, text, FontId::new(14.0, bold()));
        assert!(bold > regular * 1.02, "bold {bold} vs regular {regular}");
    }

    #[test]
    fn text_keeps_about_the_width_of_egui_default_font() {
        let text = "Open a document on the left, or start a new one. 0123456789";
        let default_ctx = egui::Context::default();
        ready(&default_ctx);
        let ubuntu = width(&default_ctx, text, FontId::proportional(14.0));
        let ctx = egui::Context::default();
        install(&ctx);
        ready(&ctx);
        let inter = width(&ctx, text, FontId::proportional(14.0));
        let ratio = inter / ubuntu;
        assert!((0.95..=1.05).contains(&ratio), "Inter/Ubuntu width {ratio}");
    }

    #[test]
    fn both_faces_draw_the_studio_s_marks() {
        let ctx = egui::Context::default();
        install(&ctx);
        ready(&ctx);
        // List markers, the time placeholder, dashes, arrows, ellipsis, separators.
        let marks = "•◦–—…→·×✓▶";
        for family in [FontFamily::Proportional, bold()] {
            let font = FontId::new(14.0, family.clone());
            let missing: String = marks
                .chars()
                .filter(|c| !ctx.fonts_mut(|f| f.has_glyph(&font, *c)))
                .collect();
            assert!(missing.is_empty(), "{family:?} lacks {missing}");
        }
    }
}
