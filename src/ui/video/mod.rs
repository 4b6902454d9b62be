//! Videos in the studio: which results are videos ([`is_video`]), the player widget
//! ([`player::VideoPlayerState`]), the Library's hover-scrub previews
//! ([`previews::VideoPreviews`]), the pure time and scrub maths ([`time`]) and the trim
//! timeline with its thumbnail strip ([`timeline`]).
//!
//! The engine downloads and opens a video (`Command::OpenVideo`) and hands back a
//! `media::video::VideoPlayer` whose "video-player" thread decodes and paces the frames;
//! the widget only sends it commands and uploads the newest frame into one texture.

pub mod player;
pub mod previews;
pub mod time;
pub mod timeline;

use crate::api::JobResult;
use crate::api::media::MediaItem;

/// Whether a result is a video: a media type of `video`, a duration, or a video file
/// extension on its URL. The one test every panel uses.
pub fn is_video(kind: Option<&str>, duration_secs: Option<f64>, url: &str) -> bool {
    if let Some(kind) = kind.map(str::trim).filter(|k| !k.is_empty()) {
        return kind.eq_ignore_ascii_case("video");
    }
    duration_secs.is_some_and(|d| d.is_finite() && d > 0.0)
        || crate::engine::transfers::is_video_url(url)
}

/// A library item is a video by its type (`type`, else `media_type`).
pub fn is_video_item(item: &MediaItem) -> bool {
    let kind = item.item_type.as_deref().or(item.media_type.as_deref());
    is_video(kind, item.duration, &item.url)
}

/// Output `index` of a job result is a video by the result's duration or its URL.
pub fn is_video_output(result: &JobResult, index: usize) -> bool {
    let url = result.urls.get(index).map_or("", String::as_str);
    is_video(None, result.duration, url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn videos_are_known_by_type_duration_or_extension() {
        assert!(is_video(Some("video"), None, "http://x/a"));
        assert!(
            !is_video(Some("image"), Some(5.0), "http://x/a.mp4"),
            "the type wins"
        );
        assert!(is_video(None, Some(5.0), "http://x/a"));
        assert!(is_video(None, None, "http://x/files/a.MP4?t=1"));
        assert!(is_video(None, None, "http://x/a.webm"));
        assert!(!is_video(None, None, "http://x/a.png"));
        assert!(!is_video(None, Some(0.0), "http://x/a.png"));
        let result = JobResult {
            urls: vec!["http://x/a.png".into(), "http://x/b.mov".into()],
            ..JobResult::default()
        };
        assert!(!is_video_output(&result, 0));
        assert!(is_video_output(&result, 1));
        let item = MediaItem {
            media_type: Some("video".into()),
            ..MediaItem::default()
        };
        assert!(is_video_item(&item));
    }
}
