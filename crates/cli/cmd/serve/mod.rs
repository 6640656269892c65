//! `probesim serve`: a playground in the browser, on 127.0.0.1 only.
//!
//! The page, its script and its style are served by the binary ([`page`]); every change in the
//! page posts the scenario's text and the edits to `/run`, which simulates and answers with the
//! picture, the `get -w` rows, `describe` at the chosen instant, the explanation and the
//! scenario file with the edits written in ([`simulate`]). Bad input is answered with the same
//! positioned error the command line prints, and the server goes on.
//!
//! The server is std's `TcpListener`, one connection at a time: the page makes one request per
//! change, so nothing needs more, and a small loop with hard limits is easier to trust than a
//! framework. Every read has a timeout, a request head is at most [`MAX_HEAD`] bytes, a body at
//! most [`MAX_BODY`], and a run at most [`MAX_HORIZON_SECS`] of virtual time.

mod http;
mod page;
mod simulate;

use std::io::{self, Write};
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener};
use std::time::Duration;

use crate::args::ServeArgs;
use crate::cmd::{print_error, read_input};
use crate::exit::ExitStatus;

use self::http::{Request, Response};

/// The largest request head (request line and headers) read.
pub const MAX_HEAD: usize = 16 << 10;
/// The largest request body read: far more than a scenario file needs.
pub const MAX_BODY: usize = 1 << 20;
/// The longest run simulated for the page (24 hours).
pub const MAX_HORIZON_SECS: u64 = 24 * 3600;
/// How long a connection may take to send its request.
const READ_TIMEOUT: Duration = Duration::from_secs(5);

/// The scenario the page opens without a file.
const BUNDLED: &str = include_str!("../../../../scenarios/kubia-unhealthy.yaml");

pub fn serve(args: &ServeArgs) -> ExitStatus {
    let (name, text) = match &args.scenario {
        None => ("kubia-unhealthy.yaml".to_owned(), BUNDLED.to_owned()),
        Some(path) => match read_input(path) {
            Ok(t) => (
                std::path::Path::new(path).file_name().map_or_else(
                    || "scenario.yaml".to_owned(),
                    |n| n.to_string_lossy().into_owned(),
                ),
                t,
            ),
            Err(e) => {
                print_error(&e);
                return ExitStatus::Error;
            }
        },
    };
    if text.len() > MAX_BODY {
        print_error(&format!(
            "{name}: too large for the playground (at most {} KiB)",
            MAX_BODY >> 10
        ));
        return ExitStatus::Error;
    }
    let address = SocketAddrV4::new(Ipv4Addr::LOCALHOST, args.port);
    let listener = match TcpListener::bind(address) {
        Ok(l) => l,
        Err(e) if e.kind() == io::ErrorKind::AddrInUse => {
            print_error(&format!(
                "--port {}: 127.0.0.1:{} is already in use (another probesim serve?): choose another port with --port, or --port 0 for any free one",
                args.port, args.port
            ));
            return ExitStatus::Error;
        }
        Err(e) => {
            print_error(&format!(
                "--port {}: cannot listen on 127.0.0.1: {e}",
                args.port
            ));
            return ExitStatus::Error;
        }
    };
    let port = listener.local_addr().map_or(args.port, |a| a.port());
    {
        let mut stdout = io::stdout().lock();
        let _ = writeln!(
            stdout,
            "probesim serve: http://127.0.0.1:{port}/ opens {name} (Ctrl-C stops)"
        );
        let _ = stdout.flush();
    }
    let mut served: u64 = 0;
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { continue };
        let _ = stream.set_read_timeout(Some(READ_TIMEOUT));
        let _ = stream.set_write_timeout(Some(READ_TIMEOUT));
        let response = match http::read(&mut stream, MAX_HEAD, MAX_BODY) {
            Ok(request) => route(&request, &name, &text),
            Err(response) => response,
        };
        let _ = response.write(&mut stream);
        served += 1;
        if args.max_requests.is_some_and(|n| served >= n) {
            break;
        }
    }
    ExitStatus::Success
}

fn route(request: &Request, name: &str, text: &str) -> Response {
    match (request.method.as_str(), request.path.as_str()) {
        ("GET", "/") => Response::new(200, "text/html; charset=utf-8", page::PAGE.as_bytes()),
        ("GET", "/scenario") => {
            let mut r = Response::new(200, "text/plain; charset=utf-8", text.as_bytes());
            r.header("X-Scenario-Name", name);
            r
        }
        ("POST", "/run") => simulate::answer(request, name),
        ("GET" | "POST", _) => Response::text(404, "no such page"),
        _ => Response::text(405, "only GET and POST"),
    }
}
