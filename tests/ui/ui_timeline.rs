//! The trim timeline in a small harness app (no service): its handles and playhead are
//! found by role and name, the arrow keys move the playhead frame by frame, I and O set the
//! in and out points there, a dragged handle lands on an exact frame, Shift+Left nudges it
//! one frame, Space asks to play the selection; the state and the events say so.

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use framewright::ui::video::timeline::{
    HandleKind, TimelineEvent, TimelineMode, TimelineState, timeline_ui,
};

/// A 2-s clip at 24 fps: 48 frames, so frame k starts at k / 24 s.
const FPS: f64 = 24.0;
const DURATION_SECS: f64 = 2.0;

struct App {
    timeline: TimelineState,
    events: Vec<TimelineEvent>,
}

fn harness() -> Harness<'static, App> {
    Harness::builder()
        .with_size(egui::vec2(720.0, 160.0))
        .build_ui_state(
            |ui, app: &mut App| {
                framewright::ui::tokens::apply_theme(ui.ctx());
                let events = timeline_ui(ui, &mut app.timeline);
                app.events.extend(events);
            },
            App {
                timeline: TimelineState::new(DURATION_SECS, FPS, TimelineMode::Trim),
                events: Vec::new(),
            },
        )
}

fn frame_secs(frame: u32) -> f64 {
    f64::from(frame) / FPS
}

fn press(harness: &mut Harness<'static, App>, key: egui::Key, times: usize) {
    for _ in 0..times {
        harness.key_press(key);
        harness.run();
    }
}

#[test]
fn keys_and_a_drag_set_exact_in_and_out_frames() {
    let mut harness = harness();
    harness.run();
    // The handles and the playhead are there by role and name.
    let playhead = harness.get_by_role_and_label(Role::Slider, "Playhead");
    let track = playhead.rect();
    harness.get_by_role_and_label(Role::Slider, "In point");
    harness.get_by_role_and_label(Role::Slider, "Out point");

    // Keyboard focus on the timeline, then five frames right and I.
    playhead.focus();
    harness.run();
    press(&mut harness, egui::Key::ArrowRight, 5);
    assert_eq!(harness.state().timeline.playhead_secs, frame_secs(5));
    press(&mut harness, egui::Key::I, 1);
    // Twenty frames more and O.
    press(&mut harness, egui::Key::ArrowRight, 20);
    press(&mut harness, egui::Key::O, 1);
    {
        let app = harness.state();
        assert_eq!(app.timeline.in_secs, frame_secs(5));
        assert_eq!(app.timeline.out_secs, frame_secs(25));
        let seeks: Vec<f64> = app
            .events
            .iter()
            .filter_map(|e| match e {
                TimelineEvent::SeekTo(secs) => Some(*secs),
                _ => None,
            })
            .collect();
        assert_eq!(seeks, (1..=25).map(frame_secs).collect::<Vec<_>>());
        let changes: Vec<&TimelineEvent> = app
            .events
            .iter()
            .filter(|e| matches!(e, TimelineEvent::SelectionChanged { .. }))
            .collect();
        assert_eq!(
            changes,
            [
                &TimelineEvent::SelectionChanged {
                    in_secs: frame_secs(5),
                    out_secs: DURATION_SECS
                },
                &TimelineEvent::SelectionChanged {
                    in_secs: frame_secs(5),
                    out_secs: frame_secs(25)
                },
            ]
        );
    }

    // Drag the out handle by its grip to where frame 36 begins.
    harness.state_mut().events.clear();
    let out_handle = harness
        .get_by_role_and_label(Role::Slider, "Out point")
        .rect();
    let x_of_frame = |frame: f32| track.left() + track.width() * frame / 48.0;
    let grab = out_handle.center();
    let grab_offset = grab.x - x_of_frame(25.0);
    harness.drag_at(grab);
    harness.run();
    for frame in [28.0, 32.0, 36.0] {
        harness.hover_at(egui::pos2(x_of_frame(frame) + grab_offset, grab.y));
        harness.run();
    }
    harness.drop_at(egui::pos2(x_of_frame(36.0) + grab_offset, grab.y));
    harness.run();
    assert_eq!(harness.state().timeline.out_secs, frame_secs(36));
    assert_eq!(harness.state().timeline.in_secs, frame_secs(5));
    assert_eq!(
        harness.state().events.last(),
        Some(&TimelineEvent::SelectionChanged {
            in_secs: frame_secs(5),
            out_secs: frame_secs(36)
        })
    );
    assert_eq!(harness.state().timeline.active_handle, HandleKind::Out);

    // Shift+Left moves the handle just dragged by one frame; the playhead stays.
    harness.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::ArrowLeft);
    harness.run();
    assert_eq!(harness.state().timeline.out_secs, frame_secs(35));
    assert_eq!(harness.state().timeline.playhead_secs, frame_secs(25));

    // Space asks to loop the selection, again to pause.
    harness.state_mut().events.clear();
    press(&mut harness, egui::Key::Space, 2);
    assert_eq!(
        harness.state().events,
        [
            TimelineEvent::PlaySelection {
                in_secs: frame_secs(5),
                out_secs: frame_secs(35)
            },
            TimelineEvent::Pause
        ]
    );
}

#[test]
fn the_in_handle_stops_a_tenth_of_a_second_before_the_out_handle() {
    let mut harness = harness();
    harness.run();
    let track = harness
        .get_by_role_and_label(Role::Slider, "Playhead")
        .rect();
    let in_handle = harness
        .get_by_role_and_label(Role::Slider, "In point")
        .rect();
    harness.drag_at(in_handle.center());
    harness.run();
    // Past the right end of the strip.
    let beyond = egui::pos2(track.right() + 10.0, in_handle.center().y);
    harness.hover_at(egui::pos2(track.center().x, in_handle.center().y));
    harness.run();
    harness.hover_at(beyond);
    harness.run();
    harness.drop_at(beyond);
    harness.run();
    let timeline = &harness.state().timeline;
    // 0.1 s at 24 fps is 2.4 frames: the shortest selection is 3 frames.
    assert_eq!(timeline.in_secs, frame_secs(45));
    assert_eq!(timeline.out_secs, DURATION_SECS);
}
