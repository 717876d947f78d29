fn main() { canopy_app::run() }
