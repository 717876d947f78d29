//! `#[tauri::command]` adapters over the engine. Each is a few lines: parse
//! the request, run the engine on `spawn_blocking`, map the error.

use canopy_core::wire::{parse_request, CancelRequest, ListRequest, Listing, LocateRequest, Located, Startup};
use canopy_core::{CanopyError, ErrorCode};
use serde_json::Value;
use tauri::State;

use crate::AppState;

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, CanopyError> + Send + 'static,
) -> Result<T, CanopyError> {
    tauri::async_runtime::spawn_blocking(work)
        .await
        .unwrap_or_else(|e| Err(CanopyError::new(ErrorCode::Io, format!("the engine stopped unexpectedly: {e}"))))
}

/// Lists a folder: see `canopy_core::list_request`.
#[tauri::command]
pub async fn list_directory(state: State<'_, AppState>, request: Option<Value>) -> Result<Listing, CanopyError> {
    let req: ListRequest = parse_request(request)?;
    let (cancels, hooks) = (state.cancels.clone(), state.hooks.clone());
    blocking(move || {
        let registration = cancels.register(req.request_id);
        canopy_core::list_request(&req, Some(registration.token.clone()), hooks)
    })
    .await
}

/// Stops a listing in flight; it answers `CANCELLED`.
#[tauri::command]
pub async fn cancel_listing(state: State<'_, AppState>, request: Option<Value>) -> Result<bool, CanopyError> {
    let req: CancelRequest = parse_request(request)?;
    Ok(state.cancels.cancel(req.request_id))
}

/// Finds a name prefix in a folder's order (type-ahead).
#[tauri::command]
pub async fn locate(state: State<'_, AppState>, request: Option<Value>) -> Result<Located, CanopyError> {
    let req: LocateRequest = parse_request(request)?;
    let hooks = state.hooks.clone();
    blocking(move || canopy_core::locate(&req, &hooks)).await
}

/// What the window opens first (from the command line).
#[tauri::command]
pub async fn startup_target(state: State<'_, AppState>) -> Result<Startup, CanopyError> {
    Ok(state.startup.clone())
}
