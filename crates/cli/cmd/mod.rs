//! One module per subcommand, each a thin adapter over the libraries.

pub mod check;
pub mod run;

use std::io::{self, Read};
use std::path::Path;

/// Reads a scenario's text; `-` is standard input.
pub fn read_input(path: &str) -> Result<String, String> {
    if path == "-" {
        let mut text = String::new();
        io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("<stdin>: cannot read standard input: {e}"))?;
        return Ok(text);
    }
    read_file(Path::new(path))
}

/// Reads a file as UTF-8 text, with an error that names it.
pub fn read_file(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path)
        .map_err(|e| format!("{}: cannot read file: {}", path.display(), io_text(&e)))?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{}: the file is not valid UTF-8 (invalid byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })
}

fn io_text(e: &io::Error) -> String {
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
            eprintln!("error: {line}");
        } else {
            eprintln!("{line}");
        }
    }
}
