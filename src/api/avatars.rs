//! Where a model's `avatar` lives (contract document 1, Model record): a bare filename
//! resolves against `{base_url}/assets/`, an absolute URL is used as it is. The client's
//! configured base URL is the contract's `{base_url}` plus `/api` (routes are
//! `{base_url}/api/v1/...`), so the `/api` suffix is dropped first.

/// The URL to fetch `avatar` from, or `None` when there is nothing usable (empty, a path
/// that is neither a bare filename nor an http(s) URL).
pub fn avatar_url(api_base_url: &str, avatar: &str) -> Option<String> {
    let avatar = avatar.trim();
    if avatar.is_empty() {
        return None;
    }
    let lower = avatar.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        return Some(avatar.to_owned());
    }
    let bare = !avatar.contains(['/', '\\', '?', '#']) && avatar != "." && avatar != "..";
    if !bare || avatar.contains("://") {
        return None;
    }
    let base = api_base_url.trim().trim_end_matches('/');
    let service = base.strip_suffix("/api").unwrap_or(base);
    Some(format!("{service}/assets/{}", urlencoding_segment(avatar)))
}

/// Percent-encodes what may not appear in one path segment.
fn urlencoding_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for byte in segment.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(byte as char)
            }
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_filenames_resolve_under_the_service_assets() {
        assert_eq!(
            avatar_url("http://127.0.0.1:4000/api", "luma.png").as_deref(),
            Some("http://127.0.0.1:4000/assets/luma.png")
        );
        assert_eq!(
            avatar_url("https://svc.example.com/api/", "v1.1 ultra.png").as_deref(),
            Some("https://svc.example.com/assets/v1.1%20ultra.png")
        );
        // A base URL configured without /api is the service address itself.
        assert_eq!(
            avatar_url("https://svc.example.com", "a.png").as_deref(),
            Some("https://svc.example.com/assets/a.png")
        );
    }

    #[test]
    fn absolute_urls_are_kept_and_odd_values_refused() {
        let cdn = "https://assets.example.com/avatars/nano-banana-2.png";
        assert_eq!(avatar_url("http://x/api", cdn).as_deref(), Some(cdn));
        assert_eq!(avatar_url("http://x/api", ""), None);
        assert_eq!(avatar_url("http://x/api", "../secret.png"), None);
        assert_eq!(avatar_url("http://x/api", "ftp://host/a.png"), None);
        assert_eq!(avatar_url("http://x/api", "dir/a.png"), None);
    }
}
