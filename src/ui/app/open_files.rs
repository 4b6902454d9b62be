//! Files handed to the studio from outside: named on the command line
//! (`framewright FILE…`, e.g. the file manager's "Open with") or by a later launch through
//! the single-instance listener. A later launch also brings the window to the front.
//! Images and videos go where a drop on Create puts them (`CreateState::add_source_files`:
//! images become Image edit sources, a video the source of a video edit); a missing or
//! unsupported file is named in a toast.

use super::StudioApp;
use crate::desktop::single_instance::{Incoming, LaunchRequest};
use crate::ui::compose::state::file_name;
use crate::ui::dialogs::{is_image_path, is_video_path};
use crate::ui::model::{Action, View};
use crate::ui::toasts::ToastKind;

/// Launch requests not yet opened, and where later ones arrive.
#[derive(Default)]
pub(super) struct Launches {
    pending: Vec<LaunchRequest>,
    incoming: Option<Incoming>,
}

impl Launches {
    /// The command line's own files, opened on the first frame.
    pub(super) fn new(startup: LaunchRequest) -> Self {
        let has_files = !startup.files.is_empty() || !startup.missing.is_empty();
        Self {
            pending: if has_files { vec![startup] } else { Vec::new() },
            incoming: None,
        }
    }
}

impl StudioApp {
    /// Open what later launches hand over (this studio is the data folder's first
    /// instance); each request repaints the window.
    pub fn listen_for_launches(&mut self, ctx: &egui::Context, incoming: Incoming) {
        let ctx = ctx.clone();
        incoming.set_waker(move || ctx.request_repaint());
        self.launches.incoming = Some(incoming);
    }

    /// Each frame: open the files of every request that has arrived.
    pub(super) fn open_launched_files(&mut self, ctx: &egui::Context) {
        let mut requests = std::mem::take(&mut self.launches.pending);
        if let Some(incoming) = &self.launches.incoming {
            while let Some(request) = incoming.try_recv() {
                requests.push(request);
            }
        }
        for request in requests {
            self.open_launch(ctx, request);
        }
    }

    fn open_launch(&mut self, ctx: &egui::Context, request: LaunchRequest) {
        if let Some(path) = request.play.clone() {
            // `framewright --play FILE` while this studio runs: played here, next frame.
            self.play_on_start = Some(path);
        }
        if request.focus {
            // A minimised window is restored first: focusing it alone leaves it iconified
            // on some window managers.
            ctx.send_viewport_cmd(egui::ViewportCommand::Minimized(false));
            ctx.send_viewport_cmd(egui::ViewportCommand::Focus);
        }
        for path in &request.missing {
            self.toasts.push(
                ToastKind::Error,
                format!(
                    "Could not open “{}”: there is no such file ({})",
                    file_name(path),
                    path.display()
                ),
            );
        }
        let (openable, unsupported): (Vec<_>, Vec<_>) = request
            .files
            .into_iter()
            .partition(|path| is_image_path(path) || is_video_path(path));
        for path in &unsupported {
            self.toasts.push(
                ToastKind::Error,
                format!(
                    "Could not open “{}”: Framewright opens images and videos only",
                    file_name(path)
                ),
            );
        }
        if openable.is_empty() {
            return;
        }
        tracing::info!("opening {} file(s) handed to the studio", openable.len());
        self.apply(ctx, Action::CloseViewer);
        self.apply(ctx, Action::Navigate(View::Create));
        for action in self.create.add_source_files(openable) {
            self.apply(ctx, action);
        }
    }
}
