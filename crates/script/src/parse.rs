//! Text → [`Script`]: the lexer, the parser and their errors, plus the small parsers for the `exit`
//! and `sigterm` fields of a scenario's apps (docs/script-language.md#the-exit-and-sigterm-fields).

use core::fmt;
use core::num::NonZeroU64;
use core::ops::Range;

use probesim_core::{Answer, SelfExit, Sigterm, SimDuration};

use crate::duration::{digits_value, parse_duration};
use crate::script::{Limit, Script, Step};

mod random;
mod text;

pub use text::MAX_TEXT;
use text::{quoted, unescape};

/// Where a piece of text sits in its source: byte offset and length, 1-based line and column
/// (columns count characters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Span {
    offset: usize,
    len: usize,
    line: usize,
    column: usize,
}

impl Span {
    /// The position at the start of a text, where counting begins.
    const START: Span = Span {
        offset: 0,
        len: 0,
        line: 1,
        column: 1,
    };

    /// The span of `range` in `source`, counting lines and columns on from `from` when
    /// `range` starts at or after it (so a parser that asks in order reads the text once),
    /// and from the start otherwise.
    fn after(from: Span, source: &str, range: Range<usize>) -> Span {
        let from = if range.start >= from.offset && source.is_char_boundary(from.offset) {
            from
        } else {
            Span::START
        };
        let between = source.get(from.offset..range.start).unwrap_or("");
        let (line, column) = match between.rfind('\n') {
            Some(i) => (
                from.line + between.matches('\n').count(),
                between[i + 1..].chars().count() + 1,
            ),
            None => (from.line, from.column + between.chars().count()),
        };
        Span {
            offset: range.start,
            len: range.end.saturating_sub(range.start),
            line,
            column,
        }
    }
}

/// A script, or an `exit` or `sigterm` field, that could not be read, or an outcome that cannot
/// answer the probe's handler.
///
/// Displays as `<line>:<column>: <message>`; [`ParseError::render`] draws the source line with
/// a caret under the offending word. Messages are lowercase without a trailing period.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    span: Span,
    message: String,
}

impl ParseError {
    pub(crate) fn from_span(span: Span, message: String) -> ParseError {
        ParseError { span, message }
    }

    /// Byte offset of the offending text in the source.
    #[must_use]
    pub fn offset(&self) -> usize {
        self.span.offset
    }

    /// Byte range of the offending text in the source (empty at the end of the text).
    #[must_use]
    pub fn span(&self) -> Range<usize> {
        self.span.offset..self.span.offset + self.span.len
    }

    /// 1-based line of the offending text.
    #[must_use]
    pub fn line(&self) -> usize {
        self.span.line
    }

    /// 1-based column (in characters) of the offending text.
    #[must_use]
    pub fn column(&self) -> usize {
        self.span.column
    }

    /// What is wrong, without the position.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }

    /// A compiler-style report: `name:line:column`, the source line, and a caret under the
    /// offending word (`^` then `~` for the rest of it) followed by the message.
    ///
    /// `source` must be the text that was parsed; `name` says where it came from (a file, a
    /// field path).
    ///
    /// # Examples
    /// ```
    /// let source = "5x200 then refsued";
    /// let error = probesim_script::parse(source).unwrap_err();
    /// assert_eq!(
    ///     error.render(source, "liveness"),
    ///     "liveness:1:12\n\
    ///      1 | 5x200 then refsued\n  \
    ///        |            ^~~~~~~ unknown outcome \"refsued\", did you mean \"refused\"?"
    /// );
    /// ```
    #[must_use]
    pub fn render(&self, source: &str, name: &str) -> String {
        let offset = floor_char_boundary(source, self.span.offset);
        let line_start = source[..offset].rfind('\n').map_or(0, |i| i + 1);
        let line_end = source[offset..]
            .find('\n')
            .map_or(source.len(), |i| offset + i);
        let text = &source[line_start..line_end];
        let text = text.strip_suffix('\r').unwrap_or(text);
        let shown: String = text
            .chars()
            .map(|c| if c == '\t' { ' ' } else { c })
            .collect();
        let end = floor_char_boundary(source, (offset + self.span.len).min(line_end));
        let lead = source[line_start..offset].chars().count();
        let width = source[offset..end.max(offset)].chars().count().max(1);
        let gutter = self.line().to_string();
        let pad = " ".repeat(gutter.len());
        format!(
            "{name}:{line}:{column}\n{gutter} | {shown}\n{pad} | {spaces}^{tildes} {message}",
            line = self.line(),
            column = self.column(),
            spaces = " ".repeat(lead),
            tildes = "~".repeat(width - 1),
            message = self.message,
        )
    }
}

/// The largest char boundary of `text` at or below `index`.
fn floor_char_boundary(text: &str, index: usize) -> usize {
    let mut i = index.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line(), self.column(), self.message)
    }
}

impl std::error::Error for ParseError {}

/// The words that start an outcome.
const OUTCOME_WORDS: [&str; 10] = [
    "ok",
    "fail",
    "open",
    "refused",
    "timeout",
    "exit",
    "serving",
    "not-serving",
    "unknown",
    "error",
];

/// The words that may follow an outcome.
const STEP_END_WORDS: [&str; 5] = ["after", "for", "until", "then", "repeat"];

/// How to write an outcome, for messages.
const OUTCOME_EXAMPLES: &str = "like 200, ok, refused or exit 1";

/// The outcomes spelled by one word.
fn keyword_answer(word: &str) -> Option<Answer> {
    Some(match word {
        "ok" => Answer::Ok,
        "fail" => Answer::Fail,
        "open" => Answer::Open,
        "refused" => Answer::Refused,
        "timeout" => Answer::Timeout,
        "serving" => Answer::Serving,
        "not-serving" => Answer::NotServing,
        "unknown" => Answer::Unknown,
        "error" => Answer::Error,
        _ => return None,
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind<'a> {
    /// A run of anything but white space, `,`, `:`, `×`, `(`, `)` and `|`.
    Word(&'a str),
    /// `(`, opening a random outcome.
    Open,
    /// `)`
    Close,
    /// `|`, between the alternatives of a random outcome.
    Bar,
    /// `,`
    Comma,
    /// `:`
    Colon,
    /// `x` or `×` after a count.
    Times,
    /// `"…"`: what the answer prints (P63), as written between the quotes, escapes undecoded.
    Text(&'a str),
    /// A `"` whose text runs to the end of the script without a closing quote.
    Unclosed,
}

#[derive(Clone, Copy, Debug)]
struct Token<'a> {
    kind: Kind<'a>,
    start: usize,
    end: usize,
}

impl Token<'_> {
    fn range(self) -> Range<usize> {
        self.start..self.end
    }
}

/// Splits the text into tokens. `5x200` is three tokens (`5`, `x`, `200`), and so are
/// `5 x200` and `5x 200`.
fn lex(source: &str) -> Vec<Token<'_>> {
    let mut tokens = Vec::new();
    let mut chars = source.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if c == '"' {
            tokens.push(quoted(source, start, &mut chars));
            continue;
        }
        let single = match c {
            c if c.is_whitespace() => continue,
            ',' => Some(Kind::Comma),
            ':' => Some(Kind::Colon),
            '×' => Some(Kind::Times),
            '(' => Some(Kind::Open),
            ')' => Some(Kind::Close),
            '|' => Some(Kind::Bar),
            _ => None,
        };
        if let Some(kind) = single {
            let end = start + c.len_utf8();
            tokens.push(Token { kind, start, end });
            continue;
        }
        let mut end = start + c.len_utf8();
        while let Some(&(i, c)) = chars.peek() {
            if c.is_whitespace() || matches!(c, ',' | ':' | '×' | '(' | ')' | '|' | '"') {
                break;
            }
            end = i + c.len_utf8();
            chars.next();
        }
        push_word(&mut tokens, &source[start..end], start);
    }
    tokens
}

/// Pushes a word, splitting a count's `x` off it (`5x200`, `5x`, `x200`).
fn push_word<'a>(tokens: &mut Vec<Token<'a>>, word: &'a str, start: usize) {
    let digits = word.bytes().take_while(u8::is_ascii_digit).count();
    let times_at = if word == "x" {
        Some(0)
    } else if digits > 0 && word[digits..].starts_with('x') {
        Some(digits)
    } else if word.starts_with('x') && word[1..].starts_with(|c: char| c.is_ascii_digit()) {
        Some(0)
    } else {
        None
    };
    let Some(at) = times_at else {
        let end = start + word.len();
        tokens.push(Token {
            kind: Kind::Word(word),
            start,
            end,
        });
        return;
    };
    if at > 0 {
        tokens.push(Token {
            kind: Kind::Word(&word[..at]),
            start,
            end: start + at,
        });
    }
    tokens.push(Token {
        kind: Kind::Times,
        start: start + at,
        end: start + at + 1,
    });
    let rest = &word[at + 1..];
    if !rest.is_empty() {
        push_word(tokens, rest, start + at + 1);
    }
}

fn is_digits(word: &str) -> bool {
    !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit())
}

/// An integer as written for an exit code: digits, perhaps after a minus sign.
fn is_integer(word: &str) -> bool {
    is_digits(word.strip_prefix('-').unwrap_or(word))
}

/// How a token is named in messages.
fn describe(token: Option<Token<'_>>) -> String {
    match token.map(|t| t.kind) {
        None => "the end of the text".to_owned(),
        Some(Kind::Word(w)) => format!("{w:?}"),
        Some(Kind::Comma) => "\",\"".to_owned(),
        Some(Kind::Colon) => "\":\"".to_owned(),
        Some(Kind::Times) => "\"x\"".to_owned(),
        Some(Kind::Open) => "\"(\"".to_owned(),
        Some(Kind::Close) => "\")\"".to_owned(),
        Some(Kind::Bar) => "\"|\"".to_owned(),
        Some(Kind::Text(_) | Kind::Unclosed) => "a text in quotes".to_owned(),
    }
}

/// The candidate closest to `word` (ignoring case), if it is close enough to be a misspelling.
fn suggest(word: &str, candidates: &[&'static str]) -> Option<&'static str> {
    let word = word.to_lowercase();
    let limit = if word.chars().count() <= 3 { 1 } else { 2 };
    candidates
        .iter()
        .map(|&c| (edit_distance(&word, c), c))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
/// neighbours each count one.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0_usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

struct Parser<'a> {
    source: &'a str,
    tokens: Vec<Token<'a>>,
    pos: usize,
    /// The last span measured: outcomes are measured in order, each counting on from the one
    /// before, so parsing stays linear in the length of the text.
    last_span: core::cell::Cell<Span>,
    /// The texts the steps print (P63), in order of appearance.
    texts: Vec<Box<str>>,
    /// Per step read so far, where its text sits.
    text_spans: Vec<Option<Span>>,
}

const UNCLOSED: &str = "this text in quotes has no closing quote";

impl<'a> Parser<'a> {
    fn new(source: &'a str) -> Parser<'a> {
        Parser {
            source,
            tokens: lex(source),
            pos: 0,
            last_span: core::cell::Cell::new(Span::START),
            texts: Vec::new(),
            text_spans: Vec::new(),
        }
    }

    /// The span of `range`, counted on from the last one measured.
    fn span(&self, range: Range<usize>) -> Span {
        let span = Span::after(self.last_span.get(), self.source, range);
        self.last_span.set(span);
        span
    }

    fn peek(&self) -> Option<Token<'a>> {
        self.peek_at(0)
    }

    fn peek_at(&self, ahead: usize) -> Option<Token<'a>> {
        self.tokens.get(self.pos + ahead).copied()
    }

    fn bump(&mut self) -> Option<Token<'a>> {
        let token = self.peek();
        if token.is_some() {
            self.pos += 1;
        }
        token
    }

    fn error(&self, range: Range<usize>, message: String) -> ParseError {
        ParseError::from_span(self.span(range), message)
    }

    /// An error at `token`, or just after the last token when the text has ended.
    fn error_at(&self, token: Option<Token<'a>>, message: String) -> ParseError {
        match token {
            Some(t) => self.error(t.range(), message),
            None => {
                let end = self.tokens.last().map_or(0, |t| t.end);
                self.error(end..end, message)
            }
        }
    }

    /// `script := ["pod:"] step (("then" | ",") step)* ["repeat"]`
    fn script(&mut self) -> Result<Script, ParseError> {
        if self.tokens.is_empty() {
            return Err(self.error(0..0, "empty script".to_owned()));
        }
        let pod_scoped = matches!(
            (self.peek().map(|t| t.kind), self.peek_at(1).map(|t| t.kind)),
            (Some(Kind::Word("pod")), Some(Kind::Colon))
        );
        if pod_scoped {
            self.pos += 2;
        }
        let (mut steps, mut outcomes) = (Vec::new(), Vec::new());
        let mut repeat = None;
        loop {
            let (step, outcome) = self.step()?;
            steps.push(step);
            outcomes.push(outcome);
            let Some(token) = self.bump() else { break };
            match token.kind {
                Kind::Comma | Kind::Word("then") => {}
                Kind::Word("repeat") => {
                    if let Some(extra) = self.peek() {
                        return Err(self.error_at(
                            Some(extra),
                            format!(
                                "unexpected {} after \"repeat\", which ends the script",
                                describe(Some(extra))
                            ),
                        ));
                    }
                    repeat = Some(token);
                    break;
                }
                _ => return Err(self.step_end_error(token)),
            }
        }
        if let Some(token) = repeat {
            if Script::can_spin(&steps, true) {
                return Err(self.error_at(
                    Some(token),
                    "script can loop forever without time passing: \"repeat\" needs a step \
                     without \"for\" or \"until\", or \"for\" durations adding up to more than zero"
                        .to_owned(),
                ));
            }
        }
        Ok(
            Script::from_parts(pod_scoped, steps, repeat.is_some(), outcomes).with_texts(
                core::mem::take(&mut self.texts),
                core::mem::take(&mut self.text_spans),
            ),
        )
    }

    /// What to say about `token` where a step should have ended.
    fn step_end_error(&self, token: Token<'a>) -> ParseError {
        const EXPECTED: &str =
            "expected \"after\", \"for\", \"until\", \"then\", \",\" or \"repeat\"";
        let message = match token.kind {
            Kind::Word(w)
                if keyword_answer(w).is_some()
                    || w == "exit"
                    || w.starts_with(|c: char| c.is_ascii_digit()) =>
            {
                format!("expected \"then\" or \",\" before the next step, found {w:?}")
            }
            Kind::Word(w) => match suggest(w, &STEP_END_WORDS) {
                Some(s) => format!("unknown word {w:?}, did you mean {s:?}?"),
                None => format!("unexpected {w:?}, {EXPECTED}"),
            },
            Kind::Times => {
                "unexpected \"x\" after the outcome (a count comes first, like 5x200)".to_owned()
            }
            Kind::Comma | Kind::Colon | Kind::Open | Kind::Close | Kind::Bar => {
                format!("unexpected {}, {EXPECTED}", describe(Some(token)))
            }
            Kind::Text(_) => "a text in quotes comes right after the outcome, before \"after\", \
                              \"for\" and \"until\", like exit 1 \"no such file\""
                .to_owned(),
            Kind::Unclosed => UNCLOSED.to_owned(),
        };
        self.error_at(Some(token), message)
    }

    /// `step := [COUNT ("x" | "×")] outcome ["after" DURATION] [("for" | "until") DURATION]`
    fn step(&mut self) -> Result<(Step, Vec<Span>), ParseError> {
        let count = match (self.peek(), self.peek_at(1).map(|t| t.kind)) {
            (
                Some(
                    t @ Token {
                        kind: Kind::Word(w),
                        ..
                    },
                ),
                Some(Kind::Times),
            ) if is_digits(w) => {
                self.pos += 2;
                Some(self.count(t, w)?)
            }
            (
                Some(
                    t @ Token {
                        kind: Kind::Times, ..
                    },
                ),
                _,
            ) => {
                return Err(self.error_at(
                    Some(t),
                    "expected a count before \"x\", like 5x200".to_owned(),
                ));
            }
            _ => None,
        };
        let (choice, outcome) = self.choice()?;
        let text = self.text()?;
        let mut latency = None;
        let mut limit: Option<(&str, Limit)> = None;
        while let Some(token) = self.peek() {
            match token.kind {
                Kind::Word("after") => {
                    if let Some((word, _)) = limit {
                        let message = format!("\"after\" must come before {word:?}");
                        return Err(self.error_at(Some(token), message));
                    }
                    if latency.is_some() {
                        let message = "a step takes one \"after\"".to_owned();
                        return Err(self.error_at(Some(token), message));
                    }
                    self.pos += 1;
                    latency = Some(self.latency_after()?);
                }
                Kind::Word(word @ ("for" | "until")) => {
                    if limit.is_some() {
                        let message = "a step takes one \"for\" or \"until\"".to_owned();
                        return Err(self.error_at(Some(token), message));
                    }
                    self.pos += 1;
                    let d = self.duration_after(word)?;
                    let l = if word == "for" {
                        Limit::For(d)
                    } else {
                        Limit::Until(d)
                    };
                    limit = Some((word, l));
                }
                _ => break,
            }
        }
        let (low, high) = latency.unwrap_or((SimDuration::ZERO, SimDuration::ZERO));
        let step = Step::new(count, choice.first(), low, limit.map(|(_, l)| l))
            .with_choice(choice)
            .with_latency_range(low, high)
            .with_text(text);
        Ok((step, outcome))
    }

    /// The step's optional `"text"` (P63): decoded, kept in the table, and its index returned.
    fn text(&mut self) -> Result<Option<u32>, ParseError> {
        let token = self.peek();
        let (raw, token) = match token.map(|t| t.kind) {
            Some(Kind::Text(raw)) => (raw, token),
            Some(Kind::Unclosed) => return Err(self.error_at(token, UNCLOSED.to_owned())),
            _ => {
                self.text_spans.push(None);
                return Ok(None);
            }
        };
        let Some(t) = token else { return Ok(None) };
        self.pos += 1;
        let decoded = unescape(raw).map_err(|(at, len, message)| {
            let from = t.start + 1 + at;
            self.error(from..from + len, message)
        })?;
        if decoded.len() > MAX_TEXT {
            return Err(self.error_at(
                token,
                format!(
                    "text of {} bytes is too long (at most {MAX_TEXT}; the kubelet keeps the \
                     first 10240)",
                    decoded.len()
                ),
            ));
        }
        let index = u32::try_from(self.texts.len())
            .map_err(|_| self.error_at(token, "too many texts".to_owned()))?;
        self.texts.push(decoded.into_boxed_str());
        let span = self.span(t.range());
        self.text_spans.push(Some(span));
        Ok(Some(index))
    }

    fn count(&self, token: Token<'a>, digits: &str) -> Result<NonZeroU64, ParseError> {
        match digits_value(digits).map(NonZeroU64::new) {
            Some(Some(n)) => Ok(n),
            Some(None) => Err(self.error_at(Some(token), "count must be at least 1".to_owned())),
            None => Err(self.error_at(Some(token), "count too large".to_owned())),
        }
    }

    /// The outcome and where it is written.
    fn outcome(&mut self) -> Result<(Answer, Span), ParseError> {
        let token = self.bump();
        let Some(Token {
            kind: Kind::Word(word),
            start,
            end,
        }) = token
        else {
            let message = format!(
                "expected an outcome ({OUTCOME_EXAMPLES}), found {}",
                describe(token)
            );
            return Err(self.error_at(token, message));
        };
        let span = |parser: &Self, end| parser.span(start..end);
        if let Some(answer) = keyword_answer(word) {
            return Ok((answer, span(self, end)));
        }
        if is_digits(word) {
            let status = digits_value(word)
                .and_then(|v| u16::try_from(v).ok())
                .filter(|v| (100..=599).contains(v));
            return match status {
                Some(code) => Ok((Answer::Status(code), span(self, end))),
                None if self.peek().is_some_and(starts_outcome) => Err(self.error_at(
                    token,
                    format!("expected \"x\" after the count {word}, like {word}x200"),
                )),
                None => Err(self.error_at(
                    token,
                    format!("invalid HTTP status {word} (must be 100 to 599)"),
                )),
            };
        }
        let message = match word {
            "exit" => {
                let code_token = self.bump();
                let code = self.exit_code(code_token)?;
                let end = code_token.map_or(end, |t| t.end);
                return Ok((Answer::Exit(code), span(self, end)));
            }
            "pod" if self.peek().map(|t| t.kind) == Some(Kind::Colon) => {
                "\"pod:\" must start the script".to_owned()
            }
            "pod" if self.pos == 1 => "expected \":\" after \"pod\", as in \"pod: ok\"".to_owned(),
            w if w.starts_with(|c: char| c.is_ascii_digit() || c == '-') => {
                format!("invalid HTTP status {w:?} (must be 100 to 599)")
            }
            w if STEP_END_WORDS.contains(&w) => {
                format!("expected an outcome ({OUTCOME_EXAMPLES}), found {w:?}")
            }
            w => {
                let exit_code = w.strip_prefix("exit").filter(|n| is_integer(n));
                match (exit_code, suggest(w, &OUTCOME_WORDS)) {
                    (Some(n), _) => format!("unknown outcome {w:?}, did you mean \"exit {n}\"?"),
                    (None, Some(s)) => format!("unknown outcome {w:?}, did you mean {s:?}?"),
                    (None, None) => format!(
                        "unknown outcome {w:?} (expected a status like 200, ok, fail, open, \
                         refused, timeout, exit N, serving, not-serving, unknown or error)"
                    ),
                }
            }
        };
        Err(self.error_at(token, message))
    }

    /// The exit code in `token`, 0 to 255.
    fn exit_code(&self, token: Option<Token<'a>>) -> Result<i32, ParseError> {
        let Some(Token {
            kind: Kind::Word(word),
            ..
        }) = token.filter(|t| matches!(t.kind, Kind::Word(w) if is_integer(w)))
        else {
            let message = format!(
                "expected an exit code after \"exit\", found {}",
                describe(token)
            );
            return Err(self.error_at(token, message));
        };
        let code = digits_value(word)
            .and_then(|v| i32::try_from(v).ok())
            .filter(|v| (0..=255).contains(v));
        code.ok_or_else(|| {
            self.error_at(token, format!("exit code must be 0 to 255, found {word}"))
        })
    }

    /// The duration after `keyword`.
    fn duration_after(&mut self, keyword: &str) -> Result<SimDuration, ParseError> {
        let token = self.bump();
        match token {
            Some(Token {
                kind: Kind::Word(word),
                ..
            }) => parse_duration(word).map_err(|e| self.error_at(token, e.to_string())),
            _ => {
                let message = format!(
                    "expected a duration after {keyword:?}, found {}",
                    describe(token)
                );
                Err(self.error_at(token, message))
            }
        }
    }

    /// Fails on anything left after `what`.
    fn finish(&self, what: &str) -> Result<(), ParseError> {
        match self.peek() {
            None => Ok(()),
            Some(token) => Err(self.error_at(
                Some(token),
                format!("unexpected {} after {what}", describe(Some(token))),
            )),
        }
    }
}

/// Can `token` begin an outcome?
fn starts_outcome(token: Token<'_>) -> bool {
    match token.kind {
        Kind::Word(w) => is_digits(w) || keyword_answer(w).is_some() || w == "exit",
        Kind::Open => true,
        Kind::Times
        | Kind::Comma
        | Kind::Colon
        | Kind::Close
        | Kind::Bar
        | Kind::Text(_)
        | Kind::Unclosed => false,
    }
}

/// Reads a behaviour script (docs/script-language.md#grammar).
///
/// # Errors
/// A [`ParseError`] with the position and a message: an empty script, an unknown word (with
/// the closest keyword when there is one), a zero count, an HTTP status outside 100–599, an
/// exit code outside 0–255, a bad duration, words after the end, or a `repeat` script that can
/// loop forever without time passing.
///
/// # Examples
/// ```
/// let script = probesim_script::parse("5 x 200, 500")?;
/// assert_eq!(script.to_string(), "5x200 then 500");
///
/// let error = probesim_script::parse("0x200").unwrap_err();
/// assert_eq!(error.to_string(), "1:1: count must be at least 1");
/// # Ok::<(), probesim_script::ParseError>(())
/// ```
pub fn parse(text: &str) -> Result<Script, ParseError> {
    Parser::new(text).script()
}

/// Reads an app's `exit` field (docs/scenario-format.md#apps): `CODE after DURATION`, e.g. `1 after
/// 2s`, the process exiting by itself with that code at that uptime.
///
/// # Errors
/// A [`ParseError`] when the text is not a code from 0 to 255, `after` and a duration.
///
/// # Examples
/// ```
/// use probesim_core::{SelfExit, SimDuration};
///
/// let exit = probesim_script::parse_exit("1 after 2s")?;
/// assert_eq!(exit, SelfExit { code: 1, after: SimDuration::from_secs(2) });
/// # Ok::<(), probesim_script::ParseError>(())
/// ```
pub fn parse_exit(text: &str) -> Result<SelfExit, ParseError> {
    let mut p = Parser::new(text);
    if p.tokens.is_empty() {
        let message = "empty exit, expected a code and a time like \"1 after 2s\"".to_owned();
        return Err(p.error(0..0, message));
    }
    let token = p.bump();
    if !token.is_some_and(|t| matches!(t.kind, Kind::Word(w) if is_integer(w))) {
        let message = format!(
            "expected an exit code like \"1 after 2s\", found {}",
            describe(token)
        );
        return Err(p.error_at(token, message));
    }
    let code = p.exit_code(token)?;
    let after = p.after("\"1 after 2s\"")?;
    p.finish("the exit time")?;
    Ok(SelfExit { code, after })
}

/// Reads an app's `sigterm` field (docs/scenario-format.md#sigterm): `ignore` (SIGKILL at the end
/// of the grace period), `exit after D` (dies of the signal, 143) or `exit N after D` (handles it
/// and exits with its own code).
///
/// # Errors
/// A [`ParseError`] when the text is none of those forms.
///
/// # Examples
/// ```
/// use probesim_core::{Sigterm, SimDuration};
/// use probesim_script::parse_sigterm;
///
/// assert_eq!(parse_sigterm("ignore")?, Sigterm::Ignore);
/// let after = SimDuration::from_secs(3);
/// assert_eq!(parse_sigterm("exit after 3s")?, Sigterm::Exit { code: None, after });
/// assert_eq!(parse_sigterm("exit 0 after 3s")?, Sigterm::Exit { code: Some(0), after });
/// # Ok::<(), probesim_script::ParseError>(())
/// ```
pub fn parse_sigterm(text: &str) -> Result<Sigterm, ParseError> {
    const FORMS: &str = "\"ignore\", \"exit after 3s\" or \"exit 0 after 3s\"";
    let mut p = Parser::new(text);
    let token = p.bump();
    match token.map(|t| t.kind) {
        None => Err(p.error(0..0, format!("empty sigterm, expected {FORMS}"))),
        Some(Kind::Word("ignore")) => {
            p.finish("\"ignore\"")?;
            Ok(Sigterm::Ignore)
        }
        Some(Kind::Word("exit")) => {
            let code = match p.peek() {
                Some(
                    t @ Token {
                        kind: Kind::Word(w),
                        ..
                    },
                ) if is_integer(w) => {
                    p.pos += 1;
                    Some(p.exit_code(Some(t))?)
                }
                _ => None,
            };
            let after = p.after("\"exit after 3s\"")?;
            p.finish("the exit time")?;
            Ok(Sigterm::Exit { code, after })
        }
        Some(Kind::Word(w)) => {
            let message = match suggest(w, &["ignore", "exit"]) {
                Some(s) => format!("unknown sigterm reaction {w:?}, did you mean {s:?}?"),
                None => format!("expected {FORMS}, found {w:?}"),
            };
            Err(p.error_at(token, message))
        }
        Some(_) => Err(p.error_at(
            token,
            format!("expected {FORMS}, found {}", describe(token)),
        )),
    }
}

impl Parser<'_> {
    /// `after DURATION`, as in `example`.
    fn after(&mut self, example: &str) -> Result<SimDuration, ParseError> {
        let token = self.bump();
        if token.map(|t| t.kind) != Some(Kind::Word("after")) {
            let message = format!(
                "expected \"after\" and a time, like {example}, found {}",
                describe(token)
            );
            return Err(self.error_at(token, message));
        }
        self.duration_after("after")
    }
}

#[cfg(test)]
mod tests;
