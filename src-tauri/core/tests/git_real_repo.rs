//! "Hide ignored" on a populated real repository, against `git status
//! --ignored=matching --untracked-files=all`: this project's own repository,
//! cloned (its files, its own `.gitignore`s), populated with real crate
//! sources from cargo's registry (those this workspace is built from):
//! untracked ones, ones inside ignored build folders, and ones added with
//! `git add -f`; then rules written after the fact that match tracked files,
//! as pyenv's placeholder `*`, SvelteKit's playgrounds and Tauri's
//! `permissions/schemas` do. Every path on disk is compared.
//!
//! `CANOPY_REAL_REPO=/path/to/a/clone` compares a repository as it is
//! instead (nothing in it is written) and prints the figures.

mod common;

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use canopy_core::limits::{MAX_DEPTH, MAX_PAGE};
use canopy_core::names::decode_handle;
use canopy_core::wire::Entry;
use canopy_core::RequestBudget;
use common::*;

fn git(dir: &Path) -> Command {
    let mut c = git_in(dir);
    c.env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t");
    c
}

fn run(dir: &Path, args: &[&str], input: &[u8]) -> Vec<u8> {
    use std::io::Write;
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

fn nul_split(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes.split(|&b| b == 0).filter(|p| !p.is_empty())
}

/// Every path below `root` (`.git` left out), relative, and the deepest level.
fn on_disk(root: &Path) -> (Vec<Vec<u8>>, usize) {
    let mut out = Vec::new();
    let mut deepest = 0;
    let mut stack = vec![(root.to_path_buf(), 1)];
    while let Some((dir, level)) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let e = e.unwrap();
            if e.file_name() == ".git" {
                continue;
            }
            let path = e.path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .as_os_str()
                .as_bytes()
                .to_vec();
            deepest = deepest.max(level);
            if e.file_type().unwrap().is_dir() {
                stack.push((path, level + 1));
            }
            out.push(rel);
        }
    }
    out.sort();
    (out, deepest)
}

/// What `git status` hides (a folder with its `/`).
fn git_hidden(repo: &Path) -> BTreeSet<Vec<u8>> {
    let out = run(
        repo,
        &[
            "status",
            "--porcelain=v1",
            "-z",
            "--ignored=matching",
            "--untracked-files=all",
        ],
        b"",
    );
    nul_split(&out)
        .filter_map(|r| r.strip_prefix(b"!! "))
        .map(<[u8]>::to_vec)
        .collect()
}

fn hidden_by(hidden: &BTreeSet<Vec<u8>>, path: &[u8]) -> bool {
    let mut folder = path.to_vec();
    folder.push(b'/');
    hidden.contains(path)
        || hidden.contains(&folder)
        || path
            .iter()
            .enumerate()
            .any(|(i, &b)| b == b'/' && hidden.contains(&path[..=i]))
}

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

/// How Canopy's "Hide ignored" and git differ on one repository.
#[derive(Debug, Default)]
struct Compared {
    paths: usize,
    hidden_by_git: usize,
    tracked: usize,
    /// Tracked paths an ignore rule matches (git keeps them).
    tracked_matched: usize,
    /// Paths git shows that Canopy hid, and the reverse (a few named).
    hid_shown: Vec<String>,
    showed_hidden: Vec<String>,
}

fn compare(repo: &Path) -> Compared {
    let (paths, deepest) = on_disk(repo);
    assert!(
        deepest as u32 <= MAX_DEPTH,
        "the listing reaches every level"
    );
    let hidden = git_hidden(repo);
    let tracked: BTreeSet<Vec<u8>> = nul_split(&run(repo, &["ls-files", "-z"], b""))
        .map(<[u8]>::to_vec)
        .collect();
    let matched: BTreeSet<Vec<u8>> = nul_split(&run(
        repo,
        &[
            "ls-files",
            "-z",
            "--cached",
            "--ignored",
            "--exclude-standard",
        ],
        b"",
    ))
    .map(<[u8]>::to_vec)
    .collect();
    let o = ListOptions {
        hide_ignored: true,
        handles: true,
        details: false,
        summary: false,
        limit: None,
        request: RequestBudget::UNLIMITED,
        ..opts(MAX_DEPTH, MAX_PAGE)
    };
    let listing = list(repo, &o).unwrap();
    assert!(listing.root.error.is_none(), "{:?}", listing.root.error);
    let mut seen = BTreeSet::new();
    shown(&listing.root, repo, &mut seen);
    let mut c = Compared {
        paths: paths.len(),
        tracked: tracked.len(),
        tracked_matched: matched.len(),
        ..Compared::default()
    };
    for p in &paths {
        let by_git = hidden_by(&hidden, p);
        c.hidden_by_git += usize::from(by_git);
        match (by_git, seen.contains(p)) {
            (false, false) => c.hid_shown.push(p.escape_ascii().to_string()),
            (true, true) => c.showed_hidden.push(p.escape_ascii().to_string()),
            _ => {}
        }
    }
    c
}

/// Copies the tree `from` to `to` (regular files and folders only).
fn copy_tree(from: &Path, to: &Path) -> usize {
    let mut n = 0;
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let t = e.file_type().unwrap();
        if t.is_dir() {
            n += copy_tree(&e.path(), &to.join(e.file_name()));
        } else if t.is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
            n += 1;
        }
    }
    n
}

/// Cargo's unpacked crate sources (the registry this workspace was built from).
fn registry_crates() -> Vec<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))
        .expect("CARGO_HOME or HOME is set when cargo runs the tests");
    let src = home.join("registry/src");
    let mut crates: Vec<PathBuf> = std::fs::read_dir(&src)
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e}: the crates this workspace builds from",
                src.display()
            )
        })
        .flat_map(|index| std::fs::read_dir(index.unwrap().path()).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    crates.sort();
    assert!(
        crates.len() >= 20,
        "{} crates in {}",
        crates.len(),
        src.display()
    );
    crates
}

/// This project's repository, cloned into `into`, populated and given rules
/// that match tracked files; returns how many files were copied in.
fn populated_clone(into: &Path) -> usize {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let top = run(here, &["rev-parse", "--show-toplevel"], b"");
    let top = Path::new(OsStr::from_bytes(top.trim_ascii_end())).to_path_buf();
    let repo = into.join("repo");
    run(
        into,
        &[
            "clone",
            "-q",
            "--no-hardlinks",
            top.to_str().unwrap(),
            "repo",
        ],
        b"",
    );
    let crates = registry_crates();
    let step = crates.len() / 24;
    let mut copied = 0;
    for (i, krate) in crates.iter().step_by(step.max(1)).take(24).enumerate() {
        let name = krate.file_name().unwrap();
        // Untracked, in build folders the rules ignore, in a vendor folder.
        let to = match i % 3 {
            0 => repo.join("vendor").join(name),
            1 => repo.join("target/debug/build").join(name),
            _ => repo.join("ui/node_modules").join(name),
        };
        copied += copy_tree(krate, &to);
    }
    // Some of them added whatever the rules say (`add -f`).
    let (all, _) = on_disk(&repo);
    let tracked: BTreeSet<Vec<u8>> = nul_split(&run(&repo, &["ls-files", "-z"], b""))
        .map(<[u8]>::to_vec)
        .collect();
    let forced: Vec<u8> = all
        .iter()
        .filter(|p| !tracked.contains(*p) && !repo.join(OsStr::from_bytes(p)).is_dir())
        .enumerate()
        .filter(|(i, _)| i % 9 == 0)
        .flat_map(|(_, p)| p.iter().copied().chain([0]))
        .collect();
    run(
        &repo,
        &[
            "--literal-pathspecs",
            "add",
            "-f",
            "--pathspec-from-file=-",
            "--pathspec-file-nul",
        ],
        &forced,
    );
    // Rules written after the files were committed: a placeholder `*` that
    // keeps only itself (pyenv), a folder the rules name that holds
    // committed files (Tauri's schemas), extensions that tracked files have.
    let append = |rel: &str, text: &str| {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(repo.join(rel))
            .unwrap();
        f.write_all(text.as_bytes()).unwrap();
    };
    append(
        ".gitignore",
        "\n*.md\n!README.md\nCargo.*\n!/Cargo.toml\n/src-tauri/core/tests/\n",
    );
    append("src-tauri/.gitignore", "*.rs\n!main.rs\nsrc/\n");
    append("ui/src/.gitignore", "*\n!.gitignore\n");
    append("vendor/.gitignore", "*/src/\n*.toml\n");
    append("scripts/.gitignore", "/*\n!/.gitignore\n");
    copied
}

#[test]
fn hide_ignored_agrees_with_git_status_on_a_populated_real_repository() {
    if let Some(repo) = std::env::var_os("CANOPY_REAL_REPO") {
        let c = compare(Path::new(&repo));
        println!(
            "{}: {} paths, {} hidden by git, {} tracked ({} matched by a rule); \
             Canopy hid {} that git shows, showed {} that git hides; first: {:?} {:?}",
            Path::new(&repo).display(),
            c.paths,
            c.hidden_by_git,
            c.tracked,
            c.tracked_matched,
            c.hid_shown.len(),
            c.showed_hidden.len(),
            c.hid_shown.iter().take(3).collect::<Vec<_>>(),
            c.showed_hidden.iter().take(3).collect::<Vec<_>>(),
        );
        return;
    }
    let t = Tree::new();
    // The user's global excludes file is not this test's.
    std::env::set_var("XDG_CONFIG_HOME", t.dir("config"));
    let copied = populated_clone(t.path());
    let c = compare(&t.at("repo"));
    println!(
        "real repository: {} paths ({copied} copied from cargo's registry), {} hidden by git, {} tracked, \
         {} of them matched by a rule",
        c.paths, c.hidden_by_git, c.tracked, c.tracked_matched
    );
    assert!(
        c.tracked_matched > 100 && c.hidden_by_git > 100,
        "the fixture has tracked files that rules match, and ignored ones: {c:?}"
    );
    assert!(
        c.hid_shown.is_empty() && c.showed_hidden.is_empty(),
        "{} paths git shows were hidden, {} it hides were shown; the first: {:?} {:?}",
        c.hid_shown.len(),
        c.showed_hidden.len(),
        c.hid_shown.iter().take(10).collect::<Vec<_>>(),
        c.showed_hidden.iter().take(10).collect::<Vec<_>>()
    );
}
