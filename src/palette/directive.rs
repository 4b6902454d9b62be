//! The plain-language grading directive added to graded prompts. Built from roles and names
//! only: hex codes in a prompt tend to render as literal text artifacts.

use super::names::nearest_name;
use super::rgb::Rgb;
use super::role::{PaletteColor, Role};

/// The grading directive for a palette, or an empty string for an empty palette.
///
/// Colours are grouped by role (dominant, secondary, accents, background) in palette order.
/// Names are used verbatim except that `#` is removed and a name that is itself a hex code
/// (or empty) is replaced by the nearest built-in name, so no hex code can reach the prompt.
pub fn grading_directive(colors: &[PaletteColor]) -> String {
    let mut groups: Vec<(Role, Vec<String>)> = Role::ALL.iter().map(|r| (*r, Vec::new())).collect();
    for color in colors {
        let Some(name) = directive_name(color) else {
            continue;
        };
        if let Some((_, names)) = groups.iter_mut().find(|(role, _)| *role == color.role) {
            names.push(name);
        }
    }
    let clauses: Vec<String> = groups
        .iter()
        .filter(|(_, names)| !names.is_empty())
        .map(|(role, names)| {
            let label = match (role, names.len()) {
                (Role::Dominant, _) => "dominant",
                (Role::Secondary, _) => "secondary",
                (Role::Accent, 1) => "accent",
                (Role::Accent, _) => "accents",
                (Role::Background, _) => "background",
            };
            format!("{label} {}", join_and(names))
        })
        .collect();
    if clauses.is_empty() {
        return String::new();
    }
    format!(
        "Color grade: strictly grade the image to the project's palette: {}. Carry these colors \
         through the lighting, atmosphere, set dressing and wardrobe, weighted by role; leave the \
         subject and the action exactly as described.",
        clauses.join("; ")
    )
}

fn directive_name(color: &PaletteColor) -> Option<String> {
    let cleaned: String = color.name.replace('#', "").trim().to_owned();
    let looks_like_hex = cleaned.len() == 6 && cleaned.bytes().all(|b| b.is_ascii_hexdigit());
    if !cleaned.is_empty() && !looks_like_hex {
        return Some(cleaned);
    }
    Rgb::from_hex(&color.hex).map(|rgb| nearest_name(rgb).to_owned())
}

fn join_and(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn color(hex: &str, name: &str, role: Role) -> PaletteColor {
        PaletteColor {
            hex: hex.into(),
            name: name.into(),
            role,
        }
    }

    #[test]
    fn directive_names_colours_by_role_and_never_hex() {
        let directive = grading_directive(&[
            color("#008080", "Teal", Role::Dominant),
            color("#C2B280", "Sand", Role::Secondary),
            color("#FF7F50", "Coral", Role::Accent),
            color("#FFD700", "Gold", Role::Accent),
            color("#36454F", "Charcoal", Role::Background),
        ]);
        for needle in [
            "dominant Teal",
            "secondary Sand",
            "accents Coral and Gold",
            "background Charcoal",
            "lighting, atmosphere, set dressing and wardrobe",
            "leave the subject and the action",
        ] {
            assert!(
                directive.contains(needle),
                "{needle:?} missing from {directive:?}"
            );
        }
        assert!(!directive.contains('#'));
    }

    #[test]
    fn hex_like_or_empty_names_fall_back_to_built_in_names() {
        let directive = grading_directive(&[
            color("#FF0000", "#FF0000", Role::Dominant),
            color("#0000FF", "", Role::Accent),
            color("#FFFF00", "Brand #2", Role::Accent),
        ]);
        assert!(directive.contains("dominant Red"), "{directive}");
        assert!(
            directive.contains("accents Blue and Brand 2"),
            "{directive}"
        );
        assert!(!directive.contains('#') && !directive.contains("FF0000"));
    }

    #[test]
    fn an_empty_palette_gives_no_directive() {
        assert_eq!(grading_directive(&[]), "");
    }
}
