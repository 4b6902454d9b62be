//! `framewright --play FILE`: the file opens in the viewer and starts playing, as media
//! players do. A video plays in the viewer's player (with its sound), a sound in the audio
//! view; anything else is named in a toast. The file is handed over as a `file://` URL, which
//! the engine opens in place (no download, no copy).

use super::StudioApp;
use crate::api::media::MediaItem;
use crate::file_url::file_url;
use crate::ui::compose::state::file_name;
use crate::ui::dialogs::is_video_path;
use crate::ui::model::{Action, ResultRef};
use crate::ui::toasts::ToastKind;
use std::path::Path;

impl StudioApp {
    /// On the first frame: open the `--play` file, if any, and play it.
    pub(super) fn play_startup_file(&mut self, ctx: &egui::Context) {
        let Some(path) = self.play_on_start.take() else {
            return;
        };
        match play_item(&path) {
            Ok(item) => {
                tracing::info!("playing {}", path.display());
                self.apply(ctx, Action::CloseViewer);
                self.viewer.open(vec![ResultRef::Media(Box::new(item))], 0);
                self.viewer.play_when_ready();
            }
            Err(reason) => self.toasts.push(
                ToastKind::Error,
                format!("Could not play “{}”: {reason}", file_name(&path)),
            ),
        }
    }
}

/// The viewer's item for a local file: a video or a sound by its extension.
pub(crate) fn play_item(path: &Path) -> Result<MediaItem, String> {
    if !path.is_file() {
        return Err(format!("there is no such file ({})", path.display()));
    }
    let url = file_url(path);
    let kind = if is_video_path(path) {
        "video"
    } else if crate::api::audio::is_audio_url(&url) {
        "audio"
    } else {
        return Err(
            "Framewright plays videos (MP4) and sounds (MP3, WAV, FLAC, Ogg, M4A) only".into(),
        );
    };
    Ok(MediaItem {
        url,
        name: Some(file_name(path)),
        item_type: Some(kind.to_owned()),
        ..MediaItem::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_videos_and_sounds_play() {
        let dir = std::env::temp_dir().join(format!("framewright-play-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        for (name, kind) in [
            ("a.mp4", Some("video")),
            ("b.MP3", Some("audio")),
            ("c.png", None),
        ] {
            let path = dir.join(name);
            std::fs::write(&path, b"x").expect("written");
            let item = play_item(&path);
            assert_eq!(
                item.ok().and_then(|i| i.item_type).as_deref(),
                kind,
                "{name}"
            );
        }
        assert!(play_item(&dir.join("missing.mp4")).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
