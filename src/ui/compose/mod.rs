//! The Create view: the form (type picker, prompt, model and output controls, source
//! images, project, and the Generate button with its live credit estimate) on the left,
//! the session's results as large tiles on the right ([`canvas`]). [`CreateState`] owns
//! the form and handles Create's events; this module only lays it out.

pub mod attention;
pub mod audio_form;
pub mod audio_results;
pub mod auto_mapping;
pub mod canvas;
pub mod columns;
pub mod dna_picker;
pub mod form;
pub mod memory;
pub mod model_avatar;
pub mod moodboard_picker;
pub mod motion_form;
pub mod picker_popup;
pub mod prompt_presets;
pub mod state;
pub mod storyboard;
pub mod three_d_form;
pub mod transcription_form;
pub mod video_edit;
pub mod voice_picker;

pub use form::{ComposeForm, Estimate, SourceImage, SourceState};
pub use state::CreateState;

use crate::api::validate::Field;
use crate::api::{GenerationKind, WorkflowType};
use crate::ui::format;
use crate::ui::model::{Action, Model};
use crate::ui::offline;
use crate::ui::textures::TextureCache;
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{
    CornerRadius, Key, KeyboardShortcut, Modifiers, Rect, RichText, Stroke, TextEdit, Ui, Vec2,
};

pub const SUBMIT_SHORTCUT: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Enter);

/// The accessible name of the handle between the form and the results.
pub const FORM_SPLITTER_NAME: &str = "Form width";
/// Width from which aspect ratio, resolution and count sit side by side.
const OUTPUT_ROW_MIN_WIDTH: f32 = 440.0;
/// Height kept under the form for the Generate button, its hint and the error line.
const GENERATE_FOOTER_HEIGHT: f32 = 96.0;
/// Extra height under Generate while the "more than your balance" warning shows.
const SHORTFALL_NOTE_HEIGHT: f32 = 36.0;
/// Extra height under Generate / Apply for the line naming the field to fix.
const REFUSAL_LINE_HEIGHT: f32 = 20.0;

/// Lay out the Create view. Text fields edit the form in place; everything else is
/// returned as actions.
pub fn create_ui(
    ui: &mut Ui,
    model: &Model,
    state: &mut CreateState,
    textures: &TextureCache,
) -> Vec<Action> {
    let mut actions = Vec::new();
    if ui.input_mut(|i| i.consume_shortcut(&SUBMIT_SHORTCUT)) {
        actions.push(Action::SubmitCompose);
    }
    // Out of the state while laying out: the canvas reads the state and drives its player.
    let mut player = std::mem::take(&mut state.canvas_player);
    let full = ui.available_rect_before_wrap();
    let canvas_min = canvas::MIN_TILE_SIDE + tokens::SCROLLBAR_ALLOWANCE;
    // The window's width, not the view's: opening the job tray must not re-flow the form.
    let window_width = ui.ctx().content_rect().width();
    let two_columns =
        columns::form_width(state.form_width_pt, window_width, full.width(), canvas_min);
    let side_by_side = two_columns.is_some();
    let form_width = two_columns.unwrap_or(full.width());
    // The Generate button stays in view under the form, however long the form gets, and
    // sits right under it when the form is shorter than the window.
    let mut footer_height = if balance_shortfall(model, &state.form).is_some() {
        GENERATE_FOOTER_HEIGHT + SHORTFALL_NOTE_HEIGHT
    } else {
        GENERATE_FOOTER_HEIGHT
    };
    // Room for the line naming the field to fix, after a refused submit.
    let refused = if state.form.kind == GenerationKind::VideoEdit {
        state.video_edit.show_validation && !state.video_edit.errors.is_empty()
    } else if state.form.kind == GenerationKind::Transcription {
        state.transcription.problem.is_some()
    } else if state.form.kind == GenerationKind::ThreeD {
        !state.three_d.errors.is_empty()
    } else {
        !state.form.errors.is_empty()
    };
    if refused {
        footer_height += REFUSAL_LINE_HEIGHT;
    }
    let room_height = (full.height() - footer_height).max(0.0);
    let scroll_height = if side_by_side {
        room_height.min(state.form_content_height_pt)
    } else {
        room_height
    };
    let scroll_rect = Rect::from_min_size(full.min, Vec2::new(form_width, scroll_height));
    let footer_rect = Rect::from_min_max(
        egui::pos2(full.min.x, scroll_rect.max.y),
        egui::pos2(full.min.x + form_width, full.max.y),
    );
    let form_height = ui.scope_builder(egui::UiBuilder::new().max_rect(scroll_rect), |ui| {
        let output = egui::ScrollArea::vertical()
            .id_salt(if side_by_side {
                "create_form"
            } else {
                "create_stacked"
            })
            .auto_shrink([false, false])
            .show(ui, |ui| {
                ui.set_width(ui.available_width() - tokens::SCROLLBAR_ALLOWANCE);
                form_ui(ui, model, state, textures, &mut actions);
                if !side_by_side {
                    // Too narrow for a results column: the results follow the form.
                    edit_stage_ui(ui, state, textures, &mut actions);
                    canvas::canvas_ui(ui, model, state, &mut player, textures, false, &mut actions);
                }
            });
        output.content_size.y
    });
    state.form_content_height_pt = form_height.inner;
    ui.scope_builder(
        egui::UiBuilder::new().max_rect(footer_rect.shrink2(Vec2::new(0.0, tokens::SPACE_S))),
        |ui| {
            if state.form.kind == GenerationKind::VideoEdit {
                let project = state.form.project_id.as_deref();
                video_edit::submit_row_ui(ui, model, &state.video_edit, project, &mut actions);
            } else if state.form.kind == GenerationKind::Transcription {
                transcription_form::submit_row_ui(ui, model, &state.transcription, &mut actions);
            } else if state.form.kind == GenerationKind::ThreeD {
                three_d_form::submit_row_ui(ui, model, &state.three_d, &mut actions);
            } else {
                generate_row_ui(ui, model, &state.form, &mut actions);
            }
        },
    );
    if side_by_side {
        let splitter_rect = Rect::from_min_max(
            egui::pos2(full.min.x + form_width, full.min.y),
            egui::pos2(full.min.x + form_width + columns::COLUMN_GAP, full.max.y),
        );
        widgets::column_splitter(
            ui,
            splitter_rect.shrink2(Vec2::new(columns::COLUMN_GAP / 4.0, 0.0)),
            &mut state.form_width_pt,
            columns::default_form_width(window_width),
            columns::form_width_range(window_width),
            FORM_SPLITTER_NAME,
        );
        let canvas_rect = Rect::from_min_max(egui::pos2(splitter_rect.max.x, full.min.y), full.max);
        ui.scope_builder(egui::UiBuilder::new().max_rect(canvas_rect), |ui| {
            edit_stage_ui(ui, state, textures, &mut actions);
            canvas::canvas_ui(ui, model, state, &mut player, textures, true, &mut actions);
        });
    }
    ui.allocate_rect(full, egui::Sense::hover());
    state.canvas_player = player;
    actions
}

/// Video edit: the source player and its timeline above the results.
fn edit_stage_ui(
    ui: &mut Ui,
    state: &mut CreateState,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    if state.form.kind != GenerationKind::VideoEdit {
        return;
    }
    ui.add_space(tokens::SPACE_L);
    video_edit::stage::stage_ui(
        ui,
        &mut state.video_edit,
        &mut state.edit_stage,
        textures,
        actions,
    );
}

fn form_ui(
    ui: &mut Ui,
    model: &Model,
    state: &mut CreateState,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    ui.add_space(tokens::SPACE_L);
    header_ui(ui, model, &mut state.form);
    ui.add_space(tokens::SPACE_M);
    if state.form.kind == GenerationKind::VideoEdit {
        state.focus_prompt = false;
        let project = state.form.project_id.clone();
        state
            .video_edit
            .refresh_validation(model, project.as_deref());
        video_edit::edit_form_ui(ui, model, &mut state.video_edit, actions);
        ui.add_space(tokens::SPACE_M);
        project_card_ui(ui, model, &mut state.form, actions);
        ui.add_space(tokens::SPACE_L);
        return;
    }
    if state.form.kind == GenerationKind::Transcription {
        state.focus_prompt = false;
        transcription_form::form_ui(ui, &mut state.transcription, actions);
        ui.add_space(tokens::SPACE_M);
        project_card_ui(ui, model, &mut state.form, actions);
        ui.add_space(tokens::SPACE_L);
        return;
    }
    if state.form.kind == GenerationKind::ThreeD {
        state.focus_prompt = false;
        three_d_form::form_ui(ui, model, &mut state.three_d, actions);
        ui.add_space(tokens::SPACE_M);
        project_card_ui(ui, model, &mut state.form, actions);
        ui.add_space(tokens::SPACE_L);
        return;
    }
    let focus = std::mem::take(&mut state.focus_prompt);
    state.form.attention.begin_form();
    // A lip sync's words are its typed line (in its own card), not a prompt.
    if state.form.kind != GenerationKind::Lipsync {
        prompt_card_ui(ui, model, state, focus, actions);
    }
    let form = &mut state.form;
    if form.kind.outputs_audio() {
        ui.add_space(tokens::SPACE_M);
        audio_form::audio_card_ui(ui, model, form, actions);
        ui.add_space(tokens::SPACE_M);
        model_card_ui(ui, model, form, textures, actions);
        ui.add_space(tokens::SPACE_M);
        project_card_ui(ui, model, form, actions);
        form.attention.end_form();
        ui.add_space(tokens::SPACE_L);
        return;
    }
    if form.is_motion() {
        // Elements, first and last frame, lip sync: the media first, then the model.
        ui.add_space(tokens::SPACE_M);
        motion_form::motion_card_ui(ui, model, form, textures, actions);
        ui.add_space(tokens::SPACE_M);
        model_card_ui(ui, model, form, textures, actions);
        ui.add_space(tokens::SPACE_M);
        project_card_ui(ui, model, form, actions);
        form.attention.end_form();
        ui.add_space(tokens::SPACE_L);
        return;
    }
    // What is edited or animated comes right after the prompt; Creative Director's
    // optional references come after its model.
    let sources_first = matches!(
        form.kind,
        GenerationKind::ImageEdit | GenerationKind::ImageToVideo
    );
    if sources_first {
        ui.add_space(tokens::SPACE_M);
        sources_card_ui(ui, form, textures, actions);
    }
    if form.kind == GenerationKind::CreativeDirector {
        ui.add_space(tokens::SPACE_M);
        storyboard_card_ui(ui, form, textures, actions);
    }
    ui.add_space(tokens::SPACE_M);
    model_card_ui(ui, model, form, textures, actions);
    if form.takes_sources() && !sources_first {
        ui.add_space(tokens::SPACE_M);
        sources_card_ui(ui, form, textures, actions);
    }
    ui.add_space(tokens::SPACE_M);
    project_card_ui(ui, model, form, actions);
    form.attention.end_form();
    ui.add_space(tokens::SPACE_L);
}

fn header_ui(ui: &mut Ui, model: &Model, form: &mut ComposeForm) {
    ui.label(
        RichText::new("Create")
            .size(tokens::TEXT_HEADING)
            .strong()
            .color(tokens::palette().text),
    );
    ui.add_space(tokens::SPACE_XS);
    segmented_kind_ui(ui, model, form);
    ui.add_space(tokens::SPACE_XS);
    widgets::muted(ui, kind_description(form.kind));
    let reset = ui
        .add(widgets::subtle_button("Reset to defaults"))
        .on_hover_text(if form.has_kind_defaults() {
            "Use the model, resolution and duration set for this type in Settings"
        } else {
            "Use Auto and the service's defaults (set your own per type in Settings)"
        });
    if reset.clicked() {
        form.apply_kind_defaults();
    }
}

fn kind_description(kind: GenerationKind) -> &'static str {
    match kind {
        GenerationKind::Image => "Describe an image; results appear as they finish.",
        GenerationKind::ImageEdit => "Add source images and describe the change you want.",
        GenerationKind::TextToVideo => {
            "Describe a shot; the video plays here when it is done (usually 1-5 minutes)."
        }
        GenerationKind::ImageToVideo => {
            "Add one image and, if you like, describe the motion; it becomes a video."
        }
        GenerationKind::CreativeDirector => {
            "One prompt becomes a storyboard of 1-8 scenes, images or videos, filled in scene by scene."
        }
        GenerationKind::VideoEdit => {
            "Pick a source video and an operation; the edited copy appears here."
        }
        GenerationKind::VideoToVideo => "Restyle a source video with a chosen model and a prompt.",
        GenerationKind::VideoTrim => {
            "Cut a source video to a span; free, and the original is kept."
        }
        GenerationKind::Chat => "Chat messages are written in the Chat view.",
        GenerationKind::ImageTool => {
            "Upscale or remove the background from a result or a library image."
        }
        GenerationKind::Music => {
            "Describe a song; two variations come back, each with its title and lyrics."
        }
        GenerationKind::Speech => "Type the words, pick a voice, and hear them spoken.",
        GenerationKind::Sound => "Describe a sound effect; it can loop seamlessly.",
        GenerationKind::Transcription => {
            "Pick an audio or video; its words come back as text and subtitles."
        }
        GenerationKind::Elements => {
            "Give reference images, clips and sound; they become one video."
        }
        GenerationKind::FirstLastFrame => {
            "Give a first and a last image; the video moves from one to the other."
        }
        GenerationKind::Lipsync => {
            "Give a face (image or video) and a voice (audio or a typed line); it speaks."
        }
        GenerationKind::ThreeD => {
            "Describe an object or give images of it; a 3D model comes back to turn and save."
        }
    }
}

/// The types Create offers: every generation, and video editing (whose form picks trim,
/// an edit operation or a restyle).
const PICKER_KINDS: [GenerationKind; 6] = [
    GenerationKind::Image,
    GenerationKind::ImageEdit,
    GenerationKind::TextToVideo,
    GenerationKind::ImageToVideo,
    GenerationKind::CreativeDirector,
    GenerationKind::VideoEdit,
];

/// The sound kinds, offered when the catalog has models of their type (or one is chosen).
const SOUND_KINDS: [GenerationKind; 3] = [
    GenerationKind::Music,
    GenerationKind::Speech,
    GenerationKind::Sound,
];

/// The kinds the type picker shows now: [`PICKER_KINDS`], the motion kinds (elements,
/// first and last frame, lip sync) and the sound kinds the catalog has models for.
pub fn picker_kinds(model: &Model, current: GenerationKind) -> Vec<GenerationKind> {
    let mut kinds = PICKER_KINDS.to_vec();
    kinds.extend(
        motion_form::MOTION_KINDS.into_iter().filter(|kind| {
            *kind == current || !model.models_of_kind(kind.catalog_type()).is_empty()
        }),
    );
    kinds.extend(
        SOUND_KINDS.into_iter().filter(|kind| {
            *kind == current || !model.models_of_kind(kind.catalog_type()).is_empty()
        }),
    );
    // 3D when the catalog has a 3D model (or it is chosen).
    if current == GenerationKind::ThreeD
        || !model
            .models_of_kind(GenerationKind::ThreeD.catalog_type())
            .is_empty()
    {
        kinds.push(GenerationKind::ThreeD);
    }
    // Transcription takes a sound or video rather than making one: last.
    kinds.push(GenerationKind::Transcription);
    kinds
}

/// The type picker: every kind in equal cells, on one row when the column is wide enough,
/// else in two or three even rows. The rows depend on the column's width alone, so they
/// do not change while jobs come and go.
fn segmented_kind_ui(ui: &mut Ui, model: &Model, form: &mut ComposeForm) {
    let kinds = picker_kinds(model, form.kind);
    const GAP: f32 = 2.0;
    const MARGIN: i8 = 3;
    // Too narrow for two columns (a 1024-px window with the tray open): one row per type
    // would push the prompt below the fold, so the types become a dropdown.
    let padding = ui.spacing().button_padding.x * 2.0;
    let font = egui::TextStyle::Button.resolve(ui.style());
    let widest = kinds
        .iter()
        .map(|kind| {
            ui.painter()
                .layout_no_wrap(kind.label().to_owned(), font.clone(), egui::Color32::WHITE)
                .size()
                .x
                + padding
        })
        .fold(0.0, f32::max);
    let inner_width = ui.available_width() - 2.0 * f32::from(MARGIN) - 2.0;
    if widest * 2.0 + GAP > inner_width {
        kind_dropdown_ui(ui, &kinds, form);
        return;
    }
    egui::Frame::new()
        .fill(tokens::palette().bg_panel)
        .stroke(Stroke::new(1.0, tokens::palette().border))
        .corner_radius(CornerRadius::same(tokens::RADIUS_M))
        .inner_margin(egui::Margin::same(MARGIN))
        .show(ui, |ui| {
            let width = ui.available_width();
            ui.set_width(width);
            let padding = ui.spacing().button_padding.x * 2.0;
            let widest = kinds
                .iter()
                .map(|kind| {
                    let font = egui::TextStyle::Button.resolve(ui.style());
                    ui.painter()
                        .layout_no_wrap(kind.label().to_owned(), font, egui::Color32::WHITE)
                        .size()
                        .x
                        + padding
                })
                .fold(0.0, f32::max);
            let columns = [kinds.len(), 3, 2]
                .into_iter()
                .find(|&n| widest * n as f32 + GAP * (n as f32 - 1.0) <= width)
                .unwrap_or(1);
            let cell = ((width - GAP * (columns as f32 - 1.0)) / columns as f32).floor();
            ui.spacing_mut().item_spacing = Vec2::splat(GAP);
            for row in kinds.chunks(columns) {
                ui.horizontal(|ui| {
                    for &kind in row {
                        let clicked = ui
                            .add_sized(
                                Vec2::new(cell, 26.0),
                                segment_button(form.kind == kind, kind.label()),
                            )
                            .clicked();
                        if clicked {
                            form.set_kind(kind);
                        }
                    }
                });
            }
        });
}

/// The type picker as a dropdown named "Type" (narrow columns).
fn kind_dropdown_ui(ui: &mut Ui, kinds: &[GenerationKind], form: &mut ComposeForm) {
    let mut chosen = form.kind;
    let combo = egui::ComboBox::from_id_salt("create_type")
        .width(ui.available_width())
        .selected_text(format!("Type: {}", form.kind.label()))
        .show_ui(ui, |ui| {
            for &kind in kinds {
                let item = ui.selectable_label(chosen == kind, kind.label());
                widgets::name_widget(&item, kind.label());
                if item.clicked() {
                    chosen = kind;
                }
            }
        });
    widgets::name_widget(&combo.response, "Type");
    if chosen != form.kind {
        form.set_kind(chosen);
    }
}

/// One segment of a segmented control: a selectable button with accent fill when chosen.
fn segment(ui: &mut Ui, selected: bool, text: &str) -> egui::Response {
    ui.add(segment_button(selected, text))
}

fn segment_button(selected: bool, text: &str) -> egui::Button<'static> {
    let (fill, color) = if selected {
        (tokens::palette().accent, tokens::palette().on_accent)
    } else {
        (egui::Color32::TRANSPARENT, tokens::palette().text_muted)
    };
    egui::Button::selectable(selected, RichText::new(text).color(color))
        .fill(fill)
        .stroke(Stroke::NONE)
        .corner_radius(CornerRadius::same(tokens::RADIUS_S + 2))
        .truncate()
        .min_size(Vec2::new(44.0, 26.0))
}

fn prompt_card_ui(
    ui: &mut Ui,
    model: &Model,
    state: &mut CreateState,
    focus: bool,
    actions: &mut Vec<Action>,
) {
    let presets = &mut state.prompt_presets;
    let form = &mut state.form;
    tokens::card_frame().show(ui, |ui| {
        ui.set_width(ui.available_width());
        let speech = form.kind == GenerationKind::Speech;
        let field_name = if speech { "Text" } else { "Prompt" };
        let label = widgets::section_label(ui, field_name);
        let max = form.max_prompt_chars(model) as usize;
        let count = form.prompt.chars().count();
        let over = count > max;
        let hint = match form.kind {
            GenerationKind::ImageToVideo => "Optional: the motion — slow push in, leaves drifting…",
            GenerationKind::FirstLastFrame => "Optional: how it moves — a slow dolly between them…",
            GenerationKind::Elements => {
                "How the references come together — the fox runs through the snow…"
            }
            GenerationKind::TextToVideo => "A drone glides over a foggy harbour at dawn, gulls…",
            GenerationKind::CreativeDirector => "A paper boat's journey from a gutter to the sea…",
            GenerationKind::Music => "An upbeat summer pop song about a road trip…",
            GenerationKind::Speech => "The words to speak, as they should be read…",
            GenerationKind::Sound => "A heavy wooden door creaking open in a stone hall…",
            _ => "A quiet harbour at dawn, mist over the water, 35 mm film…",
        };
        let mut edit = TextEdit::multiline(&mut form.prompt)
            .hint_text(hint)
            .desired_rows(5)
            .desired_width(f32::INFINITY)
            .margin(egui::Margin::same(10));
        if over {
            edit = edit.background_color(tokens::palette().danger_soft);
        }
        // Long prompts scroll inside the box instead of pushing the form down.
        let prompt = egui::ScrollArea::vertical()
            .id_salt("prompt_scroll")
            .max_height(240.0)
            .show(ui, |ui| {
                let output = edit.show(ui);
                widgets::name_widget(&output.response.response, field_name);
                if focus {
                    output.response.response.request_focus();
                }
                output.response.response
            })
            .inner;
        // Out here, so the form's scroll area (not the prompt's own) brings it into view.
        attention::mark_create(form, Field::Prompt, &prompt, true);
        let _ = label;
        if speech {
            // The speech price follows the text: "312 characters · 4 × 1 credit = 4 credits".
            let line = audio_form::speech_price_line(model, form);
            ui.horizontal(|ui| {
                let price = ui.label(
                    RichText::new(&line)
                        .size(tokens::TEXT_SMALL)
                        .color(tokens::palette().text_muted),
                );
                widgets::name_widget(&price, &line);
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    let color = if over {
                        tokens::palette().danger
                    } else {
                        tokens::palette().text_faint
                    };
                    ui.label(
                        RichText::new(format!("at most {}", format::thousands(max as f64)))
                            .size(tokens::TEXT_SMALL)
                            .color(color),
                    );
                });
            });
            for message in form.messages_for(&Field::Prompt) {
                widgets::field_error(ui, message);
            }
            return;
        }
        ui.horizontal(|ui| {
            prompt_presets::prompt_presets_ui(ui, presets, form, actions);
            for message in form.messages_for(&Field::Prompt) {
                widgets::field_error(ui, message);
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let color = if over {
                    tokens::palette().danger
                } else {
                    tokens::palette().text_faint
                };
                ui.label(
                    RichText::new(format!(
                        "{} / {}",
                        format::thousands(count as f64),
                        format::thousands(max as f64)
                    ))
                    .size(tokens::TEXT_SMALL)
                    .color(color),
                );
            });
        });
    });
}

fn model_card_ui(
    ui: &mut Ui,
    model: &Model,
    form: &mut ComposeForm,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    tokens::card_frame().show(ui, |ui| {
        ui.set_width(ui.available_width());
        widgets::section_label(ui, "Model");
        model_picker_ui(ui, model, form, textures);
        for message in form.messages_for(&Field::Model) {
            widgets::field_error(ui, message);
        }
        if let Some(summary) = form
            .selected_model(model)
            .and_then(|m| m.summary.clone())
            .filter(|s| !s.trim().is_empty())
        {
            ui.label(
                RichText::new(summary)
                    .size(12.5)
                    .color(tokens::palette().text_muted),
            );
        }
        ui.add_space(tokens::SPACE_S);

        let options = form.output_options(model);
        // Side by side when there is room, else one above the other (a wrapped row of
        // groups would grow the card past the form column instead).
        let layout = if ui.available_width() >= OUTPUT_ROW_MIN_WIDTH {
            egui::Layout::left_to_right(egui::Align::Min)
        } else {
            egui::Layout::top_down(egui::Align::Min)
        };
        ui.with_layout(layout, |ui| {
            ui.spacing_mut().item_spacing.x = tokens::SPACE_L;
            if !options.aspect_ratios.is_empty() {
                ui.vertical(|ui| {
                    widgets::section_label(ui, "Aspect ratio");
                    let first = choice_row_ui(ui, &options.aspect_ratios, &mut form.aspect_ratio);
                    attention::mark_create(form, Field::AspectRatio, &first, true);
                    for message in form.messages_for(&Field::AspectRatio) {
                        widgets::field_error(ui, message);
                    }
                });
            }
            if !options.resolutions.is_empty() {
                ui.vertical(|ui| {
                    widgets::section_label(ui, "Resolution");
                    let first = choice_row_ui(ui, &options.resolutions, &mut form.resolution);
                    attention::mark_create(form, Field::Resolution, &first, true);
                    for message in form.messages_for(&Field::Resolution) {
                        widgets::field_error(ui, message);
                    }
                });
            }
            if !options.durations_secs.is_empty() {
                ui.vertical(|ui| {
                    widgets::section_label(ui, "Duration");
                    let labels: Vec<String> = options
                        .durations_secs
                        .iter()
                        .map(|d| format::seconds_label(*d))
                        .collect();
                    let mut current = format::seconds_label(form.duration_secs);
                    let first = choice_row_ui(ui, &labels, &mut current);
                    attention::mark_create(form, Field::Duration, &first, true);
                    if let Some(index) = labels.iter().position(|l| *l == current) {
                        form.duration_secs = options.durations_secs[index];
                    }
                    for message in form.messages_for(&Field::Duration) {
                        widgets::field_error(ui, message);
                    }
                });
            }
            if options.max_images > 1 {
                ui.vertical(|ui| {
                    widgets::section_label(ui, "Images");
                    let counts: Vec<String> =
                        (1..=options.max_images).map(|n| n.to_string()).collect();
                    let mut current = form.num_images.to_string();
                    let first = choice_row_ui(ui, &counts, &mut current);
                    attention::mark_create(form, Field::NumImages, &first, true);
                    form.num_images = current.parse().unwrap_or(1);
                    for message in form.messages_for(&Field::NumImages) {
                        widgets::field_error(ui, message);
                    }
                });
            }
        });
        if let Some(note) = auto_mapping::auto_mapping_note(form, model) {
            widgets::muted(ui, note);
        }
        if form.kind.outputs_audio() {
            // Sound has no enhance, visual DNA or cinematic options.
            return;
        }
        if form.is_motion() {
            // Their routes take no enhance; elements takes Visual DNA.
            if form.kind == GenerationKind::Elements {
                visual_dna_ui(ui, model, form, textures, actions);
            }
            return;
        }
        ui.add_space(tokens::SPACE_S);
        ui.checkbox(&mut form.enhance_prompt, "Enhance prompt")
            .on_hover_text("Let the service expand the prompt before generating.");
        visual_dna_ui(ui, model, form, textures, actions);
        if form.kind != GenerationKind::CreativeDirector {
            moodboard_ui(ui, form, textures, actions);
        }
        if form.kind_takes_presets() {
            cinematic_toggle_ui(ui, model, form);
        }
        if form.kind_takes_presets() && form.cinematic_open {
            cinematic_section_ui(ui, model, form, textures, actions);
        }
    });
}

/// A compact segmented row of text choices; returns the row (its first choice when there is
/// one: what takes the focus after a refused Generate).
fn choice_row_ui(ui: &mut Ui, choices: &[String], current: &mut String) -> egui::Response {
    let row = egui::Frame::new()
        .fill(tokens::palette().bg_panel)
        .stroke(Stroke::new(1.0, tokens::palette().border))
        .corner_radius(CornerRadius::same(tokens::RADIUS_M))
        .inner_margin(egui::Margin::same(3))
        .show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                ui.spacing_mut().item_spacing = Vec2::splat(2.0);
                ui.spacing_mut().button_padding.x = 6.0;
                let mut first = None;
                for choice in choices {
                    let response = segment(ui, current == choice, choice);
                    if response.clicked() {
                        *current = choice.clone();
                    }
                    first.get_or_insert(response);
                }
                first
            })
            .inner
        });
    row.inner.unwrap_or(row.response)
}

fn price_text(record: &crate::api::ModelRecord) -> Option<String> {
    if let Some((_, v)) = record.flat_credit_by_resolution.iter().next() {
        return Some(format!("{} cr", format::thousands(*v)));
    }
    // Speech is priced per started 100 characters of its text.
    let per = if record.has_type(crate::api::SPEECH_CATALOG_TYPE) {
        " / 100 characters"
    } else {
        ""
    };
    record
        .credit
        .map(|c| format!("{} cr{per}", format::thousands(c)))
}

fn model_line(record: &crate::api::ModelRecord) -> String {
    let mut parts = vec![record.display_name().to_owned()];
    if !record.provider.is_empty() {
        parts.push(record.provider.clone());
    }
    if let Some(price) = price_text(record) {
        parts.push(price);
    }
    parts.join(" · ")
}

/// Creative Director's own choices: how many scenes, and whether they are images or videos.
fn storyboard_card_ui(
    ui: &mut Ui,
    form: &mut ComposeForm,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    tokens::card_frame().show(ui, |ui| {
        ui.set_width(ui.available_width());
        widgets::section_label(ui, "Scenes");
        let counts: Vec<String> = (crate::api::MIN_SCENE_COUNT..=crate::api::MAX_SCENE_COUNT)
            .map(|n| n.to_string())
            .collect();
        let mut current = form.scene_count.to_string();
        let first = choice_row_ui(ui, &counts, &mut current);
        attention::mark_create(form, Field::SceneCount, &first, true);
        form.scene_count = current.parse().unwrap_or(crate::api::DEFAULT_SCENE_COUNT);
        for message in form.messages_for(&Field::SceneCount) {
            widgets::field_error(ui, message);
        }
        ui.add_space(tokens::SPACE_S);
        widgets::section_label(ui, "Each scene is");
        let modes = vec!["Images".to_owned(), "Videos".to_owned()];
        let mut mode = match form.workflow {
            WorkflowType::Image => modes[0].clone(),
            WorkflowType::Video => modes[1].clone(),
        };
        choice_row_ui(ui, &modes, &mut mode);
        form.workflow = if mode == modes[1] {
            WorkflowType::Video
        } else {
            WorkflowType::Image
        };
        widgets::muted(
            ui,
            "Every scene is graded by the project's palette and billed as one generation.",
        );
        ui.add_space(tokens::SPACE_S);
        moodboard_ui(ui, form, textures, actions);
    });
}

/// The Visual DNA picker, when this kind and model take Visual DNA.
fn visual_dna_ui(
    ui: &mut Ui,
    model: &Model,
    form: &mut ComposeForm,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    let cap = form.visual_dna_cap(model);
    if cap == 0 {
        return;
    }
    ui.add_space(tokens::SPACE_XS);
    let response = ui
        .scope(|ui| {
            let action = dna_picker::show(ui, &mut form.dna, &form.visual_dnas, cap, textures);
            actions.extend(action);
        })
        .response;
    attention::mark_create(form, Field::VisualDna, &response, false);
    for message in form.messages_for(&Field::VisualDna) {
        widgets::field_error(ui, message);
    }
}

/// The moodboard picker (Creative Director: all scenes or one per scene).
fn moodboard_ui(
    ui: &mut Ui,
    form: &mut ComposeForm,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    if !form.takes_moodboard() {
        return;
    }
    ui.add_space(tokens::SPACE_XS);
    let scenes = (form.kind == GenerationKind::CreativeDirector).then_some(form.scene_count);
    let response = ui
        .scope(|ui| {
            let action =
                moodboard_picker::show(ui, &mut form.moodboard, &form.moodboards, scenes, textures);
            actions.extend(action);
        })
        .response;
    attention::mark_create(form, Field::Moodboard, &response, false);
    for message in form.messages_for(&Field::Moodboard) {
        widgets::field_error(ui, message);
    }
}

fn model_picker_ui(ui: &mut Ui, model: &Model, form: &mut ComposeForm, textures: &TextureCache) {
    let mut models = model.models_of_kind(form.catalog_type());
    if form.kind == GenerationKind::FirstLastFrame {
        // Only the models that can move from a first to a last frame.
        models.retain(|m| m.supports_first_last_frame != Some(false));
    }
    let selected_text = match form.selected_model(model) {
        Some(record) => model_line(record),
        None if model.catalog.is_loaded() => "Auto · the service picks the best model".to_owned(),
        None if model.catalog.error.is_some() => "Auto (catalog unavailable)".to_owned(),
        None => "Auto · loading models…".to_owned(),
    };
    let width = ui.available_width();
    let inner = widgets::combo_that_fits(ui, ("model_picker", form.catalog_type()), &selected_text)
        .height(420.0)
        .show_ui(ui, |ui| {
            ui.set_min_width(width - 8.0);
            if ui
                .selectable_label(form.model_id.is_none(), "Auto · the service picks")
                .clicked()
            {
                form.model_id = None;
            }
            if !models.is_empty() {
                ui.separator();
            }
            for record in &models {
                ui.horizontal(|ui| {
                    model_avatar::avatar_ui(ui, textures, record);
                    let selected = form.model_id.as_deref() == Some(record.identifier.as_str());
                    if ui.selectable_label(selected, model_line(record)).clicked() {
                        form.model_id = Some(record.identifier.clone());
                    }
                    if record.recommended == Some(true) {
                        widgets::badge(ui, "RECOMMENDED", tokens::palette().success);
                    }
                    if record.new_model == Some(true) {
                        widgets::badge(ui, "NEW", tokens::palette().info);
                    }
                });
            }
            if models.is_empty() && model.catalog.is_loaded() {
                widgets::muted(ui, "No models of this type in the catalog.");
            }
        });
    widgets::name_widget(&inner.response, "Model");
    attention::mark_create(form, Field::Model, &inner.response, true);
    widgets::combo_full_text_on_hover(ui, inner.response, &selected_text);
    if let Some(error) = &model.catalog.error {
        offline::load_error_ui(ui, model, "Could not load the model catalog", error);
    }
}

fn sources_card_ui(
    ui: &mut Ui,
    form: &mut ComposeForm,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    tokens::card_frame().show(ui, |ui| {
        ui.set_width(ui.available_width());
        let (title, empty_text, add_label) = match form.kind {
            GenerationKind::ImageToVideo => (
                "Image to animate",
                "Add the image to animate: pick a file, drop one on the window, paste a URL, \
                 or press Animate on any image result or library image.",
                "Choose image…",
            ),
            GenerationKind::CreativeDirector => (
                "Reference images",
                "Optional: images every scene should take after (characters, places, style).",
                "Add images…",
            ),
            _ => (
                "Source images",
                "Add the images to edit: pick files, drop them on the window, or paste a URL. \
                 Without one, the editing model works from the prompt alone.",
                "Add images…",
            ),
        };
        widgets::section_label(ui, title);
        if form.sources.is_empty() {
            widgets::muted(ui, empty_text);
        }
        widgets::chip_rows(ui, form.sources.len(), |ui, index, width| {
            source_chip_ui(ui, index, &form.sources[index], width, textures, actions);
        });
        for message in form.messages_for(&form.sources_field()) {
            widgets::field_error(ui, message);
        }
        ui.add_space(tokens::SPACE_XS);
        // Wraps in a narrow column rather than widening the card past the form.
        ui.horizontal_wrapped(|ui| {
            let add = ui.add(widgets::secondary_button(add_label));
            attention::mark_create(form, form.sources_field(), &add, true);
            if add.clicked() {
                actions.push(Action::PickSourceFiles);
            }
            let hint = if form.kind == GenerationKind::ImageToVideo {
                "or drop one here, or add a URL:"
            } else {
                "or drop them here, or add a URL:"
            };
            ui.label(RichText::new(hint).color(tokens::palette().text_faint));
        });
        if url_row_ui(
            ui,
            &mut form.url_input,
            "https://… image URL",
            "Source image URL",
        ) {
            actions.push(Action::AddSourceUrl(form.url_input.clone()));
        }
        if let Some(error) = &form.url_error {
            widgets::field_error(ui, error);
        }
    });
}

/// A URL field with its Add URL button; true when the artist asked to add (button or Enter).
fn url_row_ui(ui: &mut Ui, input: &mut String, hint: &str, name: &str) -> bool {
    ui.horizontal(|ui| {
        let button_width = 84.0;
        let response = ui.add(
            TextEdit::singleline(input)
                .hint_text(hint)
                .desired_width((ui.available_width() - button_width - 8.0).max(120.0)),
        );
        widgets::name_widget(&response, name);
        let enter = response.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
        ui.add(widgets::secondary_button("Add URL")).clicked() || enter
    })
    .inner
}

/// A source's state in words and colour: upload progress, `ready_text`, or the failure.
fn source_status(
    state: &SourceState,
    upload_progress: Option<(u64, u64)>,
    ready_text: &str,
) -> (String, egui::Color32) {
    match state {
        SourceState::Uploading => match upload_progress {
            Some((done, total)) if total > 0 => (
                format!(
                    "uploading… {:.0} %",
                    (done as f64 / total as f64 * 100.0).min(100.0)
                ),
                tokens::palette().info,
            ),
            _ => ("uploading…".to_owned(), tokens::palette().info),
        },
        SourceState::Ready { .. } => (ready_text.to_owned(), tokens::palette().success),
        SourceState::Failed { error } => (format!("failed: {error}"), tokens::palette().danger),
    }
}

fn source_chip_ui(
    ui: &mut Ui,
    index: usize,
    source: &SourceImage,
    width: f32,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    let (status, color) = source_status(&source.state, source.upload_progress, "ready");
    let chip = widgets::truncating_chip(ui, width, |ui| {
        if let SourceState::Ready { url } = &source.state {
            crate::ui::textures::small_thumbnail_ui(ui, textures, url, 32.0, &source.label);
        }
        // The remove button first (from the right), so the names get what is left.
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            let remove = widgets::icon_button(
                ui,
                crate::ui::icons::Icon::Close,
                &format!("Remove {}", source.label),
            );
            if remove.clicked() {
                actions.push(Action::RemoveSource(index));
            }
            ui.vertical(|ui| {
                ui.set_width(ui.available_width());
                ui.spacing_mut().item_spacing.y = 0.0;
                widgets::truncated_label(
                    ui,
                    RichText::new(&source.label)
                        .size(12.5)
                        .color(tokens::palette().text),
                );
                widgets::truncated_label(
                    ui,
                    RichText::new(&status).size(tokens::TEXT_SMALL).color(color),
                );
            });
        });
    });
    let name = format!("{} · {status}", source.label);
    chip.response
        .widget_info(|| egui::WidgetInfo::labeled(egui::Role::Group, true, &name));
}

/// "Cinematic: all Auto · choose": opens the preset rows under the model card (no extra height
/// while closed, so Create stays compact).
fn cinematic_toggle_ui(ui: &mut Ui, model: &Model, form: &mut ComposeForm) {
    let chosen: Vec<String> = crate::ui::presets::ordered_dimensions(
        model.presets.value.as_ref().unwrap_or(&Default::default()),
    )
    .into_iter()
    .filter_map(|dimension| {
        let id = form.cinematic.get(dimension)?;
        Some(
            model
                .preset(dimension, id)
                .map(|p| p.display_name().to_owned())
                .unwrap_or_else(|| id.clone()),
        )
    })
    .collect();
    let summary = if chosen.is_empty() {
        "all Auto".to_owned()
    } else {
        crate::ui::format::excerpt(&chosen.join(" · "), 32)
    };
    let verb = if form.cinematic_open {
        "hide"
    } else {
        "choose"
    };
    let color = if chosen.is_empty() {
        tokens::palette().text_muted
    } else {
        tokens::palette().accent_hover
    };
    let response = ui.add(
        egui::Button::selectable(
            form.cinematic_open,
            RichText::new(format!("Cinematic: {summary} · {verb}"))
                .size(12.5)
                .color(color),
        )
        .truncate()
        .min_size(Vec2::new(0.0, 26.0)),
    );
    widgets::name_widget(&response, "Cinematic presets");
    if response.clicked() {
        form.cinematic_open = !form.cinematic_open;
    }
}

fn cinematic_section_ui(
    ui: &mut Ui,
    model: &Model,
    form: &ComposeForm,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    ui.add_space(tokens::SPACE_XS);
    ui.separator();
    crate::ui::presets::cinematic_rows_ui(ui, model, &form.cinematic, textures, actions);
    ui.horizontal(|ui| {
        if !form.cinematic.is_empty()
            && ui
                .add(widgets::subtle_button("Reset all to Auto"))
                .clicked()
        {
            for dimension in form.cinematic.keys() {
                actions.push(Action::SelectPreset {
                    dimension: dimension.clone(),
                    preset_id: None,
                });
            }
        }
        if ui
            .add(widgets::subtle_button("Browse all presets…"))
            .clicked()
        {
            actions.push(Action::Navigate(crate::ui::model::View::Presets));
        }
    });
}

/// The project's colour grade under the project picker: name and swatches (click:
/// Palettes), and the per-request "Skip palette" toggle. Told apart by name from the
/// cinematic "Colour palette" dimension.
fn project_palette_ui(
    ui: &mut Ui,
    model: &Model,
    form: &mut ComposeForm,
    actions: &mut Vec<Action>,
) {
    let Some(palette) = model.active_palette(form.project_id.as_deref()) else {
        if form.project_id.is_some() && model.palettes.is_loaded() {
            ui.horizontal_wrapped(|ui| {
                ui.label(
                    RichText::new("Colour grade (project): none")
                        .size(tokens::TEXT_SMALL)
                        .color(tokens::palette().text_muted),
                );
                if ui
                    .add(widgets::subtle_button("Set one in Palettes"))
                    .clicked()
                {
                    actions.push(Action::Navigate(crate::ui::model::View::Palettes));
                }
            });
        }
        return;
    };
    ui.horizontal_wrapped(|ui| {
        ui.label(
            RichText::new("Colour grade (project)")
                .size(tokens::TEXT_SMALL)
                .color(tokens::palette().text_muted),
        );
        let colors: Vec<egui::Color32> = palette
            .colors
            .iter()
            .map(|c| widgets::hex_color(&c.hex))
            .collect();
        let width = (colors.len() as f32 * 16.0).clamp(32.0, 128.0);
        let strip = widgets::swatch_strip(ui, &colors, Vec2::new(width, 16.0));
        let strip = ui.interact(
            strip.rect,
            ui.scope_id().with("active_palette_strip"),
            egui::Sense::click(),
        );
        let name = format!("Active palette {}: open Palettes", palette.name);
        strip.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &name));
        let link = ui.add(
            egui::Button::new(
                RichText::new(crate::ui::format::excerpt(&palette.name, 28))
                    .size(12.5)
                    .color(tokens::palette().text),
            )
            .frame_when_inactive(false),
        );
        if strip.on_hover_text("Open Palettes").clicked() || link.clicked() {
            actions.push(Action::Navigate(crate::ui::model::View::Palettes));
        }
    });
    if form.skip_palette_available(model) {
        ui.checkbox(&mut form.skip_palette, "Skip palette")
            .on_hover_text(
                "Send the next generations without this project's colour grade \
                 (skip_color_palette).",
            );
    }
}

fn project_card_ui(ui: &mut Ui, model: &Model, form: &mut ComposeForm, actions: &mut Vec<Action>) {
    tokens::card_frame().show(ui, |ui| {
        ui.set_width(ui.available_width());
        widgets::section_label(ui, "Project");
        let projects = model.projects.value.as_deref().unwrap_or_default();
        let selected_text = match form.project_id.as_deref() {
            Some(id) => model
                .project_name(id)
                .map(str::to_owned)
                .unwrap_or_else(|| id.to_owned()),
            None if model.projects.is_loaded() => "Default project".to_owned(),
            None => "Loading projects…".to_owned(),
        };
        let row = Vec2::new(ui.available_width(), 30.0);
        ui.allocate_ui_with_layout(
            row,
            egui::Layout::right_to_left(egui::Align::Center),
            |ui| {
                if !form.new_project_open
                    && ui.add(widgets::secondary_button("New project…")).clicked()
                {
                    form.new_project_open = true;
                    form.project_error = None;
                }
                let width = ui.available_width();
                let inner = widgets::combo_that_fits(ui, "project_picker", &selected_text).show_ui(
                    ui,
                    |ui| {
                        ui.set_min_width(width - 8.0);
                        // Archived projects leave the picker (the projects dialog shows them).
                        for project in projects.iter().filter(|p| !p.archived) {
                            let mut text = if project.name.is_empty() {
                                project.id.clone()
                            } else {
                                project.name.clone()
                            };
                            if project.is_default == Some(true) {
                                text.push_str("  · default");
                            }
                            let selected = form.project_id.as_deref() == Some(project.id.as_str());
                            if ui.selectable_label(selected, text).clicked() && !selected {
                                actions.push(Action::SelectProject(project.id.clone()));
                            }
                        }
                        if projects.is_empty() {
                            widgets::muted(ui, "No projects yet.");
                        }
                        ui.separator();
                        if ui.selectable_label(false, "Manage projects…").clicked() {
                            actions
                                .push(Action::Projects(crate::ui::projects::ProjectsAction::Open));
                        }
                    },
                );
                widgets::name_widget(&inner.response, "Project");
                attention::mark_create(form, Field::Project, &inner.response, true);
                widgets::combo_full_text_on_hover(ui, inner.response, &selected_text);
            },
        );
        if form.new_project_open {
            let response = ui.add(
                TextEdit::singleline(&mut form.new_project_name)
                    .hint_text("Project name")
                    .desired_width(ui.available_width()),
            );
            widgets::name_widget(&response, "New project name");
            let enter = response.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
            ui.horizontal(|ui| {
                let can_create = !form.project_creating && !form.new_project_name.trim().is_empty();
                let create = ui
                    .add_enabled(
                        can_create,
                        widgets::secondary_button(if form.project_creating {
                            "Creating…"
                        } else {
                            "Create"
                        }),
                    )
                    .on_disabled_hover_text(if form.project_creating {
                        "The project is being created."
                    } else {
                        "Type a name for the project first."
                    });
                if (create.clicked() || enter) && can_create {
                    actions.push(Action::CreateProject(
                        form.new_project_name.trim().to_owned(),
                    ));
                }
                if ui.add(widgets::subtle_button("Cancel")).clicked() {
                    form.new_project_open = false;
                    form.new_project_name.clear();
                    form.project_error = None;
                }
            });
        }
        if let Some(error) = &form.project_error {
            widgets::field_error(ui, error);
        }
        for message in form.messages_for(&Field::Project) {
            widgets::field_error(ui, message);
        }
        if let Some(error) = &model.projects.error {
            offline::load_error_ui(ui, model, "Could not load projects", error);
        }
        project_palette_ui(ui, model, form, actions);
    });
}

/// What the Generate button's figure is made of, for its hover text.
fn estimate_breakdown(model: &Model, form: &ComposeForm) -> String {
    let figure = estimate_figure(model, form);
    match auto_mapping::auto_mapping_note(form, model) {
        Some(note) => format!("{figure}\n{note}"),
        None => figure,
    }
}

fn estimate_figure(model: &Model, form: &ComposeForm) -> String {
    let spec = form.build_spec(model);
    match form.selected_model(model) {
        Some(record) => {
            let one = crate::api::pricing::price_breakdown(
                record,
                &crate::api::pricing::inputs_for_model(record, &spec),
            );
            match (one, spec.priced_units()) {
                (Some(one), 1) => one,
                (Some(one), scenes) => format!(
                    "{scenes} scenes × one scene ({one}) = {}",
                    format::credits(form.estimate(model).for_job().unwrap_or_default())
                ),
                (None, _) => "This model lists no price; the job shows its cost when done.".into(),
            }
        }
        None => match form.estimate(model) {
            Estimate::Range(lo, hi) => format!(
                "Auto: {} to {}, depending on the model the service picks.",
                format::credits(lo),
                format::credits(hi)
            ),
            Estimate::Exact(v) => format!("Auto: {} with any model.", format::credits(v)),
            Estimate::Unknown if model.catalog.is_loaded() => {
                "Auto: no price known for this type.".into()
            }
            Estimate::Unknown => "The price shows once the model catalog has loaded.".into(),
        },
    }
}

/// How far the estimate exceeds the spendable balance, when it does.
fn balance_shortfall(model: &Model, form: &ComposeForm) -> Option<f64> {
    let spendable = model.credits.value.as_ref().and_then(|c| c.spendable());
    crate::ui::account::shortfall_before_submit(form.estimate(model).for_job(), spendable)
}

fn generate_row_ui(ui: &mut Ui, model: &Model, form: &ComposeForm, actions: &mut Vec<Action>) {
    let estimate = form.estimate(model);
    let button = widgets::primary_button(estimate.button_text())
        .min_size(Vec2::new(ui.available_width(), 40.0));
    if ui
        .add(button)
        .on_hover_text(estimate_breakdown(model, form))
        .clicked()
    {
        actions.push(Action::SubmitCompose);
    }
    ui.horizontal(|ui| {
        let hint = format!("{} to generate", ui.ctx().format_shortcut(&SUBMIT_SHORTCUT));
        ui.label(
            RichText::new(hint)
                .size(tokens::TEXT_SMALL)
                .color(tokens::palette().text_faint),
        );
        if let Some(balance) = model.credits.value.as_ref().and_then(|c| c.spendable()) {
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                ui.label(
                    RichText::new(format!("Balance {}", format::credits(balance)))
                        .size(tokens::TEXT_SMALL)
                        .color(tokens::palette().text_muted),
                );
            });
        }
    });
    // Warn, but keep Generate enabled: the balance shown may be stale (a top-up, a job
    // ending) and the service decides; a refusal bills nothing and says what is missing.
    if let Some(short) = balance_shortfall(model, form) {
        ui.label(
            RichText::new(format!(
                "{} more than your balance: the service will refuse it unless credits \
                 were added since.",
                format::credits(short)
            ))
            .size(12.5)
            .color(tokens::palette().warning),
        );
    }
    if let Some(line) = form.refusal_line() {
        ui.label(
            RichText::new(line)
                .size(12.5)
                .color(tokens::palette().danger),
        );
    }
}
