#!/usr/bin/env bash
# t38-dulwich: webgit against a server that is not git: Dulwich's smart-HTTP
# server (Debian's python3-dulwich, tests/server/dulwich-server.py; protocol
# v0 only, no filter, and it refuses a fetch request without "thin-pack",
# which git always sends). Every step is done by git and by webgit against
# the same server and compared:
#
#   - ls-remote (also --heads, --tags, --symref);
#   - clone --mirror, --bare and with a checkout: the same refs, objects,
#     files and config as git's clone; git fsck --strict;
#   - clone --depth 1 and --depth 3 -b <branch>: the same shallow file and
#     history;
#   - clone --filter=blob:none: the server cannot filter, so, as git
#     prescribes, a warning and a whole clone (git's own clone fails here:
#     it still asks Dulwich for the filter, which answers 500);
#   - fetch --prune after the server moved, added, force-moved and deleted
#     branches and tags (a thin pack against what the clone has): the same
#     refs and objects as git's fetch; Dulwich does not include the new
#     annotated tag, so the tag is asked for in a second request, as git's
#     fetch does (its tag backfill);
#   - push: a new branch, a fast-forward, a refused non-fast-forward (git's
#     message), a forced update, a tag, a deletion; after each the server's
#     refs are those git's identical push leaves in a twin repository.

. "$(dirname "$0")/lib.sh"
require_webgit
. "$(dirname "$0")/http_lib.sh"

W=$WEBGIT
PY=/usr/bin/python3
if ! check "Dulwich is installed (scripts/bootstrap.sh installs python3-dulwich)" \
	"$PY" -c 'import dulwich.web'; then
	skip_all "no Dulwich"
fi

objects() { "$GIT" -C "$1" rev-list --all --objects | sort; }
refs() { "$GIT" -C "$1" for-each-ref --format='%(refname) %(objectname) %(symref)'; }
history() { "$GIT" -C "$1" log --all --format='%H %P' | sort; }

# The served repositories: Dulwich reads git's files-format, SHA-1 ones.
REPOS=$PWD/repos
check "make the sample repositories" "$S/make-repos.sh" --format sha1 "$REPOS"
D=$PWD/dul
mkdir -p "$D"
cp -a "$REPOS/sample-sha1-files.git" "$D/sample.git"
cp -a "$REPOS/sample-sha1-files.git" "$D/moving.git"
cp -a "$REPOS/sample-sha1-files.git" "$D/push-g.git"
cp -a "$REPOS/sample-sha1-files.git" "$D/push-w.git"
"$GIT" init -q --bare -b main "$D/empty.git"
LOG=$PWD/dulwich.log
start dsrv --dulwich --root "$D" --log "$LOG"
U=$url/git

# --- ls-remote -----------------------------------------------------------------
u=$U/sample.git
check_same "ls-remote" "\"\$GIT\" ls-remote '$u'" "\"\$W\" ls-remote '$u'"
for opt in --heads --tags --symref; do
	check_same "ls-remote $opt" "\"\$GIT\" ls-remote $opt '$u'" "\"\$W\" ls-remote $opt '$u'"
done
check_same "ls-remote of an empty repository" "\"\$GIT\" ls-remote '$U/empty.git'" \
	"\"\$W\" ls-remote '$U/empty.git'"

# --- clone ---------------------------------------------------------------------
: >"$LOG"
"$GIT" clone -q --mirror "$u" g.git
check "webgit clone --mirror" "$W" clone -q --mirror "$u" w.git
check_same "clone --mirror: git's refs" "refs g.git" "refs w.git"
check_same "clone --mirror: git's objects" "objects g.git" "objects w.git"
check "clone --mirror: git fsck --strict" "$GIT" -C w.git fsck --strict --no-progress
check_same "clone --mirror: git's remote config" \
	'"$GIT" -C g.git config --get-regexp "^remote\."' '"$GIT" -C w.git config --get-regexp "^remote\."'
check "the clones asked Dulwich for packs (the server log has the POSTs)" \
	test "$(grep -c '^POST /git/sample.git/git-upload-pack 200$' "$LOG")" -ge 2

"$GIT" clone -q --bare "$u" gb.git
check "webgit clone --bare" "$W" clone -q --bare "$u" wb.git
check_same "clone --bare: git's refs" "refs gb.git" "refs wb.git"
check_same "clone --bare: git's objects" "objects gb.git" "objects wb.git"

"$GIT" clone -q "$u" gc
check "webgit clone (with a checkout)" "$W" clone -q "$u" wc
check_same "clone: git's refs" "refs gc" "refs wc"
check_same "clone: git's files" "tree_listing gc" "tree_listing wc"
check_same "clone: git's index" '"$GIT" -C gc ls-files -s' '"$GIT" -C wc ls-files -s'
check_output "clone: git status is clean" "" "$GIT" -C wc status --porcelain
check "clone: git fsck --strict" "$GIT" -C wc fsck --strict --no-progress

check "webgit clone of an empty repository" "$W" clone -q "$U/empty.git" we
check_output "...HEAD is the unborn main" "refs/heads/main" "$GIT" -C we symbolic-ref HEAD

# --- shallow -------------------------------------------------------------------
"$GIT" clone -q --bare --depth 1 "$u" gs1.git
check "webgit clone --depth 1" "$W" clone -q --bare --depth 1 "$u" ws1.git
check_same "--depth 1: git's shallow file" "sort gs1.git/shallow" "sort ws1.git/shallow"
check_same "--depth 1: git's history" "history gs1.git" "history ws1.git"
check_same "--depth 1: git's objects" "objects gs1.git" "objects ws1.git"
check "--depth 1: git fsck" "$GIT" -C ws1.git fsck --no-progress
"$GIT" clone -q --bare --depth 3 -b feature/parser --single-branch "$u" gs3.git
check "webgit clone --depth 3 -b feature/parser --single-branch" \
	"$W" clone -q --bare --depth 3 -b feature/parser --single-branch "$u" ws3.git
check_same "--depth 3: git's shallow file" "sort gs3.git/shallow" "sort ws3.git/shallow"
check_same "--depth 3: git's refs" "refs gs3.git" "refs ws3.git"
check_same "--depth 3: git's objects" "objects gs3.git" "objects ws3.git"

# --- a filter the server does not support -----------------------------------------
check_fail "git's own filtered clone fails against Dulwich (it asks for the filter anyway)" \
	"$GIT" clone -q --bare --filter=blob:none "$u" gf.git
check "webgit clone --filter=blob:none goes on without the filter" \
	"$W" clone -q --bare --filter=blob:none "$u" wf.git
cp "$LAST_ERR" wf.err
check_output "...with git's warning (twice in protocol v0, as git prints it)" \
	"warning: filtering not recognized by server, ignoring
warning: filtering not recognized by server, ignoring" cat wf.err
check_same "...and every object, as a whole clone has them" "objects gb.git" "objects wf.git"
check_output "...and the remote stays the promisor, as git records it" "true
blob:none" sh -c '"$GIT" -C wf.git config remote.origin.promisor &&
	"$GIT" -C wf.git config remote.origin.partialclonefilter'

# --- fetch ---------------------------------------------------------------------
m=$U/moving.git
"$GIT" clone -q "$m" gfetch
check "webgit clone for the fetch" "$W" clone -q "$m" wfetch
# The server moves on: a new commit on main, a new branch and tag, a
# forced (rewound) branch, a deleted branch and tag.
"$GIT" clone -q "$D/moving.git" mover
(
	cd mover || exit 1
	echo "new on the server" >>README.md
	"$GIT" add README.md && "$GIT" commit -q -m "server side" &&
		"$GIT" push -q origin main HEAD:refs/heads/fresh &&
		"$GIT" tag -a -m "fresh tag" v9 && "$GIT" push -q origin v9 &&
		"$GIT" push -q -f origin main~3:refs/heads/feature/ui &&
		"$GIT" push -q origin :refs/heads/dev :refs/tags/v0.1
) >mover.log 2>&1
check "the server moved (set-up)" test -s "$D/moving.git/refs/heads/fresh"
: >"$LOG"
check "webgit fetch --prune" sh -c 'cd wfetch && "$WEBGIT" fetch -q --prune'
# Dulwich leaves the new annotated tag out of the pack (include-tag): as
# git's fetch does, a second request asks for it (git's tag backfill).
check_output "fetch: the pack, then the tag backfill (two POSTs, as git makes)" 2 \
	grep -c '^POST /git/moving.git/git-upload-pack 200$' "$LOG"
(cd gfetch && "$GIT" fetch -q --prune)
check_same "fetch: git's refs" "refs gfetch" "refs wfetch"
check_same "fetch: git's objects" "objects gfetch" "objects wfetch"
check_same "fetch: FETCH_HEAD as git writes it" "sort gfetch/.git/FETCH_HEAD" "sort wfetch/.git/FETCH_HEAD"
check "fetch: git fsck --strict" "$GIT" -C wfetch fsck --strict --no-progress --no-dangling
check "a fetch with nothing new" sh -c 'cd wfetch && "$WEBGIT" fetch -q'
check_same "...changes nothing" "refs gfetch" "refs wfetch"

# --- push ----------------------------------------------------------------------
# Twin clones of twin server repositories, the same commits (fixed dates)
# in both; git pushes from one, webgit from the other.
"$GIT" clone -q "$U/push-g.git" pg
"$GIT" clone -q "$U/push-w.git" pw
srefs() { "$GIT" -C "$D/$1" for-each-ref --format='%(refname) %(objectname)'; }
on_clones() {
	(cd pg && eval "$1") >/dev/null 2>&1 && (cd pw && eval "$1") >/dev/null 2>&1
}
# pushed DESC ARGS...: git push ARGS in pg, webgit push ARGS in pw: the same
# exit status and the same refs on the two servers.
pushed() {
	local desc=$1
	shift
	(cd pg && "$GIT" push "$@" >"$T_G.out" 2>"$T_G.err"; echo "exit $?" >>"$T_G.out")
	(cd pw && "$W" push "$@" >"$T_W.out" 2>"$T_W.err"; echo "exit $?" >>"$T_W.out")
	check_same "push $desc: git's exit status" "tail -n 1 '$T_G.out'" "tail -n 1 '$T_W.out'"
	check_same "push $desc: the server's refs as git's push left them" "srefs push-g.git" \
		"srefs push-w.git"
	check "push $desc: git fsck --strict on the server" \
		"$GIT" -C "$D/push-w.git" fsck --strict --no-progress --no-dangling
}
T_G=$PWD/push-g T_W=$PWD/push-w
on_clones 'git checkout -q -b wtopic && echo one >pushed.txt && git add pushed.txt &&
	git commit -q -m "one"'
pushed "a new branch" -q origin wtopic
on_clones 'echo two >>pushed.txt && git commit -q -a -m "two"'
pushed "a fast-forward" -q origin wtopic
on_clones 'git reset -q --hard HEAD~1 && echo other >pushed.txt && git commit -q -a -m "diverged"'
pushed "a non-fast-forward" origin wtopic
check "...refused with git's message" grep -q "\[rejected\].*(non-fast-forward)" "$T_W.err"
pushed "forced" -q origin +wtopic:refs/heads/wtopic
on_clones 'git tag -a -m "a tag" pushed-tag'
pushed "a tag" -q origin refs/tags/pushed-tag
pushed "a deletion" -q origin :refs/heads/feature/docs
pushed "to another name" -q origin wtopic:refs/heads/copy
