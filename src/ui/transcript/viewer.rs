//! The transcript in the viewer: the column beside the video player (the cues, the
//! current one highlighted as it plays, a click seeks), the subtitle over the picture
//! (C shows or hides it; remembered), and the Transcribe button with its cost.

use super::jobs::{self, TranscriptJob};
use super::{TranscriptState, paint_subtitle, panel};
use crate::ui::format;
use crate::ui::model::{Action, Model};
use crate::ui::tokens;
use crate::ui::video::player::VideoPlayerState;
use crate::ui::widgets;
use egui::{RichText, Ui};

/// The key of the subtitles preference in `UiMemory.panels`.
pub const PANEL_KEY: &str = "transcript";

/// The remembered part: whether subtitles are shown over videos.
pub fn subtitles_from_memory(value: Option<&serde_json::Value>) -> bool {
    value
        .and_then(|v| v.get("subtitles"))
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(true)
}

pub fn subtitles_to_memory(on: bool) -> serde_json::Value {
    serde_json::json!({ "subtitles": on })
}

/// The viewer's transcript of the file on screen.
#[derive(Default)]
pub struct ViewerTranscript {
    pub state: TranscriptState,
    job: Option<TranscriptJob>,
    source_url: String,
}

impl ViewerTranscript {
    /// Follow the transcription of `source_url` (the file on screen); the command that
    /// loads its SRT when one became available.
    pub fn update(
        &mut self,
        model: &Model,
        source_url: &str,
        title: &str,
    ) -> Option<crate::engine::Command> {
        self.source_url = source_url.to_owned();
        self.job = jobs::for_source(model, source_url);
        match &self.job {
            Some(TranscriptJob::Done { srt_url, .. }) => self.state.set_source(srt_url, title),
            _ => {
                if self.state.srt_url().is_some() {
                    self.state.clear();
                }
                None
            }
        }
    }

    pub fn job(&self) -> Option<&TranscriptJob> {
        self.job.as_ref()
    }

    /// A transcription exists (running, done or failed): the column is shown.
    pub fn has_column(&self) -> bool {
        self.job.is_some()
    }

    /// The column beside the video player; a clicked cue seeks the player.
    pub fn column_ui(&mut self, ui: &mut Ui, player: &mut VideoPlayerState) -> Vec<Action> {
        let now_secs = player.shown_time_secs().unwrap_or(0.0);
        let (seek, actions) = self.column_at_ui(ui, now_secs);
        if let Some(secs) = seek {
            player.seek_to_secs(secs);
        }
        actions
    }

    /// The column for any player at `now_secs`: the time a clicked cue asks for, and the
    /// exports asked for.
    pub fn column_at_ui(&mut self, ui: &mut Ui, now_secs: f64) -> (Option<f64>, Vec<Action>) {
        let actions = match self.job.clone() {
            Some(TranscriptJob::Working {
                progress_percent, ..
            }) => {
                heading(ui);
                ui.horizontal(|ui| {
                    ui.spinner();
                    widgets::muted(ui, format!("Transcribing… {progress_percent:.0} %"));
                });
                widgets::muted(
                    ui,
                    "The words appear here when it is done; follow it in the tray.",
                );
                Vec::new()
            }
            Some(TranscriptJob::Failed { message, .. }) => {
                heading(ui);
                widgets::field_error(ui, &message);
                Vec::new()
            }
            Some(TranscriptJob::Done { .. }) => {
                let seek = panel(ui, &mut self.state, now_secs);
                return (seek, self.state.take_actions());
            }
            None => Vec::new(),
        };
        (None, actions)
    }

    /// The subtitle of the moment over the player's picture.
    pub fn paint_subtitle_over(&self, ui: &Ui, player: &VideoPlayerState) {
        let (Some(picture), Some(now_secs)) = (player.picture_rect(), player.shown_time_secs())
        else {
            return;
        };
        if let Some(cue) = self.state.cue_at(now_secs) {
            paint_subtitle(&ui.painter_at(picture), picture, cue);
        }
    }
}

fn heading(ui: &mut Ui) {
    ui.label(
        RichText::new("Transcript")
            .size(tokens::TEXT_TITLE)
            .strong()
            .color(tokens::palette().text),
    );
}

/// "Transcribe · 1 credit" under the viewer's actions when the file on screen has no
/// transcription yet: a job at once with the default options (language detected,
/// subtitles 12 words a line, 2 lines), its cost on the button (per started minute,
/// at least one). `source_secs`: the file's length once known. Returns the submit.
pub fn transcribe_button_ui(
    ui: &mut Ui,
    model: &Model,
    source_url: &str,
    source_secs: Option<f64>,
    project_id: Option<String>,
) -> Option<Action> {
    if source_url.starts_with("file://") {
        // The service cannot read a file on this computer (the Create form uploads one).
        return None;
    }
    let cost = jobs::cost_estimate(model, source_secs);
    let label = match (cost, source_secs) {
        (Some(cost), Some(_)) => format!("Transcribe · {}", format::credits(cost)),
        (Some(cost), None) => format!("Transcribe · {} / min", format::credits(cost)),
        (None, _) => "Transcribe".to_owned(),
    };
    let too_long = source_secs.is_some_and(|s| s > crate::api::transcription::MAX_SOURCE_SECS);
    let button = ui
        .add_enabled(
            !source_url.trim().is_empty() && !too_long,
            widgets::secondary_button(label),
        )
        .on_hover_text(
            "Get the words as text and subtitles, shown beside the player (priced per started \
             minute of sound, at least one)",
        )
        .on_disabled_hover_text(if too_long {
            "The service transcribes at most 30 minutes"
        } else {
            "The service gave no address for this file"
        });
    widgets::name_widget(&button, "Transcribe");
    button
        .clicked()
        .then(|| Action::Send(Box::new(jobs::submit_command(source_url, project_id, cost))))
}
