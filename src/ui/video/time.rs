//! Pure maths of the player's controls: time codes, the scrub bar's x → frame mapping, and
//! which preview frame is under the pointer.

/// `m:ss:ff`: minutes, seconds and the frame within the second at `fps` (`0:02:23` is frame
/// 23 of second 2), the colon-separated frames an editor's time code uses (a `.` would read
/// as decimal seconds). The one format for a video time in the player, the trim timeline
/// and the viewer. Negative or non-finite times show as 0; an unknown rate as whole seconds.
pub fn timecode(time_secs: f64, fps: f64) -> String {
    let fps_whole = if fps.is_finite() && fps >= 1.0 {
        fps.round() as u64
    } else {
        1
    };
    let time_secs = if time_secs.is_finite() {
        time_secs.max(0.0)
    } else {
        0.0
    };
    // A hair of tolerance: pts like 0.041666… must land on frame 1, not 0.
    let frames = (time_secs * fps_whole as f64 + 1e-6).floor() as u64;
    let (secs, frame) = (frames / fps_whole, frames % fps_whole);
    format!("{}:{:02}:{frame:02}", secs / 60, secs % 60)
}

/// `m:ss` for badges (rounded to the nearest second, at least 0:01 for any positive length).
pub fn duration_badge(duration_secs: f64) -> Option<String> {
    if !duration_secs.is_finite() || duration_secs <= 0.0 {
        return None;
    }
    let secs = (duration_secs.round() as u64).max(1);
    Some(format!("{}:{:02}", secs / 60, secs % 60))
}

/// The share of the scrub bar's width at `x` (0 at its left edge, 1 at its right).
pub fn scrub_fraction(x: f32, left: f32, width: f32) -> f32 {
    if width <= 0.0 || !x.is_finite() {
        return 0.0;
    }
    ((x - left) / width).clamp(0.0, 1.0)
}

/// The frame a click or drag at `x` on the scrub bar seeks to: the bar's width spans
/// frame 0 to the last frame.
pub fn scrub_frame(x: f32, left: f32, width: f32, frame_count: u32) -> u32 {
    let last = frame_count.saturating_sub(1);
    (scrub_fraction(x, left, width) * last as f32).round() as u32
}

/// Where frame `index` sits on the bar, as a share of its width (inverse of `scrub_frame`).
pub fn frame_fraction(index: u32, frame_count: u32) -> f32 {
    let last = frame_count.saturating_sub(1);
    if last == 0 {
        0.0
    } else {
        (index.min(last) as f32 / last as f32).clamp(0.0, 1.0)
    }
}

/// Which of `count` preview frames (evenly spaced over the clip) to show when the pointer
/// is at `fraction` of a tile's width.
pub fn preview_index(fraction: f32, count: usize) -> usize {
    if count == 0 {
        return 0;
    }
    ((fraction.clamp(0.0, 1.0) * count as f32).floor() as usize).min(count - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timecodes_are_frame_accurate() {
        assert_eq!(timecode(0.0, 24.0), "0:00:00");
        assert_eq!(timecode(1.0 / 24.0, 24.0), "0:00:01");
        assert_eq!(timecode(36.0 / 24.0, 24.0), "0:01:12");
        assert_eq!(
            timecode(71.0 / 24.0, 24.0),
            "0:02:23",
            "the last frame of second 2"
        );
        assert_eq!(timecode(72.0 / 24.0, 24.0), "0:03:00");
        assert_eq!(timecode(4.0, 24.0), "0:04:00");
        assert_eq!(timecode(49.0 / 25.0, 25.0), "0:01:24");
        assert_eq!(timecode(50.0 / 25.0, 25.0), "0:02:00");
        assert_eq!(timecode(61.5, 30.0), "1:01:15");
        assert_eq!(timecode(29.0 / 30.0, 30.0), "0:00:29");
        assert_eq!(timecode(600.0, 30.0), "10:00:00");
        assert_eq!(timecode(1001.0 / 30000.0 * 30.0, 29.97), "0:01:00");
        assert_eq!(timecode(-3.0, 24.0), "0:00:00");
        assert_eq!(timecode(f64::NAN, 24.0), "0:00:00");
        assert_eq!(timecode(f64::INFINITY, 24.0), "0:00:00");
        assert_eq!(
            timecode(2.5, 0.0),
            "0:02:00",
            "an unknown rate shows whole seconds"
        );
    }

    #[test]
    fn badges_round_to_seconds() {
        assert_eq!(duration_badge(5.0).as_deref(), Some("0:05"));
        assert_eq!(duration_badge(0.2).as_deref(), Some("0:01"));
        assert_eq!(duration_badge(90.4).as_deref(), Some("1:30"));
        assert_eq!(duration_badge(0.0), None);
        assert_eq!(duration_badge(f64::INFINITY), None);
    }

    #[test]
    fn the_scrub_bar_spans_first_to_last_frame() {
        assert_eq!(scrub_frame(100.0, 100.0, 400.0, 96), 0);
        assert_eq!(scrub_frame(500.0, 100.0, 400.0, 96), 95);
        assert_eq!(scrub_frame(300.0, 100.0, 400.0, 96), 48);
        assert_eq!(scrub_frame(-50.0, 100.0, 400.0, 96), 0, "clamped left");
        assert_eq!(scrub_frame(900.0, 100.0, 400.0, 96), 95, "clamped right");
        assert_eq!(scrub_frame(300.0, 100.0, 0.0, 96), 0, "no width");
        assert_eq!(scrub_frame(300.0, 100.0, 400.0, 0), 0, "no frames");
        for index in [0, 1, 17, 48, 95] {
            let x = 100.0 + frame_fraction(index, 96) * 400.0;
            assert_eq!(scrub_frame(x, 100.0, 400.0, 96), index, "round trip");
        }
        assert_eq!(frame_fraction(3, 1), 0.0);
    }

    #[test]
    fn preview_frames_follow_the_pointer() {
        assert_eq!(preview_index(0.0, 8), 0);
        assert_eq!(preview_index(0.124, 8), 0);
        assert_eq!(preview_index(0.126, 8), 1);
        assert_eq!(preview_index(0.999, 8), 7);
        assert_eq!(preview_index(1.0, 8), 7);
        assert_eq!(preview_index(-1.0, 8), 0);
        assert_eq!(preview_index(0.5, 0), 0);
    }
}
