//! Closures as the library runs them: a panic inside one is caught, and an answer the probe
//! cannot give (an exit code to an HTTP probe, HTTP status 0 or 65535, `Serving` to a TCP
//! probe) is refused as the behaviour language refuses it. Either stops the run with an
//! [`ErrorKind::Closure`](crate::ErrorKind::Closure) error that names the closure.

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;

use probesim_core::{Answer, Attempt, Behaviour, Draws, HandlerFamily, Response, SimTime};

/// What went wrong in a closure, the first time it did.
pub(crate) type Fault = Rc<RefCell<Option<String>>>;

/// A user's behaviour, guarded.
pub(crate) struct Guarded {
    inner: Box<dyn Behaviour>,
    family: HandlerFamily,
    /// `the liveness closure of container "web"`.
    name: String,
    fault: Fault,
}

impl Guarded {
    pub(crate) fn new(
        inner: Box<dyn Behaviour>,
        family: HandlerFamily,
        name: String,
        fault: Fault,
    ) -> Guarded {
        Guarded {
            inner,
            family,
            name,
            fault,
        }
    }

    fn record(&self, at: SimTime, what: String) {
        let mut fault = self.fault.borrow_mut();
        if fault.is_none() {
            *fault = Some(format!(
                "{} {what} (attempt at {})",
                self.name,
                probesim_script::format_duration(at.saturating_since(SimTime::ZERO))
            ));
        }
    }
}

/// Why `answer` cannot come from a probe of `family`, in the behaviour language's words.
pub(crate) fn misfit(answer: Answer, family: HandlerFamily) -> Option<String> {
    if let Answer::Status(code) = answer {
        if !(100..=599).contains(&code) {
            return Some(format!(
                "answered HTTP status {code}, which no server sends (a status is 100 to 599)"
            ));
        }
    }
    if let Answer::Exit(code) = answer {
        if !(0..=255).contains(&code) {
            return Some(format!(
                "answered exit code {code}, which no process exits with (an exit code is 0 to 255)"
            ));
        }
    }
    (!answer.applies_to(family)).then(|| {
        format!(
            "answered \"{answer}\", which cannot answer a {} probe",
            family.name()
        )
    })
}

impl Behaviour for Guarded {
    fn respond(&mut self, attempt: &Attempt) -> Response {
        self.check(attempt, |inner| inner.respond(attempt))
    }

    fn respond_drawing(&mut self, attempt: &Attempt, draws: &mut Draws<'_>) -> Response {
        self.check(attempt, |inner| inner.respond_drawing(attempt, draws))
    }

    // P63: what the wrapped behaviour's answers print, after a fault nothing.
    fn printed(&self) -> Option<u32> {
        if self.fault.borrow().is_some() {
            return None;
        }
        self.inner.printed()
    }

    fn text(&self, index: u32) -> &str {
        self.inner.text(index)
    }
}

impl Guarded {
    /// Calls the closure, catching a panic and checking the answer. After a fault the closure
    /// is not called again: the run is about to stop, and every answer is `error`.
    fn check(
        &mut self,
        attempt: &Attempt,
        call: impl FnOnce(&mut dyn Behaviour) -> Response,
    ) -> Response {
        let failed = Response::now(Answer::Error);
        if self.fault.borrow().is_some() {
            return failed;
        }
        match catch_unwind(AssertUnwindSafe(|| call(self.inner.as_mut()))) {
            Ok(response) => match misfit(response.answer, self.family) {
                None => response,
                Some(why) => {
                    self.record(attempt.now, why);
                    failed
                }
            },
            Err(payload) => {
                let message = payload
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a value that is not a message".to_owned());
                self.record(attempt.now, format!("panicked: {message}"));
                failed
            }
        }
    }
}
