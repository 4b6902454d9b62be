//! Vector icons drawn with the painter, so the studio needs no icon or emoji font and every
//! icon is crisp at any scale. Each icon fits the given square.

use egui::{Color32, CornerRadius, Painter, Pos2, Rect, Shape, Stroke, Vec2, vec2};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Icon {
    Create,
    Library,
    Palettes,
    /// A double helix: Visual DNA.
    VisualDna,
    Presets,
    Docs,
    Settings,
    Close,
    Warning,
    ChevronLeft,
    ChevronRight,
    ChevronUp,
    ChevronDown,
    CollapseRight,
    BrokenImage,
    Image,
    Video,
    Audio,
    Star,
    Heart,
    Check,
    Folder,
    Trash,
    Upload,
    Edit,
    Plus,
    More,
    Play,
    Pause,
    StepBack,
    StepForward,
    Loop,
    Chat,
    Eye,
    Paperclip,
    /// An "i" in a circle: details about the selection.
    Info,
    /// A loudspeaker with sound waves (the volume control).
    Speaker,
    /// A loudspeaker struck through (muted).
    SpeakerMuted,
}

pub fn paint_icon(painter: &Painter, rect: Rect, icon: Icon, color: Color32) {
    let s = rect.width().min(rect.height());
    let c = rect.center();
    let w = (s / 12.0).max(1.2);
    let stroke = Stroke::new(w, color);
    let p = |x: f32, y: f32| -> Pos2 { c + vec2(x, y) * (s / 2.0) };
    match icon {
        Icon::Create => {
            // A four-pointed sparkle plus a small one.
            let star = |center: Pos2, r: f32| {
                let k = r * 0.28;
                vec![
                    center + vec2(0.0, -r),
                    center + vec2(k, -k),
                    center + vec2(r, 0.0),
                    center + vec2(k, k),
                    center + vec2(0.0, r),
                    center + vec2(-k, k),
                    center + vec2(-r, 0.0),
                    center + vec2(-k, -k),
                ]
            };
            painter.add(Shape::convex_polygon(
                star(p(-0.12, 0.1), s * 0.36),
                color,
                Stroke::NONE,
            ));
            painter.add(Shape::convex_polygon(
                star(p(0.52, -0.5), s * 0.16),
                color,
                Stroke::NONE,
            ));
        }
        Icon::Library => {
            let cell = s * 0.36;
            let gap = s * 0.1;
            for (dx, dy) in [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)] {
                let center = c + vec2(dx, dy) * (cell + gap) / 2.0;
                painter.rect_stroke(
                    Rect::from_center_size(center, Vec2::splat(cell)),
                    CornerRadius::same(2),
                    stroke,
                    egui::StrokeKind::Middle,
                );
            }
        }
        Icon::VisualDna => {
            // Two strands crossing twice, with rungs between them.
            let steps = 14;
            let strand = |phase: f32| -> Vec<Pos2> {
                (0..=steps)
                    .map(|i| {
                        let t = i as f32 / steps as f32;
                        let y = -0.85 + 1.7 * t;
                        let x = 0.45 * (t * std::f32::consts::TAU + phase).sin();
                        p(x, y)
                    })
                    .collect()
            };
            painter.add(Shape::line(strand(0.0), stroke));
            painter.add(Shape::line(strand(std::f32::consts::PI), stroke));
            for t in [0.12_f32, 0.38, 0.62, 0.88] {
                let y = -0.85 + 1.7 * t;
                let x = 0.45 * (t * std::f32::consts::TAU).sin();
                painter.line_segment([p(x, y), p(-x, y)], Stroke::new(w * 0.7, color));
            }
        }
        Icon::Palettes => {
            painter.circle_stroke(c, s * 0.42, stroke);
            for (x, y) in [(-0.38, -0.05), (-0.05, -0.42), (0.32, -0.22)] {
                painter.circle_filled(p(x * 0.9, y * 0.9 + 0.05), s * 0.08, color);
            }
            painter.circle_filled(p(0.12, 0.38), s * 0.1, color);
        }
        Icon::Presets => {
            // A clapperboard.
            let body = Rect::from_min_max(p(-0.8, -0.3), p(0.8, 0.8));
            painter.rect_stroke(
                body,
                CornerRadius::same(2),
                stroke,
                egui::StrokeKind::Middle,
            );
            let top = [p(-0.8, -0.38), p(0.72, -0.75)];
            painter.line_segment(top, stroke);
            painter.line_segment([p(-0.8, -0.38), p(-0.8, -0.3)], stroke);
            for x in [-0.3, 0.2] {
                painter.line_segment([p(x, -0.5), p(x + 0.18, -0.3)], stroke);
            }
        }
        Icon::Docs => {
            // A page with a folded corner and three lines of text.
            let page = [
                p(-0.6, -0.8),
                p(0.25, -0.8),
                p(0.6, -0.45),
                p(0.6, 0.8),
                p(-0.6, 0.8),
                p(-0.6, -0.8),
            ];
            painter.add(Shape::line(page.to_vec(), stroke));
            painter.add(Shape::line(
                vec![p(0.25, -0.8), p(0.25, -0.45), p(0.6, -0.45)],
                stroke,
            ));
            for (y, right) in [(-0.15, 0.3), (0.15, 0.3), (0.45, 0.05)] {
                painter.line_segment([p(-0.32, y), p(right, y)], stroke);
            }
        }
        Icon::Settings => {
            // A gear: a ring with eight teeth.
            for i in 0..8 {
                let angle = i as f32 * std::f32::consts::TAU / 8.0;
                let dir = vec2(angle.cos(), angle.sin());
                painter.line_segment(
                    [c + dir * s * 0.3, c + dir * s * 0.48],
                    Stroke::new(w * 1.8, color),
                );
            }
            painter.circle_stroke(c, s * 0.3, stroke);
            painter.circle_stroke(c, s * 0.12, stroke);
        }
        Icon::Close => {
            let r = 0.5;
            painter.line_segment([p(-r, -r), p(r, r)], stroke);
            painter.line_segment([p(r, -r), p(-r, r)], stroke);
        }
        Icon::Warning => {
            painter.add(Shape::convex_polygon(
                vec![p(0.0, -0.85), p(0.9, 0.75), p(-0.9, 0.75)],
                color,
                Stroke::NONE,
            ));
            let dark = Color32::from_black_alpha(200);
            painter.line_segment([p(0.0, -0.35), p(0.0, 0.25)], Stroke::new(w * 1.2, dark));
            painter.circle_filled(p(0.0, 0.5), w * 0.8, dark);
        }
        Icon::ChevronLeft => {
            painter.add(Shape::line(
                vec![p(0.25, -0.55), p(-0.25, 0.0), p(0.25, 0.55)],
                Stroke::new(w * 1.4, color),
            ));
        }
        Icon::ChevronRight => {
            painter.add(Shape::line(
                vec![p(-0.25, -0.55), p(0.25, 0.0), p(-0.25, 0.55)],
                Stroke::new(w * 1.4, color),
            ));
        }
        Icon::ChevronUp => {
            painter.add(Shape::line(
                vec![p(-0.55, 0.25), p(0.0, -0.25), p(0.55, 0.25)],
                Stroke::new(w * 1.4, color),
            ));
        }
        Icon::ChevronDown => {
            painter.add(Shape::line(
                vec![p(-0.55, -0.25), p(0.0, 0.25), p(0.55, -0.25)],
                Stroke::new(w * 1.4, color),
            ));
        }
        Icon::CollapseRight => {
            let frame = Rect::from_center_size(c, Vec2::splat(s * 0.9));
            painter.rect_stroke(
                frame,
                CornerRadius::same(2),
                stroke,
                egui::StrokeKind::Middle,
            );
            painter.line_segment([p(0.2, -0.45), p(0.2, 0.45)], stroke);
            painter.add(Shape::line(
                vec![p(-0.35, -0.2), p(-0.15, 0.0), p(-0.35, 0.2)],
                stroke,
            ));
        }
        Icon::Play => {
            painter.add(Shape::convex_polygon(
                vec![p(-0.5, -0.7), p(0.7, 0.0), p(-0.5, 0.7)],
                color,
                Stroke::NONE,
            ));
        }
        Icon::Pause => {
            for x in [-0.45, 0.2] {
                painter.rect_filled(
                    Rect::from_min_max(p(x, -0.7), p(x + 0.25, 0.7)),
                    CornerRadius::same(1),
                    color,
                );
            }
        }
        Icon::StepBack | Icon::StepForward => {
            // A bar and a triangle: one frame back or forward.
            let d = if icon == Icon::StepForward { 1.0 } else { -1.0 };
            painter.add(Shape::convex_polygon(
                vec![p(-0.55 * d, -0.6), p(0.35 * d, 0.0), p(-0.55 * d, 0.6)],
                color,
                Stroke::NONE,
            ));
            painter.line_segment(
                [p(0.55 * d, -0.6), p(0.55 * d, 0.6)],
                Stroke::new(w * 1.4, color),
            );
        }
        Icon::Loop => {
            // Two arcs chasing each other.
            let r = s * 0.36;
            let arc = |from: f32, to: f32| -> Vec<Pos2> {
                (0..=12)
                    .map(|i| {
                        let a = from + (to - from) * i as f32 / 12.0;
                        c + vec2(a.cos(), a.sin()) * r
                    })
                    .collect()
            };
            use std::f32::consts::PI;
            painter.add(Shape::line(arc(PI * 0.15, PI * 0.9), stroke));
            painter.add(Shape::line(arc(PI * 1.15, PI * 1.9), stroke));
            for a in [PI * 0.15, PI * 1.15] {
                let tip = c + vec2(a.cos(), a.sin()) * r;
                let along = vec2(-a.sin(), a.cos()) * (s * 0.16);
                let out = vec2(a.cos(), a.sin()) * (s * 0.14);
                painter.add(Shape::convex_polygon(
                    vec![tip - along + out, tip - along - out, tip + along * 0.4],
                    color,
                    Stroke::NONE,
                ));
            }
        }
        Icon::Video => {
            let body = Rect::from_min_max(p(-0.85, -0.55), p(0.35, 0.55));
            painter.rect_stroke(
                body,
                CornerRadius::same(2),
                stroke,
                egui::StrokeKind::Middle,
            );
            painter.add(Shape::convex_polygon(
                vec![p(0.45, -0.05), p(0.9, -0.45), p(0.9, 0.45), p(0.45, 0.05)],
                color,
                Stroke::NONE,
            ));
        }
        Icon::Speaker | Icon::SpeakerMuted => {
            painter.add(Shape::convex_polygon(
                vec![
                    p(-0.8, -0.25),
                    p(-0.45, -0.25),
                    p(0.0, -0.65),
                    p(0.0, 0.65),
                    p(-0.45, 0.25),
                    p(-0.8, 0.25),
                ],
                color,
                Stroke::NONE,
            ));
            if icon == Icon::Speaker {
                for r in [0.35, 0.7] {
                    let arc: Vec<Pos2> = (0..=8)
                        .map(|i| {
                            let a = -0.9 + 1.8 * i as f32 / 8.0;
                            p(0.1 + a.cos() * r, a.sin() * r)
                        })
                        .collect();
                    painter.add(Shape::line(arc, stroke));
                }
            } else {
                painter.line_segment([p(0.25, -0.35), p(0.85, 0.35)], stroke);
                painter.line_segment([p(0.25, 0.35), p(0.85, -0.35)], stroke);
            }
        }
        Icon::Audio => {
            // A beamed pair of notes.
            painter.line_segment([p(-0.3, 0.5), p(-0.3, -0.6)], stroke);
            painter.line_segment([p(0.55, 0.3), p(0.55, -0.8)], stroke);
            painter.add(Shape::convex_polygon(
                vec![p(-0.3, -0.6), p(0.55, -0.8), p(0.55, -0.55), p(-0.3, -0.35)],
                color,
                Stroke::NONE,
            ));
            painter.circle_filled(p(-0.48, 0.55), s * 0.15, color);
            painter.circle_filled(p(0.37, 0.35), s * 0.15, color);
        }
        Icon::Star => {
            let mut points = Vec::with_capacity(10);
            for i in 0..10 {
                let angle = -std::f32::consts::FRAC_PI_2 + i as f32 * std::f32::consts::PI / 5.0;
                let r = if i % 2 == 0 { 0.95 } else { 0.42 };
                points.push(p(angle.cos() * r, angle.sin() * r + 0.05));
            }
            // Not convex: fan it as five triangles around the centre plus the pentagon.
            let centre = p(0.0, 0.05);
            for i in 0..10 {
                let a = points[i];
                let b = points[(i + 1) % 10];
                painter.add(Shape::convex_polygon(
                    vec![centre, a, b],
                    color,
                    Stroke::NONE,
                ));
            }
        }
        Icon::Heart => {
            painter.circle_filled(p(-0.33, -0.25), s * 0.2, color);
            painter.circle_filled(p(0.33, -0.25), s * 0.2, color);
            painter.add(Shape::convex_polygon(
                vec![p(-0.7, -0.12), p(0.7, -0.12), p(0.0, 0.8)],
                color,
                Stroke::NONE,
            ));
        }
        Icon::Check => {
            painter.add(Shape::line(
                vec![p(-0.6, 0.0), p(-0.15, 0.45), p(0.65, -0.45)],
                Stroke::new(w * 1.6, color),
            ));
        }
        Icon::Folder => {
            painter.add(Shape::convex_polygon(
                vec![
                    p(-0.85, -0.6),
                    p(-0.25, -0.6),
                    p(-0.1, -0.42),
                    p(0.85, -0.42),
                    p(0.85, 0.65),
                    p(-0.85, 0.65),
                ],
                color.gamma_multiply(0.35),
                stroke,
            ));
        }
        Icon::Trash => {
            painter.line_segment([p(-0.75, -0.5), p(0.75, -0.5)], stroke);
            painter.line_segment([p(-0.22, -0.5), p(-0.22, -0.75)], stroke);
            painter.line_segment([p(-0.22, -0.75), p(0.22, -0.75)], stroke);
            painter.line_segment([p(0.22, -0.75), p(0.22, -0.5)], stroke);
            painter.add(Shape::line(
                vec![p(-0.55, -0.5), p(-0.45, 0.8), p(0.45, 0.8), p(0.55, -0.5)],
                stroke,
            ));
        }
        Icon::Upload => {
            painter.line_segment([p(0.0, 0.35), p(0.0, -0.7)], stroke);
            painter.add(Shape::line(
                vec![p(-0.4, -0.3), p(0.0, -0.7), p(0.4, -0.3)],
                stroke,
            ));
            painter.add(Shape::line(
                vec![p(-0.8, 0.3), p(-0.8, 0.75), p(0.8, 0.75), p(0.8, 0.3)],
                stroke,
            ));
        }
        Icon::Edit => {
            painter.line_segment([p(-0.6, 0.6), p(0.5, -0.5)], Stroke::new(w * 1.8, color));
            painter.line_segment([p(-0.8, 0.8), p(-0.6, 0.6)], stroke);
            painter.line_segment([p(-0.2, 0.8), p(0.8, 0.8)], stroke);
        }
        Icon::Plus => {
            painter.line_segment([p(-0.6, 0.0), p(0.6, 0.0)], Stroke::new(w * 1.3, color));
            painter.line_segment([p(0.0, -0.6), p(0.0, 0.6)], Stroke::new(w * 1.3, color));
        }
        Icon::More => {
            for x in [-0.55, 0.0, 0.55] {
                painter.circle_filled(p(x, 0.0), s * 0.08, color);
            }
        }
        Icon::Chat => {
            // A speech bubble with a tail and two lines of text.
            let bubble = Rect::from_min_max(p(-0.85, -0.7), p(0.85, 0.45));
            painter.rect_stroke(
                bubble,
                CornerRadius::same((s * 0.18) as u8),
                stroke,
                egui::StrokeKind::Middle,
            );
            painter.add(Shape::line(
                vec![p(-0.45, 0.45), p(-0.55, 0.85), p(-0.1, 0.45)],
                stroke,
            ));
            painter.line_segment([p(-0.5, -0.3), p(0.5, -0.3)], stroke);
            painter.line_segment([p(-0.5, 0.05), p(0.2, 0.05)], stroke);
        }
        Icon::Info => {
            painter.circle_stroke(c, s * 0.42, stroke);
            painter.circle_filled(p(0.0, -0.38), w * 0.9, color);
            painter.line_segment([p(0.0, -0.12), p(0.0, 0.45)], Stroke::new(w * 1.2, color));
        }
        Icon::Eye => {
            // An almond outline with the iris.
            let lid = |sign: f32| -> Vec<Pos2> {
                (0..=16)
                    .map(|i| {
                        let x = -0.9 + 1.8 * i as f32 / 16.0;
                        p(x, sign * 0.55 * (1.0 - (x / 0.9).powi(2)))
                    })
                    .collect()
            };
            painter.add(Shape::line(lid(-1.0), stroke));
            painter.add(Shape::line(lid(1.0), stroke));
            painter.circle_filled(c, s * 0.18, color);
        }
        Icon::Paperclip => {
            // One wire: in from the inner end, round the bottom, up the left, round the
            // top, and down the outer right side.
            let arc = |cx: f32, cy: f32, r: f32, from: f32, to: f32| -> Vec<Pos2> {
                (0..=10)
                    .map(|i| {
                        let a = from + (to - from) * i as f32 / 10.0;
                        p(cx + r * a.cos(), cy + r * a.sin())
                    })
                    .collect()
            };
            use std::f32::consts::PI;
            let mut wire = vec![p(0.14, -0.35)];
            wire.extend(arc(-0.04, 0.42, 0.18, 0.0, PI));
            wire.extend(arc(0.06, -0.52, 0.28, PI, 2.0 * PI));
            wire.extend(arc(-0.02, 0.55, 0.36, 0.0, PI));
            wire.push(p(-0.38, -0.1));
            painter.add(Shape::line(wire, stroke));
        }
        Icon::Image | Icon::BrokenImage => {
            let frame = Rect::from_center_size(c, vec2(s * 0.9, s * 0.75));
            painter.rect_stroke(
                frame,
                CornerRadius::same(2),
                stroke,
                egui::StrokeKind::Middle,
            );
            painter.circle_filled(p(0.18, -0.12), s * 0.07, color);
            painter.add(Shape::line(
                vec![p(-0.42, 0.3), p(-0.12, -0.02), p(0.12, 0.2), p(0.42, 0.3)],
                stroke,
            ));
            if icon == Icon::BrokenImage {
                painter.line_segment([p(-0.6, -0.6), p(0.6, 0.6)], Stroke::new(w * 1.3, color));
            }
        }
    }
}

/// A small inline icon (for use next to text).
pub fn icon_ui(ui: &mut egui::Ui, icon: Icon, size: f32, color: Color32) -> egui::Response {
    let (rect, response) = ui.allocate_exact_size(Vec2::splat(size), egui::Sense::hover());
    if ui.is_rect_visible(rect) {
        paint_icon(ui.painter(), rect, icon, color);
    }
    response
}

/// A point inside the unit square, for tests of the icon geometry.
#[cfg(test)]
fn unit() -> Rect {
    Rect::from_min_size(egui::pos2(0.0, 0.0), Vec2::splat(24.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_icon_paints_something() {
        let ctx = egui::Context::default();
        let mut output = ctx.run_ui(Default::default(), |ui| {
            for icon in [
                Icon::Create,
                Icon::Library,
                Icon::Palettes,
                Icon::VisualDna,
                Icon::Presets,
                Icon::Docs,
                Icon::Settings,
                Icon::Close,
                Icon::Warning,
                Icon::ChevronLeft,
                Icon::ChevronRight,
                Icon::ChevronUp,
                Icon::ChevronDown,
                Icon::CollapseRight,
                Icon::BrokenImage,
                Icon::Image,
                Icon::Video,
                Icon::Audio,
                Icon::Star,
                Icon::Heart,
                Icon::Check,
                Icon::Folder,
                Icon::Trash,
                Icon::Upload,
                Icon::Edit,
                Icon::Plus,
                Icon::More,
            ] {
                paint_icon(ui.painter(), unit(), icon, Color32::WHITE);
            }
        });
        output.textures_delta.clear();
        assert!(!output.shapes.is_empty());
    }
}
