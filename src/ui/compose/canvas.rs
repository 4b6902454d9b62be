//! The results canvas beside the Create form: this session's image results as large tiles,
//! newest first — running jobs with their progress, failed and refused ones as they are.

use super::state::CreateState;
use super::storyboard;
use crate::api::{GenerationKind, JobState};
use crate::engine::{Command, JobPhase, JobRecord, QueueReason};
use crate::ui::format;
use crate::ui::job_wording;
use crate::ui::model::{Action, Model, ResultRef};
use crate::ui::result_tile::{self, Fit, ResultTile, TileEvent};
use crate::ui::textures::TextureCache;
use crate::ui::tokens;
use crate::ui::video::player::VideoPlayerState;
use crate::ui::widgets;
use egui::{CornerRadius, Rect, RichText, Stroke, Ui, Vec2};

/// Smallest tile side: results are shown large.
pub const MIN_TILE_SIDE: f32 = 256.0;
/// Largest tile side: on a large screen more results show rather than giant ones.
pub const MAX_TILE_SIDE: f32 = 480.0;
/// The tile side aimed for is the canvas's width over this, within the limits above.
const TILES_PER_WIDTH: f32 = 4.0;
/// Space between tiles.
pub const TILE_GAP: f32 = 12.0;

/// One cell of the canvas.
enum Cell<'a> {
    /// Output `index` of a completed job.
    Output {
        job: &'a JobRecord,
        index: usize,
        image_url: &'a str,
    },
    /// Queued, submitting, unconfirmed or running: progress.
    Running(&'a JobRecord),
    /// Failed, refused, cancelled, or finished without an output.
    Problem(&'a JobRecord),
    /// A Creative Director batch: one full-width storyboard.
    Storyboard(&'a JobRecord),
    /// A finished music, speech or sound job: its tracks side by side, a row of its own.
    Audio(&'a JobRecord),
    /// A finished transcription: its words and files, a row of its own.
    Transcript(&'a JobRecord),
}

/// Columns and tile side for `width`: tiles grow with the canvas (a quarter of it, at
/// least [`MIN_TILE_SIDE`]), stretched to fill the row but never past [`MAX_TILE_SIDE`].
pub fn grid_for_width(width: f32) -> (usize, f32) {
    let wanted = (width / TILES_PER_WIDTH).clamp(MIN_TILE_SIDE, MAX_TILE_SIDE);
    let fitting = ((width + TILE_GAP) / (wanted + TILE_GAP)).floor();
    let needed_for_max = ((width + TILE_GAP) / (MAX_TILE_SIDE + TILE_GAP)).ceil();
    let columns = fitting.max(needed_for_max).max(1.0) as usize;
    let side = ((width - TILE_GAP * (columns as f32 - 1.0)) / columns as f32).floor();
    (columns, side.max(1.0))
}

fn cells<'a>(model: &'a Model, state: &CreateState) -> Vec<Cell<'a>> {
    let mut cells = Vec::new();
    for job in model
        .tray_jobs()
        .filter(|job| CreateState::makes(job.spec.kind))
    {
        let sent = !matches!(
            job.phase,
            JobPhase::Queued { .. } | JobPhase::Rejected { .. } | JobPhase::Submitting
        );
        if job.spec.kind == GenerationKind::CreativeDirector && sent {
            cells.push(Cell::Storyboard(job));
            continue;
        }
        match &job.phase {
            JobPhase::Completed if job.spec.kind == GenerationKind::Transcription => {
                cells.push(Cell::Transcript(job));
            }
            JobPhase::Completed if job.spec.kind.outputs_audio() => {
                if super::audio_results::job_tracks(job)
                    .iter()
                    .all(|(_, track)| state.is_trashed(&track.url))
                {
                    cells.push(Cell::Problem(job));
                } else {
                    cells.push(Cell::Audio(job));
                }
            }
            JobPhase::Completed => {
                let Some(result) = job.result.as_ref().filter(|r| !r.urls.is_empty()) else {
                    cells.push(Cell::Problem(job));
                    continue;
                };
                // A 3D model is one tile (its GLB and OBJ are two files of one model).
                let shown = if job.spec.kind.outputs_3d() {
                    1
                } else {
                    result.urls.len()
                };
                for (index, url) in result.urls.iter().enumerate().take(shown) {
                    if state.is_trashed(url) {
                        continue;
                    }
                    // The service's thumbnail is of the first output only.
                    let image_url =
                        result_tile::job_output_picture(result, index).unwrap_or(url.as_str());
                    cells.push(Cell::Output {
                        job,
                        index,
                        image_url,
                    });
                }
            }
            phase if phase.is_finished() => cells.push(Cell::Problem(job)),
            _ => cells.push(Cell::Running(job)),
        }
    }
    cells
}

/// The canvas. `scroll`: give it its own scroll area (beside the form); stacked under the
/// form it scrolls with it.
pub fn canvas_ui(
    ui: &mut Ui,
    model: &Model,
    state: &CreateState,
    player: &mut VideoPlayerState,
    textures: &TextureCache,
    scroll: bool,
    actions: &mut Vec<Action>,
) {
    let cells = cells(model, state);
    // Queued tiles count down to their send time (the app repaints once a second then).
    let now_ms = chrono::Utc::now().timestamp_millis();
    let outputs: Vec<ResultRef> = cells
        .iter()
        .flat_map(|cell| match cell {
            Cell::Output { job, index, .. } => vec![ResultRef::Job {
                local_id: job.local_id,
                index: *index,
            }],
            Cell::Audio(job) => super::audio_results::job_tracks(job)
                .into_iter()
                .map(|(index, _)| ResultRef::Job {
                    local_id: job.local_id,
                    index,
                })
                .collect(),
            _ => Vec::new(),
        })
        .collect();
    // The output playing in place went away (dismissed, trashed): stop it.
    if let Some((local_id, index)) = state.playing_on_canvas
        && !outputs.contains(&ResultRef::Job { local_id, index })
    {
        actions.push(Action::PlayOnCanvas(None));
    }

    ui.add_space(tokens::SPACE_L);
    ui.horizontal(|ui| {
        ui.label(
            RichText::new("Results")
                .size(tokens::TEXT_TITLE)
                .strong()
                .color(tokens::palette().text),
        );
        if !outputs.is_empty() {
            widgets::muted(ui, format!("{} this session · newest first", outputs.len()));
        }
    });
    // The newest result: what the service made and charged against what was asked.
    if let Some(outcome) = cells.iter().find_map(|cell| match cell {
        Cell::Output { job, .. } | Cell::Audio(job) => {
            crate::ui::job_outcome::outcome_line(job, model)
        }
        _ => None,
    }) {
        widgets::muted(ui, format!("Latest: {outcome}"));
    }
    ui.add_space(tokens::SPACE_S);

    if cells.is_empty() {
        empty_state_ui(ui, model, state.form.kind);
        return;
    }
    let mut grid = |ui: &mut Ui| {
        let width = ui.available_width() - tokens::SCROLLBAR_ALLOWANCE;
        let (columns, side) = grid_for_width(width);
        let mut output_index = 0;
        // Tiles flow in rows; a storyboard takes a row of its own.
        let mut rows: Vec<Vec<&Cell>> = Vec::new();
        for cell in &cells {
            let alone = |cell: &Cell| {
                matches!(
                    cell,
                    Cell::Storyboard(_) | Cell::Audio(_) | Cell::Transcript(_)
                )
            };
            let starts_row = alone(cell)
                || rows.last().is_none_or(|row| {
                    row.len() >= columns || row.first().is_some_and(|c| alone(c))
                });
            if starts_row {
                rows.push(vec![cell]);
            } else if let Some(row) = rows.last_mut() {
                row.push(cell);
            }
        }
        for row in rows {
            if let [Cell::Storyboard(job)] = row.as_slice() {
                ui.push_id(("storyboard", job.local_id), |ui| {
                    storyboard::storyboard_ui(ui, job, textures, width, actions);
                });
                ui.add_space(TILE_GAP);
                continue;
            }
            if let [Cell::Transcript(job)] = row.as_slice() {
                ui.push_id(("transcript", job.local_id), |ui| {
                    crate::ui::transcript::jobs::result_card_ui(ui, job, width, actions);
                });
                ui.add_space(TILE_GAP);
                continue;
            }
            if let [Cell::Audio(job)] = row.as_slice() {
                ui.push_id(("audio", job.local_id), |ui| {
                    super::audio_results::audio_job_ui(
                        ui,
                        job,
                        width,
                        &outputs,
                        |url| state.is_favourite(url),
                        actions,
                    );
                });
                ui.add_space(TILE_GAP);
                continue;
            }
            ui.horizontal_top(|ui| {
                ui.spacing_mut().item_spacing.x = TILE_GAP;
                for cell in row {
                    match cell {
                        Cell::Output {
                            job,
                            index,
                            image_url,
                        } => {
                            let this = output_index;
                            output_index += 1;
                            ui.push_id(("result", job.local_id, *index), |ui| {
                                output_tile_ui(
                                    ui,
                                    state,
                                    player,
                                    textures,
                                    OutputCell {
                                        job,
                                        index: *index,
                                        image_url,
                                        side,
                                        position: this,
                                    },
                                    &outputs,
                                    actions,
                                );
                            });
                        }
                        Cell::Running(job) => {
                            ui.push_id(("running", job.local_id), |ui| {
                                running_tile_ui(ui, job, side, now_ms, actions);
                            });
                        }
                        Cell::Problem(job) => {
                            ui.push_id(("problem", job.local_id), |ui| {
                                problem_tile_ui(ui, job, side);
                            });
                        }
                        // Always alone in its row (above).
                        Cell::Storyboard(_) | Cell::Audio(_) | Cell::Transcript(_) => {}
                    }
                }
            });
            ui.add_space(TILE_GAP);
        }
        ui.add_space(tokens::SPACE_L);
    };
    if scroll {
        egui::ScrollArea::vertical()
            .id_salt("create_results")
            .auto_shrink([false, false])
            .show(ui, grid);
    } else {
        grid(ui);
    }
}

/// Where one output tile is and what it shows.
struct OutputCell<'a> {
    job: &'a JobRecord,
    index: usize,
    /// The picture to draw (a poster for videos).
    image_url: &'a str,
    side: f32,
    /// Its place among the canvas's outputs.
    position: usize,
}

/// One output: its tile, or for the video chosen to play in place, the player (picture,
/// scrub bar, controls) in the tile's square with the tile's buttons under it.
fn output_tile_ui(
    ui: &mut Ui,
    state: &CreateState,
    player: &mut VideoPlayerState,
    textures: &TextureCache,
    cell: OutputCell,
    outputs: &[ResultRef],
    actions: &mut Vec<Action>,
) {
    let OutputCell {
        job,
        index,
        image_url,
        side,
        position,
    } = cell;
    let url = job
        .result
        .as_ref()
        .and_then(|r| r.urls.get(index))
        .map(String::as_str)
        .unwrap_or(image_url);
    let result = ResultRef::Job {
        local_id: job.local_id,
        index,
    };
    let name = format!(
        "Result {} of {}: {}",
        position + 1,
        outputs.len(),
        format::excerpt(&crate::ui::job_wording::job_subject(job), 60)
    );
    let tile = ResultTile {
        result: &result,
        image_url,
        name: &name,
        favourite: state.is_favourite(url),
        side,
        fit: Fit::Media {
            ratio: media_ratio(job),
        },
        buttons: true,
        model_3d: job.spec.kind.outputs_3d(),
        video: job
            .result
            .as_ref()
            .and_then(|r| result_tile::job_output_video(r, index)),
    };
    let event = if tile.video.is_some() && state.playing_on_canvas == Some((job.local_id, index)) {
        inline_player_ui(ui, player, textures, &tile, url, actions)
    } else {
        result_tile::result_tile_ui(ui, textures, &tile)
    };
    match event {
        Some(TileEvent::Play) => {
            actions.push(Action::PlayOnCanvas(Some((job.local_id, index))));
        }
        Some(event) => {
            let action = event.into_action(|| outputs.to_vec(), position);
            actions.push(Action::Result(action));
        }
        None => {}
    }
}

/// The shape of a job's outputs until their pictures load: what the service reported, else
/// what was asked for, else square.
fn media_ratio(job: &JobRecord) -> (u32, u32) {
    job.result
        .as_ref()
        .and_then(|r| r.aspect_ratio.as_deref())
        .and_then(result_tile::parse_ratio)
        .or_else(|| {
            job.spec
                .request
                .aspect_ratio
                .as_deref()
                .and_then(result_tile::parse_ratio)
        })
        .unwrap_or((1, 1))
}

/// The canvas's video player in a tile's place, shaped like the tile's picture (no empty
/// band); the tile's buttons stay under it.
fn inline_player_ui(
    ui: &mut Ui,
    player: &mut VideoPlayerState,
    textures: &TextureCache,
    tile: &ResultTile,
    url: &str,
    actions: &mut Vec<Action>,
) -> Option<TileEvent> {
    let poster = Some(tile.image_url).filter(|poster| *poster != url);
    if let Some(command) = player.set_source(url, poster) {
        // It was asked for with a click on its play badge: play as soon as it opens.
        player.play_when_ready();
        actions.push(Action::Send(Box::new(command)));
    }
    ui.vertical(|ui| {
        ui.spacing_mut().item_spacing.y = 2.0;
        let picture_height = tile.side / result_tile::tile_aspect(ui, textures, tile);
        let size = Vec2::new(
            tile.side,
            picture_height + VideoPlayerState::chrome_height(ui),
        );
        let (rect, _) = ui.allocate_exact_size(size, egui::Sense::hover());
        // Its keys while the pointer is over it, so the prompt keeps Space otherwise.
        if ui.rect_contains_pointer(rect) {
            player.keyboard_input(ui.ctx());
        }
        ui.scope_builder(egui::UiBuilder::new().max_rect(rect), |ui| {
            actions.extend(player.player_ui(ui, textures, tile.name));
        });
        result_tile::tile_buttons_ui(ui, tile)
    })
    .inner
}

/// Shortest a running job's placeholder gets, so its state and prompt stay readable.
const MIN_STATUS_HEIGHT: f32 = 180.0;

/// The height of a running job's placeholder `side` wide: the shape its result will have
/// (so the tile keeps its place when the picture lands), within reason.
fn running_tile_height(job: &JobRecord, side: f32) -> f32 {
    if job.spec.kind.outputs_audio() {
        // A sound's tile is a short strip, not a picture.
        return MIN_STATUS_HEIGHT.min(side);
    }
    let (w, h) = media_ratio(job);
    let aspect = w as f32 / h.max(1) as f32;
    (side / aspect).round().max(MIN_STATUS_HEIGHT.min(side))
}

/// A placeholder `side` × `height` with the job's state written in it.
fn status_frame(
    ui: &mut Ui,
    (side, height): (f32, f32),
    border: egui::Color32,
    add: impl FnOnce(&mut Ui),
) {
    let (rect, _) = ui.allocate_exact_size(
        Vec2::new(side, height + result_tile::BUTTON_ROW_HEIGHT + 2.0),
        egui::Sense::hover(),
    );
    let square = Rect::from_min_size(rect.min, Vec2::new(side, height));
    let radius = CornerRadius::same(tokens::RADIUS_M);
    ui.painter()
        .rect_filled(square, radius, tokens::palette().tile_placeholder);
    ui.painter().rect_stroke(
        square,
        radius,
        Stroke::new(1.0, border),
        egui::StrokeKind::Inside,
    );
    let inner = square.shrink(tokens::SPACE_M);
    ui.scope_builder(
        egui::UiBuilder::new()
            .max_rect(inner)
            .layout(egui::Layout::top_down(egui::Align::Min)),
        add,
    );
}

fn running_tile_ui(
    ui: &mut Ui,
    job: &JobRecord,
    side: f32,
    now_ms: i64,
    actions: &mut Vec<Action>,
) {
    if let JobPhase::Queued {
        place,
        sends_at_unix_ms,
        reason,
    } = job.phase
    {
        queued_tile_ui(
            ui,
            job,
            side,
            (place, sends_at_unix_ms, reason),
            now_ms,
            actions,
        );
        return;
    }
    let height = running_tile_height(job, side);
    status_frame(ui, (side, height), tokens::palette().border, |ui| {
        let (title, detail) = match &job.phase {
            JobPhase::Submitting => ("Submitting…".to_owned(), "Sending the request"),
            JobPhase::Unconfirmed { .. } => (
                "Not confirmed".to_owned(),
                "The service did not answer the submit; see the tray",
            ),
            JobPhase::Running {
                state: JobState::Pending,
            } => ("Queued".to_owned(), "Waiting for the service to start it"),
            _ => (
                format!("{:.0} %", job.progress_percent.clamp(0.0, 100.0)),
                match job.spec.kind {
                    crate::api::GenerationKind::VideoTrim => "Trimming",
                    crate::api::GenerationKind::VideoEdit => "Editing",
                    crate::api::GenerationKind::VideoToVideo => "Restyling",
                    crate::api::GenerationKind::ImageTool => "Working on the image",
                    _ => "Generating",
                },
            ),
        };
        ui.label(
            RichText::new(title)
                .size(tokens::TEXT_HEADING)
                .strong()
                .color(tokens::palette().text),
        );
        ui.label(RichText::new(detail).color(tokens::palette().text_muted));
        widgets::job_progress_bar(ui, job.progress_percent);
        ui.add_space(tokens::SPACE_S);
        prompt_excerpt_ui(ui, job);
    });
}

/// A job still in the client's submit queue: when it sends, its place, and Cancel.
fn queued_tile_ui(
    ui: &mut Ui,
    job: &JobRecord,
    side: f32,
    (place, sends_at_unix_ms, reason): (u32, Option<i64>, QueueReason),
    now_ms: i64,
    actions: &mut Vec<Action>,
) {
    let height = running_tile_height(job, side);
    status_frame(ui, (side, height), tokens::palette().border, |ui| {
        let line = job_wording::queued_text(place, sends_at_unix_ms, reason, now_ms);
        // "Queued — sends in ~12 s · 3rd in line": the title, then the place under it.
        let (status, place_text) = line.split_once(" · ").unwrap_or((line.as_str(), ""));
        ui.label(
            RichText::new(status)
                .size(tokens::TEXT_HEADING)
                .strong()
                .color(tokens::palette().text),
        );
        if !place_text.is_empty() {
            ui.label(RichText::new(place_text).color(tokens::palette().text_muted));
        }
        ui.label(
            RichText::new("Not sent yet — nothing is billed.")
                .size(tokens::TEXT_SMALL)
                .color(tokens::palette().text_faint),
        );
        let cancel = ui
            .add(widgets::subtle_button("Cancel"))
            .accessible_name(job_wording::CANCEL_QUEUED_NAME)
            .on_hover_text(job_wording::CANCEL_QUEUED_HOVER);
        if cancel.clicked() {
            actions.push(Action::Send(Box::new(Command::Cancel {
                local_id: job.local_id,
            })));
        }
        ui.add_space(tokens::SPACE_S);
        prompt_excerpt_ui(ui, job);
    });
}

fn problem_tile_ui(ui: &mut Ui, job: &JobRecord, side: f32) {
    status_frame(ui, (side, side), tokens::palette().danger, |ui| {
        let (title, message, note) = match &job.phase {
            JobPhase::Failed { failure } => (
                "Failed",
                if failure.message.is_empty() {
                    "The job failed without a message.".to_owned()
                } else {
                    failure.message.clone()
                },
                "A failed job is refunded.",
            ),
            JobPhase::Rejected { error } => {
                let (headline, note) = job_wording::rejected_job_text(job, error, None);
                match error {
                    _ if crate::ui::account::is_insufficient_credits(error) => {
                        ("Not enough credits", headline, note)
                    }
                    crate::api::ApiError::Connect(_) => (
                        "Not sent",
                        "The service could not be reached.".to_owned(),
                        note,
                    ),
                    other => ("Not accepted", other.to_string(), note),
                }
            }
            JobPhase::Cancelled => ("Cancelled", "You cancelled this job.".to_owned(), ""),
            _ => (
                "No image",
                "The job finished without an output.".to_owned(),
                "",
            ),
        };
        ui.label(
            RichText::new(title)
                .size(tokens::TEXT_TITLE)
                .strong()
                .color(tokens::palette().danger),
        );
        ui.add(
            egui::Label::new(
                RichText::new(format::excerpt(&message, 160)).color(tokens::palette().text),
            )
            .wrap(),
        )
        .on_hover_text(message.clone());
        if !note.is_empty() {
            ui.label(
                RichText::new(note)
                    .size(tokens::TEXT_SMALL)
                    .color(tokens::palette().text_muted),
            );
        }
        ui.add_space(tokens::SPACE_S);
        prompt_excerpt_ui(ui, job);
        // Retry stays in the tray's card, beside why the job failed and whether a retry helps.
        ui.label(
            RichText::new("Retry from the job tray.")
                .size(tokens::TEXT_SMALL)
                .color(tokens::palette().text_faint),
        );
    });
}

fn prompt_excerpt_ui(ui: &mut Ui, job: &JobRecord) {
    let prompt = &job.spec.request.prompt;
    ui.add(
        egui::Label::new(
            RichText::new(format::excerpt(prompt, 120))
                .size(12.5)
                .italics()
                .color(tokens::palette().text_muted),
        )
        .wrap(),
    )
    .on_hover_text(prompt.clone());
}

fn empty_state_ui(ui: &mut Ui, model: &Model, kind: crate::api::GenerationKind) {
    ui.add_space(tokens::SPACE_XL);
    ui.vertical_centered(|ui| {
        let title = if model.jobs_restored || !model.jobs.is_empty() {
            "No results yet"
        } else {
            "Loading this session's jobs…"
        };
        ui.label(
            RichText::new(title)
                .size(tokens::TEXT_TITLE)
                .color(tokens::palette().text_muted),
        );
        ui.label(
            RichText::new(if kind == crate::api::GenerationKind::VideoEdit {
                "Choose what to do to the video and press the button under the form. Edits \
                 and trims appear here as they run and when they finish; the original stays \
                 as it is."
            } else {
                "Describe what you want and press Generate. Results appear here as large \
                 tiles, newest first, while they run and when they finish: videos play in \
                 the viewer, Creative Director batches fill a storyboard."
            })
            .color(tokens::palette().text_faint),
        );
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_are_at_least_256_and_fill_the_width() {
        assert_eq!(
            grid_for_width(200.0),
            (1, 200.0),
            "narrower than a tile: one"
        );
        assert_eq!(grid_for_width(600.0), (2, 294.0));
        assert_eq!(grid_for_width(876.0), (3, 284.0));
        for width in [1000.0, 1448.0, 1800.0, 3000.0] {
            let (columns, side) = grid_for_width(width);
            assert!(
                (MIN_TILE_SIDE..=MAX_TILE_SIDE).contains(&side),
                "{width}: {side}"
            );
            let used = columns as f32 * side + (columns as f32 - 1.0) * TILE_GAP;
            assert!(
                used <= width && used > width - columns as f32,
                "{width}: fills"
            );
        }
        assert!(
            grid_for_width(1800.0).1 > 400.0,
            "tiles grow with a large canvas"
        );
    }
}
