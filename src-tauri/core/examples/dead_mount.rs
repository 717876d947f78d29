//! A FUSE mount that stops answering, for the end-to-end suite (test tool,
//! not part of Canopy): `dead_mount [--dead-root] MOUNTPOINT`.
//!
//! Mounts the filesystem of `tests/deadfs` on MOUNTPOINT, prints `ready` on
//! stdout, and keeps it mounted until its stdin closes; then it aborts the
//! connection (so every reader stuck in it returns) and unmounts.

#[path = "../tests/deadfs/mod.rs"]
mod deadfs;

use std::io::{Read, Write};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let dead_root = args.first().is_some_and(|a| a == "--dead-root");
    if dead_root {
        args.remove(0);
    }
    let Some(point) = args.first() else {
        eprintln!("usage: dead_mount [--dead-root] MOUNTPOINT");
        std::process::exit(2);
    };
    let path = std::path::PathBuf::from(point);
    let mount = if dead_root {
        deadfs::DeadMount::dead_root(&path)
    } else {
        deadfs::DeadMount::on(&path)
    };
    println!("ready");
    let _ = std::io::stdout().flush();
    let _ = std::io::stdin().read_to_end(&mut Vec::new());
    drop(mount);
}
