//! `file://` URLs for local files: the studio names a local file this way where a URL is
//! expected (the viewer's items, sound and video loads, `--play`), and file managers copy
//! files as such URIs. One encoder and one decoder for all of them. No egui.

use std::path::{Path, PathBuf};

/// `/a/b c.mp4` → `file:///a/b%20c.mp4` (`%`, space, `#`, `?` and non-ASCII bytes escaped).
pub fn file_url(path: &Path) -> String {
    let mut url = String::from("file://");
    for byte in path.to_string_lossy().bytes() {
        match byte {
            b'%' | b' ' | b'#' | b'?' | 0..=0x1f | 0x7f.. => url.push_str(&format!("%{byte:02X}")),
            _ => url.push(char::from(byte)),
        }
    }
    url
}

/// `file:///a/b%20c.mp4` or `file://localhost/a` → the path; another host, a path that is
/// not absolute or escapes that do not make UTF-8 → `None` (not a file we can name).
pub fn path_of_file_url(url: &str) -> Option<PathBuf> {
    let rest = url.strip_prefix("file://")?;
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    percent_decode(path).map(PathBuf::from)
}

/// `%20` → space; `None` when the escapes do not make UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Some(byte) = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
        {
            out.push(byte);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A typed file path (absolute, or `~/…`) or `file://` URL, for keyboard users who type
/// where others drop a file. Whether the file exists is for the caller to find out.
pub fn typed_local_path(text: &str) -> Option<PathBuf> {
    let text = text.trim();
    if text.starts_with("file://") {
        return path_of_file_url(text);
    }
    if let Some(rest) = text.strip_prefix("~/") {
        return std::env::var_os("HOME").map(|home| PathBuf::from(home).join(rest));
    }
    let path = PathBuf::from(text);
    path.is_absolute().then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_local_path_round_trips_through_its_file_url() {
        let path = Path::new("/tmp/a b/#1 ünï.mp4");
        let url = file_url(path);
        assert_eq!(url, "file:///tmp/a%20b/%231%20%C3%BCn%C3%AF.mp4");
        assert_eq!(path_of_file_url(&url).as_deref(), Some(path));
    }

    #[test]
    fn other_hosts_and_bad_escapes_name_no_file() {
        assert_eq!(
            path_of_file_url("file://localhost/srv/c.png"),
            Some(PathBuf::from("/srv/c.png"))
        );
        assert_eq!(path_of_file_url("file://elsewhere/d.png"), None);
        assert_eq!(path_of_file_url("file:///x/%FF%FE.png"), None);
        assert_eq!(path_of_file_url("http://host/a.png"), None);
    }
}
