//! One studio per data folder: a second `framewright FILE` hands its file to the first and
//! exits without a window; a lock held by an instance that does not answer makes the second
//! launch say so and fail; the request parser refuses garbage, oversize and wrong tokens.

use framewright::desktop::single_instance::{
    self, INSTANCE_FILE_NAME, LOCK_FILE_NAME, LaunchRequest, MAX_FILES, MAX_REQUEST_BYTES,
    MessageError, Startup, encode_request, parse_request,
};
use framewright::settings::AppPaths;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The studio binary with `home` as its data root and no display: were it to open a
/// window, it would fail.
fn studio(home: &Path, cwd: &Path, args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_framewright"))
        .args(args)
        .current_dir(cwd)
        .env("FRAMEWRIGHT_HOME", home)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn framewright");
    // A guard against hanging the suite, not a timing assertion.
    let give_up = Instant::now() + Duration::from_secs(120);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > give_up {
            let _ = child.kill();
            panic!("framewright did not exit");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

fn home() -> (tempfile::TempDir, AppPaths) {
    let dir = tempfile::tempdir().expect("temp dir");
    let paths = AppPaths::under(dir.path());
    paths.create_all().expect("create folders");
    (dir, paths)
}

#[test]
fn a_second_launch_hands_its_file_to_the_first_and_exits() {
    let (dir, paths) = home();
    let mut first = single_instance::claim(&paths.data_dir)
        .expect("claim")
        .expect("the data folder is free");
    let incoming = first.take_incoming().expect("incoming");
    let photos = dir.path().join("photos");
    std::fs::create_dir_all(&photos).unwrap();
    std::fs::write(photos.join("a cat.png"), b"not really a png").unwrap();

    // A relative path, as a file manager or a shell passes it.
    let output = studio(dir.path(), &photos, &["a cat.png", "gone.png"]);

    assert!(
        output.status.success(),
        "second launch failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let request = incoming
        .recv_timeout(Duration::from_secs(30))
        .expect("the first instance received the request");
    assert!(request.focus, "the second launch asks for the window");
    assert_eq!(request.files, vec![photos.join("a cat.png")]);
    assert_eq!(request.missing, vec![photos.join("gone.png")]);
    assert!(request.files[0].is_absolute());
    drop(first);
}

#[test]
fn a_held_lock_nobody_answers_for_makes_the_second_launch_fail_clearly() {
    let (dir, paths) = home();
    let lock = std::fs::File::create(paths.data_dir.join(LOCK_FILE_NAME)).unwrap();
    lock.try_lock().expect("lock");
    // A stale instance file from an earlier run names a port nobody listens on.
    let unused_port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    std::fs::write(
        paths.data_dir.join(INSTANCE_FILE_NAME),
        format!(r#"{{"port":{unused_port},"token":"old"}}"#),
    )
    .unwrap();

    let output = studio(dir.path(), dir.path(), &[]);

    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("already running") && stderr.contains("does not answer"),
        "{stderr}"
    );
    assert!(
        !paths.data_dir.join("journal.sqlite3").exists(),
        "no second engine was started"
    );
}

#[test]
fn the_listener_refuses_strangers_and_serves_launches_in_process() {
    let (_dir, paths) = home();
    let mut first = single_instance::claim(&paths.data_dir).unwrap().unwrap();
    let incoming = first.take_incoming().unwrap();
    assert!(
        single_instance::claim(&paths.data_dir).unwrap().is_none(),
        "the lock is exclusive"
    );

    // Someone who cannot read the instance file guesses the token: refused, nothing queued.
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", first.port())).unwrap();
    let guess = LaunchRequest {
        focus: true,
        files: vec![std::env::temp_dir().join("x.png")],
        play: None,
        missing: Vec::new(),
    };
    stream.write_all(&encode_request(&guess, "guess")).unwrap();
    let mut reply = String::new();
    BufReader::new(&stream).read_line(&mut reply).unwrap();
    assert!(reply.starts_with("ERR"), "{reply}");
    assert!(incoming.try_recv().is_none());

    // A launch through the API is delivered (and the listener still serves after garbage),
    // `--play`'s file with it.
    let wanted = LaunchRequest {
        focus: true,
        files: Vec::new(),
        play: Some(std::env::temp_dir().join("song.mp3")),
        missing: Vec::new(),
    };
    let outcome = single_instance::claim_or_hand_over_within(
        &paths.data_dir,
        &wanted,
        Duration::from_secs(10),
    )
    .unwrap();
    assert!(matches!(outcome, Startup::HandedOver));
    assert_eq!(incoming.recv_timeout(Duration::from_secs(10)), Some(wanted));
}

#[cfg(unix)]
#[test]
fn only_the_owner_can_read_the_port_and_token() {
    use std::os::unix::fs::PermissionsExt;
    let (_dir, paths) = home();
    let _first = single_instance::claim(&paths.data_dir).unwrap().unwrap();
    let mode = std::fs::metadata(paths.data_dir.join(INSTANCE_FILE_NAME))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o077, 0, "mode {mode:o}");
}

// ---- the request parser ---------------------------------------------------------------

fn abs(name: &str) -> PathBuf {
    std::env::temp_dir().join(name)
}

#[test]
fn a_request_survives_encoding() {
    let request = LaunchRequest {
        focus: true,
        files: vec![abs("a cat.png"), abs("clip.mp4")],
        play: None,
        missing: Vec::new(),
    };
    let line = encode_request(&request, "t0k");
    assert_eq!(parse_request(&line, "t0k"), Ok(request));
}

#[test]
fn garbage_is_refused() {
    for garbage in [
        &b""[..],
        b"\n",
        b"hello\n",
        b"\xff\xfe\x00",
        b"[1,2,3]",
        b"{}",
        br#"{"version":"1","token":"t"}"#,
        br#"{"version":1,"token":"t","files":"/a.png"}"#,
    ] {
        assert!(
            matches!(parse_request(garbage, "t"), Err(MessageError::Malformed(_))),
            "{garbage:?}"
        );
    }
}

#[test]
fn oversize_is_refused_before_parsing() {
    let mut line = encode_request(&LaunchRequest::default(), "t");
    line.resize(MAX_REQUEST_BYTES + 1, b' ');
    assert_eq!(parse_request(&line, "t"), Err(MessageError::TooLarge));
}

#[test]
fn a_wrong_token_is_refused() {
    let line = encode_request(&LaunchRequest::default(), "guess");
    assert_eq!(
        parse_request(&line, "secret"),
        Err(MessageError::WrongToken)
    );
    let line = encode_request(&LaunchRequest::default(), "");
    assert_eq!(
        parse_request(&line, "secret"),
        Err(MessageError::WrongToken)
    );
}

#[test]
fn relative_paths_other_versions_and_too_many_files_are_refused() {
    let line = br#"{"version":1,"token":"t","files":["cat.png"]}"#;
    assert_eq!(
        parse_request(line, "t"),
        Err(MessageError::RelativePath("cat.png".to_owned()))
    );
    let line = br#"{"version":2,"token":"t"}"#;
    assert_eq!(parse_request(line, "t"), Err(MessageError::Version(2)));
    let many = LaunchRequest {
        focus: false,
        files: (0..=MAX_FILES).map(|i| abs(&format!("{i}.png"))).collect(),
        play: None,
        missing: Vec::new(),
    };
    assert_eq!(
        parse_request(&encode_request(&many, "t"), "t"),
        Err(MessageError::TooManyFiles)
    );
}
