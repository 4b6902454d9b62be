//! The Create panel's state: the form, the results it shows and what it knows about them
//! in the library. Handles its own engine events and returns [`Action`]s; no I/O here.

use super::form::{ComposeForm, SourceImage, SourceState};
use super::memory::{CreateMemory, SAVE_INTERVAL_SECS};
use super::motion_form::SlotTarget;
use super::video_edit::stage::EditStage;
use super::video_edit::{EditChoice, VideoEditForm};
use crate::api::media::BulkAction;
use crate::api::{ApiError, GenerationKind, GenerationRequest};
use crate::engine::protocol::MediaMutation;
use crate::engine::{Command, Event, JobRecord};
use crate::ui::library::LibraryAction;
use crate::ui::model::{Action, Model, View};
use crate::ui::toasts::ToastKind;
use crate::ui::video::player::VideoPlayerState;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

pub use crate::ui::dialogs::IMAGE_EXTENSIONS;

/// A library change asked for on a job result before its library item was known.
#[derive(Clone, Copy, Debug, PartialEq)]
enum PendingResultOp {
    Favourite(bool),
    Trash,
}

pub struct CreateState {
    pub form: ComposeForm,
    /// The "Video edit" type's own form (what is edited, how) and its source player.
    pub video_edit: VideoEditForm,
    /// The Transcription form (its own state: source, language, subtitle shape).
    pub transcription: super::transcription_form::TranscriptionForm,
    /// The 3D model form (its own state: mode, prompt, views, detail, model).
    pub three_d: super::three_d_form::ThreeDForm,
    pub edit_stage: EditStage,
    /// The video playing in place on the canvas, and which job output it is.
    pub canvas_player: VideoPlayerState,
    pub playing_on_canvas: Option<(crate::engine::LocalJobId, usize)>,
    /// Give the prompt keyboard focus on the next frame (start, switching to Create).
    pub focus_prompt: bool,
    /// The prompt presets picker's cache (per type) and its Undo.
    pub prompt_presets: super::prompt_presets::PromptPresetsState,
    /// Height of the form column's content last frame, so Generate can sit right under a
    /// short form instead of at the bottom of a tall window.
    pub form_content_height_pt: f32,
    /// The form column's width as dragged with the splitter (`None`: the window's default).
    pub form_width_pt: Option<f32>,
    /// Job output url -> the library item holding it, once looked up.
    located: HashMap<String, String>,
    /// Changes waiting for the library lookup of their output url.
    awaiting_location: HashMap<String, Vec<PendingResultOp>>,
    /// Output urls whose library item is a favourite.
    favourites: HashSet<String>,
    /// Output urls moved to the Trash (hidden from the canvas until restored).
    trashed: HashSet<String>,
    /// The form as last written to the settings file, and when it was written (UI time).
    saved_memory: CreateMemory,
    saved_at_secs: f64,
}

impl CreateState {
    /// Create as remembered from the last run. Settings' defaults (`kind_defaults`) start
    /// the form only when nothing was remembered (a first run): remembered choices restore
    /// the work in progress; a later type switch uses the defaults (see `set_kind`).
    pub fn new(
        memory: CreateMemory,
        kind_defaults: std::collections::BTreeMap<String, crate::settings::GenerationDefaults>,
    ) -> Self {
        let mut form = ComposeForm {
            kind_defaults,
            ..ComposeForm::default()
        };
        let form_width_pt = memory.form_width_pt;
        if memory.is_first_run() {
            form.apply_kind_defaults();
            if form.resolution.is_empty() {
                form.resolution = ComposeForm::default().resolution;
            }
        } else {
            memory.restore_into(&mut form);
        }
        Self {
            saved_memory: CreateMemory::of(&form).with_form_width(form_width_pt),
            form,
            video_edit: VideoEditForm::default(),
            transcription: Default::default(),
            three_d: Default::default(),
            edit_stage: EditStage::default(),
            canvas_player: VideoPlayerState::default(),
            playing_on_canvas: None,
            focus_prompt: true,
            prompt_presets: Default::default(),
            form_content_height_pt: f32::INFINITY,
            form_width_pt,
            located: HashMap::new(),
            awaiting_location: HashMap::new(),
            favourites: HashSet::new(),
            trashed: HashSet::new(),
            saved_at_secs: f64::NEG_INFINITY,
        }
    }

    /// Job kinds whose results the canvas shows.
    pub fn makes(kind: GenerationKind) -> bool {
        GenerationKind::ALL.contains(&kind)
            || GenerationKind::VIDEO_SOURCED.contains(&kind)
            || kind == GenerationKind::ImageTool
            || kind.outputs_audio()
            || kind == GenerationKind::Transcription
            // Elements, first and last frame, lip sync (videos) and 3D.
            || GenerationKind::CATALOG.contains(&kind)
    }

    pub fn is_favourite(&self, url: &str) -> bool {
        self.favourites.contains(url)
    }

    pub fn is_trashed(&self, url: &str) -> bool {
        self.trashed.contains(url)
    }

    /// The active service changed: forget what belonged to the old one.
    pub fn on_connection_changed(&mut self) {
        let form = &mut self.form;
        form.model_id = None;
        form.project_id = None;
        form.sources.clear();
        form.tracked_job = None;
        form.awaiting_job = false;
        form.server_errors.clear();
        form.cinematic.clear();
        form.skip_palette = false;
        self.canvas_player.close();
        self.playing_on_canvas = None;
        self.video_edit = VideoEditForm::default();
        self.edit_stage.close();
        self.located.clear();
        self.awaiting_location.clear();
        self.favourites.clear();
        self.trashed.clear();
    }

    /// Create was shown (rail, shortcut, another panel's link).
    pub fn on_shown(&mut self) {
        self.focus_prompt = true;
    }

    /// The form to write to the settings file, when it changed and the last write is at
    /// least [`SAVE_INTERVAL_SECS`] old.
    pub fn memory_to_save(&mut self, now_secs: f64) -> Option<CreateMemory> {
        if now_secs - self.saved_at_secs < SAVE_INTERVAL_SECS {
            return None;
        }
        let memory = CreateMemory::of(&self.form).with_form_width(self.form_width_pt);
        if memory == self.saved_memory {
            return None;
        }
        self.saved_memory = memory.clone();
        self.saved_at_secs = now_secs;
        Some(memory)
    }

    // ---- form actions ------------------------------------------------------------------

    /// Apply one of Create's own actions; anything else is returned untouched.
    pub fn apply(&mut self, action: Action) -> Vec<Action> {
        let form = &mut self.form;
        match action {
            Action::AddSourceUrl(url) => match form.add_url_source(&url) {
                Ok(()) => {
                    form.url_input.clear();
                    form.url_error = None;
                }
                Err(error) => form.url_error = Some(error),
            },
            Action::PlayOnCanvas(target) => {
                if target != self.playing_on_canvas {
                    self.canvas_player.close();
                }
                self.playing_on_canvas = target;
            }
            Action::RemoveSource(index) => {
                if index < form.sources.len() {
                    form.sources.remove(index);
                }
            }
            Action::SelectPreset {
                dimension,
                preset_id,
            } => match preset_id {
                Some(id) => {
                    form.cinematic.insert(dimension, id);
                }
                None => {
                    form.cinematic.remove(&dimension);
                }
            },
            Action::SelectProject(id) => {
                form.skip_palette = false;
                form.project_id = Some(id.clone());
                return vec![Action::RememberProject(id)];
            }
            Action::CreateProject(name) => {
                form.project_creating = true;
                form.project_error = None;
                return vec![send(Command::CreateProject { name })];
            }
            Action::ReusePrompt(prompt) => {
                form.prompt = prompt;
                form.kind = GenerationKind::Image;
                self.focus_prompt = true;
                return vec![
                    Action::Navigate(View::Create),
                    Action::Toast(ToastKind::Info, "Prompt copied into Create".to_owned()),
                ];
            }
            other => return vec![other],
        }
        Vec::new()
    }

    /// Validate and submit the form: the submit command, or nothing (errors shown inline).
    pub fn submit(&mut self, model: &Model) -> Vec<Action> {
        if self.form.kind == GenerationKind::VideoEdit {
            return self.submit_video_edit(model);
        }
        if self.form.kind == GenerationKind::ThreeD {
            let project_id = self.form.project_id.clone();
            let actions = self.three_d.submit(model, project_id.as_deref());
            if !actions.is_empty() {
                self.form.awaiting_job = true;
            }
            return actions;
        }
        if self.form.kind == GenerationKind::Transcription {
            let project_id = self.form.project_id.clone();
            let actions = self.transcription.submit(model, project_id.as_deref());
            if !actions.is_empty() {
                self.form.awaiting_job = true;
            }
            return actions;
        }
        let form = &mut self.form;
        form.server_errors.clear();
        let errors = form.validation_errors(model);
        if !errors.is_empty() {
            form.errors = errors;
            form.show_validation = true;
            form.attention.submit_refused();
            return Vec::new();
        }
        form.errors.clear();
        form.show_validation = false;
        form.awaiting_job = true;
        vec![send(Command::Submit {
            spec: form.build_spec(model),
            model_label: form.model_label(model),
            credits_estimate: form.estimate(model).for_job(),
        })]
    }

    /// Validate and submit the video edit form (a trim, an edit or a restyle).
    fn submit_video_edit(&mut self, model: &Model) -> Vec<Action> {
        let project_id = self.form.project_id.clone();
        let edit = &mut self.video_edit;
        edit.server_errors.clear();
        let errors = edit.validation_errors(model, project_id.as_deref());
        if !errors.is_empty() {
            edit.errors = errors;
            edit.show_validation = true;
            edit.attention.submit_refused();
            return Vec::new();
        }
        edit.errors.clear();
        edit.show_validation = false;
        self.form.awaiting_job = true;
        let spec = edit.build_spec(project_id.as_deref());
        let model_label = match edit.choice {
            // The tray titles a job "kind · label": a trim is named by its source and span.
            EditChoice::Trim => edit.trim_label(),
            _ => edit
                .effective_model(model)
                .map(|m| m.display_name().to_owned())
                .unwrap_or_else(|| "Service default".to_owned()),
        };
        vec![send(Command::Submit {
            spec,
            model_label,
            credits_estimate: edit.estimate(model, project_id.as_deref()).for_job(),
        })]
    }

    /// Reuse an edit, restyle or trim: its source and settings back in the edit form.
    pub fn reuse_video_edit(&mut self, spec: &crate::api::GenerationSpec) {
        if let Some(job) = spec.video.as_ref() {
            self.form.set_kind(GenerationKind::VideoEdit);
            self.video_edit.fill_from_job(job);
            if let Some(project) = job.project_id() {
                self.form.project_id = Some(project.to_owned());
            }
        }
    }

    /// Edit (or trim, with `choice`) a video that is already on the service.
    pub fn edit_video(
        &mut self,
        url: &str,
        label: &str,
        duration_secs: Option<f64>,
        poster_url: Option<&str>,
        choice: EditChoice,
    ) {
        self.form.set_kind(GenerationKind::VideoEdit);
        self.video_edit
            .set_source_url(url, label, duration_secs, poster_url);
        self.video_edit.set_choice(choice);
        self.canvas_player.pause();
    }

    /// Images dropped or picked for an edit: switch to Image edit and upload them. A video
    /// becomes the source of a video edit (uploaded first).
    pub fn add_source_files(&mut self, paths: Vec<PathBuf>) -> Vec<Action> {
        self.add_source_files_at(paths, None)
    }

    /// Files picked for one slot of the motion forms ("Choose file…"). The form may have
    /// changed type while the dialog was open: then they go where a drop would put them.
    pub fn add_motion_files(&mut self, target: SlotTarget, paths: Vec<PathBuf>) -> Vec<Action> {
        if !self.form.is_motion() {
            return self.add_source_files(paths);
        }
        let kind = self.form.kind;
        let (actions, skipped) = self.form.motion.add_files_to(kind, target, paths);
        with_skipped_note(kind, actions, &skipped)
    }

    /// [`Self::add_source_files`] dropped at `pos`: on the motion forms (elements, first
    /// and last frame, lip sync) into the slot under the pointer, else the next that fits.
    pub fn add_source_files_at(
        &mut self,
        paths: Vec<PathBuf>,
        pos: Option<egui::Pos2>,
    ) -> Vec<Action> {
        if self.form.kind == GenerationKind::ThreeD {
            let (mut actions, skipped) = self.three_d.add_files(paths);
            if !skipped.is_empty() {
                actions.push(Action::Toast(
                    ToastKind::Info,
                    format!("A 3D model takes images, not {}", skipped.join(", ")),
                ));
            }
            return actions;
        }
        if self.form.is_motion() {
            let kind = self.form.kind;
            let (actions, skipped) = self.form.motion.add_files(kind, paths, pos);
            return with_skipped_note(kind, actions, &skipped);
        }
        let mut actions = Vec::new();
        let mut skipped = Vec::new();
        for path in paths {
            if crate::ui::dialogs::is_video_path(&path) {
                self.form.set_kind(GenerationKind::VideoEdit);
                self.video_edit.set_source_upload(path.clone());
                actions.push(send(Command::UploadSource { path }));
                continue;
            }
            let is_image = crate::ui::dialogs::is_image_path(&path);
            if !is_image {
                skipped.push(file_name(&path));
                continue;
            }
            // Image → video and Creative Director take images too; otherwise a dropped
            // image starts an edit.
            if !self.form.takes_sources() {
                self.form.kind = GenerationKind::ImageEdit;
            }
            if self.form.kind == GenerationKind::ImageToVideo {
                self.form.sources.clear();
            }
            self.form.add_upload(path.clone());
            actions.push(send(Command::UploadSource { path }));
        }
        if !skipped.is_empty() {
            actions.push(Action::Toast(
                ToastKind::Info,
                format!(
                    "Only images and videos can be edited; skipped {}",
                    skipped.join(", ")
                ),
            ));
        }
        actions
    }

    /// Put a finished job's prompt and settings back into the form.
    pub fn reuse(&mut self, kind: GenerationKind, request: &GenerationRequest) {
        self.form.fill_from_request(kind, request);
        self.focus_prompt = true;
    }

    /// Put a finished music, speech or sound job's prompt and settings back into the form.
    pub fn reuse_audio(&mut self, spec: &crate::api::GenerationSpec) {
        self.form.fill_from_request(spec.kind, &spec.request);
        if let Some(job) = spec.audio.as_ref() {
            self.form.audio.fill_from_job(job);
        }
        self.focus_prompt = true;
    }

    /// "Use again" on an elements, first-last-frame or lip-sync job: its media, prompt and
    /// settings back in the form, from the body it sent (`spec.catalog`).
    pub fn reuse_catalog(&mut self, spec: &crate::api::GenerationSpec) {
        let Some(job) = spec.catalog.as_ref() else {
            return;
        };
        self.form.set_kind(spec.kind);
        self.form.fill_from_request(spec.kind, &spec.request);
        self.form.motion.fill_from_job(job);
        if let Some(project) = job.project_id() {
            self.form.project_id = Some(project.to_owned());
        }
        self.focus_prompt = spec.kind != GenerationKind::Lipsync;
    }

    /// Switch to Image → video with `url` as the image to animate (replacing any other).
    pub fn animate(&mut self, url: &str, label: &str) {
        let form = &mut self.form;
        form.set_kind(GenerationKind::ImageToVideo);
        form.sources.clear();
        form.sources.push(SourceImage::ready(url, label));
        self.focus_prompt = true;
    }

    /// Add Visual DNA `id` to the form's picks (the Visual DNA panel's "Use in Create").
    /// A kind that takes none switches to Image edit first. Returns false (and the form
    /// says why) when the picks are already at this kind's most.
    pub fn pick_visual_dna(&mut self, id: &str) -> bool {
        let form = &mut self.form;
        if !crate::api::validate::kind_takes_visual_dna(form.kind) {
            form.set_kind(GenerationKind::ImageEdit);
        }
        // The model's own cap is applied by `normalize` (trimming with a note).
        if form.dna.picked.iter().any(|p| p == id) {
            return true;
        }
        let added = form.dna.pick(id, crate::api::MAX_VISUAL_DNA_IDS);
        if !added {
            form.dna.note = Some(format!(
                "Already {} Visual DNA picked: remove one to add another.",
                form.dna.picked.len()
            ));
        }
        added
    }

    /// Every Visual DNA, as listed (`VisualDnaEvent::Listed`): the picker's choices.
    pub fn visual_dnas_listed(
        &mut self,
        result: Result<Vec<crate::api::visual_dna::VisualDna>, ApiError>,
    ) {
        self.form.visual_dnas.listed(result);
    }

    /// Every moodboard, as listed (`MoodboardEvent::Listed`).
    pub fn moodboards_listed(
        &mut self,
        result: Result<Vec<crate::api::moodboards::Moodboard>, ApiError>,
    ) {
        self.form.moodboards.listed(result);
    }

    /// Switch to Image edit with `url` as the one ready source.
    pub fn use_as_edit_source(&mut self, url: &str, label: &str) {
        let form = &mut self.form;
        form.kind = GenerationKind::ImageEdit;
        form.sources
            .retain(|s| !matches!(&s.state, SourceState::Ready { url: u } if u == url));
        form.sources.push(SourceImage::ready(url, label));
        self.focus_prompt = true;
    }

    // ---- results in the library ---------------------------------------------------------

    /// Favourite or trash the library item of job output `url`: at once when it is known,
    /// else after the engine has looked it up.
    pub fn change_job_result(
        &mut self,
        url: &str,
        generation_id: Option<String>,
        project_id: Option<String>,
        favourite: Option<bool>,
    ) -> Vec<Action> {
        let op = match favourite {
            Some(favourite) => PendingResultOp::Favourite(favourite),
            None => PendingResultOp::Trash,
        };
        if let Some(media_id) = self.located.get(url) {
            return vec![library_change(media_id.clone(), op)];
        }
        let waiting = self.awaiting_location.entry(url.to_owned()).or_default();
        waiting.push(op);
        if waiting.len() > 1 {
            // A lookup is already under way; this change follows it.
            return Vec::new();
        }
        vec![send(Command::LocateResult {
            url: url.to_owned(),
            generation_id,
            project_id,
        })]
    }

    // ---- engine events -------------------------------------------------------------------

    /// Create's engine events (`SourceUploaded`, `ProjectCreated`, `ResultLocated`,
    /// `Voices`).
    pub fn handle_event(&mut self, event: Event) -> Vec<Action> {
        match event {
            Event::SourceUploadProgress {
                path,
                bytes_done,
                bytes_total,
            } => {
                self.form.upload_progressed(&path, bytes_done, bytes_total);
                self.video_edit
                    .upload_progressed(&path, bytes_done, bytes_total);
                self.transcription
                    .upload_progressed(&path, bytes_done, bytes_total);
                self.form
                    .motion
                    .upload_progressed(&path, bytes_done, bytes_total);
                Vec::new()
            }
            Event::SourceUploaded { path, result } => {
                let mut actions = Vec::new();
                if let Err(error) = &result {
                    actions.push(Action::Toast(
                        ToastKind::Error,
                        format!("Upload of {} failed: {error}", file_name(&path)),
                    ));
                }
                let result = result.map_err(|e| e.to_string());
                if !self.video_edit.upload_finished(&path, &result)
                    && !self.transcription.upload_finished(&path, &result)
                    && !self.form.motion.upload_finished(&path, &result)
                    && !self.three_d.upload_finished(&path, &result)
                {
                    self.form.upload_finished(&path, result);
                }
                actions
            }
            Event::ProjectCreated(result) => self.project_created(result),
            Event::Voices(result) => {
                let result = result.map_err(|e| crate::engine::error_in_words(&e));
                self.form.motion.voices.voices_loaded(result.clone());
                self.form.audio.voices.voices_loaded(result);
                Vec::new()
            }
            Event::ResultLocated { url, result } => self.result_located(url, result),
            other => {
                tracing::debug!("not a Create event: {other:?}");
                Vec::new()
            }
        }
    }

    fn project_created(&mut self, result: Result<crate::api::Project, ApiError>) -> Vec<Action> {
        let form = &mut self.form;
        form.project_creating = false;
        match result {
            Ok(project) => {
                form.project_id = Some(project.id.clone());
                form.new_project_open = false;
                form.new_project_name.clear();
                form.project_error = None;
                vec![
                    Action::RememberProject(project.id),
                    Action::Toast(
                        ToastKind::Success,
                        format!("Project “{}” created", project.name),
                    ),
                ]
            }
            Err(error) => {
                form.project_error = Some(error.to_string());
                Vec::new()
            }
        }
    }

    fn result_located(
        &mut self,
        url: String,
        result: Result<Option<crate::api::media::MediaItem>, ApiError>,
    ) -> Vec<Action> {
        let waiting = self.awaiting_location.remove(&url).unwrap_or_default();
        match result {
            Ok(Some(item)) => {
                if item.is_favorited == Some(true) {
                    self.favourites.insert(url.clone());
                }
                self.located.insert(url, item.id.clone());
                waiting
                    .into_iter()
                    .map(|op| library_change(item.id.clone(), op))
                    .collect()
            }
            Ok(None) if waiting.is_empty() => Vec::new(),
            Ok(None) => vec![Action::Toast(
                ToastKind::Error,
                "This result isn't in the library yet, so it can't be favourited or trashed. \
                 Try again in a moment."
                    .to_owned(),
            )],
            Err(error) if waiting.is_empty() => {
                tracing::info!("result lookup failed: {error}");
                Vec::new()
            }
            Err(error) => {
                tracing::warn!("result lookup failed: {error}");
                vec![Action::Toast(
                    ToastKind::Error,
                    format!(
                        "Couldn't find this result in the library: {}",
                        crate::engine::error_in_words(&error)
                    ),
                )]
            }
        }
    }

    /// A job changed (the shell has already stored it): track the job this form submitted
    /// and repeat a refusal of it under the field it is about.
    /// `was_finished`: the job had already ended before this update.
    pub fn on_job_updated(
        &mut self,
        record: &JobRecord,
        is_new: bool,
        restored: bool,
        was_finished: bool,
    ) {
        let form = &mut self.form;
        if is_new && form.awaiting_job && !restored {
            form.awaiting_job = false;
            form.tracked_job = Some(record.local_id);
        }
        if let crate::engine::JobPhase::Rejected { error } = &record.phase
            && form.tracked_job == Some(record.local_id)
            && !was_finished
        {
            if GenerationKind::VIDEO_SOURCED.contains(&record.spec.kind) {
                self.video_edit.note_rejection(error);
            } else {
                form.note_rejection(error);
            }
        }
    }

    /// A library change finished (whoever asked for it): keep the canvas's favourite and
    /// trash marks in step with the library.
    pub fn observe_media_mutation(&mut self, mutation: &MediaMutation, ok: bool) {
        if !ok {
            return;
        }
        let (ids, change): (&[String], fn(&mut Self, &str)) = match mutation {
            MediaMutation::Favorite {
                ids,
                favorited: true,
            } => (ids, |s, url| {
                s.favourites.insert(url.to_owned());
            }),
            MediaMutation::Favorite {
                ids,
                favorited: false,
            } => (ids, |s, url| {
                s.favourites.remove(url);
            }),
            MediaMutation::Bulk {
                action: BulkAction::Trash | BulkAction::DeleteForever,
                ids,
            } => (ids, |s, url| {
                s.trashed.insert(url.to_owned());
            }),
            MediaMutation::Bulk {
                action: BulkAction::Restore,
                ids,
            } => (ids, |s, url| {
                s.trashed.remove(url);
            }),
            _ => return,
        };
        let urls: Vec<String> = self
            .located
            .iter()
            .filter(|(_, media_id)| ids.contains(media_id))
            .map(|(url, _)| url.clone())
            .collect();
        for url in urls {
            change(self, &url);
        }
    }
}

fn library_change(media_id: String, op: PendingResultOp) -> Action {
    Action::Library(match op {
        PendingResultOp::Favourite(favourite) => LibraryAction::Favourite {
            ids: vec![media_id],
            favourite,
        },
        PendingResultOp::Trash => LibraryAction::Trash(vec![media_id]),
    })
}

fn send(command: Command) -> Action {
    Action::Send(Box::new(command))
}

pub fn file_name(path: &std::path::Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// `actions`, plus a note naming the files `kind`'s form took none of.
fn with_skipped_note(
    kind: GenerationKind,
    mut actions: Vec<Action>,
    skipped: &[String],
) -> Vec<Action> {
    if !skipped.is_empty() {
        actions.push(Action::Toast(
            ToastKind::Info,
            format!("{} takes none of {}", kind.label(), skipped.join(", ")),
        ));
    }
    actions
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_is_written_when_changed_and_at_most_once_a_second() {
        let mut state = CreateState::new(CreateMemory::default(), Default::default());
        assert_eq!(state.memory_to_save(10.0), None, "nothing changed");
        state.form.prompt = "a harbour".into();
        assert!(state.memory_to_save(10.0).is_some());
        state.form.prompt = "a harbour at dawn".into();
        assert_eq!(state.memory_to_save(10.5), None, "too soon");
        let saved = state.memory_to_save(11.1).map(|m| m.prompt);
        assert_eq!(saved.as_deref(), Some("a harbour at dawn"));
    }

    #[test]
    fn a_second_change_waits_for_the_same_lookup() {
        let mut state = CreateState::new(CreateMemory::default(), Default::default());
        let first = state.change_job_result("http://x/1.png", None, None, Some(true));
        assert!(matches!(first.as_slice(), [Action::Send(_)]));
        let second = state.change_job_result("http://x/1.png", None, None, None);
        assert!(second.is_empty());
        let item = crate::api::media::MediaItem {
            id: "m1".into(),
            url: "http://x/1.png".into(),
            ..Default::default()
        };
        let actions = state.handle_event(Event::ResultLocated {
            url: "http://x/1.png".into(),
            result: Ok(Some(item)),
        });
        assert!(matches!(
            actions.as_slice(),
            [
                Action::Library(LibraryAction::Favourite { .. }),
                Action::Library(LibraryAction::Trash(_))
            ]
        ));
        state.observe_media_mutation(
            &MediaMutation::Bulk {
                action: BulkAction::Trash,
                ids: vec!["m1".into()],
            },
            true,
        );
        assert!(state.is_trashed("http://x/1.png"));
    }

    #[test]
    fn settings_defaults_start_a_fresh_type_but_not_the_remembered_work() {
        use crate::settings::GenerationDefaults;
        use crate::ui::compose::form::defaults_key;
        let mut defaults = std::collections::BTreeMap::new();
        defaults.insert(
            defaults_key(GenerationKind::Image),
            GenerationDefaults {
                model_id: Some("flux".into()),
                resolution: Some("2K".into()),
                duration_secs: None,
            },
        );
        defaults.insert(
            defaults_key(GenerationKind::TextToVideo),
            GenerationDefaults {
                model_id: None,
                resolution: Some("1080p".into()),
                duration_secs: Some(10.0),
            },
        );
        // A first run (nothing remembered): the defaults of the starting type.
        let fresh = CreateState::new(CreateMemory::default(), defaults.clone());
        assert_eq!(fresh.form.model_id.as_deref(), Some("flux"));
        assert_eq!(fresh.form.resolution, "2K");

        // Remembered work wins at start-up…
        let memory = CreateMemory {
            kind: Some(GenerationKind::Image),
            model_id: Some("other".into()),
            resolution: Some("4K".into()),
            ..CreateMemory::default()
        };
        let mut state = CreateState::new(memory, defaults);
        assert_eq!(state.form.model_id.as_deref(), Some("other"));
        // …and picking a type starts from its Settings default.
        state.form.set_kind(GenerationKind::TextToVideo);
        assert_eq!(state.form.model_id, None);
        assert_eq!(state.form.resolution, "1080p");
        assert_eq!(state.form.duration_secs, 10.0);
        // A type without defaults keeps the choices as before.
        state.form.resolution = "720p".into();
        state.form.set_kind(GenerationKind::ImageToVideo);
        assert_eq!(state.form.resolution, "720p");
        // Reset to defaults on a type without any: Auto and the model's own choices.
        state.form.model_id = Some("kling".into());
        state.form.apply_kind_defaults();
        assert_eq!(state.form.model_id, None);
        assert!(
            state.form.resolution.is_empty(),
            "normalize picks the model's"
        );
    }
}
