//! Reading the files a test names. This is the library's only I/O, done for the user's test
//! as the command line does it for its user: the paths a test gives are read, nothing else.

use std::io;
use std::path::Path;

use probesim_kube::yaml::MAX_INPUT_BYTES;
use probesim_scenario::scenario::ManifestReader;

use crate::error::{Error, ErrorKind};

/// Reads a file as UTF-8 text, with the command line's wording for what goes wrong.
pub(crate) fn read(path: &str) -> Result<String, Error> {
    read_text(Path::new(path)).map_err(|(io, reason)| {
        let message = if io {
            format!("{path}: cannot read file: {reason}")
        } else {
            format!("{path}: {reason}")
        };
        Error::new(ErrorKind::File, message)
    })
}

/// The text, or whether the failure came from the file system and why.
fn read_text(path: &Path) -> Result<String, (bool, String)> {
    let size = std::fs::metadata(path).map_or(0, |m| m.len());
    let limit = u64::try_from(MAX_INPUT_BYTES).unwrap_or(u64::MAX);
    if size > limit {
        return Err((
            false,
            format!(
                "input too large: {size} bytes (the limit is {} MiB)",
                MAX_INPUT_BYTES >> 20
            ),
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| (true, io_text(&e)))?;
    String::from_utf8(bytes).map_err(|e| {
        (
            false,
            format!(
                "the file is not valid UTF-8 (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

fn io_text(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file or directory".to_owned(),
        io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        _ => e.to_string(),
    }
}

/// Reads the manifests a scenario file references (`manifest:`) from the file system.
pub(crate) struct Files;

impl ManifestReader for Files {
    fn read(&mut self, path: &str) -> Result<String, String> {
        read_text(Path::new(path)).map_err(|(_, reason)| reason)
    }
}
