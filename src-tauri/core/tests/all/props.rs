//! Invariants over random trees: counts add up, caps hold, the order equals a
//! simple reference sort, nothing is listed twice, and every entry within the
//! depth is either shown or counted.

use crate::common;

use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::os::unix::ffi::OsStrExt;

use canopy_core::wire::{EntryKind, Folder};
use common::{list, ListOptions, Tree};
use proptest::prelude::*;

/// A deliberately naive restatement of the order: tokenize eagerly, compare
/// token lists, then raw bytes.
#[derive(Debug, PartialEq, Eq)]
enum Tok {
    Ch(u32),
    Num(Vec<u8>),
}

fn tokens(raw: &[u8]) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut digits: Option<Vec<u8>> = None;
    let flush = |digits: &mut Option<Vec<u8>>, out: &mut Vec<Tok>| {
        if let Some(d) = digits.take() {
            let first = d.iter().position(|&b| b != b'0').unwrap_or(d.len());
            out.push(Tok::Num(d[first..].to_vec()));
        }
    };
    for chunk in raw.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c.is_ascii_digit() {
                digits.get_or_insert_with(Vec::new).push(c as u8);
            } else {
                flush(&mut digits, &mut out);
                out.extend(c.to_lowercase().map(|l| Tok::Ch(l as u32)));
            }
        }
        flush(&mut digits, &mut out);
        out.extend(
            chunk
                .invalid()
                .iter()
                .map(|&b| Tok::Ch(0x11_0000 + b as u32)),
        );
    }
    flush(&mut digits, &mut out);
    out
}

fn tok_cmp(a: &Tok, b: &Tok) -> Ordering {
    let rank = |t: &Tok| match t {
        Tok::Ch(c) if *c < '0' as u32 => 0,
        Tok::Num(_) => 1,
        Tok::Ch(_) => 2,
    };
    match (a, b) {
        (Tok::Ch(x), Tok::Ch(y)) => x.cmp(y),
        (Tok::Num(x), Tok::Num(y)) => (x.len(), x).cmp(&(y.len(), y)),
        _ => rank(a).cmp(&rank(b)),
    }
}

fn reference_cmp(a: &(bool, Vec<u8>), b: &(bool, Vec<u8>)) -> Ordering {
    // Folders (true) first.
    b.0.cmp(&a.0).then_with(|| {
        let (ta, tb) = (tokens(&a.1), tokens(&b.1));
        for (x, y) in ta.iter().zip(tb.iter()) {
            match tok_cmp(x, y) {
                Ordering::Equal => {}
                o => return o,
            }
        }
        ta.len().cmp(&tb.len()).then_with(|| a.1.cmp(&b.1))
    })
}

fn name() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        4 => proptest::sample::select(vec!["a", "A", "b", "B", "z", "0", "1", "2", "9", "10", "007", "_", "-", ".", " ", "é", "É", "İ", "ß"])
            .prop_map(|s| s.as_bytes().to_vec()),
        1 => proptest::sample::select(vec![vec![0xffu8], vec![0xe9], vec![0xc3]]),
    ];
    proptest::collection::vec(piece, 1..6)
        .prop_map(|ps| ps.concat())
        .prop_filter("not . or ..", |n| n != b"." && n != b"..")
}

/// A child of a folder entry: its name, and whether it is a folder.
type ChildSpec = (Vec<u8>, bool);

#[derive(Debug, Clone)]
struct Spec {
    /// (name, Some(children) for a folder)
    entries: Vec<(Vec<u8>, Option<Vec<ChildSpec>>)>,
    depth: u32,
    cap: u32,
    limit: u64,
    show_dotfiles: bool,
}

fn spec() -> impl Strategy<Value = Spec> {
    let child = (name(), any::<bool>());
    let entry = (
        name(),
        proptest::option::of(proptest::collection::vec(child, 0..25)),
    );
    (
        proptest::collection::vec(entry, 0..30),
        1u32..4,
        1u32..12,
        1u64..40,
        any::<bool>(),
    )
        .prop_map(|(entries, depth, cap, limit, show_dotfiles)| Spec {
            entries,
            depth,
            cap,
            limit,
            show_dotfiles,
        })
}

fn build(spec: &Spec) -> Tree {
    let t = Tree::new();
    let mut seen = BTreeSet::new();
    for (n, kids) in &spec.entries {
        if !seen.insert(n.clone()) {
            continue;
        }
        match kids {
            None => {
                t.file(n);
            }
            Some(kids) => {
                t.dir(n);
                let mut kseen = BTreeSet::new();
                for (k, is_dir) in kids {
                    if !kseen.insert(k.clone()) {
                        continue;
                    }
                    let rel = [n.as_slice(), b"/", k.as_slice()].concat();
                    if *is_dir {
                        t.dir(&rel);
                        t.file([rel.as_slice(), b"/leaf"].concat());
                    } else {
                        t.file(&rel);
                    }
                }
            }
        }
    }
    t
}

/// The folder's real entries in reference order.
fn expected(dir: &std::path::Path, show_dotfiles: bool) -> Vec<(bool, Vec<u8>)> {
    let mut v: Vec<(bool, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_type().unwrap().is_dir(),
                e.file_name().as_bytes().to_vec(),
            )
        })
        .filter(|(_, n)| show_dotfiles || n.first() != Some(&b'.'))
        .collect();
    v.sort_by(reference_cmp);
    v
}

fn check(
    folder: &Folder,
    dir: &std::path::Path,
    level: u32,
    spec: &Spec,
    offset: usize,
    limit: usize,
) {
    let want = expected(dir, spec.show_dotfiles);
    let total = folder.total.expect("a folder within the depth is read");
    assert_eq!(
        total as usize,
        want.len(),
        "total is exact for {}",
        dir.display()
    );
    assert_eq!(
        folder.entries.len() as u64 + folder.unlisted.sum(),
        total,
        "counts must add up"
    );
    assert!(folder.entries.len() <= limit, "shown within the cap");
    let got: Vec<Vec<u8>> = folder
        .entries
        .iter()
        .map(|e| {
            canopy_core::names::decode_handle(&e.handle)
                .unwrap()
                .file_name()
                .unwrap()
                .as_bytes()
                .to_vec()
        })
        .collect();
    let unique: BTreeSet<&Vec<u8>> = got.iter().collect();
    assert_eq!(unique.len(), got.len(), "nothing listed twice");
    let want_names: Vec<Vec<u8>> = want
        .iter()
        .skip(offset)
        .take(limit)
        .map(|(_, n)| n.clone())
        .collect();
    assert_eq!(
        got,
        want_names,
        "order equals the reference sort in {}",
        dir.display()
    );
    for e in &folder.entries {
        if e.kind != EntryKind::Folder {
            continue;
        }
        let sub = e.folder.as_ref().unwrap();
        let path = canopy_core::names::decode_handle(&e.handle).unwrap();
        if level < spec.depth {
            check(sub, &path, level + 1, spec, 0, spec.cap as usize);
        } else {
            assert_eq!(sub.total, None, "folders past the depth are not read");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn listings_of_random_trees_keep_every_promise(spec in spec(), offset_seed in 0usize..50) {
        let t = build(&spec);
        let total = std::fs::read_dir(t.path()).unwrap()
            .filter(|e| spec.show_dotfiles || e.as_ref().unwrap().file_name().as_bytes().first() != Some(&b'.'))
            .count();
        let offset = if total == 0 { 0 } else { offset_seed % total };
        let opts = ListOptions {
            depth: spec.depth,
            cap: spec.cap,
            offset: offset as u64,
            limit: Some(spec.limit),
            show_dotfiles: spec.show_dotfiles,
            ..ListOptions::default()
        };
        let l = list(t.path(), &opts).unwrap();
        check(l.root.folder.as_ref().unwrap(), t.path(), 1, &spec, offset, spec.limit as usize);
    }

    #[test]
    fn the_engine_order_agrees_with_the_reference(a in name(), b in name(), prefix in name()) {
        // A shared prefix exercises the skip-the-common-prefix fast path.
        let (a, b) = ([prefix.as_slice(), &a].concat(), [prefix.as_slice(), &b].concat());
        let engine = canopy_core::testing::compare_names(&a, &b);
        prop_assert_eq!(engine, reference_cmp(&(false, a.clone()), &(false, b.clone())), "{:?} vs {:?}", a, b);
        prop_assert_eq!(engine, canopy_core::testing::compare_names(&b, &a).reverse(), "antisymmetric");
    }

    #[test]
    fn line_escapes_built_from_wire_parts_equal_escapes_of_raw_bytes(raw in proptest::collection::vec(any::<u8>(), 0..24)) {
        let shown = canopy_core::names::DisplayName::new(&raw);
        let from_wire = canopy_core::text::line_name(&shown.text, shown.parts.as_deref());
        prop_assert_eq!(from_wire, canopy_core::names::escape_for_line(&raw));
    }
}
