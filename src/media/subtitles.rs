//! Subtitles: SRT read from a transcription's `srt_url` (untrusted bytes), and the cues
//! written back out as SRT, WebVTT or plain text for export. No egui.
//!
//! Reading is lenient the way players are: a byte-order mark, CRLF or CR line ends, a
//! missing cue number, `.` instead of `,` before the milliseconds, `mm:ss` times and
//! damaged cues in between are all accepted (a damaged cue is skipped, the rest are
//! kept). A speaker label at the start of a cue — `[Speaker 1] …`, `Speaker 1: …`,
//! `SPEAKER_00: …` or WebVTT's `<v Speaker 1>` — becomes the cue's `speaker`.
//! Times are kept to the millisecond, so `parse_srt(&to_srt(cues))` gives `cues` back.

use std::fmt::Write as _;

/// Larger SRT files are refused before they are read (a 30-minute transcript is ~100 KB).
pub const MAX_SRT_BYTES: usize = 16 * 1024 * 1024;
/// At most this many cues are kept from one file.
pub const MAX_CUES: usize = 200_000;
/// A speaker label longer than this is text, not a label.
const MAX_SPEAKER_CHARS: usize = 40;

/// One subtitle: shown from `start_secs` until `end_secs` (`end_secs >= start_secs`).
#[derive(Clone, Debug, PartialEq)]
pub struct Cue {
    pub start_secs: f64,
    pub end_secs: f64,
    /// One or more lines joined by `\n`; never empty.
    pub text: String,
    pub speaker: Option<String>,
}

impl Cue {
    /// Whether the cue is on screen at `time_secs`.
    pub fn contains(&self, time_secs: f64) -> bool {
        self.start_secs <= time_secs && time_secs < self.end_secs
    }
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SubtitleError {
    #[error("the subtitles file is empty")]
    Empty,
    #[error("the subtitles file is too large ({0} bytes)")]
    TooLarge(usize),
    #[error("no subtitles could be read from the file")]
    NoCues,
}

/// Reads an SRT file. Cues come back ordered by start time.
pub fn parse_srt(bytes: &[u8]) -> Result<Vec<Cue>, SubtitleError> {
    if bytes.len() > MAX_SRT_BYTES {
        return Err(SubtitleError::TooLarge(bytes.len()));
    }
    let text = String::from_utf8_lossy(bytes);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    if text.trim().is_empty() {
        return Err(SubtitleError::Empty);
    }
    let normalised = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut cues = Vec::new();
    let mut block: Vec<&str> = Vec::new();
    for line in normalised.split('\n') {
        if line.trim().is_empty() {
            if let Some(cue) = parse_block(&block) {
                cues.push(cue);
            }
            block.clear();
            if cues.len() >= MAX_CUES {
                break;
            }
        } else {
            block.push(line);
        }
    }
    if cues.len() < MAX_CUES
        && let Some(cue) = parse_block(&block)
    {
        cues.push(cue);
    }
    if cues.is_empty() {
        return Err(SubtitleError::NoCues);
    }
    cues.sort_by(|a, b| a.start_secs.total_cmp(&b.start_secs));
    Ok(cues)
}

/// One blank-line-separated block: `[number]`, `start --> end`, text lines.
fn parse_block(lines: &[&str]) -> Option<Cue> {
    let timing_at = lines.iter().take(2).position(|l| l.contains("-->"))?;
    let (start_secs, end_secs) = parse_timing(lines[timing_at])?;
    let text_lines: Vec<String> = lines[timing_at + 1..]
        .iter()
        .map(|l| clean_line(l))
        .filter(|l| !l.is_empty())
        .collect();
    if text_lines.is_empty() {
        return None;
    }
    let joined = text_lines.join("\n");
    let (speaker, text) = match split_speaker(&joined) {
        Some((speaker, rest)) => (Some(speaker), rest),
        None => (None, joined),
    };
    Some(Cue {
        start_secs,
        end_secs: end_secs.max(start_secs),
        text,
        speaker,
    })
}

/// Control characters dropped (tabs become spaces), ends trimmed.
fn clean_line(line: &str) -> String {
    line.chars()
        .map(|c| if c == '\t' { ' ' } else { c })
        .filter(|c| !c.is_control())
        .collect::<String>()
        .trim()
        .to_owned()
}

/// `[Speaker 1] text`, `Speaker 1: text`, `SPEAKER_00: text`, `<v Speaker 1>text`: the
/// label and the rest (`None` when there is no label, or nothing after it).
fn split_speaker(text: &str) -> Option<(String, String)> {
    let (label, rest) = if let Some(after) = text.strip_prefix('[') {
        let close = after.find(']')?;
        (&after[..close], &after[close + 1..])
    } else if let Some(after) = text.strip_prefix("<v ") {
        let close = after.find('>')?;
        let rest = &after[close + 1..];
        let rest = rest.strip_suffix("</v>").unwrap_or(rest);
        (&after[..close], rest)
    } else {
        let colon = text.find(':')?;
        (&text[..colon], &text[colon + 1..])
    };
    let label = label.trim();
    let rest = rest.trim();
    let is_label = label.len() >= "speaker".len()
        && label.is_char_boundary("speaker".len())
        && label[.."speaker".len()].eq_ignore_ascii_case("speaker")
        && label.chars().count() <= MAX_SPEAKER_CHARS
        && !label.contains(['\n', '[', ']', '<', '>', ':']);
    (is_label && !rest.is_empty()).then(|| (label.to_owned(), rest.to_owned()))
}

/// `00:00:01,000 --> 00:00:02,500 [position settings]`.
fn parse_timing(line: &str) -> Option<(f64, f64)> {
    let (start, end) = line.split_once("-->")?;
    let end = end.split_whitespace().next()?;
    Some((parse_time(start.trim())?, parse_time(end)?))
}

/// `hh:mm:ss,mmm`, `hh:mm:ss.mmm`, `mm:ss,mmm`, `hh:mm:ss` → seconds, to the millisecond.
fn parse_time(text: &str) -> Option<f64> {
    let (clock, fraction) = match text.find([',', '.']) {
        Some(at) => (&text[..at], Some(&text[at + 1..])),
        None => (text, None),
    };
    let parts: Vec<&str> = clock.split(':').collect();
    let number = |s: &str, max_digits: usize| -> Option<u64> {
        if s.is_empty() || s.len() > max_digits || !s.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    };
    let (hours, minutes, seconds) = match parts.as_slice() {
        [h, m, s] => (number(h, 6)?, number(m, 2)?, number(s, 2)?),
        [m, s] => (0, number(m, 4)?, number(s, 2)?),
        _ => return None,
    };
    let millis = match fraction {
        None => 0,
        Some(f) => {
            let digits = number(f, 9)?;
            // ",5" is half a second, ",05" fifty milliseconds.
            let scaled = match f.len() {
                1 => digits * 100,
                2 => digits * 10,
                3 => digits,
                n => digits / 10u64.pow(n as u32 - 3),
            };
            scaled.min(999)
        }
    };
    let total_millis = ((hours * 60 + minutes) * 60 + seconds) * 1000 + millis;
    Some(total_millis as f64 / 1000.0)
}

fn millis(time_secs: f64) -> u64 {
    if time_secs.is_finite() && time_secs > 0.0 {
        (time_secs * 1000.0).round() as u64
    } else {
        0
    }
}

/// `hh:mm:ss` + `separator` + `mmm`.
fn format_time(time_secs: f64, separator: char) -> String {
    let total = millis(time_secs);
    let (ms, s) = (total % 1000, total / 1000);
    format!(
        "{:02}:{:02}:{:02}{separator}{ms:03}",
        s / 3600,
        (s / 60) % 60,
        s % 60
    )
}

/// A cue's lines as they may appear in a file: no blank lines (they would end the cue).
fn file_lines(text: &str) -> impl Iterator<Item = String> + '_ {
    text.lines().map(clean_line).filter(|l| !l.is_empty())
}

/// The cues as SRT: numbered from 1, `hh:mm:ss,mmm`, a speaker as `[Speaker] ` before the text.
pub fn to_srt(cues: &[Cue]) -> String {
    let mut out = String::new();
    for (index, cue) in cues.iter().enumerate() {
        let _ = writeln!(
            out,
            "{}\n{} --> {}",
            index + 1,
            format_time(cue.start_secs, ','),
            format_time(cue.end_secs.max(cue.start_secs), ',')
        );
        let mut lines = file_lines(&cue.text).peekable();
        if lines.peek().is_none() {
            out.push_str("…\n");
        }
        for (n, line) in lines.enumerate() {
            match (&cue.speaker, n) {
                (Some(speaker), 0) => {
                    let _ = writeln!(out, "[{}] {line}", clean_line(speaker).replace(']', ")"));
                }
                _ => {
                    let _ = writeln!(out, "{line}");
                }
            }
        }
        out.push('\n');
    }
    out
}

/// The cues as WebVTT: `hh:mm:ss.mmm`, `<v Speaker>` voice spans, text escaped.
pub fn to_vtt(cues: &[Cue]) -> String {
    let escape = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let mut out = String::from("WEBVTT\n\n");
    for cue in cues {
        let _ = writeln!(
            out,
            "{} --> {}",
            format_time(cue.start_secs, '.'),
            format_time(cue.end_secs.max(cue.start_secs), '.')
        );
        let mut lines = file_lines(&cue.text).peekable();
        if lines.peek().is_none() {
            out.push_str("…\n");
        }
        for (n, line) in lines.enumerate() {
            match (&cue.speaker, n) {
                (Some(speaker), 0) => {
                    let _ = writeln!(out, "<v {}>{}", escape(&clean_line(speaker)), escape(&line));
                }
                _ => {
                    let _ = writeln!(out, "{}", escape(&line));
                }
            }
        }
        out.push('\n');
    }
    out
}

/// A pause at least this long starts a new paragraph in the plain text.
const PARAGRAPH_GAP_SECS: f64 = 2.0;

/// The cues as plain text: paragraphs (a new one when the speaker changes or after a
/// pause of two seconds or more), each speaker's paragraph starting `Speaker: `.
pub fn to_txt(cues: &[Cue]) -> String {
    let mut out = String::new();
    let mut previous: Option<&Cue> = None;
    for cue in cues {
        let words = file_lines(&cue.text).collect::<Vec<_>>().join(" ");
        let new_paragraph = match previous {
            None => true,
            Some(p) => {
                p.speaker != cue.speaker || cue.start_secs - p.end_secs >= PARAGRAPH_GAP_SECS
            }
        };
        if new_paragraph {
            if previous.is_some() {
                out.push_str("\n\n");
            }
            if let Some(speaker) = &cue.speaker {
                let _ = write!(out, "{}: ", clean_line(speaker));
            }
        } else {
            out.push(' ');
        }
        out.push_str(&words);
        previous = Some(cue);
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// The cue on screen at `time_secs` (the latest-starting one when cues overlap).
pub fn cue_at(cues: &[Cue], time_secs: f64) -> Option<usize> {
    let started = cues.partition_point(|c| c.start_secs <= time_secs);
    (0..started)
        .rev()
        .take(8)
        .find(|&i| cues[i].contains(time_secs))
}

/// Indices of the cues whose text or speaker contains `query` (case-insensitive).
pub fn search(cues: &[Cue], query: &str) -> Vec<usize> {
    let query = query.trim().to_lowercase();
    if query.is_empty() {
        return Vec::new();
    }
    cues.iter()
        .enumerate()
        .filter(|(_, c)| {
            c.text.to_lowercase().contains(&query)
                || c.speaker
                    .as_deref()
                    .is_some_and(|s| s.to_lowercase().contains(&query))
        })
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cue(start_secs: f64, end_secs: f64, text: &str, speaker: Option<&str>) -> Cue {
        Cue {
            start_secs,
            end_secs,
            text: text.to_owned(),
            speaker: speaker.map(str::to_owned),
        }
    }

    const SAMPLE: &str = "1\n00:00:00,000 --> 00:00:01,500\nHello there,\nfriend.\n\n2\n00:00:01,500 --> 00:00:03,250\n[Speaker 2] How are you?\n\n";

    #[test]
    fn reads_numbered_cues_with_lines_and_speakers() {
        let cues = parse_srt(SAMPLE.as_bytes()).unwrap();
        assert_eq!(
            cues,
            vec![
                cue(0.0, 1.5, "Hello there,\nfriend.", None),
                cue(1.5, 3.25, "How are you?", Some("Speaker 2")),
            ]
        );
    }

    #[test]
    fn srt_round_trips_to_the_same_cues() {
        let cues = vec![
            cue(0.0, 1.234, "One", None),
            cue(61.5, 3725.001, "Two\nlines", Some("SPEAKER_01")),
            cue(3725.001, 3725.001, "Zero length", None),
        ];
        let srt = to_srt(&cues);
        assert!(srt.starts_with("1\n00:00:00,000 --> 00:00:01,234\nOne\n\n2\n00:01:01,500 --> 01:02:05,001\n[SPEAKER_01] Two\nlines\n\n3\n"));
        assert_eq!(parse_srt(srt.as_bytes()).unwrap(), cues);
    }

    #[test]
    fn tolerates_bom_crlf_missing_numbers_dots_and_damaged_cues() {
        let text = "\u{feff}00:00:01.5 --> 00:00:02.000 X1:10\r\nFirst\r\n\r\n7\r\nnot a time --> at all\r\nBroken\r\n\r\n8\r\n01:02,250 --> 01:03,000\r\nSpeaker 1: Third\r\n";
        let cues = parse_srt(text.as_bytes()).unwrap();
        assert_eq!(
            cues,
            vec![
                cue(1.5, 2.0, "First", None),
                cue(62.25, 63.0, "Third", Some("Speaker 1")),
            ]
        );
    }

    #[test]
    fn sound_tags_in_brackets_are_text_not_speakers() {
        let cues = parse_srt(b"1\n00:00:00,000 --> 00:00:01,000\n[music] la la\n").unwrap();
        assert_eq!(cues[0].speaker, None);
        assert_eq!(cues[0].text, "[music] la la");
    }

    #[test]
    fn nothing_readable_is_an_error_in_words() {
        assert_eq!(parse_srt(b"  \n\n"), Err(SubtitleError::Empty));
        assert_eq!(parse_srt(b"hello\nworld"), Err(SubtitleError::NoCues));
        assert_eq!(
            parse_srt(&vec![b'a'; MAX_SRT_BYTES + 1]),
            Err(SubtitleError::TooLarge(MAX_SRT_BYTES + 1))
        );
    }

    #[test]
    fn an_end_before_the_start_is_clamped_and_cues_are_ordered() {
        let text = "2\n00:00:05,000 --> 00:00:04,000\nB\n\n1\n00:00:01,000 --> 00:00:02,000\nA\n";
        let cues = parse_srt(text.as_bytes()).unwrap();
        assert_eq!(cues[0].text, "A");
        assert_eq!((cues[1].start_secs, cues[1].end_secs), (5.0, 5.0));
    }

    #[test]
    fn vtt_has_the_header_dot_times_voices_and_escapes() {
        let cues = vec![
            cue(0.0, 1.5, "a < b & c", None),
            cue(2.0, 3.0, "Hi", Some("Speaker 1")),
        ];
        assert_eq!(
            to_vtt(&cues),
            "WEBVTT\n\n00:00:00.000 --> 00:00:01.500\na &lt; b &amp; c\n\n00:00:02.000 --> 00:00:03.000\n<v Speaker 1>Hi\n\n"
        );
    }

    #[test]
    fn txt_is_paragraphs_by_speaker_and_pause() {
        let cues = vec![
            cue(0.0, 1.0, "Hello", Some("Speaker 1")),
            cue(1.0, 2.0, "there.", Some("Speaker 1")),
            cue(2.0, 3.0, "Hi!", Some("Speaker 2")),
        ];
        assert_eq!(to_txt(&cues), "Speaker 1: Hello there.\n\nSpeaker 2: Hi!\n");
        let plain = vec![
            cue(0.0, 1.0, "One\ntwo", None),
            cue(1.0, 2.0, "three.", None),
            cue(9.0, 10.0, "Later.", None),
        ];
        assert_eq!(to_txt(&plain), "One two three.\n\nLater.\n");
    }

    #[test]
    fn the_cue_on_screen_and_search() {
        let cues = vec![
            cue(0.0, 1.0, "Alpha", None),
            cue(1.0, 2.0, "Beta", None),
            cue(3.0, 4.0, "alphabet", Some("Speaker 1")),
        ];
        assert_eq!(cue_at(&cues, 0.0), Some(0));
        assert_eq!(cue_at(&cues, 1.0), Some(1));
        assert_eq!(cue_at(&cues, 2.5), None);
        assert_eq!(cue_at(&cues, 3.99), Some(2));
        assert_eq!(cue_at(&cues, 4.0), None);
        assert_eq!(search(&cues, "ALPHA"), vec![0, 2]);
        assert_eq!(search(&cues, "speaker"), vec![2]);
        assert!(search(&cues, "  ").is_empty());
    }
}
