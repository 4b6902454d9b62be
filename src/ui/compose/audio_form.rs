//! Create's sound forms: Music (style, lyrics or Instrumental, vocal gender, a length where
//! the model offers lengths), Speech (the voice picker and a language; the text is the
//! form's prompt, with its character count and price) and Sound effects (a length or
//! Automatic, Loop). The state and the request it builds are here; the prompt and the
//! model card stay in `compose/mod.rs`.

use super::voice_picker::{self, VoicePicker};
use crate::api::validate::{Field, sound_range_secs};
use crate::api::{
    AudioJobRequest, GenerationKind, GenerationSpec, ModelRecord, MusicRequest, SoundRequest,
    SpeechRequest,
};
use crate::ui::format;
use crate::ui::model::{Action, Model};
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{RichText, TextEdit, Ui};

/// Music's vocal gender as offered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VocalGender {
    #[default]
    Any,
    Male,
    Female,
}

impl VocalGender {
    /// The wire value ("m" / "f"); `None` lets the model choose.
    pub fn wire(self) -> Option<&'static str> {
        match self {
            VocalGender::Any => None,
            VocalGender::Male => Some("m"),
            VocalGender::Female => Some("f"),
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            VocalGender::Any => "Any",
            VocalGender::Male => "Male",
            VocalGender::Female => "Female",
        }
    }
    const ALL: [VocalGender; 3] = [VocalGender::Any, VocalGender::Male, VocalGender::Female];
}

/// The sound forms' own fields (the prompt, model and project are the form's).
#[derive(Clone, Debug, Default)]
pub struct AudioForm {
    // ---- Music ----
    pub style: String,
    pub lyrics: String,
    pub instrumental: bool,
    pub vocal_gender: VocalGender,
    /// A length the model offers; `None` = the model's own.
    pub music_duration_secs: Option<f64>,
    // ---- Speech ----
    pub voices: VoicePicker,
    /// The request's `language` code; `None` = the voice's own.
    pub language: Option<String>,
    // ---- Sound effects ----
    /// `None` = Automatic.
    pub sound_duration_secs: Option<f64>,
    pub sound_loop: bool,
}

/// What Create remembers of the sound forms between runs (`CreateMemory::audio`).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct AudioMemory {
    pub style: String,
    pub lyrics: String,
    pub instrumental: bool,
    /// "m" / "f"; absent = Any.
    pub vocal_gender: Option<String>,
    pub music_duration_secs: Option<f64>,
    /// The chosen voice: id, name, summary.
    pub voice: Option<(String, String, String)>,
    pub language: Option<String>,
    pub sound_duration_secs: Option<f64>,
    pub sound_loop: bool,
}

impl AudioMemory {
    /// `None` while nothing differs from a fresh form (older settings stay as they were).
    pub fn of(form: &AudioForm) -> Option<Self> {
        let memory = Self {
            style: form.style.clone(),
            lyrics: form.lyrics.clone(),
            instrumental: form.instrumental,
            vocal_gender: form.vocal_gender.wire().map(str::to_owned),
            music_duration_secs: form.music_duration_secs,
            voice: form
                .voices
                .chosen
                .as_ref()
                .map(|c| (c.id.clone(), c.name.clone(), c.summary.clone())),
            language: form.language.clone(),
            sound_duration_secs: form.sound_duration_secs,
            sound_loop: form.sound_loop,
        };
        (memory != Self::default()).then_some(memory)
    }

    pub fn restore_into(&self, form: &mut AudioForm) {
        form.style = self.style.clone();
        form.lyrics = self.lyrics.clone();
        form.instrumental = self.instrumental;
        form.vocal_gender = match self.vocal_gender.as_deref() {
            Some("m") => VocalGender::Male,
            Some("f") => VocalGender::Female,
            _ => VocalGender::Any,
        };
        form.music_duration_secs = self
            .music_duration_secs
            .filter(|d| d.is_finite() && *d > 0.0);
        form.voices.chosen = self
            .voice
            .as_ref()
            .filter(|(id, _, _)| !id.trim().is_empty())
            .map(|(id, name, summary)| voice_picker::ChosenVoice {
                id: id.clone(),
                name: name.clone(),
                summary: summary.clone(),
            });
        form.language = self.language.clone();
        form.sound_duration_secs = self
            .sound_duration_secs
            .filter(|d| d.is_finite() && *d > 0.0);
        form.sound_loop = self.sound_loop;
    }
}

/// A sound effect's length when Automatic is turned off and the model lists none.
pub const DEFAULT_SOUND_SECS: f64 = 5.0;

impl AudioForm {
    /// The body this form sends for `kind`.
    pub fn job(
        &self,
        kind: GenerationKind,
        prompt: &str,
        model_id: Option<String>,
        project_id: Option<String>,
    ) -> Option<AudioJobRequest> {
        let prompt = prompt.trim().to_owned();
        let text_or_none = |s: &str| Some(s.trim().to_owned()).filter(|s| !s.is_empty());
        Some(match kind {
            GenerationKind::Music => AudioJobRequest::Music(MusicRequest {
                prompt,
                model: model_id,
                style: text_or_none(&self.style),
                instrumental: self.instrumental,
                lyrics: text_or_none(&self.lyrics).filter(|_| !self.instrumental),
                vocal_gender: self
                    .vocal_gender
                    .wire()
                    .filter(|_| !self.instrumental)
                    .map(str::to_owned),
                duration: self.music_duration_secs,
                project_id,
            }),
            GenerationKind::Speech => AudioJobRequest::Speech(SpeechRequest {
                text: prompt,
                voice: self.voices.voice_value(),
                model: model_id,
                language: self.language.clone(),
                project_id,
            }),
            GenerationKind::Sound => AudioJobRequest::Sound(SoundRequest {
                prompt,
                model: model_id,
                duration: self.sound_duration_secs,
                sound_loop: self.sound_loop,
                project_id,
            }),
            _ => return None,
        })
    }

    /// The spec for `kind` (an audio kind).
    pub fn spec(
        &self,
        kind: GenerationKind,
        prompt: &str,
        model_id: Option<String>,
        project_id: Option<String>,
    ) -> GenerationSpec {
        match self.job(kind, prompt, model_id, project_id) {
            Some(job) => GenerationSpec::for_audio(job),
            None => GenerationSpec::new(kind, Default::default()),
        }
    }

    /// Keep the lengths inside what `model` offers: music's only from its list (none
    /// without one), a sound's from its list or automatic.
    pub fn normalize(&mut self, kind: GenerationKind, model: Option<&ModelRecord>) {
        let offered = model
            .map(|m| m.supported_durations.as_slice())
            .unwrap_or(&[]);
        let listed = |secs: f64| offered.iter().any(|d| (d - secs).abs() < 1e-6);
        match kind {
            GenerationKind::Music if self.music_duration_secs.is_some_and(|s| !listed(s)) => {
                self.music_duration_secs = None;
            }
            GenerationKind::Sound => {
                if let Some(secs) = self.sound_duration_secs {
                    if !offered.is_empty() && !listed(secs) {
                        self.sound_duration_secs = None;
                    } else if offered.is_empty() {
                        let (min, max) = sound_range_secs(model);
                        self.sound_duration_secs = Some(secs.clamp(min, max));
                    }
                }
            }
            _ => {}
        }
    }

    /// Put a finished audio job's settings back (Reuse).
    pub fn fill_from_job(&mut self, job: &AudioJobRequest) {
        match job {
            AudioJobRequest::Music(music) => {
                self.style = music.style.clone().unwrap_or_default();
                self.lyrics = music.lyrics.clone().unwrap_or_default();
                self.instrumental = music.instrumental;
                self.vocal_gender = match music.vocal_gender.as_deref() {
                    Some("m" | "male") => VocalGender::Male,
                    Some("f" | "female") => VocalGender::Female,
                    _ => VocalGender::Any,
                };
                self.music_duration_secs = music.duration;
            }
            AudioJobRequest::Speech(speech) => {
                let known = self
                    .voices
                    .known_voices()
                    .and_then(|voices| voices.iter().find(|v| v.matches(&speech.voice)))
                    .map(voice_picker::ChosenVoice::of);
                self.voices.chosen = Some(known.unwrap_or(voice_picker::ChosenVoice {
                    id: speech.voice.clone(),
                    name: speech.voice.clone(),
                    summary: String::new(),
                }));
                self.language = speech.language.clone();
            }
            AudioJobRequest::Sound(sound) => {
                self.sound_duration_secs = sound.duration;
                self.sound_loop = sound.sound_loop;
            }
            AudioJobRequest::Transcription(_) => {}
        }
    }
}

/// The sound request behind a Library audio item (its prompt or text, model and the
/// kind's own fields from its metadata), for Reuse and Vary; `None` when it is not a
/// generated sound or its prompt is unknown.
pub fn audio_spec_of_item(item: &crate::api::media::MediaItem) -> Option<GenerationSpec> {
    let meta = |keys: &[&str]| {
        keys.iter()
            .filter_map(|k| item.metadata.get(*k)?.as_str())
            .map(str::trim)
            .find(|v| !v.is_empty())
            .map(str::to_owned)
    };
    let flag = |key: &str| item.metadata.get(key).and_then(serde_json::Value::as_bool);
    let marker = format!(
        "{} {}",
        item.generation_type.as_deref().unwrap_or_default(),
        meta(&["category"]).unwrap_or_default()
    )
    .to_ascii_lowercase();
    let kind = if marker.contains("music") {
        GenerationKind::Music
    } else if marker.contains("speech") {
        GenerationKind::Speech
    } else if marker.contains("sound") {
        GenerationKind::Sound
    } else {
        return None;
    };
    let prompt = item.prompt_text()?.to_owned();
    let model = meta(&["model", "modelIdentifier", "model_identifier"]);
    let project_id = item.project_id.clone();
    let duration = item
        .metadata
        .get("duration")
        .and_then(serde_json::Value::as_f64)
        .or(item.duration);
    let job = match kind {
        GenerationKind::Music => AudioJobRequest::Music(MusicRequest {
            prompt,
            model,
            style: meta(&["style"]),
            instrumental: flag("instrumental").unwrap_or(false),
            lyrics: meta(&["lyrics"]),
            vocal_gender: None,
            duration: None,
            project_id,
        }),
        GenerationKind::Speech => AudioJobRequest::Speech(SpeechRequest {
            text: prompt,
            voice: meta(&["voiceId", "voice_id", "voice"]).unwrap_or_default(),
            model,
            language: meta(&["language"]),
            project_id,
        }),
        _ => AudioJobRequest::Sound(SoundRequest {
            prompt,
            model,
            duration,
            sound_loop: flag("loop").unwrap_or(false),
            project_id,
        }),
    };
    Some(GenerationSpec::for_audio(job))
}

/// The model whose limits and lengths the form follows: the chosen one, or under Auto the
/// type's only model (the service's fixed default for music, speech and sound).
pub fn effective_model<'m>(
    model: &'m Model,
    kind: GenerationKind,
    selected: Option<&'m ModelRecord>,
) -> Option<&'m ModelRecord> {
    selected.or_else(
        || match model.models_of_kind(kind.catalog_type()).as_slice() {
            [only] => Some(*only),
            _ => None,
        },
    )
}

/// The card under the prompt with the kind's own fields.
pub fn audio_card_ui(
    ui: &mut Ui,
    model: &Model,
    form: &mut super::ComposeForm,
    actions: &mut Vec<Action>,
) {
    let record = effective_model(model, form.kind, form.selected_model(model)).cloned();
    tokens::card_frame().show(ui, |ui| {
        ui.set_width(ui.available_width());
        match form.kind {
            GenerationKind::Music => music_ui(ui, record.as_ref(), form),
            GenerationKind::Speech => speech_ui(ui, form, actions),
            GenerationKind::Sound => sound_ui(ui, record.as_ref(), form),
            _ => {}
        }
    });
}

fn music_ui(ui: &mut Ui, record: Option<&ModelRecord>, form: &mut super::ComposeForm) {
    widgets::section_label(ui, "Style");
    let style = ui.add(
        TextEdit::singleline(&mut form.audio.style)
            .hint_text("lo-fi hip hop, warm piano, 80 bpm")
            .desired_width(ui.available_width()),
    );
    widgets::name_widget(&style, "Style");
    ui.add_space(tokens::SPACE_S);
    let instrumental = ui
        .checkbox(&mut form.audio.instrumental, "Instrumental")
        .on_hover_text("No vocals: lyrics and the vocal gender are not sent.");
    widgets::name_widget(&instrumental, "Instrumental");
    ui.add_space(tokens::SPACE_XS);
    let singing = !form.audio.instrumental;
    ui.add_enabled_ui(singing, |ui| {
        widgets::section_label(ui, "Lyrics");
        let lyrics = ui
            .add(
                TextEdit::multiline(&mut form.audio.lyrics)
                    .hint_text("Leave empty to have lyrics written for you")
                    .desired_rows(4)
                    .desired_width(f32::INFINITY),
            )
            .on_disabled_hover_text("An instrumental has no lyrics.");
        widgets::name_widget(&lyrics, "Lyrics");
        super::attention::mark_create(form, Field::Lyrics, &lyrics, true);
        for message in form.messages_for(&Field::Lyrics) {
            widgets::field_error(ui, message);
        }
        ui.add_space(tokens::SPACE_XS);
        widgets::section_label(ui, "Vocal gender");
        let labels: Vec<String> = VocalGender::ALL.iter().map(|g| g.label().into()).collect();
        let mut current = form.audio.vocal_gender.label().to_owned();
        let first = super::choice_row_ui(ui, &labels, &mut current);
        super::attention::mark_create(form, Field::VocalGender, &first, true);
        if let Some(gender) = VocalGender::ALL.iter().find(|g| g.label() == current) {
            form.audio.vocal_gender = *gender;
        }
        for message in form.messages_for(&Field::VocalGender) {
            widgets::field_error(ui, message);
        }
    });
    let offered = record
        .map(|m| m.supported_durations.clone())
        .unwrap_or_default();
    if !offered.is_empty() {
        ui.add_space(tokens::SPACE_S);
        widgets::section_label(ui, "Length");
        let mut labels = vec!["Model's choice".to_owned()];
        labels.extend(offered.iter().map(|d| format::seconds_label(*d)));
        let mut current = form
            .audio
            .music_duration_secs
            .map_or_else(|| labels[0].clone(), format::seconds_label);
        let first = super::choice_row_ui(ui, &labels, &mut current);
        super::attention::mark_create(form, Field::Duration, &first, true);
        form.audio.music_duration_secs = labels
            .iter()
            .position(|l| *l == current)
            .and_then(|i| i.checked_sub(1))
            .map(|i| offered[i]);
    }
    for message in form.messages_for(&Field::Duration) {
        widgets::field_error(ui, message);
    }
}

fn speech_ui(ui: &mut Ui, form: &mut super::ComposeForm, actions: &mut Vec<Action>) {
    let messages = voice_picker::voice_messages(form);
    let messages: Vec<&str> = messages.iter().map(String::as_str).collect();
    let first = voice_picker::voice_picker_ui(ui, &mut form.audio.voices, &messages, actions);
    super::attention::mark_create(form, Field::Voice, &first, true);
    ui.add_space(tokens::SPACE_S);
    widgets::section_label(ui, "Language");
    let codes = form.audio.voices.language_codes();
    let selected = form
        .audio
        .language
        .clone()
        .unwrap_or_else(|| "The voice's own".to_owned());
    let combo = egui::ComboBox::from_id_salt("speech_language")
        .selected_text(selected)
        .show_ui(ui, |ui| {
            if ui
                .selectable_label(form.audio.language.is_none(), "The voice's own")
                .clicked()
            {
                form.audio.language = None;
            }
            for code in codes {
                let on = form.audio.language.as_deref() == Some(code.as_str());
                if ui.selectable_label(on, &code).clicked() {
                    form.audio.language = Some(code);
                }
            }
        });
    widgets::name_widget(&combo.response, "Language");
    super::attention::mark_create(form, Field::Language, &combo.response, true);
    for message in form.messages_for(&Field::Language) {
        widgets::field_error(ui, message);
    }
}

fn sound_ui(ui: &mut Ui, record: Option<&ModelRecord>, form: &mut super::ComposeForm) {
    widgets::section_label(ui, "Length");
    let offered = record
        .map(|m| m.supported_durations.clone())
        .unwrap_or_default();
    let first = if offered.is_empty() {
        let (min, max) = sound_range_secs(record);
        ui.horizontal(|ui| {
            let mut automatic = form.audio.sound_duration_secs.is_none();
            let toggle = ui.checkbox(&mut automatic, "Automatic");
            widgets::name_widget(&toggle, "Automatic length");
            if automatic {
                form.audio.sound_duration_secs = None;
            } else {
                let mut secs = form
                    .audio
                    .sound_duration_secs
                    .unwrap_or(DEFAULT_SOUND_SECS)
                    .clamp(min, max);
                let value = ui.add(
                    egui::DragValue::new(&mut secs)
                        .range(min..=max)
                        .speed(0.1)
                        .fixed_decimals(1)
                        .suffix(" s"),
                );
                widgets::name_widget(&value, "Length in seconds");
                form.audio.sound_duration_secs = Some(secs);
            }
            toggle
        })
        .inner
    } else {
        let mut labels = vec!["Automatic".to_owned()];
        labels.extend(offered.iter().map(|d| format::seconds_label(*d)));
        let mut current = form
            .audio
            .sound_duration_secs
            .map_or_else(|| labels[0].clone(), format::seconds_label);
        let first = super::choice_row_ui(ui, &labels, &mut current);
        form.audio.sound_duration_secs = labels
            .iter()
            .position(|l| *l == current)
            .and_then(|i| i.checked_sub(1))
            .map(|i| offered[i]);
        first
    };
    super::attention::mark_create(form, Field::Duration, &first, true);
    for message in form.messages_for(&Field::Duration) {
        widgets::field_error(ui, message);
    }
    ui.add_space(tokens::SPACE_S);
    let looped = ui
        .checkbox(&mut form.audio.sound_loop, "Loop")
        .on_hover_text("Make the end meet the start, to repeat seamlessly.");
    widgets::name_widget(&looped, "Loop");
}

/// The live line under the speech text: its character count and what it costs.
pub fn speech_price_line(model: &Model, form: &super::ComposeForm) -> String {
    let characters = crate::api::pricing::speech_characters(&form.prompt);
    let credit = match effective_model(model, form.kind, form.selected_model(model)) {
        Some(record) => record.credit,
        None => {
            // Auto over several speech models: a price only when they all agree.
            let credits: Vec<f64> = model
                .models_of_kind(form.kind.catalog_type())
                .iter()
                .filter_map(|m| m.credit)
                .collect();
            credits
                .first()
                .copied()
                .filter(|c| credits.iter().all(|o| (o - c).abs() < 1e-9))
        }
    };
    crate::api::pricing::speech_price_line(characters, credit)
}

/// A small, muted line (the speech price under the text).
pub fn small_line(ui: &mut Ui, text: &str) {
    ui.label(
        RichText::new(text)
            .size(tokens::TEXT_SMALL)
            .color(tokens::palette().text_muted),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instrumental_music_sends_no_lyrics_and_speech_sends_the_chosen_voice() {
        let mut form = AudioForm {
            style: "  jazz ".into(),
            lyrics: "la la".into(),
            instrumental: true,
            vocal_gender: VocalGender::Female,
            ..AudioForm::default()
        };
        let Some(AudioJobRequest::Music(music)) =
            form.job(GenerationKind::Music, " a song ", None, None)
        else {
            panic!("music");
        };
        assert_eq!(music.prompt, "a song");
        assert_eq!(music.style.as_deref(), Some("jazz"));
        assert_eq!(music.lyrics, None);
        assert_eq!(music.vocal_gender, None);
        form.instrumental = false;
        let Some(AudioJobRequest::Music(music)) =
            form.job(GenerationKind::Music, "a song", None, None)
        else {
            panic!("music");
        };
        assert_eq!(music.lyrics.as_deref(), Some("la la"));
        assert_eq!(music.vocal_gender.as_deref(), Some("f"));

        form.voices.chosen = Some(voice_picker::ChosenVoice {
            id: "v-1".into(),
            name: "Rachel".into(),
            summary: String::new(),
        });
        let spec = form.spec(GenerationKind::Speech, "Hello", None, Some("p".into()));
        assert_eq!(spec.kind, GenerationKind::Speech);
        assert_eq!(spec.request.prompt, "Hello");
        let Some(AudioJobRequest::Speech(speech)) = spec.audio else {
            panic!("speech");
        };
        assert_eq!(speech.voice, "v-1");
        assert_eq!(speech.project_id.as_deref(), Some("p"));
    }

    #[test]
    fn the_sound_forms_are_remembered_with_the_chosen_voice() {
        assert_eq!(AudioMemory::of(&AudioForm::default()), None);
        let mut form = AudioForm {
            style: "jazz".into(),
            vocal_gender: VocalGender::Female,
            sound_loop: true,
            ..AudioForm::default()
        };
        form.voices.chosen = Some(voice_picker::ChosenVoice {
            id: "v-1".into(),
            name: "Rachel".into(),
            summary: "English".into(),
        });
        let memory = AudioMemory::of(&form).expect("something to remember");
        let value = serde_json::to_value(&memory).expect("json");
        let read: AudioMemory = serde_json::from_value(value).expect("read back");
        let mut restored = AudioForm::default();
        read.restore_into(&mut restored);
        assert_eq!(restored.style, "jazz");
        assert_eq!(restored.vocal_gender, VocalGender::Female);
        assert!(restored.sound_loop);
        assert_eq!(restored.voices.chosen, form.voices.chosen);
    }

    #[test]
    fn a_library_sound_gives_back_its_request() {
        let mut item = crate::api::media::MediaItem {
            prompt: Some("Hello there".into()),
            generation_type: Some("text_to_speech".into()),
            ..Default::default()
        };
        item.metadata
            .insert("voiceId".into(), serde_json::json!("sbx_adam_en_us"));
        item.metadata.insert(
            "model".into(),
            serde_json::json!("elevenlabs/multilingual-v2"),
        );
        let spec = audio_spec_of_item(&item).expect("a speech item");
        assert_eq!(spec.kind, GenerationKind::Speech);
        let Some(AudioJobRequest::Speech(speech)) = spec.audio else {
            panic!("speech");
        };
        assert_eq!(speech.text, "Hello there");
        assert_eq!(speech.voice, "sbx_adam_en_us");
        item.generation_type = Some("text_to_img".into());
        assert!(audio_spec_of_item(&item).is_none());
    }

    #[test]
    fn lengths_follow_the_model() {
        let record = ModelRecord {
            supported_durations: vec![1.0, 5.0],
            ..ModelRecord::default()
        };
        let mut form = AudioForm {
            music_duration_secs: Some(45.0),
            sound_duration_secs: Some(3.0),
            ..AudioForm::default()
        };
        form.normalize(GenerationKind::Music, Some(&record));
        assert_eq!(form.music_duration_secs, None);
        form.normalize(GenerationKind::Sound, Some(&record));
        assert_eq!(form.sound_duration_secs, None);
        form.sound_duration_secs = Some(99.0);
        form.normalize(GenerationKind::Sound, None);
        assert_eq!(form.sound_duration_secs, Some(30.0));
    }
}
