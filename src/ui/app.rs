//! The app shell: owns the session, the model and the panels' state; drains engine events
//! in `logic`, lays the panels out in `ui`, then applies the actions they returned.

use crate::engine::{Command, Event, JobPhase, JobRecord, LocalJobId};
use crate::media::ThumbnailPipeline;
use crate::session::Session;
use crate::ui::chat::{self, ChatState};
use crate::ui::compose::{self, CreateState};
use crate::ui::dialogs::{DialogKind, FileDialogs};
use crate::ui::docs::{DocsState, LeaveTarget};
use crate::ui::format;
use crate::ui::jobs;
use crate::ui::library::{self, LibraryState};
use crate::ui::model::{Action, Confirm, Model, View};
use crate::ui::palettes::{self, PalettesState, ProjectRef};
use crate::ui::presets;
use crate::ui::screenshot::ScreenshotMode;
use crate::ui::settings::{self, SettingsForm, SettingsSnapshot};
use crate::ui::shell::{self, StatusInfo};
use crate::ui::textures::TextureCache;
use crate::ui::toasts::{self, ToastKind, Toasts};
use crate::ui::tokens;
use crate::ui::viewer::ViewerState;
use egui::Stroke;
use std::path::PathBuf;
use std::time::Duration;

mod account;
mod appearance;
mod capture;
mod confirm;
mod dialogs;
mod docs;
#[cfg(any(target_os = "macos", target_os = "windows"))]
mod drag_out;
mod file_out;
mod keyboard;
mod library_view;
mod memory;
mod notices;
mod open_files;
mod play;
mod projects;
mod results;
mod service;
mod sound;
mod transcript;
mod tray;
mod visual_dna;
pub use capture::ScreenshotScene;

/// How the studio starts (from the command line).
#[derive(Clone, Debug, Default)]
pub struct StartupOptions {
    pub initial_view: View,
    /// Capture the window to this PNG once the view has loaded, then quit.
    pub screenshot_to: Option<PathBuf>,
    /// Stage a scene for the screenshot (`--view video|storyboard`).
    pub screenshot_scene: Option<ScreenshotScene>,
    /// Files named on the command line (images to edit, videos), checked.
    pub open_files: crate::desktop::single_instance::LaunchRequest,
    /// `--tray open|closed`: start with the job tray so, whatever was remembered
    /// (screenshots show both).
    pub tray_open: Option<bool>,
    /// `--play FILE`: open this video or sound in the viewer and play it.
    pub play_file: Option<PathBuf>,
}

pub struct StudioApp {
    session: Session,
    view: View,
    model: Model,
    create: CreateState,
    settings_form: SettingsForm,
    settings_snapshot: SettingsSnapshot,
    textures: TextureCache,
    toasts: Toasts,
    viewer: ViewerState,
    confirm: Option<Confirm>,
    tray: jobs::TrayState,
    /// The window title last sent (it carries the running count).
    window_title: String,
    epoch: u64,
    /// File dialogs and the "type a path" prompt when none can open.
    dialogs: FileDialogs,
    library: LibraryState,
    /// Library thumbnails: fetched, decoded and downscaled off the UI thread, disk-cached.
    thumbnails: Option<ThumbnailPipeline>,
    /// The visible range the pipeline's queue was last trimmed to.
    thumbnails_trimmed_for: Option<(u64, std::ops::Range<usize>)>,
    /// Every visible Library tile had its thumbnail last frame (for the log line).
    thumbnails_all_visible: bool,
    screenshot: Option<ScreenshotMode>,
    frames_laid_out: u64,
    /// The screen the last frame laid out (textures of a screen left are released).
    last_screen_shown: Option<memory::ScreenShown>,
    /// `frames_laid_out` at which the heap is trimmed after a screen was left.
    trim_heap_at_frame: Option<u64>,
    palettes: PalettesState,
    /// The Visual DNA view (Visual DNA and moodboards).
    looks: crate::ui::visual_dna::LooksState,
    docs: DocsState,
    chat: ChatState,
    /// Global keys, the shortcuts overlay, quitting, the clipboard and the window's geometry.
    keys: keyboard::KeyboardState,
    /// The staged screenshot scene's progress (`--view video|storyboard`).
    screenshot_scene: Option<capture::SceneStage>,
    /// Whether the balance is below the Settings threshold (toast once per crossing).
    low_balance: crate::ui::account::LowBalanceWatch,
    /// Files from the command line and from later launches, still to open.
    launches: open_files::Launches,
    /// Results being prepared as files (reveal, copy, drag out).
    file_out: file_out::FileOutState,
    #[cfg(any(target_os = "macos", target_os = "windows"))]
    drag_out: drag_out::DragOut,
    /// Theme, UI scale and the first-run welcome.
    appearance: appearance::AppearanceState,
    /// The projects dialog (rename, archive).
    projects: crate::ui::projects::ProjectsState,
    /// Volume and mute as last written to the settings.
    sound_memory: crate::ui::sound::SoundMemory,
    /// `--play FILE`, until the first frame opens it.
    play_on_start: Option<PathBuf>,
}

impl StudioApp {
    pub fn new(ctx: &egui::Context, session: Session, options: StartupOptions) -> Self {
        tokens::apply_theme(ctx);
        let settings_snapshot = SettingsSnapshot::of(&session);
        let create_memory = compose::memory::CreateMemory::from_value(
            session.ui_memory().panels.get(compose::memory::PANEL_KEY),
        );
        let session_window = session.ui_memory().window;
        let generation_defaults = session.settings().generation_defaults.clone();
        let screenshot_run = options.screenshot_to.is_some();
        let mut tray =
            jobs::TrayState::restore(session.ui_memory().panels.get(jobs::TRAY_PANEL_KEY));
        if let Some(open) = options.tray_open {
            tray.start_as(open);
        }
        let appearance = appearance::AppearanceState::new(&session, screenshot_run);
        let sound_memory = sound::start_output(ctx, &session);
        let mut app = Self {
            epoch: session.connection_epoch(),
            session,
            view: options.initial_view,
            model: Model::default(),
            create: CreateState::new(create_memory, generation_defaults),
            settings_form: SettingsForm::default(),
            settings_snapshot,
            textures: TextureCache::default(),
            toasts: Toasts::default(),
            viewer: ViewerState::default(),
            confirm: None,
            tray,
            window_title: String::new(),
            dialogs: FileDialogs::default(),
            library: LibraryState::default(),
            thumbnails: None,
            thumbnails_trimmed_for: None,
            thumbnails_all_visible: false,
            screenshot: options.screenshot_to.map(ScreenshotMode::new),
            frames_laid_out: 0,
            last_screen_shown: None,
            trim_heap_at_frame: None,
            palettes: PalettesState::default(),
            looks: Default::default(),
            docs: DocsState::default(),
            chat: ChatState::default(),
            keys: keyboard::KeyboardState::new(&session_window, screenshot_run),
            screenshot_scene: options.screenshot_scene.map(capture::SceneStage::Starting),
            low_balance: Default::default(),
            launches: open_files::Launches::new(options.open_files),
            play_on_start: options.play_file,
            file_out: file_out::FileOutState::default(),
            #[cfg(any(target_os = "macos", target_os = "windows"))]
            drag_out: drag_out::DragOut::default(),
            appearance,
            projects: Default::default(),
            sound_memory,
        };
        let remembered = app
            .session
            .ui_memory()
            .panels
            .get(library::memory::PANEL_KEY);
        app.library.restore_from(remembered);
        app.restore_transcript_memory();
        app.thumbnails = library_view::start_thumbnails(ctx, &app.session);
        if screenshot_run && app.view == View::Chat {
            app.chat.stage_screenshot_scene();
        }
        app.show_startup_notices();
        app.request_service_data();
        if app.view == View::Settings {
            app.settings_shown();
        }
        app
    }

    /// Broken files moved aside while connecting: told once, until dismissed.
    fn show_startup_notices(&mut self) {
        for notice in self.session.take_startup_notices() {
            self.toasts.push_sticky(ToastKind::Error, notice.message);
        }
    }

    // ---- read-only accessors (tests) ---------------------------------------------------

    pub fn view(&self) -> View {
        self.view
    }

    /// Jobs in tray order (newest first).
    pub fn jobs(&self) -> Vec<&JobRecord> {
        self.model.tray_jobs().collect()
    }

    /// The session (read-only), e.g. for the local sandbox's controls in tests.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The session, e.g. to stop and restart the local sandbox in tests.
    pub fn session_mut(&mut self) -> &mut Session {
        &mut self.session
    }

    /// Whether the service is shown as unreachable.
    pub fn service_offline(&self) -> bool {
        self.model.service.is_offline()
    }

    /// The job whose output the viewer shows (None when closed or showing a library item).
    pub fn viewer_job(&self) -> Option<LocalJobId> {
        self.viewer.job_shown()
    }

    /// The in-app viewer (read-only): what it shows, where in its list, its zoom.
    pub fn viewer(&self) -> &ViewerState {
        &self.viewer
    }

    pub fn catalog_loaded(&self) -> bool {
        self.model.catalog.is_loaded()
    }

    pub fn projects_loaded(&self) -> bool {
        self.model.projects.is_loaded()
    }

    pub fn credits_loaded(&self) -> bool {
        self.model.credits.is_loaded()
    }

    /// The prompt in the Create form.
    pub fn compose_prompt(&self) -> &str {
        &self.create.form.prompt
    }

    /// The Create form (kind, model, output settings, sources).
    pub fn compose_form(&self) -> &compose::ComposeForm {
        &self.create.form
    }

    pub fn create_state(&self) -> &CreateState {
        &self.create
    }

    /// The project Create submits into.
    pub fn compose_project_id(&self) -> Option<&str> {
        self.create.form.project_id.as_deref()
    }

    /// Cinematic presets chosen in Create (dimension -> preset id).
    pub fn compose_cinematic(&self) -> &std::collections::BTreeMap<String, String> {
        &self.create.form.cinematic
    }

    /// The palettes as last listed (`is_active` relative to the current project).
    pub fn palettes(&self) -> Vec<crate::api::ColorPalette> {
        self.model.palettes.value.clone().unwrap_or_default()
    }

    /// Whether the palette list has answered for the current project.
    pub fn palettes_loaded_for_project(&self) -> bool {
        self.model.palettes.is_loaded()
            && !self.model.palettes.pending
            && self.model.palettes_project == self.create.form.project_id
    }

    /// The palette grading the current project, as listed.
    pub fn active_palette(&self) -> Option<crate::api::ColorPalette> {
        self.model
            .active_palette(self.create.form.project_id.as_deref())
            .cloned()
    }

    /// The Palettes panel's state (editor, analysis).
    pub fn palettes_state(&self) -> &PalettesState {
        &self.palettes
    }

    /// The Chat view's state (conversations, messages, the reply streaming in).
    pub fn chat(&self) -> &ChatState {
        &self.chat
    }

    /// The cinematic presets map, once loaded.
    pub fn presets(&self) -> Option<&crate::api::CinematicPresets> {
        self.model.presets.value.as_ref()
    }

    // ---- commands and events -----------------------------------------------------------

    fn send(&mut self, command: Command) {
        if let Err(error) = self.session.send(command) {
            self.toasts.push(ToastKind::Error, error);
        }
    }

    fn request_service_data(&mut self) {
        if self.session.connection_error().is_some() {
            return;
        }
        self.model.catalog.request();
        self.model.projects.request();
        self.model.credits.request();
        self.model.presets.request();
        for command in [
            Command::RefreshCatalog,
            Command::RefreshProjects,
            Command::RefreshCredits,
            Command::RefreshPresets,
        ] {
            // Failures show in the status bar (connection error); no toast storm.
            let _ = self.session.send(command);
        }
    }

    /// The active profile changed: forget everything the old service told us.
    fn on_connection_changed(&mut self, ctx: &egui::Context) {
        self.epoch = self.session.connection_epoch();
        self.show_startup_notices();
        self.model = Model::default();
        self.textures.clear();
        self.library.reset_all();
        self.viewer.close();
        crate::ui::audio::sounds::clear(ctx);
        self.confirm = None;
        self.create.on_connection_changed();
        self.palettes = PalettesState::default();
        self.looks = Default::default();
        self.docs.reset();
        self.chat = ChatState::default();
        self.settings_snapshot = SettingsSnapshot::of(&self.session);
        self.low_balance.reset();
        self.request_service_data();
    }

    /// The current project as the Palettes panel needs it.
    fn current_project(&self) -> Option<ProjectRef> {
        let id = self.create.form.project_id.clone()?;
        let name = self
            .model
            .project_name(&id)
            .filter(|n| !n.is_empty())
            .unwrap_or(&id)
            .to_owned();
        Some(ProjectRef { id, name })
    }

    /// Keep the palette list current for the project Create submits into (the list marks
    /// that project's grade). Asked again after every palette change.
    fn refresh_palettes_if_needed(&mut self) {
        if self.session.connection_error().is_some() || !self.model.projects.is_loaded() {
            return;
        }
        let wanted = Some(self.create.form.project_id.clone());
        if self.palettes.list_requested_for == wanted {
            return;
        }
        self.palettes.list_requested_for = wanted;
        self.model.palettes.request();
        let _ = self.session.send(Command::RefreshPalettes {
            project_id: self.create.form.project_id.clone(),
        });
    }

    fn handle_event(&mut self, ctx: &egui::Context, event: Event) {
        match event {
            event @ (Event::MediaPage { .. }
            | Event::MediaDetail { .. }
            | Event::Folders(_)
            | Event::MediaStats { .. }
            | Event::MediaMutationDone { .. }
            | Event::TransferProgress { .. }
            | Event::TransferFinished { .. }) => {
                if let Event::MediaMutationDone {
                    mutation, result, ..
                } = &event
                {
                    self.create.observe_media_mutation(mutation, result.is_ok());
                }
                for action in self.library.handle_event(event) {
                    self.apply(ctx, action);
                }
            }
            Event::Palettes { project_id, result } => {
                // Only the answer for the project asked for last counts.
                if self.palettes.list_requested_for.as_ref() == Some(&project_id) {
                    self.model.palettes_project = project_id;
                    self.model.palettes.set(
                        result
                            .map(|page| page.palettes)
                            .map_err(|e| in_words("palettes", &e)),
                    );
                }
            }
            event @ (Event::PaletteOpDone { .. }
            | Event::PaletteLocalPreview { .. }
            | Event::PaletteAnalyzed { .. }) => {
                for action in self.palettes.handle_event(event) {
                    self.apply(ctx, action);
                }
            }
            Event::Presets { origin, result } => {
                tracing::debug!(?origin, ok = result.is_ok(), "cinematic presets");
                // A failed revalidation keeps the cached map on screen.
                self.model
                    .presets
                    .set(result.map_err(|e| in_words("cinematic presets", &e)));
            }
            Event::Catalog(result) => self
                .model
                .catalog
                .set(result.map_err(|e| in_words("model catalog", &e))),
            Event::Credits(result) => self.credits_updated(result),
            event @ (Event::Account(_) | Event::Storage(_)) => {
                for action in self.settings_form.handle_event(event) {
                    self.apply(ctx, action);
                }
            }
            Event::Projects(result) => {
                self.model
                    .projects
                    .set(result.map_err(|e| in_words("projects", &e)));
                self.choose_project();
            }
            Event::ProjectOps(event) => self.project_ops_event(ctx, event),
            Event::ProjectCreated(result) => {
                if let Ok(project) = &result {
                    let list = self.model.projects.value.get_or_insert_with(Vec::new);
                    if !list.iter().any(|p| p.id == project.id) {
                        list.push(project.clone());
                    }
                }
                for action in self.create.handle_event(Event::ProjectCreated(result)) {
                    self.apply(ctx, action);
                }
            }
            event @ (Event::SourceUploaded { .. }
            | Event::SourceUploadProgress { .. }
            | Event::ResultLocated { .. }
            | Event::Voices(_)) => {
                for action in self.create.handle_event(event) {
                    self.apply(ctx, action);
                }
            }
            Event::JobsRestored(records) => {
                self.model.restored = records.iter().map(|r| r.local_id).collect();
                self.model.jobs = records.into_iter().map(|r| (r.local_id, r)).collect();
                self.model.jobs_restored = true;
            }
            Event::JobUpdated(record) => {
                self.notice_if_in_background(ctx, &record);
                self.job_updated(record);
            }
            Event::JobRemoved(local_id) => {
                self.model.jobs.remove(&local_id);
                self.viewer.forget_job(local_id);
            }
            Event::ImageLoaded { url, image } => self.textures.insert(ctx, &url, &image),
            Event::ImageFailed { url, error } => self.textures.fail(&url, error),
            Event::Model3dLoaded { url, result } => {
                self.viewer.handle_model_3d_loaded(&url, &result);
            }
            Event::FileSaved { path, result } => match result {
                Ok(()) => self
                    .toasts
                    .push(ToastKind::Success, format!("Saved to {}", path.display())),
                Err(error) => self.toasts.push(
                    ToastKind::Error,
                    format!(
                        "Could not save {}: {error}",
                        compose::state::file_name(&path)
                    ),
                ),
            },
            Event::OpenFailed { error, .. } => self.toasts.push(
                ToastKind::Error,
                format!("Could not open the image: {error}"),
            ),
            event @ (Event::VideoOpened { .. } | Event::VideoFailed { .. }) => {
                self.create.canvas_player.handle_event(&event);
                self.create.edit_stage.handle_event(ctx, &event);
                self.viewer.handle_video_event(&event);
                self.library.detail_player.handle_event(&event);
            }
            event @ (Event::VideoPreviewLoaded { .. }
            | Event::VideoPreviewFailed { .. }
            | Event::VideoPreviewSkipped { .. }) => {
                self.library.video_previews.handle_event(ctx, &event);
            }
            // No panel shows a trim timeline yet; the one that does will hand these to its
            // `TimelineState::handle_event`.
            event @ (Event::VideoStripThumbnail { .. } | Event::VideoStripFinished { .. }) => {
                self.create.edit_stage.handle_event(ctx, &event);
            }
            Event::Audio(event) => self.sound_event(ctx, event),
            Event::Docs(event) => self.docs_event(ctx, event),
            Event::FileOut(event) => self.file_out_event(ctx, event),
            Event::VisualDna(event) => self.visual_dna_event(ctx, event),
            Event::Moodboards(event) => self.moodboard_event(ctx, event),
            Event::Transcript(event) => {
                self.viewer.handle_transcript_event(&event);
                self.create.transcription.handle_event(&event);
                if let crate::engine::TranscriptEvent::Probed {
                    path,
                    duration_secs,
                } = &event
                {
                    self.create.form.motion.probed(path, *duration_secs);
                }
            }
            event @ (Event::ChatConversations(_) | Event::ChatMessages { .. }) => {
                for action in self.chat.creative.handle_event(&event) {
                    self.apply(ctx, action);
                }
            }
            Event::ServiceUnreachable { error } => self.service_unreachable(error),
            Event::ServiceReachable => self.service_reachable(),
            Event::NoticeClicked { local_id } => self.notice_clicked(ctx, local_id),
            Event::TaskPanicked { doing } => self.task_panicked(&doing),
            Event::Chat(event) => {
                for action in self.chat.handle_event(event) {
                    self.apply(ctx, action);
                }
            }
        }
    }

    fn job_updated(&mut self, record: JobRecord) {
        let local_id = record.local_id;
        let is_new = !self.model.jobs.contains_key(&local_id);
        if is_new && !self.model.restored.contains(&local_id) {
            self.tray.job_submitted();
        }
        let restored = self.model.restored.contains(&local_id);
        let finished_now = record.phase.is_finished();
        let completed_now = record.phase == JobPhase::Completed;
        let accepted_now = matches!(record.phase, JobPhase::Running { .. });
        let previous = self.model.upsert_job(record.clone());
        let was_finished = previous.as_ref().is_some_and(JobPhase::is_finished);
        let was_running = matches!(previous, Some(JobPhase::Running { .. }));
        self.create
            .on_job_updated(&record, is_new, restored, was_finished);
        // Balances move when a job is accepted (reservation) and when it ends.
        if (finished_now && !was_finished) || (accepted_now && !was_running) {
            let _ = self.session.send(Command::RefreshCredits);
        }
        // A finished job's outputs are in the library now: show them without a refresh.
        if completed_now && !was_finished {
            for command in self.library.refresh() {
                self.send(command);
            }
        }
    }

    fn choose_project(&mut self) {
        let Some(projects) = self.model.projects.value.as_ref() else {
            return;
        };
        // An archived project is no longer offered: Create falls back to the default.
        let exists = |id: &str| projects.iter().any(|p| p.id == id && !p.archived);
        if self.create.form.project_id.as_deref().is_some_and(exists) {
            return;
        }
        let remembered = self
            .session
            .settings()
            .last_project_id
            .clone()
            .filter(|id| exists(id));
        self.create.form.project_id =
            remembered.or_else(|| self.model.default_project().map(|p| p.id.clone()));
    }

    /// Apply an action that needs no egui context (from dialogs and events).
    fn apply_plain(&mut self, action: Action) {
        match action {
            Action::Send(command) => self.send(*command),
            Action::Toast(kind, text) => self.toasts.push(kind, text),
            other => tracing::debug!("library action dropped outside a frame: {other:?}"),
        }
    }

    // ---- actions -----------------------------------------------------------------------

    fn apply(&mut self, ctx: &egui::Context, action: Action) {
        match action {
            Action::Send(command) => self.send(*command),
            Action::Navigate(view) if !self.docs_may_leave(LeaveTarget::View(view)) => {}
            Action::ActivateProfile(id)
                if !self.docs_may_leave(LeaveTarget::SwitchProfile(id.clone())) => {}
            Action::Navigate(view) => {
                if view == View::Settings && self.view != View::Settings {
                    self.settings_shown();
                }
                if view == View::Create && self.view != View::Create {
                    self.create.on_shown();
                }
                self.view = view;
                self.remember_view();
            }
            Action::SubmitCompose => {
                for action in self.create.submit(&self.model) {
                    self.apply(ctx, action);
                }
            }
            Action::ToggleTray => self.tray.toggle(),
            Action::OpenViewer { local_id, index } => {
                self.viewer.open_job(&self.model, local_id, index);
            }
            Action::CloseViewer => self.viewer.close(),
            Action::CopyUrl(url) => self.copy_to_clipboard(ctx, &url, "URL"),
            Action::CopyText { text, what } => self.copy_to_clipboard(ctx, &text, &what),
            Action::Quit => self.request_quit(ctx),
            Action::ShowShortcuts(open) => self.keys.shortcuts_open = open,
            Action::Appearance(action) => self.apply_appearance(ctx, action),
            Action::SaveAs { url } => self.dialogs.open(DialogKind::SaveImage { url }),
            Action::SaveText {
                file_name,
                contents,
            } => self.dialogs.open(DialogKind::SaveText {
                file_name,
                contents,
            }),
            Action::SaveAsWav { url } => self.dialogs.open(DialogKind::SaveWav { url }),
            Action::PickSourceFiles => self.dialogs.open(DialogKind::SourceImages),
            Action::PickSourceVideo => self.dialogs.open(DialogKind::SourceVideo),
            Action::PickTranscriptionSource => self.dialogs.open(DialogKind::TranscriptionSource),
            Action::PickThreeDImages => self.dialogs.open(DialogKind::ThreeDImages),
            Action::PickMotionFiles(target) => {
                self.dialogs.open(DialogKind::MotionFiles { target })
            }
            action @ (Action::AddSourceUrl(_)
            | Action::RemoveSource(_)
            | Action::PlayOnCanvas(_)
            | Action::SelectPreset { .. }
            | Action::SelectProject(_)
            | Action::CreateProject(_)
            | Action::ReusePrompt(_)) => {
                for follow_up in self.create.apply(action) {
                    self.apply(ctx, follow_up);
                }
            }
            Action::RememberProject(id) => self.session.set_last_project(Some(id)),
            Action::Palette(action) => {
                let palettes = self.model.palettes.value.clone().unwrap_or_default();
                let project = self.current_project();
                for follow_up in self.palettes.apply(action, &palettes, project.as_ref()) {
                    self.apply(ctx, follow_up);
                }
            }
            Action::PickPaletteImages => {
                self.dialogs.open(DialogKind::PaletteImages);
            }
            Action::PickChatImages => self.dialogs.open(DialogKind::ChatImages),
            Action::Ask(confirm) => self.confirm = Some(confirm),
            Action::CancelConfirm => self.confirm = None,
            Action::Confirmed(confirm) => self.confirmed(ctx, confirm),
            Action::Settings(action) => self.apply_settings(action),
            Action::ActivateProfile(id) => self.activate_profile(id),
            Action::AddProfile => {
                let form = &self.settings_form.add;
                match self
                    .session
                    .add_remote_profile(&form.name, &form.base_url, &form.api_key)
                {
                    Ok(_) => {
                        self.settings_form.saved_note = Some(format!(
                            "Saved “{}”. Activate it to connect.",
                            form.name.trim()
                        ));
                        self.settings_form.add = Default::default();
                        self.settings_form.add_open = false;
                    }
                    Err(error) => self.settings_form.add.set_error(&error),
                }
                self.settings_snapshot = SettingsSnapshot::of(&self.session);
            }
            Action::SaveProfile(id) => {
                if let Some((_, form)) = self.settings_form.editing.as_mut() {
                    let key = Some(form.api_key.trim()).filter(|k| !k.is_empty());
                    match self
                        .session
                        .update_remote_profile(&id, &form.name, &form.base_url, key)
                    {
                        Ok(()) => self.settings_form.editing = None,
                        Err(error) => form.set_error(&error),
                    }
                }
                self.settings_snapshot = SettingsSnapshot::of(&self.session);
            }
            Action::RemoveProfile(id) => {
                self.flush_doc_deletes();
                if let Err(error) = self.session.remove_profile(&id) {
                    self.settings_form
                        .profile_errors
                        .insert(id, error.to_string());
                }
                self.settings_snapshot = SettingsSnapshot::of(&self.session);
            }
            action @ (Action::DismissToast(_) | Action::PressToast(_) | Action::UndoToast(_)) => {
                self.apply_toast(ctx, action)
            }
            Action::Docs(action) => self.apply_docs(ctx, action),
            Action::Looks(action) => self.apply_looks(ctx, action),
            Action::Projects(action) => self.apply_projects(ctx, action),
            Action::Library(action) => self.apply_library(ctx, action),
            Action::Toast(kind, text) => self.toasts.push(kind, text),
            Action::ToastWithAction {
                kind,
                text,
                label,
                action,
            } => self.toasts.push_with_action(kind, text, label, action),
            Action::Result(action) => self.apply_result_action(ctx, action),
            Action::PickDownloadFolder(items) => {
                self.dialogs.open(DialogKind::DownloadFolder { items })
            }
        }
    }

    // ---- layout ------------------------------------------------------------------------

    fn layout(&mut self, ui: &mut egui::Ui) -> Vec<Action> {
        let ctx = ui.ctx().clone();
        let mut actions = self.global_keys(&ctx);
        let now_ms = format::now_unix_ms();

        // First, so the viewer's keys (arrows, Esc) never reach a panel underneath it.
        let library_items = &self.library.items;
        actions.extend(
            self.viewer
                .viewer_ui(&ctx, &self.model, &self.textures, |id| {
                    library_items.find(id)
                }),
        );

        let service_label = self.session.service_label();
        let connection_error = self.session.connection_error().map(str::to_owned);
        let project_name = self
            .create
            .form
            .project_id
            .as_deref()
            .and_then(|id| self.model.project_name(id))
            .map(str::to_owned);
        let other_profiles = self.session.other_profile_job_counts();
        egui::Panel::bottom("status_bar")
            .exact_size(tokens::STATUS_BAR_HEIGHT)
            .resizable(false)
            .show_separator_line(false)
            .frame(tokens::panel_frame().inner_margin(egui::Margin::symmetric(12, 0)))
            .show(ui, |ui| {
                actions.extend(shell::status_bar_ui(
                    ui,
                    &self.model,
                    &StatusInfo {
                        service_label: &service_label,
                        connection_error: connection_error.as_deref(),
                        project_name: project_name.as_deref(),
                        tray_open: self.tray.expanded(),
                        other_profiles,
                        low_balance_threshold: self
                            .low_balance
                            .is_low()
                            .then_some(self.session.settings().low_balance_threshold_credits),
                    },
                ));
            });

        egui::Panel::left("rail")
            .exact_size(tokens::RAIL_WIDTH)
            .resizable(false)
            .show_separator_line(false)
            .frame(tokens::panel_frame())
            .show(ui, |ui| {
                actions.extend(shell::rail_ui(
                    ui,
                    self.view,
                    self.model.running_count() + other_profiles.running,
                ));
            });

        actions.extend(self.tray_panel_ui(ui, now_ms));

        let central_margin = match self.view {
            View::Library | View::Palettes | View::VisualDna | View::Docs => 0,
            // Create's two columns and Chat's list and messages need the width.
            View::Create | View::Chat => 16,
            _ => 24,
        };
        let project = self.current_project();
        let central = egui::CentralPanel::default()
            .frame(
                egui::Frame::new()
                    .fill(tokens::palette().bg_app)
                    .inner_margin(egui::Margin::symmetric(central_margin, 0)),
            )
            .show(ui, |ui| match self.view {
                View::Create => actions.extend(compose::create_ui(
                    ui,
                    &self.model,
                    &mut self.create,
                    &self.textures,
                )),
                View::Library => actions.extend(library::library_ui(
                    ui,
                    &mut self.library,
                    &self.model,
                    &self.textures,
                )),
                View::Settings => actions.extend(settings::settings_ui(
                    ui,
                    &self.settings_snapshot,
                    &mut self.settings_form,
                    &self.model,
                )),
                View::Palettes => actions.extend(palettes::palettes_ui(
                    ui,
                    &mut self.palettes,
                    &self.model,
                    project.as_ref(),
                    &self.textures,
                )),
                View::Presets => actions.extend(presets::presets_ui(
                    ui,
                    &self.model,
                    &self.create.form.cinematic,
                    &self.textures,
                )),
                View::VisualDna => actions.extend(crate::ui::visual_dna::visual_dna_ui(
                    ui,
                    &mut self.looks,
                    &self.model,
                    &self.textures,
                )),
                View::Docs => actions.extend(self.docs_panel(ui)),
                View::Chat => actions.extend(chat::chat_ui(
                    ui,
                    &mut self.chat,
                    &self.model,
                    &self.textures,
                )),
            });

        if let Some(confirm) = self.confirm.clone() {
            actions.extend(confirm::confirm_ui(&ctx, &confirm, &self.model));
        }
        if let Some(outcome) = self.dialogs.path_prompt_ui(&ctx) {
            self.dialog_outcome(&ctx, outcome);
        }
        if self.keys.shortcuts_open {
            actions.extend(crate::ui::shortcuts::shortcuts_overlay_ui(&ctx));
        }
        actions.extend(self.welcome_ui(&ctx));
        actions.extend(self.projects_dialog_layout(&ctx));
        actions.extend(toasts::toasts_ui(
            &ctx,
            &self.toasts,
            central.response.rect,
            self.viewer.is_open(),
        ));
        actions
    }

    fn handle_file_drops(&mut self, ctx: &egui::Context) {
        let (hovering, dropped) = ctx.input(|i| {
            (
                !i.raw.hovered_files.is_empty(),
                i.raw
                    .dropped_files
                    .iter()
                    .map(|f| f.path().to_path_buf())
                    .collect::<Vec<_>>(),
            )
        });
        let library = self.view == View::Library;
        let palettes_view = self.view == View::Palettes;
        let looks_view = self.view == View::VisualDna;
        let chat_view = self.view == View::Chat;
        if self.view == View::Docs {
            return; // Documents hold no files; a drop must not leave the editor.
        }
        if !dropped.is_empty() {
            if chat_view {
                for action in self.chat.add_files(dropped) {
                    self.apply(ctx, action);
                }
            } else if palettes_view {
                for action in self.palettes.add_images(dropped) {
                    self.apply(ctx, action);
                }
            } else if looks_view {
                for action in self.looks.add_dropped(dropped) {
                    self.apply(ctx, action);
                }
            } else if library {
                self.upload_to_library(ctx, dropped);
            } else {
                self.view = View::Create;
                let pos = ctx.input(|i| i.pointer.hover_pos());
                for action in self.create.add_source_files_at(dropped, pos) {
                    self.apply(ctx, action);
                }
            }
        }
        if hovering && !palettes_view && !chat_view && !looks_view {
            drop_overlay_ui(ctx, library);
        }
    }
}

impl eframe::App for StudioApp {
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        if self.session.connection_epoch() != self.epoch {
            self.on_connection_changed(ctx);
        }
        while let Some(event) = self.session.try_recv() {
            self.handle_event(ctx, event);
        }
        self.poll_dialogs(ctx);
        self.open_launched_files(ctx);
        self.play_startup_file(ctx);
        if let Some(pipeline) = self.thumbnails.as_ref() {
            while let Some(done) = pipeline.try_recv() {
                match done.result {
                    Ok(image) => {
                        self.textures
                            .insert_thumbnail(ctx, &done.item_id, done.size_px, &image)
                    }
                    Err(error) => self.textures.fail_thumbnail(&done.item_id, error),
                }
            }
        }
        if self.dialogs.is_waiting() {
            ctx.request_repaint_after(Duration::from_millis(150));
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let ctx = ui.ctx().clone();
        self.appearance_frame(&ctx);
        self.textures.begin_frame();
        self.docs_frame(&ctx);
        self.create.form.normalize(&self.model);
        let now_secs = ctx.input(|i| i.time);
        if let Some(memory) = self.create.memory_to_save(now_secs) {
            self.session.update_ui_memory(|m| {
                m.panels
                    .insert(compose::memory::PANEL_KEY.to_owned(), memory.to_value());
            });
        }
        self.refresh_palettes_if_needed();
        if self.view == View::Library && self.session.connection_error().is_none() {
            for command in self.library.start() {
                self.send(command);
            }
        }

        self.screenshot_scene_step();
        let screen_shown = self.screen_shown();
        let actions = self.layout(ui);
        self.release_left_screen(&ctx, screen_shown);
        self.forward_retry_request(&ctx);
        self.update_window_title(&ctx);
        self.handle_file_drops(&ctx);
        for action in actions {
            self.apply(&ctx, action);
        }
        #[cfg(any(target_os = "macos", target_os = "windows"))]
        self.start_pending_drag(_frame);
        if self.view == View::Library {
            for command in self.library.page_commands() {
                self.send(command);
            }
        }
        let dragging = ctx.input(|i| i.pointer.any_down());
        if let Some(value) = self.library.memory_to_write(!dragging) {
            let key = library::memory::PANEL_KEY.to_owned();
            self.session
                .update_ui_memory(|m| _ = m.panels.insert(key, value));
        }
        self.write_transcript_memory();
        self.request_thumbnails();
        self.sound_frame(&ctx);
        for (url, max_side_px) in self.textures.take_wanted() {
            self.send(Command::LoadImage { url, max_side_px });
        }
        if self.model.running_count() > 0 {
            ctx.request_repaint_after(Duration::from_secs(1));
        }
        self.after_frame(&ctx);
        self.frames_laid_out += 1;
        let ready = self.screenshot_data_ready(&ctx);
        if let Some(screenshot) = self.screenshot.as_mut() {
            screenshot.update(&ctx, ready);
        }
    }

    fn on_exit(&mut self, _gl: Option<&eframe::glow::Context>) {
        self.store_window_on_exit();
        self.flush_doc_deletes();
        if let Some(pipeline) = self.thumbnails.take() {
            pipeline.shutdown();
        }
        self.session.shutdown();
    }
}

/// A failed load as the panels show it: what happened in words; the raw error is logged.
fn in_words(what: &str, error: &crate::api::ApiError) -> String {
    tracing::warn!("loading the {what} failed: {error}");
    crate::engine::error_in_words(error)
}

fn drop_overlay_ui(ctx: &egui::Context, library: bool) {
    let (title, body) = if library {
        (
            "Drop files to upload them",
            "They are added to the library (and to the open folder)",
        )
    } else {
        (
            "Drop images to edit them",
            "They are uploaded as source images for an image edit",
        )
    };
    let rect = ctx.content_rect();
    let painter = ctx.layer_painter(egui::LayerId::new(
        egui::Order::Foreground,
        egui::Id::unique("drop_overlay"),
    ));
    painter.rect_filled(rect, 0.0, tokens::palette().scrim);
    let inner = rect.shrink(tokens::SPACE_L);
    painter.rect_stroke(
        inner,
        egui::CornerRadius::same(tokens::RADIUS_L),
        Stroke::new(2.0, tokens::palette().accent),
        egui::StrokeKind::Inside,
    );
    painter.text(
        rect.center() - egui::vec2(0.0, 14.0),
        egui::Align2::CENTER_CENTER,
        title,
        egui::FontId::proportional(22.0),
        tokens::palette().text,
    );
    painter.text(
        rect.center() + egui::vec2(0.0, 16.0),
        egui::Align2::CENTER_CENTER,
        body,
        egui::FontId::proportional(13.5),
        tokens::palette().text_muted,
    );
}
