//! Telling an archive by its first bytes (and which names are worth a look).
#![forbid(unsafe_code)]

use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::decode::{self, Codec};
use super::tar;
use crate::limits::ARCHIVE_SNIFF_BYTES;
use crate::source::SourceFile;
use crate::wire::ArchiveFormat;

/// Names whose ending says "archive": only such files of a listing are
/// looked at (their first bytes decide).
const ZIP_ENDINGS: [&[u8]; 11] = [
    b".zip", b".jar", b".war", b".ear", b".apk", b".aar", b".whl", b".xpi", b".nupkg", b".vsix",
    b".cbz",
];
const TAR_ENDINGS: [&[u8]; 11] = [
    b".tar",
    b".tgz",
    b".tbz",
    b".tbz2",
    b".txz",
    b".tzst",
    b".tar.gz",
    b".tar.bz2",
    b".tar.xz",
    b".tar.zst",
    b".taz",
];

/// Whether a file named `name` may be an archive (its bytes decide).
pub(crate) fn named_like_archive(name: &[u8]) -> bool {
    ZIP_ENDINGS
        .iter()
        .chain(TAR_ENDINGS.iter())
        .any(|end| ends_like(name, end))
}

/// The archive format of a file named `name` whose first bytes are `head`,
/// if it is one Canopy reads. A compressed file is an archive when what its
/// first bytes decompress to starts with a tar header, or, when they are too
/// few to decompress a whole block, when its name says it is a tar of that
/// compression (`.tar.zst`, `.tgz` ...): then its first header is checked
/// when it is opened.
pub(crate) fn sniff(head: &[u8], name: &[u8]) -> Option<ArchiveFormat> {
    if head.len() >= 4
        && &head[..2] == b"PK"
        && matches!(&head[2..4], b"\x03\x04" | b"\x05\x06" | b"\x07\x08")
    {
        return Some(ArchiveFormat::Zip);
    }
    if tar::is_header(head) {
        return Some(ArchiveFormat::Tar);
    }
    let (format, codec) = if head.starts_with(&[0x1f, 0x8b]) {
        (ArchiveFormat::TarGz, Codec::Gzip)
    } else if head.starts_with(b"BZh") {
        (ArchiveFormat::TarBz2, Codec::Bzip2)
    } else if head.starts_with(&[0xFD, b'7', b'z', b'X', b'Z', 0]) {
        (ArchiveFormat::TarXz, Codec::Xz)
    } else if head.starts_with(&[0x28, 0xB5, 0x2F, 0xFD]) || decode::skippable_frame(head).is_some()
    {
        (ArchiveFormat::TarZst, Codec::Zstd)
    } else {
        return None;
    };
    let mut first = [0u8; 512];
    let input = HeadReader {
        bytes: head.to_vec(),
        at: 0,
        ran_out: Arc::new(AtomicBool::new(false)),
    };
    let ran_out = input.ran_out.clone();
    let n = decode::decoder(codec, input).and_then(|mut d| decode::fill(&mut d, &mut first));
    match n {
        Ok(512) => tar::is_header(&first).then_some(format),
        // The first block is larger than the head: the name decides, and
        // opening the archive checks its first header.
        _ if ran_out.load(Ordering::Relaxed) && head.len() >= ARCHIVE_SNIFF_BYTES => {
            named_as(name, format).then_some(format)
        }
        // Data no decoder makes sense of: not an archive, whatever its name.
        _ => None,
    }
}

/// A file's first bytes, read by a decoder; notes when it asked for more.
struct HeadReader {
    bytes: Vec<u8>,
    at: usize,
    ran_out: Arc<AtomicBool>,
}

impl Read for HeadReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(self.bytes.len() - self.at);
        buf[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
        self.at += n;
        if n == 0 && !buf.is_empty() {
            self.ran_out.store(true, Ordering::Relaxed);
        }
        Ok(n)
    }
}

/// Whether `name` is longer than `end` and ends with it, ASCII case aside.
fn ends_like(name: &[u8], end: &[u8]) -> bool {
    name.len() > end.len() && name[name.len() - end.len()..].eq_ignore_ascii_case(end)
}

/// Whether `name` ends like a tar compressed as `format`.
fn named_as(name: &[u8], format: ArchiveFormat) -> bool {
    let endings: &[&[u8]] = match format {
        ArchiveFormat::TarGz => &[b".tar.gz", b".tgz", b".taz"],
        ArchiveFormat::TarBz2 => &[b".tar.bz2", b".tbz", b".tbz2"],
        ArchiveFormat::TarXz => &[b".tar.xz", b".txz"],
        ArchiveFormat::TarZst => &[b".tar.zst", b".tzst"],
        ArchiveFormat::Zip | ArchiveFormat::Tar => &[],
    };
    endings.iter().any(|end| ends_like(name, end))
}

pub(super) fn codec_of(format: ArchiveFormat) -> Codec {
    match format {
        ArchiveFormat::Zip | ArchiveFormat::Tar => Codec::Stored,
        ArchiveFormat::TarGz => Codec::Gzip,
        ArchiveFormat::TarBz2 => Codec::Bzip2,
        ArchiveFormat::TarXz => Codec::Xz,
        ArchiveFormat::TarZst => Codec::Zstd,
    }
}

/// The first bytes of `file` (decompressed, for an entry of an archive),
/// enough to tell an archive.
pub(super) fn head_of<F: SourceFile>(file: &F) -> io::Result<Vec<u8>> {
    let mut head = vec![0; ARCHIVE_SNIFF_BYTES];
    let got = file.read_full_at(&mut head, 0)?;
    head.truncate(got);
    Ok(head)
}
