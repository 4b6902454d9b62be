//! Moodboards: GET/POST /v1/moodboards, GET/PUT/DELETE /v1/moodboards/:id. The contract
//! lists the routes and the media list's `moodboard_id` filter; the shapes are the
//! reference's (the service's MCP server): `{moodboards[{id, name, master_prompt,
//! thumbnail_url, images[]}], count}`, create `{name, images:[{type:"url",url}] 1-15,
//! style_guide <= 500}`. No egui here.

use super::lenient::{lenient_list, lenient_string, lenient_u32, null_default};
use serde::{Deserialize, Serialize};

pub const MOODBOARD_MIN_IMAGES: usize = 1;
pub const MOODBOARD_MAX_IMAGES: usize = 15;
pub const MOODBOARD_STYLE_GUIDE_MAX_CHARS: usize = 500;
pub const MOODBOARD_NAME_MAX_CHARS: usize = 100;

/// One image of a moodboard: read from a bare URL string or `{type, url}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MoodboardImage {
    pub url: String,
}

impl<'de> Deserialize<'de> for MoodboardImage {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        let url = match &value {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Object(map) => map
                .get("url")
                .and_then(|u| u.as_str())
                .unwrap_or_default()
                .to_owned(),
            _ => String::new(),
        };
        Ok(MoodboardImage { url })
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Moodboard {
    #[serde(deserialize_with = "null_default")]
    pub id: String,
    #[serde(deserialize_with = "null_default")]
    pub name: String,
    #[serde(deserialize_with = "lenient_string", alias = "masterPrompt")]
    pub master_prompt: Option<String>,
    #[serde(deserialize_with = "lenient_string", alias = "styleGuide")]
    pub style_guide: Option<String>,
    #[serde(deserialize_with = "lenient_string", alias = "thumbnailUrl")]
    pub thumbnail_url: Option<String>,
    #[serde(deserialize_with = "lenient_list")]
    pub images: Vec<MoodboardImage>,
    #[serde(deserialize_with = "lenient_string", alias = "createdAt")]
    pub created_at: Option<String>,
}

impl Moodboard {
    pub fn image_urls(&self) -> impl Iterator<Item = &str> {
        self.images
            .iter()
            .map(|i| i.url.as_str())
            .filter(|u| !u.trim().is_empty())
    }
}

/// GET /v1/moodboards.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct MoodboardList {
    #[serde(deserialize_with = "lenient_list")]
    pub moodboards: Vec<Moodboard>,
    #[serde(deserialize_with = "lenient_u32")]
    pub count: Option<u32>,
}

/// POST/GET/PUT /v1/moodboards(/:id): `{success, moodboard}`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct MoodboardEnvelope {
    pub moodboard: Option<Moodboard>,
}

/// Body of POST /v1/moodboards and PUT /v1/moodboards/:id (images are http(s) URLs: local
/// files are uploaded to the library first).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MoodboardFields {
    pub name: String,
    /// Sent as `[{"type":"url","url":...}]`.
    #[serde(serialize_with = "url_objects")]
    pub images: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub style_guide: Option<String>,
}

fn url_objects<S: serde::Serializer>(urls: &[String], serializer: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = serializer.serialize_seq(Some(urls.len()))?;
    for url in urls {
        seq.serialize_element(&serde_json::json!({"type": "url", "url": url}))?;
    }
    seq.end()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_read_as_strings_or_objects_and_are_sent_as_objects() {
        let board: Moodboard = serde_json::from_str(
            r#"{"id":"m1","name":"Dusk","images":["https://h/a.jpg",{"type":"url","url":"https://h/b.jpg"},7]}"#,
        )
        .unwrap();
        assert_eq!(
            board.image_urls().collect::<Vec<_>>(),
            ["https://h/a.jpg", "https://h/b.jpg"]
        );
        let body = serde_json::to_value(MoodboardFields {
            name: "Dusk".into(),
            images: vec!["https://h/a.jpg".into()],
            style_guide: None,
        })
        .unwrap();
        assert_eq!(body["images"][0]["type"], "url");
        assert!(body.get("style_guide").is_none());
    }
}
