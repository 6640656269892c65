//! A checker of the part of JSON Schema (draft 2020-12) that `schema/scenario.schema.json`
//! uses, for tests/check.rs: `type`, `enum`, `const`, local `$ref`s into `$defs`,
//! `properties`, `additionalProperties`, `required`, `propertyNames`, `minProperties`,
//! `items`, `prefixItems`, `minItems`, `maxItems`, `minimum`, `maximum`, `pattern`, `allOf`,
//! `anyOf` and `oneOf`. A schema that uses any other keyword is refused when it is loaded, so
//! the schema cannot grow a rule this checker would silently skip
//! (docs/dependencies.md#development-dependencies says why this is not the `jsonschema` crate).
//! Patterns take the regular-expression subset the schema needs: literals, `\` escapes, `.`,
//! `[...]` classes with ranges, groups, `|`, `?`, `*`, `+`, `^` and `$`.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

/// Keywords that only describe: no instance is refused for them.
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$comment",
    "title",
    "description",
    "examples",
    "default",
];

const TYPES: &[&str] = &[
    "null", "boolean", "object", "array", "number", "integer", "string",
];

/// A loaded schema: its root document, checked to use only the supported keywords.
pub struct Schema {
    root: Value,
}

impl Schema {
    /// Checks that `root` is a well-formed schema of the supported subset: every keyword
    /// known, every value of the shape the keyword needs, every `$ref` resolvable, every
    /// pattern readable.
    pub fn new(root: Value) -> Result<Schema, String> {
        let schema = Schema { root };
        schema.shape(&schema.root, "#")?;
        Ok(schema)
    }

    /// Every way `instance` breaks the schema, each as `/instance/path: what is wrong`.
    pub fn errors(&self, instance: &Value) -> Vec<String> {
        let mut out = Vec::new();
        self.validate(&self.root, instance, "", &mut out);
        out
    }

    fn resolve(&self, reference: &str) -> Option<&Value> {
        let pointer = reference.strip_prefix('#')?;
        self.root.pointer(pointer)
    }

    fn shape(&self, schema: &Value, at: &str) -> Result<(), String> {
        let object = match schema {
            Value::Bool(_) => return Ok(()),
            Value::Object(o) => o,
            _ => return Err(format!("{at}: a schema is an object or a boolean")),
        };
        for (key, value) in object {
            let here = format!("{at}/{key}");
            let bad = |what: &str| Err(format!("{here}: {what}"));
            match key.as_str() {
                k if ANNOTATIONS.contains(&k) => {}
                "type" => {
                    let names: Vec<&Value> = match value {
                        Value::Array(items) if !items.is_empty() => items.iter().collect(),
                        Value::String(_) => vec![value],
                        _ => return bad("a type name or a non-empty list of them"),
                    };
                    if !names
                        .iter()
                        .all(|n| n.as_str().is_some_and(|n| TYPES.contains(&n)))
                    {
                        return bad("an unknown type name");
                    }
                }
                "enum" => {
                    if !value.is_array() {
                        return bad("a list");
                    }
                }
                "const" => {}
                "$ref" => match value.as_str() {
                    Some(r) if self.resolve(r).is_some() => {}
                    _ => return bad("a reference into this document that resolves"),
                },
                "$defs" | "properties" => {
                    let Some(map) = value.as_object() else {
                        return bad("an object of schemas");
                    };
                    for (name, s) in map {
                        self.shape(s, &format!("{here}/{name}"))?;
                    }
                }
                "additionalProperties" | "items" | "propertyNames" => self.shape(value, &here)?,
                "allOf" | "anyOf" | "oneOf" | "prefixItems" => match value.as_array() {
                    Some(items) if !items.is_empty() => {
                        for (i, s) in items.iter().enumerate() {
                            self.shape(s, &format!("{here}/{i}"))?;
                        }
                    }
                    _ => return bad("a non-empty list of schemas"),
                },
                "required" => {
                    if !value
                        .as_array()
                        .is_some_and(|items| items.iter().all(Value::is_string))
                    {
                        return bad("a list of property names");
                    }
                }
                "minimum" | "maximum" => {
                    if !value.is_number() {
                        return bad("a number");
                    }
                }
                "minItems" | "maxItems" | "minProperties" => {
                    if value.as_u64().is_none() {
                        return bad("a non-negative integer");
                    }
                }
                "pattern" => match value.as_str() {
                    Some(p) => {
                        Regex::new(p).map_err(|e| format!("{here}: {e}"))?;
                    }
                    None => return bad("a string"),
                },
                other => return Err(format!("{here}: the keyword `{other}` is not supported")),
            }
        }
        Ok(())
    }

    fn validate(&self, schema: &Value, instance: &Value, at: &str, out: &mut Vec<String>) {
        let object = match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => return out.push(format!("{at}: no value is allowed here")),
            Value::Object(o) => o,
            _ => unreachable!("checked when loaded"),
        };
        let mut fail = |what: String| out.push(format!("{at}: {what}"));
        if let Some(types) = object.get("type") {
            let ok = match types {
                Value::Array(names) => names.iter().any(|n| is_type(n, instance)),
                name => is_type(name, instance),
            };
            if !ok {
                fail(format!("{instance} is not of type {types}"));
            }
        }
        if let Some(Value::Array(values)) = object.get("enum") {
            if !values.contains(instance) {
                fail(format!(
                    "{instance} is not one of {}",
                    Value::from(values.clone())
                ));
            }
        }
        if let Some(value) = object.get("const") {
            if value != instance {
                fail(format!("{instance} is not {value}"));
            }
        }
        if let (Some(n), Some(min)) = (
            instance.as_f64(),
            object.get("minimum").and_then(Value::as_f64),
        ) {
            if n < min {
                fail(format!("{instance} is less than {min}"));
            }
        }
        if let (Some(n), Some(max)) = (
            instance.as_f64(),
            object.get("maximum").and_then(Value::as_f64),
        ) {
            if n > max {
                fail(format!("{instance} is more than {max}"));
            }
        }
        if let (Some(text), Some(pattern)) = (
            instance.as_str(),
            object.get("pattern").and_then(Value::as_str),
        ) {
            let regex = Regex::new(pattern).expect("checked when loaded");
            if !regex.is_match(text) {
                fail(format!("{instance} does not match {pattern:?}"));
            }
        }
        if let Some(Value::Array(items)) = object.get("allOf") {
            for s in items {
                self.validate(s, instance, at, out);
            }
        }
        if let Some(Value::Array(items)) = object.get("anyOf") {
            if !items.iter().any(|s| self.accepts(s, instance)) {
                out.push(format!(
                    "{at}: {instance} matches none of the anyOf schemas"
                ));
            }
        }
        if let Some(Value::Array(items)) = object.get("oneOf") {
            let matching = items.iter().filter(|s| self.accepts(s, instance)).count();
            if matching != 1 {
                out.push(format!(
                    "{at}: {instance} matches {matching} of the oneOf schemas, not exactly one"
                ));
            }
        }
        if let Some(target) = object
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| self.resolve(r))
        {
            self.validate(target, instance, at, out);
        }
        match instance {
            Value::Object(members) => self.validate_object(object, members, at, out),
            Value::Array(items) => self.validate_array(object, items, at, out),
            _ => {}
        }
    }

    fn accepts(&self, schema: &Value, instance: &Value) -> bool {
        let mut errors = Vec::new();
        self.validate(schema, instance, "", &mut errors);
        errors.is_empty()
    }

    fn validate_object(
        &self,
        schema: &Map<String, Value>,
        members: &Map<String, Value>,
        at: &str,
        out: &mut Vec<String>,
    ) {
        let properties = schema.get("properties").and_then(Value::as_object);
        for (key, value) in members {
            let here = format!("{at}/{key}");
            match properties.and_then(|p| p.get(key)) {
                Some(s) => self.validate(s, value, &here, out),
                None => {
                    if let Some(extra) = schema.get("additionalProperties") {
                        if extra == &Value::Bool(false) {
                            out.push(format!("{at}: the property `{key}` is not allowed"));
                        } else {
                            self.validate(extra, value, &here, out);
                        }
                    }
                }
            }
            if let Some(names) = schema.get("propertyNames") {
                self.validate(names, &Value::String(key.clone()), &here, out);
            }
        }
        if let Some(Value::Array(required)) = schema.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !members.contains_key(name) {
                    out.push(format!("{at}: the property `{name}` is required"));
                }
            }
        }
        if let Some(min) = schema.get("minProperties").and_then(Value::as_u64) {
            if (members.len() as u64) < min {
                out.push(format!("{at}: fewer than {min} properties"));
            }
        }
    }

    fn validate_array(
        &self,
        schema: &Map<String, Value>,
        items: &[Value],
        at: &str,
        out: &mut Vec<String>,
    ) {
        let prefix = match schema.get("prefixItems") {
            Some(Value::Array(p)) => p.as_slice(),
            _ => &[],
        };
        for (i, item) in items.iter().enumerate() {
            let here = format!("{at}/{i}");
            match prefix.get(i) {
                Some(s) => self.validate(s, item, &here, out),
                None => {
                    if let Some(s) = schema.get("items") {
                        self.validate(s, item, &here, out);
                    }
                }
            }
        }
        if let Some(min) = schema.get("minItems").and_then(Value::as_u64) {
            if (items.len() as u64) < min {
                out.push(format!("{at}: fewer than {min} items"));
            }
        }
        if let Some(max) = schema.get("maxItems").and_then(Value::as_u64) {
            if items.len() as u64 > max {
                out.push(format!("{at}: more than {max} items"));
            }
        }
    }
}

fn is_type(name: &Value, instance: &Value) -> bool {
    match (name.as_str(), instance) {
        (Some("null"), Value::Null)
        | (Some("boolean"), Value::Bool(_))
        | (Some("object"), Value::Object(_))
        | (Some("array"), Value::Array(_))
        | (Some("number"), Value::Number(_))
        | (Some("string"), Value::String(_)) => true,
        (Some("integer"), Value::Number(n)) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => false,
    }
}

/// A regular expression of the subset above, matched anywhere in a string as JSON Schema's
/// `pattern` is (anchor it with `^` and `$`).
struct Regex {
    alternatives: Vec<Sequence>,
}

type Sequence = Vec<(Atom, Repeat)>;

enum Atom {
    Char(char),
    Any,
    Class {
        ranges: Vec<(char, char)>,
        negated: bool,
    },
    Group(Vec<Sequence>),
    Start,
    End,
}

#[derive(Clone, Copy)]
enum Repeat {
    One,
    Optional,
    Star,
    Plus,
}

impl Regex {
    fn new(pattern: &str) -> Result<Regex, String> {
        let chars: Vec<char> = pattern.chars().collect();
        let mut at = 0;
        let alternatives = parse_alternatives(&chars, &mut at)?;
        if at != chars.len() {
            return Err(format!("unbalanced `)` in pattern {pattern:?}"));
        }
        Ok(Regex { alternatives })
    }

    fn is_match(&self, text: &str) -> bool {
        let text: Vec<char> = text.chars().collect();
        let starts: BTreeSet<usize> = (0..=text.len()).collect();
        !match_alternatives(&self.alternatives, &text, &starts).is_empty()
    }
}

fn parse_alternatives(chars: &[char], at: &mut usize) -> Result<Vec<Sequence>, String> {
    let mut alternatives = vec![Vec::new()];
    while let Some(&c) = chars.get(*at) {
        *at += 1;
        let atom = match c {
            '|' => {
                alternatives.push(Vec::new());
                continue;
            }
            ')' => {
                *at -= 1;
                break;
            }
            '(' => {
                let inner = parse_alternatives(chars, at)?;
                if chars.get(*at) != Some(&')') {
                    return Err("unclosed `(` in pattern".to_owned());
                }
                *at += 1;
                Atom::Group(inner)
            }
            '[' => parse_class(chars, at)?,
            '\\' => Atom::Char(escaped(chars, at)?),
            '.' => Atom::Any,
            '^' => Atom::Start,
            '$' => Atom::End,
            '?' | '*' | '+' | '{' | '}' | ']' => {
                return Err(format!("`{c}` is not supported here in a pattern"))
            }
            c => Atom::Char(c),
        };
        let repeat = match chars.get(*at) {
            Some('?') => Repeat::Optional,
            Some('*') => Repeat::Star,
            Some('+') => Repeat::Plus,
            Some('{') => return Err("counted repetition is not supported in a pattern".to_owned()),
            _ => Repeat::One,
        };
        if !matches!(repeat, Repeat::One) {
            *at += 1;
        }
        alternatives.last_mut().expect("one").push((atom, repeat));
    }
    Ok(alternatives)
}

fn escaped(chars: &[char], at: &mut usize) -> Result<char, String> {
    let c = *chars.get(*at).ok_or("a pattern ends in `\\`")?;
    *at += 1;
    if c.is_ascii_alphanumeric() {
        return Err(format!("the escape `\\{c}` is not supported in a pattern"));
    }
    Ok(c)
}

fn parse_class(chars: &[char], at: &mut usize) -> Result<Atom, String> {
    let negated = chars.get(*at) == Some(&'^');
    if negated {
        *at += 1;
    }
    let mut ranges = Vec::new();
    loop {
        let c = *chars.get(*at).ok_or("unclosed `[` in pattern")?;
        *at += 1;
        let low = match c {
            ']' => break,
            '\\' => escaped(chars, at)?,
            c => c,
        };
        if chars.get(*at) == Some(&'-') && chars.get(*at + 1).is_some_and(|&c| c != ']') {
            let high = chars[*at + 1];
            *at += 2;
            ranges.push((low, high));
        } else {
            ranges.push((low, low));
        }
    }
    Ok(Atom::Class { ranges, negated })
}

/// The positions where some alternative ends, starting from any of `from`.
fn match_alternatives(
    alternatives: &[Sequence],
    text: &[char],
    from: &BTreeSet<usize>,
) -> BTreeSet<usize> {
    let mut ends = BTreeSet::new();
    for sequence in alternatives {
        let mut here = from.clone();
        for (atom, repeat) in sequence {
            here = match_repeat(atom, *repeat, text, &here);
            if here.is_empty() {
                break;
            }
        }
        ends.extend(here);
    }
    ends
}

fn match_repeat(
    atom: &Atom,
    repeat: Repeat,
    text: &[char],
    from: &BTreeSet<usize>,
) -> BTreeSet<usize> {
    let closure = |start: BTreeSet<usize>| {
        let mut all = start.clone();
        let mut frontier = start;
        while !frontier.is_empty() {
            frontier = match_atom(atom, text, &frontier)
                .into_iter()
                .filter(|p| !all.contains(p))
                .collect();
            all.extend(frontier.iter().copied());
        }
        all
    };
    match repeat {
        Repeat::One => match_atom(atom, text, from),
        Repeat::Optional => {
            let mut ends = match_atom(atom, text, from);
            ends.extend(from.iter().copied());
            ends
        }
        Repeat::Star => closure(from.clone()),
        Repeat::Plus => closure(match_atom(atom, text, from)),
    }
}

fn match_atom(atom: &Atom, text: &[char], from: &BTreeSet<usize>) -> BTreeSet<usize> {
    let one = |ok: &dyn Fn(char) -> bool| {
        from.iter()
            .filter(|&&i| text.get(i).is_some_and(|&c| ok(c)))
            .map(|i| i + 1)
            .collect()
    };
    match atom {
        Atom::Char(want) => one(&|c| c == *want),
        Atom::Any => one(&|c| c != '\n'),
        Atom::Class { ranges, negated } => {
            one(&|c| ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *negated)
        }
        Atom::Group(alternatives) => match_alternatives(alternatives, text, from),
        Atom::Start => from.iter().copied().filter(|&i| i == 0).collect(),
        Atom::End => from.iter().copied().filter(|&i| i == text.len()).collect(),
    }
}
