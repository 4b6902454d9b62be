//! The image column: the Fit / 100 % toolbar with the zoom readout, and the image area
//! (wheel and pinch zoom about the pointer, drag to pan, double click Fit <-> 100 %, the
//! right-click menu, previous/next arrows).

use super::actions;
use super::subject::Subject;
use super::zoom::{self, Geometry, Zoom};
use super::{OpenViewer, VIEWER_FULL_SIDE_CAP_PX, VIEWER_MAX_SIDE_PX, focus_ring};
use crate::ui::icons::{Icon, paint_icon};
use crate::ui::model::{Action, ResultRef};
use crate::ui::textures::{TextureCache, TextureLookup};
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{CornerRadius, RichText, Stroke, Ui, Vec2};

/// Mouse-wheel points that double (or halve) the zoom.
const WHEEL_POINTS_PER_DOUBLING: f32 = 240.0;

pub(super) fn image_column_ui(
    ui: &mut Ui,
    open: &mut OpenViewer,
    result: &ResultRef,
    subject: &Subject,
    textures: &TextureCache,
    (index, count): (usize, usize),
    actions: &mut Vec<Action>,
) {
    if subject.is_model_3d {
        open.geometry = None;
        if count > 1 {
            step_row_ui(ui, open, (index, count), "model");
        }
        open.model_3d.ui(ui);
        return;
    }
    if subject.is_audio {
        step_row_ui(ui, open, (index, count), "sound");
        open.geometry = None;
        let facts = crate::ui::audio::view::AudioFacts {
            url: &subject.url,
            title: &subject.title,
            lyrics: subject.lyrics.as_deref(),
        };
        if !open.transcript.has_column() {
            actions.extend(open.audio.ui(ui, &facts));
            return;
        }
        // The transcript beside the sound.
        let total = ui.available_size();
        let column_width = (total.x * 0.34).clamp(220.0, 360.0);
        ui.horizontal_top(|ui| {
            ui.allocate_ui_with_layout(
                Vec2::new(total.x - column_width - tokens::SPACE_M, total.y),
                egui::Layout::top_down(egui::Align::Min),
                |ui| actions.extend(open.audio.ui(ui, &facts)),
            );
            ui.add_space(tokens::SPACE_M);
            ui.allocate_ui_with_layout(
                Vec2::new(column_width, total.y),
                egui::Layout::top_down(egui::Align::Min),
                |ui| {
                    ui.set_width(column_width);
                    let playback = crate::ui::audio::sounds::playback(ui.ctx(), &subject.url);
                    let now_secs = playback.as_ref().map_or(0.0, |p| p.position_secs());
                    let (seek, column_actions) = open.transcript.column_at_ui(ui, now_secs);
                    actions.extend(column_actions);
                    if let (Some(secs), Some(playback)) = (seek, playback) {
                        playback.seek(secs);
                    }
                },
            );
        });
        return;
    }
    if subject.is_video {
        // The player has its own Fit / 100 % and controls under the picture.
        // Previous / next above the picture: clicks on the picture play and pause.
        if count > 1 {
            ui.horizontal(|ui| {
                ui.spacing_mut().item_spacing.x = 4.0;
                let previous = ui.add_enabled(index > 0, widgets::subtle_button("Previous"));
                name_widget(&previous, "Previous video");
                if previous.clicked() {
                    open.step_after_layout = -1;
                }
                let next = ui.add_enabled(index + 1 < count, widgets::subtle_button("Next"));
                name_widget(&next, "Next video");
                if next.clicked() {
                    open.step_after_layout = 1;
                }
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    widgets::muted(ui, format!("{} of {count}", index + 1));
                });
            });
        }
        if subject.source_video_url.is_some() {
            before_after_ui(ui, open);
        }
        open.geometry = None;
        let name = format!("Video {} of {count}: {}", index + 1, subject.title);
        if !open.transcript.has_column() {
            actions.extend(open.player.player_ui(ui, textures, &name));
            return;
        }
        // The transcript beside the player.
        let total = ui.available_size();
        let column_width = (total.x * 0.34).clamp(220.0, 360.0);
        ui.horizontal_top(|ui| {
            ui.allocate_ui_with_layout(
                Vec2::new(total.x - column_width - tokens::SPACE_M, total.y),
                egui::Layout::top_down(egui::Align::Min),
                |ui| {
                    actions.extend(open.player.player_ui(ui, textures, &name));
                    if open.subtitles_on {
                        open.transcript.paint_subtitle_over(ui, &open.player);
                    }
                },
            );
            ui.add_space(tokens::SPACE_M);
            ui.allocate_ui_with_layout(
                Vec2::new(column_width, total.y),
                egui::Layout::top_down(egui::Align::Min),
                |ui| {
                    ui.set_width(column_width);
                    if !open.transcript.state.cues().is_empty() {
                        let label = if open.subtitles_on {
                            "Hide subtitles"
                        } else {
                            "Show subtitles"
                        };
                        let toggle = ui
                            .add(widgets::toggle_button("Subtitles", open.subtitles_on))
                            .on_hover_text(format!("{label} over the video (C)"));
                        name_widget(&toggle, "Subtitles");
                        if toggle.clicked() {
                            open.toggle_subtitles = true;
                        }
                    }
                    actions.extend(open.transcript.column_ui(ui, &mut open.player));
                },
            );
        });
        return;
    }
    // Toolbar: Fit, 100 %, the zoom readout, and where we are in the list.
    ui.horizontal(|ui| {
        ui.spacing_mut().item_spacing.x = 6.0;
        let fit = open.zoom.is_fit();
        let geometry = open.geometry;
        let fit_button = ui
            .add_enabled(
                geometry.is_some() && subject.is_image,
                widgets::toggle_button("Fit", fit),
            )
            .on_hover_text("Zoom to fit (0)")
            .on_disabled_hover_text("Nothing to zoom yet: the image is loading");
        name_widget(&fit_button, "Zoom to fit");
        focus_ring(ui, &fit_button);
        if fit_button.clicked() {
            open.zoom.set_fit();
        }
        let percent = geometry.map(|g| open.zoom.percent(&g));
        let actual = percent.is_some_and(|p| (p - 100.0).abs() < 0.5);
        let actual_button = ui
            .add_enabled(
                geometry.is_some() && subject.is_image,
                widgets::toggle_button("100 %", actual),
            )
            .on_hover_text("Zoom to 100 %: one image pixel per screen pixel (1)")
            .on_disabled_hover_text("Nothing to zoom yet: the image is loading");
        name_widget(&actual_button, "Zoom to 100 %");
        focus_ring(ui, &actual_button);
        if actual_button.clicked()
            && let Some(g) = geometry
        {
            open.zoom.set_actual_size(&g);
        }
        if let Some(percent) = percent {
            let readout = if fit {
                format!("Fit · {percent:.0} %")
            } else {
                format!("{percent:.0} %")
            };
            ui.label(
                RichText::new(readout)
                    .size(tokens::TEXT_SMALL + 1.0)
                    .color(tokens::palette().text_muted),
            )
            .on_hover_text("Wheel or +/- to zoom, drag to pan, 0 fit, 1 100 %");
        }
        if count > 1 {
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                widgets::muted(ui, format!("{} of {count}", index + 1));
            });
        }
    });
    ui.add_space(tokens::SPACE_XS);
    let viewport_size = ui.available_size().max(Vec2::splat(64.0));
    image_area_ui(
        ui,
        open,
        result,
        subject,
        textures,
        viewport_size,
        (index, count),
        actions,
    );
}

/// Previous / Next above a sound (the arrows seek in it).
fn step_row_ui(ui: &mut Ui, open: &mut OpenViewer, (index, count): (usize, usize), what: &str) {
    if count <= 1 {
        return;
    }
    ui.horizontal(|ui| {
        ui.spacing_mut().item_spacing.x = 4.0;
        let previous = ui.add_enabled(index > 0, widgets::subtle_button("Previous"));
        name_widget(&previous, &format!("Previous {what}"));
        if previous.clicked() {
            open.step_after_layout = -1;
        }
        let next = ui.add_enabled(index + 1 < count, widgets::subtle_button("Next"));
        name_widget(&next, &format!("Next {what}"));
        if next.clicked() {
            open.step_after_layout = 1;
        }
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            widgets::muted(ui, format!("{} of {count}", index + 1));
        });
    });
    ui.add_space(tokens::SPACE_XS);
}

#[allow(clippy::too_many_arguments)]
fn image_area_ui(
    ui: &mut Ui,
    open: &mut OpenViewer,
    result: &ResultRef,
    subject: &Subject,
    textures: &TextureCache,
    size: Vec2,
    (index, count): (usize, usize),
    actions: &mut Vec<Action>,
) {
    let (viewport, _) = ui.allocate_exact_size(size, egui::Sense::hover());
    let id = ui.scope_id().with("viewer_image");
    let response = ui.interact(viewport, id, egui::Sense::click_and_drag());
    let name = format!("Image {} of {count}: {}", index + 1, subject.title);
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, &name));
    if std::mem::take(&mut open.focus_image) {
        response.request_focus();
    }
    // While the image has focus the arrows belong to the viewer, not to focus movement.
    ui.memory_mut(|m| {
        m.set_focus_lock_filter(
            id,
            egui::EventFilter {
                horizontal_arrows: true,
                vertical_arrows: true,
                ..Default::default()
            },
        )
    });

    let painter = ui.painter_at(viewport);
    painter.rect_filled(
        viewport,
        CornerRadius::same(tokens::RADIUS_M),
        tokens::palette().bg_app,
    );

    let pixels_per_point = ui.ctx().pixels_per_point();
    let texture = displayed_texture(ui, open, subject, textures);
    match &texture {
        Shown::Texture {
            texture,
            image_size_px,
            preview,
        } => {
            let geometry = Geometry {
                viewport,
                image_size_px: *image_size_px,
                pixels_per_point,
            };
            if subject.is_image && !preview {
                zoom_and_pan_input(ui, open, &response, &geometry);
            }
            let zoom = if *preview { Zoom::default() } else { open.zoom };
            let rect = zoom.image_rect(&geometry);
            if subject.is_image && !preview {
                // Transparent parts (a removed background) read as transparent.
                paint_checkerboard(&painter, rect.intersect(viewport));
            }
            painter.image(
                texture.id(),
                rect,
                egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0)),
                egui::Color32::WHITE,
            );
            if *preview && subject.is_image {
                spinner_at(ui, viewport.center());
            }
            open.geometry = (!preview).then_some(geometry);
            if !subject.is_image {
                caption(
                    &painter,
                    viewport,
                    "Only images open here — use Open in system viewer to play it",
                );
            }
        }
        Shown::Loading => {
            open.geometry = None;
            spinner_at(ui, viewport.center());
        }
        Shown::Failed(error) => {
            open.geometry = None;
            paint_icon(
                &painter,
                egui::Rect::from_center_size(
                    viewport.center() - egui::vec2(0.0, 30.0),
                    Vec2::splat(40.0),
                ),
                Icon::BrokenImage,
                tokens::palette().text_faint,
            );
            painter.text(
                viewport.center() + egui::vec2(0.0, 16.0),
                egui::Align2::CENTER_TOP,
                format!("The image could not be loaded\n{error}"),
                egui::FontId::proportional(14.0),
                tokens::palette().text_muted,
            );
        }
    }
    if response.has_focus() {
        painter.rect_stroke(
            viewport.shrink(1.0),
            CornerRadius::same(tokens::RADIUS_M),
            Stroke::new(1.5, tokens::palette().accent),
            egui::StrokeKind::Inside,
        );
    }
    response.context_menu(|ui| {
        ui.set_min_width(220.0);
        actions::result_actions_ui(ui, result, subject, actions::Placement::Menu, actions);
        if !actions.is_empty() {
            ui.close();
        }
    });

    if count > 1 {
        let button_size = Vec2::splat(36.0);
        let left = egui::Rect::from_center_size(
            egui::pos2(viewport.left() + 28.0, viewport.center().y),
            button_size,
        );
        let right = egui::Rect::from_center_size(
            egui::pos2(viewport.right() - 28.0, viewport.center().y),
            button_size,
        );
        if index > 0 {
            let previous =
                widgets::round_icon_button(ui, left, Icon::ChevronLeft, "Previous image");
            focus_ring(ui, &previous);
            if previous.clicked() {
                open.step_after_layout = -1;
            }
        }
        if index + 1 < count {
            let next = widgets::round_icon_button(ui, right, Icon::ChevronRight, "Next image");
            focus_ring(ui, &next);
            if next.clicked() {
                open.step_after_layout = 1;
            }
        }
    }
}

enum Shown {
    Texture {
        texture: egui::TextureHandle,
        image_size_px: Vec2,
        /// A smaller stand-in (the thumbnail) while the image loads: not zoomable.
        preview: bool,
    },
    Loading,
    Failed(String),
}

/// The texture to draw: the image at the resolution the zoom needs (asking for more when
/// zoomed in, showing what is loaded meanwhile), else the thumbnail while it loads.
fn displayed_texture(
    ui: &Ui,
    open: &OpenViewer,
    subject: &Subject,
    textures: &TextureCache,
) -> Shown {
    let preview = |failed: Option<String>| {
        let thumbnail = subject.thumbnail_url.as_deref().filter(|u| !u.is_empty());
        match thumbnail.map(|url| textures.get(url, 512)) {
            Some(TextureLookup::Ready(texture)) => Shown::Texture {
                image_size_px: texture.size_vec2(),
                texture,
                preview: true,
            },
            _ => failed.map_or(Shown::Loading, Shown::Failed),
        }
    };
    if !subject.is_image || subject.url.is_empty() {
        return preview(
            subject
                .url
                .is_empty()
                .then(|| "The service gave no address for this file.".to_owned()),
        );
    }
    let side_px = match (open.geometry, textures.source_size_px(&subject.url)) {
        (Some(geometry), Some([w, h])) => {
            let gpu_cap = u32::try_from(ui.ctx().input(|i| i.max_texture_side)).unwrap_or(0);
            zoom::texture_side_for(
                w.max(h) as f32,
                open.zoom.percent(&geometry),
                VIEWER_MAX_SIDE_PX,
                VIEWER_FULL_SIDE_CAP_PX.min(gpu_cap.max(VIEWER_MAX_SIDE_PX)),
            )
        }
        _ => VIEWER_MAX_SIDE_PX,
    };
    match textures.get(&subject.url, side_px) {
        TextureLookup::Ready(texture) => {
            let image_size_px = textures
                .source_size_px(&subject.url)
                .map(|[w, h]| Vec2::new(w as f32, h as f32))
                .unwrap_or_else(|| texture.size_vec2());
            Shown::Texture {
                texture,
                image_size_px,
                preview: false,
            }
        }
        TextureLookup::Loading => preview(None),
        // Said in words even when a thumbnail is loaded: behind the thumbnail the spinner
        // would turn for ever (e.g. a picture over the decode limit, whose thumbnail is a
        // placeholder).
        TextureLookup::Failed(error) => Shown::Failed(error),
    }
}

/// Wheel (and Ctrl+wheel / pinch) zooms around the pointer; a drag pans; a double click
/// toggles Fit and 100 % at the pointer.
fn zoom_and_pan_input(
    ui: &mut Ui,
    open: &mut OpenViewer,
    response: &egui::Response,
    geometry: &Geometry,
) {
    if response.contains_pointer() {
        let (scroll, zoom_delta, pointer) =
            ui.input(|i| (i.smooth_scroll_delta, i.zoom_delta(), i.pointer.hover_pos()));
        let factor = zoom_delta * (scroll.y / WHEEL_POINTS_PER_DOUBLING).exp2();
        if (factor - 1.0).abs() > f32::EPSILON {
            let anchor = pointer.unwrap_or(geometry.viewport.center());
            open.zoom.zoom_by(factor, anchor, geometry);
        }
        // The wheel was for the image, not for a panel underneath.
        ui.input_mut(|i| i.smooth_scroll_delta = Vec2::ZERO);
    }
    if response.dragged() {
        open.zoom.pan_by(response.drag_delta(), geometry);
        ui.ctx().set_cursor_icon(egui::CursorIcon::Grabbing);
    } else if open.zoom.is_past_fit(geometry) && response.hovered() {
        ui.ctx().set_cursor_icon(egui::CursorIcon::Grab);
    }
    if response.double_clicked() {
        if open.zoom.is_fit() {
            let anchor = response
                .interact_pointer_pos()
                .unwrap_or(geometry.viewport.center());
            let factor = geometry.actual_scale() / open.zoom.scale(geometry);
            open.zoom.zoom_by(factor, anchor, geometry);
        } else {
            open.zoom.set_fit();
        }
    }
    if response.clicked() || response.drag_started() {
        response.request_focus();
    }
}

/// Side of a checkerboard square behind images, in points.
const CHECKER_SIDE: f32 = 12.0;

/// A light grey checkerboard filling `rect`, shown through an image's transparent pixels
/// (an opaque image covers it entirely).
fn paint_checkerboard(painter: &egui::Painter, rect: egui::Rect) {
    if !rect.is_positive() {
        return;
    }
    painter.rect_filled(rect, 0.0, egui::Color32::from_gray(236));
    let dark = egui::Color32::from_gray(204);
    let columns = (rect.width() / CHECKER_SIDE).ceil() as usize;
    let rows = (rect.height() / CHECKER_SIDE).ceil() as usize;
    for row in 0..rows {
        for column in (row % 2..columns).step_by(2) {
            let min = rect.min + egui::vec2(column as f32, row as f32) * CHECKER_SIDE;
            let square = egui::Rect::from_min_size(min, Vec2::splat(CHECKER_SIDE)).intersect(rect);
            painter.rect_filled(square, 0.0, dark);
        }
    }
}

fn spinner_at(ui: &mut Ui, centre: egui::Pos2) {
    egui::Spinner::new()
        .size(28.0)
        .color(tokens::palette().text_muted)
        .paint_at(ui, egui::Rect::from_center_size(centre, Vec2::splat(28.0)));
}

fn caption(painter: &egui::Painter, viewport: egui::Rect, text: &str) {
    painter.text(
        viewport.center_bottom() - egui::vec2(0.0, 16.0),
        egui::Align2::CENTER_BOTTOM,
        text,
        egui::FontId::proportional(13.0),
        tokens::palette().text_muted,
    );
}

/// Give a widget whose visible text is short ("Fit") the full name screen readers and
/// tests use ("Zoom to fit").
fn name_widget(response: &egui::Response, name: &str) {
    let enabled = response.enabled();
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, enabled, name));
}

/// Before / After on an edit's result: which of the two plays (B switches).
fn before_after_ui(ui: &mut Ui, open: &mut OpenViewer) {
    ui.horizontal(|ui| {
        ui.spacing_mut().item_spacing.x = 4.0;
        let before = ui
            .add(widgets::toggle_button("Before", open.show_before))
            .on_hover_text("Play the source video (B)");
        name_widget(&before, "Before: the source video");
        if before.clicked() {
            open.show_before = true;
        }
        let after = ui
            .add(widgets::toggle_button("After", !open.show_before))
            .on_hover_text("Play the edited video (B)");
        name_widget(&after, "After: the edited video");
        if after.clicked() {
            open.show_before = false;
        }
        let note = if open.show_before {
            "Showing the source"
        } else {
            "Showing the result"
        };
        widgets::muted(ui, note);
    });
}
