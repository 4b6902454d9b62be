//! The render step of sound jobs (music, speech, sound, transcription), called by
//! `jobs::produce` once the simulated wait is over. Submits validate and store an
//! [`AudioJob`] in the request JSON (key `sandbox_audio`), so a restarted sandbox renders
//! exactly what was asked. Outputs live under `/files/audio/`.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::fetch_policy::{self, FetchLimits, SourceFetchError, internal_address_message};
use super::files::write_bytes;
use super::jobs::StoredResult;
use super::media_store::NewMedia;
use super::sound::encode::{AudioFormat, Tags, embedded_words, encode};
use super::sound::transcript::{SrtLayout, build, made_up_words};
use super::sound::{RATE_HZ, effects, mix_seed, music, probe, speech, voices};
use super::state::AppState;
use super::store::{GenerationRow, now_iso};

pub(crate) const MUSIC_KIND: &str = "music";
pub(crate) const SPEECH_KIND: &str = "speech";
pub(crate) const SOUND_KIND: &str = "sound";
pub(crate) const TRANSCRIPTION_KIND: &str = "transcription";
/// The request JSON key holding the validated job.
pub(crate) const JOB_KEY: &str = "sandbox_audio";
/// Transcription inputs may be long recordings.
const TRANSCRIBE_LIMITS: FetchLimits = FetchLimits {
    max_bytes: 200 * 1024 * 1024,
    max_redirect_hops: fetch_policy::MAX_REDIRECT_HOPS,
};

pub(crate) fn is_audio_kind(kind: &str) -> bool {
    matches!(
        kind,
        MUSIC_KIND | SPEECH_KIND | SOUND_KIND | TRANSCRIPTION_KIND
    )
}

/// What a submit validated; everything the render needs.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct AudioJob {
    #[serde(default)]
    pub format: Option<String>,
    #[serde(default)]
    pub duration_secs: Option<f64>,
    // Music.
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub style: Option<String>,
    #[serde(default)]
    pub lyrics: Option<String>,
    #[serde(default)]
    pub instrumental: bool,
    #[serde(default)]
    pub female_vocals: bool,
    // Sound.
    #[serde(default)]
    pub sound_loop: bool,
    // Speech.
    #[serde(default)]
    pub voice_id: Option<String>,
    #[serde(default)]
    pub voice_name: Option<String>,
    #[serde(default)]
    pub language: Option<String>,
    // Transcription.
    #[serde(default)]
    pub diarize: bool,
    #[serde(default)]
    pub generate_srt: bool,
    #[serde(default)]
    pub words_per_line: Option<u32>,
    #[serde(default)]
    pub lines_per_subtitle: Option<u32>,
}

/// One audio file of a result.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct AudioTrack {
    pub path: String,
    pub duration_secs: f64,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub lyrics: Option<String>,
}

/// The sound-specific part of a completed result.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct AudioResult {
    #[serde(default)]
    pub tracks: Vec<AudioTrack>,
    #[serde(default)]
    pub voice: Option<String>,
    #[serde(default)]
    pub style: Option<String>,
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub srt_path: Option<String>,
    #[serde(default)]
    pub txt_path: Option<String>,
    #[serde(default)]
    pub word_srt_path: Option<String>,
    #[serde(default)]
    pub language: Option<String>,
}

pub(crate) fn stored_job(row: &GenerationRow) -> AudioJob {
    serde_json::from_str::<Value>(&row.request_json)
        .ok()
        .and_then(|v| v.get(JOB_KEY).cloned())
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default()
}

fn failure(row: &GenerationRow, code: &str, category: &str, message: String) -> Value {
    json!({
        "message": message,
        "category": category,
        "code": code,
        "retryable": category == "internal_error",
        "severity": "error",
        "provider": row.provider,
    })
}

/// Removes every output file of job `id` (a job cancelled while it rendered).
pub(crate) fn remove_outputs(files_dir: &std::path::Path, id: &str) {
    let Ok(entries) = std::fs::read_dir(files_dir.join("audio")) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with(id) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

pub(crate) async fn produce(state: &AppState, row: &GenerationRow) -> Result<StoredResult, Value> {
    let job = stored_job(row);
    let source = if row.kind == TRANSCRIPTION_KIND {
        let url = row.source_images.first().cloned().unwrap_or_default();
        let bytes = fetch_policy::fetch(state, &url, TRANSCRIBE_LIMITS)
            .await
            .map_err(|error| {
                let message = match error {
                    SourceFetchError::Internal => internal_address_message("audio_url"),
                    other => format!("Could not fetch the audio at {url}: {other}"),
                };
                failure(row, "SOURCE_AUDIO_UNAVAILABLE", "invalid_input", message)
            })?;
        Some((url, bytes))
    } else {
        None
    };
    let files_dir = state.files_dir.clone();
    let row_owned = row.clone();
    let credit_base = row.credit_base;
    let rendered = tokio::task::spawn_blocking(move || {
        render(&files_dir, &row_owned, &job, source, credit_base)
    })
    .await;
    match rendered {
        Ok(result) => result,
        Err(join_error) => Err(failure(
            row,
            "RENDER_FAILED",
            "internal_error",
            format!("The sandbox renderer stopped: {join_error}"),
        )),
    }
}

fn result_with(paths: Vec<String>, duration_secs: f64, audio: AudioResult) -> StoredResult {
    StoredResult {
        paths,
        thumbnail_path: None,
        thumbnail_paths: Vec::new(),
        created_at: now_iso(),
        width: 0,
        height: 0,
        duration_secs: Some((duration_secs * 1000.0).round() / 1000.0),
        frame_count: None,
        edit_type: None,
        credits_used: None,
        billed_secs: None,
        content: None,
        audio: Some(audio),
    }
}

fn render(
    files_dir: &std::path::Path,
    row: &GenerationRow,
    job: &AudioJob,
    source: Option<(String, Vec<u8>)>,
    credit_base: f64,
) -> Result<StoredResult, Value> {
    let internal = |e: String| {
        failure(
            row,
            "RENDER_FAILED",
            "internal_error",
            format!("The sandbox could not produce the output: {e}"),
        )
    };
    let format = job
        .format
        .as_deref()
        .and_then(AudioFormat::parse)
        .unwrap_or(AudioFormat::Mp3);
    let write = |name: &str, bytes: &[u8]| -> Result<String, Value> {
        let rel = format!("audio/{name}");
        write_bytes(&files_dir.join(&rel), bytes).map_err(internal)?;
        Ok(rel)
    };
    match row.kind.as_str() {
        MUSIC_KIND => {
            let duration = job.duration_secs.unwrap_or(120.0);
            let title = job.title.clone().unwrap_or_else(|| song_title(&row.prompt));
            let lyrics = if job.instrumental {
                None
            } else {
                Some(
                    job.lyrics
                        .clone()
                        .unwrap_or_else(|| made_up_lyrics(&row.prompt, row.seed)),
                )
            };
            let mut tracks = Vec::new();
            for variation in 0..2u64 {
                let samples = music::render_music(&music::MusicSpec {
                    prompt: &row.prompt,
                    style: job.style.as_deref(),
                    seed: mix_seed(row.seed, 100 + variation),
                    duration_secs: duration,
                    instrumental: job.instrumental,
                    female_vocals: job.female_vocals,
                });
                let track_title = if variation == 0 {
                    title.clone()
                } else {
                    format!("{title} (Take 2)")
                };
                let tags = Tags {
                    title: format!("{track_title} · SANDBOX"),
                    words: None,
                };
                let bytes = encode(&samples, &tags, format).map_err(internal)?;
                let name = if variation == 0 {
                    format!("{}.{}", row.id, format.extension())
                } else {
                    format!("{}_2.{}", row.id, format.extension())
                };
                tracks.push(AudioTrack {
                    path: write(&name, &bytes)?,
                    duration_secs: seconds_of(&samples),
                    title: Some(track_title),
                    lyrics: lyrics.clone(),
                });
            }
            let paths = tracks.iter().map(|t| t.path.clone()).collect();
            let audio = AudioResult {
                tracks,
                style: job.style.clone(),
                ..AudioResult::default()
            };
            Ok(result_with(paths, duration, audio))
        }
        SPEECH_KIND => {
            let voice = job
                .voice_id
                .as_deref()
                .and_then(voices::find)
                .ok_or_else(|| {
                    failure(
                        row,
                        "VOICE_NOT_FOUND",
                        "invalid_input",
                        "The voice is no longer available".to_owned(),
                    )
                })?;
            let spoken = speech::render_speech(&row.prompt, voice.shape(), mix_seed(row.seed, 200));
            let title = format!("{} · {} · SANDBOX", voice.name, short(&row.prompt, 40));
            let tags = Tags {
                title,
                words: Some(spoken.words.clone()),
            };
            let bytes = encode(&spoken.samples, &tags, format).map_err(internal)?;
            let path = write(&format!("{}.{}", row.id, format.extension()), &bytes)?;
            let duration = seconds_of(&spoken.samples);
            let audio = AudioResult {
                tracks: vec![AudioTrack {
                    path: path.clone(),
                    duration_secs: duration,
                    title: None,
                    lyrics: None,
                }],
                voice: Some(voice.name.to_owned()),
                text: Some(row.prompt.clone()),
                language: job.language.clone(),
                ..AudioResult::default()
            };
            Ok(result_with(vec![path], duration, audio))
        }
        SOUND_KIND => {
            let duration = job
                .duration_secs
                .unwrap_or_else(|| effects::automatic_duration_secs(&row.prompt, row.seed as u64));
            let samples = effects::render_effect(
                &row.prompt,
                mix_seed(row.seed, 300),
                duration,
                job.sound_loop,
            );
            let title = format!("{} · SANDBOX", short(&row.prompt, 60));
            let bytes = encode(&samples, &Tags { title, words: None }, format).map_err(internal)?;
            let path = write(&format!("{}.{}", row.id, format.extension()), &bytes)?;
            let audio = AudioResult {
                tracks: vec![AudioTrack {
                    path: path.clone(),
                    duration_secs: duration,
                    title: None,
                    lyrics: None,
                }],
                ..AudioResult::default()
            };
            Ok(result_with(vec![path], duration, audio))
        }
        TRANSCRIPTION_KIND => {
            let (url, bytes) = source.unwrap_or_default();
            let extension = url
                .rsplit('.')
                .next()
                .map(|e| e.split(['?', '#']).next().unwrap_or(e).to_ascii_lowercase());
            let spoken = embedded_words(&bytes);
            let probed = probe::duration_secs(&bytes, extension.as_deref());
            let (words, duration, speakers) = match (spoken, probed) {
                (Some(words), probed) => {
                    let end = words.last().map_or(0.0, |w| w.end_secs);
                    (words, probed.unwrap_or(end).max(end), 1)
                }
                (None, Some(secs)) => (
                    made_up_words(
                        secs,
                        crate::sandbox::ids::fnv1a(&bytes[..bytes.len().min(1 << 20)]),
                    ),
                    secs,
                    2,
                ),
                (None, None) => {
                    return Err(failure(
                        row,
                        "UNSUPPORTED_AUDIO",
                        "invalid_input",
                        "The file is not audio or video the sandbox can read (MP3, WAV, FLAC, Ogg, M4A or MP4)".to_owned(),
                    ));
                }
            };
            let layout = SrtLayout {
                words_per_line: job.words_per_line.unwrap_or(12) as usize,
                lines_per_subtitle: job.lines_per_subtitle.unwrap_or(2) as usize,
                diarize: job.diarize,
            };
            let transcript = build(&words, layout, speakers);
            tracing::debug!(generation_id = %row.id, words = words.len(), cues = transcript.cue_count, duration_secs = duration, "transcript written");
            let txt_path = write(&format!("{}.txt", row.id), transcript.txt.as_bytes())?;
            let (srt_path, word_srt_path) = if job.generate_srt {
                (
                    Some(write(
                        &format!("{}.srt", row.id),
                        transcript.srt.as_bytes(),
                    )?),
                    Some(write(
                        &format!("{}_words.srt", row.id),
                        transcript.word_srt.as_bytes(),
                    )?),
                )
            } else {
                (None, None)
            };
            let minutes = (duration / 60.0).ceil().max(1.0);
            let paths = vec![srt_path.clone().unwrap_or_else(|| txt_path.clone())];
            let audio = AudioResult {
                text: Some(transcript.text),
                srt_path,
                txt_path: Some(txt_path),
                word_srt_path,
                language: job.language.clone(),
                ..AudioResult::default()
            };
            let mut result = result_with(paths, duration, audio);
            result.credits_used = Some(super::pricing::round_credits(credit_base * minutes));
            result.billed_secs = Some(minutes * 60.0);
            Ok(result)
        }
        other => Err(internal(format!("unknown sound job kind {other}"))),
    }
}

/// One library item (type `audio`) per track; a transcription adds none.
pub(crate) fn media(state: &AppState, row: &GenerationRow, result: &StoredResult) -> Vec<NewMedia> {
    let Some(audio) = &result.audio else {
        return Vec::new();
    };
    let (category, generation_type) = match row.kind.as_str() {
        MUSIC_KIND => ("music", "music_gen"),
        SPEECH_KIND => ("text-to-speech", "text_to_speech"),
        SOUND_KIND => ("sound-effects", "text_to_sound"),
        _ => return Vec::new(),
    };
    let job = stored_job(row);
    let model_name = state
        .catalog
        .find(&row.model, generation_type)
        .map(|spec| spec.name.clone());
    let now_ms = state.clock.now_ms();
    let created_at = super::clock::Clock::iso_at(now_ms);
    let name_base = match row.kind.as_str() {
        SPEECH_KIND => format!(
            "{}: {}",
            audio.voice.as_deref().unwrap_or("Speech"),
            short(&row.prompt, 60)
        ),
        _ => short(&row.prompt, 80),
    };
    audio
        .tracks
        .iter()
        .enumerate()
        .map(|(index, track)| {
            let size_bytes = std::fs::metadata(state.files_dir.join(&track.path))
                .ok()
                .map(|m| m.len());
            let extension = track.path.rsplit('.').next().unwrap_or("mp3");
            let metadata = json!({
                "category": category,
                "source": "api",
                "prompt": row.prompt,
                "promptUsed": row.prompt_used,
                "model": row.model,
                "modelName": model_name,
                "provider": row.provider,
                "seed": row.seed,
                "outputIndex": index,
                "generationId": row.id,
                "duration": track.duration_secs,
                "title": track.title,
                "lyrics": track.lyrics,
                "style": audio.style,
                "instrumental": (row.kind == MUSIC_KIND).then_some(job.instrumental),
                "voice": audio.voice,
                "voiceId": job.voice_id,
                "language": audio.language,
                "loop": (row.kind == SOUND_KIND).then_some(job.sound_loop),
                "format": extension,
                "referenceMedia": [],
                "visualDnaNames": [],
            });
            NewMedia {
                id: super::ids::new_object_id(),
                user_id: row.user_id.clone(),
                project_id: row.project_id.clone(),
                session_id: Some(row.session_id.clone()),
                generation_id: Some(row.id.clone()),
                output_index: index as u32,
                source_type: "generated".to_owned(),
                category: category.to_owned(),
                media_type: "audio".to_owned(),
                generation_type: Some(generation_type.to_owned()),
                name: track.title.clone().unwrap_or_else(|| name_base.clone()),
                filename: format!("{}_{index}.{extension}", row.id),
                rel_path: track.path.clone(),
                thumb_rel_path: None,
                owns_files: true,
                size_bytes,
                prompt: Some(row.prompt.clone()),
                width: None,
                height: None,
                duration_secs: Some(track.duration_secs),
                credits_used: Some(result.charged(row)),
                generation_duration_secs: Some((row.duration_ms as f64 / 100.0).round() / 10.0),
                source_tag: Some("api".to_owned()),
                metadata,
                created_at: created_at.clone(),
                created_ms: now_ms,
                ..NewMedia::default()
            }
        })
        .collect()
}

fn seconds_of(samples: &[f32]) -> f64 {
    (samples.len() as f64 / f64::from(RATE_HZ) * 1000.0).round() / 1000.0
}

fn short(text: &str, max_chars: usize) -> String {
    let trimmed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if trimmed.chars().count() <= max_chars {
        trimmed
    } else {
        format!(
            "{}…",
            trimmed
                .chars()
                .take(max_chars)
                .collect::<String>()
                .trim_end()
        )
    }
}

/// A title from the prompt's first words, in title case ("Summer Vibes").
pub(crate) fn song_title(prompt: &str) -> String {
    const SKIP: [&str; 8] = ["a", "an", "the", "song", "track", "about", "with", "of"];
    let words: Vec<String> = prompt
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty() && !SKIP.contains(&w.to_lowercase().as_str()))
        .take(3)
        .map(|w| {
            let mut chars = w.chars();
            chars
                .next()
                .map(|first| {
                    first
                        .to_uppercase()
                        .chain(chars.flat_map(char::to_lowercase))
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect();
    if words.is_empty() {
        "Untitled".to_owned()
    } else {
        words.join(" ")
    }
}

/// Two short verses built from the prompt's words.
fn made_up_lyrics(prompt: &str, seed: i64) -> String {
    let mut rng = super::sound::Rng::new(seed as u64);
    let words: Vec<String> = super::sound::prompt_words(prompt)
        .into_iter()
        .filter(|w| w.len() > 3)
        .collect();
    let pick = |rng: &mut super::sound::Rng| {
        words
            .get(rng.below(words.len()))
            .cloned()
            .unwrap_or_else(|| "tonight".to_owned())
    };
    const LINES: [&str; 6] = [
        "We were chasing the {} all night long",
        "Hold on to the {}, it's where we belong",
        "Every little {} keeps calling my name",
        "Nothing feels the same without the {}",
        "Sing it out loud, let the {} come through",
        "I found my way back to the {} and you",
    ];
    let verse = |rng: &mut super::sound::Rng| {
        (0..4)
            .map(|_| LINES[rng.below(LINES.len())].replace("{}", &pick(rng)))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let first = verse(&mut rng);
    let chorus = verse(&mut rng);
    format!("[Verse]\n{first}\n\n[Chorus]\n{chorus}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_come_from_the_prompt() {
        assert_eq!(
            song_title("a song about summer vibes at the beach"),
            "Summer Vibes At"
        );
        assert_eq!(song_title("!!!"), "Untitled");
    }
}
