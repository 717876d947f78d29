//! "Hide ignored" against git itself: generated rule files (a root and a
//! nested `.gitignore`, `.git/info/exclude`, the global excludes file) built
//! from the pieces git's rule language is most easily misread on, over
//! generated trees of files, folders and links (sometimes with a `.git` in a
//! subfolder that git does not take for a repository), some of them tracked
//! (added with `git add -f`, so rules match tracked files, inside ignored
//! folders too), each path's verdict compared with what `git status
//! --ignored=matching --untracked-files=all` hides (`git check-ignore
//! --no-index` names the rule in a failure's message). In a test binary of
//! its own: it sets `XDG_CONFIG_HOME`, which every listing of the process
//! reads.
//!
//! Run it with `--nocapture` for its figures (rules, paths, disagreements).
//! `CANOPY_DIFF_SEED=N` replays the round a failure names.

mod common;

use std::collections::BTreeSet;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Command;

use canopy_core::names::decode_handle;
use canopy_core::wire::Entry;
use common::*;

/// Rounds run (each its own repository, rules and tree) unless a seed is given.
const ROUNDS: u64 = 300;

/// A small deterministic generator (splitmix64): a seed replays a round.
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

    fn pick<'a>(&mut self, from: &[&'a [u8]]) -> &'a [u8] {
        from[self.below(from.len())]
    }
}

/// What rules are made of: git's wildcards and escapes, what other glob
/// dialects treat specially (braces, commas), classes, and bytes that end
/// or break a line (NUL, a carriage return, a byte that is not UTF-8).
const RULE_PIECES: &[&[u8]] = &[
    b"*",
    b"*",
    b"**",
    b"?",
    b"[",
    b"]",
    b"!",
    b"\\",
    b"{",
    b"}",
    b",",
    b"/",
    b"/",
    b"-",
    b" ",
    b"#",
    b"a",
    b"b",
    b"ab",
    b"c",
    b".",
    b"x.{a,b}",
    b"[a-c]",
    b"[!a]",
    b"[^b]",
    b"[]a]",
    b"[\\]]",
    b"[a\\-c]",
    b"[[:alpha:]]",
    b"[[:space:]]",
    b"[[:punct:]]",
    b"[[:nope:]]",
    b"**/",
    b"/**",
    b"/**/",
    b"\0",
    b"\r",
    b"\xe9",
    b"\\ ",
    b"\\*",
    b"\\[",
];

/// What names are made of: the same characters, so rules match.
const NAME_PIECES: &[&[u8]] = &[
    b"a", b"b", b"ab", b"c", b"{", b"}", b",", b"[", b"]", b"!", b"\\", b"-", b" ", b"#", b"*",
    b"?", b"x.{a,b}", b".", b"\xe9", b"\t", b"\x0b", b"a.b",
];

fn rule(r: &mut Rng) -> Vec<u8> {
    if r.chance(5) {
        return b"# a comment".to_vec();
    }
    if r.chance(3) {
        return Vec::new();
    }
    let mut line = Vec::new();
    if r.chance(20) {
        line.push(b'!');
    }
    if r.chance(15) {
        line.push(b'/');
    }
    for _ in 0..1 + r.below(5) {
        line.extend_from_slice(r.pick(RULE_PIECES));
    }
    if r.chance(15) {
        line.push(b'/');
    }
    if r.chance(10) {
        line.extend_from_slice(&b"   "[..1 + r.below(3)]);
    }
    line
}

/// A rule file of up to `n` lines; returns its text and its rule count.
fn rule_file(r: &mut Rng, n: usize) -> (Vec<u8>, usize) {
    let mut text = Vec::new();
    let lines = r.below(n + 1);
    for _ in 0..lines {
        text.extend_from_slice(&rule(r));
        text.push(b'\n');
    }
    if r.chance(10) {
        // No newline after the last line.
        text.extend_from_slice(&rule(r));
    }
    (text, lines)
}

fn name(r: &mut Rng) -> Vec<u8> {
    loop {
        let mut n = Vec::new();
        for _ in 0..1 + r.below(3) {
            n.extend_from_slice(r.pick(NAME_PIECES));
        }
        // Names git or a path cannot have, or that mean something else.
        if n != b"." && n != b".." && n != b".git" && n != b".gitignore" {
            return n;
        }
    }
}

/// One entry of a generated tree.
enum Made {
    File,
    Folder,
    Link,
}

/// Makes a tree of files, folders and links under `repo`; returns every path, relative.
fn tree(r: &mut Rng, repo: &Path) -> Vec<Vec<u8>> {
    let mut paths: Vec<Vec<u8>> = Vec::new();
    let mut folders: Vec<Vec<u8>> = vec![Vec::new()];
    for _ in 0..40 + r.below(30) {
        let parent = folders[r.below(folders.len())].clone();
        if parent.iter().filter(|&&b| b == b'/').count() >= 3 {
            continue;
        }
        let mut path = parent.clone();
        if !path.is_empty() {
            path.push(b'/');
        }
        path.extend_from_slice(&name(r));
        if paths.contains(&path) {
            continue;
        }
        let made = match r.below(10) {
            0..=4 => Made::File,
            5..=8 => Made::Folder,
            _ => Made::Link,
        };
        let at = repo.join(std::ffi::OsStr::from_bytes(&path));
        match made {
            Made::File => std::fs::write(&at, b"").unwrap(),
            Made::Folder => {
                std::fs::create_dir(&at).unwrap();
                folders.push(path.clone());
            }
            // A link to a folder: git matches it as a file.
            Made::Link => std::os::unix::fs::symlink(".", &at).unwrap(),
        }
        paths.push(path);
    }
    paths
}

/// Puts in `folder` a `.git` that is no repository for git (setup.c's
/// `is_git_directory`): an empty folder, one missing `refs`, a dangling
/// link, or a `gitdir:` file naming nothing.
fn invalid_git(r: &mut Rng, folder: &Path) {
    let git = folder.join(".git");
    match r.below(4) {
        0 => std::fs::create_dir(&git).unwrap(),
        1 => {
            std::fs::create_dir_all(git.join("objects")).unwrap();
            std::fs::write(git.join("HEAD"), b"ref: refs/heads/main\n").unwrap();
        }
        2 => std::os::unix::fs::symlink("nowhere", &git).unwrap(),
        _ => std::fs::write(&git, b"gitdir: nowhere\n").unwrap(),
    }
}

fn git(repo: &Path, home: &Path) -> Command {
    let mut c = Command::new("git");
    c.current_dir(repo)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("LC_ALL", "C");
    c
}

/// What `git check-ignore` says of each path: ignored, and by which rule
/// (whatever the index says).
fn git_verdicts(repo: &Path, home: &Path, paths: &[Vec<u8>]) -> Vec<(bool, String)> {
    check_ignore(git(repo, home), paths)
}

/// What `git status` hides: each ignored path, a folder with its `/`
/// (below it everything is hidden too).
fn git_hidden(repo: &Path, home: &Path) -> BTreeSet<Vec<u8>> {
    let out = git(repo, home)
        .args([
            "status",
            "--porcelain=v1",
            "-z",
            "--ignored=matching",
            "--untracked-files=all",
        ])
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git status: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
        .split(|&b| b == 0)
        .filter_map(|r| r.strip_prefix(b"!! "))
        .map(<[u8]>::to_vec)
        .collect()
}

/// Whether `path` is hidden by git: it, or a folder above it, is ignored.
fn hidden_by(hidden: &BTreeSet<Vec<u8>>, path: &[u8]) -> bool {
    let mut folder = path.to_vec();
    folder.push(b'/');
    if hidden.contains(path) || hidden.contains(&folder) {
        return true;
    }
    path.iter()
        .enumerate()
        .filter(|(_, &b)| b == b'/')
        .any(|(i, _)| hidden.contains(&path[..=i]))
}

/// Adds `paths` to the index whatever the rules say (`git add -f`), names
/// taken literally (they hold `*`, `?`, `[`).
fn track(repo: &Path, home: &Path, paths: &[Vec<u8>]) {
    use std::io::Write;
    use std::process::Stdio;
    if paths.is_empty() {
        return;
    }
    let mut child = git(repo, home)
        .args([
            "--literal-pathspecs",
            "add",
            "-f",
            "--pathspec-from-file=-",
            "--pathspec-file-nul",
        ])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("git runs");
    let input: Vec<u8> = paths
        .iter()
        .flat_map(|p| p.iter().copied().chain([0]))
        .collect();
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "git add: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every path the listing shows, relative to `repo`.
fn shown(e: &Entry, repo: &Path, into: &mut BTreeSet<Vec<u8>>) {
    for child in e.folder.iter().flat_map(|f| f.entries.iter()) {
        let path = decode_handle(&child.handle).unwrap();
        into.insert(
            path.strip_prefix(repo)
                .unwrap()
                .as_os_str()
                .as_bytes()
                .to_vec(),
        );
        shown(child, repo, into);
    }
}

/// Totals over the rounds run.
#[derive(Default)]
struct Figures {
    rules: usize,
    paths: usize,
    ignored: usize,
    tracked: usize,
    /// Tracked paths a rule matches, which git keeps.
    kept_tracked: usize,
    disagreements: Vec<String>,
}

fn round(seed: u64, config: &Path, figures: &mut Figures) {
    let mut r = Rng(seed);
    let t = Tree::new();
    let home = t.dir("home");
    let repo = t.at("repo");
    let init = git(t.path(), &home).args(["init", "-q", "repo"]).output();
    let init = init
        .expect("git is needed for this test (scripts/test installs it): it could not be started");
    assert!(
        init.status.success(),
        "git init: {}",
        String::from_utf8_lossy(&init.stderr)
    );
    let mut paths = tree(&mut r, &repo);
    let mut files = Vec::new();
    let (root, n) = rule_file(&mut r, 12);
    std::fs::write(repo.join(".gitignore"), &root).unwrap();
    paths.push(b".gitignore".to_vec());
    files.push((".gitignore".to_string(), root));
    figures.rules += n;
    let nested: Vec<Vec<u8>> = paths
        .iter()
        .filter(|p| {
            repo.join(std::ffi::OsStr::from_bytes(p)).is_dir()
                && !repo.join(std::ffi::OsStr::from_bytes(p)).is_symlink()
        })
        .cloned()
        .collect();
    if let Some(folder) = nested.get(r.below(nested.len().max(1))) {
        let (text, n) = rule_file(&mut r, 6);
        let mut path = folder.clone();
        path.extend_from_slice(b"/.gitignore");
        std::fs::write(repo.join(std::ffi::OsStr::from_bytes(&path)), &text).unwrap();
        files.push((path.escape_ascii().to_string(), text));
        paths.push(path);
        figures.rules += n;
    }
    // Files and links committed before the rules were written, or added
    // with `-f` since: git never ignores them, wherever they are.
    let tracked: Vec<Vec<u8>> = if r.chance(70) {
        let share = 10 + r.below(40);
        paths
            .iter()
            .filter(|p| {
                !repo.join(std::ffi::OsStr::from_bytes(p)).is_dir()
                    || repo.join(std::ffi::OsStr::from_bytes(p)).is_symlink()
            })
            .filter(|_| r.chance(share))
            .cloned()
            .collect()
    } else {
        Vec::new()
    };
    track(&repo, &home, &tracked);
    figures.tracked += tracked.len();
    if r.chance(30) {
        // A `.git` that git does not take for a repository: the rules
        // around still reach the folder holding it.
        if let Some(folder) = nested.get(r.below(nested.len().max(1))) {
            invalid_git(&mut r, &repo.join(std::ffi::OsStr::from_bytes(folder)));
        }
    }
    let (exclude, n) = rule_file(&mut r, 4);
    std::fs::write(repo.join(".git/info/exclude"), &exclude).unwrap();
    files.push((".git/info/exclude".to_string(), exclude));
    figures.rules += n;
    let (global, n) = rule_file(&mut r, 4);
    std::fs::write(config.join("git/ignore"), &global).unwrap();
    files.push(("global".to_string(), global));
    figures.rules += n;

    let verdicts = git_verdicts(&repo, &home, &paths);
    let hidden = git_hidden(&repo, &home);
    let opts = ListOptions {
        hide_ignored: true,
        handles: true,
        details: false,
        ..opts(5, 10_000)
    };
    let listing = list(&repo, &opts).unwrap_or_else(|e| panic!("seed {seed}: {e:?}"));
    assert!(
        listing.root.error.is_none(),
        "seed {seed}: {:?}",
        listing.root.error
    );
    let mut seen = BTreeSet::new();
    shown(&listing.root, &repo, &mut seen);
    if std::env::var_os("CANOPY_DIFF_DEBUG").is_some() {
        eprintln!("{}", serde_json::to_string_pretty(&listing).unwrap());
    }
    figures.paths += paths.len();
    for (path, (matched, why)) in paths.iter().zip(verdicts) {
        let ignored = hidden_by(&hidden, path);
        figures.ignored += usize::from(ignored);
        let kept = matched && !ignored;
        figures.kept_tracked += usize::from(kept && tracked.contains(path));
        if seen.contains(path) == ignored {
            let why = if tracked.contains(path) {
                format!("tracked; {why}")
            } else {
                why
            };
            let rules: Vec<String> = files
                .iter()
                .map(|(f, text)| format!("{f}: {}", text.escape_ascii()))
                .collect();
            figures.disagreements.push(format!(
                "seed {seed}: {} is {} by git ({why}) but {} by Canopy; rules:\n  {}",
                path.escape_ascii(),
                if ignored { "ignored" } else { "kept" },
                if ignored { "shown" } else { "hidden" },
                rules.join("\n  ")
            ));
        }
    }
}

#[test]
fn hide_ignored_agrees_with_git_status_on_generated_rules_and_tracked_files() {
    let config = Tree::new();
    config.dir("git");
    std::env::set_var("XDG_CONFIG_HOME", config.path());
    let seeds: Vec<u64> = match std::env::var("CANOPY_DIFF_SEED") {
        Ok(s) => vec![s.parse().expect("CANOPY_DIFF_SEED is a number")],
        Err(_) => (1..=ROUNDS).collect(),
    };
    let mut figures = Figures::default();
    for &seed in &seeds {
        round(seed, config.path(), &mut figures);
    }
    println!(
        "git differential: {} rounds, {} rules, {} paths ({} ignored by git, {} tracked, {} of them matched by a rule and kept), {} disagreements",
        seeds.len(),
        figures.rules,
        figures.paths,
        figures.ignored,
        figures.tracked,
        figures.kept_tracked,
        figures.disagreements.len()
    );
    if seeds.len() > 1 {
        assert!(
            figures.kept_tracked > 0,
            "the generated cases must have tracked paths that a rule matches"
        );
        assert!(
            figures.ignored > 0 && figures.ignored < figures.paths,
            "the generated cases must have git ignore some paths and keep others ({} of {} ignored): a matcher that hides nothing, or everything, must not pass",
            figures.ignored,
            figures.paths
        );
    }
    assert!(
        figures.disagreements.is_empty(),
        "{} of {} paths disagree with git (replay one with CANOPY_DIFF_SEED=seed); the first:\n{}",
        figures.disagreements.len(),
        figures.paths,
        figures
            .disagreements
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
