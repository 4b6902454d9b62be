//! The desktop's light/dark preference, for "follow the system" where the window system
//! does not report it (on Linux winit often reports no theme): the XDG desktop portal's
//! `color-scheme`, read by `dark-light`. Polled on a named thread every few seconds, never
//! per frame; each read is a D-Bus round trip.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

/// How often the preference is read again (a change shows within this time).
pub const POLL_INTERVAL_SECS: u64 = 5;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SystemTheme {
    Dark,
    Light,
}

const UNKNOWN: u8 = 0;
const DARK: u8 = 1;
const LIGHT: u8 = 2;

/// The latest preference read by the polling thread. The thread ends when this is dropped
/// (at its next poll) or when the desktop has no portal to ask.
pub struct SystemThemeWatch {
    latest: Arc<AtomicU8>,
}

impl SystemThemeWatch {
    /// Starts polling. `on_change` runs on the polling thread after the preference changes
    /// (the studio asks for a repaint there). `None` if the thread could not start.
    pub fn start(on_change: impl Fn() + Send + 'static) -> Option<Self> {
        let latest = Arc::new(AtomicU8::new(UNKNOWN));
        let shared = Arc::downgrade(&latest);
        let spawned = std::thread::Builder::new()
            .name("system-theme".to_owned())
            .spawn(move || {
                let mut last = UNKNOWN;
                loop {
                    let Some(latest) = shared.upgrade() else {
                        return; // The studio no longer asks.
                    };
                    let now = match dark_light::detect() {
                        Ok(dark_light::Mode::Dark) => DARK,
                        Ok(dark_light::Mode::Light) => LIGHT,
                        Ok(dark_light::Mode::Unspecified) => UNKNOWN,
                        Err(err) => {
                            // No session bus or no portal (a bare X server, CI): nothing
                            // will answer later either; the default theme stays.
                            tracing::info!("the desktop's colour scheme cannot be read: {err}");
                            return;
                        }
                    };
                    if now != last {
                        latest.store(now, Ordering::Relaxed);
                        last = now;
                        on_change();
                    }
                    drop(latest);
                    std::thread::sleep(Duration::from_secs(POLL_INTERVAL_SECS));
                }
            });
        match spawned {
            Ok(_) => Some(Self { latest }),
            Err(err) => {
                tracing::warn!("could not start the system theme thread: {err}");
                None
            }
        }
    }

    /// The preference last read; `None` until read, or when the desktop states none.
    pub fn latest(&self) -> Option<SystemTheme> {
        match self.latest.load(Ordering::Relaxed) {
            DARK => Some(SystemTheme::Dark),
            LIGHT => Some(SystemTheme::Light),
            _ => None,
        }
    }
}
