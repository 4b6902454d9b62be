//! Loading a 3D model for the viewer's turntable: fetch the GLB (or copy a local file) and
//! parse it into a [`Mesh`] off the UI thread; answered by `Event::Model3dLoaded`.

use super::protocol::Event;
use super::runtime::Ctx;
use crate::media::mesh::{Mesh, load_glb};
use std::sync::Arc;

pub(crate) async fn load_model_3d(ctx: Arc<Ctx>, url: String) {
    let result = fetch_and_parse(&ctx, &url).await;
    if let Err(error) = &result {
        tracing::warn!("loading the 3D model {url} failed: {error}");
    }
    ctx.emit(Event::Model3dLoaded { url, result }).await;
}

async fn fetch_and_parse(ctx: &Ctx, url: &str) -> Result<Arc<Mesh>, String> {
    let bytes = match crate::file_url::path_of_file_url(url) {
        Some(path) => tokio::fs::read(&path)
            .await
            .map_err(|e| format!("The file could not be read ({e})."))?,
        None => {
            let fetched = ctx.client.fetch_output(url).await;
            ctx.reachability.note(fetched.as_ref());
            fetched.map_err(|e| super::error_in_words(&e))?
        }
    };
    tokio::task::spawn_blocking(move || load_glb(&bytes).map(Arc::new))
        .await
        .map_err(|e| format!("The model could not be read (internal error: {e})."))?
        .map_err(|e| e.to_string())
}
