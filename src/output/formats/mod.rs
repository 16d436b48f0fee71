//! The output formats: each a grammar (grammar/*.peg, compiled into the crate) plus the
//! marker parameters it is instantiated with, under a name.

use super::peg::{self, Program};
use crate::{Error, ErrorKind};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

mod table;

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

fn compiled(i: usize) -> &'static Result<Program, String> {
    PROGRAMS[i].get_or_init(|| {
        let spec = &SPECS[i];
        let mut src = String::from(COMMON);
        for g in spec.grammar {
            src.push('\n');
            src.push_str(g);
        }
        peg::build(&src, spec.params, ENTRIES).map_err(|e| format!("format {}: {e}", spec.name))
    })
}

/// An output format, chosen by name (see [`Format::names`]) or built from a
/// [`FormatSpec`](super::FormatSpec) (see [`Format::from_spec`]).
#[derive(Clone, Copy)]
pub struct Format {
    name: &'static str,
    program: &'static Program,
}

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
        match compiled(index) {
            Ok(program) => Ok(Format {
                name: SPECS[index].name,
                program,
            }),
            Err(e) => Err(Error::new(ErrorKind::Input, e.clone())),
        }
    }

    /// Every format name, with a one-line description.
    pub fn names() -> impl Iterator<Item = (&'static str, &'static str)> {
        SPECS.iter().map(|s| (s.name, s.about))
    }

    /// This format's name (`derived` for a format built from a spec).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// A format compiled from grammar text (appended to `common.peg`) and its parameters,
    /// named `name`; the same grammar is compiled once per process.
    pub(crate) fn from_grammar(
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
        if let Some(program) = map.get(&key) {
            return Ok(Format { name, program });
        }
        let src = format!("{COMMON}\n{grammar}");
        let program = peg::build(&src, params, ENTRIES)
            .map_err(|e| Error::new(ErrorKind::Input, format!("derived grammar: {e}")))?;
        let program: &'static Program = Box::leak(Box::new(program));
        map.insert(key, program);
        Ok(Format { name, program })
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
}
