//! Plays a [`Script`] as a [`Behaviour`]: a cursor over the steps.

use probesim_core::cycle::{opt_id, Visitor};
use probesim_core::{
    Attempt, Behaviour, BehaviourShortcuts, Draws, Response, SeededDraws, SimDuration, SimTime,
};

use crate::choice::WHOLE;

use crate::script::{Limit, Script, Step};

/// Answers probe attempts the way a [`Script`] says (docs/script-language.md).
///
/// The clock is the container instance's uptime, and a new instance (a new
/// [`Attempt::instance`]) starts the script afresh; a `pod:` script reads pod time instead
/// (from the timeline origin) and keeps one cursor for the pod's whole life. Answers are
/// decided in attempt order, so attempts must come with non-decreasing clocks, as the
/// simulation delivers them.
///
/// The player keeps a step index, the number of requests the step has answered and the clock
/// reading at which the step began; answering allocates nothing.
///
/// # Examples
/// ```
/// use probesim_core::{Answer, Attempt, Behaviour, ProbeKind, SimDuration, SimTime};
/// use probesim_script::ScriptPlayer;
///
/// let mut player = ScriptPlayer::new("2x200 then 500".parse()?);
/// let mut attempt = Attempt {
///     container: 0,
///     probe: ProbeKind::Liveness,
///     instance: 0,
///     uptime: SimDuration::ZERO,
///     now: SimTime::ZERO,
/// };
/// let mut answers = Vec::new();
/// for _ in 0..3 {
///     answers.push(player.respond(&attempt).answer);
/// }
/// // A restarted container starts the script over.
/// attempt.instance = 1;
/// answers.push(player.respond(&attempt).answer);
/// assert_eq!(answers, [Answer::Status(200), Answer::Status(200), Answer::Status(500), Answer::Status(200)]);
/// # Ok::<(), probesim_script::ParseError>(())
/// ```
#[derive(Clone, Debug)]
pub struct ScriptPlayer {
    script: Script,
    /// The instance the cursor belongs to; `None` before the first attempt.
    instance: Option<u64>,
    cursor: Cursor,
    /// For a `repeat` script whose steps all end at a time: the length of one round, once
    /// the clock is past every `until`.
    round: Option<Round>,
    /// The generator used when the player is called outside a simulation
    /// ([`Behaviour::respond`]): seeded 0. A simulation hands in its own.
    own: SeededDraws,
    /// The one response of a script whose every step gives the same answer after the same
    /// latency without drawing (`200`, `open`, `exit 0 after 1s`): whatever the cursor, the
    /// clock or the instance, the answer is this, so the cursor is not kept.
    constant: Option<Response>,
    /// What the last answer printed (P63): its step's text.
    printed: Option<u32>,
}

#[derive(Clone, Copy, Debug)]
struct Round {
    /// The `for` durations added up (never zero: the parser refuses such scripts).
    len: SimDuration,
    /// The latest `until`; rounds that begin at or after it all last `len`.
    last_until: SimDuration,
}

/// Where the script stands.
#[derive(Clone, Copy, Debug, Default)]
struct Cursor {
    /// Index of the current step.
    step: usize,
    /// Clock reading at which the current step began.
    begin: SimDuration,
    /// Requests the current step has answered.
    answered: u64,
}

impl Cursor {
    /// Moves to the next step (the first after the last), which begins at `at`.
    fn advance(&mut self, at: SimDuration, steps: usize) {
        self.step = (self.step + 1) % steps;
        self.begin = at;
        self.answered = 0;
    }
}

impl ScriptPlayer {
    /// A player at the start of `script`.
    #[must_use]
    pub fn new(script: Script) -> ScriptPlayer {
        let steps = script.steps();
        let round = (script.is_repeating() && steps.iter().all(Step::is_timed))
            .then(|| {
                steps.iter().fold(
                    Round {
                        len: SimDuration::ZERO,
                        last_until: SimDuration::ZERO,
                    },
                    |round, step| match step.limit() {
                        Some(Limit::For(d)) => Round {
                            len: round.len.saturating_add(d),
                            ..round
                        },
                        Some(Limit::Until(t)) => Round {
                            last_until: round.last_until.max(t),
                            ..round
                        },
                        None => round,
                    },
                )
            })
            .filter(|round| !round.len.is_zero());
        let constant = steps.first().and_then(|first| {
            let response = Response {
                answer: first.choice().first(),
                latency: first.latency(),
            };
            steps
                .iter()
                .all(|s| {
                    !s.draws()
                        && s.choice().first() == response.answer
                        && s.latency() == response.latency
                })
                .then_some(response)
                // P63: a printed text is told per answer, which a constant skips.
                .filter(|_| script.texts().is_empty())
        });
        ScriptPlayer {
            script,
            instance: None,
            cursor: Cursor::default(),
            round,
            own: SeededDraws::new(0),
            constant,
            printed: None,
        }
    }

    /// The script being played.
    #[must_use]
    pub fn script(&self) -> &Script {
        &self.script
    }

    /// Whether some step ends at a time (`for`, `until`): only then does the clock decide an
    /// answer ([`Step::end`]).
    fn timed(&self) -> bool {
        self.script.steps().iter().any(Step::is_timed)
    }

    /// In the last step of a script that does not repeat: every later answer is that step's.
    fn done(&self) -> bool {
        !self.script.is_repeating() && self.cursor.step + 1 >= self.script.steps().len()
    }

    /// The step that answers a request at `clock`, moving the cursor past the steps that have
    /// ended and counting the request.
    fn answer_at(&mut self, clock: SimDuration) -> Step {
        let steps = self.script.steps();
        let last = steps.len() - 1;
        let repeat = self.script.is_repeating();
        let cursor = &mut self.cursor;
        // Each pass either answers or moves one step on. Finishing the current round takes at
        // most `len` passes, a round that ends past the last `until` at most `len` more, and
        // after skipping whole rounds some step of the next `len` covers `clock`; without
        // `round`, a step without a time limit answers within one round. The bound only keeps
        // a broken invariant from hanging the simulation.
        for _ in 0..4 * steps.len() + 4 {
            if let Some(round) = self.round {
                if cursor.step == 0 && cursor.answered == 0 && round.last_until <= cursor.begin {
                    // Rounds that went by without a request: skip them whole.
                    let behind = clock.saturating_sub(cursor.begin).as_millis();
                    let rounds = behind / round.len.as_millis();
                    cursor.begin = cursor
                        .begin
                        .saturating_add(round.len.saturating_mul(rounds));
                }
            }
            let step = steps[cursor.step];
            if !repeat && cursor.step == last {
                // The last step holds forever.
                return step;
            }
            if let Some(end) = step.end(cursor.begin) {
                if clock >= end {
                    cursor.advance(end, steps.len());
                    continue;
                }
            }
            cursor.answered += 1;
            let done = match step.count() {
                Some(n) => cursor.answered >= n.get(),
                // A step without count or time answers one request.
                None => !step.is_timed(),
            };
            if done {
                cursor.advance(clock.max(cursor.begin), steps.len());
            }
            return step;
        }
        steps[cursor.step]
    }
}

impl From<Script> for ScriptPlayer {
    fn from(script: Script) -> ScriptPlayer {
        ScriptPlayer::new(script)
    }
}

impl Behaviour for ScriptPlayer {
    /// Outside a simulation, random outcomes and latency ranges draw from the player's own
    /// generator, seeded 0.
    fn respond(&mut self, attempt: &Attempt) -> Response {
        let mut own = self.own.clone();
        let response = self.respond_drawing(attempt, &mut own.draws());
        self.own = own;
        response
    }

    /// Plays the script; a random outcome draws first, then a latency range, each once per
    /// request, so the draws follow the attempts.
    fn respond_drawing(&mut self, attempt: &Attempt, draws: &mut Draws<'_>) -> Response {
        if let Some(response) = self.constant {
            return response;
        }
        let clock = if self.script.is_pod_scoped() {
            attempt.now.saturating_since(SimTime::ZERO)
        } else {
            if self.instance != Some(attempt.instance) {
                self.instance = Some(attempt.instance);
                self.cursor = Cursor::default();
            }
            attempt.uptime
        };
        let step = self.answer_at(clock);
        self.printed = step.text();
        let choice = step.choice();
        let answer = if choice.is_random() {
            choice.pick(draws.below(u64::from(WHOLE)))
        } else {
            choice.first()
        };
        let (low, high) = step.latency_range();
        let latency = if high > low {
            let spread = high.saturating_sub(low).as_millis();
            low.saturating_add(SimDuration::from_millis(
                draws.below(spread.saturating_add(1)),
            ))
        } else {
            low
        };
        Response { answer, latency }
    }

    fn shortcuts(&mut self) -> Option<&mut dyn BehaviourShortcuts> {
        Some(self)
    }

    /// The text of the step that gave the last answer (P63).
    fn printed(&self) -> Option<u32> {
        self.printed
    }

    fn text(&self, index: u32) -> &str {
        self.script.text(index)
    }

    /// The player in its present state (cursor, clock, own generator), sharing nothing.
    fn fork(&self) -> Option<Box<dyn Behaviour>> {
        Some(Box::new(self.clone()))
    }
}

impl BehaviourShortcuts for ScriptPlayer {
    /// A script whose every step answers alike without drawing.
    fn constant(&self) -> Option<Response> {
        self.constant
    }

    /// Steady-state fast-forward: the cursor, compared as the clock it reads says.
    ///
    /// In the last step of a script that does not repeat, nothing is left to decide: the state
    /// is "done" (only the instance it belongs to still counts, for a container's script). A
    /// container's script reads uptime, so its cursor compares exactly. A `pod:` script reads pod
    /// time: its cursor's beginning is a point on the clock, which only works while no `until`
    /// (an absolute pod time) lies ahead; otherwise the player says it cannot be visited.
    /// A container's script reads uptime until it reaches its last step for good.
    ///
    /// A script none of whose steps ends at a time (`3x500 then 5x200 repeat`) never reads its
    /// clock: only the requests counted decide its answers.
    fn reads_uptime(&self) -> bool {
        !self.script.is_pod_scoped() && !self.done() && self.timed()
    }

    fn visit_cycle(&mut self, v: &mut dyn Visitor, instances: Option<u64>) -> bool {
        let steps = self.script.steps();
        let done = self.done();
        if self.script.is_pod_scoped() {
            v.exact(u64::from(done));
            if done {
                return true;
            }
            let untils_ahead = match self.round {
                // Rounds past the last `until` repeat whole.
                Some(round) => round.last_until > self.cursor.begin,
                None => steps
                    .iter()
                    .any(|s| matches!(s.limit(), Some(Limit::Until(_)))),
            };
            if untils_ahead {
                return false;
            }
            let mut begin = SimTime::ZERO.saturating_add(self.cursor.begin);
            v.exact(self.cursor.step as u64);
            v.time(&mut begin);
            self.cursor.begin = begin.saturating_since(SimTime::ZERO);
            v.exact(self.cursor.answered);
            return true;
        }
        match (self.instance, instances) {
            (None, _) => v.exact(0),
            (Some(_), Some(base)) => {
                v.exact(1);
                opt_id(v, &mut self.instance, base);
            }
            // Shared by several containers: instance numbers cannot be compared.
            (Some(_), None) => return false,
        }
        v.exact(u64::from(done));
        if !done {
            v.exact(self.cursor.step as u64);
            if self.timed() {
                v.exact(self.cursor.begin.as_millis());
            } else {
                // Read by no step (none ends at a time): never compared, moved with the
                // uptime it recorded, as the step-by-step run moves it.
                let mut begin = SimTime::ZERO.saturating_add(self.cursor.begin);
                v.past(&mut begin, SimDuration::ZERO);
                self.cursor.begin = begin.saturating_since(SimTime::ZERO);
            }
            v.exact(self.cursor.answered);
        }
        true
    }
}

#[cfg(test)]
mod tests {

    /// A fork taken mid-script answers what the original answers from there on, even after the
    /// original has gone on (`Simulation::fork` copies behaviours this way).
    #[test]
    fn a_fork_answers_as_the_original_from_where_it_was_taken() {
        use probesim_core::ProbeKind;
        let script = crate::parse("2x200 then 3x500 then timeout").unwrap();
        let mut player = ScriptPlayer::new(script);
        let at = |secs| Attempt {
            container: 0,
            probe: ProbeKind::Liveness,
            instance: 0,
            uptime: SimDuration::from_secs(secs),
            now: SimTime::from_secs(secs),
        };
        for secs in 0..3 {
            player.respond(&at(secs));
        }
        let mut fork = player.fork().expect("a player forks");
        let original: Vec<_> = (3..12).map(|s| player.respond(&at(s))).collect();
        let forked: Vec<_> = (3..12).map(|s| fork.respond(&at(s))).collect();
        assert_eq!(forked, original);
        let fresh: Vec<_> = {
            let mut p = ScriptPlayer::new(crate::parse("2x200 then 3x500 then timeout").unwrap());
            (3..12).map(|s| p.respond(&at(s))).collect()
        };
        assert_ne!(forked, fresh, "the fork keeps the cursor");
    }

    // P63: each answer tells the text of the step that gave it.
    #[test]
    fn each_answer_tells_what_it_printed() {
        use probesim_core::{Answer, ProbeKind};
        let mut player =
            ScriptPlayer::new(crate::parse(r#"2x exit 0 "fine" then exit 1 "gone""#).unwrap());
        assert_eq!(player.constant(), None);
        let at = |secs| Attempt {
            container: 0,
            probe: ProbeKind::Liveness,
            instance: 0,
            uptime: SimDuration::from_secs(secs),
            now: SimTime::from_secs(secs),
        };
        let mut seen = Vec::new();
        for secs in 0..3 {
            let answer = player.respond(&at(secs)).answer;
            let printed = player.printed().map(|i| player.text(i).to_owned());
            seen.push((answer, printed));
        }
        let fine = Some("fine".to_owned());
        assert_eq!(
            seen,
            [
                (Answer::Exit(0), fine.clone()),
                (Answer::Exit(0), fine),
                (Answer::Exit(1), Some("gone".to_owned())),
            ]
        );
        // A constant script without text keeps its shortcut and prints nothing.
        let plain = ScriptPlayer::new(crate::parse("exit 0").unwrap());
        assert!(plain.constant().is_some());
        assert_eq!(plain.printed(), None);
    }
    use probesim_core::{Answer, ProbeKind};

    use super::*;
    use crate::parse::parse;

    fn player(text: &str) -> ScriptPlayer {
        match parse(text) {
            Ok(script) => ScriptPlayer::new(script),
            Err(e) => panic!("{text}: {e}"),
        }
    }

    fn attempt(instance: u64, uptime_ms: u64, now_ms: u64) -> Attempt {
        Attempt {
            container: 0,
            probe: ProbeKind::Liveness,
            instance,
            uptime: SimDuration::from_millis(uptime_ms),
            now: SimTime::from_millis(now_ms),
        }
    }

    /// docs/script-language.md#randomness: random outcomes follow their shares and latency ranges
    /// stay in range, drawn from the generator handed in; other seeds give other draws.
    #[test]
    fn random_outcomes_and_latency_ranges_draw_from_the_generator() {
        let play = |seed| {
            let mut p = player("(90% 200 | 10% timeout) after 100ms..2s");
            let mut generator = SeededDraws::new(seed);
            (0..2000_u64)
                .map(|i| p.respond_drawing(&attempt(0, i * 1000, i * 1000), &mut generator.draws()))
                .collect::<Vec<_>>()
        };
        let responses = play(7);
        let timeouts = responses
            .iter()
            .filter(|r| r.answer == Answer::Timeout)
            .count();
        // 10% of 2000 is 200; a fair generator stays well within 140..260.
        assert!((140..260).contains(&timeouts), "{timeouts} timeouts");
        assert!(responses
            .iter()
            .all(|r| { r.answer == Answer::Timeout || r.answer == Answer::Status(200) }));
        let latencies: Vec<u64> = responses.iter().map(|r| r.latency.as_millis()).collect();
        assert!(latencies.iter().all(|ms| (100..=2000).contains(ms)));
        assert!(latencies.iter().any(|ms| *ms < 300) && latencies.iter().any(|ms| *ms > 1800));
        assert_eq!(play(7), responses);
        assert_ne!(play(8), responses);
    }

    /// docs/fast-forward.md#when-it-does-not-jump: a script none of whose steps ends at a time
    /// never reads its clock, so fast-forward may treat its container as the same an hour later.
    #[test]
    fn only_a_script_with_a_timed_step_reads_uptime() {
        assert!(!player("3x500 then 5x200 repeat").reads_uptime());
        assert!(!player("2x200 after 100ms..2s then 500 repeat").reads_uptime());
        assert!(!player("3x200 then 500").reads_uptime());
        assert!(player("200 for 5s then 500 repeat").reads_uptime());
        assert!(player("3x200 then 500 until 1m then 200").reads_uptime());
        // A pod-scoped script reads pod time, never uptime.
        assert!(!player("pod: 200 for 5s then 500 repeat").reads_uptime());
    }

    /// The answers of one instance to requests at these uptimes, in milliseconds.
    fn answers_at(text: &str, uptimes_ms: &[u64]) -> Vec<String> {
        let mut player = player(text);
        uptimes_ms
            .iter()
            .map(|&ms| player.respond(&attempt(0, ms, ms)).answer.to_string())
            .collect()
    }

    /// The answers of one instance to requests every ten seconds, from uptime 0.
    fn every_10s(text: &str, n: u64) -> Vec<String> {
        let uptimes: Vec<u64> = (0..n).map(|i| i * 10_000).collect();
        answers_at(text, &uptimes)
    }

    #[test]
    fn a_count_answers_that_many_requests_then_the_last_step_holds() {
        assert_eq!(
            every_10s("5x200 then 500", 8),
            ["200", "200", "200", "200", "200", "500", "500", "500"]
        );
        // Requests at the same instant are counted one by one.
        assert_eq!(
            answers_at("2x200 then 500", &[0, 0, 0]),
            ["200", "200", "500"]
        );
    }

    #[test]
    fn a_for_step_answers_until_its_window_ends() {
        assert_eq!(
            answers_at(
                "refused for 20s then open",
                &[0, 10_000, 19_999, 20_000, 30_000]
            ),
            ["refused", "refused", "refused", "open", "open"]
        );
    }

    #[test]
    fn an_until_step_answers_while_the_clock_is_below_its_time() {
        assert_eq!(
            answers_at("ok until 30s then fail", &[0, 29_999, 30_000, 100_000]),
            ["ok", "ok", "fail", "fail"]
        );
    }

    #[test]
    fn a_bare_step_that_is_not_last_answers_one_request() {
        assert_eq!(
            every_10s("ok then fail then 503", 4),
            ["ok", "fail", "503", "503"]
        );
    }

    #[test]
    fn repeat_starts_the_script_over() {
        assert_eq!(
            every_10s("2x200, 500 repeat", 7),
            ["200", "200", "500", "200", "200", "500", "200"]
        );
        assert_eq!(every_10s("ok repeat", 3), ["ok", "ok", "ok"]);
    }

    #[test]
    fn windows_that_no_request_fell_in_are_passed_over() {
        assert_eq!(
            answers_at("ok for 10s then fail for 10s then ok", &[25_000]),
            ["ok"]
        );
        assert_eq!(
            answers_at(
                "ok for 10s then fail for 10s then refused",
                &[5_000, 15_000, 25_000]
            ),
            ["ok", "fail", "refused"]
        );
        // The skipped step began when the one before it ended: `fail` covers [10s, 20s).
        assert_eq!(
            answers_at("ok for 10s then fail for 10s then refused", &[0, 19_999]),
            ["ok", "fail"]
        );
    }

    #[test]
    fn an_until_that_has_passed_is_passed_over_without_going_back_in_time() {
        let text = "ok until 30s then fail until 20s then refused for 10s then open";
        assert_eq!(
            answers_at(text, &[0, 35_000, 39_999, 40_000]),
            ["ok", "refused", "refused", "open"]
        );
    }

    #[test]
    fn repeat_rounds_are_anchored_where_the_last_round_ended() {
        let text = "ok for 10s then fail for 5s repeat";
        assert_eq!(
            answers_at(text, &[0, 9_999, 10_000, 14_999, 15_000, 24_999, 25_000]),
            ["ok", "ok", "fail", "fail", "ok", "ok", "fail"]
        );
        // 1000 s is 66 rounds and 10 s, 1005 s exactly 67 rounds.
        assert_eq!(answers_at(text, &[1_000_000, 1_005_000]), ["fail", "ok"]);
        // A count step ends at its last answer; the round goes on from there.
        let text = "2x200 then 500 for 10s repeat";
        assert_eq!(
            answers_at(text, &[0, 5_000, 10_000, 15_000, 20_000, 25_000]),
            ["200", "200", "500", "200", "200", "500"]
        );
    }

    #[test]
    fn untils_in_a_repeat_hold_only_in_the_first_round() {
        let text = "ok until 1h then fail for 1s then refused for 1s repeat";
        let h = 3_600_000;
        assert_eq!(
            answers_at(text, &[0, h, h + 1_000, h + 2_000, h + 3_000, h + 4_000]),
            ["ok", "fail", "refused", "fail", "refused", "fail"]
        );
    }

    #[test]
    fn a_long_gap_between_requests_skips_whole_rounds() {
        let text = "ok for 1ms then fail for 1ms repeat";
        assert_eq!(
            answers_at(text, &[1_000_000_000_000, 1_000_000_000_001]),
            ["ok", "fail"]
        );
        assert_eq!(
            answers_at(text, &[u64::MAX - 3, u64::MAX - 2]),
            ["ok", "fail"]
        );
    }

    #[test]
    fn a_step_with_count_and_time_ends_at_whichever_comes_first() {
        let text = "3x500 for 10s then ok";
        assert_eq!(
            answers_at(text, &[0, 1_000, 2_000, 3_000]),
            ["500", "500", "500", "ok"]
        );
        assert_eq!(answers_at(text, &[0, 5_000, 10_000]), ["500", "500", "ok"]);
    }

    #[test]
    fn the_last_step_holds_forever_whatever_its_limits() {
        assert_eq!(
            answers_at("ok then fail for 10s", &[0, 1_000, 100_000]),
            ["ok", "fail", "fail"]
        );
        assert_eq!(every_10s("3x200", 5), ["200", "200", "200", "200", "200"]);
    }

    #[test]
    fn a_new_instance_starts_the_script_afresh() {
        let mut p = player("2x200 then 500");
        let mut answers = Vec::new();
        for (instance, uptime) in [(0, 0), (0, 10), (0, 20), (1, 0), (1, 10), (1, 20)] {
            answers.push(p.respond(&attempt(instance, uptime, 0)).answer.to_string());
        }
        assert_eq!(answers, ["200", "200", "500", "200", "200", "500"]);
        // Uptime is the clock: a restart at pod time 100 s begins again at uptime 0.
        let mut p = player("refused for 20s then open");
        let a = p.respond(&attempt(0, 30_000, 30_000)).answer;
        let b = p.respond(&attempt(1, 5_000, 105_000)).answer;
        assert_eq!((a, b), (Answer::Open, Answer::Refused));
    }

    #[test]
    fn a_pod_script_keeps_one_counter_and_reads_pod_time() {
        let mut p = player("pod: 2x200 then 500");
        let answers: Vec<_> = [(0, 0), (0, 10), (1, 0)]
            .iter()
            .map(|&(instance, uptime)| p.respond(&attempt(instance, uptime, 0)).answer)
            .collect();
        assert_eq!(
            answers,
            [
                Answer::Status(200),
                Answer::Status(200),
                Answer::Status(500)
            ]
        );
        let mut p = player("pod: refused for 20s then open");
        let a = p.respond(&attempt(0, 5_000, 15_000)).answer;
        let b = p.respond(&attempt(1, 1_000, 25_000)).answer;
        assert_eq!((a, b), (Answer::Refused, Answer::Open));
    }

    #[test]
    fn only_scripts_that_answer_alike_take_the_shortcut() {
        for text in ["200", "open", "exit 0 after 1s", "200 for 5s then 200"] {
            assert!(player(text).constant.is_some(), "{text}");
        }
        for text in [
            "200 then 500",
            "(50% 200 | 50% 500)",
            "200 after 1s..2s",
            "200 then 200 after 1s",
        ] {
            assert!(player(text).constant.is_none(), "{text}");
        }
        // The shortcut answers what the script says.
        let mut p = player("exit 0 after 1s");
        let r = p.respond(&attempt(3, 5_000, 9_000));
        assert_eq!((r.answer, r.latency.as_millis()), (Answer::Exit(0), 1_000));
    }

    #[test]
    fn after_is_the_answers_latency() {
        let mut p = player("200 after 2s then 500 after 500ms then 503");
        let latencies: Vec<u64> = (0..3)
            .map(|_| p.respond(&attempt(0, 0, 0)).latency.as_millis())
            .collect();
        assert_eq!(latencies, [2_000, 500, 0]);
    }

    #[test]
    fn outcomes_map_to_answers() {
        let text = "200 then ok then fail then open then refused then timeout then exit 3 \
                    then serving then not-serving then unknown then error";
        let mut p = player(text);
        let answers: Vec<Answer> = (0..11)
            .map(|_| p.respond(&attempt(0, 0, 0)).answer)
            .collect();
        assert_eq!(
            answers,
            [
                Answer::Status(200),
                Answer::Ok,
                Answer::Fail,
                Answer::Open,
                Answer::Refused,
                Answer::Timeout,
                Answer::Exit(3),
                Answer::Serving,
                Answer::NotServing,
                Answer::Unknown,
                Answer::Error,
            ]
        );
    }
}

#[cfg(test)]
mod properties {
    use ::proptest::prelude::*;
    use probesim_core::ProbeKind;

    use super::*;
    use crate::proptest::script;

    fn at(instance: u64, uptime_ms: u64) -> Attempt {
        Attempt {
            container: 0,
            probe: ProbeKind::Liveness,
            instance,
            uptime: SimDuration::from_millis(uptime_ms),
            now: SimTime::from_millis(uptime_ms),
        }
    }

    /// The steps that answer a script without time limits, request by request, written out.
    fn expand(script: &Script, requests: usize) -> Vec<Step> {
        let steps = script.steps();
        let mut out = Vec::new();
        'rounds: loop {
            for (i, step) in steps.iter().enumerate() {
                let is_final = !script.is_repeating() && i == steps.len() - 1;
                let n = if is_final {
                    u64::MAX
                } else {
                    step.count().map_or(1, core::num::NonZeroU64::get)
                };
                for _ in 0..n {
                    if out.len() == requests {
                        break 'rounds;
                    }
                    out.push(*step);
                }
            }
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn any_script_answers_any_request_sequence(
            script in script(),
            gaps in prop::collection::vec(prop_oneof![
                3 => 0_u64..=20_000,
                1 => any::<u64>().prop_map(|g| g >> 20),
            ], 1..40),
        ) {
            let mut player = ScriptPlayer::new(script);
            let mut uptime = 0_u64;
            for gap in gaps {
                uptime = uptime.saturating_add(gap);
                let _ = player.respond(&at(0, uptime));
            }
        }

        #[test]
        fn untimed_scripts_answer_in_written_order(
            script in script().prop_filter("no time limits, small counts", |s| {
                s.steps().iter().all(|step| {
                    !step.is_timed() && step.count().is_none_or(|n| n.get() <= 10)
                })
            }),
            uptimes in prop::collection::vec(0_u64..1_000_000, 1..60),
        ) {
            let mut uptimes = uptimes;
            uptimes.sort_unstable();
            let expected = expand(&script, uptimes.len());
            let mut player = ScriptPlayer::new(script);
            let responses: Vec<Response> =
                uptimes.iter().map(|&u| player.respond(&at(0, u))).collect();
            prop_assert_eq!(responses.len(), expected.len());
            for (response, step) in responses.iter().zip(&expected) {
                // A random step answers one of its alternatives, after a latency in its range.
                let mut alternatives = step.choice().alternatives().map(|(_, a)| a);
                prop_assert!(alternatives.any(|a| a == response.answer), "{} answered {}", step, response.answer);
                let (low, high) = step.latency_range();
                prop_assert!(low <= response.latency && response.latency <= high);
            }
        }

        // docs/script-language.md#how-the-steps-play-out: a script whose every step answers alike
        // without drawing is answered without walking its steps, and the answers are the ones the
        // walk gives (the shortcut's cases are pinned in
        // `only_scripts_that_answer_alike_take_the_shortcut`).
        #[test]
        fn the_constant_shortcut_answers_as_the_steps_do(
            script in script(),
            attempts in prop::collection::vec((0_u64..3, 0_u64..1_000_000), 1..40),
        ) {
            let mut attempts = attempts;
            attempts.sort_unstable();
            let mut fast = ScriptPlayer::new(script.clone());
            let mut walked = ScriptPlayer::new(script);
            walked.constant = None;
            let (mut draws, mut walked_draws) = (SeededDraws::new(0), SeededDraws::new(0));
            for (i, &(instance, uptime)) in attempts.iter().enumerate() {
                let a = Attempt {
                    instance,
                    now: SimTime::from_millis(i as u64 * 1000),
                    ..at(instance, uptime)
                };
                prop_assert_eq!(
                    fast.respond_drawing(&a, &mut draws.draws()),
                    walked.respond_drawing(&a, &mut walked_draws.draws())
                );
            }
        }

        // Draws come from the generator handed in, in request order: the same seed gives the
        // same answers, and the generator is left untouched by scripts that draw nothing.
        #[test]
        fn draws_follow_the_seed(
            script in script(),
            uptimes in prop::collection::vec(0_u64..1_000_000, 1..40),
            seed in any::<u64>(),
        ) {
            let mut uptimes = uptimes;
            uptimes.sort_unstable();
            let play = |seed| {
                let mut player = ScriptPlayer::new(script.clone());
                let mut generator = SeededDraws::new(seed);
                let answers: Vec<Response> = uptimes
                    .iter()
                    .map(|&u| player.respond_drawing(&at(0, u), &mut generator.draws()))
                    .collect();
                (answers, generator.draws().below(u64::MAX))
            };
            let (first, after_first) = play(seed);
            let (again, after_again) = play(seed);
            prop_assert_eq!(&first, &again);
            prop_assert_eq!(after_first, after_again);
            if !script.draws() {
                prop_assert_eq!(after_first, SeededDraws::new(seed).draws().below(u64::MAX));
            }
        }
    }
}
