//! One module per subcommand, each a thin adapter over the libraries.

pub mod analyze;
pub mod check;
pub mod compare;
pub mod generate;
pub mod recommend;
pub mod run;
pub mod serve;
pub mod spread;

use std::io::{self, Write};
use std::path::Path;

use probesim::input::{self, ReadError, References, Tree};
use probesim_kube::printable::printable;

/// Reads a scenario's text; `-` is standard input. Every input goes through the library's
/// reader (`probesim::input`), the one the library's own tests read with.
pub fn read_input(path: &str) -> Result<String, String> {
    if path == "-" {
        return input::read_stdin().map_err(|e| match e {
            ReadError::Io(reason) => format!("<stdin>: cannot read standard input: {reason}"),
            ReadError::Content(reason) => format!("<stdin>: {reason}"),
        });
    }
    read_file(Path::new(path))
}

/// Reads a file as UTF-8 text, with an error that names it.
pub fn read_file(path: &Path) -> Result<String, String> {
    input::read_text(path).map_err(|e| e.with_path(&path.display().to_string()))
}

/// The reader of the manifests a scenario references (`manifest:`): inside the scenario's
/// tree (`scenario`: its file, `None` for standard input) unless `--allow-outside-tree`.
pub fn references(scenario: Option<&Path>, allow_outside_tree: bool) -> References {
    References::new(if allow_outside_tree {
        Tree::anywhere()
    } else {
        Tree::of(scenario, "--allow-outside-tree")
    })
}

/// The scenario file a path names, for its tree (`-` is standard input, which has none).
pub fn scenario_file(path: &str) -> Option<&Path> {
    (path != "-").then(|| Path::new(path))
}

/// Prints notes (not errors) on standard error: `note: …`.
pub fn print_notes(notes: &[String]) {
    let mut out = String::new();
    for note in notes {
        push_line(&mut out, &format!("note: {note}"));
    }
    write_stderr(&out);
}

/// Appends one line for standard error. Text from input (a file name, a quoted value) must not
/// drive the terminal.
fn push_line(out: &mut String, line: &str) {
    out.push_str(&printable(line));
    out.push('\n');
}

/// Writes all of `text` to standard error at once: standard error is unbuffered, and thousands
/// of error lines written one piece at a time cost a system call each. A closed standard error
/// is no reason to fail (or panic, as `eprintln!` does): the exit code still tells what
/// happened.
fn write_stderr(text: &str) {
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

pub(crate) fn io_text(e: &io::Error) -> String {
    input::io_text(e)
}

/// Prints an error the way every probesim error looks: `error: ` then the message.
pub fn print_error(message: &str) {
    let mut out = String::with_capacity(message.len() + 16);
    for (i, line) in message.lines().enumerate() {
        if i == 0 && !line.starts_with("error") {
            push_line(&mut out, &format!("error: {line}"));
        } else {
            push_line(&mut out, line);
        }
    }
    write_stderr(&out);
}
