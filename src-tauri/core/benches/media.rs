//! In one run, medians of wall time:
//! - the first page of a 200-page PDF: Canopy's `pdf_document` and
//!   `pdf_page(1, 800)` (sandboxed pdfinfo; pdftoppm and pdftotext side by
//!   side, the page's pixels encoded as a PNG by the app), one after the
//!   other and side by side as the window asks them, against `pdftoppm -f 1
//!   -l 1 -scale-to 800 -png` run alone (and, for scale, the same at the
//!   pane's 800 x 1035, pdfinfo alone, and a 2400-wide page);
//! - an audio file's tags: `audio_details` against `ffprobe -show_format`
//!   (when installed; else the absolute figure).
//! - a video's poster frame: `video_poster(800)` (sandboxed
//!   ffmpegthumbnailer, its PNG decoded and encoded again) against
//!   `ffmpegthumbnailer -s 800 -c png -o -` run alone, on a 30 s 1280 x 720
//!   H.264/AAC MP4 made by ffmpeg; its facts, `video_details` against
//!   `ffprobe` with the same arguments; and both side by side, as the
//!   window asks them.
//!
//! Prints the figures and their ratios; asserts nothing.
//!
//!     cargo bench -p canopy-core --bench media
//!     cargo bench -p canopy-core --bench media -- pdf    (the PDF figures only)

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use canopy_core::{audio_details, pdf_document, pdf_page, video_details, video_poster, LocalFs};

/// A PDF of `n` pages, each a line of text and a few shapes.
fn pdf(n: usize) -> Vec<u8> {
    let mut objs: Vec<String> = Vec::new();
    let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 4 + 2 * i)).collect();
    objs.push("<< /Type /Catalog /Pages 2 0 R >>".into());
    objs.push(format!(
        "<< /Type /Pages /Kids [{}] /Count {n} >>",
        kids.join(" ")
    ));
    objs.push("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".into());
    for i in 0..n {
        objs.push(format!("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents {} 0 R >>", 5 + 2 * i));
        let mut body = String::new();
        for l in 0..40 {
            body.push_str(&format!("BT /F1 11 Tf 60 {} Td (Page {} line {l}: the quick brown fox jumps over the lazy dog) Tj ET\n", 740 - 17 * l, i + 1));
        }
        body.push_str("0.2 0.4 0.8 rg 60 40 300 20 re f");
        objs.push(format!(
            "<< /Length {} >>\nstream\n{body}\nendstream",
            body.len()
        ));
    }
    let mut out = String::from("%PDF-1.4\n");
    let mut offsets = Vec::new();
    for (i, o) in objs.iter().enumerate() {
        offsets.push(out.len());
        out.push_str(&format!("{} 0 obj\n{o}\nendobj\n", i + 1));
    }
    let xref = out.len();
    out.push_str(&format!(
        "xref\n0 {}\n0000000000 65535 f \n",
        objs.len() + 1
    ));
    for o in offsets {
        out.push_str(&format!("{o:010} 00000 n \n"));
    }
    out.push_str(&format!(
        "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
        objs.len() + 1
    ));
    out.into_bytes()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let runs = 15;
    // `cargo bench -p canopy-core --bench media -- pdf`: the PDF figures only.
    let only_pdf = std::env::args().skip(1).any(|a| a == "pdf");
    let dir = std::env::temp_dir().join(format!("canopy-pdf-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("200-pages.pdf");
    std::fs::write(&path, pdf(200)).unwrap();
    pdf_figures(&path, runs);
    if !only_pdf {
        audio(&dir, runs);
        video(&dir, runs);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `program` with `args` and the file; the wall time, in s.
fn alone(program: &str, args: &[&str], p: &Path) -> f64 {
    let t = Instant::now();
    let out = Command::new(program)
        .args(args)
        .arg(p)
        .output()
        .expect(program);
    assert!(out.status.success() && !out.stdout.is_empty());
    t.elapsed().as_secs_f64()
}

fn pdf_figures(path: &Path, runs: usize) {
    const ISSUE: &[&str] = &["-f", "1", "-l", "1", "-scale-to", "800", "-png"];
    const PANE: &[&str] = &[
        "-f",
        "1",
        "-l",
        "1",
        "-scale-to-x",
        "800",
        "-scale-to-y",
        "-1",
        "-png",
    ];
    const WIDE: &[&str] = &[
        "-f",
        "1",
        "-l",
        "1",
        "-scale-to-x",
        "2400",
        "-scale-to-y",
        "-1",
        "-png",
    ];
    let serial = |p: &Path| {
        let t = Instant::now();
        let doc = pdf_document(&LocalFs::new(), p, None).expect("pdf_document");
        assert_eq!(doc.pages, 200);
        let page = pdf_page(&LocalFs::new(), p, 1, 800, None).expect("pdf_page");
        std::hint::black_box(page);
        t.elapsed().as_secs_f64()
    };
    // As the window asks: the facts and the first page side by side; the
    // page is on screen when its answer comes.
    let window = |p: &Path| {
        let t = Instant::now();
        std::thread::scope(|s| {
            let doc = s.spawn(|| {
                let doc = pdf_document(&LocalFs::new(), p, None).expect("pdf_document");
                (doc, t.elapsed().as_secs_f64())
            });
            let page = pdf_page(&LocalFs::new(), p, 1, 800, None).expect("pdf_page");
            let shown = t.elapsed().as_secs_f64();
            let (doc, facts) = doc.join().unwrap();
            assert_eq!(doc.pages, 200);
            std::hint::black_box(page);
            (shown, shown.max(facts))
        })
    };
    let facts = |p: &Path| {
        let t = Instant::now();
        std::hint::black_box(pdf_document(&LocalFs::new(), p, None).expect("pdf_document"));
        t.elapsed().as_secs_f64()
    };
    let wide = |p: &Path| {
        let t = Instant::now();
        let page = pdf_page(&LocalFs::new(), p, 1, 2400, None).expect("pdf_page");
        assert_eq!(page.width, 2400);
        std::hint::black_box(page);
        t.elapsed().as_secs_f64()
    };
    // Warm the page cache and the programs once.
    alone("pdftoppm", ISSUE, path);
    serial(path);
    window(path);
    let mut v: [Vec<f64>; 9] = Default::default();
    for _ in 0..runs {
        v[0].push(alone("pdftoppm", ISSUE, path));
        v[1].push(alone("pdftoppm", PANE, path));
        v[2].push(serial(path));
        let (shown, both) = window(path);
        v[3].push(shown);
        v[4].push(both);
        v[5].push(alone("pdfinfo", &["-enc", "UTF-8"], path));
        v[6].push(facts(path));
        v[7].push(alone("pdftoppm", WIDE, path));
        v[8].push(wide(path));
    }
    let m: Vec<f64> = v.into_iter().map(|x| median(x) * 1e3).collect();
    println!("first page of a 200-page PDF, median of {runs} (ms; x = against the first line):");
    println!(
        "  pdftoppm -f 1 -l 1 -scale-to 800 -png alone:              {:7.1}",
        m[0]
    );
    println!(
        "  pdftoppm ... -scale-to-x 800 -scale-to-y -1 -png alone:   {:7.1} ({:.2}x; the pane's 800 x 1035, not 619 x 800)",
        m[1],
        m[1] / m[0]
    );
    println!(
        "  canopy pdf_document, then pdf_page(1, 800):               {:7.1} ({:.2}x)",
        m[2],
        m[2] / m[0]
    );
    println!(
        "  canopy pdf_document beside pdf_page(1, 800), the window:  {:7.1} ({:.2}x) to the page, {:.1} to both",
        m[3],
        m[3] / m[0],
        m[4]
    );
    println!(
        "  pdfinfo alone / canopy pdf_document (one sandboxed job):  {:7.1} / {:.1}",
        m[5], m[6]
    );
    println!(
        "  pdftoppm -scale-to-x 2400 -png alone / canopy pdf_page(1, 2400): {:.1} / {:.1} ({:.2}x)",
        m[7],
        m[8],
        m[8] / m[7]
    );
}

/// Ten seconds of 44.1 kHz stereo silence as WAV, with a RIFF INFO title.
fn wav() -> Vec<u8> {
    let data = vec![0u8; 44_100 * 4 * 10];
    let info = b"INFOINAM\x0c\0\0\0Bench title\0";
    let mut body = b"WAVEfmt ".to_vec();
    body.extend_from_slice(&16u32.to_le_bytes());
    for v in [1u16, 2] {
        body.extend_from_slice(&v.to_le_bytes());
    }
    body.extend_from_slice(&44_100u32.to_le_bytes());
    body.extend_from_slice(&(44_100u32 * 4).to_le_bytes());
    body.extend_from_slice(&4u16.to_le_bytes());
    body.extend_from_slice(&16u16.to_le_bytes());
    body.extend_from_slice(b"data");
    body.extend_from_slice(&(data.len() as u32).to_le_bytes());
    body.extend_from_slice(&data);
    body.extend_from_slice(b"LIST");
    body.extend_from_slice(&(info.len() as u32).to_le_bytes());
    body.extend_from_slice(info);
    let mut out = b"RIFF".to_vec();
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(&body);
    out
}

fn audio(dir: &Path, runs: usize) {
    let path = dir.join("song.wav");
    std::fs::write(&path, wav()).unwrap();
    let canopy = || {
        let t = Instant::now();
        let d = audio_details(&LocalFs::new(), &path).expect("audio_details");
        assert_eq!(d.title.as_deref(), Some("Bench title"));
        t.elapsed().as_secs_f64()
    };
    canopy();
    let c = median((0..runs).map(|_| canopy()).collect());
    let ffprobe = Path::new("/usr/bin/ffprobe");
    if ffprobe.exists() {
        let probe = || {
            let t = Instant::now();
            let out = Command::new(ffprobe)
                .args(["-v", "quiet", "-show_format"])
                .arg(&path)
                .output()
                .expect("ffprobe");
            assert!(out.status.success());
            t.elapsed().as_secs_f64()
        };
        probe();
        let f = median((0..runs).map(|_| probe()).collect());
        println!("an audio file's tags, median of {runs}:");
        println!("  ffprobe -show_format:  {:.2} ms", f * 1e3);
        println!("  canopy audio_details:  {:.2} ms ({:.2}x)", c * 1e3, c / f);
    } else {
        println!("an audio file's tags, median of {runs}: canopy audio_details {:.2} ms (ffprobe not installed)", c * 1e3);
    }
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

fn video(dir: &Path, runs: usize) {
    let path = dir.join("clip.mp4");
    let made = Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i"])
        .args(["testsrc2=size=1280x720:rate=30", "-f", "lavfi", "-i"])
        .args(["sine=frequency=440:sample_rate=48000", "-t", "30"])
        .args([
            "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p",
        ])
        .args(["-c:a", "aac", "-y"])
        .arg(&path)
        .status();
    if !matches!(made, Ok(s) if s.success()) {
        println!("video: ffmpeg is not installed; no figures");
        return;
    }
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    let thumb_alone = timed(runs, || {
        let out = Command::new("ffmpegthumbnailer")
            .args(["-s", "800", "-c", "png", "-t", "10%", "-o", "-", "-i"])
            .arg(&path)
            .output()
            .expect("ffmpegthumbnailer");
        assert!(out.status.success() && !out.stdout.is_empty());
    });
    let poster = timed(runs, || {
        std::hint::black_box(
            video_poster(&LocalFs::new(), &path, 800, None).expect("video_poster"),
        );
    });
    let probe_alone = timed(runs, || {
        let out = Command::new("ffprobe")
            .args(["-v", "error", "-print_format", "json", "-show_entries"])
            .arg("format=format_name,duration,bit_rate:stream=codec_type,codec_name,codec_long_name,profile,level,width,height,sample_rate,channels,avg_frame_rate,r_frame_rate:stream_disposition=attached_pic:stream_side_data=rotation")
            .arg(&path)
            .output()
            .expect("ffprobe");
        assert!(out.status.success());
    });
    let details = timed(runs, || {
        std::hint::black_box(video_details(&LocalFs::new(), &path, None).expect("video_details"));
    });
    let both = timed(runs, || {
        std::thread::scope(|s| {
            let d = s.spawn(|| video_details(&LocalFs::new(), &path, None));
            let p = video_poster(&LocalFs::new(), &path, 800, None).expect("video_poster");
            std::hint::black_box((p, d.join().unwrap().expect("video_details")));
        });
    });
    println!(
        "a video's poster frame and facts (30 s, 1280 x 720 H.264/AAC MP4, {:.1} MiB), median of {runs}:",
        size as f64 / 1048576.0
    );
    println!("  ffmpegthumbnailer -s 800 -c png -o - alone:  {thumb_alone:.1} ms");
    println!(
        "  canopy video_poster(800):                   {poster:.1} ms ({:.2}x)",
        poster / thumb_alone
    );
    println!("  ffprobe (the same fields) alone:             {probe_alone:.1} ms");
    println!(
        "  canopy video_details:                       {details:.1} ms ({:.2}x)",
        details / probe_alone
    );
    println!(
        "  canopy poster and facts side by side:       {both:.1} ms ({:.2}x the thumbnailer alone)",
        both / thumb_alone
    );
}
