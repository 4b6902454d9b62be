//! Files on disk that the studio cannot use: a broken file is moved aside with a timestamp
//! (`settings.json` → `settings.json.broken-20261123T230102Z`), never deleted and never a
//! reason not to start, and the person is told once in a [`BrokenFileNotice`]. Also the
//! words for disk errors ("the disk is full"), shared by every place that writes a file.

use std::path::PathBuf;

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

// Moving a file aside is shared with the sandbox (its damaged database), so it lives in
// the contract-free `local_files` layer.
pub use crate::local_files::{broken_path, free_broken_path, move_aside};

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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Error, ErrorKind};
    use std::path::Path;

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
