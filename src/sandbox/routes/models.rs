use axum::Json;
use axum::extract::{Query, State};
use serde::Deserialize;
use serde_json::{Value, json};

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
