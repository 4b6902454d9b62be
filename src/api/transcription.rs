//! Transcription (POST /v1/transcribe): the request, its checks, its price and what a
//! finished transcription carries. No egui.
//!
//! The body is JSON with `audio_url` (an audio or video file the service can fetch; local
//! files are uploaded first). The reference (`catalog-families.md`, Transcription) names
//! the options: `language`, `diarize` (speaker labels), `generate_srt` (default true),
//! `words_per_line` 1–18 (12), `lines_per_subtitle` 1–4 (2); the service caps a source at
//! 30 minutes. The result carries `text`, `srt_url`, `txt_url`, `word_by_word_srt_url`
//! and `duration`. The price is the `stt` model's `credit` per input minute, rounded up,
//! at least one minute (contract, Pricing).

use super::types::{JobResult, ModelRecord, TRANSCRIPTION_CATALOG_TYPE};
use serde::{Deserialize, Serialize};

pub const MIN_WORDS_PER_LINE: u32 = 1;
pub const MAX_WORDS_PER_LINE: u32 = 18;
pub const DEFAULT_WORDS_PER_LINE: u32 = 12;
pub const MIN_LINES_PER_SUBTITLE: u32 = 1;
pub const MAX_LINES_PER_SUBTITLE: u32 = 4;
pub const DEFAULT_LINES_PER_SUBTITLE: u32 = 2;
/// The longest source the service transcribes (reference: 30-minute cap).
pub const MAX_SOURCE_SECS: f64 = 30.0 * 60.0;

fn yes() -> bool {
    true
}

/// Body of POST /v1/transcribe.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TranscriptionRequest {
    /// The audio or video to transcribe (an http(s) URL).
    pub audio_url: String,
    /// e.g. "en"; `None` = detected by the service.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// Label who speaks ("Speaker 1: …").
    #[serde(default)]
    pub diarize: bool,
    #[serde(default = "yes")]
    pub generate_srt: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub words_per_line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines_per_subtitle: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
}

impl Default for TranscriptionRequest {
    fn default() -> Self {
        TranscriptionRequest {
            audio_url: String::new(),
            language: None,
            diarize: false,
            generate_srt: true,
            words_per_line: None,
            lines_per_subtitle: None,
            project_id: None,
        }
    }
}

impl TranscriptionRequest {
    /// Transcribe `audio_url` with the service's defaults (language detected, SRT made).
    pub fn of(audio_url: &str) -> Self {
        TranscriptionRequest {
            audio_url: audio_url.to_owned(),
            ..Self::default()
        }
    }

    /// What is sent: an empty language is left out (detected), and the SRT options only
    /// go with an SRT.
    pub fn for_wire(&self) -> TranscriptionRequest {
        let mut body = self.clone();
        body.audio_url = body.audio_url.trim().to_owned();
        body.language = body
            .language
            .map(|l| l.trim().to_owned())
            .filter(|l| !l.is_empty() && !l.eq_ignore_ascii_case("auto"));
        if !body.generate_srt {
            body.words_per_line = None;
            body.lines_per_subtitle = None;
        }
        body
    }

    /// The first problem with the request, in words, or `Ok`. `source_secs` is the
    /// source's length when known.
    pub fn check(&self, source_secs: Option<f64>) -> Result<(), TranscriptionProblem> {
        let url = self.audio_url.trim();
        if url.is_empty() {
            return Err(TranscriptionProblem::Source(
                "Choose the audio or video to transcribe.".to_owned(),
            ));
        }
        if !(url.starts_with("https://") || url.starts_with("http://")) {
            return Err(TranscriptionProblem::Source(
                "The source must be a web address (http or https); local files are uploaded first."
                    .to_owned(),
            ));
        }
        if let Some(n) = self.words_per_line
            && !(MIN_WORDS_PER_LINE..=MAX_WORDS_PER_LINE).contains(&n)
        {
            return Err(TranscriptionProblem::WordsPerLine(format!(
                "Words per line must be {MIN_WORDS_PER_LINE}–{MAX_WORDS_PER_LINE}."
            )));
        }
        if let Some(n) = self.lines_per_subtitle
            && !(MIN_LINES_PER_SUBTITLE..=MAX_LINES_PER_SUBTITLE).contains(&n)
        {
            return Err(TranscriptionProblem::LinesPerSubtitle(format!(
                "Lines per subtitle must be {MIN_LINES_PER_SUBTITLE}–{MAX_LINES_PER_SUBTITLE}."
            )));
        }
        if let Some(secs) = source_secs
            && secs > MAX_SOURCE_SECS
        {
            return Err(TranscriptionProblem::Source(format!(
                "This source is {} minutes long; the service transcribes at most 30 minutes.",
                billed_minutes(secs)
            )));
        }
        Ok(())
    }
}

/// What is wrong, at the field it concerns.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TranscriptionProblem {
    #[error("{0}")]
    Source(String),
    #[error("{0}")]
    WordsPerLine(String),
    #[error("{0}")]
    LinesPerSubtitle(String),
}

/// Minutes billed for a source of `secs`: rounded up, at least one.
pub fn billed_minutes(secs: f64) -> u32 {
    if !secs.is_finite() || secs <= 0.0 {
        return 1;
    }
    ((secs / 60.0).ceil() as u32).max(1)
}

/// The price of a transcription before it is sent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TranscriptionPrice {
    /// Credits per started minute (the lowest and highest of the catalog's `stt` models:
    /// the service picks the model).
    pub per_minute_low: f64,
    pub per_minute_high: f64,
    /// Minutes billed, once the source's length is known.
    pub minutes: Option<u32>,
}

impl TranscriptionPrice {
    /// The whole price (low, high) once the length is known.
    pub fn total(&self) -> Option<(f64, f64)> {
        let minutes = f64::from(self.minutes?);
        Some((
            self.per_minute_low * minutes,
            self.per_minute_high * minutes,
        ))
    }
}

/// The price from the catalog (`None` when it lists no transcription model with a price).
pub fn price(catalog: &[ModelRecord], source_secs: Option<f64>) -> Option<TranscriptionPrice> {
    let credits: Vec<f64> = catalog
        .iter()
        .filter(|m| {
            m.types
                .iter()
                .any(|t| t.eq_ignore_ascii_case(TRANSCRIPTION_CATALOG_TYPE))
        })
        .filter_map(|m| m.credit)
        .filter(|c| c.is_finite() && *c >= 0.0)
        .collect();
    let low = credits.iter().copied().reduce(f64::min)?;
    let high = credits.iter().copied().reduce(f64::max)?;
    Some(TranscriptionPrice {
        per_minute_low: low,
        per_minute_high: high,
        minutes: source_secs.map(billed_minutes),
    })
}

/// The SRT of a finished transcription: `srt_url`, else an `.srt` among `urls`.
pub fn srt_url(result: &JobResult) -> Option<&str> {
    result
        .srt_url
        .as_deref()
        .filter(|u| !u.trim().is_empty())
        .or_else(|| {
            result
                .urls
                .iter()
                .map(String::as_str)
                .find(|u| is_srt_url(u))
        })
}

fn is_srt_url(url: &str) -> bool {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    path.to_ascii_lowercase().ends_with(".srt")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn billed_minutes_round_up_with_a_one_minute_minimum() {
        assert_eq!(billed_minutes(0.0), 1);
        assert_eq!(billed_minutes(4.5), 1);
        assert_eq!(billed_minutes(60.0), 1);
        assert_eq!(billed_minutes(60.1), 2);
        assert_eq!(billed_minutes(1799.0), 30);
        assert_eq!(billed_minutes(f64::NAN), 1);
    }

    #[test]
    fn price_is_credit_per_started_minute_of_the_stt_models() {
        let stt = |credit: f64| ModelRecord {
            identifier: format!("stt-{credit}"),
            types: vec!["stt".into()],
            credit: Some(credit),
            ..ModelRecord::default()
        };
        let image = ModelRecord {
            identifier: "img".into(),
            types: vec!["text_to_img".into()],
            credit: Some(50.0),
            ..ModelRecord::default()
        };
        let catalog = vec![stt(1.0), image.clone(), stt(2.0)];
        let unknown_length = price(&catalog, None).unwrap();
        assert_eq!(
            (
                unknown_length.per_minute_low,
                unknown_length.per_minute_high
            ),
            (1.0, 2.0)
        );
        assert_eq!(unknown_length.total(), None);
        assert_eq!(
            price(&catalog, Some(125.0)).unwrap().total(),
            Some((3.0, 6.0))
        );
        assert_eq!(
            price(&catalog, Some(3.0)).unwrap().total(),
            Some((1.0, 2.0))
        );
        assert_eq!(price(&[image], Some(60.0)), None);
    }

    #[test]
    fn the_body_sends_defaults_and_leaves_out_what_does_not_apply() {
        let mut request = TranscriptionRequest::of(" https://cdn.example/a.mp3 ");
        request.language = Some("auto".into());
        let body = serde_json::to_value(request.for_wire()).unwrap();
        assert_eq!(
            body,
            serde_json::json!({"audio_url": "https://cdn.example/a.mp3", "diarize": false, "generate_srt": true})
        );
        request.language = Some("de".into());
        request.diarize = true;
        request.words_per_line = Some(6);
        request.lines_per_subtitle = Some(1);
        let body = serde_json::to_value(request.for_wire()).unwrap();
        assert_eq!(body["language"], "de");
        assert_eq!(body["words_per_line"], 6);
        request.generate_srt = false;
        let body = serde_json::to_value(request.for_wire()).unwrap();
        assert!(body.get("words_per_line").is_none());
    }

    #[test]
    fn checks_name_the_field() {
        assert!(matches!(
            TranscriptionRequest::default().check(None),
            Err(TranscriptionProblem::Source(_))
        ));
        let mut request = TranscriptionRequest::of("https://x/a.mp4");
        assert_eq!(request.check(Some(60.0)), Ok(()));
        request.words_per_line = Some(19);
        assert!(matches!(
            request.check(None),
            Err(TranscriptionProblem::WordsPerLine(_))
        ));
        request.words_per_line = Some(18);
        request.lines_per_subtitle = Some(0);
        assert!(matches!(
            request.check(None),
            Err(TranscriptionProblem::LinesPerSubtitle(_))
        ));
        request.lines_per_subtitle = Some(4);
        assert!(matches!(
            request.check(Some(31.0 * 60.0)),
            Err(TranscriptionProblem::Source(_))
        ));
    }

    #[test]
    fn the_srt_is_found_in_the_result() {
        let mut result = JobResult {
            urls: vec!["https://x/t.SRT?sig=1".into()],
            ..JobResult::default()
        };
        assert_eq!(srt_url(&result), Some("https://x/t.SRT?sig=1"));
        result.srt_url = Some("https://x/own.srt".into());
        assert_eq!(srt_url(&result), Some("https://x/own.srt"));
    }
}
