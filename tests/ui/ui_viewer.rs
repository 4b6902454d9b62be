//! The in-app viewer, driven through egui_kittest against the real studio on a sandbox on
//! loopback: open a finished result from the tray, zoom with the keys and the wheel, pan
//! by dragging, close with Esc, and the action buttons emit what they say.

use crate::support;
use support::{Studio, generate, step_until, studio};

use egui::accesskit::Role;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use framewright::ui::View;

/// Generate one image and open it in the viewer from the tray; waits until the image is
/// laid out (the zoom is known). Returns the result's URL.
fn open_a_result(harness: &mut Studio) -> String {
    step_until(harness, "catalog, projects and credits", |h| {
        let app = h.state();
        app.catalog_loaded() && app.projects_loaded() && app.credits_loaded()
    });
    let job = generate(harness, "A red kite over a chalk ridge");
    let url = job
        .result
        .as_ref()
        .and_then(|r| r.urls.first().cloned())
        .expect("the job has an output");
    step_until(harness, "the result thumbnail", |h| {
        h.query_by_label_contains("Open result 1 of").is_some()
    });
    harness.get_by_label_contains("Open result 1 of").click();
    step_until(harness, "the viewer to show the image", |h| {
        h.state().viewer().zoom_percent().is_some()
    });
    assert_eq!(harness.state().viewer_job(), Some(job.local_id));
    url
}

fn zoom(harness: &Studio) -> f32 {
    harness
        .state()
        .viewer()
        .zoom_percent()
        .expect("the viewer is open")
}

fn press(harness: &mut Studio, key: egui::Key) {
    harness.key_press(key);
    harness.step();
    harness.step();
}

/// The image area's centre on screen (found by its accessible name).
fn image_centre(harness: &Studio) -> egui::Pos2 {
    harness
        .get_by(|node| {
            node.role() == Role::Image
                && node
                    .label()
                    .is_some_and(|label| label.starts_with("Image 1 of 1"))
        })
        .rect()
        .center()
}

#[test]
fn keys_wheel_and_drag_zoom_and_pan_and_esc_closes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    open_a_result(&mut harness);
    harness.check_accessibility();
    assert!(harness.state().viewer().is_fit(), "the viewer opens at Fit");
    let fit = zoom(&harness);

    press(&mut harness, egui::Key::Plus);
    let zoomed = zoom(&harness);
    assert!(zoomed > fit, "+ zooms in ({fit} -> {zoomed})");
    press(&mut harness, egui::Key::Minus);
    assert!(zoom(&harness) < zoomed, "- zooms out");

    press(&mut harness, egui::Key::Num1);
    assert!((zoom(&harness) - 100.0).abs() < 0.5, "1 is 100 %");
    press(&mut harness, egui::Key::Num0);
    assert!(harness.state().viewer().is_fit(), "0 is fit");

    // The wheel over the image zooms in around the pointer.
    let centre = image_centre(&harness);
    harness.hover_at(centre);
    harness.step();
    harness.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: egui::vec2(0.0, 480.0),
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Unknown,
        modifiers: egui::Modifiers::NONE,
    });
    for _ in 0..20 {
        harness.step();
    }
    let wheeled = zoom(&harness);
    assert!(
        wheeled > fit * 1.5,
        "the wheel zooms in ({fit} -> {wheeled})"
    );

    // Deep enough that the image is larger than its area, then drag it.
    for _ in 0..4 {
        press(&mut harness, egui::Key::Plus);
    }
    let before = harness.state().viewer().image_rect().expect("image rect");
    harness.drag_at(centre);
    harness.step();
    for step in 1..=5 {
        harness.hover_at(centre + egui::vec2(-30.0 * step as f32, -20.0 * step as f32));
        harness.step();
    }
    harness.drop_at(centre + egui::vec2(-150.0, -100.0));
    harness.step();
    let after = harness.state().viewer().image_rect().expect("image rect");
    assert!(
        after.center().x < before.center().x && after.center().y < before.center().y,
        "dragging pans the image ({before:?} -> {after:?})"
    );

    // Zoomed in, the arrow keys pan instead of stepping.
    press(&mut harness, egui::Key::ArrowRight);
    let panned = harness.state().viewer().image_rect().expect("image rect");
    assert!(
        panned.center().x < after.center().x,
        "→ looks further right"
    );
    assert!(
        harness.state().viewer_job().is_some(),
        "still the same image"
    );

    press(&mut harness, egui::Key::Escape);
    assert!(!harness.state().viewer().is_open(), "Esc closes the viewer");
}

#[test]
fn the_viewer_buttons_zoom_copy_and_reuse() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    let url = open_a_result(&mut harness);

    harness.get_by_label("Zoom to 100 %").click();
    harness.step();
    harness.step();
    assert!((zoom(&harness) - 100.0).abs() < 0.5, "Zoom to 100 % button");
    harness.get_by_label("Zoom to fit").click();
    harness.step();
    harness.step();
    assert!(harness.state().viewer().is_fit(), "Zoom to fit button");

    // Keyboard only: Tab walks the viewer's buttons and never leaves the viewer.
    let mut reached = Vec::new();
    for _ in 0..16 {
        harness.key_press(egui::Key::Tab);
        harness.step();
        if let Some(node) = harness.query_by(|node| node.is_focused()) {
            reached.push(node.accesskit_node().label().unwrap_or_default());
        }
    }
    for name in ["Zoom to fit", "Reuse prompt and settings", "Copy URL"] {
        assert!(
            reached.iter().any(|label| label == name),
            "Tab reaches {name}: {reached:?}"
        );
    }
    assert!(
        !reached
            .iter()
            .any(|label| label.starts_with("Generate") || label == "Prompt"),
        "Tab stays inside the viewer: {reached:?}"
    );

    // Every action of the brief is there, by name.
    for name in [
        "Reuse prompt and settings",
        "Use as edit source",
        "Vary…",
        "Favourite",
        "Move to Trash",
        "Copy URL",
        "Save…",
        "Open in system viewer",
        "Close viewer",
    ] {
        // (The Create canvas underneath has some of the same buttons on its tile.)
        assert!(
            harness.query_all_by_label(name).next().is_some(),
            "{name} is shown"
        );
    }

    harness.get_by_label("Copy URL").click();
    harness.step();
    let copied = harness
        .output()
        .platform_output
        .commands
        .iter()
        .any(|c| matches!(c, egui::OutputCommand::CopyText(text) if *text == url));
    assert!(copied, "Copy URL puts the result's URL on the clipboard");

    // The right-click menu on the image offers the same actions.
    harness
        .get_by(|node| {
            node.role() == Role::Image
                && node.label().is_some_and(|l| l.starts_with("Image 1 of 1"))
        })
        .click_secondary();
    harness.step();
    harness.step();
    assert_eq!(
        harness.query_all_by_label("Copy URL").count(),
        2,
        "the context menu repeats the actions"
    );
    harness.check_accessibility();
    harness.key_press(egui::Key::Escape);
    harness.step();
    harness.step();
    assert!(
        harness.state().viewer().is_open(),
        "Esc closes the menu first, not the viewer"
    );
    harness.step();

    // The viewer's button, not the one on the canvas tile under it: the rightmost one.
    harness
        .query_all_by_label("Reuse prompt and settings")
        .max_by(|a, b| a.rect().min.x.total_cmp(&b.rect().min.x))
        .expect("the viewer's Reuse button")
        .click();
    harness.step();
    harness.step();
    assert!(
        !harness.state().viewer().is_open(),
        "Reuse leaves the viewer for Create"
    );
    assert_eq!(harness.state().view(), View::Create, "Reuse shows Create");
    assert_eq!(
        harness.state().compose_prompt(),
        "A red kite over a chalk ridge",
        "Reuse puts the prompt back"
    );
}
