//! Design tokens: every colour, spacing step, corner radius and text size the studio uses,
//! plus [`apply_theme`], which turns them into an egui `Style`, and the keyboard focus
//! ring. Panels take colours from here, never from literals.
//!
//! Two palettes, [`DARK`] and [`LIGHT`], with the same roles; [`palette()`] is the one
//! being drawn. Contrast (WCAG AA, both themes): text colours are at least 4.5:1 on every
//! background they sit on, control borders, the accent and selection fills at least 3:1;
//! the unit tests at the bottom compute every pair each theme uses.

use egui::{Color32, CornerRadius, FontFamily, FontId, Margin, Stroke, TextStyle, Vec2};

// ---- colours -------------------------------------------------------------------------

/// Every colour of one theme. Panels read the active one with [`palette()`]; egui's own
/// widgets get the same colours through the `Visuals` built by [`apply_theme`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Palette {
    /// Window background behind everything (central area).
    pub bg_app: Color32,
    /// Side panels: rail, tray, status bar.
    pub bg_panel: Color32,
    /// Cards and grouped sections.
    pub bg_surface: Color32,
    /// Inputs, hovered rows, the inside of cards.
    pub bg_elevated: Color32,
    /// Hovered inputs and buttons.
    pub bg_hover: Color32,
    /// Slider rails and checkbox wells (egui's inactive `bg_fill`; no text on it).
    pub track: Color32,
    /// Hairlines between regions and around cards.
    pub border: Color32,
    /// Outline of controls (buttons, inputs, dialogs): 3:1 against the backgrounds around them.
    pub border_strong: Color32,
    /// Outline of a hovered control.
    pub border_hover: Color32,

    pub text: Color32,
    pub text_muted: Color32,
    /// Hints and small print: still 4.5:1 on inputs.
    pub text_faint: Color32,

    /// Primary actions, selection, focus (a fill under white text, and a stroke).
    pub accent: Color32,
    /// Accent-coloured text and links (readable on every background of the theme).
    pub accent_hover: Color32,
    /// Selected buttons and selected text: white on it.
    pub accent_pressed: Color32,
    /// The keyboard focus ring.
    pub focus_ring: Color32,
    /// A faint accent: selected rail item, selected chip background (body text on it).
    pub accent_soft: Color32,
    /// Text on an accent fill.
    pub on_accent: Color32,

    pub success: Color32,
    pub warning: Color32,
    pub danger: Color32,
    /// Fill of destructive buttons (white text on it).
    pub danger_fill: Color32,
    /// Background of an input whose value is refused (body text on it).
    pub danger_soft: Color32,
    pub info: Color32,

    /// Library tiles: the frame behind a thumbnail, a tile whose page is not loaded yet,
    /// the glyph on a tile without a thumbnail, and the chip behind badges on images
    /// (translucent; `text` is readable on it over any image).
    pub tile_bg: Color32,
    pub tile_placeholder: Color32,
    pub tile_glyph: Color32,
    pub tile_scrim: Color32,
    /// Overlay on a selected tile.
    pub selection_tint: Color32,
    /// The favourite star.
    pub favourite: Color32,
    /// A folder without a colour (the service's default).
    pub folder_default: Color32,

    /// Background of the drop overlay and modal backdrops (`text` is readable on it).
    pub scrim: Color32,
}

/// The dark theme (the studio's original look).
pub const DARK: Palette = Palette {
    bg_app: Color32::from_rgb(0x10, 0x12, 0x17),
    bg_panel: Color32::from_rgb(0x15, 0x18, 0x1f),
    bg_surface: Color32::from_rgb(0x1b, 0x1f, 0x28),
    bg_elevated: Color32::from_rgb(0x23, 0x28, 0x33),
    bg_hover: Color32::from_rgb(0x2b, 0x31, 0x3e),
    track: Color32::from_rgb(0x23, 0x28, 0x33),
    border: Color32::from_rgb(0x2a, 0x30, 0x3c),
    border_strong: Color32::from_rgb(0x6b, 0x73, 0x83),
    border_hover: Color32::from_rgb(0x8a, 0x93, 0xa3),
    text: Color32::from_rgb(0xe6, 0xe8, 0xee),
    text_muted: Color32::from_rgb(0x9a, 0xa3, 0xb2),
    text_faint: Color32::from_rgb(0x8a, 0x93, 0xa3),
    accent: Color32::from_rgb(0x54, 0x68, 0xe0),
    accent_hover: Color32::from_rgb(0x86, 0x99, 0xff),
    accent_pressed: Color32::from_rgb(0x46, 0x59, 0xc9),
    focus_ring: Color32::from_rgb(0xa8, 0xb6, 0xff),
    accent_soft: Color32::from_rgba_premultiplied(0x1c, 0x22, 0x40, 0xff),
    on_accent: Color32::from_rgb(0xff, 0xff, 0xff),
    success: Color32::from_rgb(0x4c, 0xc3, 0x8a),
    warning: Color32::from_rgb(0xe5, 0xa5, 0x4b),
    danger: Color32::from_rgb(0xf0, 0x6a, 0x6a),
    danger_fill: Color32::from_rgb(0xc9, 0x3f, 0x3f),
    danger_soft: Color32::from_rgb(0x2c, 0x1c, 0x20),
    info: Color32::from_rgb(0x5f, 0xb3, 0xf9),
    tile_bg: Color32::from_rgb(0x1a, 0x1e, 0x26),
    tile_placeholder: Color32::from_rgb(0x17, 0x1a, 0x21),
    tile_glyph: Color32::from_rgb(0x3a, 0x41, 0x4f),
    tile_scrim: Color32::from_rgba_premultiplied(0x08, 0x09, 0x0c, 0xb8),
    selection_tint: Color32::from_rgba_premultiplied(0x1a, 0x20, 0x3c, 0x50),
    favourite: Color32::from_rgb(0xf5, 0xc5, 0x42),
    folder_default: Color32::from_rgb(0x3b, 0x82, 0xf6),
    scrim: Color32::from_rgba_premultiplied(0x06, 0x07, 0x0a, 0xd0),
};

/// The light theme: the same roles, dark text on near-white surfaces, and status colours
/// deepened until they read as text on every light background.
pub const LIGHT: Palette = Palette {
    bg_app: Color32::from_rgb(0xf4, 0xf5, 0xf8),
    bg_panel: Color32::from_rgb(0xea, 0xec, 0xf1),
    bg_surface: Color32::from_rgb(0xff, 0xff, 0xff),
    bg_elevated: Color32::from_rgb(0xf0, 0xf2, 0xf6),
    bg_hover: Color32::from_rgb(0xe2, 0xe6, 0xee),
    track: Color32::from_rgb(0xd3, 0xd8, 0xe1),
    border: Color32::from_rgb(0xd3, 0xd8, 0xe1),
    border_strong: Color32::from_rgb(0x7b, 0x83, 0x93),
    border_hover: Color32::from_rgb(0x5a, 0x62, 0x72),
    text: Color32::from_rgb(0x17, 0x1a, 0x21),
    text_muted: Color32::from_rgb(0x47, 0x4f, 0x5e),
    text_faint: Color32::from_rgb(0x56, 0x5e, 0x6d),
    accent: Color32::from_rgb(0x45, 0x57, 0xd6),
    accent_hover: Color32::from_rgb(0x33, 0x43, 0xbb),
    accent_pressed: Color32::from_rgb(0x3a, 0x4a, 0xc2),
    focus_ring: Color32::from_rgb(0x3a, 0x4a, 0xc2),
    accent_soft: Color32::from_rgb(0xdf, 0xe4, 0xfc),
    on_accent: Color32::from_rgb(0xff, 0xff, 0xff),
    success: Color32::from_rgb(0x14, 0x6c, 0x40),
    warning: Color32::from_rgb(0x85, 0x55, 0x00),
    danger: Color32::from_rgb(0xb4, 0x26, 0x26),
    danger_fill: Color32::from_rgb(0xb8, 0x30, 0x30),
    danger_soft: Color32::from_rgb(0xfc, 0xe9, 0xea),
    info: Color32::from_rgb(0x17, 0x62, 0xa8),
    tile_bg: Color32::from_rgb(0xe4, 0xe7, 0xed),
    tile_placeholder: Color32::from_rgb(0xec, 0xee, 0xf2),
    tile_glyph: Color32::from_rgb(0xa9, 0xb0, 0xbd),
    tile_scrim: Color32::from_rgba_premultiplied(0xe6, 0xe8, 0xec, 0xe6),
    selection_tint: Color32::from_rgba_premultiplied(0x22, 0x2c, 0x6b, 0x30),
    favourite: Color32::from_rgb(0x85, 0x55, 0x00),
    folder_default: Color32::from_rgb(0x25, 0x63, 0xeb),
    scrim: Color32::from_rgba_premultiplied(0xd9, 0xdb, 0xe0, 0xe0),
};

impl Palette {
    pub fn of(theme: egui::Theme) -> &'static Palette {
        match theme {
            egui::Theme::Dark => &DARK,
            egui::Theme::Light => &LIGHT,
        }
    }
}

thread_local! {
    /// The palette of the frame being drawn on this (the UI) thread. Set from the
    /// context's theme at the start of every frame by [`use_theme_of`], so panels read
    /// colours without a context at hand and a theme switch shows on the next frame.
    static ACTIVE: std::cell::Cell<&'static Palette> = const { std::cell::Cell::new(&DARK) };
}

/// The active theme's colours (dark until [`use_theme_of`] says otherwise).
pub fn palette() -> &'static Palette {
    ACTIVE.with(std::cell::Cell::get)
}

/// Makes [`palette()`] follow `ctx`'s current theme. Call at the start of each frame.
pub fn use_theme_of(ctx: &egui::Context) {
    let palette = Palette::of(ctx.theme());
    ACTIVE.with(|active| active.set(palette));
}

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
        .fill(palette().bg_surface)
        .stroke(Stroke::new(1.0, palette().border))
        .corner_radius(CornerRadius::same(RADIUS_L))
        .inner_margin(card_margin())
}

/// The shell's side panels (rail, status bar, job tray): panel fill with a hairline border.
pub fn panel_frame() -> egui::Frame {
    egui::Frame::new()
        .fill(palette().bg_panel)
        .stroke(Stroke::new(1.0, palette().border))
}

/// Turn the tokens into egui's dark and light styles and load the studio's fonts. Call
/// once at startup; which of the two styles is shown follows `ctx`'s theme preference (see
/// `ui::appearance`).
pub fn apply_theme(ctx: &egui::Context) {
    crate::ui::fonts::install(ctx);
    for theme in [egui::Theme::Dark, egui::Theme::Light] {
        ctx.style_mut_of(theme, |style| style_from(style, theme));
    }
    use_theme_of(ctx);
}

fn style_from(style: &mut egui::Style, theme: egui::Theme) {
    let p = Palette::of(theme);
    let dark = theme == egui::Theme::Dark;
    {
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
                FontId::new(TEXT_HEADING, crate::ui::fonts::bold()),
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
        v.dark_mode = dark;
        v.override_text_color = None;
        v.panel_fill = p.bg_app;
        v.window_fill = p.bg_surface;
        v.window_stroke = Stroke::new(1.0, p.border_strong);
        v.window_corner_radius = CornerRadius::same(RADIUS_L);
        v.menu_corner_radius = CornerRadius::same(RADIUS_M);
        v.window_shadow = egui::Shadow {
            offset: [0, 8],
            blur: 28,
            spread: 0,
            color: Color32::from_black_alpha(if dark { 120 } else { 40 }),
        };
        v.popup_shadow = egui::Shadow {
            offset: [0, 4],
            blur: 16,
            spread: 0,
            color: Color32::from_black_alpha(if dark { 110 } else { 36 }),
        };
        v.faint_bg_color = p.bg_surface;
        v.extreme_bg_color = p.bg_elevated;
        v.text_edit_bg_color = Some(p.bg_elevated);
        v.code_bg_color = p.bg_elevated;
        v.hyperlink_color = p.accent_hover;
        v.warn_fg_color = p.warning;
        v.error_fg_color = p.danger;
        // Selected buttons and selected text: white on a dark accent. The same stroke
        // outlines a focused text field.
        v.selection.bg_fill = p.accent_pressed;
        v.selection.stroke = Stroke::new(1.0, p.on_accent);
        v.weak_text_color = Some(p.text_muted);

        let radius = CornerRadius::same(RADIUS_M);
        let w = &mut v.widgets;
        w.noninteractive.bg_fill = p.bg_surface;
        w.noninteractive.weak_bg_fill = p.bg_surface;
        w.noninteractive.bg_stroke = Stroke::new(1.0, p.border);
        w.noninteractive.fg_stroke = Stroke::new(1.0, p.text);
        w.noninteractive.corner_radius = radius;

        w.inactive.bg_fill = p.track;
        w.inactive.weak_bg_fill = p.bg_elevated;
        w.inactive.bg_stroke = Stroke::new(1.0, p.border_strong);
        w.inactive.fg_stroke = Stroke::new(1.0, p.text);
        w.inactive.corner_radius = radius;

        w.hovered.bg_fill = p.bg_hover;
        w.hovered.weak_bg_fill = p.bg_hover;
        w.hovered.bg_stroke = Stroke::new(1.0, p.border_hover);
        w.hovered.fg_stroke = Stroke::new(1.5, p.text);
        w.hovered.corner_radius = radius;
        w.hovered.expansion = 0.0;

        w.active.bg_fill = p.bg_hover;
        w.active.weak_bg_fill = p.bg_hover;
        w.active.bg_stroke = Stroke::new(1.0, p.focus_ring);
        w.active.fg_stroke = Stroke::new(1.5, p.text);
        w.active.corner_radius = radius;
        w.active.expansion = 0.0;

        w.open.bg_fill = p.bg_elevated;
        w.open.weak_bg_fill = p.bg_elevated;
        w.open.bg_stroke = Stroke::new(1.0, p.accent);
        w.open.fg_stroke = Stroke::new(1.0, p.text);
        w.open.corner_radius = radius;
    }
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
                Stroke::new(2.0, palette().focus_ring),
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

    const THEMES: [(&str, Palette); 2] = [("dark", DARK), ("light", LIGHT)];

    fn backgrounds(p: &Palette) -> [(&'static str, Color32); 4] {
        [
            ("app", p.bg_app),
            ("panel", p.bg_panel),
            ("surface", p.bg_surface),
            ("elevated", p.bg_elevated),
        ]
    }

    /// A translucent (premultiplied) colour painted over an opaque one.
    fn over(top: Color32, bottom: Color32) -> Color32 {
        let keep = 1.0 - f32::from(top.a()) / 255.0;
        let mix = |t: u8, b: u8| (f32::from(t) + keep * f32::from(b)).round().min(255.0) as u8;
        Color32::from_rgb(
            mix(top.r(), bottom.r()),
            mix(top.g(), bottom.g()),
            mix(top.b(), bottom.b()),
        )
    }

    fn check(theme: &str, pairs: &[(&str, Color32, &str, Color32, f32)]) {
        let failures: Vec<String> = pairs
            .iter()
            .filter_map(|(fg_name, fg, bg_name, bg, min)| {
                let ratio = contrast_ratio(*fg, *bg);
                (ratio < *min)
                    .then(|| format!("{theme}: {fg_name} on {bg_name}: {ratio:.2} < {min}"))
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
        assert!((contrast_ratio(DARK.bg_app, DARK.bg_app) - 1.0).abs() < 1e-6);
    }

    #[test]
    fn text_colours_are_readable_on_every_background() {
        for (theme, p) in THEMES {
            let mut pairs = Vec::new();
            for (bg_name, bg) in backgrounds(&p) {
                for (fg_name, fg) in [
                    ("text", p.text),
                    ("muted", p.text_muted),
                    ("faint", p.text_faint),
                    ("accent text", p.accent_hover),
                    ("danger", p.danger),
                    ("warning", p.warning),
                    ("success", p.success),
                    ("info", p.info),
                    ("favourite", p.favourite),
                ] {
                    pairs.push((fg_name, fg, bg_name, bg, BODY));
                }
            }
            // Hovered rows and buttons, the selected chip and a refused input carry body text.
            for (fg_name, fg) in [("text", p.text), ("muted", p.text_muted)] {
                pairs.push((fg_name, fg, "hover", p.bg_hover, BODY));
                pairs.push((fg_name, fg, "accent soft", p.accent_soft, BODY));
                pairs.push((fg_name, fg, "danger soft", p.danger_soft, BODY));
            }
            check(theme, &pairs);
        }
    }

    #[test]
    fn text_on_scrims_is_readable_over_anything() {
        // Badges and the play disc sit on images (any colour); the drop overlay's words sit
        // on the backdrop over the studio.
        for (theme, p) in THEMES {
            let mut pairs = Vec::new();
            for (under_name, under) in [("black", Color32::BLACK), ("white", Color32::WHITE)] {
                pairs.push(("text", p.text, under_name, over(p.tile_scrim, under), BODY));
            }
            for (bg_name, bg) in backgrounds(&p) {
                pairs.push(("text", p.text, bg_name, over(p.scrim, bg), BODY));
                pairs.push(("muted", p.text_muted, bg_name, over(p.scrim, bg), BODY));
            }
            check(theme, &pairs);
        }
    }

    #[test]
    fn text_on_filled_buttons_and_selections_is_readable() {
        for (theme, p) in THEMES {
            check(
                theme,
                &[
                    ("on-accent", p.on_accent, "accent", p.accent, BODY),
                    (
                        "on-accent",
                        p.on_accent,
                        "selection",
                        p.accent_pressed,
                        BODY,
                    ),
                    ("on-accent", p.on_accent, "danger fill", p.danger_fill, BODY),
                ],
            );
        }
        // The dark theme's selected text keeps its own colour on the selection fill.
        check(
            "dark",
            &[("text", DARK.text, "selection", DARK.accent_pressed, BODY)],
        );
    }

    #[test]
    fn controls_borders_fills_and_the_focus_ring_stand_out() {
        for (theme, p) in THEMES {
            let mut pairs = Vec::new();
            for (bg_name, bg) in backgrounds(&p) {
                pairs.push(("control border", p.border_strong, bg_name, bg, COMPONENT));
                pairs.push(("hovered border", p.border_hover, bg_name, bg, COMPONENT));
                pairs.push(("focus ring", p.focus_ring, bg_name, bg, COMPONENT));
                pairs.push(("accent", p.accent, bg_name, bg, COMPONENT));
            }
            // A selected button's fill against the unselected ones beside it.
            pairs.push(("selection", p.accent_pressed, "app", p.bg_app, COMPONENT));
            check(theme, &pairs);
        }
    }

    #[test]
    fn egui_visuals_of_each_theme_are_built_from_its_palette() {
        let ctx = egui::Context::default();
        apply_theme(&ctx);
        for (theme, p) in [(egui::Theme::Dark, &DARK), (egui::Theme::Light, &LIGHT)] {
            ctx.set_theme(theme);
            let visuals = ctx.global_style().visuals.clone();
            assert_eq!(visuals.dark_mode, theme == egui::Theme::Dark);
            assert_eq!(visuals.panel_fill, p.bg_app);
            assert_eq!(visuals.window_fill, p.bg_surface);
            assert_eq!(visuals.widgets.inactive.fg_stroke.color, p.text);
            assert_eq!(visuals.selection.bg_fill, p.accent_pressed);
            use_theme_of(&ctx);
            assert_eq!(palette(), p);
        }
    }
}
