//! Videos for the studio's player: `OpenVideo` downloads an output into the cache (key-less,
//! like every output URL) and starts a `VideoPlayer` on it; `LoadVideoPreview` decodes a few
//! evenly spaced, downscaled frames for the Library's hover-scrub; `LoadVideoStrip` the trim
//! timeline's thumbnail strip of a local file, forwarded thumbnail by thumbnail. Opening and
//! decoding run on the blocking pool (a strip on its own `strip-worker-N` threads); the UI
//! only ever holds the player handle.

use super::guard::spawn_guarded;
use super::protocol::Event;
use super::runtime::Ctx;
use super::transfers::Transfers;
use crate::media::video::{StripEvent, VideoDecodeError, VideoPlayer, VideoStrip, decode_preview};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Semaphore;

/// Previews decoded at once (each holds a decoder and a handful of frames).
const PREVIEW_WORKERS: usize = 2;
/// A preview request waiting behind this many newer ones is dropped unanswered by a decode
/// (answered `VideoPreviewSkipped`): the pointer has moved on to other tiles.
const PREVIEW_STALE_AFTER: u64 = 4;
/// How often a strip's forwarder looks at its cancel flag while waiting for a thumbnail.
const STRIP_POLL: Duration = Duration::from_millis(50);

#[derive(Clone)]
pub(crate) struct Videos {
    ctx: Arc<Ctx>,
    transfers: Transfers,
    previews: Arc<Semaphore>,
    /// Sequence number of the newest preview request.
    preview_seq: Arc<AtomicU64>,
    /// URLs whose preview is queued or decoding (a repeated request is dropped).
    previews_in_flight: Arc<Mutex<HashSet<String>>>,
    /// One cache download at a time, so an open and a preview of the same URL never write
    /// the same cache file at once.
    downloads: Arc<tokio::sync::Mutex<()>>,
    /// Cancel flags of the strips under way, by request id.
    strips: Arc<Mutex<HashMap<u64, Arc<AtomicBool>>>>,
}

impl Videos {
    pub fn new(ctx: Arc<Ctx>, transfers: Transfers) -> Self {
        Self {
            ctx,
            transfers,
            previews: Arc::new(Semaphore::new(PREVIEW_WORKERS)),
            preview_seq: Arc::new(AtomicU64::new(0)),
            previews_in_flight: Arc::new(Mutex::new(HashSet::new())),
            downloads: Arc::new(tokio::sync::Mutex::new(())),
            strips: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// `Command::OpenVideo`: answers `VideoOpened` or `VideoFailed`.
    pub fn open(&self, request_id: u64, url: String) {
        let this = self.clone();
        let (owner, failed_url) = (self.clone(), url.clone());
        spawn_guarded(
            "opening a video",
            async move {
                let event = match this.open_inner(&url).await {
                    Ok(player) => Event::VideoOpened {
                        request_id,
                        url,
                        player: Arc::new(player),
                    },
                    Err(failure) => {
                        tracing::warn!("video {url}: {}", failure.details);
                        Event::VideoFailed {
                            request_id,
                            url,
                            message: failure.message,
                            details: failure.details,
                        }
                    }
                };
                this.ctx.emit(event).await;
            },
            move |message| async move {
                owner
                    .ctx
                    .emit(Event::VideoFailed {
                        request_id,
                        url: failed_url,
                        message: "The video could not be opened (internal error).".to_owned(),
                        details: message,
                    })
                    .await;
            },
        );
    }

    async fn open_inner(&self, url: &str) -> Result<VideoPlayer, Failure> {
        let path = self.cached(url).await?;
        let repaint = self.ctx.repaint_hook();
        let opened = tokio::task::spawn_blocking(move || VideoPlayer::open(&path, repaint))
            .await
            .map_err(|e| Failure {
                message: "The video could not be opened (internal error).".to_owned(),
                details: format!("opener stopped: {e}"),
            })?;
        opened.map_err(|e| Failure::decode(&e))
    }

    /// `Command::LoadVideoPreview`: answers `VideoPreviewLoaded`, `VideoPreviewFailed` or,
    /// when newer requests overtook it, `VideoPreviewSkipped`.
    pub fn preview(&self, url: String, frame_count: u32, max_side_px: u32) {
        {
            let Ok(mut in_flight) = self.previews_in_flight.lock() else {
                return;
            };
            if !in_flight.insert(url.clone()) {
                return;
            }
        }
        let seq = self.preview_seq.fetch_add(1, Ordering::Relaxed) + 1;
        let this = self.clone();
        let (owner, failed_url) = (self.clone(), url.clone());
        spawn_guarded(
            "previewing a video",
            async move {
                let event = this
                    .preview_inner(seq, &url, frame_count, max_side_px)
                    .await;
                this.finish_preview(&url);
                this.ctx.emit(event).await;
            },
            move |message| async move {
                owner.finish_preview(&failed_url);
                owner
                    .ctx
                    .emit(Event::VideoPreviewFailed {
                        url: failed_url,
                        message: format!("internal error: {message}"),
                    })
                    .await;
            },
        );
    }

    async fn preview_inner(
        &self,
        seq: u64,
        url: &str,
        frame_count: u32,
        max_side_px: u32,
    ) -> Event {
        let Ok(_permit) = self.previews.acquire().await else {
            return Event::VideoPreviewSkipped {
                url: url.to_owned(),
            };
        };
        if self.preview_seq.load(Ordering::Relaxed).saturating_sub(seq) >= PREVIEW_STALE_AFTER {
            return Event::VideoPreviewSkipped {
                url: url.to_owned(),
            };
        }
        let path = match self.cached(url).await {
            Ok(path) => path,
            Err(failure) => {
                return Event::VideoPreviewFailed {
                    url: url.to_owned(),
                    message: failure.message,
                };
            }
        };
        let decoded =
            tokio::task::spawn_blocking(move || decode_preview(&path, frame_count, max_side_px))
                .await;
        match decoded {
            Ok(Ok(frames)) if !frames.is_empty() => Event::VideoPreviewLoaded {
                url: url.to_owned(),
                frames: Arc::new(frames),
            },
            Ok(Ok(_)) => Event::VideoPreviewFailed {
                url: url.to_owned(),
                message: "the video has no frames".to_owned(),
            },
            Ok(Err(e)) => Event::VideoPreviewFailed {
                url: url.to_owned(),
                message: Failure::decode(&e).message,
            },
            Err(e) => Event::VideoPreviewFailed {
                url: url.to_owned(),
                message: format!("decoder stopped: {e}"),
            },
        }
    }

    fn finish_preview(&self, url: &str) {
        if let Ok(mut in_flight) = self.previews_in_flight.lock() {
            in_flight.remove(url);
        }
    }

    /// `Command::LoadVideoStrip`: a `VideoStripThumbnail` per slot as it is decoded, then
    /// `VideoStripFinished` (not after `CancelVideoStrip`).
    /// The video is read from the download cache (fetched first when needed, as for the
    /// player, which has usually fetched it already).
    pub fn strip(&self, request_id: u64, url: String, slot_count: u32, height_px: u32) {
        let cancel = Arc::new(AtomicBool::new(false));
        if let Ok(mut strips) = self.strips.lock()
            && let Some(replaced) = strips.insert(request_id, Arc::clone(&cancel))
        {
            replaced.store(true, Ordering::Release);
        }
        let this = self.clone();
        let owner = self.clone();
        spawn_guarded(
            "making a video strip",
            async move {
                let path = match this.cached(&url).await {
                    Ok(path) => path,
                    Err(failure) => {
                        tracing::warn!("video strip {url}: {}", failure.details);
                        this.finish_strip(request_id, &cancel);
                        this.ctx
                            .emit(Event::VideoStripFinished {
                                request_id,
                                error: Some(failure.message),
                            })
                            .await;
                        return;
                    }
                };
                let ctx = Arc::clone(&this.ctx);
                let runtime = tokio::runtime::Handle::current();
                let flag = Arc::clone(&cancel);
                let forwarded = tokio::task::spawn_blocking(move || {
                    forward_strip(
                        &runtime,
                        &ctx,
                        request_id,
                        &path,
                        (slot_count, height_px),
                        &flag,
                    )
                })
                .await
                .unwrap_or_else(|e| Some(format!("The strip stopped: {e}")));
                this.finish_strip(request_id, &cancel);
                if !cancel.load(Ordering::Acquire) {
                    this.ctx
                        .emit(Event::VideoStripFinished {
                            request_id,
                            error: forwarded,
                        })
                        .await;
                }
            },
            move |message| async move {
                owner
                    .ctx
                    .emit(Event::VideoStripFinished {
                        request_id,
                        error: Some(format!("internal error: {message}")),
                    })
                    .await;
            },
        );
    }

    /// `Command::CancelVideoStrip`: the strip's workers stop at their next sample.
    pub fn cancel_strip(&self, request_id: u64) {
        if let Ok(mut strips) = self.strips.lock()
            && let Some(cancel) = strips.remove(&request_id)
        {
            cancel.store(true, Ordering::Release);
        }
    }

    fn finish_strip(&self, request_id: u64, cancel: &Arc<AtomicBool>) {
        if let Ok(mut strips) = self.strips.lock()
            && strips
                .get(&request_id)
                .is_some_and(|c| Arc::ptr_eq(c, cancel))
        {
            strips.remove(&request_id);
        }
    }

    /// The cached copy of `url` (downloaded once; later opens are instant).
    async fn cached(&self, url: &str) -> Result<PathBuf, Failure> {
        // A local file (`framewright --play FILE`) plays in place.
        if let Some(path) = super::audio::local_path(url) {
            return if path.is_file() {
                Ok(path)
            } else {
                Err(Failure {
                    message: "The video file is not there any more.".to_owned(),
                    details: format!("no such file: {}", path.display()),
                })
            };
        }
        let _one_at_a_time = self.downloads.lock().await;
        self.transfers
            .cached_output(url)
            .await
            .map_err(|details| Failure {
                message: "The video could not be downloaded.".to_owned(),
                details,
            })
    }
}

/// Runs a strip on a blocking-pool thread and sends each thumbnail to the UI as it comes
/// (waiting on the bounded event channel like every emit). Returns the reason, for a
/// person, if not every slot could be shown. Dropping the strip on return stops its workers.
fn forward_strip(
    runtime: &tokio::runtime::Handle,
    ctx: &Ctx,
    request_id: u64,
    path: &Path,
    (slot_count, height_px): (u32, u32),
    cancel: &AtomicBool,
) -> Option<String> {
    // Thumbnails reach the UI through `emit`, which repaints; the workers need not.
    let strip = match VideoStrip::start(path, slot_count, height_px, Arc::new(|| {})) {
        Ok(strip) => strip,
        Err(e) => {
            tracing::warn!("strip of {}: {e}", path.display());
            return Some(person_message(&e));
        }
    };
    let mut failure = None;
    while !cancel.load(Ordering::Acquire) {
        match strip.recv_timeout(STRIP_POLL) {
            Some(StripEvent::Thumbnail(thumbnail)) => {
                runtime.block_on(ctx.emit(Event::VideoStripThumbnail {
                    request_id,
                    thumbnail,
                }))
            }
            Some(StripEvent::SlotsFailed { slots, error }) => {
                tracing::warn!("strip of {}: slots {slots:?}: {error}", path.display());
                failure.get_or_insert_with(|| {
                    format!(
                        "Some thumbnails could not be made: {}",
                        person_message(&error)
                    )
                });
            }
            Some(StripEvent::Finished) => break,
            None => {}
        }
    }
    failure
}

/// What to tell the person, and the raw error for Details.
struct Failure {
    message: String,
    details: String,
}

impl Failure {
    fn decode(error: &VideoDecodeError) -> Self {
        Self {
            message: person_message(error),
            details: error.to_string(),
        }
    }
}

/// A sentence a person understands for why a video cannot be played.
pub fn person_message(error: &VideoDecodeError) -> String {
    match error {
        VideoDecodeError::UnsupportedCodec { codec } => format!(
            "This video uses a codec the studio cannot play ({}). It plays H.264 only.",
            codec_name(codec)
        ),
        VideoDecodeError::Io { .. } | VideoDecodeError::Read(_) => {
            "The downloaded video could not be read from the cache.".to_owned()
        }
        VideoDecodeError::Container(_) | VideoDecodeError::MissingParameterSets => {
            "This file is not an MP4 video the studio can read.".to_owned()
        }
        VideoDecodeError::NoVideoTrack | VideoDecodeError::NoFrames => {
            "This file has no pictures to play.".to_owned()
        }
        VideoDecodeError::TooLarge(_) => {
            "This video is larger than the studio's player accepts.".to_owned()
        }
        VideoDecodeError::DecoderInit(_) => "The video decoder could not start.".to_owned(),
        VideoDecodeError::H264Unavailable => {
            "This build of the studio has no H.264 player; open the video in the system player."
                .to_owned()
        }
        VideoDecodeError::Decode { .. }
        | VideoDecodeError::FrameOutOfRange { .. }
        | VideoDecodeError::InvalidSeekTime(_)
        | VideoDecodeError::Cancelled => "The video could not be decoded.".to_owned(),
    }
}

/// A codec's common name from its RFC 6381 string (`hvc1.1.6.L93.B0` → HEVC).
fn codec_name(codec: &str) -> String {
    let fourcc = codec.split('.').next().unwrap_or(codec);
    match fourcc {
        "hvc1" | "hev1" => "HEVC".to_owned(),
        "av01" => "AV1".to_owned(),
        "vp09" => "VP9".to_owned(),
        "vp08" => "VP8".to_owned(),
        "mp4v" => "MPEG-4 Part 2".to_owned(),
        "apcn" | "apch" | "apcs" | "apco" | "ap4h" => "ProRes".to_owned(),
        "" => "unknown".to_owned(),
        other => other.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codecs_are_named_as_people_know_them() {
        let message = person_message(&VideoDecodeError::UnsupportedCodec {
            codec: "hvc1.1.6.L93.B0".to_owned(),
        });
        assert_eq!(
            message,
            "This video uses a codec the studio cannot play (HEVC). It plays H.264 only."
        );
        assert_eq!(codec_name("mp4v.20.9"), "MPEG-4 Part 2");
        assert_eq!(codec_name("xyz1"), "xyz1");
    }
}
