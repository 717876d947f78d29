//! Who would open a file: the system's default application for a MIME type,
//! as `xdg-mime` names it, vetted so that "Open…" never starts an
//! interpreter, Wine, Java or a terminal.
//!
//! `xdg-mime` is asked the same questions `xdg-open` asks (the file's type by
//! content, and the default application of a type), and the desktop entry it
//! names is read: refused when its program (after `env` and its assignments)
//! is a shell, an interpreter, Wine, Java or a terminal emulator, or when it
//! cannot be found to be read. An entry that runs in a terminal
//! (`Terminal=true`: vim, nano, less) is allowed for the allowlist's types
//! when its own program is none of those: the user chose it for that type,
//! and the file's name reaches it as one argument, never as a command. What
//! it then does with the content is its own handling, as when the user runs
//! it in a terminal (vim's modelines, a `LESSOPEN` filter): it is trusted as
//! much as any other default application. Where the system has no
//! `xdg-mime`, nothing can be vetted and the answer is a refusal; where it
//! names no application, there is nothing to vet.
#![forbid(unsafe_code)]

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::error::{CanopyError, ErrorCode};
use crate::limits::HANDLER_QUERY_TIMEOUT;

/// Programs that run what they are given: shells and interpreters (compared
/// with a version suffix dropped: `python3.11` is `python`).
const INTERPRETERS: &[&str] = &[
    "sh",
    "bash",
    "dash",
    "zsh",
    "ksh",
    "mksh",
    "csh",
    "tcsh",
    "fish",
    "ash",
    "busybox",
    "python",
    "pypy",
    "perl",
    "ruby",
    "irb",
    "node",
    "nodejs",
    "deno",
    "bun",
    "php",
    "lua",
    "luajit",
    "tclsh",
    "wish",
    "expect",
    "osascript",
    "pwsh",
    "powershell",
    "rscript",
    "julia",
    "guile",
    "racket",
    "sbcl",
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "mono",
    "dotnet",
    "cscript",
    "wscript",
    "mshta",
    "cmd",
    "xdg-open",
    "gio",
    "run-mailcap",
    "see",
    "mimeopen",
    "exec",
    // They run their arguments as a command line, or as another user.
    "watch",
    "script",
    "xargs",
    "parallel",
    "sudo",
    "su",
    "doas",
    "pkexec",
    "systemd-run",
    "flatpak-spawn",
];
/// Java runs a `.jar` it is handed.
const JAVA: &[&str] = &["java", "javaw", "jexec", "jshell"];
/// Terminal emulators (they run a command line, or a shell).
const TERMINALS: &[&str] = &[
    "x-terminal-emulator",
    "xterm",
    "uxterm",
    "gnome-terminal",
    "gnome-terminal.wrapper",
    "konsole",
    "xfce4-terminal",
    "lxterminal",
    "mate-terminal",
    "qterminal",
    "terminator",
    "tilix",
    "kitty",
    "alacritty",
    "foot",
    "footclient",
    "wezterm",
    "urxvt",
    "rxvt",
    "rxvt-unicode",
    "st",
    "sakura",
    "guake",
    "tilda",
    "terminology",
    "kgx",
    "ptyxis",
    "cool-retro-term",
    "deepin-terminal",
    "eterm",
    "aterm",
    "yakuake",
    // Multiplexers: a terminal inside a terminal, running a command line.
    "tmux",
    "screen",
    "byobu",
    "zellij",
    "dtach",
    "abduco",
];

/// The desktop `xdg-mime` answers for: the process's own, or one confined
/// to a folder (tests).
#[derive(Debug, Clone)]
pub struct Desktop {
    program: OsString,
    /// Variables set (`Some`) or removed (`None`) for `xdg-mime`, and used
    /// to find desktop entries.
    env: Vec<(&'static str, Option<OsString>)>,
}

/// Variables that make `xdg-mime` ask a desktop environment instead of
/// reading the XDG files.
const DE_VARS: &[&str] = &[
    "DESKTOP_SESSION",
    "KDE_FULL_SESSION",
    "KDE_SESSION_VERSION",
    "GNOME_DESKTOP_SESSION_ID",
    "MATE_DESKTOP_SESSION_ID",
    "LXQT_SESSION_CONFIG",
    "XDG_MENU_PREFIX",
];

impl Desktop {
    /// The desktop this process runs in.
    pub fn system() -> Self {
        Desktop {
            program: "xdg-mime".into(),
            env: Vec::new(),
        }
    }

    /// A desktop whose every XDG folder lies under `root` (`config`,
    /// `config-system`, `data`, `data-system`) and that names no desktop
    /// environment, so that `xdg-mime` reads only those files.
    pub fn confined_to(root: &Path) -> Self {
        let at = |sub: &str| Some(root.join(sub).into_os_string());
        let mut env = vec![
            ("HOME", Some(root.as_os_str().to_owned())),
            ("XDG_CONFIG_HOME", at("config")),
            ("XDG_CONFIG_DIRS", at("config-system")),
            ("XDG_DATA_HOME", at("data")),
            ("XDG_DATA_DIRS", at("data-system")),
            ("XDG_CURRENT_DESKTOP", Some("X-Generic".into())),
        ];
        env.extend(DE_VARS.iter().map(|v| (*v, None)));
        Desktop {
            program: "xdg-mime".into(),
            env,
        }
    }

    /// Uses another program in place of `xdg-mime` (tests: one that hangs).
    pub fn with_program(mut self, program: impl Into<OsString>) -> Self {
        self.program = program.into();
        self
    }

    fn var(&self, name: &str) -> Option<OsString> {
        match self.env.iter().find(|(k, _)| *k == name) {
            Some((_, v)) => v.clone(),
            None => std::env::var_os(name),
        }
        .filter(|v| !v.is_empty())
    }

    /// Runs `xdg-mime ARGS` and returns its first line; `None` when it
    /// names nothing.
    ///
    /// # Errors
    /// `NOT_OPENABLE` when `xdg-mime` is not installed (nothing could be
    /// vetted) or hangs; `IO` when it cannot be run.
    fn query(&self, args: &[&OsStr]) -> Result<Option<String>, CanopyError> {
        let mut cmd = Command::new(&self.program);
        cmd.args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (k, v) in &self.env {
            match v {
                Some(v) => cmd.env(k, v),
                None => cmd.env_remove(k),
            };
        }
        let mut child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(CanopyError::new(
                    ErrorCode::NotOpenable,
                    "not opened: xdg-mime (from the xdg-utils package) is not installed, so the application that \
                     would open it cannot be checked",
                ))
            }
            Err(e) => return Err(CanopyError::from_io(&e, "cannot ask the system for the default application")),
        };
        let start = Instant::now();
        loop {
            match child.try_wait() {
                Ok(Some(_)) => break,
                Ok(None) if start.elapsed() > HANDLER_QUERY_TIMEOUT => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(CanopyError::new(
                        ErrorCode::NotOpenable,
                        "not opened: the system took too long to name the application that would open it",
                    ));
                }
                // Polling a child's exit: the query is a short shell script.
                Ok(None) => std::thread::sleep(std::time::Duration::from_millis(5)),
                Err(e) => {
                    return Err(CanopyError::from_io(
                        &e,
                        "cannot ask the system for the default application",
                    ))
                }
            }
        }
        let mut out = String::new();
        if let Some(mut stdout) = child.stdout.take() {
            // Its answer is a line; a stray non-UTF-8 byte just makes it unusable.
            let mut raw = Vec::new();
            let _ = stdout.read_to_end(&mut raw);
            out = String::from_utf8_lossy(&raw).into_owned();
        }
        Ok(out
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(str::to_owned))
    }

    /// The MIME type the system gives this file by its content
    /// (`xdg-mime query filetype`), as `xdg-open` would.
    ///
    /// Parameters (`; charset=...`) are dropped, as `xdg-open` drops them.
    ///
    /// # Errors
    /// `NOT_OPENABLE` when `xdg-mime` is missing or hangs; `IO` when it
    /// cannot be run.
    pub fn filetype(&self, path: &Path) -> Result<Option<String>, CanopyError> {
        let answer = self.query(&["query".as_ref(), "filetype".as_ref(), path.as_os_str()])?;
        // `file` answers "cannot open ..." and the like on failure: a type has a slash.
        Ok(answer
            .map(|t| t.split(';').next().unwrap_or_default().trim().to_owned())
            .filter(|t| t.contains('/') && !t.contains(' ')))
    }

    /// The desktop entries the system names as the default for `mime`.
    ///
    /// # Errors
    /// As [`Desktop::filetype`].
    pub fn default_for(&self, mime: &str) -> Result<Vec<String>, CanopyError> {
        let answer = self.query(&["query".as_ref(), "default".as_ref(), mime.as_ref()])?;
        Ok(answer
            .map(|a| {
                a.split(';')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Refuses when the default application for `mime` is one that runs code.
    ///
    /// # Errors
    /// `NOT_OPENABLE` saying which application and why.
    pub fn check_default_for(&self, mime: &str) -> Result<(), CanopyError> {
        for id in self.default_for(mime)? {
            let refuse = |why: String| {
                CanopyError::new(
                    ErrorCode::NotOpenable,
                    format!("not opened: the application for {mime} ({id}) {why}"),
                )
            };
            let path = self
                .find_entry(&id)
                .ok_or_else(|| refuse("cannot be found to be checked".into()))?;
            let text =
                std::fs::read(&path).map_err(|_| refuse("cannot be read to be checked".into()))?;
            let terminal = if crate::openable::is_allowed_type(mime) {
                Terminal::Allowed
            } else {
                Terminal::Refused
            };
            vet_entry(&id, &String::from_utf8_lossy(&text), terminal).map_err(refuse)?;
        }
        Ok(())
    }

    /// Where the desktop entry `id` lives: `applications/` under the user's
    /// and then the system's data folders; `a-b.desktop` may be `a/b.desktop`.
    pub fn find_entry(&self, id: &str) -> Option<PathBuf> {
        if id.contains('/') || id.starts_with('.') {
            return None;
        }
        let home_data = self.var("XDG_DATA_HOME").map(PathBuf::from).or_else(|| {
            self.var("HOME")
                .map(|h| PathBuf::from(h).join(".local/share"))
        });
        let system = self
            .var("XDG_DATA_DIRS")
            .unwrap_or_else(|| "/usr/local/share:/usr/share".into());
        let dirs = home_data.into_iter().chain(
            system
                .as_bytes()
                .split(|&b| b == b':')
                .filter(|d| !d.is_empty())
                .map(|d| PathBuf::from(OsStr::from_bytes(d))),
        );
        let dashes = id.matches('-').count();
        for dir in dirs {
            let apps = dir.join("applications");
            for n in 0..=dashes {
                let candidate = apps.join(id.replacen('-', "/", n));
                if candidate.is_file() {
                    return Some(candidate);
                }
            }
            // Like xdg-mime, also one folder down under its own name.
            let found = std::fs::read_dir(&apps)
                .into_iter()
                .flatten()
                .flatten()
                .map(|d| d.path().join(id))
                .find(|p| p.is_file());
            if found.is_some() {
                return found;
            }
        }
        None
    }
}

/// What a desktop entry's `[Desktop Entry]` group says.
#[derive(Debug, Default)]
struct EntryKeys {
    exec: Option<String>,
    try_exec: Option<String>,
    terminal: bool,
    kind: Option<String>,
}

fn parse_entry(text: &str) -> EntryKeys {
    let mut keys = EntryKeys::default();
    let mut in_main = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_main = line == "[Desktop Entry]";
            continue;
        }
        if !in_main || line.starts_with('#') {
            continue;
        }
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        let v = v.trim().to_owned();
        match k.trim() {
            "Exec" => keys.exec = Some(v),
            "TryExec" => keys.try_exec = Some(v),
            "Terminal" => keys.terminal = v.eq_ignore_ascii_case("true"),
            "Type" => keys.kind = Some(v),
            _ => {}
        }
    }
    keys
}

/// Splits an `Exec` value into arguments (double quotes group, `\` escapes).
fn exec_args(exec: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut cur = String::new();
    let (mut quoted, mut any) = (false, false);
    let mut chars = exec.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            '\\' if quoted => cur.extend(chars.next()),
            c if c.is_whitespace() && !quoted => {
                if any || !cur.is_empty() {
                    args.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            c => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        args.push(cur);
    }
    args
}

/// The program an `Exec` line starts, past `env` and its options and
/// assignments.
fn program_of(exec: &str) -> Option<String> {
    let args = exec_args(exec);
    let mut it = args.iter().peekable();
    let first = it.next()?;
    if basename(first) != "env" {
        return Some(first.clone());
    }
    while let Some(a) = it.next() {
        if a == "-u" || a == "--unset" || a == "-C" || a == "--chdir" {
            it.next();
        } else if !(a.starts_with('-') || a.contains('=')) {
            return Some(a.clone());
        }
    }
    None
}

fn basename(program: &str) -> String {
    program
        .rsplit('/')
        .next()
        .unwrap_or(program)
        .to_ascii_lowercase()
}

/// Why a program refuses to be a file's opener, if it does.
fn program_refusal(program: &str) -> Option<&'static str> {
    let name = basename(program);
    let stem = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let is = |list: &[&str]| list.contains(&name.as_str()) || list.contains(&stem);
    if name.starts_with("wine") {
        Some("is Wine, which runs Windows programs")
    } else if is(JAVA) || name.starts_with("java") {
        Some("is Java, which runs programs")
    } else if is(TERMINALS) {
        Some("is a terminal")
    } else if is(INTERPRETERS) {
        Some("is an interpreter, which runs what it is given")
    } else {
        None
    }
}

/// Whether an entry that runs in a terminal (`Terminal=true`) may open the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Terminal {
    /// For the allowlist's types: a terminal editor or pager (vim, less)
    /// the user chose gets the file's name as one argument.
    Allowed,
    /// Any entry with `Terminal=true` is refused.
    Refused,
}

/// Checks one desktop entry (its id and text). Its program, and `TryExec`'s,
/// is never a shell, an interpreter, Wine, Java or a terminal emulator; with
/// `Terminal=true` it is refused unless `terminal` allows it.
///
/// # Errors
/// Why it would run code, as words that follow its name.
pub fn vet_entry(id: &str, text: &str, terminal: Terminal) -> Result<(), String> {
    if id.to_ascii_lowercase().starts_with("wine") {
        return Err("is Wine's, which runs Windows programs".into());
    }
    let keys = parse_entry(text);
    if keys.kind.as_deref().is_some_and(|k| k != "Application") {
        return Err("is not an application".into());
    }
    if keys.terminal && terminal == Terminal::Refused {
        return Err("runs in a terminal".into());
    }
    let exec = keys.exec.as_deref().ok_or("names no program")?;
    let program = program_of(exec).ok_or("names no program")?;
    for p in std::iter::once(program.as_str()).chain(keys.try_exec.as_deref()) {
        if let Some(why) = program_refusal(p) {
            return Err(format!("{why} ({})", basename(p)));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(exec: &str) -> String {
        format!("[Desktop Entry]\nType=Application\nName=X\nExec={exec}\n")
    }

    #[test]
    fn viewers_and_editors_pass() {
        for exec in [
            "eog %U",
            "/usr/bin/evince %U",
            "libreoffice --writer %U",
            "flatpak run org.gnome.Loupe %U",
            "env GDK_BACKEND=x11 gimp %F",
            "\"/opt/My Viewer/viewer\" %f",
        ] {
            assert_eq!(
                vet_entry("viewer.desktop", &entry(exec), Terminal::Refused),
                Ok(()),
                "{exec}"
            );
        }
    }

    #[test]
    fn interpreters_wine_java_and_terminals_are_refused() {
        for exec in [
            "wine start /unix %f",
            "env WINEPREFIX=/home/u/.wine wine64 start /ProgIDOpen jpegfile %f",
            "/opt/wine-stable/bin/wine %f",
            "java -jar %f",
            "/usr/lib/jvm/bin/javaw -jar %f",
            "/usr/bin/python3.11 %f",
            "env -u DISPLAY perl5.36 %f",
            "sh -c \"cat %f\"",
            "bash %f",
            "node %f",
            "x-terminal-emulator -e less %f",
            "gnome-terminal -- vim %f",
            "xdg-open %f",
            "tmux new-session %f",
            "watch %f",
            "sudo -e %f",
        ] {
            for terminal in [Terminal::Allowed, Terminal::Refused] {
                assert!(
                    vet_entry("app.desktop", &entry(exec), terminal).is_err(),
                    "{exec} must be refused"
                );
            }
        }
    }

    #[test]
    fn a_terminal_editor_is_allowed_only_where_terminals_are() {
        let vim = "[Desktop Entry]\nType=Application\nTryExec=vim\nExec=vim %F\nTerminal=true\n";
        assert_eq!(
            vet_entry("vim.desktop", vim, Terminal::Refused),
            Err("runs in a terminal".into())
        );
        assert_eq!(
            vet_entry("vim.desktop", vim, Terminal::Allowed),
            Ok(()),
            "an editor chosen for text opens it"
        );
        for exec in [
            "bash %f",
            "python3 %f",
            "x-terminal-emulator -e less %f",
            "tmux new vim %f",
            "env A=1 sh -c \"less %f\"",
        ] {
            let entry = format!("[Desktop Entry]\nType=Application\nExec={exec}\nTerminal=true\n");
            assert!(
                vet_entry("t.desktop", &entry, Terminal::Allowed).is_err(),
                "{exec} in a terminal is still refused"
            );
        }
    }

    #[test]
    fn wine_ids_and_entries_without_a_program_are_refused() {
        let all = [Terminal::Allowed, Terminal::Refused];
        for t in all {
            assert!(vet_entry("wine-extension-jpg.desktop", &entry("something %f"), t).is_err());
            assert!(vet_entry("x.desktop", "[Desktop Entry]\nType=Application\n", t).is_err());
            assert!(vet_entry(
                "x.desktop",
                "[Desktop Entry]\nType=Link\nURL=https://example.com\n",
                t
            )
            .is_err());
            let try_exec = "[Desktop Entry]\nType=Application\nTryExec=python3\nExec=launcher %f\n";
            assert!(
                vet_entry("x.desktop", try_exec, t).is_err(),
                "TryExec names the real program"
            );
            // Keys of another group do not count.
            let action = "[Desktop Entry]\nType=Application\nExec=eog %f\n[Desktop Action Shell]\nExec=bash\n";
            assert_eq!(vet_entry("eog.desktop", action, t), Ok(()));
        }
    }
}
