//! A model's avatar beside its name in the Create model picker. The picture comes through
//! the texture cache (the engine fetches it); until it arrives, or when the model has none,
//! a neutral square of the same size keeps the names aligned.

use crate::api::ModelRecord;
use crate::ui::textures::{TextureCache, TextureLookup};
use crate::ui::tokens;
use egui::{CornerRadius, Sense, Ui, Vec2};

/// Side of the avatar in points.
pub const AVATAR_SIDE: f32 = 20.0;

pub fn avatar_ui(ui: &mut Ui, textures: &TextureCache, record: &ModelRecord) {
    let (rect, _) = ui.allocate_exact_size(Vec2::splat(AVATAR_SIDE), Sense::hover());
    if !ui.is_rect_visible(rect) {
        return;
    }
    let radius = CornerRadius::same(tokens::RADIUS_S);
    let side_px = (AVATAR_SIDE * ui.ctx().pixels_per_point()).ceil() as u32;
    let lookup = record
        .avatar_url
        .as_deref()
        .map(|url| textures.get(url, side_px.max(32)));
    match lookup {
        Some(TextureLookup::Ready(texture)) => {
            egui::Image::from_texture(&texture)
                .corner_radius(radius)
                .paint_at(ui, rect);
        }
        _ => {
            ui.painter()
                .rect_filled(rect, radius, tokens::palette().tile_placeholder);
        }
    }
}
