//! sRGB colours, strict hex parsing and the CIELAB conversion used for perceptual distance.

/// An 8-bit sRGB colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rgb {
    pub r: u8,
    pub g: u8,
    pub b: u8,
}

impl Rgb {
    pub const fn new(r: u8, g: u8, b: u8) -> Rgb {
        Rgb { r, g, b }
    }

    /// Parses strict `#RRGGBB` (exactly six hex digits after `#`, case-insensitive).
    /// Shorthand (`#RGB`), alpha (`#RRGGBBAA`), a missing `#` or surrounding spaces are refused,
    /// because the contract's hex rule is exact and the studio validates with this too.
    pub fn from_hex(s: &str) -> Option<Rgb> {
        let digits = s.strip_prefix('#')?;
        if digits.len() != 6 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let channel = |i: usize| u8::from_str_radix(&digits[i..i + 2], 16).ok();
        Some(Rgb {
            r: channel(0)?,
            g: channel(2)?,
            b: channel(4)?,
        })
    }

    /// `#RRGGBB` in upper case.
    pub fn to_hex(&self) -> String {
        format!("#{:02X}{:02X}{:02X}", self.r, self.g, self.b)
    }

    /// CIELAB (D65) coordinates; Euclidean distance between them approximates how different
    /// two colours look (CIE76), which RGB distance does badly for darks and blues.
    pub fn to_lab(self) -> Lab {
        fn linear(c: u8) -> f32 {
            let c = f32::from(c) / 255.0;
            if c <= 0.040_45 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        }
        fn f(t: f32) -> f32 {
            const DELTA: f32 = 6.0 / 29.0;
            if t > DELTA * DELTA * DELTA {
                t.cbrt()
            } else {
                t / (3.0 * DELTA * DELTA) + 4.0 / 29.0
            }
        }
        let (r, g, b) = (linear(self.r), linear(self.g), linear(self.b));
        // sRGB → XYZ, normalised by the D65 white point.
        let x = (0.412_456_4 * r + 0.357_576_1 * g + 0.180_437_5 * b) / 0.950_47;
        let y = 0.212_672_9 * r + 0.715_152_2 * g + 0.072_175 * b;
        let z = (0.019_333_9 * r + 0.119_192 * g + 0.950_304_1 * b) / 1.088_83;
        let (fx, fy, fz) = (f(x), f(y), f(z));
        Lab {
            l: 116.0 * fy - 16.0,
            a: 500.0 * (fx - fy),
            b: 200.0 * (fy - fz),
        }
    }
}

/// A CIELAB colour (L in 0..=100).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lab {
    pub l: f32,
    pub a: f32,
    pub b: f32,
}

impl Lab {
    /// Squared CIE76 ΔE (cheaper than the root for nearest-neighbour searches).
    pub fn distance_sq(self, other: Lab) -> f32 {
        let (dl, da, db) = (self.l - other.l, self.a - other.a, self.b - other.b);
        dl * dl + da * da + db * db
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_in_upper_case() {
        let c = Rgb::from_hex("#1a2B3c").expect("valid hex");
        assert_eq!(c, Rgb::new(0x1A, 0x2B, 0x3C));
        assert_eq!(c.to_hex(), "#1A2B3C");
    }

    #[test]
    fn hex_parsing_is_strict() {
        for bad in [
            "1A2B3C", "#1A2B3", "#1A2B3C4", "#1A2B3G", " #1A2B3C", "#1A2B3C ", "#+1A2B3", "",
        ] {
            assert_eq!(Rgb::from_hex(bad), None, "{bad:?} must be refused");
        }
    }

    #[test]
    fn lab_of_white_and_black_are_the_extremes() {
        let white = Rgb::new(255, 255, 255).to_lab();
        let black = Rgb::new(0, 0, 0).to_lab();
        assert!((white.l - 100.0).abs() < 0.5 && white.a.abs() < 0.5 && white.b.abs() < 0.5);
        assert!(black.l.abs() < 0.5);
    }
}
