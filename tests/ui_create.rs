//! The Create view as an artist uses it, through egui_kittest against the real studio on a
//! sandbox on loopback: results as large tiles, Reuse, Use as edit source, Vary, Favourite
//! and Trash on a result, the prompt's focus, and the form remembered across a restart.

mod support;
use support::{click_button, generate, step_until, steps, studio, wait_for_service_data};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use framewright::api::GenerationKind;
use framewright::engine::JobRecord;
use framewright::ui::compose::SourceState;
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
        rect.width() >= 256.0 && rect.height() >= 256.0,
        "results are large tiles, got {rect:?}"
    );
    harness.check_accessibility();

    // Change everything, then take it back from the result.
    click_button(&mut harness, "1:1");
    click_button(&mut harness, "1K");
    click_button(&mut harness, "Lighting: Auto");
    harness.get_by_label("Prompt").click();
    harness.step();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.get_by_label("Prompt").type_text("something else");
    steps(&mut harness, 2);
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
        harness.get_by_label("Enhance prompt").click();
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
