//! The table of formats.

use super::Spec;

macro_rules! g {
    ($f:literal) => {
        include_str!(concat!("../../../grammar/", $f))
    };
}

const THINK: (&str, &str) = ("think_open", "<think>");
const UNTHINK: (&str, &str) = ("think_close", "</think>");
/// think.peg without a tool-call opener ending reasoning.
const NO_STOP: (&str, &str) = ("think_stop", super::NEVER);
/// A marker that never occurs, for a marker a format lacks (two noncharacters U+FFFF).
const NONE: &str = "\u{FFFF}\u{FFFF}none";
const MINIMAX_SECTION: [(&str, &str); 2] = [
    ("section_open", "<minimax:tool_call>"),
    ("section_close", "</minimax:tool_call>"),
];

pub(crate) const COUNT: usize = 54;

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
        params: &[("think_open", "[THINK]"), ("think_close", "[/THINK]")],
    },
    Spec {
        name: "mistral",
        about: "Mistral v11+ (Small 3.x, Devstral, Magistral): [THINK], [TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{json}",
        grammar: &[g!("mistral.peg")],
        params: &[("think_open", "[THINK]"), ("think_close", "[/THINK]")],
    },
    Spec {
        name: "deepseek-r1",
        about: "DeepSeek V3 / R1: <think>, <｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME ```json```",
        grammar: &[g!("deepseek.peg")],
        params: &[THINK, UNTHINK],
    },
    Spec {
        name: "deepseek-v3.1",
        about: "DeepSeek V3.1: <｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{json}",
        grammar: &[g!("deepseek.peg"), g!("deepseek_v31.peg")],
        params: &[THINK, UNTHINK],
    },
    Spec {
        name: "kimi-k2",
        about: "Kimi K2: <|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{json}",
        grammar: &[g!("kimi.peg")],
        params: &[THINK, UNTHINK],
    },
    Spec {
        name: "glm-4.5",
        about: "GLM-4.5/4.6/4.7/5: <think>, <tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>",
        grammar: &[g!("glm.peg")],
        params: &[THINK, UNTHINK],
    },
    Spec {
        name: "minimax-m2",
        about: "MiniMax-M2: <minimax:tool_call><invoke name=\"X\"><parameter name=\"k\">v</parameter>",
        grammar: &[g!("minimax.peg")],
        params: &[THINK, UNTHINK, MINIMAX_SECTION[0], MINIMAX_SECTION[1]],
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
    Spec {
        name: "pythonic",
        about: "Llama 4 / Olmo3 pythonic: [f(a=1), g(b='x')]",
        grammar: &[g!("pythonic.peg")],
        params: &[
            THINK,
            UNTHINK,
            ("call_open", ""),
            ("call_close", ""),
            ("scan", "["),
            ("wrap_open", "<|python_start|>"),
            ("wrap_close", "<|python_end|>"),
            ("object_open", NONE),
        ],
    },
    Spec {
        name: "lfm2",
        about: "LFM2 / LFM2.5: <think>, <|tool_call_start|>[f(a=1)]<|tool_call_end|>",
        grammar: &[g!("pythonic.peg")],
        params: &[
            THINK,
            UNTHINK,
            ("call_open", "<|tool_call_start|>"),
            ("call_close", "<|tool_call_end|>"),
            ("scan", "<|tool_call_start|>"),
            ("wrap_open", NONE),
            ("wrap_close", NONE),
            ("object_open", "<|tool_call_start|>"),
        ],
    },
    Spec {
        name: "deepseek-v3.2",
        about: "DeepSeek V3.2 / V4 DSML: <｜DSML｜invoke name=\"X\"><｜DSML｜parameter name=\"k\" string=\"true\">",
        grammar: &[g!("dsml.peg")],
        params: &[THINK, UNTHINK],
    },
    Spec {
        name: "gemma4",
        about: "Gemma 4: <|channel>thought…<channel|>, <|tool_call>call:NAME{k:<|\"|>v<|\"|>}<tool_call|>",
        grammar: &[g!("gemma.peg")],
        params: &[
            ("think_open", "<|channel>thought"),
            ("think_close", "<channel|>"),
            ("call_open", "<|tool_call>"),
            ("call_close", "<tool_call|>"),
        ],
    },
    Spec {
        name: "functiongemma",
        about: "FunctionGemma: <start_function_call>call:NAME{k:<escape>v<escape>}<end_function_call>",
        grammar: &[g!("gemma.peg")],
        params: &[
            ("think_open", "<|channel>thought"),
            ("think_close", "<channel|>"),
            ("call_open", "<start_function_call>"),
            ("call_close", "<end_function_call>"),
        ],
    },
    Spec {
        name: "command-r7b",
        about: "Command R7B / Command A: <|START_THINKING|>, <|START_RESPONSE|>, <|START_ACTION|>[{json}], <co> citations",
        grammar: &[g!("hermes.peg"), g!("json_array.peg"), g!("wrapped.peg"), g!("cohere.peg")],
        params: &[
            ("think_open", "<|START_THINKING|>"),
            ("think_close", "<|END_THINKING|>"),
            ("call_open", "<|START_ACTION|>"),
            ("call_close", "<|END_ACTION|>"),
            ("text_open", "<|START_RESPONSE|>"),
            ("text_close", "<|END_RESPONSE|>"),
        ],
    },
    Spec {
        name: "granite",
        about: "Granite 3.x: <think>, <response>, <|tool_call|>[{json}] or <tool_call>[{json}]",
        grammar: &[
            g!("hermes.peg"),
            g!("json_array.peg"),
            g!("wrapped.peg"),
            g!("granite.peg"),
        ],
        params: &[
            THINK,
            UNTHINK,
            ("call_open", "<|tool_call|>"),
            ("call_close", "<|end_of_text|>"),
            ("text_open", "<response>"),
            ("text_close", "</response>"),
            ("think_phrase", "my thought process:"),
            ("response_phrase", "my response:"),
        ],
    },
    Spec {
        name: "hunyuan",
        about: "Hunyuan A13B: <think>, <answer>, [助手：], <tool_calls>[{json}]</tool_calls>",
        grammar: &[
            g!("hermes.peg"),
            g!("json_array.peg"),
            g!("wrapped.peg"),
            g!("hunyuan.peg"),
        ],
        params: &[
            THINK,
            UNTHINK,
            ("call_open", "<tool_calls>"),
            ("call_close", "</tool_calls>"),
            ("text_open", "<answer>"),
            ("text_close", "</answer>"),
        ],
    },
    Spec {
        name: "jamba",
        about: "Jamba: <tool_calls>[{json}]</tool_calls>",
        grammar: &[g!("hermes.peg"), g!("json_array.peg")],
        params: &[THINK, UNTHINK, ("call_open", "<tool_calls>"), ("call_close", "</tool_calls>")],
    },
    Spec {
        name: "apertus",
        about: "Apertus: <|inner_prefix|>…<|inner_suffix|>, <|tools_prefix|>[{\"NAME\": {…}}]<|tools_suffix|>",
        grammar: &[g!("hermes.peg"), g!("apertus.peg")],
        params: &[
            ("think_open", "<|inner_prefix|>"),
            ("think_close", "<|inner_suffix|>"),
            ("call_open", "<|tools_prefix|>"),
            ("call_close", "<|tools_suffix|>"),
        ],
    },
    Spec {
        name: "functionary-v3.1",
        about: "Functionary v3.1: <function=NAME>{json}</function>",
        grammar: &[g!("functionary31.peg")],
        params: &[],
    },
    Spec {
        name: "functionary-v3.2",
        about: "Functionary v3.2: >>>all\\ntext, >>>NAME\\n{json}",
        grammar: &[g!("functionary.peg")],
        params: &[],
    },
    Spec {
        name: "xlam",
        about: "xLAM: a bare JSON array of calls [{\"name\", \"arguments\"}] (optionally in ```json)",
        grammar: &[g!("hermes.peg"), g!("xlam.peg")],
        params: &[THINK, UNTHINK, ("call_open", "["), ("call_close", "]")],
    },
    Spec {
        name: "firefunction-v2",
        about: "Firefunction v2: functools[{\"name\", \"arguments\"}]",
        grammar: &[g!("hermes.peg"), g!("xlam.peg")],
        params: &[THINK, UNTHINK, ("call_open", "functools["), ("call_close", "]")],
    },
    Spec {
        name: "llama4",
        about: "Llama 4: <|python_start|>[f(a=1)]<|python_end|>, or {\"name\", \"parameters\"} after <|python_end|>",
        grammar: &[g!("llama4.peg")],
        params: &[],
    },
    Spec {
        name: "kimi-k3",
        about: "Kimi K3: <|open|>think/response/tools<|sep|>, <|open|>call tool=\"X\"<|sep|><|open|>argument key=\"k\"<|sep|>",
        grammar: &[g!("kimi_k3.peg")],
        params: &[],
    },
    Spec {
        name: "minimax-m3",
        about: "MiniMax-M3: <mm:think>, ]<]minimax[>[<tool_call>…<invoke name=\"X\">…<k>v</k> (or the M2 form)",
        grammar: &[g!("minimax.peg"), g!("minimax_m3.peg")],
        params: &[
            ("think_open", "<mm:think>"),
            ("think_close", "</mm:think>"),
            MINIMAX_SECTION[0],
            MINIMAX_SECTION[1],
        ],
    },
    Spec {
        name: "gigachat3",
        about: "GigaChat 3 / 3.1: <|message_sep|>function call<|role_sep|>{json}, <|function_call|>{json}",
        grammar: &[g!("gigachat.peg")],
        params: &[],
    },
    Spec {
        name: "internlm2",
        about: "InternLM2 / Intern-S1: <think>, <|action_start|><|plugin|>{json}<|action_end|>",
        grammar: &[g!("hermes.peg")],
        params: &[
            THINK,
            UNTHINK,
            ("call_open", "<|action_start|><|plugin|>"),
            ("call_close", "<|action_end|>"),
        ],
    },
    Spec {
        name: "phi4-mini",
        about: "Phi-4-mini: <|tool_call|>{json}<|/tool_call|>, functools[{json}]",
        grammar: &[g!("hermes.peg"), g!("phi4.peg")],
        params: &[THINK, UNTHINK, ("call_open", "<|tool_call|>"), ("call_close", "<|/tool_call|>")],
    },
    Spec {
        name: "think",
        about: "Reasoning only: <think>…</think>, then content (tool-call markers are text)",
        grammar: &[g!("think.peg")],
        params: &[THINK, UNTHINK, NO_STOP],
    },
    Spec {
        name: "kimi-vl",
        about: "Kimi-VL / Kimi k1.5 thinking: ◁think▷…◁/think▷, then content",
        grammar: &[g!("think.peg")],
        params: &[("think_open", "◁think▷"), ("think_close", "◁/think▷"), NO_STOP],
    },
    Spec {
        name: "olmo3",
        about: "Olmo 3: <think>, <function_calls>f(a=1)\\ng(b='x')</function_calls>",
        grammar: &[g!("olmo3.peg")],
        params: &[THINK, UNTHINK],
    },
    Spec {
        name: "step3",
        about: "Step-3: <｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"X\">",
        grammar: &[g!("step3.peg")],
        params: &[THINK, UNTHINK],
    },
    Spec {
        name: "longcat",
        about: "LongCat-Flash: <think>, <longcat_tool_call>{json}</longcat_tool_call>",
        grammar: &[g!("hermes.peg")],
        params: &[
            THINK,
            UNTHINK,
            ("call_open", "<longcat_tool_call>"),
            ("call_close", "</longcat_tool_call>"),
        ],
    },
    Spec {
        name: "ernie45",
        about: "ERNIE 4.5: <think>, <response>, <tool_call>{json}</tool_call>",
        grammar: &[g!("hermes.peg"), g!("wrapped.peg")],
        params: &[
            THINK,
            UNTHINK,
            ("call_open", "<tool_call>"),
            ("call_close", "</tool_call>"),
            ("text_open", "<response>"),
            ("text_close", "</response>"),
        ],
    },
    Spec {
        name: "granite-20b-fc",
        about: "Granite 20B function calling: <function_call> {json} (repeated, no closing tag)",
        grammar: &[g!("hermes.peg")],
        params: &[THINK, UNTHINK, ("call_open", "<function_call>"), ("call_close", "")],
    },
    Spec {
        name: "minimax-m1",
        about: "MiniMax-M1: <think>, <tool_calls>{json}\\n{json}</tool_calls>",
        grammar: &[g!("hermes.peg"), g!("jsonl.peg")],
        params: &[THINK, UNTHINK, ("call_open", "<tool_calls>"), ("call_close", "</tool_calls>")],
    },
    Spec {
        name: "openpangu",
        about: "openPangu: <think>, <|tool_call_start|>[{json}]<|tool_call_end|>",
        grammar: &[g!("hermes.peg"), g!("json_array.peg")],
        params: &[
            THINK,
            UNTHINK,
            ("call_open", "<|tool_call_start|>"),
            ("call_close", "<|tool_call_end|>"),
        ],
    },
    Spec {
        name: "dots",
        about: "dots.llm: <think>, <dots_function_call><invoke name=\"X\"><parameter name=\"k\">v</parameter>",
        grammar: &[g!("minimax.peg")],
        params: &[
            THINK,
            UNTHINK,
            ("section_open", "<dots_function_call>"),
            ("section_close", "</dots_function_call>"),
        ],
    },
    Spec {
        name: "minicpm5",
        about: "MiniCPM 5: <think>, <function name=\"X\"><param name=\"k\">v</param></function>",
        grammar: &[g!("minicpm5.peg")],
        params: &[THINK, UNTHINK],
    },
    Spec {
        name: "poolside-v1",
        about: "Poolside v1: <think>, <tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>",
        grammar: &[g!("glm.peg")],
        params: &[THINK, UNTHINK],
    },
    Spec {
        name: "hy-v3",
        about: "Hunyuan hy_v3 / hy_v4: <think>, <tool_calls><tool_call>NAME<tool_sep><arg_key>K</arg_key><arg_value>V</arg_value>",
        grammar: &[g!("kv.peg")],
        params: &[
            THINK,
            UNTHINK,
            ("section_open", "<tool_calls>"),
            ("section_close", "</tool_calls>"),
            ("call_open", "<tool_call>"),
            ("call_close", "</tool_call>"),
            ("sep", "<tool_sep>"),
            ("key_open", "<arg_key>"),
            ("key_close", "</arg_key>"),
            ("type_open", NONE),
            ("type_close", NONE),
            ("val_open", "<arg_value>"),
            ("val_close", "</arg_value>"),
        ],
    },
    Spec {
        name: "k2-horizon",
        about: "K2 Horizon: <ifm|think>, <ifm|tool_calls><ifm|tool_call>NAME<ifm|arg_key>K</ifm|arg_key>[<ifm|arg_type>T</ifm|arg_type>]<ifm|arg_value>V",
        grammar: &[g!("kv.peg")],
        params: &[
            ("think_open", "<ifm|think>"),
            ("think_close", "</ifm|think>"),
            ("section_open", "<ifm|tool_calls>"),
            ("section_close", "</ifm|tool_calls>"),
            ("call_open", "<ifm|tool_call>"),
            ("call_close", "</ifm|tool_call>"),
            ("sep", NONE),
            ("key_open", "<ifm|arg_key>"),
            ("key_close", "</ifm|arg_key>"),
            ("type_open", "<ifm|arg_type>"),
            ("type_close", "</ifm|arg_type>"),
            ("val_open", "<ifm|arg_value>"),
            ("val_close", "</ifm|arg_value>"),
        ],
    },
    Spec {
        name: "plamo3",
        about: "PLaMo 3: <|plamo:begin_think:plamo|>, <|plamo:begin_tool_requests:plamo|>…<|plamo:begin_tool_name:plamo|>NAME…{json}",
        grammar: &[g!("plamo3.peg")],
        params: &[
            ("think_open", "<|plamo:begin_think:plamo|>"),
            ("think_close", "<|plamo:end_think:plamo|>"),
        ],
    },
    Spec {
        name: "inkling",
        about: "Inkling: <|message_model|><|content_thinking|>/<|content_text|>/<|content_invoke_tool_json|>{json}<|end_message|>",
        grammar: &[g!("inkling.peg")],
        params: &[],
    },
    Spec {
        name: "muse",
        about: "Muse Spark / Glimmer: <|start|>assistant to=self|user|TOOL<|message|>…<|eom|>, <atem:invoke name=\"X\">",
        grammar: &[g!("muse.peg")],
        params: &[],
    },
    Spec {
        name: "generic",
        about: "llama.cpp's generic JSON: {\"tool_calls\": [{…}]}, {\"tool_call\": {…}}, {\"response\": \"…\"}",
        grammar: &[g!("generic.peg")],
        params: &[],
    },
    Spec {
        name: "cwm",
        about: "CWM: <think>, <tool: LABEL>\\nNAME {json}\\n</tool>",
        grammar: &[g!("cwm.peg")],
        params: &[THINK, UNTHINK],
    },
    Spec {
        name: "solar-open2",
        about: "Solar Open 2: <|think:start|>, <|tool_call:start|>NAME<|tool_arg:start|>K<|tool_arg:value|>V<|tool_arg:end|><|tool_call:end|>",
        grammar: &[g!("solar.peg")],
        params: &[("think_open", "<|think:start|>"), ("think_close", "<|think:end|>")],
    },
    Spec {
        name: "rwkv",
        about: "RWKV: <think>, **Tool Call:** ```json {json} ```, <tool_call>{json}",
        grammar: &[g!("hermes.peg"), g!("rwkv.peg")],
        params: &[THINK, UNTHINK, ("call_open", "<tool_call>"), ("call_close", "</tool_call>")],
    },
];
