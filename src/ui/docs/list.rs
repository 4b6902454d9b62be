//! The document list column: scope (this project / all projects), New document, one row
//! per document (title, project, "updated 2 h ago", Shared badge), newest edit first, and
//! the loading, empty and error states.

use super::state::{DocsAction, DocsState, Scope};
use crate::api::DocMeta;
use crate::ui::model::{Action, Model};
use crate::ui::offline;
use crate::ui::palettes::ProjectRef;
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{RichText, Role, Sense, Ui, WidgetInfo};

/// What the empty list says for the current project.
pub const EMPTY_PROJECT_TEXT: &str = "No documents in this project yet";

pub fn list_ui(
    ui: &mut Ui,
    state: &DocsState,
    model: &Model,
    project: Option<&ProjectRef>,
    now_ms: i64,
    actions: &mut Vec<Action>,
) {
    ui.horizontal(|ui| {
        ui.label(
            RichText::new("Docs")
                .size(tokens::TEXT_TITLE)
                .strong()
                .color(tokens::palette().text),
        );
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            if ui
                .add(widgets::small_primary_button("New document"))
                .clicked()
            {
                actions.push(Action::Docs(DocsAction::New));
            }
        });
    });
    ui.add_space(tokens::SPACE_S);
    ui.horizontal(|ui| {
        for (scope, label) in [
            (Scope::ThisProject, "This project"),
            (Scope::AllProjects, "All projects"),
        ] {
            if ui
                .add(widgets::toggle_button(label, state.scope == scope))
                .clicked()
                && state.scope != scope
            {
                actions.push(Action::Docs(DocsAction::SetScope(scope)));
            }
        }
    });
    ui.add_space(tokens::SPACE_XS);
    let scope_line = match (state.scope, project) {
        (Scope::ThisProject, Some(p)) => format!("In “{}”, newest edit first", p.name),
        (Scope::ThisProject, None) => "Choose a project in Create".to_owned(),
        (Scope::AllProjects, _) => "Every project you can read, newest edit first".to_owned(),
    };
    ui.label(
        RichText::new(scope_line)
            .size(tokens::TEXT_SMALL)
            .color(tokens::palette().text_muted),
    );
    ui.add_space(tokens::SPACE_S);

    let list = &state.list;
    if let Some(error) = &list.error {
        offline::load_error_ui(
            ui,
            model,
            "Could not load the documents",
            &error.to_string(),
        );
        if ui.add(widgets::subtle_button("Try again")).clicked() {
            actions.push(Action::Docs(DocsAction::Reload));
        }
        return;
    }
    if !list.is_loaded() {
        ui.horizontal(|ui| {
            ui.add(egui::Spinner::new().size(14.0));
            widgets::muted(ui, "Loading documents…");
        });
        return;
    }
    if list.docs.is_empty() {
        let text = match state.scope {
            Scope::ThisProject => EMPTY_PROJECT_TEXT,
            Scope::AllProjects => "No documents yet",
        };
        widgets::muted(ui, text);
        return;
    }
    let open_id = state
        .draft()
        .and_then(|d| d.doc_id())
        .or(match &state.editor {
            super::state::EditorState::Opening { doc_id, .. } => Some(doc_id.as_str()),
            _ => None,
        });
    egui::ScrollArea::vertical()
        .id_salt("docs_list_scroll")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for doc in &list.docs {
                let selected = open_id == Some(doc.id.as_str());
                let project_name = doc
                    .project_id
                    .as_deref()
                    .map(|id| model.project_name(id).unwrap_or(id));
                if row_ui(ui, doc, project_name, selected, now_ms).clicked() && !selected {
                    actions.push(Action::Docs(DocsAction::Open(doc.id.clone())));
                }
                ui.add_space(tokens::SPACE_XS);
            }
            if list.has_more() {
                let more = ui.add_enabled(
                    list.loading.is_none(),
                    widgets::subtle_button("Show more documents"),
                );
                if more.clicked() {
                    actions.push(Action::Docs(DocsAction::LoadMore));
                }
            }
        });
}

/// One document: title, then project · "updated 2 h ago", and a Shared badge.
fn row_ui(
    ui: &mut Ui,
    doc: &DocMeta,
    project_name: Option<&str>,
    selected: bool,
    now_ms: i64,
) -> egui::Response {
    let updated = doc
        .updated_unix_ms()
        .map(|ms| updated_ago(ms, now_ms))
        .unwrap_or_default();
    let fill = if selected {
        tokens::palette().accent_soft
    } else {
        tokens::palette().bg_surface
    };
    let inner = egui::Frame::new()
        .fill(fill)
        .corner_radius(egui::CornerRadius::same(tokens::RADIUS_M))
        .inner_margin(egui::Margin::symmetric(10, 8))
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            // The badge first (from the right), so a long title is cut before it.
            ui.horizontal(|ui| {
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    if doc.is_shared {
                        widgets::badge(ui, "SHARED", tokens::palette().success);
                    }
                    ui.with_layout(egui::Layout::left_to_right(egui::Align::Center), |ui| {
                        ui.add(
                            egui::Label::new(
                                RichText::new(doc.display_title())
                                    .strong()
                                    .color(tokens::palette().text),
                            )
                            .truncate()
                            .selectable(false),
                        );
                    });
                });
            });
            let details = [project_name.unwrap_or(""), updated.as_str()]
                .into_iter()
                .filter(|part| !part.is_empty())
                .collect::<Vec<_>>()
                .join(" · ");
            ui.add(
                egui::Label::new(
                    RichText::new(details)
                        .size(tokens::TEXT_SMALL)
                        .color(tokens::palette().text_muted),
                )
                .truncate()
                .selectable(false),
            );
        });
    let response = ui.interact(
        inner.response.rect,
        ui.scope_id().with(("doc_row", &doc.id)),
        Sense::click(),
    );
    if response.hovered() && !selected {
        ui.painter().rect_stroke(
            inner.response.rect,
            egui::CornerRadius::same(tokens::RADIUS_M),
            egui::Stroke::new(1.0, tokens::palette().border_hover),
            egui::StrokeKind::Inside,
        );
    }
    let name = format!(
        "Open “{}”{}",
        doc.display_title(),
        if doc.is_shared { " (shared)" } else { "" }
    );
    response.widget_info(|| WidgetInfo::labeled(Role::Button, true, &name));
    response
}

/// "just now", "5 min ago", "2 h ago", "3 d ago", else the date.
pub fn updated_ago(then_ms: i64, now_ms: i64) -> String {
    let secs = (now_ms - then_ms).max(0) / 1000;
    match secs {
        0..60 => "just now".to_owned(),
        60..3600 => format!("{} min ago", secs / 60),
        3600..86_400 => format!("{} h ago", secs / 3600),
        86_400..2_592_000 => format!("{} d ago", secs / 86_400),
        _ => chrono::DateTime::from_timestamp_millis(then_ms)
            .map(|t| {
                t.with_timezone(&chrono::Local)
                    .format("%Y-%m-%d")
                    .to_string()
            })
            .unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn updated_times_read_as_people_say_them() {
        let now = 1_800_000_000_000;
        assert_eq!(updated_ago(now - 20_000, now), "just now");
        assert_eq!(
            updated_ago(now + 5_000, now),
            "just now",
            "a clock ahead of ours"
        );
        assert_eq!(updated_ago(now - 5 * 60_000, now), "5 min ago");
        assert_eq!(updated_ago(now - 2 * 3_600_000 - 1, now), "2 h ago");
        assert_eq!(updated_ago(now - 3 * 86_400_000, now), "3 d ago");
        assert_eq!(updated_ago(now - 90 * 86_400_000, now).len(), 10);
    }
}
