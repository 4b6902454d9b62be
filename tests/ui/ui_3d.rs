//! 3D models end to end against the sandbox: the Create form's 3D type (price per model),
//! a model made from text, its tile, the viewer's turntable (drag orbits, the wheel zooms,
//! Reset view goes back to the first picture), and Save GLB writing a file that loads.
//! One studio (one sandbox) for the whole flow.

use crate::support;

use egui::accesskit::Role;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use framewright::api::GenerationKind;
use framewright::engine::JobPhase;
use framewright::ui::View;
use support::*;

/// Drags with the primary button from `from` to `to`, a frame per step.
fn drag(harness: &mut Studio, from: egui::Pos2, to: egui::Pos2) {
    harness.hover_at(from);
    harness.step();
    harness.drag_at(from);
    harness.step();
    harness.hover_at(egui::pos2((from.x + to.x) / 2.0, (from.y + to.y) / 2.0));
    harness.step();
    harness.hover_at(to);
    harness.step();
    harness.drop_at(to);
    steps(harness, 2);
}

fn wheel(harness: &mut Studio, at: egui::Pos2, delta_y: f32) {
    harness
        .input_mut()
        .events
        .push(egui::Event::PointerMoved(at));
    harness.input_mut().events.push(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: egui::vec2(0.0, delta_y),
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Wheel,
        modifiers: egui::Modifiers::NONE,
    });
    // Smooth scrolling spreads the wheel over a few frames.
    steps(harness, 12);
}

fn frame(harness: &Studio) -> Vec<u8> {
    harness
        .state()
        .viewer()
        .model_3d()
        .expect("the turntable is open")
        .frame_rgba()
        .to_vec()
}

/// A real share of the picture changed between two frames of one size (the model moved
/// on it, not a stray pixel).
fn assert_moved(after: &[u8], before: &[u8], what: &str) {
    assert_eq!(after.len(), before.len(), "frames of one size");
    let changed = after
        .chunks_exact(4)
        .zip(before.chunks_exact(4))
        .filter(|(p, q)| p != q)
        .count();
    let share = changed as f64 / (after.len() / 4).max(1) as f64;
    assert!(share > MIN_CHANGED_SHARE, "{what} ({share:.4} changed)");
}

/// A frame shows a lit model: a good share of it is not the background (its corner), in
/// more than a few shades (faces at different angles to the light).
fn assert_model_drawn(frame: &[u8], what: &str) {
    let background = &frame[..4];
    let model: Vec<&[u8]> = frame.chunks_exact(4).filter(|p| *p != background).collect();
    let share = model.len() as f64 / (frame.len() / 4) as f64;
    assert!(
        share > 0.02,
        "{what}: only {share:.4} of the picture is the model"
    );
    let shades: std::collections::HashSet<&[u8]> = model.into_iter().collect();
    assert!(shades.len() > 16, "{what}: {} shades", shades.len());
}

/// Share of the picture a turn or a zoom changes at the least.
const MIN_CHANGED_SHARE: f64 = 0.005;

#[test]
fn a_model_from_text_opens_on_the_turntable_which_orbits_zooms_resets_and_saves() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);

    // The catalog has 3D models, so the type picker offers them; priced once per model.
    click_button(&mut harness, "3D model");
    assert_eq!(harness.state().compose_form().kind, GenerationKind::ThreeD);
    assert_eq!(generate_label(&harness), "Generate 3D model · 30 credits");

    // Without a description the form refuses at the field, sending nothing.
    press_generate(&mut harness);
    steps(&mut harness, 2);
    assert!(harness.state().jobs().is_empty());
    assert!(
        harness
            .query_all_by_label("Describe the object to make.")
            .next()
            .is_some()
    );

    support::replace_field_text(
        &mut harness,
        "3D prompt",
        "a brass desk lamp with a round shade",
    );
    press_generate(&mut harness);
    step_until(&mut harness, "the 3D job to finish", |h| {
        h.state()
            .jobs()
            .first()
            .is_some_and(|j| j.phase.is_finished())
    });
    let job = harness.state().jobs()[0].clone();
    assert_eq!(job.phase, JobPhase::Completed, "{job:?}");
    let result = job.result.as_ref().expect("result");
    assert!(result.urls[0].ends_with(".glb"), "{:?}", result.urls);
    assert!(result.urls.iter().any(|u| u.ends_with(".obj")));
    steps(&mut harness, 3);

    // One tile for the model (not one per file), opening the turntable.
    let tiles: Vec<_> = harness
        .query_all_by_role(Role::Button)
        .filter(|n| {
            n.accesskit_node()
                .label()
                .is_some_and(|l| l.starts_with("Result 1 of 1"))
        })
        .collect();
    assert_eq!(tiles.len(), 1);
    tiles[0].click_accesskit();
    step_until(&mut harness, "the model to load and draw", |h| {
        h.state()
            .viewer()
            .model_3d()
            .is_some_and(|v| v.frames_rendered() > 0 || v.error().is_some())
    });
    steps(&mut harness, 2);
    let view = harness.state().viewer().model_3d().expect("turntable");
    assert_eq!(view.error(), None);
    let triangles = view.mesh().expect("mesh").triangle_count();
    assert!(triangles > 1_000, "{triangles}");
    let first = frame(&harness);
    assert_model_drawn(&first, "the first view");
    // Idle: no new frames.
    let drawn = harness
        .state()
        .viewer()
        .model_3d()
        .unwrap()
        .frames_rendered();
    steps(&mut harness, 5);
    assert_eq!(
        harness
            .state()
            .viewer()
            .model_3d()
            .unwrap()
            .frames_rendered(),
        drawn
    );

    // Dragging orbits: the picture changes.
    let area = harness.get_by_label("3D model view").rect();
    drag(
        &mut harness,
        area.center(),
        area.center() + egui::vec2(120.0, 30.0),
    );
    let turned = frame(&harness);
    assert_model_drawn(&turned, "after a drag");
    assert_moved(&turned, &first, "a drag turns the model");
    let yaw_after_drag = harness
        .state()
        .viewer()
        .model_3d()
        .unwrap()
        .camera()
        .unwrap();

    // The wheel zooms: the camera moves closer and the picture changes again.
    wheel(&mut harness, area.center(), 200.0);
    let zoomed = harness
        .state()
        .viewer()
        .model_3d()
        .unwrap()
        .camera()
        .unwrap();
    assert!(
        zoomed.distance < yaw_after_drag.distance,
        "{} !< {}",
        zoomed.distance,
        yaw_after_drag.distance
    );
    let zoomed_frame = frame(&harness);
    assert_model_drawn(&zoomed_frame, "after the wheel");
    assert_moved(&zoomed_frame, &turned, "the wheel zooms");

    // Reset view restores the first picture exactly.
    click_button(&mut harness, "Reset view");
    steps(&mut harness, 2);
    assert_eq!(
        frame(&harness),
        first,
        "Reset view goes back to the first view"
    );

    // The arrow keys orbit too (and do not step to another result).
    harness.key_press(egui::Key::ArrowRight);
    steps(&mut harness, 2);
    assert_moved(&frame(&harness), &first, "an arrow key orbits");
    harness.key_press(egui::Key::R);
    steps(&mut harness, 2);
    assert_eq!(frame(&harness), first);

    // Save GLB: the save path (here the typed-path prompt: no file dialog in tests)
    // writes a file that loads as a model.
    let target = dir.path().join("lamp.glb");
    click_button(&mut harness, "Save GLB");
    step_until(&mut harness, "the save prompt", |h| {
        h.query_by_label("Path").is_some()
    });
    replace_field_text(&mut harness, "Path", target.to_str().expect("utf-8 path"));
    click_button(&mut harness, "Save");
    step_until(&mut harness, "the GLB to be written", |_| {
        std::fs::metadata(&target).is_ok_and(|m| m.len() > 0)
    });
    // Let the download finish writing.
    let mut bytes = Vec::new();
    for _ in 0..50 {
        harness.step();
        bytes = std::fs::read(&target).expect("saved file");
        if framewright::media::mesh::load_glb(&bytes).is_ok() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(40));
    }
    let saved = framewright::media::mesh::load_glb(&bytes).expect("the saved GLB loads");
    assert_eq!(saved.triangle_count(), triangles);
    gltf::Gltf::from_slice(&bytes).expect("valid glTF");
}

#[test]
fn an_image_chosen_for_a_model_from_an_image_fills_its_view() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);
    click_button(&mut harness, "3D model");
    click_button(&mut harness, "From an image");
    harness.check_accessibility();

    let photo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/photos/coffee_160.png");
    choose_file_by_path(&mut harness, "Choose images for the 3D model", &photo);
    step_until(
        &mut harness,
        "the picked image uploaded into the view",
        |h| {
            let form = &h.state().create_state().three_d;
            !h.state().path_prompt_open()
                && form.uploading.is_empty()
                && form
                    .images
                    .first()
                    .is_some_and(|url| url.starts_with("http"))
        },
    );
    assert_eq!(
        harness.state().compose_form().kind,
        GenerationKind::ThreeD,
        "still the 3D form"
    );
}
