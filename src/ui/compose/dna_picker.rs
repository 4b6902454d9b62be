//! The Visual DNA picker: a compact row of the picked entries ("Visual DNA: [thumb Emma ×]
//! [+ Add]") and, behind Add, a popup with a searchable, filterable thumbnail grid of every
//! Visual DNA the service lists. Entries still building are shown but cannot be picked; a
//! picked entry that is no longer listed (deleted elsewhere) shows as missing with a remove
//! button, and the form refuses to submit until it is removed.
//!
//! The list itself comes from `VisualDnaEvent::Listed` (routed by the shell to Create as
//! well as to the Visual DNA panel) into a [`DnaList`]; the picker asks for it once, with the
//! action [`show`] returns the first time it is drawn. Other forms (elements) hold their own
//! [`DnaPickerState`] and call [`show`] with the same list.

use crate::api::visual_dna::{DnaType, VisualDna};
use crate::api::{ApiError, MAX_VISUAL_DNA_IDS};
use crate::engine::{Command, VisualDnaCommand};
use crate::ui::compose::picker_popup::{
    ListRequest, PopupKeys, clicked_outside, list_status_ui, paint_thumbnail, popup_area,
    popup_keys,
};
use crate::ui::model::Action;
use crate::ui::textures::TextureCache;
use crate::ui::{tokens, widgets};
use egui::{Align2, Color32, CornerRadius, Rect, RichText, Sense, Stroke, Ui, Vec2};

/// Accessible names (kittest finds the widgets by them).
pub const ADD_NAME: &str = "Add Visual DNA";
pub const SEARCH_NAME: &str = "Search Visual DNA";
pub const TYPE_FILTER_NAME: &str = "Visual DNA type";
pub const CLOSE_NAME: &str = "Close Visual DNA picker";
/// Thumbnail side in the popup grid, in points.
pub const CELL_THUMB_SIDE: f32 = 72.0;
const CELL_WIDTH: f32 = 96.0;
const CELL_HEIGHT: f32 = 112.0;
const POPUP_WIDTH: f32 = 440.0;
/// Characters of a name that fit under a thumbnail.
const NAME_CHARS: usize = 14;
const POPUP_GRID_HEIGHT: f32 = 300.0;
/// Pixel size asked of the texture cache for the thumbnails.
const THUMB_PX: u32 = 128;

/// Every Visual DNA the service listed last (globals first, then newest), as the pickers
/// see it. Filled from `VisualDnaEvent::Listed`.
#[derive(Clone, Debug, Default)]
pub struct DnaList {
    pub entries: Vec<VisualDna>,
    /// A list has arrived (missing entries are only judged after one did).
    pub loaded: bool,
    /// Why the last listing failed, in words.
    pub error: Option<String>,
}

impl DnaList {
    pub fn from_entries(entries: Vec<VisualDna>) -> Self {
        Self {
            entries,
            loaded: true,
            error: None,
        }
    }
    /// A `Listed` answer: a failure keeps the entries already known.
    pub fn listed(&mut self, result: Result<Vec<VisualDna>, ApiError>) {
        match result {
            Ok(entries) => {
                self.entries = entries;
                self.loaded = true;
                self.error = None;
            }
            Err(error) => self.error = Some(crate::engine::error_in_words(&error)),
        }
    }
    pub fn find(&self, id: &str) -> Option<&VisualDna> {
        self.entries.iter().find(|d| d.id == id)
    }
    /// A picked entry that the last list no longer has (deleted elsewhere).
    pub fn is_missing(&self, id: &str) -> bool {
        self.loaded && self.find(id).is_none()
    }
}

/// One form's picks and its popup's state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DnaPickerState {
    /// Picked ids, in the order sent.
    pub picked: Vec<String>,
    pub popup_open: bool,
    pub search: String,
    pub type_filter: Option<DnaType>,
    /// Keyboard cursor in the popup's filtered list.
    pub cursor: usize,
    /// Said once under the row (e.g. after a kind switch trimmed the picks).
    pub note: Option<String>,
    focus_search: bool,
    /// The search field had the keyboard last frame (Left/Right then move its caret).
    search_focused: bool,
    scroll_to_cursor: bool,
    list: ListRequest,
}

impl DnaPickerState {
    /// Add `id` when there is room under `cap` and it is not picked yet.
    pub fn pick(&mut self, id: &str, cap: usize) -> bool {
        if self.picked.iter().any(|p| p == id) || self.picked.len() >= cap {
            return false;
        }
        self.picked.push(id.to_owned());
        self.note = None;
        true
    }
    pub fn remove(&mut self, id: &str) {
        self.picked.retain(|p| p != id);
        self.note = None;
    }
    /// Replace the picks (a reused job's `visual_dna_ids`).
    pub fn set(&mut self, ids: &[String]) {
        self.picked.clear();
        for id in ids {
            let id = id.trim();
            if !id.is_empty() && !self.picked.iter().any(|p| p == id) {
                self.picked.push(id.to_owned());
            }
        }
        self.note = None;
    }
    /// Keep at most `cap` picks (the first ones), saying so when some were dropped. `cap`
    /// 0 keeps them all: the picker is hidden then, and nothing is sent.
    pub fn trim_to(&mut self, cap: usize, why: &str) {
        if cap == 0 || self.picked.len() <= cap {
            return;
        }
        let dropped = self.picked.len() - cap;
        self.picked.truncate(cap);
        self.note = Some(format!(
            "Kept the first {cap} Visual DNA: {why}. {dropped} removed."
        ));
    }
    pub fn open(&mut self) {
        self.popup_open = true;
        self.focus_search = true;
        self.cursor = 0;
    }
    pub fn close(&mut self) {
        self.popup_open = false;
    }
    /// Indices into `list.entries` the popup shows for the search and type filter.
    pub fn matches(&self, list: &DnaList) -> Vec<usize> {
        let needle = self.search.trim().to_lowercase();
        list.entries
            .iter()
            .enumerate()
            .filter(|(_, d)| self.type_filter.is_none_or(|t| d.kind() == Some(t)))
            .filter(|(_, d)| {
                needle.is_empty()
                    || d.name.to_lowercase().contains(&needle)
                    || d.dna_type.to_lowercase().contains(&needle)
            })
            .map(|(i, _)| i)
            .collect()
    }
}

/// Whether `entry` can be picked now.
fn pickable(entry: &VisualDna) -> bool {
    !entry.is_building() && !entry.is_failed()
}

/// "Up to 3" / "Up to 1 for this model".
pub fn cap_text(cap: usize) -> String {
    if cap < MAX_VISUAL_DNA_IDS {
        format!("Up to {cap} for this model")
    } else {
        format!("Up to {cap}")
    }
}

/// The picker row (and its popup when open). `cap` is how many this form's kind and model
/// take (`api::validate::visual_dna_cap`); the caller hides the picker when it is 0.
/// Returns the list request the first time it is drawn.
pub fn show(
    ui: &mut Ui,
    state: &mut DnaPickerState,
    list: &DnaList,
    cap: usize,
    textures: &TextureCache,
) -> Option<Action> {
    let action = state.list.once(Command::VisualDna(VisualDnaCommand::List));
    let add_response = ui
        .horizontal_wrapped(|ui| {
            ui.label(
                RichText::new("Visual DNA")
                    .size(12.5)
                    .color(tokens::palette().text_muted),
            );
            let mut remove = None;
            for id in &state.picked {
                let entry = list.find(id);
                picked_chip(ui, id, entry, list.is_missing(id), textures, &mut remove);
            }
            if let Some(id) = remove {
                state.remove(&id);
            }
            let full = state.picked.len() >= cap;
            let add = ui
                .add_enabled(!full, widgets::subtle_button("+ Add"))
                .on_hover_text(cap_text(cap))
                .on_disabled_hover_text(format!("{}: remove one to add another.", cap_text(cap)));
            widgets::name_widget(&add, ADD_NAME);
            if add.clicked() {
                if state.popup_open {
                    state.close();
                } else {
                    state.open();
                }
            }
            add
        })
        .inner;
    if let Some(note) = &state.note {
        widgets::muted(ui, note);
    }
    if state.popup_open {
        popup_ui(ui, state, list, cap, textures, &add_response);
    }
    action
}

fn picked_chip(
    ui: &mut Ui,
    id: &str,
    entry: Option<&VisualDna>,
    missing: bool,
    textures: &TextureCache,
    remove: &mut Option<String>,
) {
    egui::Frame::new()
        .fill(tokens::palette().bg_panel)
        .stroke(Stroke::new(
            1.0,
            if missing {
                tokens::palette().warning
            } else {
                tokens::palette().border
            },
        ))
        .corner_radius(CornerRadius::same(tokens::RADIUS_M))
        .inner_margin(egui::Margin::symmetric(4, 2))
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.spacing_mut().item_spacing.x = 4.0;
                let name = match entry {
                    Some(entry) => {
                        if let Some(url) = entry.thumbnail_url.as_deref() {
                            crate::ui::textures::small_thumbnail_ui(
                                ui,
                                textures,
                                url,
                                20.0,
                                &entry.name,
                            );
                        }
                        entry.name.clone()
                    }
                    None if missing => {
                        ui.label(RichText::new("missing").color(tokens::palette().warning))
                            .on_hover_text(format!(
                                "This Visual DNA ({id}) was deleted; remove it to generate."
                            ));
                        short_id(id)
                    }
                    None => short_id(id),
                };
                ui.label(RichText::new(&name).size(12.5));
                if widgets::icon_button(
                    ui,
                    crate::ui::icons::Icon::Close,
                    &format!("Remove {name}"),
                )
                .clicked()
                {
                    *remove = Some(id.to_owned());
                }
            });
        });
}

fn short_id(id: &str) -> String {
    let short: String = id.chars().take(8).collect();
    if short.len() < id.len() {
        format!("{short}…")
    } else {
        short
    }
}

fn popup_ui(
    ui: &mut Ui,
    state: &mut DnaPickerState,
    list: &DnaList,
    cap: usize,
    textures: &TextureCache,
    anchor: &egui::Response,
) {
    let matches = state.matches(list);
    if !matches.is_empty() {
        state.cursor = state.cursor.min(matches.len() - 1);
    } else {
        state.cursor = 0;
    }
    // Keyboard: arrows move, Enter picks, Escape closes.
    let columns = ((POPUP_WIDTH - 16.0) / CELL_WIDTH).floor().max(1.0) as usize;
    let caret_keys = state.search_focused && !state.search.is_empty();
    let PopupKeys {
        left,
        right,
        up,
        down,
        enter,
        escape,
    } = popup_keys(ui, !caret_keys);
    if escape {
        state.close();
        return;
    }
    let last = matches.len().saturating_sub(1);
    let before = state.cursor;
    if right {
        state.cursor = (state.cursor + 1).min(last);
    }
    if left {
        state.cursor = state.cursor.saturating_sub(1);
    }
    if down {
        state.cursor = (state.cursor + columns).min(last);
    }
    if up {
        state.cursor = state.cursor.saturating_sub(columns);
    }
    state.scroll_to_cursor |= state.cursor != before;
    let mut picked_now = None;
    if enter
        && let Some(entry) = matches.get(state.cursor).map(|i| &list.entries[*i])
        && pickable(entry)
    {
        picked_now = Some(entry.id.clone());
    }

    let area = popup_area(ui, "visual_dna_popup", anchor, POPUP_WIDTH, |ui| {
        ui.horizontal(|ui| {
            let search = ui.add(
                egui::TextEdit::singleline(&mut state.search)
                    .hint_text("Search by name")
                    .desired_width(POPUP_WIDTH - 190.0),
            );
            widgets::name_widget(&search, SEARCH_NAME);
            if std::mem::take(&mut state.focus_search) {
                search.request_focus();
            }
            if search.changed() {
                state.cursor = 0;
            }
            state.search_focused = search.has_focus();
            let label = state.type_filter.map_or("All types", DnaType::label);
            let combo = egui::ComboBox::from_id_salt(ui.scope_id().with("dna_type_filter"))
                .selected_text(label)
                .width(110.0)
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut state.type_filter, None, "All types");
                    for kind in DnaType::ALL {
                        ui.selectable_value(&mut state.type_filter, Some(kind), kind.label());
                    }
                });
            widgets::name_widget(&combo.response, TYPE_FILTER_NAME);
            if widgets::icon_button(ui, crate::ui::icons::Icon::Close, CLOSE_NAME).clicked() {
                state.popup_open = false;
            }
        });
        widgets::muted(
            ui,
            format!(
                "{} · {} picked · arrows and Enter pick, Esc closes",
                cap_text(cap),
                state.picked.len()
            ),
        );
        list_status_ui(ui, "Visual DNA", list.loaded, list.error.as_deref());
        if (list.loaded || list.error.is_some()) && matches.is_empty() {
            widgets::muted(
                ui,
                if list.entries.is_empty() {
                    "No Visual DNA yet: make one in the Visual DNA view."
                } else {
                    "Nothing matches the search."
                },
            );
        }
        let full = state.picked.len() >= cap;
        let rows = matches.len().div_ceil(columns);
        let scroll_to =
            std::mem::take(&mut state.scroll_to_cursor).then_some(state.cursor / columns);
        let mut scroll = egui::ScrollArea::vertical()
            .id_salt("visual_dna_grid")
            .max_height(POPUP_GRID_HEIGHT)
            .auto_shrink([false, true]);
        if let Some(row) = scroll_to {
            // Keep the keyboard cursor's row in view.
            let spacing = ui.spacing().item_spacing.y;
            scroll = scroll.vertical_scroll_offset(
                (row as f32 * (CELL_HEIGHT + spacing) - POPUP_GRID_HEIGHT / 2.0).max(0.0),
            );
        }
        scroll.show_rows(ui, CELL_HEIGHT, rows, |ui, range| {
            for row in range {
                ui.horizontal(|ui| {
                    for column in 0..columns {
                        let at = row * columns + column;
                        let Some(&index) = matches.get(at) else {
                            break;
                        };
                        let entry = &list.entries[index];
                        let picked = state.picked.contains(&entry.id);
                        let enabled = pickable(entry) && (picked || !full);
                        let response =
                            cell_ui(ui, entry, textures, picked, enabled, at == state.cursor);
                        if response.clicked() {
                            state.cursor = at;
                            picked_now = Some(entry.id.clone());
                        }
                    }
                });
            }
        });
    });
    if let Some(id) = picked_now {
        if state.picked.contains(&id) {
            state.remove(&id);
        } else {
            state.pick(&id, cap);
        }
        if state.picked.len() >= cap {
            state.close();
        }
    }
    // A click outside the popup (and not on Add, which toggles it) closes it.
    if clicked_outside(ui, area.response.rect, anchor.rect) && !ui.ctx().any_popup_open() {
        state.close();
    }
}

/// One grid cell: thumbnail, name and type (or "Building…"); a button named by the entry.
fn cell_ui(
    ui: &mut Ui,
    entry: &VisualDna,
    textures: &TextureCache,
    picked: bool,
    enabled: bool,
    cursor: bool,
) -> egui::Response {
    let (rect, response) = ui.allocate_exact_size(
        Vec2::new(CELL_WIDTH, CELL_HEIGHT),
        if enabled {
            Sense::click()
        } else {
            Sense::hover()
        },
    );
    let building = entry.is_building();
    let status = if building {
        "Building…"
    } else if entry.is_failed() {
        "Failed"
    } else {
        entry.kind().map_or(entry.dna_type.as_str(), |t| t.label())
    };
    let name = if entry.name.is_empty() {
        "Untitled"
    } else {
        entry.name.as_str()
    };
    response.widget_info(|| {
        let mut info = egui::WidgetInfo::selected(egui::Role::Button, enabled, picked, name);
        info.label = Some(name.to_owned());
        info
    });
    if !ui.is_rect_visible(rect) {
        return response;
    }
    let palette = tokens::palette();
    let painter = ui.painter();
    let radius = CornerRadius::same(tokens::RADIUS_M);
    let fill = if picked {
        palette.accent.gamma_multiply(0.25)
    } else if response.hovered() && enabled {
        palette.bg_panel
    } else {
        Color32::TRANSPARENT
    };
    painter.rect_filled(rect, radius, fill);
    if cursor || picked {
        painter.rect_stroke(
            rect,
            radius,
            Stroke::new(if cursor { 2.0 } else { 1.0 }, palette.accent),
            egui::StrokeKind::Inside,
        );
    }
    let thumb = Rect::from_center_size(
        egui::pos2(rect.center().x, rect.top() + 6.0 + CELL_THUMB_SIDE / 2.0),
        Vec2::splat(CELL_THUMB_SIDE),
    );
    let tint = if enabled || picked {
        Color32::WHITE
    } else {
        Color32::from_white_alpha(90)
    };
    let url = entry.thumbnail_url.as_deref();
    if !paint_thumbnail(ui, textures, url, THUMB_PX, thumb, tint) {
        let initial: String = name.chars().take(1).collect();
        painter.text(
            thumb.center(),
            Align2::CENTER_CENTER,
            initial.to_uppercase(),
            egui::FontId::proportional(24.0),
            palette.text_muted,
        );
    }
    let text_color = if enabled || picked {
        palette.text
    } else {
        palette.text_muted
    };
    let name_pos = egui::pos2(rect.center().x, thumb.bottom() + 4.0);
    // One line: long names are cut with an ellipsis (the full name on hover).
    let cut = name.chars().count() > NAME_CHARS;
    let shown: String = if cut {
        name.chars()
            .take(NAME_CHARS - 1)
            .chain(std::iter::once('…'))
            .collect()
    } else {
        name.to_owned()
    };
    painter.text(
        name_pos,
        Align2::CENTER_TOP,
        shown,
        egui::FontId::proportional(12.0),
        text_color,
    );
    painter.text(
        egui::pos2(rect.center().x, name_pos.y + 15.0),
        Align2::CENTER_TOP,
        status,
        egui::FontId::proportional(11.0),
        if building {
            palette.warning
        } else {
            palette.text_muted
        },
    );
    if cut {
        return response.on_hover_text(name);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dna(id: &str, name: &str, kind: &str, status: Option<&str>) -> VisualDna {
        VisualDna {
            id: id.into(),
            name: name.into(),
            dna_type: kind.into(),
            status: status.map(str::to_owned),
            ..VisualDna::default()
        }
    }

    #[test]
    fn picks_respect_the_cap_and_trimming_says_so() {
        let mut state = DnaPickerState::default();
        assert!(state.pick("a", 2));
        assert!(!state.pick("a", 2), "no duplicates");
        assert!(state.pick("b", 2));
        assert!(!state.pick("c", 2), "full");
        state.set(&["a".into(), "b".into(), "c".into()]);
        state.trim_to(1, "Solo takes 1");
        assert_eq!(state.picked, ["a"]);
        assert_eq!(
            state.note.as_deref(),
            Some("Kept the first 1 Visual DNA: Solo takes 1. 2 removed.")
        );
    }

    #[test]
    fn search_and_type_filter_the_grid_and_missing_needs_a_list() {
        let mut list = DnaList::default();
        assert!(!list.is_missing("gone"), "not judged before a list arrived");
        list.listed(Ok(vec![
            dna("1", "Emma", "character", None),
            dna("2", "Red sneaker", "product", Some("building")),
            dna("3", "Emmental", "style", Some("ready")),
        ]));
        assert!(list.is_missing("gone"));
        let mut state = DnaPickerState {
            search: "emm".into(),
            ..Default::default()
        };
        assert_eq!(state.matches(&list), [0, 2]);
        state.type_filter = Some(DnaType::Style);
        assert_eq!(state.matches(&list), [2]);
        assert!(!pickable(&list.entries[1]));
    }
}
