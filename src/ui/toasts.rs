//! A small stack of toasts, top centre over the views' headings (where no primary button
//! is: Generate, Send, Save and Delete… are at the bottom or the sides), each dismissed
//! after a few seconds; over an open dialog they move above or below it.
//!
//! A toast may carry one button (Undo) and an `on_expire` action that runs when it leaves
//! without its button being pressed: its lifetime ran out, it was dismissed, or it was
//! pushed out by newer toasts. That is how a delete with Undo is sent only once Undo is no
//! longer offered; [`Toasts::take_expiring`] runs the rest when the studio quits.

use crate::ui::library::LibraryAction;
use crate::ui::model::Action;
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{Color32, CornerRadius, RichText, Stroke};

pub const TOAST_LIFETIME_SECS: f64 = 5.0;
const MAX_TOASTS: usize = 5;
/// Outer width of a toast.
pub const TOAST_WIDTH: f32 = 320.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToastKind {
    Info,
    Success,
    /// Needs attention but nothing failed (a low balance).
    Warning,
    Error,
}

impl ToastKind {
    fn color(self) -> Color32 {
        match self {
            ToastKind::Info => tokens::palette().info,
            ToastKind::Success => tokens::palette().success,
            ToastKind::Warning => tokens::palette().warning,
            ToastKind::Error => tokens::palette().danger,
        }
    }
}

/// What a toast's button, or its expiry, does.
#[derive(Clone, Debug, PartialEq)]
pub enum ToastAction {
    Library(LibraryAction),
    Docs(crate::ui::docs::DocsAction),
    Projects(crate::ui::projects::ProjectsAction),
}

impl From<ToastAction> for Action {
    fn from(action: ToastAction) -> Self {
        match action {
            ToastAction::Library(action) => Action::Library(action),
            ToastAction::Docs(action) => Action::Docs(action),
            ToastAction::Projects(action) => Action::Projects(action),
        }
    }
}

/// A toast offering Undo for a change that is only made when the toast goes away.
#[derive(Clone, Debug, PartialEq)]
pub struct UndoToast {
    pub text: String,
    /// The button ("Undo") and what it does.
    pub label: String,
    pub undo: ToastAction,
    /// Runs when the toast leaves without Undo (timeout, dismissed, pushed out, quit).
    pub commit: ToastAction,
    pub lifetime_secs: f64,
}

#[derive(Clone, Debug)]
pub struct Toast {
    pub id: u64,
    pub kind: ToastKind,
    pub text: String,
    /// `ctx.input().time` when shown; set on first layout.
    pub shown_at: Option<f64>,
    /// One button (label, action), e.g. "Undo" after trashing.
    pub button: Option<(String, ToastAction)>,
    /// Runs when the toast leaves without its button being pressed.
    pub on_expire: Option<ToastAction>,
    pub lifetime_secs: f64,
    /// Stays until dismissed (start-up notices the person must not miss).
    pub sticky: bool,
}

#[derive(Default)]
pub struct Toasts {
    items: Vec<Toast>,
    next_id: u64,
    /// Expiry actions of toasts pushed out by a plain toast, handed out by the next tick.
    expired: Vec<ToastAction>,
}

impl Toasts {
    pub fn push(&mut self, kind: ToastKind, text: impl Into<String>) {
        self.push_toast(kind, text.into(), None);
    }

    /// A toast that stays until the person dismisses it.
    pub fn push_sticky(&mut self, kind: ToastKind, text: impl Into<String>) {
        self.push_toast(kind, text.into(), None);
        if let Some(toast) = self.items.last_mut() {
            toast.sticky = true;
        }
    }

    /// A toast that stays until dismissed or changed, e.g. a download's progress; its id
    /// for [`Self::set_text`] and [`Self::dismiss`].
    pub fn push_progress(&mut self, text: impl Into<String>) -> u64 {
        self.push_sticky(ToastKind::Info, text);
        self.items.last().map_or(0, |toast| toast.id)
    }

    /// Change a toast's text (false when it is gone, e.g. dismissed).
    pub fn set_text(&mut self, id: u64, text: impl Into<String>) -> bool {
        match self.items.iter_mut().find(|toast| toast.id == id) {
            Some(toast) => {
                toast.text = text.into();
                true
            }
            None => false,
        }
    }

    /// A toast with a button that runs `action` (and dismisses the toast).
    pub fn push_with_action(
        &mut self,
        kind: ToastKind,
        text: impl Into<String>,
        label: impl Into<String>,
        action: ToastAction,
    ) {
        self.push_toast(kind, text.into(), Some((label.into(), action)));
    }

    /// A toast with Undo whose `commit` runs when it leaves without Undo. Returns the
    /// commits of toasts it pushed out (run them now).
    pub fn push_undoable(&mut self, toast: UndoToast) -> Vec<ToastAction> {
        self.next_id += 1;
        self.items.push(Toast {
            id: self.next_id,
            kind: ToastKind::Info,
            text: toast.text,
            shown_at: None,
            button: Some((toast.label, toast.undo)),
            on_expire: Some(toast.commit),
            lifetime_secs: toast.lifetime_secs,
            sticky: false,
        });
        self.evict()
    }

    fn push_toast(&mut self, kind: ToastKind, text: String, button: Option<(String, ToastAction)>) {
        self.next_id += 1;
        self.items.push(Toast {
            id: self.next_id,
            kind,
            text,
            shown_at: None,
            button,
            on_expire: None,
            lifetime_secs: TOAST_LIFETIME_SECS,
            sticky: false,
        });
        // An Undo toast pushed out by this one still commits: on the next tick.
        let pushed_out = self.evict();
        self.expired.extend(pushed_out);
    }

    /// Over the limit: the oldest goes, never the one just pushed (one without a pending
    /// change first; a start-up notice stays until dismissed). The pushed-out toasts'
    /// expiry actions.
    fn evict(&mut self) -> Vec<ToastAction> {
        let mut expired = Vec::new();
        while self.items.len() > MAX_TOASTS {
            let older = &self.items[..self.items.len() - 1];
            let oldest = older
                .iter()
                .position(|t| !t.sticky && t.on_expire.is_none())
                .or_else(|| older.iter().position(|t| !t.sticky))
                .unwrap_or(0);
            expired.extend(self.items.remove(oldest).on_expire);
        }
        expired
    }

    /// The person closed the toast: its expiry action, if any (run it).
    pub fn dismiss(&mut self, id: u64) -> Option<ToastAction> {
        let index = self.items.iter().position(|t| t.id == id)?;
        self.items.remove(index).on_expire
    }

    /// The toast's button was pressed: its action (run it); the expiry action is dropped.
    pub fn press(&mut self, id: u64) -> Option<ToastAction> {
        let index = self.items.iter().position(|t| t.id == id)?;
        self.items.remove(index).button.map(|(_, action)| action)
    }

    /// Every pending expiry action, its toasts removed (the studio is quitting).
    pub fn take_expiring(&mut self) -> Vec<ToastAction> {
        let mut actions = std::mem::take(&mut self.expired);
        let (expiring, rest): (Vec<Toast>, Vec<Toast>) = std::mem::take(&mut self.items)
            .into_iter()
            .partition(|t| t.on_expire.is_some());
        self.items = rest;
        actions.extend(expiring.into_iter().filter_map(|t| t.on_expire));
        actions
    }

    pub fn items(&self) -> &[Toast] {
        &self.items
    }

    /// Stamp new toasts and drop expired ones. Call before layout; run the returned
    /// expiry actions.
    pub fn tick(&mut self, now: f64) -> Vec<ToastAction> {
        for toast in &mut self.items {
            toast.shown_at.get_or_insert(now);
        }
        let mut expired = std::mem::take(&mut self.expired);
        let (keep, gone): (Vec<Toast>, Vec<Toast>) = std::mem::take(&mut self.items)
            .into_iter()
            .partition(|t| t.sticky || t.shown_at.is_none_or(|s| now - s < t.lifetime_secs));
        self.items = keep;
        expired.extend(gone.into_iter().filter_map(|t| t.on_expire));
        expired
    }
}

/// Where the stack's top centre goes. Without a dialog: the top centre of `central` (the
/// area between the rail and the tray), over the views' headings: the views keep their
/// primary buttons at the bottom (Generate, Send, Save, Delete…) or at the sides of their
/// headers. Over the viewer: the top centre of the window, clear of its corner buttons.
/// Over a dialog: above it when the stack fits there, else below it.
pub fn stack_top_centre(
    window: egui::Rect,
    central: egui::Rect,
    dialog: Option<egui::Rect>,
    over_viewer: bool,
    stack_height_pt: f32,
) -> egui::Pos2 {
    let gap = tokens::SPACE_S;
    let Some(dialog) = dialog else {
        let centre_x = if over_viewer {
            window.center().x
        } else {
            central.center().x
        };
        let top = if over_viewer {
            window.top()
        } else {
            central.top()
        };
        return egui::pos2(centre_x, top + gap);
    };
    let above = dialog.top() - window.top() - 2.0 * gap;
    let below = window.bottom() - dialog.bottom() - 2.0 * gap;
    let top = if above >= stack_height_pt || above >= below {
        window.top() + gap
    } else {
        dialog.bottom() + gap
    };
    egui::pos2(window.center().x, top)
}

/// The stack's egui area (its rect is in `Memory::area_rect`).
pub fn stack_id() -> egui::Id {
    egui::Id::unique("toasts")
}

/// Draw the stack, newest first, where [`stack_top_centre`] says. `central`: the area the
/// views use this frame; `over_viewer`: the viewer covers the window.
pub fn toasts_ui(
    ctx: &egui::Context,
    toasts: &Toasts,
    central: egui::Rect,
    over_viewer: bool,
) -> Vec<Action> {
    let mut actions = Vec::new();
    if toasts.items().is_empty() {
        return actions;
    }
    let now = ctx.input(|i| i.time);
    let area_id = stack_id();
    let (dialog, stack_height_pt) = ctx.memory(|m| {
        let dialog = m.top_modal_layer().and_then(|layer| m.area_rect(layer.id));
        let height = m.area_rect(area_id).map_or(0.0, |r| r.height());
        (dialog, height)
    });
    let top_centre = stack_top_centre(
        ctx.content_rect(),
        central,
        dialog,
        over_viewer,
        stack_height_pt,
    );
    egui::Area::new(area_id)
        .pivot(egui::Align2::CENTER_TOP)
        .fixed_pos(top_centre)
        .order(egui::Order::Tooltip)
        .interactable(true)
        .show(ctx, |ui| {
            ui.set_max_width(TOAST_WIDTH);
            for toast in toasts.items().iter().rev() {
                egui::Frame::new()
                    .fill(tokens::palette().bg_elevated)
                    .stroke(Stroke::new(1.0, tokens::palette().border_strong))
                    .corner_radius(CornerRadius::same(tokens::RADIUS_M))
                    .inner_margin(egui::Margin::symmetric(12, 8))
                    .shadow(ctx.global_style().visuals.popup_shadow)
                    .show(ui, |ui| {
                        ui.set_width(TOAST_WIDTH - 24.0);
                        ui.horizontal(|ui| {
                            let (rect, _) =
                                ui.allocate_exact_size(egui::vec2(3.0, 18.0), egui::Sense::hover());
                            ui.painter().rect_filled(
                                rect,
                                CornerRadius::same(2),
                                toast.kind.color(),
                            );
                            // Room left of the optional action and the close button.
                            let text_width = ui.available_width()
                                - if toast.button.is_some() { 96.0 } else { 40.0 };
                            ui.allocate_ui(egui::vec2(text_width, 0.0), |ui| {
                                // Full width, so the buttons line up at the right edge.
                                ui.set_min_width(text_width);
                                ui.add(
                                    egui::Label::new(
                                        RichText::new(&toast.text).color(tokens::palette().text),
                                    )
                                    .wrap(),
                                );
                            });
                            if let Some((label, _)) = &toast.button
                                && ui
                                    .add(
                                        egui::Button::new(
                                            RichText::new(label)
                                                .strong()
                                                .color(tokens::palette().accent_hover),
                                        )
                                        .frame_when_inactive(false),
                                    )
                                    .clicked()
                            {
                                actions.push(Action::PressToast(toast.id));
                            }
                            if widgets::icon_button(
                                ui,
                                crate::ui::icons::Icon::Close,
                                "Dismiss notification",
                            )
                            .clicked()
                            {
                                actions.push(Action::DismissToast(toast.id));
                            }
                        });
                    });
                ui.add_space(tokens::SPACE_XS);
            }
        });
    // Wake up to expire the next toast.
    if let Some(first_end) = toasts
        .items()
        .iter()
        .filter(|t| !t.sticky)
        .filter_map(|t| Some(t.shown_at? + t.lifetime_secs))
        .reduce(f64::min)
    {
        let remaining = (first_end - now).max(0.05);
        ctx.request_repaint_after(std::time::Duration::from_secs_f64(remaining));
    }
    actions
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::docs::DocsAction;

    #[test]
    fn the_stack_sits_over_the_views_or_clear_of_a_dialog() {
        let window = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1440.0, 900.0));
        let central = egui::Rect::from_x_y_ranges(84.0..=1100.0, 0.0..=872.0);
        let top = stack_top_centre(window, central, None, false, 0.0);
        assert_eq!(top.x, central.center().x);
        let dialog = egui::Rect::from_x_y_ranges(520.0..=920.0, 300.0..=600.0);
        let top = stack_top_centre(window, central, Some(dialog), false, 120.0);
        assert!(top.y + 120.0 < dialog.top(), "above the dialog: {top:?}");
        // A dialog as tall as the window leaves room only below it, if anywhere.
        let tall = egui::Rect::from_x_y_ranges(100.0..=1340.0, 30.0..=700.0);
        let top = stack_top_centre(window, central, Some(tall), false, 120.0);
        assert!(top.y > tall.bottom(), "below the dialog: {top:?}");
    }

    fn undo_toast(id: &str, lifetime_secs: f64) -> UndoToast {
        UndoToast {
            text: format!("Deleted {id}"),
            label: "Undo".into(),
            undo: ToastAction::Docs(DocsAction::UndoDelete(id.into())),
            commit: ToastAction::Docs(DocsAction::CommitDelete(id.into())),
            lifetime_secs,
        }
    }

    fn commit(id: &str) -> ToastAction {
        ToastAction::Docs(DocsAction::CommitDelete(id.into()))
    }

    #[test]
    fn an_undo_toast_commits_when_its_lifetime_ends_and_not_before() {
        let mut toasts = Toasts::default();
        assert!(toasts.push_undoable(undo_toast("a", 2.0)).is_empty());
        assert!(toasts.tick(10.0).is_empty());
        assert!(toasts.tick(11.9).is_empty());
        assert_eq!(toasts.tick(12.0), vec![commit("a")]);
        assert!(toasts.items().is_empty());
    }

    #[test]
    fn undo_drops_the_commit_and_dismiss_or_quit_runs_it() {
        let mut toasts = Toasts::default();
        toasts.push_undoable(undo_toast("a", 5.0));
        toasts.push_undoable(undo_toast("b", 5.0));
        toasts.push_undoable(undo_toast("c", 5.0));
        toasts.tick(0.0);
        let ids: Vec<u64> = toasts.items().iter().map(|t| t.id).collect();
        assert_eq!(
            toasts.press(ids[0]),
            Some(ToastAction::Docs(DocsAction::UndoDelete("a".into())))
        );
        assert_eq!(toasts.dismiss(ids[1]), Some(commit("b")));
        toasts.push(ToastKind::Info, "plain");
        assert_eq!(toasts.take_expiring(), vec![commit("c")]);
        assert_eq!(toasts.items().len(), 1, "plain toasts stay");
        assert!(toasts.tick(100.0).is_empty());
    }

    #[test]
    fn plain_toasts_push_out_plain_ones_first() {
        let mut toasts = Toasts::default();
        toasts.push_undoable(undo_toast("a", 5.0));
        for n in 0..MAX_TOASTS {
            toasts.push(ToastKind::Info, format!("plain {n}"));
        }
        assert!(toasts.items().iter().any(|t| t.on_expire.is_some()));
        // Only Undo toasts left to push out: the oldest goes and its change is made.
        let mut toasts = Toasts::default();
        let mut commits = Vec::new();
        for id in ["a", "b", "c", "d", "e", "f"] {
            commits.extend(toasts.push_undoable(undo_toast(id, 5.0)));
        }
        assert_eq!(commits, vec![commit("a")]);
    }
}
