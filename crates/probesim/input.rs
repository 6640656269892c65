//! The one reader of input files, shared by the library and the `probesim` binary.
//!
//! The binary is built from this package, so it uses this module rather than a copy: a test's
//! `Test::manifest`, the command line's named files, standard input (`-`), `manifest:`
//! references and the files `probesim check` finds all go through [`read_text`] or
//! [`read_source`], and the library opens files nowhere else.
//!
//! A named path is opened without blocking (`O_NONBLOCK`, so that opening a FIFO with no writer
//! returns at once), then the *opened descriptor's* type is checked (`fstat`): only a regular
//! file is read. Checking the descriptor rather than the name leaves no gap in which a FIFO or
//! a device could be swapped in. A file that `stat` calls regular but whose read would block
//! (`/proc/kmsg`) answers "would block" at once instead of hanging. No source is read past
//! its bound: the bytes themselves are counted, since a file may grow while it is read.
//!
//! [`References`] reads the manifests scenarios reference (`manifest:`) and keeps them inside
//! the scenario's tree unless told otherwise.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use probesim_scenario::scenario::ManifestReader;

/// The most bytes read from any input: the YAML reader's own limit.
pub use probesim_kube::yaml::MAX_INPUT_BYTES;

/// Why an input could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// The file system refused (`no such file or directory`).
    Io(String),
    /// The path names something that is not a regular file, or the content is too large, not
    /// text, or outside the tree it must stay in.
    Content(String),
}

impl ReadError {
    /// The reason, without the path.
    #[must_use]
    pub fn into_reason(self) -> String {
        match self {
            ReadError::Io(reason) | ReadError::Content(reason) => reason,
        }
    }

    /// The error as it is printed: `path: cannot read file: reason` for the file system's
    /// refusals, `path: reason` for the rest.
    #[must_use]
    pub fn with_path(self, path: &str) -> String {
        match self {
            ReadError::Io(reason) => format!("{path}: cannot read file: {reason}"),
            ReadError::Content(reason) => format!("{path}: {reason}"),
        }
    }
}

/// Reads a regular file as UTF-8 text, at most [`MAX_INPUT_BYTES`].
///
/// # Errors
/// The file cannot be opened, is not a regular file, is larger than the limit, would block, or
/// is not UTF-8.
pub fn read_text(path: &Path) -> Result<String, ReadError> {
    let bytes = read_bytes(path, MAX_INPUT_BYTES)?;
    utf8(bytes, "the file")
}

/// Reads at most `limit` bytes of a regular file, opened without blocking.
///
/// # Errors
/// As [`read_text`], but the bytes need not be text.
pub fn read_bytes(path: &Path, limit: usize) -> Result<Vec<u8>, ReadError> {
    let file = open(path)?;
    let meta = file.metadata().map_err(|e| ReadError::Io(io_text(&e)))?;
    let kind = meta.file_type();
    if kind.is_dir() {
        return Err(ReadError::Io(IS_A_DIRECTORY.to_owned()));
    }
    if !kind.is_file() {
        return Err(ReadError::Content(format!(
            "not a regular file ({}): probesim reads scenario and manifest files, or standard input given as `-`",
            special_kind(&kind)
        )));
    }
    if meta.len() > as_u64(limit) {
        return Err(ReadError::Content(too_large(Some(meta.len()), limit)));
    }
    read_bounded(file, limit)
}

/// Reads standard input as UTF-8 text, at most [`MAX_INPUT_BYTES`]. Standard input is the one
/// source that may be a pipe: waiting on it is what the user asked for.
///
/// # Errors
/// The input cannot be read, is larger than the limit, or is not UTF-8.
pub fn read_stdin() -> Result<String, ReadError> {
    read_source(io::stdin().lock(), "the input")
}

/// Reads any source as UTF-8 text, at most [`MAX_INPUT_BYTES`]; `what` names it in errors
/// (`the input is not valid UTF-8: …`).
///
/// # Errors
/// The source fails, is longer than the limit, or is not UTF-8.
pub fn read_source(source: impl Read, what: &str) -> Result<String, ReadError> {
    utf8(read_bounded(source, MAX_INPUT_BYTES)?, what)
}

#[cfg(unix)]
fn open(path: &Path) -> Result<File, ReadError> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| ReadError::Io(io_text(&e)))
}

#[cfg(not(unix))]
fn open(path: &Path) -> Result<File, ReadError> {
    OpenOptions::new()
        .read(true)
        .open(path)
        .map_err(|e| ReadError::Io(io_text(&e)))
}

/// Reads at most one byte more than the limit, so that a longer source is refused without being
/// read to its end.
fn read_bounded(source: impl Read, limit: usize) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::new();
    source
        .take(as_u64(limit) + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| {
            if e.kind() == io::ErrorKind::WouldBlock {
                ReadError::Content(
                    "reading it would block (a file that is not stored data, such as a kernel log); probesim reads scenario and manifest files".to_owned(),
                )
            } else {
                ReadError::Io(io_text(&e))
            }
        })?;
    if bytes.len() > limit {
        return Err(ReadError::Content(too_large(None, limit)));
    }
    Ok(bytes)
}

fn utf8(bytes: Vec<u8>, what: &str) -> Result<String, ReadError> {
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

fn as_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
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

/// `input too large[: N bytes] (the limit is L MiB)`.
#[must_use]
pub fn too_large(size: Option<u64>, limit: usize) -> String {
    let size = size.map_or_else(String::new, |s| format!(": {s} bytes"));
    format!("input too large{size} (the limit is {} MiB)", limit >> 20)
}

/// The file system's refusal in a few words (`no such file or directory`).
#[must_use]
pub fn io_text(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file or directory".to_owned(),
        io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        io::ErrorKind::IsADirectory => IS_A_DIRECTORY.to_owned(),
        _ => e.to_string(),
    }
}

/// Where files a scenario names may be: by default inside its tree, which is the working
/// directory (a repository's checkout, where CI runs) and the directory of the scenario file
/// itself. A path is judged after symbolic links are resolved, so a link inside the tree that
/// points out of it is outside.
#[derive(Clone, Debug)]
pub struct Tree {
    /// The directories a path may be under, resolved; `None`: anywhere.
    roots: Option<Vec<PathBuf>>,
    /// What lifts the confinement, for the error (`--allow-outside-tree`).
    how_to_allow: &'static str,
}

impl Tree {
    /// The tree of a scenario file (`None`: standard input or text in memory): the working
    /// directory and the file's directory. `how_to_allow` names what lifts the confinement.
    #[must_use]
    pub fn of(scenario: Option<&Path>, how_to_allow: &'static str) -> Tree {
        let mut roots = Vec::new();
        if let Ok(cwd) = std::env::current_dir().and_then(std::fs::canonicalize) {
            roots.push(cwd);
        }
        if let Some(dir) = scenario.and_then(Path::parent) {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            if let Ok(dir) = std::fs::canonicalize(dir) {
                if !roots.iter().any(|r| dir.starts_with(r)) {
                    roots.push(dir);
                }
            }
        }
        Tree {
            roots: Some(roots),
            how_to_allow,
        }
    }

    /// No confinement: any path may be read.
    #[must_use]
    pub fn anywhere() -> Tree {
        Tree {
            roots: None,
            how_to_allow: "",
        }
    }

    /// The path with its links resolved, if it lies inside the tree (or the tree is
    /// everywhere: then the path as given).
    ///
    /// # Errors
    /// The path does not exist, or lies outside.
    pub fn admit(&self, path: &Path) -> Result<PathBuf, ReadError> {
        let Some(roots) = &self.roots else {
            return Ok(path.to_owned());
        };
        let real = std::fs::canonicalize(path).map_err(|e| ReadError::Io(io_text(&e)))?;
        if roots.iter().any(|r| real.starts_with(r)) {
            return Ok(real);
        }
        Err(ReadError::Content(format!(
            "outside the scenario's tree (with its links followed, it is neither under the working directory nor beside the scenario); a scenario reads only its own tree unless {} allows other paths",
            self.how_to_allow
        )))
    }

    /// Whether the tree is confined.
    #[must_use]
    pub fn is_confined(&self) -> bool {
        self.roots.is_some()
    }
}

/// Reads the manifests a scenario references (`manifest:`) through [`read_text`], admitting
/// only paths inside its [`Tree`].
#[derive(Clone, Debug)]
pub struct References {
    tree: Tree,
}

impl References {
    /// References read inside `tree`.
    #[must_use]
    pub fn new(tree: Tree) -> References {
        References { tree }
    }
}

impl ManifestReader for References {
    fn read(&mut self, path: &str) -> Result<String, String> {
        let real = self
            .tree
            .admit(Path::new(path))
            .map_err(ReadError::into_reason)?;
        read_text(&real).map_err(ReadError::into_reason)
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
    fn devices_are_refused_by_the_opened_descriptor() {
        assert_eq!(
            reason(Path::new("/dev/zero")),
            "not a regular file (a character device): probesim reads scenario and manifest files, or standard input given as `-`"
        );
        assert!(reason(Path::new("/dev/null")).contains("(a character device)"));
    }

    #[test]
    #[cfg(unix)]
    fn a_fifo_is_opened_without_blocking_and_refused() {
        // Opening a FIFO with no writer blocks for ever unless O_NONBLOCK is given.
        let dir = std::env::temp_dir().join(format!("probesim-input-{}", std::process::id()));
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
        let got = read_source(io::repeat(b'#'), "the input");
        assert_eq!(
            got.err().map(ReadError::into_reason).unwrap(),
            "input too large (the limit is 64 MiB)"
        );
        assert_eq!(read_source(&b"a: 1\n"[..], "the input").unwrap(), "a: 1\n");
        assert_eq!(
            read_bounded(&b"12345"[..], 4).unwrap_err().into_reason(),
            "input too large (the limit is 0 MiB)"
        );
    }

    #[test]
    fn a_read_that_would_block_is_an_error_not_a_wait() {
        struct Blocks;
        impl Read for Blocks {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::ErrorKind::WouldBlock.into())
            }
        }
        let got = read_bounded(Blocks, 10).unwrap_err().into_reason();
        assert!(got.starts_with("reading it would block"), "{got}");
    }

    #[test]
    fn invalid_utf8_is_placed_by_line_and_column() {
        let got = read_source(&b"a: 1\r\nb: 2\rc: \xff\n"[..], "the file");
        assert_eq!(
            got.err().map(ReadError::into_reason).unwrap(),
            "the file is not valid UTF-8: invalid byte 0xff at 3:4 (byte offset 14)"
        );
        let got = read_source(&b"\xc3"[..], "the input");
        assert_eq!(
            got.err().map(ReadError::into_reason).unwrap(),
            "the input is not valid UTF-8: invalid byte 0xc3 at 1:1 (byte offset 0)"
        );
    }

    #[test]
    #[cfg(unix)]
    fn the_tree_refuses_paths_and_links_that_leave_it() {
        let dir = std::env::temp_dir().join(format!("probesim-tree-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("sub/pod.yaml"), "kind: Pod\n").unwrap();
        let link = dir.join("sub/passwd.yaml");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink("/etc/passwd", &link).unwrap();
        let tree = Tree::of(Some(&dir.join("sub/scenario.yaml")), "--allow-outside-tree");
        let inside = tree.admit(&dir.join("sub/pod.yaml"));
        let through_link = tree.admit(&link).unwrap_err().into_reason();
        let absolute = tree
            .admit(Path::new("/etc/passwd"))
            .unwrap_err()
            .into_reason();
        let anywhere = Tree::anywhere().admit(Path::new("/etc/passwd"));
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(inside.is_ok());
        assert!(
            through_link.starts_with("outside the scenario's tree (with its links followed"),
            "{through_link}"
        );
        assert!(absolute.ends_with("unless --allow-outside-tree allows other paths"));
        assert_eq!(anywhere.unwrap(), Path::new("/etc/passwd"));
    }
}
