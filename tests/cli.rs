//! End-to-end tests of the `probesim` binary: one test per `tests/cmd/*.case` file.
//!
//! A case file starts with header lines, then optional sections with the exact expected output:
//!
//! ```text
//! args: run scenarios/kubia-unhealthy.yaml --for 2m --format jsonl
//! stdin: tests/cmd/input.yaml        (optional: a file fed to standard input)
//! as: kubectl-probesim               (optional: run the binary under this name)
//! status: 0
//! --- stdout
//! …expected standard output…
//! --- stderr
//! …expected standard error…
//! ```
//!
//! Arguments are split on spaces; `'…'` quotes one argument. Commands run in the repository
//! root. A section that is absent is not checked; `--- stdout contains` checks that each of its
//! lines occurs in the output instead of comparing it exactly.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use libtest_mimic::Failed;

struct Case {
    args: Vec<String>,
    stdin: Option<String>,
    invoked_as: Option<String>,
    status: i32,
    sections: Vec<(String, String)>,
}

fn parse(text: &str) -> Result<Case, String> {
    let mut case = Case {
        args: Vec::new(),
        stdin: None,
        invoked_as: None,
        status: 0,
        sections: Vec::new(),
    };
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.peek() {
        if line.starts_with("--- ") {
            break;
        }
        let line = lines.next().unwrap_or_default();
        if let Some(a) = line.strip_prefix("args:") {
            case.args = split(a.trim())?;
        } else if let Some(s) = line.strip_prefix("status:") {
            case.status = s
                .trim()
                .parse()
                .map_err(|_| format!("bad status line {line:?}"))?;
        } else if let Some(s) = line.strip_prefix("stdin:") {
            case.stdin = Some(s.trim().to_owned());
        } else if let Some(s) = line.strip_prefix("as:") {
            case.invoked_as = Some(s.trim().to_owned());
        } else if !line.trim().is_empty() && !line.starts_with('#') {
            return Err(format!("unknown header line {line:?}"));
        }
    }
    let mut current: Option<(String, String)> = None;
    for line in lines {
        if let Some(name) = line.strip_prefix("--- ") {
            if let Some(done) = current.take() {
                case.sections.push(done);
            }
            current = Some((name.trim().to_owned(), String::new()));
        } else if let Some((_, body)) = current.as_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    if let Some(done) = current {
        case.sections.push(done);
    }
    Ok(case)
}

fn split(s: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        rest = rest.trim_start();
        if let Some(q) = rest.strip_prefix('\'') {
            let end = q.find('\'').ok_or("unclosed quote in args")?;
            out.push(q[..end].to_owned());
            rest = &q[end + 1..];
        } else if !rest.is_empty() {
            let end = rest.find(' ').unwrap_or(rest.len());
            out.push(rest[..end].to_owned());
            rest = &rest[end..];
        }
    }
    Ok(out)
}

fn run_case(path: &Path) -> Result<(), Failed> {
    let name = support::rel(path);
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
    let case = parse(&text).map_err(|e| format!("{name}: {e}"))?;
    let root = support::root();
    let binary = match &case.invoked_as {
        Some(as_name) => binary_named(path, as_name).map_err(|e| format!("{name}: {e}"))?,
        None => PathBuf::from(env!("CARGO_BIN_EXE_probesim")),
    };
    let mut cmd = Command::new(binary);
    cmd.args(&case.args)
        .current_dir(&root)
        .env_remove("PROBESIM_BLESS")
        // `check --update` is refused under CI; the cases set what they need.
        .env_remove("CI");
    cmd.stdin(match &case.stdin {
        Some(file) => Stdio::from(
            std::fs::File::open(root.join(file))
                .map_err(|e| format!("{name}: stdin {file}: {e}"))?,
        ),
        None => Stdio::null(),
    });
    let out = cmd
        .output()
        .map_err(|e| format!("{name}: cannot run probesim: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let status = out.status.code().unwrap_or(-1);
    let mut problems = Vec::new();
    if status != case.status {
        problems.push(format!("exit status {status}, expected {}", case.status));
    }
    for (section, body) in &case.sections {
        let (stream, actual) = match section.split_whitespace().next() {
            Some("stdout") => ("stdout", &stdout),
            Some("stderr") => ("stderr", &stderr),
            _ => return Err(format!("{name}: unknown section {section:?}").into()),
        };
        if section.ends_with("contains") {
            for line in body.lines().filter(|l| !l.is_empty()) {
                if !actual.contains(line) {
                    problems.push(format!("{stream} lacks {line:?}"));
                }
            }
        } else if actual.as_ref() != body {
            problems.push(format!(
                "{stream} differs:\n{}",
                support::diff(body, actual)
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{name}: {}\n--- stdout\n{stdout}--- stderr\n{stderr}",
            problems.join("\n")
        )
        .into())
    }
}

/// The binary under the name `as_name`, in a directory of the case's own (cases run in
/// parallel). It is a hard link (or, across file systems, a symbolic link), never a copy: a
/// copy is a file open for writing, and a test thread that forks meanwhile keeps that
/// descriptor alive in its child, so executing the copy can fail with "Text file busy".
fn binary_named(case: &Path, as_name: &str) -> Result<PathBuf, String> {
    let stem = case.file_stem().unwrap_or_default();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cli")
        .join(stem);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let link = dir.join(as_name);
    match std::fs::remove_file(&link) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(format!("removing {}: {e}", link.display()));
        }
        _ => {}
    }
    let binary = Path::new(env!("CARGO_BIN_EXE_probesim"));
    std::fs::hard_link(binary, &link)
        .or_else(|_| std::os::unix::fs::symlink(binary, &link))
        .map_err(|e| format!("linking the binary as {}: {e}", link.display()))?;
    Ok(link)
}

fn main() {
    support::run_per_file(&["tests", "cmd"], &["case"], run_case);
}
