//! The Docs view's state and logic (no drawing): the list for the chosen scope, the
//! document being edited, requests in flight (matched by op id), deletes waiting out their
//! Undo window, and the unsaved-changes guard.
//!
//! Delete with Undo: the service's delete is soft and has no restore, so a sent DELETE can
//! never be undone. Delete therefore only hides the document and shows a toast with Undo;
//! the toast's expiry (its lifetime, being dismissed, being pushed out, or the studio
//! quitting) commits it, and only then is the DELETE sent (`CommitDelete`).

use crate::api::docs::{MAX_DOC_PAGE_SIZE, check_doc_title};
use crate::api::{ApiError, DocMeta, DocPage, DocUpdate, NewDoc};
use crate::engine::{Command, DocsCommand, DocsEvent};
use crate::markup;
use crate::ui::model::{Action, View};
use crate::ui::toasts::{ToastAction, ToastKind, UndoToast};
use std::collections::HashMap;

/// How long Undo is offered after a delete (the DELETE is sent when it ends).
pub const DOC_UNDO_WINDOW_SECS: f64 = 8.0;
/// Documents asked for per page (the service's largest page).
pub const DOCS_PAGE_SIZE: u32 = MAX_DOC_PAGE_SIZE;

/// Which documents the list shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scope {
    /// The current project's (the one Create submits into).
    #[default]
    ThisProject,
    AllProjects,
}

/// What the view asks for; applied by [`DocsState::apply`] after layout.
#[derive(Clone, Debug, PartialEq)]
pub enum DocsAction {
    SetScope(Scope),
    /// Ask for the list again from page 1.
    Reload,
    /// The next page of the list.
    LoadMore,
    /// Open a document (asks first when the open one has unsaved changes).
    Open(String),
    /// Start a new document in the current project (asks first, like `Open`).
    New,
    Save,
    /// Delete the open document: hidden at once, sent when its Undo toast goes.
    Delete,
    UndoDelete(String),
    /// The Undo window of this delete is over: send the DELETE.
    CommitDelete(String),
    /// Set (never toggle) sharing of the open document.
    SetSharing {
        shared: bool,
        editable: bool,
    },
    /// Copy the open document's share link.
    CopyLink,
    /// The unsaved-changes dialog was answered.
    Answer(GuardAnswer),
    /// Try opening the document that failed to open again.
    RetryOpen,
}

/// The answers of the unsaved-changes dialog.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GuardAnswer {
    Save,
    Discard,
    Cancel,
}

/// Where the person wanted to go when the unsaved-changes dialog asked.
#[derive(Clone, Debug, PartialEq)]
pub enum LeaveTarget {
    Open(String),
    New,
    View(View),
    /// Another service profile (the connection, and with it the draft, is replaced).
    SwitchProfile(String),
    Quit,
}

impl LeaveTarget {
    fn action(self) -> Action {
        match self {
            LeaveTarget::Open(id) => Action::Docs(DocsAction::Open(id)),
            LeaveTarget::New => Action::Docs(DocsAction::New),
            LeaveTarget::View(view) => Action::Navigate(view),
            LeaveTarget::SwitchProfile(id) => Action::ActivateProfile(id),
            LeaveTarget::Quit => Action::Quit,
        }
    }
}

/// The list of documents for one scope.
#[derive(Clone, Debug, Default)]
pub struct DocList {
    /// Newest edit first.
    pub docs: Vec<DocMeta>,
    /// The project filter it was asked for (`Some(None)`: all projects).
    pub asked_for: Option<Option<String>>,
    /// The page request in flight.
    pub loading: Option<u64>,
    pub pages_loaded: u32,
    pub pages_total: Option<u32>,
    pub total: Option<u32>,
    pub error: Option<ApiError>,
}

impl DocList {
    /// Whether page 1 has answered for the current scope.
    pub fn is_loaded(&self) -> bool {
        self.pages_loaded > 0
    }

    pub fn has_more(&self) -> bool {
        self.pages_total
            .is_some_and(|pages| self.pages_loaded < pages)
    }

    /// Put `meta` in (or replace it), newest edit first.
    fn upsert(&mut self, meta: DocMeta) {
        match self.docs.iter_mut().find(|d| d.id == meta.id) {
            Some(existing) => *existing = meta,
            None => self.docs.push(meta),
        }
        self.sort();
    }

    fn remove(&mut self, id: &str) {
        self.docs.retain(|d| d.id != id);
    }

    fn sort(&mut self) {
        // Stable: equal times keep the service's order.
        self.docs
            .sort_by_key(|d| std::cmp::Reverse(d.updated_unix_ms().unwrap_or(i64::MIN)));
    }

    /// Whether a document of `project_id` belongs in this list.
    fn shows(&self, project_id: Option<&str>) -> bool {
        match &self.asked_for {
            Some(None) => true,
            Some(Some(wanted)) => project_id == Some(wanted.as_str()),
            None => false,
        }
    }
}

/// The document being edited.
#[derive(Clone, Debug)]
pub struct DocDraft {
    /// Tells drafts apart (a save's answer belongs to the draft that sent it).
    pub uid: u64,
    /// `None` until the first save creates it.
    pub meta: Option<DocMeta>,
    /// Where a new document is created (`None`: the service's default project).
    pub project_id: Option<String>,
    pub title: String,
    pub markdown: String,
    saved_title: String,
    saved_markdown: String,
    /// Shown under the title after a save was refused.
    pub title_error: Option<String>,
    /// What the service will not keep of `markdown` (see `markup::unsupported_content`).
    pub unsupported: Vec<String>,
    /// `markdown` as the service will keep it: what the preview renders.
    pub preview: String,
    pub save_error: Option<String>,
    /// The title field takes the keyboard focus on the next frame (a new document: typing
    /// names it).
    pub focus_title: bool,
}

impl DocDraft {
    fn new(uid: u64, meta: Option<DocMeta>, project_id: Option<String>, markdown: String) -> Self {
        let title = meta.as_ref().map(|m| m.title.clone()).unwrap_or_default();
        let mut draft = DocDraft {
            uid,
            meta,
            project_id,
            saved_title: title.clone(),
            title,
            saved_markdown: markdown.clone(),
            markdown,
            title_error: None,
            unsupported: Vec::new(),
            preview: String::new(),
            save_error: None,
            focus_title: false,
        };
        draft.markdown_changed();
        draft
    }

    pub fn doc_id(&self) -> Option<&str> {
        self.meta.as_ref().map(|m| m.id.as_str())
    }

    /// Edits not saved yet (a new document counts once anything is typed).
    pub fn is_dirty(&self) -> bool {
        self.title != self.saved_title || self.markdown != self.saved_markdown
    }

    /// Call after the Markdown changed: recomputes what the service will not keep and the
    /// preview.
    pub fn markdown_changed(&mut self) {
        self.unsupported = markup::unsupported_content(&self.markdown);
        self.preview = markup::as_stored_markdown(&self.markdown);
    }

    /// The title's problem to show at the field: a refused save's, or a live one when the
    /// title has grown past the limit.
    pub fn title_message(&self) -> Option<String> {
        let problem = check_doc_title(&self.title);
        if self.title_error.is_some() {
            problem
        } else {
            problem.filter(|_| !self.title.trim().is_empty())
        }
    }

    fn revert(&mut self) {
        self.title = self.saved_title.clone();
        self.markdown = self.saved_markdown.clone();
        self.title_error = None;
        self.save_error = None;
        self.markdown_changed();
    }
}

/// What the editor area shows.
#[derive(Clone, Debug, Default)]
pub enum EditorState {
    /// Nothing open.
    #[default]
    Empty,
    Opening {
        op_id: u64,
        doc_id: String,
        title: String,
    },
    /// Opening failed: the sentence for a person and the raw error.
    Failed {
        doc_id: String,
        message: String,
        error: Option<ApiError>,
    },
    Editing(Box<DocDraft>),
}

/// A save in flight.
#[derive(Clone, Debug)]
struct SaveOp {
    op_id: u64,
    draft_uid: u64,
    title: String,
    markdown: String,
}

/// A delete waiting for its Undo window (or sent and not yet answered).
#[derive(Clone, Debug)]
struct PendingDelete {
    meta: DocMeta,
    /// The draft as it was when deleted, restored by Undo.
    draft: Option<Box<DocDraft>>,
}

/// The Docs view's state.
pub struct DocsState {
    pub scope: Scope,
    pub list: DocList,
    pub editor: EditorState,
    /// The unsaved-changes dialog is open, for this target.
    pub guard: Option<LeaveTarget>,
    /// The share popover's request in flight and its last refusal.
    pub sharing: Option<u64>,
    pub share_error: Option<String>,
    /// How long Undo is offered after a delete.
    pub undo_window_secs: f64,
    saving: Option<SaveOp>,
    /// Where to go once the save the dialog asked for has succeeded.
    after_save: Option<LeaveTarget>,
    /// Deleted but not sent: waiting for Undo.
    pending_deletes: HashMap<String, PendingDelete>,
    /// Sent deletes by op id (put back if the service refuses).
    deleting: HashMap<u64, PendingDelete>,
    next_id: u64,
}

impl Default for DocsState {
    fn default() -> Self {
        Self {
            scope: Scope::default(),
            list: DocList::default(),
            editor: EditorState::default(),
            guard: None,
            sharing: None,
            share_error: None,
            undo_window_secs: DOC_UNDO_WINDOW_SECS,
            saving: None,
            after_save: None,
            pending_deletes: HashMap::new(),
            deleting: HashMap::new(),
            next_id: 0,
        }
    }
}

impl std::fmt::Debug for DocsState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DocsState")
            .field("scope", &self.scope)
            .field("list", &self.list)
            .field("editor", &self.editor)
            .field("guard", &self.guard)
            .finish_non_exhaustive()
    }
}

impl DocsState {
    fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// The draft being edited, if any.
    pub fn draft(&self) -> Option<&DocDraft> {
        match &self.editor {
            EditorState::Editing(draft) => Some(draft),
            _ => None,
        }
    }

    pub fn draft_mut(&mut self) -> Option<&mut DocDraft> {
        match &mut self.editor {
            EditorState::Editing(draft) => Some(draft),
            _ => None,
        }
    }

    pub fn is_saving(&self) -> bool {
        self.saving.is_some()
    }

    /// Unsaved edits in the open document.
    pub fn has_unsaved_changes(&self) -> bool {
        self.draft().is_some_and(DocDraft::is_dirty)
    }

    /// Deletes still offering Undo.
    pub fn pending_delete_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.pending_deletes.keys().cloned().collect();
        ids.sort();
        ids
    }

    /// Whether the person may leave for `target` now; if not, the unsaved-changes dialog
    /// opens and its answer continues to `target`.
    pub fn may_leave(&mut self, target: LeaveTarget) -> bool {
        if self.has_unsaved_changes() {
            self.guard = Some(target);
            false
        } else {
            true
        }
    }

    /// The list filter the current scope wants (`None` while the project is not known).
    fn wanted_filter(&self, project_id: Option<&str>) -> Option<Option<String>> {
        match self.scope {
            Scope::AllProjects => Some(None),
            Scope::ThisProject => project_id.map(|p| Some(p.to_owned())),
        }
    }

    /// Every frame while the view shows: ask for the list when the scope or the project
    /// changed (or after `Reload`).
    pub fn start(&mut self, project_id: Option<&str>) -> Vec<Command> {
        let Some(wanted) = self.wanted_filter(project_id) else {
            return Vec::new();
        };
        if self.list.asked_for.as_ref() == Some(&wanted) {
            return Vec::new();
        }
        self.list = DocList {
            asked_for: Some(wanted),
            ..DocList::default()
        };
        vec![self.page_command(1)]
    }

    fn page_command(&mut self, page: u32) -> Command {
        let op_id = self.next_id();
        self.list.loading = Some(op_id);
        Command::Docs(DocsCommand::List {
            op_id,
            project_id: self.list.asked_for.clone().flatten(),
            page,
            limit: DOCS_PAGE_SIZE,
        })
    }

    /// The service answers again: ask for the list anew and reopen a document that failed.
    pub fn on_service_reachable(&mut self) {
        if self.list.error.is_some() || !self.list.is_loaded() {
            self.list.asked_for = None;
        }
    }

    // ---- events -------------------------------------------------------------------------

    pub fn handle_event(&mut self, event: DocsEvent) -> Vec<Action> {
        let mut out = Vec::new();
        match event {
            DocsEvent::Listed {
                op_id,
                page,
                result,
                ..
            } => {
                if self.list.loading != Some(op_id) {
                    return out; // a scope since left
                }
                self.list.loading = None;
                match result {
                    Ok(answer) => self.take_page(page, answer),
                    Err(error) => self.list.error = Some(error),
                }
            }
            DocsEvent::Opened {
                op_id,
                doc_id,
                result,
            } => {
                if !matches!(&self.editor, EditorState::Opening { op_id: o, .. } if *o == op_id) {
                    return out;
                }
                match result {
                    Ok(doc) => match markup::html_to_markdown(&doc.content) {
                        Ok(markdown) => {
                            let uid = self.next_id();
                            let project_id = doc.meta.project_id.clone();
                            self.list_update(&doc.meta);
                            self.editor = EditorState::Editing(Box::new(DocDraft::new(
                                uid,
                                Some(doc.meta),
                                project_id,
                                markdown,
                            )));
                        }
                        Err(error) => {
                            self.editor = EditorState::Failed {
                                doc_id,
                                message: format!("This document could not be shown: {error}"),
                                error: None,
                            }
                        }
                    },
                    Err(error) => {
                        let message = if error.status() == Some(404) {
                            self.list.remove(&doc_id);
                            "This document no longer exists (it was deleted, or you lost \
                             access to its project)."
                                .to_owned()
                        } else {
                            "This document could not be opened.".to_owned()
                        };
                        self.editor = EditorState::Failed {
                            doc_id,
                            message,
                            error: Some(error),
                        };
                    }
                }
            }
            DocsEvent::Created { op_id, result } => {
                out.extend(self.save_answered(op_id, result));
            }
            DocsEvent::Updated { op_id, result, .. } => {
                out.extend(self.save_answered(op_id, result.map(|doc| doc.meta)));
            }
            DocsEvent::Shared {
                op_id,
                doc_id,
                result,
            } => {
                if self.sharing == Some(op_id) {
                    self.sharing = None;
                }
                match result {
                    Ok(meta) => {
                        self.share_error = None;
                        self.list_update(&meta);
                        if let Some(draft) = self.draft_mut()
                            && draft.doc_id() == Some(doc_id.as_str())
                        {
                            draft.meta = Some(meta);
                        }
                    }
                    Err(error) => {
                        tracing::warn!("document share failed: {error}");
                        self.share_error =
                            Some(format!("Sharing did not change: {}", said(&error)));
                    }
                }
            }
            DocsEvent::Deleted {
                op_id,
                doc_id,
                result,
            } => {
                let pending = self.deleting.remove(&op_id);
                match result {
                    // Gone either way.
                    Ok(()) => {}
                    Err(error) if error.status() == Some(404) => {}
                    Err(error) => {
                        let title = pending
                            .as_ref()
                            .map(|p| p.meta.display_title().to_owned())
                            .unwrap_or(doc_id);
                        if let Some(pending) = pending
                            && self.list.shows(pending.meta.project_id.as_deref())
                        {
                            self.list.upsert(pending.meta);
                        }
                        out.push(Action::Toast(
                            ToastKind::Error,
                            format!("“{title}” was not deleted: {error}"),
                        ));
                    }
                }
            }
        }
        out
    }

    fn take_page(&mut self, page: u32, answer: DocPage) {
        self.list.error = None;
        if page <= 1 {
            self.list.docs.clear();
        }
        let hidden = |d: &DocMeta| {
            self.pending_deletes.contains_key(&d.id)
                || self.deleting.values().any(|p| p.meta.id == d.id)
        };
        for doc in answer.docs {
            if !hidden(&doc) && !self.list.docs.iter().any(|d| d.id == doc.id) {
                self.list.docs.push(doc);
            }
        }
        self.list.sort();
        self.list.pages_loaded = page.max(1);
        self.list.pages_total = answer.pagination.pages;
        self.list.total = answer.pagination.total;
    }

    /// Replace a listed document's metadata (it is only added if the list shows it).
    fn list_update(&mut self, meta: &DocMeta) {
        let listed = self.list.docs.iter().any(|d| d.id == meta.id);
        if listed || self.list.shows(meta.project_id.as_deref()) {
            self.list.upsert(meta.clone());
        }
    }

    fn save_answered(&mut self, op_id: u64, result: Result<DocMeta, ApiError>) -> Vec<Action> {
        let mut out = Vec::new();
        let Some(op) = self.saving.take_if(|s| s.op_id == op_id) else {
            return out;
        };
        let after_save = self.after_save.take();
        match result {
            Ok(meta) => {
                self.list_update(&meta);
                if let Some(draft) = self.draft_mut()
                    && draft.uid == op.draft_uid
                {
                    draft.meta = Some(meta.clone());
                    draft.project_id = meta.project_id.clone();
                    draft.saved_title = op.title;
                    draft.saved_markdown = op.markdown;
                    draft.save_error = None;
                }
                out.push(Action::Toast(
                    ToastKind::Success,
                    format!("Saved “{}”", meta.display_title()),
                ));
                if let Some(target) = after_save {
                    out.push(target.action());
                }
            }
            Err(error) => {
                tracing::warn!("document save failed: {error}");
                if error.outcome_unknown() {
                    // A create may have happened: the list shows whether it did.
                    self.list.asked_for = None;
                }
                let message = if error.status() == Some(404) {
                    "Not saved: this document no longer exists on the service (deleted, or \
                     you lost access to its project). Copy your text before leaving."
                        .to_owned()
                } else {
                    format!("Not saved: {}. Your text is still here.", said(&error))
                };
                if let Some(draft) = self.draft_mut()
                    && draft.uid == op.draft_uid
                {
                    draft.save_error = Some(message);
                } else {
                    out.push(Action::Toast(ToastKind::Error, message));
                }
            }
        }
        out
    }

    // ---- actions ------------------------------------------------------------------------

    /// Apply one action; `project_id` is the current project (where new documents go).
    pub fn apply(&mut self, action: DocsAction, project_id: Option<&str>) -> Vec<Action> {
        let mut out = Vec::new();
        match action {
            DocsAction::SetScope(scope) => self.scope = scope,
            DocsAction::Reload => self.list.asked_for = None,
            DocsAction::LoadMore => {
                if self.list.loading.is_none() && self.list.has_more() {
                    let command = self.page_command(self.list.pages_loaded + 1);
                    out.push(Action::Send(Box::new(command)));
                }
            }
            DocsAction::Open(doc_id) => {
                let already_open = self.draft().and_then(DocDraft::doc_id) == Some(&doc_id);
                if already_open || !self.may_leave(LeaveTarget::Open(doc_id.clone())) {
                    return out;
                }
                out.push(self.open(doc_id));
            }
            DocsAction::RetryOpen => {
                if let EditorState::Failed { doc_id, .. } = &self.editor {
                    let doc_id = doc_id.clone();
                    out.push(self.open(doc_id));
                }
            }
            DocsAction::New => {
                if self.may_leave(LeaveTarget::New) {
                    let uid = self.next_id();
                    let mut draft =
                        DocDraft::new(uid, None, project_id.map(str::to_owned), String::new());
                    draft.focus_title = true;
                    self.editor = EditorState::Editing(Box::new(draft));
                    self.share_error = None;
                }
            }
            DocsAction::Save => out.extend(self.save()),
            DocsAction::Delete => out.extend(self.delete()),
            DocsAction::UndoDelete(doc_id) => {
                if let Some(pending) = self.pending_deletes.remove(&doc_id) {
                    if self.list.shows(pending.meta.project_id.as_deref()) {
                        self.list.upsert(pending.meta);
                    }
                    if matches!(self.editor, EditorState::Empty)
                        && let Some(draft) = pending.draft
                    {
                        self.editor = EditorState::Editing(draft);
                    }
                }
            }
            DocsAction::CommitDelete(doc_id) => {
                if let Some(pending) = self.pending_deletes.remove(&doc_id) {
                    let op_id = self.next_id();
                    self.deleting.insert(op_id, pending);
                    out.push(Action::Send(Box::new(Command::Docs(DocsCommand::Delete {
                        op_id,
                        doc_id,
                    }))));
                }
            }
            DocsAction::SetSharing { shared, editable } => {
                if let Some(doc_id) = self.draft().and_then(DocDraft::doc_id) {
                    let doc_id = doc_id.to_owned();
                    let op_id = self.next_id();
                    self.sharing = Some(op_id);
                    self.share_error = None;
                    out.push(Action::Send(Box::new(Command::Docs(DocsCommand::Share {
                        op_id,
                        doc_id,
                        shared,
                        editable,
                    }))));
                }
            }
            DocsAction::CopyLink => {
                if let Some(url) = self
                    .draft()
                    .and_then(|d| d.meta.as_ref())
                    .and_then(|m| m.share_url.clone())
                {
                    out.push(Action::CopyText {
                        text: url,
                        what: "Share link".to_owned(),
                    });
                }
            }
            DocsAction::Answer(answer) => out.extend(self.answer(answer)),
        }
        out
    }

    fn open(&mut self, doc_id: String) -> Action {
        let op_id = self.next_id();
        let title = self
            .list
            .docs
            .iter()
            .find(|d| d.id == doc_id)
            .map(|d| d.display_title().to_owned())
            .unwrap_or_default();
        self.editor = EditorState::Opening {
            op_id,
            doc_id: doc_id.clone(),
            title,
        };
        self.share_error = None;
        Action::Send(Box::new(Command::Docs(DocsCommand::Open { op_id, doc_id })))
    }

    fn save(&mut self) -> Vec<Action> {
        let mut out = Vec::new();
        if self.saving.is_some() {
            return out;
        }
        let op_id = self.next_id();
        let Some(draft) = self.draft_mut() else {
            return out;
        };
        draft.title_error = check_doc_title(&draft.title);
        if draft.title_error.is_some() {
            return out;
        }
        draft.save_error = None;
        let title = draft.title.trim().to_owned();
        let content = markup::to_stored_html(&draft.markdown);
        let command = match draft.meta.as_ref() {
            None => DocsCommand::Create {
                op_id,
                body: NewDoc {
                    title: title.clone(),
                    content: Some(content),
                    project_id: draft.project_id.clone(),
                },
            },
            Some(meta) => DocsCommand::Update {
                op_id,
                doc_id: meta.id.clone(),
                fields: DocUpdate {
                    title: Some(title.clone()),
                    content: Some(content),
                },
            },
        };
        let op = SaveOp {
            op_id,
            draft_uid: draft.uid,
            title: draft.title.clone(),
            markdown: draft.markdown.clone(),
        };
        self.saving = Some(op);
        out.push(Action::Send(Box::new(Command::Docs(command))));
        out
    }

    fn delete(&mut self) -> Vec<Action> {
        let mut out = Vec::new();
        if self.saving.is_some() {
            return out;
        }
        let EditorState::Editing(draft) = std::mem::take(&mut self.editor) else {
            return out;
        };
        let Some(meta) = draft.meta.clone() else {
            // Never saved: nothing on the service to delete.
            self.editor = EditorState::Editing(draft);
            return out;
        };
        self.list.remove(&meta.id);
        let text = format!("Deleted “{}”", meta.display_title());
        let id = meta.id.clone();
        self.pending_deletes.insert(
            id.clone(),
            PendingDelete {
                meta,
                draft: Some(draft),
            },
        );
        out.push(Action::UndoToast(UndoToast {
            text,
            label: "Undo".to_owned(),
            undo: ToastAction::Docs(DocsAction::UndoDelete(id.clone())),
            commit: ToastAction::Docs(DocsAction::CommitDelete(id)),
            lifetime_secs: self.undo_window_secs,
        }));
        out
    }

    fn answer(&mut self, answer: GuardAnswer) -> Vec<Action> {
        let Some(target) = self.guard.take() else {
            return Vec::new();
        };
        match answer {
            GuardAnswer::Cancel => Vec::new(),
            GuardAnswer::Discard => {
                match &mut self.editor {
                    EditorState::Editing(draft) if draft.meta.is_some() => draft.revert(),
                    _ => self.editor = EditorState::Empty,
                }
                vec![target.action()]
            }
            GuardAnswer::Save => {
                let out = self.save();
                if self.saving.is_some() {
                    self.after_save = Some(target);
                }
                out
            }
        }
    }

    /// Forget everything about the old service (another profile became active).
    pub fn reset(&mut self) {
        let undo_window_secs = self.undo_window_secs;
        *self = DocsState {
            undo_window_secs,
            ..DocsState::default()
        };
    }
}

/// An error as a person reads it ([`crate::ui::offline::service_error`]); a write without an answer
/// also says it may have happened.
fn said(error: &ApiError) -> String {
    match error {
        ApiError::NoResponse(_) => {
            "the service did not answer, so it may or may not have happened".to_owned()
        }
        other => crate::ui::offline::service_error(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::DocPagination;

    fn meta(id: &str, updated: &str) -> DocMeta {
        DocMeta {
            id: id.into(),
            title: format!("Doc {id}"),
            project_id: Some("p1".into()),
            updated_at: Some(updated.into()),
            ..DocMeta::default()
        }
    }

    fn sent(actions: &[Action]) -> Vec<&DocsCommand> {
        actions
            .iter()
            .filter_map(|a| match a {
                Action::Send(command) => match command.as_ref() {
                    Command::Docs(docs) => Some(docs),
                    _ => None,
                },
                _ => None,
            })
            .collect()
    }

    /// A state listing two documents of project p1, the newer one open.
    fn listed_and_open() -> DocsState {
        let mut state = DocsState::default();
        let commands = state.start(Some("p1"));
        let Some(Command::Docs(DocsCommand::List { op_id, .. })) = commands.first() else {
            panic!("a list request: {commands:?}");
        };
        state.handle_event(DocsEvent::Listed {
            op_id: *op_id,
            project_id: Some("p1".into()),
            page: 1,
            result: Ok(DocPage {
                docs: vec![
                    meta("old", "2026-01-01T00:00:00.000Z"),
                    meta("new", "2026-02-01T00:00:00.000Z"),
                ],
                pagination: DocPagination::default(),
            }),
        });
        let actions = state.apply(DocsAction::Open("new".into()), Some("p1"));
        let [DocsCommand::Open { op_id, .. }] = sent(&actions)[..] else {
            panic!("an open request");
        };
        state.handle_event(DocsEvent::Opened {
            op_id: *op_id,
            doc_id: "new".into(),
            result: Ok(crate::api::Doc {
                meta: meta("new", "2026-02-01T00:00:00.000Z"),
                content: "<h1>Hi</h1>".into(),
            }),
        });
        state
    }

    #[test]
    fn the_list_is_newest_edit_first_and_opening_converts_to_markdown() {
        let state = listed_and_open();
        let ids: Vec<&str> = state.list.docs.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(ids, ["new", "old"]);
        let draft = state.draft().expect("open");
        assert_eq!(draft.markdown, "# Hi\n");
        assert!(!draft.is_dirty());
    }

    #[test]
    fn delete_sends_nothing_until_committed_and_undo_restores_the_draft() {
        let mut state = listed_and_open();
        state.draft_mut().unwrap().markdown.push_str("more\n");
        let actions = state.apply(DocsAction::Delete, Some("p1"));
        assert!(sent(&actions).is_empty(), "nothing sent on delete");
        let Some(Action::UndoToast(toast)) = actions.first() else {
            panic!("an undo toast");
        };
        assert_eq!(
            toast.commit,
            ToastAction::Docs(DocsAction::CommitDelete("new".into()))
        );
        assert!(state.list.docs.iter().all(|d| d.id != "new"));
        assert!(matches!(state.editor, EditorState::Empty));

        let actions = state.apply(DocsAction::UndoDelete("new".into()), Some("p1"));
        assert!(actions.is_empty());
        assert_eq!(state.list.docs[0].id, "new");
        assert!(
            state.draft().unwrap().markdown.ends_with("more\n"),
            "edits kept"
        );

        state.apply(DocsAction::Delete, Some("p1"));
        let actions = state.apply(DocsAction::CommitDelete("new".into()), Some("p1"));
        assert!(matches!(sent(&actions)[..], [DocsCommand::Delete { .. }]));
        // A second commit (toast expiry after quit's flush) sends nothing more.
        assert!(
            state
                .apply(DocsAction::CommitDelete("new".into()), Some("p1"))
                .is_empty()
        );
    }

    #[test]
    fn a_refused_delete_puts_the_document_back() {
        let mut state = listed_and_open();
        state.apply(DocsAction::Delete, Some("p1"));
        let actions = state.apply(DocsAction::CommitDelete("new".into()), Some("p1"));
        let [DocsCommand::Delete { op_id, .. }] = sent(&actions)[..] else {
            panic!("a delete");
        };
        let actions = state.handle_event(DocsEvent::Deleted {
            op_id: *op_id,
            doc_id: "new".into(),
            result: Err(ApiError::Status {
                status: 403,
                message: "Only the owner can delete".into(),
                code: None,
                retry_after_secs: None,
            }),
        });
        assert!(matches!(&actions[..], [Action::Toast(ToastKind::Error, _)]));
        assert!(state.list.docs.iter().any(|d| d.id == "new"));
    }

    #[test]
    fn unsaved_changes_ask_before_switching_and_discard_continues() {
        let mut state = listed_and_open();
        state.draft_mut().unwrap().title = "Changed".into();
        let actions = state.apply(DocsAction::Open("old".into()), Some("p1"));
        assert!(actions.is_empty());
        assert_eq!(state.guard, Some(LeaveTarget::Open("old".into())));
        assert!(!state.may_leave(LeaveTarget::View(View::Create)));
        state.guard = Some(LeaveTarget::Open("old".into()));
        let actions = state.apply(DocsAction::Answer(GuardAnswer::Discard), Some("p1"));
        assert!(matches!(&actions[..], [Action::Docs(DocsAction::Open(id))] if id == "old"));
        assert!(!state.has_unsaved_changes());

        // Switching services replaces the connection and the draft with it: asked too.
        state.draft_mut().unwrap().markdown.push_str("more");
        assert!(!state.may_leave(LeaveTarget::SwitchProfile("remote".into())));
        let actions = state.apply(DocsAction::Answer(GuardAnswer::Discard), Some("p1"));
        assert!(matches!(&actions[..], [Action::ActivateProfile(id)] if id == "remote"));
    }

    #[test]
    fn save_from_the_dialog_continues_only_after_the_service_confirms() {
        let mut state = listed_and_open();
        state.draft_mut().unwrap().markdown = "# Changed\n".into();
        assert!(!state.may_leave(LeaveTarget::View(View::Library)));
        let actions = state.apply(DocsAction::Answer(GuardAnswer::Save), Some("p1"));
        let [DocsCommand::Update { op_id, fields, .. }] = sent(&actions)[..] else {
            panic!("an update");
        };
        assert_eq!(fields.content.as_deref(), Some("<h1>Changed</h1>\n"));
        let actions = state.handle_event(DocsEvent::Updated {
            op_id: *op_id,
            doc_id: "new".into(),
            result: Ok(crate::api::Doc {
                meta: meta("new", "2026-03-01T00:00:00.000Z"),
                content: "<h1>Changed</h1>".into(),
            }),
        });
        assert!(
            actions
                .iter()
                .any(|a| matches!(a, Action::Navigate(View::Library)))
        );
        assert!(!state.has_unsaved_changes());
    }

    #[test]
    fn a_title_is_required_before_anything_is_sent() {
        let mut state = DocsState::default();
        state.apply(DocsAction::New, Some("p1"));
        state.draft_mut().unwrap().markdown = "text".into();
        assert!(sent(&state.apply(DocsAction::Save, Some("p1"))).is_empty());
        assert!(state.draft().unwrap().title_message().is_some());
        state.draft_mut().unwrap().title = "x".repeat(201);
        assert!(
            state.draft().unwrap().title_message().is_some(),
            "live over the limit"
        );
    }
}
