//! Without poppler-utils a PDF says which package is missing, without
//! ffmpeg or ffmpegthumbnailer a video does, without fontconfig or
//! libharfbuzz-bin a font does and without libvips-tools a TIFF does; a
//! font tool that crashes or hangs costs its child, and the answer says so
//! (a test binary of its own: it changes the process's environment).

use std::path::Path;

use canopy_core::{
    font_preview, pdf_document, pdf_page, photo_render, video_details, video_poster, ErrorCode,
    LocalFs,
};

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

/// A folder standing for the system's: `fc-query` is the real one, and
/// `hb-view` is a script with `body`.
fn tools_with_hb_view(body: &str) -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let folder = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("/usr/bin/fc-query", folder.path().join("fc-query")).unwrap();
    let script = folder.path().join("hb-view");
    std::fs::write(&script, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    folder
}

fn a_font() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("sans.ttf");
    std::fs::copy("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", &p)
        .expect("this test needs fonts-dejavu-core");
    (dir, p)
}

#[test]
fn missing_font_and_photo_tools_name_their_packages() {
    let _one = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let empty = tempfile::tempdir().unwrap();
    std::env::set_var("CANOPY_TEST_TOOL_FOLDERS", empty.path());
    let (_dir, font) = a_font();
    let err = font_preview(&LocalFs::new(), &font, 400, None).unwrap_err();
    assert_eq!(err.code, ErrorCode::ToolMissing);
    assert!(
        err.message.contains("Debian package fontconfig"),
        "{}",
        err.message
    );
    let tif = font.with_file_name("scan.tif");
    std::fs::write(&tif, b"II*\0\x08\0\0\0").unwrap();
    let err = photo_render(&LocalFs::new(), &tif, 400, None).unwrap_err();
    assert_eq!(err.code, ErrorCode::ToolMissing);
    assert!(
        err.message.contains("vips is not installed")
            && err.message.contains("Debian package libvips-tools"),
        "{}",
        err.message
    );
    // fc-query there, hb-view not: the facts, and the sample's missing package.
    let only_query = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("/usr/bin/fc-query", only_query.path().join("fc-query")).unwrap();
    std::env::set_var("CANOPY_TEST_TOOL_FOLDERS", only_query.path());
    let f = font_preview(&LocalFs::new(), &font, 400, None).unwrap();
    assert_eq!(f.family, "DejaVu Sans");
    let e = f.sample_error.expect("no sample without hb-view");
    assert_eq!(e.code, ErrorCode::ToolMissing);
    assert!(e.message.contains("libharfbuzz-bin"), "{}", e.message);
}

#[test]
fn a_font_that_crashes_the_renderer_costs_the_child_and_is_said() {
    let _one = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let (_dir, font) = a_font();
    // The drawing tool dies as a crashing FreeType would: by SIGSEGV.
    let crashing = tools_with_hb_view("kill -SEGV $$");
    std::env::set_var("CANOPY_TEST_TOOL_FOLDERS", crashing.path());
    let f = font_preview(&LocalFs::new(), &font, 400, None).unwrap();
    assert_eq!(f.family, "DejaVu Sans", "the facts are still shown");
    let e = f.sample_error.expect("the sample's crash is said");
    assert_eq!(e.code, ErrorCode::RenderFailed);
    assert!(
        e.message.contains("crashed") && e.message.contains("signal 11"),
        "{}",
        e.message
    );
    // One that hangs is killed at the renderer's deadline.
    let hanging = tools_with_hb_view("exec /bin/sleep 1000");
    std::env::set_var("CANOPY_TEST_TOOL_FOLDERS", hanging.path());
    let f = font_preview(&LocalFs::new(), &font, 400, None).unwrap();
    assert_eq!(
        f.sample_error.expect("the hang is said").code,
        ErrorCode::Timeout
    );
    // The facts' own tool crashing fails the preview with the crash said.
    let folder = tempfile::tempdir().unwrap();
    let script = folder.path().join("fc-query");
    std::fs::write(&script, "#!/bin/sh\nkill -SEGV $$\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::env::set_var("CANOPY_TEST_TOOL_FOLDERS", folder.path());
    let err = font_preview(&LocalFs::new(), &font, 400, None).unwrap_err();
    assert_eq!(err.code, ErrorCode::RenderFailed);
    assert!(err.message.contains("crashed"), "{}", err.message);
}
