//! Downloads for `POST /color-palettes/analyze` and coding-assistant image attachments:
//! the shared policy (`fetch_policy`: the sandbox's own `/files/` URLs from disk, public
//! addresses only, vetted addresses pinned for the connection) with the contract's limits
//! for analysis: no redirects followed, 20 MB per image.

use super::fetch_policy::{self, FetchLimits, SourceFetchError};
use super::state::Shared;

pub(crate) const MAX_ANALYZE_IMAGE_BYTES: u64 = 20 * 1024 * 1024;

/// Contract document 2: "redirects not followed, each image capped at 20 MB".
const ANALYZE_LIMITS: FetchLimits = FetchLimits {
    max_bytes: MAX_ANALYZE_IMAGE_BYTES,
    max_redirect_hops: 0,
};

pub(crate) async fn fetch_for_analysis(
    shared: &Shared,
    raw_url: &str,
) -> Result<Vec<u8>, SourceFetchError> {
    fetch_policy::fetch(shared, raw_url, ANALYZE_LIMITS).await
}
