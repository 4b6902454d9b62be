//! What the Library remembers across restarts: the section or folder it showed, the sort,
//! the thumbnail size and whether the person hid the sidebar or the detail pane. Stored as `UiMemory.panels["library"]` by the shell; this module
//! only converts to and from that value and says when it changed.

use super::{LibraryState, Place, Section, THUMB_DEFAULT_PX, THUMB_MAX_PX, THUMB_MIN_PX};
use crate::api::media::MediaSort;
use serde::{Deserialize, Serialize};

/// The key of the Library's entry in `UiMemory.panels`.
pub const PANEL_KEY: &str = "library";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LibraryMemory {
    /// `all`, `ai`, `uploaded`, `edited`, `favourites`, `trash`, or `folder`.
    pub section: String,
    /// The folder's id when `section` is `folder`.
    pub folder_id: Option<String>,
    /// `created_desc`, `created_asc`, `name_asc`, `name_desc`.
    pub sort: String,
    pub thumb_px: f32,
    /// The person's choice; the pane still collapses where the grid needs the room.
    pub sidebar_open: bool,
    pub detail_open: bool,
}

impl Default for LibraryMemory {
    fn default() -> Self {
        Self {
            section: section_key(Section::All).to_owned(),
            folder_id: None,
            sort: sort_key(MediaSort::CreatedDesc).to_owned(),
            thumb_px: THUMB_DEFAULT_PX,
            sidebar_open: true,
            detail_open: true,
        }
    }
}

fn section_key(section: Section) -> &'static str {
    match section {
        Section::All => "all",
        Section::Ai => "ai",
        Section::Uploaded => "uploaded",
        Section::Edited => "edited",
        Section::Favourites => "favourites",
        Section::Trash => "trash",
    }
}

const SORTS: [(MediaSort, &str); 4] = [
    (MediaSort::CreatedDesc, "created_desc"),
    (MediaSort::CreatedAsc, "created_asc"),
    (MediaSort::NameAsc, "name_asc"),
    (MediaSort::NameDesc, "name_desc"),
];

fn sort_key(sort: MediaSort) -> &'static str {
    SORTS
        .iter()
        .find(|(s, _)| *s == sort)
        .map_or("created_desc", |(_, key)| key)
}

impl LibraryMemory {
    fn place(&self) -> Place {
        if self.section == "folder" {
            return match self.folder_id.as_deref().filter(|id| !id.is_empty()) {
                Some(id) => Place::Folder(id.to_owned()),
                None => Place::default(),
            };
        }
        Section::ALL
            .into_iter()
            .find(|s| section_key(*s) == self.section)
            .map_or_else(Place::default, Place::Section)
    }

    fn sort(&self) -> MediaSort {
        SORTS
            .iter()
            .find(|(_, key)| *key == self.sort)
            .map_or(MediaSort::CreatedDesc, |(s, _)| *s)
    }
}

impl LibraryState {
    /// What to remember of the current state.
    pub fn memory(&self) -> LibraryMemory {
        let (section, folder_id) = match &self.place {
            Place::Section(section) => (section_key(*section).to_owned(), None),
            Place::Folder(id) => ("folder".to_owned(), Some(id.clone())),
        };
        LibraryMemory {
            section,
            folder_id,
            sort: sort_key(self.sort).to_owned(),
            thumb_px: self.thumb_px,
            sidebar_open: self.sidebar_open,
            detail_open: self.detail_open,
        }
    }

    /// Take up what the settings file remembered (before the Library first loads). A
    /// value that does not parse is ignored: the defaults are a fine start.
    pub fn restore_from(&mut self, value: Option<&serde_json::Value>) {
        let Some(value) = value else {
            // Nothing remembered yet: the defaults are written at the first change.
            self.remembered = Some(self.memory());
            return;
        };
        match serde_json::from_value::<LibraryMemory>(value.clone()) {
            Ok(memory) => {
                self.restore_memory(&memory);
                self.remembered = Some(memory);
            }
            Err(error) => tracing::warn!("library memory ignored: {error}"),
        }
    }

    pub(super) fn restore_memory(&mut self, memory: &LibraryMemory) {
        self.place = memory.place();
        self.check_restored_folder = matches!(self.place, Place::Folder(_));
        self.sort = memory.sort();
        self.thumb_px = if memory.thumb_px.is_finite() {
            memory.thumb_px.clamp(THUMB_MIN_PX, THUMB_MAX_PX)
        } else {
            THUMB_DEFAULT_PX
        };
        self.sidebar_open = memory.sidebar_open;
        self.detail_open = memory.detail_open;
    }

    /// The value to write when what is remembered changed, else `None`. The shell calls
    /// this after each frame's actions, with `settled` false while a drag (the size
    /// slider) is under way, so the file is written once per change, not per frame.
    pub fn memory_to_write(&mut self, settled: bool) -> Option<serde_json::Value> {
        if !settled {
            return None;
        }
        let memory = self.memory();
        if self.remembered.as_ref() == Some(&memory) {
            return None;
        }
        let value = serde_json::to_value(&memory).ok()?;
        self.remembered = Some(memory);
        Some(value)
    }

    /// The remembered folder is gone (deleted elsewhere, or another account): show All.
    pub(super) fn forget_missing_restored_folder(&mut self) {
        if !self.check_restored_folder || !self.folders.is_loaded() {
            return;
        }
        self.check_restored_folder = false;
        if let Place::Folder(id) = &self.place
            && self.folder(id).is_none()
        {
            self.place = Place::Section(Section::All);
            self.requery();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_round_trips_and_bad_values_fall_back() {
        let mut state = LibraryState {
            place: Place::Folder("f1".into()),
            sort: MediaSort::NameAsc,
            thumb_px: 240.0,
            detail_open: false,
            ..Default::default()
        };
        let value = state.memory_to_write(true).expect("changed from nothing");
        assert!(state.memory_to_write(true).is_none(), "written once");

        let mut restored = LibraryState::default();
        restored.restore_from(Some(&value));
        assert_eq!(restored.place, Place::Folder("f1".into()));
        assert_eq!(restored.sort, MediaSort::NameAsc);
        assert_eq!(restored.thumb_px, 240.0);
        assert!(!restored.detail_open && restored.sidebar_open);
        assert!(restored.memory_to_write(true).is_none(), "nothing new");

        let odd = serde_json::json!({"section": "nowhere", "sort": "?", "thumb_px": 9999.0});
        let mut fallback = LibraryState::default();
        fallback.restore_from(Some(&odd));
        assert_eq!(fallback.place, Place::Section(Section::All));
        assert_eq!(fallback.sort, MediaSort::CreatedDesc);
        assert_eq!(fallback.thumb_px, THUMB_MAX_PX);
        assert!(
            fallback.sidebar_open && fallback.detail_open,
            "shown unless hidden"
        );
    }

    #[test]
    fn a_remembered_folder_that_is_gone_falls_back_to_all() {
        let memory = serde_json::json!({"section": "folder", "folder_id": "gone"});
        let mut state = LibraryState::default();
        state.restore_from(Some(&memory));
        assert_eq!(state.place, Place::Folder("gone".into()));
        state.handle_event(crate::engine::Event::Folders(Ok(Vec::new())));
        assert_eq!(state.place, Place::Section(Section::All));
    }
}
