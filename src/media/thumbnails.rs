//! The gallery's thumbnail pipeline: a FIXED pool of named worker threads
//! ("thumb-worker-N", more than the cores: most of a thumbnail's time is its fetch, so
//! several fetches are in flight, while at most [`DEFAULT_DECODE_SLOTS`] of them decode at
//! once, which bounds the CPU and the memory of decoding) taking requests from a bounded priority queue (visible tiles first),
//! deduplicated by (item id, size). Each request is answered from the disk cache when
//! possible ([`DiskCache`]: JPEG, or WebP where there is alpha, under a byte budget), else
//! fetched over HTTP WITHOUT any API key (output URLs never get it), decoded with the
//! decompression-bomb limits of [`decode_image`], downscaled on the worker and written to
//! the cache. Results leave through a bounded channel and the repaint hook is called after
//! each one.
//!
//! Order: the most important priority first and, within it, the NEWEST request first: in a
//! fling the tiles that just scrolled in are the ones still on screen when it stops. The UI
//! calls [`ThumbnailPipeline::request`] every frame for the visible tiles and
//! [`ThumbnailPipeline::retain`] / [`ThumbnailPipeline::cancel_not_in`] to drop requests
//! whose tile scrolled away (beyond a margin); a dropped request never produces a result,
//! and one a worker is on is abandoned at the next step (after the cache read, after the
//! fetch) instead of being decoded for nothing.
//!
//! A panic while making one thumbnail (a decoder bug on a hostile file) is caught on the
//! worker, logged once and answered as a failed tile; the worker goes on with the next.

use super::decode::{DecodedImage, decode_image};
use super::thumb_cache::DiskCache;
pub use super::thumb_cache::{PIPELINE_VERSION, cache_file_stem};
use std::collections::{HashMap, HashSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Threads fetching at once. A fetch from the service takes ~25 ms and a decode ~1 ms, so
/// two workers spent a fling waiting on the network (headless fling bench: the last
/// visible tile 406 ms after the wheel with 2, 304 ms with 4, 203 ms with 6).
pub const DEFAULT_WORKERS: usize = 6;
/// Decodes (and cache writes) at once, whatever the number of workers.
pub const DEFAULT_DECODE_SLOTS: usize = 2;
/// Requests waiting at most; beyond this the least important waiting one is dropped.
pub const DEFAULT_QUEUE_LEN: usize = 512;
/// Finished thumbnails waiting for the UI at most (workers wait when it is full).
pub const DEFAULT_RESULT_QUEUE_LEN: usize = 128;
/// Largest source file fetched for a thumbnail.
pub const MAX_SOURCE_BYTES: u64 = 64 * 1024 * 1024;
const CONNECT_TIMEOUT_SECS: u64 = 10;
const FETCH_TIMEOUT_SECS: u64 = 30;

/// Turns fetched bytes into a picture whose longer side is at most the given px.
pub type ThumbnailDecoder = Arc<dyn Fn(&[u8], u32) -> Result<DecodedImage, String> + Send + Sync>;

/// What a tile shows when making its thumbnail panicked.
pub const INTERNAL_ERROR_MESSAGE: &str = "this thumbnail could not be made (internal error)";

/// Which requests go first. Visible tiles beat prefetch of nearby rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ThumbnailPriority {
    Background = 0,
    Nearby = 1,
    Visible = 2,
}

/// One finished request.
#[derive(Clone, Debug)]
pub struct ThumbnailResult {
    pub item_id: String,
    pub size_px: u32,
    pub result: Result<Arc<DecodedImage>, String>,
    /// Served from the disk cache without touching the network.
    pub from_cache: bool,
}

/// How to build a pipeline.
#[derive(Clone)]
pub struct ThumbnailConfig {
    /// Threads fetching at once.
    pub workers: usize,
    /// Of them, decoding at once.
    pub decode_slots: usize,
    pub queue_len: usize,
    pub result_queue_len: usize,
    /// `None`: no disk cache.
    pub cache_dir: Option<PathBuf>,
    /// The disk cache's size limit (least recently used files go first).
    pub cache_budget_bytes: u64,
    /// Called after every result (egui's `request_repaint`).
    pub repaint: Arc<dyn Fn() + Send + Sync>,
    /// [`decode_image`]; tests inject others (e.g. one that panics on a marker input).
    pub decoder: ThumbnailDecoder,
}

impl ThumbnailConfig {
    pub fn new(cache_dir: Option<PathBuf>, repaint: Arc<dyn Fn() + Send + Sync>) -> Self {
        ThumbnailConfig {
            workers: DEFAULT_WORKERS,
            decode_slots: DEFAULT_DECODE_SLOTS,
            queue_len: DEFAULT_QUEUE_LEN,
            result_queue_len: DEFAULT_RESULT_QUEUE_LEN,
            cache_dir,
            cache_budget_bytes: super::thumb_cache::budget_bytes_of_mb(
                super::thumb_cache::DEFAULT_BUDGET_MB,
            ),
            repaint,
            decoder: Arc::new(|bytes, size_px| {
                decode_image(bytes, size_px).map_err(|e| e.to_string())
            }),
        }
    }
}

impl std::fmt::Debug for ThumbnailConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThumbnailConfig")
            .field("workers", &self.workers)
            .field("queue_len", &self.queue_len)
            .field("cache_dir", &self.cache_dir)
            .field("cache_budget_bytes", &self.cache_budget_bytes)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ThumbnailError {
    #[error("cannot start thumbnail worker: {0}")]
    Spawn(#[source] std::io::Error),
    #[error("cannot create the thumbnail cache folder {path}: {source}")]
    Cache {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

type Key = (String, u32);

struct Pending {
    url: String,
    priority: ThumbnailPriority,
    /// Arrival order: the newest is served first within a priority.
    seq: u64,
}

#[derive(Default)]
struct Queue {
    pending: HashMap<Key, Pending>,
    /// Requests a worker is on, with their "dropped meanwhile" flag.
    in_flight: HashMap<Key, Arc<AtomicBool>>,
    next_seq: u64,
    shutdown: bool,
}

/// What [`Queue::request`] did.
#[derive(Debug, PartialEq, Eq)]
enum Requested {
    /// A new waiting request (wake a worker).
    Queued,
    /// Already waiting or being made (its priority may have risen).
    Known,
    /// Full of more important work, or shutting down.
    Refused,
}

impl Queue {
    fn request(
        &mut self,
        key: Key,
        url: &str,
        priority: ThumbnailPriority,
        queue_len: usize,
    ) -> Requested {
        if self.shutdown {
            return Requested::Refused;
        }
        if let Some(dropped) = self.in_flight.get(&key) {
            // Asked for again while being made: the result is wanted after all.
            dropped.store(false, Ordering::Relaxed);
            return Requested::Known;
        }
        let next_seq = self.next_seq;
        if let Some(pending) = self.pending.get_mut(&key) {
            // Asked again at the same priority: keeps its place (a tile that has been on
            // screen for a while is older than one that just scrolled in). Raised: it is
            // as new as the request that raised it.
            if priority > pending.priority {
                pending.priority = priority;
                pending.seq = next_seq;
                self.next_seq += 1;
            }
            url.clone_into(&mut pending.url);
            return Requested::Known;
        }
        if self.pending.len() >= queue_len {
            // Evict the least important, oldest waiting request, but only for something
            // more important.
            let victim = self
                .pending
                .iter()
                .min_by_key(|(_, p)| (p.priority, p.seq))
                .map(|(k, p)| (k.clone(), p.priority));
            match victim {
                Some((victim, victim_priority)) if victim_priority < priority => {
                    self.pending.remove(&victim);
                }
                _ => return Requested::Refused,
            }
        }
        self.push(key, url.to_owned(), priority);
        Requested::Queued
    }

    /// Queue `key` as the newest request of its priority.
    fn push(&mut self, key: Key, url: String, priority: ThumbnailPriority) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.pending.insert(key, Pending { url, priority, seq });
    }

    /// The request a worker takes next (most important priority, the newest within it),
    /// marked as being made.
    fn take_next(&mut self) -> Option<Job> {
        let key = self
            .pending
            .iter()
            .max_by_key(|(_, p)| (p.priority, p.seq))
            .map(|(key, _)| key.clone())?;
        let pending = self.pending.remove(&key)?;
        let dropped = Arc::new(AtomicBool::new(false));
        self.in_flight.insert(key.clone(), dropped.clone());
        Some(Job {
            key,
            url: pending.url,
            dropped,
        })
    }

    /// Drop requests whose item id fails `keep`: waiting ones are removed, ones being made
    /// are flagged (abandoned at their next step, never answered).
    fn retain(&mut self, keep: impl Fn(&str) -> bool) {
        self.pending.retain(|(id, _), _| keep(id));
        for ((id, _), dropped) in &self.in_flight {
            if !keep(id) {
                dropped.store(true, Ordering::Relaxed);
            }
        }
    }
}

struct Shared {
    queue: Mutex<Queue>,
    wake: Condvar,
    queue_len: usize,
    decode_slots: DecodeSlots,
}

/// A counting gate: at most `limit` workers decode at once.
struct DecodeSlots {
    free: Mutex<usize>,
    freed: Condvar,
}

/// Held while decoding; the slot is given back when it is dropped (also on a panic).
struct DecodeSlot<'a>(&'a DecodeSlots);

impl DecodeSlots {
    fn new(limit: usize) -> Self {
        DecodeSlots {
            free: Mutex::new(limit.max(1)),
            freed: Condvar::new(),
        }
    }

    fn take(&self) -> DecodeSlot<'_> {
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        while *free == 0 {
            free = self.freed.wait(free).unwrap_or_else(|p| p.into_inner());
        }
        *free -= 1;
        DecodeSlot(self)
    }
}

impl Drop for DecodeSlot<'_> {
    fn drop(&mut self) {
        let mut free = self.0.free.lock().unwrap_or_else(|p| p.into_inner());
        *free += 1;
        drop(free);
        self.0.freed.notify_one();
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        // The queue holds plain data; a panic elsewhere leaves it usable.
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The pipeline. Dropping it stops the workers (they finish their current item).
pub struct ThumbnailPipeline {
    shared: Arc<Shared>,
    cache: Option<Arc<DiskCache>>,
    results: Option<Receiver<ThumbnailResult>>,
    workers: Vec<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for ThumbnailPipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThumbnailPipeline")
            .field("workers", &self.workers.len())
            .finish_non_exhaustive()
    }
}

impl ThumbnailPipeline {
    pub fn new(config: ThumbnailConfig) -> Result<Self, ThumbnailError> {
        let cache = match &config.cache_dir {
            Some(dir) => Some(Arc::new(
                DiskCache::open(dir.clone(), config.cache_budget_bytes).map_err(|source| {
                    ThumbnailError::Cache {
                        path: dir.clone(),
                        source,
                    }
                })?,
            )),
            None => None,
        };
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue::default()),
            wake: Condvar::new(),
            queue_len: config.queue_len.max(1),
            decode_slots: DecodeSlots::new(config.decode_slots),
        });
        let (tx, rx) = sync_channel(config.result_queue_len.max(1));
        let mut pipeline = ThumbnailPipeline {
            shared: shared.clone(),
            cache: cache.clone(),
            results: Some(rx),
            workers: Vec::new(),
        };
        for n in 0..config.workers.max(1) {
            let worker = Worker {
                shared: shared.clone(),
                results: tx.clone(),
                cache: cache.clone(),
                repaint: config.repaint.clone(),
                decoder: config.decoder.clone(),
            };
            let handle = std::thread::Builder::new()
                .name(format!("thumb-worker-{n}"))
                .spawn(move || worker.run())
                .map_err(ThumbnailError::Spawn)?;
            pipeline.workers.push(handle);
        }
        // One look at the folder (index, old formats, budget) off the UI thread.
        pipeline.tidy_cache("thumb-cache-scan", DiskCache::scan);
        Ok(pipeline)
    }

    /// A new disk-cache budget; files over it are evicted at once, off the UI thread.
    pub fn set_cache_budget_bytes(&self, budget_bytes: u64) {
        let Some(cache) = &self.cache else { return };
        if cache.budget_bytes() == budget_bytes {
            return;
        }
        cache.set_budget_bytes(budget_bytes);
        self.tidy_cache("thumb-cache-evict", DiskCache::evict);
    }

    /// The cache folder was emptied behind the pipeline's back (Settings' "Clear cache…"):
    /// read it again, off the UI thread, so the budget counts only the files still there.
    pub fn rescan_cache(&self) {
        self.tidy_cache("thumb-cache-scan", DiskCache::scan);
    }

    /// Bytes in the disk cache as far as its index knows (tests, tools).
    pub fn cache_bytes(&self) -> u64 {
        self.cache.as_ref().map_or(0, |cache| cache.total_bytes())
    }

    /// Runs `work` on the disk cache on a short-lived named thread.
    fn tidy_cache(&self, name: &str, work: fn(&DiskCache)) {
        let Some(cache) = self.cache.clone() else {
            return;
        };
        if let Err(e) = std::thread::Builder::new()
            .name(name.to_owned())
            .spawn(move || work(&cache))
        {
            tracing::warn!("thumbnail cache not tidied: {e}");
        }
    }

    /// Ask for `item_id` at `size_px` (longest side). Repeating a request is cheap and
    /// only raises its priority. Returns false when the queue is full of more important
    /// work (ask again next frame).
    pub fn request(
        &self,
        item_id: &str,
        url: &str,
        size_px: u32,
        priority: ThumbnailPriority,
    ) -> bool {
        let key = (item_id.to_owned(), size_px);
        let mut queue = self.shared.lock();
        match queue.request(key, url, priority, self.shared.queue_len) {
            Requested::Queued => {
                drop(queue);
                self.shared.wake.notify_one();
                true
            }
            Requested::Known => true,
            Requested::Refused => false,
        }
    }

    /// Keep only requests whose item id passes `keep`; the others are dropped (waiting
    /// ones are removed, ones being made produce no result).
    pub fn retain(&self, keep: impl Fn(&str) -> bool) {
        self.shared.lock().retain(keep);
    }

    /// Drop every request whose item id is not in `visible`.
    pub fn cancel_not_in(&self, visible: &HashSet<String>) {
        self.retain(|id| visible.contains(id));
    }

    /// Requests waiting for a worker (not counting those being made).
    pub fn queued(&self) -> usize {
        self.shared.lock().pending.len()
    }

    /// The next finished thumbnail, if any. Never blocks.
    pub fn try_recv(&self) -> Option<ThumbnailResult> {
        self.results.as_ref()?.try_recv().ok()
    }

    /// Wait up to `timeout` for a result (tests and tools; the UI uses `try_recv`).
    pub fn recv_timeout(&self, timeout: Duration) -> Option<ThumbnailResult> {
        self.results.as_ref()?.recv_timeout(timeout).ok()
    }

    /// Names of the worker threads ("thumb-worker-0", …).
    pub fn worker_names(&self) -> Vec<String> {
        self.workers
            .iter()
            .filter_map(|w| w.thread().name().map(str::to_owned))
            .collect()
    }

    /// Stop and wait for the workers (each finishes at most its current item).
    pub fn shutdown(mut self) {
        self.stop();
        for worker in self.workers.drain(..) {
            if worker.join().is_err() {
                tracing::error!("a thumbnail worker panicked");
            }
        }
    }

    fn stop(&mut self) {
        {
            let mut queue = self.shared.lock();
            queue.shutdown = true;
            queue.pending.clear();
            for dropped in queue.in_flight.values() {
                dropped.store(true, Ordering::Relaxed);
            }
        }
        self.shared.wake.notify_all();
        // Unblocks a worker waiting on a full result channel.
        self.results = None;
    }
}

impl Drop for ThumbnailPipeline {
    fn drop(&mut self) {
        // Not joined here: a worker may be inside a network fetch; it exits right after.
        self.stop();
    }
}

struct Worker {
    shared: Arc<Shared>,
    results: SyncSender<ThumbnailResult>,
    cache: Option<Arc<DiskCache>>,
    repaint: Arc<dyn Fn() + Send + Sync>,
    decoder: ThumbnailDecoder,
}

struct Job {
    key: Key,
    url: String,
    dropped: Arc<AtomicBool>,
}

/// What became of a job.
enum Made {
    /// `from_cache`: answered by the disk cache without touching the network.
    Done {
        result: Result<Arc<DecodedImage>, String>,
        from_cache: bool,
    },
    /// Dropped while being made: stopped at the next step, nothing to send.
    Abandoned,
}

impl Made {
    fn failed(error: String) -> Made {
        Made::Done {
            result: Err(error),
            from_cache: false,
        }
    }
}

impl Worker {
    fn run(self) {
        // One small current-thread runtime and HTTP client per worker: a pooled
        // connection must not belong to another worker's runtime.
        let fetcher = Fetcher::new();
        while let Some(job) = self.next_job() {
            let (item_id, size_px) = job.key.clone();
            // The job is the unit of failure: a panic fails this tile, not the worker.
            let made = catch_unwind(AssertUnwindSafe(|| self.make(&fetcher, &job))).unwrap_or_else(
                |payload| {
                    tracing::error!(
                        item_id = %item_id,
                        size_px,
                        "making a thumbnail panicked: {}",
                        panic_message(payload.as_ref())
                    );
                    Made::failed(INTERNAL_ERROR_MESSAGE.to_owned())
                },
            );
            let dropped = {
                let mut queue = self.shared.lock();
                queue.in_flight.remove(&job.key);
                let dropped = job.dropped.load(Ordering::Relaxed);
                if !dropped && matches!(made, Made::Abandoned) && !queue.shutdown {
                    // Dropped, then asked for again before the worker noticed: queue it
                    // anew (as the newest visible request) rather than lose it.
                    queue.push(job.key.clone(), job.url.clone(), ThumbnailPriority::Visible);
                }
                dropped
            };
            let Made::Done { result, from_cache } = made else {
                continue;
            };
            if dropped {
                continue;
            }
            let message = ThumbnailResult {
                item_id,
                size_px,
                result,
                from_cache,
            };
            // Waits while the UI has not drained; fails once the pipeline is gone.
            let sent = match self.results.try_send(message) {
                Ok(()) => true,
                Err(TrySendError::Full(message)) => self.results.send(message).is_ok(),
                Err(TrySendError::Disconnected(_)) => false,
            };
            if !sent {
                break;
            }
            (self.repaint)();
        }
    }

    /// Block until there is work (most important, then newest, first) or the pipeline
    /// stops.
    fn next_job(&self) -> Option<Job> {
        let mut queue = self.shared.lock();
        loop {
            if queue.shutdown {
                return None;
            }
            if let Some(job) = queue.take_next() {
                return Some(job);
            }
            queue = self
                .shared
                .wake
                .wait(queue)
                .unwrap_or_else(|p| p.into_inner());
        }
    }

    fn make(&self, fetcher: &Result<Fetcher, String>, job: &Job) -> Made {
        let (item_id, size_px) = (&job.key.0, job.key.1);
        let dropped = || job.dropped.load(Ordering::Relaxed);
        if let Some(cache) = &self.cache
            && let Some(image) = cache.read(item_id, size_px)
        {
            return Made::Done {
                result: Ok(Arc::new(image)),
                from_cache: true,
            };
        }
        if dropped() {
            return Made::Abandoned;
        }
        let started = Instant::now();
        let bytes = match fetcher
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|fetcher| fetcher.fetch(&job.url))
        {
            Ok(bytes) => bytes,
            Err(error) => return Made::failed(error),
        };
        let fetched = Instant::now();
        // The tile may have scrolled away during the fetch, or while waiting for a decode
        // slot: decoding is the costly part.
        if dropped() {
            return Made::Abandoned;
        }
        let _slot = self.shared.decode_slots.take();
        if dropped() {
            return Made::Abandoned;
        }
        let decoded = if super::waveform::looks_like_audio(&job.url, &bytes) {
            super::waveform::waveform_thumbnail(&bytes, &job.url, size_px)
        } else {
            (self.decoder)(&bytes, size_px)
        };
        let image = match decoded {
            Ok(image) => image,
            Err(error) => return Made::failed(error),
        };
        let decoded_at = Instant::now();
        if let Some(cache) = &self.cache
            && let Err(e) = cache.write(item_id, size_px, &image)
        {
            tracing::debug!("thumbnail cache write failed: {e}");
        }
        let ms = |from: Instant, to: Instant| to.duration_since(from).as_secs_f64() * 1000.0;
        tracing::trace!(
            item_id = %item_id,
            size_px,
            source_bytes = bytes.len(),
            fetch_ms = ms(started, fetched),
            decode_ms = ms(fetched, decoded_at),
            cache_write_ms = ms(decoded_at, Instant::now()),
            "thumbnail made"
        );
        Made::Done {
            result: Ok(Arc::new(image)),
            from_cache: false,
        }
    }
}

/// The text of a panic payload (`panic!` gives a `&str` or a `String`).
fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)")
}

/// A blocking HTTP GET without any API key, with a size cap.
struct Fetcher {
    runtime: tokio::runtime::Runtime,
    client: reqwest::Client,
}

impl Fetcher {
    fn new() -> Result<Self, String> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("thumbnail runtime: {e}"))?;
        let client = reqwest::Client::builder()
            .user_agent(concat!("framewright/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(CONNECT_TIMEOUT_SECS))
            .timeout(Duration::from_secs(FETCH_TIMEOUT_SECS))
            .build()
            .map_err(|e| format!("thumbnail HTTP client: {e}"))?;
        Ok(Fetcher { runtime, client })
    }

    fn fetch(&self, url: &str) -> Result<Vec<u8>, String> {
        self.runtime.block_on(async {
            let mut response = self
                .client
                .get(url)
                .send()
                .await
                .map_err(|e| format!("fetch failed: {}", e.without_url()))?;
            if !response.status().is_success() {
                return Err(format!("fetch failed: HTTP {}", response.status().as_u16()));
            }
            if response
                .content_length()
                .is_some_and(|n| n > MAX_SOURCE_BYTES)
            {
                return Err("the image is too large for a thumbnail".into());
            }
            let mut bytes = Vec::new();
            while let Some(chunk) = response
                .chunk()
                .await
                .map_err(|e| format!("fetch failed: {}", e.without_url()))?
            {
                if bytes.len() as u64 + chunk.len() as u64 > MAX_SOURCE_BYTES {
                    return Err("the image is too large for a thumbnail".into());
                }
                bytes.extend_from_slice(&chunk);
            }
            Ok(bytes)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LEN: usize = 8;

    fn key(id: &str) -> Key {
        (id.to_owned(), 256)
    }

    fn ask(queue: &mut Queue, id: &str, priority: ThumbnailPriority) -> Requested {
        queue.request(key(id), &format!("http://x/{id}.jpg"), priority, LEN)
    }

    fn order(queue: &mut Queue) -> Vec<String> {
        std::iter::from_fn(|| queue.take_next().map(|job| job.key.0)).collect()
    }

    use ThumbnailPriority::{Nearby, Visible};

    #[test]
    fn visible_tiles_go_first_and_the_newest_request_first() {
        let mut queue = Queue::default();
        // A fling: row a scrolled in, then b, then c; nearby prefetch in between.
        ask(&mut queue, "a", Visible);
        ask(&mut queue, "n", Nearby);
        ask(&mut queue, "b", Visible);
        ask(&mut queue, "c", Visible);
        // Asking again every frame does not move a tile ahead of ones that came in later.
        assert_eq!(ask(&mut queue, "a", Visible), Requested::Known);
        assert_eq!(order(&mut queue), ["c", "b", "a", "n"]);
    }

    #[test]
    fn a_prefetched_tile_that_scrolls_into_view_counts_as_a_new_visible_request() {
        let mut queue = Queue::default();
        ask(&mut queue, "p", Nearby);
        ask(&mut queue, "v", Visible);
        ask(&mut queue, "p", Visible);
        assert_eq!(order(&mut queue), ["p", "v"]);
    }

    #[test]
    fn what_left_the_viewport_and_its_margin_is_dropped_waiting_or_being_made() {
        let mut queue = Queue::default();
        for id in ["gone-1", "gone-2", "kept"] {
            ask(&mut queue, id, Visible);
        }
        let in_flight = queue.take_next().expect("a job");
        assert_eq!(in_flight.key.0, "kept");
        ask(&mut queue, "gone-3", Visible);
        let busy = queue.take_next().expect("a job");
        assert_eq!(busy.key.0, "gone-3");

        queue.retain(|id| id == "kept");
        assert!(
            queue.pending.is_empty(),
            "waiting ones scrolled away are removed"
        );
        assert!(
            busy.dropped.load(Ordering::Relaxed),
            "the worker abandons it"
        );
        assert!(!in_flight.dropped.load(Ordering::Relaxed));
        // Scrolled back before the worker noticed: wanted after all.
        assert_eq!(ask(&mut queue, "gone-3", Visible), Requested::Known);
        assert!(!busy.dropped.load(Ordering::Relaxed));
    }

    #[test]
    fn a_full_queue_makes_room_for_more_important_work_only() {
        let mut queue = Queue::default();
        for n in 0..LEN {
            ask(&mut queue, &format!("near-{n}"), Nearby);
        }
        assert_eq!(ask(&mut queue, "more-near", Nearby), Requested::Refused);
        assert_eq!(ask(&mut queue, "seen", Visible), Requested::Queued);
        assert_eq!(queue.pending.len(), LEN);
        assert!(
            !queue.pending.contains_key(&key("near-0")),
            "the oldest went"
        );
        assert_eq!(order(&mut queue).first().map(String::as_str), Some("seen"));
    }

    #[test]
    fn nothing_is_queued_after_shutdown() {
        let mut queue = Queue {
            shutdown: true,
            ..Queue::default()
        };
        assert_eq!(ask(&mut queue, "a", Visible), Requested::Refused);
        assert!(queue.take_next().is_none());
    }
}
