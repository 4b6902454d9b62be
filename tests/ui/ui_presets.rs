//! Cinematic presets in Create and in the Presets gallery, driven through egui_kittest
//! against the studio with its embedded sandbox.

use crate::support;
use support::{generate, step_until, studio};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use framewright::api::palettes::dimension_label;
use framewright::ui::{StudioApp, View};
use std::collections::BTreeMap;

fn wait_for_data(harness: &mut Harness<'static, StudioApp>) {
    step_until(harness, "catalog, projects and presets", |h| {
        let app = h.state();
        app.catalog_loaded() && app.projects_loaded() && app.presets().is_some()
    });
    for _ in 0..3 {
        harness.step();
    }
}

#[test]
fn a_chosen_lighting_preset_is_sent_and_all_auto_sends_none() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    wait_for_data(&mut harness);
    let presets = harness.state().presets().expect("presets").clone();
    assert!(presets.contains_key("lighting"));

    harness
        .get_by_role_and_label(Role::Button, "Cinematic presets")
        .click_accesskit();
    for _ in 0..3 {
        harness.step();
    }
    for (dimension, list) in &presets {
        let label = dimension_label(dimension);
        assert!(
            harness
                .query_by_role_and_label(Role::Button, &format!("{label}: Auto"))
                .is_some(),
            "an Auto chip for {dimension}"
        );
        for preset in list {
            assert!(
                harness
                    .query_by_role_and_label(Role::Button, &format!("{label}: {}", preset.name))
                    .is_some(),
                "a chip for {dimension}/{}",
                preset.name
            );
        }
    }
    harness.check_accessibility();

    let lighting = presets["lighting"][0].clone();
    harness
        .get_by_role_and_label(Role::Button, &format!("Lighting: {}", lighting.name))
        .click_accesskit();
    harness.step();
    harness.step();
    assert_eq!(
        harness.state().compose_cinematic().get("lighting"),
        Some(&lighting.id)
    );
    let job = generate(&mut harness, "A fisherman's cottage by the sea");
    assert_eq!(
        job.spec.request.cinematic,
        Some(BTreeMap::from([(
            "lighting".to_owned(),
            Some(lighting.id.clone())
        )])),
        "only the dimension that was set is sent"
    );
    let prompt_used = job
        .result
        .as_ref()
        .and_then(|r| r.prompt_used.clone())
        .unwrap_or_default();
    assert!(
        prompt_used
            .to_lowercase()
            .contains(&lighting.name.to_lowercase()),
        "{prompt_used:?} mentions {}",
        lighting.name
    );

    harness
        .get_by_role_and_label(Role::Button, "Lighting: Auto")
        .click_accesskit();
    harness.step();
    harness.step();
    assert!(harness.state().compose_cinematic().is_empty());
    let auto = generate(&mut harness, "A fisherman's cottage at night");
    assert_eq!(
        auto.spec.request.cinematic, None,
        "all Auto omits cinematic"
    );
}

#[test]
fn the_presets_gallery_selects_for_create() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Presets);
    wait_for_data(&mut harness);
    harness.check_accessibility();
    let presets = harness.state().presets().expect("presets").clone();
    let dimension = framewright::ui::presets::ordered_dimensions(&presets)[0].to_owned();
    let preset = presets[&dimension].last().expect("a preset").clone();
    let name = format!("{}: {}", dimension_label(&dimension), preset.name);
    harness
        .get_by_role_and_label(Role::Button, &name)
        .click_accesskit();
    harness.step();
    harness.step();
    assert_eq!(
        harness.state().compose_cinematic().get(&dimension),
        Some(&preset.id)
    );
    harness
        .get_by(|node| {
            node.role() == Role::Button && node.label().is_some_and(|l| l.starts_with("Use 1 in"))
        })
        .click_accesskit();
    harness.step();
    harness.step();
    assert_eq!(harness.state().view(), View::Create);
}
