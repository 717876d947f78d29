//! `canopy-mcp --root DIR [--root DIR]...`: Canopy's MCP server on stdin and
//! stdout. At least one `--root` is required (none, or one that is not a
//! folder, exits 2); the folders an agent may see are these, narrowed by
//! the client's roots when it offers them. Diagnostics go to stderr.
#![forbid(unsafe_code)]

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use canopy_mcp::engine;
use canopy_mcp::server::Canopy;
use canopy_mcp::transport::LineTransport;
use rmcp::ServiceExt;

const USAGE: &str = "usage: canopy-mcp --root DIR [--root DIR]...";

fn help() -> String {
    let reply = canopy_mcp::tools::grouped(canopy_core::limits::MCP_REPLY_CHARS as u64);
    format!(
        "{USAGE}\n\n\
         Serves Canopy's bounded folder listing and file preview to AI agents over MCP (stdio).\n\
         Tools: list_directory (paged, sorted; every reply within {reply} characters),\n\
         find_in_folder (names matching a pattern, over the whole folder) and read_file.\n\
         Only folders inside a --root (real paths: symlinks and .. are resolved) are shown;\n\
         when the client offers roots, only folders inside both.\n"
    )
}

fn parse(mut argv: impl Iterator<Item = OsString>) -> Result<Option<Vec<OsString>>, String> {
    let mut roots = Vec::new();
    while let Some(arg) = argv.next() {
        match arg.to_str() {
            Some("-h" | "--help") => return Ok(None),
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
    Ok(Some(roots))
}

fn main() -> ExitCode {
    let roots = match parse(std::env::args_os().skip(1)) {
        Ok(Some(r)) => r,
        Ok(None) => {
            print!("{}", help());
            return ExitCode::SUCCESS;
        }
        Err(msg) => {
            eprintln!("canopy-mcp: {msg}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut real = Vec::new();
    for root in roots {
        let path = PathBuf::from(&root);
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
        let service = Canopy::new(real)
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
