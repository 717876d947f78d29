//! The numbers the docs state, checked against the code.
//!
//! A figure in `README.md`, `ARCHITECTURE.md` or `docs/*.md` is marked right
//! after it, in an HTML comment that does not render:
//! - `100<!-- limit: NESTED_CAP -->`: a constant of [`super::DOCUMENTED`];
//! - `0.3 s<!-- const: ui/src/limits.ts PROGRESS_DELAY_MS -->`: a constant in
//!   another file of the repository, read from its `const NAME = VALUE`
//!   (numbers, or numbers multiplied). Its unit comes from its name: `_MS`
//!   milliseconds, `_SECS` seconds, `_MIB` mebibytes, else a count.
//!
//! The figure is the number (with its unit, if any) that ends the text
//! before the marker. Fenced code blocks are examples and are not read.
//! A doc that states a number the code does not, a marker that names
//! nothing or follows no figure, and a documented constant that no doc
//! marks, each fail with the file and line.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{Figure, DOCUMENTED};

/// The repository's top folder (this crate is `src-tauri/core`).
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The docs read: the README, ARCHITECTURE.md and every page of `docs/`.
fn doc_files() -> Vec<PathBuf> {
    let root = repo();
    let mut files = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ is readable")
        .map(|e| e.expect("a docs/ entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    files.extend(pages);
    files
}

/// One marker found in a doc.
#[derive(Debug, PartialEq)]
struct Marker {
    line: usize,
    /// The text of the line before the marker.
    before: String,
    /// What the marker names.
    names: Named,
}

#[derive(Debug, PartialEq)]
enum Named {
    /// `limit: NAME`
    Limit(String),
    /// `const: PATH NAME`
    Const { path: String, name: String },
    /// A `limit:` or `const:` comment that could not be read.
    Malformed(String),
}

/// The markers of a doc's text, outside fenced code blocks.
fn markers(text: &str) -> Vec<Marker> {
    let mut found = Vec::new();
    let mut fenced = false;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut from = 0;
        while let Some(start) = line[from..].find("<!--").map(|s| s + from) {
            let Some(end) = line[start..].find("-->").map(|e| e + start) else {
                break;
            };
            let body = line[start + 4..end].trim();
            let names = if let Some(name) = body.strip_prefix("limit:") {
                let name = name.trim();
                if is_name(name) {
                    Some(Named::Limit(name.to_string()))
                } else {
                    Some(Named::Malformed(body.to_string()))
                }
            } else if let Some(rest) = body.strip_prefix("const:") {
                match rest.split_whitespace().collect::<Vec<_>>()[..] {
                    [path, name] if is_name(name) => Some(Named::Const {
                        path: path.to_string(),
                        name: name.to_string(),
                    }),
                    _ => Some(Named::Malformed(body.to_string())),
                }
            } else {
                None
            };
            if let Some(names) = names {
                found.push(Marker {
                    line: i + 1,
                    before: line[..start].to_string(),
                    names,
                });
            }
            from = end + 3;
        }
    }
    found
}

fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// A figure as a doc writes it, in its base unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Written {
    /// No unit (or `%`).
    Plain(u64),
    Bytes(u64),
    Millis(u64),
}

/// A unit as written, what it makes of the number, and its size in the
/// base unit (bytes, milliseconds).
type Unit = (&'static str, fn(u64) -> Written, u64);

/// Units a figure may carry, longest first where one ends another.
const UNITS: &[Unit] = &[
    ("minutes", Written::Millis, 60_000),
    ("minute", Written::Millis, 60_000),
    ("seconds", Written::Millis, 1_000),
    ("ms", Written::Millis, 1),
    ("s", Written::Millis, 1_000),
    ("GiB", Written::Bytes, 1 << 30),
    ("MiB", Written::Bytes, 1 << 20),
    ("KiB", Written::Bytes, 1 << 10),
    ("bytes", Written::Bytes, 1),
    ("B", Written::Bytes, 1),
    ("%", Written::Plain, 1),
];

/// The figure that ends `before`: a number (`10,000`, `1.5`) and, after
/// optional spaces, a unit.
fn figure(before: &str) -> Result<Written, String> {
    let text = before.trim_end();
    for &(unit, kind, scale) in UNITS {
        if let Some(rest) = text.strip_suffix(unit) {
            let number = rest.trim_end();
            if number.ends_with(|c: char| c.is_ascii_digit()) {
                return number_at_end(number, scale).map(kind);
            }
        }
    }
    number_at_end(text, 1).map(Written::Plain)
}

/// The number that ends `text`, times `scale`, exactly.
fn number_at_end(text: &str, scale: u64) -> Result<u64, String> {
    let start = text
        .char_indices()
        .rev()
        .take_while(|&(_, c)| c.is_ascii_digit() || c == ',' || c == '.')
        .last()
        .map(|(i, _)| i)
        .ok_or_else(|| {
            format!(
                "no figure before the marker (the text ends {:?})",
                tail(text)
            )
        })?;
    let token = text[start..].trim_start_matches([',', '.']);
    if text[..start]
        .chars()
        .next_back()
        .is_some_and(|c| c.is_alphanumeric() || c == '_')
    {
        return Err(format!(
            "no figure before the marker ({:?} is part of a word)",
            tail(text)
        ));
    }
    if !token.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(format!(
            "no figure before the marker (the text ends {:?})",
            tail(text)
        ));
    }
    let (whole, fraction) = token.split_once('.').unwrap_or((token, ""));
    let whole: u64 = whole
        .replace(',', "")
        .parse()
        .map_err(|_| format!("{token:?} is not a number"))?;
    if fraction.contains([',', '.']) {
        return Err(format!("{token:?} is not a number"));
    }
    let digits = u32::try_from(fraction.len()).map_err(|_| "too many decimals".to_string())?;
    let tens = 10u64.pow(digits);
    let fraction: u64 = if fraction.is_empty() {
        0
    } else {
        fraction
            .parse()
            .map_err(|_| format!("{token:?} is not a number"))?
    };
    let scaled_fraction = fraction * scale;
    if !scaled_fraction.is_multiple_of(tens) {
        return Err(format!(
            "{token:?} is not a whole number of the unit's base"
        ));
    }
    Ok(whole * scale + scaled_fraction / tens)
}

fn tail(text: &str) -> &str {
    let from = text.char_indices().rev().nth(20).map_or(0, |(i, _)| i);
    &text[from..]
}

/// Whether `written` states `figure`; the reason when it does not.
fn states(written: Written, figure: Figure) -> Result<(), String> {
    let millis = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
    let ok = match (figure, written) {
        (Figure::Count(v), Written::Plain(w)) => v == w,
        (Figure::Bytes(v), Written::Bytes(w) | Written::Plain(w)) => v == w,
        (Figure::Time(d), Written::Millis(w)) => millis(d) == w,
        (figure, written) => {
            return Err(format!(
                "the doc writes {written:?}, the code's figure is {figure:?}: not the same unit"
            ))
        }
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "the doc writes {written:?}, the code says {figure:?}"
        ))
    }
}

/// The value of `const NAME` in `source` (Rust or TypeScript), with the
/// unit its name gives it.
fn constant_in(source: &str, name: &str) -> Result<Figure, String> {
    let needle = format!("const {name}");
    let at = source
        .match_indices(&needle)
        .map(|(i, _)| i + needle.len())
        .find(|&end| !source[end..].starts_with(|c: char| c.is_alphanumeric() || c == '_'))
        .ok_or_else(|| format!("no `const {name}` there"))?;
    let rest = &source[at..];
    let value = rest
        .split_once('=')
        .map(|(_, v)| v)
        .ok_or_else(|| format!("`const {name}` has no value"))?;
    let value = value.split([';', '\n']).next().unwrap_or_default().trim();
    let mut product: u64 = 1;
    for factor in value.split('*') {
        let digits: String = factor.trim().chars().filter(|&c| c != '_').collect();
        let digits = digits.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        let n: u64 = digits
            .parse()
            .map_err(|_| format!("`const {name} = {value}`: only numbers multiplied are read"))?;
        product = product.checked_mul(n).ok_or("overflow")?;
    }
    Ok(if name.ends_with("_MS") {
        Figure::Time(Duration::from_millis(product))
    } else if name.ends_with("_SECS") {
        Figure::Time(Duration::from_secs(product))
    } else if name.ends_with("_MIB") {
        Figure::Bytes(product << 20)
    } else {
        Figure::Count(product)
    })
}

/// What the doc `text` (called `file`) gets wrong; `read` reads a file of
/// the repository by its path.
fn check(file: &str, text: &str, read: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    let mut wrong = Vec::new();
    for m in markers(text) {
        let at = format!("{file}:{}", m.line);
        let (label, code) = match &m.names {
            Named::Malformed(body) => {
                wrong.push(format!("{at}: cannot read the marker <!-- {body} -->"));
                continue;
            }
            Named::Limit(name) => (
                name.clone(),
                DOCUMENTED
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|&(_, f)| f)
                    .ok_or_else(|| format!("{name} is not in limits::DOCUMENTED")),
            ),
            Named::Const { path, name } => (
                format!("{path} {name}"),
                read(path)
                    .ok_or_else(|| format!("{path} cannot be read"))
                    .and_then(|source| {
                        constant_in(&source, name).map_err(|e| format!("{path}: {e}"))
                    }),
            ),
        };
        let outcome = code
            .and_then(|figure_of_code| figure(&m.before).and_then(|w| states(w, figure_of_code)));
        if let Err(why) = outcome {
            wrong.push(format!("{at}: {label}: {why}"));
        }
    }
    wrong
}

fn read_repo_file(path: &str) -> Option<String> {
    std::fs::read_to_string(repo().join(path)).ok()
}

fn shown(path: &Path) -> String {
    path.strip_prefix(repo())
        .unwrap_or(path)
        .display()
        .to_string()
}

#[test]
fn every_figure_the_docs_mark_is_the_codes() {
    let mut wrong = Vec::new();
    let mut markers_seen = 0;
    for path in doc_files() {
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{} cannot be read: {e}", path.display()));
        markers_seen += markers(&text).len();
        wrong.extend(check(&shown(&path), &text, &read_repo_file));
    }
    assert!(
        markers_seen > 0,
        "the docs mark no figure: is the repository there?"
    );
    assert!(
        wrong.is_empty(),
        "the docs state numbers the code does not (fix the doc or the code, see ARCHITECTURE.md, \"Limits and the docs\"):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn every_documented_limit_is_marked_in_the_docs() {
    let mut marked = std::collections::HashSet::new();
    for path in doc_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        for m in markers(&text) {
            if let Named::Limit(name) = m.names {
                marked.insert(name);
            }
        }
    }
    let unmarked: Vec<&str> = DOCUMENTED
        .iter()
        .map(|&(n, _)| n)
        .filter(|n| !marked.contains(*n))
        .collect();
    assert!(
        unmarked.is_empty(),
        "limits::DOCUMENTED lists constants no doc marks (mark the figure, or drop the name): {unmarked:?}"
    );
}

#[test]
fn documented_names_are_listed_once() {
    let mut names: Vec<&str> = DOCUMENTED.iter().map(|&(n, _)| n).collect();
    names.sort_unstable();
    let before = names.len();
    names.dedup();
    assert_eq!(
        names.len(),
        before,
        "a name is listed twice in limits::DOCUMENTED"
    );
}

#[test]
fn a_figure_is_read_with_its_unit() {
    assert_eq!(
        figure("at most 1.5 MiB"),
        Ok(Written::Bytes(3 * 512 * 1024))
    );
    assert_eq!(figure("at most 2.75 s"), Ok(Written::Millis(2_750)));
    assert_eq!(figure("for 2 minutes"), Ok(Written::Millis(120_000)));
    assert_eq!(figure("every 150 ms"), Ok(Written::Millis(150)));
    assert_eq!(figure("outside 1–10,000"), Ok(Written::Plain(10_000)));
    assert_eq!(figure("within 75%"), Ok(Written::Plain(75)));
    assert_eq!(figure("of 32,768"), Ok(Written::Plain(32_768)));
    assert!(
        figure("file10").is_err(),
        "a number inside a word is no figure"
    );
    assert!(
        figure("2 entries").is_err(),
        "a figure ends the text before the marker"
    );
    assert!(figure("").is_err());
    assert!(figure("1.5").is_err(), "a plain figure is whole");
}

#[test]
fn a_figure_changed_on_one_side_only_is_caught() {
    let read = |_: &str| Some("export const PROGRESS_DELAY_MS = 300;\n".to_string());
    let right = "after 2 s<!-- limit: TIME_BUDGET --> and 100<!-- limit: NESTED_CAP --> \
                 and 0.3 s<!-- const: ui/src/limits.ts PROGRESS_DELAY_MS -->";
    assert_eq!(check("doc.md", right, &read), Vec::<String>::new());
    for wrong in [
        "after 3 s<!-- limit: TIME_BUDGET -->",
        "after 2<!-- limit: TIME_BUDGET -->",
        "at most 101<!-- limit: NESTED_CAP -->",
        "at most 100 MiB<!-- limit: NESTED_CAP -->",
        "after 0.4 s<!-- const: ui/src/limits.ts PROGRESS_DELAY_MS -->",
        "after 0.3 s<!-- const: ui/src/limits.ts NO_SUCH_NAME -->",
        "at most 100<!-- limit: NO_SUCH_LIMIT -->",
        "<!-- limit: NESTED_CAP --> entries",
        "100<!-- limit: nested cap -->",
    ] {
        assert_eq!(
            check("doc.md", wrong, &read).len(),
            1,
            "{wrong} must be caught"
        );
    }
    let example = "```\nat most 101<!-- limit: NESTED_CAP -->\n```\n";
    assert!(
        check("doc.md", example, &read).is_empty(),
        "a fenced example is not read"
    );
}

#[test]
fn a_constant_is_read_from_another_file() {
    let ts =
        "export const HIGHLIGHT_LIMIT = 512 * 1024;\nexport const HIGHLIGHT_BUDGET_MS = 2000;\n";
    assert_eq!(
        constant_in(ts, "HIGHLIGHT_LIMIT"),
        Ok(Figure::Count(524_288))
    );
    assert_eq!(
        constant_in(ts, "HIGHLIGHT_BUDGET_MS"),
        Ok(Figure::Time(Duration::from_secs(2)))
    );
    let rs = "pub(crate) const MAX_EXCLUDES: usize = 64;\nconst MAX_EXCLUDES_X: usize = 9;\n";
    assert_eq!(constant_in(rs, "MAX_EXCLUDES"), Ok(Figure::Count(64)));
    assert!(constant_in(rs, "MAX").is_err(), "a name is matched whole");
}
