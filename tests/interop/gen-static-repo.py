#!/usr/bin/env python3
"""A `git fast-import` stream for tests/interop/t39-static-read.sh: a
repository whose pack is over 20 MB, made in seconds and the same every time.

  gen-static-repo.py [--commits N] [--big M] [--big-size BYTES] | git fast-import

History on refs/heads/main (N commits, by one author at fixed times):
  - the first commit adds M incompressible blobs assets/blob-K.bin of
    BYTES each (a seeded generator: most of the pack's size);
  - every commit edits one of 200 small text files src/dNN/fMM.txt;
  - every 20th commit (up to 60 of them) drops a line of
    docs/deep/notes.txt, which starts at 400 lines, and rewrites another:
    it only shrinks, so git's delta search (largest first) makes each
    older version the base of the next smaller one, and the file at main
    ends a long delta chain;
  - an annotated tag v1.0 on commit N/2, a lightweight tag light on N/4,
    and branch side at commit N/3.
"""
import random
import sys

args = sys.argv[1:]
def opt(name, default):
    return int(args[args.index(name) + 1]) if name in args else default

commits = opt('--commits', 2000)
big = opt('--big', 11)
big_size = opt('--big-size', 2 * 1024 * 1024)
rng = random.Random(39)
out = sys.stdout.buffer
mark = 0

def data(b):
    out.write(b'data %d\n' % len(b))
    out.write(b)
    out.write(b'\n')

def blob(b):
    global mark
    mark += 1
    out.write(b'blob\nmark :%d\n' % mark)
    data(b)
    return mark

words = [w.encode() for w in (
    'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron '
    'pi rho sigma tau upsilon phi chi psi omega static range pack index tree blob').split()]

def text(lines, seed):
    r = random.Random(seed)
    return b''.join(b'%d %s\n' % (i, b' '.join(r.choice(words) for _ in range(8)))
                    for i in range(lines))

notes = text(400, 7).splitlines(keepends=True)
small = {}
commit_marks = []
when = 1700000000
for c in range(commits):
    files = []
    if c == 0:
        for k in range(big):
            files.append((b'assets/blob-%d.bin' % k, blob(rng.randbytes(big_size))))
        files.append((b'docs/deep/notes.txt', blob(b''.join(notes))))
        files.append((b'README', blob(b'a repository on a static host\n')))
    d, f = c % 20, (c * 7) % 10
    path = b'src/d%02d/f%d.txt' % (d, f)
    small[path] = small.get(path, 0) + 1
    files.append((path, blob(text(30 + small[path] % 5, c) + b'edit %d\n' % c)))
    if c % 20 == 19 and len(notes) > 340:
        # one line fewer and one line rewritten: each version is closest
        # to the one before it, so the chain runs through all of them
        del notes[rng.randrange(len(notes))]
        notes[rng.randrange(len(notes))] = b'rewritten %d %s\n' % (c, b' '.join(
            rng.choice(words) for _ in range(6)))
        files.append((b'docs/deep/notes.txt', blob(b''.join(notes))))
    out.write(b'commit refs/heads/main\nmark :%d\n' % (mark + 1))
    mark += 1
    commit_marks.append(mark)
    out.write(b'author A U Thor <author@example.com> %d +0000\n' % (when + c * 60))
    out.write(b'committer C O Mitter <committer@example.com> %d +0000\n' % (when + c * 60))
    data(b'commit %d\n' % c)
    if c:
        out.write(b'from :%d\n' % commit_marks[c - 1])
    for p, m in files:
        out.write(b'M 100644 :%d %s\n' % (m, p))
    out.write(b'\n')
out.write(b'tag v1.0\nfrom :%d\ntagger T Agger <tagger@example.com> %d +0000\n'
          % (commit_marks[commits // 2], when))
data(b'version 1.0\n')
out.write(b'reset refs/tags/light\nfrom :%d\n\n' % commit_marks[commits // 4])
out.write(b'reset refs/heads/side\nfrom :%d\n\n' % commit_marks[commits // 3])
