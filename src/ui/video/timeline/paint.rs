//! Painting the timeline: ruler, strip (thumbnails or placeholders, rounded ends), the
//! dimmed outside, the selection frame and its handles, the extend marker, the playhead and
//! the label row. Nothing here changes state.

use super::TimelineState;
use super::edit::{HandleKind, PointAnchor, TimelineMode, clock_label, length_label};
use crate::ui::{tokens, widgets};
use egui::{
    Align2, Color32, CornerRadius, FontId, Painter, Rect, Shape, Stroke, StrokeKind, Ui, pos2, vec2,
};

/// Ruler labels are at least this far apart (points), whatever the width.
const MIN_LABEL_SPACING: f32 = 72.0;
/// Candidate ruler steps (seconds).
const RULER_STEPS_SECS: [f64; 13] = [
    0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0,
];
/// Darkening over the parts of the strip outside the selection.
const OUTSIDE_DIM: Color32 = Color32::from_black_alpha(165);

pub(super) struct Layout {
    pub ruler: Rect,
    pub strip: Rect,
    pub labels: Rect,
    pub in_x: f32,
    pub out_x: f32,
    pub playhead_x: f32,
    pub hot_handle: Option<HandleKind>,
    pub track_hot: bool,
    pub focused: bool,
}

/// The grip of a handle whose selection edge is at `edge_x`: outside the selection (left of
/// the in point, right of the out point) so it never hides the first or last frame.
pub(super) fn handle_rect(
    strip: Rect,
    edge_x: f32,
    is_in: bool,
    width: f32,
    overhang: f32,
) -> Rect {
    let (left, right) = if is_in {
        (edge_x - width, edge_x)
    } else {
        (edge_x, edge_x + width)
    };
    Rect::from_min_max(
        pos2(left, strip.top() - overhang),
        pos2(right, strip.bottom() + overhang),
    )
}

pub(super) fn paint(ui: &Ui, state: &TimelineState, layout: &Layout) {
    let painter = ui.painter();
    ruler(painter, state, layout.ruler);
    strip(painter, state, layout.strip);
    match state.mode {
        TimelineMode::Point => point_marker(painter, state.point, layout.strip),
        TimelineMode::Trim | TimelineMode::Span { .. } => selection(painter, layout),
    }
    playhead(painter, layout);
    labels(painter, state, layout.labels);
    if layout.focused {
        let ring = Rect::from_min_max(layout.ruler.min, layout.strip.max).expand2(vec2(14.0, 6.0));
        painter.rect_stroke(
            ring,
            CornerRadius::same(tokens::RADIUS_M),
            Stroke::new(1.5, tokens::palette().focus_ring),
            StrokeKind::Outside,
        );
    }
}

fn ruler(painter: &Painter, state: &TimelineState, rect: Rect) {
    let duration_secs = state.duration_secs;
    if duration_secs <= 0.0 || rect.width() <= 0.0 {
        return;
    }
    let points_per_sec = f64::from(rect.width()) / duration_secs;
    let step = RULER_STEPS_SECS
        .iter()
        .copied()
        .find(|step| step * points_per_sec >= f64::from(MIN_LABEL_SPACING))
        .unwrap_or(RULER_STEPS_SECS[RULER_STEPS_SECS.len() - 1]);
    let x_of = |secs: f64| rect.left() + (secs / duration_secs) as f32 * rect.width();
    let font = FontId::proportional(tokens::TEXT_SMALL - 1.0);
    let mut k = 0u32;
    loop {
        let major_secs = f64::from(k) * step;
        if major_secs > duration_secs + 1e-9 {
            break;
        }
        let x = x_of(major_secs);
        painter.line_segment(
            [pos2(x, rect.bottom() - 7.0), pos2(x, rect.bottom())],
            Stroke::new(1.0, tokens::palette().border_strong),
        );
        // A label that would run past the right end is left out (the end has its own).
        if x + 40.0 < rect.right() || k == 0 {
            painter.text(
                pos2(x + 3.0, rect.bottom() - 8.0),
                Align2::LEFT_BOTTOM,
                ruler_label(major_secs, step, state.fps),
                font.clone(),
                tokens::palette().text_faint,
            );
        }
        let minor_secs = major_secs + step / 2.0;
        if minor_secs < duration_secs {
            let x = x_of(minor_secs);
            painter.line_segment(
                [pos2(x, rect.bottom() - 4.0), pos2(x, rect.bottom())],
                Stroke::new(1.0, tokens::palette().border),
            );
        }
        k += 1;
    }
}

/// Whole-second ticks as `m:ss`; finer ticks as the player's `m:ss:ff` time code (never
/// decimal seconds, which would read like frames next to the read-outs).
fn ruler_label(secs: f64, step: f64, fps: f64) -> String {
    if step >= 1.0 {
        let whole = secs.round() as u64;
        format!("{}:{:02}", whole / 60, whole % 60)
    } else {
        clock_label(secs, fps)
    }
}

/// Corner radii for a piece of the strip: rounded only where it touches the strip's ends.
fn end_corners(first: bool, last: bool) -> CornerRadius {
    let r = tokens::RADIUS_M;
    CornerRadius {
        nw: if first { r } else { 0 },
        sw: if first { r } else { 0 },
        ne: if last { r } else { 0 },
        se: if last { r } else { 0 },
    }
}

fn strip(painter: &Painter, state: &TimelineState, rect: Rect) {
    painter.rect_filled(
        rect,
        CornerRadius::same(tokens::RADIUS_M),
        tokens::palette().tile_placeholder,
    );
    let slots = state.strip.slots();
    let count = slots.len();
    for (i, slot) in slots.iter().enumerate() {
        let left = rect.left() + rect.width() * i as f32 / count as f32;
        let right = rect.left() + rect.width() * (i + 1) as f32 / count as f32;
        let cell = Rect::from_min_max(pos2(left, rect.top()), pos2(right, rect.bottom()));
        let corners = end_corners(i == 0, i + 1 == count);
        match slot {
            Some(texture) => {
                let uv = cover_uv(cell.size(), texture.size_vec2());
                painter.add(Shape::Rect(
                    egui::epaint::RectShape::filled(cell, corners, Color32::WHITE)
                        .with_texture(texture.id(), uv),
                ));
            }
            None => {
                // Alternate shades so the slots read as frames still to come.
                let fill = if i % 2 == 0 {
                    tokens::palette().tile_bg
                } else {
                    tokens::palette().tile_placeholder
                };
                painter.rect_filled(cell, corners, fill);
            }
        }
    }
    if let Some(error) = state.strip.error()
        && slots.iter().all(Option::is_none)
    {
        painter.text(
            rect.center(),
            Align2::CENTER_CENTER,
            error,
            FontId::proportional(tokens::TEXT_SMALL),
            tokens::palette().text_muted,
        );
    }
    painter.rect_stroke(
        rect,
        CornerRadius::same(tokens::RADIUS_M),
        Stroke::new(1.0, tokens::palette().border),
        StrokeKind::Inside,
    );
}

/// The texture coordinates that fill a cell of `cell` size with a picture of `picture`
/// size, cropping the middle (like CSS `object-fit: cover`).
fn cover_uv(cell: egui::Vec2, picture: egui::Vec2) -> Rect {
    if cell.x <= 0.0 || cell.y <= 0.0 || picture.x <= 0.0 || picture.y <= 0.0 {
        return Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0));
    }
    let cell_aspect = cell.x / cell.y;
    let picture_aspect = picture.x / picture.y;
    if picture_aspect > cell_aspect {
        let share = cell_aspect / picture_aspect;
        Rect::from_min_max(pos2(0.5 - share / 2.0, 0.0), pos2(0.5 + share / 2.0, 1.0))
    } else {
        let share = picture_aspect / cell_aspect;
        Rect::from_min_max(pos2(0.0, 0.5 - share / 2.0), pos2(1.0, 0.5 + share / 2.0))
    }
}

fn selection(painter: &Painter, layout: &Layout) {
    let strip = layout.strip;
    let (in_x, out_x) = (layout.in_x, layout.out_x);
    if in_x > strip.left() + 0.5 {
        let outside = Rect::from_min_max(strip.min, pos2(in_x, strip.bottom()));
        painter.rect_filled(outside, end_corners(true, false), OUTSIDE_DIM);
    }
    if out_x < strip.right() - 0.5 {
        let outside = Rect::from_min_max(pos2(out_x, strip.top()), strip.max);
        painter.rect_filled(outside, end_corners(false, true), OUTSIDE_DIM);
    }
    let selected = Rect::from_min_max(pos2(in_x, strip.top()), pos2(out_x, strip.bottom()));
    // The selection's frame: top and bottom bars joining the two handles.
    for y in [selected.top(), selected.bottom()] {
        painter.line_segment(
            [pos2(in_x, y), pos2(out_x, y)],
            Stroke::new(3.0, tokens::palette().accent),
        );
    }
    for (kind, edge_x) in [(HandleKind::In, in_x), (HandleKind::Out, out_x)] {
        let is_in = kind == HandleKind::In;
        let rect = handle_rect(
            strip,
            edge_x,
            is_in,
            super::HANDLE_WIDTH,
            super::HANDLE_OVERHANG,
        );
        let hot = layout.hot_handle == Some(kind);
        let fill = if hot {
            tokens::palette().accent_hover
        } else {
            tokens::palette().accent
        };
        let r = tokens::RADIUS_S;
        let corners = if is_in {
            CornerRadius {
                nw: r,
                sw: r,
                ne: 0,
                se: 0,
            }
        } else {
            CornerRadius {
                nw: 0,
                sw: 0,
                ne: r,
                se: r,
            }
        };
        painter.rect_filled(rect, corners, fill);
        // Two grip lines say "grab me".
        let centre = rect.center();
        for dx in [-1.5, 1.5] {
            painter.line_segment(
                [
                    pos2(centre.x + dx, centre.y - 8.0),
                    pos2(centre.x + dx, centre.y + 8.0),
                ],
                Stroke::new(1.0, tokens::palette().on_accent),
            );
        }
    }
}

fn point_marker(painter: &Painter, point: PointAnchor, strip: Rect) {
    let x = match point {
        PointAnchor::Start => strip.left(),
        PointAnchor::End => strip.right(),
    };
    let bar = Rect::from_center_size(
        pos2(x, strip.center().y),
        vec2(4.0, strip.height() + 2.0 * super::HANDLE_OVERHANG),
    );
    painter.rect_filled(bar, CornerRadius::same(2), tokens::palette().accent);
    // An arrow pointing where the new footage goes (before the start, after the end).
    let direction = if point == PointAnchor::Start {
        -1.0
    } else {
        1.0
    };
    let tip = pos2(x + direction * 11.0, strip.center().y);
    let base = x + direction * 3.0;
    painter.add(Shape::convex_polygon(
        vec![
            tip,
            pos2(base, strip.center().y - 7.0),
            pos2(base, strip.center().y + 7.0),
        ],
        tokens::palette().accent,
        Stroke::NONE,
    ));
}

fn playhead(painter: &Painter, layout: &Layout) {
    let x = layout.playhead_x;
    let top = layout.ruler.top() + 4.0;
    let bottom = layout.strip.bottom() + super::HANDLE_OVERHANG;
    // A dark edge under the line keeps it visible over bright thumbnails.
    painter.line_segment(
        [pos2(x, top), pos2(x, bottom)],
        Stroke::new(3.5, Color32::from_black_alpha(140)),
    );
    painter.line_segment(
        [pos2(x, top), pos2(x, bottom)],
        Stroke::new(1.5, tokens::palette().accent_hover),
    );
    let radius = if layout.track_hot { 6.5 } else { 5.5 };
    painter.circle(
        pos2(x, top + radius - 2.0),
        radius,
        tokens::palette().accent_hover,
        Stroke::new(1.5, tokens::palette().text),
    );
}

fn labels(painter: &Painter, state: &TimelineState, rect: Rect) {
    let fps = state.fps;
    let pairs: Vec<(&str, String)> = match state.mode {
        TimelineMode::Trim => vec![
            ("In", clock_label(state.in_secs, fps)),
            ("Out", clock_label(state.out_secs, fps)),
            ("Length", length_label(state.selection_secs())),
        ],
        TimelineMode::Span { .. } => vec![
            ("Start", clock_label(state.in_secs, fps)),
            ("End", clock_label(state.out_secs, fps)),
            ("Length", length_label(state.selection_secs())),
        ],
        TimelineMode::Point => {
            let at = match state.point {
                PointAnchor::Start => "at start",
                PointAnchor::End => "at end",
            };
            vec![("Extend", at.to_owned())]
        }
    };
    let name_font = FontId::proportional(tokens::TEXT_SMALL);
    let value_font = FontId::monospace(tokens::TEXT_MONO);
    let text_width = |text: &str, font: &FontId| {
        painter
            .layout_no_wrap(text.to_owned(), font.clone(), tokens::palette().text)
            .size()
            .x
    };
    let left = rect.left() + super::HANDLE_WIDTH;
    let full_width: f32 = pairs
        .iter()
        .map(|(name, value)| {
            text_width(name, &name_font) + 5.0 + text_width(value, &value_font) + tokens::SPACE_M
        })
        .sum();
    // A narrow card: the values alone (the names are in each handle's tooltip and the
    // accessible names), so nothing runs past the card.
    let with_names = left + full_width <= rect.right();
    let mut x = left;
    let y = rect.center().y + 2.0;
    for (name, value) in pairs {
        if with_names {
            let name_rect = painter.text(
                pos2(x, y),
                Align2::LEFT_CENTER,
                name,
                name_font.clone(),
                tokens::palette().text_muted,
            );
            x = name_rect.right() + 5.0;
        }
        let value_rect = painter.text(
            pos2(x, y),
            Align2::LEFT_CENTER,
            value,
            value_font.clone(),
            tokens::palette().text,
        );
        x = value_rect.right() + tokens::SPACE_M;
    }
    // The playhead's time on the right; in a narrow window the duration goes first, then
    // the time itself, rather than drawing over the selection's figures.
    let right = rect.right() - super::HANDLE_WIDTH;
    let playhead = clock_label(state.playhead_secs, fps);
    let with_duration = format!("{playhead} / {}", clock_label(state.duration_secs, fps));
    let font = FontId::monospace(tokens::TEXT_MONO);
    let shown = widgets::first_that_fits(painter, &font, right - x, [with_duration, playhead]);
    if let Some(text) = shown {
        painter.text(
            pos2(right, y),
            Align2::RIGHT_CENTER,
            text,
            font,
            tokens::palette().text,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thumbnails_fill_their_cell_cropping_the_middle() {
        let wide = cover_uv(vec2(50.0, 50.0), vec2(160.0, 90.0));
        assert!((wide.width() - 90.0 / 160.0).abs() < 1e-6);
        assert!((wide.center().x - 0.5).abs() < 1e-6);
        assert_eq!(wide.height(), 1.0);
        let tall = cover_uv(vec2(100.0, 20.0), vec2(160.0, 90.0));
        assert_eq!(tall.width(), 1.0);
        assert!(tall.height() < 1.0);
    }

    #[test]
    fn ruler_labels_read_as_times() {
        assert_eq!(ruler_label(0.0, 1.0, 24.0), "0:00");
        assert_eq!(ruler_label(75.0, 5.0, 24.0), "1:15");
        assert_eq!(ruler_label(1.5, 0.5, 24.0), "0:01:12");
        assert_eq!(ruler_label(2.5, 0.5, 30.0), "0:02:15");
    }
}
