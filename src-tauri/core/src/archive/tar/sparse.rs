//! Sparse files in a tar, as GNU tar writes them: the data of each run
//! (offset, length) stored one after another, the holes between them left
//! out, and a map saying where each run belongs. The map is in the header
//! and its extension blocks (old GNU, type `S`), in pax records (0.0:
//! `GNU.sparse.offset`/`numbytes`; 0.1: `GNU.sparse.map`) or in decimal
//! lines at the start of the data (1.0). The entry's size is its real
//! (logical) size, as bsdtar and GNU tar list it; its bytes read as the runs
//! with zeros between them.
//!
//! A map is read to at most `max` bytes (the largest extended header read),
//! and one that contradicts itself or the entry (runs out of order or past
//! the real size, more or fewer bytes than stored) is the entry's problem:
//! it is listed, never read.
#![forbid(unsafe_code)]

use std::io::{self, Read};
use std::sync::Arc;

use super::header::octal;
use crate::archive::corrupt_error;
use crate::error::{CanopyError, ErrorCode};

/// Runs an old GNU header holds (the rest are in extension blocks).
const HEADER_RUNS: usize = 4;
/// Runs an old GNU extension block holds.
const EXTENSION_RUNS: usize = 21;
/// Where an old GNU header's runs, its "extended" flag and its real size lie.
const HEADER_MAP: usize = 386;
const HEADER_EXTENDED: usize = 482;
const HEADER_REAL_SIZE: std::ops::Range<usize> = 483..495;
/// Where an extension block's "another block follows" flag lies.
const EXTENSION_EXTENDED: usize = 504;

fn too_large(max: u64) -> CanopyError {
    CanopyError::new(
        ErrorCode::TooLarge,
        format!(
            "its sparse map is larger than the {} KiB Canopy reads: listed, not read",
            max >> 10
        ),
    )
}

/// Old GNU runs: 24-byte (offset, length) fields, up to the first empty one.
fn old_gnu_runs(
    fields: &[u8],
    count: usize,
    runs: &mut Vec<(u64, u64)>,
) -> Result<(), CanopyError> {
    for field in fields.chunks_exact(24).take(count) {
        if field[12] == 0 {
            break;
        }
        match (octal(&field[..12]), octal(&field[12..])) {
            (Some(offset), Some(len)) => runs.push((offset, len)),
            _ => {
                return Err(corrupt_error(
                    "its sparse map holds a field that is not a number",
                ))
            }
        }
    }
    Ok(())
}

/// An old GNU sparse header (`S`): its runs into `runs`, its real size,
/// and whether an extension block follows (told even when the map is bad,
/// so that the blocks are passed over).
pub(super) fn old_gnu_header(
    h: &[u8; 512],
    runs: &mut Vec<(u64, u64)>,
) -> (Result<u64, CanopyError>, bool) {
    let real = old_gnu_runs(&h[HEADER_MAP..HEADER_EXTENDED], HEADER_RUNS, runs).and_then(|()| {
        octal(&h[HEADER_REAL_SIZE])
            .ok_or_else(|| corrupt_error("its real size (sparse) is not a number"))
    });
    (real, h[HEADER_EXTENDED] != 0)
}

/// Whether another extension block follows this one.
pub(super) fn extension_continues(block: &[u8; 512]) -> bool {
    block[EXTENSION_EXTENDED] != 0
}

/// An old GNU extension block's runs into `runs` (refused once the map is
/// past `max` bytes: `blocks_read` blocks so far).
pub(super) fn old_gnu_extension(
    block: &[u8; 512],
    runs: &mut Vec<(u64, u64)>,
    blocks_read: u64,
    max: u64,
) -> Result<(), CanopyError> {
    if blocks_read * 512 > max {
        return Err(too_large(max));
    }
    old_gnu_runs(&block[..EXTENSION_EXTENDED], EXTENSION_RUNS, runs)
}

/// Pax 0.0 and 0.1: the numbers of the records, paired; `blocks` is what
/// `GNU.sparse.numblocks` says.
pub(super) fn pax_runs(
    numbers: &[u64],
    blocks: Option<u64>,
) -> Result<Vec<(u64, u64)>, CanopyError> {
    if !numbers.len().is_multiple_of(2) {
        return Err(corrupt_error(
            "its sparse map has an offset without a length",
        ));
    }
    let runs: Vec<(u64, u64)> = numbers.chunks_exact(2).map(|p| (p[0], p[1])).collect();
    if blocks.is_some_and(|b| b != runs.len() as u64) {
        return Err(corrupt_error(
            "its sparse map holds another number of runs than it says",
        ));
    }
    Ok(runs)
}

/// Pax 1.0: the map in decimal lines at the start of the data (a count,
/// then an offset and a length per run), in whole blocks. `next` gives the
/// data's next block; `data_len` is the whole data's. The runs, and the
/// bytes of data the map took.
pub(super) fn map_in_data(
    mut next: impl FnMut(&mut [u8; 512]) -> Result<(), CanopyError>,
    data_len: u64,
    max: u64,
) -> Result<(Vec<(u64, u64)>, u64), CanopyError> {
    let mut text = Vec::new();
    let mut block = [0u8; 512];
    let mut numbers: Vec<u64> = Vec::new();
    let mut count: Option<u64> = None;
    let mut line_start = 0;
    loop {
        if count.is_some_and(|c| numbers.len() as u64 == c * 2) {
            let runs = numbers.chunks_exact(2).map(|p| (p[0], p[1])).collect();
            return Ok((runs, text.len() as u64));
        }
        // Each block of the map is read whole; a line may run on into the next.
        if let Some(end) = text[line_start..].iter().position(|&b| b == b'\n') {
            let line = &text[line_start..line_start + end];
            let n = std::str::from_utf8(line)
                .ok()
                .filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|t| t.parse::<u64>().ok())
                .ok_or_else(|| {
                    corrupt_error("its sparse map (1.0) holds a line that is not a number")
                })?;
            line_start += end + 1;
            match count {
                // Every run takes at least 4 bytes of text: a count past that lies.
                None if n > max / 4 => return Err(too_large(max)),
                None => count = Some(n),
                Some(_) => numbers.push(n),
            }
            continue;
        }
        if text.len() as u64 + 512 > data_len {
            return Err(corrupt_error("its sparse map (1.0) runs past its data"));
        }
        if text.len() as u64 + 512 > max {
            return Err(too_large(max));
        }
        next(&mut block)?;
        text.extend_from_slice(&block);
    }
}

/// Checks the runs against the entry: in order, apart, inside the real size,
/// and holding exactly the bytes stored.
pub(super) fn check(runs: &[(u64, u64)], real_size: u64, stored: u64) -> Result<(), CanopyError> {
    let mut end = 0u64;
    let mut total = 0u64;
    for &(offset, len) in runs {
        let run_end = offset.checked_add(len);
        if offset < end || run_end.is_none_or(|e| e > real_size) {
            return Err(corrupt_error(
                "its sparse map has runs out of order, overlapping or past its size",
            ));
        }
        end = run_end.unwrap_or(end);
        total = total.saturating_add(len);
    }
    if total != stored {
        return Err(corrupt_error(format!(
            "its sparse map says {total} bytes of data, the entry stores {stored}"
        )));
    }
    Ok(())
}

/// The stored bytes that come before logical offset `offset`.
pub(crate) fn stored_before(runs: &[(u64, u64)], offset: u64) -> u64 {
    runs.iter()
        .map(|&(o, len)| offset.saturating_sub(o).min(len))
        .sum()
}

/// The logical bytes of a sparse file from `pos`: `inner` gives its stored
/// bytes from there on; holes read as zeros.
pub(crate) struct Holes<R: Read> {
    inner: R,
    runs: Arc<[(u64, u64)]>,
    run: usize,
    pos: u64,
    size: u64,
}

impl<R: Read> Holes<R> {
    pub fn new(inner: R, runs: Arc<[(u64, u64)]>, pos: u64, size: u64) -> Self {
        Holes {
            inner,
            runs,
            run: 0,
            pos,
            size,
        }
    }
}

impl<R: Read> Read for Holes<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let want = (buf.len() as u64).min(self.size.saturating_sub(self.pos));
        if want == 0 {
            return Ok(0);
        }
        while self
            .runs
            .get(self.run)
            .is_some_and(|&(o, len)| o + len <= self.pos)
        {
            self.run += 1;
        }
        let n = match self.runs.get(self.run) {
            Some(&(offset, len)) if self.pos >= offset => {
                let n = want.min(offset + len - self.pos) as usize;
                let got = self.inner.read(&mut buf[..n])?;
                if got == 0 {
                    return Err(crate::archive::corrupt(
                        "the sparse file's data ends before its map says",
                    ));
                }
                got
            }
            Some(&(offset, _)) => zeros(buf, want.min(offset - self.pos)),
            None => zeros(buf, want),
        };
        self.pos += n as u64;
        Ok(n)
    }
}

fn zeros(buf: &mut [u8], n: u64) -> usize {
    let n = n as usize;
    buf[..n].fill(0);
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holes_read_as_zeros_between_the_runs_from_any_offset() {
        let runs: Arc<[(u64, u64)]> = vec![(2, 3), (8, 2), (12, 0)].into();
        let stored = b"abcde";
        let want = b"\0\0abc\0\0\0de\0\0";
        for from in 0..=want.len() {
            let skip = stored_before(&runs, from as u64) as usize;
            let mut out = Vec::new();
            Holes::new(&stored[skip..], runs.clone(), from as u64, 12)
                .read_to_end(&mut out)
                .unwrap();
            assert_eq!(out, want[from..], "from {from}");
        }
    }

    #[test]
    fn a_map_that_lies_is_refused() {
        assert!(check(&[(0, 2), (4, 2)], 6, 4).is_ok());
        assert!(check(&[(4, 2), (0, 2)], 6, 4).is_err(), "out of order");
        assert!(check(&[(0, 3), (2, 2)], 6, 5).is_err(), "overlapping");
        assert!(check(&[(0, 2), (5, 2)], 6, 4).is_err(), "past the size");
        assert!(check(&[(u64::MAX, 2)], u64::MAX, 2).is_err(), "overflowing");
        assert!(check(&[(0, 2)], 6, 3).is_err(), "fewer bytes than stored");
    }
}
