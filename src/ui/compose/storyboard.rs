//! A Creative Director batch on the Create canvas: one card with the batch's prompt, state
//! and cost, and a row of scene cards in scene order that fill in as scenes land. Each
//! finished scene opens in the viewer on its own (the arrows step through the batch).

use crate::api::{JobState, Scene, WorkflowType};
use crate::engine::{Command, JobPhase, JobRecord};
use crate::ui::format;
use crate::ui::model::{Action, ResultRef};
use crate::ui::result_tile::{self, Fit, ResultTile};
use crate::ui::textures::TextureCache;
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{CornerRadius, RichText, Stroke, Ui, Vec2};

/// Scene cards are at least this wide, so titles stay readable.
const MIN_SCENE_SIDE: f32 = 150.0;
/// And at most this wide: on a large canvas scenes grow, but a board stays one glance.
const MAX_SCENE_SIDE: f32 = 420.0;
const SCENE_GAP: f32 = 10.0;

/// Columns and card side for `count` scenes in `width`: as few rows as the minimum side
/// allows, the scenes spread evenly over them (2 × 2 rather than 3 + 1), as large as the
/// width gives up to [`MAX_SCENE_SIDE`].
pub fn scene_grid(count: usize, width: f32) -> (usize, f32) {
    let count = count.max(1);
    let most = (((width + SCENE_GAP) / (MIN_SCENE_SIDE + SCENE_GAP)).floor() as usize).max(1);
    let rows = count.div_ceil(most);
    let columns = count.div_ceil(rows);
    let side = ((width - SCENE_GAP * (columns as f32 - 1.0)) / columns as f32)
        .clamp(MIN_SCENE_SIDE.min(width), MAX_SCENE_SIDE);
    (columns, side.floor())
}

/// What one scene card shows.
#[derive(Clone, Debug, PartialEq)]
pub enum SceneView {
    /// Not reported yet (before the first poll) or pending.
    Waiting,
    Running {
        percent: f32,
    },
    /// `output_index` indexes the batch's outputs ([`JobRecord::current_result`]).
    Done {
        poster_url: String,
        output_index: usize,
    },
    Failed,
}

/// The scene cards of `job`, in scene order: the polled scenes, padded with waiting cards
/// up to the scene count asked for.
pub fn scene_views(job: &JobRecord) -> Vec<(String, SceneView)> {
    let asked = job.spec.priced_units() as usize;
    let mut views: Vec<(String, SceneView)> = job
        .scenes
        .iter()
        .enumerate()
        .map(|(index, scene)| (scene_title(scene, index), scene_view(job, scene, index)))
        .collect();
    for index in views.len()..asked {
        views.push((format!("Scene {}", index + 1), SceneView::Waiting));
    }
    views
}

fn scene_title(scene: &Scene, index: usize) -> String {
    scene
        .title
        .clone()
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| format!("Scene {}", scene.scene_number.unwrap_or(index as u32 + 1)))
}

fn scene_view(job: &JobRecord, scene: &Scene, index: usize) -> SceneView {
    if let (Some(output_index), Some(first)) =
        (job.scene_output_index(index), scene.output_urls().first())
    {
        // Video scenes show their poster; image scenes the image itself.
        let poster_url = scene.thumbnail_url.clone().unwrap_or_else(|| first.clone());
        return SceneView::Done {
            poster_url,
            output_index,
        };
    }
    match scene.state() {
        JobState::Failed | JobState::Cancelled => SceneView::Failed,
        JobState::Pending => SceneView::Waiting,
        JobState::Completed => SceneView::Failed,
        JobState::Processing | JobState::Other(_) => SceneView::Running {
            percent: scene.progress.unwrap_or(0.0).clamp(0.0, 100.0) as f32,
        },
    }
}

/// One line on the batch: "3 of 4 scenes · 72 %", "Done · 4 scenes", "Failed".
pub fn batch_status_text(job: &JobRecord) -> String {
    let views = scene_views(job);
    let done = views
        .iter()
        .filter(|(_, v)| matches!(v, SceneView::Done { .. }))
        .count();
    match &job.phase {
        JobPhase::Completed => format!("Done · {done} of {} scenes", views.len()),
        JobPhase::Failed { failure } => format!("Failed · {}", failure.message),
        JobPhase::Cancelled => format!("Cancelled · {done} of {} scenes done", views.len()),
        JobPhase::Rejected { error } => crate::ui::job_wording::rejected_text(error).0,
        JobPhase::Running { .. } => format!(
            "{done} of {} scenes · {:.0} %",
            views.len(),
            job.progress_percent.clamp(0.0, 100.0)
        ),
        _ => "Waiting to start".to_owned(),
    }
}

/// The storyboard card, `width` wide.
pub fn storyboard_ui(
    ui: &mut Ui,
    job: &JobRecord,
    textures: &TextureCache,
    width: f32,
    actions: &mut Vec<Action>,
) {
    let views = scene_views(job);
    let outputs: Vec<ResultRef> = job
        .current_result()
        .map(|r| {
            (0..r.urls.len())
                .map(|index| ResultRef::Job {
                    local_id: job.local_id,
                    index,
                })
                .collect()
        })
        .unwrap_or_default();
    tokens::card_frame().show(ui, |ui| {
        ui.set_width((width - 2.0 * tokens::SPACE_M).max(MIN_SCENE_SIDE));
        ui.vertical(|ui| board_ui(ui, job, textures, &views, &outputs, actions));
    });
}

fn board_ui(
    ui: &mut Ui,
    job: &JobRecord,
    textures: &TextureCache,
    views: &[(String, SceneView)],
    outputs: &[ResultRef],
    actions: &mut Vec<Action>,
) {
    {
        header_ui(ui, job, actions);
        ui.add_space(tokens::SPACE_S);
        let (columns, side) = scene_grid(views.len(), ui.available_width().max(MIN_SCENE_SIDE));
        for (row_index, row) in views.chunks(columns).enumerate() {
            ui.horizontal_top(|ui| {
                ui.spacing_mut().item_spacing.x = SCENE_GAP;
                for (column, (title, view)) in row.iter().enumerate() {
                    let scene_index = row_index * columns + column;
                    ui.push_id(("scene", job.local_id, scene_index), |ui| {
                        scene_card_ui(ui, job, textures, title, view, side, outputs, actions);
                    });
                }
            });
            ui.add_space(SCENE_GAP);
        }
    }
}

fn header_ui(ui: &mut Ui, job: &JobRecord, actions: &mut Vec<Action>) {
    let mode = match job.spec.request.workflow_type.unwrap_or_default() {
        WorkflowType::Image => "images",
        WorkflowType::Video => "videos",
    };
    ui.horizontal(|ui| {
        ui.label(
            RichText::new(format!(
                "Creative Director · {} scenes · {mode}",
                job.spec.priced_units()
            ))
            .strong()
            .color(tokens::palette().text),
        );
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            let running = matches!(
                job.phase,
                JobPhase::Running { .. } | JobPhase::Queued { .. } | JobPhase::Submitting
            );
            if running
                && ui
                    .add(widgets::subtle_button("Cancel batch"))
                    .on_hover_text("Stop the batch; scenes not finished are not billed")
                    .clicked()
            {
                actions.push(Action::Send(Box::new(Command::Cancel {
                    local_id: job.local_id,
                })));
            }
            let cost = match (job.credits_used, job.credits_estimate) {
                (Some(used), _) => format::credits(used),
                (None, Some(estimate)) => format!("{} (est.)", format::credits(estimate)),
                (None, None) => String::new(),
            };
            if !cost.is_empty() {
                ui.label(RichText::new(cost).color(tokens::palette().text_muted));
            }
        });
    });
    ui.label(
        RichText::new(format::excerpt(&job.spec.request.prompt, 160))
            .size(12.5)
            .color(tokens::palette().text_muted),
    );
    let status = batch_status_text(job);
    let color = match job.phase {
        JobPhase::Failed { .. } | JobPhase::Rejected { .. } => tokens::palette().danger,
        _ => tokens::palette().text_muted,
    };
    ui.label(RichText::new(status).size(tokens::TEXT_SMALL).color(color));
    if matches!(job.phase, JobPhase::Running { .. }) {
        widgets::job_progress_bar(ui, job.progress_percent);
    }
}

#[allow(clippy::too_many_arguments)]
fn scene_card_ui(
    ui: &mut Ui,
    job: &JobRecord,
    textures: &TextureCache,
    title: &str,
    view: &SceneView,
    side: f32,
    outputs: &[ResultRef],
    actions: &mut Vec<Action>,
) {
    ui.vertical(|ui| {
        ui.set_width(side);
        ui.spacing_mut().item_spacing.y = 4.0;
        match view {
            SceneView::Done {
                poster_url,
                output_index,
            } => {
                let result = ResultRef::Job {
                    local_id: job.local_id,
                    index: *output_index,
                };
                let name = format!("Open {title}");
                let tile = ResultTile {
                    result: &result,
                    image_url: poster_url,
                    name: &name,
                    favourite: false,
                    side,
                    fit: Fit::Cover,
                    buttons: false,
                    // Scenes report no length, and the one asked for may have been
                    // mapped to the model's closest: no duration badge, just "video".
                    model_3d: false,
                    video: (job.spec.request.workflow_type == Some(WorkflowType::Video))
                        .then_some(None),
                };
                if let Some(event) = result_tile::result_tile_ui(ui, textures, &tile) {
                    let action = event.into_action(|| outputs.to_vec(), *output_index);
                    actions.push(Action::Result(action));
                }
            }
            other => placeholder_ui(ui, other, side),
        }
        let shown = crate::ui::job_wording::short_title(title, 48);
        let label = ui.label(
            RichText::new(&shown)
                .size(12.5)
                .color(tokens::palette().text),
        );
        if shown != title {
            label.on_hover_text(title);
        }
    });
}

fn placeholder_ui(ui: &mut Ui, view: &SceneView, side: f32) {
    let (text, color) = match view {
        SceneView::Waiting => ("Waiting".to_owned(), tokens::palette().text_faint),
        SceneView::Running { percent } => (format!("{percent:.0} %"), tokens::palette().text),
        SceneView::Failed => ("Failed".to_owned(), tokens::palette().danger),
        SceneView::Done { .. } => (String::new(), tokens::palette().text),
    };
    egui::Frame::new()
        .fill(tokens::palette().tile_placeholder)
        .stroke(Stroke::new(1.0, tokens::palette().border))
        .corner_radius(CornerRadius::same(tokens::RADIUS_M))
        .show(ui, |ui| {
            ui.set_min_size(Vec2::splat(side - 2.0));
            ui.set_max_width(side - 2.0);
            ui.vertical_centered(|ui| {
                ui.add_space(side * 0.38);
                ui.label(RichText::new(text).size(tokens::TEXT_TITLE).color(color));
                if let SceneView::Running { percent } = view {
                    ui.add_space(tokens::SPACE_XS);
                    widgets::job_progress_bar(ui, *percent);
                }
            });
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{GenerationKind, GenerationRequest, GenerationSpec};

    fn batch(scenes: Vec<Scene>) -> JobRecord {
        JobRecord {
            local_id: 7,
            generation_id: Some("b1".into()),
            spec: GenerationSpec {
                catalog: None,
                kind: GenerationKind::CreativeDirector,
                request: GenerationRequest {
                    prompt: "paper boats".into(),
                    scene_count: Some(4),
                    workflow_type: Some(WorkflowType::Video),
                    ..GenerationRequest::default()
                },
                video: None,
                audio: None,
            },
            model_label: "Auto".into(),
            phase: JobPhase::Running {
                state: JobState::Processing,
            },
            progress_percent: 40.0,
            submitted_at_unix_ms: 0,
            finished_at_unix_ms: None,
            credits_estimate: Some(560.0),
            credits_used: None,
            result: None,
            poll_problem: None,
            poll_interval_secs: 5.0,
            scenes,
        }
    }

    fn scene(number: u32, status: &str, url: Option<&str>) -> Scene {
        Scene {
            scene_number: Some(number),
            status: Some(status.into()),
            title: Some(format!("Scene {number}: Paper boats")),
            progress: (status == "processing").then_some(55.0),
            video_urls: url.map(|u| vec![u.to_owned()]).unwrap_or_default(),
            thumbnail_url: url.map(|u| format!("{u}.jpg")),
            ..Scene::default()
        }
    }

    #[test]
    fn scenes_grow_with_the_canvas_in_even_rows() {
        assert_eq!(scene_grid(4, 466.0), (2, 228.0), "2 × 2, not 3 + 1");
        assert_eq!(
            scene_grid(4, 1448.0),
            (4, 354.0),
            "one row on a wide canvas"
        );
        assert_eq!(scene_grid(2, 3000.0), (2, MAX_SCENE_SIDE));
        assert_eq!(scene_grid(8, 700.0), (4, 167.0));
        assert_eq!(
            scene_grid(3, 120.0),
            (1, 120.0),
            "narrower than a card: one"
        );
    }

    #[test]
    fn scenes_fill_in_order_and_open_their_own_output() {
        let job = batch(vec![
            scene(1, "completed", Some("http://x/1.mp4")),
            scene(2, "processing", None),
            scene(3, "completed", Some("http://x/3.mp4")),
        ]);
        let views = scene_views(&job);
        assert_eq!(views.len(), 4, "padded to the scene count asked for");
        assert_eq!(
            views[0].1,
            SceneView::Done {
                poster_url: "http://x/1.mp4.jpg".into(),
                output_index: 0
            }
        );
        assert_eq!(views[1].1, SceneView::Running { percent: 55.0 });
        // Scene 3 is the second output so far: the viewer opens that one.
        assert_eq!(
            views[2].1,
            SceneView::Done {
                poster_url: "http://x/3.mp4.jpg".into(),
                output_index: 1
            }
        );
        assert_eq!(views[3], ("Scene 4".to_owned(), SceneView::Waiting));
        let result = job.current_result().expect("outputs so far");
        assert_eq!(result.urls, vec!["http://x/1.mp4", "http://x/3.mp4"]);
        assert_eq!(batch_status_text(&job), "2 of 4 scenes · 40 %");
    }
}
