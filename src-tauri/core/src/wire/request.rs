//! Requests: what a face asks the engine for, parsed so that every malformed
//! request, whoever sends it, gets `INVALID_ARGUMENT`.

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

fn default_depth() -> u32 {
    crate::limits::DEFAULT_DEPTH
}

fn default_limit() -> u32 {
    crate::limits::PAGE
}

fn default_true() -> bool {
    true
}

/// `list_directory`'s request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct ListRequest {
    pub root: RootSpec,
    #[serde(default = "default_depth")]
    pub depth: u32,
    #[serde(default)]
    pub offset: u64,
    /// A `nextCursor` from an earlier reply: the page is the `limit` entries
    /// after the entry it names (then `offset` must be 0). Opaque.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub after: Option<String>,
    #[serde(default = "default_limit")]
    pub limit: u32,
    #[serde(default = "default_true")]
    pub show_dotfiles: bool,
    /// The order of every folder listed (folders first under every order).
    #[serde(default)]
    pub sort: SortBy,
    /// Reverse the order (ties still fall back to the name, ascending).
    #[serde(default)]
    pub reverse: bool,
    /// Keep only the root's entries whose name matches (see [`crate::filter`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub filter: Option<String>,
    /// Leave out what git would ignore (see [`crate::ignore_rules`]).
    #[serde(default)]
    pub hide_ignored: bool,
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
    #[serde(default = "default_true")]
    pub show_dotfiles: bool,
    #[serde(default)]
    pub sort: SortBy,
    #[serde(default)]
    pub reverse: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub filter: Option<String>,
    #[serde(default)]
    pub hide_ignored: bool,
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
    serde_json::from_value(value).map_err(|e| CanopyError::invalid(format!("malformed request: {e}")))
}
