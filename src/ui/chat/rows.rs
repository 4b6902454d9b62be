//! The message list's virtualisation maths (no egui): each message's height measured the
//! last time it was laid out, keyed by (message index, width), estimates for the ones never
//! laid out at that width, the rows' top edges, and which rows a viewport shows.
//!
//! Only visible rows are laid out, so a conversation of thousands of messages costs what
//! its visible rows cost; the rest are a spacer of their (measured or estimated) height.

use std::ops::Range;

/// Vertical gap between two messages, in points.
pub const ROW_GAP: f32 = 14.0;

/// Widths are compared in whole points (sub-point changes re-measure nothing).
fn width_key(width: f32) -> u32 {
    width.max(0.0).round() as u32
}

/// Measured heights by message index, each valid for the width it was measured at.
#[derive(Clone, Debug, Default)]
pub struct HeightCache {
    /// `entries[i]`: message `i`'s last measurement (width key, height).
    entries: Vec<Option<(u32, f32)>>,
    /// `estimates[i]`: message `i`'s estimate (width key, height), so the rows never laid
    /// out are not counted character by character every frame.
    estimates: Vec<Option<(u32, f32)>>,
}

impl HeightCache {
    /// The height measured for message `index` at `width`, if it was.
    pub fn get(&self, index: usize, width: f32) -> Option<f32> {
        match self.entries.get(index).copied().flatten() {
            Some((key, height)) if key == width_key(width) => Some(height),
            _ => None,
        }
    }

    /// The last height measured for `index` at any width (a better guess than counting
    /// characters after the window was resized).
    pub fn any_width(&self, index: usize) -> Option<f32> {
        self.entries.get(index).copied().flatten().map(|(_, h)| h)
    }

    pub fn insert(&mut self, index: usize, width: f32, height: f32) {
        if self.entries.len() <= index {
            self.entries.resize(index + 1, None);
        }
        self.entries[index] = Some((width_key(width), height));
    }

    /// The height to assume for message `index` at `width`: measured at this width, else
    /// measured at another, else `estimate()` (kept for this width).
    pub fn height_or_estimate(
        &mut self,
        index: usize,
        width: f32,
        estimate: impl FnOnce() -> f32,
    ) -> f32 {
        if let Some(height) = self.get(index, width).or_else(|| self.any_width(index)) {
            return height;
        }
        let key = width_key(width);
        if let Some(Some((k, height))) = self.estimates.get(index)
            && *k == key
        {
            return *height;
        }
        let height = estimate();
        if self.estimates.len() <= index {
            self.estimates.resize(index + 1, None);
        }
        self.estimates[index] = Some((key, height));
        height
    }

    /// Forget message `index` (its text changed).
    pub fn invalidate(&mut self, index: usize) {
        if let Some(entry) = self.entries.get_mut(index) {
            *entry = None;
        }
        if let Some(entry) = self.estimates.get_mut(index) {
            *entry = None;
        }
    }

    /// Forget everything (another conversation).
    pub fn clear(&mut self) {
        self.entries.clear();
        self.estimates.clear();
    }

    /// How many messages have a measurement at `width` (tests, the benchmark).
    pub fn measured_at(&self, width: f32) -> usize {
        let key = width_key(width);
        self.entries
            .iter()
            .filter(|e| e.is_some_and(|(k, _)| k == key))
            .count()
    }
}

/// A first guess at a message's height before it was laid out: its lines wrapped at
/// `width` at an average character width, plus the bubble's padding and footer.
pub fn estimate_height(text: &str, width: f32) -> f32 {
    const LINE_HEIGHT: f32 = 19.0;
    const AVERAGE_CHAR_WIDTH: f32 = 7.2;
    const BUBBLE_CHROME: f32 = 44.0;
    let chars_per_line = ((width - 40.0) / AVERAGE_CHAR_WIDTH).max(10.0) as usize;
    let lines: usize = text
        .lines()
        .map(|line| line.chars().count().div_ceil(chars_per_line).max(1))
        .sum();
    lines.max(1) as f32 * LINE_HEIGHT + BUBBLE_CHROME
}

/// The rows' top edges in content coordinates (`tops[i]`), plus the total height as the
/// last entry. `heights[i]` is row `i`'s height; rows are separated by [`ROW_GAP`].
pub fn row_tops(heights: impl IntoIterator<Item = f32>) -> Vec<f32> {
    let mut tops = vec![0.0];
    let mut y = 0.0;
    for height in heights {
        y += height + ROW_GAP;
        tops.push(y);
    }
    tops
}

/// Content height of the rows whose tops are `tops` (without the trailing gap).
pub fn total_height(tops: &[f32]) -> f32 {
    match tops.len() {
        0 | 1 => 0.0,
        _ => tops[tops.len() - 1] - ROW_GAP,
    }
}

/// The rows that intersect `visible` (content coordinates), given their tops.
pub fn visible_rows(tops: &[f32], visible: Range<f32>) -> Range<usize> {
    let rows = tops.len().saturating_sub(1);
    if rows == 0 {
        return 0..0;
    }
    // First row whose bottom edge (next top minus the gap) is below the viewport's top.
    let first = tops[1..].partition_point(|next_top| next_top - ROW_GAP <= visible.start);
    // First row starting at or below the viewport's bottom.
    let end = tops[..rows].partition_point(|top| *top < visible.end);
    first.min(rows)..end.max(first.min(rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heights_are_kept_per_width() {
        let mut cache = HeightCache::default();
        cache.insert(3, 600.2, 120.0);
        assert_eq!(cache.get(3, 600.0), Some(120.0), "sub-point width change");
        assert_eq!(cache.get(3, 640.0), None, "another width");
        assert_eq!(cache.any_width(3), Some(120.0));
        assert_eq!(cache.get(2, 600.0), None);
        assert_eq!(cache.get(99, 600.0), None);
        cache.insert(3, 640.0, 100.0);
        assert_eq!(cache.get(3, 640.0), Some(100.0));
        assert_eq!(
            cache.get(3, 600.0),
            None,
            "the newer width replaced the older"
        );
        assert_eq!(cache.measured_at(640.0), 1);
        cache.invalidate(3);
        assert_eq!(cache.any_width(3), None);
        cache.insert(0, 640.0, 10.0);
        cache.clear();
        assert_eq!(cache.get(0, 640.0), None);
    }

    #[test]
    fn estimates_are_made_once_per_width_and_give_way_to_measurements() {
        let mut cache = HeightCache::default();
        let mut made = 0;
        for _ in 0..3 {
            let height = cache.height_or_estimate(5, 600.0, || {
                made += 1;
                80.0
            });
            assert_eq!(height, 80.0);
        }
        assert_eq!(made, 1, "estimated once");
        assert_eq!(
            cache.height_or_estimate(5, 700.0, || 60.0),
            60.0,
            "new width"
        );
        cache.insert(5, 700.0, 95.0);
        assert_eq!(cache.height_or_estimate(5, 700.0, || unreachable!()), 95.0);
        assert_eq!(
            cache.height_or_estimate(5, 650.0, || unreachable!()),
            95.0,
            "a measurement at another width beats counting characters"
        );
        cache.invalidate(5);
        assert_eq!(cache.height_or_estimate(5, 700.0, || 42.0), 42.0);
    }

    #[test]
    fn estimates_grow_with_text_and_shrink_with_width() {
        let short = estimate_height("hello", 600.0);
        let long = estimate_height(&"word ".repeat(400), 600.0);
        assert!(long > short * 5.0, "{short} {long}");
        assert!(estimate_height(&"word ".repeat(400), 1200.0) < long);
        assert!(estimate_height("a\nb\nc", 600.0) > short);
        assert!(estimate_height("", 600.0) > 0.0);
    }

    #[test]
    fn tops_and_total() {
        let tops = row_tops([10.0, 20.0, 30.0]);
        assert_eq!(
            tops,
            vec![
                0.0,
                10.0 + ROW_GAP,
                30.0 + 2.0 * ROW_GAP,
                60.0 + 3.0 * ROW_GAP
            ]
        );
        assert_eq!(total_height(&tops), 60.0 + 2.0 * ROW_GAP);
        assert_eq!(total_height(&row_tops([])), 0.0);
    }

    #[test]
    fn visible_rows_cover_exactly_the_viewport() {
        // Ten rows of 100 with gaps: row i spans [i*(100+G), i*(100+G)+100).
        let tops = row_tops(std::iter::repeat_n(100.0, 10));
        let step = 100.0 + ROW_GAP;
        assert_eq!(visible_rows(&tops, 0.0..1.0), 0..1);
        assert_eq!(visible_rows(&tops, 0.0..step * 2.0), 0..2);
        assert_eq!(visible_rows(&tops, 0.0..step * 2.0 + 1.0), 0..3);
        // The viewport's top inside row 3's gap: row 3 is above it.
        assert_eq!(
            visible_rows(&tops, step * 3.0 + 105.0..step * 4.0 + 50.0),
            4..5
        );
        assert_eq!(
            visible_rows(&tops, step * 3.0 + 50.0..step * 3.0 + 60.0),
            3..4
        );
        // Past the end and before the start.
        assert_eq!(visible_rows(&tops, step * 20.0..step * 21.0), 10..10);
        assert_eq!(visible_rows(&tops, -500.0..-10.0), 0..0);
        assert_eq!(visible_rows(&row_tops([]), 0.0..100.0), 0..0);
    }

    #[test]
    fn two_thousand_rows_find_their_window_by_bisection() {
        let heights: Vec<f32> = (0..2000).map(|i| 40.0 + (i % 7) as f32 * 30.0).collect();
        let tops = row_tops(heights.iter().copied());
        let middle = tops[1000] + 1.0;
        let rows = visible_rows(&tops, middle..middle + 800.0);
        assert_eq!(rows.start, 1000);
        assert!(rows.len() > 3 && rows.len() < 30, "{rows:?}");
        // Every row in the window intersects it; the neighbours do not.
        for i in rows.clone() {
            assert!(tops[i] < middle + 800.0 && tops[i] + heights[i] > middle);
        }
        assert!(tops[rows.start - 1] + heights[rows.start - 1] <= middle);
        assert!(tops[rows.end] >= middle + 800.0);
    }
}
