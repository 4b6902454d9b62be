//! One studio per data folder. The first launch holds an exclusive lock on
//! `<data>/framewright.lock` for its lifetime and listens on a loopback TCP port; the port
//! and a random per-launch token go into `<data>/framewright.instance`, readable only by
//! its owner (so another local user cannot hand files to this studio). A second launch
//! finds the lock taken, connects, sends its request (focus, absolute file paths) as one
//! JSON line, waits for `OK` and exits: two engines must never share the journal and the
//! sandbox's database.
//!
//! A lock held by an instance that does not answer (hung, or a listener that died) is
//! reported as such: the second launch exits with that message instead of starting anyway.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The lock's file name in the data folder.
pub const LOCK_FILE_NAME: &str = "framewright.lock";
/// Port and token of the running instance, beside the lock.
pub const INSTANCE_FILE_NAME: &str = "framewright.instance";
/// Largest request read from a connection; anything longer is refused unparsed.
pub const MAX_REQUEST_BYTES: usize = 64 * 1024;
/// Most files one launch may hand over.
pub const MAX_FILES: usize = 256;
/// Requests waiting for the UI; a launch beyond this is told the studio is busy.
const QUEUE_CAPACITY: usize = 16;
/// How long a second launch keeps trying to reach the first (it may be starting up and
/// not have written its port yet) before calling it unresponsive.
pub const HAND_OVER_WAIT: Duration = Duration::from_secs(5);
/// Between attempts to reach the first instance.
const RETRY_PAUSE: Duration = Duration::from_millis(100);
/// Per-connection read/write limit on both sides (a silent peer never blocks the listener
/// for long).
const IO_TIMEOUT: Duration = Duration::from_secs(3);
const PROTOCOL_VERSION: u32 = 1;

/// What a launch asks of the running studio.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LaunchRequest {
    /// Bring the window to the front (and un-minimise it).
    pub focus: bool,
    /// Files to open, absolute paths.
    pub files: Vec<PathBuf>,
    /// `--play FILE`: open this video or sound in the viewer and play it (absolute).
    pub play: Option<PathBuf>,
    /// Files named that are not there (or not files), moved here from `files` by
    /// [`LaunchRequest::check_files`] on the receiving side; never sent.
    pub missing: Vec<PathBuf>,
}

impl LaunchRequest {
    /// Move the paths that are not existing files into `missing` (the studio names them).
    pub fn check_files(&mut self) {
        let (present, missing): (Vec<_>, Vec<_>) =
            self.files.drain(..).partition(|path| path.is_file());
        self.files = present;
        self.missing.extend(missing);
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SingleInstanceError {
    #[error("could not {doing}: {source}")]
    Io {
        doing: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "Framewright is already running with the data folder {data_dir}, but it does not \
         answer ({reason}). If that window is stuck, end its process and start Framewright again."
    )]
    NotAnswering { data_dir: PathBuf, reason: String },
    #[error("the running Framewright refused the request: {0}")]
    Refused(String),
}

/// Why a received message was not accepted (told to the sender, logged by the listener).
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum MessageError {
    #[error("the request is longer than {MAX_REQUEST_BYTES} bytes")]
    TooLarge,
    #[error("the request is not valid JSON: {0}")]
    Malformed(String),
    #[error("unsupported protocol version {0}")]
    Version(u32),
    #[error("wrong token")]
    WrongToken,
    #[error("more than {MAX_FILES} files")]
    TooManyFiles,
    #[error("not an absolute file path: {0}")]
    RelativePath(String),
}

/// How a launch went.
pub enum Startup {
    /// This process is the studio for the data folder (keep the value alive until exit).
    First(FirstInstance),
    /// The running studio accepted the request; exit without opening a window.
    HandedOver,
}

/// The lock holder: listens for later launches until the process ends.
pub struct FirstInstance {
    /// Held for the process's lifetime; the OS releases it when the process ends, however.
    _lock: File,
    incoming: Option<Incoming>,
    port: u16,
}

impl FirstInstance {
    /// The requests of later launches (taken once, by the UI).
    pub fn take_incoming(&mut self) -> Option<Incoming> {
        self.incoming.take()
    }

    /// The loopback port the listener answers on.
    pub fn port(&self) -> u16 {
        self.port
    }
}

/// Called after each request is queued (the UI's repaint).
type Waker = Box<dyn Fn() + Send + Sync>;

/// The UI's end: requests of later launches, in arrival order.
pub struct Incoming {
    requests: Receiver<LaunchRequest>,
    waker: Arc<Mutex<Option<Waker>>>,
}

impl Incoming {
    /// Call `wake` after each request arrives (e.g. `egui::Context::request_repaint`).
    pub fn set_waker(&self, wake: impl Fn() + Send + Sync + 'static) {
        if let Ok(mut waker) = self.waker.lock() {
            *waker = Some(Box::new(wake));
        }
    }

    pub fn try_recv(&self) -> Option<LaunchRequest> {
        self.requests.try_recv().ok()
    }

    /// Wait up to `timeout` for the next request (tests).
    pub fn recv_timeout(&self, timeout: Duration) -> Option<LaunchRequest> {
        self.requests.recv_timeout(timeout).ok()
    }
}

/// Become the studio for `data_dir`, or hand `request` to the one already running there.
/// Waits up to [`HAND_OVER_WAIT`] for a running instance that is still starting.
pub fn claim_or_hand_over(
    data_dir: &Path,
    request: &LaunchRequest,
) -> Result<Startup, SingleInstanceError> {
    claim_or_hand_over_within(data_dir, request, HAND_OVER_WAIT)
}

/// [`claim_or_hand_over`] with its own wait (tests).
pub fn claim_or_hand_over_within(
    data_dir: &Path,
    request: &LaunchRequest,
    wait: Duration,
) -> Result<Startup, SingleInstanceError> {
    let deadline = Instant::now() + wait;
    loop {
        if let Some(first) = claim(data_dir)? {
            return Ok(Startup::First(first));
        }
        match hand_over_once(data_dir, request) {
            Ok(()) => return Ok(Startup::HandedOver),
            Err(Attempt::Refused(reason)) => return Err(SingleInstanceError::Refused(reason)),
            Err(Attempt::NoAnswer(reason)) => {
                if Instant::now() >= deadline {
                    return Err(SingleInstanceError::NotAnswering {
                        data_dir: data_dir.to_path_buf(),
                        reason,
                    });
                }
                tracing::debug!("the running instance did not answer yet: {reason}");
                std::thread::sleep(RETRY_PAUSE);
            }
        }
    }
}

/// Take the lock and start listening; `None` when another process holds the lock.
pub fn claim(data_dir: &Path) -> Result<Option<FirstInstance>, SingleInstanceError> {
    let io = |doing: String| move |source| SingleInstanceError::Io { doing, source };
    let lock_path = data_dir.join(LOCK_FILE_NAME);
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(io(format!("open the lock file {}", lock_path.display())))?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => return Ok(None),
        Err(TryLockError::Error(source)) => {
            return Err(SingleInstanceError::Io {
                doing: format!("lock {}", lock_path.display()),
                source,
            });
        }
    }
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .map_err(io("listen on a loopback port".to_owned()))?;
    let port = listener
        .local_addr()
        .map_err(io("read the loopback port".to_owned()))?
        .port();
    let token = uuid::Uuid::new_v4().simple().to_string();
    write_instance_file(data_dir, port, &token)?;
    let (sender, requests) = mpsc::sync_channel(QUEUE_CAPACITY);
    let waker: Arc<Mutex<Option<Waker>>> = Arc::new(Mutex::new(None));
    let listener_waker = waker.clone();
    std::thread::Builder::new()
        .name("single-instance".to_owned())
        .spawn(move || listen(listener, &token, &sender, &listener_waker))
        .map_err(io("start the single-instance listener".to_owned()))?;
    tracing::info!("single instance: listening on 127.0.0.1:{port}");
    Ok(Some(FirstInstance {
        _lock: lock,
        incoming: Some(Incoming { requests, waker }),
        port,
    }))
}

/// Port and token, written to a temp file (owner-only) and renamed into place so a reader
/// never sees half of it.
fn write_instance_file(data_dir: &Path, port: u16, token: &str) -> Result<(), SingleInstanceError> {
    let path = data_dir.join(INSTANCE_FILE_NAME);
    let temp = data_dir.join(format!("{INSTANCE_FILE_NAME}.{}.tmp", std::process::id()));
    let body = serde_json::json!({ "port": port, "token": token }).to_string();
    let write = || -> std::io::Result<()> {
        let _ = std::fs::remove_file(&temp);
        let mut options = OpenOptions::new();
        options.create_new(true).write(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&temp)?;
        file.write_all(body.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&temp, &path)
    };
    write().map_err(|source| SingleInstanceError::Io {
        doing: format!("write {}", path.display()),
        source,
    })
}

/// The listener thread: one connection at a time (each bounded by [`IO_TIMEOUT`]); ends
/// when the UI's end is gone.
fn listen(
    listener: TcpListener,
    token: &str,
    sender: &SyncSender<LaunchRequest>,
    waker: &Mutex<Option<Waker>>,
) {
    for stream in listener.incoming() {
        let mut stream = match stream {
            Ok(stream) => stream,
            Err(error) => {
                tracing::warn!("single instance: accept failed: {error}");
                continue;
            }
        };
        let _ = stream.set_read_timeout(Some(IO_TIMEOUT));
        let _ = stream.set_write_timeout(Some(IO_TIMEOUT));
        let (reply, stop) = match read_request(&mut stream, token) {
            Ok(mut request) => {
                request.check_files();
                tracing::info!(
                    "single instance: a new launch asks to open {} file(s)",
                    request.files.len()
                );
                match sender.try_send(request) {
                    Ok(()) => {
                        if let Ok(waker) = waker.lock()
                            && let Some(wake) = waker.as_ref()
                        {
                            wake();
                        }
                        ("OK".to_owned(), false)
                    }
                    Err(TrySendError::Full(_)) => ("ERR the studio is busy".to_owned(), false),
                    Err(TrySendError::Disconnected(_)) => {
                        ("ERR the studio is closing".to_owned(), true)
                    }
                }
            }
            Err(error) => {
                tracing::warn!("single instance: refused a request: {error}");
                (format!("ERR {error}"), false)
            }
        };
        let _ = stream.write_all(format!("{reply}\n").as_bytes());
        if stop {
            break;
        }
    }
}

/// One request line from `stream`, at most [`MAX_REQUEST_BYTES`].
fn read_request(stream: &mut TcpStream, token: &str) -> Result<LaunchRequest, MessageError> {
    let mut line = Vec::new();
    let limit = MAX_REQUEST_BYTES as u64 + 1;
    BufReader::new(stream.take(limit))
        .read_until(b'\n', &mut line)
        .map_err(|e| MessageError::Malformed(format!("read failed: {e}")))?;
    parse_request(&line, token)
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Wire {
    version: u32,
    token: String,
    #[serde(default)]
    focus: bool,
    #[serde(default)]
    files: Vec<String>,
    /// Absent from older senders' lines: nothing to play.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    play: Option<String>,
}

/// Parse and check one request (the JSON line, with or without its newline).
pub fn parse_request(bytes: &[u8], token: &str) -> Result<LaunchRequest, MessageError> {
    if bytes.len() > MAX_REQUEST_BYTES {
        return Err(MessageError::TooLarge);
    }
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let wire: Wire =
        serde_json::from_slice(bytes).map_err(|e| MessageError::Malformed(e.to_string()))?;
    if wire.version != PROTOCOL_VERSION {
        return Err(MessageError::Version(wire.version));
    }
    if !same_token(&wire.token, token) {
        return Err(MessageError::WrongToken);
    }
    if wire.files.len() > MAX_FILES {
        return Err(MessageError::TooManyFiles);
    }
    let checked = |file: String| {
        let path = PathBuf::from(&file);
        if path.is_absolute() && !file.contains('\0') {
            Ok(path)
        } else {
            Err(MessageError::RelativePath(file))
        }
    };
    let files = wire
        .files
        .into_iter()
        .map(checked)
        .collect::<Result<Vec<_>, _>>()?;
    let play = wire.play.map(checked).transpose()?;
    Ok(LaunchRequest {
        focus: wire.focus,
        files,
        play,
        missing: Vec::new(),
    })
}

/// Encode `request` as the one JSON line sent to the running instance.
pub fn encode_request(request: &LaunchRequest, token: &str) -> Vec<u8> {
    let wire = Wire {
        version: PROTOCOL_VERSION,
        token: token.to_owned(),
        focus: request.focus,
        files: request
            .files
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect(),
        play: request
            .play
            .as_ref()
            .map(|p| p.to_string_lossy().into_owned()),
    };
    let mut line = serde_json::to_vec(&wire).unwrap_or_default();
    line.push(b'\n');
    line
}

/// Compares every byte, so the time taken does not tell how much of a guess was right.
fn same_token(given: &str, expected: &str) -> bool {
    given.len() == expected.len()
        && given
            .bytes()
            .zip(expected.bytes())
            .fold(0u8, |diff, (a, b)| diff | (a ^ b))
            == 0
}

enum Attempt {
    /// No usable answer (no port yet, refused, timed out, garbage): maybe later.
    NoAnswer(String),
    /// The running instance answered and said no.
    Refused(String),
}

/// One try at handing `request` to the instance named in the instance file.
fn hand_over_once(data_dir: &Path, request: &LaunchRequest) -> Result<(), Attempt> {
    fn no_answer(what: &'static str) -> impl Fn(std::io::Error) -> Attempt {
        move |e| Attempt::NoAnswer(format!("{what}: {e}"))
    }
    let path = data_dir.join(INSTANCE_FILE_NAME);
    let mut text = String::new();
    File::open(&path)
        .and_then(|file| file.take(4096).read_to_string(&mut text))
        .map_err(no_answer("its port is not known"))?;
    let (port, token) = parse_instance_file(&text)
        .ok_or_else(|| Attempt::NoAnswer("its port file is unreadable".to_owned()))?;
    let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let mut stream =
        TcpStream::connect_timeout(&address, IO_TIMEOUT).map_err(no_answer("connecting"))?;
    let _ = stream.set_read_timeout(Some(IO_TIMEOUT));
    let _ = stream.set_write_timeout(Some(IO_TIMEOUT));
    stream
        .write_all(&encode_request(request, &token))
        .map_err(no_answer("sending"))?;
    let mut reply = String::new();
    BufReader::new((&stream).take(4096))
        .read_line(&mut reply)
        .map_err(no_answer("waiting for its answer"))?;
    match reply.trim_end() {
        "OK" => Ok(()),
        answer => match answer.strip_prefix("ERR ") {
            Some(reason) => Err(Attempt::Refused(reason.to_owned())),
            None if answer.is_empty() => Err(Attempt::NoAnswer("no answer".to_owned())),
            None => Err(Attempt::NoAnswer("an unexpected answer".to_owned())),
        },
    }
}

fn parse_instance_file(text: &str) -> Option<(u16, String)> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let port = u16::try_from(value.get("port")?.as_u64()?).ok()?;
    let token = value.get("token")?.as_str()?.to_owned();
    (port != 0 && !token.is_empty()).then_some((port, token))
}

#[cfg(test)]
mod tests {
    use super::*;

    // The request parser's tests are in tests/service/single_instance.rs (public API).

    #[test]
    fn the_instance_file_is_read_defensively() {
        assert_eq!(
            parse_instance_file(r#"{"port":4242,"token":"abc"}"#),
            Some((4242, "abc".to_owned()))
        );
        for bad in [
            "",
            "{",
            r#"{"port":0,"token":"a"}"#,
            r#"{"port":70000,"token":"a"}"#,
        ] {
            assert_eq!(parse_instance_file(bad), None, "{bad}");
        }
    }
}
