//! The GTK bookmarks file (`$XDG_CONFIG_HOME/gtk-3.0/bookmarks`), shared
//! with Nautilus, Thunar, PCManFM and GTK's file chooser: one bookmark a
//! line, `URI[ LABEL]`.
//!
//! Promises: reading never changes the file; adding a bookmark rewrites it
//! atomically (a temporary file beside it, synced, renamed over it, with
//! the file's mode), keeping every other line byte for byte, and follows a
//! link to the file (a dotfiles manager's) rather than replacing the link.
//! This is the only file of the user's that Canopy writes.
#![forbid(unsafe_code)]

use std::ffi::{OsStr, OsString};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::error::{CanopyError, ErrorCode};
use crate::limits::BOOKMARKS_MAX_BYTES;

/// What a bookmark leads to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A local folder (`file://`).
    Folder(PathBuf),
    /// A server's folder (`sftp://`, `ssh://`), as its URL.
    Server(String),
}

/// One bookmark Canopy can open, with its label when the line has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bookmark {
    pub target: Target,
    pub label: Option<Vec<u8>>,
}

/// The bookmarks Canopy can open, in the file's order; a line it cannot
/// open (another scheme, a malformed URI) is skipped here and kept in the file.
pub fn parse(text: &[u8]) -> Vec<Bookmark> {
    text.split(|&b| b == b'\n')
        .filter_map(|line| {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let (uri, label) = match line.iter().position(|&b| b == b' ') {
                Some(i) => (&line[..i], Some(&line[i + 1..])),
                None => (line, None),
            };
            let label = label.filter(|l| !l.is_empty()).map(<[u8]>::to_vec);
            Some(Bookmark {
                target: target_of(uri)?,
                label,
            })
        })
        .collect()
}

fn target_of(uri: &[u8]) -> Option<Target> {
    if let Some(rest) = uri.strip_prefix(b"file://") {
        // `file:///path`, or `file://localhost/path`.
        let path = rest.strip_prefix(b"localhost").unwrap_or(rest);
        let bytes = percent_decode(path)?;
        return (bytes.first() == Some(&b'/') && !bytes.contains(&0))
            .then(|| Target::Folder(PathBuf::from(OsString::from_vec(bytes))));
    }
    let text = std::str::from_utf8(uri).ok()?;
    let lower = text.get(..7)?.to_ascii_lowercase();
    (lower == "sftp://" || lower.starts_with("ssh://")).then(|| Target::Server(text.to_owned()))
}

fn percent_decode(s: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'%' {
            let hex = std::str::from_utf8(s.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    Some(out)
}

/// The `file://` URI of an absolute path, as GLib writes one: bytes other
/// than letters, digits and `-._~!$&'()*+,;=:@/` percent-encoded.
pub fn file_uri(path: &Path) -> String {
    let mut out = String::from("file://");
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// What [`add`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Added {
    Added,
    AlreadyThere,
}

/// Adds a bookmark of `target` (its URI) at the end of the bookmarks file
/// `file`, unless one leads there already (compared as decoded paths or
/// URLs, whatever their label). Creates the file (and its folder) when
/// there is none.
///
/// # Errors
/// `TOO_LARGE` for a file over `BOOKMARKS_MAX_BYTES` (it is left alone);
/// the OS code when it cannot be read or written.
pub fn add(file: &Path, target: &Target) -> Result<Added, CanopyError> {
    let io = |e: io::Error| CanopyError::from_io(&e, "cannot write the bookmarks file");
    // A link (a dotfiles manager's) is followed: its target is rewritten, the link stays.
    let file = match fs::canonicalize(file) {
        Ok(real) => real,
        Err(e) if e.kind() == io::ErrorKind::NotFound => file.to_path_buf(),
        Err(e) => return Err(io(e)),
    };
    let (old, mode) = match File::open(&file) {
        Ok(f) => {
            let mode = f.metadata().map_err(io)?.permissions().mode() & 0o7777;
            let mut bytes = Vec::new();
            f.take(BOOKMARKS_MAX_BYTES + 1)
                .read_to_end(&mut bytes)
                .map_err(io)?;
            if bytes.len() as u64 > BOOKMARKS_MAX_BYTES {
                return Err(CanopyError::new(
                    ErrorCode::TooLarge,
                    format!("the bookmarks file is over {BOOKMARKS_MAX_BYTES} bytes: it was left as it is"),
                ));
            }
            (bytes, mode)
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => (Vec::new(), 0o644),
        Err(e) => return Err(io(e)),
    };
    if parse(&old).iter().any(|b| b.target == *target) {
        return Ok(Added::AlreadyThere);
    }
    let line = match target {
        Target::Folder(p) => file_uri(p),
        Target::Server(url) => url.clone(),
    };
    let mut new = old;
    if !new.is_empty() && !new.ends_with(b"\n") {
        new.push(b'\n');
    }
    new.extend_from_slice(line.as_bytes());
    new.push(b'\n');
    write_atomically(&file, &new, mode).map_err(io)?;
    Ok(Added::Added)
}

/// Writes `bytes` to `path` through a temporary file beside it, synced and
/// renamed over it (readers see the old file or the new one, never part).
fn write_atomically(path: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    let folder = path
        .parent()
        .ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
    fs::DirBuilder::new().recursive(true).create(folder)?;
    let name = path.file_name().unwrap_or(OsStr::new("bookmarks"));
    let mut temp_name = OsString::from(".");
    temp_name.push(name);
    temp_name.push(format!(".canopy-{}.tmp", std::process::id()));
    let temp = folder.join(temp_name);
    let written = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&temp)?;
        f.write_all(bytes)?;
        f.set_permissions(fs::Permissions::from_mode(mode))?;
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

    #[test]
    fn lines_give_targets_and_labels_other_schemes_are_skipped() {
        let text = b"file:///home/ann/Projects\nfile:///home/ann/My%20Stuff Stuff to keep\nsmb://nas/share NAS\nsftp://ann@host/srv Server\nfile://localhost/tmp/x\nfile:///bad%zz\n";
        let got = parse(text);
        assert_eq!(
            got,
            vec![
                Bookmark {
                    target: Target::Folder("/home/ann/Projects".into()),
                    label: None
                },
                Bookmark {
                    target: Target::Folder("/home/ann/My Stuff".into()),
                    label: Some(b"Stuff to keep".to_vec())
                },
                Bookmark {
                    target: Target::Server("sftp://ann@host/srv".into()),
                    label: Some(b"Server".to_vec())
                },
                Bookmark {
                    target: Target::Folder("/tmp/x".into()),
                    label: None
                },
            ]
        );
    }

    #[test]
    fn non_utf8_path_round_trips_through_its_uri() {
        let p = PathBuf::from(OsString::from_vec(b"/tmp/a\xff b%".to_vec()));
        let uri = file_uri(&p);
        assert_eq!(uri, "file:///tmp/a%FF%20b%25");
        assert_eq!(parse(uri.as_bytes())[0].target, Target::Folder(p));
    }

    #[test]
    fn adding_keeps_every_other_line_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("bookmarks");
        let before = b"smb://nas/share NAS\nnot a uri at all \xff\n\nfile:///srv Srv";
        fs::write(&f, before).unwrap();
        fs::set_permissions(&f, fs::Permissions::from_mode(0o640)).unwrap();
        assert_eq!(
            add(&f, &Target::Folder("/home/ann/x y".into())).unwrap(),
            Added::Added
        );
        let after = fs::read(&f).unwrap();
        assert_eq!(
            &after[..before.len()],
            before,
            "the old lines are kept as they were"
        );
        assert_eq!(&after[before.len()..], b"\nfile:///home/ann/x%20y\n");
        assert_eq!(
            fs::metadata(&f).unwrap().permissions().mode() & 0o777,
            0o640,
            "the mode is kept"
        );
        let left: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            left,
            vec![OsString::from("bookmarks")],
            "no temporary file is left"
        );
    }

    #[test]
    fn a_folder_bookmarked_already_is_not_added_twice() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("bookmarks");
        fs::write(&f, "file:///home/ann/My%20Stuff Mine\n").unwrap();
        let got = add(&f, &Target::Folder("/home/ann/My Stuff".into())).unwrap();
        assert_eq!(got, Added::AlreadyThere);
        assert_eq!(fs::read(&f).unwrap(), b"file:///home/ann/My%20Stuff Mine\n");
    }

    #[test]
    fn a_missing_file_and_folder_are_created() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("gtk-3.0/bookmarks");
        add(&f, &Target::Server("sftp://ann@host/srv".into())).unwrap();
        assert_eq!(fs::read(&f).unwrap(), b"sftp://ann@host/srv\n");
    }

    #[test]
    fn a_linked_file_is_written_through_the_link() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("dotfiles-bookmarks");
        fs::write(&real, "file:///a\n").unwrap();
        let link = dir.path().join("bookmarks");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        add(&link, &Target::Folder("/b".into())).unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "the link stays a link"
        );
        assert_eq!(fs::read(&real).unwrap(), b"file:///a\nfile:///b\n");
    }

    #[test]
    fn an_oversized_file_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("bookmarks");
        fs::write(&f, vec![b'x'; BOOKMARKS_MAX_BYTES as usize + 1]).unwrap();
        let e = add(&f, &Target::Folder("/a".into())).unwrap_err();
        assert_eq!(e.code, ErrorCode::TooLarge);
        assert_eq!(fs::metadata(&f).unwrap().len(), BOOKMARKS_MAX_BYTES + 1);
    }
}
