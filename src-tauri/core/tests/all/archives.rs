//! Archives opened like folders: every format listed and previewed in
//! place, compared with `bsdtar -tvf` (libarchive), and every hostile case
//! of issue 18 (bombs, truncation, unsafe names, false claims, encryption,
//! a fifo named like an archive) giving its code on the entry while the
//! rest of the listing stands. The archives are made here, by Python's
//! zipfile/tarfile and the system's compressors.

use crate::common;

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use canopy_core::names::decode_handle;
use canopy_core::wire::{
    ArchiveFormat, Entry, EntryKind, ErrorCode, Folder, ListSettings, Listing,
};
use canopy_core::{list, preview, ListCall, LocalFs, WithArchives};
use common::tar_tools::{assert_lists_as, bsdtar, canopy};

fn text(p: canopy_core::wire::PreviewChunk) -> Option<String> {
    match p.content {
        canopy_core::wire::PreviewContent::Text { text, .. } => Some(text),
        canopy_core::wire::PreviewContent::Binary { .. } => None,
    }
}

fn source() -> WithArchives<LocalFs> {
    WithArchives::new(LocalFs::new())
}

/// Runs a Python script with `dir` as its working folder.
fn python(dir: &Path, script: &str) {
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "python failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn sh(dir: &Path, script: &str) {
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .output()
        .expect("sh runs");
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn everything(depth: u32) -> (ListSettings, ListCall) {
    let settings = ListSettings {
        depth,
        cap: 10_000,
        limit: 10_000,
        show_dotfiles: true,
        ..ListSettings::default()
    };
    (
        settings,
        ListCall {
            whole_top_level: true,
            details: true,
            ..ListCall::default()
        },
    )
}

fn list_all(path: &Path) -> Listing {
    let (settings, call) = everything(32);
    list(&source(), path, &settings, &call).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn root_folder(l: &Listing) -> &Folder {
    l.root.folder.as_deref().expect("the root is read")
}

fn entry<'a>(f: &'a Folder, name: &str) -> &'a Entry {
    f.entries
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| {
            panic!(
                "no {name} in {:?}",
                f.entries.iter().map(|e| &e.name).collect::<Vec<_>>()
            )
        })
}

/// A corpus of ordinary archives, every format, with long names, folders
/// only implied by paths, an explicit empty folder, a symlink and sizes.
fn corpus(dir: &Path) -> Vec<PathBuf> {
    python(
        dir,
        r#"
import zipfile, tarfile, io, os, stat
files = {
    'readme.txt': b'hello archive\n' * 40,
    'src/main.rs': b'fn main() {}\n',
    'src/deep/er/still/x.bin': bytes(range(256)) * 10,
    'docs/' + 'long-name-' * 12 + '.md': b'# a name past 100 bytes\n',
    'empty.txt': b'',
    'caf\u00e9/na\u00efve.txt': 'unicode'.encode(),
}
for name, method in [('deflate.zip', zipfile.ZIP_DEFLATED), ('stored.zip', zipfile.ZIP_STORED),
                     ('bzip2.zip', zipfile.ZIP_BZIP2), ('lzma.zip', zipfile.ZIP_LZMA)]:
    with zipfile.ZipFile(name, 'w', method) as z:
        for n, data in files.items():
            z.writestr(n, data)
        z.writestr(zipfile.ZipInfo('emptydir/'), b'')
        link = zipfile.ZipInfo('link-to-readme')
        link.create_system = 3
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        z.writestr(link, 'readme.txt')
with zipfile.ZipFile('zip64.zip', 'w', zipfile.ZIP_DEFLATED) as z:
    for n, data in files.items():
        with z.open(n, 'w', force_zip64=True) as f:
            f.write(data)
def tar_into(t):
    for n, data in files.items():
        ti = tarfile.TarInfo(n); ti.size = len(data); ti.mtime = 1700000000
        t.addfile(ti, io.BytesIO(data))
    ti = tarfile.TarInfo('emptydir'); ti.type = tarfile.DIRTYPE; t.addfile(ti)
    ti = tarfile.TarInfo('link-to-readme'); ti.type = tarfile.SYMTYPE; ti.linkname = 'readme.txt'; t.addfile(ti)
    ti = tarfile.TarInfo('hard-readme'); ti.type = tarfile.LNKTYPE; ti.linkname = 'readme.txt'; t.addfile(ti)
for name, mode, fmt in [('gnu.tar', 'w', tarfile.GNU_FORMAT), ('pax.tar', 'w', tarfile.PAX_FORMAT),
                        ('t.tar.gz', 'w:gz', tarfile.PAX_FORMAT), ('t.tar.bz2', 'w:bz2', tarfile.GNU_FORMAT),
                        ('t.tar.xz', 'w:xz', tarfile.PAX_FORMAT)]:
    with tarfile.open(name, mode, format=fmt) as t:
        tar_into(t)
"#,
    );
    sh(dir, "zstd -q -19 pax.tar -o t.tar.zst");
    [
        "deflate.zip",
        "stored.zip",
        "bzip2.zip",
        "lzma.zip",
        "zip64.zip",
        "gnu.tar",
        "pax.tar",
        "t.tar.gz",
        "t.tar.bz2",
        "t.tar.xz",
        "t.tar.zst",
    ]
    .iter()
    .map(|n| dir.join(n))
    .collect()
}

#[test]
fn every_format_lists_the_same_names_kinds_sizes_and_link_targets_as_bsdtar() {
    let t = tempfile::tempdir().unwrap();
    for archive in corpus(t.path()) {
        let theirs = bsdtar(&archive);
        assert_lists_as(&canopy(&archive), &theirs, &archive.display().to_string());
        assert!(theirs.len() >= 6, "{}: {theirs:?}", archive.display());
    }
}

#[test]
fn a_file_inside_every_format_previews_its_exact_bytes_and_folders_are_refused() {
    let t = tempfile::tempdir().unwrap();
    for archive in corpus(t.path()) {
        let p = preview(&source(), &archive.join("readme.txt"), 0, 1 << 20)
            .unwrap_or_else(|e| panic!("{}: {e}", archive.display()));
        assert_eq!(
            text(p).as_deref(),
            Some("hello archive\n".repeat(40).as_str()),
            "{}",
            archive.display()
        );
        // From an offset, as "Load more" asks: the bytes that are there.
        let later = preview(
            &source(),
            &archive.join("src/deep/er/still/x.bin"),
            2000,
            16,
        )
        .unwrap();
        assert_eq!(later.offset, 2000, "{}", archive.display());
        let canopy_core::wire::PreviewContent::Binary { base64 } = &later.content else {
            panic!("x.bin is binary")
        };
        let want: Vec<u8> = (2000..2016).map(|i| (i % 256) as u8).collect();
        use base64::Engine;
        assert_eq!(
            base64::engine::general_purpose::STANDARD
                .decode(base64)
                .unwrap(),
            want,
            "{}",
            archive.display()
        );
        let folder = preview(&source(), &archive.join("src"), 0, 100).unwrap_err();
        assert_eq!(folder.code, ErrorCode::NotAFile, "{}", archive.display());
        let missing = preview(&source(), &archive.join("src/nope.rs"), 0, 100).unwrap_err();
        assert_eq!(missing.code, ErrorCode::NotFound, "{}", archive.display());
    }
}

#[test]
fn a_folder_of_archives_shows_them_as_archives_by_their_bytes_and_never_by_name_alone() {
    let t = tempfile::tempdir().unwrap();
    corpus(t.path());
    std::fs::write(t.path().join("fake.zip"), b"this is not a zip").unwrap();
    std::fs::write(t.path().join("fake.tar.gz"), b"\x1f\x8b but not gzip").unwrap();
    let pipe = t.path().join("pipe.zip");
    nix_mkfifo(&pipe);
    let (settings, call) = everything(2);
    let listing = list(&source(), t.path(), &settings, &call).unwrap();
    let top = root_folder(&listing);
    assert_eq!(entry(top, "deflate.zip").archive, Some(ArchiveFormat::Zip));
    assert_eq!(entry(top, "t.tar.zst").archive, Some(ArchiveFormat::TarZst));
    assert_eq!(entry(top, "gnu.tar").archive, Some(ArchiveFormat::Tar));
    assert_eq!(
        entry(top, "fake.zip").archive,
        None,
        "a .zip that is not a zip is a file"
    );
    assert_eq!(entry(top, "fake.tar.gz").archive, None);
    assert_eq!(entry(top, "pipe.zip").kind, EntryKind::Fifo);
    // Depth 2 reads no archive: they are not expanded.
    assert!(entry(top, "deflate.zip").folder.is_none());
    assert!(entry(top, "deflate.zip").can_expand);
    // A fifo named like an archive is never opened (the open would block).
    let err = list(&source(), &pipe, &settings, &call).unwrap_err();
    assert_eq!(err.code, ErrorCode::NotADirectory);
}

fn nix_mkfifo(path: &Path) {
    let out = Command::new("mkfifo").arg(path).output().unwrap();
    assert!(out.status.success());
}

#[test]
fn inside_an_archive_the_cap_the_badge_counts_and_orders_hold() {
    let t = tempfile::tempdir().unwrap();
    python(
        t.path(),
        r#"
import zipfile
with zipfile.ZipFile('many.zip', 'w') as z:
    for i in range(300):
        z.writestr(f'big/f{i:03}.txt', 'x' * i)
    z.writestr('big/sub/inner.txt', 'y')
"#,
    );
    let many = t.path().join("many.zip");
    let settings = ListSettings::default();
    let listing = list(&source(), &many, &settings, &ListCall::default()).unwrap();
    let big = entry(root_folder(&listing), "big")
        .folder
        .as_deref()
        .unwrap();
    assert_eq!(big.entries.len(), 100, "the cap of 100 inside an archive");
    assert_eq!(big.total, Some(301));
    assert_eq!(big.kinds.files, 300);
    assert_eq!(big.kinds.folders, 1);
    assert_eq!(big.unlisted.files, 201);
    assert_eq!(big.entries[0].name, "sub", "folders first");
    // Largest first: sizes come from the archive's directory.
    let by_size = ListSettings {
        sort: canopy_core::wire::SortBy::Size,
        reverse: true,
        ..ListSettings::default()
    };
    let listing = list(&source(), &many.join("big"), &by_size, &ListCall::default()).unwrap();
    let f = root_folder(&listing);
    assert_eq!(f.entries[1].name, "f299.txt");
    assert_eq!(f.entries[1].size, Some(299));
}

#[test]
fn unsafe_names_are_listed_raw_escaped_and_never_lead_anywhere() {
    let t = tempfile::tempdir().unwrap();
    python(
        t.path(),
        r#"
import zipfile
with zipfile.ZipFile('evil.zip', 'w') as z:
    for n in ['../../escape.txt', '/etc/passwd', 'a//b.txt', 'C:/win.txt', 'back\\slash.txt', './dot.txt', 'ok/fine.txt', 'etc/passwd']:
        info = zipfile.ZipInfo(n)
        z.writestr(info, 'payload')
    z.writestr('dup.txt', 'one')
    z.writestr('dup.txt', 'two')
"#,
    );
    let evil = t.path().join("evil.zip");
    let (settings, call) = everything(4);
    let call = ListCall {
        handles: true,
        ..call
    };
    let listing = list(&source(), &evil, &settings, &call).unwrap();
    let top = root_folder(&listing);
    let unsafe_entries: Vec<&Entry> = top
        .entries
        .iter()
        .filter(|e| {
            e.error
                .as_ref()
                .is_some_and(|e| e.code == ErrorCode::UnsafeName)
        })
        .collect();
    assert_eq!(
        unsafe_entries.len(),
        6,
        "{:?}",
        top.entries
            .iter()
            .map(|e| (&e.name, &e.error))
            .collect::<Vec<_>>()
    );
    for e in unsafe_entries {
        assert!(!e.can_preview && !e.can_expand, "{}", e.name);
        let path = decode_handle(&e.handle).unwrap();
        assert!(
            path.starts_with(&evil),
            "{}: its handle {} stays inside the archive",
            e.name,
            path.display()
        );
        assert_eq!(
            path.parent(),
            Some(evil.as_path()),
            "{}: one segment below the archive",
            e.name
        );
        // Whatever the handle is used for, it reaches nothing.
        let err = preview(&source(), &path, 0, 100).unwrap_err();
        assert!(
            matches!(err.code, ErrorCode::NotFound | ErrorCode::UnsafeName),
            "{}: {err}",
            e.name
        );
    }
    // The name /etc/passwd is shown escaped, never as a path.
    let line = canopy_core::text::line_name(
        &top.entries
            .iter()
            .find(|e| e.name == "/etc/passwd")
            .unwrap()
            .name,
        top.entries
            .iter()
            .find(|e| e.name == "/etc/passwd")
            .unwrap()
            .name_parts
            .as_deref(),
    );
    assert_eq!(line, "\\u{2f}etc\\u{2f}passwd");
    // The real etc/passwd entry is a different, ordinary entry.
    let etc = entry(top, "etc").folder.as_deref().unwrap();
    assert_eq!(entry(etc, "passwd").error, None);
    // Two entries of one path are both listed, and say so.
    let dups: Vec<&Entry> = top.entries.iter().filter(|e| e.name == "dup.txt").collect();
    assert_eq!(dups.len(), 2);
    assert!(
        dups.iter().all(|e| e
            .error
            .as_ref()
            .is_some_and(|e| e.code == ErrorCode::Duplicate)),
        "{dups:?}"
    );
    assert_eq!(
        entry(etc, "passwd").error,
        None,
        "a name given once is no duplicate"
    );
}

#[test]
fn bombs_truncation_false_claims_and_encryption_each_get_their_code_and_the_rest_stands() {
    let t = tempfile::tempdir().unwrap();
    python(
        t.path(),
        r#"
import zipfile, struct, io, tarfile
# A bomb: 200 MB of zeros, deflated (about 1030 to 1), beside an ordinary file.
with zipfile.ZipFile('bomb.zip', 'w', zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    z.writestr('ok.txt', 'fine')
    with z.open('zeros.bin', 'w', force_zip64=True) as f:
        chunk = bytes(1 << 20)
        for _ in range(200):
            f.write(chunk)
# Overlapping entries (Fifield's construction): many directory records share one local entry.
with zipfile.ZipFile('kernel.zip', 'w', zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    z.writestr('k', bytes(50 << 20))
data = open('kernel.zip', 'rb').read()
eocd = data.rfind(b'PK\x05\x06')
cd_off = struct.unpack('<I', data[eocd+16:eocd+20])[0]
cd = data[cd_off:eocd]
records = b''
for i in range(1000):
    name = f'overlap{i:04}'.encode()
    rec = bytearray(cd[:46]); rec[28:30] = struct.pack('<H', len(name)); rec[30:32] = b'\0\0'; rec[32:34] = b'\0\0'
    records += bytes(rec) + name
end = bytearray(data[eocd:eocd+22])
end[8:10] = struct.pack('<H', 1000); end[10:12] = struct.pack('<H', 1000)
end[12:16] = struct.pack('<I', len(records)); end[16:20] = struct.pack('<I', cd_off)
open('overlap.zip', 'wb').write(data[:cd_off] + records + bytes(end))
# Truncated: a zip cut in its directory, a tar.gz cut in its stream.
with zipfile.ZipFile('whole.zip', 'w') as z:
    for i in range(50):
        z.writestr(f'f{i}.txt', 'x' * 100)
w = open('whole.zip', 'rb').read()
open('cut.zip', 'wb').write(w[:len(w) - 200])
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode='w:gz') as tz:
    for i in range(200):
        payload = (f'{i}' * 5000).encode()
        ti = tarfile.TarInfo(f'f{i:03}.txt'); ti.size = len(payload); tz.addfile(ti, io.BytesIO(payload))
g = buf.getvalue()
open('cut.tar.gz', 'wb').write(g[:len(g) // 2])
# Claims 4 billion entries: a zip64 end record saying so, over a directory of 3.
with zipfile.ZipFile('three.zip', 'w') as z:
    for n in ['a', 'b', 'c']:
        z.writestr(n, n)
d = open('three.zip', 'rb').read()
eocd = d.rfind(b'PK\x05\x06')
cd_off = struct.unpack('<I', d[eocd+16:eocd+20])[0]
cd_len = struct.unpack('<I', d[eocd+12:eocd+16])[0]
z64 = struct.pack('<IQHHIIQQQQ', 0x06064b50, 44, 45, 45, 0, 0, 4_000_000_000, 4_000_000_000, cd_len, cd_off)
loc = struct.pack('<IIQI', 0x07064b50, 0, eocd, 1)
end = bytearray(d[eocd:eocd+22]); end[8:10] = b'\xff\xff'; end[10:12] = b'\xff\xff'
open('claims.zip', 'wb').write(d[:eocd] + z64 + loc + bytes(end))
# Encrypted: the flag set on one entry (its content is never read).
with zipfile.ZipFile('enc.zip', 'w') as z:
    z.writestr('secret.txt', 'hidden')
    z.writestr('plain.txt', 'open')
e = bytearray(open('enc.zip', 'rb').read())
i = e.find(b'PK\x01\x02')
e[i+8] |= 1
e[6] |= 1
open('enc.zip', 'wb').write(bytes(e))
"#,
    );
    let dir = t.path();
    // The bomb lists by its claims; its preview stops at the ratio guard.
    let bomb = list_all(&dir.join("bomb.zip"));
    assert_eq!(
        entry(root_folder(&bomb), "zeros.bin").size,
        Some(200 << 20),
        "the size as the archive claims it"
    );
    let err = preview(&source(), &dir.join("bomb.zip/zeros.bin"), 0, 64 * 1024)
        .map(|p| p.length)
        .expect_err("a bomb's chunk passes the ratio guard");
    assert_eq!(err.code, ErrorCode::Ratio, "{err}");
    assert_eq!(
        preview(&source(), &dir.join("bomb.zip/ok.txt"), 0, 100)
            .map(text)
            .unwrap()
            .as_deref(),
        Some("fine")
    );
    // Overlapping entries: all 1000 listed; each preview is bounded and stopped.
    let overlap = list_all(&dir.join("overlap.zip"));
    assert_eq!(root_folder(&overlap).total, Some(1000));
    let err = preview(
        &source(),
        &dir.join("overlap.zip/overlap0999"),
        0,
        64 * 1024,
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Ratio, "{err}");
    // Truncated zip: the archive itself says CORRUPT; beside it, the folder lists.
    let err = list(
        &source(),
        &dir.join("cut.zip"),
        &ListSettings::default(),
        &ListCall::default(),
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Corrupt, "{err}");
    // Truncated tar.gz: what was read is shown, the count is a lower bound, the error says why.
    let cut = list_all(&dir.join("cut.tar.gz"));
    let f = root_folder(&cut);
    assert!(f.count_is_lower_bound);
    assert!(
        f.total.unwrap() > 10 && f.total.unwrap() < 200,
        "{:?}",
        f.total
    );
    let why = cut.root.error.as_ref().expect("the cut is named");
    assert_eq!(why.code, ErrorCode::Corrupt, "{why}");
    // A false claim of 4 billion entries: the 3 real ones, and the summary says what was claimed.
    let claims = list_all(&dir.join("claims.zip"));
    assert_eq!(root_folder(&claims).total, Some(3));
    let summary = source().summary(&dir.join("claims.zip")).unwrap();
    assert_eq!(
        (summary.entries, summary.claimed_entries),
        (3, Some(4_000_000_000))
    );
    // Encrypted: the name is listed with ENCRYPTED; the other entry reads.
    let enc = list_all(&dir.join("enc.zip"));
    assert_eq!(
        entry(root_folder(&enc), "secret.txt")
            .error
            .as_ref()
            .map(|e| e.code),
        Some(ErrorCode::Encrypted)
    );
    assert_eq!(entry(root_folder(&enc), "plain.txt").error, None);
    assert_eq!(
        preview(&source(), &dir.join("enc.zip/secret.txt"), 0, 10)
            .unwrap_err()
            .code,
        ErrorCode::Encrypted
    );
    assert_eq!(source().summary(&dir.join("enc.zip")).unwrap().encrypted, 1);
}

#[test]
fn a_gigabyte_of_zeros_in_a_tar_gz_stops_at_the_ratio_guard_with_the_entries_before_it() {
    let t = tempfile::tempdir().unwrap();
    python(
        t.path(),
        r#"
import tarfile, io
with open('zeros.tar', 'wb') as out:
    t = tarfile.open(fileobj=out, mode='w', format=tarfile.GNU_FORMAT)
    ti = tarfile.TarInfo('before.txt'); ti.size = 3; t.addfile(ti, io.BytesIO(b'abc'))
    ti = tarfile.TarInfo('zeros.bin'); ti.size = 1 << 30
    out.write(ti.tobuf(format=tarfile.GNU_FORMAT))
    t.close = lambda: None
"#,
    );
    // The gigabyte itself streams through gzip, never onto the disk.
    sh(t.path(), "{ cat zeros.tar; head -c 1073741824 /dev/zero; head -c 1024 /dev/zero; } | gzip -9 > zeros.tar.gz && rm zeros.tar");
    let listing = list_all(&t.path().join("zeros.tar.gz"));
    let f = root_folder(&listing);
    assert_eq!(entry(f, "before.txt").size, Some(3));
    assert_eq!(entry(f, "zeros.bin").size, Some(1 << 30));
    let why = listing.root.error.as_ref().expect("the guard is named");
    assert_eq!(why.code, ErrorCode::Ratio, "{why}");
    assert!(f.count_is_lower_bound);
}

#[test]
fn paths_through_archives_prefer_the_real_filesystem_and_links_inside_are_not_followed() {
    let t = tempfile::tempdir().unwrap();
    corpus(t.path());
    // A real folder named like a path inside an archive wins.
    std::fs::create_dir(t.path().join("real.zip")).unwrap();
    std::fs::write(t.path().join("real.zip/readme.txt"), b"on disk").unwrap();
    assert_eq!(
        preview(&source(), &t.path().join("real.zip/readme.txt"), 0, 100)
            .map(text)
            .unwrap()
            .as_deref(),
        Some("on disk")
    );
    // A link entry shows its target and is not followed.
    let listing = list_all(&t.path().join("t.tar.gz"));
    let link = entry(root_folder(&listing), "link-to-readme");
    assert_eq!(link.kind, EntryKind::Symlink);
    assert_eq!(link.link.as_ref().unwrap().target, "readme.txt");
    assert!(!link.can_preview && !link.can_expand);
    assert_eq!(
        preview(&source(), &t.path().join("t.tar.gz/link-to-readme"), 0, 10)
            .unwrap_err()
            .code,
        ErrorCode::NotAFile
    );
    // A path through a file that is no archive is NOT_A_DIRECTORY.
    let err = list(
        &source(),
        &t.path().join("real.zip/readme.txt/x"),
        &ListSettings::default(),
        &ListCall::default(),
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotADirectory);
    // Nothing was written beside the archives.
    let names: Vec<_> = std::fs::read_dir(t.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().as_bytes().to_vec())
        .collect();
    assert_eq!(names.len(), 12, "no temporary or extracted file");
}

#[test]
fn cp437_names_read_as_their_characters_and_the_utf8_flag_is_honoured() {
    let t = tempfile::tempdir().unwrap();
    python(
        t.path(),
        r#"
import zipfile
with zipfile.ZipFile('legacy.zip', 'w') as z:
    z.writestr('caf\u00e9.txt', 'x')
d = bytearray(open('legacy.zip', 'rb').read())
# Python wrote the name as UTF-8 with the flag; make it CP437 without the flag, as old writers did.
old = 'caf\u00e9.txt'.encode('utf-8'); new = 'caf\u00e9.txt'.encode('cp437')
for sig in [b'PK\x03\x04', b'PK\x01\x02']:
    i = d.find(sig)
    flag_at = i + (6 if sig == b'PK\x03\x04' else 8)
    d[flag_at + 1] &= ~0x08
d = bytes(d).replace(old, new + b' ')
open('legacy.zip', 'wb').write(d)
"#,
    );
    let listing = list_all(&t.path().join("legacy.zip"));
    assert_eq!(root_folder(&listing).entries[0].name, "café.txt ");
}

#[test]
fn archives_inside_archives_open_three_deep_stored_in_place_or_small_in_memory() {
    let t = tempfile::tempdir().unwrap();
    python(
        t.path(),
        r#"
import zipfile, tarfile, io, os
def zip_of(entries, method=zipfile.ZIP_DEFLATED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w', method) as z:
        for name, data in entries:
            z.writestr(name, data)
    return buf.getvalue()
tgz = io.BytesIO()
with tarfile.open(fileobj=tgz, mode='w:gz') as t:
    ti = tarfile.TarInfo('in/tar.txt'); ti.size = 3; t.addfile(ti, io.BytesIO(b'tar'))
level3 = zip_of([('deepest.txt', b'three deep')])
level4 = zip_of([('too-deep.txt', b'four')])
level3_with_4 = zip_of([('deepest.txt', b'three deep'), ('four.zip', level4)])
level2 = zip_of([('three.zip', level3_with_4), ('notes.txt', b'two')])
# Stored (read in place) and deflated (read into memory) inner archives, and a tar.gz.
with zipfile.ZipFile('outer.zip', 'w') as z:
    z.writestr(zipfile.ZipInfo('stored.zip'), zip_of([('a/b.txt', b'stored inner')]))
    z.writestr('two.zip', level2, compress_type=zipfile.ZIP_DEFLATED)
    z.writestr('src.tar.gz', tgz.getvalue())
    # A compressed inner archive past 64 MiB: listed as an archive, not opened.
    z.writestr('huge.zip', zip_of([('x', b'x')]) + os.urandom(65 << 20), compress_type=zipfile.ZIP_DEFLATED, compresslevel=1)
"#,
    );
    let outer = t.path().join("outer.zip");
    let (settings, call) = everything(1);
    let listing = list(&source(), &outer, &settings, &call).unwrap();
    let top = root_folder(&listing);
    for (name, format) in [
        ("stored.zip", ArchiveFormat::Zip),
        ("two.zip", ArchiveFormat::Zip),
        ("src.tar.gz", ArchiveFormat::TarGz),
        ("huge.zip", ArchiveFormat::Zip),
    ] {
        assert_eq!(
            entry(top, name).archive,
            Some(format),
            "{name} is listed as an archive"
        );
    }
    let text_of = |p: &Path| preview(&source(), p, 0, 100).map(text);
    assert_eq!(
        text_of(&outer.join("stored.zip/a/b.txt"))
            .unwrap()
            .as_deref(),
        Some("stored inner")
    );
    assert_eq!(
        text_of(&outer.join("src.tar.gz/in/tar.txt"))
            .unwrap()
            .as_deref(),
        Some("tar")
    );
    assert_eq!(
        text_of(&outer.join("two.zip/notes.txt"))
            .unwrap()
            .as_deref(),
        Some("two")
    );
    assert_eq!(
        text_of(&outer.join("two.zip/three.zip/deepest.txt"))
            .unwrap()
            .as_deref(),
        Some("three deep")
    );
    let deeper = list(
        &source(),
        &outer.join("two.zip/three.zip"),
        &settings,
        &call,
    )
    .unwrap();
    assert_eq!(
        entry(root_folder(&deeper), "four.zip").archive,
        Some(ArchiveFormat::Zip),
        "the fourth level is listed as an archive"
    );
    let err = list(
        &source(),
        &outer.join("two.zip/three.zip/four.zip"),
        &settings,
        &call,
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::TooDeep, "{err}");
    let err = text_of(&outer.join("two.zip/three.zip/four.zip/too-deep.txt")).unwrap_err();
    assert_eq!(err.code, ErrorCode::TooDeep, "{err}");
    let err = list(&source(), &outer.join("huge.zip"), &settings, &call).unwrap_err();
    assert_eq!(err.code, ErrorCode::TooLarge, "{err}");
    // An entry that is no archive ends the path.
    let err = list(
        &source(),
        &outer.join("two.zip/notes.txt"),
        &settings,
        &call,
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotADirectory, "{err}");
    // The inner archive's own facts.
    let inner = source().summary(&outer.join("two.zip")).unwrap();
    assert_eq!((inner.format, inner.entries), (ArchiveFormat::Zip, 2));
}

#[test]
fn zip_entries_compressed_with_zstd_and_xz_read_as_written() {
    let t = tempfile::tempdir().unwrap();
    python(
        t.path(),
        r#"
import struct, subprocess, zlib
text = b'zstd and xz inside a zip\n' * 200
def packed(tool):
    return subprocess.run([tool, '-c', '-q'], input=text, capture_output=True, check=True).stdout
entries = [('z.txt', 93, packed('zstd')), ('x.txt', 95, packed('xz'))]
out, central = b'', b''
for name, method, data in entries:
    n = name.encode(); crc = zlib.crc32(text)
    offset = len(out)
    out += struct.pack('<IHHHHHIIIHH', 0x04034b50, 63, 0, method, 0, 0x21, crc, len(data), len(text), len(n), 0) + n + data
    central += struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 63, 63, 0, method, 0, 0x21, crc, len(data), len(text), len(n), 0, 0, 0, 0, 0, offset) + n
end = struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, len(entries), len(entries), len(central), len(out), 0)
open('methods.zip', 'wb').write(out + central + end)
"#,
    );
    let zip = t.path().join("methods.zip");
    let want = "zstd and xz inside a zip\n".repeat(200);
    for name in ["z.txt", "x.txt"] {
        let p = preview(&source(), &zip.join(name), 0, 1 << 20)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(text(p).as_deref(), Some(want.as_str()), "{name}");
    }
    let listing = list_all(&zip);
    assert_eq!(
        entry(root_folder(&listing), "z.txt").size,
        Some(want.len() as u64)
    );
}

#[test]
fn hostile_headers_deep_paths_lying_sizes_and_times_never_crash_or_smuggle_entries() {
    let t = tempfile::tempdir().unwrap();
    python(
        t.path(),
        r#"
import tarfile, io, zipfile, struct, os
# One entry 20,000 folders deep (a zip name may be 64 KiB), and a pax path 100,000 deep.
with zipfile.ZipFile('deep.zip', 'w') as z:
    z.writestr('a/' * 20000 + 'x.txt', 'deep')
with tarfile.open('deep.tar', 'w', format=tarfile.PAX_FORMAT) as t:
    ti = tarfile.TarInfo('b/' * 100000 + 'y.txt'); ti.size = 4; t.addfile(ti, io.BytesIO(b'deep'))
# A size of 2^64 - 1 (base-256) hiding two headers in what would be its data.
def header(name, size=0, flag=b'0'):
    h = bytearray(512)
    h[0:len(name)] = name
    h[100:108] = b'0000644\0'; h[108:116] = b'0000000\0'; h[116:124] = b'0000000\0'
    h[124:136] = b'%011o\0' % size
    h[136:148] = b'00000000000\0'
    h[156:157] = flag
    h[257:263] = b'ustar\0'; h[263:265] = b'00'
    h[148:156] = b'        '
    h[148:156] = b'%06o\0 ' % sum(h)
    return bytes(h)
def lie(h, field, value):
    h = bytearray(h); h[field[0]:field[1]] = value; h[148:156] = b'        '; h[148:156] = b'%06o\0 ' % sum(h); return bytes(h)
huge = lie(header(b'huge.bin'), (124, 136), b'\x80' + b'\xff' * 11)
hidden = header(b'hidden.txt', 6) + b'secret'.ljust(512, b'\0')
open('sizewrap.tar', 'wb').write(header(b'visible.txt', 2) + b'ok'.ljust(512, b'\0') + huge + hidden + bytes(1024))
# A modification time past what a date holds (base-256 2^63 + 5).
when = lie(header(b'when.txt', 1), (136, 148), b'\x80' + b'\0' * 3 + (2**63 + 5).to_bytes(8, 'big'))
open('mtime.tar', 'wb').write(when + b'x'.ljust(512, b'\0') + bytes(1024))
# `tar -C dir .`: every name starts with ./
with tarfile.open('dot.tgz', 'w:gz') as t:
    ti = tarfile.TarInfo('.'); ti.type = tarfile.DIRTYPE; t.addfile(ti)
    ti = tarfile.TarInfo('./sub/f.txt'); ti.size = 2; t.addfile(ti, io.BytesIO(b'hi'))
# A plain tar cut inside an entry's data.
with tarfile.open('whole.tar', 'w') as t:
    ti = tarfile.TarInfo('big.txt'); ti.size = 100000; t.addfile(ti, io.BytesIO(b'y' * 100000))
open('cut.tar', 'wb').write(open('whole.tar', 'rb').read()[:60000])
# A zip64 entry whose local header offset lies past the file.
with zipfile.ZipFile('lie.zip', 'w') as z:
    z.writestr('a.txt', 'a')
d = bytearray(open('lie.zip', 'rb').read())
i = d.find(b'PK\x01\x02')
d[i+42:i+46] = b'\xff\xff\xff\xff'
name_len = struct.unpack('<H', d[i+28:i+30])[0]
extra = struct.pack('<HHQ', 1, 8, 2**64 - 10)
d[i+30:i+32] = struct.pack('<H', len(extra))
d = d[:i+46+name_len] + extra + d[i+46+name_len:]
e = d.rfind(b'PK\x05\x06'); d[e+12:e+16] = struct.pack('<I', struct.unpack('<I', d[e+12:e+16])[0] + len(extra))
open('lie.zip', 'wb').write(bytes(d))
# The magic of a gzip and a zstd stream before noise: files, not archives.
open('noise.tar.gz', 'wb').write(b'\x1f\x8b' + os.urandom(9000))
open('noise.tar.zst', 'wb').write(b'\x28\xb5\x2f\xfd' + os.urandom(9000))
"#,
    );
    let dir = t.path();
    let (deep_settings, call) = everything(2);
    for (archive, depth) in [("deep.zip", 20_000usize), ("deep.tar", 100_000)] {
        let listing = list(&source(), &dir.join(archive), &deep_settings, &call)
            .unwrap_or_else(|e| panic!("{archive}: {e}"));
        assert_eq!(
            root_folder(&listing).total,
            Some(1),
            "{archive}: one folder at the top"
        );
        // The innermost entry is reachable by its path.
        let inner = std::iter::repeat_n(if archive == "deep.zip" { "a" } else { "b" }, depth)
            .collect::<Vec<_>>()
            .join("/");
        let leaf = if archive == "deep.zip" {
            "x.txt"
        } else {
            "y.txt"
        };
        let p = preview(&source(), &dir.join(archive).join(inner).join(leaf), 0, 10).unwrap();
        assert_eq!(text(p).as_deref(), Some("deep"), "{archive}");
    }
    let wrap = list_all(&dir.join("sizewrap.tar"));
    let names: Vec<&str> = root_folder(&wrap)
        .entries
        .iter()
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(
        names,
        ["visible.txt"],
        "no entry is read out of a lying entry's data"
    );
    assert_eq!(
        wrap.root.error.as_ref().map(|e| e.code),
        Some(ErrorCode::Corrupt)
    );
    let when = list_all(&dir.join("mtime.tar"));
    assert_eq!(
        entry(root_folder(&when), "when.txt").modified,
        None,
        "a time no date holds is not shown"
    );
    let dot = list_all(&dir.join("dot.tgz"));
    let sub = entry(root_folder(&dot), "sub");
    assert_eq!(sub.error, None);
    assert_eq!(
        root_folder(&dot).total,
        Some(1),
        "the ./ entry is the archive itself"
    );
    assert_eq!(
        text(preview(&source(), &dir.join("dot.tgz/sub/f.txt"), 0, 10).unwrap()).as_deref(),
        Some("hi")
    );
    let cut = preview(&source(), &dir.join("cut.tar/big.txt"), 0, 100).unwrap_err();
    assert_eq!(cut.code, ErrorCode::Corrupt, "{cut}");
    let lie = preview(&source(), &dir.join("lie.zip/a.txt"), 0, 10).unwrap_err();
    assert_eq!(lie.code, ErrorCode::Corrupt, "{lie}");
    let (settings, call) = everything(1);
    let top = list(&source(), dir, &settings, &call).unwrap();
    for noise in ["noise.tar.gz", "noise.tar.zst"] {
        assert_eq!(
            entry(root_folder(&top), noise).archive,
            None,
            "{noise} is a file"
        );
    }
}

#[test]
fn a_tar_whose_headers_take_too_long_shows_what_was_read_and_never_reads_data_as_headers() {
    let t = tempfile::tempdir().unwrap();
    python(
        t.path(),
        r#"
import tarfile, io, os, gzip
# 24 MiB of noise (slow to decompress) holding a forged header at each 4 MiB, between two files.
noise = bytearray(os.urandom(24 << 20))
forged = tarfile.TarInfo('FORGED.txt'); forged.size = 0
for at in range(4 << 20, 24 << 20, 4 << 20):
    noise[at:at+512] = forged.tobuf(format=tarfile.GNU_FORMAT)
with tarfile.open('slow.tar', 'w', format=tarfile.GNU_FORMAT) as t:
    ti = tarfile.TarInfo('a_first.txt'); ti.size = 1; t.addfile(ti, io.BytesIO(b'a'))
    ti = tarfile.TarInfo('big.bin'); ti.size = len(noise); t.addfile(ti, io.BytesIO(bytes(noise)))
    ti = tarfile.TarInfo('z_last.txt'); ti.size = 1; t.addfile(ti, io.BytesIO(b'z'))
# A flood of empty gzip members after the first entry: no output for a long time.
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode='w', format=tarfile.GNU_FORMAT) as t:
    ti = tarfile.TarInfo('a_first.txt'); ti.size = 1; t.addfile(ti, io.BytesIO(b'a'))
raw = buf.getvalue()
empty = gzip.compress(b'', compresslevel=1)
with open('flood.tar.gz', 'wb') as f:
    f.write(gzip.compress(raw[:1024]))
    f.write(empty * 1_000_000)
    f.write(gzip.compress(raw[1024:]))
"#,
    );
    sh(t.path(), "bzip2 -1 slow.tar");
    for archive in ["slow.tar.bz2", "flood.tar.gz"] {
        let listing = list_all(&t.path().join(archive));
        let f = root_folder(&listing);
        let names: Vec<&str> = f.entries.iter().map(|e| e.name.as_str()).collect();
        assert!(names.contains(&"a_first.txt"), "{archive}: {names:?}");
        assert!(
            !names.contains(&"FORGED.txt"),
            "{archive}: data read as a header: {names:?}"
        );
        // However fast this machine is: all of it, or a TIMEOUT saying so.
        match &listing.root.error {
            None => assert!(!f.count_is_lower_bound),
            Some(e) => {
                assert_eq!(e.code, ErrorCode::Timeout, "{archive}: {e}");
                assert!(f.count_is_lower_bound);
            }
        }
    }
}

#[test]
fn a_tar_zst_that_starts_with_a_skippable_frame_lists_as_bsdtar_lists_it() {
    let t = tempfile::tempdir().unwrap();
    python(
        t.path(),
        r#"
import struct, subprocess, tarfile, io
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode='w') as tf:
    ti = tarfile.TarInfo('inside.txt'); ti.size = 2; tf.addfile(ti, io.BytesIO(b'ok'))
packed = subprocess.run(['zstd', '-c', '-q'], input=buf.getvalue(), capture_output=True, check=True).stdout
# pzstd writes a skippable frame before each compressed one.
skip = struct.pack('<II', 0x184D2A50, 12) + b'pzstd index!'
open('p.tar.zst', 'wb').write(skip + packed + skip)
"#,
    );
    let archive = t.path().join("p.tar.zst");
    assert_eq!(canopy(&archive), bsdtar(&archive));
    assert_eq!(
        text(preview(&source(), &archive.join("inside.txt"), 0, 10).unwrap()).as_deref(),
        Some("ok")
    );
}

#[test]
fn a_listing_inside_an_archive_names_the_archive_file_among_its_crumbs() {
    let t = tempfile::tempdir().unwrap();
    corpus(t.path());
    let zip = t.path().join("deflate.zip");
    let (settings, call) = everything(1);
    let top = list(&source(), &zip, &settings, &call).unwrap();
    assert_eq!(
        top.root.archive,
        Some(ArchiveFormat::Zip),
        "the root is the archive"
    );
    let inside = list(&source(), &zip.join("src/deep"), &settings, &call).unwrap();
    let marked: Vec<&str> = inside
        .crumbs
        .iter()
        .filter(|c| c.archive.is_some())
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(marked, ["deflate.zip"]);
    assert_eq!(inside.root.archive, None);
    let plain = list(&source(), t.path(), &settings, &call).unwrap();
    assert!(plain.crumbs.iter().all(|c| c.archive.is_none()) && plain.root.archive.is_none());
}
