//! Fonts as people open them: their facts (`fc-query`) and a sample line
//! (`hb-view`) through the sandboxed renderer, the font never loaded by the
//! app. The fonts are Debian's DejaVu (fonts-dejavu-core, which fontconfig
//! depends on) copied here, wrapped here as WOFF, WOFF2 (`woff2_compress`)
//! and a collection; hostile ones are cut, made of junk or fuzzed.

use crate::common;

use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine as _;
use canopy_core::cancel::CancelToken;
use canopy_core::preview::{read_preview_bounded, PreviewRequest};
use canopy_core::wire::{FontPreview, MediaKind};
use canopy_core::{font_preview, names::encode_handle, CanopyError, ErrorCode, LocalFs};
use common::SwapAfterOpen;

const DEJAVU: &str = "/usr/share/fonts/truetype/dejavu";

/// Debian's font `name`, copied into `dir`.
fn dejavu(dir: &Path, name: &str) -> PathBuf {
    let to = dir.join(name);
    std::fs::copy(Path::new(DEJAVU).join(name), &to)
        .expect("these tests need fonts-dejavu-core (scripts/setup.sh installs it)");
    to
}

fn preview(p: &Path, width: u32) -> Result<FontPreview, CanopyError> {
    font_preview(&LocalFs::new(), p, width, None)
}

/// The sample's pixels, decoded.
fn sample_image(f: &FontPreview) -> image::RgbaImage {
    let s = f
        .sample
        .as_ref()
        .unwrap_or_else(|| panic!("a sample: {:?}", f.sample_error));
    let png = base64::engine::general_purpose::STANDARD
        .decode(&s.png_base64)
        .unwrap();
    let img = image::load_from_memory_with_format(&png, image::ImageFormat::Png)
        .unwrap()
        .to_rgba8();
    assert_eq!((img.width(), img.height()), (s.width, s.height));
    img
}

/// `fc-query`'s own answer for `path` (run by the test, outside the sandbox).
fn fc_query(path: &Path, format: &str) -> String {
    let out = Command::new("fc-query")
        .args(["--index=0", "--format", format])
        .arg(path)
        .output()
        .expect("these tests need fontconfig");
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn font_facts_equal_fc_querys_own() {
    let dir = tempfile::tempdir().unwrap();
    let mut seen = 0;
    for entry in std::fs::read_dir(DEJAVU).unwrap() {
        let name = entry.unwrap().file_name();
        let p = dejavu(dir.path(), name.to_str().unwrap());
        let f = preview(&p, 800).unwrap();
        let own = fc_query(
            &p,
            "%{family[0]}\n%{style[0]}\n%{fullname[0]}\n%{charset}\n%{spacing}\n%{fontversion}",
        );
        let lines: Vec<&str> = own.split('\n').collect();
        assert_eq!(f.family, lines[0], "{name:?}");
        assert_eq!(f.style.as_deref(), Some(lines[1]), "{name:?}");
        assert_eq!(f.full_name.as_deref(), Some(lines[2]), "{name:?}");
        let covered: u32 = lines[3]
            .split_whitespace()
            .map(|r| {
                let (a, b) = r.split_once('-').unwrap_or((r, r));
                u32::from_str_radix(b, 16).unwrap() - u32::from_str_radix(a, 16).unwrap() + 1
            })
            .sum();
        assert_eq!(f.characters, Some(covered), "{name:?}");
        assert_eq!(f.monospaced, lines[4] == "100", "{name:?}");
        assert_eq!(f.container, "TrueType");
        assert_eq!(f.faces, 1);
        assert!(!f.variable);
        let version = lines[5].parse::<f64>().unwrap() / 65536.0;
        assert_eq!(f.version, Some(format!("{version:.3}")), "{name:?}");
        assert!(f.sample_error.is_none(), "{name:?}: {:?}", f.sample_error);
        seen += 1;
    }
    assert!(seen >= 6, "fonts-dejavu-core has its fonts: {seen}");
}

#[test]
fn weight_and_slant_are_on_the_opentype_scale() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("DejaVuSans.ttf", Some(400), None),
        ("DejaVuSans-Bold.ttf", Some(700), None),
        ("DejaVuSans-ExtraLight.ttf", Some(200), None),
        ("DejaVuSerif-Italic.ttf", Some(400), Some("italic")),
        ("DejaVuSans-BoldOblique.ttf", Some(700), Some("oblique")),
    ];
    for (name, weight, slant) in cases {
        let f = preview(&dejavu(dir.path(), name), 800).unwrap();
        assert_eq!(f.weight, weight, "{name}");
        assert_eq!(f.slant.as_deref(), slant, "{name}");
    }
    let mono = preview(&dejavu(dir.path(), "DejaVuSansMono.ttf"), 800).unwrap();
    assert!(mono.monospaced);
}

#[test]
fn sample_is_hb_views_drawing_at_most_the_panes_width() {
    let dir = tempfile::tempdir().unwrap();
    let p = dejavu(dir.path(), "DejaVuSans.ttf");
    let wide = preview(&p, 2400).unwrap();
    assert_eq!(wide.sample_text, canopy_core::media::PANGRAM);
    // hb-view run by the test on the same font and text: the same picture size.
    let own = Command::new("hb-view")
        .args([
            "--font-funcs=ft",
            "--font-size=40",
            "--margin=16",
            "--output-format=png",
            "--text",
        ])
        .arg(&wide.sample_text)
        .args(["--font-file"])
        .arg(&p)
        .output()
        .expect("these tests need libharfbuzz-bin");
    assert!(
        own.status.success(),
        "{}",
        String::from_utf8_lossy(&own.stderr)
    );
    let own = image::load_from_memory(&own.stdout).unwrap();
    let img = sample_image(&wide);
    assert_eq!((img.width(), img.height()), (own.width(), own.height()));
    assert!(img.height() > 80, "two lines: {}", img.height());
    let dark = img
        .pixels()
        .filter(|p| p.0[0] < 100 && p.0[3] > 200)
        .count();
    assert!(dark > 500, "ink on the sample: {dark} dark pixels");
    let narrow = preview(&p, 300).unwrap();
    assert_eq!(
        narrow.sample.as_ref().unwrap().width,
        300,
        "shrunk to the pane"
    );
    assert!(narrow.network_isolated, "the renderer had no network");
}

#[test]
fn font_is_told_by_its_first_bytes_not_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let disguised = dir.path().join("notes.txt");
    std::fs::copy(Path::new(DEJAVU).join("DejaVuSans.ttf"), &disguised).unwrap();
    let faked = dir.path().join("font.ttf");
    std::fs::write(&faked, b"just some words, no font at all\n").unwrap();
    let media = |p: &Path| {
        read_preview_bounded(&PreviewRequest {
            handle: encode_handle(p),
            offset: 0,
            length: 4096,
        })
        .unwrap()
        .media
    };
    assert_eq!(media(&disguised), Some(MediaKind::Font));
    assert_eq!(media(&faked), None);
    assert_eq!(preview(&disguised, 400).unwrap().family, "DejaVu Sans");
    assert_eq!(
        preview(&faked, 400).unwrap_err().code,
        ErrorCode::Unsupported
    );
}

/// The sfnt's tables: (tag, offset, length).
fn tables(font: &[u8]) -> Vec<([u8; 4], usize, usize)> {
    let n = u16::from_be_bytes([font[4], font[5]]) as usize;
    (0..n)
        .map(|i| {
            let r = &font[12 + 16 * i..28 + 16 * i];
            let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize;
            ([r[0], r[1], r[2], r[3]], be(&r[8..12]), be(&r[12..16]))
        })
        .collect()
}

fn pad4(v: &mut Vec<u8>) {
    while !v.len().is_multiple_of(4) {
        v.push(0);
    }
}

/// `font` as WOFF 1.0 with its tables stored uncompressed (as the format allows).
fn woff(font: &[u8]) -> Vec<u8> {
    let t = tables(font);
    let mut body = Vec::new();
    let mut dir = Vec::new();
    let data_start = 44 + 20 * t.len();
    let mut sfnt_size = 12 + 16 * t.len();
    for (i, (tag, off, len)) in t.iter().enumerate() {
        let at = data_start + body.len();
        body.extend_from_slice(&font[*off..off + len]);
        pad4(&mut body);
        let checksum = &font[12 + 16 * i + 4..12 + 16 * i + 8];
        dir.extend_from_slice(tag);
        dir.extend_from_slice(&(at as u32).to_be_bytes());
        dir.extend_from_slice(&(*len as u32).to_be_bytes());
        dir.extend_from_slice(&(*len as u32).to_be_bytes());
        dir.extend_from_slice(checksum);
        sfnt_size += (len + 3) & !3;
    }
    let mut out = b"wOFF".to_vec();
    out.extend_from_slice(&font[0..4]);
    out.extend_from_slice(&((data_start + body.len()) as u32).to_be_bytes());
    out.extend_from_slice(&(t.len() as u16).to_be_bytes());
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&(sfnt_size as u32).to_be_bytes());
    out.extend_from_slice(&[0, 1, 0, 0]);
    out.extend_from_slice(&[0; 20]);
    out.extend(dir);
    out.extend(body);
    out
}

/// The fonts as one collection (`ttcf`), each font's table offsets moved.
fn collection(fonts: &[Vec<u8>]) -> Vec<u8> {
    let mut out = b"ttcf\0\x01\0\0".to_vec();
    out.extend_from_slice(&(fonts.len() as u32).to_be_bytes());
    let mut at = 12 + 4 * fonts.len();
    let mut placed = Vec::new();
    for f in fonts {
        out.extend_from_slice(&(at as u32).to_be_bytes());
        placed.push(at);
        at += (f.len() + 3) & !3;
    }
    for (f, base) in fonts.iter().zip(placed) {
        assert_eq!(out.len(), base);
        let mut f = f.clone();
        for i in 0..tables(&f).len() {
            let r = 12 + 16 * i + 8;
            let off = u32::from_be_bytes([f[r], f[r + 1], f[r + 2], f[r + 3]]) as usize + base;
            f[r..r + 4].copy_from_slice(&(off as u32).to_be_bytes());
        }
        out.extend(f);
        pad4(&mut out);
    }
    out
}

#[test]
fn woff_and_woff2_read_as_the_font_they_wrap() {
    let dir = tempfile::tempdir().unwrap();
    let ttf = dejavu(dir.path(), "DejaVuSerif-Bold.ttf");
    let plain = preview(&ttf, 800).unwrap();
    let w1 = dir.path().join("serif.woff");
    std::fs::write(&w1, woff(&std::fs::read(&ttf).unwrap())).unwrap();
    let status = Command::new("woff2_compress")
        .arg(&ttf)
        .output()
        .expect("these tests need woff2 (scripts/setup.sh installs it)");
    assert!(status.status.success());
    let w2 = dir.path().join("DejaVuSerif-Bold.woff2");
    for (p, container) in [(&w1, "WOFF"), (&w2, "WOFF2")] {
        let f = preview(p, 800).unwrap();
        assert_eq!(f.container, container);
        assert_eq!(
            (&f.family, &f.style, f.weight, f.characters),
            (&plain.family, &plain.style, plain.weight, plain.characters),
            "{container}: the facts of the font it wraps"
        );
        // Its sample is drawn (by FreeType, which reads both).
        let img = sample_image(&f);
        assert_eq!(
            (img.width(), img.height()),
            (
                plain.sample.as_ref().unwrap().width,
                plain.sample.as_ref().unwrap().height
            ),
            "{container}: the same sample as the plain font's"
        );
    }
}

#[test]
fn collection_counts_its_faces_and_shows_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let fonts: Vec<Vec<u8>> = [
        "DejaVuSansMono.ttf",
        "DejaVuSansMono-Bold.ttf",
        "DejaVuSans.ttf",
    ]
    .iter()
    .map(|n| std::fs::read(dejavu(dir.path(), n)).unwrap())
    .collect();
    let ttc = dir.path().join("family.ttc");
    std::fs::write(&ttc, collection(&fonts)).unwrap();
    let f = preview(&ttc, 800).unwrap();
    assert_eq!(f.container, "font collection");
    assert_eq!(f.faces, 3);
    assert_eq!(
        (f.family.as_str(), f.style.as_deref()),
        ("DejaVu Sans Mono", Some("Book"))
    );
    assert_eq!(
        fc_query(&ttc, "%{family[0]}"),
        f.family,
        "fc-query's own first face"
    );
    assert!(f.sample.is_some(), "{:?}", f.sample_error);
}

#[test]
fn garbage_and_cut_fonts_are_render_failures() {
    let dir = tempfile::tempdir().unwrap();
    let real = std::fs::read(dejavu(dir.path(), "DejaVuSans.ttf")).unwrap();
    let mut junk = real[..32].to_vec();
    junk.extend((0..5000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
    let cases = [
        ("junk.ttf", junk),
        ("cut.ttf", real[..real.len() / 3].to_vec()),
        ("header-only.ttf", real[..12 + 16 * 3].to_vec()),
        ("empty-woff.woff", b"wOFF\0\x01\0\0".to_vec()),
        (
            "lying.ttc",
            b"ttcf\0\x01\0\0\xff\xff\xff\xff\0\0\0\x10".to_vec(),
        ),
    ];
    for (name, bytes) in cases {
        let p = dir.path().join(name);
        std::fs::write(&p, &bytes).unwrap();
        let err = preview(&p, 400).unwrap_err();
        assert_eq!(err.code, ErrorCode::RenderFailed, "{name}: {err:?}");
    }
}

#[test]
fn fuzzed_fonts_are_answered_with_facts_or_a_failure_never_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let real = std::fs::read(dejavu(dir.path(), "DejaVuSansMono.ttf")).unwrap();
    let glyf = tables(&real).into_iter().find(|t| &t.0 == b"glyf").unwrap();
    let mut seed: u64 = 0x5eed_f0a7;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let p = dir.path().join("fuzzed.ttf");
    let mut outcomes = std::collections::BTreeMap::new();
    for round in 0..24 {
        let mut f = real.clone();
        // A third of the rounds hit the table directory and headers, a
        // third anywhere, a third the glyphs; the first 16 bytes, which say
        // it is a font, are left alone.
        let hits = if round % 3 == 0 { 24 } else { 4000 };
        for _ in 0..hits {
            let at = match round % 3 {
                0 => 16 + (next() as usize) % (16 * 20),
                1 => 16 + (next() as usize) % (f.len() - 16),
                _ => glyf.1 + (next() as usize) % glyf.2,
            };
            f[at] = next() as u8;
        }
        std::fs::write(&p, &f).unwrap();
        let outcome = match preview(&p, 400) {
            Ok(fp) => match fp.sample_error {
                None => "facts and sample".to_string(),
                Some(e) => {
                    assert!(
                        matches!(e.code, ErrorCode::RenderFailed | ErrorCode::Timeout),
                        "round {round}: {e:?}"
                    );
                    format!("facts, sample {}", e.code)
                }
            },
            Err(e) => {
                assert!(
                    matches!(e.code, ErrorCode::RenderFailed | ErrorCode::Timeout),
                    "round {round}: {e:?}"
                );
                format!("{}", e.code)
            }
        };
        *outcomes.entry(outcome).or_insert(0) += 1;
    }
    eprintln!("fuzzed fonts (seed 0x5eedf0a7): {outcomes:?}");
    assert!(
        outcomes.len() > 1,
        "the fuzzing reaches the failures it is for (seed 0x5eedf0a7): {outcomes:?}"
    );
}

#[test]
fn fifo_named_like_a_font_is_never_opened() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.ttf");
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY (test): making a fifo at a path of our own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    assert_eq!(preview(&fifo, 400).unwrap_err().code, ErrorCode::NotAFile);
}

#[test]
fn link_swapped_after_open_still_shows_the_first_font() {
    let dir = tempfile::tempdir().unwrap();
    let first = dejavu(dir.path(), "DejaVuSans.ttf");
    let other = dejavu(dir.path(), "DejaVuSerif.ttf");
    let link = dir.path().join("chosen.ttf");
    std::os::unix::fs::symlink(&first, &link).unwrap();
    let source = SwapAfterOpen {
        link: link.clone(),
        other,
    };
    let f = font_preview(&source, &link, 400, None).unwrap();
    assert_eq!(
        f.family, "DejaVu Sans",
        "the descriptor keeps the first file"
    );
    assert_eq!(
        std::fs::read_link(&link).unwrap().file_name().unwrap(),
        "DejaVuSerif.ttf",
        "the link was swapped before the tools ran"
    );
}

#[test]
fn cancelled_font_preview_answers_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let p = dejavu(dir.path(), "DejaVuSans.ttf");
    let token = CancelToken::default();
    token.cancel();
    let err = font_preview(&LocalFs::new(), &p, 400, Some(&token)).unwrap_err();
    assert_eq!(err.code, ErrorCode::Cancelled);
}

#[test]
fn sample_png_is_canopys_own() {
    // What reaches the window decodes as an ordinary 8-bit RGBA PNG.
    let dir = tempfile::tempdir().unwrap();
    let f = preview(&dejavu(dir.path(), "DejaVuSans.ttf"), 500).unwrap();
    let png = base64::engine::general_purpose::STANDARD
        .decode(&f.sample.unwrap().png_base64)
        .unwrap();
    let dec = image::codecs::png::PngDecoder::new(Cursor::new(&png)).unwrap();
    use image::ImageDecoder as _;
    assert_eq!(dec.color_type(), image::ColorType::Rgba8);
}

#[test]
fn font_claiming_giant_glyphs_is_drawn_within_the_pane_or_refused() {
    // units-per-em 16 instead of 2048: every glyph 128 times its size, so
    // the sample line would be some 100,000 pixels wide.
    let dir = tempfile::tempdir().unwrap();
    let mut f = std::fs::read(dejavu(dir.path(), "DejaVuSans.ttf")).unwrap();
    let head = tables(&f).into_iter().find(|t| &t.0 == b"head").unwrap();
    f[head.1 + 18..head.1 + 20].copy_from_slice(&16u16.to_be_bytes());
    let p = dir.path().join("giant.ttf");
    std::fs::write(&p, &f).unwrap();
    let got = preview(&p, 800).unwrap();
    assert_eq!(got.family, "DejaVu Sans", "the facts are read");
    match (&got.sample, &got.sample_error) {
        (Some(s), None) => assert!(
            s.width <= 800 && s.height <= 800 * 16,
            "{}x{}",
            s.width,
            s.height
        ),
        (None, Some(e)) => assert!(
            matches!(
                e.code,
                ErrorCode::RenderFailed | ErrorCode::Timeout | ErrorCode::TooLarge
            ),
            "{e:?}"
        ),
        other => panic!("a sample or why not: {other:?}"),
    }
}
