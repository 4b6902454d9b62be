//! Keys that work everywhere in the studio (Ctrl+1…8 switch views, Ctrl+J shows or hides
//! the jobs tray, Ctrl+Q quits, F1 or ? shows the shortcuts; M mutes, in `ui::sound`) and
//! the overlay that lists every shortcut of the studio.

use crate::ui::model::{Action, View};
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{Key, Modifiers, RichText};

/// One row of the overlay: the keys and what they do.
pub struct Shortcut {
    pub keys: &'static str,
    pub does: &'static str,
}

/// A titled group of shortcuts (where they work).
pub struct ShortcutGroup {
    pub title: &'static str,
    pub shortcuts: &'static [Shortcut],
}

const fn s(keys: &'static str, does: &'static str) -> Shortcut {
    Shortcut { keys, does }
}

/// Every shortcut of the studio, as the overlay lists them. Keep in step with the code
/// that handles the keys (the global ones are in this module).
pub const SHORTCUT_GROUPS: &[ShortcutGroup] = &[
    ShortcutGroup {
        title: "Anywhere",
        shortcuts: &[
            s(
                "Ctrl+1 … Ctrl+8",
                "Create, Library, Palettes, Presets, Docs, Chat, Settings",
            ),
            s("Ctrl+J", "Show / hide the jobs tray"),
            s("Ctrl+Q", "Quit (running jobs resume next time)"),
            s("Ctrl+= / - / 0", "UI scale: bigger / smaller / 100 %"),
            s("F1 or ?", "Show these shortcuts"),
            s("M", "Mute / unmute the studio's sound (not while typing)"),
            s("Tab / Shift+Tab", "Move the keyboard focus"),
            s("Space or Enter", "Press the focused button"),
            s("Esc", "Close a dialog or overlay"),
        ],
    },
    ShortcutGroup {
        title: "Text fields",
        shortcuts: &[
            s("Ctrl+C / Ctrl+X", "Copy / cut the selected text"),
            s("Ctrl+V", "Paste"),
            s("Ctrl+A", "Select all the text"),
            s("Ctrl+Z / Ctrl+Y", "Undo / redo typing"),
        ],
    },
    ShortcutGroup {
        title: "Create",
        shortcuts: &[s("Ctrl+Enter", "Generate")],
    },
    ShortcutGroup {
        title: "Chat",
        shortcuts: &[
            s("Enter", "Send the message"),
            s("Shift+Enter", "Start a new line"),
            s("Esc", "Stop the answer streaming in"),
            s("Ctrl+V", "Attach the image on the clipboard"),
        ],
    },
    ShortcutGroup {
        title: "Library",
        shortcuts: &[
            s("Arrow keys", "Move the selection"),
            s("Shift+arrows", "Extend the selection"),
            s("Ctrl+A", "Select everything in the view"),
            s("Enter", "Open the selected item in the viewer"),
            s("F", "Favourite / unfavourite the selection"),
            s("Del", "Move the selection to the Trash"),
            s("Ctrl+O", "Upload files"),
            s("Ctrl+V", "Upload the picture or files on the clipboard"),
            s("Esc", "Close a drawer, then clear the selection"),
        ],
    },
    ShortcutGroup {
        title: "Docs",
        shortcuts: &[
            s("Ctrl+S", "Save the document"),
            s("Ctrl+B / Ctrl+I", "Bold / italic (in the editor)"),
            s("Ctrl+K", "Link (in the editor)"),
        ],
    },
    ShortcutGroup {
        title: "Trash",
        shortcuts: &[s("Del", "Delete forever (asks first)"), s("R", "Restore")],
    },
    ShortcutGroup {
        title: "Viewer",
        shortcuts: &[
            s(
                "Left / Right",
                "Previous / next result (pan when zoomed in)",
            ),
            s("+ / -", "Zoom in / out"),
            s("0", "Fit to the window"),
            s("1", "Actual size (100 %)"),
            s("Mouse wheel, drag", "Zoom, pan"),
            s("Esc", "Close the viewer"),
        ],
    },
    ShortcutGroup {
        title: "Video (viewer; detail pane while the pointer is over it)",
        shortcuts: &[
            s("Space", "Play / pause"),
            s(", / .", "One frame back / forward (pauses)"),
            s("J", "Pause and go back one second"),
            s("K", "Pause"),
            s("L", "Play; again while playing: 2×, then 4× (sound muted)"),
            s("B", "Before / after (an edit's result)"),
        ],
    },
    ShortcutGroup {
        title: "Audio (viewer)",
        shortcuts: &[
            s("Space", "Play / pause"),
            s("K", "Pause"),
            s("J", "Back 5 seconds"),
            s("Left / Right", "Back / forward 1 second"),
            s(
                "I / O",
                "Set the loop's start (A) / end (B) at the playhead",
            ),
            s("L", "Loop on / off (A–B, or the whole sound)"),
            s(
                "Click, drag",
                "Seek on the waveform; drag the A / B handles",
            ),
        ],
    },
    ShortcutGroup {
        title: "Trim timeline (Video edit; focused or under the pointer)",
        shortcuts: &[
            s("Left / Right", "Playhead one frame back / forward"),
            s(
                "Shift+Left / Right",
                "Move the last-touched handle one frame",
            ),
            s("I / O", "Set the in / out point at the playhead"),
            s("Space", "Play the selection in a loop / pause"),
        ],
    },
];

/// The question asked before quitting with jobs still running.
pub fn quit_body(running_jobs: usize) -> String {
    let (jobs, they) = if running_jobs == 1 {
        ("1 job is".to_owned(), "it")
    } else {
        (format!("{running_jobs} jobs are"), "they")
    };
    format!("{jobs} still running; {they} will resume next time you open Framewright.")
}

/// The view Ctrl+`n` opens (1-based, in rail order).
pub fn view_for_digit(n: usize) -> Option<View> {
    n.checked_sub(1).and_then(|i| View::ALL.get(i).copied())
}

/// Ctrl+1 … Ctrl+9; those past the last view do nothing.
const DIGIT_KEYS: [Key; 9] = [
    Key::Num1,
    Key::Num2,
    Key::Num3,
    Key::Num4,
    Key::Num5,
    Key::Num6,
    Key::Num7,
    Key::Num8,
    Key::Num9,
];

/// Consume the global keys pressed this frame. Call before the panels are laid out so a
/// text field does not also see them. `overlay_open`: Esc closes the overlay.
pub fn global_keys(ctx: &egui::Context, overlay_open: bool) -> Vec<Action> {
    let typing = ctx.text_edit_focused();
    let mut actions = Vec::new();
    ctx.input_mut(|i| {
        for (n, key) in DIGIT_KEYS.iter().enumerate() {
            if i.consume_key(Modifiers::COMMAND, *key)
                && let Some(view) = view_for_digit(n + 1)
            {
                actions.push(Action::Navigate(view));
            }
        }
        if i.consume_key(Modifiers::COMMAND, Key::Q) {
            actions.push(Action::Quit);
        }
        if i.consume_key(Modifiers::COMMAND, Key::J) {
            actions.push(Action::ToggleTray);
        }
        if i.consume_key(Modifiers::NONE, Key::F1) {
            actions.push(Action::ShowShortcuts(!overlay_open));
        }
        // "?" types a character in a text field; only outside one does it open the help.
        if !typing && consume_question_mark(i) {
            actions.push(Action::ShowShortcuts(!overlay_open));
        }
        if overlay_open && i.consume_key(Modifiers::NONE, Key::Escape) {
            actions.push(Action::ShowShortcuts(false));
        }
    });
    actions
}

/// "?" arrives as a key with Shift on most layouts, or only as typed text.
fn consume_question_mark(input: &mut egui::InputState) -> bool {
    let mut found = false;
    input.events.retain(|event| {
        let is_question = match event {
            egui::Event::Key {
                key: Key::Questionmark,
                pressed: true,
                modifiers,
                ..
            } => !modifiers.command && !modifiers.alt,
            egui::Event::Text(text) => text == "?",
            _ => false,
        };
        found |= is_question;
        !is_question
    });
    found
}

/// A column of the overlay is at least this wide (keys, then what they do).
const COLUMN_MIN_WIDTH_PT: f32 = 400.0;
/// Columns never get more than this many (the list is not that long).
const MAX_COLUMNS: usize = 4;
/// Room the overlay leaves around itself, and its title row with the buttons.
const WINDOW_MARGIN_PT: f32 = 32.0;
const TITLE_ROW_PT: f32 = 48.0;
const FRAME_MARGIN: i8 = 20;

/// How many columns fit `width_pt`, and the groups in each, in order (read down the first
/// column, then the next), balanced by their number of rows.
pub fn column_layout(width_pt: f32) -> Vec<&'static [ShortcutGroup]> {
    let gap = tokens::SPACE_L;
    let fit = ((width_pt + gap) / (COLUMN_MIN_WIDTH_PT + gap)).floor() as usize;
    let columns = fit.clamp(1, MAX_COLUMNS);
    // A group's height in rows: its title and spacing count as two.
    let rows = |group: &ShortcutGroup| group.shortcuts.len() + 2;
    let total: usize = SHORTCUT_GROUPS.iter().map(rows).sum();
    let per_column = total.div_ceil(columns);
    let mut out = Vec::with_capacity(columns);
    let mut start = 0;
    let mut filled = 0;
    for (index, group) in SHORTCUT_GROUPS.iter().enumerate() {
        let columns_after = columns - out.len() - 1;
        let groups_left = SHORTCUT_GROUPS.len() - index;
        // Each column still to come needs a group; otherwise a column ends where this
        // group would reach past its share by more than half its height.
        let must_close = groups_left <= columns_after;
        let may_close = columns_after > 0 && 2 * filled + rows(group) > 2 * per_column;
        if index > start && (must_close || may_close) {
            out.push(&SHORTCUT_GROUPS[start..index]);
            start = index;
            filled = 0;
        }
        filled += rows(group);
    }
    out.push(&SHORTCUT_GROUPS[start..]);
    out
}

/// The overlay listing every shortcut: as tall as the window allows, in as many columns
/// as fit, with a solid scroll bar when the list is longer still. Esc, Close or a click
/// outside closes it.
pub fn shortcuts_overlay_ui(ctx: &egui::Context) -> Vec<Action> {
    let mut actions = Vec::new();
    let window = ctx.content_rect();
    let frame_margins = 2.0 * f32::from(FRAME_MARGIN);
    let width_pt = (window.width() - 2.0 * WINDOW_MARGIN_PT - frame_margins).max(240.0);
    let list_height_pt =
        (window.height() - 2.0 * WINDOW_MARGIN_PT - frame_margins - TITLE_ROW_PT).max(160.0);
    let columns = column_layout(width_pt);
    let gap = tokens::SPACE_L;
    let used_width_pt = (columns.len() as f32 * (COLUMN_MIN_WIDTH_PT + 80.0)
        + (columns.len() as f32 - 1.0) * gap)
        .min(width_pt);
    let response = egui::Modal::new(egui::Id::unique("shortcuts_overlay"))
        .backdrop_color(tokens::palette().scrim)
        .frame(tokens::card_frame().inner_margin(egui::Margin::same(FRAME_MARGIN)))
        .show(ctx, |ui| {
            ui.set_width(used_width_pt);
            ui.horizontal(|ui| {
                ui.label(
                    RichText::new("Keyboard shortcuts")
                        .size(tokens::TEXT_TITLE)
                        .strong()
                        .color(tokens::palette().text),
                );
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    if ui.add(widgets::secondary_button("Close")).clicked() {
                        actions.push(Action::ShowShortcuts(false));
                    }
                    if ui.add(widgets::subtle_button("Show welcome")).clicked() {
                        actions.push(Action::Appearance(
                            crate::ui::appearance::AppearanceAction::ShowWelcome,
                        ));
                    }
                });
            });
            ui.add_space(tokens::SPACE_S);
            // A solid bar, not the thin one that shows only on hover: the artist must see
            // that more is below.
            ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
            egui::ScrollArea::vertical()
                .max_height(list_height_pt)
                .min_scrolled_height(list_height_pt)
                .auto_shrink([false, true])
                .scroll_bar_visibility(egui::scroll_area::ScrollBarVisibility::VisibleWhenNeeded)
                .show(ui, |ui| {
                    ui.columns(columns.len(), |uis| {
                        for (ui, groups) in uis.iter_mut().zip(&columns) {
                            for group in *groups {
                                group_ui(ui, group);
                            }
                        }
                    });
                });
        });
    if response.should_close() && actions.is_empty() {
        actions.push(Action::ShowShortcuts(false));
    }
    actions
}

/// One titled group of the overlay: keys on the left, what they do on the right.
fn group_ui(ui: &mut egui::Ui, group: &ShortcutGroup) {
    widgets::section_label(ui, group.title);
    egui::Grid::new(("shortcut_group", group.title))
        .num_columns(2)
        .min_col_width(130.0)
        .spacing(egui::vec2(tokens::SPACE_M, tokens::SPACE_XS))
        .show(ui, |ui| {
            for shortcut in group.shortcuts {
                ui.label(
                    RichText::new(shortcut.keys)
                        .monospace()
                        .color(tokens::palette().text),
                );
                ui.add(
                    egui::Label::new(
                        RichText::new(shortcut.does).color(tokens::palette().text_muted),
                    )
                    .wrap(),
                );
                ui.end_row();
            }
        });
    ui.add_space(tokens::SPACE_S);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_hold_every_group_once_in_order() {
        for width in [300.0, 880.0, 1300.0, 2400.0] {
            let columns = column_layout(width);
            let titles: Vec<_> = columns
                .iter()
                .flat_map(|c| c.iter().map(|g| g.title))
                .collect();
            let all: Vec<_> = SHORTCUT_GROUPS.iter().map(|g| g.title).collect();
            assert_eq!(titles, all, "at {width} pt");
            assert!(columns.iter().all(|c| !c.is_empty()), "at {width} pt");
        }
        assert_eq!(column_layout(300.0).len(), 1);
        assert_eq!(column_layout(880.0).len(), 2);
        assert_eq!(column_layout(1300.0).len(), 3);
        assert_eq!(column_layout(4000.0).len(), MAX_COLUMNS);
    }
}
