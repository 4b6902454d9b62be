//! The gallery's thumbnail pipeline: a FIXED pool of named worker threads
//! ("thumb-worker-N") taking requests from a bounded priority queue (visible tiles first),
//! deduplicated by (item id, size). Each request is answered from the disk cache when
//! possible, else fetched over HTTP WITHOUT any API key (output URLs never get it),
//! decoded with the decompression-bomb limits of [`decode_image`], downscaled on the
//! worker and written to the cache (temp file, then rename). Results leave through a
//! bounded channel and the repaint hook is called after each one.
//!
//! The UI calls [`ThumbnailPipeline::request`] every frame for the visible tiles and
//! [`ThumbnailPipeline::retain`] / [`ThumbnailPipeline::cancel_not_in`] to drop requests
//! whose tile scrolled away; a dropped request never produces a result.
//!
//! A panic while making one thumbnail (a decoder bug on a hostile file) is caught on the
//! worker, logged once and answered as a failed tile; the worker goes on with the next.

use super::decode::{DecodedImage, decode_image};
use std::collections::{HashMap, HashSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// Part of every cache key: bump when decoding or scaling changes so old files are ignored.
pub const PIPELINE_VERSION: u32 = 1;
pub const DEFAULT_WORKERS: usize = 2;
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
    pub workers: usize,
    pub queue_len: usize,
    pub result_queue_len: usize,
    /// `None`: no disk cache.
    pub cache_dir: Option<PathBuf>,
    /// Called after every result (egui's `request_repaint`).
    pub repaint: Arc<dyn Fn() + Send + Sync>,
    /// [`decode_image`]; tests inject others (e.g. one that panics on a marker input).
    pub decoder: ThumbnailDecoder,
}

impl ThumbnailConfig {
    pub fn new(cache_dir: Option<PathBuf>, repaint: Arc<dyn Fn() + Send + Sync>) -> Self {
        ThumbnailConfig {
            workers: DEFAULT_WORKERS,
            queue_len: DEFAULT_QUEUE_LEN,
            result_queue_len: DEFAULT_RESULT_QUEUE_LEN,
            cache_dir,
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
    /// Arrival order: first come first served within a priority.
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

struct Shared {
    queue: Mutex<Queue>,
    wake: Condvar,
    queue_len: usize,
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
        if let Some(dir) = &config.cache_dir {
            std::fs::create_dir_all(dir).map_err(|source| ThumbnailError::Cache {
                path: dir.clone(),
                source,
            })?;
        }
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue::default()),
            wake: Condvar::new(),
            queue_len: config.queue_len.max(1),
        });
        let (tx, rx) = sync_channel(config.result_queue_len.max(1));
        let mut pipeline = ThumbnailPipeline {
            shared: shared.clone(),
            results: Some(rx),
            workers: Vec::new(),
        };
        for n in 0..config.workers.max(1) {
            let worker = Worker {
                shared: shared.clone(),
                results: tx.clone(),
                cache_dir: config.cache_dir.clone(),
                repaint: config.repaint.clone(),
                decoder: config.decoder.clone(),
            };
            let handle = std::thread::Builder::new()
                .name(format!("thumb-worker-{n}"))
                .spawn(move || worker.run())
                .map_err(ThumbnailError::Spawn)?;
            pipeline.workers.push(handle);
        }
        Ok(pipeline)
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
        if queue.shutdown {
            return false;
        }
        if let Some(dropped) = queue.in_flight.get(&key) {
            // Asked for again while being made: the result is wanted after all.
            dropped.store(false, Ordering::Relaxed);
            return true;
        }
        if let Some(pending) = queue.pending.get_mut(&key) {
            pending.priority = pending.priority.max(priority);
            url.clone_into(&mut pending.url);
            return true;
        }
        if queue.pending.len() >= self.shared.queue_len {
            // Evict the least important, most recently queued waiting request, but only
            // for something more important.
            let victim = queue
                .pending
                .iter()
                .min_by_key(|(_, p)| (p.priority, std::cmp::Reverse(p.seq)))
                .map(|(k, p)| (k.clone(), p.priority));
            match victim {
                Some((victim, victim_priority)) if victim_priority < priority => {
                    queue.pending.remove(&victim);
                }
                _ => return false,
            }
        }
        let seq = queue.next_seq;
        queue.next_seq += 1;
        queue.pending.insert(
            key,
            Pending {
                url: url.to_owned(),
                priority,
                seq,
            },
        );
        drop(queue);
        self.shared.wake.notify_one();
        true
    }

    /// Keep only requests whose item id passes `keep`; the others are dropped (waiting
    /// ones are removed, ones being made produce no result).
    pub fn retain(&self, keep: impl Fn(&str) -> bool) {
        let mut queue = self.shared.lock();
        queue.pending.retain(|(id, _), _| keep(id));
        for ((id, _), dropped) in &queue.in_flight {
            if !keep(id) {
                dropped.store(true, Ordering::Relaxed);
            }
        }
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
    cache_dir: Option<PathBuf>,
    repaint: Arc<dyn Fn() + Send + Sync>,
    decoder: ThumbnailDecoder,
}

struct Job {
    key: Key,
    url: String,
    dropped: Arc<AtomicBool>,
}

impl Worker {
    fn run(self) {
        // One small current-thread runtime and HTTP client per worker: a pooled
        // connection must not belong to another worker's runtime.
        let fetcher = Fetcher::new();
        while let Some(job) = self.next_job() {
            let (item_id, size_px) = job.key.clone();
            // The job is the unit of failure: a panic fails this tile, not the worker.
            let (result, from_cache) = catch_unwind(AssertUnwindSafe(|| self.make(&fetcher, &job)))
                .unwrap_or_else(|payload| {
                    tracing::error!(
                        item_id = %item_id,
                        size_px,
                        "making a thumbnail panicked: {}",
                        panic_message(payload.as_ref())
                    );
                    (Err(INTERNAL_ERROR_MESSAGE.to_owned()), false)
                });
            let dropped = {
                let mut queue = self.shared.lock();
                queue.in_flight.remove(&job.key);
                job.dropped.load(Ordering::Relaxed)
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

    /// Block until there is work (best first) or the pipeline stops.
    fn next_job(&self) -> Option<Job> {
        let mut queue = self.shared.lock();
        loop {
            if queue.shutdown {
                return None;
            }
            let best = queue
                .pending
                .iter()
                .max_by_key(|(_, p)| (p.priority, std::cmp::Reverse(p.seq)))
                .map(|(k, _)| k.clone());
            if let Some(key) = best
                && let Some(pending) = queue.pending.remove(&key)
            {
                let dropped = Arc::new(AtomicBool::new(false));
                queue.in_flight.insert(key.clone(), dropped.clone());
                return Some(Job {
                    key,
                    url: pending.url,
                    dropped,
                });
            }
            queue = self
                .shared
                .wake
                .wait(queue)
                .unwrap_or_else(|p| p.into_inner());
        }
    }

    fn make(
        &self,
        fetcher: &Result<Fetcher, String>,
        job: &Job,
    ) -> (Result<Arc<DecodedImage>, String>, bool) {
        let (item_id, size_px) = (&job.key.0, job.key.1);
        let cache_path = self
            .cache_dir
            .as_deref()
            .map(|dir| dir.join(cache_file_name(item_id, size_px)));
        if let Some(path) = &cache_path
            && let Some(image) = read_cached(path, size_px)
        {
            return (Ok(Arc::new(image)), true);
        }
        let result = (|| {
            let fetcher = fetcher.as_ref().map_err(Clone::clone)?;
            let bytes = fetcher.fetch(&job.url)?;
            let image = if super::waveform::looks_like_audio(&job.url, &bytes) {
                super::waveform::waveform_thumbnail(&bytes, &job.url, size_px)?
            } else {
                (self.decoder)(&bytes, size_px)?
            };
            if let Some(path) = &cache_path
                && let Err(e) = write_cached(path, &image)
            {
                tracing::debug!("thumbnail cache write failed: {e}");
            }
            Ok(Arc::new(image))
        })();
        (result, false)
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

/// `<fnv64(item id)>-<size>-v<PIPELINE_VERSION>.png`: stable across builds, safe on disk.
pub fn cache_file_name(item_id: &str, size_px: u32) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in item_id.as_bytes() {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}-{size_px}-v{PIPELINE_VERSION}.png")
}

/// A cached thumbnail, decoded with the same limits as network data. A damaged entry
/// (truncated, garbage, unreadable) is deleted and `None` returned, so the
/// caller fetches it again; logged only, the cache is disposable.
fn read_cached(path: &Path, size_px: u32) -> Option<DecodedImage> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            drop_damaged_entry(path, &format!("unreadable: {e}"));
            return None;
        }
    };
    match decode_image(&bytes, size_px) {
        Ok(image) => Some(image),
        Err(e) => {
            drop_damaged_entry(path, &e.to_string());
            None
        }
    }
}

fn drop_damaged_entry(path: &Path, reason: &str) {
    tracing::info!(
        "thumbnail cache entry {} is damaged ({reason}); deleting it and fetching again",
        path.display()
    );
    let removed = match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path),
        _ => std::fs::remove_file(path),
    };
    if let Err(e) = removed {
        tracing::info!("could not delete {}: {e}", path.display());
    }
}

/// PNG into a temp file beside the target, then rename (readers never see half a file).
fn write_cached(path: &Path, image: &DecodedImage) -> Result<(), String> {
    let Some(buffer) = image::RgbaImage::from_raw(image.width, image.height, image.rgba.clone())
    else {
        return Err("pixel buffer size mismatch".into());
    };
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = path.with_file_name(format!(
        ".{file_name}.{}.tmp",
        uuid::Uuid::new_v4().simple()
    ));
    let written = buffer
        .save_with_format(&temp, image::ImageFormat::Png)
        .map_err(|e| e.to_string())
        .and_then(|()| std::fs::rename(&temp, path).map_err(|e| e.to_string()));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_names_carry_size_and_version() {
        let name = cache_file_name("65f0c0ffee", 256);
        assert!(
            name.ends_with(&format!("-256-v{PIPELINE_VERSION}.png")),
            "{name}"
        );
        assert_ne!(name, cache_file_name("65f0c0ffef", 256));
        assert_eq!(name, cache_file_name("65f0c0ffee", 256));
    }

    fn small_image() -> DecodedImage {
        let (width, height) = (24u32, 16u32);
        let rgba = (0..width * height)
            .flat_map(|i| [(i % 251) as u8, 80, 160, 255])
            .collect();
        DecodedImage {
            width,
            height,
            rgba,
            source_width: width,
            source_height: height,
        }
    }

    fn png_bytes(width: u32, height: u32) -> Vec<u8> {
        let image = image::RgbaImage::from_pixel(width, height, image::Rgba([10, 20, 30, 255]));
        let mut bytes = std::io::Cursor::new(Vec::new());
        image
            .write_to(&mut bytes, image::ImageFormat::Png)
            .expect("encode");
        bytes.into_inner()
    }

    #[test]
    fn a_cached_thumbnail_reads_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(cache_file_name("item", 64));
        let image = small_image();
        write_cached(&path, &image).expect("write");
        let read = read_cached(&path, 64).expect("read back");
        assert_eq!((read.width, read.height), (image.width, image.height));
        assert_eq!(read.rgba, image.rgba);
    }

    #[test]
    fn a_damaged_cache_entry_is_deleted_so_it_is_fetched_again() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(cache_file_name("item", 64));
        write_cached(&path, &small_image()).expect("write");
        let whole = std::fs::read(&path).expect("read");
        let damaged: Vec<Vec<u8>> = vec![
            whole[..whole.len() / 2].to_vec(),
            b"not a picture at all".to_vec(),
            Vec::new(),
            // A PNG whose pixel data was cut: the header still decodes.
            png_bytes(64, 64)[..90].to_vec(),
        ];
        for bytes in damaged {
            std::fs::write(&path, &bytes).expect("damage the entry");
            assert!(read_cached(&path, 64).is_none());
            assert!(!path.exists(), "the damaged entry is gone");
        }
        // A folder where the file should be is cleared away too.
        std::fs::create_dir_all(path.join("x")).expect("mkdir");
        assert!(read_cached(&path, 64).is_none());
        assert!(!path.exists());
        // …and the slot takes a fresh entry.
        write_cached(&path, &small_image()).expect("write again");
        assert!(read_cached(&path, 64).is_some());
    }
}
