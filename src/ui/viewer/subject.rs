//! What the viewer shows about one [`ResultRef`]: the image URL, a title, the prompt and
//! the facts a person asks about (model, credits, created, size, dimensions, favourite).
//! Job outputs read the job record; library items read the newest copy the library holds.

use crate::api::media::MediaItem;
use crate::ui::format;
use crate::ui::library::detail::human_bytes;
use crate::ui::model::{Model, ResultRef};

/// One result, ready to lay out.
#[derive(Clone, Debug, PartialEq)]
pub struct Subject {
    /// The full-size image (or the media file) URL; empty when the service gave none.
    pub url: String,
    /// Shown while the image itself loads, and for videos (a poster frame).
    pub thumbnail_url: Option<String>,
    /// Only images can be zoomed or used as an edit source.
    pub is_image: bool,
    /// Videos play in the viewer (see `ui::video::is_video`).
    pub is_video: bool,
    /// Sounds open in the audio view (see `ui::audio::is_audio_item`).
    pub is_audio: bool,
    /// A song's lyrics (music results), shown under the waveform.
    pub lyrics: Option<String>,
    pub title: String,
    pub subtitle: Option<String>,
    pub prompt: Option<String>,
    /// Label, value pairs for the facts grid.
    pub facts: Vec<(&'static str, String)>,
    /// `None` when the studio does not know (a job output not yet seen in the library).
    pub favourite: Option<bool>,
    /// The video an edit, restyle or trim was made from (the viewer's Before / After).
    pub source_video_url: Option<String>,
    /// A 3D model: `url` is its GLB, shown on the turntable; `model_files` the files to
    /// save, one per format ("GLB", "OBJ").
    pub is_model_3d: bool,
    pub model_files: Vec<(String, String)>,
}

/// The files of a 3D result, one per format, GLB first: from `formats` (format → URL)
/// when given, else the URLs by their extension.
pub fn model_files(
    urls: &[String],
    formats: Option<&serde_json::Map<String, serde_json::Value>>,
) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = Vec::new();
    if let Some(formats) = formats {
        for (format, url) in formats {
            if let Some(url) = url.as_str().filter(|u| !u.is_empty()) {
                files.push((format.to_ascii_uppercase(), url.to_owned()));
            }
        }
    }
    for url in urls {
        let path = url.split(['?', '#']).next().unwrap_or(url);
        if let Some((_, ext)) = path.rsplit_once('.') {
            let format = ext.to_ascii_uppercase();
            if matches!(format.as_str(), "GLB" | "OBJ" | "FBX" | "USDZ" | "GLTF")
                && !files.iter().any(|(f, _)| *f == format)
            {
                files.push((format, url.clone()));
            }
        }
    }
    files.sort_by_key(|(format, _)| match format.as_str() {
        "GLB" => 0,
        "OBJ" => 1,
        _ => 2,
    });
    files
}

/// Resolve `result`. `live_media` is the library's current copy of a media item (its
/// favourite state may have changed since the viewer opened). `None` when the job is gone.
pub fn subject_of(
    result: &ResultRef,
    model: &Model,
    live_media: Option<&MediaItem>,
) -> Option<Subject> {
    match result {
        ResultRef::Job { local_id, index } => {
            let job = model.jobs.get(local_id)?;
            let output = job.current_result().unwrap_or_default();
            let url = output.urls.get(*index)?.clone();
            let prompt = output
                .prompt_used
                .clone()
                .filter(|p| !p.trim().is_empty())
                .or_else(|| Some(job.spec.request.prompt.clone()))
                .filter(|p| !p.trim().is_empty());
            // A trim runs no model and costs nothing: its label names the source and the
            // span cut from it.
            let is_trim = job.spec.kind == crate::api::GenerationKind::VideoTrim;
            let mut facts = if is_trim {
                vec![("Trimmed from", job.model_label.clone())]
            } else {
                // The catalog's name of the model that ran ("FLUX.1 [schnell]", not
                // "fal-ai/flux/schnell" or "Auto").
                vec![("Model", crate::ui::job_wording::model_name(job, model))]
            };
            facts.push((
                "Credits",
                match (job.credits_used, job.credits_estimate) {
                    _ if is_trim => "free".to_owned(),
                    (Some(used), _) => format::credits(used),
                    (None, Some(estimate)) => format!("{} (est.)", format::credits(estimate)),
                    _ => "–".to_owned(),
                },
            ));
            if let Some(created) = &output.created_at {
                facts.push(("Created", format::timestamp(created)));
            }
            // A batch's scenes may be mapped to other ratios than asked: only a reported
            // ratio is shown for them.
            let asked_ratio = (job.spec.kind != crate::api::GenerationKind::CreativeDirector)
                .then(|| job.spec.request.aspect_ratio.clone())
                .flatten();
            if let Some(ratio) = output.aspect_ratio.clone().or(asked_ratio) {
                facts.push(("Aspect ratio", ratio));
            }
            let is_model_3d = job.spec.kind.outputs_3d();
            let files = if is_model_3d {
                model_files(&output.urls, None)
            } else {
                Vec::new()
            };
            // A 3D job is one model (GLB, OBJ): its viewer shows the GLB.
            let url = match files.first() {
                Some((_, glb)) if is_model_3d => glb.clone(),
                _ => url,
            };
            if let Some(triangles) = job.spec.catalog.as_ref().and_then(|c| match c {
                crate::api::CatalogJobRequest::ThreeD(r) => r.target_polycount,
                _ => None,
            }) {
                facts.push((
                    "Detail asked",
                    format!(
                        "{} triangles",
                        crate::api::validate::thousands(u64::from(triangles))
                    ),
                ));
            }
            let count = if is_model_3d { 1 } else { output.urls.len() };
            let is_audio = !is_model_3d
                && (job.spec.kind.outputs_audio() || crate::ui::audio::is_audio_url(&url));
            let is_video =
                !is_model_3d && !is_audio && crate::ui::video::is_video_output(&output, *index);
            if (is_video || is_audio)
                && let Some(duration) = output.duration.filter(|d| *d > 0.0)
            {
                facts.push(("Duration", format!("{duration:.1} s")));
            }
            // A sound's own title, voice and lyrics (music has one per variation).
            let track = is_audio
                .then(|| output.audio_tracks().into_iter().find(|t| t.url == url))
                .flatten();
            if let Some(title) = track.as_ref().and_then(|t| t.title.clone()) {
                facts.push(("Title", title));
            }
            if let Some(voice) = output.voice.clone().filter(|v| is_audio && !v.is_empty()) {
                facts.push(("Voice", voice));
            }
            let scene = output
                .scenes
                .iter()
                .enumerate()
                .find(|(_, scene)| scene.output_urls().contains(&url));
            let subtitle = match scene {
                // The position follows ("Image 2 of 4"); the title names the scene.
                Some((scene_index, scene)) => Some(
                    scene
                        .title
                        .clone()
                        .filter(|t| !t.trim().is_empty())
                        .unwrap_or_else(|| format!("Scene {}", scene_index + 1)),
                ),
                None => (count > 1).then(|| format!("Output {} of {count}", index + 1)),
            };
            let poster = crate::ui::result_tile::job_output_picture(&output, *index)
                .filter(|picture| *picture != url)
                .map(str::to_owned);
            Some(Subject {
                thumbnail_url: poster,
                url,
                is_image: !is_video && !is_audio && !is_model_3d,
                is_video,
                is_model_3d,
                model_files: files,
                is_audio,
                lyrics: track
                    .and_then(|t| t.lyrics)
                    .filter(|l| !l.trim().is_empty()),
                title: format!(
                    "{} · {}",
                    job.spec.kind.label(),
                    crate::ui::job_wording::model_name(job, model)
                ),
                subtitle,
                prompt,
                facts,
                favourite: None,
                source_video_url: job
                    .spec
                    .video
                    .as_ref()
                    .map(|v| v.video_url().to_owned())
                    .filter(|u| !u.is_empty() && is_video),
            })
        }
        ResultRef::Media(snapshot) => {
            let item = live_media.unwrap_or(snapshot);
            let mut facts = Vec::new();
            if let Some(identifier) = item.model() {
                // The catalog's name, else the service's own name for it, else the id.
                let name = model
                    .model_by_id(identifier)
                    .map(|m| m.display_name())
                    .or_else(|| item.metadata.get("modelName").and_then(|v| v.as_str()))
                    .filter(|n| !n.trim().is_empty())
                    .unwrap_or(identifier);
                facts.push(("Model", name.to_owned()));
            }
            if let Some(credits) = item.credits_used() {
                facts.push(("Credits", format::credits(credits)));
            }
            if let Some(created) = &item.created_at {
                facts.push(("Created", format::timestamp(created)));
            }
            if let Some(size) = item.size {
                facts.push(("Size", human_bytes(size)));
            }
            if let (Some(w), Some(h)) = (item.width, item.height)
                && w > 0
                && h > 0
            {
                facts.push(("Dimensions", format!("{w} × {h} px")));
            }
            if let Some(duration) = item.duration.filter(|d| *d > 0.0) {
                facts.push(("Duration", format!("{duration:.1} s")));
            }
            let is_audio = crate::ui::audio::is_audio_item(item);
            let text_of = |key: &str| {
                item.metadata
                    .get(key)
                    .and_then(|v| v.as_str())
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(str::to_owned)
            };
            if is_audio {
                if let Some(title) = text_of("title") {
                    facts.push(("Title", title));
                }
                if let Some(voice) = text_of("voice").or_else(|| text_of("voiceName")) {
                    facts.push(("Voice", voice));
                }
            }
            let favourite = item.is_favorited.unwrap_or(false);
            // A file opened from this computer (`--play`) is not in the library.
            if !item.url.starts_with("file://") {
                facts.push(("Favourite", if favourite { "Yes" } else { "No" }.to_owned()));
            }
            let mut subtitle = item.kind().to_owned();
            if let Some(category) = item.category.as_deref().filter(|c| !c.is_empty()) {
                subtitle.push_str(" · ");
                subtitle.push_str(category);
            }
            let is_model_3d = is_model_3d_item(item);
            Some(Subject {
                is_model_3d,
                model_files: if is_model_3d {
                    model_files(
                        std::slice::from_ref(&item.url),
                        item.metadata.get("formats").and_then(|v| v.as_object()),
                    )
                } else {
                    Vec::new()
                },
                url: item.url.clone(),
                thumbnail_url: item.thumbnail_source().map(str::to_owned),
                is_image: item.kind() == "image" && !is_audio && !is_model_3d,
                is_video: !is_audio && crate::ui::video::is_video_item(item),
                is_audio,
                lyrics: is_audio.then(|| text_of("lyrics")).flatten(),
                title: item.display_name().to_owned(),
                subtitle: Some(subtitle),
                prompt: item.prompt_text().map(str::to_owned),
                facts,
                favourite: Some(favourite),
                source_video_url: None,
            })
        }
    }
}

/// A library item that is a 3D model (type `3d_model`, or a GLB file).
pub fn is_model_3d_item(item: &MediaItem) -> bool {
    let path = item.url.split(['?', '#']).next().unwrap_or(&item.url);
    item.kind() == "3d_model" || path.to_ascii_lowercase().ends_with(".glb")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(favourite: bool) -> MediaItem {
        let mut metadata = serde_json::Map::new();
        metadata.insert("model".into(), "Flux Schnell".into());
        metadata.insert("creditsUsed".into(), 4.into());
        MediaItem {
            id: "m1".into(),
            url: "http://x/m1.png".into(),
            name: Some("Harbour".into()),
            item_type: Some("image".into()),
            size: Some(2_500_000),
            width: Some(1024),
            height: Some(768),
            prompt: Some("a quiet harbour".into()),
            is_favorited: Some(favourite),
            metadata,
            ..MediaItem::default()
        }
    }

    #[test]
    fn a_library_item_shows_what_it_has() {
        let subject = subject_of(
            &ResultRef::Media(Box::new(item(false))),
            &Model::default(),
            None,
        )
        .expect("subject");
        assert_eq!(subject.title, "Harbour");
        assert_eq!(subject.prompt.as_deref(), Some("a quiet harbour"));
        let facts: Vec<&str> = subject.facts.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            facts,
            ["Model", "Credits", "Size", "Dimensions", "Favourite"]
        );
        assert!(subject.is_image);
    }

    #[test]
    fn the_library_copy_wins_over_the_snapshot() {
        let live = item(true);
        let subject = subject_of(
            &ResultRef::Media(Box::new(item(false))),
            &Model::default(),
            Some(&live),
        )
        .expect("subject");
        assert_eq!(subject.favourite, Some(true));
    }

    #[test]
    fn a_job_is_headed_by_the_model_that_ran_as_the_catalog_names_it() {
        use crate::api::{GenerationKind, GenerationSpec, JobResult, ModelRecord};
        use crate::engine::{JobPhase, JobRecord};
        let mut model = Model::default();
        let records: Vec<ModelRecord> =
            serde_json::from_str(include_str!("../../../assets/models.json")).expect("catalog");
        model.catalog.set(Ok(records));
        let job = JobRecord {
            local_id: 3,
            generation_id: Some("g".into()),
            spec: GenerationSpec {
                catalog: None,
                kind: GenerationKind::Image,
                request: Default::default(),
                video: None,
                audio: None,
            },
            model_label: "Auto".into(),
            phase: JobPhase::Completed,
            progress_percent: 100.0,
            submitted_at_unix_ms: 0,
            finished_at_unix_ms: Some(1),
            credits_estimate: None,
            credits_used: Some(1.0),
            result: Some(JobResult {
                urls: vec!["http://x/1.png".into()],
                model: Some("fal-ai/flux/schnell".into()),
                ..Default::default()
            }),
            poll_problem: None,
            poll_interval_secs: 1.0,
            scenes: Vec::new(),
        };
        model.jobs.insert(3, job);
        let result = ResultRef::Job {
            local_id: 3,
            index: 0,
        };
        let subject = subject_of(&result, &model, None).expect("subject");
        assert_eq!(subject.title, "Image · Flux Schnell");
        assert!(
            subject
                .facts
                .contains(&("Model", "Flux Schnell".to_owned()))
        );
    }

    #[test]
    fn a_vanished_job_has_no_subject() {
        let result = ResultRef::Job {
            local_id: 7,
            index: 0,
        };
        assert_eq!(subject_of(&result, &Model::default(), None), None);
    }
}
