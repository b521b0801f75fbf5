#!/usr/bin/env bash
# t28-add-rm-mv: webgit add, rm and mv do to the index and the working
# tree what git does, with git's stdout, stderr and exit codes, in both
# object formats and both ref formats. Each scenario runs once with git
# and once with webgit, each in its own copy of one git-made repository;
# then the results are compared: what the commands printed and returned,
# `git ls-files -s`, `git status --porcelain=v2`, `git diff --cached
# --raw`, `git diff-files --raw` (stat data filled: nothing shows as
# changed that is not), the working tree's listing, and `git fsck
# --strict` on the result. Covered: new, modified and deleted files with
# add -A / add . / add <dir> / add -u / add --no-all, globs, ignored files
# with and without -f, -n and -v, the executable bit (and core.fileMode
# false), symbolic links, CRLF with text=auto and core.autocrlf=true
# (with git's safecrlf warnings), a nested repository (gitlink, git's
# embedded-repository warning), -N, names that need quoting, a pathspec
# matching nothing, running from a subdirectory; rm of modified and
# staged files (refused), rm --cached, -r, -f, -n, -q; mv of a file, a
# directory, into a directory, onto an existing file (refused, -f), -k,
# -n, and every refusal's message.

. "$(dirname "$0")/lib.sh"
require_webgit

W=$WEBGIT
T=$PWD/tmp-t28 && rm -rf "$T" && mkdir -p "$T"
export GIT_COMMITTER_DATE="1700000000 +0000" GIT_AUTHOR_DATE="1700000000 +0000"
export GIT_COMMITTER_NAME=T GIT_COMMITTER_EMAIL=t@example.com
export GIT_AUTHOR_NAME=T GIT_AUTHOR_EMAIL=t@example.com

# state DIR: what a scenario left behind, as git sees it
state() {
	(
		cd "$1" || exit 1
		echo "## ls-files -s"; "$GIT" ls-files -s
		echo "## status"; "$GIT" status --porcelain=v2 -uall
		echo "## diff --cached"; "$GIT" diff --cached --raw
		echo "## diff-files"; "$GIT" diff-files --raw
		echo "## tree"; tree_listing . ./sub/.git
		echo "## fsck"; "$GIT" fsck --strict --no-progress --no-dangling 2>&1
		# a cache tree left valid over a changed path would write a stale tree
		echo "## write-tree"; "$GIT" write-tree 2>&1
	)
}

# run TOOL NAME SCRIPT: SCRIPT in a fresh copy of the base repository with
# $X naming the tool; stdout, stderr, exit codes and state into files
run() {
	local tool=$1 name=$2 script=$3 d=$T/$2-$(basename "$1")
	rm -rf "$d" && cp -a "$BASE" "$d"
	(
		cd "$d" || exit 1
		X=$tool
		eval "$script"
	) >"$d.out" 2>"$d.err"
	# messages that name the copy's directory name it alike
	sed -i "s|$d|TOP|g" "$d.out" "$d.err"
	state "$d" >"$d.state"
	printf '%s\n' "$d"
}

# scenario NAME SCRIPT: git and webgit do the same, with the same results
scenario() {
	local g w
	g=$(run "$GIT" "$1" "$2")
	w=$(run "$W" "$1" "$2")
	check_same "$C $1: stdout and exit codes" "cat '$g.out'" "cat '$w.out'"
	check_same "$C $1: stderr" "cat '$g.err'" "cat '$w.err'"
	check_same "$C $1: index, status, working tree, fsck" "cat '$g.state'" "cat '$w.state'"
}

for combo in sha1:files sha256:reftable; do
	FMT=${combo%%:*} REFS=${combo#*:}
	C="$FMT/$REFS"
	BASE=$T/base-$FMT
	"$GIT" init -q -b main --object-format="$FMT" --ref-format="$REFS" "$BASE"
	(
		cd "$BASE" || exit 1
		mkdir -p dir/sub build deep/er/est
		for f in a b c "sp ace" "q\"uote" "$(printf 'na\303\257ve')" tab; do echo "$f" >"$f"; done
		echo x >dir/x && echo y >dir/sub/y && echo z >deep/er/est/z && echo m >main.c
		echo exe >run.sh && chmod +x run.sh
		ln -s a link
		printf '*.o\nbuild/\n' >.gitignore
		printf 'one\r\ntwo\r\n' >crlf.txt
		"$GIT" add -A && "$GIT" commit -qm one
		# the working tree as a user leaves it
		echo more >>a && echo more >>dir/x
		rm b
		chmod -x run.sh
		echo new >new.c && mkdir -p newdir/in && echo n >newdir/in/n.c && echo t >newdir/t.txt
		echo obj >x.o && echo obj >dir/y.o && echo out >build/out
		printf 'lf\nonly\n' >lf.txt && printf 'cr\r\nlf\r\n' >crlf-new.txt
		printf 'bin\0\r\n' >bin.dat
		ln -s dir newlink
		echo q >"new \"quoted\" $(printf '\303\251')"
		"$GIT" init -q --object-format="$FMT" sub && (cd sub && echo s >s && "$GIT" add s && "$GIT" commit -qm s)
	)

	# --- add ---------------------------------------------------------------
	scenario "add nothing" '$X add; echo "rc=$?"'
	scenario "add ." '$X add .; echo "rc=$?"'
	scenario "add -A -v" '$X add -A -v; echo "rc=$?"'
	scenario "add -u -v" '$X add -u -v; echo "rc=$?"'
	scenario "add --no-all -v ." '$X add --no-all -v .; echo "rc=$?"'
	scenario "add -n ." '$X add -n .; echo "rc=$?"'
	scenario "add dir" '$X add -v dir newdir; echo "rc=$?"'
	scenario "add deleted path" '$X add -v b; echo "rc=$?"'
	scenario "add glob" '$X add -v "*.c"; echo "rc=$?"; $X add -v "newdir/*"; echo "rc=$?"'
	scenario "add glob ignored" '$X add "*.o"; echo "rc=$?"'
	scenario "add ignored named" '$X add -v x.o new.c; echo "rc=$?"; $X add build/out; echo "rc=$?"; $X add build; echo "rc=$?"'
	scenario "add -f ignored" '$X add -f -v x.o build dir/y.o; echo "rc=$?"'
	scenario "add no match" '$X add -v new.c nothere; echo "rc=$?"; $X add -u new.c; echo "rc=$?"; $X add -u nothere; echo "rc=$?"'
	scenario "add -A and -u" '$X add -A -u; echo "rc=$?"'
	scenario "add filemode false" '"$GIT" config core.filemode false; $X add -v run.sh a; echo "rc=$?"'
	# without core.symlinks a link on disk is still a link (ce_mode_from_stat),
	# also where it replaces a tracked file
	scenario "add symlinks false, a link over a file" '"$GIT" config core.symlinks false; rm c && ln -s a c; $X add -v c newlink; echo "rc=$?"'
	scenario "add links" '$X add -v newlink link; echo "rc=$?"; $X add newlink/x; echo "rc=$?"; $X add -v "newlink/*"; echo "rc=$?"'
	scenario "add crlf text=auto" 'echo "*.txt text=auto" >.gitattributes; $X add -v .gitattributes lf.txt crlf-new.txt crlf.txt; echo "rc=$?"'
	scenario "add autocrlf" '"$GIT" config core.autocrlf true; $X add -v .; echo "rc=$?"'
	scenario "add autocrlf input" '"$GIT" config core.autocrlf input; $X add -v crlf-new.txt lf.txt bin.dat; echo "rc=$?"'
	scenario "add nested repo" '$X add -v sub; echo "rc=$?"; $X add -v sub; echo "rc=$?"; $X add sub/s; echo "rc=$?"; $X add -v sub/; echo "rc=$?"'
	scenario "add nested repo without a commit" '"$GIT" init -q --object-format="'"$FMT"'" e && echo x >e/x && $X add -v e; echo "rc=$?"; $X add -v main.c; echo "rc=$?"'
	scenario "add without advice" '"$GIT" config advice.addEmbeddedRepo false && "$GIT" config advice.addIgnoredFile false && $X add sub x.o; echo "rc=$?"; $X add; echo "rc=$?"'
	scenario "add -N" '$X add -N -v new.c newdir a; echo "rc=$?"; $X add -v new.c; echo "rc=$?"'
	scenario "add quoted names" '$X add -v new*; echo "rc=$?"'
	scenario "add from subdir" 'cd newdir && $X add -v in ../a ./t.txt; echo "rc=$?"; $X add ../../x; echo "rc=$?"'
	scenario "add file over dir" 'rm -r dir && echo f >dir && $X add -v dir; echo "rc=$?"'
	scenario "add dir over file" 'rm a && mkdir a && echo in >a/in && $X add -v a; echo "rc=$?"'
	scenario "add top pathspec" 'cd newdir && $X add -v :/main.c ":(top)c"; echo "rc=$?"'

	# a conflict in the index: stages 1-3 for c
	CONFLICT='h=$("$GIT" rev-parse HEAD:c) && o=$("$GIT" rev-parse HEAD:a) &&
		"$GIT" update-index --force-remove c &&
		printf "100644 %s 1\tc\n100644 %s 2\tc\n100644 %s 3\tc\n" $h $o $h |
		"$GIT" update-index --index-info'
	scenario "add resolves a conflict" "$CONFLICT"'; $X add -v c; echo "rc=$?"'
	scenario "add -u with a conflict" "$CONFLICT"'; rm c; $X add -u -v; echo "rc=$?"'
	scenario "add -u from subdir" 'cd dir && $X add -u -v; echo "rc=$?"; $X add -A -v; echo "rc=$?"'
	scenario "add after -N" '$X add -N new.c && echo more >>new.c && $X add -u -v; echo "rc=$?"'

	# --- rm ----------------------------------------------------------------
	scenario "rm clean" '$X rm c "sp ace"; echo "rc=$?"'
	scenario "rm modified" '$X rm a; echo "rc=$?"; $X rm a dir/x; echo "rc=$?"'
	scenario "rm staged" 'echo s >>c && "$GIT" add c && $X rm c; echo "rc=$?"; $X rm --cached c; echo "rc=$?"'
	scenario "rm staged and modified" 'echo s >>c && "$GIT" add c && echo t >>c && $X rm c; echo "rc=$?"; $X rm --cached c; echo "rc=$?"; $X rm -f c; echo "rc=$?"'
	scenario "rm --cached" '$X rm --cached a c; echo "rc=$?"'
	scenario "rm dir" '$X rm dir; echo "rc=$?"; $X rm -r -n dir; echo "rc=$?"; $X rm -r -q deep; echo "rc=$?"'
	scenario "rm dir modified" '$X rm -r dir; echo "rc=$?"; $X rm -rf dir; echo "rc=$?"'
	scenario "rm deleted" '$X rm b; echo "rc=$?"'
	scenario "rm no match" '$X rm nothere; echo "rc=$?"; $X rm; echo "rc=$?"; $X rm new.c; echo "rc=$?"'
	scenario "rm glob" '$X rm "*.c"; echo "rc=$?"; $X rm -r "d*"; echo "rc=$?"'
	scenario "rm new file" '"$GIT" add new.c && $X rm new.c; echo "rc=$?"; $X rm --cached new.c; echo "rc=$?"'
	scenario "rm link" '$X rm link; echo "rc=$?"'

	scenario "rm a conflict" "$CONFLICT"'; $X rm c; echo "rc=$?"'
	scenario "rm --cached a conflict" "$CONFLICT"'; $X rm --cached c; echo "rc=$?"'

	# --- mv ----------------------------------------------------------------
	scenario "mv file" '$X mv c c2; echo "rc=$?"; $X mv -v "sp ace" dir; echo "rc=$?"'
	scenario "mv dir" '$X mv -v deep/er other; echo "rc=$?"; $X mv dir deep; echo "rc=$?"'
	scenario "mv into dir" '$X mv -v c main.c link deep/er; echo "rc=$?"'
	scenario "mv onto file" '$X mv c main.c; echo "rc=$?"; $X mv -f -v c main.c; echo "rc=$?"'
	scenario "mv modified" '$X mv a a2; echo "rc=$?"'
	scenario "mv refusals" '$X mv nothere x; echo "rc=$?"; $X mv new.c x; echo "rc=$?"; $X mv c nodir/; echo "rc=$?"; $X mv c main.c deep/er/est/z; echo "rc=$?"; $X mv deep deep/er; echo "rc=$?"; $X mv dir deep; $X mv dir deep; echo "rc=$?"; $X mv newdir x; echo "rc=$?"; $X mv c 2>/dev/null; echo "rc=$?"; $X mv c dir/x; echo "rc=$?"'
	scenario "mv -k" '$X mv -k -v nothere c new.c deep; echo "rc=$?"'
	scenario "mv -n" '$X mv -n dir c deep; echo "rc=$?"'
	scenario "mv dir and child" '$X mv dir dir/x deep; echo "rc=$?"'
	scenario "mv missing file" 'rm c; $X mv c c2; echo "rc=$?"'
	scenario "mv a conflict" "$CONFLICT"'; $X mv c c2; echo "rc=$?"'
	scenario "mv keeps stat data" '$X mv c c2 && "$GIT" diff-files --raw c2; echo "rc=$?"; $X mv dir d2 && "$GIT" diff-files --raw d2; echo "rc=$?"'
	scenario "mv over dir" '$X mv -f c dir; echo "rc=$?"; ls dir'
done

wg__finish
