//! The window's Find: see `canopy_core::find_request` (the engine's search,
//! streamed) and `canopy_core::reveal` (the way down to a hit).

use std::sync::Arc;

use canopy_core::wire::{
    parse_request, FindProgress, FindReport, FindRequest, RevealRequest, Revealed,
};
use canopy_core::CanopyError;
use serde_json::Value;
use tauri::ipc::JavaScriptChannelId;
use tauri::{Runtime, State, Webview};

use super::blocking;
use crate::AppState;

/// Finds names (and contents) below a folder, sending the hits over
/// `progress` as they are found (on the searching thread, so never after
/// the reply). Stopped by `cancel_listing` with its request id.
#[tauri::command]
pub async fn find_below<R: Runtime>(
    webview: Webview<R>,
    state: State<'_, Arc<AppState>>,
    request: Option<Value>,
    progress: JavaScriptChannelId,
) -> Result<FindReport, CanopyError> {
    let req: FindRequest = parse_request(request)?;
    let (cancels, place) = (state.cancels.clone(), state.place_for(&req.root)?);
    let channel = progress.channel_on(webview);
    blocking(move || {
        place.ready()?;
        let registration = cancels.register(req.request_id);
        // A page that went away (reloaded) hears nothing; the search stops when cancelled.
        let send = move |p: &FindProgress| {
            let _ = channel.send(p.clone());
        };
        canopy_core::find_request(
            &place.source,
            &req,
            Some(registration.token.clone()),
            Arc::new(send),
        )
    })
    .await
}

/// Where each folder from the open one down to an entry holds the next step.
#[tauri::command]
pub async fn reveal_path(
    state: State<'_, Arc<AppState>>,
    request: Option<Value>,
) -> Result<Revealed, CanopyError> {
    let req: RevealRequest = parse_request(request)?;
    let place = state.place_at(&canopy_core::names::decode_handle(&req.root)?)?;
    blocking(move || {
        place.ready()?;
        canopy_core::reveal(&place.source, &req)
    })
    .await
}
