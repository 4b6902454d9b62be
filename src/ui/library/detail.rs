//! The detail pane: space reserved beside the grid whatever is selected (so selecting
//! never changes the grid's width or column count). With one item it shows a larger
//! preview, what the service knows about it (prompt, model, credits, size, dimensions,
//! dates, project) and its actions; with several, their count and the bulk actions; with
//! none, how to select.

use super::item_actions::{self, Style, Target};
use super::{LibraryAction, LibraryState};
use crate::api::media::{MediaDetail, MediaItem};
use crate::ui::format;
use crate::ui::model::{Action, Model};
use crate::ui::textures::{TextureCache, TextureLookup};
use crate::ui::tokens;
use crate::ui::video::is_video_item;
use crate::ui::video::player::VideoPlayerState;
use crate::ui::widgets;
use egui::{CornerRadius, RichText, Ui, Vec2};

pub const PREVIEW_PX: u32 = 512;

pub fn detail_ui(
    ui: &mut Ui,
    state: &LibraryState,
    player: &mut VideoPlayerState,
    model: &Model,
    textures: &TextureCache,
) -> Vec<Action> {
    let mut actions = Vec::new();
    egui::ScrollArea::vertical()
        .id_salt("library_detail_scroll")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            ui.spacing_mut().item_spacing.y = 6.0;
            let video = state
                .single_selected()
                .filter(|item| is_video_item(item) && !state.in_trash());
            if video.is_none() && player.url().is_some() {
                player.close();
            }
            match state.single_selected() {
                Some(item) => actions.extend(single_ui(ui, state, player, model, textures, item)),
                None if state.selection.is_empty() => nothing_selected_ui(ui, state),
                None => actions.extend(several_ui(ui, state, model)),
            }
        });
    actions
}

fn nothing_selected_ui(ui: &mut Ui, state: &LibraryState) {
    ui.add_space(tokens::SPACE_L);
    ui.label(
        RichText::new("Nothing selected")
            .size(tokens::TEXT_TITLE)
            .strong()
            .color(tokens::palette().text),
    );
    let hint = if state.in_trash() {
        "Click an item to see its details, restore it or delete it forever. Ctrl+click \
         or Shift+click selects several."
    } else {
        "Click an item to see its details and act on it; double-click or Enter opens it. \
         Ctrl+click or Shift+click selects several; right-click for a menu."
    };
    ui.add(egui::Label::new(RichText::new(hint).color(tokens::palette().text_muted)).wrap());
}

fn several_ui(ui: &mut Ui, state: &LibraryState, model: &Model) -> Vec<Action> {
    let mut actions = Vec::new();
    let n = state.selection.len();
    let status = if state.selection.all_pending {
        format!(
            "Selecting all… {} of {}",
            format::thousands(n as f64),
            format::thousands(state.items.len() as f64)
        )
    } else {
        format!("{} selected", format::thousands(n as f64))
    };
    ui.add_space(tokens::SPACE_XS);
    ui.horizontal(|ui| {
        ui.label(
            RichText::new(status)
                .size(tokens::TEXT_TITLE)
                .strong()
                .color(tokens::palette().text),
        );
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            if widgets::icon_button(ui, crate::ui::icons::Icon::Close, "Clear selection").clicked()
            {
                actions.push(Action::Library(LibraryAction::ClearSelection));
            }
        });
    });
    ui.add_space(tokens::SPACE_XS);
    let ids = || state.selection.ordered_ids(&state.items);
    let target = Target {
        ids: &ids,
        count: n,
        single: None,
        pending: state.selection.all_pending,
    };
    actions.extend(action_buttons_ui(ui, state, model, &target));
    actions
}

fn single_ui(
    ui: &mut Ui,
    state: &LibraryState,
    player: &mut VideoPlayerState,
    model: &Model,
    textures: &TextureCache,
    item: &MediaItem,
) -> Vec<Action> {
    let mut actions = Vec::new();
    // In the Trash the single-item route answers 404: only the list's fields are shown.
    let detail: Option<&MediaDetail> = state
        .detail
        .as_ref()
        .filter(|(id, _)| *id == item.id)
        .and_then(|(_, d)| d.value.as_ref());

    if is_video_item(item) && !state.in_trash() {
        actions.extend(video_ui(ui, item, player, textures));
    } else if crate::ui::audio::is_audio_item(item) && !state.in_trash() && !item.url.is_empty() {
        // A sound: its waveform and ▶ (plays through the studio's output).
        let title = item
            .metadata
            .get("title")
            .and_then(|v| v.as_str())
            .filter(|t| !t.trim().is_empty())
            .unwrap_or(item.display_name());
        let tile = crate::ui::audio::tile::AudioTile {
            url: &item.url,
            title,
            duration_secs: item.duration,
            lyrics: None,
            width: ui.available_width(),
        };
        if crate::ui::audio::tile::audio_tile_ui(ui, &tile).open
            && let Some(index) = state.items.index_of(&item.id)
        {
            actions.push(Action::Library(LibraryAction::OpenViewer(index)));
        }
    } else {
        preview_ui(ui, item, textures);
    }
    ui.add_space(tokens::SPACE_XS);
    ui.horizontal(|ui| {
        ui.add(
            egui::Label::new(
                RichText::new(item.display_name())
                    .size(tokens::TEXT_TITLE)
                    .strong()
                    .color(tokens::palette().text),
            )
            .truncate(),
        );
    });
    let mut sub = item.kind().to_owned();
    if let Some(category) = item.category.as_deref().filter(|c| !c.is_empty()) {
        sub.push_str(" · ");
        sub.push_str(category);
    }
    if state.in_trash() {
        sub.push_str(" · in the trash");
    }
    ui.label(
        RichText::new(sub)
            .size(12.5)
            .color(tokens::palette().text_faint),
    );
    // The placeholder tile alone would look like a broken download: say why.
    if let Some(reason) = item.preview_unavailable() {
        widgets::notice(ui, reason, tokens::palette().warning);
    }
    ui.add_space(tokens::SPACE_XS);

    let index = state.items.index_of(&item.id).unwrap_or(0);
    let ids = || vec![item.id.clone()];
    let target = Target {
        ids: &ids,
        count: 1,
        single: Some((index, item)),
        pending: false,
    };
    actions.extend(action_buttons_ui(ui, state, model, &target));
    let prompt = prompt_of(item, detail);
    ui.add_space(tokens::SPACE_S);

    widgets::prompt_block(ui, prompt.as_deref(), 13.0);
    ui.add_space(tokens::SPACE_S);

    egui::Grid::new("library_detail_fields")
        .num_columns(2)
        .spacing([12.0, 6.0])
        .show(ui, |ui| {
            let model_name = item
                .model()
                .map(str::to_owned)
                .or_else(|| detail.and_then(|d| meta_str(&d.metadata, &["model", "modelName"])));
            field(ui, "Model", model_name);
            let credits = item
                .credits_used()
                .or_else(|| detail.and_then(|d| d.credits_used));
            field(ui, "Credits", credits.map(format::credits));
            field(
                ui,
                "Size",
                item.size.or(detail.and_then(|d| d.size)).map(human_bytes),
            );
            let dims = match (item.width, item.height) {
                (Some(w), Some(h)) if w > 0 && h > 0 => Some(format!("{w} × {h}")),
                _ => None,
            };
            field(ui, "Dimensions", dims);
            if matches!(item.kind(), "video" | "audio") {
                field(
                    ui,
                    "Duration",
                    item.duration
                        .and_then(crate::ui::video::time::duration_badge),
                );
            }
            let created = item
                .created_at
                .clone()
                .or_else(|| detail.and_then(|d| d.created.clone()));
            field(ui, "Created", created.map(|c| format::timestamp(&c)));
            let project = item
                .project_id
                .clone()
                .or_else(|| detail.and_then(|d| d.project_id.clone()));
            let project =
                project.map(|id| model.project_name(&id).map(str::to_owned).unwrap_or(id));
            field(ui, "Project", project);
            if let Some(generation) = item
                .generation_type
                .clone()
                .or_else(|| detail.and_then(|d| d.generation_type.clone()))
            {
                field(ui, "Generation", Some(generation));
            }
        });
    if let Some((_, requested)) = state.detail.as_ref().filter(|(id, _)| *id == item.id) {
        if requested.pending {
            ui.add_space(tokens::SPACE_XS);
            ui.label(
                RichText::new("Loading details…")
                    .size(12.0)
                    .color(tokens::palette().text_faint),
            );
        } else if let Some(error) = &requested.error {
            widgets::notice(
                ui,
                &format!("Details unavailable: {error}"),
                tokens::palette().warning,
            );
        }
    }
    actions
}

/// The selected video, playing in the pane (poster first, then frames; its keys work while
/// the pointer is over it, so the grid keeps Space and the arrows otherwise).
fn video_ui(
    ui: &mut Ui,
    item: &MediaItem,
    player: &mut VideoPlayerState,
    textures: &TextureCache,
) -> Vec<Action> {
    let mut actions = Vec::new();
    if let Some(command) = player.set_source(&item.url, item.thumbnail_url.as_deref()) {
        actions.push(Action::Send(Box::new(command)));
    }
    let width = ui.available_width();
    let size = Vec2::new(width, width * 0.8 + 60.0);
    let (rect, _) = ui.allocate_exact_size(size, egui::Sense::hover());
    if ui.rect_contains_pointer(rect) {
        player.keyboard_input(ui.ctx());
    }
    ui.scope_builder(egui::UiBuilder::new().max_rect(rect), |ui| {
        let name = format!("Video: {}", item.display_name());
        actions.extend(player.player_ui(ui, textures, &name));
    });
    actions
}

fn preview_ui(ui: &mut Ui, item: &MediaItem, textures: &TextureCache) {
    let width = ui.available_width();
    let box_size = Vec2::new(width, width * 0.8);
    let (rect, _) = ui.allocate_exact_size(box_size, egui::Sense::hover());
    let painter = ui.painter();
    let radius = CornerRadius::same(tokens::RADIUS_M);
    painter.rect_filled(rect, radius, tokens::palette().tile_bg);
    let lookup = item
        .thumbnail_source()
        .map(|url| textures.get(url, PREVIEW_PX));
    match lookup {
        Some(TextureLookup::Ready(texture)) => {
            // Contain: the whole image, letterboxed.
            let size = texture.size_vec2();
            let scale = (rect.width() / size.x.max(1.0)).min(rect.height() / size.y.max(1.0));
            let fitted = egui::Rect::from_center_size(rect.center(), size * scale);
            egui::Image::from_texture(&texture)
                .corner_radius(radius)
                .paint_at(ui, fitted);
        }
        Some(TextureLookup::Loading) => {
            egui::Spinner::new()
                .size(20.0)
                .color(tokens::palette().text_faint)
                .paint_at(
                    ui,
                    egui::Rect::from_center_size(rect.center(), Vec2::splat(20.0)),
                );
        }
        Some(TextureLookup::Failed(_)) | None => {
            crate::ui::icons::paint_icon(
                painter,
                egui::Rect::from_center_size(rect.center(), Vec2::splat(34.0)),
                super::grid::kind_icon(item.kind()),
                tokens::palette().text_faint,
            );
        }
    }
}

fn field(ui: &mut Ui, label: &str, value: Option<String>) {
    ui.label(
        RichText::new(label)
            .size(12.5)
            .color(tokens::palette().text_faint),
    );
    match value {
        Some(value) => ui.add(
            egui::Label::new(
                RichText::new(value)
                    .size(12.5)
                    .color(tokens::palette().text_muted),
            )
            .truncate(),
        ),
        None => ui.label(
            RichText::new("–")
                .size(12.5)
                .color(tokens::palette().text_faint),
        ),
    };
    ui.end_row();
}

fn meta_str(
    metadata: &serde_json::Map<String, serde_json::Value>,
    keys: &[&str],
) -> Option<String> {
    keys.iter()
        .find_map(|k| metadata.get(*k).and_then(|v| v.as_str()))
        .filter(|s| !s.trim().is_empty())
        .map(str::to_owned)
}

pub(super) fn prompt_of(item: &MediaItem, detail: Option<&MediaDetail>) -> Option<String> {
    item.prompt
        .clone()
        .filter(|p| !p.trim().is_empty())
        .or_else(|| meta_str(&item.metadata, &["prompt"]))
        .or_else(|| detail.and_then(|d| meta_str(&d.metadata, &["prompt"])))
}

/// `1536` -> `"1.5 KB"`, `3_400_000` -> `"3.2 MB"`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else if value < 10.0 {
        format!("{value:.1} {}", UNITS[unit])
    } else {
        format!("{value:.0} {}", UNITS[unit])
    }
}

/// The pane's action buttons for `target`, wrapped; the tile's context menu draws the
/// same list (`item_actions`).
fn action_buttons_ui(
    ui: &mut Ui,
    state: &LibraryState,
    model: &Model,
    target: &Target<'_>,
) -> Vec<Action> {
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing = Vec2::new(6.0, 6.0);
        item_actions::item_actions_ui(ui, state, model, target, Style::Buttons)
    })
    .inner
}

#[cfg(test)]
mod tests {
    use super::human_bytes;

    #[test]
    fn bytes_are_human() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(1536), "1.5 KB");
        assert_eq!(human_bytes(3_400_000), "3.2 MB");
        assert_eq!(human_bytes(50 * 1024 * 1024 * 1024), "50 GB");
    }
}
