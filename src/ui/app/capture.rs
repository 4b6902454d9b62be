//! When a `--screenshot-to` run may take its picture, and the staged scenes of
//! `--view video|storyboard|video-edit`: make the work a picture needs through the engine,
//! as an artist would (a text-to-video job, or a Creative Director batch), then show it: the
//! video paused on a frame past the start in the viewer, the finished storyboard on the
//! Create canvas, or the video on the trim timeline with its thumbnail strip.

use super::StudioApp;
use crate::api::{GenerationKind, GenerationRequest, GenerationSpec, WorkflowType};
use crate::engine::{Command, JobPhase, LocalJobId};
use crate::ui::model::{ResultRef, View};
use std::time::{Duration, Instant};

/// The frame the video capture is paused on.
pub const VIDEO_FRAME: u32 = 40;
/// Time after a batch finishes for its scene posters to load and draw.
const POSTERS_SETTLE: Duration = Duration::from_millis(1500);
/// The trim selection the video-edit capture shows (seconds of the 4-s clip).
const TRIM_SCENE_SECS: (f64, f64) = (1.0, 3.0);
/// Longest wait for the timeline's thumbnail strip before capturing anyway.
const STRIP_SETTLE_LIMIT: Duration = Duration::from_secs(30);

/// Which picture to stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScreenshotScene {
    /// A 4-s 16:9 veo-3 clip paused in the viewer.
    Video,
    /// A four-scene Creative Director storyboard on the Create canvas.
    Storyboard,
    /// The `Video` clip as the source of a trim: player, timeline and strip.
    VideoEdit,
}

impl ScreenshotScene {
    fn spec(self) -> (GenerationSpec, &'static str) {
        match self {
            ScreenshotScene::Video | ScreenshotScene::VideoEdit => (
                GenerationSpec {
                    kind: GenerationKind::TextToVideo,
                    request: GenerationRequest {
                        prompt: "a lighthouse beam sweeping over a foggy harbour at dusk".into(),
                        model: Some("google/veo-3".into()),
                        aspect_ratio: Some("16:9".into()),
                        resolution: Some("720p".into()),
                        duration: Some(4.0),
                        ..GenerationRequest::default()
                    },
                    video: None,
                },
                "Veo 3",
            ),
            ScreenshotScene::Storyboard => (
                GenerationSpec {
                    kind: GenerationKind::CreativeDirector,
                    request: GenerationRequest {
                        prompt: "a paper boat's journey from a rainy gutter to the open sea".into(),
                        model: Some("fal-ai/flux/schnell".into()),
                        aspect_ratio: Some("16:9".into()),
                        scene_count: Some(4),
                        workflow_type: Some(WorkflowType::Image),
                        ..GenerationRequest::default()
                    },
                    video: None,
                },
                "Flux Schnell",
            ),
        }
    }
}

pub enum SceneStage {
    /// Waiting for the catalog (so the job is priced and labelled like any other).
    Starting(ScreenshotScene),
    /// Submitted; waiting for the newest job of its kind to finish.
    Running(ScreenshotScene),
    /// Video: the viewer is open; `seeked` once the seek was sent.
    Viewing {
        local_id: LocalJobId,
        seeked: bool,
    },
    /// Storyboard: finished at this instant.
    Settling(Instant),
    /// Video edit: the clip is the source since this instant (the strip is loading).
    Editing(Instant),
    Failed,
}

impl StudioApp {
    /// One step of the staged scene, once a frame.
    pub(super) fn screenshot_scene_step(&mut self) {
        let Some(stage) = self.screenshot_scene.take() else {
            return;
        };
        let next = match stage {
            SceneStage::Starting(scene) if self.model.catalog.is_loaded() => {
                let (spec, model_label) = scene.spec();
                let credits_estimate = self
                    .model
                    .model_by_id(spec.request.model.as_deref().unwrap_or_default())
                    .and_then(|record| crate::api::estimate_credits(record, &spec));
                self.send(Command::Submit {
                    spec,
                    model_label: model_label.to_owned(),
                    credits_estimate,
                });
                SceneStage::Running(scene)
            }
            SceneStage::Running(scene) => self.scene_job_progress(scene),
            SceneStage::Viewing { local_id, seeked } => {
                let seeked = seeked
                    || self
                        .viewer
                        .video_player()
                        .filter(|player| player.shown_frame().is_some())
                        .is_some_and(|player| player.seek_frame(VIDEO_FRAME));
                SceneStage::Viewing { local_id, seeked }
            }
            SceneStage::Editing(since)
                if since.elapsed() >= STRIP_SETTLE_LIMIT && !self.edit_scene_shown() =>
            {
                eprintln!("screenshot: the trim timeline's thumbnail strip did not load");
                SceneStage::Failed
            }
            other => other,
        };
        self.screenshot_scene = Some(next);
    }

    /// The video-edit scene shows its source frame and the whole thumbnail strip.
    fn edit_scene_shown(&self) -> bool {
        let stage = &self.create.edit_stage;
        let strip_done = stage.timeline.as_ref().is_some_and(|t| {
            let slots = t.strip.slots();
            !slots.is_empty() && slots.iter().all(Option::is_some)
        });
        strip_done && stage.player.shown_frame().is_some()
    }

    fn scene_job_progress(&mut self, scene: ScreenshotScene) -> SceneStage {
        let kind = scene.spec().0.kind;
        let Some(job) = self
            .model
            .jobs
            .values()
            .filter(|job| job.spec.kind == kind)
            .max_by_key(|job| job.local_id)
        else {
            return SceneStage::Running(scene);
        };
        match (&job.phase, scene) {
            (JobPhase::Completed, ScreenshotScene::Video) => {
                let local_id = job.local_id;
                self.viewer
                    .open(vec![ResultRef::Job { local_id, index: 0 }], 0);
                SceneStage::Viewing {
                    local_id,
                    seeked: false,
                }
            }
            (JobPhase::Completed, ScreenshotScene::VideoEdit) => {
                let Some(result) = job.result.clone() else {
                    return SceneStage::Failed;
                };
                let Some(url) = result.urls.first() else {
                    return SceneStage::Failed;
                };
                self.view = View::Create;
                self.create.edit_video(
                    url,
                    "lighthouse.mp4",
                    result.duration,
                    result.thumbnail_url.as_deref(),
                    crate::ui::compose::video_edit::EditChoice::Trim,
                );
                let fields = &mut self.create.video_edit.fields;
                (fields.trim_in_secs, fields.trim_out_secs) =
                    (TRIM_SCENE_SECS.0, Some(TRIM_SCENE_SECS.1));
                SceneStage::Editing(Instant::now())
            }
            (JobPhase::Completed, ScreenshotScene::Storyboard) => {
                self.view = View::Create;
                // The form as the artist left it after submitting the batch.
                let (spec, _) = scene.spec();
                self.create.reuse(spec.kind, &spec.request);
                SceneStage::Settling(Instant::now())
            }
            (phase, _) if phase.is_finished() => {
                eprintln!("screenshot: the staged job ended {}", phase.label());
                SceneStage::Failed
            }
            _ => SceneStage::Running(scene),
        }
    }

    /// Whether the view has what it shows (or said why it cannot), so the capture may be
    /// taken.
    pub(super) fn screenshot_data_ready(&self) -> bool {
        if self.frames_laid_out < 2 {
            return false;
        }
        if let Some(ready) = self.screenshot_scene_ready() {
            return ready;
        }
        let connection_settled = self.session.connection_error().is_some()
            || self.model.catalog.is_loaded()
            || self.model.credits.is_loaded();
        match self.view {
            View::Create => {
                self.session.connection_error().is_some()
                    || (self.model.catalog.is_loaded()
                        && self.model.projects.is_loaded()
                        && self.model.credits.is_loaded())
            }
            View::Library => {
                self.session.connection_error().is_some() || self.library.first_answers_in()
            }
            View::Palettes => {
                self.session.connection_error().is_some()
                    || self.model.palettes.error.is_some()
                    || (self.model.palettes.is_loaded() && !self.model.palettes.pending)
            }
            View::Chat => self.session.connection_error().is_some() || self.chat.scene_done(),
            View::Presets => {
                self.session.connection_error().is_some()
                    || self.model.presets.error.is_some()
                    || (self.model.presets.is_loaded() && !self.model.presets.pending)
            }
            _ => connection_settled,
        }
    }

    /// `Some(ready)` while a scene is staged: the capture may be taken once it shows (or
    /// the staging gave up, so the timeout does not have to).
    fn screenshot_scene_ready(&self) -> Option<bool> {
        Some(match self.screenshot_scene.as_ref()? {
            SceneStage::Failed => true,
            SceneStage::Viewing { seeked: true, .. } => self
                .viewer
                .video_player()
                .is_some_and(|p| p.shown_frame() == Some(VIDEO_FRAME)),
            SceneStage::Settling(since) => since.elapsed() >= POSTERS_SETTLE,
            SceneStage::Editing(_) => self.edit_scene_shown(),
            _ => false,
        })
    }
}
