//! The media commands: a PDF's facts and pages, a photo's details (and the
//! drawing of one the window cannot decode), an audio file's tags, a
//! video's facts and poster frame, a font's facts and sample line (see
//! `canopy_core::media`). A render job is registered under its request id
//! so that `cancel_render` (sent when the selection moves on) kills its
//! child at once.

use std::sync::{Arc, LazyLock};

use canopy_core::cancel::CancelRegistry;
use canopy_core::wire::{
    parse_request, AudioDetails, FontPreview, MediaRequest, PdfDocument, PdfPage, PhotoDetails,
    PhotoRender, RenderCancel, VideoDetails, VideoPoster,
};
use canopy_core::CanopyError;
use serde_json::Value;
use tauri::State;

use super::blocking;
use crate::AppState;

/// The render jobs in flight, by the window's request id.
static RENDERS: LazyLock<CancelRegistry> = LazyLock::new(CancelRegistry::default);

/// A PDF's title, author, pages and version (`pdfinfo` in the sandbox).
#[tauri::command]
pub async fn pdf_document(
    state: State<'_, Arc<AppState>>,
    request: Option<Value>,
) -> Result<PdfDocument, CanopyError> {
    let req: MediaRequest = parse_request(request)?;
    let path = canopy_core::names::decode_handle(&req.handle)?;
    let source = state.source_allowing(&path, canopy_places::Capability::RenderMedia)?;
    blocking(move || {
        let job = RENDERS.register(req.request_id);
        canopy_core::pdf_document(&source, &path, Some(&job.token))
    })
    .await
}

/// One page of a PDF at the pane's width, and its text (in the sandbox).
#[tauri::command]
pub async fn pdf_page(
    state: State<'_, Arc<AppState>>,
    request: Option<Value>,
) -> Result<PdfPage, CanopyError> {
    let req: MediaRequest = parse_request(request)?;
    let path = canopy_core::names::decode_handle(&req.handle)?;
    let source = state.source_allowing(&path, canopy_places::Capability::RenderMedia)?;
    blocking(move || {
        let job = RENDERS.register(req.request_id);
        canopy_core::pdf_page(&source, &path, req.page, req.width, Some(&job.token))
    })
    .await
}

/// A photo's EXIF details (camera, exposure, taken-at, GPS).
#[tauri::command]
pub async fn photo_details(
    state: State<'_, Arc<AppState>>,
    request: Option<Value>,
) -> Result<PhotoDetails, CanopyError> {
    let req: MediaRequest = parse_request(request)?;
    let path = canopy_core::names::decode_handle(&req.handle)?;
    let source = state.source_allowing(&path, canopy_places::Capability::RenderMedia)?;
    blocking(move || canopy_core::photo_details(&source, &path)).await
}

/// An audio file's tags, properties and cover art (read with a budget).
#[tauri::command]
pub async fn audio_details(
    state: State<'_, Arc<AppState>>,
    request: Option<Value>,
) -> Result<AudioDetails, CanopyError> {
    let req: MediaRequest = parse_request(request)?;
    let path = canopy_core::names::decode_handle(&req.handle)?;
    let source = state.source_allowing(&path, canopy_places::Capability::RenderMedia)?;
    blocking(move || canopy_core::audio_details(&source, &path)).await
}

/// A video's container, duration, resolution and codecs (`ffprobe` in the
/// sandbox).
#[tauri::command]
pub async fn video_details(
    state: State<'_, Arc<AppState>>,
    request: Option<Value>,
) -> Result<VideoDetails, CanopyError> {
    let req: MediaRequest = parse_request(request)?;
    let path = canopy_core::names::decode_handle(&req.handle)?;
    let source = state.source_allowing(&path, canopy_places::Capability::RenderMedia)?;
    blocking(move || {
        let job = RENDERS.register(req.request_id);
        canopy_core::video_details(&source, &path, Some(&job.token))
    })
    .await
}

/// A video's poster frame at the pane's width (`ffmpegthumbnailer` in the
/// sandbox, encoded again by the app).
#[tauri::command]
pub async fn video_poster(
    state: State<'_, Arc<AppState>>,
    request: Option<Value>,
) -> Result<VideoPoster, CanopyError> {
    let req: MediaRequest = parse_request(request)?;
    let path = canopy_core::names::decode_handle(&req.handle)?;
    let source = state.source_allowing(&path, canopy_places::Capability::RenderMedia)?;
    blocking(move || {
        let job = RENDERS.register(req.request_id);
        canopy_core::video_poster(&source, &path, req.width, Some(&job.token))
    })
    .await
}

/// A TIFF, HEIF or AVIF photo at the pane's width (`vips` in the sandbox,
/// encoded again by the app).
#[tauri::command]
pub async fn photo_render(
    state: State<'_, Arc<AppState>>,
    request: Option<Value>,
) -> Result<PhotoRender, CanopyError> {
    let req: MediaRequest = parse_request(request)?;
    let path = canopy_core::names::decode_handle(&req.handle)?;
    let source = state.source_allowing(&path, canopy_places::Capability::RenderMedia)?;
    blocking(move || {
        let job = RENDERS.register(req.request_id);
        canopy_core::photo_render(&source, &path, req.width, Some(&job.token))
    })
    .await
}

/// A font's facts (`fc-query`) and a sample line at the pane's width
/// (`hb-view`), both in the sandbox: the window never loads the font.
#[tauri::command]
pub async fn font_preview(
    state: State<'_, Arc<AppState>>,
    request: Option<Value>,
) -> Result<FontPreview, CanopyError> {
    let req: MediaRequest = parse_request(request)?;
    let path = canopy_core::names::decode_handle(&req.handle)?;
    let source = state.source_allowing(&path, canopy_places::Capability::RenderMedia)?;
    blocking(move || {
        let job = RENDERS.register(req.request_id);
        canopy_core::font_preview(&source, &path, req.width, Some(&job.token))
    })
    .await
}

/// Stops a render job: its child's process group is killed and it answers
/// `CANCELLED`. A cancel that comes first is remembered.
#[tauri::command]
pub async fn cancel_render(request: Option<Value>) -> Result<bool, CanopyError> {
    let req: RenderCancel = parse_request(request)?;
    Ok(RENDERS.cancel(req.request_id))
}
