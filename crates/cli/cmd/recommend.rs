//! `probesim recommend`.

use crate::args::RecommendArgs;
use crate::exit::ExitStatus;

pub fn recommend(_args: &RecommendArgs) -> ExitStatus {
    ExitStatus::Error
}
