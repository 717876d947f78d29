//! The sidebar's commands: the places, a mount's free space, "Bookmark this
//! folder". The engine decides everything (`canopy_core::places`).

use canopy_core::places::{BookmarkTarget, PlacesEnv};
use canopy_core::wire::{
    parse_request, BookmarkOutcome, BookmarkRequest, PlaceSpace, Places, SpaceRequest,
};
use canopy_core::{CanopyError, ErrorCode};
use serde_json::Value;

use super::blocking;

fn places_env() -> Result<PlacesEnv, CanopyError> {
    PlacesEnv::from_env()
        .ok_or_else(|| CanopyError::new(ErrorCode::NotFound, "there is no home folder ($HOME)"))
}

/// The sidebar's places: see `canopy_core::places::list_places`.
#[tauri::command]
pub async fn list_places() -> Result<Places, CanopyError> {
    blocking(|| Ok(canopy_core::places::list_places(&places_env()?))).await
}

/// A mount's free space, on a bounded worker: see `canopy_core::places::place_space`.
#[tauri::command]
pub async fn place_space(request: Option<Value>) -> Result<PlaceSpace, CanopyError> {
    let req: SpaceRequest = parse_request(request)?;
    let mount = canopy_core::names::decode_handle(&req.mount)?;
    blocking(move || canopy_core::places::place_space(&places_env()?, &mount)).await
}

/// Adds the folder to the GTK bookmarks (a server's folder as its `sftp://` URL).
#[tauri::command]
pub async fn add_bookmark(request: Option<Value>) -> Result<BookmarkOutcome, CanopyError> {
    let req: BookmarkRequest = parse_request(request)?;
    let path = canopy_core::names::decode_handle(&req.handle)?;
    let target = match canopy_sftp::places::url_of_window_path(&path) {
        Some(url) => BookmarkTarget::Server(url?),
        None => BookmarkTarget::Folder(path),
    };
    blocking(move || canopy_core::places::add_bookmark(&places_env()?, target)).await
}
