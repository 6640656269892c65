//! One module per subcommand, each a thin adapter over the libraries.

pub mod analyze;
pub mod check;
pub mod generate;
pub mod recommend;
pub mod run;

use std::io::{self, Read, Write};
use std::path::Path;

use probesim_scenario::scenario::ManifestReader;
use probesim_scenario::yaml::MAX_INPUT_BYTES;

/// Reads a scenario's text; `-` is standard input.
pub fn read_input(path: &str) -> Result<String, String> {
    if path == "-" {
        let mut bytes = Vec::new();
        io::stdin()
            .take(u64::try_from(MAX_INPUT_BYTES).unwrap_or(u64::MAX) + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("<stdin>: cannot read standard input: {e}"))?;
        if bytes.len() > MAX_INPUT_BYTES {
            return Err(format!("<stdin>: {}", too_large(None)));
        }
        return String::from_utf8(bytes).map_err(|e| {
            format!(
                "<stdin>: the input is not valid UTF-8 (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            )
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

/// Why a file could not be read.
enum ReadError {
    /// The file system refused (`no such file or directory`).
    Io(String),
    /// The file is too large or not text.
    Content(String),
}

/// Reads a file as UTF-8 text (at most [`MAX_INPUT_BYTES`]).
fn read_text(path: &Path) -> Result<String, ReadError> {
    let size = std::fs::metadata(path).map_or(0, |m| m.len());
    if size > u64::try_from(MAX_INPUT_BYTES).unwrap_or(u64::MAX) {
        return Err(ReadError::Content(too_large(Some(size))));
    }
    let bytes = std::fs::read(path).map_err(|e| ReadError::Io(io_text(&e)))?;
    String::from_utf8(bytes).map_err(|e| {
        ReadError::Content(format!(
            "the file is not valid UTF-8 (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

fn too_large(size: Option<u64>) -> String {
    let size = size.map_or_else(String::new, |s| format!(": {s} bytes"));
    format!(
        "input too large{size} (the limit is {} MiB)",
        MAX_INPUT_BYTES >> 20
    )
}

/// Reads the manifest files scenarios reference (`manifest:`), from the file system.
pub struct FileReader;

impl ManifestReader for FileReader {
    fn read(&mut self, path: &str) -> Result<String, String> {
        read_text(Path::new(path)).map_err(|e| match e {
            ReadError::Io(reason) | ReadError::Content(reason) => reason,
        })
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
    let _ = writeln!(io::stderr().lock(), "{line}");
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
