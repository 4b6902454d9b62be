//! Downloads for `POST /color-palettes/analyze`: only public addresses (checked before any
//! connection is made, and the resolved address is pinned so DNS cannot swap it for a
//! private one), no redirects, 20 MB per image. The sandbox's own `/files/` URLs are read
//! from disk instead.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use futures_util::StreamExt;
use reqwest::Url;
use reqwest::redirect::Policy;

use super::fetch::FETCH_TIMEOUT;
use super::files::resolve_rel_path;
use super::state::Shared;

pub(crate) const MAX_ANALYZE_IMAGE_BYTES: u64 = 20 * 1024 * 1024;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum AnalyzeFetchError {
    #[error("not an http(s) URL")]
    NotHttp,
    #[error("private or internal addresses are not allowed")]
    PrivateAddress,
    #[error("host could not be resolved")]
    Unresolvable,
    #[error("redirects are not followed (HTTP {0})")]
    Redirect(u16),
    #[error("download failed: {0}")]
    Download(String),
    #[error("image is larger than 20 MB")]
    TooLarge,
}

/// True for addresses a server must never fetch on a caller's behalf: loopback, private,
/// link-local, shared (CGNAT), unspecified, broadcast, multicast, documentation,
/// benchmarking and reserved ranges, and IPv6 equivalents (including v4-mapped).
pub(crate) fn is_internal(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_internal_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_internal_v4(v4);
            }
            let first = v6.segments()[0];
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00 // unique local fc00::/7
                || (first & 0xffc0) == 0xfe80 // link-local fe80::/10
                || (first == 0x2001 && v6.segments()[1] == 0x0db8) // documentation
                || v6 == Ipv6Addr::from([0u8; 16])
        }
    }
}

fn is_internal_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    ip.is_private()
        || ip.is_loopback()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0
        || (a == 100 && (64..=127).contains(&b)) // shared address space
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || a >= 240 // reserved
}

/// The path below /files/ when `url` is one of this sandbox's own file URLs
/// (127.0.0.1 or localhost, any port: also links from an earlier run).
fn own_file(url: &Url) -> Option<String> {
    let host = url.host_str()?;
    if url.scheme() != "http" || !(host == "127.0.0.1" || host == "localhost") {
        return None;
    }
    url.path().strip_prefix("/files/").map(str::to_owned)
}

pub(crate) async fn fetch_for_analysis(
    shared: &Shared,
    raw_url: &str,
) -> Result<Vec<u8>, AnalyzeFetchError> {
    let url = Url::parse(raw_url.trim()).map_err(|_| AnalyzeFetchError::NotHttp)?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(AnalyzeFetchError::NotHttp);
    }
    if let Some(rel) = own_file(&url) {
        let path =
            resolve_rel_path(&shared.files_dir, &rel).ok_or(AnalyzeFetchError::PrivateAddress)?;
        let meta = tokio::fs::metadata(&path)
            .await
            .map_err(|e| AnalyzeFetchError::Download(e.to_string()))?;
        if meta.len() > MAX_ANALYZE_IMAGE_BYTES {
            return Err(AnalyzeFetchError::TooLarge);
        }
        return tokio::fs::read(&path)
            .await
            .map_err(|e| AnalyzeFetchError::Download(e.to_string()));
    }
    let port = url.port_or_known_default().unwrap_or(80);
    let host = url.host_str().ok_or(AnalyzeFetchError::NotHttp)?;
    // IPv6 literals come bracketed in URLs.
    let literal = host.trim_start_matches('[').trim_end_matches(']');
    let pinned: Option<(String, SocketAddr)> = if let Ok(ip) = literal.parse::<IpAddr>() {
        if is_internal(ip) {
            return Err(AnalyzeFetchError::PrivateAddress);
        }
        None
    } else {
        let lower = host.to_ascii_lowercase();
        if lower == "localhost" || lower.ends_with(".localhost") || lower.ends_with(".internal") {
            return Err(AnalyzeFetchError::PrivateAddress);
        }
        let addrs: Vec<SocketAddr> = tokio::net::lookup_host((lower.as_str(), port))
            .await
            .map_err(|_| AnalyzeFetchError::Unresolvable)?
            .collect();
        let first = *addrs.first().ok_or(AnalyzeFetchError::Unresolvable)?;
        if addrs.iter().any(|a| is_internal(a.ip())) {
            return Err(AnalyzeFetchError::PrivateAddress);
        }
        Some((lower, first))
    };
    let mut builder = reqwest::Client::builder()
        .redirect(Policy::none())
        .connect_timeout(FETCH_TIMEOUT)
        .timeout(FETCH_TIMEOUT);
    if let Some((domain, addr)) = &pinned {
        builder = builder.resolve(domain, *addr);
    }
    let client = builder
        .build()
        .map_err(|e| AnalyzeFetchError::Download(e.to_string()))?;
    let response = client
        .get(url)
        .send()
        .await
        .map_err(|e| AnalyzeFetchError::Download(e.to_string()))?;
    let status = response.status();
    if status.is_redirection() {
        return Err(AnalyzeFetchError::Redirect(status.as_u16()));
    }
    if !status.is_success() {
        return Err(AnalyzeFetchError::Download(format!("HTTP {status}")));
    }
    if response
        .content_length()
        .is_some_and(|len| len > MAX_ANALYZE_IMAGE_BYTES)
    {
        return Err(AnalyzeFetchError::TooLarge);
    }
    let mut bytes = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| AnalyzeFetchError::Download(e.to_string()))?;
        if bytes.len() as u64 + chunk.len() as u64 > MAX_ANALYZE_IMAGE_BYTES {
            return Err(AnalyzeFetchError::TooLarge);
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_addresses_are_recognised() {
        for internal in [
            "10.0.0.1",
            "172.16.5.4",
            "192.168.1.1",
            "127.0.0.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:10.0.0.1",
        ] {
            let ip: IpAddr = internal.parse().expect("test address");
            assert!(is_internal(ip), "{internal} must be refused");
        }
        for public in ["93.184.216.34", "8.8.8.8", "2606:4700::1111"] {
            let ip: IpAddr = public.parse().expect("test address");
            assert!(!is_internal(ip), "{public} is public");
        }
    }

    #[test]
    fn own_file_urls_are_recognised() {
        let own = Url::parse("http://127.0.0.1:9/files/uploads/a.png").expect("url");
        assert_eq!(own_file(&own).as_deref(), Some("uploads/a.png"));
        let other = Url::parse("http://127.0.0.1:9/api/v1/models").expect("url");
        assert_eq!(own_file(&other), None);
    }
}
