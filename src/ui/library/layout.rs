//! How the Library shares its width between the sidebar, the grid and the detail pane.
//!
//! The grid comes first: before it would drop below [`GRID_MIN_COLUMNS`] columns, the
//! detail pane and then the sidebar collapse to a thin strip with a named button. The
//! person's own choice (a pane hidden with its button) is remembered; a pane collapsed for
//! want of room opens as a drawer over the grid when asked for, as Lightroom's panels do,
//! and docks again by itself once the window is wide enough. Nothing here depends on the
//! selection, so selecting never changes the grid's column count under the pointer.

use super::{LibraryAction, LibraryState, THUMB_DEFAULT_PX};
use crate::ui::icons::Icon;
use crate::ui::tokens;
use crate::ui::widgets;
use egui::Ui;

/// Width of a collapsed pane: room for one icon button.
pub const STRIP_WIDTH_PT: f32 = 38.0;
/// The detail pane never gets narrower than this: a readable preview and wrapped buttons.
pub const DETAIL_MIN_WIDTH_PT: f32 = 240.0;
/// The panes give way before the grid shows fewer columns than this (at the default tile
/// size or the person's smaller one; bigger tiles are a choice for fewer columns).
pub const GRID_MIN_COLUMNS: usize = 3;
/// The grid's margins (left and right of the central panel) and its scrollbar.
const GRID_CHROME_PT: f32 = 16.0 + 8.0 + tokens::SCROLLBAR_ALLOWANCE;

/// How a side pane is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Pane {
    #[default]
    Docked,
    /// A thin strip with a button that shows the pane.
    Strip,
}

/// A collapsed pane shown over the grid on request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drawer {
    Sidebar,
    Detail,
}

/// The Library's panes for one frame.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct PaneLayout {
    pub sidebar: Pane,
    pub detail: Pane,
    /// The detail pane's width when docked (a drawer has its own).
    pub detail_width_pt: f32,
}

impl PaneLayout {
    /// Width left for the grid's panel.
    pub fn grid_width_pt(&self, library_width_pt: f32) -> f32 {
        let sidebar = match self.sidebar {
            Pane::Docked => tokens::LIBRARY_SIDEBAR_WIDTH,
            Pane::Strip => STRIP_WIDTH_PT,
        };
        let detail = match self.detail {
            Pane::Docked => self.detail_width_pt,
            Pane::Strip => STRIP_WIDTH_PT,
        };
        library_width_pt - sidebar - detail
    }
}

/// The narrowest grid panel that still shows [`GRID_MIN_COLUMNS`] tiles of `thumb_px`.
pub fn grid_min_width_pt(thumb_px: f32) -> f32 {
    let tile = thumb_px.min(THUMB_DEFAULT_PX);
    let columns = GRID_MIN_COLUMNS as f32;
    columns * tile + (columns - 1.0) * tokens::GRID_GAP + GRID_CHROME_PT
}

/// The panes for the Library's whole width and the person's choices (`sidebar_open`,
/// `detail_open`): the detail pane gives way first, then the sidebar.
pub fn pane_layout(
    library_width_pt: f32,
    thumb_px: f32,
    sidebar_open: bool,
    detail_open: bool,
) -> PaneLayout {
    let grid_min = grid_min_width_pt(thumb_px);
    let sidebar = if sidebar_open
        && library_width_pt - tokens::LIBRARY_SIDEBAR_WIDTH - STRIP_WIDTH_PT >= grid_min
    {
        Pane::Docked
    } else {
        Pane::Strip
    };
    let beside_sidebar = library_width_pt
        - match sidebar {
            Pane::Docked => tokens::LIBRARY_SIDEBAR_WIDTH,
            Pane::Strip => STRIP_WIDTH_PT,
        };
    let detail_width_pt =
        (beside_sidebar * 0.32).clamp(DETAIL_MIN_WIDTH_PT, tokens::LIBRARY_DETAIL_WIDTH);
    let detail = if detail_open && beside_sidebar - detail_width_pt >= grid_min {
        Pane::Docked
    } else {
        Pane::Strip
    };
    PaneLayout {
        sidebar,
        detail,
        detail_width_pt,
    }
}

/// What a pane's "show" button does: dock it when it fits, else open it as a drawer.
fn show_action(state: &LibraryState, drawer: Drawer) -> LibraryAction {
    let (sidebar_open, detail_open) = match drawer {
        Drawer::Sidebar => (true, state.detail_open),
        Drawer::Detail => (state.sidebar_open, true),
    };
    let would_be = pane_layout(
        state.library_width_pt,
        state.thumb_px,
        sidebar_open,
        detail_open,
    );
    let docks = match drawer {
        Drawer::Sidebar => would_be.sidebar == Pane::Docked,
        Drawer::Detail => would_be.detail == Pane::Docked,
    };
    match (docks, drawer) {
        (true, Drawer::Sidebar) => LibraryAction::SetSidebarOpen(true),
        (true, Drawer::Detail) => LibraryAction::SetDetailOpen(true),
        (false, _) => LibraryAction::OpenDrawer(Some(drawer)),
    }
}

/// What a pane's "hide" button does: close the drawer it is in, or remember it hidden.
pub fn hide_action(state: &LibraryState, drawer: Drawer) -> LibraryAction {
    if state.drawer == Some(drawer) {
        return LibraryAction::OpenDrawer(None);
    }
    match drawer {
        Drawer::Sidebar => LibraryAction::SetSidebarOpen(false),
        Drawer::Detail => LibraryAction::SetDetailOpen(false),
    }
}

pub const SHOW_SIDEBAR: &str = "Show sidebar";
pub const HIDE_SIDEBAR: &str = "Hide sidebar";
pub const SHOW_DETAILS: &str = "Show details";
pub const HIDE_DETAILS: &str = "Hide details";

/// The collapsed sidebar: a button that shows it, then the sections as icons (each named
/// by its section, so they stay one click away).
pub fn sidebar_strip_ui(ui: &mut Ui, state: &LibraryState) -> Vec<LibraryAction> {
    let mut actions = Vec::new();
    ui.vertical_centered(|ui| {
        ui.spacing_mut().item_spacing.y = tokens::SPACE_XS;
        if widgets::icon_button(ui, Icon::ChevronRight, SHOW_SIDEBAR).clicked() {
            actions.push(show_action(state, Drawer::Sidebar));
        }
        ui.add_space(tokens::SPACE_S);
        for section in super::Section::ALL {
            let selected = state.place == super::Place::Section(section);
            let response =
                widgets::icon_button(ui, super::sidebar::section_icon(section), section.label());
            if selected {
                ui.painter().rect_stroke(
                    response.rect,
                    egui::CornerRadius::same(tokens::RADIUS_S),
                    egui::Stroke::new(1.0, tokens::palette().accent),
                    egui::StrokeKind::Inside,
                );
            }
            if response.clicked() {
                actions.push(LibraryAction::Open(super::Place::Section(section)));
            }
        }
    });
    actions
}

/// The collapsed detail pane: a button that shows it, and how many items are selected.
pub fn detail_strip_ui(ui: &mut Ui, state: &LibraryState) -> Vec<LibraryAction> {
    let mut actions = Vec::new();
    ui.vertical_centered(|ui| {
        if widgets::icon_button(ui, Icon::Info, SHOW_DETAILS).clicked() {
            actions.push(show_action(state, Drawer::Detail));
        }
        let selected = state.selection.len();
        if selected > 0 {
            ui.add_space(tokens::SPACE_XS);
            ui.label(
                egui::RichText::new(crate::ui::format::thousands(selected as f64))
                    .size(tokens::TEXT_SMALL)
                    .strong()
                    .color(tokens::palette().accent),
            )
            .on_hover_text(format!("{selected} selected"));
        }
    });
    actions
}

/// A pane's title row with its hide button on the right.
pub fn pane_header_ui(
    ui: &mut Ui,
    state: &LibraryState,
    title: &str,
    drawer: Drawer,
) -> Option<LibraryAction> {
    let mut action = None;
    ui.horizontal(|ui| {
        widgets::section_label(ui, title);
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            let (icon, name) = match drawer {
                Drawer::Sidebar => (Icon::ChevronLeft, HIDE_SIDEBAR),
                Drawer::Detail => (Icon::Info, HIDE_DETAILS),
            };
            if widgets::icon_button(ui, icon, name).clicked() {
                action = Some(hide_action(state, drawer));
            }
        });
    });
    action
}

/// Esc closes an open drawer first (before it would clear the selection under it).
pub fn drawer_keys_ui(ui: &Ui, state: &LibraryState) -> Option<LibraryAction> {
    let ctx = ui.ctx();
    let free = state.drawer.is_some()
        && !ctx.egui_wants_keyboard_input()
        && !egui::Popup::is_any_open(ctx)
        && state.confirm.is_none()
        && state.share.is_none();
    (free && ui.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Escape)))
        .then_some(LibraryAction::OpenDrawer(None))
}

/// Where a drawer sits over the Library (`library` is its whole rectangle, footer
/// excluded): against the strip it opened from, full height.
pub fn drawer_rect(library: egui::Rect, drawer: Drawer) -> egui::Rect {
    let width = match drawer {
        Drawer::Sidebar => tokens::LIBRARY_SIDEBAR_WIDTH,
        Drawer::Detail => tokens::LIBRARY_DETAIL_WIDTH,
    }
    .min(library.width() - 2.0 * STRIP_WIDTH_PT)
    .max(STRIP_WIDTH_PT);
    match drawer {
        Drawer::Sidebar => egui::Rect::from_min_size(
            library.min + egui::vec2(STRIP_WIDTH_PT, 0.0),
            egui::vec2(width, library.height()),
        ),
        Drawer::Detail => egui::Rect::from_min_size(
            egui::pos2(library.max.x - STRIP_WIDTH_PT - width, library.min.y),
            egui::vec2(width, library.height()),
        ),
    }
}

/// Shows `contents` in a drawer over the grid at `rect`.
pub fn drawer_ui<R>(
    ctx: &egui::Context,
    drawer: Drawer,
    rect: egui::Rect,
    contents: impl FnOnce(&mut Ui) -> R,
) -> R {
    egui::Area::new(egui::Id::unique(("library_drawer", drawer as u8)))
        .order(egui::Order::Middle)
        .fixed_pos(rect.min)
        .show(ctx, |ui| {
            egui::Frame::new()
                .fill(tokens::palette().bg_panel)
                .stroke(egui::Stroke::new(1.0, tokens::palette().border_strong))
                .shadow(egui::Shadow {
                    offset: [0, 4],
                    blur: 16,
                    spread: 0,
                    color: tokens::palette().scrim,
                })
                .inner_margin(egui::Margin::same(12))
                .show(ui, |ui| {
                    let inner = rect.size() - egui::vec2(24.0, 24.0);
                    ui.set_min_size(inner);
                    ui.set_max_size(inner);
                    contents(ui)
                })
                .inner
        })
        .inner
}

#[cfg(test)]
mod tests {
    use super::*;

    fn columns(layout: &PaneLayout, width: f32) -> usize {
        let grid = layout.grid_width_pt(width) - GRID_CHROME_PT;
        let tile = super::super::grid::wanted_tile_px(grid, THUMB_DEFAULT_PX);
        super::super::grid::GridGeometry::new(grid, tile).columns
    }

    #[test]
    fn the_detail_pane_then_the_sidebar_give_way_before_the_grid_drops_below_three_columns() {
        // 2560 wide: everything docked, the widest pane.
        let wide = pane_layout(2476.0, THUMB_DEFAULT_PX, true, true);
        assert_eq!((wide.sidebar, wide.detail), (Pane::Docked, Pane::Docked));
        assert_eq!(wide.detail_width_pt, tokens::LIBRARY_DETAIL_WIDTH);
        // 1440 without the tray: still all docked.
        let full = pane_layout(1356.0, THUMB_DEFAULT_PX, true, true);
        assert_eq!((full.sidebar, full.detail), (Pane::Docked, Pane::Docked));
        assert!(columns(&full, 1356.0) >= 3);
        // 1440 with a 420 pt tray, or 1024 without it: the detail pane collapses.
        for width in [936.0, 940.0] {
            let layout = pane_layout(width, THUMB_DEFAULT_PX, true, true);
            assert_eq!((layout.sidebar, layout.detail), (Pane::Docked, Pane::Strip));
            assert!(columns(&layout, width) >= 3, "{width}: {layout:?}");
        }
        // 1024 with the tray: the sidebar goes too, and the tiles shrink a little.
        let narrow = pane_layout(600.0, THUMB_DEFAULT_PX, true, true);
        assert_eq!((narrow.sidebar, narrow.detail), (Pane::Strip, Pane::Strip));
        assert!(columns(&narrow, 600.0) >= 3);
        // Hidden by choice stays hidden however wide.
        let chosen = pane_layout(2476.0, THUMB_DEFAULT_PX, false, false);
        assert_eq!((chosen.sidebar, chosen.detail), (Pane::Strip, Pane::Strip));
    }
}
