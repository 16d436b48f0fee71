//! xgrammar structural tags: `{"type": "structural_tag", "format": FORMAT}`, where a format is
//! a tree of `const_string`, `json_schema`, `any_text`, `regex`, `grammar`, `sequence`, `or`,
//! `optional`, `star`, `plus`, `tag` (begin, content, end), `triggered_tags` and
//! `tags_with_separator` nodes (see [`node`] for how each is written).
//!
//! The tag is built from the same rules as GBNF and Lark ([`super::build`]): a rule is
//! written node for node ([`compile`]), tool arguments and JSON-typed parameters become
//! `json_schema` nodes, free text that stops at markers becomes `any_text` with those markers
//! as `excludes`, whitespace a `regex`, and a rule that refers to itself (a Python or Gemma
//! value of any type) a `grammar` node holding that rule's GBNF. Where the turn is free text
//! with calls behind openers ([`layout`]), the calls are written the structural-tag way: the
//! reasoning block as a `tag` whose content is `any_text`, free text as `triggered_tags` whose
//! triggers are the call openers, one `tag` per tool (begin = the call's markers and name as
//! far as they are fixed), several calls that end with one marker as one `tag` from the trigger
//! to the last call's end, and a section around all calls as a `tag` holding
//! `tags_with_separator`.

use super::build::{self, call_body, cat, mark, marks};
use super::ir::{Expr, Rules};
use super::{gbnf, Grammar, GrammarOptions, Tool, ToolChoice};
use crate::output::spec::{CallSyntax, FormatSpec, ReasoningMode, ToolCallSpec};
use crate::Error;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};

/// Optional whitespace, as the grammar's `ws` rule writes it.
const WS: &str = "[ \\t\\n\\r]*";

/// The structural tag of `spec` for `tools`.
pub(crate) fn export(
    spec: &FormatSpec,
    tools: &[Tool],
    o: &GrammarOptions,
) -> Result<Grammar, Error> {
    let (format, triggers) = match layout(spec, tools, o)? {
        Some(f) => (f, Vec::new()),
        None => {
            let (mut rules, triggers) = build::build(spec, tools, o)?;
            rules.prune();
            let root = rules
                .rules
                .first()
                .map(|(_, e)| e.clone())
                .unwrap_or(Expr::Empty);
            (Compiler::new(&rules).node(&root), triggers)
        }
    };
    let tag = json!({"type": "structural_tag", "format": format});
    Ok(Grammar {
        grammar: serde_json::to_string_pretty(&tag).unwrap_or_default(),
        triggers,
        notes: Vec::new(),
    })
}

fn konst(s: &str) -> Value {
    json!({"type": "const_string", "value": s})
}

fn regex(p: &str) -> Value {
    json!({"type": "regex", "pattern": p})
}

fn any_text(excludes: &[String]) -> Value {
    if excludes.is_empty() {
        json!({"type": "any_text"})
    } else {
        json!({"type": "any_text", "excludes": excludes})
    }
}

fn tag(begin: &str, content: Value, end: &str) -> Value {
    json!({"type": "tag", "begin": begin, "content": content, "end": end})
}

/// `elements` in order, adjacent constants merged; one element stands alone.
fn sequence(elements: Vec<Value>) -> Value {
    let mut v: Vec<Value> = Vec::new();
    for e in elements {
        if e["type"] == "sequence" {
            if let Some(inner) = e["elements"].as_array() {
                for x in inner {
                    push_merged(&mut v, x.clone());
                }
                continue;
            }
        }
        push_merged(&mut v, e);
    }
    match v.len() {
        0 => konst(""),
        1 => v.pop().unwrap_or_else(|| konst("")),
        _ => json!({"type": "sequence", "elements": v}),
    }
}

fn push_merged(v: &mut Vec<Value>, e: Value) {
    if e["type"] == "const_string" {
        let s = e["value"].as_str().unwrap_or("");
        if s.is_empty() {
            return;
        }
        if let Some(last) = v.last_mut() {
            if last["type"] == "const_string" {
                let joined = format!("{}{s}", last["value"].as_str().unwrap_or(""));
                *last = konst(&joined);
                return;
            }
        }
    }
    v.push(e);
}

fn or(mut elements: Vec<Value>) -> Value {
    elements.dedup();
    match elements.len() {
        1 => elements.pop().unwrap_or_else(|| konst("")),
        _ => json!({"type": "or", "elements": elements}),
    }
}

/// A character class as a regular expression.
fn class_regex(negated: bool, ranges: &[(char, char)]) -> String {
    if negated && ranges.is_empty() {
        return "[\\s\\S]".into();
    }
    let mut out = String::from(if negated { "[^" } else { "[" });
    let esc = |c: char, out: &mut String| match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\\' | ']' | '[' | '^' | '-' => {
            out.push('\\');
            out.push(c);
        }
        c if (c as u32) < 0x20 || c as u32 == 0x7f => {
            out.push_str(&format!("\\u{:04X}", c as u32));
        }
        c => out.push(c),
    };
    super::print::push_ranges(&mut out, ranges, esc);
    out.push(']');
    out
}

/// Whether xgrammar counts `f` as unbounded (it then needs a non-empty end when it is a tag's
/// content): free text, repetition and tag lists.
fn unlimited(f: &Value) -> bool {
    match f["type"].as_str().unwrap_or("") {
        "any_text" => !f["excludes"].as_array().is_some_and(|e| !e.is_empty()),
        "triggered_tags" | "tags_with_separator" | "star" | "plus" => true,
        "sequence" | "or" => f["elements"].as_array().is_some_and(|v| {
            v.iter().any(|x| {
                unlimited(x)
                    && !(x["type"] == "any_text"
                        && x["excludes"].as_array().is_some_and(|e| !e.is_empty()))
            })
        }),
        "optional" => unlimited(&f["content"]),
        _ => false,
    }
}

/// Writes grammar rules as structural-tag nodes.
struct Compiler<'a> {
    rules: &'a Rules,
    /// Rules that refer to themselves, directly or not: written as `grammar` nodes.
    recursive: HashSet<String>,
}

impl<'a> Compiler<'a> {
    fn new(rules: &'a Rules) -> Self {
        let index: HashMap<&str, &Expr> =
            rules.rules.iter().map(|(n, e)| (n.as_str(), e)).collect();
        let mut recursive = HashSet::new();
        for (name, e) in &rules.rules {
            // Rules the body reaches; recursive when the rule is among them.
            let mut seen: HashSet<&str> = HashSet::new();
            let mut todo: Vec<&str> = Vec::new();
            refs(e, &mut todo);
            while let Some(n) = todo.pop() {
                if !seen.insert(n) {
                    continue;
                }
                if let Some(b) = index.get(n) {
                    refs(b, &mut todo);
                }
            }
            if seen.contains(name.as_str()) {
                recursive.insert(name.clone());
            }
        }
        Compiler { rules, recursive }
    }

    /// The node of `e`.
    fn node(&self, e: &Expr) -> Value {
        match e {
            Expr::Empty => konst(""),
            Expr::Lit(s) => konst(s),
            Expr::Class { negated, ranges } => regex(&class_regex(*negated, ranges)),
            Expr::Ref(n) => self.reference(n),
            Expr::Seq(v) => sequence(v.iter().map(|x| self.node(x)).collect()),
            Expr::Alt(v) => {
                let items: Vec<Value> = v
                    .iter()
                    .filter(|x| **x != Expr::Empty)
                    .map(|x| self.node(x))
                    .collect();
                let alt = or(items);
                if v.contains(&Expr::Empty) {
                    json!({"type": "optional", "content": alt})
                } else {
                    alt
                }
            }
            Expr::Opt(x) => json!({"type": "optional", "content": self.node(x)}),
            Expr::Star(x) | Expr::Plus(x) => {
                let op = if matches!(e, Expr::Star(_)) { "*" } else { "+" };
                if let Expr::Class { negated, ranges } = &**x {
                    return regex(&format!("{}{op}", class_regex(*negated, ranges)));
                }
                let kind = if op == "*" { "star" } else { "plus" };
                json!({"type": kind, "content": self.node(x)})
            }
        }
    }

    fn reference(&self, n: &str) -> Value {
        if let Some(s) = self.rules.json_schema_of(n) {
            return json_schema(s);
        }
        if n == "ws" {
            return regex(WS);
        }
        if n == "any-text" {
            return any_text(&[]);
        }
        if let Some((through, stops)) = self.rules.automaton_of(n) {
            let free = any_text(&stops);
            if !through {
                return free;
            }
            let ends = or(stops.iter().map(|s| konst(s)).collect());
            return sequence(vec![free, ends]);
        }
        if self.recursive.contains(n) {
            return json!({"type": "grammar", "grammar": self.gbnf_of(n)});
        }
        match self.rules.body(n) {
            Some(b) => self.node(b),
            None => konst(""),
        }
    }

    /// The GBNF of the rule `n` and the rules it reaches, with `n` as the root.
    fn gbnf_of(&self, n: &str) -> String {
        let mut sub = Rules::default();
        sub.rules = self.rules.rules.clone();
        sub.set_root(Expr::Ref(n.to_string()));
        // `root` may be a rule name of the copy: rename the original start rule.
        if let Some(r) = sub.rules.get_mut(1) {
            if r.0 == "root" {
                r.0 = "root-0".into();
            }
        }
        sub.prune();
        gbnf::print(&sub)
    }
}

fn refs<'e>(e: &'e Expr, out: &mut Vec<&'e str>) {
    match e {
        Expr::Ref(n) => out.push(n),
        Expr::Seq(v) | Expr::Alt(v) => v.iter().for_each(|x| refs(x, out)),
        Expr::Opt(x) | Expr::Star(x) | Expr::Plus(x) => refs(x, out),
        _ => {}
    }
}

/// A `json_schema` node. JSON may escape any character as \uXXXX (templates that dump with
/// `ensure_ascii` do); llguidance's JSON schemas take that only with the `x-guidance` option,
/// which other engines ignore.
fn json_schema(s: &Value) -> Value {
    let mut schema = match s {
        Value::Object(m) if !m.is_empty() => s.clone(),
        _ => json!({}),
    };
    if let Some(o) = schema.as_object_mut() {
        o.entry("x-guidance")
            .or_insert_with(|| json!({"json_allow_general_unicode_escapes": true}));
    }
    json!({"type": "json_schema", "json_schema": schema})
}

/// The leading and trailing constants of a node split off: (begin, rest, end).
fn peel(node: Value) -> (String, Value, String) {
    let mut items: Vec<Value> = if node["type"] == "sequence" {
        node["elements"].as_array().cloned().unwrap_or_default()
    } else {
        vec![node]
    };
    let mut begin = String::new();
    while items
        .first()
        .is_some_and(|x| x["type"] == "const_string" && items.len() > 1)
    {
        let x = items.remove(0);
        begin.push_str(x["value"].as_str().unwrap_or(""));
    }
    let mut end = String::new();
    while items
        .last()
        .is_some_and(|x| x["type"] == "const_string" && items.len() > 1)
    {
        if let Some(x) = items.pop() {
            end.insert_str(0, x["value"].as_str().unwrap_or(""));
        }
    }
    (begin, sequence(items), end)
}

/// One shape of the calls as tags: the trigger, the tags it dispatches to, and whether one
/// tag holds every call (a section, or the calls from the first on).
struct Region {
    trigger: String,
    tags: Vec<Value>,
    section: bool,
    parallel: bool,
}

/// The calls of `tc` as tags, or `None` when they are not behind an opener that tags can
/// start with (then the rules are written node for node).
fn region(
    r: &mut Rules,
    tc: &ToolCallSpec,
    tools: &[Tool],
    o: &GrammarOptions,
) -> Result<Option<Region>, Error> {
    let parallel = o.parallel && tc.parallel;
    let list = tc.syntax.is_list();
    // Each call with its markers (and without its close marker), written node for node.
    let mut calls = Vec::new();
    let mut heads = Vec::new();
    for (i, t) in tools.iter().enumerate() {
        let body = call_body(r, tc, t, i, true)?;
        let (co, cc) = marks(r, tc.call.as_ref());
        heads.push(cat(r, vec![co.clone(), body.clone()]));
        calls.push(cat(r, vec![co, body, cc]));
    }
    let (compiled, heads): (Vec<Value>, Vec<Value>) = {
        let c = Compiler::new(r);
        (
            calls.iter().map(|e| c.node(e)).collect(),
            heads.iter().map(|e| c.node(e)).collect(),
        )
    };
    let call_close = tc
        .call
        .as_ref()
        .map(|m| m.close.trim().to_string())
        .unwrap_or_default();
    let section_open = tc
        .section
        .as_ref()
        .map(|m| m.open.trim().to_string())
        .filter(|s| !s.is_empty());
    if let Some(open) = section_open {
        if open.contains(char::is_whitespace) {
            return Ok(None);
        }
        let close = tc
            .section
            .as_ref()
            .map(|m| m.close.trim().to_string())
            .unwrap_or_default();
        // Each call after optional whitespace, as a tag of its own.
        let items: Vec<Value> = compiled
            .into_iter()
            .map(|c| {
                let (b, content, e) = peel(c);
                tag("", sequence(vec![regex(WS), tag(&b, content, &e)]), "")
            })
            .collect();
        let sep = if list { "," } else { tc.separator.trim() };
        let tws = json!({"type": "tags_with_separator", "tags": items, "separator": sep,
            "at_least_one": true, "stop_after_first": !parallel});
        let (content, end) = if list {
            let inner = sequence(vec![regex(WS), konst("["), tws, regex(WS)]);
            if close.is_empty() {
                (inner, "]".to_string())
            } else {
                (
                    sequence(vec![inner, konst("]"), regex(WS)]),
                    close.to_string(),
                )
            }
        } else if close.is_empty() {
            // No section close: the section ends with the last call's close marker, so the
            // tag holds the calls up to it (`HEAD (CLOSE SEP HEAD)*`, then CLOSE).
            if call_close.is_empty() || call_close.contains(char::is_whitespace) {
                return Ok(None);
            }
            let head = or(heads);
            let mut content = vec![regex(WS), head.clone()];
            if parallel {
                let more = sequence(vec![
                    regex(WS),
                    konst(&call_close),
                    regex(WS),
                    konst(tc.separator.trim()),
                    regex(WS),
                    head,
                ]);
                content.push(json!({"type": "star", "content": more}));
            }
            content.push(regex(WS));
            (sequence(content), call_close.clone())
        } else {
            (sequence(vec![tws, regex(WS)]), close)
        };
        return Ok(Some(Region {
            trigger: open.clone(),
            tags: vec![tag(&open, content, &end)],
            section: true,
            parallel,
        }));
    }
    if list {
        return Ok(None);
    }
    // The trigger: the call's open marker, else the literal the name follows (up to its
    // first whitespace, which the grammar lets vary).
    let prefix = match &tc.syntax {
        CallSyntax::NameThenJson { name_prefix, .. }
        | CallSyntax::XmlParams { name_prefix, .. }
        | CallSyntax::KeyValue { name_prefix, .. } => name_prefix.split_whitespace().next(),
        _ => None,
    };
    let trigger = tc
        .call
        .as_ref()
        .map(|m| m.open.trim())
        .filter(|s| !s.is_empty())
        .or(prefix)
        .unwrap_or("")
        .to_string();
    if trigger.is_empty() || trigger.contains(char::is_whitespace) {
        return Ok(None);
    }
    let mut peeled = Vec::new();
    for c in compiled {
        let (begin, content, end) = peel(c);
        if !begin.starts_with(&trigger) || (end.is_empty() && unlimited(&content)) {
            return Ok(None);
        }
        peeled.push((begin, content, end));
    }
    // Several calls: when every call ends with the same marker, one tag holds the first call
    // and the calls after it (`CALL-WITHOUT-END (END SEP CALL-WITHOUT-END)*`, then END), so
    // that nothing but calls follows the first call, as in the grammar; its begin is the
    // trigger and each tool's own beginning follows in the content (the size stays linear in
    // the tools). Otherwise each call is a tag of its own (begin = its markers and name), and
    // free text may come between calls.
    let common_end = peeled
        .first()
        .map(|p| p.2.clone())
        .filter(|e| !e.is_empty() && peeled.iter().all(|p| p.2 == *e));
    let whole = parallel && common_end.is_some();
    let tags = match common_end.as_deref() {
        Some(e) if whole => {
            let rests: Vec<Value> = peeled
                .iter()
                .map(|(b, c, _)| sequence(vec![konst(&b[trigger.len()..]), c.clone()]))
                .collect();
            let heads: Vec<Value> = peeled
                .iter()
                .map(|(b, c, _)| sequence(vec![konst(b), c.clone()]))
                .collect();
            let more = sequence(vec![
                konst(e),
                regex(WS),
                konst(tc.separator.trim()),
                regex(WS),
                or(heads),
            ]);
            let content = sequence(vec![or(rests), json!({"type": "star", "content": more})]);
            vec![tag(&trigger, content, e)]
        }
        _ => peeled.into_iter().map(|(b, c, e)| tag(&b, c, &e)).collect(),
    };
    Ok(Some(Region {
        trigger,
        tags,
        section: whole,
        parallel,
    }))
}

/// The reasoning block: a tag whose content is free text up to the close marker.
fn reasoning(r: &mut Rules, spec: &FormatSpec, o: &GrammarOptions) -> Option<Value> {
    let m = spec.reasoning.markers.as_ref()?;
    let close = m.close.trim();
    if close.is_empty() {
        return None;
    }
    let mode = if o.forced_open {
        ReasoningMode::ForcedOpen
    } else {
        spec.reasoning.mode
    };
    match mode {
        ReasoningMode::None | ReasoningMode::ForcedClosed => None,
        ReasoningMode::ForcedOpen => Some(tag("", any_text(&[]), close)),
        ReasoningMode::Tag => {
            let open = m.open.trim();
            let t = if open.contains(char::is_whitespace) {
                let o = mark(r, open);
                let o = Compiler::new(r).node(&o);
                sequence(vec![o, tag("", any_text(&[]), close)])
            } else {
                tag(open, any_text(&[]), close)
            };
            Some(json!({"type": "optional", "content": t}))
        }
    }
}

/// A whole turn of free text with calls behind openers as reasoning, then `triggered_tags`;
/// `None` for the layouts written node for node (messages, channels, a content marker, calls
/// without an opener, lazy grammars, a grammar that starts after the prompt's prefix).
fn layout(spec: &FormatSpec, tools: &[Tool], o: &GrammarOptions) -> Result<Option<Value>, Error> {
    let Some(tc) = &spec.tools else {
        return Ok(None);
    };
    if spec.channels.is_some()
        || spec.messages.is_some()
        || spec.content.is_some()
        || o.lazy
        || tools.is_empty()
        || (o.after_prompt_prefix && spec.prompt_prefix.is_some())
    {
        return Ok(None);
    }
    let mut r = Rules::default();
    let mut regions = Vec::new();
    for shape in std::iter::once(tc).chain(tc.alternatives.iter()) {
        match region(&mut r, shape, tools, o)? {
            Some(g) => regions.push(g),
            None => return Ok(None),
        }
    }
    let mut triggers: Vec<String> = Vec::new();
    for g in &regions {
        if !triggers.contains(&g.trigger) {
            triggers.push(g.trigger.clone());
        }
    }
    // xgrammar dispatches each tag on the one trigger its begin starts with.
    for a in &triggers {
        if triggers.iter().any(|b| a != b && b.starts_with(a.as_str())) {
            return Ok(None);
        }
    }
    let tags: Vec<Value> = regions.iter().flat_map(|g| g.tags.clone()).collect();
    let stop_after_first = regions.iter().all(|g| g.section || !g.parallel);
    let triggered = |at_least_one: bool| {
        json!({"type": "triggered_tags", "triggers": triggers, "tags": tags,
            "at_least_one": at_least_one, "stop_after_first": stop_after_first})
    };
    let body = match o.tool_choice {
        ToolChoice::Auto => triggered(false),
        ToolChoice::Required => sequence(vec![any_text(&triggers), triggered(true)]),
        ToolChoice::None => any_text(&triggers),
    };
    let mut elements = vec![regex(WS)];
    elements.extend(reasoning(&mut r, spec, o));
    elements.push(body);
    Ok(Some(sequence(elements)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::grammar::{export, tools_from_json, Syntax};
    use crate::output::Format;

    fn tools() -> Vec<Tool> {
        tools_from_json(
            &json!([{"name": "get_weather", "parameters": {"type": "object",
            "properties": {"city": {"type": "string"}}, "required": ["city"]}}]),
        )
        .expect("tools")
    }

    fn st(format: &str, o: GrammarOptions) -> Value {
        let spec = Format::by_name(format).expect("format").spec();
        let g = export(
            &spec,
            &tools(),
            &GrammarOptions {
                syntax: Syntax::StructuralTag,
                ..o
            },
        )
        .expect("export");
        serde_json::from_str(&g.grammar).expect("JSON")
    }

    #[test]
    fn hermes_calls_are_tags_behind_their_trigger() {
        let v = st("hermes", GrammarOptions::default());
        assert_eq!(v["type"], "structural_tag");
        let els = v["format"]["elements"].as_array().expect("sequence");
        let think = &els[1]["content"];
        assert_eq!(think["begin"], "<think>");
        assert_eq!(think["end"], "</think>");
        assert_eq!(think["content"]["type"], "any_text");
        let tt = &els[2];
        assert_eq!(tt["type"], "triggered_tags");
        assert_eq!(tt["triggers"], json!(["<tool_call>"]));
        assert_eq!(tt["at_least_one"], false);
        // One tag holds the first call and the calls after it.
        assert_eq!(tt["stop_after_first"], true);
        let t = &tt["tags"][0];
        assert_eq!(t["begin"], "<tool_call>");
        assert_eq!(t["end"], "</tool_call>");
        assert!(t["content"].to_string().contains("\"json_schema\""));
        assert!(t["content"].to_string().contains("get_weather"));
    }

    #[test]
    fn tool_choice_and_parallel_change_the_tag() {
        let req = st(
            "hermes",
            GrammarOptions {
                tool_choice: ToolChoice::Required,
                parallel: false,
                ..GrammarOptions::default()
            },
        );
        // Free text without the trigger, then at least one call (and only one).
        let els = &req["format"]["elements"];
        assert_eq!(els[2]["type"], "any_text");
        assert_eq!(els[3]["at_least_one"], true);
        assert_eq!(els[3]["stop_after_first"], true);
        let none = st(
            "hermes",
            GrammarOptions {
                tool_choice: ToolChoice::None,
                ..GrammarOptions::default()
            },
        );
        assert_eq!(none["format"]["elements"][2]["type"], "any_text");
        assert_eq!(
            none["format"]["elements"][2]["excludes"],
            json!(["<tool_call>"])
        );
    }

    #[test]
    fn a_section_holds_its_calls_with_a_separator() {
        let v = st("kimi-k2", GrammarOptions::default());
        let s = v.to_string();
        assert!(s.contains("\"tags_with_separator\""), "{s}");
        assert!(s.contains("<|tool_calls_section_begin|>"), "{s}");
    }

    #[test]
    fn xml_parameters_and_python_values_are_written_too() {
        for f in [
            "qwen3-coder",
            "pythonic",
            "gemma4",
            "llama3",
            "gpt-oss",
            "command-r7b",
        ] {
            let v = st(f, GrammarOptions::default());
            assert_eq!(v["type"], "structural_tag", "{f}");
        }
        let v = st("qwen3-coder", GrammarOptions::default()).to_string();
        assert!(v.contains("<parameter=city>"), "{v}");
    }

    #[test]
    fn unlimited_follows_xgrammar() {
        assert!(unlimited(&any_text(&[])));
        assert!(!unlimited(&any_text(&["x".into()])));
        assert!(unlimited(&sequence(vec![konst("a"), any_text(&[])])));
        assert!(!unlimited(&sequence(vec![konst("a"), regex(WS)])));
    }
}
