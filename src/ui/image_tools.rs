//! The image tools (Upscale 2×, Upscale 4×, Remove background) on every image result and
//! library image: a row of buttons (Create canvas tiles, the viewer's column, the library
//! detail) and menu entries (right-click menus). Each shows its cost and submits with one
//! click; this module only emits [`ResultAction::ImageTool`], the shell sends the job
//! (`ui/app/results.rs`, through [`submit_command`]).

use crate::api::ImageTool;
use crate::engine::Command;
use crate::ui::format;
use crate::ui::model::{ResultAction, ResultRef};
use egui::{Button, RichText, Ui};

/// "Upscale 2× · 2 credits": the button's text and accessible name.
pub fn button_label(tool: ImageTool) -> String {
    format!("{} · {}", tool.label(), format::credits(tool.credits()))
}

/// What the tool does, for the hover text.
pub fn hover_text(tool: ImageTool) -> String {
    let what = match tool {
        ImageTool::Upscale2x => "Enlarge to twice the width and height (real resampling)",
        ImageTool::Upscale4x => "Enlarge to four times the width and height (real resampling)",
        ImageTool::RemoveBackground => "Cut the subject out: the background becomes transparent",
    };
    format!(
        "{what}. A new job costing {}; the result appears in Create and the Library.",
        format::credits(tool.credits())
    )
}

/// The three tools as buttons that wrap (`compact`: small text, under a tile); returns the
/// one clicked.
pub fn buttons_ui(ui: &mut Ui, result: &ResultRef, compact: bool) -> Option<ResultAction> {
    let mut clicked = None;
    ui.horizontal_wrapped(|ui| {
        let gap = if compact { 4.0 } else { 6.0 };
        ui.spacing_mut().item_spacing = egui::vec2(gap, gap);
        for tool in ImageTool::ALL {
            // Under a tile the cost is abbreviated (the accessible name stays in full).
            let button = if compact {
                let text = format!("{} · {} cr", tool.label(), tool.credits());
                Button::new(RichText::new(text).size(12.0)).small()
            } else {
                crate::ui::widgets::secondary_button(button_label(tool))
            };
            let response = ui
                .add(button)
                .accessible_name(button_label(tool))
                .on_hover_text(hover_text(tool));
            if response.clicked() {
                clicked = Some(action(result, tool));
            }
        }
    });
    clicked
}

/// The three tools as entries of an open context menu (closing it on a click).
pub fn menu_entries_ui(ui: &mut Ui, result: &ResultRef) -> Option<ResultAction> {
    let mut clicked = None;
    for tool in ImageTool::ALL {
        let response = ui
            .button(button_label(tool))
            .on_hover_text(hover_text(tool));
        if response.clicked() {
            clicked = Some(action(result, tool));
            ui.close();
        }
    }
    clicked
}

/// The three tools added to the current layout as they are (the library's wrapped action
/// buttons, `framed`; or its context menu, plain entries the caller closes).
pub fn inline_buttons_ui(ui: &mut Ui, framed: bool) -> Option<ImageTool> {
    let mut clicked = None;
    for tool in ImageTool::ALL {
        let button = if framed {
            crate::ui::widgets::secondary_button(button_label(tool))
        } else {
            Button::new(button_label(tool))
        };
        if ui.add(button).on_hover_text(hover_text(tool)).clicked() {
            clicked = Some(tool);
        }
    }
    clicked
}

fn action(result: &ResultRef, tool: ImageTool) -> ResultAction {
    ResultAction::ImageTool {
        result: result.clone(),
        tool,
    }
}

/// The engine command that submits `tool` on `image_url`. `source_label` names the image
/// in the tray ("Upscale 2× of harbour · result 1"); the estimate is the tool's price.
pub fn submit_command(
    tool: ImageTool,
    image_url: &str,
    source_label: &str,
    project_id: Option<String>,
) -> Command {
    Command::Submit {
        spec: tool.spec(image_url, project_id),
        model_label: format!("{} of {}", tool.label(), format::excerpt(source_label, 40)),
        credits_estimate: Some(tool.credits()),
    }
}
