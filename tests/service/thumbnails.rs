//! The thumbnail pipeline against a tiny loopback image server: fetch + decode +
//! downscale, a cache hit with the server gone (cached as JPEG), stale requests dropped
//! (one dropped during its fetch is never decoded), visible first,
//! a decompression bomb refused, named workers, and no API key on the wire.

use axum::Router;
use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use framewright::media::thumbnails::cache_file_stem;
use framewright::media::{ThumbnailConfig, ThumbnailPipeline, ThumbnailPriority, ThumbnailResult};
use std::collections::HashSet;
use std::io::Cursor;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

#[derive(Default)]
struct Hits {
    total: AtomicUsize,
    with_key: AtomicUsize,
    slow_started: AtomicUsize,
}

/// An image server on its own thread; dropping it stops the server.
struct Server {
    origin: String,
    hits: Arc<Hits>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn png(width: u32, height: u32) -> Vec<u8> {
    let image = image::RgbaImage::from_fn(width, height, |x, y| {
        image::Rgba([(x % 256) as u8, (y % 256) as u8, 90, 255])
    });
    let mut out = Vec::new();
    image::DynamicImage::ImageRgba8(image)
        .write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png)
        .expect("encode png");
    out
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for byte in bytes {
        crc ^= u32::from(*byte);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A valid PNG header claiming 100000 x 100000 RGBA pixels (40 GB decoded).
fn bomb_png() -> Vec<u8> {
    let mut out = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
    let mut chunk = |kind: &[u8; 4], data: &[u8]| {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let mut body = kind.to_vec();
        body.extend_from_slice(data);
        out.extend_from_slice(&body);
        out.extend_from_slice(&crc32(&body).to_be_bytes());
    };
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&100_000u32.to_be_bytes());
    ihdr.extend_from_slice(&100_000u32.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    chunk(b"IHDR", &ihdr);
    chunk(b"IDAT", &[0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]);
    chunk(b"IEND", &[]);
    out
}

async fn image_route(
    State(hits): State<Arc<Hits>>,
    headers: HeaderMap,
    UrlPath(name): UrlPath<String>,
) -> impl IntoResponse {
    hits.total.fetch_add(1, Ordering::SeqCst);
    if headers.contains_key("x-api-key") || headers.contains_key(header::AUTHORIZATION) {
        hits.with_key.fetch_add(1, Ordering::SeqCst);
    }
    let body = if name.starts_with("slow") {
        hits.slow_started.fetch_add(1, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(1500)).await;
        png(300, 300)
    } else if name.starts_with("bomb") {
        bomb_png()
    } else if name.starts_with("missing") {
        return (StatusCode::NOT_FOUND, "no").into_response();
    } else {
        png(400, 200)
    };
    ([(header::CONTENT_TYPE, "image/png")], body).into_response()
}

fn serve() -> Server {
    let hits = Arc::new(Hits::default());
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let state = hits.clone();
    let thread = std::thread::Builder::new()
        .name("test-image-server".into())
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("bind");
                let port = listener.local_addr().expect("addr").port();
                ready_tx.send(port).expect("ready");
                let app = Router::new()
                    .route("/img/{name}", get(image_route))
                    .with_state(state);
                axum::serve(listener, app)
                    .with_graceful_shutdown(async {
                        let _ = stop_rx.await;
                    })
                    .await
                    .expect("serve");
            });
            runtime.shutdown_timeout(Duration::from_millis(200));
        })
        .expect("server thread");
    let port = ready_rx.recv().expect("port");
    Server {
        origin: format!("http://127.0.0.1:{port}"),
        hits,
        stop: Some(stop_tx),
        thread: Some(thread),
    }
}

fn pipeline(cache_dir: Option<&Path>, workers: usize) -> ThumbnailPipeline {
    let mut config = ThumbnailConfig::new(cache_dir.map(Path::to_path_buf), Arc::new(|| {}));
    config.workers = workers;
    ThumbnailPipeline::new(config).expect("pipeline")
}

fn next(pipeline: &ThumbnailPipeline) -> ThumbnailResult {
    pipeline
        .recv_timeout(Duration::from_secs(20))
        .expect("a thumbnail result")
}

fn wait_until(what: &str, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !ok() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn fetches_decodes_downscales_and_then_serves_from_cache_offline() {
    let cache = tempfile::tempdir().expect("cache dir");
    let server = serve();
    let url = format!("{}/img/a.png", server.origin);
    let first = pipeline(Some(cache.path()), 2);
    assert!(first.request("item-a", &url, 64, ThumbnailPriority::Visible));
    // Asking again while it is queued or being made is deduplicated.
    assert!(first.request("item-a", &url, 64, ThumbnailPriority::Visible));
    let result = next(&first);
    assert_eq!((result.item_id.as_str(), result.size_px), ("item-a", 64));
    assert!(!result.from_cache);
    let image = result.result.expect("decoded");
    assert_eq!((image.width, image.height), (64, 32));
    assert_eq!((image.source_width, image.source_height), (400, 200));
    assert_eq!(image.rgba.len(), 64 * 32 * 4);
    assert!(first.recv_timeout(Duration::from_millis(500)).is_none());
    assert_eq!(server.hits.total.load(Ordering::SeqCst), 1);
    assert_eq!(server.hits.with_key.load(Ordering::SeqCst), 0);
    // Cached as a JPEG (the source is opaque), not a PNG.
    let cached_file = cache
        .path()
        .join(format!("{}.jpg", cache_file_stem("item-a", 64)));
    let bytes = std::fs::read(&cached_file).expect("the cache file");
    assert_eq!(&bytes[..3], &[0xFF, 0xD8, 0xFF], "JPEG magic bytes");
    first.shutdown();

    drop(server); // no network from here on
    let second = pipeline(Some(cache.path()), 2);
    second.request("item-a", &url, 64, ThumbnailPriority::Visible);
    let cached = next(&second);
    assert!(cached.from_cache);
    let image = cached.result.expect("from cache");
    assert_eq!((image.width, image.height), (64, 32));
    // A size not in the cache needs the (gone) network: an error, not a hang.
    second.request("item-a", &url, 128, ThumbnailPriority::Visible);
    let missing = next(&second);
    assert_eq!(missing.size_px, 128);
    assert!(missing.result.is_err());
    second.shutdown();
}

#[test]
fn stale_requests_are_dropped_and_visible_goes_first() {
    let server = serve();
    let pipeline = pipeline(None, 1);
    let url = |name: &str| format!("{}/img/{name}", server.origin);
    // Occupy the only worker.
    pipeline.request("busy", &url("slow-1.png"), 64, ThumbnailPriority::Visible);
    wait_until("the slow fetch", || {
        server.hits.slow_started.load(Ordering::SeqCst) == 1
    });
    pipeline.request("gone-1", &url("b.png"), 64, ThumbnailPriority::Visible);
    pipeline.request("gone-2", &url("c.png"), 64, ThumbnailPriority::Visible);
    pipeline.request("later", &url("d.png"), 64, ThumbnailPriority::Background);
    pipeline.request("now", &url("e.png"), 64, ThumbnailPriority::Visible);
    // The user scrolled: only these tiles are still wanted.
    let visible: HashSet<String> = ["busy", "later", "now"].map(String::from).into();
    pipeline.cancel_not_in(&visible);
    assert_eq!(pipeline.queued(), 2);
    let order: Vec<String> = (0..3).map(|_| next(&pipeline).item_id).collect();
    assert_eq!(order, vec!["busy", "now", "later"]);
    assert!(pipeline.recv_timeout(Duration::from_millis(700)).is_none());

    // Dropped while being made: no result either.
    pipeline.request(
        "scrolled",
        &url("slow-2.png"),
        64,
        ThumbnailPriority::Visible,
    );
    wait_until("the second slow fetch", || {
        server.hits.slow_started.load(Ordering::SeqCst) == 2
    });
    pipeline.retain(|id| id != "scrolled");
    assert!(pipeline.recv_timeout(Duration::from_millis(2500)).is_none());
    // b.png and c.png were never fetched.
    assert_eq!(server.hits.total.load(Ordering::SeqCst), 4);
    pipeline.shutdown();
}

#[test]
fn decompression_bombs_and_broken_sources_are_refused() {
    let server = serve();
    let pipeline = pipeline(None, 2);
    pipeline.request(
        "bomb",
        &format!("{}/img/bomb.png", server.origin),
        256,
        ThumbnailPriority::Visible,
    );
    let result = next(&pipeline);
    assert_eq!(result.item_id, "bomb");
    let error = result.result.expect_err("a bomb must not decode");
    assert!(!error.is_empty());
    pipeline.request(
        "missing",
        &format!("{}/img/missing.png", server.origin),
        256,
        ThumbnailPriority::Visible,
    );
    let error = next(&pipeline).result.expect_err("404");
    assert!(error.contains("404"), "{error}");
    pipeline.shutdown();
}

#[test]
fn workers_are_a_fixed_pool_of_named_threads() {
    let pipeline = pipeline(None, 2);
    assert_eq!(
        pipeline.worker_names(),
        vec!["thumb-worker-0".to_owned(), "thumb-worker-1".to_owned()]
    );
    // A thread names itself as it starts: give the kernel's view a moment.
    let thread_names = || -> HashSet<String> {
        std::fs::read_dir("/proc/self/task")
            .expect("tasks")
            .filter_map(Result::ok)
            .filter_map(|t| std::fs::read_to_string(t.path().join("comm")).ok())
            .map(|n| n.trim().to_owned())
            .collect()
    };
    wait_until("named worker threads", || {
        let names = thread_names();
        names.contains("thumb-worker-0") && names.contains("thumb-worker-1")
    });
    pipeline.shutdown();
}

#[test]
fn a_panic_while_decoding_fails_that_tile_and_the_worker_keeps_going() {
    // A decoder bug on a hostile file, stood in for by a decoder that panics for one size.
    const PANICKING_SIZE_PX: u32 = 13;
    let server = serve();
    let mut config = ThumbnailConfig::new(None, Arc::new(|| {}));
    config.workers = 1;
    config.decoder = Arc::new(|bytes, size_px| {
        assert_ne!(size_px, PANICKING_SIZE_PX, "injected decoder panic");
        framewright::media::decode_image(bytes, size_px).map_err(|e| e.to_string())
    });
    let pipeline = ThumbnailPipeline::new(config).expect("pipeline");
    let url = format!("{}/img/photo.png", server.origin);
    for round in 0..2 {
        pipeline.request(
            "broken",
            &url,
            PANICKING_SIZE_PX,
            ThumbnailPriority::Visible,
        );
        let failed = next(&pipeline);
        assert_eq!(
            (failed.item_id.as_str(), failed.size_px),
            ("broken", PANICKING_SIZE_PX)
        );
        assert_eq!(
            failed.result.expect_err("the panicking tile fails"),
            framewright::media::thumbnails::INTERNAL_ERROR_MESSAGE,
            "round {round}"
        );
        // The same (only) worker makes the next thumbnail.
        let size_px = 64 + round;
        pipeline.request("fine", &url, size_px, ThumbnailPriority::Visible);
        let made = next(&pipeline);
        assert_eq!(made.item_id, "fine");
        let image = made.result.expect("the next tile is made");
        assert_eq!(image.width, size_px);
    }
    pipeline.shutdown();
}

#[test]
fn a_tile_dropped_during_its_fetch_is_never_decoded() {
    let server = serve();
    let decoded = Arc::new(AtomicUsize::new(0));
    let mut config = ThumbnailConfig::new(None, Arc::new(|| {}));
    config.workers = 1;
    let counter = decoded.clone();
    config.decoder = Arc::new(move |bytes, size_px| {
        counter.fetch_add(1, Ordering::SeqCst);
        framewright::media::decode_image(bytes, size_px).map_err(|e| e.to_string())
    });
    let pipeline = ThumbnailPipeline::new(config).expect("pipeline");
    let url = |name: &str| format!("{}/img/{name}", server.origin);
    pipeline.request(
        "flung-past",
        &url("slow-1.png"),
        64,
        ThumbnailPriority::Visible,
    );
    wait_until("the slow fetch", || {
        server.hits.slow_started.load(Ordering::SeqCst) == 1
    });
    // The fling went on: the tile left the viewport while its bytes were on the way.
    pipeline.retain(|id| id != "flung-past");
    pipeline.request("landed", &url("e.png"), 64, ThumbnailPriority::Visible);
    let made = next(&pipeline);
    assert_eq!(made.item_id, "landed", "no result for the dropped tile");
    assert!(made.result.is_ok());
    assert_eq!(
        decoded.load(Ordering::SeqCst),
        1,
        "only the tile still on screen was decoded"
    );
    pipeline.shutdown();
}

#[test]
fn many_workers_fetch_at_once_but_only_the_decode_slots_decode_at_once() {
    // Fetching is most of a thumbnail's time, so there are more workers than decoders;
    // decoding (CPU, and a full-size picture's memory) stays within its slots.
    let server = serve();
    let decoding_now = Arc::new(AtomicUsize::new(0));
    let most_at_once = Arc::new(AtomicUsize::new(0));
    let mut config = ThumbnailConfig::new(None, Arc::new(|| {}));
    config.workers = 4;
    config.decode_slots = 1;
    let (now, most) = (decoding_now.clone(), most_at_once.clone());
    config.decoder = Arc::new(move |bytes, size_px| {
        let at_once = now.fetch_add(1, Ordering::SeqCst) + 1;
        most.fetch_max(at_once, Ordering::SeqCst);
        // Long enough for the other workers' fetches to arrive meanwhile.
        std::thread::sleep(Duration::from_millis(30));
        now.fetch_sub(1, Ordering::SeqCst);
        framewright::media::decode_image(bytes, size_px).map_err(|e| e.to_string())
    });
    let pipeline = ThumbnailPipeline::new(config).expect("pipeline");
    let url = format!("{}/img/a.png", server.origin);
    for n in 0..8 {
        pipeline.request(&format!("tile-{n}"), &url, 32, ThumbnailPriority::Visible);
    }
    for _ in 0..8 {
        next(&pipeline).result.expect("decoded");
    }
    assert_eq!(most_at_once.load(Ordering::SeqCst), 1, "one decode slot");
    assert!(
        server.hits.total.load(Ordering::SeqCst) >= 8,
        "every tile was fetched"
    );
    pipeline.shutdown();
}
