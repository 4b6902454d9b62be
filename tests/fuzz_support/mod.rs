//! A small seeded mutation fuzzer that runs as ordinary tests on stable Rust.
//!
//! Each test has its own seed (from its name, or `FUZZ_SEED`); case `n` draws its
//! mutations from a generator seeded by `(seed, n)` alone, so any case replays on its own:
//! `FUZZ_SEED=<seed> FUZZ_CASE=<n> cargo test --test fuzz <test>`. `FUZZ_CASES` changes
//! how many cases run. Every case runs under `catch_unwind`; a panic is reported with the
//! seed, the case number and the input (also written under `target/fuzz-failures/`), and
//! the run goes on so one report lists every failing case. A case that stops making
//! progress for `HANG_SECS` is reported as a hang with its number.

#![allow(dead_code)]

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A case making no progress for this long is a hang (a decoder loop that never ends).
pub const HANG_SECS: u64 = 60;
/// Failing cases listed in the report at most.
const MAX_REPORTED: usize = 20;

/// Bytes worth setting: boundaries, and the JPEG markers a decoder switches on.
pub const INTERESTING_BYTES: &[u8] = &[
    0x00, 0x01, 0x7F, 0x80, 0xFF, 0xFE, 0x10, 0x40, 0xD8, 0xC0, 0xC2, 0xC4, 0xDA, 0xD9, 0xDB, 0xDD,
    0xD0, 0xE0, 0xEE,
];

/// Two-byte sequences worth inserting or writing: JPEG markers and 16-bit extremes.
const INTERESTING_PAIRS: &[[u8; 2]] = &[
    [0xFF, 0xD8],
    [0xFF, 0xC0],
    [0xFF, 0xC2],
    [0xFF, 0xC4],
    [0xFF, 0xDA],
    [0xFF, 0xD9],
    [0xFF, 0xDB],
    [0xFF, 0xDD],
    [0xFF, 0xD0],
    [0xFF, 0x00],
    [0x00, 0x00],
    [0xFF, 0xFF],
    [0x7F, 0xFF],
    [0x80, 0x00],
];

/// xorshift64* seeded through splitmix64: deterministic, fast, no dependency.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Rng((z ^ (z >> 31)) | 1)
    }

    /// The generator of case `case` of a run seeded with `seed`.
    pub fn for_case(seed: u64, case: u64) -> Rng {
        Rng::new(seed ^ case.wrapping_mul(0xD1B5_4A32_D192_ED03))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// True with probability `1 / n`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// An offset biased towards the start, where headers live.
    fn offset(&mut self, len: usize) -> usize {
        if len == 0 {
            return 0;
        }
        if self.one_in(2) {
            self.below(len.min(512))
        } else {
            self.below(len)
        }
    }
}

/// One to four stacked byte-level mutations of `input`; `others` are splice partners.
pub fn mutate(rng: &mut Rng, input: &[u8], others: &[Vec<u8>]) -> Vec<u8> {
    let mut data = input.to_vec();
    let rounds = 1 + rng.below(4);
    for _ in 0..rounds {
        mutate_once(rng, &mut data, others);
    }
    data
}

fn mutate_once(rng: &mut Rng, data: &mut Vec<u8>, others: &[Vec<u8>]) {
    let len = data.len();
    match rng.below(10) {
        // Bit flip.
        0 if len > 0 => {
            let at = rng.offset(len);
            data[at] ^= 1 << rng.below(8);
        }
        // Byte set to an interesting value.
        1 if len > 0 => {
            let at = rng.offset(len);
            data[at] = *rng.pick(INTERESTING_BYTES);
        }
        // Random byte.
        2 if len > 0 => {
            let at = rng.offset(len);
            data[at] = rng.next_u64() as u8;
        }
        // Two bytes overwritten with a marker or a 16-bit extreme (lengths, sizes).
        3 if len > 1 => {
            let at = rng.offset(len - 1);
            let pair: [u8; 2] = *rng.pick(INTERESTING_PAIRS);
            data[at..at + 2].copy_from_slice(&pair);
        }
        // Insert a few bytes (random or a marker).
        4 => {
            let at = rng.offset(len + 1);
            let bytes: Vec<u8> = if rng.one_in(2) {
                let pair: [u8; 2] = *rng.pick(INTERESTING_PAIRS);
                pair.to_vec()
            } else {
                (0..1 + rng.below(16))
                    .map(|_| rng.next_u64() as u8)
                    .collect()
            };
            data.splice(at..at, bytes);
        }
        // Delete a range.
        5 if len > 0 => {
            let at = rng.offset(len);
            let count = 1 + rng.below((len - at).min(64));
            data.drain(at..at + count);
        }
        // Truncate.
        6 if len > 0 => data.truncate(rng.below(len)),
        // Duplicate a chunk somewhere else.
        7 if len > 0 => {
            let from = rng.below(len);
            let count = 1 + rng.below((len - from).min(256));
            let chunk = data[from..from + count].to_vec();
            let at = rng.offset(len + 1);
            data.splice(at..at, chunk);
        }
        // Splice: our head, another input's tail.
        8 if !others.is_empty() => {
            let other = rng.pick(others);
            let cut = rng.below(len + 1);
            let other_cut = rng.below(other.len() + 1);
            data.truncate(cut);
            data.extend_from_slice(&other[other_cut..]);
        }
        // Arithmetic on a byte (lengths and counts off by a little).
        _ if len > 0 => {
            let at = rng.offset(len);
            let delta = rng.below(33) as u8;
            data[at] = if rng.one_in(2) {
                data[at].wrapping_add(delta)
            } else {
                data[at].wrapping_sub(delta)
            };
        }
        _ => data.push(rng.next_u64() as u8),
    }
}

/// The seed of a test: `FUZZ_SEED` if set, else a hash of the test's name (stable).
pub fn seed_for(test_name: &str) -> u64 {
    if let Some(seed) = std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|s| s.trim().parse().ok())
    {
        return seed;
    }
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in test_name.as_bytes() {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// Cases to run: `FUZZ_CASES` if set, else `default`.
pub fn case_count(default: u64) -> u64 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(default)
}

/// A case's input, as saved beside a failure report.
pub trait FuzzInput {
    fn to_bytes(&self) -> Vec<u8>;
}

impl FuzzInput for Vec<u8> {
    fn to_bytes(&self) -> Vec<u8> {
        self.clone()
    }
}

/// One failing case.
struct Failure {
    case: u64,
    message: String,
    saved_to: Option<PathBuf>,
}

/// Run `cases` cases of `test_name` (or only `FUZZ_CASE`). Case `n` builds its input with
/// `make` from its own generator, then `check` runs on it under `catch_unwind`; a panic or
/// an `Err` is a failure.
pub fn run<T, M, C>(test_name: &str, cases: u64, make: M, check: C)
where
    T: FuzzInput,
    M: Fn(&mut Rng) -> T + Send + 'static,
    C: Fn(&T) -> Result<(), String> + Send + 'static,
{
    let seed = seed_for(test_name);
    let cases: Vec<u64> = match std::env::var("FUZZ_CASE")
        .ok()
        .and_then(|s| s.trim().parse().ok())
    {
        Some(only) => vec![only],
        None => (0..case_count(cases)).collect(),
    };
    let progress = Arc::new(AtomicU64::new(0));
    let current = Arc::new(AtomicU64::new(u64::MAX));
    let (done_tx, done_rx) = std::sync::mpsc::sync_channel(1);
    let name = test_name.to_owned();
    let worker = {
        let (progress, current) = (progress.clone(), current.clone());
        std::thread::Builder::new()
            .name(format!("fuzz-{test_name}"))
            .spawn(move || {
                let mut failures = Vec::new();
                let mut total = 0usize;
                for &case in &cases {
                    current.store(case, Ordering::Relaxed);
                    let input = make(&mut Rng::for_case(seed, case));
                    let outcome = match catch_unwind(AssertUnwindSafe(|| check(&input))) {
                        Ok(outcome) => outcome,
                        Err(payload) => Err(panic_text(payload.as_ref())),
                    };
                    if let Err(message) = outcome {
                        total += 1;
                        if failures.len() < MAX_REPORTED {
                            failures.push(Failure {
                                case,
                                message,
                                saved_to: save_input(&name, seed, case, &input.to_bytes()),
                            });
                        }
                    }
                    progress.fetch_add(1, Ordering::Relaxed);
                }
                let _ = done_tx.send((failures, total));
            })
            .expect("spawn fuzz worker")
    };
    let mut last_progress = 0;
    let (failures, total) = loop {
        match done_rx.recv_timeout(Duration::from_secs(HANG_SECS)) {
            Ok(report) => break report,
            Err(_) => {
                let now = progress.load(Ordering::Relaxed);
                let case = current.load(Ordering::Relaxed);
                assert!(
                    now != last_progress,
                    "{test_name}: FUZZ_SEED={seed} FUZZ_CASE={case} made no progress for \
                     {HANG_SECS} s: a hang"
                );
                last_progress = now;
            }
        }
    };
    let _ = worker.join();
    if total > 0 {
        let mut report = format!("{test_name}: {total} failing case(s), seed {seed}\n");
        for failure in &failures {
            report += &format!(
                "  FUZZ_SEED={seed} FUZZ_CASE={}: {}{}\n",
                failure.case,
                failure.message,
                failure
                    .saved_to
                    .as_ref()
                    .map(|p| format!(" (input saved to {})", p.display()))
                    .unwrap_or_default()
            );
        }
        panic!("{report}");
    }
}

fn save_input(test_name: &str, seed: u64, case: u64, input: &[u8]) -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-failures");
    std::fs::create_dir_all(&dir).ok()?;
    let path = dir.join(format!("{test_name}-{seed}-{case}.bin"));
    std::fs::write(&path, input).ok()?;
    Some(path)
}

/// The text of a panic payload.
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        format!("panicked: {text}")
    } else if let Some(text) = payload.downcast_ref::<String>() {
        format!("panicked: {text}")
    } else {
        "panicked".to_owned()
    }
}

/// Read a fixture under `../shared/fixtures/`.
pub fn fixture(relative: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/fixtures")
        .join(relative);
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Strings that break naive text handling: empty, long, control characters, unicode
/// outside the BMP, right-to-left, combining marks, look-alike numbers and escapes.
const AWKWARD_STRINGS: &[&str] = &[
    "",
    " ",
    "\u{0}",
    "null",
    "-1",
    "1e309",
    "NaN",
    "0x10",
    "🎞️👩‍🎨",
    "\u{202E}gnp.exe",
    "e\u{301}\u{301}\u{301}",
    "\u{FEFF}",
    "../../etc/passwd",
    "%00%ff",
    "<script>",
    "\"'\\",
];

/// Numbers at and beyond every boundary a reader may convert to.
fn awkward_number(rng: &mut Rng) -> serde_json::Value {
    use serde_json::json;
    match rng.below(12) {
        0 => json!(u64::MAX),
        1 => json!(i64::MIN),
        2 => json!(-1),
        3 => json!(0),
        4 => json!(1.5),
        5 => json!(f64::MAX),
        6 => json!(-f64::MAX),
        7 => json!(f64::MIN_POSITIVE),
        8 => json!(u64::from(u32::MAX) + 1),
        9 => json!(-0.0),
        10 => json!(4_294_967_295u32),
        _ => json!(rng.next_u64() as i64),
    }
}

/// A random value of any JSON type, shallow.
pub fn random_value(rng: &mut Rng) -> serde_json::Value {
    use serde_json::{Value, json};
    match rng.below(8) {
        0 => Value::Null,
        1 => Value::Bool(rng.one_in(2)),
        2 => awkward_number(rng),
        3 => json!(*rng.pick(AWKWARD_STRINGS)),
        4 => json!("x".repeat(1 + rng.below(5000))),
        5 => json!([]),
        6 => json!({}),
        _ => json!([random_leaf(rng), random_leaf(rng)]),
    }
}

fn random_leaf(rng: &mut Rng) -> serde_json::Value {
    match rng.below(4) {
        0 => serde_json::Value::Null,
        1 => awkward_number(rng),
        2 => serde_json::json!(*rng.pick(AWKWARD_STRINGS)),
        _ => serde_json::Value::Bool(rng.one_in(2)),
    }
}

/// Every node of `value` as a path of steps (object key or array index).
fn node_paths(value: &serde_json::Value, prefix: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(prefix.clone());
    match value {
        serde_json::Value::Object(map) => {
            for (key, child) in map {
                prefix.push(Step::Key(key.clone()));
                node_paths(child, prefix, out);
                prefix.pop();
            }
        }
        serde_json::Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                prefix.push(Step::Index(index));
                node_paths(child, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

fn node_at<'a>(value: &'a mut serde_json::Value, path: &[Step]) -> &'a mut serde_json::Value {
    path.iter().fold(value, |node, step| match step {
        Step::Key(key) => &mut node[key.as_str()],
        Step::Index(index) => &mut node[*index],
    })
}

/// One to three structural mutations of a JSON document: a node replaced by another type,
/// null, an awkward number or string; a key removed or added; an array emptied or grown;
/// a node wrapped in deep nesting.
pub fn mutate_json(rng: &mut Rng, input: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    let mut value = input.clone();
    for _ in 0..1 + rng.below(3) {
        let mut paths = Vec::new();
        node_paths(&value, &mut Vec::new(), &mut paths);
        let path = rng.pick(&paths).clone();
        let node = node_at(&mut value, &path);
        match rng.below(8) {
            0 => *node = Value::Null,
            1 | 2 => *node = random_value(rng),
            3 => {
                // Deep nesting: past serde_json's recursion limit or just under it.
                let depth = if rng.one_in(2) { 200 } else { 100 };
                let mut nested = node.take();
                for _ in 0..depth {
                    nested = if rng.one_in(2) {
                        Value::Array(vec![nested])
                    } else {
                        serde_json::json!({ "a": nested })
                    };
                }
                *node = nested;
            }
            4 => match node {
                Value::Object(map) if !map.is_empty() => {
                    let key = map.keys().nth(rng.below(map.len())).cloned();
                    if let Some(key) = key {
                        map.remove(&key);
                    }
                }
                Value::Array(items) => items.clear(),
                other => *other = Value::Array(vec![other.take()]),
            },
            5 => match node {
                Value::Object(map) => {
                    let key = rng.pick(AWKWARD_STRINGS).to_string();
                    map.insert(key, random_value(rng));
                }
                Value::Array(items) => {
                    let copy = items.first().cloned().unwrap_or_else(|| random_value(rng));
                    for _ in 0..1 + rng.below(50) {
                        items.push(copy.clone());
                    }
                }
                other => *other = Value::String(other.to_string()),
            },
            // A number as a string and a string as a number, the commonest wire drift.
            6 => match node {
                Value::Number(n) => *node = Value::String(n.to_string()),
                Value::String(text) => {
                    *node = text
                        .parse::<f64>()
                        .ok()
                        .and_then(|n| serde_json::Number::from_f64(n).map(Value::Number))
                        .unwrap_or_else(|| awkward_number(rng))
                }
                Value::Bool(b) => *node = Value::String(b.to_string()),
                other => *other = random_value(rng),
            },
            _ => *node = random_leaf(rng),
        }
    }
    value
}
