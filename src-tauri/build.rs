//! Builds the Tauri context. Every app command (the one list in
//! `src/command_list.rs`) is declared here so the ACL generates an
//! `allow-<command>` permission for it, and capabilities live in
//! `src-tauri/capabilities/` (not beside tauri.conf.json).
//!
//! Which UI is embedded follows the cargo feature, so it cannot be mixed up:
//! a build with `e2e` embeds the test UI (`ui/dist-e2e`, `vite build --mode
//! e2e`, which has the page's test hooks), every other build embeds `ui/dist`.
//! The switch is Tauri's `TAURI_CONFIG` merge patch: set here for tauri-build,
//! and as `rustc-env` for `generate_context!`, which reads it while the crate
//! compiles.
#![forbid(unsafe_code)]

include!("src/command_list.rs");

/// Canopy's commands (`src/command_list.rs`).
const COMMANDS: &[&str] = with_command_list!(command_name_slice);

fn main() {
    println!("cargo:rerun-if-changed=src-tauri/capabilities");
    println!("cargo:rerun-if-changed=src-tauri/src/command_list.rs");
    let e2e = std::env::var_os("CARGO_FEATURE_E2E").is_some();
    let dist = if e2e { "ui/dist-e2e" } else { "ui/dist" };
    // generate_context! embeds the folder only when the crate recompiles:
    // a rebuilt UI must make it recompile.
    println!("cargo:rerun-if-changed={dist}");
    if e2e {
        let patch = format!(r#"{{"build":{{"frontendDist":"{dist}"}}}}"#);
        println!("cargo:rustc-env=TAURI_CONFIG={patch}");
        std::env::set_var("TAURI_CONFIG", &patch);
    }
    let attrs = tauri_build::Attributes::new()
        .capabilities_path_pattern("./src-tauri/capabilities/**/*")
        .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    tauri_build::try_build(attrs).expect("tauri-build failed");
}
