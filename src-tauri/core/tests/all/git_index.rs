//! The index reader against git itself: generated repositories (SHA-1 and
//! SHA-256; index versions 2, 3 and 4; submodules, links, conflicts'
//! stages, intent-to-add and skip-worktree entries; split indexes with
//! deletions, replacements and additions; a sparse index; names that are
//! not UTF-8, or longer than the 4,095 bytes an entry's flags can say),
//! each index's paths compared with `git ls-files`. Then the attacker's
//! side: generated corruptions of real indexes must be refused or read,
//! never panic or run away.
//!
//! `CANOPY_INDEX_SEED=N` replays the round a failure names.

use crate::common;

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use canopy_core::testing::{index_paths_of_bytes, tracked_paths};
use canopy_core::ErrorCode;
use common::*;

/// Rounds run unless a seed is given.
const ROUNDS: u64 = 60;

/// splitmix64: a seed replays a round.
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

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

fn git(dir: &Path) -> Command {
    let mut c = git_in(dir);
    c.env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t");
    c
}

/// Runs `git args` in `dir` with `input` on its standard input; its output.
fn run(dir: &Path, args: &[&str], input: &[u8]) -> Vec<u8> {
    let mut child = git(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("git is needed for this test (scripts/test installs it)");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// What `git ls-files` says the index holds (a sparse index's folders as
/// `dir/`), each path once.
fn ls_files(repo: &Path) -> BTreeSet<Vec<u8>> {
    run(repo, &["ls-files", "-z", "--sparse", "--deduplicate"], b"")
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

/// What names are made of: git's order is bytes, so `a`, `a-b`, `a.b`,
/// `a/b` sort in a way a string compare can get wrong; and bytes that are
/// not UTF-8.
const SEGMENTS: &[&[u8]] = &[
    b"a",
    b"a-b",
    b"a.b",
    b"a b",
    b"b",
    b"\xc3\xa9",
    b"\xff\xfe",
    b"A",
    b".dot",
    b"x0",
    b"x00",
];

/// `n` distinct paths, none a folder of another (git refuses that).
fn paths(r: &mut Rng, n: usize) -> Vec<Vec<u8>> {
    let mut files: BTreeSet<Vec<u8>> = BTreeSet::new();
    let mut folders: BTreeSet<Vec<u8>> = BTreeSet::new();
    let mut tries = 0;
    while files.len() < n && tries < n * 20 {
        tries += 1;
        let depth = 1 + r.below(4);
        let mut p = Vec::new();
        let mut prefixes = Vec::new();
        for i in 0..depth {
            if i > 0 {
                prefixes.push(p.clone());
                p.push(b'/');
            }
            p.extend_from_slice(SEGMENTS[r.below(SEGMENTS.len())]);
            if r.chance(20) {
                p.extend_from_slice(format!("{}", r.below(50)).as_bytes());
            }
        }
        if r.chance(2) {
            // Longer than an entry's flags can say (they say 0xfff).
            p.push(b'/');
            p.extend(std::iter::repeat_n(b'l', 4_100 + r.below(300)));
        }
        let clash = files.contains(&p)
            || folders.contains(&p)
            || prefixes.iter().any(|f| files.contains(f));
        if clash {
            continue;
        }
        folders.extend(prefixes);
        files.insert(p);
    }
    files.into_iter().collect()
}

/// `git update-index -z --index-info` lines for `paths`: modes of files,
/// links and submodules, and now and then a conflict's stages.
fn index_info(r: &mut Rng, paths: &[Vec<u8>], oid: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for p in paths {
        let mode = match r.below(20) {
            0 => "160000",
            1 => "120000",
            2 => "100755",
            _ => "100644",
        };
        let stages: &[u8] = if r.chance(8) { &[1, 2, 3] } else { &[0] };
        for stage in stages {
            if *stage != 0 && r.chance(30) {
                continue;
            }
            out.extend_from_slice(format!("{mode} {oid} {stage}\t").as_bytes());
            out.extend_from_slice(p);
            out.push(0);
        }
    }
    out
}

fn nul_list(paths: &[Vec<u8>]) -> Vec<u8> {
    paths
        .iter()
        .flat_map(|p| p.iter().copied().chain([0]))
        .collect()
}

/// One repository and its index, built as the seed says; returns what the
/// round did, for the failure message.
fn build(seed: u64, repo: &Path) -> String {
    let mut r = Rng(seed);
    let mut said = Vec::new();
    let sha256 = r.chance(25);
    let mut init = vec!["init", "-q"];
    if sha256 {
        init.push("--object-format=sha256");
    }
    std::fs::create_dir_all(repo).unwrap();
    run(repo, &init, b"");
    said.push(format!("sha256: {sha256}"));
    let oid_bytes = run(repo, &["hash-object", "-w", "--stdin"], b"");
    let oid = String::from_utf8(oid_bytes).unwrap().trim().to_string();
    let n = 1 + r.below(250);
    let all = paths(&mut r, n);
    let (first, later) = all.split_at(all.len() * 2 / 3);
    run(
        repo,
        &["update-index", "-z", "--index-info"],
        &index_info(&mut r, first, &oid),
    );
    // Entries with extended flags (which need version 3 or more).
    let stage0: Vec<Vec<u8>> = first.iter().filter(|_| r.chance(10)).cloned().collect();
    if !stage0.is_empty() {
        // Conflicted ones are refused by --skip-worktree; put them at stage 0 first.
        let again: Vec<u8> = stage0
            .iter()
            .flat_map(|p| {
                let mut l = format!("100644 {oid} 0\t").into_bytes();
                l.extend_from_slice(p);
                l.push(0);
                l
            })
            .collect();
        run(repo, &["update-index", "-z", "--index-info"], &again);
        let mut args = vec!["update-index", "-z", "--skip-worktree", "--stdin"];
        if r.chance(50) {
            args[2] = "--assume-unchanged";
        }
        run(repo, &args, &nul_list(&stage0));
        said.push(format!("{} with extended flags", stage0.len()));
    }
    if r.chance(20) {
        // Intent to add: an entry for a file that is on disk.
        std::fs::write(repo.join("new-file"), b"x").unwrap();
        run(repo, &["add", "-N", "new-file"], b"");
        said.push("intent to add".into());
    }
    let version = 2 + r.below(3);
    run(
        repo,
        &["update-index", "--index-version", &version.to_string()],
        b"",
    );
    said.push(format!("version {version}"));
    if r.chance(40) {
        // Kept split however much changes (git rewrites the shared index
        // past 20% by default), so the split file holds every kind of change.
        run(repo, &["config", "splitIndex.maxPercentChange", "100"], b"");
        run(repo, &["update-index", "--split-index"], b"");
        // The split file's deletions, replacements and additions.
        let gone: Vec<Vec<u8>> = first.iter().filter(|_| r.chance(15)).cloned().collect();
        run(
            repo,
            &["update-index", "-z", "--force-remove", "--stdin"],
            &nul_list(&gone),
        );
        let swapped: Vec<Vec<u8>> = first
            .iter()
            .filter(|p| !gone.contains(p) && r.chance(15))
            .cloned()
            .collect();
        let swap_info: Vec<u8> = swapped
            .iter()
            .flat_map(|p| {
                let mut l = format!("100755 {oid} 0\t").into_bytes();
                l.extend_from_slice(p);
                l.push(0);
                l
            })
            .collect();
        run(repo, &["update-index", "-z", "--index-info"], &swap_info);
        run(
            repo,
            &["update-index", "-z", "--index-info"],
            &index_info(&mut r, later, &oid),
        );
        said.push(format!(
            "split: {} gone, {} replaced, {} added",
            gone.len(),
            swapped.len(),
            later.len()
        ));
    } else {
        run(
            repo,
            &["update-index", "-z", "--index-info"],
            &index_info(&mut r, later, &oid),
        );
    }
    said.join(", ")
}

#[test]
fn the_index_reader_agrees_with_git_ls_files_on_generated_repositories() {
    let seeds: Vec<u64> = match std::env::var("CANOPY_INDEX_SEED") {
        Ok(s) => vec![s.parse().expect("CANOPY_INDEX_SEED is a number")],
        Err(_) => (1..=ROUNDS).collect(),
    };
    let (mut entries, mut split, mut v4, mut sha256) = (0, 0, 0, 0);
    for seed in seeds {
        let t = Tree::new();
        let repo = t.at("repo");
        let did = build(seed, &repo);
        let want = ls_files(&repo);
        let got = tracked_paths(&repo).unwrap_or_else(|e| panic!("seed {seed} ({did}): {e:?}"));
        let got_set: BTreeSet<Vec<u8>> = got.iter().cloned().collect();
        assert_eq!(
            got.len(),
            got_set.len(),
            "seed {seed} ({did}): each path once"
        );
        let mut sorted = got.clone();
        sorted.sort();
        assert_eq!(got, sorted, "seed {seed} ({did}): in git's order (bytes)");
        if got_set != want {
            let missing: Vec<String> = want
                .difference(&got_set)
                .map(|p| p.escape_ascii().to_string())
                .take(5)
                .collect();
            let extra: Vec<String> = got_set
                .difference(&want)
                .map(|p| p.escape_ascii().to_string())
                .take(5)
                .collect();
            panic!(
                "seed {seed} ({did}): {} paths, git lists {}; missing {missing:?}, extra {extra:?}",
                got_set.len(),
                want.len()
            );
        }
        entries += want.len();
        split += usize::from(did.contains("split"));
        v4 += usize::from(did.contains("version 4"));
        sha256 += usize::from(did.contains("sha256: true"));
    }
    println!("index differential: {entries} paths; {split} split, {v4} v4, {sha256} sha256 rounds");
}

#[test]
fn a_sparse_index_reads_as_git_ls_files_sparse_says() {
    let t = Tree::new();
    let repo = t.at("repo");
    git_init(&repo);
    for d in ["in", "out", "out2/deep"] {
        for f in ["a", "b"] {
            t.write(format!("repo/{d}/{f}"), b"x");
        }
    }
    t.write("repo/top", b"x");
    run(&repo, &["add", "-A"], b"");
    run(&repo, &["commit", "-qm", "x"], b"");
    run(&repo, &["sparse-checkout", "init", "--cone"], b"");
    run(&repo, &["sparse-checkout", "set", "in"], b"");
    run(&repo, &["config", "index.sparse", "true"], b"");
    run(&repo, &["sparse-checkout", "reapply"], b"");
    let index = std::fs::read(repo.join(".git/index")).unwrap();
    assert!(
        index.windows(4).any(|w| w == b"sdir"),
        "the fixture is a sparse index"
    );
    let want = ls_files(&repo);
    assert!(want.contains(b"out/".as_slice()), "{want:?}");
    let got: BTreeSet<Vec<u8>> = tracked_paths(&repo).unwrap().into_iter().collect();
    assert_eq!(got, want);
}

#[test]
fn an_index_needing_an_extension_git_does_not_know_is_unsupported() {
    let t = Tree::new();
    let repo = t.at("repo");
    build(7, &repo);
    run(
        &repo,
        &["update-index", "--index-version", "2", "--no-split-index"],
        b"",
    );
    let mut bytes = std::fs::read(repo.join(".git/index")).unwrap();
    // A required (lower-case) extension before the checksum.
    let at = bytes.len() - 20;
    bytes.splice(at..at, *b"zzzz\0\0\0\0");
    let e = index_paths_of_bytes(&bytes, None, usize::MAX).unwrap_err();
    assert_eq!(e.code, ErrorCode::Unsupported, "{}", e.message);
    assert!(e.message.contains("zzzz"), "{}", e.message);
}

/// A real index, and its shared index (file name, bytes) when it is split.
type Specimen = (Vec<u8>, Option<(Vec<u8>, Vec<u8>)>);

/// Real indexes of every kind, to corrupt.
fn specimens() -> Vec<Specimen> {
    let mut out = Vec::new();
    for seed in [3, 11, 19, 23, 42, 57] {
        let t = Tree::new();
        let repo = t.at("repo");
        build(seed, &repo);
        let index = std::fs::read(repo.join(".git/index")).unwrap();
        let shared = std::fs::read_dir(repo.join(".git"))
            .unwrap()
            .map(|e| e.unwrap())
            .find(|e| e.file_name().to_string_lossy().starts_with("sharedindex."))
            .map(|e| {
                (
                    e.file_name().to_string_lossy().into_owned().into_bytes(),
                    std::fs::read(e.path()).unwrap(),
                )
            });
        out.push((index, shared));
    }
    out
}

#[test]
fn corrupted_indexes_are_refused_or_read_never_a_panic_or_a_runaway() {
    // From the attacker's side: flipped bytes, counts and lengths set to
    // their extremes, files cut short, in the index and its shared index.
    let specimens = specimens();
    let rounds: u64 = 3_000;
    let (mut read, mut refused) = (0, 0);
    for seed in 1..=rounds {
        let mut r = Rng(seed);
        let (index, shared) = &specimens[r.below(specimens.len())];
        let mut index = index.clone();
        let mut shared = shared.clone();
        let target = match &mut shared {
            Some((_, s)) if r.chance(30) => s,
            _ => &mut index,
        };
        for _ in 0..1 + r.below(4) {
            if target.is_empty() {
                break;
            }
            let at = r.below(target.len());
            match r.below(4) {
                0 => target[at] ^= 1 << r.below(8),
                1 => {
                    let end = (at + 4).min(target.len());
                    target[at..end].fill(0xff);
                }
                2 => target[at] = r.next() as u8,
                _ => target.truncate(at),
            }
        }
        let started = std::time::Instant::now();
        let got = index_paths_of_bytes(
            &index,
            shared.as_ref().map(|(n, b)| (n.as_slice(), b.as_slice())),
            64 * 1024 * 1024,
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "seed {seed}: the read must end"
        );
        match got {
            Ok(paths) => {
                read += 1;
                assert!(
                    paths.windows(2).all(|w| w[0] < w[1]),
                    "seed {seed}: what is read is in git's order, each once"
                );
            }
            Err(e) => {
                refused += 1;
                assert!(
                    matches!(
                        e.code,
                        ErrorCode::Corrupt | ErrorCode::Unsupported | ErrorCode::TooLarge
                    ),
                    "seed {seed}: {e:?}"
                );
            }
        }
    }
    println!("corrupted indexes: {read} read, {refused} refused");
    assert!(
        refused > rounds / 4,
        "the corruptions must be noticed ({refused} of {rounds})"
    );
}
