//! The app shell: owns the session, the model and the panels' state; drains engine events
//! in `logic`, lays the panels out in `ui`, then applies the actions they returned.

use crate::engine::{Command, Event, JobPhase, JobRecord, LocalJobId};
use crate::media::{ThumbnailConfig, ThumbnailPipeline, ThumbnailPriority};
use crate::session::Session;
use crate::ui::compose::{self, ComposeForm};
use crate::ui::format;
use crate::ui::jobs;
use crate::ui::library::{self, LibraryState, Place};
use crate::ui::model::{Action, Confirm, Model, View};
use crate::ui::palettes::{self, PalettesState, ProjectRef};
use crate::ui::presets;
use crate::ui::screenshot::ScreenshotMode;
use crate::ui::settings::{self, SettingsForm, SettingsSnapshot};
use crate::ui::shell::{self, StatusInfo};
use crate::ui::textures::TextureCache;
use crate::ui::toasts::{self, ToastKind, Toasts};
use crate::ui::tokens;
use crate::ui::viewer::{self, ViewerState};
use crate::ui::widgets;
use egui::{RichText, Stroke};
use poll_promise::Promise;
use std::path::PathBuf;
use std::time::Duration;

mod keyboard;
mod results;

/// How the studio starts (from the command line).
#[derive(Clone, Debug, Default)]
pub struct StartupOptions {
    pub initial_view: View,
    /// Capture the window to this PNG once the view has loaded, then quit.
    pub screenshot_to: Option<PathBuf>,
}

const IMAGE_EXTENSIONS: [&str; 6] = ["png", "jpg", "jpeg", "webp", "gif", "bmp"];

pub struct StudioApp {
    session: Session,
    view: View,
    model: Model,
    compose: ComposeForm,
    settings_form: SettingsForm,
    settings_snapshot: SettingsSnapshot,
    textures: TextureCache,
    toasts: Toasts,
    viewer: Option<ViewerState>,
    confirm: Option<Confirm>,
    tray_open: bool,
    epoch: u64,
    file_pick: Option<Promise<Option<Vec<PathBuf>>>>,
    save_dialogs: Vec<(String, Promise<Option<PathBuf>>)>,
    library: LibraryState,
    /// Library thumbnails: fetched, decoded and downscaled off the UI thread, disk-cached.
    thumbnails: Option<ThumbnailPipeline>,
    /// The visible range the pipeline's queue was last trimmed to.
    thumbnails_trimmed_for: Option<(u64, std::ops::Range<usize>)>,
    /// "Save to folder…": the folder dialog and the items to download there.
    download_pick: Option<(
        Vec<crate::engine::protocol::DownloadItem>,
        Promise<Option<PathBuf>>,
    )>,
    screenshot: Option<ScreenshotMode>,
    frames_laid_out: u64,
    palettes: PalettesState,
    /// The file dialog for palette reference images.
    palette_pick: Option<Promise<Option<Vec<PathBuf>>>>,
    /// Global keys, the shortcuts overlay, quitting, the clipboard and the window's geometry.
    keys: keyboard::KeyboardState,
}

impl StudioApp {
    pub fn new(ctx: &egui::Context, session: Session, options: StartupOptions) -> Self {
        tokens::apply_theme(ctx);
        let settings_snapshot = SettingsSnapshot::of(&session);
        let session_window = session.ui_memory().window;
        let screenshot_run = options.screenshot_to.is_some();
        let mut app = Self {
            epoch: session.connection_epoch(),
            session,
            view: options.initial_view,
            model: Model::default(),
            compose: ComposeForm::default(),
            settings_form: SettingsForm::default(),
            settings_snapshot,
            textures: TextureCache::default(),
            toasts: Toasts::default(),
            viewer: None,
            confirm: None,
            tray_open: true,
            file_pick: None,
            save_dialogs: Vec::new(),
            library: LibraryState::default(),
            thumbnails: None,
            thumbnails_trimmed_for: None,
            download_pick: None,
            screenshot: options.screenshot_to.map(ScreenshotMode::new),
            frames_laid_out: 0,
            palettes: PalettesState::default(),
            palette_pick: None,
            keys: keyboard::KeyboardState::new(&session_window, screenshot_run),
        };
        app.thumbnails = start_thumbnails(ctx, &app.session);
        app.request_service_data();
        app
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

    pub fn viewer_job(&self) -> Option<LocalJobId> {
        self.viewer.map(|v| v.local_id)
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

    /// Display indices of the Library tiles on screen in the last layout.
    pub fn library_visible(&self) -> std::ops::Range<usize> {
        self.library.visible.clone()
    }

    /// A thumbnail texture of `item_id` is held, at the size the grid asks for.
    pub fn library_thumbnail_ready(&self, item_id: &str) -> bool {
        self.textures
            .thumbnail_settled(item_id, self.library.thumb_request_px)
    }

    /// Ids of the Library items loaded for the current query, in display order.
    pub fn library_item_ids(&self) -> Vec<String> {
        self.library
            .items
            .loaded_items()
            .map(|(_, item)| item.id.clone())
            .collect()
    }

    /// The Library's loaded items in display order.
    pub fn library_items(&self) -> Vec<crate::api::media::MediaItem> {
        self.library
            .items
            .loaded_items()
            .map(|(_, item)| item.clone())
            .collect()
    }

    /// Items in the current query as far as known (the grid's length).
    pub fn library_len(&self) -> usize {
        self.library.items.len()
    }

    /// Whether page 1 of the current query has answered and no page load is in flight.
    pub fn library_settled(&self) -> bool {
        self.library.items.first_page_done() && !self.library.items.is_loading()
    }

    /// Selected item ids (sorted).
    /// Select all is still taking in pages that were not loaded when it was asked for.
    pub fn library_select_all_pending(&self) -> bool {
        self.library.selection.all_pending
    }

    pub fn library_selection(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.library.selection.ids.iter().cloned().collect();
        ids.sort();
        ids
    }

    /// What the grid shows: a section or a folder.
    pub fn library_place(&self) -> Place {
        self.library.place.clone()
    }

    /// The folder list as last loaded.
    pub fn library_folders(&self) -> Vec<crate::api::media::Folder> {
        self.library.folders.value.clone().unwrap_or_default()
    }

    /// The stats footer's numbers, once loaded.
    pub fn library_stats(&self) -> Option<crate::api::media::MediaStats> {
        self.library.stats.value.clone()
    }

    /// Uploads and downloads in the transfers strip.
    pub fn library_transfers(&self) -> Vec<library::Transfer> {
        self.library.transfers.clone()
    }

    /// Optimistic library changes not yet confirmed by the engine.
    pub fn library_busy(&self) -> bool {
        self.library.has_pending_ops()
    }

    /// The prompt in the Create form.
    pub fn compose_prompt(&self) -> &str {
        &self.compose.prompt
    }

    /// The project Create submits into.
    pub fn compose_project_id(&self) -> Option<&str> {
        self.compose.project_id.as_deref()
    }

    /// Cinematic presets chosen in Create (dimension -> preset id).
    pub fn compose_cinematic(&self) -> &std::collections::BTreeMap<String, String> {
        &self.compose.cinematic
    }

    /// The palettes as last listed (`is_active` relative to the current project).
    pub fn palettes(&self) -> Vec<crate::api::ColorPalette> {
        self.model.palettes.value.clone().unwrap_or_default()
    }

    /// Whether the palette list has answered for the current project.
    pub fn palettes_loaded_for_project(&self) -> bool {
        self.model.palettes.is_loaded()
            && !self.model.palettes.pending
            && self.model.palettes_project == self.compose.project_id
    }

    /// The palette grading the current project, as listed.
    pub fn active_palette(&self) -> Option<crate::api::ColorPalette> {
        self.model
            .active_palette(self.compose.project_id.as_deref())
            .cloned()
    }

    /// The Palettes panel's state (editor, analysis).
    pub fn palettes_state(&self) -> &PalettesState {
        &self.palettes
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
    fn on_connection_changed(&mut self) {
        self.epoch = self.session.connection_epoch();
        self.model = Model::default();
        self.textures.clear();
        self.library.reset_all();
        self.viewer = None;
        self.confirm = None;
        self.compose.model_id = None;
        self.compose.project_id = None;
        self.compose.sources.clear();
        self.compose.tracked_job = None;
        self.compose.awaiting_job = false;
        self.compose.server_errors.clear();
        self.compose.cinematic.clear();
        self.compose.skip_palette = false;
        self.palettes = PalettesState::default();
        self.settings_snapshot = SettingsSnapshot::of(&self.session);
        self.request_service_data();
    }

    /// The current project as the Palettes panel needs it.
    fn current_project(&self) -> Option<ProjectRef> {
        let id = self.compose.project_id.clone()?;
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
        let wanted = Some(self.compose.project_id.clone());
        if self.palettes.list_requested_for == wanted {
            return;
        }
        self.palettes.list_requested_for = wanted;
        self.model.palettes.request();
        let _ = self.session.send(Command::RefreshPalettes {
            project_id: self.compose.project_id.clone(),
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
                for action in self.library.handle_event(event) {
                    self.apply(ctx, action);
                }
            }
            Event::Palettes { project_id, result } => {
                // Only the answer for the project asked for last counts.
                if self.palettes.list_requested_for.as_ref() == Some(&project_id) {
                    self.model.palettes_project = project_id;
                    self.model
                        .palettes
                        .set(result.map(|page| page.palettes).map_err(|e| e.to_string()));
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
                self.model.presets.set(result.map_err(|e| e.to_string()));
            }
            Event::Catalog(result) => self.model.catalog.set(result.map_err(|e| e.to_string())),
            Event::Credits(result) => self.model.credits.set(result.map_err(|e| e.to_string())),
            Event::Projects(result) => {
                self.model.projects.set(result.map_err(|e| e.to_string()));
                self.choose_project();
            }
            Event::ProjectCreated(result) => {
                self.compose.project_creating = false;
                match result {
                    Ok(project) => {
                        let list = self.model.projects.value.get_or_insert_with(Vec::new);
                        if !list.iter().any(|p| p.id == project.id) {
                            list.push(project.clone());
                        }
                        self.compose.project_id = Some(project.id.clone());
                        self.compose.new_project_open = false;
                        self.compose.new_project_name.clear();
                        self.compose.project_error = None;
                        self.session.set_last_project(Some(project.id.clone()));
                        self.toasts.push(
                            ToastKind::Success,
                            format!("Project “{}” created", project.name),
                        );
                    }
                    Err(error) => self.compose.project_error = Some(error.to_string()),
                }
            }
            Event::JobsRestored(records) => {
                self.model.restored = records.iter().map(|r| r.local_id).collect();
                self.model.jobs = records.into_iter().map(|r| (r.local_id, r)).collect();
                self.model.jobs_restored = true;
            }
            Event::JobUpdated(record) => self.job_updated(record),
            Event::JobRemoved(local_id) => {
                self.model.jobs.remove(&local_id);
                if self.viewer.is_some_and(|v| v.local_id == local_id) {
                    self.viewer = None;
                }
            }
            Event::ImageLoaded { url, image } => self.textures.insert(ctx, &url, &image),
            Event::ImageFailed { url, error } => self.textures.fail(&url, error),
            Event::SourceUploaded { path, result } => {
                if let Err(error) = &result {
                    self.toasts.push(
                        ToastKind::Error,
                        format!("Upload of {} failed: {error}", file_name(&path)),
                    );
                }
                self.compose
                    .upload_finished(&path, result.map_err(|e| e.to_string()));
            }
            Event::FileSaved { path, result } => match result {
                Ok(()) => self
                    .toasts
                    .push(ToastKind::Success, format!("Saved to {}", path.display())),
                Err(error) => self.toasts.push(
                    ToastKind::Error,
                    format!("Could not save {}: {error}", file_name(&path)),
                ),
            },
            Event::OpenFailed { error, .. } => self.toasts.push(
                ToastKind::Error,
                format!("Could not open the image: {error}"),
            ),
        }
    }

    fn job_updated(&mut self, record: JobRecord) {
        let local_id = record.local_id;
        let is_new = !self.model.jobs.contains_key(&local_id);
        if is_new && self.compose.awaiting_job && !self.model.restored.contains(&local_id) {
            self.compose.awaiting_job = false;
            self.compose.tracked_job = Some(local_id);
        }
        let rejected_now = match &record.phase {
            JobPhase::Rejected { error } => Some(error.clone()),
            _ => None,
        };
        let finished_now = record.phase.is_finished();
        let completed_now = record.phase == JobPhase::Completed;
        let accepted_now = matches!(record.phase, JobPhase::Running { .. });
        let previous = self.model.upsert_job(record);
        let was_finished = previous.as_ref().is_some_and(JobPhase::is_finished);
        let was_running = matches!(previous, Some(JobPhase::Running { .. }));
        if let Some(error) = rejected_now
            && !was_finished
            && self.compose.tracked_job == Some(local_id)
        {
            self.compose.note_rejection(&error);
        }
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
        let exists = |id: &str| projects.iter().any(|p| p.id == id);
        if self.compose.project_id.as_deref().is_some_and(exists) {
            return;
        }
        let remembered = self
            .session
            .settings()
            .last_project_id
            .clone()
            .filter(|id| exists(id));
        self.compose.project_id =
            remembered.or_else(|| self.model.default_project().map(|p| p.id.clone()));
    }

    fn poll_dialogs(&mut self, ctx: &egui::Context) {
        if let Some(promise) = self.palette_pick.take() {
            match promise.try_take() {
                Ok(Some(paths)) => {
                    for action in self.palettes.add_images(paths) {
                        self.apply(ctx, action);
                    }
                }
                Ok(None) => {}
                Err(promise) => self.palette_pick = Some(promise),
            }
        }
        if let Some(promise) = self.file_pick.take() {
            match promise.try_take() {
                Ok(Some(paths)) => self.add_source_files(paths),
                Ok(None) => {}
                Err(promise) => self.file_pick = Some(promise),
            }
        }
        let mut pending = Vec::new();
        for (url, promise) in std::mem::take(&mut self.save_dialogs) {
            match promise.try_take() {
                Ok(Some(path)) => self.send(Command::SaveUrlToFile { url, path }),
                Ok(None) => {}
                Err(promise) => pending.push((url, promise)),
            }
        }
        self.save_dialogs = pending;
        if let Some((items, promise)) = self.download_pick.take() {
            match promise.try_take() {
                Ok(Some(folder)) => {
                    for action in self.library.download_to(items, folder) {
                        self.apply_plain(action);
                    }
                }
                Ok(None) => {}
                Err(promise) => self.download_pick = Some((items, promise)),
            }
        }
    }

    /// Apply an action that needs no egui context (from dialogs and events).
    fn apply_plain(&mut self, action: Action) {
        match action {
            Action::Send(command) => self.send(*command),
            Action::Toast(kind, text) => self.toasts.push(kind, text),
            other => tracing::debug!("library action dropped outside a frame: {other:?}"),
        }
    }

    fn add_source_files(&mut self, paths: Vec<PathBuf>) {
        let mut skipped = Vec::new();
        for path in paths {
            let is_image = path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| IMAGE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()));
            if !is_image {
                skipped.push(file_name(&path));
                continue;
            }
            self.compose.kind = crate::api::GenerationKind::ImageEdit;
            self.compose.add_upload(path.clone());
            self.send(Command::UploadSource { path });
        }
        if !skipped.is_empty() {
            self.toasts.push(
                ToastKind::Info,
                format!("Only images can be edited; skipped {}", skipped.join(", ")),
            );
        }
    }

    // ---- actions -----------------------------------------------------------------------

    fn apply(&mut self, ctx: &egui::Context, action: Action) {
        match action {
            Action::Send(command) => self.send(*command),
            Action::Navigate(view) => {
                if view == View::Settings {
                    self.settings_snapshot = SettingsSnapshot::of(&self.session);
                }
                self.view = view;
                self.remember_view();
            }
            Action::SubmitCompose => self.submit(),
            Action::ToggleTray => self.tray_open = !self.tray_open,
            Action::OpenViewer { local_id, index } => {
                self.viewer = Some(ViewerState { local_id, index });
            }
            Action::CloseViewer => self.viewer = None,
            Action::ViewerStep(delta) => {
                if let Some(state) = self.viewer.as_mut() {
                    state.index = state.index.saturating_add_signed(delta);
                }
            }
            Action::CopyUrl(url) => self.copy_to_clipboard(ctx, &url, "URL"),
            Action::CopyText { text, what } => self.copy_to_clipboard(ctx, &text, &what),
            Action::Quit => self.request_quit(ctx),
            Action::ShowShortcuts(open) => self.keys.shortcuts_open = open,
            Action::SaveAs { url } => {
                let suggested = url
                    .rsplit('/')
                    .find(|s| !s.is_empty())
                    .unwrap_or("image.png")
                    .to_owned();
                let promise = Promise::spawn_thread("save-dialog", move || {
                    rfd::FileDialog::new()
                        .set_title("Save image")
                        .set_file_name(suggested)
                        .save_file()
                });
                self.save_dialogs.push((url, promise));
            }
            Action::PickSourceFiles => {
                if self.file_pick.is_none() {
                    self.file_pick = Some(Promise::spawn_thread("source-dialog", || {
                        rfd::FileDialog::new()
                            .set_title("Add images to edit")
                            .add_filter("Images", &IMAGE_EXTENSIONS)
                            .pick_files()
                    }));
                }
            }
            Action::AddSourceUrl(url) => match self.compose.add_url_source(&url) {
                Ok(()) => {
                    self.compose.url_input.clear();
                    self.compose.url_error = None;
                }
                Err(error) => self.compose.url_error = Some(error),
            },
            Action::RemoveSource(index) => {
                if index < self.compose.sources.len() {
                    self.compose.sources.remove(index);
                }
            }
            Action::Palette(action) => {
                let palettes = self.model.palettes.value.clone().unwrap_or_default();
                let project = self.current_project();
                for follow_up in self.palettes.apply(action, &palettes, project.as_ref()) {
                    self.apply(ctx, follow_up);
                }
            }
            Action::PickPaletteImages => {
                if self.palette_pick.is_none() {
                    self.palette_pick = Some(Promise::spawn_thread("palette-dialog", || {
                        rfd::FileDialog::new()
                            .set_title("Reference images for a palette")
                            .add_filter("Images", &palettes::state::IMAGE_EXTENSIONS)
                            .pick_files()
                    }));
                }
            }
            Action::SelectPreset {
                dimension,
                preset_id,
            } => match preset_id {
                Some(id) => {
                    self.compose.cinematic.insert(dimension, id);
                }
                None => {
                    self.compose.cinematic.remove(&dimension);
                }
            },
            Action::SelectProject(id) => {
                self.compose.skip_palette = false;
                self.compose.project_id = Some(id.clone());
                self.session.set_last_project(Some(id));
            }
            Action::CreateProject(name) => {
                self.compose.project_creating = true;
                self.compose.project_error = None;
                self.send(Command::CreateProject { name });
            }
            Action::Ask(confirm) => self.confirm = Some(confirm),
            Action::CancelConfirm => self.confirm = None,
            Action::Confirmed(Confirm::DeletePalette { .. }) => {
                self.confirm = None;
                let palettes = self.model.palettes.value.clone().unwrap_or_default();
                let project = self.current_project();
                for follow_up in self.palettes.apply(
                    palettes::PaletteAction::Delete,
                    &palettes,
                    project.as_ref(),
                ) {
                    self.apply(ctx, follow_up);
                }
            }
            Action::Confirmed(Confirm::RemoveProfile { id, .. }) => {
                self.confirm = None;
                self.apply(ctx, Action::RemoveProfile(id));
            }
            Action::Confirmed(Confirm::Quit { .. }) => {
                self.confirm = None;
                self.quit_now(ctx);
            }
            Action::Confirmed(confirm) => {
                self.confirm = None;
                let (Confirm::Retry(local_id) | Confirm::SubmitAgain(local_id)) = confirm else {
                    return;
                };
                if let Some(job) = self.model.jobs.get(&local_id) {
                    let command = Command::Submit {
                        spec: job.spec.clone(),
                        model_label: job.model_label.clone(),
                        credits_estimate: job.credits_estimate,
                    };
                    self.send(command);
                }
            }
            Action::ActivateProfile(id) => {
                self.settings_form.profile_errors.remove(&id);
                if let Err(error) = self.session.activate_profile(&id) {
                    self.settings_form
                        .profile_errors
                        .insert(id, error.to_string());
                }
                self.settings_snapshot = SettingsSnapshot::of(&self.session);
            }
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
                if let Err(error) = self.session.remove_profile(&id) {
                    self.settings_form
                        .profile_errors
                        .insert(id, error.to_string());
                }
                self.settings_snapshot = SettingsSnapshot::of(&self.session);
            }
            Action::DismissToast(id) => self.toasts.dismiss(id),
            Action::Library(action) => {
                for follow_up in self.library.apply(action) {
                    self.apply(ctx, follow_up);
                }
            }
            Action::Toast(kind, text) => self.toasts.push(kind, text),
            Action::ToastWithAction {
                kind,
                text,
                label,
                action,
            } => self.toasts.push_with_action(kind, text, label, action),
            Action::ReusePrompt(prompt) => {
                self.compose.prompt = prompt;
                self.compose.kind = crate::api::GenerationKind::Image;
                self.view = View::Create;
                self.toasts
                    .push(ToastKind::Info, "Prompt copied into Create");
            }
            Action::Result(action) => self.apply_result_action(ctx, action),
            Action::PickDownloadFolder(items) => {
                if self.download_pick.is_none() {
                    let promise = Promise::spawn_thread("download-folder-dialog", || {
                        rfd::FileDialog::new()
                            .set_title("Save to folder")
                            .pick_folder()
                    });
                    self.download_pick = Some((items, promise));
                }
            }
        }
    }

    fn submit(&mut self) {
        self.compose.server_errors.clear();
        let errors = self.compose.validation_errors(&self.model);
        if !errors.is_empty() {
            self.compose.errors = errors;
            self.compose.show_validation = true;
            return;
        }
        self.compose.errors.clear();
        self.compose.show_validation = false;
        let spec = self.compose.build_spec(&self.model);
        let credits_estimate = self.compose.estimate(&self.model).for_job();
        let model_label = self.compose.model_label(&self.model);
        match self.session.send(Command::Submit {
            spec,
            model_label,
            credits_estimate,
        }) {
            Ok(()) => self.compose.awaiting_job = true,
            Err(error) => self
                .toasts
                .push(ToastKind::Error, format!("Could not submit: {error}")),
        }
    }

    // ---- layout ------------------------------------------------------------------------

    fn layout(&mut self, ui: &mut egui::Ui) -> Vec<Action> {
        let ctx = ui.ctx().clone();
        let mut actions = self.global_keys(&ctx);
        let now_ms = format::now_unix_ms();

        let service_label = self.session.service_label();
        let connection_error = self.session.connection_error().map(str::to_owned);
        let project_name = self
            .compose
            .project_id
            .as_deref()
            .and_then(|id| self.model.project_name(id))
            .map(str::to_owned);
        egui::Panel::bottom("status_bar")
            .exact_size(tokens::STATUS_BAR_HEIGHT)
            .resizable(false)
            .show_separator_line(false)
            .frame(
                egui::Frame::new()
                    .fill(tokens::BG_PANEL)
                    .stroke(Stroke::new(1.0, tokens::BORDER))
                    .inner_margin(egui::Margin::symmetric(12, 0)),
            )
            .show(ui, |ui| {
                actions.extend(shell::status_bar_ui(
                    ui,
                    &self.model,
                    &StatusInfo {
                        service_label: &service_label,
                        connection_error: connection_error.as_deref(),
                        project_name: project_name.as_deref(),
                        tray_open: self.tray_open,
                    },
                ));
            });

        egui::Panel::left("rail")
            .exact_size(tokens::RAIL_WIDTH)
            .resizable(false)
            .show_separator_line(false)
            .frame(
                egui::Frame::new()
                    .fill(tokens::BG_PANEL)
                    .stroke(Stroke::new(1.0, tokens::BORDER)),
            )
            .show(ui, |ui| {
                actions.extend(shell::rail_ui(ui, self.view, self.model.running_count()));
            });

        if self.tray_open {
            egui::Panel::right("job_tray")
                .default_size(tokens::TRAY_WIDTH)
                .size_range(280.0..=560.0)
                .resizable(true)
                .show_separator_line(false)
                .frame(
                    egui::Frame::new()
                        .fill(tokens::BG_PANEL)
                        .stroke(Stroke::new(1.0, tokens::BORDER))
                        .inner_margin(egui::Margin::same(12)),
                )
                .show(ui, |ui| {
                    actions.extend(jobs::tray_ui(ui, &self.model, &self.textures, now_ms));
                });
        }

        let central_margin = if matches!(self.view, View::Library | View::Palettes) {
            0
        } else {
            24
        };
        let project = self.current_project();
        egui::CentralPanel::default()
            .frame(
                egui::Frame::new()
                    .fill(tokens::BG_APP)
                    .inner_margin(egui::Margin::symmetric(central_margin, 0)),
            )
            .show(ui, |ui| match self.view {
                View::Create => actions.extend(compose::compose_ui(
                    ui,
                    &self.model,
                    &mut self.compose,
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
                    &self.compose.cinematic,
                    &self.textures,
                )),
            });

        if let Some(state) = self.viewer {
            actions.extend(viewer::viewer_ui(&ctx, &self.model, state, &self.textures));
        }
        if let Some(confirm) = self.confirm.clone() {
            actions.extend(confirm_ui(&ctx, &confirm));
        }
        if self.keys.shortcuts_open {
            actions.extend(crate::ui::shortcuts::shortcuts_overlay_ui(&ctx));
        }
        let over_dialog = self.viewer.is_some() || self.confirm.is_some();
        actions.extend(toasts::toasts_ui(&ctx, &self.toasts, over_dialog));
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
        if !dropped.is_empty() {
            if palettes_view {
                for action in self.palettes.add_images(dropped) {
                    self.apply(ctx, action);
                }
            } else if library {
                let project = self.compose.project_id.clone();
                for action in self.library.upload_paths(dropped, project) {
                    self.apply(ctx, action);
                }
            } else {
                self.view = View::Create;
                self.add_source_files(dropped);
            }
        }
        if hovering && !palettes_view {
            drop_overlay_ui(ctx, library);
        }
    }

    /// Hand the grid's thumbnail wishes to the pipeline; drop queued work for tiles that
    /// scrolled away.
    fn request_thumbnails(&mut self) {
        let wishes = self.textures.take_thumbnail_wishes();
        let Some(pipeline) = self.thumbnails.as_ref() else {
            return;
        };
        for wish in &wishes {
            pipeline.request(
                &wish.item_id,
                &wish.url,
                wish.size_px,
                ThumbnailPriority::Visible,
            );
        }
        if self.view == View::Library {
            let size_px = self.library.thumb_request_px;
            for (item_id, url) in self.library.prefetch_thumbnails() {
                if !self.textures.thumbnail_settled(&item_id, size_px) {
                    pipeline.request(&item_id, &url, size_px, ThumbnailPriority::Nearby);
                }
            }
        }
        let key = if self.view == View::Library {
            (
                self.library.items.request_id(),
                self.library.visible.clone(),
            )
        } else {
            (0, 0..0)
        };
        if self.thumbnails_trimmed_for.as_ref() != Some(&key) {
            let keep = if self.view == View::Library {
                self.library.thumbnail_keep_ids()
            } else {
                Default::default()
            };
            pipeline.cancel_not_in(&keep);
            self.thumbnails_trimmed_for = Some(key);
        }
    }

    fn screenshot_data_ready(&self) -> bool {
        if self.frames_laid_out < 2 {
            return false;
        }
        let connection_settled = self.session.connection_error().is_some()
            || self.model.catalog.is_loaded()
            || self.model.credits.is_loaded();
        match self.view {
            View::Create => {
                self.session.connection_error().is_some()
                    || (self.model.catalog.is_loaded()
                        && self.model.projects.is_loaded()
                        && self.model.credits.is_loaded())
            }
            View::Library => {
                self.session.connection_error().is_some() || self.library.first_answers_in()
            }
            View::Palettes => {
                self.session.connection_error().is_some()
                    || self.model.palettes.error.is_some()
                    || (self.model.palettes.is_loaded() && !self.model.palettes.pending)
            }
            View::Presets => {
                self.session.connection_error().is_some()
                    || self.model.presets.error.is_some()
                    || (self.model.presets.is_loaded() && !self.model.presets.pending)
            }
            _ => connection_settled,
        }
    }
}

impl eframe::App for StudioApp {
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        if self.session.connection_epoch() != self.epoch {
            self.on_connection_changed();
        }
        while let Some(event) = self.session.try_recv() {
            self.handle_event(ctx, event);
        }
        self.poll_dialogs(ctx);
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
        if self.file_pick.is_some()
            || self.palette_pick.is_some()
            || !self.save_dialogs.is_empty()
            || self.download_pick.is_some()
        {
            ctx.request_repaint_after(Duration::from_millis(150));
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let ctx = ui.ctx().clone();
        self.textures.begin_frame();
        self.toasts.tick(ctx.input(|i| i.time));
        self.compose.normalize(&self.model);
        self.refresh_palettes_if_needed();
        if self.view == View::Library && self.session.connection_error().is_none() {
            for command in self.library.start() {
                self.send(command);
            }
        }

        let actions = self.layout(ui);
        self.handle_file_drops(&ctx);
        for action in actions {
            self.apply(&ctx, action);
        }
        if self.view == View::Library {
            for command in self.library.page_commands() {
                self.send(command);
            }
        }
        self.request_thumbnails();
        for (url, max_side_px) in self.textures.take_wanted() {
            self.send(Command::LoadImage { url, max_side_px });
        }
        if self.model.running_count() > 0 {
            ctx.request_repaint_after(Duration::from_secs(1));
        }
        self.after_frame(&ctx);
        self.frames_laid_out += 1;
        let ready = self.screenshot_data_ready();
        if let Some(screenshot) = self.screenshot.as_mut() {
            screenshot.update(&ctx, ready);
        }
    }

    fn on_exit(&mut self, _gl: Option<&eframe::glow::Context>) {
        self.store_window_on_exit();
        if let Some(pipeline) = self.thumbnails.take() {
            pipeline.shutdown();
        }
        self.session.shutdown();
    }
}

/// The thumbnail pipeline under the cache folder; without it the grid shows placeholders.
fn start_thumbnails(ctx: &egui::Context, session: &Session) -> Option<ThumbnailPipeline> {
    let repaint_ctx = ctx.clone();
    let config = ThumbnailConfig::new(
        Some(session.paths().cache_dir.join("thumbnails")),
        std::sync::Arc::new(move || repaint_ctx.request_repaint()),
    );
    match ThumbnailPipeline::new(config) {
        Ok(pipeline) => Some(pipeline),
        Err(error) => {
            tracing::warn!("library thumbnails disabled: {error}");
            None
        }
    }
}

fn file_name(path: &std::path::Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

fn confirm_ui(ctx: &egui::Context, confirm: &Confirm) -> Vec<Action> {
    let mut actions = Vec::new();
    let delete_body;
    let title_text;
    let (title, body, yes) = match confirm {
        Confirm::DeletePalette { name, .. } => {
            delete_body = format!(
                "“{name}” is removed from your library and every project it grades loses \
                 its colour grade. This can't be undone."
            );
            (
                "Delete this palette?",
                delete_body.as_str(),
                "Delete palette",
            )
        }
        Confirm::Retry(_) => (
            "Retry this job?",
            "This submits a new job and will be billed again. Continue?",
            "Submit new job",
        ),
        Confirm::RemoveProfile { name, .. } => {
            title_text = format!("Remove “{name}” and its stored API key?");
            delete_body = settings::remove_profile_body(name);
            (title_text.as_str(), delete_body.as_str(), "Remove profile")
        }
        Confirm::Quit { running_jobs } => {
            delete_body = crate::ui::shortcuts::quit_body(*running_jobs);
            ("Quit Framewright?", delete_body.as_str(), "Quit")
        }
        Confirm::SubmitAgain(_) => (
            "Submit again?",
            "The first submission may have reached the service. Submitting again may bill \
             twice. Prefer “Check again” unless you are sure it did not arrive. Continue?",
            "Submit again",
        ),
    };
    let response = egui::Modal::new(egui::Id::unique("confirm_dialog"))
        .backdrop_color(tokens::SCRIM)
        .frame(tokens::card_frame().inner_margin(egui::Margin::same(20)))
        .show(ctx, |ui| {
            ui.set_width(400.0);
            ui.label(
                RichText::new(title)
                    .size(tokens::TEXT_TITLE)
                    .strong()
                    .color(tokens::TEXT),
            );
            ui.add_space(tokens::SPACE_XS);
            ui.label(RichText::new(body).color(tokens::TEXT_MUTED));
            ui.add_space(tokens::SPACE_M);
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let button = if matches!(
                    confirm,
                    Confirm::DeletePalette { .. } | Confirm::RemoveProfile { .. }
                ) {
                    widgets::danger_button(yes)
                } else {
                    widgets::primary_button(yes)
                };
                if ui.add(button).clicked() {
                    actions.push(Action::Confirmed(confirm.clone()));
                }
                if ui.add(widgets::secondary_button("Cancel")).clicked() {
                    actions.push(Action::CancelConfirm);
                }
            });
        });
    if response.should_close() && actions.is_empty() {
        actions.push(Action::CancelConfirm);
    }
    actions
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
    painter.rect_filled(rect, 0.0, tokens::SCRIM);
    let inner = rect.shrink(tokens::SPACE_L);
    painter.rect_stroke(
        inner,
        egui::CornerRadius::same(tokens::RADIUS_L),
        Stroke::new(2.0, tokens::ACCENT),
        egui::StrokeKind::Inside,
    );
    painter.text(
        rect.center() - egui::vec2(0.0, 14.0),
        egui::Align2::CENTER_CENTER,
        title,
        egui::FontId::proportional(22.0),
        tokens::TEXT,
    );
    painter.text(
        rect.center() + egui::vec2(0.0, 16.0),
        egui::Align2::CENTER_CENTER,
        body,
        egui::FontId::proportional(13.5),
        tokens::TEXT_MUTED,
    );
}
