//! Tool probes: calls (argument values in any syntax), results, ids, parallel calls.

use serde_json::{json, Value};

use super::probe::{Prober, ANS, ARG1, ARG2, IDS, RES1, RES2, TOOL, U1, U2};
use super::Caps;

/// How the probe conversations that showed a tool call were built.
#[derive(Debug, Clone, Copy)]
pub(super) struct CallShape {
    /// Arguments as an object (else the OpenAI JSON string).
    pub(super) object_args: bool,
    /// The assistant's content: null, empty, or a text (templates that index the content of
    /// a call message).
    pub(super) content: CallContent,
    /// Which pair of [`IDS`].
    pub(super) ids: usize,
    /// Which [`Layout`].
    pub(super) layout: Layout,
    /// The template shows tool calls at all.
    pub(super) shown: bool,
}

/// The content of the probe's tool-call message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CallContent {
    /// `null`, as OpenAI sends it.
    Null,
    /// `""`.
    Empty,
    /// A short text.
    Text,
}

/// Which messages surround the assistant tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Layout {
    /// user, call, results, user.
    Full,
    /// user, call, results, assistant answer, user (templates whose alternation check skips
    /// calls and results).
    FullAnswered,
    /// user, call.
    CallOnly,
    /// user, call, results.
    CallResults,
}

/// Whether `out` shows the probe argument inside a JSON string that was encoded again
/// (`\"city\"` / `\"ARG1\"`): JSON-string arguments printed with `tojson`.
fn double_encoded(out: &str) -> bool {
    out.contains(&format!("\\\"{ARG1}\\\"")) || out.contains("\\\"city\\\"")
}

impl<'t> Prober<'t> {
    /// One tool call with argument `arg` and id `id`.
    pub(super) fn call(&self, shape: &CallShape, arg: &str, id: &str) -> Value {
        let args = if shape.object_args {
            json!({ "city": arg })
        } else {
            Value::String(json!({ "city": arg }).to_string())
        };
        json!({"id": id, "type": "function", "function": {"name": TOOL, "arguments": args}})
    }

    /// The assistant message making `n` calls (1 or 2), with `extra` keys added.
    pub(super) fn call_message(
        &self,
        shape: &CallShape,
        n: usize,
        extra: &[(&str, Value)],
    ) -> Value {
        let ids = IDS[shape.ids];
        let calls: Vec<Value> = [ARG1, ARG2]
            .iter()
            .zip(ids)
            .take(n)
            .map(|(a, id)| self.call(shape, a, id))
            .collect();
        let content = match shape.content {
            CallContent::Null => Value::Null,
            CallContent::Empty => self.text(""),
            CallContent::Text => self.text(ANS),
        };
        let mut m = json!({"role": "assistant", "content": content, "tool_calls": calls});
        if let Some(o) = m.as_object_mut() {
            for (k, v) in extra {
                o.insert((*k).to_string(), v.clone());
            }
        }
        m
    }

    /// The tool result for call `i`, with the tool's name when `named`.
    fn result(&self, shape: &CallShape, i: usize, named: bool) -> Value {
        let mut m = self.msg("tool", [RES1, RES2][i]);
        if let Some(o) = m.as_object_mut() {
            o.insert("tool_call_id".into(), IDS[shape.ids][i].into());
            if named {
                o.insert("name".into(), TOOL.into());
            }
        }
        m
    }

    /// The conversation around an assistant message `call` making `n` calls.
    pub(super) fn around(
        &self,
        shape: &CallShape,
        call: Value,
        n: usize,
        named: bool,
    ) -> Vec<Value> {
        let mut v = vec![self.msg("user", U1), call];
        if shape.layout != Layout::CallOnly {
            v.extend((0..n).map(|i| self.result(shape, i, named)));
        }
        if shape.layout == Layout::FullAnswered {
            v.push(self.msg("assistant", ANS));
        }
        if matches!(shape.layout, Layout::Full | Layout::FullAnswered) {
            v.push(self.msg("user", U2));
        }
        v
    }

    fn render_calls(&self, shape: &CallShape, n: usize, named: bool) -> Option<String> {
        let call = self.call_message(shape, n, &[]);
        let agp = matches!(shape.layout, Layout::Full | Layout::FullAnswered);
        self.render(
            self.around(shape, call, n, named),
            json!({"add_generation_prompt": agp, "tools": Self::tool_defs()}),
        )
    }

    /// Fills the tool-call capabilities; returns the shape later probes use.
    pub(super) fn tool_calls(&self, caps: &mut Caps) -> CallShape {
        let mut found = None;
        'search: for ids in 0..IDS.len() {
            for object_args in [false, true] {
                for layout in [
                    Layout::Full,
                    Layout::FullAnswered,
                    Layout::CallResults,
                    Layout::CallOnly,
                ] {
                    for content in [CallContent::Null, CallContent::Empty, CallContent::Text] {
                        let shape = CallShape {
                            object_args,
                            content,
                            ids,
                            layout,
                            shown: true,
                        };
                        if let Some(out) = self.render_calls(&shape, 1, false) {
                            if out.contains(ARG1) {
                                found = Some((shape, out));
                                break 'search;
                            }
                        }
                    }
                }
            }
        }
        let Some((mut shape, mut out)) = found else {
            let shape = CallShape {
                object_args: false,
                content: CallContent::Empty,
                ids: 0,
                layout: Layout::Full,
                shown: false,
            };
            caps.supports_tool_responses = [false, true].iter().any(|named| {
                self.render_calls(&shape, 1, *named)
                    .is_some_and(|o| o.contains(RES1))
            });
            return shape;
        };
        caps.supports_tool_calls = true;
        if !shape.object_args && double_encoded(&out) {
            // The JSON-string arguments showed, but encoded again as a string
            // (`"{\"city\": …}"`): the template needs an object (minja's reading too).
            let object = CallShape {
                object_args: true,
                ..shape
            };
            if let Some(o) = self.render_calls(&object, 1, false) {
                if o.contains(ARG1) && !double_encoded(&o) {
                    shape = object;
                    out = o;
                }
            }
        }
        caps.requires_object_arguments = shape.object_args;
        if shape.content == CallContent::Null {
            // Null content that prints `None` needs an empty string.
            let empty = CallShape {
                content: CallContent::Empty,
                ..shape
            };
            let none_printed = self
                .render_calls(&empty, 1, false)
                .is_some_and(|o| o.matches("None").count() < out.matches("None").count());
            if none_printed {
                shape = empty;
                caps.requires_non_null_content = true;
            }
        } else {
            caps.requires_non_null_content = true;
        }
        let ids = IDS[shape.ids];
        let mut results_shown = out.contains(RES1);
        let mut id_shown = out.contains(ids[0]);
        if !results_shown {
            for (layout, named) in [
                (Layout::Full, true),
                (Layout::FullAnswered, false),
                (Layout::FullAnswered, true),
                (Layout::CallResults, false),
                (Layout::CallResults, true),
            ] {
                let s = CallShape { layout, ..shape };
                if let Some(o) = self.render_calls(&s, 1, named) {
                    if o.contains(RES1) {
                        results_shown = true;
                        id_shown |= o.contains(ids[0]);
                        break;
                    }
                }
            }
        }
        caps.supports_tool_responses = results_shown;
        caps.supports_tool_call_id = id_shown;
        caps.supports_parallel_tool_calls = self.render_calls(&shape, 2, false).is_some_and(|o| {
            (o.contains(ARG1) && o.contains(ARG2)) || (o.contains(ids[0]) && o.contains(ids[1]))
        });
        shape
    }
}
