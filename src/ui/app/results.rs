//! Applying [`ResultAction`]s: what happens when an artist opens, reuses, varies,
//! favourites or trashes a finished result from the Create canvas, the viewer, the tray
//! or the library.

use super::StudioApp;
use crate::api::pricing::{estimate_credits, estimate_range_for_auto};
use crate::api::video_edit::VideoEditOperationKind;
use crate::api::{GenerationKind, GenerationRequest, GenerationSpec};
use crate::engine::Command;
use crate::ui::compose::video_edit::EditChoice;
use crate::ui::library::LibraryAction;
use crate::ui::model::{Action, Confirm, ResultAction, ResultRef, View};
use crate::ui::toasts::ToastKind;

/// A video output: what a video edit needs to start.
struct VideoOutput {
    url: String,
    label: String,
    duration_secs: Option<f64>,
    poster_url: Option<String>,
}

/// One output of a result: its url and a short label (for source chips).
pub(super) struct Output {
    pub(super) url: String,
    pub(super) label: String,
}

impl StudioApp {
    pub(super) fn apply_result_action(&mut self, ctx: &egui::Context, action: ResultAction) {
        match action {
            ResultAction::Open { list, index } => {
                // One video plays at a time: the canvas's waits while the viewer is open.
                self.create.canvas_player.pause();
                self.viewer.open(list, index)
            }
            ResultAction::Reuse(result) if self.video_job_of(&result).is_some() => {
                if let Some(spec) = self.video_job_of(&result) {
                    let words = if spec.catalog.is_some() {
                        self.create.reuse_catalog(&spec);
                        "Media, prompt and settings copied into Create"
                    } else if spec.audio.is_some() {
                        self.create.reuse_audio(&spec);
                        "Prompt and settings copied into Create"
                    } else {
                        self.create.reuse_video_edit(&spec);
                        "The edit's source and settings are back in Create"
                    };
                    self.show_create(ctx);
                    self.toasts.push(ToastKind::Info, words);
                }
            }
            ResultAction::Reuse(result) => match self.request_of(&result) {
                // An upscale or cut-out has no prompt or settings of its own to reuse.
                Some((GenerationKind::ImageTool, _)) => self.toasts.push(
                    ToastKind::Info,
                    "An upscale or background removal has no prompt to reuse; its tools are \
                     on the image.",
                ),
                Some((kind, request)) => {
                    self.create.reuse(kind, &request);
                    self.show_create(ctx);
                    self.toasts
                        .push(ToastKind::Info, "Prompt and settings copied into Create");
                }
                None => self.toasts.push(
                    ToastKind::Error,
                    "This result's prompt and settings are no longer known.",
                ),
            },
            ResultAction::UseAsEditSource(result) => match self.output_of(&result) {
                Some(output) => {
                    self.create.use_as_edit_source(&output.url, &output.label);
                    self.show_create(ctx);
                    self.toasts
                        .push(ToastKind::Info, "Added as the source of an image edit");
                }
                None => self
                    .toasts
                    .push(ToastKind::Error, "This result's image is no longer known."),
            },
            ResultAction::Animate(result) => match self.output_of(&result) {
                Some(output) => {
                    self.create.animate(&output.url, &output.label);
                    self.show_create(ctx);
                    self.toasts.push(
                        ToastKind::Info,
                        "Added as the image to animate (Image to video)",
                    );
                }
                None => self
                    .toasts
                    .push(ToastKind::Error, "This result's image is no longer known."),
            },
            ResultAction::EditVideo { result, trim } => match self.video_of(&result) {
                Some(video) => {
                    let choice = if trim {
                        EditChoice::Trim
                    } else if self.create.video_edit.choice == EditChoice::Trim {
                        EditChoice::Operation(VideoEditOperationKind::Upscale)
                    } else {
                        self.create.video_edit.choice
                    };
                    self.create.edit_video(
                        &video.url,
                        &video.label,
                        video.duration_secs,
                        video.poster_url.as_deref(),
                        choice,
                    );
                    self.show_create(ctx);
                }
                None => self
                    .toasts
                    .push(ToastKind::Error, "This video's address is no longer known."),
            },
            ResultAction::Vary(result) => match self.variation_of(&result) {
                Some(spec) => {
                    let credits = self.cost_of(&spec, &result);
                    self.confirm = Some(Confirm::Vary { result, credits });
                }
                None => self.toasts.push(
                    ToastKind::Error,
                    "This result's prompt and settings are no longer known, so it can't be varied.",
                ),
            },
            ResultAction::SetFavourite { result, favourite } => {
                self.change_in_library(ctx, result, Some(favourite));
            }
            ResultAction::Trash(result) => self.change_in_library(ctx, result, None),
            ResultAction::FileOut { result, purpose } => self.start_file_out(&result, purpose),
            ResultAction::Transcribe(result) => self.transcribe(result),
            ResultAction::ImageTool { result, tool } => match self.output_of(&result) {
                Some(output) => {
                    let project_id = match &result {
                        ResultRef::Media(item) => item.project_id.clone(),
                        ResultRef::Job { .. } => {
                            self.request_of(&result).and_then(|(_, r)| r.project_id)
                        }
                    };
                    self.send(crate::ui::image_tools::submit_command(
                        tool,
                        &output.url,
                        &output.label,
                        project_id,
                    ));
                    self.toasts.push(
                        ToastKind::Info,
                        format!("{} started: follow it in the tray", tool.label()),
                    );
                }
                None => self
                    .toasts
                    .push(ToastKind::Error, "This result's image is no longer known."),
            },
        }
    }

    /// Submit the variation the artist confirmed: the same request with a new seed.
    pub(super) fn submit_variation(&mut self, result: &ResultRef) {
        let Some(spec) = self.variation_of(result) else {
            return;
        };
        let credits_estimate = self.cost_of(&spec, result);
        let model_label = match result {
            ResultRef::Job { local_id, .. } => self
                .model
                .jobs
                .get(local_id)
                .map(|job| job.model_label.clone()),
            ResultRef::Media(_) => None,
        }
        .or_else(|| {
            let id = spec.request.model.as_deref()?;
            Some(self.model.model_by_id(id)?.display_name().to_owned())
        })
        .unwrap_or_else(|| "Auto".to_owned());
        self.send(Command::Submit {
            spec,
            model_label,
            credits_estimate,
        });
    }

    fn show_create(&mut self, ctx: &egui::Context) {
        self.apply(ctx, Action::CloseViewer);
        self.apply(ctx, Action::Navigate(View::Create));
        self.create.on_shown();
    }

    /// The kind and request that made `result`.
    fn request_of(&self, result: &ResultRef) -> Option<(GenerationKind, GenerationRequest)> {
        match result {
            ResultRef::Job { local_id, .. } => {
                let job = self.model.jobs.get(local_id)?;
                Some((job.spec.kind, job.spec.request.clone()))
            }
            ResultRef::Media(item) => {
                let text = |keys: &[&str]| {
                    keys.iter()
                        .filter_map(|k| item.metadata.get(*k)?.as_str())
                        .find(|v| !v.trim().is_empty())
                        .map(str::to_owned)
                };
                let kind = match item.generation_type.as_deref() {
                    Some(t) if t.contains("from_image") || t.contains("from-image") => {
                        GenerationKind::ImageToVideo
                    }
                    Some(t) if t.contains("video") => GenerationKind::TextToVideo,
                    Some(t) if t.contains("edit") => GenerationKind::ImageEdit,
                    _ if item.kind() == "video" => GenerationKind::TextToVideo,
                    _ => GenerationKind::Image,
                };
                let num_images = ["numImages", "num_images"]
                    .iter()
                    .find_map(|k| item.metadata.get(*k)?.as_u64())
                    .and_then(|n| u32::try_from(n).ok());
                let request = GenerationRequest {
                    kind_hint: Some(kind),
                    prompt: item.prompt_text()?.to_owned(),
                    model: text(&["model", "modelIdentifier", "model_identifier"]),
                    aspect_ratio: text(&["aspectRatio", "aspect_ratio"]),
                    resolution: text(&["resolution"]),
                    num_images: (!kind.is_video()).then_some(num_images).flatten(),
                    duration: kind.is_video().then_some(item.duration).flatten(),
                    project_id: item.project_id.clone(),
                    ..GenerationRequest::default()
                };
                Some((kind, request))
            }
        }
    }

    /// The output `result` stands for.
    pub(super) fn output_of(&self, result: &ResultRef) -> Option<Output> {
        match result {
            ResultRef::Job { local_id, index } => {
                let job = self.model.jobs.get(local_id)?;
                let url = job.current_result()?.urls.get(*index)?.clone();
                let label = format!(
                    "{} · result {}",
                    crate::ui::format::excerpt(&crate::ui::job_wording::job_subject(job), 28),
                    index + 1
                );
                Some(Output { url, label })
            }
            ResultRef::Media(item) => Some(Output {
                url: item.url.clone(),
                label: item.display_name().to_owned(),
            }),
        }
    }

    /// A video result's address, name, length and poster, for a video edit.
    fn video_of(&self, result: &ResultRef) -> Option<VideoOutput> {
        let output = self.output_of(result)?;
        let (duration_secs, poster_url) = match result {
            ResultRef::Job { local_id, index } => {
                let job = self.model.jobs.get(local_id)?;
                let current = job.current_result()?;
                (
                    current.duration,
                    crate::ui::result_tile::job_output_picture(&current, *index)
                        .filter(|p| *p != output.url)
                        .map(str::to_owned),
                )
            }
            ResultRef::Media(item) => (item.duration, item.thumbnail_url.clone()),
        };
        Some(VideoOutput {
            url: output.url,
            label: output.label,
            duration_secs,
            poster_url,
        })
    }

    /// The request for a variation of `result`: the same kind and settings, a new seed.
    /// The contract leaves the seed to the service when it is omitted (the local sandbox
    /// then derives it from the prompt), so a variation sends a fresh one explicitly.
    /// Edits, restyles and trims take no seed: their variation is the same request again
    /// (a new job, asked first like any variation).
    fn variation_of(&self, result: &ResultRef) -> Option<GenerationSpec> {
        if let Some(spec) = self.video_job_of(result) {
            return Some(spec);
        }
        let (kind, mut request) = self.request_of(result)?;
        request.seed = Some(new_seed());
        request.kind_hint = Some(kind);
        Some(GenerationSpec::new(kind, request))
    }

    /// The spec of a video edit, restyle or trim job behind `result` (or of a music,
    /// speech or sound job: its body too is more than the request mirrors).
    fn video_job_of(&self, result: &ResultRef) -> Option<GenerationSpec> {
        let ResultRef::Job { local_id, .. } = result else {
            if let ResultRef::Media(item) = result
                && crate::ui::audio::is_audio_item(item)
            {
                // A generated sound in the Library: its request from the item's metadata.
                return crate::ui::compose::audio_form::audio_spec_of_item(item);
            }
            return None;
        };
        let job = self.model.jobs.get(local_id)?;
        (job.spec.video.is_some() || job.spec.audio.is_some() || job.spec.catalog.is_some())
            .then(|| job.spec.clone())
    }

    /// What a new job of `spec` costs, as well as it can be told before it runs.
    fn cost_of(&self, spec: &GenerationSpec, result: &ResultRef) -> Option<f64> {
        if spec.video.is_some() || spec.audio.is_some() {
            // The same edit of the same source (or the same sound request) costs what it
            // cost (or was estimated at).
            let ResultRef::Job { local_id, .. } = result else {
                return None;
            };
            let job = self.model.jobs.get(local_id)?;
            return job.credits_used.or(job.credits_estimate);
        }
        let estimate = match spec.request.model.as_deref() {
            Some(id) => self
                .model
                .model_by_id(id)
                .and_then(|record| estimate_credits(record, spec)),
            None => {
                let candidates: Vec<_> = self
                    .model
                    .models_of_kind(spec.catalog_type())
                    .into_iter()
                    .cloned()
                    .collect();
                estimate_range_for_auto(&candidates, spec).map(|(_, high)| high)
            }
        };
        estimate.or_else(|| match result {
            ResultRef::Job { local_id, .. } => {
                let job = self.model.jobs.get(local_id)?;
                job.credits_used.or(job.credits_estimate)
            }
            ResultRef::Media(item) => item.credits_used(),
        })
    }

    /// Favourite (`Some`) or trash (`None`) the library item of a result.
    fn change_in_library(
        &mut self,
        ctx: &egui::Context,
        result: ResultRef,
        favourite: Option<bool>,
    ) {
        let follow_ups = match result {
            ResultRef::Media(item) => vec![Action::Library(match favourite {
                Some(favourite) => LibraryAction::Favourite {
                    ids: vec![item.id.clone()],
                    favourite,
                },
                None => LibraryAction::Trash(vec![item.id.clone()]),
            })],
            ResultRef::Job { local_id, index } => {
                let Some(job) = self.model.jobs.get(&local_id) else {
                    return;
                };
                let Some(url) = job.result.as_ref().and_then(|r| r.urls.get(index)).cloned() else {
                    return;
                };
                let generation_id = job.generation_id.clone();
                let project_id = job.spec.request.project_id.clone();
                self.create
                    .change_job_result(&url, generation_id, project_id, favourite)
            }
        };
        for action in follow_ups {
            self.apply(ctx, action);
        }
    }
}

/// A fresh seed for a variation (any non-negative 32-bit value is accepted).
fn new_seed() -> u64 {
    u64::from(uuid::Uuid::new_v4().as_u128() as u32)
}

impl StudioApp {
    /// `ResultAction::Transcribe`: the job at once with the default options, then the
    /// viewer on the result, where the transcript shows beside the player as it arrives.
    fn transcribe(&mut self, result: ResultRef) {
        let Some(output) = self.output_of(&result) else {
            self.toasts
                .push(ToastKind::Error, "This result's file is no longer known.");
            return;
        };
        let (duration_secs, project_id) = match &result {
            ResultRef::Media(item) => (item.duration, item.project_id.clone()),
            ResultRef::Job { local_id, .. } => {
                let job = self.model.jobs.get(local_id);
                (
                    job.and_then(|j| j.result.as_ref()).and_then(|r| r.duration),
                    job.and_then(|j| j.spec.request.project_id.clone()),
                )
            }
        };
        let cost = crate::ui::transcript::jobs::cost_estimate(&self.model, duration_secs);
        self.send(crate::ui::transcript::jobs::submit_command(
            &output.url,
            project_id,
            cost,
        ));
        self.toasts.push(
            ToastKind::Info,
            "Transcribing: the words show beside the player when they are ready",
        );
        if !self.viewer.is_open() {
            match result {
                ResultRef::Job { local_id, index } => {
                    self.viewer.open_job(&self.model, local_id, index)
                }
                media => self.viewer.open(vec![media], 0),
            }
        }
    }
}
