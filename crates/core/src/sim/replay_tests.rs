//! The engine's side of a listing's replay ([`Replay`]): when the state repeats and the sink
//! lists every event, the engine marks whole cycles in the event stream, asks the listing to
//! write the cycles it skips, and moves its state on by exactly those; a listing that cannot
//! replay leaves the run step by step.

use std::convert::Infallible;

use super::*;
use crate::cycle::Visitor;
use crate::sink::{Record, Replay, VecSink};
use crate::spec::{ContainerSpec, SelfExit};

/// A listing that keeps every event and notes the replay's steps; it takes up a replay, and
/// writes the cycles, only as told.
#[derive(Debug, Default)]
struct Listing {
    records: Vec<Record>,
    steps: Vec<Replay>,
    /// Where each mark fell in `records`.
    marks: Vec<usize>,
    begin: bool,
    emit: bool,
    /// Where replayed cycles would stand in `records`: the index, the cycles, their length.
    replayed: Vec<(usize, u64, SimDuration)>,
}

impl Sink for Listing {
    type Error = Infallible;

    fn event(&mut self, event: &Event<'_>) -> Result<Flow, Infallible> {
        self.records.push(Record::of(event));
        Ok(Flow::Continue)
    }

    fn visit_cycle(&mut self, v: &mut dyn Visitor) -> bool {
        v.listing();
        true
    }

    fn replay(&mut self, step: Replay) -> Result<bool, Infallible> {
        self.steps.push(step);
        Ok(match step {
            Replay::Begin => self.begin,
            Replay::Mark => {
                self.marks.push(self.records.len());
                true
            }
            Replay::Emit { cycles, period } => {
                let ready = self.emit && self.marks.len() >= 3;
                if ready {
                    self.replayed.push((self.records.len(), cycles, period));
                }
                ready
            }
            Replay::End => true,
        })
    }
}

/// A container that exits with 1 two seconds after each start, restarted with back-off (R27):
/// once the back-off reaches its cap the run repeats.
fn crash_loop() -> Simulation {
    let mut c = ContainerSpec::new("app", "example/app:1.0");
    c.app.exit = Some(SelfExit {
        code: 1,
        after: SimDuration::from_secs(2),
    });
    let pod = PodSpec::new("crash").with_container(c);
    let behaviours = Behaviours::new(&pod);
    Simulation::new(
        pod,
        Profile::newest(),
        KubeletConfig::default(),
        0,
        behaviours,
    )
}

const DAY: SimTime = SimTime::from_secs(24 * 3600);

/// Every event of a day step by step.
fn step_by_step() -> Vec<Record> {
    let mut sim = crash_loop();
    sim.set_fast_forward(false);
    let mut sink = VecSink::default();
    sim.run_until(DAY, &mut sink).expect("run");
    sink.records
}

/// A day into a listing that takes up a replay or not, and writes the cycles or not.
fn listed(begin: bool, emit: bool) -> (Listing, SimDuration) {
    let mut sim = crash_loop();
    let mut sink = Listing {
        begin,
        emit,
        ..Listing::default()
    };
    sim.run_until(DAY, &mut sink).expect("run");
    (sink, sim.fast_forwarded())
}

#[test]
fn the_engine_skips_exactly_the_cycles_the_listing_replays() {
    let full = step_by_step();
    let (listing, skipped) = listed(true, true);
    let [(at, cycles, period)] = listing.replayed[..] else {
        panic!("one replay expected: {:?}", listing.steps);
    };
    assert_eq!(
        skipped,
        SimDuration::from_millis(period.as_millis() * cycles)
    );
    // Begin, then a mark per kept cycle with a request to write after each, then the end.
    assert_eq!(listing.steps[0], Replay::Begin);
    assert_eq!(listing.steps.last(), Some(&Replay::End));
    assert_eq!(listing.marks.len(), 3);
    assert_eq!(*listing.marks.last().expect("marks"), at);
    // Before the replay, the events are the step-by-step ones.
    assert_eq!(full[..at], listing.records[..at]);
    // The step-by-step run repeats the last kept cycle `cycles` times, one period apart each.
    let last = &listing.records[listing.marks[1]..at];
    assert!(!last.is_empty());
    let n = last.len();
    for j in 0..cycles {
        let shift = period.as_millis() * (j + 1);
        for (i, kept) in last.iter().enumerate() {
            let e = &full[at + usize::try_from(j).expect("small") * n + i];
            assert_eq!(
                e.t.as_millis(),
                kept.t.as_millis() + shift,
                "{e:?} / {kept:?}"
            );
            assert_eq!((e.kind, &e.container), (kept.kind, &kept.container));
        }
    }
    // After it, the events are the step-by-step ones again, restart counts and all.
    let after = at + usize::try_from(cycles).expect("small") * n;
    assert_eq!(full[after..], listing.records[at..]);
    assert!(
        full.len() > after,
        "the run goes on after the replayed cycles"
    );
}

#[test]
fn a_listing_that_cannot_write_the_cycles_gets_every_event() {
    let full = step_by_step();
    let (listing, skipped) = listed(true, false);
    assert_eq!(skipped, SimDuration::ZERO);
    assert_eq!(listing.records, full);
    // It was asked a few times, then fast-forward gave up: Begin and End once each.
    let count = |s: Replay| listing.steps.iter().filter(|&&x| x == s).count();
    assert_eq!((count(Replay::Begin), count(Replay::End)), (1, 1));
    assert_eq!(listing.marks.len(), 4);
    assert_eq!(listing.steps.last(), Some(&Replay::End));
    // A listing that does not even keep cycles is asked once.
    let (listing, skipped) = listed(false, false);
    assert_eq!(skipped, SimDuration::ZERO);
    assert_eq!(listing.records, full);
    assert_eq!(listing.steps, [Replay::Begin]);
}
