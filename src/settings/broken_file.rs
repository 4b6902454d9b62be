//! Files on disk that the studio cannot use: a broken file is moved aside with a timestamp
//! (`settings.json` → `settings.json.broken-20261123T230102Z`), never deleted and never a
//! reason not to start, and the person is told once in a [`BrokenFileNotice`]. Also the
//! words for disk errors ("the disk is full"), shared by every place that writes a file.

use std::path::{Path, PathBuf};

/// What the studio found wrong with one of its files at start, and what it did about it.
/// The shell shows `message` once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrokenFileNotice {
    /// The file that could not be used.
    pub file: PathBuf,
    /// Where the broken file (or a copy of it) was kept, when it could be.
    pub moved_to: Option<PathBuf>,
    /// One or two sentences for the person: what happened, what it means, where the copy is.
    pub message: String,
}

/// Suffix `.broken-<UTC timestamp>` added to a file moved aside.
pub fn broken_path(path: &Path, at: chrono::DateTime<chrono::Utc>) -> PathBuf {
    with_suffix(path, &format!(".broken-{}", at.format("%Y%m%dT%H%M%SZ")))
}

/// A free `.broken-…` name for `path` now (a second breakage in the same second gets `-2`).
pub fn free_broken_path(path: &Path) -> PathBuf {
    let first = broken_path(path, chrono::Utc::now());
    let mut candidate = first.clone();
    let mut n = 2;
    while candidate.exists() {
        candidate = with_suffix(&first, &format!("-{n}"));
        n += 1;
    }
    candidate
}

/// Moves `path` aside to a free `.broken-…` name and returns it. Each of `companions`
/// (suffixes such as SQLite's `-wal` and `-shm`) that exists beside it is moved to the
/// same name with its suffix, so the copy stays whole and a new file starts clean.
pub fn move_aside(path: &Path, companions: &[&str]) -> std::io::Result<PathBuf> {
    let target = free_broken_path(path);
    std::fs::rename(path, &target)?;
    let stamp = target
        .file_name()
        .and_then(|name| name.to_str())
        .and_then(|name| name.rsplit_once(".broken-"))
        .map(|(_, stamp)| stamp.to_owned())
        .unwrap_or_default();
    for suffix in companions {
        let companion = with_suffix(path, suffix);
        if companion.exists() {
            let companion_target = with_suffix(&companion, &format!(".broken-{stamp}"));
            if let Err(e) = std::fs::rename(&companion, &companion_target) {
                // A stale -wal left beside a fresh database would be replayed into it.
                tracing::warn!("could not move {} aside: {e}", companion.display());
                std::fs::remove_file(&companion)?;
            }
        }
    }
    Ok(target)
}

/// "The damaged file was kept as …" (or why it could not be).
pub fn kept_sentence(moved: &std::io::Result<PathBuf>) -> String {
    match moved {
        Ok(target) => format!("The damaged file was kept as {}.", target.display()),
        Err(e) => format!(
            "It could not be moved aside ({}), so it will be replaced.",
            describe_io_error(e)
        ),
    }
}

/// Why a file operation failed, in words a person understands.
pub fn describe_io_error(error: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match error.kind() {
        ErrorKind::ReadOnlyFilesystem => "the file system is read-only".to_owned(),
        ErrorKind::StorageFull => "the disk is full".to_owned(),
        ErrorKind::QuotaExceeded => "your disk quota is used up".to_owned(),
        ErrorKind::PermissionDenied => "permission was denied".to_owned(),
        ErrorKind::NotFound => "the folder does not exist".to_owned(),
        ErrorKind::IsADirectory => "a folder is in the way of the file".to_owned(),
        _ => error.to_string(),
    }
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Error, ErrorKind};

    #[test]
    fn broken_name_carries_a_utc_timestamp() {
        let at = chrono::DateTime::from_timestamp(1_795_474_862, 0).expect("valid time");
        assert_eq!(
            broken_path(Path::new("/data/settings.json"), at),
            PathBuf::from("/data/settings.json.broken-20261123T230102Z")
        );
    }

    #[test]
    fn moving_aside_takes_the_sqlite_companions_along() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("journal.sqlite3");
        std::fs::write(&db, b"db").expect("write");
        std::fs::write(dir.path().join("journal.sqlite3-wal"), b"wal").expect("write");
        let moved = move_aside(&db, &["-wal", "-shm"]).expect("moved");
        assert!(!db.exists());
        assert!(!dir.path().join("journal.sqlite3-wal").exists());
        assert_eq!(std::fs::read(&moved).expect("copy"), b"db");
        let wal_copy = PathBuf::from(format!(
            "{}-wal.broken-{}",
            db.display(),
            moved
                .display()
                .to_string()
                .rsplit_once(".broken-")
                .expect("stamp")
                .1
        ));
        assert_eq!(std::fs::read(wal_copy).expect("wal copy"), b"wal");

        // A second breakage within the same second gets its own name.
        std::fs::write(&db, b"db2").expect("write");
        let second = move_aside(&db, &[]).expect("moved again");
        assert_ne!(second, moved);
        assert_eq!(std::fs::read(&second).expect("copy"), b"db2");
    }

    #[test]
    fn disk_errors_are_said_in_words() {
        let words = |kind| describe_io_error(&Error::from(kind));
        assert_eq!(
            words(ErrorKind::ReadOnlyFilesystem),
            "the file system is read-only"
        );
        assert_eq!(words(ErrorKind::StorageFull), "the disk is full");
        assert_eq!(words(ErrorKind::PermissionDenied), "permission was denied");
        // Raw OS errors as the file system reports them (Linux numbers).
        #[cfg(target_os = "linux")]
        {
            let os = |code| describe_io_error(&Error::from_raw_os_error(code));
            assert_eq!(os(30), "the file system is read-only"); // EROFS
            assert_eq!(os(28), "the disk is full"); // ENOSPC
            assert_eq!(os(13), "permission was denied"); // EACCES
        }
    }
}
