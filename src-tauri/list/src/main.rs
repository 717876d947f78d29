//! `canopy-list`: Canopy's capped recursive listing for scripts, servers and
//! AI tools. No GUI library is linked; it runs headless and starts at once.
//!
//! Exit status: 0 for a listing (even with errors below the root), 1 when the
//! root cannot be listed (`canopy-list: CODE: message` on stderr), 2 for bad
//! arguments.
//!
//! The listing is bounded like the window's (a page of the top level, the
//! request budget, each folder's time budget, dead mounts left behind), and
//! the output is closed before returning from `main`. The process a caller
//! starts is a supervisor ([`canopy_core::supervisor`]) that exits as soon as
//! the listing has: a thread stuck on a dead mount holds neither a reader
//! from its EOF nor a caller from its `wait`.
//! `--all` lifts the page and the request budget: it holds every name of the
//! top level in memory.
//!
//! `sftp://[user@]host[:port]/path` (or `ssh://…`) lists a server's folder
//! through the system's `ssh` ([`canopy_sftp`]), with `BatchMode=yes`: a key
//! or agent must log in without a prompt.
#![forbid(unsafe_code)]

use std::ffi::OsString;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use canopy_core::limits::{
    DEFAULT_DEPTH, LINE_FIELD_BYTES, MAX_DEPTH, MAX_PAGE, MAX_SIZES_DEPTH, NESTED_CAP, PAGE,
};
use canopy_core::text::{write_text_measured, Measure};
use canopy_core::wire::{Entry, Listing};
use canopy_core::wire::{RootSpec, SortBy};
use canopy_core::{
    attach_sizes, list, sizes, CanopyError, ErrorCode, ListCall, ListSettings, LocalFs, Reported,
    RequestBudget, SizesCall, Source,
};
use canopy_sftp::SshOptions;

const USAGE: &str = "usage: canopy-list PATH [--depth N] [--cap N] [--limit N] [--offset N | --after CURSOR | --all] \
[--sort name|size|modified|type] [--reverse] [--filter PATTERN] [--gitignore] [--summary] [--archives] [--no-dotfiles] \
[--sizes [--apparent]] [--json] [--ssh-config FILE]";

struct Args {
    path: OsString,
    /// `-F FILE` for `ssh` (an `sftp://` PATH).
    ssh_config: Option<PathBuf>,
    settings: ListSettings,
    call: ListCall,
    json: bool,
    /// `--sizes`: each listed folder's recursive size, and which to print.
    sizes: Option<Measure>,
}

fn help() -> String {
    format!(
        "{USAGE}\n\n\
         Lists PATH to a depth (default {DEFAULT_DEPTH}, at most {MAX_DEPTH}), showing at most --cap entries\n\
         per folder below the top (default {NESTED_CAP}) and a page of the top level (--limit 1 to\n\
         {MAX_PAGE}, default {PAGE}), with an exact count of everything left out. Page with --offset N\n\
         (a page past the end is empty and says the total) or with --after CURSOR (the nextCursor of\n\
         the previous page's --json). --all prints the whole top level instead of a page: it holds\n\
         every name of the top level in memory and is not bounded by the request budget.\n\
         --no-dotfiles leaves out names starting with '.'; --json prints the listing as JSON.\n\n\
         --sort name|size|modified|type orders every folder (folders first; default name, natural\n\
         order), --reverse reverses it (ties stay by name, ascending); the first --cap of a folder\n\
         are the first in that order over the whole folder. --filter PATTERN keeps the top level's\n\
         entries whose name holds PATTERN (case-insensitive), or matches it whole when it holds\n\
         *, ? or [...], and prints [MATCH] first. --gitignore leaves out what git would ignore and\n\
         prints [IGNORED] for each folder that hid some. --summary prints [REST] after each\n\
         [WARNING]: what the hidden entries are, by group.\n\n\
         PATH may run through an archive (zip, tar, tar.gz/bz2/xz/zst, told by its first bytes):\n\
         site.zip/assets lists inside it, nothing is extracted. An archive in a listing prints\n\
         [ARCHIVE]; --archives descends into archives within the depth (an archive is one level).\n\n\
         PATH may be sftp://[user@]host[:port]/path (or ssh://...): a server's folder, read over SFTP\n\
         through the system's ssh (your ~/.ssh/config, agent, keys and known_hosts; --ssh-config FILE\n\
         reads FILE instead, as ssh -F). ssh runs with BatchMode=yes: nothing is prompted. An unknown\n\
         or changed host key fails with HOST_KEY_UNKNOWN or HOST_KEY_CHANGED, a refused login with\n\
         AUTH_FAILED. sftp://host lists the login's home folder; sftp://host/~/dir a folder in it.\n\n\
         --sizes counts everything below each listed folder, as du -x does (symlinks never followed,\n\
         other filesystems never entered, hard links once): `[DIR] photos (1.52 GiB)`, `(≥ 1.52 GiB)`\n\
         when something below could not be read, the listed folder's on a first `[SIZE]` line, and\n\
         in --json a `sizes` object in every folder. Disk usage by default; --apparent prints the\n\
         apparent size (du -b). With --sizes the depth is at most {MAX_SIZES_DEPTH}.\n\n\
         Exit status: 0 listed, 1 the folder cannot be listed, 2 bad arguments.\n"
    )
}

fn number(flag: &str, value: Option<OsString>, min: u64, max: u64) -> Result<u64, String> {
    let value = value.ok_or_else(|| format!("{flag} needs a number"))?;
    let text = value
        .to_str()
        .ok_or_else(|| format!("{flag}: not a number"))?;
    let n: u64 = text
        .parse()
        .map_err(|_| format!("{flag}: '{text}' is not a whole number"))?;
    if n < min || n > max {
        return Err(format!("{flag} must be {min} to {max}, not {n}"));
    }
    Ok(n)
}

fn parse(mut argv: impl Iterator<Item = OsString>) -> Result<Option<Args>, String> {
    let mut path = None;
    let mut ssh_config = None;
    let (mut settings, mut call) = (ListSettings::default(), ListCall::default());
    let mut json = false;
    let mut summary = false;
    let mut only_paths = false;
    let (mut sizes, mut apparent) = (false, false);
    let (mut limit, mut all) = (None, false);
    while let Some(arg) = argv.next() {
        match arg.to_str() {
            Some("-h" | "--help") if !only_paths => return Ok(None),
            Some("--") if !only_paths => only_paths = true,
            Some("--depth") if !only_paths => {
                settings.depth = number("--depth", argv.next(), 1, MAX_DEPTH as u64)? as u32
            }
            Some("--cap") if !only_paths => {
                settings.cap = number("--cap", argv.next(), 1, MAX_PAGE as u64)? as u32
            }
            Some("--limit") if !only_paths => {
                limit = Some(number("--limit", argv.next(), 1, MAX_PAGE as u64)?)
            }
            Some("--offset") if !only_paths => {
                call.offset = number("--offset", argv.next(), 0, u64::MAX)?
            }
            Some("--after") if !only_paths => {
                let value = argv.next().ok_or("--after needs a cursor")?;
                call.after = Some(
                    value
                        .into_string()
                        .map_err(|_| "--after: not a cursor".to_string())?,
                );
            }
            Some("--all") if !only_paths => all = true,
            Some("--no-dotfiles") if !only_paths => settings.show_dotfiles = false,
            Some("--sort") if !only_paths => {
                settings.sort = match argv.next().as_deref().and_then(|v| v.to_str()) {
                    Some("name") => SortBy::Name,
                    Some("size") => SortBy::Size,
                    Some("modified") => SortBy::Modified,
                    Some("type") => SortBy::Type,
                    Some(other) => {
                        return Err(format!(
                            "--sort: '{other}' is not name, size, modified or type"
                        ))
                    }
                    None => return Err("--sort needs name, size, modified or type".into()),
                }
            }
            Some("--reverse") if !only_paths => settings.reverse = true,
            Some("--filter") if !only_paths => {
                let value = argv.next().ok_or("--filter needs a pattern")?;
                settings.filter = Some(
                    value
                        .into_string()
                        .map_err(|_| "--filter: the pattern is not UTF-8".to_string())?,
                );
            }
            Some("--gitignore") if !only_paths => settings.hide_ignored = true,
            Some("--summary") if !only_paths => summary = true,
            Some("--archives") if !only_paths => call.archives = true,
            Some("--json") if !only_paths => json = true,
            Some("--ssh-config") if !only_paths => {
                ssh_config = Some(PathBuf::from(
                    argv.next().ok_or("--ssh-config needs a file")?,
                ))
            }
            Some("--sizes") if !only_paths => sizes = true,
            Some("--apparent") if !only_paths => apparent = true,
            Some(flag) if flag.starts_with('-') && flag.len() > 1 && !only_paths => {
                return Err(format!("unknown option {flag}"))
            }
            _ if path.is_none() => path = Some(arg),
            _ => return Err("only one PATH may be given".into()),
        }
    }
    let path = path.ok_or("PATH is missing")?;
    if path.is_empty() {
        return Err("PATH is empty".into());
    }
    if all && (limit.is_some() || call.offset != 0 || call.after.is_some()) {
        return Err(
            "--all lists the whole top level: it takes no --limit, --offset or --after".into(),
        );
    }
    if call.after.is_some() && call.offset != 0 {
        return Err("give either --offset or --after, not both".into());
    }
    if apparent && !sizes {
        return Err("--apparent chooses which size --sizes prints: give --sizes too".into());
    }
    if sizes && settings.depth > MAX_SIZES_DEPTH {
        return Err(format!(
            "with --sizes the depth must be 1 to {MAX_SIZES_DEPTH}, not {}",
            settings.depth
        ));
    }
    settings.limit = limit.unwrap_or(u64::from(PAGE)) as u32;
    call.whole_top_level = all;
    if all {
        // The whole top level, and everything below it within depth and cap.
        call.request = RequestBudget::UNLIMITED;
    }
    // Text mode prints neither size, time nor handles, so it makes none.
    call.details = json;
    // Sizes find their folders by handle.
    call.handles = json || sizes;
    call.summary = json || summary;
    Ok(Some(Args {
        path,
        ssh_config,
        settings,
        call,
        json,
        sizes: sizes.then_some(if apparent {
            Measure::Apparent
        } else {
            Measure::DiskUsage
        }),
    }))
}

/// Lists what `args.path` names, where the registry says it lives: a local
/// folder, a server's folder for an `sftp://` or `ssh://` URL, or a folder
/// inside an archive on either.
fn list_path(args: &Args) -> Result<Listing, CanopyError> {
    if args.ssh_config.is_some() && !canopy_sftp::is_remote(args.path.as_encoded_bytes()) {
        return Err(CanopyError::invalid(
            "--ssh-config is for an sftp:// or ssh:// PATH",
        ));
    }
    let registry = canopy_places::standard(canopy_places::Reach {
        local: LocalFs::new().with_env_seams(),
        ssh: SshOptions {
            config: args.ssh_config.clone(),
            batch: true,
            program: None,
            askpass: None,
        },
    });
    // A URL that is not UTF-8 is escaped (the same bytes read back); any
    // other path that is not is passed as a handle of its exact bytes.
    let spec = match canopy_sftp::places::startup_of(&args.path) {
        Some(startup) => startup.folder,
        None => match args.path.clone().into_string() {
            Ok(text) => RootSpec::Text(text),
            Err(raw) => RootSpec::Handle(canopy_core::names::encode_handle(&PathBuf::from(raw))),
        },
    };
    // Connecting (and finding a server's home folder) is not a folder's
    // read: it has its own time (`SFTP_CONNECT_TIME`), before the listing's.
    let place = registry.locate(&spec)?;
    let mut listing = list_from(&place.source, &place.path, args)?;
    place.stamp(&mut listing);
    Ok(listing)
}

/// The listing of `root` in `source`, with each listed folder's size under `--sizes`.
fn list_from<S: Source>(source: &S, root: &Path, args: &Args) -> Result<Listing, CanopyError> {
    let mut listing = list(source, root, &args.settings, &args.call)?;
    if args.sizes.is_some() {
        // Only the folders printed get figures: memory stays with what is
        // shown, however many folders lie below.
        let call = SizesCall {
            report: Reported::Shown(listed_folders(&listing)?),
            ..SizesCall::default()
        };
        let report = sizes(source, root, &call, None, None)?;
        attach_sizes(&mut listing, &report);
    }
    Ok(listing)
}

/// The folders a listing shows below its root, by path (from their handles).
fn listed_folders(listing: &Listing) -> Result<Vec<PathBuf>, CanopyError> {
    let mut paths = Vec::new();
    let mut stack: Vec<&Entry> = listing
        .root
        .folder
        .iter()
        .flat_map(|f| &f.entries)
        .collect();
    while let Some(e) = stack.pop() {
        if let Some(folder) = &e.folder {
            paths.push(canopy_core::names::decode_handle(&e.handle)?);
            stack.extend(&folder.entries);
        }
    }
    Ok(paths)
}

fn main() -> ExitCode {
    canopy_core::supervisor::supervise();
    canopy_core::supervisor::one_malloc_arena();
    let args = match parse(std::env::args_os().skip(1)) {
        Ok(Some(a)) => a,
        Ok(None) => {
            print!("{}", help());
            return ExitCode::SUCCESS;
        }
        Err(msg) => {
            eprintln!("canopy-list: {msg}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let listing = match list_path(&args) {
        Ok(l) => l,
        Err(e) => {
            // A message may quote what a server or an archive said: one
            // line, escaped and bounded as the listing's lines are.
            let message = canopy_core::names::escape_for_line(e.message.as_bytes());
            let message = canopy_core::names::cut_line_field(&message, LINE_FIELD_BYTES);
            eprintln!("canopy-list: {}: {message}", e.code);
            canopy_core::supervisor::close_standard_output();
            // A cursor or setting the engine refused is a bad argument too.
            return ExitCode::from(if e.code == ErrorCode::InvalidArgument {
                2
            } else {
                1
            });
        }
    };
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(64 * 1024, stdout.lock());
    let written = if args.json {
        serde_json::to_writer(&mut out, &listing)
            .map_err(io::Error::from)
            .and_then(|_| writeln!(out))
    } else {
        write_text_measured(&listing, args.sizes.unwrap_or_default(), &mut out)
    };
    let flushed = written.and_then(|_| out.flush());
    drop(out);
    // The process is about to exit: freeing the listing entry by entry is wasted work.
    std::mem::forget(listing);
    let status = match flushed {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that stopped early (`| head`) is not an error of ours.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("canopy-list: IO: cannot write the listing: {e}");
            ExitCode::from(1)
        }
    };
    canopy_core::supervisor::close_standard_output();
    status
}
