use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::sandbox::avatars;
use crate::sandbox::http_error::ApiError;
use crate::sandbox::state::AppState;

#[derive(Debug, Deserialize)]
pub(crate) struct ModelsQuery {
    #[serde(rename = "type")]
    model_type: Option<String>,
    provider: Option<String>,
}

/// GET /v1/models. Neither parameter is validated: unknown values give an empty list.
pub(crate) async fn list(
    State(state): State<AppState>,
    Query(query): Query<ModelsQuery>,
) -> Json<Value> {
    let type_filter = query.model_type.as_deref().filter(|t| !t.is_empty());
    let provider = query.provider.as_deref().filter(|p| !p.is_empty());
    let models = state.catalog.filter(type_filter, provider);
    let count = models.len();
    Json(json!({"success": true, "models": models, "count": count}))
}

/// GET /assets/{file}: the avatar of every catalog model naming `file` as a bare filename
/// (public, like the preset thumbnails; 404 for names the catalog does not use).
pub(crate) async fn avatar_file(
    State(state): State<AppState>,
    Path(file): Path<String>,
) -> Response {
    let Some(provider) = state.catalog.avatar_provider(&file) else {
        return ApiError::sdk(StatusCode::NOT_FOUND, "NOT_FOUND", "File not found").into_response();
    };
    match avatars::png(&file, provider) {
        Ok(bytes) => (
            [
                (header::CONTENT_TYPE, HeaderValue::from_static("image/png")),
                (
                    header::CACHE_CONTROL,
                    HeaderValue::from_static("public, max-age=86400"),
                ),
            ],
            bytes,
        )
            .into_response(),
        Err(error) => ApiError::internal("avatar", error).into_response(),
    }
}
