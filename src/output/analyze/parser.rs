//! A [`FormatSpec`] as a grammar for the PEG machine: the same rule shapes as the hand-written
//! grammars (guard, cut, body; content and reasoning streamed up to the next marker), written
//! out from the spec's markers.

use crate::output::spec::{
    CallSyntax, FormatSpec, IdSpec, MessageSpec, ReasoningMode, ToolCallSpec, TypedMiddle,
    ValueTyping, ValueWriting,
};
use std::fmt::Write;

/// A grammar literal.
fn lit(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `until(a, b, …)` over the non-empty markers, deduplicated. A marker found inside another
/// one other than at its end is dropped: streamed, it would complete (and stop the scan)
/// before the longer marker that starts earlier does, which a one-shot parse would pick.
fn until(stops: &[&str]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for s in stops {
        if !s.is_empty() && !seen.contains(s) {
            seen.push(s);
        }
    }
    // A marker that starts another one stops the scan at the same place: kept.
    let inner = |a: &str, b: &str| {
        a != b
            && b.match_indices(a)
                .any(|(i, _)| i > 0 && i + a.len() < b.len())
    };
    let all = seen.clone();
    seen.retain(|a| !all.iter().any(|b| inner(a, b)));
    let parts: Vec<String> = seen.iter().map(|s| lit(s)).collect();
    format!("until({})", parts.join(", "))
}

/// The grammar text (to follow common.peg) of `spec`, or why the spec cannot be parsed.
pub(crate) fn grammar(spec: &FormatSpec) -> Result<String, String> {
    if spec.channels.is_some() {
        return Err("harmony channel layouts are parsed by the gpt-oss format".into());
    }
    if let Some(ms) = &spec.messages {
        return messages(spec, ms);
    }
    let mut g = String::new();
    let think = spec
        .reasoning
        .markers
        .as_ref()
        .filter(|_| spec.reasoning.mode != ReasoningMode::None);
    let (open, close) = think.map_or(("", ""), |m| (m.open.trim(), m.close.trim()));
    let (text_open, text_close) = spec
        .content
        .as_ref()
        .map_or(("", ""), |m| (m.open.trim(), m.close.trim()));
    // The main shape of the calls, then the other shapes (their rules renamed apart); content
    // stops at every shape's trigger.
    let mut triggers: Vec<String> = Vec::new();
    let mut calls: Option<String> = None;
    let mut calls_rule = "calls".to_string();
    if let Some(t) = &spec.tools {
        let (trigger, mut rules) = tools(t)?;
        triggers.push(trigger);
        let mut names = vec!["calls".to_string()];
        for (i, alt) in t.alternatives.iter().enumerate() {
            let suffix = format!("_a{}", i + 1);
            let (trigger, alt_rules) = tools(alt)?;
            rules.push_str(&rename(&alt_rules, &suffix));
            if !triggers.contains(&trigger) {
                triggers.push(trigger);
            }
            names.push(format!("calls{suffix}"));
        }
        if names.len() > 1 {
            writeln!(rules, "anycalls   <- {}", names.join(" / ")).ok();
            calls_rule = "anycalls".into();
        }
        calls = Some(rules);
    }
    let trigger = triggers.first().cloned().unwrap_or_default();
    let mut stops: Vec<&str> = triggers.iter().map(String::as_str).collect();
    stops.extend([close, text_open, text_close]);
    if !open.is_empty() {
        writeln!(g, "start      <- ws think? body").ok();
        writeln!(g, "think      <- {} ~ reasoning", lit(open)).ok();
    } else {
        writeln!(g, "start      <- ws body").ok();
    }
    if !close.is_empty() {
        writeln!(g, "start_open <- reasoning body").ok();
        writeln!(
            g,
            "reasoning  <- @reasoning({}) ({} ws)?",
            until(
                &[
                    &[close][..],
                    &triggers.iter().map(String::as_str).collect::<Vec<_>>()
                ]
                .concat()
            ),
            lit(close)
        )
        .ok();
    }
    // A content marker that starts like the call trigger (`>>>all`, `>>>`) goes first.
    let mut alts = Vec::new();
    let markers = [close, text_open, text_close];
    let shadowed = |m: &str| {
        triggers
            .iter()
            .any(|t| !t.is_empty() && m.starts_with(t.as_str()))
    };
    let _ = &trigger;
    for m in markers.iter().filter(|m| !m.is_empty() && shadowed(m)) {
        alts.push(format!("{} ws", lit(m)));
    }
    if calls.is_some() {
        alts.push(calls_rule.clone());
    }
    for m in markers.iter().filter(|m| !m.is_empty() && !shadowed(m)) {
        alts.push(format!("{} ws", lit(m)));
    }
    let content = if stops.iter().all(|s| s.is_empty()) {
        "&. ~ @content(. until(\"\\0\"))".to_string()
    } else {
        format!("&. ~ @content(. {})", until(&stops))
    };
    alts.push(content);
    writeln!(g, "body       <- ({})*", alts.join(" / ")).ok();
    writeln!(g, "recover    <- body").ok();
    if let Some(rules) = calls {
        g.push_str(&rules);
    }
    Ok(g)
}

/// The grammar of a message layout: messages `START RP RECIPIENT MM body END`, the reasoning
/// recipient's body is reasoning, an answer recipient's (or an unaddressed message's) body is
/// content, any other recipient's body holds calls (text when it holds none). The output may
/// begin inside the first header (the prompt wrote its start).
fn messages(spec: &FormatSpec, ms: &MessageSpec) -> Result<String, String> {
    let mut g = String::new();
    let start = ms.message_start.trim();
    let rp = ms.recipient_prefix.trim();
    let mm = ms.message_marker.trim();
    if start.is_empty() || rp.is_empty() || mm.is_empty() || ms.message_ends.is_empty() {
        return Err("a message layout needs a message start, a recipient prefix, a message marker and an end".into());
    }
    let ends: Vec<&str> = ms.message_ends.iter().map(|e| e.trim()).collect();
    let mut stops = ends.clone();
    stops.push(start);
    let text = until(&stops);
    let end_alt: Vec<String> = ends.iter().map(|e| lit(e)).collect();
    writeln!(g, "start      <- ws mrest? body").ok();
    writeln!(g, "body       <- (msg / mend / &. ~ @content(. {text}))*").ok();
    writeln!(g, "recover    <- body").ok();
    writeln!(g, "msg        <- {} ~ ws mrest", lit(start)).ok();
    writeln!(g, "mend       <- ({}) ws / !.", end_alt.join(" / ")).ok();
    let mut alts = Vec::new();
    if let Some(to) = &ms.reasoning_recipient {
        alts.push(format!(
            "{} ws {} ws {} ~ @reasoning({text}) mend",
            lit(rp),
            lit(to),
            lit(mm)
        ));
    }
    if !ms.content_recipients.is_empty() {
        let tos: Vec<String> = ms.content_recipients.iter().map(|t| lit(t)).collect();
        alts.push(format!(
            "{} ws ({}) ws {} ~ @content({text}) mend",
            lit(rp),
            tos.join(" / "),
            lit(mm)
        ));
    }
    alts.push(format!("{} ~ @content({text}) mend", lit(mm)));
    match &spec.tools {
        Some(t) => {
            let (_, rules) = tools(t)?;
            alts.push(format!(
                "{} ws {} {} ~ ws (calls / &. ~ @content({text})) mend",
                lit(rp),
                until(&[mm, "\n"]),
                lit(mm)
            ));
            writeln!(g, "mrest      <- {}", alts.join("\n            / ")).ok();
            g.push_str(&rules);
        }
        None => {
            writeln!(g, "mrest      <- {}", alts.join("\n            / ")).ok();
        }
    }
    Ok(g)
}

/// The tool rules (`calls` and what it uses) and the marker content stops at.
fn tools(t: &ToolCallSpec) -> Result<(String, String), String> {
    let mut g = String::new();
    let sec = t
        .section
        .as_ref()
        .map_or(("", ""), |m| (m.open.trim(), m.close.trim()));
    let call = t
        .call
        .as_ref()
        .map_or(("", ""), |m| (m.open.trim(), m.close.trim()));
    match t.values {
        ValueWriting::Native | ValueWriting::QuotedScalars => {}
        ValueWriting::Python | ValueWriting::BareStrings => {
            return Err(format!(
                "{:?} argument values are read only by the hand-written parsers",
                t.values
            ))
        }
    }
    let (inner, guard) = inner(&t.syntax, &t.id, call.1, &mut g)?;
    // The guard of one call: its open marker, else the syntax's own first text.
    let call_rule = if !call.0.is_empty() {
        let tail = if call.1.is_empty() {
            String::new()
        } else {
            format!(" ws ({} ws / !.)", lit(call.1))
        };
        format!("{} ~ ws {inner}{tail}", lit(call.0))
    } else {
        inner
    };
    writeln!(g, "call       <- {call_rule} ws").ok();
    let list = t.syntax.is_list();
    let sep = t.separator.trim();
    let more = if !t.parallel {
        String::new()
    } else if list {
        " (ws \",\" ws call)*".to_string()
    } else if sep.is_empty() {
        " (ws call)*".to_string()
    } else {
        format!(" (ws {}? ws call)*", lit(sep))
    };
    let seq = if list {
        format!("\"[\" ws call{more} ws \"]\"")
    } else {
        format!("call{more}")
    };
    let seq = if sec.0.is_empty() && !sec.1.is_empty() {
        format!("{seq} ws ({} ws)?", lit(sec.1))
    } else {
        seq
    };
    let trigger;
    if !sec.0.is_empty() {
        let tail = if sec.1.is_empty() {
            String::new()
        } else {
            format!(" ({} ws / !.)", lit(sec.1))
        };
        writeln!(g, "calls      <- {} ~ ws {seq} ws{tail}", lit(sec.0)).ok();
        trigger = sec.0.to_string();
    } else if !call.0.is_empty() {
        writeln!(g, "calls      <- {seq}").ok();
        trigger = call.0.to_string();
    } else if list {
        writeln!(g, "calls      <- &(\"[\" ws {}) {seq}", guard.1).ok();
        trigger = "[".to_string();
    } else if !guard.0.is_empty() {
        writeln!(g, "calls      <- {seq}").ok();
        trigger = guard.0;
    } else {
        return Err("no marker tells a call from content".into());
    }
    Ok((trigger, g))
}

/// The rule of one call's name and arguments (after its open marker), and its guard (the
/// literal it starts with, and a lookahead expression for list elements).
fn inner(
    syntax: &CallSyntax,
    id: &IdSpec,
    call_close: &str,
    g: &mut String,
) -> Result<(String, (String, String)), String> {
    Ok(match syntax {
        CallSyntax::JsonObject {
            name_key,
            args_key,
            id_key,
            ..
        } => {
            let cap = if id_key.is_some() {
                "wholecall"
            } else {
                "call"
            };
            writeln!(
                g,
                "jcall      <- @{cap}(\"{{\" ~ ws (&\"\\\"\" ~ jmem (ws \",\" ~ ws jmem)*)? ws) \"}}\""
            )
            .ok();
            let mut mem = vec![
                format!(
                    "{} ws \":\" ws \"\\\"\" ~ @name(until(\"\\\"\")) \"\\\"\"",
                    lit(&format!("\"{name_key}\""))
                ),
                format!(
                    "{} ws \":\" ws ~ @args(jvalue)",
                    lit(&format!("\"{args_key}\""))
                ),
            ];
            if let Some(k) = id_key {
                mem.push(format!(
                    "{} ws \":\" ws \"\\\"\" ~ @id(until(\"\\\"\")) \"\\\"\"",
                    lit(&format!("\"{k}\""))
                ));
            }
            mem.push("\"\\\"type\\\"\" ws \":\" ws \"\\\"function\\\"\"".into());
            for k in ["id", "tool_call_id"] {
                if id_key.as_deref() != Some(k) {
                    mem.push(format!(
                        "{} ws \":\" ws \"\\\"\" ~ @id(until(\"\\\"\")) \"\\\"\"",
                        lit(&format!("\"{k}\""))
                    ));
                }
            }
            writeln!(g, "jmem       <- {}", mem.join("\n            / ")).ok();
            ("jcall".into(), ("{".into(), "\"{\" ws \"\\\"\"".into()))
        }
        CallSyntax::OpenAiObject { .. } => {
            writeln!(
                g,
                "ocall      <- @call(\"{{\" ~ ws (&\"\\\"\" ~ omem (ws \",\" ~ ws omem)*)? ws) \"}}\""
            )
            .ok();
            writeln!(
                g,
                "omem       <- \"\\\"id\\\"\" ws \":\" ws \"\\\"\" ~ @id(until(\"\\\"\")) \"\\\"\"\n            / \"\\\"type\\\"\" ws \":\" ws jstring\n            / \"\\\"function\\\"\" ws \":\" ws \"{{\" ~ ws fmem (ws \",\" ~ ws fmem)* ws \"}}\""
            )
            .ok();
            writeln!(
                g,
                "fmem       <- \"\\\"name\\\"\" ws \":\" ws \"\\\"\" ~ @name(until(\"\\\"\")) \"\\\"\"\n            / \"\\\"arguments\\\"\" ws \":\" ws ~ @args(jvalue)"
            )
            .ok();
            ("ocall".into(), ("{".into(), "\"{\" ws \"\\\"\"".into()))
        }
        CallSyntax::NameAsKey { .. } => {
            writeln!(
                g,
                "kcall      <- @call(\"{{\" ws \"\\\"\" ~ @name(until(\"\\\"\")) \"\\\"\" ws \":\" ws @args(jobject) ws) \"}}\""
            )
            .ok();
            ("kcall".into(), ("{".into(), "\"{\" ws \"\\\"\"".into()))
        }
        CallSyntax::Pythonic { .. } => (
            "&([a-zA-Z_] [a-zA-Z0-9_.\\-]* ws \"(\") ~ pycall".into(),
            (String::new(), "[a-zA-Z_] [a-zA-Z0-9_.\\-]* ws \"(\"".into()),
        ),
        CallSyntax::NameThenJson {
            name_prefix,
            name_suffix,
            args_prefix,
            args_suffix,
        } => {
            let np = name_prefix.trim();
            let ns = name_suffix.trim();
            let ap = args_prefix.trim();
            let (stop, idpart) = match id {
                IdSpec::Marked { prefix, suffix, .. } => {
                    let (p, s) = (prefix.trim(), suffix.trim());
                    let part = format!(
                        " ({} ~ @id({}) {})?",
                        lit(p),
                        until(&[s, "{"]),
                        if s.is_empty() {
                            String::new()
                        } else {
                            format!("{}?", lit(s))
                        }
                    );
                    (if ns.is_empty() { p } else { ns }, part)
                }
                IdSpec::Index => (":", " \":\" [0-9]+".to_string()),
                _ => ("", String::new()),
            };
            let stop = if !stop.is_empty() {
                until(&[stop, "{"])
            } else if !ns.is_empty() {
                until(&[ns, "{"])
            } else if !ap.is_empty() {
                until(&[ap, "{"])
            } else {
                until(&["{", "\n", call_close])
            };
            let mut r = String::new();
            if !np.is_empty() {
                write!(r, "{} ~ ", lit(np)).ok();
            }
            write!(r, "@call(@name({stop}){idpart}").ok();
            if !ns.is_empty() {
                write!(r, " ws {}", lit(ns)).ok();
            }
            if !ap.is_empty() {
                write!(r, " ws {}", lit(ap)).ok();
            }
            write!(r, " ws @args(jobject))").ok();
            let sfx = args_suffix.trim();
            if !sfx.is_empty() {
                write!(r, " ws ({} / !.)", lit(sfx)).ok();
            }
            writeln!(g, "ncall      <- {r}").ok();
            ("ncall".into(), (np.to_string(), lit(np)))
        }
        CallSyntax::XmlParams {
            name_prefix,
            name_suffix,
            param_prefix,
            param_middle,
            param_suffix,
            call_suffix,
            values,
            typed_middles,
            param_close_after_key,
        } => {
            let np = name_prefix.trim();
            let ns = name_suffix.trim();
            let pp = param_prefix.trim();
            let pm = param_middle.trim();
            let ps = param_suffix.trim_end();
            let cs = call_suffix.trim();
            if pp.is_empty() {
                return Err("XML parameters without a parameter marker".into());
            }
            let mut r = String::new();
            if !np.is_empty() {
                write!(r, "{} ~ ", lit(np)).ok();
            }
            let (idp, position) = match id {
                IdSpec::Position { prefix, suffix } => {
                    let (p, s) = (prefix.trim(), suffix.trim());
                    let s = if s.is_empty() {
                        String::new()
                    } else {
                        format!(" {}", lit(s))
                    };
                    (p, format!(" ({} [0-9]+{s})?", lit(p)))
                }
                _ => ("", String::new()),
            };
            let name_stop = if ns.is_empty() {
                until(&[idp, pp, "\n", cs])
            } else {
                until(&[idp, ns, "\n", pp])
            };
            write!(r, "@call(@name({name_stop}){position}").ok();
            if !ns.is_empty() {
                write!(r, " {}", lit(ns)).ok();
            }
            write!(r, " ws (xparam ws)*").ok();
            if !cs.is_empty() {
                write!(r, " ({} / !.)", lit(cs)).ok();
            }
            r.push(')');
            writeln!(g, "xcall      <- {r}").ok();
            let key_stop = if pm.is_empty() {
                until(&[param_middle])
            } else {
                until(&[pm, "\n"])
            };
            let mid_ws = if param_middle.ends_with('\n') {
                " \"\\n\"?"
            } else {
                ""
            };
            let raw = {
                let pst = ps.trim_start();
                format!("@value({})", until(&[ps, pst, &format!("\n{pp}"), cs]))
            };
            let value = match values {
                ValueTyping::Json => "@jvalue(jvalue)".to_string(),
                ValueTyping::RawStrings => raw.clone(),
            };
            let pst = ps.trim_start();
            // A closing that repeats the key: the key's text, then the rest.
            let after_key = param_close_after_key.trim();
            let close = |c: &str| {
                if after_key.is_empty() {
                    lit(c)
                } else {
                    format!("{} {} {}", lit(c), until(&[after_key]), lit(after_key))
                }
            };
            let end = if pst.is_empty() {
                String::new()
            } else if pst != ps {
                format!(" ({} / {} / &{} / !.)", close(ps), close(pst), lit(pp))
            } else {
                format!(" ({} / &{} / !.)", close(ps), lit(pp))
            };
            if typed_middles.is_empty() {
                writeln!(
                    g,
                    "xparam     <- {} ~ @key({key_stop}) {}{mid_ws} {value}{end}",
                    lit(pp),
                    if pm.is_empty() {
                        String::new()
                    } else {
                        lit(pm)
                    }
                )
                .ok();
            } else {
                let (common, alts) = typed_alternatives(typed_middles, *values, &raw);
                writeln!(
                    g,
                    "xparam     <- {} ~ @key({}) {} ws ({}){end}",
                    lit(pp),
                    until(&[common.as_str()]),
                    lit(&common),
                    alts.join(" / ")
                )
                .ok();
            }
            ("xcall".into(), (np.to_string(), lit(np)))
        }
        CallSyntax::KeyValue {
            name_prefix,
            string_quote,
            ..
        } => {
            if call_close.is_empty() || !matches!(string_quote.as_str(), "<|\"|>" | "<escape>") {
                return Err(
                    "key-value calls need a closing marker and a known string quote".into(),
                );
            }
            let np = name_prefix.trim();
            let mut r = String::new();
            if !np.is_empty() {
                write!(r, "{} ", lit(np)).ok();
            }
            write!(
                r,
                "@call(@name([^{{<]+) &\"{{\" @dict(until({}) &{}))",
                lit(call_close),
                lit(call_close)
            )
            .ok();
            writeln!(g, "dcall      <- {r}").ok();
            ("dcall".into(), (np.to_string(), lit(np)))
        }
    })
}

/// The text every typed middle starts with, and one alternative per middle (its rest, then a
/// raw value for a string middle or a JSON value for the others).
fn typed_alternatives(
    middles: &[TypedMiddle],
    values: ValueTyping,
    raw: &str,
) -> (String, Vec<String>) {
    let texts: Vec<&str> = middles.iter().map(|m| m.middle.trim()).collect();
    let mut common = texts.first().copied().unwrap_or_default().to_string();
    for t in &texts {
        while !t.starts_with(common.as_str()) {
            common.pop();
        }
    }
    let mut alts = Vec::new();
    for m in middles {
        let rest = &m.middle.trim()[common.len()..];
        let string = m.types.iter().any(|t| t == "string");
        let v = if string && values == ValueTyping::RawStrings {
            raw.to_string()
        } else {
            "@jvalue(jvalue)".to_string()
        };
        alts.push(if rest.is_empty() {
            v
        } else {
            format!("{} ws {v}", lit(rest))
        });
    }
    (common, alts)
}

/// `rules` with every rule it defines renamed to NAME+`suffix` (definitions and references;
/// literals, classes and capture names untouched), so a second shape's rules sit beside the
/// first's.
fn rename(rules: &str, suffix: &str) -> String {
    let defined: Vec<&str> = rules
        .lines()
        .filter_map(|l| l.split_once("<-"))
        .map(|(n, _)| n.trim())
        .filter(|n| !n.is_empty() && !n.contains(char::is_whitespace))
        .collect();
    let mut out = String::new();
    let chars: Vec<char> = rules.chars().collect();
    let mut i = 0;
    let mut prev = ' ';
    while i < chars.len() {
        let c = chars[i];
        if c == '"' || c == '[' {
            // A literal or a class, copied with its escapes.
            let end = if c == '"' { '"' } else { ']' };
            out.push(c);
            i += 1;
            while i < chars.len() {
                let d = chars[i];
                out.push(d);
                i += 1;
                if d == '\\' && i < chars.len() {
                    out.push(chars[i]);
                    i += 1;
                } else if d == end {
                    break;
                }
            }
            prev = end;
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            out.push_str(&word);
            if prev != '@' && defined.contains(&word.as_str()) {
                out.push_str(suffix);
            }
            prev = 'a';
            continue;
        }
        out.push(c);
        prev = c;
        i += 1;
    }
    out
}
