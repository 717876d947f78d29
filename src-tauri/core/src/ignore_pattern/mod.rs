//! One line of an ignore file, read and matched as git reads and matches it,
//! over bytes: `dir.c` for the line (`add_patterns_from_buffer`,
//! `parse_path_pattern`, `match_basename`, `match_pathname`) and
//! `wildmatch.c` for the glob. [`crate::ignore_rules`] finds the files and
//! layers them; this module knows one rule.
//!
//! Promises:
//! - the meaning is git's, byte for byte (two differential tests hold it to
//!   `git check-ignore`: `tests/git_differential.rs` over generated rule
//!   files and their layers, `tests/git_wildmatch.rs` rule by rule over
//!   classes, ranges, escapes, stars and names that are not UTF-8, for the
//!   listing and the search alike): `{`, `}` and `,` are literal;
//!   a `[` with no closing `]`, an unknown `[:class:]` or a trailing `\`
//!   make a rule that matches nothing; `\` escapes inside `[...]` too; a NUL
//!   byte ends the line; a line need not be UTF-8;
//! - matching never backtracks: a glob compiles to a list of tokens that is
//!   run as a set of positions (a nondeterministic automaton), or, when all
//!   its stars may match any bytes, piece by piece with each piece at its
//!   leftmost place; either way one match costs at most
//!   (tokens + 2) x (bytes + 1) steps, after two cheap refusals (a byte the
//!   glob needs is missing, or its bytes are not in order). The steps are counted
//!   on a [`Meter`], which stops the match at the folder's deadline or when
//!   the request is cancelled;
//! - what a rule compiles to is bounded by its text, and [`Pattern::cost`]
//!   says how many bytes it holds, for the listing's budget.
#![forbid(unsafe_code)]

mod byte_set;
mod class;
mod glob;
mod lines;
mod meter;
mod rule;

pub(crate) use byte_set::ByteSet;
pub(crate) use glob::States;
pub(crate) use lines::rule_lines;
pub(crate) use meter::Halt;
pub use meter::Meter;
pub(crate) use rule::{Pattern, Subject};

#[cfg(test)]
mod tests;
