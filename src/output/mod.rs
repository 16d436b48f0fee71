//! Decoding model output: a resumable PEG machine that turns streamed text into OpenAI-style
//! deltas and a final message.
