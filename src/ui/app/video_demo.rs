//! `--screenshot-to FILE --view video`: make a short video on the local sandbox, open it
//! from the Library in the viewer and pause it on a frame past the start, so the capture
//! shows the player with its controls.

use super::StudioApp;
use crate::ui::model::{ResultRef, View};
use std::sync::mpsc::{Receiver, TryRecvError};

/// The frame the capture is paused on.
pub const DEMO_FRAME: u32 = 40;

pub enum VideoDemo {
    /// The sandbox is rendering the clip.
    Making(Receiver<Result<(), String>>),
    /// The Library is loading; waiting for the video item.
    Library,
    /// The viewer plays it; `seeked` once the seek to `DEMO_FRAME` was sent.
    Viewing {
        seeked: bool,
    },
    Failed,
}

impl VideoDemo {
    pub fn start(app: &StudioApp) -> Self {
        match app.session.local_sandbox() {
            Some(sandbox) => VideoDemo::Making(crate::engine::video::make_demo_video(
                sandbox.base_url(),
                sandbox.api_key(),
            )),
            None => {
                eprintln!("screenshot: --view video needs the local sandbox profile");
                VideoDemo::Failed
            }
        }
    }
}

impl StudioApp {
    /// One step of the demo, once a frame.
    pub(super) fn video_demo_step(&mut self) {
        let Some(demo) = self.video_demo.as_mut() else {
            return;
        };
        match demo {
            VideoDemo::Making(done) => match done.try_recv() {
                Ok(Ok(())) => {
                    self.view = View::Library;
                    *demo = VideoDemo::Library;
                }
                Ok(Err(error)) => {
                    eprintln!("screenshot: could not make a video: {error}");
                    *demo = VideoDemo::Failed;
                }
                Err(TryRecvError::Empty) => {}
                Err(TryRecvError::Disconnected) => *demo = VideoDemo::Failed,
            },
            VideoDemo::Library => {
                let video = self
                    .library
                    .items
                    .loaded_items()
                    .map(|(_, item)| item)
                    .find(|item| crate::ui::video::is_video_item(item))
                    .cloned();
                if let Some(item) = video {
                    self.viewer.open(vec![ResultRef::Media(Box::new(item))], 0);
                    *demo = VideoDemo::Viewing { seeked: false };
                }
            }
            VideoDemo::Viewing { seeked } => {
                if !*seeked
                    && let Some(player) = self.viewer.video_player()
                    && player.shown_frame().is_some()
                {
                    *seeked = player.seek_frame(DEMO_FRAME);
                }
            }
            VideoDemo::Failed => {}
        }
    }

    /// The capture may be taken: paused on `DEMO_FRAME` (or the demo gave up).
    pub(super) fn video_demo_ready(&self) -> Option<bool> {
        let demo = self.video_demo.as_ref()?;
        Some(match demo {
            VideoDemo::Failed => true,
            VideoDemo::Viewing { seeked: true } => self
                .viewer
                .video_player()
                .is_some_and(|p| p.shown_frame() == Some(DEMO_FRAME)),
            _ => false,
        })
    }
}
