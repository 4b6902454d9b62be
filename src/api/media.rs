//! Media library resources (document 3): list items, the single-item shape, folders,
//! stats, pagination and the bulk/folder answers. Decoding is tolerant like `types.rs`.

use super::lenient::{
    lenient_bool, lenient_f64, lenient_string, lenient_u32, lenient_u64, null_default, string_list,
};
use serde::{Deserialize, Serialize};

/// `type` filter of GET /v1/media.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MediaTypeFilter {
    #[default]
    All,
    Image,
    Video,
    Audio,
}

/// `category` (library section) of GET /v1/media.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MediaCategory {
    #[default]
    #[serde(rename = "all")]
    All,
    #[serde(rename = "ai")]
    Ai,
    #[serde(rename = "uploaded")]
    Uploaded,
    #[serde(rename = "edited")]
    Edited,
    #[serde(rename = "favorites")]
    Favorites,
    #[serde(rename = "training-lab")]
    TrainingLab,
}

/// `sort` of GET /v1/media (ignored by the service with `folder_id`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MediaSort {
    #[default]
    CreatedDesc,
    CreatedAsc,
    NameAsc,
    NameDesc,
}

/// `source_type` of GET /v1/media.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MediaSourceType {
    Uploaded,
    Generated,
    ChatGenerated,
}

impl MediaTypeFilter {
    /// The wire value of the `type` parameter.
    pub fn as_str(self) -> &'static str {
        match self {
            MediaTypeFilter::All => "all",
            MediaTypeFilter::Image => "image",
            MediaTypeFilter::Video => "video",
            MediaTypeFilter::Audio => "audio",
        }
    }
}

impl MediaCategory {
    /// The wire value of the `category` parameter.
    pub fn as_str(self) -> &'static str {
        match self {
            MediaCategory::All => "all",
            MediaCategory::Ai => "ai",
            MediaCategory::Uploaded => "uploaded",
            MediaCategory::Edited => "edited",
            MediaCategory::Favorites => "favorites",
            MediaCategory::TrainingLab => "training-lab",
        }
    }
}

impl MediaSort {
    /// The wire value of the `sort` parameter.
    pub fn as_str(self) -> &'static str {
        match self {
            MediaSort::CreatedDesc => "created_desc",
            MediaSort::CreatedAsc => "created_asc",
            MediaSort::NameAsc => "name_asc",
            MediaSort::NameDesc => "name_desc",
        }
    }
}

impl MediaSourceType {
    /// The wire value of the `source_type` parameter.
    pub fn as_str(self) -> &'static str {
        match self {
            MediaSourceType::Uploaded => "uploaded",
            MediaSourceType::Generated => "generated",
            MediaSourceType::ChatGenerated => "chat-generated",
        }
    }
}

/// Query of GET /v1/media. `None`/default values are not sent. Trash is
/// `include_deleted = true`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct MediaQuery {
    pub project_id: Option<String>,
    /// Takes precedence over everything but page, page_size and include_deleted.
    pub folder_id: Option<String>,
    pub media_type: MediaTypeFilter,
    pub category: MediaCategory,
    pub source_type: Option<MediaSourceType>,
    pub search: Option<String>,
    pub sort: MediaSort,
    pub include_deleted: bool,
    /// Only items generated with this moodboard (`moodboard_id`; contract: media list).
    pub moodboard_id: Option<String>,
}

/// One library item, list shape.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MediaItem {
    #[serde(deserialize_with = "null_default", alias = "_id")]
    pub id: String,
    #[serde(deserialize_with = "null_default")]
    pub url: String,
    #[serde(deserialize_with = "lenient_string", alias = "thumbnailUrl")]
    pub thumbnail_url: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub name: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub filename: Option<String>,
    #[serde(rename = "type", deserialize_with = "lenient_string")]
    pub item_type: Option<String>,
    #[serde(deserialize_with = "lenient_string", alias = "mediaType")]
    pub media_type: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub category: Option<String>,
    #[serde(deserialize_with = "lenient_u64")]
    pub size: Option<u64>,
    #[serde(deserialize_with = "lenient_string", alias = "sourceType")]
    pub source_type: Option<String>,
    #[serde(deserialize_with = "lenient_string", alias = "generationType")]
    pub generation_type: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub prompt: Option<String>,
    #[serde(deserialize_with = "lenient_u32")]
    pub width: Option<u32>,
    #[serde(deserialize_with = "lenient_u32")]
    pub height: Option<u32>,
    #[serde(deserialize_with = "lenient_f64")]
    pub duration: Option<f64>,
    #[serde(deserialize_with = "lenient_bool", alias = "isFavorited")]
    pub is_favorited: Option<bool>,
    #[serde(deserialize_with = "lenient_bool", alias = "nsfwDetected")]
    pub nsfw_detected: Option<bool>,
    #[serde(deserialize_with = "lenient_string", alias = "projectId")]
    pub project_id: Option<String>,
    #[serde(deserialize_with = "lenient_string", alias = "sessionId")]
    pub session_id: Option<String>,
    #[serde(deserialize_with = "lenient_string", alias = "userId")]
    pub user_id: Option<String>,
    /// Resolved only when the list was filtered by `project_id`.
    #[serde(deserialize_with = "lenient_string", alias = "userEmail")]
    pub user_email: Option<String>,
    #[serde(deserialize_with = "lenient_string", alias = "userName")]
    pub user_name: Option<String>,
    /// Display hint only, not a stable enum.
    #[serde(deserialize_with = "lenient_string", alias = "sessionType")]
    pub session_type: Option<String>,
    #[serde(deserialize_with = "lenient_string", alias = "createdAt")]
    pub created_at: Option<String>,
    /// Always present on the wire; `creditsUsed`, `generationDurationSeconds`, `projectId`,
    /// `sessionId` are documented, the rest (e.g. `model`) is best-effort.
    #[serde(deserialize_with = "null_default")]
    pub metadata: serde_json::Map<String, serde_json::Value>,
}

impl MediaItem {
    pub fn display_name(&self) -> &str {
        // An empty name (an output without a prompt) falls back to the file name.
        fn given(name: &Option<String>) -> Option<&str> {
            name.as_deref().filter(|n| !n.trim().is_empty())
        }
        given(&self.name)
            .or(given(&self.filename))
            .unwrap_or(&self.id)
    }
    /// `image`, `video`, `audio`, … from `type`, else `media_type`.
    pub fn kind(&self) -> &str {
        self.item_type
            .as_deref()
            .or(self.media_type.as_deref())
            .unwrap_or("image")
    }
    pub fn credits_used(&self) -> Option<f64> {
        self.metadata
            .get("creditsUsed")
            .or_else(|| self.metadata.get("credits_used"))
            .and_then(super::lenient::value_as_f64)
    }
    /// Why the item has no real preview (the sandbox's `metadata.previewUnavailable`, e.g.
    /// a picture too large to decode), when the service says so.
    pub fn preview_unavailable(&self) -> Option<&str> {
        self.metadata
            .get("previewUnavailable")
            .and_then(|v| v.as_str())
            .map(str::trim)
            .filter(|reason| !reason.is_empty())
    }
    /// The model named in the generation metadata, when there is one.
    pub fn model(&self) -> Option<&str> {
        self.metadata
            .get("model")
            .or_else(|| self.metadata.get("modelName"))
            .and_then(|v| v.as_str())
    }
    /// The id of the generation that produced this item, when its metadata names one.
    pub fn generation_id(&self) -> Option<&str> {
        generation_id_in(&self.metadata)
    }
    /// The prompt: the list field, else the generation metadata's.
    pub fn prompt_text(&self) -> Option<&str> {
        self.prompt
            .as_deref()
            .or_else(|| self.metadata.get("prompt").and_then(|v| v.as_str()))
            .filter(|p| !p.trim().is_empty())
    }
    /// What to fetch for a grid tile: the thumbnail, else the image itself, else a sound's
    /// own file (the thumbnail pipeline draws its waveform).
    pub fn thumbnail_source(&self) -> Option<&str> {
        self.thumbnail_url
            .as_deref()
            .filter(|u| !u.is_empty())
            .or_else(|| {
                (matches!(self.kind(), "image" | "audio") && !self.url.is_empty())
                    .then_some(self.url.as_str())
            })
    }
}

/// `generationId` (or a spelling of it) in an item's metadata.
fn generation_id_in(metadata: &serde_json::Map<String, serde_json::Value>) -> Option<&str> {
    ["generationId", "generation_id", "generationID"]
        .iter()
        .filter_map(|k| metadata.get(*k))
        .filter_map(|v| v.as_str())
        .map(str::trim)
        .find(|v| !v.is_empty())
}

/// The single-item shape (GET /v1/media/:id): camelCase, no thumbnail_url (it is in
/// `metadata.thumbnailUrl`), no prompt/width/height.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MediaDetail {
    #[serde(deserialize_with = "null_default", alias = "_id")]
    pub id: String,
    #[serde(rename = "type", deserialize_with = "lenient_string")]
    pub item_type: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub category: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub filename: Option<String>,
    #[serde(deserialize_with = "null_default")]
    pub url: String,
    #[serde(deserialize_with = "lenient_u64")]
    pub size: Option<u64>,
    #[serde(deserialize_with = "lenient_string")]
    pub created: Option<String>,
    #[serde(deserialize_with = "lenient_string", rename = "projectId")]
    pub project_id: Option<String>,
    #[serde(deserialize_with = "lenient_f64", rename = "creditsUsed")]
    pub credits_used: Option<f64>,
    #[serde(deserialize_with = "lenient_bool", rename = "isFavorited")]
    pub is_favorited: Option<bool>,
    #[serde(deserialize_with = "lenient_string", rename = "generationType")]
    pub generation_type: Option<String>,
    #[serde(deserialize_with = "lenient_f64", rename = "generationDurationSeconds")]
    pub generation_duration_seconds: Option<f64>,
    /// The shape carries both `sessionId` and `session_id` (same value): no alias here,
    /// or serde would reject the answer for a duplicate field.
    #[serde(deserialize_with = "lenient_string", rename = "sessionId")]
    pub session_id: Option<String>,
    #[serde(deserialize_with = "lenient_string", rename = "userId")]
    pub user_id: Option<String>,
    #[serde(deserialize_with = "lenient_string", rename = "userEmail")]
    pub user_email: Option<String>,
    #[serde(deserialize_with = "lenient_string", rename = "userName")]
    pub user_name: Option<String>,
    /// Absent for types without a hide state.
    #[serde(deserialize_with = "lenient_bool", rename = "isDisliked")]
    pub is_disliked: Option<bool>,
    #[serde(deserialize_with = "lenient_string", rename = "sessionType")]
    pub session_type: Option<String>,
    #[serde(deserialize_with = "null_default")]
    pub metadata: serde_json::Map<String, serde_json::Value>,
}

impl MediaDetail {
    /// The thumbnail lives in `metadata.thumbnailUrl` in this shape.
    pub fn thumbnail_url(&self) -> Option<&str> {
        ["thumbnailUrl", "thumbnail_url"]
            .iter()
            .filter_map(|k| self.metadata.get(*k))
            .filter_map(|v| v.as_str())
            .find(|v| !v.is_empty())
    }
    pub fn generation_id(&self) -> Option<&str> {
        generation_id_in(&self.metadata)
    }
    pub fn prompt(&self) -> Option<&str> {
        self.metadata
            .get("prompt")
            .and_then(|v| v.as_str())
            .filter(|p| !p.trim().is_empty())
    }
}

/// `pagination` of GET /v1/media. `total_items` is only real on page 1 (-1 later).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Pagination {
    #[serde(deserialize_with = "lenient_u32")]
    pub page: Option<u32>,
    #[serde(deserialize_with = "lenient_u32", alias = "pageSize")]
    pub page_size: Option<u32>,
    #[serde(deserialize_with = "lenient_f64", alias = "totalItems")]
    pub total_items: Option<f64>,
    #[serde(deserialize_with = "lenient_u32", alias = "totalPages")]
    pub total_pages: Option<u32>,
    #[serde(deserialize_with = "lenient_bool", alias = "hasNext")]
    pub has_next: Option<bool>,
}

impl Pagination {
    /// The total when the service computed it (page 1); `None` for the -1 of later pages.
    pub fn known_total(&self) -> Option<u64> {
        self.total_items.filter(|t| *t >= 0.0).map(|t| t as u64)
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct MediaPage {
    pub items: Vec<MediaItem>,
    pub pagination: Pagination,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Folder {
    #[serde(deserialize_with = "null_default", alias = "_id")]
    pub id: String,
    #[serde(deserialize_with = "null_default")]
    pub name: String,
    #[serde(deserialize_with = "lenient_string")]
    pub description: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub color: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub icon: Option<String>,
    #[serde(deserialize_with = "lenient_u64", alias = "itemCount")]
    pub item_count: Option<u64>,
    #[serde(deserialize_with = "lenient_bool", alias = "isOwner")]
    pub is_owner: Option<bool>,
    #[serde(deserialize_with = "lenient_u32", alias = "sharedWithCount")]
    pub shared_with_count: Option<u32>,
    #[serde(deserialize_with = "string_list", alias = "sharedWith")]
    pub shared_with: Vec<String>,
    /// Null for every folder created through the API.
    #[serde(deserialize_with = "lenient_string", alias = "projectId")]
    pub project_id: Option<String>,
    #[serde(deserialize_with = "lenient_string", alias = "createdAt")]
    pub created_at: Option<String>,
    #[serde(deserialize_with = "lenient_string", alias = "lastUpdated")]
    pub last_updated: Option<String>,
}

/// Fields of POST/PUT /media/folders. `None` = not sent (PUT leaves it unchanged).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FolderFields {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MediaStats {
    #[serde(deserialize_with = "lenient_u64")]
    pub total: Option<u64>,
    #[serde(deserialize_with = "lenient_u64")]
    pub images: Option<u64>,
    #[serde(deserialize_with = "lenient_u64")]
    pub videos: Option<u64>,
    #[serde(deserialize_with = "lenient_u64")]
    pub audio: Option<u64>,
    #[serde(deserialize_with = "lenient_u64", alias = "totalSizeBytes")]
    pub total_size_bytes: Option<u64>,
}

/// Answer of POST /media/upload-ticket (for browser flows without a key).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct UploadTicket {
    #[serde(deserialize_with = "null_default")]
    pub token: String,
    #[serde(deserialize_with = "null_default", alias = "uploadUrl")]
    pub upload_url: String,
    #[serde(
        deserialize_with = "lenient_f64",
        rename = "expires_in",
        alias = "expiresIn"
    )]
    pub expires_in_secs: Option<f64>,
    #[serde(deserialize_with = "lenient_f64", alias = "maxFileMb")]
    pub max_file_mb: Option<f64>,
}

/// Which bulk route (POST /media/bulk/...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BulkAction {
    Trash,
    Restore,
    DeleteForever,
}

impl BulkAction {
    /// Route under /v1.
    pub fn path(self) -> &'static str {
        match self {
            BulkAction::Trash => "/v1/media/bulk/delete",
            BulkAction::Restore => "/v1/media/bulk/restore",
            BulkAction::DeleteForever => "/v1/media/bulk/permanent",
        }
    }
}

/// Answer of a bulk route: the count that took effect and how many did not.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BulkOutcome {
    pub affected: u64,
    /// Restore: `not_found`; delete/permanent: parsed from `errors[0].error` when present.
    pub not_affected: Option<u64>,
    pub message: Option<String>,
}

impl BulkOutcome {
    /// Add the outcome of one more chunk of the same bulk call.
    pub fn absorb(&mut self, chunk: BulkOutcome) {
        // Saturating: the counts come from the network.
        self.affected = self.affected.saturating_add(chunk.affected);
        self.not_affected = match (self.not_affected, chunk.not_affected) {
            (Some(a), Some(b)) => Some(a.saturating_add(b)),
            (a, b) => a.or(b),
        };
        if chunk.message.is_some() {
            self.message = chunk.message;
        }
    }
}

/// Answer of POST /media/folders/:id/items.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FolderAddOutcome {
    #[serde(deserialize_with = "lenient_u64")]
    pub added: Option<u64>,
    #[serde(deserialize_with = "lenient_u64")]
    pub skipped: Option<u64>,
    #[serde(deserialize_with = "string_list")]
    pub rejected: Vec<String>,
}

impl FolderAddOutcome {
    /// Add the answer of one more chunk of a split call.
    pub fn absorb(&mut self, chunk: FolderAddOutcome) {
        // Saturating: the counts come from the network.
        let sum = |total: Option<u64>, more: Option<u64>| {
            Some(total.unwrap_or(0).saturating_add(more.unwrap_or(0)))
        };
        self.added = sum(self.added, chunk.added);
        self.skipped = sum(self.skipped, chunk.skipped);
        self.rejected.extend(chunk.rejected);
    }
}

/// Answer of POST /media/folders/:id/share.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ShareOutcome {
    pub folder: Option<Folder>,
    #[serde(deserialize_with = "string_list")]
    pub shared_with_user_ids: Vec<String>,
    #[serde(deserialize_with = "string_list")]
    pub not_found: Vec<String>,
}
