//! Grammar export: from a [`FormatSpec`] and the request's tools, a grammar that constrains
//! generation to what the format writes, in three syntaxes: GBNF (llama.cpp), Lark (as
//! llguidance reads it) and xgrammar structural tags (JSON).
//!
//! Tool names are limited to the request's tools and each call's arguments follow that tool's
//! JSON schema (types, required keys, enums, nested objects and arrays; properties in the
//! schema's order). Reasoning and free text are unconstrained, the way the format writes them.
//! `tool_choice` and parallel calls change the grammar; in lazy mode the grammar covers the
//! calls only and applies from a trigger on.
//!
//! ```
//! use chatcodec::output::{grammar, Format};
//! let spec = Format::by_name("hermes").unwrap().spec();
//! let tools = grammar::tools_from_json(&serde_json::json!([{"type": "function", "function": {
//!     "name": "get_weather",
//!     "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]))
//!     .unwrap();
//! let g = grammar::export(&spec, &tools, &grammar::GrammarOptions::default()).unwrap();
//! assert!(g.grammar.starts_with("root ::= "));
//! let lazy = grammar::GrammarOptions { lazy: true, ..Default::default() };
//! let g = grammar::export(&spec, &tools, &lazy).unwrap();
//! assert_eq!(g.triggers[0].value, "<tool_call>");
//! assert!(g.to_json().contains(r#""triggers":[{"type":"word","value":"<tool_call>"}]"#));
//! ```

mod build;
mod gbnf;
mod harmony;
mod ir;
mod lark;
mod messages;
mod print;
mod schema;
mod structural_tag;
mod values;

use crate::output::spec::FormatSpec;
use crate::{Error, ErrorKind};
use serde::Serialize;
use serde_json::Value;

/// The syntax a grammar is printed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Syntax {
    /// llama.cpp's GBNF.
    #[default]
    Gbnf,
    /// Lark, in the dialect llguidance reads.
    Lark,
    /// xgrammar structural tags: `{"type": "structural_tag", "format": {...}}`.
    StructuralTag,
}

/// Which calls the request allows (OpenAI `tool_choice`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolChoice {
    /// Text, calls, or both, as the format allows.
    #[default]
    Auto,
    /// At least one call (text before it as the format allows).
    Required,
    /// No calls.
    None,
}

/// How to build a grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GrammarOptions {
    /// The output syntax.
    pub syntax: Syntax,
    /// Constrain only the calls, from a trigger on (see [`Grammar::triggers`]).
    pub lazy: bool,
    /// Which calls are allowed.
    pub tool_choice: ToolChoice,
    /// Whether a turn may hold several calls (when the format allows it).
    pub parallel: bool,
    /// The prompt already opened the reasoning block: output starts inside reasoning.
    pub forced_open: bool,
    /// The generation prompt ended with the spec's
    /// [`prompt_prefix`](crate::output::FormatSpec::prompt_prefix) (functionary v3.2's `>>>`):
    /// output continues it, so the grammar starts after it.
    pub after_prompt_prefix: bool,
}

impl Default for GrammarOptions {
    fn default() -> Self {
        GrammarOptions {
            syntax: Syntax::Gbnf,
            lazy: false,
            tool_choice: ToolChoice::Auto,
            parallel: true,
            forced_open: false,
            after_prompt_prefix: false,
        }
    }
}

/// What starts a lazy grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TriggerKind {
    /// A literal text; the grammar applies from its start.
    Word,
    /// A regular expression; the grammar applies from the start of its match.
    Pattern,
}

/// A lazy grammar's trigger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Trigger {
    /// Word or pattern.
    #[serde(rename = "type")]
    pub kind: TriggerKind,
    /// The text or the regular expression.
    pub value: String,
}

/// An exported grammar.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Grammar {
    /// The grammar text (GBNF, Lark, or the structural tag as JSON text).
    pub grammar: String,
    /// The triggers of a lazy grammar (empty otherwise).
    pub triggers: Vec<Trigger>,
    /// What the grammar leaves out of the spec, if anything (every export describes the
    /// whole spec today; the CLI prints notes to stderr).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl Grammar {
    /// `{"grammar": ..., "triggers": [{"type": "word"|"pattern", "value": ...}]}`.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// A tool of the request: its function name and the JSON schema of its arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    /// The function name.
    pub name: String,
    /// The JSON schema of the arguments (`{}` when the tool has none).
    pub parameters: Value,
}

/// The tools of an OpenAI `tools` array (`[{"type": "function", "function": {"name",
/// "parameters"}}]`; a bare `{"name", "parameters"}` is accepted too).
pub fn tools_from_json(v: &Value) -> Result<Vec<Tool>, Error> {
    let arr = v
        .as_array()
        .ok_or_else(|| Error::new(ErrorKind::Input, "tools: expected a JSON array"))?;
    let mut out = Vec::new();
    for (i, t) in arr.iter().enumerate() {
        let f = t.get("function").unwrap_or(t);
        let name = f
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| Error::new(ErrorKind::Input, format!("tools[{i}]: no function name")))?;
        if name.is_empty() {
            return Err(Error::new(
                ErrorKind::Input,
                format!("tools[{i}]: empty function name"),
            ));
        }
        out.push(Tool {
            name: name.to_string(),
            parameters: f
                .get("parameters")
                .cloned()
                .unwrap_or_else(|| serde_json::json!({})),
        });
    }
    Ok(out)
}

/// The grammar of `spec`'s output for a request with `tools`.
pub fn export(spec: &FormatSpec, tools: &[Tool], opts: &GrammarOptions) -> Result<Grammar, Error> {
    // A hand-written format with no description (its placeholder spec has no markers).
    if let Some((name, why)) = crate::output::formats::WITHOUT_SPEC
        .iter()
        .find(|(n, _)| spec.format.as_deref() == Some(*n))
    {
        if spec.tools.is_none() && spec.reasoning.markers.is_none() && spec.content.is_none() {
            return Err(Error::new(
                ErrorKind::Input,
                format!("the {name} format has no grammar: {why}"),
            ));
        }
    }
    if opts.syntax == Syntax::StructuralTag {
        return structural_tag::export(spec, tools, opts);
    }
    let (mut rules, triggers) = build::build(spec, tools, opts)?;
    rules.prune();
    let grammar = match opts.syntax {
        Syntax::Lark => lark::print(&rules),
        _ => gbnf::print(&rules),
    };
    Ok(Grammar {
        grammar,
        triggers,
        notes: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::Format;

    #[test]
    fn every_format_exports_gbnf_and_lark_or_says_why_not() {
        let tools = tools_from_json(
            &serde_json::json!([{"name": "f", "parameters": {"type": "object",
            "properties": {"a": {"type": "string"}}, "required": ["a"]}}]),
        )
        .expect("tools");
        for (name, _) in Format::names() {
            let spec = Format::by_name(name).expect("format").spec();
            if crate::output::formats::WITHOUT_SPEC
                .iter()
                .any(|(n, _)| *n == name)
            {
                // No description: every export says why instead of a grammar.
                for syntax in [Syntax::Gbnf, Syntax::Lark, Syntax::StructuralTag] {
                    let o = GrammarOptions {
                        syntax,
                        ..GrammarOptions::default()
                    };
                    let e = export(&spec, &tools, &o).expect_err(name);
                    assert!(e.message().contains("has no grammar"), "{name}: {e}");
                }
                continue;
            }
            let no_tools = crate::output::formats::NO_TOOLS.contains(&name);
            for syntax in [Syntax::Gbnf, Syntax::Lark] {
                for tool_choice in [ToolChoice::Auto, ToolChoice::Required, ToolChoice::None] {
                    let o = GrammarOptions {
                        syntax,
                        tool_choice,
                        ..GrammarOptions::default()
                    };
                    let g = export(&spec, &tools, &o);
                    if no_tools && tool_choice == ToolChoice::Required {
                        // A format without calls cannot make one.
                        assert!(g.is_err(), "{name}");
                        continue;
                    }
                    let g = g.unwrap_or_else(|e| panic!("{name}: {e}"));
                    assert!(!g.grammar.is_empty());
                }
                let lazy = GrammarOptions {
                    syntax,
                    lazy: true,
                    ..GrammarOptions::default()
                };
                match export(&spec, &tools, &lazy) {
                    Ok(g) => {
                        // One trigger per opener of the call shapes (several when the
                        // format has other shapes with other openers).
                        let shapes = spec.tools.as_ref().map_or(0, |t| 1 + t.alternatives.len());
                        assert!(
                            !g.triggers.is_empty() && g.triggers.len() <= shapes,
                            "{name}"
                        );
                    }
                    Err(e) => assert!(no_tools, "{name}: {e}"),
                }
            }
            // Structural tags export wherever GBNF does, in every mode.
            for tool_choice in [ToolChoice::Auto, ToolChoice::Required, ToolChoice::None] {
                for (parallel, lazy) in [(true, false), (false, false), (true, true)] {
                    let o = GrammarOptions {
                        tool_choice,
                        parallel,
                        lazy,
                        ..GrammarOptions::default()
                    };
                    let gbnf = export(&spec, &tools, &o);
                    let st = export(
                        &spec,
                        &tools,
                        &GrammarOptions {
                            syntax: Syntax::StructuralTag,
                            ..o
                        },
                    );
                    assert_eq!(gbnf.is_ok(), st.is_ok(), "{name} {o:?}");
                    if let Ok(g) = st {
                        let v: Value = serde_json::from_str(&g.grammar).expect("JSON");
                        assert_eq!(v["type"], "structural_tag", "{name}");
                        assert!(v["format"]["type"].is_string(), "{name}");
                        assert_eq!(g.triggers, gbnf.map(|g| g.triggers).unwrap_or_default());
                    }
                }
            }
        }
    }

    #[test]
    fn impossible_requests_are_errors() {
        let spec = Format::by_name("hermes").expect("hermes").spec();
        let none = GrammarOptions {
            tool_choice: ToolChoice::None,
            lazy: true,
            ..GrammarOptions::default()
        };
        assert!(export(&spec, &[], &none).is_err());
        let req = GrammarOptions {
            tool_choice: ToolChoice::Required,
            ..GrammarOptions::default()
        };
        assert!(export(&spec, &[], &req).is_err());
        // No tools and auto: text only.
        assert!(export(&spec, &[], &GrammarOptions::default()).is_ok());
        assert!(tools_from_json(&serde_json::json!({"a": 1})).is_err());
        assert!(
            tools_from_json(&serde_json::json!([{"type": "function", "function": {}}])).is_err()
        );
    }
}
