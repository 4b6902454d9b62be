//! Strict validation of color palette create/update bodies. Every problem is reported (not
//! just the first) as `{field, message}` in the 400 `details` list.

use serde_json::{Map, Value, json};

use crate::palette::{PaletteColor, Rgb, Role, nearest_name};
use crate::sandbox::palette_store::PaletteChanges;

pub(crate) const MAX_NAME_CHARS: usize = 100;
pub(crate) const MAX_COLORS: usize = 10;
pub(crate) const MAX_COLOR_NAME_CHARS: usize = 60;
pub(crate) const MAX_SOURCE_IMAGE_URLS: usize = 5;

const CREATE_FIELDS: [&str; 5] = [
    "name",
    "colors",
    "source_image_urls",
    "is_active",
    "projectId",
];
const UPDATE_FIELDS: [&str; 3] = ["name", "colors", "source_image_urls"];
const COLOR_FIELDS: [&str; 3] = ["hex", "name", "role"];

pub(crate) type Details = Vec<Value>;

fn detail(details: &mut Details, field: &str, message: impl Into<String>) {
    details.push(json!({"field": field, "message": message.into()}));
}

#[derive(Debug)]
pub(crate) struct CreateBody {
    pub name: String,
    pub colors: Vec<PaletteColor>,
    pub source_image_urls: Vec<String>,
    pub is_active: bool,
    /// Non-empty `projectId`, if sent.
    pub project_id: Option<String>,
}

fn unknown_fields(
    body: &Map<String, Value>,
    allowed: &[&str],
    prefix: &str,
    details: &mut Details,
) {
    for key in body.keys() {
        if !allowed.contains(&key.as_str()) {
            detail(
                details,
                &format!("{prefix}{key}"),
                format!("\"{prefix}{key}\" is not allowed"),
            );
        }
    }
}

fn parse_name(value: Option<&Value>, required: bool, details: &mut Details) -> Option<String> {
    match value {
        None if !required => None,
        Some(Value::String(name)) => {
            let trimmed = name.trim();
            let chars = trimmed.chars().count();
            if chars == 0 || chars > MAX_NAME_CHARS {
                detail(
                    details,
                    "name",
                    format!("\"name\" must be 1-{MAX_NAME_CHARS} characters"),
                );
                None
            } else {
                Some(trimmed.to_owned())
            }
        }
        None => {
            detail(details, "name", "\"name\" is required");
            None
        }
        Some(_) => {
            detail(details, "name", "\"name\" must be a string");
            None
        }
    }
}

fn parse_color(index: usize, value: &Value, details: &mut Details) -> Option<PaletteColor> {
    let field = |f: &str| format!("colors[{index}].{f}");
    let Value::Object(color) = value else {
        detail(
            details,
            &format!("colors[{index}]"),
            "each color must be an object",
        );
        return None;
    };
    let before = details.len();
    unknown_fields(color, &COLOR_FIELDS, &format!("colors[{index}]."), details);
    let rgb = match color.get("hex") {
        Some(Value::String(hex)) => match Rgb::from_hex(hex) {
            Some(rgb) => Some(rgb),
            None => {
                detail(
                    details,
                    &field("hex"),
                    "\"hex\" must be #RRGGBB (exactly 6 hex digits)",
                );
                None
            }
        },
        Some(_) => {
            detail(details, &field("hex"), "\"hex\" must be a string");
            None
        }
        None => {
            detail(details, &field("hex"), "\"hex\" is required");
            None
        }
    };
    let name = match color.get("name") {
        None => String::new(),
        Some(Value::String(name)) => {
            let trimmed = name.trim();
            if trimmed.chars().count() > MAX_COLOR_NAME_CHARS {
                detail(
                    details,
                    &field("name"),
                    format!("\"name\" must be at most {MAX_COLOR_NAME_CHARS} characters"),
                );
            }
            trimmed.to_owned()
        }
        Some(_) => {
            detail(details, &field("name"), "\"name\" must be a string");
            String::new()
        }
    };
    let role = match color.get("role") {
        None => Role::Accent,
        Some(Value::String(role)) => Role::from_str_opt(role).unwrap_or_else(|| {
            detail(
                details,
                &field("role"),
                "\"role\" must be one of dominant, secondary, accent, background",
            );
            Role::Accent
        }),
        Some(_) => {
            detail(details, &field("role"), "\"role\" must be a string");
            Role::Accent
        }
    };
    if details.len() > before {
        return None;
    }
    let rgb = rgb?;
    // Omitted or empty name: the nearest built-in name, stored so responses carry it.
    let name = if name.is_empty() {
        nearest_name(rgb).to_owned()
    } else {
        name
    };
    Some(PaletteColor {
        hex: rgb.to_hex(),
        name,
        role,
    })
}

fn parse_colors(
    value: Option<&Value>,
    required: bool,
    details: &mut Details,
) -> Option<Vec<PaletteColor>> {
    let items = match value {
        None if !required => return None,
        None => {
            detail(details, "colors", "\"colors\" is required");
            return None;
        }
        Some(Value::Array(items)) => items,
        Some(_) => {
            detail(details, "colors", "\"colors\" must be an array");
            return None;
        }
    };
    if items.is_empty() || items.len() > MAX_COLORS {
        detail(
            details,
            "colors",
            format!("\"colors\" must contain 1-{MAX_COLORS} colors"),
        );
        return None;
    }
    let parsed: Vec<Option<PaletteColor>> = items
        .iter()
        .enumerate()
        .map(|(i, c)| parse_color(i, c, details))
        .collect();
    parsed.into_iter().collect()
}

fn parse_urls(value: Option<&Value>, details: &mut Details) -> Option<Vec<String>> {
    let items = match value {
        None => return None,
        Some(Value::Array(items)) => items,
        Some(_) => {
            detail(
                details,
                "source_image_urls",
                "\"source_image_urls\" must be an array",
            );
            return None;
        }
    };
    if items.len() > MAX_SOURCE_IMAGE_URLS {
        detail(
            details,
            "source_image_urls",
            format!("\"source_image_urls\" must contain at most {MAX_SOURCE_IMAGE_URLS} items"),
        );
        return None;
    }
    let mut urls = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match item.as_str().map(str::trim) {
            Some(url) if reqwest::Url::parse(url).is_ok() => urls.push(url.to_owned()),
            _ => detail(
                details,
                &format!("source_image_urls[{i}]"),
                "each source image URL must be a valid URI",
            ),
        }
    }
    Some(urls)
}

pub(crate) fn parse_create(body: &Map<String, Value>) -> Result<CreateBody, Details> {
    let mut details = Details::new();
    unknown_fields(body, &CREATE_FIELDS, "", &mut details);
    let name = parse_name(body.get("name"), true, &mut details);
    let colors = parse_colors(body.get("colors"), true, &mut details);
    let source_image_urls =
        parse_urls(body.get("source_image_urls"), &mut details).unwrap_or_default();
    let is_active = match body.get("is_active") {
        None => true,
        Some(Value::Bool(active)) => *active,
        Some(_) => {
            detail(&mut details, "is_active", "\"is_active\" must be a boolean");
            true
        }
    };
    let project_id = match body.get("projectId") {
        None | Some(Value::Null) => None,
        Some(Value::String(id)) => Some(id.trim().to_owned()).filter(|id| !id.is_empty()),
        Some(_) => {
            detail(&mut details, "projectId", "\"projectId\" must be a string");
            None
        }
    };
    match (name, colors) {
        (Some(name), Some(colors)) if details.is_empty() => Ok(CreateBody {
            name,
            colors,
            source_image_urls,
            is_active,
            project_id,
        }),
        _ => Err(details),
    }
}

pub(crate) fn parse_update(body: &Map<String, Value>) -> Result<PaletteChanges, Details> {
    let mut details = Details::new();
    unknown_fields(body, &UPDATE_FIELDS, "", &mut details);
    let changes = PaletteChanges {
        name: parse_name(body.get("name"), false, &mut details),
        colors: parse_colors(body.get("colors"), false, &mut details),
        source_image_urls: parse_urls(body.get("source_image_urls"), &mut details),
    };
    if details.is_empty() {
        Ok(changes)
    } else {
        Err(details)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn create_defaults_role_and_name() {
        let body = parse_create(&object(json!({
            "name": "  Dusk  ",
            "colors": [{"hex": "#ff0000"}, {"hex": "#0000FF", "name": "", "role": "dominant"}]
        })))
        .expect("valid");
        assert_eq!(body.name, "Dusk");
        assert_eq!(body.colors[0].role, Role::Accent);
        assert_eq!(body.colors[0].name, "Red");
        assert_eq!(body.colors[0].hex, "#FF0000");
        assert_eq!(body.colors[1].name, "Blue");
        assert!(body.is_active && body.project_id.is_none());
    }

    #[test]
    fn create_reports_every_problem() {
        let details = parse_create(&object(json!({
            "name": "",
            "colors": [{"hex": "#FFF"}],
            "project_id": "x",
            "source_image_urls": ["a", "b", "c", "d", "e", "f"]
        })))
        .expect_err("invalid");
        let fields: Vec<&str> = details.iter().filter_map(|d| d["field"].as_str()).collect();
        for field in ["project_id", "name", "colors[0].hex", "source_image_urls"] {
            assert!(fields.contains(&field), "{field} missing from {fields:?}");
        }
    }

    #[test]
    fn update_refuses_project_fields() {
        assert!(parse_update(&object(json!({"projectId": "x"}))).is_err());
        assert!(parse_update(&object(json!({"project_id": "x"}))).is_err());
        let changes = parse_update(&object(json!({"name": "New"}))).expect("valid");
        assert_eq!(changes.name.as_deref(), Some("New"));
        assert!(changes.colors.is_none());
    }
}
