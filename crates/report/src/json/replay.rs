//! The JSON listings' part in fast-forward ([`Replay`]): keeping the bytes of whole cycles of
//! event lines, and writing later cycles from them.
//!
//! The engine marks where cycles begin and end; between marks the sink copies every byte it
//! adds to its output (separators included) into the kept cycle. Once three cycles are kept,
//! they are compared token by token, in one pass. Outside JSON strings, the integer part of a
//! number may differ from one cycle to the next (a time, a restart count, an Event's count), by
//! the same step from the first cycle to the second as from the second to the third; every
//! other byte must be the same. The later cycles are then the last one again with each number
//! moved on by its step per cycle, and `Emit` writes them so, rewriting the moving numbers of
//! the cycle written before in place. Anything else (a string that changes, a number that moves
//! by a different step, a step downwards, a fraction that changes, an overflow) refuses, and
//! the run simply goes on step by step. The engine only asks after the whole simulation state
//! has repeated at every mark, so the comparison is a second, independent check that the
//! listing really repeats.

use std::io::{self, Write};

use probesim_core::Replay;

use super::line;

/// Where [`line::decimal`] ends the digits it writes.
const DIGITS_END: usize = 20;

/// At most this many bytes of kept cycles; a longer cycle is not replayed.
const MAX_KEPT: usize = 16 * 1024 * 1024;

/// How many whole cycles are compared before one is replayed.
const COMPARED: usize = 3;

/// The cycles a JSON sink keeps, and the template it writes them again from.
#[derive(Debug, Default)]
pub(super) struct Cycles {
    keeping: bool,
    /// Over [`MAX_KEPT`]: nothing more is kept until the next `Begin`.
    full: bool,
    /// The bytes of the kept cycles, oldest first, then of the one being kept.
    bytes: Vec<u8>,
    /// Where each whole kept cycle ends in `bytes`.
    ends: Vec<usize>,
    /// The last kept cycle, cut into literal runs of `bytes` and moving numbers.
    pieces: Vec<Piece>,
    /// The cycle written last, and where its moving numbers stand.
    shown: Vec<u8>,
    spots: Vec<Spot>,
}

/// A run of literal bytes (`bytes[start..end]`, in the last kept cycle), then a number, if any,
/// that moves by `step` per cycle from `value`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Piece {
    start: usize,
    end: usize,
    number: Option<(u64, u64)>,
}

impl Cycles {
    /// Whether bytes added to the output now belong to a kept cycle.
    #[inline]
    pub(super) fn keeping(&self) -> bool {
        self.keeping
    }

    /// Keeps `bytes`, just added to the output.
    pub(super) fn keep(&mut self, bytes: &[u8]) {
        if self.full {
            return;
        }
        if self.bytes.len() + bytes.len() > MAX_KEPT {
            self.full = true;
            return;
        }
        self.bytes.extend_from_slice(bytes);
    }

    /// One step of the engine's replay, answered as [`Sink::replay`](probesim_core::Sink::replay)
    /// answers. On `Emit`, hands `out` (the lines not yet written) to `w`, then writes the
    /// cycles.
    ///
    /// # Errors
    /// Writing failed.
    pub(super) fn step<W: Write>(
        &mut self,
        step: Replay,
        w: &mut W,
        out: &mut Vec<u8>,
    ) -> io::Result<bool> {
        match step {
            Replay::Begin => {
                self.forget();
                self.keeping = true;
                Ok(true)
            }
            Replay::Mark => {
                if !self.keeping || self.full {
                    return Ok(false);
                }
                self.ends.push(self.bytes.len());
                if self.ends.len() > COMPARED {
                    // Only the last cycles are compared: forget the oldest.
                    let drop = self.ends.remove(0);
                    self.bytes.drain(..drop);
                    for end in &mut self.ends {
                        *end -= drop;
                    }
                }
                Ok(true)
            }
            Replay::Emit { cycles, .. } => {
                let ready = self.keeping && !self.full && self.ends.len() >= COMPARED;
                if !ready || !self.plan() || !self.room(cycles) {
                    return Ok(false);
                }
                w.write_all(out)?;
                out.clear();
                for k in 1..=cycles {
                    self.patch(k);
                    w.write_all(&self.shown)?;
                }
                Ok(true)
            }
            Replay::End => {
                self.forget();
                self.keeping = false;
                Ok(true)
            }
        }
    }

    /// Drops every kept cycle and the template (the buffers stay for the next replay).
    fn forget(&mut self) {
        self.full = false;
        self.bytes.clear();
        self.ends.clear();
        self.pieces.clear();
        self.spots.clear();
    }

    /// The `i`-th whole kept cycle, as a range of `bytes`.
    fn cycle(&self, i: usize) -> (usize, usize) {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        (start, self.ends[i])
    }

    /// Compares the three kept cycles and builds the template from the last: whether the
    /// third moved every number by exactly the step the second did.
    fn plan(&mut self) -> bool {
        let (a, b, c) = (self.cycle(0), self.cycle(1), self.cycle(2));
        let (a, b, c) = (
            &self.bytes[a.0..a.1],
            &self.bytes[b.0..b.1],
            &self.bytes[c.0..c.1],
        );
        let mut pieces = Vec::new();
        if !template([a, b, c], &mut pieces) {
            return false;
        }
        // The pieces index the last cycle where it is kept, until `End`.
        let offset = self.cycle(2).0;
        for p in &mut pieces {
            p.start += offset;
            p.end += offset;
        }
        self.pieces = pieces;
        self.lay_out(0);
        true
    }

    /// Whether every number stays within `u64` for `cycles` more cycles.
    fn room(&self, cycles: u64) -> bool {
        self.pieces.iter().all(|p| match p.number {
            None => true,
            Some((value, step)) => step
                .checked_mul(cycles)
                .and_then(|d| d.checked_add(value))
                .is_some(),
        })
    }

    /// Writes the `k`-th cycle after the last kept one into `shown` from the pieces, and notes
    /// where each moving number stands in it.
    fn lay_out(&mut self, k: u64) {
        self.shown.clear();
        self.spots.clear();
        for p in &self.pieces {
            self.shown.extend_from_slice(&self.bytes[p.start..p.end]);
            if let Some((value, step)) = p.number {
                // In range: checked by `room` for the largest `k`.
                let n = value + step * k;
                let at = self.shown.len();
                line::uint(&mut self.shown, n);
                let len = self.shown.len() - at;
                self.spots.push(Spot {
                    at,
                    len,
                    value,
                    step,
                });
            }
        }
    }

    /// Turns `shown` (some earlier cycle) into the `k`-th cycle: every moving number is
    /// rewritten in place, unless one has grown a digit, when the cycle is laid out afresh.
    fn patch(&mut self, k: u64) {
        // Lines of one instant share their time: a number equal to the one before is copied.
        let mut last = u64::MAX;
        let mut text = [0u8; 44];
        let mut from = DIGITS_END;
        for spot in &self.spots {
            let n = spot.value + spot.step * k;
            if n != last {
                last = n;
                from = line::decimal(&mut text, n);
            }
            let digits = &text[from..DIGITS_END];
            // Numbers only grow: one that no longer fits has grown a digit.
            if digits.len() != spot.len {
                self.lay_out(k);
                return;
            }
            self.shown[spot.at..spot.at + spot.len].copy_from_slice(digits);
        }
    }
}

/// A moving number in the cycle last laid out: where it stands, how many digits it has, its
/// value in the last kept cycle and its step per cycle.
#[derive(Clone, Copy, Debug)]
struct Spot {
    at: usize,
    len: usize,
    value: u64,
    step: u64,
}

/// Compares three cycles' bytes token by token, in one pass: outside strings, the integer part
/// of a number may differ from one cycle to the next, by the same step (zero or more) from the
/// first to the second as from the second to the third; every other byte must be equal. Cuts
/// the third into literal runs and the numbers that move (`pieces`). Whether the three match
/// so.
fn template(cycles: [&[u8]; 3], pieces: &mut Vec<Piece>) -> bool {
    let [a, b, c] = cycles;
    let mut at = [0usize; 3];
    let mut literal = 0;
    // Runs of ordinary bytes are compared whole; the scan stops only at quotes and digits.
    while at[0] < a.len() {
        let run = a[at[0]..]
            .iter()
            .position(|&x| x == b'"' || x.is_ascii_digit())
            .unwrap_or(a.len() - at[0]);
        if !same_run(cycles, &mut at, run) {
            return false;
        }
        let (Some(&x), Some(&y), Some(&z)) = (a.get(at[0]), b.get(at[1]), c.get(at[2])) else {
            break;
        };
        if x == b'"' {
            // A string, compared whole: up to its closing quote, escapes skipped.
            let Some(len) = string_len(&a[at[0]..]) else {
                return false;
            };
            if !same_run(cycles, &mut at, len) {
                return false;
            }
        } else if y.is_ascii_digit() && z.is_ascii_digit() && !after_digit(a, at[0]) {
            let (x, next_a) = integer(a, at[0]);
            let (y, next_b) = integer(b, at[1]);
            let (z, next_c) = integer(c, at[2]);
            let (Some(x), Some(y), Some(z)) = (x, y, z) else {
                return false;
            };
            let (Some(first), Some(second)) = (y.checked_sub(x), z.checked_sub(y)) else {
                return false;
            };
            if first != second {
                return false;
            }
            if second != 0 {
                pieces.push(Piece {
                    start: literal,
                    end: at[2],
                    number: Some((z, second)),
                });
                literal = next_c;
            }
            at = [next_a, next_b, next_c];
        } else if !same_run(cycles, &mut at, 1) {
            // A digit inside a word or after a sign is an ordinary byte.
            return false;
        }
    }
    if at[1] != b.len() || at[2] != c.len() {
        return false;
    }
    pieces.push(Piece {
        start: literal,
        end: c.len(),
        number: None,
    });
    true
}

/// Whether the next `len` bytes at `at` are the same in the three cycles; moves past them
/// when they are.
fn same_run(cycles: [&[u8]; 3], at: &mut [usize; 3], len: usize) -> bool {
    let [a, b, c] = cycles;
    match (
        a.get(at[0]..at[0] + len),
        b.get(at[1]..at[1] + len),
        c.get(at[2]..at[2] + len),
    ) {
        (Some(x), Some(y), Some(z)) if x == y && y == z => {
            for i in at.iter_mut() {
                *i += len;
            }
            true
        }
        _ => false,
    }
}

/// The length of the JSON string that `bytes` starts with, both quotes included; `None` when
/// it does not end.
fn string_len(bytes: &[u8]) -> Option<usize> {
    let mut k = 1;
    loop {
        k += bytes
            .get(k..)?
            .iter()
            .position(|&b| b == b'"' || b == b'\\')?;
        if bytes[k] == b'"' {
            return Some(k + 1);
        }
        // An escape: the next byte is part of it.
        k += 2;
    }
}

/// Whether `bytes[i]` continues a number or a word (a digit after a letter, a digit, `-`, `.`):
/// such digits are compared as literal bytes.
fn after_digit(bytes: &[u8], i: usize) -> bool {
    i > 0 && matches!(bytes[i - 1], b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' | b'-' | b'.' | b'_')
}

/// The run of digits at `bytes[i..]`: its value (`None` past `u64`) and where it ends.
fn integer(bytes: &[u8], i: usize) -> (Option<u64>, usize) {
    let mut end = i;
    let mut value = Some(0u64);
    while end < bytes.len() && bytes[end].is_ascii_digit() {
        let d = u64::from(bytes[end] - b'0');
        value = value
            .and_then(|v| v.checked_mul(10))
            .and_then(|v| v.checked_add(d));
        end += 1;
    }
    (value, end)
}

#[cfg(test)]
mod tests;
