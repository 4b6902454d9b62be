//! Visual DNA and moodboards used from Create, through egui_kittest against the real studio
//! on its sandbox on loopback: a Visual DNA made from two photos (through the engine) is
//! picked in an Image edit form with the picker's search and keyboard, sent as
//! `visual_dna_ids`, and changes the picture; a moodboard picked for scene 1 of a Creative
//! Director batch is sent as `moodboard_ids`, and the Library's moodboard filter then shows
//! what it made.

use crate::support;
use support::{
    click_button, drop_file, fixture_photo, generate, step_until, steps, studio,
    wait_for_service_data,
};

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable as _;
use framewright::api::moodboards::MoodboardFields;
use framewright::api::visual_dna::{DnaType, NewVisualDna};
use framewright::api::{GenerationKind, WorkflowType};
use framewright::engine::{Command, JobPhase, MoodboardCommand, VisualDnaCommand};
use framewright::ui::View;
use framewright::ui::compose::dna_picker;
use framewright::ui::compose::moodboard_picker;
use framewright::ui::library::moodboard_filter;

fn download(url: &str) -> Vec<u8> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        reqwest::get(url)
            .await
            .expect("download")
            .error_for_status()
            .expect("status")
            .bytes()
            .await
            .expect("body")
            .to_vec()
    })
}

#[test]
fn a_visual_dna_is_picked_in_an_edit_and_a_moodboard_in_a_storyboard() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);

    // ---- Visual DNA in an image edit --------------------------------------------------
    harness
        .state_mut()
        .session_mut()
        .send(Command::VisualDna(VisualDnaCommand::Create(NewVisualDna {
            name: "Emma".into(),
            dna_type: DnaType::Character,
            image_paths: vec![fixture_photo("astronaut.png"), fixture_photo("chelsea.png")],
            prompt_helper: None,
        })))
        .expect("the engine takes the command");
    // A dropped photo switches to Image edit and becomes its source.
    drop_file(&mut harness, fixture_photo("coffee.png"));
    step_until(&mut harness, "the source upload", |h| {
        let form = h.state().compose_form();
        form.kind == GenerationKind::ImageEdit
            && form
                .sources
                .iter()
                .all(|s| matches!(s.state, framewright::ui::compose::SourceState::Ready { .. }))
            && !form.sources.is_empty()
    });
    // The form is an image edit with Auto: the picker is there, the id field is gone.
    assert!(harness.query_by_label("Visual DNA ids").is_none());
    click_button(&mut harness, dna_picker::ADD_NAME);
    step_until(&mut harness, "Emma to be built and listed", |h| {
        h.state()
            .compose_form()
            .visual_dnas
            .entries
            .iter()
            .any(|d| d.name == "Emma" && !d.is_building())
    });
    let emma = harness
        .state()
        .compose_form()
        .visual_dnas
        .entries
        .iter()
        .find(|d| d.name == "Emma")
        .map(|d| d.id.clone())
        .expect("Emma listed");
    assert!(harness.state().compose_form().dna.popup_open);
    // The search has the keyboard on open: typing narrows the grid, Enter picks the first
    // match, Escape closes.
    harness.event(egui::Event::Text("emma".into()));
    steps(&mut harness, 2);
    assert_eq!(harness.state().compose_form().dna.search, "emma");
    harness.key_press(egui::Key::Enter);
    steps(&mut harness, 2);
    assert_eq!(
        harness.state().compose_form().dna.picked,
        std::slice::from_ref(&emma)
    );
    harness.key_press(egui::Key::Escape);
    steps(&mut harness, 2);
    assert!(!harness.state().compose_form().dna.popup_open);
    // The row shows the pick by name, with its remove button.
    assert!(
        harness
            .query_by_role_and_label(Role::Button, "Remove Emma")
            .is_some()
    );

    let prompt = "the same cup, in a character's hands";
    let with_dna = generate(&mut harness, prompt);
    assert_eq!(with_dna.spec.kind, GenerationKind::ImageEdit);
    assert_eq!(
        with_dna.spec.request.visual_dna_ids,
        std::slice::from_ref(&emma)
    );

    // Removed, then "Reuse prompt and settings" of the job puts the pick back.
    click_button(&mut harness, "Remove Emma");
    assert!(harness.state().compose_form().dna.picked.is_empty());
    click_button(&mut harness, "Reuse prompt and settings");
    assert_eq!(
        harness.state().compose_form().dna.picked,
        std::slice::from_ref(&emma)
    );

    // The same edit without it: a different picture (the sandbox tints and insets the DNA).
    click_button(&mut harness, "Remove Emma");
    let without = generate(&mut harness, prompt);
    assert!(without.spec.request.visual_dna_ids.is_empty());
    let url = |job: &framewright::engine::JobRecord| {
        job.result
            .as_ref()
            .and_then(|r| r.urls.first())
            .cloned()
            .expect("an output")
    };
    let (a, b) = (download(&url(&with_dna)), download(&url(&without)));
    let (a, b) = (
        image::load_from_memory(&a).expect("decodes").to_rgb8(),
        image::load_from_memory(&b).expect("decodes").to_rgb8(),
    );
    assert_eq!(a.dimensions(), b.dimensions());
    assert_ne!(a.as_raw(), b.as_raw(), "the Visual DNA changes the picture");

    // ---- a moodboard for scene 1 of a Creative Director batch ---------------------------
    let photos = ["rocket.jpg", "hubble_deep_field.jpg"]
        .map(|name| fixture_photo(name).display().to_string())
        .to_vec();
    harness
        .state_mut()
        .session_mut()
        .send(Command::Moodboards(MoodboardCommand::Create(
            MoodboardFields {
                name: "Night launch".into(),
                images: photos,
                style_guide: Some("deep blues, sodium orange".into()),
            },
        )))
        .expect("the engine takes the command");
    click_button(&mut harness, "Creative Director");
    click_button(&mut harness, "2");
    click_button(&mut harness, "Images");
    step_until(&mut harness, "the moodboard to be listed", |h| {
        h.state()
            .compose_form()
            .moodboards
            .boards
            .iter()
            .any(|b| b.name == "Night launch")
    });
    let board = harness
        .state()
        .compose_form()
        .moodboards
        .boards
        .iter()
        .find(|b| b.name == "Night launch")
        .map(|b| b.id.clone())
        .expect("listed");
    click_button(&mut harness, moodboard_picker::PER_SCENE_NAME);
    click_button(&mut harness, &moodboard_picker::scene_button_name(0));
    assert!(
        harness
            .query_by_role_and_label(Role::Button, &moodboard_picker::scene_button_name(1))
            .is_some(),
        "one row per scene"
    );
    click_button(&mut harness, "Night launch");
    let form = harness.state().compose_form();
    assert_eq!(
        form.moodboard.scenes.first().cloned().flatten(),
        Some(board.clone())
    );
    assert_eq!(form.workflow, WorkflowType::Image);

    let batch = generate(&mut harness, "a night launch in two shots");
    assert_eq!(batch.phase, JobPhase::Completed);
    assert_eq!(
        batch.spec.request.moodboard_ids,
        std::slice::from_ref(&board)
    );
    assert_eq!(batch.spec.request.moodboard_id, None);

    // The Library's moodboard filter shows what scene 1 made with it, and clears.
    click_button(&mut harness, "Library");
    step_until(&mut harness, "the library", |h| h.state().library_settled());
    let everything = harness.state().library_len();
    harness
        .get_by_role_and_label(Role::ComboBox, moodboard_filter::FILTER_NAME)
        .click();
    step_until(&mut harness, "the moodboard filter's choices", |h| {
        h.query_by_label("Night launch").is_some()
    });
    harness.get_by_label("Night launch").click();
    step_until(&mut harness, "the filtered library", |h| {
        h.state().library().moodboard_filter.id() == Some(board.as_str())
            && h.state().library_settled()
            && h.state().library_len() < everything
    });
    assert_eq!(
        harness.state().library_len(),
        1,
        "scene 1 only: scene 2 had no moodboard"
    );
    assert!(
        harness
            .query_by_label_contains("Moodboard: Night launch")
            .is_some(),
        "the active filter is visible"
    );
    click_button(&mut harness, moodboard_filter::CLEAR_NAME);
    step_until(&mut harness, "the whole library", |h| {
        h.state().library().moodboard_filter.active.is_none()
            && h.state().library_settled()
            && h.state().library_len() == everything
    });
}
