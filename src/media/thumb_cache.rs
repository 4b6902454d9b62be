//! The thumbnail pipeline's disk cache: one file per (item, size), JPEG when the picture
//! is opaque (a 256-px thumbnail is ~10 KB instead of a ~90 KB PNG), lossless WebP only when
//! it has alpha (the waveforms of sounds: light bars on transparency).
//!
//! The folder is kept under a byte budget, least recently used first. The index of files
//! (size, last use) lives in memory: it is filled by a scan of the folder at start (on a
//! background thread, which also deletes files of older pipeline versions and leftover
//! temp files) and read again only after Settings' "Clear cache…" emptied it, a hit touches the file's mtime (so the order survives a restart), and
//! eviction runs at start, when a write takes the folder over budget and when the budget
//! changes — never per frame.

use super::decode::{DecodedImage, decode_image};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

/// Part of every cache file name: bump when decoding, scaling or the file format changes so
/// old files are ignored (and deleted by the start-up scan). 2: JPEG/WebP instead of PNG.
pub const PIPELINE_VERSION: u32 = 2;
/// The budget a fresh install starts with, in MB (10^6 bytes, as the Settings screen shows).
pub const DEFAULT_BUDGET_MB: u32 = 512;
pub const MIN_BUDGET_MB: u32 = 10;
pub const MAX_BUDGET_MB: u32 = 1_000_000;
/// JPEG quality of opaque thumbnails: no visible loss at tile size.
const JPEG_QUALITY: u8 = 87;
/// An eviction frees down to this share of the budget, so a full cache is not trimmed
/// (and its index sorted) on every single write.
const EVICT_TO_PERCENT: u64 = 90;
/// Temp files older than this are a crashed writer's and are deleted by the scan.
const STALE_TEMP_SECS: u64 = 10 * 60;

const EXTENSIONS: [&str; 2] = ["jpg", "webp"];

pub fn budget_bytes_of_mb(mb: u32) -> u64 {
    u64::from(mb) * 1_000_000
}

/// `<fnv64(item id)>-<size>-v<PIPELINE_VERSION>`: stable across builds, safe on disk; the
/// file adds `.jpg` or `.webp`.
pub fn cache_file_stem(item_id: &str, size_px: u32) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in item_id.as_bytes() {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}-{size_px}-v{PIPELINE_VERSION}")
}

struct Entry {
    bytes: u64,
    last_used: SystemTime,
}

#[derive(Default)]
struct Index {
    /// By file name.
    files: HashMap<String, Entry>,
    total_bytes: u64,
}

impl Index {
    fn insert(&mut self, name: String, bytes: u64, last_used: SystemTime) {
        if let Some(old) = self.files.insert(name, Entry { bytes, last_used }) {
            self.total_bytes -= old.bytes;
        }
        self.total_bytes += bytes;
    }

    fn remove(&mut self, name: &str) {
        if let Some(old) = self.files.remove(name) {
            self.total_bytes -= old.bytes;
        }
    }
}

/// The cache folder and its index (shared by the pipeline's workers).
pub struct DiskCache {
    dir: PathBuf,
    budget_bytes: AtomicU64,
    index: Mutex<Index>,
}

impl std::fmt::Debug for DiskCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DiskCache")
            .field("dir", &self.dir)
            .field("budget_bytes", &self.budget_bytes())
            .finish_non_exhaustive()
    }
}

impl DiskCache {
    /// Creates the folder; the index starts empty until [`DiskCache::scan`].
    pub fn open(dir: PathBuf, budget_bytes: u64) -> std::io::Result<Self> {
        std::fs::create_dir_all(&dir)?;
        Ok(DiskCache {
            dir,
            budget_bytes: AtomicU64::new(budget_bytes),
            index: Mutex::new(Index::default()),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Index> {
        // Plain data: a panic elsewhere leaves it usable.
        self.index.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn budget_bytes(&self) -> u64 {
        self.budget_bytes.load(Ordering::Relaxed)
    }

    /// Bytes of the cache files the index knows.
    pub fn total_bytes(&self) -> u64 {
        self.lock().total_bytes
    }

    /// A new budget; call [`DiskCache::evict`] (off the UI thread) to apply it at once.
    pub fn set_budget_bytes(&self, budget_bytes: u64) {
        self.budget_bytes.store(budget_bytes, Ordering::Relaxed);
    }

    /// Reads the folder: current files join the index (their mtime is their last use),
    /// files of older pipeline versions and stale temp files are deleted, and files the
    /// index knows but the folder no longer has (Settings' "Clear cache…" deleted them)
    /// leave it; then evicts. Runs at start and after the cache folder was cleared.
    pub fn scan(&self) {
        // A file written while the folder is read may be missing from the listing; only
        // entries used before the scan began are taken as gone.
        let scan_started = SystemTime::now();
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) => {
                tracing::debug!("thumbnail cache {} not scanned: {e}", self.dir.display());
                return;
            }
        };
        let mut found = Vec::new();
        let mut deleted = 0usize;
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Ok(meta) = entry.metadata() else { continue };
            if !meta.is_file() {
                continue;
            }
            let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            let delete = match FileKind::of(&name) {
                FileKind::Current => {
                    found.push((name, meta.len(), modified));
                    false
                }
                FileKind::OldVersion => true,
                FileKind::Temp => modified
                    .elapsed()
                    .is_ok_and(|age| age > Duration::from_secs(STALE_TEMP_SECS)),
                FileKind::Other => false,
            };
            if delete {
                match std::fs::remove_file(entry.path()) {
                    Ok(()) => deleted += 1,
                    Err(e) => {
                        tracing::debug!("old thumbnail {} not deleted: {e}", entry.path().display())
                    }
                }
            }
        }
        let files = found.len();
        let forgotten = {
            let mut index = self.lock();
            let on_disk: std::collections::HashSet<&str> =
                found.iter().map(|(name, _, _)| name.as_str()).collect();
            let gone: Vec<String> = index
                .files
                .iter()
                .filter(|(name, e)| e.last_used < scan_started && !on_disk.contains(name.as_str()))
                .map(|(name, _)| name.clone())
                .collect();
            for name in &gone {
                index.remove(name);
            }
            for (name, bytes, modified) in found {
                // A write or hit since start already knows better.
                if !index.files.contains_key(&name) {
                    index.insert(name, bytes, modified);
                }
            }
            gone.len()
        };
        tracing::debug!(
            files,
            deleted,
            forgotten,
            total_bytes = self.total_bytes(),
            "thumbnail cache scanned"
        );
        self.evict();
    }

    /// The cached thumbnail of `item_id` at `size_px`, decoded with the same limits as
    /// network data; a hit counts as a use. A damaged entry (truncated, garbage,
    /// unreadable) is deleted and `None` returned, so the caller fetches it again.
    pub fn read(&self, item_id: &str, size_px: u32) -> Option<DecodedImage> {
        let stem = cache_file_stem(item_id, size_px);
        for extension in EXTENSIONS {
            let name = format!("{stem}.{extension}");
            let path = self.dir.join(&name);
            let bytes = match std::fs::read(&path) {
                Ok(bytes) => bytes,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => {
                    self.drop_damaged(&name, &format!("unreadable: {e}"));
                    return None;
                }
            };
            return match decode_image(&bytes, size_px) {
                Ok(image) => {
                    self.touch(&name, bytes.len() as u64);
                    Some(image)
                }
                Err(e) => {
                    self.drop_damaged(&name, &e.to_string());
                    None
                }
            };
        }
        None
    }

    /// Stores a thumbnail (temp file beside the target, then rename: readers never see half
    /// a file), then evicts when this took the folder over budget.
    pub fn write(&self, item_id: &str, size_px: u32, image: &DecodedImage) -> Result<(), String> {
        let (bytes, extension) = encode(image)?;
        let name = format!("{}.{extension}", cache_file_stem(item_id, size_px));
        let path = self.dir.join(&name);
        let temp = self
            .dir
            .join(format!(".{name}.{}.tmp", uuid::Uuid::new_v4().simple()));
        let written = std::fs::write(&temp, &bytes)
            .and_then(|()| std::fs::rename(&temp, &path))
            .map_err(|e| e.to_string());
        if written.is_err() {
            let _ = std::fs::remove_file(&temp);
            return written;
        }
        let over = {
            let mut index = self.lock();
            index.insert(name, bytes.len() as u64, SystemTime::now());
            index.total_bytes > self.budget_bytes()
        };
        if over {
            self.evict();
        }
        Ok(())
    }

    /// Deletes least recently used files until the folder is within budget (down to
    /// `EVICT_TO_PERCENT` of it, so the next writes do not evict again at once).
    pub fn evict(&self) {
        let budget = self.budget_bytes();
        let victims = {
            let mut index = self.lock();
            if index.total_bytes <= budget {
                return;
            }
            let target = budget / 100 * EVICT_TO_PERCENT;
            let mut by_age: Vec<(SystemTime, String, u64)> = index
                .files
                .iter()
                .map(|(name, e)| (e.last_used, name.clone(), e.bytes))
                .collect();
            by_age.sort();
            let mut victims = Vec::new();
            for (_, name, _) in by_age {
                if index.total_bytes <= target {
                    break;
                }
                index.remove(&name);
                victims.push(name);
            }
            victims
        };
        for name in &victims {
            if let Err(e) = std::fs::remove_file(self.dir.join(name))
                && e.kind() != std::io::ErrorKind::NotFound
            {
                tracing::debug!("thumbnail {name} not evicted: {e}");
            }
        }
        tracing::debug!(
            evicted = victims.len(),
            budget_bytes = budget,
            "thumbnail cache trimmed"
        );
    }

    /// A hit: now is the file's last use, in the index and on disk (its mtime, which the
    /// next start's scan reads).
    fn touch(&self, name: &str, bytes: u64) {
        let now = SystemTime::now();
        self.lock().insert(name.to_owned(), bytes, now);
        let touched = std::fs::File::options()
            .write(true)
            .open(self.dir.join(name))
            .and_then(|file| file.set_modified(now));
        if let Err(e) = touched {
            tracing::debug!("thumbnail {name} not touched: {e}");
        }
    }

    fn drop_damaged(&self, name: &str, reason: &str) {
        let path = self.dir.join(name);
        tracing::info!(
            "thumbnail cache entry {} is damaged ({reason}); deleting it and fetching again",
            path.display()
        );
        self.lock().remove(name);
        let removed = match std::fs::metadata(&path) {
            Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(&path),
            _ => std::fs::remove_file(&path),
        };
        if let Err(e) = removed {
            tracing::info!("could not delete {}: {e}", path.display());
        }
    }
}

/// JPEG for an opaque picture, lossless WebP when any pixel is see-through.
fn encode(image: &DecodedImage) -> Result<(Vec<u8>, &'static str), String> {
    let expected = image.width as usize * image.height as usize * 4;
    if image.rgba.len() != expected || image.width == 0 || image.height == 0 {
        return Err("pixel buffer size mismatch".into());
    }
    let mut out = Vec::new();
    let opaque = image.rgba.chunks_exact(4).all(|px| px[3] == u8::MAX);
    if opaque {
        let rgb: Vec<u8> = image
            .rgba
            .chunks_exact(4)
            .flat_map(|px| [px[0], px[1], px[2]])
            .collect();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY)
            .encode(
                &rgb,
                image.width,
                image.height,
                image::ExtendedColorType::Rgb8,
            )
            .map_err(|e| e.to_string())?;
        Ok((out, "jpg"))
    } else {
        image::codecs::webp::WebPEncoder::new_lossless(&mut out)
            .encode(
                &image.rgba,
                image.width,
                image.height,
                image::ExtendedColorType::Rgba8,
            )
            .map_err(|e| e.to_string())?;
        Ok((out, "webp"))
    }
}

/// What a file in the cache folder is, by its name.
#[derive(Debug, PartialEq, Eq)]
enum FileKind {
    /// `<16 hex>-<size>-v<PIPELINE_VERSION>.jpg|webp`
    Current,
    /// The same pattern with another version or format (e.g. `-v1.png`).
    OldVersion,
    /// `.<name>.<uuid>.tmp`: a write in progress, or a crashed one.
    Temp,
    /// Not ours: left alone.
    Other,
}

impl FileKind {
    fn of(name: &str) -> FileKind {
        if name.starts_with('.') && name.ends_with(".tmp") {
            return FileKind::Temp;
        }
        let Some((stem, extension)) = name.rsplit_once('.') else {
            return FileKind::Other;
        };
        let mut parts = stem.split('-');
        let (Some(hash), Some(size), Some(version), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return FileKind::Other;
        };
        let ours = hash.len() == 16
            && hash.bytes().all(|b| b.is_ascii_hexdigit())
            && !size.is_empty()
            && size.bytes().all(|b| b.is_ascii_digit())
            && version
                .strip_prefix('v')
                .is_some_and(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()));
        if !ours {
            FileKind::Other
        } else if version == format!("v{PIPELINE_VERSION}") && EXTENSIONS.contains(&extension) {
            FileKind::Current
        } else {
            FileKind::OldVersion
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::ImageEncoder as _;

    fn picture(width: u32, height: u32, alpha: u8, seed: u32) -> DecodedImage {
        let rgba = (0..width * height)
            .flat_map(|i| {
                let v = i.wrapping_mul(2_654_435_761).wrapping_add(seed);
                [(v >> 8) as u8, (v >> 16) as u8, (v >> 24) as u8, alpha]
            })
            .collect();
        DecodedImage {
            width,
            height,
            rgba,
            source_width: width,
            source_height: height,
        }
    }

    fn files(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .expect("read dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn folder_bytes(dir: &Path) -> u64 {
        std::fs::read_dir(dir)
            .expect("read dir")
            .flatten()
            .map(|e| e.metadata().expect("meta").len())
            .sum()
    }

    #[test]
    fn an_opaque_thumbnail_is_stored_as_jpeg_and_a_transparent_one_keeps_its_alpha() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = DiskCache::open(dir.path().to_path_buf(), u64::MAX).expect("open");
        let opaque = picture(64, 40, 255, 1);
        cache.write("photo", 64, &opaque).expect("write");
        let jpeg = std::fs::read(
            dir.path()
                .join(format!("{}.jpg", cache_file_stem("photo", 64))),
        )
        .expect("a .jpg file");
        assert_eq!(&jpeg[..3], &[0xFF, 0xD8, 0xFF], "JPEG magic bytes");
        let back = cache.read("photo", 64).expect("reads back");
        assert_eq!((back.width, back.height), (64, 40));

        let mut transparent = picture(48, 48, 255, 2);
        for px in transparent.rgba.chunks_exact_mut(4).step_by(3) {
            px[3] = 0x40;
        }
        cache.write("waveform", 48, &transparent).expect("write");
        let webp = std::fs::read(
            dir.path()
                .join(format!("{}.webp", cache_file_stem("waveform", 48))),
        )
        .expect("a .webp file");
        assert_eq!((&webp[..4], &webp[8..12]), (&b"RIFF"[..], &b"WEBP"[..]));
        let back = cache.read("waveform", 48).expect("reads back");
        assert_eq!(back.rgba, transparent.rgba, "lossless, alpha kept");
    }

    #[test]
    fn a_seeded_library_thumbnail_takes_a_fraction_of_its_old_png_size() {
        // The sandbox's 256×160 seed thumbnail (~18 KB JPEG), as the grid asks for it.
        let source = include_bytes!("../../assets/sandbox-seed/still_0_thumb.jpg");
        let image = decode_image(source, 256).expect("decode");
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = DiskCache::open(dir.path().to_path_buf(), u64::MAX).expect("open");
        cache.write("seed", 256, &image).expect("write");
        let mut png = Vec::new();
        image::codecs::png::PngEncoder::new(&mut png)
            .write_image(
                &image.rgba,
                image.width,
                image.height,
                image::ExtendedColorType::Rgba8,
            )
            .expect("png");
        let jpeg = cache.total_bytes();
        println!(
            "seed thumbnail {}x{}: cache file {jpeg} bytes, PNG {} bytes, source {} bytes",
            image.width,
            image.height,
            png.len(),
            source.len()
        );
        assert!(jpeg * 3 < png.len() as u64, "{jpeg} vs PNG {}", png.len());
    }

    #[test]
    fn the_cache_stays_under_its_budget_least_recently_used_first() {
        let dir = tempfile::tempdir().expect("tempdir");
        let one = {
            let probe = DiskCache::open(dir.path().join("probe"), u64::MAX).expect("open");
            probe
                .write("probe", 64, &picture(64, 64, 255, 0))
                .expect("write");
            probe.total_bytes()
        };
        // Room for about five thumbnails.
        let budget = one * 5 + one / 2;
        let cache = DiskCache::open(dir.path().join("cache"), budget).expect("open");
        for n in 0..4 {
            cache
                .write(&format!("item-{n}"), 64, &picture(64, 64, 255, n))
                .expect("write");
        }
        // item-0 is the oldest write but was just looked at.
        assert!(cache.read("item-0", 64).is_some());
        for n in 4..7 {
            cache
                .write(&format!("item-{n}"), 64, &picture(64, 64, 255, n))
                .expect("write");
            assert!(
                folder_bytes(cache.dir()) <= budget,
                "over budget after item-{n}"
            );
        }
        assert_eq!(cache.total_bytes(), folder_bytes(cache.dir()));
        assert!(
            cache.read("item-0", 64).is_some(),
            "the recently used one stayed"
        );
        assert!(
            cache.read("item-1", 64).is_none(),
            "the least recently used went"
        );
        assert!(cache.read("item-6", 64).is_some(), "the newest stayed");

        // A smaller budget applies at once; the scan at the next start finds the same order.
        cache.set_budget_bytes(one * 2 + one / 2);
        cache.evict();
        assert!(folder_bytes(cache.dir()) <= one * 2 + one / 2);
        let again = DiskCache::open(cache.dir().to_path_buf(), one + one / 2).expect("open");
        again.scan();
        assert_eq!(again.total_bytes(), folder_bytes(again.dir()));
        assert_eq!(files(again.dir()).len(), 1);
        assert!(
            again.read("item-6", 64).is_some(),
            "the last one looked at stayed"
        );
    }

    #[test]
    fn a_scan_after_the_folder_was_cleared_forgets_the_deleted_files() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = DiskCache::open(dir.path().join("cache"), u64::MAX).expect("open");
        for n in 0..3 {
            cache
                .write(&format!("item-{n}"), 64, &picture(64, 64, 255, n))
                .expect("write");
        }
        assert!(cache.total_bytes() > 0);
        // Settings' "Clear cache…" deletes the files behind the index's back.
        for file in files(cache.dir()) {
            std::fs::remove_file(cache.dir().join(file)).expect("remove");
        }
        cache.scan();
        assert_eq!(cache.total_bytes(), 0, "nothing left is counted");
        // What is written afterwards is counted again, and only that.
        cache
            .write("item-new", 64, &picture(64, 64, 255, 9))
            .expect("write");
        assert_eq!(cache.total_bytes(), folder_bytes(cache.dir()));
        assert!(cache.read("item-0", 64).is_none());
        assert!(cache.read("item-new", 64).is_some());
    }

    #[test]
    fn the_start_up_scan_deletes_old_format_files_and_stale_temps_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = DiskCache::open(dir.path().to_path_buf(), u64::MAX).expect("open");
        cache
            .write("kept", 32, &picture(32, 32, 255, 3))
            .expect("write");
        let old_png = "00112233445566ff-256-v1.png";
        std::fs::write(dir.path().join(old_png), b"old").expect("write");
        let stale_temp = ".00112233445566ff-256-v2.jpg.abc.tmp";
        std::fs::write(dir.path().join(stale_temp), b"half").expect("write");
        let long_ago = SystemTime::now() - Duration::from_secs(STALE_TEMP_SECS * 2);
        std::fs::File::options()
            .write(true)
            .open(dir.path().join(stale_temp))
            .and_then(|f| f.set_modified(long_ago))
            .expect("age the temp file");
        std::fs::write(dir.path().join("notes.txt"), b"not ours").expect("write");

        let restarted = DiskCache::open(dir.path().to_path_buf(), u64::MAX).expect("open");
        restarted.scan();
        let names = files(dir.path());
        assert!(!names.contains(&old_png.to_owned()), "{names:?}");
        assert!(!names.contains(&stale_temp.to_owned()), "{names:?}");
        assert!(names.contains(&"notes.txt".to_owned()), "{names:?}");
        assert!(restarted.read("kept", 32).is_some());
    }

    #[test]
    fn a_damaged_entry_is_deleted_so_it_is_fetched_again() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = DiskCache::open(dir.path().to_path_buf(), u64::MAX).expect("open");
        let path = dir
            .path()
            .join(format!("{}.jpg", cache_file_stem("item", 64)));
        cache
            .write("item", 64, &picture(24, 16, 255, 4))
            .expect("write");
        let whole = std::fs::read(&path).expect("read");
        for bytes in [
            whole[..whole.len() / 3].to_vec(),
            b"not a picture at all".to_vec(),
            Vec::new(),
        ] {
            std::fs::write(&path, &bytes).expect("damage the entry");
            assert!(cache.read("item", 64).is_none());
            assert!(!path.exists(), "the damaged entry is gone");
        }
        // A folder where the file should be is cleared away too.
        std::fs::create_dir_all(path.join("x")).expect("mkdir");
        assert!(cache.read("item", 64).is_none());
        assert!(!path.exists());
        cache
            .write("item", 64, &picture(24, 16, 255, 4))
            .expect("write again");
        assert!(cache.read("item", 64).is_some());
        assert_eq!(cache.total_bytes(), folder_bytes(dir.path()));
    }

    #[test]
    fn file_names_carry_size_and_version() {
        let stem = cache_file_stem("65f0c0ffee", 256);
        assert!(
            stem.ends_with(&format!("-256-v{PIPELINE_VERSION}")),
            "{stem}"
        );
        assert_ne!(stem, cache_file_stem("65f0c0ffef", 256));
        assert_eq!(FileKind::of(&format!("{stem}.jpg")), FileKind::Current);
        assert_eq!(FileKind::of(&format!("{stem}.png")), FileKind::OldVersion);
        assert_eq!(
            FileKind::of("0123456789abcdef-256-v1.png"),
            FileKind::OldVersion
        );
        assert_eq!(FileKind::of("holiday.jpg"), FileKind::Other);
    }
}
