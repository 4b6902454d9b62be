//! Moodboards (catalog family "Moodboards"): named sets of 1–15 pictures by URL plus a
//! style guide. The sandbox fetches the pictures through its fetch policy (its own
//! `/files/` URLs are read from disk), keeps their dominant colours, writes a collage
//! thumbnail and generates a master prompt. Renders with `moodboard_id` tint toward the
//! colours (`visual_dna::refs`). docs/SANDBOX.md, "Moodboards".

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use image::imageops::FilterType;
use image::{DynamicImage, RgbImage};
use rusqlite::{OptionalExtension, Row, params};
use serde_json::{Map, Value, json};

use super::auth::Caller;
use super::fetch::decode_image;
use super::fetch_policy::{self, SOURCE_LIMITS};
use super::files::write_jpeg;
use super::http_error::{ApiError, ApiResult};
use super::ids::new_object_id;
use super::routes::json_object;
use super::routes::lookup::visible_row;
use super::state::AppState;
use super::store::Store;
use super::visual_dna::describe::dominant_colors;

pub(crate) const MOODBOARD_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS moodboards (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, owner_id TEXT NOT NULL,
    name TEXT NOT NULL, style_guide TEXT NOT NULL, image_urls_json TEXT NOT NULL,
    colors_json TEXT NOT NULL, master_prompt TEXT NOT NULL, thumb_rel_path TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS moodboards_owner ON moodboards(owner_id);
";

pub(crate) const MIN_IMAGES: usize = 1;
pub(crate) const MAX_IMAGES: usize = 15;
pub(crate) const STYLE_GUIDE_MAX_CHARS: usize = 500;
const NAME_MAX_CHARS: usize = 100;
/// The collage: up to this many pictures in a grid of this side.
const COLLAGE_CELLS: usize = 4;
const COLLAGE_SIDE_PX: u32 = 256;

#[derive(Debug, Clone)]
pub(crate) struct MoodboardRow {
    pub id: String,
    pub owner_id: String,
    pub name: String,
    pub style_guide: String,
    pub image_urls: Vec<String>,
    /// `(hex, colour name)`, most populous first.
    pub colors: Vec<(String, String)>,
    pub master_prompt: String,
    pub thumb_rel_path: String,
    pub created_at: String,
    pub updated_at: String,
}

impl MoodboardRow {
    fn to_json(&self, state: &AppState) -> Value {
        json!({
            "id": self.id,
            "name": self.name,
            "master_prompt": self.master_prompt,
            "style_guide": self.style_guide,
            "thumbnail_url": state.file_url(&self.thumb_rel_path),
            "images": self.image_urls.iter().map(|url| json!({"type": "url", "url": url})).collect::<Vec<_>>(),
            "colors": self.colors.iter().map(|(hex, name)| json!({"hex": hex, "name": name})).collect::<Vec<_>>(),
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        })
    }

    pub(crate) fn hexes(&self) -> Vec<String> {
        self.colors.iter().map(|(hex, _)| hex.clone()).collect()
    }
}

const COLUMNS: &str = "id, owner_id, name, style_guide, image_urls_json, colors_json, \
    master_prompt, thumb_rel_path, created_at, updated_at";

fn from_row(row: &Row<'_>) -> rusqlite::Result<MoodboardRow> {
    let urls: String = row.get("image_urls_json")?;
    let colors: String = row.get("colors_json")?;
    Ok(MoodboardRow {
        id: row.get("id")?,
        owner_id: row.get("owner_id")?,
        name: row.get("name")?,
        style_guide: row.get("style_guide")?,
        image_urls: serde_json::from_str(&urls).unwrap_or_default(),
        colors: serde_json::from_str(&colors).unwrap_or_default(),
        master_prompt: row.get("master_prompt")?,
        thumb_rel_path: row.get("thumb_rel_path")?,
        created_at: row.get("created_at")?,
        updated_at: row.get("updated_at")?,
    })
}

impl Store {
    fn save_moodboard(&self, row: &MoodboardRow) -> rusqlite::Result<()> {
        self.lock().execute(
            &format!(
                "INSERT INTO moodboards ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                 ON CONFLICT(id) DO UPDATE SET name = excluded.name,
                    style_guide = excluded.style_guide, image_urls_json = excluded.image_urls_json,
                    colors_json = excluded.colors_json, master_prompt = excluded.master_prompt,
                    thumb_rel_path = excluded.thumb_rel_path, updated_at = excluded.updated_at"
            ),
            params![
                row.id,
                row.owner_id,
                row.name,
                row.style_guide,
                serde_json::to_string(&row.image_urls).unwrap_or_default(),
                serde_json::to_string(&row.colors).unwrap_or_default(),
                row.master_prompt,
                row.thumb_rel_path,
                row.created_at,
                row.updated_at,
            ],
        )?;
        Ok(())
    }

    pub(crate) fn moodboard(&self, id: &str) -> rusqlite::Result<Option<MoodboardRow>> {
        self.lock()
            .query_row(
                &format!("SELECT {COLUMNS} FROM moodboards WHERE id = ?1"),
                params![id],
                from_row,
            )
            .optional()
    }

    fn moodboards_of(&self, owner_id: &str) -> rusqlite::Result<Vec<MoodboardRow>> {
        let conn = self.lock();
        let mut stmt = conn.prepare(&format!(
            "SELECT {COLUMNS} FROM moodboards WHERE owner_id = ?1 ORDER BY seq DESC"
        ))?;
        stmt.query_map(params![owner_id], from_row)?.collect()
    }

    fn delete_moodboard(&self, id: &str) -> rusqlite::Result<()> {
        self.lock()
            .execute("DELETE FROM moodboards WHERE id = ?1", params![id])?;
        Ok(())
    }
}

fn invalid(field: &str, message: impl Into<String>) -> ApiError {
    ApiError::raw(
        StatusCode::BAD_REQUEST,
        json!({"success": false, "error": message.into(), "code": "VALIDATION_ERROR", "field": field}),
    )
}

fn not_found() -> ApiError {
    ApiError::sdk(StatusCode::NOT_FOUND, "NOT_FOUND", "Moodboard not found")
}

/// The caller's moodboard (another user's is as unknown as a missing one).
pub(crate) fn owned(state: &AppState, user_id: &str, id: &str) -> ApiResult<Option<MoodboardRow>> {
    visible_row(
        id,
        |id| state.store.moodboard(id),
        |row| row.owner_id == user_id,
    )
}

fn name_field(value: &Value) -> ApiResult<String> {
    match value {
        Value::String(name)
            if !name.trim().is_empty() && name.trim().chars().count() <= NAME_MAX_CHARS =>
        {
            Ok(name.trim().to_owned())
        }
        _ => Err(invalid(
            "name",
            format!("name must be 1 to {NAME_MAX_CHARS} characters"),
        )),
    }
}

fn style_guide_field(value: &Value) -> ApiResult<String> {
    match value {
        Value::Null => Ok(String::new()),
        Value::String(text) if text.trim().chars().count() <= STYLE_GUIDE_MAX_CHARS => {
            Ok(text.trim().to_owned())
        }
        _ => Err(invalid(
            "style_guide",
            format!("style_guide must be text of at most {STYLE_GUIDE_MAX_CHARS} characters"),
        )),
    }
}

/// `[{type:"url", url}]` (plain URL strings are read too): 1–15 http(s) URLs.
fn images_field(value: &Value) -> ApiResult<Vec<String>> {
    let shape = || {
        invalid(
            "images",
            format!(
                "images must be {MIN_IMAGES} to {MAX_IMAGES} entries of {{\"type\":\"url\",\"url\":\"https://...\"}}"
            ),
        )
    };
    let Value::Array(items) = value else {
        return Err(shape());
    };
    if items.len() < MIN_IMAGES || items.len() > MAX_IMAGES {
        return Err(shape());
    }
    items
        .iter()
        .map(|item| {
            let url = match item {
                Value::String(url) => Some(url.as_str()),
                Value::Object(map) => match map.get("type").and_then(Value::as_str) {
                    None | Some("url") => map.get("url").and_then(Value::as_str),
                    Some(_) => None,
                },
                _ => None,
            };
            match url.map(str::trim) {
                Some(url) if url.starts_with("http://") || url.starts_with("https://") => {
                    Ok(url.to_owned())
                }
                _ => Err(shape()),
            }
        })
        .collect()
}

/// Fetches and decodes every picture (the error names the entry that failed).
async fn fetch_pictures(state: &AppState, urls: &[String]) -> ApiResult<Vec<DynamicImage>> {
    let mut images = Vec::with_capacity(urls.len());
    for (index, url) in urls.iter().enumerate() {
        let bytes = fetch_policy::fetch(state, url, SOURCE_LIMITS)
            .await
            .map_err(|error| {
                invalid(
                    "images",
                    format!("images[{index}] could not be fetched: {error}"),
                )
            })?;
        let image = tokio::task::spawn_blocking(move || decode_image(&bytes))
            .await
            .map_err(|e| ApiError::internal("moodboard decode", e))?
            .map_err(|error| {
                invalid(
                    "images",
                    format!("images[{index}] is not a readable image: {error}"),
                )
            })?;
        images.push(image);
    }
    Ok(images)
}

/// Up to four pictures in a 2×2 grid (one picture fills the square).
fn collage(images: &[DynamicImage]) -> RgbImage {
    let mut out = RgbImage::from_pixel(COLLAGE_SIDE_PX, COLLAGE_SIDE_PX, image::Rgb([24, 24, 28]));
    let cells: Vec<&DynamicImage> = images.iter().take(COLLAGE_CELLS).collect();
    let side = COLLAGE_SIDE_PX;
    let half = side / 2;
    // (x, y, width, height) of each cell: every layout fills the square, so a board of
    // two or three images has no empty corner.
    let layout: Vec<(u32, u32, u32, u32)> = match cells.len() {
        0 => Vec::new(),
        1 => vec![(0, 0, side, side)],
        2 => vec![(0, 0, half, side), (half, 0, side - half, side)],
        3 => vec![
            (0, 0, half, side),
            (half, 0, side - half, half),
            (half, half, side - half, side - half),
        ],
        _ => vec![
            (0, 0, half, half),
            (half, 0, side - half, half),
            (0, half, half, side - half),
            (half, half, side - half, side - half),
        ],
    };
    for (image, (x, y, width, height)) in cells.iter().zip(layout) {
        let tile = image
            .resize_to_fill(width, height, FilterType::Triangle)
            .to_rgb8();
        image::imageops::replace(&mut out, &tile, i64::from(x), i64::from(y));
    }
    out
}

/// The prompt fragment generations with this moodboard use.
fn master_prompt(name: &str, style_guide: &str, colors: &[(String, String)]) -> String {
    let mut names: Vec<&str> = Vec::new();
    for (_, color) in colors.iter().take(5) {
        if !names.contains(&color.as_str()) {
            names.push(color);
        }
    }
    let hexes: Vec<&str> = colors.iter().take(5).map(|(hex, _)| hex.as_str()).collect();
    let mut prompt = format!("In the look of the moodboard \"{name}\"");
    if !style_guide.is_empty() {
        prompt.push_str(&format!(": {}", style_guide.trim_end_matches('.')));
    }
    if !names.is_empty() {
        prompt.push_str(&format!(
            ". Palette of {} ({})",
            names.join(", "),
            hexes.join(", ")
        ));
    }
    prompt.push('.');
    prompt
}

/// Colours and collage of `urls`, written for moodboard `id`.
async fn analyse(
    state: &AppState,
    id: &str,
    urls: &[String],
) -> ApiResult<(Vec<(String, String)>, String)> {
    let images = fetch_pictures(state, urls).await?;
    let thumb_rel_path = format!("moodboards/{id}/collage_{}.jpg", new_object_id());
    let target = state.files_dir.join(&thumb_rel_path);
    let colors = tokio::task::spawn_blocking(move || {
        let colors = dominant_colors(&images);
        write_jpeg(&target, &collage(&images)).map(|()| colors)
    })
    .await
    .map_err(|e| ApiError::internal("moodboard collage", e))?
    .map_err(|e| ApiError::internal("moodboard collage", e))?;
    Ok((colors, thumb_rel_path))
}

/// GET /v1/moodboards
pub(crate) async fn list(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
) -> ApiResult<Json<Value>> {
    let rows = state.store.moodboards_of(&caller.user_id)?;
    let items: Vec<Value> = rows.iter().map(|r| r.to_json(&state)).collect();
    Ok(Json(
        json!({"success": true, "count": items.len(), "moodboards": items}),
    ))
}

/// GET /v1/moodboards/{id}
pub(crate) async fn get_one(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    let row = owned(&state, &caller.user_id, &id)?.ok_or_else(not_found)?;
    Ok(Json(
        json!({"success": true, "moodboard": row.to_json(&state)}),
    ))
}

fn field<'a>(body: &'a Map<String, Value>, keys: &[&str]) -> Option<&'a Value> {
    keys.iter().find_map(|k| body.get(*k))
}

/// POST /v1/moodboards `{name, images, style_guide}`
pub(crate) async fn create(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let body = json_object(&body)?;
    let name = name_field(field(&body, &["name"]).unwrap_or(&Value::Null))?;
    let urls = images_field(field(&body, &["images"]).unwrap_or(&Value::Null))?;
    let style_guide =
        style_guide_field(field(&body, &["style_guide", "styleGuide"]).unwrap_or(&Value::Null))?;
    let id = new_object_id();
    let (colors, thumb_rel_path) = analyse(&state, &id, &urls).await?;
    let now = state.clock.now_iso();
    let row = MoodboardRow {
        master_prompt: master_prompt(&name, &style_guide, &colors),
        id,
        owner_id: caller.user_id.clone(),
        name,
        style_guide,
        image_urls: urls,
        colors,
        thumb_rel_path,
        created_at: now.clone(),
        updated_at: now,
    };
    state.store.save_moodboard(&row)?;
    Ok((
        StatusCode::CREATED,
        Json(json!({"success": true, "moodboard": row.to_json(&state)})),
    ))
}

/// PUT /v1/moodboards/{id}: any subset of the create fields.
pub(crate) async fn update(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    let body = json_object(&body)?;
    let mut row = owned(&state, &caller.user_id, &id)?.ok_or_else(not_found)?;
    if let Some(value) = field(&body, &["name"]) {
        row.name = name_field(value)?;
    }
    if let Some(value) = field(&body, &["style_guide", "styleGuide"]) {
        row.style_guide = style_guide_field(value)?;
    }
    if let Some(value) = field(&body, &["images"]) {
        let urls = images_field(value)?;
        let (colors, thumb_rel_path) = analyse(&state, &row.id, &urls).await?;
        let _ = std::fs::remove_file(state.files_dir.join(&row.thumb_rel_path));
        row.image_urls = urls;
        row.colors = colors;
        row.thumb_rel_path = thumb_rel_path;
    }
    row.master_prompt = master_prompt(&row.name, &row.style_guide, &row.colors);
    row.updated_at = state.clock.now_iso();
    state.store.save_moodboard(&row)?;
    Ok(Json(
        json!({"success": true, "moodboard": row.to_json(&state)}),
    ))
}

/// DELETE /v1/moodboards/{id}
pub(crate) async fn delete(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    let row = owned(&state, &caller.user_id, &id)?.ok_or_else(not_found)?;
    state.store.delete_moodboard(&row.id)?;
    let _ = std::fs::remove_dir_all(state.files_dir.join(format!("moodboards/{}", row.id)));
    Ok(Json(json!({"success": true})))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_collage_of_two_or_three_images_leaves_no_empty_corner() {
        let background = image::Rgb([24, 24, 28]);
        let red = DynamicImage::ImageRgb8(RgbImage::from_pixel(8, 8, image::Rgb([200, 0, 0])));
        let blue = DynamicImage::ImageRgb8(RgbImage::from_pixel(8, 8, image::Rgb([0, 0, 200])));
        for images in [
            vec![red.clone(), blue.clone()],
            vec![red, blue.clone(), blue],
        ] {
            let out = collage(&images);
            let last = COLLAGE_SIDE_PX - 1;
            for (x, y) in [(0, 0), (last, 0), (0, last), (last, last)] {
                assert_ne!(
                    *out.get_pixel(x, y),
                    background,
                    "corner ({x}, {y}) of a {}-image collage is empty",
                    images.len()
                );
            }
        }
    }

    #[test]
    fn master_prompt_names_the_style_and_colours() {
        let prompt = master_prompt(
            "Dusk",
            "soft film grain.",
            &[("#008080".into(), "Teal".into())],
        );
        assert_eq!(
            prompt,
            "In the look of the moodboard \"Dusk\": soft film grain. Palette of Teal (#008080)."
        );
    }

    #[test]
    fn images_accept_url_objects_and_refuse_other_shapes() {
        let ok =
            images_field(&json!([{"type": "url", "url": "https://x/a.png"}, "http://y/b.jpg"]));
        assert_eq!(ok.map(|v| v.len()).ok(), Some(2));
        assert!(images_field(&json!([])).is_err());
        assert!(images_field(&json!([{"type": "file", "url": "https://x"}])).is_err());
        let many: Vec<Value> = (0..16)
            .map(|i| json!(format!("https://x/{i}.png")))
            .collect();
        assert!(images_field(&Value::Array(many)).is_err());
    }
}
