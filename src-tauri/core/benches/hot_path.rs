//! Criterion benches of the engine's hot path: the natural-order comparison
//! that every streamed entry pays, and a capped listing of a large folder.

use canopy_core::testing::compare_names;
use canopy_core::{list, ListCall, ListSettings, LocalFs};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn names(n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| format!("File_{:x}_{i}.txt", i.wrapping_mul(2654435761) % 100_000).into_bytes())
        .collect()
}

fn bench_compare(c: &mut Criterion) {
    let v = names(1024);
    c.bench_function("compare_names/1024 pairs", |b| {
        b.iter(|| {
            let mut less = 0;
            for w in v.windows(2) {
                less += (compare_names(black_box(&w[0]), black_box(&w[1]))
                    == std::cmp::Ordering::Less) as u32;
            }
            less
        })
    });
}

fn bench_list(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    for name in names(20_000) {
        std::fs::write(dir.path().join(String::from_utf8(name).unwrap()), b"").unwrap();
    }
    let (source, settings, call) = (LocalFs::new(), ListSettings::default(), ListCall::default());
    c.bench_function("list/20k files, page 500", |b| {
        b.iter(|| list(&source, black_box(dir.path()), &settings, &call).unwrap())
    });
}

criterion_group!(benches, bench_compare, bench_list);
criterion_main!(benches);
