//! The studio's runtime model (what the service told us) and the actions panels emit.
//! Panels read the model during layout and return [`Action`]s; the app shell applies them
//! after layout. Only the shell mutates the model.

use crate::api::{CinematicPresets, ColorPalette, Credits, ModelRecord, Project};
use crate::engine::{Command, JobPhase, JobRecord, LocalJobId};
use std::collections::{BTreeMap, HashSet};

/// Which screen the rail shows.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum View {
    #[default]
    Create,
    Library,
    Palettes,
    VisualDna,
    Presets,
    Docs,
    Chat,
    Settings,
}

impl View {
    pub const ALL: [View; 8] = [
        View::Create,
        View::Library,
        View::Palettes,
        View::VisualDna,
        View::Presets,
        View::Docs,
        View::Chat,
        View::Settings,
    ];

    pub fn label(self) -> &'static str {
        match self {
            View::Create => "Create",
            View::Library => "Library",
            View::Palettes => "Palettes",
            View::VisualDna => "Visual DNA",
            View::Presets => "Presets",
            View::Docs => "Docs",
            View::Chat => "Chat",
            View::Settings => "Settings",
        }
    }

    pub fn icon(self) -> crate::ui::icons::Icon {
        use crate::ui::icons::Icon;
        match self {
            View::Create => Icon::Create,
            View::Library => Icon::Library,
            View::Palettes => Icon::Palettes,
            View::VisualDna => Icon::VisualDna,
            View::Presets => Icon::Presets,
            View::Docs => Icon::Docs,
            View::Chat => Icon::Chat,
            View::Settings => Icon::Settings,
        }
    }
}

impl std::str::FromStr for View {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "create" => Ok(View::Create),
            "library" => Ok(View::Library),
            "palettes" => Ok(View::Palettes),
            "visual-dna" | "visual dna" | "visual_dna" | "visualdna" => Ok(View::VisualDna),
            "presets" => Ok(View::Presets),
            "docs" => Ok(View::Docs),
            "chat" => Ok(View::Chat),
            "settings" => Ok(View::Settings),
            other => Err(format!(
                "unknown view “{other}”: expected create, library, palettes, visual-dna, presets, docs, \
                 chat or settings"
            )),
        }
    }
}

/// A one-shot fetch: keeps the previous value while a refresh is pending.
#[derive(Clone, Debug)]
pub struct Requested<T> {
    pub value: Option<T>,
    pub pending: bool,
    pub error: Option<String>,
}

impl<T> Default for Requested<T> {
    fn default() -> Self {
        Self {
            value: None,
            pending: false,
            error: None,
        }
    }
}

impl<T> Requested<T> {
    pub fn request(&mut self) {
        self.pending = true;
    }
    pub fn set(&mut self, result: Result<T, String>) {
        self.pending = false;
        match result {
            Ok(value) => {
                self.value = Some(value);
                self.error = None;
            }
            Err(error) => self.error = Some(error),
        }
    }
    pub fn is_loaded(&self) -> bool {
        self.value.is_some()
    }
}

/// Confirmations that guard a billed action.
#[derive(Clone, Debug, PartialEq)]
pub enum Confirm {
    /// Retry a failed job: a new, billed job.
    Retry(LocalJobId),
    /// Submit an unconfirmed job again: may bill twice.
    SubmitAgain(LocalJobId),
    /// Delete a palette (clears the grade of every project using it).
    DeletePalette { id: String, name: String },
    /// Delete a Visual DNA, one of its folders, or a moodboard.
    Looks(crate::ui::visual_dna::LooksConfirm),
    /// Vary a result: the same settings with a new seed, a new billed job costing about
    /// `credits` (`None`: the price is unknown).
    Vary {
        result: ResultRef,
        credits: Option<f64>,
    },
    /// Remove a service profile and its stored API key.
    RemoveProfile { id: String, name: String },
    /// Quit while jobs are running (they resume next start).
    Quit { running_jobs: usize },
    /// Delete the cache's files (`bytes`: its size as last measured).
    ClearCache { bytes: Option<u64> },
}

/// One finished result, wherever it is shown (Create canvas, viewer, tray, library).
#[derive(Clone, Debug, PartialEq)]
pub enum ResultRef {
    /// Output `index` of a job in the tray (this run's or restored from the journal).
    Job { local_id: LocalJobId, index: usize },
    /// A media-library item.
    Media(Box<crate::api::media::MediaItem>),
}

/// What an artist can do with a finished result. The Create canvas, the viewer, the tray
/// and the library emit these; `ui/results.rs` applies them.
#[derive(Clone, Debug, PartialEq)]
pub enum ResultAction {
    /// Open the in-app viewer on `list[index]`; the arrows step through `list`.
    Open {
        list: Vec<ResultRef>,
        index: usize,
    },
    /// Put the result's prompt and settings (model, aspect, resolution, count, cinematic)
    /// back into the Create form and show Create.
    Reuse(ResultRef),
    /// Switch Create to Image edit with this result as the source image.
    UseAsEditSource(ResultRef),
    /// Switch Create to Image → video with this image as the one to animate.
    Animate(ResultRef),
    /// Switch Create to Video edit with this video as the source (`trim`: the Trim
    /// choice, else the edit operations).
    EditVideo {
        result: ResultRef,
        trim: bool,
    },
    /// Same settings, new seed: asks first (a new billed job, with its cost).
    Vary(ResultRef),
    SetFavourite {
        result: ResultRef,
        favourite: bool,
    },
    /// Move to the library's Trash (with Undo).
    Trash(ResultRef),
    /// The result as a local file for the desktop: reveal it in the file manager, copy it
    /// to the clipboard as a file, or drag it out (downloaded first when needed).
    FileOut {
        result: ResultRef,
        purpose: crate::engine::FileOutPurpose,
    },
    /// Transcribe a video or sound result: a job at once with the default options (its
    /// cost per started minute is small and shown on the viewer's button), and the viewer
    /// opens on the result so the transcript appears beside it.
    Transcribe(ResultRef),
    /// Upscale or remove the background of an image result: a new job at once (the
    /// button shows its cost).
    ImageTool {
        result: ResultRef,
        tool: crate::api::ImageTool,
    },
}

/// Everything a panel can ask for. Applied by the shell after layout.
#[derive(Debug)]
pub enum Action {
    /// Hand a command to the engine.
    Send(Box<Command>),
    Navigate(View),
    /// Validate the compose form and submit it.
    SubmitCompose,
    ToggleTray,
    OpenViewer {
        local_id: LocalJobId,
        index: usize,
    },
    CloseViewer,
    CopyUrl(String),
    /// Put `text` on the clipboard; the toast names it (`what`: "Prompt", "Hex value").
    CopyText {
        text: String,
        what: String,
    },
    /// Quit the studio (asks first while jobs are running).
    Quit,
    /// Show or hide the keyboard shortcuts overlay.
    ShowShortcuts(bool),
    /// Theme, UI scale and the first-run welcome (`ui::appearance`).
    Appearance(crate::ui::appearance::AppearanceAction),
    /// Ask where to save `url` (dialog off the UI thread), then download it there.
    SaveAs {
        url: String,
    },
    /// Ask where to save text made in the studio (a transcript's export), then write it.
    SaveText {
        file_name: String,
        contents: String,
    },
    /// Ask where to save a WAV copy of the sound at `url`, then have the engine write it.
    SaveAsWav {
        url: String,
    },
    /// Open the file dialog for image-edit sources.
    PickSourceFiles,
    /// Open the file dialog for the video to edit.
    PickSourceVideo,
    /// Open the file dialog for the sound or video to transcribe.
    PickTranscriptionSource,
    /// Open the file dialog for one media slot of Elements, First and last frame or Lip
    /// sync.
    PickMotionFiles(crate::ui::compose::motion_form::SlotTarget),
    /// Open the file dialog for the 3D model's images.
    PickThreeDImages,
    AddSourceUrl(String),
    RemoveSource(usize),
    /// Play this job output's video in place on the Create canvas (`None`: stop).
    PlayOnCanvas(Option<(crate::engine::LocalJobId, usize)>),
    SelectProject(String),
    CreateProject(String),
    Ask(Confirm),
    Confirmed(Confirm),
    CancelConfirm,
    ActivateProfile(String),
    /// A Settings change or check the shell applies (it owns the session).
    Settings(crate::ui::settings::SettingsAction),
    AddProfile,
    SaveProfile(String),
    RemoveProfile(String),
    /// The toast's close button: it goes, and its expiry action (if any) runs.
    DismissToast(u64),
    /// The toast's own button (Undo): its action runs instead of its expiry action.
    PressToast(u64),
    /// A toast offering Undo; its commit runs when it goes without Undo.
    UndoToast(crate::ui::toasts::UndoToast),
    /// A Library panel action, applied by [`crate::ui::library::LibraryState::apply`].
    Library(crate::ui::library::LibraryAction),
    Toast(crate::ui::toasts::ToastKind, String),
    /// A toast with one button that runs an action (e.g. "Undo").
    ToastWithAction {
        kind: crate::ui::toasts::ToastKind,
        text: String,
        label: String,
        action: crate::ui::toasts::ToastAction,
    },
    /// Put this prompt into Create and switch there.
    ReusePrompt(String),
    /// Remember the project Create submits into for the next start.
    RememberProject(String),
    /// Ask for a folder (dialog off the UI thread), then download these items into it.
    PickDownloadFolder(Vec<crate::engine::protocol::DownloadItem>),
    /// A Palettes panel action, applied by [`crate::ui::palettes::PalettesState::apply`].
    Palette(crate::ui::palettes::PaletteAction),
    /// A Visual DNA panel action, applied by [`crate::ui::visual_dna::LooksState::apply`].
    Looks(crate::ui::visual_dna::LooksAction),
    /// A Docs panel action, applied by [`crate::ui::docs::DocsState::apply`].
    Docs(crate::ui::docs::DocsAction),
    /// The projects dialog, applied by [`crate::ui::projects::ProjectsState::apply`].
    Projects(crate::ui::projects::ProjectsAction),
    /// Open the file dialog for palette reference images.
    PickPaletteImages,
    /// Open the file dialog for images to attach to a chat message.
    PickChatImages,
    /// Something done to a finished result; see [`ResultAction`].
    Result(ResultAction),
    /// Choose a cinematic preset for Create (`None` = Auto for that dimension).
    SelectPreset {
        dimension: String,
        preset_id: Option<String>,
    },
}

/// What the service has told us, for the active connection.
#[derive(Default)]
pub struct Model {
    pub catalog: Requested<Vec<ModelRecord>>,
    pub projects: Requested<Vec<Project>>,
    pub credits: Requested<Credits>,
    /// Jobs by local id (ascending = submission order).
    pub jobs: BTreeMap<LocalJobId, JobRecord>,
    /// Jobs that came from the journal at start (not submitted in this run).
    pub restored: HashSet<LocalJobId>,
    pub jobs_restored: bool,
    /// Personal and organisation palettes; `is_active` is relative to `palettes_project`.
    pub palettes: Requested<Vec<ColorPalette>>,
    /// The project the palette list was asked for (its grade is marked active).
    pub palettes_project: Option<String>,
    /// Cinematic presets by dimension (cached on disk, revalidated at start).
    pub presets: Requested<CinematicPresets>,
    /// Whether the service answers (set from the engine's reachability events).
    pub service: crate::ui::offline::ServiceStatus,
}

impl Model {
    /// Jobs newest first (the tray's order).
    pub fn tray_jobs(&self) -> impl Iterator<Item = &JobRecord> {
        self.jobs.values().rev()
    }

    pub fn running_count(&self) -> usize {
        self.jobs
            .values()
            .filter(|j| !j.phase.is_finished())
            .count()
    }

    pub fn models_of_kind(&self, catalog_type: &str) -> Vec<&ModelRecord> {
        self.catalog
            .value
            .as_deref()
            .unwrap_or_default()
            .iter()
            .filter(|m| m.has_type(catalog_type))
            .collect()
    }

    pub fn model_by_id(&self, identifier: &str) -> Option<&ModelRecord> {
        self.catalog
            .value
            .as_deref()?
            .iter()
            .find(|m| m.identifier == identifier)
    }

    pub fn project_name(&self, id: &str) -> Option<&str> {
        self.projects
            .value
            .as_deref()?
            .iter()
            .find(|p| p.id == id)
            .map(|p| p.name.as_str())
    }

    pub fn default_project(&self) -> Option<&Project> {
        let projects = self.projects.value.as_deref()?;
        projects
            .iter()
            .find(|p| p.is_default == Some(true))
            .or_else(|| projects.first())
    }

    /// The palette grading `project_id`, when the list was loaded for that project.
    pub fn active_palette(&self, project_id: Option<&str>) -> Option<&ColorPalette> {
        let project_id = project_id?;
        if self.palettes_project.as_deref() != Some(project_id) {
            return None;
        }
        self.palettes.value.as_deref()?.iter().find(|p| p.is_active)
    }

    /// A preset by dimension and id.
    pub fn preset(&self, dimension: &str, preset_id: &str) -> Option<&crate::api::CinematicPreset> {
        self.presets
            .value
            .as_ref()?
            .get(dimension)?
            .iter()
            .find(|p| p.id == preset_id)
    }

    /// A job changed. Returns the previous phase if the job was known.
    pub fn upsert_job(&mut self, record: JobRecord) -> Option<JobPhase> {
        self.jobs
            .insert(record.local_id, record)
            .map(|old| old.phase)
    }
}
