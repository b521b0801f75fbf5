#!/usr/bin/env python3
# gen-code-history.py: a seeded history written like code is written, for
# the diff interop tests (t31, t32): C-like files with functions, nested
# blocks and blank lines, edited by inserted, deleted, moved and changed
# blocks, files that lose or gain their final newline, binary files, mode
# changes, symlinks, renames, deletions and names that need quoting, a
# clean merge at the tip, then unstaged and staged edits.
#
#   gen-code-history.py GIT REPO SEED NCOMMITS [tricky]
import os, random, subprocess, sys

git, repo, seed, ncommits = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
# "tricky": also the edits the diff algorithms disagree on (t32)
TRICKY = len(sys.argv) > 5 and sys.argv[5] == "tricky"
rnd = random.Random(seed)
WORDS = "count size name value next prev buf len data item list node key err out tmp idx".split()

def ident():
    return rnd.choice(WORDS) + ("_" + rnd.choice(WORDS) if rnd.random() < 0.5 else "")

def stmt(depth):
    r = rnd.random()
    ind = "\t" * depth
    if r < 0.15 and depth < 4:
        body = [stmt(depth + 1) for _ in range(rnd.randint(1, 4))]
        head = rnd.choice(["if (%s)" % ident(), "while (%s > 0)" % ident(), "for (i = 0; i < %s; i++)" % ident()])
        return "\n".join([ind + head + " {"] + body + [ind + "}"])
    if r < 0.22:
        return ""
    if r < 0.3:
        return ind + "/* %s the %s */" % (rnd.choice(WORDS), rnd.choice(WORDS))
    return ind + "%s = %s(%s, %d);" % (ident(), ident(), ident(), rnd.randint(0, 99))

def function():
    name = ident() + "_" + str(rnd.randint(0, 999))
    lines = ["static int %s(struct %s *%s)" % (name, ident(), ident()), "{"]
    for _ in range(rnd.randint(2, 12)):
        lines.extend(stmt(1).split("\n"))
    lines += ["\treturn 0;", "}", ""]
    return lines

def new_file():
    lines = ["/* %s */" % " ".join(rnd.choice(WORDS) for _ in range(5)), "#include <stdio.h>", ""]
    for _ in range(rnd.randint(1, 8)):
        lines += function()
    return lines

def read_lines(path):
    with open(path, "rb") as f:
        data = f.read().decode("latin-1")
    eol = data.endswith("\n")
    ls = data.split("\n")
    if eol:
        ls.pop()
    return ls, eol

def write_lines(path, ls, eol=True):
    with open(path, "wb") as f:
        f.write(("\n".join(ls) + ("\n" if eol and ls else "")).encode("latin-1"))

def edit(ls):
    """one realistic edit of a list of lines, or (TRICKY) one the
    algorithms disagree on: repeated braces and blanks, blocks swapped,
    lines reindented, CRLF, long runs of a few distinct lines"""
    n = len(ls)
    r = rnd.random()
    at = rnd.randint(0, n)
    if TRICKY and rnd.random() < 0.4:
        r2 = rnd.random()
        if r2 < 0.2 and n > 8:        # swap two blocks
            k = rnd.randint(2, min(10, n // 2))
            s = rnd.randint(0, n - 2 * k)
            ls[s:s + 2 * k] = ls[s + k:s + 2 * k] + ls[s:s + k]
        elif r2 < 0.4:                # braces and blanks that match everywhere
            ls[at:at] = rnd.choice([["}", "", "{"], ["\t}", "", "\t{", "\t\treturn 0;"], ["", ""], ["}"]]) * rnd.randint(1, 4)
        elif r2 < 0.55 and n:         # whitespace-only changes
            for _ in range(rnd.randint(1, 6)):
                i = rnd.randrange(len(ls))
                ls[i] = rnd.choice([ls[i].replace("\t", "    "), ls[i] + " ", ls[i].replace(" ", "  "), " " + ls[i], ls[i].rstrip()])
        elif r2 < 0.65 and n:         # CRLF on some lines
            for i in range(rnd.randrange(n), min(n, rnd.randrange(n) + 10)):
                if not ls[i].endswith("\r"):
                    ls[i] += "\r"
        elif r2 < 0.8:                # a long run of few distinct lines
            ls[at:at] = [rnd.choice(["x", "y", "z", "", "}"]) for _ in range(rnd.randint(20, 300))]
        else:                         # a function duplicated with edits
            if n > 10:
                s = rnd.randint(0, n - 8)
                blk = ls[s:s + rnd.randint(4, 12)]
                for _ in range(2):
                    if blk:
                        blk[rnd.randrange(len(blk))] = stmt(1)
                ls[at:at] = blk
        return ls
    if r < 0.2:                       # a new function
        ls[at:at] = function()
    elif r < 0.35 and n > 4:          # delete a range
        k = rnd.randint(1, min(12, n))
        del ls[at:at + k]
    elif r < 0.5 and n > 10:          # move a block
        k = rnd.randint(2, min(15, n // 2))
        s = rnd.randint(0, n - k)
        blk = ls[s:s + k]
        del ls[s:s + k]
        t = rnd.randint(0, len(ls))
        ls[t:t] = blk
    elif r < 0.65:                    # change some lines
        for _ in range(rnd.randint(1, 5)):
            if ls:
                i = rnd.randrange(len(ls))
                ls[i] = stmt(rnd.randint(1, 3)).split("\n")[0]
    elif r < 0.8:                     # blank-line heavy insertion in a block
        blk = []
        for _ in range(rnd.randint(1, 3)):
            blk += stmt(1).split("\n") + [""]
        ls[at:at] = blk
    elif r < 0.9:                     # duplicate a block (repeats to slide over)
        if n > 3:
            k = rnd.randint(1, min(6, n))
            s = rnd.randint(0, n - k)
            ls[s + k:s + k] = ls[s:s + k]
    else:                             # wrap lines into a new block
        if n > 6:
            s = rnd.randint(0, n - 4)
            k = rnd.randint(1, 3)
            ls[s:s + k] = ["\tif (%s) {" % ident()] + ["\t" + x for x in ls[s:s + k]] + ["\t}"]
    return ls

def run(*a):
    subprocess.run([git, "-C", repo] + list(a), check=True, stdout=subprocess.DEVNULL)

files = []
def name():
    base = rnd.choice(["src/", "lib/", "", "src/deep/x/"]) + ident()
    if rnd.random() < 0.08:
        base += rnd.choice([" with space", "\ttab", "-\u00e9"])
    return base + rnd.choice([".c", ".c", ".h", ".txt"])

def add_file(path, lines, eol=True):
    os.makedirs(os.path.join(repo, os.path.dirname(path)) or repo, exist_ok=True)
    write_lines(os.path.join(repo, path), lines, eol)
    files.append(path)

for _ in range(8):
    add_file(name(), new_file())
with open(os.path.join(repo, "blob.bin"), "wb") as f:
    f.write(bytes(rnd.randrange(256) for _ in range(3000)) + b"\0")
os.symlink("src", os.path.join(repo, "link"))
run("add", "-A")
run("commit", "-q", "-m", "initial\n\nwith a body\n\tand a tab")

for c in range(ncommits):
    os.environ["GIT_COMMITTER_DATE"] = os.environ["GIT_AUTHOR_DATE"] = "%d +0%d00" % (1700000000 + 3600 * c, c % 10)
    for _ in range(rnd.randint(1, 4)):
        live = [f for f in files if os.path.exists(os.path.join(repo, f))]
        r = rnd.random()
        if not live or r < 0.08:
            add_file(name(), new_file())
            continue
        f = rnd.choice(live)
        p = os.path.join(repo, f)
        if r < 0.65:
            ls, eol = read_lines(p)
            for _ in range(rnd.randint(1, 4)):
                ls = edit(ls)
            if rnd.random() < 0.1:
                eol = not eol
            write_lines(p, ls, eol)
        elif r < 0.72:
            os.chmod(p, 0o755 if not os.access(p, os.X_OK) else 0o644)
        elif r < 0.82:
            to = name()
            os.makedirs(os.path.join(repo, os.path.dirname(to)) or repo, exist_ok=True)
            if os.path.exists(os.path.join(repo, to)):
                continue
            run("mv", f, to)
            files.append(to)
            if rnd.random() < 0.6:
                ls, eol = read_lines(os.path.join(repo, to))
                write_lines(os.path.join(repo, to), edit(ls), eol)
        elif r < 0.88:
            os.remove(p)
        elif r < 0.94:
            with open(os.path.join(repo, "blob.bin"), "r+b") as b:
                b.seek(rnd.randrange(3000))
                b.write(bytes([rnd.randrange(256)]))
        else:
            l = os.path.join(repo, "link")
            if os.path.lexists(l):
                os.remove(l)
                if rnd.random() < 0.5:
                    write_lines(l, ["now a file"])
                else:
                    os.symlink(rnd.choice(["lib", "src/x", "../out"]), l)
            else:
                os.symlink("src", l)
    run("add", "-A")
    run("commit", "-q", "--allow-empty", "-m", "commit %d\n\n%s" % (c, " ".join(rnd.choice(WORDS) for _ in range(12))))

# a merge without conflicts at the tip (a side branch adds a file)
main = subprocess.run([git, "-C", repo, "symbolic-ref", "--short", "HEAD"], capture_output=True,
                      text=True, check=True).stdout.strip()
run("checkout", "-q", "-b", "side", "HEAD~2")
add_file("side/" + ident() + ".c", new_file())
run("add", "-A")
run("commit", "-q", "-m", "on the side")
run("checkout", "-q", main)
run("merge", "-q", "--no-edit", "side")

# unstaged and staged changes for diff and diff --cached
live = [f for f in files if os.path.exists(os.path.join(repo, f))]
for f in rnd.sample(live, min(3, len(live))):
    ls, eol = read_lines(os.path.join(repo, f))
    write_lines(os.path.join(repo, f), edit(edit(ls)), eol)
run("add", "-A")
for f in rnd.sample(live, min(4, len(live))):
    p = os.path.join(repo, f)
    if rnd.random() < 0.2:
        os.remove(p)
    elif rnd.random() < 0.2:
        os.chmod(p, 0o755)
    else:
        ls, eol = read_lines(p)
        write_lines(p, edit(ls), eol)
