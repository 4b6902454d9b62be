//! Settings › Create defaults: the model, resolution and duration Create starts from for
//! each generation type. Choosing one saves it at once (`SettingsAction::SetDefaults`).

use super::SettingsAction;
use crate::api::GenerationKind;
use crate::settings::GenerationDefaults;
use crate::ui::compose::form::{ComposeForm, defaults_key};
use crate::ui::format;
use crate::ui::model::{Action, Model};
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{ComboBox, RichText, Ui};
use std::collections::BTreeMap;

/// The width of each picker, so the grid lines up at 1024 px.
const PICKER_WIDTH_PT: f32 = 180.0;

pub fn defaults_ui(
    ui: &mut Ui,
    model: &Model,
    defaults: &BTreeMap<String, GenerationDefaults>,
    actions: &mut Vec<Action>,
) {
    widgets::muted(
        ui,
        "Create starts each type with these when you pick the type (or press “Reset to \
         defaults” there). Auto lets the service choose.",
    );
    ui.add_space(tokens::SPACE_XS);
    if !model.catalog.is_loaded() {
        widgets::muted(ui, "The model lists appear once the catalog has loaded.");
    }
    egui::Grid::new("create_defaults_grid")
        .num_columns(4)
        .spacing(egui::vec2(tokens::SPACE_S, tokens::SPACE_S))
        .show(ui, |ui| {
            for heading in ["Type", "Model", "Resolution", "Duration"] {
                ui.label(
                    RichText::new(heading)
                        .size(tokens::TEXT_SMALL)
                        .color(tokens::palette().text_faint),
                );
            }
            ui.end_row();
            for kind in GenerationKind::ALL {
                let key = defaults_key(kind);
                let current = defaults.get(&key).cloned().unwrap_or_default();
                if let Some(changed) = kind_row_ui(ui, model, kind, &current) {
                    actions.push(Action::Settings(SettingsAction::SetDefaults {
                        kind_key: key,
                        defaults: changed,
                    }));
                }
                ui.end_row();
            }
        });
}

/// One type's row; the new defaults when a picker changed.
fn kind_row_ui(
    ui: &mut Ui,
    model: &Model,
    kind: GenerationKind,
    current: &GenerationDefaults,
) -> Option<GenerationDefaults> {
    let mut next = current.clone();
    ui.label(RichText::new(kind.label()).color(tokens::palette().text));
    // The form's own rules decide what a model offers (shared with Create).
    let form = ComposeForm {
        kind,
        model_id: current.model_id.clone(),
        ..ComposeForm::default()
    };
    let models = model.models_of_kind(form.catalog_type());
    let model_text = match form.selected_model(model) {
        Some(record) => record.display_name().to_owned(),
        None => match &current.model_id {
            Some(id) if model.catalog.is_loaded() => format!("{id} (not in the catalog)"),
            Some(id) => id.clone(),
            None => "Auto".to_owned(),
        },
    };
    let name = format!("Default model for {}", kind.label());
    let response = ComboBox::from_id_salt(("default_model", kind.label()))
        .selected_text(model_text)
        .width(PICKER_WIDTH_PT)
        .truncate()
        .height(360.0)
        .show_ui(ui, |ui| {
            if ui
                .selectable_label(next.model_id.is_none(), "Auto")
                .clicked()
            {
                next.model_id = None;
            }
            for record in &models {
                let selected = next.model_id.as_deref() == Some(record.identifier.as_str());
                if ui
                    .selectable_label(selected, record.display_name())
                    .clicked()
                {
                    next.model_id = Some(record.identifier.clone());
                }
            }
        })
        .response;
    widgets::name_widget(&response, &name);

    let options = form.output_options(model);
    option_picker(
        ui,
        ("default_resolution", kind.label()),
        &format!("Default resolution for {}", kind.label()),
        &options.resolutions,
        &mut next.resolution,
        |r| r.clone(),
    );
    if kind.is_video() || form.makes_video() {
        let durations: Vec<f64> = options.durations_secs.clone();
        let mut chosen = next.duration_secs;
        let text = chosen.map_or_else(|| "Model default".to_owned(), format::seconds_label);
        let response = ComboBox::from_id_salt(("default_duration", kind.label()))
            .selected_text(text)
            .width(PICKER_WIDTH_PT * 0.7)
            .show_ui(ui, |ui| {
                if ui
                    .selectable_label(chosen.is_none(), "Model default")
                    .clicked()
                {
                    chosen = None;
                }
                for secs in durations {
                    let selected = chosen.is_some_and(|c| (c - secs).abs() < 1e-6);
                    if ui
                        .selectable_label(selected, format::seconds_label(secs))
                        .clicked()
                    {
                        chosen = Some(secs);
                    }
                }
            })
            .response;
        widgets::name_widget(&response, &format!("Default duration for {}", kind.label()));
        next.duration_secs = chosen;
    } else {
        ui.label("");
    }
    // A new model may not offer the old resolution or length: back to the model's own.
    if next.model_id != current.model_id {
        next.resolution = None;
        next.duration_secs = None;
    }
    (next != *current).then_some(next)
}

fn option_picker(
    ui: &mut Ui,
    id: (&str, &str),
    name: &str,
    options: &[String],
    value: &mut Option<String>,
    label: impl Fn(&String) -> String,
) {
    let text = value.clone().unwrap_or_else(|| "Model default".to_owned());
    let response = ComboBox::from_id_salt(id)
        .selected_text(text)
        .width(PICKER_WIDTH_PT * 0.7)
        .show_ui(ui, |ui| {
            if ui
                .selectable_label(value.is_none(), "Model default")
                .clicked()
            {
                *value = None;
            }
            for option in options {
                let selected = value.as_ref() == Some(option);
                if ui.selectable_label(selected, label(option)).clicked() {
                    *value = Some(option.clone());
                }
            }
        })
        .response;
    widgets::name_widget(&response, name);
}
