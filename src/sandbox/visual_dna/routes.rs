//! `/v1/visual-dna` routes: multipart create, list, get, update, delete, folders, move.

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::{Multipart, Path, Query, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde_json::{Map, Value, json};
use tokio::io::AsyncWriteExt;

use super::describe::{describe, dominant_colors, square_thumbnail};
use super::store::{DnaChanges, DnaQuery, VisualDnaRow};
use crate::image_codec::{self, DecodeBudget};
use crate::sandbox::auth::Caller;
use crate::sandbox::files::{content_type_for, write_jpeg};
use crate::sandbox::http_error::{ApiError, ApiResult};
use crate::sandbox::ids::new_object_id;
use crate::sandbox::routes::json_object;
use crate::sandbox::routes::lookup::{Page, visible_row};
use crate::sandbox::routes::upload::{
    MAX_UPLOAD_BYTES, extension_for, file_too_large, multipart_error, text_field,
};
use crate::sandbox::state::AppState;

pub(crate) const NAME_MAX_CHARS: usize = 100;
pub(crate) const MIN_IMAGES: usize = 1;
pub(crate) const MAX_IMAGES: usize = 4;
pub(crate) const DNA_TYPES: [&str; 4] = ["character", "product", "style", "environment"];
const DEFAULT_PAGE_LIMIT: u32 = 20;
const MAX_PAGE_LIMIT: u32 = 100;
/// Building lasts this long at speed 1 (the range is picked per entry).
const BUILD_MIN_MS: f64 = 10_000.0;
const BUILD_MAX_MS: f64 = 30_000.0;
const FOLDER_NAME_MAX_CHARS: usize = 100;

fn invalid(field: &str, message: impl Into<String>) -> ApiError {
    let message = message.into();
    ApiError::raw(
        StatusCode::BAD_REQUEST,
        json!({"success": false, "error": message, "code": "VALIDATION_ERROR", "field": field}),
    )
}

pub(crate) fn not_found() -> ApiError {
    ApiError::sdk(StatusCode::NOT_FOUND, "NOT_FOUND", "Visual DNA not found")
}

fn folder_not_found() -> ApiError {
    ApiError::sdk(StatusCode::NOT_FOUND, "NOT_FOUND", "Folder not found")
}

fn global_forbidden() -> ApiError {
    ApiError::sdk(
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
        "Global Visual DNAs cannot be changed or deleted",
    )
}

/// 1–100 characters after trimming.
pub(crate) fn valid_name(field: &str, raw: &str) -> ApiResult<String> {
    let name = raw.trim();
    let chars = name.chars().count();
    if chars == 0 || chars > NAME_MAX_CHARS {
        return Err(invalid(
            field,
            format!("{field} must be 1 to {NAME_MAX_CHARS} characters"),
        ));
    }
    Ok(name.to_owned())
}

fn valid_type(raw: &str) -> ApiResult<String> {
    let lower = raw.trim().to_ascii_lowercase();
    if DNA_TYPES.contains(&lower.as_str()) {
        Ok(lower)
    } else {
        Err(invalid(
            "dna_type",
            "dna_type must be one of character, product, style, environment",
        ))
    }
}

fn url_of(state: &AppState) -> impl Fn(&str) -> String + '_ {
    move |rel: &str| state.file_url(rel)
}

fn row_json(state: &AppState, row: &VisualDnaRow, with_system_prompt: bool) -> Value {
    row.to_json(state.clock.now_ms(), &url_of(state), with_system_prompt)
}

/// An entry the caller may read: their own or a global one.
fn readable(state: &AppState, caller: &Caller, id: &str) -> ApiResult<VisualDnaRow> {
    visible_row(
        id,
        |id| state.store.visual_dna(id),
        |row| row.is_global() || row.owner_id.as_deref() == Some(&caller.user_id),
    )?
    .ok_or_else(not_found)
}

/// An entry the caller may change: their own (a global is 403).
fn writable(state: &AppState, caller: &Caller, id: &str) -> ApiResult<VisualDnaRow> {
    let row = readable(state, caller, id)?;
    if row.is_global() {
        return Err(global_forbidden());
    }
    Ok(row)
}

struct Upload {
    rel_path: String,
    size_bytes: u64,
}

/// POST /v1/visual-dna (multipart).
pub(crate) async fn create(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    mut multipart: Multipart,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let id = new_object_id();
    let mut name: Option<String> = None;
    let mut dna_type: Option<String> = None;
    let mut prompt_helper: Option<String> = None;
    let mut uploads: Vec<Upload> = Vec::new();
    let mut too_many = false;
    let received: ApiResult<()> = async {
        while let Some(mut field) = multipart.next_field().await.map_err(multipart_error)? {
            match field.name() {
                Some("name") => name = Some(text_field(field, "name").await?),
                Some("dna_type" | "dnaType") => {
                    dna_type = Some(text_field(field, "dna_type").await?)
                }
                Some("prompt_helper" | "promptHelper") => {
                    prompt_helper =
                        Some(text_field(field, "prompt_helper").await?).filter(|h| !h.is_empty())
                }
                Some("images" | "images[]") => {
                    if uploads.len() >= MAX_IMAGES {
                        too_many = true;
                        while field.chunk().await.map_err(multipart_error)?.is_some() {}
                        continue;
                    }
                    let filename = field.file_name().unwrap_or("image").to_owned();
                    let mime = field
                        .content_type()
                        .map(str::to_ascii_lowercase)
                        .filter(|m| m != "application/octet-stream")
                        .unwrap_or_else(|| content_type_for(&filename).to_owned());
                    let rel_path = format!(
                        "visual_dna/{id}/{}.{}",
                        uploads.len(),
                        extension_for(&filename, &mime)
                    );
                    let path = state.files_dir.join(&rel_path);
                    if let Some(parent) = path.parent() {
                        tokio::fs::create_dir_all(parent)
                            .await
                            .map_err(|e| ApiError::internal("visual DNA storage", e))?;
                    }
                    let mut file = tokio::fs::File::create(&path)
                        .await
                        .map_err(|e| ApiError::internal("visual DNA storage", e))?;
                    let mut size_bytes = 0u64;
                    while let Some(chunk) = field.chunk().await.map_err(multipart_error)? {
                        size_bytes += chunk.len() as u64;
                        if size_bytes > MAX_UPLOAD_BYTES {
                            return Err(file_too_large());
                        }
                        file.write_all(&chunk)
                            .await
                            .map_err(|e| ApiError::internal("visual DNA write", e))?;
                    }
                    file.flush()
                        .await
                        .map_err(|e| ApiError::internal("visual DNA write", e))?;
                    uploads.push(Upload {
                        rel_path,
                        size_bytes,
                    });
                }
                _ => {}
            }
        }
        Ok(())
    }
    .await;
    let dir = state.files_dir.join(format!("visual_dna/{id}"));
    let fail = |error: ApiError| {
        let _ = std::fs::remove_dir_all(&dir);
        error
    };
    received.map_err(fail)?;
    let name = valid_name("name", name.as_deref().unwrap_or("")).map_err(fail)?;
    let dna_type = valid_type(dna_type.as_deref().unwrap_or("")).map_err(fail)?;
    if too_many || uploads.len() < MIN_IMAGES || uploads.iter().any(|u| u.size_bytes == 0) {
        return Err(fail(invalid(
            "images",
            format!("images must be {MIN_IMAGES} to {MAX_IMAGES} image files"),
        )));
    }
    // Decode every picture: one that is not an image refuses the create; one over the
    // decode budget is kept, and the entry fails to build.
    let paths: Vec<std::path::PathBuf> = uploads
        .iter()
        .map(|u| state.files_dir.join(&u.rel_path))
        .collect();
    let decoded = tokio::task::spawn_blocking(move || {
        let mut images = Vec::new();
        let mut too_large = false;
        for (index, path) in paths.iter().enumerate() {
            let bytes = std::fs::read(path).map_err(|e| (index, e.to_string()))?;
            match image_codec::decode(&bytes, DecodeBudget::DEFAULT) {
                Ok(image) => images.push(image),
                Err(error) if error.is_too_large() => too_large = true,
                Err(error) => return Err((index, error.to_string())),
            }
        }
        Ok((images, too_large))
    })
    .await
    .map_err(|e| fail(ApiError::internal("visual DNA decode", e)))?;
    let (images, too_large) = match decoded {
        Ok(found) => found,
        Err((index, error)) => {
            return Err(fail(invalid(
                "images",
                format!(
                    "images[{index}] is not a readable image ({error}); use PNG, JPEG, WebP or GIF"
                ),
            )));
        }
    };
    let failed = too_large || images.is_empty();
    let colors = dominant_colors(&images);
    let thumb = match images.first() {
        Some(first) => square_thumbnail(first),
        None => image::RgbImage::from_pixel(256, 256, image::Rgb([58, 58, 64])),
    };
    let thumb_rel_path = format!("visual_dna/{id}/thumb.jpg");
    write_jpeg(&state.files_dir.join(&thumb_rel_path), &thumb)
        .map_err(|e| fail(ApiError::internal("visual DNA thumbnail", e)))?;
    let (description, system_prompt) = describe(
        &name,
        &dna_type,
        prompt_helper.as_deref(),
        uploads.len(),
        &colors,
    );
    let now_ms = state.clock.now_ms();
    let base_ms = BUILD_MIN_MS + (BUILD_MAX_MS - BUILD_MIN_MS) * state.controls.jitter();
    let speed = if state.speed.is_finite() && state.speed > 0.0 {
        state.speed
    } else {
        1.0
    };
    let build_ms = (base_ms / speed).max(1.0) as u64;
    let row = VisualDnaRow {
        id: id.clone(),
        owner_id: Some(caller.user_id.clone()),
        name,
        dna_type,
        prompt_helper,
        image_paths: uploads.into_iter().map(|u| u.rel_path).collect(),
        thumb_rel_path,
        colors: colors.into_iter().map(|c| c.0).collect(),
        description,
        system_prompt,
        folder_id: None,
        failed,
        ready_at_ms: now_ms.saturating_add(build_ms as i64),
        created_at: crate::sandbox::clock::Clock::iso_at(now_ms),
        created_ms: now_ms,
    };
    state
        .store
        .insert_visual_dna(&row)
        .map_err(|e| fail(e.into()))?;
    tracing::info!(visual_dna_id = %row.id, build_ms, failed, "visual DNA created");
    Ok((
        StatusCode::CREATED,
        Json(json!({"success": true, "visual_dna": row_json(&state, &row, false)})),
    ))
}

fn query_text(query: &HashMap<String, String>, keys: &[&str]) -> Option<String> {
    keys.iter()
        .find_map(|k| query.get(*k))
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

/// GET /v1/visual-dna
pub(crate) async fn list(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Query(query): Query<HashMap<String, String>>,
) -> ApiResult<Json<Value>> {
    let page = Page::lenient(&query, DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT);
    let dna_type = match query_text(&query, &["dna_type", "dnaType"]) {
        Some(raw) => Some(valid_type(&raw)?),
        None => None,
    };
    let filter = DnaQuery {
        search: query_text(&query, &["search"]),
        dna_type,
        folder_id: query_text(&query, &["folder_id", "folderId"]),
        limit: page.limit,
        offset: page.offset(),
    };
    let (rows, total) = state.store.list_visual_dnas(&caller.user_id, &filter)?;
    let items: Vec<Value> = rows.iter().map(|r| row_json(&state, r, false)).collect();
    Ok(Json(json!({
        "success": true,
        "count": items.len(),
        "visual_dnas": items,
        "page": page.page,
        "limit": page.limit,
        "total": total,
    })))
}

/// GET /v1/visual-dna/{id}
pub(crate) async fn get_one(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    let row = readable(&state, &caller, &id)?;
    Ok(Json(
        json!({"success": true, "visual_dna": row_json(&state, &row, true)}),
    ))
}

fn optional_text(body: &Map<String, Value>, keys: &[&str]) -> ApiResult<Option<Value>> {
    Ok(keys.iter().find_map(|k| body.get(*k)).cloned())
}

/// PUT /v1/visual-dna/{id} `{name?, dna_type?, prompt_helper?}`
pub(crate) async fn update(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    let body = json_object(&body)?;
    let row = writable(&state, &caller, &id)?;
    let mut changes = DnaChanges::default();
    match optional_text(&body, &["name"])? {
        None => {}
        Some(Value::String(name)) => changes.name = Some(valid_name("name", &name)?),
        Some(_) => return Err(invalid("name", "name must be a string")),
    }
    match optional_text(&body, &["dna_type", "dnaType"])? {
        None => {}
        Some(Value::String(t)) => changes.dna_type = Some(valid_type(&t)?),
        Some(_) => return Err(invalid("dna_type", "dna_type must be a string")),
    }
    match optional_text(&body, &["prompt_helper", "promptHelper"])? {
        None => {}
        Some(Value::Null) => changes.prompt_helper = Some(None),
        Some(Value::String(h)) => {
            changes.prompt_helper = Some(Some(h.trim().to_owned()).filter(|h| !h.is_empty()))
        }
        Some(_) => {
            return Err(invalid("prompt_helper", "prompt_helper must be a string"));
        }
    }
    // The generated words follow the new name, type and helper.
    let name = changes.name.clone().unwrap_or_else(|| row.name.clone());
    let dna_type = changes
        .dna_type
        .clone()
        .unwrap_or_else(|| row.dna_type.clone());
    let helper = match &changes.prompt_helper {
        Some(helper) => helper.clone(),
        None => row.prompt_helper.clone(),
    };
    let colors: Vec<(String, String)> = row
        .colors
        .iter()
        .map(|hex| {
            let name = crate::palette::Rgb::from_hex(hex)
                .map(crate::palette::nearest_name)
                .unwrap_or("neutral");
            (hex.clone(), name.to_owned())
        })
        .collect();
    let (description, system_prompt) = describe(
        &name,
        &dna_type,
        helper.as_deref(),
        row.image_paths.len(),
        &colors,
    );
    changes.description = Some(description);
    changes.system_prompt = Some(system_prompt);
    let updated = state
        .store
        .update_visual_dna(&row.id, &changes)?
        .ok_or_else(not_found)?;
    Ok(Json(
        json!({"success": true, "visual_dna": row_json(&state, &updated, true)}),
    ))
}

/// DELETE /v1/visual-dna/{id}
pub(crate) async fn delete(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    let row = writable(&state, &caller, &id)?;
    state.store.delete_visual_dna(&row.id)?;
    let _ = std::fs::remove_dir_all(state.files_dir.join(format!("visual_dna/{}", row.id)));
    Ok(Json(
        json!({"success": true, "message": "Visual DNA deleted successfully"}),
    ))
}

fn folder_name(body: &Map<String, Value>) -> ApiResult<String> {
    match body.get("name") {
        Some(Value::String(name))
            if !name.trim().is_empty() && name.trim().chars().count() <= FOLDER_NAME_MAX_CHARS =>
        {
            Ok(name.trim().to_owned())
        }
        _ => Err(invalid(
            "name",
            format!("name must be 1 to {FOLDER_NAME_MAX_CHARS} characters"),
        )),
    }
}

/// GET /v1/visual-dna/folders
pub(crate) async fn folders(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
) -> ApiResult<Json<Value>> {
    let folders: Vec<Value> = state
        .store
        .visual_dna_folders(&caller.user_id)?
        .iter()
        .map(|f| f.to_json())
        .collect();
    Ok(Json(json!({"success": true, "folders": folders})))
}

/// POST /v1/visual-dna/folders `{name}`
pub(crate) async fn create_folder(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let body = json_object(&body)?;
    let name = folder_name(&body)?;
    let folder =
        state
            .store
            .insert_visual_dna_folder(&caller.user_id, &name, &state.clock.now_iso())?;
    Ok((
        StatusCode::CREATED,
        Json(json!({"success": true, "folder": folder.to_json()})),
    ))
}

/// PUT /v1/visual-dna/folders/{id} `{name}`
pub(crate) async fn rename_folder(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    let body = json_object(&body)?;
    let name = folder_name(&body)?;
    if state
        .store
        .visual_dna_folder(&caller.user_id, &id)?
        .is_none()
    {
        return Err(folder_not_found());
    }
    state.store.rename_visual_dna_folder(&id, &name)?;
    let folder = state
        .store
        .visual_dna_folder(&caller.user_id, &id)?
        .ok_or_else(folder_not_found)?;
    Ok(Json(json!({"success": true, "folder": folder.to_json()})))
}

/// DELETE /v1/visual-dna/folders/{id}
pub(crate) async fn delete_folder(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    if state
        .store
        .visual_dna_folder(&caller.user_id, &id)?
        .is_none()
    {
        return Err(folder_not_found());
    }
    state.store.delete_visual_dna_folder(&id)?;
    Ok(Json(json!({"success": true})))
}

/// PUT /v1/visual-dna/{id}/folder `{folder_id: "<id>" | null}`
pub(crate) async fn move_to_folder(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    let body = json_object(&body)?;
    let row = writable(&state, &caller, &id)?;
    let folder_id = match body.get("folder_id").or_else(|| body.get("folderId")) {
        None | Some(Value::Null) => None,
        Some(Value::String(folder)) => {
            if state
                .store
                .visual_dna_folder(&caller.user_id, folder.trim())?
                .is_none()
            {
                return Err(folder_not_found());
            }
            Some(folder.trim().to_owned())
        }
        Some(_) => {
            return Err(invalid("folder_id", "folder_id must be a string or null"));
        }
    };
    let updated = state
        .store
        .set_visual_dna_folder(&row.id, folder_id.as_deref())?
        .ok_or_else(not_found)?;
    Ok(Json(
        json!({"success": true, "visual_dna": row_json(&state, &updated, true)}),
    ))
}
