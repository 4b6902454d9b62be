//! `framewright sandbox [--port N] [--data DIR] [--api-key KEY] [--speed FACTOR] [--rate-window-secs N] [--failure-rate R] [--faults LIST] [--drop-submit-answers N] [--seed-media N]`
//!
//! The key may also come from the environment variable `FRAMEWRIGHT_API_KEY` (the name
//! the command prints), so it need not appear in `ps` output; `--api-key` wins over it.

use std::io::Write;
use std::path::PathBuf;

use super::config::SandboxConfig;
use super::handle::start;

const USAGE: &str = "usage: framewright sandbox [--port N] [--data DIR] [--api-key KEY] [--speed FACTOR] [--rate-window-secs N] [--failure-rate R] [--faults LIST] [--drop-submit-answers N] [--seed-media N]\n  the key may instead be given in the environment as FRAMEWRIGHT_API_KEY (--api-key wins)\n  --rate-window-secs shortens the contract's 60 s rate-limit windows (tests, demos)\n  --faults takes name=value pairs separated by commas: server_error, drop_before_handling, drop_after_handling, slow_body, malformed_json, rate_limit_storm (shares 0..1), slow_body_secs, added_latency_ms, seed";
const DEFAULT_DATA_DIR: &str = "framewright-sandbox-data";
/// The environment variable that may carry the key (the same name the command prints).
pub(crate) const API_KEY_ENV: &str = "FRAMEWRIGHT_API_KEY";

/// What the command line asks for beyond the server's own configuration.
struct CliOptions {
    config: SandboxConfig,
    /// Library items to add at start (demos, screenshots, manual scrolling tests).
    seed_media_count: usize,
}

/// `env_api_key`: the value of `FRAMEWRIGHT_API_KEY`, if set; an empty value counts as
/// unset (as `FRAMEWRIGHT_API_KEY= framewright sandbox` means in a shell).
fn parse(args: &[String], env_api_key: Option<String>) -> Result<CliOptions, String> {
    // Accept the argument list with or without the leading subcommand name.
    let args = match args.first() {
        Some(first) if first == "sandbox" => &args[1..],
        _ => args,
    };
    let mut config = SandboxConfig::new(PathBuf::from(DEFAULT_DATA_DIR));
    config.api_key = env_api_key.filter(|key| !key.trim().is_empty());
    let mut seed_media_count = 0;
    // An explicitly requested port must be honoured or fail loudly.
    config.port_fallback = false;
    let mut iter = args.iter();
    while let Some(flag) = iter.next() {
        let (name, inline) = match flag.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name, Some(value.to_owned())),
            _ => (flag.as_str(), None),
        };
        if name == "--help" || name == "-h" {
            return Err(USAGE.to_owned());
        }
        let mut value = || {
            inline
                .clone()
                .or_else(|| iter.next().cloned())
                .ok_or_else(|| format!("{name} needs a value\n{USAGE}"))
        };
        match name {
            "--port" => {
                let v = value()?;
                config.port = v
                    .parse()
                    .map_err(|_| format!("--port: '{v}' is not a port number"))?;
            }
            "--data" => config.data_dir = PathBuf::from(value()?),
            "--api-key" => {
                let v = value()?;
                if v.trim().is_empty() {
                    return Err("--api-key must not be empty".to_owned());
                }
                config.api_key = Some(v);
            }
            "--speed" => {
                let v = value()?;
                config.speed = v
                    .parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s > 0.0)
                    .ok_or_else(|| format!("--speed: '{v}' must be a positive number"))?;
            }
            "--rate-window-secs" => {
                let v = value()?;
                config.rate_window_secs = v
                    .parse::<u64>()
                    .ok()
                    .filter(|secs| (1..=super::config::MAX_RATE_WINDOW_SECS).contains(secs))
                    .ok_or_else(|| {
                        format!(
                            "--rate-window-secs: '{v}' must be whole seconds from 1 to {}",
                            super::config::MAX_RATE_WINDOW_SECS
                        )
                    })?;
            }
            "--failure-rate" => {
                let v = value()?;
                config.failure_rate = v
                    .parse::<f64>()
                    .ok()
                    .filter(|r| (0.0..=1.0).contains(r))
                    .ok_or_else(|| format!("--failure-rate: '{v}' must be between 0 and 1"))?;
            }
            "--faults" => {
                let v = value()?;
                config.faults = super::faults::FaultRates::parse_list(&v)
                    .map_err(|e| format!("--faults: {e}\n{USAGE}"))?;
            }
            "--drop-submit-answers" => {
                let v = value()?;
                config.drop_submit_answers = v
                    .parse::<u32>()
                    .map_err(|_| format!("--drop-submit-answers: '{v}' must be a count"))?;
            }
            "--seed-media" => {
                let v = value()?;
                seed_media_count = v
                    .parse::<usize>()
                    .ok()
                    .filter(|n| *n <= MAX_SEED_MEDIA)
                    .ok_or_else(|| {
                        format!("--seed-media: '{v}' must be a count up to {MAX_SEED_MEDIA}")
                    })?;
            }
            other => return Err(format!("unknown argument '{other}'\n{USAGE}")),
        }
    }
    Ok(CliOptions {
        config,
        seed_media_count,
    })
}

/// Upper bound for `--seed-media` (the library benchmark's size).
const MAX_SEED_MEDIA: usize = 100_000;

async fn wait_for_termination() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut sigterm) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = sigterm.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Runs the sandbox in the foreground; returns the process exit code.
pub fn run_cli(args: &[String]) -> i32 {
    let CliOptions {
        config,
        seed_media_count,
    } = match parse(args, std::env::var(API_KEY_ENV).ok()) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            return 2;
        }
    };
    // Logs go to stderr so stdout carries only the three machine-readable lines.
    // The one subscriber of this process (main does not install one for `sandbox`).
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .try_init();
    let handle = match start(config) {
        Ok(handle) => handle,
        Err(error) => {
            eprintln!("framewright sandbox: {error}");
            return 1;
        }
    };
    if let Some(recovery) = handle.store_recovery() {
        eprintln!("framewright sandbox: {}", recovery.message());
    }
    if seed_media_count > 0 {
        let seeded = handle.seed_media(seed_media_count, None);
        eprintln!("framewright sandbox: added {seeded} library items");
    }
    {
        let mut stdout = std::io::stdout().lock();
        let printed = writeln!(stdout, "FRAMEWRIGHT_BASE_URL={}", handle.base_url())
            .and_then(|()| writeln!(stdout, "FRAMEWRIGHT_API_KEY={}", handle.api_key()))
            .and_then(|()| writeln!(stdout, "FRAMEWRIGHT_ADMIN_TOKEN={}", handle.admin_token()))
            .and_then(|()| stdout.flush());
        if let Err(error) = printed {
            eprintln!("framewright sandbox: could not write to stdout: {error}");
        }
    }
    let waiter = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build();
    match waiter {
        Ok(runtime) => runtime.block_on(wait_for_termination()),
        Err(error) => {
            eprintln!("framewright sandbox: cannot wait for signals: {error}");
            return 1;
        }
    }
    eprintln!("framewright sandbox: shutting down");
    handle.shutdown();
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn parses_flags() {
        let options = parse(
            &args(&[
                "sandbox",
                "--port",
                "8123",
                "--data=/tmp/x",
                "--speed",
                "4",
                "--failure-rate",
                "0.5",
                "--seed-media",
                "240",
                "--rate-window-secs",
                "5",
            ]),
            None,
        )
        .expect("valid");
        assert_eq!(options.seed_media_count, 240);
        let config = options.config;
        assert_eq!(config.port, 8123);
        assert_eq!(config.data_dir, PathBuf::from("/tmp/x"));
        assert_eq!(config.speed, 4.0);
        assert_eq!(config.failure_rate, 0.5);
        assert_eq!(config.rate_window_secs, 5);
        assert!(parse(&args(&["--port", "x"]), None).is_err());
        assert!(parse(&args(&["--failure-rate", "2"]), None).is_err());
        assert!(parse(&args(&["--bogus"]), None).is_err());
        assert!(parse(&args(&["--seed-media", "-3"]), None).is_err());
        assert!(parse(&args(&["--rate-window-secs", "0"]), None).is_err());
    }

    #[test]
    fn key_comes_from_the_environment_unless_the_flag_gives_one() {
        let from_env = parse(&args(&["sandbox"]), Some("fw_env_key".to_owned())).expect("valid");
        assert_eq!(from_env.config.api_key.as_deref(), Some("fw_env_key"));
        let flag_wins = parse(
            &args(&["sandbox", "--api-key", "fw_flag_key"]),
            Some("fw_env_key".to_owned()),
        )
        .expect("valid");
        assert_eq!(flag_wins.config.api_key.as_deref(), Some("fw_flag_key"));
        let empty = parse(&args(&["sandbox"]), Some("  ".to_owned())).expect("valid");
        assert_eq!(
            empty.config.api_key, None,
            "an empty variable counts as unset"
        );
    }
}
