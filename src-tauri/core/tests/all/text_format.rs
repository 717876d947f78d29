//! `canopy-list`'s text format parses back: a parser written from the
//! README's grammar reads random listings (names holding ` -> `, the link
//! notes, `: N items hidden (`, every escape, bytes that are not UTF-8) and
//! gets each entry's exact path bytes (its handle), kind and link target.

use crate::common;

use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use canopy_core::names::decode_handle;
use canopy_core::text::{write_text_measured, Measure};
use canopy_core::wire::RestGroup;
use canopy_core::wire::{EntryKind, Folder, LinkTarget, Listing};
use common::{make_repository, ListOptions, Tree};
use proptest::prelude::*;

/// One line, as the grammar reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Line {
    Entry {
        kind: String,
        path: Vec<u8>,
        link: Option<(Vec<u8>, &'static str)>,
        /// `--sizes`: a folder's size, as printed inside its parentheses.
        size: Option<String>,
    },
    /// `--sizes`: the listed folder's own size, first.
    Size {
        label: Vec<u8>,
        size: String,
    },
    Error {
        code: String,
        path: Vec<u8>,
    },
    /// `--sizes`: why the size of the folder above is a lower bound.
    Lower {
        code: String,
        count: u64,
        example: Vec<u8>,
    },
    Warning {
        label: Vec<u8>,
        hidden: u64,
        first: u64,
        last: u64,
        at_least: bool,
        total: u64,
    },
    Match {
        label: Vec<u8>,
        matched: u64,
        of: u64,
        pattern: Vec<u8>,
    },
    Rest {
        label: Vec<u8>,
        groups: Vec<String>,
    },
    Ignored {
        label: Vec<u8>,
        hidden: u64,
    },
}

const KINDS: &[&str] = &[
    "DIR",
    "FILE",
    "LINK",
    "FIFO",
    "SOCKET",
    "CHAR_DEVICE",
    "BLOCK_DEVICE",
    "UNKNOWN",
    "ARCHIVE",
];
const NOTES: &[&str] = &[
    " (dangling)",
    " (loop)",
    " (unchecked)",
    " (outside the roots)",
];

/// `ESCAPED` back to bytes: `\\`, `\n`, `\t`, `\r`, `\u{HEX}`, `\xHH`; any
/// other character stands for itself.
fn unescape(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
            continue;
        }
        match chars.next() {
            Some('\\') => out.push(b'\\'),
            Some('n') => out.push(b'\n'),
            Some('t') => out.push(b'\t'),
            Some('r') => out.push(b'\r'),
            Some('x') => {
                let hex: String = chars.by_ref().take(2).collect();
                out.push(
                    u8::from_str_radix(&hex, 16)
                        .unwrap_or_else(|_| panic!("bad \\x escape in {text:?}")),
                );
            }
            Some('u') => {
                assert_eq!(chars.next(), Some('{'), "\\u{{ in {text:?}");
                let hex: String = chars.by_ref().take_while(|&c| c != '}').collect();
                let c = char::from_u32(u32::from_str_radix(&hex, 16).unwrap()).unwrap();
                out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
            }
            other => panic!("unknown escape \\{other:?} in {text:?}"),
        }
    }
    out
}

/// `[WARNING] LABEL: H items hidden (showing first N|A-B [of|of at least] T total)`:
/// read from the end, so the label may hold anything.
fn parse_warning(rest: &str) -> Line {
    let body = rest
        .strip_suffix(" total)")
        .expect("a warning ends with ' total)'");
    let (body, total) = body.rsplit_once(' ').unwrap();
    let (body, at_least) = match body.strip_suffix(" of at least") {
        Some(b) => (b, true),
        None => (body.strip_suffix(" of").unwrap(), false),
    };
    let (body, range) = body.rsplit_once(' ').unwrap();
    let (body, first, last) = match body.strip_suffix(" (showing first") {
        Some(b) => (b, 1, range.parse().unwrap()),
        None => {
            let (a, b) = range.split_once('-').unwrap();
            (
                body.strip_suffix(" (showing").unwrap(),
                a.parse().unwrap(),
                b.parse().unwrap(),
            )
        }
    };
    let body = body.strip_suffix(" items hidden").unwrap();
    let (label, hidden) = body.rsplit_once(": ").unwrap();
    Line::Warning {
        label: unescape(label),
        hidden: hidden.parse().unwrap(),
        first,
        last,
        at_least,
        total: total.parse().unwrap(),
    }
}

/// `[MATCH] LABEL: M of N entries match "PATTERN"`: the pattern holds no
/// raw `"`, so the last ` entries match "` is the real one.
fn parse_match(rest: &str) -> Line {
    let body = rest
        .strip_suffix('"')
        .expect("a match line ends with a quote");
    let (body, pattern) = body.rsplit_once(" entries match \"").unwrap();
    assert!(
        !pattern.contains('"'),
        "no raw quote in the pattern: {rest}"
    );
    let (body, of) = body.rsplit_once(" of ").unwrap();
    let (label, matched) = body.rsplit_once(": ").unwrap();
    Line::Match {
        label: unescape(label),
        matched: matched.parse().unwrap(),
        of: of.parse().unwrap(),
        pattern: unescape(pattern),
    }
}

/// A trailing ` (SIZE)` as the grammar reads it: ` (` [`≥ `] N[.DD] UNIT `)`
/// or ` (another disk)`; the text before it and the size inside.
fn split_size(rest: &str) -> Option<(&str, String)> {
    let body = rest.strip_suffix(')')?;
    let (before, inner) = body.rsplit_once(" (")?;
    if inner == "another disk" {
        return Some((before, inner.into()));
    }
    let bare = inner.strip_prefix("≥ ").unwrap_or(inner);
    let (n, unit) = bare.split_once(' ')?;
    let digits = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
    let number = match n.split_once('.') {
        Some((w, h)) => digits(w) && h.len() == 2 && digits(h),
        None => digits(n),
    };
    let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    (number && units.contains(&unit)).then(|| (before, inner.to_string()))
}

/// The size text the grammar promises: bytes below 1024 as `N B`, else two
/// decimals rounded down in the largest binary unit that keeps it >= 1;
/// `≥ ` first for a lower bound.
fn size_text(s: &canopy_core::wire::FolderSizes, apparent: bool) -> String {
    if s.other_disk {
        return "another disk".into();
    }
    let bytes = if apparent { s.apparent } else { s.disk_usage };
    let least = if s.is_lower_bound { "≥ " } else { "" };
    if bytes < 1024 {
        return format!("{least}{bytes} B");
    }
    let units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut u = 0;
    while u + 1 < units.len() && u128::from(bytes) >= 1u128 << (10 * (u + 2)) {
        u += 1;
    }
    let h = (u128::from(bytes) * 100) >> (10 * (u + 1));
    format!("{least}{}.{:02} {}", h / 100, h % 100, units[u])
}

fn parse(line: &str) -> Line {
    let (tag, rest) = line
        .strip_prefix('[')
        .and_then(|l| l.split_once("] "))
        .expect("[TAG] first");
    let arrows = rest.matches(" -> ").count();
    if tag == "WARNING" {
        return parse_warning(rest);
    }
    if tag == "SIZE" {
        let (label, size) = split_size(rest).expect("a [SIZE] line ends with its size");
        return Line::Size {
            label: unescape(label),
            size,
        };
    }
    if tag == "MATCH" {
        return parse_match(rest);
    }
    if tag == "LOWER BOUND" {
        // CODE and N hold no space: the example is the rest of the line.
        let (code, rest) = rest.split_once(" in ").unwrap();
        let (count, example) = rest.split_once(" folder(s), e.g. ").unwrap();
        assert!(
            code.chars().all(|c| c.is_ascii_uppercase() || c == '_'),
            "a code: {line}"
        );
        assert_eq!(arrows, 0, "no ` -> ` off a link line: {line}");
        return Line::Lower {
            code: code.into(),
            count: count.parse().unwrap(),
            example: unescape(example),
        };
    }
    if tag == "REST" {
        // The groups never hold ": ", so the last one ends the label.
        let (label, groups) = rest.rsplit_once(": ").unwrap();
        let groups: Vec<String> = groups.split(", ").map(String::from).collect();
        for g in &groups {
            let (n, what) = g.split_once(' ').unwrap();
            assert!(n.parse::<u64>().is_ok(), "{g}");
            let ext = what.strip_prefix('.').unwrap_or("");
            assert!(
                ["folders", "without extension", "other"].contains(&what)
                    || (!ext.is_empty()
                        && ext.len() <= 16
                        && ext
                            .bytes()
                            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())),
                "a group: {g}"
            );
        }
        return Line::Rest {
            label: unescape(label),
            groups,
        };
    }
    if tag == "IGNORED" {
        let body = rest.strip_suffix(" items hidden by ignore rules").unwrap();
        let (label, n) = body.rsplit_once(": ").unwrap();
        return Line::Ignored {
            label: unescape(label),
            hidden: n.parse().unwrap(),
        };
    }
    if !KINDS.contains(&tag) {
        assert!(
            tag.chars().all(|c| c.is_ascii_uppercase() || c == '_'),
            "an error code: {tag}"
        );
        assert_eq!(arrows, 0, "no ` -> ` off a link line: {line}");
        return Line::Error {
            code: tag.into(),
            path: unescape(rest),
        };
    }
    if tag != "LINK" {
        assert_eq!(arrows, 0, "no ` -> ` off a link line: {line}");
        let (rest, size) = match split_size(rest) {
            Some((path, size)) if tag == "DIR" => (path, Some(size)),
            _ => (rest, None),
        };
        return Line::Entry {
            kind: tag.into(),
            path: unescape(rest),
            link: None,
            size,
        };
    }
    assert_eq!(arrows, 1, "` -> ` exactly once on a link line: {line}");
    let (path, target) = rest.split_once(" -> ").unwrap();
    let (target, note) = match NOTES.iter().find(|n| target.ends_with(*n)) {
        Some(n) => (&target[..target.len() - n.len()], *n),
        None => (target, ""),
    };
    Line::Entry {
        kind: tag.into(),
        path: unescape(path),
        link: Some((unescape(target), note)),
        size: None,
    }
}

/// The `[LOWER BOUND]` lines a folder's sizes must read as: each
/// shortfall's example is the escaped form of a path's bytes.
fn lower_lines(s: &canopy_core::wire::FolderSizes) -> Vec<Line> {
    s.shortfalls
        .iter()
        .map(|f| Line::Lower {
            code: f.code.as_str().into(),
            count: f.count,
            example: if f.example.is_empty() {
                b".".to_vec()
            } else {
                unescape(&f.example)
            },
        })
        .collect()
}

/// Gives every folder of `listing` with sizes a reason to be a lower bound:
/// `DENIED` in `depth` folders, its own path (the worst names) the example.
fn make_lower_bounds(e: &mut canopy_core::wire::Entry, root: &Path, depth: u64) {
    let Some(folder) = e.folder.as_mut() else {
        return;
    };
    if let Some(s) = folder.sizes.as_mut() {
        let path = decode_handle(&e.handle).unwrap();
        let rel = path
            .strip_prefix(root)
            .unwrap()
            .as_os_str()
            .as_bytes()
            .to_vec();
        s.is_lower_bound = true;
        s.shortfalls = vec![canopy_core::wire::Shortfall {
            code: canopy_core::wire::ErrorCode::Denied,
            count: depth + 1,
            example: canopy_core::names::escape_for_line(&rel),
        }];
    }
    for child in &mut folder.entries {
        make_lower_bounds(child, root, depth + 1);
    }
}

fn tag(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::Folder => "DIR",
        EntryKind::File => "FILE",
        EntryKind::Symlink => "LINK",
        EntryKind::Fifo => "FIFO",
        EntryKind::Socket => "SOCKET",
        EntryKind::CharDevice => "CHAR_DEVICE",
        EntryKind::BlockDevice => "BLOCK_DEVICE",
        EntryKind::Unknown => "UNKNOWN",
    }
}

/// The lines the listing must read as, from its handles and the filesystem
/// (not from the text writer).
fn expected(folder: &Folder, root: &Path, label: Vec<u8>, apparent: bool, out: &mut Vec<Line>) {
    for e in &folder.entries {
        let path = decode_handle(&e.handle).unwrap();
        let rel = path
            .strip_prefix(root)
            .unwrap()
            .as_os_str()
            .as_bytes()
            .to_vec();
        let link = e.link.as_ref().map(|l| {
            let target = std::fs::read_link(&path)
                .unwrap()
                .as_os_str()
                .as_bytes()
                .to_vec();
            let note = match l.points_to {
                LinkTarget::Dangling => NOTES[0],
                LinkTarget::Loop => NOTES[1],
                LinkTarget::Unknown => NOTES[2],
                LinkTarget::Outside => NOTES[3],
                _ => "",
            };
            (target, note)
        });
        out.push(Line::Entry {
            kind: if e.archive.is_some() {
                "ARCHIVE".into()
            } else {
                tag(e.kind).into()
            },
            path: rel.clone(),
            link,
            size: e
                .folder
                .as_ref()
                .and_then(|f| f.sizes.as_ref())
                .map(|s| size_text(s, apparent)),
        });
        if let Some(err) = &e.error {
            out.push(Line::Error {
                code: err.code.as_str().into(),
                path: rel.clone(),
            });
        }
        if let Some(s) = e.folder.as_ref().and_then(|f| f.sizes.as_ref()) {
            out.extend(lower_lines(s));
        }
        if let Some(sub) = e.folder.as_ref().filter(|f| f.children_loaded) {
            expected(sub, root, rel, apparent, out);
        }
    }
    let total = folder.total.unwrap();
    let shown = folder.entries.len() as u64;
    if total > shown || folder.count_is_lower_bound {
        out.push(Line::Warning {
            label: label.clone(),
            hidden: total - shown,
            first: folder.offset + 1,
            last: folder.offset + shown,
            at_least: folder.count_is_lower_bound,
            total,
        });
        if !folder.rest.is_empty() {
            out.push(Line::Rest {
                label: label.clone(),
                groups: folder.rest.iter().map(RestGroup::label).collect(),
            });
        }
    }
    if folder.ignored_hidden > 0 {
        out.push(Line::Ignored {
            label,
            hidden: folder.ignored_hidden,
        });
    }
}

fn name() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        6 => proptest::sample::select(vec![
            "a", "Z", "7", " ", "-", ">", "(", ")", ":", "é", " -> ", "->", " -", " (dangling)", " (loop)",
            " (unchecked)", ": 3 items hidden (", " items hidden (showing first 1 of 2 total)", "[FILE] ", "[WARNING] ",
            "\\", "\\u{3e}", "\\x41", " (1.52 GiB)", " (≥ 12 B)", " (another disk)", " (4 KiB)", "\n", "\t", "\r", "\u{1b}", "\u{85}", "\u{2028}", "\u{2029}", "\u{202e}",
            "\u{200b}", "\u{ad}", "\u{3164}", "\u{115f}", "\u{e0041}", "\u{feff}", "\u{fffd}",
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
        1 => proptest::sample::select(vec![vec![0xffu8], vec![0xe9], vec![0xc3], vec![0x80]]),
    ];
    proptest::collection::vec(piece, 1..5)
        .prop_map(|ps| ps.concat())
        .prop_filter("a file name", |n| n != b"." && n != b".." && n.len() <= 255)
}

#[derive(Debug, Clone)]
enum Node {
    File,
    Fifo,
    /// A link to this text (often dangling), to a sibling named `sibling`
    /// (live), to itself (loop), or through a component too long to check.
    Link(Vec<u8>),
    LinkToSibling,
    LinkToSelf,
    LinkUnchecked,
    Dir(Vec<(Vec<u8>, Node)>),
    /// A zip (stored, UTF-8 names) of files at these paths inside it.
    Zip(Vec<Vec<Vec<u8>>>),
}

fn leaf() -> impl Strategy<Value = Node> {
    prop_oneof![
        4 => Just(Node::File),
        1 => Just(Node::Fifo),
        2 => name().prop_map(Node::Link),
        1 => Just(Node::LinkToSibling),
        1 => Just(Node::LinkToSelf),
        1 => Just(Node::LinkUnchecked),
    ]
}

fn node() -> impl Strategy<Value = Node> {
    let paths = proptest::collection::vec(proptest::collection::vec(name(), 1..3), 0..5);
    prop_oneof![
        3 => leaf(),
        1 => proptest::collection::vec((name(), leaf()), 0..6).prop_map(Node::Dir),
        1 => paths.prop_map(Node::Zip),
    ]
}

/// A stored zip whose entries are `paths` (segments joined by `/`), each
/// holding its own path; names as raw bytes with the UTF-8 flag.
fn write_zip(at: &Path, paths: &[Vec<Vec<u8>>]) {
    let (mut out, mut central) = (Vec::new(), Vec::new());
    let mut count = 0u16;
    let mut seen = std::collections::BTreeSet::new();
    for segments in paths {
        let path = segments.join(&b'/');
        // A name of dots, an empty one or one starting with a drive letter (`a:`) would be
        // an unsafe name, listed under a handle of its escaped form: those have their own test.
        let drive = path.len() >= 2 && path[1] == b':' && path[0].is_ascii_alphabetic();
        if drive
            || segments
                .iter()
                .any(|s| s.is_empty() || s.iter().all(|&b| b == b'.') || s.contains(&b'\\'))
            || !seen.insert(path.clone())
        {
            continue;
        }
        let crc = crc32(&path);
        let offset = out.len() as u32;
        let header = |sig: u32, central: bool| {
            let mut h = Vec::new();
            h.extend_from_slice(&sig.to_le_bytes());
            if central {
                h.extend_from_slice(&20u16.to_le_bytes());
            }
            for v in [20u16, 1 << 11, 0, 0, 0] {
                h.extend_from_slice(&v.to_le_bytes());
            }
            for v in [crc, path.len() as u32, path.len() as u32] {
                h.extend_from_slice(&v.to_le_bytes());
            }
            h.extend_from_slice(&(path.len() as u16).to_le_bytes());
            h.extend_from_slice(&0u16.to_le_bytes());
            if central {
                for v in [0u16, 0, 0] {
                    h.extend_from_slice(&v.to_le_bytes());
                }
                h.extend_from_slice(&0u32.to_le_bytes());
                h.extend_from_slice(&offset.to_le_bytes());
            }
            h.extend_from_slice(&path);
            h
        };
        out.extend_from_slice(&header(0x0403_4b50, false));
        out.extend_from_slice(&path);
        central.extend_from_slice(&header(0x0201_4b50, true));
        count += 1;
    }
    let cd_offset = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    for v in [0u16, 0, count, count] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    std::fs::write(at, out).unwrap();
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn build(dir: &Path, entries: &[(Vec<u8>, Node)]) {
    std::fs::write(dir.join("sibling"), b"").unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for (n, node) in entries {
        if !seen.insert(n.clone()) || n == b"sibling" {
            continue;
        }
        let p = dir.join(std::ffi::OsStr::from_bytes(n));
        let link = |target: &[u8]| {
            std::os::unix::fs::symlink(std::ffi::OsStr::from_bytes(target), &p).unwrap()
        };
        match node {
            Node::File => std::fs::write(&p, b"").unwrap(),
            Node::Fifo => {
                let c = std::ffi::CString::new(p.as_os_str().as_bytes()).unwrap();
                assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
            }
            Node::Link(target) => link(target),
            Node::LinkToSibling => link(b"sibling"),
            Node::LinkToSelf => link(n),
            Node::LinkUnchecked => link(&[b'a'; 300]),
            Node::Dir(kids) => {
                std::fs::create_dir(&p).unwrap();
                build(&p, kids);
            }
            Node::Zip(paths) => {
                // Only a name that ends like an archive is looked at.
                let mut named = p.into_os_string();
                named.push(".zip");
                write_zip(Path::new(&named), paths)
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn random_listings_parse_back_to_each_entrys_exact_bytes_and_kind(
        entries in proptest::collection::vec((name(), node()), 0..10),
        cap in 1u32..5,
        limit in 1u64..12,
        filter in proptest::option::of(proptest::sample::select(vec!["a", "*a*", "\"", "\\\" entries match \"", ": 1 of 2", "\n", "?*"])),
        hide_ignored in proptest::bool::ANY,
        sizes in proptest::option::of(proptest::bool::ANY),
        lower in proptest::bool::ANY,
    ) {
        let t = Tree::new();
        let root = t.dir("root \u{2028} -> x (loop)");
        build(&root, &entries);
        // A repository ignoring names that start with Z, and anything in a folder named "a".
        make_repository(&root);
        std::fs::write(root.join(".gitignore"), b"Z*\na/\n").unwrap();
        let opts = ListOptions {
            depth: 2,
            cap,
            limit: Some(limit),
            filter: filter.map(String::from),
            hide_ignored,
            ..ListOptions::default()
        };
        // Through archives too: each zip is listed inside (`--archives`).
        let call = canopy_core::ListCall { archives: true, ..opts.call() };
        let source = canopy_core::WithArchives::new(canopy_core::LocalFs::new());
        let mut listing: Listing = canopy_core::list(&source, &root, &opts.settings(), &call).unwrap();
        // `--sizes` (Some(apparent)): every folder's size after its path.
        let apparent = sizes.unwrap_or(false);
        if sizes.is_some() {
            let call = canopy_core::SizesCall { report: canopy_core::Reported::Depth(2), ..canopy_core::SizesCall::default() };
            let report = canopy_core::sizes(&source, &root, &call, None, None).unwrap();
            canopy_core::attach_sizes(&mut listing, &report);
            if lower {
                make_lower_bounds(&mut listing.root, &root, 0);
            }
        }
        let measure = if apparent { Measure::Apparent } else { Measure::DiskUsage };
        let mut text = Vec::new();
        write_text_measured(&listing, measure, &mut text).unwrap();
        let text = String::from_utf8(text).expect("text mode is UTF-8");
        prop_assert!(!text.contains(['\u{2028}', '\u{2029}', '\r', '\u{85}']), "nothing a tool splits lines on");
        let got: Vec<Line> = text.lines().map(parse).collect();
        let mut want = Vec::new();
        let label = root.file_name().unwrap().as_bytes().to_vec();
        if let Some(s) = listing.root.folder.as_ref().and_then(|f| f.sizes.as_ref()) {
            want.push(Line::Size { label: label.clone(), size: size_text(s, apparent) });
            want.extend(lower_lines(s));
        }
        if let Some(f) = filter {
            let top = listing.root.folder.as_ref().unwrap();
            want.push(Line::Match { label: label.clone(), matched: top.total.unwrap(), of: top.unfiltered_total.unwrap(), pattern: f.as_bytes().to_vec() });
        }
        expected(listing.root.folder.as_ref().unwrap(), &root, label, apparent, &mut want);
        prop_assert_eq!(got, want);
    }
}
