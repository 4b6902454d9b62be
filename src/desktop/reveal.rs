//! "Reveal in file manager": show a local file selected in the system's file manager.
//! Linux and the BSDs ask the file manager over D-Bus (`org.freedesktop.FileManager1
//! .ShowItems`, which Nautilus, Dolphin, Nemo, Thunar… implement) and otherwise open the
//! file's folder with the default application; macOS uses `open -R`, Windows
//! `explorer /select,`.

use std::path::{Path, PathBuf};

/// How the file was shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Revealed {
    /// The file manager shows the file selected.
    Selected,
    /// No file manager answered the request to select it; its folder was opened instead.
    FolderOpened { folder: PathBuf },
}

/// Neither the file manager nor the folder could be opened.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct RevealError {
    /// For the person: what failed and where the file is.
    pub message: String,
    /// The raw errors (logged).
    pub details: String,
}

/// Show `path` in the file manager.
pub async fn reveal(path: &Path) -> Result<Revealed, RevealError> {
    let why = match select_in_file_manager(path).await {
        Ok(()) => return Ok(Revealed::Selected),
        Err(why) => why,
    };
    tracing::info!("reveal {}: {why}; opening its folder", path.display());
    let failed = |details: String| RevealError {
        message: format!(
            "no file manager answered and the folder could not be opened. The file is at {}",
            path.display()
        ),
        details: format!("{why}; {details}"),
    };
    let folder = path
        .parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| failed("the file has no folder".to_owned()))?;
    let to_open = folder.clone();
    tokio::task::spawn_blocking(move || open::that_detached(&to_open))
        .await
        .map_err(|e| failed(format!("the opener stopped: {e}")))?
        .map_err(|e| failed(format!("opening {}: {e}", folder.display())))?;
    Ok(Revealed::FolderOpened { folder })
}

#[cfg(not(any(target_os = "macos", target_os = "windows")))]
async fn select_in_file_manager(path: &Path) -> Result<(), String> {
    const BUS_NAME: &str = "org.freedesktop.FileManager1";
    const OBJECT_PATH: &str = "/org/freedesktop/FileManager1";
    /// A file manager that has to start first may take a moment.
    const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);
    let uri = file_uri(path);
    let call = async {
        let connection = zbus::Connection::session()
            .await
            .map_err(|e| format!("no desktop session bus ({e})"))?;
        connection
            .call_method(
                Some(BUS_NAME),
                OBJECT_PATH,
                Some(BUS_NAME),
                "ShowItems",
                &(vec![uri.as_str()], ""),
            )
            .await
            .map_err(|e| format!("no file manager answered ({e})"))?;
        Ok(())
    };
    tokio::time::timeout(TIMEOUT, call)
        .await
        .unwrap_or_else(|_| Err("the file manager did not answer in time".to_owned()))
}

#[cfg(target_os = "macos")]
async fn select_in_file_manager(path: &Path) -> Result<(), String> {
    let mut command = std::process::Command::new("open");
    command.arg("-R").arg(path);
    run_detached(command, "Finder").await
}

#[cfg(target_os = "windows")]
async fn select_in_file_manager(path: &Path) -> Result<(), String> {
    let mut command = std::process::Command::new("explorer");
    // Explorer wants `/select,` and the path as one argument.
    let mut argument = std::ffi::OsString::from("/select,");
    argument.push(path.as_os_str());
    command.arg(argument);
    run_detached(command, "Explorer").await
}

#[cfg(any(target_os = "macos", target_os = "windows"))]
async fn run_detached(mut command: std::process::Command, name: &str) -> Result<(), String> {
    let name = name.to_owned();
    tokio::task::spawn_blocking(move || command.spawn().map(|_| ()))
        .await
        .map_err(|e| format!("the opener stopped: {e}"))?
        .map_err(|e| format!("{name} could not be started ({e})"))
}

/// `file://` URI of an absolute path, bytes outside the unreserved set percent-encoded.
pub fn file_uri(path: &Path) -> String {
    #[cfg(unix)]
    let bytes = std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()).to_vec();
    #[cfg(not(unix))]
    let bytes = path.to_string_lossy().replace('\\', "/").into_bytes();
    let mut uri = String::from("file://");
    if !bytes.starts_with(b"/") {
        uri.push('/');
    }
    for byte in bytes {
        if byte.is_ascii_alphanumeric() || b"-._~/:".contains(&byte) {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn file_uris_escape_what_they_must() {
        assert_eq!(
            file_uri(Path::new("/tmp/a cat#1.png")),
            "file:///tmp/a%20cat%231.png"
        );
        assert_eq!(file_uri(Path::new("/tmp/é.png")), "file:///tmp/%C3%A9.png");
    }
}
