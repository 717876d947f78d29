//! Previewing a 2 GiB sparse file against a 256 KiB file, in one run: median
//! wall time of `read_preview` for each and the bytes the process read
//! (`rchar` from /proc/self/io) per preview. Prints figures; asserts nothing.
//!
//!     cargo bench -p canopy-core --bench preview

use std::time::Instant;

use canopy_core::limits::PREVIEW_CHUNK;
use canopy_core::names::encode_handle;
use canopy_core::preview::{read_preview, PreviewRequest};

fn rchar() -> u64 {
    let io = std::fs::read_to_string("/proc/self/io").expect("/proc/self/io");
    io.lines()
        .find_map(|l| l.strip_prefix("rchar: "))
        .and_then(|v| v.trim().parse().ok())
        .expect("rchar")
}

fn measure(path: &std::path::Path, runs: usize) -> (f64, u64) {
    let req = PreviewRequest {
        handle: encode_handle(path),
        offset: 0,
        length: PREVIEW_CHUNK,
    };
    read_preview(&req).expect("warm-up");
    let mut times = Vec::with_capacity(runs);
    let before = rchar();
    for _ in 0..runs {
        let t = Instant::now();
        std::hint::black_box(read_preview(&req).expect("preview"));
        times.push(t.elapsed().as_secs_f64());
    }
    let read = (rchar() - before) / runs as u64;
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (times[runs / 2], read)
}

fn main() {
    // `cargo bench` passes --bench; any other argument (e.g. a filter) is ignored.
    let dir = tempfile::tempdir().unwrap();
    let small = dir.path().join("small.txt");
    std::fs::write(&small, "x".repeat(256 * 1024)).unwrap();
    let zeros = dir.path().join("zeros.bin");
    std::fs::write(&zeros, vec![0u8; 256 * 1024]).unwrap();
    let sparse = dir.path().join("sparse.img");
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let runs = 201;
    let (t_small, r_small) = measure(&small, runs);
    let (t_zeros, r_zeros) = measure(&zeros, runs);
    let (t_sparse, r_sparse) = measure(&sparse, runs);
    println!(
        "preview of a 256 KiB file:      median {:8.1} µs, {} bytes read per preview",
        t_small * 1e6,
        r_small
    );
    println!(
        "preview of 256 KiB of zero bytes: median {:7.1} µs, {} bytes read per preview",
        t_zeros * 1e6,
        r_zeros
    );
    println!(
        "preview of a 2 GiB sparse file: median {:8.1} µs, {} bytes read per preview",
        t_sparse * 1e6,
        r_sparse
    );
    println!(
        "time ratio 2 GiB sparse / 256 KiB text: {:.2}, / 256 KiB binary: {:.2} (target <= 1.5); bytes read vs one chunk ({}): {:.3}x",
        t_sparse / t_small,
        t_sparse / t_zeros,
        PREVIEW_CHUNK,
        r_sparse as f64 / PREVIEW_CHUNK as f64
    );
}
