//! Which OpenH264 the video benches measure (shared by `video_decode` and `sandbox_trim`).

/// Prints whether this build's OpenH264 has its assembly: figures from a build without it
/// are 1.7-1.8x slower and not comparable.
pub fn print_assembly() {
    println!(
        "OpenH264 assembly: {}",
        if framewright::video_codec::h264_has_assembly() {
            "yes"
        } else {
            "NO (built without nasm; decoding is 1.7-1.8x slower)"
        }
    );
}
