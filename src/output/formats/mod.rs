//! The output formats: each a grammar (grammar/*.peg, compiled into the crate) plus the
//! marker parameters it is instantiated with, under a name.

use super::peg::{self, Program};
use super::spec::FormatSpec;
use super::stream::Reasoning;
use crate::{Error, ErrorKind};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

mod detect;
mod names;
mod specs;
mod table;
mod user;

pub use user::GrammarError;

pub(crate) use specs::NO_TOOLS;
pub(crate) use specs::WITHOUT_SPEC;
pub(crate) use table::SPECS;

const COMMON: &str = include_str!("../../../grammar/common.peg");

/// A format's definition.
pub(crate) struct Spec {
    pub(crate) name: &'static str,
    pub(crate) about: &'static str,
    /// Grammar sources, in order (later definitions replace earlier ones).
    pub(crate) grammar: &'static [&'static str],
    pub(crate) params: &'static [(&'static str, &'static str)],
}

const ENTRIES: &[&str] = &["start", "start_open", "start_closed", "body", "recover"];

static PROGRAMS: [OnceLock<Result<Program, String>>; table::COUNT] =
    [const { OnceLock::new() }; table::COUNT];

/// The same programs with the reasoning markers disabled (see [`Format::without_reasoning`]).
static PLAIN_PROGRAMS: [OnceLock<Result<Program, String>>; table::COUNT] =
    [const { OnceLock::new() }; table::COUNT];

/// A marker that stands for "no marker": the reasoning markers of a format parsed without
/// reasoning. Two noncharacters (U+FFFF), which text never contains.
pub(crate) const NEVER: &str = "\u{FFFF}\u{FFFF}never";

fn build_spec(i: usize, plain: bool) -> Result<Program, String> {
    let spec = &SPECS[i];
    let mut src = String::from(COMMON);
    for g in spec.grammar {
        src.push('\n');
        src.push_str(g);
    }
    let params: Vec<(&str, &str)> = spec
        .params
        .iter()
        .map(|&(k, v)| match k {
            "think_open" | "think_close" | "think_phrase" | "response_phrase" if plain => {
                (k, NEVER)
            }
            _ => (k, v),
        })
        .collect();
    peg::build(&src, &params, ENTRIES).map_err(|e| format!("format {}: {e}", spec.name))
}

fn compiled(i: usize) -> &'static Result<Program, String> {
    PROGRAMS[i].get_or_init(|| build_spec(i, false))
}

fn compiled_plain(i: usize) -> &'static Result<Program, String> {
    if !SPECS[i].params.iter().any(|(k, _)| *k == "think_open") {
        return compiled(i);
    }
    PLAIN_PROGRAMS[i].get_or_init(|| build_spec(i, true))
}

/// An output format, chosen by name (see [`Format::names`]), built from a
/// [`FormatSpec`] (see [`Format::from_spec`]) or loaded from a grammar file (see
/// [`Format::from_grammar`]).
#[derive(Clone, Copy)]
pub struct Format {
    /// The table entry; [`NOT_IN_TABLE`] for derived and user formats.
    index: usize,
    /// The format's name (`derived` for a format built from a spec).
    name: &'static str,
    program: &'static Program,
    /// A user-defined format (see [`Format::from_grammar`]) has no entry in the table.
    user: Option<&'static user::UserFormat>,
}

/// A format chosen by other servers' parser names (see [`Format::by_parsers`]).
#[derive(Debug, Clone, Copy)]
pub struct ParserChoice {
    /// The format.
    pub format: Format,
    /// How the output starts: inside reasoning when the reasoning parser assumes the prompt
    /// opened it (vLLM's `deepseek_r1`, `qwen3`, …), else [`Reasoning::Auto`].
    pub reasoning: Reasoning,
    /// Whether a call to a tool that is not in the request's tools is kept as a call (as
    /// vLLM's parsers do) rather than turned into content.
    pub keep_unknown_tools: bool,
    /// Whether tool calls are read at all: false for a reasoning parser given alone, whose
    /// family format has call markers (its calls are text). [`Options::for_choice`] applies
    /// it.
    ///
    /// [`Options::for_choice`]: crate::output::Options::for_choice
    pub parses_calls: bool,
}

impl ParserChoice {
    /// A format given by name, with its own rules: reasoning as the output shows it, calls
    /// read, calls to tools the request did not offer turned into content.
    pub fn of(format: Format) -> ParserChoice {
        ParserChoice {
            format,
            reasoning: Reasoning::Auto,
            keep_unknown_tools: false,
            parses_calls: true,
        }
    }
}

/// The index of a format that has no entry in the table.
const NOT_IN_TABLE: usize = usize::MAX;

/// Programs compiled from derived grammars, by grammar text and parameters. A program lives
/// as long as the process (the machine borrows it for `'static`); interning bounds the memory
/// to one program per distinct derived grammar.
static DERIVED: OnceLock<Mutex<HashMap<String, &'static Program>>> = OnceLock::new();

impl std::fmt::Debug for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Format({})", self.name())
    }
}

impl Format {
    /// The format called `name`; its grammar is compiled on first use.
    pub fn by_name(name: &str) -> Result<Format, Error> {
        let index = SPECS.iter().position(|s| s.name == name).ok_or_else(|| {
            Error::new(
                ErrorKind::Input,
                format!("unknown output format `{name}` (see --list-formats)"),
            )
        })?;
        Format::load(index, false)
    }

    fn load(index: usize, plain: bool) -> Result<Format, Error> {
        let program = if plain {
            compiled_plain(index)
        } else {
            compiled(index)
        };
        match program {
            Ok(program) => Ok(Format {
                index,
                name: SPECS[index].name,
                program,
                user: None,
            }),
            Err(e) => Err(Error::new(ErrorKind::Input, e.clone())),
        }
    }

    /// The format other servers select with these parser names: vLLM's
    /// `--tool-call-parser` and `--reasoning-parser` names (every name of vLLM's registries),
    /// SGLang's, and a few others (see `chatcodec parse --list-formats`). With vLLM's
    /// meaning: a tool parser alone parses no reasoning (a think block stays in the
    /// content), a reasoning parser alone parses no tool calls, and calls to tools the
    /// request did not offer are kept as calls.
    pub fn by_parsers(tool: Option<&str>, reasoning: Option<&str>) -> Result<ParserChoice, Error> {
        Format::by_parsers_thinking(tool, reasoning, None)
    }

    /// [`Format::by_parsers`], for a request whose thinking switch is known: `thinking` is
    /// the request's `thinking` / `enable_thinking` template argument, if it has one. Reasoning
    /// parsers that follow it as vLLM's do (`deepseek_v3` parses reasoning only when thinking
    /// is on, `holo2` unless it is off) read the output as plain content when it is off.
    pub fn by_parsers_thinking(
        tool: Option<&str>,
        reasoning: Option<&str>,
        thinking: Option<bool>,
    ) -> Result<ParserChoice, Error> {
        let unknown = |kind: &str, n: &str| {
            Error::new(
                ErrorKind::Input,
                format!("unknown {kind} parser `{n}` (see --list-formats)"),
            )
        };
        let t = match tool {
            Some(n) => Some(names::tool(n).ok_or_else(|| unknown("tool-call", n))?),
            None => None,
        };
        let r = match reasoning {
            Some(n) => Some(names::reasoning(n).ok_or_else(|| unknown("reasoning", n))?),
            None => None,
        };
        let index_of = |name: &str| {
            SPECS
                .iter()
                .position(|s| s.name == name)
                .ok_or_else(|| Error::new(ErrorKind::Input, format!("no format `{name}`")))
        };
        // Thinking off for a parser that follows the switch: no reasoning is parsed at all
        // (vLLM's identity parser), the think markers are text.
        let plain = r
            .and_then(|r| r.follows_thinking)
            .is_some_and(|default| !thinking.unwrap_or(default));
        let (format, starts_open) = match (t, r) {
            (Some(t), _) if plain => (Format::load(index_of(t.format)?, true)?, false),
            (None, Some(r)) if plain => (Format::load(index_of(r.format)?, true)?, false),
            (Some(t), r) => (
                Format::load(index_of(t.format)?, r.is_none() && !t.reads_reasoning)?,
                r.is_some_and(|r| r.starts_open),
            ),
            (None, Some(r)) => {
                let format = match r.stop {
                    Some(stop) if r.format == "think" => Format::from_derived_grammar(
                        "think",
                        include_str!("../../../grammar/think.peg"),
                        &[
                            ("think_open", "<think>"),
                            ("think_close", "</think>"),
                            ("think_stop", stop),
                        ],
                    )?,
                    _ => Format::load(index_of(r.format)?, false)?,
                };
                (format, r.starts_open)
            }
            (None, None) => {
                return Err(Error::new(
                    ErrorKind::Input,
                    "give a tool-call parser name, a reasoning parser name, or both",
                ))
            }
        };
        Ok(ParserChoice {
            format,
            reasoning: if starts_open {
                Reasoning::ForcedOpen
            } else {
                Reasoning::Auto
            },
            keep_unknown_tools: !t.is_some_and(|t| t.drops_unknown_tools),
            parses_calls: t.is_some(),
        })
    }

    /// This format with its reasoning markers read as plain text (a server with a tool
    /// parser but no reasoning parser keeps the think block in the content).
    pub fn without_reasoning(&self) -> Format {
        if self.user.is_some() || self.index == NOT_IN_TABLE {
            return *self;
        }
        Format::load(self.index, true).unwrap_or(*self)
    }

    /// Every format name, with a one-line description.
    pub fn names() -> impl Iterator<Item = (&'static str, &'static str)> {
        SPECS.iter().map(|s| (s.name, s.about))
    }

    /// The other servers' parser names that select the format `name` (vLLM's and SGLang's
    /// tool-call and reasoning parser names, and others).
    pub fn aliases(name: &str) -> Vec<&'static str> {
        names::aliases(name)
    }

    /// The format a model with this chat template writes, told by the markers the template
    /// writes (tool-call and reasoning syntax); `None` when nothing tells (plain ChatML, a
    /// template without tool calls).
    pub fn for_template(source: &str) -> Option<Format> {
        detect::detect(source).and_then(|name| Format::by_name(name).ok())
    }

    /// This format's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// A format compiled from grammar text (appended to `common.peg`) and its parameters,
    /// named `name`; the same grammar is compiled once per process.
    pub(crate) fn from_derived_grammar(
        name: &'static str,
        grammar: &str,
        params: &[(&str, &str)],
    ) -> Result<Format, Error> {
        let mut key = String::from(grammar);
        for (k, v) in params {
            key.push('\0');
            key.push_str(k);
            key.push('\0');
            key.push_str(v);
        }
        let cache = DERIVED.get_or_init(|| Mutex::new(HashMap::new()));
        let mut map = cache
            .lock()
            .map_err(|_| Error::new(ErrorKind::Input, "derived format cache poisoned"))?;
        let derived = |program| Format {
            index: NOT_IN_TABLE,
            name,
            program,
            user: None,
        };
        if let Some(program) = map.get(&key) {
            return Ok(derived(program));
        }
        let src = format!("{COMMON}\n{grammar}");
        let program = peg::build(&src, params, ENTRIES)
            .map_err(|e| Error::new(ErrorKind::Input, format!("derived grammar: {e}")))?;
        let program: &'static Program = Box::leak(Box::new(program));
        map.insert(key, program);
        Ok(derived(program))
    }

    /// This format described as data: its markers and call syntax (see [`FormatSpec`]).
    /// Grammar export (`output::grammar`) builds from it.
    pub fn spec(&self) -> FormatSpec {
        match specs::spec(self.name()) {
            Some(s) => s,
            // Every name in the table but those of WITHOUT_SPEC has a spec (a unit test).
            None => FormatSpec {
                format: Some(self.name().into()),
                end_of_turn: None,
                reasoning: Default::default(),
                content: None,
                tools: None,
                channels: None,
                confidence: 0.0,
                notes: vec![specs::WITHOUT_SPEC
                    .iter()
                    .find(|(n, _)| *n == self.name())
                    .map_or("no spec for this format", |(_, why)| why)
                    .to_string()],
                prompt_prefix: None,
                messages: None,
            },
        }
    }

    pub(crate) fn program(&self) -> &'static Program {
        self.program
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_compiles() {
        for (name, _) in Format::names() {
            if let Err(e) = Format::by_name(name) {
                panic!("{e}");
            }
        }
        assert!(Format::by_name("nope").is_err());
    }

    #[test]
    fn every_parser_name_has_its_format() {
        for t in names::TOOL_NAMES {
            let c = Format::by_parsers(Some(t.name), None).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(c.format.name(), t.format);
        }
        for r in names::REASONING_NAMES {
            let c = Format::by_parsers(None, Some(r.name)).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(c.format.name(), r.format);
        }
        assert!(Format::by_parsers(Some("nope"), None).is_err());
        assert!(Format::by_parsers(None, None).is_err());
    }
}
