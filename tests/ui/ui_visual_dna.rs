//! The Visual DNA view driven through egui_kittest against the studio with its embedded
//! sandbox: make a Visual DNA from two dropped photos (the form says what is missing
//! first), watch it build and become ready, rename it, delete it after confirming; make a
//! moodboard from a dropped photo with a style guide.

use crate::support;
use support::{drop_file, fixture_photo, replace_field_text, step_until, steps, studio};

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable as _;
use framewright::ui::{StudioApp, View};

type Studio = egui_kittest::Harness<'static, StudioApp>;

/// Whether some text on screen (a label's text or a widget's name) is exactly `text`.
fn shows(harness: &Studio, text: &str) -> bool {
    harness
        .query_all_by(|n| n.label().as_deref() == Some(text) || n.value().as_deref() == Some(text))
        .next()
        .is_some()
}

/// Whether some text on screen starts with `prefix`.
fn shows_start(harness: &Studio, prefix: &str) -> bool {
    harness
        .query_all_by(|n| {
            n.label().is_some_and(|l| l.starts_with(prefix))
                || n.value().is_some_and(|v| v.starts_with(prefix))
        })
        .next()
        .is_some()
}

fn click(harness: &mut Studio, label: &str) {
    harness.get_by_role_and_label(Role::Button, label).click();
    steps(harness, 2);
}

fn entry_named(harness: &Studio, name: &str) -> Option<framewright::api::visual_dna::VisualDna> {
    harness
        .state()
        .visual_dna_state()
        .entries
        .iter()
        .find(|e| e.name == name)
        .cloned()
}

#[test]
fn a_visual_dna_from_two_dropped_photos_is_made_renamed_and_deleted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::VisualDna);
    step_until(&mut harness, "the Visual DNA list", |h| {
        let state = h.state().visual_dna_state();
        state.entries_loaded && state.boards_loaded
    });
    steps(&mut harness, 3);
    harness.check_accessibility();
    let built_ins = harness.state().visual_dna_state().entries.len();
    assert!(built_ins > 0, "the sandbox's built-ins are listed");

    click(&mut harness, "New Visual DNA");
    steps(&mut harness, 2);
    assert!(harness.state().visual_dna_state().form.is_some());
    // Nothing filled in: each field says what it needs, and nothing is sent.
    click(&mut harness, "Make Visual DNA");
    assert!(shows(&harness, "Give it a name."));
    assert!(shows_start(&harness, "Add at least one image"));
    assert!(
        !harness
            .state()
            .visual_dna_state()
            .form
            .as_ref()
            .unwrap()
            .sending
    );

    drop_file(&mut harness, fixture_photo("chelsea.png"));
    steps(&mut harness, 2);
    drop_file(&mut harness, fixture_photo("coffee.png"));
    steps(&mut harness, 2);
    let form = harness
        .state()
        .visual_dna_state()
        .form
        .clone()
        .expect("form");
    assert_eq!(form.images.len(), 2, "{form:?}");
    replace_field_text(&mut harness, "Visual DNA name", "Chelsea");
    harness
        .get_by_role_and_label(Role::RadioButton, "Product")
        .click();
    steps(&mut harness, 2);
    harness.check_accessibility();
    click(&mut harness, "Make Visual DNA");

    step_until(&mut harness, "the new Visual DNA, building", |h| {
        h.state().visual_dna_state().form.is_none() && entry_named(h, "Chelsea").is_some()
    });
    let made = entry_named(&harness, "Chelsea").expect("made");
    assert_eq!(made.dna_type, "product");
    assert_eq!(
        harness.state().visual_dna_state().selected.as_deref(),
        Some(made.id.as_str()),
        "the new one is shown in the detail pane"
    );
    step_until(&mut harness, "it to become ready", |h| {
        entry_named(h, "Chelsea").is_some_and(|e| !e.is_building())
    });
    step_until(&mut harness, "its ready toast", |h| {
        h.state()
            .toast_texts()
            .iter()
            .any(|t| t.contains("“Chelsea” is ready"))
    });
    step_until(&mut harness, "its description in the detail pane", |h| {
        h.state()
            .visual_dna_state()
            .selected_entry()
            .and_then(|e| e.description.clone())
            .is_some_and(|d| !d.is_empty())
    });
    harness.check_accessibility();

    // "Use in Create" switches to Create with it picked; the rail brings the view back.
    click(&mut harness, "Use in Create");
    assert_eq!(harness.state().view(), View::Create);
    assert!(
        harness
            .state()
            .toast_texts()
            .iter()
            .any(|t| t.contains("“Chelsea” is picked"))
    );
    click(&mut harness, "Visual DNA");
    assert_eq!(harness.state().view(), View::VisualDna);
    steps(&mut harness, 2);

    // Rename from the detail pane.
    click(&mut harness, "Edit…");
    steps(&mut harness, 2);
    replace_field_text(&mut harness, "Visual DNA name", "Chelsea the cat");
    click(&mut harness, "Save changes");
    step_until(&mut harness, "the new name", |h| {
        entry_named(h, "Chelsea the cat").is_some() && h.state().visual_dna_state().form.is_none()
    });

    // Delete asks first; Cancel keeps it, yes removes it.
    click(&mut harness, "Delete…");
    steps(&mut harness, 2);
    assert!(shows(&harness, "Delete this Visual DNA?"));
    click(&mut harness, "Cancel");
    steps(&mut harness, 2);
    assert!(entry_named(&harness, "Chelsea the cat").is_some());
    click(&mut harness, "Delete…");
    steps(&mut harness, 2);
    click(&mut harness, "Delete Visual DNA");
    step_until(&mut harness, "it to be gone", |h| {
        entry_named(h, "Chelsea the cat").is_none()
    });
    assert_eq!(harness.state().visual_dna_state().entries.len(), built_ins);
}

#[test]
fn a_moodboard_from_a_dropped_photo_with_a_style_guide() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::VisualDna);
    step_until(&mut harness, "the moodboard list", |h| {
        h.state().visual_dna_state().boards_loaded
    });
    harness
        .get_by_role_and_label(Role::Tab, "Moodboards tab")
        .click();
    steps(&mut harness, 2);
    click(&mut harness, "New moodboard");
    steps(&mut harness, 2);
    drop_file(&mut harness, fixture_photo("rocket.jpg"));
    steps(&mut harness, 2);
    // The name field has the keyboard focus when the form opens.
    harness
        .get_by_label("Moodboard name")
        .type_text("Launch day");
    steps(&mut harness, 2);
    replace_field_text(&mut harness, "Style guide", "hard daylight, NASA blue");
    assert!(shows(&harness, "24 / 500"), "the style guide's count");
    harness.check_accessibility();
    click(&mut harness, "Make moodboard");
    step_until(&mut harness, "the save's answer", |h| {
        let state = h.state().visual_dna_state();
        state
            .board_form
            .as_ref()
            .is_none_or(|f| f.error.is_some() || !f.sending)
    });
    if let Some(form) = &harness.state().visual_dna_state().board_form {
        panic!("the moodboard was not saved: {:?}", form.error);
    }
    step_until(&mut harness, "the moodboard", |h| {
        h.state()
            .visual_dna_state()
            .boards
            .iter()
            .any(|b| b.name == "Launch day")
    });
    let state = harness.state().visual_dna_state();
    let board = state
        .boards
        .iter()
        .find(|b| b.name == "Launch day")
        .expect("board");
    assert_eq!(board.image_urls().count(), 1);
    assert!(board.image_urls().all(|u| u.starts_with("http")));
    assert_eq!(state.board_selected.as_deref(), Some(board.id.as_str()));
    steps(&mut harness, 3);
    // The detail pane shows its master prompt.
    assert!(shows(&harness, "MASTER PROMPT"));
    assert!(shows_start(&harness, "In the look of the moodboard"));

    // "Show in Library" opens the Library filtered by it.
    click(&mut harness, "Show in Library");
    assert_eq!(harness.state().view(), View::Library);
}
