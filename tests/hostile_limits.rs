//! The hostile-input suite of issue 13: each input ends with a named limit error (or the
//! right render) through the API with limits set, never a panic, an abort or a hang, and
//! in bounded memory.
//!
//! Each case runs in a child process (this test binary re-run with the case name in an
//! environment variable) so that an abort (a refused allocation) is seen as such and not
//! taken for the whole run. The child reports its outcome, its peak resident memory
//! (`VmHWM`) and its time; the parent checks the outcome and that the peak stays under
//! 1 GiB. The wall-clock guard is a hang detector, not a timing assertion.
//!
//! Most cases run with small limits (fuel 5M units, output 8 MiB) so that the suite stays
//! fast; the few that must render big results run with the defaults.

use std::io::Read;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use chatcodec::{Options, Template};
use serde_json::{json, Value};

const CHILD_ENV: &str = "CHATCODEC_HOSTILE_LIMITS_CHILD";
const MARK: &str = "HOSTILE-LIMITS ";
/// A case still running after this is a hang (real cases take milliseconds to a second).
const GUARD: Duration = Duration::from_secs(30);
/// Peak resident memory a case may reach.
const MAX_RSS_KB: u64 = 1 << 20;

/// Which limits a case runs with.
#[derive(Debug, Clone, Copy)]
enum Lim {
    /// fuel 5M, output 8 MiB.
    Small,
    /// `Limits::default()`.
    Default,
    /// Small, and templates of at most 64 KiB.
    SmallSource,
}

/// What a case must end in.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// This limit (`ErrorKind` as `{:?}`), with a message that names it.
    Limit(&'static str),
    /// Any limit error.
    AnyLimit,
    /// An error of this kind.
    Err(&'static str),
    /// Exactly this text.
    Text(&'static str),
}

fn options(lim: Lim) -> Options {
    let mut o = Options::default();
    match lim {
        Lim::Small | Lim::SmallSource => {
            o.limits.fuel = 5_000_000;
            o.limits.max_output = 8 << 20;
        }
        Lim::Default => {}
    }
    if let Lim::SmallSource = lim {
        o.limits.max_source = 64 << 10;
    }
    o
}

/// `n` `{% set %}`s of distinct variables.
fn sets(n: usize) -> String {
    (0..n).map(|i| format!("{{% set v{i} = {i} %}}")).collect()
}

const CASES: &[&str] = &[
    "in_list_loop",
    "not_in_list_loop",
    "in_string_loop",
    "in_tuple_loop",
    "eq_lists_loop",
    "ne_lists_loop",
    "lt_lists_loop",
    "eq_strings_loop",
    "lt_strings_loop",
    "eq_nested_loop",
    "eq_dicts_loop",
    "sort_loop",
    "sort_reverse_loop",
    "unique_loop",
    "unique_strings",
    "join_loop",
    "replace_loop",
    "find_loop",
    "count_loop",
    "startswith_loop",
    "split_loop",
    "strip_loop",
    "upper_loop",
    "length_of_string_loop",
    "tojson_loop",
    "map_string_loop",
    "select_loop",
    "reject_all_loop",
    "selectattr_loop",
    "groupby_loop",
    "min_loop",
    "max_loop",
    "sum_loop",
    "dict_lookup_loop",
    "dict_in_loop",
    "dict_get_loop",
    "dictsort_loop",
    "items_loop",
    "list_filter_loop",
    "reverse_loop",
    "batch_loop",
    "slice_loop",
    "wordcount_loop",
    "nested_loops",
    "nested_loops_silent",
    "while_like_recursion",
    "mutual_recursion",
    "macro_loop_calls",
    "bigint_pow_loop",
    "bigint_str_loop",
    "loop_changed",
    "string_compare_chain",
    "format_loop",
    "percent_loop",
    "center_loop",
    "namespace_append_loop",
    "repeat_string_huge",
    "repeat_list_huge",
    "batch_big_string",
    "batch_fill_huge",
    "slice_huge",
    "list_of_big_string",
    "map_big_string",
    "unique_big_string",
    "sort_big_string",
    "join_big_string_chars",
    "center_huge",
    "ljust_huge",
    "zfill_huge",
    "format_width_huge",
    "percent_width_huge",
    "percent_precision_huge",
    "format_precision_huge",
    "indent_huge",
    "replace_doubling",
    "format_doubling",
    "concat_doubling",
    "list_doubling",
    "capture_doubling",
    "output_flood",
    "dict_growth",
    "tojson_indent_huge",
    "wordwrap_huge_width",
    "truncate_huge",
    "string_list_print",
    "shared_dag_print",
    "shared_dag_tojson",
    "shared_dag_compare",
    "range_huge",
    "pow_huge",
    "precision_65536",
    "precision_70000_percent",
    "precision_exact_tail",
    "precision_exp",
    "small_join",
    "small_sort",
    "small_unique",
    "small_in",
    "big_in_once",
    "big_eq_once",
    "big_sort_once",
    "big_join_once",
    "batch_ok",
    "slice_ok",
    "sets_40000",
    "macros_20000",
    "sets_70000",
    "loop_sets_40000",
    "source_too_big",
    "nesting_if",
    "nesting_brackets",
    "nesting_parens",
    "long_line_error",
    "long_line_runtime_error",
];

fn case(name: &str) -> (String, Lim, Expect) {
    match name {
        "in_list_loop" => (r#"{% set l = range(100000)|list %}{% for i in range(100000) %}{{ 99999 in l }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "not_in_list_loop" => (r#"{% set l = range(100000)|list %}{% for i in range(100000) %}{{ -1 not in l }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "in_string_loop" => (r#"{% set s = 'ab' * 1000000 %}{% for i in range(100000) %}{{ 'zz' in s }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "in_tuple_loop" => (r#"{% set t = (range(100000)|list, ) %}{% set l = range(100000)|list %}{% for i in range(100000) %}{{ l in t }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "eq_lists_loop" => (r#"{% set l = range(100000)|list %}{% set m = range(100000)|list %}{% for i in range(100000) %}{{ l == m }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "ne_lists_loop" => (r#"{% set l = range(100000)|list %}{% set m = range(100000)|list %}{% for i in range(100000) %}{{ l != m }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "lt_lists_loop" => (r#"{% set l = range(100000)|list %}{% set m = range(100000)|list %}{% for i in range(100000) %}{{ l < m }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "eq_strings_loop" => (r#"{% set s = 'ab' * 1000000 %}{% set t = 'ab' * 1000000 %}{% for i in range(100000) %}{{ s == t }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "lt_strings_loop" => (r#"{% set s = 'ab' * 1000000 %}{% set t = 'ab' * 1000000 %}{% for i in range(100000) %}{{ s < t }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "eq_nested_loop" => (r#"{% set a = [range(1000)|list] * 1000 %}{% set b = [range(1000)|list] * 1000 %}{% for i in range(100000) %}{{ a == b }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "eq_dicts_loop" => (r#"{% set d = dict(range(100000)|batch(2)) %}{% set e = dict(d) %}{% for i in range(100000) %}{{ d == e }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "sort_loop" => (r#"{% set l = range(100000)|list %}{% for i in range(100000) %}{{ l|sort|first }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "sort_reverse_loop" => (r#"{% set l = range(100000)|list %}{% for i in range(100000) %}{{ l|sort(reverse=true)|first }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "unique_loop" => (r#"{% set l = range(100000)|list %}{% for i in range(100) %}{{ l|unique|first }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "unique_strings" => (r#"{{ range(100000)|map('string')|unique|list|length }}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "join_loop" => (r#"{% set l = range(100000)|list %}{% for i in range(100000) %}{{ l|join(',')|length }}{% endfor %}"#.to_string(), Lim::Small, Expect::AnyLimit),
        "replace_loop" => (r#"{% set s = 'ab' * 1000000 %}{% for i in range(100000) %}{{ s.replace('zz', 'y')|length }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "find_loop" => (r#"{% set s = 'ab' * 1000000 %}{% for i in range(100000) %}{{ s.find('zz') }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "count_loop" => (r#"{% set s = 'ab' * 1000000 %}{% for i in range(100000) %}{{ s.count('zz') }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "startswith_loop" => (r#"{% set s = 'ab' * 1000000 %}{% for i in range(100000) %}{{ s.startswith('zz') }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "split_loop" => (r#"{% set s = 'ab' * 1000000 %}{% for i in range(100000) %}{{ s.split('zz')|length }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "strip_loop" => (r#"{% set s = ' ' * 1000000 + 'x' %}{% for i in range(100000) %}{{ s.strip()|length }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "upper_loop" => (r#"{% set s = 'ab' * 1000000 %}{% for i in range(100000) %}{{ (s|upper)|length }}{% endfor %}"#.to_string(), Lim::Small, Expect::AnyLimit),
        "length_of_string_loop" => (r#"{% set s = 'ab' * 1000000 %}{% for i in range(100000) %}{{ s|length }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "tojson_loop" => (r#"{% set l = range(100000)|list %}{% for i in range(100000) %}{{ l|tojson|length }}{% endfor %}"#.to_string(), Lim::Small, Expect::AnyLimit),
        "map_string_loop" => (r#"{% set l = range(100000)|list %}{% for i in range(100000) %}{{ l|map('string')|list|length }}{% endfor %}"#.to_string(), Lim::Small, Expect::AnyLimit),
        "select_loop" => (r#"{% set l = range(100000)|list %}{% for i in range(100000) %}{{ l|select('odd')|list|length }}{% endfor %}"#.to_string(), Lim::Small, Expect::AnyLimit),
        "reject_all_loop" => (r#"{% set l = range(100000)|list %}{% for i in range(100000) %}{{ l|reject('number')|list|length }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "selectattr_loop" => (r#"{% set l = [{'a': 1}] * 100000 %}{% for i in range(100000) %}{{ l|selectattr('a', 'equalto', 2)|list|length }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "groupby_loop" => (r#"{% set l = range(100000)|list %}{% for i in range(100000) %}{{ l|groupby('real')|length }}{% endfor %}"#.to_string(), Lim::Small, Expect::AnyLimit),
        "min_loop" => (r#"{% set l = range(100000)|list %}{% for i in range(100000) %}{{ l|min }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "max_loop" => (r#"{% set l = range(100000)|list %}{% for i in range(100000) %}{{ l|max }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "sum_loop" => (r#"{% set l = range(100000)|list %}{% for i in range(100000) %}{{ l|sum }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "dict_lookup_loop" => (r#"{% set d = dict(range(100000)|batch(2)) %}{% for i in range(100000) %}{{ d[99998] }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "dict_in_loop" => (r#"{% set d = dict(range(100000)|batch(2)) %}{% for i in range(100000) %}{{ 99998 in d }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "dict_get_loop" => (r#"{% set d = dict(range(100000)|batch(2)) %}{% for i in range(100000) %}{{ d.get(99998) }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "dictsort_loop" => (r#"{% set d = dict(range(100000)|batch(2)) %}{% for i in range(100000) %}{{ d|dictsort|first }}{% endfor %}"#.to_string(), Lim::Small, Expect::AnyLimit),
        "items_loop" => (r#"{% set d = dict(range(100000)|batch(2)) %}{% for i in range(100000) %}{{ d.items()|list|length }}{% endfor %}"#.to_string(), Lim::Small, Expect::AnyLimit),
        "list_filter_loop" => (r#"{% set l = range(100000)|list %}{% for i in range(100000) %}{{ l|list|length }}{% endfor %}"#.to_string(), Lim::Small, Expect::AnyLimit),
        "reverse_loop" => (r#"{% set l = range(100000)|list %}{% for i in range(100000) %}{{ l|reverse|first }}{% endfor %}"#.to_string(), Lim::Small, Expect::AnyLimit),
        "batch_loop" => (r#"{% set l = range(100000)|list %}{% for i in range(100000) %}{{ l|batch(3)|list|length }}{% endfor %}"#.to_string(), Lim::Small, Expect::AnyLimit),
        "slice_loop" => (r#"{% set l = range(100000)|list %}{% for i in range(100000) %}{{ l|slice(3)|list|length }}{% endfor %}"#.to_string(), Lim::Small, Expect::AnyLimit),
        "wordcount_loop" => (r#"{% set s = 'ab' * 1000000 %}{% for i in range(100000) %}{{ s|wordcount }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "nested_loops" => (r#"{% for i in range(100000) %}{% for i in range(100000) %}x{% endfor %}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "nested_loops_silent" => (r#"{% for i in range(100000) %}{% for i in range(100000) %}{% endfor %}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "while_like_recursion" => (r#"{% macro f(n) %}{{ f(n) if n else '' }}{% endmacro %}{{ f(1) }}"#.to_string(), Lim::Small, Expect::Limit("Limit(Depth)")),
        "mutual_recursion" => (r#"{% macro a() %}{{ b() }}{% endmacro %}{% macro b() %}{{ a() }}{% endmacro %}{{ a() }}"#.to_string(), Lim::Small, Expect::Limit("Limit(Depth)")),
        "macro_loop_calls" => (r#"{% macro m(x) %}{{ x|length }}{% endmacro %}{% set l = range(100000)|list %}{% for i in range(100000) %}{{ m(l) }}{% endfor %}"#.to_string(), Lim::Small, Expect::AnyLimit),
        "bigint_pow_loop" => (r#"{% for i in range(100000) %}{{ (7 ** 30000) % 10 }}{% endfor %}"#.to_string(), Lim::Small, Expect::AnyLimit),
        "bigint_str_loop" => (r#"{% set b = 7 ** 30000 %}{% for i in range(100000) %}{{ (b|string)|length }}{% endfor %}"#.to_string(), Lim::Small, Expect::AnyLimit),
        "loop_changed" => (r#"{% set l = range(100000)|list %}{% set m = range(100000)|list %}{% for i in range(100000) %}{{ loop.changed(l if i is even else m) }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Fuel)")),
        "string_compare_chain" => (r#"{% set s = 'ab' * 1000000 %}{% for i in range(10000) %}{{ s < s ~ 'a' < s ~ 'b' }}{% endfor %}"#.to_string(), Lim::Small, Expect::AnyLimit),
        "format_loop" => (r#"{% set s = 'ab' * 1000000 %}{% for i in range(100000) %}{{ '{}'.format(s)|length }}{% endfor %}"#.to_string(), Lim::Small, Expect::AnyLimit),
        "percent_loop" => (r#"{% set s = 'ab' * 1000000 %}{% for i in range(100000) %}{{ ('%s' % s)|length }}{% endfor %}"#.to_string(), Lim::Small, Expect::AnyLimit),
        "center_loop" => (r#"{% for i in range(100000) %}{{ 'a'.center(1000000)|length }}{% endfor %}"#.to_string(), Lim::Small, Expect::AnyLimit),
        "namespace_append_loop" => (r#"{% set ns = namespace(s='') %}{% for i in range(100000) %}{% set ns.s = ns.s ~ 'abcdefgh' %}{% endfor %}{{ ns.s|length }}"#.to_string(), Lim::Small, Expect::AnyLimit),
        "repeat_string_huge" => (r#"{{ ('a' * 60000000)|length }}"#.to_string(), Lim::Small, Expect::Limit("Limit(Output)")),
        "repeat_list_huge" => (r#"{{ ([1] * 60000000)|length }}"#.to_string(), Lim::Small, Expect::Limit("Limit(Output)")),
        "batch_big_string" => (r#"{{ ('a' * 6000000)|batch(1)|list|length }}"#.to_string(), Lim::Small, Expect::Limit("Limit(Output)")),
        "batch_fill_huge" => (r#"{{ [1]|batch(100000000000, 'x')|list|length }}"#.to_string(), Lim::Small, Expect::Limit("Limit(Output)")),
        "slice_huge" => (r#"{{ [1]|slice(100000000000)|list|length }}"#.to_string(), Lim::Small, Expect::Limit("Limit(Output)")),
        "list_of_big_string" => (r#"{{ ('a' * 6000000)|list|length }}"#.to_string(), Lim::Small, Expect::Limit("Limit(Output)")),
        "map_big_string" => (r#"{{ ('a' * 6000000)|map('upper')|list|length }}"#.to_string(), Lim::Small, Expect::Limit("Limit(Output)")),
        "unique_big_string" => (r#"{{ ('ab' * 3000000)|unique|list|length }}"#.to_string(), Lim::Small, Expect::Limit("Limit(Output)")),
        "sort_big_string" => (r#"{{ ('ab' * 3000000)|sort|first }}"#.to_string(), Lim::Small, Expect::Limit("Limit(Output)")),
        "join_big_string_chars" => (r#"{{ ('ab' * 3000000)|join(',')|length }}"#.to_string(), Lim::Small, Expect::Limit("Limit(Output)")),
        "center_huge" => (r#"{{ 'a'.center(100000000000)|length }}"#.to_string(), Lim::Small, Expect::Limit("Limit(Output)")),
        "ljust_huge" => (r#"{{ 'a'.ljust(100000000000)|length }}"#.to_string(), Lim::Small, Expect::Limit("Limit(Output)")),
        "zfill_huge" => (r#"{{ 'a'.zfill(100000000000)|length }}"#.to_string(), Lim::Small, Expect::Limit("Limit(Output)")),
        "format_width_huge" => (r#"{{ '{:100000000000}'.format(1)|length }}"#.to_string(), Lim::Small, Expect::Limit("Limit(Output)")),
        "percent_width_huge" => (r#"{{ ('%100000000000d' % 1)|length }}"#.to_string(), Lim::Small, Expect::Limit("Limit(Output)")),
        "percent_precision_huge" => (r#"{{ ('%.100000000f' % 1.5)|length }}"#.to_string(), Lim::Small, Expect::Limit("Limit(Output)")),
        "format_precision_huge" => (r#"{{ '{:.100000000%}'.format(1)|length }}"#.to_string(), Lim::Small, Expect::Limit("Limit(Output)")),
        "indent_huge" => (r#"{{ 'a
b'|indent(100000000000) }}"#.to_string(), Lim::Small, Expect::Limit("Limit(Output)")),
        "replace_doubling" => (r#"{% set ns = namespace(s='a') %}{% for i in range(100) %}{% set ns.s = ns.s.replace('a', 'aa') %}{% endfor %}{{ ns.s|length }}"#.to_string(), Lim::Small, Expect::Limit("Limit(Output)")),
        "format_doubling" => (r#"{% set ns = namespace(s='a') %}{% for i in range(100) %}{% set ns.s = '{0}{0}'.format(ns.s) %}{% endfor %}{{ ns.s|length }}"#.to_string(), Lim::Small, Expect::Limit("Limit(Output)")),
        "concat_doubling" => (r#"{% set ns = namespace(s='a') %}{% for i in range(100) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s|length }}"#.to_string(), Lim::Small, Expect::Limit("Limit(Output)")),
        "list_doubling" => (r#"{% set ns = namespace(l=[1]) %}{% for i in range(100) %}{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l|length }}"#.to_string(), Lim::Small, Expect::Limit("Limit(Output)")),
        "capture_doubling" => (r#"{% set ns = namespace(s='a') %}{% for i in range(100) %}{% set t %}{{ ns.s }}{{ ns.s }}{% endset %}{% set ns.s = t %}{% endfor %}{{ ns.s|length }}"#.to_string(), Lim::Small, Expect::Limit("Limit(Output)")),
        "output_flood" => (r#"{% for i in range(100000) %}{{ 'abcdefgh' * 1000 }}{% endfor %}"#.to_string(), Lim::Small, Expect::Limit("Limit(Output)")),
        "dict_growth" => (r#"{% set ns = namespace(d={}) %}{% for i in range(100000) %}{% set ns.d = dict(ns.d, **{i|string: i}) %}{% endfor %}{{ ns.d|length }}"#.to_string(), Lim::Small, Expect::AnyLimit),
        "tojson_indent_huge" => (r#"{{ [[1]]|tojson(indent=100000000) }}"#.to_string(), Lim::Small, Expect::Err("Overflow")),
        "wordwrap_huge_width" => (r#"{{ ('a ' * 1000)|wordwrap(100000000000)|length }}"#.to_string(), Lim::Small, Expect::Text(r#"1999"#)),
        "truncate_huge" => (r#"{{ 'abc'|truncate(100000000000) }}"#.to_string(), Lim::Small, Expect::Text(r#"abc"#)),
        "string_list_print" => (r#"{% set l = [range(1000)|list] * 1000 %}{% for i in range(1000) %}{{ l|string|length }}{% endfor %}"#.to_string(), Lim::Small, Expect::AnyLimit),
        "shared_dag_print" => (r#"{% set ns = namespace(l=[1]) %}{% for i in range(40) %}{% set ns.l = [ns.l, ns.l] %}{% endfor %}{{ ns.l }}"#.to_string(), Lim::Small, Expect::AnyLimit),
        "shared_dag_tojson" => (r#"{% set ns = namespace(l=[1]) %}{% for i in range(40) %}{% set ns.l = [ns.l, ns.l] %}{% endfor %}{{ ns.l|tojson }}"#.to_string(), Lim::Small, Expect::AnyLimit),
        "shared_dag_compare" => (r#"{% set ns = namespace(l=[1], m=[1]) %}{% for i in range(40) %}{% set ns.l = [ns.l, ns.l] %}{% set ns.m = [ns.m, ns.m] %}{% endfor %}{{ ns.l == ns.m }}"#.to_string(), Lim::Small, Expect::AnyLimit),
        "range_huge" => (r#"{{ range(100000000000)|length }}"#.to_string(), Lim::Small, Expect::Err("Overflow")),
        "pow_huge" => (r#"{{ 10 ** 1000000 }}"#.to_string(), Lim::Small, Expect::Err("Overflow")),
        "precision_65536" => (r#"{{ ('%.65536f' % 1.5)|length }}"#.to_string(), Lim::Default, Expect::Text(r#"65538"#)),
        "precision_70000_percent" => (r#"{{ '{:.70000%}'.format(1)|length }}"#.to_string(), Lim::Default, Expect::Text(r#"70005"#)),
        "precision_exact_tail" => (r#"{{ ('%.2000f' % 0.1)[-3:] }}"#.to_string(), Lim::Default, Expect::Text(r#"000"#)),
        "precision_exp" => (r#"{{ ('%.3000e' % 1.5)|length }}"#.to_string(), Lim::Default, Expect::Text(r#"3006"#)),
        "small_join" => (r#"{{ range(10)|join(',') }}"#.to_string(), Lim::Small, Expect::Text(r#"0,1,2,3,4,5,6,7,8,9"#)),
        "small_sort" => (r#"{{ [3, 1, 2]|sort|join }}"#.to_string(), Lim::Small, Expect::Text(r#"123"#)),
        "small_unique" => (r#"{{ [1, 1, 2]|unique|join }}"#.to_string(), Lim::Small, Expect::Text(r#"12"#)),
        "small_in" => (r#"{{ 2 in [1, 2] }}"#.to_string(), Lim::Small, Expect::Text(r#"True"#)),
        "big_in_once" => (r#"{% set l = range(100000)|list %}{{ 99999 in l }}"#.to_string(), Lim::Small, Expect::Text(r#"True"#)),
        "big_eq_once" => (r#"{% set l = range(100000)|list %}{% set m = range(100000)|list %}{{ l == m }}"#.to_string(), Lim::Small, Expect::Text(r#"True"#)),
        "big_sort_once" => (r#"{% set l = range(100000)|list %}{{ (l|sort(reverse=true))[0] }}"#.to_string(), Lim::Small, Expect::Text(r#"99999"#)),
        "big_join_once" => (r#"{% set l = range(100000)|list %}{{ l|join|length }}"#.to_string(), Lim::Small, Expect::Text(r#"488890"#)),
        "batch_ok" => (r#"{{ range(7)|batch(3, 'x')|list }}"#.to_string(), Lim::Small, Expect::Text(r#"[[0, 1, 2], [3, 4, 5], [6, 'x', 'x']]"#)),
        "slice_ok" => (r#"{{ range(7)|slice(3)|list }}"#.to_string(), Lim::Small, Expect::Text(r#"[[0, 1, 2], [3, 4], [5, 6]]"#)),
        "sets_40000" => (format!("{}{{{{ v39999 }}}}", sets(40000)), Lim::Default, Expect::Text(r#"39999"#)),
        "macros_20000" => ((0..20000).map(|i| format!("{{% macro m{i}() %}}{i}{{% endmacro %}}")).collect::<String>() + "{{ m19999() }}", Lim::Default, Expect::Text(r#"19999"#)),
        "sets_70000" => (sets(70000), Lim::Default, Expect::Err("Overflow")),
        "loop_sets_40000" => (format!("{{% for i in [1] %}}{}{{{{ v39999 }}}}{{% endfor %}}", sets(40000)), Lim::Default, Expect::Text(r#"39999"#)),
        "source_too_big" => ("x".repeat(1 << 20), Lim::SmallSource, Expect::Limit("Limit(Source)")),
        "nesting_if" => (format!("{}x{}", "{% if true %}".repeat(1000), "{% endif %}".repeat(1000)), Lim::Small, Expect::Limit("Limit(Nesting)")),
        "nesting_brackets" => (format!("{{{{ {}1{} }}}}", "[".repeat(5000), "]".repeat(5000)), Lim::Small, Expect::Limit("Limit(Nesting)")),
        "nesting_parens" => (format!("{{{{ {}1{} }}}}", "(".repeat(5000), ")".repeat(5000)), Lim::Small, Expect::Limit("Limit(Nesting)")),
        "long_line_error" => (format!("{{{{ x.y.z }}}}{}{{{{ 1 +* 2 }}}}", "a".repeat(1_000_000)), Lim::Small, Expect::Err("Syntax")),
        "long_line_runtime_error" => (format!("{}{{{{ none.y.z }}}}", "a".repeat(1_000_000)), Lim::Small, Expect::Err("Undefined")),
        other => panic!("unknown case {other}"),
    }
}

/// The peak resident set of this process, in KiB.
fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// The child side: runs the case named in [`CHILD_ENV`], prints its outcome.
#[test]
fn child_entry() {
    let Ok(name) = std::env::var(CHILD_ENV) else {
        return;
    };
    std::panic::set_hook(Box::new(|_| {}));
    let (source, lim, _) = case(&name);
    let start = Instant::now();
    let result = std::thread::spawn(move || {
        catch_unwind(AssertUnwindSafe(|| {
            Template::with_options(&source, options(lim)).and_then(|t| t.render(&json!({})))
        }))
    })
    .join();
    let ms = start.elapsed().as_millis() as u64;
    let rss = peak_rss_kb();
    let line = match result {
        Ok(Ok(Ok(text))) => json!({"status": "text", "text": text}),
        Ok(Ok(Err(e))) => json!({
            "status": "error",
            "kind": format!("{:?}", e.kind()),
            "display": format!("{e:#}"),
        }),
        _ => json!({"status": "panic"}),
    };
    let mut line = line;
    line["ms"] = ms.into();
    line["rss_kb"] = rss.into();
    println!("\n{MARK}{line}");
}

/// The parent side: runs case `name` in a child process; its result line, or why none.
fn run_case(name: &str) -> Result<Value, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut child = Command::new(exe)
        .args(["child_entry", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, name)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut stdout = child.stdout.take().ok_or("no stdout")?;
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
            break s;
        }
        if start.elapsed() > GUARD {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("HANG: still running after {GUARD:?}"));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let out = reader.join().unwrap_or_default();
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix(MARK))
        .ok_or_else(|| format!("CRASH: the child died ({status}) without a result"))?;
    serde_json::from_str(line).map_err(|e| format!("unreadable result {line}: {e}"))
}

fn check(expect: Expect, r: &Value) -> Result<(), String> {
    let kind = r["kind"].as_str().unwrap_or("");
    let display = r["display"].as_str().unwrap_or("");
    let ok = match (expect, r["status"].as_str()) {
        (Expect::Text(t), Some("text")) => r["text"].as_str() == Some(t),
        (Expect::Limit(k), Some("error")) => kind == k,
        (Expect::AnyLimit, Some("error")) => kind.starts_with("Limit("),
        (Expect::Err(k), Some("error")) => kind == k,
        _ => false,
    };
    if !ok {
        let text: String = r["text"].as_str().unwrap_or("").chars().take(200).collect();
        let display: String = display.chars().take(300).collect();
        return Err(format!(
            "expected {expect:?}, got {} {kind} {display}{text}",
            r["status"]
        ));
    }
    if kind.starts_with("Limit(") {
        // A limit error names its limit, and says where unless it is about the whole source.
        if !display.contains("limit") {
            return Err(format!("limit error without the word limit: {display}"));
        }
        if kind != "Limit(Source)" && !display.contains("line ") {
            return Err(format!("limit error without a location: {display}"));
        }
    }
    // Errors quote at most a window of the source, never a whole long line.
    if display
        .lines()
        .any(|l| l.contains(" | ") && l.chars().count() > 140)
    {
        return Err(format!(
            "error display has a line over 140 characters: {}",
            display.chars().take(300).collect::<String>()
        ));
    }
    Ok(())
}

#[test]
fn hostile_inputs_end_in_limits_or_renders() {
    assert!(CASES.len() >= 100, "{} cases", CASES.len());
    // Two children at a time.
    let mut failures = Vec::new();
    let mut slowest = (0u64, "");
    let mut biggest = (0u64, "");
    for pair in CASES.chunks(2) {
        let handles: Vec<_> = pair
            .iter()
            .map(|name| {
                let name = name.to_string();
                std::thread::spawn(move || run_case(&name))
            })
            .collect();
        for (name, h) in pair.iter().zip(handles) {
            let (_, _, expect) = case(name);
            let result = h
                .join()
                .unwrap_or_else(|_| Err("runner thread panicked".into()));
            let verdict = result.and_then(|r| {
                let ms = r["ms"].as_u64().unwrap_or(0);
                let rss = r["rss_kb"].as_u64().unwrap_or(0);
                if ms > slowest.0 {
                    slowest = (ms, name);
                }
                if rss > biggest.0 {
                    biggest = (rss, name);
                }
                if r["status"] == "panic" {
                    return Err("PANIC".into());
                }
                if rss > MAX_RSS_KB {
                    return Err(format!("peak memory {rss} KiB over {MAX_RSS_KB} KiB"));
                }
                check(expect, &r)
            });
            if let Err(why) = verdict {
                failures.push(format!("{name}: {why}"));
            }
        }
    }
    eprintln!(
        "{} hostile cases; slowest {} ms ({}), peak memory {} KiB ({})",
        CASES.len(),
        slowest.0,
        slowest.1,
        biggest.0,
        biggest.1
    );
    assert!(
        failures.is_empty(),
        "{} of {} hostile cases failed:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}
