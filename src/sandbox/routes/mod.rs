//! The HTTP surface: /api/v1/... (authenticated, rate limited) and /files/... (public).

mod account;
mod admin;
mod audio;
mod creative_chat;
mod edit_image;
mod folders;
mod generate;
pub(crate) mod lookup;
mod media;
mod media_bulk;
mod models;
mod motion;
mod palette_analyze;
mod palette_body;
mod palettes;
mod presets;
mod projects;
mod prompt_presets;
mod status;
mod three_d;
mod ticket;
mod transcribe;
mod trim;
pub(crate) mod upload;
mod video;
mod video_edit;
mod video_from_video;
mod voices;

use axum::Router;
use axum::http::StatusCode;
use axum::middleware::{from_fn, from_fn_with_state};
use axum::routing::{delete, get, patch, post, put};
use serde_json::{Map, Value};

use super::auth::require_api_key;
use super::config::RequestLogLevel;
use super::fault_inject;
use super::files;
use super::http_error::{ApiError, ApiResult};
use super::http_log;
use super::rate_limit::{Group, endpoint_limit, global_limit};
use super::state::AppState;

pub(crate) fn router(state: AppState, request_log_level: RequestLogLevel) -> Router {
    let limit = |group: Group| from_fn_with_state((state.clone(), group), endpoint_limit);
    let api = Router::new()
        .route("/v1/models", get(models::list))
        .route("/v1/account/credits", get(account::credits))
        .route(
            "/v1/projects",
            get(projects::list)
                .merge(post(projects::create).route_layer(limit(Group::ProjectCreation))),
        )
        // Project update and archive are in no per-endpoint limiter (contract, rate limits).
        .route(
            "/v1/projects/{id}",
            get(projects::get_one).put(projects::update),
        )
        .route("/v1/projects/{id}/archive", put(projects::archive))
        .route("/v1/projects/{id}/unarchive", put(projects::unarchive))
        .route(
            "/v1/generate/image",
            post(generate::image).route_layer(limit(Group::ImageGeneration)),
        )
        .route(
            "/v1/generate/image-edit",
            post(generate::image_edit).route_layer(limit(Group::ImageGeneration)),
        )
        .route(
            "/v1/edit/image",
            post(edit_image::edit_image).route_layer(limit(Group::ImageGeneration)),
        )
        .route(
            "/v1/generate/video",
            post(video::text_to_video).route_layer(limit(Group::OtherGeneration)),
        )
        .route(
            "/v1/generate/video/from-image",
            post(video::image_to_video).route_layer(limit(Group::OtherGeneration)),
        )
        .route(
            "/v1/generate/video-from-video",
            post(video_from_video::video_from_video).route_layer(limit(Group::OtherGeneration)),
        )
        .route(
            "/v1/edit/video",
            post(video_edit::edit_video).route_layer(limit(Group::OtherGeneration)),
        )
        .route(
            "/v1/video/trim",
            post(trim::submit).route_layer(limit(Group::OtherGeneration)),
        )
        .route(
            "/v1/video/trim/{job_id}",
            get(trim::status).route_layer(limit(Group::Media)),
        )
        .route(
            "/v1/generate/creative-director",
            post(video::creative_director).route_layer(limit(Group::OtherGeneration)),
        )
        .route(
            "/v1/generate/creative-director/{id}/status",
            get(video::creative_director_status),
        )
        // Elements, first-last frame, lip sync: "Other generation" (contract, Limits).
        .route(
            "/v1/generate/elements",
            post(motion::elements).route_layer(limit(Group::OtherGeneration)),
        )
        .route(
            "/v1/generate/first-last-frame",
            post(motion::first_last_frame).route_layer(limit(Group::OtherGeneration)),
        )
        .route(
            "/v1/generate/lipsync",
            post(motion::lipsync).route_layer(limit(Group::OtherGeneration)),
        )
        .route(
            "/v1/generate/music",
            post(audio::music).route_layer(limit(Group::OtherGeneration)),
        )
        .route(
            "/v1/generate/speech",
            post(audio::speech).route_layer(limit(Group::OtherGeneration)),
        )
        .route(
            "/v1/generate/sound",
            post(audio::sound).route_layer(limit(Group::OtherGeneration)),
        )
        .route(
            "/v1/generate/3d",
            post(three_d::three_d).route_layer(limit(Group::OtherGeneration)),
        )
        .route(
            "/v1/transcribe",
            upload::request_cap()
                .apply(post(transcribe::transcribe).route_layer(limit(Group::Transcription))),
        )
        // Voices: no per-endpoint limiter (contract).
        .route("/v1/voices", get(voices::list))
        .route("/v1/generate/{id}/status", get(status::status))
        .route(
            "/v1/generate/{id}/cancel",
            post(status::cancel).route_layer(limit(Group::OtherGeneration)),
        )
        .route(
            "/v1/media/upload",
            // The handler streams the file to disk; the cap bounds the whole request.
            upload::request_cap()
                .apply(post(upload::upload).route_layer(limit(Group::OtherGeneration))),
        )
        .route("/v1/cinematic-presets", get(presets::list))
        // Prompt presets: no per-endpoint limiter (contract, rate limits).
        .route("/v1/presets", get(prompt_presets::list))
        .merge(creative_chat_routes(&state))
        .merge(media_routes(&state))
        .merge(palette_routes(&state))
        .merge(look_routes(&state))
        .merge(super::docs::api_routes(&state))
        .fallback(api_not_found)
        .layer(from_fn_with_state(state.clone(), global_limit))
        .layer(from_fn_with_state(state.clone(), require_api_key))
        // Outermost on /api only: injected faults (docs/SANDBOX.md, "Fault injection").
        .layer(from_fn_with_state(state.clone(), fault_inject::inject));
    Router::new()
        .nest("/api", api)
        .route(
            "/files/{*path}",
            get(files::serve).layer(from_fn_with_state(state.clone(), files::record_request)),
        )
        // Model avatars: the contract resolves bare filenames against {base_url}/assets/.
        .route(
            "/assets/{file}",
            get(models::avatar_file)
                .layer(from_fn_with_state(state.clone(), files::record_request)),
        )
        .route(
            "/assets/presets/{file}",
            get(presets::thumbnail_file)
                .layer(from_fn_with_state(state.clone(), files::record_request)),
        )
        // Ticket uploads carry no API key: the single-use token is the credential.
        .route(
            "/upload-tickets/{token}",
            upload::request_cap().apply(post(ticket::upload_with_path_token)),
        )
        .route(
            "/upload-tickets",
            upload::request_cap().apply(post(ticket::upload_with_query_token)),
        )
        .merge(admin::router(&state))
        .merge(super::docs::share_routes())
        .merge(super::code_api::router(&state))
        .fallback(api_not_found)
        .layer(from_fn_with_state(request_log_level, http_log::log_request))
        .layer(from_fn(http_log::catch_panic))
        .with_state(state)
}

/// Creative chat: submits in the "other generation" group (10/min); the two lists count
/// in the media-and-lifecycle group (120/min, like the sessions list).
fn creative_chat_routes(state: &AppState) -> Router<AppState> {
    let other = || from_fn_with_state((state.clone(), Group::OtherGeneration), endpoint_limit);
    let media = || from_fn_with_state((state.clone(), Group::Media), endpoint_limit);
    Router::new()
        .route("/v1/chat", post(creative_chat::chat).route_layer(other()))
        .route(
            "/v1/chat/conversations",
            get(creative_chat::conversations)
                .route_layer(media())
                .merge(post(creative_chat::conversation_submit).route_layer(other())),
        )
        .route(
            "/v1/chat/conversations/{session_id}/messages",
            get(creative_chat::messages)
                .route_layer(media())
                .merge(post(creative_chat::conversation_message).route_layer(other())),
        )
}

/// Document 3's media routes: 120/min, bulk and move-contents 20/min.
fn media_routes(state: &AppState) -> Router<AppState> {
    let media = || from_fn_with_state((state.clone(), Group::Media), endpoint_limit);
    let bulk = || from_fn_with_state((state.clone(), Group::BulkMedia), endpoint_limit);
    Router::new()
        .route("/v1/media", get(media::list).route_layer(media()))
        .route("/v1/media/stats", get(media::stats).route_layer(media()))
        .route(
            "/v1/media/upload-ticket",
            post(ticket::mint).route_layer(media()),
        )
        .route(
            "/v1/media/folders",
            get(folders::list)
                .post(folders::create)
                .route_layer(media()),
        )
        .route(
            "/v1/media/folders/{id}",
            put(folders::update)
                .delete(folders::delete)
                .route_layer(media()),
        )
        .route(
            "/v1/media/folders/{id}/items",
            post(folders::add_items)
                .delete(folders::remove_items)
                .route_layer(media()),
        )
        .route(
            "/v1/media/folders/{id}/share",
            post(folders::share).route_layer(media()),
        )
        .route(
            "/v1/media/folders/{id}/share/{user_id}",
            delete(folders::unshare).route_layer(media()),
        )
        .route(
            "/v1/media/folders/{id}/move-contents",
            post(folders::move_contents).route_layer(bulk()),
        )
        .route(
            "/v1/media/bulk/delete",
            post(media_bulk::delete).route_layer(bulk()),
        )
        .route(
            "/v1/media/bulk/restore",
            post(media_bulk::restore).route_layer(bulk()),
        )
        .route(
            "/v1/media/bulk/permanent",
            post(media_bulk::permanent).route_layer(bulk()),
        )
        .route(
            "/v1/media/bulk/move",
            post(media_bulk::move_to_project).route_layer(bulk()),
        )
        .route(
            "/v1/media/{id}",
            get(media::get_one)
                .delete(media::trash)
                .route_layer(media()),
        )
        .route(
            "/v1/media/{id}/restore",
            post(media::restore).route_layer(media()),
        )
        .route(
            "/v1/media/{id}/permanent",
            delete(media::permanent).route_layer(media()),
        )
        .route(
            "/v1/media/{id}/project",
            patch(media::move_project).route_layer(media()),
        )
        .route(
            "/v1/media/{id}/favorite",
            post(media::favorite_add)
                .delete(media::favorite_remove)
                .route_layer(media()),
        )
}

/// Document 2's color palette routes: the shared 120/min bucket, analyze also 10/min.
fn palette_routes(state: &AppState) -> Router<AppState> {
    let shared = || from_fn_with_state((state.clone(), Group::ColorPalettes), endpoint_limit);
    let analysis = || from_fn_with_state((state.clone(), Group::PaletteAnalysis), endpoint_limit);
    Router::new()
        .route(
            "/v1/color-palettes",
            get(palettes::list)
                .post(palettes::create)
                .route_layer(shared()),
        )
        .route(
            "/v1/color-palettes/analyze",
            post(palette_analyze::analyze)
                .route_layer(analysis())
                .route_layer(shared()),
        )
        .route(
            "/v1/color-palettes/deactivate",
            post(palettes::deactivate).route_layer(shared()),
        )
        .route(
            "/v1/color-palettes/{id}",
            put(palettes::update)
                .delete(palettes::delete)
                .route_layer(shared()),
        )
        .route(
            "/v1/color-palettes/{id}/activate",
            post(palettes::activate).route_layer(shared()),
        )
}

/// Visual DNA and moodboards (INTERFACES §1): POST /visual-dna and GET /moodboards in the
/// other-generation group (10/min); folders, moving and moodboard writes in the media group
/// (120/min); reading, updating and deleting one Visual DNA and the list: no limiter.
fn look_routes(state: &AppState) -> Router<AppState> {
    use super::moodboards;
    use super::visual_dna::routes as dna;
    let other = || from_fn_with_state((state.clone(), Group::OtherGeneration), endpoint_limit);
    let media = || from_fn_with_state((state.clone(), Group::Media), endpoint_limit);
    Router::new()
        .route(
            "/v1/visual-dna",
            get(dna::list)
                .merge(upload::request_cap().apply(post(dna::create).route_layer(other()))),
        )
        .route(
            "/v1/visual-dna/folders",
            get(dna::folders)
                .post(dna::create_folder)
                .route_layer(media()),
        )
        .route(
            "/v1/visual-dna/folders/{id}",
            put(dna::rename_folder)
                .delete(dna::delete_folder)
                .route_layer(media()),
        )
        .route(
            "/v1/visual-dna/{id}",
            get(dna::get_one).put(dna::update).delete(dna::delete),
        )
        .route(
            "/v1/visual-dna/{id}/folder",
            put(dna::move_to_folder).route_layer(media()),
        )
        .route(
            "/v1/moodboards",
            get(moodboards::list)
                .route_layer(other())
                .merge(post(moodboards::create).route_layer(media())),
        )
        .route(
            "/v1/moodboards/{id}",
            get(moodboards::get_one)
                .put(moodboards::update)
                .delete(moodboards::delete)
                .route_layer(media()),
        )
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
