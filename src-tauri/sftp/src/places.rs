//! Servers' folders in the window: one path space for local and remote
//! folders, so that one engine (and one set of window commands) serves both.
//!
//! A server's folder is known to the window by its *window path*:
//! `sftp:` / `user@host:port` / the path on the server, e.g.
//! `sftp:/ann@files.example:2222/srv/data`. It is a relative path (a local
//! path the window lists is always absolute, so the two never meet), it is
//! already in the form `Path::components` gives (the engine joins names to
//! it and splits it freely), and a server's name can never forge one: a
//! name holding `/` is refused. Handles are made from window paths as from
//! any path, so every handle says which server it is on.
//!
//! [`Servers`] keeps one [`SftpFs`] per server, made when a path on it is
//! first asked for; [`ServerFs`] is a server's [`Source`] in window paths.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::ffi::OsStr;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use canopy_core::names::decode_handle;
use canopy_core::source::{IgnoreRules, Meter};
use canopy_core::wire::{ConnectionPhase, RootSpec, ServerState, Startup};
use canopy_core::{CanopyError, Source};

use crate::conn::{label, ConnectionState};
use crate::source::{SftpFile, SftpFolder, SftpFs};
use crate::ssh::SshOptions;
use crate::url::{self, Target};

/// The first component of every window path of a server's folder.
const SCHEME: &str = "sftp:";

/// `user@host:port` as a URL writes it (the user percent-encoded, an IPv6
/// address in brackets): the second component of a window path.
fn authority(target: &Target) -> String {
    url::url_of(target, Path::new(""))["sftp://".len()..].to_string()
}

/// A server's path as the path bar shows it: as it is, but for `%` and any
/// byte that is not UTF-8, which are `%`-escaped, so the URL typed back
/// (Ctrl+L, Enter) opens the same folder (`a%41` is not `aA`).
fn shown_remote_path(bytes: &[u8]) -> String {
    escaped(bytes, true)
}

/// `bytes` as text, each byte that is not UTF-8 written `%XX` (and each
/// `%` too with `percent`): [`url::parse`] reads the same bytes back.
fn escaped(bytes: &[u8], percent: bool) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        if percent {
            out.push_str(&chunk.valid().replace('%', "%25"));
        } else {
            out.push_str(chunk.valid());
        }
        for b in chunk.invalid() {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The window path of `remote` (an absolute path on the server) on `target`.
pub fn window_path(target: &Target, remote: &Path) -> PathBuf {
    let mut out = PathBuf::from(SCHEME);
    out.push(authority(target));
    out.push(remote.strip_prefix("/").unwrap_or(remote));
    out
}

/// Whether `path` is a window path of a server's folder.
pub fn is_window_remote(path: &Path) -> bool {
    path.components().next() == Some(Component::Normal(OsStr::new(SCHEME)))
}

/// The server and the path on it of a window path; `None` for a local path.
///
/// # Errors
/// `INVALID_ARGUMENT` when the server part is missing or malformed.
pub fn place_of(path: &Path) -> Option<Result<(Target, PathBuf), CanopyError>> {
    if !is_window_remote(path) {
        return None;
    }
    let mut parts = path.components();
    parts.next();
    let Some(Component::Normal(server)) = parts.next() else {
        return Some(Err(CanopyError::invalid("the path names no server")));
    };
    let text = [b"sftp://", server.as_bytes()].concat();
    Some(url::parse(&text).map(|u| (u.target, Path::new("/").join(parts.as_path()))))
}

/// The `sftp://` URL of a window path (every byte that is not plain
/// percent-encoded, so it round-trips); `None` for a local path.
///
/// # Errors
/// As [`place_of`].
pub fn url_of_window_path(path: &Path) -> Option<Result<String, CanopyError>> {
    place_of(path).map(|placed| placed.map(|(target, remote)| url::url_of(&target, &remote)))
}

/// What `canopy sftp://…` (or `ssh://…`) opens: the URL as typed (a byte
/// that is not UTF-8 escaped, so the same folder opens); `None` for any
/// other argument.
pub fn startup_of(arg: &OsStr) -> Option<Startup> {
    url::is_remote(arg.as_bytes()).then(|| Startup {
        folder: RootSpec::Text(escaped(arg.as_bytes(), false)),
        select: None,
    })
}

/// The servers the window has asked about, each with its one connection.
pub struct Servers {
    options: SshOptions,
    hosts: Mutex<HashMap<Target, SftpFs>>,
}

impl Servers {
    /// No server yet; each is reached with `ssh` run as `options` say.
    pub fn new(options: SshOptions) -> Servers {
        Servers {
            options,
            hosts: Mutex::default(),
        }
    }

    /// The server `target` (made on first use; nothing connects here).
    pub fn server(&self, target: &Target) -> SftpFs {
        let mut hosts = self.hosts.lock().unwrap_or_else(|e| e.into_inner());
        hosts
            .entry(target.clone())
            .or_insert_with(|| SftpFs::new(target.clone(), self.options.clone()))
            .clone()
    }

    /// The source a window path is read from: its server's, or `None` for
    /// a local path. Nothing connects here.
    ///
    /// # Errors
    /// As [`place_of`].
    pub fn for_path(&self, path: &Path) -> Option<Result<ServerFs, CanopyError>> {
        place_of(path).map(|placed| placed.map(|(target, _)| self.at(&target)))
    }

    /// The source a request's root is read from: a server's for an
    /// `sftp://` or `ssh://` URL typed, or a handle of a window path on a
    /// server; `None` for a local one.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a malformed URL or handle.
    pub fn for_root(&self, spec: &RootSpec) -> Option<Result<ServerFs, CanopyError>> {
        match spec {
            RootSpec::Text(text) if url::is_remote(text.as_bytes()) => {
                Some(url::parse(text.as_bytes()).map(|u| self.at(&u.target)))
            }
            RootSpec::Text(_) => None,
            RootSpec::Handle(handle) => match decode_handle(handle) {
                Ok(path) => self.for_path(&path),
                Err(e) => Some(Err(e)),
            },
        }
    }

    fn at(&self, target: &Target) -> ServerFs {
        ServerFs {
            fs: self.server(target),
            prefix: window_path(target, Path::new("/")),
        }
    }
}

/// A server's folders as a [`Source`] whose paths are window paths.
#[derive(Clone, Debug)]
pub struct ServerFs {
    fs: SftpFs,
    /// The window path of the server's `/`.
    prefix: PathBuf,
}

impl ServerFs {
    /// The server `fs` in its own paths (`/srv/data`, not a window path):
    /// for a face whose paths say no server because it serves one only
    /// (`canopy-mcp` with `sftp://` roots). Shown as URLs all the same.
    pub fn on_server(fs: SftpFs) -> ServerFs {
        ServerFs {
            fs,
            prefix: PathBuf::from("/"),
        }
    }

    /// The server's own source (its own paths).
    pub fn server(&self) -> &SftpFs {
        &self.fs
    }

    /// The path on the server of a path of this source.
    pub fn remote_path(&self, path: &Path) -> Result<PathBuf, CanopyError> {
        self.remote(path)
            .map_err(|e| CanopyError::from_io(&e, "cannot find it"))
    }

    /// The path of this source of a path on the server.
    pub fn path_of(&self, remote: &Path) -> PathBuf {
        self.window(remote)
    }

    /// The path on the server of a window path on this server.
    fn remote(&self, path: &Path) -> io::Result<PathBuf> {
        path.strip_prefix(&self.prefix)
            .map(|below| Path::new("/").join(below))
            .map_err(|_| CanopyError::invalid("the path is not on this server").into_io())
    }

    fn window(&self, remote: &Path) -> PathBuf {
        self.prefix.join(remote.strip_prefix("/").unwrap_or(remote))
    }

    /// Connects when the connection is not up (so the handshake has its
    /// own time, `SFTP_CONNECT_TIME`, not a folder's); at once otherwise.
    ///
    /// # Errors
    /// As [`SftpFs::connect`].
    pub fn ready(&self) -> Result<(), CanopyError> {
        match self.fs.state() {
            ConnectionState::Connected => Ok(()),
            _ => self.fs.connect(),
        }
    }

    /// The server, as a person reads it (`user@host:port`).
    pub fn label(&self) -> String {
        label(self.fs.target())
    }

    /// Where the connection stands, for the window.
    pub fn state(&self) -> ServerState {
        let (phase, message) = match self.fs.state() {
            ConnectionState::Idle => (ConnectionPhase::Idle, None),
            ConnectionState::Connecting => (ConnectionPhase::Connecting, None),
            ConnectionState::Connected => (ConnectionPhase::Connected, None),
            ConnectionState::Reconnecting => (ConnectionPhase::Reconnecting, None),
            ConnectionState::Lost(why) => (ConnectionPhase::Lost, Some(why)),
        };
        ServerState {
            server: label(self.fs.target()),
            phase,
            message,
            reconnects: self.fs.reconnects(),
        }
    }
}

impl Source for ServerFs {
    type Folder = SftpFolder;
    type File = SftpFile;

    fn open_folder(&self, path: &Path) -> io::Result<SftpFolder> {
        self.fs.open_folder(&self.remote(path)?)
    }

    fn open_file(&self, path: &Path) -> Result<SftpFile, CanopyError> {
        let remote = self
            .remote(path)
            .map_err(|e| CanopyError::from_io(&e, "cannot open file"))?;
        self.fs.open_file(&remote)
    }

    fn paced(&self) -> bool {
        self.fs.paced()
    }

    fn ignore_rules(
        &self,
        path: &Path,
        meter: &mut Meter<'_>,
    ) -> (IgnoreRules, Option<CanopyError>) {
        match self.remote(path) {
            Ok(remote) => self.fs.ignore_rules(&remote, meter),
            Err(e) => (
                IgnoreRules::none(),
                Some(CanopyError::from_io(&e, "no rules")),
            ),
        }
    }

    fn child_ignore_rules(
        &self,
        parent: &IgnoreRules,
        name: &[u8],
        folder: &SftpFolder,
        path: &Path,
    ) -> (IgnoreRules, Option<CanopyError>) {
        match self.remote(path) {
            Ok(remote) => self.fs.child_ignore_rules(parent, name, folder, &remote),
            Err(e) => (
                IgnoreRules::none(),
                Some(CanopyError::from_io(&e, "no rules")),
            ),
        }
    }

    /// A URL typed (`sftp://host/~/x`, resolved on the server) or a handle
    /// of a window path on this server; connects first. A path with `..`
    /// is resolved by the server (`realpath`).
    fn resolve(&self, spec: &RootSpec) -> Result<PathBuf, CanopyError> {
        let remote = match spec {
            RootSpec::Text(text) => {
                let url = url::parse(text.as_bytes())?;
                if &url.target != self.fs.target() {
                    return Err(CanopyError::invalid("the URL is not on this server"));
                }
                self.ready()?;
                self.fs.resolve(&url.path)?
            }
            RootSpec::Handle(handle) => {
                let path = decode_handle(handle)?;
                let remote = self
                    .remote(&path)
                    .map_err(|e| CanopyError::from_io(&e, "cannot open folder"))?;
                self.ready()?;
                remote
            }
        };
        let remote = if remote.components().any(|c| c == Component::ParentDir) {
            self.fs.real_path(&remote)?.0
        } else {
            remote
        };
        Ok(self.window(&remote))
    }

    /// `sftp://user@host:port/path`, readable, and read back by
    /// [`url::parse`] as the same folder (see [`shown_remote_path`]).
    fn shown_path(&self, path: &Path) -> String {
        let remote = self.remote(path).unwrap_or_else(|_| path.to_path_buf());
        format!(
            "sftp://{}{}",
            authority(self.fs.target()),
            shown_remote_path(remote.as_os_str().as_bytes())
        )
    }

    /// From the server (its `/`) down: not `sftp:` above it.
    fn is_crumb(&self, ancestor: &Path) -> bool {
        ancestor.starts_with(&self.prefix)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_shown_path_typed_back_is_the_same_folder() {
        for raw in [
            &b"/srv/a%41"[..],
            b"/srv/50%off",
            b"/srv/bad\xff\xfename",
            b"/srv/with space/\xc3\xa9t\xc3\xa9",
            b"/srv/%",
        ] {
            let shown = format!("sftp://host{}", super::shown_remote_path(raw));
            let back = crate::url::parse(shown.as_bytes()).expect(&shown);
            assert_eq!(
                back.path,
                crate::url::RemotePath::Absolute(std::path::PathBuf::from(
                    <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(raw)
                )),
                "{shown}"
            );
        }
        assert_eq!(
            super::shown_remote_path("/srv/été x".as_bytes()),
            "/srv/été x"
        );
        // A launch argument that is not UTF-8 opens the folder it names.
        let arg = <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(
            b"sftp://host/srv/bad\xff",
        );
        let Some(canopy_core::wire::Startup {
            folder: canopy_core::wire::RootSpec::Text(text),
            ..
        }) = super::startup_of(arg)
        else {
            panic!("a URL opens as text")
        };
        assert_eq!(
            crate::url::parse(text.as_bytes()).unwrap().path,
            crate::url::RemotePath::Absolute(std::path::PathBuf::from(
                <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(b"/srv/bad\xff")
            ))
        );
    }

    use super::*;

    fn target() -> Target {
        url::parse(b"sftp://ann@[::1]:2222/").unwrap().target
    }

    #[test]
    fn window_paths_round_trip_and_never_look_local() {
        for raw in [&b"/"[..], b"/srv/data", b"/a/\xff name", b"/%41/x y"] {
            let remote = Path::new(OsStr::from_bytes(raw));
            let path = window_path(&target(), remote);
            assert!(path.is_relative(), "a local path is absolute: {path:?}");
            assert_eq!(
                path.components().collect::<PathBuf>(),
                path,
                "already in the form the engine splits it into"
            );
            let (t, back) = place_of(&path).unwrap().unwrap();
            assert_eq!((t, back.as_path()), (target(), remote));
        }
        assert!(
            place_of(Path::new("/sftp:/ann@host/x")).is_none(),
            "absolute: local"
        );
        assert!(place_of(Path::new("sftp:")).unwrap().is_err());
        assert!(place_of(Path::new("sftp:/-oProxyCommand=x/y"))
            .unwrap()
            .is_err());
    }

    #[test]
    fn the_url_of_a_window_path_is_encoded_and_parses_back() {
        let path = window_path(&target(), Path::new(OsStr::from_bytes(b"/a b/\xff")));
        let text = url_of_window_path(&path).unwrap().unwrap();
        assert_eq!(text, "sftp://ann@[::1]:2222/a%20b/%FF");
        let back = url::parse(text.as_bytes()).unwrap();
        assert_eq!(back.target, target());
    }

    #[test]
    fn one_source_per_server_and_none_for_local_paths() {
        let servers = Servers::new(SshOptions::default());
        let a = servers.for_path(&window_path(&target(), Path::new("/x")));
        let b = servers.for_root(&RootSpec::Text("sftp://ann@[::1]:2222/y".into()));
        assert_eq!(servers.hosts.lock().unwrap().len(), 1, "one per server");
        assert!(a.unwrap().is_ok() && b.unwrap().is_ok());
        assert!(servers.for_path(Path::new("/home/ann")).is_none());
        assert!(servers.for_root(&RootSpec::Text("~/x".into())).is_none());
        assert!(servers
            .for_root(&RootSpec::Text("sftp://-x/".into()))
            .unwrap()
            .is_err());
    }

    #[test]
    fn a_server_is_paced_even_behind_the_archives_layer() {
        let servers = Servers::new(SshOptions::default());
        let fs = servers.server(&target());
        assert!(
            canopy_core::WithArchives::new(fs).paced(),
            "canopy-list lists a server through WithArchives: its batches need their own deadlines"
        );
        let server = servers.for_path(&window_path(&target(), Path::new("/")));
        assert!(server.unwrap().unwrap().paced());
    }
}
