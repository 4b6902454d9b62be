//! The shell's share of sound: the studio's one `AudioOutput`, created at start with the
//! remembered volume and mute (device from `FRAMEWRIGHT_AUDIO`, see `ui::sound`) and
//! installed into egui's context; the engine's audio answers handed to the shared sound
//! state; loads asked for during layout sent after it; volume and mute remembered.

use super::StudioApp;
use crate::audio::{AudioOutput, OutputConfig};
use crate::engine::{AudioCommand, AudioEvent, Command};
use crate::session::Session;
use crate::ui::audio::sounds::{self, LoadedSound};
use crate::ui::sound::{self, PANEL_KEY, SoundMemory};
use std::sync::Arc;

/// Start the output (unless a test installed one already) and apply the remembered volume
/// and mute to it.
pub(super) fn start_output(ctx: &egui::Context, session: &Session) -> SoundMemory {
    let memory = SoundMemory::from_value(session.ui_memory().panels.get(PANEL_KEY));
    match sound::output(ctx) {
        Some(output) => {
            output.set_volume(memory.volume);
            output.set_muted(memory.muted);
        }
        None => {
            let repaint_ctx = ctx.clone();
            let output = AudioOutput::start(
                OutputConfig {
                    device: sound::device_from_env(),
                    volume: memory.volume,
                    muted: memory.muted,
                },
                Arc::new(move || repaint_ctx.request_repaint()),
            );
            sound::install(ctx, output);
        }
    }
    memory
}

impl StudioApp {
    pub(super) fn sound_event(&mut self, ctx: &egui::Context, event: AudioEvent) {
        match event {
            AudioEvent::Loaded {
                url,
                path,
                peaks,
                info,
            } => sounds::loaded(
                ctx,
                LoadedSound {
                    url,
                    path,
                    peaks,
                    info,
                },
            ),
            AudioEvent::Failed { url, error, detail } => sounds::failed(ctx, &url, error, detail),
        }
    }

    /// After layout: pause a sound no panel shows any more; load what the panels asked for;
    /// remember a changed volume or mute
    /// (once the pointer is up, so a slider drag writes the settings once).
    pub(super) fn sound_frame(&mut self, ctx: &egui::Context) {
        sounds::end_frame(ctx);
        for url in sounds::take_wanted(ctx) {
            self.send(Command::Audio(AudioCommand::Load { url }));
        }
        let Some(output) = sound::output(ctx) else {
            return;
        };
        let now = SoundMemory::of(&output);
        if now != self.sound_memory && !ctx.input(|i| i.pointer.any_down()) {
            self.sound_memory = now;
            self.session
                .update_ui_memory(|m| _ = m.panels.insert(PANEL_KEY.to_owned(), now.to_value()));
        }
    }

    /// The studio's volume and mute as last remembered (tests).
    pub fn sound_memory(&self) -> SoundMemory {
        self.sound_memory
    }
}
