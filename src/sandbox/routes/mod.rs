//! The HTTP surface: /api/v1/... (authenticated, rate limited) and /files/... (public).

mod account;
mod generate;
mod models;
mod projects;
mod status;
mod upload;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::middleware::from_fn_with_state;
use axum::routing::{get, post};
use serde_json::{Map, Value};

use super::auth::require_api_key;
use super::files;
use super::http_error::{ApiError, ApiResult};
use super::rate_limit::{Group, endpoint_limit, global_limit};
use super::state::AppState;

pub(crate) fn router(state: AppState) -> Router {
    let limit = |group: Group| from_fn_with_state((state.clone(), group), endpoint_limit);
    let api = Router::new()
        .route("/v1/models", get(models::list))
        .route("/v1/account/credits", get(account::credits))
        .route(
            "/v1/projects",
            get(projects::list)
                .merge(post(projects::create).route_layer(limit(Group::ProjectCreation))),
        )
        .route(
            "/v1/generate/image",
            post(generate::image).route_layer(limit(Group::ImageGeneration)),
        )
        .route(
            "/v1/generate/image-edit",
            post(generate::image_edit).route_layer(limit(Group::ImageGeneration)),
        )
        .route("/v1/generate/{id}/status", get(status::status))
        .route(
            "/v1/generate/{id}/cancel",
            post(status::cancel).route_layer(limit(Group::OtherGeneration)),
        )
        .route(
            "/v1/media/upload",
            post(upload::upload)
                .route_layer(limit(Group::OtherGeneration))
                // The handler streams to disk and enforces the 500 MB cap itself.
                .layer(DefaultBodyLimit::disable()),
        )
        .fallback(api_not_found)
        .layer(from_fn_with_state(state.clone(), global_limit))
        .layer(from_fn_with_state(state.clone(), require_api_key));
    Router::new()
        .nest("/api", api)
        .route("/files/{*path}", get(files::serve))
        .fallback(api_not_found)
        .with_state(state)
}

async fn api_not_found() -> ApiError {
    ApiError::sdk(StatusCode::NOT_FOUND, "NOT_FOUND", "Route not found")
}

/// Parses a JSON request body; malformed JSON is a Shape 2 400 like the global middleware's.
/// An empty body counts as `{}` and a non-object as having no fields.
pub(crate) fn json_object(body: &[u8]) -> ApiResult<Map<String, Value>> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Map::new());
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Ok(Map::new()),
        Err(error) => Err(ApiError::malformed_json(error)),
    }
}

/// `project_id` on a request: absent or null = the default project; malformed = Shape 2 400;
/// unknown = 404 NOT_FOUND.
pub(crate) fn resolve_project(
    state: &AppState,
    user_id: &str,
    value: Option<&Value>,
) -> ApiResult<String> {
    match value {
        None | Some(Value::Null) => Ok(state.store.ensure_default_project(user_id)?.id),
        Some(Value::String(id)) if super::ids::is_object_id(id.trim()) => {
            match state.store.find_project(user_id, id.trim())? {
                Some(project) => Ok(project.id),
                None => Err(ApiError::sdk(
                    StatusCode::NOT_FOUND,
                    "NOT_FOUND",
                    "Project not found",
                )),
            }
        }
        Some(_) => Err(ApiError::global(
            StatusCode::BAD_REQUEST,
            "Invalid project ID format",
        )),
    }
}
