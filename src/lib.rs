//! chatcodec: the chat layer of an LLM inference runtime.
//!
//! - **Encode**: a chat request plus a model's Jinja chat template becomes exactly the prompt
//!   that Hugging Face transformers' `apply_chat_template` makes, byte for byte.
//! - **Decode**: model output, fed chunk by chunk, becomes OpenAI-style deltas and a final
//!   message (content, reasoning, tool calls).
//!
//! ```
//! let t = chatcodec::Template::new("{% for m in messages %}<|{{ m.role }}|>{{ m.content }}\n{% endfor %}")?;
//! let vars = serde_json::json!({"messages": [{"role": "user", "content": "Hi"}]});
//! assert_eq!(t.render(&vars)?, "<|user|>Hi\n");
//! # Ok::<(), chatcodec::Error>(())
//! ```
#![warn(missing_docs)]

pub(crate) mod builtins;
pub mod chat;
pub mod clock;
pub(crate) mod compile;
mod error;
mod limits;
pub mod load;
pub mod output;
pub(crate) mod syntax;
mod template;
pub(crate) mod value;
pub(crate) mod vm;

pub use clock::{Clock, DateTime};
pub use error::{Error, ErrorKind, ExceptionClass, Limit};
pub use template::{Limits, Options, Template};
