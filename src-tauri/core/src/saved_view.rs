//! The view remembered across a restart, and the file that keeps it.
//!
//! Promises:
//! - the file lives in the platform's config folder (`$XDG_CONFIG_HOME/canopy`,
//!   else `~/.config/canopy`; a relative `XDG_CONFIG_HOME` is ignored, as the
//!   XDG spec says);
//! - it is written atomically: a temporary file in the same folder, synced,
//!   then renamed over the old one, so a crash leaves the old file or the new
//!   one, never half of either;
//! - paths are kept as handles, so a folder whose name is not UTF-8 comes
//!   back byte-exact;
//! - a missing file is a first start; a corrupt, oversized or unreadable file
//!   is ignored with a message, never an error that stops the start;
//! - what is read is checked: a depth out of range, a handle that does not
//!   decode, or too many expanded folders are dropped, not trusted; the
//!   window's size and place are fitted to the monitors there are now
//!   ([`fit_to_screen`]): never larger than a monitor's work area, never
//!   placed off every monitor;
//! - it is written at most `SAVE_QUIET` after the last change and at most
//!   `SAVE_MAX_DELAY` after the first unsaved one ([`SaveSchedule`]), so a
//!   folder that keeps changing cannot keep it from being written.
//!
//! What is restored is only a wish list: the window re-lists every folder
//! with the normal cap and time budget (never "Show all"), so a folder that
//! grew huge since shows its first page and its badge.
#![forbid(unsafe_code)]

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::file::{open_regular_at, RegularOpen};
use crate::limits::{
    RECENT_SERVERS_MAX, RECENT_SERVER_MAX_BYTES, SAVED_EXPANDED_MAX, SAVED_VIEW_MAX_BYTES,
    SAVE_MAX_DELAY, SAVE_QUIET,
};
use crate::names::decode_handle;
pub use crate::wire::SavedView;

/// The file format's version; a file of another version is ignored.
const VERSION: u32 = 1;
const APP_FOLDER: &str = "canopy";
const FILE_NAME: &str = "state.json";

/// Where the window was, in physical pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WindowPlacement {
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
    pub maximized: bool,
}

/// A monitor's work area (the screen minus panels and docks), in physical pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkArea {
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
}

/// A remembered placement fitted to the monitors there are now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fitted {
    pub width: u32,
    pub height: u32,
    /// Where its top-left corner goes; `None` when the remembered place is
    /// on no monitor now (the window manager places it).
    pub position: Option<(i32, i32)>,
    pub maximized: bool,
}

/// The area two rectangles share, in square pixels (0 when apart).
fn overlap(p: &WindowPlacement, a: &WorkArea) -> u64 {
    let span = |start: i64, len: u32, a_start: i64, a_len: u32| {
        let (lo, hi) = (
            start.max(a_start),
            (start + i64::from(len)).min(a_start + i64::from(a_len)),
        );
        (hi - lo).max(0) as u64
    };
    span(i64::from(p.x), p.width, i64::from(a.x), a.width)
        * span(i64::from(p.y), p.height, i64::from(a.y), a.height)
}

/// Fits a remembered window to the monitors' work areas (`areas`, the
/// primary first): its size is clamped to the work area of the monitor it
/// overlaps most, and its position moved so that it lies wholly inside that
/// area; a window that overlaps no monitor keeps no position, and its size is
/// clamped to the first area. `None` when there is no monitor to fit it to:
/// nothing remembered is applied, the window opens at its default size.
pub fn fit_to_screen(p: WindowPlacement, areas: &[WorkArea]) -> Option<Fitted> {
    let areas: Vec<&WorkArea> = areas
        .iter()
        .filter(|a| a.width > 0 && a.height > 0)
        .collect();
    let on = areas
        .iter()
        .copied()
        .filter(|a| overlap(&p, a) > 0)
        .max_by_key(|a| overlap(&p, a));
    let area = on.or_else(|| areas.first().copied())?;
    let (width, height) = (p.width.min(area.width), p.height.min(area.height));
    let clamp = |at: i32, len: u32, start: i32, room: u32| {
        let last = i64::from(start) + i64::from(room - len);
        i64::from(at).clamp(i64::from(start), last) as i32
    };
    let position = on.map(|a| {
        (
            clamp(p.x, width, a.x, a.width),
            clamp(p.y, height, a.y, a.height),
        )
    });
    Some(Fitted {
        width,
        height,
        position,
        maximized: p.maximized,
    })
}

/// When to write the remembered view: `SAVE_QUIET` after the last change,
/// but never later than `SAVE_MAX_DELAY` after the first change not yet
/// written. Pure: the caller passes the clock's readings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SaveSchedule {
    first_unsaved: Option<Instant>,
    last_change: Option<Instant>,
}

impl SaveSchedule {
    /// Notes a change at `now`; returns when the write is due.
    pub fn changed(&mut self, now: Instant) -> Instant {
        self.first_unsaved.get_or_insert(now);
        self.last_change = Some(now);
        self.due().unwrap_or(now)
    }

    /// When the write is due; `None` when nothing is waiting.
    pub fn due(&self) -> Option<Instant> {
        Some((self.last_change? + SAVE_QUIET).min(self.first_unsaved? + SAVE_MAX_DELAY))
    }

    /// True when a write is waiting and due at `now`: the caller writes,
    /// and nothing is waiting any more.
    pub fn take_due(&mut self, now: Instant) -> bool {
        let due = self.due().is_some_and(|d| d <= now);
        if due {
            *self = SaveSchedule::default();
        }
        due
    }
}

/// Everything remembered.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Remembered {
    pub view: Option<SavedView>,
    pub window: Option<WindowPlacement>,
}

#[derive(Serialize, Deserialize)]
struct FileFormat {
    version: u32,
    #[serde(flatten)]
    remembered: Remembered,
}

/// What reading the file gave: what can be used, and what went wrong.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Loaded {
    pub remembered: Remembered,
    /// Why the file was ignored (for the window to say), if it was.
    pub problem: Option<String>,
}

/// The state file's path from `XDG_CONFIG_HOME` and `HOME` (as given), or
/// `None` when neither names an absolute folder.
pub fn state_path_from(
    xdg_config_home: Option<OsString>,
    home: Option<OsString>,
) -> Option<PathBuf> {
    let absolute = |v: Option<OsString>| v.map(PathBuf::from).filter(|p| p.is_absolute());
    let config = absolute(xdg_config_home).or_else(|| absolute(home).map(|h| h.join(".config")))?;
    Some(config.join(APP_FOLDER).join(FILE_NAME))
}

/// The state file's path for this process's environment.
pub fn state_path() -> Option<PathBuf> {
    state_path_from(
        std::env::var_os("XDG_CONFIG_HOME"),
        std::env::var_os("HOME"),
    )
}

/// Reads the state file. Never fails: a missing file is a first start
/// (nothing remembered, no problem); any other failure is a `problem`.
pub fn load(path: &Path) -> Loaded {
    let ignored = |why: String| Loaded {
        remembered: Remembered::default(),
        problem: Some(format!(
            "The saved view ({}) was ignored: {why}. Starting fresh.",
            path.display()
        )),
    };
    // The engine's regular-file open: a fifo or a device put where the file
    // should be is never opened, so it cannot hold the start.
    let Ok(c_path) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return ignored("its path holds a NUL byte".into());
    };
    let file = match open_regular_at(libc::AT_FDCWD, &c_path, true) {
        Ok((f, _)) => f,
        Err(RegularOpen::Io(e)) if e.kind() == io::ErrorKind::NotFound => return Loaded::default(),
        Err(RegularOpen::Io(e)) => return ignored(format!("it cannot be read ({})", reason(&e))),
        Err(RegularOpen::NotRegular(_) | RegularOpen::Changed) => {
            return ignored("it cannot be read (it is not a regular file)".into())
        }
    };
    let mut bytes = Vec::new();
    // One byte past the limit tells an oversized file from one at the limit.
    if let Err(e) = file.take(SAVED_VIEW_MAX_BYTES + 1).read_to_end(&mut bytes) {
        return ignored(format!("it cannot be read ({})", reason(&e)));
    }
    if bytes.len() as u64 > SAVED_VIEW_MAX_BYTES {
        return ignored(format!("it is larger than {SAVED_VIEW_MAX_BYTES} bytes"));
    }
    let parsed: FileFormat = match serde_json::from_slice(&bytes) {
        Ok(p) => p,
        Err(e) => return ignored(format!("it is not a saved view ({e})")),
    };
    if parsed.version != VERSION {
        return ignored(format!(
            "it is of version {}, not {VERSION}",
            parsed.version
        ));
    }
    Loaded {
        remembered: checked(parsed.remembered),
        problem: None,
    }
}

/// Drops what cannot be trusted: a view whose folder handle or depth is
/// invalid, expanded handles that do not decode, and the excess beyond
/// `SAVED_EXPANDED_MAX`; a window of zero size.
fn checked(mut r: Remembered) -> Remembered {
    let usable = |v: &SavedView| {
        decode_handle(&v.folder).is_ok()
            && crate::walk::check_settings(&v.settings, false).is_ok()
            && crate::filter::of_settings(&v.settings).is_ok()
    };
    r.view = r.view.filter(usable).map(|mut v| {
        v.expanded.retain(|h| decode_handle(h).is_ok());
        v.expanded.truncate(SAVED_EXPANDED_MAX);
        v.selected = v.selected.filter(|h| decode_handle(h).is_ok());
        v.servers.retain(|url| is_server_url(url));
        v.servers.truncate(RECENT_SERVERS_MAX);
        v
    });
    r.window = r.window.filter(|w| w.width > 0 && w.height > 0);
    r
}

/// A recent server as the window remembers one: an `sftp://` or `ssh://`
/// URL of at most `RECENT_SERVER_MAX_BYTES`, with no control character.
fn is_server_url(url: &str) -> bool {
    let lower = url
        .get(..7)
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    (lower.starts_with("sftp://") || lower.starts_with("ssh://"))
        && url.len() <= RECENT_SERVER_MAX_BYTES
        && !url.chars().any(char::is_control)
}

fn reason(e: &io::Error) -> String {
    crate::CanopyError::from_io(e, "error")
        .message
        .trim_start_matches("error: ")
        .to_string()
}

/// Writes the state file atomically: a new file beside it, written and
/// synced, renamed over the old one, and the folder synced. The folder is
/// created (mode 0700) when missing.
///
/// # Errors
/// The I/O error of the step that failed; the old file is then untouched.
pub fn save(path: &Path, remembered: &Remembered) -> io::Result<()> {
    let folder = path
        .parent()
        .ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(folder)?;
    let mut remembered = remembered.clone();
    if let Some(v) = &mut remembered.view {
        v.expanded.truncate(SAVED_EXPANDED_MAX);
    }
    let json = serde_json::to_vec_pretty(&FileFormat {
        version: VERSION,
        remembered,
    })
    .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
    let mut temp_name = OsString::from(".");
    temp_name.push(name);
    temp_name.push(format!(".{}.tmp", std::process::id()));
    let temp = folder.join(temp_name);
    let written = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&temp)?;
        f.write_all(&json)?;
        f.sync_all()?;
        fs::rename(&temp, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written?;
    File::open(folder)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::names::encode_handle;
    use std::os::unix::ffi::OsStringExt;

    fn view(folder: &Path) -> SavedView {
        SavedView {
            folder: encode_handle(folder),
            settings: crate::wire::ListSettings {
                depth: 3,
                show_dotfiles: false,
                sort: crate::wire::SortBy::Size,
                reverse: true,
                hide_ignored: true,
                ..Default::default()
            },
            expanded: vec![
                encode_handle(&folder.join("a")),
                encode_handle(&folder.join("a/b")),
            ],
            selected: Some(encode_handle(&folder.join("a/b/c.txt"))),
            servers: vec!["sftp://ann@files.example:2222/srv".into()],
        }
    }

    fn placed(x: i32, y: i32, width: u32, height: u32) -> WindowPlacement {
        WindowPlacement {
            x,
            y,
            width,
            height,
            maximized: false,
        }
    }

    const FULL_HD: WorkArea = WorkArea {
        x: 0,
        y: 0,
        width: 1920,
        height: 1080,
    };

    #[test]
    fn a_huge_remembered_window_is_clamped_to_the_work_area() {
        let fitted = fit_to_screen(placed(0, 0, 30_000, 30_000), &[FULL_HD]).unwrap();
        assert_eq!(
            (fitted.width, fitted.height, fitted.position),
            (1920, 1080, Some((0, 0))),
            "never larger than the screen"
        );
        // Below a top panel: the work area, not the screen.
        let panel = WorkArea {
            x: 0,
            y: 32,
            width: 1920,
            height: 1048,
        };
        let fitted = fit_to_screen(placed(100, 0, 1200, 30_000), &[panel]).unwrap();
        assert_eq!(
            (fitted.width, fitted.height, fitted.position),
            (1200, 1048, Some((100, 32)))
        );
    }

    #[test]
    fn a_window_hanging_off_its_monitor_is_moved_wholly_onto_it() {
        let fitted = fit_to_screen(placed(1500, 900, 800, 600), &[FULL_HD]).unwrap();
        assert_eq!(
            fitted.position,
            Some((1120, 480)),
            "its right and bottom edges come back inside"
        );
        let fitted = fit_to_screen(placed(-300, -50, 800, 600), &[FULL_HD]).unwrap();
        assert_eq!(fitted.position, Some((0, 0)));
        let right = WorkArea {
            x: 1920,
            y: 0,
            width: 1280,
            height: 1024,
        };
        let fitted = fit_to_screen(placed(1800, 100, 1000, 700), &[FULL_HD, right]).unwrap();
        assert_eq!(
            fitted.position,
            Some((1920, 100)),
            "onto the monitor it overlaps most"
        );
    }

    #[test]
    fn what_cannot_be_placed_is_dropped() {
        let gone = fit_to_screen(placed(-100_000, i32::MAX, 30_000, u32::MAX), &[FULL_HD]).unwrap();
        assert_eq!(
            (gone.width, gone.height, gone.position),
            (1920, 1080, None),
            "a place on no monitor is dropped, the size still clamped"
        );
        assert_eq!(
            fit_to_screen(placed(0, 0, 800, 600), &[]),
            None,
            "no monitor: nothing is applied"
        );
        let empty = WorkArea {
            x: 0,
            y: 0,
            width: 0,
            height: 0,
        };
        assert_eq!(fit_to_screen(placed(0, 0, 800, 600), &[empty]), None);
        let small = fit_to_screen(placed(10, 20, 800, 600), &[FULL_HD]).unwrap();
        assert_eq!(
            (small.width, small.height, small.position),
            (800, 600, Some((10, 20))),
            "a window that fits is left alone"
        );
    }

    #[test]
    fn the_view_is_written_at_most_quiet_after_the_last_change_and_max_delay_after_the_first() {
        let start = Instant::now();
        let at = |ms: u64| start + std::time::Duration::from_millis(ms);
        let mut s = SaveSchedule::default();
        assert!(!s.take_due(at(0)), "nothing waiting, nothing due");
        assert_eq!(
            s.changed(at(0)),
            at(500),
            "a lone change is written after the quiet time"
        );
        assert!(!s.take_due(at(499)));
        assert!(s.take_due(at(500)));
        assert_eq!(s.due(), None, "written: nothing waits");
        // A folder changing every 200 ms: each change moves the quiet time on,
        // but not past 2 s after the first unsaved change.
        let mut s = SaveSchedule::default();
        let mut written = Vec::new();
        for ms in (1_000..7_000).step_by(200) {
            s.changed(at(ms));
            for tick in (ms..ms + 200).step_by(10) {
                if s.take_due(at(tick)) {
                    written.push(tick);
                }
            }
        }
        assert_eq!(
            written,
            [3_000, 5_200],
            "at most 2 s after the first unsaved change, while changes go on"
        );
        assert!(!s.take_due(at(7_299)));
        assert!(
            s.take_due(at(7_300)),
            "and the quiet time after the last one"
        );
    }

    #[test]
    fn a_file_from_before_orders_existed_reads_as_the_name_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        std::fs::write(&path, br#"{"version":1,"view":{"folder":"L3Q","depth":2,"showDotfiles":true,"expanded":[],"selected":null}}"#).unwrap();
        let view = load(&path)
            .remembered
            .view
            .expect("the old view still reads");
        assert_eq!(
            (
                view.settings.sort,
                view.settings.reverse,
                view.settings.hide_ignored
            ),
            (crate::wire::SortBy::Name, false, false)
        );
    }

    #[test]
    fn xdg_config_home_is_honoured_and_a_relative_one_ignored() {
        let p = state_path_from(Some("/x/conf".into()), Some("/home/u".into()));
        assert_eq!(p.unwrap(), Path::new("/x/conf/canopy/state.json"));
        let p = state_path_from(Some("relative/conf".into()), Some("/home/u".into()));
        assert_eq!(
            p.unwrap(),
            Path::new("/home/u/.config/canopy/state.json"),
            "a relative XDG_CONFIG_HOME is ignored"
        );
        assert_eq!(state_path_from(None, None), None);
    }

    #[test]
    fn a_saved_view_round_trips_byte_exact() {
        let dir = tempfile::tempdir().unwrap();
        let odd = dir
            .path()
            .join(std::ffi::OsString::from_vec(b"caf\xe9 \xff\n".to_vec()));
        let path = dir.path().join("conf/canopy/state.json");
        let r = Remembered {
            view: Some(view(&odd)),
            window: Some(WindowPlacement {
                x: -20,
                y: 40,
                width: 900,
                height: 700,
                maximized: false,
            }),
        };
        save(&path, &r).unwrap();
        let back = load(&path);
        assert_eq!(back.problem, None);
        assert_eq!(back.remembered, r, "what was saved comes back");
        let folder = decode_handle(&back.remembered.view.unwrap().folder).unwrap();
        assert_eq!(folder, odd, "a non-UTF-8 path comes back byte-exact");
    }

    #[test]
    fn a_missing_file_is_a_first_start_without_a_message() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(load(&dir.path().join("none/state.json")), Loaded::default());
    }

    #[test]
    fn a_corrupt_file_is_ignored_with_a_message() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        for bad in [
            &b"{\"version\":1,\"view\":{\"folder\":"[..],
            b"\xff\xfe garbage",
            b"[]",
            b"{\"version\":99}",
        ] {
            fs::write(&path, bad).unwrap();
            let got = load(&path);
            assert_eq!(
                got.remembered,
                Remembered::default(),
                "{bad:?}: nothing from a corrupt file is used"
            );
            let msg = got.problem.expect("a corrupt file is reported");
            assert!(
                msg.contains("ignored") && msg.contains("state.json"),
                "{msg}"
            );
        }
    }

    #[test]
    fn an_oversized_file_is_ignored_unread() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        fs::write(&path, vec![b' '; SAVED_VIEW_MAX_BYTES as usize + 1]).unwrap();
        assert!(load(&path).problem.unwrap().contains("larger than"));
    }

    #[test]
    fn an_unreadable_file_is_ignored_with_a_message() {
        let dir = tempfile::tempdir().unwrap();
        // A folder where the file should be cannot be read as one, even by root.
        let path = dir.path().join("state.json");
        fs::create_dir(&path).unwrap();
        let got = load(&path);
        assert_eq!(got.remembered, Remembered::default());
        assert!(got.problem.unwrap().contains("cannot be read"));
    }

    #[test]
    fn a_fifo_or_a_device_in_its_place_is_ignored_never_opened() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("state.json");
        crate::sys::make_fifo(&fifo).unwrap();
        // Opening a fifo without a writer would block the start for ever: the
        // load runs on its own thread, and a hang fails the test instead.
        let (tx, rx) = std::sync::mpsc::channel();
        let at = fifo.clone();
        std::thread::spawn(move || tx.send(load(&at)).unwrap());
        let got = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("loading a fifo must return, not wait for a writer");
        assert!(got.problem.unwrap().contains("not a regular file"));
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        assert!(
            load(&link).problem.unwrap().contains("not a regular file"),
            "a link to a device is not followed into it"
        );
    }

    #[test]
    fn untrusted_parts_are_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        let mut v = view(dir.path());
        v.expanded.push("not a handle!".into());
        v.servers = vec![
            "/home/ann".into(),
            "sftp://bell\u{7}@host/".into(),
            format!("sftp://host/{}", "x".repeat(RECENT_SERVER_MAX_BYTES)),
        ];
        v.servers
            .extend((0..RECENT_SERVERS_MAX + 3).map(|i| format!("SFTP://host{i}/srv")));
        v.expanded.extend(
            (0..SAVED_EXPANDED_MAX + 10).map(|i| encode_handle(&dir.path().join(format!("f{i}")))),
        );
        let json = serde_json::json!({ "version": 1, "view": v, "window": { "x": 0, "y": 0, "width": 0, "height": 5, "maximized": false } });
        fs::write(&path, json.to_string()).unwrap();
        let got = load(&path).remembered;
        let got_view = got.view.unwrap();
        assert!(
            got_view.expanded.iter().all(|h| decode_handle(h).is_ok()),
            "undecodable handles are dropped"
        );
        assert_eq!(
            got_view.expanded.len(),
            SAVED_EXPANDED_MAX,
            "at most SAVED_EXPANDED_MAX folders are restored"
        );
        assert_eq!(got.window, None, "a zero-size window is not restored");
        assert_eq!(
            got_view.servers,
            (0..RECENT_SERVERS_MAX)
                .map(|i| format!("SFTP://host{i}/srv"))
                .collect::<Vec<_>>(),
            "only sftp:// URLs without control characters, at most RECENT_SERVERS_MAX"
        );

        let mut deep = view(dir.path());
        deep.settings.depth = crate::limits::MAX_DEPTH + 1;
        fs::write(
            &path,
            serde_json::json!({ "version": 1, "view": deep }).to_string(),
        )
        .unwrap();
        assert_eq!(
            load(&path).remembered.view,
            None,
            "a depth out of range drops the view"
        );

        for (what, settings) in [
            (
                "a zero cap",
                crate::wire::ListSettings {
                    cap: 0,
                    ..view(dir.path()).settings
                },
            ),
            (
                "a page past MAX_PAGE",
                crate::wire::ListSettings {
                    limit: u32::MAX,
                    ..view(dir.path()).settings
                },
            ),
            (
                "a filter the engine refuses",
                crate::wire::ListSettings {
                    filter: Some("a/b".into()),
                    ..view(dir.path()).settings
                },
            ),
        ] {
            let bad = SavedView {
                settings,
                ..view(dir.path())
            };
            fs::write(
                &path,
                serde_json::json!({ "version": 1, "view": bad }).to_string(),
            )
            .unwrap();
            assert_eq!(load(&path).remembered.view, None, "{what} drops the view");
        }
    }

    #[test]
    fn a_view_with_a_key_it_does_not_know_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut json = serde_json::to_value(view(dir.path())).unwrap();
        assert!(
            serde_json::from_value::<SavedView>(json.clone()).is_ok(),
            "the view as written reads back"
        );
        json["evil"] = serde_json::json!(1);
        let err = serde_json::from_value::<SavedView>(json).unwrap_err();
        assert!(err.to_string().contains("evil"), "{err}");
    }

    #[test]
    fn saving_replaces_the_file_whole_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("canopy/state.json");
        let first = Remembered {
            view: Some(view(&dir.path().join("first"))),
            window: None,
        };
        save(&path, &first).unwrap();
        let second = Remembered {
            view: Some(view(&dir.path().join("second"))),
            window: None,
        };
        save(&path, &second).unwrap();
        assert_eq!(load(&path).remembered, second);
        let names: Vec<_> = fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            names,
            vec![std::ffi::OsString::from("state.json")],
            "only the state file remains"
        );
    }

    #[test]
    fn a_failed_save_leaves_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("canopy/state.json");
        let first = Remembered {
            view: Some(view(&dir.path().join("first"))),
            window: None,
        };
        save(&path, &first).unwrap();
        // The rename cannot replace a non-empty folder: the write fails at its last step.
        let blocked = dir.path().join("canopy/blocked.json");
        fs::create_dir_all(blocked.join("x")).unwrap();
        assert!(save(&blocked, &first).is_err());
        assert_eq!(load(&path).remembered, first, "the old file is untouched");
        let left: Vec<_> = fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(
            left.iter().all(|n| !n.to_string_lossy().ends_with(".tmp")),
            "no temporary file is left: {left:?}"
        );
    }
}
