//! A log file rotated by size: before a write would take `framewright.log` past its limit,
//! `.log.1` … become `.log.2` …, the oldest beyond the kept count is dropped, the log
//! becomes `.log.1` and a new one starts. Files are private (0600 on Unix), rotated ones
//! too (a rename keeps the mode). One write is one log line (tracing's fmt layer formats
//! an event and writes it at once), so a file exceeds the limit only by a single line
//! longer than the limit.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::local_files;

#[derive(Debug)]
pub struct RotatingFile {
    path: PathBuf,
    /// `None` only within a rotation (Windows cannot rename an open file).
    file: Option<File>,
    size_bytes: u64,
    limit_bytes: u64,
    /// The log itself plus its rotated predecessors; at least 1.
    files_kept: usize,
}

impl RotatingFile {
    /// Opens (appends to) `path`, created private or narrowed to private when it exists.
    pub fn open(path: &Path, limit_bytes: u64, files_kept: usize) -> io::Result<Self> {
        let file = open_private_append(path)?;
        let size_bytes = file.metadata()?.len();
        Ok(Self {
            path: path.to_owned(),
            file: Some(file),
            size_bytes,
            limit_bytes,
            files_kept: files_kept.max(1),
        })
    }

    /// `framewright.log.N` (N ≥ 1).
    pub fn rotated_path(path: &Path, n: usize) -> PathBuf {
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".{n}"));
        PathBuf::from(name)
    }

    fn rotate(&mut self) -> io::Result<()> {
        self.file = None;
        let shifted = self.shift_files();
        // Whatever happened to the renames, keep a file to write to.
        let file = if self.files_kept == 1 {
            File::create(&self.path).and_then(|file| {
                local_files::make_private_file(&self.path)?;
                Ok(file)
            })
        } else {
            open_private_append(&self.path)
        }?;
        self.size_bytes = file.metadata()?.len();
        self.file = Some(file);
        shifted
    }

    fn shift_files(&self) -> io::Result<()> {
        if self.files_kept == 1 {
            return Ok(());
        }
        let oldest = Self::rotated_path(&self.path, self.files_kept - 1);
        remove_if_present(&oldest)?;
        for n in (1..self.files_kept - 1).rev() {
            rename_if_present(
                &Self::rotated_path(&self.path, n),
                &Self::rotated_path(&self.path, n + 1),
            )?;
        }
        rename_if_present(&self.path, &Self::rotated_path(&self.path, 1))
    }
}

impl Write for RotatingFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let would_pass_limit = self.size_bytes + buf.len() as u64 > self.limit_bytes;
        if self.size_bytes > 0 && would_pass_limit {
            // A failed rotation must not lose the line: it goes to whichever file is open.
            let _ = self.rotate();
        }
        let file = match self.file.as_mut() {
            Some(file) => file,
            None => return Err(io::Error::other("the log file could not be reopened")),
        };
        let written = file.write(buf)?;
        self.size_bytes += written as u64;
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.file.as_mut() {
            Some(file) => file.flush(),
            None => Ok(()),
        }
    }
}

fn open_private_append(path: &Path) -> io::Result<File> {
    local_files::make_private_file(path)?;
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
}

fn remove_if_present(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Err(error) if error.kind() != io::ErrorKind::NotFound => Err(error),
        _ => Ok(()),
    }
}

fn rename_if_present(from: &Path, to: &Path) -> io::Result<()> {
    match std::fs::rename(from, to) {
        Err(error) if error.kind() != io::ErrorKind::NotFound => Err(error),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &[u8] = b"2026-11-29T04:00:00Z  INFO framewright: a line of about sixty bytes\n";

    fn log_files(dir: &Path) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .expect("read dir")
            .map(|entry| entry.expect("entry").path())
            .collect();
        files.sort();
        files
    }

    #[test]
    fn writing_past_the_limit_rotates_and_keeps_at_most_the_kept_count() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("framewright.log");
        let limit_bytes = 1000;
        let mut log = RotatingFile::open(&path, limit_bytes, 3).expect("open");
        // About 14 files' worth of lines.
        let lines = 200;
        for _ in 0..lines {
            log.write_all(LINE).expect("write");
        }
        drop(log);

        let files = log_files(dir.path());
        assert_eq!(
            files,
            vec![
                path.clone(),
                RotatingFile::rotated_path(&path, 1),
                RotatingFile::rotated_path(&path, 2),
            ],
            "the log and two rotated files, nothing else"
        );
        let lines_per_file = limit_bytes as usize / LINE.len();
        for file in &files {
            let text = std::fs::read(file).expect("read");
            assert!(
                text.len() as u64 <= limit_bytes,
                "{} is over the limit",
                file.display()
            );
            assert!(
                text.ends_with(b"\n") && text.starts_with(b"2026"),
                "whole lines only"
            );
            if file != &path {
                assert_eq!(
                    text.len(),
                    lines_per_file * LINE.len(),
                    "rotated files are full"
                );
            }
        }
        // The newest lines are kept: the current file holds what is left after the last
        // full file.
        let current = std::fs::read(&path).expect("read").len() / LINE.len();
        assert_eq!(current, (lines - 1) % lines_per_file + 1);
    }

    #[test]
    fn reopening_appends_and_counts_what_is_already_there() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("framewright.log");
        std::fs::write(&path, LINE.repeat(10)).expect("seed");
        let mut log = RotatingFile::open(&path, (LINE.len() * 11) as u64, 2).expect("open");
        log.write_all(LINE).expect("fits");
        assert!(!RotatingFile::rotated_path(&path, 1).exists());
        log.write_all(LINE).expect("rotates");
        let rotated = std::fs::read(RotatingFile::rotated_path(&path, 1)).expect("rotated");
        assert_eq!(rotated.len(), LINE.len() * 11);
        assert_eq!(std::fs::read(&path).expect("read"), LINE);
    }

    #[test]
    fn a_line_longer_than_the_limit_is_written_whole_in_its_own_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("framewright.log");
        let mut log = RotatingFile::open(&path, 100, 2).expect("open");
        log.write_all(b"short\n").expect("write");
        let long = [b'x'; 250];
        log.write_all(&long).expect("write");
        assert_eq!(std::fs::read(&path).expect("read"), long);
        assert_eq!(
            std::fs::read(RotatingFile::rotated_path(&path, 1)).expect("read"),
            b"short\n"
        );
    }

    #[test]
    fn keeping_one_file_starts_it_over() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("framewright.log");
        let mut log = RotatingFile::open(&path, 100, 1).expect("open");
        for _ in 0..5 {
            log.write_all(LINE).expect("write");
        }
        assert_eq!(log_files(dir.path()), vec![path.clone()]);
        assert_eq!(std::fs::read(&path).expect("read"), LINE);
    }

    #[cfg(unix)]
    #[test]
    fn the_log_and_its_rotated_files_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("framewright.log");
        // An old log written before logs were private.
        std::fs::write(&path, b"old\n").expect("seed");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        let mut log = RotatingFile::open(&path, 200, 3).expect("open");
        for _ in 0..10 {
            log.write_all(LINE).expect("write");
        }
        let files = log_files(dir.path());
        assert_eq!(files.len(), 3);
        for file in files {
            let mode = std::fs::metadata(&file)
                .expect("metadata")
                .permissions()
                .mode()
                & 0o777;
            assert_eq!(mode, local_files::PRIVATE_FILE_MODE, "{}", file.display());
        }
    }
}
