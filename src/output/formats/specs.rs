//! Each hand-written format described as a [`FormatSpec`]: the markers and the call syntax its
//! grammar (grammar/*.peg) reads, as the model writes them. Where the hand-written grammar
//! reads more than one shape (a family whose templates differ), the spec describes the main one
//! and says so in `notes`, with a confidence below 1.

use crate::output::spec::{
    CallSyntax, ChannelSpec, FormatSpec, IdSpec, Markers, MessageSpec, ReasoningMode,
    ReasoningSpec, ToolCallSpec, TypedMiddle, ValueTyping, ValueWriting,
};

fn m(open: &str, close: &str) -> Option<Markers> {
    Some(Markers {
        open: open.into(),
        close: close.into(),
    })
}

fn tag(open: &str, close: &str) -> ReasoningSpec {
    ReasoningSpec {
        mode: ReasoningMode::Tag,
        markers: m(open, close),
    }
}

fn think() -> ReasoningSpec {
    tag("<think>", "</think>")
}

fn json(name: &str, args: &str, id: Option<&str>, list: bool) -> CallSyntax {
    CallSyntax::JsonObject {
        name_key: name.into(),
        args_key: args.into(),
        id_key: id.map(Into::into),
        list,
    }
}

fn name_json(
    name_prefix: &str,
    name_suffix: &str,
    args_prefix: &str,
    args_suffix: &str,
) -> CallSyntax {
    CallSyntax::NameThenJson {
        name_prefix: name_prefix.into(),
        name_suffix: name_suffix.into(),
        args_prefix: args_prefix.into(),
        args_suffix: args_suffix.into(),
    }
}

fn xml(parts: [&str; 6]) -> CallSyntax {
    CallSyntax::XmlParams {
        name_prefix: parts[0].into(),
        name_suffix: parts[1].into(),
        param_prefix: parts[2].into(),
        param_middle: parts[3].into(),
        param_suffix: parts[4].into(),
        call_suffix: parts[5].into(),
        values: ValueTyping::RawStrings,
        typed_middles: Vec::new(),
        param_close_after_key: String::new(),
    }
}

fn key_value(quote: &str) -> CallSyntax {
    CallSyntax::KeyValue {
        name_prefix: "call:".into(),
        open: "{".into(),
        close: "}".into(),
        key_value_separator: ":".into(),
        pair_separator: ",".into(),
        string_quote: quote.into(),
    }
}

fn tools(
    section: Option<Markers>,
    call: Option<Markers>,
    separator: &str,
    syntax: CallSyntax,
) -> Option<ToolCallSpec> {
    let id = match &syntax {
        CallSyntax::JsonObject {
            id_key: Some(_), ..
        } => IdSpec::InObject,
        _ => IdSpec::None,
    };
    Some(ToolCallSpec {
        section,
        call,
        separator: separator.into(),
        syntax,
        id,
        parallel: true,
        values: Default::default(),
        alternatives: Vec::new(),
    })
}

struct B(FormatSpec);

impl B {
    fn new(
        name: &str,
        eot: Option<&str>,
        reasoning: ReasoningSpec,
        tools: Option<ToolCallSpec>,
    ) -> B {
        B(FormatSpec {
            format: Some(name.into()),
            end_of_turn: eot.map(Into::into),
            reasoning,
            content: None,
            tools,
            channels: None,
            confidence: 1.0,
            notes: Vec::new(),
            prompt_prefix: None,
            messages: None,
        })
    }
    fn prompt_prefix(mut self, p: &str) -> B {
        self.0.prompt_prefix = Some(p.into());
        self
    }
    fn content(mut self, open: &str, close: &str) -> B {
        self.0.content = m(open, close);
        self
    }
    fn id(mut self, id: IdSpec) -> B {
        if let Some(t) = &mut self.0.tools {
            t.id = id;
        }
        self
    }
    fn single(mut self) -> B {
        if let Some(t) = &mut self.0.tools {
            t.parallel = false;
        }
        self
    }
    /// Another shape of the calls that the hand-written grammar also reads.
    fn alt(mut self, other: Option<ToolCallSpec>) -> B {
        if let (Some(t), Some(o)) = (&mut self.0.tools, other) {
            t.alternatives.push(o);
        }
        self
    }
    /// The main shape's XML parameters with typed middles (see [`TypedMiddle`]).
    fn typed_middles(mut self, middles: &[(&[&str], &str)]) -> B {
        if let Some(ToolCallSpec {
            syntax: CallSyntax::XmlParams { typed_middles, .. },
            ..
        }) = &mut self.0.tools
        {
            *typed_middles = typed(middles);
        }
        self
    }
    /// A shape the hand-written grammar also reads but this spec does not describe.
    fn note(mut self, confidence: f32, note: &str) -> B {
        self.0.confidence = self.0.confidence.min(confidence);
        self.0.notes.push(note.into());
        self
    }
}

const QWEN_XML: [&str; 6] = [
    "<function=",
    ">\n",
    "<parameter=",
    ">\n",
    "\n</parameter>\n",
    "</function>",
];

fn typed(middles: &[(&[&str], &str)]) -> Vec<TypedMiddle> {
    middles
        .iter()
        .map(|(types, middle)| TypedMiddle {
            types: types.iter().map(|t| t.to_string()).collect(),
            middle: middle.to_string(),
        })
        .collect()
}

/// A copy of `t` with its values written as `v`.
fn variant(t: Option<ToolCallSpec>, v: ValueWriting) -> Option<ToolCallSpec> {
    t.map(|mut t| {
        t.values = v;
        t
    })
}

fn single(t: Option<ToolCallSpec>) -> Option<ToolCallSpec> {
    t.map(|mut t| {
        t.parallel = false;
        t
    })
}

/// The formats that have no spec: CWM's call tag carries a free label (`<tool: LABEL>`) that no
/// marker of [`FormatSpec`] can stand for; grammar export refuses them with this reason.
pub(crate) const WITHOUT_SPEC: &[(&str, &str)] = &[(
    "cwm",
    "CWM's call tag <tool: LABEL> carries a free label before the name, which a spec's markers cannot describe",
)];

/// The formats whose output has no tool calls (reasoning and content only).
pub(crate) const NO_TOOLS: &[&str] = &["think", "kimi-vl"];

const DOTS_XML: [&str; 6] = [
    "<invoke name=\"",
    "\">\n",
    "<parameter name=\"",
    "\">",
    "</parameter>\n",
    "</invoke>",
];

/// The spec of the hand-written format `name`, or `None` for an unknown name (or one of
/// [`WITHOUT_SPEC`]).
pub(crate) fn spec(name: &str) -> Option<FormatSpec> {
    let none = ReasoningSpec::default();
    let b = match name {
        "hermes" => B::new(
            name,
            Some("<|im_end|>"),
            think(),
            tools(None, m("<tool_call>\n", "\n</tool_call>"), "\n", json("name", "arguments", None, false)),
        )
        // Hermes 2 Pro's JSON-Schema template opens only the first of several calls.
        .alt(tools(m("<tool_call>", ""), m("", "</tool_call>"), "", json("name", "arguments", None, false))),
        "qwen3-coder" => B::new(
            name,
            Some("<|im_end|>"),
            think(),
            tools(None, m("<tool_call>\n", "\n</tool_call>"), "\n", xml(QWEN_XML)),
        ),
        "seed-oss" => B::new(
            name,
            Some("<seed:eos>"),
            tag("<seed:think>", "</seed:think>"),
            tools(
                None,
                m("<seed:tool_call>\n", "\n</seed:tool_call>"),
                "\n",
                xml(["<function=", ">\n", "<parameter=", ">", "</parameter>\n", "</function>"]),
            ),
        ),
        "llama3" => B::new(name, Some("<|eot_id|>"), none, tools(None, None, "; ", json("name", "parameters", None, false)))
            .single()
            .note(0.8, "the <|python_tag|> prefix and builtin NAME.call(...) calls are read but not described"),
        "mistral-nemo" => B::new(
            name,
            Some("</s>"),
            none,
            tools(m("[TOOL_CALLS]", ""), None, ", ", json("name", "arguments", Some("id"), true)),
        ),
        "mistral" => B::new(
            name,
            Some("</s>"),
            tag("[THINK]", "[/THINK]"),
            tools(None, m("[TOOL_CALLS]", ""), "", name_json("", "", "[ARGS]", "")),
        )
        .id(IdSpec::Marked {
            prefix: "[CALL_ID]".into(),
            suffix: String::new(),
            shape: Some("9 alphanumerics".into()),
        })
        .note(0.9, "the [CALL_ID] id is optional (Magistral and Ministral templates omit it)"),
        "deepseek-r1" => B::new(
            name,
            Some("<｜end▁of▁sentence｜>"),
            think(),
            tools(
                m("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"),
                m("<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>"),
                "\n",
                name_json("function<｜tool▁sep｜>", "\n```json\n", "", "\n```"),
            ),
        ),
        "deepseek-v3.1" => B::new(
            name,
            Some("<｜end▁of▁sentence｜>"),
            think(),
            tools(
                m("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"),
                m("<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>"),
                "",
                name_json("", "<｜tool▁sep｜>", "", ""),
            ),
        ),
        "kimi-k2" => B::new(
            name,
            Some("<|im_end|>"),
            think(),
            tools(
                m("<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"),
                m("<|tool_call_begin|>", "<|tool_call_end|>"),
                "",
                name_json("functions.", "", "<|tool_call_argument_begin|>", ""),
            ),
        )
        .id(IdSpec::Index),
        "glm-4.5" => B::new(
            name,
            None,
            think(),
            tools(
                None,
                m("<tool_call>", "</tool_call>"),
                "\n",
                xml(["", "\n", "<arg_key>", "</arg_key>\n<arg_value>", "</arg_value>\n", ""]),
            ),
        ),
        "minimax-m2" => B::new(
            name,
            Some("[e~["),
            think(),
            tools(
                m("<minimax:tool_call>\n", "</minimax:tool_call>"),
                None,
                "\n",
                xml([
                    "<invoke name=\"",
                    "\">\n",
                    "<parameter name=\"",
                    "\">",
                    "</parameter>\n",
                    "</invoke>",
                ]),
            ),
        ),
        "gpt-oss" => {
            let mut b = B::new(
                name,
                Some("<|return|>"),
                none,
                tools(None, None, "", name_json(" to=functions.", "<|channel|>commentary json<|message|>", "", "<|call|>")),
            )
            .single();
            b.0.channels = Some(ChannelSpec {
                message_start: "<|start|>".into(),
                channel_marker: "<|channel|>".into(),
                message_marker: "<|message|>".into(),
                message_ends: vec!["<|end|>".into(), "<|call|>".into(), "<|return|>".into()],
                reasoning_channel: "analysis".into(),
                content_channel: "final".into(),
                tool_channel: "commentary".into(),
                recipient_prefix: " to=functions.".into(),
            });
            b.note(0.9, "the recipient may also follow the channel (<|channel|>commentary to=functions.X)")
        }
        "nemotron-v2" => B::new(
            name,
            Some("<SPECIAL_12>"),
            think(),
            tools(m("<TOOLCALL>", "</TOOLCALL>"), None, ", ", json("name", "arguments", None, true)),
        ),
        "pythonic" => {
            let py = || tools(None, None, ", ", CallSyntax::Pythonic { list: true });
            B::new(name, Some("<|eot|>"), think(), py())
                // vLLM's llama3.2 template writes strings bare, its llama4 one quotes every value.
                .alt(variant(py(), ValueWriting::BareStrings))
                .alt(variant(py(), ValueWriting::QuotedScalars))
                .note(0.9, "Llama 4 may wrap the list in <|python_start|>…<|python_end|>")
        }
        "lfm2" => B::new(
            name,
            Some("<|im_end|>"),
            think(),
            tools(m("<|tool_call_start|>", "<|tool_call_end|>"), None, ", ", CallSyntax::Pythonic { list: true }),
        )
        // Some LFM2 templates write a JSON array of call objects instead.
        .alt(tools(
            m("<|tool_call_start|>", "<|tool_call_end|>"),
            None,
            ", ",
            json("name", "arguments", Some("id"), true),
        )),
        "deepseek-v3.2" => {
            let dsml = |section: &str| {
                let mut t = tools(
                    m(&format!("<｜DSML｜{section}>\n"), &format!("</｜DSML｜{section}>")),
                    None,
                    "\n",
                    xml([
                        "<｜DSML｜invoke name=\"",
                        "\">\n",
                        "<｜DSML｜parameter name=\"",
                        "\" string=\"true\">",
                        "</｜DSML｜parameter>\n",
                        "</｜DSML｜invoke>",
                    ]),
                );
                if let Some(ToolCallSpec {
                    syntax: CallSyntax::XmlParams { typed_middles, .. },
                    ..
                }) = &mut t
                {
                    // Strings raw after string="true", other values as JSON after string="false".
                    *typed_middles = typed(&[
                        (&["string"], "\" string=\"true\">"),
                        (&["*"], "\" string=\"false\">"),
                    ]);
                }
                t
            };
            // V4 names the section tool_calls.
            B::new(name, Some("<｜end▁of▁sentence｜>"), think(), dsml("function_calls")).alt(dsml("tool_calls"))
        }
        "gemma4" => B::new(
            name,
            Some("<turn|>"),
            tag("<|channel>thought", "<channel|>"),
            tools(None, m("<|tool_call>", "<tool_call|>"), "", key_value("<|\"|>")),
        ),
        "functiongemma" => B::new(
            name,
            Some("<end_of_turn>"),
            none,
            tools(None, m("<start_function_call>", "<end_function_call>"), "", key_value("<escape>")),
        )
        // vLLM's template quotes every value (limit:<escape>5<escape>).
        .alt(variant(
            tools(None, m("<start_function_call>", "<end_function_call>"), "", key_value("<escape>")),
            ValueWriting::QuotedScalars,
        )),
        "command-r7b" => B::new(
            name,
            Some("<|END_OF_TURN_TOKEN|>"),
            tag("<|START_THINKING|>", "<|END_THINKING|>"),
            tools(
                m("<|START_ACTION|>", "<|END_ACTION|>"),
                None,
                ",\n    ",
                json("tool_name", "parameters", Some("tool_call_id"), true),
            ),
        )
        .content("<|START_RESPONSE|>", "<|END_RESPONSE|>"),
        "granite" => B::new(
            name,
            Some("<|end_of_text|>"),
            think(),
            tools(m("<|tool_call|>", ""), None, ", ", json("name", "arguments", None, true)),
        )
        .content("<response>", "</response>")
        .note(
            0.9,
            "Granite 3.2's plain-text reasoning (Here is my thought process: … Here is my response:) is read but not described",
        ),
        "hunyuan" => B::new(
            name,
            Some("<|eos|>"),
            think(),
            tools(m("<tool_calls>", "</tool_calls>"), None, ", ", json("name", "arguments", None, true)),
        )
        .content("<answer>", "</answer>"),
        "jamba" => B::new(
            name,
            Some("<|eom|>"),
            none,
            tools(m("<tool_calls>", "</tool_calls>"), None, ", ", json("name", "arguments", None, true)),
        ),
        "apertus" => B::new(
            name,
            Some("<|assistant_end|>"),
            tag("<|inner_prefix|>", "<|inner_suffix|>"),
            tools(m("<|tools_prefix|>", "<|tools_suffix|>"), None, ", ", CallSyntax::NameAsKey { list: true }),
        ),
        "functionary-v3.1" => B::new(
            name,
            Some("<|eom_id|>"),
            none,
            tools(None, None, "", name_json("<function=", ">", "", "</function>")),
        ),
        "functionary-v3.2" => B::new(
            name,
            Some("<|eot_id|>"),
            none,
            tools(None, None, "", name_json(">>>", "\n", "", "")),
        )
        .content(">>>all\n", "")
        .prompt_prefix(">>>"),
        "xlam" => B::new(name, None, none, tools(None, None, ", ", json("name", "arguments", None, true)))
            .note(0.9, "the array may sit in a ```json fence"),
        "firefunction-v2" => B::new(
            name,
            Some("<|eot_id|>"),
            none,
            tools(m(" functools", ""), None, ", ", json("name", "arguments", None, true)),
        ),
        "llama4" => B::new(name, Some("<|eot|>"), none, tools(None, None, "", json("name", "parameters", None, false)))
            // The processor template writes an empty <|python_start|><|python_end|> first.
            .alt(tools(
                m("<|python_start|><|python_end|>", ""),
                None,
                "",
                json("name", "parameters", None, false),
            ))
            .note(0.8, "pythonic calls in <|python_start|>[…]<|python_end|> are read but not described"),
        "kimi-k3" => B::new(
            name,
            Some("<|end_of_msg|>"),
            tag("<|open|>think<|sep|>", "<|close|>think<|sep|>"),
            tools(
                m("<|open|>tools<|sep|>", "<|close|>tools<|sep|>"),
                None,
                "",
                xml([
                    "<|open|>call tool=\"",
                    "\"<|sep|>",
                    "<|open|>argument key=\"",
                    "\" type=\"string\"<|sep|>",
                    "<|close|>argument<|sep|>",
                    "<|close|>call<|sep|>",
                ]),
            ),
        )
        .id(IdSpec::Position {
            prefix: "\" index=\"".into(),
            suffix: String::new(),
        })
        .typed_middles(&[
            (&["string"], "\" type=\"string\"<|sep|>"),
            (&["integer", "number"], "\" type=\"number\"<|sep|>"),
            (&["boolean"], "\" type=\"boolean\"<|sep|>"),
            (&["null"], "\" type=\"null\"<|sep|>"),
            (&["object"], "\" type=\"object\"<|sep|>"),
            (&["array"], "\" type=\"array\"<|sep|>"),
        ])
        .content("<|open|>response<|sep|>", "<|close|>response<|sep|>")
        .note(0.8, "arguments may also be one JSON object in <|open|>json type=\"object\"<|sep|>…, which is not described"),
        "minimax-m3" => B::new(
            name,
            Some("[e~["),
            tag("<mm:think>", "</mm:think>"),
            tools(
                m("<minimax:tool_call>\n", "</minimax:tool_call>"),
                None,
                "\n",
                xml([
                    "<invoke name=\"",
                    "\">\n",
                    "<parameter name=\"",
                    "\">",
                    "</parameter>\n",
                    "</invoke>",
                ]),
            ),
        )
        // The namespaced form: a parameter's name is its tag.
        .alt(tools(
            m("]<]minimax[>[<tool_call>\n", "]<]minimax[>[</tool_call>"),
            None,
            "\n",
            CallSyntax::XmlParams {
                name_prefix: "]<]minimax[>[<invoke name=\"".into(),
                name_suffix: "\">".into(),
                param_prefix: "]<]minimax[>[<".into(),
                param_middle: ">".into(),
                param_suffix: "]<]minimax[>[</".into(),
                call_suffix: "]<]minimax[>[</invoke>".into(),
                values: ValueTyping::RawStrings,
                typed_middles: Vec::new(),
                param_close_after_key: ">".into(),
            },
        )),
        "gigachat3" => B::new(
            name,
            Some("<|message_sep|>"),
            none,
            tools(None, m("<|function_call|>", ""), "", json("name", "arguments", None, false)),
        )
        .single()
        // GigaChat 3.0 writes the call as a turn of its own.
        .alt(single(tools(
            None,
            m("<|message_sep|>\n\nfunction call<|role_sep|>\n", ""),
            "",
            json("name", "arguments", None, false),
        ))),
        "internlm2" => B::new(
            name,
            Some("<|im_end|>"),
            think(),
            tools(None, m("<|action_start|><|plugin|>\n", "<|action_end|>"), "", json("name", "arguments", None, false)),
        ),
        "phi4-mini" => B::new(
            name,
            Some("<|end|>"),
            none,
            tools(None, m("<|tool_call|>", "<|/tool_call|>"), "", json("name", "arguments", None, false)),
        )
        // llama.cpp's template writes OpenAI-shaped call objects.
        .alt(tools(None, m("<|tool_call|>", "<|/tool_call|>"), "", CallSyntax::OpenAiObject { list: false }))
        // vLLM's writes bare call objects with Python-dict arguments.
        .alt(variant(tools(None, None, ",", json("name", "arguments", None, false)), ValueWriting::Python))
        .note(0.9, "functools[…] lists are read but not described"),
        "think" => B::new(name, None, think(), None),
        "kimi-vl" => B::new(name, None, tag("◁think▷", "◁/think▷"), None),
        "olmo3" => B::new(
            name,
            None,
            think(),
            tools(m("<function_calls>", "</function_calls>"), None, "\n", CallSyntax::Pythonic { list: false }),
        )
        .note(0.9, "a [f(a=1), g(b=2)] list inside the section is read but not described"),
        "step3" => B::new(
            name,
            None,
            think(),
            tools(
                m("<｜tool_calls_begin｜>", "<｜tool_calls_end｜>"),
                m("<｜tool_call_begin｜>", "<｜tool_call_end｜>"),
                "",
                xml([
                    "function<｜tool_sep｜><steptml:invoke name=\"",
                    "\">",
                    "<steptml:parameter name=\"",
                    "\">",
                    "</steptml:parameter>",
                    "</steptml:invoke>",
                ]),
            ),
        ),
        "longcat" => B::new(
            name,
            None,
            think(),
            tools(
                None,
                m("<longcat_tool_call>\n", "\n</longcat_tool_call>"),
                "\n",
                json("name", "arguments", None, false),
            ),
        ),
        "ernie45" => B::new(
            name,
            None,
            think(),
            tools(None, m("<tool_call>\n", "\n</tool_call>"), "\n", json("name", "arguments", None, false)),
        )
        .content("<response>", "</response>"),
        "granite-20b-fc" => B::new(
            name,
            Some("<|endoftext|>"),
            none,
            tools(None, m("<function_call> ", ""), "\n", json("name", "arguments", None, false)),
        ),
        "minimax-m1" => B::new(
            name,
            Some("<end_of_sentence>"),
            think(),
            tools(m("<tool_calls>\n", "\n</tool_calls>"), None, "\n", json("name", "arguments", None, false)),
        ),
        "openpangu" => B::new(
            name,
            None,
            think(),
            tools(m("<|tool_call_start|>", "<|tool_call_end|>"), None, ", ", json("name", "arguments", None, true)),
        ),
        "dots" => B::new(
            name,
            None,
            think(),
            tools(m("<dots_function_call>\n", "</dots_function_call>"), None, "\n", xml(DOTS_XML)),
        ),
        "minicpm5" => B::new(
            name,
            Some("<|im_end|>"),
            think(),
            tools(
                None,
                None,
                "\n",
                xml(["<function name=\"", "\">", "<param name=\"", "\">", "</param>", "</function>"]),
            ),
        )
        .note(0.9, "string values in <![CDATA[…]]> and single-quoted names are read but not described"),
        "poolside-v1" => B::new(
            name,
            Some("</assistant>"),
            think(),
            tools(
                None,
                m("<tool_call>", "</tool_call>"),
                "\n",
                xml(["", "\n", "<arg_key>", "</arg_key>\n<arg_value>", "</arg_value>\n", ""]),
            ),
        ),
        "hy-v3" => B::new(
            name,
            None,
            think(),
            tools(
                m("<tool_calls>", "</tool_calls>"),
                m("<tool_call>", "</tool_call>"),
                "",
                xml(["", "<tool_sep>", "<arg_key>", "</arg_key>\n<arg_value>", "</arg_value>\n", ""]),
            ),
        )
        .note(0.9, "the <tool_calls> section is optional"),
        "k2-horizon" => B::new(
            name,
            None,
            tag("<ifm|think>", "</ifm|think>"),
            tools(
                m("<ifm|tool_calls>", "</ifm|tool_calls>"),
                m("<ifm|tool_call>", "</ifm|tool_call>"),
                "",
                xml(["", "", "<ifm|arg_key>", "</ifm|arg_key><ifm|arg_value>", "</ifm|arg_value>", ""]),
            ),
        )
        .note(
            0.7,
            "a value may carry its type (<ifm|arg_type>T</ifm|arg_type> before <ifm|arg_value>), which is read but not described",
        ),
        "plamo3" => B::new(
            name,
            None,
            tag("<|plamo:begin_think:plamo|>", "<|plamo:end_think:plamo|>"),
            tools(
                m("<|plamo:begin_tool_requests:plamo|>", "<|plamo:end_tool_requests:plamo|>"),
                m("<|plamo:begin_tool_request:plamo|>", "<|plamo:end_tool_request:plamo|>"),
                "",
                name_json(
                    "<|plamo:begin_tool_name:plamo|>",
                    "<|plamo:end_tool_name:plamo|>",
                    "<|plamo:begin_tool_arguments:plamo|>",
                    "<|plamo:end_tool_arguments:plamo|>",
                ),
            ),
        )
        .note(0.9, "<|plamo:constrain|>json<|plamo:msg|> before the arguments is read but not described"),
        "inkling" => B::new(
            name,
            Some("<|content_model_end_sampling|>"),
            tag("<|message_model|><|content_thinking|>", "<|end_message|>"),
            tools(
                None,
                m("<|message_model|><|content_invoke_tool_json|>", "<|end_message|>"),
                "",
                json("name", "args", None, false),
            ),
        )
        .content("<|message_model|><|content_text|>", "<|end_message|>")
        .note(0.8, "blocks may come in any order and the first may omit <|message_model|>; the spec describes reasoning, then text, then calls"),
        "muse" => {
            let mut b = B::new(
                name,
                Some("<|eot|>"),
                none,
                tools(
                    None,
                    m("<atem:function_calls>\n", "\n</atem:function_calls>"),
                    "",
                    xml([
                        "<atem:invoke name=\"",
                        "\">\n",
                        "<atem:parameter name=\"",
                        "\">",
                        "</atem:parameter>\n",
                        "</atem:invoke>",
                    ]),
                ),
            );
            b.0.messages = Some(MessageSpec {
                message_start: "<|start|>assistant".into(),
                recipient_prefix: " to=".into(),
                message_marker: "<|message|>".into(),
                message_ends: vec!["<|eom|>".into(), "<|eot|>".into()],
                reasoning_recipient: Some("self".into()),
                content_recipients: vec!["user".into(), "commentary".into()],
            });
            b
        }
        "generic" => B::new(
            name,
            None,
            none,
            tools(m("{\"tool_calls\":", "}"), None, ", ", json("name", "arguments", Some("id"), true)),
        )
        .note(
            0.7,
            "the answer written as {\"response\": \"…\"} (a JSON string) and a single {\"tool_call\": {…}} are read but not described",
        ),
        "solar-open2" => B::new(
            name,
            None,
            tag("<|think:start|>", "<|think:end|>"),
            tools(
                None,
                m("<|tool_call:start|>", "<|tool_call:end|>"),
                "",
                xml(["", "\n", "<|tool_arg:start|>", "<|tool_arg:value|>", "<|tool_arg:end|>\n", ""]),
            ),
        ),
        "rwkv" => B::new(
            name,
            None,
            think(),
            tools(None, m("<tool_call>\n", "\n</tool_call>"), "\n", json("name", "arguments", None, false)),
        )
        .note(0.8, "calls written as Markdown (**Tool Call:** then a ```json fence) are read but not described"),
        _ => return None,
    };
    Some(b.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::Format;

    #[test]
    fn every_format_has_a_spec_named_after_it() {
        let mut missing = Vec::new();
        for (name, _) in Format::names() {
            let Some(s) = spec(name) else {
                missing.push(name);
                continue;
            };
            assert_eq!(s.format.as_deref(), Some(name));
            assert_eq!(
                s.tools.is_some(),
                !NO_TOOLS.contains(&name),
                "{name}: tool calls"
            );
            assert!(
                s.confidence == 1.0 || !s.notes.is_empty(),
                "{name}: a doubt needs a note"
            );
        }
        assert!(spec("nope").is_none());
        // A format without a spec says why (grammar export gives that reason).
        let listed: Vec<&str> = WITHOUT_SPEC.iter().map(|(n, _)| *n).collect();
        assert_eq!(missing, listed, "formats without a spec");
    }
}
