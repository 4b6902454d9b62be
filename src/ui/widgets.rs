//! Small shared widgets built from the design tokens: primary buttons, pills, section
//! labels, field errors, named icon buttons.

use super::icons::{Icon, paint_icon};
use super::tokens;
use egui::{
    Button, Color32, CornerRadius, Response, RichText, Role, Sense, Stroke, Ui, Vec2, WidgetInfo,
};

/// The first of `candidates` (longest first) that fits `max_width` on one line in `font`:
/// a read-out that shortens in a narrow place ("0:01.12 / 0:04.00", then "0:01.12") rather
/// than drawing past it. `None` when none fits.
pub fn first_that_fits(
    painter: &egui::Painter,
    font: &egui::FontId,
    max_width: f32,
    candidates: impl IntoIterator<Item = String>,
) -> Option<String> {
    candidates.into_iter().find(|text| {
        painter
            .layout_no_wrap(text.clone(), font.clone(), Color32::WHITE)
            .size()
            .x
            <= max_width
    })
}

/// Widest a chip gets (source images, a video's source): room for a file name and its state.
pub const CHIP_MAX_WIDTH: f32 = 240.0;
/// Narrowest a chip gets before it takes the whole row: a short name still reads.
pub const CHIP_MIN_WIDTH: f32 = 150.0;

/// Space between chips.
const CHIP_GAP: f32 = 6.0;

/// Columns and chip width for a row `available_width` wide: as many chips as fit at
/// [`CHIP_MIN_WIDTH`] or more, none wider than [`CHIP_MAX_WIDTH`], sharing the row evenly.
pub fn chip_columns(available_width: f32) -> (usize, f32) {
    let available_width = available_width.max(1.0);
    let most = ((available_width + CHIP_GAP) / (CHIP_MIN_WIDTH + CHIP_GAP)).floor();
    let fewest = ((available_width + CHIP_GAP) / (CHIP_MAX_WIDTH + CHIP_GAP)).ceil();
    let columns = fewest.min(most).max(1.0);
    let width = ((available_width - CHIP_GAP * (columns - 1.0)) / columns).floor();
    (columns as usize, width.min(CHIP_MAX_WIDTH))
}

/// `count` chips in even rows (see [`chip_columns`]); `chip` lays out chip `index` in a
/// chip of the given width (usually with [`truncating_chip`]).
pub fn chip_rows(ui: &mut Ui, count: usize, mut chip: impl FnMut(&mut Ui, usize, f32)) {
    let (columns, width) = chip_columns(ui.available_width());
    let indices: Vec<usize> = (0..count).collect();
    for row in indices.chunks(columns) {
        ui.horizontal_top(|ui| {
            ui.spacing_mut().item_spacing.x = CHIP_GAP;
            for &index in row {
                chip(ui, index, width);
            }
        });
    }
}

/// A framed chip exactly `width` wide (see [`chip_rows`]), whatever its text: it never
/// squeezes into what is left of a row. Its text should be [`truncated_label`]s, so a long
/// name ends in "…" and shows in full on hover.
pub fn truncating_chip<R>(
    ui: &mut Ui,
    width: f32,
    add_contents: impl FnOnce(&mut Ui) -> R,
) -> egui::InnerResponse<R> {
    let margin = egui::Margin::symmetric(6, 4);
    let inner_width = (width - f32::from(margin.left + margin.right) - 2.0).max(1.0);
    ui.allocate_ui_with_layout(
        Vec2::new(width, 0.0),
        egui::Layout::left_to_right(egui::Align::Center),
        |ui| {
            egui::Frame::new()
                .fill(tokens::palette().bg_elevated)
                .stroke(Stroke::new(1.0, tokens::palette().border))
                .corner_radius(CornerRadius::same(tokens::RADIUS_M))
                .inner_margin(margin)
                .show(ui, |ui| {
                    ui.set_width(inner_width);
                    ui.horizontal(|ui| {
                        ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Truncate);
                        add_contents(ui)
                    })
                    .inner
                })
                .inner
        },
    )
}

/// One line of text that ends in "…" where it does not fit, with the full text on hover.
pub fn truncated_label(ui: &mut Ui, text: impl Into<egui::WidgetText>) -> Response {
    ui.add(egui::Label::new(text).truncate())
}

/// Shows the full chosen text of a [`combo_that_fits`] on hover when it was cut short.
pub fn combo_full_text_on_hover(ui: &Ui, response: Response, selected_text: &str) -> Response {
    let font = egui::TextStyle::Button.resolve(ui.style());
    let text_width = ui
        .painter()
        .layout_no_wrap(selected_text.to_owned(), font, Color32::WHITE)
        .size()
        .x;
    let spacing = ui.spacing();
    let room = response.rect.width()
        - spacing.icon_width
        - 2.0 * spacing.button_padding.x
        - spacing.item_spacing.x;
    if text_width > room {
        response.on_hover_text(selected_text.to_owned())
    } else {
        response
    }
}

/// A combo box as wide as the space it is in, whose chosen text ends in "…" when long (pass
/// its response to [`combo_full_text_on_hover`]): it never runs past its card.
pub fn combo_that_fits(
    ui: &Ui,
    id_salt: impl egui::AsIdSalt,
    selected_text: &str,
) -> egui::ComboBox<'static> {
    egui::ComboBox::from_id_salt(id_salt)
        .selected_text(selected_text.to_owned())
        .width(ui.available_width().max(1.0))
        .truncate()
}

/// A thin vertical handle at `rect` that moves the edge between two columns. `width` is
/// the left column's width in points (`None`: its default, `default_width`); dragging
/// sets it within `range`, the arrow keys move it while it has focus, a double-click goes
/// back to the default. `name` is what screen readers (and tests) get. True when it moved.
pub fn column_splitter(
    ui: &mut Ui,
    rect: egui::Rect,
    width: &mut Option<f32>,
    default_width: f32,
    range: std::ops::RangeInclusive<f32>,
    name: &str,
) -> bool {
    let id = ui.scope_id().with(("column_splitter", name));
    let response = ui
        .interact(rect, id, Sense::click_and_drag())
        .on_hover_cursor(egui::CursorIcon::ResizeHorizontal)
        .on_hover_text("Drag to resize · double-click for the default width");
    let clamp = |value: f32| value.clamp(*range.start(), *range.end());
    let current = clamp(width.unwrap_or(default_width));
    let mut moved = None;
    if response.dragged() {
        moved = Some(current + response.drag_delta().x);
    }
    if response.has_focus() {
        // Left and right move the edge rather than the focus.
        ui.memory_mut(|m| {
            m.set_focus_lock_filter(
                id,
                egui::EventFilter {
                    horizontal_arrows: true,
                    ..Default::default()
                },
            );
        });
        let step = ui.input(|i| {
            let step = if i.modifiers.shift { 64.0 } else { 16.0 };
            if i.key_pressed(egui::Key::ArrowLeft) {
                -step
            } else if i.key_pressed(egui::Key::ArrowRight) {
                step
            } else {
                0.0
            }
        });
        if step != 0.0 {
            moved = Some(current + step);
        }
    }
    let mut changed = false;
    if response.double_clicked() {
        changed = width.is_some();
        *width = None;
    } else if let Some(value) = moved.map(clamp)
        && value != current
    {
        *width = Some(value);
        changed = true;
    }
    let active = response.hovered() || response.dragged() || response.has_focus();
    if ui.is_rect_visible(rect) {
        let color = if active {
            tokens::palette().accent
        } else {
            tokens::palette().border
        };
        let x = rect.center().x;
        let line_width = if active { 2.0 } else { 1.0 };
        ui.painter().vline(
            x,
            rect.y_range().shrink(tokens::SPACE_M),
            Stroke::new(line_width, color),
        );
    }
    let name = name.to_owned();
    let value = f64::from(width.map_or(current, clamp));
    response.widget_info(|| {
        let mut info = WidgetInfo::labeled(Role::Splitter, true, &name);
        info.value = Some(value);
        info
    });
    changed
}

/// The accent-filled button for the main action of a view.
pub fn primary_button(text: impl Into<String>) -> Button<'static> {
    Button::new(
        RichText::new(text.into())
            .color(tokens::palette().on_accent)
            .strong()
            .size(tokens::TEXT_BUTTON + 0.5),
    )
    .fill(tokens::palette().accent)
    .stroke(Stroke::NONE)
    .corner_radius(CornerRadius::same(tokens::RADIUS_M))
    .min_size(Vec2::new(0.0, 36.0))
}

/// The accent button at the height of the other toolbar buttons.
pub fn small_primary_button(text: impl Into<String>) -> Button<'static> {
    Button::new(
        RichText::new(text.into())
            .color(tokens::palette().on_accent)
            .strong(),
    )
    .fill(tokens::palette().accent)
    .stroke(Stroke::NONE)
    .corner_radius(CornerRadius::same(tokens::RADIUS_M))
}

/// A red-filled button for irreversible actions (in confirmations).
pub fn danger_button(text: impl Into<String>) -> Button<'static> {
    Button::new(
        RichText::new(text.into())
            .color(tokens::palette().on_accent)
            .strong()
            .size(tokens::TEXT_BUTTON + 0.5),
    )
    .fill(tokens::palette().danger_fill)
    .stroke(Stroke::NONE)
    .corner_radius(CornerRadius::same(tokens::RADIUS_M))
    .min_size(Vec2::new(0.0, 36.0))
}

/// An outlined button with red text for irreversible actions in toolbars.
pub fn danger_button_small(text: impl Into<String>) -> Button<'static> {
    Button::new(RichText::new(text.into()).color(tokens::palette().danger))
        .fill(tokens::palette().bg_elevated)
        .stroke(Stroke::new(1.0, tokens::palette().border_strong))
        .corner_radius(CornerRadius::same(tokens::RADIUS_M))
}

/// A quiet outlined button for secondary actions.
pub fn secondary_button(text: impl Into<String>) -> Button<'static> {
    Button::new(RichText::new(text.into()).color(tokens::palette().text))
        .fill(tokens::palette().bg_elevated)
        .stroke(Stroke::new(1.0, tokens::palette().border_strong))
        .corner_radius(CornerRadius::same(tokens::RADIUS_M))
}

/// A two-state button (Fit / 100 %, loop) that reads clearly when on: white on accent.
pub fn toggle_button(text: &str, on: bool) -> Button<'static> {
    if on {
        Button::new(
            RichText::new(text)
                .color(tokens::palette().on_accent)
                .strong(),
        )
        .fill(tokens::palette().accent)
        .stroke(Stroke::NONE)
        .corner_radius(CornerRadius::same(tokens::RADIUS_M))
    } else {
        secondary_button(text)
    }
}

/// A small text-only button (links inside cards: "Dismiss", "Check again").
pub fn subtle_button(text: impl Into<String>) -> Button<'static> {
    Button::new(
        RichText::new(text.into())
            .color(tokens::palette().text_muted)
            .size(12.5),
    )
    .frame_when_inactive(false)
    .corner_radius(CornerRadius::same(tokens::RADIUS_S))
}

/// An icon-only button; `name` is what screen readers (and tests) get, and the tooltip.
pub fn icon_button(ui: &mut Ui, icon: Icon, name: &str) -> Response {
    let (rect, response) = ui.allocate_exact_size(Vec2::splat(26.0), Sense::click());
    paint_icon_button(ui, rect, icon, &response, false);
    let name = name.to_owned();
    response.widget_info(|| WidgetInfo::labeled(Role::Button, true, &name));
    response.on_hover_text(name)
}

/// A round icon button placed at `rect` (viewer arrows).
pub fn round_icon_button(ui: &mut Ui, rect: egui::Rect, icon: Icon, name: &str) -> Response {
    let response = ui.interact(rect, ui.scope_id().with(name), Sense::click());
    paint_icon_button(ui, rect, icon, &response, true);
    let name = name.to_owned();
    response.widget_info(|| WidgetInfo::labeled(Role::Button, true, &name));
    response.on_hover_text(name)
}

fn paint_icon_button(ui: &Ui, rect: egui::Rect, icon: Icon, response: &Response, filled: bool) {
    if !ui.is_rect_visible(rect) {
        return;
    }
    let painter = ui.painter();
    let radius = if filled {
        CornerRadius::same(255)
    } else {
        CornerRadius::same(tokens::RADIUS_S + 2)
    };
    if response.hovered() || filled {
        let fill = if response.hovered() {
            tokens::palette().bg_hover
        } else {
            tokens::palette().bg_elevated.gamma_multiply(0.9)
        };
        painter.rect_filled(rect, radius, fill);
    }
    let color = if response.hovered() {
        tokens::palette().text
    } else {
        tokens::palette().text_muted
    };
    let inner = egui::Rect::from_center_size(rect.center(), Vec2::splat(rect.width() * 0.46));
    paint_icon(painter, inner, icon, color);
}

/// The frame of a docked side pane (lists, folders, detail panes, transfers): the panel
/// fill with a 1-pt border, so every view's panes read as the same kind of surface.
pub fn side_panel_frame(margin: egui::Margin) -> egui::Frame {
    egui::Frame::new()
        .fill(tokens::palette().bg_panel)
        .stroke(Stroke::new(1.0, tokens::palette().border))
        .inner_margin(margin)
}

/// A line of coloured text with a warning icon in front (poll problems, notes).
pub fn notice(ui: &mut Ui, text: &str, color: Color32) {
    ui.horizontal_top(|ui| {
        ui.spacing_mut().item_spacing.x = 6.0;
        ui.add_space(1.0);
        crate::ui::icons::icon_ui(ui, Icon::Warning, 13.0, color);
        ui.add(egui::Label::new(RichText::new(text).size(12.5).color(color)).wrap());
    });
}

/// Uppercase, muted, small: the label above a form field or a section.
pub fn section_label(ui: &mut Ui, text: &str) -> Response {
    ui.label(
        RichText::new(text.to_uppercase())
            .size(tokens::TEXT_SMALL)
            .color(tokens::palette().text_faint)
            .strong(),
    )
}

/// A red message directly under the field it is about.
pub fn field_error(ui: &mut Ui, message: &str) {
    notice(ui, message, tokens::palette().danger);
}

/// A rounded pill with a coloured dot and text (job states, badges).
pub fn pill(ui: &mut Ui, text: &str, color: Color32) -> Response {
    let font = egui::FontId::proportional(tokens::TEXT_SMALL);
    let galley = ui
        .painter()
        .layout_no_wrap(text.to_owned(), font, color.gamma_multiply(1.0));
    let dot = 6.0;
    let padding = Vec2::new(8.0, 3.0);
    let size = Vec2::new(
        padding.x * 2.0 + dot + 5.0 + galley.size().x,
        galley.size().y + padding.y * 2.0,
    );
    let (rect, response) = ui.allocate_exact_size(size, Sense::hover());
    if ui.is_rect_visible(rect) {
        let painter = ui.painter();
        painter.rect_filled(rect, CornerRadius::same(255), color.gamma_multiply(0.16));
        let dot_center = egui::pos2(rect.left() + padding.x + dot / 2.0, rect.center().y);
        painter.circle_filled(dot_center, dot / 2.0, color);
        painter.galley(
            egui::pos2(
                dot_center.x + dot / 2.0 + 5.0,
                rect.center().y - galley.size().y / 2.0,
            ),
            galley,
            color,
        );
    }
    let text = text.to_owned();
    response.widget_info(|| WidgetInfo::labeled(Role::Label, true, &text));
    response
}

/// A tiny uppercase badge ("NEW", "RECOMMENDED").
pub fn badge(ui: &mut Ui, text: &str, color: Color32) {
    egui::Frame::new()
        .fill(color.gamma_multiply(0.18))
        .corner_radius(CornerRadius::same(tokens::RADIUS_S))
        .inner_margin(egui::Margin::symmetric(5, 1))
        .show(ui, |ui| {
            ui.label(RichText::new(text).size(10.0).strong().color(color));
        });
}

/// Name a widget whose visible label is elsewhere or styled (text fields, combo boxes).
pub fn name_widget(response: &Response, name: &str) {
    let _ = response.clone().accessible_name(name);
}

/// Muted body text.
pub fn muted(ui: &mut Ui, text: impl Into<String>) -> Response {
    ui.label(RichText::new(text.into()).color(tokens::palette().text_muted))
}

/// A clickable colour square (swatches); `name` is its accessible name and tooltip.
pub fn swatch_button(ui: &mut Ui, color: Color32, size: Vec2, name: &str) -> Response {
    let (rect, response) = ui.allocate_exact_size(size, Sense::click());
    if ui.is_rect_visible(rect) {
        let painter = ui.painter();
        let radius = CornerRadius::same(tokens::RADIUS_S);
        painter.rect_filled(rect, radius, color);
        let stroke = if response.hovered() {
            Stroke::new(1.5, tokens::palette().text)
        } else {
            Stroke::new(1.0, tokens::palette().border_strong)
        };
        painter.rect_stroke(rect, radius, stroke, egui::StrokeKind::Inside);
    }
    let name = name.to_owned();
    response.widget_info(|| WidgetInfo::labeled(Role::Button, true, &name));
    response
        .on_hover_text(name)
        .on_hover_cursor(egui::CursorIcon::PointingHand)
}

/// A row of colour squares filling `size` (palette previews); not interactive.
pub fn swatch_strip(ui: &mut Ui, colors: &[Color32], size: Vec2) -> Response {
    let (rect, response) = ui.allocate_exact_size(size, Sense::hover());
    paint_swatch_strip(ui.painter(), rect, colors);
    response
}

/// Paint equal-width colour cells into `rect` with rounded outer corners.
pub fn paint_swatch_strip(painter: &egui::Painter, rect: egui::Rect, colors: &[Color32]) {
    if colors.is_empty() {
        painter.rect_filled(
            rect,
            CornerRadius::same(tokens::RADIUS_S),
            tokens::palette().bg_elevated,
        );
        return;
    }
    let cell = rect.width() / colors.len() as f32;
    let last = colors.len() - 1;
    for (i, color) in colors.iter().enumerate() {
        let cell_rect = egui::Rect::from_min_size(
            egui::pos2(rect.left() + cell * i as f32, rect.top()),
            Vec2::new(cell + if i == last { 0.0 } else { 0.5 }, rect.height()),
        );
        let r = tokens::RADIUS_S;
        let radius = CornerRadius {
            nw: if i == 0 { r } else { 0 },
            sw: if i == 0 { r } else { 0 },
            ne: if i == last { r } else { 0 },
            se: if i == last { r } else { 0 },
        };
        painter.rect_filled(cell_rect, radius, *color);
    }
    painter.rect_stroke(
        rect,
        CornerRadius::same(tokens::RADIUS_S),
        Stroke::new(1.0, tokens::palette().border),
        egui::StrokeKind::Inside,
    );
}

/// The colour of a `#RRGGBB` string (grey when unreadable).
pub fn hex_color(hex: &str) -> Color32 {
    crate::palette::Rgb::from_hex(hex)
        .map(|c| Color32::from_rgb(c.r, c.g, c.b))
        .unwrap_or(tokens::palette().text_faint)
}

/// A job's thin progress bar; it animates while no progress has been reported yet.
pub fn job_progress_bar(ui: &mut Ui, progress_percent: f32) -> Response {
    let fraction = (progress_percent / 100.0).clamp(0.0, 1.0);
    ui.add(
        egui::ProgressBar::new(fraction)
            .desired_height(6.0)
            .fill(tokens::palette().accent)
            .corner_radius(egui::CornerRadius::same(3))
            .animate(fraction <= 0.0),
    )
}

/// A result's prompt under a "Prompt" label, selectable so it can be copied; says so
/// plainly when there is none.
pub fn prompt_block(ui: &mut Ui, prompt: Option<&str>, size: f32) {
    section_label(ui, "Prompt");
    match prompt {
        Some(prompt) => {
            ui.add(
                egui::Label::new(
                    egui::RichText::new(prompt)
                        .color(tokens::palette().text)
                        .size(size),
                )
                .wrap()
                .selectable(true),
            );
        }
        None => {
            ui.label(
                egui::RichText::new("No prompt (uploaded or not recorded)")
                    .color(tokens::palette().text_faint),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chips_share_a_row_evenly_between_their_limits() {
        assert_eq!(chip_columns(390.0), (2, 192.0));
        assert_eq!(chip_columns(240.0), (1, 240.0));
        assert_eq!(
            chip_columns(100.0),
            (1, 100.0),
            "narrower than a chip: the row"
        );
        let (columns, width) = chip_columns(640.0);
        assert_eq!(columns, 3);
        assert!((CHIP_MIN_WIDTH..=CHIP_MAX_WIDTH).contains(&width));
    }

    #[test]
    fn the_longest_text_that_fits_is_chosen() {
        let ctx = egui::Context::default();
        let mut chosen = Vec::new();
        let mut output = ctx.run_ui(egui::RawInput::default(), |ui| {
            let font = egui::FontId::monospace(12.0);
            let painter = ui.painter();
            let one_char = painter
                .layout_no_wrap("0".into(), font.clone(), Color32::WHITE)
                .size()
                .x;
            let candidates = || ["0:01.12 / 0:04.00".to_owned(), "0:01.12".to_owned()];
            for chars in [40.0, 10.0, 3.0] {
                chosen.push(first_that_fits(
                    painter,
                    &font,
                    one_char * chars,
                    candidates(),
                ));
            }
        });
        // The font atlas upload is not applied anywhere in a test.
        output.textures_delta.clear();
        assert_eq!(
            chosen,
            [
                Some("0:01.12 / 0:04.00".to_owned()),
                Some("0:01.12".to_owned()),
                None
            ]
        );
    }
}
