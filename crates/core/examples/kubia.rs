//! Prints the kubia-unhealthy timeline (30 minutes) built directly on the core API.

use probesim_core::{
    Answer, Attempt, Behaviours, ContainerSpec, Handler, KubeletConfig, PodSpec, Port, ProbeKind,
    ProbeSpec, ProbeTiming, Profile, PullPolicy, Response, Scheme, Sigterm, SimTime, Simulation,
    VecSink,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let liveness = ProbeSpec::new(
        Handler::HttpGet {
            scheme: Scheme::Http,
            host: None,
            port: Port::Number(8080),
            path: "/".into(),
        },
        ProbeTiming::default(),
    )?;
    let mut container = ContainerSpec::new("kubia", "luksa/kubia-unhealthy")
        .with_probe(ProbeKind::Liveness, liveness);
    container.pull_policy = PullPolicy::Always;
    container.app.sigterm = Sigterm::Ignore;
    let pod = PodSpec::new("kubia-unhealthy").with_container(container);
    let mut behaviours = Behaviours::new(&pod);
    let app = behaviours.add(Box::new({
        let (mut instance, mut n) = (u64::MAX, 0);
        move |a: &Attempt| {
            if a.instance != instance {
                (instance, n) = (a.instance, 0);
            }
            n += 1;
            Response::now(Answer::Status(if n <= 5 { 200 } else { 500 }))
        }
    }));
    behaviours.bind(0, ProbeKind::Liveness, app);
    let mut sim = Simulation::new(
        pod,
        Profile::newest(),
        KubeletConfig::default(),
        0,
        behaviours,
    );
    let mut sink = VecSink::default();
    let until: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1800);
    sim.run_until(SimTime::from_secs(until), &mut sink)?;
    for r in &sink.records {
        println!(
            "{:>8} {:<9} {:<6} {}",
            r.t.to_string(),
            r.kind,
            r.container.as_deref().unwrap_or("-"),
            r.text
        );
    }
    println!("{:?}", sim.status());
    Ok(())
}
