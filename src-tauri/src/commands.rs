//! `#[tauri::command]` adapters over the engine. Each is a few lines: parse
//! the request, run the engine on `spawn_blocking`, map the error.

use std::sync::Arc;

use canopy_core::default_app::Desktop;
use canopy_core::names::encode_handle;
use canopy_core::wire::ArchiveSummary;
use canopy_core::wire::CopiedPath;
use canopy_core::wire::Launch;
use canopy_core::wire::SavedView;
use canopy_core::wire::ServerState;
use canopy_core::wire::{
    parse_request, CancelRequest, ListRequest, Listing, LocateRequest, Located, SecretAnswer,
    ShellEvent, WatchRequest, WatchStatus,
};
use canopy_core::wire::{FileRequest, PreviewChunk, PreviewRequest};
use canopy_core::wire::{SizesProgress, SizesReport, SizesRequest};
use canopy_core::{CanopyError, ErrorCode};
use canopy_places::Capability;
use serde_json::Value;
use tauri::ipc::{Channel, JavaScriptChannelId, Response};
use tauri::{AppHandle, Runtime, State, Webview};
use tauri_plugin_clipboard_manager::ClipboardExt;
use tauri_plugin_dialog::DialogExt;
use tauri_plugin_opener::OpenerExt;

use crate::progress::ProgressReport;
use crate::AppState;

mod find;
mod grid;
mod media;
pub(crate) mod media_stream;
mod places;
mod transfer;
pub use find::*;
pub use grid::*;
pub use media::*;
pub use media_stream::*;
pub use places::*;
pub use transfer::*;

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, CanopyError> + Send + 'static,
) -> Result<T, CanopyError> {
    tauri::async_runtime::spawn_blocking(work)
        .await
        .unwrap_or_else(|e| {
            Err(CanopyError::new(
                ErrorCode::Io,
                format!("the engine stopped unexpectedly: {e}"),
            ))
        })
}

/// Lists a folder: see `canopy_core::list_request`. With a `progress`
/// channel, says how far it got while it runs (see `progress.rs`).
#[tauri::command]
pub async fn list_directory<R: Runtime>(
    webview: Webview<R>,
    state: State<'_, Arc<AppState>>,
    request: Option<Value>,
    progress: Option<JavaScriptChannelId>,
) -> Result<Listing, CanopyError> {
    let req: ListRequest = parse_request(request)?;
    let (cancels, place) = (state.cancels.clone(), state.place_for(&req.root)?);
    let report = progress.map(|id| ProgressReport::new(id.channel_on(webview), req.request_id));
    let observer = report.as_ref().map(ProgressReport::observer);
    let listing = blocking(move || {
        let registration = cancels.register(req.request_id);
        let token = Some(registration.token.clone());
        let mut listing = canopy_core::list_request(&place.source, &req, token, observer)?;
        // What the place allows, said once on the wire: the UI reads it.
        place.stamp(&mut listing);
        Ok(listing)
    });
    match report {
        Some(report) => report.during(listing).await,
        None => listing.await,
    }
}

/// Counts folder sizes: see `canopy_core::sizes_request`. With a `progress`
/// channel, sends the engine's partial and finished figures as it reports
/// them (on the thread that runs the count, so never after the reply).
/// Stopped by `cancel_listing` with its request id.
#[tauri::command]
pub async fn folder_sizes<R: Runtime>(
    webview: Webview<R>,
    state: State<'_, Arc<AppState>>,
    request: Option<Value>,
    progress: Option<JavaScriptChannelId>,
) -> Result<SizesReport, CanopyError> {
    let req: SizesRequest = parse_request(request)?;
    let (cancels, place) = (state.cancels.clone(), state.place_for(&req.root)?);
    let channel = progress.map(|id| id.channel_on(webview));
    blocking(move || {
        let registration = cancels.register(req.request_id);
        // A page that went away (reloaded) hears nothing; the count goes on until cancelled.
        let send = |p: &SizesProgress| {
            if let Some(c) = &channel {
                let _ = c.send(p.clone());
            }
        };
        let observer = channel
            .as_ref()
            .map(|_| &send as &dyn canopy_core::SizesObserver);
        canopy_core::sizes_request(
            &place.source,
            &req,
            Some(registration.token.clone()),
            observer,
        )
    })
    .await
}

/// Stops a listing in flight; it answers `CANCELLED`.
#[tauri::command]
pub async fn cancel_listing(
    state: State<'_, Arc<AppState>>,
    request: Option<Value>,
) -> Result<bool, CanopyError> {
    let req: CancelRequest = parse_request(request)?;
    Ok(state.cancels.cancel(req.request_id))
}

/// Finds a name prefix in a folder's order (type-ahead).
#[tauri::command]
pub async fn locate(
    state: State<'_, Arc<AppState>>,
    request: Option<Value>,
) -> Result<Located, CanopyError> {
    let req: LocateRequest = parse_request(request)?;
    let place = state.place_at(&canopy_core::names::decode_handle(&req.folder)?)?;
    blocking(move || {
        place.ready()?;
        canopy_core::locate(&place.source, &req)
    })
    .await
}

/// What the window opens first (from the command line, or the remembered view).
#[tauri::command]
pub async fn startup_target(state: State<'_, Arc<AppState>>) -> Result<Launch, CanopyError> {
    Ok(state.launch.clone())
}

/// Watches exactly these folders for live refresh: see `canopy_watch::FolderWatch::set_folders`.
#[tauri::command]
pub async fn watch_folders(
    state: State<'_, Arc<AppState>>,
    request: Option<Value>,
) -> Result<WatchStatus, CanopyError> {
    let req: WatchRequest = parse_request(request)?;
    for folder in &req.folders {
        let folder = canopy_core::names::decode_handle(folder)?;
        state.place_at(&folder)?.require(Capability::Watch)?;
    }
    let watch = state.watch.clone();
    blocking(move || Ok(watch.set_folders(&req.folders))).await
}

/// Makes `channel` the window's inbox for folder changes and forwarded paths.
#[tauri::command]
pub async fn listen_shell(
    state: State<'_, Arc<AppState>>,
    channel: Channel<ShellEvent>,
) -> Result<(), CanopyError> {
    state.outbox.attach(channel);
    // A page that listens again (reloaded) is shown the prompts still open;
    // the page ignores one it shows already.
    if let Some(askpass) = &state.askpass {
        askpass.show_again();
    }
    Ok(())
}

/// Records the view to remember when the window closes.
#[tauri::command]
pub async fn remember_view(
    state: State<'_, Arc<AppState>>,
    request: Option<Value>,
) -> Result<(), CanopyError> {
    let view: SavedView = parse_request(request)?;
    let selected = view.selected.clone();
    *state.view.lock().unwrap_or_else(|e| e.into_inner()) = Some(view);
    state.save_soon();
    note_remembered(selected.as_deref());
    Ok(())
}

/// In the `e2e` build, under `CANOPY_TEST_REMEMBER_LOG`, appends the
/// selection's handle of each view the app now holds, so that a test knows
/// what a kill must find written.
#[cfg(feature = "e2e")]
fn note_remembered(selected: Option<&str>) {
    use std::io::Write;
    let Some(log) = std::env::var_os("CANOPY_TEST_REMEMBER_LOG") else {
        return;
    };
    let line = format!("selected {}\n", selected.unwrap_or("-"));
    let _ = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .and_then(|mut f| f.write_all(line.as_bytes()));
}

#[cfg(not(feature = "e2e"))]
fn note_remembered(_selected: Option<&str>) {}

/// Reads a bounded chunk of a regular file: see `canopy_core::preview`.
#[tauri::command]
pub async fn read_preview(
    state: State<'_, Arc<AppState>>,
    request: Option<Value>,
) -> Result<PreviewChunk, CanopyError> {
    let req: PreviewRequest = parse_request(request)?;
    let path = canopy_core::names::decode_handle(&req.handle)?;
    let place = state.place_at(&path)?;
    blocking(move || {
        place.ready()?;
        canopy_core::preview(&place.source, &path, req.offset, req.length)
    })
    .await
}

/// A whole image (up to `IMAGE_CAP`) as raw bytes over IPC, no base64.
#[tauri::command]
pub async fn read_image(
    state: State<'_, Arc<AppState>>,
    request: Option<Value>,
) -> Result<Response, CanopyError> {
    let req: FileRequest = parse_request(request)?;
    let path = canopy_core::names::decode_handle(&req.handle)?;
    let place = state.place_at(&path)?;
    let (bytes, _format) = blocking(move || {
        place.ready()?;
        canopy_core::preview_image(&place.source, &path)
    })
    .await?;
    Ok(Response::new(bytes))
}

/// What the archive at a handle is, for its preview pane: see
/// `canopy_core::WithArchives::summary` (`NOT_A_FILE` for anything that is
/// no archive).
#[tauri::command]
pub async fn archive_summary(
    state: State<'_, Arc<AppState>>,
    request: Option<Value>,
) -> Result<ArchiveSummary, CanopyError> {
    let req: FileRequest = parse_request(request)?;
    let path = canopy_core::names::decode_handle(&req.handle)?;
    let place = state.place_at(&path)?;
    blocking(move || {
        place.ready()?;
        place.source.summary(&path)
    })
    .await
}

/// Where file actions are recorded instead of performed, when set (tests:
/// no file manager or clipboard owner runs under Xvfb). `e2e` build only.
#[cfg(feature = "e2e")]
fn action_log() -> Option<std::path::PathBuf> {
    std::env::var_os("CANOPY_TEST_ACTION_LOG").map(Into::into)
}

/// Without the `e2e` feature nothing is recorded: every action is performed.
#[cfg(not(feature = "e2e"))]
pub(crate) fn record(
    _action: &str,
    _what: impl AsRef<std::ffi::OsStr>,
) -> Result<bool, CanopyError> {
    Ok(false)
}

/// Appends `action what` (exact bytes, one line) to the action log instead
/// of performing the action; `false` when no log is set.
#[cfg(feature = "e2e")]
pub(crate) fn record(action: &str, what: impl AsRef<std::ffi::OsStr>) -> Result<bool, CanopyError> {
    let Some(log) = action_log() else {
        return Ok(false);
    };
    use std::io::Write;
    use std::os::unix::ffi::OsStrExt;
    let line = [action.as_bytes(), b" ", what.as_ref().as_bytes(), b"\n"].concat();
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .and_then(|mut f| f.write_all(&line))
        .map_err(|e| CanopyError::from_io(&e, "cannot record the action"))?;
    Ok(true)
}

/// Shows the entry in the system file manager. The opener asks the file
/// manager over D-Bus (or starts one) and waits: that runs on
/// `spawn_blocking`, never on one of the runtime's workers.
#[tauri::command]
pub async fn reveal<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, Arc<AppState>>,
    request: Option<Value>,
) -> Result<(), CanopyError> {
    let req: FileRequest = parse_request(request)?;
    let path = canopy_core::names::decode_handle(&req.handle)?;
    state.place_at(&path)?.require(Capability::Reveal)?;
    blocking(move || {
        if record("reveal", &path)? {
            return Ok(());
        }
        app.opener()
            .reveal_item_in_dir(&path)
            .map_err(|e| CanopyError::new(ErrorCode::Io, e.to_string()))
    })
    .await
}

/// Opens a file with the default application when the engine's "Open…"
/// policy allows it (`canopy_core::openable`), handing the opener the exact
/// bytes of the path that was checked.
#[tauri::command]
pub async fn open_default(
    state: State<'_, Arc<AppState>>,
    request: Option<Value>,
) -> Result<(), CanopyError> {
    let req: FileRequest = parse_request(request)?;
    state
        .place_at(&canopy_core::names::decode_handle(&req.handle)?)?
        .require(Capability::OpenWithDesktop)?;
    blocking(move || {
        let path = canopy_core::openable::check_openable_bounded(&req, Desktop::system())?;
        open::that_detached(&path).map_err(|e| {
            CanopyError::new(
                ErrorCode::Io,
                format!("cannot start the default application: {e}"),
            )
        })
    })
    .await
}

/// Copies the entry's path to the clipboard, quoted for a shell when it
/// holds anything a shell or a person would misread
/// (`canopy_core::shell_quote`); answers whether it was quoted.
#[tauri::command]
pub async fn copy_path<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, Arc<AppState>>,
    request: Option<Value>,
) -> Result<CopiedPath, CanopyError> {
    let req: FileRequest = parse_request(request)?;
    let path = canopy_core::names::decode_handle(&req.handle)?;
    // A server's entry copies as its `sftp://` URL.
    let copied = match state.place_at(&path)?.copied_text() {
        Some(url) => canopy_core::shell_quote::path_text(url?.as_bytes()),
        None => canopy_core::shell_quote::copy_text(&req)?,
    };
    let answer = CopiedPath {
        quoted: copied.quoted,
    };
    if record("copy", &copied.text)? {
        return Ok(answer);
    }
    app.clipboard()
        .write_text(copied.text)
        .map_err(|e| CanopyError::new(ErrorCode::Io, e.to_string()))?;
    Ok(answer)
}

/// Shows the native folder picker and answers the picked folder's handle
/// (`null` when cancelled). In the `e2e` build, under
/// `CANOPY_TEST_PICK_FOLDER` the picker is not shown: that folder is
/// answered and the call recorded.
#[tauri::command]
pub async fn pick_folder<R: Runtime>(app: AppHandle<R>) -> Result<Option<String>, CanopyError> {
    #[cfg(feature = "e2e")]
    if let Some(canned) = std::env::var_os("CANOPY_TEST_PICK_FOLDER") {
        let path = std::path::PathBuf::from(canned);
        record("pick", &path)?;
        return Ok(Some(encode_handle(&path)));
    }
    let (tx, rx) = tokio::sync::oneshot::channel();
    app.dialog()
        .file()
        .set_title("Open folder")
        .pick_folder(move |picked| {
            let _ = tx.send(picked);
        });
    let picked = rx
        .await
        .map_err(|_| CanopyError::new(ErrorCode::Io, "the folder picker closed unexpectedly"))?;
    match picked.map(|p| p.into_path()) {
        None => Ok(None),
        Some(Ok(path)) => Ok(Some(encode_handle(&path))),
        Some(Err(e)) => Err(CanopyError::new(
            ErrorCode::Io,
            format!("the picked folder has no local path: {e}"),
        )),
    }
}

/// Where the connection to the server a handle is on stands (connecting,
/// connected, reconnecting, lost and why). Never connects, never waits.
#[tauri::command]
pub async fn server_state(
    state: State<'_, Arc<AppState>>,
    request: Option<Value>,
) -> Result<ServerState, CanopyError> {
    let req: FileRequest = parse_request(request)?;
    let path = canopy_core::names::decode_handle(&req.handle)?;
    match state.place_at(&path)?.connection() {
        Some(server) => Ok(server),
        None => Err(CanopyError::invalid("this path is not on a server")),
    }
}

/// The window's answer to `ssh`'s password or passphrase prompt `id` (an
/// `askSecret` event): the secret, or `null` to cancel.
#[tauri::command]
pub async fn answer_secret(
    state: State<'_, Arc<AppState>>,
    request: Option<Value>,
) -> Result<(), CanopyError> {
    let req: SecretAnswer = parse_request(request)?;
    let answer = req.secret.map(canopy_sftp::askpass::Zeroizing::new);
    match &state.askpass {
        Some(askpass) => askpass.answer(req.id, answer),
        None => Err(CanopyError::invalid("no password prompt is open")),
    }
}
