//! Time read-outs for sound: `m:ss.t` (tenths), the one format of the audio view, the
//! waveform's hover label and the audio tiles.

/// `m:ss.t`: minutes, seconds and tenths (`1:05.3`). Negative or non-finite times show as
/// `0:00.0`; tenths are truncated so the read-out never runs ahead of the sound.
pub fn clock(time_secs: f64) -> String {
    let time_secs = if time_secs.is_finite() {
        time_secs.max(0.0)
    } else {
        0.0
    };
    let tenths = (time_secs * 10.0 + 1e-6).floor() as u64;
    let secs = tenths / 10;
    format!("{}:{:02}.{}", secs / 60, secs % 60, tenths % 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_reads_minutes_seconds_and_tenths() {
        assert_eq!(clock(0.0), "0:00.0");
        assert_eq!(clock(65.37), "1:05.3");
        assert_eq!(clock(-3.0), "0:00.0");
        assert_eq!(clock(f64::NAN), "0:00.0");
        assert_eq!(clock(0.3), "0:00.3");
    }
}
