//! The window's Find (`find_request`) and revealing a hit (`reveal`), as
//! promises: names and contents in one search, judged against `find` and
//! `grep` over generated trees; hits streamed in order before the reply;
//! what Hide ignored hid counted; a cancel stops it; inside an archive as on
//! the disk; and every folder on the way to a hit gets the position a
//! listing gives the next step, past the cap and under every order.

use std::collections::BTreeSet;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use canopy_core::cancel::CancelToken;
use canopy_core::names::{decode_handle, encode_handle};
use canopy_core::wire::{
    ErrorCode, FindHit, FindProgress, FindRequest, ListSettings, RevealRequest, RootSpec, SortBy,
};
use canopy_core::{find_request, list, reveal, ListCall, LocalFs, WithArchives};

fn source() -> WithArchives<LocalFs> {
    WithArchives::new(LocalFs::new())
}

fn request(root: &Path, text: &str, contents: bool) -> FindRequest {
    FindRequest {
        request_id: 7,
        root: RootSpec::Handle(encode_handle(root)),
        text: text.into(),
        contents,
        show_dotfiles: true,
        hide_ignored: false,
    }
}

/// Runs a find; returns the hits as streamed and the report.
fn run(
    req: &FindRequest,
) -> (
    Vec<FindHit>,
    Vec<FindProgress>,
    canopy_core::wire::FindReport,
) {
    let heard: Arc<Mutex<Vec<FindProgress>>> = Arc::default();
    let h = heard.clone();
    let report = find_request(
        &source(),
        req,
        None,
        Arc::new(move |p: &FindProgress| h.lock().unwrap().push(p.clone())),
    )
    .expect("find answers");
    let messages = heard.lock().unwrap().clone();
    let hits = messages.iter().flat_map(|m| m.hits.clone()).collect();
    (hits, messages, report)
}

/// A hit as (path relative to `root`, line number).
fn key(root: &Path, h: &FindHit) -> (Vec<u8>, u64) {
    let p = decode_handle(&h.handle).unwrap();
    let rel = p
        .strip_prefix(root)
        .unwrap()
        .as_os_str()
        .as_bytes()
        .to_vec();
    (rel, h.line.as_ref().map_or(0, |l| l.number))
}

/// A small PRNG (the seed is printed with any failure).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[(self.next() % from.len() as u64) as usize]
    }
}

/// A random tree of folders and text files, some names and lines holding
/// "needle" in any case, a few binary files holding it after a NUL.
fn generated_tree(root: &Path, seed: u64) {
    let mut rng = Rng(seed | 1);
    let words = [
        "alpha", "Needle", "beta", "NEEDLE", "gamma", "needles", "delta", "ne edle",
    ];
    let mut folders = vec![root.to_path_buf()];
    for i in 0..40 {
        let parent = folders[(rng.next() % folders.len() as u64) as usize].clone();
        let kind = rng.next() % 4;
        let name = format!("{}-{i}", rng.pick(&words));
        let path = parent.join(&name);
        if kind == 0 {
            std::fs::create_dir(&path).unwrap();
            folders.push(path);
        } else if kind == 3 && i % 5 == 0 {
            std::fs::write(&path, b"\0binary needle\n").unwrap();
        } else {
            let lines: Vec<String> = (0..(rng.next() % 6))
                .map(|_| format!("{} {}", rng.pick(&words), rng.pick(&words)))
                .collect();
            std::fs::write(&path, lines.join("\n")).unwrap();
        }
    }
}

fn lines_of(out: &[u8]) -> impl Iterator<Item = &[u8]> {
    out.split(|&b| b == b'\n').filter(|l| !l.is_empty())
}

#[test]
fn names_and_contents_are_found_as_find_and_grep_find_them() {
    for seed in [1u64, 2, 3, 0x5eed, 0xdead_beef] {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        generated_tree(root, seed);
        let (hits, _, report) = run(&request(root, "needle", true));
        let ours: BTreeSet<(Vec<u8>, u64)> = hits.iter().map(|h| key(root, h)).collect();
        assert_eq!(ours.len(), hits.len(), "seed {seed}: each hit once");

        let find = Command::new("find")
            .arg(".")
            .args(["-mindepth", "1", "-iname", "*needle*", "-printf", "%P\\n"])
            .current_dir(root)
            .output()
            .unwrap();
        let grep = Command::new("grep")
            .args(["-rnFiI", "--null", "needle", "."])
            .current_dir(root)
            .output()
            .unwrap();
        let mut theirs: BTreeSet<(Vec<u8>, u64)> =
            lines_of(&find.stdout).map(|l| (l.to_vec(), 0)).collect();
        for l in lines_of(&grep.stdout) {
            // ./path\0LINE:text
            let nul = l.iter().position(|&b| b == 0).unwrap();
            let path = l[2..nul].to_vec();
            let rest = &l[nul + 1..];
            let colon = rest.iter().position(|&b| b == b':').unwrap();
            let n: u64 = std::str::from_utf8(&rest[..colon])
                .unwrap()
                .parse()
                .unwrap();
            theirs.insert((path, n));
        }
        assert_eq!(
            ours, theirs,
            "seed {seed}: hits as find -iname and grep -rnFiI find them"
        );
        let content: Vec<_> = ours.iter().filter(|(_, n)| *n > 0).collect();
        let files: BTreeSet<_> = content.iter().map(|(p, _)| p).collect();
        assert_eq!(
            report.counts.lines,
            content.len() as u64,
            "seed {seed}: lines counted"
        );
        assert_eq!(
            report.counts.files,
            files.len() as u64,
            "seed {seed}: files counted"
        );
        assert_eq!(
            report.counts.names,
            ours.iter().filter(|(_, n)| *n == 0).count() as u64,
            "seed {seed}: names counted"
        );
        assert!(!report.more && report.cut.is_none(), "seed {seed}");
    }
}

#[test]
fn hits_stream_in_the_searchs_order_and_the_last_message_has_the_final_counts() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    for i in 0..30 {
        let d = root.join(format!("d{i:02}"));
        std::fs::create_dir(&d).unwrap();
        std::fs::write(d.join("note.txt"), "one needle\ntwo\nthree needle\n").unwrap();
    }
    let (hits, messages, report) = run(&request(root, "needle", true));
    assert_eq!(hits.len(), 60, "two lines in each of 30 files");
    let keys: Vec<_> = hits.iter().map(|h| key(root, h)).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted, "breadth-first, in name order, lines in order");
    assert_eq!(
        messages.last().unwrap().counts,
        report.counts,
        "the last message carries the final counts"
    );
    assert_eq!((report.counts.files, report.counts.lines), (30, 60));
    let line = hits[0].line.as_ref().unwrap();
    let marked: Vec<_> = line
        .parts
        .iter()
        .filter(|p| p.matched)
        .map(|p| p.text.as_str())
        .collect();
    assert_eq!(marked, ["needle"], "the match is marked in its line");
}

#[test]
fn names_only_reads_no_contents() {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(t.path().join("a.txt"), "needle\n").unwrap();
    std::fs::write(t.path().join("needle.txt"), "").unwrap();
    let (hits, _, report) = run(&request(t.path(), "needle", false));
    let names: Vec<_> = hits.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(names, ["needle.txt"]);
    assert_eq!(report.counts.bytes, 0, "no file was read");
}

#[test]
fn hide_ignored_hides_and_counts_what_git_would_ignore() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    assert!(Command::new("git")
        .args(["init", "-q"])
        .current_dir(root)
        .status()
        .unwrap()
        .success());
    std::fs::write(root.join(".gitignore"), "build/\n*.log\n").unwrap();
    std::fs::create_dir(root.join("build")).unwrap();
    std::fs::write(root.join("build/needle.o"), "needle").unwrap();
    std::fs::write(root.join("needle.log"), "needle").unwrap();
    std::fs::write(root.join("needle.rs"), "// needle").unwrap();
    let mut req = request(root, "needle", true);
    req.hide_ignored = true;
    let (hits, _, report) = run(&req);
    let found: BTreeSet<_> = hits.iter().map(|h| key(root, h)).collect();
    let want: BTreeSet<_> = [(b"needle.rs".to_vec(), 0), (b"needle.rs".to_vec(), 1)].into();
    assert_eq!(found, want);
    assert_eq!(
        report.counts.ignored, 3,
        "build/, needle.log and .git were hidden and counted"
    );
}

#[test]
fn a_find_cancelled_while_it_runs_stops_and_answers_cancelled() {
    let t = tempfile::tempdir().unwrap();
    for i in 0..40 {
        let d = t.path().join(format!("d{i:02}"));
        std::fs::create_dir(&d).unwrap();
        for j in 0..50 {
            std::fs::write(d.join(format!("needle{j:02}")), "").unwrap();
        }
    }
    let token = CancelToken::default();
    let (stop, heard) = (token.clone(), Arc::new(Mutex::new(0usize)));
    let h = heard.clone();
    // Esc as the window sends it: the first batch of hits is on screen.
    let err = find_request(
        &source(),
        &request(t.path(), "needle", false),
        Some(token),
        Arc::new(move |p: &FindProgress| {
            *h.lock().unwrap() += p.hits.len();
            stop.cancel();
        }),
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Cancelled);
    let heard = *heard.lock().unwrap();
    assert!(
        heard > 0 && heard < 2000,
        "it stopped soon after the cancel: {heard} of 2000 hits sent"
    );
}

#[test]
fn empty_text_is_invalid() {
    let t = tempfile::tempdir().unwrap();
    let err = find_request(
        &source(),
        &request(t.path(), "  ", true),
        None,
        Arc::new(|_: &FindProgress| {}),
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
}

#[test]
fn a_hostile_name_and_line_reach_the_window_as_escapes() {
    let t = tempfile::tempdir().unwrap();
    let name = std::ffi::OsStr::from_bytes(b"needle\x1b]0;pwned\x07\xff.txt");
    std::fs::write(
        t.path().join(name),
        b"<img src=x onerror=alert(1)> needle \x1b[2J\xfe\n",
    )
    .unwrap();
    let (hits, _, _) = run(&request(t.path(), "needle", true));
    assert_eq!(hits.len(), 2, "{hits:?}");
    let parts = hits[0].name_parts.as_ref().expect("the name has escapes");
    let shown: String = parts
        .iter()
        .map(|p| match p {
            canopy_core::wire::NamePart::Text(t) => t.clone(),
            canopy_core::wire::NamePart::Escape(e) => format!("[{e}]"),
        })
        .collect();
    assert_eq!(shown, "needle[\\u{1b}]]0;pwned[\\u{7}][\\xff].txt");
    let line = hits[1].line.as_ref().unwrap();
    for p in &line.parts {
        assert!(p.escape || !p.text.chars().any(char::is_control), "{p:?}");
    }
    let text: String = line.parts.iter().map(|p| p.text.as_str()).collect();
    assert_eq!(text, "<img src=x onerror=alert(1)> needle \\u{1b}[2J\\xfe");
}

#[test]
fn find_searches_inside_an_archive_as_inside_a_folder() {
    let t = tempfile::tempdir().unwrap();
    let zip = t.path().join("a.zip");
    let out = Command::new("python3")
        .arg("-c")
        .arg("import zipfile,sys; z=zipfile.ZipFile(sys.argv[1],'w'); z.writestr('docs/readme.txt','hay\\nthe needle\\n'); z.writestr('needle.md','x'); z.close()")
        .arg(&zip)
        .output()
        .unwrap();
    assert!(out.status.success());
    let (hits, _, _) = run(&request(&zip, "needle", true));
    let found: BTreeSet<_> = hits.iter().map(|h| key(&zip, h)).collect();
    let want: BTreeSet<_> = [(b"needle.md".to_vec(), 0), (b"docs/readme.txt".to_vec(), 2)].into();
    assert_eq!(found, want);
    // And the way to it, inside the archive.
    let target = hits.iter().find(|h| h.line.is_some()).unwrap();
    let way = reveal(
        &source(),
        &RevealRequest {
            root: encode_handle(&zip),
            target: target.handle.clone(),
            settings: ListSettings::default(),
        },
    )
    .unwrap();
    assert_eq!(way.steps.len(), 2);
    assert_eq!(way.steps[1].entry, target.handle);
}

/// The entry a listing of `folder` (handle) shows at `index`, under `settings`.
fn listed_at(folder: &str, index: u64, settings: &ListSettings) -> String {
    let path = decode_handle(folder).unwrap();
    let l = list(
        &source(),
        &path,
        &ListSettings {
            depth: 1,
            limit: 1,
            ..settings.clone()
        },
        &ListCall {
            offset: index,
            ..ListCall::default()
        },
    )
    .unwrap();
    l.root.folder.unwrap().entries[0].handle.clone()
}

#[test]
fn reveal_gives_each_folder_the_position_a_listing_gives_the_next_step() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    let deep = root.join("big/inner");
    std::fs::create_dir_all(&deep).unwrap();
    for i in 0..600u32 {
        // Sizes that do not follow the names, so each order places it elsewhere.
        std::fs::write(
            root.join("big").join(format!("f{i:04}")),
            vec![b'x'; ((i * 7919) % 601) as usize],
        )
        .unwrap();
        std::fs::write(
            deep.join(format!("g{i:04}")),
            vec![b'y'; ((i * 104_729) % 599) as usize],
        )
        .unwrap();
    }
    let target = deep.join("g0444");
    for (sort, reverse) in [
        (SortBy::Name, false),
        (SortBy::Size, false),
        (SortBy::Name, true),
    ] {
        let settings = ListSettings {
            sort,
            reverse,
            ..ListSettings::default()
        };
        let way = reveal(
            &source(),
            &RevealRequest {
                root: encode_handle(root),
                target: encode_handle(&target),
                settings: settings.clone(),
            },
        )
        .unwrap();
        let folders: Vec<PathBuf> = way
            .steps
            .iter()
            .map(|s| decode_handle(&s.folder).unwrap())
            .collect();
        assert_eq!(
            folders,
            [root.to_path_buf(), root.join("big"), deep.clone()]
        );
        assert_eq!(way.steps[2].total, 600);
        for s in &way.steps {
            assert_eq!(
                listed_at(&s.folder, s.index, &settings),
                s.entry,
                "{sort:?} reverse {reverse}: the listing shows the step at its index"
            );
        }
        assert!(
            way.steps[2].index >= 100 || sort != SortBy::Name || reverse,
            "past the cap under the name order"
        );
    }
}

#[test]
fn reveal_refuses_an_entry_outside_the_folder_and_says_when_one_is_gone() {
    let t = tempfile::tempdir().unwrap();
    std::fs::create_dir(t.path().join("a")).unwrap();
    let ask = |target: &Path| {
        reveal(
            &source(),
            &RevealRequest {
                root: encode_handle(&t.path().join("a")),
                target: encode_handle(target),
                settings: ListSettings::default(),
            },
        )
        .unwrap_err()
        .code
    };
    assert_eq!(ask(&t.path().join("b")), ErrorCode::InvalidArgument);
    assert_eq!(ask(&t.path().join("a")), ErrorCode::InvalidArgument);
    assert_eq!(ask(&t.path().join("a/gone")), ErrorCode::NotFound);
}
