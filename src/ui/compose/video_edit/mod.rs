//! Create's "Video edit" type: the video to edit, what to do to it (trim, one of the
//! eleven edit operations, or a restyle), that choice's fields only, and the submit button
//! with its cost. The source plays above the results with the trim timeline under it
//! ([`stage`]). The pure logic is in [`form`].

pub mod form;
pub mod stage;

pub use form::{EditChoice, VideoEditForm, VideoSource};

use crate::api::validate::Field;
use crate::api::video_edit::{RetakeMode, VideoEditOperationKind};
use crate::ui::format;
use crate::ui::model::{Action, Model};
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{ComboBox, RichText, TextEdit, Ui, Vec2};

/// The form column's cards for a video edit.
pub fn edit_form_ui(
    ui: &mut Ui,
    model: &Model,
    form: &mut VideoEditForm,
    actions: &mut Vec<Action>,
) {
    form.normalize(model);
    form.attention.begin_form();
    source_card_ui(ui, form, actions);
    ui.add_space(tokens::SPACE_M);
    operation_card_ui(ui, form);
    ui.add_space(tokens::SPACE_M);
    fields_card_ui(ui, model, form);
    form.attention.end_form();
}

/// Reports `field`'s control to the form's attention (scroll and focus after a refused
/// Apply), when the field has a problem.
fn mark(form: &mut VideoEditForm, field: Field, response: &egui::Response, focus: bool) {
    let has_problem = !form.messages_for(&field).is_empty();
    form.attention.mark(&field, has_problem, response, focus);
}

fn source_card_ui(ui: &mut Ui, form: &mut VideoEditForm, actions: &mut Vec<Action>) {
    tokens::card_frame().show(ui, |ui| {
        ui.set_width(ui.available_width());
        widgets::section_label(ui, "Video to edit");
        match &form.source {
            None => {
                widgets::muted(
                    ui,
                    "Choose a video file, drop one on the window, paste its address, or press \
                     Edit or Trim on any video result or library video.",
                );
            }
            Some(source) => {
                if source_chip_ui(ui, source) {
                    form.source = None;
                    form.errors.clear();
                }
            }
        }
        for message in form.messages_for(&Field::SourceVideo) {
            widgets::field_error(ui, message);
        }
        ui.add_space(tokens::SPACE_XS);
        let choose = ui
            .horizontal_wrapped(|ui| {
                let choose = ui.add(widgets::secondary_button("Choose video…"));
                if choose.clicked() {
                    actions.push(Action::PickSourceVideo);
                }
                ui.label(RichText::new("or add a URL:").color(tokens::palette().text_faint));
                choose
            })
            .inner;
        mark(form, Field::SourceVideo, &choose, true);
        if super::url_row_ui(
            ui,
            &mut form.url_input,
            "https://… video URL",
            "Source video URL",
        ) {
            let typed = form.url_input.clone();
            match form.add_url_source(&typed) {
                Ok(()) => {
                    form.url_input.clear();
                    form.url_error = None;
                }
                Err(error) => form.url_error = Some(error),
            }
        }
        if let Some(error) = &form.url_error {
            widgets::field_error(ui, error);
        }
    });
}

/// The source's name, length and state; returns true when Remove was pressed.
fn source_chip_ui(ui: &mut Ui, source: &VideoSource) -> bool {
    let ready = source
        .duration_secs
        .map_or_else(|| "ready".to_owned(), format::seconds_label);
    let (status, color) = super::source_status(&source.state, source.upload_progress, &ready);
    let mut removed = false;
    egui::Frame::new()
        .fill(tokens::palette().bg_elevated)
        .stroke(egui::Stroke::new(1.0, tokens::palette().border))
        .corner_radius(egui::CornerRadius::same(tokens::RADIUS_M))
        .inner_margin(egui::Margin::symmetric(8, 6))
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.horizontal(|ui| {
                ui.vertical(|ui| {
                    ui.label(
                        RichText::new(format::excerpt(&source.label, 36))
                            .size(12.5)
                            .color(tokens::palette().text),
                    )
                    .on_hover_text(source.label.clone());
                    ui.label(
                        RichText::new(format::excerpt(&status, 44))
                            .size(tokens::TEXT_SMALL)
                            .color(color),
                    )
                    .on_hover_text(status.clone());
                });
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    if widgets::icon_button(
                        ui,
                        crate::ui::icons::Icon::Close,
                        &format!("Remove {}", source.label),
                    )
                    .clicked()
                    {
                        removed = true;
                    }
                });
            });
        });
    removed
}

fn operation_card_ui(ui: &mut Ui, form: &mut VideoEditForm) {
    tokens::card_frame().show(ui, |ui| {
        ui.set_width(ui.available_width());
        widgets::section_label(ui, "Operation");
        for choice in EditChoice::all() {
            let selected = form.choice == choice;
            let response = choice_row_ui(ui, selected, choice);
            if selected {
                mark(form, Field::Operation, &response, true);
            }
            if response.clicked() {
                form.set_choice(choice);
            }
        }
        for message in form.messages_for(&Field::Operation) {
            widgets::field_error(ui, message);
        }
    });
}

/// One row of the operation list: its name and one line on what it does.
fn choice_row_ui(ui: &mut Ui, selected: bool, choice: EditChoice) -> egui::Response {
    let width = ui.available_width();
    let text_width = width - 16.0;
    let title = egui::WidgetText::from(RichText::new(choice.label()).strong().color(if selected {
        tokens::palette().on_accent
    } else {
        tokens::palette().text
    }))
    .into_galley(
        ui,
        Some(egui::TextWrapMode::Truncate),
        text_width,
        egui::TextStyle::Body,
    );
    let line = egui::WidgetText::from(RichText::new(choice.description()).size(tokens::TEXT_SMALL))
        .into_galley(
            ui,
            Some(egui::TextWrapMode::Truncate),
            text_width,
            egui::TextStyle::Small,
        );
    let height = title.size().y + line.size().y + 10.0;
    let (rect, response) = ui.allocate_exact_size(Vec2::new(width, height), egui::Sense::click());
    response.widget_info(|| {
        egui::WidgetInfo::selected(egui::Role::RadioButton, true, selected, choice.label())
    });
    if ui.is_rect_visible(rect) {
        let fill = if selected {
            tokens::palette().accent
        } else if response.hovered() {
            tokens::palette().bg_elevated
        } else {
            egui::Color32::TRANSPARENT
        };
        ui.painter()
            .rect_filled(rect, egui::CornerRadius::same(tokens::RADIUS_S), fill);
        if response.has_focus() {
            ui.painter().rect_stroke(
                rect,
                egui::CornerRadius::same(tokens::RADIUS_S),
                egui::Stroke::new(1.5, tokens::palette().focus_ring),
                egui::StrokeKind::Inside,
            );
        }
        let x = rect.min.x + 8.0;
        ui.painter().galley(
            egui::pos2(x, rect.min.y + 4.0),
            title.clone(),
            tokens::palette().text,
        );
        let line_color = if selected {
            tokens::palette().on_accent
        } else {
            tokens::palette().text_muted
        };
        ui.painter().galley(
            egui::pos2(x, rect.min.y + 6.0 + title.size().y),
            line,
            line_color,
        );
    }
    response.on_hover_text(choice.description())
}

fn fields_card_ui(ui: &mut Ui, model: &Model, form: &mut VideoEditForm) {
    tokens::card_frame().show(ui, |ui| {
        ui.set_width(ui.available_width());
        widgets::section_label(ui, "Settings");
        match form.choice {
            EditChoice::Trim => trim_fields_ui(ui, form),
            EditChoice::Restyle => {
                model_picker_ui(ui, model, form);
                prompt_ui(ui, form, "Prompt", "Watercolour, soft paper texture…", true);
            }
            EditChoice::Operation(kind) => {
                model_picker_ui(ui, model, form);
                operation_fields_ui(ui, model, form, kind);
            }
        }
    });
}

fn trim_fields_ui(ui: &mut Ui, form: &mut VideoEditForm) {
    let out = form
        .fields
        .trim_out_secs
        .or(form.source_secs())
        .unwrap_or(0.0);
    let length = (out - form.fields.trim_in_secs).max(0.0);
    widgets::muted(
        ui,
        "Set the in and out points on the timeline above: drag the handles, or press I and O \
         at the playhead. Space plays the selection.",
    );
    ui.add_space(tokens::SPACE_XS);
    egui::Grid::new("trim_times").num_columns(2).show(ui, |ui| {
        ui.label("In");
        ui.label(RichText::new(time_text(form, form.fields.trim_in_secs)).monospace());
        ui.end_row();
        ui.label("Out");
        ui.label(RichText::new(time_text(form, out)).monospace());
        ui.end_row();
        ui.label("Length");
        ui.label(RichText::new(crate::ui::video::timeline::edit::length_label(length)).monospace());
        ui.end_row();
    });
    for field in [Field::StartTime, Field::EndTime] {
        errors_ui(ui, form, field);
    }
    widgets::muted(ui, "Trimming is free; the original video is kept.");
}

/// A time as the timeline shows it: `mm:ss.ff` at the source's frame rate.
fn time_text(form: &VideoEditForm, secs: f64) -> String {
    crate::ui::video::timeline::clock_label(secs, form.source_fps().unwrap_or(24.0))
}

fn model_picker_ui(ui: &mut Ui, model: &Model, form: &mut VideoEditForm) {
    let models = form.models_for_choice(model);
    let default = match form.choice {
        EditChoice::Restyle => None,
        _ => form
            .effective_model(model)
            .filter(|_| form.model_id.is_none())
            .map(|m| m.display_name().to_owned()),
    };
    let selected_text = match (form.selected_model(model), form.choice) {
        (Some(record), _) => record.display_name().to_owned(),
        (None, EditChoice::Restyle) => "Choose a model".to_owned(),
        (None, _) => match default {
            Some(name) => format!("Service default · {name}"),
            None => "Service default".to_owned(),
        },
    };
    ui.label(RichText::new("Model").color(tokens::palette().text_muted));
    let width = ui.available_width();
    let inner = ComboBox::from_id_salt(("edit_model", form.choice.label()))
        .selected_text(selected_text)
        .width(width)
        .truncate()
        .show_ui(ui, |ui| {
            ui.set_min_width(width - 8.0);
            if form.choice != EditChoice::Restyle
                && ui
                    .selectable_label(form.model_id.is_none(), "Service default")
                    .clicked()
            {
                form.model_id = None;
            }
            for record in &models {
                let selected = form.model_id.as_deref() == Some(record.identifier.as_str());
                let line = match record.credit {
                    Some(credit) => {
                        format!("{} · {}/s", record.display_name(), format::credits(credit))
                    }
                    None => record.display_name().to_owned(),
                };
                if ui.selectable_label(selected, line).clicked() {
                    form.model_id = Some(record.identifier.clone());
                }
            }
            if models.is_empty() && model.catalog.is_loaded() {
                widgets::muted(ui, "No models for this operation in the catalog.");
            }
        });
    widgets::name_widget(&inner.response, "Model");
    mark(form, Field::Model, &inner.response, true);
    for message in form.messages_for(&Field::Model) {
        widgets::field_error(ui, message);
    }
    ui.add_space(tokens::SPACE_S);
}

fn prompt_ui(ui: &mut Ui, form: &mut VideoEditForm, name: &str, hint: &str, show_errors: bool) {
    ui.label(RichText::new(name).color(tokens::palette().text_muted));
    let response = ui.add(
        TextEdit::multiline(&mut form.fields.prompt)
            .hint_text(hint)
            .desired_rows(3)
            .desired_width(f32::INFINITY),
    );
    widgets::name_widget(&response, name);
    mark(form, Field::Prompt, &response, true);
    if show_errors {
        for message in form.messages_for(&Field::Prompt) {
            widgets::field_error(ui, message);
        }
    }
    ui.add_space(tokens::SPACE_XS);
}

fn text_field_ui(ui: &mut Ui, value: &mut String, name: &str, hint: &str) -> egui::Response {
    ui.label(RichText::new(name).color(tokens::palette().text_muted));
    let response = ui.add(
        TextEdit::singleline(value)
            .hint_text(hint)
            .desired_width(f32::INFINITY),
    );
    widgets::name_widget(&response, name);
    response
}

/// A row of choices; returns the first chip (what takes the focus after a refused Apply).
fn chips_ui(
    ui: &mut Ui,
    name: &str,
    choices: &[String],
    current: &mut String,
) -> Option<egui::Response> {
    ui.label(RichText::new(name).color(tokens::palette().text_muted));
    ui.horizontal_wrapped(|ui| {
        let mut first = None;
        for choice in choices {
            let selected = current.eq_ignore_ascii_case(choice);
            let response = ui.add(widgets::toggle_button(choice, selected));
            widgets::name_widget(&response, &format!("{name} {choice}"));
            if response.clicked() {
                *current = choice.clone();
            }
            first.get_or_insert(response);
        }
        first
    })
    .inner
}

/// `field`'s messages; a field without a control of its own (trim's and retake's times,
/// set on the timeline) is brought into view by its message.
fn errors_ui(ui: &mut Ui, form: &mut VideoEditForm, field: Field) {
    let messages: Vec<String> = form
        .messages_for(&field)
        .into_iter()
        .map(str::to_owned)
        .collect();
    if messages.is_empty() {
        return;
    }
    let shown = ui
        .scope(|ui| {
            for message in &messages {
                widgets::field_error(ui, message);
            }
        })
        .response;
    mark(form, field, &shown, false);
}

fn operation_fields_ui(
    ui: &mut Ui,
    model: &Model,
    form: &mut VideoEditForm,
    kind: VideoEditOperationKind,
) {
    match kind {
        VideoEditOperationKind::Upscale => {
            let tiers = form.resolution_choices(model);
            if let Some(first) = chips_ui(ui, "Resolution", &tiers, &mut form.fields.resolution) {
                mark(form, Field::Resolution, &first, true);
            }
            errors_ui(ui, form, Field::Resolution);
            ui.add_space(tokens::SPACE_XS);
            ui.label(RichText::new("Frame rate").color(tokens::palette().text_muted));
            ui.horizontal_wrapped(|ui| {
                let keep = ui.add(widgets::toggle_button(
                    "Keep",
                    form.fields.target_fps.is_none(),
                ));
                widgets::name_widget(&keep, "Frame rate Keep");
                mark(form, Field::TargetFps, &keep, true);
                if keep.clicked() {
                    form.fields.target_fps = None;
                }
                for fps in form::TARGET_FPS_CHOICES {
                    let on = form.fields.target_fps == Some(fps);
                    let response = ui.add(widgets::toggle_button(&format!("{fps} fps"), on));
                    if response.clicked() {
                        form.fields.target_fps = Some(fps);
                    }
                }
            });
            errors_ui(ui, form, Field::TargetFps);
        }
        VideoEditOperationKind::Reframe => {
            let ratios = form.aspect_ratio_choices(model);
            if let Some(first) =
                chips_ui(ui, "Aspect ratio", &ratios, &mut form.fields.aspect_ratio)
            {
                mark(form, Field::AspectRatio, &first, true);
            }
            errors_ui(ui, form, Field::AspectRatio);
            ui.add_space(tokens::SPACE_XS);
            ui.label(RichText::new("Placement").color(tokens::palette().text_muted));
            placement_ui(ui, form);
            errors_ui(ui, form, Field::GridPosition);
        }
        VideoEditOperationKind::GenerateAudio => {
            prompt_ui(
                ui,
                form,
                "Prompt",
                "Rain on a tin roof, distant thunder…",
                false,
            );
            let effects = text_field_ui(
                ui,
                &mut form.fields.sound_effect_prompt,
                "Sound effects",
                "Footsteps on gravel…",
            );
            mark(form, Field::AudioPrompts, &effects, true);
            text_field_ui(
                ui,
                &mut form.fields.background_music_prompt,
                "Background music",
                "Warm lo-fi piano…",
            );
            errors_ui(ui, form, Field::AudioPrompts);
            errors_ui(ui, form, Field::Prompt);
            let response = ui.checkbox(&mut form.fields.original_sound, "Keep the original sound");
            widgets::name_widget(&response, "Keep the original sound");
            let formats = form.audio_format_choices(model);
            if !formats.is_empty() {
                if let Some(first) =
                    chips_ui(ui, "Audio format", &formats, &mut form.fields.audio_format)
                {
                    mark(form, Field::AudioFormat, &first, true);
                }
                errors_ui(ui, form, Field::AudioFormat);
            }
        }
        VideoEditOperationKind::RemoveWatermark => {
            widgets::muted(ui, "Nothing to set: the watermark is found and removed.");
        }
        VideoEditOperationKind::FaceSwap => {
            let face = text_field_ui(
                ui,
                &mut form.fields.face_image_url,
                "Face image URL",
                "https://… a clear photo of the face",
            );
            mark(form, Field::FaceImage, &face, true);
            errors_ui(ui, form, Field::FaceImage);
        }
        VideoEditOperationKind::Extend => {
            ui.label(RichText::new("Add footage").color(tokens::palette().text_muted));
            ui.horizontal(|ui| {
                let start = ui.add(widgets::toggle_button(
                    "At the start",
                    form.fields.extend_at_start,
                ));
                if start.clicked() {
                    form.fields.extend_at_start = true;
                }
                let end = ui.add(widgets::toggle_button(
                    "At the end",
                    !form.fields.extend_at_start,
                ));
                if end.clicked() {
                    form.fields.extend_at_start = false;
                }
            });
            let seconds = seconds_ui(
                ui,
                "Seconds to add",
                &mut form.fields.extend_secs,
                1.0..=20.0,
            );
            mark(form, Field::Duration, &seconds, true);
            errors_ui(ui, form, Field::Duration);
            prompt_ui(ui, form, "Prompt", "Optional: what happens next…", true);
            text_field_ui(ui, &mut form.fields.context, "Context", "Optional guidance");
        }
        VideoEditOperationKind::MagicEdit => {
            prompt_ui(
                ui,
                form,
                "Prompt",
                "Make it snow; keep the people as they are…",
                true,
            );
        }
        VideoEditOperationKind::Lipsync => {
            ui.horizontal(|ui| {
                let text = ui.add(widgets::toggle_button(
                    "Text to speak",
                    form.fields.lipsync_by_text,
                ));
                if text.clicked() {
                    form.fields.lipsync_by_text = true;
                }
                let audio = ui.add(widgets::toggle_button(
                    "Audio URL",
                    !form.fields.lipsync_by_text,
                ));
                if audio.clicked() {
                    form.fields.lipsync_by_text = false;
                }
            });
            let speech = if form.fields.lipsync_by_text {
                text_field_ui(
                    ui,
                    &mut form.fields.lipsync_text,
                    "Text to speak",
                    "Hello there…",
                )
            } else {
                text_field_ui(
                    ui,
                    &mut form.fields.lipsync_audio_url,
                    "Speech audio URL",
                    "https://… .mp3 or .wav",
                )
            };
            mark(form, Field::LipsyncSource, &speech, true);
            errors_ui(ui, form, Field::LipsyncSource);
        }
        VideoEditOperationKind::RemoveBackground => {
            let refine = ui.checkbox(&mut form.fields.refine_edges, "Refine edges");
            widgets::name_widget(&refine, "Refine edges");
            let person = ui.checkbox(
                &mut form.fields.subject_is_person,
                "The subject is a person",
            );
            widgets::name_widget(&person, "The subject is a person");
        }
        VideoEditOperationKind::Inpaint => {
            let mask = text_field_ui(
                ui,
                &mut form.fields.mask_video_url,
                "Mask video URL",
                "Optional: black and white, white is filled",
            );
            mark(form, Field::MaskVideo, &mask, true);
            errors_ui(ui, form, Field::MaskVideo);
            text_field_ui(
                ui,
                &mut form.fields.object_prompt,
                "Object",
                "What to remove or fill",
            );
            prompt_ui(
                ui,
                form,
                "Prompt",
                "Optional: what should be there instead…",
                true,
            );
            ui.label(RichText::new("Closeness to the source").color(tokens::palette().text_muted));
            let mut strength = form.fields.video_strength.unwrap_or(0.5);
            let response = ui.add(egui::Slider::new(&mut strength, 0.0..=1.0).fixed_decimals(2));
            widgets::name_widget(&response, "Closeness to the source");
            mark(form, Field::VideoStrength, &response, true);
            if response.changed() {
                form.fields.video_strength = Some(strength);
            }
            errors_ui(ui, form, Field::VideoStrength);
        }
        VideoEditOperationKind::Retake => {
            widgets::muted(
                ui,
                "Set the span to redo on the timeline above (I and O at the playhead).",
            );
            egui::Grid::new("retake_times")
                .num_columns(2)
                .show(ui, |ui| {
                    ui.label("From");
                    ui.label(
                        RichText::new(time_text(form, form.fields.retake_start_secs)).monospace(),
                    );
                    ui.end_row();
                    ui.label("Length");
                    ui.label(RichText::new(time_text(form, form.fields.retake_secs)).monospace());
                    ui.end_row();
                });
            errors_ui(ui, form, Field::StartTime);
            errors_ui(ui, form, Field::Duration);
            ui.label(RichText::new("Redo").color(tokens::palette().text_muted));
            ui.horizontal_wrapped(|ui| {
                for (mode, label) in [
                    (RetakeMode::ReplaceAudioAndVideo, "Picture and sound"),
                    (RetakeMode::ReplaceVideo, "Picture"),
                    (RetakeMode::ReplaceAudio, "Sound"),
                ] {
                    let response = ui.add(widgets::toggle_button(
                        label,
                        form.fields.retake_mode == mode,
                    ));
                    widgets::name_widget(&response, &format!("Redo {label}"));
                    if response.clicked() {
                        form.fields.retake_mode = mode;
                    }
                }
            });
            prompt_ui(
                ui,
                form,
                "Prompt",
                "Optional: how the span should play instead…",
                true,
            );
        }
    }
}

/// Reframe placement: centred, or a 3 x 3 grid of anchors.
fn placement_ui(ui: &mut Ui, form: &mut VideoEditForm) {
    let centred = form.fields.grid_x.is_none() && form.fields.grid_y.is_none();
    let response = ui.add(widgets::toggle_button("Centre", centred));
    widgets::name_widget(&response, "Placement Centre");
    mark(form, Field::GridPosition, &response, true);
    if response.clicked() {
        form.fields.grid_x = None;
        form.fields.grid_y = None;
    }
    // Exactly 0 is "unset" to the service, so the near edge is sent as 0.01.
    let stops = [(0.01, "left"), (0.5, "middle"), (1.0, "right")];
    let rows = [(0.01, "top"), (0.5, "middle"), (1.0, "bottom")];
    egui::Grid::new("reframe_grid")
        .spacing(Vec2::splat(2.0))
        .show(ui, |ui| {
            for (y, row_name) in rows {
                for (x, column_name) in stops {
                    let on = form.fields.grid_x == Some(x) && form.fields.grid_y == Some(y);
                    let name = format!("Placement {row_name} {column_name}");
                    // Framed, so the nine empty anchors are visible before one is chosen.
                    let response = ui.add(
                        egui::Button::new("")
                            .frame(true)
                            .selected(on)
                            .min_size(Vec2::new(26.0, 18.0)),
                    );
                    widgets::name_widget(&response, &name);
                    if response.on_hover_text(&name).clicked() {
                        form.fields.grid_x = Some(x);
                        form.fields.grid_y = Some(y);
                    }
                }
                ui.end_row();
            }
        });
}

fn seconds_ui(
    ui: &mut Ui,
    name: &str,
    value: &mut f64,
    range: std::ops::RangeInclusive<f64>,
) -> egui::Response {
    ui.label(RichText::new(name).color(tokens::palette().text_muted));
    let response = ui.add(
        egui::DragValue::new(value)
            .range(range)
            .speed(0.1)
            .fixed_decimals(1)
            .suffix(" s"),
    );
    widgets::name_widget(&response, name);
    response
}

/// The submit button for a video edit, pinned under the form like Generate.
pub fn submit_row_ui(
    ui: &mut Ui,
    model: &Model,
    form: &VideoEditForm,
    project_id: Option<&str>,
    actions: &mut Vec<Action>,
) {
    let button = widgets::primary_button(form.button_text(model, project_id))
        .min_size(Vec2::new(ui.available_width(), 40.0));
    let hover = match form.choice {
        EditChoice::Trim => "A trim is free: no credits are used.".to_owned(),
        _ if form.source_secs().is_none() => {
            "The price shows once the source video's length is known.".to_owned()
        }
        EditChoice::Operation(VideoEditOperationKind::Extend) => {
            "Billed for the added seconds plus about one second of context (at most 21 s)."
                .to_owned()
        }
        EditChoice::Operation(VideoEditOperationKind::Retake) => {
            "Billed for the whole length of the source video.".to_owned()
        }
        _ => "Billed per second of the source video.".to_owned(),
    };
    if ui.add(button).on_hover_text(hover).clicked() {
        actions.push(Action::SubmitCompose);
    }
    let hint = format!(
        "{} to {}",
        ui.ctx().format_shortcut(&super::SUBMIT_SHORTCUT),
        form.choice.verb().to_lowercase()
    );
    ui.label(
        RichText::new(hint)
            .size(tokens::TEXT_SMALL)
            .color(tokens::palette().text_faint),
    );
    if form.show_validation
        && let Some(line) = form.attention.refusal_line(&form.errors)
    {
        widgets::field_error(ui, &line);
    }
}
