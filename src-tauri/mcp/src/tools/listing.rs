//! What the two listing tools, `list_directory` and `find_in_folder`,
//! share: the order they take, the order state they report, and one
//! listing call that checks the arguments and the roots, runs the engine
//! (cancellable, with progress) and renders the page.
//!
//! Promises: a page's text and its structured result together fit
//! `MCP_REPLY_CHARS` (the text gets what the structured result's widest
//! form leaves), and a page that ends before its folder does ends with its
//! `[NEXT]` line and carries the same cursor as `nextCursor`.

use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use canopy_core::cancel::CancelToken;
use canopy_core::limits::{MCP_MAX_DEPTH, MCP_REPLY_CHARS};
use canopy_core::wire::{EntryKind, SortBy};
use canopy_core::{CanopyError, ErrorCode, Excludes};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::{self, AgentListing};
use crate::page;
use crate::server::{kind_token, log, Canopy};

/// The orders a listing can be in (folders first under each).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
pub enum SortOrder {
    #[default]
    Name,
    Size,
    Modified,
    Type,
}

impl From<SortOrder> for SortBy {
    fn from(o: SortOrder) -> SortBy {
        match o {
            SortOrder::Name => SortBy::Name,
            SortOrder::Size => SortBy::Size,
            SortOrder::Modified => SortBy::Modified,
            SortOrder::Type => SortBy::Type,
        }
    }
}

/// The default of `show_dotfiles`: dotfiles are listed.
pub(crate) fn yes() -> bool {
    true
}

/// Whether a folder's order is whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrderState {
    /// Only some entries could be placed in this order (see `[PARTIAL_ORDER]`; use sort name to page).
    pub partial: bool,
    /// Entries whose size or time was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checked: Option<u64>,
}

impl OrderState {
    pub(crate) fn of(folder: Option<&canopy_core::wire::Folder>) -> OrderState {
        OrderState {
            partial: folder.is_some_and(|f| f.partial_order),
            checked: folder.and_then(|f| f.checked),
        }
    }
}

/// Characters of `structuredContent` as sent (compact JSON): they count in
/// the reply's budget with the text's.
pub(crate) fn structured_chars<T: Serialize>(value: &T) -> usize {
    serde_json::to_string(value).map_or(0, |s| s.chars().count())
}

/// What a listing call asks, whichever tool makes it.
pub(crate) struct Wanted {
    pub path: String,
    pub depth: u32,
    pub cursor: Option<String>,
    pub sort: SortOrder,
    pub reverse: bool,
    pub show_dotfiles: bool,
    pub filter: Option<String>,
    pub include_ignored: bool,
    /// Whole-name patterns left out of every folder.
    pub exclude: Vec<String>,
    pub details: bool,
    /// Characters of the reply kept for a line the tool adds.
    pub extra: usize,
    /// The longest the tool's structured result can serialize to, for the
    /// folder printed as its first argument and a cursor as long as its second.
    pub widest: fn(&str, usize) -> usize,
}

/// A listing and its rendered page.
pub(crate) struct Listed {
    pub listing: canopy_core::wire::Listing,
    pub page: page::Page,
    /// The listed folder's real path, escaped.
    pub path: String,
    pub next_cursor: Option<String>,
}

impl Canopy {
    /// Lists a folder for `tool`: checks the arguments and the roots, runs
    /// the engine (cancellable, with progress) and renders the page.
    pub(crate) async fn listing_call(
        &self,
        tool: &'static str,
        want: Wanted,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Listed, CanopyError> {
        if !(1..=MCP_MAX_DEPTH).contains(&want.depth) {
            return Err(CanopyError::invalid(format!(
                "depth must be 1 to {MCP_MAX_DEPTH}, not {}",
                want.depth
            )));
        }
        let exclude = parse_excludes(&want.exclude)?;
        let _turn = self.turn(tool, ctx).await?;
        let roots = self.allowed(ctx).await?;
        let opened = self.open_allowed(&want.path, roots.clone()).await?;
        let not_a_folder = |kind: EntryKind| {
            let hint = if kind == EntryKind::File {
                ": call read_file to read it"
            } else {
                ""
            };
            CanopyError::new(
                ErrorCode::NotADirectory,
                format!("{} is not a folder ({}){hint}", want.path, kind_token(kind)),
            )
        };
        // A regular file is listed as an archive; the engine tells one by its first bytes.
        let opened = match opened.kind {
            EntryKind::Folder => opened,
            EntryKind::File => opened.as_archive(),
            kind => return Err(not_a_folder(kind)),
        };
        let file_on_disk = opened
            .inside
            .as_ref()
            .is_some_and(|n| n.as_os_str().is_empty());
        let (dev, ino) = opened.binding();
        // A cursor continues only the listing of the same excludes (the
        // engine's cursor carries every other setting).
        let dev = dev ^ excludes_key(&want.exclude);
        let after = want
            .cursor
            .as_deref()
            .map(|c| page::decode_cursor(c, dev, ino))
            .transpose()?;
        let filter_bytes = want.filter.as_ref().map_or(0, String::len);
        let cancel = CancelToken::default();
        let folders = Arc::new(AtomicU64::new(0));
        let counter = folders.clone();
        let source = self.source.clone();
        let call = AgentListing {
            depth: want.depth,
            after,
            show_dotfiles: want.show_dotfiles,
            sort: want.sort.into(),
            reverse: want.reverse,
            filter: want.filter,
            cancel: cancel.clone(),
            on_folder: Arc::new(move || {
                counter.fetch_add(1, Ordering::Relaxed);
            }),
            source: source.clone(),
            include_ignored: want.include_ignored,
            exclude,
            details: want.details,
        };
        log(tool, "started");
        let job = move || {
            let mut listing = engine::list(&opened, call)?;
            // Links inside an archive are shown, never followed: where they
            // lead is no question for the disk (the engine marks them unchecked).
            if opened.inside.is_none() {
                source.confine_links(&mut listing, &opened.real, &roots);
            }
            Ok((listing, opened))
        };
        let (listing, opened) = match self.run_listing(ctx, cancel, folders, job).await {
            Err(e) if file_on_disk && e.code == ErrorCode::NotADirectory => {
                return Err(not_a_folder(EntryKind::File))
            }
            other => other?,
        };
        let listed = opened.path();
        let label = match listed.file_name() {
            Some(name) => canopy_core::names::escape_for_line(name.as_bytes()),
            None => engine::shown_path(&listed),
        };
        let reserve = page::next_line_reserve(tool, filter_bytes);
        // The structured result counts in the budget too: the text gets what
        // its widest form leaves.
        let cursor_chars = page::max_cursor_len(filter_bytes);
        let path = engine::shown_path(&listed);
        let structured = (want.widest)(&path, cursor_chars);
        let mut page = page::render(
            &listing,
            &label,
            MCP_REPLY_CHARS.saturating_sub(structured + want.extra),
            reserve,
            want.details,
        );
        let engine_next = if page.cut {
            engine::cursor_after(&listing, page.shown - 1)?
        } else {
            listing.next_cursor.clone()
        };
        let next_cursor = engine_next.map(|c| page::encode_cursor(dev, ino, &c));
        if let Some(c) = &next_cursor {
            page.text.push_str(&page::next_line(tool, c));
        }
        let budget = (page.unexpanded > 0).then(|| {
            format!(
                "{} folders were not expanded for lack of budget ([BUDGET] lines): list each by its path",
                page.unexpanded
            )
        });
        self.note_partial(ctx, tool, timeouts_in(&listing.root), budget)
            .await;
        Ok(Listed {
            listing,
            page,
            path,
            next_cursor,
        })
    }
}

/// Entries of a listing (the listed folder and every entry below it) that
/// did not answer in time.
fn timeouts_in(e: &canopy_core::wire::Entry) -> u64 {
    let own = u64::from(
        e.error
            .as_ref()
            .is_some_and(|err| err.code == canopy_core::ErrorCode::Timeout),
    );
    own + e
        .folder
        .as_deref()
        .map_or(0, |f| f.entries.iter().map(timeouts_in).sum())
}

/// The most `exclude` patterns one call takes.
pub(crate) const MAX_EXCLUDES: usize = 64;

/// The parsed `exclude` patterns, or none when the list is empty.
///
/// # Errors
/// `INVALID_ARGUMENT` for more than [`MAX_EXCLUDES`] patterns, or one the
/// filter refuses.
pub(crate) fn parse_excludes(patterns: &[String]) -> Result<Option<Arc<Excludes>>, CanopyError> {
    if patterns.len() > MAX_EXCLUDES {
        return Err(CanopyError::invalid(format!(
            "exclude holds {} patterns; at most {MAX_EXCLUDES} are accepted",
            patterns.len()
        )));
    }
    if patterns.is_empty() {
        return Ok(None);
    }
    Excludes::parse(patterns)
        .map(|x| Some(Arc::new(x)))
        .map_err(|e| CanopyError::invalid(format!("exclude: {}", e.message)))
}

/// A number that tells one list of excludes from another (0 for none), mixed
/// into what a cursor is bound to.
pub(crate) fn excludes_key(patterns: &[String]) -> u64 {
    // FNV-1a: stable within the server's run, which is all a cursor outlives.
    let mut h: u64 = 0;
    for p in patterns {
        h = (h ^ 0xcbf2_9ce4_8422_2325).wrapping_mul(0x0100_0000_01b3);
        for b in p.as_bytes().iter().chain([&0xffu8]) {
            h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}
