//! The natural order and the sort keys held to each other: case folding as
//! Unicode lowercasing, digit runs by value, folders first, bad bytes last,
//! every order as the module docs specify it, and a partial key comparing as
//! the whole key does (with generated names).

use super::fold::Folded;
use super::key::{push_ascii_units, push_units_of_any};
use super::natural::{Unit, Units};
use super::*;

#[test]
fn an_ascii_name_folds_as_unicode_lowercasing_does() {
    let every: Vec<u8> = (0u8..128).collect();
    let want: Vec<u32> = every
        .iter()
        .map(|&b| char::from(b).to_lowercase().next().unwrap() as u32)
        .collect();
    let mut fast = Vec::new();
    fold_into(&every, &mut fast);
    assert_eq!(
        fast, want,
        "every ASCII byte, through the whole-name shortcut"
    );
    assert_eq!(
        Folded::new(&every).collect::<Vec<u32>>(),
        want,
        "and character by character"
    );
    assert_eq!(fast[usize::from(b'Q')], u32::from(b'q'));
}

fn sorted(names: &[&str]) -> Vec<String> {
    let mut v: Vec<&str> = names.to_vec();
    v.sort_by(|a, b| compare_names(a.as_bytes(), b.as_bytes()));
    v.into_iter().map(String::from).collect()
}

#[test]
fn digit_runs_compare_by_value() {
    assert_eq!(
        sorted(&["file10", "file2", "file1"]),
        ["file1", "file2", "file10"]
    );
    assert_eq!(
        sorted(&["img_102.jpg", "img_001.jpg", "img_010.jpg"]),
        ["img_001.jpg", "img_010.jpg", "img_102.jpg"]
    );
}

#[test]
fn case_is_ignored_and_ties_break_by_bytes() {
    assert_eq!(sorted(&["b", "B", "a", "A"]), ["A", "a", "B", "b"]);
    // Code-point order after lowercasing: é (U+E9) sorts after z.
    assert_eq!(
        sorted(&["Zeta", "alpha", "Émile", "emile"]),
        ["alpha", "emile", "Zeta", "Émile"]
    );
    assert_eq!(
        compare_names(b"x01", b"x1"),
        Ordering::Less,
        "equal numbers tie-break by bytes"
    );
}

#[test]
fn numbers_sort_where_digits_would() {
    // '-' (0x2d) < digits < '_' (0x5f) < letters
    assert_eq!(sorted(&["a_", "a9", "a-", "ab"]), ["a-", "a9", "a_", "ab"]);
}

#[test]
fn folders_come_first() {
    let (folder, other) = (
        key_of(
            Order::NAME,
            &(Group::Folder, Primary::None, b"zzz".to_vec()),
        ),
        key_of(Order::NAME, &(Group::Other, Primary::None, b"aaa".to_vec())),
    );
    assert_eq!(
        Order::NAME.compare_keyed(&folder, b"zzz", &other, b"aaa"),
        Ordering::Less
    );
}

#[test]
fn a_digit_after_a_character_that_lowercases_to_two_still_reads_as_a_number() {
    // U+0130 lowercases to "i" and U+0307: the number starts after both.
    let units: Vec<Unit<'_>> = Units::new("\u{130}007x".as_bytes()).collect();
    assert_eq!(
        units,
        [
            Unit::Code('i' as u32),
            Unit::Code(0x307),
            Unit::Num(b"7"),
            Unit::Code('x' as u32)
        ]
    );
}

#[test]
fn bad_bytes_sort_after_characters() {
    assert_eq!(
        compare_names(b"a\xff", "a\u{10ffff}".as_bytes()),
        Ordering::Greater
    );
}

#[test]
fn sort_keys_order_like_the_comparator() {
    let names: &[&[u8]] = &[
        b"file10", b"file2", b"File2", b"a-", b"a9", b"a_", b"x01", b"x1", b"a\xff", b"", b"0",
        b"00",
    ];
    let key = |n: &[u8]| key_of(Order::NAME, &(Group::Other, Primary::None, n.to_vec()));
    for a in names {
        for b in names {
            let by_key = key(a).cmp(&key(b)).then_with(|| a.cmp(b));
            assert_eq!(by_key, compare_names(a, b), "{a:?} vs {b:?}");
        }
    }
}

/// The orders as the issue states them, written directly.
fn reference(
    order: Order,
    a: &(Group, Primary, Vec<u8>),
    b: &(Group, Primary, Vec<u8>),
) -> Ordering {
    let flip = |o: Ordering| if order.reverse { o.reverse() } else { o };
    fn units(x: &[u8]) -> Vec<Unit<'_>> {
        Units::new(x).collect()
    }
    a.0.cmp(&b.0)
        .then_with(|| {
            if !order.uses_primary(a.0) {
                return Ordering::Equal;
            }
            match order.by {
                SortBy::Type => match (extension(&a.2), extension(&b.2)) {
                    (None, None) => Ordering::Equal,
                    (None, Some(_)) => flip(Ordering::Less),
                    (Some(_), None) => flip(Ordering::Greater),
                    (Some(x), Some(y)) => flip(units(x).cmp(&units(y))),
                },
                _ => match (a.1, b.1) {
                    (Primary::Value(x), Primary::Value(y)) => flip(x.cmp(&y)),
                    (Primary::Value(_), _) => Ordering::Less,
                    (_, Primary::Value(_)) => Ordering::Greater,
                    _ => Ordering::Equal,
                },
            }
        })
        .then_with(|| {
            let by_name = compare_names(&a.2, &b.2);
            if order.by == SortBy::Name {
                flip(by_name)
            } else {
                by_name
            }
        })
}

fn key_of(order: Order, e: &(Group, Primary, Vec<u8>)) -> Vec<u32> {
    let mut k = Vec::new();
    sort_key_for(order, e.0, e.1, &e.2, &mut k);
    k
}

proptest::proptest! {
    #[test]
    fn sort_keys_give_every_order_as_specified(
        entries in proptest::collection::vec(
            (proptest::bool::ANY, 0u8..4, "[aAb1.]{0,4}(\\.[jJpP1]{0,2})?"),
            2..12,
        ),
    ) {
        let entries: Vec<(Group, Primary, Vec<u8>)> = entries
            .into_iter()
            .filter(|(_, _, n)| !n.is_empty())
            .map(|(f, p, n)| {
                let g = if f { Group::Folder } else { Group::Other };
                let p = match p { 0 => Primary::Missing, v => Primary::Value(i64::from(v) - 2) };
                (g, p, n.into_bytes())
            })
            .collect();
        for by in [SortBy::Name, SortBy::Size, SortBy::Modified, SortBy::Type] {
            for reverse in [false, true] {
                let order = Order { by, reverse };
                for a in &entries {
                    for b in &entries {
                        let by_key = order.compare_keyed(&key_of(order, a), &a.2, &key_of(order, b), &b.2);
                        let mut want = reference(order, a, b);
                        if want == Ordering::Equal && a.2 != b.2 {
                            want = if order.bytes_reversed() { b.2.cmp(&a.2) } else { a.2.cmp(&b.2) };
                        }
                        if a.2 == b.2 && a.0 == b.0 && want == Ordering::Equal {
                            continue;
                        }
                        proptest::prop_assert_eq!(by_key, want, "{:?} {:?} vs {:?}", order, a, b);
                    }
                }
            }
        }
    }
}

proptest::proptest! {
    #[test]
    fn a_part_key_compares_and_ends_as_the_whole_key(
        a in "([aAb_.-]|1|007|10|\\u{e9}){0,10}",
        b in "([aAb_.-]|1|007|10|\\u{e9}){0,10}",
        prefix in "[aA0]{0,20}",
        by in 0usize..4,
        reverse in proptest::bool::ANY,
        folder in proptest::bool::ANY,
        value in 0i64..3,
    ) {
        let order = Order { by: [SortBy::Name, SortBy::Size, SortBy::Modified, SortBy::Type][by], reverse };
        let group = if folder { Group::Folder } else { Group::Other };
        let (a, b) = ([prefix.as_bytes(), a.as_bytes()].concat(), [prefix.as_bytes(), b.as_bytes()].concat());
        let whole_a = key_of(order, &(group, Primary::Value(value), a.clone()));
        let whole_b = key_of(order, &(Group::Other, Primary::Value(1), b.clone()));
        let mut buffer = Vec::new();
        let mut part = PartKey::new(order, group, Primary::Value(value), &a, &mut buffer);
        proptest::prop_assert_eq!(part.compare(&whole_b), compare_keys(&whole_a, &whole_b), "{:?}: {:?} vs {:?}", order, a, b);
        proptest::prop_assert_eq!(part.compare(&whole_a), Ordering::Equal, "against its own key");
        proptest::prop_assert_eq!(part.finish(), whole_a.as_slice());
    }

    #[test]
    fn keys_compare_as_slices_do(shared in proptest::collection::vec(0u32..3, 0..40), a in proptest::collection::vec(0u32..3, 0..12), b in proptest::collection::vec(0u32..3, 0..12)) {
        let (a, b) = ([shared.as_slice(), &a].concat(), [shared.as_slice(), &b].concat());
        proptest::prop_assert_eq!(compare_keys(&a, &b), a.cmp(&b), "{:?} vs {:?}", a, b);
    }

    #[test]
    fn an_ascii_name_keys_as_the_general_path_keys_it(name in "[ -~]{0,40}", digits in "[0-9]{0,30}") {
        let name = [name.as_bytes(), digits.as_bytes(), name.as_bytes()].concat();
        let (mut fast, mut general) = (Vec::new(), Vec::new());
        push_ascii_units(&name, &mut fast);
        push_units_of_any(&name, &mut general);
        proptest::prop_assert_eq!(fast, general, "{:?}", String::from_utf8_lossy(&name));
    }
}

#[test]
fn extensions_follow_the_last_dot_that_is_not_the_first_character() {
    assert_eq!(extension(b"a.tar.GZ"), Some(&b"GZ"[..]));
    assert_eq!(extension(b".bashrc"), None);
    assert_eq!(extension(b"Makefile"), None);
    assert_eq!(extension(b"x."), None);
    assert_eq!(extension(b"..x"), Some(&b"x"[..]));
}

#[test]
fn missing_values_sort_last_in_both_directions_and_ties_stay_by_name() {
    for reverse in [false, true] {
        let order = Order {
            by: SortBy::Size,
            reverse,
        };
        let mut v = [
            (Group::Other, Primary::Missing, b"a".to_vec()),
            (Group::Other, Primary::Value(5), b"b".to_vec()),
            (Group::Other, Primary::Value(5), b"a2".to_vec()),
            (Group::Other, Primary::Value(9), b"c".to_vec()),
            (Group::Folder, Primary::None, b"z".to_vec()),
            (Group::Folder, Primary::None, b"y".to_vec()),
        ];
        v.sort_by(|a, b| order.compare_keyed(&key_of(order, a), &a.2, &key_of(order, b), &b.2));
        let names: Vec<&[u8]> = v.iter().map(|e| &e.2[..]).collect();
        let want: [&[u8]; 6] = if reverse {
            [b"y", b"z", b"c", b"a2", b"b", b"a"]
        } else {
            [b"y", b"z", b"a2", b"b", b"c", b"a"]
        };
        assert_eq!(names, want, "reverse {reverse}");
    }
}

#[test]
fn prefix_match_is_case_insensitive() {
    assert!(starts_with_folded(b"Notes.txt", b"no"));
    assert!(starts_with_folded(
        "\u{c9}mile".as_bytes(),
        "\u{e9}m".as_bytes()
    ));
    assert!(!starts_with_folded(b"n", b"no"));
}
