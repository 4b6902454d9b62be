//! POST /v1/media/upload: multipart `file` (required) and optional `project_id`, streamed to
//! disk chunk by chunk with a 500 MB cap; text fields are capped too (`upload_limits`).

use axum::extract::multipart::{Field, MultipartError};
use axum::extract::{Multipart, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::{Extension, Json};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

use crate::image_codec::{self, DecodeBudget};
use crate::sandbox::auth::Caller;
use crate::sandbox::clock::Clock;
use crate::sandbox::files::{content_type_for, write_jpeg};
use crate::sandbox::http_error::{ApiError, ApiResult};
use crate::sandbox::ids::{is_object_id, new_object_id};
use crate::sandbox::media_store::NewMedia;
use crate::sandbox::render::thumbnail;
use crate::sandbox::state::AppState;
use crate::sandbox::store::UploadRow;
use crate::sandbox::upload_limits::{
    MAX_TEXT_FIELD_BYTES, MAX_UPLOAD_FILE_BYTES, MAX_UPLOAD_REQUEST_BYTES, RequestCap,
    TextFieldError, read_text_field,
};

pub(crate) const MAX_UPLOAD_BYTES: u64 = MAX_UPLOAD_FILE_BYTES;
/// Images above this are stored but get no thumbnail (decoding them would cost too much).
const MAX_THUMBNAIL_SOURCE_BYTES: u64 = 64 * 1024 * 1024;

fn bad_multipart(detail: impl std::fmt::Display) -> ApiError {
    ApiError::sdk(
        StatusCode::BAD_REQUEST,
        "INVALID_UPLOAD",
        format!("Invalid multipart payload: {detail}"),
    )
}

/// Upload size limits answer in Shape 2 (contract document 1, Errors).
pub(crate) fn file_too_large() -> ApiError {
    ApiError::global(
        StatusCode::PAYLOAD_TOO_LARGE,
        "File too large. Maximum size is 500MB.",
    )
}

/// The whole-request cap of this route and of the ticket uploads.
pub(crate) fn request_cap() -> RequestCap {
    RequestCap {
        max_request_bytes: MAX_UPLOAD_REQUEST_BYTES,
        too_large: || file_too_large().into_response(),
    }
}

/// A body that ran past the route's cap is a 413 like a too-large file; anything else is a
/// malformed payload.
pub(crate) fn multipart_error(error: MultipartError) -> ApiError {
    if error.status() == StatusCode::PAYLOAD_TOO_LARGE {
        file_too_large()
    } else {
        bad_multipart(error)
    }
}

/// A non-file field, read with the shared text-field cap.
pub(crate) async fn text_field(field: Field<'_>, name: &str) -> ApiResult<String> {
    match read_text_field(name, field, MAX_TEXT_FIELD_BYTES).await {
        Ok(text) => Ok(text.trim().to_owned()),
        Err(TextFieldError::TooLong { name, max_bytes }) => Err(ApiError::global(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "Field '{name}' too large. Maximum size is {} KB.",
                max_bytes / 1024
            ),
        )),
        Err(TextFieldError::Read(error)) => Err(multipart_error(error)),
    }
}

/// Keeps a short alphanumeric extension so the served Content-Type matches the file.
pub(crate) fn extension_for(filename: &str, mime: &str) -> String {
    let from_name = filename
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase())
        .filter(|ext| {
            !ext.is_empty() && ext.len() <= 8 && ext.bytes().all(|b| b.is_ascii_alphanumeric())
        });
    from_name.unwrap_or_else(|| {
        match mime {
            "image/png" => "png",
            "image/jpeg" => "jpg",
            "image/webp" => "webp",
            "image/gif" => "gif",
            "video/mp4" => "mp4",
            "video/webm" => "webm",
            "audio/mpeg" => "mp3",
            "audio/wav" | "audio/x-wav" => "wav",
            _ => "bin",
        }
        .to_owned()
    })
}

/// Routed by MIME type like the real service: video/*, audio/*, everything else = image.
fn media_type_for(mime: &str) -> &'static str {
    if mime.starts_with("video/") {
        "video"
    } else if mime.starts_with("audio/") {
        "audio"
    } else {
        "image"
    }
}

struct StoredFile {
    filename: String,
    mime_type: String,
    rel_path: String,
    size_bytes: u64,
}

pub(crate) async fn upload(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    multipart: Multipart,
) -> ApiResult<(StatusCode, Json<Value>)> {
    receive(state, caller.user_id, None, multipart).await
}

/// Stores the file, records the upload and registers it as a library item. `ticket_project`
/// is the project bound to an upload ticket (used when the form names none).
pub(crate) async fn receive(
    state: AppState,
    user_id: String,
    ticket_project: Option<String>,
    mut multipart: Multipart,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let id = new_object_id();
    let mut description: Option<String> = None;
    let mut stored: Option<StoredFile> = None;
    let mut project_field: Option<String> = None;
    let result: ApiResult<()> = async {
        while let Some(mut field) = multipart.next_field().await.map_err(multipart_error)? {
            match field.name() {
                Some("file") if stored.is_none() => {
                    let filename = field
                        .file_name()
                        .map(|name| name.rsplit(['/', '\\']).next().unwrap_or(name).to_owned())
                        .filter(|name| !name.is_empty())
                        .unwrap_or_else(|| "upload".to_owned());
                    let declared = field
                        .content_type()
                        .map(|mime| mime.to_ascii_lowercase())
                        .filter(|mime| mime != "application/octet-stream");
                    let mime_type =
                        declared.unwrap_or_else(|| content_type_for(&filename).to_owned());
                    let rel_path = format!("uploads/{id}.{}", extension_for(&filename, &mime_type));
                    let path = state.files_dir.join(&rel_path);
                    if let Some(parent) = path.parent() {
                        tokio::fs::create_dir_all(parent)
                            .await
                            .map_err(|e| ApiError::internal("upload storage", e))?;
                    }
                    let partial = path.with_extension("partial");
                    let mut file = tokio::fs::File::create(&partial)
                        .await
                        .map_err(|e| ApiError::internal("upload storage", e))?;
                    let mut size_bytes: u64 = 0;
                    while let Some(chunk) = field.chunk().await.map_err(multipart_error)? {
                        size_bytes += chunk.len() as u64;
                        if size_bytes > MAX_UPLOAD_BYTES {
                            drop(file);
                            let _ = tokio::fs::remove_file(&partial).await;
                            return Err(file_too_large());
                        }
                        file.write_all(&chunk)
                            .await
                            .map_err(|e| ApiError::internal("upload write", e))?;
                    }
                    file.flush()
                        .await
                        .map_err(|e| ApiError::internal("upload write", e))?;
                    drop(file);
                    tokio::fs::rename(&partial, &path)
                        .await
                        .map_err(|e| ApiError::internal("upload storage", e))?;
                    stored = Some(StoredFile {
                        filename,
                        mime_type,
                        rel_path,
                        size_bytes,
                    });
                }
                Some("project_id") => {
                    project_field = Some(text_field(field, "project_id").await?);
                }
                Some("description") => {
                    description =
                        Some(text_field(field, "description").await?).filter(|d| !d.is_empty());
                }
                _ => {} // unknown fields are accepted and ignored
            }
        }
        Ok(())
    }
    .await;
    let cleanup = |stored: &Option<StoredFile>| {
        if let Some(file) = stored {
            let _ = std::fs::remove_file(state.files_dir.join(&file.rel_path));
        }
    };
    if let Err(error) = result {
        cleanup(&stored);
        return Err(error);
    }
    let Some(file) = stored else {
        return Err(ApiError::sdk(
            StatusCode::BAD_REQUEST,
            "FILE_REQUIRED",
            "A multipart field named 'file' is required",
        ));
    };
    let project_id = match project_field.as_deref().filter(|p| !p.is_empty()) {
        None => None,
        Some(project) if !is_object_id(project) => {
            cleanup(&Some(file));
            return Err(ApiError::raw(
                StatusCode::BAD_REQUEST,
                json!({"status": false, "message": "Invalid project ID format", "code": "SDK_PROJECT_INVALID_ID"}),
            ));
        }
        Some(project) => match state.store.find_project(&user_id, project)? {
            Some(found) => Some(found.id),
            None => {
                cleanup(&Some(file));
                return Err(ApiError::sdk(
                    StatusCode::NOT_FOUND,
                    "NOT_FOUND",
                    "Project not found",
                ));
            }
        },
    };
    let media_type = media_type_for(&file.mime_type);
    let thumbnail = if media_type == "image" && file.size_bytes <= MAX_THUMBNAIL_SOURCE_BYTES {
        make_thumbnail(&state, &id, &file.rel_path).await
    } else {
        Thumbnail::None
    };
    let (thumb_rel_path, dimensions, preview_note) = match thumbnail {
        Thumbnail::Made { rel_path, size_px } => (Some(rel_path), Some(size_px), None),
        Thumbnail::Placeholder {
            rel_path,
            size_px,
            reason,
        } => (Some(rel_path), Some(size_px), Some(reason)),
        Thumbnail::None => (None, None, None),
    };
    let project_id = project_id.or(ticket_project);
    let row = UploadRow {
        id: id.clone(),
        user_id: user_id.clone(),
        project_id,
        filename: file.filename,
        mime_type: file.mime_type,
        media_type: media_type.to_owned(),
        size_bytes: file.size_bytes,
        rel_path: file.rel_path,
        thumb_rel_path,
    };
    let created_at = state.store.insert_upload(&row)?;
    register_library_item(&state, &row, dimensions, description, preview_note)?;
    tracing::info!(media_id = %row.id, size_bytes = row.size_bytes, "upload stored");
    Ok((
        StatusCode::CREATED,
        Json(json!({
            "success": true,
            "media": {
                "id": row.id,
                "url": state.file_url(&row.rel_path),
                "thumbnail_url": row.thumb_rel_path.as_deref().map(|p| state.file_url(p)),
                "type": row.media_type,
                "filename": row.filename,
                "size_bytes": row.size_bytes,
                "mime_type": row.mime_type,
                "project_id": row.project_id,
                "created_at": created_at,
            }
        })),
    ))
}

/// The upload as a library item: its own id (the upload response's stored-file id is not a
/// library id), in the chosen project or else the default project.
fn register_library_item(
    state: &AppState,
    upload: &UploadRow,
    dimensions: Option<(u32, u32)>,
    description: Option<String>,
    preview_note: Option<String>,
) -> ApiResult<()> {
    let project_id = match &upload.project_id {
        Some(project_id) => project_id.clone(),
        None => state.store.ensure_default_project(&upload.user_id)?.id,
    };
    let mut metadata = json!({
        "category": "uploaded",
        "source": "upload",
        "mimeType": upload.mime_type,
        "originalFilename": upload.filename,
    });
    // The contract records the description as upload context for video and audio only.
    if upload.media_type != "image"
        && let Some(description) = description
    {
        metadata["uploadContext"] = json!(description);
    }
    // Why the thumbnail is a placeholder (a picture too large to decode); see docs/SANDBOX.md.
    if let Some(note) = preview_note {
        metadata[PREVIEW_UNAVAILABLE_KEY] = json!(note);
    }
    let now_ms = state.clock.now_ms();
    state.store.insert_media(&NewMedia {
        id: new_object_id(),
        user_id: upload.user_id.clone(),
        project_id,
        upload_id: Some(upload.id.clone()),
        source_type: "uploaded".to_owned(),
        category: "uploaded".to_owned(),
        media_type: upload.media_type.clone(),
        name: upload.filename.clone(),
        filename: upload.filename.clone(),
        rel_path: upload.rel_path.clone(),
        thumb_rel_path: upload.thumb_rel_path.clone(),
        owns_files: true,
        size_bytes: Some(upload.size_bytes),
        width: dimensions.map(|d| d.0),
        height: dimensions.map(|d| d.1),
        source_tag: Some("upload".to_owned()),
        metadata,
        created_at: Clock::iso_at(now_ms),
        created_ms: now_ms,
        ..NewMedia::default()
    })?;
    Ok(())
}

/// What an image upload gets as its thumbnail.
enum Thumbnail {
    /// A 256-px JPEG of the picture.
    Made {
        rel_path: String,
        size_px: (u32, u32),
    },
    /// The picture is over the process-wide decode budget: it is stored as a file, never
    /// decoded; the item gets a plain tile and says why.
    Placeholder {
        rel_path: String,
        size_px: (u32, u32),
        reason: String,
    },
    /// Not a readable image.
    None,
}

/// Metadata key of the reason an upload has a placeholder thumbnail.
pub(crate) const PREVIEW_UNAVAILABLE_KEY: &str = "previewUnavailable";
/// Colour and side of the placeholder tile (the NSFW placeholder's grey).
const PLACEHOLDER_RGB: [u8; 3] = [58, 58, 64];
const PLACEHOLDER_SIDE_PX: u32 = 256;

/// A 256-px JPEG thumbnail for decodable images (plus the image's size), a placeholder for
/// pictures over the decode budget.
async fn make_thumbnail(state: &AppState, id: &str, rel_path: &str) -> Thumbnail {
    let source = state.files_dir.join(rel_path);
    let thumb_rel = format!("uploads/{id}_thumb.jpg");
    let target = state.files_dir.join(&thumb_rel);
    let made = tokio::task::spawn_blocking(move || {
        let bytes = std::fs::read(&source).map_err(|e| e.to_string())?;
        let decoded = image_codec::decode_then(&bytes, DecodeBudget::DEFAULT, |image| {
            ((image.width(), image.height()), thumbnail(&image.to_rgb8()))
        });
        match decoded {
            Ok((size_px, thumb)) => {
                write_jpeg(&target, &thumb)?;
                Ok::<_, String>((size_px, None))
            }
            Err(error @ image_codec::DecodeError::TooLarge { width, height, .. }) => {
                // Its own copy: deleting the item deletes its thumbnail file.
                let tile = image::RgbImage::from_pixel(
                    PLACEHOLDER_SIDE_PX,
                    PLACEHOLDER_SIDE_PX,
                    image::Rgb(PLACEHOLDER_RGB),
                );
                write_jpeg(&target, &tile)?;
                Ok(((width, height), Some(format!("No preview: {error}."))))
            }
            Err(error) => Err(error.to_string()),
        }
    })
    .await;
    match made {
        Ok(Ok((size_px, None))) => Thumbnail::Made {
            rel_path: thumb_rel,
            size_px,
        },
        Ok(Ok((size_px, Some(reason)))) => {
            tracing::info!(media_id = %id, %reason, "upload stored without decoding");
            Thumbnail::Placeholder {
                rel_path: thumb_rel,
                size_px,
                reason,
            }
        }
        Ok(Err(error)) => {
            tracing::debug!(media_id = %id, %error, "no thumbnail for upload");
            Thumbnail::None
        }
        Err(_) => Thumbnail::None,
    }
}
