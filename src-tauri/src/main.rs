#![forbid(unsafe_code)]
fn main() {
    // Started by `ssh` as its askpass (see `ssh_options` in lib.rs): ask
    // the window that runs it, print the answer, and end.
    if let Some(code) = canopy_sftp::askpass::helper_main() {
        std::process::exit(code);
    }
    canopy_app::run()
}
