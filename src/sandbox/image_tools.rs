//! The image tools of POST /v1/edit/image: the request's rules, the per-operation price,
//! the 30-second duplicate guard and the job's render step (called by `jobs::produce`).
//! Choices where the contract is silent are in docs/SANDBOX.md ("Image tools").

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::{Map, Value};

use super::fetch::decode_image;
use super::fetch_policy::{self, SOURCE_LIMITS, SourceFetchError, internal_address_message};
use super::files::{write_jpeg, write_png_rgba};
use super::ids::fnv1a;
use super::image_matte::{remove_background, thumbnail_over_checkerboard, upscale};
use super::job_inputs::job_failure;
use super::jobs::StoredResult;
use super::state::AppState;
use super::store::{GenerationRow, now_iso};

/// `type` of a /v1/edit/image generation.
pub(crate) const IMAGE_TOOL_KIND: &str = "image_tool";
/// The contract's duplicate window: same key, image_url and operation.
pub(crate) const DUPLICATE_WINDOW_MS: i64 = 30_000;
/// Upscale factors offered (`scale`; default 2).
pub(crate) const UPSCALE_FACTORS: [u32; 2] = [2, 4];

/// One operation of POST /v1/edit/image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum ImageOperation {
    Upscale { scale: u32 },
    RemoveBackground,
}

/// The `operation` values, in the order the 400 lists them.
pub(crate) const OPERATION_NAMES: [&str; 2] = ["upscale", "remove_background"];

impl ImageOperation {
    pub(crate) fn name(self) -> &'static str {
        match self {
            ImageOperation::Upscale { .. } => "upscale",
            ImageOperation::RemoveBackground => "remove_background",
        }
    }

    /// `result.edit_type` on completion (remove_background reports the internal name, as
    /// the contract shows for video edits).
    pub(crate) fn edit_type(self) -> &'static str {
        match self {
            ImageOperation::Upscale { .. } => "upscale",
            ImageOperation::RemoveBackground => "background_removal",
        }
    }

    /// Credits: upscale 2x = 2, 4x = 4; remove_background = 2 (the sandbox's prices).
    pub(crate) fn credits(self) -> f64 {
        match self {
            ImageOperation::Upscale { scale } => f64::from(scale),
            ImageOperation::RemoveBackground => 2.0,
        }
    }

    /// The model recorded as having run (the sandbox's own tools, not catalog models).
    pub(crate) fn model(self) -> &'static str {
        match self {
            ImageOperation::Upscale { .. } => "sandbox/lanczos-upscale",
            ImageOperation::RemoveBackground => "sandbox/border-matte",
        }
    }

    /// The request's `operation` (and `scale`), or the message of the 400.
    pub(crate) fn parse(body: &Map<String, Value>) -> Result<Self, (&'static str, String)> {
        let listed = OPERATION_NAMES.join(", ");
        let name = match body.get("operation") {
            None | Some(Value::Null) => {
                return Err((
                    "INVALID_OPERATION",
                    format!("operation is required; valid values: {listed}"),
                ));
            }
            Some(Value::String(name)) => name.trim(),
            Some(_) => {
                return Err((
                    "INVALID_OPERATION",
                    format!("operation must be a string; valid values: {listed}"),
                ));
            }
        };
        match name {
            "upscale" => Ok(ImageOperation::Upscale {
                scale: parse_scale(body.get("scale"))?,
            }),
            "remove_background" => Ok(ImageOperation::RemoveBackground),
            other => Err((
                "INVALID_OPERATION",
                format!("Unknown operation '{other}'; valid values: {listed}"),
            )),
        }
    }
}

/// `scale`: 2 or 4 (a JSON number; absent or null = 2).
fn parse_scale(value: Option<&Value>) -> Result<u32, (&'static str, String)> {
    let refuse = || {
        (
            "INVALID_SCALE",
            "scale must be 2 or 4 (the upscale factor)".to_owned(),
        )
    };
    match value {
        None | Some(Value::Null) => Ok(UPSCALE_FACTORS[0]),
        Some(Value::Number(n)) => n
            .as_f64()
            .filter(|f| f.fract() == 0.0)
            .map(|f| f as u32)
            .filter(|s| UPSCALE_FACTORS.contains(s))
            .ok_or_else(refuse),
        Some(_) => Err(refuse()),
    }
}

/// The last accepted submit per (API key, image_url, operation), in sandbox-clock ms. The
/// key is stored hashed; entries older than the window are dropped as new ones arrive.
#[derive(Default)]
pub(crate) struct DuplicateGuard {
    recent: Mutex<HashMap<GuardKey, (String, i64)>>,
}

/// (hashed API key, image_url, operation name).
type GuardKey = (u64, String, String);

impl DuplicateGuard {
    fn key(api_key: &str, image_url: &str, operation: ImageOperation) -> GuardKey {
        (
            fnv1a(api_key.as_bytes()),
            image_url.to_owned(),
            operation.name().to_owned(),
        )
    }

    /// The generation a same request started less than the window ago, if any.
    pub(crate) fn existing(
        &self,
        api_key: &str,
        image_url: &str,
        operation: ImageOperation,
        now_ms: i64,
    ) -> Option<String> {
        let recent = self.recent.lock().unwrap_or_else(|p| p.into_inner());
        recent
            .get(&Self::key(api_key, image_url, operation))
            .filter(|(_, at_ms)| now_ms - at_ms < DUPLICATE_WINDOW_MS)
            .map(|(id, _)| id.clone())
    }

    pub(crate) fn remember(
        &self,
        api_key: &str,
        image_url: &str,
        operation: ImageOperation,
        generation_id: &str,
        now_ms: i64,
    ) {
        let mut recent = self.recent.lock().unwrap_or_else(|p| p.into_inner());
        recent.retain(|_, (_, at_ms)| now_ms - *at_ms < DUPLICATE_WINDOW_MS);
        recent.insert(
            Self::key(api_key, image_url, operation),
            (generation_id.to_owned(), now_ms),
        );
    }
}

/// Fetches the source, runs the operation on the blocking pool, writes `0.png` (RGBA) and a
/// JPEG thumbnail (a cut-out shown over a checkerboard).
pub(crate) async fn produce(state: &AppState, row: &GenerationRow) -> Result<StoredResult, Value> {
    let body: Map<String, Value> = match serde_json::from_str(&row.request_json) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    };
    let operation = ImageOperation::parse(&body)
        .map_err(|(code, message)| job_failure(row, message, code, "invalid_input"))?;
    let Some(url) = row.source_images.first() else {
        return Err(job_failure(
            row,
            "The job has no source image".into(),
            "RENDER_FAILED",
            "internal_error",
        ));
    };
    let bytes = fetch_policy::fetch(state, url, SOURCE_LIMITS)
        .await
        .map_err(|error| match error {
            // Found by resolution or on a redirect: the route's own 400 code and message.
            SourceFetchError::Internal => job_failure(
                row,
                internal_address_message("image_url"),
                "INVALID_IMAGE_URL",
                "invalid_input",
            ),
            other => job_failure(
                row,
                format!("Could not use source image {url}: {other}"),
                "SOURCE_IMAGE_UNAVAILABLE",
                "invalid_input",
            ),
        })?;
    let files_dir = state.files_dir.clone();
    let row_owned = row.clone();
    let work = tokio::task::spawn_blocking(move || {
        render_and_write(&files_dir, &row_owned, operation, &bytes)
    });
    match work.await {
        Ok(result) => result,
        Err(join_error) => Err(job_failure(
            row,
            format!("The sandbox could not produce the output: {join_error}"),
            "RENDER_FAILED",
            "internal_error",
        )),
    }
}

fn render_and_write(
    files_dir: &std::path::Path,
    row: &GenerationRow,
    operation: ImageOperation,
    bytes: &[u8],
) -> Result<StoredResult, Value> {
    let source = decode_image(bytes).map_err(|error| {
        job_failure(
            row,
            format!("Could not use source image: {error}"),
            "SOURCE_IMAGE_UNREADABLE",
            "invalid_input",
        )
    })?;
    let output = match operation {
        ImageOperation::Upscale { scale } => upscale(&source, scale),
        ImageOperation::RemoveBackground => remove_background(&source),
    };
    let internal = |error: String| {
        job_failure(
            row,
            format!("The sandbox could not produce the output: {error}"),
            "RENDER_FAILED",
            "internal_error",
        )
    };
    let rel_dir = format!("generations/{}", row.id);
    let rel = format!("{rel_dir}/0.png");
    write_png_rgba(&files_dir.join(&rel), &output).map_err(internal)?;
    let thumb_rel = format!("{rel_dir}/0_thumb.jpg");
    write_jpeg(
        &files_dir.join(&thumb_rel),
        &thumbnail_over_checkerboard(&output),
    )
    .map_err(internal)?;
    tracing::debug!(id = %row.id, operation = operation.name(), width = output.width(), height = output.height(), "image tool rendered");
    Ok(StoredResult {
        paths: vec![rel],
        thumbnail_path: Some(thumb_rel.clone()),
        thumbnail_paths: vec![thumb_rel],
        created_at: now_iso(),
        width: output.width(),
        height: output.height(),
        duration_secs: None,
        frame_count: None,
        edit_type: Some(operation.edit_type().to_owned()),
        credits_used: None,
        billed_secs: None,
        content: None,
        audio: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn operations_and_scales_parse_with_clear_refusals() {
        assert_eq!(
            ImageOperation::parse(&body(json!({"operation": "upscale"}))),
            Ok(ImageOperation::Upscale { scale: 2 })
        );
        assert_eq!(
            ImageOperation::parse(&body(json!({"operation": "upscale", "scale": 4}))),
            Ok(ImageOperation::Upscale { scale: 4 })
        );
        assert!(ImageOperation::parse(&body(json!({"operation": "upscale", "scale": 3}))).is_err());
        let (code, message) =
            ImageOperation::parse(&body(json!({"operation": "sharpen"}))).unwrap_err();
        assert_eq!(code, "INVALID_OPERATION");
        assert!(message.contains("upscale, remove_background"), "{message}");
    }

    #[test]
    fn the_guard_forgets_after_thirty_seconds() {
        let guard = DuplicateGuard::default();
        let op = ImageOperation::RemoveBackground;
        guard.remember("key", "http://x/a.png", op, "g1", 1_000);
        assert_eq!(
            guard
                .existing("key", "http://x/a.png", op, 30_999)
                .as_deref(),
            Some("g1")
        );
        assert_eq!(guard.existing("key", "http://x/a.png", op, 31_000), None);
        assert_eq!(guard.existing("other", "http://x/a.png", op, 2_000), None);
    }
}
