//! `sftp://[user@]host[:port][/path]` (and `ssh://…`): which server, as
//! whom, and which folder on it. The path is percent-decoded to bytes (a
//! server's names are bytes), and nothing here can reach `ssh` as an
//! option: a host or user starting with `-` is refused.
#![forbid(unsafe_code)]

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use canopy_core::CanopyError;

/// The server a remote folder is on, as `ssh` is asked to reach it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Target {
    /// The login name; `None` leaves it to `ssh` (its config, or the local user).
    pub user: Option<String>,
    /// A host name, an address, or a `Host` alias of the user's `ssh_config`.
    pub host: String,
    pub port: Option<u16>,
}

/// Where the path of a remote folder starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RemotePath {
    /// An absolute path on the server.
    Absolute(PathBuf),
    /// A path below the login's home folder (`sftp://host`, `sftp://host/~/x`).
    Home(PathBuf),
}

/// A parsed `sftp://` or `ssh://` URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteUrl {
    pub target: Target,
    pub path: RemotePath,
}

/// Whether `text` names a remote folder (`sftp://` or `ssh://`, any case).
pub fn is_remote(text: &[u8]) -> bool {
    scheme_len(text).is_some()
}

fn scheme_len(text: &[u8]) -> Option<usize> {
    ["sftp://", "ssh://"].iter().find_map(|s| {
        (text.len() >= s.len() && text[..s.len()].eq_ignore_ascii_case(s.as_bytes()))
            .then_some(s.len())
    })
}

/// Parses `sftp://[user@]host[:port][/path]` or `ssh://…`.
///
/// # Errors
/// `INVALID_ARGUMENT` for another scheme, an empty or option-like host or
/// user, a bad port, a bad percent escape, or a NUL in the path.
pub fn parse(url: &[u8]) -> Result<RemoteUrl, CanopyError> {
    let start = scheme_len(url)
        .ok_or_else(|| CanopyError::invalid("a remote folder is written sftp://host/path"))?;
    let rest = &url[start..];
    let slash = rest.iter().position(|&b| b == b'/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(slash);
    let authority = std::str::from_utf8(authority)
        .map_err(|_| CanopyError::invalid("the server's name is not UTF-8"))?;
    let (user, host_port) = match authority.rsplit_once('@') {
        Some((user, hp)) => {
            // Checked on the whole of what is before the `@`, decoded: a
            // password is never taken from a URL, wherever it is written
            // (`user:pw`, `user;x:pw`, `user;password=pw`), since the URL is
            // kept, in the recent servers. The URI draft's `;` parameters
            // (`;fingerprint=…`) are refused for the same reason: nothing
            // but the user name is kept.
            let user = String::from_utf8(decode(user.as_bytes())?)
                .map_err(|_| CanopyError::invalid("the user name is not UTF-8"))?;
            if user.contains(':') {
                return Err(CanopyError::invalid(
                    "a password in the URL is not used: give the user name alone (a key or agent logs in)",
                ));
            }
            if user.contains(';') {
                return Err(CanopyError::invalid(
                    "connection parameters after ';' in the URL are not used: give the user name alone",
                ));
            }
            (Some(user), hp)
        }
        None => (None, authority),
    };
    let (host, port) = split_port(host_port)?;
    if host.is_empty() {
        return Err(CanopyError::invalid("the URL names no server"));
    }
    for (what, text) in [
        ("server name", Some(host.as_str())),
        ("user name", user.as_deref()),
    ] {
        let Some(text) = text else { continue };
        if text.is_empty() || text.starts_with('-') {
            return Err(CanopyError::invalid(format!(
                "the {what} '{text}' is empty or starts with '-'"
            )));
        }
        let odd = |c: char| match what {
            "server name" => !(c.is_ascii_alphanumeric() || "._:-".contains(c)),
            _ => c.is_control() || c.is_whitespace(),
        };
        if text.chars().any(odd) {
            return Err(CanopyError::invalid(format!(
                "the {what} '{}' holds a character it cannot have",
                text.escape_debug()
            )));
        }
    }
    let bytes = decode(path)?;
    if bytes.contains(&0) {
        return Err(CanopyError::invalid("the path contains a NUL character"));
    }
    let path = match bytes.strip_prefix(b"/~") {
        _ if bytes.is_empty() => RemotePath::Home(PathBuf::new()),
        Some(below) if below.is_empty() || below.starts_with(b"/") => {
            RemotePath::Home(tidy(below.strip_prefix(b"/").unwrap_or(below)))
        }
        _ => RemotePath::Absolute(tidy(&bytes)),
    };
    Ok(RemoteUrl {
        target: Target { user, host, port },
        path,
    })
}

/// Drops `.` components, repeated and trailing slashes (as a local root's are).
fn tidy(path: &[u8]) -> PathBuf {
    Path::new(OsStr::from_bytes(path)).components().collect()
}

fn split_port(text: &str) -> Result<(String, Option<u16>), CanopyError> {
    let (host, port) = if let Some(inner) = text.strip_prefix('[') {
        // [v6 address]:port
        let (addr, after) = inner
            .split_once(']')
            .ok_or_else(|| CanopyError::invalid("an IPv6 address is not closed with ']'"))?;
        let port = match after {
            "" => None,
            p => Some(
                p.strip_prefix(':')
                    .ok_or_else(|| CanopyError::invalid("text after the address"))?,
            ),
        };
        (addr.to_string(), port)
    } else {
        match text.split_once(':') {
            Some((h, p)) => (h.to_string(), Some(p)),
            None => (text.to_string(), None),
        }
    };
    let port = match port {
        None | Some("") => None,
        Some(p) => match p.parse::<u16>() {
            Ok(n) if n > 0 => Some(n),
            _ => {
                return Err(CanopyError::invalid(format!(
                    "'{p}' is not a port (1 to 65535)"
                )))
            }
        },
    };
    Ok((host, port))
}

fn decode(text: &[u8]) -> Result<Vec<u8>, CanopyError> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'%' {
            let hex = text
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| {
                    CanopyError::invalid("a '%' in the URL is not followed by two hex digits")
                })?;
            out.push(hex);
            i += 3;
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    Ok(out)
}

/// The URL of `path` on `target`: `sftp://user@host:port/path`, every byte
/// outside letters, digits and `-._~/` percent-encoded (so a name that is
/// not UTF-8, or holds a space or a newline, round-trips through [`parse`]).
pub fn url_of(target: &Target, path: &Path) -> String {
    let mut out = String::from("sftp://");
    if let Some(user) = &target.user {
        out.push_str(&encode(user.as_bytes()));
        out.push('@');
    }
    if target.host.contains(':') {
        out.push_str(&format!("[{}]", target.host));
    } else {
        out.push_str(&target.host);
    }
    if let Some(port) = target.port {
        out.push_str(&format!(":{port}"));
    }
    out.push_str(&encode(path.as_os_str().as_bytes()));
    out
}

fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn abs(p: &str) -> RemotePath {
        RemotePath::Absolute(PathBuf::from(p))
    }

    #[test]
    fn user_host_port_and_path_are_read() {
        let u = parse(b"sftp://ann@files.example:2222/srv/data/").unwrap();
        assert_eq!(u.target.user.as_deref(), Some("ann"));
        assert_eq!(u.target.host, "files.example");
        assert_eq!(u.target.port, Some(2222));
        assert_eq!(u.path, abs("/srv/data"), "trailing slash dropped");
        let s = parse(b"SSH://box").unwrap();
        assert_eq!(s.target.user, None);
        assert_eq!(
            s.path,
            RemotePath::Home(PathBuf::new()),
            "no path is the home folder"
        );
        assert_eq!(
            parse(b"sftp://box/~/src").unwrap().path,
            RemotePath::Home("src".into())
        );
        assert_eq!(parse(b"sftp://box/~x").unwrap().path, abs("/~x"));
        assert_eq!(parse(b"sftp://[::1]:22/").unwrap().target.host, "::1");
    }

    #[test]
    fn option_like_hosts_and_users_are_refused() {
        for bad in [
            &b"sftp://-oProxyCommand=touch%20x/"[..],
            b"sftp://-x@host/",
            b"sftp:///path",
            b"sftp://host:0/",
            b"sftp://host:99999/",
            b"sftp://host:22x/",
            b"sftp://ho%st/",
            b"sftp://a%20b@host/",
            b"sftp://ann:secret@host/",
            b"sftp://ann%3Asecret@host/",
            // After a `;` the password was once not looked for, and the URL kept.
            b"sftp://ann;x:secret@host/",
            b"sftp://ann;password=secret@host/",
            b"sftp://ann;fingerprint=ssh-ed25519-aa@host/",
            b"sftp://host/a%00b",
            b"sftp://host/a%zz",
            b"http://host/",
        ] {
            let e = parse(bad).expect_err(&String::from_utf8_lossy(bad));
            assert_eq!(e.code, canopy_core::ErrorCode::InvalidArgument);
        }
    }

    #[test]
    fn non_utf8_and_hostile_paths_round_trip_through_the_url() {
        let target = parse(b"sftp://me@host:2200/").unwrap().target;
        for raw in [
            &b"/a/\xff\xfe name"[..],
            b"/new\nline/%41",
            b"/<img src=x>",
            b"/sp ace/#?",
        ] {
            let path = Path::new(OsStr::from_bytes(raw));
            let url = url_of(&target, path);
            assert!(url.is_ascii(), "{url}");
            let back = parse(url.as_bytes()).unwrap();
            assert_eq!(back.path, RemotePath::Absolute(path.to_path_buf()), "{url}");
            assert_eq!(back.target, target);
        }
    }
}
