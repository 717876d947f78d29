//! [`SftpFs`]: a server's folders as an engine [`Source`]. A folder is its
//! path on one connection; its entries come with their `lstat` facts from
//! `readdir` (the engine never asks for them again), one reply a batch.
#![forbid(unsafe_code)]

use std::io;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use canopy_core::limits::{IGNORE_READ_TIME, MAX_IGNORE_FILE_BYTES};
use canopy_core::source::{
    EntryStream, FileStamp, Identity, IgnoreRules, Meta, Meter, RawEntry, RuleText, SourceFile,
    SourceFolder,
};
use canopy_core::wire::EntryKind;
use canopy_core::{CanopyError, ErrorCode, Source};
use futures_util::{FutureExt, StreamExt};
use openssh_sftp_client::file::File;
use openssh_sftp_client::fs::ReadDir;
use openssh_sftp_client::metadata::MetaData;

use crate::conn::{Conn, ConnectionState, Host};
use crate::ssh::SshOptions;
use crate::url::{RemotePath, Target};

/// A server's folders, read over SFTP (see the crate docs). Clones share
/// the connection.
#[derive(Clone)]
pub struct SftpFs {
    host: Arc<Host>,
}

impl std::fmt::Debug for SftpFs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SftpFs")
            .field("target", &self.host.target)
            .finish_non_exhaustive()
    }
}

impl SftpFs {
    /// The server `target`, reached with `ssh` run as `options` say. Nothing
    /// connects until [`SftpFs::connect`] or the first request.
    pub fn new(target: Target, options: SshOptions) -> SftpFs {
        SftpFs {
            host: Arc::new(Host::new(target, options)),
        }
    }

    /// Connects now, or reconnects when the connection was lost or a call
    /// on it stalled. A face calls this before a request whose connection
    /// is not [`ConnectionState::Connected`]: the handshake then has its
    /// own time (`SFTP_CONNECT_TIME`), not the root folder's; a request
    /// that finds the connection lost reconnects too, inside its deadline.
    ///
    /// # Errors
    /// `HOST_KEY_UNKNOWN`, `HOST_KEY_CHANGED`, `AUTH_FAILED`, `TIMEOUT`, or
    /// `IO` with what `ssh` said.
    pub fn connect(&self) -> Result<(), CanopyError> {
        // The only connect that may ask the user for a password: it runs
        // outside any folder's time. The rest reconnect in batch mode.
        self.host.for_request(true).map(drop)
    }

    /// The absolute path on the server of `path` (a home-relative one is
    /// resolved with `realpath`; this connects).
    ///
    /// # Errors
    /// As [`SftpFs::connect`]; the server's error for the home folder.
    pub fn resolve(&self, path: &RemotePath) -> Result<PathBuf, CanopyError> {
        match path {
            RemotePath::Absolute(p) => Ok(p.clone()),
            RemotePath::Home(below) => {
                let conn = self.host.for_request(false)?;
                let home = self
                    .host
                    .home(&conn)
                    .map_err(|e| CanopyError::from_io(&e, "cannot find the home folder"))?;
                Ok(if below.as_os_str().is_empty() {
                    home
                } else {
                    home.join(below)
                })
            }
        }
    }

    /// Where `path` leads on the server (`realpath`: the server resolves its
    /// links and `..`), what it is there (`stat`), and its identity on the
    /// current connection (the one [`SourceFolder::identity`] gives it).
    ///
    /// # Errors
    /// As [`SftpFs::connect`]; the server's error (`NOT_FOUND` ...).
    pub fn real_path(&self, path: &Path) -> Result<(PathBuf, Meta, Identity), CanopyError> {
        let conn = self.host.for_request(false)?;
        let fs = &mut conn.sftp.fs();
        let real = conn
            .call(async { fs.canonicalize(path).await })
            .map_err(|e| CanopyError::from_io(&e, "cannot find where it leads"))?;
        let fs = &mut conn.sftp.fs();
        let meta = conn
            .call(async { fs.metadata(&real).await })
            .map_err(|e| CanopyError::from_io(&e, "cannot examine it"))?;
        let id = Identity {
            dev: conn.dev,
            ino: crate::fnv(real.as_os_str().as_bytes()),
        };
        Ok((real, meta_of(&meta), id))
    }

    /// The server.
    pub fn target(&self) -> &Target {
        &self.host.target
    }

    /// Where the connection stands.
    pub fn state(&self) -> ConnectionState {
        self.host.state()
    }

    /// How many times a lost connection was made again.
    pub fn reconnects(&self) -> u64 {
        self.host.reconnects()
    }

    fn conn(&self) -> io::Result<Arc<Conn>> {
        self.host.for_request(false).map_err(CanopyError::into_io)
    }
}

/// What SFTP's attributes say, as the engine's `lstat` facts. SFTP v3 has
/// whole seconds.
fn meta_of(attrs: &MetaData) -> Meta {
    let kind = match attrs.file_type() {
        Some(t) if t.is_dir() => EntryKind::Folder,
        Some(t) if t.is_file() => EntryKind::File,
        Some(t) if t.is_symlink() => EntryKind::Symlink,
        Some(t) if t.is_fifo() => EntryKind::Fifo,
        Some(t) if t.is_socket() => EntryKind::Socket,
        Some(t) if t.is_char_device() => EntryKind::CharDevice,
        Some(t) if t.is_block_device() => EntryKind::BlockDevice,
        _ => EntryKind::Unknown,
    };
    Meta {
        kind,
        size: attrs.len().unwrap_or(0),
        modified_ms: attrs.modified().map(|t| i64::from(t.into_raw()) * 1000),
    }
}

/// `stat`, links followed; when the server says there is no such file,
/// whether a link loop is why (see [`crate::links`]).
fn stat_following(conn: &Conn, path: &Path) -> io::Result<Meta> {
    let fs = &mut conn.sftp.fs();
    match conn.call(async { fs.metadata(path).await }) {
        Ok(m) => Ok(meta_of(&m)),
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => {
            Err(crate::links::why_unresolved(conn, path, e))
        }
        Err(e) => Err(e),
    }
}

fn child_path(folder: &Path, name: &[u8]) -> io::Result<PathBuf> {
    if name.is_empty() || name.contains(&b'/') || name == b"." || name == b".." {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    Ok(folder.join(std::ffi::OsStr::from_bytes(name)))
}

/// A folder on the server: its path on one connection.
pub struct SftpFolder {
    conn: Arc<Conn>,
    path: PathBuf,
    meta: Meta,
}

impl SftpFolder {
    fn id_of(&self, path: &Path) -> Identity {
        Identity {
            dev: self.conn.dev,
            ino: crate::fnv(path.as_os_str().as_bytes()),
        }
    }

    fn lstat(&self, path: &Path) -> io::Result<Meta> {
        let fs = &mut self.conn.sftp.fs();
        self.conn
            .call(async { fs.symlink_metadata(path).await })
            .map(|m| meta_of(&m))
    }

    /// The child folder `name`, never through a link.
    fn child_folder(&self, name: &[u8]) -> io::Result<(PathBuf, Meta)> {
        let path = child_path(&self.path, name)?;
        let meta = self.lstat(&path)?;
        match meta.kind {
            EntryKind::Folder => Ok((path, meta)),
            EntryKind::Symlink => Err(io::Error::from_raw_os_error(libc::ELOOP)),
            _ => Err(io::Error::from_raw_os_error(libc::ENOTDIR)),
        }
    }
}

/// A folder on the server being read, one `readdir` reply a batch.
pub struct SftpEntries<'a> {
    conn: &'a Conn,
    names: Pin<Box<ReadDir>>,
    buffer: Vec<u8>,
}

impl EntryStream for SftpEntries<'_> {
    fn next_batch(&mut self, each: &mut dyn FnMut(RawEntry<'_>)) -> io::Result<bool> {
        let names = &mut self.names;
        self.conn.call(async {
            // Wait for the next reply, then take what it holds without waiting
            // again: the reply after it is already asked for.
            let mut next = names.next().await;
            loop {
                match next {
                    None => return Ok(false),
                    Some(Err(e)) => return Err(e),
                    Some(Ok(entry)) => {
                        let name = entry.filename().as_os_str().as_bytes();
                        if name != b"." && name != b".." {
                            let meta = meta_of(&entry.metadata());
                            each(RawEntry {
                                name,
                                kind: Some(meta.kind),
                                meta: Some(meta),
                            });
                        }
                    }
                }
                match names.next().now_or_never() {
                    Some(item) => next = item,
                    None => return Ok(true),
                }
            }
        })
    }

    fn into_buffer(self) -> Vec<u8> {
        self.buffer
    }
}

impl SourceFolder for SftpFolder {
    type Entries<'a> = SftpEntries<'a>;
    type Found = Identity;

    fn identity(&self) -> io::Result<(Identity, Meta)> {
        Ok((self.id_of(&self.path), self.meta))
    }

    fn entries(&self, buffer: Vec<u8>) -> Result<SftpEntries<'_>, (io::Error, Vec<u8>)> {
        let fs = &mut self.conn.sftp.fs();
        let path = &self.path;
        match self.conn.call(async { fs.open_dir(path).await }) {
            Ok(dir) => Ok(SftpEntries {
                conn: &self.conn,
                names: Box::pin(dir.read_dir()),
                buffer,
            }),
            Err(e) => Err((e, buffer)),
        }
    }

    fn stat_child(&self, name: &[u8], follow: bool) -> io::Result<Meta> {
        let path = child_path(&self.path, name)?;
        if !follow {
            return self.lstat(&path);
        }
        stat_following(&self.conn, &path)
    }

    fn read_link(&self, name: &[u8]) -> io::Result<Vec<u8>> {
        let path = child_path(&self.path, name)?;
        let fs = &mut self.conn.sftp.fs();
        self.conn
            .call(async { fs.read_link(&path).await })
            .map(|t| t.into_os_string().into_vec())
    }

    fn look_up(&self, name: &[u8]) -> io::Result<Identity> {
        let (path, _) = self.child_folder(name)?;
        Ok(self.id_of(&path))
    }

    fn found_identity(found: &Identity) -> io::Result<Identity> {
        Ok(*found)
    }

    fn open_child(&self, name: &[u8]) -> io::Result<SftpFolder> {
        let (path, meta) = self.child_folder(name)?;
        Ok(SftpFolder {
            conn: self.conn.clone(),
            path,
            meta,
        })
    }

    /// Every child is on the same connection: one `lstat` opens it.
    fn open_child_here(&self, name: &[u8]) -> io::Result<Option<SftpFolder>> {
        self.open_child(name).map(Some)
    }

    fn read_head(&self, name: &[u8], len: usize) -> io::Result<Vec<u8>> {
        let path = child_path(&self.path, name)?;
        if self.lstat(&path)?.kind != EntryKind::File {
            return Err(CanopyError::new(ErrorCode::NotAFile, "not a regular file").into_io());
        }
        let file = SftpFile::open(&self.conn, &path)?;
        let mut head = vec![0; len];
        let n = file.read_full_at(&mut head, 0)?;
        head.truncate(n);
        Ok(head)
    }
}

/// A regular file on the server, open for reading only.
pub struct SftpFile {
    conn: Arc<Conn>,
    file: Mutex<File>,
    size: u64,
    stamp: FileStamp,
}

impl SftpFile {
    fn open(conn: &Arc<Conn>, path: &Path) -> io::Result<SftpFile> {
        let sftp = &conn.sftp;
        let (file, attrs) = conn.call(async {
            // The read flag alone: never created, truncated or written.
            let mut file = sftp.options().read(true).open(path).await?;
            let attrs = file.metadata().await?;
            Ok((file, attrs))
        })?;
        let meta = meta_of(&attrs);
        if meta.kind != EntryKind::File && meta.kind != EntryKind::Unknown {
            return Err(CanopyError::new(ErrorCode::NotAFile, "not a regular file").into_io());
        }
        let ns = i128::from(meta.modified_ms.unwrap_or(0)) * 1_000_000;
        Ok(SftpFile {
            conn: conn.clone(),
            file: Mutex::new(file),
            size: meta.size,
            stamp: FileStamp {
                dev: conn.dev,
                ino: crate::fnv(path.as_os_str().as_bytes()),
                size: meta.size,
                changed_ns: ns,
                modified_ns: ns,
            },
        })
    }
}

impl SourceFile for SftpFile {
    fn size(&self) -> u64 {
        self.size
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let want = u32::try_from(buf.len()).unwrap_or(u32::MAX);
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        let file = &mut *file;
        let got = self.conn.call(async {
            tokio::io::AsyncSeek::start_seek(Pin::new(&mut *file), io::SeekFrom::Start(offset))?;
            file.read(want, bytes::BytesMut::new()).await
        })?;
        let Some(data) = got else { return Ok(0) };
        let n = data.len().min(buf.len());
        buf[..n].copy_from_slice(&data[..n]);
        Ok(n)
    }

    fn stamp(&self) -> Option<FileStamp> {
        Some(self.stamp)
    }
}

impl Source for SftpFs {
    type Folder = SftpFolder;
    type File = SftpFile;

    /// Opens the folder at `path` on the server (a link given as the folder
    /// is followed, as a local root's is).
    fn open_folder(&self, path: &Path) -> io::Result<SftpFolder> {
        let conn = self.conn()?;
        let meta = stat_following(&conn, path)?;
        if meta.kind != EntryKind::Folder {
            return Err(io::Error::from_raw_os_error(libc::ENOTDIR));
        }
        Ok(SftpFolder {
            conn: conn.clone(),
            path: path.to_path_buf(),
            meta,
        })
    }

    fn open_file(&self, path: &Path) -> Result<SftpFile, CanopyError> {
        let opening = |e: io::Error| CanopyError::from_io(&e, "cannot open file");
        let conn = self.conn().map_err(opening)?;
        // Only a regular file is opened: a fifo or a device on the server
        // would hold its sftp-server (and every request after) on `open`.
        let meta = stat_following(&conn, path).map_err(opening)?;
        if meta.kind != EntryKind::File {
            let what = if meta.kind == EntryKind::Folder {
                "this is a folder"
            } else {
                "this is not a regular file, so it is not opened"
            };
            return Err(CanopyError::new(ErrorCode::NotAFile, what));
        }
        SftpFile::open(&conn, path).map_err(opening)
    }

    /// A server's folders arrive at the link's pace: each batch has its own
    /// deadline, and a large folder is read for the request's time.
    fn paced(&self) -> bool {
        true
    }

    /// Git's rules for the folder at `path`, read from the server: the
    /// repository is the nearest folder above (or at) `path` whose `.git` is
    /// a folder holding `HEAD`, `objects` and `refs` (a `gitdir:` file is not
    /// followed over SFTP, and the global excludes file is the local user's,
    /// not the server's: neither is read); then its `.git/info/exclude` and
    /// each `.gitignore` from its top down, each at most
    /// `MAX_IGNORE_FILE_BYTES` (a larger one, a symlinked `.gitignore` or
    /// one that is not a regular file is not used, and the folder says
    /// why), all within `IGNORE_READ_TIME` (past it nothing is hidden, and
    /// the folder says `TIMEOUT`).
    fn ignore_rules(
        &self,
        path: &Path,
        meter: &mut Meter<'_>,
    ) -> (IgnoreRules, Option<CanopyError>) {
        let conn = match self.conn() {
            Ok(c) => c,
            Err(e) => return (IgnoreRules::none(), Some(rules_error(&e))),
        };
        let mut reads = RuleReads::new(&conn);
        let mut repo = None;
        for folder in path.ancestors() {
            match reads.is_repository(folder) {
                Ok(true) => {
                    repo = Some(folder);
                    break;
                }
                Ok(false) => {}
                Err(e) => return (IgnoreRules::none(), Some(e)),
            }
        }
        let Some(repo) = repo else {
            return (IgnoreRules::none(), None);
        };
        let below: Vec<&[u8]> = path
            .strip_prefix(repo)
            .map(|p| p.iter().map(|n| n.as_bytes()).collect())
            .unwrap_or_default();
        let exclude = reads.text(&repo.join(".git/info/exclude"), true);
        let mut here = repo.to_path_buf();
        let mut texts = vec![reads.text(&here.join(".gitignore"), false)];
        for name in &below {
            here.push(std::ffi::OsStr::from_bytes(name));
            texts.push(reads.text(&here.join(".gitignore"), false));
        }
        if let Some(e) = reads.late() {
            return (IgnoreRules::none(), Some(e));
        }
        let (rules, problem) = IgnoreRules::from_texts(exclude, &below, texts, meter);
        (rules, problem.or(reads.problem()))
    }

    fn child_ignore_rules(
        &self,
        parent: &IgnoreRules,
        name: &[u8],
        folder: &SftpFolder,
        path: &Path,
    ) -> (IgnoreRules, Option<CanopyError>) {
        let mut reads = RuleReads::new(&folder.conn);
        let repository = match reads.is_repository(path) {
            Ok(true) => Some(reads.text(&path.join(".git/info/exclude"), true)),
            Ok(false) => None,
            Err(e) => return (IgnoreRules::none(), Some(e)),
        };
        let own = if repository.is_some() || (parent.applies() && name != b".git") {
            reads.text(&path.join(".gitignore"), false)
        } else {
            None
        };
        if let Some(e) = reads.late() {
            return (IgnoreRules::none(), Some(e));
        }
        let (rules, problem) = parent.descend_texts(name, own, repository);
        (rules, problem.or(reads.problem()))
    }
}

fn rules_error(e: &io::Error) -> CanopyError {
    CanopyError::from_io(e, "cannot read the ignore rules; nothing is hidden")
}

/// The reads of one folder's ignore rules over the link: each call checked
/// against one deadline (`IGNORE_READ_TIME`), and the first problem kept.
struct RuleReads<'a> {
    conn: &'a Arc<Conn>,
    deadline: Instant,
    late: bool,
    problems: Vec<CanopyError>,
}

impl<'a> RuleReads<'a> {
    fn new(conn: &'a Arc<Conn>) -> RuleReads<'a> {
        RuleReads {
            conn,
            deadline: Instant::now() + IGNORE_READ_TIME,
            late: false,
            problems: Vec::new(),
        }
    }

    /// What `path` is (its link followed when `follow`); `None` when it is
    /// not there, or the deadline passed.
    fn stat(&mut self, path: &Path, follow: bool) -> io::Result<Option<Meta>> {
        if Instant::now() > self.deadline {
            self.late = true;
            return Ok(None);
        }
        let fs = &mut self.conn.sftp.fs();
        let got = if follow {
            self.conn.call(async { fs.metadata(path).await })
        } else {
            self.conn.call(async { fs.symlink_metadata(path).await })
        };
        match got {
            Ok(m) => Ok(Some(meta_of(&m))),
            Err(e) if matches!(e.raw_os_error(), Some(libc::ENOENT | libc::ENOTDIR)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Whether `folder`'s `.git` is a repository's: a folder (or a link to
    /// one) holding a `HEAD` file and `objects` and `refs` folders.
    fn is_repository(&mut self, folder: &Path) -> Result<bool, CanopyError> {
        let git = folder.join(".git");
        let kind = |r: &mut Self, p: &Path| r.stat(p, true).map(|m| m.map(|m| m.kind));
        let found = (|| -> io::Result<bool> {
            Ok(kind(self, &git)? == Some(EntryKind::Folder)
                && kind(self, &git.join("HEAD"))? == Some(EntryKind::File)
                && kind(self, &git.join("objects"))? == Some(EntryKind::Folder)
                && kind(self, &git.join("refs"))? == Some(EntryKind::Folder))
        })();
        match found {
            Ok(_) if self.late => Err(self
                .late()
                .unwrap_or_else(|| rules_error(&io::ErrorKind::TimedOut.into()))),
            Ok(yes) => Ok(yes),
            Err(e) => Err(rules_error(&e)),
        }
    }

    /// The text of the ignore file `path` (a final link followed only when
    /// `follow`, as git does), at most `MAX_IGNORE_FILE_BYTES`; `None` when
    /// there is none, or it cannot be used (the problem is kept).
    fn text(&mut self, path: &Path, follow: bool) -> Option<RuleText> {
        let what = canopy_core::names::escape_for_line(path.as_os_str().as_bytes());
        let unusable = |why: &str| {
            CanopyError::new(
                ErrorCode::NotAFile,
                format!("{what} {why}; its rules are not used"),
            )
        };
        let meta = match self.stat(path, follow) {
            Ok(Some(m)) => m,
            Ok(None) => return None,
            Err(e) => {
                self.problems
                    .push(CanopyError::from_io(&e, &format!("cannot read {what}")));
                return None;
            }
        };
        match meta.kind {
            EntryKind::File => {}
            EntryKind::Symlink => {
                self.problems
                    .push(unusable("is a symbolic link (git does not follow one)"));
                return None;
            }
            _ => {
                self.problems.push(unusable("is not a regular file"));
                return None;
            }
        }
        if meta.size > MAX_IGNORE_FILE_BYTES {
            self.problems.push(CanopyError::new(
                ErrorCode::TooLarge,
                format!(
                    "{what} is larger than {MAX_IGNORE_FILE_BYTES} bytes; its rules are not used"
                ),
            ));
            return None;
        }
        if Instant::now() > self.deadline {
            self.late = true;
            return None;
        }
        // One byte more than the cap: a file that grew past it is not used.
        let mut text = vec![0; meta.size as usize + 1];
        let read = SftpFile::open(self.conn, path).and_then(|f| f.read_full_at(&mut text, 0));
        match read {
            Ok(n) if n as u64 > MAX_IGNORE_FILE_BYTES => {
                self.problems.push(CanopyError::new(
                    ErrorCode::TooLarge,
                    format!("{what} is larger than {MAX_IGNORE_FILE_BYTES} bytes; its rules are not used"),
                ));
                None
            }
            Ok(n) => {
                text.truncate(n);
                Some(RuleText { text, what })
            }
            Err(e) => {
                self.problems
                    .push(CanopyError::from_io(&e, &format!("cannot read {what}")));
                None
            }
        }
    }

    /// `TIMEOUT` when the deadline passed before every file was read.
    fn late(&self) -> Option<CanopyError> {
        self.late.then(|| {
            CanopyError::new(
                ErrorCode::Timeout,
                format!(
                    "reading the ignore rules over the link took longer than {} ms; nothing is hidden",
                    IGNORE_READ_TIME.as_millis()
                ),
            )
        })
    }

    /// The first file that could not be used, saying how many more there were.
    fn problem(&mut self) -> Option<CanopyError> {
        let more = self.problems.len().saturating_sub(1);
        let mut first = self.problems.drain(..).next()?;
        if more > 0 {
            first.message = format!(
                "{} (and {more} more ignore files could not be used)",
                first.message
            );
        }
        Some(first)
    }
}
