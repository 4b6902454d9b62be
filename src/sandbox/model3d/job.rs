//! The 3D job: builds the model from what the route stored, writes
//! `generations/<id>/model.glb`, `model.obj` and `thumbnail.png`, and files one library
//! item of type `3d_model` (the GLB, with the OBJ among its formats).

use serde_json::{Value, json};

use crate::sandbox::files::{write_bytes, write_png};
use crate::sandbox::ids::new_object_id;
use crate::sandbox::jobs::{StoredResult, stored_look};
use crate::sandbox::media_store::NewMedia;
use crate::sandbox::state::AppState;
use crate::sandbox::store::{GenerationRow, now_iso};

use super::mesh::DEFAULT_TRIANGLES;
use super::{THUMBNAIL_SIDE_PX, make};

/// `type` of 3D generations (the wire's `type:"3d"`).
pub(crate) const THREE_D_KIND: &str = "3d";
/// The library's media type of a model.
pub(crate) const MEDIA_TYPE: &str = "3d_model";
/// The catalog types of 3D models.
pub(crate) const THREE_D_TYPES: [&str; 4] = [
    "3d_text_to_model",
    "3d_image_to_model",
    "3d_multi_image_to_model",
    "3d_world",
];
/// The catalog type of world models (their output is an island, not an object).
pub(crate) const WORLD_TYPE: &str = "3d_world";
/// Name of the node, mesh and scene inside every GLB.
pub(crate) const MODEL_NAME: &str = "Framewright model";
/// Longest library item name taken from the prompt.
const MEDIA_NAME_MAX_CHARS: usize = 80;

fn request_of(row: &GenerationRow) -> Value {
    serde_json::from_str(&row.request_json).unwrap_or(Value::Null)
}

/// The mode the route stored (`text` when missing).
pub(crate) fn mode_of(request: &Value) -> String {
    request
        .get("mode")
        .and_then(Value::as_str)
        .map(|m| m.trim().to_ascii_lowercase())
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| "text".to_owned())
}

/// The triangle count the route accepted (the default when none was sent).
fn triangles_of(request: &Value) -> u32 {
    request
        .get("target_polycount")
        .and_then(Value::as_u64)
        .map_or(DEFAULT_TRIANGLES, |n| n.min(u64::from(u32::MAX)) as u32)
}

fn failure(row: &GenerationRow, detail: &str) -> Value {
    json!({
        "message": format!("The sandbox could not produce the model: {detail}"),
        "category": "internal_error",
        "code": "RENDER_FAILED",
        "retryable": Value::Null,
        "severity": "error",
        "provider": row.provider,
    })
}

/// Builds and writes the model on the blocking pool.
pub(crate) async fn produce(state: &AppState, row: &GenerationRow) -> Result<StoredResult, Value> {
    let request = request_of(row);
    let triangles = triangles_of(&request);
    let pbr = request.get("enable_pbr").and_then(Value::as_bool) == Some(true);
    // Image modes: the reference images' colours, decided at submit.
    let palette: Vec<[u8; 3]> = stored_look(row)
        .grade
        .iter()
        .filter_map(|c| crate::palette::Rgb::from_hex(&c.hex))
        .map(|rgb| [rgb.r, rgb.g, rgb.b])
        .collect();
    let world = state.catalog.find(&row.model, WORLD_TYPE).is_some();
    let files_dir = state.files_dir.clone();
    let row = row.clone();
    let seed = row.seed as u64;
    let written = tokio::task::spawn_blocking(move || {
        let files = make(seed, triangles, &palette, pbr, world, MODEL_NAME);
        let dir = format!("generations/{}", row.id);
        let glb = format!("{dir}/model.glb");
        let obj = format!("{dir}/model.obj");
        let thumb = format!("{dir}/thumbnail.png");
        write_bytes(&files_dir.join(&glb), &files.glb).map_err(|e| failure(&row, &e))?;
        write_bytes(&files_dir.join(&obj), files.obj.as_bytes()).map_err(|e| failure(&row, &e))?;
        write_png(&files_dir.join(&thumb), &files.thumbnail).map_err(|e| failure(&row, &e))?;
        tracing::debug!(generation_id = %row.id, triangles = files.triangles, "3d model written");
        Ok(StoredResult {
            paths: vec![glb, obj],
            thumbnail_path: Some(thumb.clone()),
            thumbnail_paths: vec![thumb],
            created_at: now_iso(),
            width: THUMBNAIL_SIDE_PX,
            height: THUMBNAIL_SIDE_PX,
            duration_secs: None,
            frame_count: None,
            edit_type: None,
            credits_used: None,
            billed_secs: None,
            content: None,
            audio: None,
        })
    })
    .await;
    match written {
        Ok(result) => result,
        Err(join_error) => Err(json!({
            "message": format!("The sandbox's model builder stopped: {join_error}"),
            "category": "internal_error",
            "code": "RENDER_FAILED",
            "retryable": true,
            "severity": "error",
            "provider": "sandbox",
        })),
    }
}

/// The format name of an output path (`glb`, `obj`).
fn format_of(rel_path: &str) -> &str {
    rel_path.rsplit('.').next().unwrap_or("")
}

/// The completed status's 3D fields: `mode` and `formats` (format → URL).
pub(crate) fn result_fields(
    state: &AppState,
    row: &GenerationRow,
    paths: &[String],
    result: &mut Value,
) {
    let formats: serde_json::Map<String, Value> = paths
        .iter()
        .map(|p| (format_of(p).to_owned(), json!(state.file_url(p))))
        .collect();
    result["mode"] = json!(mode_of(&request_of(row)));
    result["formats"] = Value::Object(formats);
}

/// One library item per model: the GLB, with `metadata.formats` naming every file (stored
/// as paths, served as URLs by [`served_metadata`]).
pub(crate) fn media(state: &AppState, row: &GenerationRow, result: &StoredResult) -> Vec<NewMedia> {
    let Some(glb) = result.paths.first() else {
        return Vec::new();
    };
    let request = request_of(row);
    let formats: serde_json::Map<String, Value> = result
        .paths
        .iter()
        .map(|p| (format_of(p).to_owned(), json!(p)))
        .collect();
    let (catalog_type, model_name) = THREE_D_TYPES
        .iter()
        .find_map(|t| {
            state
                .catalog
                .find(&row.model, t)
                .map(|spec| (*t, spec.name.clone()))
        })
        .map_or(("3d_text_to_model", None), |(t, name)| (t, Some(name)));
    let now_ms = state.clock.now_ms();
    let name: String = if row.prompt.trim().is_empty() {
        "3D model".to_owned()
    } else {
        row.prompt.chars().take(MEDIA_NAME_MAX_CHARS).collect()
    };
    let metadata = json!({
        "category": "3d-model",
        "source": "api",
        "prompt": row.prompt,
        "promptUsed": row.prompt_used,
        "model": row.model,
        "modelName": model_name,
        "provider": row.provider,
        "mode": mode_of(&request),
        "format": "glb",
        "formats": formats,
        "targetPolycount": triangles_of(&request),
        "seed": row.seed,
        "outputIndex": 0,
        "generationId": row.id,
        "referenceMedia": row.source_images,
        "visualDnaNames": [],
    });
    vec![NewMedia {
        id: new_object_id(),
        user_id: row.user_id.clone(),
        project_id: row.project_id.clone(),
        session_id: Some(row.session_id.clone()),
        generation_id: Some(row.id.clone()),
        output_index: 0,
        source_type: "generated".to_owned(),
        category: "3d-model".to_owned(),
        media_type: MEDIA_TYPE.to_owned(),
        generation_type: Some(catalog_type.to_owned()),
        name,
        filename: format!("{}.glb", row.id),
        rel_path: glb.clone(),
        thumb_rel_path: result.thumbnail_path.clone(),
        owns_files: true,
        size_bytes: std::fs::metadata(state.files_dir.join(glb))
            .ok()
            .map(|m| m.len()),
        prompt: Some(row.prompt.clone()),
        width: None,
        height: None,
        duration_secs: None,
        credits_used: Some(result.charged(row)),
        generation_duration_secs: Some((row.duration_ms as f64 / 100.0).round() / 10.0),
        source_tag: Some("api".to_owned()),
        metadata,
        created_at: crate::sandbox::clock::Clock::iso_at(now_ms),
        created_ms: now_ms,
        ..NewMedia::default()
    }]
}

/// A served `3d_model` item's metadata: `thumbnailUrl` and `formats` as URLs of the
/// current origin (the stored record keeps paths, so a restart on another port is fine).
pub(crate) fn served_metadata(
    state: &AppState,
    thumb_rel_path: Option<&str>,
    metadata: &mut Value,
) {
    if let Some(formats) = metadata.get_mut("formats").and_then(Value::as_object_mut) {
        for value in formats.values_mut() {
            if let Some(path) = value.as_str()
                && !path.starts_with("http")
            {
                *value = json!(state.file_url(path));
            }
        }
    }
    metadata["thumbnailUrl"] = json!(thumb_rel_path.map(|p| state.file_url(p)));
}
