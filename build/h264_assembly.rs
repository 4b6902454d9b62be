//! Whether the OpenH264 that `openh264-sys2` builds gets its assembly. Shared by `build.rs`
//! (which runs the probe) and the library's unit tests (which check the decisions).
//!
//! openh264-sys2 declares no `links`, so no `DEP_*` metadata reaches this crate; instead
//! this repeats its build's own test: on x86/x86_64 the assembly is built by `nasm`
//! (`$NASM`, else `nasm` on `PATH`, via nasm-rs, which accepts any version it can parse)
//! unless `OPENH264_NO_ASM` is set; on ARM (not Windows) the NEON `.S` files go through
//! the C compiler, so there is always assembly; other targets have none.

/// What the probe found, for the message printed when the answer is "no".
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AssemblyCheck {
    /// The assembly is built.
    Built,
    /// No assembly, and why (words for a person building the project).
    Missing(String),
}

/// nasm's `-v` output, e.g. "NASM version 2.16.01 compiled on ..." → (2, 16, 1). `None`
/// for anything that is not a NASM version line (nasm-rs then fails, and so the build).
pub fn parse_nasm_version(output: &str) -> Option<(u32, u32, u32)> {
    let mut words = output.split_whitespace();
    if words.next()? != "NASM" || words.next()? != "version" {
        return None;
    }
    let version = words.next()?;
    // Release candidates ("2.14rc2") count as their release, as nasm-rs does.
    let version = version.split("rc").next().unwrap_or(version);
    let mut parts = version.split('.').map(|part| part.parse::<u32>().ok());
    let major = parts.next().flatten()?;
    let minor = parts.next().flatten().unwrap_or(0);
    let micro = parts.next().flatten().unwrap_or(0);
    Some((major, minor, micro))
}

/// The decision from the target and what the probe saw. `nasm_output` is the first
/// successful `nasm -v` output (`None`: no nasm could be run).
pub fn check(
    target_arch: &str,
    target_os: &str,
    no_asm_env_set: bool,
    nasm_output: Option<&str>,
) -> AssemblyCheck {
    match target_arch {
        "x86" | "x86_64" => {
            if no_asm_env_set {
                return AssemblyCheck::Missing("OPENH264_NO_ASM is set".to_owned());
            }
            match nasm_output {
                Some(output) if parse_nasm_version(output).is_some() => AssemblyCheck::Built,
                Some(output) => AssemblyCheck::Missing(format!(
                    "`nasm -v` printed “{}”, not a NASM version",
                    output.trim()
                )),
                None => AssemblyCheck::Missing("no nasm in $NASM or on PATH".to_owned()),
            }
        }
        "arm" | "aarch64" if target_os != "windows" => AssemblyCheck::Built,
        _ => AssemblyCheck::Missing(format!(
            "OpenH264 has no assembly for {target_arch} on {target_os}"
        )),
    }
}
