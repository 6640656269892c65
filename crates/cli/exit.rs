//! Exit codes, documented once (docs/cli.md#exit-codes).

use std::process::ExitCode;

/// How a command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    /// 0: the run succeeded; every checked expectation holds.
    Success,
    /// 1: `check` found an expectation that does not hold.
    Failure,
    /// 2: bad input: unreadable file, YAML/JSON syntax, unknown or invalid field, API validation
    /// error, bad script, unknown option.
    Error,
}

impl From<ExitStatus> for ExitCode {
    fn from(s: ExitStatus) -> ExitCode {
        match s {
            ExitStatus::Success => ExitCode::SUCCESS,
            ExitStatus::Failure => ExitCode::from(1),
            ExitStatus::Error => ExitCode::from(2),
        }
    }
}
