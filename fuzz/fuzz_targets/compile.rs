//! Template compile: any source compiles or fails with an error, never a panic.
#![no_main]

use chatcodec::{Options, Template};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    let mut options = Options::default();
    options.limits.max_source = 1 << 20;
    let _ = Template::with_options(source, options);
});
