//! Cinematic presets: the catalog (`assets/presets/presets.json`, embedded), the served map
//! of `GET /v1/cinematic-presets`, and validation of the `cinematic` object on image
//! generation requests.

use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::look::Effect;

const PRESETS_JSON: &str = include_str!("../../assets/presets/presets.json");

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Preset {
    pub id: String,
    pub name: String,
    pub description: String,
    pub sort_order: i64,
    pub thumbnail: String,
    #[serde(default = "active_default")]
    pub active: bool,
    #[serde(default)]
    pub preview_url: Option<String>,
    #[serde(default)]
    pub bundle: Option<Value>,
    #[serde(default)]
    pub effect: Effect,
}

fn active_default() -> bool {
    true
}

#[derive(Debug, Deserialize)]
struct PresetFile {
    /// Dimension name → presets, in file order.
    dimensions: serde_json::Map<String, Value>,
}

/// Dimension name and its presets, in file order.
pub(crate) struct Catalog {
    pub dimensions: Vec<(String, Vec<Preset>)>,
}

/// The embedded catalog. The file ships in the binary and a unit test parses it, so a
/// failure here is a build mistake; it degrades to an empty catalog rather than a panic.
pub(crate) fn catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| match parse(PRESETS_JSON) {
        Ok(catalog) => catalog,
        Err(error) => {
            tracing::error!(%error, "cinematic preset catalog is unreadable");
            Catalog {
                dimensions: Vec::new(),
            }
        }
    })
}

fn parse(text: &str) -> Result<Catalog, serde_json::Error> {
    let file: PresetFile = serde_json::from_str(text)?;
    let mut dimensions = Vec::new();
    for (name, presets) in file.dimensions {
        let mut presets: Vec<Preset> = serde_json::from_value(presets)?;
        presets.sort_by_key(|p| p.sort_order);
        dimensions.push((name, presets));
    }
    Ok(Catalog { dimensions })
}

impl Catalog {
    fn dimension(&self, name: &str) -> Option<&[Preset]> {
        self.dimensions
            .iter()
            .find(|(d, _)| d == name)
            .map(|(_, p)| p.as_slice())
    }

    /// Which dimension an (active) preset id belongs to.
    fn dimension_of(&self, id: &str) -> Option<&str> {
        self.dimensions
            .iter()
            .find(|(_, presets)| presets.iter().any(|p| p.id == id && p.active))
            .map(|(d, _)| d.as_str())
    }

    /// The response body: `{dimension: [preset...]}`, active presets only, dimensions with
    /// none left out. Thumbnail URLs are absolute, built from the bound origin.
    pub(crate) fn served_map(&self, origin: &str) -> Value {
        let mut map = Map::new();
        for (dimension, presets) in &self.dimensions {
            let active: Vec<Value> = presets
                .iter()
                .filter(|p| p.active)
                .map(|p| {
                    let mut item = json!({
                        "id": p.id,
                        "name": p.name,
                        "description": p.description,
                        "thumbnail_url": format!("{origin}/assets/presets/{}", p.thumbnail),
                        "sort_order": p.sort_order,
                    });
                    if let Some(preview) = &p.preview_url {
                        item["preview_url"] = json!(preview);
                    }
                    if let Some(bundle) = &p.bundle {
                        item["bundle"] = bundle.clone();
                    }
                    item
                })
                .collect();
            if !active.is_empty() {
                map.insert(dimension.clone(), Value::Array(active));
            }
        }
        Value::Object(map)
    }
}

/// Why a `cinematic` object was refused (the message of a 400 `INVALID_CINEMATIC`).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum CinematicError {
    #[error("cinematic must be an object mapping a dimension to one preset id")]
    NotAnObject,
    #[error("Unknown cinematic dimension '{0}'. Allowed dimensions: {1}")]
    UnknownDimension(String, String),
    #[error("cinematic.{0} must be a preset id string or null")]
    NotAString(String),
    #[error("Preset '{id}' belongs to dimension '{actual}', not '{dimension}'")]
    WrongDimension {
        id: String,
        dimension: String,
        actual: String,
    },
    #[error("Unknown preset '{id}' for cinematic dimension '{dimension}'")]
    UnknownPreset { id: String, dimension: String },
}

/// Validates a request's `cinematic` value; returns the chosen presets in catalog
/// dimension order. Absent, null, `{}` or all-null choose nothing.
pub(crate) fn choose(
    value: Option<&Value>,
) -> Result<Vec<(&'static str, &'static Preset)>, CinematicError> {
    let catalog = catalog();
    let object = match value {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Object(object)) => object,
        Some(_) => return Err(CinematicError::NotAnObject),
    };
    let allowed = || {
        catalog
            .dimensions
            .iter()
            .map(|(d, _)| d.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    for (dimension, id) in object {
        let Some(presets) = catalog.dimension(dimension) else {
            return Err(CinematicError::UnknownDimension(
                dimension.clone(),
                allowed(),
            ));
        };
        let id = match id {
            Value::Null => continue,
            Value::String(id) => id.trim(),
            _ => return Err(CinematicError::NotAString(dimension.clone())),
        };
        if presets.iter().any(|p| p.id == id && p.active) {
            continue;
        }
        return Err(match catalog.dimension_of(id) {
            Some(actual) => CinematicError::WrongDimension {
                id: id.to_owned(),
                dimension: dimension.clone(),
                actual: actual.to_owned(),
            },
            None => CinematicError::UnknownPreset {
                id: id.to_owned(),
                dimension: dimension.clone(),
            },
        });
    }
    let mut chosen = Vec::new();
    for (dimension, presets) in &catalog.dimensions {
        let Some(Value::String(id)) = object.get(dimension) else {
            continue;
        };
        if let Some(preset) = presets.iter().find(|p| p.id == id.trim()) {
            chosen.push((dimension.as_str(), preset));
        }
    }
    Ok(chosen)
}

/// The prompt fragment naming the chosen presets, e.g.
/// "Cinematic look: camera ARRI Alexa 35; lighting Golden hour."
pub(crate) fn prompt_fragment(chosen: &[(&str, &Preset)]) -> Option<String> {
    if chosen.is_empty() {
        return None;
    }
    let parts: Vec<String> = chosen
        .iter()
        .map(|(dimension, preset)| format!("{} {}", dimension.replace('_', " "), preset.name))
        .collect();
    Some(format!("Cinematic look: {}.", parts.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_parses_and_every_preset_has_a_thumbnail() {
        let catalog = parse(PRESETS_JSON).expect("presets.json parses");
        assert_eq!(catalog.dimensions.len(), 8);
        for (dimension, presets) in &catalog.dimensions {
            let active = presets.iter().filter(|p| p.active).count();
            assert!(
                (4..=6).contains(&active),
                "{dimension}: {active} active presets"
            );
            for preset in presets {
                let png = super::super::preset_thumbs::thumbnail(&preset.thumbnail)
                    .unwrap_or_else(|| panic!("{} has no embedded thumbnail", preset.id));
                assert!(png.starts_with(b"\x89PNG"));
            }
        }
    }

    #[test]
    fn choices_are_checked_per_dimension() {
        let ok = json!({"lighting": "lighting-golden-hour", "camera": null});
        let chosen = choose(Some(&ok)).expect("valid");
        assert_eq!(chosen.len(), 1);
        assert_eq!(chosen[0].1.name, "Golden hour");
        assert!(matches!(
            choose(Some(&json!({"lighting": "camera-super-8"}))),
            Err(CinematicError::WrongDimension { .. })
        ));
        assert!(matches!(
            choose(Some(&json!({"genre": "noir"}))),
            Err(CinematicError::UnknownDimension(..))
        ));
        assert!(matches!(
            choose(Some(&json!({"camera": "camera-vhs-camcorder"}))),
            Err(CinematicError::UnknownPreset { .. })
        ));
        assert!(choose(None).expect("absent").is_empty());
    }
}
