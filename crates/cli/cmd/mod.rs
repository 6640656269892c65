//! One module per subcommand, each a thin adapter over the libraries.

pub mod check;
mod read;
pub mod run;

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

/// Writes one line to standard output. When the reader has gone (`probesim check … | head`),
/// probesim stops quietly with exit code 0, as `run` does; another write error is reported
/// and ends the command with exit code 2.
pub fn stdout_line(line: &str) {
    if let Err(e) = writeln!(io::stdout().lock(), "{}", printable(line)) {
        if e.kind() == io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        print_error(&format!("writing to standard output: {e}"));
        std::process::exit(2);
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
