//! Tars as old and foreign tars wrote them, judged by the real tools: each
//! is listed as `bsdtar -tvf` lists it (GNU `tar -tvf` where bsdtar gives
//! up), and read as GNU tar extracts it or Python's `tarfile` reads it.
//!
//! The variants are the ones CPython's own tarfile test archive holds,
//! made here: sparse files written by GNU tar itself (old GNU with extension
//! blocks, pax 0.0, 0.1, 1.0; plain and gzipped), v7 and HP-UX headers with
//! signed checksums (the first one too), a Solaris `X` header, a GNU volume
//! label, hard links (GNU tar's, and ones that lead nowhere), and pax sizes
//! past 64 bits. Hostile sparse maps and hard-link graphs come from a
//! seeded generator: `CANOPY_TAR_SEED=N` replays the round a failure names.

use crate::common;

use std::collections::BTreeMap;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use base64::Engine;
use canopy_core::wire::{
    ArchiveFormat, Entry, EntryKind, ErrorCode, Folder, LinkTarget, ListSettings, Listing,
    PreviewContent,
};
use canopy_core::{list, preview, ListCall, LocalFs, WithArchives};
use common::tar_tools::{assert_lists_as, assert_same_bytes, bsdtar, canopy, gnu_tar};

/// Rounds of each generator, unless `CANOPY_TAR_SEED` names one.
const ROUNDS: u64 = 40;

/// The variants, written by GNU tar where it writes them and by hand (raw
/// headers) where only an old or foreign tar did.
const VARIANTS: &str = r#"
import gzip, os, subprocess

def run(*a):
    subprocess.run(a, check=True)

def header(name, flag=b'0', size=0, magic=b'ustar\x0000', link=b'', signed=False, mtime=1700000000, fields=()):
    h = bytearray(512)
    h[0:len(name)] = name
    h[100:108] = b'0000644\0'; h[108:116] = b'0001750\0'; h[116:124] = b'0000144\0'
    h[124:136] = b'%011o\0' % size
    h[136:148] = b'%011o\0' % mtime
    h[156:157] = flag
    h[157:157 + len(link)] = link
    h[257:265] = magic
    for at, value in fields:
        h[at:at + len(value)] = value
    h[148:156] = b' ' * 8
    # Old v7 and HP-UX tar summed the header as signed chars.
    total = sum(b - 256 if signed and b > 127 else b for b in h)
    h[148:156] = b'%06o\0 ' % total
    return bytes(h)

def pad(data):
    return data + bytes(-len(data) % 512)

def pax(pairs):
    out = b''
    for key, value in pairs:
        body = b' ' + key + b'=' + value + b'\n'
        n = len(body) + 1
        while len(str(n)) + len(body) != n:
            n = len(str(n)) + len(body)
        out += str(n).encode() + body
    return out

def member(name, data=b'', **kw):
    return header(name, size=len(data), **kw) + pad(data)

END = bytes(1024)
V7 = b'\0' * 8
"#;

const FIXED: &str = r#"
# v7 and HP-UX: signed checksums (the first header too), no magic, a folder by its /.
open('signed.tar', 'wb').write(
    member(b'hpux-signed-\xc4\xd6\xdc.txt', b'hp-ux\n', signed=True)
    + member(b'v7-signed-\xe4\xf6\xfc.txt', b'v7 signed\n', magic=V7, flag=b'\0', signed=True)
    + header(b'v7-dir/', magic=V7, flag=b'\0')
    + member(b'v7-dir/plain.txt', b'v7\n', magic=V7, flag=b'\0')
    + member(b'after.txt', b'after\n') + END)

# Solaris tar's X header: a pax header by another letter.
long_name = b'solaris/' + b'long-' * 30 + b'.txt'
x = pax([(b'path', long_name), (b'mtime', b'1041808783.000000000')])
open('solaris.tar', 'wb').write(
    header(b'solaris/PaxHeader', flag=b'X', size=len(x)) + pad(x)
    + member(b'solaris/short', b'sun\n') + member(b'after.txt', b'after\n') + END)

# A file with real holes: 30 runs of 4 KiB of one letter between 8 KiB
# holes, ending in a hole. GNU tar writes it sparse in each form.
os.makedirs('src/dir', exist_ok=True)
with open('src/sparse.img', 'wb') as f:
    for i in range(30):
        f.seek(8192, 1)
        f.write(bytes([65 + i % 26]) * 4096)
    f.truncate(f.tell() + 16384)
open('src/after.txt', 'w').write('after the sparse file\n')
for name, how in [('gnu-sparse.tar', ['--format=gnu']),
                  ('pax-sparse-0.0.tar', ['--format=posix', '--sparse-version=0.0']),
                  ('pax-sparse-0.1.tar', ['--format=posix', '--sparse-version=0.1']),
                  ('pax-sparse-1.0.tar', ['--format=posix', '--sparse-version=1.0'])]:
    run('tar', '-C', 'src', '--sparse', '--owner=0', '--group=0', *how, '-cf', name, 'sparse.img', 'after.txt')
for name in ['gnu-sparse.tar', 'pax-sparse-1.0.tar']:
    open(name + '.gz', 'wb').write(gzip.compress(open(name, 'rb').read()))
# A sparse file named like an archive, in a compressed tar (looked at as the index goes by).
os.makedirs('named', exist_ok=True)
os.link('src/sparse.img', 'named/sparse.img.zip')
run('tar', '-C', 'named', '--sparse', '--owner=0', '--group=0', '--format=posix', '--sparse-version=1.0',
    '-cf', 'named-sparse.tar', 'sparse.img.zip')
run('tar', '-C', 'src', '--owner=0', '--group=0', '--format=posix', '-rf', 'named-sparse.tar', 'after.txt')
open('named-sparse.tar.gz', 'wb').write(gzip.compress(open('named-sparse.tar', 'rb').read()))

# A GNU volume label before the entries.
run('tar', '-C', 'src', '--label=backup 1', '-cf', 'labelled.tar', 'after.txt')

# Hard links as GNU tar writes them: the first name is the file, the others name it.
open('src/dir/a.txt', 'w').write('hard linked\n' * 50)
os.link('src/dir/a.txt', 'src/b.txt')
os.link('src/dir/a.txt', 'src/dir/c.txt')
os.symlink('dir/a.txt', 'src/sym')
run('tar', '-C', 'src', '--owner=0', '--group=0', '--format=gnu', '-cf', 'links.tar', 'dir', 'b.txt', 'sym')
open('links.tar.gz', 'wb').write(gzip.compress(open('links.tar', 'rb').read()))

# Hard links that lead nowhere, or round, or to what is no file.
def hard(name, target):
    return header(name, flag=b'1', link=target)
open('broken-links.tar', 'wb').write(
    member(b'real.txt', b'real\n')
    + hard(b'to-real', b'./real.txt') + hard(b'chain', b'to-real')
    + hard(b'to-missing', b'nowhere.txt') + hard(b'to-self', b'to-self')
    + hard(b'cycle-a', b'cycle-b') + hard(b'cycle-b', b'cycle-a')
    + hard(b'to-later', b'later.txt') + member(b'later.txt', b'later\n')
    + header(b'dir/', flag=b'5') + hard(b'to-dir', b'dir')
    + header(b'sym', flag=b'2', link=b'real.txt') + hard(b'to-sym', b'sym')
    + hard(b'to-unsafe', b'../real.txt')
    + member(b'after.txt', b'after\n') + END)

# A pax size past 64 bits (2^64), and one past what a size holds (2^63).
for name, size in [('pax-size-2e64.tar', b'18446744073709551616'), ('pax-size-2e63.tar', b'9223372036854775808')]:
    p = pax([(b'size', size)])
    open(name, 'wb').write(
        header(b'PaxHeaders/big', flag=b'x', size=len(p)) + pad(p)
        + member(b'big', b'hello') + member(b'after.txt', b'after\n') + END)
"#;

/// Hostile sparse maps, per seed: each member in one of the four forms,
/// its runs sometimes true, sometimes lying (out of order, overlapping,
/// past the real size, another count, more bytes stored than mapped).
/// `{seed}/h.tar` holds them; `{seed}/NAME.want` the logical bytes of each
/// true one (checked against Python's tarfile), `{seed}/NAME.lies` marks the others.
const SPARSE_ROUNDS: &str = r#"
import io, random, sys, tarfile

def gnu_runs(runs, count):
    out = b''
    for off, n in runs[:count]:
        out += b'%011o\0' % off + b'%011o\0' % n
    return out

def sparse_member(form, name, runs, real, stored, count=None):
    count = len(runs) if count is None else count
    if form == '1.0':
        text = b'%d\n' % count + b''.join(b'%d\n%d\n' % r for r in runs)
        data = pad(text) + stored
        p = pax([(b'GNU.sparse.major', b'1'), (b'GNU.sparse.minor', b'0'),
                 (b'GNU.sparse.name', name), (b'GNU.sparse.realsize', b'%d' % real)])
        return header(b'PaxHeaders/' + name, flag=b'x', size=len(p)) + pad(p) + member(b'GNUSparseFile.0/' + name, data)
    if form == '0.1':
        p = pax([(b'GNU.sparse.size', b'%d' % real), (b'GNU.sparse.numblocks', b'%d' % count),
                 (b'GNU.sparse.name', name), (b'GNU.sparse.map', b','.join(b'%d,%d' % r for r in runs))])
        return header(b'PaxHeaders/' + name, flag=b'x', size=len(p)) + pad(p) + member(b'GNUSparseFile.0/' + name, stored)
    if form == '0.0':
        pairs = [(b'GNU.sparse.size', b'%d' % real), (b'GNU.sparse.numblocks', b'%d' % count)]
        for off, n in runs:
            pairs += [(b'GNU.sparse.offset', b'%d' % off), (b'GNU.sparse.numbytes', b'%d' % n)]
        p = pax(pairs)
        return header(b'PaxHeaders/' + name, flag=b'x', size=len(p)) + pad(p) + member(name, stored)
    # Old GNU: four runs in the header, 21 in each extension block.
    rest = runs[4:]
    fields = [(386, gnu_runs(runs, 4)), (482, b'\1' if rest else b'\0'), (483, b'%011o\0' % real)]
    out = header(name, flag=b'S', size=len(stored), magic=b'ustar  \0', fields=fields)
    while rest:
        block = bytearray(512)
        block[0:21 * 24] = gnu_runs(rest, 21).ljust(21 * 24, b'\0')
        rest = rest[21:]
        block[504] = 1 if rest else 0
        out += bytes(block)
    return out + pad(stored)

def true_map(runs, real, stored):
    end = 0
    for off, n in runs:
        if off < end or off + n > real:
            return False
        end = off + n
    return sum(n for _, n in runs) == stored

for seed in [int(s) for s in sys.argv[1:]]:
    rng = random.Random(seed)
    os.makedirs(str(seed))
    out = b''
    for i in range(8):
        form = rng.choice(['1.0', '0.1', '0.0', 'gnu'])
        name = b'f%d-%s' % (i, form.encode())
        real = rng.randrange(0, 60000)
        cuts = sorted(rng.sample(range(real + 1), min(real + 1, 2 * rng.randrange(0, 30))))
        # GNU tar ends a map with an empty run at the end.
        runs = [(cuts[j], cuts[j + 1] - cuts[j]) for j in range(0, len(cuts) - 1, 2)] + [(real, 0)]
        count = None
        lie = rng.randrange(6)
        if lie == 1 and len(runs) >= 2:
            runs[0], runs[1] = runs[1], runs[0]
        elif lie == 2 and runs:
            runs[-1] = (runs[-1][0], real - runs[-1][0] + 1 + rng.randrange(1000))
        elif lie == 3 and runs:
            runs[0] = (runs[0][0], runs[0][1] + rng.randrange(1, 5000))
        elif lie == 4 and form != 'gnu':
            count = len(runs) + rng.randrange(1, 4)
        stored_len = sum(n for _, n in runs) + (rng.randrange(1, 700) if lie == 5 else 0)
        stored = bytes(rng.randrange(1, 256) for _ in range(stored_len))
        one = sparse_member(form, name, runs, real, stored, count)
        out += one
        if count is None and true_map(runs, real, stored_len):
            want = bytearray(real)
            at = 0
            for off, n in runs:
                want[off:off + n] = stored[at:at + n]
                at += n
            # The oracle is what a real reader reads.
            t = tarfile.open(fileobj=io.BytesIO(one + END))
            got = t.extractfile(t.getmembers()[0]).read()
            assert got == bytes(want), (seed, name)
            open('%d/%s.want' % (seed, name.decode()), 'wb').write(bytes(want))
        else:
            open('%d/%s.lies' % (seed, name.decode()), 'wb').write(b'')
    out += member(b'after.txt', b'after\n') + END
    open('%d/h.tar' % seed, 'wb').write(out)
"#;

/// Hard-link graphs, per seed: 30 names in a random order, each a file or a
/// hard link to a random name (earlier, later, itself, or none at all), and
/// a long chain of links each naming the one after it. GNU tar extracts
/// `{seed}/l.tar` into `{seed}/x`: a link it could make is there.
const LINK_ROUNDS: &str = r#"
import random, sys

for seed in [int(s) for s in sys.argv[1:]]:
    rng = random.Random(seed)
    os.makedirs('%d/x' % seed)
    names = [b'n%d' % i for i in range(30)]
    rng.shuffle(names)
    out = b''
    for n in names:
        if rng.random() < 0.4:
            out += member(n, b'bytes of %s\n' % n)
        else:
            out += header(n, flag=b'1', link=rng.choice(names + [b'missing']))
    # Each names the next (an entry after it); the last names the first: a
    # cycle longer than any chain followed.
    chain = [b'c%04d' % i for i in range(300)]
    for i, n in enumerate(chain):
        out += header(n, flag=b'1', link=chain[(i + 1) % len(chain)])
    out += member(b'after.txt', b'after\n') + END
    open('%d/l.tar' % seed, 'wb').write(out)
    subprocess.run(['tar', '-xf', 'l.tar', '-C', 'x'], cwd=str(seed), capture_output=True)
"#;

fn python(dir: &Path, script: &str, args: &[String]) {
    let out = Command::new("python3")
        .arg("-c")
        .arg(format!("{VARIANTS}\n{script}"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "python failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn variants() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    python(t.path(), FIXED, &[]);
    // GNU tar writes a file sparse only when the filesystem keeps its holes.
    let sparse = std::fs::metadata(t.path().join("gnu-sparse.tar"))
        .unwrap()
        .len();
    assert!(
        sparse < 200_000,
        "the filesystem of {} keeps no holes: GNU tar wrote a {sparse}-byte tar for a 385,024-byte file with 122,880 bytes of data",
        t.path().display()
    );
    t
}

fn seeds() -> Vec<u64> {
    match std::env::var("CANOPY_TAR_SEED") {
        Ok(s) => vec![s.parse().expect("CANOPY_TAR_SEED is a number")],
        Err(_) => (0..ROUNDS).collect(),
    }
}

/// One source for every call of a test, so that an archive's index is kept
/// between its previews (as the app keeps it).
fn source() -> WithArchives<LocalFs> {
    static SOURCE: std::sync::OnceLock<WithArchives<LocalFs>> = std::sync::OnceLock::new();
    SOURCE
        .get_or_init(|| WithArchives::new(LocalFs::new()))
        .clone()
}

fn list_all(path: &Path) -> Listing {
    let settings = ListSettings {
        depth: 8,
        cap: 10_000,
        limit: 10_000,
        show_dotfiles: true,
        ..ListSettings::default()
    };
    let call = ListCall {
        whole_top_level: true,
        details: true,
        ..ListCall::default()
    };
    list(&source(), path, &settings, &call).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn top(l: &Listing) -> &Folder {
    l.root.folder.as_deref().expect("the archive is read")
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

/// The bytes previews give of `path` from `offset` (at most `len`), chunk
/// after chunk ("Load more": a binary file comes 4 KiB at a time).
fn bytes_at(path: &Path, offset: u64, len: u64) -> Result<Vec<u8>, canopy_core::CanopyError> {
    let mut out = Vec::new();
    loop {
        let at = offset + out.len() as u64;
        let chunk = preview(&source(), path, at, len - out.len() as u64)?;
        assert_eq!(chunk.offset, at, "{}", path.display());
        let got = match chunk.content {
            PreviewContent::Text { text, .. } => text.into_bytes(),
            PreviewContent::Binary { base64 } => base64::engine::general_purpose::STANDARD
                .decode(base64)
                .unwrap(),
        };
        out.extend_from_slice(&got);
        if !chunk.more || got.is_empty() || out.len() as u64 >= len {
            return Ok(out);
        }
    }
}

fn code_of(e: &Entry) -> Option<ErrorCode> {
    e.error.as_ref().map(|e| e.code)
}

/// Runs `f` on a thread: a hang fails the test instead of holding it.
fn within_a_minute<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(f()));
    rx.recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("{what} did not finish within a minute"))
}

#[test]
fn every_tar_variant_lists_as_bsdtar_lists_it() {
    let t = variants();
    for name in [
        "signed.tar",
        "solaris.tar",
        "gnu-sparse.tar",
        "gnu-sparse.tar.gz",
        "pax-sparse-0.0.tar",
        "pax-sparse-0.1.tar",
        "pax-sparse-1.0.tar",
        "pax-sparse-1.0.tar.gz",
        "named-sparse.tar.gz",
        "labelled.tar",
        "links.tar",
        "links.tar.gz",
        "broken-links.tar",
    ] {
        let archive = t.path().join(name);
        let theirs = bsdtar(&archive);
        assert_lists_as(&canopy(&archive), &theirs, name);
        // GNU tar lists them alike (it strips a hard link's leading ../).
        if name != "broken-links.tar" {
            let (gnu, ok, err) = gnu_tar(&archive);
            assert!(ok, "{name}: {err}");
            let gnu: BTreeMap<_, _> = gnu
                .into_iter()
                .filter(|(path, _)| !path.ends_with(b"--Volume Header--"))
                .collect();
            assert_eq!(gnu, theirs, "{name}: GNU tar and bsdtar agree");
        }
    }
}

#[test]
fn sparse_files_list_their_real_size_and_everything_after_them() {
    let t = variants();
    for name in [
        "gnu-sparse.tar",
        "gnu-sparse.tar.gz",
        "pax-sparse-0.0.tar",
        "pax-sparse-0.1.tar",
        "pax-sparse-1.0.tar",
        "pax-sparse-1.0.tar.gz",
    ] {
        let listing = list_all(&t.path().join(name));
        assert_eq!(listing.root.error, None, "{name}");
        let f = top(&listing);
        let names: Vec<&str> = f.entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(
            names,
            ["after.txt", "sparse.img"],
            "{name}: no GNUSparseFile.N folder"
        );
        assert_eq!(entry(f, "sparse.img").size, Some(385_024), "{name}");
        assert_eq!(entry(f, "sparse.img").error, None, "{name}");
        assert_eq!(entry(f, "after.txt").size, Some(22), "{name}");
    }
}

#[test]
fn sparse_files_read_their_logical_bytes_with_holes_as_zeros() {
    let t = variants();
    let want = std::fs::read(t.path().join("src/sparse.img")).unwrap();
    for (name, img) in [
        ("gnu-sparse.tar", "sparse.img"),
        ("gnu-sparse.tar.gz", "sparse.img"),
        ("pax-sparse-0.0.tar", "sparse.img"),
        ("pax-sparse-0.1.tar", "sparse.img"),
        ("pax-sparse-1.0.tar", "sparse.img"),
        ("pax-sparse-1.0.tar.gz", "sparse.img"),
        ("named-sparse.tar.gz", "sparse.img.zip"),
    ] {
        let img = t.path().join(name).join(img);
        assert_same_bytes(
            &bytes_at(&img, 0, 1 << 20).unwrap(),
            &want,
            &format!("{name}: the whole file"),
        );
        // From inside a hole, inside a run, and across the last hole to the end.
        for (offset, len) in [(100, 9000), (8192 + 4000, 300), (360_000, 100_000)] {
            let end = (offset + len).min(want.len());
            assert_same_bytes(
                &bytes_at(&img, offset as u64, len as u64).unwrap(),
                &want[offset..end],
                &format!("{name}: {len} bytes from {offset}"),
            );
        }
        let after = bytes_at(&t.path().join(name).join("after.txt"), 0, 100).unwrap();
        assert_eq!(after, b"after the sparse file\n", "{name}");
    }
}

#[test]
fn sparse_maps_from_a_generator_read_as_python_reads_them_or_are_an_error_on_their_entry() {
    let t = tempfile::tempdir().unwrap();
    let seeds = seeds();
    let args: Vec<String> = seeds.iter().map(u64::to_string).collect();
    python(t.path(), SPARSE_ROUNDS, &args);
    let (mut true_maps, mut lies) = (0, 0);
    for seed in seeds {
        let round = t.path().join(seed.to_string());
        let archive = round.join("h.tar");
        // GNU tar lists every member (bsdtar gives up on some lying maps).
        let (theirs, _, _) = gnu_tar(&archive);
        assert_lists_as(&canopy(&archive), &theirs, &format!("seed {seed}"));
        let listing = list_all(&archive);
        let f = top(&listing);
        assert_eq!(
            listing.root.error, None,
            "seed {seed}: the archive reads to its end"
        );
        assert_eq!(entry(f, "after.txt").error, None, "seed {seed}");
        for e in f.entries.iter().filter(|e| e.name != "after.txt") {
            let path = archive.join(&e.name);
            if let Ok(want) = std::fs::read(round.join(format!("{}.want", e.name))) {
                true_maps += 1;
                assert_eq!(code_of(e), None, "seed {seed}: {}", e.name);
                assert_same_bytes(
                    &bytes_at(&path, 0, 1 << 20).unwrap(),
                    &want,
                    &format!("seed {seed}: {} reads as Python reads it", e.name),
                );
            } else {
                lies += 1;
                assert!(
                    matches!(code_of(e), Some(ErrorCode::Corrupt | ErrorCode::TooLarge)),
                    "seed {seed}: {} has a lying map: {:?}",
                    e.name,
                    e.error
                );
                let err = bytes_at(&path, 0, 100).unwrap_err();
                assert_eq!(Some(err.code), code_of(e), "seed {seed}: {}", e.name);
            }
        }
    }
    eprintln!("sparse maps: {true_maps} true, {lies} lying");
    assert!(true_maps > 0 && lies > 0, "the generator makes both");
}

#[test]
fn signed_checksums_read_as_a_tar_even_in_the_first_header() {
    let t = variants();
    // Told from its first bytes in a folder's listing: its first header is signed.
    let folder = list_all(t.path());
    assert_eq!(
        entry(top(&folder), "signed.tar").archive,
        Some(ArchiveFormat::Tar),
        "an old tar is a tar"
    );
    let listing = list_all(&t.path().join("signed.tar"));
    assert_eq!(listing.root.error, None);
    let f = top(&listing);
    assert_eq!(
        entry(entry(f, "v7-dir").folder.as_deref().unwrap(), "plain.txt").size,
        Some(3)
    );
    let hpux = f
        .entries
        .iter()
        .find(|e| e.name.starts_with("hpux-signed-"))
        .unwrap();
    assert_eq!(hpux.size, Some(6));
    let raw = t
        .path()
        .join("signed.tar")
        .join(std::ffi::OsStr::from_bytes(b"hpux-signed-\xc4\xd6\xdc.txt"));
    assert_eq!(bytes_at(&raw, 0, 100).unwrap(), b"hp-ux\n");
    assert_eq!(
        bytes_at(&t.path().join("signed.tar/after.txt"), 0, 100).unwrap(),
        b"after\n"
    );
}

#[test]
fn a_solaris_x_header_names_its_entry_and_is_never_listed() {
    let t = variants();
    let listing = list_all(&t.path().join("solaris.tar"));
    let f = top(&listing);
    let solaris = entry(f, "solaris").folder.as_deref().unwrap();
    let names: Vec<&str> = solaris.entries.iter().map(|e| e.name.as_str()).collect();
    let long = format!("{}.txt", "long-".repeat(30));
    assert_eq!(
        names,
        [long.as_str()],
        "the X header is no entry; its path names the one after it"
    );
    assert_eq!(
        entry(solaris, &long).modified,
        Some(1_041_808_783_000),
        "its mtime too"
    );
    assert_eq!(entry(f, "after.txt").error, None);
}

#[test]
fn a_hard_link_says_what_it_links_to_and_previews_that_files_bytes() {
    let t = variants();
    let want = "hard linked\n".repeat(50);
    for name in ["links.tar", "links.tar.gz"] {
        let archive = t.path().join(name);
        let listing = list_all(&archive);
        let f = top(&listing);
        // GNU tar stores the first name it meets as the file, the others as links to it.
        let dir = entry(f, "dir").folder.as_deref().unwrap();
        let (file, link): (Vec<&Entry>, Vec<&Entry>) =
            dir.entries.iter().partition(|e| e.link.is_none());
        assert_eq!((file.len(), link.len()), (1, 1), "{name}: {dir:?}");
        let file_path = format!("dir/{}", file[0].name);
        for (path, e) in [
            ("b.txt", entry(f, "b.txt")),
            (&format!("dir/{}", link[0].name), link[0]),
        ] {
            let l = e
                .link
                .as_deref()
                .unwrap_or_else(|| panic!("{name}: {path} says what it links to"));
            assert_eq!(l.target, file_path, "{name}: {path}");
            assert_eq!(l.points_to, LinkTarget::File, "{name}: {path}");
            assert_eq!(
                (e.kind, e.size, e.error.clone()),
                (EntryKind::File, Some(600), None),
                "{name}: {path}"
            );
            assert!(e.can_preview, "{name}: {path}");
            assert_eq!(
                bytes_at(&archive.join(path), 0, 1 << 20).unwrap(),
                want.as_bytes(),
                "{name}: {path}"
            );
            // From an offset, as "Load more" asks.
            assert_eq!(
                bytes_at(&archive.join(path), 590, 100).unwrap(),
                want.as_bytes()[590..],
                "{name}: {path}"
            );
            // Text mode says it as it says a symlink's target.
            let mut line = Vec::new();
            canopy_core::text::write_entry(e, path, &mut line).unwrap();
            assert_eq!(
                String::from_utf8(line).unwrap(),
                format!("[FILE] {path} -> {file_path}\n")
            );
        }
        assert_eq!(
            entry(f, "sym").link.as_deref().unwrap().target,
            "dir/a.txt",
            "{name}"
        );
    }
}

#[test]
fn a_hard_link_and_its_file_are_one_file_in_folder_sizes() {
    let t = variants();
    for name in ["links.tar", "links.tar.gz"] {
        let r = canopy_core::sizes(
            &source(),
            &t.path().join(name),
            &canopy_core::SizesCall::default(),
            None,
            None,
        )
        .unwrap();
        // dir/a.txt, dir/c.txt and b.txt are one file of 600 bytes (as `du` counts them).
        assert_eq!(r.root.sizes.apparent, 600, "{name}: {:?}", r.root.sizes);
        assert!(!r.root.sizes.is_lower_bound, "{name}");
    }
}

#[test]
fn a_hard_link_to_nothing_a_later_entry_itself_or_round_gets_its_error() {
    let t = variants();
    let archive = t.path().join("broken-links.tar");
    let listing = within_a_minute("listing broken hard links", {
        let archive = archive.clone();
        move || list_all(&archive)
    });
    assert_eq!(listing.root.error, None);
    let f = top(&listing);
    for (name, code, points_to) in [
        ("to-real", None, LinkTarget::File),
        ("chain", None, LinkTarget::File),
        ("to-missing", Some(ErrorCode::Corrupt), LinkTarget::Dangling),
        ("to-later", Some(ErrorCode::Corrupt), LinkTarget::Dangling),
        ("to-self", Some(ErrorCode::Loop), LinkTarget::Loop),
        ("cycle-a", Some(ErrorCode::Loop), LinkTarget::Loop),
        ("cycle-b", Some(ErrorCode::Loop), LinkTarget::Loop),
        ("to-dir", Some(ErrorCode::Corrupt), LinkTarget::Folder),
        ("to-sym", None, LinkTarget::Other),
        (
            "to-unsafe",
            Some(ErrorCode::UnsafeName),
            LinkTarget::Unknown,
        ),
    ] {
        let e = entry(f, name);
        let l = e
            .link
            .as_deref()
            .unwrap_or_else(|| panic!("{name} says what it links to"));
        assert_eq!(
            (code_of(e), l.points_to),
            (code, points_to),
            "{name}: {:?}",
            e.error
        );
        let read = bytes_at(&archive.join(name), 0, 100);
        match code {
            None if points_to == LinkTarget::File => {
                assert_eq!(read.unwrap(), b"real\n", "{name}");
                assert_eq!(e.size, Some(5), "{name}: the size of the file it has");
            }
            None => assert_eq!(read.unwrap_err().code, ErrorCode::NotAFile, "{name}"),
            Some(code) => {
                assert_eq!(read.unwrap_err().code, code, "{name}: the preview says why");
                assert!(!e.can_preview, "{name}");
            }
        }
    }
    assert_eq!(entry(f, "after.txt").error, None);
}

#[test]
fn hard_link_graphs_from_a_generator_read_as_gnu_tar_extracts_them() {
    let t = tempfile::tempdir().unwrap();
    let seeds = seeds();
    let args: Vec<String> = seeds.iter().map(u64::to_string).collect();
    python(t.path(), LINK_ROUNDS, &args);
    let (mut made, mut refused) = (0, 0);
    for seed in seeds {
        let round = t.path().join(seed.to_string());
        let archive = round.join("l.tar");
        assert_lists_as(
            &canopy(&archive),
            &bsdtar(&archive),
            &format!("seed {seed}"),
        );
        let listing = within_a_minute(&format!("seed {seed}: listing hard links"), {
            let archive = archive.clone();
            move || list_all(&archive)
        });
        for e in top(&listing).entries.iter().filter(|e| e.link.is_some()) {
            let points_to = e.link.as_deref().unwrap().points_to;
            let read = bytes_at(&archive.join(&e.name), 0, 100);
            match std::fs::read(round.join("x").join(&e.name)) {
                Ok(want) => {
                    made += 1;
                    assert_eq!(
                        (code_of(e), points_to),
                        (None, LinkTarget::File),
                        "seed {seed}: {}",
                        e.name
                    );
                    assert_eq!(read.unwrap(), want, "seed {seed}: {}", e.name);
                }
                Err(_) => {
                    refused += 1;
                    assert!(
                        matches!(code_of(e), Some(ErrorCode::Corrupt | ErrorCode::Loop)),
                        "seed {seed}: GNU tar cannot make {}, Canopy says {:?} ({points_to:?})",
                        e.name,
                        e.error
                    );
                    assert!(
                        matches!(points_to, LinkTarget::Dangling | LinkTarget::Loop),
                        "seed {seed}: {}",
                        e.name
                    );
                    assert_eq!(
                        Some(read.unwrap_err().code),
                        code_of(e),
                        "seed {seed}: {}",
                        e.name
                    );
                }
            }
        }
    }
    eprintln!("hard links: {made} made by GNU tar, {refused} refused");
    assert!(made > 0 && refused > 0, "the generator makes both");
}

#[test]
fn a_pax_number_past_64_bits_is_an_error_on_its_entry_as_gnu_tar_reports_it() {
    let t = variants();
    for name in ["pax-size-2e64.tar", "pax-size-2e63.tar"] {
        let archive = t.path().join(name);
        let (theirs, ok, err) = gnu_tar(&archive);
        assert!(
            !ok && err.contains("out of range"),
            "{name}: GNU tar reports it: {err}"
        );
        assert_lists_as(&canopy(&archive), &theirs, name);
        let listing = list_all(&archive);
        assert_eq!(listing.root.error, None, "{name}: the archive reads on");
        let f = top(&listing);
        let big = entry(f, "big");
        assert_eq!(code_of(big), Some(ErrorCode::Corrupt), "{name}");
        assert!(
            big.error.as_ref().unwrap().message.contains("size="),
            "{name}: {:?}",
            big.error
        );
        assert_eq!(
            bytes_at(&archive.join("big"), 0, 10).unwrap_err().code,
            ErrorCode::Corrupt
        );
        assert_eq!(entry(f, "after.txt").error, None, "{name}");
        assert_eq!(
            bytes_at(&archive.join("after.txt"), 0, 10).unwrap(),
            b"after\n"
        );
    }
}
