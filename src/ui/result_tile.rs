//! One finished result as a tile: the image (click opens the viewer), and the things an
//! artist does with a result — as buttons under large tiles and as a right-click menu on
//! every tile. Shared by the Create canvas, the job tray and the viewer.

use crate::api::JobResult;
use crate::ui::icons::{Icon, paint_icon};
use crate::ui::model::{ResultAction, ResultRef};
use crate::ui::textures::{TextureCache, TextureLookup};
use crate::ui::tokens;
use crate::ui::video::is_video_output;
use crate::ui::widgets;
use egui::{CornerRadius, Rect, Role, Sense, Stroke, Ui, Vec2, WidgetInfo, pos2};

/// How the image fills the tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    /// A square, cropped to fill (small thumbnails).
    Cover,
    /// A square holding the whole image, letterboxed.
    Contain,
    /// The tile takes the picture's shape: `side` wide and as tall as the picture, so a
    /// 16:9 video is a 16:9 tile with no empty band (large tiles: nothing is hidden).
    /// `ratio` (width, height; "16:9" is (16, 9)) is its shape until the picture loads.
    Media { ratio: (u32, u32) },
}

/// The flattest and the tallest shape a [`Fit::Media`] tile takes; beyond them the picture
/// is letterboxed in the tile.
const MEDIA_ASPECT_RANGE: std::ops::RangeInclusive<f32> = 0.5..=2.4;

/// (width, height) of an aspect ratio written "16:9"; `None` when unreadable.
pub fn parse_ratio(text: &str) -> Option<(u32, u32)> {
    let (w, h) = text.trim().split_once(':')?;
    let (w, h) = (w.trim().parse().ok()?, h.trim().parse().ok()?);
    (w > 0 && h > 0).then_some((w, h))
}

/// Width over height of what `lookup` shows, else of `fit`'s ratio (1 for squares).
fn picture_aspect(lookup: &TextureLookup, fit: Fit) -> f32 {
    let known = match lookup {
        TextureLookup::Ready(texture) => {
            let size = texture.size_vec2();
            (size.x > 0.0 && size.y > 0.0).then(|| size.x / size.y)
        }
        _ => None,
    };
    match fit {
        Fit::Cover | Fit::Contain => 1.0,
        Fit::Media { ratio: (w, h) } => known.unwrap_or(w as f32 / h.max(1) as f32),
    }
}

/// The size of a tile's picture area for `fit`, `side` wide.
fn picture_size(side: f32, aspect: f32, fit: Fit) -> Vec2 {
    match fit {
        Fit::Cover | Fit::Contain => Vec2::splat(side),
        Fit::Media { .. } => {
            let aspect = aspect.clamp(*MEDIA_ASPECT_RANGE.start(), *MEDIA_ASPECT_RANGE.end());
            Vec2::new(side, (side / aspect).round())
        }
    }
}

/// Width over height of `tile`'s picture area (what the canvas's inline player takes).
pub fn tile_aspect(ui: &Ui, textures: &TextureCache, tile: &ResultTile) -> f32 {
    let lookup = textures.get(tile.image_url, texture_side_px(ui, tile.side));
    let size = picture_size(tile.side, picture_aspect(&lookup, tile.fit), tile.fit);
    size.x / size.y.max(1.0)
}

fn texture_side_px(ui: &Ui, side: f32) -> u32 {
    ((side * ui.ctx().pixels_per_point()).ceil() as u32).max(64)
}

/// Height of the button row under a tile with buttons.
pub const BUTTON_ROW_HEIGHT: f32 = 30.0;

pub struct ResultTile<'a> {
    pub result: &'a ResultRef,
    /// What to draw: the thumbnail, else the output itself.
    pub image_url: &'a str,
    /// Accessible name and hover text of the image ("Open result 1 of 2 in viewer").
    pub name: &'a str,
    pub favourite: bool,
    /// Width of the picture in points (and its height, unless it is [`Fit::Media`]).
    pub side: f32,
    pub fit: Fit,
    /// Show the action buttons under the image; the context menu is always there.
    pub buttons: bool,
    /// `Some(duration)` for a video (play badge, duration, no image-only actions).
    pub video: Option<Option<f64>>,
    /// A 3D model: the picture is its thumbnail, with a "3D" badge; opening it shows the
    /// turntable; no image-only actions.
    pub model_3d: bool,
}

/// What the artist did with a tile this frame.
#[derive(Clone, Debug, PartialEq)]
pub enum TileEvent {
    /// Open the viewer on this result (the caller knows the list it belongs to).
    Open,
    /// The picture of a video tile was clicked: play it (where the tile is, if the panel
    /// can; else in the viewer).
    Play,
    Action(ResultAction),
}

impl TileEvent {
    /// The result action this event asks for; `Open` opens `list[index]`.
    pub fn into_action(self, list: impl FnOnce() -> Vec<ResultRef>, index: usize) -> ResultAction {
        match self {
            TileEvent::Open | TileEvent::Play => ResultAction::Open {
                list: list(),
                index,
            },
            TileEvent::Action(action) => action,
        }
    }
}

/// One ref per output of a finished job, in output order.
pub fn job_result_refs(job: &crate::engine::JobRecord) -> Vec<ResultRef> {
    let count = job.result.as_ref().map_or(0, |r| r.urls.len());
    // A 3D job is one model whatever its files (GLB, OBJ).
    let count = if job.spec.kind.outputs_3d() {
        count.min(1)
    } else {
        count
    };
    (0..count)
        .map(|index| ResultRef::Job {
            local_id: job.local_id,
            index,
        })
        .collect()
}

/// The actions of a result in menu order: (icon, accessible name, action).
fn actions_of(
    result: &ResultRef,
    favourite: bool,
    is_video: bool,
) -> Vec<(Icon, &'static str, ResultAction)> {
    let mut actions = vec![
        (
            Icon::Upload,
            "Reuse prompt and settings",
            ResultAction::Reuse(result.clone()),
        ),
        (
            Icon::Edit,
            "Use as edit source",
            ResultAction::UseAsEditSource(result.clone()),
        ),
        (
            Icon::Video,
            "Animate",
            ResultAction::Animate(result.clone()),
        ),
        (
            Icon::Edit,
            "Edit video",
            ResultAction::EditVideo {
                result: result.clone(),
                trim: false,
            },
        ),
        (
            Icon::Loop,
            "Trim",
            ResultAction::EditVideo {
                result: result.clone(),
                trim: true,
            },
        ),
        (Icon::Create, "Vary…", ResultAction::Vary(result.clone())),
        (
            Icon::Star,
            if favourite {
                "Remove from favourites"
            } else {
                "Favourite"
            },
            ResultAction::SetFavourite {
                result: result.clone(),
                favourite: !favourite,
            },
        ),
        (
            Icon::Trash,
            "Move to Trash",
            ResultAction::Trash(result.clone()),
        ),
    ];
    // Image edits and animating take images; video edits and trims take videos.
    actions.retain(|(_, _, action)| match action {
        ResultAction::UseAsEditSource(_) | ResultAction::Animate(_) => !is_video,
        ResultAction::EditVideo { .. } => is_video,
        _ => true,
    });
    actions
}

/// `Some(duration)` when output `index` of `result` is a video (the duration may be
/// unknown), for [`ResultTile::video`].
pub fn job_output_video(result: &JobResult, index: usize) -> Option<Option<f64>> {
    is_video_output(result, index).then_some(result.duration)
}

/// The picture to draw for output `index`: a Creative Director scene's poster, the
/// result's thumbnail for the first output, else the output itself.
pub fn job_output_picture(result: &JobResult, index: usize) -> Option<&str> {
    let url = result.urls.get(index)?;
    let scene_poster = result
        .scenes
        .iter()
        .find(|scene| scene.output_urls().first() == Some(url))
        .and_then(|scene| scene.thumbnail_url.as_deref());
    let first_thumbnail = (index == 0)
        .then_some(result.thumbnail_url.as_deref())
        .flatten();
    Some(
        scene_poster
            .or(first_thumbnail)
            .filter(|u| !u.is_empty())
            .unwrap_or(url),
    )
}

/// Lay out one tile: `tile.side` wide, the picture (see [`Fit`]) and the button row if any.
pub fn result_tile_ui(
    ui: &mut Ui,
    textures: &TextureCache,
    tile: &ResultTile,
) -> Option<TileEvent> {
    if tile.video.is_none() && crate::ui::audio::is_audio_url(tile.image_url) {
        return audio_result_tile_ui(ui, tile);
    }
    let mut event = None;
    ui.vertical(|ui| {
        ui.spacing_mut().item_spacing.y = 2.0;
        // On macOS and Windows a result can be dragged out of the window as a file.
        let sense = if cfg!(any(target_os = "macos", target_os = "windows")) {
            Sense::click_and_drag()
        } else {
            Sense::click()
        };
        let video = tile.video;
        // A video without a poster: the file itself is no picture to fetch.
        let no_poster = video.is_some() && crate::ui::video::is_video(None, None, tile.image_url);
        // Without a poster the engine shows the video's first frame.
        let lookup = textures.get(tile.image_url, texture_side_px(ui, tile.side));
        let size = picture_size(tile.side, picture_aspect(&lookup, tile.fit), tile.fit);
        let (rect, response) = ui.allocate_exact_size(size, sense);
        let no_picture = no_poster && !matches!(lookup, TextureLookup::Ready(_));
        let picture = painted_rect(rect, &lookup, tile.fit);
        if let Some(duration) = video {
            // Named, so the length can be read out (and found by tests).
            video_length_ui(ui, picture, duration);
        }
        if ui.is_rect_visible(rect) {
            paint_image(ui, rect, &lookup, tile.fit, response.hovered());
            if let Some(duration) = video {
                paint_video_badges(ui.painter(), picture, duration, no_picture);
            }
            if tile.model_3d {
                paint_3d_badge(ui.painter(), picture);
            }
            if tile.favourite {
                let badge = Rect::from_min_size(rect.min + Vec2::splat(6.0), Vec2::splat(18.0));
                paint_icon(ui.painter(), badge, Icon::Star, tokens::palette().favourite);
            }
        }
        let name = tile.name.to_owned();
        response.widget_info(|| WidgetInfo::labeled(Role::Button, true, &name));
        let response = response.on_hover_cursor(egui::CursorIcon::PointingHand);
        let response = match &lookup {
            TextureLookup::Failed(error) => {
                response.on_hover_text(format!("Image failed to load: {error}"))
            }
            _ => response.on_hover_text(tile.name),
        };
        #[cfg(any(target_os = "macos", target_os = "windows"))]
        if response.drag_started() {
            event = Some(TileEvent::Action(ResultAction::FileOut {
                result: tile.result.clone(),
                purpose: crate::engine::FileOutPurpose::Drag,
            }));
        }
        if response.clicked() {
            event = Some(if tile.video.is_some() {
                TileEvent::Play
            } else {
                TileEvent::Open
            });
        }
        response.context_menu(|ui| {
            if ui.button("Open in viewer").clicked() {
                event = Some(TileEvent::Open);
                ui.close();
            }
            ui.separator();
            for (_, label, action) in actions_of(
                tile.result,
                tile.favourite,
                tile.video.is_some() || tile.model_3d,
            ) {
                if tile.model_3d && matches!(action, ResultAction::EditVideo { .. }) {
                    continue;
                }
                if ui.button(label).clicked() {
                    event = Some(TileEvent::Action(action));
                    ui.close();
                }
            }
            if tile.video.is_some()
                && ui
                    .button("Transcribe")
                    .on_hover_text(crate::ui::transcript::jobs::TRANSCRIBE_HINT)
                    .clicked()
            {
                event = Some(TileEvent::Action(ResultAction::Transcribe(
                    tile.result.clone(),
                )));
                ui.close();
            }
            ui.separator();
            if let Some(action) = file_out_menu_ui(ui, tile.result) {
                event = Some(TileEvent::Action(action));
                ui.close();
            }
            if tile.video.is_none() && !tile.model_3d {
                ui.separator();
                if let Some(action) = crate::ui::image_tools::menu_entries_ui(ui, tile.result) {
                    event = Some(TileEvent::Action(action));
                }
            }
        });
        if tile.buttons
            && let Some(clicked) = tile_buttons_ui(ui, tile)
        {
            event = Some(clicked);
        }
        if tile.buttons
            && tile.video.is_none()
            && !tile.model_3d
            && let Some(action) = image_tools_row_ui(ui, tile)
        {
            event = Some(TileEvent::Action(action));
        }
    });
    event
}

/// The "3D" badge in a 3D model tile's top-right corner.
pub fn paint_3d_badge(painter: &egui::Painter, picture: Rect) {
    let size = Vec2::new(30.0, 18.0);
    let badge = Rect::from_min_size(
        egui::pos2(picture.max.x - size.x - 6.0, picture.min.y + 6.0),
        size,
    );
    painter.rect_filled(badge, 4.0, egui::Color32::from_black_alpha(170));
    painter.text(
        badge.center(),
        egui::Align2::CENTER_CENTER,
        "3D",
        egui::FontId::proportional(12.0),
        egui::Color32::WHITE,
    );
}

/// A sound as a result tile: the shared audio tile (▶/⏸ through the studio's output, the
/// waveform, the length); its title opens the viewer's audio view; the right-click menu has
/// the actions that fit a sound. Music's variations are laid side by side by the caller
/// (`ui::compose::audio_results`), each as one of these.
fn audio_result_tile_ui(ui: &mut Ui, tile: &ResultTile) -> Option<TileEvent> {
    let mut event = None;
    let shown = crate::ui::audio::tile::audio_tile_ui(
        ui,
        &crate::ui::audio::tile::AudioTile {
            url: tile.image_url,
            title: tile.name,
            duration_secs: None,
            lyrics: None,
            width: tile.side,
        },
    );
    if shown.open {
        event = Some(TileEvent::Open);
    }
    if let Some(response) = shown.response {
        response.context_menu(|ui| {
            if ui.button("Open in viewer").clicked() {
                event = Some(TileEvent::Open);
                ui.close();
            }
            ui.separator();
            for (_, label, action) in actions_of(tile.result, tile.favourite, false) {
                if matches!(
                    action,
                    ResultAction::UseAsEditSource(_) | ResultAction::Animate(_)
                ) {
                    continue;
                }
                if ui.button(label).clicked() {
                    event = Some(TileEvent::Action(action));
                    ui.close();
                }
            }
            ui.separator();
            if let Some(action) = file_out_menu_ui(ui, tile.result) {
                event = Some(TileEvent::Action(action));
                ui.close();
            }
        });
    }
    event
}

/// The result as a file for the desktop: reveal it, copy it as a file (downloaded first
/// when needed). Shared with the library's item actions.
pub fn file_out_menu_ui(ui: &mut Ui, result: &ResultRef) -> Option<ResultAction> {
    let mut chosen = None;
    for (label, hint, purpose) in FILE_OUT_ENTRIES {
        if ui.button(label).on_hover_text(hint).clicked() {
            chosen = Some(ResultAction::FileOut {
                result: result.clone(),
                purpose,
            });
        }
    }
    chosen
}

/// A library tile dragged past the window's edge (its in-window drag goes to folders):
/// drag the item out as a file, once per drag (macOS, Windows).
#[cfg(any(target_os = "macos", target_os = "windows"))]
pub fn drag_out_when_leaving(
    ui: &Ui,
    response: &egui::Response,
    result: &ResultRef,
) -> Option<crate::ui::model::Action> {
    let flag = response.id.with("dragged_out");
    if !response.dragged() {
        ui.ctx().data_mut(|d| d.remove::<bool>(flag));
        return None;
    }
    let outside = ui.ctx().input(|i| i.pointer.hover_pos().is_none());
    let already = ui.ctx().data(|d| d.get_temp::<bool>(flag)).unwrap_or(false);
    if !outside || already {
        return None;
    }
    ui.ctx().data_mut(|d| d.insert_temp(flag, true));
    Some(crate::ui::model::Action::Result(ResultAction::FileOut {
        result: result.clone(),
        purpose: crate::engine::FileOutPurpose::Drag,
    }))
}

/// (label, hover text, purpose) of the file-out actions, in menu order.
pub const FILE_OUT_ENTRIES: [(&str, &str, crate::engine::FileOutPurpose); 2] = [
    (
        "Reveal in file manager",
        "Show the file in the file manager (downloaded first if needed)",
        crate::engine::FileOutPurpose::Reveal,
    ),
    (
        "Copy file",
        "Put the file itself on the clipboard, to paste into a folder or another app",
        crate::engine::FileOutPurpose::Copy,
    ),
];

/// Where the picture is painted in a tile at `rect`: all of it, except where a
/// letterboxed picture leaves bands.
fn painted_rect(rect: Rect, lookup: &TextureLookup, fit: Fit) -> Rect {
    let TextureLookup::Ready(texture) = lookup else {
        return rect;
    };
    match fit {
        Fit::Cover => rect,
        Fit::Contain | Fit::Media { .. } => {
            let size = texture.size_vec2();
            let aspect = (size.x / size.y.max(1.0)).max(f32::EPSILON);
            let fitted = if rect.width() / aspect <= rect.height() {
                Vec2::new(rect.width(), rect.width() / aspect)
            } else {
                Vec2::new(rect.height() * aspect, rect.height())
            };
            Rect::from_center_size(rect.center(), fitted)
        }
    }
}

/// The duration badge's place: the picture's bottom-left corner.
fn length_badge_rect(painter: &egui::Painter, picture: Rect, text: &str) -> Rect {
    let galley = painter.layout_no_wrap(
        text.to_owned(),
        egui::FontId::proportional(11.0),
        tokens::palette().text,
    );
    Rect::from_min_size(
        pos2(picture.left() + 6.0, picture.bottom() - 6.0 - 18.0),
        Vec2::new(galley.size().x + 10.0, 18.0),
    )
}

/// The duration badge as a named (hover-only) widget: "Length 0:06".
fn video_length_ui(ui: &Ui, picture: Rect, duration: Option<f64>) {
    let Some(text) = duration.and_then(crate::ui::video::time::duration_badge) else {
        return;
    };
    if picture.width() < 72.0 {
        return;
    }
    let badge = length_badge_rect(ui.painter(), picture, &text);
    let response = ui.interact(badge, ui.auto_id_with("video_length"), Sense::hover());
    let name = format!("Length {text}");
    response.widget_info(|| WidgetInfo::labeled(Role::Label, true, &name));
}

/// A play disc in the middle (it opens and plays in the viewer) and the length in the
/// picture's bottom-left corner.
fn paint_video_badges(
    painter: &egui::Painter,
    rect: Rect,
    duration: Option<f64>,
    no_picture: bool,
) {
    if no_picture {
        // Cover the broken-image glyph: a video glyph says what it is.
        painter.rect_filled(
            rect.shrink(1.0),
            CornerRadius::same(tokens::RADIUS_M),
            tokens::palette().tile_placeholder,
        );
    }
    let disc_radius = (rect.width() * 0.12).clamp(10.0, 26.0);
    painter.circle_filled(rect.center(), disc_radius, tokens::palette().tile_scrim);
    paint_icon(
        painter,
        Rect::from_center_size(
            rect.center() + Vec2::new(disc_radius * 0.08, 0.0),
            Vec2::splat(disc_radius),
        ),
        Icon::Play,
        tokens::palette().text,
    );
    let Some(text) = duration.and_then(crate::ui::video::time::duration_badge) else {
        return;
    };
    if rect.width() < 72.0 {
        return;
    }
    let badge = length_badge_rect(painter, rect, &text);
    let galley = painter.layout_no_wrap(
        text,
        egui::FontId::proportional(11.0),
        tokens::palette().text,
    );
    painter.rect_filled(
        badge,
        CornerRadius::same(tokens::RADIUS_S),
        tokens::palette().tile_scrim,
    );
    painter.galley(
        pos2(badge.left() + 5.0, badge.center().y - galley.size().y / 2.0),
        galley,
        tokens::palette().text,
    );
}

/// The row of icon buttons under a tile: Open in viewer and the result's actions.
pub fn tile_buttons_ui(ui: &mut Ui, tile: &ResultTile) -> Option<TileEvent> {
    let mut event = None;
    ui.allocate_ui_with_layout(
        Vec2::new(tile.side, BUTTON_ROW_HEIGHT),
        egui::Layout::left_to_right(egui::Align::Center),
        |ui| {
            ui.spacing_mut().item_spacing.x = 2.0;
            if widgets::icon_button(ui, Icon::Image, "Open in viewer").clicked() {
                event = Some(TileEvent::Open);
            }
            for (icon, label, action) in
                actions_of(tile.result, tile.favourite, tile.video.is_some())
            {
                if widgets::icon_button(ui, icon, label).clicked() {
                    event = Some(TileEvent::Action(action));
                }
            }
        },
    );
    event
}

/// The image tools under an image tile, as wide as the tile (they wrap when narrow).
fn image_tools_row_ui(ui: &mut Ui, tile: &ResultTile) -> Option<ResultAction> {
    ui.scope(|ui| {
        ui.set_max_width(tile.side);
        crate::ui::image_tools::buttons_ui(ui, tile.result, true)
    })
    .inner
}

fn paint_image(ui: &Ui, rect: Rect, lookup: &TextureLookup, fit: Fit, hovered: bool) {
    let painter = ui.painter();
    let radius = CornerRadius::same(tokens::RADIUS_M);
    painter.rect_filled(rect, radius, tokens::palette().tile_placeholder);
    match lookup {
        TextureLookup::Ready(texture) => {
            let size = texture.size_vec2();
            let aspect = size.x / size.y.max(1.0);
            match fit {
                Fit::Cover => {
                    let uv = if aspect > 1.0 {
                        let w = 1.0 / aspect;
                        Rect::from_min_max(pos2((1.0 - w) / 2.0, 0.0), pos2((1.0 + w) / 2.0, 1.0))
                    } else {
                        let h = aspect;
                        Rect::from_min_max(pos2(0.0, (1.0 - h) / 2.0), pos2(1.0, (1.0 + h) / 2.0))
                    };
                    egui::Image::from_texture(texture)
                        .uv(uv)
                        .corner_radius(radius)
                        .paint_at(ui, rect);
                }
                Fit::Contain | Fit::Media { .. } => {
                    egui::Image::from_texture(texture)
                        .corner_radius(radius)
                        .paint_at(ui, painted_rect(rect, lookup, fit));
                }
            }
        }
        TextureLookup::Loading => {
            egui::Spinner::new()
                .size(18.0)
                .color(tokens::palette().text_faint)
                .paint_at(ui, Rect::from_center_size(rect.center(), Vec2::splat(18.0)));
        }
        TextureLookup::Failed(_) => {
            paint_icon(
                painter,
                Rect::from_center_size(rect.center(), Vec2::splat(28.0)),
                Icon::BrokenImage,
                tokens::palette().text_faint,
            );
        }
    }
    let stroke = if hovered {
        Stroke::new(1.5, tokens::palette().accent)
    } else {
        Stroke::new(1.0, tokens::palette().border)
    };
    painter.rect_stroke(rect, radius, stroke, egui::StrokeKind::Inside);
}
