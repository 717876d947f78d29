//! The preview's promises: bounded, honest, and never opening anything but a
//! regular file.

use crate::common;

use std::os::unix::fs::PermissionsExt;

use canopy_core::names::encode_handle;
use canopy_core::preview::{
    read_image, read_preview, FileRequest, ImageFormat, PreviewChunk, PreviewContent,
    PreviewRequest, TextEncoding,
};
use canopy_core::ErrorCode;
use common::*;

fn chunk(
    path: &std::path::Path,
    offset: u64,
    length: u64,
) -> Result<PreviewChunk, canopy_core::CanopyError> {
    read_preview(&PreviewRequest {
        handle: encode_handle(path),
        offset,
        length,
    })
}

fn text(c: &PreviewChunk) -> (&str, TextEncoding, bool) {
    match &c.content {
        PreviewContent::Text {
            text,
            encoding,
            lossy,
        } => (text, *encoding, *lossy),
        other => panic!("expected text, got {other:?}"),
    }
}

fn is_binary(c: &PreviewChunk) -> bool {
    matches!(c.content, PreviewContent::Binary { .. })
}

#[test]
fn utf8_text_is_decoded_whole_when_it_fits() {
    let t = Tree::new();
    let p = t.write("a.txt", "héllo\nwörld\n".as_bytes());
    let c = chunk(&p, 0, 1024).unwrap();
    assert_eq!(text(&c), ("héllo\nwörld\n", TextEncoding::Utf8, false));
    assert_eq!((c.length, c.size, c.more), (14, 14, false));
}

#[test]
fn a_chunk_never_ends_inside_a_character() {
    let t = Tree::new();
    let p = t.write("multi.txt", "aé".repeat(10).as_bytes()); // é is 2 bytes
    let first = chunk(&p, 0, 4).unwrap(); // "aé" + "a" = 4 bytes exactly
    assert_eq!(text(&first).0, "aéa");
    let second = chunk(&p, first.offset + first.length, 4).unwrap(); // "é" "a" + first byte of é
    assert_eq!(
        text(&second).0,
        "éa",
        "the split character is left for the next chunk"
    );
    assert_eq!(second.length, 3);
    let third = chunk(&p, second.offset + second.length, 4).unwrap();
    assert_eq!(text(&third).0, "éa");
}

#[test]
fn utf16_with_bom_is_decoded() {
    let t = Tree::new();
    let mut bytes = vec![0xff, 0xfe];
    for u in "Grüße, 世界".encode_utf16() {
        bytes.extend_from_slice(&u.to_le_bytes());
    }
    let p = t.write("u16.txt", &bytes);
    let c = chunk(&p, 0, 4096).unwrap();
    assert_eq!(text(&c), ("Grüße, 世界", TextEncoding::Utf16Le, false));
    let mut be = vec![0xfe, 0xff];
    for u in "hi".encode_utf16() {
        be.extend_from_slice(&u.to_be_bytes());
    }
    let p = t.write("u16be.txt", &be);
    assert_eq!(
        text(&chunk(&p, 0, 4096).unwrap()),
        ("hi", TextEncoding::Utf16Be, false)
    );
}

#[test]
fn invalid_utf8_is_decoded_with_a_label() {
    let t = Tree::new();
    let p = t.write("latin.txt", b"caf\xe9 cr\xe8me \x80");
    let c = chunk(&p, 0, 4096).unwrap();
    assert_eq!(text(&c), ("café crème €", TextEncoding::Windows1252, false));
}

#[test]
fn binary_is_sniffed_and_carries_only_the_hex_views_bytes() {
    let t = Tree::new();
    let mut bytes = vec![0u8, 1, 2, 3];
    bytes.extend(std::iter::repeat_n(0xabu8, 100_000));
    let p = t.write("blob.bin", &bytes);
    let c = chunk(&p, 0, 256 * 1024).unwrap();
    assert!(is_binary(&c));
    assert_eq!(c.length, 4096, "binary chunks carry the hex view's 4 KiB");
    assert!(c.more);
}

#[test]
fn a_nul_after_the_first_kib_turns_the_rest_binary() {
    let t = Tree::new();
    let mut bytes = b"x".repeat(2000);
    bytes.push(0);
    bytes.extend(b"tail");
    let p = t.write("late-nul.txt", &bytes);
    let c = chunk(&p, 0, 256 * 1024).unwrap();
    assert_eq!(text(&c).0.len(), 2000, "text stops at the NUL");
    assert_eq!(c.length, 2000);
    assert!(c.more);
    let rest = chunk(&p, c.length, 256 * 1024).unwrap();
    assert!(is_binary(&rest), "the rest is binary");
}

#[test]
fn an_empty_file_is_empty_text() {
    let t = Tree::new();
    let p = t.file("empty");
    let c = chunk(&p, 0, 1024).unwrap();
    assert_eq!(text(&c).0, "");
    assert_eq!((c.length, c.size, c.more), (0, 0, false));
}

#[test]
fn a_2_gib_sparse_file_reads_no_more_than_the_length() {
    let t = Tree::new();
    let p = t.file("sparse.img");
    std::fs::OpenOptions::new()
        .write(true)
        .open(&p)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let c = chunk(&p, 0, 256 * 1024).unwrap();
    assert_eq!(c.size, 2 << 30);
    assert!(c.more);
    assert!(c.length <= 256 * 1024, "never more than asked");
}

#[test]
fn an_oversized_request_is_clamped_and_says_so() {
    let t = Tree::new();
    let p = t.file("big.txt");
    std::fs::write(&p, "y".repeat(5 << 20)).unwrap();
    let c = chunk(&p, 0, 10 << 30).unwrap();
    assert!(c.clamped);
    assert_eq!(c.requested, 4 << 20);
    assert_eq!(c.length, 4 << 20);
    assert!(c.more);
}

#[test]
fn proc_files_report_size_zero_and_more_by_whether_the_read_filled() {
    let small = chunk(std::path::Path::new("/proc/self/status"), 0, 1 << 20).unwrap();
    assert_eq!(small.size, 0);
    assert!(!small.more, "a short read means the end");
    assert!(text(&small).0.contains("Name:"));
    let filled = chunk(std::path::Path::new("/proc/self/status"), 0, 16).unwrap();
    assert!(filled.more, "a filled read may have more");
}

#[test]
fn a_fifo_is_never_opened_and_its_writer_stays_blocked() {
    let t = Tree::new();
    let fifo = t.fifo("pipe");
    let writer = BlockedWriter::on(&fifo);
    let err = chunk(&fifo, 0, 1024).unwrap_err();
    assert_eq!(err.code, ErrorCode::NotAFile);
    assert!(writer.still_blocked(), "the writer must still be blocked");
}

#[test]
fn devices_and_folders_are_not_a_file() {
    let t = Tree::new();
    t.dir("folder");
    for p in [
        std::path::PathBuf::from("/dev/zero"),
        std::path::PathBuf::from("/dev/urandom"),
        t.at("folder"),
    ] {
        assert_eq!(
            chunk(&p, 0, 16).unwrap_err().code,
            ErrorCode::NotAFile,
            "{}",
            p.display()
        );
    }
    // A symlink to a device is resolved, then refused the same way.
    std::os::unix::fs::symlink("/dev/zero", t.at("zero-link")).unwrap();
    assert_eq!(
        chunk(&t.at("zero-link"), 0, 16).unwrap_err().code,
        ErrorCode::NotAFile
    );
}

#[test]
fn symlinks_to_files_are_followed_and_loops_are_loop() {
    let t = Tree::new();
    t.write("real.txt", b"real");
    t.symlink("real.txt", "link");
    t.symlink("loop", "loop");
    assert_eq!(text(&chunk(&t.at("link"), 0, 64).unwrap()).0, "real");
    assert_eq!(
        chunk(&t.at("loop"), 0, 64).unwrap_err().code,
        ErrorCode::Loop
    );
}

#[test]
fn a_file_deleted_before_the_read_is_not_found() {
    let t = Tree::new();
    let p = t.write("gone.txt", b"x");
    std::fs::remove_file(&p).unwrap();
    assert_eq!(chunk(&p, 0, 64).unwrap_err().code, ErrorCode::NotFound);
}

#[test]
fn a_file_swapped_for_a_fifo_after_listing_is_refused() {
    let t = Tree::new();
    let p = t.write("swap", b"was a file");
    let listing = list_at(t.path(), 1, 100);
    let handle = child(folder(&listing.root), "swap").handle.clone();
    std::fs::remove_file(&p).unwrap();
    t.fifo("swap");
    let err = read_preview(&PreviewRequest {
        handle,
        offset: 0,
        length: 64,
    })
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotAFile, "the fifo is not opened");
}

#[test]
fn bad_requests_are_invalid_argument() {
    let t = Tree::new();
    let p = t.write("f", b"abc");
    let bad = |offset, length| chunk(&p, offset, length).unwrap_err().code;
    assert_eq!(bad(0, 0), ErrorCode::InvalidArgument);
    assert_eq!(
        bad(10, 16),
        ErrorCode::InvalidArgument,
        "offset past the end"
    );
    let err = read_preview(&PreviewRequest {
        handle: "!!".into(),
        offset: 0,
        length: 1,
    })
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
}

#[test]
fn an_unreadable_file_is_denied_for_an_ordinary_user() {
    let t = Tree::new();
    let p = t.write("secret.txt", b"secret");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000)).unwrap();
    // Root reads anything: the read runs as `nobody`, in a copy of this test
    // binary started in probe mode.
    assert_eq!(
        probe(unprivileged(&preview_probe()).arg(encode_handle(&p))),
        "DENIED"
    );
}

#[test]
fn without_proc_the_preview_refuses_rather_than_reopen_by_path() {
    // The reopen through /proc/self/fd is what ties the read to the inode
    // that was checked; with /proc hidden (a tmpfs over it, in a mount
    // namespace of the probe's own) the preview must refuse, not fall back
    // to opening the path again.
    let t = Tree::new();
    let p = t.write("plain.txt", b"plain text");
    let mut cmd = std::process::Command::new("unshare");
    if !is_root() {
        cmd.arg("--map-root-user");
    }
    cmd.args([
        "--mount",
        "--propagation",
        "private",
        "--",
        "sh",
        "-c",
        "mount -t tmpfs no-proc /proc && exec \"$0\" \"$1\"",
    ])
    .arg(preview_probe())
    .arg(encode_handle(&p));
    assert_eq!(probe(&mut cmd), "IO", "no /proc: refused");
    // The same probe with /proc in place reads the file.
    assert_eq!(
        probe(std::process::Command::new(preview_probe()).arg(encode_handle(&p))),
        "OK"
    );
}

/// Runs a probe command and returns what it printed: `OK` or an error code.
fn probe(cmd: &mut std::process::Command) -> String {
    let out = cmd.output().expect("the probe runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let said = stdout.lines().map(str::trim).rfind(|l| {
        *l == "OK" || l.chars().all(|c| c.is_ascii_uppercase() || c == '_') && !l.is_empty()
    });
    said.unwrap_or_else(|| {
        panic!(
            "the probe said nothing; stdout: {stdout}; stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
    .to_string()
}

/// This test binary itself, copied where `nobody` can run it, in probe mode:
/// a script that reads the handle given as its argument.
fn preview_probe() -> std::path::PathBuf {
    static PROBE: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    PROBE
        .get_or_init(|| {
            let dir = crate::common::scratch::dir_for_nobody("preview-probe");
            let dest = dir.join("probe");
            std::fs::copy(std::env::current_exe().unwrap(), &dest).unwrap();
            std::fs::set_permissions(&dest, std::fs::Permissions::from_mode(0o755)).unwrap();
            let script = dir.join("run-probe");
            // The test's name as the harness knows it: its module path in this binary.
            let name = match module_path!().split_once("::") {
                Some((_, module)) => format!("{module}::probe_mode"),
                None => "probe_mode".to_string(),
            };
            let run = format!("#!/bin/sh\nCANOPY_PREVIEW_PROBE=\"$1\" exec {} --exact {name} --nocapture -q --test-threads=1\n", dest.display());
            std::fs::write(&script, run).unwrap();
            std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
            script
        })
        .clone()
}

/// With `CANOPY_PREVIEW_PROBE` set, reads that handle and prints `OK` or the
/// error code (the tests above run it as `nobody` and without /proc). In a
/// normal run it checks the probe itself: a file anyone may read reads as
/// `OK` for `nobody` too, so a `DENIED` above comes from the file's mode.
#[test]
fn probe_mode() {
    if let Ok(handle) = std::env::var("CANOPY_PREVIEW_PROBE") {
        match read_preview(&PreviewRequest {
            handle,
            offset: 0,
            length: 64,
        }) {
            Ok(_) => println!("\nOK"),
            Err(e) => println!("\n{}", e.code),
        }
        return;
    }
    let t = Tree::new();
    let p = t.write("open.txt", b"anyone may read this");
    assert_eq!(
        probe(unprivileged(&preview_probe()).arg(encode_handle(&p))),
        "OK",
        "the probe reports a good read"
    );
}

#[test]
fn images_are_recognized_by_magic_bytes_not_names() {
    let t = Tree::new();
    let png = t.write("not-an-image.txt", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
    let c = chunk(&png, 0, 1024).unwrap();
    assert_eq!(c.image, Some(ImageFormat::Png));
    let (bytes, format) = read_image(&FileRequest {
        handle: encode_handle(&png),
    })
    .unwrap();
    assert_eq!((bytes.len(), format), (16, ImageFormat::Png));
    let svg = t.write("pic", b"<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>");
    assert_eq!(
        read_image(&FileRequest {
            handle: encode_handle(&svg)
        })
        .unwrap()
        .1,
        ImageFormat::Svg
    );
    let fake = t.write("fake.png", b"just text");
    assert_eq!(
        read_image(&FileRequest {
            handle: encode_handle(&fake)
        })
        .unwrap_err()
        .code,
        ErrorCode::InvalidArgument
    );
}

#[test]
fn images_past_the_cap_are_too_large() {
    let t = Tree::new();
    let p = t.write("huge.png", b"\x89PNG\r\n\x1a\n");
    std::fs::OpenOptions::new()
        .write(true)
        .open(&p)
        .unwrap()
        .set_len(33 << 20)
        .unwrap();
    assert_eq!(
        read_image(&FileRequest {
            handle: encode_handle(&p)
        })
        .unwrap_err()
        .code,
        ErrorCode::TooLarge
    );
}

#[test]
fn a_file_whose_name_is_not_utf8_previews_through_its_handle() {
    let t = Tree::new();
    t.write(b"caf\xe9.txt", b"bytes in a badly named file");
    let listing = list_at(t.path(), 1, 100);
    let e = &folder(&listing.root).entries[0];
    assert_eq!(e.name_lossy, Some(true));
    let c = read_preview(&PreviewRequest {
        handle: e.handle.clone(),
        offset: 0,
        length: 1024,
    })
    .unwrap();
    assert_eq!(text(&c).0, "bytes in a badly named file");
}
