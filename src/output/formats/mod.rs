//! The output formats: each a grammar (grammar/*.peg, compiled into the crate) plus the
//! marker parameters it is instantiated with, under a name.

use super::peg::{self, Program};
use crate::{Error, ErrorKind};
use std::sync::OnceLock;

mod detect;
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

/// An output format, chosen by name (see [`Format::names`]).
#[derive(Clone, Copy)]
pub struct Format {
    index: usize,
    program: &'static Program,
}

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
            Ok(program) => Ok(Format { index, program }),
            Err(e) => Err(Error::new(ErrorKind::Input, e.clone())),
        }
    }

    /// Every format name, with a one-line description.
    pub fn names() -> impl Iterator<Item = (&'static str, &'static str)> {
        SPECS.iter().map(|s| (s.name, s.about))
    }

    /// The format a model with this chat template writes, told by the markers the template
    /// writes (tool-call and reasoning syntax); `None` when nothing tells (plain ChatML, a
    /// template without tool calls).
    pub fn for_template(source: &str) -> Option<Format> {
        detect::detect(source).and_then(|name| Format::by_name(name).ok())
    }

    /// This format's name.
    pub fn name(&self) -> &'static str {
        SPECS[self.index].name
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
