//! The index file's bytes as git writes them (`read-cache.c`'s
//! `create_from_disk`, `split-index.c`'s link extension, `ewah/`'s
//! bitmaps), read in windows and checked against what carries them before
//! anything is used or allocated: [`super`] turns what is read into the
//! paths a repository tracks.
#![forbid(unsafe_code)]

use std::ops::Range;

use super::{Fault, ReadAt, Span, SPAN_GITLINK};
use crate::ignore_pattern::Meter;
use crate::limits::{INDEX_READ_WINDOW, MAX_GIT_INDEX_BYTES};

/// Bytes of an index entry before its object name (times, ids, mode, size).
pub(super) const STAT_BYTES: usize = 40;
/// The mode of a submodule's entry (`S_IFGITLINK`).
const GITLINK: u32 = 0o160_000;
const MODE_TYPE: u32 = 0o170_000;
/// The flags' name length when the name is as long or longer.
pub(super) const NAME_MASK: usize = 0xfff;
const FLAG_EXTENDED: u16 = 0x4000;
/// The extended flags git knows (intent to add, skip worktree).
const EXTENDED_KNOWN: u16 = 0x6000;

pub(super) fn corrupt<T>(why: impl Into<String>) -> Result<T, Fault> {
    Err(Fault::Corrupt(why.into()))
}

/// The bytes of a file read in windows, from an offset, up to an end.
struct Window<'a, R: ?Sized> {
    src: &'a R,
    buf: Vec<u8>,
    /// Unread bytes of `buf` start here and end at `filled`.
    at: usize,
    filled: usize,
    /// The file offset of `buf[filled]`.
    next: u64,
    end: u64,
}

impl<'a, R: ReadAt + ?Sized> Window<'a, R> {
    fn new(src: &'a R, start: u64, end: u64) -> Self {
        Window {
            src,
            buf: vec![0; INDEX_READ_WINDOW],
            at: 0,
            filled: 0,
            next: start,
            end,
        }
    }

    /// The file offset of the next byte.
    fn offset(&self) -> u64 {
        self.next - (self.filled - self.at) as u64
    }

    /// Bytes left before the end.
    fn left(&self) -> u64 {
        self.end - self.offset()
    }

    /// Makes at least `n` bytes (at most the window) ready, or fails at the end.
    fn fill(&mut self, n: usize) -> Result<(), Fault> {
        if self.filled - self.at >= n {
            return Ok(());
        }
        if (n as u64) > self.left() {
            return corrupt(format!(
                "it ends in the middle of an entry, at byte {}",
                self.end
            ));
        }
        self.buf.copy_within(self.at..self.filled, 0);
        self.filled -= self.at;
        self.at = 0;
        while self.filled < n {
            let want = (self.buf.len() - self.filled).min((self.end - self.next) as usize);
            let got = self
                .src
                .read_at(&mut self.buf[self.filled..self.filled + want], self.next)?;
            if got == 0 {
                return corrupt("it is shorter than it was when it was opened");
            }
            self.filled += got;
            self.next += got as u64;
        }
        Ok(())
    }

    /// The next `n` bytes (`n` at most the window).
    fn take(&mut self, n: usize) -> Result<&[u8], Fault> {
        self.fill(n)?;
        let at = self.at;
        self.at += n;
        Ok(&self.buf[at..at + n])
    }

    /// Appends the bytes up to the next NUL (dropped) to `out`, at most
    /// `max` of them.
    fn take_to_nul(&mut self, out: &mut Vec<u8>, max: usize) -> Result<(), Fault> {
        let mut got = 0;
        loop {
            if self.at == self.filled {
                self.fill(1)?;
            }
            let ready = &self.buf[self.at..self.filled];
            match ready.iter().position(|&b| b == 0) {
                Some(i) => {
                    if got + i > max {
                        return Err(too_many_names(max));
                    }
                    out.extend_from_slice(&ready[..i]);
                    self.at += i + 1;
                    return Ok(());
                }
                None => {
                    got += ready.len();
                    if got > max {
                        return Err(too_many_names(max));
                    }
                    out.extend_from_slice(ready);
                    self.at = self.filled;
                }
            }
        }
    }

    fn skip(&mut self, n: u64) -> Result<(), Fault> {
        if n > self.left() {
            return corrupt("an extension runs past the end");
        }
        let ready = (self.filled - self.at) as u64;
        if n <= ready {
            self.at += n as usize;
        } else {
            self.next += n - ready;
            self.at = 0;
            self.filled = 0;
        }
        Ok(())
    }
}

fn too_many_names(room: usize) -> Fault {
    Fault::TooLarge(format!(
        "holds more than {room} bytes of paths (what a listing may hold of the paths repositories track)"
    ))
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

/// Git's `decode_varint` (v4's name compression): `None` on overflow.
fn varint<R: ReadAt + ?Sized>(w: &mut Window<'_, R>) -> Result<u64, Fault> {
    let mut c = w.take(1)?[0];
    let mut val = u64::from(c & 127);
    while c & 128 != 0 {
        val += 1;
        if val >> 57 != 0 {
            return corrupt("a name's length does not fit");
        }
        c = w.take(1)?[0];
        val = (val << 7) + u64::from(c & 127);
    }
    Ok(val)
}

/// The `link` extension: the shared index a split index is read over.
#[derive(Debug)]
pub(super) struct Link {
    /// The shared index's own hash (its file's last bytes).
    pub(super) base: Vec<u8>,
    /// EWAH bitmaps over the shared index's entries.
    pub(super) delete: Vec<u8>,
    pub(super) replace: Vec<u8>,
}

/// One index file as read: its names in file order (a split index's
/// replacements are empty), and the extensions that change their meaning.
pub(super) struct Parsed {
    pub(super) names: Vec<u8>,
    pub(super) spans: Vec<Span>,
    pub(super) link: Option<Link>,
    /// The file's last `hash` bytes.
    pub(super) trailer: Vec<u8>,
}

impl Parsed {
    pub(super) fn name(&self, s: Span) -> &[u8] {
        &self.names[s.start as usize..(s.start + (s.len & !SPAN_GITLINK)) as usize]
    }
}

/// What reading one file may take: the names' room, and the meter.
pub(super) struct Allowance<'m, 'c> {
    pub(super) room: usize,
    pub(super) meter: &'m mut Meter<'c>,
}

/// Reads one index file of `size` bytes whose object names are `hash`
/// bytes long.
pub(super) fn parse<R: ReadAt + ?Sized>(
    src: &R,
    size: u64,
    hash: usize,
    a: &mut Allowance<'_, '_>,
) -> Result<Parsed, Fault> {
    if size < (12 + hash) as u64 {
        return corrupt("it is shorter than a header");
    }
    let body_end = size - hash as u64;
    let mut w = Window::new(src, 0, body_end);
    let head = w.take(12)?;
    if &head[..4] != b"DIRC" {
        return corrupt("it does not start with DIRC");
    }
    let version = u32_at(head, 4);
    let count = u32_at(head, 8) as u64;
    if !(2..=4).contains(&version) {
        return Err(Fault::Unsupported(format!(
            "is an index of version {version}"
        )));
    }
    // The fewest bytes an entry takes: a one-byte name and its NUL (padded
    // to eight bytes before v4).
    let fixed = STAT_BYTES + hash + 2;
    let least = if version == 4 {
        fixed + 2
    } else {
        (fixed + 8) & !7
    };
    if count.saturating_mul(least as u64) > w.left() {
        return corrupt(format!(
            "it says it holds {count} entries, more than its bytes can"
        ));
    }
    let mut names: Vec<u8> = Vec::new();
    let mut spans: Vec<Span> = Vec::with_capacity(count as usize);
    let mut prev: Range<usize> = 0..0;
    let mut suffix = Vec::new();
    for _ in 0..count {
        a.meter.spend(least as u64)?;
        let e = w.take(fixed)?;
        let mode = u32_at(e, 24);
        let flags = u16_at(e, fixed - 2);
        let len = usize::from(flags) & NAME_MASK;
        let mut used = fixed;
        if flags & FLAG_EXTENDED != 0 {
            let ext = u16_at(w.take(2)?, 0);
            if ext & !EXTENDED_KNOWN != 0 {
                return corrupt(format!("an entry has unknown flags {ext:#06x}"));
            }
            used += 2;
        }
        let room = a
            .room
            .saturating_sub(names.len() + spans.len() * size_of::<Span>());
        let start = names.len();
        if version == 4 {
            let strip = varint(&mut w)?;
            let kept = (prev.len() as u64)
                .checked_sub(strip)
                .ok_or_else(|| Fault::Corrupt("a name strips more than the name before".into()))?
                as usize;
            if kept > room {
                return Err(too_many_names(a.room));
            }
            names.extend_from_within(prev.start..prev.start + kept);
            suffix.clear();
            w.take_to_nul(&mut suffix, room - kept)?;
            names.extend_from_slice(&suffix);
        } else {
            w.take_to_nul(&mut names, room)?;
            let padded = (used + (names.len() - start) + 8) & !7;
            for &b in w.take(padded - used - (names.len() - start) - 1)? {
                if b != 0 {
                    return corrupt("an entry's padding is not NUL bytes");
                }
            }
        }
        let got = names.len() - start;
        a.meter.spend(got as u64)?;
        if (len < NAME_MASK && got != len) || (len == NAME_MASK && got < NAME_MASK) {
            return corrupt(format!(
                "an entry's name is {got} bytes where its flags say {len}"
            ));
        }
        if got > 0 && names[prev.clone()] > names[start..] {
            return corrupt("its entries are not in git's order");
        }
        let gitlink = if mode & MODE_TYPE == GITLINK {
            SPAN_GITLINK
        } else {
            0
        };
        let span = Span {
            start: start as u32,
            len: got as u32 | gitlink,
        };
        spans.push(span);
        if got > 0 || version == 4 {
            prev = start..start + got;
        }
    }
    let mut link = None;
    while w.left() > 0 {
        let head = w.take(8)?;
        let sig: [u8; 4] = [head[0], head[1], head[2], head[3]];
        let len = u64::from(u32_at(head, 4));
        if len > w.left() {
            return corrupt("an extension runs past the end");
        }
        a.meter.spend(len.min(1 << 20))?;
        match &sig {
            b"link" => link = Some(read_link(&mut w, len, hash)?),
            // A sparse index: entries named `dir/` stand for their trees.
            b"sdir" => w.skip(len)?,
            [b'A'..=b'Z', ..] => w.skip(len)?,
            _ => {
                return Err(Fault::Unsupported(format!(
                    "needs the extension {}",
                    sig.escape_ascii()
                )))
            }
        }
    }
    let mut trailer = vec![0; hash];
    let mut got = 0;
    while got < hash {
        let n = src.read_at(&mut trailer[got..], body_end + got as u64)?;
        if n == 0 {
            return corrupt("it is shorter than it was when it was opened");
        }
        got += n;
    }
    Ok(Parsed {
        names,
        spans,
        link,
        trailer,
    })
}

/// Reads the `link` extension's `len` bytes: the shared index's hash, then
/// the delete and replace bitmaps (both, or none).
fn read_link<R: ReadAt + ?Sized>(
    w: &mut Window<'_, R>,
    len: u64,
    hash: usize,
) -> Result<Link, Fault> {
    if len < hash as u64 {
        return corrupt("its link extension is shorter than a hash");
    }
    let base = w.take(hash)?.to_vec();
    let mut rest = len - hash as u64;
    let mut bitmaps = Vec::new();
    while rest > 0 && bitmaps.len() < 2 {
        let head = w.take(8)?;
        let words = u64::from(u32_at(head, 4));
        let bytes = words * 8 + 4;
        if 8 + bytes > rest {
            return corrupt("a bitmap of its link extension runs past the extension");
        }
        let mut bitmap = head.to_vec();
        let mut left = bytes;
        while left > 0 {
            let n = left.min(INDEX_READ_WINDOW as u64) as usize;
            bitmap.extend_from_slice(w.take(n)?);
            left -= n as u64;
        }
        rest -= 8 + bytes;
        bitmaps.push(bitmap);
    }
    if rest != 0 || bitmaps.len() == 1 {
        return corrupt("its link extension is not a hash and two bitmaps");
    }
    let replace = bitmaps.pop().unwrap_or_default();
    let delete = bitmaps.pop().unwrap_or_default();
    Ok(Link {
        base,
        delete,
        replace,
    })
}

/// Calls `each` with every set bit of an EWAH bitmap (git's `ewah_each_bit`
/// over `ewah_read_mmap`'s layout), refusing a bit at `limit` or past it.
pub(super) fn ewah_bits(
    bitmap: &[u8],
    limit: usize,
    meter: &mut Meter<'_>,
    mut each: impl FnMut(usize) -> Result<(), Fault>,
) -> Result<(), Fault> {
    if bitmap.is_empty() {
        return Ok(());
    }
    let words = u32_at(bitmap, 4) as usize;
    let word = |i: usize| {
        let at = 8 + i * 8;
        u64::from_be_bytes(bitmap[at..at + 8].try_into().unwrap_or([0; 8]))
    };
    let mut pos: u64 = 0;
    let mut i = 0;
    let past = |p: u64| p >= limit as u64;
    while i < words {
        let rlw = word(i);
        i += 1;
        let run = ((rlw >> 1) & 0xffff_ffff) * 64;
        let literals = (rlw >> 33) as usize;
        if rlw & 1 == 1 && run > 0 {
            if past(pos + run - 1) {
                return corrupt("a bitmap names an entry the shared index does not have");
            }
            for p in pos..pos + run {
                meter.spend(1)?;
                each(p as usize)?;
            }
        }
        pos += run;
        if literals > words - i {
            return corrupt("a bitmap's words run past its end");
        }
        for _ in 0..literals {
            let w = word(i);
            i += 1;
            meter.spend(1)?;
            let mut bits = w;
            while bits != 0 {
                let p = pos + u64::from(bits.trailing_zeros());
                if past(p) {
                    return corrupt("a bitmap names an entry the shared index does not have");
                }
                each(p as usize)?;
                bits &= bits - 1;
            }
            pos += 64;
        }
    }
    Ok(())
}

/// Reads `file` as an index with SHA-1 object names, else with SHA-256
/// ones: the layout that fits the file end to end is the repository's.
pub(super) fn parse_either<R: ReadAt + ?Sized>(
    file: &R,
    size: u64,
    a: &mut Allowance<'_, '_>,
) -> Result<(Parsed, usize), Fault> {
    if size > MAX_GIT_INDEX_BYTES {
        return Err(Fault::TooLarge(format!(
            "is {size} bytes; Canopy reads an index of at most {MAX_GIT_INDEX_BYTES}"
        )));
    }
    match parse(file, size, 20, a) {
        Ok(p) => Ok((p, 20)),
        Err(Fault::Corrupt(why)) => match parse(file, size, 32, a) {
            Ok(p) => Ok((p, 32)),
            Err(Fault::Corrupt(_)) => Err(Fault::Corrupt(why)),
            Err(other) => Err(other),
        },
        Err(other) => Err(other),
    }
}
