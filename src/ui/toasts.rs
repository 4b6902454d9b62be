//! A small stack of toasts, bottom-right above the status bar, each dismissed after a few
//! seconds. They are no wider than the job tray, so while the tray is open they sit over
//! its lower end and never over a form's buttons (Create's Generate, the palette editor's
//! Save and Analyze are in the central column).

use crate::ui::library::LibraryAction;
use crate::ui::model::Action;
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{Color32, CornerRadius, RichText, Stroke};

pub const TOAST_LIFETIME_SECS: f64 = 5.0;
const MAX_TOASTS: usize = 5;
/// Outer width of a toast: inside the tray's default width with a margin either side.
pub const TOAST_WIDTH: f32 = tokens::TRAY_WIDTH - 2.0 * tokens::SPACE_M;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToastKind {
    Info,
    Success,
    Error,
}

impl ToastKind {
    fn color(self) -> Color32 {
        match self {
            ToastKind::Info => tokens::INFO,
            ToastKind::Success => tokens::SUCCESS,
            ToastKind::Error => tokens::DANGER,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Toast {
    pub id: u64,
    pub kind: ToastKind,
    pub text: String,
    /// `ctx.input().time` when shown; set on first layout.
    pub shown_at: Option<f64>,
    /// One button (label, library action), e.g. "Undo" after trashing.
    pub button: Option<(String, LibraryAction)>,
    /// Stays until dismissed (start-up notices the person must not miss).
    pub sticky: bool,
}

#[derive(Default)]
pub struct Toasts {
    items: Vec<Toast>,
    next_id: u64,
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

    /// A toast with a button that runs `action` (and dismisses the toast).
    pub fn push_with_action(
        &mut self,
        kind: ToastKind,
        text: impl Into<String>,
        label: impl Into<String>,
        action: LibraryAction,
    ) {
        self.push_toast(kind, text.into(), Some((label.into(), action)));
    }

    fn push_toast(
        &mut self,
        kind: ToastKind,
        text: String,
        button: Option<(String, LibraryAction)>,
    ) {
        self.next_id += 1;
        self.items.push(Toast {
            id: self.next_id,
            kind,
            text,
            shown_at: None,
            button,
            sticky: false,
        });
        if self.items.len() > MAX_TOASTS {
            // The oldest goes, but a start-up notice stays until dismissed.
            let oldest = self.items.iter().position(|t| !t.sticky).unwrap_or(0);
            self.items.remove(oldest);
        }
    }

    pub fn dismiss(&mut self, id: u64) {
        self.items.retain(|t| t.id != id);
    }

    pub fn items(&self) -> &[Toast] {
        &self.items
    }

    /// Stamp new toasts and drop expired ones. Call before layout.
    pub fn tick(&mut self, now: f64) {
        for toast in &mut self.items {
            toast.shown_at.get_or_insert(now);
        }
        self.items
            .retain(|t| t.sticky || t.shown_at.is_none_or(|s| now - s < TOAST_LIFETIME_SECS));
    }
}

/// Draw the stack above the status bar, bottom-right. While a dialog or the viewer covers
/// the window (`over_dialog`), the stack moves to the top centre, over the backdrop and
/// the image, clear of the dialog's buttons in its corners.
pub fn toasts_ui(ctx: &egui::Context, toasts: &Toasts, over_dialog: bool) -> Vec<Action> {
    let mut actions = Vec::new();
    if toasts.items().is_empty() {
        return actions;
    }
    let now = ctx.input(|i| i.time);
    let (corner, offset) = if over_dialog {
        (egui::Align2::CENTER_TOP, egui::vec2(0.0, tokens::SPACE_S))
    } else {
        (
            egui::Align2::RIGHT_BOTTOM,
            egui::vec2(
                -tokens::SPACE_M,
                -(tokens::STATUS_BAR_HEIGHT + tokens::SPACE_M),
            ),
        )
    };
    egui::Area::new(egui::Id::unique("toasts"))
        .anchor(corner, offset)
        .order(egui::Order::Tooltip)
        .interactable(true)
        .show(ctx, |ui| {
            ui.set_max_width(TOAST_WIDTH);
            for toast in toasts.items().iter().rev() {
                egui::Frame::new()
                    .fill(tokens::BG_ELEVATED)
                    .stroke(Stroke::new(1.0, tokens::BORDER_STRONG))
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
                                        RichText::new(&toast.text).color(tokens::TEXT),
                                    )
                                    .wrap(),
                                );
                            });
                            if let Some((label, action)) = &toast.button
                                && ui
                                    .add(
                                        egui::Button::new(
                                            RichText::new(label)
                                                .strong()
                                                .color(tokens::ACCENT_HOVER),
                                        )
                                        .frame_when_inactive(false),
                                    )
                                    .clicked()
                            {
                                actions.push(Action::Library(action.clone()));
                                actions.push(Action::DismissToast(toast.id));
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
    // Wake up to expire the oldest toast.
    if let Some(first) = toasts
        .items()
        .iter()
        .filter(|t| !t.sticky)
        .filter_map(|t| t.shown_at)
        .reduce(f64::min)
    {
        let remaining = (first + TOAST_LIFETIME_SECS - now).max(0.05);
        ctx.request_repaint_after(std::time::Duration::from_secs_f64(remaining));
    }
    actions
}
