//! Tolerant deserializers: the contract says map-valued fields may be `{}` or `null`,
//! fields may be absent, and numbers sometimes arrive as strings. Decoding must not fail
//! on any of those.

use serde::{Deserialize, Deserializer};
use serde_json::Value;
use std::collections::BTreeMap;

/// `null` or absent becomes `T::default()`.
pub fn null_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// A list of objects; `null`, a non-array and unreadable items are skipped (one bad item
/// never loses the rest of a page).
pub fn lenient_list<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    Ok(match Value::deserialize(deserializer)? {
        Value::Array(items) => items
            .into_iter()
            .filter_map(|item| serde_json::from_value(item).ok())
            .collect(),
        _ => Vec::new(),
    })
}

/// A number that may also arrive as a numeric string; anything else becomes `None`.
pub fn lenient_f64<'de, D>(deserializer: D) -> Result<Option<f64>, D::Error>
where
    D: Deserializer<'de>,
{
    Ok(value_as_f64(&Value::deserialize(deserializer)?))
}

/// A whole number that may arrive as a float or a string; anything else becomes `None`.
pub fn lenient_u32<'de, D>(deserializer: D) -> Result<Option<u32>, D::Error>
where
    D: Deserializer<'de>,
{
    Ok(value_as_f64(&Value::deserialize(deserializer)?)
        .filter(|n| *n >= 0.0 && *n <= f64::from(u32::MAX))
        .map(|n| n.round() as u32))
}

/// A whole number of bytes; `None` for null or unreadable values.
pub fn lenient_u64<'de, D>(deserializer: D) -> Result<Option<u64>, D::Error>
where
    D: Deserializer<'de>,
{
    Ok(value_as_f64(&Value::deserialize(deserializer)?)
        .filter(|n| *n >= 0.0)
        .map(|n| n.round() as u64))
}

/// A map of tier name to multiplier; `null`, `{}`, absent and non-numeric entries are tolerated.
pub fn multiplier_map<'de, D>(deserializer: D) -> Result<BTreeMap<String, f64>, D::Error>
where
    D: Deserializer<'de>,
{
    let value = Value::deserialize(deserializer)?;
    let mut out = BTreeMap::new();
    if let Value::Object(map) = value {
        for (key, entry) in map {
            if let Some(number) = value_as_f64(&entry) {
                out.insert(key, number);
            }
        }
    }
    Ok(out)
}

/// An object of string lists (`supported_aspect_ratios_by_type`); `null`, `{}` and
/// non-list entries read as empty.
pub fn list_map<'de, D>(deserializer: D) -> Result<BTreeMap<String, Vec<String>>, D::Error>
where
    D: Deserializer<'de>,
{
    let value = Value::deserialize(deserializer)?;
    let mut out = BTreeMap::new();
    if let Value::Object(map) = value {
        for (key, entry) in map {
            if let Value::Array(items) = entry {
                let list: Vec<String> = items
                    .into_iter()
                    .filter_map(|item| match item {
                        Value::String(s) => Some(s),
                        _ => None,
                    })
                    .collect();
                out.insert(key, list);
            }
        }
    }
    Ok(out)
}

/// A list of numbers (durations); strings like `"5"` or `"5s"` are read too.
pub fn number_list<'de, D>(deserializer: D) -> Result<Vec<f64>, D::Error>
where
    D: Deserializer<'de>,
{
    let value = Value::deserialize(deserializer)?;
    Ok(match value {
        Value::Array(items) => items.iter().filter_map(value_as_f64).collect(),
        _ => Vec::new(),
    })
}

/// A list of strings; non-string entries are skipped, `null` is empty.
pub fn string_list<'de, D>(deserializer: D) -> Result<Vec<String>, D::Error>
where
    D: Deserializer<'de>,
{
    let value = Value::deserialize(deserializer)?;
    Ok(match value {
        Value::Array(items) => items
            .into_iter()
            .filter_map(|item| match item {
                Value::String(s) => Some(s),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
            .collect(),
        Value::String(s) => vec![s],
        _ => Vec::new(),
    })
}

/// A boolean that may be `null`, a string `"true"`, or a number.
pub fn lenient_bool<'de, D>(deserializer: D) -> Result<Option<bool>, D::Error>
where
    D: Deserializer<'de>,
{
    Ok(match Value::deserialize(deserializer)? {
        Value::Bool(b) => Some(b),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" => Some(true),
            "false" | "0" | "no" => Some(false),
            _ => None,
        },
        Value::Number(n) => n.as_f64().map(|n| n != 0.0),
        _ => None,
    })
}

/// A string that may arrive as a number (ids sometimes do); `null` is `None`.
pub fn lenient_string<'de, D>(deserializer: D) -> Result<Option<String>, D::Error>
where
    D: Deserializer<'de>,
{
    Ok(match Value::deserialize(deserializer)? {
        Value::String(s) => Some(s),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    })
}

pub fn value_as_f64(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => {
            let trimmed = s.trim().trim_end_matches(['s', 'S']).trim();
            trimmed.parse::<f64>().ok()
        }
        _ => None,
    }
}
