//! The image tools (POST /v1/edit/image, contract document 1): upscale and remove
//! background, one click on an existing image. A request rides in `GenerationRequest`
//! (`image_url`, `operation`, `scale`, `project_id`) under `GenerationKind::ImageTool`.
//!
//! The route guards against repeats: the same image_url and operation from the same key
//! within 30 seconds answers 409 `DUPLICATE_REQUEST` with `existingGenerationId`. That is
//! not a failure: the submit reads as accepted with the existing job's id, so the studio
//! follows the job already running (nothing is sent again).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::types::{GenerationKind, GenerationRequest, GenerationSpec};

/// The contract's `operation` values of /v1/edit/image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ImageToolOperation {
    Upscale,
    RemoveBackground,
}

/// One tool as offered in the studio: the operation with its factor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageTool {
    Upscale2x,
    Upscale4x,
    RemoveBackground,
}

/// Code of the 409 that names the job a same request already started.
pub const DUPLICATE_REQUEST: &str = "DUPLICATE_REQUEST";

impl ImageTool {
    /// Every tool, in the order buttons show them.
    pub const ALL: [ImageTool; 3] = [
        ImageTool::Upscale2x,
        ImageTool::Upscale4x,
        ImageTool::RemoveBackground,
    ];

    pub fn label(self) -> &'static str {
        match self {
            ImageTool::Upscale2x => "Upscale 2×",
            ImageTool::Upscale4x => "Upscale 4×",
            ImageTool::RemoveBackground => "Remove background",
        }
    }

    pub fn operation(self) -> ImageToolOperation {
        match self {
            ImageTool::Upscale2x | ImageTool::Upscale4x => ImageToolOperation::Upscale,
            ImageTool::RemoveBackground => ImageToolOperation::RemoveBackground,
        }
    }

    /// The `scale` sent with an upscale (the field name is the sandbox's; the contract does
    /// not show it).
    pub fn scale(self) -> Option<u32> {
        match self {
            ImageTool::Upscale2x => Some(2),
            ImageTool::Upscale4x => Some(4),
            ImageTool::RemoveBackground => None,
        }
    }

    /// Credits the tool costs. The contract prices /edit/image nowhere (no catalog model
    /// carries these operations); these are the sandbox's documented prices, shown as the
    /// estimate while the real charge is read from `credits_used`.
    pub fn credits(self) -> f64 {
        match self {
            ImageTool::Upscale2x => 2.0,
            ImageTool::Upscale4x => 4.0,
            ImageTool::RemoveBackground => 2.0,
        }
    }

    /// The tool a journalled request asked for.
    pub fn of_request(request: &GenerationRequest) -> Option<ImageTool> {
        match (request.operation?, request.scale) {
            (ImageToolOperation::RemoveBackground, _) => Some(ImageTool::RemoveBackground),
            (ImageToolOperation::Upscale, Some(4)) => Some(ImageTool::Upscale4x),
            (ImageToolOperation::Upscale, _) => Some(ImageTool::Upscale2x),
        }
    }

    /// The job for `image_url` (an http(s) output or library URL), in `project_id` when
    /// given.
    pub fn spec(self, image_url: &str, project_id: Option<String>) -> GenerationSpec {
        GenerationSpec::new(
            GenerationKind::ImageTool,
            GenerationRequest {
                kind_hint: Some(GenerationKind::ImageTool),
                image_url: Some(image_url.to_owned()),
                operation: Some(self.operation()),
                scale: self.scale(),
                project_id,
                ..GenerationRequest::default()
            },
        )
    }
}

/// The existing generation a 409 `DUPLICATE_REQUEST` answer names (`existingGenerationId`,
/// or the snake_case spelling), if this is one.
pub fn duplicate_of(status: u16, body: &[u8]) -> Option<String> {
    if status != 409 {
        return None;
    }
    let json: Value = serde_json::from_slice(body).ok()?;
    let code = json
        .get("code")
        .or_else(|| json.get("error").and_then(|e| e.get("code")))
        .and_then(Value::as_str)?;
    if code != DUPLICATE_REQUEST {
        return None;
    }
    ["existingGenerationId", "existing_generation_id"]
        .iter()
        .find_map(|field| json.get(*field).and_then(Value::as_str))
        .map(str::trim)
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::client::submit_body;

    #[test]
    fn bodies_carry_the_operation_and_its_scale() {
        let body =
            submit_body(&ImageTool::Upscale4x.spec("https://cdn.test/a.png", None)).expect("body");
        assert_eq!(body["operation"], "upscale");
        assert_eq!(body["scale"], 4);
        assert_eq!(body["image_url"], "https://cdn.test/a.png");
        assert!(body.get("prompt").is_none());
        let body = submit_body(&ImageTool::RemoveBackground.spec("https://cdn.test/a.png", None))
            .expect("body");
        assert_eq!(body["operation"], "remove_background");
        assert!(body.get("scale").is_none());
        for tool in ImageTool::ALL {
            assert_eq!(
                ImageTool::of_request(&tool.spec("https://x/a.png", None).request),
                Some(tool)
            );
        }
    }

    #[test]
    fn a_duplicate_names_the_existing_job_in_either_error_shape() {
        let flat = br#"{"success":false,"error":"again","code":"DUPLICATE_REQUEST","existingGenerationId":"abc"}"#;
        assert_eq!(duplicate_of(409, flat).as_deref(), Some("abc"));
        let nested = br#"{"success":false,"error":{"code":"DUPLICATE_REQUEST","message":"again"},"existingGenerationId":"def"}"#;
        assert_eq!(duplicate_of(409, nested).as_deref(), Some("def"));
        let cancel = br#"{"success":false,"error":"done","code":"CANNOT_CANCEL"}"#;
        assert_eq!(duplicate_of(409, cancel), None);
        assert_eq!(duplicate_of(400, flat), None);
    }
}
