//! What the window opens first, and what a second `canopy PATH` hands to the
//! running window.
//!
//! Promises:
//! - `canopy PATH` opens PATH (see [`startup_from_arg`]); `canopy
//!   --handle=HANDLE` opens the path the handle encodes, byte for byte;
//! - started without a path, the window restores the saved view, if any;
//! - a second instance forwards its arguments as strings (the single-instance
//!   plugin's D-Bus call carries UTF-8 only), so a path that is not UTF-8 is
//!   first rewritten as `--handle=…` ([`forwardable_args`]); a lossy string
//!   that still arrives is refused with a message, never opened as a
//!   different path.
#![forbid(unsafe_code)]

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use crate::bounded::{self, Place};
use crate::limits::TIME_BUDGET;
use crate::names::{decode_handle, encode_handle};
use crate::root::absolute;
use crate::saved_view::Loaded;
pub use crate::wire::Launch;
use crate::wire::{RootSpec, Startup};

/// The flag that carries a path as a handle.
pub const HANDLE_FLAG: &str = "--handle=";

/// The path argument: the first argument after the program, or the path
/// encoded by `--handle=`.
///
/// # Errors
/// A message when `--handle=` does not decode.
pub fn path_arg(args: &[OsString]) -> Result<Option<PathBuf>, String> {
    let Some(arg) = args.get(1) else {
        return Ok(None);
    };
    match arg.to_str().and_then(|a| a.strip_prefix(HANDLE_FLAG)) {
        Some(handle) => decode_handle(handle)
            .map(Some)
            .map_err(|e| format!("{HANDLE_FLAG}: {}", e.message)),
        None => Ok(Some(PathBuf::from(arg))),
    }
}

/// What the window opens at start, given the command line and the saved state.
pub fn launch(args: &[OsString], loaded: Loaded) -> Launch {
    let mut notice = loaded.problem;
    let servers = recent_servers(&loaded.remembered);
    match path_arg(args) {
        Ok(Some(path)) => {
            return Launch {
                startup: startup_from_arg(Some(path.into_os_string())),
                restore: None,
                notice,
                servers,
            }
        }
        Err(message) => notice = Some(message),
        Ok(None) => {}
    }
    match loaded.remembered.view {
        Some(view) => Launch {
            startup: Startup {
                folder: RootSpec::Handle(view.folder.clone()),
                select: view.selected.clone(),
            },
            restore: Some(view),
            notice,
            servers,
        },
        None => Launch {
            startup: startup_from_arg(None),
            restore: None,
            notice,
            servers,
        },
    }
}

/// The servers connected to lately, from the saved view.
pub fn recent_servers(remembered: &crate::saved_view::Remembered) -> Vec<String> {
    remembered
        .view
        .as_ref()
        .map(|v| v.servers.clone())
        .unwrap_or_default()
}

/// The arguments to run with instead, when a path argument would not survive
/// being forwarded as a string: the path made absolute and passed as
/// `--handle=`. `None` when the arguments can be forwarded as they are.
pub fn forwardable_args(args: &[OsString], cwd: Option<&Path>) -> Option<Vec<OsString>> {
    let arg = args.get(1)?;
    if arg.to_str().is_some_and(|a| a.starts_with(HANDLE_FLAG)) {
        return None;
    }
    let relative = !Path::new(arg).is_absolute();
    let cwd_lossy = cwd.is_some_and(|c| c.to_str().is_none());
    if arg.to_str().is_some() && !(relative && cwd_lossy) {
        return None;
    }
    let path = match (relative, cwd) {
        (true, Some(cwd)) => cwd.join(arg),
        _ => PathBuf::from(arg),
    };
    let mut flag = OsString::from(HANDLE_FLAG);
    flag.push(encode_handle(&path));
    let mut out = vec![args[0].clone(), flag];
    out.extend(args[2..].iter().cloned());
    Some(out)
}

/// What the running window should open for a second instance's arguments
/// (as the single-instance plugin forwards them: lossy strings, and the
/// second instance's folder). `Ok(None)`: no path, just show the window.
///
/// # Errors
/// A message for the window when the path did not survive forwarding.
pub fn startup_from_forwarded(argv: &[String], cwd: &str) -> Result<Option<Startup>, String> {
    let args: Vec<OsString> = argv.iter().map(OsString::from).collect();
    let path = match path_arg(&args)? {
        None => return Ok(None),
        Some(p) => p,
    };
    let lossy = |s: &OsStr| {
        s.to_str()
            .is_some_and(|t| t.contains(char::REPLACEMENT_CHARACTER))
    };
    if lossy(path.as_os_str()) {
        return Err(format!(
            "The path {} could not be passed to this window: it is not valid UTF-8.",
            path.display()
        ));
    }
    let path = if path.is_absolute() {
        path
    } else if cwd.contains(char::REPLACEMENT_CHARACTER) || cwd.is_empty() {
        return Err(format!(
            "The path {} could not be passed to this window: it is relative to a folder whose name is not valid UTF-8.",
            path.display()
        ));
    } else {
        Path::new(cwd).join(path)
    };
    Ok(Some(startup_from_arg(Some(path.into_os_string()))))
}

/// What `canopy PATH` opens: a folder opens as itself, and so does an
/// archive (told by its first bytes); anything else opens its folder with it
/// selected; no argument opens the home folder. A path that does not exist,
/// or does not answer within the folder budget, is opened anyway, so the
/// window shows its error.
pub fn startup_from_arg(arg: Option<std::ffi::OsString>) -> Startup {
    let Some(arg) = arg else {
        return Startup {
            folder: RootSpec::Text("~".into()),
            select: None,
        };
    };
    let path = absolute(Path::new(&arg)).unwrap_or_else(|_| PathBuf::from(&arg));
    // Looking the path up may hang on a dead mount: then it is opened as a
    // folder, and its listing says it is not responding.
    let probe = path.clone();
    let (is_dir, exists) = bounded::call(Place::path(&path), TIME_BUDGET, move |_| {
        let is_dir = std::fs::metadata(&probe).is_ok_and(|m| m.is_dir());
        // An archive opens like a folder.
        let opens =
            is_dir || crate::archive::archive_file_format(&crate::LocalFs::new(), &probe).is_some();
        (opens, std::fs::symlink_metadata(&probe).is_ok())
    })
    .unwrap_or((true, true));
    match path.parent() {
        Some(parent) if exists && !is_dir => Startup {
            folder: RootSpec::Handle(encode_handle(parent)),
            select: Some(encode_handle(&path)),
        },
        _ => Startup {
            folder: RootSpec::Handle(encode_handle(&path)),
            select: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::saved_view::{Remembered, SavedView};
    use std::os::unix::ffi::OsStringExt;

    fn os(v: &[u8]) -> OsString {
        OsString::from_vec(v.to_vec())
    }

    #[test]
    fn a_path_argument_wins_over_the_saved_view() {
        let dir = tempfile::tempdir().unwrap();
        let saved = Loaded {
            remembered: Remembered {
                view: Some(SavedView {
                    folder: encode_handle(Path::new("/somewhere")),
                    settings: crate::wire::ListSettings::default(),
                    expanded: vec![],
                    selected: None,
                    servers: vec![],
                }),
                window: None,
            },
            problem: None,
        };
        let got = launch(&["canopy".into(), dir.path().into()], saved.clone());
        assert_eq!(
            got.startup.folder,
            RootSpec::Handle(encode_handle(dir.path()))
        );
        assert_eq!(got.restore, None, "a path argument means no restore");
        let got = launch(&["canopy".into()], saved);
        assert_eq!(
            got.startup.folder,
            RootSpec::Handle(encode_handle(Path::new("/somewhere")))
        );
        assert!(
            got.restore.is_some(),
            "no path argument: the saved view is restored"
        );
    }

    #[test]
    fn an_archive_argument_opens_as_the_root_and_a_file_named_like_one_opens_its_folder() {
        let dir = tempfile::tempdir().unwrap();
        let zip = dir.path().join("site.zip");
        // The smallest zip: its end record alone.
        let mut end = b"PK\x05\x06".to_vec();
        end.extend_from_slice(&[0; 18]);
        std::fs::write(&zip, end).unwrap();
        let fake = dir.path().join("fake.zip");
        std::fs::write(&fake, b"not a zip").unwrap();
        let got = startup_from_arg(Some(zip.clone().into_os_string()));
        assert_eq!(
            (got.folder, got.select),
            (RootSpec::Handle(encode_handle(&zip)), None)
        );
        let got = startup_from_arg(Some(fake.clone().into_os_string()));
        assert_eq!(got.folder, RootSpec::Handle(encode_handle(dir.path())));
        assert_eq!(got.select, Some(encode_handle(&fake)));
    }

    #[test]
    fn the_saved_views_problem_is_said_at_start() {
        let loaded = Loaded {
            remembered: Remembered::default(),
            problem: Some("bad file".into()),
        };
        let got = launch(&["canopy".into()], loaded);
        assert_eq!(got.notice.as_deref(), Some("bad file"));
        assert_eq!(
            got.startup.folder,
            RootSpec::Text("~".into()),
            "a fresh start opens the home folder"
        );
    }

    #[test]
    fn a_non_utf8_path_is_forwarded_as_a_handle_and_comes_back_exact() {
        let raw = os(b"/tmp/caf\xe9");
        let args = forwardable_args(&["canopy".into(), raw.clone()], Some(Path::new("/")))
            .expect("must be rewritten");
        let forwarded: Vec<String> = args
            .iter()
            .map(|a| a.to_str().expect("forwardable as UTF-8").to_owned())
            .collect();
        assert!(forwarded[1].starts_with(HANDLE_FLAG));
        assert_eq!(
            path_arg(&args).unwrap().unwrap(),
            PathBuf::from(raw.clone()),
            "the handle decodes to the exact bytes"
        );
        let startup = startup_from_forwarded(&forwarded, "/").unwrap().unwrap();
        assert_eq!(
            startup.folder,
            RootSpec::Handle(encode_handle(Path::new(&raw)))
        );
    }

    #[test]
    fn a_relative_path_is_made_absolute_before_forwarding_from_a_non_utf8_folder() {
        let cwd = PathBuf::from(os(b"/tmp/d\xff"));
        let args = forwardable_args(&["canopy".into(), "sub".into()], Some(&cwd))
            .expect("must be rewritten");
        assert_eq!(path_arg(&args).unwrap().unwrap(), cwd.join("sub"));
        assert_eq!(
            forwardable_args(&args, Some(&cwd)),
            None,
            "a handle is never rewritten again (no restart loop)"
        );
        assert_eq!(
            forwardable_args(&["canopy".into(), "sub".into()], Some(Path::new("/tmp"))),
            None,
            "plain UTF-8 is forwarded as is"
        );
    }

    #[test]
    fn a_forwarded_relative_path_is_taken_from_the_second_instances_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("inner")).unwrap();
        let got = startup_from_forwarded(
            &["canopy".into(), "inner".into()],
            dir.path().to_str().unwrap(),
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            got.folder,
            RootSpec::Handle(encode_handle(&dir.path().join("inner")))
        );
        assert_eq!(
            startup_from_forwarded(&["canopy".into()], "/").unwrap(),
            None,
            "no path: just show the window"
        );
    }

    #[test]
    fn a_lossy_forwarded_path_is_refused_not_opened_elsewhere() {
        let err =
            startup_from_forwarded(&["canopy".into(), "/tmp/caf\u{fffd}".into()], "/").unwrap_err();
        assert!(err.contains("could not be passed"), "{err}");
        let err =
            startup_from_forwarded(&["canopy".into(), "rel".into()], "/tmp/d\u{fffd}").unwrap_err();
        assert!(err.contains("could not be passed"), "{err}");
        let err =
            startup_from_forwarded(&["canopy".into(), "--handle=!!".into()], "/").unwrap_err();
        assert!(err.contains("--handle="), "{err}");
    }
}
