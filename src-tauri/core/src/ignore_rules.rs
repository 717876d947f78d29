//! Ignore rules: what git would ignore, for "Hide ignored" and
//! `canopy-list --gitignore`.
//!
//! The rules are git's, matched by ripgrep's `ignore` crate
//! (`ignore::gitignore`); only reading the files is Canopy's own. The crate
//! would open them with a plain `File::open` (a fifo named `.gitignore`
//! blocks, a link to `/dev/zero` reads for ever), so each file is read
//! through the engine's regular-file open ([`crate::dirio::open_regular_at`]):
//! never a fifo or a device, never a symlinked `.gitignore` (git does not
//! follow one either; it does follow a symlinked `.git/info/exclude` or
//! global file, and so does Canopy, to a regular file only), at most
//! `MAX_IGNORE_FILE_BYTES`, on the bounded-I/O
//! worker of the folder being read, so a dead mount cannot hang it. A file
//! that cannot be used is not silently skipped: its folder carries an error
//! saying why (`NOT_A_FILE`, `TOO_LARGE`, `DENIED`, ...), and the rules of the
//! other files still apply. Compiled rules cost memory until the listing
//! ends, so one listing compiles at most `MAX_IGNORE_RULES` rules of
//! `MAX_IGNORE_RULE_BYTES` in all; a file whose rules would pass that (or
//! do not compile) is not used, and its folder says so (`TOO_LARGE`).
//!
//! Which files, from highest precedence to lowest, as git reads them:
//! - the `.gitignore` of the folder, then of each folder above it up to the
//!   repository's root (the nearest folder holding `.git`, a folder, a file
//!   or a link; not a fifo, a socket or a device); a deeper file's rule, or its `!negation`, wins over a shallower one;
//! - `.git/info/exclude` (when `.git` is a folder; a worktree's `.git` file is
//!   not followed);
//! - the global excludes file at git's default place,
//!   `$XDG_CONFIG_HOME/git/ignore`, else `~/.config/git/ignore`. A
//!   `core.excludesFile` set in a git config file is not read (that would mean
//!   running git, or parsing its config): a difference.
//!
//! Outside a repository nothing is ignored, as with git. A folder holding
//! `.git` below the listed one starts its own repository's rules. A folder
//! inside an ignored folder (the listed folder itself may be one, e.g. a
//! build output folder) has every entry ignored, as git does not look inside
//! an ignored folder. Lines that are not valid patterns are skipped, as git
//! skips them. Lines that are not UTF-8 are skipped too (the matcher takes
//! text): git would match them byte for byte, a second difference. Names
//! that are not UTF-8 are matched byte for byte, as git does.

use std::ffi::OsStr;
use std::os::unix::fs::MetadataExt;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::dirio::{kind_of_mode, Dir, IoHooks, SmallFile};
use crate::error::{CanopyError, ErrorCode};
use crate::limits::{MAX_IGNORE_FILE_BYTES, MAX_IGNORE_RULES, MAX_IGNORE_RULE_BYTES};
use crate::wire::EntryKind;

/// The rules of one ignore file, for the folder it applies from.
struct Layer {
    matcher: Gitignore,
}

/// The rules one listing has compiled so far, shared by the rules of every
/// folder it reads: a compiled rule costs memory (kilobytes for a glob)
/// until the listing ends, so their number and text are bounded per listing.
#[derive(Debug, Default)]
struct RuleBudget {
    rules: AtomicUsize,
    bytes: AtomicUsize,
}

impl RuleBudget {
    /// Takes `rules` rules of `bytes` bytes, or says what was already taken.
    fn take(&self, rules: usize, bytes: usize) -> Result<(), (usize, usize)> {
        let had_rules = self.rules.fetch_add(rules, Ordering::Relaxed);
        let had_bytes = self.bytes.fetch_add(bytes, Ordering::Relaxed);
        if had_rules + rules > MAX_IGNORE_RULES || had_bytes + bytes > MAX_IGNORE_RULE_BYTES {
            self.rules.fetch_sub(rules, Ordering::Relaxed);
            self.bytes.fetch_sub(bytes, Ordering::Relaxed);
            return Err((had_rules, had_bytes));
        }
        Ok(())
    }
}

/// The rules that apply to one folder's entries.
#[derive(Clone, Default)]
pub struct IgnoreRules {
    /// Shared by every folder's rules of one listing.
    budget: Arc<RuleBudget>,
    /// False outside a repository: nothing is ignored.
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
        f.debug_struct("IgnoreRules").field("active", &self.active).field("all", &self.all).field("layers", &self.layers.len()).finish()
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
        EntryKind::File | EntryKind::Unknown => "not a regular file (it changed while it was opened)",
    }
}

/// Builds the rules of one file's text (lines split on `\n`, a trailing `\r`
/// dropped, a leading byte order mark skipped), within the listing's rule
/// budget: a file whose rules do not fit, or do not compile, is not used,
/// and the error says why.
fn layer_of(folder: &Path, text: &[u8], what: &str, budget: &RuleBudget) -> (Option<Arc<Layer>>, Option<CanopyError>) {
    // A byte order mark (a Windows editor's) is not part of the first rule: git skips it too.
    let text = text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(text);
    let rule_lines = || {
        text.split(|&b| b == b'\n').filter_map(|line| {
            let line = std::str::from_utf8(line.strip_suffix(b"\r").unwrap_or(line)).ok()?;
            (!line.starts_with('#') && !line.trim_end_matches(' ').is_empty()).then_some(line)
        })
    };
    // Counted before anything is parsed, so a file over the budget costs one scan.
    let (rules, bytes) = rule_lines().fold((0usize, 0usize), |(n, b), line| (n + 1, b + line.len()));
    if rules == 0 {
        return (None, None);
    }
    if let Err((had_rules, had_bytes)) = budget.take(rules, bytes) {
        let message = format!(
            "{what} holds {rules} rules ({bytes} bytes) and this listing has already read {had_rules} ({had_bytes} bytes); \
             one listing compiles at most {MAX_IGNORE_RULES} rules of {MAX_IGNORE_RULE_BYTES} bytes in all, so its rules are not used"
        );
        return (None, Some(CanopyError::new(ErrorCode::TooLarge, message)));
    }
    let mut builder = GitignoreBuilder::new(folder);
    for line in rule_lines() {
        // A line that is not a valid pattern is skipped, as git skips it.
        let _ = builder.add_line(None, line);
    }
    match builder.build() {
        Ok(matcher) if matcher.is_empty() => (None, None),
        Ok(matcher) => (Some(Arc::new(Layer { matcher })), None),
        Err(e) => (None, Some(CanopyError::new(ErrorCode::TooLarge, format!("the rules of {what} could not be compiled ({e}): they are not used")))),
    }
}

/// Reads `name` in `dir` as an ignore file: its rules, or why not. `follow`:
/// a final symlink is followed (git follows one for `.git/info/exclude` and
/// the global file, never for a `.gitignore`); what it reaches must still be
/// a regular file.
fn read_layer(dir: &Dir, folder: &Path, name: &[u8], what: &str, follow: bool, budget: &RuleBudget) -> (Option<Arc<Layer>>, Option<CanopyError>) {
    match dir.read_small_file(name, MAX_IGNORE_FILE_BYTES, follow) {
        Ok(SmallFile::Read(text)) => layer_of(folder, &text, what, budget),
        Ok(other) => (None, unusable(what, &other)),
        Err(e) => (None, Some(CanopyError::from_io(&e, &format!("cannot read {what}")))),
    }
}

/// Reads `dir_path/name` (the folder opened by path) as an ignore file.
fn read_layer_at(dir_path: &Path, name: &[u8], what: &str, follow: bool, hooks: &IoHooks, budget: &RuleBudget) -> (Option<Arc<Layer>>, Option<CanopyError>) {
    match Dir::open_path(dir_path, hooks) {
        Ok(dir) => read_layer(&dir, dir_path, name, what, follow, budget),
        Err(e) if matches!(e.raw_os_error(), Some(libc::ENOENT) | Some(libc::ENOTDIR)) => (None, None),
        Err(e) => (None, Some(CanopyError::from_io(&e, &format!("cannot read {what}")))),
    }
}

/// True when an entry named `.git` of this kind can make its folder a
/// repository's root: a folder, a file (a worktree's `gitdir:` file) or a
/// link to one; git does not take a fifo, a socket or a device for one.
fn could_be_git(kind: EntryKind) -> bool {
    matches!(kind, EntryKind::Folder | EntryKind::File | EntryKind::Symlink)
}

/// Git's default global excludes folder: `$XDG_CONFIG_HOME/git`, else
/// `~/.config/git` (a relative `XDG_CONFIG_HOME` is ignored, as git does).
fn global_folder() -> Option<PathBuf> {
    let xdg = std::env::var_os("XDG_CONFIG_HOME").map(PathBuf::from).filter(|p| p.is_absolute());
    let base = xdg.or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("git"))
}

/// The rules of a repository whose root is `repo`: `.git/info/exclude` and the
/// global file, lowest precedence last.
fn repository_layers(repo: &Path, hooks: &IoHooks, budget: &RuleBudget, problems: &mut Vec<CanopyError>) -> Vec<(Arc<Layer>, PathBuf)> {
    let mut out = Vec::new();
    let info = repo.join(".git").join("info");
    let (exclude, err) = read_layer_at(&info, b"exclude", ".git/info/exclude", true, hooks, budget);
    problems.extend(err);
    if let Some(l) = exclude {
        out.push((l, PathBuf::new()));
    }
    if let Some(global) = global_folder() {
        let what = format!("the global excludes file {}", global.join("ignore").display());
        let (l, err) = read_layer_at(&global, b"ignore", &what, true, hooks, budget);
        problems.extend(err);
        if let Some(l) = l {
            out.push((l, PathBuf::new()));
        }
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
        first.message = format!("{} (and {more} more ignore {files} could not be used)", first.message);
    }
    Some(first)
}

impl IgnoreRules {
    /// Rules that ignore nothing.
    pub fn none() -> IgnoreRules {
        IgnoreRules::default()
    }

    /// The rules for the entries of the folder at `path` (absolute), read
    /// from the repository's root down (see the module docs), and what could
    /// not be used. Runs on the caller's thread: call it on a bounded worker.
    pub fn for_folder(path: &Path, hooks: &IoHooks) -> (IgnoreRules, Option<CanopyError>) {
        let holds_git = |a: &Path| std::fs::symlink_metadata(a.join(".git")).is_ok_and(|m| could_be_git(kind_of_mode(m.mode())));
        let Some(repo) = path.ancestors().find(|a| holds_git(a)) else {
            return (IgnoreRules::none(), None);
        };
        let mut problems = Vec::new();
        let budget = Arc::new(RuleBudget::default());
        let base = repository_layers(repo, hooks, &budget, &mut problems);
        let mut rules = IgnoreRules { budget, active: true, all: false, layers: base };
        let below: Vec<&OsStr> = path.strip_prefix(repo).map(|p| p.iter().collect()).unwrap_or_default();
        let mut here = repo.to_path_buf();
        let (layer, err) = read_layer_at(&here, b".gitignore", "the .gitignore", false, hooks, &rules.budget);
        problems.extend(err);
        rules.push_own(layer);
        for name in below {
            if rules.is_ignored(name.as_bytes(), true, &mut Vec::new()) {
                rules.all = true;
                break;
            }
            rules.enter(name.as_bytes());
            here.push(name);
            let (layer, err) = read_layer_at(&here, b".gitignore", &format!("the .gitignore in {}", here.display()), false, hooks, &rules.budget);
            problems.extend(err);
            rules.push_own(layer);
        }
        (rules, one_problem(problems))
    }

    /// The rules for the entries of `child` (named `name`, opened as
    /// `dir`), an entry of the folder these rules are for, with why its own
    /// `.gitignore` could not be used.
    pub fn descend(&self, name: &[u8], dir: &Dir, path: &Path, hooks: &IoHooks) -> (IgnoreRules, Option<CanopyError>) {
        let mut problems = Vec::new();
        let holds_git = dir.stat_child(b".git", false).is_ok_and(|m| could_be_git(m.kind));
        let mut rules = if holds_git {
            // A repository of its own: its rules alone.
            let base = repository_layers(path, hooks, &self.budget, &mut problems);
            IgnoreRules { budget: self.budget.clone(), active: true, all: false, layers: base }
        } else if self.active {
            let mut r = self.clone();
            r.enter(name);
            r
        } else {
            return (IgnoreRules { budget: self.budget.clone(), ..IgnoreRules::none() }, None);
        };
        let (layer, err) = read_layer(dir, path, b".gitignore", "the .gitignore in this folder", false, &rules.budget);
        problems.extend(err);
        rules.push_own(layer);
        (rules, one_problem(problems))
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
    /// a real folder; a symlink is matched as a file, as git does).
    /// `scratch` is reused between calls.
    pub fn is_ignored(&self, name: &[u8], is_dir: bool, scratch: &mut Vec<u8>) -> bool {
        if !self.active {
            return false;
        }
        if self.all {
            return true;
        }
        for (layer, rel) in &self.layers {
            scratch.clear();
            let rel = rel.as_os_str().as_bytes();
            if !rel.is_empty() {
                scratch.extend_from_slice(rel);
                scratch.push(b'/');
            }
            scratch.extend_from_slice(name);
            let m = layer.matcher.matched(Path::new(OsStr::from_bytes(scratch)), is_dir);
            if m.is_ignore() {
                return true;
            }
            if m.is_whitelist() {
                return false;
            }
        }
        false
    }
}
