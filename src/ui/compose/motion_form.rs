//! Create's Elements, First and last frame, and Lip sync forms: their media slots
//! (reference images, clips and sounds; the first and last frames; the face and the voice)
//! and the request each builds ([`MotionForm::job`]). Local files are uploaded first
//! through `Command::UploadSource` (as edit sources are) and sounds and videos have their
//! length read off the UI thread (`TranscriptCommand::Probe`); library items and canvas
//! results come in by their web address. Prompt, model, length, aspect ratio, resolution,
//! Visual DNA and project stay in [`super::ComposeForm`].
//!
//! The state is plain data; the engine's answers come in through `upload_*` and
//! [`MotionForm::probed`]. The layout returns actions.

use super::voice_picker::{VoicePicker, voice_picker_ui};
use crate::api::catalog_jobs::{ElementsRequest, FirstLastFrameRequest, LipsyncRequest};
use crate::api::validate::{CatalogMediaFacts, Field, FieldError};
use crate::api::{CatalogJobRequest, GenerationKind};
use crate::engine::{Command, TranscriptCommand};
use crate::ui::model::Action;
use crate::ui::textures::{TextureCache, small_thumbnail_ui};
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{Rect, RichText, Ui};
use std::path::{Path, PathBuf};

/// The kinds this form lays out.
pub const MOTION_KINDS: [GenerationKind; 3] = [
    GenerationKind::Elements,
    GenerationKind::FirstLastFrame,
    GenerationKind::Lipsync,
];

/// The voice the service speaks a typed line in when none is chosen (contract).
pub const DEFAULT_VOICE_NAME: &str = "Rachel";

/// Elements' limits when the model gives none (Auto): what the service's default takes.
const AUTO_ELEMENTS_MAX: (u32, u32, u32) = (4, 2, 1);

/// What a slot holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MediaKind {
    Image,
    Video,
    Audio,
}

impl MediaKind {
    /// By the file's extension (`None`: not a picture, video or sound).
    pub fn of_path(path: &Path) -> Option<MediaKind> {
        if crate::ui::dialogs::is_image_path(path) {
            Some(MediaKind::Image)
        } else if crate::ui::dialogs::is_video_path(path) {
            Some(MediaKind::Video)
        } else if crate::api::audio::is_audio_url(&path.to_string_lossy()) {
            Some(MediaKind::Audio)
        } else {
            None
        }
    }
    /// By the address's extension (an image when it says nothing).
    pub fn of_url(url: &str) -> MediaKind {
        match crate::api::validate::extension_of(url).as_deref() {
            Some(ext) if crate::ui::dialogs::VIDEO_EXTENSIONS.contains(&ext) => MediaKind::Video,
            _ if crate::api::audio::is_audio_url(url) => MediaKind::Audio,
            _ => MediaKind::Image,
        }
    }
}

/// A local file on its way to the service.
#[derive(Clone, Debug, PartialEq)]
pub struct Upload {
    pub path: PathBuf,
    pub progress: f32,
    pub error: Option<String>,
}

/// One picture, clip or sound of the form.
#[derive(Clone, Debug, PartialEq)]
pub struct MediaSlot {
    /// The web address sent (empty while uploading).
    pub url: String,
    /// What it is called (a file name, a result's title).
    pub label: String,
    pub media: MediaKind,
    pub upload: Option<Upload>,
    /// The local file it came from (its length is read from it).
    pub path: Option<PathBuf>,
    /// Seconds, for sounds and videos, once known.
    pub duration_secs: Option<f64>,
    pub bytes: Option<u64>,
}

impl MediaSlot {
    /// Something already on the service (a result, a library item, a typed address).
    pub fn from_url(url: &str, label: &str, duration_secs: Option<f64>) -> Self {
        MediaSlot {
            url: url.trim().to_owned(),
            label: label.to_owned(),
            media: MediaKind::of_url(url),
            upload: None,
            path: None,
            duration_secs: duration_secs.filter(|d| d.is_finite() && *d > 0.0),
            bytes: None,
        }
    }

    /// A local file: uploaded first, its length read meanwhile (sounds and videos).
    fn from_file(path: PathBuf, media: MediaKind, actions: &mut Vec<Action>) -> Self {
        actions.push(Action::Send(Box::new(Command::UploadSource {
            path: path.clone(),
        })));
        if media != MediaKind::Image {
            actions.push(Action::Send(Box::new(Command::Transcript(
                TranscriptCommand::Probe { path: path.clone() },
            ))));
        }
        MediaSlot {
            url: String::new(),
            label: file_name(&path),
            media,
            upload: Some(Upload {
                path: path.clone(),
                progress: 0.0,
                error: None,
            }),
            bytes: std::fs::metadata(&path).ok().map(|m| m.len()),
            path: Some(path),
            duration_secs: None,
        }
    }

    /// The address to send, when the slot is ready.
    pub fn ready_url(&self) -> Option<&str> {
        (self.upload.is_none() && !self.url.trim().is_empty()).then_some(self.url.trim())
    }
}

/// Where a dropped or typed file goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SlotTarget {
    Images,
    Clips,
    Sounds,
    First,
    Last,
    Face,
    VoiceAudio,
}

impl SlotTarget {
    pub fn accepts(self, media: MediaKind) -> bool {
        match self {
            SlotTarget::Images | SlotTarget::First | SlotTarget::Last => media == MediaKind::Image,
            SlotTarget::Clips => media == MediaKind::Video,
            SlotTarget::Sounds | SlotTarget::VoiceAudio => media == MediaKind::Audio,
            SlotTarget::Face => media != MediaKind::Audio,
        }
    }
    fn field(self) -> Field {
        match self {
            SlotTarget::Images => Field::ReferenceImages,
            SlotTarget::Clips => Field::ReferenceVideos,
            SlotTarget::Sounds => Field::ReferenceAudio,
            SlotTarget::First => Field::FirstFrame,
            SlotTarget::Last => Field::LastFrame,
            SlotTarget::Face => Field::Face,
            SlotTarget::VoiceAudio => Field::VoiceAudio,
        }
    }
    /// A list (several files) rather than one slot.
    pub fn takes_many(self) -> bool {
        matches!(
            self,
            SlotTarget::Images | SlotTarget::Clips | SlotTarget::Sounds
        )
    }
    /// Said beside "Choose file…".
    fn drop_hint(self) -> &'static str {
        match self {
            SlotTarget::Images => "or drop images here",
            SlotTarget::Clips => "or drop videos here",
            SlotTarget::Sounds => "or drop sounds here",
            SlotTarget::First | SlotTarget::Last => "or drop an image here",
            SlotTarget::Face => "or drop an image or a video of a face here",
            SlotTarget::VoiceAudio => "or drop a sound file here",
        }
    }
    /// The file dialog's title.
    pub fn dialog_title(self) -> &'static str {
        match self {
            SlotTarget::Images => "Reference images for the video",
            SlotTarget::Clips => "Reference clips for the video",
            SlotTarget::Sounds => "Reference sounds for the video",
            SlotTarget::First => "The video's first frame",
            SlotTarget::Last => "The video's last frame",
            SlotTarget::Face => "The face to animate",
            SlotTarget::VoiceAudio => "The sound the face speaks",
        }
    }
    /// The slot's name on the form (also its accessible name).
    pub fn name(self) -> &'static str {
        match self {
            SlotTarget::Images => "Reference images",
            SlotTarget::Clips => "Reference clips",
            SlotTarget::Sounds => "Reference sounds",
            SlotTarget::First => "First frame",
            SlotTarget::Last => "Last frame",
            SlotTarget::Face => "Face",
            SlotTarget::VoiceAudio => "Audio file",
        }
    }
}

/// Lip sync's voice: a sound file, or a line typed and spoken by a voice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VoiceMode {
    AudioFile,
    #[default]
    TypeLine,
}

#[derive(Debug, Default)]
pub struct MotionForm {
    // Elements.
    pub images: Vec<MediaSlot>,
    pub clips: Vec<MediaSlot>,
    pub sounds: Vec<MediaSlot>,
    pub sound_enabled: bool,
    // First and last frame.
    pub first: Option<MediaSlot>,
    pub last: Option<MediaSlot>,
    // Lip sync.
    pub face: Option<MediaSlot>,
    pub voice_mode: VoiceMode,
    pub voice_audio: Option<MediaSlot>,
    pub line: String,
    pub voices: VoicePicker,
    /// Addresses (or local paths) typed per slot, before "Add".
    pub typed: std::collections::BTreeMap<SlotTargetKey, String>,
    /// Where each slot was drawn last frame: a file dropped on one goes there.
    pub slot_rects: Vec<(SlotTarget, Rect)>,
}

/// `SlotTarget` as a map key (ordered).
pub type SlotTargetKey = u8;

fn key(target: SlotTarget) -> SlotTargetKey {
    target as u8
}

impl MotionForm {
    /// The slot under `pos` (a drop's position) that takes `media`.
    fn target_at(&self, pos: Option<egui::Pos2>, media: MediaKind) -> Option<SlotTarget> {
        let pos = pos?;
        self.slot_rects
            .iter()
            .find(|(target, rect)| rect.contains(pos) && target.accepts(media))
            .map(|(target, _)| *target)
    }

    /// Where a file of `media` goes on `kind`'s form when not dropped on a slot.
    fn default_target(&self, kind: GenerationKind, media: MediaKind) -> Option<SlotTarget> {
        match (kind, media) {
            (GenerationKind::Elements, MediaKind::Image) => Some(SlotTarget::Images),
            (GenerationKind::Elements, MediaKind::Video) => Some(SlotTarget::Clips),
            (GenerationKind::Elements, MediaKind::Audio) => Some(SlotTarget::Sounds),
            (GenerationKind::FirstLastFrame, MediaKind::Image) => Some(if self.first.is_none() {
                SlotTarget::First
            } else {
                SlotTarget::Last
            }),
            (GenerationKind::Lipsync, MediaKind::Audio) => Some(SlotTarget::VoiceAudio),
            (GenerationKind::Lipsync, _) => Some(SlotTarget::Face),
            _ => None,
        }
    }

    /// Files dropped (at `pos`) or typed: each into the slot under the pointer, else the
    /// next one that takes it. Returns the uploads and probes, and the names skipped.
    pub fn add_files(
        &mut self,
        kind: GenerationKind,
        paths: Vec<PathBuf>,
        pos: Option<egui::Pos2>,
    ) -> (Vec<Action>, Vec<String>) {
        self.add_files_where(kind, paths, |form, media| form.target_at(pos, media))
    }

    /// Files picked for `target` ("Choose file…"): there, or (a sound picked for the face)
    /// the next slot that takes them.
    pub fn add_files_to(
        &mut self,
        kind: GenerationKind,
        target: SlotTarget,
        paths: Vec<PathBuf>,
    ) -> (Vec<Action>, Vec<String>) {
        self.add_files_where(kind, paths, |_, media| {
            Some(target).filter(|t| t.accepts(media))
        })
    }

    /// Each file into the slot `chosen` names, else the next one that takes it.
    fn add_files_where(
        &mut self,
        kind: GenerationKind,
        paths: Vec<PathBuf>,
        chosen: impl Fn(&Self, MediaKind) -> Option<SlotTarget>,
    ) -> (Vec<Action>, Vec<String>) {
        let mut actions = Vec::new();
        let mut skipped = Vec::new();
        for path in paths {
            let Some(media) = MediaKind::of_path(&path) else {
                skipped.push(file_name(&path));
                continue;
            };
            let Some(target) = chosen(self, media).or_else(|| self.default_target(kind, media))
            else {
                skipped.push(file_name(&path));
                continue;
            };
            let slot = MediaSlot::from_file(path, media, &mut actions);
            self.put(target, slot);
        }
        (actions, skipped)
    }

    /// A result or library item by its address into `target` (or the next slot that
    /// takes it on `kind`'s form). `false` when no slot takes it.
    pub fn add_url(
        &mut self,
        kind: GenerationKind,
        target: Option<SlotTarget>,
        url: &str,
        label: &str,
        duration_secs: Option<f64>,
    ) -> bool {
        let slot = MediaSlot::from_url(url, label, duration_secs);
        let Some(target) = target
            .filter(|t| t.accepts(slot.media))
            .or_else(|| self.default_target(kind, slot.media))
        else {
            return false;
        };
        self.put(target, slot);
        true
    }

    fn put(&mut self, target: SlotTarget, slot: MediaSlot) {
        match target {
            SlotTarget::Images => self.images.push(slot),
            SlotTarget::Clips => self.clips.push(slot),
            SlotTarget::Sounds => self.sounds.push(slot),
            SlotTarget::First => self.first = Some(slot),
            SlotTarget::Last => self.last = Some(slot),
            SlotTarget::Face => self.face = Some(slot),
            SlotTarget::VoiceAudio => {
                self.voice_audio = Some(slot);
                self.voice_mode = VoiceMode::AudioFile;
            }
        }
    }

    /// First and last frame trade places.
    pub fn swap_frames(&mut self) {
        std::mem::swap(&mut self.first, &mut self.last);
    }

    fn slots_mut(&mut self) -> impl Iterator<Item = &mut MediaSlot> {
        self.images
            .iter_mut()
            .chain(self.clips.iter_mut())
            .chain(self.sounds.iter_mut())
            .chain(self.first.iter_mut())
            .chain(self.last.iter_mut())
            .chain(self.face.iter_mut())
            .chain(self.voice_audio.iter_mut())
    }

    fn slots(&self) -> impl Iterator<Item = &MediaSlot> {
        self.images
            .iter()
            .chain(self.clips.iter())
            .chain(self.sounds.iter())
            .chain(self.first.iter())
            .chain(self.last.iter())
            .chain(self.face.iter())
            .chain(self.voice_audio.iter())
    }

    pub fn upload_progressed(&mut self, path: &Path, bytes_done: u64, bytes_total: u64) {
        for slot in self.slots_mut() {
            if let Some(upload) = slot.upload.as_mut().filter(|u| u.path == path)
                && bytes_total > 0
            {
                upload.progress = (bytes_done as f32 / bytes_total as f32).clamp(0.0, 1.0);
            }
        }
    }

    /// An upload ended; `true` when it was one of this form's.
    pub fn upload_finished(&mut self, path: &Path, result: &Result<String, String>) -> bool {
        let mut mine = false;
        for slot in self.slots_mut() {
            let Some(upload) = slot.upload.as_mut().filter(|u| u.path == path) else {
                continue;
            };
            mine = true;
            match result {
                Ok(url) => {
                    slot.url = url.clone();
                    slot.upload = None;
                }
                Err(error) => upload.error = Some(error.clone()),
            }
        }
        mine
    }

    /// A local file's length (`TranscriptEvent::Probed`).
    pub fn probed(&mut self, path: &Path, duration_secs: Option<f64>) {
        for slot in self.slots_mut() {
            if slot.path.as_deref() == Some(path) {
                slot.duration_secs = duration_secs.filter(|d| d.is_finite() && *d > 0.0);
            }
        }
    }

    /// What the slots say that the body does not (lengths, sizes, voices).
    pub fn facts(&self) -> CatalogMediaFacts {
        let face = self.face.as_ref();
        let audio = self
            .voice_audio
            .as_ref()
            .filter(|_| self.voice_mode == VoiceMode::AudioFile);
        CatalogMediaFacts {
            audio_secs: audio.and_then(|a| a.duration_secs),
            audio_bytes: audio.and_then(|a| a.bytes),
            audio_format: audio.and_then(|a| {
                a.path
                    .as_deref()
                    .and_then(|p| p.extension())
                    .map(|e| e.to_string_lossy().to_ascii_lowercase())
            }),
            source_is_video: face.map(|f| f.media == MediaKind::Video),
            source_video_secs: face
                .filter(|f| f.media == MediaKind::Video)
                .and_then(|f| f.duration_secs),
            source_bytes: face.and_then(|f| f.bytes),
            voice_ids: self
                .voices
                .known_voices()
                .map(|voices| voices.iter().map(|v| v.voice_id.clone()).collect()),
        }
    }

    /// Seconds a lip sync will last, when known: the audio's, else the typed line's.
    pub fn lipsync_secs(&self) -> Option<f64> {
        match self.voice_mode {
            VoiceMode::AudioFile => self.voice_audio.as_ref().and_then(|a| a.duration_secs),
            VoiceMode::TypeLine => (!self.line.trim().is_empty())
                .then(|| crate::api::pricing::lipsync_line_secs(&self.line)),
        }
    }

    /// Uploads still running or failed, at their slot (only `kind`'s slots).
    pub fn upload_errors(&self, kind: GenerationKind) -> Vec<FieldError> {
        let mut errors = Vec::new();
        let mut check = |target: SlotTarget, slots: Vec<&MediaSlot>| {
            if slots
                .iter()
                .any(|s| s.upload.as_ref().is_some_and(|u| u.error.is_none()))
            {
                errors.push(FieldError {
                    field: target.field(),
                    message: "Wait for the upload to finish.".to_owned(),
                });
            }
            // The first failed file, with the engine's words (a file refused before
            // sending says why: too large a picture, a cut-off clip).
            if let Some((label, error)) = slots.iter().find_map(|s| {
                s.upload
                    .as_ref()
                    .and_then(|u| u.error.as_ref())
                    .map(|e| (&s.label, e))
            }) {
                errors.push(FieldError {
                    field: target.field(),
                    message: upload_refusal(label, error),
                });
            }
        };
        match kind {
            GenerationKind::Elements => {
                check(SlotTarget::Images, self.images.iter().collect());
                check(SlotTarget::Clips, self.clips.iter().collect());
                check(SlotTarget::Sounds, self.sounds.iter().collect());
            }
            GenerationKind::FirstLastFrame => {
                check(SlotTarget::First, self.first.iter().collect());
                check(SlotTarget::Last, self.last.iter().collect());
            }
            GenerationKind::Lipsync => {
                check(SlotTarget::Face, self.face.iter().collect());
                if self.voice_mode == VoiceMode::AudioFile {
                    check(SlotTarget::VoiceAudio, self.voice_audio.iter().collect());
                }
            }
            _ => {}
        }
        errors
    }

    /// The body of `kind`'s request from the slots and the shared fields in `shared`.
    pub fn job(&self, kind: GenerationKind, shared: &SharedFields) -> Option<CatalogJobRequest> {
        let urls = |slots: &[MediaSlot]| -> Vec<String> {
            slots
                .iter()
                .map(|s| s.ready_url().unwrap_or(s.url.as_str()).to_owned())
                .filter(|u| !u.is_empty())
                .collect()
        };
        let url_of = |slot: &Option<MediaSlot>| {
            slot.as_ref()
                .map(|s| s.url.trim().to_owned())
                .unwrap_or_default()
        };
        Some(match kind {
            GenerationKind::Elements => CatalogJobRequest::Elements(ElementsRequest {
                prompt: shared.prompt.clone(),
                model: shared.model.clone(),
                reference_images: urls(&self.images),
                reference_videos: urls(&self.clips),
                reference_audio_urls: urls(&self.sounds),
                duration: shared.duration_secs,
                aspect_ratio: shared.aspect_ratio.clone(),
                resolution: shared.resolution.clone(),
                sound_enabled: Some(self.sound_enabled),
                visual_dna_ids: shared.visual_dna_ids.clone(),
                project_id: shared.project_id.clone(),
            }),
            GenerationKind::FirstLastFrame => {
                CatalogJobRequest::FirstLastFrame(FirstLastFrameRequest {
                    first_frame_url: url_of(&self.first),
                    last_frame_url: url_of(&self.last),
                    prompt: shared.prompt.clone(),
                    model: shared.model.clone(),
                    duration: shared.duration_secs,
                    aspect_ratio: shared.aspect_ratio.clone(),
                    resolution: shared.resolution.clone(),
                    project_id: shared.project_id.clone(),
                })
            }
            GenerationKind::Lipsync => {
                let typed = self.voice_mode == VoiceMode::TypeLine;
                CatalogJobRequest::Lipsync(LipsyncRequest {
                    source_url: url_of(&self.face),
                    audio_url: (!typed)
                        .then(|| url_of(&self.voice_audio))
                        .filter(|u| !u.is_empty()),
                    text_prompt: typed
                        .then(|| self.line.trim().to_owned())
                        .filter(|t| !t.is_empty()),
                    voice: typed
                        .then(|| self.voices.voice_value())
                        .filter(|v| !v.is_empty()),
                    prompt: String::new(),
                    model: shared.model.clone(),
                    project_id: shared.project_id.clone(),
                })
            }
            _ => return None,
        })
    }

    /// Put a request back into the slots ("Use again").
    pub fn fill_from_job(&mut self, job: &CatalogJobRequest) {
        let slots = |urls: &[String], what: &str| -> Vec<MediaSlot> {
            urls.iter()
                .enumerate()
                .map(|(i, u)| MediaSlot::from_url(u, &format!("{what} {}", i + 1), None))
                .collect()
        };
        let one = |url: &str, what: &str| {
            (!url.trim().is_empty()).then(|| MediaSlot::from_url(url, what, None))
        };
        match job {
            CatalogJobRequest::Elements(r) => {
                self.images = slots(&r.reference_images, "Image");
                self.clips = slots(&r.reference_videos, "Clip");
                self.sounds = slots(&r.reference_audio_urls, "Sound");
                self.sound_enabled = r.sound_enabled.unwrap_or(false);
            }
            CatalogJobRequest::FirstLastFrame(r) => {
                self.first = one(&r.first_frame_url, "First frame");
                self.last = one(&r.last_frame_url, "Last frame");
            }
            CatalogJobRequest::Lipsync(r) => {
                self.face = one(&r.source_url, "Face");
                if let Some(audio) = r.audio_url.as_deref() {
                    self.voice_audio = one(audio, "Audio");
                    self.voice_mode = VoiceMode::AudioFile;
                } else {
                    self.voice_mode = VoiceMode::TypeLine;
                    self.line = r.text_prompt.clone().unwrap_or_default();
                    self.voices.chosen =
                        r.voice.as_ref().map(|id| super::voice_picker::ChosenVoice {
                            id: id.clone(),
                            name: id.clone(),
                            summary: String::new(),
                        });
                }
            }
            CatalogJobRequest::ThreeD(_) => {}
        }
    }

    /// The elements caps shown as "2 of 4" (the model's, else Auto's).
    pub fn elements_caps(model: Option<&crate::api::ModelRecord>) -> (u32, u32, u32) {
        match model {
            Some(m) => (
                m.elements_max_images
                    .or(m.max_images)
                    .unwrap_or(AUTO_ELEMENTS_MAX.0),
                m.elements_max_videos
                    .or(m.max_videos)
                    .unwrap_or(AUTO_ELEMENTS_MAX.1),
                m.elements_max_audio
                    .or(m.max_audio)
                    .unwrap_or(AUTO_ELEMENTS_MAX.2),
            ),
            None => AUTO_ELEMENTS_MAX,
        }
    }

    /// Whether any slot of the form is still uploading.
    pub fn is_uploading(&self) -> bool {
        self.slots().any(|s| s.upload.is_some())
    }
}

/// The fields every kind shares, from [`super::ComposeForm`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SharedFields {
    pub prompt: String,
    pub model: Option<String>,
    pub duration_secs: Option<f64>,
    pub aspect_ratio: Option<String>,
    pub resolution: Option<String>,
    pub visual_dna_ids: Vec<String>,
    pub project_id: Option<String>,
}

/// What a field says of a file that did not upload: the engine's words (which name the
/// file when it was refused before sending), and what to do.
pub(super) fn upload_refusal(file_name: &str, error: &str) -> String {
    if error.contains(file_name) {
        format!("{error} Remove it and add another file.")
    } else {
        format!("{file_name}: {error} Remove it and add another file.")
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

// ---- layout ------------------------------------------------------------------------------

/// The narrowest a first / last frame column may be before the two are stacked.
const FRAME_COLUMN_MIN_WIDTH: f32 = 220.0;

/// The media card of `form.kind` (Elements, First and last frame, Lip sync).
pub fn motion_card_ui(
    ui: &mut Ui,
    model: &crate::ui::model::Model,
    form: &mut super::ComposeForm,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    form.motion.slot_rects.clear();
    let kind = form.kind;
    tokens::card_frame().show(ui, |ui| {
        ui.set_width(ui.available_width());
        match kind {
            GenerationKind::Elements => {
                let caps = MotionForm::elements_caps(form.motion_limits_model(model));
                list_ui(ui, form, SlotTarget::Images, caps.0, textures, actions);
                ui.add_space(tokens::SPACE_S);
                list_ui(ui, form, SlotTarget::Clips, caps.1, textures, actions);
                ui.add_space(tokens::SPACE_S);
                list_ui(ui, form, SlotTarget::Sounds, caps.2, textures, actions);
                ui.add_space(tokens::SPACE_S);
                ui.checkbox(&mut form.motion.sound_enabled, "Sound on")
                    .on_hover_text("Make a sound track with the video (may cost more).");
            }
            GenerationKind::FirstLastFrame => {
                // Side by side only where each half keeps a usable address field.
                if ui.available_width() >= 2.0 * FRAME_COLUMN_MIN_WIDTH {
                    ui.columns(2, |columns| {
                        single_ui(&mut columns[0], form, SlotTarget::First, textures, actions);
                        single_ui(&mut columns[1], form, SlotTarget::Last, textures, actions);
                    });
                } else {
                    single_ui(ui, form, SlotTarget::First, textures, actions);
                    ui.add_space(tokens::SPACE_S);
                    single_ui(ui, form, SlotTarget::Last, textures, actions);
                }
                let swap = ui
                    .add(widgets::subtle_button("Swap first and last"))
                    .on_hover_text("The video runs the other way.");
                widgets::name_widget(&swap, "Swap first and last");
                if swap.clicked() {
                    form.motion.swap_frames();
                }
            }
            GenerationKind::Lipsync => lipsync_ui(ui, form, textures, actions),
            _ => {}
        }
    });
    if let Some(line) = price_line(model, form) {
        let response = widgets::muted(ui, &line);
        widgets::name_widget(&response, &line);
    }
}

/// "2 credits × 6 s = 12 credits" under the card (the button shows the total).
fn price_line(model: &crate::ui::model::Model, form: &super::ComposeForm) -> Option<String> {
    let record = form.selected_model(model)?;
    let spec = form.build_spec(model);
    let inputs = crate::api::pricing::inputs_for_model(record, &spec);
    let line = crate::api::pricing::price_breakdown(record, &inputs)?;
    Some(if form.kind == GenerationKind::Lipsync {
        match form.motion.voice_mode {
            VoiceMode::AudioFile if form.motion.lipsync_secs().is_none() => {
                format!("Priced by the sound's length; until it is known: {line}")
            }
            VoiceMode::TypeLine => {
                format!("Priced by the line's length (about 15 characters a second): {line}")
            }
            VoiceMode::AudioFile => format!("Priced by the sound's length: {line}"),
        }
    } else {
        line
    })
}

fn slot_list(form: &super::ComposeForm, target: SlotTarget) -> Vec<&MediaSlot> {
    let m = &form.motion;
    match target {
        SlotTarget::Images => m.images.iter().collect(),
        SlotTarget::Clips => m.clips.iter().collect(),
        SlotTarget::Sounds => m.sounds.iter().collect(),
        SlotTarget::First => m.first.iter().collect(),
        SlotTarget::Last => m.last.iter().collect(),
        SlotTarget::Face => m.face.iter().collect(),
        SlotTarget::VoiceAudio => m.voice_audio.iter().collect(),
    }
}

fn remove(form: &mut super::ComposeForm, target: SlotTarget, index: usize) {
    let m = &mut form.motion;
    match target {
        SlotTarget::Images if index < m.images.len() => {
            m.images.remove(index);
        }
        SlotTarget::Clips if index < m.clips.len() => {
            m.clips.remove(index);
        }
        SlotTarget::Sounds if index < m.sounds.len() => {
            m.sounds.remove(index);
        }
        SlotTarget::First => m.first = None,
        SlotTarget::Last => m.last = None,
        SlotTarget::Face => m.face = None,
        SlotTarget::VoiceAudio => m.voice_audio = None,
        _ => {}
    }
}

/// A list of references with its count ("2 of 4").
fn list_ui(
    ui: &mut Ui,
    form: &mut super::ComposeForm,
    target: SlotTarget,
    max: u32,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    let top = ui.cursor().min;
    let count = slot_list(form, target).len();
    ui.horizontal(|ui| {
        widgets::section_label(ui, target.name());
        let color = if count > max as usize {
            tokens::palette().danger
        } else {
            tokens::palette().text_faint
        };
        let counter = ui.label(
            RichText::new(format!("{count} of {max}"))
                .size(tokens::TEXT_SMALL)
                .color(color),
        );
        widgets::name_widget(&counter, &format!("{}: {count} of {max}", target.name()));
    });
    let mut removed = None;
    for (index, slot) in slot_list(form, target).into_iter().enumerate() {
        if slot_row_ui(ui, slot, target, index, textures) {
            removed = Some(index);
        }
    }
    if let Some(index) = removed {
        remove(form, target, index);
    }
    address_row_ui(ui, form, target, actions);
    let first = errors_ui(ui, form, target);
    let rect = Rect::from_min_max(
        top,
        ui.cursor().min.max(top) + egui::vec2(ui.available_width(), 0.0),
    );
    form.motion.slot_rects.push((target, rect));
    if let Some(first) = first {
        super::attention::mark_create(form, target.field(), &first, false);
    }
}

/// One slot (first frame, last frame, face, audio file) with its name.
fn single_ui(
    ui: &mut Ui,
    form: &mut super::ComposeForm,
    target: SlotTarget,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    let top = ui.cursor().min;
    let heading = widgets::section_label(ui, target.name());
    let slot = slot_list(form, target).first().map(|s| (*s).clone());
    // Empty, the choose-or-drop row below says what goes here.
    if let Some(slot) = slot
        && slot_row_ui(ui, &slot, target, 0, textures)
    {
        remove(form, target, 0);
    }
    address_row_ui(ui, form, target, actions);
    let first = errors_ui(ui, form, target);
    let rect = Rect::from_min_max(
        top,
        egui::pos2(
            top.x + ui.available_width().max(80.0),
            ui.cursor().min.y.max(top.y),
        ),
    );
    form.motion.slot_rects.push((target, rect));
    super::attention::mark_create(form, target.field(), &first.unwrap_or(heading), false);
}

/// A slot's thumbnail (or file name), state and Remove; `true` when Remove was clicked.
fn slot_row_ui(
    ui: &mut Ui,
    slot: &MediaSlot,
    target: SlotTarget,
    index: usize,
    textures: &TextureCache,
) -> bool {
    ui.horizontal(|ui| {
        if slot.media == MediaKind::Image
            && let Some(url) = slot.ready_url()
        {
            small_thumbnail_ui(ui, textures, url, 40.0, &slot.label);
        }
        let mut text = slot.label.clone();
        if let Some(secs) = slot.duration_secs {
            text.push_str(&format!(
                " · {}",
                crate::ui::format::seconds_label((secs * 10.0).round() / 10.0)
            ));
        }
        let label = ui.label(RichText::new(&text).color(tokens::palette().text));
        widgets::name_widget(&label, &format!("{} {}: {text}", target.name(), index + 1));
        match &slot.upload {
            Some(Upload {
                error: Some(error), ..
            }) => {
                ui.label(RichText::new("upload failed").color(tokens::palette().danger))
                    .on_hover_text(error);
            }
            Some(upload) => {
                ui.add(egui::ProgressBar::new(upload.progress).desired_width(60.0));
            }
            None => {}
        }
        let remove = ui.add(widgets::subtle_button("Remove"));
        widgets::name_widget(&remove, &format!("Remove {} {}", target.name(), index + 1));
        remove.clicked()
    })
    .inner
}

/// "Address or file" and Add: a web address (a result's, a library item's) or a local path.
fn address_row_ui(
    ui: &mut Ui,
    form: &mut super::ComposeForm,
    target: SlotTarget,
    actions: &mut Vec<Action>,
) {
    let kind = form.kind;
    let typed = form.motion.typed.entry(key(target)).or_default();
    let mut add = false;
    ui.horizontal_wrapped(|ui| {
        let choose_label = if target.takes_many() {
            "Choose files…"
        } else {
            "Choose file…"
        };
        let choose = ui.add(widgets::secondary_button(choose_label));
        widgets::name_widget(&choose, &format!("Choose a file for {}", target.name()));
        if choose.clicked() {
            actions.push(Action::PickMotionFiles(target));
        }
        widgets::muted(ui, target.drop_hint());
    });
    ui.horizontal(|ui| {
        let field = ui.add(
            egui::TextEdit::singleline(typed)
                .hint_text("https://… or a file path")
                .desired_width((ui.available_width() - 60.0).max(60.0)),
        );
        widgets::name_widget(&field, &format!("{} address", target.name()));
        add |= field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        let button = ui.add(widgets::subtle_button("Add"));
        widgets::name_widget(&button, &format!("Add to {}", target.name()));
        add |= button.clicked();
    });
    if !add {
        return;
    }
    let text = std::mem::take(typed).trim().to_owned();
    if text.is_empty() {
        return;
    }
    let lower = text.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        let label = text.rsplit('/').next().unwrap_or(&text).to_owned();
        form.motion.add_url(kind, Some(target), &text, &label, None);
        return;
    }
    let path = PathBuf::from(text.strip_prefix("file://").unwrap_or(&text));
    if !path.is_file() {
        actions.push(Action::Toast(
            crate::ui::toasts::ToastKind::Error,
            format!(
                "No file at {}; type a web address or the path of a file.",
                path.display()
            ),
        ));
        return;
    }
    let Some(media) = MediaKind::of_path(&path).filter(|m| target.accepts(*m)) else {
        actions.push(Action::Toast(
            crate::ui::toasts::ToastKind::Error,
            format!("{} does not take {}.", target.name(), file_name(&path)),
        ));
        return;
    };
    let slot = MediaSlot::from_file(path, media, actions);
    form.motion.put(target, slot);
}

/// The slot's messages; the first one's response (for attention).
fn errors_ui(ui: &mut Ui, form: &super::ComposeForm, target: SlotTarget) -> Option<egui::Response> {
    field_errors_ui(ui, form, target.field())
}

/// `field`'s messages, each named by its words; the first one's response.
fn field_errors_ui(ui: &mut Ui, form: &super::ComposeForm, field: Field) -> Option<egui::Response> {
    let mut first = None;
    for message in form.messages_for(&field) {
        let response = ui.label(
            RichText::new(message)
                .color(tokens::palette().danger)
                .size(tokens::TEXT_SMALL),
        );
        widgets::name_widget(&response, message);
        first.get_or_insert(response);
    }
    first
}

fn lipsync_ui(
    ui: &mut Ui,
    form: &mut super::ComposeForm,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    single_ui(ui, form, SlotTarget::Face, textures, actions);
    ui.add_space(tokens::SPACE_S);
    // "Voice from", not "Voice": the voice picker under it has that heading.
    widgets::section_label(ui, "Voice from");
    ui.horizontal(|ui| {
        for (mode, label) in [
            (VoiceMode::AudioFile, "Audio file"),
            (VoiceMode::TypeLine, "Type a line"),
        ] {
            let button = ui.selectable_label(form.motion.voice_mode == mode, label);
            widgets::name_widget(&button, label);
            if button.clicked() {
                form.motion.voice_mode = mode;
            }
        }
    });
    field_errors_ui(ui, form, Field::LipsyncSource);
    match form.motion.voice_mode {
        VoiceMode::AudioFile => single_ui(ui, form, SlotTarget::VoiceAudio, textures, actions),
        VoiceMode::TypeLine => {
            widgets::section_label(ui, "Line to say");
            let line = ui.add(
                egui::TextEdit::multiline(&mut form.motion.line)
                    .hint_text("The words the face says…")
                    .desired_rows(3)
                    .desired_width(f32::INFINITY),
            );
            widgets::name_widget(&line, "Line to say");
            super::attention::mark_create(form, Field::SpokenLine, &line, true);
            if let Some(secs) = form.motion.lipsync_secs() {
                widgets::muted(
                    ui,
                    format!("About {} of speech", crate::ui::format::seconds_label(secs)),
                );
            }
            field_errors_ui(ui, form, Field::SpokenLine);
            ui.add_space(tokens::SPACE_XS);
            let messages: Vec<String> = form
                .messages_for(&Field::Voice)
                .into_iter()
                .map(str::to_owned)
                .collect();
            let refs: Vec<&str> = messages.iter().map(String::as_str).collect();
            let picker = voice_picker_ui(ui, &mut form.motion.voices, &refs, actions);
            super::attention::mark_create(form, Field::Voice, &picker, false);
            if form.motion.voices.chosen.is_none() {
                let text =
                    format!("No voice chosen: the default voice ({DEFAULT_VOICE_NAME}) speaks.");
                let response = widgets::muted(ui, &text);
                widgets::name_widget(&response, &text);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared() -> SharedFields {
        SharedFields {
            prompt: "a fox".into(),
            duration_secs: Some(5.0),
            ..SharedFields::default()
        }
    }

    #[test]
    fn first_last_drops_fill_first_then_last_and_swap() {
        let mut form = MotionForm::default();
        let (actions, skipped) = form.add_files(
            GenerationKind::FirstLastFrame,
            vec![
                "/tmp/a.png".into(),
                "/tmp/b.png".into(),
                "/tmp/c.txt".into(),
            ],
            None,
        );
        assert_eq!(actions.len(), 2, "two uploads");
        assert_eq!(skipped, vec!["c.txt".to_owned()]);
        assert!(form.upload_finished(Path::new("/tmp/a.png"), &Ok("https://h/a.png".into())));
        assert!(form.upload_finished(Path::new("/tmp/b.png"), &Ok("https://h/b.png".into())));
        form.swap_frames();
        let Some(CatalogJobRequest::FirstLastFrame(r)) =
            form.job(GenerationKind::FirstLastFrame, &shared())
        else {
            panic!("a first-last request");
        };
        assert_eq!(
            (r.first_frame_url.as_str(), r.last_frame_url.as_str()),
            ("https://h/b.png", "https://h/a.png")
        );
    }

    #[test]
    fn lipsync_audio_is_probed_and_priced_by_its_length() {
        let mut form = MotionForm::default();
        let (actions, _) = form.add_files(
            GenerationKind::Lipsync,
            vec!["/tmp/face.png".into(), "/tmp/line.mp3".into()],
            None,
        );
        assert_eq!(actions.len(), 3, "two uploads and the sound's probe");
        assert_eq!(form.voice_mode, VoiceMode::AudioFile);
        form.probed(Path::new("/tmp/line.mp3"), Some(6.2));
        assert_eq!(form.lipsync_secs(), Some(6.2));
        assert_eq!(form.facts().audio_format.as_deref(), Some("mp3"));
        assert_eq!(form.upload_errors(GenerationKind::Lipsync).len(), 2);
    }

    #[test]
    fn elements_sorts_files_by_kind_and_fills_back_from_a_job() {
        let mut form = MotionForm::default();
        form.add_url(GenerationKind::Elements, None, "https://h/a.png", "a", None);
        form.add_url(GenerationKind::Elements, None, "https://h/b.mp4", "b", None);
        form.add_url(GenerationKind::Elements, None, "https://h/c.wav", "c", None);
        let job = form.job(GenerationKind::Elements, &shared()).expect("job");
        let mut again = MotionForm::default();
        again.fill_from_job(&job);
        assert_eq!(again.job(GenerationKind::Elements, &shared()), Some(job));
    }

    #[test]
    fn files_chosen_for_a_slot_go_there_or_where_they_fit() {
        let mut form = MotionForm::default();
        let (_, skipped) = form.add_files_to(
            GenerationKind::FirstLastFrame,
            SlotTarget::Last,
            vec!["/tmp/end.png".into()],
        );
        assert!(skipped.is_empty());
        assert!(form.first.is_none(), "not the first free slot");
        assert_eq!(
            form.last.as_ref().map(|s| s.label.as_str()),
            Some("end.png")
        );

        // A sound chosen for the face is the voice; a text file goes nowhere.
        let (_, skipped) = form.add_files_to(
            GenerationKind::Lipsync,
            SlotTarget::Face,
            vec!["/tmp/line.mp3".into(), "/tmp/notes.txt".into()],
        );
        assert!(form.face.is_none());
        assert!(form.voice_audio.is_some());
        assert_eq!(skipped, vec!["notes.txt".to_owned()]);
        assert!(SlotTarget::Images.takes_many() && !SlotTarget::Face.takes_many());
    }
}
