//! The built-in colour-name table (`assets/color-names.csv`, embedded at compile time) and
//! nearest-name lookup by CIELAB distance.

use std::sync::OnceLock;

use super::rgb::{Lab, Rgb};

const TABLE_CSV: &str = include_str!("../../assets/color-names.csv");

struct NamedColour {
    name: &'static str,
    lab: Lab,
}

fn table() -> &'static [NamedColour] {
    static TABLE: OnceLock<Vec<NamedColour>> = OnceLock::new();
    TABLE.get_or_init(|| parse(TABLE_CSV))
}

/// Parses `name,#RRGGBB` lines; `#` comment lines, the header and malformed lines are
/// skipped (the table ships inside the binary and a unit test checks every line parses).
fn parse(csv: &'static str) -> Vec<NamedColour> {
    csv.lines()
        .filter_map(|line| {
            let (name, hex) = line.trim().rsplit_once(',')?;
            let rgb = Rgb::from_hex(hex.trim())?;
            let name = name.trim();
            (!name.is_empty()).then(|| NamedColour {
                name,
                lab: rgb.to_lab(),
            })
        })
        .collect()
}

/// The built-in name perceptually nearest to `rgb` (CIE76 ΔE; the first entry wins a tie).
pub fn nearest_name(rgb: Rgb) -> &'static str {
    let lab = rgb.to_lab();
    table()
        .iter()
        .map(|entry| (entry.name, entry.lab.distance_sq(lab)))
        .fold(
            None,
            |best: Option<(&'static str, f32)>, (name, d)| match best {
                Some((_, best_d)) if best_d <= d => best,
                _ => Some((name, d)),
            },
        )
        .map_or("Gray", |(name, _)| name)
}

/// How many names the built-in table holds.
#[cfg(test)]
fn table_len() -> usize {
    table().len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_data_line_of_the_table_parses() {
        let data_lines = TABLE_CSV
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty() && *l != "name,hex")
            .count();
        assert_eq!(table_len(), data_lines);
        assert!(
            table_len() >= 140,
            "the contract's table is large: {}",
            table_len()
        );
    }

    #[test]
    fn pure_colours_get_sensible_names() {
        assert_eq!(nearest_name(Rgb::new(255, 0, 0)), "Red");
        assert_eq!(nearest_name(Rgb::new(0, 0, 255)), "Blue");
        assert_eq!(nearest_name(Rgb::new(255, 255, 0)), "Yellow");
        assert_eq!(nearest_name(Rgb::new(255, 255, 255)), "White");
        assert_eq!(nearest_name(Rgb::new(0, 0, 0)), "Black");
        assert_eq!(nearest_name(Rgb::new(0, 128, 128)), "Teal");
        // Near, not exact: a slightly off red is still red.
        assert_eq!(nearest_name(Rgb::new(250, 8, 4)), "Red");
        assert_eq!(nearest_name(Rgb::new(128, 128, 128)), "Gray");
    }
}
