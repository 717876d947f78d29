//! CPU work never outlives its deadline (issue 29, section 1): a hostile
//! archive's index and a costly search pattern stop at their budget, show
//! what they read with the reason on the archive or file, and leave no
//! place marked "not responding" (that is only for a call blocked in the
//! kernel), so the folders beside them answer. The hostile inputs are made
//! in code (`hostile`). Each test runs in its own process's pool of
//! workers (`Pool::global`), so "nothing stuck" counts only its own work.

mod common;
mod hostile;

use std::path::Path;

use canopy_core::testing::Pool;
use canopy_core::wire::{ErrorCode, Folder, ListSettings, Listing};
use canopy_core::{list, preview, search, ListCall, LocalFs, SearchQuery, WithArchives};

fn source() -> WithArchives<LocalFs> {
    WithArchives::new(LocalFs::new())
}

fn list_with(path: &Path, depth: u32, archives: bool) -> Listing {
    let settings = ListSettings {
        depth,
        ..ListSettings::default()
    };
    let call = ListCall {
        archives,
        ..ListCall::default()
    };
    list(&source(), path, &settings, &call)
        .unwrap_or_else(|e| panic!("{} was given up: {e}", path.display()))
}

fn root_folder(l: &Listing) -> &Folder {
    l.root.folder.as_deref().expect("the root is read")
}

fn nothing_stuck() {
    assert_eq!(
        Pool::global().stuck_threads(),
        0,
        "CPU work left a place marked not responding"
    );
}

#[test]
fn a_zip_of_deep_names_lists_what_it_read_as_too_large_and_its_root_is_never_given_up() {
    let t = tempfile::tempdir().unwrap();
    let zip = t.path().join("deep.zip");
    // 400 records of 64 KiB paths: 13 million folders if all were kept.
    hostile::deep_names_zip(&zip, 400, hostile::ZIP_NAME_MAX);
    let listing = list_with(&zip, 2, false);
    let f = root_folder(&listing);
    let why = listing
        .root
        .error
        .as_ref()
        .expect("the archive says it is cut");
    assert_eq!(why.code, ErrorCode::TooLarge, "{why}");
    assert!(f.count_is_lower_bound, "what was read is a lower bound");
    let shown = f.entries.len();
    assert!(
        shown > 0 && shown < 400,
        "some of the records, not none and not all: {shown}"
    );
    assert!(f.entries.iter().all(|e| e.name.starts_with('d')));
    nothing_stuck();
}

#[test]
fn a_hostile_zip_costs_its_own_listing_and_the_benign_one_beside_it_is_read() {
    let t = tempfile::tempdir().unwrap();
    // Read first (names are read in order): the hostile one, then the benign.
    hostile::deep_names_zip(&t.path().join("a-hostile.zip"), 400, hostile::ZIP_NAME_MAX);
    hostile::plain_zip(
        &t.path().join("b-benign.zip"),
        &["docs/", "docs/readme.txt", "main.c"],
    );
    let listing = list_with(t.path(), 2, true);
    let f = root_folder(&listing);
    let entry = |name: &str| {
        f.entries
            .iter()
            .find(|e| e.name == name)
            .unwrap_or_else(|| panic!("{name} is listed"))
    };
    let hostile = entry("a-hostile.zip");
    assert_eq!(
        hostile.error.as_ref().map(|e| e.code),
        Some(ErrorCode::TooLarge),
        "{:?}",
        hostile.error
    );
    let benign = entry("b-benign.zip");
    assert_eq!(benign.error, None, "the sibling answers");
    let inside = benign
        .folder
        .as_deref()
        .expect("the benign archive is read");
    let names: Vec<&str> = inside.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["docs", "main.c"]);
    nothing_stuck();
}

#[test]
fn a_tar_whose_long_names_pass_the_index_bound_is_shown_in_part_never_given_up() {
    let t = tempfile::tempdir().unwrap();
    let tar = t.path().join("names.tar");
    // 100 names of 1 MiB: 100 MiB of names, past what one index may hold.
    hostile::long_names_tar(&tar, 100, (1 << 20) - 1, "last.txt");
    let listing = list_with(&tar, 1, false);
    let f = root_folder(&listing);
    let why = listing
        .root
        .error
        .as_ref()
        .expect("the archive says it is cut");
    assert_eq!(why.code, ErrorCode::TooLarge, "{why}");
    assert!(f.count_is_lower_bound);
    let shown = f.entries.len();
    assert!(shown > 0 && shown < 100, "a part: {shown}");
    nothing_stuck();
}

#[test]
fn an_entry_past_a_cut_index_answers_why_the_index_stops_never_not_found() {
    let t = tempfile::tempdir().unwrap();
    // Cut by memory: 100 names of 1 MiB before it.
    let names = t.path().join("names.tar");
    hostile::long_names_tar(&names, 100, (1 << 20) - 1, "last.txt");
    // Cut by time: three million empty gzip members before it.
    let flood = t.path().join("flood.tar.gz");
    hostile::flooded_tar_gz(
        &flood,
        ("first.txt", b"1"),
        3_000_000,
        ("last.txt", b"last"),
    );
    // Twice each: a cut index is not kept, and the second answer is the same.
    for _ in 0..2 {
        // However fast this machine is: the entry, or why it was not reached.
        match preview(&source(), &flood.join("last.txt"), 0, 10) {
            Ok(p) => assert_eq!(p.size, 4, "read whole, the entry is there"),
            Err(e) => assert_eq!(e.code, ErrorCode::Timeout, "{e}"),
        }
        let e = preview(&source(), &names.join("last.txt"), 0, 10).unwrap_err();
        assert_eq!(e.code, ErrorCode::TooLarge, "{e}");
    }
    let e = preview(&source(), &names.join("last.txt/below"), 0, 10).unwrap_err();
    assert_eq!(e.code, ErrorCode::TooLarge, "a path below it too: {e}");
    // What the index did read still opens.
    let first = format!("0000{}", "n".repeat((1 << 20) - 5));
    assert_eq!(
        preview(&source(), &names.join(first), 0, 10).unwrap().size,
        0
    );
    assert_eq!(
        preview(&source(), &flood.join("first.txt"), 0, 10)
            .unwrap()
            .size,
        1
    );
}

#[test]
fn a_costly_pattern_costs_its_file_and_the_files_after_it_are_searched() {
    let t = tempfile::tempdir().unwrap();
    // Seconds of ripgrep's engine per line, and it cannot be stopped mid-call.
    hostile::lines_of_a(&t.path().join("a-costly.txt"), 1 << 20, 5_000);
    std::fs::write(t.path().join("b-plain.txt"), "aaaz\n").unwrap();
    let found = search(
        &source(),
        t.path(),
        &SearchQuery {
            content: Some(hostile::COSTLY_PATTERN.into()),
            limit: 100,
            ..SearchQuery::default()
        },
    )
    .expect("the search answers");
    let costly = found
        .problems
        .iter()
        .find(|(p, _)| p == Path::new("a-costly.txt"))
        .unwrap_or_else(|| panic!("the costly file is named: {:?}", found.problems));
    assert_eq!(costly.1.code, ErrorCode::Timeout, "{}", costly.1);
    let hits: Vec<_> = found.hits.iter().map(|h| h.path.clone()).collect();
    assert_eq!(
        hits,
        [Path::new("b-plain.txt")],
        "the file after it is searched: {:?}",
        found.problems
    );
    nothing_stuck();
}
