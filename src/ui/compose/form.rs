//! The compose form's state and the pure logic around it: what the selected model
//! supports, the request it builds, the credit estimate and validation. No egui here.

use crate::api::pricing::{estimate_credits, estimate_range_for_auto};
use crate::api::validate::{Field, FieldError, validate};
use crate::api::{
    ApiError, DEFAULT_SCENE_COUNT, GenerationKind, GenerationRequest, GenerationSpec,
    MAX_SCENE_COUNT, MIN_SCENE_COUNT, ModelRecord, WorkflowType,
};
use crate::engine::LocalJobId;
use crate::ui::model::Model;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Contract defaults offered while the model is "Auto".
pub const AUTO_ASPECT_RATIOS: [&str; 5] = ["1:1", "16:9", "9:16", "4:3", "3:4"];
pub const AUTO_RESOLUTIONS: [&str; 3] = ["1K", "2K", "4K"];
pub const AUTO_MAX_IMAGES: u32 = 1;
/// Video choices offered while the model is "Auto" (the service maps a length or ratio its
/// routed model lacks to the closest it has).
pub const AUTO_VIDEO_ASPECT_RATIOS: [&str; 3] = ["16:9", "9:16", "1:1"];
pub const AUTO_VIDEO_RESOLUTIONS: [&str; 2] = ["720p", "1080p"];
pub const AUTO_VIDEO_DURATIONS_SECS: [f64; 2] = [5.0, 10.0];
/// Contract default video length.
pub const DEFAULT_VIDEO_DURATION_SECS: f64 = 5.0;
/// Upper bound on the image-count control whatever a model claims.
pub const MAX_IMAGES_CONTROL: u32 = 8;

#[derive(Clone, Debug, PartialEq)]
pub enum SourceState {
    Uploading,
    Ready { url: String },
    Failed { error: String },
}

#[derive(Clone, Debug, PartialEq)]
pub struct SourceImage {
    /// The local file, for uploads (matches `Event::SourceUploaded`).
    pub path: Option<PathBuf>,
    pub label: String,
    pub state: SourceState,
    /// Bytes sent and total while uploading.
    pub upload_progress: Option<(u64, u64)>,
}

impl SourceImage {
    /// A source known by its URL (a result, a library item, a typed address).
    pub fn ready(url: &str, label: &str) -> Self {
        Self {
            path: None,
            label: label.to_owned(),
            state: SourceState::Ready {
                url: url.to_owned(),
            },
            upload_progress: None,
        }
    }
}

/// What the selected model lets the artist choose.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputOptions {
    /// Empty: the model has no tiers; the control is hidden and the service default used.
    pub aspect_ratios: Vec<String>,
    pub resolutions: Vec<String>,
    pub max_images: u32,
    /// Video lengths in seconds; empty for image work.
    pub durations_secs: Vec<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Estimate {
    Unknown,
    Exact(f64),
    Range(f64, f64),
}

impl Estimate {
    /// Text for the Generate button.
    pub fn button_text(self) -> String {
        match self {
            Estimate::Unknown => "Generate".to_owned(),
            Estimate::Exact(v) => format!("Generate · {}", crate::ui::format::credits(v)),
            Estimate::Range(lo, hi) => {
                format!("Generate · {}", crate::ui::format::credit_range(lo, hi))
            }
        }
    }
    /// The figure stored with the job (the top of a range: what may be reserved).
    pub fn for_job(self) -> Option<f64> {
        match self {
            Estimate::Unknown => None,
            Estimate::Exact(v) => Some(v),
            Estimate::Range(_, hi) => Some(hi),
        }
    }
}

pub struct ComposeForm {
    pub kind: GenerationKind,
    pub prompt: String,
    /// `None` = Auto.
    pub model_id: Option<String>,
    pub aspect_ratio: String,
    pub resolution: String,
    pub num_images: u32,
    pub enhance_prompt: bool,
    pub sources: Vec<SourceImage>,
    pub url_input: String,
    pub url_error: Option<String>,
    pub project_id: Option<String>,
    pub new_project_open: bool,
    pub new_project_name: String,
    pub project_creating: bool,
    pub project_error: Option<String>,
    /// Validation messages; recomputed live once a submit has been refused.
    pub errors: Vec<FieldError>,
    pub show_validation: bool,
    /// Messages from the service's rejection of the last submit, per field.
    pub server_errors: Vec<FieldError>,
    /// After a refused Generate: the first bad field is scrolled to and focused.
    pub attention: crate::ui::compose::attention::Attention,
    /// The next new job is the one this form just submitted.
    pub awaiting_job: bool,
    pub tracked_job: Option<LocalJobId>,
    /// Cinematic preset per dimension the artist chose (absent = Auto).
    pub cinematic: BTreeMap<String, String>,
    /// Skip the project's colour grade for the next requests (sent only when on).
    pub skip_palette: bool,
    /// The cinematic preset rows are shown.
    pub cinematic_open: bool,
    /// Video length (text/image to video, Creative Director video mode).
    pub duration_secs: f64,
    /// Creative Director.
    pub scene_count: u32,
    pub workflow: WorkflowType,
    /// The Visual DNA picked (sent when the kind and model take them).
    pub dna: super::dna_picker::DnaPickerState,
    /// The moodboard chosen (Creative Director: for all scenes or per scene).
    pub moodboard: super::moodboard_picker::MoodboardPickerState,
    /// Every Visual DNA and moodboard the service listed last (the pickers' choices and
    /// what a picked id is checked against).
    pub visual_dnas: super::dna_picker::DnaList,
    pub moodboards: super::moodboard_picker::MoodboardList,
    /// Settings' starting choices per type (keyed by [`defaults_key`]), kept current by
    /// the shell; applied by [`ComposeForm::set_kind`] and "Reset to defaults".
    pub kind_defaults: BTreeMap<String, crate::settings::GenerationDefaults>,
    /// Music, speech and sound effects: their own fields and the voice picker.
    pub audio: super::audio_form::AudioForm,
    /// Elements, first and last frame, lip sync: their media slots and voice.
    pub motion: super::motion_form::MotionForm,
}

/// The key of a type in `Settings::generation_defaults`: its wire name (`"image"`,
/// `"text_to_video"`…), so the settings file stays readable and independent of the UI.
pub fn defaults_key(kind: GenerationKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| format!("{kind:?}"))
}

impl Default for ComposeForm {
    fn default() -> Self {
        Self {
            kind: GenerationKind::Image,
            prompt: String::new(),
            model_id: None,
            aspect_ratio: "1:1".to_owned(),
            resolution: "1K".to_owned(),
            num_images: 1,
            enhance_prompt: true,
            sources: Vec::new(),
            url_input: String::new(),
            url_error: None,
            project_id: None,
            new_project_open: false,
            new_project_name: String::new(),
            project_creating: false,
            project_error: None,
            errors: Vec::new(),
            show_validation: false,
            server_errors: Vec::new(),
            attention: Default::default(),
            awaiting_job: false,
            tracked_job: None,
            cinematic: BTreeMap::new(),
            skip_palette: false,
            cinematic_open: false,
            duration_secs: DEFAULT_VIDEO_DURATION_SECS,
            scene_count: DEFAULT_SCENE_COUNT,
            workflow: WorkflowType::Image,
            dna: Default::default(),
            moodboard: Default::default(),
            visual_dnas: Default::default(),
            moodboards: Default::default(),
            kind_defaults: BTreeMap::new(),
            audio: Default::default(),
            motion: Default::default(),
        }
    }
}

fn same_field(a: &Field, b: &Field) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

impl ComposeForm {
    /// Switch the type: the aspect ratio and resolution start from the new type's defaults
    /// (a 1:1 image habit should not make every video square).
    pub fn set_kind(&mut self, kind: GenerationKind) {
        if self.kind == kind {
            return;
        }
        let was_video = self.makes_video();
        self.kind = kind;
        if self.makes_video() != was_video || kind == GenerationKind::CreativeDirector {
            self.aspect_ratio = kind.default_aspect_ratio().to_owned();
            self.resolution.clear();
        }
        self.errors.clear();
        self.server_errors.clear();
        self.show_validation = false;
        // A fresh type selection starts from the Settings default for that type (when one
        // is set): that is what an artist set it for. The choices remembered from the last
        // run win only at start-up, where they restore the work in progress. Without a
        // default the choices carry over as before.
        if self.has_kind_defaults() {
            self.apply_kind_defaults();
        }
    }

    /// Put the Settings default model, resolution and duration of the current type into
    /// the form. Without a default for the type: Auto and the service's defaults (the
    /// form's "Reset to defaults"). `normalize` then fits them to the model's limits.
    pub fn apply_kind_defaults(&mut self) {
        let defaults = self
            .kind_defaults
            .get(&defaults_key(self.kind))
            .cloned()
            .unwrap_or_default();
        self.model_id = defaults.model_id;
        // An empty resolution is replaced by the model's (or Auto's) first choice.
        self.resolution = defaults.resolution.unwrap_or_default();
        if let Some(secs) = defaults.duration_secs.filter(|d| d.is_finite() && *d > 0.0) {
            self.duration_secs = secs;
        } else if self.makes_video() {
            // Normalize picks the model's default length when it does not offer this one.
            self.duration_secs = DEFAULT_VIDEO_DURATION_SECS;
        }
    }

    /// Whether a Settings default exists for the current type.
    pub fn has_kind_defaults(&self) -> bool {
        self.kind_defaults
            .get(&defaults_key(self.kind))
            .is_some_and(|d| !d.is_empty())
    }

    /// The catalog type whose models the form offers (Creative Director: per workflow).
    pub fn catalog_type(&self) -> &'static str {
        self.spec_shape().catalog_type()
    }

    /// A spec with only the kind and workflow set: what decides types and units.
    fn spec_shape(&self) -> GenerationSpec {
        GenerationSpec {
            catalog: None,
            kind: self.kind,
            request: GenerationRequest {
                workflow_type: self.workflow_request(),
                ..GenerationRequest::default()
            },
            video: None,
            audio: None,
        }
    }

    /// The model whose caps a motion form follows: the chosen one; under Auto with one
    /// model of the type, that one (it is the one that will run).
    pub fn motion_limits_model<'m>(&self, model: &'m Model) -> Option<&'m ModelRecord> {
        self.selected_model(model).or_else(|| {
            let models = model.models_of_kind(self.catalog_type());
            (models.len() == 1).then(|| models[0])
        })
    }

    /// Elements, first and last frame, or lip sync: the media-slot forms.
    pub fn is_motion(&self) -> bool {
        super::motion_form::MOTION_KINDS.contains(&self.kind)
    }

    /// Whether this form's outputs are videos (and so have a length).
    pub fn makes_video(&self) -> bool {
        self.spec_shape().makes_video()
    }

    fn workflow_request(&self) -> Option<WorkflowType> {
        (self.kind == GenerationKind::CreativeDirector).then_some(self.workflow)
    }

    /// The selected model record (None for Auto or while the catalog loads).
    pub fn selected_model<'m>(&self, model: &'m Model) -> Option<&'m ModelRecord> {
        let id = self.model_id.as_deref()?;
        model
            .model_by_id(id)
            .filter(|m| m.has_type(self.catalog_type()))
            .filter(|m| {
                self.kind != GenerationKind::FirstLastFrame
                    || m.supports_first_last_frame != Some(false)
            })
    }

    /// How many Visual DNA this kind and model take (0: the picker is hidden).
    pub fn visual_dna_cap(&self, model: &Model) -> usize {
        crate::api::validate::visual_dna_cap(self.kind, self.selected_model(model))
    }

    /// Visual DNA ids as they will be sent: the picks, when the kind and model take them.
    pub fn visual_dna_ids(&self, model: &Model) -> Vec<String> {
        if self.visual_dna_cap(model) == 0 {
            return Vec::new();
        }
        self.dna.picked.clone()
    }

    /// Whether this kind's form offers a moodboard.
    pub fn takes_moodboard(&self) -> bool {
        crate::api::validate::kind_takes_moodboard(self.kind)
    }

    /// Picked Visual DNA and chosen moodboards that the last lists no longer have, or that
    /// are not ready: what blocks Generate besides the shared validator.
    fn picker_errors(&self, spec: &GenerationSpec) -> Vec<FieldError> {
        let mut errors = Vec::new();
        for id in &spec.request.visual_dna_ids {
            if self.visual_dnas.is_missing(id) {
                errors.push(FieldError {
                    field: Field::VisualDna,
                    message: "A picked Visual DNA was deleted; remove it (marked missing)."
                        .to_owned(),
                });
            } else if let Some(entry) = self.visual_dnas.find(id) {
                if entry.is_building() {
                    errors.push(FieldError {
                        field: Field::VisualDna,
                        message: format!(
                            "“{}” is still being built; wait until it is ready or remove it.",
                            entry.name
                        ),
                    });
                } else if entry.is_failed() {
                    errors.push(FieldError {
                        field: Field::VisualDna,
                        message: format!(
                            "“{}” could not be built; remove it and make it again.",
                            entry.name
                        ),
                    });
                }
            }
        }
        let boards = spec
            .request
            .moodboard_id
            .iter()
            .chain(spec.request.moodboard_ids.iter());
        if boards
            .filter(|id| !id.is_empty())
            .any(|id| self.moodboards.is_missing(id))
        {
            errors.push(FieldError {
                field: Field::Moodboard,
                message: "A chosen moodboard was deleted; pick another or None.".to_owned(),
            });
        }
        errors
    }

    /// URLs of the ready sources (uploads finished, URLs added).
    fn ready_source_urls(&self) -> Vec<String> {
        self.sources
            .iter()
            .filter_map(|s| match &s.state {
                SourceState::Ready { url } => Some(url.clone()),
                _ => None,
            })
            .collect()
    }

    /// Whether the form has a sources list: edit sources, the image to animate, or
    /// Creative Director's reference images.
    pub fn takes_sources(&self) -> bool {
        matches!(
            self.kind,
            GenerationKind::ImageEdit
                | GenerationKind::ImageToVideo
                | GenerationKind::CreativeDirector
        )
    }

    /// The field the sources list is validated as.
    pub fn sources_field(&self) -> Field {
        match self.kind {
            GenerationKind::ImageToVideo => Field::SourceImage,
            GenerationKind::CreativeDirector => Field::ReferenceImages,
            _ => Field::SourceImages,
        }
    }

    pub fn model_label(&self, model: &Model) -> String {
        match self.selected_model(model) {
            Some(m) => m.display_name().to_owned(),
            None => "Auto".to_owned(),
        }
    }

    pub fn max_prompt_chars(&self, model: &Model) -> u32 {
        self.limits_model(model)
            .map(ModelRecord::max_prompt_chars)
            .unwrap_or(crate::api::DEFAULT_MAX_PROMPT_LENGTH)
    }

    /// The model whose limits the form follows: the chosen one; for the sound kinds under
    /// Auto, the type's only model (see `audio_form::effective_model`).
    pub fn limits_model<'m>(&self, model: &'m Model) -> Option<&'m ModelRecord> {
        if self.kind.outputs_audio() {
            super::audio_form::effective_model(model, self.kind, self.selected_model(model))
        } else {
            self.selected_model(model)
        }
    }

    pub fn output_options(&self, model: &Model) -> OutputOptions {
        if self.kind.outputs_audio() || self.kind == GenerationKind::Lipsync {
            // Sound has no picture: its lengths are the audio form's own. A lip sync's
            // picture and length are its face's and its voice's.
            return OutputOptions {
                aspect_ratios: Vec::new(),
                resolutions: Vec::new(),
                max_images: 1,
                durations_secs: Vec::new(),
            };
        }
        let video = self.makes_video();
        let counts_images = matches!(self.kind, GenerationKind::Image | GenerationKind::ImageEdit);
        let strings = |list: &[&str]| list.iter().map(|s| s.to_string()).collect();
        match self.selected_model(model) {
            None if video => OutputOptions {
                aspect_ratios: strings(&AUTO_VIDEO_ASPECT_RATIOS),
                resolutions: strings(&AUTO_VIDEO_RESOLUTIONS),
                max_images: 1,
                durations_secs: AUTO_VIDEO_DURATIONS_SECS.to_vec(),
            },
            None => OutputOptions {
                aspect_ratios: strings(&AUTO_ASPECT_RATIOS),
                resolutions: strings(&AUTO_RESOLUTIONS),
                max_images: AUTO_MAX_IMAGES,
                durations_secs: Vec::new(),
            },
            Some(m) => OutputOptions {
                aspect_ratios: m.aspect_ratios_for(self.catalog_type()).to_vec(),
                resolutions: m.supported_resolutions.clone(),
                max_images: if counts_images {
                    m.max_images_per_request().clamp(1, MAX_IMAGES_CONTROL)
                } else {
                    1
                },
                durations_secs: if !video {
                    Vec::new()
                } else if m.supported_durations.is_empty() {
                    vec![m.default_duration_secs()]
                } else {
                    m.supported_durations.clone()
                },
            },
        }
    }

    /// Keep the choices inside what the selected model supports. Call before layout.
    pub fn normalize(&mut self, model: &Model) {
        // A remembered or reused model's limits are unknown until the catalog is in: keep
        // the choices as they are rather than clamp them to Auto's.
        if self.model_id.is_some() && !model.catalog.is_loaded() {
            return;
        }
        if model.catalog.is_loaded()
            && self.model_id.is_some()
            && self.selected_model(model).is_none()
        {
            self.model_id = None;
        }
        let options = self.output_options(model);
        let selected = self.selected_model(model);
        if !options.aspect_ratios.is_empty() && !options.aspect_ratios.contains(&self.aspect_ratio)
        {
            self.aspect_ratio = selected
                .and_then(|m| m.default_aspect_ratio.clone())
                .filter(|d| options.aspect_ratios.contains(d))
                .unwrap_or_else(|| {
                    let default = self.kind.default_aspect_ratio().to_owned();
                    if options.aspect_ratios.contains(&default) {
                        default
                    } else {
                        options.aspect_ratios[0].clone()
                    }
                });
        }
        if !options.resolutions.is_empty() && !options.resolutions.contains(&self.resolution) {
            self.resolution = if options.resolutions.iter().any(|r| r == "1K") {
                "1K".to_owned()
            } else {
                options.resolutions[0].clone()
            };
        }
        self.num_images = self.num_images.clamp(1, options.max_images.max(1));
        if !options.durations_secs.is_empty()
            && !options
                .durations_secs
                .iter()
                .any(|d| (d - self.duration_secs).abs() < 1e-6)
        {
            let default =
                selected.map_or(DEFAULT_VIDEO_DURATION_SECS, |m| m.default_duration_secs());
            self.duration_secs = options
                .durations_secs
                .iter()
                .copied()
                .find(|d| (d - default).abs() < 1e-6)
                .unwrap_or(options.durations_secs[0]);
        }
        self.scene_count = self.scene_count.clamp(MIN_SCENE_COUNT, MAX_SCENE_COUNT);
        // More Visual DNA than this kind and model take: keep the first ones and say so.
        let dna_cap = self.visual_dna_cap(model);
        if dna_cap > 0 && self.dna.picked.len() > dna_cap {
            let who = self
                .selected_model(model)
                .map_or("this type", ModelRecord::display_name)
                .to_owned();
            self.dna
                .trim_to(dna_cap, &format!("{who} takes up to {dna_cap}"));
        }
        if self.kind.outputs_audio() && model.catalog.is_loaded() {
            let limits = self.limits_model(model).cloned();
            self.audio.normalize(self.kind, limits.as_ref());
        }
        // Image to video animates one image: the newest added replaces the others.
        if self.kind == GenerationKind::ImageToVideo && self.sources.len() > 1 {
            let keep = self.sources.len() - 1;
            self.sources.drain(..keep);
        }
        // A refreshed presets map may have dropped a chosen preset: that dimension is Auto.
        if let Some(presets) = model.presets.value.as_ref() {
            self.cinematic.retain(|dimension, id| {
                presets
                    .get(dimension)
                    .is_some_and(|list| list.iter().any(|p| &p.id == id))
            });
        }
        if self.show_validation {
            self.errors = self.validation_errors(model);
        }
    }

    /// The request this form describes right now: only the fields its route reads.
    pub fn build_spec(&self, model: &Model) -> GenerationSpec {
        if self.kind.outputs_audio() {
            return self.audio.spec(
                self.kind,
                &self.prompt,
                self.selected_model(model).map(|m| m.identifier.clone()),
                self.project_id.clone(),
            );
        }
        let options = self.output_options(model);
        if self.is_motion() {
            return self.motion_spec(model, &options);
        }
        let kind = self.kind;
        let sources = if self.takes_sources() {
            self.ready_source_urls()
        } else {
            Vec::new()
        };
        let video = self.makes_video();
        GenerationSpec {
            catalog: None,
            kind,
            request: GenerationRequest {
                kind_hint: Some(kind),
                prompt: self.prompt.trim().to_owned(),
                model: self.selected_model(model).map(|m| m.identifier.clone()),
                aspect_ratio: (!options.aspect_ratios.is_empty())
                    .then(|| self.aspect_ratio.clone()),
                resolution: (!options.resolutions.is_empty()).then(|| self.resolution.clone()),
                num_images: matches!(kind, GenerationKind::Image | GenerationKind::ImageEdit)
                    .then_some(self.num_images),
                enhance_prompt: Some(self.enhance_prompt),
                source_images: if kind == GenerationKind::ImageEdit {
                    sources.clone()
                } else {
                    Vec::new()
                },
                image_url: (kind == GenerationKind::ImageToVideo)
                    .then(|| sources.last().cloned())
                    .flatten(),
                reference_images: if kind == GenerationKind::CreativeDirector {
                    sources
                } else {
                    Vec::new()
                },
                duration: video.then_some(self.duration_secs),
                scene_count: (kind == GenerationKind::CreativeDirector).then_some(self.scene_count),
                workflow_type: self.workflow_request(),
                visual_dna_ids: self.visual_dna_ids(model),
                moodboard_id: self
                    .takes_moodboard()
                    .then(|| {
                        self.moodboard
                            .moodboard_id(kind == GenerationKind::CreativeDirector)
                    })
                    .flatten(),
                moodboard_ids: if self.takes_moodboard() {
                    self.moodboard
                        .moodboard_ids(kind == GenerationKind::CreativeDirector, self.scene_count)
                } else {
                    Vec::new()
                },
                cinematic: self.cinematic_request(),
                skip_color_palette: self.skip_palette_request(model),
                project_id: self.project_id.clone(),
                ..Default::default()
            },
            video: None,
            audio: None,
        }
    }

    /// Elements, first and last frame, lip sync: the body from the media slots and the
    /// shared fields; a lip sync's `request.duration` is its sound's length when known
    /// (what it is priced by; the body has no length).
    fn motion_spec(&self, model: &Model, options: &OutputOptions) -> GenerationSpec {
        let shared = super::motion_form::SharedFields {
            prompt: self.prompt.trim().to_owned(),
            model: self.selected_model(model).map(|m| m.identifier.clone()),
            duration_secs: (!options.durations_secs.is_empty()).then_some(self.duration_secs),
            aspect_ratio: (!options.aspect_ratios.is_empty()).then(|| self.aspect_ratio.clone()),
            resolution: (!options.resolutions.is_empty()).then(|| self.resolution.clone()),
            visual_dna_ids: if self.kind == GenerationKind::Elements {
                self.visual_dna_ids(model)
            } else {
                Vec::new()
            },
            project_id: self.project_id.clone(),
        };
        let Some(job) = self.motion.job(self.kind, &shared) else {
            return self.spec_shape();
        };
        let mut spec = GenerationSpec::for_catalog(job);
        if self.kind == GenerationKind::Lipsync {
            spec.request.duration = self.motion.lipsync_secs();
        }
        spec.request.aspect_ratio = shared.aspect_ratio;
        spec.request.resolution = shared.resolution;
        spec.request.visual_dna_ids = shared.visual_dna_ids;
        spec
    }

    /// Whether this kind takes cinematic presets and the palette opt-out (the contract
    /// accepts `cinematic` on image and image-edit only).
    pub fn kind_takes_presets(&self) -> bool {
        matches!(self.kind, GenerationKind::Image | GenerationKind::ImageEdit)
    }

    /// `cinematic` as sent: only the dimensions the artist set; `None` when all are Auto.
    pub fn cinematic_request(&self) -> Option<BTreeMap<String, Option<String>>> {
        if !self.kind_takes_presets() || self.cinematic.is_empty() {
            return None;
        }
        Some(
            self.cinematic
                .iter()
                .map(|(dimension, id)| (dimension.clone(), Some(id.clone())))
                .collect(),
        )
    }

    /// Whether the "Skip palette" toggle applies: the project has an active palette and
    /// the kind is graded with a per-request opt-out.
    /// (Image-to-video is never graded; Creative Director is always graded and refuses
    /// the opt-out.)
    pub fn skip_palette_available(&self, model: &Model) -> bool {
        matches!(
            self.kind,
            GenerationKind::Image | GenerationKind::ImageEdit | GenerationKind::TextToVideo
        ) && model.active_palette(self.project_id.as_deref()).is_some()
    }

    /// `skip_color_palette: true` only when the toggle is on and applies; never `false`.
    pub fn skip_palette_request(&self, model: &Model) -> Option<bool> {
        (self.skip_palette && self.skip_palette_available(model)).then_some(true)
    }

    pub fn estimate(&self, model: &Model) -> Estimate {
        if self.kind == GenerationKind::Speech && self.prompt.trim().is_empty() {
            // Priced by its text: nothing to price yet (the line under the text says how).
            return Estimate::Unknown;
        }
        let spec = self.build_spec(model);
        match self.limits_model(model) {
            Some(record) => {
                estimate_credits(record, &spec).map_or(Estimate::Unknown, Estimate::Exact)
            }
            None => {
                let candidates: Vec<ModelRecord> = model
                    .models_of_kind(self.catalog_type())
                    .into_iter()
                    .cloned()
                    .collect();
                match estimate_range_for_auto(&candidates, &spec) {
                    Some((lo, hi)) if (hi - lo).abs() < 0.05 => Estimate::Exact(lo),
                    Some((lo, hi)) => Estimate::Range(lo, hi),
                    None => Estimate::Unknown,
                }
            }
        }
    }

    /// Client-side checks: the shared validator plus what only the form knows (uploads).
    pub fn validation_errors(&self, model: &Model) -> Vec<FieldError> {
        let spec = self.build_spec(model);
        if self.kind.outputs_audio() {
            return crate::api::validate::validate_audio_job(
                &spec,
                self.limits_model(model),
                self.audio.voices.known_voices(),
            );
        }
        if self.is_motion() {
            let mut errors = crate::api::validate::validate_catalog_with(
                &spec,
                self.motion_limits_model(model),
                &self.motion.facts(),
            );
            errors.extend(self.motion.upload_errors(self.kind));
            errors.extend(self.picker_errors(&spec));
            return errors;
        }
        let mut errors = validate(&spec, self.selected_model(model));
        errors.extend(self.picker_errors(&spec));
        if self.takes_sources() {
            let field = self.sources_field();
            if self
                .sources
                .iter()
                .any(|s| s.state == SourceState::Uploading)
            {
                errors.push(FieldError {
                    field,
                    message: "Wait for the uploads to finish.".to_owned(),
                });
            }
            if self
                .sources
                .iter()
                .any(|s| matches!(s.state, SourceState::Failed { .. }))
            {
                errors.push(FieldError {
                    field,
                    message: "Remove the images that failed to upload.".to_owned(),
                });
            }
        }
        errors
    }

    /// The line under Generate after a refusal: names the first field to fix.
    pub fn refusal_line(&self) -> Option<String> {
        self.attention.refusal_line(&self.errors)
    }

    /// Messages to show under `field` (validation first, then the service's).
    pub fn messages_for(&self, field: &Field) -> Vec<&str> {
        self.errors
            .iter()
            .chain(self.server_errors.iter())
            .filter(|e| same_field(&e.field, field))
            .map(|e| e.message.as_str())
            .collect()
    }

    /// A submit was refused by the service: when it is a 400 about the prompt or the
    /// model, repeat the message under that field (the tray shows it as well).
    pub fn note_rejection(&mut self, error: &ApiError) {
        let code = error.code().unwrap_or_default().to_ascii_uppercase();
        // Speech: VOICE_REQUIRED (400) and VOICE_NOT_FOUND (404) belong to the voice.
        let voice = code.starts_with("VOICE_");
        if error.status() != Some(400) && !voice {
            return;
        }
        let message = error.to_string();
        let lower = message.to_lowercase();
        let field = if voice {
            Some(Field::Voice)
        } else if code.contains("PROMPT") || lower.contains("prompt") {
            Some(Field::Prompt)
        } else if code.contains("MODEL") || lower.contains("model") {
            Some(Field::Model)
        } else {
            None
        };
        if let Some(field) = field {
            self.server_errors.push(FieldError { field, message });
        }
    }

    /// Put a request's prompt and settings (model, aspect, resolution, count, enhance,
    /// cinematic, edit sources) into the form, as for "Reuse prompt and settings".
    pub fn fill_from_request(&mut self, kind: GenerationKind, request: &GenerationRequest) {
        self.kind = kind;
        self.prompt = request.prompt.clone();
        self.model_id = request.model.clone();
        if let Some(aspect_ratio) = &request.aspect_ratio {
            self.aspect_ratio = aspect_ratio.clone();
        }
        if let Some(resolution) = &request.resolution {
            self.resolution = resolution.clone();
        }
        self.num_images = request.num_images.unwrap_or(1).max(1);
        self.enhance_prompt = request.enhance_prompt.unwrap_or(true);
        self.cinematic = request
            .cinematic
            .iter()
            .flatten()
            .filter_map(|(dimension, id)| Some((dimension.clone(), id.clone()?)))
            .collect();
        self.cinematic_open |= !self.cinematic.is_empty();
        if let Some(secs) = request.duration {
            self.duration_secs = secs;
        }
        if let Some(count) = request.scene_count {
            self.scene_count = count;
        }
        if let Some(workflow) = request.workflow_type {
            self.workflow = workflow;
        }
        self.dna.set(&request.visual_dna_ids);
        self.moodboard
            .set_from(request.moodboard_id.as_deref(), &request.moodboard_ids);
        let source_urls: Vec<String> = match kind {
            GenerationKind::ImageEdit => request.source_images.clone(),
            GenerationKind::ImageToVideo => request.image_url.iter().cloned().collect(),
            GenerationKind::CreativeDirector => request.reference_images.clone(),
            _ => Vec::new(),
        };
        if self.takes_sources() {
            self.sources = source_urls
                .iter()
                .map(|url| SourceImage {
                    path: None,
                    label: url
                        .rsplit('/')
                        .find(|s| !s.is_empty())
                        .unwrap_or(url)
                        .to_owned(),
                    state: SourceState::Ready { url: url.clone() },
                    upload_progress: None,
                })
                .collect();
        }
        self.errors.clear();
        self.server_errors.clear();
        self.show_validation = false;
    }

    pub fn add_url_source(&mut self, url: &str) -> Result<(), String> {
        let url = url.trim();
        let ok = (url.starts_with("http://") || url.starts_with("https://"))
            && url.len() > "https://".len()
            && !url.contains(char::is_whitespace);
        if !ok {
            return Err("Enter an http:// or https:// image URL.".to_owned());
        }
        if self
            .sources
            .iter()
            .any(|s| matches!(&s.state, SourceState::Ready { url: u } if u == url))
        {
            return Err("That image is already added.".to_owned());
        }
        let label = url.rsplit('/').find(|s| !s.is_empty()).unwrap_or(url);
        self.sources.push(SourceImage {
            path: None,
            label: label.to_owned(),
            state: SourceState::Ready {
                url: url.to_owned(),
            },
            upload_progress: None,
        });
        Ok(())
    }

    pub fn add_upload(&mut self, path: PathBuf) {
        let label = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        self.sources.push(SourceImage {
            path: Some(path),
            label,
            state: SourceState::Uploading,
            upload_progress: None,
        });
    }

    pub fn upload_progressed(&mut self, path: &std::path::Path, bytes_done: u64, bytes_total: u64) {
        for source in self
            .sources
            .iter_mut()
            .filter(|s| s.path.as_deref() == Some(path) && s.state == SourceState::Uploading)
        {
            source.upload_progress = Some((bytes_done, bytes_total));
        }
    }

    pub fn upload_finished(&mut self, path: &std::path::Path, result: Result<String, String>) {
        for source in self
            .sources
            .iter_mut()
            .filter(|s| s.path.as_deref() == Some(path) && s.state == SourceState::Uploading)
        {
            source.state = match &result {
                Ok(url) => SourceState::Ready { url: url.clone() },
                Err(error) => SourceState::Failed {
                    error: error.clone(),
                },
            };
        }
    }
}
