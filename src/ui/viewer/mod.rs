//! The studio's one image viewer: a near-full-window modal over any list of results (job
//! outputs or library items) with fit / 100 % / wheel zoom and drag-to-pan, keyboard
//! control, and the result actions (reuse, edit source, vary, favourite, trash, copy, save,
//! open outside) in a side column and a right-click menu. Esc or a click on the backdrop
//! closes it.
//!
//! It stays a modal layer rather than replacing the view: the artist keeps their place in
//! Create or the Library underneath, and egui's modal layer keeps Tab and clicks inside it.

mod actions;
mod image;
mod info;
mod keys;
pub mod model3d;
pub(crate) mod subject;
pub mod zoom;

use crate::api::media::MediaItem;
use crate::engine::LocalJobId;
use crate::ui::audio::view::AudioViewState;
use crate::ui::model::{Action, Model, ResultAction, ResultRef};
use crate::ui::textures::TextureCache;
use crate::ui::tokens;
use crate::ui::transcript::viewer::{ViewerTranscript, transcribe_button_ui};
use crate::ui::video::player::VideoPlayerState;
use egui::{CornerRadius, Stroke, Ui, Vec2};
use subject::subject_of;
use zoom::{Geometry, Zoom};

/// Longest side requested for the image at fit (and the floor of every request).
pub const VIEWER_MAX_SIDE_PX: u32 = 2048;
/// Longest side requested when zoomed in towards 100 % (also capped by the GPU's limit).
pub const VIEWER_FULL_SIDE_CAP_PX: u32 = 8192;

/// The viewer's own state: closed, or a list of results with the one shown and its zoom.
pub struct ViewerState {
    open: Option<OpenViewer>,
    /// Subtitles over videos that have a transcript (C toggles; remembered).
    subtitles_on: bool,
    /// `subtitles_on` changed since the shell last wrote it to the settings.
    subtitles_changed: bool,
    /// The sound of an audio view that closed, unloaded at the next layout (closing has no
    /// egui context to reach the shared sound state).
    audio_to_release: Option<String>,
}

impl Default for ViewerState {
    fn default() -> Self {
        ViewerState {
            open: None,
            subtitles_on: true,
            subtitles_changed: false,
            audio_to_release: None,
        }
    }
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
    /// Previous/Next pressed during layout; applied after it.
    step_after_layout: isize,
    /// Plays the result when it is a video (stopped when the viewer moves on or closes).
    player: VideoPlayerState,
    /// The audio view, when the result is a sound (unloaded when the viewer moves on or
    /// closes).
    audio: AudioViewState,
    /// Before / After on an edit's result: show the source video instead of the result.
    show_before: bool,
    /// False while a dialog opened from the viewer (e.g. Vary's confirmation) sits above
    /// it: its keys (Esc) are that dialog's.
    is_top_modal: bool,
    /// The transcript of the video on screen (its column, its subtitles).
    transcript: ViewerTranscript,
    /// A copy of `ViewerState::subtitles_on` for the layout.
    subtitles_on: bool,
    /// The turntable, when the result is a 3D model.
    model_3d: model3d::Model3dView,
    /// The Subtitles button was pressed during layout; applied after it.
    toggle_subtitles: bool,
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
            step_after_layout: 0,
            is_top_modal: true,
            player: VideoPlayerState::default(),
            audio: AudioViewState::default(),
            show_before: false,
            transcript: ViewerTranscript::default(),
            subtitles_on: self.subtitles_on,
            toggle_subtitles: false,
            model_3d: model3d::Model3dView::default(),
        });
    }

    /// Show output `index` of a job; the arrows step through that job's outputs.
    pub fn open_job(&mut self, model: &Model, local_id: LocalJobId, index: usize) {
        let outputs = model
            .jobs
            .get(&local_id)
            .and_then(|job| job.result.as_ref())
            .map_or(0, |result| result.urls.len());
        let list = (0..outputs)
            .map(|index| ResultRef::Job { local_id, index })
            .collect();
        self.open(list, index);
    }

    /// The turntable of the 3D model shown (tests read its camera and frames).
    pub fn model_3d(&self) -> Option<&model3d::Model3dView> {
        self.open
            .as_ref()
            .map(|open| &open.model_3d)
            .filter(|view| view.url().is_some())
    }

    /// `Event::Model3dLoaded`.
    pub fn handle_model_3d_loaded(
        &mut self,
        url: &str,
        result: &Result<std::sync::Arc<crate::media::mesh::Mesh>, String>,
    ) {
        if let Some(open) = self.open.as_mut() {
            open.model_3d.handle_loaded(url, result);
        }
    }

    pub fn close(&mut self) {
        if let Some(open) = self.open.take()
            && let Some(url) = open.audio.url()
        {
            self.audio_to_release = Some(url.to_owned());
        }
    }

    /// The audio view, when the result on screen is a sound (tests).
    pub fn audio_view(&self) -> Option<&AudioViewState> {
        let open = self.open.as_ref()?;
        open.audio.url().is_some().then_some(&open.audio)
    }

    /// Start playing what is on screen, a video or a sound, as soon as it is ready
    /// (`framewright --play FILE`).
    pub fn play_when_ready(&mut self) {
        if let Some(open) = self.open.as_mut() {
            open.player.play_when_ready();
            open.audio.play_when_ready();
        }
    }

    /// Start playing the sound on screen as soon as it is ready (opened from a tile's ▶).
    pub fn play_audio_when_ready(&mut self) {
        if let Some(open) = self.open.as_mut() {
            open.audio.play_when_ready();
        }
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

    /// The video player, when the result on screen is a video (tests and screenshots).
    pub fn video_player(&self) -> Option<&VideoPlayerState> {
        let open = self.open.as_ref()?;
        open.player.url().is_some().then_some(&open.player)
    }

    /// The transcript of the file on screen (tests and screenshots).
    pub fn transcript(&self) -> Option<&ViewerTranscript> {
        self.open.as_ref().map(|o| &o.transcript)
    }

    /// The engine's answers to the transcript's `Command::Transcript`.
    pub fn handle_transcript_event(&mut self, event: &crate::engine::TranscriptEvent) {
        if let Some(open) = self.open.as_mut() {
            open.transcript.state.handle_event(event);
        }
    }

    /// Subtitles over videos are on.
    pub fn subtitles_on(&self) -> bool {
        self.subtitles_on
    }

    /// The remembered subtitles choice (at start).
    pub fn restore_subtitles(&mut self, on: bool) {
        self.subtitles_on = on;
    }

    /// The subtitles choice to remember, once after each change.
    pub fn subtitles_to_write(&mut self) -> Option<bool> {
        std::mem::take(&mut self.subtitles_changed).then_some(self.subtitles_on)
    }

    /// The engine's answers to the player's `OpenVideo`.
    pub fn handle_video_event(&mut self, event: &crate::engine::Event) {
        if let Some(open) = self.open.as_mut() {
            open.player.handle_event(event);
        }
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
                open.show_before = false;
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
                Action::Result(
                    ResultAction::Reuse(_)
                    | ResultAction::UseAsEditSource(_)
                    | ResultAction::Animate(_)
                    | ResultAction::EditVideo { .. },
                ) => {
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
        if let Some(url) = self.audio_to_release.take() {
            crate::ui::audio::sounds::release(ctx, &url);
        }
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

        if subject.is_video {
            if open.is_top_modal
                && subject.source_video_url.is_some()
                && ctx.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::B))
            {
                open.show_before = !open.show_before;
            }
            // Before / After: the source plays in the same player (its own poster comes
            // with it once opened).
            let (url, poster) = match subject.source_video_url.as_deref() {
                Some(source) if open.show_before => (source, None),
                _ => (subject.url.as_str(), subject.thumbnail_url.as_deref()),
            };
            if let Some(command) = open.player.set_source(url, poster) {
                actions.push(Action::Send(Box::new(command)));
            }
            if open.is_top_modal {
                open.player.keyboard_input(ctx);
            }
        } else if open.player.url().is_some() {
            open.player.close();
        }
        if subject.is_model_3d {
            if let Some(command) = open.model_3d.set_source(&subject.url) {
                actions.push(Action::Send(Box::new(command)));
            }
            if open.is_top_modal {
                // Before the viewer's keys: the arrows turn the model.
                open.model_3d.keyboard_input(ctx);
            }
        } else if open.model_3d.url().is_some() {
            open.model_3d = model3d::Model3dView::default();
        }
        if subject.is_audio {
            open.audio.set_source(ctx, &subject.url);
            if open.is_top_modal {
                // Before the viewer's keys: the arrows seek in a sound.
                open.audio.keyboard_input(ctx);
            }
        } else if open.audio.url().is_some() {
            open.audio.close(ctx);
        }
        // The transcript of the file on screen (the result, never the Before source).
        if subject.is_video || subject.is_audio {
            if let Some(command) = open.transcript.update(model, &subject.url, &subject.title) {
                actions.push(Action::Send(Box::new(command)));
            }
        } else {
            open.transcript = ViewerTranscript::default();
        }
        if subject.is_video
            && open.is_top_modal
            && !open.transcript.state.cues().is_empty()
            && !ctx.text_edit_focused()
            && ctx.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::C))
        {
            self.subtitles_on = !self.subtitles_on;
            self.subtitles_changed = true;
        }
        open.subtitles_on = self.subtitles_on;
        let keys = if open.is_top_modal {
            keys::keyboard_input(ctx, open)
        } else {
            keys::Keys::default()
        };
        let mut close = keys.close;

        let content = ctx.content_rect();
        let margin = if content.width() < 1200.0 { 10.0 } else { 28.0 };
        let size = (content.size() - Vec2::splat(2.0 * margin + 24.0)).max(Vec2::new(400.0, 300.0));
        let position = (open.index, open.list.len());

        let response = egui::Modal::new(egui::Id::unique("image_viewer"))
            .backdrop_color(tokens::palette().scrim)
            .frame(
                egui::Frame::new()
                    .fill(tokens::palette().bg_panel)
                    .stroke(Stroke::new(1.0, tokens::palette().border_strong))
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
                            image::image_column_ui(
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
                            if (subject.is_video || subject.is_audio)
                                && open.transcript.job().is_none()
                            {
                                let source_secs = open
                                    .player
                                    .frame_count()
                                    .zip(open.player.fps())
                                    .filter(|(_, fps)| *fps > 0.0)
                                    .map(|(frames, fps)| f64::from(frames) / fps)
                                    .or_else(|| {
                                        crate::ui::audio::sounds::playback(ui.ctx(), &subject.url)?
                                            .duration_secs()
                                    });
                                let project_id = match &result {
                                    ResultRef::Media(item) => item.project_id.clone(),
                                    ResultRef::Job { local_id, .. } => model
                                        .jobs
                                        .get(local_id)
                                        .and_then(|j| j.spec.request.project_id.clone()),
                                };
                                actions.extend(transcribe_button_ui(
                                    ui,
                                    model,
                                    &subject.url,
                                    source_secs,
                                    project_id,
                                ));
                            }
                            if info::info_column_ui(ui, &result, &subject, position, &mut actions) {
                                close = true;
                            }
                        },
                    );
                });
            });
        open.is_top_modal = response.is_top_modal;
        if std::mem::take(&mut open.toggle_subtitles) {
            self.subtitles_on = !self.subtitles_on;
            self.subtitles_changed = true;
        }
        if response.backdrop_response.clicked() {
            close = true;
        }
        let step = keys.step + std::mem::take(&mut open.step_after_layout);

        if close {
            self.close();
            return actions;
        }
        if step != 0 {
            self.step(step);
        }
        self.after_actions(&actions);
        actions
    }
}

/// A visible ring around the widget that has keyboard focus.
pub(crate) fn focus_ring(ui: &Ui, response: &egui::Response) {
    if response.has_focus() {
        ui.painter().rect_stroke(
            response.rect.expand(2.0),
            CornerRadius::same(tokens::RADIUS_M),
            Stroke::new(2.0, tokens::palette().accent),
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
