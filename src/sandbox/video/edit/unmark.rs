//! Removing the sandbox's own corner mark from a source before it is edited.
//!
//! Rule: the mark is looked for once, on the first frame, at exactly where
//! [`Watermark`] draws it for the frame's size; it counts as present when its letter
//! strokes are clearly brighter than the plate between them (a mean luma difference of at
//! least [`MIN_STROKE_CONTRAST`]). Then the plate rectangle, grown by a pixel for the
//! encoder's ringing, is filled from its surroundings on every frame. A source without the
//! mark (not sandbox-made, or rendered without one) is left untouched.

use super::super::watermark::Watermark;
use super::super::yuv::I420;
use super::fill::fill_rect;

/// Levels of luma between the strokes and the plate between them.
const MIN_STROKE_CONTRAST: i64 = 40;
/// Luma the strokes must average at least (white at 7/8 opacity is ~200).
const MIN_STROKE_LUMA: i64 = 140;

/// The rectangle to fill, if the frame carries the mark.
pub(super) struct Unmark {
    /// (left, top, width, height) in luma pixels.
    rect: (usize, usize, usize, usize),
}

impl Unmark {
    /// Looks for the mark on `first` (the source's first frame).
    pub(super) fn detect(first: &I420) -> Option<Self> {
        let mark = Watermark::new(first.width, first.height);
        let (mut lit_sum, mut lit_n, mut dark_sum, mut dark_n) = (0i64, 0i64, 0i64, 0i64);
        for (x, y, lit) in mark.text_pixels() {
            if x >= first.width {
                continue;
            }
            let Some(&luma) = first.y.get(y * first.width + x) else {
                continue;
            };
            if lit {
                lit_sum += i64::from(luma);
                lit_n += 1;
            } else {
                dark_sum += i64::from(luma);
                dark_n += 1;
            }
        }
        if lit_n == 0 || dark_n == 0 {
            return None;
        }
        let (lit, dark) = (lit_sum / lit_n, dark_sum / dark_n);
        (lit >= MIN_STROKE_LUMA && lit - dark >= MIN_STROKE_CONTRAST).then(|| {
            let (left, top, width, height) = mark.plate_rect();
            // One more pixel on each side (two in luma so chroma's 2x2 blocks are covered).
            let (left, top) = (left.saturating_sub(2) & !1, top.saturating_sub(2) & !1);
            let width = (width + 4).next_multiple_of(2).min(first.width - left);
            let height = (height + 4).next_multiple_of(2).min(first.height - top);
            Self {
                rect: (left, top, width, height),
            }
        })
    }

    /// Fills the mark's rectangle from around it, in all three planes.
    pub(super) fn apply(&self, frame: &mut I420) {
        let (left, top, width, height) = self.rect;
        fill_rect(&mut frame.y, frame.width, frame.height, self.rect);
        let (cw, ch) = (frame.chroma_width(), frame.chroma_height());
        let chroma_rect = (left / 2, top / 2, width / 2, height / 2);
        fill_rect(&mut frame.u, cw, ch, chroma_rect);
        fill_rect(&mut frame.v, cw, ch, chroma_rect);
    }

    #[cfg(test)]
    pub(super) fn rect(&self) -> (usize, usize, usize, usize) {
        self.rect
    }
}
