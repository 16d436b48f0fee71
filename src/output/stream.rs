//! The streaming parser: bytes in, events out; and the one-shot `parse`.

use super::assemble::{Assembler, Broken};
use super::event::Event;
use super::formats::{Format, ParserChoice};
use super::message::Message;
use super::peg::Machine;
use super::typing::ToolTypes;
use std::collections::HashSet;
use std::sync::Arc;

/// How the prompt left reasoning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reasoning {
    /// Reasoning, if any, is opened by the model with the format's start marker.
    #[default]
    Auto,
    /// The prompt already opened the reasoning block: output starts inside it.
    ForcedOpen,
    /// The prompt closed reasoning (thinking disabled): the output has none.
    ForcedClosed,
}

/// Options of a [`StreamParser`].
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The reasoning mode.
    pub reasoning: Reasoning,
    /// Seed of generated call ids (`call_` + 16 hex digits); the same seed gives the same ids.
    pub id_seed: u64,
    /// The tool names the request offered. When given, a call whose (complete) name is not
    /// one of them is not reported as a call: its text is kept as content, with a
    /// [`Event::Malformed`] report. `None` accepts any name.
    pub tools: Option<Vec<String>>,
    /// Keep a call to a tool that is not in `tools` as a call (vLLM's parsers do), rather
    /// than turning it into content. Set by [`Format::by_parsers`]'s choice.
    pub keep_unknown_tools: bool,
    /// The request's OpenAI `tools` array, whose parameter schemas type the values of
    /// tagged parameters (`<parameter=k>5</parameter>` is `5` for an `integer`, `"5"` for a
    /// `string`; a parameter the schema does not type is a string in the XML formats whose
    /// peers read it so). `None`: values are typed by their text.
    pub tool_schemas: Option<serde_json::Value>,
}

impl Options {
    /// The options of a parser for `choice`: its reasoning mode and call rules, the request's
    /// OpenAI `tools` array (names and parameter schemas), ids from `id_seed`. A choice that
    /// reads no calls (a reasoning parser alone) gets an empty tools list, so every call is
    /// text.
    pub fn for_choice(
        choice: &ParserChoice,
        tools: Option<serde_json::Value>,
        id_seed: u64,
    ) -> Options {
        Options {
            reasoning: choice.reasoning,
            id_seed,
            tools: match choice.parses_calls {
                true => tools.as_ref().map(Options::tool_names),
                false => Some(Vec::new()),
            },
            keep_unknown_tools: choice.keep_unknown_tools && choice.parses_calls,
            tool_schemas: tools,
        }
    }

    /// The tool names of an OpenAI `tools` array (`[{"type": "function", "function":
    /// {"name": …}}]`; bare `{"name": …}` entries are accepted too). Entries without a name
    /// are skipped.
    pub fn tool_names(tools: &serde_json::Value) -> Vec<String> {
        tools
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| {
                t.get("function")
                    .and_then(|f| f.get("name"))
                    .or_else(|| t.get("name"))
                    .and_then(|n| n.as_str())
                    .map(str::to_string)
            })
            .collect()
    }
}

/// A fresh random seed for [`Options::id_seed`], so call ids differ from run to run as
/// servers' do: the standard library's per-process random hash keys, mixed with the time.
pub fn random_id_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    h.write_u128(now);
    h.write_u32(std::process::id());
    h.finish()
}

/// A streaming parser of one model output.
///
/// The final message is the sum of the events with one exception: a tool call that the
/// output broke after it was announced (invalid JSON arguments, output cut off inside the
/// call) is given back as the text it was written as, in content at its place, as vLLM's and
/// SGLang's parsers return such output, so that every call of the final message has complete
/// JSON arguments. Its events were streamed already and are not retracted.
pub struct StreamParser {
    machine: Machine,
    asm: Assembler,
    message: Message,
    broken: Vec<Broken>,
}

impl StreamParser {
    /// A parser for `format` with default options.
    pub fn new(format: &Format) -> StreamParser {
        StreamParser::with_options(format, Options::default())
    }

    /// A parser for `format`.
    pub fn with_options(format: &Format, options: Options) -> StreamParser {
        let prog = format.program();
        let pick = |names: &[&str]| names.iter().find_map(|n| prog.entry(n)).unwrap_or(0);
        let entry = match options.reasoning {
            Reasoning::Auto => pick(&["start"]),
            Reasoning::ForcedOpen => pick(&["start_open", "start"]),
            Reasoning::ForcedClosed => pick(&["start_closed", "body", "start"]),
        };
        let recover = pick(&["recover", "body", "start"]);
        let mut machine = Machine::new(prog, entry, recover);
        if let Some(tools) = options.tools.filter(|_| !options.keep_unknown_tools) {
            machine.set_known(Arc::new(tools.into_iter().collect::<HashSet<_>>()));
        }
        let mut asm = Assembler::new(options.id_seed);
        if let Some(tools) = &options.tool_schemas {
            asm.set_types(Arc::new(ToolTypes::from_tools(tools)));
        }
        StreamParser {
            machine,
            asm,
            message: Message::default(),
            broken: Vec::new(),
        }
    }

    /// Feeds a chunk of output text; returns the events it completes.
    pub fn feed(&mut self, chunk: &str) -> Vec<Event> {
        self.feed_bytes(chunk.as_bytes())
    }

    /// Feeds raw bytes (a chunk may end inside a UTF-8 character).
    pub fn feed_bytes(&mut self, chunk: &[u8]) -> Vec<Event> {
        self.machine.feed(chunk, &mut self.asm);
        self.collect()
    }

    /// Ends the output: flushes everything held back and closes what is open. The message
    /// is final from here on (broken calls given back as content).
    pub fn finish(&mut self) -> Vec<Event> {
        self.machine.finish(&mut self.asm);
        let events = self.collect();
        self.give_back_broken();
        events
    }

    /// The message so far (the final message after [`StreamParser::finish`]).
    pub fn message(&self) -> &Message {
        &self.message
    }

    fn collect(&mut self) -> Vec<Event> {
        let events = self.asm.take();
        for e in &events {
            self.message.apply(e);
        }
        if self.asm.has_broken() {
            self.broken.extend(self.asm.take_broken());
        }
        events
    }

    /// Turns the broken calls whose arguments are not complete JSON back into their text.
    /// Later calls first, so the content offsets of earlier ones stay valid.
    fn give_back_broken(&mut self) {
        for b in std::mem::take(&mut self.broken).into_iter().rev() {
            let Some(call) = self.message.tool_calls.get(b.index) else {
                continue;
            };
            let at = b.content_at;
            let complete = serde_json::from_str::<serde::de::IgnoredAny>(&call.arguments).is_ok();
            // A call whose text is not at hand stays a call: giving it back would lose it.
            let placeable = !b.text.is_empty() && self.message.content.is_char_boundary(at);
            if (complete && b.keep_if_json) || !placeable {
                continue;
            }
            self.message.tool_calls.remove(b.index);
            self.message.content.insert_str(at, &b.text);
        }
    }
}

/// Parses a whole output at once.
pub fn parse(format: &Format, text: &str) -> Message {
    parse_with(format, text, Options::default())
}

/// Parses a whole output at once, with options.
pub fn parse_with(format: &Format, text: &str, options: Options) -> Message {
    let mut p = StreamParser::with_options(format, options);
    p.feed(text);
    p.finish();
    p.message
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(name: &str, text: &str) -> Message {
        let f = Format::by_name(name).unwrap();
        parse(&f, text)
    }

    #[test]
    fn hermes_smoke() {
        let m = run(
            "hermes",
            "<think>\nhmm</think>\n\nSure.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
        );
        assert_eq!(m.reasoning, "\nhmm");
        assert_eq!(m.content, "Sure.\n");
        assert_eq!(m.tool_calls.len(), 1);
        assert_eq!(m.tool_calls[0].arguments, "{\"city\": \"Paris\"}");
        assert_eq!(m.malformed, 0);
    }

    #[test]
    fn chunked_equals_oneshot() {
        let text = "<think>a</think>x<tool_call>{\"name\": \"f\", \"arguments\": {\"s\": \"日本\"}}</tool_call>tail <tool";
        let f = Format::by_name("hermes").unwrap();
        let whole = parse(&f, text);
        let mut p = StreamParser::new(&f);
        for b in text.as_bytes().chunks(1) {
            p.feed_bytes(b);
        }
        p.finish();
        assert_eq!(p.message(), &whole);
        assert_eq!(whole.content, "xtail <tool");
    }
}
