//! When a `--screenshot-to` run may take its picture, and the staged scenes of
//! `--view video|storyboard|video-edit|docs`: make the work a picture needs through the
//! engine, as an artist would (a text-to-video job, a Creative Director batch, or saved
//! documents), then show it: the video paused on a frame past the start in the viewer, the
//! finished storyboard on the Create canvas, the video on the trim timeline with its
//! thumbnail strip, or a shared call sheet with a table in the Docs editor and preview.
//! With `--tray open` and no other scene, one finished image job is staged so the open
//! tray has a card (the view is left as it is).

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
    /// A saved, shared document with a table, open in the Docs editor beside its preview.
    Docs,
    /// One finished image job in the tray (`--tray open`); the view is left as it is.
    TrayJob,
    /// The `Video` clip transcribed: the transcript beside the player, a subtitle over it.
    Transcript,
    /// A finished Suno song: its two variations side by side on the Create canvas, each
    /// with its title and waveform.
    Music,
    /// A 3D model made from text, open on the viewer's turntable.
    ThreeD,
}

impl ScreenshotScene {
    /// The job a scene makes (`None`: the Docs scene makes documents instead).
    fn spec(self) -> Option<(GenerationSpec, &'static str)> {
        Some(match self {
            ScreenshotScene::Docs => return None,
            ScreenshotScene::Video | ScreenshotScene::VideoEdit | ScreenshotScene::Transcript => (
                GenerationSpec {
                    catalog: None,
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
                    audio: None,
                },
                "Veo 3",
            ),
            ScreenshotScene::Music => (
                GenerationSpec::for_audio(crate::api::AudioJobRequest::Music(
                    crate::api::MusicRequest {
                        prompt: "a warm synthwave drive along a coastal road at night".into(),
                        model: Some("suno/v4.5".into()),
                        style: Some("synthwave, 96 bpm".into()),
                        lyrics: Some(
                            "Headlights on the water\nthe radio low\nwe follow the coast\nwherever it goes"
                                .into(),
                        ),
                        vocal_gender: Some("f".into()),
                        duration: Some(30.0),
                        ..crate::api::MusicRequest::default()
                    },
                )),
                "Suno 4.5",
            ),
            ScreenshotScene::ThreeD => (
                GenerationSpec::for_catalog(crate::api::CatalogJobRequest::ThreeD(
                    crate::api::ThreeDRequest {
                        prompt: "a brass desk lamp with a round shade".into(),
                        model: Some("tripo/v2.5-text".into()),
                        target_polycount: Some(50_000),
                        ..crate::api::ThreeDRequest::default()
                    },
                )),
                "Tripo 2.5 Text-to-3D",
            ),
            ScreenshotScene::TrayJob => (
                GenerationSpec {
                    catalog: None,
                    kind: GenerationKind::Image,
                    request: GenerationRequest {
                        prompt: "a quiet harbour at dawn, mist over the water".into(),
                        model: Some("fal-ai/flux/schnell".into()),
                        aspect_ratio: Some("16:9".into()),
                        ..GenerationRequest::default()
                    },
                    video: None,
                    audio: None,
                },
                "Flux Schnell",
            ),
            ScreenshotScene::Storyboard => (
                GenerationSpec {
                    catalog: None,
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
                    audio: None,
                },
                "Flux Schnell",
            ),
        })
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
    /// Music: finished; the canvas shows these sounds once their waveforms are in.
    Listening(Vec<String>),
    /// Video edit: the clip is the source since this instant (the strip is loading).
    Editing(Instant),
    /// Docs: where the staging of the documents is.
    Docs(DocsScene),
    /// The tray's job finished: the view's own data decides when to capture.
    TrayJobDone,
    /// Transcript: the video is in the viewer and being transcribed; then the player is
    /// sent to this frame (inside a cue) and the capture waits for it.
    Transcribing {
        frame: Option<u32>,
    },
    /// 3D: the model is open in the viewer; captured once its turntable has drawn it.
    Turntable,
    Failed,
}

/// The steps of the Docs scene.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DocsScene {
    /// Waiting for the list (the project must be known).
    Listing,
    /// The earlier documents were sent; the list is read again (since that instant)
    /// until it holds them, so the call sheet is made after them: newest first.
    Preparing(Instant),
    /// The call sheet is being saved (or opened, when an earlier run made it).
    Saving,
    /// Sharing it, so the list and the header show the shared state.
    Sharing,
    /// The list is asked again so it holds every staged document.
    Relisting,
    Shown,
}

impl StudioApp {
    /// One step of the staged scene, once a frame.
    pub(super) fn screenshot_scene_step(&mut self) {
        let Some(stage) = self.screenshot_scene.take() else {
            return;
        };
        let next = match stage {
            SceneStage::Starting(ScreenshotScene::Docs) => {
                // The documents make no job: with the tray open, one image job fills it.
                if self.tray.open_chosen() {
                    self.submit_scene_job(ScreenshotScene::TrayJob);
                }
                SceneStage::Docs(DocsScene::Listing)
            }
            SceneStage::Docs(step) => self.docs_scene_step(step),
            SceneStage::Starting(scene) if self.model.catalog.is_loaded() => {
                if !self.submit_scene_job(scene) {
                    self.screenshot_scene = Some(SceneStage::Failed);
                    return;
                }
                SceneStage::Running(scene)
            }
            SceneStage::Running(scene) => self.scene_job_progress(scene),
            SceneStage::Transcribing { frame: None } => self.transcript_scene_seek(),
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

    /// Submit the job `scene` makes (false: it makes none).
    fn submit_scene_job(&mut self, scene: ScreenshotScene) -> bool {
        let Some((spec, model_label)) = scene.spec() else {
            return false;
        };
        let credits_estimate = self
            .model
            .model_by_id(spec.request.model.as_deref().unwrap_or_default())
            .and_then(|record| crate::api::estimate_credits(record, &spec));
        self.send(Command::Submit {
            spec,
            model_label: model_label.to_owned(),
            credits_estimate,
        });
        true
    }

    /// Transcript: once the cues and the first frame are in, show the middle of the cue
    /// at about a third of the clip (its subtitle over the picture, its row highlighted).
    fn transcript_scene_seek(&mut self) -> SceneStage {
        let Some(player) = self.viewer.video_player() else {
            return SceneStage::Transcribing { frame: None };
        };
        let cues = self
            .viewer
            .transcript()
            .map(|t| t.state.cues().to_vec())
            .unwrap_or_default();
        let (Some(fps), Some(_)) = (player.fps(), player.shown_frame()) else {
            return SceneStage::Transcribing { frame: None };
        };
        let Some(cue) = cues.get(cues.len() / 3) else {
            return SceneStage::Transcribing { frame: None };
        };
        let frame = ((cue.start_secs + cue.end_secs) / 2.0 * fps).floor() as u32;
        player.seek_frame(frame);
        SceneStage::Transcribing { frame: Some(frame) }
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
        let Some((GenerationSpec { kind, .. }, _)) = scene.spec() else {
            return SceneStage::Failed;
        };
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
                if let Some((spec, _)) = scene.spec() {
                    self.create.reuse(spec.kind, &spec.request);
                }
                SceneStage::Settling(Instant::now())
            }
            (JobPhase::Completed, ScreenshotScene::TrayJob) => SceneStage::TrayJobDone,
            (JobPhase::Completed, ScreenshotScene::ThreeD) => {
                let local_id = job.local_id;
                self.viewer
                    .open(vec![ResultRef::Job { local_id, index: 0 }], 0);
                SceneStage::Turntable
            }
            (JobPhase::Completed, ScreenshotScene::Music) => {
                let urls: Vec<String> = job
                    .result
                    .as_ref()
                    .map(|r| r.audio_tracks().into_iter().map(|t| t.url).collect())
                    .unwrap_or_default();
                if urls.is_empty() {
                    return SceneStage::Failed;
                }
                self.view = View::Create;
                // The form as the artist left it after submitting the song.
                if let Some((spec, _)) = scene.spec() {
                    self.create.reuse_audio(&spec);
                }
                SceneStage::Listening(urls)
            }
            (JobPhase::Completed, ScreenshotScene::Transcript) => {
                let local_id = job.local_id;
                let Some(url) = job.result.as_ref().and_then(|r| r.urls.first()).cloned() else {
                    return SceneStage::Failed;
                };
                self.viewer
                    .open(vec![ResultRef::Job { local_id, index: 0 }], 0);
                // Short cues (4 words, one line), so the list shows several.
                let request = crate::api::TranscriptionRequest {
                    words_per_line: Some(4),
                    lines_per_subtitle: Some(1),
                    ..crate::api::TranscriptionRequest::of(&url)
                };
                self.send(Command::Submit {
                    spec: GenerationSpec::for_audio(crate::api::AudioJobRequest::Transcription(
                        request,
                    )),
                    model_label: "Auto".to_owned(),
                    credits_estimate: None,
                });
                SceneStage::Transcribing { frame: None }
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
    pub(super) fn screenshot_data_ready(&self, ctx: &egui::Context) -> bool {
        if self.frames_laid_out < 2 {
            return false;
        }
        if let Some(ready) = self.screenshot_scene_ready(ctx) {
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
            View::VisualDna => {
                self.session.connection_error().is_some()
                    || self.looks.entries_error.is_some()
                    || (self.looks.entries_loaded && self.looks.boards_loaded)
            }
            View::Presets => {
                self.session.connection_error().is_some()
                    || self.model.presets.error.is_some()
                    || (self.model.presets.is_loaded() && !self.model.presets.pending)
            }
            View::Docs => {
                self.session.connection_error().is_some()
                    || self.docs.list.error.is_some()
                    || self.docs.list.is_loaded()
            }
            _ => connection_settled,
        }
    }

    /// `Some(ready)` while a scene is staged: the capture may be taken once it shows (or
    /// the staging gave up, so the timeout does not have to).
    fn screenshot_scene_ready(&self, ctx: &egui::Context) -> Option<bool> {
        Some(match self.screenshot_scene.as_ref()? {
            SceneStage::Failed => true,
            SceneStage::Listening(urls) => urls.iter().all(|url| {
                !matches!(
                    crate::ui::audio::sounds::lookup(ctx, url),
                    crate::ui::audio::sounds::SoundLookup::Loading
                )
            }),
            SceneStage::Viewing { seeked: true, .. } => self
                .viewer
                .video_player()
                .is_some_and(|p| p.shown_frame() == Some(VIDEO_FRAME)),
            SceneStage::Settling(since) => since.elapsed() >= POSTERS_SETTLE,
            SceneStage::Editing(_) => self.edit_scene_shown(),
            SceneStage::Docs(step) => *step == DocsScene::Shown && self.model.running_count() == 0,
            SceneStage::TrayJobDone => return None,
            SceneStage::Turntable => self
                .viewer
                .model_3d()
                .is_some_and(|v| v.frames_rendered() > 0 || v.error().is_some()),
            SceneStage::Transcribing { frame: Some(frame) } => self
                .viewer
                .video_player()
                .is_some_and(|p| p.shown_frame() == Some(*frame)),
            _ => false,
        })
    }
}

/// The Docs scene's call sheet (found by title when an earlier run made it).
const SCENE_DOC_TITLE: &str = "Harbour shoot — call sheet";
const SCENE_DOC_MARKDOWN: &str = "\
# Harbour shoot

Two days on the **north pier**, golden hour both evenings. Weather calls and the \
shot list are in the [production folder](https://example.com/harbour).

## Call times

| Role | Name | Call | Wrap |
| --- | --- | --- | --- |
| Director | Ana Reyes | 05:30 | 21:00 |
| Camera | Bo Lindqvist | 05:45 | 21:00 |
| Sound | Chen Wei | 06:00 | 20:30 |
| Grip | Dara Okafor | 05:30 | 21:30 |

## Bring

- Warm layers and *waterproof boots*
- Spare batteries for the drone
- Tide tables for both days

> The pier closes to the public at 18:00; keep the walkway clear until then.
";
/// How often the Docs scene reads the list while waiting for its earlier documents.
const SCENE_RELIST_EVERY: Duration = Duration::from_millis(250);
/// Earlier documents, so the list shows the newest-first order.
const SCENE_OTHER_DOCS: [(&str, &str); 2] = [
    (
        "Colour notes",
        "<h2>Grade</h2><p>Warm highlights, teal shadows.</p>",
    ),
    (
        "Location scout",
        "<p>North pier: power at the kiosk, parking behind the fish market.</p>",
    ),
];

impl StudioApp {
    /// One step of the Docs scene: make (or open) the call sheet, share it, list again.
    fn docs_scene_step(&mut self, step: DocsScene) -> SceneStage {
        use crate::api::NewDoc;
        use crate::engine::DocsCommand;
        use crate::ui::docs::DocsAction;
        let project_id = self.create.form.project_id.clone();
        let plain = |app: &mut Self, action: DocsAction| {
            for follow_up in app.docs.apply(action, project_id.as_deref()) {
                app.apply_plain(follow_up);
            }
        };
        let saved = |app: &Self| {
            app.docs
                .draft()
                .is_some_and(|d| d.meta.is_some() && !d.is_dirty())
                && !app.docs.is_saving()
        };
        SceneStage::Docs(match step {
            DocsScene::Listing if self.docs.list.error.is_some() => {
                eprintln!("screenshot: the document list did not load");
                return SceneStage::Failed;
            }
            DocsScene::Listing if self.docs.list.is_loaded() => {
                let existing = self
                    .docs
                    .list
                    .docs
                    .iter()
                    .find(|d| d.title == SCENE_DOC_TITLE)
                    .map(|d| d.id.clone());
                if let Some(id) = existing {
                    plain(self, DocsAction::Open(id));
                    return SceneStage::Docs(DocsScene::Saving);
                }
                for (index, (title, content)) in SCENE_OTHER_DOCS.iter().enumerate() {
                    self.send(Command::Docs(DocsCommand::Create {
                        // Answers nobody waits for (the list shows the result).
                        op_id: u64::MAX - index as u64,
                        body: NewDoc {
                            title: (*title).to_owned(),
                            content: Some((*content).to_owned()),
                            project_id: project_id.clone(),
                        },
                    }));
                }
                DocsScene::Preparing(Instant::now())
            }
            DocsScene::Preparing(since) if self.docs.list.loading.is_none() => {
                let listed = |title: &str| self.docs.list.docs.iter().any(|d| d.title == title);
                if SCENE_OTHER_DOCS.iter().all(|(title, _)| listed(title)) {
                    plain(self, DocsAction::New);
                    if let Some(draft) = self.docs.draft_mut() {
                        draft.title = SCENE_DOC_TITLE.to_owned();
                        draft.markdown = SCENE_DOC_MARKDOWN.to_owned();
                        draft.markdown_changed();
                    }
                    plain(self, DocsAction::Save);
                    DocsScene::Saving
                } else if since.elapsed() >= SCENE_RELIST_EVERY {
                    plain(self, DocsAction::Reload);
                    DocsScene::Preparing(Instant::now())
                } else {
                    DocsScene::Preparing(since)
                }
            }
            DocsScene::Saving if saved(self) => {
                plain(
                    self,
                    DocsAction::SetSharing {
                        shared: true,
                        editable: false,
                    },
                );
                DocsScene::Sharing
            }
            DocsScene::Sharing if self.docs.sharing.is_none() => {
                plain(self, DocsAction::Reload);
                DocsScene::Relisting
            }
            DocsScene::Relisting if self.docs.list.is_loaded() => DocsScene::Shown,
            other => other,
        })
    }
}
