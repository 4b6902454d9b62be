use super::*;
use serde_json::json;

fn keys(value: &serde_json::Value) -> Vec<String> {
    let mut keys: Vec<String> = value
        .as_object()
        .expect("an object")
        .keys()
        .cloned()
        .collect();
    keys.sort();
    keys
}

fn edit(operation: VideoEditOperation) -> serde_json::Value {
    VideoJobRequest::Edit(VideoEditRequest {
        video_url: "https://cdn.example/clip.mp4".into(),
        model: None,
        project_id: None,
        operation,
    })
    .body()
    .expect("encodes")
}

/// Each operation sends `video_url`, `operation` and only its own fields; optional fields
/// left unset are omitted.
#[test]
fn every_operation_sends_only_its_own_fields() {
    let cases: Vec<(VideoEditOperation, &str, Vec<&str>)> = vec![
        (
            VideoEditOperation::Upscale {
                resolution: Some("4k".into()),
                target_fps: Some(60),
                scale: Some(2.0),
            },
            "upscale",
            vec!["resolution", "scale", "target_fps"],
        ),
        (
            VideoEditOperation::Reframe {
                aspect_ratio: "9:16".into(),
                resolution: Some("1080p".into()),
                grid_position_x: Some(0.25),
                grid_position_y: Some(0.75),
            },
            "reframe",
            vec![
                "aspect_ratio",
                "grid_position_x",
                "grid_position_y",
                "resolution",
            ],
        ),
        (
            VideoEditOperation::GenerateAudio {
                prompt: Some("rain".into()),
                sound_effect_prompt: Some("thunder".into()),
                background_music_prompt: Some("cello".into()),
                original_sound: Some(true),
                cfg_strength: Some(4.5),
                audio_format: Some("wav".into()),
                segments: vec![json!({"start": 0, "end": 2})],
            },
            "generate_audio",
            vec![
                "audio_format",
                "background_music_prompt",
                "cfg_strength",
                "original_sound",
                "prompt",
                "segments",
                "sound_effect_prompt",
            ],
        ),
        (
            VideoEditOperation::RemoveWatermark {},
            "remove_watermark",
            vec![],
        ),
        (
            VideoEditOperation::FaceSwap {
                image_url: "https://cdn.example/face.png".into(),
            },
            "face_swap",
            vec!["image_url"],
        ),
        (
            VideoEditOperation::Extend {
                duration: Some(4.0),
                mode: Some(ExtendMode::Start),
                prompt: Some("the car drives off".into()),
                context: Some("night".into()),
            },
            "extend",
            vec!["context", "duration", "mode", "prompt"],
        ),
        (
            VideoEditOperation::MagicEdit {
                prompt: "make it snow".into(),
            },
            "magic_edit",
            vec!["prompt"],
        ),
        (
            VideoEditOperation::Lipsync {
                source: LipsyncSource::Audio("https://cdn.example/voice.mp3".into()),
            },
            "lipsync",
            vec!["audio_url"],
        ),
        (
            VideoEditOperation::Lipsync {
                source: LipsyncSource::Text("hello there".into()),
            },
            "lipsync",
            vec!["text_prompt"],
        ),
        (
            VideoEditOperation::RemoveBackground {
                refine_edges: Some(true),
                subject_is_person: Some(false),
            },
            "remove_background",
            vec!["refine_edges", "subject_is_person"],
        ),
        (
            VideoEditOperation::Inpaint {
                mask_video_url: Some("https://cdn.example/mask.mp4".into()),
                object_prompt: Some("the lamp".into()),
                prompt: Some("a plant".into()),
                video_strength: Some(0.6),
            },
            "inpaint",
            vec![
                "mask_video_url",
                "object_prompt",
                "prompt",
                "video_strength",
            ],
        ),
        (
            VideoEditOperation::Retake {
                start_time: Some(1.5),
                duration: Some(2.0),
                mode: Some(RetakeMode::ReplaceAudio),
                prompt: Some("a door slams".into()),
            },
            "retake",
            vec!["duration", "mode", "prompt", "start_time"],
        ),
    ];
    for (operation, name, fields) in cases {
        let body = edit(operation.clone());
        let mut expected: Vec<String> = ["operation", "video_url"]
            .iter()
            .chain(fields.iter())
            .map(|s| s.to_string())
            .collect();
        expected.sort();
        assert_eq!(keys(&body), expected, "{name}");
        assert_eq!(body["operation"], name);
        assert_eq!(operation.kind().as_str(), name);
        // What was sent reads back as the same operation (the journal relies on it).
        let back: VideoEditRequest = serde_json::from_value(body).expect("decodes");
        assert_eq!(back.operation, operation, "{name}");
    }
}

#[test]
fn unset_optional_fields_are_omitted_and_values_are_the_contracts() {
    let body = edit(VideoEditOperation::empty(VideoEditOperationKind::Upscale));
    assert_eq!(
        body,
        json!({"video_url": "https://cdn.example/clip.mp4", "operation": "upscale"})
    );
    let body = edit(VideoEditOperation::Retake {
        start_time: None,
        duration: None,
        mode: Some(RetakeMode::ReplaceAudioAndVideo),
        prompt: None,
    });
    assert_eq!(body["mode"], "replace_audio_and_video");
    let body = edit(VideoEditOperation::Extend {
        duration: None,
        mode: Some(ExtendMode::End),
        prompt: None,
        context: None,
    });
    assert_eq!(body["mode"], "end");
    // Empty segments are dropped (the service ignores them anyway).
    let body = edit(VideoEditOperation::empty(
        VideoEditOperationKind::GenerateAudio,
    ));
    assert_eq!(keys(&body), vec!["operation", "video_url"]);
    // Model and project are sent when set.
    let body = VideoJobRequest::Edit(VideoEditRequest {
        video_url: "https://cdn.example/clip.mp4".into(),
        model: Some("topaz/upscale".into()),
        project_id: Some("p1".into()),
        operation: VideoEditOperation::RemoveWatermark {},
    })
    .body()
    .expect("encodes");
    assert_eq!(body["model"], "topaz/upscale");
    assert_eq!(body["project_id"], "p1");
}

#[test]
fn video_to_video_and_trim_bodies() {
    let body = VideoJobRequest::FromVideo(VideoToVideoRequest {
        video_url: "https://cdn.example/clip.mp4".into(),
        model: "runway/aleph".into(),
        prompt: "as a watercolour".into(),
        resolution: Some("720p".into()),
        duration: Some(5.0),
        ..VideoToVideoRequest::default()
    })
    .body()
    .expect("encodes");
    assert_eq!(
        body,
        json!({"video_url": "https://cdn.example/clip.mp4", "model": "runway/aleph",
               "prompt": "as a watercolour", "resolution": "720p", "duration": 5.0})
    );
    let body = VideoJobRequest::Trim(TrimRequest {
        video_url: "https://cdn.example/clip.mp4".into(),
        start_time: 1.0,
        end_time: 3.5,
        project_id: None,
    })
    .body()
    .expect("encodes");
    // Times are JSON numbers (a string gives 400).
    assert_eq!(
        body,
        json!({"video_url": "https://cdn.example/clip.mp4", "start_time": 1.0, "end_time": 3.5})
    );
    assert!(body["start_time"].is_number());
}

#[test]
fn operation_list_is_complete_and_described() {
    assert_eq!(VideoEditOperationKind::ALL.len(), 11);
    let mut names: Vec<&str> = VideoEditOperationKind::ALL
        .iter()
        .map(|k| k.as_str())
        .collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), 11);
    for kind in VideoEditOperationKind::ALL {
        assert!(!kind.label().is_empty() && kind.description().ends_with('.'));
        assert_eq!(
            VideoEditOperationKind::from_str_name(kind.as_str()),
            Some(kind)
        );
        assert_eq!(VideoEditOperation::empty(kind).kind(), kind);
    }
}

#[test]
fn trim_job_decodes_tolerantly() {
    let job: TrimJob = serde_json::from_value(json!({
        "success": true, "jobId": "trim_abc", "generationId": "trim_abc",
        "status": "DOWNLOADING", "progress": "12.5", "message": "Downloading",
        "error": null, "updatedAt": 1_764_000_000_000_i64
    }))
    .expect("decodes");
    assert_eq!(job.job_id.as_deref(), Some("trim_abc"));
    assert_eq!(job.status, TrimStatus::Downloading);
    assert_eq!(job.progress, Some(12.5));
    assert_eq!(job.updated_at_unix_ms, Some(1_764_000_000_000.0));
    assert_eq!(job.url, None);

    // url wins; else videoUrl, fileUrl, publicUrl.
    for (field, value) in [
        ("url", "https://cdn.example/a.mp4"),
        ("videoUrl", "https://cdn.example/b.mp4"),
        ("fileUrl", "https://cdn.example/c.mp4"),
        ("publicUrl", "https://cdn.example/d.mp4"),
    ] {
        let job: TrimJob =
            serde_json::from_value(json!({"status": "uploading", field: value})).expect("decodes");
        assert_eq!(job.url.as_deref(), Some(value), "{field}");
    }
    let job: TrimJob = serde_json::from_value(json!({
        "url": "", "videoUrl": "https://cdn.example/v.mp4", "publicUrl": "https://cdn.example/p.mp4"
    }))
    .expect("decodes");
    assert_eq!(job.url.as_deref(), Some("https://cdn.example/v.mp4"));

    let job: TrimJob =
        serde_json::from_value(json!({"status": "rewinding", "progress": [1]})).expect("decodes");
    assert_eq!(job.status, TrimStatus::Unknown("rewinding".into()));
    assert_eq!(job.progress, None);
    let job: TrimJob = serde_json::from_value(json!({"status": "cancelled"})).expect("decodes");
    assert_eq!(job.status, TrimStatus::Cancelled);
}

#[test]
fn trim_job_becomes_a_status() {
    let running: TrimJob =
        serde_json::from_value(json!({"jobId": "trim_1", "status": "analyzing", "progress": 40}))
            .expect("decodes");
    let status = running.into_status();
    assert_eq!(status.state, JobState::Processing);
    assert_eq!(status.progress, Some(40.0));
    assert_eq!(status.generation_id.as_deref(), Some("trim_1"));
    assert!(status.result.is_none());

    // A URL means the file exists, whatever the status says.
    let landed: TrimJob = serde_json::from_value(
        json!({"status": "uploading", "videoUrl": "https://cdn.example/t.mp4"}),
    )
    .expect("decodes");
    let status = landed.into_status();
    assert_eq!(status.state, JobState::Completed);
    assert_eq!(
        status.result.expect("result").urls,
        vec!["https://cdn.example/t.mp4".to_owned()]
    );

    let done: TrimJob = serde_json::from_value(json!({"status": "completed"})).expect("decodes");
    assert_eq!(done.into_status().state, JobState::Completed);

    let failed: TrimJob = serde_json::from_value(json!({
        "success": true, "status": "failed", "error": "start_time is beyond the end of the video"
    }))
    .expect("decodes");
    let status = failed.into_status();
    assert_eq!(status.state, JobState::Failed);
    assert_eq!(
        status.failure_message().as_deref(),
        Some("start_time is beyond the end of the video")
    );
    // "cancelled" is in the vocabulary but nothing public produces it: still running.
    let odd: TrimJob = serde_json::from_value(json!({"status": "cancelled"})).expect("decodes");
    assert_eq!(odd.into_status().state, JobState::Processing);
}

#[test]
fn spec_round_trips_and_old_rows_still_load() {
    use crate::api::{GenerationKind, GenerationSpec};
    let spec = GenerationSpec::for_video(VideoJobRequest::Edit(VideoEditRequest {
        video_url: "https://cdn.example/clip.mp4".into(),
        model: None,
        project_id: Some("p1".into()),
        operation: VideoEditOperation::Lipsync {
            source: LipsyncSource::Text("hi".into()),
        },
    }));
    assert_eq!(spec.kind, GenerationKind::VideoEdit);
    assert_eq!(spec.request.prompt, "hi");
    assert_eq!(spec.request.project_id.as_deref(), Some("p1"));
    let text = serde_json::to_string(&spec).expect("encodes");
    let back: GenerationSpec = serde_json::from_str(&text).expect("decodes");
    assert_eq!(back, spec);

    let trim = GenerationSpec::for_video(VideoJobRequest::Trim(TrimRequest {
        video_url: "https://cdn.example/clip.mp4".into(),
        start_time: 0.5,
        end_time: 2.0,
        project_id: None,
    }));
    assert_eq!(trim.kind, GenerationKind::VideoTrim);
    let back: GenerationSpec =
        serde_json::from_str(&serde_json::to_string(&trim).expect("encodes")).expect("decodes");
    assert_eq!(back, trim);

    // A row journalled before `video` existed.
    let old: GenerationSpec =
        serde_json::from_str(r#"{"kind":"image","request":{"prompt":"a cat"}}"#).expect("loads");
    assert_eq!(old.kind, GenerationKind::Image);
    assert_eq!(old.video, None);
    // And a generation spec is written without the new field.
    let text = serde_json::to_string(&old).expect("encodes");
    assert!(!text.contains("video"), "{text}");
}
