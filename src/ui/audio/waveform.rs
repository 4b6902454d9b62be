//! The two-tone waveform widget: bars for the whole sound, the played part in the accent
//! colour, the rest muted; a playhead; an optional A–B loop region; click or drag to seek;
//! hover shows the time under the pointer. Pure drawing and input: it does no I/O and holds
//! no state (the caller keeps the position and the loop).

use crate::audio::Peaks;
use crate::ui::tokens;
use egui::{Color32, CornerRadius, Pos2, Rect, Sense, Stroke, Ui, Vec2};

/// Width of one bar plus its gap, in points (bars are resampled to fit).
const BAR_PITCH_PTS: f32 = 3.0;
/// Loop handles are grabbed within this many points of their line.
const HANDLE_GRAB_PTS: f32 = 6.0;

/// Which loop handle a drag moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopHandle {
    Start,
    End,
}

/// What the person did with the waveform this frame.
#[derive(Clone, Debug, Default)]
pub struct WaveformResponse {
    /// Clicked or dragged the body: seek here.
    pub seek_to_secs: Option<f64>,
    /// The time under the pointer while it hovers.
    pub hover_secs: Option<f64>,
    /// A loop handle was dragged: the new loop (start, end), start < end.
    pub loop_changed: Option<(f64, f64)>,
    /// The drag ended this frame (a scrub finished).
    pub drag_stopped: bool,
    /// The widget's own response (focus, accessibility, context menu).
    pub response: Option<egui::Response>,
}

/// `Waveform::new(&peaks).played_fraction(f).loop_region(..).show(ui)`.
pub struct Waveform<'a> {
    peaks: &'a Peaks,
    played_fraction: f32,
    loop_region: Option<(f64, f64)>,
    height: f32,
    name: String,
    interactive: bool,
    show_hover_time: bool,
}

impl<'a> Waveform<'a> {
    pub fn new(peaks: &'a Peaks) -> Self {
        Self {
            peaks,
            played_fraction: 0.0,
            loop_region: None,
            height: 120.0,
            name: "Waveform".to_owned(),
            interactive: true,
            show_hover_time: true,
        }
    }

    /// The share already played, 0..=1 (drawn in the accent colour, with the playhead).
    pub fn played_fraction(mut self, fraction: f32) -> Self {
        self.played_fraction = if fraction.is_finite() {
            fraction.clamp(0.0, 1.0)
        } else {
            0.0
        };
        self
    }

    /// The A–B loop in seconds, drawn as a tinted region with two handles.
    pub fn loop_region(mut self, region: Option<(f64, f64)>) -> Self {
        self.loop_region = region;
        self
    }

    pub fn height(mut self, height: f32) -> Self {
        self.height = height;
        self
    }

    /// The accessible name (kittest finds the waveform by it).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// A thumbnail: no seeking, no handles (hover time is still reported).
    pub fn interactive(mut self, interactive: bool) -> Self {
        self.interactive = interactive;
        self
    }

    /// Draw the time under the pointer as a small label (on by default).
    pub fn show_hover_time(mut self, show: bool) -> Self {
        self.show_hover_time = show;
        self
    }

    pub fn show(self, ui: &mut Ui) -> WaveformResponse {
        let width = ui.available_width().max(40.0);
        let sense = if self.interactive {
            Sense::click_and_drag()
        } else {
            Sense::hover()
        };
        let (rect, response) = ui.allocate_exact_size(Vec2::new(width, self.height), sense);
        let name = self.name.clone();
        let interactive = self.interactive;
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Slider, interactive, &name));
        let mut out = WaveformResponse::default();
        let duration = self.peaks.duration_secs.max(0.0);
        let time_at = |x: f32| -> f64 {
            let fraction = ((x - rect.left()) / rect.width().max(1.0)).clamp(0.0, 1.0);
            f64::from(fraction) * duration
        };
        let x_at = |secs: f64| -> f32 {
            let fraction = if duration > 0.0 {
                (secs / duration).clamp(0.0, 1.0) as f32
            } else {
                0.0
            };
            rect.left() + fraction * rect.width()
        };

        // Loop handles take a drag that starts near them; the body seeks.
        let handle_id = response.id.with("loop_handle");
        if self.interactive
            && let Some((start, end)) = self.loop_region
        {
            if response.drag_started()
                && let Some(pointer) = response.interact_pointer_pos()
            {
                let near = |secs: f64| (pointer.x - x_at(secs)).abs() <= HANDLE_GRAB_PTS;
                let grabbed = if near(start) {
                    Some(LoopHandle::Start)
                } else if near(end) {
                    Some(LoopHandle::End)
                } else {
                    None
                };
                ui.data_mut(|d| d.insert_temp(handle_id, grabbed));
            }
            let grabbed = ui
                .data(|d| d.get_temp::<Option<LoopHandle>>(handle_id))
                .flatten();
            if let Some(handle) = grabbed
                && response.dragged()
                && let Some(pointer) = response.interact_pointer_pos()
            {
                let at = time_at(pointer.x);
                let min_gap = (duration / 1000.0).max(0.05);
                let region = match handle {
                    LoopHandle::Start => (at.min(end - min_gap).max(0.0), end),
                    LoopHandle::End => (start, at.max(start + min_gap).min(duration)),
                };
                out.loop_changed = Some(region);
            }
            if response.drag_stopped() {
                ui.data_mut(|d| d.remove::<Option<LoopHandle>>(handle_id));
            }
        }
        let dragging_handle = out.loop_changed.is_some();
        if self.interactive
            && !dragging_handle
            && (response.clicked() || response.dragged())
            && let Some(pointer) = response.interact_pointer_pos()
        {
            out.seek_to_secs = Some(time_at(pointer.x));
        }
        out.drag_stopped = response.drag_stopped();
        if let Some(pointer) = response.hover_pos() {
            out.hover_secs = Some(time_at(pointer.x));
        }

        if ui.is_rect_visible(rect) {
            self.paint(ui, rect, out.hover_secs, &x_at);
        }
        if self.interactive && (response.hovered() || response.dragged()) {
            ui.ctx().set_cursor_icon(egui::CursorIcon::PointingHand);
        }
        out.response = Some(response);
        out
    }

    fn paint(&self, ui: &Ui, rect: Rect, hover_secs: Option<f64>, x_at: &dyn Fn(f64) -> f32) {
        let palette = tokens::palette();
        let painter = ui.painter_at(rect);
        painter.rect_filled(rect, CornerRadius::same(tokens::RADIUS_S), palette.bg_app);
        if let Some((start, end)) = self.loop_region {
            let region = Rect::from_x_y_ranges(x_at(start)..=x_at(end), rect.y_range());
            painter.rect_filled(region, CornerRadius::ZERO, palette.accent_soft);
        }
        let bar_count = ((rect.width() / BAR_PITCH_PTS).floor() as usize).max(1);
        let bars = bars_for(self.peaks, bar_count);
        let played_x = rect.left() + self.played_fraction * rect.width();
        let centre = rect.center().y;
        let half = rect.height() * 0.5 - 2.0;
        let pitch = rect.width() / bars.len().max(1) as f32;
        let bar_width = (pitch * 0.66).max(1.0);
        for (i, (min, max)) in bars.iter().enumerate() {
            let x = rect.left() + i as f32 * pitch;
            let top = centre - max.clamp(0.0, 1.0) * half;
            let bottom = centre - min.clamp(-1.0, 0.0) * half;
            // Silence still shows a hairline, so the bar count reads as the length.
            let (top, bottom) = if bottom - top < 1.0 {
                (centre - 0.5, centre + 0.5)
            } else {
                (top, bottom)
            };
            let color = if x + bar_width * 0.5 <= played_x {
                palette.accent
            } else {
                palette.text_faint
            };
            painter.rect_filled(
                Rect::from_min_max(Pos2::new(x, top), Pos2::new(x + bar_width, bottom)),
                CornerRadius::same(1),
                color,
            );
        }
        if self.played_fraction > 0.0 {
            painter.line_segment(
                [
                    Pos2::new(played_x, rect.top()),
                    Pos2::new(played_x, rect.bottom()),
                ],
                Stroke::new(1.5, palette.text),
            );
        }
        if let Some((start, end)) = self.loop_region {
            for (secs, label) in [(start, "A"), (end, "B")] {
                let x = x_at(secs);
                painter.line_segment(
                    [Pos2::new(x, rect.top()), Pos2::new(x, rect.bottom())],
                    Stroke::new(2.0, palette.accent),
                );
                if self.interactive {
                    let tab =
                        Rect::from_center_size(Pos2::new(x, rect.top() + 7.0), Vec2::splat(14.0));
                    painter.rect_filled(tab, CornerRadius::same(3), palette.accent);
                    painter.text(
                        tab.center(),
                        egui::Align2::CENTER_CENTER,
                        label,
                        egui::FontId::proportional(10.0),
                        palette.on_accent,
                    );
                }
            }
        }
        if self.show_hover_time
            && let Some(secs) = hover_secs
        {
            let x = x_at(secs);
            painter.line_segment(
                [Pos2::new(x, rect.top()), Pos2::new(x, rect.bottom())],
                Stroke::new(1.0, palette.text_muted),
            );
            let text = super::time::clock(secs);
            let galley = painter.layout_no_wrap(
                text,
                egui::FontId::proportional(tokens::TEXT_SMALL),
                palette.text,
            );
            let size = galley.size() + Vec2::new(8.0, 4.0);
            let left =
                (x - size.x * 0.5).clamp(rect.left(), (rect.right() - size.x).max(rect.left()));
            let label = Rect::from_min_size(Pos2::new(left, rect.bottom() - size.y - 2.0), size);
            painter.rect_filled(label, CornerRadius::same(3), palette.bg_elevated);
            painter.galley(label.min + Vec2::new(4.0, 2.0), galley, palette.text);
        }
    }
}

/// `bar_count` (min, max) bars from the peaks (max-of-groups when shrinking; nearest bucket
/// when growing, so a short sound still fills the width).
pub fn bars_for(peaks: &Peaks, bar_count: usize) -> Vec<(f32, f32)> {
    let buckets = &peaks.buckets;
    if buckets.is_empty() || bar_count == 0 {
        return vec![(0.0, 0.0); bar_count];
    }
    (0..bar_count)
        .map(|bar| {
            let from = bar * buckets.len() / bar_count;
            let to = ((bar + 1) * buckets.len() / bar_count)
                .max(from + 1)
                .min(buckets.len());
            buckets[from.min(buckets.len() - 1)..to]
                .iter()
                .fold((0.0f32, 0.0f32), |(lo, hi), (min, max)| {
                    (lo.min(*min), hi.max(*max))
                })
        })
        .collect()
}

/// The waveform of a thumbnail-sized tile, filling `rect` (no input; used by the Library and
/// result tiles when they draw their own frames).
pub fn paint_bars(
    painter: &egui::Painter,
    rect: Rect,
    peaks: &Peaks,
    played_fraction: f32,
    color: Color32,
    played_color: Color32,
) {
    let bar_count = ((rect.width() / BAR_PITCH_PTS).floor() as usize).max(1);
    let bars = bars_for(peaks, bar_count);
    let centre = rect.center().y;
    let half = rect.height() * 0.5;
    let pitch = rect.width() / bars.len().max(1) as f32;
    let played_x = rect.left() + played_fraction.clamp(0.0, 1.0) * rect.width();
    for (i, (min, max)) in bars.iter().enumerate() {
        let x = rect.left() + i as f32 * pitch;
        let top = centre - max.clamp(0.0, 1.0) * half;
        let bottom = (centre - min.clamp(-1.0, 0.0) * half).max(top + 1.0);
        let fill = if x < played_x { played_color } else { color };
        painter.rect_filled(
            Rect::from_min_max(
                Pos2::new(x, top),
                Pos2::new(x + (pitch * 0.66).max(1.0), bottom),
            ),
            CornerRadius::ZERO,
            fill,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_keep_the_loudest_of_each_group_and_fill_the_width() {
        let peaks = Peaks {
            duration_secs: 4.0,
            buckets: vec![(-0.1, 0.1), (-0.9, 0.2), (-0.2, 0.8), (0.0, 0.0)],
        };
        assert_eq!(bars_for(&peaks, 2), vec![(-0.9, 0.2), (-0.2, 0.8)]);
        let wide = bars_for(&peaks, 8);
        assert_eq!(wide.len(), 8);
        assert_eq!(wide[2], (-0.9, 0.2));
        assert_eq!(
            bars_for(
                &Peaks {
                    duration_secs: 0.0,
                    buckets: vec![]
                },
                3
            )
            .len(),
            3
        );
    }
}
