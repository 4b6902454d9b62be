//! POST /v1/color-palettes/analyze: median-cut extraction over 1-5 downloaded images with
//! the same `crate::palette::analyze` the studio runs locally. Nothing is saved.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde_json::{Value, json};

use super::json_object;
use super::palette_body::MAX_SOURCE_IMAGE_URLS;
use super::palettes::handler_error;
use crate::palette::{ImageRef, analyze as analyze_pixels};
use crate::sandbox::analyze_fetch::fetch_for_analysis;
use crate::sandbox::auth::Caller;
use crate::sandbox::fetch::decode_image;
use crate::sandbox::http_error::{ApiError, ApiResult};
use crate::sandbox::palette_store::colors_to_json;
use crate::sandbox::state::AppState;

const IMAGE_URLS_MESSAGE: &str = "imageUrls must be an array of 1-5 URLs";

pub(crate) async fn analyze(
    State(state): State<AppState>,
    Extension(_caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    let body = json_object(&body)?;
    // Every other field is discarded.
    let urls: Vec<String> = match body.get("image_urls") {
        Some(Value::Array(items))
            if (1..=MAX_SOURCE_IMAGE_URLS).contains(&items.len())
                && items.iter().all(Value::is_string) =>
        {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        }
        _ => return Err(handler_error(StatusCode::BAD_REQUEST, IMAGE_URLS_MESSAGE)),
    };
    let mut downloads = Vec::with_capacity(urls.len());
    for url in &urls {
        match fetch_for_analysis(&state, url).await {
            Ok(bytes) => downloads.push(bytes),
            // Undownloadable images are skipped, as the contract says.
            Err(error) => tracing::info!(%url, %error, "analyze skipped an image"),
        }
    }
    let analyzed = tokio::task::spawn_blocking(move || {
        let decoded: Vec<image::RgbaImage> = downloads
            .iter()
            .filter_map(|bytes| match decode_image(bytes) {
                Ok(image) => Some(image.to_rgba8()),
                Err(error) => {
                    tracing::info!(%error, "analyze skipped an undecodable image");
                    None
                }
            })
            .collect();
        if decoded.is_empty() {
            return None;
        }
        let refs: Vec<ImageRef<'_>> = decoded
            .iter()
            .map(|img| ImageRef {
                width: img.width(),
                height: img.height(),
                rgba: img.as_raw(),
            })
            .collect();
        Some(analyze_pixels(&refs))
    })
    .await
    .map_err(|error| ApiError::internal("palette analysis", error))?;
    let Some(palette) = analyzed else {
        return Err(handler_error(
            StatusCode::BAD_REQUEST,
            "None of the images could be downloaded",
        ));
    };
    Ok(Json(json!({
        "success": true,
        "name": palette.name,
        "colors": colors_to_json(&palette.colors),
    })))
}
