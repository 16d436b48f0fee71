//! Template source to grammar: analyse the template, build the derived parser, export GBNF,
//! Lark and structural tags for a fixed tool list, and parse a probe output with the derived
//! parser. Input: the template source. Small limits keep every run short.
#![no_main]

use chatcodec::chat::ChatTemplate;
use chatcodec::output::analyze::{analyze, spec_grammar};
use chatcodec::output::grammar::{self, GrammarOptions, Syntax, ToolChoice};
use chatcodec::output::{parse, Format};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(mut template) = ChatTemplate::new("fuzz", source, serde_json::Map::new()) else {
        return;
    };
    let limits = &mut template.template_mut().options_mut().limits;
    limits.fuel = 200_000;
    limits.max_output = 1 << 16;
    let spec = analyze(&template);
    let _ = spec_grammar(&spec);
    if let Ok(format) = Format::for_spec(&spec) {
        let _ = parse(&format, "text <think>r</think> {\"name\": \"f\", \"arguments\": {}}");
    }
    let tools = grammar::tools_from_json(&serde_json::json!([
        {"type": "function", "function": {"name": "f", "parameters": {"type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "array", "items": {"type": "string"}}},
            "required": ["a"]}}}
    ]))
    .expect("fixed tools");
    for syntax in [Syntax::Gbnf, Syntax::Lark, Syntax::StructuralTag] {
        for (lazy, tool_choice, parallel) in [
            (false, ToolChoice::Auto, true),
            (true, ToolChoice::Required, false),
            (false, ToolChoice::None, true),
            (true, ToolChoice::Auto, true),
        ] {
            let opts = GrammarOptions {
                syntax,
                lazy,
                tool_choice,
                parallel,
                ..Default::default()
            };
            let _ = grammar::export(&spec, &tools, &opts);
        }
    }
});
