//! The grammar every exported syntax is printed from: named rules over literals, character
//! classes, sequences, alternatives and repetition. Free text that must stop at a marker is
//! lowered here to plain rules (an automaton over the markers' characters), so that GBNF and
//! Lark print the same language and no engine needs lookahead or lazy lexemes.

use std::collections::HashMap;

/// A grammar expression.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Expr {
    /// Matches nothing (the empty string).
    Empty,
    /// A literal text.
    Lit(String),
    /// One character of a class: the listed characters and ranges, or (negated) any other.
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
    /// A reference to a named rule.
    Ref(String),
    Seq(Vec<Expr>),
    Alt(Vec<Expr>),
    Opt(Box<Expr>),
    Star(Box<Expr>),
    Plus(Box<Expr>),
}

impl Expr {
    pub(crate) fn lit(s: &str) -> Expr {
        if s.is_empty() {
            Expr::Empty
        } else {
            Expr::Lit(s.to_string())
        }
    }
    pub(crate) fn class(ranges: &[(char, char)]) -> Expr {
        Expr::Class {
            negated: false,
            ranges: ranges.to_vec(),
        }
    }
    pub(crate) fn not(ranges: &[(char, char)]) -> Expr {
        Expr::Class {
            negated: true,
            ranges: ranges.to_vec(),
        }
    }
    pub(crate) fn seq(items: Vec<Expr>) -> Expr {
        let mut v: Vec<Expr> = Vec::new();
        for e in items {
            match e {
                Expr::Empty => {}
                Expr::Seq(inner) => v.extend(inner),
                other => v.push(other),
            }
        }
        match v.len() {
            0 => Expr::Empty,
            1 => v.pop().unwrap_or(Expr::Empty),
            _ => Expr::Seq(v),
        }
    }
    pub(crate) fn alt(items: Vec<Expr>) -> Expr {
        let mut v: Vec<Expr> = Vec::new();
        for e in items {
            if !v.contains(&e) {
                v.push(e);
            }
        }
        match v.len() {
            0 => Expr::Empty,
            1 => v.pop().unwrap_or(Expr::Empty),
            _ => Expr::Alt(v),
        }
    }
    pub(crate) fn opt(e: Expr) -> Expr {
        match e {
            Expr::Empty => Expr::Empty,
            e => Expr::Opt(Box::new(e)),
        }
    }
    pub(crate) fn star(e: Expr) -> Expr {
        Expr::Star(Box::new(e))
    }
    pub(crate) fn plus(e: Expr) -> Expr {
        Expr::Plus(Box::new(e))
    }
}

/// Named rules; the first is the start rule (`root` in GBNF, `start` in Lark).
#[derive(Debug, Default)]
pub(crate) struct Rules {
    pub(crate) rules: Vec<(String, Expr)>,
    /// Every rule name in use.
    used: std::collections::HashSet<String>,
    automata: HashMap<(bool, Vec<String>), String>,
    /// Rules that are a JSON value following a JSON schema (tool arguments, JSON-typed
    /// parameters): a structural tag writes them as `json_schema` nodes.
    json: HashMap<String, serde_json::Value>,
}

impl Rules {
    /// Defines a rule under a fresh name derived from `base` (lowercase letters, digits and
    /// `-`) and returns a reference to it.
    pub(crate) fn add(&mut self, base: &str, e: Expr) -> Expr {
        let name = self.fresh(base);
        self.rules.push((name.clone(), e));
        Expr::Ref(name)
    }

    /// Defines the rule `name` once (a shared helper such as `json-string`); later calls only
    /// return the reference.
    pub(crate) fn shared(&mut self, name: &str, make: impl FnOnce(&mut Rules) -> Expr) -> Expr {
        if self.used.insert(name.to_string()) {
            let i = self.rules.len();
            self.rules.push((name.to_string(), Expr::Empty));
            let e = make(self);
            self.rules[i].1 = e;
        }
        Expr::Ref(name.to_string())
    }

    /// Defines a rule under a fresh name derived from `base` for `e`, a JSON value following
    /// `schema`, and remembers the schema.
    pub(crate) fn add_json(&mut self, base: &str, schema: &serde_json::Value, e: Expr) -> Expr {
        let r = self.add(base, e);
        if let Expr::Ref(n) = &r {
            self.json.insert(n.clone(), schema.clone());
        }
        r
    }

    /// The JSON schema of a rule made by [`Rules::add_json`].
    pub(crate) fn json_schema_of(&self, name: &str) -> Option<&serde_json::Value> {
        self.json.get(name)
    }

    /// For the start rule of a free-text automaton: whether it runs through a stop, and the
    /// stops.
    pub(crate) fn automaton_of(&self, name: &str) -> Option<(bool, Vec<String>)> {
        self.automata
            .iter()
            .find(|(_, n)| n.as_str() == name)
            .map(|((through, stops), _)| (*through, stops.clone()))
    }

    /// The body of the rule `name`.
    pub(crate) fn body(&self, name: &str) -> Option<&Expr> {
        self.rules.iter().find(|(n, _)| n == name).map(|(_, e)| e)
    }

    /// Sets the start rule's body (the rule named `root`, placed first).
    pub(crate) fn set_root(&mut self, e: Expr) {
        self.rules.insert(0, ("root".to_string(), e));
    }

    fn fresh(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut n = 1;
        while self.used.contains(&name) {
            n += 1;
            name = format!("{base}-{n}");
        }
        self.used.insert(name.clone());
        name
    }

    /// Drops the rules the start rule does not reach (helpers made for another layout).
    pub(crate) fn prune(&mut self) {
        fn refs(e: &Expr, out: &mut Vec<String>) {
            match e {
                Expr::Ref(n) => out.push(n.clone()),
                Expr::Seq(v) | Expr::Alt(v) => v.iter().for_each(|x| refs(x, out)),
                Expr::Opt(x) | Expr::Star(x) | Expr::Plus(x) => refs(x, out),
                _ => {}
            }
        }
        let index: HashMap<&str, usize> = self
            .rules
            .iter()
            .enumerate()
            .map(|(i, (n, _))| (n.as_str(), i))
            .collect();
        let mut keep = vec![false; self.rules.len()];
        let mut todo = vec![0usize];
        while let Some(i) = todo.pop() {
            if i >= keep.len() || keep[i] {
                continue;
            }
            keep[i] = true;
            let mut out = Vec::new();
            refs(&self.rules[i].1, &mut out);
            todo.extend(out.iter().filter_map(|n| index.get(n.as_str()).copied()));
        }
        let mut i = 0;
        self.rules.retain(|_| {
            i += 1;
            keep[i - 1]
        });
    }

    /// Any text that contains none of `stops` (possibly empty).
    pub(crate) fn avoid(&mut self, stops: &[&str]) -> Expr {
        self.automaton(false, stops)
    }

    /// Text that contains none of `stops`, then one of them (included in the match).
    pub(crate) fn through(&mut self, stops: &[&str]) -> Expr {
        self.automaton(true, stops)
    }

    /// The rules of an Aho-Corasick automaton over `stops`: one rule per proper prefix of a
    /// stop, each alternative one character and the next state. With `through`, the
    /// character that completes a stop ends the match; otherwise such characters are not
    /// allowed and every state may end.
    fn automaton(&mut self, through: bool, stops: &[&str]) -> Expr {
        let mut key: Vec<String> = stops
            .iter()
            .filter(|s| !s.is_empty())
            .map(|s| s.to_string())
            .collect();
        key.sort();
        key.dedup();
        if key.is_empty() {
            // Nothing to stop at: any text.
            return if through {
                Expr::Empty
            } else {
                self.shared("any-text", |_| Expr::star(Expr::not(&[])))
            };
        }
        if let Some(name) = self.automata.get(&(through, key.clone())) {
            return Expr::Ref(name.clone());
        }
        // Trie of the stops.
        let mut children: Vec<Vec<(char, usize)>> = vec![Vec::new()];
        let mut terminal = vec![false];
        let mut depth = vec![0usize];
        for s in &key {
            let mut node = 0;
            for c in s.chars() {
                let next = children[node]
                    .iter()
                    .find(|(k, _)| *k == c)
                    .map(|&(_, n)| n);
                node = match next {
                    Some(n) => n,
                    None => {
                        children.push(Vec::new());
                        terminal.push(false);
                        depth.push(depth[node] + 1);
                        let n = children.len() - 1;
                        children[node].push((c, n));
                        n
                    }
                };
            }
            terminal[node] = true;
        }
        let alphabet: Vec<char> = {
            let mut a: Vec<char> = key.iter().flat_map(|s| s.chars()).collect();
            a.sort_unstable();
            a.dedup();
            a
        };
        // Failure links in breadth-first order, then a node is "done" when it or a suffix of it
        // is a whole stop.
        let n = children.len();
        let mut fail = vec![0usize; n];
        let mut order = Vec::with_capacity(n);
        let mut queue = std::collections::VecDeque::new();
        for &(_, c) in &children[0] {
            queue.push_back(c);
        }
        while let Some(u) = queue.pop_front() {
            order.push(u);
            for &(c, v) in &children[u] {
                let mut f = fail[u];
                loop {
                    if let Some(&(_, w)) = children[f].iter().find(|(k, _)| *k == c) {
                        if w != v {
                            fail[v] = w;
                            break;
                        }
                    }
                    if f == 0 {
                        fail[v] = 0;
                        break;
                    }
                    f = fail[f];
                }
                queue.push_back(v);
            }
        }
        let mut done = terminal.clone();
        for &u in &order {
            if done[fail[u]] {
                done[u] = true;
            }
        }
        let step = |mut q: usize, c: char| -> usize {
            loop {
                if let Some(&(_, w)) = children[q].iter().find(|(k, _)| *k == c) {
                    return w;
                }
                if q == 0 {
                    return 0;
                }
                q = fail[q];
            }
        };
        let base = if through { "through" } else { "avoid" };
        let name0 = self.fresh(base);
        self.automata.insert((through, key), name0.clone());
        let state_name = |q: usize| {
            if q == 0 {
                name0.clone()
            } else {
                format!("{name0}-s{q}")
            }
        };
        let live: Vec<usize> = (0..n).filter(|&q| !done[q]).collect();
        for &q in &live {
            let mut alts = Vec::new();
            // Characters that lead back to the start state share one negated class.
            let special: Vec<char> = alphabet
                .iter()
                .copied()
                .filter(|&c| {
                    let t = step(q, c);
                    t != 0 || done[t]
                })
                .collect();
            let others: Vec<(char, char)> = special.iter().map(|&c| (c, c)).collect();
            alts.push(Expr::seq(vec![
                Expr::not(&others),
                Expr::Ref(state_name(0)),
            ]));
            for &c in &special {
                let t = step(q, c);
                let ch = Expr::Lit(c.to_string());
                if done[t] {
                    if through {
                        alts.push(ch);
                    }
                } else {
                    alts.push(Expr::seq(vec![ch, Expr::Ref(state_name(t))]));
                }
            }
            if !through {
                alts.push(Expr::Empty);
            }
            let name = state_name(q);
            self.used.insert(name.clone());
            self.rules.push((name, Expr::Alt(alts)));
        }
        Expr::Ref(name0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The end positions of `e` matched from `at` (a plain set-based recognizer, exponential
    /// in general but fine for these small cases).
    fn ends(r: &Rules, e: &Expr, s: &[char], at: usize, depth: usize) -> BTreeSet<usize> {
        let mut out = BTreeSet::new();
        if depth > 200 {
            return out;
        }
        match e {
            Expr::Empty => {
                out.insert(at);
            }
            Expr::Lit(l) => {
                let l: Vec<char> = l.chars().collect();
                if s[at..].starts_with(&l) {
                    out.insert(at + l.len());
                }
            }
            Expr::Class { negated, ranges } => {
                if let Some(&c) = s.get(at) {
                    if ranges.iter().any(|&(a, b)| a <= c && c <= b) != *negated {
                        out.insert(at + 1);
                    }
                }
            }
            Expr::Ref(n) => {
                let body = &r.rules.iter().find(|(k, _)| k == n).expect("rule").1;
                out = ends(r, body, s, at, depth + 1);
            }
            Expr::Seq(v) => {
                let mut cur = BTreeSet::from([at]);
                for x in v {
                    cur = cur
                        .iter()
                        .flat_map(|&p| ends(r, x, s, p, depth + 1))
                        .collect();
                }
                out = cur;
            }
            Expr::Alt(v) => {
                for x in v {
                    out.extend(ends(r, x, s, at, depth + 1));
                }
            }
            Expr::Opt(x) => {
                out.insert(at);
                out.extend(ends(r, x, s, at, depth + 1));
            }
            Expr::Star(x) | Expr::Plus(x) => {
                let mut cur = BTreeSet::from([at]);
                if matches!(e, Expr::Star(_)) {
                    out.insert(at);
                }
                while !cur.is_empty() {
                    let next: BTreeSet<usize> = cur
                        .iter()
                        .flat_map(|&p| ends(r, x, s, p, depth + 1))
                        .filter(|p| !out.contains(p))
                        .collect();
                    out.extend(next.iter().copied());
                    cur = next;
                }
            }
        }
        out
    }

    fn full(r: &Rules, e: &Expr, s: &str) -> bool {
        let s: Vec<char> = s.chars().collect();
        ends(r, e, &s, 0, 0).contains(&s.len())
    }

    #[test]
    fn through_stops_at_the_first_stop_and_includes_it() {
        let mut r = Rules::default();
        let t = r.through(&["</think>"]);
        for ok in [
            "</think>",
            "abc</think>",
            "<</think>",
            "</thin</think>",
            "a<b/c</think>",
        ] {
            assert!(full(&r, &t, ok), "{ok}");
        }
        for bad in ["", "abc", "</think>x", "</think></think>", "</thin"] {
            assert!(!full(&r, &t, bad), "{bad}");
        }
    }

    #[test]
    fn avoid_accepts_text_without_any_stop() {
        let mut r = Rules::default();
        let a = r.avoid(&["<tool_call>", "[TOOL_CALLS]"]);
        for ok in [
            "",
            "hi",
            "<tool_cal",
            "<tool_call",
            "[TOOL_CALLS",
            "a<b>[c]",
        ] {
            assert!(full(&r, &a, ok), "{ok}");
        }
        for bad in [
            "<tool_call>",
            "x<tool_call>y",
            "<<tool_call>",
            "[TOOL_CALLS]",
        ] {
            assert!(!full(&r, &a, bad), "{bad}");
        }
        // The same stops give the same rules.
        assert_eq!(r.avoid(&["[TOOL_CALLS]", "<tool_call>"]), a);
    }

    #[test]
    fn overlapping_stops_follow_failure_links() {
        let mut r = Rules::default();
        let t = r.through(&["aab"]);
        assert!(full(&r, &t, "aaab"));
        assert!(full(&r, &t, "abaab"));
        assert!(!full(&r, &t, "aabaab"));
    }
}
