//! The one policy for downloading a caller's URL. Every route that fetches one goes through
//! [`fetch`]: image-edit sources and image-to-video's `image_url` (`jobs`), video edit and
//! video-to-video inputs (`edit_jobs`), trims (`trim_job`), image tools (`image_tools`),
//! palette analysis and coding-assistant attachments (`analyze_fetch`).
//!
//! - The sandbox's own `/files/...` URLs (127.0.0.1 or localhost, any port: also links from
//!   an earlier run) are read from storage, never over HTTP.
//! - Anything else must be http(s). The URL parser has already normalised numeric spellings
//!   (`127.1`, `2130706433`, `0x7f000001`) to dotted IPv4. An IP literal is checked as it
//!   stands; a name is resolved and refused when ANY of its addresses is internal
//!   ([`is_internal`]); `localhost`, `*.localhost` and `*.internal` are refused unresolved.
//! - The connection goes only to the vetted addresses: each request gets a resolver that
//!   knows nothing but them, so a DNS answer that changes between check and connect cannot
//!   slip through, and no system proxy is used (a proxy would resolve the name itself).
//! - Redirects are followed by hand, each hop vetted like the first, at most
//!   [`MAX_REDIRECT_HOPS`] of them (none for palette analysis).
//! - Tests of remote fetches name exact `host:port`s that may be internal
//!   (`SandboxConfig::allow_private_fetch_hosts`); the studio never sets any.

use std::future::ready;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use reqwest::Url;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::header::LOCATION;
use reqwest::redirect::Policy;

use super::files::resolve_rel_path;
use super::state::Shared;

/// Whole download (every hop, DNS included).
pub(crate) const FETCH_TIMEOUT: Duration = Duration::from_secs(20);
/// Image-edit, video edit and trim sources.
pub(crate) const MAX_SOURCE_BYTES: u64 = 50 * 1024 * 1024;
/// Redirects followed for sources; each hop is vetted like the first URL.
pub(crate) const MAX_REDIRECT_HOPS: u8 = 5;

/// Limits of one kind of download.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FetchLimits {
    pub max_bytes: u64,
    /// 0: a redirect is an error, not followed.
    pub max_redirect_hops: u8,
}

/// Sources of generations, edits and trims.
pub(crate) const SOURCE_LIMITS: FetchLimits = FetchLimits {
    max_bytes: MAX_SOURCE_BYTES,
    max_redirect_hops: MAX_REDIRECT_HOPS,
};

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum SourceFetchError {
    #[error("not an http(s) URL")]
    NotHttp,
    #[error("it points at an internal or private network address")]
    Internal,
    #[error("host could not be resolved")]
    Unresolvable,
    #[error("redirects are not followed (HTTP {0})")]
    RedirectRefused(u16),
    #[error("more than {0} redirects")]
    TooManyRedirects(u8),
    #[error("no such file in the sandbox's storage")]
    OwnFileMissing,
    #[error("download failed: {0}")]
    Download(String),
    #[error("larger than {0} bytes")]
    TooLarge(u64),
}

/// The message a route gives for a refused `field` (trim's and /edit/image's 400, and the
/// failed job's message when the refusal comes from resolution or a redirect).
pub(crate) fn internal_address_message(field: &str) -> String {
    format!("{field} points at an internal or private network address")
}

/// True for addresses a server must never fetch on a caller's behalf: loopback, private,
/// link-local, shared (CGNAT), unspecified, broadcast, multicast, documentation,
/// benchmarking and reserved ranges, and their IPv6 equivalents, including IPv4-mapped
/// (`::ffff:127.0.0.1`), IPv4-compatible (`::127.0.0.1`) and NAT64 (`64:ff9b::/96`) forms.
pub(crate) fn is_internal(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_internal_v4(v4),
        IpAddr::V6(v6) => is_internal_v6(v6),
    }
}

fn is_internal_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    ip.is_private()
        || ip.is_loopback()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0 // "this network"
        || (a == 100 && (64..=127).contains(&b)) // shared address space (CGNAT)
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || a >= 240 // reserved
}

fn is_internal_v6(ip: Ipv6Addr) -> bool {
    let segments = ip.segments();
    // `to_ipv4` covers both ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, which also
    // catches :: and ::1 as 0.0.0.0 and 0.0.0.1).
    if let Some(v4) = ip.to_ipv4() {
        return is_internal_v4(v4);
    }
    let nat64 = segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0];
    if nat64 {
        let [hi, lo] = [segments[6], segments[7]];
        return is_internal_v4(Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo)));
    }
    let first = segments[0];
    ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        || (first & 0xfe00) == 0xfc00 // unique local fc00::/7
        || (first & 0xffc0) == 0xfe80 // link-local fe80::/10
        || (first & 0xffc0) == 0xfec0 // deprecated site-local fec0::/10
        || (first == 0x2001 && segments[1] == 0x0db8) // documentation
}

/// Names that mean this machine or a private network whatever DNS says.
fn is_internal_name(name: &str) -> bool {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    name == "localhost" || name.ends_with(".localhost") || name.ends_with(".internal")
}

/// The host of a parsed http(s) URL: an address, or a name to resolve.
enum Target {
    Ip(IpAddr),
    Name(String),
}

fn target(url: &Url) -> Result<Target, SourceFetchError> {
    let host = url.host_str().ok_or(SourceFetchError::NotHttp)?;
    // IPv6 literals come bracketed; IPv4 in any spelling is already dotted decimal.
    let literal = host.trim_start_matches('[').trim_end_matches(']');
    Ok(match literal.parse::<IpAddr>() {
        Ok(ip) => Target::Ip(ip),
        Err(_) => Target::Name(host.to_ascii_lowercase()),
    })
}

/// `raw` parsed as an http(s) URL with a host.
pub(crate) fn parse_http_url(raw: &str) -> Result<Url, SourceFetchError> {
    let url = Url::parse(raw.trim()).map_err(|_| SourceFetchError::NotHttp)?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(SourceFetchError::NotHttp);
    }
    Ok(url)
}

fn allowed(addr: SocketAddr, allow_list: &[SocketAddr]) -> bool {
    !is_internal(addr.ip()) || allow_list.contains(&addr)
}

/// The path below /files/ when `url` has the shape of one of the sandbox's own file URLs
/// (http, 127.0.0.1 or localhost, any port: also links from an earlier run).
fn own_file_rel_path(url: &Url) -> Option<&str> {
    let host = url.host_str()?;
    if url.scheme() != "http" || !(host == "127.0.0.1" || host == "localhost") {
        return None;
    }
    url.path().strip_prefix("/files/")
}

/// What routes can decide at submit, without DNS: `Err(Internal)` for an internal IP
/// literal (in any spelling) or an internal name, unless the URL is one of the sandbox's own
/// files that exists. Resolution and redirects are checked again when the job downloads.
pub(crate) fn check_before_lookup(shared: &Shared, url: &Url) -> Result<(), SourceFetchError> {
    if let Some(rel) = own_file_rel_path(url)
        && resolve_rel_path(&shared.files_dir, rel).is_some_and(|path| path.is_file())
    {
        return Ok(());
    }
    let port = url
        .port_or_known_default()
        .ok_or(SourceFetchError::NotHttp)?;
    match target(url)? {
        Target::Ip(ip)
            if !allowed(SocketAddr::new(ip, port), &shared.allow_private_fetch_hosts) =>
        {
            Err(SourceFetchError::Internal)
        }
        Target::Name(name) if is_internal_name(&name) => Err(SourceFetchError::Internal),
        _ => Ok(()),
    }
}

/// Where one request may connect: an address literal, or a name with its vetted addresses.
struct Vetted {
    pinned_name: Option<(String, Vec<SocketAddr>)>,
}

async fn vet(url: &Url, allow_list: &[SocketAddr]) -> Result<Vetted, SourceFetchError> {
    let port = url
        .port_or_known_default()
        .ok_or(SourceFetchError::NotHttp)?;
    match target(url)? {
        Target::Ip(ip) => {
            if allowed(SocketAddr::new(ip, port), allow_list) {
                Ok(Vetted { pinned_name: None })
            } else {
                Err(SourceFetchError::Internal)
            }
        }
        Target::Name(name) => {
            if is_internal_name(&name) {
                return Err(SourceFetchError::Internal);
            }
            let addrs: Vec<SocketAddr> = tokio::net::lookup_host((name.as_str(), port))
                .await
                .map_err(|_| SourceFetchError::Unresolvable)?
                .collect();
            if addrs.is_empty() {
                return Err(SourceFetchError::Unresolvable);
            }
            // Any internal answer refuses the name: picking the public ones would still let
            // a hostile name steer the retry order.
            if !addrs.iter().all(|addr| allowed(*addr, allow_list)) {
                return Err(SourceFetchError::Internal);
            }
            Ok(Vetted {
                pinned_name: Some((name, addrs)),
            })
        }
    }
}

/// A resolver that answers only the vetted name, with the vetted addresses. reqwest does
/// not resolve address literals at all, so nothing else can be reached.
struct PinnedResolver {
    pinned_name: Option<(String, Vec<SocketAddr>)>,
}

#[derive(Debug, thiserror::Error)]
#[error("{0} was not vetted for this request")]
struct UnvettedName(String);

impl Resolve for PinnedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let answer: Result<Addrs, Box<dyn std::error::Error + Send + Sync>> =
            match &self.pinned_name {
                Some((vetted, addrs)) if vetted == name.as_str() => {
                    Ok(Box::new(addrs.clone().into_iter()))
                }
                _ => Err(Box::new(UnvettedName(name.as_str().to_owned()))),
            };
        Box::pin(ready(answer))
    }
}

fn client_for(vetted: Vetted) -> Result<reqwest::Client, SourceFetchError> {
    reqwest::Client::builder()
        .redirect(Policy::none())
        .no_proxy()
        .dns_resolver(Arc::new(PinnedResolver {
            pinned_name: vetted.pinned_name,
        }))
        .build()
        .map_err(|e| SourceFetchError::Download(e.to_string()))
}

/// Downloads `raw_url` under the policy (see the module docs).
pub(crate) async fn fetch(
    shared: &Shared,
    raw_url: &str,
    limits: FetchLimits,
) -> Result<Vec<u8>, SourceFetchError> {
    let url = parse_http_url(raw_url)?;
    if let Some(rel) = own_file_rel_path(&url) {
        return read_own_file(shared, rel, limits.max_bytes).await;
    }
    let allow_list = &shared.allow_private_fetch_hosts;
    tokio::time::timeout(FETCH_TIMEOUT, download(url, allow_list, limits))
        .await
        .map_err(|_| {
            SourceFetchError::Download(format!("timed out after {} s", FETCH_TIMEOUT.as_secs()))
        })?
}

/// A `/files/` URL of the sandbox's own shape is never fetched: a file that is not in
/// storage is missing, not something to ask a loopback server for.
async fn read_own_file(
    shared: &Shared,
    rel: &str,
    max_bytes: u64,
) -> Result<Vec<u8>, SourceFetchError> {
    // resolve_rel_path refuses `..`, empty and unusual segments (no escape from files_dir).
    let path = resolve_rel_path(&shared.files_dir, rel).ok_or(SourceFetchError::OwnFileMissing)?;
    let meta = tokio::fs::metadata(&path)
        .await
        .map_err(|_| SourceFetchError::OwnFileMissing)?;
    if !meta.is_file() {
        return Err(SourceFetchError::OwnFileMissing);
    }
    if meta.len() > max_bytes {
        return Err(SourceFetchError::TooLarge(max_bytes));
    }
    tokio::fs::read(&path)
        .await
        .map_err(|e| SourceFetchError::Download(e.to_string()))
}

async fn download(
    mut url: Url,
    allow_list: &[SocketAddr],
    limits: FetchLimits,
) -> Result<Vec<u8>, SourceFetchError> {
    let mut hops: u8 = 0;
    loop {
        let client = client_for(vet(&url, allow_list).await?)?;
        let response = client
            .get(url.clone())
            .send()
            .await
            .map_err(|e| SourceFetchError::Download(e.to_string()))?;
        let status = response.status();
        if status.is_redirection() {
            if limits.max_redirect_hops == 0 {
                return Err(SourceFetchError::RedirectRefused(status.as_u16()));
            }
            if hops >= limits.max_redirect_hops {
                return Err(SourceFetchError::TooManyRedirects(limits.max_redirect_hops));
            }
            let location = response
                .headers()
                .get(LOCATION)
                .and_then(|value| value.to_str().ok())
                .ok_or_else(|| {
                    SourceFetchError::Download(format!("HTTP {status} without a Location"))
                })?;
            let next = url.join(location).map_err(|_| SourceFetchError::NotHttp)?;
            url = parse_http_url(next.as_str())?;
            hops += 1;
            continue;
        }
        if !status.is_success() {
            return Err(SourceFetchError::Download(format!("HTTP {status}")));
        }
        return read_body(response, limits.max_bytes).await;
    }
}

async fn read_body(
    response: reqwest::Response,
    max_bytes: u64,
) -> Result<Vec<u8>, SourceFetchError> {
    if response.content_length().is_some_and(|len| len > max_bytes) {
        return Err(SourceFetchError::TooLarge(max_bytes));
    }
    let mut bytes = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| SourceFetchError::Download(e.to_string()))?;
        if bytes.len() as u64 + chunk.len() as u64 > max_bytes {
            return Err(SourceFetchError::TooLarge(max_bytes));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("test address")
    }

    #[test]
    fn internal_addresses_are_recognised() {
        for internal in [
            "127.0.0.1",
            "127.255.255.254",
            "10.0.0.1",
            "172.16.5.4",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "100.127.255.255",
            "0.0.0.0",
            "0.1.2.3",
            "255.255.255.255",
            "224.0.0.1",
            "192.0.0.8",
            "198.18.0.1",
            "240.0.0.1",
            "::1",
            "::",
            "fd00::1",
            "fc00::1",
            "fe80::1",
            "fec0::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "64:ff9b::7f00:1",
            "64:ff9b::a00:1",
        ] {
            assert!(is_internal(ip(internal)), "{internal} must be refused");
        }
        for public in [
            "93.184.216.34",
            "8.8.8.8",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
        ] {
            assert!(!is_internal(ip(public)), "{public} is public");
        }
    }

    #[test]
    fn numeric_spellings_parse_to_the_address_they_mean() {
        for spelling in [
            "http://127.1/a.png",
            "http://2130706433/a.png",
            "http://0x7f000001/a.png",
            "http://0177.0.0.1/a.png",
            "http://127.0.1/a.png",
        ] {
            let url = parse_http_url(spelling).expect("parses");
            assert!(
                matches!(target(&url), Ok(Target::Ip(ip)) if ip == IpAddr::from([127, 0, 0, 1])),
                "{spelling} -> {url}"
            );
        }
        let mapped = parse_http_url("http://[::ffff:127.0.0.1]/a.png").expect("parses");
        assert!(matches!(target(&mapped), Ok(Target::Ip(ip)) if is_internal(ip)));
    }

    #[test]
    fn internal_names_are_recognised_in_any_case_and_with_a_trailing_dot() {
        for name in [
            "localhost",
            "LOCALHOST",
            "localhost.",
            "api.localhost",
            "metadata.google.internal",
        ] {
            assert!(is_internal_name(name), "{name}");
        }
        for name in ["example.com", "localhost.example.com", "internal.example"] {
            assert!(!is_internal_name(name), "{name}");
        }
    }

    #[test]
    fn only_exact_allow_listed_socket_addresses_pass() {
        let allow_list = [SocketAddr::from(([127, 0, 0, 1], 4000))];
        assert!(allowed(
            SocketAddr::from(([127, 0, 0, 1], 4000)),
            &allow_list
        ));
        assert!(!allowed(
            SocketAddr::from(([127, 0, 0, 1], 4001)),
            &allow_list
        ));
        assert!(!allowed(
            SocketAddr::from(([10, 0, 0, 1], 4000)),
            &allow_list
        ));
        assert!(allowed(SocketAddr::from(([8, 8, 8, 8], 80)), &[]));
    }

    #[tokio::test]
    async fn vetting_refuses_literals_names_and_resolved_loopback() {
        for url in [
            "http://127.1:9/a.png",
            "http://2130706433:9/a.png",
            "http://0x7f000001:9/a.png",
            "http://[::ffff:127.0.0.1]:9/a.png",
            "http://[::1]:9/a.png",
            "http://10.0.0.1/a.png",
            "http://169.254.169.254/latest",
            "http://0.0.0.0:9/a.png",
            "http://localhost:9/a.png",
            "http://localhost.:9/a.png",
        ] {
            let url = parse_http_url(url).expect("parses");
            assert_eq!(
                vet(&url, &[]).await.err(),
                Some(SourceFetchError::Internal),
                "{url}"
            );
        }
    }

    #[tokio::test]
    async fn the_pinned_resolver_answers_only_the_vetted_name() {
        let addr = SocketAddr::from(([93, 184, 216, 34], 443));
        let resolver = PinnedResolver {
            pinned_name: Some(("cdn.example.com".into(), vec![addr])),
        };
        let name: Name = "cdn.example.com".parse().expect("name");
        let answer: Vec<SocketAddr> = resolver.resolve(name).await.expect("vetted").collect();
        assert_eq!(answer, vec![addr]);
        let other: Name = "rebound.example.com".parse().expect("name");
        assert!(resolver.resolve(other).await.is_err());
    }

    #[test]
    fn own_file_urls_are_recognised() {
        let own = parse_http_url("http://127.0.0.1:9/files/uploads/a.png").expect("url");
        assert_eq!(own_file_rel_path(&own), Some("uploads/a.png"));
        let spelled = parse_http_url("http://127.1:9/files/uploads/a.png").expect("url");
        assert_eq!(own_file_rel_path(&spelled), Some("uploads/a.png"));
        let api = parse_http_url("http://127.0.0.1:9/api/v1/models").expect("url");
        assert_eq!(own_file_rel_path(&api), None);
        let remote = parse_http_url("https://cdn.example.com/files/a.png").expect("url");
        assert_eq!(own_file_rel_path(&remote), None);
        // Dot segments are removed by the parser, so this is not under /files/ at all.
        let escape = parse_http_url("http://127.0.0.1:9/files/../secret").expect("url");
        assert_eq!(own_file_rel_path(&escape), None);
    }
}
