//! The top of the Create canvas while a video is edited: the source in the player, and
//! under it the timeline for the choices that set times (trim's in and out, retake's span,
//! extend's end). The timeline and the player stay in step: the timeline's seeks and
//! selection loop drive the player, the player's frame moves the playhead, and the
//! selection is written into the form.

use super::form::{EditChoice, VideoEditForm};
use crate::api::video_edit::VideoEditOperationKind;
use crate::engine::Event;
use crate::ui::model::Action;
use crate::ui::textures::TextureCache;
use crate::ui::tokens;
use crate::ui::video::player::VideoPlayerState;
use crate::ui::video::timeline::{
    PointAnchor, TimelineEvent, TimelineMode, TimelineState, timeline_ui,
};
use crate::ui::widgets;
use egui::{RichText, Ui, Vec2};

/// Thumbnails in the strip, and their height in pixels.
const STRIP_SLOTS: u32 = 20;
const STRIP_HEIGHT_PX: u32 = 64;
/// Retake's span limits (contract: default and floor 2 s; the source is at least 3 s).
const RETAKE_MIN_SECS: f64 = 2.0;
/// Share of the canvas height the source player may take (the results stay in view
/// under it), and its limits.
const PLAYER_HEIGHT_SHARE: f32 = 0.36;
const PLAYER_MIN_HEIGHT: f32 = 160.0;
const PLAYER_MAX_HEIGHT: f32 = 520.0;

#[derive(Default)]
pub struct EditStage {
    pub player: VideoPlayerState,
    pub timeline: Option<TimelineState>,
    /// What the timeline was built for: the source url and the choice's mode.
    timeline_for: Option<(String, TimelineModeKey)>,
    /// The source whose strip was asked for.
    strip_for: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TimelineModeKey {
    Trim,
    Span,
    Point,
}

fn mode_key(choice: EditChoice) -> Option<TimelineModeKey> {
    match choice {
        EditChoice::Trim => Some(TimelineModeKey::Trim),
        EditChoice::Operation(VideoEditOperationKind::Retake) => Some(TimelineModeKey::Span),
        EditChoice::Operation(VideoEditOperationKind::Extend) => Some(TimelineModeKey::Point),
        _ => None,
    }
}

impl EditStage {
    /// The player's and the strip's engine events.
    pub fn handle_event(&mut self, ctx: &egui::Context, event: &Event) {
        self.player.handle_event(event);
        if let Some(timeline) = self.timeline.as_mut() {
            timeline.handle_event(ctx, event);
        }
    }

    /// Stop playing (the viewer opened, the view changed).
    pub fn pause(&self) {
        self.player.pause();
    }

    pub fn close(&mut self) {
        self.player.close();
        self.timeline = None;
        self.timeline_for = None;
        self.strip_for = None;
    }

    /// Keep the player on the form's source; measure the source once it opened; keep the
    /// timeline's mode on the choice. Returns commands to send.
    fn sync(&mut self, form: &mut VideoEditForm, actions: &mut Vec<Action>) {
        let url = form
            .source
            .as_ref()
            .and_then(|s| s.url())
            .map(str::to_owned);
        let Some(url) = url else {
            if self.player.url().is_some() {
                self.close();
            }
            return;
        };
        if self.player.url() != Some(url.as_str()) {
            let poster = form.source.as_ref().and_then(|s| s.poster_url.clone());
            self.close();
            if let Some(command) = self.player.set_source(&url, poster.as_deref()) {
                actions.push(Action::Send(Box::new(command)));
            }
        }
        let (Some(frames), Some(fps)) = (self.player.frame_count(), self.player.fps()) else {
            return;
        };
        if fps <= 0.0 || frames == 0 {
            return;
        }
        let duration_secs = f64::from(frames) / fps;
        form.source_measured(&url, duration_secs, fps);
        let Some(key) = mode_key(form.choice) else {
            self.timeline = None;
            self.timeline_for = None;
            return;
        };
        if self.timeline_for.as_ref() != Some(&(url.clone(), key)) {
            let strip = self.timeline.take().map(|t| t.strip);
            let mut timeline =
                TimelineState::new(duration_secs, fps, timeline_mode(key, duration_secs));
            if let Some(strip) = strip {
                timeline.strip = strip;
            }
            load_form_times(&mut timeline, form, key);
            self.timeline = Some(timeline);
            self.timeline_for = Some((url.clone(), key));
        }
        if self.strip_for.as_deref() != Some(url.as_str())
            && let Some(timeline) = self.timeline.as_mut()
        {
            self.strip_for = Some(url.clone());
            for command in timeline.request_strip(url.clone(), STRIP_SLOTS, STRIP_HEIGHT_PX) {
                actions.push(Action::Send(Box::new(command)));
            }
        }
    }
}

fn timeline_mode(key: TimelineModeKey, duration_secs: f64) -> TimelineMode {
    match key {
        TimelineModeKey::Trim => TimelineMode::Trim,
        TimelineModeKey::Span => TimelineMode::Span {
            min_secs: RETAKE_MIN_SECS.min(duration_secs),
            max_secs: duration_secs,
        },
        TimelineModeKey::Point => TimelineMode::Point,
    }
}

/// The form's times onto a fresh timeline (they survive switching choices).
fn load_form_times(timeline: &mut TimelineState, form: &VideoEditForm, key: TimelineModeKey) {
    let fields = &form.fields;
    match key {
        TimelineModeKey::Trim => {
            let out = fields.trim_out_secs.unwrap_or(timeline.duration_secs);
            timeline.set_selection_secs(fields.trim_in_secs, out);
        }
        TimelineModeKey::Span => {
            let start = fields.retake_start_secs;
            timeline.set_selection_secs(start, start + fields.retake_secs);
        }
        TimelineModeKey::Point => {
            timeline.point = if fields.extend_at_start {
                PointAnchor::Start
            } else {
                PointAnchor::End
            };
        }
    }
}

/// The timeline's times into the form.
fn store_selection(form: &mut VideoEditForm, in_secs: f64, out_secs: f64) {
    match form.choice {
        EditChoice::Trim => {
            form.fields.trim_in_secs = in_secs;
            form.fields.trim_out_secs = Some(out_secs);
        }
        EditChoice::Operation(VideoEditOperationKind::Retake) => {
            form.fields.retake_start_secs = in_secs;
            form.fields.retake_secs = out_secs - in_secs;
        }
        _ => {}
    }
}

/// The source player and its timeline, above the results.
pub fn stage_ui(
    ui: &mut Ui,
    form: &mut VideoEditForm,
    stage: &mut EditStage,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    stage.sync(form, actions);
    let Some(source) = form.source.as_ref() else {
        empty_stage_ui(ui, actions);
        return;
    };
    let label = source.label.clone();
    if source.url().is_none() {
        tokens::card_frame().show(ui, |ui| {
            ui.set_width(ui.available_width());
            widgets::muted(
                ui,
                format!("{label}: the video plays here once it has uploaded."),
            );
        });
        return;
    }
    let available = ui.available_size();
    let player_height =
        (available.y * PLAYER_HEIGHT_SHARE).clamp(PLAYER_MIN_HEIGHT, PLAYER_MAX_HEIGHT);
    tokens::card_frame().show(ui, |ui| {
        ui.set_width(ui.available_width());
        ui.horizontal(|ui| {
            widgets::section_label(ui, "Source");
            ui.label(RichText::new(&label).color(tokens::palette().text_muted));
        });
        let (rect, _) = ui.allocate_exact_size(
            Vec2::new(ui.available_width(), player_height),
            egui::Sense::hover(),
        );
        let player_actions = ui
            .scope_builder(egui::UiBuilder::new().max_rect(rect), |ui| {
                stage
                    .player
                    .player_ui(ui, textures, &format!("Source video {label}"))
            })
            .inner;
        actions.extend(player_actions);
        if let Some(timeline) = stage.timeline.as_mut() {
            if let Some(secs) = stage.player.shown_time_secs()
                && stage.player.is_playing()
            {
                timeline.set_playhead_secs(secs);
            }
            ui.add_space(tokens::SPACE_S);
            let events = timeline_ui(ui, timeline);
            apply_timeline_events(events, form, &stage.player, timeline);
        }
    });
}

fn apply_timeline_events(
    events: Vec<TimelineEvent>,
    form: &mut VideoEditForm,
    player: &VideoPlayerState,
    timeline: &TimelineState,
) {
    let frame_of = |secs: f64| (secs * timeline.fps + 1e-6).floor().max(0.0) as u32;
    for event in events {
        match event {
            TimelineEvent::SeekTo(secs) => {
                player.seek_frame(frame_of(secs));
            }
            TimelineEvent::PlaySelection { in_secs, out_secs } => {
                let first = frame_of(in_secs);
                // `out_secs` is exclusive: the last frame starts one frame before it.
                let last = frame_of(out_secs).saturating_sub(1).max(first);
                player.play_loop_range(first, last);
            }
            TimelineEvent::Pause => {
                player.stop_loop_range();
                player.pause();
            }
            TimelineEvent::SelectionChanged { in_secs, out_secs } => {
                store_selection(form, in_secs, out_secs);
            }
            TimelineEvent::PointChanged(anchor) => {
                form.fields.extend_at_start = anchor == PointAnchor::Start;
            }
        }
    }
}

fn empty_stage_ui(ui: &mut Ui, actions: &mut Vec<Action>) {
    tokens::card_frame().show(ui, |ui| {
        ui.set_width(ui.available_width());
        ui.vertical_centered(|ui| {
            ui.add_space(tokens::SPACE_L);
            ui.label(
                RichText::new("No video chosen")
                    .size(tokens::TEXT_TITLE)
                    .color(tokens::palette().text),
            );
            widgets::muted(
                ui,
                "Drop a video file on the window, choose one, or press Edit or Trim on any \
                 video result or library video.",
            );
            ui.add_space(tokens::SPACE_S);
            if ui.add(widgets::secondary_button("Choose video…")).clicked() {
                actions.push(Action::PickSourceVideo);
            }
            ui.add_space(tokens::SPACE_L);
        });
    });
}
