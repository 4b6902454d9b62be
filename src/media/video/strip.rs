//! The trim timeline's thumbnail strip: `slot_count` small RGBA pictures evenly spaced over
//! a video, handed out one by one as they are ready so the first shows at once.
//!
//! A strip is not frame-accurate, on purpose: each slot shows the sync sample (keyframe)
//! nearest its centre time, so a thumbnail costs one keyframe decode instead of a decode
//! from the keyframe up to the exact frame (up to a whole GOP: 24–250 frames). Slots that
//! share a keyframe share one decode and one buffer. The playhead and the player stay
//! frame-accurate; the strip only helps the eye find places.
//!
//! Work is split over [`STRIP_WORKERS`] named threads (`strip-worker-N`), each with its own
//! decoder, taking keyframes in slot order from one shared counter, so slot 0 is decoded
//! first and a slow keyframe on one thread never holds the other back. Dropping the
//! [`VideoStrip`] stops them (checked between samples) and joins them.

use super::decode::VideoDecoder;
use super::demux::H264Track;
use crate::video_codec::{DecodedFrame, VideoDecodeError};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// Threads decoding one strip (the target machine has two cores; more would only queue).
pub const STRIP_WORKERS: usize = 2;
/// Most slots a strip may have (a timeline is at most a few thousand points wide).
pub const MAX_STRIP_SLOTS: u32 = 64;
/// Thumbnail heights accepted; asked-for heights are clamped into this range.
pub const MIN_STRIP_HEIGHT_PX: u32 = 16;
pub const MAX_STRIP_HEIGHT_PX: u32 = 256;
/// Source pixels averaged per thumbnail pixel along each axis (at most): a box filter over a
/// sparse grid. Reading every source pixel of a 1080p frame for a 96-px thumbnail would cost
/// more than the keyframe decode's colour conversion; 4x4 samples already hide the aliasing.
const SAMPLES_PER_AXIS: u32 = 4;

/// Called after each event is queued, from a worker thread (e.g. a UI repaint).
pub type StripNotify = Arc<dyn Fn() + Send + Sync>;

/// One slot's thumbnail.
#[derive(Clone, PartialEq)]
pub struct StripThumbnail {
    /// Slot position, 0-based, left to right.
    pub index: u32,
    /// How many slots the strip has.
    pub total: u32,
    pub width: u32,
    pub height: u32,
    /// RGBA8, unpremultiplied, `width * height * 4` bytes; shared by slots that show the
    /// same keyframe.
    pub rgba: Arc<Vec<u8>>,
    /// The keyframe shown (display order) and its presentation time.
    pub frame_index: u32,
    pub frame_secs: f64,
}

impl std::fmt::Debug for StripThumbnail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "StripThumbnail({}/{}: frame {} at {:.3} s, {}x{})",
            self.index, self.total, self.frame_index, self.frame_secs, self.width, self.height
        )
    }
}

/// What a strip's workers report.
#[derive(Debug)]
pub enum StripEvent {
    Thumbnail(StripThumbnail),
    /// These slots' keyframe could not be decoded; the other slots go on.
    SlotsFailed {
        slots: Vec<u32>,
        error: VideoDecodeError,
    },
    /// Every slot has been reported (sent once, last).
    Finished,
}

/// One keyframe to decode and the slots that show it.
#[derive(Clone, Debug, PartialEq)]
pub struct StripJob {
    /// Display index of the keyframe.
    pub frame_index: u32,
    /// Slots showing it, ascending.
    pub slots: Vec<u32>,
}

/// Centre times of `slot_count` equal spans of `duration_secs`.
pub fn slot_centres_secs(duration_secs: f64, slot_count: u32) -> Vec<f64> {
    if slot_count == 0 || !duration_secs.is_finite() || duration_secs <= 0.0 {
        return Vec::new();
    }
    (0..slot_count)
        .map(|i| (f64::from(i) + 0.5) * duration_secs / f64::from(slot_count))
        .collect()
}

/// The keyframes a strip of `slot_count` slots decodes, in the order of the first slot each
/// serves: for every slot, the sync sample whose presentation time is nearest the slot's
/// centre (the earlier on a tie).
pub fn plan_strip(track: &H264Track, slot_count: u32) -> Vec<StripJob> {
    let slot_count = slot_count.min(MAX_STRIP_SLOTS);
    // (display index, pts) of every keyframe, in presentation order.
    let mut keyframes: Vec<(u32, f64)> = track
        .sync_samples()
        .iter()
        .filter_map(|&sample| track.display_index(sample))
        .map(|display| (display, track.pts_secs(display)))
        .collect();
    keyframes.sort_by(|a, b| a.1.total_cmp(&b.1));
    if keyframes.is_empty() {
        // No sync table entries at all: the first frame is the only safe start.
        keyframes.push((0, 0.0));
    }
    let mut jobs: Vec<StripJob> = Vec::new();
    for (slot, centre_secs) in slot_centres_secs(track.duration_secs(), slot_count)
        .into_iter()
        .enumerate()
    {
        let after = keyframes.partition_point(|&(_, pts)| pts <= centre_secs);
        let nearest = match (after.checked_sub(1), keyframes.get(after)) {
            (Some(before), Some(&(next, next_pts)))
                if next_pts - centre_secs < centre_secs - keyframes[before].1 =>
            {
                next
            }
            (Some(before), _) => keyframes[before].0,
            (None, Some(&(next, _))) => next,
            (None, None) => 0,
        };
        match jobs.iter_mut().find(|job| job.frame_index == nearest) {
            Some(job) => job.slots.push(slot as u32),
            None => jobs.push(StripJob {
                frame_index: nearest,
                slots: vec![slot as u32],
            }),
        }
    }
    jobs
}

/// The thumbnail size for a `width × height` source at `height_px` (never upscaled).
pub fn thumbnail_size(width: u32, height: u32, height_px: u32) -> (u32, u32) {
    let height_px = height_px
        .clamp(MIN_STRIP_HEIGHT_PX, MAX_STRIP_HEIGHT_PX)
        .min(height.max(1));
    let scale = f64::from(height_px) / f64::from(height.max(1));
    let width_px = ((f64::from(width) * scale).round() as u32).max(1);
    (width_px, height_px)
}

/// Downscales RGBA8 `frame` to `out_width × out_height` by averaging up to 4x4 evenly
/// spread source pixels inside each output pixel's footprint.
pub fn downscale_rgba(
    rgba: &[u8],
    width: u32,
    height: u32,
    out_width: u32,
    out_height: u32,
) -> Option<Vec<u8>> {
    let (w, h) = (width as usize, height as usize);
    if w == 0 || h == 0 || rgba.len() < w * h * 4 || out_width == 0 || out_height == 0 {
        return None;
    }
    let (ow, oh) = (out_width as usize, out_height as usize);
    let samples_x = (w / ow).clamp(1, SAMPLES_PER_AXIS as usize);
    let samples_y = (h / oh).clamp(1, SAMPLES_PER_AXIS as usize);
    // Source columns/rows sampled for each output column/row, computed once.
    let columns: Vec<usize> = (0..ow * samples_x)
        .map(|i| ((2 * i + 1) * w / (2 * ow * samples_x)).min(w - 1))
        .collect();
    let rows: Vec<usize> = (0..oh * samples_y)
        .map(|i| ((2 * i + 1) * h / (2 * oh * samples_y)).min(h - 1))
        .collect();
    let count = (samples_x * samples_y) as u32;
    let mut out = Vec::with_capacity(ow * oh * 4);
    for oy in 0..oh {
        for ox in 0..ow {
            let mut sum = [0u32; 4];
            for &y in &rows[oy * samples_y..(oy + 1) * samples_y] {
                let row = y * w;
                for &x in &columns[ox * samples_x..(ox + 1) * samples_x] {
                    let at = (row + x) * 4;
                    for (channel, total) in sum.iter_mut().enumerate() {
                        *total += u32::from(rgba[at + channel]);
                    }
                }
            }
            out.extend(sum.map(|total| ((total + count / 2) / count) as u8));
        }
    }
    Some(out)
}

/// A strip being decoded. Dropping it stops the workers and joins them.
pub struct VideoStrip {
    events: Option<Receiver<StripEvent>>,
    cancel: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    slot_count: u32,
    thumbnail_size: (u32, u32),
}

impl std::fmt::Debug for VideoStrip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VideoStrip")
            .field("slot_count", &self.slot_count)
            .field("thumbnail_size", &self.thumbnail_size)
            .finish_non_exhaustive()
    }
}

impl VideoStrip {
    /// Opens the MP4 at `path` (its errors come back here) and starts decoding a strip of
    /// `slot_count` thumbnails `height_px` high (both clamped to the limits above).
    /// `notify` runs after each event is queued.
    pub fn start(
        path: impl AsRef<Path>,
        slot_count: u32,
        height_px: u32,
        notify: StripNotify,
    ) -> Result<Self, VideoDecodeError> {
        let path = path.as_ref().to_path_buf();
        let decoder = VideoDecoder::open(&path)?;
        let slot_count = slot_count.clamp(1, MAX_STRIP_SLOTS);
        let info = decoder.info();
        let size = thumbnail_size(info.width, info.height, height_px);
        let jobs = plan_strip(decoder.track(), slot_count);
        // Every slot is reported at most once, plus `Finished`: the workers never block on
        // a full channel, so cancelling is never stuck behind an unread event.
        let (tx, rx) = mpsc::sync_channel(slot_count as usize + 1);
        let shared = Arc::new(Shared {
            path,
            jobs,
            next_job: AtomicUsize::new(0),
            workers_left: AtomicUsize::new(0),
            cancel: Arc::new(AtomicBool::new(false)),
            events: Mutex::new(Some(tx)),
            notify,
            slot_count,
            size,
        });
        let worker_count = STRIP_WORKERS.clamp(1, shared.jobs.len().max(1));
        shared.workers_left.store(worker_count, Ordering::Release);
        let mut threads = Vec::with_capacity(worker_count);
        // The decoder opened above goes to worker 0 (no second parse of the file before the
        // first thumbnail); the others open their own on their thread.
        let mut first_decoder = Some(decoder);
        for n in 0..worker_count {
            let shared_for_worker = Arc::clone(&shared);
            let decoder = first_decoder.take();
            let spawned = std::thread::Builder::new()
                .name(format!("strip-worker-{n}"))
                .spawn(move || run_worker(&shared_for_worker, decoder));
            match spawned {
                Ok(handle) => threads.push(handle),
                Err(e) => {
                    tracing::warn!("could not start strip worker {n}: {e}");
                    shared.worker_done();
                }
            }
        }
        if threads.is_empty() {
            return Err(VideoDecodeError::DecoderInit(
                "no strip worker thread could be started".to_owned(),
            ));
        }
        Ok(Self {
            events: Some(rx),
            cancel: Arc::clone(&shared.cancel),
            threads,
            slot_count,
            thumbnail_size: size,
        })
    }

    /// Slots the strip has (after clamping).
    pub fn slot_count(&self) -> u32 {
        self.slot_count
    }

    /// Width and height of every thumbnail.
    pub fn thumbnail_size(&self) -> (u32, u32) {
        self.thumbnail_size
    }

    /// The next event if one is waiting.
    pub fn try_recv(&self) -> Option<StripEvent> {
        self.events.as_ref()?.try_recv().ok()
    }

    /// Waits up to `timeout` for the next event; `None` on timeout or after `Finished`.
    pub fn recv_timeout(&self, timeout: Duration) -> Option<StripEvent> {
        // A timeout and a finished strip (every worker gone) both mean "nothing now".
        self.events.as_ref()?.recv_timeout(timeout).ok()
    }
}

impl Drop for VideoStrip {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Release);
        self.events.take();
        for thread in self.threads.drain(..) {
            if thread.join().is_err() {
                tracing::error!("strip worker panicked");
            }
        }
    }
}

/// What the workers of one strip share.
struct Shared {
    path: PathBuf,
    jobs: Vec<StripJob>,
    /// The next job to take (slot order).
    next_job: AtomicUsize,
    /// Workers still running; the last one out sends `Finished`.
    workers_left: AtomicUsize,
    cancel: Arc<AtomicBool>,
    /// Taken (dropped) when a send finds the receiver gone.
    events: Mutex<Option<SyncSender<StripEvent>>>,
    notify: StripNotify,
    slot_count: u32,
    size: (u32, u32),
}

impl Shared {
    fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Acquire)
    }

    /// Queues an event and notifies; a gone receiver cancels the strip.
    fn send(&self, event: StripEvent) {
        let sent = {
            let events = self.events.lock().unwrap_or_else(PoisonError::into_inner);
            events.as_ref().is_some_and(|tx| tx.try_send(event).is_ok())
        };
        if sent {
            (self.notify)();
        } else {
            self.cancel.store(true, Ordering::Release);
        }
    }

    fn worker_done(&self) {
        if self.workers_left.fetch_sub(1, Ordering::AcqRel) == 1 && !self.cancelled() {
            self.send(StripEvent::Finished);
        }
    }
}

fn run_worker(shared: &Shared, decoder: Option<VideoDecoder>) {
    let decoder = match decoder {
        Some(decoder) => Some(decoder),
        None => match VideoDecoder::open(&shared.path) {
            Ok(decoder) => Some(decoder),
            Err(e) => {
                // The other worker takes every job; only a slower strip results.
                tracing::warn!("strip worker could not open the video: {e}");
                None
            }
        },
    };
    if let Some(mut decoder) = decoder {
        while !shared.cancelled() {
            let next = shared.next_job.fetch_add(1, Ordering::AcqRel);
            let Some(job) = shared.jobs.get(next) else {
                break;
            };
            match decode_keyframe(&mut decoder, job.frame_index, &shared.cancel) {
                Ok(frame) => deliver(shared, &mut decoder, job, frame),
                Err(VideoDecodeError::Cancelled) => break,
                Err(error) => shared.send(StripEvent::SlotsFailed {
                    slots: job.slots.clone(),
                    error,
                }),
            }
        }
    }
    shared.worker_done();
}

/// Decodes frame `frame_index` (a keyframe: one sample's work, plus whatever the decoder
/// must see before it releases the picture).
fn decode_keyframe(
    decoder: &mut VideoDecoder,
    frame_index: u32,
    cancel: &AtomicBool,
) -> Result<DecodedFrame, VideoDecodeError> {
    decoder.seek_to_frame(frame_index)?;
    let frame = decoder
        .next_frame_cancellable(&mut || cancel.load(Ordering::Acquire))?
        .ok_or(VideoDecodeError::FrameOutOfRange {
            index: frame_index,
            frame_count: decoder.info().frame_count,
        })?;
    Ok(frame)
}

fn deliver(shared: &Shared, decoder: &mut VideoDecoder, job: &StripJob, frame: DecodedFrame) {
    let (width, height) = shared.size;
    let Some(rgba) = downscale_rgba(&frame.rgba, frame.width, frame.height, width, height) else {
        shared.send(StripEvent::SlotsFailed {
            slots: job.slots.clone(),
            error: VideoDecodeError::Container(format!(
                "decoded frame {} has an unusable size {}x{}",
                frame.index, frame.width, frame.height
            )),
        });
        return;
    };
    let rgba = Arc::new(rgba);
    for &slot in &job.slots {
        if shared.cancelled() {
            break;
        }
        shared.send(StripEvent::Thumbnail(StripThumbnail {
            index: slot,
            total: shared.slot_count,
            width,
            height,
            rgba: Arc::clone(&rgba),
            frame_index: frame.index,
            frame_secs: frame.pts_secs,
        }));
    }
    decoder.recycle(frame);
}

#[cfg(all(test, feature = "h264"))]
mod tests {
    use super::super::test_fixtures::{BASELINE, BFRAMES, OPEN_GOP, frame_code};
    use super::*;
    use crate::video_codec::demux::Mp4Demuxer;
    use std::sync::atomic::AtomicUsize;
    use std::time::Instant;

    const WAIT: Duration = Duration::from_secs(10);

    fn fixture_file(dir: &tempfile::TempDir, bytes: &[u8]) -> PathBuf {
        let path = dir.path().join("clip.mp4");
        std::fs::write(&path, bytes).expect("fixture written");
        path
    }

    /// Every event until `Finished`, failing after `WAIT`.
    fn collect(strip: &VideoStrip) -> Vec<StripEvent> {
        let deadline = Instant::now() + WAIT;
        let mut events = Vec::new();
        loop {
            assert!(Instant::now() < deadline, "strip finished: {events:?}");
            if let Some(event) = strip.recv_timeout(Duration::from_millis(50)) {
                let finished = matches!(event, StripEvent::Finished);
                events.push(event);
                if finished {
                    return events;
                }
            }
        }
    }

    fn thumbnails(events: Vec<StripEvent>) -> Vec<StripThumbnail> {
        events
            .into_iter()
            .filter_map(|event| match event {
                StripEvent::Thumbnail(thumbnail) => Some(thumbnail),
                StripEvent::SlotsFailed { slots, error } => {
                    panic!("slots {slots:?} failed: {error}")
                }
                StripEvent::Finished => None,
            })
            .collect()
    }

    /// The frame number a thumbnail shows, read back at full size (the fixtures draw it).
    fn code_of(thumbnail: &StripThumbnail) -> u32 {
        frame_code(&DecodedFrame {
            index: 0,
            pts_secs: 0.0,
            duration_secs: 0.0,
            width: thumbnail.width,
            height: thumbnail.height,
            rgba: thumbnail.rgba.to_vec(),
        })
    }

    #[test]
    fn slots_take_the_keyframe_nearest_their_centre() {
        // 48 frames at 24 fps, keyframes at 0, 12, 24, 36 (0, 0.5, 1.0, 1.5 s).
        let demuxer = Mp4Demuxer::from_bytes(BASELINE.to_vec()).expect("opens");
        let jobs = plan_strip(demuxer.track(), 8);
        // Centres 0.125, 0.375, … 1.875 s → 0, 12, 12, 24, 24, 36, 36, 36.
        assert_eq!(
            jobs,
            [
                StripJob {
                    frame_index: 0,
                    slots: vec![0]
                },
                StripJob {
                    frame_index: 12,
                    slots: vec![1, 2]
                },
                StripJob {
                    frame_index: 24,
                    slots: vec![3, 4]
                },
                StripJob {
                    frame_index: 36,
                    slots: vec![5, 6, 7]
                },
            ]
        );
        // Ties (0.25 s is as far from 0 as from 0.5; 0.75 s from 0.5 and 1.0) take the
        // earlier keyframe.
        let four: Vec<u32> = plan_strip(demuxer.track(), 4)
            .iter()
            .map(|job| job.frame_index)
            .collect();
        assert_eq!(four, [0, 12, 24, 36]);
        assert!(plan_strip(demuxer.track(), 0).is_empty());
        assert_eq!(slot_centres_secs(2.0, 4), [0.25, 0.75, 1.25, 1.75]);
    }

    #[test]
    fn a_strip_delivers_every_slot_once_with_the_planned_keyframe() {
        let dir = tempfile::tempdir().expect("tempdir");
        let notified = Arc::new(AtomicUsize::new(0));
        for bytes in [BASELINE, BFRAMES, OPEN_GOP] {
            let path = fixture_file(&dir, bytes);
            let counter = Arc::clone(&notified);
            let strip = VideoStrip::start(
                &path,
                8,
                90,
                Arc::new(move || {
                    counter.fetch_add(1, Ordering::Relaxed);
                }),
            )
            .expect("starts");
            assert_eq!(strip.slot_count(), 8);
            let mut got = thumbnails(collect(&strip));
            assert_eq!(got.len(), 8, "{got:?}");
            got.sort_by_key(|t| t.index);
            let demuxer = Mp4Demuxer::from_bytes(bytes.to_vec()).expect("opens");
            let planned: Vec<u32> = {
                let mut by_slot = vec![u32::MAX; 8];
                for job in plan_strip(demuxer.track(), 8) {
                    for slot in job.slots {
                        by_slot[slot as usize] = job.frame_index;
                    }
                }
                by_slot
            };
            for (slot, thumbnail) in got.iter().enumerate() {
                assert_eq!(thumbnail.index, slot as u32);
                assert_eq!(thumbnail.total, 8);
                // Full height (90 px of 90) keeps the drawn frame number readable.
                assert_eq!((thumbnail.width, thumbnail.height), (160, 90));
                assert_eq!(thumbnail.frame_index, planned[slot]);
                assert_eq!(code_of(thumbnail), planned[slot], "slot {slot}'s picture");
                assert!((thumbnail.frame_secs - f64::from(planned[slot]) / 24.0).abs() < 1e-9);
            }
            // Slots sharing a keyframe share its buffer (decoded once).
            assert!(Arc::ptr_eq(&got[1].rgba, &got[2].rgba));
        }
        assert!(
            notified.load(Ordering::Relaxed) >= 3 * 9,
            "notified per event"
        );
    }

    #[test]
    fn thumbnails_are_downscaled_to_the_asked_height() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = fixture_file(&dir, BASELINE);
        let strip = VideoStrip::start(&path, 3, 45, Arc::new(|| {})).expect("starts");
        assert_eq!(strip.thumbnail_size(), (80, 45));
        for thumbnail in thumbnails(collect(&strip)) {
            assert_eq!(thumbnail.rgba.len(), 80 * 45 * 4);
        }
        // Never upscaled, and clamped to the limits.
        assert_eq!(thumbnail_size(160, 90, 500), (160, 90));
        assert_eq!(thumbnail_size(1920, 1080, 54), (96, 54));
        assert_eq!(thumbnail_size(1920, 1080, 1), (28, 16));
    }

    #[test]
    fn downscaling_averages_blocks() {
        // 4x2 source: left half black, right half white → 2x1 is one black, one white.
        let mut rgba = Vec::new();
        for _row in 0..2 {
            for x in 0..4 {
                let v = if x < 2 { 0 } else { 255 };
                rgba.extend([v, v, v, 255]);
            }
        }
        assert_eq!(
            downscale_rgba(&rgba, 4, 2, 2, 1).expect("scaled"),
            [0, 0, 0, 255, 255, 255, 255, 255]
        );
        let grey = downscale_rgba(&rgba, 4, 2, 1, 1).expect("scaled");
        assert_eq!(grey, [128, 128, 128, 255]);
        assert!(
            downscale_rgba(&rgba[..8], 4, 2, 1, 1).is_none(),
            "short buffer"
        );
        assert!(downscale_rgba(&rgba, 0, 2, 1, 1).is_none());
    }

    #[test]
    fn dropping_the_strip_stops_the_workers_early() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = fixture_file(&dir, BFRAMES);
        // Hold the workers in the notify callback after their first event, so the drop
        // lands while most of the strip is still to do.
        let sent = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&sent);
        let strip = VideoStrip::start(
            &path,
            MAX_STRIP_SLOTS,
            45,
            Arc::new(move || {
                counter.fetch_add(1, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(20));
            }),
        )
        .expect("starts");
        assert!(
            strip.recv_timeout(WAIT).is_some(),
            "the first thumbnail arrives"
        );
        let started = Instant::now();
        drop(strip);
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "drop joins fast"
        );
        let at_drop = sent.load(Ordering::Relaxed);
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(sent.load(Ordering::Relaxed), at_drop, "nothing after drop");
        assert!(
            at_drop < MAX_STRIP_SLOTS as usize,
            "stopped early: {at_drop}"
        );
    }

    #[test]
    fn a_corrupt_or_missing_file_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().expect("tempdir");
        let garbage = fixture_file(&dir, &BASELINE[..200]);
        assert!(VideoStrip::start(&garbage, 20, 48, Arc::new(|| {})).is_err());
        let missing = dir.path().join("nope.mp4");
        assert!(matches!(
            VideoStrip::start(&missing, 20, 48, Arc::new(|| {})),
            Err(VideoDecodeError::Io { .. })
        ));
        // Damaged sample data: the strip still finishes, bad slots reported, no panic.
        let mut bytes = BASELINE.to_vec();
        let demuxer = Mp4Demuxer::from_bytes(bytes.clone()).expect("opens");
        for &sync in demuxer.track().sync_samples() {
            let sample = &demuxer.track().samples()[sync as usize];
            let at = sample.offset as usize;
            bytes[at..at + 4].copy_from_slice(&[0x7f, 0xff, 0xff, 0xff]);
        }
        let damaged = fixture_file(&dir, &bytes);
        let strip = VideoStrip::start(&damaged, 8, 48, Arc::new(|| {})).expect("opens");
        let events = collect(&strip);
        assert!(
            events
                .iter()
                .any(|e| matches!(e, StripEvent::SlotsFailed { .. })),
            "{events:?}"
        );
    }
}
