//! Project documents (AI Docs, document 2): storage, the one sanitiser, the `/api/v1/docs`
//! routes (120/min "docs" group) and the public share page. Behaviour the contract leaves
//! open is described in docs/SANDBOX.md, "Project documents".

mod routes;
mod sanitize;
mod share_page;
mod store;

use axum::Router;
use axum::middleware::from_fn_with_state;
use axum::routing::{get, patch};

use super::rate_limit::{Group, endpoint_limit};
use super::state::AppState;

pub(crate) use store::DOCS_SCHEMA;

/// The authenticated routes, merged into the `/api` router (paths without `/api`).
pub(crate) fn api_routes(state: &AppState) -> Router<AppState> {
    let limit = || from_fn_with_state((state.clone(), Group::Docs), endpoint_limit);
    Router::new()
        .route(
            "/v1/docs",
            get(routes::list).post(routes::create).route_layer(limit()),
        )
        .route(
            "/v1/docs/{id}",
            get(routes::get_one)
                .put(routes::update)
                .delete(routes::delete)
                .route_layer(limit()),
        )
        .route(
            "/v1/docs/{id}/share",
            patch(routes::share).route_layer(limit()),
        )
}

/// The public share page (no API key, no rate limit), merged at the top level.
pub(crate) fn share_routes() -> Router<AppState> {
    Router::new().route(
        "/share/docs/{token}",
        get(share_page::show).post(share_page::save),
    )
}
