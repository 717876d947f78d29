#![forbid(unsafe_code)]
fn main() {
    canopy_app::run()
}
