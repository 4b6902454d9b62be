//! Create's Transcription form: the source (a web address — a Library item's or an
//! output's — or a local file, uploaded first as edit sources are), the language, speaker
//! labels, and the subtitle shape (words per line 1–18, lines per subtitle 1–4). The price
//! (the catalog's `stt` credit per started minute, at least one) is shown live once the
//! source's length is known: a local file's is read off the UI thread
//! (`TranscriptCommand::Probe`), a result's comes with it.
//!
//! The state is plain data; the engine's answers come in through `upload_*` and
//! [`TranscriptionForm::handle_event`]. The layout returns actions.

use crate::api::transcription::{
    self, DEFAULT_LINES_PER_SUBTITLE, DEFAULT_WORDS_PER_LINE, MAX_LINES_PER_SUBTITLE,
    MAX_WORDS_PER_LINE, MIN_LINES_PER_SUBTITLE, MIN_WORDS_PER_LINE, TranscriptionProblem,
    TranscriptionRequest,
};
use crate::api::{AudioJobRequest, GenerationSpec};
use crate::engine::{Command, TranscriptCommand, TranscriptEvent};
use crate::ui::format;
use crate::ui::model::{Action, Model};
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{RichText, Ui, Vec2};
use std::path::{Path, PathBuf};

/// Languages offered (the service detects the language when none is chosen).
pub const LANGUAGES: [(&str, &str); 13] = [
    ("", "Detect automatically"),
    ("en", "English"),
    ("es", "Spanish"),
    ("fr", "French"),
    ("de", "German"),
    ("it", "Italian"),
    ("pt", "Portuguese"),
    ("nl", "Dutch"),
    ("he", "Hebrew"),
    ("ar", "Arabic"),
    ("ja", "Japanese"),
    ("ko", "Korean"),
    ("zh", "Chinese"),
];

/// A local file on its way to the service.
#[derive(Clone, Debug, PartialEq)]
pub struct Upload {
    pub path: PathBuf,
    pub progress: f32,
    pub error: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TranscriptionForm {
    /// The address typed, or the uploaded file's, or a result's.
    pub source_url: String,
    /// What the source is called (a file name, a result's title).
    pub source_label: String,
    pub upload: Option<Upload>,
    /// The source's length once known.
    pub duration_secs: Option<f64>,
    /// "" = detect.
    pub language: String,
    pub diarize: bool,
    pub words_per_line: u32,
    pub lines_per_subtitle: u32,
    /// The refusal of the last Transcribe, at its field.
    pub problem: Option<TranscriptionProblem>,
}

impl Default for TranscriptionForm {
    fn default() -> Self {
        TranscriptionForm {
            source_url: String::new(),
            source_label: String::new(),
            upload: None,
            duration_secs: None,
            language: String::new(),
            diarize: false,
            words_per_line: DEFAULT_WORDS_PER_LINE,
            lines_per_subtitle: DEFAULT_LINES_PER_SUBTITLE,
            problem: None,
        }
    }
}

impl TranscriptionForm {
    /// A result or Library item as the source (its length when known).
    pub fn set_source_url(&mut self, url: &str, label: &str, duration_secs: Option<f64>) {
        self.source_url = url.to_owned();
        self.source_label = label.to_owned();
        self.upload = None;
        self.duration_secs = duration_secs.filter(|d| d.is_finite() && *d > 0.0);
        self.problem = None;
    }

    /// A local file: uploaded first, its length read meanwhile.
    pub fn choose_file(&mut self, path: PathBuf) -> Vec<Action> {
        self.source_url.clear();
        self.source_label = file_name(&path);
        self.duration_secs = None;
        self.problem = None;
        self.upload = Some(Upload {
            path: path.clone(),
            progress: 0.0,
            error: None,
        });
        vec![
            Action::Send(Box::new(Command::UploadSource { path: path.clone() })),
            Action::Send(Box::new(Command::Transcript(TranscriptCommand::Probe {
                path,
            }))),
        ]
    }

    fn uploading(&mut self, path: &Path) -> Option<&mut Upload> {
        self.upload.as_mut().filter(|u| u.path == path)
    }

    pub fn upload_progressed(&mut self, path: &Path, bytes_done: u64, bytes_total: u64) {
        if let Some(upload) = self.uploading(path)
            && bytes_total > 0
        {
            upload.progress = (bytes_done as f32 / bytes_total as f32).clamp(0.0, 1.0);
        }
    }

    /// An upload ended; `true` when it was this form's.
    pub fn upload_finished(&mut self, path: &Path, result: &Result<String, String>) -> bool {
        let Some(upload) = self.uploading(path) else {
            return false;
        };
        match result {
            Ok(url) => {
                self.upload = None;
                self.source_url = url.clone();
            }
            Err(error) => upload.error = Some(error.clone()),
        }
        true
    }

    /// A local file's length (`TranscriptEvent::Probed`).
    pub fn handle_event(&mut self, event: &TranscriptEvent) {
        if let TranscriptEvent::Probed {
            path,
            duration_secs,
        } = event
            && (self.uploading(path).is_some() || self.source_label == file_name(path))
        {
            self.duration_secs = *duration_secs;
        }
    }

    pub fn request(&self, project_id: Option<&str>) -> TranscriptionRequest {
        TranscriptionRequest {
            audio_url: self.source_url.trim().to_owned(),
            language: Some(self.language.clone()).filter(|l| !l.is_empty()),
            diarize: self.diarize,
            generate_srt: true,
            words_per_line: Some(self.words_per_line),
            lines_per_subtitle: Some(self.lines_per_subtitle),
            project_id: project_id.map(str::to_owned),
        }
    }

    /// Credits this transcription will cost (the highest per-minute price when the
    /// catalog lists several), once the length is known.
    pub fn estimate(&self, model: &Model) -> Option<f64> {
        transcription::price(catalog(model), self.duration_secs)?
            .total()
            .map(|(_, high)| high)
    }

    /// Check and submit; refused at the field otherwise.
    pub fn submit(&mut self, model: &Model, project_id: Option<&str>) -> Vec<Action> {
        if self.upload.is_some() {
            self.problem = Some(TranscriptionProblem::Source(
                "Wait for the file to finish uploading.".to_owned(),
            ));
            return Vec::new();
        }
        let request = self.request(project_id);
        if let Err(problem) = request.check(self.duration_secs) {
            self.problem = Some(problem);
            return Vec::new();
        }
        self.problem = None;
        let credits_estimate = self.estimate(model);
        vec![Action::Send(Box::new(Command::Submit {
            spec: GenerationSpec::for_audio(AudioJobRequest::Transcription(request)),
            model_label: "Auto".to_owned(),
            credits_estimate,
        }))]
    }

    /// "Transcribe · 3 credits", or the price per minute until the length is known.
    pub fn button_text(&self, model: &Model) -> String {
        match transcription::price(catalog(model), self.duration_secs) {
            Some(price) => match price.total() {
                Some((low, high)) if (high - low).abs() < f64::EPSILON => {
                    format!("Transcribe · {}", format::credits(high))
                }
                Some((low, high)) => format!("Transcribe · {}", format::credit_range(low, high)),
                None => format!(
                    "Transcribe · {} / min",
                    format::credits(price.per_minute_high)
                ),
            },
            None => "Transcribe".to_owned(),
        }
    }
}

fn catalog(model: &Model) -> &[crate::api::ModelRecord] {
    model.catalog.value.as_deref().unwrap_or(&[])
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// The form's cards: source, then options.
pub fn form_ui(ui: &mut Ui, form: &mut TranscriptionForm, actions: &mut Vec<Action>) {
    tokens::card_frame().show(ui, |ui| {
        ui.set_width(ui.available_width());
        widgets::section_label(ui, "Audio or video");
        let field = ui.add(
            egui::TextEdit::singleline(&mut form.source_url)
                .hint_text("https://… (a Library item's or any web address)")
                .desired_width(f32::INFINITY),
        );
        widgets::name_widget(&field, "Source address");
        if field.changed() {
            form.upload = None;
            form.source_label.clear();
            form.duration_secs = None;
            form.problem = None;
        }
        ui.horizontal(|ui| {
            let choose = ui
                .add(widgets::secondary_button("Choose file…"))
                .on_hover_text("A sound or video on this computer (uploaded first)");
            if choose.clicked() {
                actions.push(Action::PickTranscriptionSource);
            }
            if let Some(upload) = &form.upload {
                match &upload.error {
                    Some(error) => widgets::field_error(ui, &format!("Upload failed: {error}")),
                    None => {
                        ui.add(
                            egui::ProgressBar::new(upload.progress)
                                .desired_width(120.0)
                                .text(format!("Uploading {}", form.source_label)),
                        );
                    }
                }
            } else if !form.source_label.is_empty() {
                widgets::muted(ui, &form.source_label);
            }
        });
        match form.duration_secs {
            Some(secs) => widgets::muted(
                ui,
                format!(
                    "Length {} · billed as {} min",
                    crate::ui::transcript::clock(secs),
                    transcription::billed_minutes(secs)
                ),
            ),
            None if !form.source_url.trim().is_empty() => widgets::muted(
                ui,
                "The price shows per started minute until the length is known.",
            ),
            None => ui.label(""),
        };
        if let Some(TranscriptionProblem::Source(message)) = &form.problem {
            widgets::field_error(ui, message);
        }
    });
    ui.add_space(tokens::SPACE_M);
    tokens::card_frame().show(ui, |ui| {
        ui.set_width(ui.available_width());
        widgets::section_label(ui, "Language");
        let current = LANGUAGES
            .iter()
            .find(|(code, _)| *code == form.language)
            .map_or(form.language.as_str(), |(_, name)| name)
            .to_owned();
        let combo = egui::ComboBox::from_id_salt("transcription_language")
            .selected_text(current)
            .width(ui.available_width().min(260.0))
            .show_ui(ui, |ui| {
                for (code, name) in LANGUAGES {
                    ui.selectable_value(&mut form.language, code.to_owned(), name);
                }
            });
        widgets::name_widget(&combo.response, "Language");
        ui.add_space(tokens::SPACE_S);
        ui.checkbox(&mut form.diarize, "Speaker labels")
            .on_hover_text("Name who speaks (Speaker 1, Speaker 2…) in the transcript");
        ui.add_space(tokens::SPACE_S);
        widgets::section_label(ui, "Subtitles");
        let words = ui.add(
            egui::Slider::new(
                &mut form.words_per_line,
                MIN_WORDS_PER_LINE..=MAX_WORDS_PER_LINE,
            )
            .text("words per line"),
        );
        widgets::name_widget(&words, "Words per line");
        let lines = ui.add(
            egui::Slider::new(
                &mut form.lines_per_subtitle,
                MIN_LINES_PER_SUBTITLE..=MAX_LINES_PER_SUBTITLE,
            )
            .text("lines per subtitle"),
        );
        widgets::name_widget(&lines, "Lines per subtitle");
        if let Some(
            TranscriptionProblem::WordsPerLine(m) | TranscriptionProblem::LinesPerSubtitle(m),
        ) = &form.problem
        {
            widgets::field_error(ui, m);
        }
    });
}

/// The Transcribe button under the form, with its price.
pub fn submit_row_ui(
    ui: &mut Ui,
    model: &Model,
    form: &TranscriptionForm,
    actions: &mut Vec<Action>,
) {
    let button = widgets::primary_button(form.button_text(model))
        .min_size(Vec2::new(ui.available_width(), 40.0));
    if ui
        .add(button)
        .on_hover_text("Billed per started minute of the source, at least one minute.")
        .clicked()
    {
        actions.push(Action::SubmitCompose);
    }
    if let Some(problem) = &form.problem {
        widgets::field_error(ui, &problem.to_string());
    } else {
        ui.label(
            RichText::new("The transcript shows beside the player when you open the source.")
                .size(tokens::TEXT_SMALL)
                .color(tokens::palette().text_faint),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ModelRecord;

    fn model_with_stt(credit: f64) -> Model {
        let mut model = Model::default();
        model.catalog.value = Some(vec![ModelRecord {
            identifier: "openai/whisper-large-v3".into(),
            types: vec!["stt".into()],
            credit: Some(credit),
            ..ModelRecord::default()
        }]);
        model
    }

    #[test]
    fn the_price_is_per_started_minute_and_shows_once_the_length_is_known() {
        let model = model_with_stt(2.0);
        let mut form = TranscriptionForm::default();
        form.set_source_url("https://x/a.mp4", "a", None);
        assert_eq!(form.button_text(&model), "Transcribe · 2 credits / min");
        assert_eq!(form.estimate(&model), None);
        form.set_source_url("https://x/a.mp4", "a", Some(12.0));
        assert_eq!(form.button_text(&model), "Transcribe · 2 credits");
        form.set_source_url("https://x/a.mp4", "a", Some(125.0));
        assert_eq!(form.button_text(&model), "Transcribe · 6 credits");
        assert_eq!(form.estimate(&model), Some(6.0));
    }

    #[test]
    fn a_local_file_is_uploaded_then_sent_by_its_address() {
        let model = model_with_stt(1.0);
        let mut form = TranscriptionForm::default();
        let path = PathBuf::from("/tmp/talk.mp3");
        let actions = form.choose_file(path.clone());
        assert_eq!(actions.len(), 2, "upload and probe");
        assert!(
            form.submit(&model, None).is_empty(),
            "refused while uploading"
        );
        assert!(matches!(
            form.problem,
            Some(TranscriptionProblem::Source(_))
        ));
        form.handle_event(&TranscriptEvent::Probed {
            path: path.clone(),
            duration_secs: Some(61.0),
        });
        assert!(form.upload_finished(&path, &Ok("https://cdn/talk.mp3".into())));
        assert_eq!(form.button_text(&model), "Transcribe · 2 credits");
        form.diarize = true;
        form.language = "de".into();
        let sent = form.submit(&model, Some("p1"));
        let [Action::Send(command)] = sent.as_slice() else {
            panic!("{sent:?}");
        };
        let Command::Submit {
            spec,
            credits_estimate,
            ..
        } = command.as_ref()
        else {
            panic!("{command:?}");
        };
        assert_eq!(*credits_estimate, Some(2.0));
        let Some(AudioJobRequest::Transcription(request)) = &spec.audio else {
            panic!("{spec:?}");
        };
        assert_eq!(request.audio_url, "https://cdn/talk.mp3");
        assert_eq!(request.language.as_deref(), Some("de"));
        assert!(request.diarize);
        assert_eq!(request.project_id.as_deref(), Some("p1"));
    }
}
