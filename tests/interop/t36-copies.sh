#!/usr/bin/env bash
# t36-copies: copy detection (-C, -C -C, --find-copies-harder,
# diff.renames=copies) against git's, byte for byte, on repositories
# crafted for copies, one case a commit: a file copied and edited, copied
# twice, copied from a file that is also modified, copied from an
# unmodified file (found only with -C -C), a deleted file used by copies
# and a rename (the last use is the rename), copies near the thresholds
# (-C30%, -C90%), copies across directories, binary files, exact copies
# that compete for one source (same basename first), symlinks, a copy
# that changes mode, names that need quoting, and a commit with more
# candidates than diff.renameLimit (the warnings; -C -C falling back to
# -C's sources). For every commit: diff-tree -r with -C, -C -C,
# --find-copies-harder, -C30%, -C90% in --raw, --name-status, -p, --stat
# and --summary; show -C, -C -C; then log -C / -C -C over the history,
# diff with diff.renames=copies, and the limit's warnings on stderr. Both
# object formats.

. "$(dirname "$0")/lib.sh"
require_webgit

W=$WEBGIT
T=$PWD/tmp-t36 && rm -rf "$T" && mkdir -p "$T"
export GIT_COMMITTER_NAME=T GIT_COMMITTER_EMAIL=t@example.com
export GIT_AUTHOR_NAME=T GIT_AUTHOR_EMAIL=t@example.com
export GIT_COMMITTER_DATE="1690000000 +0000" GIT_AUTHOR_DATE="1690000000 +0000"

# lines FROM TO TAG: numbered lines a file of its own (TAG) is made of
lines() {
	local i
	for ((i = $1; i <= $2; i++)); do
		printf 'line %d of %s: some text to weigh the line\n' "$i" "$3"
	done
}

commit() {
	"$GIT" add -A && "$GIT" commit -q -m "$1"
}

# The history: a base, then one commit per case.
make_history() {
	mkdir -p src lib docs bin assets
	lines 1 60 a >src/a.c
	lines 1 60 b >src/b.c
	lines 1 60 c >src/c.c
	lines 1 60 d >src/d.c
	lines 1 60 e >src/e.c
	lines 1 40 f >src/f.c
	lines 1 80 g >docs/g.txt
	lines 1 30 h >src/h.c
	printf 'bin\0ary %s\n' $(seq 1 300) >assets/blob.bin
	ln -s ../src/a.c bin/link
	lines 1 50 x >bin/tool.sh
	lines 1 20 quoted >"docs/sp ace.txt"
	commit base

	# a file copied and edited
	cp src/a.c lib/a_copy.c
	printf 'one more line\n' >>lib/a_copy.c
	commit "copy edited"

	# copied twice (both edited), the source unchanged
	sed 's/^line 7 of b:.*/changed seven/' src/b.c >lib/b1.c
	sed 's/^line 9 of b:.*/changed nine/' src/b.c >docs/b2.c
	commit "copied twice"

	# copied from a file that is modified in the same commit
	cp src/c.c lib/c.c
	printf 'tail of c\n' >>src/c.c
	sed -i 's/^line 3 of c:.*/head of c/' src/c.c
	commit "copy of a modified file"

	# an unmodified source (only -C -C finds it), and an exact copy of it
	sed 's/^line 1 of d:.*/first/' src/d.c >lib/d_edit.c
	cp src/d.c docs/d.c
	commit "copies of an unmodified file"

	# a deleted source used three times: two copies and a rename
	cp src/e.c lib/e1.c
	sed 's/^line 2 of e:.*/two/' src/e.c >lib/e2.c
	sed 's/^line 5 of e:.*/five/' src/e.c >docs/e3.c
	git rm -q src/e.c
	commit "copies and a rename of one source"

	# near the thresholds: about 40% and 95% of f
	{ lines 1 16 f; lines 17 40 F; } >lib/f40.c
	{ lines 1 38 f; lines 39 40 F; } >lib/f95.c
	printf 'edit\n' >>src/f.c
	commit "copies near the thresholds"

	# across directories, binary, exact copies competing, symlinks, mode
	mkdir -p deep/er
	cp docs/g.txt deep/er/g.txt
	cp docs/g.txt deep/g.txt
	cp assets/blob.bin deep/blob.bin
	printf 'bin\0ary %s\n' $(seq 1 290) >assets/blob2.bin
	printf 'x\n' >>assets/blob.bin
	ln -s ../src/a.c deep/link
	ln -s ../src/a.c bin/link2
	cp bin/tool.sh deep/tool.sh && chmod +x deep/tool.sh
	printf 'x\n' >>bin/tool.sh
	cp "docs/sp ace.txt" "deep/sp ace copy.txt"
	cp src/h.c "deep/ü h.c"
	printf 'x\n' >>src/h.c
	commit "across directories, binary, exact, symlinks, mode, quoting"

	# many candidates for the limit: modified sources and unmodified ones
	local i
	for i in 1 2 3; do
		lines 1 30 "m$i" >"src/m$i.c"
	done
	commit "sources for the limit"
	for i in 1 2 3; do
		printf 'more\n' >>"src/m$i.c"
		{ lines 1 29 "m$i"; printf 'other\n'; } >"lib/m${i}copy.c"
	done
	sed 's/^line 4 of g:.*/g4/' docs/g.txt >lib/g_edit.txt
	git rm -q src/b.c
	commit "over the limit"
}

for FMT in sha1 sha256; do
	R=$T/$FMT
	"$GIT" init -q --object-format=$FMT "$R"
	cd "$R" || exit 1
	git() { "$GIT" "$@"; }
	check "$FMT: make the history" make_history
	unset -f git
	mapfile -t COMMITS < <("$GIT" rev-list --reverse HEAD)
	same() {
		check_same "$FMT: $*" "\"\$GIT\" $*" "\"\$W\" $*"
	}
	# stdout and stderr together (the limit's warnings)
	same_err() {
		check_same "$FMT: $* (with stderr)" "\"\$GIT\" $* 2>&1" "\"\$W\" $* 2>&1"
	}
	for c in "${COMMITS[@]:1}"; do
		for opt in "-C" "-C -C" "--find-copies-harder" "-C30%" "-C90%" "--find-copies=40"; do
			for f in --raw --name-status -p --stat "--stat --summary"; do
				same diff-tree -r $opt $f "$c^" "$c"
			done
		done
		# the last of -M and -C counts; a -C after -C is -C -C
		for opt in "-M -C" "-C -M" "-C -M -C"; do
			same diff-tree -r $opt --name-status "$c^" "$c"
			same diff-tree -r $opt -p "$c^" "$c"
		done
		same show -C "$c"
		same show -C -C --stat --summary "$c"
		same show --find-copies-harder --raw "$c"
	done
	# what the case claims, literally: in path order each use but the
	# last is a copy
	check_output "$FMT: a deleted source's last use is the rename" \
		"$(printf 'C098\tsrc/e.c\tdocs/e3.c\nC100\tsrc/e.c\tlib/e1.c\nR098\tsrc/e.c\tlib/e2.c')" \
		"$W" diff-tree -r -C --name-status "${COMMITS[5]}^" "${COMMITS[5]}"
	same log -C --name-status
	same log -C -C --name-status
	same log --find-copies-harder --stat --summary
	same log -C -p
	same diff -C --stat HEAD~6 HEAD
	same diff -C -C --name-status HEAD~6 HEAD
	same diff -C --name-status HEAD~6 HEAD -- lib src
	same diff-tree -r -C -C --name-status HEAD~6 HEAD -- src/d.c docs
	"$GIT" config diff.renames copies
	same diff --name-status HEAD~6 HEAD
	same diff -C --name-status HEAD~6 HEAD
	same log --name-status
	same diff-tree -r --name-status HEAD~6 HEAD
	same diff --no-renames --name-status HEAD~6 HEAD
	same diff -M --name-status HEAD~6 HEAD
	"$GIT" config --unset diff.renames
	for limit in 1 2 3 4 6; do
		"$GIT" config diff.renameLimit $limit
		same_err diff-tree -r -C --name-status HEAD^ HEAD
		same_err diff-tree -r -C -C --name-status HEAD^ HEAD
		same_err diff -C -C --name-status HEAD^ HEAD
		same_err diff --name-status HEAD~3 HEAD
		same_err log -C -C --name-status
	done
	"$GIT" config --unset diff.renameLimit
	cd "$T" || exit 1
done
