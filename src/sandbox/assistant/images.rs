//! What the assistant knows about an attached image: its size and its dominant colours,
//! extracted and named with the shared `crate::palette` code (the same colours the Color
//! DNA analysis would give), and the sentence that describes them.

use crate::palette::{ImageRef, extract_swatches, nearest_name};

/// Colours named per image; three read well in one sentence.
const DOMINANT_COLOURS: usize = 3;

/// A colour of an image with its nearest built-in name, e.g. `Teal` / `#008080`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NamedColour {
    pub name: String,
    /// `#RRGGBB`, upper case.
    pub hex: String,
}

/// The facts the assistant describes: pixel size and dominant colours (most common first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ImageFacts {
    pub width: u32,
    pub height: u32,
    pub dominant: Vec<NamedColour>,
}

impl ImageFacts {
    /// Facts of a decoded RGBA8 image (`rgba.len() == width * height * 4`). Transparent
    /// pixels do not count towards the colours.
    pub(crate) fn from_rgba(width: u32, height: u32, rgba: &[u8]) -> ImageFacts {
        let swatches = extract_swatches(
            &[ImageRef {
                width,
                height,
                rgba,
            }],
            DOMINANT_COLOURS,
        );
        let dominant = swatches
            .iter()
            .map(|swatch| NamedColour {
                name: nearest_name(swatch.rgb).to_owned(),
                hex: swatch.rgb.to_hex(),
            })
            .collect();
        ImageFacts {
            width,
            height,
            dominant,
        }
    }

    /// Facts of any decoded image.
    pub(crate) fn from_image(image: &image::DynamicImage) -> ImageFacts {
        let rgba = image.to_rgba8();
        ImageFacts::from_rgba(rgba.width(), rgba.height(), rgba.as_raw())
    }
}

/// "1920 × 1080 px (landscape, 16:9)"
pub(super) fn size_phrase(facts: &ImageFacts) -> String {
    let (width, height) = (facts.width, facts.height);
    let orientation = match width.cmp(&height) {
        std::cmp::Ordering::Greater => "landscape",
        std::cmp::Ordering::Less => "portrait",
        std::cmp::Ordering::Equal => "square",
    };
    format!(
        "{width} × {height} px ({orientation}, {})",
        aspect_ratio(width, height)
    )
}

/// A reduced ratio when it is a familiar one ("16:9", "3:2"), else a decimal ("1.50:1").
fn aspect_ratio(width: u32, height: u32) -> String {
    if width == 0 || height == 0 {
        return "no area".to_owned();
    }
    let divisor = gcd(width, height);
    let (w, h) = (width / divisor, height / divisor);
    if w <= 32 && h <= 32 {
        format!("{w}:{h}")
    } else {
        format!("{:.2}:1", f64::from(width) / f64::from(height))
    }
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// "Teal (`#008080`), Sand (`#C2B280`) and Charcoal (`#36454F`)"
pub(super) fn colour_phrase(colours: &[NamedColour]) -> String {
    let named: Vec<String> = colours
        .iter()
        .map(|colour| format!("{} (`{}`)", colour.name, colour.hex))
        .collect();
    match named.as_slice() {
        [] => "no opaque colour at all (it is fully transparent)".to_owned(),
        [only] => format!("{only} throughout"),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// One sentence per image: "The attached image is **… px** (…); its dominant colours are …."
pub(super) fn describe(images: &[ImageFacts]) -> String {
    let one = |facts: &ImageFacts, label: &str| {
        let colours = if facts.dominant.len() == 1 {
            format!("it is dominated by {}", colour_phrase(&facts.dominant))
        } else {
            format!(
                "its dominant colours are {}",
                colour_phrase(&facts.dominant)
            )
        };
        format!("{label} is **{}**; {colours}.", size_phrase(facts))
    };
    match images {
        [] => String::new(),
        [only] => one(only, "The attached image"),
        many => many
            .iter()
            .enumerate()
            .map(|(index, facts)| one(facts, &format!("Image {}", index + 1)))
            .collect::<Vec<_>>()
            .join(" "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_name_the_dominant_colours_most_common_first() {
        let mut rgba = Vec::new();
        for i in 0..200u32 {
            let pixel: [u8; 4] = if i < 140 {
                [0, 128, 128, 255]
            } else {
                [194, 178, 128, 255]
            };
            rgba.extend_from_slice(&pixel);
        }
        let facts = ImageFacts::from_rgba(20, 10, &rgba);
        assert_eq!((facts.width, facts.height), (20, 10));
        assert_eq!(facts.dominant[0].name, "Teal");
        assert_eq!(facts.dominant[0].hex, "#008080");
        assert_eq!(facts.dominant[1].name, "Sand");
        let sentence = describe(&[facts]);
        assert!(
            sentence.contains("20 × 10 px (landscape, 2:1)"),
            "{sentence}"
        );
        assert!(sentence.contains("Teal (`#008080`) and Sand"), "{sentence}");
    }

    #[test]
    fn unusual_ratios_are_decimal() {
        assert_eq!(aspect_ratio(1920, 1080), "16:9");
        assert_eq!(aspect_ratio(1000, 872), "1.15:1");
        assert_eq!(aspect_ratio(512, 512), "1:1");
    }
}
