//! Builds the Tauri context. Every app command is declared here so the ACL
//! generates an `allow-<command>` permission for it, and capabilities live in
//! `src-tauri/capabilities/` (not beside tauri.conf.json).

const COMMANDS: &[&str] = &[
    "list_directory",
    "cancel_listing",
    "locate",
    "startup_target",
    "read_preview",
    "read_image",
    "reveal",
    "open_default",
    "copy_path",
    "pick_folder",
    "watch_folders",
    "listen_shell",
    "remember_view",
];

fn main() {
    println!("cargo:rerun-if-changed=src-tauri/capabilities");
    let attrs = tauri_build::Attributes::new()
        .capabilities_path_pattern("./src-tauri/capabilities/**/*")
        .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    tauri_build::try_build(attrs).expect("tauri-build failed");
}
