//! The Library's data model: a sparse page map of the current query's items (so 100,000
//! items cost only what has been loaded) and the selection.
//!
//! Items are addressed by their display index. Pages are 1-indexed like the service's.
//! Loaded pages may be shorter than `page_size` after optimistic removals; display indices
//! come from a prefix table rebuilt when a page changes (O(pages), never per frame).

use crate::api::media::{MediaItem, MediaPage, MediaQuery};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;

pub const DEFAULT_PAGE_SIZE: u32 = 100;
/// The service caps `page_size` here.
pub const MAX_PAGE_SIZE: u32 = 200;
/// Page requests out at once. Scrolling fast through 100,000 items must not queue hundreds
/// of pages the grid has already left behind (the service allows 120 reads a minute).
pub const MAX_PAGES_IN_FLIGHT: usize = 4;

/// One loaded page.
#[derive(Clone, Debug)]
struct Page {
    items: Vec<MediaItem>,
    /// Loaded for an older request (kept on screen while its replacement loads).
    stale: bool,
}

/// Where an item sits, for rolling back an optimistic removal.
#[derive(Clone, Debug)]
pub struct RemovedItem {
    pub page: u32,
    pub slot: usize,
    pub item: MediaItem,
}

/// A page the model wants loaded (the shell turns it into `Command::LoadMediaPage`).
#[derive(Clone, Debug, PartialEq)]
pub struct PageRequest {
    pub request_id: u64,
    pub query: MediaQuery,
    pub page: u32,
    pub page_size: u32,
}

#[derive(Debug)]
pub struct LibraryModel {
    query: MediaQuery,
    page_size: u32,
    request_id: u64,
    pages: BTreeMap<u32, Page>,
    /// Which loaded page and slot hold an id (O(1) lookups by id for the selection and
    /// toolbar); a page's slots are renumbered whenever its items change.
    id_slot: HashMap<String, (u32, usize)>,
    in_flight: HashSet<u32>,
    /// Item count according to the service: page 1's `total_items`, corrected by
    /// `has_next`. Optimistic removals do not change it (they shorten loaded pages).
    server_total: Option<usize>,
    /// Items shown: the sum of loaded page lengths and nominal lengths of the others.
    display_len: usize,
    /// True once the last page has been seen (`has_next == false`).
    exact: bool,
    /// Display index where each page starts (index 0 = page 1). Rebuilt on change.
    starts: Vec<usize>,
    /// Ids removed optimistically and not yet confirmed: filtered out of arriving pages.
    hidden: HashSet<String>,
    /// Favourite state set optimistically and not yet confirmed.
    favourite_overrides: HashMap<String, bool>,
    error: Option<String>,
    /// Page answers received for the current query (readiness checks).
    answers: u64,
}

impl Default for LibraryModel {
    fn default() -> Self {
        Self::new(DEFAULT_PAGE_SIZE)
    }
}

impl LibraryModel {
    pub fn new(page_size: u32) -> Self {
        Self {
            query: MediaQuery::default(),
            page_size: page_size.clamp(1, MAX_PAGE_SIZE),
            request_id: 0,
            pages: BTreeMap::new(),
            id_slot: HashMap::new(),
            in_flight: HashSet::new(),
            server_total: None,
            display_len: 0,
            exact: false,
            starts: Vec::new(),
            hidden: HashSet::new(),
            favourite_overrides: HashMap::new(),
            error: None,
            answers: 0,
        }
    }

    pub fn query(&self) -> &MediaQuery {
        &self.query
    }
    pub fn request_id(&self) -> u64 {
        self.request_id
    }
    pub fn page_size(&self) -> u32 {
        self.page_size
    }
    /// Items in the current query as far as known (0 before page 1 answered).
    pub fn len(&self) -> usize {
        self.display_len
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Whether page 1 of the current query has answered (or failed).
    pub fn first_page_done(&self) -> bool {
        self.server_total.is_some() || self.error.is_some()
    }
    pub fn total_is_exact(&self) -> bool {
        self.exact
    }
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }
    pub fn is_loading(&self) -> bool {
        !self.in_flight.is_empty()
    }
    pub fn answers(&self) -> u64 {
        self.answers
    }

    /// Start over for a new query: everything shown so far is dropped.
    pub fn reset(&mut self, query: MediaQuery, next_request_id: u64) {
        self.query = query;
        self.request_id = next_request_id;
        self.pages.clear();
        self.id_slot.clear();
        self.in_flight.clear();
        self.server_total = None;
        self.exact = false;
        self.error = None;
        self.answers = 0;
        self.rebuild();
    }

    /// Same query, fresh data (a job completed, an upload finished, a removal was confirmed):
    /// loaded pages stay on screen, marked stale, and are replaced as their new answers
    /// arrive. Nothing flickers.
    pub fn refresh(&mut self, next_request_id: u64) {
        self.request_id = next_request_id;
        self.in_flight.clear();
        for page in self.pages.values_mut() {
            page.stale = true;
        }
        if self.server_total.is_none() {
            self.error = None;
        }
    }

    fn page_count(&self) -> u32 {
        let ps = self.page_size as usize;
        let by_total = self.server_total.unwrap_or(0).div_ceil(ps) as u32;
        let by_loaded = self.pages.keys().next_back().copied().unwrap_or(0);
        by_total.max(by_loaded)
    }

    fn nominal_len(&self, page: u32) -> usize {
        match self.pages.get(&page) {
            Some(p) => p.items.len(),
            None => {
                let ps = self.page_size as usize;
                let before = (page as usize - 1) * ps;
                self.server_total
                    .unwrap_or(0)
                    .saturating_sub(before)
                    .min(ps)
            }
        }
    }

    fn rebuild(&mut self) {
        let count = self.page_count();
        self.starts.clear();
        self.starts.reserve(count as usize);
        let mut at = 0usize;
        for page in 1..=count {
            self.starts.push(at);
            at += self.nominal_len(page);
        }
        self.display_len = at;
    }

    /// Page (1-based) and slot of a display index.
    fn locate(&self, index: usize) -> Option<(u32, usize)> {
        if index >= self.len() || self.starts.is_empty() {
            return None;
        }
        let pos = self.starts.partition_point(|start| *start <= index);
        let page_index = pos.checked_sub(1)?;
        Some((page_index as u32 + 1, index - self.starts[page_index]))
    }

    /// The item at a display index, when its page is loaded.
    pub fn item(&self, index: usize) -> Option<&MediaItem> {
        let (page, slot) = self.locate(index)?;
        self.pages.get(&page)?.items.get(slot)
    }

    /// Loaded items in display order.
    pub fn loaded_items(&self) -> impl Iterator<Item = (usize, &MediaItem)> {
        self.pages.iter().flat_map(move |(page, p)| {
            let start = self
                .starts
                .get(*page as usize - 1)
                .copied()
                .unwrap_or_default();
            p.items
                .iter()
                .enumerate()
                .map(move |(i, item)| (start + i, item))
        })
    }

    pub fn index_of(&self, id: &str) -> Option<usize> {
        let (page, slot) = *self.id_slot.get(id)?;
        Some(self.starts.get(page as usize - 1).copied()? + slot)
    }

    /// The loaded item with this id (one hash lookup).
    pub fn find(&self, id: &str) -> Option<&MediaItem> {
        let (page, slot) = self.id_slot.get(id)?;
        self.pages.get(page)?.items.get(*slot)
    }

    /// The items of one loaded page.
    pub fn page_items(&self, page: u32) -> &[MediaItem] {
        self.pages.get(&page).map_or(&[], |p| p.items.as_slice())
    }

    fn drop_page(&mut self, page: u32) {
        if let Some(old) = self.pages.remove(&page) {
            for item in old.items {
                if self.id_slot.get(&item.id).is_some_and(|(p, _)| *p == page) {
                    self.id_slot.remove(&item.id);
                }
            }
        }
    }

    fn put_page(&mut self, page: u32, items: Vec<MediaItem>) {
        self.drop_page(page);
        self.pages.insert(
            page,
            Page {
                items,
                stale: false,
            },
        );
        self.index_page(page);
    }

    /// Record the slot of every item of `page` (after its items changed).
    fn index_page(&mut self, page: u32) {
        if let Some(p) = self.pages.get(&page) {
            for (slot, item) in p.items.iter().enumerate() {
                self.id_slot.insert(item.id.clone(), (page, slot));
            }
        }
    }

    /// Pages to request so that `visible` (display indices) plus one page ahead are loaded.
    /// Pages already in flight for the current request are not asked for again.
    pub fn wanted_pages(&mut self, visible: Range<usize>) -> Vec<PageRequest> {
        let mut out = Vec::new();
        if self.server_total.is_none() {
            if self.error.is_none() && self.in_flight.insert(1) {
                out.push(self.page_request(1));
            }
            return out;
        }
        if self.is_empty() {
            if self.pages.get(&1).is_some_and(|p| p.stale) && self.in_flight.insert(1) {
                out.push(self.page_request(1));
            }
            return out;
        }
        let first = self
            .locate(visible.start.min(self.len().saturating_sub(1)))
            .map_or(1, |(p, _)| p);
        let last_index = visible
            .end
            .saturating_sub(1)
            .min(self.len().saturating_sub(1));
        let last = self.locate(last_index).map_or(first, |(p, _)| p);
        let ahead = if self.exact {
            last.min(self.page_count())
        } else {
            (last + 1).min(self.page_count().max(1))
        };
        self.request_pages(first..=ahead.max(first))
    }

    /// Requests for those of `pages` that are missing or stale and not in flight, in
    /// order, until `MAX_PAGES_IN_FLIGHT` are out.
    fn request_pages(&mut self, pages: impl IntoIterator<Item = u32>) -> Vec<PageRequest> {
        let mut out = Vec::new();
        for page in pages {
            if self.in_flight.len() >= MAX_PAGES_IN_FLIGHT {
                break;
            }
            let needed = self.pages.get(&page).is_none_or(|p| p.stale);
            if needed && self.in_flight.insert(page) {
                out.push(self.page_request(page));
            }
        }
        out
    }

    /// Every page of the query is loaded and current (Ctrl+A can take the whole list).
    pub fn fully_loaded(&self) -> bool {
        self.exact
            && (1..=self.page_count()).all(|page| self.pages.get(&page).is_some_and(|p| !p.stale))
    }

    /// Pages still to load for the whole list (select all), lowest first, within the
    /// in-flight cap. Page 1's total says how many there are; a last page that still has
    /// a next one raises the total, and with it this list.
    pub fn missing_pages(&mut self) -> Vec<PageRequest> {
        if self.server_total.is_none() || self.error.is_some() {
            return Vec::new();
        }
        self.request_pages(1..=self.page_count())
    }

    fn page_request(&self, page: u32) -> PageRequest {
        PageRequest {
            request_id: self.request_id,
            query: self.query.clone(),
            page,
            page_size: self.page_size,
        }
    }

    /// A page answered. Answers for outdated requests are ignored (returns false).
    pub fn page_loaded(
        &mut self,
        request_id: u64,
        page: u32,
        result: Result<MediaPage, String>,
    ) -> bool {
        if request_id != self.request_id || page == 0 {
            return false;
        }
        self.in_flight.remove(&page);
        self.answers += 1;
        let answer = match result {
            Ok(answer) => answer,
            Err(error) => {
                self.error = Some(error);
                return true;
            }
        };
        self.error = None;
        let ps = self.page_size as usize;
        let mut items = answer.items;
        items.truncate(ps);
        let got = items.len();
        items.retain(|item| !self.hidden.contains(&item.id));
        for item in &mut items {
            if let Some(fav) = self.favourite_overrides.get(&item.id) {
                item.is_favorited = Some(*fav);
            }
        }
        let has_next = answer.pagination.has_next;
        let before = (page as usize - 1) * ps;
        if page == 1 {
            self.exact = false;
            self.server_total = Some(match answer.pagination.known_total() {
                Some(total) => (total as usize).max(got),
                None => self.server_total.unwrap_or(0).max(got),
            });
        }
        let known = self.server_total.unwrap_or(0);
        match has_next {
            Some(false) => {
                // The last page: nothing after it exists.
                self.exact = true;
                self.server_total = Some(before + got);
                let beyond: Vec<u32> = self.pages.range(page + 1..).map(|(p, _)| *p).collect();
                for p in beyond {
                    self.drop_page(p);
                }
            }
            Some(true) if known <= before + got => {
                self.server_total = Some(before + got + 1);
                self.exact = false;
            }
            _ if known < before + got => self.server_total = Some(before + got),
            _ => {}
        }
        self.put_page(page, items);
        self.rebuild();
        true
    }

    /// Optimistically remove items (trash, restore, delete, move out of view).
    pub fn remove(&mut self, ids: &HashSet<String>) -> Vec<RemovedItem> {
        let mut removed: Vec<RemovedItem> = Vec::new();
        for (page, p) in self.pages.iter_mut() {
            let mut slot = 0;
            p.items.retain(|item| {
                let keep = !ids.contains(&item.id);
                if !keep {
                    removed.push(RemovedItem {
                        page: *page,
                        slot,
                        item: item.clone(),
                    });
                }
                slot += 1;
                keep
            });
        }
        for id in ids {
            self.hidden.insert(id.clone());
            self.id_slot.remove(id);
        }
        let changed: HashSet<u32> = removed.iter().map(|r| r.page).collect();
        for page in changed {
            self.index_page(page);
        }
        if !removed.is_empty() {
            self.rebuild();
        }
        removed
    }

    /// Undo an optimistic removal (the service refused it).
    pub fn restore_removed(&mut self, removed: &[RemovedItem]) {
        for r in removed {
            self.hidden.remove(&r.item.id);
        }
        let mut changed = HashSet::new();
        for r in removed {
            if let Some(p) = self.pages.get_mut(&r.page) {
                let slot = r.slot.min(p.items.len());
                p.items.insert(slot, r.item.clone());
                changed.insert(r.page);
            }
        }
        for &page in &changed {
            self.index_page(page);
        }
        if !changed.is_empty() {
            self.rebuild();
        }
    }

    /// The removal was confirmed: stop filtering these ids (the next answers no longer
    /// contain them).
    pub fn forget_hidden(&mut self, ids: &[String]) {
        for id in ids {
            self.hidden.remove(id);
        }
    }

    /// Optimistically set favourites; returns the previous values for a rollback.
    pub fn set_favourite(&mut self, ids: &HashSet<String>, favourite: bool) -> Vec<(String, bool)> {
        let mut previous = Vec::new();
        for p in self.pages.values_mut() {
            for item in p.items.iter_mut().filter(|i| ids.contains(&i.id)) {
                previous.push((item.id.clone(), item.is_favorited.unwrap_or(false)));
                item.is_favorited = Some(favourite);
            }
        }
        for id in ids {
            self.favourite_overrides.insert(id.clone(), favourite);
        }
        previous
    }

    /// Moves loaded items to `project_id` at once (optimistic); returns each item's previous
    /// project so a refusal can put it back.
    pub fn set_project(
        &mut self,
        ids: &HashSet<String>,
        project_id: &str,
    ) -> Vec<(String, Option<String>)> {
        let mut previous = Vec::new();
        for p in self.pages.values_mut() {
            for item in p.items.iter_mut().filter(|i| ids.contains(&i.id)) {
                previous.push((item.id.clone(), item.project_id.clone()));
                item.project_id = Some(project_id.to_owned());
            }
        }
        previous
    }

    /// Puts back the projects recorded by `set_project` (the move was refused).
    pub fn restore_projects(&mut self, previous: &[(String, Option<String>)]) {
        let map: HashMap<&str, &Option<String>> =
            previous.iter().map(|(id, p)| (id.as_str(), p)).collect();
        for p in self.pages.values_mut() {
            for item in p.items.iter_mut() {
                if let Some(project) = map.get(item.id.as_str()) {
                    item.project_id = (*project).clone();
                }
            }
        }
    }

    /// Confirmed (`rollback` = None) or refused (put the previous values back).
    pub fn settle_favourite(&mut self, ids: &[String], rollback: Option<&[(String, bool)]>) {
        for id in ids {
            self.favourite_overrides.remove(id);
        }
        if let Some(previous) = rollback {
            let map: HashMap<&str, bool> = previous.iter().map(|(i, f)| (i.as_str(), *f)).collect();
            for p in self.pages.values_mut() {
                for item in p.items.iter_mut() {
                    if let Some(fav) = map.get(item.id.as_str()) {
                        item.is_favorited = Some(*fav);
                    }
                }
            }
        }
    }

    /// Build a model straight from items (benchmarks, unit tests): page 1's total is the
    /// item count and every page is loaded.
    pub fn from_items(query: MediaQuery, page_size: u32, items: Vec<MediaItem>) -> Self {
        let mut model = Self::new(page_size);
        model.reset(query, 1);
        let ps = model.page_size as usize;
        let total = items.len();
        let mut iter = items.into_iter().peekable();
        let mut page = 1u32;
        while iter.peek().is_some() {
            let chunk: Vec<MediaItem> = iter.by_ref().take(ps).collect();
            model.put_page(page, chunk);
            page += 1;
        }
        model.server_total = Some(total);
        model.exact = true;
        model.answers = 1;
        model.rebuild();
        model
    }
}

/// Multi-selection by item id, plus the keyboard focus and the shift-click anchor (display
/// indices).
#[derive(Clone, Debug, Default)]
pub struct Selection {
    pub ids: HashSet<String>,
    pub anchor: Option<usize>,
    pub focus: Option<usize>,
    /// Select all is still taking in pages that were not loaded when it was asked for.
    pub all_pending: bool,
}

impl Selection {
    pub fn clear(&mut self) {
        self.ids.clear();
        self.anchor = None;
        self.focus = None;
        self.all_pending = false;
    }
    pub fn len(&self) -> usize {
        self.ids.len()
    }
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
    pub fn contains(&self, id: &str) -> bool {
        self.ids.contains(id)
    }

    /// Plain click: only this item.
    pub fn select_only(&mut self, index: usize, id: &str) {
        self.all_pending = false;
        self.ids.clear();
        self.ids.insert(id.to_owned());
        self.anchor = Some(index);
        self.focus = Some(index);
    }

    /// Ctrl+click: toggle this item, keep the rest.
    pub fn toggle(&mut self, index: usize, id: &str) {
        self.all_pending = false;
        if !self.ids.remove(id) {
            self.ids.insert(id.to_owned());
        }
        self.anchor = Some(index);
        self.focus = Some(index);
    }

    /// Shift+click: everything loaded between the anchor and `index` (replacing the
    /// selection, or adding to it with `add`).
    pub fn select_range(&mut self, model: &LibraryModel, index: usize, add: bool) {
        self.all_pending = false;
        let anchor = self.anchor.unwrap_or(index);
        let (lo, hi) = (anchor.min(index), anchor.max(index));
        if !add {
            self.ids.clear();
        }
        for i in lo..=hi {
            if let Some(item) = model.item(i) {
                self.ids.insert(item.id.clone());
            }
        }
        self.anchor = Some(anchor);
        self.focus = Some(index);
    }

    /// Everything in the current list. Pages not loaded yet join as they arrive
    /// (`all_pending` until the last one has; the Library asks for them meanwhile).
    pub fn select_all(&mut self, model: &LibraryModel) {
        self.ids = model.loaded_items().map(|(_, i)| i.id.clone()).collect();
        self.all_pending = !model.fully_loaded();
    }

    /// A page arrived: while select all is pending, its items join the selection, and
    /// the pending state ends with the last page (or a failed one).
    pub fn page_arrived(&mut self, model: &LibraryModel, page: u32, failed: bool) {
        if !self.all_pending {
            return;
        }
        if failed {
            self.all_pending = false;
            return;
        }
        self.ids
            .extend(model.page_items(page).iter().map(|item| item.id.clone()));
        if model.fully_loaded() {
            self.all_pending = false;
        }
    }

    /// Selected ids in display order (loaded ones first), then any not loaded. Costs
    /// O(selected), not O(items).
    pub fn ordered_ids(&self, model: &LibraryModel) -> Vec<String> {
        let mut keyed: Vec<(usize, &String)> = self
            .ids
            .iter()
            .map(|id| (model.index_of(id).unwrap_or(usize::MAX), id))
            .collect();
        keyed.sort();
        keyed.into_iter().map(|(_, id)| id.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::media::Pagination;

    fn item(n: usize) -> MediaItem {
        MediaItem {
            id: format!("id{n}"),
            name: Some(format!("item {n}.png")),
            ..Default::default()
        }
    }

    fn page(start: usize, count: usize, total: Option<f64>, has_next: bool) -> MediaPage {
        MediaPage {
            items: (start..start + count).map(item).collect(),
            pagination: Pagination {
                total_items: total.or(Some(-1.0)),
                has_next: Some(has_next),
                ..Default::default()
            },
        }
    }

    #[test]
    fn total_from_page_one_and_pages_on_demand() {
        let mut m = LibraryModel::new(100);
        m.reset(MediaQuery::default(), 7);
        let first = m.wanted_pages(0..0);
        assert_eq!(first.len(), 1);
        assert_eq!(first[0].page, 1);
        assert!(m.wanted_pages(0..0).is_empty(), "page 1 is in flight");
        assert!(m.page_loaded(7, 1, Ok(page(0, 100, Some(1000.0), true))));
        assert_eq!(m.len(), 1000);
        assert!(m.item(50).is_some());
        assert!(m.item(150).is_none());
        let wanted: Vec<u32> = m.wanted_pages(250..420).iter().map(|r| r.page).collect();
        assert_eq!(wanted, vec![3, 4, 5, 6]);
        assert!(m.wanted_pages(250..420).is_empty());
        // An answer for an old request is ignored.
        assert!(!m.page_loaded(6, 3, Ok(page(200, 100, None, true))));
        assert!(m.page_loaded(7, 3, Ok(page(200, 100, None, true))));
        assert_eq!(m.item(250).map(|i| i.id.as_str()), Some("id250"));
    }

    #[test]
    fn a_move_shows_at_once_and_a_refusal_puts_it_back() {
        let mut m = LibraryModel::new(100);
        m.reset(MediaQuery::default(), 1);
        let _ = m.wanted_pages(0..10);
        let mut first = page(0, 3, Some(3.0), false);
        first.items[0].project_id = Some("home".into());
        m.page_loaded(1, 1, Ok(first));
        let moved: HashSet<String> = ["id0".to_owned(), "id1".to_owned()].into();
        let previous = m.set_project(&moved, "elsewhere");
        assert_eq!(
            m.item(0).and_then(|i| i.project_id.as_deref()),
            Some("elsewhere")
        );
        assert_eq!(
            m.item(1).and_then(|i| i.project_id.as_deref()),
            Some("elsewhere")
        );
        assert_eq!(
            m.item(2).and_then(|i| i.project_id.as_deref()),
            None,
            "not selected"
        );
        m.restore_projects(&previous);
        assert_eq!(
            m.item(0).and_then(|i| i.project_id.as_deref()),
            Some("home")
        );
        assert_eq!(m.item(1).and_then(|i| i.project_id.as_deref()), None);
    }

    #[test]
    fn last_page_makes_the_total_exact() {
        let mut m = LibraryModel::new(100);
        m.reset(MediaQuery::default(), 1);
        let _ = m.wanted_pages(0..10);
        m.page_loaded(1, 1, Ok(page(0, 100, Some(250.0), true)));
        let _ = m.wanted_pages(200..250);
        m.page_loaded(1, 3, Ok(page(200, 40, None, false)));
        assert!(m.total_is_exact());
        assert_eq!(m.len(), 240);
    }

    #[test]
    fn removal_and_rollback() {
        let mut m = LibraryModel::new(10);
        m.reset(MediaQuery::default(), 1);
        let _ = m.wanted_pages(0..1);
        m.page_loaded(1, 1, Ok(page(0, 10, Some(30.0), true)));
        let _ = m.wanted_pages(10..20);
        m.page_loaded(1, 2, Ok(page(10, 10, None, true)));
        let ids: HashSet<String> = ["id3", "id12"].iter().map(|s| s.to_string()).collect();
        let removed = m.remove(&ids);
        assert_eq!(removed.len(), 2);
        assert_eq!(m.len(), 28);
        assert_eq!(m.item(3).map(|i| i.id.as_str()), Some("id4"));
        assert_eq!(m.item(9).map(|i| i.id.as_str()), Some("id10"));
        m.restore_removed(&removed);
        assert_eq!(m.len(), 30);
        assert_eq!(m.item(3).map(|i| i.id.as_str()), Some("id3"));
        assert_eq!(m.item(12).map(|i| i.id.as_str()), Some("id12"));
    }

    #[test]
    fn range_selection() {
        let items = (0..50).map(item).collect();
        let m = LibraryModel::from_items(MediaQuery::default(), 20, items);
        let mut s = Selection::default();
        s.select_only(5, "id5");
        s.select_range(&m, 9, false);
        assert_eq!(s.len(), 5);
        s.toggle(30, "id30");
        assert_eq!(s.len(), 6);
        assert_eq!(s.ordered_ids(&m).first().map(String::as_str), Some("id5"));
        s.select_all(&m);
        assert_eq!(s.len(), 50);
    }

    /// A model of `total` items (pages of 100) with page 1 loaded.
    fn first_page_of(total: usize) -> LibraryModel {
        let mut m = LibraryModel::new(100);
        m.reset(MediaQuery::default(), 1);
        assert_eq!(m.wanted_pages(0..0).len(), 1);
        assert!(m.page_loaded(1, 1, Ok(page(0, 100, Some(total as f64), total > 100))));
        m
    }

    #[test]
    fn page_requests_in_flight_are_capped() {
        let mut m = first_page_of(100_000);
        // A scrollbar dragged across half the library in one frame.
        let wanted = m.wanted_pages(0..50_000);
        assert_eq!(wanted.len(), MAX_PAGES_IN_FLIGHT);
        assert_eq!(wanted[0].page, 2, "nearest pages first");
        assert!(
            m.wanted_pages(0..50_000).is_empty(),
            "nothing more until one answers"
        );
        assert!(m.page_loaded(1, 2, Ok(page(100, 100, None, true))));
        assert_eq!(m.wanted_pages(0..50_000).len(), 1);
    }

    #[test]
    fn select_all_takes_in_the_pages_not_loaded_yet() {
        let mut m = first_page_of(250);
        let mut selection = Selection::default();
        selection.select_all(&m);
        assert!(selection.all_pending);
        assert_eq!(selection.len(), 100, "what is loaded, at once");

        let requested: Vec<u32> = m.missing_pages().iter().map(|r| r.page).collect();
        assert_eq!(requested, vec![2, 3]);
        assert!(m.missing_pages().is_empty(), "already in flight");

        assert!(m.page_loaded(1, 3, Ok(page(200, 50, None, false))));
        selection.page_arrived(&m, 3, false);
        assert!(selection.all_pending, "page 2 is still missing");
        assert_eq!(selection.len(), 150);

        assert!(m.page_loaded(1, 2, Ok(page(100, 100, None, true))));
        selection.page_arrived(&m, 2, false);
        assert!(!selection.all_pending);
        assert_eq!(selection.len(), 250, "every item of the list");
        assert!(m.fully_loaded());
    }

    #[test]
    fn select_all_stops_waiting_when_a_page_fails_or_the_user_clicks() {
        let mut m = first_page_of(250);
        let mut selection = Selection::default();
        selection.select_all(&m);
        m.missing_pages();
        assert!(m.page_loaded(1, 2, Err("rate limited".into())));
        selection.page_arrived(&m, 2, true);
        assert!(!selection.all_pending);
        assert_eq!(selection.len(), 100, "the loaded items stay selected");

        selection.select_all(&m);
        assert!(selection.all_pending);
        selection.select_only(3, "id3");
        assert!(!selection.all_pending, "a click replaces the selection");
    }

    #[test]
    fn lookups_by_id_follow_removals_and_rollbacks() {
        let mut m = first_page_of(100);
        let gone: HashSet<String> = ["id2".to_owned(), "id5".to_owned()].into();
        let removed = m.remove(&gone);
        assert_eq!(m.index_of("id6"), Some(4), "later items move up");
        assert_eq!(m.find("id6").map(|i| i.id.as_str()), Some("id6"));
        assert!(m.find("id2").is_none());
        m.restore_removed(&removed);
        assert_eq!(m.index_of("id6"), Some(6));
        assert_eq!(m.index_of("id2"), Some(2));
        assert_eq!(m.find("id5").map(|i| i.id.as_str()), Some("id5"));
    }
}
