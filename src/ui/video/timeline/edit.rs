//! The timeline's pure maths, no painting: every time is a whole frame (`k / fps`), the
//! selection stays inside `[0, duration]` with `in < out` and its length within the mode's
//! limits, and the keyboard's edits (I, O, Shift+arrows, arrows) as functions of frames.
//!
//! Times are kept in frames internally and converted to seconds only at the edges, so a
//! handle never drifts off the frame grid through float rounding.

/// Shortest selection in trim mode (a trim shorter than this is almost surely a slip).
pub const MIN_SELECTION_SECS: f64 = 0.1;
/// Frame rate assumed when the video reports none (a time must still land on a grid).
pub const FALLBACK_FPS: f64 = 24.0;

/// What the timeline edits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimelineMode {
    /// In and out points; the selection is at least [`MIN_SELECTION_SECS`].
    Trim,
    /// A span (start + length) whose length stays within `min_secs..=max_secs` (retake).
    Span { min_secs: f64, max_secs: f64 },
    /// One marker at the start or the end of the video (extend).
    Point,
}

/// Where a `Point` marker is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PointAnchor {
    #[default]
    Start,
    End,
}

/// The two selection handles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HandleKind {
    #[default]
    In,
    Out,
}

/// The timeline's position in frames: what [`super::TimelineState`] stores as seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameRange {
    pub in_frame: i64,
    pub out_frame: i64,
}

/// The frame grid of one video and the selection limits of one mode.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameGrid {
    pub fps: f64,
    /// Frames in the video (`duration × fps`, rounded); handles go from 0 to this.
    pub frame_count: i64,
    /// Selection length limits in frames, `1 <= min <= max <= frame_count` (when the video
    /// has a frame at all).
    pub min_frames: i64,
    pub max_frames: i64,
}

impl FrameGrid {
    pub fn new(duration_secs: f64, fps: f64, mode: TimelineMode) -> Self {
        let fps = if fps.is_finite() && fps > 0.0 {
            fps
        } else {
            FALLBACK_FPS
        };
        let duration_secs = if duration_secs.is_finite() {
            duration_secs.max(0.0)
        } else {
            0.0
        };
        let frame_count = (duration_secs * fps).round() as i64;
        // A hair of tolerance so 0.1 s at 30 fps is 3 frames, not 4.
        let frames_up = |secs: f64| (secs * fps - 1e-6).ceil().max(1.0) as i64;
        let frames_down = |secs: f64| (secs * fps + 1e-6).floor().max(1.0) as i64;
        let (min_frames, max_frames) = match mode {
            TimelineMode::Trim | TimelineMode::Point => {
                (frames_up(MIN_SELECTION_SECS), frame_count)
            }
            TimelineMode::Span { min_secs, max_secs } => {
                let min_secs = if min_secs.is_finite() { min_secs } else { 0.0 };
                let max_secs = if max_secs.is_finite() {
                    max_secs
                } else {
                    duration_secs
                };
                (
                    frames_up(min_secs.max(MIN_SELECTION_SECS)),
                    frames_down(max_secs),
                )
            }
        };
        // A video shorter than the minimum: the whole video is the only selection.
        let min_frames = min_frames.min(frame_count).max(frame_count.min(1));
        let max_frames = max_frames.min(frame_count).max(min_frames);
        Self {
            fps,
            frame_count,
            min_frames,
            max_frames,
        }
    }

    /// The frame nearest `secs`, on the grid `0..=frame_count`.
    pub fn frame_of(&self, secs: f64) -> i64 {
        if !secs.is_finite() {
            return 0;
        }
        ((secs * self.fps).round() as i64).clamp(0, self.frame_count)
    }

    pub fn secs_of(&self, frame: i64) -> f64 {
        frame as f64 / self.fps
    }

    /// `secs` snapped to the nearest frame boundary inside the video.
    pub fn snap_secs(&self, secs: f64) -> f64 {
        self.secs_of(self.frame_of(secs))
    }

    /// The last frame a playhead can show (the playhead is on a frame, never past the end).
    pub fn last_frame(&self) -> i64 {
        (self.frame_count - 1).max(0)
    }

    pub fn playhead_frame(&self, secs: f64) -> i64 {
        self.frame_of(secs).min(self.last_frame())
    }

    /// The selection the mode starts with: the whole video (trim), the longest span from the
    /// start (span), the whole video (point; not shown).
    pub fn initial_range(&self) -> FrameRange {
        FrameRange {
            in_frame: 0,
            out_frame: self.max_frames,
        }
    }

    /// `range` made valid: inside the video, length within the limits (the in point kept
    /// where it can be).
    pub fn normalise(&self, range: FrameRange) -> FrameRange {
        let length = (range.out_frame - range.in_frame).clamp(self.min_frames, self.max_frames);
        let in_frame = range.in_frame.clamp(0, self.frame_count - length);
        FrameRange {
            in_frame,
            out_frame: in_frame + length,
        }
    }

    /// Drags handle `kind` to `frame`; the other handle stays, so the dragged one stops
    /// where the length limits say.
    pub fn drag_handle(&self, range: FrameRange, kind: HandleKind, frame: i64) -> FrameRange {
        let FrameRange {
            in_frame,
            out_frame,
        } = range;
        match kind {
            HandleKind::In => FrameRange {
                in_frame: frame.clamp(
                    (out_frame - self.max_frames).max(0),
                    out_frame - self.min_frames,
                ),
                out_frame,
            },
            HandleKind::Out => FrameRange {
                in_frame,
                out_frame: frame.clamp(
                    in_frame + self.min_frames,
                    (in_frame + self.max_frames).min(self.frame_count),
                ),
            },
        }
    }

    /// I or O: puts handle `kind` at `frame` (clamped to where a valid selection can
    /// start or end) and pushes the other handle if the length limits need it.
    pub fn set_handle(&self, range: FrameRange, kind: HandleKind, frame: i64) -> FrameRange {
        match kind {
            HandleKind::In => {
                let in_frame = frame.clamp(0, self.frame_count - self.min_frames);
                let out_frame = range.out_frame.clamp(
                    in_frame + self.min_frames,
                    (in_frame + self.max_frames).min(self.frame_count),
                );
                FrameRange {
                    in_frame,
                    out_frame,
                }
            }
            HandleKind::Out => {
                let out_frame = frame.clamp(self.min_frames, self.frame_count);
                let in_frame = range.in_frame.clamp(
                    (out_frame - self.max_frames).max(0),
                    out_frame - self.min_frames,
                );
                FrameRange {
                    in_frame,
                    out_frame,
                }
            }
        }
    }

    /// Moves the whole selection by `delta` frames, keeping its length (span body drag).
    pub fn move_range(&self, range: FrameRange, delta: i64) -> FrameRange {
        let length = range.out_frame - range.in_frame;
        let in_frame = (range.in_frame + delta).clamp(0, self.frame_count - length);
        FrameRange {
            in_frame,
            out_frame: in_frame + length,
        }
    }
}

/// The timeline's In / Out / playhead times: the player's `m:ss:ff` time code, so the
/// two read alike.
pub fn clock_label(secs: f64, fps: f64) -> String {
    super::super::time::timecode(secs, fps)
}

/// A selection length for people: `1.50 s`, or `1:02.50` from a minute on.
pub fn length_label(secs: f64) -> String {
    let secs = if secs.is_finite() { secs.max(0.0) } else { 0.0 };
    if secs < 60.0 {
        format!("{secs:.2} s")
    } else {
        let whole = secs.floor() as u64;
        format!("{}:{:05.2}", whole / 60, secs - (whole - whole % 60) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRIM: TimelineMode = TimelineMode::Trim;

    fn range(in_frame: i64, out_frame: i64) -> FrameRange {
        FrameRange {
            in_frame,
            out_frame,
        }
    }

    #[test]
    fn times_snap_to_the_frame_grid_inside_the_video() {
        let grid = FrameGrid::new(2.0, 24.0, TRIM);
        assert_eq!(grid.frame_count, 48);
        assert_eq!(
            grid.frame_of(0.52),
            12,
            "0.52 s is nearest frame 12 (0.5 s)"
        );
        assert_eq!(grid.snap_secs(0.53), 13.0 / 24.0);
        assert_eq!(grid.frame_of(-1.0), 0);
        assert_eq!(grid.frame_of(9.0), 48, "handles may sit at the very end");
        assert_eq!(
            grid.playhead_frame(9.0),
            47,
            "the playhead stays on a frame"
        );
        assert_eq!(grid.frame_of(f64::NAN), 0);
        // No frame rate: a 24 fps grid still keeps times whole frames.
        assert_eq!(FrameGrid::new(1.0, 0.0, TRIM).frame_count, 24);
    }

    #[test]
    fn the_trim_minimum_is_a_tenth_of_a_second_in_whole_frames() {
        assert_eq!(FrameGrid::new(2.0, 24.0, TRIM).min_frames, 3, "2.4 → 3");
        assert_eq!(FrameGrid::new(2.0, 30.0, TRIM).min_frames, 3, "exactly 3");
        assert_eq!(FrameGrid::new(2.0, 60.0, TRIM).min_frames, 6);
        // A clip shorter than that can only be kept whole.
        let tiny = FrameGrid::new(2.0 / 24.0, 24.0, TRIM);
        assert_eq!((tiny.min_frames, tiny.max_frames), (2, 2));
    }

    #[test]
    fn dragging_a_handle_clamps_to_the_video_and_the_minimum() {
        let grid = FrameGrid::new(2.0, 24.0, TRIM);
        let whole = grid.initial_range();
        assert_eq!(whole, range(0, 48));
        assert_eq!(grid.drag_handle(whole, HandleKind::In, 10), range(10, 48));
        assert_eq!(grid.drag_handle(whole, HandleKind::In, -5), range(0, 48));
        assert_eq!(
            grid.drag_handle(range(10, 20), HandleKind::In, 30),
            range(17, 20),
            "in stops 3 frames (0.125 s) before out"
        );
        assert_eq!(
            grid.drag_handle(range(10, 20), HandleKind::Out, 2),
            range(10, 13)
        );
        assert_eq!(
            grid.drag_handle(range(10, 20), HandleKind::Out, 99),
            range(10, 48)
        );
    }

    #[test]
    fn i_and_o_at_the_playhead_push_the_other_handle() {
        let grid = FrameGrid::new(2.0, 24.0, TRIM);
        assert_eq!(
            grid.set_handle(range(0, 48), HandleKind::In, 12),
            range(12, 48)
        );
        assert_eq!(
            grid.set_handle(range(12, 48), HandleKind::Out, 30),
            range(12, 30)
        );
        // In past out: out moves to keep the minimum after it.
        assert_eq!(
            grid.set_handle(range(12, 30), HandleKind::In, 40),
            range(40, 43)
        );
        // In at the very end: as late as a valid selection can start.
        assert_eq!(
            grid.set_handle(range(12, 30), HandleKind::In, 47),
            range(45, 48)
        );
        // Out before in: in moves back.
        assert_eq!(
            grid.set_handle(range(12, 30), HandleKind::Out, 5),
            range(2, 5)
        );
        assert_eq!(
            grid.set_handle(range(12, 30), HandleKind::Out, 0),
            range(0, 3)
        );
    }

    #[test]
    fn shift_arrows_move_a_handle_by_exactly_one_frame() {
        let grid = FrameGrid::new(2.0, 24.0, TRIM);
        let start = range(12, 30);
        let nudged = grid.drag_handle(start, HandleKind::In, start.in_frame + 1);
        assert_eq!(nudged, range(13, 30));
        assert_eq!(grid.secs_of(nudged.in_frame), 13.0 / 24.0);
        let back = grid.drag_handle(nudged, HandleKind::Out, nudged.out_frame - 1);
        assert_eq!(back, range(13, 29));
        // At a limit a nudge changes nothing.
        assert_eq!(
            grid.drag_handle(range(0, 48), HandleKind::In, -1),
            range(0, 48)
        );
        assert_eq!(
            grid.drag_handle(range(10, 13), HandleKind::Out, 12),
            range(10, 13)
        );
    }

    #[test]
    fn a_span_keeps_its_length_within_min_and_max() {
        let mode = TimelineMode::Span {
            min_secs: 0.5,
            max_secs: 1.0,
        };
        let grid = FrameGrid::new(2.0, 24.0, mode);
        assert_eq!((grid.min_frames, grid.max_frames), (12, 24));
        assert_eq!(grid.initial_range(), range(0, 24));
        // Resizing stops at the limits.
        assert_eq!(
            grid.drag_handle(range(0, 24), HandleKind::Out, 40),
            range(0, 24)
        );
        assert_eq!(
            grid.drag_handle(range(0, 24), HandleKind::Out, 5),
            range(0, 12)
        );
        assert_eq!(
            grid.drag_handle(range(10, 30), HandleKind::In, 0),
            range(6, 30),
            "at most 24 frames long"
        );
        // I at the playhead moves the start and pulls the end along; near the end it stops.
        assert_eq!(
            grid.set_handle(range(0, 24), HandleKind::In, 20),
            range(20, 32)
        );
        assert_eq!(
            grid.set_handle(range(0, 24), HandleKind::In, 47),
            range(36, 48)
        );
        // Moving the body keeps the length and stays inside.
        assert_eq!(grid.move_range(range(0, 24), 10), range(10, 34));
        assert_eq!(grid.move_range(range(0, 24), 100), range(24, 48));
        assert_eq!(grid.move_range(range(10, 34), -100), range(0, 24));
        // A span asked longer than the video is the video.
        let long = FrameGrid::new(
            2.0,
            24.0,
            TimelineMode::Span {
                min_secs: 4.0,
                max_secs: 8.0,
            },
        );
        assert_eq!((long.min_frames, long.max_frames), (48, 48));
        assert_eq!(long.normalise(range(5, 7)), range(0, 48));
    }

    #[test]
    fn normalising_repairs_any_range() {
        let grid = FrameGrid::new(2.0, 24.0, TRIM);
        assert_eq!(grid.normalise(range(30, 10)), range(30, 33));
        assert_eq!(grid.normalise(range(-4, 100)), range(0, 48));
        assert_eq!(grid.normalise(range(47, 48)), range(45, 48));
    }

    #[test]
    fn labels_are_readable() {
        assert_eq!(clock_label(0.0, 24.0), "0:00:00");
        assert_eq!(clock_label(36.0 / 24.0, 24.0), "0:01:12");
        assert_eq!(clock_label(61.5, 30.0), "1:01:15");
        assert_eq!(clock_label(600.0, 30.0), "10:00:00");
        assert_eq!(length_label(1.5), "1.50 s");
        assert_eq!(length_label(62.5), "1:02.50");
        assert_eq!(length_label(f64::NAN), "0.00 s");
    }
}
