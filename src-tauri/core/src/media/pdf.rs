//! A PDF through poppler's tools in the sandbox: `pdfinfo` for its facts,
//! `pdftoppm` for one page's image, `pdftotext` for its text. The page's
//! PNG is decoded and encoded again here, at the pane's width, so the
//! window only ever decodes Canopy's own PNG.
#![forbid(unsafe_code)]

use std::ffi::OsString;
use std::path::Path;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;

use super::{descriptor, finished, open, reencode, start_error, tool};
use crate::cancel::CancelToken;
use crate::error::{CanopyError, ErrorCode};
use crate::limits::{
    MAX_RENDER_WIDTH, MIN_RENDER_WIDTH, PDF_INFO_CAP, PDF_PAGE_TEXT_CAP, RENDER_DEADLINE,
    RENDER_OUTPUT_CAP,
};
use crate::source::Source;
use crate::sys::sandbox::{self, Job, Outcome, FILE_ARG};
use crate::wire::{PdfDocument, PdfPage};

const POPPLER: &str = "poppler-utils";

fn args(list: &[&str]) -> Vec<OsString> {
    list.iter().map(OsString::from).collect()
}

/// A PDF's facts (title, author, pages, version), as `pdfinfo` reads them
/// in the sandbox.
///
/// # Errors
/// `TOOL_MISSING` without poppler-utils; `NOT_A_FILE` for anything but a
/// regular file (never opened); `RENDER_FAILED` when `pdfinfo` refuses the
/// file or crashes; `TIMEOUT`; `CANCELLED`.
pub fn pdf_document<S: Source>(
    source: &S,
    path: &Path,
    cancel: Option<&CancelToken>,
) -> Result<PdfDocument, CanopyError> {
    let program = tool("pdfinfo", POPPLER)?;
    let file = open(source, path)?;
    let done = sandbox::run(&Job {
        program: &program,
        args: args(&["-enc", "UTF-8", FILE_ARG]),
        file: Some(descriptor(&file)?),
        max_output: PDF_INFO_CAP,
        deadline: RENDER_DEADLINE,
        cancel,
    })
    .map_err(|e| start_error("pdfinfo", e))?;
    let done = finished("pdfinfo", done)?;
    let mut doc = parse_info(&String::from_utf8_lossy(&done.stdout));
    doc.network_isolated = done.network_isolated;
    if doc.pages == 0 {
        return Err(CanopyError::new(
            ErrorCode::RenderFailed,
            "pdfinfo found no pages in this PDF",
        ));
    }
    Ok(doc)
}

/// `pdfinfo`'s `Key:   value` lines, read into the facts shown.
fn parse_info(text: &str) -> PdfDocument {
    let mut doc = PdfDocument {
        title: None,
        author: None,
        pages: 0,
        version: None,
        encrypted: false,
        network_isolated: false,
    };
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = clean(value.trim());
        match key {
            "Title" if !value.is_empty() => doc.title = Some(value),
            "Author" if !value.is_empty() => doc.author = Some(value),
            "Pages" => doc.pages = value.parse().unwrap_or(0),
            "PDF version" if !value.is_empty() => doc.version = Some(value),
            "Encrypted" => doc.encrypted = value.starts_with("yes"),
            _ => {}
        }
    }
    doc
}

/// A field as shown: no control characters, at most 500 characters.
fn clean(s: &str) -> String {
    s.chars().filter(|c| !c.is_control()).take(500).collect()
}

/// Page `page` (from 1) of a PDF rendered in the sandbox at `width` pixels
/// (clamped to `MIN_RENDER_WIDTH..=MAX_RENDER_WIDTH`), and its text. The
/// image and the text are two jobs run side by side, each with the
/// renderer's deadline.
///
/// # Errors
/// As [`pdf_document`]; `INVALID_ARGUMENT` for page 0; `TIMEOUT` when the
/// page takes longer than `RENDER_DEADLINE`; `TOO_LARGE` when its image
/// passes `RENDER_OUTPUT_CAP`; `RENDER_FAILED` when the renderer crashes,
/// runs out of its memory or CPU time, or its PNG does not decode.
pub fn pdf_page<S: Source>(
    source: &S,
    path: &Path,
    page: u32,
    width: u32,
    cancel: Option<&CancelToken>,
) -> Result<PdfPage, CanopyError> {
    if page == 0 {
        return Err(CanopyError::invalid("pages count from 1"));
    }
    let width = width.clamp(MIN_RENDER_WIDTH, MAX_RENDER_WIDTH);
    let ppm = tool("pdftoppm", POPPLER)?;
    let totext = tool("pdftotext", POPPLER)?;
    let file = open(source, path)?;
    let fd = descriptor(&file)?;
    let n = page.to_string();
    let w = width.to_string();
    let (image, text) = std::thread::scope(|s| {
        let text = s.spawn(|| {
            sandbox::run(&Job {
                program: &totext,
                args: args(&["-f", &n, "-l", &n, "-enc", "UTF-8", FILE_ARG, "-"]),
                file: Some(fd),
                max_output: PDF_PAGE_TEXT_CAP,
                deadline: RENDER_DEADLINE,
                cancel,
            })
        });
        let image = sandbox::run(&Job {
            program: &ppm,
            args: args(&[
                "-png",
                "-f",
                &n,
                "-l",
                &n,
                "-scale-to-x",
                &w,
                "-scale-to-y",
                "-1",
                FILE_ARG,
            ]),
            file: Some(fd),
            max_output: RENDER_OUTPUT_CAP,
            deadline: RENDER_DEADLINE,
            cancel,
        });
        (image, text.join())
    });
    let image = finished("pdftoppm", image.map_err(|e| start_error("pdftoppm", e))?)?;
    if image.stdout.is_empty() {
        return Err(CanopyError::invalid(format!("this PDF has no page {page}")));
    }
    let (png, out_w, out_h) = reencode(&image.stdout, width, "page image")?;
    let (text, text_cut, text_problem) = match text {
        Ok(Ok(done)) if done.outcome == Outcome::TooMuchOutput => {
            (cut_text(&done.stdout), true, None)
        }
        Ok(Ok(done)) => match finished("pdftotext", done) {
            Ok(done) => (cut_text(&done.stdout), false, None),
            Err(e) => (String::new(), false, Some(e.message)),
        },
        Ok(Err(e)) => (
            String::new(),
            false,
            Some(start_error("pdftotext", e).message),
        ),
        Err(_) => (
            String::new(),
            false,
            Some("pdftotext's reader stopped".into()),
        ),
    };
    Ok(PdfPage {
        page,
        width: out_w,
        height: out_h,
        png_base64: STANDARD.encode(png),
        text,
        text_cut,
        text_problem,
        network_isolated: image.network_isolated,
    })
}

/// Text bytes as UTF-8 (lossy), the form feed that ends a page dropped.
fn cut_text(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    text.trim_end_matches(['\u{c}', '\n']).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_lines_are_read() {
        let doc = parse_info(
            "Title:           A \u{7}Title\nAuthor:          Ada\nPages:           212\nEncrypted:       no\nPDF version:     1.7\n",
        );
        assert_eq!(
            doc.title.as_deref(),
            Some("A Title"),
            "control characters dropped"
        );
        assert_eq!(doc.author.as_deref(), Some("Ada"));
        assert_eq!(doc.pages, 212);
        assert_eq!(doc.version.as_deref(), Some("1.7"));
        assert!(!doc.encrypted);
    }

    #[test]
    fn a_png_that_is_not_one_is_refused() {
        let err = reencode(b"\x89PNG\r\n\x1a\nnot really", 100, "page image").unwrap_err();
        assert_eq!(err.code, ErrorCode::RenderFailed);
    }
}
