//! The project's own build checks. One for now: whether OpenH264 (feature `h264`) gets its
//! assembly. Without it video decodes 1.7–1.8× slower; openh264-sys2 only prints a line
//! into its build output, so this says it loudly (`cargo:warning`) and tells the crate
//! (`FRAMEWRIGHT_H264_ASSEMBLY`, read by `video_codec::h264_has_assembly`), whose studio
//! logs a warning at startup.

#[path = "build/h264_assembly.rs"]
mod h264_assembly;

use h264_assembly::AssemblyCheck;
use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build/h264_assembly.rs");
    println!("cargo:rerun-if-env-changed=NASM");
    println!("cargo:rerun-if-env-changed=OPENH264_NO_ASM");
    if std::env::var_os("CARGO_FEATURE_H264").is_none() {
        println!("cargo:rustc-env=FRAMEWRIGHT_H264_ASSEMBLY=0");
        return;
    }
    let target_arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let no_asm_env_set = std::env::var_os("OPENH264_NO_ASM").is_some();
    let nasm_output = if matches!(target_arch.as_str(), "x86" | "x86_64") && !no_asm_env_set {
        nasm_version_output()
    } else {
        None
    };
    let check = h264_assembly::check(
        &target_arch,
        &target_os,
        no_asm_env_set,
        nasm_output.as_deref(),
    );
    let has_assembly = check == AssemblyCheck::Built;
    println!(
        "cargo:rustc-env=FRAMEWRIGHT_H264_ASSEMBLY={}",
        u8::from(has_assembly)
    );
    if let AssemblyCheck::Missing(reason) = check {
        println!(
            "cargo:warning=OpenH264 is built WITHOUT its assembly ({reason}): video decodes \
             1.7-1.8x slower. Install nasm (and leave OPENH264_NO_ASM unset), then \
             `cargo clean -p openh264-sys2 -p framewright` and build again."
        );
    }
}

/// The first `nasm -v` that runs, in nasm-rs's order: `$NASM`, else `nasm`, then each
/// `PATH` entry's `nasm`.
fn nasm_version_output() -> Option<String> {
    let candidates: Vec<PathBuf> = match std::env::var_os("NASM") {
        Some(nasm) => vec![PathBuf::from(nasm)],
        None => {
            let path = std::env::var_os("PATH").unwrap_or_default();
            std::iter::once(PathBuf::from("nasm"))
                .chain(std::env::split_paths(&path).map(|dir| dir.join("nasm")))
                .collect()
        }
    };
    candidates.iter().find_map(|nasm| {
        let output = Command::new(nasm).arg("-v").output().ok()?;
        output
            .status
            .success()
            .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
    })
}
