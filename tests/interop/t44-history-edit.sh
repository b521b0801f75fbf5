#!/usr/bin/env bash
# t44-history-edit: webgit reword and webgit split against git rebase -i,
# in twin repositories with fixed dates and identities. git has no such
# commands; the same edit made with rebase (a "reword", or an "edit" stop
# that commits the commit's changes in two with `commit -C`) makes the
# same commits, so the branch ends on the same id, byte for byte. Then
# what git cannot compare: a split by hunks (the first commit's file holds
# exactly the hunks taken), a side branch and a detached HEAD carried
# along, the output, and every refusal (published history, a commit on no
# local branch, nothing or everything taken, a bad --hunks, no message,
# usage), each leaving every ref and reflog as it was. git fsck --strict
# after each edit. Both object formats and both ref formats.

. "$(dirname "$0")/lib.sh"
require_webgit

W=$WEBGIT
T=$PWD/tmp-t44 && rm -rf "$T" && mkdir -p "$T"
export GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@example.com

# refs_and_logs DIR: every ref with its value, and every reflog
refs_and_logs() (
	cd "$1" || exit 1
	"$GIT" for-each-ref --format='%(refname) %(objectname)'
	"$GIT" rev-parse HEAD
	for r in HEAD $("$GIT" for-each-ref --format='%(refname)' refs/heads); do
		echo "reflog $r"
		"$GIT" reflog show --format='%H %gs' "$r" --
	done
)

# make DIR FORMAT REFFORMAT: a linear history A..E on main, files a.txt,
# b.txt, c/d.txt; C changes a.txt and b.txt, D changes f.txt in two
# places far apart. Each commit at its own author date.
make() {
	local d=$1 t=1700000000
	"$GIT" init -q -b main --object-format="$2" --ref-format="$3" "$d"
	commit() {
		t=$((t + 100))
		GIT_AUTHOR_DATE="$t +0100" GIT_COMMITTER_DATE="$t +0100" \
			"$GIT" -C "$d" commit -q -m "$1"
	}
	printf 'a\n' >"$d/a.txt"
	printf 'b\n' >"$d/b.txt"
	seq 1 40 >"$d/f.txt"
	"$GIT" -C "$d" add -A && commit "A: start"
	mkdir "$d/c" && printf 'd\n' >"$d/c/d.txt"
	"$GIT" -C "$d" add -A && commit "B: add c/d.txt

With a body."
	printf 'a2\n' >"$d/a.txt"
	printf 'b2\n' >"$d/b.txt"
	"$GIT" -C "$d" add -A && commit "C: change a and b"
	sed -i -e 's/^3$/three/' -e 's/^37$/thirty-seven/' "$d/f.txt"
	"$GIT" -C "$d" add -A && commit "D: two changes to f"
	printf 'e\n' >"$d/e.txt"
	"$GIT" -C "$d" add -A && commit "E: add e"
}

# git's rebase -i, its todo's first line changed by SED
rebase_first() {
	local d=$1 base=$2 sed=$3
	shift 3
	GIT_SEQUENCE_EDITOR="sed -i '$sed'" "$GIT" -C "$d" "$@" rebase -q -i "$base" >/dev/null 2>&1
}

for fmt in "sha1 files" "sha256 reftable"; do
	set -- $fmt
	FMT="$1/$2"
	R=$T/$1-$2
	make "$R.base" "$1" "$2"
	id() { "$GIT" -C "$R.base" rev-parse "$1"; }

	# --- reword, as rebase -i's "reword" makes it --------------------------------
	cp -a "$R.base" "$R.g" && cp -a "$R.base" "$R.w"
	rebase_first "$R.g" "$(id main~4)" '1s/^pick/reword/' \
		-c core.editor="f() { printf 'B: reworded\n\nA new body.\n' >\"\$1\"; }; f"
	# (the edited commit is main~3, B)
	check_output "$FMT: reword prints what it did" "Reworded $(cd "$R.w" && "$W" rev-parse --short main~3) as $(cd "$R.g" && "$GIT" rev-parse --short main~3): B: reworded
Rebased 3 descendant commits
Updated refs/heads/main" \
		bash -c 'cd "$1" && "$2" reword -m "B: reworded" -m "A new body." main~3' _ "$R.w" "$W"
	check_same "$FMT: reword: the branch is where rebase -i puts it" \
		'"$GIT" -C "$R.g" rev-parse main' '"$GIT" -C "$R.w" rev-parse main'
	check_same "$FMT: reword: the edited commit as git writes it" \
		'"$GIT" -C "$R.g" cat-file commit main~3' '"$GIT" -C "$R.w" cat-file commit main~3'
	check_output "$FMT: reword: HEAD's reflog says what happened" "reword: B: reworded" \
		"$GIT" -C "$R.w" reflog show --format=%gs -1 HEAD
	check "$FMT: fsck --strict after reword" "$GIT" -C "$R.w" fsck --strict --no-progress
	check_output "$FMT: reword leaves the working tree and index as they were" "" \
		"$GIT" -C "$R.w" status --porcelain

	# -F, a file message; -q prints nothing
	printf 'C: from a file\n' >"$T/msg"
	check_output "$FMT: reword -q -F" "" bash -c 'cd "$1" && "$2" reword -q -F "$3" main~2' _ "$R.w" "$W" "$T/msg"
	check_output "$FMT: reword -F: the message" "C: from a file" "$GIT" -C "$R.w" log -1 --format=%B main~2

	# --- split by paths, as an "edit" stop committing twice with -C -------------------
	rm -rf "$R.g" "$R.w"
	cp -a "$R.base" "$R.g" && cp -a "$R.base" "$R.w"
	C=$(id main~2)
	rebase_first "$R.g" "$(id main~3)" '1s/^pick/edit/'
	(cd "$R.g" && "$GIT" reset -q HEAD~1 && "$GIT" add a.txt && "$GIT" commit -q -C "$C" &&
		"$GIT" add -A && "$GIT" commit -q -C "$C" && "$GIT" rebase --continue) >/dev/null 2>&1
	check "$FMT: split C -- a.txt" bash -c 'cd "$1" && "$2" split -q main~2 -- a.txt' _ "$R.w" "$W"
	check_same "$FMT: split: the branch is where the rebase puts it" \
		'"$GIT" -C "$R.g" rev-parse main' '"$GIT" -C "$R.w" rev-parse main'
	check_same "$FMT: split: the first commit's files" \
		'"$GIT" -C "$R.g" diff-tree -r --name-status main~3 main~4' \
		'"$GIT" -C "$R.w" diff-tree -r --name-status main~3 main~4'
	check "$FMT: fsck --strict after split" "$GIT" -C "$R.w" fsck --strict --no-progress

	# --- split by hunks: the first commit holds the first change only ------------------
	rm -rf "$R.w" && cp -a "$R.base" "$R.w"
	D=$(id main~1)
	check "$FMT: split D --hunks f.txt:0 with messages" bash -c 'cd "$1/c" && "$2" split -q \
		--first-message "D1: three" -m "D2: thirty-seven" --hunks ../f.txt:0 main~1' _ "$R.w" "$W"
	check_output "$FMT: split by hunks: the first commit's f.txt" "$(seq 1 40 | sed 's/^3$/three/')" \
		"$GIT" -C "$R.w" show main~2:f.txt
	check_same "$FMT: split by hunks: the second commit ends with D's tree" \
		'"$GIT" -C "$R.w" rev-parse main~1^{tree}' "printf '%s\n' \"\$(id $D^{tree})\""
	check_output "$FMT: split by hunks: the messages" "D2: thirty-seven
D1: three
C: change a and b" "$GIT" -C "$R.w" log -3 --format=%s main~1
	check_output "$FMT: split by hunks: the author is D's" "$("$GIT" -C "$R.base" log -1 --format='%an %ae %ad' "$D")
$("$GIT" -C "$R.base" log -1 --format='%an %ae %ad' "$D")" \
		"$GIT" -C "$R.w" log -2 --format='%an %ae %ad' main~1
	check "$FMT: fsck --strict after a split by hunks" "$GIT" -C "$R.w" fsck --strict --no-progress

	# --- a side branch and a detached HEAD come along ---------------------------------
	rm -rf "$R.w" && cp -a "$R.base" "$R.w"
	"$GIT" -C "$R.w" branch side main~1
	"$GIT" -C "$R.w" checkout -q --detach main~2
	check "$FMT: reword B with a side branch and a detached HEAD" \
		bash -c 'cd "$1" && "$2" reword -q -m "B!" main~3' _ "$R.w" "$W"
	check_output "$FMT: both branches and HEAD on the new B" "B!
B!
B!" bash -c 'for r in main~3 side~2 HEAD~1; do "$1" -C "$2" log -1 --format=%s "$r"; done' _ "$GIT" "$R.w"
	check_output "$FMT: the side branch shares main's rewritten commits" "$("$GIT" -C "$R.w" rev-parse main~1)" \
		"$GIT" -C "$R.w" rev-parse side

	# --- refusals: nothing moves --------------------------------------------------------
	rm -rf "$R.w" && cp -a "$R.base" "$R.w"
	"$GIT" -C "$R.w" update-ref refs/remotes/origin/main main~2
	refs_and_logs "$R.w" >"$T/before"
	refused() {
		local desc=$1 want=$2
		shift 2
		check_fail "$FMT: $desc" bash -c 'cd "$1" && shift && "$@"' _ "$R.w" "$W" "$@"
		cp "$LAST_ERR" "$T/err"
		check "$FMT: $desc: says why" grep -q -- "$want" "$T/err"
		check_same "$FMT: $desc: refs and reflogs unchanged" 'cat "$T/before"' 'refs_and_logs "$R.w"'
	}
	refused "reword of published history" "refs/remotes/origin/main" reword -m x main~3
	check "$FMT: published history: the hint names --allow-published" grep -q -- "--allow-published" "$T/err"
	refused "split of published history" "refs/remotes/origin/main" split main~2 -- a.txt
	refused "reword of an unknown commit" "fatal:" reword -m x nosuchref
	refused "reword of a commit on no local branch" "fatal:" reword -m x "$("$GIT" -C "$R.w" commit-tree -m loose main^{tree})"
	refused "reword without a message" "no message" reword main~1
	refused "reword -F of a missing file" "could not read log file" reword -F "$T/no-such-file" main~1
	refused "reword with an empty message" "fatal:" reword -m "" main~1
	refused "split that takes nothing" "fatal:" split main~1
	refused "split that takes everything" "fatal:" split main~1 -- f.txt
	refused "split with a hunk that is not there" "fatal:" split --hunks f.txt:7 main~1
	refused "split with a bad --hunks" "hunks" split --hunks f.txt main~1
	refused "split with a bad hunk number" "hunks" split --hunks f.txt:0,x main~1
	refused "split with a path outside the repository" "outside" split --hunks ../../f.txt:0 main~1
	check_output "$FMT: usage is exit code 129" "129" \
		bash -c 'cd "$1" && "$2" reword --bogus main~1 2>/dev/null; echo $?' _ "$R.w" "$W"
	check "$FMT: --allow-published rewords it" \
		bash -c 'cd "$1" && "$2" reword -q --allow-published -m "B, published" main~3' _ "$R.w" "$W"
	check_output "$FMT: the remote-tracking ref stays" "$(id main~2)" \
		"$GIT" -C "$R.w" rev-parse refs/remotes/origin/main
	check "$FMT: fsck --strict at the end" "$GIT" -C "$R.w" fsck --strict --no-progress
done
