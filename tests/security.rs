//! What a scenario from elsewhere (a pull request under review) must not be able to do: read
//! files outside its tree into a log, write through a snapshot link, make `--update` write
//! under CI, or make a reader block or read without end.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn probesim(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_probesim"));
    cmd.args(args)
        .current_dir(support::root())
        .env_remove("CI")
        .stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("probesim runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A scratch directory inside the working tree (the tests run in the repository's root).
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("security")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// A directory outside the working tree, for the files a hostile link points at.
fn outside(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("probesim-security-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("outside directory");
    dir
}

fn quick(dir: &Path) -> PathBuf {
    let scenario = dir.join("quick.yaml");
    std::fs::copy(
        support::root().join("tests/cmd/fixtures/quick-restart.yaml"),
        &scenario,
    )
    .unwrap();
    scenario
}

#[cfg(unix)]
#[test]
fn update_never_writes_through_a_snapshot_link() {
    let dir = scratch("snap-link");
    let victim_dir = outside("victim");
    let victim = victim_dir.join("bashrc");
    std::fs::write(&victim, "export PATH=/usr/bin\n").unwrap();
    let scenario = quick(&dir);
    std::os::unix::fs::symlink(&victim, dir.join("quick.snap")).unwrap();
    let out = probesim(
        &[
            "check",
            "--snapshot",
            "--update",
            scenario.to_str().unwrap(),
        ],
        &[],
    );
    let after = std::fs::read_to_string(&victim).unwrap();
    std::fs::remove_dir_all(&victim_dir).unwrap();
    assert_eq!(
        after, "export PATH=/usr/bin\n",
        "the link's target is untouched"
    );
    let all = text(&out.stdout) + &text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert!(
        all.contains("quick.snap: outside the scenario's tree")
            || all.contains("is a symbolic link"),
        "{all}"
    );
    // A link that stays beside the scenario is refused by --update too: it writes no link.
    std::fs::remove_file(dir.join("quick.snap")).unwrap();
    std::fs::write(dir.join("other.txt"), "kept\n").unwrap();
    std::os::unix::fs::symlink("other.txt", dir.join("quick.snap")).unwrap();
    let out = probesim(
        &[
            "check",
            "--snapshot",
            "--update",
            scenario.to_str().unwrap(),
        ],
        &[],
    );
    let all = text(&out.stdout) + &text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert!(
        all.contains("quick.snap: is a symbolic link; --update writes only regular files"),
        "{all}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("other.txt")).unwrap(),
        "kept\n"
    );
}

#[test]
fn update_is_refused_under_ci_unless_forced() {
    let dir = scratch("ci");
    let scenario = quick(&dir);
    let path = scenario.to_str().unwrap();
    let refused = probesim(
        &["check", "--snapshot", "--update", path],
        &[("CI", "true")],
    );
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).starts_with("error: --update: refused under CI"),
        "{}",
        text(&refused.stderr)
    );
    assert!(!dir.join("quick.snap").exists());
    let forced = probesim(
        &["check", "--snapshot", "--update", "--force", path],
        &[("CI", "true")],
    );
    assert_eq!(forced.status.code(), Some(0), "{}", text(&forced.stderr));
    assert!(dir.join("quick.snap").exists());
    let local = probesim(
        &["check", "--snapshot", "--update", path],
        &[("CI", "false")],
    );
    assert_eq!(local.status.code(), Some(0));
}

#[test]
fn a_sparse_snapshot_is_refused_by_its_size_not_read() {
    // The audit's 3 GB sparse `.snap` took 14.3 GB of memory; now only its size is looked at.
    let dir = scratch("sparse");
    let scenario = quick(&dir);
    let snap = std::fs::File::create(dir.join("quick.snap")).unwrap();
    snap.set_len(3 << 30).unwrap();
    let out = probesim(&["check", "--snapshot", scenario.to_str().unwrap()], &[]);
    let _ = std::fs::remove_file(dir.join("quick.snap"));
    let all = text(&out.stdout) + &text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert!(
        all.contains("quick.snap: input too large: 3221225472 bytes (the limit is 64 MiB)"),
        "{all}"
    );
}

#[cfg(unix)]
#[test]
fn check_does_not_read_a_scenario_linked_out_of_its_tree() {
    let dir = scratch("walk-link");
    std::os::unix::fs::symlink("/etc/passwd", dir.join("passwd.yaml")).unwrap();
    let out = probesim(&["check", dir.to_str().unwrap()], &[]);
    let all = text(&out.stdout) + &text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert!(
        all.contains("passwd.yaml: outside the scenario's tree"),
        "{all}"
    );
    assert!(!all.contains("root:"), "no line of /etc/passwd: {all}");
    // Named on the command line, it is the user's own choice, and still not quoted past
    // the first line's position: it is a scenario file then, and invalid.
    let allowed = probesim(
        &["check", "--allow-outside-tree", dir.to_str().unwrap()],
        &[],
    );
    assert_eq!(allowed.status.code(), Some(2));
}

#[test]
fn the_library_reads_with_the_same_bounded_reader() {
    // The library reads with the binary's reader: a device is refused by its type.
    let err = probesim::Test::manifest("/dev/zero").unwrap_err();
    assert_eq!(
        err.to_string(),
        "error: /dev/zero: not a regular file (a character device): probesim reads scenario and manifest files, or standard input given as `-`"
    );
    let dir = scratch("library");
    let scenario = dir.join("s.yaml");
    std::fs::write(
        &scenario,
        "duration: 1m\nmanifest: /etc/passwd\napps: {web: {probes: {liveness: ok}}}\n",
    )
    .unwrap();
    let path = scenario.to_str().unwrap();
    let confined = probesim::Test::scenario(path).unwrap().run().unwrap_err();
    let shown = confined.to_string();
    assert!(shown.contains("outside the scenario's tree"), "{shown}");
    assert!(
        shown.contains("unless Test::allow_outside_tree allows"),
        "{shown}"
    );
    let allowed = probesim::Test::scenario(path)
        .unwrap()
        .allow_outside_tree()
        .run()
        .unwrap_err()
        .to_string();
    assert!(allowed.contains("not a Kubernetes manifest"), "{allowed}");
    assert!(!allowed.contains("root:"), "{allowed}");
}

const WEB: &str = "\
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
  - name: web
    image: nginx
    livenessProbe: {httpGet: {port: 8080, path: /healthz}, periodSeconds: 10}
";

#[test]
fn a_panicking_closure_is_a_typed_error_that_names_it() {
    let run = probesim::Test::manifest_text(WEB, "web.yaml")
        .behaviour(probesim::ProbeKind::Liveness, |a: &probesim::Attempt| {
            assert!(a.now.whole_secs() < 25, "the app gave up");
            probesim::Response::now(probesim::Answer::Ok)
        })
        .horizon("1m")
        .run();
    let e = run.unwrap_err();
    assert_eq!(e.kind(), probesim::ErrorKind::Closure);
    assert_eq!(
        e.to_string(),
        "error: web.yaml: the livenessProbe closure of container \"web\" panicked: the app gave up (attempt at 30s)"
    );
}

#[test]
fn closure_answers_are_checked_against_the_probe_like_scripts() {
    use probesim::{Answer, Attempt, ProbeKind, Response, Test};
    for (answer, why) in [
        (
            Answer::Exit(0),
            "answered \"exit 0\", which cannot answer a httpGet probe",
        ),
        (
            Answer::Serving,
            "answered \"serving\", which cannot answer a httpGet probe",
        ),
        (
            Answer::Status(0),
            "answered HTTP status 0, which no server sends (a status is 100 to 599)",
        ),
        (
            Answer::Status(65535),
            "answered HTTP status 65535, which no server sends (a status is 100 to 599)",
        ),
    ] {
        let e = Test::manifest_text(WEB, "web.yaml")
            .behaviour(ProbeKind::Liveness, move |_: &Attempt| {
                Response::now(answer)
            })
            .horizon("1m")
            .run()
            .unwrap_err();
        assert_eq!(e.kind(), probesim::ErrorKind::Closure);
        assert_eq!(
            e.to_string(),
            format!("error: web.yaml: the livenessProbe closure of container \"web\" {why} (attempt at 10s)")
        );
    }
    // What an HTTP probe can answer goes through.
    let run = Test::manifest_text(WEB, "web.yaml")
        .behaviour(ProbeKind::Liveness, |_: &Attempt| {
            Response::now(Answer::Status(503))
        })
        .horizon("1m")
        .run()
        .unwrap();
    assert!(!run.kills().is_empty());
}
