//! The parser names of other servers (vLLM's `--tool-call-parser` / `--reasoning-parser`,
//! SGLang's, and names parsers have used outside vLLM's release registry), each mapped to one
//! of our formats.

/// A tool-parser name: the format it selects, and how the parser of that name treats what
/// the format alone does not say.
pub(crate) struct ToolName {
    /// The name.
    pub(crate) name: &'static str,
    /// The format it selects.
    pub(crate) format: &'static str,
    /// Calls to tools the request did not offer are dropped: vLLM's `internlm`, `qwen2` and
    /// `spark3` check names against the request (its other parsers keep such calls), and so
    /// do SGLang's parsers (every name only SGLang uses).
    pub(crate) drops_unknown_tools: bool,
    /// Given alone, the parser also reads the reasoning (vLLM's Cohere parsers read the whole
    /// Command turn: thinking, response and action).
    pub(crate) reads_reasoning: bool,
}

impl ToolName {
    const fn new(name: &'static str, format: &'static str, origin: Origin) -> ToolName {
        ToolName {
            name,
            format,
            drops_unknown_tools: matches!(origin, Origin::SglangTool),
            reads_reasoning: false,
        }
    }

    const fn drops_unknown_tools(self) -> ToolName {
        ToolName {
            drops_unknown_tools: true,
            ..self
        }
    }

    const fn reads_reasoning(self) -> ToolName {
        ToolName {
            reads_reasoning: true,
            ..self
        }
    }
}

/// A reasoning-parser name: the format whose reasoning markers it reads when given alone, and
/// whether the output starts inside reasoning (the parser assumes the prompt opened it; an
/// opening tag the model writes anyway is taken).
pub(crate) struct ReasoningName {
    /// The name.
    pub(crate) name: &'static str,
    /// The format whose reasoning markers it reads.
    pub(crate) format: &'static str,
    /// The output starts inside reasoning.
    pub(crate) starts_open: bool,
    /// The tool-call opener that ends unclosed reasoning where the parser, given alone, reads
    /// it so (vLLM's `qwen3`, `kimi_k25`; SGLang's `qwen3`, `glm45`, `kimi_k2`): the opener
    /// and what follows are content.
    pub(crate) stop: Option<&'static str>,
    /// The parser follows the request's thinking switch (`thinking` / `enable_thinking`), with
    /// this default when the request has none: with thinking off it parses no reasoning
    /// (vLLM's `deepseek_v3`, off by default; `holo2`, on by default).
    pub(crate) follows_thinking: Option<bool>,
}

impl ReasoningName {
    const fn new(name: &'static str, format: &'static str, starts_open: bool) -> ReasoningName {
        ReasoningName {
            name,
            format,
            starts_open,
            stop: None,
            follows_thinking: None,
        }
    }

    const fn follows_thinking(self, default: bool) -> ReasoningName {
        ReasoningName {
            follows_thinking: Some(default),
            ..self
        }
    }

    const fn stops_at(self, opener: &'static str) -> ReasoningName {
        ReasoningName {
            stop: Some(opener),
            ..self
        }
    }
}

/// Where a name comes from: vLLM's registries, SGLang's, or elsewhere.
#[derive(Clone, Copy)]
enum Origin {
    VllmTool,
    VllmReasoning,
    SglangTool,
    SglangReasoning,
    Other,
}

/// `"name" => "format", Origin;`, the origin optionally followed by `.drops_unknown_tools()`
/// or `.reads_reasoning()`.
macro_rules! tools {
    ($($name:literal => $format:literal, $origin:ident $(. $fact:ident ())*;)*) => {
        &[$(ToolName::new($name, $format, Origin::$origin) $(. $fact ())*),*]
    };
}

/// `"name" => "format", starts_open, Origin;`, the origin optionally followed by
/// `.stops_at("opener")` or `.follows_thinking(default)`.
macro_rules! reasoning {
    ($($name:literal => $format:literal, $open:literal, $origin:ident $(. $fact:ident ($arg:literal))*;)*) => {
        &[$({
            let _ = Origin::$origin;
            ReasoningName::new($name, $format, $open) $(. $fact ($arg))*
        }),*]
    };
}

/// Tool-call parser names.
pub(crate) static TOOL_NAMES: &[ToolName] = tools! {
    // vLLM's tool-parser registry (vllm/tool_parsers/__init__.py), every name.
    "apertus" => "apertus", VllmTool;
    "beam" => "hermes", VllmTool;
    "cohere_command3" => "command-r7b", VllmTool.reads_reasoning();
    "cohere_command4" => "command-r7b", VllmTool.reads_reasoning();
    "deepseek_v3" => "deepseek-r1", VllmTool;
    "deepseek_v31" => "deepseek-v3.1", VllmTool;
    "deepseek_v32" => "deepseek-v3.2", VllmTool;
    "deepseek_v4" => "deepseek-v3.2", VllmTool;
    "deepseek_v41" => "deepseek-v3.2", VllmTool;
    "dots" => "dots", VllmTool;
    "ernie45" => "ernie45", VllmTool;
    "functiongemma" => "functiongemma", VllmTool;
    "gemma4" => "gemma4", VllmTool;
    "gigachat3" => "gigachat3", VllmTool;
    "glm45" => "glm-4.5", VllmTool;
    "glm47" => "glm-4.5", VllmTool;
    "granite" => "granite", VllmTool;
    "granite-20b-fc" => "granite-20b-fc", VllmTool;
    "granite4" => "hermes", VllmTool;
    "hermes" => "hermes", VllmTool;
    "hf" => "hermes", VllmTool;
    "hunyuan_a13b" => "hunyuan", VllmTool;
    "hy_v3" => "hy-v3", VllmTool;
    "hy_v4" => "hy-v3", VllmTool;
    "inkling" => "inkling", VllmTool;
    "internlm" => "internlm2", VllmTool.drops_unknown_tools();
    "jamba" => "jamba", VllmTool;
    "k2_horizon" => "k2-horizon", VllmTool;
    "kimi_k2" => "kimi-k2", VllmTool;
    "kimi_k3" => "kimi-k3", VllmTool;
    "lfm2" => "lfm2", VllmTool;
    "ling3" => "glm-4.5", VllmTool;
    "llama3_json" => "llama3", VllmTool;
    "llama4_json" => "llama3", VllmTool;
    "llama4_pythonic" => "llama4", VllmTool;
    "longcat" => "longcat", VllmTool;
    "mimo" => "qwen3-coder", VllmTool;
    "minicpm5" => "minicpm5", VllmTool;
    "minimax_m2" => "minimax-m2", VllmTool;
    "minimax_m3" => "minimax-m3", VllmTool;
    "mistral" => "mistral", VllmTool;
    "muse" => "muse", VllmTool;
    "muse_glimmer" => "muse", VllmTool;
    "musespark1x" => "muse", VllmTool;
    "olmo3" => "olmo3", VllmTool;
    "openai" => "gpt-oss", VllmTool;
    "phi4_mini_json" => "phi4-mini", VllmTool;
    "plamo3" => "plamo3", VllmTool;
    "poolside_v1" => "poolside-v1", VllmTool;
    "pythonic" => "pythonic", VllmTool;
    "qwen3_coder" => "qwen3-coder", VllmTool;
    "qwen3_json" => "hermes", VllmTool;
    "qwen3_xml" => "qwen3-coder", VllmTool;
    "seed_oss" => "seed-oss", VllmTool;
    "step3" => "step3", VllmTool;
    "step3p5" => "qwen3-coder", VllmTool;
    "step5" => "qwen3-coder", VllmTool;
    "xlam" => "xlam", VllmTool;
    // Names other vLLM versions register (decorators and older registries).
    "command" => "command-r7b", Other;
    "tng_r1t2" => "hermes", Other;
    "llama3_user_defined_custom" => "functionary-v3.1", Other;
    "qwen2" => "hermes", Other.drops_unknown_tools();
    "spark3" => "glm-4.5", Other.drops_unknown_tools();
    "nemotron_json" => "nemotron-v2", Other;
    "kolibri1" => "hermes", Other;
    // Names parsers have used outside vLLM's release registry.
    "minimax" => "minimax-m1", Other;
    "cwm" => "cwm", Other;
    "hyperclovax_seed_think" => "glm-4.5", Other;
    "iquest_coder" => "qwen3-coder", Other;
    "pangu" => "openpangu", Other;
    "openpangu_v2" => "openpangu", Other;
    "rwkv" => "rwkv", Other;
    "solar_open2" => "solar-open2", Other;
    "tng" => "hermes", Other;
    "generic" => "generic", Other;
    // SGLang's tool-call parser names, where they differ.
    "apertus2509" => "apertus", SglangTool;
    "deepseekv3" => "deepseek-r1", SglangTool;
    "deepseekv31" => "deepseek-v3.1", SglangTool;
    "deepseekv32" => "deepseek-v3.2", SglangTool;
    "deepseekv4" => "deepseek-v3.2", SglangTool;
    "deepseekv41" => "deepseek-v3.2", SglangTool;
    "glm" => "glm-4.5", SglangTool;
    "gpt-oss" => "gpt-oss", SglangTool;
    "llama3" => "llama3", SglangTool;
    "qwen" => "hermes", SglangTool;
    "qwen25" => "hermes", SglangTool;
    "spark25" => "hermes", SglangTool;
    "minimax-m2" => "minimax-m2", SglangTool;
    "minimax-m3" => "minimax-m3", SglangTool;
    "nanbeige" => "qwen3-coder", SglangTool;
    "trinity" => "hermes", SglangTool;
    "interns1" => "internlm2", SglangTool;
    "hunyuan" => "hunyuan", SglangTool;
    "gigachat35" => "gigachat3", SglangTool;
    "iquest_q1" => "qwen3-coder", SglangTool;
    "response_template" => "hermes", SglangTool;
};

/// Reasoning parser names.
pub(crate) static REASONING_NAMES: &[ReasoningName] = reasoning! {
    // vLLM's reasoning-parser registry (vllm/reasoning/__init__.py), every name.
    "beam" => "think", false, VllmReasoning;
    "cohere_command3" => "command-r7b", false, VllmReasoning;
    "cohere_command4" => "command-r7b", false, VllmReasoning;
    "deepseek_r1" => "think", true, VllmReasoning;
    "deepseek_v3" => "think", true, VllmReasoning.follows_thinking(false);
    "deepseek_v4" => "think", true, VllmReasoning;
    "deepseek_v41" => "think", true, VllmReasoning;
    "ernie45" => "ernie45", true, VllmReasoning;
    "gemma4" => "gemma4", false, VllmReasoning;
    "glm45" => "think", false, VllmReasoning.stops_at("<tool_call>");
    "glm47" => "think", false, VllmReasoning.stops_at("<tool_call>");
    "granite" => "granite", false, VllmReasoning;
    "granite_thinking_parser" => "think", false, VllmReasoning;
    "hf" => "think", false, VllmReasoning;
    "holo2" => "think", true, VllmReasoning.follows_thinking(true);
    "hunyuan_a13b" => "hunyuan", false, VllmReasoning;
    "hy_v3" => "hy-v3", false, VllmReasoning;
    "hy_v4" => "hy-v3", false, VllmReasoning;
    "inkling" => "inkling", false, VllmReasoning;
    "k2_horizon" => "k2-horizon", false, VllmReasoning;
    "kimi_k2" => "think", true, VllmReasoning.stops_at("<|tool_calls_section_begin|>");
    "kimi_k3" => "kimi-k3", true, VllmReasoning;
    "ling3" => "think", false, VllmReasoning;
    "mimo" => "think", true, VllmReasoning;
    "minicpmv" => "think", false, VllmReasoning;
    "minimax_m2" => "think", true, VllmReasoning;
    "minimax_m2_append_think" => "think", true, VllmReasoning;
    "minimax_m3" => "minimax-m3", false, VllmReasoning;
    "mistral" => "mistral", true, VllmReasoning;
    "muse" => "muse", false, VllmReasoning;
    "muse_glimmer" => "muse", false, VllmReasoning;
    "musespark1x" => "muse", false, VllmReasoning;
    "nemotron_v3" => "think", true, VllmReasoning;
    "olmo3" => "think", true, VllmReasoning;
    "openai_gptoss" => "gpt-oss", false, VllmReasoning;
    "plamo3" => "plamo3", false, VllmReasoning;
    "poolside_v1" => "think", false, VllmReasoning;
    "qwen3" => "think", true, VllmReasoning.stops_at("<tool_call>");
    "seed_oss" => "seed-oss", true, VllmReasoning;
    "step3" => "think", true, VllmReasoning;
    "step3p5" => "think", true, VllmReasoning;
    "step5" => "think", true, VllmReasoning;
    // Names other vLLM versions register (decorators and older registries).
    "exaone4" => "think", false, Other;
    "telechat" => "think", true, Other;
    "telechat4" => "think", true, Other;
    "xingchen4" => "think", true, Other;
    "xing4_0" => "think", true, Other;
    "minimax_m1" => "think", false, Other;
    "deepseek_v31" => "think", false, Other;
    "nemotron" => "think", false, Other;
    "openai" => "gpt-oss", false, Other;
    "kimi_k25" => "think", true, Other.stops_at("<|tool_calls_section_begin|>");
    "glm" => "think", true, Other;
    "apertus" => "apertus", false, Other;
    "intern_s1" => "think", true, Other;
    "iquest_coder_v2" => "think", true, Other;
    // Names used outside vLLM's release registry.
    "minimax" => "think", true, Other;
    "cwm" => "think", false, Other;
    "hyperclovax_seed_think" => "think", false, Other;
    "iquest_coder" => "think", false, Other;
    "pangu" => "openpangu", false, Other;
    "openpangu_v2" => "openpangu", false, Other;
    "rwkv" => "rwkv", false, Other;
    "solar_open2" => "solar-open2", false, Other;
    "tng" => "think", false, Other;
    // SGLang's reasoning parser names, where they differ.
    "apertus2509" => "apertus", false, SglangReasoning;
    "deepseek-r1" => "think", true, SglangReasoning;
    // SGLang's `deepseek-v3` is its Qwen3 detector without forced reasoning.
    "deepseek-v3" => "think", false, SglangReasoning;
    "deepseek-v4" => "think", true, SglangReasoning;
    "deepseek-v41" => "think", true, SglangReasoning;
    "dots" => "think", false, SglangReasoning;
    "hunyuan" => "hunyuan", false, SglangReasoning;
    "gpt-oss" => "gpt-oss", false, SglangReasoning;
    "kimi" => "kimi-vl", false, SglangReasoning;
    "qwen3-thinking" => "think", true, SglangReasoning.stops_at("<tool_call>");
    "minimax-append-think" => "think", true, SglangReasoning;
    "minimax-m3" => "minimax-m3", false, SglangReasoning;
    "nanbeige" => "think", false, SglangReasoning;
    "nemotron_3" => "think", false, SglangReasoning;
    "interns1" => "think", false, SglangReasoning;
    "iquest_q1" => "think", false, SglangReasoning;
    "gigachat35" => "think", false, SglangReasoning;
    "response_template" => "think", false, SglangReasoning;
};

/// The tool-parser entry called `name`.
pub(crate) fn tool(name: &str) -> Option<&'static ToolName> {
    TOOL_NAMES.iter().find(|t| t.name == name)
}

/// The reasoning-parser entry called `name`.
pub(crate) fn reasoning(name: &str) -> Option<&'static ReasoningName> {
    REASONING_NAMES.iter().find(|t| t.name == name)
}

/// The names (tool and reasoning) that select `format`.
pub(crate) fn aliases(format: &str) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    let all = TOOL_NAMES
        .iter()
        .filter(|t| t.format == format)
        .map(|t| t.name)
        .chain(
            REASONING_NAMES
                .iter()
                .filter(|r| r.format == format)
                .map(|r| r.name),
        );
    for n in all {
        if !out.contains(&n) {
            out.push(n);
        }
    }
    out
}
