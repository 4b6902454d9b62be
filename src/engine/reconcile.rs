//! Reconcile a submit whose answer was lost: decide, without re-sending, whether the
//! service created the job. The media library is searched over the whole window in which
//! such a job can finish (its item appears only when it completes); the credit balance is
//! only evidence against "nothing was charged", never proof that the job exists. The state
//! is journalled after every check so a restart continues it and never flips a verdict
//! without new evidence.

use super::journal::CreditSnapshot;
use super::protocol::{JobPhase, JobRecord, LocalJobId};
use super::rate_limit::paced;
use super::tracker::{Tracker, now_ms};
use crate::api::media::{MediaCategory, MediaItem, MediaPage, MediaQuery};
use crate::api::{ApiError, Credits, GenerationKind, GenerationSpec, JobResult, JobState};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// Default of `TransferTuning::reconcile_margin_secs`: queueing on the real service and
/// slow providers can add minutes to a catalog estimate.
pub const DEFAULT_MARGIN_SECS: f64 = 180.0;
/// Default of `TransferTuning::reconcile_duration_factor`.
pub const DEFAULT_DURATION_FACTOR: f64 = 2.0;
/// When the catalog gives no estimate for the job's model or type (seconds).
const FALLBACK_IMAGE_SECS: f64 = 30.0;
const FALLBACK_IMAGE_EDIT_SECS: f64 = 30.0;
/// Contract: "video takes roughly 1-5 minutes".
const FALLBACK_VIDEO_SECS: f64 = 300.0;
/// Contract: "typical time 30-60 seconds for four scenes"; eight video scenes take longer.
const FALLBACK_CREATIVE_DIRECTOR_SECS: f64 = 600.0;
/// An audio job (music, speech, sound) without a catalog estimate: music takes minutes.
const FALLBACK_AUDIO_SECS: f64 = 240.0;
/// Library page size while searching (GET /v1/media allows up to 50).
const SEARCH_PAGE_SIZE: u32 = 50;
/// A search stops after this many pages even if items are still newer than the send
/// (a library growing faster than we can read it); the next check starts again.
const MAX_SEARCH_PAGES: u32 = 40;
/// Longest a library page read by one reconcile serves the others' checks. Each check takes
/// only a page read after its own previous search (so its evidence only gets newer) and,
/// once its window has ended, after the window's end; this bounds how stale a shared page
/// can be otherwise. Sharing matters after a burst: a dozen lost answers each checking every
/// second would otherwise spend the media rate limit (shared with the Library view) within
/// seconds and stall every verdict until the next window.
const PAGE_KEEP_MS: u64 = 10_000;
/// Times one library page is asked for again after a transient failure.
const SEARCH_PAGE_RETRIES: u32 = 2;
/// The service's clock may run behind ours: items this much older than the send still
/// count as candidates, and the search goes this far past the send time.
const CLOCK_SKEW_ALLOWANCE_MS: i64 = 2 * 60 * 1000;
/// An unexplained `total` drop of at least this share of the estimate could be this job's
/// charge, so "nothing was charged" cannot be said.
const CHARGE_MATCH_SHARE: f64 = 0.5;
/// Smallest drop that counts at all when there is no estimate (rounding noise below).
const MIN_CHARGE_CREDITS: f64 = 0.01;
/// Balance readings taken up to this long before a send are weighed for it.
const READING_LOOKBACK_MS: i64 = 60 * 60 * 1000;
/// Checks per window while looking (bounded below and above).
const CHECKS_PER_WINDOW: f64 = 8.0;
const MIN_CHECK_INTERVAL_SECS: f64 = 0.5;
const MAX_CHECK_INTERVAL_SECS: f64 = 30.0;
/// After an inconclusive verdict, the library is still searched (slowly) for this many
/// window lengths: a late item is new evidence.
const TAIL_WINDOWS: f64 = 2.0;
/// Shortest tail after the window, in milliseconds.
const MIN_TAIL_MS: i64 = 60_000;
const MAX_TAIL_INTERVAL_SECS: f64 = 120.0;
/// Past the tail, checks go on only while they cannot decide (a failed read, credits
/// still reserved), and not beyond this long after the window.
const GIVE_UP_AFTER_WINDOW_MS: i64 = 24 * 60 * 60 * 1000;

/// Reconcile knobs taken from `TransferTuning` (held by `Ctx`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ReconcileTiming {
    pub margin_secs: f64,
    pub duration_factor: f64,
}

/// What is known about one lost submit; serialised to the journal's `reconcile_json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct ReconcileState {
    /// When the submit was sent (the search and the window start here).
    pub sent_at_unix_ms: i64,
    /// The library may still receive the job's item until this time.
    pub window_ends_at_unix_ms: i64,
    /// Library searches done so far.
    pub checks: u32,
    pub last_check: Option<CheckRecord>,
    pub verdict: StoredVerdict,
}

/// One check: when, how much of the library was read, what the balance said.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct CheckRecord {
    pub at_unix_ms: i64,
    /// Items read back to the send time; `None` when the search failed.
    pub library_items_read: Option<u32>,
    pub balance: BalanceEvidence,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(super) enum BalanceEvidence {
    /// Not looked at (yet).
    #[default]
    NotChecked,
    /// No unexplained drop of `total` the size of this job.
    NoCharge,
    /// `total` fell by this much more than our other jobs account for: this job or
    /// spending we cannot see (other apps, our other unconfirmed submits).
    UnexplainedCharge { credits: f64 },
    /// `available` is held back: some job — perhaps this one, still running past its
    /// window — has not settled yet.
    UnexplainedReservation { credits: f64 },
    /// The balance could not be compared.
    Unusable { reason: String },
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(super) enum StoredVerdict {
    /// Inside the window, nothing found yet: don't resubmit.
    #[default]
    Looking,
    /// Window over, no item, no unexplained charge: nothing was charged.
    NothingCharged,
    /// Window over, no item, but the balance cannot rule a charge out.
    Inconclusive,
    /// The generation id was recovered: the job is tracked again.
    Recovered { generation_id: String },
    /// The job's item was found without a generation id: created and finished.
    FoundItem { media_id: String },
}

impl StoredVerdict {
    /// Reached once; later checks can only add a library match.
    fn is_window_verdict(&self) -> bool {
        matches!(
            self,
            StoredVerdict::NothingCharged | StoredVerdict::Inconclusive
        )
    }
    fn is_final(&self) -> bool {
        matches!(
            self,
            StoredVerdict::NothingCharged
                | StoredVerdict::Recovered { .. }
                | StoredVerdict::FoundItem { .. }
        )
    }
}

/// What the media library revealed about an unanswered submit.
enum LibraryMatch {
    /// The job's handle (already claimed for this job).
    Generation(String),
    /// Its output is in the library but names no generation: it exists and finished.
    Item(Box<MediaItem>),
}

/// Outcome of one library search.
enum SearchOutcome {
    Found(LibraryMatch),
    /// Searched back to the send time; `items_read` items, none ours.
    NotFound {
        items_read: u32,
    },
    Failed,
}

impl Tracker {
    /// Decide, without re-sending, whether an unanswered submit created a job (contract,
    /// Retrying). Continues the journalled state of an earlier run.
    pub async fn reconcile(self: Arc<Self>, local_id: LocalJobId) {
        {
            let mut jobs = self.jobs.lock().await;
            let Some(entry) = jobs.get_mut(&local_id) else {
                return;
            };
            if !matches!(entry.record.phase, JobPhase::Unconfirmed { .. }) || entry.reconciling {
                return;
            }
            let kind = entry.record.spec.kind;
            if matches!(kind, GenerationKind::VideoTrim | GenerationKind::Chat) {
                // Nothing the library search could find (see TRIM_UNCONFIRMED and
                // CHAT_UNCONFIRMED); only the note is set.
                drop(jobs);
                self.mutate(local_id, |entry| {
                    if matches!(entry.record.phase, JobPhase::Unconfirmed { .. }) {
                        entry.record.phase = JobPhase::Unconfirmed {
                            note: unconfirmed_note(kind).to_owned(),
                        };
                    }
                })
                .await;
                return;
            }
            entry.reconciling = true;
        }
        self.clone().reconcile_loop(local_id).await;
        if let Some(entry) = self.jobs.lock().await.get_mut(&local_id) {
            entry.reconciling = false;
        }
    }

    async fn reconcile_loop(self: Arc<Self>, local_id: LocalJobId) {
        let Some(record) = self.record(local_id).await else {
            return;
        };
        let mut state = match self.load_state(&record).await {
            Some(state) => state,
            None => {
                let sent_at = self.sent_at_ms(&record).await;
                let window_secs = self.finish_window_secs(&record).await;
                ReconcileState {
                    sent_at_unix_ms: sent_at,
                    window_ends_at_unix_ms: sent_at + (window_secs * 1000.0) as i64,
                    ..ReconcileState::default()
                }
            }
        };
        if state.verdict.is_final() {
            return;
        }
        let window_ms = (state.window_ends_at_unix_ms - state.sent_at_unix_ms).max(1000);
        // At least a minute of tail: under a flaky connection a short window can end with
        // every late check failed.
        let tail_ms = ((window_ms as f64 * TAIL_WINDOWS) as i64).max(MIN_TAIL_MS);
        let tail_ends_at = state.window_ends_at_unix_ms + tail_ms;
        let give_up_at = state.window_ends_at_unix_ms + GIVE_UP_AFTER_WINDOW_MS;
        if state.checks == 0 {
            // The item appears only when the job has run: no point searching at once.
            let first_check_at =
                state.sent_at_unix_ms + check_interval_ms(window_ms, MAX_CHECK_INTERVAL_SECS);
            let wait_ms = first_check_at - now_ms();
            if wait_ms > 0 {
                tokio::time::sleep(Duration::from_millis(wait_ms as u64)).await;
            }
        }
        let mut incomplete_after_tail: u32 = 0;
        // When this job's previous search ended: its next one takes only newer pages.
        let mut last_search_done: Option<tokio::time::Instant> = None;
        loop {
            let Some(record) = self.record(local_id).await else {
                return; // dismissed
            };
            if !matches!(record.phase, JobPhase::Unconfirmed { .. }) {
                return;
            }
            let check_started_at = now_ms();
            let fresh_after = pages_fresh_after(
                last_search_done,
                tokio::time::Instant::now(),
                check_started_at - state.window_ends_at_unix_ms,
            );
            let outcome = self
                .search_library(local_id, &record, &state, fresh_after)
                .await;
            last_search_done = Some(tokio::time::Instant::now());
            let items_read = match outcome {
                SearchOutcome::Found(found) => {
                    self.settle_found(local_id, &mut state, found, check_started_at)
                        .await;
                    return;
                }
                SearchOutcome::NotFound { items_read } => Some(items_read),
                SearchOutcome::Failed => None,
            };
            let balance = self.balance_evidence(local_id, &record, &state).await;
            state.checks += 1;
            state.last_check = Some(CheckRecord {
                at_unix_ms: check_started_at,
                library_items_read: items_read,
                balance: balance.clone(),
            });
            // The verdict after the window is given once, on the first complete search
            // begun after the window ended; later checks only look for a late item.
            // An inconclusive verdict becomes "nothing charged" when a later complete check
            // sees no unexplained charge (our other jobs have settled since: new evidence);
            // "nothing charged" is never taken back except by a library match.
            let may_decide =
                !state.verdict.is_window_verdict() || state.verdict == StoredVerdict::Inconclusive;
            if may_decide
                && items_read.is_some()
                && check_started_at >= state.window_ends_at_unix_ms
            {
                state.verdict = match balance {
                    BalanceEvidence::NoCharge => StoredVerdict::NothingCharged,
                    _ => StoredVerdict::Inconclusive,
                };
            }
            self.save_state(local_id, &state).await;
            let note = note_for(&state);
            self.mutate(local_id, |entry| {
                if matches!(entry.record.phase, JobPhase::Unconfirmed { .. }) {
                    entry.record.phase = JobPhase::Unconfirmed { note };
                }
            })
            .await;
            let now = now_ms();
            let others_in_flight = self.others_in_flight(local_id).await;
            let delay_ms = match state.verdict {
                StoredVerdict::Looking => {
                    let interval = check_interval_ms(window_ms, MAX_CHECK_INTERVAL_SECS);
                    // Make sure one search starts right after the window ends.
                    let to_window_end = state.window_ends_at_unix_ms - now;
                    if to_window_end > 0 {
                        interval.min(to_window_end + 1)
                    } else {
                        interval
                    }
                }
                StoredVerdict::Inconclusive if now < tail_ends_at => {
                    check_interval_ms(window_ms * 2, MAX_TAIL_INTERVAL_SECS)
                }
                // Past the tail, stop only on a complete check: one whose search or balance
                // read failed said nothing, and a flaky connection must not leave the last
                // word to it. Keep looking, slowly, until a check gets through.
                StoredVerdict::Inconclusive if now < give_up_at && !last_check_complete(&state) => {
                    incomplete_after_tail += 1;
                    let backoff = 2_i64.saturating_pow(incomplete_after_tail.min(8));
                    (check_interval_ms(window_ms * 2, MAX_TAIL_INTERVAL_SECS) * backoff)
                        .min((MAX_TAIL_INTERVAL_SECS * 1000.0) as i64)
                }
                // Credits still reserved (a job is running, perhaps this one), or a job of
                // ours is still in flight (its charge may have landed before we saw it
                // finish): the evidence can still change, so keep looking until then.
                StoredVerdict::Inconclusive
                    if now < give_up_at
                        && (last_check_saw_reservation(&state) || others_in_flight) =>
                {
                    check_interval_ms(window_ms * 2, MAX_TAIL_INTERVAL_SECS)
                }
                _ => return,
            };
            tokio::time::sleep(Duration::from_millis(delay_ms.max(1) as u64)).await;
        }
    }

    /// Another job of ours is queued, being sent or running: its charge can still land
    /// (or has, unseen), so balance evidence against it is not yet final.
    async fn others_in_flight(&self, local_id: LocalJobId) -> bool {
        self.jobs.lock().await.values().any(|entry| {
            entry.record.local_id != local_id
                // A trim charges nothing.
                && entry.record.spec.kind != GenerationKind::VideoTrim
                && matches!(
                    entry.record.phase,
                    JobPhase::Queued { .. } | JobPhase::Submitting | JobPhase::Running { .. }
                )
        })
    }

    /// The journalled state of an earlier run, if any.
    async fn load_state(&self, record: &JobRecord) -> Option<ReconcileState> {
        if record.local_id <= 0 {
            return None;
        }
        let local_id = record.local_id;
        let row = match self.journal(move |j| j.get(local_id)).await {
            Ok(row) => row?,
            Err(e) => {
                tracing::error!("job {local_id}: cannot read its journal row: {e}");
                return None;
            }
        };
        let json = row.reconcile_json?;
        match serde_json::from_str(&json) {
            Ok(state) => Some(state),
            Err(e) => {
                tracing::warn!("job {local_id}: unreadable reconcile state, starting over: {e}");
                None
            }
        }
    }

    /// When the POST was sent: the journalled send time, else (older rows) the submit time.
    async fn sent_at_ms(&self, record: &JobRecord) -> i64 {
        let local_id = record.local_id;
        if local_id > 0
            && let Ok(Some(row)) = self.journal(move |j| j.get(local_id)).await
            && let Some(sent_at) = row.sent_at_unix_ms
        {
            return sent_at;
        }
        record.submitted_at_unix_ms
    }

    async fn save_state(&self, local_id: LocalJobId, state: &ReconcileState) {
        if local_id <= 0 {
            return;
        }
        let json = match serde_json::to_string(state) {
            Ok(json) => json,
            Err(e) => {
                tracing::error!("job {local_id}: cannot encode the reconcile state: {e}");
                return;
            }
        };
        if let Err(e) = self
            .journal(move |j| j.save_reconcile(local_id, Some(&json)))
            .await
        {
            tracing::error!("job {local_id}: journal write failed: {e}");
        }
    }

    /// The longest a job of this type and model can take before its item is in the
    /// library: the catalog's estimate (for `auto`, the largest of the type) times the
    /// factor, plus the margin. GET /v1/models has no rate limit.
    async fn finish_window_secs(&self, record: &JobRecord) -> f64 {
        let kind = record.spec.kind;
        let estimate = match self
            .ctx
            .client
            .list_models(Some(record.spec.catalog_type()))
            .await
        {
            Ok(models) => {
                let model = record.spec.request.model.as_deref();
                let estimates = models
                    .iter()
                    .filter(|m| is_auto(model) || Some(m.identifier.as_str()) == model)
                    .filter_map(|m| m.estimated_duration_seconds)
                    .filter(|s| s.is_finite() && *s > 0.0);
                estimates.fold(None, |max: Option<f64>, s| {
                    Some(max.map_or(s, |m| m.max(s)))
                })
            }
            Err(e) => {
                tracing::debug!("job {}: catalog unavailable: {e}", record.local_id);
                None
            }
        };
        let estimate = estimate.unwrap_or(match kind {
            GenerationKind::Image | GenerationKind::Chat => FALLBACK_IMAGE_SECS,
            GenerationKind::ImageEdit | GenerationKind::ImageTool => FALLBACK_IMAGE_EDIT_SECS,
            GenerationKind::TextToVideo
            | GenerationKind::ImageToVideo
            | GenerationKind::VideoEdit
            | GenerationKind::VideoToVideo
            | GenerationKind::VideoTrim
            | GenerationKind::Elements
            | GenerationKind::FirstLastFrame
            | GenerationKind::Lipsync => FALLBACK_VIDEO_SECS,
            // A 3D model takes about as long as a video (reference: 1-3 minutes).
            GenerationKind::ThreeD => FALLBACK_VIDEO_SECS,
            GenerationKind::CreativeDirector => FALLBACK_CREATIVE_DIRECTOR_SECS,
            GenerationKind::Music
            | GenerationKind::Speech
            | GenerationKind::Sound
            | GenerationKind::Transcription => FALLBACK_AUDIO_SECS,
        });
        // A batch's scenes run one after another: the per-scene estimate times the count.
        let estimate = match kind {
            GenerationKind::CreativeDirector => estimate * f64::from(record.spec.priced_units()),
            _ => estimate,
        };
        let timing = self.ctx.reconcile_timing;
        estimate * timing.duration_factor.max(0.0) + timing.margin_secs.max(0.0)
    }

    /// Page through AI items of the job's project, newest first, back to the send time
    /// less the skew allowance; claim the first unclaimed match.
    async fn search_library(
        &self,
        local_id: LocalJobId,
        record: &JobRecord,
        state: &ReconcileState,
        fresh_after: tokio::time::Instant,
    ) -> SearchOutcome {
        let query = MediaQuery {
            project_id: record.spec.request.project_id.clone(),
            category: MediaCategory::Ai,
            ..MediaQuery::default()
        };
        let earliest_ms = state.sent_at_unix_ms - CLOCK_SKEW_ALLOWANCE_MS;
        let gate = self.ctx.rate_gates.media.clone();
        let mut items_read: u32 = 0;
        for page_number in 1..=MAX_SEARCH_PAGES {
            // A list page is a read: asking again after a lost or unreadable answer is safe,
            // and one bad answer should not waste a whole search.
            let mut attempt = 0;
            let page = loop {
                let result = self
                    .library_pages
                    .get_or_fetch(&query, page_number, fresh_after, || {
                        paced(&gate, || async {
                            let page = self
                                .ctx
                                .client
                                .list_media(&query, page_number, SEARCH_PAGE_SIZE)
                                .await;
                            self.ctx.reachability.note(page.as_ref());
                            page
                        })
                    })
                    .await;
                match result {
                    Ok(page) => break page,
                    Err(e)
                        if attempt < SEARCH_PAGE_RETRIES
                            && (e.is_transient() || matches!(e, ApiError::Decode(_))) =>
                    {
                        attempt += 1;
                        tracing::debug!("job {local_id}: library page {page_number}: {e}");
                        tokio::time::sleep(Duration::from_millis(250 * u64::from(attempt))).await;
                    }
                    Err(e) => {
                        tracing::debug!("job {local_id}: library search failed: {e}");
                        return SearchOutcome::Failed;
                    }
                }
            };
            let reached_older = page
                .items
                .iter()
                .any(|item| created_ms(item).is_some_and(|t| t < earliest_ms));
            items_read += page
                .items
                .iter()
                .filter(|item| created_ms(item).is_none_or(|t| t >= earliest_ms))
                .count() as u32;
            for item in library_candidates(&page.items, record, earliest_ms) {
                match self.try_claim(local_id, record, item).await {
                    Claim::Taken => continue,
                    Claim::Claimed(found) => return SearchOutcome::Found(found),
                    Claim::Deferred => {}
                }
            }
            if reached_older || page.items.is_empty() || page.pagination.has_next != Some(true) {
                return SearchOutcome::NotFound { items_read };
            }
        }
        SearchOutcome::NotFound { items_read }
    }

    /// Claim `item` for this job. The generation id is set under the jobs lock after
    /// checking that no other job of ours holds it, so two reconciles (eight lost submits
    /// of one Vary) never take the same id.
    async fn try_claim(&self, local_id: LocalJobId, record: &JobRecord, item: &MediaItem) -> Claim {
        // A Creative Director batch's items are its scenes: the job to follow is the batch
        // the item names. Without that name only the item itself can be shown (following
        // one scene's generation would pass it off as the whole batch).
        let batch = record.spec.kind == GenerationKind::CreativeDirector;
        let generation_id = match (batch, item.generation_id()) {
            (true, _) => batch_id_of(item),
            (false, Some(id)) => Some(id.to_owned()),
            (false, None) => {
                let gate = self.ctx.rate_gates.media.clone();
                paced(&gate, || async {
                    let detail = self.ctx.client.media_item(&item.id).await;
                    self.ctx.reachability.note(detail.as_ref());
                    detail
                })
                .await
                .ok()
                .and_then(|detail| detail.generation_id().map(str::to_owned))
            }
        };
        let Some(generation_id) = generation_id else {
            return Claim::Claimed(LibraryMatch::Item(Box::new(item.clone())));
        };
        let mut jobs = self.jobs.lock().await;
        let taken = jobs
            .values()
            .any(|e| e.record.generation_id.as_deref() == Some(generation_id.as_str()));
        if taken {
            return Claim::Taken;
        }
        // A submit of ours with the same prompt whose answer is still on its way may own
        // this item: let its answer arrive first.
        let prompt = record.spec.request.prompt.trim();
        let answer_pending = jobs.values().any(|e| {
            e.record.local_id != local_id
                && matches!(e.record.phase, JobPhase::Submitting)
                && e.record.spec.request.prompt.trim() == prompt
        });
        if answer_pending {
            return Claim::Deferred;
        }
        let Some(entry) = jobs.get_mut(&local_id) else {
            return Claim::Taken;
        };
        if !matches!(entry.record.phase, JobPhase::Unconfirmed { .. }) {
            return Claim::Taken;
        }
        entry.record.generation_id = Some(generation_id.clone());
        entry.record.phase = JobPhase::Running {
            state: JobState::Processing,
        };
        let to_save = entry.record.clone();
        // Journal first, then the UI; the lock is held so no other reconcile can claim
        // the id in between.
        if local_id > 0
            && let Err(e) = self.journal(move |j| j.save(&to_save)).await
        {
            tracing::error!("job {local_id}: journal write failed: {e}");
        }
        let record = entry.record.clone();
        self.ctx
            .emit(super::protocol::Event::JobUpdated(record))
            .await;
        drop(jobs);
        Claim::Claimed(LibraryMatch::Generation(generation_id))
    }

    /// A match was found: journal the verdict, then follow the job (or show the item).
    async fn settle_found(
        self: &Arc<Self>,
        local_id: LocalJobId,
        state: &mut ReconcileState,
        found: LibraryMatch,
        checked_at: i64,
    ) {
        state.checks += 1;
        state.last_check = Some(CheckRecord {
            at_unix_ms: checked_at,
            library_items_read: None,
            balance: BalanceEvidence::NotChecked,
        });
        match found {
            LibraryMatch::Generation(generation_id) => {
                tracing::info!("job {local_id}: lost submit recovered as {generation_id}");
                state.verdict = StoredVerdict::Recovered { generation_id };
                self.save_state(local_id, state).await;
                tokio::spawn(self.clone().poll_loop(local_id, Duration::ZERO));
            }
            LibraryMatch::Item(item) => {
                state.verdict = StoredVerdict::FoundItem {
                    media_id: item.id.clone(),
                };
                self.save_state(local_id, state).await;
                self.mutate(local_id, |entry| {
                    let r = &mut entry.record;
                    if matches!(r.phase, JobPhase::Unconfirmed { .. }) {
                        r.phase = JobPhase::Completed;
                        r.progress_percent = 100.0;
                        r.credits_used = item.credits_used().or(r.credits_used);
                        r.result = Some(JobResult {
                            urls: vec![item.url.clone()],
                            thumbnail_url: item.thumbnail_url.clone(),
                            ..JobResult::default()
                        });
                        r.finished_at_unix_ms = Some(now_ms());
                    }
                })
                .await;
            }
        }
    }

    /// Read the balance and weigh it against readings taken before this job's POST: its
    /// own snapshot and those our other sends took earlier (an earlier reading, from before
    /// a burst began, accounts for the whole burst exactly).
    async fn balance_evidence(
        &self,
        local_id: LocalJobId,
        record: &JobRecord,
        state: &ReconcileState,
    ) -> BalanceEvidence {
        let (readings, others) = {
            let jobs = self.jobs.lock().await;
            let Some(entry) = jobs.get(&local_id) else {
                return BalanceEvidence::NotChecked;
            };
            let earliest_reading_ms = state.sent_at_unix_ms - READING_LOOKBACK_MS;
            let mut readings: Vec<CreditSnapshot> = jobs
                .values()
                .filter(|e| e.record.local_id != local_id)
                .filter_map(|e| e.credits_before)
                .filter(|b| {
                    b.read_at_unix_ms
                        .is_some_and(|t| t < state.sent_at_unix_ms && t >= earliest_reading_ms)
                })
                .collect();
            readings.extend(entry.credits_before);
            let others: Vec<OtherJob> = jobs
                .values()
                .filter(|e| e.record.local_id != local_id)
                .map(|e| OtherJob {
                    record: e.record.clone(),
                    sent_at_unix_ms: e.sent_at_unix_ms,
                })
                .collect();
            (readings, others)
        };
        if readings.is_empty() {
            return BalanceEvidence::Unusable {
                reason: "no balance was recorded just before the submit".into(),
            };
        }
        let balance = self.ctx.client.credits().await;
        self.ctx.reachability.note(balance.as_ref());
        match balance {
            Ok(now) => weigh_balance(
                &readings,
                &now,
                state.sent_at_unix_ms,
                record.credits_estimate,
                &others,
            ),
            Err(e) => BalanceEvidence::Unusable {
                reason: format!("the balance could not be read: {e}"),
            },
        }
    }
}

/// Library pages reconcile read a moment ago. After a burst many lost answers are looked
/// for at once; each reading the same pages on its own would spend the media rate limit
/// (shared with the Library view) many times over and slow every verdict down.
#[derive(Default)]
pub(super) struct LibraryPageCache {
    pages: tokio::sync::Mutex<HashMap<(MediaQuery, u32), (tokio::time::Instant, MediaPage)>>,
}

impl LibraryPageCache {
    /// The page as read by a request that left no earlier than `not_before` (see
    /// `PAGE_KEEP_MS`: an older page could miss an item the asking check already may count
    /// on seeing), else `fetch` it. Held locked while fetching, so concurrent searches wait
    /// for one read instead of making their own.
    async fn get_or_fetch<F, Fut>(
        &self,
        query: &MediaQuery,
        page_number: u32,
        not_before: tokio::time::Instant,
        fetch: F,
    ) -> Result<MediaPage, ApiError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<MediaPage, ApiError>>,
    {
        let mut pages = self.pages.lock().await;
        let now = tokio::time::Instant::now();
        pages.retain(|_, (asked_at, _)| {
            now.duration_since(*asked_at) < Duration::from_millis(PAGE_KEEP_MS)
        });
        let key = (query.clone(), page_number);
        if let Some((asked_at, page)) = pages.get(&key)
            && *asked_at >= not_before
        {
            return Ok(page.clone());
        }
        let asked_at = tokio::time::Instant::now();
        let page = fetch().await?;
        pages.insert(key, (asked_at, page.clone()));
        Ok(page)
    }
}

/// Another job of ours, as the balance evidence needs it.
struct OtherJob {
    record: JobRecord,
    /// When its POST left (our clock), if it was sent.
    sent_at_unix_ms: Option<i64>,
}

enum Claim {
    Claimed(LibraryMatch),
    /// Another job of ours holds it (or this job is no longer unconfirmed).
    Taken,
    /// Maybe another job's: look again at the next check.
    Deferred,
}

/// `auto` or no model: the service routes the job, so any model of the type may run it.
fn is_auto(model: Option<&str>) -> bool {
    let Some(model) = model.map(str::trim).filter(|m| !m.is_empty()) else {
        return true;
    };
    [
        "auto",
        "auto-select",
        "smart-select",
        "smart_select",
        "smartselect",
    ]
    .iter()
    .any(|alias| model.eq_ignore_ascii_case(alias))
}

/// The last check saw credits reserved (some job still running).
fn last_check_saw_reservation(state: &ReconcileState) -> bool {
    state.last_check.as_ref().is_some_and(|check| {
        matches!(
            check.balance,
            BalanceEvidence::UnexplainedReservation { .. }
        )
    })
}

/// The last check searched the library to the end and read a usable balance.
fn last_check_complete(state: &ReconcileState) -> bool {
    state.last_check.as_ref().is_some_and(|check| {
        check.library_items_read.is_some()
            && !matches!(
                check.balance,
                BalanceEvidence::Unusable { .. } | BalanceEvidence::NotChecked
            )
    })
}

/// The oldest library page a check starting at `started` may take: one read after this job's
/// previous search ended (its evidence only gets newer; the first check reads afresh) and,
/// once its window has ended (`ms_past_window_end` ≥ 0) so that it may decide, after that end.
fn pages_fresh_after(
    last_search_done: Option<tokio::time::Instant>,
    started: tokio::time::Instant,
    ms_past_window_end: i64,
) -> tokio::time::Instant {
    let after_previous = last_search_done.unwrap_or(started);
    if ms_past_window_end < 0 {
        return after_previous;
    }
    let window_end = started
        .checked_sub(Duration::from_millis(ms_past_window_end as u64))
        .unwrap_or(started);
    after_previous.max(window_end)
}

fn check_interval_ms(window_ms: i64, max_secs: f64) -> i64 {
    let secs =
        (window_ms as f64 / 1000.0 / CHECKS_PER_WINDOW).clamp(MIN_CHECK_INTERVAL_SECS, max_secs);
    (secs * 1000.0) as i64
}

fn created_ms(item: &MediaItem) -> Option<i64> {
    item.created_at
        .as_deref()
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t.trim()).ok())
        .map(|t| t.timestamp_millis())
}

/// The Creative Director batch a scene's library item belongs to (`batchId` in its
/// metadata; not in the contract, read when present).
fn batch_id_of(item: &MediaItem) -> Option<String> {
    ["batchId", "batch_id", "creativeDirectorId"]
        .iter()
        .find_map(|key| item.metadata.get(*key)?.as_str())
        .map(str::trim)
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
}

/// Image items for image work, video items for video work (a Creative Director batch's
/// scenes are items of its workflow's type), audio items for music, speech and sound,
/// `3d_model` items for 3D (elements, first-last frame and lip sync make videos).
fn media_type_matches(item: &MediaItem, spec: &GenerationSpec) -> bool {
    let wanted = if spec.kind.outputs_audio() {
        "audio"
    } else if spec.kind.outputs_3d() {
        // A 3D job's files are library items of type `3d_model` (GLB first).
        "3d_model"
    } else if spec.makes_video() {
        "video"
    } else {
        "image"
    };
    item.kind() == wanted
}

/// Library items that may be the output of `record`: same prompt, same type, same project
/// (when both name one), the same seed (when both carry one), created no earlier than
/// `earliest_ms`.
fn library_candidates<'a>(
    items: &'a [MediaItem],
    record: &JobRecord,
    earliest_ms: i64,
) -> Vec<&'a MediaItem> {
    let request = &record.spec.request;
    let prompt = request.prompt.trim();
    items
        .iter()
        .filter(|item| item.prompt_text().map(str::trim) == Some(prompt))
        .filter(|item| media_type_matches(item, &record.spec))
        .filter(|item| match (&request.project_id, &item.project_id) {
            (Some(ours), Some(theirs)) => ours == theirs,
            _ => true,
        })
        .filter(|item| {
            let item_seed = item
                .metadata
                .get("seed")
                .and_then(serde_json::Value::as_u64);
            match (request.seed, item_seed) {
                (Some(ours), Some(theirs)) => ours == theirs,
                _ => true,
            }
        })
        .filter(|item| created_ms(item).is_some_and(|t| t >= earliest_ms))
        .collect()
}

/// The balance as evidence (contract: reservations reduce `available` but not `total`; a
/// settled charge reduces `total`). Only `total` can show a charge.
///
/// For each reading taken before this job's POST, the drop in `total` since is this job's
/// charge (if any) plus everything else that settled after the reading. Of that, only our
/// own jobs known for certain to have settled after the reading are subtracted: a
/// completed job whose POST left after the reading (our clock), or whose completion the
/// service dates at least a second after the reading's `Date` (its clock, whole seconds);
/// failed and cancelled jobs cost nothing; a running job's reservation does not touch
/// `total`. Everything else — our jobs that finished around the reading, our other
/// unconfirmed submits, other apps — is unknown spending: never subtracted, so what is left
/// is an upper bound of this job's charge. The smallest bound over the readings decides:
/// below half the estimate, nothing was charged; otherwise the evidence cannot rule a charge
/// out (never proof that there was one).
fn weigh_balance(
    readings: &[CreditSnapshot],
    now: &Credits,
    sent_at_ms: i64,
    estimate: Option<f64>,
    others: &[OtherJob],
) -> BalanceEvidence {
    let Some(total_now) = now.total else {
        return BalanceEvidence::Unusable {
            reason: "the service reports no total balance to compare".into(),
        };
    };
    let bounds: Vec<f64> = readings
        .iter()
        .filter_map(|reading| {
            let total_before = reading.total?;
            let settled_after: f64 = others
                .iter()
                .filter(|o| matches!(o.record.phase, JobPhase::Completed))
                .filter(|o| settled_after_reading(o, reading, sent_at_ms))
                .filter_map(|o| o.record.credits_used)
                .sum();
            Some((total_before - total_now) - settled_after)
        })
        .collect();
    let Some(bound) = bounds.iter().copied().reduce(f64::min) else {
        return BalanceEvidence::Unusable {
            reason: "the service reports no total balance to compare".into(),
        };
    };
    if bound < -MIN_CHARGE_CREDITS {
        // More was added than spent (a top-up, a refund): a charge could hide in it.
        return BalanceEvidence::Unusable {
            reason: "credits were added to the account since the submit".into(),
        };
    }
    let threshold = match estimate {
        Some(estimate) if estimate > 0.0 => (estimate * CHARGE_MATCH_SHARE).max(MIN_CHARGE_CREDITS),
        _ => MIN_CHARGE_CREDITS,
    };
    if bound >= threshold {
        return BalanceEvidence::UnexplainedCharge {
            credits: round_credits(bound),
        };
    }
    // Nothing settled; but a job still running holds a reservation (`available` below
    // `total`), and it may be this one, running past its window. Our own jobs cannot be
    // told apart from it: one we last saw running may have finished since (and its
    // reservation gone), so subtracting their estimates could hide this job's.
    if let Some(available_now) = now.available {
        let reserved_now = total_now - available_now;
        if reserved_now >= threshold {
            return BalanceEvidence::UnexplainedReservation {
                credits: round_credits(reserved_now),
            };
        }
    }
    BalanceEvidence::NoCharge
}

/// Whether `other`'s charge certainly landed after `reading` was taken. Only certain
/// answers count: a wrong "after" would hide a charge of the job being reconciled.
fn settled_after_reading(other: &OtherJob, reading: &CreditSnapshot, sent_at_ms: i64) -> bool {
    // Older journal rows have no reading time: the job's own send time bounds it.
    let read_at = reading.read_at_unix_ms.unwrap_or(sent_at_ms);
    // The service produced the reading before its answer reached us (`read_at`), and the
    // other job's POST left no earlier than its `sent_at`: even in the same millisecond,
    // that job was created, and so charged, after the reading.
    if other.sent_at_unix_ms.is_some_and(|t| t >= read_at) {
        return true;
    }
    let Some(service_read_at) = reading.service_time_unix_ms else {
        return false;
    };
    other
        .record
        .result
        .as_ref()
        .and_then(|r| r.created_at.as_deref())
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t.trim()).ok())
        // `Date` is whole seconds: the reading happened before the next one began.
        .is_some_and(|finished| finished.timestamp_millis() >= service_read_at + 1000)
}

fn round_credits(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

// ---------------------------------------------------------------------------------------
// Wording
// ---------------------------------------------------------------------------------------

pub(super) const CHECKING: &str = "We're still looking for this job's result — don't resubmit \
yet. The service did not answer the submit, so it is not known yet whether the job was \
created; a second submit would be billed separately.";

/// An unanswered trim submit (or a trim the app stopped sending): never re-sent, never
/// searched for (a trim has no prompt to match and charges nothing).
pub(super) const TRIM_UNCONFIRMED: &str = "The service did not answer this trim, so it is not \
known whether it started. It is not sent again automatically. Trims are free: look for the \
trimmed copy in your media library, or trim again.";

/// An unanswered chat message: never re-sent (a second one is billed again), never searched
/// for (an answer makes no library item); the conversation shows whether it arrived.
pub(super) const CHAT_UNCONFIRMED: &str = "The service did not answer this message, so it is \
not known whether it was sent. It is not sent again automatically (a second message is billed \
separately): open its conversation to see whether it arrived, then send it again if not.";

/// The note of an unconfirmed job that reconcile does not search for (trims, chat), or
/// the usual "still looking" note.
pub(super) fn unconfirmed_note(kind: GenerationKind) -> &'static str {
    match kind {
        GenerationKind::VideoTrim => TRIM_UNCONFIRMED,
        GenerationKind::Chat => CHAT_UNCONFIRMED,
        _ => CHECKING,
    }
}

pub(super) const CHECKING_AFTER_RESTART: &str = "We're still looking for this job's result — \
don't resubmit yet. The app stopped while this job was being sent, so it is not known whether \
the job was created; a second submit would be billed separately.";

fn clock_time(unix_ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(unix_ms)
        .map(|t| {
            t.with_timezone(&chrono::Local)
                .format("%H:%M:%S")
                .to_string()
        })
        .unwrap_or_else(|| "an unknown time".to_owned())
}

fn format_credits(value: f64) -> String {
    let rounded = round_credits(value);
    if (rounded - rounded.round()).abs() < 1e-9 {
        format!("{} credits", rounded.round() as i64)
    } else {
        format!("{rounded:.2} credits")
    }
}

/// What was checked, in words.
fn checked_words(state: &ReconcileState) -> String {
    let Some(last) = &state.last_check else {
        return "Nothing checked yet.".to_owned();
    };
    let library = match last.library_items_read {
        Some(n) => format!(
            "Searched your media library {} time(s), last at {} ({n} item(s) since the submit, none from this job)",
            state.checks,
            clock_time(last.at_unix_ms)
        ),
        None => format!(
            "The media library could not be searched at {}",
            clock_time(last.at_unix_ms)
        ),
    };
    let balance = match &last.balance {
        BalanceEvidence::NotChecked => String::new(),
        BalanceEvidence::NoCharge => "; your balance shows no charge for it".to_owned(),
        BalanceEvidence::UnexplainedCharge { credits } => format!(
            "; your balance fell by {} that our other jobs don't account for (this job or \
other spending on the account)",
            format_credits(*credits)
        ),
        BalanceEvidence::UnexplainedReservation { credits } => format!(
            "; {} of your balance is still reserved for running jobs (this one may be among \
them)",
            format_credits(*credits)
        ),
        BalanceEvidence::Unusable { reason } => format!("; the balance says nothing ({reason})"),
    };
    format!("{library}{balance}.")
}

/// The note shown for an unconfirmed job in `state` (after a check without a match).
fn note_for(state: &ReconcileState) -> String {
    match &state.verdict {
        StoredVerdict::Looking => format!(
            "We're still looking for this job's result — don't resubmit yet. The service did \
not answer the submit; a job like this can take until about {} to appear in your library. {}",
            clock_time(state.window_ends_at_unix_ms),
            checked_words(state)
        ),
        StoredVerdict::NothingCharged => format!(
            "Nothing was charged for this submit: its result did not appear in your media \
library by {}, the longest a job like this takes, and your balance shows no charge for it. \
You can submit again. {}",
            clock_time(state.window_ends_at_unix_ms),
            checked_words(state)
        ),
        StoredVerdict::Inconclusive => format!(
            "This job could not be confirmed either way: its result did not appear in your \
media library by {}, but a charge for it cannot be ruled out. Look in the media library \
before submitting again: a second submit would be billed separately. {}",
            clock_time(state.window_ends_at_unix_ms),
            checked_words(state)
        ),
        StoredVerdict::Recovered { .. } | StoredVerdict::FoundItem { .. } => String::new(),
    }
}

pub(super) fn snapshot_of(
    credits: &Credits,
    read_at_unix_ms: i64,
    service_time_unix_ms: Option<i64>,
) -> CreditSnapshot {
    CreditSnapshot {
        available: credits.available,
        total: credits.total,
        read_at_unix_ms: Some(read_at_unix_ms),
        service_time_unix_ms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{Failure, GenerationRequest, GenerationSpec};

    const SENT_MS: i64 = 1_700_000_000_000;

    fn job(local_id: LocalJobId, phase: JobPhase, submitted_at: i64) -> JobRecord {
        JobRecord {
            local_id,
            generation_id: None,
            spec: GenerationSpec {
                catalog: None,
                kind: GenerationKind::Image,
                request: GenerationRequest {
                    prompt: "a red fox".into(),
                    project_id: Some("p1".into()),
                    ..Default::default()
                },
                video: None,
                audio: None,
            },
            model_label: "Auto".into(),
            phase,
            progress_percent: 0.0,
            submitted_at_unix_ms: submitted_at,
            finished_at_unix_ms: None,
            credits_estimate: Some(4.0),
            credits_used: None,
            result: None,
            poll_problem: None,
            poll_interval_secs: 3.0,
            scenes: Vec::new(),
        }
    }

    /// The balance read just before this job's send: 100 ms before it on our clock,
    /// in the second before it on the service's.
    fn snapshot(available: f64, total: f64) -> CreditSnapshot {
        CreditSnapshot {
            available: Some(available),
            total: Some(total),
            read_at_unix_ms: Some(SENT_MS - 100),
            service_time_unix_ms: Some(SENT_MS - 1000),
        }
    }

    fn balance(available: f64, total: f64) -> Credits {
        Credits {
            available: Some(available),
            total: Some(total),
            ..Credits::default()
        }
    }

    fn running() -> JobPhase {
        JobPhase::Running {
            state: JobState::Processing,
        }
    }

    fn other(record: JobRecord, sent_at_unix_ms: Option<i64>) -> OtherJob {
        OtherJob {
            record,
            sent_at_unix_ms,
        }
    }

    /// A completed job of ours: sent at `sent_at`, finished on the service at
    /// `finished_ms` (its clock), charged `credits`, seen finished by us at `seen_ms`.
    fn completed(
        local_id: LocalJobId,
        sent_at: i64,
        finished_ms: i64,
        seen_ms: i64,
        credits: f64,
    ) -> OtherJob {
        let mut record = job(local_id, JobPhase::Completed, sent_at);
        record.credits_used = Some(credits);
        record.finished_at_unix_ms = Some(seen_ms);
        record.result = Some(crate::api::JobResult {
            created_at: chrono::DateTime::from_timestamp_millis(finished_ms)
                .map(|t| t.to_rfc3339()),
            ..Default::default()
        });
        other(record, Some(sent_at))
    }

    #[test]
    fn a_running_reservation_does_not_explain_a_total_drop() {
        // Another job of ours is running (it reserved 4); total fell by 4: that is a
        // settled charge the running job cannot have made yet as far as we know.
        let others = vec![other(job(2, running(), SENT_MS + 10), Some(SENT_MS + 10))];
        let evidence = weigh_balance(
            &[snapshot(100.0, 100.0)],
            &balance(92.0, 96.0),
            SENT_MS,
            Some(4.0),
            &others,
        );
        assert_eq!(
            evidence,
            BalanceEvidence::UnexplainedCharge { credits: 4.0 }
        );
        // Nothing settled and nothing reserved: no charge.
        let evidence = weigh_balance(
            &[snapshot(100.0, 100.0)],
            &balance(100.0, 100.0),
            SENT_MS,
            Some(4.0),
            &others,
        );
        assert_eq!(evidence, BalanceEvidence::NoCharge);
    }

    #[test]
    fn any_reservation_blocks_nothing_charged() {
        // Nothing settled (total unchanged) but 4 credits are reserved. Our running job
        // reserved 4 when we last looked — it may have finished since, and the 4 be this
        // job's, still running past its window. So no "nothing charged" yet.
        let others = vec![other(job(2, running(), SENT_MS + 10), Some(SENT_MS + 10))];
        assert_eq!(
            weigh_balance(
                &[snapshot(100.0, 100.0)],
                &balance(96.0, 100.0),
                SENT_MS,
                Some(4.0),
                &others
            ),
            BalanceEvidence::UnexplainedReservation { credits: 4.0 }
        );
        // A reservation below half the estimate cannot be this job's.
        assert_eq!(
            weigh_balance(
                &[snapshot(100.0, 100.0)],
                &balance(99.0, 100.0),
                SENT_MS,
                Some(4.0),
                &others
            ),
            BalanceEvidence::NoCharge
        );
    }

    #[test]
    fn the_larger_available_drop_is_never_taken() {
        // Available fell by 8, total unchanged: nothing has been charged (so no
        // unexplained charge), but the reservation is evidence that a job still runs.
        let evidence = weigh_balance(
            &[snapshot(100.0, 100.0)],
            &balance(92.0, 100.0),
            SENT_MS,
            Some(4.0),
            &[],
        );
        assert_eq!(
            evidence,
            BalanceEvidence::UnexplainedReservation { credits: 8.0 }
        );
    }

    #[test]
    fn failed_and_cancelled_jobs_count_zero_and_completed_ones_their_real_charge() {
        let mut failed = job(
            2,
            JobPhase::Failed {
                failure: Failure::default(),
            },
            SENT_MS + 10,
        );
        failed.credits_estimate = Some(4.0);
        let cancelled = job(3, JobPhase::Cancelled, SENT_MS + 20);
        let others = vec![
            other(failed, Some(SENT_MS + 10)),
            other(cancelled, Some(SENT_MS + 20)),
            // Sent after our reading: its charge certainly came after it.
            completed(4, SENT_MS + 30, SENT_MS + 400, SENT_MS + 5_000, 3.0),
        ];
        // Total fell by 3: exactly the completed job's charge.
        assert_eq!(
            weigh_balance(
                &[snapshot(100.0, 100.0)],
                &balance(97.0, 97.0),
                SENT_MS,
                Some(4.0),
                &others
            ),
            BalanceEvidence::NoCharge
        );
        // Total fell by 7: failed and cancelled jobs do not explain the other 4.
        assert_eq!(
            weigh_balance(
                &[snapshot(100.0, 100.0)],
                &balance(93.0, 93.0),
                SENT_MS,
                Some(4.0),
                &others
            ),
            BalanceEvidence::UnexplainedCharge { credits: 4.0 }
        );
    }

    #[test]
    fn a_job_charged_before_the_reading_but_seen_finished_after_the_send_explains_nothing() {
        // Sent earlier, finished on the service two seconds before our reading, but our
        // poll only saw it after this job's POST. Its 4 credits were already out of the
        // balance we read, so the 4-credit drop since is this job's: subtracting the other
        // would say "nothing was charged" about a billed job.
        let others = vec![completed(
            2,
            SENT_MS - 10_000,
            SENT_MS - 3_000,
            SENT_MS + 2_000,
            4.0,
        )];
        assert_eq!(
            weigh_balance(
                &[snapshot(96.0, 96.0)],
                &balance(92.0, 92.0),
                SENT_MS,
                Some(4.0),
                &others
            ),
            BalanceEvidence::UnexplainedCharge { credits: 4.0 }
        );
    }

    #[test]
    fn an_earlier_reading_accounts_for_a_job_that_settled_around_the_last_one() {
        // Job 2 finished within the same service second as our own reading: whether its
        // charge is in that reading cannot be told, so by it alone the drop is unexplained.
        let others = vec![completed(
            2,
            SENT_MS - 5_000,
            SENT_MS - 50,
            SENT_MS + 500,
            4.0,
        )];
        let own = snapshot(100.0, 100.0);
        assert_eq!(
            weigh_balance(&[own], &balance(96.0, 96.0), SENT_MS, Some(4.0), &others),
            BalanceEvidence::UnexplainedCharge { credits: 4.0 }
        );
        // A reading from before job 2 was sent (another send's) accounts for it exactly.
        let earlier = CreditSnapshot {
            read_at_unix_ms: Some(SENT_MS - 10_000),
            service_time_unix_ms: Some(SENT_MS - 11_000),
            ..snapshot(100.0, 100.0)
        };
        assert_eq!(
            weigh_balance(
                &[earlier, own],
                &balance(96.0, 96.0),
                SENT_MS,
                Some(4.0),
                &others
            ),
            BalanceEvidence::NoCharge
        );
        // Dated by the service a full second after the reading: certain without it.
        let later = vec![completed(
            2,
            SENT_MS - 5_000,
            SENT_MS + 10,
            SENT_MS + 500,
            4.0,
        )];
        assert_eq!(
            weigh_balance(&[own], &balance(96.0, 96.0), SENT_MS, Some(4.0), &later),
            BalanceEvidence::NoCharge
        );
    }

    #[test]
    fn a_job_sent_in_the_same_millisecond_as_the_reading_settled_after_it() {
        // A burst reads and sends within one millisecond; the reading was produced before
        // its answer arrived, so a POST leaving at that instant came after it.
        let read_at = SENT_MS - 100;
        let others = vec![completed(2, read_at, SENT_MS - 50, SENT_MS + 500, 4.0)];
        assert_eq!(
            weigh_balance(
                &[snapshot(100.0, 100.0)],
                &balance(96.0, 96.0),
                SENT_MS,
                Some(4.0),
                &others
            ),
            BalanceEvidence::NoCharge
        );
    }

    #[test]
    fn unknown_other_spending_is_never_proof_either_way() {
        // Another unconfirmed submit of ours and a job that finished around the snapshot:
        // neither is subtracted, so a drop stays unexplained (no "submit again")...
        let unconfirmed = job(
            3,
            JobPhase::Unconfirmed {
                note: String::new(),
            },
            SENT_MS + 10,
        );
        let others = vec![
            completed(2, SENT_MS - 5_000, SENT_MS - 500, SENT_MS + 1_000, 4.0),
            other(unconfirmed, Some(SENT_MS + 10)),
        ];
        assert_eq!(
            weigh_balance(
                &[snapshot(100.0, 100.0)],
                &balance(96.0, 96.0),
                SENT_MS,
                Some(4.0),
                &others
            ),
            BalanceEvidence::UnexplainedCharge { credits: 4.0 }
        );
        // ...and credits added since (a top-up could hide a charge) make it unusable.
        assert!(matches!(
            weigh_balance(
                &[snapshot(100.0, 100.0)],
                &balance(150.0, 150.0),
                SENT_MS,
                Some(4.0),
                &others
            ),
            BalanceEvidence::Unusable { .. }
        ));
        // Without a total there is nothing to compare.
        assert!(matches!(
            weigh_balance(
                &[CreditSnapshot {
                    total: None,
                    ..snapshot(100.0, 100.0)
                }],
                &balance(90.0, 90.0),
                SENT_MS,
                Some(4.0),
                &[]
            ),
            BalanceEvidence::Unusable { .. }
        ));
    }

    #[test]
    fn a_library_page_serves_only_checks_whose_previous_search_ended_before_it_was_read() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("runtime");
        runtime.block_on(async {
            let cache = LibraryPageCache::default();
            let query = MediaQuery::default();
            let fetches = std::sync::atomic::AtomicU32::new(0);
            let fetch = || async {
                fetches.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                Ok(MediaPage::default())
            };
            let first_check = tokio::time::Instant::now();
            cache
                .get_or_fetch(&query, 1, first_check, fetch)
                .await
                .expect("page");
            // Another lost answer whose previous search ended as early: the same read
            // serves it.
            cache
                .get_or_fetch(&query, 1, first_check, fetch)
                .await
                .expect("page");
            assert_eq!(fetches.load(std::sync::atomic::Ordering::SeqCst), 1);
            // Another page is its own read.
            cache
                .get_or_fetch(&query, 2, first_check, fetch)
                .await
                .expect("page");
            assert_eq!(fetches.load(std::sync::atomic::Ordering::SeqCst), 2);
            // A check whose previous search ended after page 1 was read (the job that read
            // it, checking again) would learn nothing new from it: it reads the page again.
            tokio::time::sleep(Duration::from_millis(5)).await;
            let later_check = tokio::time::Instant::now();
            cache
                .get_or_fetch(&query, 1, later_check, fetch)
                .await
                .expect("page");
            assert_eq!(fetches.load(std::sync::atomic::Ordering::SeqCst), 3);
        });
    }

    #[test]
    fn a_check_takes_pages_newer_than_its_last_search_and_than_its_window_end() {
        let now = tokio::time::Instant::now();
        let secs = Duration::from_secs;
        // The first check reads afresh.
        assert_eq!(pages_fresh_after(None, now, -5_000), now);
        // Later ones take what another lost answer read since their own last search…
        let last = now - secs(1);
        assert_eq!(pages_fresh_after(Some(last), now, -5_000), last);
        assert_eq!(pages_fresh_after(Some(last), now, 3_000), last);
        // …but once the window has ended, nothing read before its end.
        assert_eq!(
            pages_fresh_after(Some(now - secs(5)), now, 2_000),
            now - secs(2)
        );
    }

    #[test]
    fn check_interval_spreads_checks_over_the_window() {
        assert_eq!(check_interval_ms(80_000, MAX_CHECK_INTERVAL_SECS), 10_000);
        assert_eq!(check_interval_ms(1_000, MAX_CHECK_INTERVAL_SECS), 500);
        assert_eq!(
            check_interval_ms(3_600_000, MAX_CHECK_INTERVAL_SECS),
            30_000
        );
        assert!(is_auto(None) && is_auto(Some(" Auto ")) && is_auto(Some("")));
        assert!(!is_auto(Some("fal-ai/flux/schnell")));
    }

    #[test]
    fn submit_again_is_said_only_after_the_window_with_no_charge() {
        let mut state = ReconcileState {
            sent_at_unix_ms: SENT_MS,
            window_ends_at_unix_ms: SENT_MS + 60_000,
            checks: 3,
            last_check: Some(CheckRecord {
                at_unix_ms: SENT_MS + 30_000,
                library_items_read: Some(12),
                balance: BalanceEvidence::NoCharge,
            }),
            verdict: StoredVerdict::Looking,
        };
        let looking = note_for(&state);
        assert!(
            looking.starts_with("We're still looking for this job's result — don't resubmit yet.")
        );
        assert!(!looking.contains("submit again"));
        state.verdict = StoredVerdict::Inconclusive;
        let inconclusive = note_for(&state);
        assert!(inconclusive.contains("could not be confirmed either way"));
        assert!(inconclusive.contains("Look in the media library before submitting again"));
        assert!(!inconclusive.contains("You can submit again"));
        state.verdict = StoredVerdict::NothingCharged;
        let nothing = note_for(&state);
        assert!(nothing.starts_with("Nothing was charged"));
        assert!(nothing.contains("You can submit again"));
        assert!(!nothing.contains("never received"));
        assert!(
            !CHECKING.contains("submit again") && !CHECKING_AFTER_RESTART.contains("submit again")
        );
        assert_eq!(format_credits(8.0), "8 credits");
        assert_eq!(format_credits(2.5), "2.50 credits");
    }

    #[test]
    fn state_round_trips_through_json() {
        let state = ReconcileState {
            sent_at_unix_ms: SENT_MS,
            window_ends_at_unix_ms: SENT_MS + 60_000,
            checks: 7,
            last_check: Some(CheckRecord {
                at_unix_ms: SENT_MS + 61_000,
                library_items_read: Some(51),
                balance: BalanceEvidence::UnexplainedCharge { credits: 2.5 },
            }),
            verdict: StoredVerdict::Inconclusive,
        };
        let json = serde_json::to_string(&state).expect("encodes");
        let back: ReconcileState = serde_json::from_str(&json).expect("decodes");
        assert_eq!(back, state);
        let recovered = ReconcileState {
            verdict: StoredVerdict::Recovered {
                generation_id: "gen_1".into(),
            },
            ..ReconcileState::default()
        };
        let json = serde_json::to_string(&recovered).expect("encodes");
        assert_eq!(
            serde_json::from_str::<ReconcileState>(&json).expect("decodes"),
            recovered
        );
        assert!(recovered.verdict.is_final());
        assert!(!StoredVerdict::Looking.is_final());
    }

    #[test]
    fn library_candidates_match_prompt_type_project_seed_and_time() {
        let mut record = job(
            1,
            JobPhase::Unconfirmed {
                note: String::new(),
            },
            SENT_MS,
        );
        record.spec.request.seed = Some(7);
        let at = |offset_ms: i64| {
            chrono::DateTime::from_timestamp_millis(SENT_MS + offset_ms).map(|t| t.to_rfc3339())
        };
        let item = |id: &str, prompt: &str, project: &str, created: Option<String>| MediaItem {
            id: id.into(),
            prompt: Some(prompt.into()),
            project_id: Some(project.into()),
            item_type: Some("image".into()),
            created_at: created,
            ..MediaItem::default()
        };
        let mut video = item("video", "a red fox", "p1", at(5_000));
        video.item_type = Some("video".into());
        let mut other_seed = item("other-seed", "a red fox", "p1", at(5_000));
        other_seed
            .metadata
            .insert("seed".into(), serde_json::json!(8));
        let mut same_seed = item("same-seed", "a red fox", "p1", at(6_000));
        same_seed
            .metadata
            .insert("seed".into(), serde_json::json!(7));
        let items = vec![
            item("ok", " a red fox ", "p1", at(5_000)),
            item("skewed", "a red fox", "p1", at(-60_000)),
            item("too-old", "a red fox", "p1", at(-10 * 60_000)),
            item("other-prompt", "a blue fox", "p1", at(5_000)),
            item("other-project", "a red fox", "p2", at(5_000)),
            item("no-time", "a red fox", "p1", None),
            video,
            other_seed,
            same_seed,
        ];
        let found: Vec<&str> =
            library_candidates(&items, &record, SENT_MS - CLOCK_SKEW_ALLOWANCE_MS)
                .iter()
                .map(|i| i.id.as_str())
                .collect();
        assert_eq!(found, vec!["ok", "skewed", "same-seed"]);
    }

    #[test]
    fn an_audio_job_is_matched_to_audio_items_only() {
        let mut record = job(
            1,
            JobPhase::Unconfirmed {
                note: String::new(),
            },
            SENT_MS,
        );
        record.spec = GenerationSpec::for_audio(crate::api::AudioJobRequest::Speech(
            crate::api::SpeechRequest {
                text: "a red fox".into(),
                voice: "Rachel".into(),
                project_id: Some("p1".into()),
                ..Default::default()
            },
        ));
        let created =
            chrono::DateTime::from_timestamp_millis(SENT_MS + 5_000).map(|t| t.to_rfc3339());
        let item = |id: &str, item_type: &str| MediaItem {
            id: id.into(),
            prompt: Some("a red fox".into()),
            project_id: Some("p1".into()),
            item_type: Some(item_type.into()),
            created_at: created.clone(),
            ..MediaItem::default()
        };
        let items = vec![item("picture", "image"), item("voice", "audio")];
        let found: Vec<&str> =
            library_candidates(&items, &record, SENT_MS - CLOCK_SKEW_ALLOWANCE_MS)
                .iter()
                .map(|i| i.id.as_str())
                .collect();
        assert_eq!(found, vec!["voice"]);
    }
}
