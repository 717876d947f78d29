//! `canopy-mcp --root DIR [--root DIR]...`: Canopy's MCP server on stdin and
//! stdout. At least one `--root` is required (none, or one that is not a
//! folder, exits 2); the folders an agent may see are these, narrowed by
//! the client's roots when it offers them. Diagnostics go to stderr.
//!
//! A root may be a server's folder, `sftp://[user@]host[:port]/path`, read
//! over SFTP through the system's `ssh` with `BatchMode=yes` (nothing is
//! prompted; `--ssh-config FILE` reads FILE as `ssh -F`). Every root is then
//! on that one server: local and remote roots are not mixed (exit 2).
#![forbid(unsafe_code)]

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use std::os::unix::ffi::OsStrExt;

use canopy_mcp::engine;
use canopy_mcp::server::Canopy;
use canopy_mcp::transport::LineTransport;
use canopy_sftp::SshOptions;
use rmcp::ServiceExt;

const USAGE: &str =
    "usage: canopy-mcp --root DIR|sftp://[user@]host[:port]/DIR [--root ...]... [--ssh-config FILE]";

fn help() -> String {
    let reply = canopy_mcp::tools::grouped(canopy_core::limits::MCP_REPLY_CHARS as u64);
    format!(
        "{USAGE}\n\n\
         Serves Canopy's bounded folder listing and file preview to AI agents over MCP (stdio).\n\
         Tools (every reply within {reply} characters): list_directory (paged, sorted, ignore-aware),\n\
         search (names or contents across a tree), find_in_folder (names in one folder),\n\
         read_file and read_files (bytes or lines), file_info, folder_sizes and list_roots.\n\
         Only folders inside a --root (real paths: symlinks and .. are resolved) are shown;\n\
         when the client offers roots, only folders inside both.\n\
         A --root sftp://[user@]host[:port]/DIR serves a server's folder over SFTP, through the system's\n\
         ssh with BatchMode=yes (--ssh-config FILE: ssh -F FILE); all roots are then on that server,\n\
         the server resolves links and .. (a link out of the roots reads (outside the roots)),\n\
         and the client's roots do not apply.\n"
    )
}

/// What the command line asks.
struct Args {
    roots: Vec<OsString>,
    ssh_config: Option<PathBuf>,
}

fn parse(mut argv: impl Iterator<Item = OsString>) -> Result<Option<Args>, String> {
    let mut roots = Vec::new();
    let mut ssh_config = None;
    while let Some(arg) = argv.next() {
        match arg.to_str() {
            Some("-h" | "--help") => return Ok(None),
            Some("--ssh-config") => {
                ssh_config = Some(PathBuf::from(
                    argv.next().ok_or("--ssh-config needs a file")?,
                ))
            }
            Some("--root") => roots.push(argv.next().ok_or("--root needs a folder")?),
            Some(other) if other.starts_with("--root=") => {
                roots.push(OsString::from(&other["--root=".len()..]))
            }
            _ => return Err(format!("unknown argument {}", arg.to_string_lossy())),
        }
    }
    if roots.is_empty() {
        return Err("at least one --root folder is required".into());
    }
    Ok(Some(Args { roots, ssh_config }))
}

/// The real folders of `roots` on one server (`sftp://` URLs of one
/// target), and the registry's confined form on it; a message for exit 2
/// otherwise.
fn remote_roots(
    roots: &[OsString],
    registry: &canopy_places::Registry,
) -> Result<(Vec<PathBuf>, engine::AgentSource), String> {
    let mut target = None;
    let mut urls = Vec::new();
    for root in roots {
        let shown = root.to_string_lossy().into_owned();
        if !canopy_sftp::is_remote(root.as_bytes()) {
            return Err(format!(
                "--root {shown}: local and sftp:// roots cannot be mixed (run one server for each)"
            ));
        }
        let url = canopy_sftp::parse(root.as_bytes())
            .map_err(|e| format!("--root {shown}: {}: {}", e.code, e.message))?;
        match &target {
            Some(t) if *t != url.target => {
                return Err(format!(
                    "--root {shown}: every sftp:// root must be on the same server"
                ))
            }
            Some(_) => {}
            None => target = Some(url.target.clone()),
        }
        urls.push((shown, url.path));
    }
    let target = target.ok_or("at least one --root folder is required")?;
    let fs = registry.server(&target);
    // The roots' real paths are not known before the server answers: the
    // ignore rules are read within the server's folders as found.
    let confined = registry.confined(Some(&target), &[]);
    let mut found = Vec::new();
    for (shown, path) in urls {
        let folder = fs
            .resolve(&path)
            .and_then(|path| confined.real_folder(&path))
            .map_err(|e| format!("--root {shown}: {}: {}", e.code, e.message))?;
        if !found.contains(&folder) {
            found.push(folder);
        }
    }
    Ok((found, confined))
}

fn main() -> ExitCode {
    // The pid the client waits for is never one a dead mount can hold: it
    // exits once the server has, even with a call stuck in the kernel.
    canopy_core::supervisor::supervise();
    let code = run();
    // A worker left in a call on a dead mount keeps the process from
    // finishing its exit: the client still reads the end of the stream now.
    canopy_core::supervisor::close_standard_output();
    code
}

fn run() -> ExitCode {
    let args = match parse(std::env::args_os().skip(1)) {
        Ok(Some(a)) => a,
        Ok(None) => {
            print!("{}", help());
            return ExitCode::SUCCESS;
        }
        Err(msg) => {
            eprintln!("canopy-mcp: {msg}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let remote = args
        .roots
        .iter()
        .any(|r| canopy_sftp::is_remote(r.as_bytes()));
    if !remote && args.ssh_config.is_some() {
        eprintln!("canopy-mcp: --ssh-config is for sftp:// roots\n{USAGE}");
        return ExitCode::from(2);
    }
    let registry = canopy_places::standard(canopy_places::Reach {
        local: canopy_core::LocalFs::new().with_env_seams(),
        ssh: SshOptions {
            config: args.ssh_config.clone(),
            // An agent's server never prompts.
            batch: true,
            program: None,
            askpass: None,
        },
    });
    let mut server = None;
    let mut real = Vec::new();
    if remote {
        match remote_roots(&args.roots, &registry) {
            Ok((r, s)) => {
                real = r;
                server = Some(s);
            }
            Err(msg) => {
                eprintln!("canopy-mcp: {msg}");
                return ExitCode::from(2);
            }
        }
    }
    for root in args.roots.iter().filter(|_| !remote) {
        let path = PathBuf::from(root);
        match engine::real_folder(&path) {
            Ok(p) if !real.contains(&p) => real.push(p),
            Ok(_) => {}
            Err(e) => {
                eprintln!(
                    "canopy-mcp: --root {}: {}: {}",
                    engine::shown_path(&path),
                    e.code,
                    e.message
                );
                return ExitCode::from(2);
            }
        }
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("canopy-mcp: IO: cannot start: {e}");
            return ExitCode::from(1);
        }
    };
    let served = runtime.block_on(async move {
        let canopy = match server {
            Some(confined) => Canopy::new(real, confined),
            None => {
                let confined = registry.confined(None, &real);
                Canopy::new(real, confined)
            }
        };
        let service = canopy
            .serve(LineTransport::new(tokio::io::stdin(), tokio::io::stdout()))
            .await?;
        service.waiting().await?;
        Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    });
    // A worker left behind on a dead mount must not keep the process alive.
    runtime.shutdown_background();
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("canopy-mcp: IO: {e}");
            ExitCode::from(1)
        }
    }
}
