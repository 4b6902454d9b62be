//! The palette and cinematic-preset routes of the client against a real sandbox on
//! loopback (contract documents 1 and 2).

use crate::service_support;
use service_support::{LocalService as Env, client, client_with_key};

fn env() -> Env {
    service_support::local_service(20.0)
}

use framewright::api::palettes::PaletteField;
use framewright::api::{
    ApiClient, ApiError, ColorSpec, GenerationKind, GenerationRequest, GenerationSpec, JobState,
    NewPalette, PaletteUpdate, PresetsFetch,
};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

fn color(hex: &str, name: &str, role: &str) -> ColorSpec {
    ColorSpec {
        hex: hex.into(),
        name: name.into(),
        role: role.into(),
    }
}

fn palette(name: &str) -> NewPalette {
    NewPalette {
        name: name.into(),
        colors: vec![
            color("#1F3A5F", "Harbour blue", "dominant"),
            color("#E0A458", "", "accent"),
        ],
        ..Default::default()
    }
}

async fn project(client: &ApiClient, name: &str) -> String {
    client.create_project(name).await.expect("project").id
}

fn status_of(error: &ApiError) -> Option<u16> {
    error.status()
}

#[tokio::test]
async fn list_clamps_paging_and_shows_the_organisation_palette() {
    let env = env();
    let client = client(&env);
    let page = client.list_palettes(None, 0, 500).await.expect("list");
    assert_eq!(page.pagination.page, Some(1), "page clamps to 1");
    assert_eq!(page.pagination.limit, Some(100), "limit caps at 100");
    let org: Vec<_> = page
        .palettes
        .iter()
        .filter(|p| p.is_organization())
        .collect();
    assert!(!org.is_empty(), "organisation palettes are listed");
    assert!(page.palettes.iter().all(|p| !p.is_active));
    for n in 0..3 {
        client
            .create_palette(&palette(&format!("P{n}")))
            .await
            .expect("create");
    }
    let small = client.list_palettes(None, 2, 1).await.expect("page 2");
    assert_eq!(small.palettes.len(), 1);
    assert_eq!(small.pagination.limit, Some(1));
    let total = small.pagination.total.expect("total");
    assert!(total >= 4, "three personal + organisation: {total}");
    assert_eq!(small.pagination.pages, Some(total));
    // Newest first.
    let first = client.list_palettes(None, 1, 1).await.expect("page 1");
    assert_eq!(first.palettes[0].name, "P2");
}

#[tokio::test]
async fn every_page_of_palettes_is_read() {
    let env = env();
    let client = client(&env);
    for n in 0..5 {
        client
            .create_palette(&palette(&format!("Page test {n}")))
            .await
            .expect("create");
    }
    let first = client.list_palettes(None, 1, 2).await.expect("page 1");
    let total = first.pagination.total.expect("total") as usize;
    assert!(total >= 6, "five personal + organisation: {total}");
    // Two per page: every palette arrives once, newest first.
    let all = client.list_all_palettes(None, 2).await.expect("all pages");
    assert_eq!(all.palettes.len(), total);
    let mut ids: Vec<&str> = all.palettes.iter().map(|p| p.id.as_str()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), total, "no palette twice");
    assert_eq!(all.palettes[0].name, "Page test 4");
}

#[tokio::test]
async fn create_is_validated_strictly_and_names_are_filled() {
    let env = env();
    let client = client(&env);
    let created = client
        .create_palette(&palette("Dusk"))
        .await
        .expect("create");
    assert_eq!(created.content_scope, "personal");
    assert!(created.source_image_urls.is_empty());
    assert_eq!(created.colors[0].name, "Harbour blue");
    assert!(
        !created.colors[1].name.is_empty(),
        "an empty name gets the nearest built-in name"
    );

    let mut bad_hex = palette("Bad");
    bad_hex.colors[0].hex = "#12345".into();
    let mut too_many = palette("Many");
    too_many.colors = vec![color("#000000", "", "accent"); 11];
    let mut six_sources = palette("Sources");
    six_sources.source_image_urls = (0..6)
        .map(|i| format!("https://example.com/{i}.png"))
        .collect();
    let mut blank_name = palette("x");
    blank_name.name = "   ".into();
    for body in [bad_hex, too_many, six_sources, blank_name] {
        let error = client
            .create_palette(&body)
            .await
            .expect_err("refused by the validator");
        assert_eq!(status_of(&error), Some(400), "{error}");
        let text = error.to_string();
        assert!(text.starts_with("Validation error"), "{text}");
        assert!(
            text.len() > "Validation error (400)".len(),
            "details: {text}"
        );
    }
    // The client-side checks agree before anything is sent.
    let issues =
        framewright::api::palettes::check_palette("ok", &[color("#12345", "", "accent")], &[]);
    assert_eq!(issues[0].field, PaletteField::ColorHex(0));
}

#[tokio::test]
async fn is_active_follows_the_project_rules() {
    let env = env();
    let client = client(&env);
    let project_id = project(&client, "Graded").await;

    let mut body = palette("Graded by default");
    body.project_id = Some(project_id.clone());
    let active = client
        .create_palette(&body)
        .await
        .expect("create + activate");
    assert!(
        active.is_active,
        "is_active defaults to true with projectId"
    );

    let mut no_project = palette("No project");
    no_project.is_active = Some(true);
    let inactive = client.create_palette(&no_project).await.expect("create");
    assert!(
        !inactive.is_active,
        "is_active without projectId activates nothing"
    );

    let mut suppressed = palette("Suppressed");
    suppressed.is_active = Some(false);
    suppressed.project_id = Some("000000000000000000000000".into());
    let saved = client
        .create_palette(&suppressed)
        .await
        .expect("is_active false skips the project check");
    assert!(!saved.is_active);

    let mut forbidden = palette("Forbidden");
    forbidden.project_id = Some("000000000000000000000000".into());
    let error = client
        .create_palette(&forbidden)
        .await
        .expect_err("unknown project while activating");
    assert_eq!(status_of(&error), Some(403));

    let listed = client
        .list_palettes(Some(&project_id), 1, 100)
        .await
        .expect("list");
    let marked: Vec<_> = listed.palettes.iter().filter(|p| p.is_active).collect();
    assert_eq!(marked.len(), 1);
    assert_eq!(marked[0].id, active.id);
    let unscoped = client.list_palettes(None, 1, 100).await.expect("list");
    assert!(unscoped.palettes.iter().all(|p| !p.is_active));
    let unreadable = client
        .list_palettes(Some("not-a-project"), 1, 100)
        .await
        .expect("an unreadable projectId is ignored");
    assert!(unreadable.palettes.iter().all(|p| !p.is_active));

    // Update: owner only, activation unaffected, legacy is_active false.
    let updated = client
        .update_palette(
            &active.id,
            &PaletteUpdate {
                name: Some("Renamed".into()),
                colors: Some(vec![color("#102030", "Ink", "background")]),
                source_image_urls: None,
            },
        )
        .await
        .expect("update");
    assert_eq!(updated.name, "Renamed");
    assert_eq!(updated.colors.len(), 1);
    assert!(!updated.is_active, "update reads the legacy field");
    let still = client
        .list_palettes(Some(&project_id), 1, 100)
        .await
        .expect("list");
    assert!(
        still
            .palettes
            .iter()
            .any(|p| p.id == active.id && p.is_active)
    );
}

#[tokio::test]
async fn activate_deactivate_and_delete_move_the_grade() {
    let env = env();
    let client = client(&env);
    let project_id = project(&client, "Moves").await;
    let first = client
        .create_palette(&palette("First"))
        .await
        .expect("first");
    let second = client
        .create_palette(&palette("Second"))
        .await
        .expect("second");
    let active_id = |palettes: &[framewright::api::ColorPalette]| {
        palettes
            .iter()
            .filter(|p| p.is_active)
            .map(|p| p.id.clone())
            .collect::<Vec<_>>()
    };

    let activated = client
        .activate_palette(&first.id, &project_id)
        .await
        .expect("activate");
    assert!(activated.is_active);
    client
        .activate_palette(&second.id, &project_id)
        .await
        .expect("activate replaces");
    let list = client
        .list_palettes(Some(&project_id), 1, 100)
        .await
        .unwrap();
    assert_eq!(active_id(&list.palettes), vec![second.id.clone()]);

    client
        .deactivate_palette(&project_id)
        .await
        .expect("deactivate");
    let list = client
        .list_palettes(Some(&project_id), 1, 100)
        .await
        .unwrap();
    assert!(active_id(&list.palettes).is_empty());
    assert!(
        list.palettes.iter().any(|p| p.id == second.id),
        "the palette stays in the library"
    );

    client
        .activate_palette(&first.id, &project_id)
        .await
        .expect("activate again");
    client.delete_palette(&first.id).await.expect("delete");
    let list = client
        .list_palettes(Some(&project_id), 1, 100)
        .await
        .unwrap();
    assert!(
        active_id(&list.palettes).is_empty(),
        "delete clears the grade"
    );
    assert!(list.palettes.iter().all(|p| p.id != first.id));
    let again = client.delete_palette(&first.id).await.expect_err("gone");
    assert_eq!(status_of(&again), Some(404));
}

#[tokio::test]
async fn other_users_and_organisation_palettes_get_403_and_404() {
    let env = env();
    let owner = client(&env);
    let stranger_key = env
        .sandbox
        .create_api_key_for_user("ana@studio.test", false)
        .expect("second user");
    let stranger = client_with_key(&env, &stranger_key);
    let project_id = project(&owner, "Private").await;
    let mine = owner
        .create_palette(&palette("Mine"))
        .await
        .expect("create");

    let update = stranger
        .update_palette(
            &mine.id,
            &PaletteUpdate {
                name: Some("Theirs".into()),
                ..Default::default()
            },
        )
        .await
        .expect_err("not the owner");
    assert_eq!(status_of(&update), Some(404));
    let delete = stranger
        .delete_palette(&mine.id)
        .await
        .expect_err("not the owner");
    assert_eq!(status_of(&delete), Some(404));

    let theirs = stranger
        .create_palette(&palette("Theirs"))
        .await
        .expect("their own palette");
    let no_access = stranger
        .activate_palette(&theirs.id, &project_id)
        .await
        .expect_err("no edit permission on the project");
    assert_eq!(status_of(&no_access), Some(403));
    let deactivate = stranger
        .deactivate_palette(&project_id)
        .await
        .expect_err("no edit permission");
    assert_eq!(status_of(&deactivate), Some(403));

    let outsider = owner
        .activate_palette(&theirs.id, &project_id)
        .await
        .expect_err("palette owned by someone outside the project");
    assert_eq!(status_of(&outsider), Some(404));

    let org = owner
        .list_palettes(None, 1, 100)
        .await
        .unwrap()
        .palettes
        .into_iter()
        .find(|p| p.is_organization())
        .expect("organisation palette");
    for error in [
        owner
            .activate_palette(&org.id, &project_id)
            .await
            .expect_err("org activate"),
        owner.delete_palette(&org.id).await.expect_err("org delete"),
        owner
            .update_palette(
                &org.id,
                &PaletteUpdate {
                    name: Some("x".into()),
                    ..Default::default()
                },
            )
            .await
            .expect_err("org update"),
    ] {
        assert_eq!(status_of(&error), Some(404), "{error}");
    }
}

#[tokio::test]
async fn analyze_reads_an_uploaded_photo() {
    let env = env();
    let client = client(&env);
    let photo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/fixtures/photos/coffee.png");
    let uploaded = client.upload_file(&photo, None).await.expect("upload");
    let analyzed = client
        .analyze_palette(std::slice::from_ref(&uploaded.url))
        .await
        .expect("analyze");
    assert!((1..=6).contains(&analyzed.colors.len()), "{analyzed:?}");
    assert_eq!(analyzed.colors[0].role, "dominant");
    if analyzed.colors.len() > 1 {
        assert_eq!(analyzed.colors[1].role, "secondary");
    }
    assert!(
        analyzed
            .colors
            .iter()
            .all(|c| c.hex.len() == 7 && !c.name.is_empty())
    );
    assert!(!analyzed.name.is_empty());

    let none = client
        .analyze_palette(&[])
        .await
        .expect_err("refused before sending");
    assert!(matches!(none, ApiError::Invalid(_)));
    let unreachable = client
        .analyze_palette(&[format!("{}/files/nope.png", origin(&env))])
        .await
        .expect_err("nothing downloadable");
    assert_eq!(status_of(&unreachable), Some(400));
}

fn origin(env: &Env) -> String {
    env.sandbox.base_url().trim_end_matches("/api").to_owned()
}

#[tokio::test]
async fn presets_round_trip_their_etag() {
    let env = env();
    let client = client(&env);
    let PresetsFetch::Fresh { presets, etag } =
        client.cinematic_presets(None).await.expect("presets")
    else {
        panic!("the first fetch is fresh");
    };
    assert!(presets.contains_key("lighting"), "{:?}", presets.keys());
    assert!(!presets.contains_key("genre"), "genre was removed");
    for list in presets.values() {
        let orders: Vec<f64> = list.iter().filter_map(|p| p.sort_order).collect();
        assert!(
            orders.windows(2).all(|w| w[0] <= w[1]),
            "sorted by sort_order"
        );
    }
    let etag = etag.expect("an ETag");
    assert_eq!(
        client
            .cinematic_presets(Some(&etag))
            .await
            .expect("revalidate"),
        PresetsFetch::NotModified
    );
    assert!(matches!(
        client
            .cinematic_presets(Some("\"stale\""))
            .await
            .expect("stale tag"),
        PresetsFetch::Fresh { .. }
    ));
}

fn image_with_cinematic(cinematic: BTreeMap<String, Option<String>>) -> GenerationSpec {
    GenerationSpec {
        catalog: None,
        kind: GenerationKind::Image,
        request: GenerationRequest {
            prompt: "A quiet harbour at dawn".into(),
            cinematic: Some(cinematic),
            ..Default::default()
        },
        video: None,
        audio: None,
    }
}

#[tokio::test]
async fn cinematic_presets_are_checked_on_submit() {
    let env = env();
    let client = client(&env);
    let PresetsFetch::Fresh { presets, .. } = client.cinematic_presets(None).await.unwrap() else {
        panic!("fresh");
    };
    let lighting = presets["lighting"][0].clone();
    let other_dimension = presets
        .iter()
        .find(|(d, _)| d.as_str() != "lighting")
        .map(|(_, list)| list[0].id.clone())
        .expect("a second dimension");

    let mismatch = client
        .submit(&image_with_cinematic(BTreeMap::from([(
            "lighting".to_owned(),
            Some(other_dimension),
        )])))
        .await
        .expect_err("id from another dimension");
    assert_eq!(status_of(&mismatch), Some(400));
    let unknown = client
        .submit(&image_with_cinematic(BTreeMap::from([(
            "genre".to_owned(),
            Some(lighting.id.clone()),
        )])))
        .await
        .expect_err("unknown dimension");
    assert_eq!(status_of(&unknown), Some(400));

    let accepted = client
        .submit(&image_with_cinematic(BTreeMap::from([(
            "lighting".to_owned(),
            Some(lighting.id.clone()),
        )])))
        .await
        .expect("a valid preset");
    let id = accepted.generation_id.expect("handle");
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        let status = client.status(&id).await.expect("status");
        if status.state.is_terminal() {
            break status;
        }
        assert!(Instant::now() < deadline, "job never finished");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(status.state, JobState::Completed);
    let prompt_used = status
        .result
        .and_then(|r| r.prompt_used)
        .unwrap_or_default();
    assert!(
        prompt_used
            .to_lowercase()
            .contains(&lighting.name.to_lowercase()),
        "{prompt_used:?} mentions {}",
        lighting.name
    );
}
