//! Reconcile a submit whose answer was lost: decide, without re-sending, whether the
//! service created the job (media library first, then the credit balance).

use super::journal::CreditSnapshot;
use super::protocol::{JobPhase, JobRecord, LocalJobId};
use super::rate_limit::paced;
use super::tracker::Tracker;
use crate::api::media::{MediaCategory, MediaItem, MediaQuery};
use crate::api::{Credits, JobResult, JobState};
use std::sync::Arc;
use std::time::Duration;

/// When no credit change is seen yet, look again after these delays (seconds since the
/// previous look) before concluding that no job was created.
const RECONCILE_RECHECK_SECS: [u64; 4] = [5, 10, 25, 50];
/// After a "most likely created" verdict: when to look in the media library again for the
/// job's output (about 12 minutes in all, the span of a long generation).
const LIBRARY_RECHECK_SECS: &[u64] = &[5, 10, 15, 30, 30, 60, 60, 120, 120, 300];
/// Library items looked at when reconciling (category ai, newest first).
const RECONCILE_PAGE_SIZE: u32 = 10;
/// The service's clock may run behind ours: items this much older than the submit still
/// count as candidates.
const CLOCK_SKEW_ALLOWANCE_MS: i64 = 2 * 60 * 1000;
/// A balance drop counts as "our job" when it is at least this share of the estimate.
const CHARGE_MATCH_SHARE: f64 = 0.5;

impl Tracker {
    // -----------------------------------------------------------------------------------
    // Reconcile an unconfirmed submit
    // -----------------------------------------------------------------------------------

    /// Decide, without re-sending, whether an unanswered submit created a job (contract,
    /// Retrying): first the media-library seam, then the credit balance against the
    /// snapshot taken just before the POST. Looks again a few times while nothing has
    /// changed, because a charge may land only when the job finishes.
    pub async fn reconcile(self: Arc<Self>, local_id: LocalJobId) {
        {
            let mut jobs = self.jobs.lock().await;
            let Some(entry) = jobs.get_mut(&local_id) else {
                return;
            };
            if !matches!(entry.record.phase, JobPhase::Unconfirmed { .. }) || entry.reconciling {
                return;
            }
            entry.reconciling = true;
        }
        let mut rechecks = RECONCILE_RECHECK_SECS.iter();
        let mut library_rechecks = LIBRARY_RECHECK_SECS.iter();
        loop {
            let verdict = self.reconcile_once(local_id).await;
            let next_delay = match verdict {
                Verdict::Gone | Verdict::Recovered | Verdict::Unknown { .. } => None,
                // Most likely created: its library item appears only when it finishes, so
                // keep looking (slowly, for a bounded time) to recover the id.
                Verdict::Charged { .. } => library_rechecks.next(),
                Verdict::NoChange => rechecks.next(),
            };
            let note = match (&verdict, next_delay) {
                (Verdict::Gone | Verdict::Recovered, _) => None,
                (Verdict::Charged { drop }, _) => Some(note_created(*drop)),
                (Verdict::Unknown { reason }, _) => Some(note_unknown(reason)),
                (Verdict::NoChange, Some(_)) => Some(CHECKING_NO_CHANGE_YET.to_owned()),
                (Verdict::NoChange, None) => Some(NOTE_NOT_CREATED.to_owned()),
            };
            if let Some(note) = note {
                self.mutate(local_id, |entry| {
                    if matches!(entry.record.phase, JobPhase::Unconfirmed { .. }) {
                        entry.record.phase = JobPhase::Unconfirmed { note };
                    }
                })
                .await;
            }
            match next_delay {
                Some(secs) => tokio::time::sleep(Duration::from_secs(*secs)).await,
                None => break,
            }
        }
        if let Some(entry) = self.jobs.lock().await.get_mut(&local_id) {
            entry.reconciling = false;
        }
    }

    async fn reconcile_once(self: &Arc<Self>, local_id: LocalJobId) -> Verdict {
        let (record, credits_before, others) = {
            let jobs = self.jobs.lock().await;
            let Some(entry) = jobs.get(&local_id) else {
                return Verdict::Gone;
            };
            if !matches!(entry.record.phase, JobPhase::Unconfirmed { .. }) {
                return Verdict::Gone;
            }
            let others: Vec<JobRecord> = jobs
                .values()
                .filter(|e| e.record.local_id != local_id)
                .map(|e| e.record.clone())
                .collect();
            (entry.record.clone(), entry.credits_before, others)
        };

        let found = self.recover_generation_id(&record).await;
        if let Some(LibraryMatch::Item {
            media_id,
            url,
            thumbnail_url,
        }) = found
        {
            self.mutate(local_id, |entry| {
                if matches!(entry.record.phase, JobPhase::Unconfirmed { .. }) {
                    entry.record.phase = JobPhase::Unconfirmed {
                        note: note_in_library(&media_id),
                    };
                    entry.record.result = Some(JobResult {
                        urls: vec![url],
                        thumbnail_url,
                        ..JobResult::default()
                    });
                }
            })
            .await;
            return Verdict::Recovered;
        }
        if let Some(LibraryMatch::Generation(generation_id)) = found {
            let mut resumed = false;
            self.mutate(local_id, |entry| {
                if matches!(entry.record.phase, JobPhase::Unconfirmed { .. }) {
                    entry.record.generation_id = Some(generation_id);
                    entry.record.phase = JobPhase::Running {
                        state: JobState::Processing,
                    };
                    resumed = true;
                }
            })
            .await;
            if resumed {
                tokio::spawn(self.clone().poll_loop(local_id, Duration::ZERO));
            }
            return Verdict::Recovered;
        }

        let Some(before) = credits_before else {
            return Verdict::Unknown {
                reason: "no balance was recorded before the submit".into(),
            };
        };
        let now = match self.ctx.client.credits().await {
            Ok(credits) => credits,
            Err(e) => {
                return Verdict::Unknown {
                    reason: format!("the balance could not be read: {e}"),
                };
            }
        };
        let Some(drop) = balance_drop(before, &now) else {
            return Verdict::Unknown {
                reason: "the service reports no comparable balance".into(),
            };
        };
        let explained = explained_by_others(&record, &others);
        let unexplained = drop - explained;
        let threshold = match record.credits_estimate {
            Some(estimate) if estimate > 0.0 => estimate * CHARGE_MATCH_SHARE,
            _ => 0.01,
        };
        if unexplained >= threshold {
            Verdict::Charged { drop: unexplained }
        } else {
            Verdict::NoChange
        }
    }

    /// Look for an unanswered submit's output in the media library (contract, Retrying):
    /// GET /v1/media?category=ai, newest first, 10 items; an item created at or after the
    /// submit (less a clock-skew allowance) with the same prompt (and project) is ours.
    /// Its generation id comes from the list item's metadata, else from the single-item
    /// route's metadata. Ids that another job of ours already holds are skipped.
    async fn recover_generation_id(&self, record: &JobRecord) -> Option<LibraryMatch> {
        let query = MediaQuery {
            project_id: record.spec.request.project_id.clone(),
            category: MediaCategory::Ai,
            ..MediaQuery::default()
        };
        let gate = self.ctx.rate_gates.media.clone();
        let page = match paced(&gate, || {
            self.ctx.client.list_media(&query, 1, RECONCILE_PAGE_SIZE)
        })
        .await
        {
            Ok(page) => page,
            Err(e) => {
                tracing::debug!("job {}: library lookup failed: {e}", record.local_id);
                return None;
            }
        };
        let claimed: Vec<String> = {
            let jobs = self.jobs.lock().await;
            jobs.values()
                .filter(|e| e.record.local_id != record.local_id)
                .filter_map(|e| e.record.generation_id.clone())
                .collect()
        };
        for item in library_candidates(&page.items, record) {
            let generation_id = match item.generation_id() {
                Some(id) => Some(id.to_owned()),
                None => self
                    .ctx
                    .client
                    .media_item(&item.id)
                    .await
                    .ok()
                    .and_then(|detail| detail.generation_id().map(str::to_owned)),
            };
            match generation_id {
                Some(id) if claimed.contains(&id) => continue,
                Some(id) => return Some(LibraryMatch::Generation(id)),
                None => {
                    return Some(LibraryMatch::Item {
                        media_id: item.id.clone(),
                        url: item.url.clone(),
                        thumbnail_url: item.thumbnail_url.clone(),
                    });
                }
            }
        }
        None
    }
}

/// What the media library revealed about an unanswered submit.
enum LibraryMatch {
    /// The job's handle: resume polling.
    Generation(String),
    /// Its output is in the library but names no generation: it exists and finished.
    Item {
        media_id: String,
        url: String,
        thumbnail_url: Option<String>,
    },
}

/// Library items that may be the output of `record`: same prompt, same project (when the
/// job named one), created no earlier than the submit less the skew allowance.
fn library_candidates<'a>(items: &'a [MediaItem], record: &JobRecord) -> Vec<&'a MediaItem> {
    let prompt = record.spec.request.prompt.trim();
    let earliest_ms = record.submitted_at_unix_ms - CLOCK_SKEW_ALLOWANCE_MS;
    items
        .iter()
        .filter(|item| item.prompt_text().map(str::trim) == Some(prompt))
        .filter(|item| match &record.spec.request.project_id {
            Some(project) => item.project_id.as_deref().is_none_or(|p| p == project),
            None => true,
        })
        .filter(|item| {
            item.created_at
                .as_deref()
                .and_then(|t| chrono::DateTime::parse_from_rfc3339(t.trim()).ok())
                .is_some_and(|t| t.timestamp_millis() >= earliest_ms)
        })
        .collect()
}

enum Verdict {
    /// The job was dismissed or is no longer unconfirmed.
    Gone,
    /// The handle was recovered; polling resumed.
    Recovered,
    /// The balance dropped by about the estimate: most likely created and charged.
    Charged { drop: f64 },
    /// No unexplained change in the balance (yet).
    NoChange,
    /// The balance could not be compared.
    Unknown { reason: String },
}

pub(super) const CHECKING: &str = "The service did not answer the submit, so it is not known yet whether \
the job was created. Checking your credit balance… Do not submit again yet: a second submit \
would be billed separately.";

pub(super) const CHECKING_AFTER_RESTART: &str = "The app stopped while this job was being sent, so it is \
not known whether the service received it. Checking your credit balance… Do not submit again \
yet: a second submit would be billed separately.";

const CHECKING_NO_CHANGE_YET: &str = "The service did not answer the submit. Your credit \
balance has not changed so far; checking again shortly. Do not submit again yet: a second \
submit would be billed separately.";

const NOTE_NOT_CREATED: &str = "The service did not answer the submit and your credit balance \
has not changed since, so no job seems to have been created. You can submit again.";

fn note_in_library(media_id: &str) -> String {
    format!(
        "The service did not answer the submit, but its result was found in your media \
library (item {media_id}): the job was created and has finished. Do not submit again: a second \
submit would be billed separately."
    )
}

fn note_created(drop: f64) -> String {
    format!(
        "The service did not answer the submit, but your credit balance dropped by {} since \
just before it, so the job was most likely created and charged. It will appear in the media \
library when it finishes. Submitting again would bill twice.",
        format_credits(drop)
    )
}

fn note_unknown(reason: &str) -> String {
    format!(
        "The service did not answer the submit and it could not be checked whether the job was \
created ({reason}). Look in the media library before submitting again: a second submit would \
be billed separately."
    )
}

fn format_credits(value: f64) -> String {
    let rounded = (value * 100.0).round() / 100.0;
    if (rounded - rounded.round()).abs() < 1e-9 {
        format!("{} credits", rounded.round() as i64)
    } else {
        format!("{rounded:.2} credits")
    }
}

pub(super) fn snapshot_of(credits: &Credits) -> CreditSnapshot {
    CreditSnapshot {
        available: credits.available,
        total: credits.total,
    }
}

/// How far the balance fell since `before`: the larger of the `available` drop
/// (reservations) and the `total` drop (charges), over the measures both sides have.
fn balance_drop(before: CreditSnapshot, now: &Credits) -> Option<f64> {
    let available = before.available.zip(now.available).map(|(b, n)| b - n);
    let total = before.total.zip(now.total).map(|(b, n)| b - n);
    match (available, total) {
        (Some(a), Some(t)) => Some(a.max(t)),
        (a, t) => a.or(t),
    }
}

/// Credits that other jobs of ours may have taken since this submit's snapshot: jobs
/// submitted at or after it that the service accepted (or might have).
fn explained_by_others(record: &JobRecord, others: &[JobRecord]) -> f64 {
    others
        .iter()
        .filter(|o| o.submitted_at_unix_ms >= record.submitted_at_unix_ms)
        .filter(|o| !matches!(o.phase, JobPhase::Rejected { .. }))
        .map(|o| o.credits_used.or(o.credits_estimate).unwrap_or(0.0))
        .sum::<f64>()
        + others
            .iter()
            // Jobs already running at the snapshot that were charged since.
            .filter(|o| o.submitted_at_unix_ms < record.submitted_at_unix_ms)
            .filter(|o| {
                o.finished_at_unix_ms
                    .is_some_and(|t| t >= record.submitted_at_unix_ms)
            })
            .filter_map(|o| o.credits_used)
            .sum::<f64>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::GenerationSpec;

    #[test]
    fn balance_drop_prefers_the_larger_comparable_measure() {
        let before = CreditSnapshot {
            available: Some(100.0),
            total: Some(100.0),
        };
        let now = Credits {
            available: Some(92.0),
            total: Some(100.0),
            ..Credits::default()
        };
        assert_eq!(balance_drop(before, &now), Some(8.0));
        let only_total = Credits {
            total: Some(97.0),
            ..Credits::default()
        };
        assert_eq!(balance_drop(before, &only_total), Some(3.0));
        assert_eq!(balance_drop(before, &Credits::default()), None);
        assert_eq!(format_credits(8.0), "8 credits");
        assert_eq!(format_credits(2.5), "2.50 credits");
    }

    #[test]
    fn library_candidates_match_prompt_project_and_time() {
        let submitted_ms = 1_700_000_000_000;
        let record = JobRecord {
            local_id: 1,
            generation_id: None,
            spec: GenerationSpec {
                kind: crate::api::GenerationKind::Image,
                request: crate::api::GenerationRequest {
                    prompt: "a red fox".into(),
                    project_id: Some("p1".into()),
                    ..Default::default()
                },
            },
            model_label: "Auto".into(),
            phase: JobPhase::Unconfirmed {
                note: String::new(),
            },
            progress_percent: 0.0,
            submitted_at_unix_ms: submitted_ms,
            finished_at_unix_ms: None,
            credits_estimate: None,
            credits_used: None,
            result: None,
            poll_problem: None,
            poll_interval_secs: 3.0,
        };
        let at = |offset_ms: i64| {
            chrono::DateTime::from_timestamp_millis(submitted_ms + offset_ms)
                .map(|t| t.to_rfc3339())
        };
        let item = |id: &str, prompt: &str, project: &str, created: Option<String>| MediaItem {
            id: id.into(),
            prompt: Some(prompt.into()),
            project_id: Some(project.into()),
            created_at: created,
            ..MediaItem::default()
        };
        let items = vec![
            item("ok", " a red fox ", "p1", at(5_000)),
            item("skewed", "a red fox", "p1", at(-60_000)),
            item("too-old", "a red fox", "p1", at(-10 * 60_000)),
            item("other-prompt", "a blue fox", "p1", at(5_000)),
            item("other-project", "a red fox", "p2", at(5_000)),
            item("no-time", "a red fox", "p1", None),
        ];
        let found: Vec<&str> = library_candidates(&items, &record)
            .iter()
            .map(|i| i.id.as_str())
            .collect();
        assert_eq!(found, vec!["ok", "skewed"]);
    }
}
