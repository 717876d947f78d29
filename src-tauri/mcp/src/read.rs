//! One `read_file` reply: a chunk of a file as text (in its detected
//! encoding) or as a hex dump, under a header line that always says which
//! bytes it shows.
//!
//! Promises: the text holds at most `MCP_REPLY_CHARS` characters (a chunk
//! is at most `MCP_READ_CHUNK` bytes, and no encoding decodes a byte to more
//! than one character; a hex dump shows at most `HEX_VIEW_BYTES`); the
//! header is the first line, and the content follows a blank line.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use canopy_core::wire::{PreviewChunk, PreviewContent, TextEncoding};

use canopy_core::{LineTotal, Lines};

use crate::tools::read_file::{LinesOutput, ReadFileOutput};

fn encoding_name(e: TextEncoding) -> &'static str {
    match e {
        TextEncoding::Utf8 => "utf-8",
        TextEncoding::Utf16Le => "utf-16le",
        TextEncoding::Utf16Be => "utf-16be",
        TextEncoding::Windows1252 => "windows-1252",
    }
}

/// `offset  hh hh ... hh  |ascii|`, 16 bytes a line.
pub fn hex_dump(offset: u64, bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() / 16 * 80 + 80);
    for (i, row) in bytes.chunks(16).enumerate() {
        out.push_str(&format!("{:08x} ", offset + (i as u64) * 16));
        for j in 0..16 {
            if j == 8 {
                out.push(' ');
            }
            match row.get(j) {
                Some(b) => out.push_str(&format!(" {b:02x}")),
                None => out.push_str("   "),
            }
        }
        out.push_str("  |");
        out.extend(row.iter().map(|&b| {
            if (0x20..0x7f).contains(&b) {
                b as char
            } else {
                '.'
            }
        }));
        out.push_str("|\n");
    }
    out
}

/// Characters of the hex dump of `bytes` bytes.
pub fn hex_chars(bytes: u64) -> usize {
    (bytes.div_ceil(16) * 79) as usize
}

/// A binary `chunk` cut to the bytes whose hex dump fits `cap` characters.
pub fn shortened(mut chunk: PreviewChunk, cap: u64) -> PreviewChunk {
    let keep = (cap / 79 * 16).max(16);
    if let PreviewContent::Binary { base64 } = &chunk.content {
        let bytes = STANDARD.decode(base64).unwrap_or_default();
        let keep = keep.min(bytes.len() as u64);
        chunk.content = PreviewContent::Binary {
            base64: STANDARD.encode(&bytes[..keep as usize]),
        };
        chunk.more = chunk.more || keep < chunk.length;
        chunk.length = keep;
    }
    chunk
}

/// The reply's text and structured result for `chunk` of the file printed as `path`.
pub fn render(chunk: &PreviewChunk, clamped_to: Option<u64>) -> (String, ReadFileOutput) {
    let end = chunk.offset + chunk.length;
    let unknown_size = chunk.size == 0 && (chunk.length > 0 || chunk.more);
    let of = if unknown_size {
        "of unknown size".to_string()
    } else {
        format!("of {}", chunk.size)
    };
    let (kind, body, encoding, lossy) = match &chunk.content {
        PreviewContent::Text {
            text,
            encoding,
            lossy,
        } => ("text", text.clone(), Some(encoding_name(*encoding)), *lossy),
        PreviewContent::Binary { base64 } => {
            let bytes = STANDARD.decode(base64).unwrap_or_default();
            ("binary", hex_dump(chunk.offset, &bytes), None, false)
        }
    };
    let mut header = match encoding {
        Some(enc) => format!("[TEXT {enc}] showing bytes {}-{end} {of}", chunk.offset),
        None => format!(
            "[BINARY] showing bytes {}-{end} {of} as a hex dump",
            chunk.offset
        ),
    };
    if let Some(image) = chunk.image {
        header.push_str(&format!(" ({})", image.mime()));
    }
    if lossy {
        header.push_str("; bytes that do not decode show as U+FFFD");
    }
    if let Some(max) = clamped_to {
        header.push_str(&format!("; at most {max} bytes are read per call"));
    }
    if chunk.more {
        header.push_str(&format!("; call read_file with offset {end} for more"));
    } else if let Some(at) = chunk.ended_at {
        header.push_str(&ended_early(at, chunk.size));
    } else {
        header.push_str("; end of file");
    }
    let text = format!("{header}\n\n{body}");
    let out = ReadFileOutput {
        offset: chunk.offset,
        length: chunk.length,
        size: (!unknown_size).then_some(chunk.size),
        next_offset: chunk.more.then_some(end),
        ended_at: chunk.ended_at,
        content: kind.into(),
        encoding: encoding.map(Into::into),
        lossy,
        image: chunk.image.map(|i| i.mime().into()),
        lines: None,
    };
    (text, out)
}

/// What a header says of a file that ended at byte `at`, before its `size`.
fn ended_early(at: u64, size: u64) -> String {
    format!("; the file ended at byte {at}, before its size ({size} bytes): there is no more")
}

/// The reply's text and structured result for lines read by line number.
pub fn render_lines(l: &Lines) -> (String, ReadFileOutput) {
    let end = l.offset + l.length;
    let enc = encoding_name(l.encoding);
    let (total, lower) = match l.total {
        LineTotal::Exact(n) => (n, false),
        LineTotal::AtLeast(n) => (n, true),
    };
    let of = if lower {
        format!("of at least {total}")
    } else {
        format!("of {total}")
    };
    let which = match (l.first, l.shown) {
        (_, 0) => "no lines".to_string(),
        (Some(first), n) => format!("lines {first}-{}", first + n - 1),
        (None, n) => format!("the last {n} lines"),
    };
    let mut header = format!(
        "[TEXT {enc}] showing {which} {of} (bytes {}-{end} of {})",
        l.offset, l.size
    );
    if l.lossy {
        header.push_str("; bytes that do not decode show as U+FFFD");
    }
    // Where the bytes end: the file's real end when it came before its size.
    let real_end = l.ended_at.unwrap_or(l.size);
    if l.cut {
        header.push_str(&format!(
            "; cut at the byte cap: call read_file with offset {end} for more"
        ));
    } else if let Some(at) = l.ended_at.filter(|&at| end >= at) {
        header.push_str(&ended_early(at, l.size));
    } else if end >= l.size {
        header.push_str("; end of file");
    } else if let Some(first) = l.first {
        header.push_str(&format!(
            "; call read_file with line_start {} for more",
            first + l.shown
        ));
    }
    let text = format!("{header}\n\n{}", l.text);
    let out = ReadFileOutput {
        offset: l.offset,
        length: l.length,
        size: Some(l.size),
        next_offset: (end < real_end).then_some(end),
        ended_at: l.ended_at,
        content: "text".into(),
        encoding: Some(enc.into()),
        lossy: l.lossy,
        image: None,
        lines: Some(LinesOutput {
            first: l.first,
            shown: l.shown,
            total,
            total_is_lower_bound: lower,
            cut: l.cut,
        }),
    };
    (text, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hex_dump_shows_offsets_bytes_and_printable_ascii() {
        let dump = hex_dump(16, b"\x7fELF\x00\x01abcdefghijklmnop\n");
        let lines: Vec<&str> = dump.lines().collect();
        assert_eq!(
            lines[0],
            "00000010  7f 45 4c 46 00 01 61 62  63 64 65 66 67 68 69 6a  |.ELF..abcdefghij|"
        );
        assert!(
            lines[1].starts_with("00000020  6b 6c 6d 6e 6f 70 0a   ")
                && lines[1].ends_with("  |klmnop.|"),
            "{:?}",
            lines[1]
        );
        assert_eq!(
            lines[1].find('|'),
            lines[0].find('|'),
            "a short last row keeps the text column aligned"
        );
    }
}
