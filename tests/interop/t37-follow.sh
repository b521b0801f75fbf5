#!/usr/bin/env bash
# t37-follow: webgit log --follow against git's, byte for byte, on
# histories a seeded generator writes with git fast-import: files added,
# edited, deleted, renamed (exactly and with edits), copied (exactly and
# with edits), re-added under an old name, renamed back, directories
# renamed, empty files, renames on one branch and edits on another, and
# merges that bring the other side's files. For every path at the tip and
# a sample of paths that are gone: the commits, then on a sample the
# diffs (--name-status with git's R/C lines, -p, --stat, --raw) and the
# walk options (--reverse, --first-parent, -M30%, --all, -n, --skip,
# --topo-order); log.follow; a directory followed; the error cases; a
# blob-less clone. Both object formats.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/http_lib.sh"
require_webgit

W=$WEBGIT
T=$PWD/tmp-t37 && rm -rf "$T" && mkdir -p "$T"

cat >"$T/gen.py" <<'PY'
import random, sys

seed, ncommits = int(sys.argv[1]), int(sys.argv[2])
rnd = random.Random(seed)
out = sys.stdout.buffer
WORDS = "alpha beta gamma delta walk tree blob pack index merge diff path".split()
DIRS = ["", "src/", "src/core/", "docs/", "lib/", "old/"]

def w(s):
    out.write(s.encode() if isinstance(s, str) else s)

def data(b):
    w("data %d\n" % len(b))
    w(b)
    w("\n")

def new_lines():
    return ["line %d of %s %s" % (rnd.randint(0, 100000), rnd.choice(WORDS), rnd.choice(WORDS))
            for _ in range(rnd.randint(3, 14))]

def edit(lines, heavy=False):
    lines = list(lines)
    for _ in range(rnd.randint(1, 6 if heavy else 2)):
        r = rnd.random()
        if r < 0.4 and lines:
            lines[rnd.randrange(len(lines))] = "edited %d" % rnd.randint(0, 99999)
        elif r < 0.7:
            lines.insert(rnd.randint(0, len(lines)), "added %d" % rnd.randint(0, 99999))
        elif len(lines) > 1:
            del lines[rnd.randrange(len(lines))]
    return lines

files_at = {}
mark = 0
tips = {}
date = 1600000000
branches = ["main"]
gone = []           # paths renamed away or deleted
renames = []        # (old, new)

def put(files, path, lines):
    files[path] = lines
    mode = "100755" if rnd.random() < 0.03 else "100644"
    w("M %s inline %s\n" % (mode, path))
    data(("\n".join(lines) + "\n").encode())

def fresh_path(files):
    for _ in range(20):
        p = rnd.choice(DIRS) + rnd.choice(WORDS) + rnd.choice([".c", ".h", ".txt", ""])
        if p not in files and not any(f.startswith(p + "/") for f in files) \
                and not any(p.startswith(f + "/") for f in files):
            return p
    return None

def ok_dst(files, dst):
    return dst not in files and not any(f.startswith(dst + "/") for f in files) \
        and not any(dst.startswith(f + "/") for f in files)

def commit(branch, parents):
    global mark, date
    mark += 1
    files = dict(files_at[parents[0]]) if parents else {}
    files_at[mark] = files
    r = rnd.random()
    if r < 0.2:
        pass
    elif r < 0.27:
        date -= rnd.randint(1, 5000)
    else:
        date += rnd.randint(1, 3600)
    w("commit refs/heads/%s\nmark :%d\n" % (branch, mark))
    w("author A U Thor <a@example.com> %d +0000\n" % date)
    w("committer C O Mitter <c@example.com> %d +0000\n" % date)
    data(b"change %d\n" % mark)
    if parents:
        w("from :%d\n" % parents[0])
        for p in parents[1:]:
            w("merge :%d\n" % p)
    if len(parents) > 1:
        # a merge takes the other side's files the first parent lacks
        for p in parents[1:]:
            for path, lines in sorted(files_at[p].items()):
                if path not in files and ok_dst(files, path) and rnd.random() < 0.7:
                    put(files, path, lines)
        w("\n")
        tips[branch] = mark
        return mark
    for _ in range(rnd.randint(1, 3)):
        op = rnd.random()
        live = sorted(files)
        if op < 0.12 or not live:
            p = fresh_path(files)
            if p:
                put(files, p, new_lines())
        elif op < 0.45:
            p = rnd.choice(live)
            put(files, p, edit(files[p]))
        elif op < 0.58:                      # rename, maybe with edits
            src = rnd.choice(live)
            dst = rnd.choice(DIRS) + rnd.choice(["moved-", "new-", ""]) + src.split("/")[-1]
            if not ok_dst(files, dst) or dst == src:
                continue
            w("R %s %s\n" % (src, dst))
            files[dst] = files.pop(src)
            gone.append(src)
            renames.append((src, dst))
            if rnd.random() < 0.5:
                put(files, dst, edit(files[dst], heavy=rnd.random() < 0.3))
        elif op < 0.63:                      # a copy, maybe edited
            src = rnd.choice(live)
            dst = rnd.choice(DIRS) + "copy-" + src.split("/")[-1]
            if not ok_dst(files, dst):
                continue
            put(files, dst, edit(files[src]) if rnd.random() < 0.6 else files[src])
        elif op < 0.7:                       # delete
            v = rnd.choice(live)
            w("D %s\n" % v)
            del files[v]
            gone.append(v)
        elif op < 0.78 and gone:             # re-add under an old name
            p = rnd.choice(gone)
            if ok_dst(files, p):
                base = files[rnd.choice(live)] if rnd.random() < 0.4 else new_lines()
                put(files, p, edit(base))
        elif op < 0.85 and renames:          # rename back
            a, b = rnd.choice(renames)
            if b in files and ok_dst(files, a):
                w("R %s %s\n" % (b, a))
                files[a] = files.pop(b)
                gone.append(b)
        elif op < 0.92:                      # a directory renamed
            dirs = sorted({f.rsplit("/", 1)[0] for f in live if "/" in f})
            if not dirs:
                continue
            d = rnd.choice(dirs)
            nd = rnd.choice(["pkg", "lib2", "src/moved", "other"]) + str(rnd.randint(0, 3))
            moves = [(f, nd + f[len(d):]) for f in live if f.startswith(d + "/")]
            if any(not ok_dst(files, t) for _, t in moves):
                continue
            for f, t in moves:
                w("R %s %s\n" % (f, t))
                files[t] = files.pop(f)
                gone.append(f)
                renames.append((f, t))
        else:                                # an empty file
            p = fresh_path(files)
            if p:
                files[p] = []
                w("M 100644 inline %s\n" % p)
                data(b"")
    w("\n")
    tips[branch] = mark
    return mark

commit("main", [])
for i in range(ncommits):
    r = rnd.random()
    if r < 0.06 and len(branches) < 4:
        b = "topic%d" % len(branches)
        branches.append(b)
        commit(b, [tips[rnd.choice(list(tips))]])
    elif r < 0.18 and len(branches) > 1:
        a, b = rnd.sample(branches, 2)
        commit(a, [tips[a], tips[b]])
    else:
        b = rnd.choice(branches)
        commit(b, [tips[b]])
PY

same() { same_args "$@"; }

for FMT in sha1 sha256; do
	R=$T/$FMT
	"$GIT" init -q --object-format=$FMT -b main "$R" || exit 1
	python3 "$T/gen.py" 37 130 | "$GIT" -C "$R" fast-import --quiet || exit 1
	cd "$R" || exit 1
	"$GIT" checkout -q main || exit 1
	mapfile -t TIP < <("$GIT" ls-tree -r --name-only main)
	mapfile -t GONE < <("$GIT" log --all --format= --name-only | sort -u |
		comm -23 - <(printf '%s\n' "${TIP[@]}" | sort) | shuf -n 10 --random-source=<(yes))
	note "$FMT: $("$GIT" rev-list --all --count) commits, ${#TIP[@]} paths at the tip;" \
		"$("$GIT" log --follow --format= --name-status -- "${TIP[0]}" | grep -c '^[RC]') renames/copies behind ${TIP[0]}"

	# every path at the tip, a sample of those gone
	for p in "${TIP[@]}"; do
		same log --follow --format=%H -- "$p"
	done
	for p in "${GONE[@]}"; do
		same log --follow --format=%H -- "$p"
		same log --follow --format=%H --all -- "$p"
	done

	# diffs and walk options on a sample
	mapfile -t SAMPLE < <(printf '%s\n' "${TIP[@]}" | shuf -n 8 --random-source=<(yes 2))
	for p in "${SAMPLE[@]}" "${GONE[@]:0:3}"; do
		same log --follow --name-status --format=%H -- "$p"
		same log --follow -p -- "$p"
		same log --follow --stat --format=%s -- "$p"
		same log --follow --raw --format=%H -- "$p"
		same log --follow --reverse --format=%H -- "$p"
		same log --follow --reverse --name-status --format=%H -- "$p"
		same log --follow --first-parent --name-status --format=%H -- "$p"
		same log --follow --first-parent -p --format=%H -- "$p"
		same log --follow -M30% --name-status --format=%H -- "$p"
		same log --follow -M90% --format=%H -- "$p"
		same log --follow --all --name-status --format=%H -- "$p"
		same log --follow --topo-order --format=%H -- "$p"
		same log --follow -n 3 --format=%H -- "$p"
		same log --follow --skip=2 -n 5 --format=%H -- "$p"
		same log --follow --reverse -n 60 --format=%H -- "$p"
		same log --follow --oneline -- "$p"
	done

	# log.follow: on for one path, not for two or none; --no-follow
	"$GIT" config log.follow true
	for p in "${SAMPLE[@]:0:4}"; do
		same log --format=%H --name-status -- "$p"
		same log --no-follow --format=%H -- "$p"
	done
	same log --format=%H -- "${SAMPLE[0]}" "${SAMPLE[1]}"
	same log --format=%H -n 20
	"$GIT" config --unset log.follow

	# a directory and a glob followed (no rename search: never one file)
	same log --follow --format=%H --name-status -- src
	same log --follow --format=%H -- "*.c"

	# errors
	same_rc log --follow
	same_rc log --follow --format=%H -- "${SAMPLE[0]}" "${SAMPLE[1]}"
	same_rc log --follow -n 3 main

	# a blob-less clone over HTTP: the source search reads blobs the
	# clone lacks, prefetched per search (each tool gets its own clone,
	# so git's lazy fetches do not serve webgit's)
	mkdir -p "$T/served"
	"$GIT" clone -q --bare "$R" "$T/served/$FMT.git" || exit 1
	"$GIT" -C "$T/served/$FMT.git" config uploadpack.allowFilter true
	"$GIT" -C "$T/served/$FMT.git" config uploadpack.allowAnySHA1InWant true
	cd "$T" && start "srv-$FMT" --root "$T/served"
	"$GIT" clone -q --filter=blob:none --no-checkout "$url/git/$FMT.git" "$T/$FMT-blobless-git" ||
		exit 1
	check "$FMT: webgit clone --filter=blob:none" \
		"$W" clone -q --filter=blob:none --no-checkout "$url/git/$FMT.git" "$T/$FMT-blobless-wg"
	for p in "${SAMPLE[@]:0:4}"; do
		check_same "$FMT: blob-less clone: log --follow --name-status -- $p" \
			"cd '$T/$FMT-blobless-git' && \"\$GIT\" log --follow --name-status --format=%H -- '$p'" \
			"cd '$T/$FMT-blobless-wg' && \"\$W\" log --follow --name-status --format=%H -- '$p'"
	done
	cd "$T" || exit 1
done
