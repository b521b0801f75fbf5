#!/usr/bin/env bash
# t33-blame: webgit blame against git's, byte for byte, on histories a
# seeded generator writes like code is written: C-like files edited by
# inserted, deleted, changed and moved blocks; renames with and without
# edits; side branches that change the same files (top and bottom) merged
# back, some resolved one-sided; files deleted and added again; empty
# files, files without a final newline, CRLF files; authors with
# different names (one not ASCII), dates and zones, and committer dates
# that go back in time now and then. For every file at the tip and at a
# few older commits: --porcelain, --line-porcelain, the default format,
# -L ranges, -s -l -e -t, -f -n, --root and --abbrev; the working tree's
# version (no revision: edits, a file new in the index, a rename in the
# working tree, CRLF under core.autocrlf, a conflicted merge, -M and -C);
# then a shallow clone, whose cut-off commit is a boundary. Then a history crafted for
# -M and -C (see gen-moves.py below): every file at the tip with -M, -C,
# -C -C, -C -C -C, the thresholds and -w. Both object formats.

. "$(dirname "$0")/lib.sh"
require_webgit

W=$WEBGIT
T=$PWD/tmp-t33 && rm -rf "$T" && mkdir -p "$T"

cat >"$T/gen.py" <<'PY'
import os, random, subprocess, sys

git, repo, seed, ncommits = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(seed)
WORDS = "count size name value next prev buf len data item list node key err out tmp idx".split()
AUTHORS = [("Ann Author", "ann@example.com", "+0100"), ("Bo", "bo@example.org", "-0530"),
           ("Jos\u00e9 N\u00fa\u00f1ez", "jose@example.net", "+0000"),
           ("Chris Q. Longername", "chris@example.com", "+1345"), ("Di", "di@x.io", "-1000")]
when = [1690000000]

def ident():
    return rnd.choice(WORDS) + ("_" + rnd.choice(WORDS) if rnd.random() < 0.5 else "")

def stmt(depth):
    ind = "\t" * depth
    r = rnd.random()
    if r < 0.12:
        return ""
    if r < 0.2:
        return ind + "/* %s the %s */" % (rnd.choice(WORDS), rnd.choice(WORDS))
    if r < 0.3:
        return ind + "}"
    return ind + "%s = %s(%s, %d);" % (ident(), ident(), ident(), rnd.randint(0, 99))

def function():
    ls = ["static int %s_%d(void)" % (ident(), rnd.randint(0, 999)), "{"]
    ls += [stmt(1) for _ in range(rnd.randint(2, 10))]
    return ls + ["\treturn 0;", "}", ""]

def new_lines():
    ls = ["/* %s */" % " ".join(rnd.choice(WORDS) for _ in range(4)), "#include <stdio.h>", ""]
    for _ in range(rnd.randint(1, 5)):
        ls += function()
    return ls

def read(path):
    data = open(path, "rb").read().decode("utf-8")
    crlf = "\r\n" in data
    if crlf:
        data = data.replace("\r\n", "\n")
    eol = data.endswith("\n")
    ls = data.split("\n")
    if eol or data == "":
        ls.pop()
    return ls, eol, crlf

def write(path, ls, eol=True, crlf=False):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    nl = "\r\n" if crlf else "\n"
    data = nl.join(ls) + (nl if eol and ls else "")
    open(path, "wb").write(data.encode("utf-8"))

def edit(ls, where=None):
    n = len(ls)
    lo, hi = (0, n) if where is None else ((0, n // 3) if where == "top" else (2 * n // 3, n))
    at = rnd.randint(lo, hi)
    r = rnd.random()
    if r < 0.25 or n < 6:
        ls[at:at] = function()
    elif r < 0.45:
        del ls[at:at + rnd.randint(1, 6)]
    elif r < 0.65 and where is None:
        k = rnd.randint(2, min(10, n // 2))
        s = rnd.randint(0, n - k)
        blk = ls[s:s + k]
        del ls[s:s + k]
        t = rnd.randint(0, len(ls))
        ls[t:t] = blk
    else:
        for _ in range(rnd.randint(1, 4)):
            i = rnd.randint(lo, max(lo, min(hi, n) - 1))
            if i < len(ls):
                ls[i] = stmt(rnd.randint(1, 2))
    return ls

def run(*a, check=True):
    return subprocess.run([git, "-C", repo] + list(a), check=check,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode

def commit(msg):
    name, mail, tz = rnd.choice(AUTHORS)
    when[0] += rnd.randint(60, 86400)
    cdate = when[0] - (rnd.randint(3600, 200000) if rnd.random() < 0.1 else 0)
    env = dict(os.environ, GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=mail,
               GIT_AUTHOR_DATE="%d %s" % (when[0] - rnd.randint(0, 5000), tz),
               GIT_COMMITTER_NAME="Com Mitter", GIT_COMMITTER_EMAIL="c@example.com",
               GIT_COMMITTER_DATE="%d %s" % (cdate, rnd.choice(AUTHORS)[2]))
    subprocess.run([git, "-C", repo, "add", "-A"], check=True)
    subprocess.run([git, "-C", repo, "commit", "-q", "--allow-empty", "-m", msg], check=True, env=env)
    return env

def files():
    out = subprocess.run([git, "-C", repo, "ls-files"], check=True, capture_output=True, text=True)
    return [f for f in out.stdout.split("\n") if f]

def p(f):
    return os.path.join(repo, f)

def change(where=None, allow_struct=True):
    live = [f for f in files() if os.path.exists(p(f)) and f != "empty.txt"]
    r = rnd.random()
    if not live or (r < 0.12 and allow_struct):
        f = rnd.choice(["src/", "lib/", ""]) + ident() + ".c"
        write(p(f), new_lines(), rnd.random() > 0.2, rnd.random() < 0.15)
        return
    f = rnd.choice(live)
    if allow_struct and r < 0.2:
        dst = rnd.choice(["src/", "lib/", "moved/"]) + ident() + "_" + str(rnd.randint(0, 99)) + ".c"
        if not os.path.exists(p(dst)):
            os.makedirs(os.path.dirname(p(dst)), exist_ok=True)
            run("mv", f, dst)
            if rnd.random() < 0.6:
                ls, eol, crlf = read(p(dst))
                write(p(dst), edit(ls), eol, crlf)
        return
    if allow_struct and r < 0.25 and len(live) > 3:
        gone.append((f, read(p(f))))
        os.remove(p(f))
        return
    if allow_struct and r < 0.3 and gone:
        f, (ls, eol, crlf) = gone.pop(0)
        if not os.path.exists(p(f)):
            write(p(f), edit(ls) if rnd.random() < 0.5 else ls, eol, crlf)
        return
    ls, eol, crlf = read(p(f))
    if r < 0.33:
        eol = not eol
    write(p(f), edit(ls, where), eol, crlf)

gone = []
write(p("empty.txt"), [])
write(p("README"), ["Read me", "line two"], eol=False)
write(p("src/main.c"), new_lines())
write(p("win.c"), new_lines(), crlf=True)
commit("initial\n\nthe first files")
c = 0
last_merge = 0
while c < ncommits:
    if c - last_merge >= 6:
        last_merge = c
        side = "side%d" % c
        run("checkout", "-q", "-b", side)
        for _ in range(rnd.randint(1, 3)):
            change("bottom", allow_struct=False)
            commit("side %d" % c)
            c += 1
        run("checkout", "-q", "main")
        for _ in range(rnd.randint(1, 2)):
            change("top", allow_struct=False)
            commit("main %d" % c)
            c += 1
        env = dict(os.environ, GIT_COMMITTER_DATE="%d +0200" % (when[0] + 30),
                   GIT_AUTHOR_DATE="%d +0200" % (when[0] + 30))
        opts = ["-X", "ours"] if rnd.random() < 0.3 else []
        if subprocess.run([git, "-C", repo, "merge", "-q", "--no-ff", "-m", "merge side%d" % c]
                          + opts + [side], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
            run("merge", "--abort", check=False)
        when[0] += 60
        continue
    for _ in range(rnd.randint(1, 3)):
        change()
    commit("commit %d\n\n%s" % (c, " ".join(rnd.choice(WORDS) for _ in range(8))) if c % 7 else "\n\n   \n  subject after blank lines %d" % c)
    c += 1
PY

# A second history for -M and -C: blocks moved within files, functions
# swapped, lines cut and copied from one file into another in the same
# commit, new files made of pieces of others, lines copied from files the
# commit left alone, files deleted with their lines moved elsewhere,
# renames with moves, blocks reindented as they move (for -w), short
# stretches moved (below and above -M5/-M40/-C10), a merge whose sides
# both move lines.
cat >"$T/gen-moves.py" <<'PY'
import os, random, subprocess, sys

git, repo, seed, ncommits = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(seed)
WORDS = "alpha beta gamma delta count size name value next prev buf len data item list node".split()
when = [1700000000]
serial = [0]

def fn():
    serial[0] += 1
    name = "%s_%s_%d" % (rnd.choice(WORDS), rnd.choice(WORDS), serial[0])
    ls = ["static int %s(int %s)" % (name, rnd.choice(WORDS)), "{"]
    for _ in range(rnd.randint(2, 9)):
        r = rnd.random()
        if r < 0.15:
            ls.append("")
        elif r < 0.25:
            ls.append("\t}")
        else:
            ls.append("\t%s = %s(%s, %d);" % (rnd.choice(WORDS), rnd.choice(WORDS),
                                              rnd.choice(WORDS), rnd.randint(0, 999)))
    return ls + ["\treturn 0;", "}", ""]

def small():
    # a stretch with few letters and digits: short moves fall below -M/-C
    return rnd.choice([["\t}", "}", ""], ["\ti++;", "\tj--;"], ["x = 1;", "y = 2;", "z = 3;"],
                       ["\t{", "\t\tab = cd;", "\t}"], ["/* ok */"]])

def read(f):
    with open(os.path.join(repo, f)) as fh:
        return fh.read().split("\n")[:-1]

def write(f, ls):
    path = os.path.join(repo, f)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as fh:
        fh.write("".join(l + "\n" for l in ls))

def files():
    out = subprocess.run([git, "-C", repo, "ls-files"], check=True, capture_output=True, text=True)
    return [f for f in out.stdout.split("\n") if f]

def block(ls, lo=2, hi=12):
    k = rnd.randint(min(lo, len(ls)), min(hi, len(ls)))
    s = rnd.randint(0, len(ls) - k)
    return s, k

def commit(msg):
    when[0] += rnd.randint(60, 86400)
    env = dict(os.environ, GIT_AUTHOR_NAME=rnd.choice(["Ann", "Bo Bee", "Cy"]),
               GIT_AUTHOR_EMAIL="a@example.com", GIT_AUTHOR_DATE="%d +0100" % when[0],
               GIT_COMMITTER_NAME="C", GIT_COMMITTER_EMAIL="c@example.com",
               GIT_COMMITTER_DATE="%d +0100" % when[0])
    subprocess.run([git, "-C", repo, "add", "-A"], check=True)
    subprocess.run([git, "-C", repo, "commit", "-q", "--allow-empty", "-m", msg], check=True, env=env)

def move_within(f):
    ls = read(f)
    if len(ls) < 4:
        return
    s, k = block(ls)
    blk = ls[s:s + k]
    del ls[s:s + k]
    t = rnd.randint(0, len(ls))
    ls[t:t] = blk
    if rnd.random() < 0.3:
        ls.insert(rnd.randint(0, len(ls)), "\tnew_line_%d();" % rnd.randint(0, 99))
    write(f, ls)

def swap_functions(f):
    ls = read(f)
    starts = [i for i, l in enumerate(ls) if l.startswith("static int")]
    if len(starts) < 2:
        return
    a, b = sorted(rnd.sample(range(len(starts)), 2))
    ends = starts[1:] + [len(ls)]
    fa, fb = ls[starts[a]:ends[a]], ls[starts[b]:ends[b]]
    ls = ls[:starts[a]] + fb + ls[ends[a]:starts[b]] + fa + ls[ends[b]:]
    write(f, ls)

def copy_across(src, dst, cut):
    sl, dl = read(src), read(dst)
    if len(sl) < 3:
        return
    s, k = block(sl)
    blk = sl[s:s + k]
    if cut:
        del sl[s:s + k]
    else:
        sl.insert(rnd.randint(0, len(sl)), "\tchanged_%d();" % rnd.randint(0, 99))
    t = rnd.randint(0, len(dl))
    dl[t:t] = blk
    write(src, sl)
    write(dst, dl)

def new_from_copies(dst, srcs):
    out = []
    for s in srcs:
        sl = read(s)
        if sl:
            a, k = block(sl, 3, 15)
            out += sl[a:a + k]
        out += fn() if rnd.random() < 0.5 else []
    write(dst, out)

def reindent(f):
    ls = read(f)
    s, k = block(ls)
    for i in range(s, s + k):
        ls[i] = ls[i].replace("\t", "    ").replace(" = ", "  =  ")
    blk = ls[s:s + k]
    del ls[s:s + k]
    t = rnd.randint(0, len(ls))
    ls[t:t] = blk
    write(f, ls)

def short_move(f):
    ls = read(f)
    blk = small()
    t = rnd.randint(0, len(ls))
    ls[t:t] = blk
    write(f, ls)
    commit("short lines into %s" % f)
    ls = read(f)
    del ls[t:t + len(blk)]
    t2 = rnd.randint(0, len(ls))
    ls[t2:t2] = blk
    write(f, ls)

for i, f in enumerate(["a.c", "b.c", "lib/c.c", "lib/d.c"]):
    ls = []
    for _ in range(rnd.randint(3, 6)):
        ls += fn()
    write(f, ls)
commit("initial")
serial_files = [0]
def side_merge(c):
    run = lambda *a: subprocess.run([git, "-C", repo] + list(a), stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL).returncode
    run("checkout", "-q", "-b", "side%d" % c)
    fs = files()
    copy_across(fs[0], fs[-1], False)
    commit("side: lines from %s into %s" % (fs[0], fs[-1]))
    run("checkout", "-q", "main")
    move_within(fs[1 % len(fs)])
    commit("main: move a block of %s" % fs[1 % len(fs)])
    when[0] += 60
    env = dict(os.environ, GIT_COMMITTER_DATE="%d +0000" % when[0], GIT_AUTHOR_DATE="%d +0000" % when[0])
    if subprocess.run([git, "-C", repo, "merge", "-q", "--no-ff", "-m", "merge side%d" % c, "side%d" % c],
                      env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
        run("merge", "--abort")

for c in range(ncommits):
    if c == ncommits // 2:
        side_merge(c)
    fs = files()
    r = rnd.random()
    f = rnd.choice(fs)
    other = rnd.choice([g for g in fs if g != f] or [f])
    if r < 0.15:
        move_within(f)
        what = "move a block within %s" % f
    elif r < 0.25:
        swap_functions(f)
        what = "swap two functions of %s" % f
    elif r < 0.4:
        copy_across(other, f, rnd.random() < 0.5)
        what = "lines from %s into %s (both changed)" % (other, f)
    elif r < 0.5:
        serial_files[0] += 1
        dst = rnd.choice(["", "lib/", "new/"]) + "copy%d.c" % serial_files[0]
        new_from_copies(dst, rnd.sample(fs, min(len(fs), rnd.randint(1, 3))))
        what = "new file %s from pieces of others" % dst
    elif r < 0.6:
        # lines from a file this commit does not touch
        dl = read(f)
        sl = read(other)
        if sl:
            s, k = block(sl)
            dl[rnd.randint(0, len(dl)):0] = sl[s:s + k]
        write(f, dl)
        what = "lines from unchanged %s into %s" % (other, f)
    elif r < 0.68 and len(fs) > 3:
        # a file deleted, its lines moved into another
        sl = read(f)
        os.remove(os.path.join(repo, f))
        dl = read(other)
        for s in range(0, len(sl), 7):
            dl.insert(rnd.randint(0, len(dl)), "")
            t = rnd.randint(0, len(dl))
            dl[t:t] = sl[s:s + 7]
        write(other, dl)
        what = "%s deleted, its lines into %s" % (f, other)
    elif r < 0.76:
        reindent(f)
        what = "reindent and move a block of %s" % f
    elif r < 0.84:
        short_move(f)
        what = "short lines moved in %s" % f
    elif r < 0.9:
        dst = "moved/%s" % os.path.basename(f)
        if not os.path.exists(os.path.join(repo, dst)):
            os.makedirs(os.path.join(repo, "moved"), exist_ok=True)
            subprocess.run([git, "-C", repo, "mv", f, dst], check=True)
            move_within(dst)
        what = "rename %s and move lines" % f
    else:
        ls = read(f)
        t = rnd.randint(0, len(ls))
        ls[t:t] = fn()
        write(f, ls)
        what = "a new function in %s" % f
    commit(what)
PY

NCOMMITS=${WG_T33_COMMITS:-40}
for FMT in sha1 sha256; do
	R=$T/$FMT
	"$GIT" init -q -b main --object-format=$FMT "$R"
	check "$FMT: generate the history" python3 "$T/gen.py" "$GIT" "$R" $([ $FMT = sha1 ] && echo 33 || echo 66) "$NCOMMITS"
	cd "$R" || exit 1
	same() {
		check_same "$FMT: blame $*" "\"\$GIT\" blame $*" "\"\$W\" blame $*"
	}
	mapfile -t FILES < <("$GIT" ls-files)
	note "$FMT: $(${GIT} rev-list --count HEAD) commits, $(${GIT} rev-list --merges --count HEAD) merges, ${#FILES[@]} files"
	for f in "${FILES[@]}"; do
		n=$(wc -l <"$f")
		same --porcelain HEAD -- "$f"
		same --line-porcelain "$f"
		same "$f"
		same -s -l -e -t "$f"
		same -f -n --root "$f"
		same --abbrev=4 HEAD "$f"
		if [ "$n" -gt 6 ]; then
			same -L 3,$((n / 2)) --porcelain "$f"
			same -L 2,+3 -L $((n - 1)) "$f"
			same -L ,4 -L 5,-2 -n "$f"
		fi
	done
	# older commits: every file they have
	mapfile -t OLD < <("$GIT" rev-list --first-parent HEAD | sed -n '4p;11p;20p')
	for c in "${OLD[@]}"; do
		mapfile -t OF < <("$GIT" ls-tree -r --name-only "$c")
		for f in "${OF[@]}"; do
			same --porcelain "$c" -- "$f"
			same "$c" "$f"
		done
	done
	# a merge's second parent and a tag name as the revision
	"$GIT" tag -f v1 HEAD~2 >/dev/null
	f1=$("$GIT" ls-tree -r --name-only v1 | tail -n 1)
	same --line-porcelain v1 -- "$f1"
	M=$("$GIT" rev-list --merges -1 HEAD)
	f2=$("$GIT" ls-tree -r --name-only "$M^2" | head -n 1)
	same -l "$M^2" -- "$f2"
	# bad input: a clear error, no crash
	top=$(printf '%s\n' "${FILES[@]}" | grep -v / | grep -v -m1 empty.txt)
	check_fail "$FMT: blame of a missing path" "$W" blame HEAD -- no/such/file
	check_fail "$FMT: blame of a directory" "$W" blame HEAD -- src
	check_fail "$FMT: -L past the end" "$W" blame -L 9999,10000 "$top"
	check_fail "$FMT: -L 0" "$W" blame -L 0,1 "$top"
	check_fail "$FMT: bad revision" "$W" blame nosuchrev -- "$top"
	check_output "$FMT: blame of an empty file prints nothing" "" "$W" blame empty.txt
	# a subdirectory: the path is relative to it
	sub=$(printf '%s\n' "${FILES[@]}" | grep -m1 /)
	cd "${sub%/*}" || exit 1
	check_same "$FMT: blame in a subdirectory" \
		"\"\$GIT\" blame --porcelain ${sub##*/}" "\"\$W\" blame --porcelain ${sub##*/}"
	check_same "$FMT: blame of ./ and ../ paths in a subdirectory" \
		"\"\$GIT\" blame ./${sub##*/} && \"\$GIT\" blame -s ../$top" \
		"\"\$W\" blame ./${sub##*/} && \"\$W\" blame -s ../$top"
	cd "$R" || exit 1
	check_fail "$FMT: a path outside the repository" "$W" blame ../outside
	# -w: a commit that only reindents and respaces lines is passed over
	w=$top
	cp "$w" "$T/ws.orig"
	sed -e 's/^\t/    /' -e 's/ = / =  /' -e 's/;$/;  /' "$T/ws.orig" >"$w"
	printf 'a new line\n' >>"$w"
	"$GIT" commit -qam "whitespace only, and one new line" || exit 1
	same -w --porcelain "$w"
	same -w "$w"
	same --porcelain "$w"
	"$GIT" reset -q --hard HEAD~ || exit 1
	# the working tree's version (no revision): uncommitted lines are
	# "Not Committed Yet" at the time of the run, whose seconds differ
	# between the two runs: masked, as the dates of 0000000 lines
	wtmask() {
		sed -E -e 's/^(author|committer)-time [0-9]+$/\1-time NOW/' \
			-e '/^\^?0{7}/ s/[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} [-+][0-9]{4}/NOW/'
	}
	same_wt() {
		check_same "$FMT: working tree: blame $*" \
			"\"\$GIT\" blame $* >\"\$T/wt.out\" && wtmask <\"\$T/wt.out\"" \
			"\"\$W\" blame $* >\"\$T/wt.out\" && wtmask <\"\$T/wt.out\""
	}
	mapfile -t WT < <(printf '%s\n' "${FILES[@]}" | grep -v empty.txt | head -n 6)
	check "$FMT: working tree: six files to change (${#WT[@]})" test "${#WT[@]}" -eq 6
	# edits: a line changed, lines added at the end, the first line gone
	for f in "${WT[@]}"; do
		sed -i -e '3s/$/ (edited)/' -e '1d' "$f"
		printf 'new line one\nnew line two\n' >>"$f"
	done
	# lines copied from one changed file into another (-C finds them),
	# a new file staged then edited, a renamed and edited file, CRLF
	# that core.autocrlf turns back into the committed LF
	head -n 12 "${WT[1]}" >>"${WT[0]}"
	printf 'staged\nthen edited\n' >"$T/new.c" && cp "$T/new.c" new-file.c && "$GIT" add new-file.c
	printf 'and more\n' >>new-file.c
	"$GIT" mv "${WT[2]}" renamed-in-worktree.c && printf 'after the move\n' >>renamed-in-worktree.c
	"$GIT" config core.autocrlf true
	sed -i 's/$/\r/' "${WT[3]}"
	for f in "${WT[0]}" "${WT[1]}" "${WT[3]}" "${WT[4]}" new-file.c renamed-in-worktree.c; do
		same_wt --porcelain "$f"
		same_wt "$f"
		same_wt -M -- "$f"
		same_wt -C --line-porcelain "$f"
		same_wt -C -C -s "$f"
		same_wt -L 2,5 -n "$f"
	done
	check_fail "$FMT: working tree: blame of a file deleted there" sh -c "rm -f '${WT[5]}' && '$W' blame '${WT[5]}'"
	check_fail "$FMT: working tree: blame of an untracked file" sh -c "echo x >untracked.c && '$W' blame untracked.c"
	# a merge stopped by a conflict: HEAD and MERGE_HEAD are the parents
	"$GIT" config --unset core.autocrlf
	"$GIT" reset -q --hard && rm -f untracked.c new-file.c
	cf=${WT[0]}
	"$GIT" checkout -q -b wt-side HEAD~3 &&
		sed -i '2s/$/ side/' "$cf" && "$GIT" commit -qam side &&
		"$GIT" checkout -q main && sed -i '2s/$/ main/' "$cf" && "$GIT" commit -qam main
	"$GIT" merge -q wt-side >/dev/null 2>&1
	check "$FMT: working tree: a conflicted merge to blame" test -f .git/MERGE_HEAD
	same_wt --porcelain "$cf"
	same_wt -M "$cf"
	"$GIT" merge --abort
	"$GIT" reset -q --hard HEAD~ && "$GIT" branch -q -D wt-side
	# a shallow clone: the cut-off commit is a boundary
	S=$T/$FMT-shallow
	check "$FMT: shallow clone" "$GIT" clone -q --depth 4 "file://$R" "$S"
	cd "$S" || exit 1
	mapfile -t SF < <("$GIT" ls-files)
	for f in "${SF[@]}"; do
		same --porcelain "$f"
		same "$f"
	done
	cd "$T" || exit 1

	# moves and copies: every file at the tip, with each detection level
	# and threshold, all three output formats
	R=$T/$FMT-moves
	"$GIT" init -q -b main --object-format=$FMT "$R"
	check "$FMT: generate a history of moves and copies" python3 "$T/gen-moves.py" "$GIT" "$R" \
		$([ $FMT = sha1 ] && echo 5 || echo 7) "${WG_T33_MOVE_COMMITS:-30}"
	cd "$R" || exit 1
	mapfile -t FILES < <("$GIT" ls-files)
	note "$FMT moves: $(${GIT} rev-list --count HEAD) commits, ${#FILES[@]} files"
	found_other=0
	for f in "${FILES[@]}"; do
		for o in "" -M -C "-C -C" "-C -C -C" -M5 -M40 -C10 "-C -C -C20" "-w -M" "-w -C -C"; do
			same $o --porcelain -- "$f"
			same $o --line-porcelain -- "$f"
			same $o -- "$f"
		done
		if "$GIT" blame -C -C -C --porcelain -- "$f" | grep "^filename " | grep -qvxF "filename $f"; then
			found_other=$((found_other + 1))
		fi
	done
	# the history must have lines from other files for the tests above to
	# mean something
	check "$FMT moves: some files have lines from others ($found_other)" test "$found_other" -ge 2
	# an older commit, and -L with -M
	mapfile -t OF < <("$GIT" ls-tree -r --name-only HEAD~5)
	for f in "${OF[@]}"; do
		same -C -C --porcelain HEAD~5 -- "$f"
		same -M -L 2,12 HEAD~5 -- "$f"
	done
	cd "$T" || exit 1
done
