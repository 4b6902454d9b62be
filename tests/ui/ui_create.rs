//! The Create view as an artist uses it, through egui_kittest against the real studio on a
//! sandbox on loopback: results as large tiles, Reuse, Use as edit source, Vary, Favourite
//! and Trash on a result, the prompt's focus, and the form remembered across a restart.

use crate::support;
use support::{
    click_button, generate, press_generate, step_until, steps, studio, type_prompt,
    wait_for_service_data,
};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use framewright::api::GenerationKind;
use framewright::engine::JobRecord;
use framewright::ui::compose::{FORM_SPLITTER_NAME, SourceState};
use framewright::ui::{StudioApp, View};

type Studio = Harness<'static, StudioApp>;

fn output_url(job: &JobRecord) -> String {
    job.result
        .as_ref()
        .and_then(|r| r.urls.first())
        .cloned()
        .expect("the job has an output")
}

/// The Create tile of the newest result (its accessible name starts "Result 1 of").
fn first_tile_rect(harness: &Studio) -> egui::Rect {
    harness
        .query_all_by_role(Role::Button)
        .find(|node| {
            node.accesskit_node()
                .label()
                .is_some_and(|l| l.starts_with("Result 1 of"))
        })
        .expect("a result tile")
        .rect()
}

fn prompt_focused(harness: &Studio) -> bool {
    harness.get_by_label("Prompt").accesskit_node().is_focused()
}

#[test]
fn a_finished_result_is_a_large_tile_and_reuse_fills_the_form() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);
    assert!(
        harness.query_by_label_contains("No results yet").is_some(),
        "an honest empty state"
    );

    click_button(&mut harness, "16:9");
    click_button(&mut harness, "2K");
    step_until(&mut harness, "the cinematic presets", |h| {
        h.state().presets().is_some()
    });
    let lighting = harness.state().presets().expect("presets")["lighting"][0].clone();
    click_button(&mut harness, "Cinematic presets");
    click_button(&mut harness, &format!("Lighting: {}", lighting.name));
    let prompt = "A lighthouse on a basalt cliff at blue hour";
    let job = generate(&mut harness, prompt);
    assert_eq!(job.spec.request.aspect_ratio.as_deref(), Some("16:9"));

    step_until(&mut harness, "the result tile", |h| {
        h.query_all_by_role(Role::Button).any(|node| {
            node.accesskit_node()
                .label()
                .is_some_and(|l| l.starts_with("Result 1 of 1"))
        })
    });
    let rect = first_tile_rect(&harness);
    assert!(
        rect.width() >= 256.0 && (rect.height() - rect.width() * 9.0 / 16.0).abs() <= 1.0,
        "results are large tiles shaped like the 16:9 picture, got {rect:?}"
    );
    harness.check_accessibility();

    // Change everything, then take it back from the result.
    click_button(&mut harness, "1:1");
    click_button(&mut harness, "1K");
    click_button(&mut harness, "Lighting: Auto");
    type_prompt(&mut harness, "something else");
    assert_eq!(harness.state().compose_prompt(), "something else");

    click_button(&mut harness, "Reuse prompt and settings");
    let form = harness.state().compose_form();
    assert_eq!(form.prompt, prompt);
    assert_eq!(form.kind, GenerationKind::Image);
    assert_eq!(form.model_id, job.spec.request.model);
    assert_eq!(form.aspect_ratio, "16:9");
    assert_eq!(form.resolution, "2K");
    assert_eq!(Some(form.num_images), job.spec.request.num_images);
    assert_eq!(
        form.cinematic.get("lighting"),
        Some(&lighting.id),
        "the cinematic picks come back"
    );
}

#[test]
fn use_as_edit_source_and_vary_act_on_that_result() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);
    let job = generate(&mut harness, "Paper lanterns over a night market");
    let url = output_url(&job);
    let sandbox_jobs = |h: &Studio| {
        h.state()
            .session()
            .local_sandbox()
            .expect("local profile")
            .generation_count()
    };
    assert_eq!(sandbox_jobs(&harness), 1);

    // Vary asks first, naming the cost; cancelling sends nothing.
    click_button(&mut harness, "Vary…");
    step_until(&mut harness, "the confirmation", |h| {
        h.query_by_role_and_label(Role::Button, "Submit new job")
            .is_some()
    });
    assert!(harness.query_by_label_contains("new seed").is_some());
    assert!(
        harness.query_by_label_contains("It costs about").is_some()
            && harness
                .query_by_label_contains("credits.")
                .or_else(|| harness.query_by_label_contains("credit."))
                .is_some(),
        "the confirmation names the cost in credits"
    );
    harness.check_accessibility();
    click_button(&mut harness, "Cancel");
    steps(&mut harness, 5);
    assert_eq!(
        harness.state().jobs().len(),
        1,
        "nothing without confirming"
    );

    click_button(&mut harness, "Vary…");
    step_until(&mut harness, "the confirmation", |h| {
        h.query_by_role_and_label(Role::Button, "Submit new job")
            .is_some()
    });
    click_button(&mut harness, "Submit new job");
    step_until(&mut harness, "the variation to finish", |h| {
        let jobs = h.state().jobs();
        jobs.len() == 2 && jobs[0].phase.is_finished()
    });
    let variation = harness.state().jobs()[0].clone();
    assert_eq!(variation.spec.request.prompt, job.spec.request.prompt);
    assert_eq!(
        variation.spec.request.aspect_ratio,
        job.spec.request.aspect_ratio
    );
    assert_ne!(
        variation.spec.request.seed, job.spec.request.seed,
        "a new seed"
    );
    assert!(variation.spec.request.seed.is_some());
    assert_eq!(sandbox_jobs(&harness), 2, "exactly one new job");
    assert_ne!(output_url(&variation), url, "a different image");

    // Use the first job's output as an edit source (it is now "Result 2 of 2").
    let edit_source = harness
        .query_all_by_role_and_label(Role::Button, "Use as edit source")
        .nth(1)
        .expect("the older result's button");
    edit_source.click_accesskit();
    steps(&mut harness, 2);
    let form = harness.state().compose_form();
    assert_eq!(form.kind, GenerationKind::ImageEdit);
    assert_eq!(form.sources.len(), 1);
    assert_eq!(
        form.sources[0].state,
        SourceState::Ready { url: url.clone() }
    );
    assert_eq!(harness.state().view(), View::Create);
}

#[test]
fn favourite_and_trash_on_a_result_reach_the_library() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);
    let job = generate(&mut harness, "A fisherman's cottage by the sea");
    let url = output_url(&job);

    click_button(&mut harness, "Favourite");
    step_until(&mut harness, "the favourite to be confirmed", |h| {
        h.query_by_role_and_label(Role::Button, "Remove from favourites")
            .is_some()
    });

    click_button(&mut harness, "Library");
    step_until(&mut harness, "the library to list the result", |h| {
        h.state().library_settled() && h.state().library_items().iter().any(|i| i.url == url)
    });
    let item = harness
        .state()
        .library_items()
        .into_iter()
        .find(|i| i.url == url)
        .expect("the result's library item");
    assert_eq!(item.is_favorited, Some(true), "favourited in the library");

    click_button(&mut harness, "Create");
    click_button(&mut harness, "Move to Trash");
    step_until(&mut harness, "the result to leave the canvas", |h| {
        h.query_by_role_and_label(Role::Button, "Move to Trash")
            .is_none()
    });
    assert!(
        harness
            .query_by_role_and_label(Role::Button, "Undo")
            .is_some(),
        "trashing offers Undo"
    );

    click_button(&mut harness, "Library");
    step_until(&mut harness, "the library without the result", |h| {
        h.state().library_settled() && !h.state().library_busy()
    });
    assert!(
        !harness
            .state()
            .library_items()
            .iter()
            .any(|i| i.id == item.id),
        "no longer in All media"
    );
    click_button(&mut harness, "Trash");
    step_until(&mut harness, "the trash listing", |h| {
        h.state().library_settled() && h.state().library_item_ids().contains(&item.id)
    });
}

#[test]
fn the_prompt_has_focus_at_start_and_after_switching_to_create() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    steps(&mut harness, 3);
    assert!(prompt_focused(&harness), "focused at start");

    click_button(&mut harness, "Library");
    click_button(&mut harness, "Create");
    steps(&mut harness, 2);
    assert!(prompt_focused(&harness), "focused after switching back");
}

#[test]
fn the_create_form_is_restored_after_a_restart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let prompt = "Tide pools at low water, long exposure";
    {
        let mut harness = studio(&dir, View::Create);
        wait_for_service_data(&mut harness);
        harness.get_by_label("Prompt").type_text(prompt);
        steps(&mut harness, 2);
        click_button(&mut harness, "9:16");
        click_button(&mut harness, "4K");
        harness.get_by_label("Enhance prompt").click_accesskit();
        steps(&mut harness, 2);
        step_until(
            &mut harness,
            "the form to be written to the settings",
            |h| {
                let memory = h
                    .state()
                    .session()
                    .ui_memory()
                    .panels
                    .get("create")
                    .cloned();
                memory.is_some_and(|m| {
                    m["prompt"] == prompt
                        && m["aspect_ratio"] == "9:16"
                        && m["resolution"] == "4K"
                        && m["enhance_prompt"] == false
                })
            },
        );
    }

    let mut harness = studio(&dir, View::Create);
    steps(&mut harness, 2);
    let form = harness.state().compose_form();
    assert_eq!(form.prompt, prompt);
    assert_eq!(form.kind, GenerationKind::Image);
    assert_eq!(form.aspect_ratio, "9:16");
    assert_eq!(form.resolution, "4K");
    assert!(!form.enhance_prompt);
    wait_for_service_data(&mut harness);
    let form = harness.state().compose_form();
    assert_eq!(
        (form.aspect_ratio.as_str(), form.resolution.as_str()),
        ("9:16", "4K"),
        "still there once the catalog is in"
    );
}

/// `framewright photo.png` while the studio runs: the running window takes the photo as
/// the source of an image edit, whatever view it was on, and names a missing file.
#[test]
fn a_second_launch_hands_its_image_to_create_as_the_edit_source() {
    use framewright::desktop::single_instance::{self, LaunchRequest, Startup};
    let dir = tempfile::tempdir().expect("temp dir");
    let mut harness = studio(&dir, View::Library);
    wait_for_service_data(&mut harness);
    let data_dir = framewright::settings::AppPaths::under(dir.path()).data_dir;
    let mut first = single_instance::claim(&data_dir)
        .expect("claim")
        .expect("the data folder is free");
    let ctx = harness.ctx.clone();
    let incoming = first.take_incoming().expect("incoming");
    harness.state_mut().listen_for_launches(&ctx, incoming);

    let photo = support::fixture_photo("astronaut.png");
    let gone = dir.path().join("gone.png");
    let request = LaunchRequest {
        focus: true,
        files: vec![photo, gone],
        play: None,
        missing: Vec::new(),
    };
    let outcome = single_instance::claim_or_hand_over_within(
        &data_dir,
        &request,
        std::time::Duration::from_secs(30),
    )
    .expect("hand over");
    assert!(matches!(outcome, Startup::HandedOver));

    step_until(&mut harness, "the photo to become a source", |h| {
        h.state().compose_source_count() == 1
    });
    assert_eq!(harness.state().view(), View::Create);
    assert_eq!(
        harness.state().compose_form().kind,
        GenerationKind::ImageEdit
    );
    step_until(&mut harness, "the photo to upload", |h| {
        h.state()
            .compose_form()
            .sources
            .iter()
            .all(|s| matches!(s.state, SourceState::Ready { .. }))
    });
    assert!(
        harness
            .query_by_label_contains("Could not open “gone.png”: there is no such file")
            .is_some(),
        "the missing file is named"
    );
}

/// The pixel size of the image at `url` (a sandbox output, fetched without the key).
fn image_size(url: &str) -> (u32, u32) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let bytes = runtime.block_on(async {
        reqwest::get(url)
            .await
            .expect("download")
            .bytes()
            .await
            .expect("bytes")
    });
    let image = image::load_from_memory(&bytes).expect("an image");
    (image.width(), image.height())
}

/// Clicks the last button named exactly `label` (several tiles may carry it; the canvas
/// lists the oldest result last).
fn click_last(harness: &mut Studio, label: &str) {
    let last = |h: &Studio| {
        h.query_all_by_role(Role::Button)
            .rfind(|node| node.accesskit_node().label().as_deref() == Some(label))
            .unwrap_or_else(|| panic!("a button named {label}"))
            .accesskit_node()
            .id()
    };
    // It may be below the canvas's fold.
    let id = last(harness);
    harness.get_by(|node| node.id() == id).scroll_to_me();
    steps(harness, 2);
    let id = last(harness);
    harness.get_by(|node| node.id() == id).click_accesskit();
    steps(harness, 2);
}

#[test]
fn upscale_from_a_result_makes_a_double_size_image_and_a_repeat_follows_the_running_job() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);
    let source = generate(&mut harness, "A brass telescope on a windowsill");
    let source_size = image_size(&output_url(&source));

    // One click: the tool's job is journalled, tracked and shown like any other.
    let upscale = format!("Upscale 2× · {}", framewright::ui::format::credits(2.0));
    click_last(&mut harness, &upscale);
    step_until(&mut harness, "the upscale to finish", |h| {
        let jobs = h.state().jobs();
        jobs.len() == 2 && jobs[0].phase.is_finished()
    });
    let tool = harness.state().jobs()[0].clone();
    assert_eq!(tool.spec.kind, GenerationKind::ImageTool);
    assert_eq!(
        tool.phase,
        framewright::engine::JobPhase::Completed,
        "{tool:?}"
    );
    assert_eq!(tool.credits_estimate, Some(2.0));
    assert_eq!(
        image_size(&output_url(&tool)),
        (source_size.0 * 2, source_size.1 * 2),
        "twice the width and height"
    );
    step_until(&mut harness, "the upscaled result on the canvas", |h| {
        h.query_all_by_role(Role::Button).any(|node| {
            node.accesskit_node()
                .label()
                .is_some_and(|l| l.starts_with("Result") && l.contains("Upscale 2× of"))
        })
    });
    // The tray may already be open (it opens with the first job).
    if harness.query_by_label("Show jobs (2)").is_some() {
        click_button(&mut harness, "Show jobs (2)");
    }
    assert!(
        harness
            .query_by_label_contains("Image tool · Upscale 2× of")
            .is_some(),
        "the tray shows the job"
    );

    // The same tool on the same image twice within 30 s: the service answers 409
    // DUPLICATE_REQUEST for the second, which opens the first job instead of failing.
    let sent_before = harness
        .state()
        .session()
        .local_sandbox()
        .expect("local profile")
        .generation_count();
    let remove = format!(
        "Remove background · {}",
        framewright::ui::format::credits(2.0)
    );
    click_last(&mut harness, &remove);
    click_last(&mut harness, &remove);
    step_until(&mut harness, "both background jobs to finish", |h| {
        let jobs = h.state().jobs();
        jobs.len() == 4 && jobs[0].phase.is_finished() && jobs[1].phase.is_finished()
    });
    let jobs: Vec<JobRecord> = harness.state().jobs()[..2]
        .iter()
        .map(|j| (*j).clone())
        .collect();
    for job in &jobs {
        assert_eq!(
            job.phase,
            framewright::engine::JobPhase::Completed,
            "{job:?}"
        );
    }
    assert_eq!(
        jobs[0].generation_id, jobs[1].generation_id,
        "the repeat follows the job already running"
    );
    // Both may be on their way at once: whichever the service saw second follows the other.
    let followers = jobs
        .iter()
        .filter(|job| {
            job.model_label
                .ends_with(framewright::engine::FOLLOWED_SUFFIX)
        })
        .count();
    assert_eq!(followers, 1, "{jobs:?}");
    let sent_after = harness
        .state()
        .session()
        .local_sandbox()
        .expect("local profile")
        .generation_count();
    assert_eq!(sent_after, sent_before + 1, "only one job was started");
    assert!(
        harness
            .query_by_label_contains(framewright::engine::FOLLOWED_SUFFIX)
            .is_some(),
        "the tray says the repeat follows the running job"
    );
}

/// The rect of the node named exactly `label` with `role`.
fn rect_of(harness: &Studio, role: Role, label: &str) -> egui::Rect {
    harness.get_by_role_and_label(role, label).rect()
}

/// Drags with the primary button from `from` to `to`, a frame per step.
fn drag(harness: &mut Studio, from: egui::Pos2, to: egui::Pos2) {
    harness.hover_at(from);
    harness.step();
    harness.drag_at(from);
    harness.step();
    harness.hover_at(egui::pos2((from.x + to.x) / 2.0, to.y));
    harness.step();
    harness.hover_at(to);
    harness.step();
    harness.drop_at(to);
    steps(harness, 2);
}

/// Where the form column and its type picker are: (splitter, "Image", "Video edit").
fn form_geometry(harness: &Studio) -> [egui::Rect; 3] {
    [
        rect_of(harness, Role::Splitter, FORM_SPLITTER_NAME),
        rect_of(harness, Role::Button, "Image"),
        rect_of(harness, Role::Button, "Video edit"),
    ]
}

/// Every named widget that starts in the form column ends in it.
fn assert_nothing_runs_past_the_form(harness: &Studio) {
    let splitter = rect_of(harness, Role::Splitter, FORM_SPLITTER_NAME);
    let edge = splitter.left();
    let overflowing: Vec<String> = harness
        .query_all(egui_kittest::kittest::by())
        .filter_map(|node| {
            let n = node.accesskit_node();
            let name = n.label().or(n.value())?;
            let b = n.bounding_box()?;
            // Right of the rail, above the status bar.
            let starts_in_form =
                b.x0 > 80.0 && (b.x0 as f32) < edge && b.y1 as f32 <= splitter.bottom();
            (starts_in_form && b.x1 as f32 > edge + 0.5)
                .then(|| format!("{:?} {name:?} {b:?}", n.role()))
        })
        .collect();
    assert!(
        overflowing.is_empty(),
        "past the form's edge at x = {edge}: {overflowing:#?}"
    );
}

/// Issue 20, item 2: with the job tray open and wide, an image edit with two sources whose
/// names are long keeps its chips on one line and its combos in their cards, and the form
/// column keeps its width while a job starts and finishes; the splitter sets and
/// remembers the width.
#[test]
fn the_create_form_holds_its_width_and_its_chips_and_combos_fit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);
    if let Some(show) = harness.query_by_label_contains("Show jobs") {
        show.click_accesskit();
        steps(&mut harness, 3);
    }
    // Widen the tray to its widest.
    // The tray's left edge: its resize handle.
    let edge = 1440.0 - 340.0;
    drag(
        &mut harness,
        egui::pos2(edge, 450.0),
        egui::pos2(edge - 300.0, 450.0),
    );
    let heading = harness.get_by_label("Jobs").rect();
    assert!(
        heading.left() < edge - 150.0,
        "the tray is wide: its heading at {heading:?}"
    );

    click_button(&mut harness, "Image edit");
    let names = [
        "sunset over the harbour at dusk, second take with the long lens.png",
        "sunset.png",
    ];
    for (name, fixture) in names.iter().zip(["astronaut.png", "coffee.png"]) {
        let path = dir.path().join(name);
        std::fs::copy(support::fixture_photo(fixture), &path).expect("copy the photo");
        support::drop_file(&mut harness, path);
        harness.step();
    }
    step_until(&mut harness, "both sources to upload", |h| {
        let form = h.state().compose_form();
        form.sources.len() == 2
            && form
                .sources
                .iter()
                .all(|s| matches!(s.state, SourceState::Ready { .. }))
    });
    steps(&mut harness, 3);

    for name in names {
        let chip = harness
            .get_by_role_and_label(Role::Group, &format!("{name} · ready"))
            .rect();
        assert!(
            chip.height() < 56.0 && chip.width() >= 140.0,
            "the chip of {name} is one line, not a column of letters: {chip:?}"
        );
    }
    for combo in ["Model", "Project"] {
        let rect = harness.get_by_label(combo).rect();
        let edge = rect_of(&harness, Role::Splitter, FORM_SPLITTER_NAME).left();
        assert!(
            rect.right() <= edge,
            "the {combo} combo ({rect:?}) stays left of the splitter at {edge}"
        );
    }
    assert_nothing_runs_past_the_form(&harness);

    let before = form_geometry(&harness);
    type_prompt(&mut harness, "Make the sky violet");
    press_generate(&mut harness);
    step_until(&mut harness, "the job to start", |h| {
        !h.state().jobs().is_empty()
    });
    assert_eq!(
        form_geometry(&harness),
        before,
        "a job starting re-flows nothing"
    );
    step_until(&mut harness, "the job to finish", |h| {
        h.state().jobs()[0].phase.is_finished()
    });
    steps(&mut harness, 3);
    assert_eq!(
        form_geometry(&harness),
        before,
        "a job ending re-flows nothing"
    );
    assert_nothing_runs_past_the_form(&harness);

    // Drag the splitter 100 pt to the left (the wide tray leaves the results little room
    // to give): the form narrows, and the width is remembered.
    let splitter = before[0];
    drag(
        &mut harness,
        splitter.center(),
        splitter.center() - egui::vec2(100.0, 0.0),
    );
    let after = rect_of(&harness, Role::Splitter, FORM_SPLITTER_NAME);
    assert!(
        (splitter.center().x - after.center().x - 100.0).abs() < 2.0,
        "the splitter followed the pointer: {splitter:?} → {after:?}"
    );
    assert_nothing_runs_past_the_form(&harness);
    step_until(
        &mut harness,
        "the width to be written to the settings",
        |h| {
            h.state()
                .session()
                .ui_memory()
                .panels
                .get("create")
                .and_then(|m| m["form_width_pt"].as_f64())
                .is_some()
        },
    );
    drop(harness);
    let harness = studio(&dir, View::Create);
    let mut harness = harness;
    steps(&mut harness, 3);
    let restored = rect_of(&harness, Role::Splitter, FORM_SPLITTER_NAME);
    assert!(
        (restored.center().x - after.center().x).abs() < 1.0,
        "the width is back after a restart: {after:?} → {restored:?}"
    );

    // At its narrowest the form still holds everything (the sources are not remembered:
    // an image edit's empty form, with its hints and URL row).
    click_button(&mut harness, "Image edit");
    drag(
        &mut harness,
        restored.center(),
        restored.center() - egui::vec2(400.0, 0.0),
    );
    let narrowest = rect_of(&harness, Role::Splitter, FORM_SPLITTER_NAME);
    assert!(narrowest.left() < restored.left() - 40.0, "{narrowest:?}");
    assert_nothing_runs_past_the_form(&harness);

    // From the keyboard: focused, Right moves the edge a step.
    harness
        .get_by_role_and_label(Role::Splitter, FORM_SPLITTER_NAME)
        .focus();
    steps(&mut harness, 2);
    harness.key_press(egui::Key::ArrowRight);
    steps(&mut harness, 2);
    let stepped = rect_of(&harness, Role::Splitter, FORM_SPLITTER_NAME);
    assert!(
        (stepped.left() - narrowest.left() - 16.0).abs() < 0.5,
        "{narrowest:?} → {stepped:?}"
    );
}

/// Issue 20, item 10: a 16:9 video's tile is 16:9 with its length on the picture's corner,
/// and the player that takes its place on a click fits the video with no empty band.
#[test]
fn a_video_tile_and_its_inline_player_take_the_video_s_shape() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);
    click_button(&mut harness, "Text to video");
    click_button(&mut harness, "16:9");
    let prompt = "a koi pond in the rain";
    let job = generate(&mut harness, prompt);
    assert!(job.result.as_ref().is_some_and(|r| r.duration.is_some()));
    let name = format!("Result 1 of 1: {prompt}");
    step_until(&mut harness, "the tile with its length", |h| {
        h.query_by_role_and_label(Role::Button, &name).is_some()
            && h.query_all_by_label_contains("Length ").next().is_some()
    });
    // Let the poster load: the tile then takes the picture's own shape.
    steps(&mut harness, 10);
    let off_16_9 = |r: egui::Rect| (r.height() - r.width() * 9.0 / 16.0).abs();
    let tile = rect_of(&harness, Role::Button, &name);
    assert!(tile.width() >= 256.0, "a large tile: {tile:?}");
    assert!(off_16_9(tile) <= 1.0, "a 16:9 tile, no band: {tile:?}");
    // The tray's card has its own small tile: the canvas's badge is the one on the left.
    let badge = harness
        .query_all_by_label_contains("Length ")
        .map(|node| node.rect())
        .min_by(|a, b| a.left().total_cmp(&b.left()))
        .expect("the length badge");
    assert!(
        tile.contains_rect(badge),
        "the length {badge:?} sits on the picture {tile:?}"
    );

    harness.get_by_role_and_label(Role::Button, &name).click();
    step_until(&mut harness, "the video to play on the canvas", |h| {
        h.state().create_state().canvas_player.is_playing()
    });
    let picture = rect_of(&harness, Role::Image, &name);
    assert!(
        off_16_9(picture) <= 1.0 && (picture.width() - tile.width()).abs() <= 1.0,
        "the player's picture is the tile's shape, no band: {picture:?} for {tile:?}"
    );
}

#[test]
fn a_refused_generate_brings_the_missing_prompt_into_view_and_focus() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);
    // A short window and the longest form: the prompt scrolls out of view.
    harness.set_size(egui::vec2(1440.0, 600.0));
    click_button(&mut harness, "Creative Director");
    // Down to the project, the last card; a click there moves the focus off the prompt.
    harness.get_by_label("Project").scroll_to_me();
    steps(&mut harness, 30);
    harness.get_by_label("Project").click();
    steps(&mut harness, 2);
    harness.key_press(egui::Key::Escape);
    steps(&mut harness, 2);
    let generate = |h: &Studio| {
        h.get_by(|n| {
            n.role() == Role::Button && n.label().is_some_and(|l| l.starts_with("Generate"))
        })
        .rect()
    };
    let prompt_in_view = |h: &Studio| {
        let prompt = h.get_by_label("Prompt").rect();
        prompt.min.y >= 0.0 && prompt.max.y <= generate(h).min.y
    };
    assert!(!prompt_in_view(&harness), "the prompt starts out of view");
    assert!(!prompt_focused(&harness));

    harness
        .get_by(|n| {
            n.role() == Role::Button && n.label().is_some_and(|l| l.starts_with("Generate"))
        })
        .click();
    steps(&mut harness, 30);
    assert!(harness.state().jobs().is_empty(), "nothing was sent");
    assert!(prompt_in_view(&harness), "the prompt was brought into view");
    assert!(prompt_focused(&harness), "and typing goes into it");
    assert!(
        harness.query_by_label("Prompt: Enter a prompt.").is_some(),
        "the line under Generate names the field"
    );
}

#[test]
fn a_narrow_form_offers_the_types_as_a_dropdown() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut harness = support::studio_sized(&dir, View::Create, egui::vec2(800.0, 700.0));
    wait_for_service_data(&mut harness);
    // Too narrow for two columns of types: one "Type" dropdown instead of fifteen rows,
    // so the prompt stays in sight.
    assert!(
        harness
            .query_by_role_and_label(Role::Button, "Text to video")
            .is_none()
    );
    harness.get_by_label("Type").click_accesskit();
    steps(&mut harness, 2);
    harness.get_by_label("3D model").click_accesskit();
    steps(&mut harness, 2);
    assert_eq!(harness.state().compose_form().kind, GenerationKind::ThreeD);
    assert!(harness.query_by_label("Type").is_some());
}
