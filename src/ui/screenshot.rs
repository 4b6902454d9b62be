//! `--screenshot-to FILE.png`: wait for the view's data, let a few frames settle, capture
//! the window, write a PNG and close. Gives up after 30 s.

use egui::{ColorImage, ViewportCommand};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub const SETTLE_FRAMES: u32 = 6;
pub const TIMEOUT: Duration = Duration::from_secs(30);

type Shot = Arc<Mutex<Option<Arc<ColorImage>>>>;

pub struct ScreenshotMode {
    path: PathBuf,
    started: Instant,
    ready_frames: u32,
    requested: bool,
    shot: Shot,
    done: bool,
}

impl ScreenshotMode {
    pub fn new(path: PathBuf) -> Self {
        Self {
            path,
            started: Instant::now(),
            ready_frames: 0,
            requested: false,
            shot: Arc::new(Mutex::new(None)),
            done: false,
        }
    }

    /// Call at the end of every frame with whether the view has its data.
    pub fn update(&mut self, ctx: &egui::Context, data_ready: bool) {
        if self.done {
            return;
        }
        ctx.request_repaint();
        let captured = self.shot.lock().ok().and_then(|mut s| s.take());
        if let Some(image) = captured {
            match save_png(&image, &self.path) {
                Ok(()) => eprintln!("screenshot saved to {}", self.path.display()),
                Err(err) => eprintln!("could not save screenshot: {err}"),
            }
            self.finish(ctx);
            return;
        }
        if self.started.elapsed() > TIMEOUT {
            eprintln!(
                "screenshot: gave up after {} s waiting for the view to load",
                TIMEOUT.as_secs()
            );
            self.finish(ctx);
            return;
        }
        if data_ready {
            self.ready_frames += 1;
        }
        if !self.requested && self.ready_frames >= SETTLE_FRAMES {
            self.requested = true;
            let shot = self.shot.clone();
            let repaint = ctx.clone();
            ctx.send_viewport_cmd(ViewportCommand::Screenshot(egui::ScreenshotCallback::new(
                move |image| {
                    if let Ok(mut slot) = shot.lock() {
                        *slot = Some(image);
                    }
                    repaint.request_repaint();
                },
            )));
        }
    }

    fn finish(&mut self, ctx: &egui::Context) {
        self.done = true;
        ctx.send_viewport_cmd(ViewportCommand::Close);
    }
}

fn save_png(image: &ColorImage, path: &std::path::Path) -> Result<(), String> {
    let [width, height] = image.size;
    let bytes: Vec<u8> = image
        .pixels
        .iter()
        .flat_map(|c| c.to_srgba_unmultiplied())
        .collect();
    let buffer = image::RgbaImage::from_raw(width as u32, height as u32, bytes)
        .ok_or_else(|| "screenshot had the wrong size".to_owned())?;
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
    }
    buffer
        .save_with_format(path, image::ImageFormat::Png)
        .map_err(|e| e.to_string())
}
