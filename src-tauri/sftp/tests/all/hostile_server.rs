//! A hostile SFTP server (`common::FakeServer`, run by a stand-in for `ssh`):
//! whatever lengths and counts its replies claim, a call fails with what was
//! wrong, and the process, the listing's other entries and the next
//! connection go on.
use crate::common;

use std::path::Path;

use canopy_core::{list, ListCall, ListSettings};
use common::*;

fn listed(source: &canopy_sftp::SftpFs) -> Result<canopy_core::wire::Listing, String> {
    list(
        source,
        Path::new(FAKE_ROOT),
        &ListSettings::default(),
        &ListCall::default(),
    )
    .map_err(|e| format!("{:?}: {}", e.code, e.message))
}

#[test]
fn a_name_reply_claiming_4_billion_entries_fails_the_folder_not_the_process() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::new()
        .file("/srv/a", 1, b"a")
        .hostile("READDIR", name_reply(u32::MAX, &[b"a"]));
    let source = server.source(dir.path());
    source.connect().unwrap();
    let error = listed(&source).expect_err("a reply that lies about its count is no listing");
    assert!(
        error.starts_with("Io:") && error.contains("claims 4294967295 entries"),
        "the error says what the server claimed: {error}"
    );
    // The next request reconnects, and what does not ask for names works.
    let chunk = canopy_core::preview(&source, Path::new("/srv/a"), 0, 16).unwrap();
    assert_eq!(chunk.length, 1);
}

#[test]
fn a_reply_longer_than_any_packet_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    // A STAT reply that says it is 4 GiB long, then hangs on: nothing
    // more comes, so a reader that waited for it would wait out its time.
    let mut claim = frame(&[105, 0, 0, 0, 0]);
    claim[..4].copy_from_slice(&u32::MAX.to_be_bytes());
    let server = FakeServer::new().hostile("STAT", claim);
    let source = server.source(dir.path());
    source.connect().unwrap();
    let error = listed(&source).expect_err("no folder from a reply that cannot be");
    // Refused at its length (not a TIMEOUT after waiting for 4 GiB).
    assert!(
        error.starts_with("Io:") && error.contains("says it is 4294967295 bytes long"),
        "{error}"
    );
}

#[test]
fn a_file_that_ends_before_its_size_says_where_and_offers_no_more() {
    let dir = tempfile::tempdir().unwrap();
    // `stat` says 1 TiB; the reads end at 0, and at 5.
    let server =
        FakeServer::new()
            .file("/srv/empty", 1 << 40, b"")
            .file("/srv/short", 1 << 40, b"hello");
    let source = server.source(dir.path());
    source.connect().unwrap();
    for (name, read) in [("/srv/empty", 0), ("/srv/short", 5)] {
        let chunk = canopy_core::preview(&source, Path::new(name), 0, 4096).unwrap();
        assert_eq!(chunk.length, read, "{name}: every byte read is shown");
        assert!(!chunk.more, "{name}: nothing more to read");
        assert_eq!(chunk.ended_at, Some(read), "{name}: where the file ended");
        assert_eq!(chunk.size, 1 << 40, "{name}: the size is what stat said");
    }
}

#[test]
fn lines_of_a_file_that_ends_before_its_size_say_where_it_ended() {
    use canopy_core::{read_lines, LineWindow};
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::new().file("/srv/empty", 1 << 40, b"").file(
        "/srv/short",
        1 << 40,
        b"one\ntwo\n",
    );
    let source = server.source(dir.path());
    source.connect().unwrap();
    for window in [LineWindow::Head(5), LineWindow::Tail(5)] {
        let l = read_lines(&source, Path::new("/srv/short"), window, 1 << 20).unwrap();
        assert_eq!(l.text, "one\ntwo\n", "{window:?}");
        assert_eq!(l.ended_at, Some(8), "{window:?}: where the file ended");
    }
    for window in [LineWindow::Head(5), LineWindow::Tail(5)] {
        let l = read_lines(&source, Path::new("/srv/empty"), window, 1 << 20).unwrap();
        assert_eq!((l.text.as_str(), l.ended_at), ("", Some(0)), "{window:?}");
    }
}

#[test]
fn a_link_chain_longer_than_the_lookups_allowed_is_unknown_not_a_guess() {
    let dir = tempfile::tempdir().unwrap();
    // A chain longer than the lookups allowed, of links that never repeat,
    // and a two-link loop beside it.
    let mut server = FakeServer::new().dir("/srv/chain");
    for i in 0..200 {
        server = server.link(&format!("/srv/chain/c{i}"), &format!("c{}", i + 1));
    }
    let server = server
        .link("/srv/long", "chain/c0")
        .link("/srv/loopA", "loopB")
        .link("/srv/loopB", "loopA");
    let source = server.source(dir.path());
    source.connect().unwrap();
    let listing = list(
        &source,
        Path::new(FAKE_ROOT),
        &ListSettings {
            depth: 1,
            ..ListSettings::default()
        },
        &ListCall::default(),
    )
    .unwrap();
    let verdict = |name: &str| {
        let e = listing.root.folder.as_ref().unwrap().entries.iter();
        let e = e.clone().find(|e| e.name == name).unwrap();
        format!("{:?}", e.link.as_ref().unwrap().points_to)
    };
    assert_eq!(verdict("long"), "Unknown", "past the lookups, no guess");
    assert_eq!(verdict("loopA"), "Loop");
}
