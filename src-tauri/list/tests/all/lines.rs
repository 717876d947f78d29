//! `canopy-list`'s lines are bounded: whatever the names, targets and depth
//! a seeded generator makes (and a tar's 256 KiB name), no line is longer than
//! `LIST_LINE_BYTES`, a path or target that was cut says so with
//! `\cut{N}` (N the bytes left out, true to the whole field), a name that
//! holds the marker's text cannot forge one, and each line keeps the
//! grammar (` -> ` once on a link line, nowhere else). The seed is printed
//! on failure (`CANOPY_LINES_SEED=N` replays it).

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Command;

use canopy_core::limits::{LINE_FIELD_BYTES, LIST_LINE_BYTES};
use canopy_core::text::line_name;
use serde_json::Value;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// What escapes widest: a control byte is 5 bytes escaped, a byte that is
/// not UTF-8 4 (most of a name is made of these).
const WIDE: &[&[u8]] = &[b"\x01", b"\x1b", b"\xff"];

/// Pieces of hostile names besides: the text of the grammar's own marks.
const PIECES: &[&[u8]] = &[
    "\u{200b}".as_bytes(),
    "\u{e0041}".as_bytes(),
    b"\\",
    b" -> ",
    b" (loop)",
    b" (dangling)",
    b" (4 KiB)",
    b"\\cut{7}",
    b"-",
    b">",
    b"\n",
    b"a",
    "\u{e9}".as_bytes(),
];

/// A name of `max / 2` to `max` bytes made of pieces (never `/`, NUL, `.`
/// or `..`).
fn name(rng: &mut Rng, max: usize) -> Vec<u8> {
    let want = max / 2 + rng.below(max / 2);
    let mut out = Vec::new();
    while out.len() < want {
        let piece = if rng.below(4) == 0 {
            PIECES[rng.below(PIECES.len())]
        } else {
            WIDE[rng.below(WIDE.len())]
        };
        if out.len() + piece.len() > max {
            break;
        }
        out.extend_from_slice(piece);
    }
    if out.is_empty() || out == b"." || out == b".." {
        out = b"x".to_vec();
    }
    out
}

/// A tar holding one file under a GNU long name of `len` control bytes.
fn tar_with_long_name(len: usize) -> Vec<u8> {
    fn header(name: &[u8], size: usize, kind: u8) -> [u8; 512] {
        let mut h = [0u8; 512];
        h[..name.len().min(100)].copy_from_slice(&name[..name.len().min(100)]);
        h[100..107].copy_from_slice(b"0000644");
        h[108..115].copy_from_slice(b"0000000");
        h[116..123].copy_from_slice(b"0000000");
        h[124..135].copy_from_slice(format!("{size:011o}").as_bytes());
        h[136..147].copy_from_slice(b"00000000000");
        h[156] = kind;
        h[257..263].copy_from_slice(b"ustar ");
        h[263..265].copy_from_slice(b" \0");
        h[148..156].copy_from_slice(b"        ");
        let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
        h[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
        h
    }
    let long = vec![1u8; len];
    let mut out = Vec::new();
    out.extend_from_slice(&header(b"././@LongLink", len + 1, b'L'));
    out.extend_from_slice(&long);
    out.push(0);
    out.resize(out.len().div_ceil(512) * 512, 0);
    out.extend_from_slice(&header(&long[..100], 2, b'0'));
    out.extend_from_slice(b"hi");
    out.resize(out.len().div_ceil(512) * 512, 0);
    out.extend_from_slice(&[0u8; 1024]);
    out
}

/// A tree of deep folders with long hostile names, links with long
/// targets, a repository with an ignore rule, and the tar.
fn hostile_tree(rng: &mut Rng, root: &Path) {
    let join = |dir: &Path, n: &[u8]| dir.join(OsStr::from_bytes(n));
    for _ in 0..3 {
        let mut dir = root.to_path_buf();
        for _ in 0..2 + rng.below(14) {
            dir = join(&dir, &name(rng, 255));
            if fs::create_dir(&dir).is_err() {
                break;
            }
            for _ in 0..rng.below(3) {
                let _ = fs::write(join(&dir, &name(rng, 255)), b"x");
            }
            let target: Vec<u8> = (0..1 + rng.below(4))
                .flat_map(|_| {
                    let mut part = name(rng, 1000);
                    part.push(b'/');
                    part
                })
                .take(4000)
                .filter(|&b| b != 0)
                .collect();
            let _ =
                std::os::unix::fs::symlink(OsStr::from_bytes(&target), join(&dir, &name(rng, 255)));
            if rng.below(3) == 0 {
                let _ = fs::write(join(&dir, b"x.ign"), b"ignored");
            }
        }
    }
    for d in [".git/objects", ".git/refs"] {
        fs::create_dir_all(root.join(d)).unwrap();
    }
    fs::write(root.join(".git/HEAD"), b"ref: refs/heads/main\n").unwrap();
    fs::write(root.join(".gitignore"), b"*.ign\n").unwrap();
    fs::write(root.join("big.tar"), tar_with_long_name(256 << 10)).unwrap();
}

fn canopy_list(root: &Path, flags: &[&str]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_canopy-list"))
        .arg(root)
        .args(flags)
        .env("XDG_CONFIG_HOME", "/nonexistent-canopy-test-config")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{flags:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Every escaped path (and link target) of a JSON listing, as a line
/// writes it whole.
fn fields(listing: &Value) -> BTreeSet<String> {
    fn parts(v: &Value) -> Option<Vec<canopy_core::names::NamePart>> {
        use canopy_core::names::NamePart;
        let parts = v
            .as_array()?
            .iter()
            .map(|p| match (p.get("text"), p.get("escape")) {
                (Some(t), _) => NamePart::Text(t.as_str().unwrap().into()),
                (_, Some(e)) => NamePart::Escape(e.as_str().unwrap().into()),
                _ => panic!("a name part: {p}"),
            });
        Some(parts.collect())
    }
    fn walk(folder: &Value, at: &str, out: &mut BTreeSet<String>) {
        for e in folder["entries"].as_array().into_iter().flatten() {
            let n = line_name(
                e["name"].as_str().unwrap(),
                parts(&e["nameParts"]).as_deref(),
            );
            let path = if at.is_empty() {
                n
            } else {
                format!("{at}/{n}")
            };
            if let Some(link) = e.get("link") {
                out.insert(line_name(
                    link["target"].as_str().unwrap(),
                    parts(&link["targetParts"]).as_deref(),
                ));
            }
            out.insert(path.clone());
            if let Some(sub) = e.get("folder") {
                walk(sub, &path, out);
            }
        }
    }
    let mut out = BTreeSet::new();
    let root = &listing["root"];
    out.insert(line_name(
        root["name"].as_str().unwrap(),
        parts(&root["nameParts"]).as_deref(),
    ));
    walk(&root["folder"], "", &mut out);
    out
}

/// Where each `\cut{N}` marker of `line` is (a `\\` is a backslash, never
/// the start of a marker): its start, end and N.
fn markers(line: &str) -> Vec<(usize, usize, usize)> {
    let b = line.as_bytes();
    let (mut at, mut found) = (0, Vec::new());
    while at < b.len() {
        if b[at] == b'\\' {
            if line[at..].starts_with("\\cut{") {
                let end = at + line[at..].find('}').unwrap() + 1;
                let n = line[at + 5..end - 1].parse().unwrap();
                found.push((at, end, n));
                at = end;
            } else {
                at += 2;
            }
        } else {
            at += 1;
        }
    }
    found
}

/// What is wrong with `line`, if anything: its length, its arrows, and each
/// marker's truth (the field's head and tail are those of a whole field
/// `N` bytes longer).
fn check(line: &str, whole: &BTreeSet<String>) -> Option<String> {
    if line.len() > LIST_LINE_BYTES {
        return Some(format!("{} bytes", line.len()));
    }
    let arrows = line.matches(" -> ").count();
    if arrows != usize::from(line.starts_with("[LINK] ")) {
        return Some(format!("{arrows} arrows"));
    }
    for (start, end, n) in markers(line) {
        // The field starts after the tag, or after the arrow.
        let from = match line.find(" -> ") {
            Some(a) if a < start => a + 4,
            _ => line.find("] ").unwrap() + 2,
        };
        let (head, tail) = (&line[from..start], &line[end..]);
        let fits = whole.iter().any(|f| {
            f.len() >= head.len() + n
                && f.starts_with(head)
                && tail.starts_with(&f[head.len() + n..])
        });
        if !fits {
            return Some(format!("\\cut{{{n}}} matches no whole field"));
        }
        if head.len() + (end - start) > LINE_FIELD_BYTES {
            return Some("a cut field longer than LINE_FIELD_BYTES".into());
        }
    }
    None
}

#[test]
fn no_line_is_longer_than_the_bound_and_a_cut_says_what_it_left_out() {
    let seed = std::env::var("CANOPY_LINES_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    let mut rng = Rng(seed);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    fs::create_dir(&root).unwrap();
    hostile_tree(&mut rng, &root);
    let pattern = String::from_utf8(vec![1u8; 1000]).unwrap();
    let flag_sets: &[&[&str]] = &[
        &["--depth", "20"],
        &["--depth", "8", "--sizes"],
        &["--depth", "20", "--summary", "--cap", "1"],
        &["--depth", "20", "--gitignore"],
        &["--depth", "3", "--archives"],
        &["--filter", &pattern],
    ];
    let mut cut = 0;
    for flags in flag_sets {
        let json: Value =
            serde_json::from_slice(&canopy_list(&root, &[*flags, &["--json"]].concat())).unwrap();
        let whole = fields(&json);
        let text = String::from_utf8(canopy_list(&root, flags)).expect("the text is UTF-8");
        for line in text.lines() {
            if let Some(why) = check(line, &whole) {
                panic!(
                    "{flags:?}: {why} (replay: CANOPY_LINES_SEED={seed}): {}",
                    line.chars().take(300).collect::<String>()
                );
            }
            cut += markers(line).len();
        }
    }
    assert!(cut > 0, "the tree made lines to cut (seed {seed})");
}
