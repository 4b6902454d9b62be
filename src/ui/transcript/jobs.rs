//! Which transcription belongs to a video or sound on screen: the newest transcription
//! job whose source is that file's address, and how far it got. Starting one from a
//! result (`ResultAction::Transcribe`) is a job at once with the default options.

use crate::api::transcription::{self, TranscriptionRequest};
use crate::api::{AudioJobRequest, GenerationKind, GenerationSpec};
use crate::engine::{Command, JobPhase, JobRecord, LocalJobId};
use crate::ui::model::Model;

/// The hover text of every Transcribe entry.
pub const TRANSCRIBE_HINT: &str = "Get the words as text and subtitles, shown beside the player \
(priced per started minute of sound, at least one)";

/// A transcription of the file on screen, as far as it got.
#[derive(Clone, Debug, PartialEq)]
pub enum TranscriptJob {
    /// Queued, being sent, or running; `progress_percent` 0..=100.
    Working {
        local_id: LocalJobId,
        progress_percent: f32,
    },
    Done {
        local_id: LocalJobId,
        srt_url: String,
    },
    /// Failed, refused or cancelled, in words.
    Failed {
        local_id: LocalJobId,
        message: String,
    },
}

/// The transcription request of a job, when it is one.
pub fn request_of(job: &JobRecord) -> Option<&TranscriptionRequest> {
    match &job.spec.audio {
        Some(AudioJobRequest::Transcription(request)) => Some(request),
        _ => None,
    }
}

/// The newest transcription of `source_url` among the jobs the studio follows.
pub fn for_source(model: &Model, source_url: &str) -> Option<TranscriptJob> {
    let source_url = source_url.trim();
    if source_url.is_empty() {
        return None;
    }
    let job = model
        .jobs
        .values()
        .filter(|job| job.spec.kind == GenerationKind::Transcription)
        .filter(|job| request_of(job).is_some_and(|r| r.audio_url.trim() == source_url))
        // A finished transcript wins over a newer attempt that failed.
        .max_by_key(|job| {
            (
                !matches!(
                    job.phase,
                    JobPhase::Failed { .. } | JobPhase::Rejected { .. } | JobPhase::Cancelled
                ),
                job.local_id,
            )
        })?;
    let local_id = job.local_id;
    Some(match &job.phase {
        JobPhase::Completed => match job.result.as_ref().and_then(transcription::srt_url) {
            Some(srt_url) => TranscriptJob::Done {
                local_id,
                srt_url: srt_url.to_owned(),
            },
            None => TranscriptJob::Failed {
                local_id,
                message: "The transcription finished without subtitles.".to_owned(),
            },
        },
        JobPhase::Failed { failure } => TranscriptJob::Failed {
            local_id,
            message: if failure.message.trim().is_empty() {
                "The transcription failed.".to_owned()
            } else {
                format!("The transcription failed: {}", failure.message.trim())
            },
        },
        JobPhase::Rejected { error } => TranscriptJob::Failed {
            local_id,
            message: crate::ui::job_wording::rejected_text(error).0,
        },
        JobPhase::Cancelled => TranscriptJob::Failed {
            local_id,
            message: "The transcription was cancelled.".to_owned(),
        },
        JobPhase::Queued { .. }
        | JobPhase::Submitting
        | JobPhase::Unconfirmed { .. }
        | JobPhase::Running { .. } => TranscriptJob::Working {
            local_id,
            progress_percent: job.progress_percent,
        },
    })
}

/// The credits a transcription of a source of `source_secs` costs, for a button
/// ("Transcribe · 1 credit"); `None` while the catalog has no price.
pub fn cost_estimate(model: &Model, source_secs: Option<f64>) -> Option<f64> {
    let price = transcription::price(model.catalog.value.as_deref().unwrap_or(&[]), source_secs)?;
    let minutes = f64::from(price.minutes.unwrap_or(1));
    Some(price.per_minute_high * minutes)
}

/// The command that transcribes `source_url` with the default options (language
/// detected, subtitles of 12 words a line, 2 lines).
pub fn submit_command(
    source_url: &str,
    project_id: Option<String>,
    credits_estimate: Option<f64>,
) -> Command {
    let request = TranscriptionRequest {
        project_id,
        ..TranscriptionRequest::of(source_url)
    };
    Command::Submit {
        spec: GenerationSpec::for_audio(AudioJobRequest::Transcription(request)),
        model_label: "Auto".to_owned(),
        credits_estimate,
    }
}

/// A finished transcription on the Create canvas: the start of its words and its files
/// (copy the text, save the SRT or the text). The transcript itself shows beside the
/// player when its source is opened.
pub fn result_card_ui(
    ui: &mut egui::Ui,
    job: &JobRecord,
    width: f32,
    actions: &mut Vec<crate::ui::model::Action>,
) {
    use crate::ui::model::Action;
    use crate::ui::{tokens, widgets};
    const PREVIEW_CHARS: usize = 400;
    let Some(result) = job.result.as_ref() else {
        return;
    };
    let source = request_of(job)
        .map(|r| crate::ui::dialogs::suggested_file_name(&r.audio_url))
        .unwrap_or_default();
    tokens::card_frame().show(ui, |ui| {
        ui.set_width(width - 24.0);
        ui.label(
            egui::RichText::new(format!("Transcript · {source}"))
                .strong()
                .color(tokens::palette().text),
        );
        let text = result.text.as_deref().unwrap_or_default().trim();
        if text.is_empty() {
            widgets::muted(ui, "No words were heard.");
        } else {
            let preview: String = text.chars().take(PREVIEW_CHARS).collect();
            let more = if text.chars().count() > PREVIEW_CHARS {
                "…"
            } else {
                ""
            };
            ui.label(format!("{preview}{more}"));
        }
        ui.horizontal_wrapped(|ui| {
            if !text.is_empty() && ui.add(widgets::subtle_button("Copy text")).clicked() {
                actions.push(Action::CopyText {
                    text: text.to_owned(),
                    what: "Transcript".to_owned(),
                });
            }
            if let Some(srt) = transcription::srt_url(result)
                && ui
                    .add(widgets::subtle_button("Save SRT…"))
                    .on_hover_text("Save the subtitles (.srt)")
                    .clicked()
            {
                actions.push(Action::SaveAs {
                    url: srt.to_owned(),
                });
            }
            if let Some(txt) = result.txt_url.as_deref().filter(|u| !u.is_empty())
                && ui
                    .add(widgets::subtle_button("Save text…"))
                    .on_hover_text("Save the words as plain text (.txt)")
                    .clicked()
            {
                actions.push(Action::SaveAs {
                    url: txt.to_owned(),
                });
            }
        });
        widgets::muted(
            ui,
            "Open the source in the viewer to read it beside the player, with subtitles.",
        );
    });
}
