//! The grid's thumbnails: see `canopy_core::thumbs` (the freedesktop
//! thumbnail cache is read and filled; the browsed folder never written).

use std::sync::Arc;

use canopy_core::thumbs::ThumbCache;
use canopy_core::wire::{parse_request, FileRequest, Thumbnail};
use canopy_core::CanopyError;
use serde_json::Value;
use tauri::State;

use super::blocking;
use crate::AppState;

/// A thumbnail of a local image (a server's file is refused: its icon shows).
#[tauri::command]
pub async fn thumbnail(
    state: State<'_, Arc<AppState>>,
    request: Option<Value>,
) -> Result<Thumbnail, CanopyError> {
    let req: FileRequest = parse_request(request)?;
    let path = canopy_core::names::decode_handle(&req.handle)?;
    let source = state.source_allowing(&path, canopy_places::Capability::RenderMedia)?;
    blocking(move || {
        canopy_core::thumbs::thumbnail(&source, &path, ThumbCache::from_env().as_ref())
    })
    .await
}
