#!/usr/bin/env bash
# tests/server/make-repos.sh — bare repositories for the HTTP tests, made with
# the reference git ($GIT, else `git` on PATH).
#
#   tests/server/make-repos.sh DIR         the sample and empty repositories
#   tests/server/make-repos.sh --format FMT DIR
#                                          only those of object format FMT
#                                          (sha1 or sha256): half the work
#   tests/server/make-repos.sh --big DIR   DIR/big.git, for benchmarks
#   tests/server/make-repos.sh --history DIR
#                                          DIR/history.git, for benchmarks
#
# DIR is created if needed; a repository that already exists there is made
# again from scratch. Output is deterministic: fixed names, e-mails and dates,
# and no global or system git config is read, so every run gives the same
# object ids and refs.
#
# WG_SAMPLE_REPOS_CACHE=CACHE (the test command sets it): the samples are
# made once into CACHE/samples-<formats>-<key> (key: this script and git's
# version) and copied from there, so the many servers of the test suites
# cost one make, not one each. Callers at the same time may each make it;
# the first to finish keeps its copy.
#
# SAMPLES, for FMT in sha1 sha256 and REFS in files reftable:
#
#   sample-FMT-REFS.git   ~100 commits. Branches main (HEAD), feature/parser,
#                         feature/ui, feature/docs, release/1.x, dev,
#                         topic/a/b/c and gh-pages (an unrelated root);
#                         a --no-ff merge, an octopus merge, a merge of the
#                         release branch. Tags: v0.1, v1.0, v1.0.1, v2.0-rc
#                         (annotated), v0.1-light (lightweight), tag-of-tag
#                         (annotated, of v1.0), tree-tag and blob-tag
#                         (annotated, of a tree and a blob), blob-light
#                         (lightweight, of a blob). A note (refs/notes/commits).
#                         Files: nested directories, an executable, symlinks
#                         (to a file, to a directory), a binary file, an
#                         empty file, a name with spaces; renames and deletes.
#   empty-FMT-REFS.git    no commits at all; HEAD -> refs/heads/main
#
# Every repository is configured as a server needs it:
#   uploadpack.allowFilter, uploadpack.allowAnySHA1InWant,
#   uploadpack.allowReachableSHA1InWant, http.receivepack = true;
#   receive.denyNonFastForwards is left at its default (false).
#
# BIG (--big): big.git (sha1, files refs) built with git fast-import from a
# generated stream: 12000 commits (about 300 of them merges of short topic
# branches), a tag every ~500 commits; ~390 evolving source-like text files in
# nested directories, plus incompressible binary assets (two new ones, then a
# small edit of an old one, every 140 commits). Repacked into one pack (with a
# bitmap) with deltas recomputed. The pack is ~78 MB; it takes under a minute
# on 2 cores. Needs python3.
#
# HISTORY (--history): history.git (sha1, files refs), shaped like a real
# project's history rather than big blobs: 21000 commits over 1600 small
# source files in nested directories, each commit changing a few lines of
# one to three files (a new file now and then), a merge of a short topic
# branch every ~50 commits, a tag every 500. Repacked with git's default
# delta window and depth, so the pack is mostly deltas in chains as deep as
# git makes them: about 175,000 objects, a ~20 MB pack, chains up to
# depth 50. Under a minute on 2 cores. Needs python3.
set -euo pipefail

GIT=${GIT:-git}
case "$GIT" in */*) GIT=$(cd "$(dirname "$GIT")" && pwd)/$(basename "$GIT") ;; esac

# Nothing from the caller's git set-up may change what we make.
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY \
	GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT \
	GIT_NAMESPACE GIT_COMMON_DIR
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null TZ=UTC LC_ALL=C
export GIT_AUTHOR_NAME="A U Thor" GIT_AUTHOR_EMAIL="author@example.com"
export GIT_COMMITTER_NAME="C O Mitter" GIT_COMMITTER_EMAIL="committer@example.com"

g() {
	"$GIT" -c gc.auto=0 -c init.defaultBranch=main -c core.autocrlf=false \
		-c core.symlinks=true -c commit.gpgSign=false -c tag.gpgSign=false \
		-c tag.forceSignAnnotated=false -c advice.nestedTag=false \
		-c advice.detachedHead=false -c core.fsmonitor=false \
		-c merge.verifySignatures=false "$@"
}

# The dates move one minute per commit or tag, from a fixed start.
T=1700000000
tick() {
	T=$((T + 60))
	export GIT_AUTHOR_DATE="$T +0000" GIT_COMMITTER_DATE="$T +0000"
}

# commit MSG: commit everything in the worktree.
commit() {
	tick
	g add -A
	g commit -q -m "$1"
}

# binary SEED SIZE: deterministic bytes (with NULs) from a small LCG.
binary() {
	local x=$1 n=$2 i out=''
	for ((i = 0; i < n; i++)); do
		x=$(((x * 1103515245 + 12345) % 2147483648))
		printf -v out '%s\\x%02x' "$out" $(((x >> 16) & 255))
	done
	printf "$out"  # the format is the \xNN escapes just built
}

# configure GITDIR: what a test server needs.
configure() {
	g -C "$1" config uploadpack.allowFilter true
	g -C "$1" config uploadpack.allowAnySHA1InWant true
	g -C "$1" config uploadpack.allowReachableSHA1InWant true
	g -C "$1" config http.receivepack true
	# receive.denyNonFastForwards: deliberately not set (default false).
}

# build_history WORKDIR FORMAT: the sample history, in a non-bare repository.
build_history() (
	local work=$1 fmt=$2 i
	g init -q --object-format="$fmt" "$work"
	cd "$work"

	# --- the first commit: every kind of tree entry ---------------------
	mkdir -p src/lib/deep/nested/dir bin data docs
	printf '# sample\n\nA repository for the webgit HTTP tests.\n' >README.md
	printf '#!/bin/sh\necho "running $*"\n' >bin/run.sh
	chmod +x bin/run.sh
	ln -s README.md link-to-readme
	ln -s src/lib link-to-dir
	binary 7 768 >data/blob.bin
	: >data/empty
	printf 'leaf\n' >src/lib/deep/nested/dir/leaf.txt
	printf 'spaces in the name\n' >"docs/file with spaces.txt"
	printf 'int main(void)\n{\n\treturn 0;\n}\n' >src/main.c
	printf 'changes\n' >CHANGELOG
	commit "initial: files, directories, executable, symlinks, binary"

	# --- main grows ------------------------------------------------------
	for i in $(seq 1 30); do
		echo "change $i" >>CHANGELOG
		[ $((i % 3)) = 0 ] && printf '/* revision %d */\n' "$i" >>src/main.c
		[ $((i % 5)) = 0 ] && printf 'Chapter %d\n' "$i" >"docs/chapter-$i.md"
		[ $((i % 7)) = 0 ] && binary "$i" 512 >>data/blob.bin
		[ $((i % 11)) = 0 ] && echo "leaf $i" >>src/lib/deep/nested/dir/leaf.txt
		commit "main: change $i"
		[ "$i" = 10 ] && { tick; g tag -a -m "version 0.1" v0.1; }
		[ "$i" = 15 ] && g tag v0.1-light
	done

	# --- a feature branch, merged with --no-ff ---------------------------
	g checkout -q -b feature/parser
	mkdir -p src/parser
	for i in $(seq 1 12); do
		printf 'int parse_%d(const char *s) { return s[%d]; }\n' "$i" "$i" >>src/parser/parser.c
		[ $((i % 4)) = 0 ] && printf 'token %d\n' "$i" >"src/parser/tokens-$i.txt"
		commit "parser: step $i"
	done
	g checkout -q main
	for i in $(seq 31 38); do
		echo "change $i" >>CHANGELOG
		commit "main: change $i"
	done
	tick
	g merge -q --no-ff -m "Merge branch 'feature/parser'" feature/parser

	# --- two branches, merged in one octopus -----------------------------
	g checkout -q -b feature/ui
	mkdir -p ui/components/buttons
	for i in $(seq 1 10); do
		printf '<button id="b%d">%d</button>\n' "$i" "$i" >>ui/components/buttons/button.html
		[ "$i" = 5 ] && printf 'body { color: black; }\n' >ui/style.css
		commit "ui: step $i"
	done
	g checkout -q -b feature/docs main~3
	for i in $(seq 1 6); do
		printf 'Guide, part %d\n' "$i" >>docs/guide.md
		commit "docs: part $i"
	done
	g checkout -q main
	tick
	# (the octopus strategy talks even with -q)
	g merge -q --no-ff -m "Merge branches 'feature/ui' and 'feature/docs'" \
		feature/ui feature/docs >/dev/null

	# --- a release branch with its tags, merged back later ---------------
	g checkout -q -b release/1.x
	for i in $(seq 1 5); do
		echo "1.0.$i" >VERSION
		commit "release: 1.0.$i"
		[ "$i" = 1 ] && { tick; g tag -a -m "version 1.0" v1.0; }
	done
	tick
	g tag -a -m "version 1.0.1" v1.0.1
	g checkout -q main
	for i in $(seq 39 53); do
		echo "change $i" >>CHANGELOG
		[ "$i" = 45 ] && g mv docs/chapter-5.md docs/introduction.md
		[ "$i" = 47 ] && g rm -q docs/chapter-10.md
		[ "$i" = 50 ] && { mkdir -p src/lib/deep/other; echo other >src/lib/deep/other/file.txt; }
		commit "main: change $i"
	done
	tick
	g merge -q --no-ff -m "Merge branch 'release/1.x'" release/1.x
	tick
	g tag -a -m "version 2.0, release candidate" v2.0-rc

	# --- an unmerged branch and a deeply named one -----------------------
	g checkout -q -b dev
	for i in $(seq 1 10); do
		echo "dev $i" >>src/dev.txt
		commit "dev: step $i"
	done
	g checkout -q -b topic/a/b/c main
	for i in 1 2; do
		echo "topic $i" >topic.txt
		commit "topic: step $i"
	done

	# --- an unrelated history --------------------------------------------
	g checkout -q --orphan gh-pages
	g rm -rq --cached .
	git_clean_worktree
	for i in 1 2; do
		printf '<h1>page %d</h1>\n' "$i" >index.html
		commit "pages: $i"
	done
	g checkout -q -f main

	# --- tags of other things, and a note --------------------------------
	tick
	g tag -a -m "a tag of a tag" tag-of-tag v1.0
	tick
	g tag -a -m "a tag of a tree" tree-tag 'main^{tree}'
	tick
	g tag -a -m "a tag of a blob" blob-tag main:README.md
	g tag blob-light main:src/main.c
	tick
	g notes add -m "a note on the release merge" main
)

# Empty the worktree of an orphan checkout (everything but .git).
git_clean_worktree() {
	find . -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +
}

# describe GITDIR: one line about a made repository.
describe() {
	local d=$1 commits refs packs
	commits=$(g -C "$d" rev-list --all --count 2>/dev/null || echo 0)
	refs=$(g -C "$d" for-each-ref | wc -l)
	packs=$(du -sk "$d/objects" | cut -f1)
	printf '%-28s %-6s %-8s %6s commits %4s refs %8s KiB objects\n' \
		"$(basename "$d")" "$(g -C "$d" rev-parse --show-object-format)" \
		"$(g -C "$d" rev-parse --show-ref-format)" "$commits" "$refs" "$packs"
}

make_samples() {
	local dir=$1 fmts=${2:-sha1 sha256} fmt refs bare
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/make-repos.XXXXXX")
	trap 'rm -rf "$WORK"' EXIT
	local work=$WORK
	for fmt in $fmts; do
		build_history "$work/$fmt" "$fmt"
		for refs in files reftable; do
			bare="$dir/sample-$fmt-$refs.git"
			rm -rf "$bare"
			g init -q --bare --object-format="$fmt" --ref-format="$refs" "$bare"
			g -C "$work/$fmt" push -q --mirror "$bare"
			# One pack with a bitmap, refs packed: a server after gc.
			g -C "$bare" repack -a -d -q
			g -C "$bare" pack-refs --all
			configure "$bare"
			describe "$bare"

			bare="$dir/empty-$fmt-$refs.git"
			rm -rf "$bare"
			g init -q --bare --object-format="$fmt" --ref-format="$refs" "$bare"
			configure "$bare"
			describe "$bare"
		done
	done
}

# make_samples through the cache when there is one (see the top).
samples() {
	local dir=$1 fmt=${2:-}
	if [ -z "${WG_SAMPLE_REPOS_CACHE:-}" ]; then
		make_samples "$dir" $fmt
		return
	fi
	local key cached made repo
	key=$({ cat "$0"; echo "$fmt"; "$GIT" --version; } | sha256sum | cut -c1-16)
	mkdir -p "$WG_SAMPLE_REPOS_CACHE"
	cached=$(cd "$WG_SAMPLE_REPOS_CACHE" && pwd)/samples-${fmt:-all}-$key
	if [ ! -d "$cached" ]; then
		made=$(mktemp -d "$WG_SAMPLE_REPOS_CACHE/.making.XXXXXX")
		make_samples "$made" $fmt
		mv -T "$made" "$cached" 2>/dev/null || rm -rf "$made"
	fi
	for repo in "$cached"/*.git; do
		rm -rf "${dir:?}/$(basename "$repo")"
		cp -a "$repo" "$dir/"
	done
}

# The fast-import stream for big.git, on stdout.
big_stream() {
	python3 - <<'PY'
import random, sys

r = random.Random(20250101)
out = sys.stdout.buffer
COMMITS = 12000
T0 = 1500000000

def w(s):
    out.write(s.encode() if isinstance(s, str) else s)

def data(b):
    w(b"data %d\n" % len(b)); w(b); w(b"\n")

# Source-like text: identifiers from a fixed vocabulary, so it compresses and
# deltas like code does.
words = ["".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(r.randint(3, 10)))
         for _ in range(600)]

def text_line():
    k = r.random()
    ind = "\t" * r.randint(0, 3)
    if k < 0.10:
        return ""
    if k < 0.25:
        return ind + "/* " + " ".join(r.choice(words) for _ in range(r.randint(3, 10))) + " */"
    if k < 0.35:
        return ind + "if (%s %s %d) {" % (r.choice(words), r.choice(["<", ">", "==", "!="]), r.randint(0, 999))
    if k < 0.45:
        return ind + "}"
    return ind + "%s = %s(%s);" % (r.choice(words), r.choice(words),
                                    ", ".join(r.choice(words) for _ in range(r.randint(0, 4))))

modules = ["src/%s/%s" % (r.choice(words), r.choice(words)) for _ in range(40)]
files = {}          # path -> list of lines (the main branch)
for i in range(320):
    files["%s/%s.c" % (r.choice(modules), r.choice(words))] = [text_line() for _ in range(r.randint(20, 200))]
assets = {}         # path -> bytes (the main branch)
authors = [("Alice Example", "alice@example.com"), ("Bob Example", "bob@example.com"),
           ("Carol Example", "carol@example.com"), ("Dan Example", "dan@example.com"),
           ("Eve Example", "eve@example.com")]

mark = 0
t = T0

def edit(lines):
    """Change a file a little: insert, delete or rewrite a few lines."""
    for _ in range(r.randint(1, 4)):
        k = r.random()
        pos = r.randint(0, len(lines))
        if k < 0.5 or len(lines) < 10:
            lines[pos:pos] = [text_line() for _ in range(r.randint(1, 8))]
        elif k < 0.7:
            del lines[pos:pos + r.randint(1, 5)]
        else:
            for j in range(pos, min(pos + r.randint(1, 3), len(lines))):
                lines[j] = text_line()
    return lines

def blob_text(lines):
    return ("\n".join(lines) + "\n").encode()

def commit(ref, msg, changes, frm=None, merge=None):
    """changes: list of (path, bytes or None for delete, mode)."""
    global mark, t
    mark += 1
    t += r.randint(60, 1200)
    name, email = authors[mark % len(authors)]
    w("commit %s\nmark :%d\n" % (ref, mark))
    w("author %s <%s> %d +0000\n" % (name, email, t))
    w("committer %s <%s> %d +0000\n" % (name, email, t))
    data(msg.encode())
    if frm:
        w("from :%d\n" % frm)
    if merge:
        w("merge :%d\n" % merge)
    for path, content, mode in changes:
        if content is None:
            w("D %s\n" % path)
        else:
            w("M %s inline %s\n" % (mode, path))
            data(content)
    return mark

# The first commit has everything.
first = [(p, blob_text(l), "100644") for p, l in sorted(files.items())]
first.append(("README.md", b"# big\n\nA generated repository for benchmarks.\n", "100644"))
first.append(("tools/build.sh", b"#!/bin/sh\nmake -j\"$(nproc)\"\n", "100755"))
main_tip = commit("refs/heads/main", "initial import\n", first)

n = 1
topic = 0
tags = 0
next_asset = 70
asset_events = 0
while n < COMMITS:
    if n % 40 == 0:
        # A topic branch of a few commits on files main leaves alone
        # meanwhile, then merged back (with the side's final contents).
        topic += 1
        ref = "refs/heads/topic/%d" % (topic % 5)
        side_files = set(r.sample(sorted(files), 3))
        side = {p: list(files[p]) for p in side_files}
        side_tip = main_tip
        first_side = True
        for k in range(r.randint(2, 6)):
            p = r.choice(sorted(side_files))
            side[p] = edit(side[p])
            side_tip = commit(ref, "topic %d: step %d\n" % (topic, k),
                              [(p, blob_text(side[p]), "100644")],
                              frm=side_tip if first_side else None)
            first_side = False
            n += 1
        for k in range(r.randint(1, 4)):
            p = r.choice(sorted(set(files) - side_files))
            files[p] = edit(files[p])
            main_tip = commit("refs/heads/main", "main: %s\n" % r.choice(words),
                              [(p, blob_text(files[p]), "100644")])
            n += 1
        files.update(side)
        main_tip = commit("refs/heads/main", "Merge topic %d\n" % topic,
                          [(p, blob_text(side[p]), "100644") for p in sorted(side_files)],
                          merge=side_tip)
        n += 1
        continue

    changes = []
    for p in r.sample(sorted(files), r.randint(1, 3)):
        files[p] = edit(files[p])
        changes.append((p, blob_text(files[p]), "100644"))
    k = r.random()
    if k < 0.004:
        # A new file.
        p = "%s/%s.c" % (r.choice(modules), r.choice(words))
        files[p] = [text_line() for _ in range(r.randint(20, 120))]
        changes.append((p, blob_text(files[p]), "100644"))
    elif k < 0.006 and len(files) > 100:
        p = r.choice(sorted(files))
        del files[p]
        changes = [c for c in changes if c[0] != p] + [(p, None, "")]
    if n >= next_asset:
        # Incompressible assets every 140 commits: two new ones, then a
        # small edit of an old one (which deltas well).
        next_asset += 140
        asset_events += 1
        if asset_events % 3 == 0:
            p = r.choice(sorted(assets))
            b = bytearray(assets[p])
            for _ in range(20):
                off = r.randrange(len(b))
                b[off:off + 64] = r.randbytes(64)
            assets[p] = bytes(b)
        else:
            p = "assets/%s/%s.bin" % (r.choice(words), r.choice(words))
            assets[p] = r.randbytes(r.randint(400_000, 2_000_000))
        changes.append((p, assets[p], "100644"))
    main_tip = commit("refs/heads/main", "%s: %s %s\n" % (changes[0][0].split("/")[1], r.choice(words), r.choice(words)), changes)
    n += 1
    if n % 500 == 0:
        tags += 1
        t += 60
        w("tag v%d.0\nfrom :%d\ntagger Release Bot <release@example.com> %d +0000\n" % (tags, main_tip, t))
        data(("release %d.0\n" % tags).encode())

w("reset refs/heads/release\nfrom :%d\n\n" % main_tip)
w("done\n")
PY
}

make_big() {
	local dir=$1 bare=$1/big.git start=$SECONDS
	rm -rf "$bare"
	g init -q --bare --object-format=sha1 --ref-format=files "$bare"
	big_stream | g -C "$bare" fast-import --quiet --done
	g -C "$bare" symbolic-ref HEAD refs/heads/main
	# fast-import deltas a blob only against the blob written just before
	# it (mostly another file), so compute real deltas, as a server's gc
	# would: -f.
	g -C "$bare" repack -a -d -f -q
	g -C "$bare" pack-refs --all
	configure "$bare"
	describe "$bare"
	local pack
	for pack in "$bare"/objects/pack/*.pack; do
		printf '  %s: %s bytes\n' "$(basename "$pack")" "$(wc -c <"$pack")"
	done
	printf '  made in %d s\n' $((SECONDS - start))
}

# The fast-import stream for history.git, on stdout.
history_stream() {
	python3 - <<'PY'
import random, sys

r = random.Random(20261204)
out = sys.stdout.buffer
COMMITS, FILES = 21000, 1600
T0 = 1400000000

def w(s):
    out.write(s.encode() if isinstance(s, str) else s)

def data(b):
    w(b"data %d\n" % len(b)); w(b); w(b"\n")

words = ["".join(r.choice("abcdefghijklmnopqrstuvwxyz_") for _ in range(r.randint(3, 12)))
         for _ in range(900)]

def line():
    k = r.random()
    ind = "    " * r.randint(0, 3)
    if k < 0.12:
        return ""
    if k < 0.25:
        return ind + "// " + " ".join(r.choice(words) for _ in range(r.randint(2, 9)))
    if k < 0.40:
        return ind + "if (%s(%s) %s %d) {" % (r.choice(words), r.choice(words),
                                              r.choice(["<", ">", "==", "!="]), r.randint(0, 99))
    if k < 0.50:
        return ind + "}"
    return ind + "%s = %s(%s);" % (r.choice(words), r.choice(words),
                                    ", ".join(r.choice(words) for _ in range(r.randint(0, 3))))

dirs = ["%s/%s" % (r.choice(["src", "lib", "tests", "tools"]), r.choice(words)) for _ in range(60)]
dirs += ["%s/%s" % (d, r.choice(words)) for d in dirs[:40]]
files = {}
def new_file():
    path = "%s/%s.%s" % (r.choice(dirs), r.choice(words), r.choice(["c", "h", "py", "js", "md"]))
    files[path] = [line() for _ in range(r.randint(20, 200))]
    return path
while len(files) < FILES:
    new_file()

mark = 0
def blob(path):
    global mark
    mark += 1
    w("blob\nmark :%d\n" % mark)
    data(("\n".join(files[path]) + "\n").encode())
    return mark

def edit(path):
    ls = files[path]
    for _ in range(r.randint(1, 4)):
        i = r.randrange(len(ls) + 1)
        k = r.random()
        if k < 0.5 and ls:
            ls[min(i, len(ls) - 1)] = line()
        elif k < 0.8 or not ls:
            ls[i:i] = [line() for _ in range(r.randint(1, 3))]
        else:
            del ls[min(i, len(ls) - 1)]

commit_no = 0
def commit(ref, parents, changes, msg):
    global mark, commit_no
    commit_no += 1
    blobs = [(p, blob(p)) for p in changes]
    mark += 1
    t = T0 + commit_no * 600
    w("commit %s\nmark :%d\n" % (ref, mark))
    w("author A U Thor <author@example.com> %d +0000\n" % t)
    w("committer C O Mitter <committer@example.com> %d +0000\n" % t)
    data(msg.encode())
    if parents:
        w("from :%d\n" % parents[0])
        for p in parents[1:]:
            w("merge :%d\n" % p)
    for p, b in blobs:
        w("M 100644 :%d %s\n" % (b, p))
    w("\n")
    return mark

names = sorted(files)
main = commit("refs/heads/main", [], names, "Initial import\n")
n = 1
while n < COMMITS:
    if n % 50 == 0:
        # a topic branch of a few commits, merged back
        topic = main
        for _ in range(r.randint(2, 5)):
            changed = r.sample(sorted(files), r.randint(1, 3))
            for p in changed:
                edit(p)
            topic = commit("refs/heads/topic", [topic], changed, "topic: %s\n" % r.choice(words))
            n += 1
        main = commit("refs/heads/main", [main, topic], [], "Merge branch 'topic'\n")
    else:
        changed = [new_file()] if r.random() < 0.02 else r.sample(sorted(files), r.randint(1, 3))
        for p in changed:
            edit(p)
        main = commit("refs/heads/main", [main], changed,
                      "%s: %s\n" % (changed[0].split("/")[-1], " ".join(r.choice(words) for _ in range(5))))
    n += 1
    if n % 500 == 0:
        w("tag v%d\nfrom :%d\ntagger C O Mitter <committer@example.com> %d +0000\n" %
          (n // 500, main, T0 + commit_no * 600))
        data(b"release\n")
w("done\n")
PY
}

# make_history DIR [FORMAT]: DIR/history.git, or with sha256
# DIR/history-sha256.git, the same history in that object format (the
# SHA-256 clone's cost beside the SHA-1 one's)
make_history() {
	local dir=$1 fmt=${2:-sha1} start=$SECONDS bare
	bare=$dir/history$([ "$fmt" = sha1 ] || echo "-$fmt").git
	rm -rf "$bare"
	g init -q --bare --object-format="$fmt" --ref-format=files "$bare"
	history_stream | g -C "$bare" fast-import --quiet --done
	g -C "$bare" symbolic-ref HEAD refs/heads/main
	g -C "$bare" update-ref -d refs/heads/topic
	# git's defaults (window 10, depth 50), deltas recomputed as a
	# server's gc would.
	g -C "$bare" repack -a -d -f -q
	g -C "$bare" pack-refs --all
	configure "$bare"
	describe "$bare"
	local pack
	for pack in "$bare"/objects/pack/*.pack; do
		printf '  %s: %s bytes\n' "$(basename "$pack")" "$(wc -c <"$pack")"
	done
	printf '  made in %d s\n' $((SECONDS - start))
}

if [ "${1:-}" = --history ] || [ "${1:-}" = --history-sha256 ]; then
	[ $# -eq 2 ] || { echo "usage: $0 --history[-sha256] DIR" >&2; exit 2; }
	mkdir -p "$2"
	make_history "$(cd "$2" && pwd)" "$([ "$1" = --history ] && echo sha1 || echo sha256)"
elif [ "${1:-}" = --big ]; then
	[ $# -eq 2 ] || { echo "usage: $0 --big DIR" >&2; exit 2; }
	mkdir -p "$2"
	make_big "$(cd "$2" && pwd)"
elif [ $# -eq 1 ] && [ "${1#-}" = "$1" ]; then
	mkdir -p "$1"
	samples "$(cd "$1" && pwd)"
elif [ $# -eq 3 ] && [ "$1" = --format ] && { [ "$2" = sha1 ] || [ "$2" = sha256 ]; }; then
	mkdir -p "$3"
	samples "$(cd "$3" && pwd)" "$2"
else
	echo "usage: $0 DIR | $0 --format (sha1|sha256) DIR | $0 --big DIR | $0 --history[-sha256] DIR" >&2
	exit 2
fi
