//! Playback worker: a "video-player" thread owns a [`VideoDecoder`], takes commands through
//! a bounded channel and sends frames, paced by a clock, through another bounded one.
//!
//! The clock: with a sound track attached ([`VideoPlayer::attach_sound`]) the sound's
//! [`Playback::position_secs`] is the master while it plays; frames are paced on the wall
//! clock between its readings, re-anchored to it whenever the two differ by more than
//! [`SYNC_TOLERANCE_SECS`] (modulo the loop's length, so a wrap heard a moment before or
//! after the picture's is not a jump). Without a track, without a device (the output then
//! advances the playback on the wall clock itself), after the sound has ended (a track
//! shorter than the picture) and while scrubbing, the wall clock alone. Play, pause, seek,
//! step and the loops are applied to the sound too; another sound taking the studio's one
//! output (state `PausedByOther`) pauses the video as well. Scrubbing is silent.
//!
//! Memory stays bounded: at most [`FRAME_QUEUE`] frames wait in the channel plus one decoded
//! ahead. While playing, a frame whose successor is already due is dropped rather than
//! shown late, so playback keeps to the clock instead of drifting; seek and step results are
//! never dropped (they wait for room in the channel). The UI drains frames (usually keeping
//! only the newest, see [`VideoPlayer::latest_frame`]) when the repaint callback wakes it.

use super::decode::{DecodedFrame, VideoDecoder, VideoInfo};
use crate::audio::mp4::Mp4AudioSource;
use crate::audio::{AudioError, AudioOutput, Playback, PlaybackState, SampleSource};
use crate::video_codec::VideoDecodeError;
use std::collections::VecDeque;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Frames decoded but not yet taken by the UI (the channel's capacity).
pub const FRAME_QUEUE: usize = 2;
/// Commands not yet read by the worker; sends beyond this are refused, never blocked on.
const COMMAND_QUEUE: usize = 64;
/// Retry interval while a seek/step result waits for room in the frame channel.
const DELIVERY_RETRY: Duration = Duration::from_millis(10);
/// Paused this long with nothing asked, the player frees its decoder (~28 MB at 1080p) and
/// the frame decoded ahead; stepping and scrubbing within it stay instant.
const PARK_AFTER_IDLE: Duration = Duration::from_secs(2);
/// However late playback runs, a frame is shown at least this often.
const MAX_SHOW_GAP: Duration = Duration::from_millis(200);
/// Playback pauses after this many samples in a row fail to decode.
const MAX_CONSECUTIVE_ERRORS: u32 = 48;
/// The picture's clock is moved to the sound's when they differ by more than this.
pub const SYNC_TOLERANCE_SECS: f64 = 0.015;
/// While a sound plays, the worker reads its clock at least this often.
const SOUND_POLL: Duration = Duration::from_millis(15);
/// A frame this late means the decoder fell behind the clock (a slow machine, a big
/// video): it skips ahead rather than show the picture later and later after the sound.
const CATCH_UP_SECS: f64 = 0.25;
/// How far past the clock a catch-up aims (the decode to get there takes time).
const CATCH_UP_LEAD_SECS: f64 = 0.1;

/// Where [`VideoPlayer::attach_sound`] leaves the output and the track for the worker.
type SoundSlot = Arc<Mutex<Option<(AudioOutput, Box<dyn SampleSource>)>>>;

/// Called after each frame is sent, from the worker thread (e.g. `ctx.request_repaint()`).
pub type RepaintCallback = Arc<dyn Fn() + Send + Sync>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayerCommand {
    Play,
    Pause,
    TogglePlay,
    /// Shows this frame (display order, clamped to the last); playback state is kept.
    SeekFrame(u32),
    /// Pauses and moves by this many frames (clamped to the video).
    Step(i32),
    SetLoop(bool),
    /// Plays only frames `first..=last` (display order) over and over, whatever `SetLoop`
    /// says (the trim timeline's "play the selection"); `None` plays the whole video again.
    SetLoopRange(Option<(u32, u32)>),
    /// A sound was handed over with [`VideoPlayer::attach_sound`].
    SoundAttached,
    /// The scrub bar is being dragged (`true`) or was let go: silent while scrubbing.
    Scrub(bool),
    /// Play this many times faster than real time (1, 2 or 4; L while playing). The sound is
    /// silent above 1×. Pause and Play go back to 1×.
    SetSpeed(u32),
    /// Ends the worker (also done on drop).
    Stop,
}

/// The video's sound track, as found when the file was opened.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum SoundTrack {
    /// The file has no sound track.
    #[default]
    None,
    /// A track the studio cannot decode; the words say which.
    Unsupported(String),
    /// A track that plays ("AAC", "Opus", "MP3").
    Ready { codec: &'static str },
}

/// The worker's state as of its last change.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlayerStatus {
    pub playing: bool,
    pub looping: bool,
    /// Frames `first..=last` playback is held to (see [`PlayerCommand::SetLoopRange`]).
    pub loop_range: Option<(u32, u32)>,
    /// The frame last sent (display order); 0 before the first.
    pub frame_index: u32,
    /// Its presentation time.
    pub time_secs: f64,
    pub frame_count: u32,
    /// Playback reached the last frame without looping.
    pub ended: bool,
    /// Frames skipped to keep to the clock, or because the UI had not taken earlier ones.
    pub dropped_frames: u64,
    /// The latest decode error, cleared by the next good frame.
    pub error: Option<String>,
    /// A sound track is attached and follows the picture.
    pub has_sound: bool,
    /// The scrub bar is held: the sound is silent.
    pub scrubbing: bool,
    /// Times real time while playing (1, 2 or 4; 0 is read as 1). Silent above 1.
    pub speed: u32,
    /// The sound's clock when this status was sent, while the sound plays (for measuring
    /// how far picture and sound are apart).
    pub sound_secs: Option<f64>,
    /// Paused and idle, the decoder is freed ([`PARK_AFTER_IDLE`]); the next frame costs
    /// one seek.
    pub decoder_parked: bool,
}

/// A frame for the UI and the state it belongs to.
#[derive(Debug)]
pub struct PlayerFrame {
    pub frame: DecodedFrame,
    pub status: PlayerStatus,
}

/// Handle to the playback thread; dropping it stops and joins the thread.
pub struct VideoPlayer {
    info: VideoInfo,
    sound_track: SoundTrack,
    /// The decoded track until [`Self::attach_sound`] hands it to the worker.
    sound_source: Mutex<Option<Box<dyn SampleSource>>>,
    /// Where `attach_sound` leaves the output and source for the worker.
    sound_slot: SoundSlot,
    commands: Option<SyncSender<PlayerCommand>>,
    /// Behind a mutex so the handle is `Sync` (the engine hands it to the UI in an `Arc`);
    /// only the UI thread takes frames, so the lock is never contended.
    frames: Option<Mutex<Receiver<PlayerFrame>>>,
    status: Arc<Mutex<PlayerStatus>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for VideoPlayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VideoPlayer")
            .field("info", &self.info)
            .field("status", &self.status())
            .finish_non_exhaustive()
    }
}

impl VideoPlayer {
    /// Opens `path` and starts a paused player showing the first frame. Its sound track, if
    /// any, is opened too and waits for [`Self::attach_sound`].
    pub fn open(
        path: impl AsRef<Path>,
        repaint: RepaintCallback,
    ) -> Result<Self, VideoDecodeError> {
        let path = path.as_ref();
        let decoder = VideoDecoder::open(path)?;
        let sound = Mp4AudioSource::open(path);
        Ok(Self::spawn_with_sound(decoder, sound, repaint)?)
    }

    /// Starts a paused player on `decoder`, without sound; its first frame is sent right away.
    pub fn spawn(decoder: VideoDecoder, repaint: RepaintCallback) -> std::io::Result<Self> {
        Self::spawn_with_sound(decoder, Err(AudioError::NoTrack), repaint)
    }

    /// Like [`Self::spawn`], with the video's sound track as opened (or why it did not).
    pub fn spawn_with_sound(
        decoder: VideoDecoder,
        sound: Result<Mp4AudioSource, AudioError>,
        repaint: RepaintCallback,
    ) -> std::io::Result<Self> {
        let (sound_track, sound_source) = match sound {
            Ok(source) => {
                let codec = source.codec_name();
                let source: Box<dyn SampleSource> = Box::new(source);
                (SoundTrack::Ready { codec }, Some(source))
            }
            Err(AudioError::NoTrack) => (SoundTrack::None, None),
            Err(e) => {
                tracing::warn!("video sound track: {e}");
                (SoundTrack::Unsupported(sound_words(&e)), None)
            }
        };
        let sound_slot = Arc::new(Mutex::new(None));
        let info = decoder.info().clone();
        let (command_tx, command_rx) = mpsc::sync_channel(COMMAND_QUEUE);
        let (frame_tx, frame_rx) = mpsc::sync_channel(FRAME_QUEUE);
        let status = Arc::new(Mutex::new(PlayerStatus {
            frame_count: info.frame_count,
            speed: 1,
            ..PlayerStatus::default()
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let worker = Worker {
            status: PlayerStatus {
                frame_count: info.frame_count,
                speed: 1,
                ..PlayerStatus::default()
            },
            decoder,
            commands: command_rx,
            frames: frame_tx,
            shared_status: Arc::clone(&status),
            stop: Arc::clone(&stop),
            repaint,
            ahead: None,
            undelivered: None,
            clock: None,
            last_sent_at: Instant::now(),
            consecutive_errors: 0,
            played_since_wrap: false,
            deferred: VecDeque::new(),
            sound_slot: Arc::clone(&sound_slot),
            sound: None,
            caught_up: false,
        };
        let thread = std::thread::Builder::new()
            .name("video-player".to_owned())
            .spawn(move || worker.run())?;
        Ok(Self {
            info,
            sound_track,
            sound_source: Mutex::new(sound_source),
            sound_slot,
            commands: Some(command_tx),
            frames: Some(Mutex::new(frame_rx)),
            status,
            stop,
            thread: Some(thread),
        })
    }

    pub fn info(&self) -> &VideoInfo {
        &self.info
    }

    /// The video's sound track (whether or not it was attached yet).
    pub fn sound_track(&self) -> &SoundTrack {
        &self.sound_track
    }

    /// Plays the video's sound through `output` from now on, in step with the picture; the
    /// sound takes the studio's one output at the first Play. `false` when there is no
    /// track or it was attached already.
    pub fn attach_sound(&self, output: &AudioOutput) -> bool {
        let Some(source) = self
            .sound_source
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        else {
            return false;
        };
        *self
            .sound_slot
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some((output.clone(), source));
        self.send(PlayerCommand::SoundAttached)
    }

    /// Silences the sound while the scrub bar is held (`true`), back on release.
    pub fn set_scrubbing(&self, scrubbing: bool) -> bool {
        self.send(PlayerCommand::Scrub(scrubbing))
    }

    /// Plays `speed` times faster than real time (clamped to 1..=4), silently above 1×.
    pub fn set_speed(&self, speed: u32) -> bool {
        self.send(PlayerCommand::SetSpeed(speed))
    }

    /// Queues a command without blocking; `false` if the queue is full or the worker ended.
    pub fn send(&self, command: PlayerCommand) -> bool {
        self.commands
            .as_ref()
            .is_some_and(|tx| tx.try_send(command).is_ok())
    }

    pub fn play(&self) -> bool {
        self.send(PlayerCommand::Play)
    }

    pub fn pause(&self) -> bool {
        self.send(PlayerCommand::Pause)
    }

    pub fn toggle_play(&self) -> bool {
        self.send(PlayerCommand::TogglePlay)
    }

    pub fn seek_frame(&self, index: u32) -> bool {
        self.send(PlayerCommand::SeekFrame(index))
    }

    pub fn step(&self, frames: i32) -> bool {
        self.send(PlayerCommand::Step(frames))
    }

    pub fn set_loop(&self, looping: bool) -> bool {
        self.send(PlayerCommand::SetLoop(looping))
    }

    /// Loops frames `first..=last` while playing (`None`: the whole video again).
    pub fn set_loop_range(&self, range: Option<(u32, u32)>) -> bool {
        self.send(PlayerCommand::SetLoopRange(range))
    }

    /// The oldest frame not yet taken, if any.
    pub fn try_recv_frame(&self) -> Option<PlayerFrame> {
        self.frames_lock()?.try_recv().ok()
    }

    /// Takes every waiting frame and returns the newest (what a UI shows this repaint).
    pub fn latest_frame(&self) -> Option<PlayerFrame> {
        let frames = self.frames_lock()?;
        let mut latest = None;
        while let Ok(frame) = frames.try_recv() {
            latest = Some(frame);
        }
        latest
    }

    /// Waits up to `timeout` for the next frame (tests and headless use).
    pub fn recv_frame_timeout(&self, timeout: Duration) -> Option<PlayerFrame> {
        self.frames_lock()?.recv_timeout(timeout).ok()
    }

    fn frames_lock(&self) -> Option<std::sync::MutexGuard<'_, Receiver<PlayerFrame>>> {
        Some(
            self.frames
                .as_ref()?
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    pub fn status(&self) -> PlayerStatus {
        self.status
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Drop for VideoPlayer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(commands) = self.commands.take() {
            let _ = commands.try_send(PlayerCommand::Stop);
        }
        // Dropping the receiver fails any send the worker is in, so the join cannot hang.
        self.frames.take();
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::error!("video player thread panicked");
        }
    }
}

struct Worker {
    decoder: VideoDecoder,
    commands: Receiver<PlayerCommand>,
    frames: SyncSender<PlayerFrame>,
    shared_status: Arc<Mutex<PlayerStatus>>,
    stop: Arc<AtomicBool>,
    repaint: RepaintCallback,
    status: PlayerStatus,
    /// The next frame to show while playing, decoded ahead of its time.
    ahead: Option<DecodedFrame>,
    /// A seek or step result still waiting for room in the frame channel.
    undelivered: Option<DecodedFrame>,
    /// Frame with pts `p` is due at `instant + (p - pts_secs)`.
    clock: Option<(Instant, f64)>,
    last_sent_at: Instant,
    consecutive_errors: u32,
    /// Whether playback produced a frame since it last wrapped (a loop must make progress).
    played_since_wrap: bool,
    /// Commands read while a cancellable decode was under way, in arrival order.
    deferred: VecDeque<PlayerCommand>,
    sound_slot: SoundSlot,
    sound: Option<Sound>,
    /// Skipped ahead to catch up with the clock and not shown a frame since (the next
    /// late frame is shown rather than skipping again, so the picture always moves).
    caught_up: bool,
}

/// The attached sound track.
struct Sound {
    output: AudioOutput,
    /// The decoded track until the first Play loads it into the output.
    source: Option<Box<dyn SampleSource>>,
    playback: Option<Playback>,
    duration_secs: f64,
    /// The loop the playback was last given (the output loops it seamlessly itself).
    audio_loop: Option<(f64, f64)>,
}

impl Worker {
    fn run(mut self) {
        self.show(0);
        while !self.stop.load(Ordering::Acquire) {
            let wait = if self.undelivered.is_some() {
                Some(DELIVERY_RETRY)
            } else if self.status.playing {
                Some(self.time_to_next_frame())
            } else if !self.decoder.is_parked() {
                Some(PARK_AFTER_IDLE)
            } else {
                None
            };
            let command = match self.deferred.pop_front() {
                Some(command) => Some(command),
                None => match wait {
                    None => match self.commands.recv() {
                        Ok(command) => Some(command),
                        Err(_) => break,
                    },
                    Some(timeout) => match self.commands.recv_timeout(timeout) {
                        Ok(command) => Some(command),
                        Err(RecvTimeoutError::Timeout) => None,
                        Err(RecvTimeoutError::Disconnected) => break,
                    },
                },
            };
            match command {
                Some(PlayerCommand::Stop) => break,
                Some(command) => self.handle(command),
                None if self.undelivered.is_some() => {
                    if let Some(frame) = self.undelivered.take() {
                        self.deliver(frame, true);
                    }
                }
                None if !self.status.playing => self.park(),
                None => self.tick(),
            }
        }
    }

    /// How long until the frame decoded ahead is due (zero if none is decoded yet); while
    /// a sound plays, no longer than [`SOUND_POLL`] (its clock is read again then).
    fn time_to_next_frame(&self) -> Duration {
        let wait = match (&self.ahead, self.clock) {
            (Some(frame), Some(clock)) => self
                .due(clock, frame.pts_secs)
                .saturating_duration_since(Instant::now()),
            _ => Duration::ZERO,
        };
        if self.sound_playing() {
            wait.min(SOUND_POLL)
        } else {
            wait
        }
    }

    fn handle(&mut self, command: PlayerCommand) {
        match command {
            PlayerCommand::Play => self.play(),
            PlayerCommand::Pause => self.set_playing(false),
            PlayerCommand::TogglePlay => {
                if self.status.playing {
                    self.set_playing(false);
                } else {
                    self.play();
                }
            }
            PlayerCommand::SeekFrame(index) => {
                // A burst of seeks (scrubbing) collapses to the last one.
                let mut index = index;
                while let Ok(next) = self.commands.try_recv() {
                    match next {
                        PlayerCommand::SeekFrame(later) => index = later,
                        other => {
                            self.deferred.push_back(other);
                            break;
                        }
                    }
                }
                self.status.ended = false;
                let last = self.status.frame_count.saturating_sub(1);
                self.sound_seek(self.decoder.frame_pts_secs(index.min(last)));
                if self.show(index) && self.status.playing {
                    self.clock = Some((Instant::now(), self.status.time_secs));
                }
            }
            PlayerCommand::Step(frames) => {
                self.set_playing(false);
                // Relative to what the UI will see: a result still waiting counts as shown.
                let current = self
                    .undelivered
                    .as_ref()
                    .map_or(self.status.frame_index, |frame| frame.index);
                let last = self.status.frame_count.saturating_sub(1);
                let target = i64::from(current)
                    .saturating_add(i64::from(frames))
                    .clamp(0, i64::from(last)) as u32;
                if frames != 0 && target != current {
                    self.status.ended = false;
                    self.sound_seek(self.decoder.frame_pts_secs(target));
                    self.show(target);
                }
            }
            PlayerCommand::SetLoop(looping) => {
                self.status.looping = looping;
                self.apply_sound_loop();
                self.publish();
            }
            PlayerCommand::SetLoopRange(range) => {
                let last = self.status.frame_count.saturating_sub(1);
                self.status.loop_range = range.map(|(first, end)| {
                    let (first, end) = (first.min(end).min(last), end.max(first).min(last));
                    (first, end)
                });
                self.apply_sound_loop();
                self.publish();
            }
            PlayerCommand::SoundAttached => self.take_sound(),
            PlayerCommand::SetSpeed(speed) => self.set_speed(speed),
            PlayerCommand::Scrub(scrubbing) => {
                if self.status.scrubbing != scrubbing {
                    self.status.scrubbing = scrubbing;
                    if scrubbing {
                        self.sound_pause();
                    } else if self.status.playing {
                        self.sound_play();
                    }
                    self.publish();
                }
            }
            PlayerCommand::Stop => {}
        }
    }

    fn play(&mut self) {
        if self.status.playing {
            return;
        }
        let last = self.status.frame_count.saturating_sub(1);
        if let Some((first, end)) = self.status.loop_range {
            // Outside the range (or on its last frame) playback starts at its first frame.
            let at = self.status.frame_index;
            if (self.status.ended || at < first || at >= end) && !self.show(first) {
                return;
            }
            self.status.ended = false;
        } else if self.status.ended || self.status.frame_index >= last {
            // Play at the end starts over.
            self.status.ended = false;
            if !self.show(0) {
                return;
            }
        }
        self.clock = Some((Instant::now(), self.status.time_secs));
        self.consecutive_errors = 0;
        self.status.playing = true;
        self.status.speed = 1;
        if !self.status.scrubbing {
            self.sound_play();
        }
        self.publish();
    }

    fn set_playing(&mut self, playing: bool) {
        if !playing {
            self.sound_pause();
            self.status.speed = 1;
            // Paused, the player holds the frame on screen and the one decoded ahead only.
            self.decoder.release_spare_buffers();
        }
        self.status.playing = playing;
        self.publish();
    }

    /// Paused and idle: free the decoder and the frame decoded ahead (it is decoded again,
    /// from its IDR, when playback or a step needs it).
    fn park(&mut self) {
        let resume_at = self.ahead.take().map(|frame| frame.index);
        self.decoder.park(resume_at);
        // The decoder's buffers were this thread's allocations: glibc keeps them in this
        // thread's arena until asked.
        crate::desktop::heap::give_back_freed_memory();
        self.status.decoder_parked = self.decoder.is_parked();
        self.publish();
        tracing::debug!("paused video: decoder parked");
    }

    /// Decodes frame `index` and sends it, waiting for room if needed. `false` if it could
    /// not be shown (error or superseded by a newer command).
    fn show(&mut self, index: u32) -> bool {
        let last = self.status.frame_count.saturating_sub(1);
        let index = index.min(last);
        if let Some(frame) = self.ahead.take() {
            if frame.index == index {
                self.deliver(frame, true);
                return true;
            }
            self.decoder.recycle(frame);
        }
        if let Some(frame) = self.undelivered.take() {
            self.decoder.recycle(frame);
        }
        if let Err(e) = self.decoder.seek_to_frame(index) {
            self.report_error(&e);
            return false;
        }
        match self.decode_next(true) {
            Some(frame) => {
                self.played_since_wrap = true;
                self.deliver(frame, true);
                true
            }
            None => false,
        }
    }

    /// One playback step: decode ahead if needed, then send the frame when due, or drop it
    /// when the one after it is due already.
    fn tick(&mut self) {
        self.follow_sound();
        if !self.status.playing {
            return;
        }
        if self.ahead.is_none() {
            match self.decode_next(false) {
                Some(frame) => {
                    self.played_since_wrap = true;
                    self.ahead = Some(frame);
                }
                None => {
                    if self.status.playing && self.ahead.is_none() {
                        self.end_reached();
                    }
                    return;
                }
            }
        }
        let (Some(frame), Some(clock)) = (self.ahead.take(), self.clock) else {
            return;
        };
        if let Some((first, end)) = self.status.loop_range
            && frame.index > end
        {
            // Past the range: the range's first frame is due where this one would have been.
            let wrap_secs = frame.pts_secs;
            self.decoder.recycle(frame);
            let due = self.due(clock, wrap_secs);
            self.wrap_to(first, due);
            return;
        }
        let now = Instant::now();
        let due = self.due(clock, frame.pts_secs);
        if now < due {
            self.ahead = Some(frame);
            return;
        }
        if let Some(target) = self.catch_up_target(&frame, self.clock_secs(clock, now)) {
            self.status.dropped_frames += u64::from(target - frame.index);
            self.decoder.recycle(frame);
            self.caught_up = true;
            if let Err(e) = self.decoder.seek_to_frame(target) {
                self.report_error(&e);
            }
            return;
        }
        let has_successor = frame.index + 1 < self.status.frame_count;
        let successor_due = self.due(clock, frame.pts_secs + frame.duration_secs);
        let shown_recently = now.duration_since(self.last_sent_at) < MAX_SHOW_GAP;
        if has_successor && now >= successor_due && shown_recently {
            self.status.dropped_frames += 1;
            self.decoder.recycle(frame);
            return;
        }
        self.deliver(frame, false);
    }

    /// The frame to skip ahead to when `frame` is far behind the clock (at `now_secs`):
    /// the one due a little after now, if it is inside the video (and the loop range).
    fn catch_up_target(&self, frame: &DecodedFrame, now_secs: f64) -> Option<u32> {
        if self.caught_up || now_secs - frame.pts_secs < CATCH_UP_SECS {
            return None;
        }
        let target = self
            .decoder
            .track()
            .frame_at_secs(now_secs + CATCH_UP_LEAD_SECS);
        let end = match self.status.loop_range {
            Some((_, end)) => end,
            None => self.status.frame_count.saturating_sub(1),
        };
        (target > frame.index && target < end).then_some(target)
    }

    /// Past the last frame while playing: wrap to 0 on the same clock, or stop.
    fn end_reached(&mut self) {
        if let Some((first, _)) = self.status.loop_range {
            let end_secs = self.decoder.info().duration_secs;
            if let Some(clock) = self.clock {
                let due = self.due(clock, end_secs);
                self.wrap_to(first, due);
                return;
            }
        }
        if !self.status.looping || !self.played_since_wrap {
            self.status.ended = true;
            self.set_playing(false);
            return;
        }
        self.played_since_wrap = false;
        // Frame 0 is due where the last frame ends, so the loop keeps its rhythm.
        let end_secs = self.decoder.info().duration_secs;
        self.clock = self.clock.map(|clock| (self.due(clock, end_secs), 0.0));
        self.sound_wrapped(0.0);
        if let Err(e) = self.decoder.seek_to_frame(0) {
            self.report_error(&e);
            self.set_playing(false);
        }
    }

    /// Goes back to frame `first` of a loop range, due at `due` (keeps the loop's rhythm).
    /// Stops if nothing was played since the last wrap (a range that cannot be decoded).
    fn wrap_to(&mut self, first: u32, due: Instant) {
        if !self.played_since_wrap {
            self.status.ended = true;
            self.set_playing(false);
            return;
        }
        self.played_since_wrap = false;
        self.clock = Some((due, self.decoder.frame_pts_secs(first)));
        self.sound_wrapped(self.decoder.frame_pts_secs(first));
        if let Err(e) = self.decoder.seek_to_frame(first) {
            self.report_error(&e);
            self.set_playing(false);
        }
    }

    /// The next frame from the decoder, skipping bad samples. With `cancellable`, a newer
    /// seek/step/stop interrupts it (returns `None`; the command is deferred).
    fn decode_next(&mut self, cancellable: bool) -> Option<DecodedFrame> {
        loop {
            let result = if cancellable {
                let commands = &self.commands;
                let deferred = &mut self.deferred;
                let stop = &self.stop;
                self.decoder.next_frame_cancellable(&mut || {
                    if let Ok(command) = commands.try_recv() {
                        deferred.push_back(command);
                        if matches!(
                            command,
                            PlayerCommand::SeekFrame(_)
                                | PlayerCommand::Step(_)
                                | PlayerCommand::Stop
                        ) {
                            return true;
                        }
                    }
                    stop.load(Ordering::Acquire)
                })
            } else {
                self.decoder.next_frame()
            };
            match result {
                Ok(Some(frame)) => {
                    self.consecutive_errors = 0;
                    if self.status.error.take().is_some() {
                        self.publish();
                    }
                    return Some(frame);
                }
                Ok(None) | Err(VideoDecodeError::Cancelled) => return None,
                Err(e) => {
                    self.report_error(&e);
                    self.consecutive_errors += 1;
                    if self.consecutive_errors >= MAX_CONSECUTIVE_ERRORS {
                        self.set_playing(false);
                        return None;
                    }
                }
            }
        }
    }

    /// Sends a frame; `must_arrive` frames wait for room, others are dropped when full.
    fn deliver(&mut self, frame: DecodedFrame, must_arrive: bool) {
        let mut status = self.status.clone();
        status.decoder_parked = self.decoder.is_parked();
        status.frame_index = frame.index;
        status.time_secs = frame.pts_secs;
        status.sound_secs = self.sound_clock();
        match self.frames.try_send(PlayerFrame {
            frame,
            status: status.clone(),
        }) {
            Ok(()) => {
                self.status = status;
                self.caught_up = false;
                self.last_sent_at = Instant::now();
                self.publish();
                (self.repaint)();
            }
            Err(TrySendError::Full(rejected)) => {
                if must_arrive {
                    self.undelivered = Some(rejected.frame);
                } else {
                    // The UI is behind; playback position still moves on.
                    self.status.frame_index = rejected.frame.index;
                    self.status.time_secs = rejected.frame.pts_secs;
                    self.status.dropped_frames += 1;
                    self.decoder.recycle(rejected.frame);
                    self.publish();
                }
            }
            Err(TrySendError::Disconnected(_)) => self.stop.store(true, Ordering::Release),
        }
    }

    fn speed(&self) -> f64 {
        f64::from(self.status.speed.clamp(1, 4))
    }

    fn due(&self, clock: (Instant, f64), pts_secs: f64) -> Instant {
        due_at(clock, pts_secs, self.speed())
    }

    fn clock_secs(&self, clock: (Instant, f64), now: Instant) -> f64 {
        clock_secs(clock, now, self.speed())
    }

    /// 1×, 2× or 4×: the clock keeps its time and runs on at the new rate; the sound is
    /// silent above 1× and picks up where the picture is at 1×.
    fn set_speed(&mut self, speed: u32) {
        let speed = match speed {
            0 | 1 => 1,
            2 | 3 => 2,
            _ => 4,
        };
        if speed == self.status.speed {
            return;
        }
        let now = Instant::now();
        if let Some(clock) = self.clock {
            self.clock = Some((now, self.clock_secs(clock, now)));
        }
        self.status.speed = speed;
        if self.status.playing && !self.status.scrubbing {
            if speed == 1 {
                self.sound_play();
            } else {
                self.sound_pause();
            }
        }
        self.publish();
    }

    /// Takes the sound [`VideoPlayer::attach_sound`] left in the slot.
    fn take_sound(&mut self) {
        let Some((output, source)) = self
            .sound_slot
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        else {
            return;
        };
        let duration_secs = source.duration_secs().unwrap_or(0.0);
        self.sound = Some(Sound {
            output,
            source: Some(source),
            playback: None,
            duration_secs,
            audio_loop: None,
        });
        self.status.has_sound = true;
        if self.status.playing && !self.status.scrubbing {
            self.sound_play();
        }
        self.publish();
    }

    fn playback(&self) -> Option<&Playback> {
        self.sound.as_ref()?.playback.as_ref()
    }

    fn sound_playing(&self) -> bool {
        self.playback()
            .is_some_and(|p| p.state() == PlaybackState::Playing)
    }

    /// The sound's clock while it plays.
    fn sound_clock(&self) -> Option<f64> {
        self.playback()
            .filter(|p| p.state() == PlaybackState::Playing)
            .map(Playback::position_secs)
    }

    /// The loop the picture keeps, in seconds: the loop range, else the whole video when
    /// looping.
    fn loop_secs(&self) -> Option<(f64, f64)> {
        if let Some((first, last)) = self.status.loop_range {
            let start = self.decoder.frame_pts_secs(first);
            let end =
                self.decoder.frame_pts_secs(last) + self.decoder.track().frame_duration_secs(last);
            return Some((start, end));
        }
        self.status
            .looping
            .then(|| (0.0, self.decoder.info().duration_secs))
    }

    /// Gives the playback the picture's loop when the sound covers it (it then wraps without
    /// a gap); a sound shorter than the loop is sent back at each wrap instead.
    fn apply_sound_loop(&mut self) {
        let wanted = self.loop_secs();
        let Some(sound) = self.sound.as_mut() else {
            return;
        };
        let wanted = wanted.filter(|&(_, end)| end <= sound.duration_secs + 0.05);
        if let Some(playback) = &sound.playback
            && sound.audio_loop != wanted
        {
            playback.set_loop(wanted);
        }
        sound.audio_loop = wanted;
    }

    /// Starts the sound where the picture is (loading it into the output the first time).
    fn sound_play(&mut self) {
        self.sound_play_from(self.status.time_secs);
    }

    fn sound_play_from(&mut self, time_secs: f64) {
        if self.status.speed > 1 {
            return;
        }
        let Some(sound) = self.sound.as_mut() else {
            return;
        };
        if sound.playback.is_none()
            && let Some(source) = sound.source.take()
        {
            let playback = sound.output.load(source, false);
            if sound.audio_loop.is_some() {
                playback.set_loop(sound.audio_loop);
            }
            sound.playback = Some(playback);
        }
        if let Some(playback) = &sound.playback {
            if time_secs < sound.duration_secs {
                playback.seek(time_secs);
                playback.play();
            } else {
                // Past the end of a shorter sound: silent until a wrap brings it back.
                playback.pause();
            }
        }
    }

    fn sound_pause(&self) {
        if let Some(playback) = self.playback() {
            playback.pause();
        }
    }

    fn sound_seek(&self, time_secs: f64) {
        if let Some(playback) = self.playback() {
            playback.seek(time_secs);
        }
    }

    /// The picture wrapped to `time_secs`: a sound that does not loop by itself goes back too.
    fn sound_wrapped(&mut self, time_secs: f64) {
        let manual = self
            .sound
            .as_ref()
            .is_some_and(|s| s.audio_loop.is_none() && s.playback.is_some());
        if manual && self.status.playing && !self.status.scrubbing {
            self.sound_play_from(time_secs);
        }
    }

    /// While the sound plays, moves the picture's clock to the sound's (see the module
    /// docs); pauses when another sound took the output.
    fn follow_sound(&mut self) {
        if !self.status.playing || self.status.scrubbing || self.status.speed > 1 {
            return;
        }
        let Some(playback) = self.playback() else {
            return;
        };
        match playback.state() {
            PlaybackState::Playing => {}
            PlaybackState::PausedByOther => {
                // One sound at a time across the studio: the picture stops with its sound.
                self.status.playing = false;
                self.publish();
                (self.repaint)();
                return;
            }
            PlaybackState::Paused | PlaybackState::Ended => return,
        }
        let Some((instant, anchor_secs)) = self.clock else {
            return;
        };
        let sound_secs = playback.position_secs();
        let now = Instant::now();
        let predicted_secs = self.clock_secs((instant, anchor_secs), now);
        let mut diff_secs = sound_secs - predicted_secs;
        if let Some((start, end)) = self.loop_secs() {
            let length = end - start;
            if length > 0.0 {
                diff_secs -= length * (diff_secs / length).round();
            }
        }
        if diff_secs.abs() > SYNC_TOLERANCE_SECS {
            self.clock = Some((now, predicted_secs + diff_secs));
        }
    }

    fn report_error(&mut self, error: &VideoDecodeError) {
        tracing::warn!("video playback: {error}");
        self.status.error = Some(error.to_string());
        self.publish();
    }

    fn publish(&self) {
        *self
            .shared_status
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = self.status.clone();
    }
}

/// Why a sound track does not play, in words.
fn sound_words(error: &AudioError) -> String {
    match error {
        AudioError::Unsupported(what) => {
            format!("The studio cannot play this video's sound ({what}).")
        }
        _ => "This video's sound track is damaged and cannot be played.".to_owned(),
    }
}

/// The clock's time at `now` (anchored at `(instant, anchor_pts_secs)`, running `speed`
/// times real time).
fn clock_secs((instant, anchor_pts_secs): (Instant, f64), now: Instant, speed: f64) -> f64 {
    if now >= instant {
        anchor_pts_secs + now.duration_since(instant).as_secs_f64() * speed
    } else {
        anchor_pts_secs - instant.duration_since(now).as_secs_f64() * speed
    }
}

/// When the frame at `pts_secs` is due on a clock anchored at `(instant, anchor_pts_secs)`
/// running `speed` times real time.
fn due_at((instant, anchor_pts_secs): (Instant, f64), pts_secs: f64, speed: f64) -> Instant {
    let offset_secs = (pts_secs - anchor_pts_secs) / speed.max(1.0);
    if offset_secs >= 0.0 {
        instant + Duration::from_secs_f64(offset_secs.min(1e6))
    } else {
        instant
            .checked_sub(Duration::from_secs_f64((-offset_secs).min(1e6)))
            .unwrap_or(instant)
    }
}

#[cfg(all(test, feature = "h264"))]
mod tests {
    use super::super::test_fixtures::{BFRAMES, frame_code};
    use super::*;
    use std::sync::atomic::AtomicUsize;

    const WAIT: Duration = Duration::from_secs(5);

    fn player() -> (VideoPlayer, Arc<AtomicUsize>) {
        let repaints = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&repaints);
        let decoder = VideoDecoder::from_bytes(BFRAMES.to_vec()).expect("fixture opens");
        let player = VideoPlayer::spawn(
            decoder,
            Arc::new(move || {
                counter.fetch_add(1, Ordering::Relaxed);
            }),
        )
        .expect("thread starts");
        (player, repaints)
    }

    fn next(player: &VideoPlayer) -> PlayerFrame {
        let received = player.recv_frame_timeout(WAIT).expect("a frame arrives");
        assert_eq!(frame_code(&received.frame), received.frame.index);
        assert_eq!(received.status.frame_index, received.frame.index);
        received
    }

    /// Waits until the worker has published a status that satisfies `check`.
    fn wait_status(player: &VideoPlayer, check: impl Fn(&PlayerStatus) -> bool) -> PlayerStatus {
        let deadline = Instant::now() + WAIT;
        loop {
            let status = player.status();
            if check(&status) {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "status never matched: {status:?}"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    #[test]
    fn starts_paused_on_the_first_frame() {
        let (player, repaints) = player();
        let first = next(&player);
        assert_eq!(first.frame.index, 0);
        assert!(!first.status.playing);
        assert_eq!(first.status.frame_count, 48);
        let deadline = Instant::now() + WAIT;
        while repaints.load(Ordering::Relaxed) == 0 {
            assert!(Instant::now() < deadline, "repaint was requested");
            std::thread::sleep(Duration::from_millis(2));
        }
        assert!(
            player
                .recv_frame_timeout(Duration::from_millis(150))
                .is_none()
        );
    }

    #[test]
    fn play_advances_in_order_at_the_file_rate_and_pause_stops() {
        let (player, repaints) = player();
        assert_eq!(next(&player).frame.index, 0);
        assert!(player.play());
        let started = Instant::now();
        let mut last = 0;
        let mut received = 0;
        while received < 12 {
            let frame = next(&player);
            assert!(
                frame.frame.index > last,
                "in order: {} after {last}",
                frame.frame.index
            );
            assert!(frame.status.playing);
            last = frame.frame.index;
            received += 1;
        }
        // Frame `last` is due `last / 24` s after play began (minus the first frame's wait).
        let elapsed_secs = started.elapsed().as_secs_f64();
        let due_secs = f64::from(last) / 24.0;
        assert!(
            elapsed_secs >= due_secs - 0.05,
            "{elapsed_secs} s for frame {last}"
        );

        assert!(player.pause());
        wait_status(&player, |s| !s.playing);
        while player.try_recv_frame().is_some() {}
        assert!(
            player
                .recv_frame_timeout(Duration::from_millis(200))
                .is_none()
        );
        let paused_at = player.status().frame_index;
        assert!(repaints.load(Ordering::Relaxed) > received);

        // Step forward and back from where it paused.
        player.step(1);
        assert_eq!(next(&player).frame.index, paused_at + 1);
        player.step(-1);
        assert_eq!(next(&player).frame.index, paused_at);
        player.step(-1);
        assert_eq!(next(&player).frame.index, paused_at - 1);
        player.step(-100);
        assert_eq!(next(&player).frame.index, 0);
    }

    #[test]
    fn paused_for_a_while_it_frees_the_decoder_and_plays_on_from_the_same_frame() {
        let (player, _) = player();
        assert_eq!(next(&player).frame.index, 0);
        assert!(player.play());
        while next(&player).frame.index < 6 {}
        assert!(player.pause());
        wait_status(&player, |s| !s.playing);
        while player.try_recv_frame().is_some() {}
        let paused_at = player.status().frame_index;
        assert!(!player.status().decoder_parked, "not before the idle time");
        // Past the idle time the decoder is freed; nothing is sent meanwhile.
        assert!(
            player
                .recv_frame_timeout(PARK_AFTER_IDLE + Duration::from_millis(300))
                .is_none()
        );
        wait_status(&player, |s| s.decoder_parked);
        player.step(1);
        let stepped = next(&player);
        assert_eq!(stepped.frame.index, paused_at + 1);
        assert!(!stepped.status.decoder_parked, "a step decodes again");
        assert!(
            player
                .recv_frame_timeout(PARK_AFTER_IDLE + Duration::from_millis(300))
                .is_none()
        );
        wait_status(&player, |s| s.decoder_parked);
        assert!(player.play());
        let mut last = next(&player).frame.index;
        assert_eq!(last, paused_at + 2, "plays on from the frame shown");
        for _ in 0..5 {
            let frame = next(&player);
            assert!(frame.frame.index > last, "in order");
            last = frame.frame.index;
        }
    }

    #[test]
    fn seek_and_step_show_exact_frames() {
        let (player, _) = player();
        next(&player);
        for target in [30, 7, 47, 12, 0, 25] {
            player.seek_frame(target);
            assert_eq!(next(&player).frame.index, target);
        }
        player.seek_frame(1000);
        assert_eq!(next(&player).frame.index, 47);
        player.step(1);
        // Already at the end: nothing to show.
        assert!(
            player
                .recv_frame_timeout(Duration::from_millis(150))
                .is_none()
        );
        player.step(-2);
        assert_eq!(next(&player).frame.index, 45);
    }

    #[test]
    fn loop_wraps_to_the_first_frame() {
        let (player, _) = player();
        next(&player);
        player.seek_frame(44);
        assert_eq!(next(&player).frame.index, 44);
        player.set_loop(true);
        player.play();
        let mut seen = Vec::new();
        while seen.len() < 8 {
            seen.push(next(&player).frame.index);
        }
        let wrap = seen
            .windows(2)
            .position(|w| w[1] < w[0])
            .expect("wrapped to the start");
        assert!(seen[wrap + 1] <= 2, "{seen:?}");
        assert!(seen[..=wrap].windows(2).all(|w| w[1] > w[0]), "{seen:?}");
        assert!(seen[wrap + 1..].windows(2).all(|w| w[1] > w[0]), "{seen:?}");
    }

    #[test]
    fn a_loop_range_plays_only_its_frames_over_and_over() {
        let (player, _) = player();
        next(&player);
        // Loop off: the range loops anyway. Play starts at the range's first frame.
        player.set_loop(false);
        player.set_loop_range(Some((20, 24)));
        wait_status(&player, |s| s.loop_range == Some((20, 24)));
        player.play();
        let mut seen = Vec::new();
        while seen.len() < 14 {
            seen.push(next(&player).frame.index);
        }
        assert_eq!(seen[0], 20, "{seen:?}");
        assert!(seen.iter().all(|i| (20..=24).contains(i)), "{seen:?}");
        let wraps = seen.windows(2).filter(|w| w[1] < w[0]).count();
        assert!(wraps >= 2, "{seen:?}");
        // Cleared: playback goes on past the old range to the end.
        player.set_loop_range(None);
        let mut last = 0;
        while last < 30 {
            last = next(&player).frame.index;
        }
        player.pause();
    }

    #[test]
    fn playback_without_loop_ends_on_the_last_frame() {
        let (player, _) = player();
        next(&player);
        player.seek_frame(45);
        next(&player);
        player.play();
        let mut last = 45;
        while last < 47 {
            last = next(&player).frame.index;
        }
        let status = wait_status(&player, |s| s.ended);
        assert!(!status.playing);
        assert_eq!(status.frame_index, 47);
        // Play at the end starts over.
        player.play();
        assert_eq!(next(&player).frame.index, 0);
    }

    #[test]
    fn toggle_and_drop_while_frames_pile_up() {
        let (player, _) = player();
        player.toggle_play();
        wait_status(&player, |s| s.playing);
        // Nobody takes frames: the channel fills, the worker must not block on it.
        std::thread::sleep(Duration::from_millis(300));
        let status = player.status();
        assert!(status.frame_index > 2, "{status:?}");
        assert!(status.dropped_frames > 0);
        player.toggle_play();
        wait_status(&player, |s| !s.playing);
        let started = Instant::now();
        drop(player);
        assert!(started.elapsed() < Duration::from_secs(2));
    }
}
