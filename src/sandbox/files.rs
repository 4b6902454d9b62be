//! The public file area: GET /files/{path} without an API key, plus write helpers.

use std::io::BufWriter;
use std::path::{Path, PathBuf};

use axum::body::{Body, Bytes};
use axum::extract::{Path as UrlPath, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use image::RgbImage;
use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::{CompressionType, FilterType as PngFilter, PngEncoder};
use tokio::io::AsyncReadExt;

use super::http_error::ApiError;
use super::state::AppState;

const READ_CHUNK_BYTES: usize = 64 * 1024;
/// Requests kept by [`FileRequestLog`]; older ones are forgotten.
const MAX_RECORDED_FILE_REQUESTS: usize = 10_000;

/// One request received on a public file URL, as it arrived (tests check that no API key
/// is ever sent to a file URL).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileRequest {
    pub method: String,
    pub path: String,
    pub query: Option<String>,
    /// Header names and values (values not valid UTF-8 are shown lossily).
    pub headers: Vec<(String, String)>,
}

/// The most recent requests on the public file URLs, in arrival order.
#[derive(Default)]
pub(crate) struct FileRequestLog {
    requests: std::sync::Mutex<std::collections::VecDeque<FileRequest>>,
}

impl FileRequestLog {
    fn record(&self, request: FileRequest) {
        let mut requests = self.requests.lock().unwrap_or_else(|p| p.into_inner());
        if requests.len() >= MAX_RECORDED_FILE_REQUESTS {
            requests.pop_front();
        }
        requests.push_back(request);
    }

    pub(crate) fn snapshot(&self) -> Vec<FileRequest> {
        let requests = self.requests.lock().unwrap_or_else(|p| p.into_inner());
        requests.iter().cloned().collect()
    }
}

/// Middleware on the public file routes: records every request, whatever its method.
pub(crate) async fn record_request(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let headers = request
        .headers()
        .iter()
        .map(|(name, value)| {
            (
                name.as_str().to_owned(),
                String::from_utf8_lossy(value.as_bytes()).into_owned(),
            )
        })
        .collect();
    state.file_requests.record(FileRequest {
        method: request.method().as_str().to_owned(),
        path: request.uri().path().to_owned(),
        query: request.uri().query().map(str::to_owned),
        headers,
    });
    next.run(request).await
}

/// Content type by file extension.
pub(crate) fn content_type_for(path: &str) -> &'static str {
    let ext = path.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
    match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        "gif" => "image/gif",
        "mp4" => "video/mp4",
        "webm" => "video/webm",
        "mov" => "video/quicktime",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "ogg" => "audio/ogg",
        "m4a" => "audio/mp4",
        "flac" => "audio/flac",
        "json" => "application/json",
        "txt" => "text/plain; charset=utf-8",
        "srt" => "application/x-subrip; charset=utf-8",
        "pdf" => "application/pdf",
        "glb" => "model/gltf-binary",
        "obj" => "model/obj",
        _ => "application/octet-stream",
    }
}

/// Maps a URL path below /files/ to a file under the files dir, refusing anything that could
/// escape it (only plain segments of safe characters).
pub(crate) fn resolve_rel_path(files_dir: &Path, rel: &str) -> Option<PathBuf> {
    let mut path = files_dir.to_path_buf();
    for segment in rel.split('/') {
        let safe = !segment.is_empty()
            && segment != "."
            && segment != ".."
            && segment
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
        if !safe {
            return None;
        }
        path.push(segment);
    }
    Some(path)
}

pub(crate) async fn serve(
    State(state): State<AppState>,
    UrlPath(rel): UrlPath<String>,
) -> Response {
    let not_found =
        || ApiError::sdk(StatusCode::NOT_FOUND, "NOT_FOUND", "File not found").into_response();
    let Some(path) = resolve_rel_path(&state.files_dir, &rel) else {
        return not_found();
    };
    let file = match tokio::fs::File::open(&path).await {
        Ok(file) => file,
        Err(_) => return not_found(),
    };
    let length = match file.metadata().await {
        Ok(meta) if meta.is_file() => meta.len(),
        _ => return not_found(),
    };
    // Stream in chunks so large uploads are never held in memory.
    let stream = futures_util::stream::unfold(file, |mut file| async move {
        let mut buffer = vec![0u8; READ_CHUNK_BYTES];
        match file.read(&mut buffer).await {
            Ok(0) => None,
            Ok(n) => {
                buffer.truncate(n);
                Some((Ok::<Bytes, std::io::Error>(Bytes::from(buffer)), file))
            }
            Err(error) => Some((Err(error), file)),
        }
    });
    let mut response = Response::new(Body::from_stream(stream));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static(content_type_for(&rel)),
    );
    headers.insert(header::CONTENT_LENGTH, header::HeaderValue::from(length));
    response
}

/// Writes to a temporary name and renames, so a crash never leaves a half-written file at
/// a served path.
fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<std::fs::File>) -> Result<(), image::ImageError>,
) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("create {}: {e}", parent.display()))?;
    }
    let tmp = path.with_extension("partial");
    let file = std::fs::File::create(&tmp).map_err(|e| format!("create {}: {e}", tmp.display()))?;
    let mut writer = BufWriter::new(file);
    write(&mut writer).map_err(|e| format!("encode {}: {e}", path.display()))?;
    writer
        .into_inner()
        .map_err(|e| format!("flush {}: {e}", path.display()))?
        .sync_all()
        .map_err(|e| format!("sync {}: {e}", path.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("rename {}: {e}", path.display()))
}

pub(crate) fn write_png(path: &Path, image: &RgbImage) -> Result<(), String> {
    write_atomically(path, |writer| {
        // Fast compression: 4K renders stay quick; the sandbox is local anyway.
        let encoder =
            PngEncoder::new_with_quality(writer, CompressionType::Fast, PngFilter::Adaptive);
        image.write_with_encoder(encoder)
    })
}

/// An RGBA PNG (image tools' outputs keep their transparency).
pub(crate) fn write_png_rgba(path: &Path, image: &image::RgbaImage) -> Result<(), String> {
    write_atomically(path, |writer| {
        let encoder =
            PngEncoder::new_with_quality(writer, CompressionType::Fast, PngFilter::Adaptive);
        image.write_with_encoder(encoder)
    })
}

pub(crate) fn write_jpeg(path: &Path, image: &RgbImage) -> Result<(), String> {
    write_atomically(path, |writer| {
        image.write_with_encoder(JpegEncoder::new_with_quality(writer, 85))
    })
}

/// Writes already-encoded bytes (videos, posters) with the same atomic rename.
pub(crate) fn write_bytes(path: &Path, bytes: &[u8]) -> Result<(), String> {
    write_atomically(path, |writer| {
        std::io::Write::write_all(writer, bytes).map_err(image::ImageError::IoError)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_escaping_paths() {
        let root = Path::new("/data/files");
        assert!(resolve_rel_path(root, "../secret").is_none());
        assert!(resolve_rel_path(root, "a//b").is_none());
        assert!(resolve_rel_path(root, "generations/abc/0.png").is_some());
    }

    #[test]
    fn the_file_request_log_keeps_the_most_recent_requests() {
        let log = FileRequestLog::default();
        let request = |n: usize| FileRequest {
            method: "GET".into(),
            path: format!("/files/{n}.png"),
            query: None,
            headers: vec![("user-agent".into(), "test".into())],
        };
        for n in 0..MAX_RECORDED_FILE_REQUESTS + 3 {
            log.record(request(n));
        }
        let kept = log.snapshot();
        assert_eq!(kept.len(), MAX_RECORDED_FILE_REQUESTS);
        assert_eq!(kept[0], request(3));
        assert_eq!(kept.last(), Some(&request(MAX_RECORDED_FILE_REQUESTS + 2)));
    }
}
