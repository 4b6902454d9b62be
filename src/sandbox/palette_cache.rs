//! The contract's 60-second in-process cache of resolved palettes, keyed by user and
//! project, read by graded generations. It is deliberately NOT invalidated by activate,
//! deactivate, update or delete (the service's workers behave the same), so a change can
//! take up to a minute to reach generations; `SandboxHandle::clear_palette_cache` lets
//! tests skip the wait.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::palette::PaletteColor;

use super::store::Store;

pub(crate) const PALETTE_CACHE_TTL: Duration = Duration::from_secs(60);

struct Entry {
    resolved_at: Instant,
    /// `None` caches "this project has no grade" too.
    colors: Option<Vec<PaletteColor>>,
}

#[derive(Default)]
pub(crate) struct PaletteCache {
    entries: Mutex<HashMap<(String, String), Entry>>,
}

impl PaletteCache {
    /// The grade a generation of `user_id` in `project_id` uses (cached for 60 s).
    pub(crate) fn resolve(
        &self,
        store: &Store,
        user_id: &str,
        project_id: &str,
    ) -> rusqlite::Result<Option<Vec<PaletteColor>>> {
        let key = (user_id.to_owned(), project_id.to_owned());
        let now = Instant::now();
        {
            let entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(entry) = entries.get(&key)
                && now.duration_since(entry.resolved_at) < PALETTE_CACHE_TTL
            {
                return Ok(entry.colors.clone());
            }
        }
        let colors = store.project_grade(project_id)?;
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries.retain(|_, e| now.duration_since(e.resolved_at) < PALETTE_CACHE_TTL);
        entries.insert(
            key,
            Entry {
                resolved_at: now,
                colors: colors.clone(),
            },
        );
        Ok(colors)
    }

    pub(crate) fn clear(&self) {
        self.entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
    }
}
