//! The Visual DNA panel's state and logic (no egui): the Visual DNA list with its search,
//! type and folder filters, the detail pane, the create / edit form and its field checks,
//! folders, the moodboards and their form. Answers come in through `handle_*_event`;
//! what the panel asks for goes out as [`Action`]s.

use crate::api::ApiError;
use crate::api::moodboards::{
    MOODBOARD_MAX_IMAGES, MOODBOARD_MIN_IMAGES, MOODBOARD_NAME_MAX_CHARS,
    MOODBOARD_STYLE_GUIDE_MAX_CHARS, Moodboard, MoodboardFields,
};
use crate::api::visual_dna::{
    DnaType, NewVisualDna, VISUAL_DNA_MAX_IMAGES, VISUAL_DNA_MIN_IMAGES, VISUAL_DNA_NAME_MAX_CHARS,
    VisualDna, VisualDnaFolder, VisualDnaUpdate,
};
use crate::engine::error_in_words;
use crate::engine::{Command, MoodboardCommand, MoodboardEvent, VisualDnaCommand, VisualDnaEvent};
use crate::ui::model::Action;
use crate::ui::toasts::ToastKind;
use std::path::{Path, PathBuf};

/// Which tab the panel shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LooksTab {
    #[default]
    VisualDna,
    Moodboards,
}

/// Which entries the grid shows by folder.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum FolderFilter {
    #[default]
    All,
    Folder(String),
}

/// An error to show once: the sentence for a person, the raw error under Details.
#[derive(Clone, Debug, PartialEq)]
pub struct ShownError {
    pub message: String,
    pub details: String,
}

impl ShownError {
    pub fn of(what: &str, error: &ApiError) -> Self {
        tracing::warn!("{what}: {error}");
        Self {
            message: format!("{what}: {}", error_in_words(error)),
            details: error.to_string(),
        }
    }
}

/// One image of a form: a local file or a web address.
#[derive(Clone, Debug, PartialEq)]
pub enum FormImage {
    File(PathBuf),
    Url(String),
}

impl FormImage {
    pub fn label(&self) -> String {
        match self {
            FormImage::File(path) => path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| path.display().to_string()),
            FormImage::Url(url) => url
                .rsplit('/')
                .find(|s| !s.is_empty())
                .unwrap_or(url)
                .to_owned(),
        }
    }
    /// What the texture cache loads for a preview.
    pub fn preview_url(&self) -> String {
        match self {
            FormImage::File(path) => crate::file_url::file_url(path),
            FormImage::Url(url) => url.clone(),
        }
    }
    /// As the engine takes it: a path, or the URL (downloaded / sent as it is).
    fn as_entry(&self) -> String {
        match self {
            FormImage::File(path) => path.display().to_string(),
            FormImage::Url(url) => url.clone(),
        }
    }
}

/// Whether a dropped or picked file looks like an image we can send.
pub fn is_image_file(path: &Path) -> bool {
    crate::ui::dialogs::is_image_path(path)
}

fn is_web_url(text: &str) -> bool {
    let lower = text.trim().to_ascii_lowercase();
    (lower.starts_with("http://") || lower.starts_with("https://")) && lower.len() > 8
}

/// The create / edit form of a Visual DNA.
#[derive(Clone, Debug, PartialEq)]
pub struct DnaForm {
    /// `Some(id)`: editing that entry (images cannot change); `None`: a new one.
    pub editing: Option<String>,
    pub name: String,
    pub dna_type: DnaType,
    pub prompt_helper: String,
    pub images: ImageList,
    /// Field errors show once Save was pressed (not while typing the first letters).
    pub show_errors: bool,
    pub sending: bool,
    pub error: Option<ShownError>,
}

impl Default for DnaForm {
    fn default() -> Self {
        Self {
            editing: None,
            name: String::new(),
            dna_type: DnaType::default(),
            prompt_helper: String::new(),
            images: ImageList::new(VISUAL_DNA_MAX_IMAGES, "Visual DNA"),
            show_errors: false,
            sending: false,
            error: None,
        }
    }
}

/// The fields a form's check can point at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormField {
    Name,
    Images,
    StyleGuide,
}

impl DnaForm {
    pub fn is_new(&self) -> bool {
        self.editing.is_none()
    }

    /// Field errors, each at its field.
    pub fn problems(&self) -> Vec<(FormField, String)> {
        let mut problems = Vec::new();
        let name_chars = self.name.trim().chars().count();
        if name_chars == 0 {
            problems.push((FormField::Name, "Give it a name.".to_owned()));
        } else if name_chars > VISUAL_DNA_NAME_MAX_CHARS {
            problems.push((
                FormField::Name,
                format!("At most {VISUAL_DNA_NAME_MAX_CHARS} characters ({name_chars} now)."),
            ));
        }
        if self.is_new() {
            let count = self.images.len();
            if count < VISUAL_DNA_MIN_IMAGES {
                problems.push((
                    FormField::Images,
                    "Add at least one image (up to four): drop them here, choose files or \
                     paste an image address."
                        .to_owned(),
                ));
            } else if count > VISUAL_DNA_MAX_IMAGES {
                problems.push((
                    FormField::Images,
                    format!(
                        "At most {VISUAL_DNA_MAX_IMAGES} images; remove {}.",
                        count - 4
                    ),
                ));
            }
        }
        problems
    }

    pub fn problem(&self, field: FormField) -> Option<String> {
        if !self.show_errors {
            return None;
        }
        self.problems()
            .into_iter()
            .find(|(f, _)| *f == field)
            .map(|(_, m)| m)
    }
}

/// The images of a form (a Visual DNA's or a moodboard's): files and web addresses, the
/// address being typed, and the note about what was refused. `max` and `owner` ("Visual
/// DNA", "moodboard") are the form's limit and what the refusals call it.
#[derive(Clone, Debug, PartialEq)]
pub struct ImageList {
    pub items: Vec<FormImage>,
    pub url_input: String,
    /// Images refused when added (not images, too many), said once under the images.
    pub note: Option<String>,
    max: usize,
    owner: &'static str,
}

impl ImageList {
    pub fn new(max: usize, owner: &'static str) -> Self {
        Self {
            items: Vec::new(),
            url_input: String::new(),
            note: None,
            max,
            owner,
        }
    }
    /// The same list holding `items` (an edited moodboard's images).
    pub fn with(mut self, items: Vec<FormImage>) -> Self {
        self.items = items;
        self
    }
    pub fn max(&self) -> usize {
        self.max
    }
    pub fn len(&self) -> usize {
        self.items.len()
    }
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    pub fn is_full(&self) -> bool {
        self.items.len() >= self.max
    }

    /// Add files; non-images and those past `max` are refused with a note.
    pub fn add_files(&mut self, paths: Vec<PathBuf>) {
        let mut refused = Vec::new();
        for path in paths {
            if !is_image_file(&path) {
                refused.push(format!(
                    "{} is not an image",
                    FormImage::File(path.clone()).label()
                ));
            } else if self.is_full() {
                refused.push(format!(
                    "{} was not added: a {} takes at most {} images",
                    FormImage::File(path.clone()).label(),
                    self.owner,
                    self.max
                ));
            } else if !self.items.contains(&FormImage::File(path.clone())) {
                self.items.push(FormImage::File(path));
            }
        }
        self.note = (!refused.is_empty()).then(|| refused.join("; "));
    }

    /// Add the address typed in the URL field: a web address, or a file's path (or
    /// `file://` URL), which is added as a file.
    pub fn add_url(&mut self) {
        let url = self.url_input.trim().to_owned();
        if let Some(path) = crate::file_url::typed_local_path(&url) {
            self.add_files(vec![path]);
            if self.note.is_none() {
                self.url_input.clear();
            }
            return;
        }
        if !is_web_url(&url) {
            self.note = Some(TYPED_ADDRESS_HINT.into());
            return;
        }
        if self.is_full() {
            self.note = Some(format!(
                "A {} takes at most {} images",
                self.owner, self.max
            ));
            return;
        }
        self.items.push(FormImage::Url(url));
        self.url_input.clear();
        self.note = None;
    }

    /// A refusal that names one of this list's files ("bomb.png: the picture is …", from
    /// the engine's look at a file before sending) goes under the images as their note,
    /// where the person fixes it. `false`: the error is not about one of them.
    pub fn take_refusal(&mut self, error: &ApiError) -> bool {
        let ApiError::Invalid(message) = error else {
            return false;
        };
        let names_one_of_ours = self.items.iter().any(|item| {
            matches!(item, FormImage::File(_))
                && message.starts_with(&format!("{}: ", item.label()))
        });
        if names_one_of_ours {
            tracing::info!("image refused before sending: {message}");
            self.note = Some(format!("Not sent: {message}"));
        }
        names_one_of_ours
    }

    /// Remove the image at `index` (out of range: nothing), and the note with it.
    pub fn remove(&mut self, index: usize) {
        if index < self.items.len() {
            self.items.remove(index);
            self.note = None;
        }
    }

    /// As the engine takes them: paths, or URLs (downloaded / sent as they are).
    fn entries(&self) -> impl Iterator<Item = String> + '_ {
        self.items.iter().map(FormImage::as_entry)
    }
}

const TYPED_ADDRESS_HINT: &str = "Paste an image address (https://…) or a file's path";

/// The create / edit form of a moodboard.
#[derive(Clone, Debug, PartialEq)]
pub struct BoardForm {
    pub editing: Option<String>,
    pub name: String,
    pub style_guide: String,
    pub images: ImageList,
    pub show_errors: bool,
    pub sending: bool,
    pub error: Option<ShownError>,
}

impl Default for BoardForm {
    fn default() -> Self {
        Self {
            editing: None,
            name: String::new(),
            style_guide: String::new(),
            images: ImageList::new(MOODBOARD_MAX_IMAGES, "moodboard"),
            show_errors: false,
            sending: false,
            error: None,
        }
    }
}

impl BoardForm {
    pub fn style_guide_chars(&self) -> usize {
        self.style_guide.trim().chars().count()
    }

    pub fn problems(&self) -> Vec<(FormField, String)> {
        let mut problems = Vec::new();
        let name_chars = self.name.trim().chars().count();
        if name_chars == 0 {
            problems.push((FormField::Name, "Give it a name.".to_owned()));
        } else if name_chars > MOODBOARD_NAME_MAX_CHARS {
            problems.push((
                FormField::Name,
                format!("At most {MOODBOARD_NAME_MAX_CHARS} characters ({name_chars} now)."),
            ));
        }
        let count = self.images.len();
        if count < MOODBOARD_MIN_IMAGES {
            problems.push((
                FormField::Images,
                "Add at least one image (up to 15).".to_owned(),
            ));
        } else if count > MOODBOARD_MAX_IMAGES {
            problems.push((
                FormField::Images,
                format!(
                    "At most {MOODBOARD_MAX_IMAGES} images; remove {}.",
                    count - MOODBOARD_MAX_IMAGES
                ),
            ));
        }
        let guide = self.style_guide_chars();
        if guide > MOODBOARD_STYLE_GUIDE_MAX_CHARS {
            problems.push((
                FormField::StyleGuide,
                format!(
                    "At most {MOODBOARD_STYLE_GUIDE_MAX_CHARS} characters; {} too many.",
                    guide - MOODBOARD_STYLE_GUIDE_MAX_CHARS
                ),
            ));
        }
        problems
    }

    pub fn problem(&self, field: FormField) -> Option<String> {
        if !self.show_errors {
            return None;
        }
        self.problems()
            .into_iter()
            .find(|(f, _)| *f == field)
            .map(|(_, m)| m)
    }

    fn fields(&self) -> MoodboardFields {
        MoodboardFields {
            name: self.name.trim().to_owned(),
            images: self.images.entries().collect(),
            style_guide: Some(self.style_guide.trim().to_owned()),
        }
    }
}

/// The folder being named (new or renamed).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FolderForm {
    /// `Some(id)`: renaming that folder.
    pub renaming: Option<String>,
    pub name: String,
    pub sending: bool,
    pub error: Option<String>,
}

/// Something deleted only after a yes.
#[derive(Clone, Debug, PartialEq)]
pub enum LooksConfirm {
    DeleteVisualDna { id: String, name: String },
    DeleteFolder { id: String, name: String },
    DeleteMoodboard { id: String, name: String },
}

impl LooksConfirm {
    /// Title, body and button of the question.
    pub fn wording(&self) -> (String, String, &'static str) {
        match self {
            LooksConfirm::DeleteVisualDna { name, .. } => (
                "Delete this Visual DNA?".to_owned(),
                format!(
                    "“{name}” is removed for good. Jobs already made with it keep their \
                     pictures; new jobs can no longer use it."
                ),
                "Delete Visual DNA",
            ),
            LooksConfirm::DeleteFolder { name, .. } => (
                "Delete this folder?".to_owned(),
                format!(
                    "The folder “{name}” is removed. The Visual DNA in it are kept and go \
                     back to no folder."
                ),
                "Delete folder",
            ),
            LooksConfirm::DeleteMoodboard { name, .. } => (
                "Delete this moodboard?".to_owned(),
                format!(
                    "“{name}” is removed for good. Pictures already made with it stay in \
                     the Library."
                ),
                "Delete moodboard",
            ),
        }
    }
}

/// What the panel asks for; applied by [`LooksState::apply`] after layout.
#[derive(Clone, Debug, PartialEq)]
pub enum LooksAction {
    Tab(LooksTab),
    Reload,
    Select(String),
    CloseDetail,
    NewDna,
    EditDna(String),
    CancelDnaForm,
    SaveDnaForm,
    AddDnaImages(Vec<PathBuf>),
    AddDnaUrl,
    RemoveDnaImage(usize),
    /// Open the file dialog for the open form's images.
    PickImages,
    MoveToFolder {
        id: String,
        folder_id: Option<String>,
    },
    AskDelete(LooksConfirm),
    /// The question was answered yes.
    Confirmed(LooksConfirm),
    ShowFolder(FolderFilter),
    NewFolder,
    RenameFolder(String),
    CancelFolderForm,
    SaveFolderForm,
    /// Switch to Create with this Visual DNA picked.
    UseInCreate(String),
    SelectBoard(String),
    CloseBoard,
    NewBoard,
    EditBoard(String),
    CancelBoardForm,
    SaveBoardForm,
    AddBoardUrl,
    RemoveBoardImage(usize),
    /// Switch to the Library filtered by this moodboard.
    ShowBoardInLibrary {
        id: String,
        name: String,
    },
}

/// Panel-level outcomes the app routes (other panels, dialogs, the confirm modal).
#[derive(Clone, Debug, PartialEq)]
pub enum LooksRoute {
    PickImages,
    Ask(LooksConfirm),
    UseInCreate(String),
    ShowBoardInLibrary { id: String, name: String },
}

/// Everything the Visual DNA panel keeps.
#[derive(Debug, Default)]
pub struct LooksState {
    pub tab: LooksTab,
    pub entries: Vec<VisualDna>,
    pub entries_loaded: bool,
    pub entries_pending: bool,
    pub entries_error: Option<ShownError>,
    pub folders: Vec<VisualDnaFolder>,
    pub folders_error: Option<ShownError>,
    pub folder_filter: FolderFilter,
    pub search: String,
    pub type_filter: Option<DnaType>,
    pub selected: Option<String>,
    /// The selected entry with its description and system prompt (from GET /:id).
    pub detail: Option<VisualDna>,
    pub form: Option<DnaForm>,
    pub folder_form: Option<FolderForm>,
    pub boards: Vec<Moodboard>,
    pub boards_loaded: bool,
    pub boards_pending: bool,
    pub boards_error: Option<ShownError>,
    pub board_selected: Option<String>,
    pub board_form: Option<BoardForm>,
    /// The id of the entry just created: selected once the list has it.
    pub created_id: Option<String>,
    /// Entries that were building at the last list (to say when one becomes ready).
    building: Vec<String>,
    /// The panel was shown (its first lists were asked for).
    pub shown_once: bool,
}

fn send(command: Command) -> Action {
    Action::Send(Box::new(command))
}

fn dna(command: VisualDnaCommand) -> Action {
    send(Command::VisualDna(command))
}

fn board(command: MoodboardCommand) -> Action {
    send(Command::Moodboards(command))
}

impl LooksState {
    /// The panel is shown: ask for what it has not loaded yet.
    pub fn on_shown(&mut self) -> Vec<Action> {
        if self.shown_once {
            return Vec::new();
        }
        self.shown_once = true;
        self.reload()
    }

    pub fn reload(&mut self) -> Vec<Action> {
        self.entries_pending = true;
        self.boards_pending = true;
        vec![
            dna(VisualDnaCommand::List),
            dna(VisualDnaCommand::ListFolders),
            board(MoodboardCommand::List),
        ]
    }

    /// The entries the grid shows: folder, type and search filters applied (globals first,
    /// as listed).
    pub fn visible_entries(&self) -> Vec<&VisualDna> {
        let search = self.search.trim().to_lowercase();
        self.entries
            .iter()
            .filter(|e| match &self.folder_filter {
                FolderFilter::All => true,
                FolderFilter::Folder(id) => e.folder_id.as_deref() == Some(id.as_str()),
            })
            .filter(|e| self.type_filter.is_none_or(|t| e.kind() == Some(t)))
            .filter(|e| {
                search.is_empty()
                    || e.name.to_lowercase().contains(&search)
                    || e.description
                        .as_deref()
                        .is_some_and(|d| d.to_lowercase().contains(&search))
            })
            .collect()
    }

    pub fn entry(&self, id: &str) -> Option<&VisualDna> {
        self.entries.iter().find(|e| e.id == id)
    }

    /// The selected entry: the detail answer when it is about it, else the list's entry.
    pub fn selected_entry(&self) -> Option<&VisualDna> {
        let id = self.selected.as_deref()?;
        let listed = self.entry(id);
        match &self.detail {
            Some(detail) if detail.id == id => {
                // The list is newer about status (the building poll); the detail has text.
                if listed.is_some_and(|l| l.status != detail.status) {
                    listed
                } else {
                    Some(detail)
                }
            }
            _ => listed,
        }
    }

    pub fn folder_name(&self, id: &str) -> Option<&str> {
        self.folders
            .iter()
            .find(|f| f.id == id)
            .map(|f| f.name.as_str())
    }

    pub fn board(&self, id: &str) -> Option<&Moodboard> {
        self.boards.iter().find(|b| b.id == id)
    }

    /// Files dropped on the panel go to the open form (a new Visual DNA's or a
    /// moodboard's); with no form open, they start one on the current tab.
    pub fn add_dropped(&mut self, paths: Vec<PathBuf>) -> Vec<Action> {
        match self.tab {
            LooksTab::VisualDna => {
                let form = match &mut self.form {
                    Some(form) if form.is_new() => form,
                    Some(_) => return Vec::new(),
                    None => self.form.insert(DnaForm::default()),
                };
                form.images.add_files(paths);
            }
            LooksTab::Moodboards => {
                let form = self.board_form.get_or_insert_with(BoardForm::default);
                form.images.add_files(paths);
            }
        }
        Vec::new()
    }

    /// Picked files (the file dialog) go where dropped ones go.
    pub fn add_picked(&mut self, paths: Vec<PathBuf>) -> Vec<Action> {
        self.add_dropped(paths)
    }

    /// Apply an action; returns what the app does next (commands, toasts) and routes.
    pub fn apply(&mut self, action: LooksAction) -> (Vec<Action>, Option<LooksRoute>) {
        let mut out = Vec::new();
        let mut route = None;
        match action {
            LooksAction::Tab(tab) => self.tab = tab,
            LooksAction::Reload => out = self.reload(),
            LooksAction::Select(id) => {
                if self.selected.as_deref() != Some(id.as_str()) {
                    self.selected = Some(id.clone());
                    out.push(dna(VisualDnaCommand::Get { id }));
                }
            }
            LooksAction::CloseDetail => self.selected = None,
            LooksAction::NewDna => self.form = Some(DnaForm::default()),
            LooksAction::EditDna(id) => {
                if let Some(entry) = self.entry(&id).filter(|e| !e.is_global()) {
                    let helper = self
                        .detail
                        .as_ref()
                        .filter(|d| d.id == id)
                        .and_then(|d| d.prompt_helper.clone())
                        .or_else(|| entry.prompt_helper.clone());
                    self.form = Some(DnaForm {
                        editing: Some(id),
                        name: entry.name.clone(),
                        dna_type: entry.kind().unwrap_or_default(),
                        prompt_helper: helper.unwrap_or_default(),
                        ..DnaForm::default()
                    });
                }
            }
            LooksAction::CancelDnaForm => self.form = None,
            LooksAction::SaveDnaForm => {
                if let Some(form) = &mut self.form {
                    form.show_errors = true;
                    if form.problems().is_empty() && !form.sending {
                        form.sending = true;
                        form.error = None;
                        let helper = form.prompt_helper.trim().to_owned();
                        out.push(match &form.editing {
                            None => dna(VisualDnaCommand::Create(NewVisualDna {
                                name: form.name.trim().to_owned(),
                                dna_type: form.dna_type,
                                image_paths: form.images.entries().map(PathBuf::from).collect(),
                                prompt_helper: (!helper.is_empty()).then_some(helper),
                            })),
                            Some(id) => dna(VisualDnaCommand::Update {
                                id: id.clone(),
                                update: VisualDnaUpdate {
                                    name: Some(form.name.trim().to_owned()),
                                    dna_type: Some(form.dna_type),
                                    prompt_helper: Some(helper),
                                },
                            }),
                        });
                    }
                }
            }
            LooksAction::AddDnaImages(paths) => {
                if let Some(form) = &mut self.form {
                    form.images.add_files(paths);
                }
            }
            LooksAction::AddDnaUrl => {
                if let Some(form) = &mut self.form {
                    form.images.add_url();
                }
            }
            LooksAction::RemoveDnaImage(index) => {
                if let Some(form) = &mut self.form {
                    form.images.remove(index);
                }
            }
            LooksAction::PickImages => route = Some(LooksRoute::PickImages),
            LooksAction::MoveToFolder { id, folder_id } => {
                out.push(dna(VisualDnaCommand::MoveToFolder { id, folder_id }));
            }
            LooksAction::AskDelete(confirm) => route = Some(LooksRoute::Ask(confirm)),
            LooksAction::Confirmed(confirm) => match confirm {
                LooksConfirm::DeleteVisualDna { id, .. } => {
                    out.push(dna(VisualDnaCommand::Delete { id }));
                }
                LooksConfirm::DeleteFolder { id, .. } => {
                    out.push(dna(VisualDnaCommand::DeleteFolder { id }));
                }
                LooksConfirm::DeleteMoodboard { id, .. } => {
                    out.push(board(MoodboardCommand::Delete { id }));
                }
            },
            LooksAction::ShowFolder(filter) => self.folder_filter = filter,
            LooksAction::NewFolder => self.folder_form = Some(FolderForm::default()),
            LooksAction::RenameFolder(id) => {
                let name = self.folder_name(&id).unwrap_or_default().to_owned();
                self.folder_form = Some(FolderForm {
                    renaming: Some(id),
                    name,
                    ..FolderForm::default()
                });
            }
            LooksAction::CancelFolderForm => self.folder_form = None,
            LooksAction::SaveFolderForm => {
                if let Some(form) = &mut self.folder_form {
                    let name = form.name.trim().to_owned();
                    if name.is_empty() {
                        form.error = Some("Give the folder a name.".into());
                    } else if name.chars().count() > VISUAL_DNA_NAME_MAX_CHARS {
                        form.error =
                            Some(format!("At most {VISUAL_DNA_NAME_MAX_CHARS} characters."));
                    } else if !form.sending {
                        form.sending = true;
                        form.error = None;
                        out.push(dna(match &form.renaming {
                            None => VisualDnaCommand::CreateFolder { name },
                            Some(id) => VisualDnaCommand::RenameFolder {
                                id: id.clone(),
                                name,
                            },
                        }));
                    }
                }
            }
            LooksAction::UseInCreate(id) => route = Some(LooksRoute::UseInCreate(id)),
            LooksAction::SelectBoard(id) => self.board_selected = Some(id),
            LooksAction::CloseBoard => self.board_selected = None,
            LooksAction::NewBoard => self.board_form = Some(BoardForm::default()),
            LooksAction::EditBoard(id) => {
                if let Some(b) = self.board(&id) {
                    self.board_form = Some(BoardForm {
                        editing: Some(id),
                        name: b.name.clone(),
                        style_guide: b.style_guide.clone().unwrap_or_default(),
                        images: BoardForm::default().images.with(
                            b.image_urls()
                                .map(|u| FormImage::Url(u.to_owned()))
                                .collect(),
                        ),
                        ..BoardForm::default()
                    });
                }
            }
            LooksAction::CancelBoardForm => self.board_form = None,
            LooksAction::SaveBoardForm => {
                if let Some(form) = &mut self.board_form {
                    form.show_errors = true;
                    if form.problems().is_empty() && !form.sending {
                        form.sending = true;
                        form.error = None;
                        let fields = form.fields();
                        out.push(board(match &form.editing {
                            None => MoodboardCommand::Create(fields),
                            Some(id) => MoodboardCommand::Update {
                                id: id.clone(),
                                fields,
                            },
                        }));
                    }
                }
            }
            LooksAction::AddBoardUrl => {
                if let Some(form) = &mut self.board_form {
                    form.images.add_url();
                }
            }
            LooksAction::RemoveBoardImage(index) => {
                if let Some(form) = &mut self.board_form {
                    form.images.remove(index);
                }
            }
            LooksAction::ShowBoardInLibrary { id, name } => {
                route = Some(LooksRoute::ShowBoardInLibrary { id, name });
            }
        }
        (out, route)
    }

    /// The engine's Visual DNA answers.
    pub fn handle_dna_event(&mut self, event: &VisualDnaEvent) -> Vec<Action> {
        let mut out = Vec::new();
        match event {
            VisualDnaEvent::Listed(Ok(entries)) => {
                for id in &self.building {
                    if let Some(now) = entries.iter().find(|e| &e.id == id) {
                        if now.is_failed() {
                            out.push(Action::Toast(
                                ToastKind::Error,
                                format!(
                                    "Visual DNA “{}” could not be built: its images could not \
                                     be read.",
                                    now.name
                                ),
                            ));
                        } else if !now.is_building() {
                            out.push(Action::Toast(
                                ToastKind::Success,
                                format!("Visual DNA “{}” is ready.", now.name),
                            ));
                        }
                    }
                }
                self.building = entries
                    .iter()
                    .filter(|e| e.is_building())
                    .map(|e| e.id.clone())
                    .collect();
                self.entries = entries.clone();
                self.entries_loaded = true;
                self.entries_pending = false;
                self.entries_error = None;
                if let Some(id) = self.created_id.take() {
                    if self.entry(&id).is_some() {
                        self.selected = Some(id);
                    } else {
                        self.created_id = Some(id);
                    }
                }
                if let Some(id) = &self.selected
                    && self.entry(id).is_none()
                {
                    self.selected = None;
                }
                // A building entry's detail is asked again once it is ready (description).
                if let (Some(detail), Some(id)) = (&self.detail, &self.selected)
                    && &detail.id == id
                    && let Some(listed) = self.entry(id)
                    && listed.status != detail.status
                {
                    out.push(dna(VisualDnaCommand::Get { id: id.clone() }));
                }
            }
            VisualDnaEvent::Listed(Err(error)) => {
                self.entries_pending = false;
                self.entries_error = Some(ShownError::of("Could not load Visual DNA", error));
            }
            VisualDnaEvent::Detail(Ok(entry)) => {
                if self.selected.as_deref() == Some(entry.id.as_str()) {
                    self.detail = Some(entry.clone());
                }
            }
            VisualDnaEvent::Detail(Err(error)) => {
                tracing::info!("Visual DNA detail failed: {error}");
            }
            VisualDnaEvent::Created(result) => match result {
                Ok(entry) => {
                    self.form = None;
                    self.created_id = Some(entry.id.clone());
                    self.selected = Some(entry.id.clone());
                    self.detail = Some(entry.clone());
                    if entry.is_building() && !self.building.contains(&entry.id) {
                        self.building.push(entry.id.clone());
                    }
                    out.push(Action::Toast(
                        ToastKind::Info,
                        format!(
                            "Building Visual DNA “{}”. It can be used once it is ready.",
                            entry.name
                        ),
                    ));
                }
                Err(error) => {
                    if let Some(form) = &mut self.form {
                        form.sending = false;
                        if !form.images.take_refusal(error) {
                            form.error =
                                Some(ShownError::of("Could not make the Visual DNA", error));
                        }
                    }
                }
            },
            VisualDnaEvent::Updated(result) => match result {
                Ok(entry) => {
                    if self
                        .form
                        .as_ref()
                        .is_some_and(|f| f.editing.as_deref() == Some(entry.id.as_str()))
                    {
                        self.form = None;
                    }
                    if let Some(slot) = self.entries.iter_mut().find(|e| e.id == entry.id) {
                        *slot = entry.clone();
                    }
                    if self.selected.as_deref() == Some(entry.id.as_str()) {
                        self.detail = Some(entry.clone());
                    }
                }
                Err(error) => {
                    let shown = ShownError::of("Could not save the Visual DNA", error);
                    match &mut self.form {
                        Some(form) if form.sending => {
                            form.sending = false;
                            form.error = Some(shown);
                        }
                        _ => out.push(Action::Toast(ToastKind::Error, shown.message)),
                    }
                }
            },
            VisualDnaEvent::Deleted { id, result } => match result {
                Ok(()) => {
                    let name = self.entry(id).map(|e| e.name.clone()).unwrap_or_default();
                    self.entries.retain(|e| &e.id != id);
                    if self.selected.as_deref() == Some(id.as_str()) {
                        self.selected = None;
                        self.detail = None;
                    }
                    out.push(Action::Toast(
                        ToastKind::Success,
                        format!("Deleted Visual DNA “{name}”."),
                    ));
                }
                Err(error) => out.push(Action::Toast(
                    ToastKind::Error,
                    ShownError::of("Could not delete the Visual DNA", error).message,
                )),
            },
            VisualDnaEvent::Folders(Ok(folders)) => {
                self.folders = folders.clone();
                self.folders_error = None;
                if let FolderFilter::Folder(id) = &self.folder_filter
                    && !folders.iter().any(|f| &f.id == id)
                {
                    self.folder_filter = FolderFilter::All;
                }
            }
            VisualDnaEvent::Folders(Err(error)) => {
                self.folders_error = Some(ShownError::of("Could not load the folders", error));
            }
            VisualDnaEvent::FolderSaved(result) => match result {
                Ok(folder) => {
                    self.folder_form = None;
                    if !self.folders.iter().any(|f| f.id == folder.id) {
                        self.folders.push(folder.clone());
                    }
                }
                Err(error) => {
                    let shown = ShownError::of("Could not save the folder", error);
                    match &mut self.folder_form {
                        Some(form) => {
                            form.sending = false;
                            form.error = Some(shown.message);
                        }
                        None => out.push(Action::Toast(ToastKind::Error, shown.message)),
                    }
                }
            },
            VisualDnaEvent::FolderDeleted { id, result } => match result {
                Ok(()) => {
                    self.folders.retain(|f| &f.id != id);
                    if self.folder_filter == FolderFilter::Folder(id.clone()) {
                        self.folder_filter = FolderFilter::All;
                    }
                }
                Err(error) => out.push(Action::Toast(
                    ToastKind::Error,
                    ShownError::of("Could not delete the folder", error).message,
                )),
            },
        }
        out
    }

    /// The engine's moodboard answers.
    pub fn handle_board_event(&mut self, event: &MoodboardEvent) -> Vec<Action> {
        let mut out = Vec::new();
        match event {
            MoodboardEvent::Listed(Ok(boards)) => {
                self.boards = boards.clone();
                self.boards_loaded = true;
                self.boards_pending = false;
                self.boards_error = None;
                if let Some(id) = &self.board_selected
                    && self.board(id).is_none()
                {
                    self.board_selected = None;
                }
            }
            MoodboardEvent::Listed(Err(error)) => {
                self.boards_pending = false;
                self.boards_error = Some(ShownError::of("Could not load moodboards", error));
            }
            MoodboardEvent::Saved(Ok(saved)) => {
                let was_new = self
                    .board_form
                    .as_ref()
                    .is_some_and(|f| f.editing.is_none());
                self.board_form = None;
                self.board_selected = Some(saved.id.clone());
                match self.boards.iter_mut().find(|b| b.id == saved.id) {
                    Some(slot) => *slot = saved.clone(),
                    None => self.boards.insert(0, saved.clone()),
                }
                out.push(Action::Toast(
                    ToastKind::Success,
                    if was_new {
                        format!("Made moodboard “{}”.", saved.name)
                    } else {
                        format!("Saved moodboard “{}”.", saved.name)
                    },
                ));
            }
            MoodboardEvent::Saved(Err(error)) => {
                let shown = ShownError::of("Could not save the moodboard", error);
                match &mut self.board_form {
                    Some(form) => {
                        form.sending = false;
                        if !form.images.take_refusal(error) {
                            form.error = Some(shown);
                        }
                    }
                    None => out.push(Action::Toast(ToastKind::Error, shown.message)),
                }
            }
            MoodboardEvent::Deleted { id, result } => match result {
                Ok(()) => {
                    let name = self.board(id).map(|b| b.name.clone()).unwrap_or_default();
                    self.boards.retain(|b| &b.id != id);
                    if self.board_selected.as_deref() == Some(id.as_str()) {
                        self.board_selected = None;
                    }
                    out.push(Action::Toast(
                        ToastKind::Success,
                        format!("Deleted moodboard “{name}”."),
                    ));
                }
                Err(error) => out.push(Action::Toast(
                    ToastKind::Error,
                    ShownError::of("Could not delete the moodboard", error).message,
                )),
            },
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, name: &str, status: &str) -> VisualDna {
        VisualDna {
            id: id.into(),
            name: name.into(),
            dna_type: "character".into(),
            status: Some(status.into()),
            ..VisualDna::default()
        }
    }

    #[test]
    fn the_form_says_what_is_missing_at_each_field_only_after_save() {
        let mut state = LooksState::default();
        state.apply(LooksAction::NewDna);
        let (out, _) = state.apply(LooksAction::SaveDnaForm);
        assert!(out.is_empty(), "nothing is sent with problems");
        let form = state.form.as_ref().unwrap();
        assert!(form.problem(FormField::Name).is_some());
        assert!(form.problem(FormField::Images).is_some());
        let form = state.form.as_mut().unwrap();
        form.name = "Ada".into();
        form.images
            .add_files(vec!["a.jpg".into(), "notes.txt".into()]);
        assert_eq!(form.images.len(), 1);
        assert!(form.images.note.as_deref().unwrap().contains("notes.txt"));
        form.images
            .add_files((0..5).map(|i| PathBuf::from(format!("{i}.png"))).collect());
        assert_eq!(form.images.len(), VISUAL_DNA_MAX_IMAGES);
        let (out, _) = state.apply(LooksAction::SaveDnaForm);
        assert!(matches!(
            out.as_slice(),
            [Action::Send(c)] if matches!(**c, Command::VisualDna(VisualDnaCommand::Create(_)))
        ));
    }

    #[test]
    fn a_building_entry_becoming_ready_is_told_once() {
        let mut state = LooksState::default();
        let out = state.handle_dna_event(&VisualDnaEvent::Listed(Ok(vec![entry(
            "v1", "Ada", "building",
        )])));
        assert!(out.is_empty());
        let out = state.handle_dna_event(&VisualDnaEvent::Listed(Ok(vec![entry(
            "v1", "Ada", "ready",
        )])));
        assert!(
            matches!(out.as_slice(), [Action::Toast(ToastKind::Success, t)] if t.contains("ready"))
        );
        let out = state.handle_dna_event(&VisualDnaEvent::Listed(Ok(vec![entry(
            "v1", "Ada", "ready",
        )])));
        assert!(out.is_empty());
    }

    #[test]
    fn filters_combine_folder_type_and_search() {
        let mut state = LooksState::default();
        let mut a = entry("a", "Red Sneaker", "ready");
        a.dna_type = "product".into();
        a.folder_id = Some("f1".into());
        let b = entry("b", "Ada", "ready");
        state.entries = vec![a, b];
        assert_eq!(state.visible_entries().len(), 2);
        state.folder_filter = FolderFilter::Folder("f1".into());
        assert_eq!(state.visible_entries().len(), 1);
        state.folder_filter = FolderFilter::All;
        state.type_filter = Some(DnaType::Character);
        assert_eq!(state.visible_entries()[0].id, "b");
        state.type_filter = None;
        state.search = "sneak".into();
        assert_eq!(state.visible_entries()[0].id, "a");
    }

    #[test]
    fn style_guide_counts_and_limits() {
        let mut form = BoardForm {
            name: "Dusk".into(),
            style_guide: "x".repeat(501),
            images: BoardForm::default()
                .images
                .with(vec![FormImage::Url("https://h/a.jpg".into())]),
            show_errors: true,
            ..BoardForm::default()
        };
        assert!(form.problem(FormField::StyleGuide).is_some());
        form.style_guide.pop();
        assert!(form.problems().is_empty());
    }

    #[test]
    fn a_typed_path_is_added_as_a_file_and_a_bare_word_is_refused() {
        let mut images = DnaForm::default().images;
        images.url_input = "/photos/ada front.jpg".into();
        images.add_url();
        assert_eq!(
            images.items,
            [FormImage::File(PathBuf::from("/photos/ada front.jpg"))]
        );
        assert!(images.url_input.is_empty() && images.note.is_none());
        images.url_input = "file:///photos/ada%20side.png".into();
        images.add_url();
        assert_eq!(
            images.items[1],
            FormImage::File(PathBuf::from("/photos/ada side.png"))
        );
        images.url_input = "/photos/notes.txt".into();
        images.add_url();
        assert_eq!(images.len(), 2);
        assert!(
            images
                .note
                .as_deref()
                .is_some_and(|n| n.contains("not an image"))
        );
        images.url_input = "ada.jpg".into();
        images.add_url();
        assert!(
            images
                .note
                .as_deref()
                .is_some_and(|n| n.contains("file's path"))
        );
        let mut board = BoardForm::default().images;
        board.url_input = "/photos/dusk.jpg".into();
        board.add_url();
        assert_eq!(
            board.items,
            [FormImage::File(PathBuf::from("/photos/dusk.jpg"))]
        );
    }

    #[test]
    fn a_full_list_refuses_more_and_names_its_owner_and_limit() {
        let mut board = BoardForm::default().images;
        board.add_files((0..16).map(|i| PathBuf::from(format!("{i}.jpg"))).collect());
        assert_eq!(board.len(), MOODBOARD_MAX_IMAGES);
        assert_eq!(
            board.note.as_deref(),
            Some("15.jpg was not added: a moodboard takes at most 15 images")
        );
        board.url_input = "https://h/more.jpg".into();
        board.add_url();
        assert_eq!(board.len(), MOODBOARD_MAX_IMAGES);
        assert_eq!(
            board.note.as_deref(),
            Some("A moodboard takes at most 15 images")
        );
        board.remove(0);
        assert!(board.note.is_none(), "removing one clears the note");
        board.add_url();
        assert_eq!(
            board.items.last(),
            Some(&FormImage::Url("https://h/more.jpg".into()))
        );
    }

    #[test]
    fn a_refused_file_is_said_under_the_images_not_as_the_forms_error() {
        let mut images = DnaForm::default().images;
        images.add_files(vec![PathBuf::from("/tmp/bomb.png")]);
        let refused = ApiError::Invalid(
            "bomb.png: the picture is 60000 × 60000 px, more than the studio opens.".into(),
        );
        assert!(images.take_refusal(&refused));
        assert!(
            images
                .note
                .as_deref()
                .is_some_and(|n| n.starts_with("Not sent: bomb.png: the picture is"))
        );
        let other = ApiError::Invalid("a Visual DNA needs a name".into());
        assert!(!images.take_refusal(&other), "not about one of its files");
    }
}
