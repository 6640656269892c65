//! The positioned YAML tree: values, positions, core-schema types, limits and hostile input.

use super::*;

fn scalar_value(text: &str) -> String {
    let doc = parse(&format!("v: {text}\n")).unwrap();
    format!("{:?}", doc.get("v").map(Node::value))
}

#[test]
fn plain_scalars_follow_the_core_schema() {
    assert_eq!(scalar_value("10"), "Some(Int(10))");
    assert_eq!(scalar_value("-3"), "Some(Int(-3))");
    assert_eq!(scalar_value("0x1f"), "Some(Int(31))");
    assert_eq!(scalar_value("0o17"), "Some(Int(15))");
    assert_eq!(scalar_value("1.5"), "Some(Float(\"1.5\"))");
    assert_eq!(scalar_value("1e3"), "Some(Float(\"1e3\"))");
    assert_eq!(scalar_value("true"), "Some(Bool(true))");
    assert_eq!(scalar_value("False"), "Some(Bool(false))");
    assert_eq!(scalar_value("~"), "Some(Null)");
    assert_eq!(scalar_value("null"), "Some(Null)");
    assert_eq!(scalar_value(""), "Some(Null)");
    // YAML 1.1 booleans are strings in 1.2.
    assert_eq!(scalar_value("yes"), "Some(Str(\"yes\"))");
    assert_eq!(scalar_value("10s"), "Some(Str(\"10s\"))");
}

#[test]
fn quoted_scalars_are_strings() {
    assert_eq!(scalar_value("\"10\""), "Some(Str(\"10\"))");
    assert_eq!(scalar_value("'true'"), "Some(Str(\"true\"))");
    assert_eq!(scalar_value("!!str 10"), "Some(Str(\"10\"))");
    assert_eq!(scalar_value("\"\""), "Some(Str(\"\"))");
}

#[test]
fn keys_and_values_keep_their_positions() {
    let doc = parse("a:\n  bb: 1\n  cc: [x, 'y']\n").unwrap();
    let a = doc.get("a").unwrap();
    let entries = a.as_map().unwrap();
    assert_eq!(entries[0].0.mark, Mark::new(2, 3));
    assert_eq!(entries[0].1.mark, Mark::new(2, 7));
    let seq = entries[1].1.as_seq().unwrap();
    assert_eq!(seq[1].mark, Mark::new(3, 11));
    assert_eq!(seq[1].style(), Some(Style::Quoted));
}

#[test]
fn json_goes_through_the_same_parser() {
    let doc = parse("{\"a\": {\"b\": [1, \"2\", true, null]}}").unwrap();
    let items = doc.get("a").unwrap().get("b").unwrap().as_seq().unwrap();
    assert_eq!(items[0].as_int(), Some(1));
    assert_eq!(items[1].as_str(), Some("2"));
    assert_eq!(items[2].as_bool(), Some(true));
    assert!(items[3].is_null());
    // Pretty-printed JSON, tabs included.
    let doc = parse("{\n\t\"a\": 1,\n\t\"b\": \"x\"\n}\n").unwrap();
    assert_eq!(doc.get("b").unwrap().as_str(), Some("x"));
}

#[test]
fn duplicate_keys_are_errors() {
    let err = parse("a: 1\nb: 2\na: 3\n").unwrap_err();
    assert_eq!(err.mark, Some(Mark::new(3, 1)));
    assert_eq!(err.message, "duplicate key \"a\" (first defined at line 1)");
}

#[test]
fn a_second_document_is_an_error_naming_its_line() {
    let err = parse("a: 1\n---\nb: 2\n").unwrap_err();
    assert_eq!(
        err.message,
        "expected one YAML document, but a second one starts at line 2"
    );
    assert!(parse("---\na: 1\n...\n").is_ok());
}

#[test]
fn empty_input_is_null() {
    assert!(parse("").unwrap().is_null());
    assert!(parse("# only a comment\n").unwrap().is_null());
}

#[test]
fn aliases_are_expanded() {
    let doc = parse("a: &x {p: 1}\nb: *x\n").unwrap();
    assert_eq!(doc.get("b").unwrap().get("p").unwrap().as_int(), Some(1));
    assert_eq!(doc.get("b").unwrap().mark, Mark::new(2, 4));
}

#[test]
fn billion_laughs_is_refused() {
    let mut text = String::from("a0: &a0 [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n");
    for i in 1..10 {
        let p = i - 1;
        text.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    let err = parse(&text).unwrap_err();
    assert!(err.message.starts_with("document too large"), "{err}");
}

#[test]
fn deep_nesting_is_refused() {
    // Flow nesting past the parser's own limit (256) gives the documented message too.
    for open in ["[", "{a: "] {
        let text = format!("{}{}", open.repeat(10_000), "]".repeat(10_000));
        let err = parse(&text).unwrap_err();
        assert!(err.mark.is_some());
        assert_eq!(
            err.message,
            format!("document nested too deeply: more than {MAX_DEPTH} levels"),
            "{open}"
        );
    }
    let mut block = String::new();
    for i in 0..200 {
        block.push_str(&" ".repeat(i));
        block.push_str("a:\n");
    }
    let err = parse(&block).unwrap_err();
    assert!(
        err.message.starts_with("document nested too deeply"),
        "{err}"
    );
    // Depth through aliases counts as well.
    let mut text = String::from("a0: &a0 [1]\n");
    for i in 1..200 {
        text.push_str(&format!("a{i}: &a{i} [*a{}]\n", i - 1));
    }
    let err = parse(&text).unwrap_err();
    assert!(
        err.message.starts_with("document nested too deeply"),
        "{err}"
    );
}

#[test]
fn merge_keys_add_what_the_mapping_does_not_set() {
    let doc = parse(
            "base: &b {image: nginx, ports: [80]}\nextra: &e {env: x, image: other}\nc:\n  <<: [*b, *e]\n  name: web\n  ports: [8080]\n",
        )
        .unwrap();
    let c = doc.get("c").unwrap();
    let keys: Vec<_> = c
        .as_map()
        .unwrap()
        .iter()
        .map(|(k, v)| format!("{}={}", k.text, v.scalar_text().unwrap_or("[..]")))
        .collect();
    assert_eq!(keys, ["name=web", "ports=[..]", "image=nginx", "env=x"]);
    let err = parse("a: &a 1\nb:\n  <<: *a\n").unwrap_err();
    assert!(err.message.contains("merge key"), "{}", err.message);
}

#[test]
fn a_key_without_its_colon_is_explained() {
    let err = parse("duration: 1m\nexpect\npod: {}\n").unwrap_err();
    assert!(
        err.message
            .starts_with("expected the `:` of a `key: value` pair"),
        "{}",
        err.message
    );
}

#[test]
fn syntax_errors_have_positions() {
    let err = parse("a: [1, 2\n").unwrap_err();
    assert!(err.mark.is_some());
    let err = parse("a: *nope\n").unwrap_err();
    assert!(err.mark.is_some());
}

#[test]
fn syntax_errors_are_made_actionable() {
    let err = parse("a:\n\tb: 1\n").unwrap_err();
    assert_eq!(err.mark, Some(Mark::new(2, 1)), "{err}");
    let err = parse("a: \"open\nb: 1\n").unwrap_err();
    assert!(
        err.message.ends_with("(is its closing quote missing?)"),
        "{err}"
    );
    assert_eq!(err.mark, Some(Mark::new(1, 4)));
    let err = parse("{\n  \"a\": 1\n").unwrap_err();
    assert_eq!(err.mark, Some(Mark::new(2, 9)), "{err}");
    let err = parse("a: 'open\n").unwrap_err();
    assert!(
        err.message.ends_with("(is its closing quote missing?)"),
        "{err}"
    );
}

#[test]
fn recursive_aliases_are_refused() {
    assert!(parse("a: &x [*x]\n").is_err());
}

#[test]
fn collection_keys_are_refused() {
    let err = parse("? [a]\n: 1\n").unwrap_err();
    assert_eq!(err.message, "mapping keys must be strings, not collections");
}

#[test]
fn describe_names_the_type() {
    let doc = parse("a: \"10\"\nb: 1.5\nc: {}\nd: [1]\n").unwrap();
    assert_eq!(doc.get("a").unwrap().describe(), "the string \"10\"");
    assert_eq!(doc.get("b").unwrap().describe(), "1.5");
    assert_eq!(doc.get("c").unwrap().describe(), "a mapping");
    assert_eq!(doc.get("d").unwrap().describe(), "a sequence");
}

fn units(text: &str) -> Vec<String> {
    Stream::new(text, SourceId(3))
        .map(|u| match u {
            Ok(Unit::Item {
                document,
                index,
                node,
            }) => {
                format!("item {document}.{index} at {}", node.mark)
            }
            Ok(Unit::Document { index, mark, root }) => format!(
                "document {index} at {mark}{}",
                if root.is_null() { " (empty)" } else { "" }
            ),
            Err(e) => format!("error {e}"),
        })
        .collect()
}

#[test]
fn streams_hand_out_documents_and_list_items() {
    assert_eq!(
        units("a: 1\n---\n---\nitems:\n- x: 1\n- [2]\nkind: List\n...\n"),
        [
            "document 0 at 1:1",
            "document 1 at 2:1 (empty)",
            "item 2.0 at 5:3",
            "item 2.1 at 6:3",
            "document 2 at 3:1",
        ]
    );
    // The rest of a List document keeps an empty `items`.
    let mut stream = Stream::new("items: [{a: 1}]\nkind: List\n", SourceId::MAIN);
    assert!(matches!(stream.next(), Some(Ok(Unit::Item { .. }))));
    let Some(Ok(Unit::Document { root, .. })) = stream.next() else {
        panic!("no document")
    };
    assert_eq!(
        root.get("items").and_then(Node::as_seq).map(<[Node]>::len),
        Some(0)
    );
    // Marks carry their source.
    let Some(Ok(Unit::Document { root, .. })) = Stream::new("a: 1", SourceId(3)).next() else {
        panic!("no document")
    };
    assert_eq!(root.get("a").unwrap().mark.source, SourceId(3));
    assert!(units("").is_empty());
}

#[test]
fn streams_stop_at_the_first_error() {
    assert_eq!(
        units("a: 1\n---\nb: [\n---\nc: 1\n"),
        [
            "document 0 at 1:1",
            "error 4:1: while parsing a node, did not find expected node content",
        ]
    );
    assert_eq!(
            units("a: &x 1\n---\nb: *x\n"),
            ["document 0 at 1:1", "error 3:4: alias refers to an anchor of an earlier document (anchors do not reach across documents)"]
        );
}

#[test]
fn hostile_streams_are_refused() {
    // Each document has the full budget; a bomb in one of them is still refused.
    let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..7 {
        let p = i - 1;
        bomb.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    let text = format!("kind: Pod\n---\n{bomb}");
    let last = units(&text).pop().unwrap();
    assert!(
        last.starts_with("error ") && last.contains("document too large"),
        "{last}"
    );
    // Nested anchors copy their content again at each level: that has a budget too.
    let mut nested = String::new();
    for i in 0..100 {
        nested.push_str(&format!("{}&a{i} [\n", " ".repeat(i)));
    }
    nested.push_str(&"x, ".repeat(2000));
    nested.push_str(&"]".repeat(100));
    let err = parse(&nested).unwrap_err();
    assert!(err.message.contains("anchors hold more than"), "{err}");
    // Inputs beyond the size limit are refused before anything is parsed.
    let huge = "#".repeat(MAX_INPUT_BYTES + 1);
    assert!(parse(&huge)
        .unwrap_err()
        .message
        .starts_with("input too large"));
    assert!(units(&huge)[0].starts_with("error 1:1: input too large"));
}

#[test]
fn first_document_keys_tell_manifests_from_scenarios() {
    assert_eq!(
        first_document_keys("---\n---\napiVersion: v1\nkind: Pod\nspec: {a: [1]}\n"),
        ["apiVersion", "kind", "spec"]
    );
    assert_eq!(
        first_document_keys("duration: 1m\npod: {kind: Pod}\n"),
        ["duration", "pod"]
    );
    assert!(first_document_keys("- a\n").is_empty());
    assert!(first_document_keys("a: [\n").len() <= 1);
    // Sniffing stops after MAX_NODES events: a key written after that many nodes is not seen
    // (the loader refuses such a document anyway), one written just before it is.
    let long = |items: usize| format!("a: [{}]\nkind: Pod\n", vec!["1"; items].join(","));
    assert_eq!(first_document_keys(&long(MAX_NODES - 10)), ["a", "kind"]);
    assert_eq!(first_document_keys(&long(MAX_NODES)), ["a"]);
}
