//! The trim timeline: a thumbnail strip with a selection between an in and an out handle
//! (outside dimmed), a playhead, a ruler and time labels. The same widget serves retake
//! (a span whose length stays within limits) and extend (one marker at the start or the
//! end) through [`TimelineMode`].
//!
//! The owning panel keeps a [`TimelineState`] and gets [`TimelineEvent`]s back; the widget
//! never does I/O or drives a player (the owner turns `SeekTo` / `PlaySelection` / `Pause`
//! into `VideoPlayerState` calls). Every time is a whole frame (see [`edit`]).
//!
//! Keys while the timeline has keyboard focus or the pointer is over it: I / O set the in /
//! out point at the playhead, Left / Right move the playhead one frame, Shift+Left / Right
//! move the focused (else the last touched) handle one frame, Space plays the selection in a
//! loop or pauses.

pub mod edit;
mod paint;

pub use edit::{FrameGrid, FrameRange, HandleKind, PointAnchor, TimelineMode, clock_label};

use crate::engine::{Command, Event};
use egui::{
    ColorImage, CursorIcon, EventFilter, Id, Key, Modifiers, Rect, Response, Sense, TextureHandle,
    TextureOptions, Ui, WidgetInfo, pos2, vec2,
};
use std::sync::atomic::{AtomicU64, Ordering};

/// Heights of the ruler, the strip and the label row (points).
const RULER_HEIGHT: f32 = 18.0;
const STRIP_HEIGHT: f32 = 56.0;
const LABELS_HEIGHT: f32 = 24.0;
/// Handle width; the strip is inset by this on both sides so end handles stay inside.
const HANDLE_WIDTH: f32 = 12.0;
/// How far handles reach above and below the strip.
const HANDLE_OVERHANG: f32 = 4.0;

/// Request ids for `Command::LoadVideoStrip`, unique in this process.
static NEXT_STRIP_REQUEST: AtomicU64 = AtomicU64::new(1);

/// What the timeline asks of its owner.
#[derive(Clone, Debug, PartialEq)]
pub enum TimelineEvent {
    /// Show the frame at this time (a whole frame).
    SeekTo(f64),
    /// Play `in_secs..out_secs` over and over (Space).
    PlaySelection { in_secs: f64, out_secs: f64 },
    /// Stop playing the selection (Space again).
    Pause,
    /// The in or out point moved (trim and span modes).
    SelectionChanged { in_secs: f64, out_secs: f64 },
    /// The extend marker moved (point mode).
    PointChanged(PointAnchor),
}

/// A keyboard edit, separate from egui's input so it can be tested as maths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimelineKey {
    SetIn,
    SetOut,
    /// Move the active handle by this many frames.
    NudgeHandle(i64),
    /// Move the playhead by this many frames.
    StepPlayhead(i64),
    TogglePlay,
}

/// The thumbnails of the strip, uploaded as they arrive.
#[derive(Default)]
pub struct StripTextures {
    request_id: u64,
    slots: Vec<Option<TextureHandle>>,
    /// Why the strip is incomplete, if it is.
    error: Option<String>,
}

impl StripTextures {
    /// Thumbnails received so far, by slot.
    pub fn slots(&self) -> &[Option<TextureHandle>] {
        &self.slots
    }

    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }
}

/// What the owning panel keeps for one timeline.
pub struct TimelineState {
    pub mode: TimelineMode,
    pub duration_secs: f64,
    pub fps: f64,
    /// Start of the selection (trim, span).
    pub in_secs: f64,
    /// End of the selection, exclusive: the last frame in it starts at `out_secs - 1/fps`.
    pub out_secs: f64,
    pub playhead_secs: f64,
    /// The extend marker (point mode).
    pub point: PointAnchor,
    /// The selection is playing in a loop (Space toggles; the owner clears it if playback
    /// stops for another reason).
    pub looping_selection: bool,
    pub strip: StripTextures,
    /// The handle Shift+arrows move when neither has focus: the last one touched.
    pub active_handle: HandleKind,
    /// Transient drag state (what the pointer grabbed and where the selection was then).
    drag: Option<Drag>,
}

#[derive(Clone, Copy, Debug)]
enum Drag {
    Playhead,
    /// Span mode: the body moves; frame under the pointer and the range at the start.
    Body {
        from_frame: i64,
        range: FrameRange,
    },
}

impl TimelineState {
    /// A timeline for a video of `duration_secs` at `fps`: the whole video selected (span:
    /// the longest allowed span from the start), the playhead at 0.
    pub fn new(duration_secs: f64, fps: f64, mode: TimelineMode) -> Self {
        let grid = FrameGrid::new(duration_secs, fps, mode);
        let range = grid.initial_range();
        Self {
            mode,
            duration_secs: grid.secs_of(grid.frame_count),
            fps: grid.fps,
            in_secs: grid.secs_of(range.in_frame),
            out_secs: grid.secs_of(range.out_frame),
            playhead_secs: 0.0,
            point: PointAnchor::default(),
            looping_selection: false,
            strip: StripTextures::default(),
            active_handle: HandleKind::In,
            drag: None,
        }
    }

    pub fn grid(&self) -> FrameGrid {
        FrameGrid::new(self.duration_secs, self.fps, self.mode)
    }

    /// The selection in frames (as stored, snapped).
    pub fn range(&self) -> FrameRange {
        let grid = self.grid();
        FrameRange {
            in_frame: grid.frame_of(self.in_secs),
            out_frame: grid.frame_of(self.out_secs),
        }
    }

    pub fn selection_secs(&self) -> f64 {
        self.out_secs - self.in_secs
    }

    /// The frames a selection loop plays, first and last inclusive (for
    /// `VideoPlayer::set_loop_range`).
    pub fn selection_frames(&self) -> (u32, u32) {
        let range = self.range();
        let last = (range.out_frame - 1).max(range.in_frame);
        (range.in_frame.max(0) as u32, last.max(0) as u32)
    }

    pub fn playhead_frame(&self) -> i64 {
        self.grid().playhead_frame(self.playhead_secs)
    }

    /// Follows the player (the owner calls this with the shown frame's time): snapped.
    pub fn set_playhead_secs(&mut self, secs: f64) {
        let grid = self.grid();
        self.playhead_secs = grid.secs_of(grid.playhead_frame(secs));
    }

    /// Puts the selection at `in_secs..out_secs` (snapped to frames and made valid), e.g.
    /// the times a form kept while the timeline was closed.
    pub fn set_selection_secs(&mut self, in_secs: f64, out_secs: f64) {
        let grid = self.grid();
        let range = FrameRange {
            in_frame: grid.frame_of(in_secs),
            out_frame: grid.frame_of(out_secs),
        };
        let _ = self.store_range(range);
    }

    /// Stores `range` (made valid); a `SelectionChanged` if it moved.
    fn store_range(&mut self, range: FrameRange) -> Option<TimelineEvent> {
        let grid = self.grid();
        let range = grid.normalise(range);
        let before = self.range();
        self.in_secs = grid.secs_of(range.in_frame);
        self.out_secs = grid.secs_of(range.out_frame);
        (range != before).then_some(TimelineEvent::SelectionChanged {
            in_secs: self.in_secs,
            out_secs: self.out_secs,
        })
    }

    fn store_playhead(&mut self, frame: i64) -> Option<TimelineEvent> {
        let grid = self.grid();
        let frame = frame.clamp(0, grid.last_frame());
        let before = self.playhead_frame();
        self.playhead_secs = grid.secs_of(frame);
        (frame != before).then_some(TimelineEvent::SeekTo(self.playhead_secs))
    }

    fn store_point(&mut self, point: PointAnchor) -> Option<TimelineEvent> {
        let changed = self.point != point;
        self.point = point;
        changed.then_some(TimelineEvent::PointChanged(point))
    }

    /// Drags handle `kind` to `secs` (snapped, clamped, the other handle kept).
    pub fn drag_handle_to(&mut self, kind: HandleKind, secs: f64) -> Option<TimelineEvent> {
        self.active_handle = kind;
        let grid = self.grid();
        self.store_range(grid.drag_handle(self.range(), kind, grid.frame_of(secs)))
    }

    /// Applies a keyboard edit; the events for the owner.
    pub fn apply_key(&mut self, key: TimelineKey) -> Vec<TimelineEvent> {
        let grid = self.grid();
        let playhead = self.playhead_frame();
        let point_mode = self.mode == TimelineMode::Point;
        let event = match key {
            TimelineKey::SetIn if point_mode => self.store_point(PointAnchor::Start),
            TimelineKey::SetOut if point_mode => self.store_point(PointAnchor::End),
            TimelineKey::SetIn => {
                self.active_handle = HandleKind::In;
                self.store_range(grid.set_handle(self.range(), HandleKind::In, playhead))
            }
            TimelineKey::SetOut => {
                self.active_handle = HandleKind::Out;
                self.store_range(grid.set_handle(self.range(), HandleKind::Out, playhead))
            }
            TimelineKey::NudgeHandle(_) if point_mode => None,
            TimelineKey::NudgeHandle(frames) => {
                let kind = self.active_handle;
                let range = self.range();
                let at = match kind {
                    HandleKind::In => range.in_frame,
                    HandleKind::Out => range.out_frame,
                };
                self.store_range(grid.drag_handle(range, kind, at + frames))
            }
            TimelineKey::StepPlayhead(frames) => self.store_playhead(playhead + frames),
            TimelineKey::TogglePlay => {
                self.looping_selection = !self.looping_selection;
                Some(if self.looping_selection {
                    TimelineEvent::PlaySelection {
                        in_secs: self.in_secs,
                        out_secs: self.out_secs,
                    }
                } else {
                    TimelineEvent::Pause
                })
            }
        };
        event.into_iter().collect()
    }

    /// Asks the engine for the strip of the video at `url`. The previous strip, if
    /// any, is dropped (its late thumbnails are ignored); send the returned commands.
    pub fn request_strip(&mut self, url: String, slot_count: u32, height_px: u32) -> Vec<Command> {
        let mut commands = Vec::new();
        if self.strip.request_id != 0 {
            commands.push(Command::CancelVideoStrip {
                request_id: self.strip.request_id,
            });
        }
        let request_id = NEXT_STRIP_REQUEST.fetch_add(1, Ordering::Relaxed);
        self.strip = StripTextures {
            request_id,
            slots: vec![None; slot_count as usize],
            error: None,
        };
        commands.push(Command::LoadVideoStrip {
            request_id,
            url,
            slot_count,
            height_px,
        });
        commands
    }

    /// Takes the engine's strip events for our request (others are ignored).
    pub fn handle_event(&mut self, ctx: &egui::Context, event: &Event) {
        match event {
            Event::VideoStripThumbnail {
                request_id,
                thumbnail,
            } if *request_id == self.strip.request_id => {
                let size = [thumbnail.width as usize, thumbnail.height as usize];
                if thumbnail.rgba.len() != size[0] * size[1] * 4 {
                    return;
                }
                let image = ColorImage::from_rgba_unmultiplied(size, &thumbnail.rgba);
                let texture = ctx.load_texture(
                    format!("timeline-strip-{request_id}-{}", thumbnail.index),
                    image,
                    TextureOptions::LINEAR,
                );
                self.set_thumbnail(thumbnail.index, thumbnail.total, texture);
            }
            Event::VideoStripFinished { request_id, error }
                if *request_id == self.strip.request_id =>
            {
                self.strip.error.clone_from(error);
            }
            _ => {}
        }
    }

    /// Puts a thumbnail in slot `index` of `total` (the strip grows to `total` slots).
    pub fn set_thumbnail(&mut self, index: u32, total: u32, texture: TextureHandle) {
        let total = total.max(index + 1) as usize;
        if self.strip.slots.len() < total {
            self.strip.slots.resize(total, None);
        }
        self.strip.slots[index as usize] = Some(texture);
    }
}

/// Where things are on screen for one frame of the widget.
#[derive(Clone, Copy, Debug)]
struct Geometry {
    ruler: Rect,
    strip: Rect,
    labels: Rect,
    frame_count: i64,
}

impl Geometry {
    fn x_of_frame(&self, frame: i64) -> f32 {
        let fraction = if self.frame_count > 0 {
            frame as f32 / self.frame_count as f32
        } else {
            0.0
        };
        self.strip.left() + fraction.clamp(0.0, 1.0) * self.strip.width()
    }

    fn frame_at_x(&self, x: f32) -> i64 {
        let fraction = super::time::scrub_fraction(x, self.strip.left(), self.strip.width());
        (fraction * self.frame_count as f32).round() as i64
    }

    /// The playhead's x: the middle of its frame's span (so the first and last frames are
    /// reachable and a click lands on the frame under it).
    fn x_of_playhead(&self, frame: i64) -> f32 {
        if self.frame_count <= 0 {
            return self.strip.left();
        }
        (self.x_of_frame(frame) + self.x_of_frame(frame + 1)) / 2.0
    }

    fn playhead_frame_at_x(&self, x: f32) -> i64 {
        let fraction = super::time::scrub_fraction(x, self.strip.left(), self.strip.width());
        ((fraction * self.frame_count as f32).floor() as i64)
            .clamp(0, (self.frame_count - 1).max(0))
    }
}

/// Lays the timeline out across the available width; returns the events for the owner.
pub fn timeline_ui(ui: &mut Ui, state: &mut TimelineState) -> Vec<TimelineEvent> {
    let mut events = Vec::new();
    let id = ui.make_persistent_id("trim-timeline");
    let width = ui.available_width().max(160.0);
    let height = RULER_HEIGHT + STRIP_HEIGHT + 2.0 * HANDLE_OVERHANG + LABELS_HEIGHT;
    let (outer, _) = ui.allocate_exact_size(vec2(width, height), Sense::hover());
    let inner = outer.shrink2(vec2(HANDLE_WIDTH, 0.0));
    let ruler = Rect::from_min_size(inner.min, vec2(inner.width(), RULER_HEIGHT));
    let strip = Rect::from_min_size(
        pos2(inner.left(), ruler.bottom() + HANDLE_OVERHANG),
        vec2(inner.width(), STRIP_HEIGHT),
    );
    let labels = Rect::from_min_max(
        pos2(outer.left(), strip.bottom() + HANDLE_OVERHANG),
        outer.max,
    );
    let grid = state.grid();
    let geometry = Geometry {
        ruler,
        strip,
        labels,
        frame_count: grid.frame_count,
    };

    // The track (ruler + strip) is the playhead's slider; handles are laid over it, so they
    // win where they overlap (egui hits the widget registered last).
    let track_rect = Rect::from_min_max(ruler.min, strip.max);
    let track = ui.interact(track_rect, id.with("track"), Sense::click_and_drag());
    let playhead_value = state.playhead_secs;
    track.widget_info(|| WidgetInfo::slider(grid.frame_count > 0, playhead_value, "Playhead"));
    track_input(state, &geometry, &track, &mut events);

    let mut handles = Vec::new();
    if state.mode != TimelineMode::Point && grid.frame_count > 0 {
        for kind in [HandleKind::In, HandleKind::Out] {
            let response = handle_ui(ui, id, state, &geometry, kind, &mut events);
            handles.push((kind, response));
        }
    }

    let focused_handle = handles
        .iter()
        .find(|(_, response)| response.has_focus())
        .map(|(kind, _)| *kind);
    let has_focus = track.has_focus() || focused_handle.is_some();
    if has_focus {
        // Arrows act on the timeline instead of moving keyboard focus away.
        let filter = EventFilter {
            horizontal_arrows: true,
            ..EventFilter::default()
        };
        for focused in std::iter::once(&track).chain(handles.iter().map(|(_, r)| r)) {
            if focused.has_focus() {
                ui.memory_mut(|memory| memory.set_focus_lock_filter(focused.id, filter));
            }
        }
    }
    if let Some(kind) = focused_handle {
        state.active_handle = kind;
    }
    let pointer_over = ui.rect_contains_pointer(outer);
    if (has_focus || pointer_over) && !ui.ctx().text_edit_focused() {
        for key in keys_pressed(ui) {
            events.extend(state.apply_key(key));
        }
    }

    paint::paint(
        ui,
        state,
        &paint::Layout {
            ruler: geometry.ruler,
            strip: geometry.strip,
            labels: geometry.labels,
            in_x: geometry.x_of_frame(state.range().in_frame),
            out_x: geometry.x_of_frame(state.range().out_frame),
            playhead_x: geometry.x_of_playhead(state.playhead_frame()),
            hot_handle: handles
                .iter()
                .find(|(_, r)| r.hovered() || r.dragged() || r.has_focus())
                .map(|(kind, _)| *kind),
            track_hot: track.hovered() || track.dragged(),
            focused: has_focus,
        },
    );
    events
}

/// Clicks and drags on the track: the playhead follows; in span mode a drag that starts
/// inside the selection moves the span instead.
fn track_input(
    state: &mut TimelineState,
    geometry: &Geometry,
    track: &Response,
    events: &mut Vec<TimelineEvent>,
) {
    let Some(pointer) = track.interact_pointer_pos() else {
        if !track.dragged() {
            state.drag = None;
        }
        return;
    };
    if track.drag_started() {
        let range = state.range();
        let frame = geometry.frame_at_x(pointer.x);
        let in_body =
            geometry.strip.contains(pointer) && (range.in_frame..range.out_frame).contains(&frame);
        state.drag = Some(match state.mode {
            TimelineMode::Span { .. } if in_body => Drag::Body {
                from_frame: frame,
                range,
            },
            _ => Drag::Playhead,
        });
    }
    if track.clicked() && state.mode == TimelineMode::Point && geometry.strip.contains(pointer) {
        let anchor = if pointer.x < geometry.strip.center().x {
            PointAnchor::Start
        } else {
            PointAnchor::End
        };
        events.extend(state.store_point(anchor));
    }
    match state.drag {
        Some(Drag::Body { from_frame, range }) if track.dragged() => {
            let delta = geometry.frame_at_x(pointer.x) - from_frame;
            let grid = state.grid();
            events.extend(state.store_range(grid.move_range(range, delta)));
            track.ctx.set_cursor_icon(CursorIcon::Grabbing);
        }
        _ if track.clicked() || track.dragged() => {
            let frame = geometry.playhead_frame_at_x(pointer.x);
            events.extend(state.store_playhead(frame));
        }
        _ => {}
    }
    if track.drag_stopped() {
        state.drag = None;
    }
}

/// One selection handle: a grip outside the selection's edge, dragged to move the edge.
fn handle_ui(
    ui: &mut Ui,
    id: Id,
    state: &mut TimelineState,
    geometry: &Geometry,
    kind: HandleKind,
    events: &mut Vec<TimelineEvent>,
) -> Response {
    let range = state.range();
    let (edge_x, rect) = match kind {
        HandleKind::In => {
            let x = geometry.x_of_frame(range.in_frame);
            (
                x,
                paint::handle_rect(geometry.strip, x, true, HANDLE_WIDTH, HANDLE_OVERHANG),
            )
        }
        HandleKind::Out => {
            let x = geometry.x_of_frame(range.out_frame);
            (
                x,
                paint::handle_rect(geometry.strip, x, false, HANDLE_WIDTH, HANDLE_OVERHANG),
            )
        }
    };
    let (name, value_secs) = handle_name(state.mode, kind, state);
    let response = ui
        .interact(rect, id.with(name), Sense::click_and_drag())
        .on_hover_cursor(CursorIcon::ResizeHorizontal);
    response.widget_info(|| WidgetInfo::slider(true, value_secs, name));
    if response.drag_started() || response.clicked() {
        state.active_handle = kind;
        response.request_focus();
    }
    if response.drag_started() {
        // Where the press grabbed the grip relative to the edge is kept for the whole drag,
        // so the edge does not jump by half a handle when the drag starts.
        let press_x = ui
            .input(|i| i.pointer.press_origin())
            .map_or(edge_x, |origin| origin.x);
        ui.memory_mut(|m| m.data.insert_temp(response.id, press_x - edge_x));
    }
    if response.dragged() {
        ui.ctx().set_cursor_icon(CursorIcon::ResizeHorizontal);
        if let Some(pointer) = response.interact_pointer_pos() {
            let grab_offset = ui
                .memory(|m| m.data.get_temp::<f32>(response.id))
                .unwrap_or(0.0);
            let frame = geometry.frame_at_x(pointer.x - grab_offset);
            events.extend(state.drag_handle_to(kind, state.grid().secs_of(frame)));
        }
    }
    response
}

/// A handle's accessible name and value for the mode.
fn handle_name(mode: TimelineMode, kind: HandleKind, state: &TimelineState) -> (&'static str, f64) {
    match (mode, kind) {
        (TimelineMode::Span { .. }, HandleKind::In) => ("Span start", state.in_secs),
        (TimelineMode::Span { .. }, HandleKind::Out) => ("Span end", state.out_secs),
        (_, HandleKind::In) => ("In point", state.in_secs),
        (_, HandleKind::Out) => ("Out point", state.out_secs),
    }
}

/// The timeline's keys pressed this frame, in the order they were pressed (a fast typist's
/// "arrows, I, arrows, O" may land in one frame), consumed so nothing else acts on them.
fn keys_pressed(ui: &Ui) -> Vec<TimelineKey> {
    ui.input_mut(|input| {
        let mut keys = Vec::new();
        input.events.retain(|event| {
            let egui::Event::Key {
                key,
                pressed: true,
                modifiers,
                ..
            } = event
            else {
                return true;
            };
            match timeline_key(*key, *modifiers) {
                Some(found) => {
                    keys.push(found);
                    false
                }
                None => true,
            }
        });
        keys
    })
}

/// What a key press means to the timeline: Shift+arrows move a handle, plain arrows the
/// playhead, I / O set the points, Space plays; other modifiers are left to others.
fn timeline_key(key: Key, modifiers: Modifiers) -> Option<TimelineKey> {
    if modifiers.command || modifiers.alt {
        return None;
    }
    let shift = modifiers.shift;
    match (key, shift) {
        (Key::ArrowLeft, true) => Some(TimelineKey::NudgeHandle(-1)),
        (Key::ArrowRight, true) => Some(TimelineKey::NudgeHandle(1)),
        (Key::ArrowLeft, false) => Some(TimelineKey::StepPlayhead(-1)),
        (Key::ArrowRight, false) => Some(TimelineKey::StepPlayhead(1)),
        (Key::I, false) => Some(TimelineKey::SetIn),
        (Key::O, false) => Some(TimelineKey::SetOut),
        (Key::Space, false) => Some(TimelineKey::TogglePlay),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trim() -> TimelineState {
        TimelineState::new(2.0, 24.0, TimelineMode::Trim)
    }

    #[test]
    fn a_new_trim_selects_the_whole_video() {
        let state = trim();
        assert_eq!((state.in_secs, state.out_secs), (0.0, 2.0));
        assert_eq!(state.selection_frames(), (0, 47));
        assert_eq!(state.playhead_secs, 0.0);
    }

    #[test]
    fn i_and_o_set_the_points_at_the_playhead_in_whole_frames() {
        let mut state = trim();
        for _ in 0..5 {
            state.apply_key(TimelineKey::StepPlayhead(1));
        }
        assert_eq!(state.playhead_secs, 5.0 / 24.0);
        assert_eq!(
            state.apply_key(TimelineKey::SetIn),
            [TimelineEvent::SelectionChanged {
                in_secs: 5.0 / 24.0,
                out_secs: 2.0
            }]
        );
        state.apply_key(TimelineKey::StepPlayhead(20));
        state.apply_key(TimelineKey::SetOut);
        assert_eq!((state.in_secs, state.out_secs), (5.0 / 24.0, 25.0 / 24.0));
        assert_eq!(state.selection_frames(), (5, 24));
        // Setting a point where it already is changes nothing.
        assert!(state.apply_key(TimelineKey::SetOut).is_empty());
    }

    #[test]
    fn the_playhead_stays_on_the_video_s_frames() {
        let mut state = trim();
        assert!(state.apply_key(TimelineKey::StepPlayhead(-1)).is_empty());
        assert_eq!(
            state.apply_key(TimelineKey::StepPlayhead(100)),
            [TimelineEvent::SeekTo(47.0 / 24.0)]
        );
        state.set_playhead_secs(0.52);
        assert_eq!(state.playhead_secs, 12.0 / 24.0);
    }

    #[test]
    fn shift_arrows_nudge_the_last_touched_handle_one_frame() {
        let mut state = trim();
        state.drag_handle_to(HandleKind::Out, 1.0);
        assert_eq!(state.out_secs, 1.0);
        state.apply_key(TimelineKey::NudgeHandle(1));
        assert_eq!(state.out_secs, 25.0 / 24.0);
        state.drag_handle_to(HandleKind::In, 0.5);
        state.apply_key(TimelineKey::NudgeHandle(-1));
        assert_eq!((state.in_secs, state.out_secs), (11.0 / 24.0, 25.0 / 24.0));
    }

    #[test]
    fn a_drag_never_makes_the_selection_shorter_than_a_tenth_of_a_second() {
        let mut state = trim();
        state.drag_handle_to(HandleKind::Out, 1.0);
        state.drag_handle_to(HandleKind::In, 1.5);
        assert_eq!(state.in_secs, 21.0 / 24.0);
        assert!(state.selection_secs() >= MIN_SELECTION_SECS_CHECK);
        state.drag_handle_to(HandleKind::In, -3.0);
        state.drag_handle_to(HandleKind::Out, 99.0);
        assert_eq!((state.in_secs, state.out_secs), (0.0, 2.0));
    }
    const MIN_SELECTION_SECS_CHECK: f64 = edit::MIN_SELECTION_SECS;

    #[test]
    fn space_plays_the_selection_and_pauses() {
        let mut state = trim();
        state.drag_handle_to(HandleKind::In, 0.5);
        assert_eq!(
            state.apply_key(TimelineKey::TogglePlay),
            [TimelineEvent::PlaySelection {
                in_secs: 0.5,
                out_secs: 2.0
            }]
        );
        assert!(state.looping_selection);
        assert_eq!(
            state.apply_key(TimelineKey::TogglePlay),
            [TimelineEvent::Pause]
        );
        assert!(!state.looping_selection);
    }

    #[test]
    fn span_mode_keeps_the_length_within_its_limits() {
        let mut state = TimelineState::new(
            2.0,
            24.0,
            TimelineMode::Span {
                min_secs: 0.5,
                max_secs: 1.0,
            },
        );
        assert_eq!((state.in_secs, state.out_secs), (0.0, 1.0));
        state.apply_key(TimelineKey::StepPlayhead(30));
        state.apply_key(TimelineKey::SetIn);
        // The end is pulled along to keep the shortest span (0.5 s) after the new start.
        assert_eq!((state.in_secs, state.out_secs), (30.0 / 24.0, 42.0 / 24.0));
        state.drag_handle_to(HandleKind::Out, 47.0 / 24.0);
        assert_eq!(state.out_secs, 47.0 / 24.0);
        state.drag_handle_to(HandleKind::Out, 1.4);
        assert_eq!(
            state.out_secs,
            42.0 / 24.0,
            "at least 0.5 s after the start"
        );
    }

    #[test]
    fn point_mode_moves_the_marker_with_i_and_o() {
        let mut state = TimelineState::new(2.0, 24.0, TimelineMode::Point);
        assert_eq!(state.point, PointAnchor::Start);
        assert_eq!(
            state.apply_key(TimelineKey::SetOut),
            [TimelineEvent::PointChanged(PointAnchor::End)]
        );
        assert!(state.apply_key(TimelineKey::NudgeHandle(1)).is_empty());
        assert_eq!(
            state.apply_key(TimelineKey::SetIn),
            [TimelineEvent::PointChanged(PointAnchor::Start)]
        );
    }

    #[test]
    fn the_playhead_maps_to_the_middle_of_its_frame() {
        let geometry = Geometry {
            ruler: Rect::from_min_size(pos2(0.0, 0.0), vec2(480.0, 10.0)),
            strip: Rect::from_min_size(pos2(0.0, 10.0), vec2(480.0, 50.0)),
            labels: Rect::NOTHING,
            frame_count: 48,
        };
        assert_eq!(geometry.x_of_frame(12), 120.0);
        assert_eq!(geometry.x_of_playhead(12), 125.0);
        for frame in [0, 1, 23, 47] {
            assert_eq!(
                geometry.playhead_frame_at_x(geometry.x_of_playhead(frame)),
                frame
            );
        }
        assert_eq!(geometry.playhead_frame_at_x(480.0), 47);
        assert_eq!(geometry.frame_at_x(480.0), 48);
    }
}
