//! Videos in the studio, driven through egui_kittest against the real studio on its
//! embedded sandbox: a text-to-video job (1:1, 720p, the shortest duration) lands in the
//! Library as a `video` item; it plays in the viewer (poster, then frames; Play and Space
//! advance the time, `.` steps exactly one frame, the scrub bar seeks, loop plays on past
//! the end), in the Library's detail pane, and its grid tile hover-scrubs.

use crate::support;
use support::{Studio, step_until, studio_at_speed};

use egui::accesskit::Role;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use framewright::ui::View;
use framewright::ui::video::player::VideoPlayerState;
use framewright::ui::video::time;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// Jobs finish in about a second; the render of a 4-s 720×720 clip decides.
const SPEED: f64 = 100.0;

/// Submit a text-to-video job straight to the sandbox (the studio's Create form does not
/// offer video yet) and wait until it completes; its result.
fn make_video(harness: &Studio) -> Value {
    let sandbox = harness
        .state()
        .session()
        .local_sandbox()
        .expect("the local sandbox runs");
    let (base_url, key) = (sandbox.base_url().to_owned(), sandbox.api_key().to_owned());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async move {
        let http = reqwest::Client::new();
        let submit: Value = http
            .post(format!("{base_url}/v1/generate/video"))
            .header("X-API-Key", &key)
            .json(&json!({
                "prompt": "a lighthouse beam sweeping over fog",
                "model": "google/veo-3",
                "duration": 2,
                "aspect_ratio": "1:1",
                "resolution": "720p",
            }))
            .send()
            .await
            .expect("submit")
            .json()
            .await
            .expect("submit json");
        let id = submit["generation_id"]
            .as_str()
            .expect("generation_id")
            .to_owned();
        let started = Instant::now();
        loop {
            let status: Value = http
                .get(format!("{base_url}/v1/generate/{id}/status"))
                .header("X-API-Key", &key)
                .send()
                .await
                .expect("poll")
                .json()
                .await
                .expect("poll json");
            match status["state"].as_str() {
                Some("completed") => return status["result"].clone(),
                Some("failed" | "cancelled") => panic!("the video job ended: {status}"),
                _ => {}
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "video job: {status}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
}

/// The studio on the Library with one finished video; the video tile's accessible name.
fn library_with_a_video(dir: &tempfile::TempDir) -> (Studio, Value, String) {
    let mut harness = studio_at_speed(dir, View::Create, SPEED);
    step_until(&mut harness, "the service data", |h| {
        h.state().projects_loaded() && h.state().catalog_loaded()
    });
    let result = make_video(&harness);
    harness
        .get_by_role_and_label(Role::Button, "Library")
        .click();
    harness.step();
    step_until(&mut harness, "the video in the library", |h| {
        h.state()
            .library_items()
            .iter()
            .any(|i| i.kind() == "video")
    });
    let item = harness
        .state()
        .library_items()
        .into_iter()
        .find(|i| i.kind() == "video")
        .expect("video item");
    assert_eq!(item.duration, Some(4.0), "veo-3's shortest length");
    let tile = format!("{}, video", item.display_name());
    (harness, result, tile)
}

fn viewer_player(harness: &Studio) -> &VideoPlayerState {
    harness
        .state()
        .viewer()
        .video_player()
        .expect("the viewer shows a video")
}

fn shown_frame(harness: &Studio) -> u32 {
    viewer_player(harness)
        .shown_frame()
        .expect("a frame is shown")
}

/// The viewer's control named `label` (the detail pane behind it has the same, further right).
fn viewer_control<'a>(harness: &'a Studio, role: Role, label: &'a str) -> egui_kittest::Node<'a> {
    harness
        .query_all_by_role_and_label(role, label)
        .min_by(|a, b| a.rect().min.x.total_cmp(&b.rect().min.x))
        .unwrap_or_else(|| panic!("no {label}"))
}

fn press(harness: &mut Studio, key: egui::Key) {
    harness.key_press(key);
    harness.step();
}

/// The viewer's time read-out ("0:01:12 / 0:04:00") as shown; the Library's detail pane
/// behind the viewer has one too, further right.
fn readout(harness: &Studio) -> String {
    harness
        .query_all_by(|n| {
            n.role() == Role::Label && n.value().is_some_and(|t| t.ends_with(" / 0:04:00"))
        })
        .min_by(|a, b| a.rect().min.x.total_cmp(&b.rect().min.x))
        .and_then(|n| n.accesskit_node().value())
        .unwrap_or_default()
}

#[test]
fn a_video_plays_steps_scrubs_and_loops_in_the_viewer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut harness, result, tile) = library_with_a_video(&dir);
    let url = result["urls"][0].as_str().expect("url").to_owned();

    // Select the tile and open it (Enter): the viewer plays it.
    harness.get_by_role_and_label(Role::Button, &tile).click();
    harness.step();
    harness.key_press(egui::Key::Enter);
    step_until(&mut harness, "the viewer", |h| h.state().viewer().is_open());
    assert_eq!(viewer_player(&harness).url(), Some(url.as_str()));
    step_until(&mut harness, "the first frame", |h| {
        viewer_player(h).shown_frame() == Some(0)
    });
    assert!(
        harness
            .query_by(|n| n.role() == Role::Image
                && n.label()
                    .is_some_and(|l| l.starts_with("Video ") && l.contains(" of ")))
            .is_some(),
        "the picture is named"
    );
    let player = viewer_player(&harness);
    assert_eq!(player.frame_count(), Some(96), "4 s at 24 fps");
    assert!(!player.is_playing(), "it opens paused on the first frame");
    assert!(player.is_looping(), "loop is on by default");
    assert_eq!(readout(&harness), "0:00:00 / 0:04:00");
    harness.check_accessibility();

    // `.` steps exactly one frame, `,` back.
    press(&mut harness, egui::Key::Period);
    step_until(&mut harness, "frame 1", |h| shown_frame(h) == 1);
    assert_eq!(readout(&harness), "0:00:01 / 0:04:00");
    press(&mut harness, egui::Key::Period);
    step_until(&mut harness, "frame 2", |h| shown_frame(h) == 2);
    press(&mut harness, egui::Key::Comma);
    step_until(&mut harness, "frame 1 again", |h| shown_frame(h) == 1);

    // Play advances the time shown; Space pauses.
    viewer_control(&harness, Role::Button, "Play (Space)").click();
    step_until(&mut harness, "playback to move on", |h| {
        viewer_player(h).shown_time_secs().is_some_and(|t| t > 0.3)
    });
    assert!(viewer_player(&harness).is_playing());
    press(&mut harness, egui::Key::Space);
    step_until(&mut harness, "Space to pause", |h| {
        !viewer_player(h).is_playing()
    });
    harness.step();
    let paused_at = shown_frame(&harness);
    // Space again plays from there.
    press(&mut harness, egui::Key::Space);
    step_until(&mut harness, "Space to play", |h| {
        shown_frame(h) > paused_at
    });
    press(&mut harness, egui::Key::K);
    step_until(&mut harness, "K to pause", |h| {
        !viewer_player(h).is_playing()
    });

    // A click on the scrub bar seeks to the exact frame under the pointer.
    let bar = viewer_control(&harness, Role::Slider, "Seek (frame)").rect();
    let track_left = bar.left() + 6.0;
    let track_width = bar.width() - 12.0;
    let x = track_left + track_width * 0.25;
    let wanted = time::scrub_frame(x, track_left, track_width, 96);
    viewer_control(&harness, Role::Slider, "Seek (frame)").hover();
    harness.step();
    let pointer = egui::pos2(x, bar.center().y);
    let input = harness.input_mut();
    input.events.push(egui::Event::PointerMoved(pointer));
    for pressed in [true, false] {
        harness.input_mut().events.push(egui::Event::PointerButton {
            pos: pointer,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
        harness.step();
    }
    step_until(&mut harness, "the seek", |h| shown_frame(h) == wanted);
    assert!(
        !viewer_player(&harness).is_playing(),
        "a seek keeps the pause"
    );

    // Loop: from the last frames, playback goes on from the start.
    let end_x = track_left + track_width;
    let end = egui::pos2(end_x, bar.center().y);
    harness
        .input_mut()
        .events
        .push(egui::Event::PointerMoved(end));
    for pressed in [true, false] {
        harness.input_mut().events.push(egui::Event::PointerButton {
            pos: end,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
        harness.step();
    }
    step_until(&mut harness, "the last frame", |h| shown_frame(h) == 95);
    press(&mut harness, egui::Key::L);
    step_until(&mut harness, "playback past the end, from the start", |h| {
        let p = viewer_player(h);
        p.is_playing() && p.shown_frame().is_some_and(|f| (1..40).contains(&f))
    });

    // Fit / 100 %.
    viewer_control(&harness, Role::Button, "Video at 100 %").click();
    harness.step();
    assert!(viewer_player(&harness).is_actual_size());
    viewer_control(&harness, Role::Button, "Fit video").click();
    harness.step();
    assert!(!viewer_player(&harness).is_actual_size());

    let player = viewer_player(&harness)
        .player_weak()
        .expect("the viewer's player is open");
    press(&mut harness, egui::Key::Escape);
    assert!(!harness.state().viewer().is_open(), "Esc closes the viewer");
    // Its decoder and frame buffers go with it: dropping the player joins its thread.
    assert!(
        player.upgrade().is_none(),
        "the closed viewer's video player (decoder, frames) is freed"
    );
}

#[test]
fn a_video_plays_in_the_detail_pane_and_its_tile_scrubs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut harness, result, tile) = library_with_a_video(&dir);
    let url = result["urls"][0].as_str().expect("url").to_owned();

    harness.get_by_role_and_label(Role::Button, &tile).click();
    harness.step();
    step_until(&mut harness, "the detail pane's player", |h| {
        h.state().library().detail_player.shown_frame() == Some(0)
    });
    assert_eq!(
        harness.state().library().detail_player.url(),
        Some(url.as_str())
    );
    // The pane keeps its width with a video in it: its player's controls row fits the pane
    // (a wider row once pushed the pane over the grid and gave the grid another column).
    // With the jobs tray open the pane gives way to the grid (a strip; issue 20): close
    // the tray, which the first job of the session opened, so the pane is docked.
    let hide_jobs = harness.query_by(|n| {
        n.role() == Role::Button && n.label().is_some_and(|l| l.starts_with("Hide jobs"))
    });
    if let Some(hide_jobs) = hide_jobs {
        hide_jobs.click();
    }
    for _ in 0..3 {
        harness.step();
    }
    let columns_with_pane = harness.state().library().columns;
    let pane_player = harness.get_by_role_and_label(Role::CheckBox, "Loop").rect();
    let window_right = harness.ctx.content_rect().max.x;
    assert!(
        pane_player.max.x <= window_right,
        "the pane's controls run past the window ({} > {window_right})",
        pane_player.max.x
    );
    harness.key_press(egui::Key::Escape);
    for _ in 0..3 {
        harness.step();
    }
    assert_eq!(
        harness.state().library().columns,
        columns_with_pane,
        "selecting a video changed the grid's columns"
    );
    harness.get_by_role_and_label(Role::Button, &tile).click();
    harness.step();
    step_until(&mut harness, "the detail pane's player again", |h| {
        h.state().library().detail_player.shown_frame() == Some(0)
    });
    harness
        .get_by_role_and_label(Role::Button, "Play (Space)")
        .click();
    step_until(&mut harness, "the detail pane to play", |h| {
        h.state()
            .library()
            .detail_player
            .shown_time_secs()
            .is_some_and(|t| t > 0.2)
    });
    harness.check_accessibility();

    // Hovering the tile asks for its preview frames once, then shows them.
    harness.get_by_role_and_label(Role::Button, &tile).hover();
    step_until(&mut harness, "the hover preview", |h| {
        h.state().library().video_previews.is_ready(&url)
    });
}

/// Click the viewer's scrub bar at `share` of its track; the frame that click asks for.
fn click_scrub_bar(harness: &mut Studio, share: f32) -> u32 {
    let bar = viewer_control(harness, Role::Slider, "Seek (frame)").rect();
    let track_left = bar.left() + 6.0;
    let track_width = bar.width() - 12.0;
    let x = track_left + track_width * share;
    let wanted = time::scrub_frame(x, track_left, track_width, 96);
    let pointer = egui::pos2(x, bar.center().y);
    harness
        .input_mut()
        .events
        .push(egui::Event::PointerMoved(pointer));
    harness.step();
    for pressed in [true, false] {
        harness.input_mut().events.push(egui::Event::PointerButton {
            pos: pointer,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
        harness.step();
    }
    wanted
}

/// Steps until the player has shown `frame` and nothing newer arrives for a few frames.
fn settle_on(harness: &mut Studio, what: &str, frame: u32) {
    step_until(harness, what, |h| {
        viewer_player(h).shown_frame() == Some(frame)
    });
    for _ in 0..5 {
        std::thread::sleep(Duration::from_millis(20));
        harness.step();
    }
    assert_eq!(shown_frame(harness), frame, "{what}: the picture moved on");
}

/// The frame index on screen and its presentation time name the same frame.
fn assert_frame_and_time_agree(harness: &Studio) {
    let player = viewer_player(harness);
    let time = player.shown_time_secs().expect("a time");
    let frame = player.shown_frame().expect("a frame");
    assert_eq!(
        (time * 24.0).round() as u32,
        frame,
        "frame {frame} at {time} s"
    );
}

#[test]
fn player_keys_act_from_the_frame_shown() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut harness, _result, tile) = library_with_a_video(&dir);
    harness.get_by_role_and_label(Role::Button, &tile).click();
    harness.step();
    harness.key_press(egui::Key::Enter);
    step_until(&mut harness, "the viewer", |h| h.state().viewer().is_open());
    settle_on(&mut harness, "the first frame", 0);

    // A click on the scrub bar, then J: one second (24 frames) back from the clicked frame.
    let clicked = click_scrub_bar(&mut harness, 0.5);
    settle_on(&mut harness, "the clicked frame", clicked);
    press(&mut harness, egui::Key::J);
    settle_on(&mut harness, "J after a click", clicked - 24);
    // "." then steps exactly one frame from there.
    press(&mut harness, egui::Key::Period);
    settle_on(&mut harness, ". after J", clicked - 23);

    // "." straight after a click steps one frame from the clicked frame.
    let clicked = click_scrub_bar(&mut harness, 0.25);
    settle_on(&mut harness, "the second click", clicked);
    press(&mut harness, egui::Key::Period);
    settle_on(&mut harness, ". after a click", clicked + 1);
    press(&mut harness, egui::Key::Comma);
    settle_on(&mut harness, ", after .", clicked);

    // J straight after a click, before the clicked frame has arrived: back from the clicked
    // frame, not from the one still on screen.
    let clicked = click_scrub_bar(&mut harness, 0.75);
    press(&mut harness, egui::Key::J);
    settle_on(&mut harness, "J straight after a click", clicked - 24);

    // While playing: a click on the scrub bar, then J, goes one second back from the frame
    // on screen when J was pressed; the read-out and the picture agree.
    press(&mut harness, egui::Key::L);
    step_until(&mut harness, "playback", |h| shown_frame(h) > clicked + 5);
    let clicked = click_scrub_bar(&mut harness, 0.6);
    step_until(&mut harness, "playback from the clicked frame", |h| {
        (clicked + 2..clicked + 20).contains(&shown_frame(h))
    });
    let before_j = shown_frame(&harness);
    assert_frame_and_time_agree(&harness);
    press(&mut harness, egui::Key::J);
    settle_on(&mut harness, "J while playing", before_j - 24);
    assert!(!viewer_player(&harness).is_playing(), "J pauses");
    assert_frame_and_time_agree(&harness);
    press(&mut harness, egui::Key::Period);
    settle_on(&mut harness, ". after J while playing", before_j - 23);

    // Play, then K while the studio is busy for a moment (frames pile up for it and the
    // player thread runs on past what is on screen): the picture stops on the frame that was
    // on screen when K was pressed, the read-out names it, and "." steps one frame from it.
    press(&mut harness, egui::Key::L);
    step_until(&mut harness, "playback", |h| shown_frame(h) > clicked + 10);
    std::thread::sleep(Duration::from_millis(400));
    let paused_at = shown_frame(&harness);
    press(&mut harness, egui::Key::K);
    step_until(&mut harness, "K to pause", |h| {
        !viewer_player(h).is_playing()
    });
    settle_on(&mut harness, "the frame on screen at K", paused_at);
    let player = viewer_player(&harness);
    let shown_time = player.shown_time_secs().expect("a time");
    assert_eq!(
        readout(&harness),
        format!("{} / 0:04:00", time::timecode(shown_time, 24.0))
    );
    assert_eq!(
        time::timecode(shown_time, 24.0),
        time::timecode(f64::from(paused_at) / 24.0, 24.0)
    );
    press(&mut harness, egui::Key::Period);
    settle_on(&mut harness, ". after K", paused_at + 1);
}
