//! Permanent deletion on disk and the 30-day trash retention sweep.

use std::time::Duration;

use super::clock::days_ms;
use super::files::resolve_rel_path;
use super::state::AppState;

pub(crate) const TRASH_RETENTION_DAYS: i64 = 30;
pub(crate) const SWEEP_INTERVAL: Duration = Duration::from_secs(60);

/// Removes files of permanently deleted items, and their generation folder once empty.
pub(crate) fn remove_files(state: &AppState, files: &[String]) {
    for rel in files {
        let Some(path) = resolve_rel_path(&state.files_dir, rel) else {
            continue;
        };
        if let Err(error) = std::fs::remove_file(&path)
            && error.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(%error, file = %rel, "could not remove media file");
        }
        if rel.starts_with("generations/")
            && let Some(parent) = path.parent()
        {
            // Fails (harmlessly) while other outputs of the generation remain.
            let _ = std::fs::remove_dir(parent);
        }
    }
}

/// Permanently deletes every item trashed more than 30 days ago (by the sandbox clock).
pub(crate) fn sweep(state: &AppState) -> Result<usize, rusqlite::Error> {
    let cutoff_ms = state
        .clock
        .now_ms()
        .saturating_sub(days_ms(TRASH_RETENTION_DAYS));
    let ids = state.store.trash_older_than(cutoff_ms)?;
    if ids.is_empty() {
        return Ok(0);
    }
    let purged = state.store.purge_media(None, &ids)?;
    remove_files(state, &purged.files);
    tracing::info!(
        items = purged.count,
        "trash retention sweep deleted expired items"
    );
    Ok(purged.count)
}

/// Sweeps now and then every minute until the runtime stops.
pub(crate) fn spawn_periodic(state: AppState) {
    tokio::spawn(async move {
        let mut interval = tokio::time::interval(SWEEP_INTERVAL);
        loop {
            interval.tick().await;
            let state = state.clone();
            let result = tokio::task::spawn_blocking(move || sweep(&state)).await;
            if let Ok(Err(error)) = result {
                tracing::error!(%error, "trash retention sweep failed");
            }
        }
    });
}
