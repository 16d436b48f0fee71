//! The corpus template families that have a hand-written output format.

/// File-name patterns (lowercase substrings) of each family's templates, in match order.
pub const FAMILIES: &[(&[&str], &str)] = &[
    (
        &[
            "qwen3-coder",
            "qwen3coder",
            "qwen3.5",
            "nemotron-3-nano",
            "stepfun3.5",
        ],
        "qwen3-coder",
    ),
    (&["seed-oss"], "seed-oss"),
    (&["deepseek-v3.1", "deepseekv31"], "deepseek-v3.1"),
    (&["deepseek-v3.2", "deepseek-v4"], "deepseek-v3.2"),
    (&["deepseek-r1", "deepseekv3", "deepseekr1"], "deepseek-r1"),
    (&["kimi-k2"], "kimi-k2"),
    (&["glm-4.6", "glm-4.7", "glm-5", "glm4"], "glm-4.5"),
    (&["minimax-m2"], "minimax-m2"),
    (&["minimax-m3"], "minimax-m3"),
    (&["kimi-k3"], "kimi-k3"),
    (&["llama-4-processor", "llama4_json"], "llama4"),
    (&["gigachat3"], "gigachat3"),
    (&["internlm2"], "internlm2"),
    (&["phi-4-mini", "phi4_mini"], "phi4-mini"),
    (&["gpt-oss", "gptoss"], "gpt-oss"),
    (&["mistral-nemo"], "mistral-nemo"),
    (
        &["mistral-small-3.2", "devstral", "magistral", "ministral"],
        "mistral",
    ),
    (&["llama3.2_pythonic", "llama4_pythonic"], "pythonic"),
    (
        &[
            "llama-3.1",
            "llama-3.2",
            "llama3.1_json",
            "llama3.2_json",
            "llama31",
        ],
        "llama3",
    ),
    (&["lfm2"], "lfm2"),
    (&["functiongemma"], "functiongemma"),
    (&["gemma4", "gemma-4"], "gemma4"),
    (&["command-r7b", "command-a"], "command-r7b"),
    (&["granite-3.3", "granite-3.0"], "granite"),
    (&["granite-4"], "hermes"),
    (&["functionary-medium-v3.1"], "functionary-v3.1"),
    (
        &["functionary-medium-v3.2", "functionary-small-v3.2"],
        "functionary-v3.2",
    ),
    (&["apertus"], "apertus"),
    (&["muse_glimmer", "muse-glimmer"], "muse"),
    (&["minimax-m1"], "minimax-m1"),
    (&["minicpm5"], "minicpm5"),
    (&["granite_20b_fc"], "granite-20b-fc"),
    (&["poolside"], "poolside-v1"),
    (&["nemotron-nano-v2"], "nemotron-v2"),
    (&["hunyuan"], "hunyuan"),
    (&["jamba"], "jamba"),
    (&["xlam"], "xlam"),
    (&["firefunction-v2"], "firefunction-v2"),
    (
        &[
            "hermes",
            "qwen2.5",
            "qwen-qwen3",
            "qwen3-",
            "qwq",
            "qwen25",
            "unsloth-qwen3",
        ],
        "hermes",
    ),
];

/// The hand-written format of the corpus template called `file` (by file-name pattern).
pub fn format_of(file: &str) -> Option<&'static str> {
    let name = file.to_lowercase();
    FAMILIES
        .iter()
        .find(|(pats, _)| pats.iter().any(|p| name.contains(p)))
        .map(|(_, f)| *f)
}
