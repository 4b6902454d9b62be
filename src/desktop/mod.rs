//! The studio as a desktop citizen, without egui: one running instance per data folder
//! (a second launch hands its files over), and handing result files to the desktop
//! (reveal in the file manager), and giving freed heap memory back to the system.

pub mod heap;
pub mod reveal;
pub mod single_instance;
