//! The viewer's turntable for 3D results: the model drawn by the software rasteriser
//! (`media::raster3d`) into an ordinary texture at the widget's size × pixels per point.
//! Drag orbits, the wheel zooms, the arrow keys orbit, R or Home (or Reset view) goes back
//! to the first view, Auto-turn spins it slowly. It only re-renders when the camera or the
//! size changes, so an idle model costs nothing. The triangle count and the model's size
//! show under it. A model that cannot be read shows why, in words.
//!
//! Software rather than a glow paint callback: egui_kittest renders with wgpu, so a glow
//! callback would be invisible in tests and screenshots.

use crate::engine::Command;
use crate::media::mesh::Mesh;
use crate::media::raster3d::{self, Camera, RgbaBuffer};
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{Key, Modifiers, Sense, Ui, Vec2};
use std::sync::Arc;
use std::time::Instant;

/// Accessible names (kittest finds the controls by them).
pub const TURNTABLE_NAME: &str = "3D model view";
pub const RESET_NAME: &str = "Reset view";
pub const AUTO_TURN_NAME: &str = "Auto-turn";
/// Radians of turn per point dragged.
const DRAG_RAD_PER_POINT: f32 = 0.01;
/// Radians per arrow key press.
const KEY_STEP_RAD: f32 = 0.15;
/// Auto-turn speed.
const AUTO_TURN_RAD_PER_SEC: f32 = 0.6;
/// Zoom per wheel point (scroll of 50 points ≈ ×0.78).
const WHEEL_ZOOM_PER_POINT: f32 = 0.005;

#[derive(Clone, Debug, Default)]
enum Load {
    #[default]
    Idle,
    Loading,
    Ready(Arc<Mesh>),
    Failed(String),
}

/// The turntable's state: the model shown, its camera and the last frame.
#[derive(Default)]
pub struct Model3dView {
    url: Option<String>,
    load: Load,
    camera: Option<Camera>,
    first_camera: Option<Camera>,
    auto_turn: bool,
    last_auto_turn: Option<Instant>,
    buffer: RgbaBuffer,
    texture: Option<egui::TextureHandle>,
    /// What the texture shows: camera and pixel size.
    rendered_for: Option<(Camera, [u32; 2])>,
    /// Frames drawn so far (tests check that idle draws none).
    frames_rendered: u64,
    last_frame_ms: f32,
}

impl Model3dView {
    /// Show the GLB at `url`; a command to load it when it is new.
    pub fn set_source(&mut self, url: &str) -> Option<Command> {
        if self.url.as_deref() == Some(url) {
            return None;
        }
        *self = Model3dView {
            url: Some(url.to_owned()),
            load: Load::Loading,
            ..Model3dView::default()
        };
        Some(Command::LoadModel3d {
            url: url.to_owned(),
        })
    }

    pub fn url(&self) -> Option<&str> {
        self.url.as_deref()
    }

    /// `Event::Model3dLoaded`: kept when it is the model shown.
    pub fn handle_loaded(&mut self, url: &str, result: &Result<Arc<Mesh>, String>) {
        if self.url.as_deref() != Some(url) {
            return;
        }
        self.load = match result {
            Ok(mesh) => {
                let camera = Camera::framing(&mesh.bounds);
                self.camera = Some(camera);
                self.first_camera = Some(camera);
                Load::Ready(mesh.clone())
            }
            Err(error) => Load::Failed(error.clone()),
        };
        self.rendered_for = None;
    }

    pub fn is_loading(&self) -> bool {
        matches!(self.load, Load::Loading)
    }
    pub fn error(&self) -> Option<&str> {
        match &self.load {
            Load::Failed(error) => Some(error),
            _ => None,
        }
    }
    pub fn mesh(&self) -> Option<&Mesh> {
        match &self.load {
            Load::Ready(mesh) => Some(mesh),
            _ => None,
        }
    }
    pub fn camera(&self) -> Option<Camera> {
        self.camera
    }
    pub fn frames_rendered(&self) -> u64 {
        self.frames_rendered
    }
    /// The last frame's pixels (RGBA), for tests comparing views.
    pub fn frame_rgba(&self) -> &[u8] {
        &self.buffer.rgba
    }

    fn reset(&mut self) {
        self.camera = self.first_camera;
        self.auto_turn = false;
    }

    /// Arrow keys orbit, R / Home reset. Call before the viewer's own keys (which would
    /// step to the next result on Left / Right).
    pub fn keyboard_input(&mut self, ctx: &egui::Context) {
        if egui::Popup::is_any_open(ctx) || ctx.text_edit_focused() {
            return;
        }
        let Some(camera) = self.camera.as_mut() else {
            return;
        };
        let mut reset = false;
        ctx.input_mut(|i| {
            for (key, yaw, pitch) in [
                (Key::ArrowLeft, -KEY_STEP_RAD, 0.0),
                (Key::ArrowRight, KEY_STEP_RAD, 0.0),
                (Key::ArrowUp, 0.0, KEY_STEP_RAD),
                (Key::ArrowDown, 0.0, -KEY_STEP_RAD),
            ] {
                if i.consume_key(Modifiers::NONE, key) {
                    camera.orbit(yaw, pitch);
                }
            }
            reset =
                i.consume_key(Modifiers::NONE, Key::R) || i.consume_key(Modifiers::NONE, Key::Home);
        });
        if reset {
            self.reset();
        }
    }

    /// The controls row, the turntable filling the space left, and the info line.
    pub fn ui(&mut self, ui: &mut Ui) {
        ui.horizontal(|ui| {
            let ready = self.camera.is_some();
            let reset = ui
                .add_enabled(ready, widgets::secondary_button(RESET_NAME))
                .on_hover_text("Back to the first view (R or Home)");
            widgets::name_widget(&reset, RESET_NAME);
            if reset.clicked() {
                self.reset();
            }
            let mut auto = self.auto_turn;
            let toggle = ui
                .add_enabled(ready, egui::Checkbox::new(&mut auto, AUTO_TURN_NAME))
                .on_hover_text("Turn the model slowly");
            widgets::name_widget(&toggle, AUTO_TURN_NAME);
            if auto != self.auto_turn {
                self.auto_turn = auto;
                self.last_auto_turn = None;
            }
            widgets::muted(ui, "Drag to turn · wheel to zoom · arrows turn · R resets");
        });
        let info_height = 22.0;
        let size = (ui.available_size() - Vec2::new(0.0, info_height)).max(Vec2::splat(64.0));
        let (rect, response) = ui.allocate_exact_size(size, Sense::click_and_drag());
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, TURNTABLE_NAME));
        ui.painter()
            .rect_filled(rect, tokens::RADIUS_M, tokens::palette().bg_surface);
        let mesh = match &self.load {
            Load::Ready(mesh) => mesh.clone(),
            Load::Loading | Load::Idle => {
                ui.put(rect, egui::Spinner::new());
                ui.label("Loading the model…");
                return;
            }
            Load::Failed(error) => {
                let error = error.clone();
                ui.scope_builder(egui::UiBuilder::new().max_rect(rect.shrink(24.0)), |ui| {
                    widgets::field_error(ui, &format!("This 3D model cannot be shown. {error}"));
                    widgets::muted(ui, "Save GLB or Save OBJ still downloads the files.");
                });
                return;
            }
        };
        let Some(mut camera) = self.camera else {
            return;
        };
        // Input: drag orbits, wheel zooms (only while the pointer is over the model).
        if response.dragged() {
            let delta = response.drag_delta();
            camera.orbit(-delta.x * DRAG_RAD_PER_POINT, delta.y * DRAG_RAD_PER_POINT);
        }
        if response.hovered() {
            let scroll = ui.input(|i| i.smooth_scroll_delta.y);
            if scroll != 0.0 {
                let radius = mesh.bounds.radius().max(1e-4);
                camera.zoom(
                    (-scroll * WHEEL_ZOOM_PER_POINT).exp(),
                    radius * 1.05,
                    radius * 20.0,
                );
            }
        }
        if response.double_clicked() {
            camera = self.first_camera.unwrap_or(camera);
        }
        if self.auto_turn {
            let now = Instant::now();
            let secs = self
                .last_auto_turn
                .map_or(0.0, |t| now.duration_since(t).as_secs_f32().min(0.1));
            self.last_auto_turn = Some(now);
            camera.orbit(secs * AUTO_TURN_RAD_PER_SEC, 0.0);
            ui.ctx().request_repaint();
        }
        self.camera = Some(camera);
        // Render when the camera or the size changed.
        let ppp = ui.ctx().pixels_per_point();
        let px = [
            ((rect.width() * ppp).round() as u32).clamp(1, raster3d::MAX_RENDER_WIDTH_PX),
            ((rect.height() * ppp).round() as u32).clamp(1, raster3d::MAX_RENDER_HEIGHT_PX),
        ];
        if self.rendered_for != Some((camera, px)) || self.texture.is_none() {
            let bg = tokens::palette().bg_surface;
            self.buffer.background = [bg.r(), bg.g(), bg.b(), 255];
            let started = Instant::now();
            raster3d::render(&mesh, &camera, px[0], px[1], &mut self.buffer);
            let image = egui::ColorImage::from_rgba_unmultiplied(
                [self.buffer.width as usize, self.buffer.height as usize],
                &self.buffer.rgba,
            );
            match &mut self.texture {
                Some(texture) => texture.set(image, egui::TextureOptions::LINEAR),
                None => {
                    self.texture = Some(ui.ctx().load_texture(
                        "turntable",
                        image,
                        egui::TextureOptions::LINEAR,
                    ))
                }
            }
            self.last_frame_ms = started.elapsed().as_secs_f32() * 1000.0;
            self.frames_rendered += 1;
            self.rendered_for = Some((camera, px));
        }
        if let Some(texture) = &self.texture {
            ui.painter().image(
                texture.id(),
                rect,
                egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0)),
                egui::Color32::WHITE,
            );
        }
        let [x, y, z] = mesh.bounds.size();
        widgets::muted(
            ui,
            format!(
                "{} triangles · {} × {} × {} units",
                crate::api::validate::thousands(mesh.triangle_count() as u64),
                short(x),
                short(y),
                short(z)
            ),
        );
    }
}

fn short(value: f32) -> String {
    let text = format!("{value:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}
