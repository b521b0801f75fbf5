#!/usr/bin/env bash
# t20-crash-safety: after any single failure of the disk, a repository is
# exactly as before the operation or exactly as after it, never half-written.
#
# For each operation (init in both ref formats, clone over HTTP, fetch, the
# local updates of a push, ref transactions on the files and the reftable
# backend, pack-refs and reftable compaction) the test runs it once under
# WEBGIT_TEST_FS_FAULT=count to number its cut points (every call that
# changes the disk: open for writing, write, fsync, close, rename, link,
# unlink, mkdir, rmdir, chmod, mkstemp), then once per cut point k from the
# same starting state, with the k-th call failing:
#
#   eio     the call fails with EIO;
#   enospc  (writes only) half of the bytes reach the file, then ENOSPC;
#   exit    the process stops there, as if killed.
#
# After each run the directory is compared with the states before and after
# a clean run: each file's path, content and executable bit (the reftable
# tables' random name suffix aside). Temporary files git ignores and prunes
# (objects/**/tmp_*, reftable tmp_*) and empty directories are not part of
# a repository's state and are not compared. Under eio/enospc it must be
# before or after; a run that reports success must be "after", and a run
# that fails must say why on stderr. Under exit, where nothing can clean up,
# a lock file left behind is allowed too (git's own rule: the next command
# refuses with "remove the file manually"), and nothing else.
# git fsck --strict is clean in both reference states.

. "$(dirname "$0")/lib.sh"
require_webgit
. "$(dirname "$0")/http_lib.sh"

W=$WEBGIT
export GIT_COMMITTER_DATE="1700000000 +0000" GIT_AUTHOR_DATE="1700000000 +0000"
export GIT_COMMITTER_NAME=T GIT_COMMITTER_EMAIL=t@example.com
export GIT_AUTHOR_NAME=T GIT_AUTHOR_EMAIL=t@example.com

# snapshot DIR: the state of a directory, one line per file. A reftable
# stack is compared by what it holds (refs and reflogs, as git reads them),
# not by its tables' bytes: their names are random, and a compaction that
# fails after a transaction committed leaves the same refs in more tables.
# With REFS_BY_VALUE=1 (pack-refs of the files backend, which moves refs
# between files without changing one) loose and packed refs are compared
# the same way.
snapshot() {
	[ -e "$1" ] || { echo "(absent)"; return 0; }
	(
		cd "$1" || exit 1
		local by_value=()
		[ -n "${REFS_BY_VALUE:-}" ] && by_value=(! -path './refs/*' ! -path './.git/refs/*'
			! -name packed-refs)
		find . -path '*.webgit-tmp-*' -prune -o -type f ! -name 'tmp_*' ! -name '*.lock' \
			! -path '*/reftable/*' ! -path ./.git/index "${by_value[@]}" -print0 |
			sort -z | xargs -0 -r sha1sum
		# an index by its entries: its stat data differs from run to run
		if [ -f .git/index ]; then
			local sum
			sum=$("$GIT" ls-files -s | sha1sum)
			printf '%s  ./.git/index\n' "${sum:0:40}"
		fi
		# lock files, staging directories, links, executable files: one
		# find (this runs after every cut point)
		find . -name '*.webgit-tmp-*' -prune -printf '%p STAGED\n' \
			-o -type f -name '*.lock' -printf '%p LOCK\n' \
			-o -type l -printf '%p -> %l\n' \
			-o -type f -perm -u+x ! -name 'tmp_*' -printf '%p +x\n' | LC_ALL=C sort
		for t in reftable/tables.list .git/reftable/tables.list; do
			[ -f "$t" ] || [ -n "${REFS_BY_VALUE:-}" ] || continue
			[ -f "${t%reftable/tables.list}HEAD" ] || continue
			"$GIT" -C "${t%reftable/tables.list}." for-each-ref --include-root-refs \
				--format='ref %(refname) %(objectname) %(symref)' 2>&1
			"$GIT" -C "${t%reftable/tables.list}." reflog list 2>&1 |
				xargs -r "$GIT" -C "${t%reftable/tables.list}." log -g --format='log %gD %H %gs' 2>&1
		done
	)
}

# the_same A B: state B is reference state A. A failed unlink of a lock file
# leaves the lock (nothing can take it away), and so does a process that
# stops (git's own rule: the next command says "remove the file manually"),
# which may also leave the directory a new repository was being built in
# ("<final>.webgit-tmp-XXXXXX", util/staged_dir.h);
# after a stop, objects written before it are allowed too, when no ref
# names them (garbage that git gc prunes).
# (After a stop, in one awk: the lines of A but objects, in order, are
# those of B but objects, locks and staging directories, and every object
# line of A is in B. This runs once or twice per cut point.)
the_same() {
	if [ "$action" = exit ]; then
		awk '
		BEGIN { na = nb = 0 }
		FILENAME == ARGV[1] && index($0, "/objects/") { obj[$0] = 1; next }
		FILENAME == ARGV[1] { a[na++] = $0; next }
		index($0, "/objects/") { delete obj[$0]; next }
		/ LOCK$| STAGED$/ { next }
		{ if (nb >= na || a[nb] != $0) diff = 1; nb++ }
		END {
			if (diff || nb != na) exit 1
			for (k in obj) exit 1
		}' "$1" "$2"
	elif [ "$cut_op" = unlink ]; then
		cmp -s "$1" <(grep -v ' LOCK$' "$2")
	else
		cmp -s "$1" "$2"
	fi
}

# whole_files BEFORE AFTER STATE: every file of STATE is whole, as it is
# in BEFORE or in AFTER (or absent as in one of them); lock files, a
# staging directory and new objects aside (allowed after a kill).
whole_files() {
	awk '
	FNR == 1 { f++ }  # (each input starts with "#start": an empty state counts too)
	/ LOCK$| STAGED$|^#start$/ { next }
	{
		if ($NF == "+x") { k = "x " $1; v = 1 }
		else if ($2 == "->") { k = "l " $1; v = $3 }
		else if ($1 == "(absent)") { k = "(absent)"; v = 1 }
		else { k = $2; v = $1 }
		if (f == 3 && k ~ /\/objects\// && !((1, k) in val) && !((2, k) in val)) next
		val[f, k] = v; keys[k] = 1
	}
	END {
		for (k in keys) {
			s = ((3, k) in val) ? val[3, k] : ""
			b = ((1, k) in val) ? val[1, k] : ""
			a = ((2, k) in val) ? val[2, k] : ""
			if (s != b && s != a) { print "# torn or foreign: " k; bad = 1 }
		}
		exit bad
	}' <(echo '#start'; cat "$1") <(echo '#start'; cat "$2") <(echo '#start'; cat "$3")
}

# has_staged: a staging directory "$target.webgit-tmp-*" exists (a glob
# in the shell: no rm or ls process at every cut point when there is none)
has_staged() { compgen -G "$target.webgit-tmp-*" >/dev/null; }

# crash_walk NAME TARGET SETUP CMD...: walk every cut point of CMD (run in
# the current directory) on the state SETUP makes in TARGET; one assertion
# per action.
crash_walk() {
	local name=$1 target=$2 setup=$3 n k bad tried spec t0=$SECONDS
	shift 3
	$setup
	snapshot "$target" >"$T/before"
	rm -f "$T/trace"
	if ! WEBGIT_TEST_FS_FAULT=count WEBGIT_TEST_FS_TRACE="$T/trace" "$@" >"$T/out" 2>"$T/err"; then
		wg__not_ok "$name: a clean run"
		wg__show_run "$(wg__cmdtext "$@")" 1 "$T/err"
		return
	fi
	snapshot "$target" >"$T/after"
	# (a compaction changes no ref: its before and after are one state)
	if { cmp -s "$T/before" "$T/after" && [ -z "${SAME_STATE:-}" ]; } ||
		grep -q ' LOCK$' "$T/after"; then
		wg__not_ok "$name: a clean run changes the state and leaves no lock"
		return
	fi
	if [ -e "$target/HEAD" ] || [ -e "$target/.git" ]; then
		check "$name: git fsck --strict after a clean run" \
			"$GIT" -C "$target" fsck --strict --no-dangling
	fi
	local cuts=()
	mapfile -t cuts <"$T/trace"
	n=${#cuts[@]}
	for action in ${ACTIONS:-eio enospc exit}; do
		bad=0 tried=0 mixed=0
		for k in $(seq 1 "$n"); do
			# ENOSPC differs from EIO only where bytes are written.
			if [ $action = enospc ] && ! [[ "${cuts[k - 1]}" =~ \ p?write\  ]]; then
				continue
			fi
			tried=$((tried + 1))
			cut_op=${cuts[k - 1]#* } cut_op=${cut_op%% *}  # "<n> <call> <path>"
			$setup
			! has_staged || rm -rf "$target".webgit-tmp-*
			spec=$k:$action
			local rc=0
			WEBGIT_TEST_FS_FAULT=$spec "$@" >"$T/out" 2>"$T/err" || rc=$?
			snapshot "$target" >"$T/state"
			if [ $action = exit ]; then
				! has_staged || rm -rf "$target".webgit-tmp-*
			elif has_staged; then
				echo "$target.webgit-tmp-* STAGED" >>"$T/state"
			fi
			local why=
			if wg__crashed "$rc" "$T/err"; then
				why="crashed"
			elif the_same "$T/before" "$T/state"; then
				[ $rc = 0 ] && [ -z "${SAME_STATE:-}" ] && why="reported success but changed nothing"
			elif the_same "$T/after" "$T/state"; then
				:
			elif { { [ $action = exit ] && [ -n "${FILES_FORMAT:-}" ]; } || [ -n "${MIX:-}" ]; } &&
				whole_files "$T/before" "$T/after" "$T/state" >"$T/torn"; then
				mixed=$((mixed + 1))
			else
				why="left a state that is neither before nor after"
			fi
			if [ -z "$why" ] && [ $rc != 0 ] && [ $action != exit ] && ! [ -s "$T/err" ]; then
				why="failed without a message"
			fi
			if [ -n "$why" ]; then
				bad=$((bad + 1))
				if [ $bad -le 3 ]; then
					echo "# $name: cut $spec (${cuts[k - 1]}): $why (exit $rc)"
					diff "$T/after" "$T/state" | head -8 | wg__diag
					tail -n 3 "$T/err" | wg__diag
				fi
			fi
		done
		if [ $bad != 0 ]; then
			wg__not_ok "$name: $action: $bad of $tried cut points left a bad state"
		elif [ $mixed != 0 ]; then
			wg__ok "$name: $action: $((tried - mixed)) of $tried cut points leave the before or after state, $mixed a mix of whole files ($([ -n "${MIX:-}" ] && echo "many files cannot move at once" || echo "the files format's limit"))"
		else
			wg__ok "$name: $action at each of $tried cut points leaves the before or after state"
		fi
	done
	echo "# $name: walked in $((SECONDS - t0)) s"
}

# A killed process cannot undo. Every walk must still leave the before or
# after state, with one exception that the ref format itself imposes: in
# the files format each ref and each reflog is its own file, so a process
# killed between two of their renames or appends leaves some moved and
# others not. git's files backend has the same window, and no journal of
# ours could close it, since git reads the files directly. Those walks
# (FILES_FORMAT=1) accept such a state only as a mix of whole files: every
# file as it was before or as it is after, none torn, none foreign. The
# reftable format commits with one rename and is walked without exception;
# it is webgit's default.

T=$PWD/t
mkdir -p "$T"
# --- init -------------------------------------------------------------------
setup_absent() { rm -rf "$PWD/r"; }
crash_walk "init (files, sha1)" r setup_absent "$W" init -q --ref-format=files --object-format=sha1 r
crash_walk "init (reftable, sha256)" r setup_absent "$W" init -q r
crash_walk "init --bare" r setup_absent "$W" init -q --bare r
# a working tree that exists: init builds .git beside where it goes
setup_worktree() { rm -rf "$PWD/r" && mkdir r && echo keep >r/file; }
crash_walk "init in an existing directory" r setup_worktree "$W" init -q r

# --- a served repository ----------------------------------------------------
mkdir -p srv
"$GIT" init -q --bare -b main srv/a.git
"$GIT" init -q -b main work
for i in 1 2 3; do
	echo "line $i" >>work/f.txt
	"$GIT" -C work add f.txt && "$GIT" -C work commit -q -m "c$i"
done
"$GIT" -C work tag -a -m "tag" v1
"$GIT" -C work push -q ../srv/a.git main v1
start server --root "$PWD/srv"
U=$url/git/a.git

crash_walk "clone" r setup_absent "$W" clone -q "$U" r
# into an existing empty directory, .git is built beside where it goes
# and the files are checked out in place before .git moves in: a kill
# during the checkout leaves whole files and no repository (MIX=1); any
# other failure empties the directory again (the failure paths before the
# checkout are init's, walked above)
setup_empty() { rm -rf "$PWD/r" && mkdir r; }
MIX=1 ACTIONS=exit crash_walk "clone into an empty directory" r setup_empty \
	"$W" clone -q --ref-format=files "$U" r

# a clone one commit behind the server, kept as the template for fetch
"$W" clone -q --ref-format=files "$U" base-files
for i in 4 5; do
	echo "line $i" >>work/f.txt
	"$GIT" -C work commit -q -am "c$i"
done
"$GIT" -C work branch topic HEAD~1
"$GIT" -C work push -q ../srv/a.git main topic
setup_fetch() { rm -rf "$PWD/r" && cp -a base-files r; }
FILES_FORMAT=1 crash_walk "fetch (files)" r setup_fetch "$W" -C r fetch -q origin

# push: the server goes back to its state before each run; the walk
# watches the pushing repository (the remote-tracking refs it updates).
"$GIT" -C srv/a.git config http.receivepack true
cp -a srv/a.git a-saved.git
"$W" clone -q --ref-format=files "$U" push-base
"$W" -C push-base update-ref refs/heads/main \
	"$("$GIT" -C push-base commit-tree -p HEAD -m pushed "HEAD^{tree}")"
setup_push() {
	rm -rf "$PWD/r" srv/a.git && cp -a push-base r && cp -a a-saved.git srv/a.git
}
FILES_FORMAT=1 crash_walk "push (local updates)" r setup_push "$W" -C r push -q origin main

# --- checkout ------------------------------------------------------------------
# A working tree is many files: no operation can replace them all at once,
# and git does not try. What holds (MIX=1): every file, in the working
# tree as in .git, is whole, as before or as after (each is written beside
# its place and renamed there); the index and HEAD move only once every
# file is written.
"$GIT" init -q -b main co-src
(
	cd co-src
	mkdir -p d/e gone
	for i in 1 2 3 4; do echo "file $i" >"f$i"; done
	echo deep >d/e/deep && echo g >gone/g && ln -s f1 link && printf 'a\nb\n' >text.txt
	echo '*.txt eol=crlf' >.gitattributes
	"$GIT" add -A && "$GIT" commit -qm one
	"$GIT" checkout -qb other
	echo changed >f1 && "$GIT" rm -rq gone && rm f2 && mkdir f2 && echo now-dir >f2/x
	ln -sf f3 link && chmod +x f4 && echo new >new && printf 'c\nd\n' >>text.txt
	"$GIT" add -A && "$GIT" commit -qm two
	"$GIT" checkout -q main
)
"$GIT" clone -q --ref-format=files co-src co-base
setup_checkout() { rm -rf "$PWD/r" && cp -a co-base r; }
MIX=1 crash_walk "checkout (files)" r setup_checkout "$W" -C r checkout -q other

# --- ref transactions, pack-refs and compaction -------------------------------
C1=$("$GIT" -C work rev-parse HEAD~1)
C2=$("$GIT" -C work rev-parse HEAD)
for fmt in files reftable; do
	rm -rf "refs-$fmt"
	"$W" init -q --bare --object-format=sha1 --ref-format=$fmt "refs-$fmt"
	"$GIT" -C work push -q "$PWD/refs-$fmt" main topic v1 2>/dev/null ||
		"$GIT" -C work push -q "$PWD/refs-$fmt" main topic v1
	for b in a b c/d; do "$W" -C "refs-$fmt" update-ref "refs/heads/$b" "$C1"; done
	eval "setup_$fmt() { rm -rf \"\$PWD/r\" && cp -a refs-$fmt r; }"
	printf 'update refs/heads/main %s %s\ncreate refs/heads/new %s\ndelete refs/heads/a %s\nupdate refs/heads/c/d %s\n' \
		"$C1" "$C2" "$C1" "$C1" "$C2" >"$T/tx-$fmt"
	FILES_FORMAT=$([ $fmt = files ] && echo 1) crash_walk "ref transaction ($fmt)" r "setup_$fmt" \
		sh -c '"$1" -C r update-ref -m tx --stdin <"$2"' - "$W" "$T/tx-$fmt"
	SAME_STATE=1 REFS_BY_VALUE=$([ $fmt = files ] && echo 1) \
		crash_walk "pack-refs --all ($fmt)" r "setup_$fmt" "$W" -C r pack-refs --all
done
