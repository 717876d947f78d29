//! The `canopy-media:` protocol: the window's `<audio>` plays the selected
//! file through it, as byte ranges (at most `MEDIA_RANGE_CAP` a request) of
//! the file opened when the stream was opened. One stream at a time: opening
//! another (the selection moved on) or closing it ends the last, and a
//! request naming any other stream, or anything else, is refused (403).
//! The stream's name is random: a page cannot guess another.

use std::io::Read;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use canopy_core::media::{open_stream, read_range};
use canopy_core::wire::{parse_request, FileRequest, MediaStreamUrl};
use canopy_core::{CanopyError, ErrorCode, Source};
use serde_json::Value;
use tauri::http::{header, Request, Response, StatusCode};
use tauri::{State, UriSchemeResponder};

use crate::AppState;

/// The protocol's scheme.
pub const SCHEME: &str = "canopy-media";

type File = <canopy_places::PlaceSource as Source>::File;

struct Stream {
    name: String,
    file: Arc<File>,
    path: PathBuf,
    mime: &'static str,
}

static CURRENT: Mutex<Option<Stream>> = Mutex::new(None);

fn random_name() -> Result<String, CanopyError> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| CanopyError::from_io(&e, "cannot name the stream"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Opens the selected file as the one stream (ending the last), and
/// answers its URL.
#[tauri::command]
pub async fn open_media_stream(
    state: State<'_, Arc<AppState>>,
    request: Option<Value>,
) -> Result<MediaStreamUrl, CanopyError> {
    let req: FileRequest = parse_request(request)?;
    let path = canopy_core::names::decode_handle(&req.handle)?;
    let source = state.source_allowing(&path, canopy_places::Capability::RenderMedia)?;
    super::blocking(move || {
        let (file, mime) = open_stream(&source, &path)?;
        let name = random_name()?;
        let url = format!("{SCHEME}://localhost/{name}");
        *CURRENT.lock().unwrap_or_else(|e| e.into_inner()) = Some(Stream {
            name,
            file,
            path,
            mime,
        });
        Ok(MediaStreamUrl { url })
    })
    .await
}

/// Ends the stream: its file is closed and its URL answers nothing.
#[tauri::command]
pub async fn close_media_stream() -> Result<(), CanopyError> {
    *CURRENT.lock().unwrap_or_else(|e| e.into_inner()) = None;
    Ok(())
}

fn refuse(status: StatusCode) -> Response<Vec<u8>> {
    Response::builder()
        .status(status)
        .body(Vec::new())
        .unwrap_or_default()
}

/// The app's own page, the one origin whose requests are answered (the
/// page fetches the stream across schemes, so CORS applies).
const APP_ORIGINS: &[&str] = &["tauri://localhost", "http://tauri.localhost"];

/// `response` with the CORS headers the app's page needs to read it.
fn for_page(origin: Option<&str>, mut response: Response<Vec<u8>>) -> Response<Vec<u8>> {
    if let Some(origin) = origin.filter(|o| APP_ORIGINS.contains(o)) {
        let headers = response.headers_mut();
        if let Ok(v) = header::HeaderValue::from_str(origin) {
            headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, v);
        }
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            header::HeaderValue::from_static("GET"),
        );
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            header::HeaderValue::from_static("Range"),
        );
        headers.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            header::HeaderValue::from_static("Content-Range, Content-Type, Content-Length"),
        );
    }
    response
}

/// Answers one request of the protocol, off the main thread.
pub fn serve(request: Request<Vec<u8>>, responder: UriSchemeResponder) {
    let origin = request
        .headers()
        .get(header::ORIGIN)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    // The preflight of a ranged fetch: headers only, nothing read.
    if request.method() == tauri::http::Method::OPTIONS {
        responder.respond(for_page(origin.as_deref(), refuse(StatusCode::NO_CONTENT)));
        return;
    }
    let name = request.uri().path().trim_start_matches('/').to_string();
    let range = request
        .headers()
        .get(header::RANGE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let stream = {
        let current = CURRENT.lock().unwrap_or_else(|e| e.into_inner());
        current
            .as_ref()
            .filter(|s| {
                !name.is_empty() && s.name == name && request.method() == tauri::http::Method::GET
            })
            .map(|s| (s.file.clone(), s.path.clone(), s.mime))
    };
    let Some((file, path, mime)) = stream else {
        responder.respond(for_page(origin.as_deref(), refuse(StatusCode::FORBIDDEN)));
        return;
    };
    tauri::async_runtime::spawn_blocking(move || {
        let reply = match read_range(&file, &path, range.as_deref()) {
            Ok(r) => Response::builder()
                .status(StatusCode::PARTIAL_CONTENT)
                .header(header::CONTENT_TYPE, mime)
                .header(header::ACCEPT_RANGES, "bytes")
                .header(
                    header::CONTENT_RANGE,
                    format!("bytes {}-{}/{}", r.start, r.end, r.total),
                )
                .header(header::CONTENT_LENGTH, r.bytes.len())
                .body(r.bytes)
                .unwrap_or_else(|_| refuse(StatusCode::INTERNAL_SERVER_ERROR)),
            Err(e) if e.code == ErrorCode::InvalidArgument => {
                refuse(StatusCode::RANGE_NOT_SATISFIABLE)
            }
            Err(_) => refuse(StatusCode::INTERNAL_SERVER_ERROR),
        };
        responder.respond(for_page(origin.as_deref(), reply));
    });
}
