//! Reading the files a test names. This is the library's only I/O, done for the user's test
//! as the command line does it for its user, with the same reader ([`crate::input`]): the
//! paths a test gives are read, and the `manifest:` references of a scenario file only inside
//! its tree unless the test allows others ([`crate::Test::allow_outside_tree`]).

use std::path::Path;

use crate::error::{Error, ErrorKind};
use crate::input;

/// Reads a file as UTF-8 text, with the command line's wording for what goes wrong.
pub(crate) fn read(path: &str) -> Result<String, Error> {
    input::read_text(Path::new(path)).map_err(|e| Error::new(ErrorKind::File, e.with_path(path)))
}
