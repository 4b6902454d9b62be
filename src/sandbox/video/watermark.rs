//! The sandbox watermark: "SANDBOX" in a 5x7 pixel font, white on a translucent dark plate,
//! in the bottom-right corner, scaled with the frame (1 font pixel per 240 px of the short side).

use super::compose::{ONE, Sprite, blend_sprite};
use super::yuv::{I420, Yuv};

const TEXT: &[u8] = b"SANDBOX";
const GLYPH_W: usize = 5;
const GLYPH_H: usize = 7;

/// Rows of a glyph, most significant of the low 5 bits is the leftmost pixel.
fn glyph(c: u8) -> [u8; GLYPH_H] {
    match c {
        b'S' => [0x0f, 0x10, 0x10, 0x0e, 0x01, 0x01, 0x1e],
        b'A' => [0x0e, 0x11, 0x11, 0x1f, 0x11, 0x11, 0x11],
        b'N' => [0x11, 0x19, 0x15, 0x13, 0x11, 0x11, 0x11],
        b'D' => [0x1e, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1e],
        b'B' => [0x1e, 0x11, 0x11, 0x1e, 0x11, 0x11, 0x1e],
        b'O' => [0x0e, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0e],
        b'X' => [0x11, 0x11, 0x0a, 0x04, 0x0a, 0x11, 0x11],
        _ => [0; GLYPH_H],
    }
}

pub(super) struct Watermark {
    plate: Sprite,
    text: Sprite,
    plate_at: (i64, i64),
    text_at: (i64, i64),
}

impl Watermark {
    pub(super) fn new(width: usize, height: usize) -> Self {
        let scale = (width.min(height) as f32 / 240.0).round().max(1.0) as usize;
        let text_w = (TEXT.len() * (GLYPH_W + 1) - 1) * scale;
        let text_h = GLYPH_H * scale;
        let mut alpha = vec![0u8; text_w * text_h];
        for (i, &c) in TEXT.iter().enumerate() {
            for (row, bits) in glyph(c).iter().enumerate() {
                for col in 0..GLYPH_W {
                    if bits & (0x10 >> col) == 0 {
                        continue;
                    }
                    let x0 = (i * (GLYPH_W + 1) + col) * scale;
                    for dy in 0..scale {
                        let start = (row * scale + dy) * text_w + x0;
                        alpha[start..start + scale].fill(255);
                    }
                }
            }
        }
        let pad = 2 * scale;
        let (plate_w, plate_h) = (text_w + 2 * pad, text_h + 2 * pad);
        let margin = 3 * scale;
        let plate_x = width.saturating_sub(plate_w + margin) as i64;
        let plate_y = height.saturating_sub(plate_h + margin) as i64;
        Self {
            plate: Sprite::from_alpha(plate_w, plate_h, vec![255; plate_w * plate_h]),
            text: Sprite::from_alpha(text_w, text_h, alpha),
            plate_at: (plate_x, plate_y),
            text_at: (plate_x + pad as i64, plate_y + pad as i64),
        }
    }

    /// Where the dark plate lies: (left, top, width, height) in luma pixels, clipped to the
    /// frame it was made for. Edits fill exactly this to remove a mark.
    pub(super) fn plate_rect(&self) -> (usize, usize, usize, usize) {
        (
            self.plate_at.0.max(0) as usize,
            self.plate_at.1.max(0) as usize,
            self.plate.width,
            self.plate.height,
        )
    }

    /// The letters' pixels, as absolute frame positions: (x, y, lit). Lit pixels are the
    /// white strokes; the rest of the text box is plate only.
    pub(super) fn text_pixels(&self) -> impl Iterator<Item = (usize, usize, bool)> + '_ {
        let (left, top) = (
            self.text_at.0.max(0) as usize,
            self.text_at.1.max(0) as usize,
        );
        let width = self.text.width;
        self.text
            .alpha()
            .iter()
            .enumerate()
            .map(move |(i, &a)| (left + i % width, top + i / width, a > 0))
    }

    pub(super) fn apply(&self, frame: &mut I420) {
        let black = Yuv {
            y: 16,
            u: 128,
            v: 128,
        };
        let white = Yuv {
            y: 235,
            u: 128,
            v: 128,
        };
        blend_sprite(
            frame,
            &self.plate,
            self.plate_at.0,
            self.plate_at.1,
            black,
            ONE / 2,
        );
        blend_sprite(
            frame,
            &self.text,
            self.text_at.0,
            self.text_at.1,
            white,
            ONE * 7 / 8,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watermark_marks_only_the_bottom_right() {
        let mut frame = I420::new(320, 180);
        frame.y.fill(128);
        Watermark::new(320, 180).apply(&mut frame);
        let changed: Vec<(usize, usize)> = (0..180)
            .flat_map(|y| (0..320).map(move |x| (x, y)))
            .filter(|&(x, y)| frame.y[y * 320 + x] != 128)
            .collect();
        assert!(!changed.is_empty());
        assert!(changed.iter().all(|&(x, y)| x > 320 - 60 && y > 180 - 20));
        assert!(frame.y.iter().any(|&p| p > 200), "white text");
    }
}
