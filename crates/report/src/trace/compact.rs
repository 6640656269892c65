//! Keeping a periodic run bounded while it is recorded, and reading it back whole.
//!
//! A crash loop at the back-off cap repeats the same cycle for as long as the run goes on: a
//! year of kubia is 121,296 restarts of 27 facts each. `Compactor` watches the segments
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
//! Readers that need less than every fact take a gap for less than its repetitions: a count
//! ([`Trace::count`]) reads the template once; a reader of some kinds of fact
//! ([`Trace::replay_where`]) builds only those; a reader that summarises ([`Periodic`],
//! [`Trace::read`]) walks repetitions until one leaves its state as it found it, moved on by
//! the cycle, and takes the rest by their count.

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
    /// What [`same`] compares, folded into a word ([`signature`]): unequal words, different
    /// segments; equal ones are compared in full.
    sig: u64,
}

/// A segment's length, its facts' offsets, kinds and containers, folded into one word once,
/// when it closes: most comparisons end there.
fn signature(items: &[Item], t0: SimTime, t1: SimTime) -> u64 {
    let mut h = t1.saturating_since(t0).as_millis() ^ ((items.len() as u64) << 48);
    for x in items {
        let kind = match x.what {
            What::Probe { .. } => 1,
            What::Result { .. } => 2,
            What::Kill { .. } => 3,
            What::Exit { .. } => 4,
            What::Start { .. } => 5,
            What::BackOff { .. } => 6,
            What::Ready { .. } => 7,
            What::PodReady { .. } => 8,
            What::Phase { .. } => 9,
            What::Event { .. } => 10,
            What::Delete { .. } => 11,
            What::Deleted => 12,
            What::KubeletRestart => 13,
            What::Gap { .. } => 14,
        };
        let c = x.what.container().map_or(0, |c| c as u64 + 1);
        let word = (x.t.saturating_since(t0).as_millis() << 12) ^ (c << 4) ^ kind;
        h = (h ^ word).wrapping_mul(0x0100_0000_01b3).rotate_left(29);
    }
    h
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

/// Leaving repetitions out: each new fact is checked against the template's fact at the same
/// place as it comes (one comparison a fact, no search), `[.. template][gap][kept][current]`.
#[derive(Debug)]
struct Eliding {
    /// The template's first item and its length.
    from: usize,
    len: usize,
    /// The template's start and the cycle's length, in milliseconds.
    t0: u64,
    cycle: u64,
    /// Where the gap item is (the kept repetition follows it).
    gap: usize,
    /// The current repetition's start, in milliseconds, and how many of its facts came.
    base: u64,
    pos: usize,
}

impl Eliding {
    /// Whether the fact just pushed continues the repeats (a whole repetition more is counted
    /// in the gap when the next one begins on time, which proves its last segment as long as
    /// the template's).
    #[inline]
    fn follow(&mut self, items: &mut Vec<Item>) -> bool {
        let (pos, base) = if self.pos == self.len {
            (0, self.base.saturating_add(self.cycle))
        } else {
            (self.pos, self.base)
        };
        // Compared in place: a fact is six words, and most continue the repeats.
        let (x, e) = (&items[items.len() - 1], &items[self.from + pos]);
        let on_time = x.t.as_millis().checked_sub(base) == e.t.as_millis().checked_sub(self.t0);
        if !on_time || !x.what.same_shape(&e.what) {
            return false;
        }
        if self.pos == self.len {
            // The current repetition is whole: it replaces the kept one, which the gap counts.
            let kept = self.gap + 1;
            items.copy_within(kept + self.len.., kept);
            items.truncate(items.len() - self.len);
            if let What::Gap { times, .. } = &mut items[self.gap].what {
                *times += 1;
            }
        }
        self.pos = pos + 1;
        self.base = base;
        true
    }
}

/// Whether two segments are the same cycle: the same length, the same facts at the same offsets
/// (as [`What::shape`]s).
fn same(items: &[Item], a: Seg, b: Seg) -> bool {
    a.sig == b.sig
        && a.t1.saturating_since(a.t0) == b.t1.saturating_since(b.t0)
        && a.to - a.from == b.to - b.from
        && items[a.from..a.to]
            .iter()
            .zip(&items[b.from..b.to])
            .all(|(x, y)| {
                x.t.saturating_since(a.t0) == y.t.saturating_since(b.t0)
                    && x.what.same_shape(&y.what)
            })
}

/// Whether an item begins a segment ([`super::fold`]'s cut).
pub(super) const fn is_cut(what: &What) -> bool {
    matches!(what, What::Start { .. } | What::PodReady { ready: true })
}

impl Compactor {
    /// Takes note of the item just pushed at the end of `items`.
    #[inline]
    pub(super) fn pushed(&mut self, items: &mut Vec<Item>) {
        // Most facts of a long run continue the repeats: that test is made where the fact
        // is pushed, the rest is a call.
        if let Some(e) = &mut self.eliding {
            if e.follow(items) {
                return;
            }
        }
        self.watch(items);
    }

    /// [`Compactor::pushed`] for a fact that does not continue the repeats.
    fn watch(&mut self, items: &mut Vec<Item>) {
        if let Some(e) = &mut self.eliding {
            // The repeats are over: watch afresh from the current repetition on.
            let start = e.gap + 1 + e.len;
            self.open = (start, SimTime::from_millis(e.base));
            self.eliding = None;
            self.recent.clear();
            self.run = [0; MAX_BLOCK + 1];
        }
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
            sig: signature(&items[self.open.0..p], self.open.1, item.t),
        };
        self.open = (p, item.t);
        self.recent.push(seg);
        if self.recent.len() > 2 * MAX_BLOCK {
            self.recent.remove(0);
        }
        let n = self.recent.len();
        let mut found = None;
        // The shortest period the newest segment continues: when the run of that period `p`
        // covers the segments `p`, `2p`, … back, the newest equals the one `k` back for every
        // multiple `k` of `p`, without a comparison.
        let mut period: Option<usize> = None;
        for k in 1..=MAX_BLOCK {
            let implied = period.is_some_and(|p| k % p == 0 && self.run[p] > (k - p) as u64);
            if n > k && (implied || same(items, self.recent[n - 1 - k], seg)) {
                self.run[k] += 1;
                period.get_or_insert(k);
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
        // [.. template][last block][cut]: a gap (none left out yet) goes before the last block,
        // which is kept; the cut begins the current repetition.
        let (template, last) = (self.recent[n - 2 * k], self.recent[n - k]);
        let len = last.from - template.from;
        let at = last.from;
        items.insert(
            at,
            Item {
                t: last.t0,
                what: What::Gap {
                    times: 0,
                    len: u32::try_from(len).unwrap_or(u32::MAX),
                    cycle: last.t0.saturating_since(template.t0),
                },
            },
        );
        let mut e = Eliding {
            from: template.from,
            len,
            t0: template.t0.as_millis(),
            cycle: last.t0.saturating_since(template.t0).as_millis(),
            gap: at,
            base: items[items.len() - 1].t.as_millis(),
            pos: 0,
        };
        self.recent.clear();
        if e.follow(items) {
            self.eliding = Some(e);
        } else {
            self.open = (items.len() - 1, items[items.len() - 1].t);
        }
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
    /// Inside the gap at `i`: the repetition (1-based, 0 outside a gap).
    rep: u64,
    /// Repetitions the gap stands for.
    times: u64,
    /// The template's first item, its length and the position in it.
    start: usize,
    len: usize,
    j: usize,
    /// The repetition's length, and how far the current one is moved.
    cycle: u64,
    shift: u64,
    /// For each template item, what one repetition adds to its count.
    incs: Vec<u32>,
}

impl Trace {
    /// Items `from..to` as recorded, gaps expanded ([`Expand`]).
    #[must_use]
    pub fn expand(&self, from: usize, to: usize) -> Expand<'_> {
        Expand {
            items: &self.items,
            i: from,
            end: to.min(self.items.len()),
            rep: 0,
            times: 0,
            start: 0,
            len: 0,
            j: 0,
            cycle: 0,
            shift: 0,
            incs: Vec::new(),
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
fn increments(template: &[Item], out: &mut Vec<u32>) {
    out.clear();
    out.extend(template.iter().map(|x| {
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
    }));
}

/// `x`'s count moved on by `by` (a restart count or an Event's count).
#[inline]
fn counted(x: &mut Item, by: u64) {
    let by = u32::try_from(by).unwrap_or(u32::MAX);
    match &mut x.what {
        What::Start { restart_count, .. } => *restart_count = restart_count.saturating_add(by),
        What::Event { count, .. } => *count = count.saturating_add(by),
        _ => {}
    }
}

/// `t` moved on by `by` milliseconds.
#[inline]
fn later(t: SimTime, by: u64) -> SimTime {
    SimTime::from_millis(t.as_millis().saturating_add(by))
}

impl Expand<'_> {
    /// At the gap at `i`: sets its first repetition up, or steps over it when it stands for
    /// nothing.
    fn enter(&mut self) {
        let What::Gap { times, len, cycle } = self.items[self.i].what else {
            return;
        };
        let len = len as usize;
        if times == 0 || len == 0 || len > self.i {
            self.i += 1;
            return;
        }
        self.rep = 1;
        self.times = times;
        self.start = self.i - len;
        self.len = len;
        self.j = 0;
        self.cycle = cycle.as_millis();
        self.shift = self.cycle;
        increments(&self.items[self.start..self.i], &mut self.incs);
    }

    /// Inside a gap: on to the template's next fact, the next repetition after its last, and
    /// past the gap after the last repetition.
    #[inline]
    fn step(&mut self) {
        self.j += 1;
        if self.j == self.len {
            self.j = 0;
            self.rep += 1;
            self.shift = self.shift.saturating_add(self.cycle);
            if self.rep > self.times {
                self.rep = 0;
                self.i += 1;
            }
        }
    }
}

impl Iterator for Expand<'_> {
    type Item = (usize, Item);

    #[inline]
    fn next(&mut self) -> Option<(usize, Item)> {
        if self.rep == 0 {
            let item = *self.items.get(self.i).filter(|_| self.i < self.end)?;
            if !matches!(item.what, What::Gap { .. }) {
                self.i += 1;
                return Some((self.i - 1, item));
            }
            self.enter();
            return self.next();
        }
        let src = self.start + self.j;
        let mut out = self.items[src];
        out.t = later(out.t, self.shift);
        let inc = self.incs[self.j];
        if inc != 0 {
            counted(&mut out, self.rep.saturating_mul(u64::from(inc)));
        }
        self.step();
        Some((src, out))
    }
}

/// A reader of the run as recorded that can take a gap's repetitions by their count
/// ([`Trace::read`]): one that only counts or summarises, whose state after a repetition is
/// the state before it moved on by the cycle (its times later by the cycle, its counters
/// higher), does the same in every repetition after.
///
/// What it decides must depend only on the facts' shapes, their times relative to each other
/// and its own state but its counters: the repetitions differ in nothing else (a restart count
/// or an Event's count grows, but never from zero to more within a gap).
pub(crate) trait Periodic: Clone {
    /// Reads one fact.
    fn fact(&mut self, x: &Item);
    /// Whether the repetition just read from `before`, which began at `from`, leaves the state
    /// as `before`'s moved on by `cycle`, counters aside: then the next one does the same.
    fn steady(&self, before: &Self, cycle: SimDuration, from: SimTime) -> bool;
    /// Does `n` more repetitions like the one just read from `before`.
    fn repeat(&mut self, before: &Self, n: u64, cycle: SimDuration);
}

impl Trace {
    /// Hands `r` the run as recorded ([`Trace::replay`]'s facts, in order), a gap's
    /// repetitions one by one until `r` is [`Periodic::steady`], the rest by their count.
    pub(crate) fn read<R: Periodic>(&self, r: &mut R) {
        let mut incs = Vec::new();
        for (i, x) in self.items.iter().enumerate() {
            let What::Gap { times, len, cycle } = x.what else {
                r.fact(x);
                continue;
            };
            let len = len as usize;
            if times == 0 || len == 0 || len > i {
                continue;
            }
            let template = &self.items[i - len..i];
            increments(template, &mut incs);
            let step = cycle.as_millis();
            for rep in 1..=times {
                let before = r.clone();
                let shift = step.saturating_mul(rep);
                for (y, &inc) in template.iter().zip(&incs) {
                    let mut y = *y;
                    y.t = later(y.t, shift);
                    if inc != 0 {
                        counted(&mut y, rep.saturating_mul(u64::from(inc)));
                    }
                    r.fact(&y);
                }
                if rep < times && r.steady(&before, cycle, later(template[0].t, shift)) {
                    r.repeat(&before, times - rep, cycle);
                    break;
                }
            }
        }
    }
}

/// `t` moved on by `n` cycles.
#[inline]
pub(crate) fn ahead(t: SimTime, cycle: SimDuration, n: u64) -> SimTime {
    later(t, cycle.as_millis().saturating_mul(n))
}

impl Trace {
    /// How many facts of items `from..to` as recorded ([`Trace::expand`]) `pred` takes: a
    /// gap's by its count, its template read once.
    #[must_use]
    pub fn count(&self, from: usize, to: usize, pred: impl Fn(&What) -> bool) -> u64 {
        let to = to.min(self.items.len());
        (from..to)
            .map(|i| match self.items[i].what {
                What::Gap { times, len, .. } => {
                    let len = len as usize;
                    if times == 0 || len == 0 || len > i {
                        return 0;
                    }
                    let n = self.items[i - len..i]
                        .iter()
                        .filter(|x| pred(&x.what))
                        .count();
                    times.saturating_mul(n as u64)
                }
                ref what => u64::from(pred(what)),
            })
            .sum()
    }

    /// The facts of the run as recorded ([`Trace::replay`]) that `pred` takes, in order: a
    /// left-out fact is looked at in its template and moved on only when it is taken (so
    /// `pred` looks at kinds and containers, not at times or counts; [`Trace::count`] too).
    pub fn replay_where<P: Fn(&What) -> bool>(&self, pred: P) -> Where<'_, P> {
        Where {
            inner: self.replay(),
            pred,
        }
    }
}

/// [`Trace::replay_where`]'s facts.
#[derive(Debug)]
pub struct Where<'a, P> {
    inner: Expand<'a>,
    pred: P,
}

impl<P: Fn(&What) -> bool> Iterator for Where<'_, P> {
    type Item = (usize, Item);

    #[inline]
    fn next(&mut self) -> Option<(usize, Item)> {
        let e = &mut self.inner;
        loop {
            if e.rep == 0 {
                let item = e.items.get(e.i).filter(|_| e.i < e.end)?;
                if !matches!(item.what, What::Gap { .. }) {
                    e.i += 1;
                    if (self.pred)(&item.what) {
                        return Some((e.i - 1, *item));
                    }
                    continue;
                }
                e.enter();
                continue;
            }
            // Inside a gap: skip the template's facts not taken without building them.
            let src = e.start + e.j;
            if (self.pred)(&e.items[src].what) {
                return e.next();
            }
            e.step();
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
    #[inline]
    pub(super) fn get(&self, v: usize) -> Item {
        match self.gap_before(v) {
            None => self.items[v],
            Some(g) => {
                let (i, v0, n, len, cycle) = self.gaps[g];
                if v < v0 + n {
                    let k = v - v0;
                    let m = (k / len) as u64 + 1;
                    let mut x = self.items[i - len + k % len];
                    x.t = later(x.t, cycle.as_millis().saturating_mul(m));
                    x
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
