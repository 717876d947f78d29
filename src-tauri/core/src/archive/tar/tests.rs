//! The indexing pass, counted in the work it does: the bytes it reads of a
//! compressed tar, the paths it looks up to resolve hard links.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::archive::blob::Blob;
use crate::archive::folder::ArchiveFolder;
use crate::archive::Archive;
use crate::source::{SourceFile, SourceFolder};
use crate::wire::ArchiveFormat;

/// A file in memory that counts the bytes read from it.
struct Counted {
    bytes: Vec<u8>,
    read: Arc<AtomicU64>,
}

impl SourceFile for Counted {
    fn size(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
        let rest = self.bytes.get(offset as usize..).unwrap_or_default();
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

fn member(name: &str, data: &[u8], out: &mut Vec<u8>) {
    entry(name, b'0', "", data, out);
}

fn entry(name: &str, flag: u8, link: &str, data: &[u8], out: &mut Vec<u8>) {
    let mut h = [0u8; 512];
    h[..name.len()].copy_from_slice(name.as_bytes());
    h[100..108].copy_from_slice(b"0000644\0");
    h[124..136].copy_from_slice(format!("{:011o}\0", data.len()).as_bytes());
    h[136..148].copy_from_slice(b"00000000000\0");
    h[156] = flag;
    h[157..157 + link.len()].copy_from_slice(link.as_bytes());
    h[257..265].copy_from_slice(b"ustar\x0000");
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
    h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    out.extend_from_slice(&h);
    out.extend_from_slice(data);
    out.resize(out.len().next_multiple_of(512), 0);
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(data).unwrap();
    gz.finish().unwrap()
}

/// Bytes that do not compress (xorshift), so that decompressing past them
/// reads the file's bytes again.
fn noise(len: usize) -> Vec<u8> {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

#[test]
fn archives_inside_a_compressed_tar_are_told_and_opened_from_the_one_indexing_pass() {
    let mut inner = Vec::new();
    member("inside.txt", b"from the inner tar\n", &mut inner);
    inner.extend_from_slice(&[0; 1024]);
    let empty_zip = [&b"PK\x05\x06"[..], &[0; 18]].concat();
    let mut tar = Vec::new();
    member("big.bin", &noise(2 << 20), &mut tar);
    let mut names = Vec::new();
    for i in 0..8 {
        let name = format!("fixtures/n{i}.zip");
        member(&name, &empty_zip, &mut tar);
        names.push((format!("n{i}.zip"), Some(ArchiveFormat::Zip)));
        let fake = format!("fixtures/fake{i}.tar.gz");
        member(&fake, b"named like an archive, it is text", &mut tar);
        names.push((format!("fake{i}.tar.gz"), None));
    }
    member("fixtures/inner.tar.gz", &gzip(&inner), &mut tar);
    names.push(("inner.tar.gz".into(), Some(ArchiveFormat::TarGz)));
    tar.extend_from_slice(&[0; 1024]);
    let packed = gzip(&tar);
    let size = packed.len() as u64;
    let read = Arc::new(AtomicU64::new(0));
    let file = Counted {
        bytes: packed,
        read: read.clone(),
    };
    let archive = Arc::new(Archive::open(Blob::Whole(file), ArchiveFormat::TarGz).unwrap());
    assert_eq!(
        read.load(Ordering::Relaxed),
        size,
        "the index reads the file once"
    );
    let fixtures = archive.tree.subfolder(0, b"fixtures").unwrap();
    let folder = ArchiveFolder::new(archive.clone(), fixtures);
    for (name, want) in &names {
        let format = folder.archive_format(name.as_bytes()).unwrap();
        assert_eq!(format, *want, "{name}");
    }
    let inner_record = folder.record_named(b"inner.tar.gz").unwrap().unwrap();
    let opened = archive.open_nested(inner_record, b"inner.tar.gz").unwrap();
    let mut text = vec![0; 100];
    let record = opened.tree.records(0)[0];
    let n = opened
        .member(record)
        .unwrap()
        .read_full_at(&mut text, 0)
        .unwrap();
    assert_eq!(&text[..n], b"from the inner tar\n");
    assert_eq!(
        read.load(Ordering::Relaxed),
        size,
        "telling {} entries named like archives and opening one read the tar no more",
        names.len()
    );
}

#[test]
fn hard_links_are_resolved_with_one_lookup_each_however_long_they_chain() {
    // Each names the one after it (an entry that comes later), the last the
    // first: one cycle through every link.
    const LINKS: usize = 20_000;
    let mut tar = Vec::new();
    for i in 0..LINKS {
        let next = format!("c{}", (i + 1) % LINKS);
        entry(&format!("c{i}"), b'1', &next, b"", &mut tar);
    }
    tar.extend_from_slice(&[0; 1024]);
    let file = Arc::new(Counted {
        bytes: tar,
        read: Arc::new(AtomicU64::new(0)),
    });
    super::links::LOOKUPS.with(|n| n.set(0));
    let (_, idx, _) = super::index(&file, crate::archive::decode::Codec::Stored).unwrap();
    assert_eq!(
        super::links::LOOKUPS.with(|n| n.get()),
        LINKS,
        "one lookup a link"
    );
    for loc in 0..LINKS as u32 {
        let hard = idx.hard_link(loc).unwrap();
        let err = hard.to.unwrap_err();
        assert_eq!(err.code, crate::error::ErrorCode::Loop, "link {loc}: {err}");
    }
}

#[test]
fn hard_links_are_resolved_in_a_bounded_number_of_steps_however_many_entries_share_their_path() {
    // A hostile tar: one file `a`, then links named `h…` to it, then
    // files named `a` again, then links that are themselves named `a` and
    // name `a` (each the one before it). Walking a path's entries one by
    // one to find "the last one before the link" is quadratic here.
    const LINKS: usize = 3_000;
    let mut tar = Vec::new();
    member("a", b"x", &mut tar);
    for i in 0..LINKS {
        entry(&format!("h{i}"), b'1', "a", b"", &mut tar);
    }
    for _ in 0..LINKS {
        member("a", b"y", &mut tar);
    }
    for _ in 0..LINKS {
        entry("a", b'1', "a", b"", &mut tar);
    }
    tar.extend_from_slice(&[0; 1024]);
    let file = Arc::new(Counted {
        bytes: tar,
        read: Arc::new(AtomicU64::new(0)),
    });
    super::links::STEPS.with(|n| n.set(0));
    let (_, idx, _) = super::index(&file, crate::archive::decode::Codec::Stored).unwrap();
    let steps = super::links::STEPS.with(|n| n.get());
    let links = 2 * LINKS;
    assert!(
        steps <= links * 32,
        "{steps} steps over entries for {links} links: at most a binary search each"
    );
    // What each leads to is what bsdtar extracts: the `h` links the first
    // `a`, the later links the last file `a` (through the links before them).
    for loc in 1..=LINKS as u32 {
        assert_eq!(idx.hard_link(loc).unwrap().to.unwrap(), 0, "link {loc}");
    }
    let last_file = 2 * LINKS as u32;
    for loc in last_file + 1..=last_file + LINKS as u32 {
        assert_eq!(
            idx.hard_link(loc).unwrap().to.unwrap(),
            last_file,
            "link {loc}"
        );
    }
}

#[test]
fn a_hard_link_longer_than_a_symlink_target_is_kept_leads_to_the_entry_it_names() {
    use crate::limits::ARCHIVE_LINK_MAX;
    // Two files whose paths differ only past `ARCHIVE_LINK_MAX` bytes, and
    // a hard link to the longer: cut there, it would name the shorter and
    // read its bytes (bsdtar extracts the longer's).
    let short = format!("p/{}", "a".repeat(ARCHIVE_LINK_MAX - 2));
    let long = format!("p/{}", "a".repeat(ARCHIVE_LINK_MAX + 900));
    // Long paths go in GNU `L` and `K` records, as GNU tar writes them.
    let record = |path: &str| [path.as_bytes(), b"\0"].concat();
    let mut tar = Vec::new();
    entry("././@LongLink", b'L', "", &record(&short), &mut tar);
    member("placeholder", b"the wrong file\n", &mut tar);
    entry("././@LongLink", b'L', "", &record(&long), &mut tar);
    member("placeholder", b"the right file\n", &mut tar);
    entry("././@LongLink", b'K', "", &record(&long), &mut tar);
    entry("hl", b'1', "", b"", &mut tar);
    tar.extend_from_slice(&[0; 1024]);
    let file = Arc::new(Counted {
        bytes: tar,
        read: Arc::new(AtomicU64::new(0)),
    });
    let (_, idx, _) = super::index(&file, crate::archive::decode::Codec::Stored).unwrap();
    assert_eq!(
        idx.hard_link(2).unwrap().to.unwrap(),
        1,
        "the link has the longer path's bytes"
    );
    assert_eq!(
        idx.link(&idx.members[2]),
        Some(long.as_bytes()),
        "its target is named whole"
    );
}

#[test]
fn a_symlink_target_longer_than_a_system_takes_is_refused_never_shown_cut() {
    use crate::limits::ARCHIVE_LINK_MAX;
    // bsdtar lists such a link with its whole target; a system cannot make
    // it. Shown cut, the entry would tell a target that is not its own.
    let at_most = "b".repeat(ARCHIVE_LINK_MAX);
    let longer = "b".repeat(ARCHIVE_LINK_MAX + 1);
    let record = |path: &str| [path.as_bytes(), b"\0"].concat();
    let mut tar = Vec::new();
    entry("././@LongLink", b'K', "", &record(&at_most), &mut tar);
    entry("fits", b'2', "", b"", &mut tar);
    entry("././@LongLink", b'K', "", &record(&longer), &mut tar);
    entry("long", b'2', "", b"", &mut tar);
    tar.extend_from_slice(&[0; 1024]);
    let file = Counted {
        bytes: tar,
        read: Arc::new(AtomicU64::new(0)),
    };
    let archive = Arc::new(Archive::open(Blob::Whole(file), ArchiveFormat::Tar).unwrap());
    let root = ArchiveFolder::new(archive, 0);
    assert_eq!(root.read_link(b"fits").unwrap(), at_most.as_bytes());
    let err = root.read_link(b"long").unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::ENAMETOOLONG), "{err}");
}
