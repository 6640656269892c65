//! Renderings of an analysis: text (one line per figure), JSON and SARIF 2.1.0.

mod json;
pub mod ordered;
mod recommendation;
mod sarif;
mod text;

pub use json::json;
pub use recommendation::{describe, recommendation_json, recommendation_text};
pub use sarif::sarif;
pub use text::text;

use crate::analyze::{AnalysisError, Analyzer, Want};
use crate::figure::ContainerFigures;
use crate::finding::{findings, suppressed, Finding};
use crate::subject::Subject;
use crate::sweep::Sweep;

/// The analysis of one workload.
#[derive(Clone, Debug)]
pub struct WorkloadReport {
    /// What was analysed.
    pub subject: Subject,
    /// The figures of each container with probes.
    pub containers: Vec<ContainerFigures>,
    /// The findings.
    pub findings: Vec<Finding>,
    /// The findings a suppression hides, each with what suppressed it.
    pub suppressed: Vec<(Finding, String)>,
    /// The simulations run (the figures', and those of the findings' fixes).
    pub simulations: u64,
}

impl WorkloadReport {
    /// Analyses a subject: every figure, then the findings.
    ///
    /// # Errors
    /// A stuck engine.
    pub fn of(subject: Subject, sweep: Sweep) -> Result<WorkloadReport, AnalysisError> {
        let analyzer = Analyzer::new(&subject, sweep);
        let containers = analyzer.all(Want::ALL)?;
        let simulations = analyzer.simulations();
        let mut findings = findings(&subject, &containers);
        let suppressed = suppressed(&subject, &containers);
        let simulations =
            simulations + crate::fix::measure(&subject, &containers, &mut findings, sweep)?;
        Ok(WorkloadReport {
            subject,
            containers,
            findings,
            suppressed,
            simulations,
        })
    }
}
