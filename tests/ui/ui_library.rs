//! Library flows driven through egui_kittest against the real studio and the embedded
//! sandbox: drop-to-upload, multi-select trash and restore, folders. Widgets are found by
//! role and accessible name; assertions are on app state, never on timing.

use crate::service_support;
use crate::support;
use support::{DroppedPath, step_until, studio};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use framewright::ui::library::{Place, Section};
use framewright::ui::{StudioApp, View};
use std::sync::Arc;

/// Wait until the library's current query has answered and nothing is pending.
fn settle(harness: &mut Harness<'static, StudioApp>, what: &str) {
    step_until(harness, what, |h| {
        h.state().library_settled() && !h.state().library_busy()
    });
    for _ in 0..3 {
        harness.step();
    }
}

fn seed(harness: &Harness<'static, StudioApp>, count: usize) {
    let seeded = harness
        .state()
        .session()
        .local_sandbox()
        .expect("local sandbox profile")
        .seed_media(count, None);
    assert_eq!(seeded, count, "the sandbox seeded the items");
}

/// A studio on a fresh sandbox with `count` seeded items, showing the Library. Keep the
/// folder alive (`_dir`, not `_`) until the harness is dropped: it stops the sandbox.
fn library_with(count: usize) -> (tempfile::TempDir, Harness<'static, StudioApp>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    seed(&harness, count);
    open_library(&mut harness);
    hide_jobs_tray(&mut harness);
    (dir, harness)
}

/// Close the jobs tray when it is open, so the grid has the window's width (the flows
/// click tiles in the first rows, which must be on screen).
fn hide_jobs_tray(harness: &mut Harness<'static, StudioApp>) {
    let hide = harness.query_by(|node| {
        node.role() == Role::Button && node.label().is_some_and(|l| l.starts_with("Hide jobs"))
    });
    if let Some(hide) = hide {
        hide.click();
        harness.step();
        harness.step();
    }
}

/// Open the folder `name` from the sidebar; the ids it shows, sorted.
fn open_folder(harness: &mut Harness<'static, StudioApp>, name: &str) -> Vec<String> {
    harness
        .get_all_by_role_and_label(Role::Button, name)
        .next()
        .expect("the folder in the sidebar")
        .click();
    harness.step();
    settle(harness, "the folder's contents");
    let mut shown = harness.state().library_item_ids();
    shown.sort();
    shown
}

/// Open the Library from the rail and wait for its first page.
fn open_library(harness: &mut Harness<'static, StudioApp>) {
    step_until(harness, "the service data", |h| {
        h.state().projects_loaded() && h.state().catalog_loaded()
    });
    harness
        .get_by_role_and_label(Role::Button, "Library")
        .click();
    harness.step();
    assert_eq!(harness.state().view(), View::Library);
    settle(harness, "the first library page");
}

fn click_sidebar(harness: &mut Harness<'static, StudioApp>, label: &str) {
    harness.get_by_role_and_label(Role::Button, label).click();
    harness.step();
}

/// A tile's accessible name: the item's display name and kind.
fn tile_name(harness: &Harness<'static, StudioApp>, item_id: &str) -> String {
    let item = harness
        .state()
        .library_items()
        .into_iter()
        .find(|i| i.id == item_id)
        .expect("item loaded");
    format!("{}, {}", item.display_name(), item.kind())
}

/// Click the tile of `item_id` (found by its accessible name), with modifiers.
fn click_tile(
    harness: &mut Harness<'static, StudioApp>,
    item_id: &str,
    modifiers: egui::Modifiers,
) {
    let name = tile_name(harness, item_id);
    let node = harness
        .query_all_by_role_and_label(Role::Button, &name)
        .next()
        .unwrap_or_else(|| panic!("a tile named {name:?}"));
    node.click_modifiers(modifiers);
    harness.step();
    harness.step();
}

#[test]
fn a_file_dropped_on_the_library_uploads_and_appears_in_the_grid() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    open_library(&mut harness);
    // The sandbox starts with its stock stills only.
    let before = harness.state().library_item_ids();
    harness.check_accessibility();

    let photo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/fixtures/photos/coffee.png");
    assert!(photo.exists(), "fixture photo at {}", photo.display());
    harness
        .input_mut()
        .dropped_files
        .push(Arc::new(DroppedPath(photo)));
    harness.step();
    assert_eq!(
        harness.state().view(),
        View::Library,
        "a drop in the Library stays there"
    );
    assert_eq!(
        harness.state().library_transfers().len(),
        1,
        "the upload is listed"
    );
    step_until(&mut harness, "the upload to appear in the grid", |h| {
        h.state().library_settled() && h.state().library_item_ids().len() == before.len() + 1
    });
    let transfers = harness.state().library_transfers();
    assert!(
        transfers
            .iter()
            .all(|t| t.state == framewright::ui::library::TransferState::Done),
        "the upload finished: {transfers:?}"
    );
    let item = harness
        .state()
        .library_items()
        .into_iter()
        .find(|i| !before.contains(&i.id))
        .expect("the new item");
    assert!(
        item.display_name().contains("coffee"),
        "the uploaded item is the dropped file, got {:?}",
        item.display_name()
    );
    harness.check_accessibility();
}

#[test]
fn selected_items_go_to_the_trash_and_come_back() {
    let (_dir, mut harness) = library_with(12);
    let total = harness.state().library_len();
    assert!(total >= 12);
    harness.check_accessibility();

    let ids = harness.state().library_item_ids();
    let chosen = [ids[1].clone(), ids[4].clone(), ids[7].clone()];
    click_tile(&mut harness, &chosen[0], egui::Modifiers::NONE);
    click_tile(&mut harness, &chosen[1], egui::Modifiers::COMMAND);
    click_tile(&mut harness, &chosen[2], egui::Modifiers::COMMAND);
    let mut expected = chosen.to_vec();
    expected.sort();
    assert_eq!(harness.state().library_selection(), expected);
    harness.check_accessibility();

    // Trash from the toolbar.
    harness
        .get_by_role_and_label(Role::Button, "Move to trash")
        .click();
    harness.step();
    assert_eq!(
        harness.state().library_len(),
        total - 3,
        "removed at once (optimistic)"
    );
    settle(&mut harness, "the trash to be confirmed");
    let remaining = harness.state().library_item_ids();
    assert_eq!(remaining.len(), total - 3);
    assert!(chosen.iter().all(|id| !remaining.contains(id)));

    // They are in the Trash section.
    click_sidebar(&mut harness, "Trash");
    assert_eq!(
        harness.state().library_place(),
        Place::Section(Section::Trash)
    );
    settle(&mut harness, "the trash listing");
    let mut trashed = harness.state().library_item_ids();
    trashed.sort();
    assert_eq!(trashed, expected);

    // Select all three (click, shift-click covers the range) and restore.
    let in_order = harness.state().library_item_ids();
    click_tile(&mut harness, &in_order[0], egui::Modifiers::NONE);
    click_tile(&mut harness, &in_order[2], egui::Modifiers::SHIFT);
    assert_eq!(harness.state().library_selection().len(), 3);
    harness
        .get_by_role_and_label(Role::Button, "Restore")
        .click();
    harness.step();
    settle(&mut harness, "the restore to be confirmed");
    assert!(
        harness.state().library_item_ids().is_empty(),
        "the trash is empty"
    );

    click_sidebar(&mut harness, "All media");
    settle(&mut harness, "all media");
    let all = harness.state().library_item_ids();
    assert_eq!(all.len(), total);
    assert!(
        chosen.iter().all(|id| all.contains(id)),
        "restored items are back"
    );
}

#[test]
fn the_delete_key_trashes_the_selection() {
    let (_dir, mut harness) = library_with(5);
    let ids = harness.state().library_item_ids();
    click_tile(&mut harness, &ids[0], egui::Modifiers::NONE);
    harness.key_press(egui::Key::Delete);
    harness.step();
    settle(&mut harness, "the trash to be confirmed");
    let remaining = harness.state().library_item_ids();
    assert_eq!(remaining.len(), ids.len() - 1);
    assert!(!remaining.contains(&ids[0]));
}

#[test]
fn a_folder_holds_exactly_the_items_added_to_it() {
    let (_dir, mut harness) = library_with(8);

    let folder = create_folder(&mut harness, "Moodboard", "#EC4899");
    assert_eq!(folder.color.as_deref(), Some("#EC4899"));
    harness.check_accessibility();

    // Select two items and add them with the bulk action.
    let ids = harness.state().library_item_ids();
    let chosen = [ids[2].clone(), ids[5].clone()];
    click_tile(&mut harness, &chosen[0], egui::Modifiers::NONE);
    click_tile(&mut harness, &chosen[1], egui::Modifiers::COMMAND);
    harness
        .get_by_role_and_label(Role::Button, "Add to folder…")
        .click();
    step_until(&mut harness, "the folder menu", |h| {
        h.query_all_by_role_and_label(Role::Button, "Moodboard")
            .count()
            >= 2
    });
    harness
        .get_all_by_role_and_label(Role::Button, "Moodboard")
        .last()
        .expect("the folder in the menu")
        .click();
    harness.step();
    step_until(&mut harness, "the items to be added", |h| {
        !h.state().library_busy()
            && h.state()
                .library_folders()
                .iter()
                .any(|f| f.name == "Moodboard" && f.item_count == Some(2))
    });

    // Open the folder: exactly those items.
    let shown = open_folder(&mut harness, "Moodboard");
    assert_eq!(
        harness.state().library_place(),
        Place::Folder(folder.id.clone())
    );
    let mut expected = chosen.to_vec();
    expected.sort();
    assert_eq!(shown, expected);
    harness.check_accessibility();
}

/// Create a folder with the sidebar's inline form and wait for the service to confirm it.
fn create_folder(
    harness: &mut Harness<'static, StudioApp>,
    name: &str,
    colour: &str,
) -> framewright::api::media::Folder {
    harness
        .get_by_role_and_label(Role::Button, "New folder")
        .click();
    harness.step();
    harness.step();
    support::replace_field_text(harness, "Folder name", name);
    harness
        .get_by_role_and_label(Role::Button, &format!("Colour {colour}"))
        .click();
    harness.step();
    harness
        .get_by_role_and_label(Role::Button, "Create folder")
        .click();
    step_until(harness, "the folder to be created", |h| {
        h.state().library_folders().iter().any(|f| f.name == name)
    });
    harness
        .state()
        .library_folders()
        .into_iter()
        .find(|f| f.name == name)
        .expect("folder")
}

/// The tile of `item_id`, by its accessible name.
fn tile_rect(harness: &Harness<'static, StudioApp>, item_id: &str) -> egui::Rect {
    let name = tile_name(harness, item_id);
    harness
        .query_all_by_role_and_label(Role::Button, &name)
        .next()
        .unwrap_or_else(|| panic!("a tile named {name:?}"))
        .rect()
}

#[test]
fn undo_on_the_trash_toast_brings_the_items_back() {
    let (_dir, mut harness) = library_with(5);
    let ids = harness.state().library_item_ids();
    click_tile(&mut harness, &ids[1], egui::Modifiers::NONE);
    click_tile(&mut harness, &ids[3], egui::Modifiers::COMMAND);
    harness.key_press(egui::Key::Delete);
    harness.step();
    settle(&mut harness, "the trash to be confirmed");
    assert_eq!(harness.state().library_len(), ids.len() - 2);

    harness.get_by_role_and_label(Role::Button, "Undo").click();
    harness.step();
    settle(&mut harness, "the restore to be confirmed");
    let mut back = harness.state().library_item_ids();
    back.sort();
    let mut all = ids.clone();
    all.sort();
    assert_eq!(back, all, "both items are back in All media");

    click_sidebar(&mut harness, "Trash");
    settle(&mut harness, "the trash listing");
    assert!(
        harness.state().library_item_ids().is_empty(),
        "nothing left in the trash"
    );
}

#[test]
fn tiles_dragged_onto_a_folder_are_added_to_it() {
    let (_dir, mut harness) = library_with(6);
    let folder = create_folder(&mut harness, "Picks", "#EC4899");
    let ids = harness.state().library_item_ids();
    let chosen = [ids[0].clone(), ids[3].clone()];
    click_tile(&mut harness, &chosen[0], egui::Modifiers::NONE);
    click_tile(&mut harness, &chosen[1], egui::Modifiers::COMMAND);

    // Press on a selected tile, move in steps (past the drag threshold) onto the folder's
    // row in the sidebar, release there.
    let from = tile_rect(&harness, &chosen[1]).center();
    let to = harness
        .get_all_by_role_and_label(Role::Button, "Picks")
        .next()
        .expect("the folder in the sidebar")
        .rect()
        .center();
    harness.drag_at(from);
    harness.step();
    for step in 1..=8 {
        harness.hover_at(from + (to - from) * (step as f32 / 8.0));
        harness.step();
    }
    harness.drop_at(to);
    harness.step();
    step_until(&mut harness, "the dragged items to be added", |h| {
        !h.state().library_busy()
            && h.state()
                .library_folders()
                .iter()
                .any(|f| f.id == folder.id && f.item_count == Some(2))
    });

    let shown = open_folder(&mut harness, "Picks");
    let mut expected = chosen.to_vec();
    expected.sort();
    assert_eq!(shown, expected, "exactly the dragged selection");
}

#[test]
fn select_all_takes_every_item_including_pages_not_loaded_yet() {
    let (_dir, mut harness) = library_with(230);
    let total = harness.state().library_len();
    assert!(total >= 230);
    let loaded = harness.state().library_item_ids().len();
    assert!(
        loaded < total,
        "the list is longer than what is loaded ({loaded} of {total})"
    );

    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.step();
    step_until(&mut harness, "select all to take in every page", |h| {
        !h.state().library_select_all_pending()
    });
    assert_eq!(harness.state().library_selection().len(), total);
    harness.step();
    assert!(
        harness
            .query_by_label(&format!("{total} selected"))
            .is_some(),
        "the toolbar counts the whole list"
    );

    // Trash everything: the list empties and the trash holds it all.
    harness.key_press(egui::Key::Delete);
    harness.step();
    settle(&mut harness, "the trash to be confirmed");
    assert_eq!(harness.state().library_len(), 0);
    click_sidebar(&mut harness, "Trash");
    settle(&mut harness, "the trash listing");
    assert_eq!(harness.state().library_len(), total);
}

#[test]
fn thumbnails_of_the_next_rows_are_fetched_before_a_scroll() {
    let (_dir, mut harness) = library_with(60);
    let visible = harness.state().library_visible();
    let ids = harness.state().library_item_ids();
    assert!(
        visible.end < ids.len(),
        "some tiles are below the viewport ({visible:?} of {})",
        ids.len()
    );
    let just_below = ids[visible.end].clone();
    step_until(&mut harness, "the off-screen row's thumbnail", |h| {
        h.state().library_thumbnail_ready(&just_below)
    });
    assert_eq!(
        harness.state().library_visible(),
        visible,
        "nothing scrolled: the thumbnail was prefetched"
    );
}

// ---- issue 8: a library that stays put, the Trash, confirmations, memory ----------------

/// Trash the items `ids` with the Delete key (click the first, Ctrl+click the rest).
fn trash_with_delete_key(harness: &mut Harness<'static, StudioApp>, ids: &[String]) {
    for (n, id) in ids.iter().enumerate() {
        let modifiers = if n == 0 {
            egui::Modifiers::NONE
        } else {
            egui::Modifiers::COMMAND
        };
        click_tile(harness, id, modifiers);
    }
    harness.key_press(egui::Key::Delete);
    harness.step();
    settle(harness, "the trash to be confirmed");
}

/// Show the Trash and wait for its listing.
fn open_trash(harness: &mut Harness<'static, StudioApp>) {
    click_sidebar(harness, "Trash");
    settle(harness, "the trash listing");
}

/// Whether the confirmation titled `title` shows (after the frame that opens it).
fn confirm_shown(harness: &mut Harness<'static, StudioApp>, title: &str) -> bool {
    // A new window is measured in its first frame and shown in the next.
    for _ in 0..3 {
        harness.step();
    }
    harness.query_by_label(title).is_some()
}

#[test]
fn selecting_a_tile_in_a_scrolled_library_keeps_it_in_view_and_the_columns() {
    let (_dir, mut harness) = library_with(60);
    let viewport = harness.state().library().grid_viewport;
    harness.hover_at(viewport.center());
    harness.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: egui::vec2(0.0, -(viewport.height() * 0.6)),
        modifiers: egui::Modifiers::NONE,
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Unknown,
    });
    step_until(&mut harness, "the grid to scroll", |h| {
        h.state().library_visible().start > 0
    });
    for _ in 0..5 {
        harness.step();
    }
    let columns = harness.state().library().columns;
    let visible = harness.state().library_visible();
    let ids = harness.state().library_item_ids();

    // A tile fully in view: selecting it moves nothing and keeps the column count.
    let inside = visible
        .clone()
        .map(|i| ids[i].clone())
        .find(|id| viewport.contains_rect(tile_rect(&harness, id)))
        .expect("a tile fully inside the viewport");
    let before = tile_rect(&harness, &inside);
    click_tile(&mut harness, &inside, egui::Modifiers::NONE);
    assert_eq!(harness.state().library_selection(), vec![inside.clone()]);
    assert_eq!(
        harness.state().library().columns,
        columns,
        "the detail pane does not change the column count"
    );
    assert_eq!(
        tile_rect(&harness, &inside),
        before,
        "the selected tile did not move under the pointer"
    );
    assert!(harness.query_by_label("Move to trash").is_some());

    // A tile cut by the bottom edge scrolls fully into view when selected.
    let cut = visible.map(|i| ids[i].clone()).find(|id| {
        let rect = tile_rect(&harness, id);
        viewport.contains(rect.center()) && rect.bottom() > viewport.bottom()
    });
    if let Some(cut) = cut {
        click_tile(&mut harness, &cut, egui::Modifiers::NONE);
        for _ in 0..3 {
            harness.step();
        }
        let rect = tile_rect(&harness, &cut);
        assert!(
            viewport.expand(0.5).contains_rect(rect),
            "the selected tile {rect:?} is inside the visible grid {viewport:?}"
        );
        assert_eq!(harness.state().library().columns, columns);
    }
    harness.check_accessibility();
}

#[test]
fn the_trash_shows_a_trashed_items_details_and_counts_itself() {
    let (_dir, mut harness) = library_with(3);
    let ids = harness.state().library_item_ids();
    let chosen = ids[0].clone();
    trash_with_delete_key(&mut harness, std::slice::from_ref(&chosen));
    open_trash(&mut harness);
    assert_eq!(harness.state().library_item_ids(), vec![chosen.clone()]);

    let item = harness.state().library_items()[0].clone();
    click_tile(&mut harness, &chosen, egui::Modifiers::NONE);
    step_until(&mut harness, "the detail pane", |h| {
        h.query_by_label_contains("· in the trash").is_some()
    });
    for _ in 0..5 {
        harness.step();
    }
    assert!(
        harness
            .query_by_label_contains("Details unavailable")
            .is_none(),
        "no 404 from the single-item route"
    );
    assert!(
        harness.query_all_by_label(item.display_name()).count() >= 1,
        "the item's name shows"
    );
    if let Some(prompt) = item.prompt.as_deref().filter(|p| !p.is_empty()) {
        assert!(
            harness.query_all_by_label(prompt).count() >= 1,
            "the prompt shows"
        );
    }
    assert!(harness.query_by_label("Restore").is_some());
    assert!(harness.query_by_label("Delete forever…").is_some());
    assert!(
        harness.query_by_label("1 item in the trash").is_some(),
        "the footer counts the Trash, not the library"
    );
    assert!(
        harness
            .query_by_label_contains("Del delete forever · R restore")
            .is_some()
    );
    harness.check_accessibility();

    // R restores.
    harness.key_press(egui::Key::R);
    harness.step();
    settle(&mut harness, "the restore");
    assert_eq!(harness.state().library_len(), 0);
    assert!(harness.query_by_label("Trash is empty").is_some());
}

#[test]
fn empty_trash_deletes_everything_after_confirmation_and_nothing_before() {
    let (_dir, mut harness) = library_with(4);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.step();
    step_until(&mut harness, "select all", |h| {
        !h.state().library_select_all_pending()
    });
    let total = harness.state().library_len();
    harness.key_press(egui::Key::Delete);
    harness.step();
    settle(&mut harness, "the trash to be confirmed");
    open_trash(&mut harness);
    assert_eq!(harness.state().library_len(), total);

    // Asked first; cancelling deletes nothing.
    harness
        .get_by_role_and_label(Role::Button, "Empty trash…")
        .click();
    harness.step();
    assert!(confirm_shown(&mut harness, "Empty the trash?"));
    assert_eq!(
        harness.state().library_len(),
        total,
        "nothing before the answer"
    );
    harness
        .get_by_role_and_label(Role::Button, "Cancel")
        .click();
    harness.step();
    assert!(!confirm_shown(&mut harness, "Empty the trash?"));
    click_sidebar(&mut harness, "All media");
    settle(&mut harness, "all media");
    open_trash(&mut harness);
    assert_eq!(
        harness.state().library_len(),
        total,
        "cancel kept everything"
    );

    // Confirmed: everything goes, on the service too.
    harness
        .get_by_role_and_label(Role::Button, "Empty trash…")
        .click();
    assert!(confirm_shown(&mut harness, "Empty the trash?"));
    harness
        .get_by_role_and_label(Role::Button, "Empty trash")
        .click();
    harness.step();
    settle(&mut harness, "the trash to be emptied");
    assert_eq!(harness.state().library_len(), 0);
    click_sidebar(&mut harness, "All media");
    settle(&mut harness, "all media");
    assert_eq!(harness.state().library_len(), 0, "not restored either");
    open_trash(&mut harness);
    assert_eq!(
        harness.state().library_len(),
        0,
        "the service's trash is empty"
    );
    assert!(harness.query_by_label("Trash is empty").is_some());
}

#[test]
fn delete_forever_always_asks_and_trashing_always_offers_undo() {
    let (_dir, mut harness) = library_with(3);
    let ids = harness.state().library_item_ids();

    // Trash from the tile's context menu: the toast offers Undo.
    harness
        .query_all_by_role_and_label(Role::Button, &tile_name(&harness, &ids[0]))
        .next()
        .expect("tile")
        .click_secondary();
    click_menu_entry(&mut harness, "the context menu", "Move to trash");
    step_until(&mut harness, "the Undo toast", |h| {
        h.query_by_label("Undo").is_some()
    });
    settle(&mut harness, "the trash to be confirmed");
    open_trash(&mut harness);
    assert_eq!(harness.state().library_item_ids(), vec![ids[0].clone()]);

    // Del in the Trash asks; Cancel keeps the item.
    click_tile(&mut harness, &ids[0], egui::Modifiers::NONE);
    harness.key_press(egui::Key::Delete);
    harness.step();
    assert!(confirm_shown(&mut harness, "Delete forever?"));
    harness
        .get_by_role_and_label(Role::Button, "Cancel")
        .click();
    harness.step();
    assert_eq!(harness.state().library_len(), 1);

    // The detail pane's button asks too.
    harness
        .get_by_role_and_label(Role::Button, "Delete forever…")
        .click();
    harness.step();
    assert!(confirm_shown(&mut harness, "Delete forever?"));
    assert!(
        harness
            .query_by_label_contains("This item will be removed")
            .is_some(),
        "it says how many"
    );
    harness
        .get_by_role_and_label(Role::Button, "Cancel")
        .click();
    harness.step();
    assert_eq!(harness.state().library_len(), 1);

    // And the context menu's; confirming deletes.
    harness
        .query_all_by_role_and_label(Role::Button, &tile_name(&harness, &ids[0]))
        .next()
        .expect("tile")
        .click_secondary();
    click_menu_entry(&mut harness, "the context menu", "Delete forever…");
    harness.step();
    assert!(confirm_shown(&mut harness, "Delete forever?"));
    assert_eq!(
        harness.state().library_len(),
        1,
        "nothing before the answer"
    );
    harness
        .get_by_role_and_label(Role::Button, "Delete forever")
        .click();
    harness.step();
    settle(&mut harness, "the deletion");
    assert_eq!(harness.state().library_len(), 0);
}

/// Esc closes a tile's context menu and leaves the selection under it alone; a second Esc
/// then clears the selection.
#[test]
fn escape_closes_a_context_menu_before_it_clears_the_selection() {
    let (_dir, mut harness) = library_with(2);
    let ids = harness.state().library_item_ids();
    click_tile(&mut harness, &ids[0], egui::Modifiers::NONE);
    assert_eq!(harness.state().library_selection(), vec![ids[0].clone()]);
    harness
        .query_all_by_role_and_label(Role::Button, &tile_name(&harness, &ids[0]))
        .next()
        .expect("tile")
        .click_secondary();
    let menu_open = |h: &Harness<'static, StudioApp>| {
        h.query_all_by_role_and_label(Role::Button, "Move to trash")
            .count()
            == 2
    };
    step_until(&mut harness, "the context menu", |h| menu_open(h));

    harness.key_press(egui::Key::Escape);
    step_until(&mut harness, "the menu to close", |h| !menu_open(h));
    assert_eq!(
        harness.state().library_selection(),
        vec![ids[0].clone()],
        "the selection stays"
    );

    harness.key_press(egui::Key::Escape);
    step_until(&mut harness, "the selection to clear", |h| {
        h.state().library_selection().is_empty()
    });
}

#[test]
fn the_new_folder_field_has_keyboard_focus_when_opened() {
    let (_dir, mut harness) = library_with(1);
    harness
        .get_by_role_and_label(Role::Button, "New folder")
        .click();
    harness.step();
    harness.step();
    assert!(harness.get_by_label("Folder name").is_focused());
}

#[test]
fn double_click_or_enter_opens_the_in_app_viewer() {
    let (_dir, mut harness) = library_with(3);
    let ids = harness.state().library_item_ids();
    let tile = tile_name(&harness, &ids[1]);
    let node = harness
        .query_all_by_role_and_label(Role::Button, &tile)
        .next()
        .expect("tile");
    // A double click in one frame: kittest's `click()` gives each event its own frame a
    // quarter second apart, longer than egui's double-click delay.
    let center = node.rect().center();
    let input = harness.input_mut();
    input.events.push(egui::Event::PointerMoved(center));
    for pressed in [true, false, true, false] {
        input.events.push(egui::Event::PointerButton {
            pos: center,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
    }
    harness.step();
    step_until(&mut harness, "the viewer", |h| {
        h.query_by_label("Close viewer").is_some()
    });
    harness
        .get_by_role_and_label(Role::Button, "Close viewer")
        .click();
    harness.step();
    click_tile(&mut harness, &ids[2], egui::Modifiers::NONE);
    harness.key_press(egui::Key::Enter);
    step_until(&mut harness, "the viewer from Enter", |h| {
        h.query_by_label("Close viewer").is_some()
    });
}

#[test]
fn the_library_place_sort_and_thumbnail_size_survive_a_restart() {
    let dir = tempfile::tempdir().expect("tempdir");
    {
        let mut harness = studio(&dir, View::Create);
        open_library(&mut harness);
        harness.get_by_label("Sort").click();
        step_until(&mut harness, "the sort menu", |h| {
            h.query_by_label("Name A–Z").is_some()
        });
        harness.get_by_label("Name A–Z").click();
        harness.step();
        // The sort menu closes on a following frame; a value sent while it still covers
        // the toolbar can be dropped, so send it until the slider has taken it.
        for _ in 0..20 {
            harness
                .get_by_label("Thumbnail size")
                .set_value_accesskit(240.0);
            harness.step();
            harness.step();
            if harness.state().library().thumb_px == 240.0 {
                break;
            }
        }
        click_sidebar(&mut harness, "Favourites");
        settle(&mut harness, "favourites");
        harness.step();
        let library = harness.state().library();
        assert_eq!(library.place, Place::Section(Section::Favourites));
        assert_eq!(library.sort, framewright::api::media::MediaSort::NameAsc);
        assert_eq!(library.thumb_px, 240.0);
    }

    let mut harness = studio(&dir, View::Create);
    let library = harness.state().library();
    assert_eq!(library.place, Place::Section(Section::Favourites));
    assert_eq!(library.sort, framewright::api::media::MediaSort::NameAsc);
    assert_eq!(library.thumb_px, 240.0);
    open_library(&mut harness);
    let query = harness.state().library().items.query().clone();
    assert_eq!(query.sort, framewright::api::media::MediaSort::NameAsc);
    assert_eq!(
        query.category,
        framewright::api::media::MediaCategory::Favorites
    );
}

#[test]
fn a_picture_too_large_to_decode_uploads_and_its_details_say_why_it_has_no_preview() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    open_library(&mut harness);
    hide_jobs_tray(&mut harness);
    let before = harness.state().library_item_ids();
    let bomb = dir.path().join("zeros.png");
    std::fs::write(&bomb, service_support::png_of_zeros(16_384)).expect("write the bomb");
    harness
        .input_mut()
        .dropped_files
        .push(Arc::new(DroppedPath(bomb)));
    harness.step();
    step_until(&mut harness, "the upload to appear in the grid", |h| {
        h.state().library_settled() && h.state().library_item_ids().len() == before.len() + 1
    });
    let item = harness
        .state()
        .library_items()
        .into_iter()
        .find(|i| !before.contains(&i.id))
        .expect("the new item");
    assert_eq!((item.width, item.height), (Some(16_384), Some(16_384)));
    click_tile(&mut harness, &item.id, egui::Modifiers::NONE);
    let reason = harness
        .query_by_label_contains("No preview: the picture is 16384 × 16384 px")
        .is_some();
    assert!(
        reason,
        "the detail pane says why the item has no preview ({:?})",
        item.preview_unavailable()
    );
    // Its tile shows the service's placeholder thumbnail, not the broken glyph.
    step_until(&mut harness, "the placeholder thumbnail", |h| {
        h.state().library_thumbnail_ready(&item.id)
    });
    assert_eq!(
        harness.state().library_thumbnail_error(&item.id),
        None,
        "the placeholder thumbnail decodes"
    );
}

/// Every "Upload…" control (the toolbar's, the empty state's) opens the same dialog.
fn click_upload(harness: &mut Harness<'static, StudioApp>) {
    harness
        .query_all_by_role_and_label(Role::Button, "Upload…")
        .next()
        .expect("an Upload… button")
        .click();
    harness.step();
}

#[test]
fn upload_opens_the_path_prompt_without_a_file_dialog_and_the_typed_photo_appears() {
    // SAFETY: set before the studio starts any thread that reads the environment; the
    // other tests in this binary open no file dialog, and want none.
    unsafe { std::env::set_var(framewright::ui::dialogs::NO_FILE_DIALOGS_ENV, "1") };
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    open_library(&mut harness);
    hide_jobs_tray(&mut harness);

    // The empty Uploaded section says how to add files, and no filter is blamed.
    click_sidebar(&mut harness, "Uploaded");
    settle(&mut harness, "the uploaded section");
    assert!(harness.query_by_label("Nothing uploaded yet").is_some());
    assert!(harness.query_by_label("or drop files here").is_some());
    assert!(
        harness
            .query_by_label_contains("Nothing matches the current filters")
            .is_none()
    );
    assert_eq!(
        harness
            .query_all_by_role_and_label(Role::Button, "Upload…")
            .count(),
        2,
        "the toolbar's button and the empty state's"
    );
    harness.check_accessibility();

    // Ctrl+O asks for files too (the prompt, as no dialog can open here); Cancel closes it.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::O);
    step_until(&mut harness, "the path prompt from Ctrl+O", |h| {
        h.state().path_prompt_open()
    });
    harness.step();
    harness
        .get_by_role_and_label(Role::Button, "Cancel")
        .click();
    step_until(&mut harness, "the prompt to close", |h| {
        !h.state().path_prompt_open()
    });

    click_upload(&mut harness);
    step_until(&mut harness, "the path prompt", |h| {
        h.state().path_prompt_open()
    });
    // Why no dialog opened is said once, in the prompt (no toast repeats it).
    harness.step();
    assert!(
        harness
            .query_by_label_contains("drag and drop the files")
            .is_some()
    );
    assert!(harness.state().toast_texts().is_empty());
    let photo = support::fixture_photo("rocket.jpg");
    harness.get_by_label("Path").click();
    harness.step();
    harness
        .get_by_label("Path")
        .type_text(&photo.display().to_string());
    harness.step();
    harness.get_by_label("Use path").click();
    step_until(&mut harness, "the typed photo in the Uploaded grid", |h| {
        !h.state().path_prompt_open() && h.state().library_settled() && h.state().library_len() == 1
    });
    let item = harness.state().library_items().remove(0);
    assert!(
        item.display_name().contains("rocket"),
        "the uploaded item is the typed file, got {:?}",
        item.display_name()
    );
    harness.check_accessibility();

    // A right-click on the grid's empty space (below the last row) offers Upload… too.
    let viewport = harness.state().library().grid_viewport;
    let spot = viewport.center_bottom() - egui::vec2(0.0, 24.0);
    harness.hover_at(spot);
    for pressed in [true, false] {
        harness.event(egui::Event::PointerButton {
            pos: spot,
            button: egui::PointerButton::Secondary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
    }
    click_menu_entry(&mut harness, "the empty-space menu", "Upload…");
    step_until(&mut harness, "the path prompt from the menu", |h| {
        h.state().path_prompt_open()
    });
}

#[test]
fn ctrl_v_of_a_file_uri_uploads_the_file_and_plain_text_uploads_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    open_library(&mut harness);
    let before = harness.state().library_item_ids();

    // Text that names no file: nothing is sent, and a toast says why.
    harness.event(egui::Event::Paste("a quiet harbour at dawn".into()));
    harness.step();
    assert!(harness.state().library_transfers().is_empty());
    assert!(
        harness
            .state()
            .toast_texts()
            .iter()
            .any(|t| t.starts_with("Nothing to upload: the clipboard holds text")),
        "{:?}",
        harness.state().toast_texts()
    );

    // A file manager's copy: a verb line, then the file's URI.
    let photo = support::fixture_photo("chelsea.png");
    harness.event(egui::Event::Paste(format!(
        "copy\nfile://{}",
        photo.display().to_string().replace(' ', "%20")
    )));
    harness.step();
    assert_eq!(harness.state().library_transfers().len(), 1, "one upload");
    step_until(&mut harness, "the pasted file in the grid", |h| {
        h.state().library_settled() && h.state().library_len() == before.len() + 1
    });
    let item = harness
        .state()
        .library_items()
        .into_iter()
        .find(|i| !before.contains(&i.id))
        .expect("the new item");
    assert!(item.display_name().contains("chelsea"), "{item:?}");
}

#[test]
fn a_pasted_picture_uploads_as_a_png_named_by_the_time() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    open_library(&mut harness);
    let before = harness.state().library_item_ids();
    let pixels = egui::ColorImage::new([32, 24], vec![egui::Color32::from_rgb(200, 90, 40); 768]);
    harness.event(egui::Event::PasteImage(Arc::new(pixels)));
    harness.step();
    step_until(&mut harness, "the pasted picture in the grid", |h| {
        h.state().library_settled() && h.state().library_len() == before.len() + 1
    });
    let item = harness
        .state()
        .library_items()
        .into_iter()
        .find(|i| !before.contains(&i.id))
        .expect("the new item");
    assert!(
        item.display_name().starts_with("Pasted image 20"),
        "named by the time: {:?}",
        item.display_name()
    );
    assert_eq!((item.width, item.height), (Some(32), Some(24)));
}

#[test]
fn filters_that_hide_everything_say_so_and_clear_filters_shows_the_items_again() {
    let (_dir, mut harness) = library_with(3);
    let all = harness.state().library_len();
    assert!(all >= 3);
    harness.get_by_role_and_label(Role::Button, "Audio").click();
    harness.step();
    settle(&mut harness, "the audio filter");
    assert_eq!(harness.state().library_len(), 0);
    assert!(
        harness
            .query_by_label("Nothing matches the current filters")
            .is_some()
    );
    harness.check_accessibility();
    harness
        .get_by_role_and_label(Role::Button, "Clear filters")
        .click();
    harness.step();
    settle(&mut harness, "everything again");
    assert_eq!(harness.state().library_len(), all);
}

#[test]
fn the_trash_empty_state_offers_no_upload() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    open_library(&mut harness);
    click_sidebar(&mut harness, "Trash");
    settle(&mut harness, "the empty trash");
    assert!(harness.query_by_label("Trash is empty").is_some());
    assert!(harness.query_by_label("Upload…").is_none());
}

#[test]
fn a_narrow_window_with_the_tray_open_collapses_the_panes_before_the_grid_loses_columns() {
    use framewright::ui::library::layout::{Drawer, Pane};
    let dir = tempfile::tempdir().expect("tempdir");
    {
        let mut harness = studio(&dir, View::Create);
        seed(&harness, 12);
        open_library(&mut harness);
        harness.set_size(egui::vec2(1024.0, 700.0));
        harness.step();
        harness.step();
        if harness.query_by_label("Hide job tray").is_none() {
            harness.get_by_label("Show job tray").click();
        }
        for _ in 0..4 {
            harness.step();
        }
        assert!(
            harness.query_by_label("Hide job tray").is_some(),
            "the tray is open"
        );
        let library = harness.state().library();
        assert!(
            library.columns >= 3,
            "the grid keeps three columns: {} at {:?}",
            library.columns,
            library.panes
        );
        assert_eq!(library.panes.detail, Pane::Strip);
        assert_eq!(library.panes.sidebar, Pane::Strip);
        assert!(
            library.detail_open && library.sidebar_open,
            "collapsed for room, not by choice"
        );
        // The footer's hints are shortened by whole words, never cut.
        let hints = framewright::ui::library::footer::hint_variants(library);
        let shown = hints
            .iter()
            .find(|hint| harness.query_by_label(hint).is_some());
        assert!(
            shown.is_some() || harness.query_by_label("Shortcuts").is_some(),
            "one of {hints:?} or Shortcuts in the footer"
        );
        // The sections stay one click away on the strip.
        click_sidebar(&mut harness, "Favourites");
        assert_eq!(
            harness.state().library_place(),
            Place::Section(Section::Favourites)
        );
        click_sidebar(&mut harness, "All media");
        settle(&mut harness, "all media");

        // The collapsed details open as a drawer over the grid, and close again.
        let columns = harness.state().library().columns;
        harness
            .get_by_role_and_label(Role::Button, "Show details")
            .click();
        for _ in 0..4 {
            harness.step();
        }
        assert_eq!(harness.state().library().drawer, Some(Drawer::Detail));
        assert!(harness.query_by_label("Nothing selected").is_some());
        assert_eq!(harness.state().library().columns, columns, "over the grid");
        harness.check_accessibility();
        harness
            .get_by_role_and_label(Role::Button, "Hide details")
            .click();
        harness.step();
        assert_eq!(harness.state().library().drawer, None);
        // Esc closes a drawer before it touches the selection.
        let first = harness.state().library_item_ids()[0].clone();
        click_tile(&mut harness, &first, egui::Modifiers::NONE);
        harness
            .get_by_role_and_label(Role::Button, "Show details")
            .click();
        harness.step();
        harness.key_press(egui::Key::Escape);
        harness.step();
        assert_eq!(harness.state().library().drawer, None);
        assert_eq!(harness.state().library_selection(), vec![first]);

        // Wide again, the panes dock by themselves; hiding the sidebar is a choice.
        harness.get_by_label("Hide job tray").click();
        harness.step();
        harness.set_size(egui::vec2(1440.0, 900.0));
        for _ in 0..3 {
            harness.step();
        }
        let library = harness.state().library();
        assert_eq!(
            (library.panes.sidebar, library.panes.detail),
            (Pane::Docked, Pane::Docked),
            "at {} pt",
            library.library_width_pt
        );
        harness
            .get_by_role_and_label(Role::Button, "Hide sidebar")
            .click();
        for _ in 0..3 {
            harness.step();
        }
        assert_eq!(harness.state().library().panes.sidebar, Pane::Strip);
    }

    // Remembered across a restart; "Show sidebar" brings it back where it fits.
    let mut harness = studio(&dir, View::Create);
    open_library(&mut harness);
    hide_jobs_tray(&mut harness);
    assert!(!harness.state().library().sidebar_open);
    assert_eq!(harness.state().library().panes.sidebar, Pane::Strip);
    harness
        .get_by_role_and_label(Role::Button, "Show sidebar")
        .click();
    harness.step();
    harness.step();
    assert!(harness.state().library().sidebar_open);
    assert_eq!(harness.state().library().panes.sidebar, Pane::Docked);
}

/// Waits for an open menu's entry `label` (a second button of that name beside the one in
/// the pane or toolbar) and clicks it.
fn click_menu_entry(harness: &mut Harness<'static, StudioApp>, what: &str, label: &str) {
    step_until(harness, what, |h| {
        h.query_all_by_role_and_label(Role::Button, label).count() == 2
    });
    harness
        .get_all_by_role_and_label(Role::Button, label)
        .last()
        .expect("the menu entry")
        .click();
}
