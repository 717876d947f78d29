//! The window's sidebar, Places: what it lists and the free space of a mount;
//! and what dragging entries out or copying them offers other applications.
#![forbid(unsafe_code)]

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{CanopyError, NamePart, RootSpec};

/// What a place is (its icon and its group in the sidebar).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum PlaceKind {
    Home,
    /// One of the XDG user folders (`~/.config/user-dirs.dirs`).
    Desktop,
    Documents,
    Downloads,
    Music,
    Pictures,
    Videos,
    Templates,
    Public,
    /// A line of the GTK bookmarks file.
    Bookmark,
    /// The root filesystem.
    Root,
    /// A mounted filesystem a person cares about (below `/media`,
    /// `/run/media/$USER`, `/mnt` or the home folder).
    Mount,
}

/// One place of the sidebar.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Place {
    pub kind: PlaceKind,
    /// What the sidebar says (a bookmark's own label, a folder's name).
    pub label: String,
    /// The label split into text and escape markers, present only when it
    /// holds characters that are never shown raw (as `Entry.nameParts`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub label_parts: Option<Vec<NamePart>>,
    /// What opening it lists: a handle, or a server's URL as typed.
    pub root: RootSpec,
    /// The place's path as a person reads it (its tooltip).
    pub shown: String,
    /// A mount's filesystem type (`ext4`, `tmpfs`, `fuse.sshfs` ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub fs_type: Option<String>,
    /// Present for a mount: its free space is asked with `place_space`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub mount: Option<String>,
    /// Why the place could not be looked at (`TIMEOUT` on a dead mount).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub error: Option<CanopyError>,
}

/// `list_places`' answer, in the sidebar's order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Places {
    /// Home, then the XDG user folders that exist.
    pub folders: Vec<Place>,
    /// The GTK bookmarks Canopy can open (`file://`, `sftp://`), in the file's order.
    pub bookmarks: Vec<Place>,
    /// The root filesystem, then the mounts, in the mount table's order.
    pub mounts: Vec<Place>,
    /// Something about the bookmarks file or the user folders file to say
    /// (unreadable, too large): the rest of the places are still listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub problem: Option<CanopyError>,
}

/// `place_space`'s request: a mount's handle (`Place.mount`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct SpaceRequest {
    pub mount: String,
}

/// A filesystem's free space, as `df` counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct PlaceSpace {
    /// Bytes an unprivileged user may still write (`f_bavail`).
    pub free: u64,
    /// Bytes in all (`f_blocks`).
    pub total: u64,
}

/// `add_bookmark`'s request: the folder to bookmark (a handle).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct BookmarkRequest {
    pub handle: String,
}

/// `add_bookmark`'s answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum BookmarkOutcome {
    /// A line was added to the bookmarks file.
    Added,
    /// The folder was bookmarked already: the file was left as it was.
    AlreadyThere,
}

/// `transfer_offer`'s and `copy_files`' request: the entries (handles).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct TransferRequest {
    pub handles: Vec<String>,
}

/// What dragging entries out (or copying them) offers other applications.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TransferOffer {
    /// One URI per entry: `file://` for a local one, `sftp://` for a server's.
    pub uris: Vec<String>,
    /// `text/uri-list`: each URI and CRLF.
    pub uri_list: String,
    /// `x-special/gnome-copied-files`: `copy`, then a URI a line.
    pub gnome_copied_files: String,
}
