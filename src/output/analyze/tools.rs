//! Tool-call syntax from renders of one and two calls: where each call sits, how the name and
//! the arguments are written, the markers around a call and around the group, ids.

use super::probe::{call_id, Call, IdStyle, Prober, Turn, CONTENT};
use super::text::{
    common_prefix, common_suffix, first_marker, group_end, json_at, same_json, split_tail,
    suffix_at_marker,
};
use crate::output::spec::{CallSyntax, IdSpec, Markers, ToolCallSpec, ValueTyping};
use serde_json::{json, Value};

/// The probe calls.
pub(crate) fn probe_calls() -> Vec<Call> {
    vec![
        Call::new("get_weather", json!({"city": "Paris", "days": 3})),
        Call::new("search_web", json!({"query": "rust peg", "limit": 5})),
    ]
}

/// What the tool probes found.
#[derive(Debug)]
pub(crate) struct Found {
    pub spec: ToolCallSpec,
    pub notes: Vec<String>,
    pub unsure: bool,
    /// The turn shape the template renders calls with.
    pub turn: Turn,
}

/// One call's place in the call region.
#[derive(Debug, Clone, Copy)]
struct Unit {
    start: usize,
    end: usize,
}

/// The call syntax and the unit of each call.
struct Shape {
    syntax: CallSyntax,
    units: Vec<Unit>,
    id: IdSpec,
    /// For XML parameters and key-value syntax, the text that ends the call after the last
    /// argument is part of the unit; for the others the call tail is split from `Z`.
    tail_in_unit: bool,
}

/// The call region of an assistant turn: after the content, before the end of turn.
fn region<'a>(
    a: &'a str,
    first_name: &str,
    eot: Option<&str>,
    think_close: Option<&str>,
) -> Option<(usize, &'a str)> {
    let n = a.find(first_name)?;
    let mut start = a[..n].find(CONTENT).map_or(0, |i| i + CONTENT.len());
    if let Some(c) = think_close.map(str::trim).filter(|c| !c.is_empty()) {
        if let Some(i) = a[start..n].rfind(c) {
            start += i + c.len();
        }
    }
    let mut end = a.len();
    if let Some(e) = eot.filter(|e| !e.is_empty()) {
        if let Some(i) = a[n..].find(e) {
            end = n + i;
        }
    }
    if let Some(i) = a[n..end].find(CONTENT) {
        end = n + i;
    }
    let t = a[..end].trim_end();
    (t.len() > start).then(|| (start, &a[start..t.len()]))
}

/// Renders the probe turns and describes the call syntax; `None` when the template writes no
/// call of the probes.
pub(crate) fn analyze(
    p: &Prober<'_>,
    eot: Option<&str>,
    think_close: Option<&str>,
    kw: &[(&str, Value)],
) -> Option<Found> {
    analyze_cleaned(p, eot, think_close, kw, &|t| t.to_string())
}

/// [`analyze`] on the renders as `clean` rewrites them (message headers taken out, for a
/// layout where each call is a message of its own).
pub(crate) fn analyze_cleaned(
    p: &Prober<'_>,
    eot: Option<&str>,
    think_close: Option<&str>,
    kw: &[(&str, Value)],
    clean: &dyn Fn(&str) -> String,
) -> Option<Found> {
    let calls = probe_calls();
    let mut notes = Vec::new();
    let variants = [
        (false, IdStyle::Plain),
        (true, IdStyle::Plain),
        (false, IdStyle::Kimi),
        (true, IdStyle::Kimi),
    ];
    for (content, (string_args, ids)) in ["", CONTENT]
        .into_iter()
        .flat_map(|c| variants.into_iter().map(move |v| (c, v)))
    {
        let turn = |n: usize| Turn {
            reasoning: None,
            content: Some(content.to_string()),
            calls: calls[..n].to_vec(),
            string_args,
            ids: Some(ids),
        };
        let one = p.assistant(&turn(1), kw);
        let Some(one) = one.filter(|r| r.assistant.contains(&calls[0].name)) else {
            continue;
        };
        let two = p
            .assistant(&turn(2), kw)
            .filter(|r| calls.iter().all(|c| r.assistant.contains(&c.name)));
        let (text, n) = match &two {
            Some(t) => (clean(&t.assistant), 2),
            None => (clean(&one.assistant), 1),
        };
        let Some((_, reg)) = region(&text, &calls[0].name, eot, think_close) else {
            continue;
        };
        let Some(shape) = shape(reg, &calls[..n], ids) else {
            continue;
        };
        let mut spec = decompose(reg, &shape, n == 2, &mut notes);
        if n == 1 {
            notes.push("the template renders only one call per turn".into());
        }
        spec.id = shape.id.clone();
        return Some(Found {
            spec,
            unsure: n == 1,
            notes,
            turn: turn(n),
        });
    }
    None
}

/// Splits the region into section markers, per-call markers and the separator.
fn decompose(reg: &str, shape: &Shape, parallel: bool, notes: &mut Vec<String>) -> ToolCallSpec {
    let units = &shape.units;
    let first = units[0];
    let last = units[units.len() - 1];
    let pre = &reg[..first.start];
    let post = &reg[last.end..];
    let (mut head, mut tail, mut sep, mut sec_open, mut sec_close) = (
        pre.to_string(),
        post.to_string(),
        String::new(),
        String::new(),
        String::new(),
    );
    if units.len() >= 2 {
        let between = &reg[units[0].end..units[1].start];
        let mut z = common_prefix(between, post);
        // The call tail must not end inside a marker.
        for (open, close) in [('<', '>'), ('[', ']')] {
            if let Some(i) = between[..z].rfind(open) {
                if between[..z].rfind(close).map_or(true, |c| c < i) {
                    z = z.min(i);
                }
            }
        }
        let h = suffix_at_marker(pre, common_suffix(pre, &between[z..]));
        head = pre[pre.len() - h..].to_string();
        tail = between[..z].to_string();
        sep = between[z..between.len() - h].to_string();
        sec_open = pre[..pre.len() - h].trim().to_string();
        sec_close = post[z..].trim().to_string();
    }
    let mut syntax = shape.syntax.clone();
    // A list: the group is `[` … `]` with `,` between calls.
    let listy = sec_open.ends_with('[') && sec_close.starts_with(']') && sep.trim() == ",";
    match &mut syntax {
        CallSyntax::JsonObject { list, .. }
        | CallSyntax::Pythonic { list }
        | CallSyntax::NameAsKey { list }
            if listy =>
        {
            *list = true;
            sec_open = sec_open[..sec_open.len() - 1].trim().to_string();
            sec_close = sec_close[1..].trim().to_string();
            sep.clear();
        }
        _ => {}
    }
    if !parallel
        && matches!(
            &syntax,
            CallSyntax::JsonObject { .. }
                | CallSyntax::Pythonic { .. }
                | CallSyntax::NameAsKey { .. }
        )
    {
        // One call: the brackets around it still say "list".
        let t = head.trim_end();
        if t.ends_with('[') && tail.trim_start().starts_with(']') {
            if let CallSyntax::JsonObject { list, .. }
            | CallSyntax::Pythonic { list }
            | CallSyntax::NameAsKey { list } = &mut syntax
            {
                *list = true;
            }
            head = t[..t.len() - 1].to_string();
            tail = tail.trim_start()[1..].to_string();
        }
    }
    // The per-call head is the call marker plus the name prefix; the tail the argument
    // suffix plus the call marker.
    let (call_open, name_prefix) = match &syntax {
        CallSyntax::NameThenJson { .. }
        | CallSyntax::XmlParams { .. }
        | CallSyntax::KeyValue { .. } => split_tail(&head),
        _ => (head.trim().to_string(), String::new()),
    };
    let (args_suffix, call_close) = match (&syntax, shape.tail_in_unit) {
        (CallSyntax::NameThenJson { .. }, false) => match first_marker(&tail) {
            Some((s, e)) if !tail.trim().is_empty() => {
                (tail[s..e].to_string(), tail[e..].trim().to_string())
            }
            _ => (String::new(), String::new()),
        },
        _ => (String::new(), tail.trim().to_string()),
    };
    match &mut syntax {
        CallSyntax::NameThenJson {
            name_prefix: np,
            args_suffix: a,
            ..
        } => {
            *np = name_prefix;
            *a = args_suffix;
        }
        CallSyntax::XmlParams {
            name_prefix: np, ..
        } => *np = name_prefix,
        CallSyntax::KeyValue {
            name_prefix: np, ..
        } => *np = name_prefix,
        _ => {
            if !name_prefix.is_empty() {
                notes.push(format!("unused name prefix {name_prefix:?}"));
            }
        }
    }
    let some = |o: String, c: String| {
        (!o.is_empty() || !c.is_empty()).then_some(Markers { open: o, close: c })
    };
    ToolCallSpec {
        section: some(sec_open, sec_close),
        call: some(call_open, call_close),
        separator: sep,
        syntax,
        id: IdSpec::None,
        parallel,
        values: Default::default(),
        alternatives: Vec::new(),
    }
}

/// Finds every call's unit and the syntax, from the first call's neighbourhood.
fn shape(reg: &str, calls: &[Call], ids: IdStyle) -> Option<Shape> {
    let n0 = reg.find(&calls[0].name)?;
    let before = reg[..n0].trim_end();
    let after = &reg[n0 + calls[0].name.len()..];
    // The name as a JSON string value, or as a JSON key.
    if let Some(b2) = before.strip_suffix('"') {
        let b2 = b2.trim_end();
        if b2.ends_with(':') {
            return json_objects(reg, calls, ids);
        }
        if b2.ends_with('{') && after.trim_start().starts_with("\"") {
            return name_keys(reg, calls);
        }
    }
    if after.starts_with('(') {
        return pythonic(reg, calls);
    }
    if let Some(s) = name_then_json(reg, calls) {
        return Some(s);
    }
    if let Some(s) = key_value(reg, calls) {
        return Some(s);
    }
    xml_params(reg, calls)
}

/// Calls as JSON objects.
fn json_objects(reg: &str, calls: &[Call], ids: IdStyle) -> Option<Shape> {
    let mut units = Vec::new();
    let mut keys = None;
    let mut cursor = 0;
    for (i, c) in calls.iter().enumerate() {
        let quoted = format!("\"{}\"", c.name);
        let n = reg[cursor..].find(&quoted)? + cursor + 1;
        let (obj, start, end) = reg[cursor..n]
            .char_indices()
            .filter(|(_, ch)| *ch == '{')
            .map(|(j, _)| j + cursor)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .find_map(|p| {
                let (v, e) = json_at(reg, p)?;
                (v.is_object() && e > n).then_some((v, p, e))
            })?;
        let o = obj.as_object()?;
        let key_of =
            |want: &dyn Fn(&Value) -> bool| o.iter().find(|(_, v)| want(v)).map(|(k, _)| k.clone());
        let name_key = key_of(&|v| v.as_str() == Some(c.name.as_str()))?;
        let args_key = key_of(&|v| same_json(v, &c.args))?;
        let id = call_id(ids, &c.name, i);
        let id_key = key_of(&|v| v.as_str() == Some(id.as_str()));
        if keys.is_none() {
            keys = Some((name_key, args_key, id_key));
        }
        units.push(Unit { start, end });
        cursor = end;
    }
    let (name_key, args_key, id_key) = keys?;
    let id = if id_key.is_some() {
        IdSpec::InObject
    } else {
        IdSpec::None
    };
    Some(Shape {
        syntax: CallSyntax::JsonObject {
            name_key,
            args_key,
            id_key,
            list: false,
        },
        units,
        id,
        tail_in_unit: false,
    })
}

/// Calls as `{"NAME": {args}}`.
fn name_keys(reg: &str, calls: &[Call]) -> Option<Shape> {
    let mut units = Vec::new();
    let mut cursor = 0;
    for c in calls {
        let quoted = format!("\"{}\"", c.name);
        let n = reg[cursor..].find(&quoted)? + cursor;
        let start = reg[cursor..n].rfind('{')? + cursor;
        let (v, end) = json_at(reg, start)?;
        if !v.get(&c.name).is_some_and(|a| same_json(a, &c.args)) {
            return None;
        }
        units.push(Unit { start, end });
        cursor = end;
    }
    Some(Shape {
        syntax: CallSyntax::NameAsKey { list: false },
        units,
        id: IdSpec::None,
        tail_in_unit: false,
    })
}

/// Calls as Python calls.
fn pythonic(reg: &str, calls: &[Call]) -> Option<Shape> {
    let mut units = Vec::new();
    let mut cursor = 0;
    for c in calls {
        let n = reg[cursor..].find(&format!("{}(", c.name))? + cursor;
        let end = group_end(reg, n + c.name.len())?;
        units.push(Unit { start: n, end });
        cursor = end;
    }
    Some(Shape {
        syntax: CallSyntax::Pythonic { list: false },
        units,
        id: IdSpec::None,
        tail_in_unit: false,
    })
}

/// The name, then the arguments as one JSON object.
fn name_then_json(reg: &str, calls: &[Call]) -> Option<Shape> {
    let mut units = Vec::new();
    let mut mids = Vec::new();
    let mut cursor = 0;
    for c in calls {
        let n = reg[cursor..].find(&c.name)? + cursor;
        let ne = n + c.name.len();
        let open = reg[ne..].find('{')? + ne;
        let (v, end) = json_at(reg, open)?;
        if !same_json(&v, &c.args) {
            return None;
        }
        mids.push(reg[ne..open].to_string());
        units.push(Unit { start: n, end });
        cursor = end;
    }
    let mid = &mids[0];
    let mut id = IdSpec::None;
    let (mut name_suffix, mut args_prefix) = (mid.trim().to_string(), String::new());
    let plain = call_id(IdStyle::Plain, &calls[0].name, 0);
    let index = |m: &str| -> Option<usize> {
        let digits = m.strip_prefix(':')?;
        let n = digits.len()
            - digits
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .len();
        (n > 0).then_some(1 + n)
    };
    if let Some(k) = index(mid).filter(|_| mids.iter().all(|m| index(m).is_some())) {
        // `NAME:IDX`: the call's position written after the name.
        id = IdSpec::Index;
        name_suffix = mid[k..].trim().to_string();
    } else if let Some(i) = mid.find(&plain) {
        let (s, e) = (
            mid[..i].trim().to_string(),
            mid[i + plain.len()..].trim().to_string(),
        );
        name_suffix = String::new();
        id = IdSpec::Marked {
            prefix: s,
            suffix: e.clone(),
            shape: None,
        };
        args_prefix = String::new();
        let _ = e;
    } else if let Some((s, e)) = first_marker(mid).filter(|_| !mid.trim().is_empty()) {
        // `NAME SUFFIX ARGS_PREFIX {`: the first marker ends the name.
        name_suffix = mid[s..e].to_string();
        args_prefix = mid[e..].trim().to_string();
    }
    Some(Shape {
        syntax: CallSyntax::NameThenJson {
            name_prefix: String::new(),
            name_suffix,
            args_prefix,
            args_suffix: String::new(),
        },
        units,
        id,
        tail_in_unit: false,
    })
}

/// `NAME{k:<q>v<q>,n:1}`: keys unquoted, strings between their own quotes.
fn key_value(reg: &str, calls: &[Call]) -> Option<Shape> {
    let n = reg.find(&calls[0].name)?;
    let ne = n + calls[0].name.len();
    let rest = &reg[ne..];
    let open_len = rest.find("city")?;
    let open = rest[..open_len].to_string();
    if open.trim().is_empty() || open.contains('"') || open.contains('\n') {
        return None;
    }
    let after_key = &rest[open_len + 4..];
    let v = after_key.find("Paris")?;
    let between = &after_key[..v];
    let mut chars = between.chars();
    let kv = chars.next()?.to_string();
    let quote = chars.as_str().to_string();
    if quote.is_empty() {
        return None;
    }
    let after_val = &after_key[v + 5..];
    let after_val = after_val.strip_prefix(quote.as_str())?;
    let days = after_val.find("days")?;
    let pair_sep = after_val[..days].to_string();
    let mut units = Vec::new();
    let mut cursor = 0;
    for c in calls {
        let s = reg[cursor..].find(&c.name)? + cursor;
        let o = s + c.name.len() + open.len() - 1;
        let end = group_end(reg, o).or_else(|| reg[o..].find('}').map(|i| o + i + 1))?;
        units.push(Unit { start: s, end });
        cursor = end;
    }
    let close = open
        .chars()
        .last()
        .map(|c| match c {
            '{' => "}",
            '(' => ")",
            '[' => "]",
            _ => "",
        })
        .unwrap_or_default()
        .to_string();
    Some(Shape {
        syntax: CallSyntax::KeyValue {
            name_prefix: String::new(),
            open,
            close,
            key_value_separator: kv,
            pair_separator: pair_sep,
            string_quote: quote,
        },
        units,
        id: IdSpec::None,
        tail_in_unit: true,
    })
}

/// XML-ish parameters: `NAME SUFFIX PREFIX key MIDDLE value SUFFIX …`.
fn xml_params(reg: &str, calls: &[Call]) -> Option<Shape> {
    let n = reg.find(&calls[0].name)?;
    let ne = n + calls[0].name.len();
    let k1 = reg[ne..].find("city")? + ne;
    let k1e = k1 + 4;
    let (v1, quoted) = match reg[k1e..].find("Paris") {
        Some(i) if reg[..k1e + i].ends_with('"') && reg[k1e + i + 5..].starts_with('"') => {
            (k1e + i - 1, true)
        }
        Some(i) => (k1e + i, false),
        None => return None,
    };
    let v1e = if quoted { v1 + 7 } else { v1 + 5 };
    let k2 = reg[v1e..].find("days")? + v1e;
    let a = &reg[ne..k1];
    let b = &reg[v1e..k2];
    let cs = suffix_at_marker(b, common_suffix(a, b));
    let param_prefix = b[b.len() - cs..].trim_start().to_string();
    let name_suffix = a[..a.len() - cs].trim().to_string();
    let param_suffix = b[..b.len() - cs].trim_end().to_string();
    let param_middle = reg[k1e..v1].to_string();
    if param_prefix.is_empty() && param_suffix.trim().is_empty() {
        return None;
    }
    // Each call ends after its last value and its suffix.
    let mut units = Vec::new();
    let mut cursor = 0;
    for c in calls {
        let s = reg[cursor..].find(&c.name)? + cursor;
        let obj = c.args.as_object()?;
        let mut at = s + c.name.len();
        for (k, v) in obj {
            let kp = reg[at..].find(&format!("{param_prefix}{k}"))? + at;
            let text = match v {
                Value::String(t) if !quoted => t.clone(),
                other => other.to_string(),
            };
            let vp = reg[kp..].find(&text)? + kp + text.len();
            at = vp;
        }
        let end = if reg[at..].starts_with(&param_suffix) {
            at + param_suffix.len()
        } else {
            at
        };
        units.push(Unit { start: s, end });
        cursor = end;
    }
    Some(Shape {
        syntax: CallSyntax::XmlParams {
            name_prefix: String::new(),
            name_suffix,
            param_prefix,
            param_middle,
            param_suffix,
            call_suffix: String::new(),
            values: if quoted {
                ValueTyping::Json
            } else {
                ValueTyping::RawStrings
            },
            typed_middles: Vec::new(),
            param_close_after_key: String::new(),
        },
        units,
        id: IdSpec::None,
        tail_in_unit: false,
    })
}
