//! Reading input: every file and standard input go through one bounded reader.
//!
//! A named path is looked at before it is opened: only a regular file is read (a device such as
//! `/dev/zero`, a FIFO or a socket is refused by its type, so that opening it cannot block and
//! reading it cannot go on for ever), and no source is read past [`MAX_INPUT_BYTES`]: the file
//! may grow between the look and the read, so the limit is enforced on the bytes themselves.

use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::path::Path;

use probesim_kube::yaml::MAX_INPUT_BYTES;

/// Why an input could not be read.
pub enum ReadError {
    /// The file system refused (`no such file or directory`).
    Io(String),
    /// The path names something that is not a regular file, or the content is too large or
    /// not text.
    Content(String),
}

impl ReadError {
    /// The reason, without the path.
    pub fn into_reason(self) -> String {
        match self {
            ReadError::Io(reason) | ReadError::Content(reason) => reason,
        }
    }
}

/// Reads a regular file as UTF-8 text, at most [`MAX_INPUT_BYTES`].
pub fn read_text(path: &Path) -> Result<String, ReadError> {
    let meta = std::fs::metadata(path).map_err(|e| ReadError::Io(io_text(&e)))?;
    if meta.is_dir() {
        return Err(ReadError::Io(IS_A_DIRECTORY.to_owned()));
    }
    if let Some(kind) = not_regular(&meta) {
        return Err(ReadError::Content(kind));
    }
    if meta.len() > limit() {
        return Err(ReadError::Content(too_large(Some(meta.len()))));
    }
    let file = File::open(path).map_err(|e| ReadError::Io(io_text(&e)))?;
    read_bounded(file, "the file")
}

/// Reads standard input as UTF-8 text, at most [`MAX_INPUT_BYTES`].
pub fn read_stdin() -> Result<String, ReadError> {
    read_bounded(io::stdin().lock(), "the input")
}

/// Reads at most one byte more than the limit, so that a longer source is refused without being
/// read to its end.
fn read_bounded(source: impl Read, what: &str) -> Result<String, ReadError> {
    let mut bytes = Vec::new();
    source
        .take(limit() + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ReadError::Io(io_text(&e)))?;
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(ReadError::Content(too_large(None)));
    }
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let (line, column) = line_column(bytes, at);
        ReadError::Content(format!(
            "{what} is not valid UTF-8: invalid byte 0x{:02x} at {line}:{column} (byte offset {at})",
            bytes[at]
        ))
    })
}

/// The 1-based line and column (in characters) of byte `at`, in text valid up to `at`. A line
/// ends at `\n`, `\r\n` or a lone `\r`, as in YAML.
fn line_column(bytes: &[u8], at: usize) -> (usize, usize) {
    let valid = std::str::from_utf8(&bytes[..at]).unwrap_or_default();
    let (mut line, mut column) = (1, 1);
    let mut chars = valid.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' | '\r' => {
                line += 1;
                column = 1;
            }
            _ => column += 1,
        }
    }
    (line, column)
}

fn limit() -> u64 {
    u64::try_from(MAX_INPUT_BYTES).unwrap_or(u64::MAX)
}

/// What a path names when it is neither a regular file nor a directory.
fn not_regular(meta: &Metadata) -> Option<String> {
    let kind = meta.file_type();
    if kind.is_file() {
        return None;
    }
    let what = special_kind(&kind);
    Some(format!(
        "not a regular file ({what}): probesim reads scenario and manifest files, or standard input given as `-`"
    ))
}

#[cfg(unix)]
fn special_kind(kind: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

#[cfg(not(unix))]
fn special_kind(_kind: &std::fs::FileType) -> &'static str {
    "a special file"
}

const IS_A_DIRECTORY: &str =
    "is a directory (probesim run takes one scenario file; use probesim check for directories)";

pub fn too_large(size: Option<u64>) -> String {
    let size = size.map_or_else(String::new, |s| format!(": {s} bytes"));
    format!(
        "input too large{size} (the limit is {} MiB)",
        MAX_INPUT_BYTES >> 20
    )
}

pub fn io_text(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file or directory".to_owned(),
        io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        io::ErrorKind::IsADirectory => IS_A_DIRECTORY.to_owned(),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(path: &Path) -> String {
        match read_text(path) {
            Ok(_) => panic!("{} was read", path.display()),
            Err(e) => e.into_reason(),
        }
    }

    #[test]
    #[cfg(unix)]
    fn devices_are_refused_before_they_are_opened() {
        assert_eq!(
            reason(Path::new("/dev/zero")),
            "not a regular file (a character device): probesim reads scenario and manifest files, or standard input given as `-`"
        );
        assert!(reason(Path::new("/dev/null")).contains("(a character device)"));
    }

    #[test]
    #[cfg(unix)]
    fn a_fifo_is_refused_without_blocking() {
        // Opening a FIFO with no writer blocks for ever: the type is checked first.
        let dir = std::env::temp_dir().join(format!("probesim-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("scenario.yaml");
        let _ = std::fs::remove_file(&fifo);
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let got = reason(&fifo);
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(got.starts_with("not a regular file (a FIFO)"), "{got}");
    }

    #[test]
    fn a_source_is_read_no_further_than_the_limit() {
        // An endless source (what /dev/zero would be) stops at one byte past the limit.
        let mut endless = io::repeat(b'#');
        let got = read_bounded(&mut endless, "the input");
        assert_eq!(
            got.err().map(ReadError::into_reason).unwrap(),
            "input too large (the limit is 64 MiB)"
        );
        assert_eq!(
            read_bounded(&b"a: 1\n"[..], "the input").ok().unwrap(),
            "a: 1\n"
        );
    }

    #[test]
    fn invalid_utf8_is_placed_by_line_and_column() {
        let got = read_bounded(&b"a: 1\r\nb: 2\rc: \xff\n"[..], "the file");
        assert_eq!(
            got.err().map(ReadError::into_reason).unwrap(),
            "the file is not valid UTF-8: invalid byte 0xff at 3:4 (byte offset 14)"
        );
        let got = read_bounded(&b"\xc3"[..], "the input");
        assert_eq!(
            got.err().map(ReadError::into_reason).unwrap(),
            "the input is not valid UTF-8: invalid byte 0xc3 at 1:1 (byte offset 0)"
        );
    }
}
