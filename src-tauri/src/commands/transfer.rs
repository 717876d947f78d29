//! Dragging entries out and Ctrl+C: what other applications are offered
//! (`canopy_core::transfer`), and the clipboard holding it as file managers'
//! does. Nothing is written: the other application reads the files itself.

use canopy_core::limits::TRANSFER_MAX_ENTRIES;
use canopy_core::wire::{parse_request, TransferOffer, TransferRequest};
use canopy_core::{CanopyError, ErrorCode};
use serde_json::Value;
use tauri::{AppHandle, Runtime};

use super::{blocking, record};

/// Each entry's URI: a server's `sftp://` URL, else a local file's `file://`.
fn offer_of(req: &TransferRequest) -> Result<TransferOffer, CanopyError> {
    if req.handles.is_empty() || req.handles.len() > TRANSFER_MAX_ENTRIES {
        return Err(CanopyError::invalid(format!(
            "give 1 to {TRANSFER_MAX_ENTRIES} entries"
        )));
    }
    let uris = req
        .handles
        .iter()
        .map(|h| {
            let path = canopy_core::names::decode_handle(h)?;
            canopy_sftp::places::url_of_window_path(&path)
                .unwrap_or_else(|| canopy_core::transfer::local_uri(&path))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(canopy_core::transfer::offer(uris))
}

/// What dragging these entries out offers (the page hands it to the drag).
#[tauri::command]
pub async fn transfer_offer(request: Option<Value>) -> Result<TransferOffer, CanopyError> {
    let req: TransferRequest = parse_request(request)?;
    blocking(move || offer_of(&req)).await
}

/// Ctrl+C: puts the entries on the clipboard as file managers do, so Paste
/// in Nautilus copies them. In the `e2e` build, under
/// `CANOPY_TEST_ACTION_LOG`, the offer is recorded instead.
#[tauri::command]
pub async fn copy_files<R: Runtime>(
    app: AppHandle<R>,
    request: Option<Value>,
) -> Result<TransferOffer, CanopyError> {
    let req: TransferRequest = parse_request(request)?;
    let offer = blocking(move || offer_of(&req)).await?;
    if record("copy-files", offer.gnome_copied_files.replace('\n', " "))? {
        return Ok(offer);
    }
    hold_on_clipboard(&app, &offer)?;
    Ok(offer)
}

/// The clipboard offers `x-special/gnome-copied-files` and `text/uri-list`
/// (GTK, on the main thread), for as long as nothing else is copied.
#[cfg(target_os = "linux")]
fn hold_on_clipboard<R: Runtime>(
    app: &AppHandle<R>,
    offer: &TransferOffer,
) -> Result<(), CanopyError> {
    use gtk::gdk;
    let formats = [
        offer.gnome_copied_files.clone().into_bytes(),
        offer.uri_list.clone().into_bytes(),
    ];
    app.run_on_main_thread(move || {
        let flags = gtk::TargetFlags::empty();
        let targets = [
            gtk::TargetEntry::new("x-special/gnome-copied-files", flags, 0),
            gtk::TargetEntry::new("text/uri-list", flags, 1),
        ];
        let clipboard = gtk::Clipboard::get(&gdk::SELECTION_CLIPBOARD);
        clipboard.set_with_data(&targets, move |_, selection, info| {
            if let Some(bytes) = formats.get(info as usize) {
                selection.set(&selection.target(), 8, bytes);
            }
        });
    })
    .map_err(|e| CanopyError::new(ErrorCode::Io, format!("cannot reach the clipboard: {e}")))
}

#[cfg(not(target_os = "linux"))]
fn hold_on_clipboard<R: Runtime>(
    _app: &AppHandle<R>,
    _offer: &TransferOffer,
) -> Result<(), CanopyError> {
    Err(CanopyError::new(
        ErrorCode::Unsupported,
        "copying files is available on Linux only",
    ))
}
