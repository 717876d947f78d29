//! A PDF through poppler's tools in the sandbox: `pdfinfo` for its facts,
//! `pdftoppm` for one page's image, `pdftotext` for its text. The page's
//! PNG is decoded and encoded again here, at the pane's width, so the
//! window only ever decodes Canopy's own PNG.
#![forbid(unsafe_code)]

use std::ffi::OsString;
use std::path::Path;
use std::time::Instant;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;

use super::{descriptor, finished, open, start_error, tool};
use crate::cancel::CancelToken;
use crate::error::{CanopyError, ErrorCode};
use crate::limits::{
    MAX_RENDER_HEIGHT, MAX_RENDER_WIDTH, MIN_RENDER_WIDTH, PDF_INFO_CAP, PDF_PAGE_TEXT_CAP,
    RENDER_DEADLINE, RENDER_DECODE_BYTES, RENDER_OUTPUT_CAP,
};
use crate::source::Source;
use crate::sys::sandbox::{self, RenderJob, RenderOutcome, FILE_ARG};
use crate::wire::{PdfDocument, PdfPage};
use image::ImageEncoder as _;

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
    let done = sandbox::run(&RenderJob {
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
/// image and the text are two jobs run side by side; the page as a whole
/// (all its image's jobs) and the text each have the renderer's deadline.
///
/// `pdftoppm` hands over the page's raw pixels (PPM) and the app encodes
/// the PNG the window shows: poppler's own PNG writer deflates at zlib's
/// best compression, which was most of a page's time. A page whose pixels
/// pass `RENDER_OUTPUT_CAP` comes in bands, each its own job under the cap.
///
/// # Errors
/// As [`pdf_document`]; `INVALID_ARGUMENT` for page 0 and a page past the
/// end; `TIMEOUT` when the page takes longer than `RENDER_DEADLINE`;
/// `TOO_LARGE` when its image passes `RENDER_DECODE_BYTES` or its height
/// `MAX_RENDER_HEIGHT`; `RENDER_FAILED` when the renderer crashes, runs out
/// of its memory or CPU time, or its image is not what was asked for.
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
    let (image, text) = std::thread::scope(|s| {
        let text = s.spawn(|| {
            sandbox::run(&RenderJob {
                program: &totext,
                args: args(&["-f", &n, "-l", &n, "-enc", "UTF-8", FILE_ARG, "-"]),
                file: Some(fd),
                max_output: PDF_PAGE_TEXT_CAP,
                deadline: RENDER_DEADLINE,
                cancel,
            })
        });
        // The page's size first: a page whose drawing at this width would
        // pass the caps is refused saying so, never handed to the renderer
        // (which would crash, run out of its time, or hand over a 1 x 1
        // image for a 1 x 14,400 pt page).
        let size = page_size(fd, page, RENDER_DEADLINE, cancel);
        let image = match size.as_ref().and_then(|s| past_the_caps(s, width)) {
            Some(refused) => Err(refused),
            None => render(&ppm, fd, page, width, size.as_ref(), cancel),
        };
        (image, text.join())
    });
    let image = image?;
    let png = encode_png(&image.pixels, image.width, image.height)?;
    let (text, text_cut, text_problem) = match text {
        Ok(Ok(done)) if done.outcome == RenderOutcome::TooMuchOutput => {
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
        width: image.width,
        height: image.height,
        png_base64: STANDARD.encode(png),
        text,
        text_cut,
        text_problem,
        network_isolated: image.network_isolated,
    })
}

/// A page's image as the renderer drew it: 8-bit RGB, row after row.
struct Pixels {
    pixels: Vec<u8>,
    width: u32,
    height: u32,
    network_isolated: bool,
}

/// Page `page` drawn by `pdftoppm` at `width`, as raw pixels: one job when
/// they fit `RENDER_OUTPUT_CAP`; else the rows the first job wrote before
/// the cap, then the rest in bands (`-y`/`-H` crops of the same drawing,
/// the same pixels), each a job under the cap, all within one deadline.
fn render(
    program: &Path,
    fd: &std::fs::File,
    page: u32,
    width: u32,
    size: Option<&PageSize>,
    cancel: Option<&CancelToken>,
) -> Result<Pixels, CanopyError> {
    let started = Instant::now();
    // A band is rows `y..y + rows` of the page drawn `w` wide.
    let job = |band: Option<(u32, u32, u32)>| {
        let mut list = vec![
            "-f".to_string(),
            page.to_string(),
            "-l".to_string(),
            page.to_string(),
            "-scale-to-x".to_string(),
            width.to_string(),
            "-scale-to-y".to_string(),
            "-1".to_string(),
        ];
        if let Some((y, w, rows)) = band {
            let crop = [("-x", 0), ("-y", y), ("-W", w), ("-H", rows)];
            for (flag, v) in crop {
                list.push(flag.to_string());
                list.push(v.to_string());
            }
        }
        list.push(FILE_ARG.to_string());
        let left = RENDER_DEADLINE.saturating_sub(started.elapsed());
        sandbox::run(&RenderJob {
            program,
            args: list.into_iter().map(OsString::from).collect(),
            file: Some(fd),
            max_output: RENDER_OUTPUT_CAP,
            deadline: left,
            cancel,
        })
        .map_err(|e| start_error("pdftoppm", e))
    };
    // A drawing past the caps says the page's size when it is known.
    let refused = |otherwise: CanopyError| {
        size.and_then(|s| past_the_caps(s, width))
            .unwrap_or(otherwise)
    };
    let first = job(None)?;
    let network_isolated = first.network_isolated;
    let cut = first.outcome == RenderOutcome::TooMuchOutput;
    let first = if cut {
        first
    } else {
        finished("pdftoppm", first)?
    };
    if first.stdout.is_empty() {
        return Err(CanopyError::invalid(format!("this PDF has no page {page}")));
    }
    let header = match ppm_header(&first.stdout) {
        Ok(h) => h,
        // Past the cap with no image's header: the cap is what is said.
        Err(e) if cut => return Err(finished("pdftoppm", first).err().unwrap_or(e)),
        Err(e) => return Err(e),
    };
    let (w, h) = (header.width, header.height);
    // The page's unturned width is scaled to `width`, so one side of the
    // drawing is `width` (give or take a rounding). When neither is, the
    // renderer could not draw it so large (poppler then hands over a 1 x 1
    // image for a 1 x 14,400 pt page 800 pixels wide): said, never shown.
    if w.abs_diff(width) > 1 && h.abs_diff(width) > 1 {
        return Err(not_the_image(format!(
            "{w} x {h} pixels for a page drawn {width} pixels wide"
        )));
    }
    let row = w as usize * 3;
    let size = row as u64 * h as u64;
    // pdftoppm scales a rotated page before it turns it: it comes out
    // wider than asked, and is shrunk to the width after.
    if past(f64::from(w), f64::from(h)) {
        return Err(refused(too_large(format!(
            "this page's image is {w} x {h} pixels ({})",
            caps()
        ))));
    }
    let body_len = first.stdout.len() - header.len;
    let mut pixels = first.stdout;
    if !cut {
        if body_len as u64 != size {
            return Err(not_the_image(format!(
                "{body_len} bytes of pixels for {w} x {h}"
            )));
        }
        pixels.drain(..header.len);
        return fit(pixels, w, h, width, network_isolated);
    }
    let kept = (body_len / row).min(h as usize);
    pixels.truncate(header.len + kept * row);
    pixels.drain(..header.len);
    pixels.reserve_exact(size as usize - pixels.len());
    // Rows a band may hold with its header.
    let band_rows = ((RENDER_OUTPUT_CAP - PPM_HEADER_MAX) / row).max(1) as u32;
    let mut y = kept as u32;
    while y < h {
        let rows = band_rows.min(h - y);
        let done = finished("pdftoppm", job(Some((y, w, rows)))?)?;
        let band = ppm_header(&done.stdout)?;
        let got = &done.stdout[band.len..];
        if (band.width, band.height) != (w, rows) || got.len() != rows as usize * row {
            return Err(not_the_image(format!(
                "a band of {} x {} ({} bytes) for rows {y} to {} of {w} x {h}",
                band.width,
                band.height,
                got.len(),
                y + rows
            )));
        }
        pixels.extend_from_slice(got);
        y += rows;
    }
    fit(pixels, w, h, width, network_isolated)
}

/// What a page's drawing may be, for messages.
fn caps() -> String {
    format!(
        "at most {} x {MAX_RENDER_HEIGHT} pixels, and {} MiB",
        MAX_RENDER_WIDTH * 4,
        RENDER_DECODE_BYTES >> 20
    )
}

/// Whether a drawing of `w` x `h` pixels passes the caps ([`caps`]).
fn past(w: f64, h: f64) -> bool {
    w > f64::from(MAX_RENDER_WIDTH * 4)
        || h > f64::from(MAX_RENDER_HEIGHT)
        || w.ceil() * h.ceil() * 3.0 > RENDER_DECODE_BYTES as f64
}

/// `TOO_LARGE` naming the page's size when its drawing `width` pixels wide
/// passes the caps; `None` when it does not.
fn past_the_caps(size: &PageSize, width: u32) -> Option<CanopyError> {
    let (w, h) = size.drawn(width);
    past(w, h).then(|| {
        too_large(format!(
            "this page is {}: drawn {width} pixels wide it would be {w:.0} x {h:.0} pixels ({})",
            size.text,
            caps()
        ))
    })
}

/// A page's size as `pdfinfo` says it (`1 x 14400`, in points), and its turn.
struct PageSize {
    text: String,
    width: f64,
    height: f64,
    rotate: u32,
}

impl PageSize {
    /// The drawing's size when its unturned width is scaled to `width`.
    fn drawn(&self, width: u32) -> (f64, f64) {
        let s = f64::from(width) / self.width.max(f64::MIN_POSITIVE);
        if self.rotate % 180 == 90 {
            (self.height * s, self.width * s)
        } else {
            (self.width * s, self.height * s)
        }
    }
}

/// Page `page`'s size from `pdfinfo -f N -l N` in the sandbox; `None` when
/// it cannot be read (the renderer then says what it says).
fn page_size(
    fd: &std::fs::File,
    page: u32,
    deadline: std::time::Duration,
    cancel: Option<&CancelToken>,
) -> Option<PageSize> {
    let program = tool("pdfinfo", POPPLER).ok()?;
    let n = page.to_string();
    let done = sandbox::run(&RenderJob {
        program: &program,
        args: args(&["-f", &n, "-l", &n, FILE_ARG]),
        file: Some(fd),
        max_output: PDF_INFO_CAP,
        deadline,
        cancel,
    })
    .ok()?;
    let done = finished("pdfinfo", done).ok()?;
    let text = String::from_utf8_lossy(&done.stdout);
    let field = |what: &str| {
        text.lines().find_map(|l| {
            let rest = l.strip_prefix("Page")?.trim_start();
            let rest = rest.strip_prefix(n.as_str())?.trim_start();
            Some(rest.strip_prefix(what)?.trim().to_string())
        })
    };
    // "1 x 14400 pts" (or "612 x 792 pts (letter)").
    let size = field("size:")?;
    let mut words = size.split_whitespace();
    let (w, x, h) = (words.next()?, words.next()?, words.next()?);
    let (width, height) = (w.parse().ok()?, h.parse().ok()?);
    (x == "x").then_some(())?;
    Some(PageSize {
        text: format!("{} x {} pt", clean(w), clean(h)),
        width,
        height,
        rotate: field("rot:").and_then(|r| r.parse().ok()).unwrap_or(0),
    })
}

/// The page's pixels, shrunk to `width` when the renderer drew it wider.
fn fit(
    pixels: Vec<u8>,
    w: u32,
    h: u32,
    width: u32,
    network_isolated: bool,
) -> Result<Pixels, CanopyError> {
    let mut img = image::RgbImage::from_raw(w, h, pixels)
        .ok_or_else(|| not_the_image(format!("too few pixels for {w} x {h}")))?;
    if w > width {
        let tall = (u64::from(h) * u64::from(width) / u64::from(w)).max(1) as u32;
        img = image::imageops::resize(&img, width, tall, image::imageops::FilterType::Triangle);
    }
    let (width, height) = img.dimensions();
    Ok(Pixels {
        pixels: img.into_raw(),
        width,
        height,
        network_isolated,
    })
}

/// The longest PPM header read (`P6`, width, height, 255): pdftoppm's are
/// about 20 bytes.
const PPM_HEADER_MAX: usize = 64;

/// A binary PPM's header, as `pdftoppm` writes it (`P6\n<w> <h>\n255\n`,
/// any whitespace between the fields, no comments).
#[derive(Debug, PartialEq, Eq)]
struct PpmHeader {
    width: u32,
    height: u32,
    /// Where the pixels start.
    len: usize,
}

/// Reads the header of the renderer's PPM; anything else (another
/// format, comments, a depth other than 8 bits, a zero or 10-digit size)
/// is `RENDER_FAILED`.
fn ppm_header(bytes: &[u8]) -> Result<PpmHeader, CanopyError> {
    let head = &bytes[..bytes.len().min(PPM_HEADER_MAX)];
    let bad = || not_the_image("no PPM header".to_string());
    if !head.starts_with(b"P6") {
        return Err(bad());
    }
    let mut at = 2;
    let mut field = || -> Option<u32> {
        let start = at
            + head[at..]
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
        if start == at {
            return None;
        }
        let digits = head[start..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits == 0 || digits > 9 {
            return None;
        }
        at = start + digits;
        std::str::from_utf8(&head[start..at]).ok()?.parse().ok()
    };
    let (Some(width), Some(height), Some(255)) = (field(), field(), field()) else {
        return Err(bad());
    };
    // One whitespace byte ends the header; the pixels follow.
    if width == 0 || height == 0 || !head.get(at).is_some_and(u8::is_ascii_whitespace) {
        return Err(bad());
    }
    Ok(PpmHeader {
        width,
        height,
        len: at + 1,
    })
}

fn not_the_image(what: String) -> CanopyError {
    CanopyError::new(
        ErrorCode::RenderFailed,
        format!("the renderer's page image is not the one asked for: {what}"),
    )
}

fn too_large(what: String) -> CanopyError {
    CanopyError::new(ErrorCode::TooLarge, what)
}

/// The PNG the window shows, from the page's RGB pixels, with fast
/// deflate: the PNG crosses IPC once and is decoded once, so a smaller
/// file is not worth the time on the way to the screen.
fn encode_png(pixels: &[u8], width: u32, height: u32) -> Result<Vec<u8>, CanopyError> {
    let mut out = Vec::new();
    image::codecs::png::PngEncoder::new_with_quality(
        &mut out,
        image::codecs::png::CompressionType::Fast,
        image::codecs::png::FilterType::Adaptive,
    )
    .write_image(pixels, width, height, image::ExtendedColorType::Rgb8)
    .map_err(|e| {
        CanopyError::new(
            ErrorCode::RenderFailed,
            format!("the page image could not be encoded: {e}"),
        )
    })?;
    super::for_window(out, "page")
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
    fn a_page_image_too_large_for_the_window_is_too_large_never_sent() {
        // Noise does not compress: 2400 x 2600 pixels take about 18 MiB as a PNG.
        let (w, h) = (2400u32, 2600u32);
        let mut x: u32 = 0x9e37_79b9;
        let pixels: Vec<u8> = (0..w as usize * h as usize * 3)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x as u8
            })
            .collect();
        let e = encode_png(&pixels, w, h).unwrap_err();
        assert_eq!(e.code, ErrorCode::TooLarge, "{e:?}");
        // A page of the same size that compresses is shown.
        let plain = vec![255u8; pixels.len()];
        assert!(encode_png(&plain, w, h).unwrap().len() < crate::limits::WINDOW_IMAGE_CAP);
    }

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
        let err =
            super::super::reencode(b"\x89PNG\r\n\x1a\nnot really", 100, "page image").unwrap_err();
        assert_eq!(err.code, ErrorCode::RenderFailed);
    }

    #[test]
    fn ppm_header_is_read_as_pdftoppm_writes_it() {
        assert_eq!(
            ppm_header(b"P6\n800 1035\n255\n\xff\xff\xff").unwrap(),
            PpmHeader {
                width: 800,
                height: 1035,
                len: 16
            }
        );
        // Any whitespace between the fields, as the format allows.
        assert_eq!(ppm_header(b"P6 3\t2\r\n255 ").unwrap().len, 12);
    }

    #[test]
    fn anything_but_an_8_bit_ppm_header_is_refused() {
        for bad in [
            &b""[..],
            b"P5\n800 1035\n255\n",         // greyscale
            b"P6\n800 1035\n65535\n",       // 16 bits a sample
            b"P6\n800 1035\n255",           // no byte ends the header
            b"P6\n# a comment\n8 8\n255\n", // comments: pdftoppm writes none
            b"P6\n0 1035\n255\n",           // an empty image
            b"P6\n8000000000 1\n255\n",     // ten digits
            b"P6800 1035\n255\n",           // no space after the magic
            b"\x89PNG\r\n\x1a\n",
        ] {
            let err = ppm_header(bad).unwrap_err();
            assert_eq!(err.code, ErrorCode::RenderFailed, "{bad:?}");
        }
    }

    #[test]
    fn a_wider_drawing_is_shrunk_to_the_width_and_keeps_its_shape() {
        // A rotated page comes out of pdftoppm wider than asked.
        let img = fit(vec![0u8; 400 * 300 * 3], 400, 300, 200, true).unwrap();
        assert_eq!((img.width, img.height), (200, 150));
        assert_eq!(img.pixels.len(), 200 * 150 * 3);
        let same = fit(vec![0u8; 20 * 10 * 3], 20, 10, 200, true).unwrap();
        assert_eq!((same.width, same.height), (20, 10), "never grown");
    }
}
