//! What a Visual DNA is made of once built: the pictures' dominant colours (through
//! `palette`, like Color DNA analysis), a square thumbnail cropped from the first picture,
//! and a generated description and system prompt (docs/SANDBOX.md, "Visual DNA").

use image::imageops::FilterType;
use image::{DynamicImage, RgbImage};

use crate::palette::{self, ImageRef};

/// Side of the square thumbnail.
pub(crate) const THUMB_SIDE_PX: u32 = 256;
/// Pictures are analysed at most this large (the colours do not need more).
const ANALYSIS_LONG_SIDE_PX: u32 = 256;

/// Dominant colours of the pictures, `#RRGGBB`, most populous first, with their names.
pub(crate) fn dominant_colors(images: &[DynamicImage]) -> Vec<(String, String)> {
    let small: Vec<image::RgbaImage> = images
        .iter()
        .map(|image| {
            image
                .resize(
                    ANALYSIS_LONG_SIDE_PX,
                    ANALYSIS_LONG_SIDE_PX,
                    FilterType::Triangle,
                )
                .to_rgba8()
        })
        .collect();
    let refs: Vec<ImageRef<'_>> = small
        .iter()
        .map(|image| ImageRef {
            width: image.width(),
            height: image.height(),
            rgba: image.as_raw(),
        })
        .collect();
    palette::analyze(&refs)
        .colors
        .into_iter()
        .map(|c| (c.hex, c.name))
        .collect()
}

/// A centred square crop of `image`, `THUMB_SIDE_PX` on a side.
pub(crate) fn square_thumbnail(image: &DynamicImage) -> RgbImage {
    image
        .resize_to_fill(THUMB_SIDE_PX, THUMB_SIDE_PX, FilterType::Triangle)
        .to_rgb8()
}

fn type_noun(dna_type: &str) -> &'static str {
    match dna_type {
        "product" => "product",
        "style" => "visual style",
        "environment" => "environment",
        _ => "character",
    }
}

/// "Deep Teal, Sand and Coral".
fn color_phrase(names: &[String]) -> String {
    match names {
        [] => "neutral tones".to_owned(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// A one-paragraph description and the system prompt generations use, from the type,
/// name, prompt helper, picture count and colours.
pub(crate) fn describe(
    name: &str,
    dna_type: &str,
    prompt_helper: Option<&str>,
    image_count: usize,
    colors: &[(String, String)],
) -> (String, String) {
    let noun = type_noun(dna_type);
    let mut names: Vec<String> = Vec::new();
    for (_, color_name) in colors.iter().take(4) {
        if !names.contains(color_name) {
            names.push(color_name.clone());
        }
    }
    let palette_words = color_phrase(&names);
    let hexes: Vec<&str> = colors.iter().take(4).map(|(hex, _)| hex.as_str()).collect();
    let pictures = if image_count == 1 {
        "one reference picture".to_owned()
    } else {
        format!("{image_count} reference pictures")
    };
    let article = if noun.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    let mut description =
        format!("{name}: {article} {noun} learned from {pictures}, dominated by {palette_words}.");
    if let Some(helper) = prompt_helper.filter(|h| !h.trim().is_empty()) {
        description.push_str(&format!(" Notes: {}.", helper.trim().trim_end_matches('.')));
    }
    let mut system_prompt = format!(
        "Keep the {noun} \"{name}\" consistent with its reference pictures. \
         Reproduce its palette ({}) and its defining features in every shot.",
        hexes.join(", ")
    );
    if let Some(helper) = prompt_helper.filter(|h| !h.trim().is_empty()) {
        system_prompt.push_str(&format!(" {}", helper.trim()));
    }
    (description, system_prompt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_follow_the_picture_and_the_thumbnail_is_square() {
        let teal =
            DynamicImage::ImageRgb8(RgbImage::from_pixel(300, 120, image::Rgb([0, 128, 128])));
        let colors = dominant_colors(std::slice::from_ref(&teal));
        assert_eq!(colors.first().map(|c| c.0.as_str()), Some("#008080"));
        assert_eq!(square_thumbnail(&teal).dimensions(), (256, 256));
        let (description, system_prompt) =
            describe("Ava", "character", Some("red scarf"), 1, &colors);
        assert!(description.starts_with("Ava: a character"));
        assert!(description.contains("red scarf"));
        assert!(system_prompt.contains("#008080"));
    }
}
