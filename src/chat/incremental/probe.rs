//! The dynamic half of the stability decision: probe conversations of several shapes,
//! pushed message by message through a session, must give the full render's prompt (or its
//! error) after every message.

use serde_json::{json, Value as Json};

use super::{Incremental, Reason};

/// The probe conversations: (name, request).
fn probes() -> Vec<(&'static str, Json)> {
    let tool = json!({"type": "function", "function": {"name": "get_weather",
        "description": "Get the weather.", "parameters": {"type": "object",
        "properties": {"city": {"type": "string"}}, "required": ["city"]}}});
    let call = json!({"id": "call12345", "type": "function",
        "function": {"name": "get_weather", "arguments": {"city": "Paris"}}});
    vec![
        (
            "chat",
            json!({"add_generation_prompt": true, "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Hello"},
                {"role": "assistant", "content": "Hi!"},
                {"role": "user", "content": "How are you?"},
                {"role": "assistant", "content": "Fine."},
                {"role": "user", "content": "Bye"}]}),
        ),
        (
            "no_system",
            json!({"add_generation_prompt": false, "messages": [
                {"role": "user", "content": "One"},
                {"role": "assistant", "content": "Two"},
                {"role": "user", "content": "Three"},
                {"role": "assistant", "content": "Four"}]}),
        ),
        (
            "tools",
            json!({"add_generation_prompt": true, "tools": [tool], "messages": [
                {"role": "system", "content": "Use tools."},
                {"role": "user", "content": "Weather in Paris?"},
                {"role": "assistant", "content": "", "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "call12345", "name": "get_weather",
                 "content": "{\"temperature\": 22}"},
                {"role": "assistant", "content": "It is 22."},
                {"role": "user", "content": "Thanks"}]}),
        ),
        (
            "reasoning",
            json!({"add_generation_prompt": true, "messages": [
                {"role": "user", "content": "2+2?"},
                {"role": "assistant", "content": "4", "reasoning_content": "Add."},
                {"role": "user", "content": "3+3?"},
                {"role": "assistant", "content": "6", "reasoning_content": "Add again."},
                {"role": "user", "content": "Done"}]}),
        ),
        (
            "parts",
            json!({"add_generation_prompt": true, "messages": [
                {"role": "system", "content": [{"type": "text", "text": "Sys."}]},
                {"role": "user", "content": [{"type": "text", "text": "Part one."}]},
                {"role": "assistant", "content": [{"type": "text", "text": "Reply."}]},
                {"role": "user", "content": [{"type": "text", "text": "Part two."}]}]}),
        ),
    ]
}

/// Pushes every probe conversation through a session of `inc`; the first difference from
/// the full render is the refusal.
pub(super) fn probe(inc: &Incremental<'_>) -> Result<(), Reason> {
    for (name, request) in probes() {
        let Some(obj) = request.as_object() else {
            continue;
        };
        let messages = obj
            .get("messages")
            .and_then(Json::as_array)
            .cloned()
            .unwrap_or_default();
        let mut base = obj.clone();
        base.remove("messages");
        // Special tokens, so that templates which need them render (and can differ).
        base.insert("bos_token".into(), Json::from("<s>"));
        base.insert("eos_token".into(), Json::from("</s>"));
        let mismatch = Reason::ProbeMismatch {
            probe: name,
            messages: 0,
        };
        let mut session = inc
            .session(&Json::Object(base.clone()))
            .map_err(|_| mismatch)?;
        for (i, m) in messages.iter().enumerate() {
            let _ = session.push(m.clone());
            let mut whole = base.clone();
            whole.insert("messages".into(), Json::Array(messages[..=i].to_vec()));
            if session.prompt() != full_render(inc, &Json::Object(whole), session.now) {
                return Err(Reason::ProbeMismatch {
                    probe: name,
                    messages: i + 1,
                });
            }
        }
    }
    Ok(())
}

/// The reference: the request rendered in full, as the session's template renders it.
pub(crate) fn full_render(
    inc: &Incremental<'_>,
    request: &Json,
    now: crate::clock::DateTime,
) -> Result<String, crate::Error> {
    let extra = crate::chat::Extra {
        kwargs: inc.special_tokens,
        drop_none: inc.drop_none,
        now: Some(now),
        limits: None,
    };
    let mut out = String::new();
    crate::chat::render_impl(inc.template, request, &extra, &mut out)?;
    Ok(out)
}
