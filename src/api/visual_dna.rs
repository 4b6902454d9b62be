//! Visual DNA (characters, products, styles, environments): the records of
//! /v1/visual-dna and its folders. Shapes from the wire examples (`post_visual_dna.json`,
//! `get_visual_dna_list.json`, `get_visual_dna_by_id.json`, `delete_visual_dna.json`);
//! fields only the reference names (status, folder, prompt helper) are read when present.
//! No egui here.

use super::lenient::{
    lenient_bool, lenient_list, lenient_string, lenient_u32, null_default, string_list,
};
use serde::{Deserialize, Serialize};

/// `dna_type` of a Visual DNA (reference: character/product/style/environment).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DnaType {
    #[default]
    Character,
    Product,
    Style,
    Environment,
}

impl DnaType {
    pub const ALL: [DnaType; 4] = [
        DnaType::Character,
        DnaType::Product,
        DnaType::Style,
        DnaType::Environment,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            DnaType::Character => "character",
            DnaType::Product => "product",
            DnaType::Style => "style",
            DnaType::Environment => "environment",
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            DnaType::Character => "Character",
            DnaType::Product => "Product",
            DnaType::Style => "Style",
            DnaType::Environment => "Environment",
        }
    }
    /// The type named by a wire string (case-insensitive); unknown names read as `None`.
    pub fn parse(value: &str) -> Option<DnaType> {
        DnaType::ALL
            .into_iter()
            .find(|t| t.as_str().eq_ignore_ascii_case(value.trim()))
    }
}

/// Upper bounds the reference gives for POST /v1/visual-dna.
pub const VISUAL_DNA_NAME_MAX_CHARS: usize = 100;
pub const VISUAL_DNA_MIN_IMAGES: usize = 1;
pub const VISUAL_DNA_MAX_IMAGES: usize = 4;

/// One Visual DNA. The list omits `description` and `system_prompt`; the get route has
/// both. `dna_type` is kept as the wire string so an unknown type still shows.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct VisualDna {
    #[serde(deserialize_with = "null_default")]
    pub id: String,
    #[serde(deserialize_with = "null_default")]
    pub name: String,
    #[serde(deserialize_with = "null_default", alias = "dnaType")]
    pub dna_type: String,
    #[serde(deserialize_with = "lenient_string")]
    pub description: Option<String>,
    #[serde(deserialize_with = "lenient_string", alias = "systemPrompt")]
    pub system_prompt: Option<String>,
    #[serde(deserialize_with = "lenient_string", alias = "promptHelper")]
    pub prompt_helper: Option<String>,
    #[serde(deserialize_with = "lenient_string", alias = "thumbnailUrl")]
    pub thumbnail_url: Option<String>,
    #[serde(deserialize_with = "string_list")]
    pub images: Vec<String>,
    #[serde(deserialize_with = "lenient_bool", alias = "isGlobal")]
    pub is_global: Option<bool>,
    /// "building" while the service analyses the images, then "ready" (or "failed");
    /// absent on the wire examples, which are all ready.
    #[serde(deserialize_with = "lenient_string")]
    pub status: Option<String>,
    #[serde(deserialize_with = "lenient_string", alias = "folderId")]
    pub folder_id: Option<String>,
    #[serde(deserialize_with = "lenient_string", alias = "createdAt")]
    pub created_at: Option<String>,
}

impl VisualDna {
    pub fn kind(&self) -> Option<DnaType> {
        DnaType::parse(&self.dna_type)
    }
    /// Built-in ones cannot be edited or deleted.
    pub fn is_global(&self) -> bool {
        self.is_global == Some(true)
    }
    /// Whether the service is still building it (usable only once ready).
    pub fn is_building(&self) -> bool {
        self.status.as_deref().is_some_and(|s| {
            s.eq_ignore_ascii_case("building") || s.eq_ignore_ascii_case("processing")
        })
    }
    pub fn is_failed(&self) -> bool {
        self.status
            .as_deref()
            .is_some_and(|s| s.eq_ignore_ascii_case("failed"))
    }
}

/// GET /v1/visual-dna: `{success, visual_dnas[], count}`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct VisualDnaList {
    #[serde(deserialize_with = "lenient_list", alias = "visualDnas")]
    pub visual_dnas: Vec<VisualDna>,
    #[serde(deserialize_with = "lenient_u32")]
    pub count: Option<u32>,
}

/// POST / GET / PUT /v1/visual-dna(/:id): `{success, visual_dna}`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct VisualDnaEnvelope {
    #[serde(alias = "visualDna")]
    pub visual_dna: Option<VisualDna>,
}

/// Query of GET /v1/visual-dna.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VisualDnaQuery {
    pub search: Option<String>,
    pub dna_type: Option<DnaType>,
    pub folder_id: Option<String>,
    /// 1-based.
    pub page: Option<u32>,
    pub limit: Option<u32>,
}

/// Fields of POST /v1/visual-dna (sent as multipart: `name`, `dna_type`, `images` one to
/// four files, `prompt_helper`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NewVisualDna {
    pub name: String,
    pub dna_type: DnaType,
    pub image_paths: Vec<std::path::PathBuf>,
    pub prompt_helper: Option<String>,
}

/// Body of PUT /v1/visual-dna/:id (JSON; `None` fields are left as they are).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct VisualDnaUpdate {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dna_type: Option<DnaType>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_helper: Option<String>,
}

/// One folder of /v1/visual-dna/folders.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct VisualDnaFolder {
    #[serde(deserialize_with = "null_default")]
    pub id: String,
    #[serde(deserialize_with = "null_default")]
    pub name: String,
    #[serde(deserialize_with = "lenient_u32", alias = "itemCount")]
    pub item_count: Option<u32>,
}
