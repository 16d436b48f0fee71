//! The GGUF metadata reader: any bytes load or fail with an error, never a panic or a huge
//! allocation.
#![no_main]

use chatcodec::load::ModelTemplates;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(m) = ModelTemplates::from_gguf_bytes(data) {
        let names: Vec<String> = m.names().map(str::to_string).collect();
        for name in names {
            let _ = m.select(Some(&name), false);
        }
    }
});
