//! include/chatcodec.h says what capi/src/lib.rs defines: the same functions with the same
//! parameter and return types, and the same status codes. (The examples script then compiles
//! C against the header and links it with both libraries.)

use std::collections::BTreeMap;
use std::path::Path;

fn read(rel: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read_to_string(root.join(rel)).expect(rel)
}

/// A Rust FFI type as C spells it, spaces normalized (`const char*`, `size_t*`).
fn c_type(rust: &str) -> String {
    let r = rust.trim();
    if let Some(inner) = r.strip_prefix("*mut ") {
        return format!("{}*", c_type(inner));
    }
    if let Some(inner) = r.strip_prefix("*const ") {
        return format!("const {}*", c_type(inner));
    }
    match r {
        "c_char" => "char",
        "c_int" => "int",
        "usize" => "size_t",
        "u64" => "uint64_t",
        "Template" => "chatcodec_template",
        "Parser" => "chatcodec_parser",
        "" => "void",
        other => panic!("no C spelling for Rust type {other}"),
    }
    .to_string()
}

/// `const char *source` → `const char*` (the name dropped, stars joined).
fn c_param(param: &str) -> String {
    let p = param.trim();
    let name_start = p
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    normalize(&p[..name_start])
}

fn normalize(t: &str) -> String {
    let joined = t.split_whitespace().collect::<Vec<_>>().join(" ");
    joined.replace(" *", "*").trim().to_string()
}

/// name → (parameter types, return type), from the Rust source.
fn rust_functions(src: &str) -> BTreeMap<String, (Vec<String>, String)> {
    let mut out = BTreeMap::new();
    for chunk in src.split("extern \"C\" fn ").skip(1) {
        let name: String = chunk
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let open = chunk.find('(').expect("(");
        let close = chunk.find(')').expect(")");
        let params = chunk[open + 1..close]
            .split(',')
            .filter(|p| !p.trim().is_empty())
            .map(|p| c_type(p.split_once(':').expect("name: type").1))
            .collect();
        let rest = &chunk[close + 1..chunk.find('{').expect("{")];
        let ret = c_type(rest.trim().strip_prefix("->").unwrap_or(""));
        out.insert(name, (params, ret));
    }
    out
}

/// name → (parameter types, return type), from the header's prototypes.
fn header_functions(h: &str) -> BTreeMap<String, (Vec<String>, String)> {
    let mut out = BTreeMap::new();
    // Drop comments and preprocessor lines, then split into statements.
    let mut code = String::new();
    let mut rest = h;
    while let Some(i) = rest.find("/*") {
        code.push_str(&rest[..i]);
        rest = &rest[i + rest[i..].find("*/").expect("*/") + 2..];
    }
    code.push_str(rest);
    let code: String = code
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .collect::<Vec<_>>()
        .join(" ");
    for stmt in code.split(';') {
        let Some(open) = stmt.find("chatcodec_").and_then(|i| {
            let paren = stmt[i..].find('(')? + i;
            stmt[i..paren]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
                .then_some(paren)
        }) else {
            continue;
        };
        let head = &stmt[..open];
        let name_start = head
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        let name = head[name_start..].to_string();
        let ret = normalize(&head[..name_start]);
        let ret = ret.rsplit('}').next().unwrap_or("").trim().to_string();
        let inner = &stmt[open + 1..stmt.rfind(')').expect(")")];
        let params: Vec<String> = if inner.trim() == "void" {
            Vec::new()
        } else {
            inner.split(',').map(c_param).collect()
        };
        out.insert(name, (params, ret));
    }
    out
}

#[test]
fn header_declares_what_the_library_defines() {
    let rust = rust_functions(&read("capi/src/lib.rs"));
    let header = header_functions(&read("include/chatcodec.h"));
    assert!(rust.len() >= 11, "{rust:?}");
    assert_eq!(
        rust.keys().collect::<Vec<_>>(),
        header.keys().collect::<Vec<_>>(),
        "function names"
    );
    for (name, sig) in &rust {
        assert_eq!(Some(sig), header.get(name), "{name}");
    }
}

#[test]
fn header_status_codes_match() {
    let src = read("capi/src/lib.rs");
    let body = &src[src.find("pub enum Status {").expect("Status")..];
    let body = &body[..body.find('}').expect("}")];
    let mut rust = BTreeMap::new();
    for line in body.lines() {
        if let Some((name, value)) = line.trim().trim_end_matches(',').split_once(" = ") {
            rust.insert(name.to_ascii_uppercase(), value.trim().to_string());
        }
    }
    let h = read("include/chatcodec.h");
    let mut header = BTreeMap::new();
    for line in h.lines() {
        let l = line.trim();
        if let Some(rest) = l.strip_prefix("CHATCODEC_") {
            if let Some((name, value)) = rest.split_once(" = ") {
                let name = name.trim_start_matches("ERR_").to_string();
                let value: String = value.chars().take_while(|c| c.is_ascii_digit()).collect();
                header.insert(name, value);
            }
        }
    }
    assert_eq!(rust, header);
}
