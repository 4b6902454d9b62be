//! The studio's one audio output.
//!
//! A named thread ("audio-output") owns the device (a cpal stream, ALSA on Linux) and
//! decodes ahead: each loaded sound ([`Playback`]) has a small queue of decoded chunks,
//! already converted to the output's rate and channel count, about a quarter of a second
//! ahead of what is heard. The device callback only copies from that queue (volume and
//! mute applied there) and counts the frames it took: that count, from the last seek, is
//! the playback clock ([`Playback::position_secs`]), kept in an atomic.
//!
//! One sound at a time: loading or playing a sound pauses the one that was playing
//! (its state becomes [`PlaybackState::PausedByOther`]).
//!
//! With no device (none at start, or lost mid-play), or with [`OutputDevice::Capture`],
//! the same thread consumes the queue on the wall clock at 1× (recording it for a
//! capture), so clocks still advance and a video still plays; a lost device is reopened
//! every few seconds. Nothing here panics on a device's behaviour.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rodio::cpal;
use rodio::cpal::traits::{DeviceTrait, HostTrait, StreamTrait};

use super::source::SampleSource;

/// Where the studio's sound goes.
#[derive(Clone, Debug)]
pub enum OutputDevice {
    /// The system default device (ALSA default on Linux).
    Default,
    /// A cpal device id, e.g. "null" (ALSA's null PCM).
    Named(String),
    /// Tests: no device; samples are pulled on a wall clock at 1× and recorded.
    Capture(CaptureSink),
}

/// The rate a [`CaptureSink`] records at.
pub const CAPTURE_RATE_HZ: u32 = 48_000;
/// The channel count a [`CaptureSink`] records.
pub const CAPTURE_CHANNELS: u16 = 2;
/// A capture keeps at most this much sound (the first of it); later samples are dropped.
pub const CAPTURE_MAX_SECS: u32 = 120;

/// Records what [`OutputDevice::Capture`] "plays": every frame pulled while a sound was
/// playing (silence from volume 0 or mute included), at [`CAPTURE_RATE_HZ`] stereo.
#[derive(Clone, Default)]
pub struct CaptureSink {
    samples: Arc<Mutex<Vec<f32>>>,
}

impl std::fmt::Debug for CaptureSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaptureSink").finish_non_exhaustive()
    }
}

impl CaptureSink {
    pub fn new() -> Self {
        Self::default()
    }
    /// Everything recorded so far, interleaved.
    pub fn samples(&self) -> Vec<f32> {
        lock(&self.samples).clone()
    }
    /// How many interleaved samples were recorded so far.
    pub fn len(&self) -> usize {
        lock(&self.samples).len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Forgets what was recorded.
    pub fn clear(&self) {
        lock(&self.samples).clear();
    }
    pub fn sample_rate_hz(&self) -> u32 {
        CAPTURE_RATE_HZ
    }
    pub fn channels(&self) -> u16 {
        CAPTURE_CHANNELS
    }
    fn record(&self, samples: &[f32]) {
        let mut all = lock(&self.samples);
        let max = CAPTURE_MAX_SECS as usize * CAPTURE_RATE_HZ as usize * CAPTURE_CHANNELS as usize;
        let room = max.saturating_sub(all.len());
        all.extend_from_slice(&samples[..samples.len().min(room)]);
    }
}

/// How the output starts.
#[derive(Clone, Debug)]
pub struct OutputConfig {
    pub device: OutputDevice,
    /// 0..=1.
    pub volume: f32,
    pub muted: bool,
}

impl Default for OutputConfig {
    fn default() -> Self {
        OutputConfig {
            device: OutputDevice::Default,
            volume: 1.0,
            muted: false,
        }
    }
}

/// Whether sound reaches a device.
#[derive(Clone, Debug, PartialEq)]
pub enum DeviceState {
    Ready {
        name: String,
    },
    /// No device: playback clocks run on the wall clock; retried every few seconds.
    Unavailable {
        reason: String,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlaybackState {
    Playing,
    Paused,
    /// The sound ran out (and no loop was set).
    Ended,
    /// Another sound was loaded or played (one sound at a time across the studio).
    PausedByOther,
}

impl PlaybackState {
    fn to_u8(self) -> u8 {
        match self {
            PlaybackState::Playing => 0,
            PlaybackState::Paused => 1,
            PlaybackState::Ended => 2,
            PlaybackState::PausedByOther => 3,
        }
    }
    fn from_u8(v: u8) -> PlaybackState {
        match v {
            0 => PlaybackState::Playing,
            2 => PlaybackState::Ended,
            3 => PlaybackState::PausedByOther,
            _ => PlaybackState::Paused,
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// How far ahead of the device the output thread decodes.
const DECODE_AHEAD_SECS: f64 = 0.25;
/// What is decoded before the device starts (the rest follows right after).
const FIRST_DECODE_SECS: f64 = 0.03;
/// Source frames decoded per step.
const DECODE_BLOCK_FRAMES: usize = 2048;
/// The output thread's tick while a sound plays.
const TICK: Duration = Duration::from_millis(10);
/// How often a missing device is tried again while a sound plays.
const RETRY_EVERY: Duration = Duration::from_secs(3);
/// How often a missing device is tried again while nothing plays.
const RETRY_IDLE_EVERY: Duration = Duration::from_secs(30);
/// Wall-clock catch-up is capped (a stalled thread does not burst minutes of sound).
const MAX_CATCH_UP_SECS: f64 = 0.5;

/// The output's sample format: what decoded chunks are converted to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Format {
    rate_hz: u32,
    channels: u16,
}

/// Decoded sound waiting for the device.
struct Chunk {
    /// Source time of the chunk's first frame.
    start_secs: f64,
    /// Interleaved at the output format.
    samples: Vec<f32>,
    pos: usize,
}

/// Shared between the UI's handle, the output thread and the device callback.
#[derive(Default)]
struct Queue {
    chunks: VecDeque<Chunk>,
    /// Interleaved samples queued.
    queued: usize,
    /// Bumped by every seek: chunks decoded for an older generation are dropped.
    generation: u64,
    /// The decoder reached the end (no loop).
    eof: bool,
    /// A seek the output thread has not done yet.
    pending_seek: Option<f64>,
    loop_range: Option<(f64, f64)>,
    /// The output format the queued chunks are in.
    format: Option<Format>,
}

/// What only the output thread touches (plus the last drop).
struct DecodeState {
    source: Box<dyn SampleSource>,
    generation: u64,
    /// Source time of the next decoded frame.
    decode_secs: f64,
    format: Option<Format>,
    resampler: Resampler,
    eof: bool,
    failed: bool,
    block: Vec<f32>,
}

struct Voice {
    id: u64,
    duration_secs: Option<f64>,
    source_rate_hz: u32,
    source_channels: u16,
    state: AtomicU8,
    position_bits: AtomicU64,
    queue: Mutex<Queue>,
    decode: Mutex<DecodeState>,
}

impl Voice {
    fn state(&self) -> PlaybackState {
        PlaybackState::from_u8(self.state.load(Ordering::Acquire))
    }
    fn set_state(&self, s: PlaybackState) {
        self.state.store(s.to_u8(), Ordering::Release);
    }
    fn position(&self) -> f64 {
        f64::from_bits(self.position_bits.load(Ordering::Acquire))
    }
    fn set_position(&self, secs: f64) {
        self.position_bits.store(secs.to_bits(), Ordering::Release);
    }
    fn clamp_time(&self, t: f64) -> f64 {
        let t = if t.is_finite() { t.max(0.0) } else { 0.0 };
        match self.duration_secs {
            Some(d) => t.min(d),
            None => t,
        }
    }
    /// Drops what was decoded ahead and asks the output thread to decode from `t`.
    fn request_seek(&self, t: f64) {
        let mut q = lock(&self.queue);
        q.generation += 1;
        q.chunks.clear();
        q.queued = 0;
        q.eof = false;
        q.pending_seek = Some(t);
        self.set_position(t);
    }

    /// The device side: fills `out` (interleaved, `format`) from the queue, volume
    /// applied; returns true when the sound just ended.
    fn pull(&self, out: &mut [f32], format: Format, gain: f32) -> bool {
        let mut q = lock(&self.queue);
        if q.format != Some(format) {
            out.fill(0.0);
            return false;
        }
        let mut written = 0;
        let mut position = None;
        while written < out.len() {
            let Some(chunk) = q.chunks.front_mut() else {
                break;
            };
            let n = (out.len() - written).min(chunk.samples.len() - chunk.pos);
            for (o, s) in out[written..written + n]
                .iter_mut()
                .zip(&chunk.samples[chunk.pos..chunk.pos + n])
            {
                *o = s * gain;
            }
            chunk.pos += n;
            written += n;
            let frames_in = (chunk.pos / format.channels as usize) as f64;
            position = Some(chunk.start_secs + frames_in / format.rate_hz as f64);
            if chunk.pos >= chunk.samples.len() {
                q.chunks.pop_front();
            }
            q.queued = q.queued.saturating_sub(n);
        }
        out[written..].fill(0.0);
        if let Some(p) = position {
            self.set_position(self.clamp_time(p));
        }
        if q.chunks.is_empty() && q.eof && q.pending_seek.is_none() {
            q.eof = false;
            if let Some(d) = self.duration_secs {
                self.set_position(d);
            }
            self.set_state(PlaybackState::Ended);
            return true;
        }
        false
    }
}

struct Shared {
    volume_bits: AtomicU32,
    muted: AtomicBool,
    device_state: Mutex<DeviceState>,
    /// The sound that has the output (the last loaded or played).
    current: Mutex<Option<Arc<Voice>>>,
    next_id: AtomicU64,
    format: Mutex<Option<Format>>,
    /// A voice ended or the device failed: the output thread should repaint / react.
    notify: AtomicBool,
    /// Seconds from a device callback to the moment its first frame is heard (as the
    /// device reports it); 0 without a device.
    latency_bits: AtomicU64,
    device_failed: Mutex<Option<String>>,
    repaint: Arc<dyn Fn() + Send + Sync>,
}

impl Shared {
    fn gain(&self) -> f32 {
        if self.muted.load(Ordering::Relaxed) {
            0.0
        } else {
            f32::from_bits(self.volume_bits.load(Ordering::Relaxed)).clamp(0.0, 1.0)
        }
    }
    fn current_playing(&self) -> Option<Arc<Voice>> {
        lock(&self.current)
            .as_ref()
            .filter(|v| v.state() == PlaybackState::Playing)
            .cloned()
    }
    /// Fills `out` from the playing sound (silence when none); true when something played.
    fn mix(&self, out: &mut [f32], format: Format) -> bool {
        match self.current_playing() {
            Some(voice) => {
                if voice.pull(out, format, self.gain()) {
                    self.notify.store(true, Ordering::Release);
                }
                true
            }
            None => {
                out.fill(0.0);
                false
            }
        }
    }
}

/// Wakes the output thread (never blocks: a full channel already holds a wake-up).
#[derive(Clone)]
struct Waker(SyncSender<()>);

impl Waker {
    fn wake(&self) {
        match self.0.try_send(()) {
            Ok(()) | Err(TrySendError::Full(())) | Err(TrySendError::Disconnected(())) => {}
        }
    }
}

/// The studio's one audio output. Clone is cheap (Arc). Never panics.
#[derive(Clone)]
pub struct AudioOutput {
    shared: Arc<Shared>,
    waker: Waker,
}

impl AudioOutput {
    /// Starts the "audio-output" thread with `config`; `repaint` is called when a sound
    /// ends or the device state changes.
    pub fn start(config: OutputConfig, repaint: Arc<dyn Fn() + Send + Sync>) -> AudioOutput {
        let shared = Arc::new(Shared {
            volume_bits: AtomicU32::new(sanitize_volume(config.volume).to_bits()),
            muted: AtomicBool::new(config.muted),
            device_state: Mutex::new(DeviceState::Unavailable {
                reason: "starting".into(),
            }),
            current: Mutex::new(None),
            next_id: AtomicU64::new(1),
            format: Mutex::new(None),
            notify: AtomicBool::new(false),
            latency_bits: AtomicU64::new(0f64.to_bits()),
            device_failed: Mutex::new(None),
            repaint,
        });
        let (tx, rx) = mpsc::sync_channel::<()>(8);
        let thread_shared = shared.clone();
        let device = config.device;
        // The first attempt to open the device happens before `start` returns, so the
        // device state is known at once.
        let (ready_tx, ready_rx) = mpsc::sync_channel::<()>(1);
        let spawned = std::thread::Builder::new()
            .name("audio-output".into())
            .spawn(move || OutputThread::new(thread_shared, device, rx).run(ready_tx));
        match spawned {
            Ok(_) => {
                let _ = ready_rx.recv_timeout(Duration::from_secs(5));
            }
            Err(e) => {
                tracing::warn!("audio: could not start the output thread: {e}");
                *lock(&shared.device_state) = DeviceState::Unavailable {
                    reason: format!("the audio thread could not start: {e}"),
                };
            }
        }
        AudioOutput {
            shared,
            waker: Waker(tx),
        }
    }

    /// Loads a sound; whatever played before is paused (state PausedByOther) — one sound
    /// at a time across the studio. Starts paused at 0 unless `play`.
    pub fn load(&self, source: Box<dyn SampleSource>, play: bool) -> Playback {
        let id = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
        let voice = Arc::new(Voice {
            id,
            duration_secs: source.duration_secs(),
            source_rate_hz: source.sample_rate_hz().max(1),
            source_channels: source.channels().clamp(1, 2),
            state: AtomicU8::new(PlaybackState::Paused.to_u8()),
            position_bits: AtomicU64::new(0f64.to_bits()),
            queue: Mutex::new(Queue {
                pending_seek: Some(0.0),
                ..Queue::default()
            }),
            decode: Mutex::new(DecodeState {
                source,
                generation: 0,
                decode_secs: 0.0,
                format: None,
                resampler: Resampler::default(),
                eof: false,
                failed: false,
                block: Vec::new(),
            }),
        });
        let playback = Playback {
            voice,
            shared: self.shared.clone(),
            waker: self.waker.clone(),
        };
        playback.take_output(if play {
            PlaybackState::Playing
        } else {
            PlaybackState::Paused
        });
        playback
    }

    pub fn set_volume(&self, volume: f32) {
        self.shared
            .volume_bits
            .store(sanitize_volume(volume).to_bits(), Ordering::Relaxed);
    }
    pub fn volume(&self) -> f32 {
        f32::from_bits(self.shared.volume_bits.load(Ordering::Relaxed))
    }
    pub fn set_muted(&self, muted: bool) {
        self.shared.muted.store(muted, Ordering::Relaxed);
    }
    pub fn muted(&self) -> bool {
        self.shared.muted.load(Ordering::Relaxed)
    }
    pub fn device_state(&self) -> DeviceState {
        lock(&self.shared.device_state).clone()
    }

    /// How long after the device takes a frame it is heard, as the device last reported
    /// it (0 without a device or when the device does not say). `Playback::position_secs`
    /// counts frames taken; what is heard at that moment is about this much earlier.
    pub fn output_latency_secs(&self) -> f64 {
        match *lock(&self.shared.device_state) {
            DeviceState::Ready { .. } => {
                f64::from_bits(self.shared.latency_bits.load(Ordering::Relaxed))
            }
            DeviceState::Unavailable { .. } => 0.0,
        }
    }

    /// The rate and channel count sound is sent to the device (or capture) at.
    pub fn output_format(&self) -> Option<(u32, u16)> {
        lock(&self.shared.format).map(|f| (f.rate_hz, f.channels))
    }

    /// Tests: behave as if the device reported a fatal error (unplugged, ALSA error).
    #[doc(hidden)]
    pub fn simulate_device_error(&self, reason: &str) {
        *lock(&self.shared.device_failed) = Some(reason.to_string());
        self.waker.wake();
    }
}

fn sanitize_volume(v: f32) -> f32 {
    if v.is_finite() {
        v.clamp(0.0, 1.0)
    } else {
        1.0
    }
}

/// One loaded sound. Dropping it unloads it (and stops its sound).
pub struct Playback {
    voice: Arc<Voice>,
    shared: Arc<Shared>,
    waker: Waker,
}

impl std::fmt::Debug for Playback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Playback")
            .field("id", &self.voice.id)
            .field("state", &self.state())
            .field("position_secs", &self.position_secs())
            .finish()
    }
}

impl Playback {
    pub fn id(&self) -> u64 {
        self.voice.id
    }

    /// Makes this sound the output's one sound, pausing the one that was playing.
    fn take_output(&self, state: PlaybackState) {
        {
            let mut current = lock(&self.shared.current);
            if let Some(other) = current.as_ref()
                && other.id != self.voice.id
                && other.state() == PlaybackState::Playing
            {
                other.set_state(PlaybackState::PausedByOther);
            }
            *current = Some(self.voice.clone());
            self.voice.set_state(state);
        }
        self.waker.wake();
    }

    pub fn play(&self) {
        if self.voice.state() == PlaybackState::Ended {
            self.voice.request_seek(0.0);
        }
        self.take_output(PlaybackState::Playing);
    }

    pub fn pause(&self) {
        let current = lock(&self.shared.current);
        match self.voice.state() {
            PlaybackState::Playing | PlaybackState::PausedByOther => {
                self.voice.set_state(PlaybackState::Paused)
            }
            PlaybackState::Paused | PlaybackState::Ended => {}
        }
        drop(current);
        self.waker.wake();
    }

    pub fn toggle(&self) {
        if self.voice.state() == PlaybackState::Playing {
            self.pause();
        } else {
            self.play();
        }
    }

    /// The next sound heard is at `time_secs` (clamped to the sound). A sound that had
    /// ended is paused there.
    pub fn seek(&self, time_secs: f64) {
        let t = self.voice.clamp_time(time_secs);
        self.voice.request_seek(t);
        let _current = lock(&self.shared.current);
        if self.voice.state() == PlaybackState::Ended {
            self.voice.set_state(PlaybackState::Paused);
        }
        drop(_current);
        self.waker.wake();
    }

    /// Loop `start..end` seconds over and over (whole file: `Some((0.0, duration))`);
    /// None = play to the end. A playhead outside the range jumps to its start.
    pub fn set_loop(&self, range: Option<(f64, f64)>) {
        let range = range.and_then(|(a, b)| {
            let a = self.voice.clamp_time(a);
            let b = self.voice.clamp_time(b);
            // Shorter than 10 ms: no loop (it would only buzz).
            (b - a >= 0.01).then_some((a, b))
        });
        let pos = self.voice.position();
        let restart = match range {
            Some((a, b)) if pos < a || pos >= b => a,
            _ => pos,
        };
        lock(&self.voice.queue).loop_range = range;
        // What was decoded ahead may already run past the new end: decode again from here.
        self.voice.request_seek(restart);
        let _current = lock(&self.shared.current);
        if range.is_some() && self.voice.state() == PlaybackState::Ended {
            self.voice.set_state(PlaybackState::Paused);
        }
        drop(_current);
        self.waker.wake();
    }

    /// The loop set by [`Playback::set_loop`].
    pub fn loop_range(&self) -> Option<(f64, f64)> {
        lock(&self.voice.queue).loop_range
    }

    /// The shared clock: the time of the next sample the device takes (frames the device
    /// consumed ÷ rate, from the last seek); advances on the wall clock when there is no
    /// device. Cheap (atomics).
    pub fn position_secs(&self) -> f64 {
        self.voice.position()
    }

    pub fn state(&self) -> PlaybackState {
        self.voice.state()
    }

    pub fn duration_secs(&self) -> Option<f64> {
        self.voice.duration_secs
    }

    /// The sound's own rate and channel count.
    pub fn source_format(&self) -> (u32, u16) {
        (self.voice.source_rate_hz, self.voice.source_channels)
    }
}

impl Drop for Playback {
    fn drop(&mut self) {
        let mut current = lock(&self.shared.current);
        if current.as_ref().is_some_and(|v| v.id == self.voice.id) {
            *current = None;
        }
        drop(current);
        self.waker.wake();
    }
}

/// Linear-interpolation rate conversion (with channel mapping), continuous across blocks.
#[derive(Default)]
struct Resampler {
    /// Fractional read position into the pending input, in input frames.
    frac: f64,
    /// The last input frame of the previous block (interpolation across the boundary).
    last: Option<[f32; 2]>,
}

impl Resampler {
    fn reset(&mut self) {
        self.frac = 0.0;
        self.last = None;
    }

    /// Converts `input` (interleaved, `in_channels`, `in_rate`) and appends to `out`
    /// (interleaved, `to` format).
    fn process(
        &mut self,
        input: &[f32],
        in_channels: usize,
        in_rate: u32,
        to: Format,
        out: &mut Vec<f32>,
    ) {
        let frame = |i: usize| -> [f32; 2] {
            let f = &input[i * in_channels..(i + 1) * in_channels];
            if in_channels == 1 {
                [f[0], f[0]]
            } else {
                [f[0], f[1]]
            }
        };
        let frames = input.len() / in_channels.max(1);
        if frames == 0 {
            return;
        }
        let push = |out: &mut Vec<f32>, v: [f32; 2]| {
            if to.channels == 1 {
                out.push((v[0] + v[1]) * 0.5);
            } else {
                out.push(v[0]);
                out.push(v[1]);
                for _ in 2..to.channels {
                    out.push(0.0);
                }
            }
        };
        if in_rate == to.rate_hz {
            for i in 0..frames {
                push(out, frame(i));
            }
            self.last = Some(frame(frames - 1));
            return;
        }
        let step = in_rate as f64 / to.rate_hz as f64;
        // Position -1 is `last` (the previous block's final frame).
        let mut pos = self.frac;
        out.reserve(((frames as f64 / step) as usize + 2) * to.channels as usize);
        loop {
            let i = pos.floor();
            let t = (pos - i) as f32;
            let i = i as isize;
            // Interpolate between frame i-1 and i (so we never need a future frame).
            if i >= frames as isize {
                break;
            }
            let a = if i - 1 < 0 {
                self.last.unwrap_or_else(|| frame(0))
            } else {
                frame((i - 1) as usize)
            };
            let b = frame(i as usize);
            push(out, [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]);
            pos += step;
        }
        self.frac = pos - frames as f64;
        self.last = Some(frame(frames - 1));
    }
}

impl DecodeState {
    /// Decodes until the voice's queue holds `DECODE_AHEAD_SECS`. Returns false when the
    /// source failed (the sound then ends).
    fn top_up(&mut self, voice: &Voice, format: Format, ahead_secs: f64) {
        let target = (ahead_secs * format.rate_hz as f64) as usize * format.channels as usize;
        let mut guard_steps = 0u32;
        loop {
            // Take requests (a seek, the loop) and see how much is queued.
            let (seek, loop_range, generation, queued) = {
                let mut q = lock(&voice.queue);
                if q.format != Some(format) {
                    // The output format changed (a device came or went): decode again from
                    // the clock.
                    q.format = Some(format);
                    q.chunks.clear();
                    q.queued = 0;
                    q.generation += 1;
                    q.eof = false;
                    if q.pending_seek.is_none() {
                        q.pending_seek = Some(voice.position());
                    }
                }
                (q.pending_seek.take(), q.loop_range, q.generation, q.queued)
            };
            if let Some(t) = seek {
                self.seek(t);
            }
            if self.generation != generation {
                self.generation = generation;
            }
            if self.format != Some(format) {
                self.format = Some(format);
                self.resampler.reset();
            }
            if queued >= target || (self.eof && loop_range.is_none()) || self.failed {
                return;
            }
            guard_steps += 1;
            if guard_steps > 64 {
                return;
            }
            // Decode one block (up to the loop's end).
            let channels = voice.source_channels as usize;
            let rate = voice.source_rate_hz as f64;
            let mut max_frames = DECODE_BLOCK_FRAMES;
            if let Some((_, end)) = loop_range {
                let left = ((end - self.decode_secs) * rate).round();
                max_frames = max_frames.min(left.max(0.0) as usize);
            }
            self.block.resize(max_frames * channels, 0.0);
            let read = if max_frames == 0 {
                Ok(0)
            } else {
                self.source.read(&mut self.block)
            };
            let n = match read {
                Ok(n) => n / channels,
                Err(e) => {
                    tracing::warn!("audio: decoding stopped: {e}");
                    self.failed = true;
                    0
                }
            };
            let start_secs = self.decode_secs;
            let mut samples = Vec::new();
            if n > 0 {
                self.resampler.process(
                    &self.block[..n * channels],
                    channels,
                    voice.source_rate_hz,
                    format,
                    &mut samples,
                );
                self.decode_secs += n as f64 / rate;
            }
            let at_end = n == 0;
            let wrap = match loop_range {
                Some((a, b)) if at_end || self.decode_secs >= b - 0.5 / rate => Some(a),
                _ => None,
            };
            {
                let mut q = lock(&voice.queue);
                if q.generation != self.generation || q.pending_seek.is_some() {
                    continue; // A seek came in meanwhile: start again from it.
                }
                if !samples.is_empty() {
                    q.queued += samples.len();
                    q.chunks.push_back(Chunk {
                        start_secs,
                        samples,
                        pos: 0,
                    });
                }
                if at_end && wrap.is_none() || self.failed {
                    self.eof = true;
                    q.eof = true;
                }
            }
            if let Some(a) = wrap {
                if at_end && start_secs <= a + 1e-9 {
                    // The loop start itself yields nothing: stop looping.
                    self.eof = true;
                    lock(&voice.queue).eof = true;
                    return;
                }
                self.seek_source(a);
            }
        }
    }

    fn seek(&mut self, t: f64) {
        self.seek_source(t);
        self.resampler.reset();
    }

    /// Seeks the source only (a loop wrap keeps the resampler going: seamless).
    fn seek_source(&mut self, t: f64) {
        self.eof = false;
        self.decode_secs = t;
        if let Err(e) = self.source.seek(t) {
            tracing::warn!("audio: seeking failed: {e}");
            self.failed = true;
        } else {
            self.failed = false;
        }
    }
}

/// The device the thread has open.
struct OpenDevice {
    /// None: closed while idle (see `OutputThread::step`).
    stream: Option<cpal::Stream>,
    format: Format,
    name: String,
    running: bool,
}

enum Mode {
    Device(OpenDevice),
    /// No device: consume on the wall clock (recording for a capture).
    WallClock {
        capture: Option<CaptureSink>,
        since: Option<Instant>,
        frames_done: u64,
    },
}

struct OutputThread {
    shared: Arc<Shared>,
    device: OutputDevice,
    rx: Receiver<()>,
    mode: Mode,
    last_attempt: Option<Instant>,
    scratch: Vec<f32>,
    logged_unavailable: bool,
}

impl OutputThread {
    fn new(shared: Arc<Shared>, device: OutputDevice, rx: Receiver<()>) -> OutputThread {
        let capture = match &device {
            OutputDevice::Capture(sink) => Some(sink.clone()),
            _ => None,
        };
        OutputThread {
            shared,
            device,
            rx,
            mode: Mode::WallClock {
                capture,
                since: None,
                frames_done: 0,
            },
            last_attempt: None,
            scratch: Vec::new(),
            logged_unavailable: false,
        }
    }

    fn run(mut self, ready: SyncSender<()>) {
        self.open_device();
        let _ = ready.try_send(());
        loop {
            let playing = self.shared.current_playing().is_some();
            let timeout = match (&self.mode, playing) {
                (_, true) => TICK,
                // No device and nothing playing: look again now and then (a `play`
                // wakes the thread and retries at once).
                (Mode::WallClock { capture: None, .. }, false) => RETRY_IDLE_EVERY,
                (_, false) => Duration::from_secs(3600),
            };
            match self.rx.recv_timeout(timeout) {
                Ok(()) | Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    // Every AudioOutput and Playback is gone.
                    return;
                }
            }
            while self.rx.try_recv().is_ok() {}
            self.step();
        }
    }

    fn step(&mut self) {
        let failed = lock(&self.shared.device_failed).take();
        if let Some(reason) = failed
            && matches!(self.mode, Mode::Device(_))
        {
            self.set_unavailable(format!("the sound device stopped working ({reason})"));
            // Try again in a few seconds, not at once.
            self.last_attempt = Some(Instant::now());
        }
        if matches!(self.mode, Mode::WallClock { capture: None, .. })
            && self.last_attempt.is_none_or(|t| t.elapsed() >= RETRY_EVERY)
        {
            self.open_device();
        }
        let format = match &self.mode {
            Mode::Device(d) => d.format,
            Mode::WallClock { .. } => Format {
                rate_hz: CAPTURE_RATE_HZ,
                channels: CAPTURE_CHANNELS,
            },
        };
        *lock(&self.shared.format) = Some(format);
        // Decode a little for the sound that has the output (also while paused, so `play`
        // starts at once), start or stop the device, then decode the rest ahead.
        let current = lock(&self.shared.current).clone();
        if let Some(voice) = &current {
            lock(&voice.decode).top_up(voice, format, FIRST_DECODE_SECS);
        }
        let playing = current
            .as_ref()
            .is_some_and(|v| v.state() == PlaybackState::Playing);
        let mut failure = None;
        match &mut self.mode {
            Mode::Device(device) => {
                if playing && !device.running {
                    if device.stream.is_none() {
                        // Closed while idle (the device cannot pause): open it again.
                        match open_stream(device_name(&self.device), self.shared.clone()) {
                            Ok(reopened) => *device = reopened,
                            Err(reason) => failure = Some(reason),
                        }
                    }
                    if let Some(stream) = &device.stream {
                        match stream.play() {
                            Ok(()) => device.running = true,
                            Err(e) => {
                                failure = Some(format!("the sound device did not start ({e})"))
                            }
                        }
                    }
                } else if !playing && device.running {
                    // Nothing plays: stop the device so an idle studio costs nothing. A
                    // device that cannot pause (ALSA's null PCM) is closed instead.
                    if let Some(stream) = &device.stream
                        && stream.pause().is_err()
                    {
                        device.stream = None;
                    }
                    device.running = false;
                }
            }
            Mode::WallClock {
                capture,
                since,
                frames_done,
            } => {
                if !playing {
                    *since = None;
                    *frames_done = 0;
                } else {
                    let now = Instant::now();
                    let start = *since.get_or_insert(now);
                    let due =
                        (now.duration_since(start).as_secs_f64() * format.rate_hz as f64) as u64;
                    let mut frames = due.saturating_sub(*frames_done);
                    let cap = (MAX_CATCH_UP_SECS * format.rate_hz as f64) as u64;
                    if frames > cap {
                        *frames_done = due - cap;
                        frames = cap;
                    }
                    if frames > 0 {
                        *frames_done += frames;
                        let len = frames as usize * format.channels as usize;
                        self.scratch.resize(len, 0.0);
                        if let Some(voice) = &current {
                            // Make sure enough is decoded for this pull.
                            if voice.pull(&mut self.scratch, format, self.shared.gain()) {
                                self.shared.notify.store(true, Ordering::Release);
                            }
                            if let Some(sink) = capture {
                                sink.record(&self.scratch);
                            }
                        }
                        if let Some(voice) = &current {
                            lock(&voice.decode).top_up(voice, format, DECODE_AHEAD_SECS);
                        }
                    }
                }
            }
        }
        if let Some(reason) = failure {
            self.set_unavailable(reason);
        }
        if let Some(voice) = &current {
            lock(&voice.decode).top_up(voice, format, DECODE_AHEAD_SECS);
        }
        if self.shared.notify.swap(false, Ordering::AcqRel) {
            (self.shared.repaint)();
        }
    }

    fn set_unavailable(&mut self, reason: String) {
        if !self.logged_unavailable {
            tracing::warn!("audio: no sound device: {reason}");
            self.logged_unavailable = true;
        } else {
            tracing::debug!("audio: still no sound device: {reason}");
        }
        self.mode = Mode::WallClock {
            capture: None,
            since: None,
            frames_done: 0,
        };
        let state = DeviceState::Unavailable { reason };
        let changed = {
            let mut s = lock(&self.shared.device_state);
            let changed = *s != state;
            *s = state;
            changed
        };
        if changed {
            (self.shared.repaint)();
        }
    }

    fn open_device(&mut self) {
        self.last_attempt = Some(Instant::now());
        if matches!(self.device, OutputDevice::Capture(_)) {
            *lock(&self.shared.device_state) = DeviceState::Ready {
                name: "capture".into(),
            };
            return;
        }
        match open_stream(device_name(&self.device), self.shared.clone()) {
            Ok(device) => {
                tracing::info!(
                    "audio: output on {} at {} Hz, {} channels",
                    device.name,
                    device.format.rate_hz,
                    device.format.channels
                );
                *lock(&self.shared.device_state) = DeviceState::Ready {
                    name: device.name.clone(),
                };
                *lock(&self.shared.device_failed) = None;
                self.logged_unavailable = false;
                self.mode = Mode::Device(device);
                (self.shared.repaint)();
            }
            Err(reason) => self.set_unavailable(reason),
        }
    }
}

/// The cpal device id asked for (None: the default device).
fn device_name(device: &OutputDevice) -> Option<&str> {
    match device {
        OutputDevice::Named(n) => Some(n),
        OutputDevice::Default | OutputDevice::Capture(_) => None,
    }
}

/// Whether a cpal stream error means the device is gone.
fn is_fatal(kind: cpal::ErrorKind) -> bool {
    !matches!(
        kind,
        cpal::ErrorKind::Xrun | cpal::ErrorKind::RealtimeDenied | cpal::ErrorKind::DeviceChanged
    )
}

fn open_stream(name: Option<&str>, shared: Arc<Shared>) -> Result<OpenDevice, String> {
    let host = cpal::default_host();
    let device = match name {
        None => host
            .default_output_device()
            .ok_or_else(|| "there is no default sound device".to_string())?,
        Some(wanted) => host
            .output_devices()
            .map_err(|e| format!("the sound devices could not be listed ({e})"))?
            .find(|d| d.id().is_ok_and(|id| id.id() == wanted))
            .ok_or_else(|| format!("there is no sound device called \"{wanted}\""))?,
    };
    let label = name.unwrap_or("default").to_string();
    let supported = device
        .default_output_config()
        .map_err(|e| format!("the sound device \"{label}\" cannot be used ({e})"))?;
    let mut config = supported.config();
    let format = Format {
        rate_hz: config.sample_rate,
        channels: config.channels.max(1),
    };
    // About 20 ms per callback when the device allows choosing.
    if let cpal::SupportedBufferSize::Range { min, max } = supported.buffer_size() {
        let want = (format.rate_hz / 50).clamp(*min, *max);
        config.buffer_size = cpal::BufferSize::Fixed(want);
    }
    let sample_format = supported.sample_format();
    let build = |config: cpal::StreamConfig| -> Result<cpal::Stream, cpal::Error> {
        use cpal::SampleFormat as F;
        match sample_format {
            F::F32 => build_stream::<f32>(&device, config, format, shared.clone()),
            F::F64 => build_stream::<f64>(&device, config, format, shared.clone()),
            F::I16 => build_stream::<i16>(&device, config, format, shared.clone()),
            F::I32 => build_stream::<i32>(&device, config, format, shared.clone()),
            F::I8 => build_stream::<i8>(&device, config, format, shared.clone()),
            F::U8 => build_stream::<u8>(&device, config, format, shared.clone()),
            F::U16 => build_stream::<u16>(&device, config, format, shared.clone()),
            F::U32 => build_stream::<u32>(&device, config, format, shared.clone()),
            _ => Err(cpal::Error::new(cpal::ErrorKind::UnsupportedConfig)),
        }
    };
    let stream = build(config)
        .or_else(|_| {
            let mut fallback = config;
            fallback.buffer_size = cpal::BufferSize::Default;
            build(fallback)
        })
        .map_err(|e| format!("the sound device \"{label}\" could not be opened ({e})"))?;
    // Stays paused until something plays.
    let _ = stream.pause();
    Ok(OpenDevice {
        stream: Some(stream),
        format,
        name: label,
        running: false,
    })
}

fn build_stream<T>(
    device: &cpal::Device,
    config: cpal::StreamConfig,
    format: Format,
    shared: Arc<Shared>,
) -> Result<cpal::Stream, cpal::Error>
where
    T: cpal::SizedSample + cpal::FromSample<f32>,
{
    let mut scratch: Vec<f32> = Vec::new();
    let data_shared = shared.clone();
    let waker_shared = shared;
    device.build_output_stream::<T, _, _>(
        config,
        move |data: &mut [T], info: &cpal::OutputCallbackInfo| {
            let stamp = info.timestamp();
            let delay = stamp.playback.duration_since(stamp.callback).as_secs_f64();
            data_shared
                .latency_bits
                .store(delay.to_bits(), Ordering::Relaxed);
            scratch.resize(data.len(), 0.0);
            data_shared.mix(&mut scratch, format);
            for (d, s) in data.iter_mut().zip(&scratch) {
                *d = <T as cpal::Sample>::from_sample(*s);
            }
        },
        move |error: cpal::Error| {
            if is_fatal(error.kind()) {
                *lock(&waker_shared.device_failed) = Some(error.to_string());
                waker_shared.notify.store(true, Ordering::Release);
            }
        },
        None,
    )
}

// The UI keeps the output in egui's context and hands playbacks between threads.
const _: () = {
    const fn send_sync<T: Send + Sync + Clone + 'static>() {}
    const fn send<T: Send + 'static>() {}
    send_sync::<AudioOutput>();
    send::<Playback>();
};
