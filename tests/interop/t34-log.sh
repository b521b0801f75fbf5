#!/usr/bin/env bash
# t34-log: webgit log, rev-list and merge-base against git's, byte for
# byte, on histories a seeded generator writes with git fast-import:
# several branches merged back and forth (criss-cross merges with more
# than one merge base, an octopus), runs of commits with the same
# committer date (git's tie order) and commits older than their parents
# (clock skew), files in directories that are added, edited, renamed and
# deleted, and messages with several paragraphs, tabs, trailing blanks,
# leading blank lines and none at all. Checked: the walk in every order
# (default, --topo-order, --date-order, --reverse, --first-parent),
# ranges (a..b, a...b, ^x, --not, --all, --left-right), counts and skips,
# merge filters, path limiting with history simplification (files,
# directories, globs, deleted paths; --full-history), every pretty
# format, user formats with the common placeholders and date modes, log
# with diffs (-p, --stat, --name-status, --raw, with paths), rev-list
# (--count, --left-right --count), merge-base (--all, --octopus,
# --independent, --is-ancestor exit codes) and the error messages of bad
# revisions. Both object formats.

. "$(dirname "$0")/lib.sh"
require_webgit

W=$WEBGIT
T=$PWD/tmp-t34 && rm -rf "$T" && mkdir -p "$T"

cat >"$T/gen.py" <<'PY'
import random, sys

seed, ncommits = int(sys.argv[1]), int(sys.argv[2])
rnd = random.Random(seed)
out = sys.stdout.buffer
WORDS = "fix add read write parse tree blob pack ref index walk merge base diff path".split()
DIRS = ["", "src/", "src/core/", "docs/", "lib/"]

def w(s):
    out.write(s.encode() if isinstance(s, str) else s)

def data(b):
    w("data %d\n" % len(b))
    w(b)
    w("\n")

def message():
    r = rnd.random()
    if r < 0.04:
        return b""
    subj = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(1, 6)))
    parts = []
    if r < 0.1:
        parts.append("\n\n")                       # leading blank lines
    parts.append(subj)
    if rnd.random() < 0.2:
        parts.append("\n" + "continued " + rnd.choice(WORDS))   # two-line subject
    if rnd.random() < 0.6:
        body = []
        for _ in range(rnd.randint(1, 3)):
            line = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(2, 9)))
            if rnd.random() < 0.3:
                line = "\t" + line.replace(" ", "\t", 1)
            if rnd.random() < 0.2:
                line += "  "
            body.append(line)
        parts.append("\n\n" + "\n".join(body))
        if rnd.random() < 0.3:
            parts.append("\n\n   \n")               # trailing blank lines
    parts.append("\n")
    return "".join(parts).encode()

files_at = {}       # mark -> its tree: path -> content counter
mark = 0
tips = {}           # branch -> mark
date = 1500000000
branches = ["main"]

def ident(kind):
    name = rnd.choice(["A U Thor", "Ann O'Dev", "Bob", "Ça Va"])
    tz = rnd.choice(["+0000", "+0100", "-0700", "+0530", "-1200"])
    return "%s %s <%s@example.com> %d %s\n" % (kind, name, name.split()[0].lower(), date, tz)

def commit(branch, parents):
    global mark, date
    mark += 1
    files = dict(files_at[parents[0]]) if parents else {}
    files_at[mark] = files
    r = rnd.random()
    if r < 0.3:
        pass                                        # same date as the last one
    elif r < 0.37:
        date -= rnd.randint(1, 5000)                # older than its parent
    else:
        date += rnd.randint(1, 3600)
    w("commit refs/heads/%s\nmark :%d\n" % (branch, mark))
    w(ident("author"))
    w(ident("committer"))
    data(message())
    if parents:
        w("from :%d\n" % parents[0])
        for p in parents[1:]:
            w("merge :%d\n" % p)
    for _ in range(rnd.randint(0 if parents else 1, 3)):
        op = rnd.random()
        live = sorted(files)
        if op < 0.55 or not live:
            path = rnd.choice(DIRS) + rnd.choice(WORDS) + rnd.choice([".c", ".h", ".txt"])
            files[path] = files.get(path, 0) + 1
            w("M 100644 inline %s\n" % path)
            data(("%s %d %d\n" % (path, files[path], mark)).encode() * rnd.randint(1, 4))
        elif op < 0.75:
            src = rnd.choice(live)
            dst = rnd.choice(DIRS) + "moved-" + src.split("/")[-1]
            if dst in files or dst == src:
                continue
            w("R %s %s\n" % (src, dst))
            files[dst] = files.pop(src)
        else:
            victim = rnd.choice(live)
            w("D %s\n" % victim)
            del files[victim]
    w("\n")
    tips[branch] = mark
    return mark

commit("main", [])
for i in range(ncommits):
    r = rnd.random()
    if r < 0.08 and len(branches) < 5:
        b = "topic%d" % len(branches)
        branches.append(b)
        src = rnd.choice(list(tips))
        commit(b, [tips[src]])
    elif r < 0.2 and len(branches) > 1:
        a, b = rnd.sample(branches, 2)
        commit(a, [tips[a], tips[b]])               # merges both ways: criss-cross
    elif r < 0.215 and len(branches) > 2:
        a, b, c = rnd.sample(branches, 3)
        commit(a, [tips[a], tips[b], tips[c]])      # octopus
    else:
        b = rnd.choice(branches)
        commit(b, [tips[b]])
for b in branches:
    w("reset refs/tags/at-%s\nfrom :%d\n\n" % (b, tips[b]))
PY

same() { same_args "$@"; }

for FMT in sha1 sha256; do
	R=$T/$FMT
	"$GIT" init -q --object-format=$FMT -b main "$R" || exit 1
	python3 "$T/gen.py" 34 260 | "$GIT" -C "$R" fast-import --quiet || exit 1
	cd "$R" || exit 1
	"$GIT" checkout -q main || exit 1
	mapfile -t BR < <("$GIT" for-each-ref --format='%(refname:short)' refs/heads)
	note "$FMT: $("$GIT" rev-list --all --count) commits, branches: ${BR[*]}"

	# the walk, in every order
	for spec in "" main --all "${BR[1]}" "main~5" "${BR[1]}..main" "main..${BR[1]}" \
		"${BR[1]}...main" "^${BR[2]:-main~3} main" "--not ${BR[1]} --not main"; do
		# shellcheck disable=SC2086
		for order in "" --topo-order --date-order --reverse --first-parent \
			"--topo-order --reverse" "--date-order --first-parent"; do
			same log --format=%H $order $spec
		done
		# shellcheck disable=SC2086
		[ -n "$spec" ] && same rev-list --count $spec
		# shellcheck disable=SC2086
		same log --format=%H --no-merges -n 7 --skip=3 $spec
	done
	same log --format=%H --merges --all
	same log --format='%m %H' --left-right "${BR[1]}...main"
	same rev-list --left-right "${BR[1]}...main"
	same rev-list --left-right --count "${BR[1]}...main"
	same rev-list --left-right --count "${BR[2]:-main~3}...main"
	same log --oneline -3 --topo-order --all

	# paths: files, directories, globs, paths that were deleted or renamed
	mapfile -t P < <("$GIT" log --all --format= --name-only | sort -u | shuf -n 8 --random-source=<(yes))
	for p in src src/core docs "*.h" "src/*.c" "${P[@]}"; do
		same log --format=%H -- "$p"
		same log --format=%H --full-history -- "$p"
		same log --format=%H --topo-order --all -- "$p"
		same log --format=%H --first-parent -- "$p"
		same rev-list --count "${BR[1]}...main" -- "$p"
	done
	same log --format=%H -- src docs lib
	same log --format=%H main~20..main -- src

	# formats
	for f in medium oneline short full fuller raw; do
		same log --pretty=$f
	done
	same log --oneline --all
	same log --abbrev-commit --pretty=oneline
	same log --format='%H %h %T %t %P %p%n%an|%ae|%al|%ad|%aD|%at|%ai|%aI|%as%n%cn|%ce|%cl|%cd|%cD|%ct|%ci|%cI|%cs%n[%s]%n[%f]%n[%b]%n[%B]%x00'
	same log --format='format:%s%+b%-b% b' -n 40
	same log --format='%n%s%n' -n 40
	same log --format= -n 5
	for d in iso iso-strict rfc short raw unix default; do
		same log --pretty=fuller --date=$d -n 30
	done
	same show --pretty=raw main
	same show --oneline --stat "${BR[1]}"
	same show --format='%s%n%b' main~3

	# with diffs
	same log -p --topo-order
	same log --stat -n 60
	same log -p --stat -n 40
	same log --name-status --all
	same log --raw -n 40
	same log --oneline -p -n 30
	same log --format=%H --numstat -n 30
	same log -p -- src
	same log --stat --format=%s -- docs "*.h"
	same log -p --histogram -n 30
	same log -p -w --stat -n 30
	"$GIT" config diff.algorithm patience
	same log -p -n 30
	"$GIT" config --unset diff.algorithm

	# merge bases
	mapfile -t C < <("$GIT" rev-list --all | shuf -n 24 --random-source=<(yes 1))
	for ((k = 0; k + 1 < ${#C[@]}; k += 2)); do
		same_rc merge-base "${C[k]}" "${C[k + 1]}"
		same_rc merge-base --all "${C[k]}" "${C[k + 1]}"
		same_rc merge-base --is-ancestor "${C[k]}" "${C[k + 1]}"
		same_rc merge-base --is-ancestor "${C[k + 1]}" "${C[k]}"
	done
	for b in "${BR[@]:1}"; do
		same_rc merge-base --all main "$b"
		same_rc merge-base --is-ancestor "$b" main
	done
	same_rc merge-base --octopus "${BR[@]}"
	same_rc merge-base --octopus --all "${BR[@]}"
	same_rc merge-base --independent "${BR[@]}" "${C[@]:0:6}"
	same_rc merge-base main "${C[0]}" "${C[1]}" "${C[2]}"

	# a shallow clone: its cut-off commits have no parents, even where a
	# parent came along through another line of history
	S=$T/$FMT-shallow
	"$GIT" clone -q --depth 7 --no-single-branch "file://$R" "$S" || exit 1
	cd "$S" || exit 1
	same log --format=%H --all
	same log --format=%H --topo-order
	same rev-list --count --all
	same log --format=%H --all -- src
	cd "$R" || exit 1

	# errors
	same_rc log no-such-rev
	same_rc log main..no-such-rev
	same_rc merge-base main no-such-rev
	same_rc merge-base --independent --all main
	cd "$T" || exit 1
done

# an unborn branch
"$GIT" init -q -b trunk "$T/empty"
check_same "unborn branch: log says what git says" \
	'cd "$T/empty" && { "$GIT" log 2>&1; echo "rc=$?"; } | sed "s/^fatal: /F: /"' \
	'cd "$T/empty" && { "$W" log 2>&1; echo "rc=$?"; } | sed "s/^fatal: /F: /"'
