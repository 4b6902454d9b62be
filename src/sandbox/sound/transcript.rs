//! Transcripts: SRT (cues of `lines_per_subtitle` lines of `words_per_line` words, a cue
//! also ends at a sentence's end), word-by-word SRT and plain text, from timed words. A
//! sandbox speech output brings its own words; any other input gets a deterministic
//! made-up transcript spread over its length.

use super::{Rng, TimedWord};

/// SRT layout options (reference M: words_per_line 1-18, default 12; lines 1-4, default 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SrtLayout {
    pub words_per_line: usize,
    pub lines_per_subtitle: usize,
    pub diarize: bool,
}

/// Files a transcription writes.
#[derive(Debug, Clone)]
pub(crate) struct Transcript {
    pub text: String,
    pub srt: String,
    pub word_srt: String,
    pub txt: String,
    pub cue_count: usize,
}

fn timestamp(secs: f64) -> String {
    let ms = (secs.max(0.0) * 1000.0).round() as u64;
    format!(
        "{:02}:{:02}:{:02},{:03}",
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000
    )
}

fn ends_sentence(word: &str) -> bool {
    word.trim_end_matches(['"', '\'', ')', '»', '”'])
        .ends_with(['.', '!', '?', '…', '。', '！', '？'])
}

/// Who speaks a word when speaker labels are on: speaker 1 throughout, unless `speakers`
/// alternate by sentence (made-up transcripts).
fn speaker_of(sentence_index: usize, speakers: usize) -> usize {
    sentence_index % speakers.max(1) + 1
}

pub(crate) fn build(words: &[TimedWord], layout: SrtLayout, speakers: usize) -> Transcript {
    let per_line = layout.words_per_line.clamp(1, 18);
    let per_cue = per_line * layout.lines_per_subtitle.clamp(1, 4);
    let text = words
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let mut srt = String::new();
    let mut cue_count = 0;
    let mut cue: Vec<&TimedWord> = Vec::new();
    let mut sentence = 0usize;
    let mut cue_sentence = 0usize;
    let mut flush = |cue: &mut Vec<&TimedWord>, speaker: usize, srt: &mut String| {
        if cue.is_empty() {
            return;
        }
        cue_count += 1;
        let lines: Vec<String> = cue
            .chunks(per_line)
            .map(|line| {
                line.iter()
                    .map(|w| w.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let mut body = lines.join("\n");
        if layout.diarize {
            body = format!("[Speaker {speaker}] {body}");
        }
        srt.push_str(&format!(
            "{cue_count}\n{} --> {}\n{body}\n\n",
            timestamp(cue[0].start_secs),
            timestamp(cue[cue.len() - 1].end_secs),
        ));
        cue.clear();
    };
    for word in words {
        if cue.is_empty() {
            cue_sentence = sentence;
        }
        cue.push(word);
        if ends_sentence(&word.text) {
            sentence += 1;
            flush(&mut cue, speaker_of(cue_sentence, speakers), &mut srt);
        } else if cue.len() == per_cue {
            flush(&mut cue, speaker_of(cue_sentence, speakers), &mut srt);
        }
    }
    flush(&mut cue, speaker_of(cue_sentence, speakers), &mut srt);
    let word_srt: String = words
        .iter()
        .enumerate()
        .map(|(i, w)| {
            format!(
                "{}\n{} --> {}\n{}\n\n",
                i + 1,
                timestamp(w.start_secs),
                timestamp(w.end_secs),
                w.text
            )
        })
        .collect();
    let txt = if text.is_empty() {
        String::new()
    } else {
        format!("{text}\n")
    };
    Transcript {
        text,
        srt,
        word_srt,
        txt,
        cue_count,
    }
}

const MADE_UP: [&str; 12] = [
    "Welcome back to the studio.",
    "Today we are looking at how the light changes over the afternoon.",
    "Let me show you the first take.",
    "The colours feel warmer than yesterday, which I like.",
    "We can trim the opening a little and keep the pause.",
    "Listen to the room tone under the dialogue.",
    "That was the sound of the harbour in the morning.",
    "I think the second version works better for the ending.",
    "Keep the music low while someone is speaking.",
    "Here is where the story turns.",
    "Thanks for watching, and see you next time.",
    "This is a sandbox transcript, made up for testing.",
];

/// A made-up transcript spread over `duration_secs` (2.5 words a second, pauses between
/// sentences, silence kept at both ends), the same for the same seed.
pub(crate) fn made_up_words(duration_secs: f64, seed: u64) -> Vec<TimedWord> {
    let mut rng = Rng::new(seed);
    let mut words = Vec::new();
    let mut t = 0.3_f64.min(duration_secs / 4.0);
    let end = (duration_secs - 0.3).max(t);
    let mut sentence = rng.below(MADE_UP.len());
    'outer: loop {
        for word in MADE_UP[sentence % MADE_UP.len()].split_whitespace() {
            let length = 0.28 + 0.04 * word.chars().count().min(10) as f64;
            if t + length > end {
                break 'outer;
            }
            words.push(TimedWord {
                text: word.to_owned(),
                start_secs: (t * 1000.0).round() / 1000.0,
                end_secs: ((t + length) * 1000.0).round() / 1000.0,
            });
            t += length + 0.06;
        }
        t += f64::from(rng.between(0.4, 1.2));
        sentence += 1 + rng.below(3);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timed(text: &str) -> Vec<TimedWord> {
        text.split_whitespace()
            .enumerate()
            .map(|(i, w)| TimedWord {
                text: w.into(),
                start_secs: i as f64 * 0.5,
                end_secs: i as f64 * 0.5 + 0.4,
            })
            .collect()
    }

    #[test]
    fn cues_respect_the_layout_and_sentences() {
        let words = timed("one two three four five six seven. eight nine");
        let layout = SrtLayout {
            words_per_line: 2,
            lines_per_subtitle: 2,
            diarize: false,
        };
        let t = build(&words, layout, 1);
        assert_eq!(t.text, "one two three four five six seven. eight nine");
        assert_eq!(t.cue_count, 3);
        assert!(
            t.srt
                .starts_with("1\n00:00:00,000 --> 00:00:01,900\none two\nthree four\n\n2\n")
        );
        assert!(
            t.srt
                .contains("3\n00:00:03,500 --> 00:00:04,400\neight nine\n")
        );
        assert_eq!(t.word_srt.matches(" --> ").count(), 9);
        let labelled = build(
            &words,
            SrtLayout {
                diarize: true,
                ..layout
            },
            2,
        );
        assert!(labelled.srt.contains("[Speaker 2] eight nine"));
    }

    #[test]
    fn made_up_words_fit_the_length() {
        let words = made_up_words(20.0, 5);
        assert!(words.len() > 20);
        assert!(words.last().map(|w| w.end_secs).unwrap_or(0.0) <= 20.0);
        assert_eq!(words, made_up_words(20.0, 5));
        assert!(made_up_words(0.2, 1).is_empty());
    }
}
