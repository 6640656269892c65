//! The borderline decisions of the run ([`crate::borderline`], R90–R92), each marked on a line
//! of its own under the step that tells its decision.

use core::fmt;

use super::{Story, MAX_STEPS};

impl Story<'_> {
    /// Marks the borderline decisions told by now: those of the items before `upto`, and those
    /// of items already told as part of a group.
    pub(super) fn flags(&mut self, w: &mut impl fmt::Write, upto: usize) -> fmt::Result {
        for (k, flag) in self.flags.iter().enumerate() {
            if self.flagged[k] || (flag.item >= upto && !self.consumed.contains(&flag.item)) {
                continue;
            }
            self.flagged[k] = true;
            if self.steps >= MAX_STEPS {
                self.untold += 1;
                continue;
            }
            writeln!(w, "    {}.", flag.line())?;
        }
        Ok(())
    }
}
