//! The embedded sandbox: a real local implementation of the Generation Service contract
//! (document 1 plus the media upload route of document 3), served over HTTP on 127.0.0.1
//! with SQLite storage. It has its own wire types on purpose: it must not share code with
//! `crate::api`, so a misreading of the contract cannot hide on both sides.
//!
//! Behaviour where the contract is silent is described in `docs/SANDBOX.md`.

mod auth;
mod catalog;
mod cli;
mod config;
mod error;
mod fetch;
mod files;
mod handle;
mod http_error;
mod ids;
mod jobs;
mod pricing;
mod rate_limit;
mod render;
mod routes;
mod state;
mod store;

pub use cli::run_cli;
pub use config::SandboxConfig;
pub use error::SandboxError;
pub use handle::{SandboxHandle, start};
