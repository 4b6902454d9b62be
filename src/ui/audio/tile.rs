//! The audio tile: a sound as a result or a library item — ▶/⏸, the title, the length, a
//! waveform (hover shows the time under the pointer; a click seeks while it is the sound
//! playing) and the lyrics behind an expander. Used by Create's results (music's two
//! variations side by side), the tray and the Library's detail pane.

use super::sounds::{self, SoundLookup};
use super::time::clock;
use super::waveform::Waveform;
use crate::ui::icons::Icon;
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{RichText, Ui};

/// Height of the waveform in a tile.
pub const TILE_WAVE_HEIGHT: f32 = 56.0;

/// What one audio tile shows.
pub struct AudioTile<'a> {
    /// The sound file.
    pub url: &'a str,
    /// The song's or sound's title ("Sound" when the service gave none).
    pub title: &'a str,
    pub duration_secs: Option<f64>,
    pub lyrics: Option<&'a str>,
    /// The tile's width in points.
    pub width: f32,
}

/// What the person did with an audio tile this frame.
#[derive(Default)]
pub struct AudioTileResponse {
    /// The title was clicked: open the sound in the viewer's audio view.
    pub open: bool,
    /// The whole tile (for a context menu).
    pub response: Option<egui::Response>,
}

pub fn audio_tile_ui(ui: &mut Ui, tile: &AudioTile<'_>) -> AudioTileResponse {
    let mut out = AudioTileResponse::default();
    let ctx = ui.ctx().clone();
    let lookup = sounds::lookup(&ctx, tile.url);
    sounds::mark_shown(&ctx, tile.url);
    let playback = sounds::playback(&ctx, tile.url);
    let playing = sounds::is_playing(&ctx, tile.url);
    let inner = egui::Frame::new()
        .fill(tokens::palette().bg_surface)
        .stroke(egui::Stroke::new(1.0, tokens::palette().border))
        .corner_radius(egui::CornerRadius::same(tokens::RADIUS_M))
        .inner_margin(egui::Margin::same(8))
        .show(ui, |ui| {
            ui.set_width((tile.width - 16.0).max(80.0));
            ui.horizontal(|ui| {
                ui.spacing_mut().item_spacing.x = 6.0;
                let (icon, verb) = if playing {
                    (Icon::Pause, "Pause")
                } else {
                    (Icon::Play, "Play")
                };
                let button = widgets::icon_button(ui, icon, &format!("{verb} {}", tile.title));
                if button.clicked() {
                    sounds::toggle(&ctx, tile.url);
                }
                let duration = match &lookup {
                    SoundLookup::Ready(sound) => Some(sound.peaks.duration_secs),
                    _ => tile.duration_secs,
                };
                let time_text = match (&playback, duration) {
                    (Some(p), Some(d)) if playing || p.position_secs() > 0.0 => {
                        format!("{} / {}", clock(p.position_secs()), clock(d))
                    }
                    (_, Some(d)) => clock(d),
                    _ => String::new(),
                };
                // The time first, from the right, so a long title is cut short ("…")
                // before it, never drawn under it.
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    widgets::muted(ui, time_text);
                    ui.with_layout(egui::Layout::left_to_right(egui::Align::Center), |ui| {
                        let title = ui
                            .add(
                                egui::Label::new(RichText::new(tile.title).strong())
                                    .truncate()
                                    .sense(egui::Sense::click()),
                            )
                            .on_hover_text("Open in the audio view")
                            .on_hover_cursor(egui::CursorIcon::PointingHand);
                        widgets::name_widget(&title, &format!("Open {}", tile.title));
                        if title.clicked() {
                            out.open = true;
                        }
                    });
                });
            });
            match &lookup {
                SoundLookup::Ready(sound) => {
                    let duration = sound.peaks.duration_secs;
                    let fraction = match &playback {
                        Some(p) if duration > 0.0 => (p.position_secs() / duration) as f32,
                        _ => 0.0,
                    };
                    let wave = Waveform::new(&sound.peaks)
                        .played_fraction(fraction)
                        .height(TILE_WAVE_HEIGHT)
                        .interactive(playback.is_some())
                        .name(format!("Waveform: {}", tile.title))
                        .show(ui);
                    if let (Some(seek), Some(p)) = (wave.seek_to_secs, &playback) {
                        p.seek(seek);
                    }
                }
                SoundLookup::Loading => {
                    let (rect, _) = ui.allocate_exact_size(
                        egui::vec2(ui.available_width(), TILE_WAVE_HEIGHT),
                        egui::Sense::hover(),
                    );
                    ui.painter().rect_filled(
                        rect,
                        egui::CornerRadius::same(tokens::RADIUS_S),
                        tokens::palette().tile_placeholder,
                    );
                }
                SoundLookup::Failed { error, detail } => {
                    widgets::muted(ui, error.as_str()).on_hover_text(detail.as_str());
                }
            }
            if let Some(lyrics) = tile.lyrics.filter(|l| !l.trim().is_empty()) {
                egui::CollapsingHeader::new("Lyrics")
                    .id_salt(("audio_tile_lyrics", tile.url))
                    .show(ui, |ui| {
                        egui::ScrollArea::vertical()
                            .max_height(160.0)
                            .show(ui, |ui| ui.label(lyrics));
                    });
            }
        });
    if playing {
        ctx.request_repaint_after(std::time::Duration::from_millis(33));
    }
    out.response = Some(inner.response);
    out
}
