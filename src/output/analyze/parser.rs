//! A [`FormatSpec`] as a grammar for the PEG machine: the same rule shapes as the hand-written
//! grammars (guard, cut, body; content and reasoning streamed up to the next marker), written
//! out from the spec's markers.

use crate::output::spec::{
    CallSyntax, FormatSpec, IdSpec, MessageSpec, ReasoningMode, ToolCallSpec, ValueTyping,
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
    let inner = |a: &str, b: &str| a != b && b.match_indices(a).any(|(i, _)| i + a.len() < b.len());
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
    let (trigger, calls) = match &spec.tools {
        Some(t) => {
            let (trigger, rules) = tools(t)?;
            (trigger, Some(rules))
        }
        None => (String::new(), None),
    };
    let stops = [trigger.as_str(), close, text_open, text_close];
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
            until(&[close, trigger.as_str()]),
            lit(close)
        )
        .ok();
    }
    // A content marker that starts like the call trigger (`>>>all`, `>>>`) goes first.
    let mut alts = Vec::new();
    let markers = [close, text_open, text_close];
    let shadowed = |m: &str| !trigger.is_empty() && m.starts_with(trigger.as_str());
    for m in markers.iter().filter(|m| !m.is_empty() && shadowed(m)) {
        alts.push(format!("{} ws", lit(m)));
    }
    if calls.is_some() {
        alts.push("calls".to_string());
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
    let list = matches!(
        t.syntax,
        CallSyntax::JsonObject { list: true, .. }
            | CallSyntax::Pythonic { list: true }
            | CallSyntax::NameAsKey { list: true }
    );
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
            let name_stop = if ns.is_empty() {
                until(&[pp, "\n", cs])
            } else {
                until(&[ns, "\n", pp])
            };
            write!(r, "@call(@name({name_stop})").ok();
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
            let value = match values {
                ValueTyping::Json => "@jvalue(jvalue)".to_string(),
                ValueTyping::RawStrings => {
                    let pst = ps.trim_start();
                    format!("@value({})", until(&[ps, pst, &format!("\n{pp}"), cs]))
                }
            };
            let pst = ps.trim_start();
            let end = if pst.is_empty() {
                String::new()
            } else if pst != ps {
                format!(" ({} / {} / &{} / !.)", lit(ps), lit(pst), lit(pp))
            } else {
                format!(" ({} / &{} / !.)", lit(ps), lit(pp))
            };
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
