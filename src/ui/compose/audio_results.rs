//! Music, speech and sound results on Create's canvas: one row per finished job with its
//! tracks side by side (a music job's two variations, each with its title, lyrics and
//! waveform), drawn with the shared audio tile (`ui::audio::tile`) that plays through the
//! studio's one output. The row's context menu has the result actions that fit sound.

use crate::api::{AudioVariation, GenerationKind};
use crate::engine::JobRecord;
use crate::ui::audio::tile::{AudioTile, audio_tile_ui};
use crate::ui::model::{Action, ResultAction, ResultRef};
use egui::Ui;

/// Narrowest a track's tile gets before the tracks stack instead of sitting side by side.
const MIN_TRACK_WIDTH: f32 = 240.0;

/// The playable tracks of a finished audio job, each with the index of its URL in the
/// job's `urls` (what a `ResultRef::Job` points at).
pub fn job_tracks(job: &JobRecord) -> Vec<(usize, AudioVariation)> {
    let Some(result) = job.result.as_ref() else {
        return Vec::new();
    };
    result
        .audio_tracks()
        .into_iter()
        .enumerate()
        .map(|(position, track)| {
            let index = result
                .urls
                .iter()
                .position(|u| *u == track.url)
                .unwrap_or(position);
            (index, track)
        })
        .collect()
}

/// The title a track shows: the service's (numbered "(2 of 2)" when the variations share
/// it), else what the job was ("Variation 2 of 2", "Speech · Rachel", "Sound effect").
pub fn track_title(
    job: &JobRecord,
    track: &AudioVariation,
    position: usize,
    count: usize,
) -> String {
    if let Some(title) = track
        .title
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        let shared = job_tracks(job)
            .iter()
            .filter(|(_, other)| other.title.as_deref().map(str::trim) == Some(title))
            .count()
            > 1;
        return if shared {
            format!("{title} ({} of {count})", position + 1)
        } else {
            title.to_owned()
        };
    }
    let voice = job
        .result
        .as_ref()
        .and_then(|r| r.voice.as_deref())
        .filter(|v| !v.trim().is_empty());
    match (job.spec.kind, voice) {
        (GenerationKind::Speech, Some(voice)) => format!("Speech · {voice}"),
        (GenerationKind::Speech, None) => "Speech".to_owned(),
        (GenerationKind::Sound, _) => "Sound effect".to_owned(),
        (_, _) if count > 1 => format!("Variation {} of {count}", position + 1),
        _ => "Song".to_owned(),
    }
}

/// One finished audio job: its tracks side by side in `width` (stacked when narrow).
/// `list` is every result on the canvas (for opening one in the viewer) and `first` the
/// place of this job's first track in it.
pub fn audio_job_ui(
    ui: &mut Ui,
    job: &JobRecord,
    width: f32,
    list: &[ResultRef],
    favourite: impl Fn(&str) -> bool,
    actions: &mut Vec<Action>,
) {
    let tracks = job_tracks(job);
    let count = tracks.len();
    if count == 0 {
        return;
    }
    let gap = super::canvas::TILE_GAP;
    let side_by_side = count > 1 && width >= MIN_TRACK_WIDTH * count as f32 + gap;
    let tile_width = if side_by_side {
        ((width - gap * (count as f32 - 1.0)) / count as f32).floor()
    } else {
        width
    };
    let mut draw = |ui: &mut Ui| {
        for (position, (index, track)) in tracks.iter().enumerate() {
            let title = track_title(job, track, position, count);
            let result = ResultRef::Job {
                local_id: job.local_id,
                index: *index,
            };
            ui.push_id(("audio_track", job.local_id, *index), |ui| {
                // Its own column, so the tile's rows stack whatever the row around it does.
                let response = ui
                    .vertical(|ui| {
                        ui.set_width(tile_width);
                        audio_tile_ui(
                            ui,
                            &AudioTile {
                                url: &track.url,
                                title: &title,
                                duration_secs: track.duration,
                                lyrics: track.lyrics.as_deref(),
                                width: tile_width,
                            },
                        )
                    })
                    .inner;
                let open_index = list.iter().position(|r| *r == result).unwrap_or(0);
                if response.open {
                    actions.push(Action::Result(ResultAction::Open {
                        list: list.to_vec(),
                        index: open_index,
                    }));
                }
                if let Some(tile) = response.response {
                    let tile = tile.interact(egui::Sense::click());
                    tile.context_menu(|ui| {
                        if let Some(action) =
                            menu_ui(ui, &result, favourite(&track.url), list, open_index)
                        {
                            actions.push(Action::Result(action));
                            ui.close();
                        }
                    });
                }
            });
        }
    };
    if side_by_side {
        ui.horizontal_top(|ui| {
            ui.spacing_mut().item_spacing.x = gap;
            draw(ui);
        });
    } else {
        ui.vertical(|ui| {
            ui.spacing_mut().item_spacing.y = gap / 2.0;
            draw(ui);
        });
    }
}

/// The result actions that fit a sound.
fn menu_ui(
    ui: &mut Ui,
    result: &ResultRef,
    favourite: bool,
    list: &[ResultRef],
    index: usize,
) -> Option<ResultAction> {
    let mut chosen = None;
    if ui.button("Open in viewer").clicked() {
        chosen = Some(ResultAction::Open {
            list: list.to_vec(),
            index,
        });
    }
    ui.separator();
    let entries = [
        (
            "Reuse prompt and settings",
            ResultAction::Reuse(result.clone()),
        ),
        ("Vary…", ResultAction::Vary(result.clone())),
        (
            if favourite {
                "Remove from favourites"
            } else {
                "Favourite"
            },
            ResultAction::SetFavourite {
                result: result.clone(),
                favourite: !favourite,
            },
        ),
        ("Move to Trash", ResultAction::Trash(result.clone())),
    ];
    for (label, action) in entries {
        if ui.button(label).clicked() {
            chosen = Some(action);
        }
    }
    ui.separator();
    if let Some(action) = crate::ui::result_tile::file_out_menu_ui(ui, result) {
        chosen = Some(action);
    }
    chosen
}
