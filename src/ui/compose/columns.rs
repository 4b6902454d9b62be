//! Create's two columns (form | results): how wide the form is. The width follows the
//! window (a share of it by default, or what the artist dragged the splitter to), never
//! the content, so a job starting or the job tray opening does not re-flow the form.

use std::ops::RangeInclusive;

/// Narrowest the form column gets beside the results.
pub const FORM_MIN_WIDTH: f32 = 280.0;
/// Widest default form: a comfortable line length for the prompt on a large screen.
pub const FORM_DEFAULT_MAX_WIDTH: f32 = 640.0;
/// Widest the artist can drag the form.
pub const FORM_MAX_WIDTH: f32 = 960.0;
/// The form's default share of the window's width.
const FORM_DEFAULT_SHARE: f32 = 0.3;
/// The most of the window's width the artist can give the form.
const FORM_MAX_SHARE: f32 = 0.55;
/// Space between the form column and the results (the splitter sits in it).
pub const COLUMN_GAP: f32 = 16.0;

/// The form's width when the artist has not chosen one, for a window `window_width` wide.
pub fn default_form_width(window_width: f32) -> f32 {
    // Whole points, so the column's edge sits on a pixel.
    (window_width * FORM_DEFAULT_SHARE)
        .round()
        .clamp(FORM_MIN_WIDTH, FORM_DEFAULT_MAX_WIDTH)
}

/// The widths the splitter allows in a window `window_width` wide.
pub fn form_width_range(window_width: f32) -> RangeInclusive<f32> {
    FORM_MIN_WIDTH
        ..=(window_width * FORM_MAX_SHARE)
            .round()
            .clamp(FORM_MIN_WIDTH, FORM_MAX_WIDTH)
}

/// The form column's width in a view `available_width` wide (`None`: too narrow for two
/// columns, the results go under the form). `chosen` is the splitter's width, if dragged;
/// the results keep at least `canvas_min_width`.
pub fn form_width(
    chosen: Option<f32>,
    window_width: f32,
    available_width: f32,
    canvas_min_width: f32,
) -> Option<f32> {
    let range = form_width_range(window_width);
    let wanted = chosen
        .unwrap_or_else(|| default_form_width(window_width))
        .clamp(*range.start(), *range.end());
    // Only when the window is too small for both does the form give way to the results.
    let room = available_width - COLUMN_GAP - canvas_min_width;
    (room >= FORM_MIN_WIDTH).then(|| wanted.min(room))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CANVAS_MIN: f32 = 268.0;

    #[test]
    fn the_form_does_not_follow_the_space_beside_it() {
        // 1440 window: tray closed, default tray, a wide tray.
        let widths: Vec<_> = [1300.0, 1000.0, 760.0]
            .into_iter()
            .map(|available| form_width(None, 1440.0, available, CANVAS_MIN))
            .collect();
        assert_eq!(widths, vec![Some(default_form_width(1440.0)); 3]);
        assert!((default_form_width(1440.0) - 432.0).abs() < 0.01);
    }

    #[test]
    fn the_form_scales_with_the_window_within_limits() {
        assert!((default_form_width(960.0) - 288.0).abs() < 0.01);
        assert_eq!(default_form_width(2560.0), FORM_DEFAULT_MAX_WIDTH);
        assert_eq!(default_form_width(600.0), FORM_MIN_WIDTH);
    }

    #[test]
    fn a_dragged_width_is_kept_within_the_window_and_leaves_the_results_room() {
        assert_eq!(
            form_width(Some(500.0), 1440.0, 1200.0, CANVAS_MIN),
            Some(500.0)
        );
        assert_eq!(
            form_width(Some(5000.0), 1440.0, 1400.0, CANVAS_MIN),
            Some(792.0)
        );
        assert_eq!(
            form_width(Some(100.0), 1440.0, 1200.0, CANVAS_MIN),
            Some(280.0)
        );
        assert_eq!(
            form_width(Some(700.0), 1440.0, 900.0, CANVAS_MIN),
            Some(900.0 - COLUMN_GAP - CANVAS_MIN)
        );
        assert_eq!(form_width(None, 960.0, 500.0, CANVAS_MIN), None, "stacked");
    }
}
