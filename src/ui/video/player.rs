//! The video player widget: the poster first (through the texture cache), then "Loading
//! video…" while the engine downloads and opens the file, then the frames of the
//! `VideoPlayer` the engine handed over, uploaded into one texture updated in place.
//! Controls: play/pause, frame step, loop, a scrub bar (hover shows the time, click or drag
//! seeks to the exact frame), the time code, Fit / 100 %. Keys (when the caller says the
//! player owns the keyboard and no text field has focus): Space play/pause, `,` / `.` one
//! frame back / forward, J back one second (paused), K pause, L play (L again while
//! playing: 2×, then 4×, silent above 1×; a pause or Play returns to 1×). Steps and J act from
//! the frame on screen (see `asked_frame`), a pause (K, Space, a click) stops on it, and the
//! time read-out is that frame's.
//!
//! Sound: once the video opened, its sound track is attached to the studio's one output
//! (`ui::sound::output`); the player then follows the sound's clock (see
//! `media::video::player`). The controls add Mute / Unmute and a Volume slider (the
//! output's global volume and mute, remembered by the app), "No sound track" for a video
//! without one, and "No audio output" while no device is reachable. Dragging the scrub
//! bar is silent.
//!
//! The widget owns its state and returns actions; it never opens files or decodes.

use super::time;
use crate::audio::DeviceState;
use crate::engine::{Command, Event};
use crate::media::video::{PlayerStatus, SoundTrack, VideoPlayer};
use crate::ui::icons::{Icon, paint_icon};
use crate::ui::model::Action;
use crate::ui::textures::{TextureCache, TextureLookup};
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{
    Color32, ColorImage, CornerRadius, Rect, RichText, Role, Sense, Stroke, TextureHandle,
    TextureOptions, Ui, Vec2, WidgetInfo, pos2, vec2,
};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Longest side asked of the poster (it is shown at most as large as the video area).
const POSTER_SIDE_PX: u32 = 1024;
/// Height of the scrub bar and of the button row under the picture.
const SCRUB_HEIGHT: f32 = 22.0;
const CONTROLS_HEIGHT: f32 = 30.0;
/// J jumps back this far.
const JUMP_SECS: f64 = 1.0;

/// Request ids for `Command::OpenVideo`, unique in this process (two panels may open the
/// same URL; each keeps only its own answer).
static NEXT_REQUEST_ID: AtomicU64 = AtomicU64::new(1);

#[derive(Default)]
pub struct VideoPlayerState {
    source: Option<Source>,
    request_id: u64,
    phase: Phase,
    /// The frame on screen, updated in place with `TextureHandle::set`.
    texture: Option<TextureHandle>,
    frame_size_px: [u32; 2],
    /// The state that came with the frame on screen (index and time of what is shown).
    shown: Option<PlayerStatus>,
    /// 100 %: one video pixel per screen pixel; otherwise Fit.
    actual_size: bool,
    /// The frame the scrub bar last asked for while dragging (a seek per new frame only).
    last_scrub_frame: Option<u32>,
    /// Play once opened ([`Self::play_when_ready`]).
    autoplay: bool,
    /// The frame last asked for by a seek, a step or J, until it is on screen. The keys act
    /// from it (else from the frame on screen), never from the player thread's own position,
    /// which runs ahead of the picture while frames queue or are dropped.
    asked_frame: Option<u32>,
    /// Where the picture was drawn in the last layout (subtitles are drawn over it).
    picture_rect: Option<Rect>,
    /// The video's sound was handed to the studio's output (or there was none to hand).
    sound_attached: bool,
}

struct Source {
    url: String,
    poster_url: Option<String>,
}

#[derive(Default)]
enum Phase {
    #[default]
    Idle,
    Opening,
    Ready(Arc<VideoPlayer>),
    Failed {
        message: String,
        details: String,
    },
}

impl VideoPlayerState {
    /// Show the video at `url` (with its poster). Returns the command that opens it when the
    /// source changed; the caller sends it. The same URL again does nothing.
    pub fn set_source(&mut self, url: &str, poster_url: Option<&str>) -> Option<Command> {
        if self.source.as_ref().is_some_and(|s| s.url == url) {
            return None;
        }
        // Asked to play before any source was given (`--play`): the first source plays.
        let autoplay = self.autoplay && self.source.is_none();
        *self = Self::default();
        self.autoplay = autoplay;
        self.source = Some(Source {
            url: url.to_owned(),
            poster_url: poster_url.filter(|u| !u.is_empty()).map(str::to_owned),
        });
        if url.is_empty() {
            self.phase = Phase::Failed {
                message: "The service gave no address for this video.".to_owned(),
                details: String::new(),
            };
            return None;
        }
        self.request_id = NEXT_REQUEST_ID.fetch_add(1, Ordering::Relaxed);
        self.phase = Phase::Opening;
        Some(Command::OpenVideo {
            request_id: self.request_id,
            url: url.to_owned(),
        })
    }

    /// Start playing as soon as the video has opened (it opens paused otherwise).
    pub fn play_when_ready(&mut self) {
        self.autoplay = true;
    }

    /// Pause, if playing (another player is taking over).
    pub fn pause(&self) {
        if let Some(player) = self.player() {
            player.pause();
        }
    }

    /// Ask for the same video again after a failure (the service was unreachable, say).
    pub fn retry(&mut self) -> Option<Command> {
        let source = self.source.take()?;
        // A player asked to play keeps that wish across the retry.
        let autoplay = self.autoplay;
        let command = self.set_source(&source.url, source.poster_url.as_deref());
        self.autoplay = autoplay;
        command
    }

    /// Stop and forget the video (the player thread ends when its handle is dropped).
    pub fn close(&mut self) {
        *self = Self::default();
    }

    /// Take the engine's answer to our `OpenVideo`; answers for other requests are ignored.
    pub fn handle_event(&mut self, event: &Event) {
        match event {
            Event::VideoOpened {
                request_id, player, ..
            } if *request_id == self.request_id && matches!(self.phase, Phase::Opening) => {
                // Loop is on by default: short generated clips are watched over and over.
                player.set_loop(true);
                if self.autoplay {
                    player.play();
                }
                self.phase = Phase::Ready(Arc::clone(player));
            }
            Event::VideoFailed {
                request_id,
                message,
                details,
                ..
            } if *request_id == self.request_id => {
                self.phase = Phase::Failed {
                    message: message.clone(),
                    details: details.clone(),
                };
            }
            _ => {}
        }
    }

    pub fn url(&self) -> Option<&str> {
        self.source.as_ref().map(|s| s.url.as_str())
    }

    /// A player is running (the video opened).
    pub fn is_ready(&self) -> bool {
        matches!(self.phase, Phase::Ready(_))
    }

    pub fn is_loading(&self) -> bool {
        matches!(self.phase, Phase::Opening)
    }

    /// The person-readable reason the video cannot play.
    pub fn failure(&self) -> Option<&str> {
        match &self.phase {
            Phase::Failed { message, .. } => Some(message),
            _ => None,
        }
    }

    /// Index of the frame on screen (None before the first frame arrived).
    pub fn shown_frame(&self) -> Option<u32> {
        self.shown.as_ref().map(|s| s.frame_index)
    }

    /// Presentation time of the frame on screen.
    pub fn shown_time_secs(&self) -> Option<f64> {
        self.shown.as_ref().map(|s| s.time_secs)
    }

    pub fn is_playing(&self) -> bool {
        self.live_status().is_some_and(|s| s.playing)
    }

    pub fn is_looping(&self) -> bool {
        self.live_status().is_some_and(|s| s.looping)
    }

    pub fn frame_count(&self) -> Option<u32> {
        self.player().map(|p| p.info().frame_count)
    }

    pub fn fps(&self) -> Option<f64> {
        self.player().map(|p| p.info().fps)
    }

    /// Show frame `index` (keeps play/pause); `false` if the player is not running.
    pub fn seek_frame(&self, index: u32) -> bool {
        self.player().is_some_and(|p| p.seek_frame(index))
    }

    /// Plays frames `first..=last` over and over, starting at `first` (the trim timeline's
    /// "play the selection"); `false` if the player is not running.
    pub fn play_loop_range(&self, first: u32, last: u32) -> bool {
        self.player().is_some_and(|p| {
            p.set_loop_range(Some((first, last))) && p.seek_frame(first) && p.play()
        })
    }

    /// Pauses and forgets the loop range, so Play plays the whole video again.
    pub fn stop_loop_range(&self) -> bool {
        self.player()
            .is_some_and(|p| p.pause() && p.set_loop_range(None))
    }

    pub fn is_actual_size(&self) -> bool {
        self.actual_size
    }

    /// Where the video picture was drawn in the last layout, clipped to the player.
    pub fn picture_rect(&self) -> Option<Rect> {
        self.picture_rect
    }

    /// Show the frame at `time_secs` (keeps play/pause), as the scrub bar does: a
    /// transcript's cue clicked. `false` if the player is not running.
    pub fn seek_to_secs(&mut self, time_secs: f64) -> bool {
        let (Some(fps), Some(frame_count)) = (self.fps(), self.frame_count()) else {
            return false;
        };
        if !fps.is_finite() || fps <= 0.0 || frame_count == 0 || !time_secs.is_finite() {
            return false;
        }
        // The first frame at or after that time, so the time shown is inside what starts
        // there (a cue's words, not the end of the one before).
        let index = ((time_secs.max(0.0) * fps) - 1e-6).ceil().max(0.0) as u64;
        let index = index.min(u64::from(frame_count - 1)) as u32;
        self.seek_asked(index);
        true
    }

    /// The open player, weakly: it upgrades only while something still holds it (tests
    /// check that closing a view drops the player, which joins its decoder thread).
    pub fn player_weak(&self) -> Option<std::sync::Weak<VideoPlayer>> {
        match &self.phase {
            Phase::Ready(player) => Some(Arc::downgrade(player)),
            _ => None,
        }
    }

    fn player(&self) -> Option<&VideoPlayer> {
        match &self.phase {
            Phase::Ready(player) => Some(player),
            _ => None,
        }
    }

    fn live_status(&self) -> Option<PlayerStatus> {
        self.player().map(VideoPlayer::status)
    }

    /// The player's keys. Call before laying out widgets (so Space does not also press a
    /// focused button) and only when the player owns the keyboard.
    pub fn keyboard_input(&mut self, ctx: &egui::Context) {
        if ctx.text_edit_focused() || egui::Popup::is_any_open(ctx) {
            return;
        }
        let Some(player) = self.player() else {
            return;
        };
        let jump_frames = (player.info().fps * JUMP_SECS).round().max(1.0) as i64;
        let mut step_by = 0;
        let mut pause_here = false;
        let mut toggle = false;
        ctx.input_mut(|i| {
            toggle = i.consume_key(egui::Modifiers::NONE, egui::Key::Space);
            // Every press counts, also several within one frame (a held key, a fast hand).
            let mut presses = |key| i.count_and_consume_key(egui::Modifiers::NONE, key) as i64;
            step_by += presses(egui::Key::Period);
            step_by -= presses(egui::Key::Comma);
            step_by -= presses(egui::Key::J) * jump_frames;
            if i.consume_key(egui::Modifiers::NONE, egui::Key::K) {
                pause_here = true;
            }
            if i.consume_key(egui::Modifiers::NONE, egui::Key::L) {
                // L plays; L again while playing goes faster (2×, 4×), silently.
                let status = player.status();
                if status.playing {
                    player.set_speed((status.speed.max(1) * 2).min(4));
                } else {
                    player.play();
                }
            }
        });
        if step_by != 0 {
            self.step_from_shown(step_by);
        } else if pause_here {
            self.pause_on_shown();
        } else if toggle {
            self.toggle_play();
        }
    }

    /// Space, a click on the picture, the Play/Pause button: a pause stops on the frame on
    /// screen, as K does.
    fn toggle_play(&mut self) {
        if self.is_playing() {
            self.pause_on_shown();
        } else if let Some(player) = self.player() {
            player.play();
        }
    }

    /// Pause and show the frame `frames` away from the one on screen (or from the one last
    /// asked for, when it has not arrived yet: two quick presses move two frames).
    fn step_from_shown(&mut self, frames: i64) {
        let Some(player) = self.player() else {
            return;
        };
        let last = i64::from(player.info().frame_count.saturating_sub(1));
        let from = self.asked_frame.or(self.shown_frame()).unwrap_or(0);
        let target = (i64::from(from) + frames).clamp(0, last) as u32;
        player.pause();
        player.seek_frame(target);
        self.asked_frame = Some(target);
    }

    /// K: pause on the frame on screen. The player thread may already have moved past it
    /// (frames waiting for the UI, frames dropped to keep time); it goes back to it, so the
    /// picture, the read-out and the next step all start from what the person saw.
    fn pause_on_shown(&mut self) {
        let Some(player) = self.player() else {
            return;
        };
        player.pause();
        let Some(shown) = self.asked_frame.or(self.shown_frame()) else {
            return;
        };
        if player.status().frame_index != shown || self.asked_frame.is_some() {
            player.seek_frame(shown);
            self.asked_frame = Some(shown);
        }
    }

    /// The frame the scrub bar or a caller asked for (keeps play/pause).
    fn seek_asked(&mut self, index: u32) {
        if let Some(player) = self.player()
            && player.seek_frame(index)
        {
            self.asked_frame = Some(index);
        }
    }

    /// Hands the video's sound track to the studio's output, once, when both exist.
    fn attach_sound(&mut self, ctx: &egui::Context) {
        if self.sound_attached {
            return;
        }
        let Phase::Ready(player) = &self.phase else {
            return;
        };
        if !matches!(player.sound_track(), SoundTrack::Ready { .. }) {
            self.sound_attached = true;
            return;
        }
        if let Some(output) = crate::ui::sound::output(ctx) {
            player.attach_sound(&output);
            self.sound_attached = true;
        }
    }

    /// The video's sound track, once it opened.
    pub fn sound_track(&self) -> Option<&SoundTrack> {
        self.player().map(VideoPlayer::sound_track)
    }

    /// Take the newest frame from the player and upload it into our one texture.
    fn take_frame(&mut self, ctx: &egui::Context) {
        let Phase::Ready(player) = &self.phase else {
            return;
        };
        // Every waiting frame is looked at (the asked-for one may be followed by newer
        // ones while playing); the newest is shown.
        let mut newest = None;
        while let Some(frame) = player.try_recv_frame() {
            if self.asked_frame == Some(frame.status.frame_index) || frame.status.error.is_some() {
                self.asked_frame = None;
            }
            newest = Some(frame);
        }
        let Some(latest) = newest else {
            return;
        };
        let frame = latest.frame;
        let size = [frame.width as usize, frame.height as usize];
        if frame.rgba.len() != size[0] * size[1] * 4 || size[0] == 0 || size[1] == 0 {
            return;
        }
        let image = ColorImage::from_rgba_unmultiplied(size, &frame.rgba);
        match self.texture.as_mut() {
            Some(texture) => texture.set(image, TextureOptions::LINEAR),
            None => {
                self.texture = Some(ctx.load_texture("video-frame", image, TextureOptions::LINEAR))
            }
        }
        self.frame_size_px = [frame.width, frame.height];
        self.shown = Some(latest.status);
    }

    /// Lay the player out in the space `ui` offers: picture, scrub bar, controls. `name` is
    /// the picture's accessible name ("Video 1 of 3: …").
    /// Height of what [`Self::player_ui`] puts under the picture (scrub bar and controls),
    /// so a caller can size the player to its video.
    pub fn chrome_height(ui: &Ui) -> f32 {
        SCRUB_HEIGHT + CONTROLS_HEIGHT + 2.0 * ui.spacing().item_spacing.y
    }

    pub fn player_ui(&mut self, ui: &mut Ui, textures: &TextureCache, name: &str) -> Vec<Action> {
        let mut actions = Vec::new();
        self.attach_sound(ui.ctx());
        self.take_frame(ui.ctx());
        let available = ui.available_size().max(vec2(160.0, 120.0));
        let picture_height = (available.y - Self::chrome_height(ui)).max(60.0);
        self.picture_ui(
            ui,
            textures,
            vec2(available.x, picture_height),
            name,
            &mut actions,
        );
        self.scrub_bar_ui(ui, available.x);
        self.controls_ui(ui);
        actions
    }

    fn picture_ui(
        &mut self,
        ui: &mut Ui,
        textures: &TextureCache,
        size: Vec2,
        name: &str,
        actions: &mut Vec<Action>,
    ) {
        let (area, response) = ui.allocate_exact_size(size, Sense::click());
        let name = name.to_owned();
        response.widget_info(|| WidgetInfo::labeled(Role::Image, true, &name));
        if response.clicked() {
            self.toggle_play();
        }
        let painter = ui.painter_at(area);
        painter.rect_filled(
            area,
            CornerRadius::same(tokens::RADIUS_M),
            tokens::palette().bg_app,
        );
        let ppp = ui.ctx().pixels_per_point();

        let poster = self
            .source
            .as_ref()
            .and_then(|s| s.poster_url.as_deref())
            .map(|url| textures.get(url, POSTER_SIDE_PX));
        let picture = match (&self.texture, &poster) {
            (Some(texture), _) => {
                let [w, h] = self.frame_size_px;
                Some((texture.id(), vec2(w as f32, h as f32)))
            }
            (None, Some(TextureLookup::Ready(poster))) => {
                // The poster may be downscaled: size it like the video once known.
                let size = match self.player() {
                    Some(p) => vec2(p.info().width as f32, p.info().height as f32),
                    None => poster.size_vec2(),
                };
                Some((poster.id(), size))
            }
            _ => None,
        };
        self.picture_rect = None;
        if let Some((texture_id, size_px)) = picture {
            let rect = picture_rect(area, size_px, ppp, self.actual_size);
            self.picture_rect = Some(rect.intersect(area));
            painter.image(
                texture_id,
                rect,
                Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0)),
                Color32::WHITE,
            );
        }

        match &self.phase {
            Phase::Opening | Phase::Idle => {
                let centre = area.center();
                egui::Spinner::new()
                    .size(28.0)
                    .color(tokens::palette().text)
                    .paint_at(ui, Rect::from_center_size(centre, Vec2::splat(28.0)));
                caption(&painter, area, "Loading video…");
            }
            Phase::Ready(_) => {
                if self.texture.is_none() {
                    caption(&painter, area, "Loading video…");
                } else if !self.is_playing() && response.hovered() {
                    // A big play glyph says a click plays.
                    let disc = Rect::from_center_size(area.center(), Vec2::splat(64.0));
                    painter.circle_filled(disc.center(), 32.0, tokens::palette().tile_scrim);
                    paint_icon(
                        &painter,
                        disc.shrink(20.0),
                        Icon::Play,
                        tokens::palette().text,
                    );
                }
            }
            Phase::Failed { message, details } => {
                let (message, details) = (message.clone(), details.clone());
                let mut retry = false;
                let url = self.url().unwrap_or_default().to_owned();
                let panel = Rect::from_center_size(
                    area.center_bottom() - vec2(0.0, 64.0),
                    vec2(area.width().min(520.0) - 24.0, 96.0),
                );
                ui.scope_builder(egui::UiBuilder::new().max_rect(panel), |ui| {
                    egui::Frame::new()
                        .fill(tokens::palette().bg_elevated)
                        .corner_radius(CornerRadius::same(tokens::RADIUS_M))
                        .inner_margin(egui::Margin::same(10))
                        .show(ui, |ui| {
                            ui.vertical_centered(|ui| {
                                ui.label(RichText::new(&message).color(tokens::palette().text));
                                ui.horizontal(|ui| {
                                    if !url.is_empty()
                                        && ui
                                            .add(widgets::secondary_button("Try again"))
                                            .on_hover_text("Download and open the video again")
                                            .clicked()
                                    {
                                        retry = true;
                                    }
                                    if !url.is_empty()
                                        && ui
                                            .add(widgets::secondary_button("Open in system player"))
                                            .clicked()
                                    {
                                        actions.push(Action::Send(Box::new(
                                            Command::OpenInSystemViewer { url },
                                        )));
                                    }
                                    if !details.is_empty() {
                                        ui.label(
                                            RichText::new("Details")
                                                .size(tokens::TEXT_SMALL)
                                                .color(tokens::palette().text_faint),
                                        )
                                        .on_hover_text(details);
                                    }
                                });
                            });
                        });
                });
                if retry && let Some(command) = self.retry() {
                    actions.push(Action::Send(Box::new(command)));
                }
            }
        }
        if response.has_focus() {
            painter.rect_stroke(
                area.shrink(1.0),
                CornerRadius::same(tokens::RADIUS_M),
                Stroke::new(1.5, tokens::palette().accent),
                egui::StrokeKind::Inside,
            );
        }
    }

    fn scrub_bar_ui(&mut self, ui: &mut Ui, width: f32) {
        let (rect, response) =
            ui.allocate_exact_size(vec2(width, SCRUB_HEIGHT), Sense::click_and_drag());
        let frame_count = self.frame_count().unwrap_or(0);
        let fps = self.fps().unwrap_or(0.0);
        let current = self.shown_frame().unwrap_or(0);
        let enabled = frame_count > 1;
        response.widget_info(|| WidgetInfo::slider(enabled, f64::from(current), "Seek (frame)"));
        let track = Rect::from_center_size(rect.center(), vec2(rect.width() - 12.0, 4.0));
        let painter = ui.painter();
        painter.rect_filled(
            track,
            CornerRadius::same(2),
            tokens::palette().border_strong,
        );
        if !enabled {
            return;
        }
        let played = time::frame_fraction(current, frame_count);
        let head_x = track.left() + played * track.width();
        painter.rect_filled(
            Rect::from_min_max(track.min, pos2(head_x, track.max.y)),
            CornerRadius::same(2),
            tokens::palette().accent,
        );
        let hot = response.hovered() || response.dragged();
        painter.circle_filled(
            pos2(head_x, track.center().y),
            if hot { 7.0 } else { 5.5 },
            tokens::palette().text,
        );
        let frame_at = |x: f32| time::scrub_frame(x, track.left(), track.width(), frame_count);
        if let Some(pointer) = response.hover_pos() {
            let frame = frame_at(pointer.x);
            let time_secs = self.frame_time_secs(frame);
            painter.line_segment(
                [
                    pos2(pointer.x, track.top() - 4.0),
                    pos2(pointer.x, track.bottom() + 4.0),
                ],
                Stroke::new(1.0, tokens::palette().text_muted),
            );
            response.clone().on_hover_text_at_pointer(format!(
                "{} · frame {}",
                time::timecode(time_secs, fps),
                frame + 1
            ));
        }
        // Scrubbing is silent: the sound waits until the bar is let go.
        if response.drag_started()
            && let Some(player) = self.player()
        {
            player.set_scrubbing(true);
        }
        if response.drag_stopped()
            && let Some(player) = self.player()
        {
            player.set_scrubbing(false);
        }
        if (response.clicked() || response.dragged())
            && let Some(pointer) = response.interact_pointer_pos()
        {
            let frame = frame_at(pointer.x);
            if self.last_scrub_frame != Some(frame) || response.clicked() {
                self.last_scrub_frame = Some(frame);
                self.seek_asked(frame);
            }
        }
        if response.drag_stopped() {
            self.last_scrub_frame = None;
        }
    }

    /// The presentation time of frame `index` (constant frame rate assumed for display).
    fn frame_time_secs(&self, index: u32) -> f64 {
        match self.fps() {
            Some(fps) if fps > 0.0 => f64::from(index) / fps,
            _ => 0.0,
        }
    }

    fn controls_ui(&mut self, ui: &mut Ui) {
        /// Room the Fit and 100 % buttons need after the time read-out.
        const ZOOM_BUTTONS_MIN_WIDTH: f32 = 110.0;
        let ready = self.is_ready();
        let playing = self.is_playing();
        let looping = self.is_looping();
        ui.allocate_ui_with_layout(
            vec2(ui.available_width(), CONTROLS_HEIGHT),
            egui::Layout::left_to_right(egui::Align::Center),
            |ui| {
                ui.spacing_mut().item_spacing.x = 4.0;
                let (icon, label) = if playing {
                    (Icon::Pause, "Pause (Space)")
                } else {
                    (Icon::Play, "Play (Space)")
                };
                if control_button(ui, icon, label, ready, false).clicked() {
                    self.toggle_play();
                }
                if control_button(ui, Icon::StepBack, "Previous frame (,)", ready, false).clicked()
                {
                    self.step_from_shown(-1);
                }
                if control_button(ui, Icon::StepForward, "Next frame (.)", ready, false).clicked() {
                    self.step_from_shown(1);
                }
                if control_button(ui, Icon::Loop, "Loop", ready, looping).clicked()
                    && let Some(player) = self.player()
                {
                    player.set_loop(!looping);
                }
                self.sound_controls_ui(ui);
                ui.add_space(6.0);
                let fps = self.fps().unwrap_or(0.0);
                let duration_secs = self.player().map_or(0.0, |p| p.info().duration_secs);
                let (now, total) = if ready {
                    (
                        time::timecode(self.shown_time_secs().unwrap_or(0.0), fps),
                        time::timecode(duration_secs, fps),
                    )
                } else {
                    ("–:––".to_owned(), "–:––".to_owned())
                };
                // A narrow player (the Library's detail pane) shows the time alone, or
                // nothing: a wider read-out would push the row past its pane.
                let font = egui::FontId::monospace(tokens::TEXT_SMALL + 1.0);
                let readout = widgets::first_that_fits(
                    ui.painter(),
                    &font,
                    ui.available_width(),
                    [format!("{now} / {total}"), now],
                );
                if let Some(readout) = readout {
                    ui.label(
                        RichText::new(readout)
                            .font(font.clone())
                            .color(tokens::palette().text),
                    )
                    .on_hover_text(
                        "Minutes:seconds:frames — J back 1 s, K pause, L play (again: 2×, 4×)",
                    );
                }
                let speed = self.live_status().map_or(1, |s| s.speed.max(1));
                if playing && speed > 1 {
                    ui.label(
                        RichText::new(format!("{speed}×"))
                            .size(tokens::TEXT_SMALL)
                            .color(tokens::palette().accent),
                    )
                    .on_hover_text("Sound is muted above 1× · K or Space to pause");
                }
                // A small player (a canvas tile) keeps the picture fitted: no room for both
                // the time and the zoom buttons.
                if ui.available_width() < ZOOM_BUTTONS_MIN_WIDTH {
                    self.actual_size = false;
                    return;
                }
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    let actual = self.actual_size;
                    let hundred = ui
                        .add_enabled(ready, widgets::toggle_button("100 %", actual))
                        .on_hover_text("One video pixel per screen pixel");
                    widgets::name_widget(&hundred, "Video at 100 %");
                    if hundred.clicked() {
                        self.actual_size = true;
                    }
                    let fit = ui
                        .add_enabled(ready, widgets::toggle_button("Fit", !actual))
                        .on_hover_text("Fit the video to the space");
                    widgets::name_widget(&fit, "Fit video");
                    if fit.clicked() {
                        self.actual_size = false;
                    }
                });
            },
        );
    }
}

impl VideoPlayerState {
    /// Mute / Unmute and Volume (the studio's output, global), or why there is no sound.
    fn sound_controls_ui(&self, ui: &mut Ui) {
        /// Below this the row keeps the time read-out and drops the slider.
        const SLIDER_MIN_ROOM: f32 = 260.0;
        let Some(track) = self.sound_track() else {
            return;
        };
        let faint = |ui: &mut Ui, text: &str, hover: String| {
            ui.label(
                RichText::new(text)
                    .size(tokens::TEXT_SMALL)
                    .color(tokens::palette().text_faint),
            )
            .on_hover_text(hover);
        };
        match track {
            SoundTrack::None => {
                faint(ui, "No sound track", "This video has no sound.".to_owned());
                return;
            }
            SoundTrack::Unsupported(words) => {
                faint(ui, "Sound cannot play", words.clone());
                return;
            }
            SoundTrack::Ready { .. } => {}
        }
        let Some(output) = crate::ui::sound::output(ui.ctx()) else {
            return;
        };
        let muted = output.muted();
        let mut volume = output.volume();
        let icon = if muted || volume <= 0.0 {
            Icon::SpeakerMuted
        } else {
            Icon::Speaker
        };
        let name = if muted { "Unmute" } else { "Mute" };
        if control_button(ui, icon, name, true, false)
            .on_hover_text("M mutes everywhere · silent while you drag the scrub bar")
            .clicked()
        {
            output.set_muted(!muted);
        }
        if ui.available_width() >= SLIDER_MIN_ROOM {
            let slider = ui
                .add_sized(
                    [64.0, 16.0],
                    egui::Slider::new(&mut volume, 0.0..=1.0).show_value(false),
                )
                .on_hover_text(format!(
                    "Volume {:.0} % (the studio's, remembered) · sound is muted while scrubbing",
                    volume * 100.0
                ));
            widgets::name_widget(&slider, "Volume");
            if slider.changed() {
                output.set_volume(volume);
                if muted && volume > 0.0 {
                    output.set_muted(false);
                }
            }
        }
        if let DeviceState::Unavailable { reason } = output.device_state() {
            ui.label(
                RichText::new("No audio output")
                    .size(tokens::TEXT_SMALL)
                    .color(tokens::palette().warning),
            )
            .on_hover_text(format!(
                "The studio cannot reach a sound device; the video plays silently until one \
                 returns.\n\n{reason}"
            ));
        }
    }
}

/// A small icon button with an accessible name; `on` draws it highlighted (Loop).
fn control_button(ui: &mut Ui, icon: Icon, name: &str, enabled: bool, on: bool) -> egui::Response {
    let sense = if enabled {
        Sense::click()
    } else {
        Sense::hover()
    };
    let (rect, response) = ui.allocate_exact_size(Vec2::splat(28.0), sense);
    let name_owned = name.to_owned();
    response.widget_info(|| {
        if icon == Icon::Loop {
            WidgetInfo::selected(Role::CheckBox, enabled, on, &name_owned)
        } else {
            WidgetInfo::labeled(Role::Button, enabled, &name_owned)
        }
    });
    if ui.is_rect_visible(rect) {
        let painter = ui.painter();
        let radius = CornerRadius::same(tokens::RADIUS_S + 2);
        if on {
            painter.rect_filled(rect, radius, tokens::palette().accent);
        } else if response.hovered() && enabled {
            painter.rect_filled(rect, radius, tokens::palette().bg_hover);
        }
        let color = match (enabled, on) {
            (false, _) => tokens::palette().text_faint,
            (true, true) => tokens::palette().on_accent,
            (true, false) => tokens::palette().text,
        };
        paint_icon(
            painter,
            Rect::from_center_size(rect.center(), Vec2::splat(14.0)),
            icon,
            color,
        );
        if response.has_focus() {
            painter.rect_stroke(
                rect.expand(1.0),
                radius,
                Stroke::new(2.0, tokens::palette().accent),
                egui::StrokeKind::Outside,
            );
        }
    }
    response.on_hover_text(name)
}

/// Where a picture of `size_px` goes in `area`: fitted (scaled up or down to fill one
/// side), or at 100 % (one video pixel per physical pixel) centred and cropped by the area.
fn picture_rect(area: Rect, size_px: Vec2, pixels_per_point: f32, actual_size: bool) -> Rect {
    let size_px = size_px.max(Vec2::splat(1.0));
    let size = if actual_size {
        size_px / pixels_per_point.max(0.1)
    } else {
        let scale = (area.width() / size_px.x).min(area.height() / size_px.y);
        size_px * scale
    };
    Rect::from_center_size(area.center(), size)
}

fn caption(painter: &egui::Painter, area: Rect, text: &str) {
    let at = area.center() + vec2(0.0, 30.0);
    let galley = painter.layout_no_wrap(
        text.to_owned(),
        egui::FontId::proportional(14.0),
        tokens::palette().text,
    );
    let back = Rect::from_center_size(
        at + vec2(0.0, galley.size().y / 2.0),
        galley.size() + vec2(16.0, 8.0),
    );
    painter.rect_filled(
        back,
        CornerRadius::same(tokens::RADIUS_S),
        tokens::palette().tile_scrim,
    );
    painter.galley(back.min + vec2(8.0, 4.0), galley, tokens::palette().text);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_fills_one_side_and_actual_size_uses_physical_pixels() {
        let area = Rect::from_min_size(pos2(0.0, 0.0), vec2(800.0, 400.0));
        let fit = picture_rect(area, vec2(720.0, 720.0), 1.0, false);
        assert_eq!(fit.size(), vec2(400.0, 400.0));
        assert_eq!(fit.center(), area.center());
        let actual = picture_rect(area, vec2(720.0, 720.0), 2.0, true);
        assert_eq!(actual.size(), vec2(360.0, 360.0));
    }

    #[test]
    fn try_again_after_a_failed_download_asks_anew_and_takes_only_the_new_answer() {
        let mut state = VideoPlayerState::default();
        let Some(Command::OpenVideo { request_id, .. }) =
            state.set_source("http://x/a.mp4", Some("http://x/a.jpg"))
        else {
            panic!("opens");
        };
        state.handle_event(&Event::VideoFailed {
            request_id,
            url: "http://x/a.mp4".into(),
            message: "The video could not be downloaded.".into(),
            details: "connection refused".into(),
        });
        assert_eq!(state.failure(), Some("The video could not be downloaded."));
        let Some(Command::OpenVideo {
            request_id: again,
            url,
        }) = state.retry()
        else {
            panic!("Try again asks for the video again");
        };
        assert_eq!(url, "http://x/a.mp4");
        assert_ne!(again, request_id);
        assert!(state.is_loading());
        // A late answer to the first request changes nothing.
        state.handle_event(&Event::VideoFailed {
            request_id,
            url: "http://x/a.mp4".into(),
            message: "stale".into(),
            details: String::new(),
        });
        assert!(state.is_loading());
    }

    #[test]
    fn a_new_source_asks_to_open_it_once() {
        let mut state = VideoPlayerState::default();
        let first = state.set_source("http://x/a.mp4", Some("http://x/a.jpg"));
        assert!(
            matches!(first, Some(Command::OpenVideo { ref url, .. }) if url == "http://x/a.mp4")
        );
        assert!(state.set_source("http://x/a.mp4", None).is_none());
        assert!(state.is_loading());
        // An answer for someone else's request is not ours.
        state.handle_event(&Event::VideoFailed {
            request_id: 0,
            url: "http://x/a.mp4".into(),
            message: "no".into(),
            details: String::new(),
        });
        assert!(state.is_loading());
        let Some(Command::OpenVideo { request_id, .. }) = state.set_source("http://x/b.mp4", None)
        else {
            panic!("a new URL opens again");
        };
        state.handle_event(&Event::VideoFailed {
            request_id,
            url: "http://x/b.mp4".into(),
            message: "This video uses a codec the studio cannot play (HEVC).".into(),
            details: "unsupported video codec hvc1".into(),
        });
        assert_eq!(
            state.failure(),
            Some("This video uses a codec the studio cannot play (HEVC).")
        );
        assert!(
            state.set_source("", None).is_none(),
            "no address, nothing to open"
        );
        assert!(state.failure().is_some());
    }
}
