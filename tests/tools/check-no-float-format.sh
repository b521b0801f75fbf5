#!/bin/sh
# check-no-float-format.sh SOURCE_DIR: fail if a string in core/ or wasm/
# holds a printf float conversion (%f, %e, %g, %a, with any flags, width,
# precision or length). The WebAssembly module links an integer-only
# printf (wasm/printf_no_float.c), which refuses such a format: the
# message would be lost. "%-encode" is prose, not a conversion.
set -eu
[ $# -eq 1 ] || { echo "usage: $0 SOURCE_DIR" >&2; exit 2; }
cd "$1"
# "%%" is a percent sign, not a conversion: dropped before looking
found=$(grep -rn --include='*.c' --include='*.h' '%' core wasm | sed 's/%%//g' |
	grep -E "\"[^\"]*%([0-9]+\\\$)?[-+ #0']*([0-9]+|\\*)?(\\.([0-9]+|\\*)?)?(hh|h|ll|l|L|j|z|t)?[fFeEgGaA]" |
	grep -v '%-encod' || true)
if [ -n "$found" ]; then
	echo "check-no-float-format: float conversions in core/ or wasm/ (the module's printf has none):" >&2
	echo "$found" | sed 's/^/  /' >&2
	exit 1
fi
echo "check-no-float-format: no float conversions in core/ or wasm/"
