//! Colour palettes and cinematic presets: list/create/update/delete/activate, analysis
//! (an instant local median-cut preview, then the service's answer) and the presets map
//! with its on-disk ETag cache.

use super::guard::spawn_reported;
use super::protocol::{Command, Event, PaletteOpKind, PaletteSource, PresetsOrigin};
use super::runtime::Ctx;
use crate::api::palettes::{MAX_ANALYZE_IMAGES, MAX_PALETTE_PAGE_SIZE, presets_from_value};
use crate::api::{AnalyzedColors, CinematicPresets, ColorSpec, PaletteUpdate, PresetsFetch};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The presets cache under `cache_dir`.
pub const PRESETS_CACHE_FILE: &str = "cinematic-presets.json";
/// Longest side the local preview decodes at: plenty for six colours, fast to quantise.
const PREVIEW_MAX_SIDE_PX: u32 = 256;
/// Largest local file the preview reads.
const PREVIEW_MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Start the work for one palette or presets command (never blocks the engine loop).
pub(crate) fn handle(owner: &Arc<Ctx>, command: Command) {
    let ctx = owner.clone();
    match command {
        Command::RefreshPalettes { project_id } => {
            spawn_reported(owner, "loading the palettes", async move {
                let result = ctx
                    .client
                    .list_all_palettes(project_id.as_deref(), MAX_PALETTE_PAGE_SIZE)
                    .await;
                if let Err(e) = &result {
                    tracing::warn!("palette list failed: {e}");
                }
                ctx.emit(Event::Palettes { project_id, result }).await;
            });
        }
        Command::SavePalette {
            op_id,
            palette_id,
            body,
        } => {
            spawn_reported(owner, "saving a palette", async move {
                let (kind, result) = match palette_id {
                    None => (
                        PaletteOpKind::Create,
                        ctx.client.create_palette(&body).await.map(Some),
                    ),
                    Some(id) => {
                        let fields = PaletteUpdate {
                            name: Some(body.name.trim().to_owned()),
                            colors: Some(body.colors.clone()),
                            source_image_urls: Some(body.source_image_urls.clone()),
                        };
                        (
                            PaletteOpKind::Update,
                            ctx.client.update_palette(&id, &fields).await.map(Some),
                        )
                    }
                };
                ctx.emit(Event::PaletteOpDone {
                    op_id,
                    kind,
                    result,
                })
                .await;
            });
        }
        Command::DeletePalette { op_id, palette_id } => {
            spawn_reported(owner, "deleting a palette", async move {
                let result = ctx.client.delete_palette(&palette_id).await.map(|()| None);
                ctx.emit(Event::PaletteOpDone {
                    op_id,
                    kind: PaletteOpKind::Delete,
                    result,
                })
                .await;
            });
        }
        Command::ActivatePalette {
            op_id,
            palette_id,
            project_id,
        } => {
            spawn_reported(owner, "applying a palette", async move {
                let result = ctx
                    .client
                    .activate_palette(&palette_id, &project_id)
                    .await
                    .map(Some);
                ctx.emit(Event::PaletteOpDone {
                    op_id,
                    kind: PaletteOpKind::Activate,
                    result,
                })
                .await;
            });
        }
        Command::DeactivatePalette { op_id, project_id } => {
            spawn_reported(owner, "removing a project's palette", async move {
                let result = ctx
                    .client
                    .deactivate_palette(&project_id)
                    .await
                    .map(|()| None);
                ctx.emit(Event::PaletteOpDone {
                    op_id,
                    kind: PaletteOpKind::Deactivate,
                    result,
                })
                .await;
            });
        }
        Command::AnalyzePalette {
            request_id,
            sources,
        } => {
            spawn_reported(
                owner,
                "analysing a palette",
                analyze(ctx, request_id, sources),
            );
        }
        Command::RefreshPresets => {
            spawn_reported(owner, "loading the presets", refresh_presets(ctx));
        }
        other => tracing::debug!("not a palette command: {other:?}"),
    }
}

/// Local preview first (files read from disk, URLs fetched without the API key; decoded
/// off the engine's async workers), then upload the files, then the service's analysis of
/// every URL, which replaces the preview.
async fn analyze(ctx: Arc<Ctx>, request_id: u64, sources: Vec<PaletteSource>) {
    let sources: Vec<PaletteSource> = sources.into_iter().take(MAX_ANALYZE_IMAGES).collect();
    let mut inputs = Vec::with_capacity(sources.len());
    for source in &sources {
        match source {
            PaletteSource::File(path) => inputs.push(PreviewInput::File(path.clone())),
            PaletteSource::Url(url) => inputs.push(match ctx.client.fetch_output(url).await {
                Ok(bytes) => PreviewInput::Bytes {
                    name: url.clone(),
                    bytes,
                },
                Err(error) => PreviewInput::Unreadable(format!("cannot fetch {url}: {error}")),
            }),
        }
    }
    let preview = tokio::task::spawn_blocking(move || local_preview(inputs))
        .await
        .unwrap_or_else(|e| Err(format!("the preview stopped: {e}")));
    ctx.emit(Event::PaletteLocalPreview {
        request_id,
        result: preview,
    })
    .await;

    let mut urls = Vec::with_capacity(sources.len());
    for source in &sources {
        match source {
            PaletteSource::Url(url) => urls.push(url.clone()),
            PaletteSource::File(path) => match ctx.client.upload_file(path, None).await {
                Ok(media) => urls.push(media.url),
                Err(error) => {
                    let name = path
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    let error = error.with_message_prefix(&format!("Upload of {name} failed"));
                    ctx.emit(Event::PaletteAnalyzed {
                        request_id,
                        source_urls: urls,
                        result: Err(error),
                    })
                    .await;
                    return;
                }
            },
        }
    }
    let result = ctx.client.analyze_palette(&urls).await;
    if let Err(e) = &result {
        tracing::info!(request_id, "palette analysis refused: {e}");
    }
    ctx.emit(Event::PaletteAnalyzed {
        request_id,
        source_urls: urls,
        result,
    })
    .await;
}

/// One image for the local preview.
pub enum PreviewInput {
    File(PathBuf),
    /// Already downloaded (a URL source); `name` labels errors.
    Bytes {
        name: String,
        bytes: Vec<u8>,
    },
    /// Could not be obtained; the message is reported if nothing else decodes.
    Unreadable(String),
}

/// Decode each image (downscaled) and run the shared median-cut extraction.
pub fn local_preview(inputs: Vec<PreviewInput>) -> Result<AnalyzedColors, String> {
    let mut decoded = Vec::with_capacity(inputs.len());
    let mut problems = Vec::new();
    for input in inputs {
        let image = match input {
            PreviewInput::File(path) => decode_file(&path),
            PreviewInput::Bytes { name, bytes } => decode_bytes(&name, &bytes),
            PreviewInput::Unreadable(problem) => Err(problem),
        };
        match image {
            Ok(image) => decoded.push(image),
            Err(problem) => problems.push(problem),
        }
    }
    if decoded.is_empty() {
        return Err(problems.join("; "));
    }
    let refs: Vec<crate::palette::ImageRef<'_>> = decoded
        .iter()
        .map(|image| crate::palette::ImageRef {
            width: image.width,
            height: image.height,
            rgba: &image.rgba,
        })
        .collect();
    let analyzed = crate::palette::analyze(&refs);
    Ok(AnalyzedColors {
        name: analyzed.name,
        colors: analyzed
            .colors
            .into_iter()
            .map(|c| ColorSpec {
                hex: c.hex,
                name: c.name,
                role: c.role.as_str().to_owned(),
            })
            .collect(),
    })
}

fn decode_file(path: &Path) -> Result<crate::media::DecodedImage, String> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    let length = std::fs::metadata(path)
        .map_err(|e| format!("cannot read {name}: {e}"))?
        .len();
    if length > PREVIEW_MAX_FILE_BYTES {
        return Err(format!("{name} is too large to preview"));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {name}: {e}"))?;
    decode_bytes(&name, &bytes)
}

fn decode_bytes(name: &str, bytes: &[u8]) -> Result<crate::media::DecodedImage, String> {
    if bytes.len() as u64 > PREVIEW_MAX_FILE_BYTES {
        return Err(format!("{name} is too large to preview"));
    }
    crate::media::decode_image(bytes, PREVIEW_MAX_SIDE_PX)
        .map_err(|e| format!("{name} is not a readable image: {e}"))
}

/// What the presets cache file holds.
#[derive(Serialize, Deserialize)]
struct PresetsCache {
    etag: Option<String>,
    presets: serde_json::Value,
}

fn cache_path(ctx: &Ctx) -> PathBuf {
    ctx.cache_dir.join(PRESETS_CACHE_FILE)
}

/// Read the cached presets and their ETag (`None` when absent or unreadable).
pub fn read_presets_cache(path: &Path) -> Option<(CinematicPresets, Option<String>)> {
    let bytes = std::fs::read(path).ok()?;
    let cache: PresetsCache = serde_json::from_slice(&bytes).ok()?;
    let presets = presets_from_value(&cache.presets);
    (!presets.is_empty()).then_some((presets, cache.etag))
}

/// Write the cache through a temp file and a rename (readers never see half a file).
pub fn write_presets_cache(
    path: &Path,
    presets: &CinematicPresets,
    etag: Option<&str>,
) -> Result<(), String> {
    let cache = PresetsCache {
        etag: etag.map(str::to_owned),
        presets: serde_json::to_value(presets).map_err(|e| e.to_string())?,
    };
    let bytes = serde_json::to_vec(&cache).map_err(|e| e.to_string())?;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
    }
    let temp = path.with_extension(format!("json.{}.part", uuid::Uuid::new_v4().simple()));
    std::fs::write(&temp, bytes).map_err(|e| e.to_string())?;
    std::fs::rename(&temp, path).map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        e.to_string()
    })
}

/// Cache first (at once), then the service with If-None-Match; a 304 keeps the cache.
async fn refresh_presets(ctx: Arc<Ctx>) {
    let path = cache_path(&ctx);
    let read_path = path.clone();
    let cached = tokio::task::spawn_blocking(move || read_presets_cache(&read_path))
        .await
        .ok()
        .flatten();
    let etag = match cached {
        Some((presets, etag)) => {
            ctx.emit(Event::Presets {
                origin: PresetsOrigin::Cache,
                result: Ok(presets),
            })
            .await;
            etag
        }
        None => None,
    };
    match ctx.client.cinematic_presets(etag.as_deref()).await {
        Ok(PresetsFetch::NotModified) => {
            // Only reachable when a cache was sent; it is already on screen.
            let read_path = path.clone();
            let cached = tokio::task::spawn_blocking(move || read_presets_cache(&read_path))
                .await
                .ok()
                .flatten();
            if let Some((presets, _)) = cached {
                ctx.emit(Event::Presets {
                    origin: PresetsOrigin::Revalidated,
                    result: Ok(presets),
                })
                .await;
            }
        }
        Ok(PresetsFetch::Fresh { presets, etag }) => {
            let to_write = presets.clone();
            let write = tokio::task::spawn_blocking(move || {
                write_presets_cache(&path, &to_write, etag.as_deref())
            })
            .await;
            if let Ok(Err(e)) = write {
                tracing::warn!("could not cache the cinematic presets: {e}");
            }
            ctx.emit(Event::Presets {
                origin: PresetsOrigin::Network,
                result: Ok(presets),
            })
            .await;
        }
        Err(error) => {
            tracing::warn!("cinematic presets refresh failed: {error}");
            ctx.emit(Event::Presets {
                origin: PresetsOrigin::Network,
                result: Err(error),
            })
            .await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::CinematicPreset;

    #[test]
    fn presets_cache_round_trips_with_its_etag() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join(PRESETS_CACHE_FILE);
        assert!(read_presets_cache(&path).is_none());
        let mut presets = CinematicPresets::new();
        presets.insert(
            "lighting".into(),
            vec![CinematicPreset {
                id: "golden".into(),
                name: "Golden hour".into(),
                sort_order: Some(1.0),
                ..Default::default()
            }],
        );
        write_presets_cache(&path, &presets, Some("\"v1\"")).unwrap();
        let (read, etag) = read_presets_cache(&path).unwrap();
        assert_eq!(read, presets);
        assert_eq!(etag.as_deref(), Some("\"v1\""));
        std::fs::write(&path, b"not json").unwrap();
        assert!(read_presets_cache(&path).is_none());
    }

    #[test]
    fn local_preview_reports_unreadable_files() {
        let dir = tempfile::tempdir().unwrap();
        let bad = dir.path().join("bad.png");
        std::fs::write(&bad, b"nope").unwrap();
        assert!(local_preview(vec![PreviewInput::File(bad)]).is_err());
        let good = dir.path().join("good.png");
        image::RgbaImage::from_pixel(8, 8, image::Rgba([200, 30, 30, 255]))
            .save(&good)
            .unwrap();
        let preview = local_preview(vec![PreviewInput::File(good)]).unwrap();
        assert!(!preview.colors.is_empty());
        assert_eq!(preview.colors[0].role, "dominant");
    }

    #[test]
    fn url_sources_preview_from_downloaded_bytes_and_report_failed_downloads() {
        let mut png = Vec::new();
        image::DynamicImage::ImageRgba8(image::RgbaImage::from_pixel(
            8,
            8,
            image::Rgba([20, 40, 220, 255]),
        ))
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
        let preview = local_preview(vec![
            PreviewInput::Unreadable("cannot fetch http://x/a.png: 404".into()),
            PreviewInput::Bytes {
                name: "http://x/b.png".into(),
                bytes: png,
            },
        ])
        .unwrap();
        assert_eq!(
            preview.colors.len(),
            1,
            "one flat blue image gives one colour"
        );
        let only_failures = local_preview(vec![PreviewInput::Unreadable(
            "cannot fetch http://x/a.png: 404".into(),
        )]);
        assert!(only_failures.is_err_and(|e| e.contains("404")));
    }
}
