//! The studio's shared sound state, kept in egui's context so any panel reaches it: the
//! sounds loaded by the engine (by URL) and the one sound loaded into the output.
//!
//! During layout a panel calls [`lookup`] (an unknown URL becomes a wish the app sends as
//! `AudioCommand::Load` after layout, see [`take_wanted`]), [`toggle`] / [`play`] to hear a
//! loaded sound, and [`playback`] for the position, state and loop of the one playing.
//! Opening the cached file into the output runs on a short-lived "audio-open" thread; the
//! playback appears here when it is ready (and a repaint is asked for).

use crate::audio::{AudioInfo, AudioOutput, Peaks, Playback, PlaybackState};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// A sound the engine downloaded and measured.
#[derive(Debug)]
pub struct LoadedSound {
    pub url: String,
    pub path: PathBuf,
    pub peaks: Peaks,
    pub info: Arc<AudioInfo>,
}

/// What a panel gets back for a URL.
#[derive(Clone, Debug)]
pub enum SoundLookup {
    Loading,
    Ready(Arc<LoadedSound>),
    /// `error` in words, `detail` the raw error (Details).
    Failed {
        error: String,
        detail: String,
    },
}

enum Entry {
    Loading,
    Ready(Arc<LoadedSound>),
    Failed { error: String, detail: String },
}

/// The sound loaded into the output (at most one across the studio).
#[derive(Clone)]
pub struct Current {
    pub url: String,
    pub playback: Arc<Playback>,
}

#[derive(Default)]
struct Shared {
    entries: HashMap<String, Entry>,
    wanted: Vec<String>,
    current: Option<Current>,
    /// The URL being opened into the output, and whether to play it once open.
    opening: Option<(String, bool)>,
    /// Loop asked for before the playback was ready.
    pending_loop: Option<Option<(f64, f64)>>,
}

#[derive(Clone, Default)]
struct Handle(Arc<Mutex<Shared>>);

fn id() -> egui::Id {
    egui::Id::unique("framewright-sounds")
}

fn handle(ctx: &egui::Context) -> Handle {
    ctx.data_mut(|d| d.get_temp_mut_or_default::<Handle>(id()).clone())
}

fn with<R>(ctx: &egui::Context, f: impl FnOnce(&mut Shared) -> R) -> R {
    let handle = handle(ctx);
    let mut shared = match handle.0.lock() {
        Ok(shared) => shared,
        Err(poisoned) => poisoned.into_inner(),
    };
    f(&mut shared)
}

/// The sound at `url`: loaded, loading, or why not. An unknown URL is asked for.
pub fn lookup(ctx: &egui::Context, url: &str) -> SoundLookup {
    with(ctx, |s| match s.entries.get(url) {
        Some(Entry::Loading) => SoundLookup::Loading,
        Some(Entry::Ready(sound)) => SoundLookup::Ready(Arc::clone(sound)),
        Some(Entry::Failed { error, detail }) => SoundLookup::Failed {
            error: error.clone(),
            detail: detail.clone(),
        },
        None => {
            s.entries.insert(url.to_owned(), Entry::Loading);
            s.wanted.push(url.to_owned());
            SoundLookup::Loading
        }
    })
}

/// URLs asked for since the last call (the app sends `AudioCommand::Load` for each).
pub fn take_wanted(ctx: &egui::Context) -> Vec<String> {
    with(ctx, |s| std::mem::take(&mut s.wanted))
}

/// The engine's answer to a load.
pub fn loaded(ctx: &egui::Context, sound: LoadedSound) {
    with(ctx, |s| {
        s.entries
            .insert(sound.url.clone(), Entry::Ready(Arc::new(sound)))
    });
}

/// The engine could not load `url`.
pub fn failed(ctx: &egui::Context, url: &str, error: String, detail: String) {
    with(ctx, |s| {
        s.entries
            .insert(url.to_owned(), Entry::Failed { error, detail })
    });
}

/// Forget everything (the service changed); stops the sound.
pub fn clear(ctx: &egui::Context) {
    with(ctx, |s| *s = Shared::default());
}

/// The playback of `url` when it is the sound loaded into the output.
pub fn playback(ctx: &egui::Context, url: &str) -> Option<Arc<Playback>> {
    with(ctx, |s| {
        s.current
            .as_ref()
            .filter(|c| c.url == url)
            .map(|c| Arc::clone(&c.playback))
    })
}

/// The sound loaded into the output, whatever it is.
pub fn current(ctx: &egui::Context) -> Option<Current> {
    with(ctx, |s| s.current.clone())
}

/// Whether `url` is being opened into the output.
pub fn is_opening(ctx: &egui::Context, url: &str) -> bool {
    with(ctx, |s| s.opening.as_ref().is_some_and(|(u, _)| u == url))
}

/// Whether `url` is playing now.
pub fn is_playing(ctx: &egui::Context, url: &str) -> bool {
    playback(ctx, url).is_some_and(|p| p.state() == PlaybackState::Playing)
        || with(ctx, |s| {
            s.opening
                .as_ref()
                .is_some_and(|(u, play)| u == url && *play)
        })
}

/// Play or pause `url` (loaded first: does nothing until it is).
pub fn toggle(ctx: &egui::Context, url: &str) {
    if let Some(playback) = playback(ctx, url) {
        if playback.state() == PlaybackState::Playing {
            playback.pause();
        } else {
            if playback.state() == PlaybackState::Ended {
                playback.seek(0.0);
            }
            playback.play();
        }
        ctx.request_repaint();
        return;
    }
    if is_opening(ctx, url) {
        with(ctx, |s| {
            if let Some((_, play)) = s.opening.as_mut() {
                *play = !*play;
            }
        });
        return;
    }
    open(ctx, url, true);
}

/// Load `url` into the output (paused, or playing when `play`) unless it is loaded already.
/// Whatever played before pauses. Needs the sound loaded ([`lookup`]) and an output.
pub fn open(ctx: &egui::Context, url: &str, play: bool) {
    if playback(ctx, url).is_some() || is_opening(ctx, url) {
        return;
    }
    let SoundLookup::Ready(sound) = lookup(ctx, url) else {
        return;
    };
    let Some(output) = crate::ui::sound::output(ctx) else {
        tracing::warn!("no audio output installed; {url} cannot play");
        return;
    };
    with(ctx, |s| s.opening = Some((url.to_owned(), play)));
    let (shared, thread_ctx) = (handle(ctx), ctx.clone());
    let spawned = std::thread::Builder::new()
        .name("audio-open".to_owned())
        .spawn(move || open_on_thread(&shared, &thread_ctx, &output, &sound));
    if let Err(error) = spawned {
        tracing::warn!("could not start the audio-open thread: {error}");
        with(ctx, |s| s.opening = None);
    }
}

fn open_on_thread(handle: &Handle, ctx: &egui::Context, output: &AudioOutput, sound: &LoadedSound) {
    let opened = crate::audio::open_file(&sound.path);
    let mut shared = match handle.0.lock() {
        Ok(shared) => shared,
        Err(poisoned) => poisoned.into_inner(),
    };
    let play = match shared.opening.take() {
        Some((url, play)) if url == sound.url => play,
        // Something else was asked for meanwhile: leave it be.
        other => {
            shared.opening = other;
            return;
        }
    };
    match opened {
        Ok((source, _info)) => {
            // Drop the old playback first: one sound at a time.
            shared.current = None;
            let playback = output.load(source, play);
            if let Some(range) = shared.pending_loop.take() {
                playback.set_loop(range);
            }
            shared.current = Some(Current {
                url: sound.url.clone(),
                playback: Arc::new(playback),
            });
        }
        Err(error) => {
            tracing::warn!("opening {} to play: {error}", sound.path.display());
            shared.entries.insert(
                sound.url.clone(),
                Entry::Failed {
                    error: crate::engine::audio::person_message(&error),
                    detail: error.to_string(),
                },
            );
        }
    }
    drop(shared);
    ctx.request_repaint();
}

/// Unload `url` if it is the sound in the output (its view closed).
pub fn release(ctx: &egui::Context, url: &str) {
    with(ctx, |s| {
        if s.current.as_ref().is_some_and(|c| c.url == url) {
            s.current = None;
        }
        if s.opening.as_ref().is_some_and(|(u, _)| u == url) {
            s.opening = None;
        }
    });
}

/// Set the loop of `url`'s playback (kept for it when it is still opening).
pub fn set_loop(ctx: &egui::Context, url: &str, range: Option<(f64, f64)>) {
    match playback(ctx, url) {
        Some(playback) => playback.set_loop(range),
        None => with(ctx, |s| s.pending_loop = Some(range)),
    }
}
