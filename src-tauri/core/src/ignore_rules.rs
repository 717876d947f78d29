//! Ignore rules: what git would ignore, for "Hide ignored" and
//! `canopy-list --gitignore`.
//!
//! The rules mean what they mean to git: each line is read and matched as
//! git does ([`crate::ignore_pattern`], git's own glob language over bytes,
//! held to `git check-ignore` by a differential test); this module finds the
//! files and layers them. Each file is read through the engine's
//! regular-file open ([`crate::dirio::open_regular_at`]): never a fifo or a
//! device, never a symlinked `.gitignore` (git does not follow one either;
//! it does follow a symlinked `.git/info/exclude` or global file, and so does
//! Canopy, to a regular file only), at most `MAX_IGNORE_FILE_BYTES`, on the
//! bounded-I/O worker of the folder being read, so a dead mount cannot hang
//! it. A file that cannot be used is not silently skipped: its folder
//! carries an error naming the file and saying why (`NOT_A_FILE`,
//! `TOO_LARGE`, `DENIED`, ...), and the rules of the other files still
//! apply. Compiled rules cost memory until the listing ends and every name is
//! matched against them, so one listing compiles at most `MAX_IGNORE_RULES`
//! rules of `MAX_IGNORE_RULE_BYTES` in all, compiled to at most
//! `MAX_IGNORE_COMPILED_BYTES`; a file whose rules would pass that is not
//! used, and its folder says so (`TOO_LARGE`). Matching never backtracks,
//! counts its steps, and stops at the folder's deadline or a cancel (the
//! folder then says `TIMEOUT`, as a slow read does).
//!
//! Which files, from highest precedence to lowest, as git reads them:
//! - the `.gitignore` of the folder, then of each folder above it up to the
//!   repository's root (the nearest folder whose `.git` git takes for a
//!   repository: a folder holding a valid `HEAD`, `objects` and `refs`, a
//!   link to one, or a `gitdir: PATH` file naming one; an empty `.git`
//!   folder, a dangling link, a fifo is passed over, as git passes over
//!   it), found from the folder's real location (a folder reached through a
//!   symlink into a repository is in that repository, as it is for git run
//!   there); a deeper file's rule,
//!   or its `!negation`, wins over a shallower one;
//! - `.git/info/exclude` (when `.git` is a folder; a worktree's `.git` file is
//!   not followed);
//! - the global excludes file at git's default place,
//!   `$XDG_CONFIG_HOME/git/ignore` (when set and not empty), else
//!   `$HOME/.config/git/ignore`; a relative one is taken from the
//!   repository's top folder, where git runs. Git's config files are not read
//!   (that would mean running git, or parsing its config): a
//!   `core.excludesFile` there is not used, and `core.ignorecase` (set by
//!   `git init` on case-insensitive filesystems) is not honoured, so rules
//!   match case as written. Both are differences.
//!
//! Outside a repository nothing is ignored, as with git. Inside one, an entry
//! named `.git` is always ignored (git never lists one; editors hide it too),
//! and inside a `.git` folder no rule applies: listed by itself, it shows
//! everything. A folder below the listed one whose `.git` is a repository
//! starts that repository's rules; one whose `.git` is not keeps the rules
//! around. A folder inside an ignored folder (the listed folder itself may
//! be one, e.g. a build output folder) has every entry ignored, as
//! git does not look inside an ignored folder. Names and rule lines are
//! bytes: neither needs to be UTF-8.
#![forbid(unsafe_code)]

use std::collections::HashSet;
use std::ffi::OsStr;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::dirio::{Dir, SmallFile};
use crate::error::{CanopyError, ErrorCode};
use crate::ignore_pattern::{rule_lines, ByteSet, Halt, Meter, Pattern, States, Subject};
use crate::limits::{
    MAX_GIT_MARKER_BYTES, MAX_IGNORE_COMPILED_BYTES, MAX_IGNORE_FILE_BYTES, MAX_IGNORE_RULES,
    MAX_IGNORE_RULE_BYTES,
};
use crate::local::LocalFs;
use crate::wire::EntryKind;

/// The rules of one ignore file, for the folder it applies from, in the
/// file's order (the last that matches decides).
struct Layer {
    patterns: Box<[Pattern]>,
}

/// What one listing's rules have taken of its budget, or would.
#[derive(Debug, Clone, Copy)]
struct Spent {
    rules: usize,
    bytes: usize,
    compiled: usize,
}

/// The rules one listing has compiled so far, shared by the rules of every
/// folder it reads: compiled rules cost memory until the listing ends, and
/// every name is matched against them, so their number, text and compiled
/// size are bounded per listing.
#[derive(Debug, Default)]
struct RuleBudget {
    rules: AtomicUsize,
    bytes: AtomicUsize,
    compiled: AtomicUsize,
}

impl RuleBudget {
    fn spent(&self) -> Spent {
        Spent {
            rules: self.rules.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
            compiled: self.compiled.load(Ordering::Relaxed),
        }
    }

    /// Takes `want`, or says what was already taken.
    fn take(&self, want: Spent) -> Result<(), Spent> {
        let had = Spent {
            rules: self.rules.fetch_add(want.rules, Ordering::Relaxed),
            bytes: self.bytes.fetch_add(want.bytes, Ordering::Relaxed),
            compiled: self.compiled.fetch_add(want.compiled, Ordering::Relaxed),
        };
        if !fits(had, want) {
            self.rules.fetch_sub(want.rules, Ordering::Relaxed);
            self.bytes.fetch_sub(want.bytes, Ordering::Relaxed);
            self.compiled.fetch_sub(want.compiled, Ordering::Relaxed);
            return Err(had);
        }
        Ok(())
    }
}

/// True when `want` more fits in the listing's budget after `had`.
fn fits(had: Spent, want: Spent) -> bool {
    had.rules + want.rules <= MAX_IGNORE_RULES
        && had.bytes + want.bytes <= MAX_IGNORE_RULE_BYTES
        && had.compiled + want.compiled <= MAX_IGNORE_COMPILED_BYTES
}

/// What one folder's matching reuses from entry to entry.
#[derive(Default)]
pub(crate) struct IgnoreScratch {
    path: Vec<u8>,
    states: States,
}

/// An ignore file's text as a source read it (at most
/// `MAX_IGNORE_FILE_BYTES`), and how messages name it.
#[derive(Debug, Clone)]
pub struct RuleText {
    pub text: Vec<u8>,
    pub what: String,
}

/// The rules that apply to one folder's entries.
#[derive(Clone, Default)]
pub struct IgnoreRules {
    /// Shared by every folder's rules of one listing.
    budget: Arc<RuleBudget>,
    /// False outside a repository (and inside its `.git`): nothing is ignored.
    active: bool,
    /// The folder lies inside an ignored folder: every entry is ignored.
    all: bool,
    /// Layers with the path from each layer's folder to this folder, deepest
    /// first (the folder's own `.gitignore`, then its parents'), then
    /// `.git/info/exclude` and the global file.
    layers: Vec<(Arc<Layer>, PathBuf)>,
}

impl std::fmt::Debug for IgnoreRules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IgnoreRules")
            .field("active", &self.active)
            .field("all", &self.all)
            .field("layers", &self.layers.len())
            .finish()
    }
}

/// Why an ignore file was not used, for its folder's entry.
fn unusable(what: &str, found: &SmallFile) -> Option<CanopyError> {
    match found {
        SmallFile::Missing | SmallFile::Read(_) => None,
        SmallFile::NotRegular(kind) => Some(CanopyError::new(
            ErrorCode::NotAFile,
            format!("{what} is {}: it is never opened, and its rules are not used", kind_words(*kind)),
        )),
        SmallFile::TooLarge(size) => Some(CanopyError::new(
            ErrorCode::TooLarge,
            format!("{what} is {size} bytes; ignore files over {MAX_IGNORE_FILE_BYTES} bytes are not used"),
        )),
    }
}

fn kind_words(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::Folder => "a folder",
        EntryKind::Symlink => "a symlink (git does not follow one either)",
        EntryKind::Fifo => "a fifo",
        EntryKind::Socket => "a socket",
        EntryKind::CharDevice => "a character device",
        EntryKind::BlockDevice => "a block device",
        EntryKind::File | EntryKind::Unknown => {
            "not a regular file (it changed while it was opened)"
        }
    }
}

fn over_budget(what: &str, want: Spent, had: Spent) -> CanopyError {
    CanopyError::new(
        ErrorCode::TooLarge,
        format!(
            "{what} holds {} rules ({} bytes, {} bytes compiled) and this listing has already read {} ({} bytes, {} compiled); \
             one listing compiles at most {MAX_IGNORE_RULES} rules of {MAX_IGNORE_RULE_BYTES} bytes, to at most \
             {MAX_IGNORE_COMPILED_BYTES} bytes, so its rules are not used",
            want.rules, want.bytes, want.compiled, had.rules, had.bytes, had.compiled
        ),
    )
}

/// Builds the rules of one file's text (named `what` in messages), within
/// the listing's rule budget: a file whose rules do not fit is not used, and
/// the error says why.
fn layer_of(
    text: &[u8],
    what: &str,
    budget: &RuleBudget,
) -> (Option<Arc<Layer>>, Option<CanopyError>) {
    // Counted before anything is compiled, so a file over the budget costs one scan.
    let (rules, bytes) =
        rule_lines(text).fold((0usize, 0usize), |(n, b), line| (n + 1, b + line.len()));
    if rules == 0 {
        return (None, None);
    }
    let counted = Spent {
        rules,
        bytes,
        compiled: 0,
    };
    let had = budget.spent();
    if !fits(had, counted) {
        return (None, Some(over_budget(what, counted, had)));
    }
    // A rule that comes again later can never be the last match: only the
    // last of identical lines is kept (5,000 copies of one costly rule cost one).
    let mut seen = HashSet::new();
    let mut last_of_each: Vec<&[u8]> = rule_lines(text)
        .rev()
        .filter(|line| seen.insert(*line))
        .collect();
    last_of_each.reverse();
    let patterns: Box<[Pattern]> = last_of_each.into_iter().map(Pattern::parse).collect();
    let want = Spent {
        compiled: patterns.iter().map(Pattern::cost).sum(),
        ..counted
    };
    match budget.take(want) {
        Ok(()) => (Some(Arc::new(Layer { patterns })), None),
        Err(had) => (None, Some(over_budget(what, want, had))),
    }
}

/// Reads `name` in `dir` as an ignore file (named `what` in messages): its
/// rules, or why not. `follow`: a final symlink is followed (git follows one
/// for `.git/info/exclude` and the global file, never for a `.gitignore`);
/// what it reaches must still be a regular file.
fn read_layer(
    dir: &Dir,
    name: &[u8],
    what: &str,
    follow: bool,
    budget: &RuleBudget,
) -> (Option<Arc<Layer>>, Option<CanopyError>) {
    match dir.read_small_file(name, MAX_IGNORE_FILE_BYTES, follow) {
        Ok(SmallFile::Read(text)) => layer_of(&text, what, budget),
        Ok(other) => (None, unusable(what, &other)),
        Err(e) => (
            None,
            Some(CanopyError::from_io(&e, &format!("cannot read {what}"))),
        ),
    }
}

/// Reads the file `file` (its folder opened by path) as an ignore file,
/// named `prefix` and its path in messages.
fn read_layer_at(
    file: &Path,
    prefix: &str,
    follow: bool,
    fs: &LocalFs,
    budget: &RuleBudget,
) -> (Option<Arc<Layer>>, Option<CanopyError>) {
    let (Some(dir_path), Some(name)) = (file.parent(), file.file_name()) else {
        return (None, None);
    };
    let what = format!("{prefix}{}", file.display());
    // Only searched, not read: a folder git may look a name up in (mode 711) serves.
    match fs.search_path(dir_path) {
        Ok(dir) => read_layer(&dir, name.as_bytes(), &what, follow, budget),
        Err(e) if matches!(e.raw_os_error(), Some(libc::ENOENT) | Some(libc::ENOTDIR)) => {
            (None, None)
        }
        Err(e) => (
            None,
            Some(CanopyError::from_io(&e, &format!("cannot read {what}"))),
        ),
    }
}

/// True when the `.git` in `dir` makes the folder a repository's root, as
/// git's `is_git_directory` and `read_gitfile` decide (setup.c): a folder
/// that is a repository, a link to one, or a regular file (or a link to
/// one) whose text is `gitdir: PATH` naming one, a relative PATH taken from
/// the folder. Anything else named `.git` (an empty folder, a dangling
/// link, a fifo) git passes over, and so the rules of the repository around
/// keep applying. A few `stat`s relative to `dir` and at most two reads of
/// `MAX_GIT_MARKER_BYTES`, never of a fifo or a device; like git, it needs
/// the right to search `.git`, not to read it. A `.git` link is not followed
/// when links never are (`canopy-mcp`): such a `.git` is not a repository.
fn is_repository(dir: &Dir) -> bool {
    let Ok(meta) = dir.stat_child(b".git", false) else {
        return false;
    };
    let kind = match meta.kind {
        EntryKind::Symlink => match dir.stat_child(b".git", true) {
            Ok(target) => target.kind,
            Err(_) => return false,
        },
        other => other,
    };
    let follow = meta.kind == EntryKind::Symlink;
    match kind {
        EntryKind::Folder => dir
            .search_child(b".git", follow)
            .is_ok_and(|g| is_git_directory(&g)),
        EntryKind::File => match dir.read_small_file(b".git", MAX_GIT_MARKER_BYTES, follow) {
            // The file may name a repository anywhere (a worktree's names
            // `.git/worktrees/NAME` of its main repository): git goes there.
            Ok(SmallFile::Read(text)) => gitdir_of(&text).is_some_and(|to| {
                dir.search_child(to, true)
                    .is_ok_and(|g| is_git_directory(&g))
            }),
            _ => false,
        },
        _ => false,
    }
}

/// The PATH of a `.git` file's `gitdir: PATH`, as git's `read_gitfile`
/// takes it: the text after the prefix, line ends at its end dropped.
fn gitdir_of(text: &[u8]) -> Option<&[u8]> {
    let rest = trim_line_ends(text.strip_prefix(b"gitdir: ")?);
    (!rest.is_empty()).then_some(rest)
}

/// Git's `is_git_directory` over the opened folder `g`: a valid `HEAD`, then
/// `objects` and `refs` in the common folder (the one a worktree's
/// `commondir` file names, relative to `g`; else `g` itself).
fn is_git_directory(g: &Dir) -> bool {
    let head = match g.stat_child(b"HEAD", false).map(|m| m.kind) {
        // git's validate_headref: a link into refs/, or a symbolic ref or an object name.
        Ok(EntryKind::Symlink) => g.read_link(b"HEAD").is_ok_and(|t| t.starts_with(b"refs/")),
        Ok(EntryKind::File) => match g.read_small_file(b"HEAD", MAX_GIT_MARKER_BYTES, false) {
            Ok(SmallFile::Read(text)) => match text.strip_prefix(b"ref:") {
                Some(r) => r.trim_ascii_start().starts_with(b"refs/"),
                None => text.len() >= 40 && text[..40].iter().all(u8::is_ascii_hexdigit),
            },
            _ => false,
        },
        _ => false,
    };
    if !head {
        return false;
    }
    let common = match g.read_small_file(b"commondir", MAX_GIT_MARKER_BYTES, false) {
        Ok(SmallFile::Read(text)) => match g.search_child(trim_line_ends(&text), true) {
            Ok(c) => Some(c),
            Err(_) => return false,
        },
        _ => None,
    };
    let common = common.as_ref().unwrap_or(g);
    // A link is followed only when it is one (a confined folder follows none).
    let folder = |name: &[u8]| match common.stat_child(name, false).map(|m| m.kind) {
        Ok(EntryKind::Folder) => true,
        Ok(EntryKind::Symlink) => common
            .stat_child(name, true)
            .is_ok_and(|m| m.kind == EntryKind::Folder),
        _ => false,
    };
    folder(b"objects") && folder(b"refs")
}

/// `text` without the line ends at its end, as git reads a one-line file.
fn trim_line_ends(mut text: &[u8]) -> &[u8] {
    while let [head @ .., b'\n' | b'\r'] = text {
        text = head;
    }
    text
}

/// Git's default global excludes file, named as git 2.x names it:
/// `$XDG_CONFIG_HOME/git/ignore` when that is set and not empty, else
/// `$HOME/.config/git/ignore`. A relative name is relative to git's working
/// folder, which is the top of the repository `repo` (git moves there
/// before it reads the rules).
fn global_file(repo: &Path) -> Option<PathBuf> {
    let mut name = match std::env::var_os("XDG_CONFIG_HOME").filter(|x| !x.is_empty()) {
        Some(xdg) => xdg.into_vec(),
        None => {
            let mut home = std::env::var_os("HOME")?.into_vec();
            home.extend_from_slice(b"/.config");
            home
        }
    };
    name.extend_from_slice(b"/git/ignore");
    // `join` keeps an absolute name as it is.
    Some(repo.join(OsStr::from_bytes(&name)))
}

/// The rules of a repository whose root is `repo`: `.git/info/exclude` and the
/// global file, lowest precedence last.
fn repository_layers(
    repo: &Path,
    fs: &LocalFs,
    budget: &RuleBudget,
    problems: &mut Vec<CanopyError>,
) -> Vec<(Arc<Layer>, PathBuf)> {
    let mut out = Vec::new();
    let exclude = repo.join(".git/info/exclude");
    let (layer, err) = read_layer_at(&exclude, "", true, fs, budget);
    problems.extend(err);
    out.extend(layer.map(|l| (l, PathBuf::new())));
    // A confined source reads nothing outside its folders.
    let global = global_file(repo).filter(|_| fs.ignore_within().is_none());
    if let Some(global) = global {
        let (layer, err) = read_layer_at(&global, "the global excludes file ", true, fs, budget);
        problems.extend(err);
        out.extend(layer.map(|l| (l, PathBuf::new())));
    }
    out
}

/// The problems of one folder's ignore files as the one error its entry
/// carries: the first, saying how many more there were, so none goes unsaid.
fn one_problem(problems: Vec<CanopyError>) -> Option<CanopyError> {
    let more = problems.len().saturating_sub(1);
    let mut first = problems.into_iter().next()?;
    if more > 0 {
        let files = if more == 1 { "file" } else { "files" };
        first.message = format!(
            "{} (and {more} more ignore {files} could not be used)",
            first.message
        );
    }
    Some(first)
}

/// The error of a folder whose rules could not be worked out in time.
fn halt_error(halt: Halt) -> CanopyError {
    match halt {
        Halt::Cancelled => CanopyError::cancelled(),
        Halt::Deadline => CanopyError::new(
            ErrorCode::Timeout,
            "matching the ignore rules took longer than this folder's time budget; nothing is hidden",
        ),
    }
}

impl IgnoreRules {
    /// Rules that ignore nothing.
    pub fn none() -> IgnoreRules {
        IgnoreRules::default()
    }

    /// The rules for the entries of the folder at `path` (absolute), read
    /// from the repository's root down (see the module docs), and what could
    /// not be used. The repository is looked for from the folder's real
    /// location. Runs on the caller's thread: call it on a bounded worker.
    /// Deciding whether a folder above is ignored is matching, under `meter`:
    /// if it stops, nothing is ignored and the error says why.
    pub(crate) fn for_folder(
        path: &Path,
        fs: &LocalFs,
        meter: &mut Meter<'_>,
    ) -> (IgnoreRules, Option<CanopyError>) {
        // A confined source is given real paths, and looks only inside its folders.
        let within = fs.ignore_within();
        let real = match within {
            Some(_) => path.to_path_buf(),
            None => std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
        };
        let inside = |a: &Path| within.is_none_or(|w| w.iter().any(|r| crate::within(a, r)));
        let holds_git = |a: &Path| fs.search_path(a).is_ok_and(|d| is_repository(&d));
        let Some(repo) = real
            .ancestors()
            .take_while(|a| inside(a))
            .find(|a| holds_git(a))
        else {
            return (IgnoreRules::none(), None);
        };
        let below: Vec<&OsStr> = real
            .strip_prefix(repo)
            .map(|p| p.iter().collect())
            .unwrap_or_default();
        if below.iter().any(|n| n.as_bytes() == b".git") {
            // Inside the repository's own `.git`: git applies no rules there.
            return (IgnoreRules::none(), None);
        }
        let mut problems = Vec::new();
        let budget = Arc::new(RuleBudget::default());
        let base = repository_layers(repo, fs, &budget, &mut problems);
        let mut rules = IgnoreRules {
            budget,
            active: true,
            all: false,
            layers: base,
        };
        let mut here = repo.to_path_buf();
        let (layer, err) = read_layer_at(&here.join(".gitignore"), "", false, fs, &rules.budget);
        problems.extend(err);
        rules.push_own(layer);
        let mut scratch = IgnoreScratch::default();
        for name in below {
            match rules.is_ignored(name.as_bytes(), true, &mut scratch, meter) {
                Ok(true) => {
                    rules.all = true;
                    break;
                }
                Ok(false) => {}
                Err(halt) => return (IgnoreRules::none(), Some(halt_error(halt))),
            }
            rules.enter(name.as_bytes());
            here.push(name);
            let (layer, err) =
                read_layer_at(&here.join(".gitignore"), "", false, fs, &rules.budget);
            problems.extend(err);
            rules.push_own(layer);
        }
        (rules, one_problem(problems))
    }

    /// The rules for the entries of `child` (named `name`, opened as
    /// `dir`), an entry of the folder these rules are for, with why its own
    /// `.gitignore` could not be used.
    pub(crate) fn descend(
        &self,
        name: &[u8],
        dir: &Dir,
        path: &Path,
        fs: &LocalFs,
    ) -> (IgnoreRules, Option<CanopyError>) {
        let inactive = || {
            (
                IgnoreRules {
                    budget: self.budget.clone(),
                    ..IgnoreRules::none()
                },
                None,
            )
        };
        if name == b".git" {
            // A repository's own folder: git applies no rules inside it.
            return inactive();
        }
        let mut problems = Vec::new();
        let holds_git = is_repository(dir);
        let mut rules = if holds_git {
            // A repository of its own: its rules alone.
            let base = repository_layers(path, fs, &self.budget, &mut problems);
            IgnoreRules {
                budget: self.budget.clone(),
                active: true,
                all: false,
                layers: base,
            }
        } else if self.active {
            let mut r = self.clone();
            r.enter(name);
            r
        } else {
            return inactive();
        };
        let what = path.join(".gitignore").display().to_string();
        let (layer, err) = read_layer(dir, b".gitignore", &what, false, &rules.budget);
        problems.extend(err);
        rules.push_own(layer);
        (rules, one_problem(problems))
    }

    /// The rules for the entries of a folder `below` (its names from the
    /// repository's root down) in a repository whose files a source read
    /// itself (a server's, over SFTP): `exclude` is `.git/info/exclude`,
    /// `gitignores` the `.gitignore` of the root and of each folder down to
    /// this one (`below.len() + 1` of them; `None` where there is none), as
    /// [`RuleText`]s. Precedence, the rule budget and "inside an ignored
    /// folder" are as for a local folder (see the module docs).
    pub fn from_texts(
        exclude: Option<RuleText>,
        below: &[&[u8]],
        gitignores: Vec<Option<RuleText>>,
        meter: &mut Meter<'_>,
    ) -> (IgnoreRules, Option<CanopyError>) {
        if below.contains(&&b".git"[..]) {
            return (IgnoreRules::none(), None);
        }
        let mut problems = Vec::new();
        let budget = Arc::new(RuleBudget::default());
        let mut layers = Vec::new();
        if let Some(t) = exclude {
            let (layer, err) = layer_of(&t.text, &t.what, &budget);
            problems.extend(err);
            layers.extend(layer.map(|l| (l, PathBuf::new())));
        }
        let mut rules = IgnoreRules {
            budget,
            active: true,
            all: false,
            layers,
        };
        let mut own = gitignores.into_iter();
        rules.push_text(own.next().flatten(), &mut problems);
        let mut scratch = IgnoreScratch::default();
        for name in below {
            match rules.is_ignored(name, true, &mut scratch, meter) {
                Ok(true) => {
                    rules.all = true;
                    break;
                }
                Ok(false) => {}
                Err(halt) => return (IgnoreRules::none(), Some(halt_error(halt))),
            }
            rules.enter(name);
            rules.push_text(own.next().flatten(), &mut problems);
        }
        (rules, one_problem(problems))
    }

    /// As [`IgnoreRules::from_texts`], for the child folder `name`: its own
    /// `.gitignore` text, and when it is a repository's root of its own,
    /// `Some` of its `.git/info/exclude` text (its rules alone then apply).
    pub fn descend_texts(
        &self,
        name: &[u8],
        own: Option<RuleText>,
        repository: Option<Option<RuleText>>,
    ) -> (IgnoreRules, Option<CanopyError>) {
        let mut problems = Vec::new();
        let mut rules = match repository {
            _ if name == b".git" => {
                return (
                    IgnoreRules {
                        budget: self.budget.clone(),
                        ..IgnoreRules::none()
                    },
                    None,
                )
            }
            Some(exclude) => {
                let mut r = IgnoreRules {
                    budget: self.budget.clone(),
                    active: true,
                    all: false,
                    layers: Vec::new(),
                };
                if let Some(t) = exclude {
                    let (layer, err) = layer_of(&t.text, &t.what, &r.budget);
                    problems.extend(err);
                    r.layers.extend(layer.map(|l| (l, PathBuf::new())));
                }
                r
            }
            None if self.active => {
                let mut r = self.clone();
                r.enter(name);
                r
            }
            None => {
                return (
                    IgnoreRules {
                        budget: self.budget.clone(),
                        ..IgnoreRules::none()
                    },
                    None,
                )
            }
        };
        rules.push_text(own, &mut problems);
        (rules, one_problem(problems))
    }

    /// Whether any rule applies here (inside a repository, outside its `.git`).
    pub fn applies(&self) -> bool {
        self.active
    }

    /// Adds a `.gitignore` text of the folder itself (the deepest layer).
    fn push_text(&mut self, text: Option<RuleText>, problems: &mut Vec<CanopyError>) {
        if let Some(t) = text {
            let (layer, err) = layer_of(&t.text, &t.what, &self.budget);
            problems.extend(err);
            self.push_own(layer);
        }
    }

    /// The layers now apply one folder further down, into `name`.
    fn enter(&mut self, name: &[u8]) {
        for (_, rel) in &mut self.layers {
            rel.push(OsStr::from_bytes(name));
        }
    }

    /// A `.gitignore` of the folder itself: the deepest layer, first.
    fn push_own(&mut self, layer: Option<Arc<Layer>>) {
        if let Some(l) = layer {
            self.layers.insert(0, (l, PathBuf::new()));
        }
    }

    /// True when git would ignore the entry `name` of this folder (`is_dir`:
    /// a real folder; a symlink is matched as a file, as git does). An entry
    /// named `.git` is always ignored inside a repository. `scratch` is
    /// reused between calls.
    ///
    /// # Errors
    /// `meter` stopped the matching (the folder's deadline, or a cancel).
    pub(crate) fn is_ignored(
        &self,
        name: &[u8],
        is_dir: bool,
        scratch: &mut IgnoreScratch,
        meter: &mut Meter<'_>,
    ) -> Result<bool, Halt> {
        if !self.active {
            return Ok(false);
        }
        if self.all || name == b".git" {
            return Ok(true);
        }
        let IgnoreScratch { path, states } = scratch;
        for (layer, rel) in &self.layers {
            path.clear();
            let rel = rel.as_os_str().as_bytes();
            if !rel.is_empty() {
                path.extend_from_slice(rel);
                path.push(b'/');
            }
            let base = path.len();
            path.extend_from_slice(name);
            let subject = Subject {
                path,
                base,
                is_dir,
                bytes: ByteSet::of(path),
            };
            // The last rule of a file that matches decides.
            for pattern in layer.patterns.iter().rev() {
                if pattern.matches(&subject, states, meter)? {
                    return Ok(!pattern.negative);
                }
            }
        }
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_last_of_identical_rules_is_kept_and_the_order_of_the_rest_holds() {
        let text = [
            &b"*.log\n!keep.log\n"[..],
            &b"*a*a*a*b\n".repeat(4_000),
            b"*.log\n",
        ]
        .concat();
        let (layer, err) = layer_of(&text, "test", &RuleBudget::default());
        assert!(err.is_none(), "{err:?}");
        let layer = layer.expect("rules");
        assert_eq!(
            layer.patterns.len(),
            3,
            "!keep.log, one *a*a*a*b, then *.log"
        );
        assert!(
            layer.patterns[0].negative,
            "the later *.log still comes after !keep.log"
        );
    }
}
