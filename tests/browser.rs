//! The HTML report in a real browser: headless Chromium (Debian's `chromium`) loads the
//! kubia-unhealthy report, must log no console error, and its DOM must hold the expected lanes;
//! a screenshot goes to `target/pictures/kubia-unhealthy.png` for a person to look at.
//!
//! The playground (`probesim serve`) in the same browser: the page is driven by the state in its
//! address; its restart count, picture and positioned error must follow the state, and
//! screenshots at 1400 px and at a phone's width go to `target/pictures/playground-*.png`.
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

/// The browser, or `None` (and a loud note) when it is missing outside CI.
fn browser_or_skip() -> Result<Option<PathBuf>, Failed> {
    match find_chromium() {
        Some(bin) => Ok(Some(bin)),
        None if support::in_ci() => Err("no chromium found (PATH or /usr/bin/chromium), and CI requires the browser test: install Debian's chromium package".into()),
        None => {
            eprintln!("SKIPPED: playground browser test: no chromium (PATH or /usr/bin/chromium).");
            Ok(None)
        }
    }
}

/// Stops the server this test started, whatever happens to the test.
#[cfg(feature = "cli")]
struct Server(std::process::Child);

#[cfg(feature = "cli")]
impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[cfg(feature = "cli")]
fn playground_in_chromium() -> Result<(), Failed> {
    use std::io::BufRead as _;
    use std::process::Stdio;

    let Some(bin) = browser_or_skip()? else {
        return Ok(());
    };
    // Bound to 127.0.0.1 on a free port; it stops by itself after 60 requests.
    let mut child = Command::new(env!("CARGO_BIN_EXE_probesim"))
        .args(["serve", "--port", "0", "--max-requests", "60"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start probesim serve: {e}"))?;
    let stdout = child.stdout.take().ok_or("no standard output")?;
    let server = Server(child);
    let mut first = String::new();
    std::io::BufReader::new(stdout)
        .read_line(&mut first)
        .map_err(|e| e.to_string())?;
    let url = first
        .split_whitespace()
        .find(|w| w.starts_with("http://127.0.0.1:"))
        .ok_or_else(|| format!("no address in {first:?}"))?
        .to_owned();
    let out = support::root().join("target/pictures");
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let work = out.join(format!("chromium-playground-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    let dom = |state: &str| -> Result<String, Failed> {
        let run = chromium(&bin, &work.join("dom"))
            .args(["--virtual-time-budget=10000", "--dump-dom"])
            .arg(format!("{url}#{state}"))
            .output()
            .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
        Ok(String::from_utf8_lossy(&run.stdout).into_owned())
    };
    let picture = |dom: &str| -> String {
        dom.split("id=\"picture\"")
            .nth(1)
            .and_then(|rest| rest.split("</svg>").next())
            .unwrap_or_default()
            .to_owned()
    };
    // The bundled kubia: 9 restarts in 30 minutes.
    let plain = dom("")?;
    if !plain.contains("id=\"restarts\">9<") || !picture(&plain).contains("<svg") {
        return Err(format!("the playground did not draw kubia with 9 restarts:\n{plain}").into());
    }
    // failureThreshold 1: 11 restarts, another picture.
    let edited = dom("liveness.failureThreshold=1")?;
    if !edited.contains("id=\"restarts\">11<") {
        return Err(format!("failureThreshold=1 did not make 11 restarts:\n{edited}").into());
    }
    if picture(&edited) == picture(&plain) {
        return Err("failureThreshold=1 left the picture as it was".into());
    }
    // The handler: a tcpSocket probe on 8080 finds the port open whatever the HTTP answer, so
    // the probe never fails (P51; P38: the other handlers are removed): no restart, another
    // picture, and describe names the new handler.
    let tcp = dom("liveness.handler=tcpSocket&liveness.port=8080")?;
    if !tcp.contains("id=\"restarts\">0<")
        || !tcp.contains("Liveness:       tcp-socket :8080 delay=0s")
    {
        return Err(format!("a tcpSocket handler did not stop the restarts:\n{tcp}").into());
    }
    if picture(&tcp) == picture(&plain) {
        return Err("a tcpSocket handler left the picture as it was".into());
    }
    // A bad value: the CLI's positioned error, in the page.
    let bad = dom("liveness.successThreshold=2")?;
    for needle in [
        "spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1",
        " --&gt; --set",
    ] {
        if !bad.contains(needle) {
            return Err(format!("the bad value's error has no `{needle}`:\n{bad}").into());
        }
    }
    // Screenshots, for the eye: a wide screen and a phone, and the handler controls at work.
    for (file, size, state) in [
        (
            "playground-1400.png",
            "1400,1000",
            "liveness.failureThreshold=1",
        ),
        (
            "playground-phone.png",
            "390,844",
            "liveness.failureThreshold=1",
        ),
        (
            "playground-handler-1400.png",
            "1400,1000",
            "liveness.handler=tcpSocket&liveness.port=8080",
        ),
    ] {
        let png = out.join(file);
        let _ = std::fs::remove_file(&png);
        let _ = chromium(&bin, &work.join("shot"))
            .args([
                "--virtual-time-budget=10000",
                &format!("--window-size={size}"),
            ])
            .arg(format!("--screenshot={}", png.display()))
            .arg(format!("{url}#{state}"))
            .output();
        let bytes = std::fs::metadata(&png).map(|m| m.len()).unwrap_or(0);
        if bytes < 10_000 {
            return Err(format!("no screenshot {file} ({bytes} bytes)").into());
        }
        eprintln!("screenshot: {} ({bytes} bytes)", support::rel(&png));
    }
    let _ = std::fs::remove_dir_all(&work);
    drop(server);
    Ok(())
}

/// A port that is taken is a clear error, exit code 2, not a hang.
#[cfg(feature = "cli")]
fn serve_refuses_a_taken_port() -> Result<(), Failed> {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    let port = taken.local_addr().map_err(|e| e.to_string())?.port();
    let out = Command::new(env!("CARGO_BIN_EXE_probesim"))
        .args(["serve", "--port", &port.to_string(), "--max-requests", "1"])
        .output()
        .map_err(|e| e.to_string())?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let expected = format!(
        "error: --port {port}: 127.0.0.1:{port} is already in use (another probesim serve?): choose another port with --port, or --port 0 for any free one\n"
    );
    if out.status.code() != Some(2) || stderr != expected {
        return Err(format!("{:?}: {stderr}", out.status.code()).into());
    }
    drop(taken);
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    #[allow(unused_mut)]
    let mut trials = vec![Trial::test(
        "browser::html_report_in_chromium",
        browser_renders_the_report,
    )];
    #[cfg(feature = "cli")]
    trials.push(Trial::test(
        "browser::playground_in_chromium",
        playground_in_chromium,
    ));
    #[cfg(feature = "cli")]
    trials.push(Trial::test(
        "browser::serve_refuses_a_taken_port",
        serve_refuses_a_taken_port,
    ));
    libtest_mimic::run(&args, trials).exit()
}
