//! `probesim explain` and the pictures, as people see them:
//!
//! - every bundled scenario explains, draws (svg) and reports (html) without error, twice to the
//!   same bytes, with well-formed markup and one lane per container and probe, and explains under
//!   1.19, 1.28 and 1.37 where it is valid for them;
//! - kubia-unhealthy explains under every profile 1.19–1.37;
//! - reviewed goldens of the explanation of a few curated scenarios (`tests/views/*.txt`) and of
//!   two pictures (`tests/views/*.svg`);
//! - the picture in docs/views.md is what the tool draws today (`docs/kubia-timeline.svg`);
//! - the 30-day kubia report stays under 2 MB and marks its folded cycles;
//! - a year of kubia draws and explains as reviewed goldens (`tests/views/kubia-unhealthy-8760h.*`,
//!   made before the trace left repeated cycles out while recording: the same bytes).

mod support;

use std::path::Path;

use libtest_mimic::{Arguments, Failed, Trial};
use probesim_core::profile::{NEWEST_MINOR, OLDEST_MINOR};
use probesim_core::{ProbeKind, SimTime};
use probesim_report::{render, render_explain, Format};
use probesim_scenario::scenario::{Overrides, Scenario};

fn load(path: &Path, overrides: &Overrides) -> Result<Scenario, Failed> {
    let name = support::rel(path);
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
    Scenario::load_with(&text, &name, &mut support::RepoFiles, overrides)
        .map_err(|e| e.render(&text).into())
}

fn explain(scenario: &Scenario) -> Result<String, Failed> {
    let bytes = render_explain(scenario, Vec::new()).map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|e| e.to_string().into())
}

fn picture(scenario: &Scenario, format: Format) -> Result<String, Failed> {
    let bytes = render(scenario, format, false, Vec::new()).map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|e| e.to_string().into())
}

/// Checks that every element opened is closed in order (void elements of HTML aside), and
/// that no script, external reference or font is used.
fn well_formed(name: &str, text: &str) -> Result<(), Failed> {
    const VOID: [&str; 2] = ["meta", "!DOCTYPE"];
    let mut stack: Vec<&str> = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let close = after.find('>').ok_or_else(|| {
            format!(
                "{name}: unclosed `<` near {:?}",
                &after[..after.len().min(40)]
            )
        })?;
        let tag = &after[..close];
        rest = &after[close + 1..];
        if let Some(end) = tag.strip_prefix('/') {
            let top = stack.pop();
            if top != Some(end) {
                return Err(
                    format!("{name}: </{end}> closes <{}>", top.unwrap_or("nothing")).into(),
                );
            }
        } else if !tag.ends_with('/') {
            let tag_name = tag.split([' ', '\n']).next().unwrap_or_default();
            if !VOID.contains(&tag_name) {
                stack.push(tag_name);
            }
        }
    }
    if !stack.is_empty() {
        return Err(format!("{name}: unclosed elements {stack:?}").into());
    }
    // (Probe outputs quote URLs in titles and cells: text, not references.) A link within the
    // page (`href="#at-80000"`, a step of the story to its instant) loads nothing.
    let external = text
        .split(" href=")
        .skip(1)
        .any(|rest| !rest.starts_with("\"#"));
    if external {
        return Err(format!("{name}: the report must be self-contained, but it links out").into());
    }
    // Every link within the page leads to an element of it.
    for rest in text.split(" href=\"#").skip(1) {
        let target = rest.split('"').next().unwrap_or_default();
        if !text.contains(&format!(" id=\"{target}\"")) {
            return Err(
                format!("{name}: a link to #{target}, which the page does not have").into(),
            );
        }
    }
    // Every step the page links to shows a cursor the picture has.
    for rest in text.split(":target) #").skip(1) {
        let cursor = rest.split('{').next().unwrap_or_default();
        if !text.contains(&format!(" id=\"{cursor}\" class=\"cursor\"")) {
            return Err(
                format!("{name}: a step shows #{cursor}, which the picture does not have").into(),
            );
        }
    }
    for banned in [
        "<script",
        "<link",
        "<img",
        " src=",
        "@import",
        "@font-face",
        "url(http",
    ] {
        if text.contains(banned) {
            return Err(format!(
                "{name}: the report must be self-contained, but it has `{banned}`"
            )
            .into());
        }
    }
    Ok(())
}

/// Explain, svg and html of one bundled scenario.
fn every_view(path: &Path) -> Result<(), Failed> {
    let name = support::rel(path);
    let scenario = load(path, &Overrides::default())?;
    let story = explain(&scenario)?;
    if story != explain(&scenario)? {
        return Err(format!("{name}: two explanations differ").into());
    }
    for part in ["The pod", "What happens", "Verdict"] {
        if !story.contains(part) {
            return Err(format!("{name}: the explanation has no `{part}`:\n{story}").into());
        }
    }
    if !story.contains("  t=") {
        return Err(format!("{name}: the explanation tells no step:\n{story}").into());
    }
    // Other releases too, where the scenario is valid for them (some use fields or gates of
    // one release only): the story and the page must be written.
    for minor in [OLDEST_MINOR, 28, NEWEST_MINOR] {
        let overrides = Overrides {
            kubernetes: Some(format!("1.{minor}")),
            ..Overrides::default()
        };
        if let Ok(other) = load(path, &overrides) {
            let story = explain(&other).map_err(|e| format!("{name} under 1.{minor}: {e:?}"))?;
            if !story.contains("Verdict") {
                return Err(format!("{name} under 1.{minor}: no verdict").into());
            }
            picture(&other, Format::Html).map_err(|e| format!("{name} under 1.{minor}: {e:?}"))?;
        }
    }
    for format in [Format::Svg, Format::Html] {
        let text = picture(&scenario, format)?;
        if text != picture(&scenario, format)? {
            return Err(format!("{name}: two {format} pictures differ").into());
        }
        well_formed(&format!("{name} ({format})"), &text)?;
        // One lane per container, per probe, and the pod's.
        let pod = &scenario.pod;
        for c in pod.all_containers() {
            let mut keys = vec![format!("{}/container", c.name), format!("{}/ready", c.name)];
            keys.extend(
                ProbeKind::ALL
                    .into_iter()
                    .filter(|k| c.probe(*k).is_some())
                    .map(|k| format!("{}/{k}", c.name)),
            );
            for key in keys {
                if !text.contains(&format!("data-lane=\"{key}\"")) {
                    return Err(format!("{name} ({format}): no lane {key}").into());
                }
            }
        }
        for key in ["pod/ready", "events"] {
            if !text.contains(&format!("data-lane=\"{key}\"")) {
                return Err(format!("{name} ({format}): no lane {key}").into());
            }
        }
    }
    Ok(())
}

/// kubia-unhealthy under every profile: the story is told, and its verdict says it never
/// settles (the app fails its probe after five answers on every release).
fn kubia_every_profile() -> Result<(), Failed> {
    let path = support::root().join("scenarios/kubia-unhealthy.yaml");
    for minor in OLDEST_MINOR..=NEWEST_MINOR {
        let overrides = Overrides {
            kubernetes: Some(format!("1.{minor}")),
            ..Overrides::default()
        };
        let scenario = load(&path, &overrides)?;
        let story = explain(&scenario)?;
        // The verdict is a wrapped paragraph: compare words.
        let words = story.split_whitespace().collect::<Vec<_>>().join(" ");
        for needle in [
            format!("Kubernetes 1.{minor}"),
            "failureThreshold is 3, so the worker stores Failure".to_owned(),
            "then SIGKILL: exit code 137".to_owned(),
            "It is never stable".to_owned(),
        ] {
            if !words.contains(&needle) {
                return Err(format!("1.{minor}: no `{needle}` in:\n{story}").into());
            }
        }
        picture(&scenario, Format::Html)?;
    }
    Ok(())
}

/// A reviewed golden of an explanation.
fn explain_golden(scenario: &str) -> Result<(), Failed> {
    let path = support::root()
        .join("scenarios")
        .join(format!("{scenario}.yaml"));
    let story = explain(&load(&path, &Overrides::default())?)?;
    let golden = support::root()
        .join("tests/views")
        .join(format!("{}.explain.txt", scenario.replace('/', "--")));
    support::compare_golden(&golden, &story).map_err(Failed::from)
}

/// The picture docs/views.md shows is the one the tool draws.
fn docs_picture_is_current() -> Result<(), Failed> {
    let path = support::root().join("scenarios/kubia-unhealthy.yaml");
    let svg = picture(&load(&path, &Overrides::default())?, Format::Svg)?;
    support::compare_golden(&support::root().join("docs/kubia-timeline.svg"), &svg)
        .map_err(|e| format!("{e}\n(regenerate with: probesim run scenarios/kubia-unhealthy.yaml --format svg > docs/kubia-timeline.svg)").into())
}

/// A reviewed golden of a picture (reviewed by looking at it: open the file in a browser).
fn svg_golden(scenario: &str) -> Result<(), Failed> {
    let path = support::root()
        .join("scenarios")
        .join(format!("{scenario}.yaml"));
    let svg = picture(&load(&path, &Overrides::default())?, Format::Svg)?;
    let golden = support::root()
        .join("tests/views")
        .join(format!("{}.svg", scenario.replace('/', "--")));
    support::compare_golden(&golden, &svg).map_err(Failed::from)
}

/// 30 days of kubia: under 2 MB, repeated cycles folded and said so, in the picture and in the
/// event table.
fn thirty_days_stay_small() -> Result<(), Failed> {
    let path = support::root().join("scenarios/kubia-unhealthy.yaml");
    let overrides = Overrides {
        duration: Some(SimTime::from_secs(30 * 86_400)),
        ..Overrides::default()
    };
    let scenario = load(&path, &overrides)?;
    let html = picture(&scenario, Format::Html)?;
    if html.len() >= 2 << 20 {
        return Err(format!("the 30-day report has {} bytes (limit 2 MiB)", html.len()).into());
    }
    well_formed("30 days", &html)?;
    for needle in [
        "data-lane=\"repeated\"",
        "more cycles of 520s",
        "tr class=\"folded\"",
        "720h simulated",
    ] {
        if !html.contains(needle) {
            return Err(format!("the 30-day report has no `{needle}`").into());
        }
    }
    let story = explain(&scenario)?;
    if !story.contains("cycle of 2 instances repeats") {
        return Err(format!("the 30-day story does not fold its cycles:\n{story}").into());
    }
    Ok(())
}

/// A year of kubia: the picture and the story the goldens hold, its 60,642 repeated cycles one
/// column and one sentence. The trace keeps a bounded number of facts for it (the report
/// crate's `a_crash_loops_trace_keeps_a_bounded_number_of_facts_however_long_it_runs`); these
/// goldens were written by the build that kept every fact, so the bytes did not change.
fn a_year_draws_as_before() -> Result<(), Failed> {
    let path = support::root().join("scenarios/kubia-unhealthy.yaml");
    let overrides = Overrides {
        duration: Some(SimTime::from_secs(365 * 86_400)),
        ..Overrides::default()
    };
    let scenario = load(&path, &overrides)?;
    let svg = picture(&scenario, Format::Svg)?;
    for needle in ["×60642", "8760h simulated"] {
        if !svg.contains(needle) {
            return Err(format!("the year's picture has no `{needle}`").into());
        }
    }
    let views = support::root().join("tests/views");
    support::compare_golden(&views.join("kubia-unhealthy-8760h.svg"), &svg)?;
    let story = explain(&scenario)?;
    support::compare_golden(&views.join("kubia-unhealthy-8760h.explain.txt"), &story)
        .map_err(Failed::from)
}

fn main() {
    let args = Arguments::from_args();
    let mut trials: Vec<Trial> =
        support::files(&support::root().join("scenarios"), &["yaml", "yml", "json"])
            .into_iter()
            .map(|path| {
                let name = format!("every_view::{}", support::rel(&path));
                Trial::test(name, move || every_view(&path))
            })
            .collect();
    trials.push(Trial::test(
        "explain::kubia_every_profile",
        kubia_every_profile,
    ));
    for scenario in [
        "kubia-unhealthy",
        "startup/slow-starter-saved-by-startup-probe",
        "startup/slow-starter-killed-without-startup-probe",
        "readiness/readiness-flapping",
        "restart-backoff/crash-loop-exit-1-after-2s",
        "termination/delete-with-prestop-hook",
    ] {
        trials.push(Trial::test(
            format!("explain::golden::{scenario}"),
            move || explain_golden(scenario),
        ));
    }
    trials.push(Trial::test(
        "picture::docs_picture_is_current",
        docs_picture_is_current,
    ));
    for scenario in [
        "sidecars/23-16-sidecar-liveness-after-startup-restarts",
        "termination/delete-with-prestop-hook",
    ] {
        trials.push(Trial::test(
            format!("picture::golden::{scenario}"),
            move || svg_golden(scenario),
        ));
    }
    trials.push(Trial::test(
        "picture::thirty_days_stay_small",
        thirty_days_stay_small,
    ));
    trials.push(Trial::test(
        "picture::a_year_draws_as_before",
        a_year_draws_as_before,
    ));
    libtest_mimic::run(&args, trials).exit()
}
