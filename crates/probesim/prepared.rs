//! [`Prepared`]: a test loaded once, whose cases simulate without reading the manifest again.

use std::sync::Arc;

use probesim_core::{Behaviour, Handler, HandlerFamily, ProbeKind, SimDuration};
use probesim_kube::field_path::FieldPath;
use probesim_scenario::scenario::{Overrides, Scenario};

use crate::error::{Error, ErrorKind};
use crate::guard::Fault;
use crate::run::{Replay, Run};
use crate::test::{arg_value, simulate, simulation, Bound, Horizon, Recipe, Test};

/// Where the script of one key given to the test ([`Test::probe`], [`Test::endpoint`]) went in
/// the loaded scenario.
#[derive(Clone, Debug)]
struct Slot {
    /// Index into the recipe's keyed scripts.
    keyed: usize,
    /// Whether the binding is a sidecar's (in `init_bindings`).
    init: bool,
    /// Index of the binding.
    binding: usize,
    /// The handler families of the probes the script answers, which a case's script must fit.
    families: Vec<HandlerFamily>,
}

/// A test loaded once ([`Test::prepare`]): the manifest read and validated, the workload,
/// containers and endpoints resolved. Each [`Prepared::case`] copies the loaded scenario, puts
/// in its own scripts, seed, horizon and closures, and simulates: a property test's case then
/// costs about what the simulation costs, not a manifest load. Cloning is cheap (the manifest's
/// text is shared).
///
/// A case runs exactly what the same calls on a fresh [`Test`] run: the same timeline, the same
/// errors (a case whose script does not parse is loaded the long way, for the message) and the
/// same replay file, written only when it is asked for.
///
/// ```
/// use probesim::Test;
///
/// let manifest = "\
/// apiVersion: v1
/// kind: Pod
/// metadata: {name: web}
/// spec:
///   containers:
///   - name: web
///     image: nginx
///     livenessProbe: {httpGet: {port: 8080}, periodSeconds: 10}
/// ";
/// // The endpoint's script here is a placeholder: each case gives its own.
/// let web = Test::manifest_text(manifest, "web.yaml").endpoint(":8080", "ok").prepare()?;
/// for start in [5, 25, 60] {
///     let run = web
///         .case()
///         .endpoint(":8080", &format!("refused for {start}s then ok"))
///         .horizon("2m")
///         .run()?;
///     assert_eq!(run.kills().is_empty(), start < 30, "starting in {start}s");
/// }
/// # Ok::<(), probesim::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Prepared {
    recipe: Arc<Recipe>,
    scenario: Scenario,
    slots: Vec<Slot>,
}

impl Prepared {
    pub(crate) fn new(recipe: Recipe, scenario: Scenario) -> Result<Prepared, Error> {
        let mut slots = Vec::new();
        for (i, keyed) in recipe.keyed.iter().enumerate() {
            let slot = find_slot(&scenario, i, keyed.container.as_deref(), &keyed.key).ok_or_else(
                || {
                    Error::new(
                        ErrorKind::Input,
                        format!(
                            "{}: the script for {:?} answers no probe, so a case cannot replace it",
                            scenario.file, keyed.key
                        ),
                    )
                },
            )?;
            slots.push(slot);
        }
        Ok(Prepared {
            recipe: Arc::new(recipe),
            scenario,
            slots,
        })
    }

    /// A case to run from this test: nothing changed until its calls say so.
    #[must_use]
    pub fn case(&self) -> Case<'_> {
        Case {
            prepared: self,
            container: None,
            scripts: Vec::new(),
            seed: None,
            phase: None,
            jitter: false,
            horizon: None,
            bound: Vec::new(),
        }
    }

    /// Runs the test as prepared (a case that changes nothing).
    ///
    /// # Errors
    /// As [`Case::run`].
    pub fn run(&self) -> Result<Run, Error> {
        self.case().run()
    }
}

/// The binding that the script of `key` (a probe type or an endpoint) of `container` became.
fn find_slot(
    scenario: &Scenario,
    keyed: usize,
    container: Option<&str>,
    key: &str,
) -> Option<Slot> {
    let pod = &scenario.pod;
    let groups = [
        (false, &pod.containers, &scenario.bindings),
        (true, &pod.init_containers, &scenario.init_bindings),
    ];
    let key = key.trim();
    let field = if ProbeKind::ALL.iter().any(|k| k.as_str() == key) {
        "probes"
    } else {
        "endpoints"
    };
    for (init, containers, bindings) in groups {
        for (index, b) in bindings.iter().enumerate() {
            let spec = &containers[b.container];
            if container.is_some_and(|c| c != spec.name) {
                continue;
            }
            let origin = FieldPath::new("apps")
                .key(&spec.name)
                .child(field)
                .key(key)
                .to_string();
            if b.origin != origin {
                continue;
            }
            let mut families = Vec::new();
            for kind in &b.probes {
                if let Some(probe) = spec.probe(*kind) {
                    let family = family(probe.handler());
                    if !families.contains(&family) {
                        families.push(family);
                    }
                }
            }
            return Some(Slot {
                keyed,
                init,
                binding: index,
                families,
            });
        }
    }
    None
}

/// The scripts that fit a handler (HTTP codes for `httpGet`, exit codes for `exec`…).
fn family(handler: &Handler) -> HandlerFamily {
    match handler {
        Handler::Exec { .. } => HandlerFamily::Exec,
        Handler::HttpGet { .. } => HandlerFamily::Http,
        Handler::TcpSocket { .. } => HandlerFamily::Tcp,
        Handler::Grpc { .. } => HandlerFamily::Grpc,
    }
}

/// One case of a [`Prepared`] test: a builder like [`Test`]'s, for what may change from case to
/// case.
pub struct Case<'p> {
    prepared: &'p Prepared,
    container: Option<String>,
    scripts: Vec<(Option<String>, String, String)>,
    seed: Option<u64>,
    phase: Option<SimDuration>,
    jitter: bool,
    horizon: Option<Horizon>,
    bound: Vec<Bound>,
}

impl Case<'_> {
    /// The container that the calls after this one are about, as [`Test::container`] (needed
    /// only where the prepared test gave the same key for several containers).
    #[must_use]
    pub fn container(mut self, name: &str) -> Self {
        self.container = Some(name.to_owned());
        self
    }

    /// A new script for a probe the prepared test scripted with [`Test::probe`].
    #[must_use]
    pub fn probe(self, probe: ProbeKind, script: &str) -> Self {
        self.script(probe.as_str(), script)
    }

    /// A new script for an endpoint the prepared test scripted with [`Test::endpoint`], spelled
    /// the same way (`":8080"`).
    #[must_use]
    pub fn endpoint(self, key: &str, script: &str) -> Self {
        self.script(key, script)
    }

    fn script(mut self, key: &str, script: &str) -> Self {
        self.scripts
            .push((self.container.clone(), key.to_owned(), script.to_owned()));
        self
    }

    /// A closure (or any [`Behaviour`]) answers one probe, as [`Test::behaviour`].
    #[must_use]
    pub fn behaviour(mut self, probe: ProbeKind, behaviour: impl Behaviour + 'static) -> Self {
        self.bound.push(Bound {
            container: self.container.clone(),
            probe,
            behaviour: Box::new(behaviour),
        });
        self
    }

    /// The seed, as [`Test::seed`].
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// The start phase, as [`Test::phase`].
    #[must_use]
    pub fn phase(mut self, phase: SimDuration) -> Self {
        self.phase = Some(phase);
        self
    }

    /// The kubelet's jitter drawn from the seed, as [`Test::jitter`].
    #[must_use]
    pub fn jitter(mut self) -> Self {
        self.jitter = true;
        self
    }

    /// One timing, as [`Test::timing`].
    #[must_use]
    pub fn timing(self, timing: crate::Timing) -> Self {
        self.seed(timing.seed).phase(timing.phase).jitter()
    }

    /// How long to simulate, as [`Test::horizon`].
    #[must_use]
    pub fn horizon(mut self, duration: &str) -> Self {
        self.horizon = Some(Horizon::Text(duration.to_owned()));
        self
    }

    /// How long to simulate, as [`Test::horizon_of`].
    #[must_use]
    pub fn horizon_of(mut self, duration: SimDuration) -> Self {
        self.horizon = Some(Horizon::Duration(duration));
        self
    }

    /// Simulates the case.
    ///
    /// # Errors
    /// As [`Test::run`] for the same calls; a script for a key the prepared test did not
    /// script ([`ErrorKind::Usage`]).
    pub fn run(self) -> Result<Run, Error> {
        let prepared = self.prepared;
        let mut recipe = Recipe::clone(&prepared.recipe);
        if self.seed.is_some() {
            recipe.seed = self.seed;
        }
        if self.horizon.is_some() {
            recipe.horizon = self.horizon;
        }
        if self.phase.is_some() {
            recipe.phase = self.phase;
        }
        recipe.jitter |= self.jitter;
        let mut scenario = prepared.scenario.clone();
        let mut fast = true;
        for (container, key, script) in &self.scripts {
            let slot = pick(prepared, container.as_deref(), key)?;
            let keyed = &recipe.keyed[slot.keyed];
            let arg = arg_value(
                keyed.container.as_deref(),
                &format!("{}={script}", keyed.key),
            );
            recipe.apps[keyed.arg].value = arg;
            // A script that does not parse or fit its probes is loaded the long way, below,
            // for the message `probesim run` gives.
            match probesim_script::parse(script) {
                Ok(parsed)
                    if slot
                        .families
                        .iter()
                        .all(|f| parsed.check_handler(*f).is_ok()) =>
                {
                    let bindings = if slot.init {
                        &mut scenario.init_bindings
                    } else {
                        &mut scenario.bindings
                    };
                    bindings[slot.binding].script = parsed;
                }
                _ => fast = false,
            }
        }
        if !fast {
            return Test::from_recipe(recipe, self.bound).run();
        }
        let overrides = recipe.overrides()?;
        scenario
            .apply(&Overrides {
                kubernetes: None,
                ..overrides
            })
            .map_err(|e| Error::new(ErrorKind::Input, e.render(recipe.text())))?;
        recipe.set_timing(&mut scenario)?;
        let closures = !self.bound.is_empty();
        let fault = Fault::default();
        let sim = simulation(&scenario, self.bound, &fault)?;
        simulate(
            scenario,
            sim,
            &fault,
            Replay::new(Arc::new(recipe), closures),
        )
    }
}

/// The slot of `key` (of `container`, if given).
fn pick<'p>(prepared: &'p Prepared, container: Option<&str>, key: &str) -> Result<&'p Slot, Error> {
    let matches: Vec<&Slot> = prepared
        .slots
        .iter()
        .filter(|s| {
            let k = &prepared.recipe.keyed[s.keyed];
            k.key.trim() == key.trim()
                && container.is_none_or(|c| k.container.as_deref().is_none_or(|kc| kc == c))
        })
        .collect();
    match matches.as_slice() {
        [one] => Ok(one),
        [] => Err(Error::new(
            ErrorKind::Usage,
            format!(
                "{}: the prepared test has no script for {key:?}{}: give one with Test::probe or Test::endpoint before Test::prepare",
                prepared.scenario.file,
                container.map_or_else(String::new, |c| format!(" of container {c:?}"))
            ),
        )),
        _ => Err(Error::new(
            ErrorKind::Usage,
            format!(
                "{}: several containers have a script for {key:?}: say which with Case::container",
                prepared.scenario.file
            ),
        )),
    }
}
