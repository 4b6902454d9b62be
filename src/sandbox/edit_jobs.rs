//! The render step of video edits (`global_video_edit`) and video-to-video
//! (`video_from_video`) jobs, called by `jobs::produce` while the simulated wait runs:
//! fetch the source (and face_swap's face, inpaint's mask), apply the rules that fail the
//! job, render on the blocking pool, write `<id>.mp4` and `<id>_poster.jpg` like a video
//! generation, and settle the real cost (the reservation assumed a source length).

use serde_json::{Map, Value};

use super::edit_plan::{
    self, EditRequest, ExtraInputs, JobRuleFailure, Operation, OperationFields,
};
use super::job_inputs::{fetch_input, job_failure, render_blocking, render_failed, stored_request};
use super::jobs::{StoredResult, stored_look};
use super::pricing::round_credits;
use super::state::AppState;
use super::store::GenerationRow;
use super::video::{RenderedVideo, edit_video, probe_video, restyle_video};

/// `type` of a /v1/edit/video generation.
pub(crate) const EDIT_KIND: &str = "global_video_edit";
/// `type` of a /v1/generate/video-from-video generation.
pub(crate) const VIDEO_FROM_VIDEO_KIND: &str = "video_from_video";

pub(crate) fn is_edit_kind(kind: &str) -> bool {
    kind == EDIT_KIND || kind == VIDEO_FROM_VIDEO_KIND
}

fn rule_failure(row: &GenerationRow, rule: JobRuleFailure) -> Value {
    job_failure(row, rule.0, "INVALID_PARAMETER", "invalid_input")
}

pub(crate) async fn produce(state: &AppState, row: &GenerationRow) -> Result<StoredResult, Value> {
    let Some(video_url) = row.source_images.first() else {
        return Err(render_failed(row, "the job has no source video"));
    };
    let source = fetch_input(state, row, ("source video", "video_url"), video_url).await?;
    if row.kind == VIDEO_FROM_VIDEO_KIND {
        return run_blocking(state, row, move |state, row| {
            restyle_and_write(state, row, &source)
        })
        .await;
    }
    let body = stored_request(row);
    let extra = {
        let request = edit_plan::parse_request(&body, &state.catalog)
            .map_err(|rejection| render_failed(row, rejection.message))?;
        // Rules that need no source fail the job before anything is downloaded.
        edit_plan::check_before_source(&request).map_err(|r| rule_failure(row, r))?;
        extra_urls(&request)
    };
    let mut inputs = ExtraInputs::default();
    if let Some(url) = extra.face_url {
        inputs.face_image =
            Some(fetch_input(state, row, ("reference face", "image_url"), &url).await?);
    }
    if let Some(url) = extra.mask_url {
        inputs.mask_video =
            Some(fetch_input(state, row, ("mask video", "mask_video_url"), &url).await?);
    }
    run_blocking(state, row, move |state, row| {
        edit_and_write(state, row, &body, &source, inputs)
    })
    .await
}

struct ExtraUrls {
    face_url: Option<String>,
    mask_url: Option<String>,
}

fn extra_urls(request: &EditRequest<'_>) -> ExtraUrls {
    match &request.fields {
        OperationFields::FaceSwap { image_url } => ExtraUrls {
            face_url: Some(image_url.clone()),
            mask_url: None,
        },
        OperationFields::Inpaint { mask_video_url, .. } => ExtraUrls {
            face_url: None,
            mask_url: mask_video_url.clone(),
        },
        _ => ExtraUrls {
            face_url: None,
            mask_url: None,
        },
    }
}

/// Runs `work` on the blocking pool (decoding and encoding are CPU-bound).
async fn run_blocking<F>(
    state: &AppState,
    row: &GenerationRow,
    work: F,
) -> Result<StoredResult, Value>
where
    F: FnOnce(&AppState, &GenerationRow) -> Result<StoredResult, Value> + Send + 'static,
{
    let (state, row_owned) = (state.clone(), row.clone());
    render_blocking(row, move || work(&state, &row_owned)).await
}

fn edit_and_write(
    state: &AppState,
    row: &GenerationRow,
    body: &Map<String, Value>,
    source: &[u8],
    inputs: ExtraInputs,
) -> Result<StoredResult, Value> {
    let request = edit_plan::parse_request(body, &state.catalog)
        .map_err(|rejection| render_failed(row, rejection.message))?;
    let target_fps = edit_plan::check_before_source(&request).map_err(|r| rule_failure(row, r))?;
    let probe = probe_video(source).map_err(|e| source_unreadable(row, e))?;
    edit_plan::check_source_length(request.operation, probe.duration_secs)
        .map_err(|r| rule_failure(row, r))?;
    let spec = edit_plan::edit_spec(&request, &probe, target_fps, inputs);
    let watermark = request.operation != Operation::RemoveWatermark;
    let video =
        edit_video(source, &spec, row.seed, watermark).map_err(|e| render_failed(row, e))?;
    tracing::debug!(
        id = %row.id,
        operation = request.operation.edit_type(),
        width = video.width,
        height = video.height,
        has_audio = video.has_audio,
        "video edit rendered"
    );
    let billed_secs = edit_plan::billed_secs(&request, probe.duration_secs, video.duration_secs);
    let mut stored = write_outputs(state, row, &video)?;
    stored.edit_type = Some(request.operation.edit_type().to_owned());
    stored.credits_used = Some(edit_plan::edit_cost(&request, billed_secs));
    stored.billed_secs = Some(billed_secs);
    Ok(stored)
}

fn source_unreadable(row: &GenerationRow, error: impl std::fmt::Display) -> Value {
    job_failure(
        row,
        format!("Could not read the source video: {error}"),
        "SOURCE_UNREADABLE",
        "invalid_input",
    )
}

/// Video-to-video: the source restyled by the prompt (graded like text-to-video).
fn restyle_and_write(
    state: &AppState,
    row: &GenerationRow,
    source: &[u8],
) -> Result<StoredResult, Value> {
    let probe = probe_video(source).map_err(|e| source_unreadable(row, e))?;
    let palette: Vec<[u8; 3]> = stored_look(row)
        .grade
        .iter()
        .filter_map(|c| crate::palette::Rgb::from_hex(&c.hex))
        .map(|rgb| [rgb.r, rgb.g, rgb.b])
        .collect();
    let palette = (!palette.is_empty()).then_some(palette.as_slice());
    let video = restyle_video(source, &row.prompt_used, row.seed, palette, true)
        .map_err(|e| render_failed(row, e))?;
    let mut stored = write_outputs(state, row, &video)?;
    let (credits, billed_secs) =
        video_input_cost(state, row, probe.duration_secs, video.duration_secs);
    stored.credits_used = Some(credits);
    stored.billed_secs = Some(billed_secs);
    Ok(stored)
}

/// Contract "Pricing" for a model with `video_input_credit`: ceil(video_input_credit x
/// (ceil(input seconds) + output seconds) x video-input resolution multiplier). Returns the
/// credits and the seconds counted.
pub(crate) fn video_input_cost(
    state: &AppState,
    row: &GenerationRow,
    input_secs: f64,
    output_secs: f64,
) -> (f64, f64) {
    let spec = state
        .catalog
        .find(&row.model, super::catalog::VIDEO_TO_VIDEO_TYPE);
    let seconds = input_secs.ceil() + output_secs;
    let credits = spec.map_or(row.credits_reserved, |spec| {
        video_input_credits(spec, &row.resolution, seconds)
    });
    (credits, seconds)
}

pub(crate) fn video_input_credits(
    spec: &super::catalog::ModelSpec,
    resolution: &str,
    seconds: f64,
) -> f64 {
    let multiplier = spec
        .video_input_resolution_multipliers
        .as_ref()
        .and_then(|map| map.get(resolution))
        .copied()
        .unwrap_or(1.0);
    let per_second = spec.video_input_credit.unwrap_or(spec.credit);
    round_credits((per_second * seconds * multiplier).ceil())
}

/// Writes the MP4 and its poster under `generations/<id>/`, like a rendered video.
fn write_outputs(
    state: &AppState,
    row: &GenerationRow,
    video: &RenderedVideo,
) -> Result<StoredResult, Value> {
    crate::sandbox::jobs::write_video_outputs(&state.files_dir, row, video)
}
