//! The viewer's zoom and pan: fit, 100 % (one image pixel per physical pixel), zoom about a
//! point, pan, and the clamp that keeps the image from being lost off screen. Pure maths on
//! emath types; no widgets, no input.

use egui::{Pos2, Rect, Vec2};

/// One `+`/`-` press (and one Fit ↔ 100 % step of a double click is exact, not this).
pub const ZOOM_STEP: f32 = 1.25;
/// Deepest zoom: this many physical pixels per image pixel.
pub const MAX_PHYSICAL_PX_PER_IMAGE_PX: f32 = 32.0;
/// Fit never enlarges a small image more than this (points per image pixel).
pub const MAX_FIT_SCALE: f32 = 4.0;
/// Zooms this close to the fit scale snap back to Fit.
const SNAP_TO_FIT: f32 = 0.01;

/// What the zoom is applied to this frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Geometry {
    /// The image area on screen, in points.
    pub viewport: Rect,
    /// The image's real size in pixels (not the texture's, which may be downscaled).
    pub image_size_px: Vec2,
    pub pixels_per_point: f32,
}

impl Geometry {
    /// Points per image pixel that show the whole image in the viewport.
    pub fn fit_scale(&self) -> f32 {
        let image = self.image_size_px.max(Vec2::splat(1.0));
        (self.viewport.width() / image.x)
            .min(self.viewport.height() / image.y)
            .clamp(f32::MIN_POSITIVE, MAX_FIT_SCALE)
    }

    /// Points per image pixel at 100 %.
    pub fn actual_scale(&self) -> f32 {
        1.0 / self.pixels_per_point.max(0.1)
    }

    fn min_scale(&self) -> f32 {
        self.fit_scale().min(self.actual_scale())
    }

    fn max_scale(&self) -> f32 {
        (MAX_PHYSICAL_PX_PER_IMAGE_PX * self.actual_scale()).max(self.fit_scale())
    }
}

/// The viewer's zoom: Fit (the default) or a fixed scale with a pan offset.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Zoom {
    /// Points per image pixel; `None` = fit to the viewport.
    scale: Option<f32>,
    /// Offset of the image's centre from the viewport's centre, in points.
    pan: Vec2,
}

impl Zoom {
    pub fn is_fit(&self) -> bool {
        self.scale.is_none()
    }

    /// Points per image pixel in effect.
    pub fn scale(&self, geometry: &Geometry) -> f32 {
        self.scale.unwrap_or_else(|| geometry.fit_scale())
    }

    /// Physical pixels per image pixel, as a percentage (100 = actual size).
    pub fn percent(&self, geometry: &Geometry) -> f32 {
        self.scale(geometry) * geometry.pixels_per_point * 100.0
    }

    /// True when the image is shown larger than fit (arrow keys pan instead of stepping).
    pub fn is_past_fit(&self, geometry: &Geometry) -> bool {
        self.scale
            .is_some_and(|scale| scale > geometry.fit_scale() * (1.0 + SNAP_TO_FIT))
    }

    /// Where the image is drawn, in points.
    pub fn image_rect(&self, geometry: &Geometry) -> Rect {
        let size = geometry.image_size_px * self.scale(geometry);
        Rect::from_center_size(geometry.viewport.center() + self.pan, size)
    }

    pub fn set_fit(&mut self) {
        *self = Self::default();
    }

    /// 100 %, keeping the point at the viewport's centre where it is.
    pub fn set_actual_size(&mut self, geometry: &Geometry) {
        let factor = geometry.actual_scale() / self.scale(geometry);
        self.zoom_by(factor, geometry.viewport.center(), geometry);
    }

    /// Multiply the scale by `factor`, keeping the image point under `anchor` still.
    pub fn zoom_by(&mut self, factor: f32, anchor: Pos2, geometry: &Geometry) {
        if !factor.is_finite() || factor <= 0.0 {
            return;
        }
        let old = self.scale(geometry);
        let new = (old * factor).clamp(geometry.min_scale(), geometry.max_scale());
        if (new / geometry.fit_scale() - 1.0).abs() < SNAP_TO_FIT {
            self.set_fit();
            return;
        }
        let from_centre = anchor - geometry.viewport.center();
        self.pan = from_centre - (from_centre - self.pan) * (new / old);
        self.scale = Some(new);
        self.clamp(geometry);
    }

    /// Move the image by `delta` points (a drag, or an arrow key while zoomed in).
    pub fn pan_by(&mut self, delta: Vec2, geometry: &Geometry) {
        if self.scale.is_some() {
            self.pan += delta;
            self.clamp(geometry);
        }
    }

    /// Keep the image on screen: an axis larger than the viewport may not leave a gap at
    /// either edge; an axis that fits is centred.
    pub fn clamp(&mut self, geometry: &Geometry) {
        let shown = geometry.image_size_px * self.scale(geometry);
        let slack = (shown - geometry.viewport.size()) * 0.5;
        self.pan.x = clamp_axis(self.pan.x, slack.x);
        self.pan.y = clamp_axis(self.pan.y, slack.y);
    }
}

fn clamp_axis(pan: f32, slack: f32) -> f32 {
    if slack <= 0.0 {
        0.0
    } else {
        pan.clamp(-slack, slack)
    }
}

/// The texture side to ask for so the image shows at least one texel per physical pixel at
/// `percent` (capped at `cap_px`), in steps so zooming does not ask again every frame.
pub fn texture_side_for(image_max_side_px: f32, percent: f32, floor_px: u32, cap_px: u32) -> u32 {
    let needed = image_max_side_px * (percent / 100.0).min(1.0);
    let mut side = floor_px.max(1);
    while (side as f32) < needed && side < cap_px {
        side = side.saturating_mul(2);
    }
    side.min(cap_px.max(floor_px))
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::{pos2, vec2};

    fn geometry(image: Vec2) -> Geometry {
        Geometry {
            viewport: Rect::from_min_size(pos2(100.0, 50.0), vec2(800.0, 600.0)),
            image_size_px: image,
            pixels_per_point: 1.0,
        }
    }

    #[test]
    fn fit_shows_the_whole_image_centred() {
        let g = geometry(vec2(1600.0, 900.0));
        let zoom = Zoom::default();
        assert!(zoom.is_fit());
        assert_eq!(zoom.scale(&g), 0.5);
        assert_eq!(zoom.image_rect(&g).center(), g.viewport.center());
        assert!(g.viewport.contains_rect(zoom.image_rect(&g)));
        assert_eq!(zoom.percent(&g), 50.0);
    }

    #[test]
    fn hundred_percent_is_one_image_pixel_per_physical_pixel() {
        let mut g = geometry(vec2(1600.0, 900.0));
        g.pixels_per_point = 2.0;
        let mut zoom = Zoom::default();
        zoom.set_actual_size(&g);
        assert_eq!(zoom.percent(&g), 100.0);
        // 1600 image pixels = 1600 physical pixels = 800 points.
        assert_eq!(zoom.image_rect(&g).width(), 800.0);
    }

    #[test]
    fn zooming_keeps_the_point_under_the_pointer() {
        let g = geometry(vec2(1600.0, 1200.0));
        let mut zoom = Zoom::default();
        let anchor = pos2(300.0, 200.0);
        let before = zoom.image_rect(&g);
        let image_point = (anchor - before.min) / zoom.scale(&g);
        zoom.zoom_by(2.0, anchor, &g);
        let after = zoom.image_rect(&g);
        let image_point_after = (anchor - after.min) / zoom.scale(&g);
        assert!((image_point - image_point_after).length() < 0.01);
        assert!(zoom.is_past_fit(&g));
    }

    #[test]
    fn pan_is_clamped_so_the_image_stays_on_screen() {
        let g = geometry(vec2(1600.0, 1200.0));
        let mut zoom = Zoom::default();
        zoom.set_actual_size(&g);
        zoom.pan_by(vec2(10_000.0, -10_000.0), &g);
        let rect = zoom.image_rect(&g);
        // The image still covers the whole viewport: no gap at any edge.
        assert!(rect.contains_rect(g.viewport), "{rect:?}");
        assert_eq!(rect.left(), g.viewport.left());
        assert_eq!(rect.bottom(), g.viewport.bottom());
    }

    #[test]
    fn an_axis_smaller_than_the_viewport_stays_centred() {
        let g = geometry(vec2(4000.0, 200.0));
        let mut zoom = Zoom::default();
        zoom.set_actual_size(&g);
        zoom.pan_by(vec2(0.0, 300.0), &g);
        assert_eq!(zoom.image_rect(&g).center().y, g.viewport.center().y);
    }

    #[test]
    fn panning_in_fit_does_nothing() {
        let g = geometry(vec2(1600.0, 1200.0));
        let mut zoom = Zoom::default();
        zoom.pan_by(vec2(50.0, 50.0), &g);
        assert_eq!(zoom, Zoom::default());
    }

    #[test]
    fn zooming_out_past_fit_snaps_back_to_fit_and_stops() {
        let g = geometry(vec2(1600.0, 1200.0));
        let mut zoom = Zoom::default();
        zoom.zoom_by(ZOOM_STEP, g.viewport.center(), &g);
        zoom.zoom_by(1.0 / ZOOM_STEP, g.viewport.center(), &g);
        assert!(zoom.is_fit());
        zoom.zoom_by(0.1, g.viewport.center(), &g);
        // Fit (0.5) is below 100 % here, so zooming out stops at fit.
        assert!(zoom.is_fit());
        assert!(!zoom.is_past_fit(&g));
    }

    #[test]
    fn zoom_in_stops_at_the_deepest_zoom() {
        let g = geometry(vec2(100.0, 100.0));
        let mut zoom = Zoom::default();
        for _ in 0..100 {
            zoom.zoom_by(ZOOM_STEP, g.viewport.center(), &g);
        }
        assert_eq!(zoom.percent(&g), MAX_PHYSICAL_PX_PER_IMAGE_PX * 100.0);
    }

    #[test]
    fn a_small_image_can_go_below_fit_to_its_real_size() {
        let g = geometry(vec2(200.0, 150.0));
        let mut zoom = Zoom::default();
        assert_eq!(zoom.scale(&g), MAX_FIT_SCALE);
        zoom.set_actual_size(&g);
        assert_eq!(zoom.percent(&g), 100.0);
        assert!(!zoom.is_past_fit(&g));
    }

    #[test]
    fn texture_side_grows_in_steps_up_to_the_cap() {
        assert_eq!(texture_side_for(4000.0, 20.0, 2048, 8192), 2048);
        assert_eq!(texture_side_for(4000.0, 100.0, 2048, 8192), 4096);
        assert_eq!(texture_side_for(20_000.0, 300.0, 2048, 8192), 8192);
        assert_eq!(texture_side_for(20_000.0, 300.0, 2048, 2048), 2048);
    }
}
