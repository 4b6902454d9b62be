//! Design tokens: every colour, spacing step, corner radius and text size the studio uses,
//! plus [`apply_theme`], which turns them into an egui `Style`, and the keyboard focus
//! ring. Panels take colours from here, never from literals.
//!
//! Contrast (WCAG AA, dark theme): text colours are at least 4.5:1 on every background
//! they sit on, control borders, the accent and selection fills at least 3:1; the unit
//! test at the bottom computes every pair the theme uses.

use egui::{Color32, CornerRadius, FontFamily, FontId, Margin, Stroke, TextStyle, Vec2};

// ---- colours -------------------------------------------------------------------------

/// Window background behind everything (central area).
pub const BG_APP: Color32 = Color32::from_rgb(0x10, 0x12, 0x17);
/// Side panels: rail, tray, status bar.
pub const BG_PANEL: Color32 = Color32::from_rgb(0x15, 0x18, 0x1f);
/// Cards and grouped sections.
pub const BG_SURFACE: Color32 = Color32::from_rgb(0x1b, 0x1f, 0x28);
/// Inputs, hovered rows, the inside of cards.
pub const BG_ELEVATED: Color32 = Color32::from_rgb(0x23, 0x28, 0x33);
/// Hovered inputs and buttons.
pub const BG_HOVER: Color32 = Color32::from_rgb(0x2b, 0x31, 0x3e);
/// Hairlines between regions and around cards.
pub const BORDER: Color32 = Color32::from_rgb(0x2a, 0x30, 0x3c);
/// Outline of controls (buttons, inputs, dialogs): 3:1 against the backgrounds around them.
pub const BORDER_STRONG: Color32 = Color32::from_rgb(0x6b, 0x73, 0x83);
/// Outline of a hovered control.
pub const BORDER_HOVER: Color32 = Color32::from_rgb(0x8a, 0x93, 0xa3);

pub const TEXT: Color32 = Color32::from_rgb(0xe6, 0xe8, 0xee);
pub const TEXT_MUTED: Color32 = Color32::from_rgb(0x9a, 0xa3, 0xb2);
/// Hints and small print: still 4.5:1 on inputs.
pub const TEXT_FAINT: Color32 = Color32::from_rgb(0x8a, 0x93, 0xa3);

/// Primary actions, selection, focus (a fill under white text, and a stroke).
pub const ACCENT: Color32 = Color32::from_rgb(0x54, 0x68, 0xe0);
/// Accent-coloured text and links (lighter, for text on dark backgrounds).
pub const ACCENT_HOVER: Color32 = Color32::from_rgb(0x86, 0x99, 0xff);
/// Selected buttons and selected text: white on it.
pub const ACCENT_PRESSED: Color32 = Color32::from_rgb(0x46, 0x59, 0xc9);
/// The keyboard focus ring.
pub const FOCUS_RING: Color32 = Color32::from_rgb(0xa8, 0xb6, 0xff);
/// Accent at low opacity: selected rail item, selected chip background.
pub const ACCENT_SOFT: Color32 = Color32::from_rgba_premultiplied(0x1c, 0x22, 0x40, 0xff);
/// Text on an accent fill.
pub const ON_ACCENT: Color32 = Color32::from_rgb(0xff, 0xff, 0xff);

pub const SUCCESS: Color32 = Color32::from_rgb(0x4c, 0xc3, 0x8a);
pub const WARNING: Color32 = Color32::from_rgb(0xe5, 0xa5, 0x4b);
pub const DANGER: Color32 = Color32::from_rgb(0xf0, 0x6a, 0x6a);
/// Fill of destructive buttons (white text on it).
pub const DANGER_FILL: Color32 = Color32::from_rgb(0xc9, 0x3f, 0x3f);
pub const INFO: Color32 = Color32::from_rgb(0x5f, 0xb3, 0xf9);

/// Library tiles: the frame behind a thumbnail, a tile whose page is not loaded yet, the
/// glyph on a tile without a thumbnail, and the dark chip behind badges.
pub const TILE_BG: Color32 = Color32::from_rgb(0x1a, 0x1e, 0x26);
pub const TILE_PLACEHOLDER: Color32 = Color32::from_rgb(0x17, 0x1a, 0x21);
pub const TILE_GLYPH: Color32 = Color32::from_rgb(0x3a, 0x41, 0x4f);
pub const TILE_SCRIM: Color32 = Color32::from_rgba_premultiplied(0x08, 0x09, 0x0c, 0xb8);
/// Overlay on a selected tile.
pub const SELECTION_TINT: Color32 = Color32::from_rgba_premultiplied(0x1a, 0x20, 0x3c, 0x50);
/// The favourite star.
pub const FAVOURITE: Color32 = Color32::from_rgb(0xf5, 0xc5, 0x42);
/// A folder without a colour (the service's default).
pub const FOLDER_DEFAULT: Color32 = Color32::from_rgb(0x3b, 0x82, 0xf6);

/// Background of the drop overlay and modal backdrops.
pub const SCRIM: Color32 = Color32::from_rgba_premultiplied(0x06, 0x07, 0x0a, 0xd0);

// ---- spacing (8 px grid) -------------------------------------------------------------

pub const SPACE_XS: f32 = 4.0;
pub const SPACE_S: f32 = 8.0;
pub const SPACE_M: f32 = 16.0;
pub const SPACE_L: f32 = 24.0;
pub const SPACE_XL: f32 = 32.0;

pub const RAIL_WIDTH: f32 = 84.0;
pub const TRAY_WIDTH: f32 = 340.0;
pub const STATUS_BAR_HEIGHT: f32 = 28.0;
/// Widest the compose form grows; wider windows centre it.
pub const FORM_MAX_WIDTH: f32 = 720.0;
pub const THUMB_SIDE: f32 = 88.0;
pub const LIBRARY_SIDEBAR_WIDTH: f32 = 232.0;
pub const LIBRARY_DETAIL_WIDTH: f32 = 320.0;
pub const LIBRARY_FOOTER_HEIGHT: f32 = 30.0;
/// Space between library tiles.
pub const GRID_GAP: f32 = 8.0;
/// Width kept free for the grid's scrollbar.
pub const SCROLLBAR_ALLOWANCE: f32 = 10.0;

// ---- corner radii ---------------------------------------------------------------------

pub const RADIUS_S: u8 = 4;
pub const RADIUS_M: u8 = 8;
pub const RADIUS_L: u8 = 12;

// ---- text sizes ----------------------------------------------------------------------

pub const TEXT_SMALL: f32 = 11.5;
pub const TEXT_BODY: f32 = 13.5;
pub const TEXT_BUTTON: f32 = 13.5;
pub const TEXT_TITLE: f32 = 16.0;
pub const TEXT_HEADING: f32 = 22.0;
pub const TEXT_MONO: f32 = 12.5;

/// Margin used inside cards.
pub fn card_margin() -> Margin {
    Margin::same(12)
}

/// A rounded card: the surface every job, profile and section sits on.
pub fn card_frame() -> egui::Frame {
    egui::Frame::new()
        .fill(BG_SURFACE)
        .stroke(Stroke::new(1.0, BORDER))
        .corner_radius(CornerRadius::same(RADIUS_L))
        .inner_margin(card_margin())
}

/// The shell's side panels (rail, status bar, job tray): panel fill with a hairline border.
pub fn panel_frame() -> egui::Frame {
    egui::Frame::new()
        .fill(BG_PANEL)
        .stroke(Stroke::new(1.0, BORDER))
}

/// Turn the tokens into egui's dark style. Call once at startup.
pub fn apply_theme(ctx: &egui::Context) {
    ctx.set_theme(egui::Theme::Dark);
    ctx.style_mut_of(egui::Theme::Dark, |style| {
        style.text_styles = [
            (
                TextStyle::Small,
                FontId::new(TEXT_SMALL, FontFamily::Proportional),
            ),
            (
                TextStyle::Body,
                FontId::new(TEXT_BODY, FontFamily::Proportional),
            ),
            (
                TextStyle::Button,
                FontId::new(TEXT_BUTTON, FontFamily::Proportional),
            ),
            (
                TextStyle::Heading,
                FontId::new(TEXT_HEADING, FontFamily::Proportional),
            ),
            (
                TextStyle::Monospace,
                FontId::new(TEXT_MONO, FontFamily::Monospace),
            ),
        ]
        .into();

        let spacing = &mut style.spacing;
        spacing.item_spacing = Vec2::new(SPACE_S, SPACE_S);
        spacing.button_padding = Vec2::new(12.0, 6.0);
        spacing.interact_size = Vec2::new(40.0, 28.0);
        spacing.window_margin = Margin::same(16);
        spacing.menu_margin = Margin::same(6);
        spacing.combo_height = 320.0;
        spacing.icon_spacing = 6.0;

        let v = &mut style.visuals;
        v.dark_mode = true;
        v.override_text_color = None;
        v.panel_fill = BG_APP;
        v.window_fill = BG_SURFACE;
        v.window_stroke = Stroke::new(1.0, BORDER_STRONG);
        v.window_corner_radius = CornerRadius::same(RADIUS_L);
        v.menu_corner_radius = CornerRadius::same(RADIUS_M);
        v.window_shadow = egui::Shadow {
            offset: [0, 8],
            blur: 28,
            spread: 0,
            color: Color32::from_black_alpha(120),
        };
        v.popup_shadow = egui::Shadow {
            offset: [0, 4],
            blur: 16,
            spread: 0,
            color: Color32::from_black_alpha(110),
        };
        v.faint_bg_color = BG_SURFACE;
        v.extreme_bg_color = BG_ELEVATED;
        v.text_edit_bg_color = Some(BG_ELEVATED);
        v.code_bg_color = BG_ELEVATED;
        v.hyperlink_color = ACCENT_HOVER;
        v.warn_fg_color = WARNING;
        v.error_fg_color = DANGER;
        // Selected buttons and selected text: white on a dark accent. The same stroke
        // outlines a focused text field.
        v.selection.bg_fill = ACCENT_PRESSED;
        v.selection.stroke = Stroke::new(1.0, ON_ACCENT);
        v.weak_text_color = Some(TEXT_MUTED);

        let radius = CornerRadius::same(RADIUS_M);
        let w = &mut v.widgets;
        w.noninteractive.bg_fill = BG_SURFACE;
        w.noninteractive.weak_bg_fill = BG_SURFACE;
        w.noninteractive.bg_stroke = Stroke::new(1.0, BORDER);
        w.noninteractive.fg_stroke = Stroke::new(1.0, TEXT);
        w.noninteractive.corner_radius = radius;

        w.inactive.bg_fill = BG_ELEVATED;
        w.inactive.weak_bg_fill = BG_ELEVATED;
        w.inactive.bg_stroke = Stroke::new(1.0, BORDER_STRONG);
        w.inactive.fg_stroke = Stroke::new(1.0, TEXT);
        w.inactive.corner_radius = radius;

        w.hovered.bg_fill = BG_HOVER;
        w.hovered.weak_bg_fill = BG_HOVER;
        w.hovered.bg_stroke = Stroke::new(1.0, BORDER_HOVER);
        w.hovered.fg_stroke = Stroke::new(1.5, TEXT);
        w.hovered.corner_radius = radius;
        w.hovered.expansion = 0.0;

        w.active.bg_fill = BG_HOVER;
        w.active.weak_bg_fill = BG_HOVER;
        w.active.bg_stroke = Stroke::new(1.0, FOCUS_RING);
        w.active.fg_stroke = Stroke::new(1.5, TEXT);
        w.active.corner_radius = radius;
        w.active.expansion = 0.0;

        w.open.bg_fill = BG_ELEVATED;
        w.open.weak_bg_fill = BG_ELEVATED;
        w.open.bg_stroke = Stroke::new(1.0, ACCENT);
        w.open.fg_stroke = Stroke::new(1.0, TEXT);
        w.open.corner_radius = radius;
    });
}

/// The keyboard focus ring: drawn around whichever widget has focus, on top of the
/// widget's own look, so every focusable control (buttons, segmented buttons, chips,
/// swatches, inputs) shows where the focus is. Like the web's `:focus-visible` it shows
/// while the keyboard moves focus and hides after a pointer click.
#[derive(Debug, Default)]
pub struct FocusRing {
    keyboard_navigating: bool,
}

impl FocusRing {
    /// Call before layout each frame.
    pub fn observe_input(&mut self, ctx: &egui::Context) {
        ctx.input(|i| {
            for event in &i.events {
                match event {
                    egui::Event::Key {
                        key:
                            egui::Key::Tab
                            | egui::Key::ArrowLeft
                            | egui::Key::ArrowRight
                            | egui::Key::ArrowUp
                            | egui::Key::ArrowDown,
                        pressed: true,
                        ..
                    } => self.keyboard_navigating = true,
                    egui::Event::PointerButton { pressed: true, .. } => {
                        self.keyboard_navigating = false;
                    }
                    _ => {}
                }
            }
        });
    }

    /// Call after layout each frame.
    pub fn paint(&self, ctx: &egui::Context) {
        if !self.keyboard_navigating {
            return;
        }
        let Some(response) = ctx
            .memory(|m| m.focused())
            .and_then(|id| ctx.read_response(id))
        else {
            return;
        };
        if !response.interact_rect.is_positive() {
            return;
        }
        let ring = response.rect.expand(2.0);
        ctx.layer_painter(response.layer_id)
            .with_clip_rect(response.interact_rect.expand(4.0))
            .rect_stroke(
                ring,
                CornerRadius::same(RADIUS_M),
                Stroke::new(2.0, FOCUS_RING),
                egui::StrokeKind::Outside,
            );
    }
}

/// WCAG 2 contrast ratio of two opaque colours (1.0 ..= 21.0).
pub fn contrast_ratio(a: Color32, b: Color32) -> f32 {
    fn channel(c: u8) -> f32 {
        let c = f32::from(c) / 255.0;
        if c <= 0.039_28 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    }
    let luminance =
        |c: Color32| 0.2126 * channel(c.r()) + 0.7152 * channel(c.g()) + 0.0722 * channel(c.b());
    let (la, lb) = (luminance(a), luminance(b));
    let (light, dark) = if la >= lb { (la, lb) } else { (lb, la) };
    (light + 0.05) / (dark + 0.05)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Body text: 4.5:1. Large text and UI components (borders, fills, rings): 3:1.
    const BODY: f32 = 4.5;
    const COMPONENT: f32 = 3.0;

    const BACKGROUNDS: [(&str, Color32); 4] = [
        ("app", BG_APP),
        ("panel", BG_PANEL),
        ("surface", BG_SURFACE),
        ("elevated", BG_ELEVATED),
    ];

    fn check(pairs: &[(&str, Color32, &str, Color32, f32)]) {
        let failures: Vec<String> = pairs
            .iter()
            .filter_map(|(fg_name, fg, bg_name, bg, min)| {
                let ratio = contrast_ratio(*fg, *bg);
                (ratio < *min).then(|| format!("{fg_name} on {bg_name}: {ratio:.2} < {min}"))
            })
            .collect();
        assert!(
            failures.is_empty(),
            "contrast too low:\n{}",
            failures.join("\n")
        );
    }

    #[test]
    fn the_ratio_matches_known_values() {
        assert!((contrast_ratio(Color32::WHITE, Color32::BLACK) - 21.0).abs() < 0.01);
        assert!((contrast_ratio(BG_APP, BG_APP) - 1.0).abs() < 1e-6);
    }

    #[test]
    fn text_colours_are_readable_on_every_background() {
        let mut pairs = Vec::new();
        for (bg_name, bg) in BACKGROUNDS {
            for (fg_name, fg) in [
                ("text", TEXT),
                ("muted", TEXT_MUTED),
                ("faint", TEXT_FAINT),
                ("accent text", ACCENT_HOVER),
                ("danger", DANGER),
                ("warning", WARNING),
                ("success", SUCCESS),
                ("info", INFO),
                ("favourite", FAVOURITE),
            ] {
                pairs.push((fg_name, fg, bg_name, bg, BODY));
            }
        }
        // Hovered rows and buttons and the selected chip background carry body text.
        for (fg_name, fg) in [("text", TEXT), ("muted", TEXT_MUTED)] {
            pairs.push((fg_name, fg, "hover", BG_HOVER, BODY));
            pairs.push((fg_name, fg, "accent soft", ACCENT_SOFT, BODY));
        }
        check(&pairs);
    }

    #[test]
    fn text_on_filled_buttons_and_selections_is_readable() {
        check(&[
            ("on-accent", ON_ACCENT, "accent", ACCENT, BODY),
            ("on-accent", ON_ACCENT, "selection", ACCENT_PRESSED, BODY),
            ("on-accent", ON_ACCENT, "danger fill", DANGER_FILL, BODY),
            ("text", TEXT, "selection", ACCENT_PRESSED, BODY),
        ]);
    }

    #[test]
    fn controls_borders_fills_and_the_focus_ring_stand_out() {
        let mut pairs = Vec::new();
        for (bg_name, bg) in BACKGROUNDS {
            pairs.push(("control border", BORDER_STRONG, bg_name, bg, COMPONENT));
            pairs.push(("hovered border", BORDER_HOVER, bg_name, bg, COMPONENT));
            pairs.push(("focus ring", FOCUS_RING, bg_name, bg, COMPONENT));
            pairs.push(("accent", ACCENT, bg_name, bg, COMPONENT));
        }
        // A selected button's fill against the unselected ones beside it.
        pairs.push(("selection", ACCENT_PRESSED, "app", BG_APP, COMPONENT));
        check(&pairs);
    }
}
