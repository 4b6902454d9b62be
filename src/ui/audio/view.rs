//! The audio view: what the viewer shows for a sound. A large two-tone waveform (played /
//! to play; click or drag to seek, hover shows the time), an A–B loop region with handles,
//! the time read-out (`m:ss.t / m:ss.t`), play/pause, loop and the two saves (the file's
//! own format and WAV), the item's title and lyrics. A sound that cannot be decoded says
//! why once, with Details and "Open in system player", and asks for no more frames.
//!
//! Keys (the viewer hands them over while it is on top and no text field has focus):
//! Space play/pause, K pause, J back 5 s, ←/→ ∓1 s, I / O set the loop's A / B at the
//! playhead, L turns the loop on or off. Repaints run only while the sound plays.

use super::sounds::{self, SoundLookup};
use super::time::clock;
use super::waveform::Waveform;
use crate::audio::PlaybackState;
use crate::engine::Command;
use crate::ui::icons::Icon;
use crate::ui::model::Action;
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{Key, Modifiers, RichText, Ui};
use std::time::Duration;

/// J jumps back this far.
pub const JUMP_SECS: f64 = 5.0;
/// The arrows move this far.
pub const ARROW_SECS: f64 = 1.0;
/// Frame interval while playing: 30 a second keeps the playhead and the tenths of the
/// read-out smooth at half the cost of 60 (each frame redraws the studio); nothing runs
/// while paused.
const PLAYING_REPAINT: Duration = Duration::from_millis(33);

/// The view's own state for the sound on screen.
#[derive(Default)]
pub struct AudioViewState {
    url: Option<String>,
    /// The A–B markers (A < B), whether or not the loop is on.
    region: Option<(f64, f64)>,
    /// Only A set so far (B defaults to the end when the loop goes on).
    mark_a: Option<f64>,
    loop_on: bool,
    /// Start playing once the sound is open (opened from a tile's ▶).
    autoplay: bool,
    /// Loaded into the output once (paused) when it first showed; later it is loaded again
    /// only on Play, so another panel's sound is never taken over behind its back.
    opened: bool,
}

/// What the rest of the studio needs to say about the sound on screen.
pub struct AudioFacts<'a> {
    pub url: &'a str,
    pub title: &'a str,
    pub lyrics: Option<&'a str>,
}

impl AudioViewState {
    /// Show `url` (a new sound clears the loop; the previous one is unloaded).
    pub fn set_source(&mut self, ctx: &egui::Context, url: &str) {
        if self.url.as_deref() == Some(url) {
            return;
        }
        // Asked to play before any source was given (`--play`): the first source plays.
        let autoplay = self.autoplay && self.url.is_none();
        self.close(ctx);
        *self = Self {
            url: Some(url.to_owned()),
            autoplay,
            ..Self::default()
        };
    }

    /// Start playing once the sound is ready.
    pub fn play_when_ready(&mut self) {
        self.autoplay = true;
    }

    /// The view closed or moved on: stop and unload its sound.
    pub fn close(&mut self, ctx: &egui::Context) {
        if let Some(url) = self.url.take() {
            sounds::release(ctx, &url);
        }
        *self = Self::default();
    }

    pub fn url(&self) -> Option<&str> {
        self.url.as_deref()
    }

    /// The loop region and whether it is on (tests).
    pub fn loop_region(&self) -> (Option<(f64, f64)>, bool) {
        (self.region, self.loop_on)
    }

    /// The keys of the audio view. Call before the viewer's own keys (the arrows seek here).
    pub fn keyboard_input(&mut self, ctx: &egui::Context) {
        if ctx.text_edit_focused() || egui::Popup::is_any_open(ctx) {
            return;
        }
        let Some(url) = self.url.clone() else {
            return;
        };
        let (mut toggle, mut pause, mut jump, mut set_a, mut set_b, mut flip_loop) =
            (false, false, 0.0, false, false, false);
        ctx.input_mut(|i| {
            toggle = i.consume_key(Modifiers::NONE, Key::Space);
            pause = i.consume_key(Modifiers::NONE, Key::K);
            let mut presses = |key| f64::from(i.count_and_consume_key(Modifiers::NONE, key) as u32);
            jump -= presses(Key::J) * JUMP_SECS;
            jump -= presses(Key::ArrowLeft) * ARROW_SECS;
            jump += presses(Key::ArrowRight) * ARROW_SECS;
            set_a = i.consume_key(Modifiers::NONE, Key::I);
            set_b = i.consume_key(Modifiers::NONE, Key::O);
            flip_loop = i.consume_key(Modifiers::NONE, Key::L);
        });
        let playback = sounds::playback(ctx, &url);
        if toggle {
            sounds::toggle(ctx, &url);
        }
        if pause && let Some(p) = &playback {
            p.pause();
        }
        let duration = playback
            .as_ref()
            .and_then(|p| p.duration_secs())
            .or_else(|| loaded_duration(ctx, &url));
        if jump != 0.0
            && let Some(p) = &playback
        {
            let target = (p.position_secs() + jump).max(0.0);
            p.seek(duration.map_or(target, |d| target.min(d)));
            ctx.request_repaint();
        }
        let at = playback.as_ref().map_or(0.0, |p| p.position_secs());
        if set_a {
            self.set_a(at, duration);
            self.apply_loop(ctx, &url, duration);
        }
        if set_b {
            self.set_b(at);
            self.apply_loop(ctx, &url, duration);
        }
        if flip_loop {
            self.loop_on = !self.loop_on;
            self.apply_loop(ctx, &url, duration);
        }
    }

    fn set_a(&mut self, at: f64, duration: Option<f64>) {
        match self.region {
            Some((_, b)) if at < b => self.region = Some((at, b)),
            _ => {
                self.mark_a = Some(at);
                self.region = duration.filter(|d| *d > at).map(|d| (at, d));
            }
        }
        // Marking a region is asking for it to loop.
        self.loop_on = self.region.is_some();
    }

    fn set_b(&mut self, at: f64) {
        let a = self.region.map(|(a, _)| a).or(self.mark_a).unwrap_or(0.0);
        if at > a {
            self.region = Some((a, at));
            self.loop_on = true;
        }
    }

    fn apply_loop(&self, ctx: &egui::Context, url: &str, duration: Option<f64>) {
        let range = if self.loop_on {
            self.region.or_else(|| duration.map(|d| (0.0, d)))
        } else {
            None
        };
        sounds::set_loop(ctx, url, range);
        ctx.request_repaint();
    }

    /// Lay the view out in `ui` (the viewer's left column). Returns the actions of its
    /// buttons (saves, open in the system player).
    pub fn ui(&mut self, ui: &mut Ui, facts: &AudioFacts<'_>) -> Vec<Action> {
        let mut actions = Vec::new();
        let ctx = ui.ctx().clone();
        let url = facts.url;
        if url.is_empty() {
            widgets::notice(
                ui,
                "The service gave no address for this sound.",
                tokens::palette().warning,
            );
            return actions;
        }
        sounds::mark_shown(&ctx, url);
        let sound = match sounds::lookup(&ctx, url) {
            SoundLookup::Loading => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    widgets::muted(ui, "Loading sound…");
                });
                return actions;
            }
            SoundLookup::Failed { error, detail } => {
                failed_ui(ui, url, &error, &detail, &mut actions);
                return actions;
            }
            SoundLookup::Ready(sound) => sound,
        };
        if !self.opened {
            // Loaded at once (paused unless asked to play), so Space and the waveform act.
            sounds::open(&ctx, url, self.autoplay);
            self.opened = true;
            self.autoplay = false;
        }
        let playback = sounds::playback(&ctx, url);
        let duration = playback
            .as_ref()
            .and_then(|p| p.duration_secs())
            .unwrap_or(sound.peaks.duration_secs);
        let position = playback.as_ref().map_or(0.0, |p| p.position_secs());
        let state = playback.as_ref().map(|p| p.state());
        let playing = state == Some(PlaybackState::Playing);

        // Transport: play/pause, the time, the loop, the saves.
        ui.horizontal(|ui| {
            ui.spacing_mut().item_spacing.x = 6.0;
            let (icon, name) = if playing {
                (Icon::Pause, "Pause")
            } else {
                (Icon::Play, "Play")
            };
            let play = widgets::icon_button(ui, icon, name);
            if play.clicked() {
                sounds::toggle(&ctx, url);
            }
            ui.label(
                RichText::new(format!("{} / {}", clock(position), clock(duration)))
                    .monospace()
                    .size(tokens::TEXT_SMALL + 1.0),
            )
            .on_hover_text("Playhead / length");
            ui.separator();
            let set_a = ui
                .add(widgets::subtle_button("Set A"))
                .on_hover_text("Start the loop at the playhead (I)");
            widgets::name_widget(&set_a, "Set loop start");
            if set_a.clicked() {
                self.set_a(position, Some(duration));
                self.apply_loop(&ctx, url, Some(duration));
            }
            let set_b = ui
                .add(widgets::subtle_button("Set B"))
                .on_hover_text("End the loop at the playhead (O)");
            widgets::name_widget(&set_b, "Set loop end");
            if set_b.clicked() {
                self.set_b(position);
                self.apply_loop(&ctx, url, Some(duration));
            }
            let looping = ui
                .add(widgets::toggle_button("Loop", self.loop_on))
                .on_hover_text("Loop A–B, or the whole sound when no region is set (L)");
            widgets::name_widget(&looping, "Loop");
            if looping.clicked() {
                self.loop_on = !self.loop_on;
                self.apply_loop(&ctx, url, Some(duration));
            }
            if self.region.is_some() {
                let clear = ui.add(widgets::subtle_button("Clear loop"));
                widgets::name_widget(&clear, "Clear loop");
                if clear.clicked() {
                    self.region = None;
                    self.mark_a = None;
                    self.loop_on = false;
                    self.apply_loop(&ctx, url, Some(duration));
                }
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let wav = ui
                    .add(widgets::secondary_button("Save as WAV…"))
                    .on_hover_text("Save an uncompressed 16-bit WAV copy");
                widgets::name_widget(&wav, "Save as WAV");
                if wav.clicked() {
                    actions.push(Action::SaveAsWav {
                        url: url.to_owned(),
                    });
                }
                let format = sound.info.codec.clone();
                let own = ui
                    .add(widgets::secondary_button(format!("Save as {format}…")))
                    .on_hover_text("Save the file as it is");
                widgets::name_widget(&own, "Save file");
                if own.clicked() {
                    actions.push(Action::SaveAs {
                        url: url.to_owned(),
                    });
                }
            });
        });
        ui.add_space(tokens::SPACE_S);

        let fraction = if duration > 0.0 {
            (position / duration) as f32
        } else {
            0.0
        };
        let shown_region = if self.loop_on || self.region.is_some() {
            self.region
        } else {
            None
        };
        let height = (ui.available_height() * 0.45).clamp(96.0, 260.0);
        let wave = Waveform::new(&sound.peaks)
            .played_fraction(fraction)
            .loop_region(shown_region)
            .height(height)
            .name(format!("Waveform: {}", facts.title))
            .show(ui);
        if let Some(region) = wave.loop_changed {
            self.region = Some(region);
            self.apply_loop(&ctx, url, Some(duration));
        }
        if let Some(seek) = wave.seek_to_secs
            && let Some(p) = &playback
        {
            p.seek(seek);
            ctx.request_repaint();
        }
        ui.add_space(tokens::SPACE_XS);
        ui.horizontal(|ui| {
            let codec = &sound.info.codec;
            let rate_khz = f64::from(sound.info.sample_rate_hz) / 1000.0;
            let channels = match sound.info.channels {
                1 => "mono".to_owned(),
                2 => "stereo".to_owned(),
                n => format!("{n} channels"),
            };
            widgets::muted(ui, format!("{codec} · {rate_khz:.1} kHz · {channels}"));
            if let Some((a, b)) = self.region {
                widgets::muted(ui, format!("· Loop {} – {}", clock(a), clock(b)));
            }
            if state == Some(PlaybackState::PausedByOther) {
                widgets::muted(ui, "· Paused: another sound is playing");
            }
        });
        if let Some(lyrics) = facts.lyrics.filter(|l| !l.trim().is_empty()) {
            ui.add_space(tokens::SPACE_S);
            widgets::section_label(ui, "Lyrics");
            egui::ScrollArea::vertical()
                .id_salt("audio_lyrics")
                .max_height(ui.available_height().max(60.0))
                .show(ui, |ui| {
                    ui.label(lyrics);
                });
        }
        if playing {
            ctx.request_repaint_after(PLAYING_REPAINT);
        }
        actions
    }
}

fn loaded_duration(ctx: &egui::Context, url: &str) -> Option<f64> {
    match sounds::lookup(ctx, url) {
        SoundLookup::Ready(sound) => Some(sound.peaks.duration_secs),
        _ => None,
    }
}

/// Why the sound cannot play, once, with the raw error under Details and the way out.
fn failed_ui(ui: &mut Ui, url: &str, error: &str, detail: &str, actions: &mut Vec<Action>) {
    widgets::notice(ui, error, tokens::palette().danger);
    if !detail.is_empty() {
        egui::CollapsingHeader::new("Details")
            .id_salt("audio_failure_details")
            .show(ui, |ui| {
                ui.label(RichText::new(detail).monospace().size(tokens::TEXT_SMALL));
            });
    }
    ui.add_space(tokens::SPACE_S);
    let open = ui
        .add(widgets::secondary_button("Open in system player"))
        .on_hover_text("Open the file with the computer's own player");
    widgets::name_widget(&open, "Open in system player");
    if open.clicked() {
        actions.push(Action::Send(Box::new(Command::OpenInSystemViewer {
            url: url.to_owned(),
        })));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_then_b_marks_a_loop_and_b_before_a_is_refused() {
        let mut view = AudioViewState::default();
        view.set_a(2.0, Some(10.0));
        assert_eq!(view.region, Some((2.0, 10.0)), "A alone loops to the end");
        assert!(view.loop_on);
        view.set_b(5.0);
        assert_eq!(view.region, Some((2.0, 5.0)));
        view.set_b(1.0);
        assert_eq!(view.region, Some((2.0, 5.0)), "B before A changes nothing");
        view.set_a(4.0, Some(10.0));
        assert_eq!(view.region, Some((4.0, 5.0)), "A moves inside the region");
        view.set_a(7.0, Some(10.0));
        assert_eq!(
            view.region,
            Some((7.0, 10.0)),
            "A past B starts a new region"
        );
    }
}
