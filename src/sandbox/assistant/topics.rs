//! Which language and which task a prompt is about (keywords), and the advice and code the
//! assistant gives for each pair. Everything here is a fixed table: the answers must be
//! deterministic so tests (and the streaming/synchronous comparison) can rely on them.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Language {
    Rust,
    Python,
    JavaScript,
    Sql,
    Shell,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Task {
    Files,
    Http,
    Json,
    Testing,
    Collections,
    General,
}

/// Keywords per language, checked in this order; the first language with a hit wins.
const LANGUAGE_KEYWORDS: &[(Language, &[&str])] = &[
    (
        Language::Rust,
        &[
            "rust", "cargo", "crate", "crates", "tokio", "serde", "rs", "borrow", "lifetime",
            "clippy", "rustc",
        ],
    ),
    (
        Language::Python,
        &[
            "python", "py", "pip", "django", "flask", "pandas", "numpy", "pytest", "venv",
            "fastapi",
        ],
    ),
    (
        Language::JavaScript,
        &[
            "javascript",
            "js",
            "typescript",
            "ts",
            "node",
            "nodejs",
            "react",
            "npm",
            "deno",
            "vue",
            "jsx",
            "tsx",
        ],
    ),
    (
        Language::Sql,
        &[
            "sql",
            "postgres",
            "postgresql",
            "sqlite",
            "mysql",
            "query",
            "queries",
            "select",
            "join",
            "database",
            "index",
        ],
    ),
    (
        Language::Shell,
        &[
            "bash", "shell", "sh", "zsh", "terminal", "grep", "sed", "awk", "curl", "cli",
            "command", "script",
        ],
    ),
];

const TASK_KEYWORDS: &[(Task, &[&str])] = &[
    (Task::Json, &["json", "serialize", "deserialize", "serde"]),
    (
        Task::Http,
        &[
            "http", "https", "request", "requests", "api", "fetch", "download", "url", "endpoint",
            "rest", "curl",
        ],
    ),
    (
        Task::Files,
        &[
            "file",
            "files",
            "read",
            "write",
            "lines",
            "csv",
            "directory",
            "folder",
            "path",
        ],
    ),
    (
        Task::Testing,
        &[
            "test", "tests", "testing", "assert", "unit", "pytest", "mock",
        ],
    ),
    (
        Task::Collections,
        &[
            "sort",
            "sorting",
            "list",
            "array",
            "vec",
            "vector",
            "dedup",
            "duplicates",
            "group",
            "count",
            "map",
            "dictionary",
            "filter",
        ],
    ),
];

/// The prompt's words, lower case (letters, digits and `+`/`#` so "c++" stays a word).
pub(super) fn words(prompt: &str) -> Vec<String> {
    prompt
        .split(|c: char| !(c.is_alphanumeric() || c == '+' || c == '#'))
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn has_any(words: &[String], keywords: &[&str]) -> bool {
    words.iter().any(|word| keywords.contains(&word.as_str()))
}

pub(super) fn language_of(words: &[String]) -> Option<Language> {
    LANGUAGE_KEYWORDS
        .iter()
        .find(|(_, keywords)| has_any(words, keywords))
        .map(|(language, _)| *language)
}

pub(super) fn task_of(words: &[String]) -> Task {
    TASK_KEYWORDS
        .iter()
        .find(|(_, keywords)| has_any(words, keywords))
        .map_or(Task::General, |(task, _)| *task)
}

impl Language {
    pub(super) fn display_name(self) -> &'static str {
        match self {
            Language::Rust => "Rust",
            Language::Python => "Python",
            Language::JavaScript => "JavaScript",
            Language::Sql => "SQL",
            Language::Shell => "the shell",
        }
    }

    /// The fence's info string.
    pub(super) fn fence_tag(self) -> &'static str {
        match self {
            Language::Rust => "rust",
            Language::Python => "python",
            Language::JavaScript => "javascript",
            Language::Sql => "sql",
            Language::Shell => "bash",
        }
    }

    /// One sentence on why the language shapes the solution.
    pub(super) fn remark(self) -> &'static str {
        match self {
            Language::Rust => {
                "Rust makes the failure paths explicit: return a `Result`, use `?` to pass errors up, and let the type system tell you what is left to handle."
            }
            Language::Python => {
                "In Python the standard library already covers most of this, so the goal is short, readable code with context managers and clear exceptions."
            }
            Language::JavaScript => {
                "In modern JavaScript the natural shape is an `async` function with `await`, so errors surface as rejected promises you can catch in one place."
            }
            Language::Sql => {
                "In SQL, describe the result you want and let the planner choose how to get it; the indexes you provide decide whether that is fast."
            }
            Language::Shell => {
                "In the shell, small tools joined by pipes do most of the work; strict mode (`set -euo pipefail`) keeps a failing step from going unnoticed."
            }
        }
    }

    /// A language-specific tip added to the task's points.
    pub(super) fn tip(self) -> &'static str {
        match self {
            Language::Rust => {
                "Run `cargo clippy` and `cargo test` before committing; both catch mistakes the compiler lets through."
            }
            Language::Python => {
                "Add type hints and run `mypy` or `pyright`; they find wrong assumptions before your users do."
            }
            Language::JavaScript => {
                "Prefer `const`, and turn on TypeScript's `strict` mode if you can; most runtime surprises become compile errors."
            }
            Language::Sql => {
                "Check the plan with `EXPLAIN` (or `EXPLAIN QUERY PLAN` in SQLite) before and after adding an index."
            }
            Language::Shell => {
                "Quote every variable (`\"$file\"`) so names with spaces do not split into several arguments."
            }
        }
    }
}

impl Task {
    /// Three points that hold whatever the language.
    pub(super) fn points(self) -> [&'static str; 3] {
        match self {
            Task::Files => [
                "Stream large files line by line instead of reading them into memory at once.",
                "Treat a missing file and a permission error differently: the first is often expected, the second never is.",
                "Write to a temporary file and rename it, so a crash never leaves a half-written result.",
            ],
            Task::Http => [
                "Set a timeout on every request; the default is often to wait forever.",
                "Check the status code before reading the body, and keep the error body for the message you show.",
                "Retry only idempotent requests (GET, PUT), with back-off, and never retry a request that is billed.",
            ],
            Task::Json => [
                "Decode into a typed structure rather than walking a generic value by hand.",
                "Be tolerant on input (unknown fields, missing optional ones) and strict on output.",
                "Keep the field names of the wire format in one place so a rename is a one-line change.",
            ],
            Task::Testing => [
                "Test behaviour someone relies on, not the implementation details.",
                "Keep each test independent: its own data, no order between tests.",
                "Name tests after the rule they check, so a failure explains itself.",
            ],
            Task::Collections => [
                "Pick the structure by the question you ask most: a map for lookups, a sorted list for ranges.",
                "Sort with an explicit key and a stable sort, so equal items keep their order.",
                "Prefer iterators and comprehensions over index loops; they state the intent and avoid off-by-one errors.",
            ],
            Task::General => [
                "Start with the smallest version that works end to end, then improve it.",
                "Handle errors where you can do something about them, and report the rest once, in plain words.",
                "Write a test for the case that made you ask, so it stays fixed.",
            ],
        }
    }

    pub(super) fn focus(self) -> &'static str {
        match self {
            Task::Files => "reading and writing files safely",
            Task::Http => "making HTTP requests robustly",
            Task::Json => "working with JSON",
            Task::Testing => "testing it",
            Task::Collections => "organising the data",
            Task::General => "a clean, idiomatic structure",
        }
    }
}

/// The example for a language and task; tasks without a specific example get the
/// language's general one.
pub(super) fn snippet(language: Language, task: Task) -> &'static str {
    match (language, task) {
        (Language::Rust, Task::Files) => RUST_FILES,
        (Language::Rust, Task::Http) => RUST_HTTP,
        (Language::Rust, Task::Json) => RUST_JSON,
        (Language::Rust, Task::Testing) => RUST_TEST,
        (Language::Rust, Task::Collections) => RUST_COLLECTIONS,
        (Language::Rust, Task::General) => RUST_GENERAL,
        (Language::Python, Task::Files) => PYTHON_FILES,
        (Language::Python, Task::Http) => PYTHON_HTTP,
        (Language::Python, Task::Json) => PYTHON_JSON,
        (Language::Python, Task::Testing) => PYTHON_TEST,
        (Language::Python, Task::Collections) => PYTHON_COLLECTIONS,
        (Language::Python, Task::General) => PYTHON_GENERAL,
        (Language::JavaScript, Task::Files) => JS_FILES,
        (Language::JavaScript, Task::Http | Task::Json) => JS_HTTP,
        (Language::JavaScript, Task::Testing) => JS_TEST,
        (Language::JavaScript, Task::Collections) => JS_COLLECTIONS,
        (Language::JavaScript, Task::General) => JS_GENERAL,
        (Language::Sql, Task::Collections) => SQL_GROUPING,
        (Language::Sql, Task::Testing) => SQL_CHECKS,
        (Language::Sql, _) => SQL_GENERAL,
        (Language::Shell, Task::Http) => SHELL_HTTP,
        (Language::Shell, Task::Json) => SHELL_JSON,
        (Language::Shell, _) => SHELL_FILES,
    }
}

const RUST_FILES: &str = r#"use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

/// Counts the non-empty lines of a text file without loading it whole.
fn count_lines(path: &Path) -> io::Result<usize> {
    let reader = BufReader::new(File::open(path)?);
    let mut count = 0;
    for line in reader.lines() {
        if !line?.trim().is_empty() {
            count += 1;
        }
    }
    Ok(count)
}"#;

const RUST_HTTP: &str = r#"use std::time::Duration;

async fn fetch_text(url: &str) -> Result<String, reqwest::Error> {
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()?;
    let response = client.get(url).send().await?.error_for_status()?;
    response.text().await
}"#;

const RUST_JSON: &str = r#"use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize)]
struct Settings {
    name: String,
    #[serde(default)]
    retries: u32,
}

fn parse_settings(text: &str) -> Result<Settings, serde_json::Error> {
    serde_json::from_str(text)
}"#;

const RUST_TEST: &str = r#"fn slugify(title: &str) -> String {
    title
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join("-")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn punctuation_and_case_disappear() {
        assert_eq!(slugify("Hello, World!"), "hello-world");
    }
}"#;

const RUST_COLLECTIONS: &str = r#"use std::collections::BTreeMap;

#[derive(Debug, Clone)]
struct User {
    name: String,
    age: u32,
}

/// Oldest first; users of the same age keep their order (`sort_by` is stable).
fn by_age(mut users: Vec<User>) -> Vec<User> {
    users.sort_by(|a, b| b.age.cmp(&a.age));
    users
}

/// How many users there are of each age, youngest first.
fn count_by_age(users: &[User]) -> BTreeMap<u32, usize> {
    let mut counts = BTreeMap::new();
    for user in users {
        *counts.entry(user.age).or_default() += 1;
    }
    counts
}"#;

const RUST_GENERAL: &str = r#"#[derive(Debug, thiserror::Error)]
enum ConfigError {
    #[error("could not read {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("port must be a number, got {0:?}")]
    BadPort(String),
}

fn read_port(path: &str) -> Result<u16, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_owned(),
        source,
    })?;
    let value = text.trim();
    value.parse().map_err(|_| ConfigError::BadPort(value.to_owned()))
}"#;

const PYTHON_FILES: &str = r#"from pathlib import Path


def count_lines(path: Path) -> int:
    """Counts the non-empty lines of a text file without loading it whole."""
    count = 0
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                count += 1
    return count"#;

const PYTHON_HTTP: &str = r#"import json
import urllib.request


def fetch_json(url: str, timeout_secs: float = 20.0) -> dict:
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout_secs) as response:
        return json.load(response)"#;

const PYTHON_JSON: &str = r#"import json
from dataclasses import dataclass


@dataclass
class Settings:
    name: str
    retries: int = 0


def parse_settings(text: str) -> Settings:
    data = json.loads(text)
    return Settings(name=data["name"], retries=int(data.get("retries", 0)))"#;

const PYTHON_TEST: &str = r#"import re

import pytest


def slugify(title: str) -> str:
    return "-".join(word.lower() for word in re.split(r"\W+", title) if word)


@pytest.mark.parametrize("title, slug", [("Hello, World!", "hello-world"), ("  ", "")])
def test_punctuation_and_case_disappear(title, slug):
    assert slugify(title) == slug"#;

const PYTHON_COLLECTIONS: &str = r#"from collections import Counter
from dataclasses import dataclass


@dataclass
class User:
    name: str
    age: int


def by_age(users: list[User]) -> list[User]:
    """Oldest first; users of the same age keep their order (sorted is stable)."""
    return sorted(users, key=lambda user: user.age, reverse=True)


def count_by_age(users: list[User]) -> dict[int, int]:
    return dict(sorted(Counter(user.age for user in users).items()))"#;

const PYTHON_GENERAL: &str = r#"import logging

logger = logging.getLogger(__name__)


def read_port(path: str, default: int = 8080) -> int:
    try:
        with open(path, encoding="utf-8") as handle:
            return int(handle.read().strip())
    except FileNotFoundError:
        return default
    except ValueError as error:
        logger.error("port in %s is not a number: %s", path, error)
        raise"#;

const JS_FILES: &str = r#"import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";

// Counts the non-empty lines of a text file without loading it whole.
export async function countLines(path) {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  let count = 0;
  for await (const line of lines) {
    if (line.trim() !== "") count += 1;
  }
  return count;
}"#;

const JS_HTTP: &str = r#"export async function fetchJson(url, { timeoutMs = 20_000 } = {}) {
  const response = await fetch(url, {
    headers: { Accept: "application/json" },
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!response.ok) {
    throw new Error(`GET ${url} failed: ${response.status} ${await response.text()}`);
  }
  return response.json();
}"#;

const JS_TEST: &str = r#"import { test } from "node:test";
import assert from "node:assert/strict";

export function slugify(title) {
  return title.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean).join("-");
}

test("punctuation and case disappear", () => {
  assert.equal(slugify("Hello, World!"), "hello-world");
});"#;

const JS_COLLECTIONS: &str = r#"// Oldest first; users of the same age keep their order (Array.prototype.sort is stable).
export function byAge(users) {
  return [...users].sort((a, b) => b.age - a.age);
}

// How many users there are of each age.
export function countByAge(users) {
  const counts = new Map();
  for (const { age } of users) {
    counts.set(age, (counts.get(age) ?? 0) + 1);
  }
  return counts;
}"#;

const JS_GENERAL: &str = r#"export async function loadSettings(readText, path) {
  try {
    const settings = JSON.parse(await readText(path));
    return { retries: 0, ...settings };
  } catch (error) {
    throw new Error(`Could not load settings from ${path}`, { cause: error });
  }
}"#;

const SQL_GENERAL: &str = r#"-- Orders of the last 30 days with their customer, newest first.
SELECT o.id, o.created_at, c.name AS customer, o.total
FROM orders AS o
JOIN customers AS c ON c.id = o.customer_id
WHERE o.created_at >= CURRENT_DATE - INTERVAL '30 days'
ORDER BY o.created_at DESC
LIMIT 50;

CREATE INDEX IF NOT EXISTS orders_created_at ON orders (created_at);"#;

const SQL_GROUPING: &str = r#"-- Customers by number of orders, most active first.
SELECT c.name, COUNT(o.id) AS orders, SUM(o.total) AS spent
FROM customers AS c
LEFT JOIN orders AS o ON o.customer_id = c.id
GROUP BY c.id, c.name
HAVING COUNT(o.id) > 0
ORDER BY orders DESC, c.name;"#;

const SQL_CHECKS: &str = r#"-- Data checks that should all return zero rows.
SELECT id FROM orders WHERE total < 0;

SELECT o.id
FROM orders AS o
LEFT JOIN customers AS c ON c.id = o.customer_id
WHERE c.id IS NULL;"#;

const SHELL_FILES: &str = r#"#!/usr/bin/env bash
set -euo pipefail

# Lists the 10 largest files below a directory (default: the current one).
dir="${1:-.}"
find "$dir" -type f -printf '%s\t%p\n' \
  | sort -rn \
  | head -n 10 \
  | awk -F'\t' '{ printf "%8.1f MB  %s\n", $1 / 1048576, $2 }'"#;

const SHELL_HTTP: &str = r#"#!/usr/bin/env bash
set -euo pipefail

url="$1"
# --fail turns HTTP errors into a non-zero exit; --max-time bounds the wait.
curl --fail --silent --show-error --max-time 20 \
  --retry 3 --retry-delay 2 \
  -H 'Accept: application/json' \
  "$url" -o response.json
echo "saved $(wc -c < response.json) bytes"
"#;

const SHELL_JSON: &str = r#"#!/usr/bin/env bash
set -euo pipefail

# Names and sizes of the items in a JSON list, largest first.
jq -r '.items | sort_by(-.size) | .[] | "\(.size)\t\(.name)"' "${1:-items.json}""#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_language_keyword_decides() {
        let language = |prompt: &str| language_of(&words(prompt));
        assert_eq!(
            language("How do I read a file in Rust?"),
            Some(Language::Rust)
        );
        assert_eq!(language("pandas dataframe"), Some(Language::Python));
        assert_eq!(language("A React hook"), Some(Language::JavaScript));
        assert_eq!(language("slow SELECT with a JOIN"), Some(Language::Sql));
        assert_eq!(language("a bash loop"), Some(Language::Shell));
        assert_eq!(language("make it pretty"), None);
    }

    #[test]
    fn tasks_follow_keywords() {
        assert_eq!(task_of(&words("parse this JSON")), Task::Json);
        assert_eq!(task_of(&words("read a file")), Task::Files);
        assert_eq!(task_of(&words("sort a list")), Task::Collections);
        assert_eq!(task_of(&words("hello")), Task::General);
    }
}
