//! The Docs view driven through egui_kittest against the studio and its embedded sandbox:
//! write a document with a table through the toolbar and save it (reopened from the
//! service, the table is still there), share it and copy the link (the page answers over
//! HTTP), make it editable by the link, unshare it; delete with Undo (nothing is sent) and
//! without (gone once the toast's lifetime ends, or at once when the studio quits); content
//! the service does not keep is named before saving; unsaved edits are asked about.

use crate::support;
use support::{Studio, click_button, step_until, steps, studio};

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable as _;
use framewright::session::{Session, SessionOptions};
use framewright::settings::AppPaths;
use framewright::ui::View;
use framewright::ui::docs::EditorState;
use serde_json::{Value, json};
use std::sync::Arc;

/// An HTTP call straight to the sandbox (the test's own view of the service).
fn http(
    method: reqwest::Method,
    url: &str,
    key: Option<&str>,
    body: Option<Value>,
) -> (u16, String) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async move {
        let mut request = reqwest::Client::new().request(method, url);
        if let Some(key) = key {
            request = request.header("X-API-Key", key);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.expect("the sandbox answers");
        let status = response.status().as_u16();
        (status, response.text().await.unwrap_or_default())
    })
}

/// The sandbox's API base (ends with /api) and key.
fn service(harness: &Studio) -> (String, String) {
    let sandbox = harness
        .state()
        .session()
        .local_sandbox()
        .expect("the local sandbox runs");
    (sandbox.base_url().to_owned(), sandbox.api_key().to_owned())
}

/// GET /v1/docs/:id over HTTP: the status and the document.
fn get_doc(harness: &Studio, id: &str) -> (u16, Value) {
    let (base, key) = service(harness);
    let (status, body) = http(
        reqwest::Method::GET,
        &format!("{base}/v1/docs/{id}"),
        Some(&key),
        None,
    );
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

/// POST /v1/docs over HTTP into the current project; the new id.
fn create_doc(harness: &Studio, title: &str) -> String {
    let (base, key) = service(harness);
    let project_id = harness.state().compose_project_id().map(str::to_owned);
    let (status, body) = http(
        reqwest::Method::POST,
        &format!("{base}/v1/docs"),
        Some(&key),
        Some(json!({"title": title, "content": "<p>Notes</p>", "project_id": project_id})),
    );
    assert_eq!(status, 201, "{body}");
    let body: Value = serde_json::from_str(&body).expect("json");
    body["doc"]["id"].as_str().expect("id").to_owned()
}

fn open_docs(dir: &tempfile::TempDir) -> Studio {
    let mut harness = studio(dir, View::Docs);
    step_until(&mut harness, "the project and the document list", |h| {
        h.state().compose_project_id().is_some() && h.state().docs().list.is_loaded()
    });
    steps(&mut harness, 2);
    harness
}

/// Read the list again, as a person would: all projects, then this project.
fn reload_list(harness: &mut Studio) {
    for scope in ["All projects", "This project"] {
        click_button(harness, scope);
        step_until(harness, "the list again", |h| {
            h.state().docs().list.is_loaded()
        });
    }
    steps(harness, 2);
}

fn draft_markdown(harness: &Studio) -> String {
    harness
        .state()
        .docs()
        .draft()
        .map(|d| d.markdown.clone())
        .unwrap_or_default()
}

fn open_doc(harness: &mut Studio, title: &str) {
    click_button(harness, &format!("Open “{title}”"));
    step_until(harness, "the document to open", |h| {
        h.state()
            .docs()
            .draft()
            .is_some_and(|d| d.title == title && !d.is_dirty())
    });
    steps(harness, 2);
}

/// Click into the Markdown field and type (text events; "\n" inside text is a newline).
fn type_markdown(harness: &mut Studio, text: &str) {
    harness.get_by_label("Markdown").click();
    harness.step();
    harness.get_by_label("Markdown").type_text(text);
    steps(harness, 2);
}

/// A rail button while the document has unsaved edits: the question opens (its first
/// frame only sizes it).
fn click_rail_with_unsaved_edits(harness: &mut Studio, view: &str) {
    click_button(harness, view);
    harness.step();
    assert_eq!(
        harness.state().view(),
        View::Docs,
        "Docs stays while it asks"
    );
}

fn meta(harness: &Studio) -> framewright::api::DocMeta {
    harness
        .state()
        .docs()
        .draft()
        .and_then(|d| d.meta.clone())
        .expect("a saved document is open")
}

#[test]
fn a_document_with_a_table_is_saved_reopened_shared_copied_and_unshared() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = open_docs(&dir);
    assert!(
        harness
            .query_by_label_contains("No documents in this project yet")
            .is_some(),
        "the empty list says so"
    );
    harness.check_accessibility();

    harness
        .query_all_by_role_and_label(Role::Button, "New document")
        .next()
        .expect("New document")
        .click_accesskit();
    steps(&mut harness, 2);
    // The new document's title has the focus: typing names it, no click needed.
    assert!(harness.get_by_label("Document title").is_focused());
    harness
        .input_mut()
        .events
        .push(egui::Event::Text("Harbour call sheet".to_owned()));
    steps(&mut harness, 2);
    assert_eq!(
        harness.state().docs().draft().map(|d| d.title.as_str()),
        Some("Harbour call sheet")
    );

    // The toolbar acts on the selection: the whole text becomes a heading…
    type_markdown(&mut harness, "Call times");
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.step();
    click_button(&mut harness, "Heading 2");
    assert_eq!(draft_markdown(&harness), "## Call times");
    // …and a table goes below the cursor's line as a block of its own.
    harness.key_press(egui::Key::End);
    harness.step();
    click_button(&mut harness, "Table");
    assert_eq!(
        draft_markdown(&harness),
        "## Call times\n\n| Column 1 | Column 2 |\n| --- | --- |\n| Cell | Cell |"
    );
    // Typing replaces the selected "Column 1".
    harness.get_by_label("Markdown").type_text("Role");
    steps(&mut harness, 2);
    assert!(draft_markdown(&harness).contains("| Role | Column 2 |"));
    assert!(harness.query_by_label_contains("Unsaved changes").is_some());
    harness.check_accessibility();

    // Ctrl+S saves.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    step_until(&mut harness, "the document to be saved", |h| {
        h.state()
            .docs()
            .draft()
            .is_some_and(|d| d.meta.is_some() && !d.is_dirty())
    });
    let doc_id = meta(&harness).id;
    let (status, stored) = get_doc(&harness, &doc_id);
    assert_eq!(status, 200);
    let content = stored["doc"]["content"].as_str().unwrap_or_default();
    assert!(
        content.contains("<h2>Call times</h2>") && content.contains("<th>Role</th>"),
        "the service holds the heading and the table: {content}"
    );
    assert_eq!(
        harness.state().docs().list.docs[0].id,
        doc_id,
        "newest first"
    );

    // Reopened from the service (after another document), the table is back.
    harness
        .query_all_by_role_and_label(Role::Button, "New document")
        .next()
        .expect("New document")
        .click_accesskit();
    steps(&mut harness, 2);
    assert!(
        harness
            .state()
            .docs()
            .draft()
            .is_some_and(|d| d.meta.is_none())
    );
    open_doc(&mut harness, "Harbour call sheet");
    let reopened = draft_markdown(&harness);
    assert!(reopened.starts_with("## Call times"), "{reopened}");
    assert!(
        reopened.contains("| Role") && reopened.contains("| Cell"),
        "the table is back in the editor: {reopened}"
    );

    // Share: the popover's switch, then the link is copied through the app's copy path.
    click_button(&mut harness, "Share");
    harness
        .get_by_role_and_label(Role::CheckBox, "Shared with a link")
        .click_accesskit();
    step_until(&mut harness, "the document to be shared", |h| {
        h.state()
            .docs()
            .draft()
            .and_then(|d| d.meta.as_ref())
            .is_some_and(|m| m.is_shared && m.share_url.is_some())
    });
    steps(&mut harness, 2);
    let share_url = meta(&harness).share_url.expect("share url");
    assert!(share_url.contains("/share/docs/"), "{share_url}");
    assert!(
        harness
            .query_by_label_contains("This link works only on this computer")
            .is_some(),
        "a link of the sandbox inside the studio says where it works"
    );
    click_button(&mut harness, "Copy link");
    assert_eq!(harness.state().last_copied(), Some(share_url.as_str()));
    assert!(
        harness
            .state()
            .toast_texts()
            .iter()
            .any(|t| t == "Share link copied to the clipboard"),
        "{:?}",
        harness.state().toast_texts()
    );
    let (status, page) = http(reqwest::Method::GET, &share_url, None, None);
    assert_eq!(status, 200, "the share page answers without a key");
    assert!(page.contains("Call times"), "{page}");
    assert!(
        harness.state().docs().list.docs[0].is_shared,
        "the list shows the Shared badge"
    );

    harness
        .get_by_role_and_label(Role::CheckBox, "Anyone with the link can edit")
        .click_accesskit();
    step_until(&mut harness, "link editing to be allowed", |h| {
        h.state()
            .docs()
            .draft()
            .and_then(|d| d.meta.as_ref())
            .is_some_and(|m| m.is_editable_by_link)
    });
    steps(&mut harness, 2);
    assert_eq!(
        meta(&harness).share_url.as_deref(),
        Some(share_url.as_str()),
        "the link is stable"
    );

    click_button(&mut harness, "Unshare");
    step_until(&mut harness, "the document to be unshared", |h| {
        h.state()
            .docs()
            .draft()
            .and_then(|d| d.meta.as_ref())
            .is_some_and(|m| !m.is_shared)
    });
    let unshared = meta(&harness);
    assert_eq!(unshared.share_url, None);
    assert!(!unshared.is_editable_by_link);
    let (status, _) = http(reqwest::Method::GET, &share_url, None, None);
    assert_eq!(status, 404, "the page is gone once unshared");
}

#[test]
fn delete_is_sent_only_when_undo_is_no_longer_offered() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = open_docs(&dir);
    let kept = create_doc(&harness, "Keep me");
    let dropped = create_doc(&harness, "Drop me");
    let quit_dropped = create_doc(&harness, "Drop on quit");
    reload_list(&mut harness);
    assert_eq!(harness.state().docs().list.docs.len(), 3);

    // Delete, then Undo: nothing reaches the service.
    open_doc(&mut harness, "Keep me");
    click_button(&mut harness, "Delete");
    assert!(
        harness
            .state()
            .docs()
            .list
            .docs
            .iter()
            .all(|d| d.id != kept),
        "hidden at once"
    );
    assert!(matches!(harness.state().docs().editor, EditorState::Empty));
    assert!(
        harness
            .state()
            .toast_texts()
            .iter()
            .any(|t| t == "Deleted “Keep me”")
    );
    // A new toast's first frame only sizes it; its button is there on the next.
    harness.step();
    click_button(&mut harness, "Undo");
    assert!(
        harness
            .state()
            .docs()
            .list
            .docs
            .iter()
            .any(|d| d.id == kept)
    );
    assert!(
        harness
            .state()
            .docs()
            .draft()
            .is_some_and(|d| d.title == "Keep me"),
        "the document is open again"
    );
    // Long past the toast's lifetime: still nothing sent.
    steps(&mut harness, 40);
    assert!(harness.state().docs().pending_delete_ids().is_empty());
    assert_eq!(get_doc(&harness, &kept).0, 200, "Undo sent nothing");

    // Delete without Undo: sent when the toast's lifetime ends (shortened here).
    harness.state_mut().set_doc_undo_window_secs(2.0);
    open_doc(&mut harness, "Drop me");
    click_button(&mut harness, "Delete");
    assert_eq!(
        harness.state().docs().pending_delete_ids(),
        vec![dropped.clone()]
    );
    assert_eq!(
        get_doc(&harness, &dropped).0,
        200,
        "not sent while Undo shows"
    );
    step_until(&mut harness, "the delete to reach the service", |h| {
        get_doc(h, &dropped).0 == 404
    });
    reload_list(&mut harness);
    let ids: Vec<String> = harness
        .state()
        .docs()
        .list
        .docs
        .iter()
        .map(|d| d.id.clone())
        .collect();
    assert!(!ids.contains(&dropped) && ids.contains(&kept), "{ids:?}");

    // A delete still offering Undo when the studio quits is sent on the way out.
    harness.state_mut().set_doc_undo_window_secs(600.0);
    open_doc(&mut harness, "Drop on quit");
    click_button(&mut harness, "Delete");
    assert_eq!(get_doc(&harness, &quit_dropped).0, 200);
    eframe::App::on_exit(harness.state_mut(), None);
    drop(harness);
    // The same data folder, a new studio session: the service no longer has it.
    let session = Session::open_with(
        AppPaths::under(dir.path()),
        SessionOptions {
            sandbox_speed: 20.0,
            use_os_keychain: false,
        },
        Arc::new(|| {}),
    );
    let sandbox = session.local_sandbox().expect("the sandbox again");
    let (status, _) = http(
        reqwest::Method::GET,
        &format!("{}/v1/docs/{quit_dropped}", sandbox.base_url()),
        Some(sandbox.api_key()),
        None,
    );
    assert_eq!(status, 404, "the pending delete was sent when quitting");
    let (status, _) = http(
        reqwest::Method::GET,
        &format!("{}/v1/docs/{kept}", sandbox.base_url()),
        Some(sandbox.api_key()),
        None,
    );
    assert_eq!(status, 200);
}

#[test]
fn unkept_content_is_named_before_saving_and_unsaved_edits_are_asked_about() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = open_docs(&dir);
    harness
        .query_all_by_role_and_label(Role::Button, "New document")
        .next()
        .expect("New document")
        .click_accesskit();
    steps(&mut harness, 2);
    type_markdown(&mut harness, "Setup:\n\n```\ncargo run --release\n```\n");
    assert!(
        harness
            .query_by_label_contains("Not kept by the service: code blocks")
            .is_some(),
        "the notice names the code block before saving"
    );
    assert_eq!(
        harness
            .state()
            .docs()
            .draft()
            .map(|d| d.unsupported.clone()),
        Some(vec!["code blocks".to_owned()])
    );

    // Saving without a title is refused at the field; nothing is sent.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    steps(&mut harness, 2);
    assert!(
        harness
            .query_by_label_contains("Give the document a title")
            .is_some()
    );
    assert!(!harness.state().docs().is_saving());

    // Leaving with unsaved edits asks: Cancel stays, Discard goes.
    click_rail_with_unsaved_edits(&mut harness, "Create");
    assert_eq!(harness.state().view(), View::Docs);
    assert!(harness.query_by_label_contains("Save changes to").is_some());
    click_button(&mut harness, "Cancel");
    assert_eq!(harness.state().view(), View::Docs);
    assert!(harness.state().docs().has_unsaved_changes(), "edits kept");

    // Saving anyway keeps the text without the code block's formatting.
    harness.get_by_label("Document title").click();
    harness.step();
    harness
        .get_by_label("Document title")
        .type_text("Build notes");
    steps(&mut harness, 2);
    click_rail_with_unsaved_edits(&mut harness, "Create");
    click_button(&mut harness, "Save changes");
    step_until(
        &mut harness,
        "the save the dialog asked for, then Create",
        |h| h.state().view() == View::Create,
    );
    let docs = harness.state().docs();
    let saved = docs.draft().and_then(|d| d.meta.clone()).expect("saved");
    assert!(!docs.has_unsaved_changes());
    let (_, stored) = get_doc(&harness, &saved.id);
    let content = stored["doc"]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        content.contains("cargo run --release")
            && !content.contains("<pre")
            && !content.contains("<code"),
        "{content}"
    );

    // Back in Docs, a new edit then Discard: the text returns to what was saved.
    click_button(&mut harness, "Docs");
    type_markdown(&mut harness, "more");
    click_rail_with_unsaved_edits(&mut harness, "Library");
    click_button(&mut harness, "Discard changes");
    assert_eq!(harness.state().view(), View::Library);
    assert!(!harness.state().docs().has_unsaved_changes());

    // The shortcuts act on the editor's selection while it has the focus.
    click_button(&mut harness, "Docs");
    harness.get_by_label("Markdown").click();
    harness.step();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.step();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::I);
    steps(&mut harness, 2);
    let markdown = draft_markdown(&harness);
    assert!(
        markdown.starts_with('*') && markdown.trim_end().ends_with('*'),
        "{markdown:?}"
    );
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::I);
    steps(&mut harness, 2);
    assert!(
        !harness.state().docs().has_unsaved_changes(),
        "toggled back"
    );
}

/// The width `text` takes in the body font (regular face).
fn regular_width(harness: &Studio, text: &str) -> f32 {
    harness.ctx.fonts_mut(|fonts| {
        fonts
            .layout_no_wrap(
                text.to_owned(),
                egui::FontId::proportional(framewright::ui::tokens::TEXT_BODY),
                egui::Color32::WHITE,
            )
            .rect
            .width()
    })
}

/// The preview's run of text that reads exactly `text`.
fn preview_run(harness: &Studio, text: &str) -> egui::Rect {
    harness
        .query_all_by_label(text)
        .map(|node| node.rect())
        // The preview is the right-hand pane.
        .max_by(|a, b| a.min.x.total_cmp(&b.min.x))
        .unwrap_or_else(|| panic!("no “{text}” in the preview"))
}

#[test]
fn bold_headings_and_table_headers_are_set_in_the_bold_face() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = open_docs(&dir);
    harness
        .query_all_by_role_and_label(Role::Button, "New document")
        .next()
        .expect("New document")
        .click_accesskit();
    steps(&mut harness, 2);
    type_markdown(
        &mut harness,
        "Call at **quarter past six** sharp\n\nMeet at the harbour\n\n| Crew role | Name |\n| --- | --- |\n| Lighting crew | Ana |\n",
    );
    steps(&mut harness, 3);
    let bold = preview_run(&harness, "quarter past six");
    let regular = preview_run(&harness, "Meet at the harbour");
    assert!(
        bold.width() > regular_width(&harness, "quarter past six") * 1.02,
        "the bold run ({} pt) is wider than the same words in the regular face ({} pt)",
        bold.width(),
        regular_width(&harness, "quarter past six")
    );
    assert!(
        (regular.width() - regular_width(&harness, "Meet at the harbour")).abs() < 1.0,
        "plain text stays regular"
    );
    // The table's header is bold, its cells are not.
    let header = preview_run(&harness, "Crew role");
    let cell = preview_run(&harness, "Lighting crew");
    assert!(
        header.width() > regular_width(&harness, "Crew role") * 1.02,
        "the header cell ({} pt) is wider than in the regular face ({} pt)",
        header.width(),
        regular_width(&harness, "Crew role")
    );
    assert!(
        (cell.width() - regular_width(&harness, "Lighting crew")).abs() < 1.0,
        "a cell ({} pt) is regular ({} pt)",
        cell.width(),
        regular_width(&harness, "Lighting crew")
    );
    harness.check_accessibility();
}
