//! Starting the sandbox on its own named thread and runtime, and the handle that controls it.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use tokio::sync::watch;

use super::catalog::Catalog;
use super::clock::Clock;
use super::config::SandboxConfig;
use super::error::SandboxError;
use super::faults::{FaultCounts, FaultRates, Faults};
use super::generations::GenerationSummary;
use super::jobs;
use super::palette_cache::PaletteCache;
use super::rate_limit::RateLimiter;
use super::retention;
use super::routes;
use super::seed;
use super::state::{AppState, Controls, Shared};
use super::store::{Store, StoreRecovery};

/// How long in-flight requests get to finish after shutdown is requested.
const GRACEFUL_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(2);
const DATABASE_FILE: &str = "sandbox.sqlite3";

/// A running sandbox. Dropping it shuts the server down gracefully; unfinished jobs stay
/// `processing` in SQLite and resume on the next start with the same data dir.
pub struct SandboxHandle {
    base_url: String,
    api_key: String,
    port: u16,
    shared: AppState,
    /// The damaged database this start moved aside, if any.
    recovery: Option<StoreRecovery>,
    shutdown_tx: watch::Sender<bool>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for SandboxHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key is deliberately left out so it can't end up in logs.
        f.debug_struct("SandboxHandle")
            .field("base_url", &self.base_url)
            .finish_non_exhaustive()
    }
}

impl SandboxHandle {
    /// `http://127.0.0.1:PORT/api`
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The read/write key of the default user.
    pub fn api_key(&self) -> &str {
        &self.api_key
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The damaged database this start found and moved aside (it started with a fresh
    /// one), for the person to be told once.
    pub fn store_recovery(&self) -> Option<&StoreRecovery> {
        self.recovery.as_ref()
    }

    /// Creates another key of the same (default) user.
    pub fn create_api_key(&self, read_only: bool) -> String {
        match self
            .shared
            .store
            .insert_api_key(&self.shared.default_user_id, !read_only)
        {
            Ok(key) => key,
            Err(error) => {
                // A test control: failing loudly beats returning a key that does not work.
                panic!("sandbox could not create an API key: {error}")
            }
        }
    }

    /// Sets the total balance (all of it in the plan bucket); reservations are unaffected.
    pub fn set_credits(&self, total: f64) {
        if let Err(error) = self
            .shared
            .store
            .set_total_credits(&self.shared.default_user_id, total)
        {
            tracing::error!(%error, "sandbox could not set credits");
        }
    }

    pub fn credits_available(&self) -> f64 {
        match self.shared.store.balance(&self.shared.default_user_id) {
            Ok(balance) => balance.available(),
            Err(error) => {
                tracing::error!(%error, "sandbox could not read credits");
                0.0
            }
        }
    }

    pub fn set_failure_rate(&self, rate: f64) {
        self.shared.controls.set_failure_rate(rate);
    }

    /// The next `n` submitted jobs fail with a retryable (provider timeout) or a
    /// non-retryable (content policy) failure.
    pub fn fail_next_jobs(&self, n: u32, retryable: bool) {
        self.shared.controls.fail_next_jobs(n, retryable);
    }

    /// The next `n` submits create and reserve their job, but the response body is aborted.
    pub fn drop_next_submit_responses(&self, n: u32) {
        self.shared.controls.drop_next_submit_responses(n);
    }

    /// The next `n` chat submits answer the older synchronous way of post_chat_stateless.json
    /// (`{success, content, model, credits_used}`, no `message_id`): the answer is written
    /// and billed before the response. For clients that must accept that shape.
    pub fn answer_next_chats_synchronously(&self, n: u32) {
        self.shared.controls.answer_next_chats_synchronously(n);
    }

    /// The most recent requests received on the public file URLs (`/files/…`,
    /// `/assets/presets/…`), oldest first: method, path, query and headers as sent.
    pub fn file_requests(&self) -> Vec<super::files::FileRequest> {
        self.shared.file_requests.snapshot()
    }

    /// Generation jobs ever created in this data dir.
    pub fn generation_count(&self) -> u64 {
        self.shared
            .store
            .generation_count()
            .unwrap_or_else(|error| {
                tracing::error!(%error, "sandbox could not count generations");
                0
            })
    }

    /// Requests the rate limiters refused with a 429 since start (injected storms not
    /// included): a client that paces itself by the announced windows collects none.
    pub fn rate_limited_count(&self) -> u64 {
        self.shared.limiter.refused_count()
    }

    /// How many trim jobs were ever submitted (tests: a trim is never sent twice).
    pub fn trim_job_count(&self) -> u64 {
        self.shared.store.trim_job_count().unwrap_or_else(|error| {
            tracing::error!(%error, "sandbox could not count trim jobs");
            0
        })
    }

    /// A key for a user of the sandbox directory (see docs/SANDBOX.md), e.g.
    /// `ana@studio.test`; `None` for an unknown address.
    pub fn create_api_key_for_user(&self, email: &str, read_only: bool) -> Option<String> {
        let user_id = self.user_id_for_email(email)?;
        match self.shared.store.insert_api_key(&user_id, !read_only) {
            Ok(key) => Some(key),
            Err(error) => {
                tracing::error!(%error, "sandbox could not create an API key");
                None
            }
        }
    }

    /// The directory user id behind an e-mail address (case-insensitive).
    pub fn user_id_for_email(&self, email: &str) -> Option<String> {
        self.shared
            .store
            .user_id_by_email(email)
            .unwrap_or_else(|error| {
                tracing::error!(%error, "sandbox could not look up a user");
                None
            })
    }

    /// Makes the user with `email` a member (shared user) of a project; false when either
    /// is unknown.
    pub fn add_project_member(&self, project_id: &str, email: &str) -> bool {
        let Some(user_id) = self.user_id_for_email(email) else {
            return false;
        };
        self.shared
            .store
            .add_project_member(project_id, &user_id)
            .unwrap_or_else(|error| {
                tracing::error!(%error, "sandbox could not add a project member");
                false
            })
    }

    /// Assigns a folder to a project (the public API cannot); members of the project then
    /// see it in the folder list without being able to open it.
    pub fn assign_folder_to_project(&self, folder_id: &str, project_id: &str) -> bool {
        self.shared
            .store
            .assign_folder_to_project(folder_id, project_id)
            .unwrap_or_else(|error| {
                tracing::error!(%error, "sandbox could not assign a folder");
                false
            })
    }

    /// Inserts `count` realistic library items for the default user (in `project_id`, else
    /// the default project) in one transaction; their files are a few shared stills.
    /// Returns how many were inserted (0 for a project the default user cannot use).
    pub fn seed_media(&self, count: usize, project_id: Option<&str>) -> usize {
        seed::seed_media(&self.shared, count, project_id).unwrap_or_else(|error| {
            tracing::error!(%error, "sandbox could not seed media");
            0
        })
    }

    /// Moves the sandbox clock forward (trash retention, ticket expiry) and runs the
    /// retention sweep at once.
    /// An advance past the clock's range (a century ahead) is refused and logged.
    pub fn advance_clock_days(&self, days: u32) {
        if let Err(error) = self.shared.clock.advance_days(days) {
            tracing::warn!(%error, "sandbox clock not advanced");
        }
        self.purge_expired_trash();
    }

    /// Runs the 30-day trash retention sweep now; returns how many items it deleted.
    pub fn purge_expired_trash(&self) -> usize {
        retention::sweep(&self.shared).unwrap_or_else(|error| {
            tracing::error!(%error, "sandbox trash sweep failed");
            0
        })
    }

    /// Forgets every cached project grade, so the next generation sees the current
    /// activation at once instead of up to 60 s later (contract document 2 "Caching").
    pub fn clear_palette_cache(&self) {
        self.shared.palette_cache.clear();
    }

    /// Makes the user with `email` a member of the project with `permission` (`view`,
    /// `edit` or `full`); false for an unknown project, user or permission. `view` members
    /// may read the project but not change its Color DNA or generate into it.
    pub fn set_project_member_permission(
        &self,
        project_id: &str,
        email: &str,
        permission: &str,
    ) -> bool {
        let Some(user_id) = self.user_id_for_email(email) else {
            return false;
        };
        self.shared
            .store
            .set_member_permission(project_id, &user_id, permission)
            .unwrap_or_else(|error| {
                tracing::error!(%error, "sandbox could not set a member permission");
                false
            })
    }

    /// Replaces the transport fault rates of `/api` routes (a seed restarts the dice).
    pub fn set_faults(&self, rates: FaultRates) {
        self.shared.faults.set_rates(rates);
    }

    pub fn faults(&self) -> FaultRates {
        self.shared.faults.rates()
    }

    /// How many faults of each kind were injected since start.
    pub fn fault_counts(&self) -> FaultCounts {
        self.shared.faults.counts()
    }

    /// Bearer token of the `/admin` control surface (new at each start).
    pub fn admin_token(&self) -> &str {
        &self.shared.admin_token
    }

    /// `http://127.0.0.1:PORT` (the `/admin` and `/files` routes hang off it).
    pub fn origin(&self) -> &str {
        &self.shared.origin
    }

    /// Moves the sandbox clock forward: rate-limit windows, running jobs' elapsed time,
    /// trash retention and upload tickets all follow it. Runs the retention sweep at once.
    /// An advance past the clock's range (a century ahead) is refused and logged.
    pub fn advance_clock(&self, secs: f64) {
        if secs.is_finite()
            && secs > 0.0
            && let Err(error) = self.shared.clock.advance_ms((secs * 1000.0) as i64)
        {
            tracing::warn!(%error, "sandbox clock not advanced");
        }
        self.purge_expired_trash();
    }

    /// Every generation job this data dir holds, oldest first: what the service really
    /// did, whatever answers the client saw.
    pub fn generations(&self) -> Vec<GenerationSummary> {
        super::generations::list(&self.shared).unwrap_or_else(|error| {
            tracing::error!(%error, "sandbox could not list generations");
            Vec::new()
        })
    }

    pub fn shutdown(self) {
        drop(self);
    }

    fn stop(&mut self) {
        let _ = self.shutdown_tx.send(true);
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::error!("sandbox runtime thread panicked");
        }
    }
}

impl Drop for SandboxHandle {
    fn drop(&mut self) {
        self.stop();
    }
}

struct Ready {
    port: u16,
    api_key: String,
    shared: AppState,
    recovery: Option<StoreRecovery>,
}

fn io_error(path: &std::path::Path, source: std::io::Error) -> SandboxError {
    SandboxError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Storage opened by [`prepare`].
struct Prepared {
    store: Store,
    user_id: String,
    api_key: String,
    files_dir: std::path::PathBuf,
    /// A damaged database that was moved aside.
    recovery: Option<StoreRecovery>,
}

/// Opens storage (private folders and database: it holds the local key) and ensures the
/// default user, key and files dir exist.
fn prepare(config: &SandboxConfig) -> Result<Prepared, SandboxError> {
    use crate::local_files::create_private_dir_all;
    create_private_dir_all(&config.data_dir).map_err(|e| io_error(&config.data_dir, e))?;
    let files_dir = config.data_dir.join("files");
    create_private_dir_all(&files_dir).map_err(|e| io_error(&files_dir, e))?;
    let (store, recovery) = Store::open_or_recover(&config.data_dir.join(DATABASE_FILE))?;
    let user_id = store.ensure_default_user()?;
    store.ensure_directory(&user_id)?;
    let configured = config
        .api_key
        .as_deref()
        .map(str::trim)
        .filter(|k| !k.is_empty());
    let api_key = store.ensure_primary_key(&user_id, configured)?;
    Ok(Prepared {
        store,
        user_id,
        api_key,
        files_dir,
        recovery,
    })
}

async fn bind(config: &SandboxConfig) -> Result<tokio::net::TcpListener, SandboxError> {
    let addr = SocketAddr::from(([127, 0, 0, 1], config.port));
    match tokio::net::TcpListener::bind(addr).await {
        Ok(listener) => Ok(listener),
        Err(error) if config.port != 0 && config.port_fallback => {
            tracing::warn!(port = config.port, %error, "sandbox port taken; using a free port");
            tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
                .await
                .map_err(|source| SandboxError::Bind { port: 0, source })
        }
        Err(source) => Err(SandboxError::Bind {
            port: config.port,
            source,
        }),
    }
}

async fn serve(
    config: SandboxConfig,
    ready_tx: mpsc::Sender<Result<Ready, SandboxError>>,
    mut shutdown_rx: watch::Receiver<bool>,
) {
    let setup = async {
        let catalog = Catalog::load()?;
        let Prepared {
            store,
            user_id,
            api_key,
            files_dir,
            recovery,
        } = prepare(&config)?;
        let listener = bind(&config).await?;
        let port = listener
            .local_addr()
            .map_err(|source| SandboxError::Bind {
                port: config.port,
                source,
            })?
            .port();
        let shared = Arc::new(Shared {
            store,
            catalog,
            limiter: RateLimiter::new(config.rate_window_secs),
            controls: Controls::new(config.failure_rate),
            files_dir,
            origin: format!("http://127.0.0.1:{port}"),
            speed: config.speed,
            default_user_id: user_id,
            allow_private_fetch_hosts: config.allow_private_fetch_hosts.clone(),
            clock: Clock::default(),
            palette_cache: PaletteCache::default(),
            file_requests: Default::default(),
            faults: Faults::new(config.faults.clone()),
            admin_token: new_admin_token(),
            image_tool_guard: Default::default(),
        });
        shared
            .controls
            .drop_next_submit_responses(config.drop_submit_answers);
        shared
            .store
            .ensure_org_palette()
            .map_err(|e| SandboxError::Runtime(e.to_string()))?;
        seed::ensure_shared_files(&shared.files_dir).map_err(SandboxError::Runtime)?;
        seed::ensure_stock_items(&shared).map_err(SandboxError::Runtime)?;
        seed::ensure_global_visual_dnas(&shared).map_err(SandboxError::Runtime)?;
        Ok::<_, SandboxError>((
            listener,
            Ready {
                port,
                api_key,
                shared,
                recovery,
            },
        ))
    };
    let (listener, ready) = match setup.await {
        Ok(parts) => parts,
        Err(error) => {
            let _ = ready_tx.send(Err(error));
            return;
        }
    };
    let shared = ready.shared.clone();
    match retention::sweep(&shared) {
        Ok(0) => {}
        Ok(n) => tracing::info!(items = n, "sandbox purged expired trash at start"),
        Err(error) => tracing::error!(%error, "sandbox could not sweep the trash"),
    }
    retention::spawn_periodic(shared.clone());
    match jobs::resume_all(&shared) {
        Ok(0) => {}
        Ok(n) => tracing::info!(jobs = n, "sandbox resumed unfinished jobs"),
        Err(error) => tracing::error!(%error, "sandbox could not resume jobs"),
    }
    tracing::info!(port = ready.port, "sandbox listening");
    if ready_tx.send(Ok(ready)).is_err() {
        return;
    }
    let app = routes::router(shared, config.request_log_level);
    let server = super::server::run(listener, app, config.connection_limits, shutdown_rx.clone());
    let deadline = async {
        let _ = shutdown_rx.wait_for(|stop| *stop).await;
        tokio::time::sleep(GRACEFUL_SHUTDOWN_TIMEOUT).await;
    };
    tokio::select! {
        () = server => {}
        () = deadline => tracing::warn!("sandbox shutdown timed out; closing open connections"),
    }
}

/// A fresh random bearer token for `/admin` (never persisted).
fn new_admin_token() -> String {
    format!("fwadm_{}", uuid::Uuid::new_v4().simple())
}

/// Starts a sandbox on a thread named "sandbox-runtime" and returns once it is listening.
pub fn start(config: SandboxConfig) -> Result<SandboxHandle, SandboxError> {
    let (ready_tx, ready_rx) = mpsc::channel();
    let (shutdown_tx, shutdown_rx) = watch::channel(false);
    let thread = std::thread::Builder::new()
        .name("sandbox-runtime".to_owned())
        .spawn(move || {
            let runtime = match tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_name("sandbox-worker")
                .enable_all()
                .build()
            {
                Ok(runtime) => runtime,
                Err(error) => {
                    let _ = ready_tx.send(Err(SandboxError::Runtime(error.to_string())));
                    return;
                }
            };
            runtime.block_on(serve(config, ready_tx, shutdown_rx));
            // Job tasks are dropped here; their state is in SQLite and resumes next start.
            runtime.shutdown_timeout(GRACEFUL_SHUTDOWN_TIMEOUT);
        })
        .map_err(|e| SandboxError::Runtime(e.to_string()))?;
    let ready = match ready_rx.recv() {
        Ok(Ok(ready)) => ready,
        Ok(Err(error)) => {
            let _ = thread.join();
            return Err(error);
        }
        Err(_) => {
            let _ = thread.join();
            return Err(SandboxError::StartupAborted);
        }
    };
    Ok(SandboxHandle {
        base_url: format!("http://127.0.0.1:{}/api", ready.port),
        api_key: ready.api_key,
        port: ready.port,
        shared: ready.shared,
        recovery: ready.recovery,
        shutdown_tx,
        thread: Some(thread),
    })
}
