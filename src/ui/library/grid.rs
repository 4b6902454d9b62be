//! The virtualised thumbnail grid. Only the rows inside the viewport are laid out and
//! painted, so a frame costs O(visible tiles) whatever the library's size. Tiles whose page
//! has not loaded yet are neutral placeholders (no widget, nothing to name).

use super::item_actions::{self, Style, Target};
use super::{LibraryAction, LibraryState, Section};
use crate::api::media::MediaItem;
use crate::ui::icons::{Icon, paint_icon};
use crate::ui::model::{Action, Model};
use crate::ui::textures::{TextureCache, TextureLookup};
use crate::ui::tokens;
use crate::ui::video::{is_video_item, time};
use egui::{
    Align2, Color32, CornerRadius, FontId, Key, Modifiers, Pos2, Rect, Role, Sense, Stroke,
    StrokeKind, Ui, Vec2, WidgetInfo, pos2, vec2,
};

/// Tiles being dragged onto a folder.
#[derive(Clone, Debug)]
pub struct DraggedMedia(pub Vec<String>);

/// Grid geometry for a width and a wanted tile size: columns and the stretched tile side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridGeometry {
    pub columns: usize,
    pub tile: f32,
    pub gap: f32,
}

impl GridGeometry {
    pub fn new(width: f32, wanted_tile: f32) -> Self {
        let gap = tokens::GRID_GAP;
        let width = width.max(wanted_tile.min(1.0));
        let columns = (((width + gap) / (wanted_tile + gap)).floor() as usize).max(1);
        let tile = ((width - gap * (columns as f32 - 1.0)) / columns as f32).max(16.0);
        Self { columns, tile, gap }
    }
    pub fn row_height(&self) -> f32 {
        self.tile + self.gap
    }
    pub fn rows(&self, items: usize) -> usize {
        items.div_ceil(self.columns)
    }
}

/// The tile size the grid asks for in `width`: the person's, made smaller (down to
/// `THUMB_MIN_PX`) when that keeps `GRID_MIN_COLUMNS` columns. Tiles bigger than the
/// default are a choice for fewer columns and stay as chosen.
pub fn wanted_tile_px(width: f32, thumb_px: f32) -> f32 {
    if thumb_px > super::THUMB_DEFAULT_PX {
        return thumb_px;
    }
    let columns = super::layout::GRID_MIN_COLUMNS as f32;
    let fits = (width - (columns - 1.0) * tokens::GRID_GAP) / columns;
    thumb_px.min(fits.max(super::THUMB_MIN_PX))
}

/// Texture size bucket for a tile side, so dragging the size slider refetches only at a
/// bucket's edge. The default tile (168 pt) at 1x takes 192 px rather than 256: a screenful
/// of tiles is then ~45 % less texture, which a software GL holds in process memory.
fn thumb_request_px(tile: f32, pixels_per_point: f32) -> u32 {
    let side_px = tile * pixels_per_point;
    if side_px <= 192.0 {
        192
    } else if side_px <= 256.0 {
        256
    } else {
        512
    }
}

pub fn grid_ui(
    ui: &mut Ui,
    state: &mut LibraryState,
    model: &Model,
    textures: &TextureCache,
) -> Vec<Action> {
    let mut actions = Vec::new();
    let len = state.items.len();

    if len == 0 {
        state.visible = 0..0;
        actions.extend(empty_ui(ui, state).into_iter().map(Action::Library));
        return actions;
    }

    let mut keys = Vec::new();
    keyboard_ui(ui, state, &mut keys);
    actions.extend(keys.into_iter().map(Action::Library));

    let width = ui.available_width() - tokens::SCROLLBAR_ALLOWANCE;
    let geometry = GridGeometry::new(width, wanted_tile_px(width, state.thumb_px));
    state.columns = geometry.columns;
    let rows = geometry.rows(len);
    let row_h = geometry.row_height();
    let px = thumb_request_px(geometry.tile, ui.ctx().pixels_per_point());
    state.thumb_request_px = px;

    let mut scroll = egui::ScrollArea::vertical()
        .id_salt("library_grid")
        .auto_shrink([false, false]);
    if let Some(offset) = state.scroll_offset_request.take() {
        scroll = scroll.vertical_scroll_offset(offset);
    }
    let scroll_to_focus = std::mem::take(&mut state.scroll_to_focus);
    let drag_active = egui::DragAndDrop::has_payload_of_type::<DraggedMedia>(ui.ctx());

    // Right-click on the grid's empty space (below the last row too) offers Upload…; the
    // tiles, added later, take the clicks on themselves.
    let background = ui.interact(
        ui.available_rect_before_wrap(),
        ui.scope_id().with("library_grid_background"),
        // Not focusable: Tab goes to the tiles, not to the space between them.
        Sense::CLICK,
    );
    background.context_menu(|ui| {
        let mut menu = Vec::new();
        super::add_files::empty_space_menu_ui(ui, &mut menu);
        actions.extend(menu.into_iter().map(Action::Library));
    });

    let output = scroll.show_viewport(ui, |ui, viewport| {
        let total_h = (rows as f32 * row_h - geometry.gap).max(0.0);
        ui.set_height(total_h);
        ui.set_width(ui.available_width());
        let origin = ui.max_rect().min;
        let first_row = ((viewport.min.y / row_h).floor().max(0.0)) as usize;
        let last_row = (((viewport.max.y / row_h).ceil()) as usize).min(rows);
        let first = first_row * geometry.columns;
        let end = (last_row * geometry.columns).min(len);
        state.visible = first..end;

        if scroll_to_focus && let Some(focus) = state.selection.focus {
            let row = focus / geometry.columns;
            let rect = Rect::from_min_size(
                origin + vec2(0.0, row as f32 * row_h),
                vec2(geometry.tile, geometry.tile),
            );
            ui.scroll_to_rect(rect, None);
        }

        for index in first..end {
            let row = index / geometry.columns;
            let col = index % geometry.columns;
            let min = origin
                + vec2(
                    col as f32 * (geometry.tile + geometry.gap),
                    row as f32 * row_h,
                );
            let rect = Rect::from_min_size(min, Vec2::splat(geometry.tile));
            match state.items.item(index) {
                Some(item) => actions.extend(tile_ui(
                    ui,
                    state,
                    model,
                    textures,
                    TileAt { index, rect, px },
                    item,
                    drag_active,
                )),
                None => paint_placeholder(ui, rect),
            }
        }
    });
    state.grid_viewport = output.inner_rect;
    actions.extend(
        state
            .video_previews
            .take_commands()
            .into_iter()
            .map(|command| Action::Send(Box::new(command))),
    );

    if drag_active {
        drag_preview_ui(ui.ctx());
    }
    actions
}

/// Where a tile is drawn: its display index, rectangle and thumbnail size bucket.
struct TileAt {
    index: usize,
    rect: Rect,
    px: u32,
}

fn tile_ui(
    ui: &mut Ui,
    state: &LibraryState,
    model: &Model,
    textures: &TextureCache,
    at: TileAt,
    item: &MediaItem,
    drag_active: bool,
) -> Vec<Action> {
    let TileAt { index, rect, px } = at;
    let id = ui.scope_id().with(("tile", index));
    let response = ui.interact(rect, id, Sense::click_and_drag());
    let selected = state.selection.contains(&item.id);
    // The ring shows where the keyboard is: arrows move the library's focus, Tab egui's.
    let focused =
        response.has_focus() || (state.keyboard_focus && state.selection.focus == Some(index));
    let kind = item.kind();

    if ui.is_rect_visible(rect) {
        let painter = ui.painter();
        let radius = CornerRadius::same(tokens::RADIUS_M);
        painter.rect_filled(rect, radius, tokens::palette().tile_bg);
        let lookup = item
            .thumbnail_source()
            .map(|url| textures.thumbnail(&item.id, url, px));
        match &lookup {
            Some(TextureLookup::Ready(texture)) => {
                let uv = cover_uv(texture.size_vec2());
                painter.add(
                    egui::epaint::RectShape::filled(rect, radius, Color32::WHITE)
                        .with_texture(texture.id(), uv),
                );
            }
            Some(TextureLookup::Failed(_)) => {
                paint_icon(
                    painter,
                    Rect::from_center_size(rect.center(), Vec2::splat(26.0)),
                    Icon::BrokenImage,
                    tokens::palette().text_faint,
                );
            }
            _ => {
                let icon = kind_icon(kind);
                paint_icon(
                    painter,
                    Rect::from_center_size(rect.center(), Vec2::splat(24.0)),
                    icon,
                    tokens::palette().tile_glyph,
                );
            }
        }

        // Hover-scrub: the preview frame under the pointer (asked for on first hover).
        if is_video_item(item)
            && response.hovered()
            && !drag_active
            && !item.url.is_empty()
            && let Some(pointer) = response.hover_pos()
        {
            let fraction = time::scrub_fraction(pointer.x, rect.left(), rect.width());
            if let Some(frame) = state.video_previews.frame_at(&item.url, fraction) {
                let uv = cover_uv(frame.size_vec2());
                painter.add(
                    egui::epaint::RectShape::filled(rect, radius, Color32::WHITE)
                        .with_texture(frame.id(), uv),
                );
                let bar = Rect::from_min_max(
                    pos2(rect.left(), rect.bottom() - 3.0),
                    pos2(rect.left() + fraction * rect.width(), rect.bottom()),
                );
                painter.rect_filled(bar, CornerRadius::ZERO, tokens::palette().accent);
            }
        }

        // A sound: the time under the pointer on its waveform thumbnail.
        if kind == "audio"
            && response.hovered()
            && !drag_active
            && let Some(duration) = item
                .duration
                .or_else(|| crate::ui::audio::sounds::known_duration(ui.ctx(), &item.url))
                .filter(|d| d.is_finite() && *d > 0.0)
            && let Some(pointer) = response.hover_pos()
        {
            let fraction = time::scrub_fraction(pointer.x, rect.left(), rect.width());
            paint_hover_time(painter, rect, pointer.x, f64::from(fraction) * duration);
        }

        // Type badge and duration for video/audio.
        if kind == "video" || kind == "audio" {
            let duration = item.duration.or_else(|| {
                (kind == "audio")
                    .then(|| crate::ui::audio::sounds::known_duration(ui.ctx(), &item.url))
                    .flatten()
            });
            paint_media_badge(painter, rect, kind, duration);
        }
        if crate::ui::viewer::subject::is_model_3d_item(item) {
            // Top-left: the favourite star has the top-right corner.
            let corner = Rect::from_min_size(rect.min, vec2(42.0, 30.0));
            crate::ui::result_tile::paint_3d_badge(painter, corner);
        }
        if item.is_favorited == Some(true) {
            let star = Rect::from_center_size(
                pos2(rect.right() - 15.0, rect.top() + 15.0),
                Vec2::splat(20.0),
            );
            painter.circle_filled(star.center(), 11.0, tokens::palette().tile_scrim);
            paint_icon(
                painter,
                star.shrink(4.0),
                Icon::Star,
                tokens::palette().favourite,
            );
        }

        if focused {
            // Outside the tile, so it reads apart from the selection's inner outline.
            painter.rect_stroke(
                rect.expand(3.0),
                CornerRadius::same(tokens::RADIUS_M + 3),
                Stroke::new(2.0, tokens::palette().accent_hover),
                StrokeKind::Outside,
            );
        }
        if selected {
            painter.rect_filled(rect, radius, tokens::palette().selection_tint);
            painter.rect_stroke(
                rect,
                radius,
                Stroke::new(2.0, tokens::palette().accent),
                StrokeKind::Inside,
            );
            let check = pos2(rect.left() + 15.0, rect.top() + 15.0);
            painter.circle_filled(check, 9.0, tokens::palette().accent);
            paint_icon(
                painter,
                Rect::from_center_size(check, Vec2::splat(11.0)),
                Icon::Check,
                tokens::palette().on_accent,
            );
        } else if response.hovered() && !drag_active {
            painter.rect_stroke(
                rect,
                radius,
                Stroke::new(1.0, tokens::palette().border_strong),
                StrokeKind::Inside,
            );
        }
    }

    response.widget_info(|| {
        WidgetInfo::selected(
            Role::Button,
            true,
            selected,
            format!("{}, {}", item.display_name(), kind),
        )
    });

    let mut actions = Vec::new();
    // A selection still being completed by select all is not dragged (it would miss items).
    if response.drag_started() && !(selected && state.selection.all_pending) {
        let ids = if selected {
            state.selection.ordered_ids(&state.items)
        } else {
            vec![item.id.clone()]
        };
        response.dnd_set_drag_payload(DraggedMedia(ids));
    }
    #[cfg(any(target_os = "macos", target_os = "windows"))]
    actions.extend(crate::ui::result_tile::drag_out_when_leaving(
        ui,
        &response,
        &crate::ui::model::ResultRef::Media(Box::new(item.clone())),
    ));
    if response.double_clicked() {
        actions.push(Action::Library(LibraryAction::OpenViewer(index)));
    } else if response.clicked() {
        let modifiers = ui.input(|i| i.modifiers);
        actions.push(Action::Library(LibraryAction::Click {
            index,
            ctrl: modifiers.command || modifiers.ctrl,
            shift: modifiers.shift,
        }));
    }
    // Right-click on a tile outside the selection acts on that tile alone (and selects it,
    // so the detail pane shows what the menu acts on), as file managers do.
    if response.secondary_clicked() && !selected {
        actions.push(Action::Library(LibraryAction::Click {
            index,
            ctrl: false,
            shift: false,
        }));
    }
    response.context_menu(|ui| {
        ui.set_min_width(190.0);
        let acts_on_selection = selected && state.selection.len() > 1;
        let selection_ids = || state.selection.ordered_ids(&state.items);
        let tile_ids = || vec![item.id.clone()];
        let target = if acts_on_selection {
            Target {
                ids: &selection_ids,
                count: state.selection.len(),
                single: None,
                pending: state.selection.all_pending,
            }
        } else {
            Target {
                ids: &tile_ids,
                count: 1,
                single: Some((index, item)),
                pending: false,
            }
        };
        actions.extend(item_actions::item_actions_ui(
            ui,
            state,
            model,
            &target,
            Style::Menu,
        ));
    });
    if response.hovered() && !drag_active {
        response.on_hover_text_at_pointer(item.display_name());
    }
    actions
}

/// A line at `x` and the time there (`m:ss.t`) on a sound's tile.
fn paint_hover_time(painter: &egui::Painter, rect: Rect, x: f32, secs: f64) {
    painter.line_segment(
        [pos2(x, rect.top() + 4.0), pos2(x, rect.bottom() - 4.0)],
        Stroke::new(1.0, tokens::palette().accent),
    );
    let galley = painter.layout_no_wrap(
        crate::ui::audio::time::clock(secs),
        FontId::proportional(11.0),
        tokens::palette().text,
    );
    let size = galley.size() + vec2(8.0, 4.0);
    let left = (x - size.x * 0.5).clamp(
        rect.left() + 2.0,
        (rect.right() - size.x - 2.0).max(rect.left()),
    );
    let label = Rect::from_min_size(pos2(left, rect.top() + 6.0), size);
    painter.rect_filled(
        label,
        CornerRadius::same(tokens::RADIUS_S),
        tokens::palette().tile_scrim,
    );
    painter.galley(label.min + vec2(4.0, 2.0), galley, tokens::palette().text);
}

fn paint_placeholder(ui: &Ui, rect: Rect) {
    ui.painter().rect_filled(
        rect,
        CornerRadius::same(tokens::RADIUS_M),
        tokens::palette().tile_placeholder,
    );
}

fn paint_media_badge(painter: &egui::Painter, rect: Rect, kind: &str, duration: Option<f64>) {
    let text = duration.and_then(crate::ui::video::time::duration_badge);
    let font = FontId::proportional(11.0);
    let text_w = text.as_ref().map_or(0.0, |t| t.len() as f32 * 6.2);
    let h = 18.0;
    let w = 20.0 + if text_w > 0.0 { text_w + 4.0 } else { 0.0 };
    let badge = Rect::from_min_size(pos2(rect.left() + 6.0, rect.bottom() - 6.0 - h), vec2(w, h));
    painter.rect_filled(
        badge,
        CornerRadius::same(tokens::RADIUS_S),
        tokens::palette().tile_scrim,
    );
    let icon_rect = Rect::from_center_size(
        pos2(badge.left() + 10.0, badge.center().y),
        Vec2::splat(11.0),
    );
    paint_icon(painter, icon_rect, kind_icon(kind), tokens::palette().text);
    if let Some(text) = text {
        painter.text(
            pos2(badge.left() + 19.0, badge.center().y),
            Align2::LEFT_CENTER,
            text,
            font,
            tokens::palette().text,
        );
    }
}

pub fn kind_icon(kind: &str) -> Icon {
    match kind {
        "video" => Icon::Video,
        "audio" => Icon::Audio,
        _ => Icon::Image,
    }
}

/// UV rectangle that cover-crops a texture of `size` into a square.
pub fn cover_uv(size: Vec2) -> Rect {
    let aspect = size.x / size.y.max(1.0);
    if aspect > 1.0 {
        let w = 1.0 / aspect;
        Rect::from_min_max(pos2((1.0 - w) / 2.0, 0.0), pos2((1.0 + w) / 2.0, 1.0))
    } else {
        let h = aspect;
        Rect::from_min_max(pos2(0.0, (1.0 - h) / 2.0), pos2(1.0, (1.0 + h) / 2.0))
    }
}

fn drag_preview_ui(ctx: &egui::Context) {
    let Some(payload) = egui::DragAndDrop::payload::<DraggedMedia>(ctx) else {
        return;
    };
    let Some(pointer) = ctx.pointer_interact_pos() else {
        return;
    };
    let count = payload.0.len();
    let text = if count == 1 {
        "1 item".to_owned()
    } else {
        format!("{count} items")
    };
    let painter = ctx.layer_painter(egui::LayerId::new(
        egui::Order::Tooltip,
        egui::Id::unique("library_drag_preview"),
    ));
    let at = pointer + vec2(14.0, 10.0);
    let galley = painter.layout_no_wrap(
        text,
        FontId::proportional(12.5),
        tokens::palette().on_accent,
    );
    let rect = Rect::from_min_size(at, galley.size() + vec2(16.0, 8.0));
    painter.rect_filled(
        rect,
        CornerRadius::same(tokens::RADIUS_S + 2),
        tokens::palette().accent,
    );
    painter.galley(
        rect.min + vec2(8.0, 4.0),
        galley,
        tokens::palette().on_accent,
    );
    ctx.set_cursor_icon(egui::CursorIcon::Grabbing);
}

fn keyboard_ui(ui: &mut Ui, state: &LibraryState, actions: &mut Vec<LibraryAction>) {
    let ctx = ui.ctx();
    // An open context menu takes the keys: Esc closes it (instead of clearing the
    // selection under it), arrows and Del do not act on the grid behind it.
    if ctx.egui_wants_keyboard_input()
        || egui::Popup::is_any_open(ctx)
        || state.confirm.is_some()
        || state.share.is_some()
        || state.folder_form.is_some()
    {
        return;
    }
    let columns = state.columns.max(1) as isize;
    ui.input_mut(|i| {
        if i.consume_key(Modifiers::COMMAND, Key::A) {
            actions.push(LibraryAction::SelectAll);
        }
        for (key, delta) in [
            (Key::ArrowLeft, -1),
            (Key::ArrowRight, 1),
            (Key::ArrowUp, -columns),
            (Key::ArrowDown, columns),
        ] {
            if i.consume_key(Modifiers::SHIFT, key) {
                actions.push(LibraryAction::MoveFocus {
                    delta,
                    extend: true,
                });
            } else if i.consume_key(Modifiers::NONE, key) {
                actions.push(LibraryAction::MoveFocus {
                    delta,
                    extend: false,
                });
            }
        }
        if i.consume_key(Modifiers::NONE, Key::Escape) {
            actions.push(LibraryAction::ClearSelection);
        }
        // Actions on the selection wait until select all has every page; ids are put in
        // order only when a key acts (not every frame).
        let can_act = !state.selection.is_empty() && !state.selection.all_pending;
        let selected = || state.selection.ordered_ids(&state.items);
        if can_act && state.in_trash() && i.consume_key(Modifiers::NONE, Key::R) {
            actions.push(LibraryAction::Restore(selected()));
        }
        if can_act && i.consume_key(Modifiers::NONE, Key::Delete) {
            if state.in_trash() {
                actions.push(LibraryAction::AskDeleteForever(selected()));
            } else {
                actions.push(LibraryAction::Trash(selected()));
            }
        }
        if can_act && !state.in_trash() && i.consume_key(Modifiers::NONE, Key::F) {
            let all_favourite = state.selection.ids.iter().all(|id| {
                state
                    .items
                    .find(id)
                    .is_some_and(|i| i.is_favorited == Some(true))
            });
            actions.push(LibraryAction::Favourite {
                ids: selected(),
                favourite: !all_favourite,
            });
        }
        if i.consume_key(Modifiers::NONE, Key::Enter)
            && let Some(focus) = state.selection.focus
        {
            actions.push(LibraryAction::OpenViewer(focus));
        }
    });
}

/// What an empty grid says, and what it offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EmptyOffer {
    Nothing,
    /// *Upload…* and "or drop files here".
    Upload,
    /// Filters hide what is there.
    ClearFilters,
}

/// The empty grid's words: title, body, icon and what it offers.
fn empty_words(state: &LibraryState) -> (String, String, Icon, EmptyOffer) {
    use super::Place;
    use crate::api::media::MediaTypeFilter;
    let words = |title: &str, body: &str, icon: Icon, offer: EmptyOffer| {
        (title.to_owned(), body.to_owned(), icon, offer)
    };
    if !state.items.first_page_done() {
        return words(
            "Loading the library…",
            "",
            Icon::Library,
            EmptyOffer::Nothing,
        );
    }
    if let Some(error) = state.items.error() {
        let body = crate::ui::offline::human_error(error);
        return words(
            "The library could not be loaded",
            &body,
            Icon::Warning,
            EmptyOffer::Nothing,
        );
    }
    let searching = !state.applied_search.trim().is_empty();
    // A type filter over an empty library hides nothing: say how to add files instead.
    let library_empty = state.stats.value.as_ref().and_then(|s| s.total) == Some(0);
    if searching || (state.type_filter != MediaTypeFilter::All && !library_empty) {
        let kind = match state.type_filter {
            MediaTypeFilter::Image => "images",
            MediaTypeFilter::Video => "videos",
            MediaTypeFilter::Audio => "audio",
            MediaTypeFilter::All => "items",
        };
        let body = if searching {
            format!("No {kind} here match your search. Try other words, or clear the filters.")
        } else {
            format!("No {kind} here; the type filter hides everything else.")
        };
        return words(
            "Nothing matches the current filters",
            &body,
            Icon::Library,
            EmptyOffer::ClearFilters,
        );
    }
    if let (Some((_, name)), Place::Section(_)) = (&state.moodboard_filter.active, &state.place) {
        return words(
            "Nothing made with this moodboard here",
            &format!(
                "No items here were generated with the moodboard “{name}”. Pick it in Create, \
                 or clear the filters."
            ),
            Icon::Library,
            EmptyOffer::ClearFilters,
        );
    }
    match &state.place {
        Place::Folder(_) => words(
            "This folder is empty",
            "Add items with “Add to folder…” or by dragging tiles onto the folder, or \
             upload files into it.",
            Icon::Folder,
            EmptyOffer::Upload,
        ),
        Place::Section(Section::Trash) => words(
            "Trash is empty",
            "Items you move to the trash wait here for 30 days, then are deleted for good. \
             Until then you can restore them.",
            Icon::Trash,
            EmptyOffer::Nothing,
        ),
        Place::Section(Section::Favourites) => words(
            "No favourites yet",
            "Select an item and press F to star it. To add new files to the library, \
             upload them.",
            Icon::Star,
            EmptyOffer::Upload,
        ),
        Place::Section(Section::Ai) => words(
            "Nothing generated yet",
            "Images and videos you generate in Create appear here.",
            Icon::Create,
            EmptyOffer::Nothing,
        ),
        Place::Section(Section::Edited) => words(
            "Nothing edited yet",
            "Edits you make in Create (image edit, video edit, trim) appear here.",
            Icon::Edit,
            EmptyOffer::Nothing,
        ),
        Place::Section(Section::Uploaded) => words(
            "Nothing uploaded yet",
            "Add your own images and videos to use them in Create and keep them here.",
            Icon::Upload,
            EmptyOffer::Upload,
        ),
        Place::Section(Section::All) if state.project_filter.is_some() => words(
            "Nothing in this project yet",
            "Generate into it from Create, upload files into it, or choose “All \
             projects” above the sections.",
            Icon::Library,
            EmptyOffer::Upload,
        ),
        Place::Section(Section::All) => words(
            "No media yet",
            "Generate in Create, or add your own images and videos.",
            Icon::Library,
            EmptyOffer::Upload,
        ),
    }
}

fn empty_ui(ui: &mut Ui, state: &LibraryState) -> Vec<LibraryAction> {
    let mut actions = Vec::new();
    let (title, body, icon, offer) = empty_words(state);
    // The whole empty area answers a right-click with the upload menu, as the grid does.
    let area = ui.interact(
        ui.available_rect_before_wrap(),
        ui.scope_id().with("library_empty_area"),
        Sense::CLICK,
    );
    if offer == EmptyOffer::Upload {
        area.context_menu(|ui| super::add_files::empty_space_menu_ui(ui, &mut actions));
    }
    ui.add_space((ui.available_height() * 0.3).max(tokens::SPACE_XL));
    ui.vertical_centered(|ui| {
        ui.set_max_width(460.0);
        if !state.items.first_page_done() {
            ui.add(
                egui::Spinner::new()
                    .size(22.0)
                    .color(tokens::palette().text_faint),
            );
        } else {
            crate::ui::icons::icon_ui(ui, icon, 44.0, tokens::palette().text_faint);
        }
        ui.add_space(tokens::SPACE_S);
        ui.label(
            egui::RichText::new(title)
                .size(tokens::TEXT_TITLE + 2.0)
                .strong()
                .color(tokens::palette().text),
        );
        if !body.is_empty() {
            ui.add_space(tokens::SPACE_XS);
            ui.label(egui::RichText::new(body).color(tokens::palette().text_muted));
        }
        match offer {
            EmptyOffer::Nothing => {}
            EmptyOffer::Upload => {
                ui.add_space(tokens::SPACE_M);
                super::add_files::upload_call_to_action_ui(ui, &mut actions);
            }
            EmptyOffer::ClearFilters => {
                ui.add_space(tokens::SPACE_M);
                if ui
                    .add(crate::ui::widgets::secondary_button("Clear filters"))
                    .clicked()
                {
                    actions.push(LibraryAction::ClearFilters);
                }
            }
        }
    });
    actions
}

/// Top-left of a tile (benchmarks and tests use the same geometry as the grid).
pub fn tile_origin(geometry: &GridGeometry, index: usize) -> Pos2 {
    let row = index / geometry.columns;
    let col = index % geometry.columns;
    pos2(
        col as f32 * (geometry.tile + geometry.gap),
        row as f32 * geometry.row_height(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tile_is_never_drawn_from_a_smaller_texture_and_the_default_takes_the_small_bucket() {
        for ppp in [1.0_f32, 1.25, 1.5, 2.0] {
            let mut tile = super::super::THUMB_MIN_PX;
            while tile <= super::super::THUMB_MAX_PX {
                let px = thumb_request_px(tile, ppp);
                assert!(
                    px as f32 >= (tile * ppp).min(512.0),
                    "{tile} pt at {ppp}x got {px} px"
                );
                tile += 4.0;
            }
        }
        assert_eq!(thumb_request_px(super::super::THUMB_DEFAULT_PX, 1.0), 192);
        assert_eq!(thumb_request_px(super::super::THUMB_DEFAULT_PX, 1.5), 256);
    }
}
