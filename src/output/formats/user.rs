//! User-defined formats: a grammar file in the language of grammar/*.peg, loaded at run time.

use super::{Format, COMMON, ENTRIES};
use crate::output::peg;

/// A grammar file that does not define a format, with where (line and column of the file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrammarError {
    /// What is wrong, starting with `line L, column C:` when it has a place in the file.
    pub message: String,
}

impl std::fmt::Display for GrammarError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for GrammarError {}

/// A loaded user format.
pub(crate) struct UserFormat {
    pub(crate) name: &'static str,
}

impl Format {
    /// A format from grammar text `src` (the language of `grammar/*.peg`, see docs/peg.md
    /// and docs/formats.md): the common rules (`ws`, `jvalue`, `hcall`, `pycall`, …) are
    /// available, and the grammar defines `start` (and optionally `start_open`, `body`,
    /// `recover`). `$parameters` are not available: write markers as literals. The
    /// compiled program lives as long as the process (load a grammar once, not per output).
    pub fn from_grammar(name: &str, src: &str) -> Result<Format, GrammarError> {
        let err = |message: String| GrammarError { message };
        if !has_rule(src, "start") {
            return Err(err(
                "the grammar defines no `start` rule (the rule parsing begins at)".into(),
            ));
        }
        let mut text = String::with_capacity(COMMON.len() + src.len() + 1);
        text.push_str(COMMON);
        text.push('\n');
        let origin = text.len();
        text.push_str(src);
        let program = peg::build_from(&text, &[], ENTRIES, origin).map_err(err)?;
        let program: &'static peg::Program = Box::leak(Box::new(program));
        let user: &'static UserFormat = Box::leak(Box::new(UserFormat {
            name: Box::leak(name.to_string().into_boxed_str()),
        }));
        Ok(Format {
            index: super::NOT_IN_TABLE,
            name: user.name,
            program,
            user: Some(user),
        })
    }
}

/// Whether `src` has a line defining `rule` (`rule <-`).
fn has_rule(src: &str, rule: &str) -> bool {
    src.lines().any(|l| {
        l.strip_prefix(rule)
            .is_some_and(|rest| rest.trim_start().starts_with("<-"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::parse;

    #[test]
    fn a_user_grammar_parses_and_errors_have_places() {
        let g = "start <- (call / &. ~ @content(. until(\"<call>\")))*\n\
                 call <- \"<call>\" ~ ws hcall ws \"</call>\"\n";
        let f = Format::from_grammar("mine", g).unwrap();
        assert_eq!(f.name(), "mine");
        let m = parse(&f, "hi <call>{\"name\": \"f\", \"arguments\": {}}</call>");
        assert_eq!(m.content, "hi ");
        assert_eq!(m.tool_calls[0].name, "f");

        let e = Format::from_grammar("bad", "start <- \"a\" (\n").unwrap_err();
        assert_eq!(e.message, "line 2, column 1: expected `)`");
        let e = Format::from_grammar("bad", "start <- \"a\"\n  body <- \"b\" $nope\n").unwrap_err();
        assert_eq!(
            e.message,
            "line 2, column 15: parameter `$nope` is not set by the format"
        );
        let e =
            Format::from_grammar("bad", "# c\nstart <- body\nbody <- \"x\" missing\n").unwrap_err();
        assert_eq!(
            e.message,
            "line 3, column 13: rule `missing` is used but not defined"
        );
        let e = Format::from_grammar("bad", "body <- \"x\"\n").unwrap_err();
        assert!(e.message.contains("no `start`"), "{e}");
        let e = Format::from_grammar("bad", "start <- @nope(\"x\")\n").unwrap_err();
        assert!(e.message.starts_with("line 1, column "), "{e}");
    }
}
