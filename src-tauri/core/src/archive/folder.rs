//! A folder inside an archive, as a [`SourceFolder`]: its subfolders and
//! entries from the tree, their facts from the format, what is wrong with
//! an entry (an unsafe name, encrypted, a duplicate, a header a tar got
//! wrong) and what a tar's hard link links to.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex};

use super::member::Member;
use super::sniff::{head_of, named_like_archive, sniff};
use super::{names, tar, tree, zip, Archive, Body};
use crate::error::{CanopyError, ErrorCode};
use crate::limits::{ARCHIVE_DUPLICATES_CHECKED, ARCHIVE_LINK_MAX, ARCHIVE_NOTES_MAX};
use crate::source::{
    EntryNote, EntryStream, Identity, Meta, RawEntry, SourceFile, SourceFolder, Usage,
};
use crate::wire::{ArchiveFormat, EntryKind};

/// One entry found by name in a folder of an archive.
pub(super) enum Hit {
    Folder(u32),
    Record(tree::Record),
}

/// A folder inside an archive.
pub struct ArchiveFolder<F: SourceFile> {
    archive: Arc<Archive<F>>,
    id: u32,
    /// What was learnt of shown entries while reading (encrypted ones).
    notes: Mutex<HashMap<Box<[u8]>, CanopyError>>,
    /// Files read that need a second look if shown, and where they are:
    /// those named like archives (their first bytes tell), a tar's hard
    /// links and entries listed with a problem. Past `ARCHIVE_NOTES_MAX`
    /// names, a name is looked up again.
    marked: Mutex<HashMap<Box<[u8]>, tree::Record>>,
}

impl<F: SourceFile> ArchiveFolder<F> {
    pub(super) fn new(archive: Arc<Archive<F>>, id: u32) -> Self {
        ArchiveFolder {
            archive,
            id,
            notes: Mutex::new(HashMap::new()),
            marked: Mutex::new(HashMap::new()),
        }
    }

    /// The record `name` of this folder, if it is one.
    pub(super) fn record_named(&self, name: &[u8]) -> io::Result<Option<tree::Record>> {
        if let Some(&r) = self
            .marked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(name)
        {
            return Ok(Some(r));
        }
        match self.find(name) {
            Ok((Hit::Record(r), _)) => Ok(Some(r)),
            Ok((Hit::Folder(_), _)) => Ok(None),
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The listed name and facts of record `r` (its name into `path`).
    pub(super) fn record(
        &self,
        r: tree::Record,
        window: &mut zip::Window,
        path: &mut Vec<u8>,
    ) -> io::Result<(Meta, bool)> {
        let a = &*self.archive;
        match &a.body {
            Body::Zip(dir) => {
                let found = zip::entry_at(&a.file, dir, window, r.loc(), path)?;
                if !r.is_raw() {
                    let trimmed = path.strip_suffix(b"/").unwrap_or(path).len();
                    path.truncate(trimmed);
                    let cut = path.iter().rposition(|&b| b == b'/').map_or(0, |i| i + 1);
                    path.drain(..cut);
                }
                Ok((found.meta, found.encrypted))
            }
            Body::Tar(idx) => {
                let m = &idx.members[r.loc() as usize];
                path.clear();
                path.extend_from_slice(idx.name(m));
                Ok((tar::TarIndex::meta(m), false))
            }
        }
    }

    /// The facts of folder `sub`: its own entry's, when it has one.
    pub(super) fn folder_meta(
        &self,
        sub: u32,
        window: &mut zip::Window,
        scratch: &mut Vec<u8>,
    ) -> Meta {
        let plain = Meta {
            kind: EntryKind::Folder,
            size: 0,
            modified_ms: None,
        };
        let Some(loc) = self.archive.tree.node(sub).explicit else {
            return plain;
        };
        let rec = tree::Record::raw(loc);
        match self.record(rec, window, scratch) {
            Ok((meta, _)) => Meta {
                kind: EntryKind::Folder,
                size: 0,
                modified_ms: meta.modified_ms,
            },
            Err(_) => plain,
        }
    }

    pub(super) fn find(&self, name: &[u8]) -> io::Result<(Hit, Meta)> {
        let tree = &self.archive.tree;
        let mut window = zip::Window::new();
        let mut path = Vec::new();
        if let Some(sub) = tree.subfolder(self.id, name) {
            return Ok((
                Hit::Folder(sub),
                self.folder_meta(sub, &mut window, &mut path),
            ));
        }
        for &r in tree.records(self.id) {
            let (meta, _) = self.record(r, &mut window, &mut path)?;
            if path == name {
                return Ok((Hit::Record(r), meta));
            }
        }
        // An index cut short may lack it: say why, never that it is not there.
        match self.archive.stopped() {
            Some(why) => Err(not_reached(why).into_io()),
            None => Err(io::Error::from_raw_os_error(libc::ENOENT)),
        }
    }
}

impl<F: SourceFile> ArchiveFolder<F> {
    /// The record `name` if it was marked while the folder was read (past
    /// `ARCHIVE_NOTES_MAX` marked names, any record is looked up again).
    fn marked_record(&self, name: &[u8]) -> Option<tree::Record> {
        let marked = self.marked.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&r) = marked.get(name) {
            return Some(r);
        }
        let full = marked.len() >= ARCHIVE_NOTES_MAX;
        drop(marked);
        match full.then(|| self.find(name)) {
            Some(Ok((Hit::Record(r), _))) => Some(r),
            _ => None,
        }
    }

    /// What a tar's index says of the file `name` besides its facts: what a
    /// hard link links to (its error when it leads nowhere), the problem it
    /// was listed with, what an entry named like an archive is (told in the
    /// indexing pass: it is not read again).
    fn note_tar_entry(&self, name: &[u8], note: &mut EntryNote) {
        let Body::Tar(idx) = &self.archive.body else {
            return;
        };
        let Some(r) = self.marked_record(name).filter(|r| !r.is_raw()) else {
            return;
        };
        if let Some(hard) = idx.hard_link(r.loc()) {
            let target = idx.link(&idx.members[r.loc() as usize]).unwrap_or_default();
            note.hard_link = Some((target.to_vec(), hard.points_to));
            if let Err(e) = hard.to {
                note.problem.get_or_insert(e);
            }
        }
        if let Some(problem) = idx.extra(r.loc()).and_then(|x| x.problem.as_ref()) {
            note.problem.get_or_insert_with(|| problem.clone());
        }
        if let Some(nested) = idx.nested(r.loc()) {
            note.archive = nested.format;
            note.examine = false;
        }
        if note.problem.is_some() {
            note.archive = None;
            note.examine = false;
        }
    }
}

/// A folder of an archive being read: its subfolders, then its other entries.
pub struct ArchiveEntries<'a, F: SourceFile> {
    folder: &'a ArchiveFolder<F>,
    /// The names given so far, to tell duplicates (in folders of at most
    /// `ARCHIVE_DUPLICATES_CHECKED` entries; `None` past that).
    seen: Option<std::collections::HashSet<Box<[u8]>>>,
    next: usize,
    window: zip::Window,
    path: Vec<u8>,
}

/// Entries given per batch at most (the engine checks its deadline
/// between batches)...
const BATCH: usize = 512;
/// ...and bytes of names: an archive's names are not held to a
/// filesystem's 255 bytes (a tar's may be a mebibyte), so a batch is
/// bounded by what it carries, not by its count alone.
const BATCH_NAME_BYTES: usize = 256 * 1024;

impl<F: SourceFile> ArchiveEntries<'_, F> {
    /// Notes `name` as a duplicate when it was given before.
    fn seen_again(&mut self, name: &[u8]) {
        let Some(seen) = &mut self.seen else { return };
        if !seen.insert(name.into()) {
            let mut notes = self.folder.notes.lock().unwrap_or_else(|e| e.into_inner());
            if notes.len() < ARCHIVE_NOTES_MAX {
                notes.entry(name.into()).or_insert_with(|| {
                    CanopyError::new(
                        ErrorCode::Duplicate,
                        "another entry of the archive has this path; both are listed",
                    )
                });
            }
        }
    }
}

impl<F: SourceFile> EntryStream for ArchiveEntries<'_, F> {
    fn next_batch(&mut self, each: &mut dyn FnMut(RawEntry<'_>)) -> io::Result<bool> {
        let f = self.folder;
        let tree = &f.archive.tree;
        let subs = tree.subfolders(f.id);
        let recs = tree.records(f.id);
        let end = (self.next + BATCH).min(subs.len() + recs.len());
        let mut carried = 0;
        while self.next < end && carried < BATCH_NAME_BYTES {
            let i = self.next;
            self.next += 1;
            if let Some(&sub) = subs.get(i) {
                let meta = f.folder_meta(sub, &mut self.window, &mut self.path);
                self.seen_again(tree.name(sub));
                carried += tree.name(sub).len();
                each(RawEntry {
                    name: tree.name(sub),
                    kind: Some(EntryKind::Folder),
                    meta: Some(meta),
                });
                continue;
            }
            let r = recs[i - subs.len()];
            let (meta, encrypted) = f.record(r, &mut self.window, &mut self.path)?;
            let tar_extra = match &f.archive.body {
                Body::Tar(idx) => {
                    idx.extra(r.loc()).is_some() || idx.members[r.loc() as usize].hard_link
                }
                Body::Zip(_) => false,
            };
            let archive_like = meta.kind == EntryKind::File && named_like_archive(&self.path);
            if !r.is_raw() && (archive_like || tar_extra) {
                let mut marked = f.marked.lock().unwrap_or_else(|e| e.into_inner());
                if marked.len() < ARCHIVE_NOTES_MAX {
                    marked.insert(self.path.clone().into(), r);
                }
            }
            let path = std::mem::take(&mut self.path);
            self.seen_again(&path);
            self.path = path;
            carried += self.path.len();
            if encrypted {
                let mut notes = f.notes.lock().unwrap_or_else(|e| e.into_inner());
                if notes.len() < ARCHIVE_NOTES_MAX {
                    notes.insert(self.path.clone().into(), encrypted_error());
                }
            }
            each(RawEntry {
                name: &self.path,
                kind: Some(meta.kind),
                meta: Some(meta),
            });
        }
        if self.next < subs.len() + recs.len() {
            return Ok(true);
        }
        match f.archive.stopped() {
            Some(why) => Err(why.clone().into_io()),
            None => Ok(false),
        }
    }

    fn into_buffer(self) -> Vec<u8> {
        Vec::new()
    }
}

/// The error for a name an index cut by `why` did not reach.
fn not_reached(why: &CanopyError) -> CanopyError {
    CanopyError::new(
        why.code,
        format!(
            "not among the entries read, which stop early ({})",
            why.message
        ),
    )
}

pub(super) fn encrypted_error() -> CanopyError {
    CanopyError::new(
        ErrorCode::Encrypted,
        "the entry is encrypted: its name is listed, its content is not read",
    )
}

pub(super) fn unsafe_error(name: &[u8]) -> CanopyError {
    let why = names::unsafe_reason(name.strip_suffix(b"/").unwrap_or(name))
        .unwrap_or("the name holds a / (it names a path, not an entry)");
    CanopyError::new(
        ErrorCode::UnsafeName,
        format!("{why}; listed as written, never opened"),
    )
}

fn not_followed() -> io::Error {
    CanopyError::new(
        ErrorCode::NotAFile,
        "links inside an archive are shown, never followed",
    )
    .into_io()
}

impl<F: SourceFile> SourceFolder for ArchiveFolder<F> {
    type Entries<'a> = ArchiveEntries<'a, F>;
    type Found = Identity;

    fn identity(&self) -> io::Result<(Identity, Meta)> {
        let mut window = zip::Window::new();
        let meta = self.folder_meta(self.id, &mut window, &mut Vec::new());
        Ok((self.archive.identity(self.id), meta))
    }

    fn entries(&self, buffer: Vec<u8>) -> Result<ArchiveEntries<'_, F>, (io::Error, Vec<u8>)> {
        drop(buffer);
        let tree = &self.archive.tree;
        let small = tree.subfolders(self.id).len() + tree.records(self.id).len()
            <= ARCHIVE_DUPLICATES_CHECKED;
        Ok(ArchiveEntries {
            folder: self,
            seen: small.then(std::collections::HashSet::new),
            next: 0,
            window: zip::Window::new(),
            path: Vec::new(),
        })
    }

    fn stat_child(&self, name: &[u8], follow: bool) -> io::Result<Meta> {
        let (_, meta) = self.find(name)?;
        if follow && meta.kind == EntryKind::Symlink {
            return Err(not_followed());
        }
        Ok(meta)
    }

    fn usage_child(&self, name: &[u8]) -> io::Result<Usage> {
        let (hit, meta) = self.find(name)?;
        let mut usage = Usage::apparent_only(&meta);
        // A tar's hard link and the file it links to are one file met under
        // two names: counted once, as `du` counts them.
        if let (Hit::Record(r), Body::Tar(idx)) = (&hit, &self.archive.body) {
            if let Some(file) = idx.one_file(r.loc()) {
                let id = self.archive.member_identity(file);
                (usage.dev, usage.ino, usage.links) = (id.dev, id.ino, 2);
            }
        }
        Ok(usage)
    }

    fn read_link(&self, name: &[u8]) -> io::Result<Vec<u8>> {
        let (hit, meta) = self.find(name)?;
        let Hit::Record(r) = hit else {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        };
        if meta.kind != EntryKind::Symlink {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        // A target longer than a system takes is refused whole (the entry
        // says so), never shown cut as if it were the target.
        let whole = |target: Vec<u8>| {
            if target.len() > ARCHIVE_LINK_MAX {
                Err(io::Error::from_raw_os_error(libc::ENAMETOOLONG))
            } else {
                Ok(target)
            }
        };
        match &self.archive.body {
            Body::Tar(idx) => whole(
                idx.link(&idx.members[r.loc() as usize])
                    .unwrap_or_default()
                    .to_vec(),
            ),
            Body::Zip(_) => {
                // A zip keeps a link's target as its content.
                let member = Member::of_zip(&self.archive, r.loc(), true)?;
                let mut target = vec![0; ARCHIVE_LINK_MAX + 1];
                let n = member.read_at(&mut target, 0)?;
                target.truncate(n);
                whole(target)
            }
        }
    }

    fn look_up(&self, name: &[u8]) -> io::Result<Identity> {
        match self.find(name)? {
            (Hit::Folder(sub), _) => Ok(self.archive.identity(sub)),
            _ => Err(io::Error::from_raw_os_error(libc::ENOTDIR)),
        }
    }

    fn found_identity(found: &Identity) -> io::Result<Identity> {
        Ok(*found)
    }

    fn open_child(&self, name: &[u8]) -> io::Result<Self> {
        match self.archive.tree.subfolder(self.id, name) {
            Some(sub) => Ok(ArchiveFolder::new(self.archive.clone(), sub)),
            None => match self.find(name) {
                Ok(_) => Err(io::Error::from_raw_os_error(libc::ENOTDIR)),
                Err(e) => Err(e),
            },
        }
    }

    fn open_child_here(&self, name: &[u8]) -> io::Result<Option<Self>> {
        self.open_child(name).map(Some)
    }

    fn note_child(&self, name: &[u8], kind: EntryKind) -> EntryNote {
        let raw = self.id == 0 && (name.contains(&b'/') || names::unsafe_reason(name).is_some());
        if raw {
            return EntryNote {
                problem: Some(unsafe_error(name)),
                ..EntryNote::default()
            };
        }
        let problem = self
            .notes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(name)
            .cloned();
        // An archive inside this one is told by its first bytes too (at most
        // a few KiB decompressed), and listed as one; opening it is bounded
        // by nesting and size (`Archive::open_nested`).
        let examine = kind == EntryKind::File && problem.is_none() && named_like_archive(name);
        let mut note = EntryNote {
            archive: None,
            problem,
            examine,
            hard_link: None,
        };
        if kind == EntryKind::File {
            self.note_tar_entry(name, &mut note);
        }
        note
    }

    fn archive_format(&self, name: &[u8]) -> io::Result<Option<ArchiveFormat>> {
        let Some(record) = self.record_named(name)? else {
            return Ok(None);
        };
        if let Body::Tar(idx) = &self.archive.body {
            if let Some(nested) = idx.nested(record.loc()) {
                return Ok(nested.format);
            }
        }
        let member = self.archive.member(record)?;
        Ok(sniff(&head_of(&member)?, name))
    }
}
