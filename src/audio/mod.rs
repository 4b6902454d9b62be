//! Sound: decoding audio files (symphonia), the studio's one audio output (rodio on
//! cpal; ALSA on Linux), waveform peaks and WAV export. No egui.
//!
//! - [`source`]: [`SampleSource`], the pull interface every decoded sound offers, and
//!   [`open_file`] (MP3, WAV, FLAC, Ogg Vorbis, AAC-LC in M4A/MP4), streaming.
//! - [`output`]: [`AudioOutput`], a named thread owning the device; one sound at a time;
//!   the playback clock the video player follows; a wall clock when there is no device.
//! - [`peaks`]: [`Peaks`] for waveforms, computed from a bounded number of decoded
//!   packets spread across the file so a long file costs a bounded time.
//! - [`wav`]: [`wav::encode_wav`] for "Save as WAV".
//! - [`mp4`]: [`mp4::Mp4AudioSource`], the sound track of an MP4 video (AAC-LC, Opus, MP3)
//!   as the video player plays it, demuxed by `video_codec::audio_track`.

pub mod mp4;
pub mod output;
pub mod peaks;
pub mod source;
pub mod testing;
pub mod wav;

pub use output::{
    AudioOutput, CaptureSink, DeviceState, OutputConfig, OutputDevice, Playback, PlaybackState,
};
pub use peaks::{Peaks, compute_peaks};
pub use source::{AudioInfo, SampleSource, open_file};

/// Why a sound could not be opened, decoded or played.
#[derive(Debug, thiserror::Error)]
pub enum AudioError {
    #[error("this file has no sound track")]
    NoTrack,
    /// A codec or container the studio cannot play.
    #[error("unsupported audio: {0}")]
    Unsupported(String),
    #[error("damaged audio: {0}")]
    Decode(String),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error("audio output: {0}")]
    Device(String),
}
