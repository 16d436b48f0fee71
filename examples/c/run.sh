#!/usr/bin/env bash
# Builds the C ABI (static and shared library), compiles examples/c/*.c against
# include/chatcodec.h with warnings as errors, links each against both libraries and runs them.
set -euo pipefail
cd "$(dirname "$0")/../.."
CC=${CC:-cc}
cargo build --release -p chatcodec-capi
lib=target/release
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for ex in render parse; do
  $CC -std=c11 -Wall -Wextra -Werror -pedantic -Iinclude -o "$out/$ex-static" "examples/c/$ex.c" \
    "$lib/libchatcodec_c.a" -lpthread -ldl -lm
  $CC -std=c11 -Wall -Wextra -Werror -pedantic -Iinclude -o "$out/$ex-shared" "examples/c/$ex.c" \
    -L"$lib" -lchatcodec_c -Wl,-rpath,"$PWD/$lib"
done
# The header is valid C++ too.
if command -v c++ >/dev/null; then
  echo '#include "chatcodec.h"' | c++ -x c++ -fsyntax-only -Wall -Werror -Iinclude -
fi
for kind in static shared; do
  echo "== render ($kind)"; "$out/render-$kind"
  echo "== parse ($kind)"; "$out/parse-$kind" hermes 3
done
echo "C examples: 4 passed, 0 failed"
