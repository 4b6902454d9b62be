//! The video edit form's state and pure logic: which video is edited, what is done to it
//! (a trim, one of the eleven edit operations, or a restyle through video to video), the
//! fields that choice reads, the request it builds, its validation and its price. No egui.

use crate::api::pricing::{VideoPrice, default_edit_model, estimate_video_job};
use crate::api::validate::{Field, FieldError, validate_with_source};
use crate::api::video_edit::{
    ExtendMode, LipsyncSource, RetakeMode, TrimRequest, VideoEditOperation, VideoEditOperationKind,
    VideoEditRequest, VideoJobRequest, VideoToVideoRequest,
};
use crate::api::{GenerationSpec, ModelRecord};
use crate::ui::compose::form::{Estimate, SourceState};
use crate::ui::model::Model;
use std::path::{Path, PathBuf};

/// Catalog type of the models that restyle a video.
const VIDEO_TO_VIDEO_CATALOG_TYPE: &str = "video_to_video";
/// Upscale tiers offered when the model lists none (the contract's examples).
pub const UPSCALE_TIERS: [&str; 3] = ["1080p", "2k", "4k"];
/// Reframe targets offered when the model lists none.
pub const REFRAME_RATIOS: [&str; 5] = ["16:9", "9:16", "1:1", "4:5", "21:9"];
/// Upscale frame rates offered (the contract allows 16-60).
pub const TARGET_FPS_CHOICES: [u32; 4] = [24, 30, 48, 60];
/// Extend and retake lengths offered before the model says otherwise.
pub const EXTEND_DEFAULT_SECS: f64 = 5.0;
pub const RETAKE_DEFAULT_SECS: f64 = 2.0;

/// What is done to the source video.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EditChoice {
    /// POST /v1/video/trim: a frame-accurate cut, free.
    Trim,
    /// POST /v1/edit/video with this operation.
    Operation(VideoEditOperationKind),
    /// POST /v1/generate/video-from-video: the whole clip restyled by a chosen model.
    Restyle,
}

impl EditChoice {
    /// The list the form offers, in order.
    pub fn all() -> Vec<EditChoice> {
        let mut all = vec![EditChoice::Trim];
        all.extend(
            VideoEditOperationKind::ALL
                .iter()
                .map(|k| EditChoice::Operation(*k)),
        );
        all.push(EditChoice::Restyle);
        all
    }

    pub fn label(self) -> &'static str {
        match self {
            EditChoice::Trim => "Trim",
            EditChoice::Operation(kind) => kind.label(),
            EditChoice::Restyle => "Restyle (video to video)",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            EditChoice::Trim => "Cut out the part between the in and out points as a new video.",
            EditChoice::Operation(kind) => kind.description(),
            EditChoice::Restyle => "Re-render the whole clip in a new style with a chosen model.",
        }
    }

    /// Whether the source timeline edits this choice's times (trim's in/out, retake's span,
    /// extend's end).
    pub fn uses_timeline(self) -> bool {
        matches!(
            self,
            EditChoice::Trim
                | EditChoice::Operation(VideoEditOperationKind::Retake)
                | EditChoice::Operation(VideoEditOperationKind::Extend)
        )
    }

    /// The text on the submit button.
    pub fn verb(self) -> &'static str {
        match self {
            EditChoice::Trim => "Trim",
            EditChoice::Operation(_) => "Apply edit",
            EditChoice::Restyle => "Restyle",
        }
    }
}

/// The video being edited.
#[derive(Clone, Debug, PartialEq)]
pub struct VideoSource {
    /// The local file while it uploads (matches `Event::SourceUploaded`).
    pub path: Option<PathBuf>,
    pub label: String,
    pub state: SourceState,
    pub upload_progress: Option<(u64, u64)>,
    /// Length in seconds once known (from the result, the library item or the player).
    pub duration_secs: Option<f64>,
    /// Frames per second once the player has opened it (for frame-accurate times).
    pub fps: Option<f64>,
    /// Poster for the source card, when known.
    pub poster_url: Option<String>,
}

impl VideoSource {
    pub fn url(&self) -> Option<&str> {
        match &self.state {
            SourceState::Ready { url } => Some(url),
            _ => None,
        }
    }
}

/// Every field any choice reads, kept across switches so nothing typed is lost; each
/// choice builds its request from its own fields only.
#[derive(Clone, Debug, PartialEq)]
pub struct EditFields {
    pub prompt: String,
    pub resolution: String,
    pub target_fps: Option<u32>,
    pub aspect_ratio: String,
    /// Reframe placement; `None` centres.
    pub grid_x: Option<f64>,
    pub grid_y: Option<f64>,
    pub sound_effect_prompt: String,
    pub background_music_prompt: String,
    pub original_sound: bool,
    pub audio_format: String,
    pub face_image_url: String,
    pub extend_secs: f64,
    pub extend_at_start: bool,
    pub context: String,
    pub lipsync_by_text: bool,
    pub lipsync_text: String,
    pub lipsync_audio_url: String,
    pub refine_edges: bool,
    pub subject_is_person: bool,
    pub mask_video_url: String,
    pub object_prompt: String,
    /// 0-1; `None` leaves the service default.
    pub video_strength: Option<f64>,
    pub retake_start_secs: f64,
    pub retake_secs: f64,
    pub retake_mode: RetakeMode,
    /// Trim's in and out points in seconds (frame boundaries once the fps is known).
    pub trim_in_secs: f64,
    pub trim_out_secs: Option<f64>,
}

impl Default for EditFields {
    fn default() -> Self {
        Self {
            prompt: String::new(),
            resolution: "1080p".into(),
            target_fps: None,
            // Reframe to what: the artist chooses (the service requires it).
            aspect_ratio: String::new(),
            grid_x: None,
            grid_y: None,
            sound_effect_prompt: String::new(),
            background_music_prompt: String::new(),
            original_sound: false,
            audio_format: String::new(),
            face_image_url: String::new(),
            extend_secs: EXTEND_DEFAULT_SECS,
            extend_at_start: false,
            context: String::new(),
            lipsync_by_text: true,
            lipsync_text: String::new(),
            lipsync_audio_url: String::new(),
            refine_edges: true,
            subject_is_person: false,
            mask_video_url: String::new(),
            object_prompt: String::new(),
            video_strength: None,
            retake_start_secs: 0.0,
            retake_secs: RETAKE_DEFAULT_SECS,
            retake_mode: RetakeMode::ReplaceAudioAndVideo,
            trim_in_secs: 0.0,
            trim_out_secs: None,
        }
    }
}

/// The fields `operation` carries, into the form's fields (the others are kept).
fn fill_operation_fields(f: &mut EditFields, operation: &VideoEditOperation) {
    let text = |value: &Option<String>| value.clone().unwrap_or_default();
    match operation {
        VideoEditOperation::Upscale {
            resolution,
            target_fps,
            ..
        } => {
            f.resolution = text(resolution);
            f.target_fps = *target_fps;
        }
        VideoEditOperation::Reframe {
            aspect_ratio,
            grid_position_x,
            grid_position_y,
            ..
        } => {
            f.aspect_ratio.clone_from(aspect_ratio);
            f.grid_x = *grid_position_x;
            f.grid_y = *grid_position_y;
        }
        VideoEditOperation::GenerateAudio {
            prompt,
            sound_effect_prompt,
            background_music_prompt,
            original_sound,
            audio_format,
            ..
        } => {
            f.prompt = text(prompt);
            f.sound_effect_prompt = text(sound_effect_prompt);
            f.background_music_prompt = text(background_music_prompt);
            f.original_sound = original_sound.unwrap_or(false);
            f.audio_format = text(audio_format);
        }
        VideoEditOperation::RemoveWatermark {} => {}
        VideoEditOperation::FaceSwap { image_url } => f.face_image_url.clone_from(image_url),
        VideoEditOperation::Extend {
            duration,
            mode,
            prompt,
            context,
        } => {
            f.extend_secs = duration.unwrap_or(EXTEND_DEFAULT_SECS);
            f.extend_at_start = *mode == Some(ExtendMode::Start);
            f.prompt = text(prompt);
            f.context = text(context);
        }
        VideoEditOperation::MagicEdit { prompt } => f.prompt.clone_from(prompt),
        VideoEditOperation::Lipsync { source } => match source {
            LipsyncSource::Text(words) => {
                f.lipsync_by_text = true;
                f.lipsync_text.clone_from(words);
            }
            LipsyncSource::Audio(url) => {
                f.lipsync_by_text = false;
                f.lipsync_audio_url.clone_from(url);
            }
        },
        VideoEditOperation::RemoveBackground {
            refine_edges,
            subject_is_person,
        } => {
            f.refine_edges = refine_edges.unwrap_or(true);
            f.subject_is_person = subject_is_person.unwrap_or(false);
        }
        VideoEditOperation::Inpaint {
            mask_video_url,
            object_prompt,
            prompt,
            video_strength,
        } => {
            f.mask_video_url = text(mask_video_url);
            f.object_prompt = text(object_prompt);
            f.prompt = text(prompt);
            f.video_strength = *video_strength;
        }
        VideoEditOperation::Retake {
            start_time,
            duration,
            mode,
            prompt,
        } => {
            f.retake_start_secs = start_time.unwrap_or(0.0);
            f.retake_secs = duration.unwrap_or(RETAKE_DEFAULT_SECS);
            f.retake_mode = mode.unwrap_or_default();
            f.prompt = text(prompt);
        }
    }
}

fn contains_ignore_case(list: &[String], value: &str) -> bool {
    !value.trim().is_empty() && list.iter().any(|v| v.eq_ignore_ascii_case(value.trim()))
}

fn non_blank(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

pub struct VideoEditForm {
    pub choice: EditChoice,
    pub source: Option<VideoSource>,
    pub fields: EditFields,
    /// Model override per choice; `None` = the service's default for the operation.
    /// Restyle has no default: the contract requires a model.
    pub model_id: Option<String>,
    pub url_input: String,
    pub url_error: Option<String>,
    /// Validation messages, shown once a submit was refused and recomputed live after.
    pub errors: Vec<FieldError>,
    pub show_validation: bool,
    pub server_errors: Vec<FieldError>,
    /// After a refused Apply: the first bad field is scrolled to and focused.
    pub attention: crate::ui::compose::attention::Attention,
}

impl Default for VideoEditForm {
    fn default() -> Self {
        Self {
            choice: EditChoice::Trim,
            source: None,
            fields: EditFields::default(),
            model_id: None,
            url_input: String::new(),
            url_error: None,
            errors: Vec::new(),
            show_validation: false,
            server_errors: Vec::new(),
            attention: Default::default(),
        }
    }
}

impl VideoEditForm {
    pub fn set_choice(&mut self, choice: EditChoice) {
        if self.choice != choice {
            self.choice = choice;
            self.model_id = None;
            self.server_errors.clear();
        }
    }

    /// Edit `url` (a result or library item already on the service).
    pub fn set_source_url(
        &mut self,
        url: &str,
        label: &str,
        duration_secs: Option<f64>,
        poster_url: Option<&str>,
    ) {
        self.source = Some(VideoSource {
            path: None,
            label: label.to_owned(),
            state: SourceState::Ready {
                url: url.to_owned(),
            },
            upload_progress: None,
            duration_secs: duration_secs.filter(|d| d.is_finite() && *d > 0.0),
            fps: None,
            poster_url: poster_url.map(str::to_owned),
        });
        self.reset_times();
    }

    /// A local file that is being uploaded first.
    pub fn set_source_upload(&mut self, path: PathBuf) {
        let label = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "video".into());
        self.source = Some(VideoSource {
            path: Some(path),
            label,
            state: SourceState::Uploading,
            upload_progress: None,
            duration_secs: None,
            fps: None,
            poster_url: None,
        });
        self.reset_times();
    }

    /// A typed address: must be http(s).
    pub fn add_url_source(&mut self, url: &str) -> Result<(), String> {
        let url = url.trim();
        let lower = url.to_ascii_lowercase();
        let ok = (lower.starts_with("https://") || lower.starts_with("http://"))
            && url.len() > "https://".len()
            && !url.contains(char::is_whitespace);
        if !ok {
            return Err("Enter a web address starting with http:// or https://.".into());
        }
        let label = url.rsplit('/').next().unwrap_or(url).to_owned();
        self.set_source_url(url, &label, None, None);
        Ok(())
    }

    pub fn upload_progressed(&mut self, path: &Path, bytes_done: u64, bytes_total: u64) {
        if let Some(source) = self.source.as_mut()
            && source.path.as_deref() == Some(path)
            && source.state == SourceState::Uploading
        {
            source.upload_progress = Some((bytes_done, bytes_total));
        }
    }

    /// Whether this upload was ours (the compose form handles the others).
    pub fn upload_finished(&mut self, path: &Path, result: &Result<String, String>) -> bool {
        let Some(source) = self.source.as_mut() else {
            return false;
        };
        if source.path.as_deref() != Some(path) || source.state != SourceState::Uploading {
            return false;
        }
        source.upload_progress = None;
        source.state = match result {
            Ok(url) => SourceState::Ready { url: url.clone() },
            Err(error) => SourceState::Failed {
                error: error.clone(),
            },
        };
        true
    }

    /// The player has read the source: its length and frame rate.
    pub fn source_measured(&mut self, url: &str, duration_secs: f64, fps: f64) {
        if let Some(source) = self.source.as_mut()
            && source.url() == Some(url)
            && duration_secs.is_finite()
            && duration_secs > 0.0
        {
            source.duration_secs = Some(duration_secs);
            source.fps = (fps.is_finite() && fps > 0.0).then_some(fps);
            // The out point starts at the end; one set beyond the real end comes back to it.
            if self
                .fields
                .trim_out_secs
                .is_none_or(|out| out > duration_secs)
            {
                self.fields.trim_out_secs = Some(duration_secs);
            }
        }
    }

    fn reset_times(&mut self) {
        self.fields.trim_in_secs = 0.0;
        self.fields.trim_out_secs = self.source_secs();
        self.fields.retake_start_secs = 0.0;
        self.errors.clear();
        self.server_errors.clear();
    }

    pub fn source_secs(&self) -> Option<f64> {
        self.source.as_ref().and_then(|s| s.duration_secs)
    }

    pub fn source_fps(&self) -> Option<f64> {
        self.source.as_ref().and_then(|s| s.fps)
    }

    /// The catalog type whose models this choice may use.
    pub fn catalog_type(&self) -> Option<&'static str> {
        match self.choice {
            EditChoice::Trim => None,
            EditChoice::Operation(_) => Some(crate::api::VIDEO_EDIT_CATALOG_TYPE),
            EditChoice::Restyle => Some(VIDEO_TO_VIDEO_CATALOG_TYPE),
        }
    }

    /// The models the picker offers for this choice.
    pub fn models_for_choice<'m>(&self, model: &'m Model) -> Vec<&'m ModelRecord> {
        let Some(catalog) = model.catalog.value.as_deref() else {
            return Vec::new();
        };
        match self.choice {
            EditChoice::Trim => Vec::new(),
            EditChoice::Operation(kind) => catalog
                .iter()
                .filter(|m| {
                    m.has_type(crate::api::VIDEO_EDIT_CATALOG_TYPE)
                        && m.model_type
                            .as_deref()
                            .is_some_and(|t| t.trim().eq_ignore_ascii_case(kind.as_str()))
                })
                .collect(),
            EditChoice::Restyle => catalog
                .iter()
                .filter(|m| m.has_type(VIDEO_TO_VIDEO_CATALOG_TYPE))
                .collect(),
        }
    }

    /// The chosen model's record, if it still belongs to this choice.
    pub fn selected_model<'m>(&self, model: &'m Model) -> Option<&'m ModelRecord> {
        let id = self.model_id.as_deref()?;
        self.models_for_choice(model)
            .into_iter()
            .find(|m| m.identifier == id)
    }

    /// The model that will run: the chosen one, else the operation's default.
    pub fn effective_model<'m>(&self, model: &'m Model) -> Option<&'m ModelRecord> {
        if let Some(chosen) = self.selected_model(model) {
            return Some(chosen);
        }
        match self.choice {
            EditChoice::Operation(kind) => {
                default_edit_model(model.catalog.value.as_deref().unwrap_or_default(), kind)
            }
            _ => None,
        }
    }

    /// Upscale tiers: the model's, else the contract's examples.
    pub fn resolution_choices(&self, model: &Model) -> Vec<String> {
        self.effective_model(model)
            .map(|m| m.supported_resolutions.clone())
            .filter(|r| !r.is_empty())
            .unwrap_or_else(|| UPSCALE_TIERS.iter().map(|s| (*s).to_owned()).collect())
    }

    /// Reframe ratios: the model's, else common ones.
    pub fn aspect_ratio_choices(&self, model: &Model) -> Vec<String> {
        self.effective_model(model)
            .map(|m| m.supported_aspect_ratios.clone())
            .filter(|r| !r.is_empty())
            .unwrap_or_else(|| REFRAME_RATIOS.iter().map(|s| (*s).to_owned()).collect())
    }

    /// Audio formats the model writes (empty: the field is not offered).
    pub fn audio_format_choices(&self, model: &Model) -> Vec<String> {
        match self.effective_model(model) {
            Some(m)
                if m.identifier
                    .contains(crate::api::validate::AUDIO_SCORING_AUTO_CAPTION_MARKER) =>
            {
                if m.output_audio_formats.is_empty() {
                    crate::api::validate::AUDIO_FORMAT_FALLBACK
                        .iter()
                        .map(|s| (*s).to_owned())
                        .collect()
                } else {
                    m.output_audio_formats.clone()
                }
            }
            _ => Vec::new(),
        }
    }

    /// The operation with exactly the fields it reads.
    pub fn operation(&self, kind: VideoEditOperationKind) -> VideoEditOperation {
        let f = &self.fields;
        match kind {
            VideoEditOperationKind::Upscale => VideoEditOperation::Upscale {
                resolution: non_blank(&f.resolution),
                target_fps: f.target_fps,
                scale: None,
            },
            VideoEditOperationKind::Reframe => VideoEditOperation::Reframe {
                aspect_ratio: f.aspect_ratio.trim().to_owned(),
                resolution: None,
                grid_position_x: f.grid_x,
                grid_position_y: f.grid_y,
            },
            VideoEditOperationKind::GenerateAudio => VideoEditOperation::GenerateAudio {
                prompt: non_blank(&f.prompt),
                sound_effect_prompt: non_blank(&f.sound_effect_prompt),
                background_music_prompt: non_blank(&f.background_music_prompt),
                original_sound: f.original_sound.then_some(true),
                cfg_strength: None,
                audio_format: non_blank(&f.audio_format),
                segments: Vec::new(),
            },
            VideoEditOperationKind::RemoveWatermark => VideoEditOperation::RemoveWatermark {},
            VideoEditOperationKind::FaceSwap => VideoEditOperation::FaceSwap {
                image_url: f.face_image_url.trim().to_owned(),
            },
            VideoEditOperationKind::Extend => VideoEditOperation::Extend {
                duration: Some(f.extend_secs),
                mode: Some(if f.extend_at_start {
                    ExtendMode::Start
                } else {
                    ExtendMode::End
                }),
                prompt: non_blank(&f.prompt),
                context: non_blank(&f.context),
            },
            VideoEditOperationKind::MagicEdit => VideoEditOperation::MagicEdit {
                prompt: f.prompt.trim().to_owned(),
            },
            VideoEditOperationKind::Lipsync => VideoEditOperation::Lipsync {
                source: if f.lipsync_by_text {
                    LipsyncSource::Text(f.lipsync_text.trim().to_owned())
                } else {
                    LipsyncSource::Audio(f.lipsync_audio_url.trim().to_owned())
                },
            },
            VideoEditOperationKind::RemoveBackground => VideoEditOperation::RemoveBackground {
                refine_edges: Some(f.refine_edges),
                subject_is_person: Some(f.subject_is_person),
            },
            VideoEditOperationKind::Inpaint => VideoEditOperation::Inpaint {
                mask_video_url: non_blank(&f.mask_video_url),
                object_prompt: non_blank(&f.object_prompt),
                prompt: non_blank(&f.prompt),
                video_strength: f.video_strength,
            },
            VideoEditOperationKind::Retake => VideoEditOperation::Retake {
                start_time: Some(f.retake_start_secs),
                duration: Some(f.retake_secs),
                mode: Some(f.retake_mode),
                prompt: non_blank(&f.prompt),
            },
        }
    }

    /// The request for the current choice, with the project the Create form targets.
    pub fn build_spec(&self, project_id: Option<&str>) -> GenerationSpec {
        let video_url = self
            .source
            .as_ref()
            .and_then(VideoSource::url)
            .unwrap_or_default()
            .to_owned();
        let project_id = project_id.map(str::to_owned);
        let job = match self.choice {
            EditChoice::Trim => VideoJobRequest::Trim(TrimRequest {
                video_url,
                start_time: self.fields.trim_in_secs,
                end_time: self
                    .fields
                    .trim_out_secs
                    .or(self.source_secs())
                    .unwrap_or(self.fields.trim_in_secs),
                project_id,
            }),
            EditChoice::Operation(kind) => VideoJobRequest::Edit(VideoEditRequest {
                video_url,
                model: self.model_id.clone(),
                project_id,
                operation: self.operation(kind),
            }),
            EditChoice::Restyle => VideoJobRequest::FromVideo(VideoToVideoRequest {
                video_url,
                model: self.model_id.clone().unwrap_or_default(),
                prompt: self.fields.prompt.trim().to_owned(),
                project_id,
                ..VideoToVideoRequest::default()
            }),
        };
        GenerationSpec::for_video(job)
    }

    /// Problems known before sending (a source still uploading counts as missing).
    pub fn validation_errors(&self, model: &Model, project_id: Option<&str>) -> Vec<FieldError> {
        let mut errors = Vec::new();
        match &self.source {
            None => errors.push(FieldError {
                field: Field::SourceVideo,
                message: "Choose the video to edit.".into(),
            }),
            Some(source) => match &source.state {
                SourceState::Uploading => errors.push(FieldError {
                    field: Field::SourceVideo,
                    message: "Wait for the video to finish uploading.".into(),
                }),
                SourceState::Failed { .. } => errors.push(FieldError {
                    field: Field::SourceVideo,
                    message: "The video did not upload; remove it and try again.".into(),
                }),
                SourceState::Ready { .. } => {}
            },
        }
        let spec = self.build_spec(project_id);
        // The model that will run decides the limits (the operation's default when none is
        // chosen); restyle has no default.
        let runs = self.effective_model(model);
        for error in validate_with_source(&spec, runs, self.source_secs()) {
            if error.field == Field::SourceVideo && !errors.is_empty() {
                continue;
            }
            errors.push(error);
        }
        errors
    }

    /// Messages to show at `field`: validation (after a refused submit) and the service's.
    pub fn messages_for(&self, field: &Field) -> Vec<&str> {
        let local = self
            .errors
            .iter()
            .filter(|e| self.show_validation && &e.field == field);
        local
            .chain(self.server_errors.iter().filter(|e| &e.field == field))
            .map(|e| e.message.as_str())
            .collect()
    }

    /// Put an earlier job's source, choice and fields back (Reuse on an edit's result).
    pub fn fill_from_job(&mut self, job: &VideoJobRequest) {
        let url = job.video_url().to_owned();
        let label = url.rsplit('/').next().unwrap_or(&url).to_owned();
        self.set_source_url(&url, &label, None, None);
        let f = &mut self.fields;
        match job {
            VideoJobRequest::Trim(trim) => {
                self.choice = EditChoice::Trim;
                f.trim_in_secs = trim.start_time;
                f.trim_out_secs = Some(trim.end_time);
            }
            VideoJobRequest::FromVideo(v2v) => {
                self.choice = EditChoice::Restyle;
                f.prompt.clone_from(&v2v.prompt);
                self.model_id = Some(v2v.model.clone());
            }
            VideoJobRequest::Edit(edit) => {
                self.choice = EditChoice::Operation(edit.operation.kind());
                self.model_id.clone_from(&edit.model);
                fill_operation_fields(f, &edit.operation);
            }
        }
    }

    /// "clip.mp4, 0:01.00 to 0:03.12": what a trim job is called in the tray.
    pub fn trim_label(&self) -> String {
        let fps = self.source_fps().unwrap_or(24.0);
        let out = self
            .fields
            .trim_out_secs
            .or(self.source_secs())
            .unwrap_or(self.fields.trim_in_secs);
        let name = self.source.as_ref().map_or("video", |s| s.label.as_str());
        format!(
            "{name}, {} to {}",
            crate::ui::video::timeline::clock_label(self.fields.trim_in_secs, fps),
            crate::ui::video::timeline::clock_label(out, fps)
        )
    }

    /// The service refused the submit (400): show its words at the field they are about.
    pub fn note_rejection(&mut self, error: &crate::api::ApiError) {
        if error.status() != Some(400) {
            return;
        }
        let message = error.to_string();
        let lower = message.to_lowercase();
        let code = error.code().unwrap_or_default().to_ascii_uppercase();
        let field = if code.contains("VIDEO") || lower.contains("video_url") {
            Field::SourceVideo
        } else if code.contains("MODEL") || lower.contains("model") {
            Field::Model
        } else if lower.contains("prompt") {
            Field::Prompt
        } else if lower.contains("aspect_ratio") {
            Field::AspectRatio
        } else if lower.contains("start_time") {
            Field::StartTime
        } else if lower.contains("end_time") {
            Field::EndTime
        } else {
            Field::Operation
        };
        self.server_errors.push(FieldError { field, message });
    }

    /// Fill the choices the service requires from the model that will run, when its
    /// record gives a default or offers a single option (Reframe's ratio, Upscale's tier,
    /// Restyle's model); a choice the model does not offer falls back the same way. (The
    /// audio format is optional: the service writes the model's default.) Call before
    /// layout.
    pub fn normalize(&mut self, model: &Model) {
        if !model.catalog.is_loaded() {
            return;
        }
        match self.choice {
            EditChoice::Trim => {}
            EditChoice::Restyle => {
                if self.selected_model(model).is_none()
                    && let [only] = self.models_for_choice(model).as_slice()
                {
                    self.model_id = Some(only.identifier.clone());
                }
            }
            EditChoice::Operation(kind) => {
                let runs = self.effective_model(model);
                let record_default = |value: Option<&String>, offered: &[String]| {
                    value
                        .filter(|v| offered.iter().any(|o| o.eq_ignore_ascii_case(v)))
                        .cloned()
                        .or_else(|| match offered {
                            [only] => Some(only.clone()),
                            _ => None,
                        })
                };
                match kind {
                    VideoEditOperationKind::Reframe => {
                        let offered = self.aspect_ratio_choices(model);
                        if !contains_ignore_case(&offered, &self.fields.aspect_ratio) {
                            let default = runs.and_then(|m| m.default_aspect_ratio.as_ref());
                            self.fields.aspect_ratio =
                                record_default(default, &offered).unwrap_or_default();
                        }
                    }
                    VideoEditOperationKind::Upscale => {
                        let offered = self.resolution_choices(model);
                        if !contains_ignore_case(&offered, &self.fields.resolution) {
                            // The contract's default tier when offered, else the first.
                            let contract = "1080p".to_owned();
                            self.fields.resolution = record_default(Some(&contract), &offered)
                                .or_else(|| offered.first().cloned())
                                .unwrap_or_default();
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// Revalidate live once a submit has been refused.
    pub fn refresh_validation(&mut self, model: &Model, project_id: Option<&str>) {
        if self.show_validation {
            self.errors = self.validation_errors(model, project_id);
        }
    }

    pub fn estimate(&self, model: &Model, project_id: Option<&str>) -> Estimate {
        let spec = self.build_spec(project_id);
        let catalog = model.catalog.value.as_deref().unwrap_or_default();
        match estimate_video_job(
            &spec,
            self.selected_model(model),
            catalog,
            self.source_secs(),
        ) {
            VideoPrice::Free => Estimate::Exact(0.0),
            VideoPrice::Credits(credits) => Estimate::Exact(credits),
            VideoPrice::PerSourceSecond(_) | VideoPrice::Unknown => Estimate::Unknown,
        }
    }

    /// The button's text: the verb and the price.
    pub fn button_text(&self, model: &Model, project_id: Option<&str>) -> String {
        let verb = self.choice.verb();
        match self.estimate(model, project_id) {
            Estimate::Exact(v) if v == 0.0 && self.choice == EditChoice::Trim => {
                format!("{verb} · free")
            }
            Estimate::Exact(v) => format!("{verb} · {}", crate::ui::format::credits(v)),
            Estimate::Range(lo, hi) => {
                format!("{verb} · {}", crate::ui::format::credit_range(lo, hi))
            }
            Estimate::Unknown => verb.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests;
