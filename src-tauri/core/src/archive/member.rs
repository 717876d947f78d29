//! A regular file inside an archive, read by decompressing from its start
//! (a tar's hard link reads as the file it links to, a sparse file with its
//! holes as zeros); and an archive inside an archive, opened from one.
#![forbid(unsafe_code)]

use std::io::{self, Read};
use std::sync::{Arc, Mutex};

use super::blob::Blob;
use super::decode::{self, Codec, Range, RatioGuard};
use super::folder::encrypted_error;
use super::sniff::{codec_of, head_of, sniff};
use super::{tar, tree, zip, Archive, Body};
use crate::cpu_work::CpuWork;
use crate::error::{code_of, CanopyError, ErrorCode};
use crate::limits::{ARCHIVE_NESTED_MEMORY_MAX, ARCHIVE_NESTING_MAX, ARCHIVE_SKIP_MAX};
use crate::source::SourceFile;
use crate::wire::{ArchiveFormat, EntryKind};

/// A regular file inside an archive, read by decompressing from its start
/// (a read that continues where the last one ended goes on from there).
pub struct Member<F: SourceFile> {
    archive: Arc<Archive<F>>,
    size: u64,
    how: MemberData,
    /// A sparse file's runs (logical offset, length): its data is stored
    /// without the holes between them.
    runs: Option<Arc<[(u64, u64)]>>,
    /// The stream being read and how far it is, kept between reads.
    open: Mutex<Option<(u64, Box<dyn Read + Send>)>>,
}

enum MemberData {
    /// A zip entry's compressed bytes and their codec.
    Zip { start: u64, end: u64, codec: Codec },
    /// A plain tar entry's bytes, read in place.
    TarPlain { start: u64 },
    /// A compressed tar entry: its bytes start this far into the stream.
    TarPacked { data: u64 },
}

impl<F: SourceFile> Member<F> {
    pub(super) fn of_zip(
        archive: &Arc<Archive<F>>,
        loc: u32,
        links_too: bool,
    ) -> io::Result<Member<F>> {
        let Body::Zip(dir) = &archive.body else {
            unreachable!("a zip member of a zip")
        };
        let mut window = zip::Window::new();
        let (rec, _) = zip::parse_record(window.record_at(&*archive.file, dir, u64::from(loc))?)?;
        let mut path = Vec::new();
        rec.path_into(&mut path);
        let kind = rec.kind(&path);
        if !(kind == EntryKind::File || links_too && kind == EntryKind::Symlink) {
            return Err(
                CanopyError::new(ErrorCode::NotAFile, "this entry is not a regular file").into_io(),
            );
        }
        if rec.encrypted() {
            return Err(encrypted_error().into_io());
        }
        let codec = rec.codec()?;
        let (start, end) = zip::data_range(&*archive.file, dir, &rec)?;
        // The archive's own claim already passes the ratio guard: refuse before inflating.
        if codec != Codec::Stored && decode::past_ratio(rec.size, rec.compressed) {
            return Err(decode::ratio_error(
                "the entry claims more than it may",
                rec.size,
                rec.compressed,
            ));
        }
        Ok(Member {
            archive: archive.clone(),
            size: rec.size,
            how: MemberData::Zip { start, end, codec },
            runs: None,
            open: Mutex::new(None),
        })
    }

    /// Entry `loc` of a tar (a hard link: the file it links to).
    ///
    /// # Errors
    /// `NOT_A_FILE` for anything but a regular file; a hard link's own
    /// error when it leads nowhere; the problem an entry was listed with;
    /// `CORRUPT` when a plain tar ends inside its data.
    pub(super) fn of_tar(archive: &Arc<Archive<F>>, loc: u32) -> io::Result<Member<F>> {
        let Body::Tar(idx) = &archive.body else {
            unreachable!("a tar member of a tar")
        };
        let mut loc = loc;
        if idx.members[loc as usize].hard_link {
            match idx.hard_link(loc).map(|h| h.to) {
                Some(Ok(to)) => loc = to,
                Some(Err(e)) => return Err(e.into_io()),
                None => unreachable!("every hard link is resolved"),
            }
        }
        let m = &idx.members[loc as usize];
        if m.kind != EntryKind::File {
            let what = match m.kind {
                EntryKind::Symlink => {
                    "this hard link names a symlink, which is shown, never followed"
                }
                _ => "this entry is not a regular file",
            };
            return Err(CanopyError::new(ErrorCode::NotAFile, what).into_io());
        }
        let extra = idx.extra(loc);
        if let Some(problem) = extra.and_then(|x| x.problem.as_ref()) {
            return Err(problem.clone().into_io());
        }
        let runs = extra.and_then(|x| idx.runs(x));
        let stored = runs.map_or(m.size, |r| r.iter().map(|r| r.1).sum());
        let truncated = m
            .data
            .checked_add(stored)
            .is_none_or(|end| end > archive.file.size());
        if archive.format == ArchiveFormat::Tar && truncated {
            return Err(super::corrupt(
                "the entry's data is cut short (the archive is truncated)",
            ));
        }
        let how = if archive.format == ArchiveFormat::Tar {
            MemberData::TarPlain { start: m.data }
        } else {
            MemberData::TarPacked { data: m.data }
        };
        Ok(Member {
            archive: archive.clone(),
            size: m.size,
            how,
            runs: runs.map(Arc::from),
            open: Mutex::new(None),
        })
    }

    /// Where its bytes lie unchanged in the archive's file (stored), if they do.
    pub(super) fn in_place(&self) -> Option<u64> {
        if self.runs.is_some() {
            return None;
        }
        match self.how {
            MemberData::Zip {
                start,
                codec: Codec::Stored,
                ..
            }
            | MemberData::TarPlain { start } => Some(start),
            _ => None,
        }
    }

    /// A stream of the entry's bytes from `offset`.
    fn stream_from(&self, offset: u64) -> io::Result<Box<dyn Read + Send>> {
        // A sparse file's data is stored without its holes: its stream
        // starts at the stored bytes that come after `offset`.
        let (from, stored) = match &self.runs {
            Some(runs) => (
                tar::stored_before(runs, offset),
                runs.iter().map(|r| r.1).sum(),
            ),
            None => (offset, self.size),
        };
        let file = self.archive.file.clone();
        let stream: Box<dyn Read + Send> = match self.how {
            MemberData::Zip { start, end, codec } => {
                let range = Range::new(file, start, end);
                let counter = range.counter();
                let whole =
                    Box::new(RatioGuard::new(decode::decoder(codec, range)?, counter).take(stored));
                skipped(whole, from)?
            }
            MemberData::TarPlain { start } => {
                Box::new(Range::new(file, start + from, start + stored))
            }
            MemberData::TarPacked { data } => {
                if data > ARCHIVE_SKIP_MAX {
                    return Err(CanopyError::new(
                        ErrorCode::TooLarge,
                        format!(
                            "this entry starts {} MiB into the compressed stream; a preview decompresses at most {} MiB to reach it",
                            data >> 20,
                            ARCHIVE_SKIP_MAX >> 20
                        ),
                    )
                    .into_io());
                }
                let mut s = tar::Stream::open(&file, codec_of(self.archive.format), None)?;
                if !s.skip(data)? {
                    return Err(super::corrupt("the archive ends before this entry's data"));
                }
                skipped(
                    Box::new(StreamTake {
                        stream: s,
                        left: stored,
                    }),
                    from,
                )?
            }
        };
        Ok(match &self.runs {
            Some(runs) => Box::new(tar::Holes::new(stream, runs.clone(), offset, self.size)),
            None => stream,
        })
    }
}

/// `stream` after its first `n` bytes, read and dropped (at most `ARCHIVE_SKIP_MAX`).
fn skipped(mut stream: Box<dyn Read + Send>, n: u64) -> io::Result<Box<dyn Read + Send>> {
    if n > ARCHIVE_SKIP_MAX {
        return Err(CanopyError::new(
            ErrorCode::TooLarge,
            format!(
                "a preview decompresses at most {} MiB to reach its offset",
                ARCHIVE_SKIP_MAX >> 20
            ),
        )
        .into_io());
    }
    if !decode::skip(&mut stream, n)? {
        return Err(super::corrupt(
            "the entry's data ends before its stated size",
        ));
    }
    Ok(stream)
}

/// The first `left` bytes of a tar stream.
struct StreamTake<F: SourceFile> {
    stream: tar::Stream<F>,
    left: u64,
}

impl<F: SourceFile> Read for StreamTake<F> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let want = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        if want == 0 {
            return Ok(0);
        }
        let n = self.stream.read_full(&mut buf[..want])?;
        self.left -= n as u64;
        Ok(n)
    }
}

impl<F: SourceFile> SourceFile for Member<F> {
    fn size(&self) -> u64 {
        self.size
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        // Decompressing (and skipping to `offset`) is CPU work: it stops at
        // its step's deadline instead of outliving it (see `decode`).
        let _work = CpuWork::start();
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let mut stream = match open.take() {
            Some((at, s)) if at == offset => s,
            _ => self.stream_from(offset)?,
        };
        let n = decode::fill(&mut stream, buf)?;
        if n == 0 && !buf.is_empty() && offset < self.size {
            return Err(super::corrupt(
                "the entry's data ends before its stated size (the archive is damaged)",
            ));
        }
        *open = Some((offset + n as u64, stream));
        Ok(n)
    }
}

impl<X: SourceFile> Archive<Blob<X>> {
    /// The archive that record `r` (named `name`) of this one holds, if it
    /// holds one: read in place when stored, else into memory once (at most
    /// `ARCHIVE_NESTED_MEMORY_MAX`), and never deeper than `ARCHIVE_NESTING_MAX`.
    ///
    /// # Errors
    /// `ENOTDIR` when the entry is no archive; `TOO_DEEP`, `TOO_LARGE`; the
    /// entry's own errors (`ENCRYPTED`, `RATIO` ...).
    pub(super) fn open_nested(
        self: &Arc<Self>,
        r: tree::Record,
        name: &[u8],
    ) -> io::Result<Arc<Archive<Blob<X>>>> {
        let member = self.member(r).map_err(|e| {
            if code_of(&e) == ErrorCode::NotAFile {
                io::Error::from_raw_os_error(libc::ENOTDIR)
            } else {
                e
            }
        })?;
        // A compressed tar's indexing pass told it (and kept it when small):
        // it is not decompressed again from the tar's start.
        let told = match &self.body {
            Body::Tar(idx) => idx.nested(r.loc()).cloned(),
            Body::Zip(_) => None,
        };
        let format = match &told {
            Some(nested) => nested.format,
            None => sniff(&head_of(&member)?, name),
        };
        let Some(format) = format else {
            return Err(io::Error::from_raw_os_error(libc::ENOTDIR));
        };
        if self.level >= ARCHIVE_NESTING_MAX {
            return Err(CanopyError::new(
                ErrorCode::TooDeep,
                format!("an archive inside {ARCHIVE_NESTING_MAX} levels of archives is listed, not opened"),
            )
            .into_io());
        }
        let size = member.size();
        let kept = told.and_then(|nested| nested.bytes);
        let blob = match (kept, member.in_place()) {
            (Some(bytes), _) => Blob::Memory(bytes),
            (None, Some(start)) => Blob::Window { outer: self.file.clone(), start, len: size },
            (None, None) if size <= ARCHIVE_NESTED_MEMORY_MAX => {
                let mut bytes = vec![0; size as usize];
                if member.read_full_at(&mut bytes, 0)? < bytes.len() {
                    return Err(super::corrupt("the inner archive ends before its stated size"));
                }
                Blob::Memory(bytes.into())
            }
            (None, None) => {
                return Err(CanopyError::new(
                    ErrorCode::TooLarge,
                    format!(
                        "this compressed archive inside an archive holds {} MiB; Canopy opens one of at most {} MiB (a stored one, any size)",
                        size >> 20,
                        ARCHIVE_NESTED_MEMORY_MAX >> 20
                    ),
                )
                .into_io())
            }
        };
        let salt = (self.salt ^ u64::from(r.loc()).wrapping_mul(0xA24B_AED4_963E_E407))
            .rotate_left(17)
            ^ u64::from(self.level);
        Ok(Arc::new(Archive::open_at(
            Arc::new(blob),
            format,
            self.stamp,
            self.level + 1,
            salt,
        )?))
    }
}
