//! The moodboard picker of the image, image-edit, video and Creative Director forms: one
//! moodboard (None by default) chosen in a popup with collage thumbnails and a search. In
//! Creative Director the person chooses "All scenes" (`moodboard_id`) or "Per scene" (one
//! row per scene of the storyboard, sent as `moodboard_ids` indexed from scene 1).
//!
//! The list comes from `MoodboardEvent::Listed` into a [`MoodboardList`]; the picker asks
//! for it once, when its popup first opens (GET /v1/moodboards counts in the 10/min
//! generation limit) or a reused choice needs its name.

use crate::api::ApiError;
use crate::api::moodboards::Moodboard;
use crate::engine::{Command, MoodboardCommand};
use crate::ui::compose::picker_popup::{
    ListRequest, PopupKeys, clicked_outside, list_status_ui, paint_thumbnail, popup_area,
    popup_keys,
};
use crate::ui::model::Action;
use crate::ui::textures::TextureCache;
use crate::ui::{tokens, widgets};
use egui::{Align2, CornerRadius, Rect, RichText, Sense, Stroke, Ui, Vec2};

/// Accessible names.
pub const BUTTON_NAME: &str = "Moodboard";
pub const SEARCH_NAME: &str = "Search moodboards";
pub const NONE_NAME: &str = "No moodboard";
pub const ALL_SCENES_NAME: &str = "All scenes";
pub const PER_SCENE_NAME: &str = "Per scene";
const ROW_HEIGHT: f32 = 52.0;
const THUMB_SIDE: f32 = 44.0;
const POPUP_WIDTH: f32 = 360.0;
const POPUP_LIST_HEIGHT: f32 = 280.0;

/// The accessible name of scene `index`'s (0-based) picker button.
pub fn scene_button_name(index: usize) -> String {
    format!("Moodboard for scene {}", index + 1)
}

/// Every moodboard the service listed last.
#[derive(Clone, Debug, Default)]
pub struct MoodboardList {
    pub boards: Vec<Moodboard>,
    pub loaded: bool,
    pub error: Option<String>,
}

impl MoodboardList {
    pub fn listed(&mut self, result: Result<Vec<Moodboard>, ApiError>) {
        match result {
            Ok(boards) => {
                self.boards = boards;
                self.loaded = true;
                self.error = None;
            }
            Err(error) => self.error = Some(crate::engine::error_in_words(&error)),
        }
    }
    pub fn find(&self, id: &str) -> Option<&Moodboard> {
        self.boards.iter().find(|b| b.id == id)
    }
    pub fn is_missing(&self, id: &str) -> bool {
        self.loaded && self.find(id).is_none()
    }
}

/// Which choice the popup fills.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    All,
    Scene(usize),
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct MoodboardPickerState {
    /// One moodboard for the request (all scenes in Creative Director).
    pub selected: Option<String>,
    /// Creative Director: one per scene instead.
    pub per_scene: bool,
    /// Creative Director per scene: index 0 is scene 1.
    pub scenes: Vec<Option<String>>,
    pub popup: Option<Target>,
    pub search: String,
    pub cursor: usize,
    focus_search: bool,
    list: ListRequest,
}

impl MoodboardPickerState {
    /// `moodboard_id` as sent (not in Creative Director's per-scene mode).
    pub fn moodboard_id(&self, creative_director: bool) -> Option<String> {
        if creative_director && self.per_scene {
            return None;
        }
        self.selected.clone()
    }
    /// `moodboard_ids` as sent: Creative Director per scene, the first `scene_count` rows up
    /// to the last chosen one (a scene without one in between is sent blank: none).
    pub fn moodboard_ids(&self, creative_director: bool, scene_count: u32) -> Vec<String> {
        if !creative_director || !self.per_scene {
            return Vec::new();
        }
        let rows = &self.scenes[..self.scenes.len().min(scene_count as usize)];
        let used = rows.iter().rposition(Option::is_some).map_or(0, |i| i + 1);
        rows[..used]
            .iter()
            .map(|id| id.clone().unwrap_or_default())
            .collect()
    }
    /// Every id in use (for the missing check).
    pub fn chosen_ids(&self, creative_director: bool, scene_count: u32) -> Vec<String> {
        let mut ids: Vec<String> = self.moodboard_id(creative_director).into_iter().collect();
        ids.extend(
            self.moodboard_ids(creative_director, scene_count)
                .into_iter()
                .filter(|id| !id.is_empty()),
        );
        ids
    }
    /// Put a reused request's choices back.
    pub fn set_from(&mut self, moodboard_id: Option<&str>, moodboard_ids: &[String]) {
        self.selected = moodboard_id.map(str::to_owned);
        self.per_scene = !moodboard_ids.is_empty();
        self.scenes = moodboard_ids
            .iter()
            .map(|id| Some(id.clone()).filter(|id| !id.trim().is_empty()))
            .collect();
    }
    fn choose(&mut self, target: Target, id: Option<String>) {
        match target {
            Target::All => self.selected = id,
            Target::Scene(index) => {
                if self.scenes.len() <= index {
                    self.scenes.resize(index + 1, None);
                }
                self.scenes[index] = id;
            }
        }
    }
    fn current(&self, target: Target) -> Option<&str> {
        match target {
            Target::All => self.selected.as_deref(),
            Target::Scene(index) => self.scenes.get(index).and_then(|s| s.as_deref()),
        }
    }
    pub fn matches(&self, list: &MoodboardList) -> Vec<usize> {
        let needle = self.search.trim().to_lowercase();
        list.boards
            .iter()
            .enumerate()
            .filter(|(_, b)| {
                needle.is_empty()
                    || b.name.to_lowercase().contains(&needle)
                    || b.style_guide
                        .as_deref()
                        .is_some_and(|s| s.to_lowercase().contains(&needle))
            })
            .map(|(i, _)| i)
            .collect()
    }
}

/// The picker: one button, or in Creative Director (`scene_count` given) the All scenes /
/// Per scene switch and a row per scene.
pub fn show(
    ui: &mut Ui,
    state: &mut MoodboardPickerState,
    list: &MoodboardList,
    scene_count: Option<u32>,
    textures: &TextureCache,
) -> Option<Action> {
    // GET /v1/moodboards counts in the 10/min generation limit: asked for only when the
    // popup opens or a chosen board needs its name.
    let wants_list = state.popup.is_some()
        || state.selected.is_some()
        || state.scenes.iter().any(Option::is_some);
    let action = if wants_list && !list.loaded {
        state.list.once(Command::Moodboards(MoodboardCommand::List))
    } else {
        None
    };
    let mut anchor = None;
    ui.horizontal(|ui| {
        ui.label(
            RichText::new("Moodboard")
                .size(12.5)
                .color(tokens::palette().text_muted),
        );
        if scene_count.is_some() {
            let all = ui.add(widgets::toggle_button("All scenes", !state.per_scene));
            widgets::name_widget(&all, ALL_SCENES_NAME);
            if all.clicked() {
                state.per_scene = false;
            }
            let per = ui.add(widgets::toggle_button("Per scene", state.per_scene));
            widgets::name_widget(&per, PER_SCENE_NAME);
            if per.clicked() {
                state.per_scene = true;
            }
        }
        if scene_count.is_none() || !state.per_scene {
            let response = choice_button(ui, state, list, Target::All, BUTTON_NAME);
            if state.popup == Some(Target::All) {
                anchor = Some(response);
            }
        }
    });
    if let (Some(count), true) = (scene_count, state.per_scene) {
        for index in 0..count as usize {
            ui.horizontal(|ui| {
                ui.add_space(tokens::SPACE_M);
                ui.label(RichText::new(format!("Scene {}", index + 1)).size(12.5));
                let name = scene_button_name(index);
                let response = choice_button(ui, state, list, Target::Scene(index), &name);
                if state.popup == Some(Target::Scene(index)) {
                    anchor = Some(response);
                }
            });
        }
    }
    if let (Some(target), Some(anchor)) = (state.popup, anchor) {
        popup_ui(ui, state, list, target, textures, &anchor);
    } else if state.popup.is_some() {
        // Its row went away (fewer scenes, All scenes chosen).
        state.popup = None;
    }
    action
}

fn choice_button(
    ui: &mut Ui,
    state: &mut MoodboardPickerState,
    list: &MoodboardList,
    target: Target,
    name: &str,
) -> egui::Response {
    let (text, missing) = match state.current(target) {
        None => ("None".to_owned(), false),
        Some(id) => match list.find(id) {
            Some(board) => (board.name.clone(), false),
            None if list.loaded => ("Missing moodboard".to_owned(), true),
            None => ("Loading…".to_owned(), false),
        },
    };
    // No "▾": the bundled fonts have no such glyph (a missing glyph panics in tests).
    let mut button = egui::Button::new(text);
    if missing {
        button = button.stroke(Stroke::new(1.0, tokens::palette().warning));
    }
    let response = ui.add(button);
    widgets::name_widget(&response, name);
    if missing {
        response
            .clone()
            .on_hover_text("This moodboard was deleted; pick another or None before generating.");
    }
    if response.clicked() {
        if state.popup == Some(target) {
            state.popup = None;
        } else {
            state.popup = Some(target);
            state.focus_search = true;
            state.cursor = 0;
        }
    }
    if state.current(target).is_some()
        && widgets::icon_button(ui, crate::ui::icons::Icon::Close, &format!("Clear {name}"))
            .clicked()
    {
        state.choose(target, None);
    }
    response
}

fn popup_ui(
    ui: &mut Ui,
    state: &mut MoodboardPickerState,
    list: &MoodboardList,
    target: Target,
    textures: &TextureCache,
    anchor: &egui::Response,
) {
    let matches = state.matches(list);
    // Row 0 is None; the boards follow.
    let rows = matches.len() + 1;
    let PopupKeys {
        up,
        down,
        enter,
        escape,
        ..
    } = popup_keys(ui, false);
    if escape {
        state.popup = None;
        return;
    }
    state.cursor = state.cursor.min(rows - 1);
    if down {
        state.cursor = (state.cursor + 1).min(rows - 1);
    }
    if up {
        state.cursor = state.cursor.saturating_sub(1);
    }
    let mut chosen: Option<Option<String>> = enter.then(|| {
        state
            .cursor
            .checked_sub(1)
            .and_then(|i| matches.get(i))
            .map(|&i| list.boards[i].id.clone())
    });
    let area = popup_area(ui, "moodboard_popup", anchor, POPUP_WIDTH, |ui| {
        let search = ui.add(
            egui::TextEdit::singleline(&mut state.search)
                .hint_text("Search moodboards")
                .desired_width(POPUP_WIDTH - 12.0),
        );
        widgets::name_widget(&search, SEARCH_NAME);
        if std::mem::take(&mut state.focus_search) {
            search.request_focus();
        }
        list_status_ui(ui, "moodboards", list.loaded, list.error.as_deref());
        if (list.loaded || list.error.is_some()) && list.boards.is_empty() {
            widgets::muted(ui, "No moodboards yet: make one in the Visual DNA view.");
        }
        let current = state.current(target).map(str::to_owned);
        egui::ScrollArea::vertical()
            .id_salt("moodboard_list")
            .max_height(POPUP_LIST_HEIGHT)
            .auto_shrink([false, true])
            .show_rows(ui, ROW_HEIGHT, rows, |ui, range| {
                for row in range {
                    let board = row
                        .checked_sub(1)
                        .and_then(|i| matches.get(i))
                        .map(|&i| &list.boards[i]);
                    let selected = board.map(|b| b.id.as_str()) == current.as_deref();
                    let response = row_ui(ui, board, textures, selected, row == state.cursor);
                    if response.clicked() {
                        chosen = Some(board.map(|b| b.id.clone()));
                    }
                }
            });
    });
    if let Some(id) = chosen {
        state.choose(target, id);
        state.popup = None;
        return;
    }
    if clicked_outside(ui, area.response.rect, anchor.rect) {
        state.popup = None;
    }
}

fn row_ui(
    ui: &mut Ui,
    board: Option<&Moodboard>,
    textures: &TextureCache,
    selected: bool,
    cursor: bool,
) -> egui::Response {
    let width = ui.available_width();
    let (rect, response) = ui.allocate_exact_size(Vec2::new(width, ROW_HEIGHT), Sense::click());
    let name = board.map_or(NONE_NAME, |b| b.name.as_str());
    response.widget_info(|| egui::WidgetInfo::selected(egui::Role::Button, true, selected, name));
    if !ui.is_rect_visible(rect) {
        return response;
    }
    let palette = tokens::palette();
    let painter = ui.painter();
    let radius = CornerRadius::same(tokens::RADIUS_M);
    if selected {
        painter.rect_filled(rect, radius, palette.accent.gamma_multiply(0.25));
    } else if response.hovered() {
        painter.rect_filled(rect, radius, palette.bg_panel);
    }
    if cursor {
        painter.rect_stroke(
            rect,
            radius,
            Stroke::new(2.0, palette.accent),
            egui::StrokeKind::Inside,
        );
    }
    let thumb = Rect::from_min_size(
        rect.left_top() + Vec2::new(4.0, (ROW_HEIGHT - THUMB_SIDE) / 2.0),
        Vec2::splat(THUMB_SIDE),
    );
    let url = board.and_then(|b| b.thumbnail_url.as_deref());
    paint_thumbnail(ui, textures, url, 96, thumb, egui::Color32::WHITE);
    let text_x = thumb.right() + 8.0;
    painter.text(
        egui::pos2(text_x, rect.top() + 8.0),
        Align2::LEFT_TOP,
        if board.is_some() { name } else { "None" },
        egui::FontId::proportional(13.0),
        palette.text,
    );
    let detail = match board {
        None => "No moodboard".to_owned(),
        Some(b) => {
            let guide = b.style_guide.as_deref().unwrap_or_default();
            let short: String = guide.chars().take(48).collect();
            let images = b.image_urls().count();
            if short.is_empty() {
                format!("{images} images")
            } else if short.len() < guide.len() {
                format!("{images} images · {short}…")
            } else {
                format!("{images} images · {short}")
            }
        }
    };
    painter.text(
        egui::pos2(text_x, rect.top() + 27.0),
        Align2::LEFT_TOP,
        detail,
        egui::FontId::proportional(11.5),
        palette.text_muted,
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_scene_ids_stop_at_the_last_chosen_scene_and_follow_the_scene_count() {
        let mut state = MoodboardPickerState {
            selected: Some("all".into()),
            ..Default::default()
        };
        assert_eq!(state.moodboard_id(true).as_deref(), Some("all"));
        assert!(state.moodboard_ids(true, 4).is_empty());
        state.per_scene = true;
        state.choose(Target::Scene(0), Some("m1".into()));
        state.choose(Target::Scene(2), Some("m3".into()));
        assert_eq!(state.moodboard_id(true), None);
        assert_eq!(state.moodboard_ids(true, 4), ["m1", "", "m3"]);
        assert_eq!(state.moodboard_ids(true, 2), ["m1"]);
        // Other kinds send the one moodboard only.
        assert_eq!(state.moodboard_id(false).as_deref(), Some("all"));
        assert!(state.moodboard_ids(false, 4).is_empty());
        let mut reused = MoodboardPickerState::default();
        reused.set_from(None, &["m1".into(), "m2".into()]);
        assert!(reused.per_scene);
        assert_eq!(reused.moodboard_ids(true, 4), ["m1", "m2"]);
    }
}
