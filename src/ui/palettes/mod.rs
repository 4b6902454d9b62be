//! The Palettes view: the palette list (personal and organisation, the project's grade
//! marked), and an editor with swatches, reference images and analysis, the grading
//! directive preview, and save / activate / delete.

pub mod state;

pub use state::{
    AnalysisState, PaletteAction, PaletteEditor, PalettesState, ProjectRef, ReferenceImage,
    SwatchDraft, SwatchOrigin,
};

use crate::api::ColorPalette;
use crate::api::palettes::{
    MAX_ANALYZE_IMAGES, MAX_COLOR_NAME_CHARS, MAX_PALETTE_COLORS, MAX_PALETTE_NAME_CHARS,
    PaletteField,
};
use crate::palette::{Rgb, Role};
use crate::ui::icons::Icon;
use crate::ui::model::{Action, Confirm, Model};
use crate::ui::offline;
use crate::ui::textures::TextureCache;
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{Color32, ComboBox, CornerRadius, Key, RichText, Sense, Stroke, TextEdit, Ui, Vec2};

/// Width of the palette list.
pub const LIST_WIDTH: f32 = 272.0;
/// Narrowest the palette list gets when the window is small.
const LIST_MIN_WIDTH: f32 = 200.0;
/// Widest the editor grows.
const EDITOR_MAX_WIDTH: f32 = 760.0;
/// Below this editor width a swatch takes two lines and the URL field its own line.
const EDITOR_COMPACT_WIDTH: f32 = 540.0;
/// Why organisation palettes have no edit buttons.
pub const ORG_READ_ONLY_NOTE: &str = "Organisation palettes are managed by your organisation's \
     admins and are read-only here: they can't be edited, deleted or activated through the API.";

pub fn palettes_ui(
    ui: &mut Ui,
    state: &mut PalettesState,
    model: &Model,
    project: Option<&ProjectRef>,
    textures: &TextureCache,
) -> Vec<Action> {
    let mut actions = Vec::new();
    // In a small window the list gives up width before the editor has to.
    let list_width =
        (ui.available_width() - EDITOR_COMPACT_WIDTH - 48.0).clamp(LIST_MIN_WIDTH, LIST_WIDTH);
    egui::Panel::left("palette_list")
        .exact_size(list_width)
        .resizable(false)
        .show_separator_line(false)
        .frame(widgets::side_panel_frame(egui::Margin::symmetric(12, 14)))
        .show(ui, |ui| list_ui(ui, state, model, project, &mut actions));

    egui::CentralPanel::default()
        .frame(egui::Frame::new().inner_margin(egui::Margin::symmetric(24, 0)))
        .show(ui, |ui| {
            egui::ScrollArea::vertical()
                .id_salt("palette_editor_scroll")
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    // Keep clear of the scrollbar on the right.
                    let usable = ui.available_width() - tokens::SCROLLBAR_ALLOWANCE;
                    let width = usable.min(EDITOR_MAX_WIDTH);
                    let side = ((usable - width) / 2.0).max(0.0);
                    ui.horizontal_top(|ui| {
                        ui.add_space(side);
                        ui.vertical(|ui| {
                            ui.set_width(width);
                            ui.add_space(tokens::SPACE_L);
                            editor_ui(ui, state, model, project, textures, &mut actions);
                            ui.add_space(tokens::SPACE_XL);
                        });
                    });
                });
        });
    actions
}

fn wrap(action: PaletteAction) -> Action {
    Action::Palette(action)
}

// ---- list --------------------------------------------------------------------------------

fn list_ui(
    ui: &mut Ui,
    state: &PalettesState,
    model: &Model,
    project: Option<&ProjectRef>,
    actions: &mut Vec<Action>,
) {
    ui.horizontal(|ui| {
        ui.label(
            RichText::new("Palettes")
                .size(tokens::TEXT_TITLE)
                .strong()
                .color(tokens::palette().text),
        );
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            if ui
                .add(widgets::small_primary_button("New palette"))
                .clicked()
            {
                actions.push(wrap(PaletteAction::New));
            }
        });
    });
    ui.add_space(tokens::SPACE_XS);
    let project_line = match project {
        Some(p) => format!("Grading for project “{}”", p.name),
        None => "Choose a project in Create to grade it".to_owned(),
    };
    ui.label(
        RichText::new(project_line)
            .size(tokens::TEXT_SMALL)
            .color(tokens::palette().text_muted),
    );
    ui.add_space(tokens::SPACE_S);

    let palettes = model.palettes.value.as_deref().unwrap_or_default();
    if let Some(error) = &model.palettes.error {
        offline::load_error_ui(ui, model, "Could not load palettes", error);
        if ui.add(widgets::subtle_button("Try again")).clicked() {
            actions.push(wrap(PaletteAction::Reload));
        }
    }
    if !model.palettes.is_loaded() && model.palettes.error.is_none() {
        ui.horizontal(|ui| {
            ui.add(egui::Spinner::new().size(14.0));
            widgets::muted(ui, "Loading palettes…");
        });
        return;
    }
    if palettes.is_empty() {
        widgets::muted(
            ui,
            "No palettes yet. Drop reference photos on the editor, or add swatches by hand.",
        );
        return;
    }
    let project_name = project.map(|p| p.name.as_str());
    egui::ScrollArea::vertical()
        .id_salt("palette_list_scroll")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for palette in palettes {
                let selected = state.editor.palette_id.as_deref() == Some(palette.id.as_str());
                if palette_card_ui(ui, palette, selected, project_name).clicked() {
                    actions.push(wrap(PaletteAction::Open(palette.id.clone())));
                }
                ui.add_space(tokens::SPACE_XS);
            }
        });
}

fn palette_card_ui(
    ui: &mut Ui,
    palette: &ColorPalette,
    selected: bool,
    project_name: Option<&str>,
) -> egui::Response {
    let width = ui.available_width();
    let (rect, response) = ui.allocate_exact_size(Vec2::new(width, 70.0), Sense::click());
    if ui.is_rect_visible(rect) {
        let painter = ui.painter();
        let radius = CornerRadius::same(tokens::RADIUS_M);
        let fill = if selected {
            tokens::palette().accent_soft
        } else if response.hovered() {
            tokens::palette().bg_elevated
        } else {
            tokens::palette().bg_surface
        };
        painter.rect_filled(rect, radius, fill);
        let stroke = if selected {
            Stroke::new(1.0, tokens::palette().accent)
        } else {
            Stroke::new(1.0, tokens::palette().border)
        };
        painter.rect_stroke(rect, radius, stroke, egui::StrokeKind::Inside);
        let inner = rect.shrink2(Vec2::new(10.0, 8.0));
        let name = crate::ui::format::excerpt(&palette.name, 30);
        painter.text(
            inner.left_top(),
            egui::Align2::LEFT_TOP,
            name,
            egui::FontId::proportional(tokens::TEXT_BODY),
            tokens::palette().text,
        );
        let colors: Vec<Color32> = palette
            .colors
            .iter()
            .map(|c| widgets::hex_color(&c.hex))
            .collect();
        let strip = egui::Rect::from_min_size(
            egui::pos2(inner.left(), inner.top() + 22.0),
            Vec2::new(inner.width(), 16.0),
        );
        widgets::paint_swatch_strip(painter, strip, &colors);
        let (note, color) = card_note(palette, project_name);
        painter.text(
            egui::pos2(inner.left(), inner.bottom()),
            egui::Align2::LEFT_BOTTOM,
            note,
            egui::FontId::proportional(tokens::TEXT_SMALL),
            color,
        );
    }
    let (note, _) = card_note(palette, project_name);
    let label = format!("Palette {}, {note}", palette.name);
    response.widget_info(|| egui::WidgetInfo::selected(egui::Role::Button, true, selected, &label));
    let response = response.on_hover_cursor(egui::CursorIcon::PointingHand);
    if palette.is_organization() {
        response.on_hover_text(ORG_READ_ONLY_NOTE)
    } else {
        response
    }
}

fn card_note(palette: &ColorPalette, project_name: Option<&str>) -> (String, Color32) {
    let count = palette.colors.len();
    let colours = if count == 1 {
        "1 colour".to_owned()
    } else {
        format!("{count} colours")
    };
    if palette.is_active {
        let project = project_name.unwrap_or("this project");
        return (format!("Active for {project}"), tokens::palette().success);
    }
    if palette.is_organization() {
        return (format!("Organisation · {colours}"), tokens::palette().info);
    }
    (colours, tokens::palette().text_faint)
}

// ---- editor ------------------------------------------------------------------------------

fn editor_ui(
    ui: &mut Ui,
    state: &mut PalettesState,
    model: &Model,
    project: Option<&ProjectRef>,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    let stored = state
        .editor
        .palette_id
        .as_deref()
        .and_then(|id| model.palettes.value.as_deref()?.iter().find(|p| p.id == id))
        .cloned();
    let read_only = state.editor.read_only;

    // Title row.
    ui.horizontal(|ui| {
        let title = if state.editor.palette_id.is_some() {
            "Edit palette"
        } else {
            "New palette"
        };
        ui.label(
            RichText::new(title)
                .size(tokens::TEXT_HEADING)
                .strong()
                .color(tokens::palette().text),
        );
        if stored.as_ref().is_some_and(|p| p.is_active) {
            let project = project.map(|p| p.name.as_str()).unwrap_or("this project");
            widgets::pill(
                ui,
                &format!("Active for {project}"),
                tokens::palette().success,
            );
        }
        if read_only {
            widgets::pill(ui, "Organisation · read-only", tokens::palette().info)
                .on_hover_text(ORG_READ_ONLY_NOTE);
        }
    });
    widgets::muted(
        ui,
        "A palette grades every image generated in the project it's active for: lighting, \
         atmosphere, set dressing and wardrobe follow its colours.",
    );
    ui.add_space(tokens::SPACE_M);

    images_card_ui(ui, state, textures, actions);
    ui.add_space(tokens::SPACE_M);

    ui.add_enabled_ui(!read_only, |ui| {
        tokens::card_frame().show(ui, |ui| {
            ui.set_width(ui.available_width());
            widgets::section_label(ui, "Name");
            let response = ui.add(
                TextEdit::singleline(&mut state.editor.name)
                    .hint_text("e.g. Harbour dusk")
                    .char_limit(MAX_PALETTE_NAME_CHARS)
                    .desired_width(f32::INFINITY),
            );
            if response.changed() {
                state.editor.name_is_suggested = false;
            }
            widgets::name_widget(&response, "Palette name");
            for message in state.messages_for(&PaletteField::Name) {
                widgets::field_error(ui, &message);
            }
            ui.add_space(tokens::SPACE_S);
            swatches_ui(ui, state, actions);
        });
    })
    .response
    .on_disabled_hover_text(ORG_READ_ONLY_NOTE);
    ui.add_space(tokens::SPACE_M);

    directive_card_ui(ui, state);
    ui.add_space(tokens::SPACE_M);
    action_row_ui(ui, state, stored.as_ref(), project, actions);
}

fn images_card_ui(
    ui: &mut Ui,
    state: &mut PalettesState,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    tokens::card_frame().show(ui, |ui| {
        ui.set_width(ui.available_width());
        ui.horizontal(|ui| {
            widgets::section_label(ui, "Reference images");
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                analysis_status_ui(ui, state);
            });
        });
        // Drop zone.
        let hovering = ui.ctx().input(|i| !i.raw.hovered_files.is_empty());
        let zone = egui::Frame::new()
            .fill(if hovering {
                tokens::palette().accent_soft
            } else {
                tokens::palette().bg_elevated
            })
            .stroke(Stroke::new(
                1.0,
                if hovering {
                    tokens::palette().accent
                } else {
                    tokens::palette().border_strong
                },
            ))
            .corner_radius(CornerRadius::same(tokens::RADIUS_M))
            .inner_margin(egui::Margin::same(12));
        zone.show(ui, |ui| {
            ui.set_width(ui.available_width());
            if state.editor.images.is_empty() {
                ui.horizontal(|ui| {
                    crate::ui::icons::icon_ui(ui, Icon::Upload, 22.0, tokens::palette().text_faint);
                    ui.vertical(|ui| {
                        ui.label(
                            RichText::new("Drop 1–5 photos here to extract their colours")
                                .color(tokens::palette().text),
                        );
                        ui.label(
                            RichText::new(
                                "The swatches appear at once (computed here), then the \
                                 service's analysis replaces them.",
                            )
                            .size(tokens::TEXT_SMALL)
                            .color(tokens::palette().text_muted),
                        );
                    });
                });
            } else {
                ui.horizontal_wrapped(|ui| {
                    for (index, image) in state.editor.images.iter().enumerate() {
                        reference_chip_ui(ui, index, image, textures, actions);
                    }
                });
            }
            ui.add_space(tokens::SPACE_XS);
            let can_add = state.editor.images.len() < MAX_ANALYZE_IMAGES;
            let compact = ui.available_width() < EDITOR_COMPACT_WIDTH - 60.0;
            let pick = |ui: &mut Ui| {
                let clicked = ui
                    .add_enabled(can_add, widgets::secondary_button("Add images…"))
                    .clicked();
                ui.label(RichText::new("or").color(tokens::palette().text_faint));
                clicked
            };
            if compact && ui.horizontal(pick).inner {
                actions.push(Action::PickPaletteImages);
            }
            ui.horizontal(|ui| {
                if !compact && pick(ui) {
                    actions.push(Action::PickPaletteImages);
                }
                let response = ui.add_enabled(
                    can_add,
                    TextEdit::singleline(&mut state.url_input)
                        .hint_text("https://… image URL")
                        .desired_width((ui.available_width() - 96.0).max(80.0)),
                );
                widgets::name_widget(&response, "Reference image URL");
                let enter = response.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
                if ui
                    .add_enabled(can_add, widgets::secondary_button("Add URL"))
                    .clicked()
                    || (enter && can_add)
                {
                    actions.push(wrap(PaletteAction::AddImageUrl(state.url_input.clone())));
                }
            });
        });
        if let Some(error) = &state.image_error {
            widgets::field_error(ui, error);
        }
        if let AnalysisState::Failed(error) = &state.analysis {
            widgets::field_error(ui, error);
        }
        for message in state.messages_for(&PaletteField::Sources) {
            widgets::field_error(ui, &message);
        }
    });
}

fn analysis_status_ui(ui: &mut Ui, state: &PalettesState) {
    let (text, color) = match (&state.analysis, state.editor.origin) {
        (AnalysisState::Running { .. }, SwatchOrigin::LocalPreview) => {
            ("local preview · analysing…", tokens::palette().info)
        }
        (AnalysisState::Running { .. }, _) => ("analysing…", tokens::palette().info),
        (_, SwatchOrigin::LocalPreview) => ("local preview", tokens::palette().warning),
        (_, SwatchOrigin::Service) => ("analysed by the service", tokens::palette().success),
        _ => return,
    };
    if matches!(state.analysis, AnalysisState::Running { .. }) {
        ui.add(egui::Spinner::new().size(12.0));
    }
    widgets::pill(ui, text, color);
}

fn reference_chip_ui(
    ui: &mut Ui,
    index: usize,
    image: &ReferenceImage,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    egui::Frame::new()
        .fill(tokens::palette().bg_surface)
        .stroke(Stroke::new(1.0, tokens::palette().border))
        .corner_radius(CornerRadius::same(tokens::RADIUS_M))
        .inner_margin(egui::Margin::symmetric(6, 4))
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                match &image.url {
                    Some(url) => crate::ui::textures::small_thumbnail_ui(
                        ui,
                        textures,
                        url,
                        36.0,
                        &image.label,
                    ),
                    None => {
                        crate::ui::icons::icon_ui(
                            ui,
                            Icon::Image,
                            20.0,
                            tokens::palette().text_muted,
                        )
                        .on_hover_text("Uploading to your media library…");
                    }
                }
                ui.label(
                    RichText::new(crate::ui::format::excerpt(&image.label, 22))
                        .size(12.5)
                        .color(tokens::palette().text),
                );
                if widgets::icon_button(ui, Icon::Close, &format!("Remove {}", image.label))
                    .clicked()
                {
                    actions.push(wrap(PaletteAction::RemoveImage(index)));
                }
            });
        });
}

fn swatches_ui(ui: &mut Ui, state: &mut PalettesState, actions: &mut Vec<Action>) {
    ui.horizontal(|ui| {
        widgets::section_label(ui, "Colours");
        ui.label(
            RichText::new(format!(
                "{} / {MAX_PALETTE_COLORS}",
                state.editor.swatches.len()
            ))
            .size(tokens::TEXT_SMALL)
            .color(tokens::palette().text_faint),
        );
    });
    if state.editor.swatches.is_empty() {
        widgets::muted(ui, "No colours yet: add one, or drop photos above.");
    }
    let count = state.editor.swatches.len();
    // Messages are computed before the rows borrow the swatches mutably.
    let hex_messages: Vec<Vec<String>> = (0..count)
        .map(|i| state.messages_for(&PaletteField::ColorHex(i)))
        .collect();
    let name_messages: Vec<Vec<String>> = (0..count)
        .map(|i| state.messages_for(&PaletteField::ColorName(i)))
        .collect();
    for (index, swatch) in state.editor.swatches.iter_mut().enumerate() {
        ui.push_id(swatch.uid, |ui| {
            swatch_row_ui(ui, index, count, swatch, actions);
            for message in hex_messages[index].iter().chain(&name_messages[index]) {
                widgets::field_error(ui, message);
            }
        });
    }
    for message in state.messages_for(&PaletteField::Colors) {
        widgets::field_error(ui, &message);
    }
    ui.add_space(tokens::SPACE_XS);
    let can_add = count < MAX_PALETTE_COLORS;
    let add = ui
        .add_enabled(can_add, widgets::secondary_button("+ Add colour"))
        .on_disabled_hover_text(format!(
            "A palette holds at most {MAX_PALETTE_COLORS} colours."
        ));
    if add.clicked() {
        actions.push(wrap(PaletteAction::AddSwatch));
    }
}

/// Width of a swatch's hex field: seven monospace characters and the field's margins.
const HEX_FIELD_WIDTH: f32 = 84.0;

fn swatch_row_ui(
    ui: &mut Ui,
    index: usize,
    count: usize,
    swatch: &mut SwatchDraft,
    actions: &mut Vec<Action>,
) {
    let number = index + 1;
    let hex_ok = Rgb::from_hex(swatch.hex_text.trim()).is_some();
    // A narrow editor puts the role and the move/remove buttons on a second line.
    let compact = ui.available_width() < EDITOR_COMPACT_WIDTH - 40.0;
    ui.horizontal(|ui| {
        ui.spacing_mut().item_spacing.x = 6.0;
        ui.label(
            RichText::new(format!("{number}"))
                .size(tokens::TEXT_SMALL)
                .color(tokens::palette().text_faint),
        );
        let mut rgb = [swatch.rgb.r, swatch.rgb.g, swatch.rgb.b];
        let picker = egui::color_picker::color_edit_button_srgb(ui, &mut rgb);
        let description = format!(
            "Swatch {number}, {}, {}",
            swatch.effective_name(),
            swatch.role.as_str()
        );
        widgets::name_widget(&picker, &description);
        if picker.changed() {
            swatch.rgb = Rgb::new(rgb[0], rgb[1], rgb[2]);
            swatch.hex_text = swatch.rgb.to_hex();
        }
        // Room for all of "#RRGGBB" in monospace, whatever the theme's button padding.
        let mut hex_edit = TextEdit::singleline(&mut swatch.hex_text)
            .char_limit(7)
            .margin(egui::Margin::symmetric(6, 4))
            .desired_width(HEX_FIELD_WIDTH)
            .font(egui::TextStyle::Monospace);
        if !hex_ok {
            hex_edit = hex_edit.text_color(tokens::palette().danger);
        }
        let hex = ui.add(hex_edit);
        widgets::name_widget(&hex, &format!("Swatch {number} hex"));
        if hex.changed()
            && let Some(rgb) = Rgb::from_hex(swatch.hex_text.trim())
        {
            swatch.rgb = rgb;
        }
        let nearest = swatch.nearest_name();
        let buttons_width = if compact { 0.0 } else { SWATCH_CONTROLS_WIDTH };
        let name = ui.add(
            TextEdit::singleline(&mut swatch.name)
                .hint_text(nearest)
                .char_limit(MAX_COLOR_NAME_CHARS + 20)
                .desired_width((ui.available_width() - buttons_width).max(80.0)),
        );
        widgets::name_widget(&name, &format!("Swatch {number} name"));
        let name = name.on_hover_text(format!(
            "Leave empty to use the nearest built-in name ({nearest})."
        ));
        let _ = name;
        if !compact {
            swatch_controls_ui(ui, index, count, swatch, actions);
        }
    });
    if compact {
        ui.horizontal(|ui| {
            ui.add_space(tokens::SPACE_L);
            swatch_controls_ui(ui, index, count, swatch, actions);
        });
    }
}

/// Width of a swatch's role box and move/remove buttons with their spacing.
const SWATCH_CONTROLS_WIDTH: f32 = 3.0 * 26.0 + 120.0 + 4.0 * 6.0;

fn swatch_controls_ui(
    ui: &mut Ui,
    index: usize,
    count: usize,
    swatch: &mut SwatchDraft,
    actions: &mut Vec<Action>,
) {
    let number = index + 1;
    let role_box = ComboBox::from_id_salt("role")
        .selected_text(role_label(swatch.role))
        .width(110.0)
        .show_ui(ui, |ui| {
            for role in Role::ALL {
                ui.selectable_value(&mut swatch.role, role, role_label(role));
            }
        });
    widgets::name_widget(&role_box.response, &format!("Swatch {number} role"));
    if ui
        .add_enabled_ui(index > 0, |ui| {
            widgets::icon_button(ui, Icon::ChevronUp, &format!("Move swatch {number} up"))
        })
        .inner
        .clicked()
    {
        actions.push(wrap(PaletteAction::MoveSwatch {
            from: index,
            to: index - 1,
        }));
    }
    if ui
        .add_enabled_ui(index + 1 < count, |ui| {
            widgets::icon_button(ui, Icon::ChevronDown, &format!("Move swatch {number} down"))
        })
        .inner
        .clicked()
    {
        actions.push(wrap(PaletteAction::MoveSwatch {
            from: index,
            to: index + 1,
        }));
    }
    if widgets::icon_button(ui, Icon::Close, &format!("Remove swatch {number}")).clicked() {
        actions.push(wrap(PaletteAction::RemoveSwatch(index)));
    }
}

pub fn role_label(role: Role) -> &'static str {
    match role {
        Role::Dominant => "Dominant",
        Role::Secondary => "Secondary",
        Role::Accent => "Accent",
        Role::Background => "Background",
    }
}

fn directive_card_ui(ui: &mut Ui, state: &PalettesState) {
    tokens::card_frame().show(ui, |ui| {
        ui.set_width(ui.available_width());
        widgets::section_label(ui, "Grading directive");
        let colors = state.preview_colors();
        if colors.is_empty() {
            widgets::muted(ui, "Add colours to see the text generations will receive.");
            return;
        }
        let strip: Vec<Color32> = colors.iter().map(|c| widgets::hex_color(&c.hex)).collect();
        widgets::swatch_strip(ui, &strip, Vec2::new(ui.available_width(), 18.0));
        ui.add_space(tokens::SPACE_XS);
        let directive = crate::palette::grading_directive(&colors);
        egui::Frame::new()
            .fill(tokens::palette().bg_elevated)
            .corner_radius(CornerRadius::same(tokens::RADIUS_M))
            .inner_margin(egui::Margin::same(10))
            .show(ui, |ui| {
                ui.set_width(ui.available_width());
                ui.add(
                    egui::Label::new(
                        RichText::new(directive)
                            .size(12.5)
                            .color(tokens::palette().text_muted),
                    )
                    .wrap(),
                );
            });
        ui.label(
            RichText::new(
                "Added to the prompt of every image and text-to-video generation in the \
                 project it's active for (unless a request skips it).",
            )
            .size(tokens::TEXT_SMALL)
            .color(tokens::palette().text_faint),
        );
    });
}

fn action_row_ui(
    ui: &mut Ui,
    state: &mut PalettesState,
    stored: Option<&ColorPalette>,
    project: Option<&ProjectRef>,
    actions: &mut Vec<Action>,
) {
    let busy = state.is_busy();
    let read_only = state.editor.read_only;
    if read_only {
        widgets::notice(ui, ORG_READ_ONLY_NOTE, tokens::palette().info);
        return;
    }
    let is_new = state.editor.palette_id.is_none();
    if is_new && let Some(project) = project {
        ui.checkbox(
            &mut state.editor.activate_on_save,
            format!("Activate for “{}” when saved", project.name),
        );
    }
    ui.horizontal(|ui| {
        let label = if is_new { "Save palette" } else { "Update" };
        if ui
            .add_enabled(!busy, widgets::primary_button(label))
            .clicked()
        {
            actions.push(wrap(PaletteAction::Save));
        }
        let is_active = stored.is_some_and(|p| p.is_active);
        if let Some(project) = project {
            if !is_new && !is_active {
                let activate = ui
                    .add_enabled(
                        !busy,
                        widgets::secondary_button("Activate for this project"),
                    )
                    .on_hover_text(format!(
                        "Grade every new generation in “{}” with this palette",
                        project.name
                    ));
                if activate.clicked() {
                    actions.push(wrap(PaletteAction::Activate));
                }
            }
            if is_active
                && ui
                    .add_enabled(!busy, widgets::secondary_button("Deactivate"))
                    .on_hover_text(format!(
                        "Stop grading “{}” (the palette stays in your library)",
                        project.name
                    ))
                    .clicked()
            {
                actions.push(wrap(PaletteAction::Deactivate));
            }
        }
        if busy {
            ui.add(egui::Spinner::new().size(16.0));
        }
        if let Some(id) = &state.editor.palette_id {
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui
                    .add_enabled(!busy, widgets::danger_button_small("Delete…"))
                    .clicked()
                {
                    actions.push(Action::Ask(Confirm::DeletePalette {
                        id: id.clone(),
                        name: state.editor.name.clone(),
                    }));
                }
            });
        }
    });
    if state.editor.show_validation && !state.issues().is_empty() {
        widgets::field_error(ui, "Fix the highlighted fields to save.");
    }
    if let Some(error) = &state.op_error {
        widgets::field_error(ui, error);
    }
}
