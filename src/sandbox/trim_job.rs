//! The trim job: simulated stages (initializing, analyzing, processing, uploading) over a
//! wall time scaled by the sandbox speed, while the real work (fetch, probe, frame-accurate
//! cut on the blocking pool, write) runs alongside. Progress is deliberately not monotonic
//! across stages (contract "Video trim job"); the curve is in docs/SANDBOX.md. Elapsed time
//! is stored, so a restarted sandbox resumes where it stopped.

use std::time::Duration;

use serde_json::json;

use super::fetch_policy::{self, SOURCE_LIMITS, SourceFetchError, internal_address_message};
use super::files::write_bytes;
use super::ids::new_object_id;
use super::media_store::NewMedia;
use super::state::AppState;
use super::trim_store::{TrimJobRow, TrimStage};
use super::video::{probe_video, trim_video};

/// One simulated stage: its share of the wall time (end fraction), its progress range and
/// what it says.
struct Stage {
    status: &'static str,
    end_fraction: f64,
    progress_from: f64,
    progress_to: f64,
    message: &'static str,
}

/// The curve: analyzing climbs to 40, processing restarts at 10, uploading at 50.
const STAGES: [Stage; 4] = [
    Stage {
        status: "initializing",
        end_fraction: 0.10,
        progress_from: 0.0,
        progress_to: 5.0,
        message: "Preparing the trim",
    },
    Stage {
        status: "analyzing",
        end_fraction: 0.35,
        progress_from: 5.0,
        progress_to: 40.0,
        message: "Analyzing the source video",
    },
    Stage {
        status: "processing",
        end_fraction: 0.80,
        progress_from: 10.0,
        progress_to: 90.0,
        message: "Cutting the selected frames",
    },
    Stage {
        status: "uploading",
        end_fraction: 1.0,
        progress_from: 50.0,
        progress_to: 99.0,
        message: "Uploading the trimmed video",
    },
];
/// Index of the stage that cannot end before the cut is written.
const PROCESSING_STAGE: usize = 2;
pub(crate) const INITIAL_MESSAGE: &str = "Preparing the trim";
const COMPLETED_MESSAGE: &str = "Trim complete";
const FAILED_MESSAGE: &str = "Trim failed";
/// Realistic wall time of a trim at speed 1.0.
pub(crate) const TRIM_BASE_DURATION_MS: f64 = 20_000.0;

/// The stage and progress at `elapsed_ms` of `duration_ms`.
fn stage_at(elapsed_ms: u64, duration_ms: u64) -> (usize, f64) {
    let fraction = (elapsed_ms as f64 / duration_ms.max(1) as f64).clamp(0.0, 1.0);
    let mut start = 0.0;
    for (index, stage) in STAGES.iter().enumerate() {
        if fraction < stage.end_fraction || index == STAGES.len() - 1 {
            let within = ((fraction - start) / (stage.end_fraction - start)).clamp(0.0, 1.0);
            let progress = stage.progress_from + (stage.progress_to - stage.progress_from) * within;
            return (index, progress.floor());
        }
        start = stage.end_fraction;
    }
    (STAGES.len() - 1, STAGES[STAGES.len() - 1].progress_to)
}

/// What the cut produced.
struct TrimOutput {
    rel_path: String,
    poster_rel_path: String,
    width: u32,
    height: u32,
    duration_secs: f64,
    size_bytes: u64,
}

type WorkTask = tokio::task::JoinHandle<Result<TrimOutput, String>>;

pub(crate) fn spawn(state: AppState, job_id: String) {
    tokio::spawn(async move { run(state, job_id).await });
}

/// Resumes every trim an earlier run left unfinished.
pub(crate) fn resume_all(state: &AppState) -> Result<usize, rusqlite::Error> {
    let ids = state.store.unfinished_trim_jobs()?;
    for id in &ids {
        tracing::info!(trim_job_id = %id, "resuming trim job");
        spawn(state.clone(), id.clone());
    }
    Ok(ids.len())
}

fn log_db_error(id: &str, error: &rusqlite::Error) {
    tracing::error!(trim_job_id = %id, %error, "trim job could not update its record");
}

async fn run(state: AppState, id: String) {
    let job = match state.store.trim_job(&id) {
        Ok(Some(job)) => job,
        Ok(None) => return,
        Err(error) => return log_db_error(&id, &error),
    };
    let duration_ms = job.duration_ms.max(1);
    let tick_ms = (duration_ms / 25).clamp(20, 500);
    let mut elapsed_ms = job.elapsed_ms.min(duration_ms);
    let work: WorkTask = {
        let (state, job) = (state.clone(), job.clone());
        tokio::spawn(async move { cut_and_write(&state, &job).await })
    };
    let processing_end_ms = (duration_ms as f64 * STAGES[PROCESSING_STAGE].end_fraction) as u64;
    loop {
        if work.is_finished() || elapsed_ms >= duration_ms {
            break;
        }
        tokio::time::sleep(Duration::from_millis(tick_ms)).await;
        // Processing holds (at its last progress) until the cut is written.
        let cap_ms = if work.is_finished() {
            duration_ms
        } else {
            processing_end_ms.saturating_sub(1)
        };
        elapsed_ms = (elapsed_ms + tick_ms).min(cap_ms.max(elapsed_ms));
        if !record_stage(&state, &id, elapsed_ms, duration_ms) {
            return;
        }
    }
    let output = match work.await {
        Ok(Ok(output)) => output,
        Ok(Err(error)) => return fail(&state, &id, &error),
        Err(join_error) => return fail(&state, &id, &format!("The trim stopped: {join_error}")),
    };
    // The cut is done: the remaining stages run out their simulated time.
    while elapsed_ms < duration_ms {
        tokio::time::sleep(Duration::from_millis(tick_ms)).await;
        elapsed_ms = (elapsed_ms + tick_ms).min(duration_ms);
        if !record_stage(&state, &id, elapsed_ms, duration_ms) {
            return;
        }
    }
    complete(&state, &job, &output);
}

/// Writes the stage for `elapsed_ms`; false when the job is gone or terminal.
fn record_stage(state: &AppState, id: &str, elapsed_ms: u64, duration_ms: u64) -> bool {
    let (index, progress) = stage_at(elapsed_ms, duration_ms);
    let stage = TrimStage {
        status: STAGES[index].status,
        progress,
        message: STAGES[index].message,
        elapsed_ms,
        updated_ms: state.clock.now_ms(),
    };
    match state.store.update_trim_stage(id, stage) {
        Ok(running) => running,
        Err(error) => {
            log_db_error(id, &error);
            false
        }
    }
}

fn fail(state: &AppState, id: &str, error: &str) {
    match state
        .store
        .fail_trim(id, error, FAILED_MESSAGE, state.clock.now_ms())
    {
        Ok(_) => tracing::info!(trim_job_id = %id, "trim failed: {error}"),
        Err(db_error) => log_db_error(id, &db_error),
    }
}

fn complete(state: &AppState, job: &TrimJobRow, output: &TrimOutput) {
    let media = trim_media(state, job, output);
    match state.store.complete_trim(
        &job.id,
        &output.rel_path,
        &media,
        COMPLETED_MESSAGE,
        state.clock.now_ms(),
    ) {
        Ok(_) => tracing::info!(trim_job_id = %job.id, "trim completed"),
        Err(error) => log_db_error(&job.id, &error),
    }
}

/// Fetches the source, checks the cut against its length, cuts on the blocking pool and
/// writes `trims/<id>/<id>.mp4` plus a poster. The source file is never touched.
async fn cut_and_write(state: &AppState, job: &TrimJobRow) -> Result<TrimOutput, String> {
    let source = fetch_policy::fetch(state, &job.video_url, SOURCE_LIMITS)
        .await
        .map_err(|error| match error {
            // Found by resolution or on a redirect: the POST's own refusal message.
            SourceFetchError::Internal => internal_address_message("video_url"),
            other => format!("Could not download the source video: {other}"),
        })?;
    let (files_dir, job) = (state.files_dir.clone(), job.clone());
    let cut = tokio::task::spawn_blocking(move || {
        let probe =
            probe_video(&source).map_err(|e| format!("Could not read the source video: {e}"))?;
        let (start_secs, end_secs) = cut_range(job.start_secs, job.end_secs, probe.duration_secs)?;
        let video = trim_video(&source, start_secs, end_secs)
            .map_err(|e| format!("Could not trim the video: {e}"))?;
        let rel_path = format!("trims/{0}/{0}.mp4", job.id);
        let poster_rel_path = format!("trims/{0}/{0}_poster.jpg", job.id);
        write_bytes(&files_dir.join(&rel_path), &video.mp4)?;
        write_bytes(&files_dir.join(&poster_rel_path), &video.poster_jpeg)?;
        Ok(TrimOutput {
            rel_path,
            poster_rel_path,
            width: video.width,
            height: video.height,
            duration_secs: video.duration_secs,
            size_bytes: video.mp4.len() as u64,
        })
    })
    .await;
    cut.unwrap_or_else(|join_error| Err(format!("The trim stopped: {join_error}")))
}

/// The range to cut: a start at or beyond the source's end fails the job; an end beyond it
/// is clamped down; an end not after the start fails.
pub(crate) fn cut_range(
    start_secs: f64,
    end_secs: f64,
    source_secs: f64,
) -> Result<(f64, f64), String> {
    if start_secs >= source_secs {
        return Err(format!(
            "start_time {start_secs} is at or beyond the video duration ({source_secs:.3} s)"
        ));
    }
    let end_secs = end_secs.min(source_secs);
    if end_secs <= start_secs {
        return Err(format!(
            "end_time {end_secs} must be after start_time {start_secs}"
        ));
    }
    Ok((start_secs, end_secs))
}

/// The trimmed file as a new library item of the caller (a video in the default project).
fn trim_media(state: &AppState, job: &TrimJobRow, output: &TrimOutput) -> NewMedia {
    let project_id = state
        .store
        .ensure_default_project(&job.user_id)
        .map(|project| project.id)
        .unwrap_or_default();
    let now_ms = state.clock.now_ms();
    NewMedia {
        id: new_object_id(),
        user_id: job.user_id.clone(),
        project_id,
        source_type: "generated".to_owned(),
        category: "trimmed-video".to_owned(),
        media_type: "video".to_owned(),
        generation_type: Some("video_trim".to_owned()),
        name: format!(
            "Trim of {} ({:.2}-{:.2} s)",
            super::jobs::source_title(state, &job.video_url),
            job.start_secs,
            job.end_secs
        ),
        filename: format!("{}.mp4", job.id),
        rel_path: output.rel_path.clone(),
        thumb_rel_path: Some(output.poster_rel_path.clone()),
        owns_files: true,
        size_bytes: Some(output.size_bytes),
        width: Some(output.width),
        height: Some(output.height),
        duration_secs: Some(output.duration_secs),
        source_tag: Some("api".to_owned()),
        metadata: json!({
            "category": "trimmed-video",
            "source": "api",
            "trimJobId": job.id,
            "sourceUrl": job.video_url,
            "startTime": job.start_secs,
            "endTime": job.end_secs,
            "duration": output.duration_secs,
            "width": output.width,
            "height": output.height,
        }),
        created_at: super::clock::Clock::iso_at(now_ms),
        created_ms: now_ms,
        ..NewMedia::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_follow_in_order_and_progress_restarts_between_them() {
        let statuses: Vec<&str> = [0, 50, 100, 200, 349, 350, 500, 799, 800, 950, 1000]
            .iter()
            .map(|ms| STAGES[stage_at(*ms, 1000).0].status)
            .collect();
        assert_eq!(
            statuses,
            [
                "initializing",
                "initializing",
                "analyzing",
                "analyzing",
                "analyzing",
                "processing",
                "processing",
                "processing",
                "uploading",
                "uploading",
                "uploading"
            ]
        );
        let (_, analyzing_end) = stage_at(349, 1000);
        let (_, processing_start) = stage_at(350, 1000);
        assert!(analyzing_end >= 39.0, "{analyzing_end}");
        assert!(processing_start <= 11.0, "{processing_start}");
        assert_eq!(stage_at(1000, 1000).1, 99.0);
    }

    #[test]
    fn start_beyond_the_source_fails_and_end_is_clamped() {
        assert!(cut_range(5.0, 6.0, 5.0).is_err());
        assert!(cut_range(6.0, 7.0, 5.0).is_err());
        assert_eq!(cut_range(1.0, 9.0, 5.0), Ok((1.0, 5.0)));
        assert!(cut_range(2.0, 1.0, 5.0).is_err());
    }
}
