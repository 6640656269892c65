//! The HTML report in a real browser: headless Chromium (Debian's `chromium`) loads the
//! kubia-unhealthy report, must log no console error, and its DOM must hold the expected lanes;
//! a screenshot goes to `target/pictures/kubia-unhealthy.png` for a person to look at.
//!
//! Without a browser the test passes and says loudly that it skipped; under CI (`CI` set) a
//! missing browser is a failure (`.ci/run` installs it).

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use libtest_mimic::{Arguments, Failed, Trial};
use probesim_report::{render, Format};
use probesim_scenario::scenario::{Overrides, Scenario};

/// `chromium` on the PATH, or Debian's `/usr/bin/chromium`.
#[expect(
    clippy::disallowed_methods,
    reason = "finding the browser needs the PATH"
)]
fn find_chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("chromium"))
        .chain([PathBuf::from("/usr/bin/chromium")])
        .find(|p| p.is_file())
}

/// The flags of every run: headless, sandbox off (CI runs as root), no network of its own.
fn chromium(bin: &Path, profile: &Path) -> Command {
    let mut cmd = Command::new(bin);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
    ])
    .arg(format!("--user-data-dir={}", profile.display()));
    cmd
}

fn browser_renders_the_report() -> Result<(), Failed> {
    let Some(bin) = find_chromium() else {
        if support::in_ci() {
            return Err("no chromium found (PATH or /usr/bin/chromium), and CI requires the browser test: install Debian's chromium package".into());
        }
        eprintln!();
        eprintln!("************************************************************************");
        eprintln!("SKIPPED: browser test: no chromium (PATH or /usr/bin/chromium).");
        eprintln!("         Install it (apt-get install -y chromium) to run this test.");
        eprintln!("************************************************************************");
        return Ok(());
    };
    let root = support::root();
    let path = root.join("scenarios/kubia-unhealthy.yaml");
    let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
    let scenario = Scenario::load_with(
        &text,
        "scenarios/kubia-unhealthy.yaml",
        &mut support::RepoFiles,
        &Overrides::default(),
    )
    .map_err(|e| e.render(&text))?;
    let html = render(&scenario, Format::Html, false, Vec::new()).map_err(|e| e.to_string())?;
    let out = root.join("target/pictures");
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let page = out.join("kubia-unhealthy.html");
    std::fs::write(&page, &html).map_err(|e| e.to_string())?;
    let url = format!("file://{}", page.display());
    let work = out.join(format!("chromium-profile-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);

    // The DOM after load, with the console on standard error.
    let dom = chromium(&bin, &work.join("dom"))
        .args(["--enable-logging=stderr", "--v=0", "--dump-dom"])
        .arg(&url)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
    let stderr = String::from_utf8_lossy(&dom.stderr);
    if !dom.status.success() {
        return Err(format!("chromium --dump-dom failed ({}):\n{stderr}", dom.status).into());
    }
    let console: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("CONSOLE") || l.contains("Uncaught"))
        .collect();
    if !console.is_empty() {
        return Err(format!(
            "console messages while loading the report:\n{}",
            console.join("\n")
        )
        .into());
    }
    let dom = String::from_utf8_lossy(&dom.stdout);
    for needle in [
        "data-lane=\"kubia/container\"",
        "data-lane=\"kubia/ready\"",
        "data-lane=\"kubia/liveness\"",
        "data-lane=\"pod/ready\"",
        "data-lane=\"events\"",
        "id=\"describe\"",
        // The describe view (`--format describe` at the end) is the describe section.
        "Restart Count:  9",
        "Liveness:       http-get http://:8080/ delay=0s timeout=1s period=10s",
        "id=\"events\"",
        "Container kubia failed liveness probe, will be restarted",
        "CrashLoopBackOff",
    ] {
        if !dom.contains(needle) {
            return Err(format!("the loaded page has no `{needle}`").into());
        }
    }

    // A screenshot, for the eye.
    let png = out.join("kubia-unhealthy.png");
    let _ = std::fs::remove_file(&png);
    let shot = chromium(&bin, &work.join("shot"))
        .arg("--window-size=1200,1600")
        .arg(format!("--screenshot={}", png.display()))
        .arg(&url)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
    let _ = std::fs::remove_dir_all(&work);
    let size = std::fs::metadata(&png).map(|m| m.len()).unwrap_or(0);
    if !shot.status.success() || size < 10_000 {
        return Err(format!(
            "no screenshot ({} bytes, {}):\n{}",
            size,
            shot.status,
            String::from_utf8_lossy(&shot.stderr)
        )
        .into());
    }
    eprintln!("screenshot: {} ({size} bytes)", support::rel(&png));
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let trials = vec![Trial::test(
        "browser::html_report_in_chromium",
        browser_renders_the_report,
    )];
    libtest_mimic::run(&args, trials).exit()
}
