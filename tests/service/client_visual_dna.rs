//! Visual DNA and moodboards through the client and the engine, against a real sandbox on
//! loopback: a Visual DNA made from two photos builds and becomes ready without being
//! asked again, is renamed, filed, unfiled and deleted; a built-in one cannot be deleted
//! and says why in words; the list reads every page; a moodboard made from local files
//! uploads them first.

use crate::service_support;
use service_support::{LocalService, client};

use framewright::api::moodboards::MoodboardFields;
use framewright::api::visual_dna::{DnaType, NewVisualDna, VisualDnaQuery, VisualDnaUpdate};
use framewright::engine::{
    Command, EngineConfig, EngineHandle, Event, MoodboardCommand, MoodboardEvent, VisualDnaCommand,
    VisualDnaEvent, error_in_words, start,
};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Building takes 10–30 s at speed 1: 0.5–1.5 s here.
const SPEED: f64 = 20.0;

fn photo(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/fixtures/photos")
        .join(name)
}

struct Env {
    engine: EngineHandle,
    _service: LocalService,
    _dir: tempfile::TempDir,
}

fn env() -> Env {
    let service = service_support::local_service(SPEED);
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = start(EngineConfig {
        base_url: service.sandbox.base_url().to_owned(),
        api_key: service.key.clone(),
        journal_path: dir.path().join("journal.sqlite3"),
        service_id: "visual-dna-test".to_owned(),
        cache_dir: dir.path().join("cache"),
        repaint: Arc::new(|| {}),
    })
    .expect("engine starts");
    Env {
        engine,
        _service: service,
        _dir: dir,
    }
}

impl Env {
    fn send(&self, command: Command) {
        self.engine.send(command).expect("engine takes the command");
    }

    /// The next Visual DNA event that `pick` accepts (others are skipped), within `secs`.
    fn next_dna<T>(&mut self, secs: u64, mut pick: impl FnMut(VisualDnaEvent) -> Option<T>) -> T {
        let deadline = Instant::now() + Duration::from_secs(secs);
        while Instant::now() < deadline {
            if let Some(Event::VisualDna(event)) =
                self.engine.recv_timeout(Duration::from_millis(200))
                && let Some(found) = pick(event)
            {
                return found;
            }
        }
        panic!("no matching Visual DNA event within {secs} s");
    }

    fn next_board<T>(&mut self, secs: u64, mut pick: impl FnMut(MoodboardEvent) -> Option<T>) -> T {
        let deadline = Instant::now() + Duration::from_secs(secs);
        while Instant::now() < deadline {
            if let Some(Event::Moodboards(event)) =
                self.engine.recv_timeout(Duration::from_millis(200))
                && let Some(found) = pick(event)
            {
                return found;
            }
        }
        panic!("no matching moodboard event within {secs} s");
    }
}

#[test]
fn a_visual_dna_from_two_photos_builds_becomes_ready_and_is_renamed_filed_and_deleted() {
    let mut env = env();
    env.send(Command::VisualDna(VisualDnaCommand::Create(NewVisualDna {
        name: "  Chelsea the cat ".into(),
        dna_type: DnaType::Character,
        image_paths: vec![photo("chelsea.png"), photo("coffee.png")],
        prompt_helper: Some("always curious".into()),
    })));
    let created = env.next_dna(20, |e| match e {
        VisualDnaEvent::Created(result) => Some(result.expect("created")),
        _ => None,
    });
    assert_eq!(created.name, "Chelsea the cat", "the name is sent trimmed");
    assert_eq!(created.kind(), Some(DnaType::Character));
    assert_eq!(created.images.len(), 2, "{created:?}");
    assert!(created.is_building(), "a new one builds first: {created:?}");
    let id = created.id.clone();

    // Nobody asks again: the engine lists while it builds, until it is ready.
    let ready = env.next_dna(30, |e| match e {
        VisualDnaEvent::Listed(Ok(all)) => all.into_iter().find(|d| d.id == id && !d.is_building()),
        _ => None,
    });
    assert!(!ready.is_failed(), "{ready:?}");
    assert!(!ready.is_global());

    env.send(Command::VisualDna(VisualDnaCommand::Get { id: id.clone() }));
    let detail = env.next_dna(10, |e| match e {
        VisualDnaEvent::Detail(result) => Some(result.expect("detail")),
        _ => None,
    });
    assert!(
        detail.description.as_deref().is_some_and(|d| !d.is_empty()),
        "a ready one has a description: {detail:?}"
    );
    assert!(
        detail
            .system_prompt
            .as_deref()
            .is_some_and(|p| !p.is_empty())
    );

    env.send(Command::VisualDna(VisualDnaCommand::Update {
        id: id.clone(),
        update: VisualDnaUpdate {
            name: Some("Chelsea".into()),
            dna_type: Some(DnaType::Style),
            prompt_helper: None,
        },
    }));
    let updated = env.next_dna(10, |e| match e {
        VisualDnaEvent::Updated(result) => Some(result.expect("updated")),
        _ => None,
    });
    assert_eq!(updated.name, "Chelsea");
    assert_eq!(updated.kind(), Some(DnaType::Style));
    let listed = env.next_dna(10, |e| match e {
        VisualDnaEvent::Listed(Ok(all)) => Some(all),
        _ => None,
    });
    assert!(listed.iter().any(|d| d.id == id && d.name == "Chelsea"));

    // Folders: make one, rename it, file the entry, delete the folder (entry unfiled).
    env.send(Command::VisualDna(VisualDnaCommand::CreateFolder {
        name: "Cats".into(),
    }));
    let folder = env.next_dna(10, |e| match e {
        VisualDnaEvent::FolderSaved(result) => Some(result.expect("folder")),
        _ => None,
    });
    assert_eq!(folder.name, "Cats");
    env.send(Command::VisualDna(VisualDnaCommand::RenameFolder {
        id: folder.id.clone(),
        name: "Cats and cups".into(),
    }));
    let folders = env.next_dna(10, |e| match e {
        VisualDnaEvent::Folders(Ok(folders))
            if folders.iter().any(|f| f.name == "Cats and cups") =>
        {
            Some(folders)
        }
        _ => None,
    });
    assert_eq!(folders.len(), 1, "{folders:?}");
    env.send(Command::VisualDna(VisualDnaCommand::MoveToFolder {
        id: id.clone(),
        folder_id: Some(folder.id.clone()),
    }));
    let moved = env.next_dna(10, |e| match e {
        VisualDnaEvent::Updated(result) => Some(result.expect("moved")),
        _ => None,
    });
    assert_eq!(moved.folder_id.as_deref(), Some(folder.id.as_str()));
    env.send(Command::VisualDna(VisualDnaCommand::DeleteFolder {
        id: folder.id.clone(),
    }));
    env.next_dna(10, |e| match e {
        VisualDnaEvent::FolderDeleted { id: gone, result } => {
            result.expect("folder deleted");
            assert_eq!(gone, folder.id);
            Some(())
        }
        _ => None,
    });
    let unfiled = env.next_dna(10, |e| match e {
        VisualDnaEvent::Listed(Ok(all)) => all.into_iter().find(|d| d.id == id),
        _ => None,
    });
    assert_eq!(
        unfiled.folder_id, None,
        "its folder's entries go back to no folder"
    );

    env.send(Command::VisualDna(VisualDnaCommand::Delete {
        id: id.clone(),
    }));
    env.next_dna(10, |e| match e {
        VisualDnaEvent::Deleted { id: gone, result } if gone == id => {
            result.expect("deleted");
            Some(())
        }
        _ => None,
    });
    let after = env.next_dna(10, |e| match e {
        VisualDnaEvent::Listed(Ok(all)) => Some(all),
        _ => None,
    });
    assert!(after.iter().all(|d| d.id != id));
}

#[test]
fn a_non_image_is_refused_with_a_readable_error() {
    let mut env = env();
    let dir = tempfile::tempdir().expect("tempdir");
    let notes = dir.path().join("notes.png");
    std::fs::write(&notes, b"these are words, not a picture").expect("write");
    env.send(Command::VisualDna(VisualDnaCommand::Create(NewVisualDna {
        name: "Words".into(),
        image_paths: vec![notes],
        ..NewVisualDna::default()
    })));
    let error = env.next_dna(20, |e| match e {
        VisualDnaEvent::Created(result) => Some(result.expect_err("refused")),
        _ => None,
    });
    // Refused by the studio's look at the file before anything is sent (no HTTP status);
    // the sandbox's own 400 for such a file is in sandbox_visual_dna_http.
    assert_eq!(error.status(), None, "refused before sending: {error}");
    let words = error_in_words(&error);
    assert!(words.contains("notes.png"), "names the file: {words}");
    assert!(!words.contains('{'), "in words, not JSON: {words}");
}

#[tokio::test]
async fn a_built_in_visual_dna_cannot_be_deleted_or_changed() {
    let service = service_support::local_service(SPEED);
    let client = client(&service);
    let all = client.visual_dna_all().await.expect("list");
    let global = all
        .iter()
        .find(|d| d.is_global())
        .expect("the sandbox seeds built-in Visual DNA");
    assert!(
        all.iter().take_while(|d| d.is_global()).count()
            == all.iter().filter(|d| d.is_global()).count(),
        "built-ins come first"
    );
    let error = client
        .delete_visual_dna(&global.id)
        .await
        .expect_err("a built-in cannot be deleted");
    assert_eq!(error.status(), Some(403), "{error}");
    let words = error_in_words(&error);
    assert!(!words.is_empty() && !words.contains('{'), "{words}");
    let error = client
        .update_visual_dna(
            &global.id,
            &VisualDnaUpdate {
                name: Some("Mine now".into()),
                ..VisualDnaUpdate::default()
            },
        )
        .await
        .expect_err("a built-in cannot be renamed");
    assert_eq!(error.status(), Some(403), "{error}");
    let missing = client
        .delete_visual_dna("no-such-dna")
        .await
        .expect_err("unknown");
    assert_eq!(missing.status(), Some(404));

    // Every page: one entry per page gives the same list as the walk.
    let mut paged = Vec::new();
    for page in 1..=all.len() as u32 + 1 {
        let answer = client
            .visual_dna_page(&VisualDnaQuery {
                page: Some(page),
                limit: Some(1),
                ..VisualDnaQuery::default()
            })
            .await
            .expect("page");
        assert_eq!(answer.total, Some(all.len() as u32));
        paged.extend(answer.entries.into_iter().map(|d| d.id));
    }
    assert_eq!(paged, all.iter().map(|d| d.id.clone()).collect::<Vec<_>>());
    // Type filter is sent and applied.
    let styles = client
        .visual_dna_page(&VisualDnaQuery {
            dna_type: Some(DnaType::Style),
            ..VisualDnaQuery::default()
        })
        .await
        .expect("styles");
    assert!(
        styles
            .entries
            .iter()
            .all(|d| d.kind() == Some(DnaType::Style))
    );
}

#[test]
fn a_moodboard_from_local_photos_uploads_them_first() {
    let mut env = env();
    let local = [photo("rocket.jpg"), photo("astronaut.png")];
    env.send(Command::Moodboards(MoodboardCommand::Create(
        MoodboardFields {
            name: "Launch day".into(),
            images: local.iter().map(|p| p.display().to_string()).collect(),
            style_guide: Some("bright daylight, hard shadows, NASA blue and white".into()),
        },
    )));
    let saved = env.next_board(30, |e| match e {
        MoodboardEvent::Saved(result) => Some(result.expect("saved")),
        _ => None,
    });
    assert_eq!(saved.name, "Launch day");
    let urls: Vec<&str> = saved.image_urls().collect();
    assert_eq!(urls.len(), 2, "{saved:?}");
    assert!(
        urls.iter().all(|u| u.starts_with("http")),
        "local files were uploaded and their addresses sent: {urls:?}"
    );
    assert!(
        saved
            .master_prompt
            .as_deref()
            .is_some_and(|p| !p.is_empty())
    );
    let listed = env.next_board(10, |e| match e {
        MoodboardEvent::Listed(Ok(all)) => Some(all),
        _ => None,
    });
    assert!(listed.iter().any(|b| b.id == saved.id));

    // Edit: one image given as an address, a new style guide.
    env.send(Command::Moodboards(MoodboardCommand::Update {
        id: saved.id.clone(),
        fields: MoodboardFields {
            name: "Launch night".into(),
            images: vec![urls[0].to_owned()],
            style_guide: Some("sodium lights".into()),
        },
    }));
    let edited = env.next_board(20, |e| match e {
        MoodboardEvent::Saved(result) => Some(result.expect("edited")),
        _ => None,
    });
    assert_eq!(edited.name, "Launch night");
    assert_eq!(edited.image_urls().count(), 1);
    assert_eq!(edited.style_guide.as_deref(), Some("sodium lights"));

    // Checked before sending: 16 images are refused without a call.
    env.send(Command::Moodboards(MoodboardCommand::Create(
        MoodboardFields {
            name: "Too many".into(),
            images: vec![urls[0].to_owned(); 16],
            style_guide: None,
        },
    )));
    let refused = env.next_board(10, |e| match e {
        MoodboardEvent::Saved(result) => Some(result.expect_err("refused")),
        _ => None,
    });
    assert!(refused.to_string().contains("15"), "{refused}");

    env.send(Command::Moodboards(MoodboardCommand::Delete {
        id: saved.id.clone(),
    }));
    env.next_board(10, |e| match e {
        MoodboardEvent::Deleted { result, .. } => {
            result.expect("deleted");
            Some(())
        }
        _ => None,
    });
    let after = env.next_board(10, |e| match e {
        MoodboardEvent::Listed(Ok(all)) => Some(all),
        _ => None,
    });
    assert!(after.iter().all(|b| b.id != saved.id));
}
