//! The Visual DNA view's forms: both forms' modal (title, scrolling fields, Save and
//! Cancel), their name and images fields, and the Visual DNA create / edit form (the
//! moodboard's is in [`super::moodboards`]).

use super::parts::details_ui;
use super::{FormField, ImageList, LooksAction, LooksState, ShownError, wrap};
use crate::api::visual_dna::DnaType;
use crate::ui::icons::Icon;
use crate::ui::model::Action;
use crate::ui::textures::TextureCache;
use crate::ui::{focus, tokens, widgets};
use egui::{CornerRadius, RichText, Stroke, TextEdit, Ui};

/// A form's modal: what it says and what its buttons do.
pub(super) struct FormModal<'a> {
    pub id: &'a str,
    pub max_width: f32,
    pub title: &'a str,
    pub intro: Option<&'a str>,
    pub save_label: &'a str,
    pub sending_label: &'a str,
    pub sending: bool,
    pub save: LooksAction,
    pub cancel: LooksAction,
}

/// The modal around a form: title, intro, the fields (`fields`, told whether the modal
/// has just opened, to focus the first one) in a scroll area, then Save / Cancel. Closing
/// it (Escape, a click outside) cancels unless it is sending.
pub(super) fn form_modal(
    ctx: &egui::Context,
    modal: FormModal<'_>,
    actions: &mut Vec<Action>,
    fields: impl FnOnce(&mut Ui, bool, &mut Vec<Action>),
) {
    let modal_id = egui::Id::unique(modal.id);
    let newly_shown = focus::first_frame_shown(ctx, modal_id);
    let response = egui::Modal::new(modal_id)
        .backdrop_color(tokens::palette().scrim)
        .frame(tokens::card_frame().inner_margin(egui::Margin::same(20)))
        .show(ctx, |ui| {
            let width = (ctx.content_rect().width() - 80.0).clamp(300.0, modal.max_width);
            ui.set_width(width);
            ui.label(
                RichText::new(modal.title)
                    .size(tokens::TEXT_TITLE)
                    .strong()
                    .color(tokens::palette().text),
            );
            if let Some(intro) = modal.intro {
                widgets::muted(ui, intro);
            }
            ui.add_space(tokens::SPACE_S);
            egui::ScrollArea::vertical()
                .id_salt(format!("{}_scroll", modal.id))
                .max_height((ctx.content_rect().height() - 220.0).max(200.0))
                .show(ui, |ui| fields(ui, newly_shown, actions));
            ui.add_space(tokens::SPACE_M);
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui
                    .add_enabled(!modal.sending, widgets::primary_button(modal.save_label))
                    .clicked()
                {
                    actions.push(wrap(modal.save.clone()));
                }
                if ui.add(widgets::secondary_button("Cancel")).clicked() {
                    actions.push(wrap(modal.cancel.clone()));
                }
                if modal.sending {
                    ui.add(egui::Spinner::new().size(14.0));
                    widgets::muted(ui, modal.sending_label);
                }
            });
        });
    if response.should_close() && !modal.sending {
        actions.push(wrap(modal.cancel));
    }
}

/// A form's Name field (focused when the form opens); its problem goes under it.
pub(super) fn name_field(
    ui: &mut Ui,
    name: &mut String,
    hint: &str,
    accessible_name: &str,
    focus: bool,
    problem: Option<String>,
) {
    widgets::section_label(ui, "Name");
    let field = ui.add(
        TextEdit::singleline(name)
            .hint_text(hint)
            .desired_width(f32::INFINITY),
    );
    widgets::name_widget(&field, accessible_name);
    if focus {
        field.request_focus();
    }
    if let Some(problem) = problem {
        widgets::field_error(ui, &problem);
    }
}

/// The service's refusal of the last Save, with its Details.
pub(super) fn form_error_ui(ui: &mut Ui, error: Option<&ShownError>, salt: &str) {
    if let Some(error) = error {
        ui.add_space(tokens::SPACE_S);
        widgets::field_error(ui, &error.message);
        details_ui(ui, &error.details, salt);
    }
}

/// The images part of a form: what it holds and how its buttons answer.
pub(super) struct ImagesField<'a> {
    pub list: &'a mut ImageList,
    pub problem: Option<String>,
    pub remove: fn(usize) -> LooksAction,
    pub add_url: LooksAction,
}

pub(super) fn form_images_ui(
    ui: &mut Ui,
    field: ImagesField<'_>,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    let ImagesField {
        list,
        problem,
        remove,
        add_url,
    } = field;
    let max = list.max();
    let ImageList {
        items: images,
        url_input,
        note,
        ..
    } = list;
    ui.horizontal(|ui| {
        widgets::section_label(ui, "Images");
        ui.label(
            RichText::new(format!("{} / {max}", images.len()))
                .size(tokens::TEXT_SMALL)
                .color(tokens::palette().text_faint),
        );
    });
    // No row at all while empty (an empty wrapped row still takes a line).
    if !images.is_empty() {
        ui.horizontal_wrapped(|ui| {
            for (index, image) in images.iter().enumerate() {
                let label = image.label();
                egui::Frame::new()
                    .fill(tokens::palette().bg_surface)
                    .stroke(Stroke::new(1.0, tokens::palette().border))
                    .corner_radius(CornerRadius::same(tokens::RADIUS_M))
                    .inner_margin(egui::Margin::symmetric(6, 4))
                    .show(ui, |ui| {
                        ui.horizontal(|ui| {
                            crate::ui::textures::small_thumbnail_ui(
                                ui,
                                textures,
                                &image.preview_url(),
                                36.0,
                                &label,
                            );
                            ui.label(
                                RichText::new(crate::ui::format::excerpt(&label, 18))
                                    .size(12.5)
                                    .color(tokens::palette().text),
                            );
                            if widgets::icon_button(ui, Icon::Close, &format!("Remove {label}"))
                                .clicked()
                            {
                                actions.push(wrap(remove(index)));
                            }
                        });
                    });
            }
        });
    }
    if images.len() < max {
        ui.horizontal(|ui| {
            if ui.add(widgets::secondary_button("Choose files…")).clicked() {
                actions.push(wrap(LooksAction::PickImages));
            }
            widgets::muted(ui, "or drop images here");
        });
        ui.horizontal(|ui| {
            let field = ui.add(
                TextEdit::singleline(url_input)
                    .hint_text("https://… or a file's path")
                    .desired_width((ui.available_width() - 70.0).max(120.0)),
            );
            widgets::name_widget(&field, "Image address");
            let enter = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            if ui
                .add_enabled(
                    !url_input.trim().is_empty(),
                    widgets::secondary_button("Add"),
                )
                .clicked()
                || (enter && !url_input.trim().is_empty())
            {
                actions.push(wrap(add_url));
            }
        });
    }
    if let Some(note) = note.as_deref() {
        widgets::notice(ui, note, tokens::palette().warning);
    }
    if let Some(problem) = problem {
        widgets::field_error(ui, &problem);
    }
}

pub(super) fn dna_form_ui(
    ctx: &egui::Context,
    state: &mut LooksState,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    let Some(form) = state.form.as_mut() else {
        return;
    };
    let new = form.is_new();
    let modal = FormModal {
        id: "vdna_form",
        max_width: 520.0,
        title: if new {
            "New Visual DNA"
        } else {
            "Edit Visual DNA"
        },
        intro: new.then_some(
            "One to four photos of the same character, product, style or place. The \
             service studies them (10–30 s) and then keeps it consistent in every \
             picture you make with it.",
        ),
        save_label: if new {
            "Make Visual DNA"
        } else {
            "Save changes"
        },
        sending_label: if new { "Uploading…" } else { "Saving…" },
        sending: form.sending,
        save: LooksAction::SaveDnaForm,
        cancel: LooksAction::CancelDnaForm,
    };
    form_modal(ctx, modal, actions, |ui, newly_shown, actions| {
        let problem = form.problem(FormField::Name);
        name_field(
            ui,
            &mut form.name,
            "e.g. Captain Ada",
            "Visual DNA name",
            newly_shown,
            problem,
        );
        ui.add_space(tokens::SPACE_S);
        widgets::section_label(ui, "Type");
        ui.horizontal_wrapped(|ui| {
            for t in DnaType::ALL {
                let on = form.dna_type == t;
                let response = ui.add(widgets::toggle_button(t.label(), on));
                response.widget_info(|| {
                    egui::WidgetInfo::selected(egui::Role::RadioButton, true, on, t.label())
                });
                if response.clicked() {
                    form.dna_type = t;
                }
            }
        });
        ui.add_space(tokens::SPACE_S);
        widgets::section_label(ui, "Prompt helper (optional)");
        let helper = ui.add(
            TextEdit::multiline(&mut form.prompt_helper)
                .hint_text("Anything the pictures don't show: “always wears a red scarf”")
                .desired_rows(2)
                .desired_width(f32::INFINITY),
        );
        widgets::name_widget(&helper, "Prompt helper");
        ui.add_space(tokens::SPACE_S);
        if new {
            let problem = form.problem(FormField::Images);
            form_images_ui(
                ui,
                ImagesField {
                    list: &mut form.images,
                    problem,
                    remove: LooksAction::RemoveDnaImage,
                    add_url: LooksAction::AddDnaUrl,
                },
                textures,
                actions,
            );
        }
        form_error_ui(ui, form.error.as_ref(), "vdna_form_error");
    });
}
