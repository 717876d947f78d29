//! Canopy's Tauri shell: the window (locked down in `window`), the plugins,
//! and thin command adapters.
//!
//! Each command takes one request value, parses it with the engine (so every
//! malformed request is `INVALID_ARGUMENT`), runs the engine on a blocking
//! thread, and returns `{ code, message }` on failure. No business logic lives
//! here; the builder is generic over `Runtime` so tests can drive it on the
//! mock runtime.
//!
//! Besides commands, the shell wires four things to the window: the folder
//! watcher (`canopy-watch`), the mount table's changes (Places) and a
//! second instance's path, all pushed over the channel the window gives
//! `listen_shell`; and the remembered view,
//! loaded at start, written when the window closes, on SIGTERM and SIGHUP
//! (a logout, a shutdown) before the process ends, and shortly after changes
//! (`canopy_core::saved_view::SaveSchedule`: a folder that never stops
//! changing cannot keep it from being written, so a crash loses little).
//!
//! The commands are named once, in `command_list.rs`: the build script
//! declares the same list to the ACL, and the UI's `CommandName` is made
//! from it.
#![forbid(unsafe_code)]

include!("command_list.rs");

// A handler that `command_list.rs` does not name would be registered nowhere:
// unused code is an error here, not a warning.
#[deny(dead_code)]
mod commands;
mod outbox;
mod placement;
mod progress;
mod secrets;
#[cfg(test)]
mod tests;
pub mod window;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use canopy_core::cancel::CancelRegistry;
use canopy_core::saved_view::{Remembered, SaveSchedule, SavedView, WindowPlacement};
use canopy_core::wire::ShellEvent;
use canopy_core::wire::{Launch, RootSpec};
use canopy_core::CanopyError;
use canopy_watch::FolderWatch;
use tauri::{Builder, Manager, Runtime, WindowEvent};

pub use canopy_core::wire::Startup;
pub use outbox::Outbox;

/// The names of Canopy's commands, as the window invokes them (the list in
/// `command_list.rs`).
pub const COMMANDS: &[&str] = with_command_list!(command_name_slice);

/// `generate_handler!` over `commands::<name>` for each listed name.
macro_rules! command_handler {
    ($($name:ident),* $(,)?) => {
        tauri::generate_handler![$(commands::$name),*]
    };
}

/// State shared by the commands.
pub struct AppState {
    pub cancels: Arc<CancelRegistry>,
    /// Where a path lives: the local filesystem (with the test seams of
    /// the `e2e` build) and servers' folders (`sftp://`, one connection per
    /// server, made when a path on it is first asked for; their paths are
    /// window paths, so each handle says where it is read), each with the
    /// archives in it opened like folders. Commands ask it through
    /// [`AppState::place_at`] and [`AppState::place_for`].
    places: canopy_places::Registry,
    pub launch: Launch,
    pub watch: Arc<FolderWatch>,
    pub outbox: Arc<Outbox>,
    /// Where `ssh`'s password and passphrase prompts are asked (`None`:
    /// it could not be set up, and `ssh` runs in batch mode).
    pub askpass: Option<Arc<canopy_sftp::Askpass>>,
    /// The view as the window last reported it.
    pub view: Mutex<Option<SavedView>>,
    /// Where the window is; updated as it moves and resizes.
    pub placement: Mutex<Option<WindowPlacement>>,
    /// Where the view is remembered (`None`: no config folder).
    pub state_path: Option<PathBuf>,
    /// When the changes not yet written are due to be.
    pub schedule: Mutex<SaveSchedule>,
    /// Held while the state file is written: a timed write, a close and a
    /// signal share one temporary file.
    pub writing: Mutex<()>,
}

impl AppState {
    /// The place `path` (a handle's) lives in (see
    /// `canopy_places::Registry::place_of`). Nothing connects here.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a malformed server part.
    pub fn place_at(&self, path: &std::path::Path) -> Result<canopy_places::Location, CanopyError> {
        self.places.place_of(path)
    }

    /// The source `path` is read from, when `capability` is available
    /// there (what only some places allow asks here, so no command can
    /// forget to refuse where it is not).
    ///
    /// # Errors
    /// `UNSUPPORTED`, saying why, where it is not available.
    pub fn source_allowing(
        &self,
        path: &std::path::Path,
        capability: canopy_places::Capability,
    ) -> Result<canopy_places::PlaceSource, CanopyError> {
        let place = self.places.place_of(path)?;
        place.require(capability)?;
        Ok(place.source)
    }

    /// The place a request's root (a URL typed, or a handle) is read from.
    ///
    /// # Errors
    /// As [`AppState::place_at`].
    pub fn place_for(&self, root: &RootSpec) -> Result<canopy_places::Location, CanopyError> {
        self.places.place_for(root)
    }

    /// Writes what is remembered when [`SaveSchedule`] says: once changes
    /// pause, and at the latest a short while after the first unsaved one; a
    /// close or a SIGTERM writes at once.
    pub fn save_soon(self: &Arc<Self>) {
        let due = self
            .schedule
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .changed(std::time::Instant::now());
        let state = Arc::clone(self);
        // Each change wakes at the due time it set; the one that finds the
        // write due does it, the others find it not due yet or done.
        tauri::async_runtime::spawn(async move {
            tokio::time::sleep_until(tokio::time::Instant::from_std(due)).await;
            let due_now = state
                .schedule
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take_due(std::time::Instant::now());
            if due_now {
                let _ = tauri::async_runtime::spawn_blocking(move || state.save()).await;
            }
        });
    }

    /// Writes what is remembered (the window's view and placement).
    fn save(&self) {
        let Some(path) = &self.state_path else { return };
        let _one_at_a_time = self.writing.lock().unwrap_or_else(|e| e.into_inner());
        let remembered = Remembered {
            view: self.view.lock().unwrap_or_else(|e| e.into_inner()).clone(),
            window: *self.placement.lock().unwrap_or_else(|e| e.into_inner()),
        };
        if remembered == Remembered::default() {
            return;
        }
        if let Err(e) = canopy_core::saved_view::save(path, &remembered) {
            eprintln!(
                "canopy: could not remember the view in {}: {e}",
                path.display()
            );
        }
    }
}

/// On SIGTERM or SIGHUP (a logout, a shutdown, `kill`): writes what is
/// remembered, then ends the process by that signal as it would have ended
/// without the handler (see `canopy_core::supervisor::on_termination`).
fn save_on_signals(state: Arc<AppState>) {
    canopy_core::supervisor::on_termination(move || {
        state.save();
        state.askpass.iter().for_each(|a| a.close());
    });
}

/// Installs Canopy's plugins, state and commands on a builder. `window`
/// is the remembered window placement, applied when the window is created.
pub fn configure<R: Runtime>(
    builder: Builder<R>,
    launch: Launch,
    window: Option<WindowPlacement>,
    state_path: Option<PathBuf>,
) -> Builder<R> {
    let state = app_state(launch, window, state_path);
    let signalled = Arc::clone(&state);
    let builder = builder
        // First: a second instance hands over its path before anything else starts.
        .plugin(tauri_plugin_single_instance::init(|app, argv, cwd| {
            let event = match forwarded(&argv, &cwd) {
                Ok(Some(startup)) => Some(ShellEvent::Open { startup }),
                Ok(None) => None,
                Err(message) => Some(ShellEvent::Notice { message }),
            };
            if let Some(event) = event {
                app.state::<Arc<AppState>>().outbox.send(event);
            }
            if let Some(w) = app.get_webview_window("main") {
                let _ = w.unminimize();
                let _ = w.show();
                let _ = w.set_focus();
            }
        }));
    with_commands(builder, state)
        .setup(move |app| {
            watch_mounts(&signalled.outbox);
            save_on_signals(signalled);
            window::open_main(app.handle())?;
            if let (Some(w), Some(p)) = (app.get_webview_window(window::MAIN), window) {
                placement::apply(&w, p);
            }
            Ok(())
        })
        .on_window_event(|window, event| {
            let state = window.state::<Arc<AppState>>();
            match event {
                WindowEvent::Moved(_) | WindowEvent::Resized(_) => {
                    let mut remembered = state.placement.lock().unwrap_or_else(|e| e.into_inner());
                    *remembered = placement::read(window, *remembered);
                    drop(remembered);
                    state.save_soon();
                }
                WindowEvent::CloseRequested { .. } | WindowEvent::Destroyed => state.save(),
                _ => {}
            }
        })
}

/// Tells the window when a filesystem is mounted or unmounted (its
/// sidebar lists the places again).
fn watch_mounts(outbox: &Arc<Outbox>) {
    let outbox = Arc::clone(outbox);
    if let Err(e) =
        canopy_core::places::watch_mounts(move || outbox.send(ShellEvent::PlacesChanged))
    {
        eprintln!("canopy: mounts will not show live in Places: {e}");
    }
}

/// The state the commands share, before anything has happened.
fn app_state(
    launch: Launch,
    window: Option<WindowPlacement>,
    state_path: Option<PathBuf>,
) -> Arc<AppState> {
    let outbox = Arc::new(Outbox::default());
    let watched = Arc::clone(&outbox);
    let watch = Arc::new(FolderWatch::new(move |c| {
        watched.send(ShellEvent::FoldersChanged {
            folders: c.folders,
            overflow: c.overflow,
        })
    }));
    let askpass = start_askpass(&outbox);
    Arc::new(AppState {
        cancels: Arc::default(),
        places: canopy_places::standard(canopy_places::Reach {
            local: canopy_core::LocalFs::new().with_env_seams(),
            ssh: ssh_options(askpass.clone()),
        }),
        launch,
        watch,
        outbox,
        askpass,
        view: Mutex::new(None),
        placement: Mutex::new(window),
        state_path,
        schedule: Mutex::default(),
        writing: Mutex::default(),
    })
}

/// Where `ssh`'s prompts are asked: in the window, with this very binary
/// as `ssh`'s askpass (`main` runs `canopy_sftp::askpass::run_as_askpass`
/// first). In the shell's own tests the binary is the test runner, so the
/// askpass there is `/bin/false` (a prompt is refused).
fn start_askpass(outbox: &Arc<Outbox>) -> Option<Arc<canopy_sftp::Askpass>> {
    let program = if cfg!(test) {
        Ok(PathBuf::from("/bin/false"))
    } else {
        std::env::current_exe()
    };
    let asker = secrets::WindowAsker {
        outbox: Arc::clone(outbox),
    };
    program
        .and_then(|exe| canopy_sftp::Askpass::start(exe, asker))
        .map_err(|e| eprintln!("canopy: password prompts are off: {e}"))
        .ok()
}

/// How the window runs `ssh`: the user's own setup, or the config file
/// `CANOPY_SSH_CONFIG` names (as `ssh -F`). A password or passphrase is
/// asked in the window through `askpass`; without one, no prompt
/// (`BatchMode`): a key or agent must log in.
fn ssh_options(askpass: Option<Arc<canopy_sftp::Askpass>>) -> canopy_sftp::SshOptions {
    canopy_sftp::SshOptions {
        config: std::env::var_os("CANOPY_SSH_CONFIG").map(PathBuf::from),
        batch: askpass.is_none(),
        program: None,
        askpass,
    }
}

/// What the window opens at start: an `sftp://` or `ssh://` argument as
/// typed, anything else as the engine's startup says.
fn launch_of(args: &[std::ffi::OsString], loaded: canopy_core::saved_view::Loaded) -> Launch {
    match args.get(1).and_then(|a| canopy_sftp::places::startup_of(a)) {
        Some(startup) => Launch {
            startup,
            restore: None,
            servers: canopy_core::startup::recent_servers(&loaded.remembered),
            notice: loaded.problem,
        },
        None => canopy_core::startup::launch(args, loaded),
    }
}

/// What a second instance's arguments open in this window (see
/// `canopy_core::startup::startup_from_forwarded`), a server's folder too.
fn forwarded(argv: &[String], cwd: &str) -> Result<Option<canopy_core::wire::Startup>, String> {
    match argv
        .get(1)
        .and_then(|a| canopy_sftp::places::startup_of(std::ffi::OsStr::new(a)))
    {
        Some(startup) => Ok(Some(startup)),
        None => canopy_core::startup::startup_from_forwarded(argv, cwd),
    }
}

/// Installs what the commands need (the plugins they call, the shared
/// state) and the commands. Nothing here shows a window or a dialog, or
/// hands anything to the desktop, until a command asks: tests drive it on
/// the mock runtime (`tests::ipc`).
fn with_commands<R: Runtime>(builder: Builder<R>, state: Arc<AppState>) -> Builder<R> {
    builder
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_clipboard_manager::init())
        .plugin(tauri_plugin_opener::init())
        .manage(state)
        .register_asynchronous_uri_scheme_protocol(
            commands::media_stream::SCHEME,
            |_ctx, request, responder| commands::media_stream::serve(request, responder),
        )
        .invoke_handler(with_command_list!(command_handler))
}

/// The app's configuration, UI and capabilities, compiled in.
fn context<R: Runtime>() -> tauri::Context<R> {
    tauri::generate_context!("tauri.conf.json")
}

/// Runs the desktop app. `canopy PATH` opens PATH (or its folder, with the
/// file selected); no argument restores the remembered view, or opens the
/// home folder.
///
/// The pid started is a supervisor ([`canopy_core::supervisor`]): it exits
/// when the app has, even while a thread of the app is stuck on a dead mount.
pub fn run() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cwd = std::env::current_dir().ok();
    let remote = args
        .get(1)
        .is_some_and(|a| canopy_sftp::is_remote(a.as_encoded_bytes()));
    let rewrite = if remote {
        None
    } else {
        canopy_core::startup::forwardable_args(&args, cwd.as_deref())
    };
    if let Some(rewritten) = rewrite {
        // A path that is not UTF-8 would reach a running window garbled:
        // start again with it as a handle, which survives being forwarded.
        use std::os::unix::process::CommandExt;
        if let Ok(exe) = std::env::current_exe() {
            let err = std::process::Command::new(exe)
                .arg0(&rewritten[0])
                .args(&rewritten[1..])
                .exec();
            eprintln!(
                "canopy: could not restart with the path as a handle ({err}); going on without it"
            );
        }
    }
    // After the restart above (which would supervise twice), before any thread.
    canopy_core::supervisor::supervise();
    let state_path = canopy_core::saved_view::state_path();
    let loaded = state_path
        .as_deref()
        .map(canopy_core::saved_view::load)
        .unwrap_or_default();
    let window = loaded.remembered.window;
    let launch = launch_of(&args, loaded);
    let app = configure(tauri::Builder::default(), launch, window, state_path)
        .build(context())
        .expect("error while starting Canopy");
    app.run(|handle, event| {
        if let tauri::RunEvent::Exit = event {
            let state = handle.state::<Arc<AppState>>();
            state.save();
            state.askpass.iter().for_each(|a| a.close());
        }
    });
}
