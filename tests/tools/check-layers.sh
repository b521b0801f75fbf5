#!/bin/sh
# check-layers.sh CC SRCDIR LAYERSDIR: prove that a layer of core/ cannot
# include a layer above it. For every layer L (LAYERSDIR/L is the include
# root CMakeLists.txt made for it) and every layer M of core/, a file that
# includes one of M's headers is compiled against L's root: it must compile
# when M is L or a layer L may use, and fail otherwise. Each layer's every
# header is tried against its own root, so a header that climbs is caught.
# Run by ctest.
set -eu
cc=$1 src=$2 layers=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0 tried=0
for lroot in "$layers"/*/; do
	l=$(basename "$lroot")
	for mdir in "$src"/core/*/; do
		m=$(basename "$mdir")
		want=fails
		[ -e "$lroot/$m" ] && want=compiles
		if [ "$m" = "$l" ]; then
			headers=$(cd "$mdir" && ls *.h 2>/dev/null || true)
		else
			headers=$(cd "$mdir" && ls *.h 2>/dev/null | head -n 1)
		fi
		for h in $headers; do
			printf '#include "%s/%s"\nint wg_check_layers_dummy;\n' "$m" "$h" >"$tmp/t.c"
			tried=$((tried + 1))
			if "$cc" -fsyntax-only -I "$lroot" "$tmp/t.c" 2>"$tmp/err"; then
				got=compiles
			else
				got=fails
			fi
			if [ $got != $want ]; then
				echo "check-layers: $l including $m/$h $got (want: $want)" >&2
				sed 's/^/    /' "$tmp/err" | head -n 3 >&2
				bad=$((bad + 1))
			fi
		done
	done
done
[ $tried -gt 50 ] || { echo "check-layers: only $tried pairs tried" >&2; exit 1; }
[ $bad = 0 ] || exit 1
echo "check-layers: $tried includes tried, each climbing one refused, the others compile"
