//! Whether this build's OpenH264 has its assembly, as `build.rs` found (see
//! `build/h264_assembly.rs`): without it decoding is 1.7–1.8× slower, and the studio says
//! so once at startup.

/// `true` when OpenH264 was built with its assembly (nasm on x86/x86_64, NEON on ARM).
/// `false` in builds without the `h264` feature, which have no decoder at all.
pub fn h264_has_assembly() -> bool {
    cfg!(feature = "h264") && env!("FRAMEWRIGHT_H264_ASSEMBLY") == "1"
}

/// The startup warning for a decoder without assembly (nothing in builds without one).
pub fn warn_if_h264_without_assembly() {
    if cfg!(feature = "h264") {
        warn_when_without_assembly(h264_has_assembly());
    }
}

fn warn_when_without_assembly(has_assembly: bool) {
    if !has_assembly {
        tracing::warn!(
            "this build's H.264 decoder has no assembly (OpenH264 was built without nasm): \
             video plays and seeks 1.7-1.8x slower; rebuild with nasm installed"
        );
    }
}

#[cfg(test)]
#[path = "../../build/h264_assembly.rs"]
mod probe;

#[cfg(test)]
mod tests {
    use super::probe::{AssemblyCheck, check, parse_nasm_version};
    use super::warn_when_without_assembly;
    use std::sync::Mutex;

    /// What the studio's log (at info) holds after `run`.
    fn logged_at_info(run: impl FnOnce()) -> String {
        let file = tempfile::NamedTempFile::new().expect("temp file");
        let writer = file.reopen().expect("reopen");
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .with_max_level(tracing::Level::INFO)
            .with_writer(Mutex::new(writer))
            .finish();
        tracing::subscriber::with_default(subscriber, run);
        std::fs::read_to_string(file.path()).expect("read log")
    }

    #[test]
    fn the_studio_warns_when_its_decoder_has_no_assembly() {
        let log = logged_at_info(|| warn_when_without_assembly(false));
        assert!(log.contains("WARN"), "{log}");
        assert!(log.contains("no assembly") && log.contains("nasm"), "{log}");

        let log = logged_at_info(|| warn_when_without_assembly(true));
        assert!(log.is_empty(), "nothing to say with assembly: {log}");
    }

    #[test]
    fn nasm_version_lines_are_read_like_nasm_rs_reads_them() {
        assert_eq!(
            parse_nasm_version("NASM version 2.16.01 compiled on Jan  1 2024\n"),
            Some((2, 16, 1))
        );
        assert_eq!(parse_nasm_version("NASM version 2.14"), Some((2, 14, 0)));
        assert_eq!(parse_nasm_version("NASM version 2.14rc2"), Some((2, 14, 0)));
        assert_eq!(parse_nasm_version("yasm 1.3.0"), None);
        assert_eq!(parse_nasm_version(""), None);
    }

    #[test]
    fn assembly_needs_nasm_on_x86_and_not_on_arm() {
        let nasm = Some("NASM version 2.16.01");
        assert_eq!(check("x86_64", "linux", false, nasm), AssemblyCheck::Built);
        assert_eq!(check("x86", "windows", false, nasm), AssemblyCheck::Built);
        assert!(matches!(
            check("x86_64", "linux", false, None),
            AssemblyCheck::Missing(reason) if reason.contains("no nasm")
        ));
        assert!(matches!(
            check("x86_64", "macos", true, nasm),
            AssemblyCheck::Missing(reason) if reason.contains("OPENH264_NO_ASM")
        ));
        assert!(matches!(
            check("x86_64", "linux", false, Some("something else")),
            AssemblyCheck::Missing(_)
        ));
        // NEON goes through the C compiler.
        assert_eq!(check("aarch64", "macos", false, None), AssemblyCheck::Built);
        // openh264-sys2 cannot assemble ARM on Windows (cl.exe), nor has any elsewhere.
        assert!(matches!(
            check("aarch64", "windows", false, nasm),
            AssemblyCheck::Missing(_)
        ));
        assert!(matches!(
            check("riscv64", "linux", false, nasm),
            AssemblyCheck::Missing(_)
        ));
    }
}
