//! The studio's one image viewer: a near-full-window modal over any list of results (job
//! outputs or library items) with fit / 100 % / wheel zoom and drag-to-pan, keyboard
//! control, and the result actions (reuse, edit source, vary, favourite, trash, copy, save,
//! open outside) in a side column and a right-click menu. Esc or a click on the backdrop
//! closes it.
//!
//! It stays a modal layer rather than replacing the view: the artist keeps their place in
//! Create or the Library underneath, and egui's modal layer keeps Tab and clicks inside it.

mod actions;
mod subject;
pub mod zoom;

use crate::api::media::MediaItem;
use crate::engine::LocalJobId;
use crate::ui::icons::{Icon, paint_icon};
use crate::ui::model::{Action, Model, ResultAction, ResultRef};
use crate::ui::textures::{TextureCache, TextureLookup};
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{CornerRadius, Key, Modifiers, RichText, Stroke, Ui, Vec2};
use subject::{Subject, subject_of};
use zoom::{Geometry, Zoom};

/// Longest side requested for the image at fit (and the floor of every request).
pub const VIEWER_MAX_SIDE_PX: u32 = 2048;
/// Longest side requested when zoomed in towards 100 % (also capped by the GPU's limit).
pub const VIEWER_FULL_SIDE_CAP_PX: u32 = 8192;
/// How far one arrow key pans a zoomed image, as a share of the image area.
const ARROW_PAN_SHARE: f32 = 0.15;
/// Mouse-wheel points that double (or halve) the zoom.
const WHEEL_POINTS_PER_DOUBLING: f32 = 240.0;

/// The viewer's own state: closed, or a list of results with the one shown and its zoom.
#[derive(Default)]
pub struct ViewerState {
    open: Option<OpenViewer>,
}

struct OpenViewer {
    list: Vec<ResultRef>,
    index: usize,
    zoom: Zoom,
    /// The image area and image size of the last layout (keyboard zoom needs them).
    geometry: Option<Geometry>,
    /// Favourite changes made here, shown until the library's own copy says otherwise
    /// (job outputs have no favourite state of their own).
    favourite_echo: Vec<(ResultRef, bool)>,
    /// Give the image area keyboard focus on the next layout (just opened).
    focus_image: bool,
}

impl ViewerState {
    /// Show `list[index]`; the arrows step through `list`. An empty list is ignored.
    pub fn open(&mut self, list: Vec<ResultRef>, index: usize) {
        if list.is_empty() {
            return;
        }
        let index = index.min(list.len() - 1);
        self.open = Some(OpenViewer {
            list,
            index,
            zoom: Zoom::default(),
            geometry: None,
            favourite_echo: Vec::new(),
            focus_image: true,
        });
    }

    pub fn close(&mut self) {
        self.open = None;
    }

    pub fn is_open(&self) -> bool {
        self.open.is_some()
    }

    /// The result on screen.
    pub fn current(&self) -> Option<&ResultRef> {
        let open = self.open.as_ref()?;
        open.list.get(open.index)
    }

    /// The job whose output is on screen, if it is a job output.
    pub fn job_shown(&self) -> Option<LocalJobId> {
        match self.current()? {
            ResultRef::Job { local_id, .. } => Some(*local_id),
            ResultRef::Media(_) => None,
        }
    }

    /// Position in the list and its length.
    pub fn position(&self) -> Option<(usize, usize)> {
        let open = self.open.as_ref()?;
        Some((open.index, open.list.len()))
    }

    /// The zoom as a percentage of actual size (100 = one image pixel per physical pixel),
    /// once the image has been laid out.
    pub fn zoom_percent(&self) -> Option<f32> {
        let open = self.open.as_ref()?;
        open.geometry.map(|g| open.zoom.percent(&g))
    }

    /// Where the image was drawn in the last layout, in points (None before it loaded).
    pub fn image_rect(&self) -> Option<egui::Rect> {
        let open = self.open.as_ref()?;
        open.geometry.map(|g| open.zoom.image_rect(&g))
    }

    pub fn is_fit(&self) -> bool {
        self.open.as_ref().is_some_and(|o| o.zoom.is_fit())
    }

    /// Step `delta` results through the list (stops at the ends); the zoom goes back to Fit.
    pub fn step(&mut self, delta: isize) {
        if let Some(open) = self.open.as_mut() {
            let target = open
                .index
                .saturating_add_signed(delta)
                .min(open.list.len().saturating_sub(1));
            if target != open.index {
                open.index = target;
                open.zoom.set_fit();
            }
        }
    }

    /// A job left the tray: drop its outputs from the list; close when nothing is left.
    pub fn forget_job(&mut self, local_id: LocalJobId) {
        self.retain(|r| !matches!(r, ResultRef::Job { local_id: id, .. } if *id == local_id));
    }

    fn retain(&mut self, keep: impl Fn(&ResultRef) -> bool) {
        let Some(open) = self.open.as_mut() else {
            return;
        };
        let current = open.list.get(open.index).cloned();
        let before_current = open.list[..open.index.min(open.list.len())]
            .iter()
            .filter(|r| !keep(r))
            .count();
        open.list.retain(|r| keep(r));
        if open.list.is_empty() {
            self.open = None;
            return;
        }
        open.index = open.index.saturating_sub(before_current);
        open.index = open.index.min(open.list.len() - 1);
        if open.list.get(open.index) != current.as_ref() {
            open.zoom.set_fit();
        }
    }

    /// After the viewer's own actions: Reuse and Use as edit source leave for Create (close),
    /// a trashed result leaves the list, a favourite shows at once.
    fn after_actions(&mut self, actions: &[Action]) {
        for action in actions {
            match action {
                Action::Result(ResultAction::Reuse(_) | ResultAction::UseAsEditSource(_)) => {
                    self.close();
                }
                Action::Result(ResultAction::Trash(result)) => {
                    let result = result.clone();
                    self.retain(|r| *r != result);
                }
                Action::Result(ResultAction::SetFavourite { result, favourite }) => {
                    if let Some(open) = self.open.as_mut() {
                        open.favourite_echo.retain(|(r, _)| r != result);
                        open.favourite_echo.push((result.clone(), *favourite));
                    }
                }
                _ => {}
            }
        }
    }

    /// Lay the viewer out when it is open. Call before the panels so its keys (arrows, Esc)
    /// are consumed before a panel underneath sees them. `find_media` returns the
    /// library's current copy of an item by id.
    pub fn viewer_ui<'a>(
        &mut self,
        ctx: &egui::Context,
        model: &Model,
        textures: &TextureCache,
        find_media: impl Fn(&str) -> Option<&'a MediaItem>,
    ) -> Vec<Action> {
        let mut actions = Vec::new();
        let Some(open) = self.open.as_mut() else {
            return actions;
        };
        let Some(result) = open.list.get(open.index).cloned() else {
            self.close();
            return actions;
        };
        let live = match &result {
            ResultRef::Media(item) => find_media(&item.id),
            ResultRef::Job { .. } => None,
        };
        let Some(mut subject) = subject_of(&result, model, live) else {
            // The job went away under us: show the next one, or close.
            let gone = result.clone();
            self.retain(|r| *r != gone);
            return actions;
        };
        // The library's own copy (when it has one) is the truth; else what we asked for.
        if live.is_none()
            && let Some((_, echo)) = open.favourite_echo.iter().find(|(r, _)| *r == result)
        {
            subject.favourite = Some(*echo);
        }

        let keys = keyboard_input(ctx, open);
        let mut close = keys.close;
        let step = keys.step;

        let content = ctx.content_rect();
        let margin = if content.width() < 1200.0 { 10.0 } else { 28.0 };
        let size = (content.size() - Vec2::splat(2.0 * margin + 24.0)).max(Vec2::new(400.0, 300.0));
        let position = (open.index, open.list.len());

        let response = egui::Modal::new(egui::Id::unique("image_viewer"))
            .backdrop_color(tokens::SCRIM)
            .frame(
                egui::Frame::new()
                    .fill(tokens::BG_PANEL)
                    .stroke(Stroke::new(1.0, tokens::BORDER_STRONG))
                    .corner_radius(CornerRadius::same(tokens::RADIUS_L))
                    .inner_margin(egui::Margin::same(12)),
            )
            .show(ctx, |ui| {
                ui.set_min_size(size);
                ui.set_max_size(size);
                let info_width = (size.x * 0.28).clamp(260.0, 360.0);
                let image_width = size.x - info_width - tokens::SPACE_M;
                ui.horizontal_top(|ui| {
                    ui.allocate_ui_with_layout(
                        Vec2::new(image_width, size.y),
                        egui::Layout::top_down(egui::Align::Min),
                        |ui| {
                            image_column_ui(
                                ui,
                                open,
                                &result,
                                &subject,
                                textures,
                                position,
                                &mut actions,
                            )
                        },
                    );
                    ui.add_space(tokens::SPACE_M);
                    ui.allocate_ui_with_layout(
                        Vec2::new(info_width, size.y),
                        egui::Layout::top_down(egui::Align::Min),
                        |ui| {
                            ui.set_width(info_width);
                            if info_column_ui(ui, &result, &subject, position, &mut actions) {
                                close = true;
                            }
                        },
                    );
                });
            });
        if response.backdrop_response.clicked() {
            close = true;
        }

        if close {
            self.close();
            return actions;
        }
        if step != 0 {
            self.step(step);
        }
        for action in actions.iter_mut() {
            if let Action::ViewerStep(delta) = action {
                self.step(*delta);
            }
        }
        actions.retain(|a| !matches!(a, Action::ViewerStep(_)));
        self.after_actions(&actions);
        actions
    }
}

/// What the keyboard asked for this frame (zoom and pan are applied directly).
struct Keys {
    close: bool,
    step: isize,
}

fn keyboard_input(ctx: &egui::Context, open: &mut OpenViewer) -> Keys {
    let mut keys = Keys {
        close: false,
        step: 0,
    };
    // A context menu takes Esc and arrows for itself.
    if egui::Popup::is_any_open(ctx) {
        return keys;
    }
    let geometry = open.geometry;
    let past_fit = geometry.is_some_and(|g| open.zoom.is_past_fit(&g));
    ctx.input_mut(|i| {
        if i.consume_key(Modifiers::NONE, Key::Escape) {
            keys.close = true;
        }
        let pan = geometry.map(|g| g.viewport.size() * ARROW_PAN_SHARE);
        for (key, direction) in [
            (Key::ArrowLeft, Vec2::new(1.0, 0.0)),
            (Key::ArrowRight, Vec2::new(-1.0, 0.0)),
            (Key::ArrowUp, Vec2::new(0.0, 1.0)),
            (Key::ArrowDown, Vec2::new(0.0, -1.0)),
        ] {
            if !i.consume_key(Modifiers::NONE, key) {
                continue;
            }
            match (past_fit, geometry, pan) {
                // Zoomed in: the arrows look around the image (the view moves that way).
                (true, Some(g), Some(pan)) => open.zoom.pan_by(direction * pan, &g),
                _ => keys.step -= direction.x as isize,
            }
        }
        let Some(g) = geometry else {
            return;
        };
        let centre = g.viewport.center();
        // `+` arrives as Plus or as Shift+Equals depending on the layout; both zoom in.
        if i.consume_key(Modifiers::NONE, Key::Plus) || i.consume_key(Modifiers::NONE, Key::Equals)
        {
            open.zoom.zoom_by(zoom::ZOOM_STEP, centre, &g);
        }
        if i.consume_key(Modifiers::NONE, Key::Minus) {
            open.zoom.zoom_by(1.0 / zoom::ZOOM_STEP, centre, &g);
        }
        if i.consume_key(Modifiers::NONE, Key::Num0) {
            open.zoom.set_fit();
        }
        if i.consume_key(Modifiers::NONE, Key::Num1) {
            open.zoom.set_actual_size(&g);
        }
    });
    keys
}

fn image_column_ui(
    ui: &mut Ui,
    open: &mut OpenViewer,
    result: &ResultRef,
    subject: &Subject,
    textures: &TextureCache,
    (index, count): (usize, usize),
    actions: &mut Vec<Action>,
) {
    // Toolbar: Fit, 100 %, the zoom readout, and where we are in the list.
    ui.horizontal(|ui| {
        ui.spacing_mut().item_spacing.x = 6.0;
        let fit = open.zoom.is_fit();
        let geometry = open.geometry;
        let fit_button = ui
            .add_enabled(
                geometry.is_some() && subject.is_image,
                zoom_toggle("Fit", fit),
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
                zoom_toggle("100 %", actual),
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
                    .color(tokens::TEXT_MUTED),
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
        tokens::BG_APP,
    );

    let pixels_per_point = ui.ctx().pixels_per_point();
    let texture = displayed_texture(ui, open, subject, textures, pixels_per_point);
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
                tokens::TEXT_FAINT,
            );
            painter.text(
                viewport.center() + egui::vec2(0.0, 16.0),
                egui::Align2::CENTER_TOP,
                format!("The image could not be loaded\n{error}"),
                egui::FontId::proportional(14.0),
                tokens::TEXT_MUTED,
            );
        }
    }
    if response.has_focus() {
        painter.rect_stroke(
            viewport.shrink(1.0),
            CornerRadius::same(tokens::RADIUS_M),
            Stroke::new(1.5, tokens::ACCENT),
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
                actions.push(Action::ViewerStep(-1));
            }
        }
        if index + 1 < count {
            let next = widgets::round_icon_button(ui, right, Icon::ChevronRight, "Next image");
            focus_ring(ui, &next);
            if next.clicked() {
                actions.push(Action::ViewerStep(1));
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
    pixels_per_point: f32,
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
    let _ = pixels_per_point;
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
        TextureLookup::Failed(error) => match preview(None) {
            Shown::Loading => Shown::Failed(error),
            shown => shown,
        },
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

fn spinner_at(ui: &mut Ui, centre: egui::Pos2) {
    egui::Spinner::new()
        .size(28.0)
        .color(tokens::TEXT_MUTED)
        .paint_at(ui, egui::Rect::from_center_size(centre, Vec2::splat(28.0)));
}

fn caption(painter: &egui::Painter, viewport: egui::Rect, text: &str) {
    painter.text(
        viewport.center_bottom() - egui::vec2(0.0, 16.0),
        egui::Align2::CENTER_BOTTOM,
        text,
        egui::FontId::proportional(13.0),
        tokens::TEXT_MUTED,
    );
}

/// The side column: title, close, where we are, the actions, the prompt and the facts.
/// Returns true when Close was pressed.
fn info_column_ui(
    ui: &mut Ui,
    result: &ResultRef,
    subject: &Subject,
    (index, count): (usize, usize),
    actions: &mut Vec<Action>,
) -> bool {
    let mut close = false;
    ui.horizontal_top(|ui| {
        let title_width = (ui.available_width() - 34.0).max(60.0);
        ui.allocate_ui(Vec2::new(title_width, 0.0), |ui| {
            ui.add(
                egui::Label::new(
                    RichText::new(&subject.title)
                        .size(tokens::TEXT_TITLE)
                        .strong()
                        .color(tokens::TEXT),
                )
                .wrap(),
            );
        });
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Min), |ui| {
            let close_button = widgets::icon_button(ui, Icon::Close, "Close viewer");
            focus_ring(ui, &close_button);
            close = close_button.clicked();
        });
    });
    let mut where_line = Vec::new();
    if let Some(subtitle) = &subject.subtitle {
        where_line.push(subtitle.clone());
    }
    if count > 1 {
        where_line.push(format!("Image {} of {count}", index + 1));
    }
    if !where_line.is_empty() {
        widgets::muted(ui, where_line.join(" · "));
    }
    ui.add_space(tokens::SPACE_S);

    egui::ScrollArea::vertical()
        .id_salt("viewer_info")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            // Room for the focus ring of the buttons at the column's edges.
            egui::Frame::new()
                .inner_margin(egui::Margin::symmetric(4, 4))
                .show(ui, |ui| info_body_ui(ui, result, subject, actions));
        });
    close
}

fn info_body_ui(ui: &mut Ui, result: &ResultRef, subject: &Subject, actions: &mut Vec<Action>) {
    ui.spacing_mut().item_spacing.y = 6.0;
    actions::result_actions_ui(ui, result, subject, actions::Placement::Column, actions);
    ui.add_space(tokens::SPACE_S);

    widgets::section_label(ui, "Prompt");
    match &subject.prompt {
        Some(prompt) => {
            ui.add(
                egui::Label::new(RichText::new(prompt).color(tokens::TEXT))
                    .wrap()
                    .selectable(true),
            );
        }
        None => {
            ui.label(
                RichText::new("No prompt (uploaded or not recorded)").color(tokens::TEXT_FAINT),
            );
        }
    }
    ui.add_space(tokens::SPACE_S);
    egui::Grid::new("viewer_facts")
        .num_columns(2)
        .spacing(Vec2::new(tokens::SPACE_M, 6.0))
        .show(ui, |ui| {
            for (key, value) in &subject.facts {
                ui.label(
                    RichText::new(*key)
                        .size(tokens::TEXT_SMALL)
                        .color(tokens::TEXT_FAINT),
                );
                ui.add(egui::Label::new(RichText::new(value).color(tokens::TEXT)).wrap());
                ui.end_row();
            }
        });
    ui.add_space(tokens::SPACE_S);
    ui.label(
        RichText::new(
            "Left/Right previous/next · +/- zoom · 0 fit · 1 100 % · drag to pan · Esc close",
        )
        .size(tokens::TEXT_SMALL)
        .color(tokens::TEXT_FAINT),
    );
}

/// Fit / 100 %: a small toggle that reads clearly when on (white on accent).
fn zoom_toggle(text: &str, on: bool) -> egui::Button<'static> {
    if on {
        egui::Button::new(RichText::new(text).color(tokens::ON_ACCENT).strong())
            .fill(tokens::ACCENT)
            .stroke(Stroke::NONE)
            .corner_radius(CornerRadius::same(tokens::RADIUS_M))
    } else {
        widgets::secondary_button(text)
    }
}

/// Give a widget whose visible text is short ("Fit") the full name screen readers and
/// tests use ("Zoom to fit").
fn name_widget(response: &egui::Response, name: &str) {
    let enabled = response.enabled();
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, enabled, name));
}

/// A visible ring around the widget that has keyboard focus.
pub(crate) fn focus_ring(ui: &Ui, response: &egui::Response) {
    if response.has_focus() {
        ui.painter().rect_stroke(
            response.rect.expand(2.0),
            CornerRadius::same(tokens::RADIUS_M),
            Stroke::new(2.0, tokens::ACCENT),
            egui::StrokeKind::Outside,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outputs(local_id: LocalJobId, count: usize) -> Vec<ResultRef> {
        (0..count)
            .map(|index| ResultRef::Job { local_id, index })
            .collect()
    }

    #[test]
    fn stepping_stops_at_the_ends_and_resets_the_zoom() {
        let mut viewer = ViewerState::default();
        viewer.open(outputs(1, 3), 5);
        assert_eq!(
            viewer.position(),
            Some((2, 3)),
            "an index past the end is clamped"
        );
        viewer.step(1);
        assert_eq!(viewer.position(), Some((2, 3)));
        viewer.step(-1);
        viewer.step(-1);
        viewer.step(-1);
        assert_eq!(viewer.position(), Some((0, 3)));
        assert!(viewer.is_fit());
    }

    #[test]
    fn a_removed_job_leaves_the_list_and_the_last_one_closes_it() {
        let mut viewer = ViewerState::default();
        let mut list = outputs(1, 2);
        list.extend(outputs(2, 1));
        viewer.open(list, 2);
        viewer.forget_job(1);
        assert_eq!(viewer.position(), Some((0, 1)));
        assert_eq!(viewer.job_shown(), Some(2));
        viewer.forget_job(2);
        assert!(!viewer.is_open());
    }

    #[test]
    fn trash_moves_on_and_reuse_closes() {
        let mut viewer = ViewerState::default();
        viewer.open(outputs(1, 2), 0);
        viewer.after_actions(&[Action::Result(ResultAction::Trash(ResultRef::Job {
            local_id: 1,
            index: 0,
        }))]);
        assert_eq!(
            viewer.current(),
            Some(&ResultRef::Job {
                local_id: 1,
                index: 1
            })
        );
        viewer.after_actions(&[Action::Result(ResultAction::Reuse(ResultRef::Job {
            local_id: 1,
            index: 1,
        }))]);
        assert!(!viewer.is_open());
    }

    #[test]
    fn an_empty_list_does_not_open() {
        let mut viewer = ViewerState::default();
        viewer.open(Vec::new(), 0);
        assert!(!viewer.is_open());
    }
}
