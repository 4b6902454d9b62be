//! Files the studio and the sandbox keep on disk (settings, the job journal, the chat
//! store, the sandbox's database and the local key in it): private to their owner on Unix
//! (folders 0700, files 0600, whatever the umask), and a damaged one moved aside with a
//! timestamp instead of deleted. No egui, no contract: both sides use it.

use std::path::{Path, PathBuf};

/// Unix mode of the folders holding the studio's and the sandbox's files.
pub const PRIVATE_DIR_MODE: u32 = 0o700;
/// Unix mode of the files in them.
pub const PRIVATE_FILE_MODE: u32 = 0o600;

/// Creates `dir` and any missing parents, and makes `dir` itself private (0700 on Unix),
/// also when it already existed. Parents that already existed are left alone: they may be
/// shared folders such as `~/.local/share`.
pub fn create_private_dir_all(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(PRIVATE_DIR_MODE)
            .create(dir)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(PRIVATE_DIR_MODE))
    }
    #[cfg(not(unix))]
    {
        std::fs::create_dir_all(dir)
    }
}

/// Makes `path` a private file (0600 on Unix): created empty when missing (SQLite then
/// takes an empty file as a new database, and gives its -wal and -shm the same mode), its
/// mode narrowed when it exists.
pub fn make_private_file(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .mode(PRIVATE_FILE_MODE)
            .open(path)?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(PRIVATE_FILE_MODE))?;
        // Companions of an existing SQLite database written before files were private.
        for suffix in ["-wal", "-shm", "-journal"] {
            let companion = with_suffix(path, suffix);
            if companion.exists() {
                std::fs::set_permissions(
                    &companion,
                    std::fs::Permissions::from_mode(PRIVATE_FILE_MODE),
                )?;
            }
        }
        Ok(())
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(())
    }
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

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path)
            .expect("metadata")
            .permissions()
            .mode()
            & 0o777
    }

    #[test]
    fn folders_and_files_are_private_whatever_they_were() {
        let dir = tempfile::tempdir().expect("tempdir");
        let data = dir.path().join("a/b");
        create_private_dir_all(&data).expect("create");
        assert_eq!(mode(&data), 0o700);
        std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        create_private_dir_all(&data).expect("again");
        assert_eq!(mode(&data), 0o700, "an existing folder is narrowed");

        let db = data.join("store.sqlite3");
        make_private_file(&db).expect("create");
        assert_eq!(mode(&db), 0o600);
        assert_eq!(std::fs::metadata(&db).expect("meta").len(), 0);
        std::fs::write(&db, b"kept").expect("write");
        std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        let wal = data.join("store.sqlite3-wal");
        std::fs::write(&wal, b"wal").expect("write");
        make_private_file(&db).expect("narrow");
        assert_eq!((mode(&db), mode(&wal)), (0o600, 0o600));
        assert_eq!(
            std::fs::read(&db).expect("read"),
            b"kept",
            "content untouched"
        );
    }
}
