//! The first page of a 200-page PDF, in one run: median wall time of
//! Canopy's `pdf_document` + `pdf_page(1, 800)` (sandboxed pdfinfo, then
//! pdftoppm and pdftotext side by side, the PNG decoded and encoded again)
//! against `pdftoppm -f 1 -l 1 -scale-to 800 -png` run alone. Prints the
//! figures and their ratio; asserts nothing.
//!
//!     cargo bench -p canopy-core --bench pdf

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use canopy_core::{pdf_document, pdf_page, LocalFs};

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
    let dir = std::env::temp_dir().join(format!("canopy-pdf-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("200-pages.pdf");
    std::fs::write(&path, pdf(200)).unwrap();
    let alone = |p: &Path| {
        let t = Instant::now();
        let out = Command::new("pdftoppm")
            .args(["-f", "1", "-l", "1", "-scale-to", "800", "-png"])
            .arg(p)
            .output()
            .expect("pdftoppm");
        assert!(out.status.success() && !out.stdout.is_empty());
        t.elapsed().as_secs_f64()
    };
    let canopy = |p: &Path| {
        let t = Instant::now();
        let doc = pdf_document(&LocalFs::new(), p, None).expect("pdf_document");
        assert_eq!(doc.pages, 200);
        let page = pdf_page(&LocalFs::new(), p, 1, 800, None).expect("pdf_page");
        std::hint::black_box(page);
        t.elapsed().as_secs_f64()
    };
    alone(&path);
    canopy(&path);
    let (mut a, mut c) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        a.push(alone(&path));
        c.push(canopy(&path));
    }
    let (a, c) = (median(a), median(c));
    println!("first page of a 200-page PDF, median of {runs}:");
    println!(
        "  pdftoppm -f 1 -l 1 -scale-to 800 -png alone: {:.1} ms",
        a * 1e3
    );
    println!(
        "  canopy pdf_document + pdf_page(1, 800):      {:.1} ms ({:.2}x)",
        c * 1e3,
        c / a
    );
    let _ = std::fs::remove_dir_all(&dir);
}
