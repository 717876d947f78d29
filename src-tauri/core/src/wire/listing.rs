//! The listing as it crosses to the UI and to scripts: entries, folders, counts.
#![forbid(unsafe_code)]

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{is_false, is_zero, CanopyError};

/// What an entry is, from the directory entry's own type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum EntryKind {
    Folder,
    File,
    Symlink,
    Fifo,
    Socket,
    CharDevice,
    BlockDevice,
    /// The filesystem did not report a type and the entry vanished before it
    /// could be stat'ed.
    Unknown,
}

impl EntryKind {
    /// Fifos, sockets, devices: listed, never opened.
    pub fn is_special(self) -> bool {
        matches!(
            self,
            EntryKind::Fifo
                | EntryKind::Socket
                | EntryKind::CharDevice
                | EntryKind::BlockDevice
                | EntryKind::Unknown
        )
    }
}

/// What a listing is ordered by (see [`crate::order`]). Folders come first
/// under every order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum SortBy {
    /// Natural name order (case-insensitive, numbers by value).
    #[default]
    Name,
    /// Size from `lstat` (a folder's own size is not its contents': folders sort by name).
    Size,
    /// Modification time from `lstat`.
    Modified,
    /// Extension (after the last dot that is not the first character, lowercased), then name.
    Type,
}

/// An archive format Canopy opens like a folder, found by the file's first
/// bytes (never by its name alone).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum ArchiveFormat {
    Zip,
    Tar,
    TarGz,
    TarBz2,
    TarXz,
    TarZst,
}

impl ArchiveFormat {
    /// How the format is named to people: `zip`, `tar.gz` ...
    pub fn label(self) -> &'static str {
        match self {
            ArchiveFormat::Zip => "zip",
            ArchiveFormat::Tar => "tar",
            ArchiveFormat::TarGz => "tar.gz",
            ArchiveFormat::TarBz2 => "tar.bz2",
            ArchiveFormat::TarXz => "tar.xz",
            ArchiveFormat::TarZst => "tar.zst",
        }
    }
}

/// What a link points to: a symlink's target, found by following it once
/// (never descending); a tar's hard link's, the entry it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum LinkTarget {
    Folder,
    File,
    Other,
    Dangling,
    Loop,
    /// The target could not be examined (e.g. permission denied on the way).
    Unknown,
    /// The target lies outside the folders a front end may show (`canopy-mcp`'s
    /// roots): it is not followed there, so nothing is said about it.
    Outside,
}

/// A shown link's target text and what it leads to: a symlink's, or (on a
/// file inside a tar) the entry a hard link names, whose bytes the file has
/// (`dangling` or `loop` when it names no entry before it, or itself in a
/// cycle; the entry's error says why).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct LinkInfo {
    /// The target as written in the link (lossy).
    pub target: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub target_parts: Option<Vec<NamePart>>,
    pub points_to: LinkTarget,
}

/// Counts by kind of entries that a folder holds but the listing does not show.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct KindCounts {
    pub folders: u64,
    pub files: u64,
    /// Symlinks, fifos, sockets, devices.
    pub other: u64,
}

impl KindCounts {
    /// Counts one entry of `kind`.
    pub fn add(&mut self, kind: EntryKind) {
        match kind {
            EntryKind::Folder => self.folders += 1,
            EntryKind::File => self.files += 1,
            _ => self.other += 1,
        }
    }

    /// Entries of every kind.
    pub fn sum(&self) -> u64 {
        self.folders + self.files + self.other
    }

    /// `self - other`, saturating (the counts come from the same scan).
    pub fn minus(&self, other: &KindCounts) -> KindCounts {
        KindCounts {
            folders: self.folders.saturating_sub(other.folders),
            files: self.files.saturating_sub(other.files),
            other: self.other.saturating_sub(other.other),
        }
    }
}

/// A folder's contents as far as this listing read them.
///
/// Invariant, for a folder that was read in full:
/// `entries.len() + unlisted.sum() == total`. When a time budget cut the read
/// short, `countIsLowerBound` is set and `total` counts what was read.
/// `total` counts what the listing keeps: after the dotfile setting, the
/// ignore rules (`ignoredHidden` left out) and, for a filtered folder, the
/// filter (the count before it is `unfilteredTotal`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Folder {
    /// Entries in the folder (after the dotfile setting, the ignore rules and
    /// the filter: the match count); `null` when not read.
    pub total: Option<u64>,
    /// For a filtered folder: its entries before the filter (after the
    /// dotfile setting and the ignore rules). `total` of them match.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub unfiltered_total: Option<u64>,
    /// False for a folder at the depth limit, or one that could not be read.
    pub children_loaded: bool,
    /// Position of `entries[0]` in the folder's order.
    pub offset: u64,
    pub entries: Vec<Entry>,
    /// Entries not in `entries`, by kind (those before `offset` included).
    pub unlisted: KindCounts,
    /// All `total` entries by kind (`entries` and `unlisted` together).
    pub kinds: KindCounts,
    /// What the entries after `entries` are, by group: the `REST_GROUPS_SHOWN`
    /// largest (folders; others by extension), then one `other` for the
    /// rest. Empty when nothing follows the page.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<RestGroup>>", optional)]
    pub rest: Vec<RestGroup>,
    /// Dotfiles left out because the request asked to hide them.
    pub dotfiles_hidden: u64,
    /// Entries left out because the request hid what git ignores.
    #[serde(skip_serializing_if = "is_zero")]
    #[ts(as = "Option<u64>", optional)]
    pub ignored_hidden: u64,
    /// `total` is at least this many: the read stopped early.
    pub count_is_lower_bound: bool,
    /// The entries are the best of those read, not the first of the whole
    /// folder: the read was cut short, or (with `checked` below `total`) the
    /// size or time of only some entries could be read in time.
    pub partial_order: bool,
    /// Under the size or modified order: how many of `total` entries were
    /// placed by their value (the rest sort last, unread).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub checked: Option<u64>,
    /// Its recursive size, when sizes were asked with the listing
    /// (`canopy-list --sizes`): everything below it, as `du -x` counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub sizes: Option<super::FolderSizes>,
}

impl Folder {
    /// A folder that was not read (depth limit or error).
    pub fn unread() -> Self {
        Folder {
            total: None,
            unfiltered_total: None,
            children_loaded: false,
            offset: 0,
            entries: Vec::new(),
            unlisted: KindCounts::default(),
            kinds: KindCounts::default(),
            rest: Vec::new(),
            dotfiles_hidden: 0,
            ignored_hidden: 0,
            count_is_lower_bound: false,
            partial_order: false,
            checked: None,
            sizes: None,
        }
    }
}

/// One entry of a folder (or the listed folder itself).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Entry {
    /// Display name; invalid UTF-8 replaced by U+FFFD.
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub name_lossy: Option<bool>,
    /// The name split into text and escape markers, present only when the
    /// name holds characters that are never shown raw.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub name_parts: Option<Vec<NamePart>>,
    /// Opaque; decodes to the exact path bytes. Pass it back to list or preview.
    pub handle: String,
    pub kind: EntryKind,
    /// It can be expanded: a folder, or a symlink to one.
    #[serde(skip_serializing_if = "is_false")]
    #[ts(as = "Option<bool>", optional)]
    pub can_expand: bool,
    /// It can be previewed: a regular file, or a symlink to one.
    #[serde(skip_serializing_if = "is_false")]
    #[ts(as = "Option<bool>", optional)]
    pub can_preview: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub size: Option<u64>,
    /// Modification time, milliseconds since the Unix epoch; absent when not
    /// read, or when it lies beyond what a date can hold (`MAX_TIME_MS`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub modified: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub link: Option<Box<LinkInfo>>,
    /// What went wrong with this entry, if anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub error: Option<CanopyError>,
    /// Present for folders.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub folder: Option<Box<Folder>>,
    /// Present for a regular file that is an archive Canopy opens like a
    /// folder (listing its path lists its inside).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub archive: Option<ArchiveFormat>,
}

/// A step of the path bar: one ancestor of the listed folder, or the folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Crumb {
    /// Display name; invalid UTF-8 replaced by U+FFFD.
    pub name: String,
    /// The name split into text and escape markers, present only when it
    /// holds characters that are never shown raw (as `Entry.nameParts`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub name_parts: Option<Vec<NamePart>>,
    pub handle: String,
    /// Present on the archive file a listing inside an archive runs through
    /// (the outermost: the file on disk that file actions act on).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub archive: Option<ArchiveFormat>,
}

/// What can be done with what a listing shows besides reading it, as the
/// place it lives in says (the registry, `canopy_places`): each action
/// `null` when it is available there, else why not, in words to show (as
/// text). The window reads these and never tells a place by its path.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Capabilities {
    /// Open with the desktop's default application.
    pub open_with_desktop: Option<String>,
    /// Show in the desktop's file manager.
    pub reveal: Option<String>,
    /// Live refresh: the folder watched for changes.
    pub watch: Option<String>,
    /// PDF pages, video posters, audio, fonts, photos and thumbnails
    /// through the sandboxed renderer, and playing.
    pub render_media: Option<String>,
    /// Opening an archive like a folder.
    pub read_archives: Option<String>,
    /// An entry's facts (kind, size, times).
    pub file_facts: Option<String>,
    /// Copying the path (a server's as its `sftp://` URL).
    pub copy_path: Option<String>,
}

/// The answer to a listing request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Listing {
    pub request_id: u64,
    /// The listed folder's absolute path, for display (lossy).
    pub path: String,
    /// From the filesystem root down to the listed folder itself.
    pub crumbs: Vec<Crumb>,
    /// What can be done there besides reading it.
    pub capabilities: Capabilities,
    /// The server the listed folder is on (`user@host:port`); `null` for
    /// a folder on this machine.
    pub server: Option<String>,
    /// The settings it was listed under.
    pub settings: super::ListSettings,
    /// The listed folder; its `folder` holds the requested page.
    pub root: Entry,
    /// Pass back as `after` for the page that follows this one. Absent on the
    /// last page, and when the root's read was cut short (its order is partial).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub next_cursor: Option<String>,
}

/// How far a listing has got, sent to the window while it runs (over the
/// channel given to `list_directory`), never after its reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ListProgress {
    /// The request it reports on (as `Listing.requestId`).
    pub request_id: u64,
    /// Folders whose names were read so far.
    pub folders: u64,
    /// Names read so far, in all those folders (all kinds, before any
    /// filter): a folder read twice (a deep page) counts twice.
    pub names: u64,
}

/// One group of a folder's hidden entries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(
    tag = "group",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[ts(export)]
pub enum RestGroup {
    /// Real folders.
    Folders { count: u64 },
    /// Entries (not folders) with this extension (lowercase ASCII letters and digits).
    Extension { extension: String, count: u64 },
    /// Entries (not folders) without an extension.
    NoExtension { count: u64 },
    /// Everything not named by the groups before it.
    Other { count: u64 },
}

impl RestGroup {
    /// The entries in this group.
    pub fn count(&self) -> u64 {
        match self {
            RestGroup::Folders { count }
            | RestGroup::Extension { count, .. }
            | RestGroup::NoExtension { count }
            | RestGroup::Other { count } => *count,
        }
    }

    /// The group as `canopy-list --summary` prints it: `343 .jpg`, `3 folders`.
    pub fn label(&self) -> String {
        match self {
            RestGroup::Folders { count } => format!("{count} folders"),
            RestGroup::Extension { extension, count } => format!("{count} .{extension}"),
            RestGroup::NoExtension { count } => format!("{count} without extension"),
            RestGroup::Other { count } => format!("{count} other"),
        }
    }
}

/// One run of a name as shown to a person: plain text, or an escape marker
/// standing for a character or byte that must not be shown raw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum NamePart {
    Text(String),
    Escape(String),
}
