//! Figures as typed values: each extreme carries the phase that produced it.

use core::fmt;

use probesim_core::SimDuration;

/// Where the grids fell in one simulation: the container start and the moment the application
/// changed, against the probe workers' tick grid (which starts when the pod's workers are
/// created, P15) and the PLEG relist grid, and the seed of the kubelet's random draws. (The
/// pod's lifecycle phase, `Pending` to `Failed`, is the core's `Phase`.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct GridPhase {
    /// The container's start, modulo the grid cycle (the least common multiple of the probe
    /// periods of every container in the pod and the relist period).
    pub start: SimDuration,
    /// The application's change (hang, failure), when the figure has one, modulo the least
    /// common multiple of the grid cycle and the kubelet's resync period
    /// ([`GridPhaseSpace::change_cycle`]): what follows a change also depends on where it falls
    /// against the periodic resync.
    pub change: Option<SimDuration>,
    /// The seed, when the profile draws start-up jitter (P14) and phases are sampled by seed.
    pub seed: Option<u64>,
    /// The replacement container's start, modulo the grid cycle, when the sample is of a
    /// replacement rather than of the first start: the start-up budget of a container started
    /// after a liveness kill (at `change`) that inherits `started` (P45, 1.35+).
    pub restart: Option<SimDuration>,
}

impl fmt::Display for GridPhase {
    /// `start +0.001s into the tick cycle`, with `, change +9s`, `, restart +9.5s` and
    /// `, seed 3` when present.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "start +{}s", self.start)?;
        if let Some(c) = self.change {
            write!(f, ", change +{c}s")?;
        }
        if let Some(r) = self.restart {
            write!(f, ", restart +{r}s")?;
        }
        f.write_str(" into the tick cycle")?;
        if let Some(s) = self.seed {
            write!(f, ", jitter seed {s}")?;
        }
        Ok(())
    }
}

impl GridPhase {
    /// The phase of a start-up budget sample, saying which start it is when it is a
    /// replacement's (P45): `a replacement after a liveness kill, which inherits started:
    /// start +0s, change +0s, restart +1s into the tick cycle`.
    #[must_use]
    pub fn of_start(&self) -> String {
        if self.restart.is_some() {
            format!("a replacement after a liveness kill, which inherits started: {self}")
        } else {
            self.to_string()
        }
    }
}

/// One extreme of a figure: its value (`None`: never, or unbounded) and the phase producing it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Extreme {
    /// The value; `None` when the thing never happens (or, for a budget, nothing kills).
    pub value: Option<SimDuration>,
    /// The phase of the simulation that produced it.
    pub phase: GridPhase,
}

/// A figure over every phase swept: its smallest and largest value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Figure {
    /// The smallest value (`None` counts as larger than every duration).
    pub min: Extreme,
    /// The largest value.
    pub max: Extreme,
}

/// Orders values with `None` (never) after every duration.
fn key(v: Option<SimDuration>) -> (bool, SimDuration) {
    match v {
        Some(d) => (false, d),
        None => (true, SimDuration::ZERO),
    }
}

impl Figure {
    /// The extremes of a list of samples; the first sample wins ties. `None` for no samples.
    #[must_use]
    pub fn of(samples: &[(Option<SimDuration>, GridPhase)]) -> Option<Figure> {
        let (first, rest) = samples.split_first()?;
        let mut min = Extreme {
            value: first.0,
            phase: first.1,
        };
        let mut max = min;
        for (value, phase) in rest {
            if key(*value) < key(min.value) {
                min = Extreme {
                    value: *value,
                    phase: *phase,
                };
            }
            if key(*value) > key(max.value) {
                max = Extreme {
                    value: *value,
                    phase: *phase,
                };
            }
        }
        Some(Figure { min, max })
    }

    /// Whether `value` lies within the figure (`None` only within a figure reaching `None`).
    #[must_use]
    pub fn contains(&self, value: Option<SimDuration>) -> bool {
        key(self.min.value) <= key(value) && key(value) <= key(self.max.value)
    }
}

/// The phases a sweep covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GridPhaseSpace {
    /// The grid cycle: after it, every grid the container's figures depend on repeats.
    pub cycle: SimDuration,
    /// The cycle of the change's phase: the least common multiple of `cycle` and the kubelet's
    /// resync period (`cycle` when the resync is drawn at random, `kubelet.jitter`).
    pub change_cycle: SimDuration,
    /// The finest step of those grids: every instant of the engine's grids is a multiple.
    pub unit: SimDuration,
    /// The offsets swept in each cycle: each grid step, one millisecond after it, halfway and
    /// one millisecond before the next (with start-up jitter too: the seeds move the probe
    /// workers' grids, not the relist grid).
    pub offsets: Vec<SimDuration>,
    /// The seeds swept: one without start-up jitter, several with it.
    pub seeds: Vec<u64>,
    /// Whether the kubelet draws random jitter (start-up sleeps, P14; `kubelet.jitter`), so that
    /// phases are sampled by seed.
    pub jitter: bool,
    /// The cycle was too long to sweep whole; only its beginning was swept.
    pub truncated: bool,
}

/// How long a healthy, Ready application takes to be noticed once it hangs, killed and
/// replaced, measured from the moment it hangs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Hang {
    /// To the kill.
    pub kill: Figure,
    /// To the process gone (grace period and SIGTERM behaviour included).
    pub exit: Figure,
    /// To the replacement running.
    pub restarted: Figure,
}

/// Readiness delays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Readiness {
    /// From the container start (a healthy app) to pod Ready.
    pub to_ready: Figure,
    /// From a steady Ready app starting to fail to pod Ready false; `None` when the pod never
    /// becomes Ready.
    pub to_not_ready: Option<Figure>,
}

/// A process that exits with code 1 one second after every start.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CrashLoop {
    /// The restarts of the first hour, from the first start (in the first phase swept).
    pub restarts: Vec<SimDuration>,
    /// From the first start to the status first showing `CrashLoopBackOff`.
    pub back_off: Figure,
    /// The steady cycle: between the last two restarts of the first hour.
    pub cycle: Figure,
}

/// Every figure of one container.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ContainerFigures {
    /// The container's name.
    pub name: String,
    /// Its index in the engine's numbering (init containers first, then regular containers).
    pub index: usize,
    /// Whether it is a sidecar (an init container with `restartPolicy: Always`).
    pub sidecar: bool,
    /// The largest time the app may fail every probe from its start and survive; `None` when
    /// nothing can kill it (no liveness or startup probe).
    pub startup_budget: Option<Figure>,
    /// Hang detection and recovery.
    pub hang: Hang,
    /// Readiness delays.
    pub readiness: Readiness,
    /// Crash-loop timing; `None` for `restartPolicy: Never`.
    pub crash_loop: Option<CrashLoop>,
    /// The phases swept.
    pub space: GridPhaseSpace,
    /// How many simulations the figures took.
    pub simulations: u64,
}

/// Renders seconds with millisecond precision (`80`, `0.999`).
#[must_use]
pub fn secs(d: SimDuration) -> String {
    d.to_string()
}

/// Renders a value, `never` for `None`.
#[must_use]
pub fn value_text(v: Option<SimDuration>, never: &str) -> String {
    v.map_or_else(|| never.to_owned(), |d| format!("{d}s"))
}
