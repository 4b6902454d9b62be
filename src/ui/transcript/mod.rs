//! The transcript beside a video or a sound: its cues in a list with the one being heard
//! highlighted (and kept in view while it plays), a click on a cue seeks there, a search
//! box that narrows the list, and Export as SRT, WebVTT or text (through the save
//! dialog). Also the subtitle drawn over a playing video.
//!
//! The panel owns its state and does no I/O: it asks for the SRT with a
//! `Command::Transcript(Load)` that its owner sends, takes the engine's answer in
//! [`TranscriptState::handle_event`], and returns the seek and the export as values.
//!
//! Wiring into a player that is not the video player (the audio view): keep one
//! [`TranscriptState`], call [`TranscriptState::set_source`] with the transcription's
//! `srt_url` (send the command it returns), route `Event::Transcript` to
//! [`TranscriptState::handle_event`], and each frame call
//! `if let Some(secs) = panel(ui, &mut state, playback.position_secs()) { playback.seek(secs) }`
//! then push [`TranscriptState::take_actions`] into the view's actions (the exports).

pub mod jobs;
pub mod viewer;

use crate::engine::{Command, TranscriptCommand, TranscriptEvent};
use crate::media::subtitles::{self, Cue};
use crate::ui::model::Action;
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{Color32, CornerRadius, Rect, RichText, Sense, Ui, WidgetInfo, vec2};

/// An export of the transcript.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    Srt,
    Vtt,
    Txt,
}

impl ExportFormat {
    pub const ALL: [ExportFormat; 3] = [ExportFormat::Srt, ExportFormat::Vtt, ExportFormat::Txt];

    pub fn label(self) -> &'static str {
        match self {
            ExportFormat::Srt => "SRT",
            ExportFormat::Vtt => "VTT",
            ExportFormat::Txt => "TXT",
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Srt => "srt",
            ExportFormat::Vtt => "vtt",
            ExportFormat::Txt => "txt",
        }
    }

    fn hint(self) -> &'static str {
        match self {
            ExportFormat::Srt => "Save as SubRip subtitles (.srt), for video editors and players",
            ExportFormat::Vtt => "Save as WebVTT subtitles (.vtt), for the web",
            ExportFormat::Txt => "Save the words as plain text (.txt)",
        }
    }

    /// The file's contents.
    pub fn contents(self, cues: &[Cue]) -> String {
        match self {
            ExportFormat::Srt => subtitles::to_srt(cues),
            ExportFormat::Vtt => subtitles::to_vtt(cues),
            ExportFormat::Txt => subtitles::to_txt(cues),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
enum Phase {
    #[default]
    Idle,
    Loading,
    Ready(Vec<Cue>),
    Failed {
        message: String,
        detail: String,
    },
}

/// One transcript's panel.
#[derive(Default)]
pub struct TranscriptState {
    srt_url: Option<String>,
    /// The file name exports suggest, without extension ("harbour-at-dawn").
    export_stem: String,
    phase: Phase,
    query: String,
    /// The cue highlighted in the last layout.
    highlighted: Option<usize>,
    /// The cue the list last scrolled to (it scrolls again only when the cue changes).
    scrolled_to: Option<usize>,
    actions: Vec<Action>,
}

impl TranscriptState {
    /// Show the transcript at `srt_url`; the command that loads it when it changed (the
    /// caller sends it). `name` names the exported files.
    pub fn set_source(&mut self, srt_url: &str, name: &str) -> Option<Command> {
        if self.srt_url.as_deref() == Some(srt_url) {
            return None;
        }
        *self = Self {
            srt_url: Some(srt_url.to_owned()),
            export_stem: file_stem(name),
            phase: Phase::Loading,
            ..Self::default()
        };
        Some(Command::Transcript(TranscriptCommand::Load {
            srt_url: srt_url.to_owned(),
        }))
    }

    /// Forget the transcript (the subject changed to one without).
    pub fn clear(&mut self) {
        *self = Self::default();
    }

    pub fn srt_url(&self) -> Option<&str> {
        self.srt_url.as_deref()
    }

    /// The engine's answer; answers for another transcript are ignored.
    pub fn handle_event(&mut self, event: &TranscriptEvent) {
        match event {
            TranscriptEvent::Loaded { srt_url, cues } if self.is_for(srt_url) => {
                self.phase = Phase::Ready(cues.clone());
            }
            TranscriptEvent::Failed {
                srt_url,
                error,
                detail,
            } if self.is_for(srt_url) => {
                self.phase = Phase::Failed {
                    message: error.clone(),
                    detail: detail.clone(),
                };
            }
            _ => {}
        }
    }

    fn is_for(&self, srt_url: &str) -> bool {
        self.srt_url.as_deref() == Some(srt_url)
    }

    /// The cues, once loaded.
    pub fn cues(&self) -> &[Cue] {
        match &self.phase {
            Phase::Ready(cues) => cues,
            _ => &[],
        }
    }

    pub fn is_loading(&self) -> bool {
        self.phase == Phase::Loading
    }

    /// Why the transcript cannot be shown, in words.
    pub fn failure(&self) -> Option<&str> {
        match &self.phase {
            Phase::Failed { message, .. } => Some(message),
            _ => None,
        }
    }

    /// The cue highlighted in the last layout (the one being heard).
    pub fn highlighted(&self) -> Option<usize> {
        self.highlighted
    }

    /// The cue on screen at `time_secs` (for the subtitle over the video).
    pub fn cue_at(&self, time_secs: f64) -> Option<&Cue> {
        let cues = self.cues();
        subtitles::cue_at(cues, time_secs).map(|i| &cues[i])
    }

    /// The exports asked for since the last call (`Action::SaveText`).
    pub fn take_actions(&mut self) -> Vec<Action> {
        std::mem::take(&mut self.actions)
    }

    fn export(&mut self, format: ExportFormat) {
        let cues = self.cues();
        if cues.is_empty() {
            return;
        }
        self.actions.push(Action::SaveText {
            file_name: format!("{}.{}", self.export_stem, format.extension()),
            contents: format.contents(cues),
        });
    }
}

/// A safe file stem from a title: letters, digits and dashes, at most 60 characters.
fn file_stem(name: &str) -> String {
    let mut stem = String::new();
    for c in name.chars() {
        if c.is_alphanumeric() {
            stem.extend(c.to_lowercase());
        } else if !stem.ends_with('-') && !stem.is_empty() {
            stem.push('-');
        }
        if stem.chars().count() >= 60 {
            break;
        }
    }
    let stem = stem.trim_end_matches('-');
    if stem.is_empty() {
        "transcript".to_owned()
    } else {
        format!("{stem}-transcript")
    }
}

/// `m:ss` (or `h:mm:ss`) of a cue's start.
pub fn clock(time_secs: f64) -> String {
    let total = time_secs.max(0.0).floor() as u64;
    let (h, m, s) = (total / 3600, (total / 60) % 60, total % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

/// The transcript panel for a player at `now_secs`; the time to seek to when a cue was
/// clicked. Exports wait in [`TranscriptState::take_actions`].
pub fn panel(ui: &mut Ui, state: &mut TranscriptState, now_secs: f64) -> Option<f64> {
    ui.horizontal(|ui| {
        ui.label(
            RichText::new("Transcript")
                .size(tokens::TEXT_TITLE)
                .strong()
                .color(tokens::palette().text),
        );
    });
    match state.phase.clone() {
        Phase::Idle => {
            widgets::muted(ui, "No transcript yet.");
            return None;
        }
        Phase::Loading => {
            ui.horizontal(|ui| {
                ui.spinner();
                widgets::muted(ui, "Loading the transcript…");
            });
            return None;
        }
        Phase::Failed { message, detail } => {
            widgets::field_error(ui, &message);
            egui::CollapsingHeader::new(RichText::new("Details").size(tokens::TEXT_SMALL))
                .id_salt("transcript_failure_details")
                .show(ui, |ui| {
                    ui.label(
                        RichText::new(detail)
                            .size(tokens::TEXT_SMALL)
                            .color(tokens::palette().text_faint),
                    );
                });
            return None;
        }
        Phase::Ready(_) => {}
    }

    // Export row.
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing.x = 4.0;
        widgets::muted(ui, "Export");
        for format in ExportFormat::ALL {
            let button = ui
                .add(widgets::subtle_button(format.label()))
                .on_hover_text(format.hint());
            widgets::name_widget(&button, &format!("Export {}", format.label()));
            if button.clicked() {
                state.export(format);
            }
        }
    });
    // Search.
    let search = ui.add(
        egui::TextEdit::singleline(&mut state.query)
            .hint_text("Search the transcript")
            .desired_width(f32::INFINITY),
    );
    widgets::name_widget(&search, "Search transcript");

    let cues = state.cues();
    let current = subtitles::cue_at(cues, now_secs);
    let shown: Vec<usize> = if state.query.trim().is_empty() {
        (0..cues.len()).collect()
    } else {
        subtitles::search(cues, &state.query)
    };
    if !state.query.trim().is_empty() {
        widgets::muted(
            ui,
            match shown.len() {
                0 => "No cue has these words".to_owned(),
                1 => "1 cue".to_owned(),
                n => format!("{n} cues"),
            },
        );
    }
    let scroll_to = current.filter(|c| state.scrolled_to != Some(*c) && shown.contains(c));
    let mut clicked = None;
    egui::ScrollArea::vertical()
        .id_salt("transcript_cues")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            ui.spacing_mut().item_spacing.y = 2.0;
            for &index in &shown {
                let cue = &cues[index];
                let response = cue_row(ui, cue, current == Some(index));
                if scroll_to == Some(index) {
                    response.scroll_to_me(Some(egui::Align::Center));
                }
                if response.clicked() {
                    clicked = Some(index);
                }
            }
        });
    let seek = clicked.map(|index| cues[index].start_secs);
    if scroll_to.is_some() {
        state.scrolled_to = scroll_to;
    }
    if clicked.is_some() {
        state.scrolled_to = clicked;
    }
    state.highlighted = current;
    seek
}

/// One cue: its start time and words; highlighted while it is heard. Named
/// "Cue 0:03: Hello there" for assistive technology and tests.
fn cue_row(ui: &mut Ui, cue: &Cue, current: bool) -> egui::Response {
    let width = ui.available_width();
    let text = match &cue.speaker {
        Some(speaker) => format!("{speaker}: {}", cue.text.replace('\n', " ")),
        None => cue.text.replace('\n', " "),
    };
    let time = clock(cue.start_secs);
    let time_width = 44.0;
    let galley = ui.painter().layout(
        text.clone(),
        egui::FontId::proportional(tokens::TEXT_BODY),
        if current {
            tokens::palette().text
        } else {
            tokens::palette().text_muted
        },
        (width - time_width - 12.0).max(40.0),
    );
    let height = galley.size().y.max(18.0) + 8.0;
    let (rect, response) = ui.allocate_exact_size(vec2(width, height), Sense::click());
    let name = format!("Cue {time}: {text}");
    response.widget_info(|| WidgetInfo::selected(egui::Role::ListItem, true, current, &name));
    if ui.is_rect_visible(rect) {
        let painter = ui.painter();
        let fill = if current {
            tokens::palette().accent_soft
        } else if response.hovered() {
            tokens::palette().bg_hover
        } else {
            Color32::TRANSPARENT
        };
        painter.rect_filled(rect, CornerRadius::same(tokens::RADIUS_S), fill);
        if current {
            painter.rect_filled(
                Rect::from_min_size(rect.min, vec2(3.0, rect.height())),
                CornerRadius::same(1),
                tokens::palette().accent,
            );
        }
        painter.text(
            rect.min + vec2(8.0, 4.0),
            egui::Align2::LEFT_TOP,
            time,
            egui::FontId::monospace(tokens::TEXT_SMALL),
            tokens::palette().text_faint,
        );
        painter.galley(
            rect.min + vec2(time_width + 4.0, 4.0),
            galley,
            tokens::palette().text,
        );
        if response.has_focus() {
            painter.rect_stroke(
                rect,
                CornerRadius::same(tokens::RADIUS_S),
                egui::Stroke::new(1.5, tokens::palette().accent),
                egui::StrokeKind::Inside,
            );
        }
    }
    response.on_hover_text("Play from here")
}

/// The subtitle over a video picture: white words on a dark band near the bottom, sized
/// with the picture.
pub fn paint_subtitle(painter: &egui::Painter, picture: Rect, cue: &Cue) {
    let text = match &cue.speaker {
        Some(speaker) => format!("{speaker}: {}", cue.text),
        None => cue.text.clone(),
    };
    let size = (picture.height() / 18.0).clamp(12.0, 36.0);
    let galley = painter.layout(
        text,
        egui::FontId::proportional(size),
        Color32::WHITE,
        picture.width() * 0.85,
    );
    let pad = vec2(size * 0.5, size * 0.25);
    let bottom = picture.bottom() - picture.height() * 0.06;
    let band = Rect::from_center_size(
        egui::pos2(picture.center().x, bottom - galley.size().y / 2.0 - pad.y),
        galley.size() + 2.0 * pad,
    );
    painter.rect_filled(
        band,
        CornerRadius::same(tokens::RADIUS_S),
        Color32::from_black_alpha(170),
    );
    painter.galley(band.min + pad, galley, Color32::WHITE);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn export_names_are_safe_and_say_transcript() {
        assert_eq!(
            file_stem("A quiet harbour, at dawn!"),
            "a-quiet-harbour-at-dawn-transcript"
        );
        assert_eq!(file_stem("../../etc"), "etc-transcript");
        assert_eq!(file_stem("  "), "transcript");
    }

    #[test]
    fn clock_reads_minutes_and_hours() {
        assert_eq!(clock(3.9), "0:03");
        assert_eq!(clock(61.0), "1:01");
        assert_eq!(clock(3725.0), "1:02:05");
    }

    #[test]
    fn answers_for_another_transcript_are_ignored() {
        let mut state = TranscriptState::default();
        assert!(state.set_source("http://x/a.srt", "A").is_some());
        assert!(state.set_source("http://x/a.srt", "A").is_none());
        state.handle_event(&TranscriptEvent::Loaded {
            srt_url: "http://x/b.srt".into(),
            cues: Vec::new(),
        });
        assert!(state.is_loading());
        let cue = Cue {
            start_secs: 1.0,
            end_secs: 2.0,
            text: "Hi".into(),
            speaker: None,
        };
        state.handle_event(&TranscriptEvent::Loaded {
            srt_url: "http://x/a.srt".into(),
            cues: vec![cue.clone()],
        });
        assert_eq!(state.cues(), [cue]);
        assert_eq!(state.cue_at(1.5).map(|c| c.text.as_str()), Some("Hi"));
        state.export(ExportFormat::Vtt);
        match state.take_actions().as_slice() {
            [
                Action::SaveText {
                    file_name,
                    contents,
                },
            ] => {
                assert_eq!(file_name, "a-transcript.vtt");
                assert!(contents.starts_with("WEBVTT"));
            }
            other => panic!("{other:?}"),
        }
    }
}
