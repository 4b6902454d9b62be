//! The UI flows (egui_kittest against the real studio on a loopback sandbox), one module per
//! area. One binary instead of one per file: each test binary links the whole studio
//! (~150 MB), and forty of them filled a CI machine's disk.

#[path = "../service_support/mod.rs"]
mod service_support;
#[path = "../support/mod.rs"]
mod support;

mod ui_3d;
mod ui_audio;
mod ui_chat;
mod ui_create;
mod ui_create_audio;
mod ui_create_motion;
mod ui_create_video;
mod ui_creative_chat;
mod ui_docs;
mod ui_flows;
mod ui_keyboard;
mod ui_library;
mod ui_palettes;
mod ui_presets;
mod ui_projects;
mod ui_queue;
mod ui_service;
mod ui_settings;
mod ui_timeline;
mod ui_video;
mod ui_video_edit;
#[cfg(feature = "h264")]
mod ui_video_sound;
mod ui_viewer;
mod ui_visual_dna;
mod ui_visual_dna_use;
