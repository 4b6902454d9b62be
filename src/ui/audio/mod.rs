//! Sound in the studio's panels: the waveform widget ([`waveform::Waveform`]), the audio
//! view the viewer shows for audio results ([`view`]), the audio tile of Create's results
//! and the Library ([`tile`]), the `m:ss.t` read-out ([`time`]) and the shared sound state
//! ([`sounds`]): which URLs are loaded (path, peaks, facts, from the engine's
//! `AudioCommand::Load`) and the one sound playing through the studio's output.
//!
//! Panels never do I/O: a lookup of an unknown URL records a wish that the app turns into
//! `Command::Audio(AudioCommand::Load)` after layout; opening a loaded file into the output
//! runs on a short-lived "audio-open" thread.

pub mod sounds;
pub mod tile;
pub mod time;
pub mod view;
pub mod waveform;

use crate::api::media::MediaItem;

pub use crate::api::audio::is_audio_url;

/// A library item is a sound by its type (`type`, else `media_type`), else its URL.
pub fn is_audio_item(item: &MediaItem) -> bool {
    match item
        .item_type
        .as_deref()
        .or(item.media_type.as_deref())
        .map(str::trim)
        .filter(|k| !k.is_empty())
    {
        Some(kind) => kind.eq_ignore_ascii_case("audio"),
        None => is_audio_url(&item.url),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sounds_are_known_by_type_or_extension() {
        assert!(is_audio_url("http://h/files/audio/a.MP3?x=1"));
        assert!(is_audio_url("/tmp/a.flac"));
        assert!(!is_audio_url("http://h/v.mp4"));
        assert!(!is_audio_url("http://h.mp3/v"));
        let mut item = MediaItem {
            url: "http://h/x.png".into(),
            item_type: Some("audio".into()),
            ..MediaItem::default()
        };
        assert!(is_audio_item(&item));
        item.item_type = None;
        assert!(!is_audio_item(&item));
        item.url = "http://h/x.wav".into();
        assert!(is_audio_item(&item));
    }
}
