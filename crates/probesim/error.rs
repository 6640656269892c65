//! Errors as typed values whose `Display` is what `probesim run` prints for the same problem.

use core::fmt;

/// What kind of problem an [`Error`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A file could not be read (missing, not text, too large).
    File,
    /// The input is wrong: a manifest or scenario that does not validate, a behaviour script
    /// that does not parse, a workload or container that is not there, an unsupported
    /// release. `probesim run` exits with code 2 for these.
    Input,
    /// The test asks for something that does not apply (a behaviour in the language for a
    /// scenario file, which has its own `apps`).
    Usage,
    /// The simulation could not run (it did not settle: a bug in probesim).
    Run,
    /// A closure given to [`Test::behaviour`](crate::Test::behaviour) panicked, or answered
    /// what its probe cannot answer (an exit code to an HTTP probe, HTTP status 0 or 65535,
    /// `Serving` to a TCP probe). The message names the closure by its probe and container.
    Closure,
    /// The run passed its limit on events simulated one by one
    /// ([`Test::event_limit`](crate::Test::event_limit)); the message says when.
    Limit,
}

/// A problem loading, configuring or running a test. Its `Display` is the message the
/// command line prints for the same input (`error: …`, with the file, line and column, the
/// source line and a caret), so a failing test reads like `probesim run`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    /// An error with its message as the command line words it (without the `error: ` that
    /// `Display` adds to a first line that lacks it).
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
        }
    }

    /// What kind of problem it is.
    #[must_use]
    pub const fn kind(&self) -> ErrorKind {
        self.kind
    }
}

impl fmt::Display for Error {
    /// As `probesim run` prints it: every line, the first starting with `error: `.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = self.message.trim_end_matches('\n');
        if message.starts_with("error") {
            f.write_str(message)
        } else {
            write!(f, "error: {message}")
        }
    }
}

impl std::error::Error for Error {}
