//! Runs the window's Find (`find_request`) below the folder given, for the
//! text given, names only or (with `--contents`) names and lines, and prints
//! how many hits were streamed and the final counts: the figure to set
//! beside `fdfind -u TEXT` (names) and `rg -uu TEXT` (contents) when
//! measuring it (`/usr/bin/time -v`, or a paired benchmark).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use canopy_core::names::encode_handle;
use canopy_core::wire::{FindProgress, FindRequest, RootSpec};
use canopy_core::{find_request, LocalFs, WithArchives};

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let contents = args.iter().any(|a| a == "--contents");
    let plain: Vec<_> = args
        .iter()
        .filter(|a| !a.to_string_lossy().starts_with("--"))
        .collect();
    let [root, text] = plain[..] else {
        eprintln!("usage: find [--contents] FOLDER TEXT");
        std::process::exit(2);
    };
    let root = std::fs::canonicalize(root).expect("the folder exists");
    let req = FindRequest {
        request_id: 1,
        root: RootSpec::Handle(encode_handle(&root)),
        text: text.to_string_lossy().into_owned(),
        contents,
        show_dotfiles: true,
        hide_ignored: false,
    };
    let streamed = Arc::new(AtomicU64::new(0));
    let s = streamed.clone();
    let send = move |p: &FindProgress| {
        s.fetch_add(p.hits.len() as u64, Ordering::Relaxed);
    };
    match find_request(
        &WithArchives::new(LocalFs::new()),
        &req,
        None,
        Arc::new(send),
    ) {
        Ok(report) => println!(
            "{} hits streamed; {:?}; more: {}; cut: {:?}",
            streamed.load(Ordering::Relaxed),
            report.counts,
            report.more,
            report.cut
        ),
        Err(e) => {
            eprintln!("{}: {}", e.code, e.message);
            std::process::exit(1);
        }
    }
}
