//! chatcodec's own templates (corpus/builtin/): every case renders exactly as the reference
//! renderer did (goldens made by tests/reference/make_builtin_goldens.py), and the seed-001
//! fixtures T01-T17 of the corrected Qwen3.5 template keep their key properties.

use chatcodec::chat::{render_request, Family, QWEN3_5_TEMPLATE};
use chatcodec::Template;
use serde_json::Value;

const PREFILL: &str = "<think>\n\n</think>\n\n";

fn goldens() -> Vec<Value> {
    let text = include_str!("../corpus/builtin/goldens.json");
    serde_json::from_str(text).expect("goldens.json is JSON")
}

fn source(file: &str) -> &'static str {
    match file {
        "qwen3_5.jinja" => QWEN3_5_TEMPLATE,
        other => {
            let name = other.trim_end_matches(".jinja");
            Family::from_name(name)
                .map(Family::builtin_template)
                .unwrap_or_else(|| panic!("unknown built-in {other}"))
        }
    }
}

fn render(file: &str, request: &Value) -> String {
    let t = Template::new(source(file)).unwrap_or_else(|e| panic!("{file}: {e:#}"));
    render_request(&t, request).unwrap_or_else(|e| panic!("{file}: {e:#}"))
}

#[test]
fn builtins_match_the_reference() {
    let cases = goldens();
    assert_eq!(cases.len(), 17 + 6 * 5);
    for case in &cases {
        let file = case["template"].as_str().unwrap_or_default();
        let expected = case["expected"].as_str().expect("the reference rendered");
        assert_eq!(
            render(file, &case["request"]),
            expected,
            "{file} {}",
            case["id"]
        );
    }
}

fn qwen(id: &str) -> String {
    let cases = goldens();
    let case = cases
        .iter()
        .find(|c| c["template"] == "qwen3_5.jinja" && c["id"] == id)
        .unwrap_or_else(|| panic!("no fixture {id}"));
    render("qwen3_5.jinja", &case["request"])
}

#[test]
fn qwen3_5_fixtures_keep_their_properties() {
    assert_eq!(
        qwen("T01"),
        "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n"
    );
    assert!(
        qwen("T02").starts_with("<|im_start|>system\nYou are terse.<|im_end|>\n<|im_start|>user\n")
    );
    let t03 = qwen("T03");
    assert!(
        t03.contains("<tools>\n{\"type\": \"function\", \"function\": {\"name\": \"get_weather\"")
    );
    assert!(t03.contains("{\"type\": \"function\", \"function\": {\"name\": \"get_time\""));
    assert!(t03.ends_with("<|im_start|>assistant\n"));
    assert!(qwen("T04").contains("<|im_start|>assistant\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Berlin\"}}\n</tool_call><|im_end|>"));
    assert!(qwen("T05").contains("</tool_call>\n<tool_call>"));
    assert!(qwen("T06")
        .contains("<|im_start|>user\n<tool_response>\nSunny, 20C\n</tool_response><|im_end|>\n"));
    assert!(!qwen("T07").contains("<think>"));
    let t08 = qwen("T08");
    assert!(t08.ends_with(&format!("<|im_start|>assistant\n{PREFILL}")));
    assert_eq!(PREFILL.chars().count(), 19);
    assert!(qwen("T09").ends_with(PREFILL));
    let t10 = qwen("T10");
    assert!(!t10.contains("<think>") && t10.contains("assistant\nAnswer one<|im_end|>"));
    assert!(qwen("T11").contains("<|im_start|>assistant\n<tool_call>"));
    let t12 = qwen("T12");
    assert!(!t12.contains("&#34;") && !t12.contains("&quot;") && !t12.contains("&lt;"));
    assert!(t12.contains(r#""arguments": {"text": "raw \"string\""}"#));
    assert!(qwen("T13").contains("<think>\nneed a tool\n</think>\n\n<tool_call>"));
    let t14 = qwen("T14");
    assert_eq!(t14.matches("<|im_start|>system").count(), 1);
    assert!(t14.contains("First system.\n\nSecond system.\n\nThird.<|im_end|>"));
    let t15 = qwen("T15");
    assert!(t15.contains(
        "<tool_response>\nrain\n</tool_response>\n<tool_response>\nsun\n</tool_response><|im_end|>"
    ));
    assert_eq!(t15.matches("<|im_start|>user\n<tool_response>").count(), 1);
    assert!(qwen("T16").ends_with(
        "<|im_start|>assistant\n<think>\nmy thoughts\n</think>\n\nFinal answer<|im_end|>\n"
    ));
    assert!(qwen("T17").ends_with(&format!(
        "<|im_start|>assistant\n{PREFILL}Plain answer<|im_end|>\n"
    )));
}

#[test]
fn family_templates_follow_their_formats() {
    let cases = goldens();
    let get = |file: &str, id: &str| {
        let case = cases
            .iter()
            .find(|c| c["template"] == file && c["id"] == id)
            .expect("case");
        render(file, &case["request"])
    };
    assert!(get("qwen3.jinja", "plain").ends_with(&format!("<|im_start|>assistant\n{PREFILL}")));
    assert!(get("qwen3.jinja", "thinking_on").ends_with("<|im_start|>assistant\n"));
    assert!(get("chatml.jinja", "plain").ends_with("<|im_start|>assistant\n"));
    assert!(get("llama3.jinja", "tools")
        .contains("<|start_header_id|>ipython<|end_header_id|>\n\nSunny<|eot_id|>"));
    assert!(get("glm4.jinja", "tools").contains("<|observation|>\nSunny"));
    assert!(get("llama2.jinja", "plain")
        .starts_with("<s>[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nHi [/INST]"));
    assert!(get("generic.jinja", "plain").ends_with("user: Bye\n\nassistant: "));
    for f in ["chatml", "qwen3", "llama2", "llama3", "glm4", "generic"] {
        let family = Family::from_name(f).expect("family");
        assert_eq!(family.name(), f);
    }
    assert_eq!(
        Family::detect(Family::Llama3.builtin_template()),
        Family::Llama3
    );
    assert_eq!(
        Family::detect(Family::Glm4.builtin_template()),
        Family::Glm4
    );
    assert_eq!(
        Family::detect(Family::Qwen3.builtin_template()),
        Family::Qwen3
    );
    assert_eq!(
        Family::detect(Family::ChatMl.builtin_template()),
        Family::ChatMl
    );
    assert_eq!(
        Family::detect(Family::Llama2.builtin_template()),
        Family::Llama2
    );
}
