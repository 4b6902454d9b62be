//! The Library: a virtualised thumbnail grid of every generated and uploaded item, with
//! sections and folders (sidebar), filters, search, sort and bulk actions (toolbar), a
//! detail pane, uploads and the stats footer.
//!
//! [`LibraryState`] holds the library's data ([`model::LibraryModel`]: sparse pages and the
//! selection) and the panel's view state. Panels read it and return [`LibraryAction`]s
//! (wrapped in `Action::Library`); the shell hands them back to [`LibraryState::apply`]
//! after layout, which changes the state and returns the engine commands and toasts for
//! the shell to carry out. Optimistic changes are recorded per `op_id` and rolled back
//! when the engine reports a failure.

pub mod add_files;
pub mod detail;
pub mod footer;
pub mod grid;
pub mod item_actions;
pub mod layout;
pub mod memory;
pub mod model;
pub mod moodboard_filter;
pub mod project_filter;
pub mod sidebar;
pub mod toolbar;
pub mod uploads;

use crate::api::media::{
    BulkAction, Folder, FolderFields, MediaCategory, MediaDetail, MediaItem, MediaQuery, MediaSort,
    MediaStats, MediaTypeFilter,
};
use crate::engine::protocol::{
    DownloadItem, MediaMutation, MutationOutcome, TransferOutcome, UploadRequest,
};
use crate::engine::{Command, Event};
use crate::ui::format;
use crate::ui::model::{Action, Model, Requested, ResultAction, ResultRef};
use crate::ui::textures::TextureCache;
use crate::ui::toasts::ToastKind;
use crate::ui::tokens;
use crate::ui::video::player::VideoPlayerState;
use crate::ui::video::previews::VideoPreviews;
use crate::ui::widgets;
use model::{LibraryModel, RemovedItem, Selection};
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::path::PathBuf;

/// Debounce of the search box: the query changes this long after typing stops.
pub const SEARCH_DEBOUNCE_SECS: f64 = 0.3;
pub const THUMB_MIN_PX: f32 = 96.0;
pub const THUMB_MAX_PX: f32 = 320.0;
pub const THUMB_DEFAULT_PX: f32 = 168.0;
/// Rows above and below the viewport whose thumbnails are fetched ahead of a scroll.
pub const PREFETCH_ROWS: usize = 2;
/// The in-app viewer steps through at most this many library items around the opened one.
pub const VIEWER_LIST_MAX: usize = 500;

/// The fixed sections of the sidebar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Section {
    #[default]
    All,
    Ai,
    Uploaded,
    Edited,
    Favourites,
    Trash,
}

impl Section {
    pub const ALL: [Section; 6] = [
        Section::All,
        Section::Ai,
        Section::Uploaded,
        Section::Edited,
        Section::Favourites,
        Section::Trash,
    ];
    pub fn label(self) -> &'static str {
        match self {
            Section::All => "All media",
            Section::Ai => "AI generated",
            Section::Uploaded => "Uploaded",
            Section::Edited => "Edited",
            Section::Favourites => "Favourites",
            Section::Trash => "Trash",
        }
    }
    fn category(self) -> MediaCategory {
        match self {
            Section::All | Section::Trash => MediaCategory::All,
            Section::Ai => MediaCategory::Ai,
            Section::Uploaded => MediaCategory::Uploaded,
            Section::Edited => MediaCategory::Edited,
            Section::Favourites => MediaCategory::Favorites,
        }
    }
}

/// What the grid shows: a section, or a folder's contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    Section(Section),
    Folder(String),
}

impl Default for Place {
    fn default() -> Self {
        Place::Section(Section::All)
    }
}

/// Everything the library panels can ask for.
#[derive(Clone, Debug, PartialEq)]
pub enum LibraryAction {
    Open(Place),
    /// Show one project's items (`None`: every project).
    SetProjectFilter(Option<String>),
    /// Show the items generated with one moodboard: (id, name); `None`: any.
    SetMoodboardFilter(Option<(String, String)>),
    SetType(MediaTypeFilter),
    SetSort(MediaSort),
    /// Apply the (debounced) search text.
    ApplySearch,
    SetThumbSize(f32),
    Click {
        index: usize,
        ctrl: bool,
        shift: bool,
    },
    /// Open the in-app viewer on the item at this display index (double-click, Enter).
    OpenViewer(usize),
    CopyUrl(String),
    /// Ask before permanently deleting everything in the Trash.
    AskEmptyTrash,
    /// Confirmed: load every page of the Trash, then delete it all forever.
    EmptyTrash,
    SelectAll,
    ClearSelection,
    MoveFocus {
        delta: isize,
        extend: bool,
    },
    Favourite {
        ids: Vec<String>,
        favourite: bool,
    },
    Trash(Vec<String>),
    Restore(Vec<String>),
    AskDeleteForever(Vec<String>),
    DeleteForever(Vec<String>),
    MoveToProject {
        ids: Vec<String>,
        project_id: String,
    },
    AddToFolder {
        folder_id: String,
        ids: Vec<String>,
    },
    RemoveFromFolder {
        folder_id: String,
        ids: Vec<String>,
    },
    /// Ask for a destination folder (dialog off the UI thread), then download there.
    SaveToDisk(Vec<String>),
    ReusePrompt(String),
    NewFolder,
    EditFolder(String),
    SubmitFolderForm,
    CloseFolderForm,
    AskDeleteFolder(String),
    DeleteFolder(String),
    OpenShare(String),
    Share {
        folder_id: String,
    },
    Unshare {
        folder_id: String,
        user_id: String,
    },
    CloseShare,
    CloseConfirm,
    CancelTransfer(u64),
    ClearFinishedTransfers,
    /// Upload files into the open folder / project (the shell carries this out: the file
    /// dialog, the clipboard's pixels and the project Create uses are its business).
    Upload(add_files::UploadSource),
    /// Ctrl+V of text that names no file.
    PastedTextIsNoFile,
    /// Show everything the type filter and the search hide.
    ClearFilters,
    /// The person's choice for the sidebar (remembered); shown only where it fits.
    SetSidebarOpen(bool),
    /// The person's choice for the detail pane (remembered); shown only where it fits.
    SetDetailOpen(bool),
    /// Show a collapsed pane over the grid, or close the drawer (`None`).
    OpenDrawer(Option<layout::Drawer>),
}

/// The inline create/edit folder form.
#[derive(Clone, Debug, Default)]
pub struct FolderForm {
    /// `None` creates a folder.
    pub editing: Option<String>,
    pub name: String,
    pub color_hex: String,
    pub icon: String,
    pub error: Option<String>,
    /// Give the name field keyboard focus at the next layout (the form just opened).
    pub focus_name: bool,
}

/// The share dialog for one folder.
#[derive(Clone, Debug, Default)]
pub struct ShareDialog {
    pub folder_id: String,
    pub emails: String,
    pub pending: bool,
    pub not_found: Vec<String>,
    pub error: Option<String>,
    pub note: Option<String>,
}

/// Library confirmations.
#[derive(Clone, Debug, PartialEq)]
pub enum LibraryConfirm {
    DeleteForever(Vec<String>),
    DeleteFolder(String),
    EmptyTrash,
}

/// One upload or download in the uploads strip.
#[derive(Clone, Debug)]
pub struct Transfer {
    pub id: u64,
    pub label: String,
    pub is_upload: bool,
    pub bytes_done: u64,
    pub bytes_total: u64,
    pub state: TransferState,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TransferState {
    Running,
    Done,
    Cancelled,
    Failed(String),
}

/// What an optimistic change needs to be undone.
#[derive(Debug)]
enum PendingOp {
    Favourite {
        ids: Vec<String>,
        previous: Vec<(String, bool)>,
    },
    Removed {
        ids: Vec<String>,
        removed: Vec<RemovedItem>,
        verb: &'static str,
    },
    Moved {
        previous: Vec<(String, Option<String>)>,
    },
    Plain,
}

/// The Library's data and view state (runtime only; nothing here is persisted).
pub struct LibraryState {
    pub items: LibraryModel,
    pub selection: Selection,
    pub place: Place,
    /// The project the sections are narrowed to (`None`: all projects); folders ignore it.
    pub project_filter: Option<String>,
    /// The moodboard the sections are narrowed to, and the boards to offer.
    pub moodboard_filter: moodboard_filter::MoodboardFilter,
    pub type_filter: MediaTypeFilter,
    pub sort: MediaSort,
    /// The search box's text (edited in place); applied after the debounce.
    pub search_text: String,
    pub applied_search: String,
    /// `ctx.input().time` of the last keystroke in the search box.
    pub search_edited_at: Option<f64>,
    pub thumb_px: f32,
    pub folders: Requested<Vec<Folder>>,
    pub stats: Requested<MediaStats>,
    /// The single-item shape of the item in the detail pane.
    pub detail: Option<(String, Requested<MediaDetail>)>,
    pub folder_form: Option<FolderForm>,
    pub share: Option<ShareDialog>,
    /// E-mail addresses of accounts this session shared folders with, by user id: the
    /// service lists members by id only, and an id alone means nothing to a person.
    pub known_members: HashMap<String, String>,
    pub confirm: Option<LibraryConfirm>,
    pub transfers: Vec<Transfer>,
    /// Rows visible in the last layout (display indices), for page requests.
    pub visible: Range<usize>,
    /// Make the focused item visible at the next layout.
    pub scroll_to_focus: bool,
    /// Jump the grid to this offset at the next layout (benchmarks, "back to top").
    pub scroll_offset_request: Option<f32>,
    /// Columns in the last layout (keyboard navigation moves by rows).
    pub columns: usize,
    /// Thumbnail size the grid asked for in the last layout.
    pub thumb_request_px: u32,
    /// The grid's visible rectangle in the last layout (screen points).
    pub grid_viewport: egui::Rect,
    /// The last selection change came from the keyboard: the focused tile shows a ring.
    pub keyboard_focus: bool,
    /// Empty trash was confirmed: the Trash is loading every page, then deleted.
    pub emptying_trash: bool,
    /// What the settings file holds for the library (written when it changes).
    remembered: Option<memory::LibraryMemory>,
    /// A folder restored from the settings: checked against the folder list once it loads.
    check_restored_folder: bool,
    started: bool,
    next_request_id: u64,
    next_op_id: u64,
    next_transfer_id: u64,
    pending: HashMap<u64, PendingOp>,
    /// The share dialog's op in flight.
    share_op: Option<u64>,
    /// Plays the selected video in the detail pane.
    pub detail_player: VideoPlayerState,
    /// Hover-scrub frames of video tiles (a few videos, least recently used out).
    pub video_previews: VideoPreviews,
    /// Whether the person wants the sidebar and the detail pane (remembered); each is
    /// docked only where the grid keeps its columns beside it.
    pub sidebar_open: bool,
    pub detail_open: bool,
    /// A collapsed pane shown over the grid on request (not remembered).
    pub drawer: Option<layout::Drawer>,
    /// The panes of the last layout, and the Library's width then.
    pub panes: layout::PaneLayout,
    pub library_width_pt: f32,
    /// Pictures pasted with Ctrl+V, being encoded before their upload.
    pub pasted: add_files::PastedPictures,
}

impl Default for LibraryState {
    fn default() -> Self {
        Self {
            items: LibraryModel::default(),
            selection: Selection::default(),
            place: Place::default(),
            project_filter: None,
            moodboard_filter: Default::default(),
            type_filter: MediaTypeFilter::All,
            sort: MediaSort::CreatedDesc,
            search_text: String::new(),
            applied_search: String::new(),
            search_edited_at: None,
            thumb_px: THUMB_DEFAULT_PX,
            folders: Requested::default(),
            stats: Requested::default(),
            detail: None,
            folder_form: None,
            share: None,
            known_members: HashMap::new(),
            confirm: None,
            transfers: Vec::new(),
            visible: 0..0,
            scroll_to_focus: false,
            scroll_offset_request: None,
            columns: 1,
            thumb_request_px: 192,
            grid_viewport: egui::Rect::NOTHING,
            keyboard_focus: false,
            emptying_trash: false,
            remembered: None,
            check_restored_folder: false,
            started: false,
            next_request_id: 1,
            next_op_id: 1,
            next_transfer_id: 1,
            pending: HashMap::new(),
            share_op: None,
            detail_player: VideoPlayerState::default(),
            video_previews: VideoPreviews::default(),
            sidebar_open: true,
            detail_open: true,
            drawer: None,
            panes: layout::PaneLayout::default(),
            library_width_pt: 0.0,
            pasted: add_files::PastedPictures::default(),
        }
    }
}

/// Folder colours offered in the form (the service's default first).
pub const FOLDER_PALETTE: [&str; 8] = [
    "#3B82F6", "#8B5CF6", "#EC4899", "#EF4444", "#F59E0B", "#10B981", "#14B8A6", "#64748B",
];
/// Folder icon names offered in the form (stored verbatim on the service).
pub const FOLDER_ICONS: [&str; 6] = ["folder", "star", "image", "video", "music", "heart"];

impl LibraryState {
    /// A library over items already in memory (benchmarks): every page loaded.
    pub fn with_items(items: Vec<MediaItem>) -> Self {
        let mut state = Self::default();
        state.items = LibraryModel::from_items(state.query(), model::DEFAULT_PAGE_SIZE, items);
        state.started = true;
        state.folders.set(Ok(Vec::new()));
        state.stats.set(Ok(MediaStats::default()));
        state
    }

    /// Ids of the loaded items in the visible range, plus the detail pane's item: the
    /// thumbnails worth making now.
    /// Items whose thumbnails are worth keeping in the pipeline's queue: the visible ones,
    /// the prefetched rows around them and the item in the detail pane.
    pub fn thumbnail_keep_ids(&self) -> HashSet<String> {
        let mut ids: HashSet<String> = self
            .nearby_range()
            .filter_map(|i| self.items.item(i).map(|item| item.id.clone()))
            .collect();
        if let Some(item) = self.single_selected() {
            ids.insert(item.id.clone());
        }
        ids
    }

    /// The visible items plus `PREFETCH_ROWS` rows on each side (display indices).
    fn nearby_range(&self) -> Range<usize> {
        let margin = PREFETCH_ROWS * self.columns.max(1);
        let start = self.visible.start.saturating_sub(margin);
        let end = (self.visible.end + margin).min(self.items.len());
        start..end.max(start)
    }

    /// Loaded items just outside the viewport (the rows below first, where a scroll
    /// usually goes), with their thumbnail source: fetched at low priority so a scroll
    /// finds them ready.
    pub fn prefetch_thumbnails(&self) -> Vec<(String, String)> {
        if self.visible.is_empty() {
            return Vec::new();
        }
        let nearby = self.nearby_range();
        (self.visible.end..nearby.end)
            .chain((nearby.start..self.visible.start).rev())
            .filter_map(|index| {
                let item = self.items.item(index)?;
                Some((item.id.clone(), item.thumbnail_source()?.to_owned()))
            })
            .collect()
    }

    pub fn has_pending_ops(&self) -> bool {
        !self.pending.is_empty()
    }

    pub fn is_started(&self) -> bool {
        self.started
    }

    /// Whether the first page and the stats have answered (screenshot readiness).
    pub fn first_answers_in(&self) -> bool {
        self.items.first_page_done() && (self.stats.is_loaded() || self.stats.error.is_some())
    }

    /// The query for the current place and filters.
    pub fn query(&self) -> MediaQuery {
        let search = Some(self.applied_search.trim().to_owned()).filter(|s| !s.is_empty());
        match &self.place {
            Place::Folder(folder_id) => MediaQuery {
                folder_id: Some(folder_id.clone()),
                media_type: self.type_filter,
                search,
                sort: self.sort,
                ..Default::default()
            },
            Place::Section(section) => MediaQuery {
                project_id: self.project_filter.clone(),
                moodboard_id: self.moodboard_filter.id().map(str::to_owned),
                media_type: self.type_filter,
                category: section.category(),
                search,
                sort: self.sort,
                include_deleted: *section == Section::Trash,
                ..Default::default()
            },
        }
    }

    pub fn in_trash(&self) -> bool {
        self.place == Place::Section(Section::Trash)
    }

    pub fn current_folder(&self) -> Option<&Folder> {
        let Place::Folder(id) = &self.place else {
            return None;
        };
        self.folder(id)
    }

    pub fn folder(&self, id: &str) -> Option<&Folder> {
        self.folders.value.as_deref()?.iter().find(|f| f.id == id)
    }

    /// The one selected item, when exactly one is selected and loaded.
    pub fn single_selected(&self) -> Option<&MediaItem> {
        if self.selection.len() != 1 {
            return None;
        }
        let id = self.selection.ids.iter().next()?;
        self.items.find(id)
    }

    fn bump_request(&mut self) -> u64 {
        let id = self.next_request_id;
        self.next_request_id += 1;
        id
    }

    fn op_id(&mut self) -> u64 {
        let id = self.next_op_id;
        self.next_op_id += 1;
        id
    }

    /// First time the Library is shown: load page 1, the folders and the stats.
    pub fn start(&mut self) -> Vec<Command> {
        if self.started {
            return Vec::new();
        }
        self.started = true;
        let id = self.bump_request();
        self.items.reset(self.query(), id);
        self.folders.request();
        self.stats.request();
        vec![
            Command::RefreshFolders,
            Command::RefreshMediaStats { project_id: None },
        ]
    }

    /// Forget everything (the connection changed).
    pub fn reset_all(&mut self) {
        let transfers = std::mem::take(&mut self.transfers);
        let remembered = self.memory();
        *self = Self::default();
        // Another service has other folders: the section, sort and size carry over.
        self.restore_memory(&remembered);
        self.remembered = Some(remembered);
        self.transfers = transfers;
    }

    /// Show only the items generated with moodboard `id` (the Visual DNA panel's "Show in
    /// Library"); from a folder the view goes to All media, where the filter applies.
    pub fn filter_by_moodboard(&mut self, id: &str, name: &str) {
        self.moodboard_filter.active = Some((id.to_owned(), name.to_owned()));
        if matches!(self.place, Place::Folder(_)) {
            self.place = Place::Section(Section::All);
        }
        self.requery();
    }

    /// Every moodboard, as listed (`MoodboardEvent::Listed`): the filter's choices.
    pub fn moodboards_listed(&mut self, boards: Vec<crate::api::moodboards::Moodboard>) {
        self.moodboard_filter.listed(boards);
    }

    /// New query: new request id, everything reloads.
    fn requery(&mut self) {
        let id = self.bump_request();
        self.items.reset(self.query(), id);
        self.selection.clear();
        self.detail = None;
        self.emptying_trash = false;
        self.scroll_offset_request = Some(0.0);
    }

    /// Same query, fresh answers (job finished, upload done, mutation confirmed).
    pub fn refresh(&mut self) -> Vec<Command> {
        if !self.started {
            return Vec::new();
        }
        let id = self.bump_request();
        self.items.refresh(id);
        self.stats.request();
        vec![Command::RefreshMediaStats { project_id: None }]
    }

    /// Page loads needed for what the grid showed last frame.
    pub fn page_commands(&mut self) -> Vec<Command> {
        if !self.started {
            return Vec::new();
        }
        let visible = self.visible.clone();
        let mut wanted = self.items.wanted_pages(visible);
        if self.selection.all_pending {
            // Select all takes in the rest of the list, behind what is on screen.
            wanted.extend(self.items.missing_pages());
        }
        wanted
            .into_iter()
            .map(|r| Command::LoadMediaPage {
                request_id: r.request_id,
                query: r.query,
                page: r.page,
                page_size: r.page_size,
            })
            .collect()
    }

    /// The search debounce: true when the typed text should be applied now.
    pub fn search_due(&self, now: f64) -> bool {
        self.search_edited_at
            .is_some_and(|t| now - t >= SEARCH_DEBOUNCE_SECS)
            && self.search_text.trim() != self.applied_search.trim()
    }

    // ---- files -------------------------------------------------------------------------

    /// Files dropped on the window while the Library is shown: upload them to `project_id`
    /// and to the open folder.
    pub fn upload_paths(&mut self, paths: Vec<PathBuf>, project_id: Option<String>) -> Vec<Action> {
        let folder_id = match &self.place {
            Place::Folder(id) => Some(id.clone()),
            Place::Section(_) => None,
        };
        let mut uploads = Vec::new();
        let mut missing = None;
        for path in paths {
            if !path.is_file() {
                if !path.exists() {
                    missing.get_or_insert(path);
                }
                continue;
            }
            let transfer_id = self.next_transfer_id;
            self.next_transfer_id += 1;
            let bytes_total = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
            self.transfers.push(Transfer {
                id: transfer_id,
                label: file_label(&path),
                is_upload: true,
                bytes_done: 0,
                bytes_total,
                state: TransferState::Running,
            });
            uploads.push(UploadRequest {
                transfer_id,
                path,
                project_id: project_id.clone(),
                folder_id: folder_id.clone(),
            });
        }
        if uploads.is_empty() {
            let text = match missing {
                Some(path) => format!("Nothing to upload: there is no file at {}.", path.display()),
                None => "Only files can be uploaded (folders were skipped).".to_owned(),
            };
            return vec![Action::Toast(ToastKind::Info, text)];
        }
        vec![send(Command::UploadFiles { uploads })]
    }

    /// The user picked a folder for "Save to folder…".
    pub fn download_to(&mut self, items: Vec<DownloadItem>, folder: PathBuf) -> Vec<Action> {
        let transfer_id = self.next_transfer_id;
        self.next_transfer_id += 1;
        let label = match items.len() {
            1 => format!("Saving {}", items[0].file_name),
            n => format!("Saving {n} files"),
        };
        self.transfers.push(Transfer {
            id: transfer_id,
            label,
            is_upload: false,
            bytes_done: 0,
            bytes_total: 0,
            state: TransferState::Running,
        });
        vec![send(Command::DownloadToFolder {
            transfer_id,
            items,
            folder,
        })]
    }

    /// Download descriptors for ids (names unique-ified by the engine).
    pub fn download_items(&self, ids: &[String]) -> Vec<DownloadItem> {
        ids.iter()
            .filter_map(|id| self.items.find(id))
            .filter(|item| !item.url.is_empty())
            .map(|item| DownloadItem {
                url: item.url.clone(),
                file_name: download_name(item),
            })
            .collect()
    }

    // ---- actions -----------------------------------------------------------------------

    /// Apply a panel's action; returns what the shell must do (commands, toasts…).
    pub fn apply(&mut self, action: LibraryAction) -> Vec<Action> {
        let mut out = Vec::new();
        match action {
            LibraryAction::Open(place) => {
                if self.drawer == Some(layout::Drawer::Sidebar) {
                    self.drawer = None;
                }
                if self.place != place {
                    self.place = place;
                    self.requery();
                }
            }
            LibraryAction::SetProjectFilter(project_id) => {
                if self.project_filter != project_id {
                    self.project_filter = project_id;
                    self.requery();
                }
            }
            LibraryAction::SetMoodboardFilter(filter) => {
                if self.moodboard_filter.active != filter {
                    self.moodboard_filter.active = filter;
                    self.requery();
                }
            }
            LibraryAction::SetType(filter) => {
                if self.type_filter != filter {
                    self.type_filter = filter;
                    self.requery();
                }
            }
            LibraryAction::SetSort(sort) => {
                if self.sort != sort {
                    self.sort = sort;
                    self.requery();
                }
            }
            LibraryAction::ApplySearch => {
                self.search_edited_at = None;
                if self.search_text.trim() != self.applied_search.trim() {
                    self.applied_search = self.search_text.trim().to_owned();
                    self.requery();
                }
            }
            LibraryAction::SetThumbSize(px) => {
                self.thumb_px = px.clamp(THUMB_MIN_PX, THUMB_MAX_PX);
            }
            LibraryAction::Click { index, ctrl, shift } => {
                let Some(id) = self.items.item(index).map(|i| i.id.clone()) else {
                    return out;
                };
                if shift {
                    self.selection.select_range(&self.items, index, ctrl);
                } else if ctrl {
                    self.selection.toggle(index, &id);
                } else {
                    self.selection.select_only(index, &id);
                }
                self.keyboard_focus = false;
                // A tile cut by the viewport's edge scrolls fully into view; a visible one
                // stays exactly where it is.
                self.scroll_to_focus = true;
                out.extend(self.load_detail_if_single());
            }
            LibraryAction::OpenViewer(index) => {
                if let Some(open) = self.viewer_list(index) {
                    out.push(Action::Result(open));
                }
            }
            LibraryAction::CopyUrl(url) => out.push(Action::CopyUrl(url)),
            LibraryAction::AskEmptyTrash => {
                if self.in_trash() && !self.items.is_empty() {
                    self.confirm = Some(LibraryConfirm::EmptyTrash);
                }
            }
            LibraryAction::EmptyTrash => {
                self.confirm = None;
                if self.in_trash() {
                    self.emptying_trash = true;
                    self.selection.select_all(&self.items);
                    out.extend(self.empty_trash_when_loaded());
                }
            }
            LibraryAction::SelectAll => self.selection.select_all(&self.items),
            LibraryAction::ClearSelection => {
                self.selection.clear();
                self.detail = None;
            }
            LibraryAction::MoveFocus { delta, extend } => {
                let len = self.items.len();
                if len == 0 {
                    return out;
                }
                let from = self.selection.focus.unwrap_or(0);
                let to = if self.selection.focus.is_none() {
                    0
                } else {
                    from.saturating_add_signed(delta).min(len - 1)
                };
                if let Some(id) = self.items.item(to).map(|i| i.id.clone()) {
                    if extend {
                        if self.selection.anchor.is_none() {
                            self.selection.anchor = Some(from);
                        }
                        self.selection.select_range(&self.items, to, false);
                    } else {
                        self.selection.select_only(to, &id);
                    }
                    self.scroll_to_focus = true;
                    self.keyboard_focus = true;
                    out.extend(self.load_detail_if_single());
                } else {
                    // Not loaded yet: move the focus; the page loads and the next press selects.
                    self.selection.focus = Some(to);
                    self.scroll_to_focus = true;
                    self.keyboard_focus = true;
                }
            }
            LibraryAction::Favourite { ids, favourite } => {
                if ids.is_empty() {
                    return out;
                }
                let set: HashSet<String> = ids.iter().cloned().collect();
                let previous = self.items.set_favourite(&set, favourite);
                let op_id = self.op_id();
                self.pending.insert(
                    op_id,
                    PendingOp::Favourite {
                        ids: ids.clone(),
                        previous,
                    },
                );
                out.push(send(Command::MutateMedia {
                    op_id,
                    mutation: MediaMutation::Favorite {
                        ids,
                        favorited: favourite,
                    },
                }));
            }
            LibraryAction::Trash(ids) => {
                out.extend(self.remove_and_send(ids, BulkAction::Trash, "trash"));
            }
            LibraryAction::Restore(ids) => {
                out.extend(self.remove_and_send(ids, BulkAction::Restore, "restore"));
            }
            LibraryAction::AskDeleteForever(ids) => {
                if !ids.is_empty() {
                    self.confirm = Some(LibraryConfirm::DeleteForever(ids));
                }
            }
            LibraryAction::DeleteForever(ids) => {
                self.confirm = None;
                out.extend(self.remove_and_send(ids, BulkAction::DeleteForever, "delete"));
            }
            LibraryAction::MoveToProject { ids, project_id } => {
                if ids.is_empty() {
                    return out;
                }
                // Items stay in a library-wide view; they (and the detail pane) show the new
                // project at once, and go back if the service refuses the move.
                let set: HashSet<String> = ids.iter().cloned().collect();
                let previous = self.items.set_project(&set, &project_id);
                let op_id = self.op_id();
                self.pending.insert(op_id, PendingOp::Moved { previous });
                out.push(send(Command::MutateMedia {
                    op_id,
                    mutation: MediaMutation::MoveToProject { ids, project_id },
                }));
            }
            LibraryAction::AddToFolder { folder_id, ids } => {
                if ids.is_empty() {
                    return out;
                }
                out.push(self.mutate(MediaMutation::AddToFolder { folder_id, ids }));
            }
            LibraryAction::RemoveFromFolder { folder_id, ids } => {
                if ids.is_empty() {
                    return out;
                }
                let set: HashSet<String> = ids.iter().cloned().collect();
                let removed = self.items.remove(&set);
                self.selection.ids.retain(|id| !set.contains(id));
                let op_id = self.op_id();
                self.pending.insert(
                    op_id,
                    PendingOp::Removed {
                        ids: ids.clone(),
                        removed,
                        verb: "remove from the folder",
                    },
                );
                out.push(send(Command::MutateMedia {
                    op_id,
                    mutation: MediaMutation::RemoveFromFolder { folder_id, ids },
                }));
            }
            LibraryAction::SaveToDisk(ids) => {
                let items = self.download_items(&ids);
                if items.is_empty() {
                    out.push(Action::Toast(
                        ToastKind::Info,
                        "Nothing to save: the selected items have no file URL.".to_owned(),
                    ));
                } else {
                    out.push(Action::PickDownloadFolder(items));
                }
            }
            LibraryAction::ReusePrompt(prompt) => out.push(Action::ReusePrompt(prompt)),
            LibraryAction::NewFolder => {
                self.folder_form = Some(FolderForm {
                    editing: None,
                    name: String::new(),
                    color_hex: FOLDER_PALETTE[0].to_owned(),
                    icon: FOLDER_ICONS[0].to_owned(),
                    error: None,
                    focus_name: true,
                });
            }
            LibraryAction::EditFolder(id) => {
                if let Some(folder) = self.folder(&id) {
                    self.folder_form = Some(FolderForm {
                        editing: Some(id.clone()),
                        name: folder.name.clone(),
                        color_hex: folder
                            .color
                            .clone()
                            .unwrap_or_else(|| FOLDER_PALETTE[0].to_owned()),
                        icon: folder.icon.clone().unwrap_or_else(|| "folder".to_owned()),
                        error: None,
                        focus_name: true,
                    });
                }
            }
            LibraryAction::SubmitFolderForm => out.extend(self.submit_folder_form()),
            LibraryAction::CloseFolderForm => self.folder_form = None,
            LibraryAction::AskDeleteFolder(id) => {
                self.confirm = Some(LibraryConfirm::DeleteFolder(id));
            }
            LibraryAction::DeleteFolder(id) => {
                self.confirm = None;
                if self.place == Place::Folder(id.clone()) {
                    self.place = Place::Section(Section::All);
                    self.requery();
                }
                if let Some(list) = self.folders.value.as_mut() {
                    list.retain(|f| f.id != id);
                }
                out.push(self.mutate(MediaMutation::DeleteFolder { folder_id: id }));
            }
            LibraryAction::OpenShare(id) => {
                self.share = Some(ShareDialog {
                    folder_id: id,
                    ..Default::default()
                });
            }
            LibraryAction::Share { folder_id } => {
                let Some(dialog) = self.share.as_mut() else {
                    return out;
                };
                let emails: Vec<String> = dialog
                    .emails
                    .split([',', ';', ' ', '\n'])
                    .map(str::trim)
                    .filter(|e| !e.is_empty())
                    .map(str::to_owned)
                    .collect();
                if emails.is_empty() || emails.iter().any(|e| !e.contains('@')) {
                    dialog.error = Some("Enter one or more e-mail addresses.".to_owned());
                    return out;
                }
                if emails.len() > 50 {
                    dialog.error = Some("At most 50 addresses at a time.".to_owned());
                    return out;
                }
                dialog.error = None;
                dialog.pending = true;
                dialog.not_found.clear();
                dialog.note = None;
                let command = self.mutate(MediaMutation::ShareFolder { folder_id, emails });
                self.share_op = Some(self.next_op_id - 1);
                out.push(command);
            }
            LibraryAction::Unshare { folder_id, user_id } => {
                out.push(self.mutate(MediaMutation::UnshareFolder { folder_id, user_id }));
            }
            LibraryAction::CloseShare => {
                self.share = None;
                self.share_op = None;
            }
            LibraryAction::CloseConfirm => self.confirm = None,
            LibraryAction::CancelTransfer(transfer_id) => {
                out.push(send(Command::CancelTransfer { transfer_id }));
            }
            LibraryAction::ClearFinishedTransfers => {
                self.transfers.retain(|t| t.state == TransferState::Running);
            }
            // The shell takes uploads before they get here (see `ui/app/library_view.rs`).
            LibraryAction::Upload(_) => {}
            LibraryAction::PastedTextIsNoFile => out.push(Action::Toast(
                ToastKind::Info,
                "Nothing to upload: the clipboard holds text, not an image or a file. Copy \
                 the files in your file manager, or use Upload…"
                    .to_owned(),
            )),
            LibraryAction::ClearFilters => {
                self.search_text.clear();
                self.search_edited_at = None;
                let filtered = self.type_filter != MediaTypeFilter::All
                    || !self.applied_search.is_empty()
                    || self.moodboard_filter.active.is_some();
                self.type_filter = MediaTypeFilter::All;
                self.moodboard_filter.active = None;
                self.applied_search.clear();
                if filtered {
                    self.requery();
                }
            }
            LibraryAction::SetSidebarOpen(open) => {
                self.sidebar_open = open;
                self.drawer = None;
            }
            LibraryAction::SetDetailOpen(open) => {
                self.detail_open = open;
                self.drawer = None;
            }
            LibraryAction::OpenDrawer(drawer) => self.drawer = drawer,
        }
        out
    }

    fn mutate(&mut self, mutation: MediaMutation) -> Action {
        let op_id = self.op_id();
        self.pending.insert(op_id, PendingOp::Plain);
        send(Command::MutateMedia { op_id, mutation })
    }

    fn remove_and_send(
        &mut self,
        ids: Vec<String>,
        action: BulkAction,
        verb: &'static str,
    ) -> Vec<Action> {
        if ids.is_empty() {
            return Vec::new();
        }
        let set: HashSet<String> = ids.iter().cloned().collect();
        let removed = self.items.remove(&set);
        self.selection.ids.retain(|id| !set.contains(id));
        self.selection.anchor = None;
        if self.detail.as_ref().is_some_and(|(id, _)| set.contains(id)) {
            self.detail = None;
        }
        let op_id = self.op_id();
        let count = ids.len();
        self.pending.insert(
            op_id,
            PendingOp::Removed {
                ids: ids.clone(),
                removed,
                verb,
            },
        );
        let mut out = vec![send(Command::MutateMedia {
            op_id,
            mutation: MediaMutation::Bulk {
                action,
                ids: ids.clone(),
            },
        })];
        let noun = if count == 1 { "item" } else { "items" };
        match action {
            BulkAction::Trash => out.push(Action::ToastWithAction {
                kind: ToastKind::Info,
                text: format!("Moved {count} {noun} to the trash"),
                label: "Undo".to_owned(),
                action: crate::ui::toasts::ToastAction::Library(LibraryAction::Restore(ids)),
            }),
            BulkAction::Restore => out.push(Action::Toast(
                ToastKind::Success,
                format!("Restored {count} {noun}"),
            )),
            BulkAction::DeleteForever => out.push(Action::Toast(
                ToastKind::Info,
                format!("Deleted {count} {noun} forever"),
            )),
        }
        out
    }

    fn submit_folder_form(&mut self) -> Vec<Action> {
        let Some(form) = self.folder_form.as_mut() else {
            return Vec::new();
        };
        let name = form.name.trim().to_owned();
        if name.is_empty() {
            form.error = Some("Give the folder a name.".to_owned());
            return Vec::new();
        }
        if name.chars().count() > 100 {
            form.error = Some("Folder names are at most 100 characters.".to_owned());
            return Vec::new();
        }
        let Some(color) = normalise_hex(&form.color_hex) else {
            form.error = Some("Colours are written #RRGGBB.".to_owned());
            return Vec::new();
        };
        let fields = FolderFields {
            name: Some(name),
            description: None,
            color: Some(color),
            icon: Some(form.icon.clone()).filter(|i| !i.is_empty()),
        };
        let mutation = match form.editing.clone() {
            Some(folder_id) => {
                // Show the change at once; the answer carries the stored folder.
                if let Some(folder) = self
                    .folders
                    .value
                    .as_mut()
                    .and_then(|l| l.iter_mut().find(|f| f.id == folder_id))
                {
                    folder.name = fields.name.clone().unwrap_or_default();
                    folder.color = fields.color.clone();
                    folder.icon = fields.icon.clone();
                }
                MediaMutation::UpdateFolder { folder_id, fields }
            }
            None => MediaMutation::CreateFolder { fields },
        };
        self.folder_form = None;
        vec![self.mutate(mutation)]
    }

    /// The viewer's list for the item at `index`: the loaded items around it (at most
    /// `VIEWER_LIST_MAX`), with the index of the opened one in that list.
    fn viewer_list(&self, index: usize) -> Option<ResultAction> {
        self.items.item(index)?;
        let start = index.saturating_sub(VIEWER_LIST_MAX / 2);
        let end = (start + VIEWER_LIST_MAX).min(self.items.len());
        let mut list = Vec::new();
        let mut at = 0;
        for i in start..end {
            if let Some(item) = self.items.item(i) {
                if i == index {
                    at = list.len();
                }
                list.push(ResultRef::Media(Box::new(item.clone())));
            }
        }
        Some(ResultAction::Open { list, index: at })
    }

    /// Empty trash, once select all has every page of the Trash: delete it all forever
    /// (the engine sends it in chunks the service accepts, paced to its bulk limit).
    fn empty_trash_when_loaded(&mut self) -> Vec<Action> {
        if !self.emptying_trash || self.selection.all_pending {
            return Vec::new();
        }
        self.emptying_trash = false;
        let ids = self.selection.ordered_ids(&self.items);
        self.remove_and_send(ids, BulkAction::DeleteForever, "empty the trash")
    }

    fn load_detail_if_single(&mut self) -> Vec<Action> {
        // The single-item route answers 404 for trashed items: the pane shows what the
        // list page says about them.
        if self.in_trash() {
            return Vec::new();
        }
        let Some(id) = self.single_selected().map(|i| i.id.clone()) else {
            return Vec::new();
        };
        if self.detail.as_ref().is_some_and(|(d, _)| *d == id) {
            return Vec::new();
        }
        let mut requested = Requested::default();
        requested.request();
        self.detail = Some((id.clone(), requested));
        vec![send(Command::LoadMediaDetail { id })]
    }

    // ---- events ------------------------------------------------------------------------

    /// A media event from the engine. Returns toasts and follow-up commands.
    pub fn handle_event(&mut self, event: Event) -> Vec<Action> {
        let mut out = Vec::new();
        match event {
            Event::MediaPage {
                request_id,
                page,
                result,
            } => {
                let error = result.as_ref().err().map(|e| e.to_string());
                let accepted =
                    self.items
                        .page_loaded(request_id, page, result.map_err(|e| e.to_string()));
                if accepted {
                    self.selection
                        .page_arrived(&self.items, page, error.is_some());
                    if self.emptying_trash && error.is_some() {
                        self.emptying_trash = false;
                        out.push(Action::Toast(
                            ToastKind::Error,
                            "The trash was not emptied: part of it could not be loaded. \
                             Nothing was deleted; try again."
                                .to_owned(),
                        ));
                    } else {
                        out.extend(self.empty_trash_when_loaded());
                    }
                }
                if accepted
                    && page > 1
                    && let Some(error) = error
                {
                    out.push(Action::Toast(
                        ToastKind::Error,
                        format!("Could not load more of the library: {error}"),
                    ));
                }
            }
            Event::MediaDetail { id, result } => {
                if let Some((current, detail)) = self.detail.as_mut()
                    && *current == id
                {
                    detail.set(result.map_err(|e| e.to_string()));
                }
            }
            Event::Folders(result) => {
                self.folders.set(result.map_err(|e| e.to_string()));
                self.forget_missing_restored_folder();
            }
            Event::MediaStats { result, .. } => self.stats.set(result.map_err(|e| e.to_string())),
            Event::MediaMutationDone {
                op_id,
                mutation,
                result,
            } => out.extend(self.mutation_done(op_id, mutation, result)),
            Event::TransferProgress {
                transfer_id,
                bytes_done,
                bytes_total,
            } => {
                if let Some(t) = self.transfers.iter_mut().find(|t| t.id == transfer_id) {
                    t.bytes_done = t.bytes_done.max(bytes_done);
                    if bytes_total > 0 {
                        t.bytes_total = bytes_total;
                    }
                }
            }
            Event::TransferFinished {
                transfer_id,
                outcome,
            } => {
                let Some(t) = self.transfers.iter_mut().find(|t| t.id == transfer_id) else {
                    return out;
                };
                match outcome {
                    TransferOutcome::Uploaded(_) => {
                        t.state = TransferState::Done;
                        t.bytes_done = t.bytes_total;
                        let commands = self.refresh();
                        out.extend(commands.into_iter().map(send));
                        out.push(send(Command::RefreshFolders));
                    }
                    TransferOutcome::Downloaded { paths } => {
                        t.state = TransferState::Done;
                        t.bytes_done = t.bytes_total;
                        let text = match paths.as_slice() {
                            [one] => format!("Saved {}", one.display()),
                            many => format!("Saved {} files", many.len()),
                        };
                        out.push(Action::Toast(ToastKind::Success, text));
                    }
                    TransferOutcome::Cancelled => t.state = TransferState::Cancelled,
                    TransferOutcome::Failed(error) => {
                        t.state = TransferState::Failed(error.to_string());
                    }
                }
            }
            _ => {}
        }
        out
    }

    fn mutation_done(
        &mut self,
        op_id: u64,
        mutation: MediaMutation,
        result: Result<MutationOutcome, crate::api::ApiError>,
    ) -> Vec<Action> {
        let mut out = Vec::new();
        let pending = self.pending.remove(&op_id);
        if self.share_op == Some(op_id) {
            self.share_op = None;
            if let Some(dialog) = self.share.as_mut() {
                dialog.pending = false;
                match &result {
                    Ok(MutationOutcome::Shared(outcome)) => {
                        dialog.not_found = outcome.not_found.clone();
                        dialog.emails.clear();
                        let shared = outcome.shared_with_user_ids.len();
                        let people = if shared == 1 { "person" } else { "people" };
                        dialog.note = Some(format!("Shared with {shared} {people}"));
                        if let MediaMutation::ShareFolder { folder_id, emails } = &mutation {
                            let before: Vec<String> = self
                                .folders
                                .value
                                .as_deref()
                                .unwrap_or_default()
                                .iter()
                                .find(|f| &f.id == folder_id)
                                .map(|f| f.shared_with.clone())
                                .unwrap_or_default();
                            learn_member(&mut self.known_members, emails, &before, outcome);
                        }
                    }
                    Ok(_) => dialog.note = Some("Shared".to_owned()),
                    Err(error) => dialog.error = Some(error.to_string()),
                }
            }
        }
        match result {
            Err(error) => {
                match pending {
                    Some(PendingOp::Favourite { ids, previous }) => {
                        self.items.settle_favourite(&ids, Some(&previous));
                    }
                    Some(PendingOp::Removed { removed, verb, .. }) => {
                        self.items.restore_removed(&removed);
                        out.push(Action::Toast(
                            ToastKind::Error,
                            format!("Could not {verb}: {error}"),
                        ));
                        return out;
                    }
                    Some(PendingOp::Moved { previous }) => {
                        self.items.restore_projects(&previous);
                    }
                    _ => {}
                }
                let what = mutation_label(&mutation);
                out.push(Action::Toast(
                    ToastKind::Error,
                    format!("Could not {what}: {error}"),
                ));
                if matches!(
                    mutation,
                    MediaMutation::UpdateFolder { .. } | MediaMutation::DeleteFolder { .. }
                ) {
                    self.folders.request();
                    out.push(send(Command::RefreshFolders));
                }
            }
            Ok(outcome) => {
                match pending {
                    Some(PendingOp::Favourite { ids, .. }) => {
                        self.items.settle_favourite(&ids, None);
                        out.extend(self.refresh().into_iter().map(send));
                    }
                    Some(PendingOp::Removed { ids, .. }) => {
                        self.items.forget_hidden(&ids);
                        out.extend(self.refresh().into_iter().map(send));
                        out.push(send(Command::RefreshFolders));
                    }
                    _ => {}
                }
                match (&mutation, outcome) {
                    (MediaMutation::CreateFolder { .. }, MutationOutcome::Folder(folder)) => {
                        let list = self.folders.value.get_or_insert_with(Vec::new);
                        if !list.iter().any(|f| f.id == folder.id) {
                            list.insert(0, folder.clone());
                        }
                        out.push(Action::Toast(
                            ToastKind::Success,
                            format!("Folder “{}” created", folder.name),
                        ));
                    }
                    (MediaMutation::AddToFolder { folder_id, .. }, outcome) => {
                        let name = self
                            .folder(folder_id)
                            .map(|f| f.name.clone())
                            .unwrap_or_else(|| "the folder".to_owned());
                        let text = match outcome {
                            MutationOutcome::AddedToFolder(o) => {
                                let added = o.added.unwrap_or(0);
                                let mut text = format!("Added {added} to {name}");
                                if o.skipped.unwrap_or(0) > 0 {
                                    text.push_str(&format!(
                                        " ({} already there)",
                                        o.skipped.unwrap_or(0)
                                    ));
                                }
                                if !o.rejected.is_empty() {
                                    text.push_str(&format!(
                                        "; {} not yours were skipped",
                                        o.rejected.len()
                                    ));
                                }
                                text
                            }
                            _ => format!("Added to {name}"),
                        };
                        out.push(Action::Toast(ToastKind::Success, text));
                        if self.place == Place::Folder(folder_id.clone()) {
                            out.extend(self.refresh().into_iter().map(send));
                        }
                    }
                    (MediaMutation::MoveToProject { .. }, outcome) => {
                        let count = match outcome {
                            MutationOutcome::Moved { count } => count,
                            _ => 0,
                        };
                        out.push(Action::Toast(
                            ToastKind::Success,
                            format!("Moved {count} to the project"),
                        ));
                        out.extend(self.refresh().into_iter().map(send));
                    }
                    _ => {}
                }
                if matches!(
                    mutation,
                    MediaMutation::CreateFolder { .. }
                        | MediaMutation::UpdateFolder { .. }
                        | MediaMutation::DeleteFolder { .. }
                        | MediaMutation::AddToFolder { .. }
                        | MediaMutation::ShareFolder { .. }
                        | MediaMutation::UnshareFolder { .. }
                ) {
                    self.folders.request();
                    out.push(send(Command::RefreshFolders));
                }
            }
        }
        out
    }
}

/// Name the account a share added when that is certain: one address found and one member
/// more than `members_before`. (With several, the answer does not say which id belongs to
/// which address; an address already a member, or the owner's own, adds nobody.)
fn learn_member(
    known: &mut HashMap<String, String>,
    emails_sent: &[String],
    members_before: &[String],
    outcome: &crate::api::media::ShareOutcome,
) {
    let not_found: HashSet<String> = outcome
        .not_found
        .iter()
        .map(|e| e.trim().to_lowercase())
        .collect();
    let mut found: Vec<String> = emails_sent
        .iter()
        .map(|e| e.trim().to_lowercase())
        .filter(|e| !e.is_empty() && !not_found.contains(e))
        .collect();
    found.sort();
    found.dedup();
    let added: Vec<&String> = outcome
        .shared_with_user_ids
        .iter()
        .filter(|id| !members_before.contains(id))
        .collect();
    if let ([email], [user_id]) = (found.as_slice(), added.as_slice()) {
        known.insert((*user_id).clone(), email.clone());
    }
}

/// How a folder member is shown: their address when this session learnt it, else a short
/// form of the account id (the full id is in the tooltip).
pub fn member_label(known: &HashMap<String, String>, user_id: &str) -> String {
    match known.get(user_id) {
        Some(email) => email.clone(),
        None => {
            let tail: String = user_id
                .chars()
                .rev()
                .take(6)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            format!("Account …{tail}")
        }
    }
}

fn send(command: Command) -> Action {
    Action::Send(Box::new(command))
}

fn mutation_label(mutation: &MediaMutation) -> &'static str {
    match mutation {
        MediaMutation::Favorite {
            favorited: true, ..
        } => "favourite",
        MediaMutation::Favorite { .. } => "remove the favourite",
        MediaMutation::Bulk { action, .. } => match action {
            BulkAction::Trash => "trash",
            BulkAction::Restore => "restore",
            BulkAction::DeleteForever => "delete",
        },
        MediaMutation::MoveToProject { .. } => "move to the project",
        MediaMutation::CreateFolder { .. } => "create the folder",
        MediaMutation::UpdateFolder { .. } => "change the folder",
        MediaMutation::DeleteFolder { .. } => "delete the folder",
        MediaMutation::AddToFolder { .. } => "add to the folder",
        MediaMutation::RemoveFromFolder { .. } => "remove from the folder",
        MediaMutation::ShareFolder { .. } => "share the folder",
        MediaMutation::UnshareFolder { .. } => "stop sharing",
        MediaMutation::MoveFolderContents { .. } => "move the folder's contents",
    }
}

fn file_label(path: &std::path::Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// A file name for a download: the item's filename, else its name, else the URL's last
/// segment; never a path.
fn download_name(item: &MediaItem) -> String {
    let candidate = item
        .filename
        .as_deref()
        .or(item.name.as_deref())
        .filter(|n| !n.trim().is_empty())
        .map(str::to_owned)
        .or_else(|| {
            item.url
                .split(['?', '#'])
                .next()
                .and_then(|u| u.rsplit('/').find(|s| !s.is_empty()))
                .map(str::to_owned)
        })
        .unwrap_or_else(|| item.id.clone());
    candidate
        .chars()
        .map(|c| {
            if matches!(c, '/' | '\\' | ':') {
                '_'
            } else {
                c
            }
        })
        .collect()
}

/// `3b82f6`, `#3B82F6` -> `#3B82F6`; anything else -> None.
pub fn normalise_hex(text: &str) -> Option<String> {
    let hex = text.trim().trim_start_matches('#');
    (hex.len() == 6 && hex.chars().all(|c| c.is_ascii_hexdigit()))
        .then(|| format!("#{}", hex.to_ascii_uppercase()))
}

/// A folder's colour, or the service's default blue.
pub fn folder_color(folder: &Folder) -> egui::Color32 {
    folder
        .color
        .as_deref()
        .and_then(|c| egui::Color32::from_hex(c.trim()).ok())
        .unwrap_or(tokens::palette().folder_default)
}

/// Everything the Library panel draws, laid out in the central panel. Returns actions.
pub fn library_ui(
    ui: &mut egui::Ui,
    state: &mut LibraryState,
    model: &Model,
    textures: &TextureCache,
) -> Vec<Action> {
    let mut actions = Vec::new();
    let wrap = |a: LibraryAction| Action::Library(a);
    let library_rect = ui.max_rect();
    // Decided by the window and the person's choices only, never by the selection:
    // selecting must not change the grid's width (its column count) under the pointer.
    state.library_width_pt = ui.available_width();
    let panes = layout::pane_layout(
        state.library_width_pt,
        state.thumb_px,
        state.sidebar_open,
        state.detail_open,
    );
    state.panes = panes;
    // A drawer is for a pane that has no room; once it docks, the drawer has no job.
    let drawer_pane = match state.drawer {
        Some(layout::Drawer::Sidebar) => Some(panes.sidebar),
        Some(layout::Drawer::Detail) => Some(panes.detail),
        None => None,
    };
    if drawer_pane == Some(layout::Pane::Docked) {
        state.drawer = None;
    }
    actions.extend(add_files::upload_keys_ui(ui, state).into_iter().map(wrap));
    actions.extend(layout::drawer_keys_ui(ui, state).map(wrap));
    actions.extend(state.pasted.poll());
    if state.pasted.is_busy() {
        ui.ctx()
            .request_repaint_after(std::time::Duration::from_millis(50));
    }

    let sidebar_width = match panes.sidebar {
        layout::Pane::Docked => tokens::LIBRARY_SIDEBAR_WIDTH,
        layout::Pane::Strip => layout::STRIP_WIDTH_PT,
    };
    egui::Panel::left("library_sidebar")
        .exact_size(sidebar_width)
        .resizable(false)
        .show_separator_line(false)
        .frame(widgets::side_panel_frame(match panes.sidebar {
            layout::Pane::Docked => egui::Margin::symmetric(10, 12),
            layout::Pane::Strip => egui::Margin::symmetric(4, 12),
        }))
        .show(ui, |ui| match panes.sidebar {
            layout::Pane::Docked => actions.extend(sidebar_pane_ui(ui, state, model)),
            layout::Pane::Strip => {
                let strip = layout::sidebar_strip_ui(ui, state);
                actions.extend(strip.into_iter().map(wrap));
            }
        });

    egui::Panel::bottom("library_footer")
        .exact_size(tokens::LIBRARY_FOOTER_HEIGHT)
        .resizable(false)
        .show_separator_line(false)
        .frame(
            egui::Frame::new()
                .fill(tokens::palette().bg_app)
                .inner_margin(egui::Margin::symmetric(16, 0)),
        )
        .show(ui, |ui| footer::footer_ui(ui, state));

    if !state.transfers.is_empty() {
        egui::Panel::bottom("library_transfers")
            .resizable(false)
            .show_separator_line(false)
            .frame(widgets::side_panel_frame(egui::Margin::symmetric(16, 8)))
            .show(ui, |ui| {
                actions.extend(uploads::transfers_ui(ui, state).into_iter().map(wrap));
            });
    }

    let detail_width = match panes.detail {
        layout::Pane::Docked => panes.detail_width_pt,
        layout::Pane::Strip => layout::STRIP_WIDTH_PT,
    };
    egui::Panel::right("library_detail")
        .exact_size(detail_width)
        .resizable(false)
        .show_separator_line(false)
        .frame(widgets::side_panel_frame(match panes.detail {
            layout::Pane::Docked => egui::Margin::same(14),
            layout::Pane::Strip => egui::Margin::symmetric(4, 12),
        }))
        .show(ui, |ui| match panes.detail {
            layout::Pane::Docked => actions.extend(detail_pane_ui(ui, state, model, textures)),
            layout::Pane::Strip => {
                let strip = layout::detail_strip_ui(ui, state);
                actions.extend(strip.into_iter().map(wrap));
            }
        });

    egui::CentralPanel::default()
        .frame(egui::Frame::new().inner_margin(egui::Margin {
            left: 16,
            right: 8,
            top: 12,
            bottom: 0,
        }))
        .show(ui, |ui| {
            actions.extend(toolbar::toolbar_ui(ui, state).into_iter().map(wrap));
            ui.add_space(tokens::SPACE_S);
            crate::ui::offline::banner_ui(ui, model);
            actions.extend(grid::grid_ui(ui, state, model, textures));
        });

    if let Some(drawer) = state.drawer {
        let mut over = library_rect;
        over.max.y -= tokens::LIBRARY_FOOTER_HEIGHT;
        let rect = layout::drawer_rect(over, drawer);
        let drawn = layout::drawer_ui(ui.ctx(), drawer, rect, |ui| match drawer {
            layout::Drawer::Sidebar => sidebar_pane_ui(ui, state, model),
            layout::Drawer::Detail => detail_pane_ui(ui, state, model, textures),
        });
        actions.extend(drawn);
    }

    actions.extend(dialogs_ui(ui.ctx(), state).into_iter().map(wrap));
    actions
}

/// The sidebar's contents (docked or in its drawer): the project filter, then sections
/// and folders.
fn sidebar_pane_ui(ui: &mut egui::Ui, state: &mut LibraryState, model: &Model) -> Vec<Action> {
    let mut actions = Vec::new();
    if let Some(hide) = layout::pane_header_ui(ui, state, "Project", layout::Drawer::Sidebar) {
        actions.push(Action::Library(hide));
    }
    let projects = model.projects.value.as_deref().unwrap_or_default();
    let filter = project_filter::project_filter_ui(ui, state, projects);
    actions.extend(filter.into_iter().map(Action::Library));
    let (boards, wants_list) = moodboard_filter::moodboard_filter_ui(ui, state);
    if wants_list {
        // The moodboard filter's choices (asked once; later lists come with every change).
        state.moodboard_filter.list_requested = true;
        actions.push(Action::Send(Box::new(Command::Moodboards(
            crate::engine::MoodboardCommand::List,
        ))));
    }
    actions.extend(boards.into_iter().map(Action::Library));
    let sections = sidebar::sidebar_ui(ui, state);
    actions.extend(sections.into_iter().map(Action::Library));
    actions
}

/// The detail pane's contents (docked or in its drawer).
fn detail_pane_ui(
    ui: &mut egui::Ui,
    state: &mut LibraryState,
    model: &Model,
    textures: &TextureCache,
) -> Vec<Action> {
    let mut actions = Vec::new();
    if let Some(hide) = layout::pane_header_ui(ui, state, "Details", layout::Drawer::Detail) {
        actions.push(Action::Library(hide));
    }
    // Out of the state for the call: the pane reads the state and drives its player.
    let mut player = std::mem::take(&mut state.detail_player);
    actions.extend(detail::detail_ui(ui, state, &mut player, model, textures));
    state.detail_player = player;
    actions
}

/// The library's modal dialogs: confirmations and folder sharing.
fn dialogs_ui(ctx: &egui::Context, state: &mut LibraryState) -> Vec<LibraryAction> {
    let mut actions = Vec::new();
    if let Some(confirm) = state.confirm.clone() {
        let (title, body, yes, action) = match &confirm {
            LibraryConfirm::DeleteForever(ids) => (
                "Delete forever?".to_owned(),
                format!(
                    "{} will be removed with their files, folder memberships and source \
                     generations. This cannot be undone.",
                    if ids.len() == 1 {
                        "This item".to_owned()
                    } else {
                        format!("These {} items", ids.len())
                    }
                ),
                "Delete forever",
                LibraryAction::DeleteForever(ids.clone()),
            ),
            LibraryConfirm::EmptyTrash => {
                let n = state.items.len();
                (
                    "Empty the trash?".to_owned(),
                    format!(
                        "{} in the trash will be deleted forever, with their files, folder \
                         memberships and source generations. This cannot be undone.",
                        if n == 1 {
                            "The 1 item".to_owned()
                        } else {
                            format!("All {} items", format::thousands(n as f64))
                        }
                    ),
                    "Empty trash",
                    LibraryAction::EmptyTrash,
                )
            }
            LibraryConfirm::DeleteFolder(id) => (
                format!(
                    "Delete the folder “{}”?",
                    state
                        .folder(id)
                        .map(|f| f.name.as_str())
                        .unwrap_or("folder")
                ),
                "The folder goes away; its items stay in the library.".to_owned(),
                "Delete folder",
                LibraryAction::DeleteFolder(id.clone()),
            ),
        };
        let response = egui::Modal::new(egui::Id::unique("library_confirm"))
            .backdrop_color(tokens::palette().scrim)
            .frame(tokens::card_frame().inner_margin(egui::Margin::same(20)))
            .show(ctx, |ui| {
                ui.set_width(400.0);
                ui.label(
                    egui::RichText::new(title)
                        .size(tokens::TEXT_TITLE)
                        .strong()
                        .color(tokens::palette().text),
                );
                ui.add_space(tokens::SPACE_XS);
                ui.label(egui::RichText::new(body).color(tokens::palette().text_muted));
                ui.add_space(tokens::SPACE_M);
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    if ui.add(crate::ui::widgets::danger_button(yes)).clicked() {
                        actions.push(action.clone());
                    }
                    if ui
                        .add(crate::ui::widgets::secondary_button("Cancel"))
                        .clicked()
                    {
                        actions.push(LibraryAction::CloseConfirm);
                    }
                });
            });
        if response.should_close() && actions.is_empty() {
            actions.push(LibraryAction::CloseConfirm);
        }
    }
    if state.share.is_some() {
        actions.extend(sidebar::share_dialog_ui(ctx, state));
    }
    actions
}

#[cfg(test)]
mod member_tests {
    use super::*;
    use crate::api::media::ShareOutcome;

    fn outcome(ids: &[&str], not_found: &[&str]) -> ShareOutcome {
        ShareOutcome {
            folder: None,
            shared_with_user_ids: ids.iter().map(|s| s.to_string()).collect(),
            not_found: not_found.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn a_member_is_named_only_when_the_answer_is_unambiguous() {
        let mut known = HashMap::new();
        let sent = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        // One address found, one member more: certain.
        learn_member(
            &mut known,
            &sent(&[" Ana@Studio.test ", "nobody@x.test"]),
            &["ben-id".to_owned()],
            &outcome(&["ben-id", "ana-id"], &["nobody@x.test"]),
        );
        assert_eq!(
            known.get("ana-id").map(String::as_str),
            Some("ana@studio.test")
        );
        // Two at once: which id is whose is unknown, so nobody is named.
        learn_member(
            &mut known,
            &sent(&["chloe@studio.test", "dev@studio.test"]),
            &[],
            &outcome(&["chloe-id", "dev-id"], &[]),
        );
        assert!(!known.contains_key("chloe-id") && !known.contains_key("dev-id"));
        // The owner's own address adds nobody: an existing member is not renamed.
        learn_member(
            &mut known,
            &sent(&["owner@studio.test"]),
            &["ben-id".to_owned()],
            &outcome(&["ben-id"], &[]),
        );
        assert!(!known.contains_key("ben-id"));

        assert_eq!(member_label(&known, "ana-id"), "ana@studio.test");
        assert_eq!(
            member_label(&known, "6b022704491ecd638d8e405b"),
            "Account …8e405b"
        );
    }
}
