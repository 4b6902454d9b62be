//! Model avatars: every bare `avatar` filename in the catalog is served at
//! `{origin}/assets/<file>` (the contract resolves bare filenames against
//! `{base_url}/assets/`). Each is a 64x64 PNG drawn on request: a rounded square in a colour
//! taken from the filename, with the provider's initials in a 5x7 pixel font.

use image::{ImageEncoder, Rgba, RgbaImage};

use super::ids::fnv1a;

pub(crate) const AVATAR_SIDE_PX: u32 = 64;
const CORNER_RADIUS_PX: f32 = 12.0;
/// Screen pixels per font pixel.
const FONT_SCALE: u32 = 4;
const GLYPH_W: u32 = 5;
const GLYPH_H: u32 = 7;

/// Rows of a glyph; the most significant of the low 5 bits is the leftmost pixel.
fn glyph(c: char) -> [u8; 7] {
    match c {
        'A' => [0x0e, 0x11, 0x11, 0x1f, 0x11, 0x11, 0x11],
        'B' => [0x1e, 0x11, 0x11, 0x1e, 0x11, 0x11, 0x1e],
        'C' => [0x0e, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0e],
        'D' => [0x1e, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1e],
        'E' => [0x1f, 0x10, 0x10, 0x1e, 0x10, 0x10, 0x1f],
        'F' => [0x1f, 0x10, 0x10, 0x1e, 0x10, 0x10, 0x10],
        'G' => [0x0e, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0f],
        'H' => [0x11, 0x11, 0x11, 0x1f, 0x11, 0x11, 0x11],
        'I' => [0x0e, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0e],
        'J' => [0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0c],
        'K' => [0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11],
        'L' => [0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1f],
        'M' => [0x11, 0x1b, 0x15, 0x15, 0x11, 0x11, 0x11],
        'N' => [0x11, 0x19, 0x15, 0x13, 0x11, 0x11, 0x11],
        'O' => [0x0e, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0e],
        'P' => [0x1e, 0x11, 0x11, 0x1e, 0x10, 0x10, 0x10],
        'Q' => [0x0e, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0d],
        'R' => [0x1e, 0x11, 0x11, 0x1e, 0x14, 0x12, 0x11],
        'S' => [0x0f, 0x10, 0x10, 0x0e, 0x01, 0x01, 0x1e],
        'T' => [0x1f, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04],
        'U' => [0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0e],
        'V' => [0x11, 0x11, 0x11, 0x11, 0x11, 0x0a, 0x04],
        'W' => [0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0a],
        'X' => [0x11, 0x11, 0x0a, 0x04, 0x0a, 0x11, 0x11],
        'Y' => [0x11, 0x11, 0x0a, 0x04, 0x04, 0x04, 0x04],
        'Z' => [0x1f, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1f],
        '0' => [0x0e, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0e],
        '1' => [0x04, 0x0c, 0x04, 0x04, 0x04, 0x04, 0x0e],
        '2' => [0x0e, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1f],
        '3' => [0x1f, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0e],
        '4' => [0x02, 0x06, 0x0a, 0x12, 0x1f, 0x02, 0x02],
        '5' => [0x1f, 0x10, 0x1e, 0x01, 0x01, 0x11, 0x0e],
        '6' => [0x06, 0x08, 0x10, 0x1e, 0x11, 0x11, 0x0e],
        '7' => [0x1f, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        '8' => [0x0e, 0x11, 0x11, 0x0e, 0x11, 0x11, 0x0e],
        '9' => [0x0e, 0x11, 0x11, 0x0f, 0x01, 0x02, 0x0c],
        _ => [0; 7],
    }
}

/// Up to two initials: the first letters of the first two words (`black-forest-labs` ->
/// `BF`), or the first two letters of a single word (`openai` -> `OP`).
pub(crate) fn initials(provider: &str) -> String {
    let words: Vec<&str> = provider
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let picked: String = match words.as_slice() {
        [] => "?".into(),
        [one] => one.chars().take(2).collect(),
        [first, second, ..] => first
            .chars()
            .take(1)
            .chain(second.chars().take(1))
            .collect(),
    };
    picked.to_ascii_uppercase()
}

/// A saturated, mid-dark colour chosen by the filename (white text stays readable).
fn colour_for(file: &str) -> [u8; 3] {
    let hue = (fnv1a(file.as_bytes()) % 360) as f32;
    let (s, l) = (0.55f32, 0.42f32);
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let x = c * (1.0 - ((hue / 60.0) % 2.0 - 1.0).abs());
    let m = l - c / 2.0;
    let (r, g, b) = match (hue / 60.0) as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    [r, g, b].map(|v| ((v + m) * 255.0).round() as u8)
}

/// Coverage (0-1) of the rounded square at a pixel centre, anti-aliased over one pixel.
fn square_coverage(x: u32, y: u32) -> f32 {
    let side = AVATAR_SIDE_PX as f32;
    let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
    let r = CORNER_RADIUS_PX;
    let cx = px.clamp(r, side - r);
    let cy = py.clamp(r, side - r);
    let d = ((px - cx).powi(2) + (py - cy).powi(2)).sqrt();
    (r - d + 0.5).clamp(0.0, 1.0)
}

/// The avatar image for `file` with the initials of `provider`.
pub(crate) fn render(file: &str, provider: &str) -> RgbaImage {
    let [r, g, b] = colour_for(file);
    let mut image = RgbaImage::from_fn(AVATAR_SIDE_PX, AVATAR_SIDE_PX, |x, y| {
        Rgba([r, g, b, (square_coverage(x, y) * 255.0).round() as u8])
    });
    let text: Vec<char> = initials(provider).chars().collect();
    let count = text.len() as u32;
    let gap = FONT_SCALE;
    let text_w = count * GLYPH_W * FONT_SCALE + count.saturating_sub(1) * gap;
    let left = (AVATAR_SIDE_PX - text_w) / 2;
    let top = (AVATAR_SIDE_PX - GLYPH_H * FONT_SCALE) / 2;
    for (index, c) in text.iter().enumerate() {
        let rows = glyph(*c);
        let x0 = left + index as u32 * (GLYPH_W * FONT_SCALE + gap);
        for (row, bits) in rows.iter().enumerate() {
            for col in 0..GLYPH_W {
                if bits & (1 << (GLYPH_W - 1 - col)) == 0 {
                    continue;
                }
                for dy in 0..FONT_SCALE {
                    for dx in 0..FONT_SCALE {
                        let x = x0 + col * FONT_SCALE + dx;
                        let y = top + row as u32 * FONT_SCALE + dy;
                        image.put_pixel(x, y, Rgba([255, 255, 255, 255]));
                    }
                }
            }
        }
    }
    image
}

/// PNG bytes of the avatar.
pub(crate) fn png(file: &str, provider: &str) -> Result<Vec<u8>, image::ImageError> {
    let image = render(file, provider);
    let mut bytes = Vec::new();
    image::codecs::png::PngEncoder::new(&mut bytes).write_image(
        image.as_raw(),
        image.width(),
        image.height(),
        image::ExtendedColorType::Rgba8,
    )?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initials_come_from_the_provider_words() {
        assert_eq!(initials("black-forest-labs"), "BF");
        assert_eq!(initials("openai"), "OP");
        assert_eq!(initials(""), "?");
    }

    #[test]
    fn avatars_are_deterministic_rounded_squares() {
        let a = render("luma.png", "luma");
        assert_eq!(a.dimensions(), (AVATAR_SIDE_PX, AVATAR_SIDE_PX));
        assert_eq!(a.get_pixel(0, 0)[3], 0, "corners are rounded off");
        assert_eq!(a.get_pixel(32, 4)[3], 255);
        assert_eq!(a, render("luma.png", "luma"));
    }
}
