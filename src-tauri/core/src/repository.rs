//! Which repository a folder is in, as git decides it, and what of it the
//! ignore rules read: its git folder (where its index is) and the global
//! excludes file's name. Only looked at, never written: no lock is taken,
//! git is never run.
#![forbid(unsafe_code)]

use std::ffi::OsStr;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use crate::dirio::{Dir, Opened, SmallFile};
use crate::git_index::{Fault, IndexFiles};
use crate::limits::MAX_GIT_MARKER_BYTES;
use crate::wire::EntryKind;

/// A repository's git folder (`.git`, or the one a `.git` file names),
/// opened only to look names up in it.
#[derive(Debug)]
pub(crate) struct GitDir {
    dir: Dir,
}

impl GitDir {
    /// Where it really is (every link resolved).
    ///
    /// # Errors
    /// The OS error.
    pub(crate) fn real_path(&self) -> std::io::Result<PathBuf> {
        self.dir.real_path()
    }
}

/// Its index files (`index`, a split index's `sharedindex.*`), each a
/// regular file (a link to one is followed as git follows it, unless links
/// never are: `canopy-mcp`).
impl IndexFiles for GitDir {
    type File = std::fs::File;

    fn open(&self, name: &[u8]) -> Result<Option<(std::fs::File, u64)>, Fault> {
        match self.dir.open_regular(name, true)? {
            Opened::File(file, size) => Ok(Some((file, size))),
            Opened::Missing => Ok(None),
            Opened::NotRegular(kind) => Err(Fault::NotAFile(format!(
                "{} is not a regular file ({kind:?}), and is never opened",
                name.escape_ascii()
            ))),
        }
    }
}

/// The git folder of the repository whose root is `dir`, when its `.git`
/// makes it one, as git's `is_git_directory` and `read_gitfile` decide
/// (setup.c): a folder that is a repository, a link to one, or a regular
/// file (or a link to one) whose text is `gitdir: PATH` naming one, a
/// relative PATH taken from the folder. Anything else named `.git` (an
/// empty folder, a dangling link, a fifo) git passes over, and so the rules
/// of the repository around keep applying. A few `stat`s relative to `dir`
/// and at most two reads of `MAX_GIT_MARKER_BYTES`, never of a fifo or a
/// device; like git, it needs the right to search `.git`, not to read it. A
/// `.git` link is not followed when links never are (`canopy-mcp`): such a
/// `.git` is not a repository.
pub(crate) fn git_dir(dir: &Dir) -> Option<GitDir> {
    let meta = dir.stat_child(b".git", false).ok()?;
    let kind = match meta.kind {
        EntryKind::Symlink => dir.stat_child(b".git", true).ok()?.kind,
        other => other,
    };
    let follow = meta.kind == EntryKind::Symlink;
    let found = match kind {
        EntryKind::Folder => dir.search_child(b".git", follow).ok()?,
        EntryKind::File => match dir.read_small_file(b".git", MAX_GIT_MARKER_BYTES, follow) {
            // The file may name a repository anywhere (a worktree's names
            // `.git/worktrees/NAME` of its main repository): git goes there.
            Ok(SmallFile::Read(text)) => dir.search_child(gitdir_of(&text)?, true).ok()?,
            _ => return None,
        },
        _ => return None,
    };
    is_git_directory(&found).then_some(GitDir { dir: found })
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
pub(crate) fn global_file(repo: &Path) -> Option<PathBuf> {
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

/// The paths the index of the repository whose top is `repo` holds, in
/// git's order, each once (the `e2e` build only: the index reader's
/// differential test against `git ls-files`).
///
/// # Errors
/// `NOT_FOUND` when `repo` is no repository's top; why its index cannot
/// be used otherwise.
#[cfg(feature = "e2e")]
pub fn tracked_paths(repo: &Path) -> Result<Vec<Vec<u8>>, crate::CanopyError> {
    use crate::git_index::Tracked;
    use crate::ignore_pattern::Meter;
    let top = Dir::search_path(repo, false)
        .map_err(|e| crate::CanopyError::from_io(&e, "cannot open it"))?;
    let git = git_dir(&top).ok_or_else(|| {
        crate::CanopyError::new(crate::ErrorCode::NotFound, "no repository starts here")
    })?;
    let t = Tracked::read(&git, usize::MAX, &mut Meter::new(None, None))
        .map_err(|f| f.error("the index"))?;
    Ok((0..t.len()).map(|i| t.path(i).to_vec()).collect())
}
