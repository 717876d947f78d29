//! Ignore-rule globs against git's own wildmatch, rule by rule: random
//! rules built from what git's glob language is most easily misread on
//! (`*?[]!^-{},\/`, `[:alpha:]`-style classes, ranges, escapes, trailing
//! spaces, bytes that are not UTF-8) over random names, each path's
//! verdict compared with `git check-ignore --no-index`; and fixed cases for
//! braces and every class kind, each checked against git as well as against
//! its expected answer.
//!
//! A case is a repository of [`CELLS`] folders, each with a `.gitignore` of a
//! few random rules over the same random tree, so one run of git judges
//! many rules. In a test binary of its own: it points `XDG_CONFIG_HOME` at
//! nothing, so no global excludes file of the machine takes part.
//!
//! `CANOPY_WILDMATCH_SEED=N` replays a run (a failure prints its seed);
//! `CANOPY_WILDMATCH_CASES=N` runs more cases than the default.

mod common;

use std::collections::BTreeSet;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Once;

use canopy_core::names::decode_handle;
use canopy_core::wire::Entry;
use canopy_core::{search, LocalFs, SearchQuery};
use common::*;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};

/// Folders of one case, each with rules of its own over the same tree.
const CELLS: usize = 6;

/// Cases run unless `CANOPY_WILDMATCH_CASES` says otherwise.
const CASES: u32 = 300;

/// Global excludes come from nowhere: only the rules the test writes apply,
/// for git (run with `git_in`'s environment) and for the engine alike.
fn isolate() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| std::env::set_var("XDG_CONFIG_HOME", "/nonexistent"));
}

/// Single characters of rules: wildcards, what other glob dialects treat
/// specially, class syntax, letters of both cases, and bytes that are not
/// ASCII (a lone UTF-8 lead byte, a continuation byte, 0xff).
const RULE_CHARS: &[&[u8]] = &[
    b"a",
    b"b",
    b"c",
    b"A",
    b"*",
    b"*",
    b"**",
    b"?",
    b"[",
    b"]",
    b"!",
    b"^",
    b"-",
    b"{",
    b"}",
    b",",
    b"\\",
    b"/",
    b"/",
    b".",
    b":",
    b"0",
    b" ",
    b"#",
    b"\xc3",
    b"\xa9",
    b"\xff",
    b"**/",
    b"/**",
    b"/**/",
    b"{a,b}",
    b"[:alpha:]",
    b"\\ ",
    b"\\*",
    b"\\[",
    b"\\]",
    b"\\\\",
    b"\\/",
    b"\\!",
    b"\\#",
    b"\r",
    b"\t",
    b"*a*a*a*a*a*a*a*a*b",
    b"a/**/a*/**/*a",
];

/// What a class may hold: members, ranges (also backwards and from or to an
/// escape), `]`, `-`, `!`, `^`, escapes, POSIX classes known and unknown,
/// `[:` without its `:]`, and `/` (which a class never matches in a path).
const CLASS_MEMBERS: &[&[u8]] = &[
    b"a",
    b"b",
    b"c",
    b"A",
    b"]",
    b"-",
    b"!",
    b"^",
    b"\\",
    b"\\]",
    b"\\-",
    b"\\a",
    b"a-c",
    b"c-a",
    b"A-Z",
    b"a-",
    b"-a",
    b"\\a-c",
    b"a-\\c",
    b"]-a",
    b"/",
    b".",
    b"[",
    b"[:",
    b":]",
    b"\xe0-\xef",
    b"\xa9",
    b"[:alpha:]",
    b"[:digit:]",
    b"[:alnum:]",
    b"[:upper:]",
    b"[:lower:]",
    b"[:space:]",
    b"[:blank:]",
    b"[:punct:]",
    b"[:xdigit:]",
    b"[:cntrl:]",
    b"[:graph:]",
    b"[:print:]",
    b"[:bogus:]",
    b"[:]",
    b"[::]",
    b"*",
    b"?",
    b"{",
    b",",
];

/// Pieces of names: the rules' characters again (so rules match), spaces,
/// control bytes, and bytes that are not UTF-8.
const NAME_CHARS: &[&[u8]] = &[
    b"a",
    b"b",
    b"c",
    b"A",
    b"B",
    b"ab",
    b"{",
    b"}",
    b",",
    b"{a,b}",
    b"[",
    b"]",
    b"!",
    b"^",
    b"-",
    b"\\",
    b"*",
    b"?",
    b":",
    b".",
    b"0",
    b"9",
    b" ",
    b"#",
    b"\t",
    b"\x01",
    b"\x7f",
    b"\xc3\xa9",
    b"\xe9",
    b"\xff",
    b"\x80",
    b"\r",
    // A long run, for rules of many stars (the cost a match may take).
    b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab",
];

/// A class: `[`, maybe `!` or `^`, members, and (mostly) its `]`.
fn class() -> impl Strategy<Value = Vec<u8>> {
    (
        select(vec![&b""[..], b"", b"", b"!", b"^"]),
        proptest::collection::vec(select(CLASS_MEMBERS), 0..4),
        proptest::bool::weighted(0.9),
    )
        .prop_map(|(negation, members, closed)| {
            let mut c = vec![b'['];
            c.extend_from_slice(negation);
            c.extend(members.concat());
            if closed {
                c.push(b']');
            }
            c
        })
}

/// One rule line (without its line end).
fn rule() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        4 => select(RULE_CHARS).prop_map(<[u8]>::to_vec),
        1 => class(),
    ];
    (
        proptest::bool::weighted(0.2),
        proptest::bool::weighted(0.15),
        proptest::collection::vec(piece, 1..7),
        proptest::bool::weighted(0.15),
        select(vec![&b""[..], b"", b"", b"", b" ", b"  ", b"\\ ", b"\\  "]),
    )
        .prop_map(|(negative, anchored, body, dir_only, spaces)| {
            let mut r = Vec::new();
            if negative {
                r.push(b'!');
            }
            if anchored {
                r.push(b'/');
            }
            r.extend(body.concat());
            if dir_only {
                r.push(b'/');
            }
            r.extend_from_slice(spaces);
            r
        })
}

/// One name; never `.`, `..`, `.git` or `.gitignore`.
fn name() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(select(NAME_CHARS), 1..4).prop_map(|pieces| {
        let mut n = pieces.concat();
        if matches!(&n[..], b"." | b".." | b".git" | b".gitignore") {
            n.push(b'x');
        }
        n
    })
}

/// What a path of the tree is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    File,
    Folder,
    /// A link to a folder: git matches it as a file.
    Link,
}

/// A tree to make: paths as their names, and what each path is.
type TreeSpec = Vec<(Vec<Vec<u8>>, Kind)>;

/// One folder of a case: its `.gitignore` text and its tree.
type Cell<'t> = (Vec<u8>, &'t TreeSpec);

/// One generated case: each cell's rule lines, and the tree (paths of 1 to
/// 3 names, their folders made as needed).
#[derive(Clone)]
struct Case {
    cells: Vec<Vec<Vec<u8>>>,
    tree: TreeSpec,
}

/// Rules and paths as escaped text, for a failure's message.
impl std::fmt::Debug for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, rules) in self.cells.iter().enumerate() {
            let rules: Vec<String> = rules.iter().map(|r| r.escape_ascii().to_string()).collect();
            writeln!(f, "c{i}/.gitignore: {}", rules.join(" | "))?;
        }
        for (names, kind) in &self.tree {
            writeln!(f, "  {:?} {}", kind, names.join(&b'/').escape_ascii())?;
        }
        Ok(())
    }
}

/// A rule made from a path of the tree, so that it nearly matches: some of
/// its last names, each byte kept, escaped, dropped, or turned into `?`,
/// `*`, `**`, a class that holds it (a member, a range around it, its POSIX
/// class) or one that does not.
fn derived(paths: Vec<Vec<Vec<u8>>>) -> impl Strategy<Value = Vec<u8>> {
    (
        any::<proptest::sample::Index>(),
        any::<proptest::sample::Index>(),
        proptest::collection::vec(0..24u8, 0..48),
        select(vec![&b""[..], b"", b"", b"", b"/", b"**/", b"!", b"!/"]),
        select(vec![&b""[..], b"", b"", b"", b"/", b"/**", b" ", b"\\ "]),
    )
        .prop_map(move |(which, from, ops, lead, tail)| {
            let names = which.get(&paths);
            let text = names[from.index(names.len())..].join(&b'/');
            let mut r = lead.to_vec();
            for (i, &b) in text.iter().enumerate() {
                let op = ops.get(i).copied().unwrap_or(0);
                match op {
                    0..=9 => r.push(b),
                    10 => r.push(b'?'),
                    11 => r.push(b'*'),
                    12 if b == b'/' => r.extend_from_slice(b"/**/"),
                    12 => r.extend_from_slice(b"**"),
                    13 => r.extend_from_slice(&[b'\\', b]),
                    14 => r.extend_from_slice(&[b'[', b'\\', b, b']']),
                    15 => r.extend_from_slice(&[
                        b'[',
                        b.wrapping_sub(1),
                        b'-',
                        b.wrapping_add(1),
                        b']',
                    ]),
                    16 => r.extend_from_slice(&[b'[', b'!', b.wrapping_add(1), b']']),
                    17 => r.extend_from_slice(&[b'[', b'^', b, b']']),
                    18 => r.extend_from_slice(match b {
                        b'a'..=b'f' | b'A'..=b'F' => b"[[:xdigit:]]",
                        b'g'..=b'z' => b"[[:lower:]]",
                        b'G'..=b'Z' => b"[[:upper:]]",
                        b'0'..=b'9' => b"[[:digit:]]",
                        b' ' | b'\t' => b"[[:blank:]]",
                        b'\r' => b"[[:space:]]",
                        0..=0x1f | 0x7f => b"[[:cntrl:]]",
                        0x21..=0x7e => b"[[:punct:]]",
                        _ => b"[[:print:]]",
                    }),
                    19 => r.extend_from_slice(b"[[:alpha:][:digit:]]"),
                    20 => {}
                    21 => r.extend_from_slice(&[b'*', b]),
                    22 => r.extend_from_slice(&[b, b'*']),
                    _ => r.extend_from_slice(&[b'[', b, b']']),
                }
            }
            r.extend_from_slice(tail);
            r
        })
}

fn case() -> impl Strategy<Value = Case> {
    let kind = prop_oneof![5 => Just(Kind::File), 4 => Just(Kind::Folder), 1 => Just(Kind::Link)];
    proptest::collection::vec((proptest::collection::vec(name(), 1..4), kind), 1..24)
        .prop_flat_map(|tree| {
            let paths: Vec<Vec<Vec<u8>>> = tree.iter().map(|(names, _)| names.clone()).collect();
            let one = prop_oneof![1 => rule(), 2 => derived(paths)];
            (
                proptest::collection::vec(proptest::collection::vec(one, 1..5), CELLS),
                Just(tree),
            )
        })
        .prop_map(|(cells, tree)| Case { cells, tree })
}

/// Makes the tree under `dir`; returns every path made (folders made on
/// the way included), relative to `dir`.
fn make_tree(dir: &Path, tree: &[(Vec<Vec<u8>>, Kind)]) -> Vec<(Vec<u8>, Kind)> {
    let mut made: Vec<(Vec<u8>, Kind)> = Vec::new();
    'paths: for (names, kind) in tree {
        let mut path = Vec::new();
        for (i, n) in names.iter().enumerate() {
            if !path.is_empty() {
                path.push(b'/');
            }
            path.extend_from_slice(n);
            let want = if i + 1 == names.len() {
                *kind
            } else {
                Kind::Folder
            };
            match made.iter().find(|(p, _)| *p == path) {
                Some((_, Kind::Folder)) => continue,
                // Already there as something else: leave this path out.
                Some(_) => continue 'paths,
                None => {}
            }
            let at = dir.join(std::ffi::OsStr::from_bytes(&path));
            match want {
                Kind::File => std::fs::write(&at, b"").unwrap(),
                Kind::Folder => std::fs::create_dir(&at).unwrap(),
                Kind::Link => std::os::unix::fs::symlink(".", &at).unwrap(),
            }
            made.push((path.clone(), want));
        }
    }
    made
}

/// What `git check-ignore --no-index` says of each path (relative to
/// `repo`): ignored or not, and by which rule.
fn git_verdicts(repo: &Path, paths: &[Vec<u8>]) -> Vec<(bool, String)> {
    check_ignore(git_in(repo), paths)
}

/// Every path "Hide ignored" shows below `repo`, relative to it.
fn shown(repo: &Path) -> BTreeSet<Vec<u8>> {
    fn walk(e: &Entry, repo: &Path, into: &mut BTreeSet<Vec<u8>>) {
        for child in e.folder.iter().flat_map(|f| f.entries.iter()) {
            let path = decode_handle(&child.handle).unwrap();
            into.insert(
                path.strip_prefix(repo)
                    .unwrap()
                    .as_os_str()
                    .as_bytes()
                    .to_vec(),
            );
            walk(child, repo, into);
        }
    }
    let opts = ListOptions {
        hide_ignored: true,
        handles: true,
        details: false,
        show_dotfiles: true,
        ..opts(8, 10_000)
    };
    let listing = list(repo, &opts).unwrap_or_else(|e| panic!("listing {}: {e:?}", repo.display()));
    assert!(listing.root.error.is_none(), "{:?}", listing.root.error);
    let mut seen = BTreeSet::new();
    walk(&listing.root, repo, &mut seen);
    seen
}

/// Every path a search for every name (`*`, ignore-aware, as canopy-mcp's
/// `search` asks) finds below `repo`, relative to it.
fn searched(repo: &Path) -> BTreeSet<Vec<u8>> {
    let query = SearchQuery {
        name: Some("*".into()),
        hide_ignored: true,
        show_dotfiles: true,
        limit: 1_000_000,
        ..SearchQuery::default()
    };
    let found = search(&LocalFs::new(), repo, &query).expect("search");
    assert!(
        found.cut.is_none(),
        "the search ran to the end: {:?}",
        found.cut
    );
    found
        .hits
        .iter()
        .map(|h| h.path.as_os_str().as_bytes().to_vec())
        .collect()
}

/// A path's verdict by git and by the engine (ignored: true).
struct Verdict {
    path: Vec<u8>,
    git: bool,
    why: String,
    /// By the listing ("Hide ignored", `canopy-list --gitignore`).
    canopy: bool,
    /// By the search (canopy-mcp's `search`).
    search: bool,
}

/// Builds a repository with one folder `cN` for each cell (a rule file and
/// a tree, paths relative to the folder); returns every path's verdicts,
/// git's and the engine's, with the cell it is in.
fn judge(cells: &[Cell<'_>]) -> Vec<(usize, Verdict)> {
    isolate();
    // On tmpfs: a case makes and removes a few hundred entries.
    let t = Tree::new_in_memory();
    let repo = t.path();
    make_repository(repo);
    let mut paths = Vec::new();
    for (i, (rules, tree)) in cells.iter().enumerate() {
        let cell = format!("c{i}");
        std::fs::create_dir(repo.join(&cell)).unwrap();
        std::fs::write(repo.join(&cell).join(".gitignore"), rules).unwrap();
        paths.push((i, format!("{cell}/.gitignore").into_bytes()));
        for (p, _) in make_tree(&repo.join(&cell), tree) {
            paths.push((i, [cell.as_bytes(), b"/", &p].concat()));
        }
    }
    let all: Vec<Vec<u8>> = paths.iter().map(|(_, p)| p.clone()).collect();
    let verdicts = git_verdicts(repo, &all);
    let seen = shown(repo);
    let found = searched(repo);
    paths
        .into_iter()
        .zip(verdicts)
        .map(|((cell, path), (git, why))| {
            let canopy = !seen.contains(&path);
            let search = !found.contains(&path);
            let v = Verdict {
                path,
                git,
                why,
                canopy,
                search,
            };
            (cell, v)
        })
        .collect()
}

/// Run totals, for the figures the test prints.
static CASES_RUN: AtomicUsize = AtomicUsize::new(0);
static RULES_RUN: AtomicUsize = AtomicUsize::new(0);
static PATHS_RUN: AtomicUsize = AtomicUsize::new(0);
static IGNORED_BY_GIT: AtomicUsize = AtomicUsize::new(0);

fn rule_file(rules: &[Vec<u8>]) -> Vec<u8> {
    rules
        .iter()
        .flat_map(|r| r.iter().copied().chain([b'\n']))
        .collect()
}

fn check_case(case: &Case) -> Result<(), TestCaseError> {
    let files: Vec<Vec<u8>> = case.cells.iter().map(|rules| rule_file(rules)).collect();
    let cells: Vec<Cell<'_>> = files.iter().map(|f| (f.clone(), &case.tree)).collect();
    let verdicts = judge(&cells);
    CASES_RUN.fetch_add(1, Ordering::Relaxed);
    RULES_RUN.fetch_add(case.cells.iter().map(Vec::len).sum(), Ordering::Relaxed);
    PATHS_RUN.fetch_add(verdicts.len(), Ordering::Relaxed);
    IGNORED_BY_GIT.fetch_add(
        verdicts.iter().filter(|(_, v)| v.git).count(),
        Ordering::Relaxed,
    );
    let wrong = verdicts
        .iter()
        .find(|(_, v)| v.git != v.canopy || v.git != v.search);
    if let Some((cell, v)) = wrong {
        let said = |ignored: bool| if ignored { "hidden" } else { "shown" };
        return Err(TestCaseError::fail(format!(
            "{} is {} by git ({}) but {} by the listing and {} by the search; c{cell}/.gitignore: {}",
            v.path.escape_ascii(),
            if v.git { "ignored" } else { "kept" },
            v.why,
            said(v.canopy),
            said(v.search),
            files[*cell].escape_ascii()
        )));
    }
    Ok(())
}

#[test]
fn random_rules_match_as_git_check_ignore_says() {
    let seed: u64 = match std::env::var("CANOPY_WILDMATCH_SEED") {
        Ok(s) => s.parse().expect("CANOPY_WILDMATCH_SEED is a number"),
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64,
    };
    let cases = std::env::var("CANOPY_WILDMATCH_CASES")
        .map(|s| s.parse().expect("CANOPY_WILDMATCH_CASES is a number"))
        .unwrap_or(CASES);
    let config = Config {
        cases,
        failure_persistence: None,
        // Each shrinking step runs git once.
        max_shrink_iters: 1_000,
        ..Config::default()
    };
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &key);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let result = runner.run(&case(), |c| check_case(&c));
    let (cases, rules, paths, ignored) = (
        CASES_RUN.load(Ordering::Relaxed),
        RULES_RUN.load(Ordering::Relaxed),
        PATHS_RUN.load(Ordering::Relaxed),
        IGNORED_BY_GIT.load(Ordering::Relaxed),
    );
    println!(
        "wildmatch differential, seed {seed}: {cases} cases ({} cells), {rules} rules, {paths} paths ({ignored} ignored by git)",
        cases * CELLS
    );
    match result {
        Ok(()) => {}
        Err(TestError::Fail(why, case)) => panic!(
            "Canopy and git disagree (replay with CANOPY_WILDMATCH_SEED={seed}); smallest case found: {why}\n{case:?}"
        ),
        Err(TestError::Abort(why)) => panic!("seed {seed}: aborted: {why}"),
    }
    assert!(
        ignored > 0 && ignored < paths,
        "seed {seed}: git must ignore some generated paths and keep others ({ignored} of {paths}): a matcher that hides nothing, or everything, must not pass"
    );
}

/// Fixed cases: rule lines, a path below their folder (its folders made as
/// folders), what the path is, and whether git ignores it.
const FIXED: &[(&[u8], &[u8], Kind, bool)] = &[
    // Braces and commas are literal characters.
    (b"*.{jpg,png}", b"p.{jpg,png}", Kind::File, true),
    (b"*.{jpg,png}", b"p.jpg", Kind::File, false),
    (b"{a,b}", b"a", Kind::File, false),
    (b"{a,b}", b"{a,b}", Kind::File, true),
    (b"br{ace", b"br{ace", Kind::File, true),
    (b"x/{a,b}/*", b"x/{a,b}/y", Kind::File, true),
    (b"x/{a,b}/*", b"x/a/y", Kind::File, false),
    // A class, a range, negation both ways, `]` first, escapes in a class.
    (b"[abc]x", b"bx", Kind::File, true),
    (b"[abc]x", b"dx", Kind::File, false),
    (b"[a-c]x", b"bx", Kind::File, true),
    (b"[a-c]x", b"Bx", Kind::File, false),
    (b"[c-a]x", b"bx", Kind::File, false),
    (b"[!a-c]x", b"dx", Kind::File, true),
    (b"[!a-c]x", b"bx", Kind::File, false),
    (b"[^a-c]x", b"dx", Kind::File, true),
    (b"[^a-c]x", b"bx", Kind::File, false),
    (b"[]a]x", b"]x", Kind::File, true),
    (b"[]a]x", b"ax", Kind::File, true),
    (b"[]a]x", b"bx", Kind::File, false),
    (b"[!]a]x", b"]x", Kind::File, false),
    (b"[!]a]x", b"bx", Kind::File, true),
    (b"[]-a]x", b"_x", Kind::File, true),
    (br"[\]]x", b"]x", Kind::File, true),
    (br"[\]]x", br"\x", Kind::File, false),
    (br"[a\-c]x", b"-x", Kind::File, true),
    (br"[a\-c]x", b"bx", Kind::File, false),
    (b"[a-]x", b"-x", Kind::File, true),
    (br"[\\]x", br"\x", Kind::File, true),
    (b"[[]x", b"[x", Kind::File, true),
    (b"[[:]x", b":x", Kind::File, true),
    // Each POSIX class, in and out.
    (b"[[:alpha:]]x", b"qx", Kind::File, true),
    (b"[[:alpha:]]x", b"1x", Kind::File, false),
    (b"[[:digit:]]x", b"7x", Kind::File, true),
    (b"[[:digit:]]x", b"ax", Kind::File, false),
    (b"[[:alnum:]]x", b"Zx", Kind::File, true),
    (b"[[:alnum:]]x", b"_x", Kind::File, false),
    (b"[[:upper:]]x", b"Qx", Kind::File, true),
    (b"[[:upper:]]x", b"qx", Kind::File, false),
    (b"[[:lower:]]x", b"qx", Kind::File, true),
    (b"[[:lower:]]x", b"Qx", Kind::File, false),
    (b"[[:space:]]x", b"\tx", Kind::File, true),
    (b"[[:space:]]x", b"\x0bx", Kind::File, false),
    (b"[[:blank:]]x", b" x", Kind::File, true),
    (b"[[:blank:]]x", b"\rx", Kind::File, false),
    (b"[[:punct:]]x", b"{x", Kind::File, true),
    (b"[[:punct:]]x", b"ax", Kind::File, false),
    (b"[[:xdigit:]]x", b"Fx", Kind::File, true),
    (b"[[:xdigit:]]x", b"gx", Kind::File, false),
    (b"[[:cntrl:]]x", b"\x7fx", Kind::File, true),
    (b"[[:cntrl:]]x", b" x", Kind::File, false),
    (b"[[:graph:]]x", b"~x", Kind::File, true),
    (b"[[:graph:]]x", b" x", Kind::File, false),
    (b"[[:print:]]x", b" x", Kind::File, true),
    (b"[[:print:]]x", b"\xe9x", Kind::File, false),
    (b"[[:alpha:][:digit:]_]x", b"_x", Kind::File, true),
    (b"[![:alpha:]]x", b"1x", Kind::File, true),
    (b"[![:alpha:]]x", b"ax", Kind::File, false),
    // An unknown class, an unclosed `[` or a trailing `\`: the rule matches nothing.
    (b"[[:bogus:]]x", b"[[:bogus:]]x", Kind::File, false),
    (b"[[:bogus:]]x", b"bx", Kind::File, false),
    (b"[abc", b"[abc", Kind::File, false),
    (b"*[", b"a[", Kind::File, false),
    (b"[!", b"[!", Kind::File, false),
    (b"x\\", b"x\\", Kind::File, false),
    // Escapes outside a class.
    (br"\[x", b"[x", Kind::File, true),
    (br"\*x", b"*x", Kind::File, true),
    (br"\*x", b"ax", Kind::File, false),
    (br"\#h", b"#h", Kind::File, true),
    (b"#h", b"#h", Kind::File, false),
    (br"\!n", b"!n", Kind::File, true),
    // `*` and `?` never match `/`; `**` next to slashes crosses folders.
    (b"x/a*b", b"x/a/b", Kind::File, false),
    (b"x/a*b", b"x/aqqb", Kind::File, true),
    (b"x/a?b", b"x/a/b", Kind::File, false),
    (b"x/[!a]b", b"x/a/b", Kind::File, false),
    (b"**/b", b"q/r/b", Kind::File, true),
    (b"**/b", b"b", Kind::File, true),
    (b"a/**", b"a/q/r", Kind::File, true),
    (b"a/**", b"a", Kind::Folder, false),
    (b"a/**/b", b"a/b", Kind::File, true),
    (b"a/**/b", b"a/q/r/b", Kind::File, true),
    (b"a/**/b", b"a/qb", Kind::File, false),
    (b"x/a**b", b"x/aqb", Kind::File, true),
    (b"x/a**b", b"x/aq/b", Kind::File, false),
    (b"x/**b", b"x/q/b", Kind::File, false),
    (b"x**/b", b"xq/r/b", Kind::File, true),
    (b"x**/b", b"xb", Kind::File, true),
    // Trailing spaces go unless escaped.
    (b"tr  ", b"tr", Kind::File, true),
    (b"tr\\ ", b"tr ", Kind::File, true),
    (b"tr\\ ", b"tr", Kind::File, false),
    (b"tr\\  ", b"tr ", Kind::File, true),
    // `!` re-includes; a trailing `/` wants a folder; where a slash anchors.
    (b"*.x\n!k.x", b"k.x", Kind::File, false),
    (b"*.x\n!k.x", b"j.x", Kind::File, true),
    (b"d/\n!d/f", b"d/f", Kind::File, true),
    (b"d/", b"d", Kind::Folder, true),
    (b"d/", b"d", Kind::File, false),
    (b"d/", b"d", Kind::Link, false),
    (b"/top", b"top", Kind::File, true),
    (b"/top", b"s/top", Kind::File, false),
    (b"m/n", b"s/m/n", Kind::File, false),
    (b"m/n", b"m/n", Kind::File, true),
    (b"n", b"s/n", Kind::File, true),
    // Case counts (core.ignorecase is false by default).
    (b"Case", b"case", Kind::File, false),
    (b"[A-Z]x", b"ax", Kind::File, false),
    // Names are bytes: one `?` is one byte, a class holds bytes.
    (b"caf\xe9", b"caf\xe9", Kind::File, true),
    (b"[\xe0-\xef]x", b"\xe9x", Kind::File, true),
    (b"?x", b"\xc3\xa9x", Kind::File, false),
    (b"??x", b"\xc3\xa9x", Kind::File, true),
    (b"*\xff", b"a\xff", Kind::File, true),
];

#[test]
fn braces_classes_escapes_and_stars_mean_what_they_mean_to_git() {
    let trees: Vec<TreeSpec> = FIXED
        .iter()
        .map(|&(_, path, kind, _)| {
            vec![(
                path.split(|&b| b == b'/').map(<[u8]>::to_vec).collect(),
                kind,
            )]
        })
        .collect();
    let cells: Vec<Cell<'_>> = FIXED
        .iter()
        .zip(&trees)
        .map(|(&(rules, ..), tree)| ([rules, b"\n"].concat(), tree))
        .collect();
    let verdicts = judge(&cells);
    let mut wrong = Vec::new();
    for (cell, v) in &verdicts {
        let (rules, path, _, want) = FIXED[*cell];
        if v.path.ends_with(b"/.gitignore") || !v.path.ends_with(path) {
            continue;
        }
        let line = format!("{} on {}", rules.escape_ascii(), path.escape_ascii());
        if v.git != want {
            wrong.push(format!(
                "{line}: git says {} ({}), the case says {want}",
                v.git, v.why
            ));
        }
        if v.canopy != want {
            wrong.push(format!(
                "{line}: the listing says {}, the case says {want}",
                v.canopy
            ));
        }
        if v.search != want {
            wrong.push(format!(
                "{line}: the search says {}, the case says {want}",
                v.search
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let judged = verdicts
        .iter()
        .filter(|(cell, v)| v.path.ends_with(FIXED[*cell].1))
        .count();
    assert!(
        judged >= FIXED.len(),
        "every fixed case was judged ({judged} of {})",
        FIXED.len()
    );
}
