//! The speech form's voice picker: the account's voices (GET /v1/voices, loaded once per
//! session through the engine's `Command::Voices`), a search box, language and gender
//! filters, and a row per voice with ▶ to hear its preview through the studio's one audio
//! output before choosing it. The chosen voice shows with its language and gender.
//!
//! No I/O here: the list comes from the engine; a preview is fetched by the engine's sound
//! loader (`ui::audio::sounds::lookup` → `AudioCommand::Load`) and played through the
//! shared output once it is ready.

use crate::api::Voice;
use crate::api::validate::Field;
use crate::engine::Command;
use crate::ui::audio::sounds::{self, SoundLookup};
use crate::ui::icons::Icon;
use crate::ui::model::Action;
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{RichText, TextEdit, Ui};

/// Rows shown at once before the list scrolls.
const LIST_HEIGHT: f32 = 260.0;
/// About one voice row's height.
const ROW_HEIGHT: f32 = 30.0;

/// The voice list as the picker knows it.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum VoiceList {
    /// Not asked for yet (the speech form was never shown).
    #[default]
    NotAsked,
    Loading,
    Loaded(Vec<Voice>),
    /// Why it could not be loaded, in words.
    Failed(String),
}

/// The voice chosen for the request: what is sent (`id`) and what is shown.
#[derive(Clone, Debug, PartialEq)]
pub struct ChosenVoice {
    pub id: String,
    pub name: String,
    /// "English · Female · American".
    pub summary: String,
}

impl ChosenVoice {
    pub fn of(voice: &Voice) -> Self {
        Self {
            id: voice.voice_id.clone(),
            name: voice.display_name().to_owned(),
            summary: voice.summary(),
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct VoicePicker {
    pub voices: VoiceList,
    pub chosen: Option<ChosenVoice>,
    pub search: String,
    /// Language filter (a voice's `language`); `None` = every language.
    pub language: Option<String>,
    /// Gender filter ("Female" / "Male"); `None` = any.
    pub gender: Option<String>,
    /// The list is open (it opens by itself while no voice is chosen).
    pub open: bool,
    /// The preview asked to play, waiting for its file.
    preview_wanted: Option<String>,
    /// A preview that could not be played, and why (words).
    preview_error: Option<(String, String)>,
}

impl VoicePicker {
    /// The voices when the list has loaded.
    pub fn known_voices(&self) -> Option<&[Voice]> {
        match &self.voices {
            VoiceList::Loaded(voices) => Some(voices),
            _ => None,
        }
    }

    /// `Command::Voices` the first time the picker is needed (the engine answers from its
    /// cache after that).
    pub fn request_if_needed(&mut self) -> Option<Command> {
        matches!(self.voices, VoiceList::NotAsked).then(|| {
            self.voices = VoiceList::Loading;
            Command::Voices
        })
    }

    /// The engine's answer. A chosen voice is refreshed from the list (its name and
    /// facts may have been remembered from an older list).
    pub fn voices_loaded(&mut self, result: Result<Vec<Voice>, String>) {
        self.voices = match result {
            Ok(voices) => {
                if let Some(chosen) = &mut self.chosen
                    && let Some(voice) = voices.iter().find(|v| v.matches(&chosen.id))
                {
                    *chosen = ChosenVoice::of(voice);
                }
                VoiceList::Loaded(voices)
            }
            Err(error) => VoiceList::Failed(error),
        };
    }

    /// Ask again after a failure.
    pub fn retry(&mut self) -> Option<Command> {
        if matches!(self.voices, VoiceList::Failed(_)) {
            self.voices = VoiceList::NotAsked;
        }
        self.request_if_needed()
    }

    pub fn choose(&mut self, voice: &Voice) {
        self.chosen = Some(ChosenVoice::of(voice));
        self.open = false;
    }

    /// The value sent as `voice` (empty when none is chosen).
    pub fn voice_value(&self) -> String {
        self.chosen
            .as_ref()
            .map(|c| c.id.clone())
            .unwrap_or_default()
    }

    /// Every language among the voices, sorted, for the filter.
    pub fn languages(&self) -> Vec<String> {
        let mut languages: Vec<String> = self
            .known_voices()
            .unwrap_or_default()
            .iter()
            .filter_map(|v| v.language.clone())
            .map(|l| l.trim().to_owned())
            .filter(|l| !l.is_empty() && !l.eq_ignore_ascii_case("auto"))
            .collect();
        languages.sort_by_key(|l| l.to_lowercase());
        languages.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
        languages
    }

    /// Language codes among the voices (`language_code`), for the request's `language`.
    pub fn language_codes(&self) -> Vec<String> {
        let mut codes: Vec<String> = self
            .known_voices()
            .unwrap_or_default()
            .iter()
            .filter_map(|v| v.language_code.clone())
            .map(|c| c.trim().to_owned())
            .filter(|c| !c.is_empty())
            .collect();
        codes.sort();
        codes.dedup();
        codes
    }

    /// The voices that pass the search and the filters, in the list's order.
    pub fn filtered(&self) -> Vec<&Voice> {
        let needle = self.search.trim().to_lowercase();
        self.known_voices()
            .unwrap_or_default()
            .iter()
            .filter(|v| {
                self.language.as_deref().is_none_or(|wanted| {
                    v.language
                        .as_deref()
                        .is_some_and(|l| l.trim().eq_ignore_ascii_case(wanted))
                })
            })
            .filter(|v| {
                self.gender.as_deref().is_none_or(|wanted| {
                    v.gender
                        .as_deref()
                        .is_some_and(|g| g.trim().eq_ignore_ascii_case(wanted))
                })
            })
            .filter(|v| {
                needle.is_empty()
                    || [
                        Some(v.name.as_str()),
                        v.language.as_deref(),
                        v.accent.as_deref(),
                        v.provider.as_deref(),
                        v.gender.as_deref(),
                    ]
                    .into_iter()
                    .flatten()
                    .chain(v.styles.iter().map(String::as_str))
                    .any(|field| field.to_lowercase().contains(&needle))
            })
            .collect()
    }

    /// Play (or pause) the preview at `url` through the studio's output. The file is
    /// fetched first when needed; it starts as soon as it is in.
    fn toggle_preview(&mut self, ctx: &egui::Context, url: &str) {
        self.preview_error = None;
        if sounds::playback(ctx, url).is_some() || sounds::is_opening(ctx, url) {
            sounds::toggle(ctx, url);
            self.preview_wanted = None;
            return;
        }
        self.preview_wanted = Some(url.to_owned());
        self.start_wanted_preview(ctx);
    }

    /// Starts the preview asked for once its file has loaded (called every frame the
    /// picker is drawn).
    fn start_wanted_preview(&mut self, ctx: &egui::Context) {
        let Some(url) = self.preview_wanted.clone() else {
            return;
        };
        match sounds::lookup(ctx, &url) {
            SoundLookup::Loading => {}
            SoundLookup::Ready(_) => {
                self.preview_wanted = None;
                if crate::ui::sound::output(ctx).is_none() {
                    self.preview_error = Some((url, "No audio output is available.".into()));
                    return;
                }
                sounds::open(ctx, &url, true);
            }
            SoundLookup::Failed { error, .. } => {
                self.preview_wanted = None;
                self.preview_error = Some((url, error));
            }
        }
    }
}

/// The picker's card content. `errors` are the Voice field's messages (VOICE_REQUIRED /
/// VOICE_NOT_FOUND said before sending); the first control is returned so a refused
/// Generate can focus it.
pub fn voice_picker_ui(
    ui: &mut Ui,
    picker: &mut VoicePicker,
    errors: &[&str],
    actions: &mut Vec<Action>,
) -> egui::Response {
    if let Some(command) = picker.request_if_needed() {
        actions.push(Action::Send(Box::new(command)));
    }
    let ctx = ui.ctx().clone();
    picker.start_wanted_preview(&ctx);
    widgets::section_label(ui, "Voice");
    let first = ui
        .horizontal(|ui| {
            let (text, color) = match &picker.chosen {
                Some(chosen) if chosen.summary.is_empty() => {
                    (chosen.name.clone(), tokens::palette().text)
                }
                Some(chosen) => (
                    format!("{} · {}", chosen.name, chosen.summary),
                    tokens::palette().text,
                ),
                None => ("No voice chosen".to_owned(), tokens::palette().text_muted),
            };
            let verb = if picker.chosen.is_some() {
                if picker.open {
                    "Hide voices"
                } else {
                    "Change voice…"
                }
            } else if picker.open {
                "Hide voices"
            } else {
                "Choose a voice…"
            };
            let button = ui.add(widgets::secondary_button(verb));
            widgets::name_widget(&button, verb.trim_end_matches('…'));
            if button.clicked() {
                picker.open = !picker.open;
            }
            widgets::truncated_label(ui, RichText::new(text).size(13.0).color(color));
            button
        })
        .inner;
    for message in errors {
        widgets::field_error(ui, message);
    }
    if picker.chosen.is_none() && !picker.open && errors.is_empty() {
        widgets::muted(ui, "Pick the voice that speaks your text.");
    }
    if picker.open || picker.chosen.is_none() {
        ui.add_space(tokens::SPACE_XS);
        list_ui(ui, picker, actions);
    }
    first
}

fn list_ui(ui: &mut Ui, picker: &mut VoicePicker, actions: &mut Vec<Action>) {
    match &picker.voices {
        VoiceList::NotAsked | VoiceList::Loading => {
            ui.horizontal(|ui| {
                ui.spinner();
                widgets::muted(ui, "Loading voices…");
            });
            return;
        }
        VoiceList::Failed(error) => {
            widgets::field_error(ui, &format!("Could not load the voices: {error}"));
            if ui.add(widgets::secondary_button("Try again")).clicked()
                && let Some(command) = picker.retry()
            {
                actions.push(Action::Send(Box::new(command)));
            }
            return;
        }
        VoiceList::Loaded(_) => {}
    }
    let search = ui.add(
        TextEdit::singleline(&mut picker.search)
            .hint_text("Search by name, accent, style…")
            .desired_width(ui.available_width()),
    );
    widgets::name_widget(&search, "Search voices");
    ui.horizontal_wrapped(|ui| {
        let languages = picker.languages();
        let selected = picker
            .language
            .clone()
            .unwrap_or_else(|| "All languages".to_owned());
        let combo = egui::ComboBox::from_id_salt("voice_language_filter")
            .selected_text(selected)
            .show_ui(ui, |ui| {
                if ui
                    .selectable_label(picker.language.is_none(), "All languages")
                    .clicked()
                {
                    picker.language = None;
                }
                for language in languages {
                    let on = picker.language.as_deref() == Some(language.as_str());
                    if ui.selectable_label(on, &language).clicked() {
                        picker.language = Some(language);
                    }
                }
            });
        widgets::name_widget(&combo.response, "Filter voices by language");
        for (label, value) in [
            ("Any", None),
            ("Female", Some("Female")),
            ("Male", Some("Male")),
        ] {
            let on = picker.gender.as_deref() == value;
            let chip = ui.selectable_label(on, label);
            widgets::name_widget(&chip, &format!("Gender: {label}"));
            if chip.clicked() {
                picker.gender = value.map(str::to_owned);
            }
        }
    });
    let filtered: Vec<Voice> = picker.filtered().into_iter().cloned().collect();
    let total = picker.known_voices().map_or(0, <[Voice]>::len);
    widgets::muted(
        ui,
        if filtered.len() == total {
            format!("{total} voices")
        } else {
            format!("{} of {total} voices", filtered.len())
        },
    );
    let ctx = ui.ctx().clone();
    let mut chosen: Option<Voice> = None;
    let mut preview: Option<String> = None;
    // Tall enough for several rows (inside the form's own scroll area a list would
    // otherwise shrink to its smallest).
    let rows_height = filtered.len() as f32 * ROW_HEIGHT;
    egui::ScrollArea::vertical()
        .id_salt("voice_list")
        .max_height(LIST_HEIGHT)
        .min_scrolled_height(rows_height.clamp(ROW_HEIGHT, LIST_HEIGHT))
        .auto_shrink([false, true])
        .show(ui, |ui| {
            if filtered.is_empty() {
                widgets::muted(ui, "No voice matches; clear the search or the filters.");
            }
            for voice in &filtered {
                ui.push_id(("voice", &voice.voice_id), |ui| {
                    ui.horizontal(|ui| {
                        let name = voice.display_name();
                        match voice.playable_preview_url() {
                            Some(url) => {
                                let playing = sounds::is_playing(&ctx, url)
                                    || picker.preview_wanted.as_deref() == Some(url);
                                let (icon, verb) = if playing {
                                    (Icon::Pause, "Pause preview of")
                                } else {
                                    (Icon::Play, "Play preview of")
                                };
                                let button =
                                    widgets::icon_button(ui, icon, &format!("{verb} {name}"));
                                if button.clicked() {
                                    preview = Some(url.to_owned());
                                }
                            }
                            None => {
                                ui.add_enabled(false, egui::Button::new("▶"))
                                    .on_disabled_hover_text("This voice has no preview.");
                            }
                        }
                        let selected = picker.chosen.as_ref().is_some_and(|c| voice.matches(&c.id));
                        let summary = voice.summary();
                        let text = if summary.is_empty() {
                            name.to_owned()
                        } else {
                            format!("{name} · {summary}")
                        };
                        let row = ui.add(
                            egui::Button::selectable(selected, RichText::new(text).size(13.0))
                                .truncate(),
                        );
                        widgets::name_widget(&row, &format!("Choose voice {name}"));
                        if row.clicked() {
                            chosen = Some(voice.clone());
                        }
                    });
                });
            }
        });
    if let Some((url, error)) = &picker.preview_error
        && filtered
            .iter()
            .any(|v| v.playable_preview_url() == Some(url.as_str()))
    {
        widgets::field_error(ui, &format!("Could not play the preview: {error}"));
    }
    if let Some(url) = preview {
        picker.toggle_preview(&ctx, &url);
    }
    if let Some(voice) = chosen {
        picker.choose(&voice);
    }
}

/// The Voice field's messages, for [`voice_picker_ui`].
pub fn voice_messages(form: &super::form::ComposeForm) -> Vec<String> {
    form.messages_for(&Field::Voice)
        .into_iter()
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn voice(id: &str, name: &str, language: &str, gender: &str) -> Voice {
        Voice {
            voice_id: id.into(),
            name: name.into(),
            language: Some(language.into()),
            gender: Some(gender.into()),
            ..Voice::default()
        }
    }

    #[test]
    fn filters_and_search_narrow_the_list() {
        let mut picker = VoicePicker::default();
        assert!(picker.request_if_needed().is_some());
        picker.voices_loaded(Ok(vec![
            voice("1", "Rachel", "English", "Female"),
            voice("2", "Hans", "German", "Male"),
            voice("3", "Ana", "Spanish", "Female"),
        ]));
        assert_eq!(picker.filtered().len(), 3);
        picker.gender = Some("female".into());
        assert_eq!(picker.filtered().len(), 2);
        picker.search = "rach".into();
        let names: Vec<&str> = picker.filtered().iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, vec!["Rachel"]);
        picker.search.clear();
        picker.gender = None;
        picker.language = Some("German".into());
        assert_eq!(picker.filtered()[0].name, "Hans");
        assert_eq!(picker.languages(), vec!["English", "German", "Spanish"]);
    }

    #[test]
    fn the_list_is_asked_for_once() {
        let mut picker = VoicePicker::default();
        assert!(picker.request_if_needed().is_some());
        assert!(picker.request_if_needed().is_none());
        picker.voices_loaded(Err("offline".into()));
        assert!(picker.retry().is_some());
    }
}
