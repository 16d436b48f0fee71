//! The parser of `.peg` grammar files (the language is described in docs/peg.md).

use super::ir::{ByteSet, Expr, Grammar, Kind};

/// Parses grammar text; `$name` references are replaced by the literal `params` gives.
/// A later definition of a rule replaces an earlier one (a family file may override a rule of
/// the common library).
pub(crate) fn parse_grammar(src: &str, params: &[(&str, &str)]) -> Result<Grammar, String> {
    parse_grammar_from(src, params, 0)
}

/// [`parse_grammar`] of a text whose part from byte `origin` on is a file of its own (a
/// user's grammar after the common rules): errors there give that file's line and column.
pub(crate) fn parse_grammar_from(
    src: &str,
    params: &[(&str, &str)],
    origin: usize,
) -> Result<Grammar, String> {
    let mut p = P {
        s: src.as_bytes(),
        i: 0,
        origin: origin.min(src.len()),
        params,
        names: Vec::new(),
        rules: Vec::new(),
    };
    p.skip_ws();
    while p.i < p.s.len() {
        let name = p.ident().ok_or_else(|| p.err("expected a rule name"))?;
        p.skip_ws();
        if !p.eat("<-") {
            return Err(p.err("expected `<-`"));
        }
        let idx = p.index_of(&name);
        let e = p.choice()?;
        p.rules[idx] = Some(e);
        p.skip_ws();
    }
    let mut rules = Vec::with_capacity(p.rules.len());
    for (n, r) in p.names.iter().zip(std::mem::take(&mut p.rules)) {
        match r {
            Some(r) => rules.push(r),
            None => {
                // Point at the first use of the name in the user's part, if it is there.
                let at = find_word(&p.s[p.origin..], n.as_bytes()).map(|k| p.origin + k);
                let msg = format!("rule `{n}` is used but not defined");
                return Err(match at {
                    Some(at) => {
                        p.i = at;
                        p.err(&msg)
                    }
                    None => msg,
                });
            }
        }
    }
    Ok(Grammar {
        names: p.names,
        rules,
    })
}

/// The offset of the first occurrence of `word` in `hay` as a whole identifier.
fn find_word(hay: &[u8], word: &[u8]) -> Option<usize> {
    let is_id = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut from = 0;
    while let Some(k) = memchr::memmem::find(&hay[from..], word) {
        let at = from + k;
        let end = at + word.len();
        let before = at == 0 || !is_id(hay[at - 1]);
        let after = end >= hay.len() || !is_id(hay[end]);
        if before && after {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

struct P<'a> {
    s: &'a [u8],
    i: usize,
    /// Where the file errors are reported against starts (see [`parse_grammar_from`]).
    origin: usize,
    params: &'a [(&'a str, &'a str)],
    names: Vec<String>,
    rules: Vec<Option<Expr>>,
}

impl P<'_> {
    fn err(&self, msg: &str) -> String {
        let at = self.i.min(self.s.len());
        let from = if at >= self.origin { self.origin } else { 0 };
        let before = &self.s[from..at];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |k| k + 1);
        let column = String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count()
            + 1;
        format!("line {line}, column {column}: {msg}")
    }

    fn index_of(&mut self, name: &str) -> usize {
        if let Some(i) = self.names.iter().position(|n| n == name) {
            return i;
        }
        self.names.push(name.to_string());
        self.rules.push(None);
        self.names.len() - 1
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b) = self.peek() {
            if b == b'#' {
                while let Some(b) = self.peek() {
                    if b == b'\n' {
                        break;
                    }
                    self.i += 1;
                }
            } else if b.is_ascii_whitespace() {
                self.i += 1;
            } else {
                break;
            }
        }
    }

    fn eat(&mut self, t: &str) -> bool {
        if self.s[self.i..].starts_with(t.as_bytes()) {
            self.i += t.len();
            true
        } else {
            false
        }
    }

    fn ident(&mut self) -> Option<String> {
        let start = self.i;
        while let Some(b) = self.peek() {
            if b.is_ascii_alphanumeric() || b == b'_' || (b == b'-' && self.i > start) {
                self.i += 1;
            } else {
                break;
            }
        }
        (self.i > start).then(|| String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
    }

    /// Whether an identifier followed by `<-` starts here (the start of the next rule).
    fn at_definition(&mut self) -> bool {
        let save = self.i;
        let r = self.ident().is_some() && {
            self.skip_ws();
            self.eat("<-")
        };
        self.i = save;
        r
    }

    fn choice(&mut self) -> Result<Expr, String> {
        let mut alts = vec![self.seq()?];
        loop {
            self.skip_ws();
            if self.eat("/") {
                alts.push(self.seq()?);
            } else {
                break;
            }
        }
        Ok(if alts.len() == 1 {
            alts.remove(0)
        } else {
            Expr::Choice(alts)
        })
    }

    fn seq(&mut self) -> Result<Expr, String> {
        let mut items = Vec::new();
        loop {
            self.skip_ws();
            match self.peek() {
                None | Some(b'/') | Some(b')') | Some(b',') => break,
                _ if self.at_definition() => break,
                _ => items.push(self.item()?),
            }
        }
        Ok(if items.len() == 1 {
            items.remove(0)
        } else {
            Expr::Seq(items)
        })
    }

    fn item(&mut self) -> Result<Expr, String> {
        if self.eat("~") {
            return Ok(Expr::Cut);
        }
        let pred = if self.eat("&") {
            Some(true)
        } else if self.eat("!") {
            Some(false)
        } else {
            None
        };
        self.skip_ws();
        let mut e = self.atom()?;
        loop {
            if self.eat("*") {
                e = Expr::Star(Box::new(e));
            } else if self.eat("+") {
                e = Expr::Plus(Box::new(e));
            } else if self.eat("?") {
                e = Expr::Opt(Box::new(e));
            } else {
                break;
            }
        }
        Ok(match pred {
            Some(true) => Expr::And(Box::new(e)),
            Some(false) => Expr::Not(Box::new(e)),
            None => e,
        })
    }

    fn atom(&mut self) -> Result<Expr, String> {
        match self.peek() {
            Some(b'"') => Ok(Expr::Lit(self.literal()?)),
            Some(b'$') => Ok(Expr::Lit(self.param()?)),
            Some(b'[') => self.set(),
            Some(b'.') => {
                self.i += 1;
                Ok(Expr::Any)
            }
            Some(b'(') => {
                self.i += 1;
                let e = self.choice()?;
                self.skip_ws();
                if !self.eat(")") {
                    return Err(self.err("expected `)`"));
                }
                Ok(e)
            }
            Some(b'@') => {
                self.i += 1;
                let k = self
                    .ident()
                    .ok_or_else(|| self.err("expected a capture kind"))?;
                let kind = Kind::from_name(&k)
                    .ok_or_else(|| self.err(&format!("unknown capture kind `{k}`")))?;
                if !self.eat("(") {
                    return Err(self.err("expected `(` after the capture kind"));
                }
                let e = self.choice()?;
                self.skip_ws();
                if !self.eat(")") {
                    return Err(self.err("expected `)`"));
                }
                Ok(Expr::Cap(kind, Box::new(e)))
            }
            _ => {
                let name = self
                    .ident()
                    .ok_or_else(|| self.err("expected an expression"))?;
                if name == "until" && self.eat("(") {
                    let mut markers = Vec::new();
                    loop {
                        // A marker is one or more literals and parameters, concatenated.
                        self.skip_ws();
                        let mut m = Vec::new();
                        let mut pieces = 0;
                        loop {
                            match self.peek() {
                                Some(b'"') => m.extend(self.literal()?),
                                Some(b'$') => m.extend(self.param()?),
                                _ if pieces == 0 => return Err(self.err("until() takes literals")),
                                _ => break,
                            }
                            pieces += 1;
                            self.skip_ws();
                        }
                        if !m.is_empty() {
                            markers.push(m);
                        }
                        self.skip_ws();
                        if self.eat(")") {
                            break;
                        }
                        if !self.eat(",") {
                            return Err(self.err("expected `,` or `)` in until()"));
                        }
                    }
                    return Ok(Expr::Until(markers));
                }
                Ok(Expr::Rule(self.index_of(&name)))
            }
        }
    }

    fn param(&mut self) -> Result<Vec<u8>, String> {
        let at = self.i;
        self.i += 1;
        let name = self
            .ident()
            .ok_or_else(|| self.err("expected a parameter name after `$`"))?;
        let value = self.params.iter().find(|(k, _)| *k == name);
        if value.is_none() {
            self.i = at;
        }
        value
            .map(|(_, v)| v.as_bytes().to_vec())
            .ok_or_else(|| self.err(&format!("parameter `${name}` is not set by the format")))
    }

    fn escape(&mut self) -> Result<u8, String> {
        let b = self.peek().ok_or_else(|| self.err("unterminated escape"))?;
        self.i += 1;
        Ok(match b {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'0' => 0,
            other => other,
        })
    }

    fn literal(&mut self) -> Result<Vec<u8>, String> {
        self.i += 1;
        let mut out = Vec::new();
        loop {
            match self.peek() {
                None => return Err(self.err("unterminated literal")),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    out.push(self.escape()?);
                }
                Some(b) => {
                    self.i += 1;
                    out.push(b);
                }
            }
        }
    }

    fn set(&mut self) -> Result<Expr, String> {
        self.i += 1;
        let negate = self.eat("^");
        let mut set = ByteSet {
            bits: [0, 0],
            non_ascii: false,
        };
        let mut first = true;
        loop {
            let b = match self.peek() {
                None => return Err(self.err("unterminated character class")),
                Some(b']') if !first => {
                    self.i += 1;
                    break;
                }
                Some(b'\\') => {
                    self.i += 1;
                    self.escape()?
                }
                Some(b) => {
                    self.i += 1;
                    b
                }
            };
            first = false;
            if b >= 0x80 {
                return Err(self.err("character classes hold ASCII only"));
            }
            if self.peek() == Some(b'-') && self.s.get(self.i + 1).is_some_and(|&c| c != b']') {
                self.i += 1;
                let hi = match self.peek() {
                    Some(b'\\') => {
                        self.i += 1;
                        self.escape()?
                    }
                    Some(c) => {
                        self.i += 1;
                        c
                    }
                    None => return Err(self.err("unterminated range")),
                };
                if hi >= 0x80 || hi < b {
                    return Err(self.err("bad range in character class"));
                }
                for c in b..=hi {
                    set.insert(c);
                }
            } else {
                set.insert(b);
            }
        }
        if negate {
            set.bits = [!set.bits[0], !set.bits[1]];
            set.non_ascii = true;
        }
        Ok(Expr::Set(set))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rules_and_params() {
        let g = parse_grammar(
            "a <- \"x\" b* / ~ @content(until($m, \"y\"))\nb <- [a-c^] !.",
            &[("m", "<m>")],
        )
        .unwrap();
        assert_eq!(g.names, vec!["a", "b"]);
        match &g.rules[0] {
            Expr::Choice(alts) => assert_eq!(alts.len(), 2),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn reports_errors() {
        assert!(parse_grammar("a <- b", &[])
            .unwrap_err()
            .contains("not defined"));
        assert!(parse_grammar("a <- $nope", &[])
            .unwrap_err()
            .contains("nope"));
        assert!(parse_grammar("a <- @bogus(.)", &[])
            .unwrap_err()
            .contains("bogus"));
    }
}
