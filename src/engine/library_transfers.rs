//! Library uploads and downloads with progress and cancel.
//!
//! Uploads stream from disk (never whole in memory), wait for a slot in the client-side
//! upload pacing (so a big drop queues instead of collecting 429s), and on a 429 anyway
//! wait `retryAfter` and retry that same upload (uploads are not billed generations).
//! Downloads go to a temp file in the target folder and are renamed when complete.
//! Every transfer ends with exactly one `TransferFinished`.

use super::guard::spawn_reported;
use super::protocol::{DownloadItem, Event, TransferOutcome, UploadRequest};
use super::rate_limit::RateLimiter;
use super::runtime::Ctx;
use crate::api::media::{MediaCategory, MediaQuery};
use crate::api::{ApiError, TransferCounter, UploadedMedia};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{Semaphore, watch};

/// Progress events per transfer are at most this frequent (10 per second).
const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);
/// 429s tolerated for one upload before it is reported as failed.
const MAX_RATE_LIMIT_RETRIES: u32 = 5;
/// Newest uploads searched for the item a folder upload created.
const FIND_UPLOAD_PAGE_SIZE: u32 = 50;
/// Looks for the new library item (the list may lag the upload slightly).
const FIND_UPLOAD_ATTEMPTS: u32 = 3;
const FIND_UPLOAD_RETRY_DELAY: Duration = Duration::from_millis(700);

/// Knobs of the transfer queue; the defaults follow the contract's limits.
#[derive(Clone, Debug)]
pub struct TransferTuning {
    /// Upload POSTs per window (contract: 10/min, shared with other generation routes).
    pub uploads_per_window: u32,
    /// Length of the service's rate windows the engine paces itself by (the contract's
    /// 60 s; shorter only against a service configured so, e.g. a test sandbox).
    pub rate_window_secs: f64,
    /// Uploads streaming at the same time; the rest wait in the queue.
    pub concurrent_uploads: usize,
    /// Reconcile of a lost submit: seconds added to the longest a job can take before
    /// "nothing was charged" may be said (queueing on the service, slow providers).
    pub reconcile_margin_secs: f64,
    /// Reconcile: the catalog's `estimated_duration_seconds` is multiplied by this to get
    /// the longest a job can take (tests shrink it to match a fast sandbox).
    pub reconcile_duration_factor: f64,
}

impl Default for TransferTuning {
    fn default() -> Self {
        TransferTuning {
            uploads_per_window: super::rate_limit::DEFAULT_UPLOADS_PER_WINDOW,
            rate_window_secs: super::rate_limit::RATE_WINDOW_SECS,
            concurrent_uploads: 2,
            reconcile_margin_secs: super::reconcile::DEFAULT_MARGIN_SECS,
            reconcile_duration_factor: super::reconcile::DEFAULT_DURATION_FACTOR,
        }
    }
}

pub(crate) struct LibraryTransfers {
    ctx: Arc<Ctx>,
    /// The service's other-generation bucket (uploads share it with video submits).
    limiter: Arc<RateLimiter>,
    upload_slots: Semaphore,
    /// Cancel switches of queued and running transfers.
    cancels: Mutex<HashMap<u64, watch::Sender<bool>>>,
}

impl LibraryTransfers {
    pub fn new(ctx: Arc<Ctx>, tuning: &TransferTuning) -> Arc<Self> {
        Arc::new(LibraryTransfers {
            limiter: ctx.rate_gates.other_generation.clone(),
            ctx,
            upload_slots: Semaphore::new(tuning.concurrent_uploads.max(1)),
            cancels: Mutex::new(HashMap::new()),
        })
    }

    /// Stop a queued or running transfer. Unknown or finished ids are ignored (their one
    /// `TransferFinished` has already been sent).
    pub fn cancel(&self, transfer_id: u64) {
        if let Ok(cancels) = self.cancels.lock()
            && let Some(switch) = cancels.get(&transfer_id)
        {
            switch.send_replace(true);
        }
    }

    fn register(&self, transfer_id: u64) -> watch::Receiver<bool> {
        let (tx, rx) = watch::channel(false);
        if let Ok(mut cancels) = self.cancels.lock() {
            cancels.insert(transfer_id, tx);
        }
        rx
    }

    fn unregister(&self, transfer_id: u64) {
        if let Ok(mut cancels) = self.cancels.lock() {
            cancels.remove(&transfer_id);
        }
    }

    async fn finish(&self, transfer_id: u64, outcome: TransferOutcome) {
        self.unregister(transfer_id);
        self.ctx
            .emit(Event::TransferFinished {
                transfer_id,
                outcome,
            })
            .await;
    }

    // -----------------------------------------------------------------------------------
    // Uploads
    // -----------------------------------------------------------------------------------

    /// Queue one upload; it runs when a slot and the pacing allow.
    pub fn upload(self: &Arc<Self>, request: UploadRequest) {
        let cancel = self.register(request.transfer_id);
        let this = self.clone();
        spawn_reported(&self.ctx, "uploading a file", async move {
            let transfer_id = request.transfer_id;
            let sent = tokio::select! {
                biased;
                () = cancelled(cancel) => None,
                sent = this.send_upload(&request) => Some(sent),
            };
            let outcome = match sent {
                None => {
                    tracing::info!(transfer_id, "upload cancelled");
                    TransferOutcome::Cancelled
                }
                Some(Err(error)) => TransferOutcome::Failed(error),
                Some(Ok(media)) => {
                    // Past this point the file is in the library: cancel no longer applies.
                    this.unregister(transfer_id);
                    match &request.folder_id {
                        Some(folder_id) => {
                            match this
                                .file_into_folder(&media, folder_id, request.project_id.as_deref())
                                .await
                            {
                                Ok(()) => TransferOutcome::Uploaded(media),
                                Err(error) => TransferOutcome::Failed(not_filed(error)),
                            }
                        }
                        None => TransferOutcome::Uploaded(media),
                    }
                }
            };
            this.finish(transfer_id, outcome).await;
        });
    }

    /// Wait for a slot and the pacing, then stream the file; a 429 waits and retries.
    async fn send_upload(&self, request: &UploadRequest) -> Result<UploadedMedia, ApiError> {
        let transfer_id = request.transfer_id;
        let size_bytes = tokio::fs::metadata(&request.path)
            .await
            .map_err(|e| ApiError::Io(format!("cannot read {}: {e}", request.path.display())))?
            .len();
        // Queued: the UI learns the size at once.
        self.ctx
            .emit(Event::TransferProgress {
                transfer_id,
                bytes_done: 0,
                bytes_total: size_bytes,
            })
            .await;
        let _slot = self
            .upload_slots
            .acquire()
            .await
            .map_err(|_| ApiError::Io("the transfer queue has stopped".into()))?;
        let mut reported_bytes = 0;
        let mut retries = 0;
        loop {
            self.limiter.acquire().await;
            let counter = Arc::new(TransferCounter::default());
            let upload = self.ctx.client.upload_file_tracked(
                &request.path,
                request.project_id.as_deref(),
                Some(counter.clone()),
            );
            let result = self
                .with_progress(transfer_id, &counter, 0, &mut reported_bytes, upload)
                .await;
            match result {
                Err(error) if error.is_rate_limited() && retries < MAX_RATE_LIMIT_RETRIES => {
                    retries += 1;
                    let wait_secs = self.limiter.back_off_after(&error).await;
                    tracing::warn!(transfer_id, wait_secs, "upload rate limited; retrying");
                }
                Ok(media) => {
                    let total = counter.bytes_total.load(Ordering::Relaxed);
                    if total > reported_bytes {
                        self.ctx
                            .emit(Event::TransferProgress {
                                transfer_id,
                                bytes_done: total,
                                bytes_total: total,
                            })
                            .await;
                    }
                    return Ok(media);
                }
                Err(error) => return Err(error),
            }
        }
    }

    /// Drive `work` while reporting `base + counter` at most every 100 ms, never going
    /// backwards (a retried upload restarts its counter at 0).
    async fn with_progress<T>(
        &self,
        transfer_id: u64,
        counter: &TransferCounter,
        base_bytes: u64,
        reported_bytes: &mut u64,
        work: impl std::future::Future<Output = T>,
    ) -> T {
        tokio::pin!(work);
        let mut ticker = tokio::time::interval(PROGRESS_INTERVAL);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            tokio::select! {
                result = &mut work => return result,
                _ = ticker.tick() => {
                    let done = base_bytes + counter.bytes_done.load(Ordering::Relaxed);
                    if done > *reported_bytes {
                        *reported_bytes = done;
                        let total = base_bytes + counter.bytes_total.load(Ordering::Relaxed);
                        self.ctx
                            .emit(Event::TransferProgress {
                                transfer_id,
                                bytes_done: done,
                                bytes_total: total.max(done),
                            })
                            .await;
                    }
                }
            }
        }
    }

    /// The upload's own id is not a library id (contract): find the new item among the
    /// newest uploads by its URL, then add it to the folder.
    async fn file_into_folder(
        &self,
        media: &UploadedMedia,
        folder_id: &str,
        project_id: Option<&str>,
    ) -> Result<(), ApiError> {
        let query = MediaQuery {
            project_id: project_id.map(str::to_owned),
            category: MediaCategory::Uploaded,
            ..MediaQuery::default()
        };
        for attempt in 0..FIND_UPLOAD_ATTEMPTS {
            if attempt > 0 {
                tokio::time::sleep(FIND_UPLOAD_RETRY_DELAY).await;
            }
            let page = self
                .ctx
                .client
                .list_media(&query, 1, FIND_UPLOAD_PAGE_SIZE)
                .await?;
            if let Some(item) = page.items.iter().find(|i| same_url(&i.url, &media.url)) {
                let outcome = self
                    .ctx
                    .client
                    .add_to_folder(folder_id, std::slice::from_ref(&item.id))
                    .await?;
                if !outcome.rejected.is_empty() {
                    return Err(ApiError::Invalid(
                        "the folder did not accept the new item".into(),
                    ));
                }
                return Ok(());
            }
        }
        Err(ApiError::Invalid(
            "the new item did not show up in the library list".into(),
        ))
    }

    // -----------------------------------------------------------------------------------
    // Downloads
    // -----------------------------------------------------------------------------------

    /// Download `items` into `folder` one after another, each under a unique name.
    pub fn download(self: &Arc<Self>, transfer_id: u64, items: Vec<DownloadItem>, folder: PathBuf) {
        let cancel = self.register(transfer_id);
        let this = self.clone();
        spawn_reported(&self.ctx, "downloading files", async move {
            let outcome = tokio::select! {
                biased;
                // Dropping the download removes its temp file.
                () = cancelled(cancel) => TransferOutcome::Cancelled,
                result = this.download_all(transfer_id, &items, &folder) => match result {
                    Ok(paths) => TransferOutcome::Downloaded { paths },
                    Err(error) => TransferOutcome::Failed(error),
                },
            };
            this.finish(transfer_id, outcome).await;
        });
    }

    async fn download_all(
        &self,
        transfer_id: u64,
        items: &[DownloadItem],
        folder: &Path,
    ) -> Result<Vec<PathBuf>, ApiError> {
        tokio::fs::create_dir_all(folder)
            .await
            .map_err(|e| ApiError::Io(format!("cannot create {}: {e}", folder.display())))?;
        let mut taken = HashSet::new();
        let mut paths = Vec::with_capacity(items.len());
        let mut done_bytes = 0;
        let mut reported_bytes = 0;
        for item in items {
            let name = unique_name(folder, &file_name_for(item), &mut taken);
            let dest = folder.join(&name);
            let counter = Arc::new(TransferCounter::default());
            let download =
                self.ctx
                    .client
                    .download_output_tracked(&item.url, &dest, Some(counter.clone()));
            self.with_progress(
                transfer_id,
                &counter,
                done_bytes,
                &mut reported_bytes,
                download,
            )
            .await?;
            done_bytes += counter.bytes_done.load(Ordering::Relaxed);
            paths.push(dest);
        }
        if done_bytes > reported_bytes {
            self.ctx
                .emit(Event::TransferProgress {
                    transfer_id,
                    bytes_done: done_bytes,
                    bytes_total: done_bytes,
                })
                .await;
        }
        Ok(paths)
    }
}

/// Resolves once the switch is flipped; never, if it is dropped unflipped.
async fn cancelled(mut switch: watch::Receiver<bool>) {
    if switch.wait_for(|on| *on).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// The upload succeeded but the folder step did not: say so, keeping status and code.
fn not_filed(error: ApiError) -> ApiError {
    let prefix = "The file was uploaded to the library but could not be added to the folder";
    match error {
        status @ ApiError::Status { .. } => status.with_message_prefix(prefix),
        other => ApiError::Invalid(format!("{prefix}: {other}")),
    }
}

/// URLs equal, or equal without their query strings (signed URLs may differ there).
fn same_url(a: &str, b: &str) -> bool {
    let strip = |u: &str| u.split(['?', '#']).next().unwrap_or(u).to_owned();
    !a.is_empty() && (a == b || strip(a) == strip(b))
}

/// A safe file name for the item: the requested one without any path, else from the URL.
pub(crate) fn file_name_for(item: &DownloadItem) -> String {
    let requested = item
        .file_name
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or_default();
    let mut name: String = requested
        .chars()
        .map(|c| {
            if c.is_control() || matches!(c, ':' | '*' | '?' | '"' | '<' | '>' | '|') {
                '_'
            } else {
                c
            }
        })
        .collect();
    name = name.trim().trim_matches('.').to_owned();
    if name.is_empty() {
        name = "download".to_owned();
    }
    if !name.contains('.')
        && let Some(ext) = super::transfers::extension_from_url(&item.url)
    {
        name = format!("{name}.{ext}");
    }
    name
}

/// `name`, else `stem (2).ext`, `stem (3).ext`, … — not on disk and not taken by this batch.
fn unique_name(folder: &Path, name: &str, taken: &mut HashSet<String>) -> String {
    let (stem, ext) = match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => (stem.to_owned(), format!(".{ext}")),
        _ => (name.to_owned(), String::new()),
    };
    let mut candidate = name.to_owned();
    let mut n = 2;
    while taken.contains(&candidate) || folder.join(&candidate).exists() {
        candidate = format!("{stem} ({n}){ext}");
        n += 1;
    }
    taken.insert(candidate.clone());
    candidate
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_safe_and_unique() {
        let dir = tempfile::tempdir().expect("dir");
        std::fs::write(dir.path().join("a.png"), b"x").expect("write");
        let mut taken = HashSet::new();
        assert_eq!(unique_name(dir.path(), "a.png", &mut taken), "a (2).png");
        assert_eq!(unique_name(dir.path(), "a.png", &mut taken), "a (3).png");
        assert_eq!(unique_name(dir.path(), "b", &mut taken), "b");
        assert_eq!(unique_name(dir.path(), "b", &mut taken), "b (2)");
        let item = DownloadItem {
            url: "http://h/files/x.webp".into(),
            file_name: "../../etc/pass:wd".into(),
        };
        assert_eq!(file_name_for(&item), "pass_wd.webp");
        let item = DownloadItem {
            url: "http://h/files/x".into(),
            file_name: "..".into(),
        };
        assert_eq!(file_name_for(&item), "download");
    }

    #[test]
    fn urls_match_without_query() {
        assert!(same_url("http://a/f.png?sig=1", "http://a/f.png?sig=2"));
        assert!(!same_url("", ""));
        assert!(!same_url("http://a/f.png", "http://a/g.png"));
    }
}
