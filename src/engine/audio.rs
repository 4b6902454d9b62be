//! Sound for the studio's panels: `AudioCommand::Load` downloads an output into the cache
//! (key-less, like every output URL; a local path or `file://` URL is used in place),
//! computes its waveform peaks on the blocking pool and keeps them on disk next to the
//! file (`<file>.peaks`), then answers `AudioEvent::Loaded` (path, peaks, facts) or
//! `AudioEvent::Failed` (words and the raw error). `SaveWav` writes a 16-bit PCM copy.
//! Playing is not done here: the UI owns the one `audio::AudioOutput` and opens the cached
//! file into it off its own thread.

use super::guard::spawn_guarded;
use super::protocol::Event;
use super::runtime::Ctx;
use super::transfers::{Transfers, fnv1a_64};
use crate::audio::{
    AudioError, AudioInfo, Peaks, compute_peaks, open_file, peaks::DEFAULT_BUCKETS,
};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tokio::sync::Semaphore;

/// Peaks computed at once (each decodes a whole file on a blocking thread).
const PEAK_WORKERS: usize = 2;
/// Folder under the cache for the peaks of local files (never written next to a person's
/// own file).
const LOCAL_PEAKS_FOLDER: &str = "peaks";

#[derive(Debug)]
pub enum AudioCommand {
    /// Fetch the sound at `url` (an output URL, a `file://` URL or a plain local path) and
    /// its peaks; answered by one `Loaded` or `Failed` (a repeat while one is under way is
    /// answered once, by the first).
    Load { url: String },
    /// Write the sound at `url` as a 16-bit PCM WAV file at `path`; answered by
    /// `Event::FileSaved`, like every other save.
    SaveWav { url: String, path: PathBuf },
}

#[derive(Clone, Debug)]
pub enum AudioEvent {
    Loaded {
        url: String,
        path: PathBuf,
        peaks: Peaks,
        info: Arc<AudioInfo>,
    },
    Failed {
        url: String,
        /// For a person.
        error: String,
        /// The raw error (Details and the log).
        detail: String,
    },
}

#[derive(Clone)]
pub(crate) struct Sounds {
    ctx: Arc<Ctx>,
    transfers: Transfers,
    workers: Arc<Semaphore>,
    in_flight: Arc<Mutex<HashSet<String>>>,
    /// One cache download at a time (two loads of one URL must not write one file).
    downloads: Arc<tokio::sync::Mutex<()>>,
}

impl Sounds {
    pub fn new(ctx: Arc<Ctx>, transfers: Transfers) -> Self {
        Self {
            ctx,
            transfers,
            workers: Arc::new(Semaphore::new(PEAK_WORKERS)),
            in_flight: Arc::new(Mutex::new(HashSet::new())),
            downloads: Arc::new(tokio::sync::Mutex::new(())),
        }
    }

    pub fn handle(&self, command: AudioCommand) {
        match command {
            AudioCommand::Load { url } => self.load(url),
            AudioCommand::SaveWav { url, path } => self.save_wav(url, path),
        }
    }

    fn load(&self, url: String) {
        {
            let Ok(mut in_flight) = self.in_flight.lock() else {
                return;
            };
            if !in_flight.insert(url.clone()) {
                return;
            }
        }
        let this = self.clone();
        let (owner, failed_url) = (self.clone(), url.clone());
        spawn_guarded(
            "loading a sound",
            async move {
                let event = match this.load_inner(&url).await {
                    Ok((path, peaks, info)) => AudioEvent::Loaded {
                        url: url.clone(),
                        path,
                        peaks,
                        info: Arc::new(info),
                    },
                    Err(failure) => {
                        tracing::warn!("sound {url}: {}", failure.detail);
                        AudioEvent::Failed {
                            url: url.clone(),
                            error: failure.error,
                            detail: failure.detail,
                        }
                    }
                };
                this.finish(&url);
                this.ctx.emit(Event::Audio(event)).await;
            },
            move |message| async move {
                owner.finish(&failed_url);
                owner
                    .ctx
                    .emit(Event::Audio(AudioEvent::Failed {
                        url: failed_url,
                        error: "The sound could not be opened (internal error).".to_owned(),
                        detail: message,
                    }))
                    .await;
            },
        );
    }

    fn finish(&self, url: &str) {
        if let Ok(mut in_flight) = self.in_flight.lock() {
            in_flight.remove(url);
        }
    }

    async fn load_inner(&self, url: &str) -> Result<(PathBuf, Peaks, AudioInfo), Failure> {
        let (path, peaks_path) = self.local_copy(url).await?;
        let Ok(_permit) = self.workers.acquire().await else {
            return Err(Failure::internal("the peak workers stopped"));
        };
        let file = path.clone();
        let (peaks, info) = tokio::task::spawn_blocking(move || peaks_and_info(&file, &peaks_path))
            .await
            .map_err(|e| Failure::internal(&format!("peaks stopped: {e}")))??;
        Ok((path, peaks, info))
    }

    /// The file on disk and where its peaks are kept.
    async fn local_copy(&self, url: &str) -> Result<(PathBuf, PathBuf), Failure> {
        if let Some(local) = local_path(url) {
            if !tokio::fs::try_exists(&local).await.unwrap_or(false) {
                return Err(Failure {
                    error: "The sound file is not there any more.".to_owned(),
                    detail: format!("{} does not exist", local.display()),
                });
            }
            let folder = self.ctx.cache_dir.join(LOCAL_PEAKS_FOLDER);
            tokio::fs::create_dir_all(&folder)
                .await
                .map_err(|e| Failure {
                    error: "The studio's cache folder could not be written.".to_owned(),
                    detail: format!("{}: {e}", folder.display()),
                })?;
            let key = fnv1a_64(local.to_string_lossy().as_bytes());
            let peaks_path = folder.join(format!("{key:016x}.peaks"));
            return Ok((local, peaks_path));
        }
        let _one_at_a_time = self.downloads.lock().await;
        let path = self
            .transfers
            .cached_output(url)
            .await
            .map_err(|detail| Failure {
                error: "The sound could not be downloaded.".to_owned(),
                detail,
            })?;
        let peaks_path = peaks_path_for(&path);
        Ok((path, peaks_path))
    }

    fn save_wav(&self, url: String, path: PathBuf) {
        let this = self.clone();
        let (owner, failed_path) = (self.clone(), path.clone());
        spawn_guarded(
            "saving a sound as WAV",
            async move {
                let result = match this.local_copy(&url).await {
                    Err(failure) => {
                        tracing::warn!("saving {url} as WAV: {}", failure.detail);
                        Err(failure.error)
                    }
                    Ok((source, _)) => {
                        let target = path.clone();
                        tokio::task::spawn_blocking(move || write_wav(&source, &target))
                            .await
                            .unwrap_or_else(|e| Err(format!("the encoder stopped: {e}")))
                    }
                };
                this.ctx.emit(Event::FileSaved { path, result }).await;
            },
            move |message| async move {
                owner
                    .ctx
                    .emit(Event::FileSaved {
                        path: failed_path,
                        result: Err(format!("an internal error stopped it ({message})")),
                    })
                    .await;
            },
        );
    }
}

/// `file:///a/b.mp3` or `/a/b.mp3` → the path; an http(s) URL → None.
pub fn local_path(url: &str) -> Option<PathBuf> {
    if url.starts_with("file://") {
        return crate::file_url::path_of_file_url(url);
    }
    if url.starts_with("http://") || url.starts_with("https://") {
        return None;
    }
    let path = Path::new(url);
    path.is_absolute().then(|| path.to_path_buf())
}

/// `<file>.peaks` beside a cached file.
pub fn peaks_path_for(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".peaks");
    path.with_file_name(name)
}

/// The peaks (from disk when computed before and still newer than the file) and the file's
/// facts. Runs on a blocking thread.
fn peaks_and_info(path: &Path, peaks_path: &Path) -> Result<(Peaks, AudioInfo), Failure> {
    let (_source, info) = open_file(path).map_err(|e| Failure::audio(&e))?;
    if let Some(peaks) = read_cached_peaks(path, peaks_path) {
        return Ok((peaks, info));
    }
    let peaks = compute_peaks(path, DEFAULT_BUCKETS).map_err(|e| Failure::audio(&e))?;
    // The cache is a convenience: a write that fails only costs a recompute next time.
    let temp = peaks_path.with_extension("peaks.part");
    if std::fs::write(&temp, peaks.to_bytes()).is_ok()
        && std::fs::rename(&temp, peaks_path).is_err()
    {
        let _ = std::fs::remove_file(&temp);
    }
    Ok((peaks, info))
}

fn read_cached_peaks(path: &Path, peaks_path: &Path) -> Option<Peaks> {
    let file_modified = std::fs::metadata(path).and_then(|m| m.modified()).ok()?;
    let peaks_modified = std::fs::metadata(peaks_path)
        .and_then(|m| m.modified())
        .ok()?;
    if peaks_modified < file_modified {
        return None;
    }
    Peaks::from_bytes(&std::fs::read(peaks_path).ok()?)
}

/// Decode `source` and write it as WAV to `target` (a temp file renamed when complete).
fn write_wav(source: &Path, target: &Path) -> Result<(), String> {
    let (mut decoded, _) = open_file(source).map_err(|e| {
        tracing::warn!("saving {} as WAV: {e}", source.display());
        person_message(&e)
    })?;
    let mut temp_name = target.file_name().unwrap_or_default().to_os_string();
    temp_name.push(".part");
    let temp = target.with_file_name(temp_name);
    let written = (|| -> Result<(), String> {
        let file =
            std::fs::File::create(&temp).map_err(|e| format!("it could not be written ({e})"))?;
        let mut out = std::io::BufWriter::new(file);
        crate::audio::wav::encode_wav(decoded.as_mut(), &mut out).map_err(|e| {
            tracing::warn!("encoding {} as WAV: {e}", source.display());
            person_message(&e)
        })?;
        std::io::Write::flush(&mut out).map_err(|e| format!("it could not be written ({e})"))?;
        std::fs::rename(&temp, target).map_err(|e| format!("it could not be written ({e})"))
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

/// A sentence a person understands for why a sound cannot be played.
pub fn person_message(error: &AudioError) -> String {
    match error {
        AudioError::NoTrack => "This file has no sound in it.".to_owned(),
        AudioError::Unsupported(_) => {
            "This sound is in a format the studio cannot play.".to_owned()
        }
        AudioError::Decode(_) => "This sound file is damaged and cannot be played.".to_owned(),
        AudioError::Io(_) => "The sound file could not be read.".to_owned(),
        AudioError::Device(_) => "The computer's sound output could not be used.".to_owned(),
    }
}

struct Failure {
    error: String,
    detail: String,
}

impl Failure {
    fn audio(error: &AudioError) -> Self {
        Self {
            error: person_message(error),
            detail: error.to_string(),
        }
    }

    fn internal(detail: &str) -> Self {
        Self {
            error: "The sound could not be opened (internal error).".to_owned(),
            detail: detail.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_paths_and_file_urls_are_used_in_place() {
        assert_eq!(
            local_path("file:///tmp/a%20b.mp3"),
            Some(PathBuf::from("/tmp/a b.mp3"))
        );
        assert_eq!(local_path("/tmp/x.wav"), Some(PathBuf::from("/tmp/x.wav")));
        assert_eq!(local_path("http://host/files/audio/x.mp3"), None);
        assert_eq!(local_path("relative.mp3"), None);
    }

    #[test]
    fn peaks_live_next_to_the_file() {
        assert_eq!(
            peaks_path_for(Path::new("/c/open/0123.mp3")),
            PathBuf::from("/c/open/0123.mp3.peaks")
        );
    }

    #[test]
    fn errors_are_said_in_words() {
        assert_eq!(
            person_message(&AudioError::Decode("bad frame".into())),
            "This sound file is damaged and cannot be played."
        );
    }
}
