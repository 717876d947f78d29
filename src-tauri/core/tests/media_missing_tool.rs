//! Without poppler-utils a PDF says which package is missing (a test binary
//! of its own: it changes the process's environment).

use canopy_core::{pdf_document, pdf_page, ErrorCode, LocalFs};

#[test]
fn missing_renderer_names_its_package() {
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
