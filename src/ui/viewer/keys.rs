//! The viewer's keys: Esc closes, Left/Right step (or pan when zoomed in past fit),
//! Up/Down pan, +/= and - zoom about the centre, 0 fit, 1 100 %.

use super::OpenViewer;
use super::zoom;
use egui::{Key, Modifiers, Vec2};

/// How far one arrow key pans a zoomed image, as a share of the image area.
const ARROW_PAN_SHARE: f32 = 0.15;

/// What the keyboard asked for this frame (zoom and pan are applied directly).
#[derive(Default)]
pub(super) struct Keys {
    pub close: bool,
    pub step: isize,
}

pub(super) fn keyboard_input(ctx: &egui::Context, open: &mut OpenViewer) -> Keys {
    let mut keys = Keys::default();
    // A context menu takes Esc and arrows for itself.
    if egui::Popup::is_any_open(ctx) {
        return keys;
    }
    let geometry = open.geometry;
    let past_fit = geometry.is_some_and(|g| open.zoom.is_past_fit(&g));
    ctx.input_mut(|i| {
        if i.consume_key(Modifiers::NONE, Key::Escape) {
            keys.close = true;
        }
        let pan = geometry.map(|g| g.viewport.size() * ARROW_PAN_SHARE);
        for (key, direction) in [
            (Key::ArrowLeft, Vec2::new(1.0, 0.0)),
            (Key::ArrowRight, Vec2::new(-1.0, 0.0)),
            (Key::ArrowUp, Vec2::new(0.0, 1.0)),
            (Key::ArrowDown, Vec2::new(0.0, -1.0)),
        ] {
            if !i.consume_key(Modifiers::NONE, key) {
                continue;
            }
            match (past_fit, geometry, pan) {
                // Zoomed in: the arrows look around the image (the view moves that way).
                (true, Some(g), Some(pan)) => open.zoom.pan_by(direction * pan, &g),
                _ => keys.step -= direction.x as isize,
            }
        }
        let Some(g) = geometry else {
            return;
        };
        let centre = g.viewport.center();
        // `+` arrives as Plus or as Shift+Equals depending on the layout; both zoom in.
        if i.consume_key(Modifiers::NONE, Key::Plus) || i.consume_key(Modifiers::NONE, Key::Equals)
        {
            open.zoom.zoom_by(zoom::ZOOM_STEP, centre, &g);
        }
        if i.consume_key(Modifiers::NONE, Key::Minus) {
            open.zoom.zoom_by(1.0 / zoom::ZOOM_STEP, centre, &g);
        }
        if i.consume_key(Modifiers::NONE, Key::Num0) {
            open.zoom.set_fit();
        }
        if i.consume_key(Modifiers::NONE, Key::Num1) {
            open.zoom.set_actual_size(&g);
        }
    });
    keys
}
