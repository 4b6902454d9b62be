//! The studio's one audio output, reachable from any panel through egui's context.
use crate::audio::AudioOutput;

fn id() -> egui::Id {
    egui::Id::unique("framewright-audio-output")
}

/// Makes `output` the studio's audio output (the app does this once at start).
pub fn install(ctx: &egui::Context, output: AudioOutput) {
    ctx.data_mut(|d| d.insert_temp(id(), output));
}

/// The studio's audio output, if the app installed one.
pub fn output(ctx: &egui::Context) -> Option<AudioOutput> {
    ctx.data(|d| d.get_temp::<AudioOutput>(id()))
}

/// The variable that picks the output device: `capture` records samples in memory (tests,
/// no device), `null` plays to ALSA's null device; unset or anything else is the system's
/// default device.
pub const DEVICE_ENV: &str = "FRAMEWRIGHT_AUDIO";

/// The device `FRAMEWRIGHT_AUDIO` asks for.
pub fn device_from_env() -> crate::audio::OutputDevice {
    use crate::audio::{CaptureSink, OutputDevice};
    match std::env::var(DEVICE_ENV).ok().as_deref().map(str::trim) {
        Some("capture") => OutputDevice::Capture(CaptureSink::new()),
        Some("null") => OutputDevice::Named("null".to_owned()),
        _ => OutputDevice::Default,
    }
}

/// What the studio remembers of its sound between runs (settings `ui.panels.sound`).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct SoundMemory {
    /// 0..=1.
    pub volume: f32,
    pub muted: bool,
}

impl Default for SoundMemory {
    fn default() -> Self {
        Self {
            volume: 0.8,
            muted: false,
        }
    }
}

/// The key under `UiMemory::panels`.
pub const PANEL_KEY: &str = "sound";

impl SoundMemory {
    /// Read leniently: anything unreadable is the default; the volume is clamped.
    pub fn from_value(value: Option<&serde_json::Value>) -> Self {
        let memory: Self = value
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default();
        Self {
            volume: if memory.volume.is_finite() {
                memory.volume.clamp(0.0, 1.0)
            } else {
                Self::default().volume
            },
            muted: memory.muted,
        }
    }

    pub fn to_value(self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }

    /// The output's current volume and mute.
    pub fn of(output: &AudioOutput) -> Self {
        Self {
            volume: output.volume(),
            muted: output.muted(),
        }
    }
}

/// M toggles mute anywhere (not while typing in a text field).
pub fn mute_key(ctx: &egui::Context) {
    if ctx.text_edit_focused() {
        return;
    }
    if ctx.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::M))
        && let Some(output) = output(ctx)
    {
        output.set_muted(!output.muted());
        ctx.request_repaint();
    }
}

/// The status bar's sound control: a speaker button that mutes and unmutes ("Mute all
/// sound" / "Unmute all sound"), a volume slider ("Studio volume"; the player's own
/// controls are named "Mute" and "Volume", and act on the same output), and "No audio output" (the reason on hover) while
/// the device is unavailable. Laid out right to left (the status bar's right end). Acts on
/// the output directly; the app remembers the values.
pub fn volume_control_ui(ui: &mut egui::Ui) {
    use crate::audio::DeviceState;
    use crate::ui::{tokens, widgets};
    let Some(output) = output(ui.ctx()) else {
        return;
    };
    let muted = output.muted();
    let mut volume = output.volume();
    let slider = ui
        .add_sized(
            [72.0, 16.0],
            egui::Slider::new(&mut volume, 0.0..=1.0).show_value(false),
        )
        .on_hover_text(format!("Volume {:.0} %", volume * 100.0));
    widgets::name_widget(&slider, "Studio volume");
    if slider.changed() {
        output.set_volume(volume);
        if muted && volume > 0.0 {
            output.set_muted(false);
        }
    }
    let icon = if muted || volume <= 0.0 {
        crate::ui::icons::Icon::SpeakerMuted
    } else {
        crate::ui::icons::Icon::Speaker
    };
    let name = if muted {
        "Unmute all sound"
    } else {
        "Mute all sound"
    };
    let button = widgets::icon_button(ui, icon, name);
    if button.clicked() {
        output.set_muted(!muted);
    }
    // "starting": the output thread has not tried the device yet; nothing to say.
    if let DeviceState::Unavailable { reason } = output.device_state()
        && reason != "starting"
    {
        ui.label(
            egui::RichText::new("No audio output")
                .size(tokens::TEXT_SMALL)
                .color(tokens::palette().warning),
        )
        .on_hover_text(format!(
            "The studio cannot reach a sound device; sounds play silently until one \
             returns.\n\n{reason}"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembered_sound_is_read_leniently() {
        assert_eq!(SoundMemory::from_value(None), SoundMemory::default());
        let odd = serde_json::json!({"volume": 3.5, "muted": true});
        assert_eq!(
            SoundMemory::from_value(Some(&odd)),
            SoundMemory {
                volume: 1.0,
                muted: true
            }
        );
        let junk = serde_json::json!("loud");
        assert_eq!(SoundMemory::from_value(Some(&junk)), SoundMemory::default());
        let kept = SoundMemory {
            volume: 0.25,
            muted: false,
        };
        assert_eq!(SoundMemory::from_value(Some(&kept.to_value())), kept);
    }
}
