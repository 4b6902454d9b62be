//! The media-library routes of document 3 on [`ApiClient`]: list/get, trash and restore,
//! project moves, bulk routes, stats, favourites, folders and the upload ticket.
//!
//! Id lists larger than one call allows are split client-side (bulk: 1000 per call,
//! folder add/remove: 500, share: 50). Splitting makes the overall operation non-atomic:
//! when a later chunk fails, earlier chunks have already taken effect. The one operation
//! whose atomicity the contract promises, bulk move, is therefore never split: over 1000
//! ids it is refused before anything is sent.

use super::client::{ApiClient, encode_segment};
use super::error::ApiError;
use super::lenient::{lenient_u64, null_default, string_list};
use super::media::{
    BulkAction, BulkOutcome, Folder, FolderAddOutcome, FolderFields, MediaCategory, MediaDetail,
    MediaItem, MediaPage, MediaQuery, MediaSort, MediaStats, MediaTypeFilter, Pagination,
    ShareOutcome, UploadTicket,
};
use serde::Deserialize;
use serde_json::{Value, json};

/// Ids per call of the bulk routes (delete, restore, permanent, move).
pub const MAX_BULK_IDS: usize = 1000;
/// Ids per call of folder add/remove.
pub const MAX_FOLDER_ITEM_IDS: usize = 500;
/// Addresses per call of folder share.
pub const MAX_SHARE_EMAILS: usize = 50;
/// The service caps page_size here (silently); the client clamps so its maths agree.
pub const MAX_PAGE_SIZE: u32 = 200;
/// Default page size of GET /v1/media (not sent when asked for).
pub const DEFAULT_PAGE_SIZE: u32 = 50;
/// `list_all_media` stops after this many pages even if `has_next` keeps saying yes.
const MAX_PAGES: u32 = 10_000;

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct ListResponse {
    #[serde(deserialize_with = "null_default")]
    media: Vec<MediaItem>,
    #[serde(deserialize_with = "null_default")]
    pagination: Pagination,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct DetailResponse {
    media: Option<MediaDetail>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct StatsResponse {
    #[serde(deserialize_with = "null_default")]
    stats: MediaStats,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct FavoriteResponse {
    #[serde(deserialize_with = "super::lenient::lenient_bool")]
    is_favorited: Option<bool>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct FoldersResponse {
    #[serde(deserialize_with = "null_default")]
    folders: Vec<Folder>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct FolderResponse {
    folder: Option<Folder>,
}

/// Counts of the bulk and move answers; every spelling the routes use.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct CountResponse {
    #[serde(deserialize_with = "lenient_u64")]
    deleted_count: Option<u64>,
    #[serde(deserialize_with = "lenient_u64")]
    restored_count: Option<u64>,
    #[serde(deserialize_with = "lenient_u64")]
    moved_count: Option<u64>,
    #[serde(deserialize_with = "lenient_u64")]
    removed: Option<u64>,
    /// bulk/restore: supplied minus restored.
    #[serde(deserialize_with = "lenient_u64")]
    not_found: Option<u64>,
    /// bulk/delete, bulk/permanent: at most one `{error}` entry.
    #[serde(deserialize_with = "null_default")]
    errors: Vec<Value>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct ShareResponse {
    folder: Option<Folder>,
    #[serde(deserialize_with = "string_list")]
    shared_with_user_ids: Vec<String>,
    #[serde(deserialize_with = "string_list")]
    not_found: Vec<String>,
}

impl ApiClient {
    /// GET /v1/media: one page. Only non-default parameters are sent; `page_size` is
    /// clamped to 1..=200 like the service does. Paginate on `has_next`, never on the
    /// total (it is -1 after page 1; see [`Pagination::known_total`]).
    pub async fn list_media(
        &self,
        query: &MediaQuery,
        page: u32,
        page_size: u32,
    ) -> Result<MediaPage, ApiError> {
        let params = list_params(query, page, page_size);
        let request = self.service.get(self.url("/v1/media")).query(&params);
        let response: ListResponse = self.json(request).await?;
        Ok(MediaPage {
            items: response.media,
            pagination: response.pagination,
        })
    }

    /// Every page of a query, following `has_next`, up to `max_items` items.
    pub async fn list_all_media(
        &self,
        query: &MediaQuery,
        page_size: u32,
        max_items: usize,
    ) -> Result<Vec<MediaItem>, ApiError> {
        let mut items = Vec::new();
        for page in 1..=MAX_PAGES {
            if items.len() >= max_items {
                break;
            }
            let answer = self.list_media(query, page, page_size).await?;
            let empty = answer.items.is_empty();
            items.extend(answer.items);
            // An empty page ends the walk even if has_next claims more (no endless loop).
            if empty || answer.pagination.has_next != Some(true) {
                break;
            }
        }
        items.truncate(max_items);
        Ok(items)
    }

    /// GET /v1/media/:id (also accepts a generation id: its lowest-index item).
    pub async fn media_item(&self, id: &str) -> Result<MediaDetail, ApiError> {
        let url = self.url(&format!("/v1/media/{}", encode_segment(id)));
        let response: DetailResponse = self.json(self.service.get(url)).await?;
        response
            .media
            .ok_or_else(|| ApiError::Decode("the answer carried no media item".into()))
    }

    /// DELETE /v1/media/:id: to the trash (recoverable for 30 days).
    pub async fn trash(&self, id: &str) -> Result<(), ApiError> {
        let url = self.url(&format!("/v1/media/{}", encode_segment(id)));
        self.unit(self.service.delete(url)).await
    }

    /// POST /v1/media/:id/restore.
    pub async fn restore(&self, id: &str) -> Result<(), ApiError> {
        let url = self.url(&format!("/v1/media/{}/restore", encode_segment(id)));
        self.unit(self.service.post(url)).await
    }

    /// DELETE /v1/media/:id/permanent. Idempotent: an already-gone item is a success.
    pub async fn delete_forever(&self, id: &str) -> Result<(), ApiError> {
        let url = self.url(&format!("/v1/media/{}/permanent", encode_segment(id)));
        self.unit(self.service.delete(url)).await
    }

    /// PATCH /v1/media/:id/project.
    pub async fn move_to_project(&self, id: &str, project_id: &str) -> Result<(), ApiError> {
        let url = self.url(&format!("/v1/media/{}/project", encode_segment(id)));
        let request = self
            .service
            .patch(url)
            .json(&json!({ "project_id": project_id }));
        self.unit(request).await
    }

    /// POST /v1/media/bulk/{delete,restore,permanent}. Over 1000 ids the call is split,
    /// so the whole is NOT atomic: on an error, earlier chunks have taken effect. Counts
    /// are summed over chunks. No ids: nothing is sent.
    pub async fn bulk(&self, action: BulkAction, ids: &[String]) -> Result<BulkOutcome, ApiError> {
        let mut total = BulkOutcome::default();
        for chunk in ids.chunks(MAX_BULK_IDS) {
            let request = self
                .service
                .post(self.url(action.path()))
                .json(&json!({ "media_ids": chunk }));
            let answer: CountResponse = self.json(request).await?;
            total.absorb(bulk_outcome(action, chunk.len(), &answer));
        }
        Ok(total)
    }

    /// POST /v1/media/bulk/move: atomic on the service (all or nothing), so it is never
    /// split; more than 1000 ids are refused without sending. Returns the moved count.
    pub async fn bulk_move(&self, ids: &[String], project_id: &str) -> Result<u64, ApiError> {
        if ids.is_empty() {
            return Ok(0);
        }
        if ids.len() > MAX_BULK_IDS {
            return Err(ApiError::Invalid(format!(
                "a move takes at most {MAX_BULK_IDS} items at once ({} selected); moving in \
parts would not be all-or-nothing",
                ids.len()
            )));
        }
        let request = self
            .service
            .post(self.url("/v1/media/bulk/move"))
            .json(&json!({ "media_ids": ids, "project_id": project_id }));
        let answer: CountResponse = self.json(request).await?;
        Ok(answer.moved_count.unwrap_or(ids.len() as u64))
    }

    /// GET /v1/media/stats, for a project (all members' media) or the caller's own.
    pub async fn media_stats(&self, project_id: Option<&str>) -> Result<MediaStats, ApiError> {
        let mut request = self.service.get(self.url("/v1/media/stats"));
        if let Some(project_id) = project_id.map(str::trim).filter(|p| !p.is_empty()) {
            request = request.query(&[("project_id", project_id)]);
        }
        let response: StatsResponse = self.json(request).await?;
        Ok(response.stats)
    }

    /// POST (true) or DELETE (false) /v1/media/:id/favorite; both idempotent. Un-starring
    /// clears the favourite for every member of the project. Returns the new state.
    pub async fn set_favorite(&self, id: &str, favorited: bool) -> Result<bool, ApiError> {
        let url = self.url(&format!("/v1/media/{}/favorite", encode_segment(id)));
        let request = if favorited {
            self.service.post(url)
        } else {
            self.service.delete(url)
        };
        let response: FavoriteResponse = self.json(request).await?;
        Ok(response.is_favorited.unwrap_or(favorited))
    }

    /// GET /v1/media/folders (newest first, at most 500, no pagination).
    pub async fn folders(&self) -> Result<Vec<Folder>, ApiError> {
        let response: FoldersResponse = self
            .json(self.service.get(self.url("/v1/media/folders")))
            .await?;
        Ok(response.folders)
    }

    /// POST /v1/media/folders.
    pub async fn create_folder(&self, fields: &FolderFields) -> Result<Folder, ApiError> {
        let request = self
            .service
            .post(self.url("/v1/media/folders"))
            .json(fields);
        let response: FolderResponse = self.json(request).await?;
        response
            .folder
            .ok_or_else(|| ApiError::Decode("the answer carried no folder".into()))
    }

    /// PUT /v1/media/folders/:id; `None` fields are left unchanged.
    pub async fn update_folder(
        &self,
        folder_id: &str,
        fields: &FolderFields,
    ) -> Result<Folder, ApiError> {
        let url = self.url(&format!("/v1/media/folders/{}", encode_segment(folder_id)));
        let response: FolderResponse = self.json(self.service.put(url).json(fields)).await?;
        response
            .folder
            .ok_or_else(|| ApiError::Decode("the answer carried no folder".into()))
    }

    /// DELETE /v1/media/folders/:id (the items stay in the library).
    pub async fn delete_folder(&self, folder_id: &str) -> Result<(), ApiError> {
        let url = self.url(&format!("/v1/media/folders/{}", encode_segment(folder_id)));
        self.unit(self.service.delete(url)).await
    }

    /// POST /v1/media/folders/:id/items, split into calls of 500 (not atomic overall).
    /// Only items the caller owns are added; the others come back in `rejected`.
    pub async fn add_to_folder(
        &self,
        folder_id: &str,
        ids: &[String],
    ) -> Result<FolderAddOutcome, ApiError> {
        let url = self.url(&format!(
            "/v1/media/folders/{}/items",
            encode_segment(folder_id)
        ));
        let mut total = FolderAddOutcome::default();
        for chunk in ids.chunks(MAX_FOLDER_ITEM_IDS) {
            let request = self
                .service
                .post(url.clone())
                .json(&json!({ "media_ids": chunk }));
            let answer: FolderAddOutcome = self.json(request).await?;
            total.absorb(answer);
        }
        Ok(total)
    }

    /// DELETE /v1/media/folders/:id/items (ids in a JSON body), split into calls of 500.
    /// Returns how many were removed (a shared member may only remove what they added).
    pub async fn remove_from_folder(
        &self,
        folder_id: &str,
        ids: &[String],
    ) -> Result<u64, ApiError> {
        let url = self.url(&format!(
            "/v1/media/folders/{}/items",
            encode_segment(folder_id)
        ));
        let mut removed = 0;
        for chunk in ids.chunks(MAX_FOLDER_ITEM_IDS) {
            let request = self
                .service
                .delete(url.clone())
                .json(&json!({ "media_ids": chunk }));
            let answer: CountResponse = self.json(request).await?;
            // Saturating: counts come from the network.
            removed = answer.removed.unwrap_or(0).saturating_add(removed);
        }
        Ok(removed)
    }

    /// POST /v1/media/folders/:id/share; additive and idempotent, so splitting into calls
    /// of 50 addresses is safe. Unknown addresses come back in `not_found`.
    pub async fn share_folder(
        &self,
        folder_id: &str,
        emails: &[String],
    ) -> Result<ShareOutcome, ApiError> {
        let url = self.url(&format!(
            "/v1/media/folders/{}/share",
            encode_segment(folder_id)
        ));
        let mut total = ShareOutcome::default();
        for chunk in emails.chunks(MAX_SHARE_EMAILS) {
            let request = self
                .service
                .post(url.clone())
                .json(&json!({ "user_emails": chunk }));
            let answer: ShareResponse = self.json(request).await?;
            if answer.folder.is_some() {
                total.folder = answer.folder;
            }
            for id in answer.shared_with_user_ids {
                if !total.shared_with_user_ids.contains(&id) {
                    total.shared_with_user_ids.push(id);
                }
            }
            total.not_found.extend(answer.not_found);
        }
        Ok(total)
    }

    /// DELETE /v1/media/folders/:id/share/:user_id (idempotent). The updated folder when
    /// the answer carries it.
    pub async fn unshare_folder(
        &self,
        folder_id: &str,
        user_id: &str,
    ) -> Result<Option<Folder>, ApiError> {
        let url = self.url(&format!(
            "/v1/media/folders/{}/share/{}",
            encode_segment(folder_id),
            encode_segment(user_id)
        ));
        let response: FolderResponse = self.json(self.service.delete(url)).await?;
        Ok(response.folder)
    }

    /// POST /v1/media/folders/:id/move-contents; all-or-nothing on the service.
    pub async fn move_folder_contents(
        &self,
        folder_id: &str,
        project_id: &str,
    ) -> Result<u64, ApiError> {
        let url = self.url(&format!(
            "/v1/media/folders/{}/move-contents",
            encode_segment(folder_id)
        ));
        let request = self
            .service
            .post(url)
            .json(&json!({ "project_id": project_id }));
        let answer: CountResponse = self.json(request).await?;
        Ok(answer.moved_count.unwrap_or(0))
    }

    /// POST /v1/media/upload-ticket (request body "not shown": an empty object is sent).
    pub async fn upload_ticket(&self) -> Result<UploadTicket, ApiError> {
        let request = self
            .service
            .post(self.url("/v1/media/upload-ticket"))
            .json(&json!({}));
        let value: Value = self.json(request).await?;
        // The ticket may be the body itself or nested under `ticket`/`data`.
        let inner = ["ticket", "data"]
            .iter()
            .filter_map(|k| value.get(*k))
            .find(|v| v.is_object())
            .unwrap_or(&value);
        serde_json::from_value(inner.clone()).map_err(|e| ApiError::Decode(e.to_string()))
    }

    async fn unit(&self, request: reqwest::RequestBuilder) -> Result<(), ApiError> {
        let _: Value = self.json(request).await?;
        Ok(())
    }
}

/// The query string of GET /v1/media: only values that differ from the defaults.
pub fn list_params(query: &MediaQuery, page: u32, page_size: u32) -> Vec<(&'static str, String)> {
    let mut params = Vec::new();
    let text = |value: &Option<String>| {
        value
            .as_deref()
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
    };
    if let Some(folder_id) = text(&query.folder_id) {
        params.push(("folder_id", folder_id));
    }
    if let Some(project_id) = text(&query.project_id) {
        params.push(("project_id", project_id));
    }
    if query.media_type != MediaTypeFilter::All {
        params.push(("type", query.media_type.as_str().to_owned()));
    }
    if query.category != MediaCategory::All {
        params.push(("category", query.category.as_str().to_owned()));
    }
    if let Some(source_type) = query.source_type {
        params.push(("source_type", source_type.as_str().to_owned()));
    }
    if let Some(search) = text(&query.search) {
        params.push(("search", search));
    }
    if let Some(moodboard_id) = text(&query.moodboard_id) {
        params.push(("moodboard_id", moodboard_id));
    }
    if query.sort != MediaSort::CreatedDesc {
        params.push(("sort", query.sort.as_str().to_owned()));
    }
    if page > 1 {
        params.push(("page", page.to_string()));
    }
    let page_size = page_size.clamp(1, MAX_PAGE_SIZE);
    if page_size != DEFAULT_PAGE_SIZE {
        params.push(("page_size", page_size.to_string()));
    }
    if query.include_deleted {
        params.push(("include_deleted", "true".to_owned()));
    }
    params
}

/// One bulk answer as a [`BulkOutcome`]. The `errors[0].error` text of delete/permanent
/// states how many were skipped; its first number is taken as that count.
pub(super) fn bulk_outcome(action: BulkAction, sent: usize, answer: &CountResponse) -> BulkOutcome {
    let affected = match action {
        BulkAction::Restore => answer.restored_count,
        BulkAction::Trash | BulkAction::DeleteForever => answer.deleted_count,
    }
    .unwrap_or(0);
    let message = answer
        .errors
        .iter()
        .find_map(|e| match e {
            Value::String(s) => Some(s.clone()),
            Value::Object(map) => map
                .get("error")
                .or_else(|| map.get("message"))
                .and_then(Value::as_str)
                .map(str::to_owned),
            _ => None,
        })
        .filter(|m| !m.trim().is_empty());
    let not_affected = match action {
        BulkAction::Restore => answer.not_found,
        BulkAction::Trash | BulkAction::DeleteForever => message
            .as_deref()
            .and_then(first_number)
            // The error entry is empty also when none matched: derive from the count.
            .or_else(|| Some((sent as u64).saturating_sub(affected))),
    };
    BulkOutcome {
        affected,
        not_affected,
        message,
    }
}

fn first_number(text: &str) -> Option<u64> {
    let digits: String = text
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::media::MediaSourceType;

    #[test]
    fn defaults_send_nothing() {
        assert!(list_params(&MediaQuery::default(), 1, 50).is_empty());
        assert!(list_params(&MediaQuery::default(), 0, 50).is_empty());
    }

    #[test]
    fn every_parameter_uses_the_contract_spelling() {
        let query = MediaQuery {
            project_id: Some("p".into()),
            folder_id: None,
            media_type: MediaTypeFilter::Video,
            category: MediaCategory::TrainingLab,
            source_type: Some(MediaSourceType::ChatGenerated),
            search: Some("  cat ".into()),
            sort: MediaSort::NameDesc,
            include_deleted: true,
            moodboard_id: Some("mb1".into()),
        };
        let params = list_params(&query, 3, 500);
        let get = |k: &str| {
            params
                .iter()
                .find(|(key, _)| *key == k)
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(get("project_id"), Some("p"));
        assert_eq!(get("type"), Some("video"));
        assert_eq!(get("category"), Some("training-lab"));
        assert_eq!(get("source_type"), Some("chat-generated"));
        assert_eq!(get("search"), Some("cat"));
        assert_eq!(get("sort"), Some("name_desc"));
        assert_eq!(get("page"), Some("3"));
        assert_eq!(get("page_size"), Some("200"));
        assert_eq!(get("include_deleted"), Some("true"));
        assert_eq!(get("moodboard_id"), Some("mb1"));
    }

    #[test]
    fn bulk_counts() {
        let answer: CountResponse = serde_json::from_str(
            r#"{"success":true,"deleted_count":2,"errors":[{"error":"3 media items were not found or not owned"}]}"#,
        )
        .expect("decode");
        let outcome = bulk_outcome(BulkAction::Trash, 5, &answer);
        assert_eq!((outcome.affected, outcome.not_affected), (2, Some(3)));
        let answer: CountResponse =
            serde_json::from_str(r#"{"deleted_count":0,"errors":[]}"#).expect("decode");
        let outcome = bulk_outcome(BulkAction::DeleteForever, 4, &answer);
        assert_eq!((outcome.affected, outcome.not_affected), (0, Some(4)));
        let answer: CountResponse =
            serde_json::from_str(r#"{"restored_count":1,"not_found":1}"#).expect("decode");
        let outcome = bulk_outcome(BulkAction::Restore, 2, &answer);
        assert_eq!((outcome.affected, outcome.not_affected), (1, Some(1)));
    }
}
