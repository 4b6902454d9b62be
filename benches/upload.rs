//! Upload: 500 MiB to the embedded sandbox on loopback, the studio's client against curl.
//!
//! The studio path is `ApiClient::upload_file_tracked` (what the engine's library transfers
//! call), with a `TransferCounter` polled every 100 ms like the engine's progress events,
//! on a two-worker tokio runtime like the engine's. The reference is
//! `curl -F file=@PATH` to the same route of the same sandbox. Runs alternate
//! (studio, curl, studio, curl, …) so page cache and disk state favour neither.
//!
//! Peak RSS: the sandbox runs inside this process, so its buffers count too. Before each
//! upload the peak (VmHWM) is reset to the current RSS through `/proc/self/clear_refs`;
//! the growth during a curl upload is the sandbox's share alone (curl is another process),
//! the growth during a studio upload is client + sandbox.
//!
//! `cargo bench --bench upload`

mod support;
use framewright::api::{ApiClient, ClientConfig, TransferCounter};
use framewright::sandbox::{SandboxConfig, start};
use std::io::Write as _;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use support::status_kib;

/// The sandbox's cap (500 MiB) exactly.
const FILE_BYTES: u64 = 500 * 1024 * 1024;
const WRITE_CHUNK_BYTES: usize = 4 * 1024 * 1024;
/// Rounds of (studio, curl); the route allows 10 uploads a minute.
const ROUNDS: usize = 3;
const PROGRESS_POLL: Duration = Duration::from_millis(100);
const MIB: f64 = 1024.0 * 1024.0;

type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

/// Pseudo-random bytes (xorshift), written chunk by chunk: incompressible, never whole in
/// memory.
fn make_file(path: &Path) -> BenchResult<()> {
    let mut file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut chunk = vec![0u8; WRITE_CHUNK_BYTES];
    let mut written: u64 = 0;
    while written < FILE_BYTES {
        for word in chunk.chunks_exact_mut(8) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            word.copy_from_slice(&state.to_le_bytes());
        }
        let n = usize::try_from((FILE_BYTES - written).min(chunk.len() as u64))?;
        file.write_all(&chunk[..n])?;
        written += n as u64;
    }
    file.flush()?;
    Ok(())
}

/// Reset VmHWM to the current RSS ("5" = reset peak RSS); false where not allowed.
fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

struct Run {
    elapsed: Duration,
    /// VmHWM − VmRSS at the start, KiB.
    rss_growth_kib: u64,
    peak_kib: u64,
}

fn measured(f: impl FnOnce() -> BenchResult<()>) -> BenchResult<Run> {
    reset_peak_rss();
    let start_rss = status_kib("VmRSS:");
    let started = Instant::now();
    f()?;
    let elapsed = started.elapsed();
    let peak_kib = status_kib("VmHWM:");
    Ok(Run {
        elapsed,
        rss_growth_kib: peak_kib.saturating_sub(start_rss),
        peak_kib,
    })
}

fn studio_upload(
    runtime: &tokio::runtime::Runtime,
    client: &ApiClient,
    path: &Path,
) -> BenchResult<()> {
    runtime.block_on(async {
        let counter = Arc::new(TransferCounter::default());
        let upload = client.upload_file_tracked(path, None, Some(counter.clone()));
        tokio::pin!(upload);
        // Poll progress like the engine does while the upload streams.
        let mut ticks = tokio::time::interval(PROGRESS_POLL);
        let media = loop {
            tokio::select! {
                result = &mut upload => break result?,
                _ = ticks.tick() => {
                    std::hint::black_box(counter.bytes_done.load(Ordering::Relaxed));
                }
            }
        };
        let done = counter.bytes_done.load(Ordering::Relaxed);
        if done != FILE_BYTES {
            return Err(format!("counter says {done} bytes, expected {FILE_BYTES}").into());
        }
        std::hint::black_box(media);
        Ok(())
    })
}

fn curl_upload(base_url: &str, api_key: &str, path: &Path) -> BenchResult<()> {
    let output = Command::new("curl")
        .args(["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H"])
        .arg(format!("X-API-Key: {api_key}"))
        .arg("-F")
        .arg(format!("file=@{}", path.display()))
        .arg(format!("{base_url}/v1/media/upload"))
        .output()?;
    let code = String::from_utf8_lossy(&output.stdout);
    if code.trim() != "201" {
        return Err(format!("curl upload answered HTTP {code}").into());
    }
    Ok(())
}

/// Each stored upload is 500 MiB: remove them between runs to keep the disk use flat.
fn clear_stored_uploads(data_dir: &Path) {
    if let Ok(entries) = std::fs::read_dir(data_dir.join("files").join("uploads")) {
        for entry in entries.flatten() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn mib_per_sec(run: &Run) -> f64 {
    FILE_BYTES as f64 / MIB / run.elapsed.as_secs_f64()
}

fn main() -> BenchResult<()> {
    // `cargo bench` passes `--bench`; nothing else is parsed.
    let dir = tempfile::tempdir()?;
    let file_path = dir.path().join("upload-500MiB.bin");
    make_file(&file_path)?;
    let data_dir = dir.path().join("sandbox");
    let sandbox = start(SandboxConfig::new(data_dir.clone()))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let client = ApiClient::new(ClientConfig {
        base_url: sandbox.base_url().to_owned(),
        api_key: sandbox.api_key().to_owned(),
        request_timeout_secs: 30,
    })?;
    let peak_resettable = reset_peak_rss();
    println!(
        "upload: {} MiB pseudo-random file to {}/v1/media/upload, {ROUNDS} rounds of (studio, curl)",
        FILE_BYTES / (1024 * 1024),
        sandbox.base_url()
    );
    println!(
        "process RSS before: {} MiB (peak reset per run: {peak_resettable})",
        status_kib("VmRSS:") / 1024
    );

    let (mut studio_runs, mut curl_runs) = (Vec::new(), Vec::new());
    for round in 1..=ROUNDS {
        let studio = measured(|| studio_upload(&runtime, &client, &file_path))?;
        clear_stored_uploads(&data_dir);
        let curl = measured(|| curl_upload(sandbox.base_url(), sandbox.api_key(), &file_path))?;
        clear_stored_uploads(&data_dir);
        println!(
            "round {round}: studio {:6.2} s {:7.1} MiB/s (RSS +{} MiB, peak {} MiB) | \
             curl {:6.2} s {:7.1} MiB/s (this process: RSS +{} MiB = sandbox only)",
            studio.elapsed.as_secs_f64(),
            mib_per_sec(&studio),
            studio.rss_growth_kib / 1024,
            studio.peak_kib / 1024,
            curl.elapsed.as_secs_f64(),
            mib_per_sec(&curl),
            curl.rss_growth_kib / 1024,
        );
        studio_runs.push(studio);
        curl_runs.push(curl);
    }
    let studio_speed = median(studio_runs.iter().map(mib_per_sec).collect());
    let curl_speed = median(curl_runs.iter().map(mib_per_sec).collect());
    let growth = |runs: &[Run]| median(runs.iter().map(|r| r.rss_growth_kib as f64).collect());
    let studio_growth_mib = growth(&studio_runs) / 1024.0;
    let sandbox_growth_mib = growth(&curl_runs) / 1024.0;
    println!("median throughput: studio {studio_speed:.1} MiB/s, curl {curl_speed:.1} MiB/s");
    println!("ratio studio/curl: {:.2}×", studio_speed / curl_speed);
    println!(
        "peak RSS of this process during a studio upload: {} MiB (max), growth median {studio_growth_mib:.1} MiB",
        studio_runs.iter().map(|r| r.peak_kib).max().unwrap_or(0) / 1024
    );
    println!(
        "sandbox's share (growth during curl uploads): {sandbox_growth_mib:.1} MiB; \
         client's share ≈ {:.1} MiB",
        (studio_growth_mib - sandbox_growth_mib).max(0.0)
    );
    sandbox.shutdown();
    Ok(())
}
