//! `framewright` opens the studio; `framewright sandbox` runs the local service alone.

use framewright::desktop::single_instance::{self, LaunchRequest, Startup};
use framewright::session::{SANDBOX_SPEED_ENV, Session, SessionOptions};
use framewright::settings::{AppPaths, Settings};
use framewright::ui::{ScreenshotScene, StartupOptions, StudioApp, View, window};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

const USAGE: &str = "\
Framewright — a desktop studio for the Generation Service

USAGE:
  framewright                                   open the studio (local sandbox by default)
  framewright --screenshot-to FILE.png [--view create|library|palettes|presets|docs|chat|settings|video|storyboard|video-edit|
                               transcript|music|3d] [--size WxH]
                                                open, wait for the view's data, save a screenshot, exit
                                                (video: a short sandbox clip paused in the viewer;
                                                 storyboard: a Creative Director batch on Create;
                                                 video-edit: that clip on the trim timeline;
                                                 docs: a shared call sheet with a table;
                                                 chat: a question and its streamed answer;
                                                 transcript: that clip with subtitles and its transcript;
                                                 music: a song's two variations on Create;
                                                 3d: a 3D model on the viewer's turntable)
  framewright [--view NAME] [--size WxH]        open on that view / at that window size (points)
  framewright [--tray open|closed]              start with the job tray open or closed, whatever was
                                                remembered (with --screenshot-to and open: a finished
                                                image job is staged so the tray shows a card)
  framewright --play FILE                       open a video or a sound in the viewer and play it
  framewright [--] FILE…                        open images as edit sources in Create and videos as
                                                the source of a video edit; when Framewright is
                                                already running (same data folder), the files go
                                                to that window, which comes to the front
  framewright sandbox [--port N] [--data DIR] [--api-key KEY] [--speed FACTOR] [--rate-window-secs N]
                     [--failure-rate R] [--faults LIST] [--drop-submit-answers N] [--seed-media N]
                                                run the local service alone on 127.0.0.1 (the key may
                                                instead come from FRAMEWRIGHT_API_KEY; see --help there)
  framewright --help | --version

ENVIRONMENT:
  FRAMEWRIGHT_HOME            keep settings, data, cache and logs under this folder
  FRAMEWRIGHT_SANDBOX_SPEED   make the embedded sandbox's jobs this many times faster
  RUST_LOG                    log filter (default: info)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("sandbox") => {
            // The sandbox installs its own stderr subscriber (info, or RUST_LOG).
            let code = framewright::sandbox::run_cli(&args[1..]);
            ExitCode::from(u8::try_from(code).unwrap_or(1))
        }
        Some("--help" | "-h" | "help") => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some("--version" | "-V") => {
            println!("framewright {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        _ => match parse_studio_args(&args) {
            Ok(cli) => run_studio(cli),
            Err(message) => {
                eprintln!("framewright: {message}\n\n{USAGE}");
                ExitCode::from(2)
            }
        },
    }
}

/// The studio's command line.
#[derive(Default)]
struct StudioArgs {
    /// `--view`; without it the studio opens on the view shown last.
    view: Option<View>,
    screenshot_to: Option<PathBuf>,
    /// `--size WxH`: the window's inner size in points, instead of the remembered one.
    size_pt: Option<[f32; 2]>,
    /// `--view video|storyboard|video-edit|transcript|music|3d`: stage that scene on the local sandbox
    /// (screenshots).
    screenshot_scene: Option<ScreenshotScene>,
    /// Files to open (absolute; a running studio is handed them).
    files: Vec<PathBuf>,
    /// `--tray open|closed`.
    tray_open: Option<bool>,
    /// `--play FILE` (absolute).
    play_file: Option<PathBuf>,
}

fn parse_studio_args(args: &[String]) -> Result<StudioArgs, String> {
    let mut options = StudioArgs::default();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--screenshot-to" => {
                let path = iter.next().ok_or("--screenshot-to needs a file path")?;
                options.screenshot_to = Some(PathBuf::from(path));
            }
            "--view"
                if matches!(
                    iter.clone().next().map(String::as_str),
                    Some("video" | "storyboard" | "video-edit" | "transcript" | "music" | "3d")
                ) =>
            {
                // A video paused in the viewer, a Creative Director storyboard on the
                // Create canvas, or a video on the trim timeline, made on the local sandbox
                // (for screenshots).
                options.view = Some(View::Create);
                options.screenshot_scene = match iter.next().map(String::as_str) {
                    Some("video") => Some(ScreenshotScene::Video),
                    Some("video-edit") => Some(ScreenshotScene::VideoEdit),
                    Some("transcript") => Some(ScreenshotScene::Transcript),
                    Some("music") => Some(ScreenshotScene::Music),
                    Some("3d") => Some(ScreenshotScene::ThreeD),
                    _ => Some(ScreenshotScene::Storyboard),
                };
            }
            "--view" => {
                let view = iter.next().ok_or("--view needs a view name")?;
                options.view = Some(view.parse().map_err(|_| {
                    format!(
                        "unknown view “{view}” (create, library, palettes, visual-dna, presets, docs, chat, settings)"
                    )
                })?);
            }
            "--size" => {
                let size = iter
                    .next()
                    .ok_or("--size needs WIDTHxHEIGHT, e.g. 1024x700")?;
                options.size_pt = Some(parse_size(size).ok_or_else(|| {
                    format!("--size “{size}” is not WIDTHxHEIGHT (e.g. 1024x700)")
                })?);
            }
            "--play" => {
                let file = iter.next().ok_or("--play needs a video or sound file")?;
                options.play_file = Some(absolute_path(file)?);
            }
            "--tray" => {
                options.tray_open = match iter.next().map(String::as_str) {
                    Some("open") => Some(true),
                    Some("closed") => Some(false),
                    _ => return Err("--tray needs “open” or “closed”".to_owned()),
                };
            }
            "--" => {
                for file in iter.by_ref() {
                    options.files.push(absolute_path(file)?);
                }
            }
            other if other.starts_with('-') && other.len() > 1 => {
                return Err(format!("unknown argument “{other}”"));
            }
            file => options.files.push(absolute_path(file)?),
        }
    }
    // A screenshot of Docs stages a saved, shared document with a table.
    if options.screenshot_to.is_some() && options.view == Some(View::Docs) {
        options.screenshot_scene = Some(ScreenshotScene::Docs);
    }
    // A screenshot with the tray open shows a card in it: one finished image job.
    if options.screenshot_to.is_some()
        && options.tray_open == Some(true)
        && options.screenshot_scene.is_none()
    {
        options.screenshot_scene = Some(ScreenshotScene::TrayJob);
    }
    Ok(options)
}

/// A file argument as an absolute path (a running studio has another working folder).
fn absolute_path(file: &str) -> Result<PathBuf, String> {
    std::path::absolute(file).map_err(|e| format!("cannot use the file “{file}”: {e}"))
}

/// `1024x700` → `[1024.0, 700.0]`.
fn parse_size(text: &str) -> Option<[f32; 2]> {
    let (width, height) = text.split_once(['x', 'X', '×'])?;
    let width: f32 = width.trim().parse().ok()?;
    let height: f32 = height.trim().parse().ok()?;
    (width >= 1.0 && height >= 1.0).then_some([width, height])
}

/// Sandbox speed for staged screenshot scenes: a 90-s video job takes about 2 s.
const SCENE_SANDBOX_SPEED: f64 = 50.0;

fn run_studio(cli: StudioArgs) -> ExitCode {
    let Some(paths) = AppPaths::discover() else {
        eprintln!(
            "framewright: could not find a home folder for settings and data; set FRAMEWRIGHT_HOME"
        );
        return ExitCode::FAILURE;
    };
    if let Err(err) = paths.create_all() {
        eprintln!(
            "framewright: could not create {}: {err}",
            paths.data_dir.display()
        );
        return ExitCode::FAILURE;
    }
    framewright::logging::init_studio(&paths.log_file());
    framewright::video_codec::warn_if_h264_without_assembly();

    // One studio per data folder: a second launch hands its files to the first and exits.
    // Screenshot runs (CI, in parallel with fresh homes) stay out of it.
    let mut instance = None;
    if cli.screenshot_to.is_none() {
        let request = LaunchRequest {
            focus: true,
            files: cli.files.clone(),
            play: cli.play_file.clone(),
            missing: Vec::new(),
        };
        match single_instance::claim_or_hand_over(&paths.data_dir, &request) {
            Ok(Startup::HandedOver) => {
                tracing::info!("handed over to the Framewright already running");
                return ExitCode::SUCCESS;
            }
            Ok(Startup::First(first)) => instance = Some(first),
            Err(error) => {
                tracing::info!("single instance: {error}");
                eprintln!("framewright: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    let launches = instance.as_mut().and_then(|i| i.take_incoming());
    tracing::info!("starting; data in {}", paths.data_dir.display());

    // Where the studio was left: window and view. A screenshot run uses the defaults so
    // its pictures do not depend on the last session.
    let memory = Settings::load(&paths.settings_file()).ui;
    let mut options = StartupOptions {
        initial_view: window::startup_view(cli.view, &memory),
        screenshot_to: cli.screenshot_to,
        screenshot_scene: cli.screenshot_scene,
        open_files: LaunchRequest {
            focus: false,
            files: cli.files,
            play: None,
            missing: Vec::new(),
        },
        tray_open: cli.tray_open,
        play_file: cli.play_file,
    };
    options.open_files.check_files();
    let saved_window = memory.window.filter(|_| options.screenshot_to.is_none());
    // A staged scene waits for real jobs: unless the sandbox speed is set, run them fast
    // enough to finish within the screenshot's timeout.
    let mut session_options = SessionOptions::default();
    if options.screenshot_scene.is_some() && std::env::var_os(SANDBOX_SPEED_ENV).is_none() {
        session_options.sandbox_speed = SCENE_SANDBOX_SPEED;
    }
    let mut geometry = window::initial_geometry(saved_window);
    if let Some([width, height]) = cli.size_pt {
        geometry.inner_width_pt = width.max(window::MIN_INNER_SIZE_PT[0]);
        geometry.inner_height_pt = height.max(window::MIN_INNER_SIZE_PT[1]);
        geometry.maximized = false;
    }
    let mut viewport = egui::ViewportBuilder::default()
        .with_title("Framewright")
        .with_app_id("framewright")
        .with_inner_size([geometry.inner_width_pt, geometry.inner_height_pt])
        .with_min_inner_size(window::MIN_INNER_SIZE_PT)
        .with_maximized(geometry.maximized)
        .with_icon(load_icon());
    if let Some(position) = geometry.position_pt {
        viewport = viewport.with_position(position);
    }
    let native_options = eframe::NativeOptions {
        viewport,
        renderer: eframe::Renderer::Glow,
        ..Default::default()
    };
    let result = eframe::run_native(
        "Framewright",
        native_options,
        Box::new(move |cc| {
            let ctx = cc.egui_ctx.clone();
            let repaint = Arc::new(move || ctx.request_repaint());
            let session = Session::open_with(paths, session_options, repaint);
            let mut app = StudioApp::new(&cc.egui_ctx, session, options);
            if let Some(launches) = launches {
                app.listen_for_launches(&cc.egui_ctx, launches);
            }
            Ok(Box::new(app))
        }),
    );
    // The lock is held until the window has closed and the engine has stopped.
    drop(instance);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("framewright: the window could not be opened: {err}");
            ExitCode::FAILURE
        }
    }
}

fn load_icon() -> egui::IconData {
    let bytes = include_bytes!("../assets/icon.png");
    match image::load_from_memory(bytes) {
        Ok(image) => {
            let rgba = image.to_rgba8();
            egui::IconData {
                width: rgba.width(),
                height: rgba.height(),
                rgba: rgba.into_raw(),
            }
        }
        Err(_) => egui::IconData::default(),
    }
}
