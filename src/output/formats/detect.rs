//! Which output format a chat template's model writes, from the markers the template writes
//! for assistant tool calls and reasoning.

/// Marker rules in match order: every marker of a rule must occur in the template; the first
/// rule that matches names the format. More specific rules come before the ones they refine
/// (MiniMax-M3 before M2, Phi-4-mini before Granite, Qwen3-Coder before Hermes).
const RULES: &[(&[&str], &str)] = &[
    // Instructions in the system prompt name the syntax before any marker does.
    (&["[func_name1("], "pythonic"),
    (&["\"arguments\": {\"arg1\""], "xlam"),
    (&["<seed:tool_call>"], "seed-oss"),
    (&["<seed:think>"], "seed-oss"),
    (&["｜DSML｜"], "deepseek-v3.2"),
    (&["<｜tool▁call▁begin｜>", "```json"], "deepseek-r1"),
    (&["<｜tool▁call▁begin｜>"], "deepseek-v3.1"),
    (&["<|tool_call_begin|>"], "kimi-k2"),
    (&["<|open|>", "<|sep|>"], "kimi-k3"),
    (&["<arg_key>", "</assistant>"], "poolside-v1"),
    (&["<arg_key>"], "glm-4.5"),
    (&["]<]minimax[>["], "minimax-m3"),
    (&["<mm:think>"], "minimax-m3"),
    (&["<minimax:tool_call>"], "minimax-m2"),
    (&["<|channel|>"], "gpt-oss"),
    (&["<atem:function_calls>"], "muse"),
    (&["<TOOLCALL>"], "nemotron-v2"),
    (&["<|tool_call_start|>"], "lfm2"),
    (&["<|tool_list_start|>"], "lfm2"),
    (&["<start_function_call>"], "functiongemma"),
    (&["<|tool_call>"], "gemma4"),
    (&["<|channel>"], "gemma4"),
    (&["<|START_ACTION|>"], "command-r7b"),
    (&["<|/tool_call|>"], "phi4-mini"),
    (&["<|tool|>", "<|/tool|>"], "phi4-mini"),
    (&["<|end|>", "functools["], "phi4-mini"),
    (&["<|tool_call|>"], "granite"),
    (&["<tool_calls>", "<answer>"], "hunyuan"),
    (&["<tool_calls>", "<|startoftext|>"], "hunyuan"),
    (&["<tool_calls>", "<end_of_sentence>"], "minimax-m1"),
    (&["<tool_calls>"], "jamba"),
    (&["<|tools_prefix|>"], "apertus"),
    (&["<|message_sep|>"], "gigachat3"),
    (&["<|action_start|>"], "internlm2"),
    (&["functools["], "firefunction-v2"),
    (&["[CALL_ID]"], "mistral"),
    (&["[ARGS]"], "mistral"),
    (&["[TOOL_CALLS]"], "mistral-nemo"),
    (&["<|python_start|>"], "llama4"),
    (&["<|header_start|>"], "llama4"),
    (&["<function name=", "<param name="], "minicpm5"),
    (&["<function_call>", "<|endoftext|>"], "granite-20b-fc"),
    (&["<tool_call>", "<function="], "qwen3-coder"),
    (&["<tool_call>"], "hermes"),
    (&[">>>all"], "functionary-v3.2"),
    (&["<function="], "functionary-v3.1"),
    (&["<|start_header_id|>"], "llama3"),
    (&["[gMASK]", "<|observation|>"], "glm-4.5"),
    (&["<sop>", "<|assistant|>"], "glm-4.5"),
    // LFM2's tool list, in templates that write no markers around it.
    (&["List of tools: ["], "lfm2"),
    // ChatML models that say nothing of tools call them the Hermes way when they do.
    (&["<|im_start|>"], "hermes"),
];

/// The format name for a template's source, when its markers tell.
pub(crate) fn detect(source: &str) -> Option<&'static str> {
    RULES
        .iter()
        .find(|(markers, _)| markers.iter().all(|m| source.contains(m)))
        .map(|(_, name)| *name)
}
