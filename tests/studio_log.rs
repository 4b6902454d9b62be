//! The studio's log file: its embedded sandbox's per-request lines stay out of it at the
//! default level (they would add a line for every thumbnail and poll), while the
//! standalone sandbox's requests (level info, its stderr log) pass the same filter.
//! One global subscriber per process, hence one test in this binary.

use framewright::logging;
use framewright::sandbox::{self, SandboxConfig};
use framewright::session::{Session, SessionOptions};
use framewright::settings::AppPaths;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use tracing_subscriber::EnvFilter;

/// A plain HTTP/1.1 GET on loopback; answers come back before this returns, so the
/// request's log line (written before the answer is sent) is in the file.
fn get(port: u16, path: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("answer");
    answer
}

#[test]
fn embedded_sandbox_requests_do_not_reach_the_info_log() {
    let home = tempfile::tempdir().expect("tempdir");
    let paths = AppPaths::under(home.path());
    paths.create_all().expect("folders");
    let log_file = paths.log_file();
    // The studio's default: the file at info (RUST_LOG unset).
    logging::install(
        Some(&log_file),
        EnvFilter::new("info"),
        EnvFilter::new("off"),
    );

    let options = SessionOptions {
        sandbox_speed: 20.0,
        use_os_keychain: false,
    };
    let mut session = Session::open_with(paths.clone(), options, Arc::new(|| {}));
    let embedded_port = session.local_sandbox().expect("embedded sandbox").port();
    let answer = get(embedded_port, "/api/v1/embedded-log-probe");
    assert!(answer.starts_with("HTTP/1.1 "), "{answer}");

    // Control: a sandbox configured like `framewright sandbox` logs the same request.
    let standalone_dir = tempfile::tempdir().expect("tempdir");
    let standalone = sandbox::start(SandboxConfig::new(standalone_dir.path().to_owned()))
        .expect("standalone sandbox");
    get(standalone.port(), "/api/v1/standalone-log-probe");
    session.shutdown();

    let log = std::fs::read_to_string(&log_file).expect("log file");
    assert!(
        log.contains("sandbox listening"),
        "the embedded sandbox's info lines still reach the log:\n{log}"
    );
    assert!(
        log.contains("standalone-log-probe") && log.contains("request"),
        "a standalone sandbox's request line passes the info filter:\n{log}"
    );
    assert!(
        !log.contains("embedded-log-probe"),
        "an embedded sandbox's request line reached the info log:\n{log}"
    );
    let request_lines = log
        .lines()
        .filter(|line| line.contains(" request "))
        .count();
    assert_eq!(request_lines, 1, "only the standalone's request:\n{log}");
}
