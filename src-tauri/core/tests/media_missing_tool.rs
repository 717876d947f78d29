//! Without poppler-utils a PDF says which package is missing, and without
//! ffmpeg or ffmpegthumbnailer a video does (a test binary of its own: it
//! changes the process's environment).

use std::path::Path;

use canopy_core::{pdf_document, pdf_page, video_details, video_poster, ErrorCode, LocalFs};

/// The tests set the same variable of the process: one at a time.
static ENV: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn missing_renderer_names_its_package() {
    let _one = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let empty = tempfile::tempdir().unwrap();
    // The e2e build's seam: the renderer's programs are looked up there only.
    std::env::set_var("CANOPY_TEST_TOOL_FOLDERS", empty.path());
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("doc.pdf");
    std::fs::write(&p, b"%PDF-1.4\n").unwrap();
    for err in [
        pdf_document(&LocalFs::new(), &p, None).unwrap_err(),
        pdf_page(&LocalFs::new(), &p, 1, 200, None).unwrap_err(),
    ] {
        assert_eq!(err.code, ErrorCode::ToolMissing);
        assert!(err.message.contains("poppler-utils"), "{}", err.message);
    }
}

#[test]
fn missing_video_tools_name_their_packages() {
    let _one = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let empty = tempfile::tempdir().unwrap();
    std::env::set_var("CANOPY_TEST_TOOL_FOLDERS", empty.path());
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("clip.webm");
    std::fs::write(&p, b"\x1a\x45\xdf\xa3\x9f\x42\x82\x84webm").unwrap();
    let err = video_details(&LocalFs::new(), &p, None).unwrap_err();
    assert_eq!(err.code, ErrorCode::ToolMissing);
    assert!(
        err.message.contains("ffprobe is not installed")
            && err.message.contains("Debian package ffmpeg"),
        "{}",
        err.message
    );
    let err = video_poster(&LocalFs::new(), &p, 200, None).unwrap_err();
    assert_eq!(err.code, ErrorCode::ToolMissing);
    assert!(
        err.message.contains("ffmpegthumbnailer is not installed")
            && err.message.contains("Debian package ffmpegthumbnailer"),
        "{}",
        err.message
    );
    // With ffprobe there but not the thumbnailer, only the thumbnailer is named.
    let only_probe = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("/usr/bin/ffprobe", only_probe.path().join("ffprobe")).unwrap();
    assert!(
        Path::new("/usr/bin/ffprobe").exists(),
        "this test needs ffmpeg"
    );
    std::env::set_var("CANOPY_TEST_TOOL_FOLDERS", only_probe.path());
    let err = video_poster(&LocalFs::new(), &p, 200, None).unwrap_err();
    assert!(err.message.contains("ffmpegthumbnailer"), "{}", err.message);
    assert_ne!(
        video_details(&LocalFs::new(), &p, None).unwrap_err().code,
        ErrorCode::ToolMissing,
        "ffprobe was found and ran"
    );
}
