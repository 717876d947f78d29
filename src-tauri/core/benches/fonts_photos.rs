//! In one run, medians of wall time:
//! - a font's preview: `font_preview(800)` (sandboxed `fc-query` then
//!   `hb-view`, the sample's PNG decoded and encoded again) against
//!   `fc-query` and `hb-view` with the same arguments run alone, one after
//!   the other, on Debian's DejaVu Sans;
//! - a TIFF drawn: `photo_render(800)` (sandboxed `vips thumbnail`, its PNG
//!   decoded and encoded again) against `vips thumbnail` to a PNG file run
//!   alone, on a 3000 x 2000 RGB TIFF (17 MiB, uncompressed) made here.
//!
//! Prints the figures and their ratios; asserts nothing.
//!
//!     cargo bench -p canopy-core --bench fonts_photos

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use canopy_core::{font_preview, photo_render, LocalFs};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// Times `f` `runs` times after one warm-up; the median, in ms.
fn timed(runs: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut v = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        f();
        v.push(t.elapsed().as_secs_f64() * 1e3);
    }
    median(v)
}

/// An uncompressed RGB TIFF of a gradient, one strip.
fn tiff(w: u32, h: u32) -> Vec<u8> {
    let mut pixels = Vec::with_capacity((w * h * 3) as usize);
    for y in 0..h {
        for x in 0..w {
            pixels.extend_from_slice(&[(x * 255 / w) as u8, (y * 255 / h) as u8, 90]);
        }
    }
    let entries: [(u16, u16, u32, u32); 9] = [
        (256, 4, 1, w),
        (257, 4, 1, h),
        (258, 3, 3, 8 + 2 + 12 * 9 + 4),
        (259, 3, 1, 1),
        (262, 3, 1, 2),
        (273, 4, 1, 8 + 2 + 12 * 9 + 4 + 6),
        (277, 3, 1, 3),
        (278, 4, 1, h),
        (279, 4, 1, pixels.len() as u32),
    ];
    let mut out = b"II*\0\x08\0\0\0".to_vec();
    out.extend_from_slice(&9u16.to_le_bytes());
    for (tag, typ, count, value) in entries {
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
    out.extend_from_slice(&[8, 0, 8, 0, 8, 0]);
    out.extend(pixels);
    out
}

fn run(cmd: &mut Command) {
    let out = cmd.output().expect("the tool runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn main() {
    let runs = 15;
    let dir = std::env::temp_dir().join(format!("canopy-fonts-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let font = dir.join("DejaVuSans.ttf");
    std::fs::copy("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", &font)
        .expect("fonts-dejavu-core");
    let f = font_preview(&LocalFs::new(), &font, 800, None).expect("font_preview");
    let text = f.sample_text.clone();
    let tools_alone = timed(runs, || {
        run(Command::new("fc-query")
            .arg("--format")
            .arg("%{family[0]}\n%{charset}\n")
            .arg(&font));
        run(Command::new("hb-view")
            .args([
                "--font-funcs=ft",
                "--font-size=40",
                "--margin=16",
                "--output-format=png",
                "--font-file",
            ])
            .arg(&font)
            .arg("--text")
            .arg(&text));
    });
    let ours = timed(runs, || {
        std::hint::black_box(
            font_preview(&LocalFs::new(), &font, 800, None).expect("font_preview"),
        );
    });
    println!("a font's facts and sample (DejaVu Sans), median of {runs}:");
    println!("  fc-query then hb-view alone:     {tools_alone:.1} ms");
    println!(
        "  canopy font_preview(800):        {ours:.1} ms ({:.2}x)",
        ours / tools_alone
    );

    let photo = dir.join("scan.tif");
    std::fs::write(&photo, tiff(3000, 2000)).unwrap();
    let out = dir.join("own.png");
    let vips_alone = timed(runs, || {
        run(Command::new("vips")
            .arg("thumbnail")
            .arg(&photo)
            .arg(&out)
            .args([
                "800",
                "--height",
                "3200",
                "--size",
                "down",
                "--vips-concurrency=1",
                "--vips-novector",
            ]));
    });
    let drawn = timed(runs, || {
        std::hint::black_box(
            photo_render(&LocalFs::new(), &photo, 800, None).expect("photo_render"),
        );
    });
    println!("a 3000 x 2000 TIFF drawn at 800 px, median of {runs}:");
    println!("  vips thumbnail to a PNG alone:   {vips_alone:.1} ms");
    println!(
        "  canopy photo_render(800):        {drawn:.1} ms ({:.2}x)",
        drawn / vips_alone
    );
    let _ = std::fs::remove_dir_all(Path::new(&dir));
}
