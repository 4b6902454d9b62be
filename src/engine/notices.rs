//! Desktop notifications for jobs that finish while the studio is in the background
//! (notify-rust over D-Bus). The result's thumbnail is cached to a file first so the
//! notification can show it; a click on the notification comes back as
//! `Event::NoticeClicked`. Without a notification daemon (CI, bare sessions) the failure
//! is logged once and nothing else happens: the tray already shows the result.

use super::protocol::{Event, LocalJobId};
use super::runtime::Ctx;
use super::transfers::Transfers;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// What the notification says.
#[derive(Clone, Debug, PartialEq)]
pub struct Notice {
    pub local_id: LocalJobId,
    pub summary: String,
    pub body: String,
    /// Shown as the notification's image where the platform supports it.
    pub image_url: Option<String>,
}

/// "No notification daemon" is logged only once per run.
static UNAVAILABLE_LOGGED: AtomicBool = AtomicBool::new(false);

pub(crate) async fn show(ctx: Arc<Ctx>, transfers: Transfers, notice: Notice) {
    let image_path = match &notice.image_url {
        Some(url) => match transfers.cached_output(url).await {
            Ok(path) => Some(path),
            Err(error) => {
                tracing::debug!("notification without an image: {error}");
                None
            }
        },
        None => None,
    };
    let local_id = notice.local_id;
    let clicked = tokio::task::spawn_blocking(move || show_blocking(&notice, image_path))
        .await
        .unwrap_or(false);
    if clicked {
        ctx.emit(Event::NoticeClicked { local_id }).await;
    }
}

/// Shows the notification and waits for it to be clicked or closed; true when clicked.
#[cfg(all(unix, not(target_os = "macos")))]
fn show_blocking(notice: &Notice, image_path: Option<PathBuf>) -> bool {
    let mut notification = notify_rust::Notification::new();
    notification
        .appname("Framewright")
        .summary(&notice.summary)
        .body(&notice.body)
        .action("default", "Open");
    if let Some(path) = image_path.as_deref().and_then(|p| p.to_str()) {
        notification.image_path(path);
    }
    match notification.show() {
        Ok(handle) => {
            let mut clicked = false;
            handle.wait_for_action(|action| clicked = action == "default");
            clicked
        }
        Err(error) => {
            if !UNAVAILABLE_LOGGED.swap(true, Ordering::SeqCst) {
                tracing::info!("desktop notifications unavailable: {error}");
            }
            false
        }
    }
}

#[cfg(not(all(unix, not(target_os = "macos"))))]
fn show_blocking(notice: &Notice, _image_path: Option<PathBuf>) -> bool {
    if let Err(error) = notify_rust::Notification::new()
        .appname("Framewright")
        .summary(&notice.summary)
        .body(&notice.body)
        .show()
    {
        if !UNAVAILABLE_LOGGED.swap(true, Ordering::SeqCst) {
            tracing::info!("desktop notifications unavailable: {error}");
        }
    }
    false
}
