//! A hostile SFTP server (`common::FakeServer`, run by a stand-in for `ssh`):
//! whatever lengths and counts its replies claim, a call fails with what was
//! wrong, and the process, the listing's other entries and the next
//! connection go on.
mod common;

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
