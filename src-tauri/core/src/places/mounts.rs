//! The mounts a person cares about, from the kernel's mount table
//! (`/proc/self/mountinfo`, which is read from the kernel, never from a
//! mounted filesystem: reading it cannot hang on a dead mount).
#![forbid(unsafe_code)]

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// One line of the mount table that the sidebar shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    pub point: PathBuf,
    /// `st_dev` of the mounted filesystem (from the table's `major:minor`).
    pub dev: u64,
    pub fs_type: String,
}

/// The mounts the sidebar shows, in the table's order: the root filesystem,
/// and every mount whose point is strictly below `/media`,
/// `/run/media/USER` (this user's), `/mnt` or `home`, whatever its type. A
/// point mounted over again is listed once, where it was first mounted,
/// with what is on top now.
pub fn shown_mounts(table: &[u8], home: &Path, user: Option<&OsStr>) -> Vec<Mount> {
    let mut wanted: Vec<PathBuf> = vec!["/media".into(), "/mnt".into(), home.to_path_buf()];
    if let Some(u) = user.filter(|u| !u.is_empty()) {
        wanted.push(Path::new("/run/media").join(u));
    }
    let mut out: Vec<Mount> = Vec::new();
    for m in table.split(|&b| b == b'\n').filter_map(parse_line) {
        let cared = m.point == Path::new("/")
            || wanted
                .iter()
                .any(|w| m.point.starts_with(w) && m.point != *w);
        if !cared {
            continue;
        }
        match out.iter_mut().find(|o| o.point == m.point) {
            Some(o) => *o = m,
            None => out.push(m),
        }
    }
    out
}

/// Where `point` is mounted, if it is a mount point of the table: its device.
pub fn device_of(table: &[u8], point: &Path) -> Option<u64> {
    table
        .split(|&b| b == b'\n')
        .rev()
        .filter_map(parse_line)
        .find(|m| m.point == point)
        .map(|m| m.dev)
}

/// One mountinfo line: `ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER`.
fn parse_line(line: &[u8]) -> Option<Mount> {
    let fields: Vec<&[u8]> = line.split(|&b| b == b' ').collect();
    let devno = std::str::from_utf8(fields.get(2)?).ok()?;
    let (major, minor) = devno.split_once(':')?;
    let dev = libc::makedev(major.parse().ok()?, minor.parse().ok()?);
    let point = unescape(fields.get(4)?);
    if point.first() != Some(&b'/') {
        return None;
    }
    let dash = fields.iter().skip(6).position(|f| *f == b"-")? + 6;
    let fs_type = String::from_utf8_lossy(unescape(fields.get(dash + 1)?).as_slice()).into_owned();
    Some(Mount {
        point: PathBuf::from(OsStr::from_bytes(&point)),
        dev,
        fs_type,
    })
}

/// Undoes the table's octal escapes (`\040` a space, `\011` a tab,
/// `\012` a newline, `\134` a backslash).
pub(crate) fn unescape(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let octal = raw
            .get(i + 1..i + 4)
            .filter(|d| raw[i] == b'\\' && d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match octal {
            Some(d) => {
                let v = u32::from(d[0] - b'0') * 64
                    + u32::from(d[1] - b'0') * 8
                    + u32::from(d[2] - b'0');
                out.push(v as u8);
                i += 4;
            }
            None => {
                out.push(raw[i]);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &[u8] = b"\
22 1 0:21 / / rw,relatime shared:1 - ext4 /dev/vda rw
23 22 0:5 / /proc rw,nosuid shared:2 - proc proc rw
24 22 0:30 / /mnt/usb\\040stick rw shared:3 - vfat /dev/sdb1 rw
25 22 0:31 / /run/media/ann/CARD rw shared:4 - exfat /dev/sdc1 rw
26 22 0:32 / /run/media/bob/THEIRS rw shared:5 - exfat /dev/sdd1 rw
27 22 0:33 / /home/ann/remote rw shared:6 - fuse.sshfs host: rw
28 22 0:34 / /home/ann rw shared:7 - ext4 /dev/vdb rw
29 22 0:35 / /mnt rw shared:8 - tmpfs tmpfs rw
30 24 0:36 / /mnt/usb\\040stick rw shared:9 - tmpfs tmpfs rw
31 22 0:37 / /media/disk rw master:3 propagate_from:1 - btrfs /dev/sde rw
32 22 0:38 / /srv/data rw - xfs /dev/sdf rw
";

    fn points(ms: &[Mount]) -> Vec<String> {
        ms.iter().map(|m| m.point.display().to_string()).collect()
    }

    #[test]
    fn root_and_mounts_below_the_cared_folders_are_shown() {
        let ms = shown_mounts(TABLE, Path::new("/home/ann"), Some(OsStr::new("ann")));
        assert_eq!(
            points(&ms),
            ["/", "/mnt/usb stick", "/run/media/ann/CARD", "/home/ann/remote", "/media/disk"],
            "proc, another user's media, the home folder itself, /mnt itself and /srv are not a person's places"
        );
    }

    #[test]
    fn a_point_mounted_over_shows_what_is_on_top() {
        let ms = shown_mounts(TABLE, Path::new("/home/ann"), Some(OsStr::new("ann")));
        let usb = ms
            .iter()
            .find(|m| m.point == Path::new("/mnt/usb stick"))
            .unwrap();
        assert_eq!(usb.fs_type, "tmpfs");
        assert_eq!(usb.dev, libc::makedev(0, 36));
    }

    #[test]
    fn optional_fields_before_the_separator_are_skipped() {
        let ms = shown_mounts(TABLE, Path::new("/home/ann"), None);
        let disk = ms
            .iter()
            .find(|m| m.point == Path::new("/media/disk"))
            .unwrap();
        assert_eq!(disk.fs_type, "btrfs");
        assert!(
            ms.iter().all(|m| !m.point.starts_with("/run/media")),
            "no user: no /run/media"
        );
    }

    #[test]
    fn device_of_a_mount_point_is_the_top_mount() {
        assert_eq!(
            device_of(TABLE, Path::new("/mnt/usb stick")),
            Some(libc::makedev(0, 36))
        );
        assert_eq!(device_of(TABLE, Path::new("/mnt/nothing")), None);
    }

    #[test]
    fn escaped_newline_in_a_point_stays_one_name() {
        let t = b"40 22 0:40 / /mnt/a\\012b rw - tmpfs x rw\n";
        let ms = shown_mounts(t, Path::new("/home/x"), None);
        assert_eq!(ms[0].point.as_os_str().as_bytes(), b"/mnt/a\nb");
    }
}
