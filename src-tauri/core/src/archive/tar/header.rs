//! A tar header's fields, and what the records before an entry say of it:
//! pax (`x`, and Solaris tar's `X`, the same by another letter), GNU long
//! names (`L`, `K`) and GNU sparse records, read as bsdtar and GNU tar
//! read them. Old v7 and HP-UX tars summed a header as signed bytes: either
//! sum is a valid checksum.
//!
//! A number a record states that is not one (a pax `size` past 64 bits) is
//! never dropped silently: it is the problem of the entry it belongs to
//! (GNU tar reports it and lists on; the ustar header's own field stands).
#![forbid(unsafe_code)]

use crate::error::{CanopyError, ErrorCode};

/// The largest number a tar's size or time holds: GNU tar's range for a
/// pax number (an `off_t`).
const NUMBER_MAX: u64 = i64::MAX as u64;
/// How much of a bad value an error message quotes.
const QUOTED_MAX: usize = 40;

pub(super) fn octal(field: &[u8]) -> Option<u64> {
    if field.first().is_some_and(|b| b & 0x80 != 0) {
        // Base-256 (GNU): big-endian, the first byte's top bit a marker.
        let mut v: u64 = u64::from(field[0] & 0x7F);
        for &b in &field[1..] {
            v = v.checked_mul(256)?.checked_add(u64::from(b))?;
        }
        return Some(v);
    }
    // Octal digits after leading spaces, up to the first other byte (NUL or space).
    let mut digits = field
        .iter()
        .skip_while(|&&b| b == b' ')
        .take_while(|b| (b'0'..=b'7').contains(b));
    digits.try_fold(0u64, |v, &d| {
        v.checked_mul(8)?.checked_add(u64::from(d - b'0'))
    })
}

pub(super) fn cstr(field: &[u8]) -> &[u8] {
    &field[..field.iter().position(|&b| b == 0).unwrap_or(field.len())]
}

/// Whether the header's checksum holds, summed as unsigned bytes (POSIX)
/// or as signed ones (old v7 and HP-UX tar, whose compilers had signed
/// `char`): they differ only for a header holding bytes past 0x7F.
pub(super) fn checksum_ok(h: &[u8; 512]) -> bool {
    let Some(want) = octal(&h[148..156]) else {
        return false;
    };
    // The checksum field itself counts as eight spaces. Plain sums, so
    // that they vectorize: this runs once per header.
    let sum = |bytes: &[u8]| bytes.iter().map(|&b| u64::from(b)).sum::<u64>();
    let unsigned = sum(h) - sum(&h[148..156]) + 8 * 32;
    if unsigned == want {
        return true;
    }
    // Signed, each byte past 0x7F counts 256 less.
    let high = |bytes: &[u8]| bytes.iter().filter(|&&b| b > 0x7F).count() as u64;
    let high = high(h) - high(&h[148..156]);
    unsigned.checked_sub(256 * high) == Some(want)
}

/// Whether `block` is a tar header (its checksum holds).
pub(crate) fn is_header(block: &[u8]) -> bool {
    block.len() >= 512
        && block[..512].iter().any(|&b| b != 0)
        && checksum_ok(block[..512].try_into().expect("512"))
}

/// What pax and GNU long-name headers say of the next entry.
#[derive(Default)]
pub(super) struct Pending {
    pub path: Option<Vec<u8>>,
    pub link: Option<Vec<u8>>,
    pub size: Option<u64>,
    pub mtime_ms: Option<i64>,
    pub sparse: PaxSparse,
    /// The first value that did not read: the entry's error.
    pub problem: Option<CanopyError>,
}

/// GNU tar's sparse records in a pax header (formats 0.0, 0.1 and 1.0).
#[derive(Default)]
pub(super) struct PaxSparse {
    /// `GNU.sparse.name`: the real name (the header's is
    /// `GNUSparseFile.N/name`, so that other tars keep it apart).
    pub name: Option<Vec<u8>>,
    /// `GNU.sparse.size` (0.x) or `GNU.sparse.realsize` (1.0).
    pub real_size: Option<u64>,
    pub blocks: Option<u64>,
    /// 0.0's `offset`/`numbytes` records or 0.1's `map`, in order.
    pub map: Vec<u64>,
    /// `GNU.sparse.major`: 1 puts the map at the start of the data.
    pub major: Option<u64>,
}

impl PaxSparse {
    /// Whether the records make the entry a sparse file.
    pub fn any(&self) -> bool {
        self.real_size.is_some() || !self.map.is_empty() || self.major.is_some()
    }
}

/// The problem of a value that is no number a tar holds.
fn not_a_number(key: &[u8], value: &[u8]) -> CanopyError {
    let shown = String::from_utf8_lossy(&value[..value.len().min(QUOTED_MAX)]);
    let more = if value.len() > QUOTED_MAX { "…" } else { "" };
    CanopyError::new(
        ErrorCode::Corrupt,
        format!(
            "its pax header says {}={shown}{more}, which is no number from 0 to {NUMBER_MAX} (GNU tar and bsdtar report it too); the ustar header's own field is used",
            String::from_utf8_lossy(key)
        ),
    )
}

/// A pax number: decimal digits, at most [`NUMBER_MAX`].
fn number(value: &[u8]) -> Option<u64> {
    if value.is_empty() || !value.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(value)
        .ok()?
        .parse::<u64>()
        .ok()
        .filter(|&n| n <= NUMBER_MAX)
}

/// A pax time, `[-]seconds[.fraction]`, in milliseconds; `Ok(None)` for a
/// number no date holds (shown without a time, as a local file's).
fn time_ms(value: &[u8]) -> Result<Option<i64>, ()> {
    let (negative, rest) = match value.strip_prefix(b"-") {
        Some(rest) => (true, rest),
        None => (false, value),
    };
    let (whole, fraction) = match rest.iter().position(|&b| b == b'.') {
        Some(dot) => (&rest[..dot], &rest[dot + 1..]),
        None => (rest, &b""[..]),
    };
    if !fraction.iter().all(u8::is_ascii_digit) {
        return Err(());
    }
    let seconds = i64::try_from(number(whole).ok_or(())?).map_err(|_| ())?;
    let millis = fraction
        .iter()
        .chain(b"000")
        .take(3)
        .fold(0i64, |v, d| v * 10 + i64::from(d - b'0'));
    let ms = seconds
        .checked_mul(1000)
        .and_then(|s| s.checked_add(millis));
    Ok(ms.map(|ms| if negative { -ms } else { ms }))
}

/// Applies the records of a pax header (`x` or `X`) to `p`.
pub(super) fn apply_pax(records: &[u8], p: &mut Pending) {
    let mut rest = records;
    while !rest.is_empty() {
        let Some(space) = rest.iter().position(|&b| b == b' ') else {
            return;
        };
        let Some(len) = std::str::from_utf8(&rest[..space])
            .ok()
            .and_then(|t| t.parse::<usize>().ok())
        else {
            return;
        };
        if len <= space + 1 || len > rest.len() {
            return;
        }
        let record = &rest[space + 1..len - 1];
        if let Some(eq) = record.iter().position(|&b| b == b'=') {
            apply_record(&record[..eq], &record[eq + 1..], p);
        }
        rest = &rest[len..];
    }
}

fn apply_record(key: &[u8], value: &[u8], p: &mut Pending) {
    let num = |p: &mut Pending| {
        let n = number(value);
        if n.is_none() && p.problem.is_none() {
            p.problem = Some(not_a_number(key, value));
        }
        n
    };
    match key {
        b"path" => p.path = Some(value.to_vec()),
        b"linkpath" => p.link = Some(value.to_vec()),
        b"size" => p.size = num(p),
        b"mtime" => match time_ms(value) {
            Ok(ms) => p.mtime_ms = ms,
            Err(()) => {
                p.problem.get_or_insert_with(|| not_a_number(key, value));
            }
        },
        b"GNU.sparse.name" => p.sparse.name = Some(value.to_vec()),
        b"GNU.sparse.size" | b"GNU.sparse.realsize" => p.sparse.real_size = num(p),
        b"GNU.sparse.numblocks" => p.sparse.blocks = num(p),
        b"GNU.sparse.major" => p.sparse.major = num(p),
        b"GNU.sparse.offset" | b"GNU.sparse.numbytes" => {
            let n = num(p);
            p.sparse.map.push(n.unwrap_or(0));
        }
        b"GNU.sparse.map" => {
            for item in value.split(|&b| b == b',') {
                let n = number(item);
                if n.is_none() && p.problem.is_none() {
                    p.problem = Some(not_a_number(key, value));
                }
                p.sparse.map.push(n.unwrap_or(0));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pax(pairs: &[(&str, &str)]) -> Vec<u8> {
        let mut out = Vec::new();
        for (k, v) in pairs {
            let body = format!(" {k}={v}\n");
            let mut n = body.len() + 1;
            while n.to_string().len() + body.len() != n {
                n = n.to_string().len() + body.len();
            }
            out.extend_from_slice(format!("{n}{body}").as_bytes());
        }
        out
    }

    #[test]
    fn a_pax_number_past_what_a_size_holds_is_the_entrys_problem() {
        for bad in [
            "18446744073709551616",
            "9223372036854775808",
            "99999999999999999999999999",
            "-1",
            "12abc",
            "",
        ] {
            let mut p = Pending::default();
            apply_pax(&pax(&[("size", bad), ("path", "x")]), &mut p);
            assert_eq!(p.size, None, "{bad}");
            assert_eq!(
                p.path.as_deref(),
                Some(&b"x"[..]),
                "the other records stand"
            );
            let e = p
                .problem
                .unwrap_or_else(|| panic!("size={bad} is reported"));
            assert_eq!(e.code, ErrorCode::Corrupt);
            assert!(e.message.contains("size="), "{}", e.message);
        }
        let mut p = Pending::default();
        apply_pax(&pax(&[("size", "9223372036854775807")]), &mut p);
        assert_eq!(p.size, Some(i64::MAX as u64));
        assert!(p.problem.is_none());
    }

    #[test]
    fn pax_times_read_to_the_millisecond_and_a_broken_one_is_reported() {
        for (text, want) in [
            ("1041808783.000000000", Some(1_041_808_783_000)),
            ("1.5", Some(1500)),
            ("-1.5", Some(-1500)),
            ("9223372036854775807", None),
        ] {
            let mut p = Pending::default();
            apply_pax(&pax(&[("mtime", text)]), &mut p);
            assert_eq!(p.mtime_ms, want, "{text}");
            assert!(p.problem.is_none(), "{text}");
        }
        for bad in ["1e30", "99999999999999999999999", "1.2.3", "x"] {
            let mut p = Pending::default();
            apply_pax(&pax(&[("mtime", bad)]), &mut p);
            assert!(p.problem.is_some(), "mtime={bad} is reported");
        }
    }

    #[test]
    fn a_signed_checksum_holds_as_old_tars_wrote_it() {
        let mut h = [0u8; 512];
        h[..8].copy_from_slice(b"\xc4\xd6\xdc.txt\0");
        h[148..156].copy_from_slice(b"        ");
        let signed: i64 = h.iter().map(|&b| i64::from(b as i8)).sum();
        let unsigned: u64 = h.iter().map(|&b| u64::from(b)).sum();
        assert_ne!(signed as u64, unsigned, "the name holds bytes past 0x7F");
        for sum in [signed as u64, unsigned] {
            h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
            assert!(is_header(&h), "{sum:o}");
        }
        h[148..156].copy_from_slice(format!("{:06o}\0 ", unsigned + 1).as_bytes());
        assert!(!is_header(&h), "a damaged header is no header");
    }
}
