//! The studio's egui front end. Only egui code lives here: the app shell ([`StudioApp`]),
//! one module per panel, shared widgets, design tokens and the texture cache. Panels read
//! the [`model::Model`] and return [`model::Action`]s; the shell applies them after layout
//! and sends engine commands through the session. No panel does I/O.

pub mod account;
pub mod app;
pub mod appearance;
pub mod audio;
pub mod chat;
pub mod clipboard;
pub mod compose;
pub mod dialogs;
pub mod docs;
pub mod focus;
pub mod fonts;
pub mod format;
pub mod formatted_text;
pub mod icons;
pub mod image_tools;
pub mod job_outcome;
pub mod job_wording;
pub mod jobs;
pub mod library;
pub mod model;
pub mod offline;
pub mod palettes;
pub mod presets;
pub mod projects;
pub mod result_tile;
pub mod screenshot;
pub mod settings;
pub mod settings_appearance;
pub mod shell;
pub mod shortcuts;
pub mod sound;
pub mod textures;
pub mod toasts;
pub mod tokens;
pub mod transcript;
pub mod video;
pub mod viewer;
pub mod visual_dna;
pub mod welcome;
pub mod widgets;
pub mod window;

pub use app::{ScreenshotScene, StartupOptions, StudioApp};
pub use model::View;
