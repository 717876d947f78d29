//! Requests: what a face asks the engine for, parsed so that every malformed
//! request, whoever sends it, gets `INVALID_ARGUMENT`.
#![forbid(unsafe_code)]

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{CanopyError, SortBy};

/// Where a listing starts: text a person typed, or a handle from a reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum RootSpec {
    Text(String),
    Handle(String),
}

/// How folders are listed: the settings every face shares, declared once.
/// A `list_directory` or `locate` request, the listing that answers it, the
/// window's remembered view, a cursor and `canopy-list`'s options all carry
/// these; a field left out takes its default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
#[ts(export)]
pub struct ListSettings {
    /// Levels read, 1..=`MAX_DEPTH` (default `DEFAULT_DEPTH`).
    pub depth: u32,
    /// Entries shown per folder below the root (default `NESTED_CAP`).
    pub cap: u32,
    /// Size of the root's page (default `PAGE`; a request asks 1..=`MAX_PAGE`).
    pub limit: u32,
    /// List names starting with `.` (default true).
    pub show_dotfiles: bool,
    /// The order of every folder listed (folders first under every order).
    pub sort: SortBy,
    /// Reverse the order (ties still fall back to the name, ascending).
    pub reverse: bool,
    /// Keep only the root's entries whose name matches (see `filter.rs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub filter: Option<String>,
    /// The filter is a whole-name glob with `{a,b}` alternatives, a
    /// malformed one refused (`canopy-mcp`'s patterns); false: the window's
    /// and `canopy-list`'s filter, a substring unless it holds a glob.
    /// (Not in the window's bindings: only `canopy-mcp` sets it.)
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[ts(skip)]
    pub glob_filter: bool,
    /// Leave out what git would ignore, in every folder (see `ignore_rules.rs`).
    pub hide_ignored: bool,
}

impl Default for ListSettings {
    fn default() -> Self {
        ListSettings {
            depth: crate::limits::DEFAULT_DEPTH,
            cap: crate::limits::NESTED_CAP,
            limit: crate::limits::PAGE,
            show_dotfiles: true,
            sort: SortBy::Name,
            reverse: false,
            filter: None,
            glob_filter: false,
            hide_ignored: false,
        }
    }
}

/// `list_directory`'s request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct ListRequest {
    pub root: RootSpec,
    #[serde(default)]
    pub settings: ListSettings,
    #[serde(default)]
    pub offset: u64,
    /// A `nextCursor` from an earlier reply: the page is the `limit` entries
    /// after the entry it names (then `offset` must be 0). Opaque.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub after: Option<String>,
    #[serde(default)]
    pub request_id: u64,
}

/// `cancel_listing`'s request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct CancelRequest {
    pub request_id: u64,
}

/// `locate`'s request: find a name prefix in a folder's order, under the
/// same settings as the listing it is shown in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct LocateRequest {
    pub folder: String,
    pub prefix: String,
    /// The listing's settings (its depth, cap and page size play no part).
    #[serde(default)]
    pub settings: ListSettings,
}

/// `locate`'s answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Located {
    /// Position in the folder's order of the first entry whose name starts
    /// with the prefix; when none does, where a non-folder of that name
    /// would sort (under the size and modified orders: among those without
    /// a value, at the end).
    pub index: u64,
    /// True when the entry at `index` starts with the prefix.
    pub matched: bool,
    pub total: u64,
}

/// Parses a request sent as JSON, mapping every shape error to `INVALID_ARGUMENT`.
///
/// # Errors
/// `INVALID_ARGUMENT` when the value is missing, has the wrong types, unknown
/// fields, or out-of-range numbers (serde's message says which).
pub fn parse_request<T: serde::de::DeserializeOwned>(
    value: Option<serde_json::Value>,
) -> Result<T, CanopyError> {
    let value = value.ok_or_else(|| CanopyError::invalid("the request is missing"))?;
    serde_json::from_value(value)
        .map_err(|e| CanopyError::invalid(format!("malformed request: {e}")))
}
