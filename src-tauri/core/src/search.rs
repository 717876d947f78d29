//! The search front door: entries below a folder whose names match a
//! pattern, or lines of their files that match a regular expression (or a
//! literal), through a [`Source`], breadth-first, under the same ignore
//! rules, excludes and budgets as a listing.
//!
//! Promises:
//! - folders are read breadth-first, each in byte order of its names, so
//!   the hits come in one stable order and a page after `skip` hits
//!   continues where the last ended (every hit exactly once while the tree
//!   does not change);
//! - what git would ignore (and `.git`) is neither searched nor read when
//!   `hide_ignored`, nor is a name `exclude` matches; the dotfile setting
//!   applies as in a listing;
//! - file contents are matched by ripgrep's own searcher (`grep-searcher`,
//!   `grep-regex`): at most `SEARCH_FILE_BYTES` of a file are read; a file
//!   with a NUL byte is binary and skipped (counted); links are never
//!   followed, only regular files are opened;
//! - the search stops at the request's budget (names read, bytes read,
//!   time) or a cancel, and says which (`cut`): every count is then a lower
//!   bound. It runs on a bounded worker: a dead mount costs `TIMEOUT`.
#![forbid(unsafe_code)]

use std::collections::VecDeque;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkMatch};

use crate::bounded::{self, Place};
use crate::cancel::CancelToken;
use crate::error::CanopyError;
use crate::filter::{Excludes, FilterScratch, NameFilter};
use crate::ignore_pattern::Meter;
use crate::ignore_rules::{IgnoreRules, IgnoreScratch};
use crate::limits::{
    MAX_NAMES_READ, REQUEST_TIME, SEARCH_BYTES, SEARCH_FILE_BYTES, SEARCH_REGEX_BYTES,
};
use crate::select::kind_of;
use crate::source::{EntryStream, Source, SourceFile, SourceFolder};
use crate::wire::EntryKind;

/// What to search for, and where to stop.
#[derive(Clone, Default)]
pub struct SearchQuery {
    /// Names to match (the filter's syntax: a substring, or a glob over
    /// the whole name). With `content`, only files whose names match are read.
    pub name: Option<String>,
    /// A regular expression (or a literal, with `literal`) to find in files.
    pub content: Option<String>,
    pub literal: bool,
    pub ignore_case: bool,
    pub hide_ignored: bool,
    pub show_dotfiles: bool,
    pub exclude: Option<Arc<Excludes>>,
    /// Hits before the page (a cursor's position).
    pub skip: u64,
    /// Hits on the page; the search stops at the one after them.
    pub limit: u64,
    pub cancel: Option<CancelToken>,
    /// Time in all (default `REQUEST_TIME`).
    pub time: Option<Duration>,
}

/// One hit: an entry whose name matched, or a line of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHit {
    /// Relative to the searched folder.
    pub path: PathBuf,
    pub kind: EntryKind,
    /// For a content hit: the line's number (from 1) and its bytes
    /// (without the line end).
    pub line: Option<(u64, Vec<u8>)>,
}

/// What a search found and what it looked through.
#[derive(Debug, Clone, Default)]
pub struct SearchResult {
    /// The page: at most `limit` hits after the first `skip`.
    pub hits: Vec<SearchHit>,
    /// More hits follow the page.
    pub more: bool,
    pub folders: u64,
    pub files: u64,
    pub bytes: u64,
    /// Files skipped as binary.
    pub binary: u64,
    /// Files read only to `SEARCH_FILE_BYTES`.
    pub truncated: u64,
    /// Entries (folders or files) that could not be read.
    pub failed: u64,
    /// Why the search stopped before the tree's end, when it did (the
    /// counts are then lower bounds and hits may be missing after the page).
    pub cut: Option<String>,
}

/// Searches below the folder at `root` (absolute) in `source`, on a
/// bounded worker.
///
/// # Errors
/// `INVALID_ARGUMENT` for neither a name nor a content pattern, a bad name
/// pattern or regular expression; the root's code when it cannot be read;
/// `CANCELLED`; `TIMEOUT` when the root does not answer.
pub fn search<S: Source>(
    source: &S,
    root: &Path,
    query: &SearchQuery,
) -> Result<SearchResult, CanopyError> {
    if query.name.is_none() && query.content.is_none() {
        return Err(CanopyError::invalid("give name, content, or both"));
    }
    let name = query.name.as_deref().map(NameFilter::parse).transpose()?;
    let matcher = query
        .content
        .as_deref()
        .map(|c| {
            RegexMatcherBuilder::new()
                .fixed_strings(query.literal)
                .case_insensitive(query.ignore_case)
                .size_limit(SEARCH_REGEX_BYTES)
                .dfa_size_limit(SEARCH_REGEX_BYTES)
                .build(c)
                .map_err(|e| CanopyError::invalid(format!("content is not a regular expression this search reads ({e}); pass literal: true to search for the text as it is")))
        })
        .transpose()?;
    let time = query.time.unwrap_or(REQUEST_TIME);
    let (source, root, query) = (source.clone(), root.to_path_buf(), query.clone());
    // A step left behind is abandoned after twice the search's own time.
    bounded::call(Place::path(&root), time * 2, move |_| {
        let deadline = Instant::now() + time;
        Walk {
            source: &source,
            query: &query,
            name,
            matcher,
            deadline,
            result: SearchResult::default(),
            seen: 0,
            names: 0,
        }
        .run(&root)
    })?
}

struct Walk<'a, S: Source> {
    source: &'a S,
    query: &'a SearchQuery,
    name: Option<NameFilter>,
    matcher: Option<RegexMatcher>,
    deadline: Instant,
    result: SearchResult,
    /// Hits found so far (shown or skipped).
    seen: u64,
    names: u64,
}

/// Why the walk stops early.
enum Stop {
    PageFull,
    Cut(String),
    Cancelled,
}

impl<S: Source> Walk<'_, S> {
    fn check(&self) -> Result<(), Stop> {
        if self
            .query
            .cancel
            .as_ref()
            .is_some_and(CancelToken::is_cancelled)
        {
            return Err(Stop::Cancelled);
        }
        if Instant::now() > self.deadline {
            let secs = self.query.time.unwrap_or(REQUEST_TIME).as_secs_f32();
            return Err(Stop::Cut(format!(
                "the search's time budget ({secs} s) was spent"
            )));
        }
        if self.names >= MAX_NAMES_READ {
            return Err(Stop::Cut(format!("{MAX_NAMES_READ} names were read")));
        }
        if self.result.bytes >= SEARCH_BYTES {
            return Err(Stop::Cut(format!("{SEARCH_BYTES} bytes were read")));
        }
        Ok(())
    }

    /// Counts a hit; `Err(PageFull)` once one past the page is found.
    fn hit(&mut self, hit: SearchHit) -> Result<(), Stop> {
        self.seen += 1;
        if self.seen > self.query.skip.saturating_add(self.query.limit) {
            self.result.more = true;
            return Err(Stop::PageFull);
        }
        if self.seen > self.query.skip {
            self.result.hits.push(hit);
        }
        Ok(())
    }

    fn run(mut self, root: &Path) -> Result<SearchResult, CanopyError> {
        let dir = self
            .source
            .open_folder(root)
            .map_err(|e| CanopyError::from_io(&e, "cannot open folder"))?;
        let rules = self.query.hide_ignored.then(|| {
            let mut meter = Meter::new(Some(self.deadline), self.query.cancel.as_ref());
            Arc::new(self.source.ignore_rules(root, &mut meter).0)
        });
        let mut queue = VecDeque::from([(dir, PathBuf::new(), rules)]);
        let outcome = (|| {
            while let Some((dir, rel, rules)) = queue.pop_front() {
                self.check()?;
                self.folder(root, dir, &rel, rules, &mut queue)?;
            }
            Ok(())
        })();
        match outcome {
            Ok(()) | Err(Stop::PageFull) => {}
            Err(Stop::Cut(why)) => self.result.cut = Some(why),
            Err(Stop::Cancelled) => return Err(CanopyError::cancelled()),
        }
        Ok(self.result)
    }

    /// Reads one folder: its names in byte order, each matched, each file
    /// searched, each subfolder queued.
    fn folder(
        &mut self,
        root: &Path,
        dir: S::Folder,
        rel: &Path,
        rules: Option<Arc<IgnoreRules>>,
        queue: &mut VecDeque<(S::Folder, PathBuf, Option<Arc<IgnoreRules>>)>,
    ) -> Result<(), Stop> {
        self.result.folders += 1;
        let mut names: Vec<(Vec<u8>, EntryKind)> = Vec::new();
        let mut meter = Meter::new(Some(self.deadline), self.query.cancel.as_ref());
        let mut scratch = IgnoreScratch::default();
        let mut fscratch = FilterScratch::default();
        let read = match dir.entries(Vec::new()) {
            Ok(mut stream) => {
                let mut more = true;
                let mut failed = false;
                // One huge folder is held to the names budget too.
                let room = MAX_NAMES_READ.saturating_sub(self.names);
                while more {
                    if names.len() as u64 >= room || Instant::now() > self.deadline {
                        self.names += names.len() as u64;
                        return Err(self.check().err().unwrap_or_else(|| {
                            Stop::Cut(format!("{MAX_NAMES_READ} names were read"))
                        }));
                    }
                    match stream.next_batch(&mut |raw| {
                        names.push((raw.name.to_vec(), kind_of(&dir, &raw)));
                    }) {
                        Ok(m) => more = m,
                        Err(_) => {
                            failed = true;
                            more = false;
                        }
                    }
                }
                !failed
            }
            Err(_) => false,
        };
        if !read {
            self.result.failed += 1;
        }
        self.names += names.len() as u64;
        names.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut subfolders = Vec::new();
        for (name, kind) in names {
            if !self.query.show_dotfiles && name.first() == Some(&b'.') {
                continue;
            }
            if let Some(r) = &rules {
                match r.is_ignored(&name, kind == EntryKind::Folder, &mut scratch, &mut meter) {
                    Ok(true) => continue,
                    Ok(false) => {}
                    Err(_) => return Err(self.check().err().unwrap_or(Stop::Cancelled)),
                }
            }
            if self
                .query
                .exclude
                .as_ref()
                .is_some_and(|x| x.matches(&name, &mut fscratch))
            {
                continue;
            }
            let path = rel.join(std::ffi::OsStr::from_bytes(&name));
            let name_ok = self
                .name
                .as_ref()
                .is_none_or(|f| f.matches(&name, &mut fscratch));
            if kind == EntryKind::File {
                self.result.files += 1;
            }
            match &self.matcher {
                None if name_ok => self.hit(SearchHit {
                    path: path.clone(),
                    kind,
                    line: None,
                })?,
                Some(_) if name_ok && kind == EntryKind::File => {
                    self.check()?;
                    self.file(&root.join(&path), &path)?;
                }
                _ => {}
            }
            if kind == EntryKind::Folder {
                subfolders.push((name, path));
            }
        }
        for (name, path) in subfolders {
            // Opened from its parent, by name, following no link.
            match dir.open_child(&name) {
                Ok(child) => {
                    let rules = rules.as_ref().map(|parent| {
                        Arc::new(
                            self.source
                                .child_ignore_rules(parent, &name, &child, &root.join(&path))
                                .0,
                        )
                    });
                    queue.push_back((child, path, rules));
                }
                Err(_) => self.result.failed += 1,
            }
        }
        Ok(())
    }

    /// Searches one regular file's contents.
    fn file(&mut self, abs: &Path, rel: &Path) -> Result<(), Stop> {
        let Some(matcher) = self.matcher.clone() else {
            return Ok(());
        };
        let file = match self.source.open_file(abs) {
            Ok(f) => f,
            Err(_) => {
                self.result.failed += 1;
                return Ok(());
            }
        };
        let size = file.size();
        if size > SEARCH_FILE_BYTES {
            self.result.truncated += 1;
        }
        let reader = FileReader {
            file: &file,
            pos: 0,
            end: SEARCH_FILE_BYTES,
        };
        let mut searcher: Searcher = SearcherBuilder::new()
            .line_number(true)
            .binary_detection(BinaryDetection::quit(b'\0'))
            .build();
        let mut sink = Hits {
            walk: self,
            rel,
            binary: false,
            stop: None,
        };
        let outcome = searcher.search_reader(&matcher, reader, &mut sink);
        let (binary, stop) = (sink.binary, sink.stop);
        self.result.bytes += size.min(SEARCH_FILE_BYTES);
        if binary {
            self.result.binary += 1;
        }
        if let Some(stop) = stop {
            return Err(stop);
        }
        if outcome.is_err() {
            self.result.failed += 1;
        }
        Ok(())
    }
}

/// A [`SourceFile`] read from its start, up to `end`.
struct FileReader<'f, F: SourceFile> {
    file: &'f F,
    pos: u64,
    end: u64,
}

impl<F: SourceFile> io::Read for FileReader<'_, F> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.end.saturating_sub(self.pos);
        let want = (buf.len() as u64).min(left) as usize;
        if want == 0 {
            return Ok(0);
        }
        let n = self.file.read_at(&mut buf[..want], self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

/// The searcher's sink: each matching line a hit.
struct Hits<'w, 'a, S: Source> {
    walk: &'w mut Walk<'a, S>,
    rel: &'w Path,
    binary: bool,
    stop: Option<Stop>,
}

impl<S: Source> Sink for Hits<'_, '_, S> {
    type Error = io::Error;

    fn matched(&mut self, _s: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, io::Error> {
        let mut line = mat.bytes();
        while let [rest @ .., b'\n' | b'\r'] = line {
            line = rest;
        }
        let hit = SearchHit {
            path: self.rel.to_path_buf(),
            kind: EntryKind::File,
            line: Some((mat.line_number().unwrap_or(0), line.to_vec())),
        };
        match self.walk.hit(hit) {
            Ok(()) => Ok(true),
            Err(stop) => {
                self.stop = Some(stop);
                Ok(false)
            }
        }
    }

    fn binary_data(&mut self, _s: &Searcher, _offset: u64) -> Result<bool, io::Error> {
        self.binary = true;
        Ok(false)
    }
}
