//! Hostile archives and files made in code (issue 29, section 1): what an
//! attacker would send to make Canopy's CPU work (an index, a match)
//! outlive its deadline. Shared by the engine's, `canopy-list`'s and
//! `canopy-mcp`'s tests (`#[path]`).
#![allow(dead_code)]

use std::fs;
use std::io::Write;
use std::path::Path;

/// The longest name a zip record holds.
pub const ZIP_NAME_MAX: usize = 65_535;

/// A zip whose central directory has `records` records, each naming a path
/// of one-letter folders `d<i>/a/a/.../f` of `name_bytes` bytes (about
/// `name_bytes / 2` folders, none shared with another record). Its data is
/// one empty stored entry that every record points at: only the directory
/// is read to list it.
pub fn deep_names_zip(path: &Path, records: usize, name_bytes: usize) {
    assert!(name_bytes <= ZIP_NAME_MAX);
    let mut out = Vec::new();
    // The one local header: "x", stored, empty.
    out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
    out.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    out.extend_from_slice(&[0; 12]);
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.push(b'x');
    let directory_at = out.len();
    for i in 0..records {
        let mut name = format!("d{i}/").into_bytes();
        while name.len() + 3 <= name_bytes {
            name.extend_from_slice(b"a/");
        }
        name.push(b'f');
        central_record(&mut out, &name, 0);
    }
    end_record(&mut out, records, directory_at);
    fs::write(path, out).unwrap();
}

/// A zip of `names` (each an empty stored file; a name ending in `/` a folder).
pub fn plain_zip(path: &Path, names: &[&str]) {
    let mut out = Vec::new();
    let mut offsets = Vec::new();
    for name in names {
        offsets.push(out.len() as u32);
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        out.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        out.extend_from_slice(&[0; 12]);
        out.extend_from_slice(&(name.len() as u16).to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(name.as_bytes());
    }
    let directory_at = out.len();
    for (name, at) in names.iter().zip(offsets) {
        central_record(&mut out, name.as_bytes(), at);
    }
    end_record(&mut out, names.len(), directory_at);
    fs::write(path, out).unwrap();
}

fn central_record(out: &mut Vec<u8>, name: &[u8], local: u32) {
    out.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
    // Made by and needed: version 2.0 (DOS attributes, no Unix mode).
    out.extend_from_slice(&[20, 0, 20, 0]);
    // Flags, method (stored), time, date, CRC, sizes.
    out.extend_from_slice(&[0; 20]);
    out.extend_from_slice(&(name.len() as u16).to_le_bytes());
    // Extra and comment lengths, disk, internal and external attributes.
    out.extend_from_slice(&[0; 12]);
    out.extend_from_slice(&local.to_le_bytes());
    out.extend_from_slice(name);
}

fn end_record(out: &mut Vec<u8>, records: usize, directory_at: usize) {
    let len = (out.len() - directory_at) as u32;
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    let n = records.min(0xFFFF) as u16;
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&(directory_at as u32).to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
}

/// A tar header block (GNU magic) for `name` (at most 100 bytes) of
/// `size` bytes and type `flag`, its checksum filled in.
pub fn tar_header(name: &[u8], size: u64, flag: u8) -> [u8; 512] {
    let mut h = [0u8; 512];
    h[..name.len()].copy_from_slice(name);
    h[100..108].copy_from_slice(b"0000644\0");
    h[108..116].copy_from_slice(b"0000000\0");
    h[116..124].copy_from_slice(b"0000000\0");
    h[124..136].copy_from_slice(format!("{size:011o}\0").as_bytes());
    h[136..148].copy_from_slice(b"00000000000\0");
    h[156] = flag;
    h[257..265].copy_from_slice(b"ustar  \0");
    h[148..156].copy_from_slice(b"        ");
    let sum: u64 = h.iter().map(|&b| u64::from(b)).sum();
    h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    h
}

fn padded(data: &[u8]) -> Vec<u8> {
    let mut v = data.to_vec();
    v.resize(data.len().div_ceil(512) * 512, 0);
    v
}

/// A plain tar of `entries` empty files, each given a GNU long name (`L`)
/// of `name_bytes` bytes (`<i>nnnn...`), then `last` (a short name,
/// holding `last`): an index that kept every name would hold all their bytes.
pub fn long_names_tar(path: &Path, entries: usize, name_bytes: usize, last: &str) {
    let mut f = std::io::BufWriter::new(fs::File::create(path).unwrap());
    for i in 0..entries {
        let mut data = format!("{i:04}").into_bytes();
        data.resize(name_bytes, b'n');
        data.push(0);
        f.write_all(&tar_header(b"././@LongLink", data.len() as u64, b'L'))
            .unwrap();
        f.write_all(&padded(&data)).unwrap();
        f.write_all(&tar_header(b"placeholder", 0, b'0')).unwrap();
    }
    f.write_all(&tar_header(last.as_bytes(), 4, b'0')).unwrap();
    f.write_all(&padded(b"last")).unwrap();
    f.write_all(&[0; 1024]).unwrap();
}

/// `bytes` of lines of `line_chars` `a`s: a pattern such as
/// `(?:a{1,100}){1,100}z` costs ripgrep's engine seconds on each line.
pub fn lines_of_a(path: &Path, bytes: usize, line_chars: usize) {
    let mut line = vec![b'a'; line_chars];
    line.push(b'\n');
    let text: Vec<u8> = line.iter().copied().cycle().take(bytes).collect();
    fs::write(path, text).unwrap();
}

/// The pattern of [`lines_of_a`].
pub const COSTLY_PATTERN: &str = "(?:a{1,100}){1,100}z";

/// A tar.gz whose first entry is `first`, then `flood` empty gzip members
/// (no output, and a decoder's work for each: its index is cut by time),
/// then `last`: each entry a name and its bytes.
pub fn flooded_tar_gz(path: &Path, first: (&str, &[u8]), flood: usize, last: (&str, &[u8])) {
    let entry = |(name, body): (&str, &[u8])| {
        let mut t = tar_header(name.as_bytes(), body.len() as u64, b'0').to_vec();
        t.extend_from_slice(&padded(body));
        t
    };
    let mut f = std::io::BufWriter::new(fs::File::create(path).unwrap());
    f.write_all(&gzip_member(&entry(first))).unwrap();
    let empty = gzip_member(b"");
    for _ in 0..flood {
        f.write_all(&empty).unwrap();
    }
    let mut tail = entry(last);
    tail.extend_from_slice(&[0; 1024]);
    f.write_all(&gzip_member(&tail)).unwrap();
}

/// One gzip member holding `data` in stored deflate blocks.
fn gzip_member(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    if data.is_empty() {
        out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    let mut blocks = data.chunks(0xFFFF).peekable();
    while let Some(block) = blocks.next() {
        out.push(u8::from(blocks.peek().is_none()));
        let len = block.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(block);
    }
    out.extend_from_slice(&crc32(data).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

fn crc32(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = (c >> 1) ^ (0xEDB8_8320 & (c & 1).wrapping_neg());
        }
    }
    !c
}
