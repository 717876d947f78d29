//! One rule at a time against git's meaning (braces, unclosed brackets,
//! escapes, NUL bytes, stars and slashes) and against its cost (no
//! backtracking, the greedy and automaton matchers agreeing, the meter
//! stopping a match at a deadline or a cancel). The differential tests
//! against `git check-ignore` live in `tests/`.

use std::time::Instant;

use super::glob::compile;
use super::rule::Matcher;
use super::*;
use crate::cancel::CancelToken;
use crate::limits::IGNORE_STEPS_PER_CHECK;

fn matches(rule: &[u8], path: &[u8], is_dir: bool) -> bool {
    let p = Pattern::parse(rule_lines(rule).next().unwrap_or(b""));
    let base = path.iter().rposition(|&b| b == b'/').map_or(0, |i| i + 1);
    let s = Subject {
        path,
        base,
        is_dir,
        bytes: ByteSet::of(path),
    };
    p.matches(&s, &mut States::default(), &mut Meter::unbounded())
        .unwrap()
}

#[test]
fn braces_and_commas_are_literal() {
    assert!(matches(b"*.{jpg,png}", b"p.{jpg,png}", false));
    assert!(!matches(b"*.{jpg,png}", b"p.jpg", false));
    assert!(matches(b"br{ace", b"br{ace", false));
}

#[test]
fn an_unclosed_bracket_matches_nothing() {
    for rule in [
        &b"[unclosed"[..],
        b"[",
        b"a[b",
        b"*[",
        b"x[[:alpha:]",
        b"[[:nope:]]",
    ] {
        for path in [&b"[unclosed"[..], b"[", b"a[b", b"ab", b"x[", b"a"] {
            assert!(
                !matches(rule, path, false),
                "{:?} must match nothing, yet matched {:?}",
                rule.escape_ascii().to_string(),
                path.escape_ascii().to_string()
            );
        }
    }
}

#[test]
fn a_backslash_inside_brackets_escapes() {
    assert!(matches(br"[\]]x", b"]x", false));
    assert!(!matches(br"[\]]x", br"\]x", false));
    for (name, want) in [
        (&b"-cls"[..], true),
        (b"acls", true),
        (b"zcls", true),
        (b"bcls", false),
        (br"\cls", false),
    ] {
        assert_eq!(
            matches(br"[a\-z]cls", name, false),
            want,
            "{}",
            name.escape_ascii()
        );
    }
    assert!(!matches(br"ss[\!]", br"ss\", false));
    assert!(matches(br"ss[\!]", b"ss!", false));
}

#[test]
fn a_nul_ends_the_rule_and_bytes_need_not_be_utf8() {
    assert!(matches(b"nul\0tail", b"nul", false));
    assert!(!matches(b"nul\0tail", b"nul\0tail", false));
    assert!(matches(b"caf\xe9*", b"caf\xe9 menu", false));
    assert!(matches(b"[\xe0-\xef]x", b"\xe9x", false));
}

#[test]
fn stars_slashes_and_classes_follow_wildmatch() {
    let cases: &[(&[u8], &[u8], bool)] = &[
        (b"a/**/b", b"a/b", true),
        (b"a/**/b", b"a/x/y/b", true),
        (b"a/*/b", b"a/x/y/b", false),
        (b"**/b", b"x/y/b", true),
        (b"**//**/*", b"x/y", false),
        (b"**//**/*", b"x//y", true),
        (b"a/**", b"a/x/y", true),
        (b"a**/b", b"ax/y/b", true),
        (b"a/x**y", b"a/x/y", false),
        (b"/a?c", b"abc", true),
        (b"a/?", b"a//", false),
        (b"[[:digit:]]x", b"7x", true),
        (b"[[:space:]]", b"\x0b", false),
        (b"[!a-c]", b"d", true),
        (b"[^a-c]", b"b", false),
        (b"[]a]", b"]", true),
        (b"[[:x]", b":", true),
        (b"*", b"anything", true),
        (b"\\#x", b"#x", true),
        (b"x\\", b"x\\", false),
        (b"trail\\ ", b"trail ", true),
        (b"trail  ", b"trail", true),
    ];
    for &(rule, path, want) in cases {
        assert_eq!(
            matches(rule, path, false),
            want,
            "{} on {}",
            rule.escape_ascii(),
            path.escape_ascii()
        );
    }
}

#[test]
fn a_match_costs_at_most_tokens_times_bytes_and_never_backtracks() {
    // The attack of issue 16: 12 stars between letters; git's wildmatch
    // and a backtracking glob try combinations of positions.
    let rule = Pattern::parse(b"*e*s*c*i*d*p*o*u*m*g*v*");
    let Matcher::Glob { glob, .. } = &rule.matcher else {
        panic!("a glob")
    };
    let bound = |len: usize| (glob.tokens.len() as u64 + 2) * (len as u64 + 1) + 1;
    // Every letter the rule asks for, 20 times each, in the reverse order.
    let name: Vec<u8> = b"vgmuopdicse".iter().flat_map(|&b| [b; 20]).collect();
    let s = Subject {
        path: &name,
        base: 0,
        is_dir: false,
        bytes: ByteSet::of(&name),
    };
    let mut meter = Meter::unbounded();
    assert!(!rule
        .matches(&s, &mut States::default(), &mut meter)
        .unwrap());
    assert!(
        meter.steps() <= bound(name.len()),
        "{} steps for {} bytes",
        meter.steps(),
        name.len()
    );
}

#[test]
fn a_near_miss_costs_about_one_scan_of_the_name() {
    let name = [&b"b"[..], &[b'a'; 240]].concat();
    let s = Subject {
        path: &name,
        base: 0,
        is_dir: false,
        bytes: ByteSet::of(&name),
    };
    for rule in [&b"*a*a*a*a*a*a*a*a*a*a[!a]"[..], b"*a*a*a*a*a*a*a*a*a*a*b"] {
        let mut meter = Meter::unbounded();
        assert!(!Pattern::parse(rule)
            .matches(&s, &mut States::default(), &mut meter)
            .unwrap());
        let limit = 2 * (name.len() as u64 + 1);
        assert!(
            meter.steps() <= limit,
            "{}: {} steps, not {limit}",
            rule.escape_ascii(),
            meter.steps()
        );
    }
}

proptest::proptest! {
    #[test]
    fn piece_by_piece_and_the_automaton_agree(
        glob in proptest::collection::vec(proptest::sample::select(vec![&b"*"[..], b"**", b"?", b"a", b"b", b"/", b"[ab]", b"[!a]", b"ab"]), 0..8),
        text in proptest::collection::vec(proptest::sample::select(vec![b'a', b'b', b'c', b'/']), 0..12),
        pathname in proptest::bool::ANY,
    ) {
        let glob = glob.concat();
        let Some(g) = compile(&glob, pathname) else { return Ok(()) };
        let by_automaton = g.matches_automaton(&text, &mut States::default(), &mut Meter::unbounded()).unwrap();
        if g.greedy {
            let by_pieces = g.matches_greedy(&text, &mut Meter::unbounded()).unwrap();
            proptest::prop_assert_eq!(by_pieces, by_automaton, "{} on {}", glob.escape_ascii(), text.escape_ascii());
        }
    }
}

#[test]
fn a_meter_past_its_deadline_stops_the_match_within_one_check() {
    let rule = Pattern::parse(b"*a*a*a*a*a*a*a*a*a*a*b");
    let name = vec![b'a'; 255];
    let s = Subject {
        path: &name,
        base: 0,
        is_dir: false,
        bytes: ByteSet::of(b"ab"),
    };
    let mut meter = Meter::new(Some(Instant::now()), None);
    let mut states = States::default();
    let mut stopped = 0;
    for _ in 0..10_000 {
        if rule.matches(&s, &mut states, &mut meter).is_err() {
            stopped += 1;
        }
    }
    assert_eq!(meter.halted(), Some(Halt::Deadline));
    assert!(
        stopped > 9_000,
        "once stopped, every later match stops at once"
    );
    assert!(
        meter.steps() <= IGNORE_STEPS_PER_CHECK + 64,
        "stopped within one check: {} steps",
        meter.steps()
    );
}

#[test]
fn a_cancel_stops_the_match() {
    let token = CancelToken::default();
    token.cancel();
    let mut meter = Meter::new(None, Some(&token));
    let rule = Pattern::parse(b"*x*");
    let name = vec![b'y'; 200];
    let s = Subject {
        path: &name,
        base: 0,
        is_dir: false,
        bytes: ByteSet::of(b"xy"),
    };
    let mut states = States::default();
    let stopped = (0..10_000).find_map(|_| rule.matches(&s, &mut states, &mut meter).err());
    assert_eq!(stopped, Some(Halt::Cancelled));
}
