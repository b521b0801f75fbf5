#!/usr/bin/env bash
# t43-combined-diff: the diffs of merges against git's, byte for byte:
# show's combined diff (--cc, its default, and -c) with hand-made merge
# results (commit-tree over a tree written by hand): conflicts resolved
# with lines from both sides and lines from neither (evil merges), a file
# changed on one side only (not shown), a file deleted and one added in
# the merge, a mode change, a binary file, files without a final newline,
# a rename on one side, a name that needs quoting, an octopus and a
# merge whose result is one parent's; with --stat, --numstat, --summary,
# --raw, --name-only, --name-status, -U0/-U1, --oneline,
# --combined-all-paths; diff-tree -c, --cc and -m. Then log's merge
# modes: none by default, -c and --cc, --first-parent (the first
# parent's diff), -m (a diff against each parent, "(from <parent>)" in
# its header), --diff-merges=<mode>, log.diffMerges for -m, and
# --name-status -p (the names only). Both object formats.

. "$(dirname "$0")/lib.sh"
require_webgit

W=$WEBGIT
T=$PWD/tmp-t43 && rm -rf "$T" && mkdir -p "$T"
export GIT_COMMITTER_NAME=T GIT_COMMITTER_EMAIL=t@example.com
export GIT_AUTHOR_NAME=T GIT_AUTHOR_EMAIL=t@example.com

g() { "$GIT" "$@"; }
func() { # name lines tag: a C function
	printf 'int %s(int x)\n{\n' "$1"
	for i in $(seq 1 "$2"); do printf '\tx += %d; /* %s */\n' "$i" "$3"; done
	printf '\treturn x;\n}\n\n'
}
commit() { g add -A && g commit -q -m "$1"; }
# the working tree as a merge of HEAD and the commits given
mergeit() {
	local msg=$1 t c p=(-p HEAD)
	shift
	g add -A
	t=$(g write-tree)
	for c in "$@"; do p+=(-p "$c"); done
	c=$(printf '%s\n' "$msg" | g commit-tree "$t" "${p[@]}")
	g reset -q --hard "$c"
}
generate() {
	{ func alpha 6 base; func beta 8 base; func gamma 5 base; } >a.c
	printf '%s\n' one two three four five six seven eight nine ten >b.txt
	printf 'left alone\n' >only.txt
	printf 'bin\0ary\n' >bin.dat
	printf 'to be deleted\nline 2\n' >del.txt
	printf '#!/bin/sh\necho hi\n' >run.sh
	printf 'no newline' >nonl.txt
	printf 'keep\n' >same.txt
	commit base
	g branch o1 && g branch o2 && g checkout -q -b side
	{ func alpha 6 base; func beta 8 side; func gamma 5 base; } >a.c
	sed -i 's/three/THREE side/; s/nine/nine side/' b.txt
	printf 'changed on side only\n' >only.txt
	printf 'bin\0ary side\n' >bin.dat
	printf 'no newline side' >nonl.txt
	printf 'to be deleted\nline 2 side\n' >del.txt
	commit side
	g checkout -q main
	{ func alpha 6 main; func beta 8 base; func gamma 5 base; } >a.c
	sed -i 's/three/THREE main/; s/seven/seven main/' b.txt
	printf 'no newline main' >nonl.txt
	commit main1
	# conflicts resolved by hand, an evil line, a deletion, a mode
	# change, a binary file, a new file
	{ func alpha 6 main; func beta 8 side; echo '/* evil */'; func gamma 5 base; } >a.c
	sed -i 's/three/THREE both/; s/nine/nine side/' b.txt
	printf 'changed on side only\n' >only.txt
	printf 'bin\0ary merged\n' >bin.dat
	rm del.txt
	chmod +x run.sh
	printf 'no newline merged' >nonl.txt
	printf 'new in merge\n' >new.txt
	mergeit "merge side" side
	# a merge that takes each side's change as it is
	g checkout -q -b m2 main~1 && printf 'x\n' >c.txt && commit m2c
	g checkout -q main && g show m2:c.txt >c.txt && mergeit "merge m2 (clean)" m2
	# an octopus, with a change of its own
	g checkout -q o1 && sed -i 's/one/one o1/' b.txt && printf 'o1\n' >o1.txt && commit o1
	g checkout -q o2 && sed -i 's/ten/ten o2/' b.txt && printf 'o2\n' >o1.txt && commit o2
	g checkout -q main
	sed -i 's/one/one o1/; s/ten/ten octo/; s/five/five evil/' b.txt
	printf 'o1 and o2\n' >o1.txt
	mergeit "octopus" o1 o2
	# lines kept from one side and added
	g checkout -q -b s3 main~1 && printf 'line\n' >>same.txt && commit s3
	g checkout -q main && printf 'keep\nline\nmerged\n' >same.txt && mergeit "merge s3" s3
	# a rename on one side, an edit on the other, a quoted name, a
	# symlink that became a file on one side
	g checkout -q -b s5 main
	printf '%s\n' r1 r2 r3 r4 r5 r6 >r.txt && printf 'q\n' >"q ü.txt" && ln -s only.txt link
	commit s5base
	g checkout -q -b s5side && g mv r.txt r2.txt && printf 'q side\n' >"q ü.txt" && commit s5side
	g checkout -q s5
	sed -i 's/r2/r2 main/' r.txt && printf 'q main\n' >"q ü.txt"
	rm link && printf 'now a file\n' >link && commit s5main
	g rm -q r.txt && printf '%s\n' r1 'r2 main' r3 'r4 evil' r5 r6 >r2.txt
	printf 'q both\n' >"q ü.txt"
	mergeit "merge s5side" s5side
	# a merge whose result is its first parent's
	g checkout -q main && mergeit "merge s5 (ours)" s5
}

for FMT in sha1 sha256; do
	R=$T/$FMT
	"$GIT" init -q -b main --object-format=$FMT "$R"
	cd "$R" || exit 1
	export GIT_COMMITTER_DATE="1690000000 +0000" GIT_AUTHOR_DATE="1690000000 +0000"
	check "$FMT: generate the merges" generate
	same() {
		check_same "$FMT: $*" "\"\$GIT\" $*" "\"\$W\" $*"
	}
	while read -r m subject; do
		opts=("" "-c" "--stat -p" "--numstat --summary" "-c --raw" "--name-status" "-U0" "-c -U1")
		# the merges that took their parents' lines have no combined diff
		case $subject in *clean* | *ours*) opts=("" "-c --raw") ;; esac
		for o in "${opts[@]}"; do
			# shellcheck disable=SC2086
			same show $o "$m"
		done
	done < <("$GIT" log --merges --format="%H %s")
	same show --first-parent HEAD~1
	same show --oneline --raw -p HEAD~2
	same show --name-only HEAD~2
	same show --diff-merges=off HEAD~1
	same show --name-status -p HEAD~1
	same show -m HEAD~1 HEAD~3
	same show -m -s --abbrev-commit HEAD~3
	same show --cc --combined-all-paths --raw -p HEAD^2
	same log -c --combined-all-paths --name-status
	same diff-tree -c HEAD^2
	same diff-tree --cc --stat HEAD~2
	same diff-tree -m -p HEAD~3
	check_same "$FMT: --combined-all-paths without -c: git's message" \
		'"$GIT" show --combined-all-paths HEAD 2>&1 >/dev/null; echo $?' \
		'"$W" show --combined-all-paths HEAD 2>&1 >/dev/null; echo $?'
	for o in "-p" "--cc" "-c --stat" "-p --cc" "--first-parent -p" "--first-parent --stat" \
		"--diff-merges=first-parent" "--diff-merges=combined --raw" "--name-status -p" \
		"--cc --name-status" "--dd" "-m" "-p --no-diff-merges" "--cc -- b.txt nonl.txt" \
		"-m -p" "-m --stat --oneline" "--diff-merges=separate --raw"; do
		# shellcheck disable=SC2086
		same log $o
	done
	"$GIT" config log.diffMerges first-parent
	same log -m -p -3
	"$GIT" config --unset log.diffMerges
	cd "$T" || exit 1
done
