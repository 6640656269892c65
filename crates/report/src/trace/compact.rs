//! Keeping a periodic run bounded while it is recorded, and reading it back whole.
//!
//! A crash loop at the back-off cap repeats the same cycle for as long as the run goes on: a
//! year of kubia is 121,296 restarts of 27 facts each. [`Compactor`] watches the segments
//! [`fold`](super::fold) cuts the run into (at every container start and every time the pod
//! becomes Ready), and once the same block of 1 to 16 segments has repeated
//! [`KEEP`] times in a row, it stops keeping further repetitions: it keeps the block before
//! (the template), a [`What::Gap`] that counts the repetitions left out, and the latest
//! repetition (so that what follows the repeats is preceded by its real last cycle). Detection
//! costs one comparison per segment and block size, when a segment closes: never a search.
//!
//! [`Trace::expand`] reads the trace back as it was recorded, each gap replaced by its
//! repetitions of the template moved by the cycle's length (restart counts and Event counts
//! moved on as they grow); only the spam filter's verdict of a left-out Event is the template's.

use probesim_core::{SimDuration, SimTime};

use super::{Item, Trace, What};

/// The longest block of segments looked for: longer than [`super::fold`]'s, because a run
/// read back whole needs no fold of its own (a fix measured by a run changed may repeat every
/// five or more restarts).
const MAX_BLOCK: usize = 16;

/// How many repetitions of a block are kept before further ones are counted instead.
pub const KEEP: u64 = 64;

/// A closed segment: its first item, one past its last, and its start and end times.
#[derive(Clone, Copy, Debug)]
struct Seg {
    from: usize,
    to: usize,
    t0: SimTime,
    t1: SimTime,
}

/// The most facts a segment holds before a probe run cuts it.
const LONG: usize = 64;

/// Folding repetitions while they are recorded (see the module).
#[derive(Debug, Default)]
pub(super) struct Compactor {
    /// The current segment's first item and start time.
    open: (usize, SimTime),
    /// The last closed segments, oldest first (at most `2 * MAX_BLOCK`).
    recent: Vec<Seg>,
    /// `run[k]`: how many closed segments in a row equal the one `k` before.
    run: [u64; MAX_BLOCK + 1],
    /// Leaving repetitions out.
    eliding: Option<Eliding>,
}

#[derive(Debug)]
struct Eliding {
    /// The template's segments (the block before the gap).
    template: Vec<Seg>,
    /// Where the gap item is.
    gap: usize,
    /// How many segments of the current repetition matched so far.
    matched: usize,
}

/// Whether two segments are the same cycle: the same length, the same facts at the same offsets
/// (as [`What::shape`]s).
fn same(items: &[Item], a: Seg, b: Seg) -> bool {
    a.t1.saturating_since(a.t0) == b.t1.saturating_since(b.t0)
        && a.to - a.from == b.to - b.from
        && items[a.from..a.to]
            .iter()
            .zip(&items[b.from..b.to])
            .all(|(x, y)| {
                x.t.saturating_since(a.t0) == y.t.saturating_since(b.t0)
                    && x.what.shape() == y.what.shape()
            })
}

/// Whether an item begins a segment ([`super::fold`]'s cut).
pub(super) const fn is_cut(what: &What) -> bool {
    matches!(what, What::Start { .. } | What::PodReady { ready: true })
}

impl Compactor {
    /// Takes note of the item just pushed at the end of `items`.
    pub(super) fn pushed(&mut self, items: &mut Vec<Item>) {
        let p = items.len() - 1;
        let item = items[p];
        // Where the fold cuts, or in a run without restarts (a fix that works: nothing but
        // probe runs) at a probe run once the segment holds [`LONG`] facts. Where the cuts
        // fall changes nothing read back: a gap stands for exactly what it left out.
        let cut = is_cut(&item.what)
            || (matches!(item.what, What::Probe { .. }) && p - self.open.0 >= LONG);
        if !cut || item.t <= self.open.1 {
            return;
        }
        let seg = Seg {
            from: self.open.0,
            to: p,
            t0: self.open.1,
            t1: item.t,
        };
        self.open = (p, item.t);
        if let Some(e) = &mut self.eliding {
            let template = e.template[e.matched];
            if !same(items, template, seg) {
                // The repeats are over: start watching afresh.
                self.eliding = None;
                self.recent.clear();
                self.run = [0; MAX_BLOCK + 1];
                self.recent.push(seg);
                return;
            }
            e.matched += 1;
            if e.matched < e.template.len() {
                return;
            }
            // A whole repetition more: the one kept before it is counted instead.
            e.matched = 0;
            let len = e.template.last().map_or(0, |s| s.to) - e.template[0].from;
            let kept = e.gap + 1;
            items.drain(kept..kept + len);
            self.open.0 -= len;
            if let What::Gap { times, .. } = &mut items[e.gap].what {
                *times += 1;
            }
            return;
        }
        self.recent.push(seg);
        if self.recent.len() > 2 * MAX_BLOCK {
            self.recent.remove(0);
        }
        let n = self.recent.len();
        let mut found = None;
        for k in 1..=MAX_BLOCK {
            if n > k && same(items, self.recent[n - 1 - k], seg) {
                self.run[k] += 1;
            } else {
                self.run[k] = 0;
            }
            // `KEEP` repetitions after the first, ending at a whole block.
            let k64 = k as u64;
            if found.is_none() && self.run[k] >= KEEP * k64 && self.run[k] % k64 == 0 && n >= 2 * k
            {
                found = Some(k);
            }
        }
        let Some(k) = found else {
            return;
        };
        // [.. template][last block][cut]: a gap (none left out yet) goes before the last block.
        let template: Vec<Seg> = self.recent[n - 2 * k..n - k].to_vec();
        let last = self.recent[n - k];
        let len = template[k - 1].to - template[0].from;
        let cycle = last.t0.saturating_since(template[0].t0);
        let at = last.from;
        items.insert(
            at,
            Item {
                t: last.t0,
                what: What::Gap {
                    times: 0,
                    len: u32::try_from(len).unwrap_or(u32::MAX),
                    cycle,
                },
            },
        );
        self.open.0 += 1;
        self.eliding = Some(Eliding {
            template,
            gap: at,
            matched: 0,
        });
        self.recent.clear();
    }
}

/// Removes the gaps that left nothing out.
pub(super) fn tidy(items: &mut Vec<Item>) {
    items.retain(|i| !matches!(i.what, What::Gap { times: 0, .. }));
}

/// The trace's items from `from` to `to` as recorded, each gap replaced by what it left out:
/// `(index, item)`, where the index of a left-out item is its template's.
#[derive(Debug)]
pub struct Expand<'a> {
    items: &'a [Item],
    i: usize,
    end: usize,
    /// Inside a gap at `i`: the repetition (1-based), the position in it, and for each
    /// template item what one repetition adds to its count.
    gap: Option<(u64, usize, Vec<u32>)>,
}

impl Trace {
    /// Items `from..to` as recorded, gaps expanded ([`Expand`]).
    #[must_use]
    pub fn expand(&self, from: usize, to: usize) -> Expand<'_> {
        Expand {
            items: &self.items,
            i: from,
            end: to.min(self.items.len()),
            gap: None,
        }
    }

    /// The whole run as recorded ([`Trace::expand`]).
    #[must_use]
    pub fn replay(&self) -> Expand<'_> {
        self.expand(0, self.items.len())
    }

    /// How many facts the trace holds (what its memory grows with): a periodic run keeps a
    /// bounded number however long it goes on.
    #[must_use]
    pub fn retained(&self) -> usize {
        self.items.len()
    }

    /// How many facts the run recorded, the left-out repetitions included.
    #[must_use]
    pub fn recorded(&self) -> u64 {
        self.items
            .iter()
            .map(|i| match i.what {
                What::Gap { times, len, .. } => times * u64::from(len),
                _ => 1,
            })
            .sum()
    }
}

/// What one repetition of `template` adds to each of its items' counts: restart counts grow by
/// the container's starts in a cycle, Event counts by the Event's occurrences.
fn increments(template: &[Item]) -> Vec<u32> {
    template
        .iter()
        .map(|x| {
            let n = match x.what {
                What::Start { c, .. } => template
                    .iter()
                    .filter(|y| matches!(y.what, What::Start { c: yc, .. } if yc == c))
                    .count(),
                What::Event { .. } => template
                    .iter()
                    .filter(|y| y.what.shape() == x.what.shape())
                    .count(),
                _ => 0,
            };
            u32::try_from(n).unwrap_or(u32::MAX)
        })
        .collect()
}

/// `x` moved on by `m` repetitions of `cycle`, its count by `m * inc`.
fn moved(x: Item, m: u64, cycle: SimDuration, inc: u32) -> Item {
    let by = u32::try_from(m.saturating_mul(u64::from(inc))).unwrap_or(u32::MAX);
    let t = SimTime::from_millis(
        x.t.as_millis()
            .saturating_add(cycle.as_millis().saturating_mul(m)),
    );
    let what = match x.what {
        What::Start { c, restart_count } => What::Start {
            c,
            restart_count: restart_count.saturating_add(by),
        },
        What::Event {
            c,
            event_type,
            reason,
            message,
            count,
            sent,
        } => What::Event {
            c,
            event_type,
            reason,
            message,
            count: count.saturating_add(by),
            sent,
        },
        other => other,
    };
    Item { t, what }
}

impl Iterator for Expand<'_> {
    type Item = (usize, Item);

    fn next(&mut self) -> Option<(usize, Item)> {
        loop {
            if self.i >= self.end {
                return None;
            }
            let item = self.items[self.i];
            let What::Gap { times, len, cycle } = item.what else {
                self.i += 1;
                return Some((self.i - 1, item));
            };
            let len = len as usize;
            let start = self.i.saturating_sub(len);
            let (m, j, incs) = self
                .gap
                .get_or_insert_with(|| (1, 0, increments(&self.items[start..self.i])));
            if *m > times || len == 0 {
                self.gap = None;
                self.i += 1;
                continue;
            }
            let src = start + *j;
            let out = moved(self.items[src], *m, cycle, incs[*j]);
            *j += 1;
            if *j == len {
                *j = 0;
                *m += 1;
            }
            return Some((src, out));
        }
    }
}

/// Random access to the items as recorded, by their index in [`Trace::replay`]'s order.
#[derive(Debug)]
pub(super) struct Virtual<'a> {
    items: &'a [Item],
    /// Per gap: its index, the first virtual index it stands for, how many, its template's
    /// length and its cycle.
    gaps: Vec<(usize, usize, usize, usize, SimDuration)>,
    len: usize,
}

impl<'a> Virtual<'a> {
    pub(super) fn new(items: &'a [Item]) -> Virtual<'a> {
        let mut gaps = Vec::new();
        let mut v = 0;
        for (i, item) in items.iter().enumerate() {
            if let What::Gap { times, len, cycle } = item.what {
                let n = usize::try_from(times)
                    .unwrap_or(usize::MAX)
                    .saturating_mul(len as usize);
                gaps.push((i, v, n, len as usize, cycle));
                v += n;
            } else {
                v += 1;
            }
        }
        Virtual {
            items,
            gaps,
            len: v,
        }
    }

    /// How many items the run recorded.
    pub(super) const fn len(&self) -> usize {
        self.len
    }

    /// The gap before or at virtual index `v`, if any: its position in `gaps`.
    fn gap_before(&self, v: usize) -> Option<usize> {
        self.gaps.partition_point(|g| g.1 <= v).checked_sub(1)
    }

    /// The item at virtual index `v`, its time and shape exact (its counts may not be).
    pub(super) fn get(&self, v: usize) -> Item {
        match self.gap_before(v) {
            None => self.items[v],
            Some(g) => {
                let (i, v0, n, len, cycle) = self.gaps[g];
                if v < v0 + n {
                    let k = v - v0;
                    let m = (k / len) as u64 + 1;
                    moved(self.items[i - len + k % len], m, cycle, 0)
                } else {
                    self.items[self.physical(v)]
                }
            }
        }
    }

    /// The index in the trace of virtual index `v` (a gap's own for the items it left out; the
    /// trace's length for the end).
    pub(super) fn physical(&self, v: usize) -> usize {
        match self.gap_before(v) {
            None => v,
            Some(g) => {
                let (i, v0, n, _, _) = self.gaps[g];
                if v < v0 + n {
                    i
                } else {
                    // Every gap so far stands for its count of items in one slot.
                    let hidden: usize = self.gaps[..=g].iter().map(|g| g.2).sum::<usize>();
                    v + g + 1 - hidden
                }
            }
        }
    }
}

/// A gap's cuts: the first left-out repetition's, moved on for the others.
#[derive(Debug)]
struct CutRun {
    /// The number of its first cut.
    first: usize,
    /// Where the first repetition's cuts are in [`Cuts::list`].
    at: usize,
    /// Cuts per repetition.
    per: usize,
    /// Repetitions.
    reps: usize,
    /// Items per repetition.
    items: usize,
    /// The length of a repetition.
    cycle: SimDuration,
    /// How many cuts the runs before this one stand for without a place in the list.
    hidden: usize,
}

/// The segment boundaries of the run as recorded ([`super::fold`]'s cuts: the virtual index
/// and time of every cut, and the run's ends), bounded as the trace is: a gap's repetitions
/// are cut where its first one is, moved on by the cycle.
#[derive(Debug)]
pub(super) struct Cuts {
    list: Vec<(usize, SimTime)>,
    runs: Vec<CutRun>,
    len: usize,
}

impl Cuts {
    pub(super) fn new(v: &Virtual<'_>, end: SimTime) -> Cuts {
        let mut list = vec![(0, SimTime::ZERO)];
        let mut runs: Vec<CutRun> = Vec::new();
        let mut n = 1;
        let mut last = SimTime::ZERO;
        let mut hidden = 0;
        let scan = |from: usize,
                    to: usize,
                    list: &mut Vec<(usize, SimTime)>,
                    n: &mut usize,
                    last: &mut SimTime| {
            for i in from..to {
                let item = v.get(i);
                // A new instance, or the pod becoming Ready (a pod that never restarts still
                // cycles).
                if is_cut(&item.what) && item.t > *last {
                    list.push((i, item.t));
                    *n += 1;
                    *last = item.t;
                }
            }
        };
        let mut i = 0;
        for &(_, v0, count, len, cycle) in &v.gaps {
            scan(i, v0, &mut list, &mut n, &mut last);
            if len == 0 || count == 0 {
                i = v0 + count;
                continue;
            }
            let (first, at) = (n, list.len());
            scan(v0, v0 + len, &mut list, &mut n, &mut last);
            let per = n - first;
            let reps = count / len;
            if per > 0 && reps > 1 {
                let more = reps - 1;
                runs.push(CutRun {
                    first,
                    at,
                    per,
                    reps,
                    items: len,
                    cycle,
                    hidden,
                });
                hidden += per * more;
                n += per * more;
                last = shift(last, cycle, more);
            }
            i = v0 + count;
        }
        scan(i, v.len(), &mut list, &mut n, &mut last);
        list.push((v.len(), end.max(last)));
        Cuts {
            list,
            runs,
            len: n + 1,
        }
    }

    /// How many cuts (the ends included).
    pub(super) const fn len(&self) -> usize {
        self.len
    }

    /// Cut `j`: its virtual index and time.
    pub(super) fn get(&self, j: usize) -> (usize, SimTime) {
        let Some(r) = self.runs.partition_point(|r| r.first <= j).checked_sub(1) else {
            return self.list[j];
        };
        let r = &self.runs[r];
        let k = j - r.first;
        if k < r.per * r.reps {
            let (m, o) = (k / r.per, k % r.per);
            let (i, t) = self.list[r.at + o];
            (i + m * r.items, shift(t, r.cycle, m))
        } else {
            self.list[j - r.hidden - r.per * (r.reps - 1)]
        }
    }
}

/// `t` moved on by `m` cycles.
fn shift(t: SimTime, cycle: SimDuration, m: usize) -> SimTime {
    SimTime::from_millis(
        t.as_millis()
            .saturating_add(cycle.as_millis().saturating_mul(m as u64)),
    )
}
