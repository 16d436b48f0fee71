//! Error quality: syntax errors point at the line and column with the source line and a
//! caret and say what was expected; runtime errors carry the failing expression's location;
//! `raise_exception(msg)` surfaces `msg` verbatim; unknown filters are compile errors only
//! where jinja2 makes them so; malformed chat requests name the field or message at fault.
//!
//! Messages quoted here are jinja2's / Python's (transformers 5.23.0) where the engine
//! matches them.

use chatcodec::{Error, ErrorKind, Template};
use serde_json::{json, Value};

fn compile_err(src: &str) -> Error {
    match Template::new(src) {
        Ok(_) => panic!("expected {src:?} not to compile"),
        Err(e) => e,
    }
}

fn render_err(src: &str, vars: &Value) -> Error {
    let t = Template::new(src).unwrap_or_else(|e| panic!("{src:?} must compile: {e:#}"));
    match t.render(vars) {
        Ok(out) => panic!("expected {src:?} to fail, rendered {out:?}"),
        Err(e) => e,
    }
}

/// Asserts `e` is located at (`line`, `col`) and that `{:#}` shows that source line of `src`
/// with a caret under the column.
fn assert_points_at(e: &Error, src: &str, line: u32, col: u32) {
    assert_eq!(e.location(), Some((line, col)), "{e:#}");
    let shown = format!("{e:#}");
    let source_line = src.lines().nth(line as usize - 1).unwrap();
    let gutter = line.to_string();
    let numbered = format!("{gutter} | {source_line}");
    assert!(
        shown.lines().any(|l| l == numbered),
        "display lacks the source line {numbered:?}:\n{shown}"
    );
    let caret = format!(
        "{} | {}^",
        " ".repeat(gutter.len()),
        " ".repeat(col as usize - 1)
    );
    assert!(
        shown.lines().any(|l| l == caret),
        "display lacks the caret line {caret:?}:\n{shown}"
    );
    // The plain display has the location too, and the caret only in the alternate form.
    let plain = e.to_string();
    assert!(
        plain.contains(&format!("line {line}, column {col}")),
        "{plain}"
    );
    assert!(!plain.contains('^'), "{plain}");
}

fn vars() -> Value {
    json!({"messages": [{"role": "user", "content": "hi"}]})
}

// ---------------------------------------------------------------------------------------------
// Syntax errors.

#[test]
fn unterminated_block_says_which_tags_it_was_looking_for() {
    let src = "line one\n{% if x %}abc";
    let e = compile_err(src);
    assert_eq!(e.kind(), ErrorKind::Syntax);
    assert_points_at(&e, src, 2, 14);
    assert!(e.message().contains("end of template"), "{}", e.message());
    assert!(e.message().contains("'endif'"), "{}", e.message());
    assert!(e.message().contains("expected"), "{}", e.message());
}

#[test]
fn unclosed_for_says_endfor_is_expected() {
    let src = "{% for m in messages %}\n  {{ m }}\n";
    let e = compile_err(src);
    assert_eq!(e.kind(), ErrorKind::Syntax);
    assert!(e.message().contains("'endfor'"), "{}", e.message());
    assert!(e.location().is_some(), "{e:#}");
}

#[test]
fn stray_endfor_is_an_unknown_tag_at_its_position() {
    let src = "a\n  {% endfor %}";
    let e = compile_err(src);
    assert_eq!(e.kind(), ErrorKind::Syntax);
    assert_points_at(&e, src, 2, 6);
    assert!(e.message().contains("endfor"), "{}", e.message());
}

#[test]
fn unknown_statement_is_named() {
    let src = "{% frobnicate %}";
    let e = compile_err(src);
    assert_eq!(e.kind(), ErrorKind::Syntax);
    assert_points_at(&e, src, 1, 4);
    assert!(e.message().contains("'frobnicate'"), "{}", e.message());
}

#[test]
fn unterminated_string_points_at_its_quote() {
    let src = "x\n{{ \"abc }}";
    let e = compile_err(src);
    assert_eq!(e.kind(), ErrorKind::Syntax);
    assert_points_at(&e, src, 2, 4);
    assert!(e.message().contains("string"), "{}", e.message());
}

#[test]
fn unterminated_comment_and_tags() {
    for (src, what) in [
        ("{# never closed", "comment"),
        ("{%", "%}"),
        ("{{", "}}"),
        ("{{ m.content ", "}}"),
    ] {
        let e = compile_err(src);
        assert_eq!(e.kind(), ErrorKind::Syntax, "{src:?}: {e:#}");
        assert!(e.message().contains(what), "{src:?}: {}", e.message());
        assert!(e.location().is_some(), "{src:?}: {e:#}");
    }
}

#[test]
fn missing_operand_points_at_the_token_after_it() {
    let src = "{{ x + }}";
    let e = compile_err(src);
    assert_eq!(e.kind(), ErrorKind::Syntax);
    assert_points_at(&e, src, 1, 8);
    assert!(e.message().contains("'}}'"), "{}", e.message());
}

#[test]
fn for_without_iterable_points_at_block_end() {
    let src = "{% for x in %}{% endfor %}";
    let e = compile_err(src);
    assert_eq!(e.kind(), ErrorKind::Syntax);
    assert_points_at(&e, src, 1, 13);
    assert!(e.message().contains("'%}'"), "{}", e.message());
}

#[test]
fn unclosed_paren_says_what_it_expected() {
    let src = "{{ (1 }}";
    let e = compile_err(src);
    assert_eq!(e.kind(), ErrorKind::Syntax);
    assert_points_at(&e, src, 1, 7);
    assert!(e.message().contains("expected ')'"), "{}", e.message());
}

#[test]
fn missing_names_say_a_name_was_expected() {
    for (src, col) in [("{% for %}", 8), ("{% set %}", 8), ("{% macro %}", 10)] {
        let e = compile_err(src);
        assert_eq!(e.kind(), ErrorKind::Syntax, "{src}");
        assert_points_at(&e, src, 1, col);
        assert!(e.message().contains("expected a name"), "{}", e.message());
    }
}

#[test]
fn columns_count_characters_not_bytes() {
    // Two multi-byte characters before the error: the column counts them as one each.
    let src = "é€ {{ x + }}";
    let e = compile_err(src);
    assert_points_at(&e, src, 1, 11);
}

#[test]
fn location_on_a_later_line_after_crlf() {
    let src = "a\r\nb\r\n{% if %}";
    let e = compile_err(src);
    assert_eq!(e.kind(), ErrorKind::Syntax);
    assert_eq!(e.location().map(|(l, _)| l), Some(3), "{e:#}");
}

/// These syntax errors say what was expected, as jinja2 does ("Expected an expression, got
/// 'end of statement block'", or for a mismatched end tag "Jinja was looking for the
/// following tags: 'elif' or 'else' or 'endif'").
#[test]
fn syntax_errors_say_what_was_expected() {
    let mut missing = Vec::new();
    for src in [
        "{% for x in %}{% endfor %}",
        "{{ x + }}",
        "{{ }}",
        "{{ [1, }}",
        "{% if x %}{% endfor %}",
    ] {
        let e = compile_err(src);
        if !e
            .message()
            .to_lowercase()
            .replace("unexpected", "")
            .contains("expected")
            && !e.message().contains("looking for")
        {
            missing.push(format!("{src:?}: {}", e.message()));
        }
    }
    assert!(
        missing.is_empty(),
        "syntax errors without what was expected:\n{}",
        missing.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// Unknown filters and tests: compile errors, except in an untaken branch.

#[test]
fn unknown_filter_outside_if_is_a_compile_error() {
    let src = "a\n{{ x | nosuchfilter }}";
    let e = compile_err(src);
    assert_eq!(e.kind(), ErrorKind::Unknown);
    assert_eq!(e.message(), "No filter named 'nosuchfilter'.");
    assert_points_at(&e, src, 2, 4);
}

#[test]
fn unknown_filter_in_untaken_branch_is_not_an_error() {
    let t = Template::new("{% if false %}{{ x | nosuchfilter }}{% endif %}ok").unwrap();
    assert_eq!(t.render(&vars()).unwrap(), "ok");
    let t =
        Template::new("{% if messages %}ok{% else %}{{ x | nosuchfilter }}{% endif %}").unwrap();
    assert_eq!(t.render(&vars()).unwrap(), "ok");
}

#[test]
fn unknown_filter_in_taken_branch_fails_at_render() {
    let src = "{% if true %}\n  {{ x | nosuchfilter }}{% endif %}";
    let t = Template::new(src).unwrap();
    let e = t.render(&vars()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unknown, "{e:#}");
    assert!(e.message().contains("nosuchfilter"), "{}", e.message());
    assert_eq!(e.location().map(|(l, _)| l), Some(2), "{e:#}");
}

#[test]
fn unknown_filter_in_a_new_frame_inside_if_is_a_compile_error() {
    // jinja2 compiles loop bodies, macros, captured blocks and `with` bodies as new frames,
    // which are not soft even inside an `if`.
    for src in [
        "{% if x %}{% for a in b %}{{ a | nosuchfilter }}{% endfor %}{% endif %}",
        "{% if x %}{% for a in b if a is nosuchtest %}{% endfor %}{% endif %}",
        "{% if x %}{% macro m(a=(1 | nosuchfilter)) %}{% endmacro %}{% endif %}",
        "{% if x %}{% set y %}{{ 1 | nosuchfilter }}{% endset %}{% endif %}",
        "{% if x %}{% filter nosuchfilter %}{% endfilter %}{% endif %}",
        "{% if x %}{% with a = 1 %}{{ a | nosuchfilter }}{% endwith %}{% endif %}",
        "{% if x %}{% generation %}{{ 1 | nosuchfilter }}{% endgeneration %}{% endif %}",
    ] {
        assert_eq!(compile_err(src).kind(), ErrorKind::Unknown, "{src}");
    }
    // What is evaluated in the `if`'s own frame stays soft.
    for src in [
        "{% if false %}{% for a in (b | nosuchfilter) %}{% endfor %}{% endif %}ok",
        "{% if false %}{% set y = 1 | nosuchfilter %}{% endif %}ok",
        "{% if false %}{% with a = (1 | nosuchfilter) %}{% endwith %}{% endif %}ok",
        "{% for a in [1] %}{% if false %}{{ a | nosuchfilter }}{% endif %}{% endfor %}ok",
    ] {
        let t = Template::new(src).unwrap();
        assert_eq!(t.render(&vars()).unwrap(), "ok", "{src}");
    }
}

#[test]
fn unknown_test_behaves_like_unknown_filter() {
    let e = compile_err("{{ x is nosuchtest }}");
    assert_eq!(e.kind(), ErrorKind::Unknown);
    assert_eq!(e.message(), "No test named 'nosuchtest'.");
    let t = Template::new("{% if false %}{{ x is nosuchtest }}{% endif %}ok").unwrap();
    assert_eq!(t.render(&vars()).unwrap(), "ok");
}

// ---------------------------------------------------------------------------------------------
// Runtime errors.

#[test]
fn raise_exception_surfaces_the_message_verbatim() {
    for msg in [
        "boom",
        "Conversation roles must alternate user/assistant/user/assistant/...",
        "quotes ' \" and <tags> & ünïcödé, {{ not jinja }}",
        "",
    ] {
        let src = "x\n  {{ raise_exception(msg) }}";
        let e = render_err(src, &json!({ "msg": msg }));
        assert_eq!(e.kind(), ErrorKind::Raised, "{e:#}");
        assert_eq!(e.message(), msg);
        assert_points_at(&e, src, 2, 6);
    }
    // A literal argument, and one built by the template.
    let e = render_err("{{ raise_exception('Only ' ~ 'user') }}", &vars());
    assert_eq!(e.message(), "Only user");
}

#[test]
fn raise_exception_display_has_no_prefix() {
    let e = render_err("{{ raise_exception('plain') }}", &vars());
    assert!(e.to_string().starts_with("plain"), "{e}");
}

#[test]
fn none_is_not_iterable_at_the_for() {
    let src = "{% set y = none %}\n{% for a in y %}{% endfor %}";
    let e = render_err(src, &vars());
    assert_eq!(e.kind(), ErrorKind::Type);
    assert_eq!(e.message(), "'NoneType' object is not iterable");
    assert_eq!(e.location().map(|(l, _)| l), Some(2), "{e:#}");
}

#[test]
fn type_error_names_operand_types_and_location() {
    let src = "ok\n   {{ 1 + \"a\" }}";
    let e = render_err(src, &vars());
    assert_eq!(e.kind(), ErrorKind::Type);
    assert_eq!(
        e.message(),
        "unsupported operand type(s) for +: 'int' and 'str'"
    );
    assert_points_at(&e, src, 2, 7);
}

#[test]
fn undefined_variable_and_attribute() {
    let src = "a\n  {% for m in nothing.x %}{% endfor %}";
    let e = render_err(src, &vars());
    assert_eq!(e.kind(), ErrorKind::Undefined);
    assert_eq!(e.message(), "'nothing' is undefined");
    assert_eq!(e.location().map(|(l, _)| l), Some(2), "{e:#}");

    let src = "a\n{{ messages[0].content.foo() }}";
    let e = render_err(src, &vars());
    assert_eq!(e.kind(), ErrorKind::Undefined);
    assert_eq!(e.message(), "'str object' has no attribute 'foo'");
    assert_eq!(e.location().map(|(l, _)| l), Some(2), "{e:#}");

    let e = render_err("{{ nosuchfunc() }}", &vars());
    assert_eq!(e.kind(), ErrorKind::Undefined);
    assert_eq!(e.message(), "'nosuchfunc' is undefined");
}

#[test]
fn runtime_error_points_at_the_failing_expression_not_the_first() {
    // Three expressions on a line; only the third fails. The location must be inside the
    // third tag.
    let src = "{{ 1 }} {{ 2 }} {{ 1 // 0 }}";
    let e = render_err(src, &vars());
    assert_eq!(e.kind(), ErrorKind::ZeroDivision);
    assert_eq!(e.message(), "integer division or modulo by zero");
    let (line, col) = e.location().expect("location");
    assert_eq!(line, 1);
    assert!(col >= 17, "column {col} is before the failing tag: {e:#}");
}

#[test]
fn runtime_error_in_macro_points_into_the_macro() {
    let src = "{% macro f(x) %}\n{{ x.bad() }}\n{% endmacro %}\n{{ f(1) }}";
    let e = render_err(src, &vars());
    assert_eq!(e.location().map(|(l, _)| l), Some(2), "{e:#}");
}

#[test]
fn sandbox_errors_are_security_with_location() {
    let src = "{% set x = [] %}\n{{ x.append(1) }}";
    let e = render_err(src, &vars());
    assert_eq!(e.kind(), ErrorKind::Security);
    assert_eq!(
        e.message(),
        "access to attribute 'append' of 'list' object is unsafe."
    );
    assert_points_at(&e, src, 2, 4);
}

#[test]
fn range_too_big_is_overflow() {
    let e = render_err("{{ range(100001) | list }}", &vars());
    assert_eq!(e.kind(), ErrorKind::Overflow);
    assert_eq!(
        e.message(),
        "Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000)."
    );
}

// ---------------------------------------------------------------------------------------------
// Chat requests with bad shapes.

fn request_err(request: Value) -> Error {
    let t = Template::new("{% for m in messages %}{{ m.content }}{% endfor %}").unwrap();
    match chatcodec::chat::render_request(&t, &request) {
        Ok(out) => panic!("expected {request} to be rejected, rendered {out:?}"),
        Err(e) => e,
    }
}

#[test]
fn messages_not_a_list_is_input_error() {
    for messages in [json!("hi"), json!({"role": "user"}), json!(3), json!(null)] {
        let e = request_err(json!({ "messages": messages }));
        assert_eq!(e.kind(), ErrorKind::Input, "{e:#}");
        assert!(e.message().contains("'messages'"), "{}", e.message());
    }
    let e = request_err(json!({}));
    assert_eq!(e.kind(), ErrorKind::Input);
    assert!(e.message().contains("'messages'"), "{}", e.message());
}

#[test]
fn message_not_an_object_names_its_index() {
    let e = request_err(json!({"messages": [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "b"},
        "not a message"
    ]}));
    assert_eq!(e.kind(), ErrorKind::Input, "{e:#}");
    assert!(e.message().contains("message 2"), "{}", e.message());
    let e = request_err(json!({"messages": [[1, 2]]}));
    assert!(e.message().contains("message 0"), "{}", e.message());
}

#[test]
fn tools_not_a_list_names_the_field() {
    for tools in [
        json!({"type": "function"}),
        json!("get_weather"),
        json!([1, 2]),
    ] {
        let e = request_err(json!({"messages": [], "tools": tools}));
        assert_eq!(e.kind(), ErrorKind::Input, "{e:#}");
        assert!(e.message().contains("'tools'"), "{}", e.message());
    }
    // null tools is None, as transformers passes it.
    let t = Template::new("{{ tools is none }}").unwrap();
    assert_eq!(
        chatcodec::chat::render_request(&t, &json!({"messages": [], "tools": null})).unwrap(),
        "True"
    );
}

#[test]
fn documents_and_request_shape() {
    let e = request_err(json!({"messages": [], "documents": "doc"}));
    assert_eq!(e.kind(), ErrorKind::Input);
    assert!(e.message().contains("'documents'"), "{}", e.message());
    let e = request_err(json!(["not", "an", "object"]));
    assert_eq!(e.kind(), ErrorKind::Input);
    let e = request_err(json!({"messages": [], "continue_final_message": 3}));
    assert_eq!(e.kind(), ErrorKind::Input);
    assert!(
        e.message().contains("'continue_final_message'"),
        "{}",
        e.message()
    );
}

#[test]
fn input_errors_have_no_template_location() {
    let e = request_err(json!({"messages": "x"}));
    assert_eq!(e.location(), None, "{e:#}");
    assert!(e.to_string().starts_with("invalid input: "), "{e}");
}
