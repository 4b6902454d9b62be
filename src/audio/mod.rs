//! TEMPORARY stand-in for the core helper's `audio` module (branch i21-core): only the parts
//! of INTERFACES.md §1 that `audio::mp4` needs. Replaced by core's file at the merge.
pub mod mp4;

#[derive(Debug, thiserror::Error)]
pub enum AudioError {
    #[error("this file has no sound track")]
    NoTrack,
    #[error("unsupported audio: {0}")]
    Unsupported(String),
    #[error("damaged audio: {0}")]
    Decode(String),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error("audio output: {0}")]
    Device(String),
}

/// Decoded audio, pulled by the output thread (and by peaks / WAV export).
pub trait SampleSource: Send + 'static {
    fn sample_rate_hz(&self) -> u32;
    fn channels(&self) -> u16;
    fn duration_secs(&self) -> Option<f64>;
    fn read(&mut self, out: &mut [f32]) -> Result<usize, AudioError>;
    fn seek(&mut self, time_secs: f64) -> Result<(), AudioError>;
}
