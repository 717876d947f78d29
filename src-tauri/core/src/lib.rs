//! Canopy's engine: the capped recursive listing and the bounded preview,
//! and the policies of the file actions ([`openable`] with [`default_app`]
//! for "Open…", [`shell_quote`] for "Copy path").
//!
//! **The front door.** Every face (the window's Tauri commands,
//! `canopy-list`, `canopy-mcp`) calls the engine here and nothing below it:
//!
//! - [`list`]`(source, root, &`[`ListSettings`]`, &`[`ListCall`]`)`: the capped
//!   recursive listing ([`list_request`] for a request as the window sends it);
//! - [`locate`]`(source, request)`: where a name prefix falls in a folder's order;
//! - [`preview`]`(source, path, offset, length)` and [`preview_image`]: a
//!   bounded read of one regular file;
//! - [`sizes`]`(source, root, &`[`SizesCall`]`, cancel, observer)`: the
//!   recursive size of a folder and of its folders to a depth, as `du -x`
//!   counts, streamed to a [`SizesObserver`] ([`sizes_request`] for a
//!   request as the window sends it);
//! - [`pdf_document`], [`pdf_page`] and [`photo_details`]: a PDF's facts and
//!   pages through the sandboxed renderer, a photo's EXIF details;
//!   [`video_details`] and [`video_poster`]: a video's facts and a poster
//!   frame, through the same renderer; [`photo_render`]: a TIFF, HEIF or
//!   AVIF photo drawn by it; [`font_preview`]: a font's facts and sample line;
//! - [`resolve_within`], [`confine_links`], [`real_path`]: looking only
//!   inside a set of folders (`canopy-mcp`'s roots);
//! - [`places`]: the window's sidebar (home, user folders, GTK bookmarks,
//!   mounts and their free space); [`transfer`]: what dragging or copying
//!   entries offers other applications; [`thumbs`]: the grid's thumbnails
//!   in the freedesktop thumbnail cache.
//!
//! Each takes a [`Source`], the place a listing comes from; [`LocalFs`] is
//! the local filesystem. An [`Observer`] hears of each folder read. The
//! listing settings are one type, [`ListSettings`], that requests, replies,
//! the saved view and cursors all carry. Wire types live in [`wire`] and
//! are exported to TypeScript by ts-rs; every number that bounds work lives
//! in [`limits`]. The other public modules are what the faces share besides
//! listings: [`text`] (the listing as lines), [`names`] (handles and
//! escapes), [`cancel`], and the window's [`saved_view`], [`startup`],
//! [`supervisor`] and file-action policies.
//!
//! This crate has no GUI dependency. `unsafe` lives in one module, `sys`
//! (the system-call boundary); every other module forbids it.
#![deny(unsafe_code)]

mod archive;
// Public for canopy-watch, which sets its watches up on the same bounded workers.
pub mod bounded;
pub mod cancel;
mod confine;
mod content_match;
mod cpu_work;
pub(crate) mod cursor;
pub mod default_app;
mod either;
mod facts;
pub(crate) mod filter;
mod find;
mod git_index;
mod ignore_layer;
pub(crate) mod ignore_pattern;
pub(crate) mod ignore_rules;
pub mod limits;
mod lines;
mod locate;
pub mod media;
pub mod names;
pub mod openable;
pub(crate) mod order;
pub mod places;
pub mod preview;
mod repository;
pub(crate) mod rest;
mod root;
pub mod saved_view;
mod search;
pub(crate) mod select;
pub mod shell_quote;
mod sizes;
pub mod source;
pub mod startup;
mod sys;
pub mod text;
pub mod thumbs;
pub mod transfer;
mod walk;
pub mod wire;

pub use sys::supervisor;
pub(crate) use sys::{anchor, dirio, file, local};
pub(crate) use wire::error;

pub use archive::WithArchives;
pub use confine::{confine_links, confine_links_with, real_path, resolve_within, within, Leads};
pub use cursor::{after_entry as cursor_after, max_len as max_cursor_len};
pub use either::Either;
pub use error::{CanopyError, ErrorCode};
pub use facts::entry_meta;
pub use filter::{check_glob as check_name_glob, Excludes, FilterScratch};
pub use find::find_request;
pub use lines::{read_lines, LineTotal, LineWindow, Lines};
pub use local::{LocalFile, LocalFs};
pub use locate::locate;
pub use locate::reveal;
pub use media::{
    audio_details, font_preview, pdf_document, pdf_page, photo_details, photo_render,
    video_details, video_poster,
};
pub use preview::{preview, preview_image};
pub use root::resolve_root;
pub use search::{search, SearchHit, SearchObserver, SearchPosition, SearchQuery, SearchResult};
pub use sizes::{
    attach_sizes, peak_nodes, sizes, sizes_request, Reported, SizesBudget, SizesCall, SizesObserver,
};
pub use source::{Observer, Source, SourceFile, SourceFolder};
pub use walk::{list, list_request, ListCall, RequestBudget};
pub use wire::ListSettings;

/// The test seams (the `e2e` build only): the local source's slowed
/// folders, the order's name comparison, and what the dead-mount tests count.
#[cfg(feature = "e2e")]
pub mod testing {
    pub use crate::bounded::Pool;
    pub use crate::git_index::paths_of_bytes as index_paths_of_bytes;
    pub use crate::local::IoHooks;
    pub use crate::order::{compare_names, extension};
    pub use crate::repository::tracked_paths;
}
