//! Project documents (AI Docs, document 2) as Rust: the metadata and the full document,
//! one page of the list, the request bodies, the title check that runs before anything is
//! sent, and the routes on [`ApiClient`].
//!
//! Content travels as HTML. The service sanitises it on every write; the studio converts
//! its Markdown to the same allowed HTML before sending (see `crate::markup`).

use super::client::{ApiClient, encode_segment};
use super::error::ApiError;
use super::lenient::{lenient_bool, lenient_list, lenient_string, lenient_u32, null_default};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A title holds at most this many characters (contract: max 200).
pub const MAX_DOC_TITLE_CHARS: usize = 200;
/// Page size the service uses when none is asked for.
pub const DEFAULT_DOC_PAGE_SIZE: u32 = 20;
/// Largest page the service serves (larger asks are clamped to it).
pub const MAX_DOC_PAGE_SIZE: u32 = 50;

// ---------------------------------------------------------------------------------------
// Resources
// ---------------------------------------------------------------------------------------

/// A document's metadata, as every docs route returns it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct DocMeta {
    #[serde(deserialize_with = "text_or_empty", alias = "_id")]
    pub id: String,
    #[serde(deserialize_with = "text_or_empty")]
    pub title: String,
    #[serde(deserialize_with = "lenient_string", alias = "projectId")]
    pub project_id: Option<String>,
    #[serde(deserialize_with = "bool_or_false", alias = "isShared")]
    pub is_shared: bool,
    #[serde(deserialize_with = "bool_or_false", alias = "isEditableByLink")]
    pub is_editable_by_link: bool,
    /// `{base_url}/share/docs/{token}` while shared; `None` once unshared.
    #[serde(deserialize_with = "lenient_string", alias = "shareUrl")]
    pub share_url: Option<String>,
    /// ISO 8601 UTC.
    #[serde(deserialize_with = "lenient_string", alias = "createdAt")]
    pub created_at: Option<String>,
    #[serde(deserialize_with = "lenient_string", alias = "updatedAt")]
    pub updated_at: Option<String>,
}

impl DocMeta {
    /// The title to show: an untitled document reads "Untitled".
    pub fn display_title(&self) -> &str {
        let title = self.title.trim();
        if title.is_empty() { "Untitled" } else { title }
    }

    /// `updated_at` in Unix milliseconds (falls back to `created_at`).
    pub fn updated_unix_ms(&self) -> Option<i64> {
        let parse = |text: &Option<String>| {
            chrono::DateTime::parse_from_rfc3339(text.as_deref()?.trim())
                .ok()
                .map(|t| t.timestamp_millis())
        };
        parse(&self.updated_at).or_else(|| parse(&self.created_at))
    }
}

/// A whole document: its metadata and its stored (sanitised) HTML.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Doc {
    pub meta: DocMeta,
    pub content: String,
}

/// `pagination` of GET /docs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct DocPagination {
    #[serde(deserialize_with = "lenient_u32")]
    pub page: Option<u32>,
    #[serde(deserialize_with = "lenient_u32")]
    pub limit: Option<u32>,
    #[serde(deserialize_with = "lenient_u32")]
    pub total: Option<u32>,
    #[serde(deserialize_with = "lenient_u32")]
    pub pages: Option<u32>,
}

/// One page of the document list (most recently updated first).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DocPage {
    pub docs: Vec<DocMeta>,
    pub pagination: DocPagination,
}

impl DocPage {
    /// Whether a page after `page` exists.
    pub fn has_more_after(&self, page: u32) -> bool {
        self.pagination.pages.is_some_and(|pages| page < pages)
    }
}

fn text_or_empty<'de, D>(deserializer: D) -> Result<String, D::Error>
where
    D: serde::Deserializer<'de>,
{
    Ok(lenient_string(deserializer)?.unwrap_or_default())
}

fn bool_or_false<'de, D>(deserializer: D) -> Result<bool, D::Error>
where
    D: serde::Deserializer<'de>,
{
    Ok(lenient_bool(deserializer)?.unwrap_or(false))
}

/// `{success, docs, pagination}`; `documents` and `data` are read too.
#[derive(Deserialize, Default)]
#[serde(default)]
struct DocListWire {
    #[serde(deserialize_with = "doc_list", alias = "documents", alias = "data")]
    docs: Vec<DocMeta>,
    #[serde(deserialize_with = "null_default")]
    pagination: DocPagination,
}

fn doc_list<'de, D>(deserializer: D) -> Result<Vec<DocMeta>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let mut docs: Vec<DocMeta> = lenient_list(deserializer)?;
    docs.retain(|doc| !doc.id.is_empty());
    Ok(docs)
}

/// `{success, doc}` (`document` read too); `content` sits beside the metadata.
#[derive(Deserialize, Default)]
#[serde(default)]
struct DocWire {
    #[serde(alias = "document")]
    doc: Option<Value>,
}

impl DocWire {
    fn into_doc(self) -> Result<Doc, ApiError> {
        let value = self
            .doc
            .ok_or_else(|| ApiError::Decode("the answer carried no doc".into()))?;
        let content = match value.get("content") {
            Some(Value::String(html)) => html.clone(),
            _ => String::new(),
        };
        let meta: DocMeta =
            serde_json::from_value(value).map_err(|e| ApiError::Decode(e.to_string()))?;
        if meta.id.is_empty() {
            return Err(ApiError::Decode("the document's id was missing".into()));
        }
        Ok(Doc { meta, content })
    }
}

// ---------------------------------------------------------------------------------------
// Request bodies and checks
// ---------------------------------------------------------------------------------------

/// Body of POST /docs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct NewDoc {
    pub title: String,
    /// HTML; sanitised by the service.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Omitted: the caller's default project.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
}

/// Body of PUT /docs/:id: only what is present changes; `content` replaces the whole body.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DocUpdate {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

/// What is wrong with a title, in words for the field (`None`: it can be sent).
pub fn check_doc_title(title: &str) -> Option<String> {
    let chars = title.trim().chars().count();
    if chars == 0 {
        Some("Give the document a title.".to_owned())
    } else if chars > MAX_DOC_TITLE_CHARS {
        Some(format!(
            "Use at most {MAX_DOC_TITLE_CHARS} characters ({chars} now)."
        ))
    } else {
        None
    }
}

// ---------------------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------------------

impl ApiClient {
    /// GET /v1/docs: one page, most recently updated first. `project_id: None` lists every
    /// project the caller can read. `page` is at least 1 and `limit` 1-50 here too (the
    /// service clamps the same way), so the numbers agree with what comes back.
    pub async fn list_docs(
        &self,
        project_id: Option<&str>,
        page: u32,
        limit: u32,
    ) -> Result<DocPage, ApiError> {
        let mut query: Vec<(&str, String)> = vec![
            ("page", page.max(1).to_string()),
            ("limit", limit.clamp(1, MAX_DOC_PAGE_SIZE).to_string()),
        ];
        if let Some(project_id) = project_id.map(str::trim).filter(|p| !p.is_empty()) {
            query.push(("project_id", project_id.to_owned()));
        }
        let request = self.service.get(self.url("/v1/docs")).query(&query);
        let wire: DocListWire = self.json(request).await?;
        Ok(DocPage {
            docs: wire.docs,
            pagination: wire.pagination,
        })
    }

    /// GET /v1/docs/:id: metadata and the stored HTML.
    pub async fn get_doc(&self, id: &str) -> Result<Doc, ApiError> {
        let url = self.url(&format!("/v1/docs/{}", encode_segment(id)));
        self.json::<DocWire>(self.service.get(url))
            .await?
            .into_doc()
    }

    /// POST /v1/docs (201): the new document's metadata.
    pub async fn create_doc(&self, body: &NewDoc) -> Result<DocMeta, ApiError> {
        let request = self.service.post(self.url("/v1/docs")).json(body);
        Ok(self.json::<DocWire>(request).await?.into_doc()?.meta)
    }

    /// PUT /v1/docs/:id: the stored document as the service kept it.
    pub async fn update_doc(&self, id: &str, fields: &DocUpdate) -> Result<Doc, ApiError> {
        let url = self.url(&format!("/v1/docs/{}", encode_segment(id)));
        self.json::<DocWire>(self.service.put(url).json(fields))
            .await?
            .into_doc()
    }

    /// PATCH /v1/docs/:id/share: sets (never toggles) sharing. `editable` lets link
    /// visitors edit; it is sent only while sharing (unsharing clears it on the service).
    pub async fn share_doc(
        &self,
        id: &str,
        shared: bool,
        editable: bool,
    ) -> Result<DocMeta, ApiError> {
        let url = self.url(&format!("/v1/docs/{}/share", encode_segment(id)));
        let body = if shared {
            json!({ "shared": true, "editable": editable })
        } else {
            json!({ "shared": false })
        };
        Ok(self
            .json::<DocWire>(self.service.patch(url).json(&body))
            .await?
            .into_doc()?
            .meta)
    }

    /// DELETE /v1/docs/:id (owner only). A soft delete with no restore route: callers
    /// that offer Undo must wait before sending this.
    pub async fn delete_doc(&self, id: &str) -> Result<(), ApiError> {
        let url = self.url(&format!("/v1/docs/{}", encode_segment(id)));
        let _: Value = self.json(self.service.delete(url)).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_decodes_leniently_and_skips_docs_without_an_id() {
        let wire: DocListWire = serde_json::from_value(json!({
            "success": true,
            "docs": [
                {"id": "65a000000000000000000001", "title": "Call sheet", "project_id": "p1",
                 "is_shared": "true", "is_editable_by_link": null, "share_url": null,
                 "created_at": "2026-11-25T10:30:00.000Z",
                 "updated_at": "2026-11-25T11:30:00.000Z"},
                {"title": "no id"},
                "not an object"
            ],
            "pagination": {"page": 1, "limit": "20", "total": 1, "pages": 1}
        }))
        .unwrap();
        assert_eq!(wire.docs.len(), 1);
        let doc = &wire.docs[0];
        assert!(doc.is_shared && !doc.is_editable_by_link);
        assert_eq!(doc.share_url, None);
        assert_eq!(wire.pagination.limit, Some(20));
        assert_eq!(
            doc.updated_unix_ms(),
            Some(
                chrono::DateTime::parse_from_rfc3339("2026-11-25T11:30:00Z")
                    .unwrap()
                    .timestamp_millis()
            )
        );
        let page = DocPage {
            docs: wire.docs,
            pagination: wire.pagination,
        };
        assert!(!page.has_more_after(1));
    }

    #[test]
    fn a_doc_carries_its_content_beside_the_metadata() {
        let wire: DocWire = serde_json::from_value(json!({
            "success": true,
            "doc": {"id": "d1", "title": "T", "content": "<p>Hi</p>", "is_shared": false}
        }))
        .unwrap();
        let doc = wire.into_doc().unwrap();
        assert_eq!(doc.meta.id, "d1");
        assert_eq!(doc.content, "<p>Hi</p>");
        // Create answers carry no content.
        let meta_only: DocWire =
            serde_json::from_value(json!({"success": true, "doc": {"id": "d2", "title": ""}}))
                .unwrap();
        let doc = meta_only.into_doc().unwrap();
        assert_eq!(
            (doc.content.as_str(), doc.meta.display_title()),
            ("", "Untitled")
        );
        let empty: DocWire = serde_json::from_value(json!({"success": true})).unwrap();
        assert!(matches!(empty.into_doc(), Err(ApiError::Decode(_))));
    }

    #[test]
    fn bodies_send_only_what_is_set() {
        let body = serde_json::to_value(NewDoc {
            title: "T".into(),
            content: None,
            project_id: Some("p1".into()),
        })
        .unwrap();
        assert_eq!(body, json!({"title": "T", "project_id": "p1"}));
        let update = serde_json::to_value(DocUpdate {
            title: None,
            content: Some("<p>x</p>".into()),
        })
        .unwrap();
        assert_eq!(update, json!({"content": "<p>x</p>"}));
    }

    #[test]
    fn titles_are_checked_at_the_field() {
        assert!(check_doc_title("Call sheet").is_none());
        assert!(check_doc_title("   ").is_some());
        assert!(check_doc_title(&"é".repeat(200)).is_none());
        let message = check_doc_title(&"é".repeat(201)).unwrap();
        assert!(message.contains("201"), "{message}");
    }
}
