//! Projects and prompt presets driven through egui_kittest against the real studio and its
//! embedded sandbox: rename (keyboard only) and archive in the projects dialog, the
//! Library's project filter, and Create's prompt presets. Widgets are found by role and
//! accessible name; assertions are on app state and the sandbox, never on timing.

use crate::support;
use support::{Studio, step_until, steps, studio, type_prompt, wait_for_service_data};

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable as _;
use framewright::api::{ApiClient, ClientConfig, GenerationKind, Project, PromptPresetType};
use framewright::ui::View;

/// The project named `name` in the studio's list.
fn project_named(harness: &Studio, name: &str) -> Option<Project> {
    harness
        .state()
        .projects()
        .into_iter()
        .find(|p| p.name == name)
}

/// Creates a project through Create's "New project…" form; Create then uses it.
fn create_project(harness: &mut Studio, name: &str) -> Project {
    // The project card is at the foot of the form: bring it on screen first.
    harness
        .get_by_role_and_label(Role::Button, "New project…")
        .scroll_to_me();
    steps(harness, 3);
    harness
        .get_by_role_and_label(Role::Button, "New project…")
        .click();
    steps(harness, 2);
    harness.get_by_label("New project name").focus();
    harness.step();
    harness.get_by_label("New project name").type_text(name);
    harness.step();
    harness.key_press(egui::Key::Enter);
    step_until(harness, "the new project", |h| {
        project_named(h, name).is_some()
    });
    let project = project_named(harness, name).expect("created");
    step_until(harness, "Create to use the new project", |h| {
        h.state().compose_project_id() == Some(project.id.as_str())
    });
    project
}

/// The sandbox's own record of a project, read over HTTP with the typed client.
fn sandbox_project(harness: &Studio, id: &str) -> Project {
    let sandbox = harness
        .state()
        .session()
        .local_sandbox()
        .expect("local sandbox");
    let client = ApiClient::new(ClientConfig {
        base_url: sandbox.base_url().to_owned(),
        api_key: sandbox.api_key().to_owned(),
        request_timeout_secs: 20,
    })
    .expect("client");
    tokio::runtime::Runtime::new()
        .expect("runtime")
        .block_on(client.project(id))
        .expect("the sandbox answers")
}

fn open_project_picker(harness: &mut Studio) {
    harness
        .get_by_role_and_label(Role::ComboBox, "Project")
        .click_accesskit();
    step_until(harness, "the project picker", |h| {
        h.query_by_label("Manage projects…").is_some()
    });
}

fn close_popup(harness: &mut Studio) {
    harness.key_press(egui::Key::Escape);
    steps(harness, 3);
}

fn open_projects_dialog(harness: &mut Studio) {
    open_project_picker(harness);
    harness.get_by_label("Manage projects…").click();
    step_until(harness, "the projects dialog", |h| {
        h.state().projects_dialog().open
    });
    steps(harness, 2);
}

fn select_all_and_type(harness: &mut Studio, label: &str, text: &str) {
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.step();
    harness.key_press(egui::Key::Backspace);
    harness.step();
    if !text.is_empty() {
        harness.get_by_label(label).type_text(text);
        harness.step();
    }
}

#[test]
fn rename_and_archive_a_project_from_the_projects_dialog() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);
    let project = create_project(&mut harness, "Lookbook");

    // Rename with the keyboard: the field takes focus, Enter saves, Esc cancels.
    open_projects_dialog(&mut harness);
    harness
        .get_by_role_and_label(Role::Button, "Rename Lookbook")
        .click();
    steps(&mut harness, 3);
    select_all_and_type(&mut harness, "New name for Lookbook", "Scrapped idea");
    harness.key_press(egui::Key::Escape);
    steps(&mut harness, 2);
    assert!(
        harness.state().projects_dialog().rename.is_none(),
        "Esc cancels"
    );
    assert!(
        harness.state().projects_dialog().open,
        "Esc on the field keeps the dialog"
    );
    assert_eq!(sandbox_project(&harness, &project.id).name, "Lookbook");

    harness
        .get_by_role_and_label(Role::Button, "Rename Lookbook")
        .click();
    steps(&mut harness, 3);
    // A blank name is refused at the field before anything is sent.
    select_all_and_type(&mut harness, "New name for Lookbook", "");
    harness.key_press(egui::Key::Enter);
    steps(&mut harness, 2);
    let field = harness
        .state()
        .projects_dialog()
        .rename
        .clone()
        .expect("still renaming");
    assert_eq!(field.error.as_deref(), Some("A project needs a name."));
    assert!(field.op_id.is_none(), "nothing was sent");
    steps(&mut harness, 2);
    assert!(
        harness.get_by_label("New name for Lookbook").is_focused(),
        "the field keeps the keyboard to fix the name"
    );
    harness
        .get_by_label("New name for Lookbook")
        .type_text("Spring lookbook");
    harness.step();
    harness.key_press(egui::Key::Enter);
    step_until(&mut harness, "the renamed project", |h| {
        project_named(h, "Spring lookbook").is_some()
    });
    assert_eq!(
        sandbox_project(&harness, &project.id).name,
        "Spring lookbook"
    );
    assert!(harness.state().projects_dialog().rename.is_none());
    harness.get_by_role_and_label(Role::Button, "Done").click();
    steps(&mut harness, 2);
    open_project_picker(&mut harness);
    assert!(
        harness.query_by_label("Spring lookbook").is_some(),
        "the picker shows the new name"
    );
    close_popup(&mut harness);

    // Archive the project Create uses: it leaves the pickers, Create goes to the default.
    open_projects_dialog(&mut harness);
    harness
        .get_by_role_and_label(Role::Button, "Archive Spring lookbook")
        .click();
    step_until(&mut harness, "the archived project", |h| {
        project_named(h, "Spring lookbook").is_some_and(|p| p.archived)
    });
    assert!(sandbox_project(&harness, &project.id).archived);
    steps(&mut harness, 2);
    let default_id = harness
        .state()
        .projects()
        .into_iter()
        .find(|p| p.is_default == Some(true))
        .expect("default project")
        .id;
    assert_eq!(
        harness.state().compose_project_id(),
        Some(default_id.as_str())
    );
    assert!(
        harness
            .state()
            .toast_texts()
            .iter()
            .any(|t| t.starts_with("Archived “Spring lookbook”. Create now uses")),
        "{:?}",
        harness.state().toast_texts()
    );
    assert!(
        harness.query_by_label("Rename Spring lookbook").is_none(),
        "archived projects are hidden in the dialog until asked for"
    );

    // The toast's Undo (a pointer click over the dialog) unarchives it and gives Create the
    // project back; then archive it again for the rest of the flow.
    harness.get_by_role_and_label(Role::Button, "Undo").click();
    step_until(&mut harness, "the undone archive", |h| {
        project_named(h, "Spring lookbook").is_some_and(|p| !p.archived)
            && h.state().compose_project_id() == Some(project.id.as_str())
    });
    assert!(
        harness.state().projects_dialog().open,
        "Undo on the toast keeps the dialog"
    );
    harness
        .get_by_role_and_label(Role::Button, "Archive Spring lookbook")
        .click();
    step_until(&mut harness, "archived once more", |h| {
        project_named(h, "Spring lookbook").is_some_and(|p| p.archived)
    });
    steps(&mut harness, 2);

    // "Show archived" brings it back; unarchive it.
    harness
        .get_by_role_and_label(Role::CheckBox, "Show archived")
        .click();
    steps(&mut harness, 2);
    harness
        .get_by_role_and_label(Role::Button, "Unarchive Spring lookbook")
        .click();
    step_until(&mut harness, "the unarchived project", |h| {
        project_named(h, "Spring lookbook").is_some_and(|p| !p.archived)
    });
    assert!(!sandbox_project(&harness, &project.id).archived);
    harness.get_by_role_and_label(Role::Button, "Done").click();
    steps(&mut harness, 2);
    open_project_picker(&mut harness);
    assert!(harness.query_by_label("Spring lookbook").is_some());
    close_popup(&mut harness);

    // While archived, a project is not offered by Create's picker.
    open_projects_dialog(&mut harness);
    harness
        .get_by_role_and_label(Role::Button, "Archive Spring lookbook")
        .click();
    step_until(&mut harness, "archived again", |h| {
        project_named(h, "Spring lookbook").is_some_and(|p| p.archived)
    });
    harness.get_by_role_and_label(Role::Button, "Done").click();
    steps(&mut harness, 2);
    open_project_picker(&mut harness);
    assert!(harness.query_by_label("Spring lookbook").is_none());
    close_popup(&mut harness);
}

#[test]
fn the_library_filters_by_project() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);
    let project = create_project(&mut harness, "Client work");
    let sandbox = harness.state().session().local_sandbox().expect("sandbox");
    assert_eq!(sandbox.seed_media(3, None), 3);
    assert_eq!(sandbox.seed_media(2, Some(&project.id)), 2);

    harness
        .get_by_role_and_label(Role::Button, "Library")
        .click();
    harness.step();
    let settled = |h: &Studio| h.state().library_settled() && !h.state().library_busy();
    step_until(&mut harness, "the whole library", |h| {
        h.state().view() == View::Library && settled(h)
    });
    steps(&mut harness, 3);
    // Everything: the seeded items in both projects (and any the sandbox adds itself).
    let everything = harness.state().library_len();
    assert!(everything >= 5, "{everything}");

    harness
        .get_by_role_and_label(Role::ComboBox, "Project filter")
        .click();
    step_until(&mut harness, "the project filter", |h| {
        h.query_by_label("Client work").is_some()
    });
    harness.get_by_label("Client work").click();
    step_until(&mut harness, "the project's items", |h| {
        h.state().library().project_filter.as_deref() == Some(project.id.as_str())
            && settled(h)
            && h.state().library_len() == 2
    });
    assert!(
        harness
            .state()
            .library_items()
            .iter()
            .all(|item| item.project_id.as_deref() == Some(project.id.as_str())),
        "only the project's items"
    );

    steps(&mut harness, 3);
    harness
        .get_by_role_and_label(Role::ComboBox, "Project filter")
        .click();
    step_until(&mut harness, "the project filter", |h| {
        h.query_by_label("All projects").is_some()
    });
    harness.get_by_label("All projects").click();
    step_until(&mut harness, "every item again", |h| {
        h.state().library().project_filter.is_none()
            && settled(h)
            && h.state().library_len() == everything
    });
}

#[test]
fn a_prompt_preset_fills_the_create_prompt() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);
    assert_eq!(harness.state().compose_form().kind, GenerationKind::Image);
    step_until(&mut harness, "the image prompt presets", |h| {
        h.state()
            .create_state()
            .prompt_presets
            .presets(PromptPresetType::Image)
            .is_some()
    });
    type_prompt(&mut harness, "");

    let pick = |harness: &mut Studio, name: &str| {
        harness
            .get_by_role_and_label(Role::Button, "Prompt presets")
            .click();
        step_until(harness, "the presets menu", |h| {
            h.query_by_label(name).is_some()
        });
        harness.get_by_label(name).click();
        steps(harness, 3);
    };
    pick(&mut harness, "Film noir portrait");
    assert!(
        harness
            .state()
            .compose_prompt()
            .starts_with("black and white film noir portrait"),
        "an empty prompt takes the preset: {}",
        harness.state().compose_prompt()
    );

    type_prompt(&mut harness, "a jazz singer on stage");
    pick(&mut harness, "Macro detail");
    let prompt = harness.state().compose_prompt().to_owned();
    assert!(
        prompt.starts_with("a jazz singer on stage, extreme macro photograph"),
        "a written prompt gets the preset appended: {prompt}"
    );
    harness
        .get_by_role_and_label(Role::Button, "Undo preset")
        .click();
    steps(&mut harness, 2);
    assert_eq!(harness.state().compose_prompt(), "a jazz singer on stage");
}
