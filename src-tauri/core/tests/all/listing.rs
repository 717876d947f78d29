//! The listing's promises, one test each, on temp-dir fixtures.

use crate::common;

use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::sync::Arc;
use std::time::Duration;

use canopy_core::cancel::CancelToken;
use canopy_core::names::NamePart;
use canopy_core::testing::IoHooks;
use canopy_core::wire::{
    EntryKind, LinkTarget, ListRequest, ListSettings, LocateRequest, RootSpec,
};
use canopy_core::Observer;
use canopy_core::{names::encode_handle, ErrorCode};
use common::*;

#[test]
fn depth_one_lists_only_the_roots_entries_and_leaves_folders_unread() {
    let t = Tree::new();
    t.file("sub/inner.txt");
    t.file("top.txt");
    let l = list_at(t.path(), 1, 100);
    let root = folder(&l.root);
    assert_eq!(names(root), ["sub", "top.txt"]);
    let sub = folder(child(root, "sub"));
    assert_eq!(sub.total, None, "a folder at the last level is not read");
    assert!(!sub.children_loaded);
    assert!(sub.entries.is_empty());
}

#[test]
fn depth_two_reads_each_subfolder_and_stops_below() {
    let t = Tree::new();
    t.file("a/b/c/deep.txt");
    t.file("a/x.txt");
    let l = list_at(t.path(), 2, 100);
    let a = folder(child(folder(&l.root), "a"));
    assert_eq!(a.total, Some(2));
    assert_eq!(names(a), ["b", "x.txt"]);
    let b = folder(child(a, "b"));
    assert_eq!(
        (b.total, b.children_loaded),
        (None, false),
        "level 3 is past depth 2"
    );
    let l3 = list_at(t.path(), 3, 100);
    let b3 = folder(child(folder(child(folder(&l3.root), "a")), "b"));
    assert_eq!(names(b3), ["c"]);
}

#[test]
fn nested_folder_shows_at_most_cap_with_exact_unlisted_counts_by_kind() {
    let t = Tree::new();
    t.files("big", "f", 150);
    for i in 0..3 {
        t.dir(format!("big/d{i}"));
    }
    t.symlink("f001", "big/zlink");
    let l = list_at(t.path(), 2, 100);
    let big = folder(child(folder(&l.root), "big"));
    assert_eq!(big.total, Some(154));
    assert_eq!(big.entries.len(), 100, "at most cap entries shown");
    assert_eq!(
        big.unlisted.folders, 0,
        "the folders sort first, so all three are shown"
    );
    assert_eq!(big.unlisted.files, 54 - 1);
    assert_eq!(
        big.unlisted.other, 1,
        "the symlink sorts last and is counted as other"
    );
    assert_eq!(
        big.entries.len() as u64 + big.unlisted.sum(),
        big.total.unwrap(),
        "counts must add up"
    );
    assert!(!big.count_is_lower_bound);
}

#[test]
fn folders_first_beats_the_cap() {
    let t = Tree::new();
    t.files("box", "a", 120);
    t.dir("box/zzz-subfolder");
    let l = list_at(t.path(), 2, 100);
    let bx = folder(child(folder(&l.root), "box"));
    assert_eq!(
        bx.entries[0].name, "zzz-subfolder",
        "a subfolder is never hidden behind files"
    );
}

#[test]
fn natural_case_insensitive_order_with_byte_tiebreak() {
    let t = Tree::new();
    for n in ["file10", "File2", "file1", "b", "B", "a.txt", "Zed"] {
        t.file(n);
    }
    t.dir("zdir");
    t.dir("Adir");
    let l = list_at(t.path(), 1, 100);
    assert_eq!(
        names(folder(&l.root)),
        ["Adir", "zdir", "a.txt", "B", "b", "file1", "File2", "file10", "Zed"]
    );
}

#[test]
fn root_is_paged_in_order_and_always_reports_its_total() {
    let t = Tree::new();
    t.files("many", "n", 25);
    let many = t.at("many");
    let all = list(
        &many,
        &ListOptions {
            limit: None,
            ..opts(1, 100)
        },
    )
    .unwrap();
    let all_names: Vec<String> = folder(&all.root)
        .entries
        .iter()
        .map(|e| e.name.clone())
        .collect();
    assert_eq!(all_names.len(), 25);
    let page = list(
        &many,
        &ListOptions {
            offset: 10,
            limit: Some(5),
            ..opts(1, 100)
        },
    )
    .unwrap();
    let f = folder(&page.root);
    assert_eq!(f.total, Some(25));
    assert_eq!(f.offset, 10);
    assert_eq!(
        names(f),
        all_names[10..15]
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
    );
    assert_eq!(
        f.unlisted.files, 20,
        "entries before and after the page are unlisted"
    );
}

#[test]
fn a_page_past_the_end_is_empty_with_the_true_total() {
    let t = Tree::new();
    t.files("seven", "f", 7);
    for offset in [7, 10, 5_000, u64::MAX] {
        let l = list(
            &t.at("seven"),
            &ListOptions {
                offset,
                ..opts(1, 100)
            },
        )
        .expect("past the end is not an error");
        let f = folder(&l.root);
        assert!(f.entries.is_empty(), "offset {offset}");
        assert_eq!(
            (f.total, f.offset),
            (Some(7), offset),
            "the true total, and where the page was asked"
        );
        assert_eq!(f.unlisted.files, 7, "everything is counted as not shown");
        assert!(l.next_cursor.is_none());
    }
}

/// Every name of `dir` in order, listed whole.
fn whole(dir: &std::path::Path, show_dotfiles: bool) -> Vec<String> {
    let l = list(
        dir,
        &ListOptions {
            limit: None,
            show_dotfiles,
            ..opts(1, 100)
        },
    )
    .unwrap();
    folder(&l.root)
        .entries
        .iter()
        .map(|e| e.name.clone())
        .collect()
}

#[test]
fn cursor_pages_walk_the_whole_folder_in_order_without_repeats() {
    let t = Tree::new();
    t.files("many", "n", 25);
    for d in ["d1", "D2", "d10"] {
        t.dir(format!("many/{d}"));
    }
    t.file("many/.dot");
    let dir = t.at("many");
    for show_dotfiles in [true, false] {
        let want = whole(&dir, show_dotfiles);
        let (mut got, mut after, mut pages) = (Vec::new(), None, 0);
        loop {
            let l = list(
                &dir,
                &ListOptions {
                    after: after.clone(),
                    limit: Some(4),
                    show_dotfiles,
                    ..opts(1, 100)
                },
            )
            .unwrap();
            let f = folder(&l.root);
            assert_eq!(
                f.offset as usize,
                got.len(),
                "each page says its true position"
            );
            assert_eq!(f.total, Some(want.len() as u64));
            assert_eq!(
                f.entries.len() as u64 + f.unlisted.sum(),
                f.total.unwrap(),
                "counts must add up"
            );
            got.extend(f.entries.iter().map(|e| e.name.clone()));
            pages += 1;
            match l.next_cursor {
                Some(c) => after = Some(c),
                None => break,
            }
        }
        assert_eq!(
            got, want,
            "cursor pages join into the whole folder (dotfiles {show_dotfiles})"
        );
        assert_eq!(
            pages,
            want.len().div_ceil(4),
            "the last page carries no cursor"
        );
    }
}

#[test]
fn a_cursor_page_starts_after_its_entry_even_when_the_folder_changed() {
    let t = Tree::new();
    t.files("f", "n", 10);
    let dir = t.at("f");
    let first = list(
        &dir,
        &ListOptions {
            limit: Some(4),
            ..opts(1, 100)
        },
    )
    .unwrap();
    assert_eq!(names(folder(&first.root)), ["n001", "n002", "n003", "n004"]);
    // Between pages: one entry before the cursor appears, the next one goes.
    t.file("f/a-new-first");
    std::fs::remove_file(t.at("f/n005")).unwrap();
    let next = list(
        &dir,
        &ListOptions {
            after: first.next_cursor,
            limit: Some(4),
            ..opts(1, 100)
        },
    )
    .unwrap();
    let f = folder(&next.root);
    assert_eq!(
        names(f),
        ["n006", "n007", "n008", "n009"],
        "nothing repeated, nothing that stayed skipped"
    );
    assert_eq!(f.offset, 5, "the true position of n006 now");
}

#[test]
fn a_cursor_that_does_not_match_the_request_is_invalid_argument() {
    let t = Tree::new();
    t.files("f", "n", 10);
    let dir = t.at("f");
    let first = list(
        &dir,
        &ListOptions {
            limit: Some(4),
            ..opts(1, 100)
        },
    )
    .unwrap();
    let cursor = first.next_cursor.expect("more pages follow");
    let err = |o: ListOptions| list(&dir, &o).unwrap_err();
    let hidden = err(ListOptions {
        after: Some(cursor.clone()),
        show_dotfiles: false,
        ..opts(1, 100)
    });
    assert_eq!(hidden.code, ErrorCode::InvalidArgument);
    assert!(
        hidden.message.contains("dotfiles"),
        "the message says which setting: {}",
        hidden.message
    );
    let both = err(ListOptions {
        after: Some(cursor),
        offset: 3,
        ..opts(1, 100)
    });
    assert_eq!(both.code, ErrorCode::InvalidArgument);
    for junk in ["", "%%%", "AAAA", "bm90IGEgY3Vyc29y"] {
        assert_eq!(
            err(ListOptions {
                after: Some(junk.into()),
                ..opts(1, 100)
            })
            .code,
            ErrorCode::InvalidArgument,
            "{junk:?}"
        );
    }
}

#[test]
fn a_deep_page_is_the_same_slice_as_in_the_whole_listing() {
    let t = Tree::new_in_memory();
    let dir = t.dir("deep");
    // Names whose order is not their creation order, and folders first.
    for i in 0..12_000u32 {
        let n = i.wrapping_mul(2_654_435_761) % 1_000_003;
        std::fs::write(dir.join(format!("File {n} v{}", i % 7)), b"").unwrap();
    }
    for i in 0..50 {
        t.dir(format!("deep/sub{i}"));
    }
    let want = whole(&dir, true);
    let total = want.len() as u64;
    for offset in [2_049, 2_500, 6_000, 11_990, total - 1, total - 37] {
        let l = list(
            &dir,
            &ListOptions {
                offset,
                limit: Some(100),
                ..opts(1, 100)
            },
        )
        .unwrap();
        let f = folder(&l.root);
        let end = (offset as usize + 100).min(want.len());
        assert_eq!(
            names(f),
            want[offset as usize..end]
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
            "offset {offset}"
        );
        assert_eq!((f.offset, f.total), (offset, Some(total)));
        assert_eq!(
            f.entries.len() as u64 + f.unlisted.sum(),
            total,
            "counts must add up"
        );
        assert_eq!(
            l.next_cursor.is_some(),
            end < want.len(),
            "a cursor exactly when more follow"
        );
    }
}

#[test]
fn dotfiles_are_shown_by_default_and_counted_apart_when_hidden() {
    let t = Tree::new();
    t.file(".hidden");
    t.file("shown");
    t.file("sub/.env");
    t.file("sub/x");
    let l = list_at(t.path(), 2, 100);
    assert_eq!(names(folder(&l.root)), ["sub", ".hidden", "shown"]);
    let hidden = list(
        t.path(),
        &ListOptions {
            show_dotfiles: false,
            ..ListOptions::default()
        },
    )
    .unwrap();
    let root = folder(&hidden.root);
    assert_eq!(names(root), ["sub", "shown"]);
    assert_eq!(
        (root.total, root.dotfiles_hidden),
        (Some(2), 1),
        "dotfiles leave total and are counted apart"
    );
    let sub = folder(child(root, "sub"));
    assert_eq!((sub.total, sub.dotfiles_hidden), (Some(1), 1));
}

#[test]
fn each_kind_comes_from_the_entry_type() {
    let t = Tree::new();
    t.file("file");
    t.dir("folder");
    t.symlink("file", "link");
    t.fifo("fifo");
    let _sock = t.socket("sock");
    std::os::unix::fs::symlink("/dev/null", t.at("devlink")).unwrap();
    let l = list_at(t.path(), 1, 100);
    let root = folder(&l.root);
    let kind = |n: &str| child(root, n).kind;
    assert_eq!(kind("file"), EntryKind::File);
    assert_eq!(kind("folder"), EntryKind::Folder);
    assert_eq!(kind("link"), EntryKind::Symlink);
    assert_eq!(kind("fifo"), EntryKind::Fifo);
    assert_eq!(kind("sock"), EntryKind::Socket);
    // Devices: every entry of /dev gets the kind std's lstat reports.
    let dev = list(
        std::path::Path::new("/dev"),
        &ListOptions {
            limit: None,
            ..opts(1, 100)
        },
    )
    .unwrap();
    let mut seen = std::collections::HashSet::new();
    for e in &folder(&dev.root).entries {
        use std::os::unix::fs::FileTypeExt;
        let Ok(meta) =
            std::fs::symlink_metadata(canopy_core::names::decode_handle(&e.handle).unwrap())
        else {
            continue;
        };
        let ft = meta.file_type();
        let want = if ft.is_char_device() {
            EntryKind::CharDevice
        } else if ft.is_block_device() {
            EntryKind::BlockDevice
        } else if ft.is_dir() {
            EntryKind::Folder
        } else if ft.is_symlink() {
            EntryKind::Symlink
        } else {
            continue;
        };
        assert_eq!(e.kind, want, "/dev/{}", e.name);
        seen.insert(want);
    }
    assert!(
        seen.contains(&EntryKind::CharDevice),
        "/dev/null at least is a char device"
    );
}

#[test]
fn shown_entries_carry_size_and_modified_time() {
    let t = Tree::new();
    t.write("five", b"12345");
    let l = list_at(t.path(), 1, 100);
    let e = child(folder(&l.root), "five");
    assert_eq!(e.size, Some(5));
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    assert!(
        (now_ms - e.modified.unwrap()).abs() < 86_400_000,
        "mtime is milliseconds since the epoch"
    );
}

#[test]
fn a_time_outside_what_a_date_can_hold_leaves_modified_absent_and_fails_nothing() {
    // tmpfs keeps any 64-bit time, as tar restores it from an archive.
    let t = Tree::new_in_memory();
    let far = t.write("far-future", b"x");
    set_mtime(&far, 9_223_372_036_854_775, 999_000_000);
    let plain = t.write("far-future-whole", b"x");
    set_mtime(&plain, 9_223_372_036_854_775, 0);
    let past = t.write("far-past", b"x");
    set_mtime(&past, -9_223_372_036_854_775, 0);
    let edge = t.write("edge", b"x");
    set_mtime(&edge, 8_640_000_000_000, 0);
    let beyond = t.write("beyond", b"x");
    set_mtime(&beyond, 8_640_000_000_000, 1_000_000);
    let l = list_at(t.path(), 1, 100);
    let f = folder(&l.root);
    assert_eq!(f.total, Some(5), "every entry is listed");
    for name in ["far-future", "far-future-whole", "far-past", "beyond"] {
        let e = child(f, name);
        assert_eq!(
            e.modified, None,
            "{name}: a time past 8.64e15 ms either way is left out"
        );
        assert_eq!(e.error, None, "{name}: an odd time is not an error");
        assert_eq!(e.size, Some(1), "{name}: the other details are there");
    }
    assert_eq!(
        child(f, "edge").modified,
        Some(8_640_000_000_000_000),
        "the last representable time is kept"
    );
}

#[test]
fn symlinks_carry_their_target_and_what_it_points_to() {
    let t = Tree::new();
    t.file("real.txt");
    t.dir("realdir");
    t.symlink("real.txt", "to-file");
    t.symlink("realdir", "to-dir");
    t.symlink("missing", "dangling");
    t.symlink("self", "self");
    t.symlink("/dev/null", "to-dev");
    let l = list_at(t.path(), 2, 100);
    let root = folder(&l.root);
    let points = |n: &str| child(root, n).link.as_ref().unwrap().points_to;
    assert_eq!(points("to-file"), LinkTarget::File);
    assert_eq!(points("to-dir"), LinkTarget::Folder);
    assert_eq!(points("dangling"), LinkTarget::Dangling);
    assert_eq!(points("self"), LinkTarget::Loop);
    assert_eq!(points("to-dev"), LinkTarget::Other);
    assert_eq!(
        child(root, "dangling").link.as_ref().unwrap().target,
        "missing"
    );
    let to_dir = child(root, "to-dir");
    assert!(to_dir.folder.is_none(), "symlinks are never descended");
    // Symlinks sort among non-folders.
    assert_eq!(names(root)[0], "realdir");
}

#[test]
fn symlink_to_an_ancestor_is_followed_once_per_expansion() {
    let t = Tree::new();
    t.file("a/x");
    t.symlink("..", "a/up");
    let l = list_at(t.path(), 3, 100);
    let a = folder(child(folder(&l.root), "a"));
    assert!(child(a, "up").folder.is_none(), "no runaway descent");
    // Expanding the link lists its target once, one more level.
    let up = list(&t.at("a/up"), &opts(1, 100)).unwrap();
    assert_eq!(names(folder(&up.root)), ["a"]);
    let up2 = list(&t.at("a/up/a/up"), &opts(1, 100)).unwrap();
    assert_eq!(names(folder(&up2.root)), ["a"]);
}

#[test]
fn a_symlink_given_as_the_root_is_followed() {
    let t = Tree::new();
    t.file("target/inside");
    t.symlink("target", "via");
    let l = list_at(&t.at("via"), 1, 100);
    assert_eq!(names(folder(&l.root)), ["inside"]);
}

#[test]
fn fifo_is_listed_but_never_opened() {
    let t = Tree::new();
    let writer = BlockedWriter::on(&t.fifo("pipe"));
    let l = list_at(t.path(), 2, 100);
    assert_eq!(child(folder(&l.root), "pipe").kind, EntryKind::Fifo);
    assert!(writer.still_blocked(), "listing must not open the fifo");
}

#[test]
fn the_blocked_writer_check_fails_once_anything_opens_the_fifo() {
    // The check the fifo tests rely on, seen failing: a non-blocking read
    // open (what a careless preview would do) releases the writer.
    let t = Tree::new();
    let fifo = t.fifo("pipe");
    let writer = BlockedWriter::on(&fifo);
    assert!(writer.still_blocked(), "nothing has opened it yet");
    let reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    assert!(
        !writer.still_blocked(),
        "a reader's open releases the writer at once"
    );
    drop(reader);
}

#[test]
fn a_root_that_cannot_be_listed_fails_with_its_code() {
    let t = Tree::new();
    t.file("file");
    let fifo = t.fifo("fifo");
    t.symlink("loop", "loop");
    let code = |p: &std::path::Path| list(p, &ListOptions::default()).unwrap_err().code;
    assert_eq!(code(&t.at("missing")), ErrorCode::NotFound);
    assert_eq!(code(&t.at("file")), ErrorCode::NotADirectory);
    assert_eq!(
        code(&fifo),
        ErrorCode::NotADirectory,
        "a fifo root is refused, not opened"
    );
    assert_eq!(code(&t.at("loop")), ErrorCode::Loop);
    assert_eq!(code(&t.at("x".repeat(300))), ErrorCode::NameTooLong);
}

#[test]
fn names_at_the_limits_list_and_a_path_beyond_path_max_opens() {
    let t = Tree::new();
    let long = "n".repeat(255);
    t.file(&long);
    let l = list_at(t.path(), 1, 100);
    assert_eq!(child(folder(&l.root), &long).kind, EntryKind::File);
    // Build a path of more than 4096 bytes, one component at a time (mkdir
    // itself refuses such a path).
    let seg = std::ffi::CString::new("d".repeat(200)).unwrap();
    let mut deep = t.path().to_path_buf();
    let mut fd = unsafe {
        libc::open(
            std::ffi::CString::new(t.path().as_os_str().as_bytes())
                .unwrap()
                .as_ptr(),
            libc::O_DIRECTORY,
        )
    };
    while deep.as_os_str().len() <= 4200 {
        assert_eq!(unsafe { libc::mkdirat(fd, seg.as_ptr(), 0o755) }, 0);
        let next = unsafe { libc::openat(fd, seg.as_ptr(), libc::O_DIRECTORY) };
        unsafe { libc::close(fd) };
        fd = next;
        deep.push("d".repeat(200));
    }
    let bottom = std::ffi::CString::new("bottom.txt").unwrap();
    let f = unsafe { libc::openat(fd, bottom.as_ptr(), libc::O_CREAT | libc::O_WRONLY, 0o644) };
    assert!(f >= 0);
    unsafe {
        libc::close(f);
        libc::close(fd)
    };
    let l = list_at(&deep, 1, 100);
    assert_eq!(
        names(folder(&l.root)),
        ["bottom.txt"],
        "a path longer than PATH_MAX is walked"
    );
}

#[test]
fn non_utf8_names_are_flagged_and_round_trip_through_their_handle() {
    let t = Tree::new();
    t.file(b"caf\xe9/inside.txt");
    t.file(b"bad\xff.txt");
    let l = list_at(t.path(), 1, 100);
    let root = folder(&l.root);
    let dir = &root.entries[0];
    assert_eq!(dir.name, "caf\u{fffd}");
    assert_eq!(dir.name_lossy, Some(true));
    let req = ListRequest {
        root: RootSpec::Handle(dir.handle.clone()),
        settings: ListSettings {
            depth: 1,
            limit: 500,
            ..ListSettings::default()
        },
        offset: 0,
        after: None,
        request_id: 1,
    };
    let again = list_request(&req, None, IoHooks::default()).unwrap();
    assert_eq!(
        names(folder(&again.root)),
        ["inside.txt"],
        "the handle reaches the exact bytes"
    );
    let json = serde_json::to_string(&l).expect("one bad name must never fail a response");
    assert!(
        json.contains("\\\\xff"),
        "the escape marker is on the wire: {json}"
    );
}

#[test]
fn an_entry_deleted_between_read_and_stat_keeps_its_name_with_not_found() {
    let t = Tree::new();
    t.file("stays");
    t.file("goes");
    t.dir("gone-dir");
    let goes = t.at("goes");
    let gone_dir = t.at("gone-dir");
    let root = t.path().to_path_buf();
    let observer: Arc<dyn Observer> = Arc::new(move |p: &std::path::Path, _names: u64| {
        if p == root {
            let _ = std::fs::remove_file(&goes);
            let _ = std::fs::remove_dir(&gone_dir);
        }
    });
    let l = list(
        t.path(),
        &ListOptions {
            observer: Some(observer.clone()),
            ..ListOptions::default()
        },
    )
    .unwrap();
    let f = folder(&l.root);
    assert_eq!(
        names(f),
        ["gone-dir", "goes", "stays"],
        "nothing vanishes from the listing"
    );
    assert_eq!(
        child(f, "goes").error.as_ref().unwrap().code,
        ErrorCode::NotFound
    );
    assert_eq!(
        child(f, "gone-dir").error.as_ref().unwrap().code,
        ErrorCode::NotFound
    );
    assert!(child(f, "stays").error.is_none());
}

#[test]
fn a_folder_replaced_by_a_file_gets_not_a_directory() {
    let t = Tree::new();
    t.file("was-dir/x");
    let p = t.at("was-dir");
    let root = t.path().to_path_buf();
    let observer: Arc<dyn Observer> = Arc::new(move |dir: &std::path::Path, _names: u64| {
        if dir == root {
            std::fs::remove_dir_all(&p).unwrap();
            std::fs::write(&p, b"now a file").unwrap();
        }
    });
    let l = list(
        t.path(),
        &ListOptions {
            observer: Some(observer.clone()),
            ..ListOptions::default()
        },
    )
    .unwrap();
    let e = child(folder(&l.root), "was-dir");
    assert_eq!(e.error.as_ref().unwrap().code, ErrorCode::NotADirectory);
}

#[test]
fn a_folder_deleted_while_listed_reads_as_what_was_there() {
    let t = Tree::new();
    t.files("doomed", "f", 3);
    let doomed = t.at("doomed");
    let observer: Arc<dyn Observer> = Arc::new(move |dir: &std::path::Path, _names: u64| {
        if dir == doomed {
            std::fs::remove_dir_all(&doomed).unwrap();
        }
    });
    let l = list(
        t.path(),
        &ListOptions {
            observer: Some(observer.clone()),
            ..ListOptions::default()
        },
    )
    .unwrap();
    let d = folder(child(folder(&l.root), "doomed"));
    assert_eq!(d.total, Some(3), "the count read stays exact");
    assert!(d
        .entries
        .iter()
        .all(|e| e.error.as_ref().unwrap().code == ErrorCode::NotFound));
}

#[test]
fn a_folder_slower_than_the_budget_returns_what_was_read_as_timeout() {
    let t = Tree::new();
    t.files("slow", "s", 300);
    t.files("fast", "f", 3);
    let hooks = IoHooks {
        slow_folder: Some(b"slow".to_vec()),
        slow_delay: Duration::from_millis(40),
        slow_stat: None,
    };
    let l = list(
        t.path(),
        &ListOptions {
            hooks,
            budget: Duration::from_millis(100),
            ..ListOptions::default()
        },
    )
    .unwrap();
    let root = folder(&l.root);
    let slow = child(root, "slow");
    assert_eq!(slow.error.as_ref().unwrap().code, ErrorCode::Timeout);
    let sf = folder(slow);
    assert!(sf.count_is_lower_bound && sf.partial_order);
    assert!(
        sf.total.unwrap() < 300,
        "the read stopped early: {:?}",
        sf.total
    );
    assert_eq!(
        sf.entries.len() as u64 + sf.unlisted.sum(),
        sf.total.unwrap()
    );
    assert_eq!(
        folder(child(root, "fast")).total,
        Some(3),
        "other folders are unaffected"
    );
}

#[test]
fn the_root_itself_can_time_out() {
    let t = Tree::new();
    t.files("slow", "s", 300);
    let hooks = IoHooks {
        slow_folder: Some(b"slow".to_vec()),
        slow_delay: Duration::from_millis(40),
        slow_stat: None,
    };
    let l = list(
        &t.at("slow"),
        &ListOptions {
            hooks,
            budget: Duration::from_millis(100),
            ..ListOptions::default()
        },
    )
    .unwrap();
    assert_eq!(l.root.error.as_ref().unwrap().code, ErrorCode::Timeout);
    assert!(folder(&l.root).count_is_lower_bound);
}

#[test]
fn a_cancelled_listing_answers_cancelled() {
    let t = Tree::new();
    t.file("x");
    let token = CancelToken::default();
    token.cancel();
    let err = list(
        t.path(),
        &ListOptions {
            cancel: Some(token),
            ..ListOptions::default()
        },
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Cancelled);
}

#[test]
fn request_arguments_are_validated() {
    let t = Tree::new();
    let handle = encode_handle(t.path());
    let base = ListRequest {
        root: RootSpec::Handle(handle),
        settings: ListSettings {
            depth: 2,
            limit: 500,
            ..ListSettings::default()
        },
        offset: 0,
        after: None,
        request_id: 0,
    };
    let code = |r: ListRequest| list_request(&r, None, IoHooks::default()).unwrap_err().code;
    assert_eq!(
        code(ListRequest {
            settings: ListSettings {
                depth: 0,
                ..base.settings.clone()
            },
            ..base.clone()
        }),
        ErrorCode::InvalidArgument
    );
    assert_eq!(
        code(ListRequest {
            settings: ListSettings {
                depth: 65,
                ..base.settings.clone()
            },
            ..base.clone()
        }),
        ErrorCode::InvalidArgument
    );
    assert_eq!(
        code(ListRequest {
            settings: ListSettings {
                limit: 0,
                ..base.settings.clone()
            },
            ..base.clone()
        }),
        ErrorCode::InvalidArgument
    );
    assert_eq!(
        code(ListRequest {
            settings: ListSettings {
                limit: 10_001,
                ..base.settings.clone()
            },
            ..base.clone()
        }),
        ErrorCode::InvalidArgument
    );
    assert_eq!(
        code(ListRequest {
            settings: ListSettings {
                cap: 0,
                ..base.settings.clone()
            },
            ..base.clone()
        }),
        ErrorCode::InvalidArgument
    );
    assert_eq!(
        code(ListRequest {
            settings: ListSettings {
                cap: 10_001,
                ..base.settings.clone()
            },
            ..base.clone()
        }),
        ErrorCode::InvalidArgument
    );
    assert_eq!(
        code(ListRequest {
            root: RootSpec::Handle("%%".into()),
            ..base.clone()
        }),
        ErrorCode::InvalidArgument
    );
    assert_eq!(
        code(ListRequest {
            root: RootSpec::Text(String::new()),
            ..base.clone()
        }),
        ErrorCode::InvalidArgument
    );
    assert!(list_request(
        &ListRequest {
            settings: ListSettings {
                depth: 64,
                ..base.settings.clone()
            },
            ..base
        },
        None,
        IoHooks::default()
    )
    .is_ok());
}

#[test]
fn malformed_json_requests_are_invalid_argument() {
    use canopy_core::wire::parse_request;
    let bad = [
        serde_json::json!({"root": {"text": "/"}, "settings": {"depth": "two"}}),
        serde_json::json!({"root": {"text": "/"}, "settings": {"depth": -1}}),
        serde_json::json!({"root": {"text": "/"}, "settings": {"depth": 1000000000000u64}}),
        serde_json::json!({"root": {"text": "/"}, "settings": {"bogus": 1}}),
        // The settings are one object: a setting beside it is unknown.
        serde_json::json!({"root": {"text": "/"}, "depth": 2}),
        serde_json::json!({"root": {"path": "/"}}),
        serde_json::json!({"root": "/"}),
        serde_json::json!({"root": {"text": "/"}, "bogus": 1}),
        serde_json::json!([1, 2]),
    ];
    for v in bad {
        let err = parse_request::<ListRequest>(Some(v.clone())).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument, "{v}");
    }
    assert_eq!(
        parse_request::<ListRequest>(None).unwrap_err().code,
        ErrorCode::InvalidArgument
    );
    let ok: ListRequest = parse_request(Some(serde_json::json!({"root": {"text": "/"}}))).unwrap();
    assert_eq!(
        (
            ok.settings.depth,
            ok.settings.limit,
            ok.settings.show_dotfiles
        ),
        (2, 500, true),
        "defaults fill the gaps"
    );
    let partial: ListRequest = parse_request(Some(
        serde_json::json!({"root": {"text": "/"}, "settings": {"depth": 3}}),
    ))
    .unwrap();
    assert_eq!(
        (
            partial.settings.depth,
            partial.settings.limit,
            partial.settings.cap
        ),
        (3, 500, 100),
        "a setting left out takes its default"
    );
}

#[test]
fn text_roots_expand_home_and_resolve_dot_dot() {
    let t = Tree::new();
    t.dir("a/b");
    let via_dots = format!("{}/a/b/..", t.path().display());
    let root = canopy_core::resolve_root(&RootSpec::Text(via_dots)).unwrap();
    assert_eq!(root, std::fs::canonicalize(t.at("a")).unwrap());
    let home = canopy_core::resolve_root(&RootSpec::Text("~".into())).unwrap();
    assert_eq!(
        home,
        std::path::PathBuf::from(std::env::var_os("HOME").unwrap())
    );
}

#[test]
fn crumbs_run_from_the_filesystem_root_to_the_folder() {
    let t = Tree::new();
    let l = list_at(t.path(), 1, 100);
    assert_eq!(l.crumbs.first().unwrap().name, "/");
    assert_eq!(l.crumbs.last().unwrap().handle, encode_handle(t.path()));
    assert_eq!(l.crumbs.len(), t.path().components().count());
}

#[test]
fn crumbs_carry_escape_markers_for_what_is_never_shown_raw() {
    let t = Tree::new();
    let dir = t.dir("line\u{2028}bidi\u{202e}txt");
    let l = list_at(&dir, 1, 100);
    let last = l.crumbs.last().unwrap();
    assert_eq!(
        last.name_parts.as_deref(),
        Some(
            &[
                NamePart::Text("line".into()),
                NamePart::Escape("\\u{2028}".into()),
                NamePart::Text("bidi".into()),
                NamePart::Escape("\\u{202e}".into()),
                NamePart::Text("txt".into()),
            ][..]
        ),
        "the window shows markers, not the raw characters"
    );
    assert!(
        l.crumbs[..l.crumbs.len() - 1]
            .iter()
            .all(|c| c.name_parts.is_none()),
        "plain ancestors carry no parts"
    );
}

#[test]
fn locate_finds_a_prefix_in_the_folders_order() {
    let t = Tree::new();
    for n in ["apple", "Banana", "cherry", "file2", "file10"] {
        t.file(n);
    }
    t.dir("beta-dir");
    let req = |prefix: &str| LocateRequest {
        folder: encode_handle(t.path()),
        prefix: prefix.into(),
        settings: ListSettings::default(),
    };
    let hooks = IoHooks::default();
    // Order: beta-dir, apple, Banana, cherry, file2, file10
    let at = |p: &str| {
        let r = locate(&req(p), &hooks).unwrap();
        (r.index, r.matched)
    };
    assert_eq!(at("b"), (0, true), "folders come first");
    assert_eq!(at("ba"), (2, true), "case-insensitive");
    assert_eq!(at("CH"), (3, true));
    assert_eq!(
        at("file1"),
        (5, true),
        "file10 is the first name starting with file1"
    );
    assert_eq!(
        at("d"),
        (4, false),
        "no match: where it would sort among the files"
    );
    let full = list_at(t.path(), 1, 100);
    assert_eq!(folder(&full.root).entries[5].name, "file10");
}

#[test]
fn hostile_names_survive_the_wire_as_text() {
    let t = Tree::new();
    let names_in = [
        "<img src=x onerror=alert(1)>",
        "\"><svg onload=alert(1)>",
        "`${x}`",
        "a\\b:c",
        " lead",
        "trail ",
    ];
    for n in names_in {
        t.file(n);
    }
    let l = list_at(t.path(), 1, 100);
    let got: Vec<&str> = names(folder(&l.root));
    for n in names_in {
        assert!(got.contains(&n), "{n:?} must arrive unchanged");
    }
    for e in &folder(&l.root).entries {
        assert!(
            e.name_parts.is_none(),
            "{:?} needs no escape markers",
            e.name
        );
        assert_eq!(
            canopy_core::names::decode_handle(&e.handle)
                .unwrap()
                .file_name()
                .unwrap()
                .as_bytes(),
            e.name.as_bytes()
        );
    }
}

#[test]
fn an_empty_folder_has_total_zero() {
    let t = Tree::new();
    t.dir("empty");
    let l = list_at(t.path(), 2, 100);
    let e = folder(child(folder(&l.root), "empty"));
    assert_eq!(
        (e.total, e.children_loaded, e.entries.len()),
        (Some(0), true, 0)
    );
}

#[test]
fn a_symlink_to_a_folder_outside_the_tree_is_listed_not_descended() {
    let outside = Tree::new();
    outside.file("elsewhere.txt");
    let t = Tree::new();
    t.symlink(outside.path().as_os_str().as_encoded_bytes(), "out");
    let l = list_at(t.path(), 3, 100);
    let out = child(folder(&l.root), "out");
    assert_eq!(out.link.as_ref().unwrap().points_to, LinkTarget::Folder);
    assert!(out.folder.is_none(), "never descended while listing");
    let expanded = list_at(&t.at("out"), 1, 100);
    assert_eq!(
        names(folder(&expanded.root)),
        ["elsewhere.txt"],
        "expanding follows it once"
    );
}

#[test]
fn a_nested_folder_of_a_million_entries_shows_100_and_counts_them_all() {
    let t = Tree::new_in_memory();
    let dir = t.dir("million");
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).unwrap();
    let fd = unsafe { libc::open(c.as_ptr(), libc::O_DIRECTORY) };
    for i in 0..1_000_000u32 {
        let name = std::ffi::CString::new(format!("m{i:07}")).unwrap();
        // One syscall per file: mknodat makes an empty regular file.
        assert_eq!(
            unsafe { libc::mknodat(fd, name.as_ptr(), libc::S_IFREG | 0o644, 0) },
            0
        );
    }
    unsafe { libc::close(fd) };
    // A generous budget: this test is about counts and the cap, not speed.
    let l = list(
        t.path(),
        &ListOptions {
            budget: Duration::from_secs(120),
            ..ListOptions::default()
        },
    )
    .unwrap();
    let m = folder(child(folder(&l.root), "million"));
    assert_eq!(m.total, Some(1_000_000));
    assert_eq!(m.entries.len(), 100);
    assert_eq!(m.entries[0].name, "m0000000");
    assert_eq!(
        m.entries[99].name, "m0000099",
        "the first 100 in order, from a bounded selection"
    );
    assert_eq!(m.unlisted.files, 999_900);
}

#[test]
fn a_root_that_is_not_the_folder_expected_fails_rather_than_lists_another() {
    let t = Tree::new();
    t.files("a", "f", 2);
    t.files("b", "g", 2);
    let fs = canopy_core::LocalFs::new();
    let settings = ListSettings::default();
    let id_of = |p: &std::path::Path| {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(p).unwrap();
        canopy_core::source::Identity {
            dev: m.dev(),
            ino: m.ino(),
        }
    };
    let call = |want| canopy_core::ListCall {
        expect_root: Some(want),
        ..canopy_core::ListCall::default()
    };
    let a = canopy_core::list(&fs, &t.at("a"), &settings, &call(id_of(&t.at("a"))))
        .expect("the folder expected lists");
    assert_eq!(folder(&a.root).total, Some(2));
    // `b` put where `a` was looked at: the listing refuses it.
    let err = canopy_core::list(&fs, &t.at("b"), &settings, &call(id_of(&t.at("a")))).unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound, "{}", err.message);
}
