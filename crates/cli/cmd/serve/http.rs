//! The little HTTP/1.1 the playground needs: one request per connection, read within limits,
//! one response, then the connection closes.

use std::io::{self, Read, Write};

/// A request, read whole.
#[derive(Debug)]
pub struct Request {
    pub method: String,
    /// The path, without the query.
    pub path: String,
    /// The query's `name=value` pairs, percent-decoded, in order.
    pub query: Vec<(String, String)>,
    /// The body, as text.
    pub body: String,
}

impl Request {
    /// Every value of a query parameter.
    pub fn all(&self, name: &str) -> Vec<String> {
        self.query
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .collect()
    }

    /// The last non-empty value of a query parameter.
    pub fn one(&self, name: &str) -> Option<String> {
        self.query
            .iter()
            .rev()
            .find(|(n, v)| n == name && !v.trim().is_empty())
            .map(|(_, v)| v.trim().to_owned())
    }
}

/// A response.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    content_type: String,
    headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn new(status: u16, content_type: &str, body: &[u8]) -> Response {
        Response {
            status,
            content_type: content_type.to_owned(),
            headers: Vec::new(),
            body: body.to_vec(),
        }
    }

    pub fn text(status: u16, body: &str) -> Response {
        Response::new(status, "text/plain; charset=utf-8", body.as_bytes())
    }

    /// Adds a header; characters a header cannot hold become `_`.
    pub fn header(&mut self, name: &str, value: &str) {
        let value: String = value
            .chars()
            .map(|c| {
                if c.is_ascii_graphic() || c == ' ' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        self.headers.push((name.to_owned(), value));
    }

    pub fn write(&self, w: &mut impl Write) -> io::Result<()> {
        let reason = match self.status {
            200 => "OK",
            400 => "Bad Request",
            403 => "Forbidden",
            404 => "Not Found",
            405 => "Method Not Allowed",
            408 => "Request Timeout",
            413 => "Content Too Large",
            422 => "Unprocessable Content",
            431 => "Request Header Fields Too Large",
            _ => "Error",
        };
        let mut head = format!(
            "HTTP/1.1 {} {reason}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\
             Content-Security-Policy: default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; form-action 'none'; frame-ancestors 'none'\r\n",
            self.status,
            self.content_type,
            self.body.len()
        );
        for (name, value) in &self.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        w.write_all(head.as_bytes())?;
        w.write_all(&self.body)?;
        w.flush()
    }
}

/// Reads one request: a head of at most `max_head` bytes, a body of at most `max_body`. A
/// request that breaks a limit, or is not HTTP, is answered with the response returned as the
/// error.
pub fn read(stream: &mut impl Read, max_head: usize, max_body: usize) -> Result<Request, Response> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = find(&buf, b"\r\n\r\n") {
            break i;
        }
        if buf.len() > max_head {
            return Err(Response::text(431, "request head too large"));
        }
        match stream.read(&mut chunk) {
            Ok(0) => return Err(Response::text(400, "incomplete request")),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(_) => return Err(Response::text(408, "the request took too long")),
        }
    };
    let head = std::str::from_utf8(&buf[..head_end])
        .map_err(|_| Response::text(400, "the request head is not text"))?;
    let mut lines = head.split("\r\n");
    let mut first = lines.next().unwrap_or_default().split(' ');
    let (Some(method), Some(target)) = (first.next(), first.next()) else {
        return Err(Response::text(400, "not an HTTP request"));
    };
    let mut length = 0usize;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match name.trim().to_ascii_lowercase().as_str() {
            "content-length" => {
                length = value
                    .parse()
                    .map_err(|_| Response::text(400, "bad Content-Length"))?;
            }
            // A page of another site that resolves its name to 127.0.0.1 still names itself
            // in Host: only the playground's own addresses are served.
            "host" => {
                let host = value.rsplit_once(':').map_or(value, |(h, _)| h);
                if !matches!(host, "127.0.0.1" | "localhost") {
                    return Err(Response::text(403, "the playground answers 127.0.0.1 only"));
                }
            }
            _ => {}
        }
    }
    if length > max_body {
        return Err(Response::text(
            413,
            &format!("the scenario is too large (at most {} KiB)", max_body >> 10),
        ));
    }
    let mut body = buf[head_end + 4..].to_vec();
    body.truncate(length);
    while body.len() < length {
        let want = (length - body.len()).min(chunk.len());
        match stream.read(&mut chunk[..want]) {
            Ok(0) => return Err(Response::text(400, "incomplete body")),
            Ok(n) => body.extend_from_slice(&chunk[..n]),
            Err(_) => return Err(Response::text(408, "the request took too long")),
        }
    }
    let body =
        String::from_utf8(body).map_err(|_| Response::text(400, "the scenario is not UTF-8"))?;
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let query = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (n, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(n), decode(v))
        })
        .collect();
    Ok(Request {
        method: method.to_owned(),
        path: decode(path),
        query,
        body,
    })
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Percent-decoding, `+` as a space; bytes that do not make UTF-8 are replaced.
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len()
                && bytes[i + 1].is_ascii_hexdigit()
                && bytes[i + 2].is_ascii_hexdigit() =>
            {
                let hex = |b: u8| match b {
                    b'0'..=b'9' => b - b'0',
                    _ => (b | 0x20) - b'a' + 10,
                };
                out.push(hex(bytes[i + 1]) * 16 + hex(bytes[i + 2]));
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(raw: &str) -> Result<Request, u16> {
        read(&mut raw.as_bytes(), 256, 64).map_err(|r| r.status)
    }

    #[test]
    fn a_request_is_read_with_its_query_and_body() {
        let r = request("POST /run?set=livenessProbe.failureThreshold%3D1&for=30m&app=web%3A+ok HTTP/1.1\r\nHost: 127.0.0.1:8026\r\nContent-Length: 5\r\n\r\nhello").unwrap();
        assert_eq!((r.method.as_str(), r.path.as_str()), ("POST", "/run"));
        assert_eq!(r.all("set"), ["livenessProbe.failureThreshold=1"]);
        assert_eq!(r.one("for").as_deref(), Some("30m"));
        assert_eq!(r.one("app").as_deref(), Some("web: ok"));
        assert_eq!(r.body, "hello");
    }

    #[test]
    fn limits_and_foreign_hosts_are_refused() {
        // A body over the limit is refused before it is read.
        assert_eq!(
            request("POST /run HTTP/1.1\r\nContent-Length: 65\r\n\r\n").err(),
            Some(413)
        );
        // A head that never ends.
        assert_eq!(request(&"x".repeat(5000)).err(), Some(431));
        assert_eq!(
            request("GET / HTTP/1.1\r\nHost: evil.example:8026\r\n\r\n").err(),
            Some(403)
        );
        assert_eq!(
            request("GET / HTTP/1.1\r\nHost: localhost:8026\r\n\r\n").map(|r| r.path),
            Ok("/".to_owned())
        );
        // The connection closed before the body was complete.
        assert_eq!(
            request("POST /run HTTP/1.1\r\nContent-Length: 9\r\n\r\nabc").err(),
            Some(400)
        );
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(decode("a%20b+c%3d%"), "a b c=%");
        assert_eq!(decode("%zz%4"), "%zz%4");
        assert_eq!(decode("%é%"), "%é%");
        assert_eq!(decode("%C3%A9"), "é");
    }
}
