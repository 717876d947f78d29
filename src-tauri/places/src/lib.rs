//! Where a path lives: one registry, built by one function ([`standard`]),
//! that every face (the window, `canopy-list`, `canopy-mcp`) asks, and only
//! it, which place a path or a typed root is read from. So a path means the
//! same place in every face, and an archive opens the same on every place:
//! the local disk's, a server's (`sftp://host/x.zip/a`), or inside another
//! archive, in the window, `canopy-list` and `canopy-mcp` alike.
//!
//! Promises:
//! - **One source type, the archive layer over every place.** A
//!   [`Location`]'s source is [`PlaceSource`]: the place's own source (the
//!   local disk, or a server over SFTP) inside the archive layer, whose
//!   kept archive indexes are one cache for every place the registry hands
//!   out.
//! - **What a place allows is said once.** [`Location::require`] answers
//!   whether a [`Capability`] (open with the desktop, reveal, watch, render
//!   media ...) is available there, and why not; no face decides it from
//!   the path's form.
//! - **Confinement is the registry's.** [`Registry::confined`] is the form
//!   `canopy-mcp` reads through: where a path leads, looking only inside
//!   the roots, on the local disk or on a server, and on through the
//!   archives on the way ([`Confined`]).
//!
//! A new kind of place is a source of its own (implementing
//! `canopy_core::Source`), one more arm of the place's source, and one
//! line in [`standard`] (see `docs/ARCHITECTURE.md`).
#![forbid(unsafe_code)]

mod confined;

use std::path::{Path, PathBuf};

use canopy_core::wire::{Capabilities, Listing, RootSpec, ServerState};
use canopy_core::{CanopyError, Either, ErrorCode, LocalFs, Source, WithArchives};
use canopy_sftp::{ServerFs, Servers, SshOptions};

pub use confined::{Confined, Facts, Opened, Reached};

/// The source every place is read through: the place's own (the local
/// disk, or a server's folders in window paths) inside the archive layer.
pub type PlaceSource = WithArchives<Either<LocalFs, ServerFs>>;

/// How a face reaches its places: the local disk as `local` reads it (a
/// confined one for agents; with the test seams in the `e2e` build), and
/// servers with `ssh` run as `ssh` says.
#[derive(Debug, Clone, Default)]
pub struct Reach {
    pub local: LocalFs,
    pub ssh: SshOptions,
}

/// The places every face reads (see the module docs).
pub struct Registry {
    local: LocalFs,
    servers: Servers,
    /// Holds the archive indexes every place's source shares.
    kept: PlaceSource,
}

/// The registry of every kind of place: the local disk (whatever no other
/// kind claims) and servers over SFTP (`sftp://` and `ssh://` URLs, and
/// the window paths their handles stand for), each read with the archives
/// in it. Every face builds its registry here.
pub fn standard(reach: Reach) -> Registry {
    Registry {
        kept: WithArchives::new(Either::Left(reach.local.clone())),
        local: reach.local,
        servers: Servers::new(reach.ssh),
    }
}

/// What can be done at a place besides reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capability {
    /// Open with the desktop's default application.
    OpenWithDesktop,
    /// Show in the desktop's file manager.
    Reveal,
    /// Live refresh: the folder is watched for changes.
    Watch,
    /// PDF pages, video posters, audio, fonts and photos through the
    /// sandboxed renderer, playing, thumbnails.
    RenderMedia,
    /// Opening an archive like a folder.
    ReadArchives,
    /// An entry's facts (kind, size, times).
    FileFacts,
    /// Copying the path.
    CopyPath,
}

/// Why an action only this machine's files allow is not offered on a server.
const NOT_ON_SERVER: &str = "not available for a file on a server";

impl Capability {
    /// The action, as a sentence's subject.
    fn what(self) -> &'static str {
        match self {
            Capability::OpenWithDesktop => "Open… (with the default application)",
            Capability::Reveal => "Reveal in the file manager",
            Capability::Watch => "Live refresh",
            Capability::RenderMedia => "This preview",
            Capability::ReadArchives => "Opening an archive",
            Capability::FileFacts => "Its facts",
            Capability::CopyPath => "Copy path",
        }
    }

    /// Whether a server's place allows it: what needs the file on this
    /// machine (the desktop's applications, its file manager, inotify, the
    /// sandboxed renderer's descriptor) does not.
    fn on_a_server(self) -> bool {
        matches!(
            self,
            Capability::ReadArchives | Capability::FileFacts | Capability::CopyPath
        )
    }
}

/// A path in a place: the source it is read through and the path in it.
#[derive(Clone, Debug)]
pub struct Location {
    /// The place's source, inside the archive layer.
    pub source: PlaceSource,
    /// The path in the source (a window path for a server's in the window).
    pub path: PathBuf,
    /// The server the place is on, if any.
    server: Option<ServerFs>,
}

impl Location {
    /// The path as a person reads it (a URL for a server's).
    pub fn shown(&self) -> String {
        self.source.shown_path(&self.path)
    }

    /// Makes the place ready for a request: connects a server whose
    /// connection is not up, so the handshake has its own time, not the
    /// request's. At once for the local disk.
    ///
    /// # Errors
    /// The server's (`HOST_KEY_UNKNOWN`, `AUTH_FAILED`, `TIMEOUT` ...).
    pub fn ready(&self) -> Result<(), CanopyError> {
        self.server.as_ref().map_or(Ok(()), ServerFs::ready)
    }

    /// Where the connection to the place stands, for a place reached over
    /// one (never connects, never waits); `None` for the local disk.
    pub fn connection(&self) -> Option<ServerState> {
        self.server.as_ref().map(ServerFs::state)
    }

    /// Whether `capability` is available here, and why not (words to
    /// show after the action's name).
    pub fn allows(&self, capability: Capability) -> Result<(), &'static str> {
        match &self.server {
            Some(_) if !capability.on_a_server() => Err(NOT_ON_SERVER),
            _ => Ok(()),
        }
    }

    /// `UNSUPPORTED`, saying why, unless `capability` is available here:
    /// the one check every face makes before an action.
    ///
    /// # Errors
    /// `UNSUPPORTED` with the reason [`Location::allows`] gives.
    pub fn require(&self, capability: Capability) -> Result<(), CanopyError> {
        self.allows(capability).map_err(|why| {
            CanopyError::new(
                ErrorCode::Unsupported,
                format!("{} is {why}", capability.what()),
            )
        })
    }

    /// What can be done here, as the wire says it.
    pub fn capabilities(&self) -> Capabilities {
        let why = |c: Capability| self.allows(c).err().map(str::to_string);
        Capabilities {
            open_with_desktop: why(Capability::OpenWithDesktop),
            reveal: why(Capability::Reveal),
            watch: why(Capability::Watch),
            render_media: why(Capability::RenderMedia),
            read_archives: why(Capability::ReadArchives),
            file_facts: why(Capability::FileFacts),
            copy_path: why(Capability::CopyPath),
        }
    }

    /// Says on `listing` (of this place) what can be done there and which
    /// server it is on.
    pub fn stamp(&self, listing: &mut Listing) {
        listing.capabilities = self.capabilities();
        listing.server = self.server.as_ref().map(ServerFs::label);
    }

    /// What "Copy path" copies of a place that is not the local disk (a
    /// server's `sftp://` URL, every byte that is not plain
    /// percent-encoded); `None` for a local path, copied as it is.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a malformed server part.
    pub fn copied_text(&self) -> Option<Result<String, CanopyError>> {
        self.server.as_ref()?;
        canopy_sftp::places::url_of_window_path(&self.path)
    }
}

impl Registry {
    fn source_of(&self, server: Option<&ServerFs>) -> PlaceSource {
        let inner = match server {
            Some(s) => Either::Right(s.clone()),
            None => Either::Left(self.local.clone()),
        };
        WithArchives::sharing(inner, &self.kept)
    }

    /// The place of `path`, a path the engine issued (a handle's): a
    /// server's window path, or the local disk's. Nothing connects here.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a malformed server part.
    pub fn place_of(&self, path: &Path) -> Result<Location, CanopyError> {
        let server = self.servers.for_path(path).transpose()?;
        Ok(Location {
            source: self.source_of(server.as_ref()),
            path: path.to_path_buf(),
            server,
        })
    }

    /// The place a request's root (a URL or path typed, or a handle) is
    /// read from, its path not yet resolved: the engine's `list_request`
    /// and `sizes_request` resolve it. Nothing connects here.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a malformed URL or handle.
    pub fn place_for(&self, spec: &RootSpec) -> Result<Location, CanopyError> {
        let server = self.servers.for_root(spec).transpose()?;
        Ok(Location {
            source: self.source_of(server.as_ref()),
            path: PathBuf::new(),
            server,
        })
    }

    /// Where `spec` (a request's root: typed text or a handle) leads,
    /// resolved (`~`, `..`, a server's home folder), the place made ready
    /// for a request (a server connected).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for an empty path, a malformed URL or handle;
    /// what the place says when it cannot be reached (`HOST_KEY_UNKNOWN`,
    /// `AUTH_FAILED`, `NOT_FOUND` for a `..` that leads nowhere ...).
    pub fn locate(&self, spec: &RootSpec) -> Result<Location, CanopyError> {
        let mut place = self.place_for(spec)?;
        place.ready()?;
        place.path = place.source.resolve(spec)?;
        Ok(place)
    }

    /// The confined form `canopy-mcp` reads through (see [`Confined`]): on
    /// the server `server` (in its own paths) when given, on the local disk
    /// otherwise; `roots` are the real folders (of that place) whose
    /// repositories' ignore rules may be read.
    pub fn confined(&self, server: Option<&canopy_sftp::Target>, roots: &[PathBuf]) -> Confined {
        Confined::new(self, server, roots)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_servers_path_refuses_what_only_a_local_place_can_do() {
        let registry = standard(Reach::default());
        let url = RootSpec::Text("sftp://ann@[::1]:2222/x".into());
        let remote = registry.place_for(&url).unwrap();
        for capability in [
            Capability::OpenWithDesktop,
            Capability::Reveal,
            Capability::Watch,
            Capability::RenderMedia,
        ] {
            let e = remote.require(capability).unwrap_err();
            assert_eq!(e.code, ErrorCode::Unsupported, "{capability:?}");
            let local = registry.place_of(Path::new("/x")).unwrap();
            assert!(local.require(capability).is_ok(), "{capability:?}");
        }
        // On the wire: each refused one with its reason, the rest null.
        let said = remote.capabilities();
        assert_eq!(said.reveal.as_deref(), Some(NOT_ON_SERVER));
        assert_eq!(said.watch.as_deref(), Some(NOT_ON_SERVER));
        assert_eq!(said.read_archives, None, "archives open on a server");
        assert_eq!(said.copy_path, None, "a server's path copies as its URL");
        let here = registry.place_of(Path::new("/x")).unwrap();
        assert_eq!(
            here.capabilities(),
            Capabilities::default(),
            "all available here"
        );
    }

    #[test]
    fn a_servers_place_is_paced_behind_the_archive_layer() {
        let registry = standard(Reach::default());
        let url = RootSpec::Text("sftp://ann@[::1]:2222/x".into());
        assert!(registry.place_for(&url).unwrap().source.paced());
        let local = RootSpec::Text("/x".into());
        assert!(!registry.place_for(&local).unwrap().source.paced());
    }
}
