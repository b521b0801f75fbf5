#!/usr/bin/env bash
# t23-ignore: webgit's ignore rules (core/worktree/ignore.c) decide every
# path as git does, and `webgit check-ignore` prints what git's prints,
# byte for byte, with the same exit status and the same messages.
#
#   - A generated working tree: .gitignore files at several depths (later
#     lines win, deeper files win), $GIT_DIR/info/exclude and
#     core.excludesFile (the XDG default, then a configured "~/" path),
#     negations, anchored ("/x", "a/x"), directory-only ("x/") and "**"
#     patterns, escaped trailing spaces, "\#" and "\!", a CRLF file, a
#     UTF-8 BOM, NUL bytes, a lone "/" and "!" line, a re-include under an
#     excluded directory (which git refuses), a symlinked .gitignore (not
#     followed), tracked files that patterns would match.
#   - `check-ignore -v -n --stdin` over a few hundred paths (every file and
#     directory, with and without a trailing '/', missing ones, "." and
#     ".." forms, upper-case twins, names that need quoting), with and
#     without --no-index, -z, without -v, from a subdirectory, with
#     core.ignoreCase on; the pattern files shuffled line by line with
#     the same lists again.
#   - Option errors and bad paths: git's message and status.

. "$(dirname "$0")/lib.sh"
require_webgit

W=$WEBGIT
T=$PWD/tmp-t23 && mkdir -p "$T"

# same ARGS...: git and webgit check-ignore, stdin from $T/paths: the
# same stdout, stderr and exit status.
same() {
	local gs=0 ws=0
	"$GIT" check-ignore "$@" <"$T/paths" >"$T/g.out" 2>"$T/g.err" || gs=$?
	"$W" check-ignore "$@" <"$T/paths" >"$T/w.out" 2>"$T/w.err" || ws=$?
	# a list git stops on would check less than it seems to
	if [ "$gs" = 128 ] && [ -z "${FATAL_OK:-}" ]; then
		echo "git died:" >&2
		cat "$T/g.err" >&2
		return 1
	fi
	if [ "$gs" != "$ws" ]; then
		echo "exit status: git $gs, webgit $ws" >&2
		cat "$T/w.err" >&2
		return 1
	fi
	diff "$T/g.out" "$T/w.out" >&2 && diff "$T/g.err" "$T/w.err" >&2
}

# the lines of a file, in a random order (a fixed seed per run)
shuffle() { awk 'BEGIN { srand(23) } { print rand() "\t" $0 }' "$1" | sort | cut -f2-; }

check "make a repository" "$GIT" init -q repo
cd repo || exit 1

# --- the tree -----------------------------------------------------------------
mkdir -p a/b/c a/c a/deep/er/est build/out docs/api logs/keep src/gen/x src/lib \
	 vendor/pkg/sub 'sp ace' Upper/Dir cr bom nul excl/in/side any/foo/bar \
	 any/x/foo/bar foo/bar
cat >.gitignore <<'EOF'
# a comment, then a blank line

*.o
*.log
!keep.log
/build/
docs/*.html
!docs/index.html
logs/
!logs/keep/
!logs/keep/*.log
excl/
!excl/in/side/file
**/foo/bar
vendor/**/sub
a/**/est
trail\ 
trailing-spaces   
\#hash
\!bang
[Tt]mp*
*.sw?
Upper/
EOF
printf 'nested\n*.tmp\n!important.o\n/anchored\nc/\n' >a/.gitignore
printf '!*.tmp\nonly-in-b\n*.o\n' >a/b/.gitignore
printf 'gen/\n!gen/x\nlib/*.a\n' >src/.gitignore
printf '*\n!*.c\n' >src/lib/.gitignore
printf 'crlf\r\n!crlf-keep\r\n*.bak \r\n\r\nspace\\ \r\nx\r \n' >cr/.gitignore
printf '\xef\xbb\xbfbom-first\n#not-a-comment-after-bom\n' >bom/.gitignore
printf 'before\0after\nplain\n\0\nlast' >nul/.gitignore
printf '/\n!\n' >'sp ace/.gitignore'
ln -s ../.gitignore Upper/.gitignore
mkdir -p .git/info "$XDG_CONFIG_HOME/git"
printf 'from-exclude\n*.o\n!special.o\n' >.git/info/exclude
printf 'from-xdg\n*.o\nspecial.o\n*.pyc\n' >"$XDG_CONFIG_HOME/git/ignore"

for f in x.o keep.log a.log build/out/bin build/out/x.o docs/a.html docs/index.html \
	 docs/api/b.html logs/l.log logs/keep/k.log logs/keep/k.txt excl/f excl/in/side/file \
	 any/foo/bar/f any/x/foo/bar/f foo/bar/f vendor/pkg/sub/f vendor/sub \
	 a/deep/er/est/f a/est a/nested a/x.tmp a/important.o a/anchored a/b/anchored \
	 a/b/x.tmp a/b/only-in-b a/b/c/f a/c/f a/b/x.o 'trail ' trail 'trailing-spaces' \
	 '#hash' '!bang' tmp1 Tmp2 x.swp x.swo src/gen/x/f src/gen/y src/lib/l.a src/lib/l.c \
	 src/lib/l.h cr/crlf cr/crlf-keep cr/x.bak 'cr/space ' cr/x $'cr/x\r' bom/bom-first \
	 '#not-a-comment-after-bom' bom/'#not-a-comment-after-bom' nul/before nul/plain \
	 nul/last nul/after 'sp ace/f' Upper/Dir/f from-exclude from-xdg special.o x.pyc \
	 tracked.o a/tracked.log 'q"uote.o' $'tab\t.o' 'caf\303\251.o'; do
	printf 'data\n' >"$f"
done
check "git tracks a few ignored files" "$GIT" add -f tracked.o a/tracked.log build/out/bin src/lib/l.h
find . -path ./.git -prune -o -print | sed -e 's|^\./||' -e '/^\.$/d' | LC_ALL=C sort >"$T/tree"
check "the tree has a few hundred paths" test "$(wc -l <"$T/tree")" -ge 100
# with a trailing '/' (not below the symlink: git refuses that, see below)
grep -vx 'Upper/.gitignore' "$T/tree" | sed 's|$|/|' >"$T/tree-slash"

# every path, as a file and with a trailing '/', missing ones, "." and
# ".." spellings, upper-case twins, quoted names
{
	cat "$T/tree" "$T/tree-slash"
	tr 'a-z' 'A-Z' <"$T/tree"
	sed 's|^|./|' "$T/tree" | head -40
	sed -n 's|^\([^/]*\)/\(.*\)|\1/../\1/\2|p' "$T/tree" | head -40
	printf '%s\n' . ./ a/. a/.. a/b/.. missing missing/ a/missing/x build/missing \
		logs/keep/new.log excl/in/side/new src/gen/x/new '"q\"uote.o"' '"tab\t.o"' \
		'"caf\303\251.o"' '*.o' 'a/*' 'docs/*.html' 'a//b//x.o' "$PWD/x.o" "$PWD/a/"
} >"$T/paths"
check "the list has a few hundred paths" test "$(wc -l <"$T/paths")" -ge 300

# --- the same answers -----------------------------------------------------------
check "-v -n --stdin" same -v -n --stdin
check "-v -n --stdin --no-index" same -v -n --stdin --no-index
check "--stdin (ignored paths only)" same --stdin
check "--stdin --no-index" same --stdin --no-index
grep -v '^"' "$T/paths" | tr '\n' '\0' >"$T/paths.z" && mv "$T/paths.z" "$T/paths"
check "-v -n --stdin -z" same -v -n --stdin -z
check "-z, ignored only" same --stdin -z
cat "$T/tree" "$T/tree-slash" >"$T/paths"
check "paths as arguments, -v -n" same -v -n -- $(head -60 "$T/tree" | grep -v '[ \t"\\]')
check "paths as arguments" same -- $(sed -n '60,140p' "$T/tree" | grep -v '[ \t"\\]')
check "-q, one ignored path" same -q x.o
check "-q, one path not ignored" same -q a/b/c/f
check "-v, a negation counts as a match" same -v keep.log

# from a subdirectory: paths relative to it, ".." up
(cd a && "$GIT" check-ignore -v -n x.o b/x.o ../x.o . .. ../docs/a.html b/c/f >"$T/g.sub" ; echo $? >>"$T/g.sub")
(cd a && "$W" check-ignore -v -n x.o b/x.o ../x.o . .. ../docs/a.html b/c/f >"$T/w.sub" ; echo $? >>"$T/w.sub")
check "from a subdirectory" cmp "$T/g.sub" "$T/w.sub"

# core.excludesFile set: it replaces the XDG file; "~/" is $HOME
cat "$T/tree" "$T/tree-slash" >"$T/paths"
printf 'from-config\n!*.pyc\n' >"$HOME/my-ignore"
"$GIT" config core.excludesFile '~/my-ignore'
check "core.excludesFile" same -v -n --stdin
"$GIT" config core.excludesFile "$T/no-such-file"
check "core.excludesFile missing" same -v -n --stdin
"$GIT" config --unset core.excludesFile

# core.ignoreCase: patterns and paths compared without case
tr 'a-z' 'A-Z' <"$T/tree" >>"$T/paths"
"$GIT" config core.ignoreCase true
check "core.ignoreCase" same -v -n --stdin
check "core.ignoreCase, --no-index" same -v -n --stdin --no-index
"$GIT" config core.ignoreCase false

# every pattern file shuffled: other lines win, the same answers
for f in .gitignore a/.gitignore a/b/.gitignore src/.gitignore .git/info/exclude \
	 "$XDG_CONFIG_HOME/git/ignore"; do
	shuffle "$f" >"$T/shuffled" && cat "$T/shuffled" >"$f"
done
check "shuffled pattern files" same -v -n --stdin
check "shuffled pattern files, --no-index" same -v -n --stdin --no-index

# a large generated .gitignore: many patterns of every kind against every path
awk 'BEGIN { srand(7); split("* ? ** / ! [a-z] x o a b . \\ # log tmp c", t, " ");
	for (i = 0; i < 400; i++) { s = ""; n = 1 + int(rand() * 5);
		for (j = 0; j < n; j++) s = s t[1 + int(rand() * 16)]; print s } }' >.gitignore
check "generated patterns" same -v -n --stdin

# --- errors, as git words them ----------------------------------------------------
export FATAL_OK=1
: >"$T/paths"
check "no path" same
check "-z without --stdin" same -z x
check "--stdin with paths" same --stdin x
check "-q with two paths" same -q x y
check "-q with -v" same -q -v x
check "-n without -v" same -n x
check "an empty path" same ''
check "a path outside the repository" same ../x
check "a path below a symbolic link" same Upper/.gitignore/x
printf 'x.o\n\nkeep.log\n' >"$T/paths"
check "an empty line on stdin" same --stdin
printf '"bad\n' >"$T/paths"
check "a badly quoted line" same --stdin

# a pattern file git thinks too large: a warning, and no patterns from it
if truncate -s 100M big 2>/dev/null; then
	printf 'x.o\n' >>big && mv big a/.gitignore
	printf 'a/x.o\na/y\n' >"$T/paths"
	check "a pattern file over 100 MiB" same -v -n --stdin
	rm -f a/.gitignore
fi
