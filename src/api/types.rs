//! The contract's resources as Rust types (document 1). Decoding is tolerant wherever the
//! contract or the wire examples are: absent fields, `{}`/`null` maps, camelCase variants
//! and unknown fields never fail a decode.

pub use super::audio::{
    AudioJobRequest, AudioVariation, MusicRequest, SoundRequest, SpeechRequest, Voice, VoiceFilter,
    is_audio_url,
};
pub use super::catalog_jobs::{
    CatalogJobRequest, ElementsRequest, FirstLastFrameRequest, LipsyncRequest, ThreeDMode,
    ThreeDRequest,
};
use super::lenient::{
    lenient_bool, lenient_f64, lenient_list, lenient_string, lenient_u32, lenient_u64, list_map,
    multiplier_map, null_default, number_list, string_list,
};
pub use super::transcription::TranscriptionRequest;
pub use super::video_edit::{
    ExtendMode, LipsyncSource, RetakeMode, TrimJob, TrimRequest, TrimStatus, VideoEditOperation,
    VideoEditOperationKind, VideoEditRequest, VideoJobRequest, VideoToVideoRequest,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

// ---------------------------------------------------------------------------------------
// Model catalog (GET /v1/models)
// ---------------------------------------------------------------------------------------

/// One model record. Only fields the studio uses are typed; the rest are ignored.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct ModelRecord {
    #[serde(deserialize_with = "null_default")]
    pub identifier: String,
    #[serde(deserialize_with = "null_default")]
    pub name: String,
    #[serde(deserialize_with = "null_default")]
    pub provider: String,
    #[serde(deserialize_with = "string_list")]
    pub types: Vec<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub avatar: Option<String>,
    #[serde(deserialize_with = "lenient_f64")]
    pub credit: Option<f64>,
    #[serde(deserialize_with = "lenient_f64")]
    pub video_input_credit: Option<f64>,
    #[serde(deserialize_with = "multiplier_map")]
    pub video_input_resolution_multipliers: BTreeMap<String, f64>,
    #[serde(deserialize_with = "lenient_bool")]
    pub recommended: Option<bool>,
    #[serde(deserialize_with = "lenient_bool", alias = "newModel")]
    pub new_model: Option<bool>,
    #[serde(deserialize_with = "lenient_string")]
    pub summary: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub model_type: Option<String>,
    #[serde(deserialize_with = "lenient_f64")]
    pub estimated_duration_seconds: Option<f64>,

    #[serde(deserialize_with = "string_list")]
    pub supported_aspect_ratios: Vec<String>,
    /// catalog type -> ratios, where a model offers different ratios per type.
    #[serde(deserialize_with = "list_map")]
    pub supported_aspect_ratios_by_type: BTreeMap<String, Vec<String>>,
    #[serde(deserialize_with = "lenient_string")]
    pub default_aspect_ratio: Option<String>,
    #[serde(deserialize_with = "string_list")]
    pub supported_resolutions: Vec<String>,
    #[serde(deserialize_with = "multiplier_map")]
    pub resolution_multipliers: BTreeMap<String, f64>,
    #[serde(deserialize_with = "string_list")]
    pub supported_qualities: Vec<String>,
    #[serde(deserialize_with = "multiplier_map")]
    pub quality_multipliers: BTreeMap<String, f64>,
    #[serde(deserialize_with = "lenient_string")]
    pub default_quality: Option<String>,
    #[serde(deserialize_with = "multiplier_map")]
    pub flat_credit_by_resolution: BTreeMap<String, f64>,
    #[serde(deserialize_with = "number_list")]
    pub supported_durations: Vec<f64>,
    #[serde(deserialize_with = "lenient_f64")]
    pub default_duration: Option<f64>,
    #[serde(deserialize_with = "lenient_f64")]
    pub min_output_duration: Option<f64>,
    #[serde(deserialize_with = "lenient_f64")]
    pub max_output_duration: Option<f64>,
    #[serde(deserialize_with = "lenient_u32")]
    pub images_per_request: Option<u32>,
    /// Audio formats the model writes (video edits' `audio_format`); empty = the contract's
    /// fallback list.
    #[serde(deserialize_with = "string_list")]
    pub output_audio_formats: Vec<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub default_output_audio_format: Option<String>,

    #[serde(deserialize_with = "lenient_u32")]
    pub max_reference_images: Option<u32>,
    #[serde(deserialize_with = "lenient_u32")]
    pub max_images: Option<u32>,
    #[serde(deserialize_with = "lenient_u32")]
    pub max_visual_dna: Option<u32>,
    #[serde(deserialize_with = "lenient_bool")]
    pub supports_visual_dna: Option<bool>,
    #[serde(deserialize_with = "lenient_u32")]
    pub max_videos: Option<u32>,
    #[serde(deserialize_with = "lenient_u32")]
    pub max_audio: Option<u32>,
    #[serde(deserialize_with = "lenient_u32")]
    pub max_elements: Option<u32>,
    #[serde(deserialize_with = "lenient_u32")]
    pub elements_max_images: Option<u32>,
    #[serde(deserialize_with = "lenient_u32")]
    pub elements_max_videos: Option<u32>,
    #[serde(deserialize_with = "lenient_u32")]
    pub elements_max_audio: Option<u32>,
    #[serde(deserialize_with = "lenient_u32")]
    pub max_total_media: Option<u32>,
    #[serde(deserialize_with = "lenient_f64")]
    pub min_video_duration: Option<f64>,
    #[serde(deserialize_with = "lenient_f64")]
    pub max_video_duration: Option<f64>,
    #[serde(deserialize_with = "lenient_f64")]
    pub min_audio_duration: Option<f64>,
    #[serde(deserialize_with = "lenient_f64")]
    pub max_audio_duration: Option<f64>,
    #[serde(deserialize_with = "lenient_bool")]
    pub audio_max_follows_video_duration: Option<bool>,
    #[serde(deserialize_with = "string_list")]
    pub supported_audio_formats: Vec<String>,
    #[serde(deserialize_with = "lenient_bool")]
    pub supports_audio_input: Option<bool>,
    #[serde(deserialize_with = "lenient_bool")]
    pub requires_video_input: Option<bool>,
    #[serde(deserialize_with = "lenient_bool")]
    pub supports_first_last_frame: Option<bool>,
    #[serde(deserialize_with = "lenient_u64")]
    pub max_file_size: Option<u64>,
    #[serde(deserialize_with = "lenient_bool")]
    pub requires_prompt: Option<bool>,
    #[serde(deserialize_with = "lenient_u32")]
    pub min_prompt_length: Option<u32>,
    #[serde(deserialize_with = "lenient_u32")]
    pub max_prompt_length: Option<u32>,

    #[serde(deserialize_with = "lenient_string")]
    pub sound_generation_type: Option<String>,
    #[serde(deserialize_with = "lenient_bool")]
    pub sound_enabled_by_default: Option<bool>,
    #[serde(deserialize_with = "lenient_f64")]
    pub sound_credit_multiplier: Option<f64>,
    #[serde(deserialize_with = "lenient_bool")]
    pub nsfw_only: Option<bool>,
    #[serde(deserialize_with = "lenient_bool")]
    pub requires_nsfw_consent: Option<bool>,

    /// Not from the wire: where `avatar` is fetched from (a bare filename resolved against
    /// the service's `/assets/`, see `api::avatars`), filled in by the client.
    #[serde(skip)]
    pub avatar_url: Option<String>,
}

/// Contract defaults for prompt limits when the record leaves them out.
pub const DEFAULT_MIN_PROMPT_LENGTH: u32 = 1;
pub const DEFAULT_MAX_PROMPT_LENGTH: u32 = 2000;

impl ModelRecord {
    pub fn min_prompt_chars(&self) -> u32 {
        self.min_prompt_length.unwrap_or(DEFAULT_MIN_PROMPT_LENGTH)
    }
    pub fn max_prompt_chars(&self) -> u32 {
        self.max_prompt_length
            .filter(|n| *n > 0)
            .unwrap_or(DEFAULT_MAX_PROMPT_LENGTH)
    }
    /// The most images one request may ask for (1 when the record says nothing).
    pub fn max_images_per_request(&self) -> u32 {
        self.images_per_request.filter(|n| *n > 0).unwrap_or(1)
    }
    /// Whether the record carries `catalog_type`; the contract's aliases `lipsync` and
    /// `three_d` match any of the types they stand for.
    pub fn has_type(&self, catalog_type: &str) -> bool {
        let expanded: &[&str] = match catalog_type {
            LIPSYNC_CATALOG_ALIAS => &LIPSYNC_CATALOG_TYPES,
            THREE_D_CATALOG_ALIAS => &THREE_D_CATALOG_TYPES,
            _ => &[],
        };
        self.types
            .iter()
            .any(|t| t == catalog_type || expanded.contains(&t.as_str()))
    }
    /// Aspect ratios offered for `catalog_type`: the per-type list when the record has one,
    /// else the general list (empty = no restriction).
    pub fn aspect_ratios_for(&self, catalog_type: &str) -> &[String] {
        self.supported_aspect_ratios_by_type
            .get(catalog_type)
            .filter(|ratios| !ratios.is_empty())
            .unwrap_or(&self.supported_aspect_ratios)
    }
    /// Whether the model takes Visual DNA at all: not when `max_visual_dna` is 0, nor when
    /// `supports_visual_dna` is false with no `max_visual_dna` to say otherwise (a record
    /// with both `supports_visual_dna: false` and a positive `max_visual_dna` takes them:
    /// the published catalog has such video models). Absent fields: it does.
    pub fn takes_visual_dna(&self) -> bool {
        match self.max_visual_dna {
            Some(0) => false,
            Some(_) => true,
            None => self.supports_visual_dna != Some(false),
        }
    }
    /// The most visual DNA ids a request may carry: the model's own positive limit when
    /// smaller than the contract's 3 (see [`ModelRecord::takes_visual_dna`] for a model
    /// that takes none).
    pub fn max_visual_dna_ids(&self) -> usize {
        self.max_visual_dna
            .filter(|n| *n > 0)
            .map_or(MAX_VISUAL_DNA_IDS, |n| (n as usize).min(MAX_VISUAL_DNA_IDS))
    }
    /// The duration a request without one gets (contract default 5 s).
    pub fn default_duration_secs(&self) -> f64 {
        self.default_duration
            .filter(|d| *d > 0.0)
            .or_else(|| self.supported_durations.first().copied())
            .unwrap_or(5.0)
    }
    pub fn display_name(&self) -> &str {
        if self.name.is_empty() {
            &self.identifier
        } else {
            &self.name
        }
    }
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct ModelsResponse {
    #[serde(deserialize_with = "lenient_bool")]
    pub success: Option<bool>,
    /// Unreadable entries are skipped rather than failing the whole catalog.
    #[serde(deserialize_with = "lenient_list")]
    pub models: Vec<ModelRecord>,
    #[serde(deserialize_with = "lenient_u32")]
    pub count: Option<u32>,
}

// ---------------------------------------------------------------------------------------
// Generation requests
// ---------------------------------------------------------------------------------------

/// Which generation endpoint a request goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GenerationKind {
    Image,
    ImageEdit,
    /// POST /v1/generate/video.
    TextToVideo,
    /// POST /v1/generate/video/from-image.
    ImageToVideo,
    /// POST /v1/generate/creative-director: a batch of 1-8 scenes, images or videos.
    CreativeDirector,
    /// POST /v1/edit/video: one operation on a source video (body in `GenerationSpec::video`).
    VideoEdit,
    /// POST /v1/generate/video-from-video: a source video restyled by an explicit model.
    VideoToVideo,
    /// POST /v1/video/trim: a frame-accurate cut; free, polled on its own route, no cancel.
    VideoTrim,
    /// POST /v1/chat/conversations: one creative chat message; its answer (`message_id`)
    /// is polled like a generation and completes with `result.content` (Markdown).
    Chat,
    /// POST /v1/edit/image: upscale or remove the background of an existing image
    /// (`image_url`, `operation`, `scale` in the request; see `api::image_tools`).
    ImageTool,
    /// POST /v1/generate/music (body in `GenerationSpec::audio`): two variations per job.
    Music,
    /// POST /v1/generate/speech (body in `GenerationSpec::audio`).
    Speech,
    /// POST /v1/generate/sound (body in `GenerationSpec::audio`): a sound effect.
    Sound,
    /// POST /v1/transcribe (body in `GenerationSpec::audio`): the words of an audio or
    /// video, as text and subtitles (`text`, `srt_url`, `txt_url` in the result).
    Transcription,
    /// POST /v1/generate/elements (body in `GenerationSpec::catalog`): reference images,
    /// videos and sound made into one video.
    Elements,
    /// POST /v1/generate/first-last-frame (body in `GenerationSpec::catalog`): the motion
    /// between two images.
    FirstLastFrame,
    /// POST /v1/generate/lipsync (body in `GenerationSpec::catalog`): an image or video
    /// speaking an audio file or a line of text.
    Lipsync,
    /// POST /v1/generate/3d (body in `GenerationSpec::catalog`): a 3D model (GLB, OBJ and a
    /// thumbnail) from text, one image or several.
    ThreeD,
}

impl GenerationKind {
    /// The kinds the Create type picker shows today. The video-sourced kinds are in
    /// [`Self::VIDEO_SOURCED`] until the picker has their forms.
    pub const ALL: [GenerationKind; 5] = [
        GenerationKind::Image,
        GenerationKind::ImageEdit,
        GenerationKind::TextToVideo,
        GenerationKind::ImageToVideo,
        GenerationKind::CreativeDirector,
    ];

    /// Kinds whose body is a [`VideoJobRequest`] (`GenerationSpec::video`), not a
    /// `GenerationRequest`.
    pub const VIDEO_SOURCED: [GenerationKind; 3] = [
        GenerationKind::VideoEdit,
        GenerationKind::VideoToVideo,
        GenerationKind::VideoTrim,
    ];

    /// Kinds whose body is a [`CatalogJobRequest`] (`GenerationSpec::catalog`).
    pub const CATALOG: [GenerationKind; 4] = [
        GenerationKind::Elements,
        GenerationKind::FirstLastFrame,
        GenerationKind::Lipsync,
        GenerationKind::ThreeD,
    ];

    /// Kinds whose body is an [`AudioJobRequest`] (`GenerationSpec::audio`).
    pub const AUDIO: [GenerationKind; 3] = [
        GenerationKind::Music,
        GenerationKind::Speech,
        GenerationKind::Sound,
    ];

    /// Route under /v1 that submits this kind.
    pub fn submit_path(self) -> &'static str {
        match self {
            GenerationKind::Image => "/v1/generate/image",
            GenerationKind::ImageEdit => "/v1/generate/image-edit",
            GenerationKind::TextToVideo => "/v1/generate/video",
            GenerationKind::ImageToVideo => "/v1/generate/video/from-image",
            GenerationKind::CreativeDirector => "/v1/generate/creative-director",
            GenerationKind::VideoEdit => "/v1/edit/video",
            GenerationKind::VideoToVideo => "/v1/generate/video-from-video",
            GenerationKind::VideoTrim => "/v1/video/trim",
            GenerationKind::Chat => "/v1/chat/conversations",
            GenerationKind::ImageTool => "/v1/edit/image",
            GenerationKind::Music => "/v1/generate/music",
            GenerationKind::Speech => "/v1/generate/speech",
            GenerationKind::Sound => "/v1/generate/sound",
            GenerationKind::Transcription => "/v1/transcribe",
            GenerationKind::Elements => "/v1/generate/elements",
            GenerationKind::FirstLastFrame => "/v1/generate/first-last-frame",
            GenerationKind::Lipsync => "/v1/generate/lipsync",
            GenerationKind::ThreeD => "/v1/generate/3d",
        }
    }
    /// Catalog type name used to filter GET /v1/models. Creative Director has no type of
    /// its own: its scenes use image models, or video models in video mode (see
    /// [`GenerationSpec::catalog_type`]). Video edit models carry `video_edit` with the
    /// operation as their `model_type`; a trim uses no model (empty string).
    pub fn catalog_type(self) -> &'static str {
        match self {
            GenerationKind::Image | GenerationKind::CreativeDirector => "text_to_img",
            GenerationKind::ImageEdit => "image_editing",
            GenerationKind::TextToVideo => "text_to_video",
            GenerationKind::ImageToVideo => "img_to_video",
            GenerationKind::VideoEdit => VIDEO_EDIT_CATALOG_TYPE,
            GenerationKind::VideoToVideo => "video_to_video",
            GenerationKind::VideoTrim => "",
            GenerationKind::Chat => CHAT_CATALOG_TYPE,
            GenerationKind::ImageTool => "",
            GenerationKind::Music => MUSIC_CATALOG_TYPE,
            GenerationKind::Speech => SPEECH_CATALOG_TYPE,
            GenerationKind::Sound => SOUND_CATALOG_TYPE,
            GenerationKind::Transcription => TRANSCRIPTION_CATALOG_TYPE,
            GenerationKind::Elements => ELEMENTS_CATALOG_TYPE,
            GenerationKind::FirstLastFrame => FIRST_LAST_FRAME_CATALOG_TYPE,
            GenerationKind::Lipsync => LIPSYNC_CATALOG_ALIAS,
            GenerationKind::ThreeD => THREE_D_CATALOG_ALIAS,
        }
    }
    /// Whether this kind is sent with a model from the catalog (a trim and the image
    /// tools are not).
    pub fn uses_model(self) -> bool {
        !matches!(
            self,
            GenerationKind::VideoTrim | GenerationKind::ImageTool | GenerationKind::Transcription
        )
    }
    /// The service's rate-limit group of this kind's submit route (contract, Limits).
    pub fn rate_limit_group(self) -> RateLimitGroup {
        match self {
            GenerationKind::Image | GenerationKind::ImageEdit | GenerationKind::ImageTool => {
                RateLimitGroup::ImageGeneration
            }
            GenerationKind::TextToVideo
            | GenerationKind::ImageToVideo
            | GenerationKind::CreativeDirector
            | GenerationKind::VideoEdit
            | GenerationKind::VideoToVideo
            | GenerationKind::VideoTrim
            | GenerationKind::Chat
            | GenerationKind::Music
            | GenerationKind::Speech
            | GenerationKind::Sound
            | GenerationKind::Elements
            | GenerationKind::FirstLastFrame
            | GenerationKind::Lipsync
            | GenerationKind::ThreeD => RateLimitGroup::OtherGeneration,
            GenerationKind::Transcription => RateLimitGroup::Transcription,
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            GenerationKind::Image => "Image",
            GenerationKind::ImageEdit => "Image edit",
            GenerationKind::TextToVideo => "Text to video",
            GenerationKind::ImageToVideo => "Image to video",
            GenerationKind::CreativeDirector => "Creative Director",
            GenerationKind::VideoEdit => "Video edit",
            GenerationKind::VideoToVideo => "Video to video",
            GenerationKind::VideoTrim => "Trim",
            GenerationKind::Chat => "Chat",
            GenerationKind::ImageTool => "Image tool",
            GenerationKind::Music => "Music",
            GenerationKind::Speech => "Speech",
            GenerationKind::Sound => "Sound effects",
            GenerationKind::Transcription => "Transcription",
            GenerationKind::Elements => "Elements",
            GenerationKind::FirstLastFrame => "First and last frame",
            GenerationKind::Lipsync => "Lip sync",
            GenerationKind::ThreeD => "3D model",
        }
    }
    /// Contract defaults: image-edit and Creative Director 1:1, video 16:9; image is not
    /// shown, 1:1 is assumed.
    pub fn default_aspect_ratio(self) -> &'static str {
        match self {
            GenerationKind::TextToVideo
            | GenerationKind::ImageToVideo
            | GenerationKind::VideoToVideo
            | GenerationKind::Elements
            | GenerationKind::FirstLastFrame
            | GenerationKind::Lipsync => "16:9",
            _ => "1:1",
        }
    }
    /// Whether the output is a video (priced per second where priced at all).
    pub fn is_video(self) -> bool {
        matches!(
            self,
            GenerationKind::TextToVideo
                | GenerationKind::ImageToVideo
                | GenerationKind::VideoEdit
                | GenerationKind::VideoToVideo
                | GenerationKind::VideoTrim
                | GenerationKind::Elements
                | GenerationKind::FirstLastFrame
                | GenerationKind::Lipsync
        )
    }
    /// Whether the output is a 3D model (GLB/OBJ files and a thumbnail).
    pub fn outputs_3d(self) -> bool {
        self == GenerationKind::ThreeD
    }
    /// Whether the output is sound (music, speech, a sound effect).
    pub fn outputs_audio(self) -> bool {
        matches!(
            self,
            GenerationKind::Music | GenerationKind::Speech | GenerationKind::Sound
        )
    }
    /// The contract's `poll_interval_hint` for this kind when the submit answer has none:
    /// 2 chat; 3 image and image edit; 5 sound and Creative Director; 8 everything else.
    pub fn default_poll_hint_secs(self) -> f64 {
        match self {
            GenerationKind::Chat => 2.0,
            GenerationKind::Image | GenerationKind::ImageEdit => 3.0,
            GenerationKind::Sound | GenerationKind::CreativeDirector => 5.0,
            _ => 8.0,
        }
    }
    /// Whether a prompt must be given. Image-to-video's prompt is an optional motion
    /// hint; a video edit's prompt depends on its operation (magic edit requires one,
    /// checked by validation); a trim has none. Video to video needs one (the restyle's
    /// direction; the contract does not show that route's fields, so this is our rule).
    pub fn requires_prompt(self) -> bool {
        !matches!(
            self,
            GenerationKind::ImageToVideo
                | GenerationKind::VideoEdit
                | GenerationKind::VideoTrim
                | GenerationKind::ImageTool
                | GenerationKind::Transcription
                | GenerationKind::FirstLastFrame
                | GenerationKind::Lipsync
                | GenerationKind::ThreeD
        )
    }
    /// Whether a running job of this kind can be cancelled: a trim has no cancel route
    /// (it runs to completed or failed), so the UI must not offer Cancel and the engine
    /// refuses it without sending anything. A queued trim (never sent) can still be
    /// taken out of the queue: see `JobRecord::can_cancel`.
    pub fn can_cancel(self) -> bool {
        self != GenerationKind::VideoTrim
    }
    /// Whether status is read on GET /v1/video/trim/:jobId rather than a generation route.
    pub fn polls_trim_route(self) -> bool {
        self == GenerationKind::VideoTrim
    }
}

/// Catalog type of the video edit models (the sandbox's convention, also the `type` filter).
pub const VIDEO_EDIT_CATALOG_TYPE: &str = "video_edit";
/// Catalog types of the sound models (contract: music_gen, text_to_speech, text_to_sound).
pub const MUSIC_CATALOG_TYPE: &str = "music_gen";
pub const SPEECH_CATALOG_TYPE: &str = "text_to_speech";
pub const SOUND_CATALOG_TYPE: &str = "text_to_sound";
/// Catalog type of the transcription models (contract: `stt`, alias `transcription`).
pub const TRANSCRIPTION_CATALOG_TYPE: &str = "stt";
/// Catalog type of the elements models (contract).
pub const ELEMENTS_CATALOG_TYPE: &str = "elements";
/// Catalog type of the first-last-frame models (contract: `firstlastgenerations`, alias
/// `first_last_frame`).
pub const FIRST_LAST_FRAME_CATALOG_TYPE: &str = "firstlastgenerations";
/// The contract's alias for both lip-sync catalog types (`lipsync-image`, `lipsync-video`);
/// [`ModelRecord::has_type`] expands it.
pub const LIPSYNC_CATALOG_ALIAS: &str = "lipsync";
pub const LIPSYNC_CATALOG_TYPES: [&str; 2] = ["lipsync-image", "lipsync-video"];
/// The contract's alias for the four 3D catalog types; [`ModelRecord::has_type`] expands it.
pub const THREE_D_CATALOG_ALIAS: &str = "three_d";
pub const THREE_D_CATALOG_TYPES: [&str; 4] = [
    "3d_text_to_model",
    "3d_image_to_model",
    "3d_multi_image_to_model",
    "3d_world",
];
/// Catalog type of the chat models (contract: `text`, alias `chat`).
pub const CHAT_CATALOG_TYPE: &str = "text";

/// Creative Director's `workflow_type`: every scene is an image, or every scene a video.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkflowType {
    #[default]
    Image,
    Video,
}

/// Contract limits of Creative Director's `scene_count`.
pub const MIN_SCENE_COUNT: u32 = 1;
pub const MAX_SCENE_COUNT: u32 = 8;
pub const DEFAULT_SCENE_COUNT: u32 = 4;
/// Contract limit of `visual_dna_ids` on every route that takes them.
pub const MAX_VISUAL_DNA_IDS: usize = 3;

/// The contract's per-user rate-limit groups that generation routes fall in (Limits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RateLimitGroup {
    /// 30/min: /generate/image, /generate/image-edit, /edit/image.
    ImageGeneration,
    /// 10/min: every other generation route, /generate/{id}/cancel and /media/upload.
    OtherGeneration,
    /// 100/min: /transcribe (its own group in the contract's Limits table).
    Transcription,
}

/// Body of every generation POST (image, image-edit, video, video/from-image, Creative
/// Director). `None` and empty fields are omitted, so each route only sees what its form set.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GenerationRequest {
    #[serde(skip)]
    pub kind_hint: Option<GenerationKind>,
    /// Image-to-video sends no prompt when the motion hint is left empty.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prompt: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aspect_ratio: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolution: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_images: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enhance_prompt: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// image-edit only: URLs of the images to edit.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub source_images: Vec<String>,
    /// dimension -> preset id; `None` means automatic for that dimension.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cinematic: Option<BTreeMap<String, Option<String>>>,
    /// Image, image-edit, video, video from image, Creative Director (all scenes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moodboard_id: Option<String>,
    /// Creative Director: one moodboard id per scene, indexed from scene 1.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moodboard_ids: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skip_color_palette: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    /// Video and Creative Director video mode: output seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<f64>,
    /// Image-to-video: the image to animate (an http(s) URL; local files are uploaded first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_url: Option<String>,
    /// Image tools: the operation (`upscale`, `remove_background`) on `image_url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<super::image_tools::ImageToolOperation>,
    /// Image tools, upscale: the factor (2 or 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<u32>,
    /// Colour DNA ids (at most [`MAX_VISUAL_DNA_IDS`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub visual_dna_ids: Vec<String>,
    /// Text-to-video and Creative Director: reference image URLs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reference_images: Vec<String>,
    /// Creative Director: 1-8 scenes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scene_count: Option<u32>,
    /// Creative Director: images or videos.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workflow_type: Option<WorkflowType>,
    /// Chat: the conversation the message belongs to (`None` opens a new one; the engine
    /// fills it in from the submit answer). The message itself is `prompt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

/// A request together with the endpoint it is for; this is what the journal stores.
///
/// Video-sourced kinds (`VideoEdit`, `VideoToVideo`, `VideoTrim`) carry their body in
/// `video` (whose variant matches `kind`); their `request` only mirrors the prompt, model
/// and project for display and reconcile (see [`GenerationSpec::for_video`]) and is never
/// sent. Rows written before `video` existed load with `video: None`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenerationSpec {
    pub kind: GenerationKind,
    pub request: GenerationRequest,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub video: Option<VideoJobRequest>,
    /// Music, speech and sound: the body sent (its variant matches `kind`); `request`
    /// mirrors prompt (the text, for speech), model and project (see
    /// [`GenerationSpec::for_audio`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio: Option<AudioJobRequest>,
    /// Elements, first-last frame, lip sync and 3D: the body sent (its variant matches
    /// `kind`); `request` mirrors prompt, model, duration and project (see
    /// [`GenerationSpec::for_catalog`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalog: Option<CatalogJobRequest>,
}

impl GenerationSpec {
    /// A generation from a `GenerationRequest` (every kind but the video-sourced ones).
    pub fn new(kind: GenerationKind, request: GenerationRequest) -> Self {
        GenerationSpec {
            kind,
            request,
            video: None,
            audio: None,
            catalog: None,
        }
    }
    /// A video-sourced job: the kind follows the body, and `request` mirrors its prompt,
    /// model and project (the tray, reuse and reconcile read those).
    pub fn for_video(job: VideoJobRequest) -> Self {
        let request = GenerationRequest {
            prompt: job.prompt().unwrap_or_default().to_owned(),
            model: job.model().map(str::to_owned),
            project_id: job.project_id().map(str::to_owned),
            ..GenerationRequest::default()
        };
        GenerationSpec {
            kind: job.kind(),
            request,
            video: Some(job),
            audio: None,
            catalog: None,
        }
    }
    /// An audio job (music, speech, sound): the kind follows the body, and `request`
    /// mirrors its prompt (or text), model, duration and project.
    pub fn for_audio(job: AudioJobRequest) -> Self {
        let request = GenerationRequest {
            prompt: job.prompt().to_owned(),
            model: job.model().map(str::to_owned),
            project_id: job.project_id().map(str::to_owned),
            duration: job.duration_secs(),
            ..GenerationRequest::default()
        };
        GenerationSpec {
            kind: job.kind(),
            request,
            video: None,
            audio: Some(job),
            catalog: None,
        }
    }
    /// An elements, first-last-frame, lip-sync or 3D job: the kind follows the body, and
    /// `request` mirrors its prompt, model, duration and project.
    pub fn for_catalog(job: CatalogJobRequest) -> Self {
        let request = GenerationRequest {
            prompt: job.prompt().to_owned(),
            model: job.model().map(str::to_owned),
            project_id: job.project_id().map(str::to_owned),
            duration: job.duration_secs(),
            ..GenerationRequest::default()
        };
        GenerationSpec {
            kind: job.kind(),
            request,
            video: None,
            audio: None,
            catalog: Some(job),
        }
    }
    /// The video edit's operation, when this is a video edit.
    pub fn edit_operation(&self) -> Option<&VideoEditOperation> {
        match &self.video {
            Some(VideoJobRequest::Edit(edit)) => Some(&edit.operation),
            _ => None,
        }
    }
    /// The catalog type whose models this request may use (Creative Director in video mode
    /// uses video models; otherwise the kind decides).
    pub fn catalog_type(&self) -> &'static str {
        match (self.kind, self.request.workflow_type) {
            (GenerationKind::CreativeDirector, Some(WorkflowType::Video)) => "text_to_video",
            (kind, _) => kind.catalog_type(),
        }
    }
    /// Whether the output (each scene's, for Creative Director) is a video.
    pub fn makes_video(&self) -> bool {
        self.kind.is_video() || self.catalog_type() == "text_to_video"
    }
    /// How many outputs are priced: scenes for Creative Director, else one request.
    pub fn priced_units(&self) -> u32 {
        match self.kind {
            GenerationKind::CreativeDirector => self
                .request
                .scene_count
                .unwrap_or(DEFAULT_SCENE_COUNT)
                .clamp(MIN_SCENE_COUNT, MAX_SCENE_COUNT),
            _ => 1,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Submit and status responses
// ---------------------------------------------------------------------------------------

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, from = "SubmitWire")]
pub struct SubmitResponse {
    pub success: Option<bool>,
    /// The job handle: `generation_id`, or the legacy/other spellings (`generationId`,
    /// `message_id` for chat, `jobId` for trim), whichever is present first.
    pub generation_id: Option<String>,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub model: Option<String>,
    pub credits_charged: Option<f64>,
    pub poll_url: Option<String>,
    pub poll_interval_hint: Option<f64>,
    pub session_id: Option<String>,
    pub project_id: Option<String>,
    pub scene_count: Option<u32>,
    /// The older synchronous chat answer (post_chat_stateless.json): the answer itself,
    /// with no job handle.
    pub content: Option<String>,
    /// The synchronous chat answer's charge.
    pub credits_used: Option<f64>,
    /// Not from the wire: the answer was a 409 `DUPLICATE_REQUEST` (/edit/image) and
    /// `generation_id` is the job the same request started moments ago.
    #[serde(skip)]
    pub existing_job: bool,
}

impl SubmitResponse {
    /// Whether this is the older synchronous chat answer: the content is here and there is
    /// no handle to poll (a job finished at once).
    pub fn is_finished_answer(&self) -> bool {
        self.content.is_some()
            && self
                .generation_id
                .as_deref()
                .is_none_or(|id| id.trim().is_empty())
    }
}

/// Wire shape of a submit answer. The handle has several spellings and some answers carry
/// two of them at once (trim sends `jobId` and `generationId`), so they are separate fields
/// here rather than serde aliases (which would reject the duplicate).
#[derive(Default, Deserialize)]
#[serde(default)]
struct SubmitWire {
    #[serde(deserialize_with = "lenient_bool")]
    success: Option<bool>,
    #[serde(deserialize_with = "lenient_string")]
    generation_id: Option<String>,
    #[serde(deserialize_with = "lenient_string", rename = "generationId")]
    generation_id_camel: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    message_id: Option<String>,
    #[serde(deserialize_with = "lenient_string", rename = "messageId")]
    message_id_camel: Option<String>,
    #[serde(deserialize_with = "lenient_string", rename = "jobId")]
    job_id: Option<String>,
    #[serde(rename = "type", deserialize_with = "lenient_string")]
    kind: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    model: Option<String>,
    #[serde(deserialize_with = "lenient_f64")]
    credits_charged: Option<f64>,
    #[serde(deserialize_with = "lenient_f64", rename = "creditsCharged")]
    credits_charged_camel: Option<f64>,
    #[serde(deserialize_with = "lenient_string")]
    poll_url: Option<String>,
    #[serde(deserialize_with = "lenient_string", rename = "pollUrl")]
    poll_url_camel: Option<String>,
    #[serde(deserialize_with = "lenient_f64")]
    poll_interval_hint: Option<f64>,
    #[serde(deserialize_with = "lenient_f64", rename = "pollIntervalHint")]
    poll_interval_hint_camel: Option<f64>,
    #[serde(deserialize_with = "lenient_string")]
    session_id: Option<String>,
    #[serde(deserialize_with = "lenient_string", rename = "sessionId")]
    session_id_camel: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    project_id: Option<String>,
    #[serde(deserialize_with = "lenient_string", rename = "projectId")]
    project_id_camel: Option<String>,
    #[serde(deserialize_with = "lenient_u32")]
    scene_count: Option<u32>,
    #[serde(deserialize_with = "lenient_u32", rename = "sceneCount")]
    scene_count_camel: Option<u32>,
    #[serde(deserialize_with = "lenient_string")]
    content: Option<String>,
    #[serde(deserialize_with = "lenient_f64")]
    credits_used: Option<f64>,
    #[serde(deserialize_with = "lenient_f64", rename = "creditsUsed")]
    credits_used_camel: Option<f64>,
}

fn non_blank(value: Option<String>) -> Option<String> {
    value.filter(|s| !s.trim().is_empty())
}

impl From<SubmitWire> for SubmitResponse {
    fn from(w: SubmitWire) -> Self {
        SubmitResponse {
            success: w.success,
            generation_id: non_blank(w.generation_id)
                .or(non_blank(w.generation_id_camel))
                .or(non_blank(w.message_id))
                .or(non_blank(w.message_id_camel))
                .or(non_blank(w.job_id)),
            kind: w.kind,
            model: w.model,
            credits_charged: w.credits_charged.or(w.credits_charged_camel),
            poll_url: w.poll_url.or(w.poll_url_camel),
            poll_interval_hint: w.poll_interval_hint.or(w.poll_interval_hint_camel),
            session_id: w.session_id.or(w.session_id_camel),
            project_id: w.project_id.or(w.project_id_camel),
            scene_count: w.scene_count.or(w.scene_count_camel),
            content: w.content,
            credits_used: w.credits_used.or(w.credits_used_camel),
            existing_job: false,
        }
    }
}

/// Generation states. Anything not terminal means "still running".
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum JobState {
    Pending,
    #[default]
    Processing,
    Completed,
    Failed,
    Cancelled,
    /// A state this client does not know; treated as running.
    Other(String),
}

impl JobState {
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            JobState::Completed | JobState::Failed | JobState::Cancelled
        )
    }
    pub fn as_str(&self) -> &str {
        match self {
            JobState::Pending => "pending",
            JobState::Processing => "processing",
            JobState::Completed => "completed",
            JobState::Failed => "failed",
            JobState::Cancelled => "cancelled",
            JobState::Other(s) => s,
        }
    }
}

impl From<String> for JobState {
    fn from(value: String) -> Self {
        match value.trim().to_ascii_lowercase().as_str() {
            "pending" | "queued" => JobState::Pending,
            "processing" | "running" | "in_progress" => JobState::Processing,
            "completed" | "complete" | "succeeded" | "success" => JobState::Completed,
            "failed" | "error" => JobState::Failed,
            "cancelled" | "canceled" => JobState::Cancelled,
            _ => JobState::Other(value),
        }
    }
}

impl From<JobState> for String {
    fn from(value: JobState) -> Self {
        value.as_str().to_owned()
    }
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct JobResult {
    #[serde(deserialize_with = "string_list")]
    pub urls: Vec<String>,
    #[serde(deserialize_with = "lenient_string", alias = "thumbnailUrl")]
    pub thumbnail_url: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub model: Option<String>,
    #[serde(deserialize_with = "lenient_string", alias = "promptUsed")]
    pub prompt_used: Option<String>,
    #[serde(deserialize_with = "lenient_string", alias = "createdAt")]
    pub created_at: Option<String>,
    #[serde(deserialize_with = "lenient_f64")]
    pub duration: Option<f64>,
    #[serde(deserialize_with = "lenient_string", alias = "aspectRatio")]
    pub aspect_ratio: Option<String>,
    #[serde(deserialize_with = "lenient_string", alias = "downloadUrl")]
    pub download_url: Option<String>,
    #[serde(deserialize_with = "lenient_string", alias = "editType")]
    pub edit_type: Option<String>,
    /// Chat: the answer (Markdown).
    #[serde(
        deserialize_with = "lenient_string",
        skip_serializing_if = "Option::is_none"
    )]
    pub content: Option<String>,
    /// Creative Director: the batch's scenes as last seen (the studio keeps them here so a
    /// finished storyboard survives restarts; the service sends them beside `result`).
    #[serde(deserialize_with = "scene_list", skip_serializing_if = "Vec::is_empty")]
    pub scenes: Vec<Scene>,
    /// Music: the song's title (the first variation's, when there are two).
    #[serde(
        deserialize_with = "lenient_string",
        skip_serializing_if = "Option::is_none"
    )]
    pub title: Option<String>,
    /// Music: the lyrics sung (given or generated).
    #[serde(
        deserialize_with = "lenient_string",
        skip_serializing_if = "Option::is_none"
    )]
    pub lyrics: Option<String>,
    /// Speech: the voice's name.
    #[serde(
        deserialize_with = "lenient_string",
        skip_serializing_if = "Option::is_none"
    )]
    pub voice: Option<String>,
    /// Transcription: the transcript; speech: the text spoken.
    #[serde(
        deserialize_with = "lenient_string",
        skip_serializing_if = "Option::is_none"
    )]
    pub text: Option<String>,
    /// Transcription: the subtitles (SRT).
    #[serde(
        deserialize_with = "lenient_string",
        alias = "srtUrl",
        skip_serializing_if = "Option::is_none"
    )]
    pub srt_url: Option<String>,
    /// Transcription: the plain text.
    #[serde(
        deserialize_with = "lenient_string",
        alias = "txtUrl",
        skip_serializing_if = "Option::is_none"
    )]
    pub txt_url: Option<String>,
    /// Transcription: one word per cue (SRT).
    #[serde(
        deserialize_with = "lenient_string",
        alias = "wordByWordSrtUrl",
        skip_serializing_if = "Option::is_none"
    )]
    pub word_by_word_srt_url: Option<String>,
    /// Music: each variation with its own title, lyrics and duration (the sandbox sends
    /// them; the contract's example has only `urls` with shared fields).
    #[serde(
        deserialize_with = "variation_list",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub variations: Vec<AudioVariation>,
}

fn variation_list<'de, D>(deserializer: D) -> Result<Vec<AudioVariation>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let list: Vec<AudioVariation> = lenient_list(deserializer)?;
    Ok(list
        .into_iter()
        .filter(|v| !v.url.trim().is_empty())
        .collect())
}

impl JobResult {
    /// The playable outputs of an audio job: `variations` when present, else one per
    /// `urls` entry carrying the shared title, lyrics and duration.
    pub fn audio_tracks(&self) -> Vec<AudioVariation> {
        if !self.variations.is_empty() {
            return self.variations.clone();
        }
        self.urls
            .iter()
            .filter(|url| !url.trim().is_empty())
            .map(|url| AudioVariation {
                url: url.clone(),
                title: self.title.clone(),
                lyrics: self.lyrics.clone(),
                duration: self.duration,
            })
            .collect()
    }
}

fn scene_list<'de, D>(deserializer: D) -> Result<Vec<Scene>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    lenient_list(deserializer)
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct CreditBreakdown {
    #[serde(deserialize_with = "lenient_string")]
    pub model: Option<String>,
    #[serde(deserialize_with = "lenient_f64")]
    pub amount: Option<f64>,
    #[serde(deserialize_with = "lenient_f64")]
    pub base: Option<f64>,
    #[serde(deserialize_with = "lenient_f64", rename = "final")]
    pub final_amount: Option<f64>,
    #[serde(deserialize_with = "lenient_f64")]
    pub duration_multiplier: Option<f64>,
}

/// The `failure` object of a failed job. Only `message` is reliably present.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct Failure {
    #[serde(deserialize_with = "null_default")]
    pub message: String,
    #[serde(deserialize_with = "lenient_string")]
    pub category: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub code: Option<String>,
    /// true/false/null: retry automatically only on explicit true.
    #[serde(deserialize_with = "lenient_bool")]
    pub retryable: Option<bool>,
    #[serde(deserialize_with = "lenient_string")]
    pub severity: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub provider: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct Scene {
    #[serde(deserialize_with = "lenient_u32", alias = "sceneNumber")]
    pub scene_number: Option<u32>,
    #[serde(deserialize_with = "lenient_string")]
    pub status: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub title: Option<String>,
    #[serde(deserialize_with = "lenient_f64")]
    pub progress: Option<f64>,
    #[serde(deserialize_with = "string_list", alias = "imageUrls")]
    pub image_urls: Vec<String>,
    #[serde(deserialize_with = "string_list", alias = "videoUrls")]
    pub video_urls: Vec<String>,
    /// A poster or preview of the scene's output (not in the contract's scene table; read
    /// when present).
    #[serde(deserialize_with = "lenient_string", alias = "thumbnailUrl")]
    pub thumbnail_url: Option<String>,
    /// The scene's own generation (not in the contract's scene table; read when present).
    #[serde(deserialize_with = "lenient_string", alias = "generationId")]
    pub generation_id: Option<String>,
}

impl Scene {
    /// The scene's outputs: videos in video mode, images otherwise.
    pub fn output_urls(&self) -> &[String] {
        if self.video_urls.is_empty() {
            &self.image_urls
        } else {
            &self.video_urls
        }
    }
    pub fn state(&self) -> JobState {
        self.status.clone().map(JobState::from).unwrap_or_default()
    }
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, from = "StatusWire")]
pub struct StatusResponse {
    pub success: Option<bool>,
    pub generation_id: Option<String>,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub state: JobState,
    pub progress: Option<f64>,
    pub result: Option<JobResult>,
    pub credits_used: Option<f64>,
    pub credits_breakdown: Vec<CreditBreakdown>,
    pub error: Option<String>,
    pub failure: Option<Failure>,
    pub scenes: Vec<Scene>,
}

/// Wire shape of a status answer: `state` (generations) or `status` (trim jobs) may carry
/// the state; camelCase spellings are read too; unreadable parts become absent.
#[derive(Default, Deserialize)]
#[serde(default)]
struct StatusWire {
    #[serde(deserialize_with = "lenient_bool")]
    success: Option<bool>,
    #[serde(deserialize_with = "lenient_string")]
    generation_id: Option<String>,
    #[serde(deserialize_with = "lenient_string", rename = "generationId")]
    generation_id_camel: Option<String>,
    #[serde(deserialize_with = "lenient_string", rename = "jobId")]
    job_id: Option<String>,
    #[serde(rename = "type", deserialize_with = "lenient_string")]
    kind: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    state: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    status: Option<String>,
    #[serde(deserialize_with = "lenient_f64")]
    progress: Option<f64>,
    #[serde(deserialize_with = "lenient_object")]
    result: Option<JobResult>,
    #[serde(deserialize_with = "lenient_f64")]
    credits_used: Option<f64>,
    #[serde(deserialize_with = "lenient_f64", rename = "creditsUsed")]
    credits_used_camel: Option<f64>,
    #[serde(deserialize_with = "lenient_list")]
    credits_breakdown: Vec<CreditBreakdown>,
    #[serde(deserialize_with = "lenient_list", rename = "creditsBreakdown")]
    credits_breakdown_camel: Vec<CreditBreakdown>,
    #[serde(deserialize_with = "lenient_error_text")]
    error: Option<String>,
    #[serde(deserialize_with = "lenient_object")]
    failure: Option<Failure>,
    #[serde(deserialize_with = "lenient_list")]
    scenes: Vec<Scene>,
}

impl From<StatusWire> for StatusResponse {
    fn from(w: StatusWire) -> Self {
        let state = non_blank(w.state)
            .or(non_blank(w.status))
            .map(JobState::from)
            .unwrap_or_default();
        StatusResponse {
            success: w.success,
            generation_id: non_blank(w.generation_id)
                .or(non_blank(w.generation_id_camel))
                .or(non_blank(w.job_id)),
            kind: w.kind,
            state,
            progress: w.progress,
            result: w.result,
            credits_used: w.credits_used.or(w.credits_used_camel),
            credits_breakdown: if w.credits_breakdown.is_empty() {
                w.credits_breakdown_camel
            } else {
                w.credits_breakdown
            },
            error: w.error,
            failure: w.failure,
            scenes: w.scenes,
        }
    }
}

/// An object field that may be absent, `null` or malformed (malformed reads as absent).
fn lenient_object<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    let value = serde_json::Value::deserialize(deserializer)?;
    Ok(match value {
        serde_json::Value::Object(_) => serde_json::from_value(value).ok(),
        _ => None,
    })
}

/// `error` as text: a string, or an object's `message`.
fn lenient_error_text<'de, D>(deserializer: D) -> Result<Option<String>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    Ok(match serde_json::Value::deserialize(deserializer)? {
        serde_json::Value::String(s) => Some(s),
        serde_json::Value::Object(map) => map
            .get("message")
            .and_then(|m| m.as_str())
            .map(str::to_owned),
        _ => None,
    })
}

impl StatusResponse {
    /// The failure text to show: `failure.message`, else `error`.
    pub fn failure_message(&self) -> Option<String> {
        self.failure
            .as_ref()
            .map(|f| f.message.clone())
            .filter(|m| !m.is_empty())
            .or_else(|| self.error.clone())
    }
}

// ---------------------------------------------------------------------------------------
// Account, projects, uploads
// ---------------------------------------------------------------------------------------

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct Credits {
    #[serde(deserialize_with = "lenient_f64")]
    pub total: Option<f64>,
    #[serde(deserialize_with = "lenient_f64", alias = "planCredits")]
    pub plan_credits: Option<f64>,
    #[serde(deserialize_with = "lenient_f64", alias = "creditPack")]
    pub credit_pack: Option<f64>,
    #[serde(deserialize_with = "lenient_f64")]
    pub redemption: Option<f64>,
    /// Balance after reservations for running jobs; not always sent.
    #[serde(deserialize_with = "lenient_f64")]
    pub available: Option<f64>,
    /// Credits held by running jobs; not always sent.
    #[serde(deserialize_with = "lenient_f64")]
    pub reserved: Option<f64>,
}

impl Credits {
    /// What can be spent now: `available` when sent, else `total`.
    pub fn spendable(&self) -> Option<f64> {
        self.available.or(self.total)
    }
}

/// GET /v1/account/credits: `{success, credits: {...}}`. A bare balance object
/// (`{available, reserved, total}`, as the coding-assistant balance route sends) is read too.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(from = "serde_json::Value")]
pub struct CreditsResponse {
    pub success: Option<bool>,
    pub credits: Credits,
}

impl From<serde_json::Value> for CreditsResponse {
    fn from(value: serde_json::Value) -> Self {
        let success = value.get("success").and_then(serde_json::Value::as_bool);
        let inner = match value.get("credits").or_else(|| value.get("data")) {
            Some(obj @ serde_json::Value::Object(_)) => obj.clone(),
            _ => value,
        };
        let credits = serde_json::from_value(inner).unwrap_or_default();
        CreditsResponse { success, credits }
    }
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(from = "serde_json::Value")]
pub struct Project {
    /// `id`, else `_id`, else `project_id`.
    pub id: String,
    pub name: String,
    pub is_default: Option<bool>,
    /// Archived projects are hidden from pickers unless asked for. Read leniently:
    /// `archived`/`is_archived`/`isArchived` true, or a non-null `archived_at`; absent = false.
    pub archived: bool,
}

/// First of `keys` that holds a non-blank string or a number, as text.
fn text_field(value: &serde_json::Value, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|key| match value.get(*key) {
        Some(serde_json::Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        Some(serde_json::Value::Number(n)) => Some(n.to_string()),
        _ => None,
    })
}

impl From<serde_json::Value> for Project {
    fn from(value: serde_json::Value) -> Self {
        Project {
            id: text_field(&value, &["id", "_id", "project_id", "projectId"]).unwrap_or_default(),
            name: text_field(&value, &["name", "title"]).unwrap_or_default(),
            is_default: value
                .get("is_default")
                .or_else(|| value.get("isDefault"))
                .and_then(serde_json::Value::as_bool),
            archived: project_archived(&value),
        }
    }
}

fn project_archived(value: &serde_json::Value) -> bool {
    let flag = ["archived", "is_archived", "isArchived"]
        .iter()
        .find_map(|key| value.get(*key).and_then(serde_json::Value::as_bool));
    flag.unwrap_or_else(|| {
        ["archived_at", "archivedAt"]
            .iter()
            .any(|key| value.get(*key).is_some_and(|v| !v.is_null()))
    })
}

/// The first array found at one of `paths` (each a list of nested keys).
fn array_at<'a>(
    value: &'a serde_json::Value,
    paths: &[&[&str]],
) -> Option<&'a Vec<serde_json::Value>> {
    paths.iter().find_map(|path| {
        let mut cursor = value;
        for key in *path {
            cursor = cursor.get(*key)?;
        }
        cursor.as_array()
    })
}

/// GET /v1/projects. The contract does not show the envelope: `projects`, `data`,
/// `data.projects` and a bare array are all read.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(from = "serde_json::Value")]
pub struct ProjectsResponse {
    pub success: Option<bool>,
    pub projects: Vec<Project>,
}

impl From<serde_json::Value> for ProjectsResponse {
    fn from(value: serde_json::Value) -> Self {
        let items = match &value {
            serde_json::Value::Array(items) => Some(items),
            _ => array_at(
                &value,
                &[&["projects"], &["data"], &["data", "projects"], &["items"]],
            ),
        };
        ProjectsResponse {
            success: value.get("success").and_then(serde_json::Value::as_bool),
            projects: items
                .map(|items| {
                    items
                        .iter()
                        .filter(|item| item.is_object())
                        .map(|item| Project::from(item.clone()))
                        .filter(|p| !p.id.is_empty())
                        .collect()
                })
                .unwrap_or_default(),
        }
    }
}

/// POST /v1/projects: the project under `project` or `data`, or the body itself.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(from = "serde_json::Value")]
pub struct ProjectResponse {
    pub success: Option<bool>,
    pub project: Option<Project>,
}

impl From<serde_json::Value> for ProjectResponse {
    fn from(value: serde_json::Value) -> Self {
        let success = value.get("success").and_then(serde_json::Value::as_bool);
        let project = ["project", "data"]
            .iter()
            .filter_map(|k| value.get(*k))
            .find(|v| v.is_object())
            .map(|v| match v.get("project") {
                Some(inner) if inner.is_object() => Project::from(inner.clone()),
                _ => Project::from(v.clone()),
            })
            .filter(|p| !p.id.is_empty())
            .or_else(|| Some(Project::from(value.clone())).filter(|p| !p.id.is_empty()));
        ProjectResponse { success, project }
    }
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(from = "serde_json::Value")]
pub struct UploadedMedia {
    pub id: Option<String>,
    /// The stable handle to keep (contract document 3).
    pub url: String,
    pub thumbnail_url: Option<String>,
    #[serde(rename = "type")]
    pub media_type: Option<String>,
}

impl From<serde_json::Value> for UploadedMedia {
    fn from(value: serde_json::Value) -> Self {
        UploadedMedia {
            id: text_field(&value, &["id", "_id", "media_id", "mediaId"]),
            url: text_field(
                &value,
                &["url", "file_url", "fileUrl", "public_url", "publicUrl"],
            )
            .unwrap_or_default(),
            thumbnail_url: text_field(&value, &["thumbnail_url", "thumbnailUrl"]),
            media_type: text_field(&value, &["type", "media_type", "mediaType"]),
        }
    }
}

/// POST /v1/media/upload. The body is "not shown" in the contract: `media`, `data`, `file`
/// or the body itself, whichever carries a `url`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(from = "serde_json::Value")]
pub struct UploadResponse {
    pub success: Option<bool>,
    pub media: Option<UploadedMedia>,
}

impl From<serde_json::Value> for UploadResponse {
    fn from(value: serde_json::Value) -> Self {
        let success = value.get("success").and_then(serde_json::Value::as_bool);
        let media = ["media", "data", "file"]
            .iter()
            .filter_map(|k| value.get(*k))
            .filter(|v| v.is_object())
            .map(|v| UploadedMedia::from(v.clone()))
            .chain(std::iter::once(UploadedMedia::from(value.clone())))
            .find(|m| !m.url.is_empty());
        UploadResponse { success, media }
    }
}
