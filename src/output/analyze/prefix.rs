//! The start of the output that a generation prompt already wrote (functionary v3.2's prompt
//! ends with `>>>`, the start of both `>>>all` and `>>>NAME`).

use crate::output::spec::{CallSyntax, FormatSpec};

/// The longest text of at least three characters that ends `prompt` and starts one of the
/// spec's content or call markers (the content open, the section or call open, the call
/// syntax's name prefix).
pub(crate) fn prompt_prefix(prompt: &str, spec: &FormatSpec) -> Option<String> {
    let mut markers: Vec<&str> = Vec::new();
    if let Some(c) = &spec.content {
        markers.push(&c.open);
    }
    if let Some(t) = &spec.tools {
        for m in [&t.section, &t.call].into_iter().flatten() {
            markers.push(&m.open);
        }
        if let CallSyntax::NameThenJson { name_prefix, .. }
        | CallSyntax::XmlParams { name_prefix, .. }
        | CallSyntax::KeyValue { name_prefix, .. } = &t.syntax
        {
            markers.push(name_prefix);
        }
    }
    let mut best: Option<&str> = None;
    for m in markers {
        let m = m.trim_start();
        for (k, _) in m
            .char_indices()
            .skip(3)
            .chain(std::iter::once((m.len(), ' ')))
        {
            let head = &m[..k];
            if head.trim().chars().count() >= 3
                && prompt.ends_with(head)
                && best.map_or(true, |b| head.len() > b.len())
            {
                best = Some(head);
            }
        }
    }
    best.map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::Format;

    #[test]
    fn a_prompt_that_writes_the_first_marker() {
        let spec = Format::by_name("functionary-v3.2").unwrap().spec();
        let p = "<|start_header_id|>assistant<|end_header_id|>\n\n>>>";
        assert_eq!(prompt_prefix(p, &spec).as_deref(), Some(">>>"));
        assert_eq!(prompt_prefix("assistant<|end_header_id|>\n\n", &spec), None);
        let hermes = Format::by_name("hermes").unwrap().spec();
        assert_eq!(prompt_prefix("<|im_start|>assistant\n", &hermes), None);
    }
}
