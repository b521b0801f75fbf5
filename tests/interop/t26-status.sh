#!/usr/bin/env bash
# t26-status: webgit status prints what git status prints, byte for byte,
# in the long, short and porcelain (v1, v2) formats, with --branch, -z,
# -u<mode> and --ignored, on working trees in every state a user meets:
# clean after git's checkout; modified, staged, both, deleted in the index
# and in the working tree, type changes (file <-> link), an executable
# bit, untracked files and directories (nested and empty ones, a nested
# repository), ignored files and directories (.gitignore at several
# levels, info/exclude, core.excludesFile), names that need quoting,
# conflicts of every kind left by a failed git merge, a file touched but
# unchanged, ahead/behind an upstream, detached HEAD and an unborn branch;
# both object formats and both ref formats. After webgit status (which
# writes refreshed stat data back) git status and git fsck still agree.

. "$(dirname "$0")/lib.sh"
require_webgit

W=$WEBGIT
T=$PWD/tmp-t26 && mkdir -p "$T"
export GIT_COMMITTER_DATE="1700000000 +0000" GIT_AUTHOR_DATE="1700000000 +0000"
export GIT_COMMITTER_NAME=T GIT_COMMITTER_EMAIL=t@example.com
export GIT_AUTHOR_NAME=T GIT_AUTHOR_EMAIL=t@example.com

FORMATS=("" "-s" "-s -b" "--porcelain" "--porcelain -b -z" "--porcelain=v2 --branch"
	"--porcelain=v2 -z --branch" "-uall --porcelain" "-uno" "--ignored --porcelain"
	"--ignored -uall --porcelain=v2" "--ignored")

# every_format STATE: webgit status equals git status in each format
every_format() {
	local f
	for f in "${FORMATS[@]}"; do
		# shellcheck disable=SC2086 # the words are the arguments
		check_same "$1: status $f" "'$GIT' status $f" "'$W' status $f"
	done
	check_same "$1: git status after webgit's" "'$GIT' status --porcelain=v2 --ignored" \
		"'$W' status -s >/dev/null && '$GIT' status --porcelain=v2 --ignored"
	check "$1: git fsck after webgit status" "$GIT" fsck --no-progress --no-dangling
}

for combo in sha1:files sha256:reftable; do
	FMT=${combo%%:*} REFS=${combo#*:}
	C="$FMT/$REFS"
	R=$T/r-$FMT
	rm -rf "$R" "$R-up"
	"$GIT" init -q -b main --object-format="$FMT" --ref-format="$REFS" "$R-up"
	(
		cd "$R-up"
		mkdir -p dir/sub ign/deep
		for f in a b c d "sp ace" "q\"uote" "$(printf 'na\303\257ve')"; do echo "$f" >"$f"; done
		echo x >dir/x && echo y >dir/sub/y && chmod +x d
		ln -s a link
		printf '*.log\nbuild/\n!keep.log\n' >.gitignore
		printf '*.tmp\n' >dir/.gitignore
		"$GIT" add -A && "$GIT" commit -qm one
		echo more >>a && "$GIT" commit -qam two
	)
	"$GIT" clone -q "$R-up" "$R" 2>/dev/null
	cd "$R"
	"$GIT" config core.excludesFile "$T/global-ignore"
	echo '*.global' >"$T/global-ignore"
	echo '*.excl' >.git/info/exclude

	every_format "$C clean"

	echo changed >>a                      # modified
	echo staged >>b && "$GIT" add b       # staged
	echo both >>c && "$GIT" add c && echo again >>c
	"$GIT" rm -q --cached "sp ace"        # deleted in the index, now untracked
	rm "q\"uote"                          # deleted in the working tree
	chmod -x d                            # mode change
	rm link && echo not-a-link >link      # type change
	echo new >new && "$GIT" add new       # added
	mkdir -p untracked/deeper empty && echo u >untracked/deeper/u
	echo u >dir/sub/untracked
	echo l >x.log && echo k >keep.log && echo g >a.global && echo e >b.excl
	echo t >dir/z.tmp && mkdir -p build/out && echo o >build/out/o
	mkdir -p ign/deep && echo i >ign/deep/i.log
	mkdir -p onlyignored && echo i >onlyignored/i.log
	"$GIT" init -q nested && echo n >nested/file
	every_format "$C changed"

	# touched, not changed: stat data says "maybe", content says no
	"$GIT" reset -q --hard && "$GIT" clean -qffdx
	sleep 1 && touch a b && chmod 644 c
	every_format "$C touched"

	# conflicts of every kind from a failed merge
	"$GIT" checkout -q -b side HEAD~1
	echo side >a && echo side >b && "$GIT" rm -q c && echo side-new >both-added
	echo added-by-them >theirs-only
	"$GIT" add -A && "$GIT" commit -qm side
	"$GIT" checkout -q main
	echo main >a && "$GIT" rm -q b && echo main-c >c && echo main-new >both-added
	"$GIT" add -A && "$GIT" commit -qm main-side
	"$GIT" merge -q side >/dev/null 2>&1
	every_format "$C conflicts"
	"$GIT" merge --abort

	# renames staged by git: exact and edited, the same basename and not,
	# identical sources, empty files, CRLF text, binary, a link, a pair just
	# under and just over the 50% line; then each rename setting
	"$GIT" checkout -q main
	python3 - <<'PY'
import os, random
random.seed(7)
def text(n, tag):
    return "".join("line %d of %s %d\n" % (i, tag, random.randint(0, 999)) for i in range(n))
os.makedirs("rn/src/a", exist_ok=True)
os.makedirs("rn/lib", exist_ok=True)
for i in range(8):
    open("rn/src/f%d.c" % i, "w").write(text(40, "f%d" % i))
open("rn/src/a/util.c", "w").write(text(30, "util"))
open("rn/lib/util.c", "w").write(text(30, "util2"))
open("rn/dup1", "w").write("same\n" * 10)
open("rn/dup2", "w").write("same\n" * 10)
open("rn/empty1", "w").close()
open("rn/crlf.txt", "w").write(text(20, "crlf"))
open("rn/bin.dat", "w").write("\0".join(text(10, "bin").split("\n")))
PY
	ln -s f0.c rn/src/link1
	"$GIT" add rn && "$GIT" commit -qm rename-base
	python3 - <<'PY'
import os, random
random.seed(9)
def move(p, q, k):
    s = open(p).read().split("\n")
    for i in range(k):
        s[random.randrange(len(s))] = "changed %d" % i
    os.remove(p)
    os.makedirs(os.path.dirname(q), exist_ok=True)
    open(q, "w").write("\n".join(s))
move("rn/src/f0.c", "rn/moved/f0.c", 2)
move("rn/src/f1.c", "rn/moved/g1.c", 10)
move("rn/src/f2.c", "rn/moved/g2.c", 25)
move("rn/src/f3.c", "rn/src/f3.h", 0)
os.rename("rn/src/f4.c", "rn/moved/f4.c")
os.makedirs("rn/x", exist_ok=True)
os.rename("rn/dup1", "rn/x/dupA")
os.rename("rn/dup2", "rn/x/dup2")
os.rename("rn/empty1", "rn/x/e1")
os.rename("rn/src/a/util.c", "rn/moved/util.c")
move("rn/lib/util.c", "rn/lib/util2.c", 3)
s = open("rn/crlf.txt").read().replace("\n", "\r\n")
os.remove("rn/crlf.txt")
open("rn/crlf 2.txt", "w").write(s)
os.rename("rn/bin.dat", "rn/bin2.dat")
os.remove("rn/src/link1")
os.symlink("f0.c", "rn/src/link2")
move("rn/src/f5.c", "rn/src/f5new.c", 20)
move("rn/src/f6.c", "rn/src/f6new.c", 21)
PY
	"$GIT" add -A rn
	echo edited-after >>rn/moved/f4.c
	every_format "$C renames"
	for setting in status.renames=false diff.renames=false status.renameLimit=1 \
		diff.renameLimit=2; do
		"$GIT" config "${setting%%=*}" "${setting#*=}"
		check_same "$C renames, $setting" "'$GIT' status --porcelain=v2" \
			"'$W' status --porcelain=v2"
		"$GIT" config --unset "${setting%%=*}"
	done
	for flags in --no-renames --find-renames=90 --find-renames=30% --find-renames=.7; do
		check_same "$C renames, status $flags" "'$GIT' status -s $flags" "'$W' status -s $flags"
	done
	"$GIT" reset -q --hard

	# intent to add (git add -N): a new file not staged yet, one whose file is gone
	echo ita >ita-new && echo ita2 >ita-gone && "$GIT" add -N ita-new ita-gone && rm ita-gone
	every_format "$C intent-to-add"
	"$GIT" rm -q --cached ita-new ita-gone && rm -f ita-new

	# ahead and behind its upstream, then detached, then unborn
	"$GIT" reset -q --hard origin/main~1 && echo local >local && "$GIT" add local &&
		"$GIT" commit -qm local
	every_format "$C diverged"
	"$GIT" checkout -q --detach HEAD~1
	every_format "$C detached"
	"$GIT" checkout -q --orphan fresh && "$GIT" rm -rqf . && echo first >first &&
		"$GIT" add first
	every_format "$C unborn"
	cd "$T"
done
