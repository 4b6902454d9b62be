use std::path::PathBuf;

/// Errors that stop the sandbox from starting or running.
#[derive(thiserror::Error, Debug)]
pub enum SandboxError {
    #[error("could not create or read sandbox data under {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("sandbox database error: {0}")]
    Database(#[from] rusqlite::Error),
    #[error("could not bind 127.0.0.1:{port}: {source}")]
    Bind {
        port: u16,
        #[source]
        source: std::io::Error,
    },
    #[error("the embedded model catalog is invalid: {0}")]
    Catalog(String),
    #[error("could not start the sandbox runtime: {0}")]
    Runtime(String),
    #[error("the sandbox thread stopped before it was ready")]
    StartupAborted,
}
