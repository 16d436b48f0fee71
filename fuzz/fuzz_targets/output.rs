//! The output parser over every format with random chunking: streamed equals one-shot, and
//! no byte of text is lost. Input: a format selector byte, a chunk-size byte, then the text.
#![no_main]

use chatcodec::output::{parse_with, Format, Message, Options, StreamParser};
use libfuzzer_sys::fuzz_target;

/// Characters that occur in no marker and no generated id: each must come back.
const COUNTED: [&str; 5] = ["é", "日", "🙂", "ß", "Ω"];

fn counts(s: &str) -> [usize; 5] {
    COUNTED.map(|c| s.matches(c).count())
}

fn message_text(m: &Message) -> String {
    let mut s = m.content.clone() + &m.reasoning;
    for c in &m.tool_calls {
        s.push_str(&c.id);
        s.push_str(&c.name);
        s.push_str(&c.arguments);
    }
    s
}

fuzz_target!(|data: &[u8]| {
    let [pick, chunk, rest @ ..] = data else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let names: Vec<&str> = Format::names().map(|(n, _)| n).collect();
    let Ok(format) = Format::by_name(names[*pick as usize % names.len()]) else {
        return;
    };
    let options = Options::default();
    let whole = parse_with(&format, text, options.clone());
    let mut p = StreamParser::with_options(&format, options);
    let size = usize::from(*chunk % 16) + 1;
    for piece in text.as_bytes().chunks(size) {
        p.feed_bytes(piece);
    }
    p.finish();
    assert_eq!(p.message(), &whole, "streamed in chunks of {size} differs from one-shot");
    assert_eq!(
        counts(&message_text(&whole)),
        counts(text),
        "characters lost: {whole:?}"
    );
});
