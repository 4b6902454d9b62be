//! The Visual DNA and moodboard routes on [`ApiClient`]: /v1/visual-dna (multipart
//! create, JSON update), its folders, and /v1/moodboards. Shapes in `visual_dna.rs` and
//! `moodboards.rs`. No egui here.

use super::client::{ApiClient, encode_segment, streamed_file_part};
use super::error::ApiError;
use super::lenient::{lenient_list, lenient_u32};
use super::moodboards::{Moodboard, MoodboardEnvelope, MoodboardFields, MoodboardList};
use super::visual_dna::{
    NewVisualDna, VISUAL_DNA_MAX_IMAGES, VISUAL_DNA_MIN_IMAGES, VISUAL_DNA_NAME_MAX_CHARS,
    VisualDna, VisualDnaEnvelope, VisualDnaFolder, VisualDnaQuery, VisualDnaUpdate,
};
use serde::Deserialize;
use serde_json::{Value, json};

/// Page size `visual_dna_all` asks for.
pub const VISUAL_DNA_PAGE_SIZE: u32 = 100;
/// Pages `visual_dna_all` reads at most (a bound on one refresh's calls).
pub const VISUAL_DNA_MAX_PAGES: u32 = 50;

/// One page of GET /v1/visual-dna.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VisualDnaPage {
    pub entries: Vec<VisualDna>,
    /// All matching entries (when the service says).
    pub total: Option<u32>,
    pub page: Option<u32>,
    pub limit: Option<u32>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct PageAnswer {
    #[serde(deserialize_with = "lenient_list", alias = "visualDnas")]
    visual_dnas: Vec<VisualDna>,
    #[serde(deserialize_with = "lenient_u32")]
    total: Option<u32>,
    #[serde(deserialize_with = "lenient_u32")]
    page: Option<u32>,
    #[serde(deserialize_with = "lenient_u32")]
    limit: Option<u32>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct FoldersAnswer {
    #[serde(deserialize_with = "lenient_list")]
    folders: Vec<VisualDnaFolder>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct FolderAnswer {
    folder: Option<VisualDnaFolder>,
}

/// Checks a create runs before sending (the service checks again): name 1-100 characters
/// after trimming, 1-4 images.
pub fn check_new_visual_dna(new: &NewVisualDna) -> Result<(), ApiError> {
    let name_chars = new.name.trim().chars().count();
    if name_chars == 0 {
        return Err(ApiError::Invalid("a Visual DNA needs a name".into()));
    }
    if name_chars > VISUAL_DNA_NAME_MAX_CHARS {
        return Err(ApiError::Invalid(format!(
            "a Visual DNA name is at most {VISUAL_DNA_NAME_MAX_CHARS} characters"
        )));
    }
    let images = new.image_paths.len();
    if !(VISUAL_DNA_MIN_IMAGES..=VISUAL_DNA_MAX_IMAGES).contains(&images) {
        return Err(ApiError::Invalid(format!(
            "a Visual DNA takes {VISUAL_DNA_MIN_IMAGES} to {VISUAL_DNA_MAX_IMAGES} images \
({images} given)"
        )));
    }
    Ok(())
}

fn no_entry() -> ApiError {
    ApiError::Decode("the answer carried no Visual DNA".into())
}

fn no_folder() -> ApiError {
    ApiError::Decode("the answer carried no folder".into())
}

fn no_moodboard() -> ApiError {
    ApiError::Decode("the answer carried no moodboard".into())
}

/// The query string of GET /v1/visual-dna: only the values given.
pub fn visual_dna_params(query: &VisualDnaQuery) -> Vec<(&'static str, String)> {
    let mut params = Vec::new();
    if let Some(search) = query
        .search
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        params.push(("search", search.to_owned()));
    }
    if let Some(dna_type) = query.dna_type {
        params.push(("dna_type", dna_type.as_str().to_owned()));
    }
    if let Some(folder_id) = query
        .folder_id
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        params.push(("folder_id", folder_id.to_owned()));
    }
    if let Some(page) = query.page {
        params.push(("page", page.to_string()));
    }
    if let Some(limit) = query.limit {
        params.push(("limit", limit.to_string()));
    }
    params
}

impl ApiClient {
    /// GET /v1/visual-dna: one page.
    pub async fn visual_dna_page(&self, query: &VisualDnaQuery) -> Result<VisualDnaPage, ApiError> {
        let request = self
            .service
            .get(self.url("/v1/visual-dna"))
            .query(&visual_dna_params(query));
        let answer: PageAnswer = self.json(request).await?;
        Ok(VisualDnaPage {
            entries: answer.visual_dnas,
            total: answer.total,
            page: answer.page,
            limit: answer.limit,
        })
    }

    /// Every page of GET /v1/visual-dna (globals first, then newest first), stopping at an
    /// empty or short page, or once `total` entries are read.
    pub async fn visual_dna_all(&self) -> Result<Vec<VisualDna>, ApiError> {
        let mut entries: Vec<VisualDna> = Vec::new();
        for page in 1..=VISUAL_DNA_MAX_PAGES {
            let query = VisualDnaQuery {
                page: Some(page),
                limit: Some(VISUAL_DNA_PAGE_SIZE),
                ..VisualDnaQuery::default()
            };
            let answer = self.visual_dna_page(&query).await?;
            let got = answer.entries.len();
            for entry in answer.entries {
                // A page boundary that moved under us (a create between calls) may repeat one.
                if !entries.iter().any(|e| e.id == entry.id) {
                    entries.push(entry);
                }
            }
            let limit = answer.limit.unwrap_or(VISUAL_DNA_PAGE_SIZE).max(1) as usize;
            let done_by_total = answer
                .total
                .is_some_and(|total| entries.len() >= total as usize);
            if got == 0 || got < limit || done_by_total {
                break;
            }
        }
        Ok(entries)
    }

    /// GET /v1/visual-dna/:id (with description and system prompt).
    pub async fn visual_dna(&self, id: &str) -> Result<VisualDna, ApiError> {
        let url = self.url(&format!("/v1/visual-dna/{}", encode_segment(id)));
        let answer: VisualDnaEnvelope = self.json(self.service.get(url)).await?;
        answer.visual_dna.ok_or_else(no_entry)
    }

    /// POST /v1/visual-dna (multipart: `name`, `dna_type`, `images` ×1-4, `prompt_helper`).
    /// Checked first ([`check_new_visual_dna`]); the images are streamed from disk.
    pub async fn create_visual_dna(&self, new: &NewVisualDna) -> Result<VisualDna, ApiError> {
        check_new_visual_dna(new)?;
        let mut form = reqwest::multipart::Form::new()
            .text("name", new.name.trim().to_owned())
            .text("dna_type", new.dna_type.as_str().to_owned());
        if let Some(helper) = new
            .prompt_helper
            .as_deref()
            .map(str::trim)
            .filter(|h| !h.is_empty())
        {
            form = form.text("prompt_helper", helper.to_owned());
        }
        for path in &new.image_paths {
            form = form.part("images", streamed_file_part(path, None).await?);
        }
        let request = self
            .service
            .post(self.url("/v1/visual-dna"))
            .multipart(form);
        let answer: VisualDnaEnvelope = self.json(request).await?;
        answer.visual_dna.ok_or_else(no_entry)
    }

    /// PUT /v1/visual-dna/:id (a built-in one is refused with 403).
    pub async fn update_visual_dna(
        &self,
        id: &str,
        update: &VisualDnaUpdate,
    ) -> Result<VisualDna, ApiError> {
        let url = self.url(&format!("/v1/visual-dna/{}", encode_segment(id)));
        let answer: VisualDnaEnvelope = self.json(self.service.put(url).json(update)).await?;
        answer.visual_dna.ok_or_else(no_entry)
    }

    /// DELETE /v1/visual-dna/:id (a built-in one is refused with 403).
    pub async fn delete_visual_dna(&self, id: &str) -> Result<(), ApiError> {
        let url = self.url(&format!("/v1/visual-dna/{}", encode_segment(id)));
        let _: Value = self.json(self.service.delete(url)).await?;
        Ok(())
    }

    /// PUT /v1/visual-dna/:id/folder (`None`: out of any folder).
    pub async fn move_visual_dna(
        &self,
        id: &str,
        folder_id: Option<&str>,
    ) -> Result<VisualDna, ApiError> {
        let url = self.url(&format!("/v1/visual-dna/{}/folder", encode_segment(id)));
        let body = json!({ "folder_id": folder_id });
        let answer: VisualDnaEnvelope = self.json(self.service.put(url).json(&body)).await?;
        answer.visual_dna.ok_or_else(no_entry)
    }

    /// GET /v1/visual-dna/folders.
    pub async fn visual_dna_folders(&self) -> Result<Vec<VisualDnaFolder>, ApiError> {
        let answer: FoldersAnswer = self
            .json(self.service.get(self.url("/v1/visual-dna/folders")))
            .await?;
        Ok(answer.folders)
    }

    /// POST /v1/visual-dna/folders.
    pub async fn create_visual_dna_folder(&self, name: &str) -> Result<VisualDnaFolder, ApiError> {
        let name = checked_folder_name(name)?;
        let request = self
            .service
            .post(self.url("/v1/visual-dna/folders"))
            .json(&json!({ "name": name }));
        let answer: FolderAnswer = self.json(request).await?;
        answer.folder.ok_or_else(no_folder)
    }

    /// PUT /v1/visual-dna/folders/:id.
    pub async fn rename_visual_dna_folder(
        &self,
        id: &str,
        name: &str,
    ) -> Result<VisualDnaFolder, ApiError> {
        let name = checked_folder_name(name)?;
        let url = self.url(&format!("/v1/visual-dna/folders/{}", encode_segment(id)));
        let answer: FolderAnswer = self
            .json(self.service.put(url).json(&json!({ "name": name })))
            .await?;
        answer.folder.ok_or_else(no_folder)
    }

    /// DELETE /v1/visual-dna/folders/:id (its entries go back to no folder).
    pub async fn delete_visual_dna_folder(&self, id: &str) -> Result<(), ApiError> {
        let url = self.url(&format!("/v1/visual-dna/folders/{}", encode_segment(id)));
        let _: Value = self.json(self.service.delete(url)).await?;
        Ok(())
    }

    /// GET /v1/moodboards.
    pub async fn moodboards(&self) -> Result<Vec<Moodboard>, ApiError> {
        let answer: MoodboardList = self
            .json(self.service.get(self.url("/v1/moodboards")))
            .await?;
        Ok(answer.moodboards)
    }

    /// GET /v1/moodboards/:id.
    pub async fn moodboard(&self, id: &str) -> Result<Moodboard, ApiError> {
        let url = self.url(&format!("/v1/moodboards/{}", encode_segment(id)));
        let answer: MoodboardEnvelope = self.json(self.service.get(url)).await?;
        answer.moodboard.ok_or_else(no_moodboard)
    }

    /// POST /v1/moodboards (images must already be http(s) URLs). Checked first.
    pub async fn create_moodboard(&self, fields: &MoodboardFields) -> Result<Moodboard, ApiError> {
        check_moodboard_fields(fields)?;
        let request = self
            .service
            .post(self.url("/v1/moodboards"))
            .json(&trimmed(fields));
        let answer: MoodboardEnvelope = self.json(request).await?;
        answer.moodboard.ok_or_else(no_moodboard)
    }

    /// PUT /v1/moodboards/:id. Checked first.
    pub async fn update_moodboard(
        &self,
        id: &str,
        fields: &MoodboardFields,
    ) -> Result<Moodboard, ApiError> {
        check_moodboard_fields(fields)?;
        let url = self.url(&format!("/v1/moodboards/{}", encode_segment(id)));
        let answer: MoodboardEnvelope = self
            .json(self.service.put(url).json(&trimmed(fields)))
            .await?;
        answer.moodboard.ok_or_else(no_moodboard)
    }

    /// DELETE /v1/moodboards/:id.
    pub async fn delete_moodboard(&self, id: &str) -> Result<(), ApiError> {
        let url = self.url(&format!("/v1/moodboards/{}", encode_segment(id)));
        let _: Value = self.json(self.service.delete(url)).await?;
        Ok(())
    }
}

fn checked_folder_name(name: &str) -> Result<&str, ApiError> {
    let name = name.trim();
    if name.is_empty() {
        return Err(ApiError::Invalid("a folder needs a name".into()));
    }
    if name.chars().count() > VISUAL_DNA_NAME_MAX_CHARS {
        return Err(ApiError::Invalid(format!(
            "a folder name is at most {VISUAL_DNA_NAME_MAX_CHARS} characters"
        )));
    }
    Ok(name)
}

fn trimmed(fields: &MoodboardFields) -> MoodboardFields {
    MoodboardFields {
        name: fields.name.trim().to_owned(),
        images: fields
            .images
            .iter()
            .map(|u| u.trim().to_owned())
            .filter(|u| !u.is_empty())
            .collect(),
        style_guide: fields
            .style_guide
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned),
    }
}

/// Checks a moodboard save runs before sending: a name (≤ 100), 1-15 images, a style
/// guide of at most 500 characters.
pub fn check_moodboard_fields(fields: &MoodboardFields) -> Result<(), ApiError> {
    use super::moodboards::{
        MOODBOARD_MAX_IMAGES, MOODBOARD_MIN_IMAGES, MOODBOARD_NAME_MAX_CHARS,
        MOODBOARD_STYLE_GUIDE_MAX_CHARS,
    };
    let name_chars = fields.name.trim().chars().count();
    if name_chars == 0 {
        return Err(ApiError::Invalid("a moodboard needs a name".into()));
    }
    if name_chars > MOODBOARD_NAME_MAX_CHARS {
        return Err(ApiError::Invalid(format!(
            "a moodboard name is at most {MOODBOARD_NAME_MAX_CHARS} characters"
        )));
    }
    let images = fields
        .images
        .iter()
        .filter(|u| !u.trim().is_empty())
        .count();
    if !(MOODBOARD_MIN_IMAGES..=MOODBOARD_MAX_IMAGES).contains(&images) {
        return Err(ApiError::Invalid(format!(
            "a moodboard takes {MOODBOARD_MIN_IMAGES} to {MOODBOARD_MAX_IMAGES} images \
({images} given)"
        )));
    }
    let guide_chars = fields
        .style_guide
        .as_deref()
        .map(|s| s.trim().chars().count())
        .unwrap_or(0);
    if guide_chars > MOODBOARD_STYLE_GUIDE_MAX_CHARS {
        return Err(ApiError::Invalid(format!(
            "a style guide is at most {MOODBOARD_STYLE_GUIDE_MAX_CHARS} characters \
({guide_chars} given)"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::visual_dna::DnaType;

    #[test]
    fn list_params_send_only_what_is_set() {
        assert!(visual_dna_params(&VisualDnaQuery::default()).is_empty());
        let params = visual_dna_params(&VisualDnaQuery {
            search: Some("  cat ".into()),
            dna_type: Some(DnaType::Style),
            folder_id: Some(" ".into()),
            page: Some(2),
            limit: Some(10),
        });
        assert_eq!(
            params,
            vec![
                ("search", "cat".to_owned()),
                ("dna_type", "style".to_owned()),
                ("page", "2".to_owned()),
                ("limit", "10".to_owned()),
            ]
        );
    }

    #[test]
    fn creates_and_moodboards_are_checked_before_sending() {
        let mut new = NewVisualDna {
            name: "  ".into(),
            image_paths: vec!["a.jpg".into()],
            ..NewVisualDna::default()
        };
        assert!(check_new_visual_dna(&new).is_err());
        new.name = "Ada".into();
        assert!(check_new_visual_dna(&new).is_ok());
        new.image_paths = vec!["a.jpg".into(); 5];
        assert!(check_new_visual_dna(&new).is_err());
        new.image_paths.clear();
        assert!(check_new_visual_dna(&new).is_err());

        let mut board = MoodboardFields {
            name: "Dusk".into(),
            images: vec!["https://h/a.jpg".into()],
            style_guide: Some("x".repeat(500)),
        };
        assert!(check_moodboard_fields(&board).is_ok());
        board.style_guide = Some("x".repeat(501));
        assert!(check_moodboard_fields(&board).is_err());
        board.style_guide = None;
        board.images = vec!["https://h/a.jpg".into(); 16];
        assert!(check_moodboard_fields(&board).is_err());
    }
}
