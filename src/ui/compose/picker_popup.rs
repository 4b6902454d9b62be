//! What Create's Visual DNA and moodboard pickers share: asking for their list once, the
//! popup under the button that opened it, the keys it takes, the list's loading / error
//! line, thumbnails, and closing on a click outside.

use crate::engine::Command;
use crate::ui::model::Action;
use crate::ui::textures::{TextureCache, TextureLookup};
use crate::ui::{tokens, widgets};
use egui::{Color32, CornerRadius, Key, Rect, Ui, Vec2};

/// A picker's ask for its list, sent once.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ListRequest {
    sent: bool,
}

impl ListRequest {
    /// `command` the first time; nothing after.
    pub fn once(&mut self, command: Command) -> Option<Action> {
        if self.sent {
            return None;
        }
        self.sent = true;
        Some(Action::Send(Box::new(command)))
    }
}

/// The keys an open popup took this frame.
#[derive(Clone, Copy, Debug, Default)]
pub struct PopupKeys {
    pub left: bool,
    pub right: bool,
    pub up: bool,
    pub down: bool,
    pub enter: bool,
    pub escape: bool,
}

/// Take the popup's keys (so the form behind does not see them). Left and Right only
/// when `sideways` (a grid whose search field is not using them for its caret).
pub fn popup_keys(ui: &mut Ui, sideways: bool) -> PopupKeys {
    ui.input_mut(|i| {
        let mut take = |key| i.consume_key(egui::Modifiers::NONE, key);
        PopupKeys {
            left: sideways && take(Key::ArrowLeft),
            right: sideways && take(Key::ArrowRight),
            up: take(Key::ArrowUp),
            down: take(Key::ArrowDown),
            enter: take(Key::Enter),
            escape: take(Key::Escape),
        }
    })
}

/// The popup, `width` wide, just under `anchor` and in front of the form (kept on
/// screen).
pub fn popup_area<R>(
    ui: &Ui,
    salt: &str,
    anchor: &egui::Response,
    width: f32,
    contents: impl FnOnce(&mut Ui) -> R,
) -> egui::InnerResponse<R> {
    egui::Area::new(ui.scope_id().with(salt))
        .order(egui::Order::Foreground)
        .fixed_pos(anchor.rect.left_bottom() + Vec2::new(0.0, 4.0))
        .constrain(true)
        .show(ui.ctx(), |ui| {
            egui::Frame::popup(ui.style())
                .show(ui, |ui| {
                    ui.set_width(width);
                    contents(ui)
                })
                .inner
        })
}

/// A press outside the popup and outside its anchor (the anchor toggles it itself).
pub fn clicked_outside(ui: &Ui, popup: Rect, anchor: Rect) -> bool {
    ui.input(|i| {
        i.pointer.any_pressed()
            && i.pointer
                .interact_pos()
                .is_some_and(|pos| !popup.contains(pos) && !anchor.contains(pos))
    })
}

/// Why the list could not be had and, until it has come, "Loading `what`…".
pub fn list_status_ui(ui: &mut Ui, what: &str, loaded: bool, error: Option<&str>) {
    if let Some(error) = error {
        widgets::field_error(ui, &format!("Could not list {what}: {error}"));
    }
    if !loaded && error.is_none() {
        ui.horizontal(|ui| {
            ui.spinner();
            widgets::muted(ui, format!("Loading {what}…"));
        });
    }
}

/// The picture at `url` (loaded at `px`) filling `rect`, tinted; a plain tile while it
/// loads or when there is none. True when the picture was drawn.
pub fn paint_thumbnail(
    ui: &Ui,
    textures: &TextureCache,
    url: Option<&str>,
    px: u32,
    rect: Rect,
    tint: Color32,
) -> bool {
    let painter = ui.painter();
    match url.map(|url| textures.get(url, px)) {
        Some(TextureLookup::Ready(texture)) => {
            painter.image(
                texture.id(),
                rect,
                Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0)),
                tint,
            );
            true
        }
        _ => {
            painter.rect_filled(
                rect,
                CornerRadius::same(tokens::RADIUS_S),
                tokens::palette().bg_panel,
            );
            false
        }
    }
}
