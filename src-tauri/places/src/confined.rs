//! The registry's confined form, which `canopy-mcp` reads through: where
//! an agent's path leads, looking only inside the roots, on the local disk
//! or on a server, and on through the archives on the way.
//!
//! Promises:
//! - an agent's path is resolved once, looking only inside the roots, on a
//!   bounded worker (the local disk: [`canopy_core::resolve_within`], which
//!   follows links by their text inside the roots; a server: its
//!   `realpath`, whose answer must lie inside them): a dead mount costs
//!   `TIMEOUT`, never a hung server;
//! - a path that runs through a regular file (`dl/site.zip/assets`) goes on
//!   inside it as an archive, on every place: its longest prefix that
//!   resolves is resolved as any path is (a regular file inside the roots,
//!   reached without leaving them), and the rest must be plain names (no
//!   `..`, `.` or empty name), which only the archive's index is asked about;
//! - what is listed or read is reopened by its real path through the
//!   place's source, which on the local disk follows no link on the way (a
//!   link swapped in after the check fails the open instead of leading
//!   elsewhere), inside the archive layer every place has;
//! - the facts of an entry ([`Confined::facts`]) come from where it lives:
//!   the local disk's `lstat` for a file on disk, the place's own for one on
//!   a server or inside an archive.
#![forbid(unsafe_code)]

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use canopy_core::limits::{RESOLVE_SHARE_PERCENT, TIME_BUDGET};
use canopy_core::source::{Source, SourceFolder};
use canopy_core::wire::{EntryKind, Listing};
use canopy_core::{CanopyError, Either, ErrorCode, Leads, WithArchives};
use canopy_sftp::{ServerFs, Target};

use crate::{PlaceSource, Registry};

/// The registry's confined form (see the module docs). Clones share the
/// source's kept archive indexes.
#[derive(Clone, Debug)]
pub struct Confined {
    source: PlaceSource,
    /// The server the roots are on, in its own paths; `None`: the local disk.
    server: Option<ServerFs>,
}

/// What an entry is, as far as its place tells: its kind, size and time
/// always; on the local disk (not inside an archive) its whole `lstat`.
#[derive(Debug)]
pub struct Facts {
    pub kind: EntryKind,
    pub size: u64,
    pub modified_ms: Option<i64>,
    /// The local disk's `lstat` (owner, permissions, every time).
    pub disk: Option<std::fs::Metadata>,
}

/// The most names a path may go on with inside an archive: the engine
/// looks no further up a path for the archive it runs through, so a deeper
/// path could not be opened, and each name costs the resolution a lookup.
const ARCHIVE_NAMES_MAX: usize = 64;

/// What an agent's path reached inside the roots.
#[derive(Debug, Clone)]
pub struct Opened {
    /// The real path of what was reached on disk (no symlink, no `..`):
    /// the folder or file itself, or the archive file the path runs through.
    pub real: PathBuf,
    /// What `real` is.
    pub kind: EntryKind,
    pub dev: u64,
    pub ino: u64,
    /// For a path that runs through the regular file `real`: its plain
    /// names inside that archive (none for the archive's top).
    pub inside: Option<PathBuf>,
}

impl Opened {
    /// The path the source lists or reads: `real`, continued inside the archive.
    pub fn path(&self) -> PathBuf {
        match &self.inside {
            Some(names) if !names.as_os_str().is_empty() => self.real.join(names),
            _ => self.real.clone(),
        }
    }

    /// The same place, taken as the top of the archive `real` (a regular
    /// file listed as a folder).
    pub fn as_archive(self) -> Opened {
        Opened {
            inside: Some(self.inside.unwrap_or_default()),
            ..self
        }
    }

    /// The device and number a cursor is bound to: the folder's own on
    /// disk; inside an archive, the archive file's device, and its number
    /// mixed with the names inside it (the top bit set, as the engine marks
    /// an archive's folders), so a cursor continues only the folder of the
    /// archive file it was issued for. On a server, the server's lasting
    /// device (a reconnect makes a new device number, and a cursor outlives
    /// the connection it was issued on).
    pub fn binding(&self) -> (u64, u64) {
        let dev = canopy_sftp::lasting_device(self.dev);
        let Some(names) = &self.inside else {
            return (dev, self.ino);
        };
        // FNV-1a: stable within the server's run, which is all a cursor outlives.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in self
            .ino
            .to_le_bytes()
            .iter()
            .chain(names.as_os_str().as_bytes())
        {
            h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
        (dev, h | 1 << 63)
    }
}

/// Where an agent's path leads (see [`Leads`]).
#[derive(Debug)]
pub enum Reached {
    Inside(Opened),
    Outside,
    Fails(CanopyError),
}

impl Registry {
    /// The server `target`'s own source (one connection per server, shared
    /// with every place of the registry on it); nothing connects here.
    pub fn server(&self, target: &Target) -> canopy_sftp::SftpFs {
        self.servers.server(target)
    }
}

impl Confined {
    /// The confined form of `registry`: on the server `server` (in its own
    /// paths) when given, on the local disk otherwise, following no link
    /// and reading git's ignore rules only from repositories inside `roots`.
    pub(crate) fn new(registry: &Registry, server: Option<&Target>, roots: &[PathBuf]) -> Confined {
        let server = server.map(|t| ServerFs::on_server(registry.servers.server(t)));
        let inner = match &server {
            Some(s) => Either::Right(s.clone()),
            None => Either::Left(
                registry
                    .local
                    .clone()
                    .confine()
                    .with_ignore_rules_within(roots.to_vec()),
            ),
        };
        Confined {
            source: WithArchives::new(inner),
            server,
        }
    }

    /// The source every call lists and reads through.
    pub fn source(&self) -> &PlaceSource {
        &self.source
    }

    /// The server the roots are on, when they are remote (`sftp://user@host:port`).
    pub fn server_label(&self) -> Option<String> {
        self.server.as_ref().map(|s| {
            canopy_sftp::url_of(s.server().target(), Path::new("/"))
                .trim_end_matches('/')
                .to_string()
        })
    }

    /// Where `path` (absolute, on the server) leads: the server's `realpath`
    /// resolves its links and `..`, and the real path must lie inside
    /// `roots`. Unlike on the local disk the server is asked about the whole
    /// path once, so whether a place outside the roots exists may be told by
    /// the error (`NOT_FOUND`); what it is, or what it holds, is never read.
    fn resolve(&self, path: &Path, roots: &[PathBuf]) -> Result<Leads, CanopyError> {
        let Some(server) = &self.server else {
            return canopy_core::resolve_within(path, roots);
        };
        Ok(match server.server().real_path(path) {
            Ok((real, _, _)) if !roots.iter().any(|r| canopy_core::within(&real, r)) => {
                Leads::Outside
            }
            Ok((real, meta, id)) => Leads::Inside(real, meta.kind, id),
            Err(e) => Leads::Fails(e),
        })
    }

    /// Whether a path that failed so may run through a file: `NOT_A_DIRECTORY`;
    /// on a server `NOT_FOUND` too (SFTP has no status for `ENOTDIR`).
    fn through_a_file(&self, e: &CanopyError) -> bool {
        e.code == ErrorCode::NotADirectory
            || (self.server.is_some() && e.code == ErrorCode::NotFound)
    }

    /// The real path of the folder `path` (a root), on the place.
    ///
    /// # Errors
    /// The place's code; `NOT_A_DIRECTORY` for anything but a folder.
    pub fn real_folder(&self, path: &Path) -> Result<PathBuf, CanopyError> {
        let (real, kind) = match &self.server {
            Some(server) => {
                let (real, meta, _) = server.server().real_path(path)?;
                (real, meta.kind)
            }
            None => canopy_core::real_path(path)?,
        };
        if kind != EntryKind::Folder {
            return Err(CanopyError::new(ErrorCode::NotADirectory, "not a folder"));
        }
        Ok(real)
    }

    /// Where `path` (absolute) leads, looking only inside `roots`; what it
    /// reaches there is [`Opened`]. A path that runs through a regular file
    /// inside the roots goes on inside it, as an archive (see the module docs).
    ///
    /// # Errors
    /// `TIMEOUT` when a path inside the roots does not answer.
    pub fn leads(&self, path: &Path, roots: &[PathBuf]) -> Result<Reached, CanopyError> {
        Ok(match self.resolve(path, roots)? {
            Leads::Inside(real, kind, id) => Reached::Inside(Opened {
                real,
                kind,
                dev: id.dev,
                ino: id.ino,
                inside: None,
            }),
            Leads::Outside => Reached::Outside,
            // A regular file on the way: the rest of the path may lie inside it.
            Leads::Fails(e) if self.through_a_file(&e) => self.through_file(path, roots, e)?,
            Leads::Fails(e) => Reached::Fails(e),
        })
    }

    /// Where `path`, which met something other than a folder on its way
    /// (`failed`), leads when its longest prefix that resolves is a regular
    /// file: into that file as an archive, the rest of the path its names
    /// inside. The prefix is resolved as any path is, so what it reaches is
    /// inside the roots, reached without leaving them; anything else answers
    /// as the prefix did, or as the whole path did (`failed`).
    fn through_file(
        &self,
        path: &Path,
        roots: &[PathBuf],
        failed: CanopyError,
    ) -> Result<Reached, CanopyError> {
        let bytes = path.as_os_str().as_bytes();
        // The prefixes, longest first: each ends before a `/` and in a name (a
        // prefix ending in `/` or `/.` resolves as the one before it would, and
        // would hide an empty or `.` name from the names inside). One more
        // than the names allowed, for a trailing slash.
        let ends_in_a_name = |cut: usize| {
            let head = &bytes[..cut];
            !head.ends_with(b"/") && !head.ends_with(b"/.")
        };
        let cuts = bytes
            .iter()
            .enumerate()
            .rev()
            .filter(|&(i, &b)| b == b'/' && i > 0)
            .map(|(i, _)| i)
            .take(ARCHIVE_NAMES_MAX + 1)
            .filter(|&cut| ends_in_a_name(cut));
        for cut in cuts {
            let prefix = Path::new(std::ffi::OsStr::from_bytes(&bytes[..cut]));
            match self.resolve(prefix, roots)? {
                Leads::Inside(real, EntryKind::File, id) => {
                    return Ok(match names_inside(&bytes[cut + 1..]) {
                        Ok(names) => Reached::Inside(Opened {
                            real,
                            kind: EntryKind::File,
                            dev: id.dev,
                            ino: id.ino,
                            inside: Some(names),
                        }),
                        Err(e) => Reached::Fails(e),
                    });
                }
                Leads::Inside(..) => break,
                Leads::Outside => return Ok(Reached::Outside),
                Leads::Fails(e) if self.through_a_file(&e) => {}
                Leads::Fails(e) => return Ok(Reached::Fails(e)),
            }
        }
        Ok(Reached::Fails(failed))
    }

    /// The real path of the link `name` in the folder `reached`, when it is
    /// one: looked at through the confined source from the folder's real
    /// path (no link followed on the way, the name itself not followed), on
    /// a bounded worker. `None` for anything else, or when it cannot be told.
    pub fn link_in(&self, reached: Reached, name: &std::ffi::OsStr) -> Option<PathBuf> {
        let Reached::Inside(folder) = reached else {
            return None;
        };
        if folder.kind != EntryKind::Folder || folder.inside.is_some() {
            return None;
        }
        let (source, real, name) = (self.source.clone(), folder.real, name.to_os_string());
        let place = canopy_core::bounded::Place::path(&real);
        canopy_core::bounded::call(place, TIME_BUDGET, move |_| {
            let dir = source.open_folder(&real).ok()?;
            let meta = dir.stat_child(name.as_bytes(), false).ok()?;
            (meta.kind == EntryKind::Symlink).then(|| real.join(&name))
        })
        .ok()
        .flatten()
    }

    /// What the links in `listing` (of the folder `real`) point to, as far
    /// as `roots` let one look (see [`canopy_core::confine_links`]).
    pub fn confine_links(&self, listing: &mut Listing, real: &Path, roots: &[PathBuf]) {
        if self.server.is_none() {
            return canopy_core::confine_links(listing, real, roots);
        }
        let deadline = std::time::Instant::now() + TIME_BUDGET * RESOLVE_SHARE_PERCENT / 100;
        canopy_core::confine_links_with(listing, real, deadline, |p| {
            self.resolve(p, roots).unwrap_or_else(Leads::Fails)
        });
    }

    /// The facts of what `opened` names (see [`Facts`]), on a bounded
    /// worker: a dead mount or a server that does not answer costs `TIMEOUT`.
    ///
    /// # Errors
    /// The place's code (`NOT_FOUND`, `TIMEOUT` ...).
    pub fn facts(&self, opened: &Opened) -> Result<Facts, CanopyError> {
        if self.server.is_none() && opened.inside.is_none() {
            let disk = canopy_core::entry_meta(&opened.real)?;
            return Ok(Facts {
                kind: opened.kind,
                size: disk.len(),
                modified_ms: disk
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .and_then(|d| i64::try_from(d.as_millis()).ok()),
                disk: Some(disk),
            });
        }
        let (source, path) = (self.source.clone(), opened.path());
        let place = canopy_core::bounded::Place::path(&path);
        let meta = canopy_core::bounded::call(place, TIME_BUDGET, move |_| {
            let examining = |e: std::io::Error| CanopyError::from_io(&e, "cannot examine it");
            match (path.parent(), path.file_name()) {
                (Some(parent), Some(name)) => source
                    .open_folder(parent)
                    .and_then(|dir| dir.stat_child(name.as_bytes(), false))
                    .map_err(examining),
                _ => source
                    .open_folder(&path)
                    .and_then(|dir| dir.identity())
                    .map(|(_, meta)| meta)
                    .map_err(examining),
            }
        })??;
        Ok(Facts {
            kind: meta.kind,
            size: meta.size,
            modified_ms: meta.modified_ms,
            disk: None,
        })
    }
}

/// The names `rest` goes on with inside an archive, checked: plain names
/// only (one trailing `/` names the same folder).
///
/// # Errors
/// `INVALID_ARGUMENT` for a `..`, `.` or empty name.
fn names_inside(rest: &[u8]) -> Result<PathBuf, CanopyError> {
    let rest = rest.strip_suffix(b"/").unwrap_or(rest);
    if rest.is_empty() {
        return Ok(PathBuf::new());
    }
    if rest
        .split(|&b| b == b'/')
        .any(|name| name.is_empty() || name == b"." || name == b"..")
    {
        return Err(CanopyError::invalid(
            "inside an archive a path holds plain names only: `..`, `.` and empty names (`//`) are refused",
        ));
    }
    Ok(PathBuf::from(OsString::from_vec(rest.to_vec())))
}
