//! Colour maths shared by the studio and the sandbox (Color DNA): strict hex colours,
//! median-cut extraction from images, nearest built-in colour names, roles and the
//! plain-language grading directive. No egui, no I/O: callers decode images themselves.
//!
//! The studio's instant local preview and the sandbox's `POST /color-palettes/analyze` both
//! call [`analyze`] on decoded RGBA8 pixels, so the two agree colour for colour.

mod directive;
mod median_cut;
mod names;
mod rgb;
mod role;

pub use directive::grading_directive;
pub use median_cut::{ImageRef, Swatch, extract_swatches};
pub use names::nearest_name;
pub use rgb::{Lab, Rgb};
pub use role::{PaletteColor, Role, roles_for};

/// The contract's cap on colours returned by analysis.
pub const MAX_EXTRACTED_COLORS: usize = 6;

/// An extracted palette: a display name and its colours in population order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalyzedPalette {
    pub name: String,
    pub colors: Vec<PaletteColor>,
}

/// Extracts up to [`MAX_EXTRACTED_COLORS`] colours, names each with the nearest built-in
/// name, assigns roles (dominant, secondary, then accent) and names the palette after the
/// first two colour names ("Teal & Sand"; one name when both are the same or only one colour
/// exists; "Untitled palette" when no opaque pixel was found).
pub fn analyze(images: &[ImageRef<'_>]) -> AnalyzedPalette {
    let swatches = extract_swatches(images, MAX_EXTRACTED_COLORS);
    let roles = roles_for(swatches.len());
    let colors: Vec<PaletteColor> = swatches
        .iter()
        .zip(roles)
        .map(|(swatch, role)| PaletteColor {
            hex: swatch.rgb.to_hex(),
            name: nearest_name(swatch.rgb).to_owned(),
            role,
        })
        .collect();
    let name = match colors.as_slice() {
        [] => "Untitled palette".to_owned(),
        [only] => only.name.clone(),
        [first, second, ..] if first.name == second.name => first.name.clone(),
        [first, second, ..] => format!("{} & {}", first.name, second.name),
    };
    AnalyzedPalette { name, colors }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn analyze_names_the_palette_after_its_two_leading_colours() {
        let mut rgba = Vec::new();
        for i in 0..100u32 {
            let px: [u8; 4] = if i < 70 {
                [0, 128, 128, 255]
            } else {
                [194, 178, 128, 255]
            };
            rgba.extend_from_slice(&px);
        }
        let palette = analyze(&[ImageRef {
            width: 10,
            height: 10,
            rgba: &rgba,
        }]);
        assert_eq!(palette.name, "Teal & Sand");
        assert_eq!(palette.colors[0].hex, "#008080");
        assert_eq!(palette.colors[0].role, Role::Dominant);
        assert_eq!(palette.colors[1].role, Role::Secondary);
        assert_eq!(analyze(&[]).colors, Vec::new());
    }
}
