//! Canopy's Tauri shell: the window (locked down in `window`), the plugins,
//! and thin command adapters.
//!
//! Each command takes one request value, parses it with the engine (so every
//! malformed request is `INVALID_ARGUMENT`), runs the engine on a blocking
//! thread, and returns `{ code, message }` on failure. No business logic lives
//! here; the builder is generic over `Runtime` so tests can drive it on the
//! mock runtime.

mod commands;
pub mod window;

use std::sync::Arc;

use canopy_core::cancel::CancelRegistry;
use canopy_core::dirio::IoHooks;
use tauri::{Builder, Runtime};

pub use canopy_core::wire::Startup;

/// State shared by the commands.
pub struct AppState {
    pub cancels: Arc<CancelRegistry>,
    pub hooks: IoHooks,
    pub startup: Startup,
}

/// Installs Canopy's plugins, state and commands on a builder.
pub fn configure<R: Runtime>(builder: Builder<R>, startup: Startup) -> Builder<R> {
    builder
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_clipboard_manager::init())
        .plugin(tauri_plugin_opener::init())
        .manage(AppState { cancels: Arc::default(), hooks: IoHooks::from_env(), startup })
        .setup(|app| {
            window::open_main(app.handle())?;
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![
            commands::list_directory,
            commands::cancel_listing,
            commands::locate,
            commands::startup_target,
            commands::read_preview,
            commands::read_image,
            commands::reveal,
            commands::open_default,
            commands::copy_path,
            commands::pick_folder,
        ])
}

/// Runs the desktop app. `canopy PATH` opens PATH (or its folder, with the
/// file selected); no argument opens the home folder.
pub fn run() {
    let startup = canopy_core::startup_from_arg(std::env::args_os().nth(1));
    configure(tauri::Builder::default(), startup)
        .run(tauri::generate_context!("tauri.conf.json"))
        .expect("error while running Canopy");
}
