//! The images of a chat message, turned into the facts the assistant describes. The
//! sandbox's own coding-assistant files are read from disk (and refused once expired);
//! other URLs are downloaded by the palette analysis fetcher, which refuses private and
//! internal addresses, follows no redirects and stops at 20 MB.

use super::error::{CodeError, CodeResult};
use super::files;
use crate::sandbox::analyze_fetch::{MAX_ANALYZE_IMAGE_BYTES, fetch_for_analysis};
use crate::sandbox::assistant::ImageFacts;
use crate::sandbox::fetch::decode_image;
use crate::sandbox::state::Shared;

pub(crate) async fn image_facts(state: &Shared, urls: &[String]) -> CodeResult<Vec<ImageFacts>> {
    let mut facts = Vec::with_capacity(urls.len());
    for url in urls {
        let bytes = image_bytes(state, url).await?;
        let shown_url = shorten(url);
        let decoded = tokio::task::spawn_blocking(move || {
            decode_image(&bytes).map(|image| ImageFacts::from_image(&image))
        })
        .await
        .map_err(|e| CodeError::server("image analysis", e))?;
        facts.push(decoded.map_err(|error| {
            CodeError::validation(format!(
                "image_url {shown_url} is not a readable image: {error}"
            ))
        })?);
    }
    Ok(facts)
}

async fn image_bytes(state: &Shared, url: &str) -> CodeResult<Vec<u8>> {
    let shown_url = shorten(url);
    if url.starts_with("data:") {
        return Err(CodeError::validation(
            "data: URLs are not supported; upload the image with POST /files and send its url",
        ));
    }
    if let Some(file) = files::own_file(state, url)? {
        let now_secs = state.clock.now_ms().div_euclid(1000);
        if now_secs >= file.expires_secs {
            return Err(CodeError::validation(format!(
                "image_url {shown_url} has expired; upload the image again"
            )));
        }
        if file.size_bytes > MAX_ANALYZE_IMAGE_BYTES {
            return Err(CodeError::validation(format!(
                "image_url {shown_url} is larger than 20 MB"
            )));
        }
        return tokio::fs::read(state.files_dir.join(&file.rel_path))
            .await
            .map_err(|e| CodeError::server("reading an uploaded file", e));
    }
    fetch_for_analysis(state, url).await.map_err(|error| {
        CodeError::validation(format!(
            "image_url {shown_url} could not be fetched: {error}"
        ))
    })
}

/// URLs are echoed in messages, but a data-sized one would swamp them.
fn shorten(url: &str) -> String {
    const MAX_SHOWN_CHARS: usize = 120;
    if url.chars().count() <= MAX_SHOWN_CHARS {
        url.to_owned()
    } else {
        format!("{}…", url.chars().take(MAX_SHOWN_CHARS).collect::<String>())
    }
}
