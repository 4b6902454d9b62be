//! The Library's sidebar: the sections, the folder list (colour swatch, icon, item count),
//! the inline create/edit folder form, folder options and the share dialog. Folders accept
//! tiles dragged from the grid.

use super::grid::DraggedMedia;
use super::{
    FOLDER_ICONS, FOLDER_PALETTE, FolderForm, LibraryAction, LibraryState, Place, Section,
    folder_color, normalise_hex,
};
use crate::api::media::Folder;
use crate::ui::icons::{Icon, paint_icon};
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{
    Align2, Color32, CornerRadius, FontId, RichText, Role, Sense, Stroke, StrokeKind, Ui, Vec2,
    WidgetInfo, pos2, vec2,
};

pub fn sidebar_ui(ui: &mut Ui, state: &mut LibraryState) -> Vec<LibraryAction> {
    let mut actions = Vec::new();
    widgets::section_label(ui, "Library");
    ui.add_space(2.0);
    ui.spacing_mut().item_spacing.y = 2.0;
    for section in Section::ALL {
        let selected = state.place == Place::Section(section);
        let icon = section_icon(section);
        let count = section_count(state, section);
        let response = row_ui(
            ui,
            icon,
            tokens::palette().text_muted,
            section.label(),
            count,
            selected,
            false,
        );
        if response.clicked() {
            actions.push(LibraryAction::Open(Place::Section(section)));
        }
    }

    ui.add_space(tokens::SPACE_M);
    ui.horizontal(|ui| {
        widgets::section_label(ui, "Folders");
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            if widgets::icon_button(ui, Icon::Plus, "New folder").clicked() {
                actions.push(LibraryAction::NewFolder);
            }
        });
    });

    if state
        .folder_form
        .as_ref()
        .is_some_and(|f| f.editing.is_none())
    {
        folder_form_ui(ui, state, &mut actions);
    }

    egui::ScrollArea::vertical()
        .id_salt("library_folders")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            let folders: Vec<Folder> = state.folders.value.clone().unwrap_or_default();
            if folders.is_empty() {
                let text = if state.folders.pending && !state.folders.is_loaded() {
                    "Loading folders…"
                } else if let Some(error) = &state.folders.error {
                    &crate::ui::offline::human_error(error)
                } else {
                    "No folders yet. Folders group items across projects."
                };
                ui.add_space(tokens::SPACE_XS);
                ui.add(
                    egui::Label::new(
                        RichText::new(text)
                            .size(tokens::TEXT_SMALL + 0.5)
                            .color(tokens::palette().text_faint),
                    )
                    .wrap(),
                );
            }
            for folder in &folders {
                if state
                    .folder_form
                    .as_ref()
                    .is_some_and(|f| f.editing.as_deref() == Some(folder.id.as_str()))
                {
                    folder_form_ui(ui, state, &mut actions);
                    continue;
                }
                ui.push_id(&folder.id, |ui| {
                    folder_row_ui(ui, state, folder, &mut actions);
                });
            }
        });
    actions
}

pub(super) fn section_icon(section: Section) -> Icon {
    match section {
        Section::All => Icon::Library,
        Section::Ai => Icon::Create,
        Section::Uploaded => Icon::Upload,
        Section::Edited => Icon::Edit,
        Section::Favourites => Icon::Star,
        Section::Trash => Icon::Trash,
    }
}

fn section_count(state: &LibraryState, section: Section) -> Option<String> {
    if section != Section::All {
        return None;
    }
    let total = state.stats.value.as_ref()?.total?;
    Some(crate::ui::format::thousands(total as f64))
}

fn folder_row_ui(
    ui: &mut Ui,
    state: &LibraryState,
    folder: &Folder,
    actions: &mut Vec<LibraryAction>,
) {
    let selected = state.place == Place::Folder(folder.id.clone());
    let count = folder
        .item_count
        .map(|c| crate::ui::format::thousands(c as f64));
    let drop_hover = egui::DragAndDrop::has_payload_of_type::<DraggedMedia>(ui.ctx());
    let name = if folder.name.trim().is_empty() {
        "Untitled folder"
    } else {
        folder.name.as_str()
    };
    let row = ui.horizontal(|ui| {
        let width = ui.available_width() - 28.0;
        let response = ui
            .allocate_ui(vec2(width, 30.0), |ui| {
                row_ui(
                    ui,
                    folder_icon(folder.icon.as_deref()),
                    folder_color(folder),
                    name,
                    count,
                    selected,
                    drop_hover,
                )
            })
            .inner;
        let more = widgets::icon_button(ui, Icon::More, &format!("Folder options: {name}"));
        (response, more)
    });
    let (response, more) = row.inner;
    if response.clicked() {
        actions.push(LibraryAction::Open(Place::Folder(folder.id.clone())));
    }
    if let Some(payload) = response.dnd_release_payload::<DraggedMedia>() {
        actions.push(LibraryAction::AddToFolder {
            folder_id: folder.id.clone(),
            ids: payload.0.clone(),
        });
    }
    let is_owner = folder.is_owner != Some(false);
    egui::Popup::menu(&more).show(|ui| {
        ui.set_min_width(170.0);
        if is_owner {
            if ui.button("Rename or recolour…").clicked() {
                actions.push(LibraryAction::EditFolder(folder.id.clone()));
            }
            if ui.button("Share…").clicked() {
                actions.push(LibraryAction::OpenShare(folder.id.clone()));
            }
            ui.separator();
            if ui
                .button(RichText::new("Delete folder…").color(tokens::palette().danger))
                .clicked()
            {
                actions.push(LibraryAction::AskDeleteFolder(folder.id.clone()));
            }
        } else {
            ui.label(
                RichText::new("Shared with you: only the owner can change it.")
                    .size(tokens::TEXT_SMALL)
                    .color(tokens::palette().text_muted),
            );
        }
    });
}

/// A sidebar row: icon, label, optional count on the right. Named for screen readers.
fn row_ui(
    ui: &mut Ui,
    icon: Icon,
    icon_color: Color32,
    label: &str,
    count: Option<String>,
    selected: bool,
    drop_target: bool,
) -> egui::Response {
    let size = vec2(ui.available_width(), 30.0);
    let (rect, response) = ui.allocate_exact_size(size, Sense::click());
    let hovered_drop = drop_target && response.contains_pointer();
    if ui.is_rect_visible(rect) {
        let painter = ui.painter();
        let radius = CornerRadius::same(tokens::RADIUS_M - 2);
        if selected {
            painter.rect_filled(rect, radius, tokens::palette().accent_soft);
        } else if response.hovered() {
            painter.rect_filled(rect, radius, tokens::palette().bg_elevated);
        }
        if hovered_drop {
            painter.rect_stroke(
                rect,
                radius,
                Stroke::new(1.5, tokens::palette().accent),
                StrokeKind::Inside,
            );
        }
        let icon_rect = egui::Rect::from_center_size(
            pos2(rect.left() + 16.0, rect.center().y),
            Vec2::splat(15.0),
        );
        let color = if selected {
            tokens::palette().accent_hover
        } else {
            icon_color
        };
        paint_icon(painter, icon_rect, icon, color);
        let text_color = if selected {
            tokens::palette().text
        } else {
            tokens::palette().text_muted
        };
        let right_pad = if count.is_some() { 44.0 } else { 8.0 };
        let galley = painter.layout(
            label.to_owned(),
            FontId::proportional(13.0),
            text_color,
            rect.width() - 32.0 - right_pad,
        );
        // One line only: long names are clipped by the row.
        painter.with_clip_rect(rect.shrink2(vec2(0.0, 2.0))).galley(
            pos2(
                rect.left() + 32.0,
                rect.center().y - galley.rows.first().map_or(8.0, |r| r.height()) / 2.0,
            ),
            galley,
            text_color,
        );
        if let Some(count) = &count {
            painter.text(
                pos2(rect.right() - 8.0, rect.center().y),
                Align2::RIGHT_CENTER,
                count,
                FontId::proportional(11.5),
                tokens::palette().text_faint,
            );
        }
    }
    let name = label.to_owned();
    response.widget_info(|| WidgetInfo::selected(Role::Button, true, selected, &name));
    response.on_hover_cursor(egui::CursorIcon::PointingHand)
}

pub fn folder_icon(name: Option<&str>) -> Icon {
    match name.unwrap_or("folder") {
        "star" => Icon::Star,
        "image" | "photo" => Icon::Image,
        "video" | "film" => Icon::Video,
        "music" | "audio" => Icon::Audio,
        "heart" => Icon::Heart,
        _ => Icon::Folder,
    }
}

fn folder_form_ui(ui: &mut Ui, state: &mut LibraryState, actions: &mut Vec<LibraryAction>) {
    let Some(form) = state.folder_form.as_mut() else {
        return;
    };
    let editing = form.editing.is_some();
    egui::Frame::new()
        .fill(tokens::palette().bg_surface)
        .stroke(Stroke::new(1.0, tokens::palette().border_strong))
        .corner_radius(CornerRadius::same(tokens::RADIUS_M))
        .inner_margin(egui::Margin::same(8))
        .show(ui, |ui| {
            ui.spacing_mut().item_spacing.y = 6.0;
            ui.set_width(ui.available_width());
            let name = ui.add(
                egui::TextEdit::singleline(&mut form.name)
                    .hint_text("Folder name")
                    .desired_width(f32::INFINITY)
                    .char_limit(100),
            );
            widgets::name_widget(&name, "Folder name");
            // Opening the form (new folder, rename) puts the cursor in the name.
            if std::mem::take(&mut form.focus_name) {
                name.request_focus();
            }
            let submit = name.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            swatches_ui(ui, form);
            ui.horizontal(|ui| {
                ui.spacing_mut().item_spacing.x = 4.0;
                for icon_name in FOLDER_ICONS {
                    let selected = form.icon == icon_name;
                    let (rect, response) =
                        ui.allocate_exact_size(Vec2::splat(22.0), Sense::click());
                    let painter = ui.painter();
                    if selected {
                        painter.rect_filled(
                            rect,
                            CornerRadius::same(tokens::RADIUS_S),
                            tokens::palette().accent_soft,
                        );
                    } else if response.hovered() {
                        painter.rect_filled(
                            rect,
                            CornerRadius::same(tokens::RADIUS_S),
                            tokens::palette().bg_hover,
                        );
                    }
                    paint_icon(
                        painter,
                        rect.shrink(4.0),
                        folder_icon(Some(icon_name)),
                        if selected {
                            tokens::palette().accent_hover
                        } else {
                            tokens::palette().text_muted
                        },
                    );
                    let label = format!("Icon {icon_name}");
                    response
                        .widget_info(|| WidgetInfo::selected(Role::Button, true, selected, &label));
                    if response.clicked() {
                        form.icon = icon_name.to_owned();
                    }
                }
            });
            if let Some(error) = &form.error {
                widgets::field_error(ui, error);
            }
            ui.horizontal(|ui| {
                let label = if editing {
                    "Save folder"
                } else {
                    "Create folder"
                };
                if ui.add(widgets::small_primary_button(label)).clicked() || submit {
                    actions.push(LibraryAction::SubmitFolderForm);
                }
                if ui.add(widgets::subtle_button("Cancel")).clicked() {
                    actions.push(LibraryAction::CloseFolderForm);
                }
            });
        });
    ui.add_space(tokens::SPACE_XS);
}

fn swatches_ui(ui: &mut Ui, form: &mut FolderForm) {
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing = vec2(4.0, 4.0);
        let current = normalise_hex(&form.color_hex);
        for hex in FOLDER_PALETTE {
            let color = Color32::from_hex(hex).unwrap_or(tokens::palette().folder_default);
            let selected = current.as_deref() == Some(hex);
            let (rect, response) = ui.allocate_exact_size(Vec2::splat(18.0), Sense::click());
            let painter = ui.painter();
            painter.circle_filled(rect.center(), 7.0, color);
            if selected {
                painter.circle_stroke(rect.center(), 8.5, Stroke::new(1.5, tokens::palette().text));
            } else if response.hovered() {
                painter.circle_stroke(
                    rect.center(),
                    8.5,
                    Stroke::new(1.0, tokens::palette().border_strong),
                );
            }
            let label = format!("Colour {hex}");
            response.widget_info(|| WidgetInfo::selected(Role::Button, true, selected, &label));
            if response.clicked() {
                form.color_hex = hex.to_owned();
            }
        }
    });
    let hex = ui.add(
        egui::TextEdit::singleline(&mut form.color_hex)
            .hint_text("#RRGGBB")
            .desired_width(90.0)
            .font(egui::TextStyle::Monospace)
            .char_limit(7),
    );
    widgets::name_widget(&hex, "Folder colour hex");
}

/// The share dialog: current sharing, e-mail input, and addresses the service did not know.
pub fn share_dialog_ui(ctx: &egui::Context, state: &mut LibraryState) -> Vec<LibraryAction> {
    let mut actions = Vec::new();
    let folder = state
        .share
        .as_ref()
        .and_then(|d| state.folder(&d.folder_id).cloned());
    let Some(dialog) = state.share.as_mut() else {
        return actions;
    };
    let response = egui::Modal::new(egui::Id::unique("library_share"))
        .backdrop_color(tokens::palette().scrim)
        .frame(tokens::card_frame().inner_margin(egui::Margin::same(20)))
        .show(ctx, |ui| {
            ui.set_width(440.0);
            let name = folder.as_ref().map_or("folder", |f| f.name.as_str());
            ui.label(
                RichText::new(format!("Share “{name}”"))
                    .size(tokens::TEXT_TITLE)
                    .strong()
                    .color(tokens::palette().text),
            );
            ui.add_space(tokens::SPACE_XS);
            widgets::muted(
                ui,
                "People you share with can see the folder and add their own items to it.",
            );
            ui.add_space(tokens::SPACE_S);
            widgets::section_label(ui, "Shared with");
            match folder.as_ref().map(|f| f.shared_with.as_slice()) {
                Some([]) | None => {
                    ui.label(RichText::new("Nobody yet").color(tokens::palette().text_faint));
                }
                Some(users) => {
                    for user in users {
                        let label = super::member_label(&state.known_members, user);
                        ui.horizontal(|ui| {
                            ui.label(RichText::new(&label).color(tokens::palette().text_muted))
                                .on_hover_text(format!("Account id {user}"));
                            ui.with_layout(
                                egui::Layout::right_to_left(egui::Align::Center),
                                |ui| {
                                    if ui
                                        .add(widgets::subtle_button("Stop sharing"))
                                        .on_hover_text(format!("Stop sharing with {label}"))
                                        .clicked()
                                    {
                                        actions.push(LibraryAction::Unshare {
                                            folder_id: dialog.folder_id.clone(),
                                            user_id: user.clone(),
                                        });
                                    }
                                },
                            );
                        });
                    }
                }
            }
            ui.add_space(tokens::SPACE_S);
            widgets::section_label(ui, "Invite by e-mail");
            let field = ui.add(
                egui::TextEdit::singleline(&mut dialog.emails)
                    .hint_text("ana@example.com, li@example.com")
                    .desired_width(f32::INFINITY),
            );
            widgets::name_widget(&field, "E-mail addresses");
            if let Some(error) = &dialog.error {
                widgets::field_error(ui, error);
            }
            if let Some(note) = &dialog.note {
                ui.label(
                    RichText::new(note)
                        .size(12.5)
                        .color(tokens::palette().success),
                );
            }
            if !dialog.not_found.is_empty() {
                widgets::notice(
                    ui,
                    &format!("No account for: {}", dialog.not_found.join(", ")),
                    tokens::palette().warning,
                );
            }
            ui.add_space(tokens::SPACE_M);
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let label = if dialog.pending {
                    "Sharing…"
                } else {
                    "Share"
                };
                if ui
                    .add_enabled(!dialog.pending, widgets::primary_button(label))
                    .clicked()
                {
                    actions.push(LibraryAction::Share {
                        folder_id: dialog.folder_id.clone(),
                    });
                }
                if ui.add(widgets::secondary_button("Close")).clicked() {
                    actions.push(LibraryAction::CloseShare);
                }
            });
        });
    if response.should_close() && actions.is_empty() {
        actions.push(LibraryAction::CloseShare);
    }
    actions
}
