//! `/run`: the page's scenario and edits in, every view of the run out.

use probesim_core::{Profile, SimTime};
use probesim_kube::catalog;
use probesim_report::{render_explain, render_with, trace_run, Format, ViewOptions};
use probesim_scenario::argument::AppFlag;
use probesim_scenario::scenario::{horizon, Edits, ManifestRun, NoFiles, Overrides, Scenario};

use super::http::{Request, Response};
use super::MAX_HORIZON_SECS;

/// Simulates the request's scenario: 200 with the views as HTML, or 422 with the error as
/// the command line prints it.
pub fn answer(request: &Request, name: &str) -> Response {
    match run(request, name) {
        Ok(html) => Response::new(200, "text/html; charset=utf-8", html.as_bytes()),
        Err(text) => Response::text(422, &text),
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The edits the page sends: `set`, `app`, `exit`, `sigterm`, `pull` (empty ones left out).
fn edits(request: &Request) -> Edits {
    let mut apps = Vec::new();
    for (flag, name) in [
        (AppFlag::App, "app"),
        (AppFlag::Pull, "pull"),
        (AppFlag::Exit, "exit"),
        (AppFlag::Sigterm, "sigterm"),
    ] {
        for value in request.all(name) {
            if !value.trim().is_empty() {
                apps.push(probesim_scenario::argument::AppArg {
                    flag,
                    value: value.trim().to_owned(),
                });
            }
        }
    }
    let sets = request
        .all("set")
        .into_iter()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect();
    Edits { apps, sets }
}

fn view(scenario: &Scenario, format: Format, at: Option<SimTime>) -> Result<String, String> {
    let options = ViewOptions {
        readable: true,
        at,
        ..ViewOptions::default()
    };
    let bytes = render_with(scenario, format, &options, Vec::new()).map_err(|e| e.to_string())?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn run(request: &Request, name: &str) -> Result<String, String> {
    let text = request.body.as_str();
    let edits = edits(request);
    let duration = match request.one("for") {
        None => None,
        Some(d) => {
            let d = probesim_script::parse_duration(&d).map_err(|e| format!("--for: {e}"))?;
            Some(horizon(d).map_err(|e| format!("--for: {e}"))?)
        }
    };
    let kubernetes = request.one("kubernetes");
    if let Some(v) = &kubernetes {
        if Profile::parse(v).is_none() {
            return Err(format!(
                "--kubernetes: unsupported Kubernetes version {v:?}"
            ));
        }
    }
    let at = match request.one("at") {
        None => None,
        Some(t) => Some(SimTime::ZERO.saturating_add(
            probesim_script::parse_duration(&t).map_err(|e| format!("--at: {e}"))?,
        )),
    };
    let overrides = Overrides {
        duration,
        seed: None,
        kubernetes: kubernetes.clone(),
        timing: None,
    };
    let (scenario, file) = if catalog::is_manifest(text) {
        let run = ManifestRun {
            select: request.one("select"),
            apps: edits.apps.clone(),
            kubernetes,
        };
        let mut built = Scenario::from_manifest_edited(text, name, &run, &edits.sets)
            .map_err(|e| e.render(text))?;
        built
            .scenario
            .apply(&overrides)
            .map_err(|e| e.render(text))?;
        let file = built.to_yaml();
        (built.scenario, file)
    } else {
        // The page has no files: a scenario's `manifest:` reference is an error here.
        let scenario = Scenario::load_edited(text, name, &mut NoFiles, &overrides, &edits)
            .map_err(|e| e.render(text))?;
        let file = edits.write_into(text, name).map_err(|e| e.render(text))?;
        (scenario, file)
    };
    let end = probesim_scenario::run::horizon(&scenario).map_err(|e| e.to_string())?;
    if end > SimTime::from_secs(MAX_HORIZON_SECS) {
        return Err(format!(
            "{name}: the playground simulates at most {}h; run `probesim run` for longer horizons",
            MAX_HORIZON_SECS / 3600
        ));
    }
    let at = at.map(|t| t.min(end));
    let svg = view(&scenario, Format::Svg, None)?;
    let get = view(&scenario, Format::Get, None)?;
    let describe = view(&scenario, Format::Describe, at)?;
    let explain = render_explain(&scenario, Vec::new()).map_err(|e| e.to_string())?;
    let explain = String::from_utf8_lossy(&explain).into_owned();
    let traced = trace_run(&scenario).map_err(|e| e.to_string())?;
    let restarts: u32 = traced
        .status
        .containers
        .iter()
        .chain(&traced.status.init_containers)
        .map(|c| c.restart_count)
        .sum();
    let mut out = String::new();
    out.push_str(&format!(
        "<div id=\"r-ok\" data-restarts=\"{restarts}\" data-name=\"{}\"></div>\n",
        escape(&scenario.name)
    ));
    out.push_str(&format!("<div id=\"r-picture\">{svg}</div>\n"));
    out.push_str(&format!("<pre id=\"r-get\">{}</pre>\n", escape(&get)));
    out.push_str(&format!(
        "<pre id=\"r-describe\">{}</pre>\n",
        escape(&describe)
    ));
    out.push_str(&format!(
        "<pre id=\"r-explain\">{}</pre>\n",
        escape(&explain)
    ));
    out.push_str(&format!(
        "<textarea id=\"r-file\" hidden>{}</textarea>\n",
        escape(&file)
    ));
    Ok(out)
}
