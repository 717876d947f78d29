//! The bytes an archive is read from: a file of the wrapped source, a
//! stored entry of an outer archive (read in place, as a window onto the
//! outer archive's bytes), or a compressed entry read into memory once.
#![forbid(unsafe_code)]

use std::io;
use std::sync::Arc;

use crate::source::{FileStamp, SourceFile};

pub enum Blob<F: SourceFile> {
    Whole(F),
    Window {
        outer: Arc<Blob<F>>,
        start: u64,
        len: u64,
    },
    Memory(Arc<[u8]>),
}

impl<F: SourceFile> SourceFile for Blob<F> {
    fn size(&self) -> u64 {
        match self {
            Blob::Whole(f) => f.size(),
            Blob::Window { len, .. } => *len,
            Blob::Memory(bytes) => bytes.len() as u64,
        }
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        match self {
            Blob::Whole(f) => f.read_at(buf, offset),
            Blob::Window { outer, start, len } => {
                let left = len.saturating_sub(offset);
                let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
                if want == 0 {
                    return Ok(0);
                }
                outer.read_at(&mut buf[..want], start + offset)
            }
            Blob::Memory(bytes) => {
                let Ok(at) = usize::try_from(offset) else {
                    return Ok(0);
                };
                let Some(rest) = bytes.get(at..) else {
                    return Ok(0);
                };
                let n = rest.len().min(buf.len());
                buf[..n].copy_from_slice(&rest[..n]);
                Ok(n)
            }
        }
    }

    fn stamp(&self) -> Option<FileStamp> {
        match self {
            Blob::Whole(f) => f.stamp(),
            Blob::Window { .. } | Blob::Memory(_) => None,
        }
    }
}
