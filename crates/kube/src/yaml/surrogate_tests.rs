//! UTF-16 surrogate pairs in double-quoted scalars: accepted, positions kept, lone halves
//! pointed at.

use proptest::prelude::*;

use super::*;

fn value_of(text: &str, key: &str) -> String {
    let doc = parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    doc.get(key)
        .and_then(Node::as_str)
        .unwrap_or_else(|| panic!("no string {key:?} in {text}"))
        .to_owned()
}

#[test]
fn a_pair_is_the_character_it_encodes() {
    let json = r#"{"a": "\ud83d\ude00", "b": "x\uD83D\uDE00y\ud83c\udf89", "c": 1}"#;
    assert_eq!(value_of(json, "a"), "😀");
    assert_eq!(value_of(json, "b"), "x😀y🎉");
    // The same in block YAML, in a key too.
    let yaml = "\"k\\ud83d\\ude00\": \"v\"\nafter: \"\\ud83d\\ude00\"\n";
    let doc = parse(yaml).unwrap();
    assert_eq!(doc.get("k😀").and_then(Node::as_str), Some("v"));
    assert_eq!(value_of(yaml, "after"), "😀");
    // Through the multi-document reader too.
    let stream: Vec<Unit> = Stream::new("a: \"\\ud83d\\ude00\"\n---\nb: 2\n", SourceId::MAIN)
        .collect::<Result<_, _>>()
        .unwrap();
    let Unit::Document { root, .. } = &stream[0] else {
        panic!("{stream:?}")
    };
    assert_eq!(root.get("a").and_then(Node::as_str), Some("😀"));
    // The sniff of a manifest's first keys sees them.
    assert_eq!(
        first_document_keys("{\"\\ud83d\\ude00\": 1, \"apiVersion\": \"v1\"}"),
        ["😀", "apiVersion"]
    );
}

#[test]
fn marks_after_a_pair_are_the_marks_as_written() {
    let text =
        "{\"a\": \"\\ud83d\\ude00\\ud83d\\ude00\", \"b\": \"\\ud83d\\ude00\", \"c\": [1, x]}";
    let doc = parse(text).unwrap();
    let Some(entries) = doc.as_map() else {
        panic!("{doc:?}")
    };
    let cols: Vec<(String, usize, usize)> = entries
        .iter()
        .map(|(k, v)| (k.text.clone(), k.mark.col, v.mark.col))
        .collect();
    let at = |needle: &str| text.find(needle).unwrap() + 1;
    assert_eq!(
        cols,
        [
            ("a".to_owned(), at("\"a\""), at("\"\\ud83d")),
            ("b".to_owned(), at("\"b\""), at("\"b\"") + 5),
            ("c".to_owned(), at("\"c\""), at("[1")),
        ]
    );
    // An error after pairs points where the file has it: where the same file with twelve
    // plain letters in place of each pair has it.
    for broken in [
        "a: \"\\ud83d\\ude00\"\nb: \"\\ud83d\\ude00\" \"\\ud83d\\ude00\": {\n",
        "{\"a\": \"\\ud83d\\ude00\\ud83d\\ude00\", \"b\": \"\\ud83d\\ude00\"]\n",
        "a: [\"\\ud83d\\ude00\", \"\\ud83d\\ude00\"\n\tb: 1\n",
    ] {
        let plain = broken.replace("\\ud83d\\ude00", "abcdefghijkl");
        let (e, want) = (parse(broken).unwrap_err(), parse(&plain).unwrap_err());
        assert_eq!((e.mark, &e.message), (want.mark, &want.message), "{broken}");
    }
}

#[test]
fn a_lone_or_misordered_half_is_an_error_at_the_escape() {
    let err = |t: &str| {
        let e = parse(t).unwrap_err();
        (
            e.mark.map(|m| (m.line, m.col)).unwrap_or_default(),
            e.message,
        )
    };
    // A high half alone, at the end of its string.
    let (at, message) = err("{\"a\": \"\\ud83d\\ude00\",\n \"b\": \"x\\ud83d\"}");
    assert_eq!(at, (2, 9));
    assert_eq!(
        message,
        "invalid escape `\\ud83d`: the first half of a UTF-16 surrogate pair, but no low surrogate (`\\udc00` to `\\udfff`) follows it"
    );
    // Followed by something else than a low half.
    assert_eq!(err("a: \"\\uD83D\\u0041\"\n").0, (1, 5));
    assert_eq!(err("a: \"\\ud83d\\ud83d\\ude00\"\n").0, (1, 5));
    // The halves the wrong way round: the low one is refused first.
    let (at, message) = err("a: \"ab\\ude00\\ud83d\"\n");
    assert_eq!(at, (1, 7));
    assert!(
        message.starts_with("invalid escape `\\ude00`: the second half"),
        "{message}"
    );
    // Another invalid escape keeps the parser's own message, at its scalar.
    let (at, message) = err("a: \"\\U00110000\"\nb: \"\\ud83d\"\n");
    assert_eq!(at, (1, 4));
    assert_eq!(
        message,
        "while parsing a quoted scalar, found invalid Unicode character escape code"
    );
    // Through the stream reader too.
    let e = Stream::new("a: 1\n---\nb: \"\\udfff\"\n", SourceId(2))
        .find_map(Result::err)
        .unwrap();
    assert_eq!(
        e.mark,
        Some(Mark {
            source: SourceId(2),
            line: 3,
            col: 5
        })
    );
}

#[test]
fn surrogate_text_outside_double_quotes_stays_as_written() {
    let pair = "\\ud83d\\ude00";
    for (text, want) in [
        (format!("a: '{pair}'\n"), pair.to_owned()),
        (format!("a: x{pair}\n"), format!("x{pair}")),
        (format!("a: |\n  {pair}\n"), format!("{pair}\n")),
        (
            format!("# \"{pair}\"\na: \"\\\\ud83d\"\n"),
            "\\ud83d".to_owned(),
        ),
        (
            format!("a: \"\\\\{}\"\n", &pair[1..]),
            format!("\\{}", &pair[1..]),
        ),
    ] {
        let got = parse(&text);
        // The last one is an escaped backslash, then the text `ud83d`, then a lone low half.
        if text.starts_with("a: \"\\\\ud83d\\ude00") {
            let e = got.unwrap_err();
            assert!(e.message.contains("`\\ude00`: the second half"), "{e}");
            continue;
        }
        let got = got.unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(
            got.get("a").and_then(Node::as_str),
            Some(want.as_str()),
            "{text}"
        );
    }
}

/// A piece of a generated string: how it is written in JSON, and what it means.
fn piece() -> impl Strategy<Value = (String, String)> {
    prop_oneof![
        "[a-z :,{}\\[\\]]".prop_map(|s| (s.clone(), s)),
        Just(("é".to_owned(), "é".to_owned())),
        Just(("\\u00e9".to_owned(), "é".to_owned())),
        Just(("\\\\u".to_owned(), "\\u".to_owned())),
        Just(("😀".to_owned(), "😀".to_owned())),
        (0x10000u32..0x110000).prop_map(|c| {
            let ch = char::from_u32(c).unwrap_or('?');
            let mut units = [0u16; 2];
            let units = ch.encode_utf16(&mut units);
            let written: String = units.iter().map(|u| format!("\\u{u:04x}")).collect();
            (written, ch.to_string())
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Whatever pairs a JSON document writes, every key and value after them is marked where
    /// the text has it (line and column), and every string means what was written.
    #[test]
    fn positions_after_pairs_are_unchanged(
        fields in prop::collection::vec(
            (prop::collection::vec(piece(), 0..6), prop::bool::ANY),
            1..8,
        ),
    ) {
        let mut text = String::from("{");
        let mut expected = Vec::new();
        let (mut line, mut col) = (1usize, 2usize);
        for (i, (pieces, newline)) in fields.iter().enumerate() {
            if i > 0 {
                text.push(',');
                col += 1;
            }
            if *newline {
                text.push_str("\n  ");
                line += 1;
                col = 3;
            } else {
                text.push(' ');
                col += 1;
            }
            let key = format!("k{i}");
            let key_at = (line, col);
            let quoted_key = format!("\"{key}\": ");
            text.push_str(&quoted_key);
            col += quoted_key.chars().count();
            let value_at = (line, col);
            let written: String = pieces.iter().map(|(w, _)| w.as_str()).collect();
            let meant: String = pieces.iter().map(|(_, m)| m.as_str()).collect();
            let quoted = format!("\"{written}\"");
            text.push_str(&quoted);
            col += quoted.chars().count();
            expected.push((key, key_at, value_at, meant));
        }
        text.push_str("}\n");
        let doc = parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        let entries = doc.as_map().unwrap_or_default();
        prop_assert_eq!(entries.len(), expected.len());
        for ((k, v), (key, key_at, value_at, meant)) in entries.iter().zip(&expected) {
            prop_assert_eq!(&k.text, key);
            prop_assert_eq!((k.mark.line, k.mark.col), *key_at, "{}", text);
            prop_assert_eq!((v.mark.line, v.mark.col), *value_at, "{}", text);
            prop_assert_eq!(v.as_str(), Some(meant.as_str()), "{}", text);
        }
    }
}
