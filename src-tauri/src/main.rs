#![forbid(unsafe_code)]
fn main() {
    // Started by `ssh` as its askpass (see `start_askpass` in lib.rs): ask
    // the window that runs it, print the answer, and end.
    if let Some(code) = canopy_sftp::askpass::run_as_askpass() {
        std::process::exit(code);
    }
    canopy_app::run()
}
