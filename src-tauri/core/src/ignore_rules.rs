//! Ignore rules: what git would ignore, for "Hide ignored" and
//! `canopy-list --gitignore`.
//!
//! The rules mean what they mean to git: each line is read and matched as
//! git does ([`crate::ignore_pattern`], git's own glob language over bytes,
//! held to git by a differential test); this module finds the
//! files and layers them. Each file is read through the engine's
//! regular-file open ([`crate::dirio::open_regular_at`]): never a fifo or a
//! device, never a symlinked `.gitignore` (git does not follow one either;
//! it does follow a symlinked `.git/info/exclude` or global file, and so does
//! Canopy, to a regular file only), at most `MAX_IGNORE_FILE_BYTES`, on the
//! bounded-I/O worker of the folder being read, so a dead mount cannot hang
//! it. A file that cannot be used is not silently skipped: its folder
//! carries an error naming the file and saying why (`NOT_A_FILE`,
//! `TOO_LARGE`, `DENIED`, ...), and the rules of the other files still
//! apply. Every name is matched against the rules that apply to its folder
//! (its chain: the folder's `.gitignore`, those of the folders above it in
//! its repository, `.git/info/exclude`, the global file), so one chain holds
//! at most `MAX_IGNORE_RULES` rules of `MAX_IGNORE_RULE_BYTES`, compiled to
//! at most `MAX_IGNORE_COMPILED_BYTES`; a file that would take its chain
//! past that is not used, and its folder says so (`TOO_LARGE`). Folders of
//! one listing whose chains fit are not affected by each other's rules. The
//! compiled rules a listing holds at once (the chains of the folders still
//! to be read) are bounded by `MAX_IGNORE_HELD_BYTES`, given back as they
//! are dropped. Matching never backtracks,
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
//! be one, e.g. a build output folder) has every untracked entry ignored,
//! as git reads no ignore file below an ignored folder. Names and rule
//! lines are bytes: neither needs to be UTF-8.
//!
//! **Tracked paths are never ignored** (git's rule: ignore rules apply to
//! untracked paths only). The repository's index is read
//! ([`crate::git_index`]; the one the `.git` file names for a worktree or a
//! submodule; a confined source reads it only inside its folders) once per
//! repository a listing meets: a file (or link, or anything not a folder)
//! the index holds is shown whatever the rules say, and so is a folder
//! that holds a tracked path or is a submodule; inside such a folder the
//! rules name, the untracked entries stay hidden, as `git status --ignored`
//! shows (held to it by `tests/git_differential.rs` and, on this project's
//! own repository populated with real crates, `tests/git_real_repo.rs`).
//! An index that cannot be used (corrupt, over `MAX_GIT_INDEX_BYTES`, not a
//! regular file, over what the listing may hold, not read in time) leaves
//! every entry of its repository shown but `.git`, since any may be
//! tracked, and its folder says why. A server's repository (read over
//! SFTP) has no index read: there the rules alone decide. Nothing is
//! written, no lock taken, git never run.
#![forbid(unsafe_code)]

use std::ffi::OsStr;
use std::ops::Range;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::dirio::{Dir, SmallFile};
use crate::error::{CanopyError, ErrorCode};
use crate::git_index::Tracked;
use crate::ignore_layer::{layer_of, Charge, Held, Layer, Pool, Spent};
use crate::ignore_pattern::{ByteSet, Halt, Meter, States, Subject};
use crate::limits::MAX_IGNORE_FILE_BYTES;
use crate::local::LocalFs;
use crate::repository::{git_dir, global_file, GitDir};
use crate::wire::EntryKind;

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
    held: Arc<Held>,
    /// False outside a repository (and inside its `.git`): nothing is ignored.
    active: bool,
    /// The folder lies inside an ignored folder: every entry is ignored
    /// (but what the repository tracks).
    all: bool,
    /// Layers with the path from each layer's folder to this folder, deepest
    /// first (the folder's own `.gitignore`, then its parents'), then
    /// `.git/info/exclude` and the global file.
    layers: Vec<(Arc<Layer>, PathBuf)>,
    /// What the repository tracks, seen from this folder.
    tracking: Tracking,
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

/// What a repository tracks, as far as the rules of a folder in it know.
#[derive(Clone, Default)]
enum Tracking {
    /// Its index is not read (a server's repository): the rules alone decide.
    #[default]
    NotRead,
    /// Its index could not be used: nothing but `.git` is hidden, since any
    /// entry may be tracked.
    Unknown,
    Known(TrackedHere),
}

/// A repository's index, held by the listing while a folder needs it.
struct Index {
    tracked: Tracked,
    _held: Charge,
}

/// The index seen from one folder: the paths below it.
#[derive(Clone)]
struct TrackedHere {
    index: Arc<Index>,
    /// The folder's path from the repository's top, `/` after each name.
    dir: Vec<u8>,
    /// The index's paths that start with `dir`.
    range: Range<usize>,
    /// A sparse index's entry for a folder above (or this one) stands for
    /// everything git tracks below it: every entry counts as tracked.
    covered: bool,
}

impl TrackedHere {
    fn top(index: Arc<Index>) -> TrackedHere {
        let range = 0..index.tracked.len();
        TrackedHere {
            index,
            dir: Vec::new(),
            range,
            covered: false,
        }
    }

    /// The same index seen from the folder `name` below.
    fn enter(&mut self, name: &[u8]) {
        self.dir.extend_from_slice(name);
        self.dir.push(b'/');
        let t = &self.index.tracked;
        self.covered = self.covered || t.has(&self.dir, self.range.clone());
        self.range = t.under(&self.dir, self.range.clone());
    }

    /// Whether git would keep the entry `name` (a real folder when
    /// `is_dir`) whatever the rules say: a tracked file (or link, or
    /// anything not a folder), or a folder that holds a tracked path or is
    /// a submodule (git's `treat_path`: `index_file_exists`, then
    /// `directory_exists_in_index`). `key` is scratch space.
    fn keeps(&self, name: &[u8], is_dir: bool, key: &mut Vec<u8>) -> bool {
        if self.covered {
            return true;
        }
        let t = &self.index.tracked;
        key.clear();
        key.extend_from_slice(&self.dir);
        key.extend_from_slice(name);
        if !is_dir {
            return t.has(key, self.range.clone());
        }
        if t.is_submodule(key, self.range.clone()) {
            return true;
        }
        key.push(b'/');
        !t.under(key, self.range.clone()).is_empty()
    }
}

/// What `repo`'s index (in its git folder `git`) says it tracks, within
/// what the listing may still hold, and why not when it cannot be used. A
/// confined source reads it only inside its folders.
fn tracking_of(
    repo: &Path,
    git: &GitDir,
    fs: &LocalFs,
    held: &Arc<Held>,
    meter: &mut Meter<'_>,
) -> (Tracking, Option<CanopyError>) {
    let real = git.real_path();
    let what = match &real {
        Ok(p) => format!("the index {}", p.join("index").display()),
        Err(_) => format!("the index of the repository {}", repo.display()),
    };
    if let Some(roots) = fs.ignore_within() {
        let inside = real.is_ok_and(|p| roots.iter().any(|r| crate::within(&p, r)));
        if !inside {
            let why = format!(
                "the git folder of the repository {} lies outside the folders Canopy may read, so which of its files \
                 are tracked is not known, and nothing in it is hidden",
                repo.display()
            );
            return (
                Tracking::Unknown,
                Some(CanopyError::new(ErrorCode::Denied, why)),
            );
        }
    }
    let tracked = match Tracked::read(git, held.room(Pool::Tracked), meter) {
        Ok(t) => t,
        Err(fault) => return (Tracking::Unknown, Some(fault.error(&what))),
    };
    match held.take(Pool::Tracked, tracked.held_bytes()) {
        Ok(charge) => {
            let index = Arc::new(Index {
                tracked,
                _held: charge,
            });
            (Tracking::Known(TrackedHere::top(index)), None)
        }
        Err(had) => {
            let why = format!(
                "{what} holds {} bytes of paths, and this listing already holds {had} of other repositories'; \
                 which of its files are tracked is not known, so nothing in it is hidden; list it by itself",
                tracked.held_bytes()
            );
            (
                Tracking::Unknown,
                Some(CanopyError::new(ErrorCode::TooLarge, why)),
            )
        }
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

/// Reads `name` in `dir` as an ignore file (named `what` in messages): its
/// rules, or why not. `follow`: a final symlink is followed (git follows one
/// for `.git/info/exclude` and the global file, never for a `.gitignore`);
/// what it reaches must still be a regular file.
fn read_layer(
    dir: &Dir,
    name: &[u8],
    what: &str,
    follow: bool,
    chain: Spent,
    held: &Arc<Held>,
) -> (Option<Arc<Layer>>, Option<CanopyError>) {
    match dir.read_small_file(name, MAX_IGNORE_FILE_BYTES, follow) {
        Ok(SmallFile::Read(text)) => layer_of(&text, what, chain, held),
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
    chain: Spent,
    held: &Arc<Held>,
) -> (Option<Arc<Layer>>, Option<CanopyError>) {
    let (Some(dir_path), Some(name)) = (file.parent(), file.file_name()) else {
        return (None, None);
    };
    let what = format!("{prefix}{}", file.display());
    // Only searched, not read: a folder git may look a name up in (mode 711) serves.
    match fs.search_path(dir_path) {
        Ok(dir) => read_layer(&dir, name.as_bytes(), &what, follow, chain, held),
        Err(e) if matches!(e.raw_os_error(), Some(libc::ENOENT) | Some(libc::ENOTDIR)) => {
            (None, None)
        }
        Err(e) => (
            None,
            Some(CanopyError::from_io(&e, &format!("cannot read {what}"))),
        ),
    }
}

/// The rules of a repository whose root is `repo` (its git folder `git`),
/// before any `.gitignore`: `.git/info/exclude` and the global file, lowest
/// precedence last, which start the chain of every folder in it; and what
/// it tracks.
fn repository_rules(
    repo: &Path,
    git: &GitDir,
    fs: &LocalFs,
    held: &Arc<Held>,
    meter: &mut Meter<'_>,
    problems: &mut Vec<CanopyError>,
) -> IgnoreRules {
    let (tracking, err) = tracking_of(repo, git, fs, held, meter);
    problems.extend(err);
    let mut rules = IgnoreRules {
        held: held.clone(),
        active: true,
        tracking,
        ..IgnoreRules::none()
    };
    let exclude = repo.join(".git/info/exclude");
    let (layer, err) = read_layer_at(&exclude, "", true, fs, rules.spent(), held);
    problems.extend(err);
    rules.push_lowest(layer);
    // A confined source reads nothing outside its folders.
    let global = global_file(repo).filter(|_| fs.ignore_within().is_none());
    if let Some(global) = global {
        let (layer, err) = read_layer_at(
            &global,
            "the global excludes file ",
            true,
            fs,
            rules.spent(),
            held,
        );
        problems.extend(err);
        rules.push_lowest(layer);
    }
    rules
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
    /// Reading the index and deciding whether a folder above is ignored are
    /// under `meter`: if it stops, nothing is ignored and the error says why.
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
        let Some((repo, git)) = real
            .ancestors()
            .take_while(|a| inside(a))
            .find_map(|a| Some((a, fs.search_path(a).ok().as_ref().and_then(git_dir)?)))
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
        let held = Arc::new(Held::default());
        let mut rules = repository_rules(repo, &git, fs, &held, meter, &mut problems);
        let mut here = repo.to_path_buf();
        rules.read_own_at(&here, fs, &mut problems);
        let mut scratch = IgnoreScratch::default();
        for name in below {
            // Below an ignored folder git reads no further ignore file, but
            // what is tracked there is still kept.
            match rules.matched(name.as_bytes(), true, &mut scratch, meter) {
                Ok(ignored) => rules.all = ignored,
                Err(halt) => return (IgnoreRules::none(), Some(halt_error(halt))),
            }
            rules.enter(name.as_bytes());
            here.push(name);
            if !rules.all {
                rules.read_own_at(&here, fs, &mut problems);
            }
        }
        (rules, one_problem(problems))
    }

    /// The rules for the entries of `child` (named `name`, opened as
    /// `dir`), an entry of the folder these rules are for, with why its own
    /// `.gitignore` (or its repository's index) could not be used. A child
    /// shown although the rules ignore it (it holds a tracked path) has
    /// every untracked entry ignored, as git does. Matching the child's
    /// name and reading a repository's index are under `meter`.
    pub(crate) fn descend(
        &self,
        name: &[u8],
        dir: &Dir,
        path: &Path,
        fs: &LocalFs,
        meter: &mut Meter<'_>,
    ) -> (IgnoreRules, Option<CanopyError>) {
        if name == b".git" {
            // A repository's own folder: git applies no rules inside it.
            return (self.inactive(), None);
        }
        let mut problems = Vec::new();
        let mut rules = if let Some(git) = git_dir(dir) {
            // A repository of its own: its rules alone.
            repository_rules(path, &git, fs, &self.held, meter, &mut problems)
        } else if self.active {
            let mut r = self.clone();
            match r.matched(name, true, &mut IgnoreScratch::default(), meter) {
                Ok(ignored) => r.all = ignored,
                Err(halt) => return (self.inactive(), Some(halt_error(halt))),
            }
            r.enter(name);
            r
        } else {
            return (self.inactive(), None);
        };
        if !rules.all {
            let what = path.join(".gitignore").display().to_string();
            let (layer, err) =
                read_layer(dir, b".gitignore", &what, false, rules.spent(), &rules.held);
            problems.extend(err);
            rules.push_own(layer);
        }
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
        let mut rules = IgnoreRules {
            active: true,
            ..IgnoreRules::none()
        };
        if let Some(t) = exclude {
            let (layer, err) = layer_of(&t.text, &t.what, rules.spent(), &rules.held);
            problems.extend(err);
            rules.push_lowest(layer);
        }
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
            _ if name == b".git" => return (self.inactive(), None),
            Some(exclude) => {
                let mut r = IgnoreRules {
                    held: self.held.clone(),
                    active: true,
                    ..IgnoreRules::none()
                };
                if let Some(t) = exclude {
                    let (layer, err) = layer_of(&t.text, &t.what, r.spent(), &r.held);
                    problems.extend(err);
                    r.push_lowest(layer);
                }
                r
            }
            None if self.active => {
                let mut r = self.clone();
                r.enter(name);
                r
            }
            None => return (self.inactive(), None),
        };
        rules.push_text(own, &mut problems);
        (rules, one_problem(problems))
    }

    /// Whether any rule applies here (inside a repository, outside its `.git`).
    pub fn applies(&self) -> bool {
        self.active
    }

    /// Rules that ignore nothing, in the same listing.
    fn inactive(&self) -> IgnoreRules {
        IgnoreRules {
            held: self.held.clone(),
            ..IgnoreRules::none()
        }
    }

    /// What the rules that apply here cost: the chain the next file joins.
    fn spent(&self) -> Spent {
        self.layers
            .iter()
            .fold(Spent::default(), |s, (l, _)| s.plus(l.cost))
    }

    /// Reads the `.gitignore` of the folder `here` (the folder these rules
    /// are for, opened by path) as its own rules.
    fn read_own_at(&mut self, here: &Path, fs: &LocalFs, problems: &mut Vec<CanopyError>) {
        let (layer, err) = read_layer_at(
            &here.join(".gitignore"),
            "",
            false,
            fs,
            self.spent(),
            &self.held,
        );
        problems.extend(err);
        self.push_own(layer);
    }

    /// Adds a `.gitignore` text of the folder itself (the deepest layer).
    fn push_text(&mut self, text: Option<RuleText>, problems: &mut Vec<CanopyError>) {
        if let Some(t) = text {
            let (layer, err) = layer_of(&t.text, &t.what, self.spent(), &self.held);
            problems.extend(err);
            self.push_own(layer);
        }
    }

    /// The layers now apply one folder further down, into `name`.
    fn enter(&mut self, name: &[u8]) {
        for (_, rel) in &mut self.layers {
            rel.push(OsStr::from_bytes(name));
        }
        if let Tracking::Known(t) = &mut self.tracking {
            t.enter(name);
        }
    }

    /// A `.gitignore` of the folder itself: the deepest layer, first.
    fn push_own(&mut self, layer: Option<Arc<Layer>>) {
        if let Some(l) = layer {
            self.layers.insert(0, (l, PathBuf::new()));
        }
    }

    /// A repository's own file (`.git/info/exclude`, the global file): below
    /// every `.gitignore`, last.
    fn push_lowest(&mut self, layer: Option<Arc<Layer>>) {
        if let Some(l) = layer {
            self.layers.push((l, PathBuf::new()));
        }
    }

    /// True when git would ignore the entry `name` of this folder (`is_dir`:
    /// a real folder; a symlink is matched as a file, as git does): the
    /// rules ignore it and it is not tracked (nor a folder holding a tracked
    /// path). An entry named `.git` is always ignored inside a repository.
    /// `scratch` is reused between calls.
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
        if name == b".git" {
            return Ok(true);
        }
        Ok(match &self.tracking {
            // Any entry may be tracked: none is hidden.
            Tracking::Unknown => false,
            Tracking::NotRead => self.matched(name, is_dir, scratch, meter)?,
            Tracking::Known(t) => {
                self.matched(name, is_dir, scratch, meter)?
                    && !t.keeps(name, is_dir, &mut scratch.path)
            }
        })
    }

    /// True when the rules ignore the entry `name` of this folder, whatever
    /// the repository tracks: it lies inside an ignored folder, or the last
    /// rule that matches it (deepest file first) is not a negation.
    fn matched(
        &self,
        name: &[u8],
        is_dir: bool,
        scratch: &mut IgnoreScratch,
        meter: &mut Meter<'_>,
    ) -> Result<bool, Halt> {
        if self.all {
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
