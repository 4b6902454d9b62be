//! Create's "Prompt presets" picker: named prompt templates from GET /v1/presets for the
//! current type (not the cinematic presets). Loaded once per type and cached for the
//! session; picking one fills an empty prompt or appends to the one being written, and
//! "Undo preset" puts the prompt back while it is still as the preset left it.

use std::collections::HashMap;

use super::form::ComposeForm;
use crate::api::{GenerationKind, PromptPreset, PromptPresetType};
use crate::engine::{Command, ProjectsCommand};
use crate::ui::model::{Action, Requested};
use crate::ui::widgets;
use egui::Ui;

/// The prompt presets already asked for, by type.
#[derive(Debug, Default)]
pub struct PromptPresetsState {
    by_type: HashMap<PromptPresetType, Requested<Vec<PromptPreset>>>,
    /// The prompt before and after the last preset was applied (for "Undo preset").
    undo: Option<(String, String)>,
}

/// Which catalog type serves a Create type; `None` where prompt presets make no sense.
/// Every video type uses the `video` list (camera moves and looks fit them all).
pub fn preset_type_for(kind: GenerationKind) -> Option<PromptPresetType> {
    match kind {
        GenerationKind::Image | GenerationKind::ImageEdit => Some(PromptPresetType::Image),
        GenerationKind::TextToVideo
        | GenerationKind::ImageToVideo
        | GenerationKind::VideoToVideo
        | GenerationKind::CreativeDirector
        | GenerationKind::Elements
        | GenerationKind::FirstLastFrame => Some(PromptPresetType::Video),
        GenerationKind::VideoEdit
        | GenerationKind::VideoTrim
        | GenerationKind::ImageTool
        | GenerationKind::Chat
        | GenerationKind::Music
        | GenerationKind::Speech
        | GenerationKind::Sound
        | GenerationKind::Transcription
        | GenerationKind::Lipsync
        | GenerationKind::ThreeD => None,
    }
}

/// `prompt` with `preset` applied: the preset alone when the prompt is empty, else
/// appended after a comma.
pub fn applied_prompt(prompt: &str, preset: &str) -> String {
    let base = prompt.trim_end().trim_end_matches(',').trim_end();
    if base.is_empty() {
        preset.trim().to_owned()
    } else {
        format!("{base}, {}", preset.trim())
    }
}

impl PromptPresetsState {
    /// The engine's answer for `kind`.
    pub fn loaded(&mut self, kind: PromptPresetType, result: Result<Vec<PromptPreset>, String>) {
        self.by_type.entry(kind).or_default().set(result);
    }

    pub fn presets(&self, kind: PromptPresetType) -> Option<&[PromptPreset]> {
        self.by_type.get(&kind)?.value.as_deref()
    }

    /// Ask once per type (again only after a failure, when the person asks).
    fn ensure_requested(&mut self, kind: PromptPresetType, actions: &mut Vec<Action>) {
        let entry = self.by_type.entry(kind).or_default();
        if entry.pending || entry.is_loaded() || entry.error.is_some() {
            return;
        }
        entry.request();
        actions.push(Action::Send(Box::new(Command::ProjectOps(
            ProjectsCommand::LoadPromptPresets { kind },
        ))));
    }

    fn apply(&mut self, form: &mut ComposeForm, preset: &PromptPreset) {
        let Some(text) = preset.prompt.as_deref() else {
            return;
        };
        let before = form.prompt.clone();
        form.prompt = applied_prompt(&before, text);
        self.undo = Some((before, form.prompt.clone()));
    }
}

/// The picker (and its "Undo preset") in the prompt card's bottom row.
pub fn prompt_presets_ui(
    ui: &mut Ui,
    state: &mut PromptPresetsState,
    form: &mut ComposeForm,
    actions: &mut Vec<Action>,
) {
    let Some(kind) = preset_type_for(form.kind) else {
        return;
    };
    state.ensure_requested(kind, actions);
    let mut picked: Option<PromptPreset> = None;
    let mut retry = false;
    {
        let entry = state.by_type.entry(kind).or_default();
        let menu = egui::containers::menu::MenuButton::from_button(widgets::subtle_button(
            "Prompt presets…",
        ));
        let (response, _) = menu.ui(ui, |ui| {
            ui.set_min_width(260.0);
            match (&entry.value, &entry.error) {
                (Some(presets), _) if !presets.is_empty() => {
                    for preset in presets {
                        let mut button = ui.button(preset.label());
                        if let Some(description) = preset.description.as_deref() {
                            button = button.on_hover_text(description);
                        }
                        if button.clicked() {
                            picked = Some(preset.clone());
                        }
                    }
                }
                (Some(_), _) => {
                    widgets::muted(ui, "No prompt presets for this type.");
                }
                (None, Some(error)) => {
                    widgets::field_error(
                        ui,
                        &format!(
                            "Could not load prompt presets: {}",
                            crate::ui::offline::human_error(error)
                        ),
                    );
                    if ui.button("Try again").clicked() {
                        retry = true;
                    }
                }
                (None, None) => {
                    widgets::muted(ui, "Loading prompt presets…");
                }
            }
        });
        widgets::name_widget(&response, "Prompt presets");
        let response = response.on_hover_text(
            "Named prompt templates for this type: fill an empty prompt or add to yours.",
        );
        let _ = response;
        let undo_offered = state
            .undo
            .as_ref()
            .is_some_and(|(_, after)| *after == form.prompt);
        if undo_offered
            && ui
                .add(widgets::subtle_button("Undo preset"))
                .on_hover_text("Put the prompt back as it was before the preset")
                .clicked()
            && let Some((before, _)) = state.undo.take()
        {
            form.prompt = before;
        }
    }
    if retry && let Some(entry) = state.by_type.get_mut(&kind) {
        entry.error = None;
        state.ensure_requested(kind, actions);
    }
    if let Some(preset) = picked {
        state.apply(form, &preset);
    }
}

#[cfg(test)]
mod tests {
    use super::applied_prompt;

    #[test]
    fn a_preset_fills_an_empty_prompt_and_appends_to_a_written_one() {
        assert_eq!(applied_prompt("  ", "film noir"), "film noir");
        assert_eq!(applied_prompt("a cat", "film noir"), "a cat, film noir");
        assert_eq!(applied_prompt("a cat, ", "film noir"), "a cat, film noir");
    }
}
