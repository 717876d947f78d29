//! Where a device is mounted, read from the kernel's mount table
//! (`/proc/self/mountinfo`), never from the device itself: a stuck device
//! also blocks the paths where it is mounted.

/// Where device `dev` is mounted, from `/proc/self/mountinfo` (which is read
/// from the kernel's mount table, never from the device itself).
pub(super) fn mount_points(dev: u64) -> Vec<Box<[u8]>> {
    let Ok(table) = std::fs::read("/proc/self/mountinfo") else {
        return Vec::new();
    };
    let want = format!("{}:{}", libc::major(dev), libc::minor(dev));
    table
        .split(|&b| b == b'\n')
        .filter_map(|line| {
            let mut fields = line.split(|&b| b == b' ');
            let device = fields.nth(2)?;
            let point = fields.nth(1)?;
            (device == want.as_bytes()).then(|| unescape_mount_point(point))
        })
        .collect()
}

/// Undoes mountinfo's octal escapes (`\040` for a space, ...): the Places
/// sidebar's reading of the same table.
pub(super) fn unescape_mount_point(raw: &[u8]) -> Box<[u8]> {
    crate::places::mounts::unescape(raw).into()
}
