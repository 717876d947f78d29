//! What the app shell and the window say to each other besides listings.
#![forbid(unsafe_code)]

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::RootSpec;

/// What the window opens first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Startup {
    /// The folder to open.
    pub folder: RootSpec,
    /// The handle of a file inside it to select, when started on a file.
    pub select: Option<String>,
}

/// `watch_folders`' request: the folders whose rows are on show, root first,
/// in tree order (the first ones are watched when there are too many).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct WatchRequest {
    pub folders: Vec<String>,
}

/// Why some requested folders are not watched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum WatchShortfallKind {
    /// More folders than `MAX_WATCHED_FOLDERS` are open.
    Cap,
    /// The system's inotify watch limit was reached.
    SystemLimit,
    /// Watching could not start at all (e.g. the inotify instance limit).
    Unavailable,
    /// A folder's filesystem did not answer in time (a dead or hung mount).
    NotResponding,
}

/// Some folders are not watched: they refresh when the window regains focus.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct WatchShortfall {
    pub kind: WatchShortfallKind,
    pub message: String,
}

/// `watch_folders`' answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct WatchStatus {
    /// Folders watched now.
    pub watched: u32,
    /// Handles asked for but not watched because of `shortfall`.
    pub unwatched: Vec<String>,
    pub shortfall: Option<WatchShortfall>,
}

/// What the app pushes to the window unasked, over the channel the window
/// gave `listen_shell`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[ts(export)]
pub enum ShellEvent {
    /// These watched folders changed on disk (handles as the window sent
    /// them). `overflow`: the system dropped events, so every watched folder
    /// is listed.
    FoldersChanged {
        folders: Vec<String>,
        overflow: bool,
    },
    /// A second `canopy PATH` asked the running window to open PATH.
    Open { startup: Startup },
    /// Something the window should say (e.g. a path that could not be passed).
    Notice { message: String },
    /// A filesystem was mounted or unmounted: the sidebar's places are to
    /// be listed again.
    PlacesChanged,
    /// `ssh` asks for a password or a key's passphrase to reach `server`:
    /// `prompt` is its words (a server's keyboard-interactive prompt is the
    /// server's choice: text, at most `ASKPASS_PROMPT_CHARS`), with
    /// `promptParts` as a name's when it holds anything shown escaped.
    /// Answered with `answer_secret`, once. Sent again to a page that
    /// listens again while it is open.
    AskSecret {
        #[ts(type = "number")]
        id: u64,
        server: String,
        prompt: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        prompt_parts: Option<Vec<super::NamePart>>,
    },
    /// The question `id` is no longer asked (it waited too long, or the
    /// connect that asked it ended): the window closes its dialog.
    SecretWithdrawn {
        #[ts(type = "number")]
        id: u64,
    },
}

/// `answer_secret`'s request: the secret for question `id`, or `null` to
/// cancel. The secret is passed to `ssh` once and kept nowhere.
#[derive(Clone, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct SecretAnswer {
    #[ts(type = "number")]
    pub id: u64,
    pub secret: Option<String>,
}

impl std::fmt::Debug for SecretAnswer {
    // Never prints the secret (an error or a log line might show it).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretAnswer")
            .field("id", &self.id)
            .field("secret", &self.secret.as_ref().map(|_| "(hidden)"))
            .finish()
    }
}

/// What the window gets at start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Launch {
    pub startup: Startup,
    /// The saved view to restore (started without a path, and one was saved).
    pub restore: Option<SavedView>,
    /// Something to say at start, e.g. that the saved view was ignored.
    pub notice: Option<String>,
    /// The servers connected to lately (`sftp://` URLs, newest first), from
    /// the saved view whatever the window opens.
    pub servers: Vec<String>,
}

/// What the window shows, as the window reports it.
///
/// Read strictly, as every request is: a key that is neither one of these
/// nor a [`ListSettings`](super::ListSettings) field refuses the view
/// (serde's `deny_unknown_fields` does not work beside `flatten`, so the
/// settings are parsed from what is left, and they deny unknown fields).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SavedView {
    /// Handle of the open folder.
    pub folder: String,
    /// The view's listing settings (fields absent in files from before them
    /// take their defaults: the name order, ignored entries shown).
    #[serde(flatten)]
    pub settings: super::ListSettings,
    /// Handles of the expanded folders, in tree order.
    pub expanded: Vec<String>,
    /// Handle of the selected entry.
    pub selected: Option<String>,
    /// The servers connected to lately, as `sftp://` URLs (no secret: a
    /// URL never holds a password), newest first, at most
    /// `RECENT_SERVERS_MAX`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<String>>", optional)]
    pub servers: Vec<String>,
}

/// `copy_path`'s answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct CopiedPath {
    /// The path was written as `$'…'` (it holds characters a shell or a
    /// person would misread).
    pub quoted: bool,
}

/// The limits the UI needs, as one value. Exported through ts-rs: the type to
/// `ui/src/bindings/Limits.ts` and the values to `ui/src/bindings/limit-values.ts`
/// (by `export_bindings_limits_values`; not `limits.ts`, which would clash
/// with `Limits.ts` on a case-insensitive disk), so the UI never restates a number
/// and the bindings' staleness check covers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Limits {
    pub default_depth: u32,
    pub max_depth: u32,
    pub nested_cap: u32,
    pub page: u32,
    pub max_page: u32,
    /// `TIME_BUDGET`, per folder.
    pub time_budget_ms: u64,
    /// `REQUEST_TIME`, per request.
    pub request_time_ms: u64,
    pub max_reply_entries: u64,
    pub max_names_read: u64,
    pub max_stuck_threads: u32,
    pub preview_chunk: u64,
    pub max_preview_chunk: u64,
    pub image_cap: u64,
    /// `SAVED_EXPANDED_MAX`.
    pub saved_expanded_max: u32,
    /// `RECENT_SERVERS_MAX`.
    pub recent_servers_max: u32,
}

impl<'de> Deserialize<'de> for SavedView {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Own {
            folder: String,
            expanded: Vec<String>,
            selected: Option<String>,
            #[serde(default)]
            servers: Vec<String>,
            #[serde(flatten)]
            settings: serde_json::Map<String, serde_json::Value>,
        }
        let own = Own::deserialize(d)?;
        let settings = serde_json::from_value(serde_json::Value::Object(own.settings))
            .map_err(serde::de::Error::custom)?;
        Ok(SavedView {
            folder: own.folder,
            settings,
            expanded: own.expanded,
            selected: own.selected,
            servers: own.servers,
        })
    }
}

/// Where the connection to a server stands (the window shows it beside a
/// remote folder's path).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum ConnectionPhase {
    /// Not connected yet (nothing asked of the server).
    Idle,
    Connecting,
    Connected,
    /// Connecting again after the connection was lost.
    Reconnecting,
    /// Lost, and not reconnected yet: the next request reconnects.
    Lost,
}

/// `server_state`'s answer: the connection of the server a handle is on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ServerState {
    /// `user@host:port` as the window shows it before the path.
    pub server: String,
    pub phase: ConnectionPhase,
    /// Why it was lost (ssh's or the connection's words), when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub message: Option<String>,
    /// How many times a lost connection was made again.
    pub reconnects: u64,
}
