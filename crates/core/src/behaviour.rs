//! How the application answers probes: the one seam between the engine and the scripts.

use core::any::Any;
use core::fmt;

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

use crate::cycle::Visitor;
use crate::spec::ProbeKind;
use crate::time::{SimDuration, SimTime};

/// What the application does with one probe attempt (docs/script-language.md#outcomes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Answer {
    /// An HTTP status code.
    Status(u16),
    /// The natural success for the handler (HTTP 200, TCP open, exit 0, SERVING).
    Ok,
    /// The natural failure for the handler (HTTP 500, TCP refused, exit 1, NOT_SERVING).
    Fail,
    /// The TCP port accepts connections.
    Open,
    /// The connection is refused.
    Refused,
    /// No answer before `timeoutSeconds`.
    Timeout,
    /// An exec command's exit status.
    Exit(i32),
    /// gRPC health `SERVING`.
    Serving,
    /// gRPC health `NOT_SERVING`.
    NotServing,
    /// gRPC health `UNKNOWN`.
    Unknown,
    /// The prober itself fails (P3, P40: retried, then discarded).
    Error,
}

impl fmt::Display for Answer {
    /// The script language's spelling.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Status(code) => write!(f, "{code}"),
            Answer::Ok => f.write_str("ok"),
            Answer::Fail => f.write_str("fail"),
            Answer::Open => f.write_str("open"),
            Answer::Refused => f.write_str("refused"),
            Answer::Timeout => f.write_str("timeout"),
            Answer::Exit(code) => write!(f, "exit {code}"),
            Answer::Serving => f.write_str("serving"),
            Answer::NotServing => f.write_str("not-serving"),
            Answer::Unknown => f.write_str("unknown"),
            Answer::Error => f.write_str("error"),
        }
    }
}

/// The handler families an answer can be meant for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandlerFamily {
    /// `exec`.
    Exec,
    /// `httpGet`.
    Http,
    /// `tcpSocket`.
    Tcp,
    /// `grpc`.
    Grpc,
}

impl HandlerFamily {
    /// The manifest's name for the handler.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            HandlerFamily::Exec => "exec",
            HandlerFamily::Http => "httpGet",
            HandlerFamily::Tcp => "tcpSocket",
            HandlerFamily::Grpc => "grpc",
        }
    }
}

impl Answer {
    /// Can this answer come from a probe of that handler? (`exit 1` cannot answer `httpGet`.)
    #[must_use]
    pub const fn applies_to(self, family: HandlerFamily) -> bool {
        match self {
            Answer::Ok | Answer::Fail | Answer::Error => true,
            Answer::Status(_) => matches!(family, HandlerFamily::Http | HandlerFamily::Tcp),
            Answer::Open => matches!(family, HandlerFamily::Tcp),
            Answer::Refused => !matches!(family, HandlerFamily::Exec),
            Answer::Timeout => true,
            Answer::Exit(_) => matches!(family, HandlerFamily::Exec),
            Answer::Serving | Answer::NotServing | Answer::Unknown => {
                matches!(family, HandlerFamily::Grpc)
            }
        }
    }
}

/// One probe attempt, as the application sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attempt {
    /// Index of the container: init containers first, then `spec.containers`
    /// (see [`PodSpec::container`](crate::spec::PodSpec::container)).
    pub container: usize,
    /// The probe type making the attempt.
    pub probe: ProbeKind,
    /// The container instance reached (0 for the first, +1 for each restart); a new value means
    /// a new process that remembers nothing.
    pub instance: u64,
    /// Time since that instance started.
    pub uptime: SimDuration,
    /// Time since the timeline origin (for `pod:`-scoped scripts).
    pub now: SimTime,
}

/// The application's answer to one attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Response {
    /// What it answers.
    pub answer: Answer,
    /// How long the answer takes to arrive.
    pub latency: SimDuration,
}

impl Response {
    /// An immediate answer.
    #[must_use]
    pub const fn now(answer: Answer) -> Response {
        Response {
            answer,
            latency: SimDuration::ZERO,
        }
    }
}

/// How an application answers probe attempts. Implemented by the script player and by closures
/// in tests. Called only by [`Simulation`](crate::sim::Simulation), in attempt order.
pub trait Behaviour {
    /// Answers one attempt. Must not allocate in steady state.
    fn respond(&mut self, attempt: &Attempt) -> Response;

    /// Answers one attempt, drawing any randomness from `draws`: the simulation's one seeded
    /// generator, so a run stays byte-identical per seed. The simulation calls this one; a
    /// behaviour that draws nothing keeps the default, which is [`Behaviour::respond`] (and
    /// then the generator is left untouched).
    fn respond_drawing(&mut self, attempt: &Attempt, draws: &mut Draws<'_>) -> Response {
        let _ = draws;
        self.respond(attempt)
    }

    /// The shortcuts this behaviour offers the engine, if any: a behaviour that can say more
    /// about itself than its answers (that it always gives the same one, or how its state is
    /// walked for fast-forward) implements [`BehaviourShortcuts`] and returns itself here. The
    /// default, `None`, is always safe: every attempt is asked, and the run is never jumped.
    fn shortcuts(&mut self) -> Option<&mut dyn BehaviourShortcuts> {
        None
    }

    /// What the answer just given printed (P63: an exec command's output, an HTTP body), as an
    /// index among [`Behaviour::text`]'s texts; `None` (the default) when it printed nothing.
    /// Asked right after each answer; it must not allocate.
    fn printed(&self) -> Option<u32> {
        None
    }

    /// The text number `index` (P63), kept for the behaviour's whole life; empty by default.
    fn text(&self, index: u32) -> &str {
        let _ = index;
        ""
    }

    /// A deep copy of this behaviour in its present state, sharing nothing with it, for
    /// [`Simulation::fork`](crate::sim::Simulation::fork): answering the same attempts, the
    /// copy and the original give the same answers. `None` (the default) when the behaviour
    /// cannot be copied (a closure); a simulation holding one cannot be forked.
    fn fork(&self) -> Option<Box<dyn Behaviour>> {
        None
    }

    /// The behaviour as [`Any`], so that its owner can reach its concrete type through
    /// [`Simulation::behaviour_mut`](crate::sim::Simulation::behaviour_mut) (to set, on a
    /// fork, what the copy does from now on); `None` by default.
    fn as_any_mut(&mut self) -> Option<&mut dyn Any> {
        None
    }
}

/// Opt-in acceleration for a [`Behaviour`], offered through [`Behaviour::shortcuts`]. None of
/// it changes an answer; each method's default is the safe one.
pub trait BehaviourShortcuts {
    /// Steady-state fast-forward ([`cycle`](crate::cycle)): walks the behaviour's state with
    /// `v` and returns `true`, or returns `false` when it cannot say (the default: the run then
    /// goes on step by step). `instances` is the next instance number of the one container
    /// whose probes use the behaviour (`None` when several containers share it): instance
    /// numbers are compared against it.
    fn visit_cycle(&mut self, v: &mut dyn Visitor, instances: Option<u64>) -> bool {
        let _ = (v, instances);
        false
    }

    /// Whether the next answers may still depend on [`Attempt::uptime`] (the default, `true`,
    /// is always safe). A behaviour that says `false` lets fast-forward treat a container that
    /// has run for long as the same container an hour later.
    fn reads_uptime(&self) -> bool {
        true
    }

    /// The one response this behaviour gives to every attempt, whatever the attempt and the
    /// attempts before it, drawing nothing (`200` forever), if it is such a behaviour. The
    /// simulation asks once, when the behaviour is added, and then answers with it without
    /// calling the behaviour; the default is `None` (call it every time).
    fn constant(&self) -> Option<Response> {
        None
    }
}

/// Access to the simulation's seeded generator for a [`Behaviour`], during one attempt.
/// Draws are taken in attempt order, so the same seed gives the same draws.
#[derive(Debug)]
pub struct Draws<'a> {
    rng: &'a mut ChaCha8Rng,
}

impl<'a> Draws<'a> {
    pub(crate) fn new(rng: &'a mut ChaCha8Rng) -> Draws<'a> {
        Draws { rng }
    }

    /// A uniform draw in `[0, bound)` (0, drawing nothing, when `bound` is 0 or 1).
    pub fn below(&mut self, bound: u64) -> u64 {
        if bound <= 1 {
            return 0;
        }
        let x = u128::from(self.rng.next_u64());
        u64::try_from((x * u128::from(bound)) >> 64).unwrap_or(0)
    }
}

/// A seeded generator of its own, for calling a [`Behaviour`] outside a simulation (tests of
/// a behaviour, tools); inside a simulation, behaviours draw from the simulation's generator.
#[derive(Clone, Debug)]
pub struct SeededDraws {
    rng: ChaCha8Rng,
}

impl SeededDraws {
    /// A generator seeded with `seed` (the same algorithm as the simulation's).
    #[must_use]
    pub fn new(seed: u64) -> SeededDraws {
        SeededDraws {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// Draws from this generator.
    pub fn draws(&mut self) -> Draws<'_> {
        Draws::new(&mut self.rng)
    }
}

/// A closure that draws: `Drawing(|attempt, draws| …)` is a [`Behaviour`] whose closure gets
/// the simulation's generator with each attempt.
#[derive(Clone, Copy, Debug)]
pub struct Drawing<F>(pub F);

impl<F: FnMut(&Attempt, &mut Draws<'_>) -> Response> Behaviour for Drawing<F> {
    /// Without a generator (outside a simulation) the closure draws from one seeded 0.
    fn respond(&mut self, attempt: &Attempt) -> Response {
        let mut own = SeededDraws::new(0);
        (self.0)(attempt, &mut own.draws())
    }

    fn respond_drawing(&mut self, attempt: &Attempt, draws: &mut Draws<'_>) -> Response {
        (self.0)(attempt, draws)
    }
}

impl<F: FnMut(&Attempt) -> Response> Behaviour for F {
    fn respond(&mut self, attempt: &Attempt) -> Response {
        self(attempt)
    }
}

/// The behaviour of a probe without a script: always `ok`, at once.
#[derive(Clone, Copy, Debug, Default)]
pub struct AlwaysOk;

impl Behaviour for AlwaysOk {
    fn respond(&mut self, _attempt: &Attempt) -> Response {
        Response::now(Answer::Ok)
    }

    fn fork(&self) -> Option<Box<dyn Behaviour>> {
        Some(Box::new(AlwaysOk))
    }

    fn shortcuts(&mut self) -> Option<&mut dyn BehaviourShortcuts> {
        Some(self)
    }
}

impl BehaviourShortcuts for AlwaysOk {
    fn visit_cycle(&mut self, _v: &mut dyn Visitor, _instances: Option<u64>) -> bool {
        true
    }

    fn reads_uptime(&self) -> bool {
        false
    }

    fn constant(&self) -> Option<Response> {
        Some(Response::now(Answer::Ok))
    }
}
