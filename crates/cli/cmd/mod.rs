//! One module per subcommand, each a thin adapter over the libraries.

pub mod analyze;
pub mod check;
pub mod compare;
pub mod generate;
mod read;
pub mod recommend;
pub mod run;
pub mod serve;

use std::io::{self, Write};
use std::path::Path;

use probesim_scenario::printable::printable;
use probesim_scenario::scenario::ManifestReader;

use read::{read_text, ReadError};

/// Reads a scenario's text; `-` is standard input.
pub fn read_input(path: &str) -> Result<String, String> {
    if path == "-" {
        return read::read_stdin().map_err(|e| match e {
            ReadError::Io(reason) => format!("<stdin>: cannot read standard input: {reason}"),
            ReadError::Content(reason) => format!("<stdin>: {reason}"),
        });
    }
    read_file(Path::new(path))
}

/// Reads a file as UTF-8 text, with an error that names it.
pub fn read_file(path: &Path) -> Result<String, String> {
    read_text(path).map_err(|e| match e {
        ReadError::Io(reason) => format!("{}: cannot read file: {reason}", path.display()),
        ReadError::Content(reason) => format!("{}: {reason}", path.display()),
    })
}

/// Reads the manifest files scenarios reference (`manifest:`), from the file system.
pub struct FileReader;

impl ManifestReader for FileReader {
    fn read(&mut self, path: &str) -> Result<String, String> {
        read_text(Path::new(path)).map_err(ReadError::into_reason)
    }
}

/// Prints notes (not errors) on standard error: `note: …`.
pub fn print_notes(notes: &[String]) {
    for note in notes {
        stderr_line(&format!("note: {note}"));
    }
}

/// Writes one line to standard error. A closed standard error is no reason to fail (or
/// panic, as `eprintln!` does): the exit code still tells what happened.
fn stderr_line(line: &str) {
    // Text from input (a file name, a quoted value) must not drive the terminal.
    let _ = writeln!(io::stderr().lock(), "{}", printable(line));
}

pub(crate) fn io_text(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file or directory".to_owned(),
        io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        io::ErrorKind::IsADirectory => "is a directory (probesim run takes one scenario file; use probesim check for directories)".to_owned(),
        _ => e.to_string(),
    }
}

/// Prints an error the way every probesim error looks: `error: ` then the message.
pub fn print_error(message: &str) {
    for (i, line) in message.lines().enumerate() {
        if i == 0 && !line.starts_with("error") {
            stderr_line(&format!("error: {line}"));
        } else {
            stderr_line(line);
        }
    }
}
