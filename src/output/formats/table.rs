//! The table of formats.

use super::Spec;

macro_rules! g {
    ($f:literal) => {
        include_str!(concat!("../../../grammar/", $f))
    };
}

const THINK: (&str, &str) = ("think_open", "<think>");
const UNTHINK: (&str, &str) = ("think_close", "</think>");

pub(crate) const COUNT: usize = 13;

pub(crate) static SPECS: [Spec; COUNT] = [
    Spec {
        name: "hermes",
        about: "Hermes 2 Pro / Qwen2.5 / Qwen3: <think>, <tool_call>{json}</tool_call>",
        grammar: &[g!("hermes.peg")],
        params: &[THINK, UNTHINK, ("call_open", "<tool_call>"), ("call_close", "</tool_call>")],
    },
    Spec {
        name: "qwen3-coder",
        about: "Qwen3-Coder / Qwen3.5 / Nemotron-3: <tool_call><function=NAME><parameter=K>V</parameter>",
        grammar: &[g!("qwen3_coder.peg")],
        params: &[THINK, UNTHINK, ("call_open", "<tool_call>"), ("call_close", "</tool_call>")],
    },
    Spec {
        name: "seed-oss",
        about: "Seed-OSS: <seed:think>, <seed:tool_call><function=NAME><parameter=K>V</parameter>",
        grammar: &[g!("qwen3_coder.peg")],
        params: &[
            ("think_open", "<seed:think>"),
            ("think_close", "</seed:think>"),
            ("call_open", "<seed:tool_call>"),
            ("call_close", "</seed:tool_call>"),
        ],
    },
    Spec {
        name: "llama3",
        about: "Llama 3.1/3.2/3.3: [<|python_tag|>]{\"name\", \"parameters\"}, builtin NAME.call(...)",
        grammar: &[g!("llama3.peg")],
        params: &[],
    },
    Spec {
        name: "mistral-nemo",
        about: "Mistral pre-v11 / Nemo: [TOOL_CALLS][{json}, ...]",
        grammar: &[g!("mistral.peg")],
        params: &[],
    },
    Spec {
        name: "mistral",
        about: "Mistral v11+ (Small 3.x, Devstral, Magistral): [THINK], [TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{json}",
        grammar: &[g!("mistral.peg")],
        params: &[],
    },
    Spec {
        name: "deepseek-r1",
        about: "DeepSeek V3 / R1: <think>, <｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME ```json```",
        grammar: &[g!("deepseek.peg")],
        params: &[],
    },
    Spec {
        name: "deepseek-v3.1",
        about: "DeepSeek V3.1: <｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{json}",
        grammar: &[g!("deepseek.peg"), g!("deepseek_v31.peg")],
        params: &[],
    },
    Spec {
        name: "kimi-k2",
        about: "Kimi K2: <|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{json}",
        grammar: &[g!("kimi.peg")],
        params: &[],
    },
    Spec {
        name: "glm-4.5",
        about: "GLM-4.5/4.6/4.7: <tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>",
        grammar: &[g!("glm.peg")],
        params: &[],
    },
    Spec {
        name: "minimax-m2",
        about: "MiniMax-M2: <minimax:tool_call><invoke name=\"X\"><parameter name=\"k\">v</parameter>",
        grammar: &[g!("minimax.peg")],
        params: &[],
    },
    Spec {
        name: "gpt-oss",
        about: "GPT-OSS harmony: <|channel|>analysis/final/commentary to=functions.X",
        grammar: &[g!("harmony.peg")],
        params: &[],
    },
    Spec {
        name: "nemotron-v2",
        about: "Nemotron Nano v2: <think>, <TOOLCALL>[{json}]</TOOLCALL>",
        grammar: &[g!("hermes.peg"), g!("json_array.peg")],
        params: &[THINK, UNTHINK, ("call_open", "<TOOLCALL>"), ("call_close", "</TOOLCALL>")],
    },
];
