//! The resource limits of a template: a leaf that the compiler (source size, nesting) and
//! the VM (fuel, depth, output) both read, and that the public face re-exports.

/// Resource limits of one template. Defaults are far above what any real chat template needs;
/// docs/limits.md describes each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Instructions one render may execute.
    pub fuel: u64,
    /// Depth of nested macro calls.
    pub max_depth: usize,
    /// Bytes of output one render may produce (captured text included).
    pub max_output: usize,
    /// Depth of nested blocks and expressions in the source.
    pub max_nesting: usize,
    /// Bytes of template source, checked before parsing.
    pub max_source: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            fuel: 50_000_000,
            max_depth: 500,
            max_output: 64 << 20,
            max_nesting: 200,
            max_source: 16 << 20,
        }
    }
}
