//! Colour palettes (document 2) and cinematic presets (document 1) as Rust: resources,
//! request bodies, the client-side checks that run before anything is sent, and the
//! routes on [`ApiClient`].
//!
//! The project id is spelled `projectId` on the palette routes (list query, create,
//! activate and deactivate bodies) and is never sent on update, delete or analyze.

use super::client::{ApiClient, classify, decode_body, encode_segment};
use super::error::ApiError;
use super::lenient::{
    lenient_bool, lenient_f64, lenient_list, lenient_string, lenient_u32, null_default,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// Colours a palette holds at least / at most.
pub const MIN_PALETTE_COLORS: usize = 1;
pub const MAX_PALETTE_COLORS: usize = 10;
/// Palette name length after trimming, in characters.
pub const MAX_PALETTE_NAME_CHARS: usize = 100;
/// Colour name length after trimming, in characters.
pub const MAX_COLOR_NAME_CHARS: usize = 60;
/// Source images a palette remembers at most.
pub const MAX_SOURCE_IMAGE_URLS: usize = 5;
/// Images one analyze call takes (1-5).
pub const MAX_ANALYZE_IMAGES: usize = 5;
/// Default and largest page size of GET /color-palettes (larger is silently capped).
pub const DEFAULT_PALETTE_PAGE_SIZE: u32 = 50;
pub const MAX_PALETTE_PAGE_SIZE: u32 = 100;
/// Pages read by `list_all_palettes` (10,000 palettes at the largest page size): a bound
/// on the calls one refresh makes in the shared 120-a-minute bucket.
pub const MAX_PALETTE_PAGES: u32 = 100;
/// The roles the contract names, in display order.
pub const COLOR_ROLES: [&str; 4] = ["dominant", "secondary", "accent", "background"];
/// The role the service stores when none is sent.
pub const DEFAULT_COLOR_ROLE: &str = "accent";

// ---------------------------------------------------------------------------------------
// Resources
// ---------------------------------------------------------------------------------------

/// One colour of a palette.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ColorSpec {
    /// `#RRGGBB`.
    #[serde(deserialize_with = "null_default")]
    pub hex: String,
    /// May be empty on the way out: the service fills the nearest built-in name.
    #[serde(deserialize_with = "null_default")]
    pub name: String,
    /// `dominant`, `secondary`, `accent` or `background`.
    #[serde(deserialize_with = "role_or_default")]
    pub role: String,
}

impl Default for ColorSpec {
    /// A missing role reads as the stored default, `accent`.
    fn default() -> Self {
        ColorSpec {
            hex: String::new(),
            name: String::new(),
            role: DEFAULT_COLOR_ROLE.to_owned(),
        }
    }
}

fn role_or_default<'de, D>(deserializer: D) -> Result<String, D::Error>
where
    D: serde::Deserializer<'de>,
{
    Ok(lenient_string(deserializer)?
        .map(|r| r.trim().to_ascii_lowercase())
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| DEFAULT_COLOR_ROLE.to_owned()))
}

/// A stored palette.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ColorPalette {
    #[serde(deserialize_with = "id_text", alias = "_id")]
    pub id: String,
    #[serde(deserialize_with = "null_default")]
    pub name: String,
    #[serde(deserialize_with = "color_list")]
    pub colors: Vec<ColorSpec>,
    #[serde(
        deserialize_with = "super::lenient::string_list",
        alias = "sourceImageUrls"
    )]
    pub source_image_urls: Vec<String>,
    /// Project-relative in list answers (only with `projectId`); see the contract.
    #[serde(deserialize_with = "bool_or_false", alias = "isActive")]
    pub is_active: bool,
    /// `personal` or `organization`.
    #[serde(deserialize_with = "null_default", alias = "contentScope")]
    pub content_scope: String,
    #[serde(deserialize_with = "lenient_string", alias = "createdAt")]
    pub created_at: Option<String>,
    #[serde(deserialize_with = "lenient_string", alias = "updatedAt")]
    pub updated_at: Option<String>,
}

impl ColorPalette {
    /// Organisation palettes are list-only through the API (update/delete/activate: 404).
    pub fn is_organization(&self) -> bool {
        let scope = self.content_scope.trim().to_ascii_lowercase();
        scope == "organization" || scope == "organisation" || scope == "org"
    }
}

fn id_text<'de, D>(deserializer: D) -> Result<String, D::Error>
where
    D: serde::Deserializer<'de>,
{
    Ok(lenient_string(deserializer)?.unwrap_or_default())
}

fn bool_or_false<'de, D>(deserializer: D) -> Result<bool, D::Error>
where
    D: serde::Deserializer<'de>,
{
    Ok(lenient_bool(deserializer)?.unwrap_or(false))
}

fn color_list<'de, D>(deserializer: D) -> Result<Vec<ColorSpec>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    lenient_list(deserializer)
}

/// `pagination` of GET /color-palettes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PalettePagination {
    #[serde(deserialize_with = "lenient_u32")]
    pub page: Option<u32>,
    #[serde(deserialize_with = "lenient_u32")]
    pub limit: Option<u32>,
    #[serde(deserialize_with = "lenient_u32")]
    pub total: Option<u32>,
    #[serde(deserialize_with = "lenient_u32")]
    pub pages: Option<u32>,
}

/// One page of palettes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PalettePage {
    pub palettes: Vec<ColorPalette>,
    pub pagination: PalettePagination,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct PaletteListWire {
    #[serde(
        deserialize_with = "palette_list",
        alias = "colorPalettes",
        alias = "palettes"
    )]
    color_palettes: Vec<ColorPalette>,
    #[serde(deserialize_with = "null_default")]
    pagination: PalettePagination,
}

fn palette_list<'de, D>(deserializer: D) -> Result<Vec<ColorPalette>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let mut palettes: Vec<ColorPalette> = lenient_list(deserializer)?;
    palettes.retain(|p| !p.id.is_empty());
    Ok(palettes)
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct PaletteWire {
    #[serde(alias = "colorPalette", alias = "palette")]
    color_palette: Option<ColorPalette>,
}

/// The answer of POST /color-palettes/analyze: nothing is saved.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AnalyzedColors {
    #[serde(deserialize_with = "null_default")]
    pub name: String,
    #[serde(deserialize_with = "color_list")]
    pub colors: Vec<ColorSpec>,
}

// ---------------------------------------------------------------------------------------
// Request bodies
// ---------------------------------------------------------------------------------------

/// Body of POST /color-palettes.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct NewPalette {
    pub name: String,
    pub colors: Vec<ColorSpec>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub source_image_urls: Vec<String>,
    /// Default true on the service; false suppresses activation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_active: Option<bool>,
    /// The project to grade right away (camelCase on this route).
    #[serde(rename = "projectId", skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
}

/// Body of PUT /color-palettes/:id. Never carries a project id (the service refuses it).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PaletteUpdate {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Full replacement when present.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub colors: Option<Vec<ColorSpec>>,
    /// Replaces the stored list when present.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_image_urls: Option<Vec<String>>,
}

// ---------------------------------------------------------------------------------------
// Client-side checks (run before any request; messages are shown at the field)
// ---------------------------------------------------------------------------------------

/// Which part of a palette a message is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PaletteField {
    Name,
    Colors,
    ColorHex(usize),
    ColorName(usize),
    ColorRole(usize),
    Sources,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaletteIssue {
    pub field: PaletteField,
    pub message: String,
}

/// Strict `#RRGGBB`.
pub fn is_valid_hex(hex: &str) -> bool {
    let bytes = hex.as_bytes();
    bytes.len() == 7 && bytes[0] == b'#' && bytes[1..].iter().all(u8::is_ascii_hexdigit)
}

/// Everything the contract would refuse in this palette, with a message per field.
pub fn check_palette(name: &str, colors: &[ColorSpec], sources: &[String]) -> Vec<PaletteIssue> {
    let mut issues = Vec::new();
    let mut push = |field, message: String| issues.push(PaletteIssue { field, message });
    let name_chars = name.trim().chars().count();
    if name_chars == 0 {
        push(PaletteField::Name, "Give the palette a name.".to_owned());
    } else if name_chars > MAX_PALETTE_NAME_CHARS {
        push(
            PaletteField::Name,
            format!("Use at most {MAX_PALETTE_NAME_CHARS} characters ({name_chars} now)."),
        );
    }
    if colors.len() < MIN_PALETTE_COLORS {
        push(PaletteField::Colors, "Add at least one colour.".to_owned());
    } else if colors.len() > MAX_PALETTE_COLORS {
        push(
            PaletteField::Colors,
            format!("A palette holds at most {MAX_PALETTE_COLORS} colours."),
        );
    }
    for (index, color) in colors.iter().enumerate() {
        if !is_valid_hex(&color.hex) {
            push(
                PaletteField::ColorHex(index),
                "Use #RRGGBB: # and six hex digits.".to_owned(),
            );
        }
        let chars = color.name.trim().chars().count();
        if chars > MAX_COLOR_NAME_CHARS {
            push(
                PaletteField::ColorName(index),
                format!("At most {MAX_COLOR_NAME_CHARS} characters ({chars} now)."),
            );
        }
        if !COLOR_ROLES.contains(&color.role.as_str()) {
            push(
                PaletteField::ColorRole(index),
                "Pick dominant, secondary, accent or background.".to_owned(),
            );
        }
    }
    if sources.len() > MAX_SOURCE_IMAGE_URLS {
        push(
            PaletteField::Sources,
            format!("A palette remembers at most {MAX_SOURCE_IMAGE_URLS} source images."),
        );
    }
    if sources
        .iter()
        .any(|s| !(s.starts_with("http://") || s.starts_with("https://")))
    {
        push(
            PaletteField::Sources,
            "Source images must be http(s) URLs.".to_owned(),
        );
    }
    issues
}

// ---------------------------------------------------------------------------------------
// Cinematic presets
// ---------------------------------------------------------------------------------------

/// One preset of one dimension.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CinematicPreset {
    #[serde(deserialize_with = "id_text")]
    pub id: String,
    #[serde(deserialize_with = "null_default")]
    pub name: String,
    #[serde(deserialize_with = "null_default")]
    pub description: String,
    #[serde(deserialize_with = "lenient_string", alias = "thumbnailUrl")]
    pub thumbnail_url: Option<String>,
    #[serde(deserialize_with = "lenient_f64", alias = "sortOrder")]
    pub sort_order: Option<f64>,
    #[serde(
        deserialize_with = "lenient_string",
        alias = "previewUrl",
        skip_serializing_if = "Option::is_none"
    )]
    pub preview_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bundle: Option<Value>,
}

impl CinematicPreset {
    pub fn display_name(&self) -> &str {
        if self.name.trim().is_empty() {
            &self.id
        } else {
            &self.name
        }
    }
}

/// Dimension name -> its presets (sorted by `sort_order`, then name). Dimensions are data:
/// read them from the answer, never from a list in the client.
pub type CinematicPresets = BTreeMap<String, Vec<CinematicPreset>>;

/// Read the bare map `{dimension: [preset…]}`; an envelope (`presets`/`data`) is read too.
/// Entries that are not arrays and presets without an id are skipped.
pub fn presets_from_value(value: &Value) -> CinematicPresets {
    let map = match value {
        Value::Object(map) => map,
        _ => return CinematicPresets::new(),
    };
    let has_arrays = map.values().any(Value::is_array);
    if !has_arrays {
        for key in ["presets", "data", "cinematic_presets"] {
            if let Some(inner @ Value::Object(_)) = map.get(key) {
                return presets_from_value(inner);
            }
        }
    }
    let mut out = CinematicPresets::new();
    for (dimension, list) in map {
        let Value::Array(items) = list else { continue };
        let mut presets: Vec<CinematicPreset> = items
            .iter()
            .filter_map(|item| serde_json::from_value::<CinematicPreset>(item.clone()).ok())
            .filter(|p| !p.id.trim().is_empty())
            .collect();
        sort_presets(&mut presets);
        if !presets.is_empty() {
            out.insert(dimension.clone(), presets);
        }
    }
    out
}

/// By `sort_order` (missing last), then name.
pub fn sort_presets(presets: &mut [CinematicPreset]) {
    presets.sort_by(|a, b| {
        let key = |p: &CinematicPreset| p.sort_order.unwrap_or(f64::MAX);
        key(a)
            .total_cmp(&key(b))
            .then_with(|| a.display_name().cmp(b.display_name()))
    });
}

/// "focal_length" -> "Focal length".
pub fn dimension_label(dimension: &str) -> String {
    // The cinematic colour palette, told apart from the project's colour grade by name.
    if dimension == "color_palette" {
        return "Colour palette".to_owned();
    }
    let text = dimension.replace(['_', '-'], " ");
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The outcome of a conditional GET /v1/cinematic-presets.
#[derive(Clone, Debug, PartialEq)]
pub enum PresetsFetch {
    Fresh {
        presets: CinematicPresets,
        etag: Option<String>,
    },
    /// 304: the cached copy named by the ETag is still current.
    NotModified,
}

// ---------------------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------------------

impl ApiClient {
    /// GET /v1/color-palettes. `page` is clamped to at least 1 and `limit` to 1-100 here
    /// too (the service does the same), so the numbers agree with what comes back.
    pub async fn list_palettes(
        &self,
        project_id: Option<&str>,
        page: u32,
        limit: u32,
    ) -> Result<PalettePage, ApiError> {
        let mut query: Vec<(&str, String)> = vec![
            ("page", page.max(1).to_string()),
            ("limit", limit.clamp(1, MAX_PALETTE_PAGE_SIZE).to_string()),
        ];
        if let Some(project_id) = project_id.map(str::trim).filter(|p| !p.is_empty()) {
            query.push(("projectId", project_id.to_owned()));
        }
        let request = self
            .service
            .get(self.url("/v1/color-palettes"))
            .query(&query);
        let wire: PaletteListWire = self.json(request).await?;
        Ok(PalettePage {
            palettes: wire.color_palettes,
            pagination: wire.pagination,
        })
    }

    /// Every palette the caller can see (GET /v1/color-palettes page by page, `page_size`
    /// each, at most `MAX_PALETTE_PAGES` pages). The pagination of the answer is page 1's,
    /// so `total` still tells how many exist.
    pub async fn list_all_palettes(
        &self,
        project_id: Option<&str>,
        page_size: u32,
    ) -> Result<PalettePage, ApiError> {
        let mut all = self.list_palettes(project_id, 1, page_size).await?;
        let pages = all.pagination.pages.unwrap_or(1).min(MAX_PALETTE_PAGES);
        for page in 2..=pages {
            let next = self.list_palettes(project_id, page, page_size).await?;
            if next.palettes.is_empty() {
                break;
            }
            all.palettes.extend(next.palettes);
        }
        Ok(all)
    }

    /// POST /v1/color-palettes.
    pub async fn create_palette(&self, body: &NewPalette) -> Result<ColorPalette, ApiError> {
        let request = self.service.post(self.url("/v1/color-palettes")).json(body);
        palette_of(self.json(request).await?)
    }

    /// PUT /v1/color-palettes/:id (owner only; never sends a project id).
    pub async fn update_palette(
        &self,
        id: &str,
        fields: &PaletteUpdate,
    ) -> Result<ColorPalette, ApiError> {
        let url = self.url(&format!("/v1/color-palettes/{}", encode_segment(id)));
        palette_of(self.json(self.service.put(url).json(fields)).await?)
    }

    /// DELETE /v1/color-palettes/:id (owner only). Clears every grade that used it.
    pub async fn delete_palette(&self, id: &str) -> Result<(), ApiError> {
        let url = self.url(&format!("/v1/color-palettes/{}", encode_segment(id)));
        let _: Value = self.json(self.service.delete(url)).await?;
        Ok(())
    }

    /// POST /v1/color-palettes/:id/activate `{projectId}`: this palette grades the project.
    pub async fn activate_palette(
        &self,
        id: &str,
        project_id: &str,
    ) -> Result<ColorPalette, ApiError> {
        let url = self.url(&format!(
            "/v1/color-palettes/{}/activate",
            encode_segment(id)
        ));
        let request = self
            .service
            .post(url)
            .json(&json!({ "projectId": project_id }));
        palette_of(self.json(request).await?)
    }

    /// POST /v1/color-palettes/deactivate `{projectId}`: the project has no grade.
    pub async fn deactivate_palette(&self, project_id: &str) -> Result<(), ApiError> {
        let request = self
            .service
            .post(self.url("/v1/color-palettes/deactivate"))
            .json(&json!({ "projectId": project_id }));
        let _: Value = self.json(request).await?;
        Ok(())
    }

    /// POST /v1/color-palettes/analyze `{image_urls}` (1-5 public URLs). Nothing is saved.
    pub async fn analyze_palette(&self, image_urls: &[String]) -> Result<AnalyzedColors, ApiError> {
        if image_urls.is_empty() || image_urls.len() > MAX_ANALYZE_IMAGES {
            return Err(ApiError::Invalid(format!(
                "analyze takes 1-{MAX_ANALYZE_IMAGES} image URLs (got {})",
                image_urls.len()
            )));
        }
        let request = self
            .service
            .post(self.url("/v1/color-palettes/analyze"))
            .json(&json!({ "image_urls": image_urls }));
        self.json(request).await
    }

    /// GET /v1/cinematic-presets, conditional on `if_none_match` (the cached ETag).
    pub async fn cinematic_presets(
        &self,
        if_none_match: Option<&str>,
    ) -> Result<PresetsFetch, ApiError> {
        let mut request = self
            .service
            .get(self.url("/v1/cinematic-presets"))
            .timeout(self.request_timeout());
        if let Some(etag) = if_none_match.map(str::trim).filter(|e| !e.is_empty()) {
            request = request.header(reqwest::header::IF_NONE_MATCH, etag);
        }
        let response = request.send().await.map_err(classify)?;
        let status = response.status().as_u16();
        if status == 304 {
            return Ok(PresetsFetch::NotModified);
        }
        let headers = response.headers().clone();
        let body = response.bytes().await.map_err(classify)?;
        if let Some(error) = ApiError::from_response(status, &headers, &body) {
            return Err(error);
        }
        let etag = headers
            .get(reqwest::header::ETAG)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let value: Value = decode_body(&body)?;
        Ok(PresetsFetch::Fresh {
            presets: presets_from_value(&value),
            etag,
        })
    }
}

pub(super) fn palette_of(wire: PaletteWire) -> Result<ColorPalette, ApiError> {
    wire.color_palette
        .filter(|p| !p.id.is_empty())
        .ok_or_else(|| ApiError::Decode("the answer carried no color_palette".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_body_spells_project_id_in_camel_case() {
        let body = NewPalette {
            name: "Dusk".into(),
            colors: vec![ColorSpec {
                hex: "#112233".into(),
                name: String::new(),
                role: "dominant".into(),
            }],
            source_image_urls: vec![],
            is_active: Some(true),
            project_id: Some("p1".into()),
        };
        let value = serde_json::to_value(&body).unwrap();
        assert_eq!(value["projectId"], "p1");
        assert!(value.get("project_id").is_none());
        assert!(value.get("source_image_urls").is_none());
        assert_eq!(value["colors"][0]["name"], "");
        let update = serde_json::to_value(PaletteUpdate {
            name: Some("x".into()),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(update, json!({"name": "x"}));
    }

    #[test]
    fn hex_is_strict() {
        assert!(is_valid_hex("#A0b1C2"));
        for bad in ["A0B1C2", "#A0B1C", "#A0B1C2F", "#GGGGGG", "", "#"] {
            assert!(!is_valid_hex(bad), "{bad}");
        }
    }

    #[test]
    fn checks_name_each_field() {
        let color = |hex: &str, name: &str, role: &str| ColorSpec {
            hex: hex.into(),
            name: name.into(),
            role: role.into(),
        };
        assert!(check_palette("Ok", &[color("#000000", "", "accent")], &[]).is_empty());
        let issues = check_palette(
            "  ",
            &[
                color("#00000", "", "accent"),
                color("#000000", &"x".repeat(61), "hero"),
            ],
            &[],
        );
        let fields: Vec<_> = issues.iter().map(|i| i.field.clone()).collect();
        assert_eq!(
            fields,
            vec![
                PaletteField::Name,
                PaletteField::ColorHex(0),
                PaletteField::ColorName(1),
                PaletteField::ColorRole(1)
            ]
        );
        assert_eq!(check_palette("a", &[], &[])[0].field, PaletteField::Colors);
        let eleven = vec![color("#000000", "", "accent"); 11];
        assert_eq!(
            check_palette("a", &eleven, &[])[0].field,
            PaletteField::Colors
        );
    }

    #[test]
    fn presets_decode_sorted_and_data_driven() {
        let value = json!({
            "lighting": [
                {"id": "l2", "name": "Noir", "description": "", "thumbnail_url": "u", "sort_order": 2},
                {"id": "l1", "name": "Golden hour", "description": "", "thumbnail_url": "u", "sort_order": 1},
                {"name": "no id"}
            ],
            "new_dimension": [{"id": "n1", "name": "N", "sort_order": "3", "bundle": {"a": 1}}],
            "weird": "not a list"
        });
        let presets = presets_from_value(&value);
        assert_eq!(presets.len(), 2);
        let ids: Vec<_> = presets["lighting"].iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["l1", "l2"]);
        assert!(presets["new_dimension"][0].bundle.is_some());
        let wrapped = presets_from_value(&json!({"success": true, "presets": value}));
        assert_eq!(wrapped, presets);
        assert_eq!(dimension_label("focal_length"), "Focal length");
    }

    #[test]
    fn palettes_decode_leniently() {
        let wire: PaletteListWire = serde_json::from_value(json!({
            "success": true,
            "color_palettes": [
                {"id": "a", "name": "A", "colors": [{"hex": "#010203", "name": "Ink"}],
                 "is_active": true, "content_scope": "organization"},
                {"name": "no id"}
            ],
            "pagination": {"page": 1, "limit": 50, "total": 1, "pages": 1}
        }))
        .unwrap();
        assert_eq!(wire.color_palettes.len(), 1);
        let palette = &wire.color_palettes[0];
        assert_eq!(palette.colors[0].role, DEFAULT_COLOR_ROLE);
        assert!(palette.is_active && palette.is_organization());
        assert_eq!(wire.pagination.total, Some(1));
    }
}
