//! Photos the window cannot decode (TIFF, HEIF, AVIF) drawn by `vips` in
//! the sandboxed renderer and encoded again by Canopy. TIFFs are written
//! here byte by byte (so a lying header is easy to make), HEIF and AVIF
//! by libheif's own `heif-enc` from a PNG made here.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine as _;
use canopy_core::preview::{read_preview_bounded, PreviewRequest};
use canopy_core::wire::{MediaKind, PhotoRender};
use canopy_core::{
    names::encode_handle, photo_details, photo_render, CanopyError, ErrorCode, LocalFs,
};
use common::SwapAfterOpen;

/// The colour of the gradient at (x, y) of a `w` x `h` picture.
fn gradient(x: u32, y: u32, w: u32, h: u32) -> [u8; 3] {
    [(x * 255 / w.max(1)) as u8, (y * 255 / h.max(1)) as u8, 90]
}

/// A baseline RGB TIFF, uncompressed, one strip: `claimed` is the size its
/// header says (its pixels are `w` x `h`), with an orientation and a
/// camera maker when given.
fn tiff(
    w: u32,
    h: u32,
    claimed: (u32, u32),
    orientation: Option<u16>,
    make: Option<&str>,
) -> Vec<u8> {
    let mut pixels = Vec::new();
    for y in 0..h {
        for x in 0..w {
            pixels.extend_from_slice(&gradient(x, y, w, h));
        }
    }
    // (tag, type, count, value or offset)
    let mut entries: Vec<(u16, u16, u32, u32)> = vec![
        (256, 4, 1, claimed.0),
        (257, 4, 1, claimed.1),
        (258, 3, 3, 0), // bits per sample: offset filled below
        (259, 3, 1, 1),
        (262, 3, 1, 2),
    ];
    let make = make.map(|m| format!("{m}\0"));
    if let Some(m) = &make {
        entries.push((271, 2, m.len() as u32, 0));
    }
    entries.push((273, 4, 1, 0)); // strip offset: filled below
    if let Some(o) = orientation {
        entries.push((274, 3, 1, u32::from(o)));
    }
    entries.push((277, 3, 1, 3));
    entries.push((278, 4, 1, claimed.1));
    entries.push((279, 4, 1, pixels.len() as u32));
    let ifd_size = 2 + 12 * entries.len() + 4;
    let bps_at = 8 + ifd_size;
    let make_at = bps_at + 6;
    let data_at = make_at + make.as_ref().map_or(0, |m| m.len());
    let mut out = b"II*\0".to_vec();
    out.extend_from_slice(&8u32.to_le_bytes());
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    for (tag, typ, count, value) in entries {
        let value = match tag {
            258 => bps_at as u32,
            271 => make_at as u32,
            273 => data_at as u32,
            _ => value,
        };
        out.extend_from_slice(&tag.to_le_bytes());
        out.extend_from_slice(&typ.to_le_bytes());
        out.extend_from_slice(&count.to_le_bytes());
        if typ == 3 && count == 1 {
            out.extend_from_slice(&(value as u16).to_le_bytes());
            out.extend_from_slice(&[0, 0]);
        } else {
            out.extend_from_slice(&value.to_le_bytes());
        }
    }
    out.extend_from_slice(&0u32.to_le_bytes());
    for _ in 0..3 {
        out.extend_from_slice(&8u16.to_le_bytes());
    }
    if let Some(m) = &make {
        out.extend_from_slice(m.as_bytes());
    }
    out.extend(pixels);
    out
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn render(p: &Path, width: u32) -> Result<PhotoRender, CanopyError> {
    photo_render(&LocalFs::new(), p, width, None)
}

fn pixels(r: &PhotoRender) -> image::RgbaImage {
    let png = base64::engine::general_purpose::STANDARD
        .decode(&r.png_base64)
        .unwrap();
    let img = image::load_from_memory_with_format(&png, image::ImageFormat::Png)
        .unwrap()
        .to_rgba8();
    assert_eq!((img.width(), img.height()), (r.width, r.height));
    img
}

fn near(a: [u8; 3], b: [u8; 3], by: u8) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= by)
}

#[test]
fn tiff_is_drawn_at_the_panes_width_with_its_colours() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "scan.tif",
        &tiff(300, 200, (300, 200), None, None),
    );
    let r = render(&p, 150).unwrap();
    assert_eq!(r.format, "TIFF");
    assert_eq!((r.width, r.height), (150, 100));
    assert!(r.network_isolated, "the renderer had no network");
    let img = pixels(&r);
    for (x, y) in [(10, 10), (75, 50), (140, 90)] {
        let got = img.get_pixel(x, y).0;
        let want = gradient(x * 2, y * 2, 300, 200);
        assert!(
            near([got[0], got[1], got[2]], want, 6),
            "({x},{y}): {got:?} for {want:?}"
        );
    }
    let big = render(&p, 2000).unwrap();
    assert_eq!((big.width, big.height), (300, 200), "never enlarged");
}

#[test]
fn tiff_drawn_equals_vips_own_drawing() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "scan.tif",
        &tiff(240, 160, (240, 160), None, None),
    );
    let r = render(&p, 100).unwrap();
    let own = dir.path().join("own.png");
    let status = Command::new("vips")
        .arg("thumbnail")
        .arg(&p)
        .arg(&own)
        .args(["100", "--height", "400", "--size", "down"])
        .status()
        .expect("these tests need libvips-tools");
    assert!(status.success());
    let own = image::open(&own).unwrap().to_rgba8();
    let ours = pixels(&r);
    assert_eq!(ours.dimensions(), own.dimensions());
    let off = ours
        .pixels()
        .zip(own.pixels())
        .filter(|(a, b)| !near([a.0[0], a.0[1], a.0[2]], [b.0[0], b.0[1], b.0[2]], 1))
        .count();
    assert_eq!(off, 0, "the same pixels as vips's own file");
}

#[test]
fn tiff_orientation_is_applied() {
    let dir = tempfile::tempdir().unwrap();
    // Orientation 6: the camera was turned; shown, it stands up.
    let p = write(
        dir.path(),
        "turned.tif",
        &tiff(120, 60, (120, 60), Some(6), None),
    );
    let r = render(&p, 600).unwrap();
    assert_eq!((r.width, r.height), (60, 120), "turned 90°");
}

#[test]
fn tiff_details_still_come_from_its_exif() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "cam.tif",
        &tiff(40, 30, (40, 30), Some(1), Some("Canopy Cam")),
    );
    let d = photo_details(&LocalFs::new(), &p).unwrap();
    assert!(d.has_exif);
    assert_eq!(d.camera.as_deref(), Some("Canopy Cam"));
    assert_eq!((d.width, d.height), (Some(40), Some(30)));
    let chunk = read_preview_bounded(&PreviewRequest {
        handle: encode_handle(&p),
        offset: 0,
        length: 4096,
    })
    .unwrap();
    assert_eq!(chunk.media, Some(MediaKind::Photo));
    assert_eq!(
        chunk.image, None,
        "the window does not decode a TIFF itself"
    );
}

/// A PNG of the gradient, then `heif-enc` (libheif-examples) with `args`.
fn heif(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let png = dir.join(format!("{name}.png"));
    let img = image::RgbImage::from_fn(128, 64, |x, y| image::Rgb(gradient(x, y, 128, 64)));
    img.save(&png).unwrap();
    let out = dir.join(name);
    let status = Command::new("heif-enc")
        .args(args)
        .arg("-o")
        .arg(&out)
        .arg(&png)
        .output()
        .expect("these tests need libheif-examples (scripts/setup.sh installs it)");
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    out
}

#[test]
fn heic_and_avif_are_drawn_by_libheifs_decoders() {
    let dir = tempfile::tempdir().unwrap();
    for (name, args, format) in [
        ("photo.heic", &[][..], "HEIF"),
        ("photo.avif", &["-A"][..], "AVIF"),
    ] {
        let p = heif(dir.path(), name, args);
        let r = render(&p, 64).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert_eq!(r.format, format);
        assert_eq!((r.width, r.height), (64, 32), "{name}");
        let img = pixels(&r);
        let got = img.get_pixel(48, 24).0;
        assert!(
            near([got[0], got[1], got[2]], gradient(96, 48, 128, 64), 20),
            "{name}: {got:?} (lossy, but the same picture)"
        );
    }
}

#[test]
fn hostile_photos_are_render_failures_never_a_hang_or_crash() {
    let dir = tempfile::tempdir().unwrap();
    let mut huge = tiff(8, 8, (100_000, 100_000), None, None);
    let cut = tiff(300, 200, (300, 200), None, None);
    let mut junk = b"II*\0".to_vec();
    junk.extend((0..4000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8));
    huge.truncate(huge.len());
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("huge.tif", huge),
        ("cut.tif", cut[..cut.len() / 4].to_vec()),
        ("junk.tif", junk),
        ("fake.heic", b"\0\0\0\x18ftypheic\0\0\0\0mif1heic".to_vec()),
    ];
    for (name, bytes) in cases {
        let p = write(dir.path(), name, &bytes);
        let err = render(&p, 400).unwrap_err();
        assert!(
            matches!(err.code, ErrorCode::RenderFailed | ErrorCode::Timeout),
            "{name}: {err:?}"
        );
    }
}

#[test]
fn photo_render_refuses_what_the_window_shows_itself_and_never_opens_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let jpeg = write(dir.path(), "a.jpg", b"\xff\xd8\xff\xe0\0\x10JFIF\0");
    assert_eq!(render(&jpeg, 100).unwrap_err().code, ErrorCode::Unsupported);
    let fifo = dir.path().join("pipe.tif");
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY (test): making a fifo at a path of our own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    assert_eq!(render(&fifo, 100).unwrap_err().code, ErrorCode::NotAFile);
}

#[test]
fn link_swapped_after_open_still_draws_the_first_photo() {
    let dir = tempfile::tempdir().unwrap();
    let first = write(
        dir.path(),
        "wide.tif",
        &tiff(200, 50, (200, 50), None, None),
    );
    let other = write(
        dir.path(),
        "tall.tif",
        &tiff(50, 200, (50, 200), None, None),
    );
    let link = dir.path().join("chosen.tif");
    std::os::unix::fs::symlink(&first, &link).unwrap();
    let source = SwapAfterOpen {
        link: link.clone(),
        other,
    };
    let r = photo_render(&source, &link, 800, None).unwrap();
    assert_eq!(
        (r.width, r.height),
        (200, 50),
        "the descriptor keeps the first file"
    );
}
