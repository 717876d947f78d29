//! Reads the git index of the repository whose top is the argument, as
//! "Hide ignored" reads it, and prints how many paths it tracks: the
//! figure to set beside `git ls-files | wc -l` (and its time and memory,
//! `/usr/bin/time -v`) when measuring the reader.

fn main() {
    let Some(repo) = std::env::args_os().nth(1) else {
        eprintln!("usage: read_index REPOSITORY");
        std::process::exit(2);
    };
    match canopy_core::testing::tracked_paths(std::path::Path::new(&repo)) {
        Ok(paths) => println!("{}", paths.len()),
        Err(e) => {
            eprintln!("{}: {}", e.code, e.message);
            std::process::exit(1);
        }
    }
}
