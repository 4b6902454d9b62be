//! I420 frames (BT.601 limited range, the encoder's input format) and conversions.
//!
//! Frames are composed directly in I420 because that is what the encoder eats: the heavy
//! RGB to YUV step happens once per canvas (in openh264's SIMD converter), and each frame
//! then costs about 1.5 bytes per pixel of simple integer work.

use image::RgbImage;
use openh264::formats::{RgbSliceU8, RgbaSliceU8, YUVBuffer, YUVSource};

use super::VideoError;
use super::palette::Rgbf;

/// A planar 4:2:0 picture with tightly packed planes; width and height are even.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct I420 {
    pub width: usize,
    pub height: usize,
    pub y: Vec<u8>,
    pub u: Vec<u8>,
    pub v: Vec<u8>,
}

/// One colour as limited-range Y, Cb, Cr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Yuv {
    pub y: u8,
    pub u: u8,
    pub v: u8,
}

impl Yuv {
    /// Same coefficients as openh264's RGB converter, so shapes drawn in YUV match the canvas.
    pub(super) fn from_rgbf(c: Rgbf) -> Self {
        let [r, g, b] = c.map(|v| v.clamp(0.0, 1.0) * 255.0);
        let y = 0.2578125 * r + 0.50390625 * g + 0.09765625 * b + 16.0;
        let u = -0.1484375 * r - 0.2890625 * g + 0.4375 * b + 128.0;
        let v = 0.4375 * r - 0.3671875 * g - 0.0703125 * b + 128.0;
        Self {
            y: y.round().clamp(0.0, 255.0) as u8,
            u: u.round().clamp(0.0, 255.0) as u8,
            v: v.round().clamp(0.0, 255.0) as u8,
        }
    }

    pub(super) fn lerp(a: Self, b: Self, weight: u32) -> Self {
        let mix =
            |x: u8, y: u8| ((u32::from(x) * (256 - weight) + u32::from(y) * weight) >> 8) as u8;
        Self {
            y: mix(a.y, b.y),
            u: mix(a.u, b.u),
            v: mix(a.v, b.v),
        }
    }
}

impl I420 {
    /// A black frame. Callers keep sizes even (see `super::normalise`).
    pub(super) fn new(width: usize, height: usize) -> Self {
        Self {
            width,
            height,
            y: vec![16; width * height],
            u: vec![128; (width / 2) * (height / 2)],
            v: vec![128; (width / 2) * (height / 2)],
        }
    }

    pub(super) fn chroma_width(&self) -> usize {
        self.width / 2
    }

    pub(super) fn chroma_height(&self) -> usize {
        self.height / 2
    }

    /// RGB to I420 with openh264's converter (SIMD where the CPU has it).
    pub(super) fn from_rgb(image: &RgbImage) -> Result<Self, VideoError> {
        let (width, height) = image.dimensions();
        if width == 0 || height == 0 || width % 2 == 1 || height % 2 == 1 {
            return Err(VideoError::InvalidSize { width, height });
        }
        let (w, h) = (width as usize, height as usize);
        let mut buffer = YUVBuffer::new(w, h);
        buffer.read_rgb8(RgbSliceU8::new(image.as_raw(), (w, h)));
        Ok(Self::from_source(&buffer))
    }

    /// RGBA (a decoded frame) to I420 with openh264's converter; alpha is ignored.
    pub(super) fn from_rgba(width: u32, height: u32, rgba: &[u8]) -> Result<Self, VideoError> {
        let (w, h) = (width as usize, height as usize);
        if w == 0 || h == 0 || w % 2 == 1 || h % 2 == 1 || rgba.len() != w * h * 4 {
            return Err(VideoError::InvalidSize { width, height });
        }
        let mut buffer = YUVBuffer::new(w, h);
        buffer.read_rgba8(RgbaSliceU8::new(rgba, (w, h)));
        Ok(Self::from_source(&buffer))
    }

    /// Copies any YUV source with even size into tightly packed planes.
    fn from_source(source: &impl YUVSource) -> Self {
        let (w, h) = source.dimensions();
        let (sy, su, sv) = source.strides();
        let mut out = Self::new(w, h);
        let (cw, ch) = (w / 2, h / 2);
        for row in 0..h {
            out.y[row * w..][..w].copy_from_slice(&source.y()[row * sy..][..w]);
        }
        for row in 0..ch {
            out.u[row * cw..][..cw].copy_from_slice(&source.u()[row * su..][..cw]);
            out.v[row * cw..][..cw].copy_from_slice(&source.v()[row * sv..][..cw]);
        }
        out
    }

    /// Back to RGB (BT.601 limited range), for the poster.
    pub(super) fn to_rgb(&self) -> RgbImage {
        let (w, h) = (self.width, self.height);
        let cw = self.chroma_width();
        let mut rgb = vec![0u8; w * h * 3];
        for row in 0..h {
            let y_row = &self.y[row * w..][..w];
            let u_row = &self.u[(row / 2) * cw..][..cw];
            let v_row = &self.v[(row / 2) * cw..][..cw];
            let out = &mut rgb[row * w * 3..][..w * 3];
            let mut x = 0;
            while x < w {
                let c = 298 * (i32::from(y_row[x]) - 16);
                let d = i32::from(u_row[x / 2]) - 128;
                let e = i32::from(v_row[x / 2]) - 128;
                out[x * 3] = ((c + 409 * e + 128) >> 8).clamp(0, 255) as u8;
                out[x * 3 + 1] = ((c - 100 * d - 208 * e + 128) >> 8).clamp(0, 255) as u8;
                out[x * 3 + 2] = ((c + 516 * d + 128) >> 8).clamp(0, 255) as u8;
                x += 1;
            }
        }
        // The buffer has exactly w * h * 3 bytes, so this cannot fail.
        RgbImage::from_raw(self.width as u32, self.height as u32, rgb).unwrap_or_default()
    }
}

impl YUVSource for I420 {
    fn dimensions(&self) -> (usize, usize) {
        (self.width, self.height)
    }

    fn strides(&self) -> (usize, usize, usize) {
        (self.width, self.width / 2, self.width / 2)
    }

    fn y(&self) -> &[u8] {
        &self.y
    }

    fn u(&self) -> &[u8] {
        &self.u
    }

    fn v(&self) -> &[u8] {
        &self.v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rgb_round_trip_is_close() {
        let image = RgbImage::from_fn(8, 6, |x, y| {
            image::Rgb([(x * 8) as u8, (y * 10) as u8, 128])
        });
        let frame = I420::from_rgb(&image).unwrap();
        let back = frame.to_rgb();
        // Chroma is shared by 2x2 blocks; a smooth ramp comes back within a few levels.
        for (a, b) in image.pixels().zip(back.pixels()) {
            for c in 0..3 {
                assert!(
                    (i32::from(a[c]) - i32::from(b[c])).abs() <= 24,
                    "{a:?} {b:?}"
                );
            }
        }
        assert!(I420::from_rgb(&RgbImage::new(7, 6)).is_err());
    }

    #[test]
    fn yuv_of_a_colour_matches_the_converter() {
        let image = RgbImage::from_pixel(4, 4, image::Rgb([200, 60, 30]));
        let frame = I420::from_rgb(&image).unwrap();
        let c = Yuv::from_rgbf([200.0 / 255.0, 60.0 / 255.0, 30.0 / 255.0]);
        assert!((i32::from(frame.y[0]) - i32::from(c.y)).abs() <= 1);
        assert!((i32::from(frame.u[0]) - i32::from(c.u)).abs() <= 1);
        assert!((i32::from(frame.v[0]) - i32::from(c.v)).abs() <= 1);
    }
}
