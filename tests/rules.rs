//! `docs/rules.md` ships the rules with the code. These tests fail, naming the file and line, when
//! code cites a rule id that the page does not list, when the page names a test that does not
//! exist, and when code points at a document the repository does not ship (a numbered section of
//! some other text) or at a section of the project's docs that is not there; and when a link
//! between the docs leads nowhere.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Files whose section references (`§` and a number) are still to be rewritten to the project's
/// docs, so the section-sign check passes over them. Every other check covers them. Empty this
/// list once they are rewritten.
const SECTION_REFERENCES_PENDING: &[&str] = &[];

/// Where code lives, and which of its files are read: a directory and the extensions scanned.
const CODE: &[(&str, &[&str])] = &[
    ("crates", &["rs"]),
    ("tests", &["rs"]),
    ("benches", &["rs"]),
    ("examples", &["rs"]),
    ("fuzz", &["rs"]),
    ("scenarios", &["yaml", "yml"]),
];

/// This file: its examples of ids and references are not citations.
const SELF: &str = "tests/rules.rs";

/// The rule series: probe layer, runtime layer, the probe layer's worked examples.
const SERIES: [char; 3] = ['P', 'R', 'E'];

const SECTION_SIGN: char = '\u{a7}';

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every scanned code file, as (path relative to the root with `/`, text), in path order.
fn code_files() -> Vec<(String, String)> {
    let mut files = Vec::new();
    for (dir, extensions) in CODE {
        walk(&root().join(dir), extensions, &mut files);
    }
    let mut out: Vec<(String, String)> = files
        .into_iter()
        .map(|path| {
            let rel = relative(&path);
            let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{rel}: {e}"));
            (rel, text)
        })
        .filter(|(rel, _)| rel != SELF)
        .collect();
    out.sort();
    out
}

fn walk(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if name != "target" && !name.starts_with('.') {
                walk(&path, extensions, out);
            }
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| extensions.contains(&e))
        {
            out.push(path);
        }
    }
}

fn relative(path: &Path) -> String {
    let rel = path.strip_prefix(root()).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// A rule id: a series letter not glued to a word before it, one to three digits, an optional
/// lower-case letter for a sub-rule (`P36a`), and nothing word-like after.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Id {
    series: char,
    number: u32,
    sub: Option<char>,
}

impl std::fmt::Display for Id {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.series, self.number)?;
        if let Some(sub) = self.sub {
            write!(f, "{sub}")?;
        }
        Ok(())
    }
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The id that starts at byte `at` of `line`, and the byte where it ends.
fn id_at(line: &str, at: usize) -> Option<(Id, usize)> {
    let mut chars = line[at..].char_indices();
    let (_, series) = chars.next()?;
    if !SERIES.contains(&series) || line[..at].chars().next_back().is_some_and(is_word) {
        return None;
    }
    let digits: String = line[at + 1..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    if digits.is_empty() || digits.len() > 3 {
        return None;
    }
    let mut end = at + 1 + digits.len();
    let mut sub = None;
    let mut rest = line[end..].chars();
    match rest.next() {
        Some(c) if c.is_ascii_lowercase() && !rest.next().is_some_and(is_word) => {
            sub = Some(c);
            end += 1;
        }
        Some(c) if is_word(c) => return None,
        _ => {}
    }
    let number = digits.parse().ok()?;
    Some((
        Id {
            series,
            number,
            sub,
        },
        end,
    ))
}

/// The ids a line cites; a range (`P16–P35`, `R27-R32`, `P3…P5`) cites every id in it.
fn ids_in(line: &str) -> Vec<Id> {
    let mut ids = Vec::new();
    let mut at = 0;
    while at < line.len() {
        let Some((id, end)) = id_at(line, at) else {
            at += line[at..].chars().next().map_or(1, char::len_utf8);
            continue;
        };
        let after = &line[end..];
        let dash = ["\u{2013}", "-", "\u{2026}", ".."]
            .iter()
            .find(|d| after.starts_with(**d));
        if let Some((last, last_end)) = dash.and_then(|d| id_at(line, end + d.len())) {
            if last.series == id.series && last.number > id.number && id.sub.is_none() {
                for number in id.number..=last.number {
                    let sub = if number == last.number {
                        last.sub
                    } else {
                        None
                    };
                    ids.push(Id {
                        series: id.series,
                        number,
                        sub,
                    });
                }
                at = last_end;
                continue;
            }
        }
        ids.push(id);
        at = end;
    }
    ids
}

/// The rows of docs/rules.md's tables: id, line number, the backticked names in the last cell.
fn rule_rows() -> Vec<(Id, usize, Vec<String>)> {
    let text = fs::read_to_string(root().join("docs/rules.md")).expect("docs/rules.md");
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let Some(row) = line.strip_prefix('|') else {
            continue;
        };
        let cells: Vec<&str> = row.split(" | ").map(str::trim).collect();
        let first = cells[0];
        let Some((id, end)) = id_at(first, 0) else {
            continue;
        };
        assert_eq!(end, first.len(), "docs/rules.md:{}: `{first}`", n + 1);
        let tests = cells.last().map(|c| backticked(c)).unwrap_or_default();
        rows.push((id, n + 1, tests));
    }
    rows
}

fn backticked(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// The names of the test functions in the scanned code: `fn NAME` with `#[test]` among the four
/// lines above it (attributes and doc comments may sit between).
fn test_functions(files: &[(String, String)]) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (_, text) in files {
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(rest) = line.trim_start().strip_prefix("fn ") else {
                continue;
            };
            let name: String = rest.chars().take_while(|c| is_word(*c)).collect();
            if lines[i.saturating_sub(4)..i]
                .iter()
                .any(|l| l.trim_start().starts_with("#[test]"))
            {
                names.insert(name);
            }
        }
    }
    names
}

#[test]
fn every_rule_id_cited_in_code_is_in_docs_rules() {
    let listed: BTreeSet<Id> = rule_rows().into_iter().map(|(id, _, _)| id).collect();
    let mut missing = Vec::new();
    for (path, text) in code_files() {
        for (n, line) in text.lines().enumerate() {
            for id in ids_in(line) {
                if !listed.contains(&id) {
                    missing.push(format!("{path}:{}: {id} is not in docs/rules.md", n + 1));
                }
            }
        }
    }
    assert!(missing.is_empty(), "\n{}", missing.join("\n"));
}

#[test]
fn docs_rules_lists_each_rule_once_and_only_tests_that_exist() {
    let files = code_files();
    let tests = test_functions(&files);
    let mut seen = BTreeMap::new();
    let mut problems = Vec::new();
    let rows = rule_rows();
    assert!(rows.len() > 100, "docs/rules.md: only {} rules", rows.len());
    for (id, line, names) in rows {
        if let Some(first) = seen.insert(id.clone(), line) {
            problems.push(format!(
                "docs/rules.md:{line}: {id} is listed again (first at line {first})"
            ));
        }
        for name in names {
            let exists = if name.contains('/') {
                root().join(&name).exists()
            } else {
                tests.contains(&name)
            };
            if !exists {
                problems.push(format!(
                    "docs/rules.md:{line}: {id} names `{name}`, which is no test function or file"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// Whether `path` is one of the files `SECTION_REFERENCES_PENDING` passes over.
fn pending(path: &str) -> bool {
    SECTION_REFERENCES_PENDING
        .iter()
        .any(|p| path == *p || (p.ends_with('/') && path.starts_with(p)))
}

#[test]
fn code_cites_the_projects_docs_not_numbered_sections_of_other_texts() {
    let mut found = Vec::new();
    for (path, text) in code_files() {
        if pending(&path) {
            continue;
        }
        for (n, line) in text.lines().enumerate() {
            if section_numbers(line) {
                found.push(format!(
                    "{path}:{}: a numbered section of a document the repository does not ship; \
                     cite docs/FILE.md#anchor instead: {}",
                    n + 1,
                    line.trim()
                ));
            }
        }
    }
    for doc in shipped_docs() {
        let text = fs::read_to_string(root().join(&doc)).expect("a doc");
        for (n, line) in text.lines().enumerate() {
            if line
                .to_lowercase()
                .contains(&format!("contract {SECTION_SIGN}"))
            {
                found.push(format!("{doc}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "\n{}", found.join("\n"));
}

/// Whether a line has a section sign followed by a number (`§2.3`, `§ 4`).
fn section_numbers(line: &str) -> bool {
    line.match_indices(SECTION_SIGN).any(|(at, s)| {
        line[at + s.len()..]
            .trim_start()
            .starts_with(|c: char| c.is_ascii_digit())
    })
}

fn shipped_docs() -> Vec<String> {
    let mut docs = vec!["README.md".to_owned(), "crates/README.md".to_owned()];
    let mut files = Vec::new();
    walk(&root().join("docs"), &["md"], &mut files);
    docs.extend(files.iter().map(|p| relative(p)));
    docs.sort();
    docs
}

/// The anchors of a markdown file: GitHub's slug of each heading (numbered when repeated) and
/// every explicit `id="…"`.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut anchors = BTreeSet::new();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            if let Some(heading) = line.strip_prefix('#') {
                let title = heading.trim_start_matches('#');
                if title.starts_with(' ') {
                    let slug = slug(title.trim());
                    let count = counts.entry(slug.clone()).or_insert(0);
                    anchors.insert(if *count == 0 {
                        slug.clone()
                    } else {
                        format!("{slug}-{count}")
                    });
                    *count += 1;
                }
            }
        }
        for part in line.split("id=\"").skip(1) {
            if let Some(end) = part.find('"') {
                anchors.insert(part[..end].to_owned());
            }
        }
    }
    anchors
}

/// GitHub's heading slug: lower case, spaces to hyphens, punctuation other than `-` and `_` gone.
fn slug(title: &str) -> String {
    title
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The `docs/NAME.md` and `docs/NAME.md#anchor` references of a line.
fn doc_references(line: &str) -> Vec<(String, Option<String>)> {
    let mut refs = Vec::new();
    for (at, _) in line.match_indices("docs/") {
        if line[..at].chars().next_back().is_some_and(is_word) {
            continue;
        }
        let rest = &line[at..];
        let name_len = rest["docs/".len()..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .map_or(rest.len(), |n| n + "docs/".len());
        if !rest[name_len..].starts_with(".md") {
            continue;
        }
        let file = rest[..name_len + 3].to_owned();
        let after = &rest[name_len + 3..];
        let anchor = after.strip_prefix('#').map(|a| {
            a.chars()
                .take_while(|c| c.is_alphanumeric() || *c == '-' || *c == '_')
                .collect()
        });
        refs.push((file, anchor));
    }
    refs
}

#[test]
fn references_to_the_docs_name_files_and_sections_that_exist() {
    let mut cache: BTreeMap<String, Option<BTreeSet<String>>> = BTreeMap::new();
    let mut broken = Vec::new();
    for (path, text) in code_files() {
        for (n, line) in text.lines().enumerate() {
            for (file, anchor) in doc_references(line) {
                let known = cache.entry(file.clone()).or_insert_with(|| {
                    fs::read_to_string(root().join(&file))
                        .ok()
                        .map(|t| anchors(&t))
                });
                let problem = match (known, &anchor) {
                    (None, _) => format!("{file} does not exist"),
                    (Some(found), Some(a)) if !found.contains(a) => {
                        format!("{file} has no section #{a}")
                    }
                    _ => continue,
                };
                broken.push(format!("{path}:{}: {problem}", n + 1));
            }
        }
    }
    assert!(broken.is_empty(), "\n{}", broken.join("\n"));
}

/// The relative link targets of a markdown line, `[text](target)`, split at `#`.
fn links(line: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for part in line.split("](").skip(1) {
        let Some(end) = part.find(|c: char| c == ')' || c.is_whitespace()) else {
            continue;
        };
        let target = &part[..end];
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (file, anchor) = match target.split_once('#') {
            Some((file, anchor)) => (file, Some(anchor.to_owned())),
            None => (target, None),
        };
        out.push((file.to_owned(), anchor));
    }
    out
}

#[test]
fn links_between_the_docs_resolve() {
    let mut broken = Vec::new();
    for doc in shipped_docs() {
        let text = fs::read_to_string(root().join(&doc)).expect("a doc");
        let dir = Path::new(&doc).parent().unwrap_or(Path::new(""));
        for (n, line) in text.lines().enumerate() {
            for (file, anchor) in links(line) {
                let target = if file.is_empty() {
                    root().join(&doc)
                } else {
                    root().join(dir).join(&file)
                };
                if !target.exists() {
                    broken.push(format!("{doc}:{}: {file} does not exist", n + 1));
                    continue;
                }
                let Some(anchor) = anchor else { continue };
                if target.extension().is_some_and(|e| e == "md") {
                    let found = anchors(&fs::read_to_string(&target).expect("a linked doc"));
                    if !found.contains(&anchor) {
                        broken.push(format!("{doc}:{}: {file} has no section #{anchor}", n + 1));
                    }
                }
            }
        }
    }
    assert!(broken.is_empty(), "\n{}", broken.join("\n"));
}

#[test]
fn the_scanners_read_ids_ranges_sections_and_anchors() {
    let ids =
        |line: &str| -> Vec<String> { ids_in(line).iter().map(ToString::to_string).collect() };
    assert_eq!(
        ids("(P16\u{2013}P18, R2; E5(b))"),
        ["P16", "P17", "P18", "R2", "E5"]
    );
    assert_eq!(ids("P36a and P36d"), ["P36a", "P36d"]);
    assert_eq!(ids("R27-R29"), ["R27", "R28", "R29"]);
    assert!(ids("U-WT2, T0, TP1, P1234, P12x9, e2e, #E5E5E5").is_empty());
    assert!(section_numbers("see contract \u{a7}2.3.1"));
    assert!(!section_numbers("a \u{a7} sign alone"));
    assert_eq!(slug("`--format json`"), "--format-json");
    assert_eq!(
        slug("Why does only `Simulation` know what time it is?"),
        "why-does-only-simulation-know-what-time-it-is"
    );
    let found = anchors("# A\n```\n# not a heading\n```\n## A\n1. <a id=\"x\"></a>text\n");
    assert_eq!(found.into_iter().collect::<Vec<_>>(), ["a", "a-1", "x"]);
    assert_eq!(
        links("[a](cli.md#exit-codes), [b](https://x.io/y), [c](#here) and [d](../LICENSE)"),
        [
            ("cli.md".to_owned(), Some("exit-codes".to_owned())),
            (String::new(), Some("here".to_owned())),
            ("../LICENSE".to_owned(), None)
        ]
    );
    assert_eq!(
        doc_references("see docs/cli.md#exit-codes and docs/semantics.md."),
        [
            ("docs/cli.md".to_owned(), Some("exit-codes".to_owned())),
            ("docs/semantics.md".to_owned(), None)
        ]
    );
}
