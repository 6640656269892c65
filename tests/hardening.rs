//! Hostile input, on stable in every test run.
//!
//! The fuzz targets' promises: a deterministic mutation loop
//! over the seed corpus (the scenarios, the invalid inputs and the example manifests) feeds each
//! target's oracle, which panics when an input ends in anything but a typed error or a run.
//! `cargo fuzz` (docs/fuzzing.md) explores the same oracles for as long as it is given.

mod support;

#[path = "../fuzz/oracle.rs"]
mod oracle;

use std::path::{Path, PathBuf};

/// Mutants per seed file. The loop is deterministic: a failure names the seed and the mutant,
/// and reruns the same way.
const MUTANTS: u64 = 6;

/// A small deterministic generator (SplitMix64): the same mutants on every run.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % u64::try_from(n.max(1)).unwrap_or(1)).unwrap_or(0)
    }
}

/// Pieces that reach deep into the loaders: YAML syntax, limits, scripts, durations, controls.
const TOKENS: &[&str] = &[
    "\n",
    ": ",
    "- ",
    "{",
    "}",
    "[",
    "]",
    "\"",
    "'",
    "&a ",
    "*a",
    "!!binary ",
    "|\n",
    ">\n",
    "#",
    "---\n",
    "\r",
    "\t",
    "\u{1b}",
    "\\",
    "0",
    "-1",
    "1ms",
    "99999999999999999999",
    "1e9",
    "null",
    "~",
    "then",
    "repeat",
    "x",
    "exit",
    "for",
    "after",
    "until",
    "pod:",
    "{{ .Values.x }}",
    "livenessProbe:",
    "periodSeconds: ",
    "resync: 1ms",
    "kind: List\n",
    "é",
    "\u{202e}",
];

fn mutate(seed: &[u8], other: &[u8], rng: &mut Mix) -> Vec<u8> {
    let mut out = seed.to_vec();
    for _ in 0..=rng.below(4) {
        let at = rng.below(out.len() + 1);
        match rng.below(7) {
            0 if !out.is_empty() => {
                let i = at.min(out.len() - 1);
                out[i] ^= 1 << rng.below(8);
            }
            1 => {
                let token = TOKENS[rng.below(TOKENS.len())].as_bytes();
                out.splice(at..at, token.iter().copied());
            }
            2 => {
                let end = (at + rng.below(16)).min(out.len());
                out.drain(at..end);
            }
            3 => {
                let end = (at + rng.below(64)).min(out.len());
                let piece = out[at..end].to_vec();
                out.splice(at..at, piece);
            }
            4 if !other.is_empty() => {
                let from = rng.below(other.len());
                let end = (from + rng.below(128)).min(other.len());
                out.splice(at..at, other[from..end].iter().copied());
            }
            5 => out.truncate(at),
            _ => out.insert(at, u8::try_from(rng.below(256)).unwrap_or(0)),
        }
    }
    out
}

fn files(dirs: &[&str], out: &mut Vec<PathBuf>) {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths {
            if p.is_dir() {
                walk(&p, out);
            } else if p
                .extension()
                .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
            {
                out.push(p);
            }
        }
    }
    for d in dirs {
        walk(&support::root().join(d), out);
    }
}

/// The behaviour scripts of the seed files (`liveness: "5x200 then 500"`).
fn scripts(seeds: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for seed in seeds {
        for line in String::from_utf8_lossy(seed).lines() {
            let line = line.trim();
            for key in ["liveness:", "readiness:", "startup:", "exit:", "sigterm:"] {
                let Some(value) = line.strip_prefix(key) else {
                    continue;
                };
                let value = value.split(" #").next().unwrap_or_default().trim();
                let value = value
                    .strip_prefix('"')
                    .and_then(|v| v.strip_suffix('"'))
                    .unwrap_or(value);
                if !value.is_empty() && !value.starts_with(['{', '|', '>']) {
                    out.push(value.as_bytes().to_vec());
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

fn exercise(name: &str, seeds: &[Vec<u8>], names: &[String], target: fn(&[u8])) -> Vec<String> {
    let mut problems = Vec::new();
    let mut rng = Mix(0x5eed);
    for (i, seed) in seeds.iter().enumerate() {
        let other = &seeds[(i * 7 + 3) % seeds.len()];
        let mut inputs = vec![seed.clone()];
        inputs.extend((0..MUTANTS).map(|_| mutate(seed, other, &mut rng)));
        for (m, input) in inputs.iter().enumerate() {
            if std::panic::catch_unwind(|| target(input)).is_err() {
                problems.push(format!(
                    "{name}: {} mutant {m} panicked on {:?}",
                    names[i],
                    String::from_utf8_lossy(input)
                ));
            }
        }
    }
    problems
}

#[test]
fn every_mutant_ends_in_a_typed_error_or_a_run() {
    let mut paths = Vec::new();
    files(
        &["scenarios", "tests/invalid", "tests/cmd/fixtures"],
        &mut paths,
    );
    let mut manifest_paths = Vec::new();
    files(
        &[
            "examples/manifests",
            "tests/invalid/manifest",
            "tests/invalid/workload",
        ],
        &mut manifest_paths,
    );
    let read = |ps: &[PathBuf]| -> (Vec<Vec<u8>>, Vec<String>) {
        let seeds = ps.iter().map(|p| std::fs::read(p).unwrap()).collect();
        let names = ps.iter().map(|p| support::rel(p)).collect();
        (seeds, names)
    };
    let (seeds, names) = read(&paths);
    let (manifests, manifest_names) = read(&manifest_paths);
    assert!(
        seeds.len() > 100 && manifests.len() > 10,
        "the corpus is missing"
    );
    let mut script_seeds = scripts(&seeds);
    // The examples of the language's reference: `| `5x200 then 500` | … |`.
    let reference =
        std::fs::read_to_string(support::root().join("docs/script-language.md")).unwrap();
    for line in reference.lines() {
        if let Some(example) = line.strip_prefix("| `").and_then(|l| l.split('`').next()) {
            script_seeds.push(example.as_bytes().to_vec());
        }
    }
    let script_names: Vec<String> = script_seeds
        .iter()
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .collect();
    assert!(
        script_seeds.len() > 60,
        "too few scripts: {}",
        script_seeds.len()
    );
    // Panics are expected to be caught; keep their messages out of the test output.
    std::panic::set_hook(Box::new(|_| {}));
    let mut problems = exercise("scenario", &seeds, &names, oracle::scenario);
    problems.extend(exercise(
        "manifest",
        &manifests,
        &manifest_names,
        oracle::manifest,
    ));
    problems.extend(exercise(
        "script",
        &script_seeds,
        &script_names,
        oracle::script,
    ));
    let _ = std::panic::take_hook();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The analysis (within a budget of 20,000 simulation steps, a tenth of the fuzz target's, so
/// that most analyses here end in the budget's error after a few hundred simulations) and the
/// library's reader and runner, over every seed and one mutant of each.
#[test]
fn every_mutant_analyses_and_reads_through_the_library() {
    let mut paths = Vec::new();
    files(
        &["scenarios", "tests/cmd/fixtures", "examples/manifests"],
        &mut paths,
    );
    let seeds: Vec<Vec<u8>> = paths.iter().map(|p| std::fs::read(p).unwrap()).collect();
    let names: Vec<String> = paths.iter().map(|p| support::rel(p)).collect();
    assert!(seeds.len() > 50, "the corpus is missing");
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hardening-library.yaml");
    let mut rng = Mix(0xa11a);
    let mut problems = Vec::new();
    std::panic::set_hook(Box::new(|_| {}));
    for (i, seed) in seeds.iter().enumerate() {
        let other = &seeds[(i * 7 + 3) % seeds.len()];
        for (m, input) in [seed.clone(), mutate(seed, other, &mut rng)]
            .iter()
            .enumerate()
        {
            let shown = || String::from_utf8_lossy(input).into_owned();
            if std::panic::catch_unwind(|| oracle::analyze_within(input, 20_000)).is_err() {
                problems.push(format!(
                    "analyze: {} mutant {m} panicked on {:?}",
                    names[i],
                    shown()
                ));
            }
            std::fs::write(&scratch, input).unwrap();
            let path = scratch.to_str().unwrap();
            if std::panic::catch_unwind(|| oracle::library(path)).is_err() {
                problems.push(format!(
                    "library: {} mutant {m} panicked on {:?}",
                    names[i],
                    shown()
                ));
            }
        }
    }
    let _ = std::panic::take_hook();
    let _ = std::fs::remove_file(&scratch);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every kind of error in docs/errors.md names a test that exists, and that test (a
/// `tests/invalid/` file's reviewed snapshot, or a `tests/cmd/` case) still shows the message the
/// document quotes.
#[test]
fn every_error_kind_in_the_document_has_its_test() {
    let root = support::root();
    let doc = std::fs::read_to_string(root.join("docs/errors.md")).unwrap();
    let mut problems = Vec::new();
    let mut kinds = 0;
    for section in doc.split("\n### ").skip(1) {
        kinds += 1;
        let title = section.lines().next().unwrap_or_default();
        let field = |name: &str| {
            section
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .map(str::to_owned)
        };
        let (Some(tests), Some(message)) = (field("- Test: "), field("- Message: ")) else {
            problems.push(format!("{title}: no `- Test:` or `- Message:` line"));
            continue;
        };
        let message = message.trim().trim_matches('`');
        let paths: Vec<&str> = tests
            .split(", ")
            .map(|t| t.trim().trim_matches('`'))
            .collect();
        let mut shown = false;
        for path in &paths {
            let file = root.join(path);
            if !file.is_file() {
                problems.push(format!("{title}: {path} does not exist"));
                continue;
            }
            let holder = if path.starts_with("tests/invalid/") {
                file.with_extension("snap")
            } else {
                file
            };
            let text = std::fs::read_to_string(&holder).unwrap_or_default();
            shown |= text.contains(message);
        }
        if !paths
            .iter()
            .any(|p| p.starts_with("tests/invalid/") || p.starts_with("tests/cmd/"))
        {
            problems.push(format!(
                "{title}: no test under tests/invalid/ or tests/cmd/"
            ));
        }
        if !shown {
            problems.push(format!("{title}: none of its tests shows {message:?}"));
        }
    }
    assert!(kinds >= 30, "only {kinds} kinds found");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
