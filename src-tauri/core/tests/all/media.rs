//! PDFs and photos as people open them: a PDF's facts and pages through
//! the sandboxed renderer (poppler-utils), a photo's EXIF details read with
//! a budget. Files are made here: PDFs written by hand, photos with EXIF
//! written by `kamadak-exif`'s writer.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use canopy_core::cancel::CancelToken;
use canopy_core::limits::{EXIF_READ_BUDGET, MAX_RENDER_WIDTH};
use canopy_core::wire::MediaKind;
use canopy_core::{pdf_document, pdf_page, photo_details, ErrorCode, LocalFs};
use exif::experimental::Writer;
use exif::{Field, In, Rational, Tag, Value};

/// A PDF of `pages` pages, each with its text in Helvetica; `extra` goes
/// into the catalog (actions...).
fn pdf(pages: &[&str], title: &str, extra: &str) -> Vec<u8> {
    pdf_with(pages, title, extra, "")
}

/// As [`pdf`], with `page_extra` in each page's dictionary (`/Rotate 90`...).
fn pdf_with(pages: &[&str], title: &str, extra: &str, page_extra: &str) -> Vec<u8> {
    let mut objs: Vec<Vec<u8>> = Vec::new();
    let kids: Vec<String> = (0..pages.len())
        .map(|i| format!("{} 0 R", 5 + 2 * i))
        .collect();
    objs.push(format!("<< /Type /Catalog /Pages 2 0 R {extra} >>").into_bytes());
    objs.push(
        format!(
            "<< /Type /Pages /Kids [{}] /Count {} >>",
            kids.join(" "),
            pages.len()
        )
        .into_bytes(),
    );
    objs.push(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_vec());
    objs.push(format!("<< /Title ({title}) /Author (Ada Lovelace) >>").into_bytes());
    for (i, text) in pages.iter().enumerate() {
        objs.push(format!("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 400] /Resources << /Font << /F1 3 0 R >> >> /Contents {} 0 R {page_extra} >>", 6 + 2 * i).into_bytes());
        objs.push(stream(
            &format!("BT /F1 24 Tf 40 300 Td ({text}) Tj ET 0.9 0.2 0.1 rg 20 20 120 60 re f"),
            "",
        ));
    }
    assemble(objs, "/Info 4 0 R")
}

fn stream(body: &str, dict: &str) -> Vec<u8> {
    format!(
        "<< {dict} /Length {} >>\nstream\n{body}\nendstream",
        body.len()
    )
    .into_bytes()
}

fn assemble(objs: Vec<Vec<u8>>, trailer: &str) -> Vec<u8> {
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objs.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(o);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", objs.len() + 1).as_bytes());
    for o in offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R {trailer} >>\nstartxref\n{xref}\n%%EOF\n",
            objs.len() + 1
        )
        .as_bytes(),
    );
    out
}

/// A one-page PDF whose page draws a form that draws the next twice, 40
/// deep: 2^40 rectangles, a page no renderer finishes in a minute.
fn form_bomb() -> Vec<u8> {
    let depth = 40;
    let mut objs = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 400] /Resources << /XObject << /X 5 0 R >> >> /Contents 4 0 R >>".to_vec(),
        stream("/X Do", ""),
    ];
    for d in 0..depth {
        let me = 5 + d;
        if d < depth - 1 {
            objs.push(stream(
                "/X Do /X Do",
                &format!("/Type /XObject /Subtype /Form /BBox [0 0 300 400] /Resources << /XObject << /X {} 0 R >> >>", me + 1),
            ));
        } else {
            objs.push(stream(
                "0 0 1 1 re f",
                "/Type /XObject /Subtype /Form /BBox [0 0 300 400]",
            ));
        }
    }
    assemble(objs, "")
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn needs_poppler() {
    assert!(
        Path::new("/usr/bin/pdftoppm").exists(),
        "these tests need poppler-utils (scripts/setup.sh installs it)"
    );
}

#[test]
fn pdf_facts_are_read_in_the_sandbox() {
    needs_poppler();
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "doc.pdf",
        &pdf(&["One", "Two", "Three"], "A Title", ""),
    );
    let doc = pdf_document(&LocalFs::new(), &p, None).unwrap();
    assert_eq!(doc.title.as_deref(), Some("A Title"));
    assert_eq!(doc.author.as_deref(), Some("Ada Lovelace"));
    assert_eq!(doc.pages, 3);
    assert_eq!(doc.version.as_deref(), Some("1.4"));
    assert!(
        doc.network_isolated,
        "as root the renderer gets a network namespace"
    );
}

#[test]
fn pdf_page_is_rendered_at_the_panes_width_with_its_text() {
    needs_poppler();
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "doc.pdf",
        &pdf(&["First page", "Second page"], "T", ""),
    );
    let page = pdf_page(&LocalFs::new(), &p, 2, 300, None).unwrap();
    assert_eq!(page.page, 2);
    assert_eq!(
        page.text, "Second page",
        "the second page's text, not the first's"
    );
    let png = base64::engine::general_purpose::STANDARD
        .decode(&page.png_base64)
        .unwrap();
    let img = image::load_from_memory_with_format(&png, image::ImageFormat::Png).unwrap();
    assert_eq!((img.width(), img.height()), (page.width, page.height));
    assert_eq!(page.width, 300, "the page fills the pane's width");
    assert_eq!(page.height, 400, "and keeps its shape (300 x 400 pt)");
    // Something was drawn: the text's ink is darker than the white page.
    let rgba = img.to_rgba8();
    assert!(
        rgba.pixels().any(|p| p.0[0] < 128),
        "the page's text is on the image"
    );
}

#[test]
fn pdf_page_width_is_clamped_to_the_limit() {
    needs_poppler();
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "doc.pdf", &pdf(&["x"], "T", ""));
    let page = pdf_page(&LocalFs::new(), &p, 1, 1_000_000, None).unwrap();
    assert_eq!(page.width, MAX_RENDER_WIDTH);
}

/// The page's pixels, as Canopy's PNG says them.
fn page_pixels(page: &canopy_core::wire::PdfPage) -> image::RgbImage {
    let png = base64::engine::general_purpose::STANDARD
        .decode(&page.png_base64)
        .unwrap();
    image::load_from_memory_with_format(&png, image::ImageFormat::Png)
        .unwrap()
        .to_rgb8()
}

/// Page `page` of `p` as `pdftoppm -png` draws it alone at `width`.
fn pdftoppm_pixels(p: &Path, page: u32, width: u32) -> image::RgbImage {
    let n = page.to_string();
    let out = std::process::Command::new("pdftoppm")
        .args([
            "-png",
            "-f",
            &n,
            "-l",
            &n,
            "-scale-to-x",
            &width.to_string(),
        ])
        .args(["-scale-to-y", "-1"])
        .arg(p)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    image::load_from_memory_with_format(&out.stdout, image::ImageFormat::Png)
        .unwrap()
        .to_rgb8()
}

#[test]
fn pdf_page_has_the_pixels_pdftoppm_draws() {
    needs_poppler();
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "doc.pdf", &pdf(&["One", "Two"], "T", ""));
    let page = pdf_page(&LocalFs::new(), &p, 2, 333, None).unwrap();
    let ours = page_pixels(&page);
    let theirs = pdftoppm_pixels(&p, 2, 333);
    assert_eq!(ours.dimensions(), theirs.dimensions());
    assert!(
        ours == theirs,
        "the renderer's raw pixels reach the window unchanged"
    );
}

#[test]
fn page_past_the_output_cap_comes_in_bands_with_the_same_pixels() {
    needs_poppler();
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "doc.pdf", &pdf(&["Banded"], "T", ""));
    // 2400 x 3200 RGB is 22 MiB of pixels: three jobs under the 8 MiB cap.
    let page = pdf_page(&LocalFs::new(), &p, 1, MAX_RENDER_WIDTH, None).unwrap();
    assert_eq!((page.width, page.height), (MAX_RENDER_WIDTH, 3200));
    assert!(
        (page.width * page.height * 3) as usize > canopy_core::limits::RENDER_OUTPUT_CAP,
        "this page does not fit one job's output"
    );
    let ours = page_pixels(&page);
    let theirs = pdftoppm_pixels(&p, 1, MAX_RENDER_WIDTH);
    let differ = ours
        .pixels()
        .zip(theirs.pixels())
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(differ, 0, "the bands join into pdftoppm's own page");
    assert_eq!(page.text, "Banded");
}

#[test]
fn rotated_page_is_shrunk_to_the_panes_width_and_keeps_its_shape() {
    needs_poppler();
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "turned.pdf",
        &pdf_with(&["Sideways"], "T", "", "/Rotate 90"),
    );
    // pdftoppm scales a 300 x 400 pt page to 300 wide, then turns it: 400 x 300.
    let page = pdf_page(&LocalFs::new(), &p, 1, 300, None).unwrap();
    assert_eq!((page.width, page.height), (300, 225));
    assert_eq!(page_pixels(&page).dimensions(), (300, 225));
}

#[test]
fn page_taller_than_the_limit_is_too_large_not_a_crash() {
    needs_poppler();
    let dir = tempfile::tempdir().unwrap();
    // A 10 x 2000 pt strip (the same length as 300 x 400, so the xref holds):
    // 400 pixels wide it is 80,000 tall, past MAX_RENDER_HEIGHT.
    let bytes = String::from_utf8(pdf(&["x"], "T", ""))
        .unwrap()
        .replace("[0 0 300 400]", "[0 0 10 2000]");
    let p = write(dir.path(), "strip.pdf", bytes.as_bytes());
    let err = pdf_page(&LocalFs::new(), &p, 1, 400, None).unwrap_err();
    assert_eq!(err.code, ErrorCode::TooLarge, "{err:?}");
}

/// A one-page PDF of `w` x `h` pt, turned `rotate` degrees, filled blue.
fn sized_page(w: f64, h: f64, rotate: u32) -> Vec<u8> {
    assemble(
        vec![
            b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
            format!("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {w} {h}] /Rotate {rotate} /Contents 4 0 R >>")
                .into_bytes(),
            stream(&format!("0 0 1 rg 0 0 {w} {h} re f"), ""),
        ],
        "",
    )
}

#[test]
fn a_degenerate_page_is_drawn_at_the_width_asked_or_refused_saying_its_size() {
    use canopy_core::limits::{MAX_RENDER_HEIGHT, MIN_RENDER_WIDTH};
    needs_poppler();
    let dir = tempfile::tempdir().unwrap();
    let seed = std::env::var("CANOPY_PDF_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    let mut state = seed;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as u32
    };
    // The page first, then sizes from 1 to 14,400 pt (PDF's own
    // limit) spread by their logarithm, turned or not.
    let mut cases = vec![(1.0, 14_400.0, 0, 800)];
    for _ in 0..12 {
        let side = |n: u32| {
            (14_400f64.powf(f64::from(n % 1000) / 999.0))
                .round()
                .max(1.0)
        };
        let (w, h) = (side(next()), side(next()));
        let rotate = [0, 90][next() as usize % 2];
        let width = MIN_RENDER_WIDTH + next() % (800 - MIN_RENDER_WIDTH);
        cases.push((w, h, rotate, width));
    }
    for (i, (w, h, rotate, width)) in cases.into_iter().enumerate() {
        let p = write(dir.path(), &format!("{i}.pdf"), &sized_page(w, h, rotate));
        // pdftoppm scales the unturned page to the width, then turns it;
        // a drawing wider than asked is shrunk to the width after.
        let s = f64::from(width) / w;
        let drawn = if rotate == 0 {
            (w * s, h * s)
        } else {
            (h * s, w * s)
        };
        let fits = drawn.1 <= f64::from(MAX_RENDER_HEIGHT) + 1.0
            && drawn.0 <= f64::from(MAX_RENDER_WIDTH * 4) + 1.0;
        let case =
            format!("{w} x {h} pt turned {rotate} at {width} (replay: CANOPY_PDF_SEED={seed})");
        match pdf_page(&LocalFs::new(), &p, 1, width, None) {
            Ok(page) => {
                assert!(
                    fits,
                    "{case}: drawn {} x {}, past the caps",
                    page.width, page.height
                );
                let shown = if drawn.0 > f64::from(width) {
                    (f64::from(width), drawn.1 * f64::from(width) / drawn.0)
                } else {
                    drawn
                };
                let near = |got: u32, want: f64| (f64::from(got) - want.max(1.0)).abs() <= 1.5;
                assert!(
                    near(page.width, shown.0) && near(page.height, shown.1),
                    "{case}: the page is drawn {} x {}, not the {:.1} x {:.1} of its shape",
                    page.width,
                    page.height,
                    shown.0,
                    shown.1
                );
                assert_eq!(page_pixels(&page).dimensions(), (page.width, page.height));
            }
            Err(e) => {
                assert!(!fits, "{case}: refused though it fits: {e:?}");
                assert_eq!(e.code, ErrorCode::TooLarge, "{case}: {e:?}");
                let size = format!("{w} x {h} pt");
                assert!(
                    e.message.contains(&size),
                    "{case}: the message names the page's size: {}",
                    e.message
                );
            }
        }
    }
}

#[test]
fn page_past_the_end_is_an_error_not_an_empty_page() {
    needs_poppler();
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "doc.pdf", &pdf(&["x"], "T", ""));
    let err = pdf_page(&LocalFs::new(), &p, 5, 200, None).unwrap_err();
    assert!(
        matches!(
            err.code,
            ErrorCode::RenderFailed | ErrorCode::InvalidArgument
        ),
        "{err:?}"
    );
    assert_eq!(
        pdf_page(&LocalFs::new(), &p, 0, 200, None)
            .unwrap_err()
            .code,
        ErrorCode::InvalidArgument
    );
}

#[test]
fn hostile_pdf_is_stopped_at_its_limits_and_the_caller_answered() {
    needs_poppler();
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "bomb.pdf", &form_bomb());
    let err = pdf_page(&LocalFs::new(), &p, 1, 400, None).unwrap_err();
    // The deadline (5 s) and the CPU limit (5 s) race: either stops it.
    assert!(
        matches!(err.code, ErrorCode::Timeout | ErrorCode::RenderFailed),
        "{err:?}"
    );
}

#[test]
fn cancelled_render_answers_cancelled() {
    needs_poppler();
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "bomb.pdf", &form_bomb());
    let token = CancelToken::default();
    let t = token.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(200));
        t.cancel();
    });
    let err = pdf_page(&LocalFs::new(), &p, 1, 400, Some(&token)).unwrap_err();
    canceller.join().unwrap();
    assert_eq!(err.code, ErrorCode::Cancelled, "{err:?}");
}

#[test]
fn pdf_actions_and_javascript_run_nothing() {
    needs_poppler();
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("launched");
    let extra = format!(
        "/OpenAction << /S /Launch /F (/usr/bin/touch) /Win << /F (touch) /P ({m}) >> >> /Names << /JavaScript << /Names [(x) << /S /JavaScript /JS (app.launchURL\\(\"file://{m}\"\\);) >>] >> >>",
        m = marker.display()
    );
    let p = write(dir.path(), "actions.pdf", &pdf(&["Hello"], "T", &extra));
    pdf_document(&LocalFs::new(), &p, None).unwrap();
    let page = pdf_page(&LocalFs::new(), &p, 1, 200, None).unwrap();
    assert_eq!(page.text, "Hello");
    assert!(!marker.exists(), "no action ran");
}

#[test]
fn fifo_is_never_opened_by_the_renderer() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.pdf");
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    // Opening a fifo for reading with no writer would block forever.
    let err = pdf_page(&LocalFs::new(), &fifo, 1, 200, None).unwrap_err();
    assert_eq!(err.code, ErrorCode::NotAFile);
    assert_eq!(
        pdf_document(&LocalFs::new(), &fifo, None).unwrap_err().code,
        ErrorCode::NotAFile
    );
    assert_eq!(
        photo_details(&LocalFs::new(), &fifo).unwrap_err().code,
        ErrorCode::NotAFile
    );
}

#[test]
fn corrupt_pdf_is_a_render_failure() {
    needs_poppler();
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "bad.pdf", b"%PDF-1.4\nthis is no pdf at all\n");
    let err = pdf_document(&LocalFs::new(), &p, None).unwrap_err();
    assert_eq!(err.code, ErrorCode::RenderFailed, "{err:?}");
}

#[test]
fn pdf_is_told_by_its_first_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "no-extension", &pdf(&["x"], "T", ""));
    let chunk = canopy_core::preview(&LocalFs::new(), &p, 0, 4096).unwrap();
    assert_eq!(chunk.media, Some(MediaKind::Pdf));
    let j = write(dir.path(), "photo.bin", &jpeg_with(&phone_photo()));
    assert_eq!(
        canopy_core::preview(&LocalFs::new(), &j, 0, 4096)
            .unwrap()
            .media,
        Some(MediaKind::Photo)
    );
    let t = write(dir.path(), "notes.txt", b"%PD not quite");
    assert_eq!(
        canopy_core::preview(&LocalFs::new(), &t, 0, 4096)
            .unwrap()
            .media,
        None
    );
}

fn ascii(tag: Tag, s: &str) -> Field {
    Field {
        tag,
        ifd_num: In::PRIMARY,
        value: Value::Ascii(vec![s.as_bytes().to_vec()]),
    }
}

fn rationals(tag: Tag, v: &[(u32, u32)]) -> Field {
    Field {
        tag,
        ifd_num: In::PRIMARY,
        value: Value::Rational(
            v.iter()
                .map(|&(num, denom)| Rational { num, denom })
                .collect(),
        ),
    }
}

/// A JPEG holding `fields` in its EXIF segment (after `pad` bytes of
/// another APP segment), and no picture.
fn jpeg_padded(fields: &[Field], pad: usize) -> Vec<u8> {
    let mut w = Writer::new();
    for f in fields {
        w.push_field(f);
    }
    let mut tiff = Cursor::new(Vec::new());
    w.write(&mut tiff, false).unwrap();
    let mut out = b"\xff\xd8".to_vec();
    let mut left = pad;
    while left > 0 {
        let n = left.min(65_000);
        out.extend_from_slice(b"\xff\xe2");
        out.extend_from_slice(&((n + 2) as u16).to_be_bytes());
        out.extend(std::iter::repeat_n(0u8, n));
        left -= n;
    }
    let body = [b"Exif\0\0".as_slice(), tiff.get_ref()].concat();
    out.extend_from_slice(b"\xff\xe1");
    out.extend_from_slice(&((body.len() + 2) as u16).to_be_bytes());
    out.extend_from_slice(&body);
    out.extend_from_slice(b"\xff\xd9");
    out
}

fn jpeg_with(fields: &[Field]) -> Vec<u8> {
    jpeg_padded(fields, 0)
}

fn phone_photo() -> Vec<Field> {
    vec![
        ascii(Tag::Make, "Canon"),
        ascii(Tag::Model, "Canon EOS 5D"),
        ascii(Tag::DateTimeOriginal, "2024:05:01 14:03:22"),
        Field {
            tag: Tag::Orientation,
            ifd_num: In::PRIMARY,
            value: Value::Short(vec![6]),
        },
        rationals(Tag::ExposureTime, &[(1, 125)]),
        rationals(Tag::FNumber, &[(28, 10)]),
        Field {
            tag: Tag::PhotographicSensitivity,
            ifd_num: In::PRIMARY,
            value: Value::Short(vec![100]),
        },
        ascii(Tag::GPSLatitudeRef, "S"),
        rationals(Tag::GPSLatitude, &[(33, 1), (51, 1), (3540, 100)]),
        ascii(Tag::GPSLongitudeRef, "E"),
        rationals(Tag::GPSLongitude, &[(151, 1), (12, 1), (3000, 100)]),
    ]
}

#[test]
fn photo_details_say_camera_exposure_time_orientation_and_gps() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "IMG_0001.JPG", &jpeg_with(&phone_photo()));
    let d = photo_details(&LocalFs::new(), &p).unwrap();
    assert!(d.has_exif);
    assert_eq!(
        d.camera.as_deref(),
        Some("Canon EOS 5D"),
        "the make is not said twice"
    );
    assert_eq!(d.exposure.as_deref(), Some("1/125 s · f/2.8 · ISO 100"));
    assert_eq!(d.taken_at.as_deref(), Some("2024-05-01 14:03:22"));
    assert_eq!(d.orientation, Some(6));
    let gps = d.gps.expect("the GPS position is found");
    assert!(
        (gps.latitude - -(33.0 + 51.0 / 60.0 + 35.4 / 3600.0)).abs() < 1e-9,
        "south is negative: {gps:?}"
    );
    assert!(
        (gps.longitude - (151.0 + 12.0 / 60.0 + 30.0 / 3600.0)).abs() < 1e-9,
        "{gps:?}"
    );
}

#[test]
fn photo_without_exif_has_no_details() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "plain.jpg",
        b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9",
    );
    let d = photo_details(&LocalFs::new(), &p).unwrap();
    assert!(!d.has_exif);
    assert!(d.gps.is_none());
}

#[test]
fn exif_past_the_read_budget_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let near = write(
        dir.path(),
        "near.jpg",
        &jpeg_padded(&phone_photo(), EXIF_READ_BUDGET / 2),
    );
    assert!(
        photo_details(&LocalFs::new(), &near).unwrap().gps.is_some(),
        "within the budget: read"
    );
    let far = write(
        dir.path(),
        "far.jpg",
        &jpeg_padded(&phone_photo(), EXIF_READ_BUDGET + 1000),
    );
    assert!(
        !photo_details(&LocalFs::new(), &far).unwrap().has_exif,
        "past the budget: never read"
    );
}

#[test]
fn lying_exif_does_not_crash_the_reader() {
    let dir = tempfile::tempdir().unwrap();
    let good = jpeg_with(&phone_photo());
    // Every byte of the EXIF segment flipped in turn, and a segment that
    // claims far more than the file holds.
    for i in (4..good.len()).step_by(3) {
        let mut bad = good.clone();
        bad[i] ^= 0xff;
        let p = write(dir.path(), "bad.jpg", &bad);
        photo_details(&LocalFs::new(), &p).unwrap();
    }
    let mut claim = b"\xff\xd8\xff\xe1\xff\xffExif\0\0MM\0*\xff\xff\xff\xf0".to_vec();
    claim.extend_from_slice(&[0u8; 64]);
    let p = write(dir.path(), "claim.jpg", &claim);
    assert!(!photo_details(&LocalFs::new(), &p).unwrap().has_exif);
}

/// One second of silence as 8 kHz mono 16-bit PCM WAV.
fn wav() -> Vec<u8> {
    let data = vec![0u8; 16_000];
    let mut out = b"RIFF".to_vec();
    out.extend_from_slice(&((36 + data.len()) as u32).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes()); // PCM
    out.extend_from_slice(&1u16.to_le_bytes()); // mono
    out.extend_from_slice(&8000u32.to_le_bytes());
    out.extend_from_slice(&16000u32.to_le_bytes());
    out.extend_from_slice(&2u16.to_le_bytes());
    out.extend_from_slice(&16u16.to_le_bytes());
    out.extend_from_slice(b"data");
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out.extend_from_slice(&data);
    out
}

fn png_bytes(w: u32, h: u32) -> Vec<u8> {
    let img = image::RgbaImage::from_pixel(w, h, image::Rgba([200, 30, 30, 255]));
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

fn tag_song(p: &Path, cover: Vec<u8>) {
    use lofty::config::WriteOptions;
    use lofty::picture::{MimeType, Picture, PictureType};
    use lofty::tag::{Accessor, Tag, TagExt, TagType};
    let mut tag = Tag::new(TagType::Id3v2);
    tag.set_title("Gymnopédie No. 1".into());
    tag.set_artist("Erik Satie".into());
    tag.set_album("Trois Gymnopédies".into());
    tag.set_track(1);
    tag.set_track_total(3);
    tag.push_picture(Picture::new_unchecked(
        PictureType::CoverFront,
        Some(MimeType::Png),
        None,
        cover,
    ));
    tag.save_to_path(p, WriteOptions::default()).unwrap();
}

#[test]
fn audio_tags_properties_and_cover_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "song.wav", &wav());
    let cover = png_bytes(16, 16);
    tag_song(&p, cover.clone());
    let chunk = canopy_core::preview(&LocalFs::new(), &p, 0, 4096).unwrap();
    assert_eq!(chunk.media, Some(MediaKind::Audio));
    let d = canopy_core::audio_details(&LocalFs::new(), &p).unwrap();
    assert_eq!(d.title.as_deref(), Some("Gymnopédie No. 1"));
    assert_eq!(d.artist.as_deref(), Some("Erik Satie"));
    assert_eq!(d.album.as_deref(), Some("Trois Gymnopédies"));
    assert_eq!((d.track, d.track_total), (Some(1), Some(3)));
    assert_eq!(d.duration_ms, Some(1000));
    assert_eq!(d.codec, "WAV");
    assert_eq!((d.sample_rate, d.channels), (Some(8000), Some(1)));
    assert_eq!(d.bit_rate_kbps, Some(128));
    let got = d.cover.expect("the cover");
    assert_eq!(got.mime, "image/png");
    assert_eq!(
        base64::engine::general_purpose::STANDARD
            .decode(got.base64)
            .unwrap(),
        cover
    );
}

#[test]
fn audio_cover_past_the_cap_is_left_out_and_said() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "song.wav", &wav());
    // A PNG header and 4.5 MiB of noise: past the cover cap, within the read budget.
    let mut big = png_bytes(1, 1);
    big.extend((0..4_700_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8));
    tag_song(&p, big);
    let d = canopy_core::audio_details(&LocalFs::new(), &p).unwrap();
    assert!(d.cover.is_none());
    assert!(d.cover_too_large);
    assert_eq!(
        d.title.as_deref(),
        Some("Gymnopédie No. 1"),
        "the tags still read"
    );
}

#[test]
fn mp3_claiming_a_huge_tag_stops_at_the_read_budget() {
    let dir = tempfile::tempdir().unwrap();
    // An ID3v2.4 header claiming the largest size a tag can (256 MiB), and
    // 2 MiB of a frame whose own size claims 1 GB.
    let mut bytes = b"ID3\x04\x00\x00\x7f\x7f\x7f\x7f".to_vec();
    bytes.extend_from_slice(b"APIC\x7f\x7f\x7f\x7f\x00\x00");
    bytes.extend(std::iter::repeat_n(0x41u8, 2 << 20));
    let p = write(dir.path(), "corrupt.mp3", &bytes);
    match canopy_core::audio_details(&LocalFs::new(), &p) {
        Err(e) => assert_eq!(e.code, ErrorCode::Corrupt, "{e:?}"),
        Ok(d) => assert!(d.cover.is_none() && d.title.is_none(), "{d:?}"),
    }
}

#[test]
fn audio_with_a_budget_sized_tag_is_refused_not_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "song.wav", &wav());
    // A cover larger than the whole read budget: the reader stops at the budget.
    let mut big = png_bytes(1, 1);
    big.extend(std::iter::repeat_n(
        7u8,
        (canopy_core::limits::AUDIO_READ_BUDGET + (1 << 20)) as usize,
    ));
    tag_song(&p, big);
    match canopy_core::audio_details(&LocalFs::new(), &p) {
        Err(e) => assert_eq!(e.code, ErrorCode::Corrupt, "{e:?}"),
        Ok(d) => assert!(d.cover.is_none(), "{d:?}"),
    }
}
