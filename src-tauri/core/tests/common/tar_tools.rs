//! What the real tar tools say an archive holds (`bsdtar -tvf`, GNU
//! `tar -tvf`), and what Canopy says, in one form to compare: each entry by
//! its path's bytes, with its kind, its size (files) and its link target.
//!
//! A hard link (`h` in `tar -tv`, "link to TARGET") is a file whose link is
//! its target as written; its size is that of the file of that path listed
//! before it (the file one gets by extracting it; `tar -tv` prints the
//! header's size field, 0, which stays when there is no such file).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use canopy_core::names::decode_handle;
use canopy_core::wire::{EntryKind, Folder, ListSettings};
use canopy_core::{list, ListCall, LocalFs, WithArchives};

/// An entry as listed: kind, size (files only), link target.
pub type Shown = (EntryKind, Option<u64>, Option<Vec<u8>>);
/// Every entry of an archive, by its path below the archive.
pub type Listed = BTreeMap<Vec<u8>, Shown>;

/// `\\`, `\t`, `\n` and `\ooo` as both tools print them, back to bytes.
fn unescape(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let (byte, width) = match (text[i], text.get(i + 1)) {
            (b'\\', Some(b'\\')) => (b'\\', 2),
            (b'\\', Some(b't')) => (b'\t', 2),
            (b'\\', Some(b'n')) => (b'\n', 2),
            (b'\\', Some(d)) if d.is_ascii_digit() && i + 4 <= text.len() => {
                let octal = std::str::from_utf8(&text[i + 1..i + 4]).unwrap();
                (u8::from_str_radix(octal, 8).unwrap(), 4)
            }
            (b, _) => (b, 1),
        };
        out.push(byte);
        i += width;
    }
    out
}

/// A path as written, without the `./` before it and the `/` after a folder's.
fn plain(mut path: &[u8]) -> Vec<u8> {
    while let Some(rest) = path.strip_prefix(b"./") {
        path = rest;
    }
    path.strip_suffix(b"/").unwrap_or(path).to_vec()
}

/// Splits `n` space-separated fields off `line`: the fields and the rest.
fn fields(line: &[u8], n: usize) -> (Vec<&[u8]>, &[u8]) {
    let mut rest = line;
    let mut out = Vec::new();
    for _ in 0..n {
        let start = rest.iter().position(|&b| b != b' ').unwrap_or(rest.len());
        rest = &rest[start..];
        let end = rest.iter().position(|&b| b == b' ').unwrap_or(rest.len());
        out.push(&rest[..end]);
        rest = &rest[end..];
    }
    (out, rest.strip_prefix(b" ").unwrap_or(rest))
}

fn split_once<'a>(text: &'a [u8], sep: &[u8]) -> Option<(&'a [u8], &'a [u8])> {
    let at = text.windows(sep.len()).position(|w| w == sep)?;
    Some((&text[..at], &text[at + sep.len()..]))
}

/// One line of `tar -tv` after its fixed fields: mode letter, size text,
/// and the rest (path, and a link's target). `before` holds what the lines
/// before it listed: a hard link's size is the one its target had there.
fn entry_of(mode: u8, size: &[u8], rest: &[u8], out: &mut Listed, before: &mut Listed) {
    let (name, link) = match mode {
        b'l' => {
            let (n, t) = split_once(rest, b" -> ").expect("a symlink line has a target");
            (n, Some(unescape(t)))
        }
        b'h' => {
            let (n, t) = split_once(rest, b" link to ").expect("a hard link line has a target");
            (n, Some(unescape(t)))
        }
        _ => (rest, None),
    };
    let kind = match mode {
        b'd' => EntryKind::Folder,
        b'l' => EntryKind::Symlink,
        b'p' => EntryKind::Fifo,
        b'c' => EntryKind::CharDevice,
        b'b' => EntryKind::BlockDevice,
        _ => EntryKind::File,
    };
    let mut size = (kind == EntryKind::File)
        .then(|| std::str::from_utf8(size).unwrap().parse::<u64>().unwrap());
    if mode == b'h' {
        // The file it has is the last one of that path before it.
        let target = plain(link.as_deref().unwrap_or_default());
        if let Some((EntryKind::File, Some(linked), _)) = before.get(&target) {
            size = Some(*linked);
        }
    }
    let path = plain(&unescape(name));
    if path.is_empty() {
        return;
    }
    before.insert(path.clone(), (kind, size, link.clone()));
    out.insert(path, (kind, size, link));
}

fn run(program: &str, archive: &Path) -> std::process::Output {
    Command::new(program)
        .arg("-tvf")
        .arg(archive)
        .env("LC_ALL", "C.UTF-8")
        .env("TZ", "UTC")
        .output()
        .unwrap_or_else(|e| panic!("{program} runs (bsdtar: libarchive-tools): {e}"))
}

/// What `bsdtar -tvf` lists (it must succeed).
pub fn bsdtar(archive: &Path) -> Listed {
    let out = run("bsdtar", archive);
    assert!(
        out.status.success(),
        "bsdtar {}: {}",
        archive.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let (mut listed, mut before) = (Listed::new(), Listed::new());
    for line in out.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        // -rw-r--r--  0 user group  5 Dec  1 12:00 path[ -> target | link to target]
        let (f, rest) = fields(line, 8);
        entry_of(f[0][0], f[4], rest, &mut listed, &mut before);
    }
    listed
}

/// What GNU `tar -tvf` lists, and whether it exited with success (it lists
/// on past an entry it reports, and fails at the end).
pub fn gnu_tar(archive: &Path) -> (Listed, bool, String) {
    let out = run("tar", archive);
    let (mut listed, mut before) = (Listed::new(), Listed::new());
    for line in out.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        // -rw-r--r-- user/group  5 2023-11-14 22:13 path[ -> target | link to target]
        let (f, rest) = fields(line, 5);
        entry_of(f[0][0], f[2], rest, &mut listed, &mut before);
    }
    (
        listed,
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// What Canopy lists of `archive`, every level, by each entry's handle.
pub fn canopy(archive: &Path) -> Listed {
    let settings = ListSettings {
        depth: 32,
        cap: 10_000,
        limit: 10_000,
        show_dotfiles: true,
        ..ListSettings::default()
    };
    let call = ListCall {
        whole_top_level: true,
        details: true,
        handles: true,
        ..ListCall::default()
    };
    let listing = list(
        &WithArchives::new(LocalFs::new()),
        archive,
        &settings,
        &call,
    )
    .unwrap_or_else(|e| panic!("{}: {e}", archive.display()));
    let mut out = Listed::new();
    let top = listing.root.folder.as_deref().expect("the archive is read");
    flatten(top, archive, &mut out);
    out
}

fn flatten(f: &Folder, archive: &Path, out: &mut Listed) {
    use std::os::unix::ffi::OsStrExt;
    for e in &f.entries {
        let path = decode_handle(&e.handle).unwrap();
        let below = path
            .strip_prefix(archive)
            .expect("inside the archive")
            .as_os_str()
            .as_bytes()
            .to_vec();
        let size = e.size.filter(|_| e.kind == EntryKind::File);
        let link = e.link.as_ref().map(|l| l.target.clone().into_bytes());
        out.insert(below, (e.kind, size, link));
        if let Some(sub) = e.folder.as_deref().filter(|s| s.children_loaded) {
            flatten(sub, archive, out);
        }
    }
}

/// Canopy lists every entry `theirs` lists, as they list it; past those,
/// only the folders a path implies (a tar lister shows entries only).
pub fn assert_lists_as(ours: &Listed, theirs: &Listed, what: &str) {
    let show = |p: &[u8]| String::from_utf8_lossy(p).into_owned();
    for (path, want) in theirs {
        let got = ours.get(path).unwrap_or_else(|| {
            panic!(
                "{what}: the tool lists {}, Canopy does not; Canopy lists {:?}",
                show(path),
                ours.keys().map(|k| show(k)).collect::<Vec<_>>()
            )
        });
        assert_eq!(got, want, "{what}: {} (kind, size, link)", show(path));
    }
    for (path, (kind, _, _)) in ours {
        if !theirs.contains_key(path) {
            assert_eq!(
                *kind,
                EntryKind::Folder,
                "{what}: {} is not in the archive",
                show(path)
            );
            let mut prefix = path.clone();
            prefix.push(b'/');
            assert!(
                theirs.keys().any(|k| k.starts_with(&prefix)),
                "{what}: the folder {} holds nothing",
                show(path)
            );
        }
    }
}

/// Asserts two byte strings are equal, saying where they part (never
/// printing thousands of bytes).
pub fn assert_same_bytes(got: &[u8], want: &[u8], what: &str) {
    if got == want {
        return;
    }
    let at = got
        .iter()
        .zip(want)
        .position(|(a, b)| a != b)
        .unwrap_or(got.len().min(want.len()));
    let around = |b: &[u8]| b[at.min(b.len())..(at + 16).min(b.len())].to_vec();
    panic!(
        "{what}: {} bytes read, {} wanted; they part at byte {at}: {:?} where {:?} was wanted",
        got.len(),
        want.len(),
        around(got),
        around(want)
    );
}
