//! A font through Debian's font tools in the sandbox: `fc-query`
//! (fontconfig) for its facts, `hb-view` (HarfBuzz, drawing with FreeType
//! and cairo) for a sample line, whose PNG is decoded and encoded again
//! here, so the window never loads the font and only ever decodes
//! Canopy's own PNG. A font is told by its first bytes (`font_container`),
//! never by its name; the tools get the open file's `/dev/fd/N`.
//!
//! Font parsers (FreeType's above all) have a long record of exploits, and
//! a crafted font can crash or hang them: in a child with the renderer's
//! limits, that costs the child, and the pane says so.
#![forbid(unsafe_code)]

use std::ffi::OsString;
use std::path::Path;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;

use super::{descriptor, finished, open_with_head, reencode, start_error, tool};
use crate::cancel::CancelToken;
use crate::error::{CanopyError, ErrorCode};
use crate::limits::{
    FONT_FIELD_CHARS, FONT_QUERY_CAP, FONT_SAMPLE_CHARS, FONT_SAMPLE_PX, MAX_RENDER_WIDTH,
    MIN_RENDER_WIDTH, RENDER_DEADLINE, RENDER_OUTPUT_CAP,
};
use crate::source::Source;
use crate::sys::sandbox::{self, RenderJob, RenderOutcome, FILE_ARG};
use crate::wire::{FontPreview, FontSample};

/// The Debian package with `fc-query`.
const FONTCONFIG: &str = "fontconfig";
/// The Debian package with `hb-view`.
const HARFBUZZ: &str = "libharfbuzz-bin";

/// The sample drawn when the font has the Latin letters and digits.
pub const PANGRAM: &str = "The quick brown fox jumps over the lazy dog\n0123456789";

/// One record a face (and named instance), ended by `end`: the fields
/// `parse_query` reads. A name holding a newline can only add lines the
/// parser ignores or repeat a field of its own record.
const QUERY_FORMAT: &str = "index=%{index}\nfamily=%{family[0]}\nstyle=%{style[0]}\nfullname=%{fullname[0]}\nweight=%{weight}\nslant=%{slant}\nspacing=%{spacing}\nvariable=%{variable}\nfontversion=%{fontversion}\ncharset=%{charset}\nend\n";

/// The first bytes of a font file: what it is, or `None` for anything else.
pub fn font_container(head: &[u8]) -> Option<&'static str> {
    let tag = |at: usize| head.get(at..at + 4);
    match tag(0)? {
        b"wOFF" => Some("WOFF"),
        b"wOF2" => Some("WOFF2"),
        b"ttcf" => {
            let version = head.get(4..8)?;
            matches!(version, [0, 1 | 2, 0, 0]).then_some("font collection")
        }
        b"OTTO" if sfnt_directory(head) => Some("OpenType (CFF)"),
        b"\0\x01\0\0" | b"true" if sfnt_directory(head) => Some("TrueType"),
        _ => None,
    }
}

/// An sfnt's table directory looks like one: a sane table count, and a
/// first table named in printable ASCII (so `00 01 00 00` alone is not a font).
fn sfnt_directory(head: &[u8]) -> bool {
    let Some(n) = head.get(4..6).map(|b| u16::from_be_bytes([b[0], b[1]])) else {
        return false;
    };
    let first_tag = head.get(12..16);
    (1..=64).contains(&n) && first_tag.is_some_and(|t| t.iter().all(|c| (0x20..0x7f).contains(c)))
}

/// The faces a collection's header says it holds (1 for a single font).
fn faces_in(head: &[u8]) -> u32 {
    if head.starts_with(b"ttcf") {
        head.get(8..12)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
            .unwrap_or(1)
            .max(1)
    } else {
        1
    }
}

fn args(list: &[&str]) -> Vec<OsString> {
    list.iter().map(OsString::from).collect()
}

/// A font's facts (`fc-query`) and a sample line drawn with it (`hb-view`,
/// `width` pixels wide at most, clamped to `MIN_RENDER_WIDTH..=MAX_RENDER_WIDTH`),
/// both in the sandbox, one after the other within one `RENDER_DEADLINE`
/// (the drawing gets what the facts left). The sample's own failure (the drawing
/// tool crashed, hung or is missing) is [`FontPreview::sample_error`], with
/// the facts still shown.
///
/// # Errors
/// `TOOL_MISSING` without fontconfig's `fc-query`; `NOT_A_FILE` for anything
/// but a regular file (never opened); `UNSUPPORTED` when its first bytes are
/// no font; `RENDER_FAILED` when `fc-query` cannot read it as a font (cut,
/// garbage) or crashes; `TIMEOUT` when the file or the tool does not answer
/// in time (its child is killed); `CANCELLED`.
pub fn font_preview<S: Source>(
    source: &S,
    path: &Path,
    width: u32,
    cancel: Option<&CancelToken>,
) -> Result<FontPreview, CanopyError> {
    let width = width.clamp(MIN_RENDER_WIDTH, MAX_RENDER_WIDTH);
    let started = std::time::Instant::now();
    let query = tool("fc-query", FONTCONFIG)?;
    let (file, head) = open_with_head(source, path, 16)?;
    let container = font_container(&head).ok_or_else(|| {
        CanopyError::new(
            ErrorCode::Unsupported,
            "this file's first bytes are no font Canopy reads",
        )
    })?;
    let fd = descriptor(&*file)?;
    let facts = sandbox::run(&RenderJob {
        program: &query,
        args: args(&["--format", QUERY_FORMAT, FILE_ARG]),
        file: Some(fd),
        max_output: FONT_QUERY_CAP,
        deadline: RENDER_DEADLINE,
        cancel,
    })
    .map_err(|e| start_error("fc-query", e))?;
    let facts = match facts.outcome {
        // A long answer (a variable font's many instances) is read up to
        // the cap: its first records are whole.
        RenderOutcome::TooMuchOutput => facts,
        RenderOutcome::Exited(code) if code != 0 => return Err(CanopyError::new(
            ErrorCode::RenderFailed,
            "fontconfig (fc-query) cannot read this file as a font: it is cut, damaged or no font",
        )),
        _ => finished("fc-query", facts)?,
    };
    let records = parse_query(&String::from_utf8_lossy(&facts.stdout));
    let Some(first) = records
        .iter()
        .find(|r| r.index & 0xffff == 0 && r.index >> 16 == 0)
    else {
        return Err(CanopyError::new(
            ErrorCode::RenderFailed,
            "fontconfig (fc-query) found no face in this font",
        ));
    };
    let sample_text = sample_text(&first.charset);
    // One deadline for the preview: the drawing gets what the facts left.
    let left = RENDER_DEADLINE.saturating_sub(started.elapsed());
    let sample = draw_sample(fd, &sample_text, width, left, cancel);
    let named_instances = records
        .iter()
        .filter(|r| r.index & 0xffff == 0 && r.index >> 16 != 0)
        .count() as u32;
    let (weight, weight_to) = weights(&first.weight);
    let (sample, sample_error) = match sample {
        Ok(s) => (Some(s), None),
        Err(e) => (None, Some(e)),
    };
    Ok(FontPreview {
        container: container.to_string(),
        family: first.family.clone(),
        style: (!first.style.is_empty()).then(|| first.style.clone()),
        full_name: (!first.full_name.is_empty()).then(|| first.full_name.clone()),
        weight,
        weight_to,
        slant: match first.slant.trim().parse::<f64>().ok().map(|s| s as i64) {
            Some(100) => Some("italic".into()),
            Some(110) => Some("oblique".into()),
            _ => None,
        },
        monospaced: matches!(first.spacing.trim(), "100" | "110"),
        variable: first.variable.trim() == "True" || weight_to.is_some(),
        named_instances,
        faces: faces_in(&head),
        characters: charset_size(&first.charset),
        version: first
            .version
            .trim()
            .parse::<u32>()
            .ok()
            .filter(|v| *v > 0)
            .map(|v| format!("{:.3}", f64::from(v) / 65536.0)),
        sample_text,
        sample,
        sample_error,
        network_isolated: facts.network_isolated,
    })
}

/// `hb-view`'s drawing of `text` in the font, encoded again at `width`.
fn draw_sample(
    fd: &std::fs::File,
    text: &str,
    width: u32,
    deadline: std::time::Duration,
    cancel: Option<&CancelToken>,
) -> Result<FontSample, CanopyError> {
    let view = tool("hb-view", HARFBUZZ)?;
    let size = FONT_SAMPLE_PX.to_string();
    let done = sandbox::run(&RenderJob {
        program: &view,
        args: vec![
            OsString::from("--font-file"),
            OsString::from(FILE_ARG),
            // FreeType reads the font for the glyphs (it reads WOFF and
            // WOFF2, which HarfBuzz's own reader does not).
            OsString::from("--font-funcs=ft"),
            OsString::from(format!("--font-size={size}")),
            OsString::from("--margin=16"),
            OsString::from("--output-format=png"),
            OsString::from("--text"),
            OsString::from(text),
        ],
        file: Some(fd),
        max_output: RENDER_OUTPUT_CAP,
        deadline,
        cancel,
    })
    .map_err(|e| start_error("hb-view", e))?;
    let done = finished("hb-view", done)?;
    if done.stdout.is_empty() {
        return Err(CanopyError::new(
            ErrorCode::RenderFailed,
            "hb-view drew nothing with this font",
        ));
    }
    let (png, w, h) = reencode(&done.stdout, width, "font sample")?;
    Ok(FontSample {
        width: w,
        height: h,
        png_base64: STANDARD.encode(png),
    })
}

/// One face (or named instance) as `fc-query` told it.
#[derive(Debug, Default, Clone, PartialEq)]
struct Record {
    index: u32,
    family: String,
    style: String,
    full_name: String,
    weight: String,
    slant: String,
    spacing: String,
    variable: String,
    version: String,
    charset: String,
}

/// `fc-query`'s records ([`QUERY_FORMAT`]); a record cut by the output
/// cap (no `end`) is left out.
fn parse_query(text: &str) -> Vec<Record> {
    let mut out = Vec::new();
    let mut rec = Record::default();
    for line in text.lines() {
        if line == "end" {
            out.push(std::mem::take(&mut rec));
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        match key {
            "index" => rec.index = value.trim().parse().unwrap_or(u32::MAX),
            "family" => rec.family = clean(value),
            "style" => rec.style = clean(value),
            "fullname" => rec.full_name = clean(value),
            "weight" => rec.weight = value.to_string(),
            "slant" => rec.slant = value.to_string(),
            "spacing" => rec.spacing = value.to_string(),
            "variable" => rec.variable = value.to_string(),
            "fontversion" => rec.version = value.to_string(),
            "charset" => rec.charset = value.to_string(),
            _ => {}
        }
    }
    out
}

/// A name as shown: no control characters, at most `FONT_FIELD_CHARS`.
fn clean(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_control())
        .take(FONT_FIELD_CHARS)
        .collect::<String>()
        .trim()
        .to_string()
}

/// fontconfig's charset (`20-7e a0-2e9 ...`, hexadecimal) as ranges.
fn charset_ranges(charset: &str) -> impl Iterator<Item = (u32, u32)> + '_ {
    charset.split_whitespace().filter_map(|part| {
        let (lo, hi) = part.split_once('-').unwrap_or((part, part));
        let lo = u32::from_str_radix(lo, 16).ok()?;
        let hi = u32::from_str_radix(hi, 16).ok()?;
        (lo <= hi && hi <= 0x10ffff).then_some((lo, hi))
    })
}

/// Characters the ranges cover, counted as written (a hostile answer that
/// repeats `0-10ffff` saturates rather than wrapping).
fn charset_size(charset: &str) -> Option<u32> {
    let n: u64 = charset_ranges(charset)
        .map(|(lo, hi)| u64::from(hi - lo) + 1)
        .sum();
    (n > 0).then(|| u32::try_from(n).unwrap_or(u32::MAX))
}

/// The pangram when the font covers it; else its first printable characters.
fn sample_text(charset: &str) -> String {
    let ranges: Vec<(u32, u32)> = charset_ranges(charset).collect();
    let has = |c: char| {
        ranges
            .iter()
            .any(|(lo, hi)| (*lo..=*hi).contains(&u32::from(c)))
    };
    if PANGRAM.chars().filter(|c| *c != '\n').all(has) {
        return PANGRAM.to_string();
    }
    let chars: String = ranges
        .iter()
        .flat_map(|(lo, hi)| *lo..=*hi)
        .filter_map(char::from_u32)
        .filter(|c| !c.is_control() && !c.is_whitespace())
        .take(FONT_SAMPLE_CHARS)
        .collect();
    if chars.is_empty() {
        PANGRAM.to_string()
    } else {
        chars
    }
}

/// fontconfig's weight (`80`, or `[0 210]` for a variable font) on the
/// OpenType scale: the weight, and the heaviest for a range.
fn weights(value: &str) -> (Option<u16>, Option<u16>) {
    let v = value.trim();
    if let Some(range) = v.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        let mut parts = range
            .split_whitespace()
            .filter_map(|p| p.parse::<f64>().ok());
        return match (parts.next(), parts.next()) {
            (Some(lo), Some(hi)) if lo < hi => (opentype_weight(lo), opentype_weight(hi)),
            (Some(lo), _) => (opentype_weight(lo), None),
            _ => (None, None),
        };
    }
    (v.parse::<f64>().ok().and_then(opentype_weight), None)
}

/// fontconfig's weight scale to OpenType's, as `FcWeightToOpenType` maps it
/// (straight lines between its points).
fn opentype_weight(fc: f64) -> Option<u16> {
    const MAP: &[(f64, f64)] = &[
        (0.0, 100.0),
        (40.0, 200.0),
        (50.0, 300.0),
        (55.0, 350.0),
        (75.0, 380.0),
        (80.0, 400.0),
        (100.0, 500.0),
        (180.0, 600.0),
        (200.0, 700.0),
        (205.0, 800.0),
        (210.0, 900.0),
        (215.0, 1000.0),
    ];
    if !(0.0..=215.0).contains(&fc) {
        return None;
    }
    let i = MAP.iter().position(|(f, _)| fc <= *f)?;
    if i == 0 {
        return Some(MAP[0].1 as u16);
    }
    let ((f0, o0), (f1, o1)) = (MAP[i - 1], MAP[i]);
    Some((o0 + (fc - f0) * (o1 - o0) / (f1 - f0)).round() as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_charset_repeating_every_character_saturates_and_never_wraps() {
        let hostile = vec!["0-10ffff"; 5000].join(" ");
        assert_eq!(charset_size(&hostile), Some(u32::MAX));
        assert_eq!(charset_size("20-7e a0"), Some(96));
    }

    #[test]
    fn fonts_are_told_by_their_first_bytes() {
        let dejavu = b"\0\x01\0\0\0\x13\x01\0\0\x04\0\x30FFTM";
        assert_eq!(font_container(dejavu), Some("TrueType"));
        assert_eq!(
            font_container(b"OTTO\0\x0c\0\x80\0\x03\0\x40CFF "),
            Some("OpenType (CFF)")
        );
        assert_eq!(font_container(b"wOF2\0\x01\0\0"), Some("WOFF2"));
        assert_eq!(
            font_container(b"ttcf\0\x01\0\0\0\0\0\x02"),
            Some("font collection")
        );
        assert_eq!(
            font_container(b"\0\x01\0\0\0\0\0\0\0\0\0\0\x01\x02\x03\x04"),
            None,
            "four bytes of 00 01 00 00 and no table directory are no font"
        );
        assert_eq!(font_container(b"\0\x01\0\0"), None, "too short to tell");
        assert_eq!(faces_in(b"ttcf\0\x01\0\0\0\0\0\x03"), 3);
        assert_eq!(faces_in(b"ttcf"), 1);
    }

    #[test]
    fn query_records_are_read_and_a_cut_one_left_out() {
        let text = "index=0\nfamily=Demo\u{7} Sans\nstyle=Bold\nweight=200\nslant=100\nspacing=100\nvariable=False\nfontversion=155320\ncharset=20-7e a0\nend\nindex=1\nfamily=Cut";
        let recs = parse_query(text);
        assert_eq!(recs.len(), 1, "the cut record is left out");
        assert_eq!(recs[0].family, "Demo Sans", "control characters dropped");
        assert_eq!(charset_size(&recs[0].charset), Some(96));
        assert_eq!(weights(&recs[0].weight), (Some(700), None));
        assert_eq!(weights("[0 210]"), (Some(100), Some(900)));
        assert_eq!(weights("80"), (Some(400), None));
        assert_eq!(weights("junk"), (None, None));
    }

    #[test]
    fn sample_is_the_pangram_or_what_the_font_covers() {
        assert_eq!(sample_text("20-7e"), PANGRAM);
        let greek = sample_text("391-3a9 3b1-3c9");
        assert!(greek.starts_with("ΑΒΓ"), "{greek}");
        assert_eq!(greek.chars().count(), FONT_SAMPLE_CHARS);
        assert_eq!(
            sample_text("zz 110000-110010"),
            PANGRAM,
            "nonsense ranges are ignored"
        );
    }
}
