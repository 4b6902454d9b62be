//! The media-library client routes (document 3) against a real sandbox, quirks included:
//! the -1 total after page 1, has_next pagination, folder order, the atomic bulk move,
//! idempotent permanent delete, favourites cleared for every member, platform-shape 400s.

use crate::service_support;
use service_support::{LocalService as Env, client, client_with_key};

fn env() -> Env {
    service_support::local_service(20.0)
}

use framewright::api::media::{
    BulkAction, FolderFields, MediaCategory, MediaItem, MediaQuery, MediaSort, MediaSourceType,
    MediaTypeFilter,
};
use framewright::api::{ApiClient, ApiError};
use std::collections::HashSet;

fn in_project(project_id: &str) -> MediaQuery {
    MediaQuery {
        project_id: Some(project_id.to_owned()),
        ..MediaQuery::default()
    }
}

async fn seeded_project(env: &Env, client: &ApiClient, name: &str, count: usize) -> String {
    let project = client.create_project(name).await.expect("project");
    assert_eq!(env.sandbox.seed_media(count, Some(&project.id)), count);
    project.id
}

fn ids(items: &[MediaItem]) -> Vec<String> {
    items.iter().map(|i| i.id.clone()).collect()
}

fn assert_status(error: &ApiError, status: u16) {
    assert_eq!(error.status(), Some(status), "{error:?}");
}

#[tokio::test]
async fn pages_follow_has_next_and_the_total_is_only_known_on_page_one() {
    let env = env();
    let client = client(&env);
    let project = seeded_project(&env, &client, "Paging", 120).await;
    let query = in_project(&project);

    let first = client.list_media(&query, 1, 50).await.expect("page 1");
    assert_eq!(first.items.len(), 50);
    assert_eq!(first.pagination.known_total(), Some(120));
    assert_eq!(first.pagination.has_next, Some(true));
    let second = client.list_media(&query, 2, 50).await.expect("page 2");
    assert_eq!(second.items.len(), 50);
    assert_eq!(second.pagination.total_items, Some(-1.0));
    assert_eq!(second.pagination.known_total(), None);
    assert_eq!(second.pagination.has_next, Some(true));
    let third = client.list_media(&query, 3, 50).await.expect("page 3");
    assert_eq!(third.items.len(), 20);
    assert_eq!(third.pagination.has_next, Some(false));

    let all = client
        .list_all_media(&query, 50, 10_000)
        .await
        .expect("all");
    assert_eq!(all.len(), 120);
    assert_eq!(ids(&all).into_iter().collect::<HashSet<_>>().len(), 120);
    assert_eq!(ids(&all[..50]), ids(&first.items));
    let capped = client.list_all_media(&query, 50, 70).await.expect("capped");
    assert_eq!(capped.len(), 70);
    // page_size above 200 is capped, not an error.
    let big = client.list_media(&query, 1, 1000).await.expect("big page");
    assert_eq!(big.items.len(), 120);
}

#[tokio::test]
async fn every_filter_value_is_spelled_the_way_the_service_accepts() {
    let env = env();
    let client = client(&env);
    let project = seeded_project(&env, &client, "Filters", 30).await;
    for media_type in [
        MediaTypeFilter::All,
        MediaTypeFilter::Image,
        MediaTypeFilter::Video,
        MediaTypeFilter::Audio,
    ] {
        for category in [
            MediaCategory::All,
            MediaCategory::Ai,
            MediaCategory::Uploaded,
            MediaCategory::Edited,
            MediaCategory::Favorites,
            MediaCategory::TrainingLab,
        ] {
            let query = MediaQuery {
                media_type,
                category,
                ..in_project(&project)
            };
            let page = client
                .list_media(&query, 1, 200)
                .await
                .unwrap_or_else(|e| panic!("{media_type:?}/{category:?}: {e}"));
            if media_type != MediaTypeFilter::All {
                assert!(
                    page.items.iter().all(|i| i.kind() == media_type.as_str()),
                    "{media_type:?}"
                );
            }
        }
    }
    for sort in [
        MediaSort::CreatedDesc,
        MediaSort::CreatedAsc,
        MediaSort::NameAsc,
        MediaSort::NameDesc,
    ] {
        let query = MediaQuery {
            sort,
            ..in_project(&project)
        };
        client.list_media(&query, 1, 10).await.expect("sort");
    }
    for source_type in [
        MediaSourceType::Uploaded,
        MediaSourceType::Generated,
        MediaSourceType::ChatGenerated,
    ] {
        let query = MediaQuery {
            source_type: Some(source_type),
            ..in_project(&project)
        };
        client.list_media(&query, 1, 10).await.expect("source type");
    }
    let newest_first = client
        .list_media(&in_project(&project), 1, 30)
        .await
        .expect("default");
    let oldest_first = client
        .list_media(
            &MediaQuery {
                sort: MediaSort::CreatedAsc,
                ..in_project(&project)
            },
            1,
            30,
        )
        .await
        .expect("ascending");
    let mut reversed = ids(&oldest_first.items);
    reversed.reverse();
    assert_eq!(ids(&newest_first.items), reversed);
    let search = MediaQuery {
        search: Some(
            newest_first.items[0]
                .prompt_text()
                .unwrap_or("seed")
                .to_owned(),
        ),
        ..in_project(&project)
    };
    assert!(
        !client
            .list_media(&search, 1, 50)
            .await
            .expect("search")
            .items
            .is_empty()
    );
    let stats = client.media_stats(Some(&project)).await.expect("stats");
    assert_eq!(stats.total, Some(30));
    let typed = stats.images.unwrap_or(0) + stats.videos.unwrap_or(0) + stats.audio.unwrap_or(0);
    assert!(typed <= 30);
    assert!(stats.total_size_bytes.unwrap_or(0) > 0);
}

#[tokio::test]
async fn folders_list_in_folder_order_and_report_adds_and_removes() {
    let env = env();
    let client = client(&env);
    let project = seeded_project(&env, &client, "Folders", 5).await;
    let items = client
        .list_media(&in_project(&project), 1, 50)
        .await
        .expect("items")
        .items;
    let folder = client
        .create_folder(&FolderFields {
            name: Some("  Picks ".into()),
            color: Some("#FF8800".into()),
            ..FolderFields::default()
        })
        .await
        .expect("create");
    assert_eq!(folder.name, "Picks");
    assert_eq!(folder.project_id, None);
    // Added one by one: folder order is most recently added first.
    for item in &items[..3] {
        let outcome = client
            .add_to_folder(&folder.id, std::slice::from_ref(&item.id))
            .await
            .expect("add");
        assert_eq!(outcome.added, Some(1));
    }
    let again = client
        .add_to_folder(&folder.id, &ids(&items[..1]))
        .await
        .expect("re-add");
    assert_eq!((again.added, again.skipped), (Some(0), Some(1)));
    let contents = client
        .list_media(
            &MediaQuery {
                folder_id: Some(folder.id.clone()),
                sort: MediaSort::NameAsc, // ignored with folder_id
                media_type: MediaTypeFilter::Video,
                ..MediaQuery::default()
            },
            1,
            50,
        )
        .await
        .expect("folder contents");
    let mut expected = ids(&items[..3]);
    expected.reverse();
    assert_eq!(ids(&contents.items), expected);
    let listed = client.folders().await.expect("folders");
    let listed = listed.iter().find(|f| f.id == folder.id).expect("listed");
    assert_eq!(listed.item_count, Some(3));
    assert_eq!(listed.is_owner, Some(true));

    let removed = client
        .remove_from_folder(&folder.id, &ids(&items[..2]))
        .await
        .expect("remove");
    assert_eq!(removed, 2);
    let renamed = client
        .update_folder(
            &folder.id,
            &FolderFields {
                name: Some("Keepers".into()),
                ..FolderFields::default()
            },
        )
        .await
        .expect("rename");
    assert_eq!(renamed.name, "Keepers");
    assert_eq!(renamed.color.as_deref(), Some("#FF8800"));

    let ana_id = env
        .sandbox
        .user_id_for_email("ana@studio.test")
        .expect("ana");
    let shared = client
        .share_folder(
            &folder.id,
            &[
                "Ana@Studio.test".to_owned(),
                "nobody@nowhere.test".to_owned(),
            ],
        )
        .await
        .expect("share");
    assert!(shared.shared_with_user_ids.contains(&ana_id), "{shared:?}");
    assert_eq!(shared.not_found, vec!["nobody@nowhere.test".to_owned()]);
    client
        .unshare_folder(&folder.id, &ana_id)
        .await
        .expect("unshare");
    client
        .unshare_folder(&folder.id, &ana_id)
        .await
        .expect("unshare is idempotent");

    let target = client.create_project("Target").await.expect("target");
    let moved = client
        .move_folder_contents(&folder.id, &target.id)
        .await
        .expect("move contents");
    assert_eq!(moved, 1);
    client.delete_folder(&folder.id).await.expect("delete");
    assert!(
        client
            .folders()
            .await
            .expect("folders")
            .iter()
            .all(|f| f.id != folder.id)
    );
    // The items stay in the library.
    let still = client.list_all_media(&in_project(&project), 50, 100).await;
    assert_eq!(still.expect("items").len(), 4);
}

#[tokio::test]
async fn bulk_move_is_atomic_and_refuses_more_than_a_thousand_ids_unsent() {
    let env = env();
    let client = client(&env);
    let source = seeded_project(&env, &client, "Source", 6).await;
    let target = client.create_project("Target").await.expect("target");
    let items = client
        .list_all_media(&in_project(&source), 50, 100)
        .await
        .expect("items");
    let trashed = items[0].id.clone();
    client.trash(&trashed).await.expect("trash");
    let mut selection = ids(&items[1..4]);
    selection.push(trashed.clone());
    let error = client
        .bulk_move(&selection, &target.id)
        .await
        .expect_err("a trashed id makes the whole move fail");
    assert_status(&error, 403);
    let left = client
        .list_all_media(&in_project(&source), 50, 100)
        .await
        .expect("source items");
    assert_eq!(left.len(), 5, "nothing moved");
    assert!(
        client
            .list_all_media(&in_project(&target.id), 50, 100)
            .await
            .expect("target items")
            .is_empty()
    );
    let moved = client
        .bulk_move(&ids(&items[1..4]), &target.id)
        .await
        .expect("move");
    assert_eq!(moved, 3);
    let too_many: Vec<String> = (0..1001).map(|n| format!("{n:024x}")).collect();
    let error = client
        .bulk_move(&too_many, &target.id)
        .await
        .expect_err("refused");
    assert!(matches!(error, ApiError::Invalid(_)), "{error:?}");
    // The single-item route too.
    client
        .move_to_project(&items[4].id, &target.id)
        .await
        .expect("single move");
    assert_eq!(
        client
            .list_all_media(&in_project(&target.id), 50, 100)
            .await
            .expect("target")
            .len(),
        4
    );
}

#[tokio::test]
async fn trash_restore_and_idempotent_permanent_delete() {
    let env = env();
    let client = client(&env);
    let project = seeded_project(&env, &client, "Trash", 4).await;
    let items = client
        .list_all_media(&in_project(&project), 50, 100)
        .await
        .expect("items");
    let id = items[0].id.clone();
    client.trash(&id).await.expect("trash");
    let trash_query = MediaQuery {
        include_deleted: true,
        ..in_project(&project)
    };
    let trash = client.list_media(&trash_query, 1, 50).await.expect("trash");
    assert_eq!(ids(&trash.items), vec![id.clone()]);
    assert_status(&client.media_item(&id).await.expect_err("trashed"), 404);
    client.restore(&id).await.expect("restore");
    assert_status(&client.restore(&id).await.expect_err("live"), 404);
    let detail = client.media_item(&id).await.expect("detail");
    assert_eq!(detail.id, id);
    assert!(!detail.url.is_empty());
    assert_status(&client.media_item("not-an-id").await.expect_err("bad"), 400);

    client.delete_forever(&id).await.expect("delete forever");
    client
        .delete_forever(&id)
        .await
        .expect("deleting again is still a success");

    let rest = ids(&items[1..]);
    let trashed = client
        .bulk(BulkAction::Trash, &rest)
        .await
        .expect("bulk trash");
    assert_eq!(trashed.affected, 3);
    let restored = client
        .bulk(BulkAction::Restore, &rest)
        .await
        .expect("bulk restore");
    assert_eq!((restored.affected, restored.not_affected), (3, Some(0)));
    let mut with_gone = rest.clone();
    with_gone.push(id.clone());
    let gone = client
        .bulk(BulkAction::DeleteForever, &with_gone)
        .await
        .expect("bulk permanent");
    assert_eq!((gone.affected, gone.not_affected), (3, Some(1)));
    assert!(
        client
            .list_all_media(&in_project(&project), 50, 100)
            .await
            .expect("empty")
            .is_empty()
    );
    assert_eq!(
        client
            .bulk(BulkAction::Trash, &[])
            .await
            .expect("nothing to do")
            .affected,
        0
    );
}

#[tokio::test]
async fn a_members_unfavourite_clears_the_star_for_everyone() {
    let env = env();
    let client = client(&env);
    let project = seeded_project(&env, &client, "Shared", 3).await;
    assert!(env.sandbox.add_project_member(&project, "ana@studio.test"));
    let ana_key = env
        .sandbox
        .create_api_key_for_user("ana@studio.test", false)
        .expect("ana's key");
    let ana = client_with_key(&env, &ana_key);
    let items = client
        .list_all_media(&in_project(&project), 50, 100)
        .await
        .expect("items");
    let id = items[0].id.clone();
    assert!(client.set_favorite(&id, true).await.expect("star"));
    assert!(client.set_favorite(&id, true).await.expect("idempotent"));
    let favorites = MediaQuery {
        category: MediaCategory::Favorites,
        ..in_project(&project)
    };
    let starred = client.list_media(&favorites, 1, 50).await.expect("favs");
    assert_eq!(ids(&starred.items), vec![id.clone()]);
    assert_eq!(starred.items[0].is_favorited, Some(true));
    // Ana sees the star (project-level) and removes it for everybody.
    let seen_by_ana = ana.list_media(&favorites, 1, 50).await.expect("ana favs");
    assert_eq!(ids(&seen_by_ana.items), vec![id.clone()]);
    assert!(!ana.set_favorite(&id, false).await.expect("unstar"));
    let after = client.list_media(&favorites, 1, 50).await.expect("favs");
    assert!(after.items.is_empty(), "{:?}", ids(&after.items));
    let item = client
        .list_all_media(&in_project(&project), 50, 100)
        .await
        .expect("items")
        .into_iter()
        .find(|i| i.id == id)
        .expect("item");
    assert_eq!(item.is_favorited, Some(false));
    // Owner-only routes stay closed to the member.
    assert_status(&ana.trash(&id).await.expect_err("not owner"), 404);
}

#[tokio::test]
async fn platform_shape_400s_decode_with_their_code() {
    let env = env();
    let client = client(&env);
    let error = client
        .create_folder(&FolderFields {
            name: Some("Icons".into()),
            icon: Some("x".repeat(51)),
            ..FolderFields::default()
        })
        .await
        .expect_err("icon too long");
    assert_status(&error, 400);
    assert_eq!(error.code(), Some("VALIDATION_ERROR"));
    let folder = client
        .create_folder(&FolderFields {
            name: Some("Ids".into()),
            ..FolderFields::default()
        })
        .await
        .expect("folder");
    assert_eq!(folder.color.as_deref(), Some("#3B82F6"));
    assert_eq!(folder.icon.as_deref(), Some("folder"));
    let error = client
        .remove_from_folder(&folder.id, &["nope".to_owned()])
        .await
        .expect_err("malformed id");
    assert_status(&error, 400);
    assert_eq!(error.code(), Some("INVALID_ID_FORMAT"));
    let error = client
        .list_media(&in_project("not-an-object-id"), 1, 50)
        .await
        .expect_err("malformed project");
    assert_status(&error, 400);
    let error = client
        .create_folder(&FolderFields {
            name: Some("Bad colour".into()),
            color: Some("blue".into()),
            ..FolderFields::default()
        })
        .await
        .expect_err("non-hex colour");
    assert_status(&error, 400);
    let ticket = client.upload_ticket().await.expect("ticket");
    assert!(!ticket.token.is_empty());
    assert!(!ticket.upload_url.is_empty());
}
