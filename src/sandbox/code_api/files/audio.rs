//! Audio uploads. This build has no audio decoder, so audio is stored unchanged (see
//! docs/SANDBOX.md, "Coding-assistant API").

use std::path::Path;

use super::super::error::CodeResult;

/// The MP3 to store instead of the upload, or `None` to keep the upload as it is.
pub(super) async fn transcode_to_mp3(_path: &Path, _head: &[u8]) -> CodeResult<Option<Vec<u8>>> {
    Ok(None)
}
