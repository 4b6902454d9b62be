//! Transfers that are not jobs: image loads for thumbnails (fetched without the key,
//! decoded on the blocking pool, deduplicated), source uploads, saves and "open in viewer".

use super::guard::spawn_guarded;
use super::protocol::Event;
use super::runtime::Ctx;
use crate::api::TransferCounter;
use crate::media::DecodedImage;
use crate::media::decode_image;
use crate::media::video::{VIDEO_EXTENSIONS, first_frame_still};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

/// Folder under `cache_dir` for files opened in the system viewer.
const OPEN_CACHE_FOLDER: &str = "open";
/// How often a source upload reports its progress.
const SOURCE_PROGRESS_INTERVAL: std::time::Duration = std::time::Duration::from_millis(250);

#[derive(Clone)]
pub(crate) struct Transfers {
    ctx: Arc<Ctx>,
    /// (url, max_side_px) of image loads in flight; a repeated request is dropped because
    /// the first one's answer serves both.
    loading: Arc<Mutex<HashSet<(String, u32)>>>,
}

impl Transfers {
    pub fn new(ctx: Arc<Ctx>) -> Self {
        Transfers {
            ctx,
            loading: Arc::new(Mutex::new(HashSet::new())),
        }
    }

    /// Fetch, decode and downscale an image; answers with `ImageLoaded` or `ImageFailed`.
    pub fn load_image(&self, url: String, max_side_px: u32) {
        let key = (url.clone(), max_side_px);
        {
            let Ok(mut loading) = self.loading.lock() else {
                return;
            };
            if !loading.insert(key.clone()) {
                return;
            }
        }
        let this = self.clone();
        // A panic while loading shows as this image failing, like any other error.
        let owner = self.clone();
        let (failed_url, failed_key) = (url.clone(), key.clone());
        let on_panic = move |_message: String| async move {
            if let Ok(mut loading) = owner.loading.lock() {
                loading.remove(&failed_key);
            }
            owner
                .ctx
                .emit(Event::ImageFailed {
                    url: failed_url,
                    error: "the image could not be shown (internal error)".to_owned(),
                })
                .await;
        };
        spawn_guarded(
            "loading an image",
            async move {
                // A video asked for as a picture (no poster came with it): its first frame,
                // read from the download cache the player uses (one download for both).
                let outcome = if is_video_url(&url) {
                    this.video_still(&url, max_side_px).await
                } else {
                    this.image_still(&url, max_side_px).await
                };
                if let Ok(mut loading) = this.loading.lock() {
                    loading.remove(&key);
                }
                let event = match outcome {
                    Ok(image) => Event::ImageLoaded {
                        url,
                        image: Arc::new(image),
                    },
                    Err(error) => Event::ImageFailed { url, error },
                };
                this.ctx.emit(event).await;
            },
            on_panic,
        );
    }

    /// An image output, fetched and decoded to at most `max_side_px`.
    /// A `file://` URL (a local image about to be uploaded, e.g. in the Visual DNA form) is
    /// read from disk.
    async fn image_still(&self, url: &str, max_side_px: u32) -> Result<DecodedImage, String> {
        let bytes = match crate::file_url::path_of_file_url(url) {
            Some(local) => tokio::fs::read(&local)
                .await
                .map_err(|e| format!("cannot read {}: {e}", local.display()))?,
            None => {
                let fetched = self.ctx.client.fetch_output(url).await;
                self.ctx.reachability.note(fetched.as_ref());
                fetched.map_err(|e| e.to_string())?
            }
        };
        tokio::task::spawn_blocking(move || decode_image(&bytes, max_side_px))
            .await
            .map_err(|e| format!("decoder stopped: {e}"))?
            .map_err(|e| e.to_string())
    }

    /// A video's first frame as a still (the file comes from the download cache).
    async fn video_still(&self, url: &str, max_side_px: u32) -> Result<DecodedImage, String> {
        let path = self.cached_output(url).await?;
        tokio::task::spawn_blocking(move || first_frame_still(&path, max_side_px))
            .await
            .map_err(|e| format!("decoder stopped: {e}"))?
            .map_err(|e| e.to_string())
    }

    /// Upload a local file for image editing; answers with `SourceUploaded` (the media url).
    pub async fn upload_source(self, path: PathBuf) {
        // A file the service could not use is refused here, before a byte is sent.
        if let Err(refused) = super::source_check::check_before_sending(&path).await {
            self.ctx
                .emit(Event::SourceUploaded {
                    path,
                    result: Err(refused),
                })
                .await;
            return;
        }
        let counter = Arc::new(TransferCounter::default());
        let upload_path = path.clone();
        let upload = self
            .ctx
            .client
            .upload_file_tracked(&upload_path, None, Some(counter.clone()));
        tokio::pin!(upload);
        let mut ticker = tokio::time::interval(SOURCE_PROGRESS_INTERVAL);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let result = loop {
            tokio::select! {
                result = &mut upload => break result,
                _ = ticker.tick() => {
                    let bytes_total = counter.bytes_total.load(Ordering::Relaxed);
                    if bytes_total > 0 {
                        self.ctx
                            .emit(Event::SourceUploadProgress {
                                path: path.clone(),
                                bytes_done: counter.bytes_done.load(Ordering::Relaxed),
                                bytes_total,
                            })
                            .await;
                    }
                }
            }
        };
        let result = result.map(|media| media.url);
        self.ctx
            .emit(Event::SourceUploaded {
                path: path.clone(),
                result,
            })
            .await;
    }

    /// Download an output to a file the user picked; answers with `FileSaved`.
    pub async fn save_url_to_file(self, url: String, path: PathBuf) {
        if let Some(local) = crate::file_url::path_of_file_url(&url) {
            // A file opened from this computer (`--play`): a copy, nothing to download.
            let copied = tokio::fs::copy(&local, &path)
                .await
                .map(|_| ())
                .map_err(|error| {
                    tracing::warn!(
                        "copying {} to {} failed: {error}",
                        local.display(),
                        path.display()
                    );
                    format!("It could not be copied ({error}).")
                });
            self.ctx
                .emit(Event::FileSaved {
                    path,
                    result: copied,
                })
                .await;
            return;
        }
        let downloaded = self.ctx.client.download_output_to(&url, &path).await;
        self.ctx.reachability.note(downloaded.as_ref());
        // The person reads words; the raw error (status, transport text) goes to the log.
        let result = downloaded.map_err(|error| {
            tracing::warn!("saving {url} to {} failed: {error}", path.display());
            super::error_in_words(&error)
        });
        self.ctx.emit(Event::FileSaved { path, result }).await;
    }

    /// Download into the cache (keyed by a hash of the URL, with the right extension) and
    /// open with the system's default application. Only failures are reported.
    pub async fn open_in_system_viewer(self, url: String) {
        let cached = match crate::file_url::path_of_file_url(&url) {
            Some(local) => Ok(local),
            None => self.cached_output(&url).await,
        };
        let error = match cached {
            Err(raw) => {
                tracing::warn!("downloading {url} to open it failed: {raw}");
                "it could not be downloaded".to_owned()
            }
            Ok(path) => match tokio::task::spawn_blocking(move || open::that_detached(&path))
                .await
                .map_err(|e| e.to_string())
                .and_then(|opened| opened.map_err(|e| e.to_string()))
            {
                Ok(()) => return,
                Err(raw) => {
                    tracing::warn!("opening {url} with the system's viewer failed: {raw}");
                    "no application on this computer opens it".to_owned()
                }
            },
        };
        self.ctx.emit(Event::OpenFailed { url, error }).await;
    }

    /// A local copy of an output URL under the cache (downloaded once, then reused).
    pub(crate) async fn cached_output(&self, url: &str) -> Result<PathBuf, String> {
        self.cached_output_tracked(url, None).await
    }

    /// [`Self::cached_output`], counting a download's bytes into `counter`.
    pub(crate) async fn cached_output_tracked(
        &self,
        url: &str,
        counter: Option<Arc<TransferCounter>>,
    ) -> Result<PathBuf, String> {
        let folder = self.ctx.cache_dir.join(OPEN_CACHE_FOLDER);
        tokio::fs::create_dir_all(&folder)
            .await
            .map_err(|e| format!("cannot create the cache folder {}: {e}", folder.display()))?;
        let stem = format!("{:016x}", fnv1a_64(url.as_bytes()));
        let path = match existing_cached(&folder, &stem).await {
            Some(path) => path,
            None => {
                let url_ext = extension_from_url(url);
                let target = folder.join(format!(
                    "{stem}.{}",
                    url_ext.as_deref().unwrap_or("download")
                ));
                let content_type = self
                    .ctx
                    .client
                    .download_output_tracked(url, &target, counter)
                    .await
                    .map_err(|e| e.to_string())?;
                if url_ext.is_some() {
                    target
                } else {
                    let ext = content_type
                        .as_deref()
                        .and_then(extension_for_content_type)
                        .unwrap_or("bin");
                    let named = folder.join(format!("{stem}.{ext}"));
                    tokio::fs::rename(&target, &named)
                        .await
                        .map_err(|e| format!("cannot name the cached file: {e}"))?;
                    named
                }
            }
        };
        Ok(path)
    }
}

/// A finished cache file for `stem` (any extension except in-progress downloads and the
/// peaks kept beside a sound).
async fn existing_cached(folder: &Path, stem: &str) -> Option<PathBuf> {
    let mut entries = tokio::fs::read_dir(folder).await.ok()?;
    while let Ok(Some(entry)) = entries.next_entry().await {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(&format!("{stem}."))
            && !name.ends_with(".download")
            && !name.ends_with(".part")
            // A sound's waveform peaks live beside it (`<file>.peaks`, engine::audio).
            && !name.ends_with(".peaks")
        {
            return Some(entry.path());
        }
    }
    None
}

/// Stable 64-bit FNV-1a (the cache key must not change between builds).
pub fn fnv1a_64(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// Extension of the URL's last path segment, if it looks like one (1-5 alphanumerics).
/// Whether `url` names a video file by its extension (no other sign is needed to fetch it).
pub fn is_video_url(url: &str) -> bool {
    extension_from_url(url).is_some_and(|ext| VIDEO_EXTENSIONS.contains(&ext.as_str()))
}

pub fn extension_from_url(url: &str) -> Option<String> {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let after_scheme = path.split_once("://").map_or(path, |(_, rest)| rest);
    let last = after_scheme.split_once('/')?.1.rsplit('/').next()?;
    let (_, ext) = last.rsplit_once('.')?;
    (!ext.is_empty() && ext.len() <= 5 && ext.chars().all(|c| c.is_ascii_alphanumeric()))
        .then(|| ext.to_ascii_lowercase())
}

pub fn extension_for_content_type(content_type: &str) -> Option<&'static str> {
    Some(match content_type.trim().to_ascii_lowercase().as_str() {
        "image/png" => "png",
        "image/jpeg" | "image/jpg" => "jpg",
        "image/webp" => "webp",
        "image/gif" => "gif",
        "video/mp4" => "mp4",
        "video/webm" => "webm",
        "video/quicktime" => "mov",
        "audio/mpeg" => "mp3",
        "audio/wav" | "audio/x-wav" | "audio/wave" => "wav",
        "audio/ogg" => "ogg",
        "audio/aac" => "aac",
        "audio/flac" => "flac",
        "model/gltf-binary" => "glb",
        "application/pdf" => "pdf",
        "text/plain" => "txt",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_extensions() {
        assert_eq!(
            extension_from_url("https://cdn.x/images/a.PNG").as_deref(),
            Some("png")
        );
        assert_eq!(
            extension_from_url("http://127.0.0.1:9/files/abc.mp4?x=1").as_deref(),
            Some("mp4")
        );
        assert_eq!(extension_from_url("https://cdn.x/images/abc"), None);
        assert_eq!(extension_from_url("https://cdn.example.com"), None);
        assert_eq!(extension_for_content_type("image/jpeg"), Some("jpg"));
    }

    #[test]
    fn hash_is_stable() {
        assert_eq!(fnv1a_64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a_64(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
