//! The Palettes panel driven through egui_kittest against the studio with its embedded
//! sandbox: build a palette by hand, save and activate it, and see generations graded by
//! it (and not when skipped); drop a photo and see its colours.

use crate::support;
use support::{DroppedPath, generate, replace_field_text, step_until, studio};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use framewright::palette::{PaletteColor, Role as ColorRole, grading_directive};
use framewright::ui::palettes::SwatchOrigin;
use framewright::ui::{StudioApp, View};
use std::sync::Arc;

fn settle(harness: &mut Harness<'static, StudioApp>) {
    for _ in 0..3 {
        harness.step();
    }
}

fn click_button(harness: &mut Harness<'static, StudioApp>, label: &str) {
    harness.get_by_role_and_label(Role::Button, label).click();
    harness.step();
    harness.step();
}

fn prompt_used(job: &framewright::engine::JobRecord) -> String {
    job.result
        .as_ref()
        .and_then(|r| r.prompt_used.clone())
        .unwrap_or_default()
}

#[test]
fn a_hand_built_palette_grades_the_project_until_skipped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Palettes);
    step_until(&mut harness, "the palette list", |h| {
        h.state().palettes_loaded_for_project()
    });
    settle(&mut harness);
    harness.check_accessibility();
    let project_id = harness
        .state()
        .compose_project_id()
        .expect("a current project")
        .to_owned();

    click_button(&mut harness, "+ Add colour");
    click_button(&mut harness, "+ Add colour");
    click_button(&mut harness, "+ Add colour");
    assert_eq!(harness.state().palettes_state().editor.swatches.len(), 3);
    click_button(&mut harness, "Remove swatch 3");
    assert_eq!(harness.state().palettes_state().editor.swatches.len(), 2);
    harness.check_accessibility();

    replace_field_text(&mut harness, "Swatch 1 hex", "#1F3A5F");
    replace_field_text(&mut harness, "Swatch 2 hex", "#e0a458");
    replace_field_text(&mut harness, "Swatch 1 name", "Harbour blue");
    harness.get_by_label("Swatch 2 role").click();
    settle(&mut harness);
    harness
        .get_by_role_and_label(Role::Button, "Secondary")
        .click();
    settle(&mut harness);
    // Reorder and back: the swatch keeps its colour.
    click_button(&mut harness, "Move swatch 2 up");
    assert_eq!(
        harness.state().palettes_state().editor.swatches[0]
            .hex_text
            .to_uppercase(),
        "#E0A458"
    );
    click_button(&mut harness, "Move swatch 1 down");

    // Saving without a name is refused at the field, before any request.
    click_button(&mut harness, "Save palette");
    assert!(
        harness
            .query_by_label_contains("Give the palette a name")
            .is_some(),
        "the name field explains what is missing"
    );
    replace_field_text(&mut harness, "Palette name", "Harbour test");
    {
        let editor = &harness.state().palettes_state().editor;
        assert_eq!(editor.swatches[0].rgb.to_hex(), "#1F3A5F");
        assert_eq!(editor.swatches[0].name, "Harbour blue");
        assert_eq!(editor.swatches[1].role, ColorRole::Secondary);
    }
    click_button(&mut harness, "Save palette");
    step_until(&mut harness, "the saved palette in the list", |h| {
        h.state().palettes_state().editor.palette_id.is_some()
            && h.state().palettes_loaded_for_project()
            && h.state()
                .palettes()
                .iter()
                .any(|p| p.name == "Harbour test")
    });
    settle(&mut harness);

    click_button(&mut harness, "Activate for this project");
    step_until(&mut harness, "the palette to grade the project", |h| {
        h.state().palettes_loaded_for_project()
            && h.state()
                .active_palette()
                .is_some_and(|p| p.name == "Harbour test")
    });
    settle(&mut harness);
    assert!(
        harness
            .query_all_by_label_contains("Active for")
            .next()
            .is_some(),
        "the list marks the active palette"
    );
    harness.check_accessibility();
    harness
        .state()
        .session()
        .local_sandbox()
        .expect("local sandbox")
        .clear_palette_cache();

    let stored = harness.state().active_palette().expect("active palette");
    let second_name = stored.colors[1].name.clone();
    assert!(
        !second_name.is_empty(),
        "the service named the unnamed colour"
    );
    let directive = grading_directive(
        &stored
            .colors
            .iter()
            .map(|c| PaletteColor {
                hex: c.hex.clone(),
                name: c.name.clone(),
                role: ColorRole::from_str_opt(&c.role).expect("role"),
            })
            .collect::<Vec<_>>(),
    );

    click_button(&mut harness, "Create");
    assert_eq!(harness.state().view(), View::Create);
    assert_eq!(
        harness.state().compose_project_id(),
        Some(project_id.as_str())
    );
    assert!(
        harness
            .query_by_label_contains("Active palette Harbour test")
            .is_some(),
        "Create shows the project's palette beside the picker"
    );
    let graded = generate(&mut harness, "A lighthouse keeper mending nets");
    assert_eq!(graded.spec.request.skip_color_palette, None);
    assert!(
        prompt_used(&graded).contains(&directive),
        "prompt_used {:?} carries the directive {directive:?}",
        prompt_used(&graded)
    );

    // The toggle sits low in the form: bring it into view first, as a person scrolls.
    harness.get_by_label("Skip palette").scroll_to_me();
    settle(&mut harness);
    harness.get_by_label("Skip palette").click();
    settle(&mut harness);
    let skipped = generate(&mut harness, "A lighthouse keeper asleep");
    assert_eq!(skipped.spec.request.skip_color_palette, Some(true));
    assert!(
        !prompt_used(&skipped).contains(&directive),
        "skipped: {:?}",
        prompt_used(&skipped)
    );
}

#[test]
fn a_dropped_photo_shows_local_swatches_then_the_service_analysis() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Palettes);
    step_until(&mut harness, "the palette list", |h| {
        h.state().palettes_loaded_for_project()
    });
    settle(&mut harness);
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
        View::Palettes,
        "a drop here stays here"
    );
    assert_eq!(harness.state().palettes_state().editor.images.len(), 1);

    step_until(&mut harness, "the service's analysis", |h| {
        h.state().palettes_state().editor.origin == SwatchOrigin::Service
    });
    settle(&mut harness);
    let state = harness.state().palettes_state();
    let local = state
        .local_preview
        .as_ref()
        .expect("the local preview arrived first");
    assert!(!local.colors.is_empty() && local.colors.len() <= 6);
    let editor = &state.editor;
    assert!(!editor.swatches.is_empty() && editor.swatches.len() <= 6);
    assert_eq!(editor.swatches[0].role, ColorRole::Dominant);
    assert!(
        !editor.name.trim().is_empty(),
        "the analysis names the palette"
    );
    assert!(
        editor.images[0]
            .url
            .as_deref()
            .is_some_and(|u| u.starts_with("http")),
        "the photo was uploaded to the library for the service to read"
    );
    assert!(
        harness
            .query_by_label_contains("analysed by the service")
            .is_some()
    );
    assert!(harness.query_by_label("Swatch 1, ").is_none());
    assert!(
        harness.query_by_label_contains("Swatch 1, ").is_some(),
        "swatches carry accessible names"
    );
    harness.check_accessibility();
}
