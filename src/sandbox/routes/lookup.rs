//! What the sandbox's resource routes share: finding a row the caller may see, and the
//! lenient `page`/`limit` query of their lists.

use std::collections::HashMap;

use crate::sandbox::http_error::ApiResult;
use crate::sandbox::ids::is_object_id;

/// A stored row the caller may see. A malformed id is not looked up, and a row the caller
/// may not see is as unknown as a missing one (the service never confirms another user's ids).
pub(crate) fn visible_row<T>(
    id: &str,
    load: impl FnOnce(&str) -> rusqlite::Result<Option<T>>,
    may_see: impl FnOnce(&T) -> bool,
) -> ApiResult<Option<T>> {
    if !is_object_id(id) {
        return Ok(None);
    }
    Ok(load(id)?.filter(may_see))
}

/// Lenient integer query value: unparsable means "not given".
pub(crate) fn query_int(query: &HashMap<String, String>, key: &str) -> Option<i64> {
    query
        .get(key)
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|v| v.is_finite())
        .map(|v| v.trunc() as i64)
}

/// `page` (from 1) and `limit` (1..=max) of a list, read leniently: a missing, unparsable or
/// out-of-range value becomes the default or the nearest bound, never a 400.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Page {
    pub(crate) page: u64,
    pub(crate) limit: u32,
}

impl Page {
    pub(crate) fn lenient(
        query: &HashMap<String, String>,
        default_limit: u32,
        max_limit: u32,
    ) -> Self {
        let page = query_int(query, "page").unwrap_or(1).max(1) as u64;
        let limit = query_int(query, "limit")
            .unwrap_or(i64::from(default_limit))
            .clamp(1, i64::from(max_limit)) as u32;
        Self { page, limit }
    }

    /// Rows skipped before this page.
    pub(crate) fn offset(self) -> u64 {
        (self.page - 1).saturating_mul(u64::from(self.limit))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn a_list_query_out_of_range_or_unreadable_falls_back_instead_of_failing() {
        assert_eq!(
            Page::lenient(&query(&[]), 20, 100),
            Page { page: 1, limit: 20 }
        );
        let odd = Page::lenient(&query(&[("page", "-3"), ("limit", "5000")]), 20, 100);
        assert_eq!(
            odd,
            Page {
                page: 1,
                limit: 100
            }
        );
        let junk = Page::lenient(&query(&[("page", "two"), ("limit", "NaN")]), 50, 100);
        assert_eq!(junk, Page { page: 1, limit: 50 });
        let third = Page::lenient(&query(&[("page", "3.7"), ("limit", "0")]), 20, 100);
        assert_eq!((third.page, third.limit, third.offset()), (3, 1, 2));
    }

    #[test]
    fn a_malformed_id_is_never_looked_up_and_an_unseen_row_is_missing() {
        let looked_up = std::cell::Cell::new(false);
        let found = visible_row(
            "not-an-id",
            |_| {
                looked_up.set(true);
                Ok(Some(1))
            },
            |_| true,
        )
        .ok()
        .flatten();
        assert_eq!(found, None);
        assert!(!looked_up.get());
        let id = "0123456789abcdef01234567";
        let hidden = visible_row(id, |_| Ok(Some(7)), |row| *row != 7)
            .ok()
            .flatten();
        assert_eq!(hidden, None);
        let shown = visible_row(id, |_| Ok(Some(7)), |row| *row == 7)
            .ok()
            .flatten();
        assert_eq!(shown, Some(7));
    }
}
