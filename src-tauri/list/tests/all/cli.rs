//! `canopy-list` as scripts see it: exact text, exit codes, JSON, and
//! permission errors seen by an unprivileged user (setpriv when run as root).

use crate::common;

use std::process::{Command, Output};

use common::*;

/// `canopy-list ARGS...` as an unprivileged user, with no global git
/// excludes file (the machine's own must not change what a test sees).
fn run(args: &[&std::ffi::OsStr]) -> Output {
    unprivileged(&cli())
        .args(args)
        .env("XDG_CONFIG_HOME", "/nonexistent-canopy-test-config")
        .output()
        .expect("canopy-list runs")
}

/// `canopy-list DIR ARGS...` as an unprivileged user.
fn run_in(dir: &std::path::Path, args: &[&str]) -> Output {
    let mut all = vec![dir.as_os_str()];
    all.extend(args.iter().map(std::ffi::OsStr::new));
    run(&all)
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("text mode is UTF-8")
}

/// The demo tree from the engine issue.
fn demo() -> Tree {
    let t = Tree::new();
    for n in ["a.md", "b.md", "c.md"] {
        t.file(format!("demo/docs/{n}"));
    }
    t.dir("demo/locked");
    for i in 1..=102 {
        t.file(format!("demo/photos/img_{i:03}.jpg"));
    }
    t.symlink("docs", "demo/link");
    t.file("demo/new\nline.txt");
    t.file("demo/notes.txt");
    t.fifo("demo/pipe");
    t.chmod("demo/locked", 0o000);
    t
}

#[test]
fn golden_text_output_for_the_demo_tree() {
    let t = demo();
    let o = run(&[t.at("demo").as_os_str(), "--cap".as_ref(), "2".as_ref()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let want = "\
[DIR] docs
[FILE] docs/a.md
[FILE] docs/b.md
[WARNING] docs: 1 items hidden (showing first 2 of 3 total)
[DIR] locked
[DENIED] locked
[DIR] photos
[FILE] photos/img_001.jpg
[FILE] photos/img_002.jpg
[WARNING] photos: 100 items hidden (showing first 2 of 102 total)
[LINK] link -> docs
[FILE] new\\nline.txt
[FILE] notes.txt
[FIFO] pipe
";
    assert_eq!(stdout(&o), want, "byte for byte");
    // The README shows the same output.
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let shown = readme
        .split_once("$ canopy-list demo --cap 2\n")
        .and_then(|(_, r)| r.split_once("```"))
        .map(|(b, _)| b);
    assert_eq!(
        shown,
        Some(want),
        "README.md's example is the golden output"
    );
}

#[test]
fn the_roots_own_warning_uses_its_name_and_pages_are_said() {
    let t = Tree::new();
    t.files("top", "f", 7);
    let o = run(&[t.at("top").as_os_str(), "--limit".as_ref(), "3".as_ref()]);
    let out = stdout(&o);
    assert!(
        out.ends_with("[WARNING] top: 4 items hidden (showing first 3 of 7 total)\n"),
        "{out}"
    );
    let o = run(&[
        t.at("top").as_os_str(),
        "--limit".as_ref(),
        "3".as_ref(),
        "--offset".as_ref(),
        "3".as_ref(),
    ]);
    let out = stdout(&o);
    assert!(out.starts_with("[FILE] f004\n"), "{out}");
    assert!(
        out.ends_with("[WARNING] top: 4 items hidden (showing 4-6 of 7 total)\n"),
        "{out}"
    );
    let all = run(&[t.at("top").as_os_str(), "--all".as_ref()]);
    assert_eq!(
        stdout(&all).lines().count(),
        7,
        "--all lists the whole top level with no warning"
    );
}

#[test]
fn a_page_past_the_end_exits_0_and_says_the_total() {
    let t = Tree::new();
    t.files("top", "f", 7);
    let o = run(&[t.at("top").as_os_str(), "--offset".as_ref(), "10".as_ref()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        stdout(&o),
        "[WARNING] top: 7 items hidden (offset 10 is past the end of 7 total)\n"
    );
    let o = run(&[
        t.at("top").as_os_str(),
        "--offset".as_ref(),
        "7".as_ref(),
        "--json".as_ref(),
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (
            v["root"]["folder"]["total"].as_u64(),
            v["root"]["folder"]["entries"].as_array().map(Vec::len)
        ),
        (Some(7), Some(0))
    );
}

#[test]
fn after_continues_from_the_json_next_cursor() {
    let t = Tree::new();
    t.files("top", "f", 7);
    let top = t.at("top");
    let page = |extra: &[&str]| {
        let mut args = vec![top.as_os_str(), "--limit".as_ref(), "3".as_ref()];
        args.extend(extra.iter().map(|a| std::ffi::OsStr::new(*a)));
        run(&args)
    };
    let first: serde_json::Value = serde_json::from_slice(&page(&["--json"]).stdout).unwrap();
    let cursor = first["nextCursor"]
        .as_str()
        .expect("--json carries nextCursor")
        .to_string();
    let second = page(&["--after", &cursor]);
    assert_eq!(second.status.code(), Some(0));
    assert_eq!(stdout(&second), "[FILE] f004\n[FILE] f005\n[FILE] f006\n[WARNING] top: 4 items hidden (showing 4-6 of 7 total)\n");
    let second: serde_json::Value =
        serde_json::from_slice(&page(&["--after", &cursor, "--json"]).stdout).unwrap();
    let third: serde_json::Value = serde_json::from_slice(
        &page(&["--after", second["nextCursor"].as_str().unwrap(), "--json"]).stdout,
    )
    .unwrap();
    assert_eq!(third["root"]["folder"]["entries"][0]["name"], "f007");
    assert!(
        third.get("nextCursor").is_none(),
        "the last page has no cursor"
    );
}

#[test]
fn json_prints_the_listing_the_ui_receives() {
    let t = demo();
    let o = run(&[t.at("demo").as_os_str(), "--json".as_ref()]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let root = &v["root"]["folder"];
    assert_eq!(root["total"], 7);
    let locked = root["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "locked")
        .unwrap();
    assert_eq!(locked["error"]["code"], "DENIED");
    assert_eq!(locked["folder"]["total"], serde_json::Value::Null);
    let photos = root["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "photos")
        .unwrap();
    assert_eq!(photos["folder"]["entries"].as_array().unwrap().len(), 100);
    assert_eq!(photos["folder"]["unlisted"]["files"], 2);
}

#[test]
fn a_root_that_cannot_be_listed_exits_1_with_its_code_on_stderr() {
    let t = demo();
    let cases = [
        (t.at("demo/missing"), "canopy-list: NOT_FOUND: "),
        (t.at("demo/notes.txt"), "canopy-list: NOT_A_DIRECTORY: "),
        (t.at("demo/pipe"), "canopy-list: NOT_A_DIRECTORY: "),
        (t.at("demo/locked"), "canopy-list: DENIED: "),
    ];
    for (path, want) in cases {
        let o = run(&[path.as_os_str()]);
        assert_eq!(o.status.code(), Some(1), "{}", path.display());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.starts_with(want), "{}: {err}", path.display());
        assert!(o.stdout.is_empty());
    }
}

#[test]
fn the_exit_status_is_the_listings_even_when_started_with_sigchld_ignored() {
    // canopy-list is a supervisor of the process that lists (see
    // canopy_core::supervisor); a caller that ignores SIGCHLD would let the
    // kernel reap that process before its status is read.
    let t = demo();
    for (args, want) in [
        (vec![t.at("demo").into_os_string()], 0),
        (vec!["/tmp".into(), "--depth".into(), "0".into()], 2),
    ] {
        let mut command = Command::new(cli());
        command.args(&args);
        // SAFETY: signal is async-signal-safe; an ignored SIGCHLD survives exec.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(&mut command, || {
                libc::signal(libc::SIGCHLD, libc::SIG_IGN);
                Ok(())
            })
        };
        let o = command.output().unwrap();
        assert_eq!(
            o.status.code(),
            Some(want),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

#[test]
fn bad_arguments_exit_2() {
    for args in [
        vec![],
        vec!["/tmp", "--depth", "0"],
        vec!["/tmp", "--depth", "65"],
        vec!["/tmp", "--depth", "x"],
        vec!["/tmp", "--cap"],
        vec!["/tmp", "--limit", "-1"],
        vec!["/tmp", "--limit", "0"],
        vec!["/tmp", "--limit", "10001"],
        vec![""],
        vec!["/tmp", "--all", "--limit", "5"],
        vec!["/tmp", "--all", "--offset", "5"],
        vec!["/tmp", "--after"],
        vec!["/tmp", "--after", "AQACAAAB", "--offset", "3"],
        vec!["/tmp", "--after", "not-a-cursor"],
        vec!["/tmp", "--bogus"],
        vec!["/tmp", "/var"],
        vec!["/tmp", "--sort", "colour"],
        vec!["/tmp", "--sort"],
        vec!["/tmp", "--filter"],
        vec!["/tmp", "--filter", ""],
        vec!["/tmp", "--filter", "a/b"],
    ] {
        let o = Command::new(cli()).args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&o.stderr).starts_with("canopy-list: "),
            "{args:?}"
        );
    }
}

#[test]
fn a_folder_readable_but_not_searchable_lists_names_with_denied_details() {
    let t = Tree::new();
    t.file("ro/one.txt");
    t.dir("ro/sub");
    t.chmod("ro", 0o444);
    let o = run(&[t.path().as_os_str(), "--depth".as_ref(), "3".as_ref()]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(
        out.contains("[DIR] ro/sub\n[DENIED] ro/sub\n"),
        "the subfolder cannot be opened: {out}"
    );
    // Text mode reads no details, so nothing about the file failed.
    assert!(out.contains("[FILE] ro/one.txt\n"), "{out}");
    assert!(!out.contains("[DENIED] ro/one.txt"), "{out}");
    // JSON carries the details, and says they were denied.
    let o = run(&[t.path().as_os_str(), "--json".as_ref()]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let ro = v["root"]["folder"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "ro")
        .unwrap()
        .clone();
    let one = ro["folder"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "one.txt")
        .unwrap()
        .clone();
    assert_eq!(
        one["error"]["code"], "DENIED",
        "names listed, details denied"
    );
    assert!(one.get("size").is_none());
}

#[test]
fn escapes_keep_every_name_on_one_line() {
    let t = Tree::new();
    t.file("tab\there");
    t.file("esc\x1b[31mred");
    t.file("invoice\u{202e}txt.exe");
    t.file("zero\u{200b}width");
    t.file(b"bad\xffbyte");
    t.file("back\\slash");
    let o = run(&[t.path().as_os_str()]);
    let out = stdout(&o);
    for want in [
        "[FILE] back\\\\slash",
        "[FILE] bad\\xffbyte",
        "[FILE] esc\\u{1b}[31mred",
        "[FILE] invoice\\u{202e}txt.exe",
        "[FILE] tab\\there",
        "[FILE] zero\\u{200b}width",
    ] {
        assert!(
            out.lines().any(|l| l == want),
            "missing {want:?} in:\n{out}"
        );
    }
    assert_eq!(out.lines().count(), 6, "one line per entry");
}

#[test]
fn dangling_and_looping_links_are_marked() {
    let t = Tree::new();
    t.symlink("nowhere", "dangle");
    t.symlink("me", "me");
    let out = stdout(&run(&[t.path().as_os_str()]));
    assert_eq!(
        out,
        "[LINK] dangle -> nowhere (dangling)\n[LINK] me -> me (loop)\n"
    );
}

#[test]
fn no_dotfiles_leaves_them_out() {
    let t = Tree::new();
    t.file(".secret");
    t.file("plain");
    let out = stdout(&run(&[t.path().as_os_str(), "--no-dotfiles".as_ref()]));
    assert_eq!(out, "[FILE] plain\n");
}

#[test]
fn special_files_are_tagged_with_their_real_kind() {
    let t = Tree::new();
    t.fifo("pipe");
    let _socket = t.socket("sock");
    for (name, kind) in [("chr", libc::S_IFCHR), ("blk", libc::S_IFBLK)] {
        let c = std::ffi::CString::new(t.at(name).as_os_str().as_encoded_bytes()).unwrap();
        // Never opened: Canopy lists device nodes by their directory entry.
        let made = unsafe { libc::mknod(c.as_ptr(), kind | 0o600, libc::makedev(7, 200)) };
        assert_eq!(
            made,
            0,
            "mknod {name} needs CAP_MKNOD (scripts/test runs as root): {}",
            std::io::Error::last_os_error()
        );
    }
    let out = stdout(&run(&[t.path().as_os_str()]));
    assert_eq!(
        out,
        "[BLOCK_DEVICE] blk\n[CHAR_DEVICE] chr\n[FIFO] pipe\n[SOCKET] sock\n"
    );
}

#[test]
fn a_link_whose_target_cannot_be_checked_says_unchecked() {
    // A component longer than NAME_MAX: following the link fails with
    // ENAMETOOLONG, which says neither "dangling" nor "loop".
    let t = Tree::new();
    let long = "a".repeat(300);
    t.symlink(&long, "odd");
    let out = stdout(&run(&[t.path().as_os_str()]));
    assert_eq!(out, format!("[LINK] odd -> {long} (unchecked)\n"));
}

#[test]
fn arrows_and_link_notes_in_names_cannot_forge_a_link_line() {
    let t = Tree::new();
    t.file("evil -> safe -> shadow");
    t.file("-> leading");
    t.file("report (dangling)");
    t.symlink("c -> d (loop)", "a -> b");
    t.symlink("-> x", "to-arrow");
    t.symlink("/", "live (unchecked)");
    let out = stdout(&run(&[t.path().as_os_str()]));
    let want = "\
[FILE] -\\u{3e} leading
[LINK] a -\\u{3e} b -> c -\\u{3e} d \\u{28}loop) (dangling)
[FILE] evil -\\u{3e} safe -\\u{3e} shadow
[LINK] live \\u{28}unchecked) -> /
[FILE] report \\u{28}dangling)
[LINK] to-arrow -> -\\u{3e} x (dangling)
";
    assert_eq!(out, want);
    for line in out.lines() {
        let arrows = line.matches(" -> ").count();
        assert_eq!(
            arrows,
            usize::from(line.starts_with("[LINK] ")),
            "` -> ` once on a link line, never elsewhere: {line}"
        );
    }
}

#[test]
fn separators_invisibles_and_fillers_are_escaped_in_names_and_targets() {
    let t = Tree::new();
    t.file("line\u{2028}break\u{2029}para");
    t.file("soft\u{ad}hyphen");
    t.file("\u{3164}\u{115f}\u{1160}\u{ffa0}\u{180e}");
    t.file("tag\u{e0041}\u{e007f}");
    t.symlink("to\u{2028}there", "link");
    let out = stdout(&run(&[t.path().as_os_str()]));
    let want = "\
[FILE] line\\u{2028}break\\u{2029}para
[LINK] link -> to\\u{2028}there (dangling)
[FILE] soft\\u{ad}hyphen
[FILE] tag\\u{e0041}\\u{e007f}
[FILE] \\u{3164}\\u{115f}\\u{1160}\\u{ffa0}\\u{180e}
";
    assert_eq!(out, want);
    assert!(
        !out.contains(['\u{2028}', '\u{2029}']),
        "no line a tool could split"
    );
}

#[test]
fn a_bushy_walk_holds_descriptors_only_for_folders_whose_children_wait() {
    // 10 x 10 x 10 folders at depth 4: breadth-first, the 100 level-3
    // folders wait with their descriptors open while their children are read.
    // Opening every child at once (1,000) or never closing (1,110) would run
    // out of a limit of 256.
    let t = Tree::new();
    for a in 0..10 {
        for b in 0..10 {
            for c in 0..10 {
                t.dir(format!("bush/a{a}/b{b}/c{c}"));
            }
        }
    }
    let mut cmd = Command::new(cli());
    cmd.arg(t.at("bush")).args(["--depth", "4"]);
    // SAFETY: setrlimit is async-signal-safe; it runs in the child before exec.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, || {
            let lim = libc::rlimit {
                rlim_cur: 256,
                rlim_max: 256,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &lim) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    let o = cmd.output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert_eq!(
        out.lines().filter(|l| l.starts_with("[DIR] ")).count(),
        1_110,
        "every folder listed"
    );
    assert!(
        !out.lines()
            .any(|l| l.starts_with('[') && !l.starts_with("[DIR] ")),
        "no error line:\n{out}"
    );
}

#[test]
fn every_line_kind_in_its_place_match_first_and_each_folders_own_after_its_last_descendant() {
    let t = Tree::new();
    t.repo("top");
    t.write("top/.gitignore", b"*.log\nskip/\n");
    for i in 0..5 {
        t.file(format!("top/photos/img_{i}.jpg"));
        t.file(format!("top/photos/trace{i}.log"));
    }
    t.file("top/photos/meta.json");
    t.file("top/photos/inner/deep.jpg");
    t.file("top/photos/inner/deep.log");
    t.file("top/pics.txt");
    t.file("top/root.log");
    t.file("top/skip/x");
    let o = run_in(
        &t.at("top"),
        &[
            "--cap",
            "2",
            "--limit",
            "2",
            "--depth",
            "3",
            "--filter",
            "p",
            "--gitignore",
            "--summary",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let want = "\
[MATCH] top: 2 of 3 entries match \"p\"
[DIR] photos
[DIR] photos/inner
[FILE] photos/inner/deep.jpg
[IGNORED] photos/inner: 1 items hidden by ignore rules
[FILE] photos/img_0.jpg
[WARNING] photos: 5 items hidden (showing first 2 of 7 total)
[REST] photos: 4 .jpg, 1 .json
[IGNORED] photos: 5 items hidden by ignore rules
[FILE] pics.txt
[IGNORED] top: 3 items hidden by ignore rules
";
    assert_eq!(stdout(&o), want, "byte for byte");
}

#[test]
fn a_crafted_extension_cannot_forge_a_line_in_the_rest() {
    let t = Tree::new();
    t.file("top/a");
    t.file("top/b.jpg\n[FILE] evil");
    t.file("top/c.x]\u{202e}");
    t.file("top/d.averyveryverylongextension");
    let o = run_in(&t.at("top"), &["--limit", "1", "--summary"]);
    assert_eq!(
        stdout(&o),
        "[FILE] a\n[WARNING] top: 3 items hidden (showing first 1 of 4 total)\n[REST] top: 3 other\n",
        "every crafted extension counts as other"
    );
}

#[test]
fn sort_and_filter_flags_choose_the_first_over_the_whole_folder() {
    let t = Tree::new();
    for (name, size) in [
        ("small.txt", 1),
        ("big.bin", 900),
        ("mid.txt", 50),
        ("huge.iso", 5000),
    ] {
        t.write(format!("top/{name}"), &vec![b'x'; size]);
    }
    let out = stdout(&run_in(
        &t.at("top"),
        &["--sort", "size", "--reverse", "--limit", "2"],
    ));
    assert_eq!(out, "[FILE] huge.iso\n[FILE] big.bin\n[WARNING] top: 2 items hidden (showing first 2 of 4 total)\n");
    let out = stdout(&run_in(
        &t.at("top"),
        &["--filter", "*.TXT", "--sort", "type"],
    ));
    assert_eq!(
        out,
        "[MATCH] top: 2 of 4 entries match \"*.TXT\"\n[FILE] mid.txt\n[FILE] small.txt\n"
    );
    // The pattern is escaped like a name.
    let out = stdout(&run_in(&t.at("top"), &["--filter", "a\nb"]));
    assert_eq!(out, "[MATCH] top: 0 of 4 entries match \"a\\nb\"\n");
}

#[test]
fn the_global_excludes_file_is_read_from_xdg_config_home() {
    let t = Tree::new();
    t.repo("repo");
    t.file("repo/keep.txt");
    t.file("repo/mine.swp");
    t.write("config/git/ignore", b"*.swp\n");
    let o = unprivileged(&cli())
        .args([t.at("repo").as_os_str(), "--gitignore".as_ref()])
        .env("XDG_CONFIG_HOME", t.at("config"))
        .output()
        .unwrap();
    assert_eq!(
        stdout(&o),
        "[FILE] keep.txt\n[IGNORED] repo: 2 items hidden by ignore rules\n",
        "mine.swp and .git"
    );
}

#[test]
fn gitignore_passes_over_a_git_that_is_no_repository_as_git_does() {
    // mkdir -p r/a && cd r && git init -q && echo 'build/' > .gitignore &&
    // mkdir a/.git a/build && touch a/build/x && canopy-list . --gitignore --depth 3
    let t = Tree::new();
    let repo = t.at("r");
    git_init(&repo);
    t.write("r/.gitignore", b"build/\n*.o\n");
    t.dir("r/a/.git");
    t.file("r/a/build/x");
    t.dir("r/b");
    t.symlink("nowhere", "r/b/.git");
    t.file("r/b/x.o");
    assert!(git_ignores(&repo, "a/build/x") && git_ignores(&repo, "b/x.o"));
    let o = run_in(&repo, &["--gitignore", "--depth", "3"]);
    let out = stdout(&o);
    assert!(
        !out.contains("build") && !out.contains("x.o"),
        "an empty .git folder and a dangling .git link start no repository:\n{out}"
    );
}

#[test]
fn gitignore_never_hides_a_tracked_file() {
    // cd r && git init -q && mkdir -p tmp && touch tmp/keep tmp/scratch &&
    // git add tmp/keep && echo '*' > tmp/.gitignore && canopy-list . --gitignore --depth 2
    let t = Tree::new();
    let repo = t.at("r");
    git_init(&repo);
    t.file("r/tmp/keep");
    let o = git_in(&repo).args(["add", "tmp/keep"]).output().unwrap();
    assert!(o.status.success(), "{o:?}");
    t.write("r/tmp/.gitignore", b"*\n");
    t.file("r/tmp/scratch");
    assert!(
        git_ignores(&repo, "tmp/keep"),
        "a rule matches the tracked file"
    );
    let o = run_in(&repo, &["--gitignore", "--depth", "2"]);
    let out = stdout(&o);
    assert!(
        out.contains("keep") && !out.contains("scratch"),
        "the tracked file is listed, the untracked one its folder's rule names is not:\n{out}"
    );
}

#[test]
fn a_repository_whose_root_and_git_may_be_searched_but_not_read_is_found() {
    // A home folder kept in git is often mode 711: git finds its `.git` by
    // looking names up, which needs no right to read the folder.
    let t = Tree::new();
    t.repo("home");
    t.write("home/.gitignore", b"*.o\n");
    t.file("home/src/x.o");
    t.file("home/src/y.c");
    t.chmod("home/.git", 0o711);
    t.chmod("home", 0o711);
    let o = run_in(&t.at("home/src"), &["--gitignore"]);
    assert_eq!(
        stdout(&o),
        "[FILE] y.c\n[IGNORED] src: 1 items hidden by ignore rules\n"
    );
}

#[test]
fn a_folder_listed_through_a_symlink_into_a_repository_uses_that_repositorys_rules() {
    // `ln -s repo/sub lnk; canopy-list lnk --gitignore`: git run in lnk finds
    // the repository from its real location, and so does Canopy; the lines
    // still name the folder as it was given.
    let t = Tree::new();
    t.repo("repo");
    t.write("repo/.gitignore", b"*.log\n");
    t.write("repo/sub/.gitignore", b"local.*\n");
    for f in ["a.log", "local.txt", "keep.txt"] {
        t.file(format!("repo/sub/{f}"));
    }
    t.symlink("repo/sub", "lnk");
    let o = run_in(&t.at("lnk"), &["--gitignore"]);
    assert_eq!(
        stdout(&o),
        "[FILE] .gitignore\n[FILE] keep.txt\n[IGNORED] lnk: 2 items hidden by ignore rules\n"
    );
    let l: serde_json::Value =
        serde_json::from_slice(&run_in(&t.at("lnk"), &["--gitignore", "--json"]).stdout).unwrap();
    assert_eq!(
        l["path"],
        t.at("lnk").to_str().unwrap(),
        "the path stays as given"
    );
}

#[test]
fn a_relative_xdg_config_home_is_taken_from_the_repositorys_top_as_git_does() {
    // git 2.x reads `$XDG_CONFIG_HOME/git/ignore` from its working folder,
    // which is the repository's top however deep it was started.
    let t = Tree::new();
    let init = Command::new("git")
        .args(["init", "-q"])
        .arg(t.at("repo"))
        .output();
    assert!(init
        .expect("git is needed for this test (scripts/test installs it)")
        .status
        .success());
    t.write("repo/cfg/git/ignore", b"*.swp\n");
    t.write("cfg/git/ignore", b"*.txt\n");
    t.file("repo/sub/a.swp");
    t.file("repo/sub/b.txt");
    let canopy = unprivileged(&cli())
        .arg(t.at("repo/sub"))
        .arg("--gitignore")
        .current_dir(t.path())
        .env("XDG_CONFIG_HOME", "cfg")
        .output()
        .unwrap();
    assert_eq!(
        stdout(&canopy),
        "[FILE] b.txt\n[IGNORED] sub: 1 items hidden by ignore rules\n"
    );
    let git = Command::new("git")
        .args(["check-ignore", "--no-index", "a.swp", "b.txt"])
        .current_dir(t.at("repo/sub"))
        .env("XDG_CONFIG_HOME", "cfg")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&git.stdout),
        "a.swp\n",
        "git agrees: the top's cfg, not the working folder's"
    );
}

#[test]
fn under_a_size_order_entries_whose_lstat_fails_are_listed_by_name_each_saying_why() {
    // A folder that can be read but not searched: its names come back, and
    // every lstat of an entry fails (EACCES), as for an entry removed
    // between the read and the stat. Beside them, a folder whose files can
    // be stat'ed.
    let t = Tree::new();
    for (name, size) in [("small", 1usize), ("big", 300), ("mid", 20)] {
        t.write(format!("ok/{name}"), &vec![b'x'; size]);
        t.write(format!("ro/{name}"), &vec![b'x'; size]);
    }
    t.chmod("ro", 0o444);
    let order = |dir: &str, reverse: bool| -> Vec<(String, Option<String>)> {
        let mut args = vec!["--json", "--sort", "size"];
        if reverse {
            args.push("--reverse");
        }
        let l: serde_json::Value =
            serde_json::from_slice(&run_in(&t.at(dir), &args).stdout).unwrap();
        let f = &l["root"]["folder"];
        assert_eq!(f["partialOrder"], false, "a failed stat is not a cut scan");
        f["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["name"].as_str().unwrap().to_string(),
                    e["error"]["code"].as_str().map(String::from),
                )
            })
            .collect()
    };
    let named = |v: &[&str]| v.iter().map(|n| (n.to_string(), None)).collect::<Vec<_>>();
    assert_eq!(order("ok", false), named(&["small", "mid", "big"]));
    assert_eq!(order("ok", true), named(&["big", "mid", "small"]));
    for reverse in [false, true] {
        let got = order("ro", reverse);
        let denied = |v: &[&str]| {
            v.iter()
                .map(|n| (n.to_string(), Some("DENIED".to_string())))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            got,
            denied(&["big", "mid", "small"]),
            "no size: by name, ascending, each saying why (reverse {reverse})"
        );
    }
}
