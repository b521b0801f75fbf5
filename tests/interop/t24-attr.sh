#!/usr/bin/env bash
# t24-attr: webgit check-attr against git check-attr, byte for byte, over
# generated trees (nested .gitattributes, info/attributes, the global file
# from XDG and from core.attributesFile, macros, quoted and negative
# patterns, invalid names, long lines, CRLF and a BOM), with and without
# --cached; then the line-ending decision (core/worktree/convert.c through
# tests/tools/eol_tool.c) against git ls-files --eol and against the bytes
# git checkout and git add write under every setting.

. "$(dirname "$0")/lib.sh"
require_webgit

TOOL=$(dirname "$WEBGIT")/eol_tool
[ -x "$TOOL" ] || skip_all "eol_tool not built (tests/tools/eol_tool.c)"
export GIT_ATTR_NOSYSTEM=1

RANDOM=2024
pick() { local a=("$@"); printf '%s' "${a[RANDOM % ${#a[@]}]}"; }

PATS=('*' '*.c' '*.h' '*.txt' 'a*' '*b' 'x?z' '[ab]*' 'd1/*' 'd1/**' '**/x.c' '/x.c' '/d1/d2/*.c'
      'd2/' 'd1/d2/' 'x.c' 'README' '*.[ch]' '**/d2/**' 'd*/x*' '\*.c' 'q\ x' 'sub/**/deep'
      '*.TXT' 'D1/*' '**' 'd2/x.c' 'e/*.c' '*/y' 'y/')
ATTRS=(text -text '!text' 'text=auto' 'eol=lf' 'eol=crlf' crlf -crlf 'crlf=input' binary -binary
       diff -diff 'diff=cpp' merge 'a=1' 'a=2' -a '!a' b -b 'c=x=y' 'c=' mac -mac mac2 'd.e-f_g'
       'filter=lfs' ident)
NAMES=(x.c y.h a.txt ab bz xyz README q\ x deep A.TXT Makefile 'tab	name' 'quo"te' 'caf'$'\xc3\xa9' e.c)
DIRS=('' d1 d1/d2 d1/d2/d3 d2 e sub sub/a sub/a/b D1 y)

gen_lines() {	# count [macros]
	local i j n line
	for ((i = 0; i < $1; i++)); do
		case $((RANDOM % 14)) in
		0) line="# comment $(pick "${ATTRS[@]}")" ;;
		1) line="\"$(pick "${PATS[@]}")\" $(pick "${ATTRS[@]}")" ;;
		2) line="!$(pick "${PATS[@]}") $(pick "${ATTRS[@]}")" ;;
		3) line="[attr]$(pick mac mac2 m3) $(pick "${ATTRS[@]}") $(pick "${ATTRS[@]}")" ;;
		4) line="$(pick "${PATS[@]}") $(pick '%bad' '-' 'builtin_x' '=v' 'ok' 'ok=%')" ;;
		5) line="   $(pick "${PATS[@]}")	$(pick "${ATTRS[@]}")   " ;;
		6) line="\"$(pick 'q x' 'tab\tname' 'quo\"te' 'caf\303\251' 'bad\q' '[attr]mac' 'x.c')\" $(pick "${ATTRS[@]}")" ;;
		*) line=$(pick "${PATS[@]}")
		   n=$((RANDOM % 4))
		   for ((j = 0; j <= n; j++)); do line+=" $(pick "${ATTRS[@]}")"; done ;;
		esac
		printf '%s\n' "$line"
	done
}

make_tree() {	# dir
	local d f
	mkdir -p "$1"
	for d in "${DIRS[@]}"; do
		mkdir -p "$1/${d:-.}"
		for f in "${NAMES[@]}"; do
			[ $((RANDOM % 3)) = 0 ] || printf 'x\n' >"$1/${d:-.}/$f"
		done
		[ $((RANDOM % 4)) = 0 ] || gen_lines $((RANDOM % 12 + 3)) >"$1/${d:-.}/.gitattributes"
	done
	# odd files: CRLF line ends, a BOM, a line too long, no final newline
	printf '\xef\xbb\xbf*.c diff=bom\r\nx.c -diff\r\n' >"$1/d1/d2/.gitattributes"
	{ printf '*.h a=%s\n' "$(head -c 2100 /dev/zero | tr '\0' v)"; printf '*.h b=short'; } >"$1/e/.gitattributes"
}

all_paths() {
	local d f
	for d in "${DIRS[@]}"; do
		for f in "${NAMES[@]}" sub/deep x/; do
			printf '%s\n' "${d:+$d/}$f"
		done
		[ -n "$d" ] && printf '%s/\n' "$d"
	done
}

quote_paths() {	# git's --stdin takes C-quoted names
	while IFS= read -r p; do
		case $p in
		*$'\t'*|*'"'*|*$'\xc3'*) printf '"%s"\n' "$(printf '%s' "$p" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\t/\\t/g')" ;;
		*) printf '%s\n' "$p" ;;
		esac
	done
}

check "make repo" git init -q repo
cd repo || exit 1
make_tree .
mkdir -p .git/info "$HOME/.config/git"
{ gen_lines 15; printf '* bad%%name\n[attr]m3 -text\n'; } >.git/info/attributes
printf '[attr]mac2 -text a=glob\n*.c b=global\n*.txt mac2\n* g=1\n' >"$HOME/.config/git/attributes"
all_paths | quote_paths >../paths
check "path list ($(wc -l <../paths) paths)" test "$(wc -l <../paths)" -ge 150
NAMESARG=(text eol crlf diff merge binary a b c mac mac2 d.e-f_g g filter ident builtin_objectmode)

compare() {	# desc, args...
	local desc=$1
	shift
	check_same "$desc" "\"\$GIT\" check-attr $* <../paths" "\"\$WEBGIT\" check-attr $* <../paths"
	"$GIT" check-attr "$@" <../paths >/dev/null 2>../git.err
	"$WEBGIT" check-attr "$@" <../paths >/dev/null 2>../wg.err
	check "$desc: the same warnings" cmp ../git.err ../wg.err
	if ! cmp -s ../git.err ../wg.err; then diff ../git.err ../wg.err | head -10 | sed 's/^/# /'; fi
}

# git's builtin_objectmode lstat()s every path: only existing ones here
paths_existing() { while IFS= read -r p; do [ -e "$p" ] && printf '%s\n' "$p"; done; }

compare "-a, every path" --stdin -a
compare "-a -z" --stdin -a -z
compare "named attributes" --stdin "${NAMESARG[@]:0:15}"
all_paths | paths_existing | quote_paths >../existing
check_same "builtin_objectmode of existing paths" \
	'"$GIT" check-attr --stdin builtin_objectmode text <../existing' \
	'"$WEBGIT" check-attr --stdin builtin_objectmode text <../existing'
check_same "paths as arguments, '--'" '"$GIT" check-attr text diff -- x.c d1/x.c "q x" d1/d2/ y/' \
	'"$WEBGIT" check-attr text diff -- x.c d1/x.c "q x" d1/d2/ y/'
check_same "one attribute, no '--'" '"$GIT" check-attr diff x.c d1/d2/x.c' \
	'"$WEBGIT" check-attr diff x.c d1/d2/x.c'
check_same "from a subdirectory, with .." 'cd d1 && "$GIT" check-attr -a x.c d2/x.c ../x.c ./y.h' \
	'cd d1 && "$WEBGIT" check-attr -a x.c d2/x.c ../x.c ./y.h'
usage_error() { "$@"; test $? = 129; }	# git's status for a usage error
check "no attribute: usage" usage_error "$WEBGIT" check-attr -- x.c
check "no file: usage" usage_error "$WEBGIT" check-attr text
check "--all and attributes: usage" usage_error "$WEBGIT" check-attr -a text -- x.c
check "files with --stdin: usage" usage_error "$WEBGIT" check-attr --stdin text -- x.c

# the index: commit this tree, then change the working tree's files
check "commit" bash -c 'git add -A && git commit -q -m one'
check_same "builtin_objectmode --cached" \
	'"$GIT" check-attr --cached --stdin builtin_objectmode <../paths' \
	'"$WEBGIT" check-attr --cached --stdin builtin_objectmode <../paths'
make_tree .
rm -f d2/.gitattributes sub/.gitattributes
printf 'x.c only=worktree\n' >d1/.gitattributes
compare "--cached -a (index differs from the working tree)" --stdin -a --cached
compare "-a, working tree first, index for missing files" --stdin -a

# the global file from core.attributesFile (with ~/), and none at all
printf '* from=config\n[attr]mac -text\n' >"$HOME/attrs"
git config core.attributesFile '~/attrs'
compare "core.attributesFile" --stdin -a
git config --unset core.attributesFile
rm -f "$HOME/.config/git/attributes" .git/info/attributes
compare "no global or info file" --stdin -a
git config core.ignorecase true
compare "core.ignoreCase" --stdin -a
git config --unset core.ignorecase
cd ..

# --- line endings ---------------------------------------------------------------------
check "make eol repo" git init -q eol
cd eol || exit 1
printf 'one\ntwo\n' >lf.txt
printf 'one\r\ntwo\r\n' >crlf.txt
printf 'one\r\ntwo\nthree\r\n' >mixed.txt
printf 'one\rtwo\n' >lonecr.txt
printf 'bin\0ary\ntext\n' >nul.txt
printf '\001\002\003\004 ctrl\n' >ctrl.txt
printf 'line\nend\032' >ctrlz.txt
printf 'no newline' >none.txt
: >empty.txt
printf 'ends in cr\r' >endcr.txt
printf 'one\ntwo\r\n' >lfcrlf.txt
FILES=(lf.txt crlf.txt mixed.txt lonecr.txt nul.txt ctrl.txt ctrlz.txt none.txt empty.txt endcr.txt lfcrlf.txt)
check "commit the contents as they are" bash -c 'git -c core.autocrlf=false add . && git commit -q -m eol'

ATTRSETS=('' 'text' '-text' 'text=auto' 'text eol=lf' 'text eol=crlf' 'text=auto eol=crlf'
	  'text=auto eol=lf' 'eol=crlf' 'eol=lf' '-text eol=crlf' 'crlf' '-crlf' 'crlf=input'
	  'binary' 'text=input' 'text=bogus eol=bogus' 'crlf=auto eol=crlf')
mkdir ../blobs ../out
for f in "${FILES[@]}"; do git cat-file blob ":$f" >"../blobs/$f"; done
CONFIGS=(false- false-crlf false-native true- true-crlf input- input-crlf)
bad_checkout=0 bad_checkin=0 bad_ls=0 bad_tool=0 ncase=0
for a in "${ATTRSETS[@]}"; do
	if [ -n "$a" ]; then printf '*.txt %s\n' "$a" >.git/info/attributes; else rm -f .git/info/attributes; fi
	# every file matches *.txt: one answer for all
	read -r t e c < <("$WEBGIT" check-attr text eol crlf -- lf.txt | sed 's/^[^:]*: [^:]*: //' | tr '\n' ' ')
	rm -rf ../out && mkdir ../out && for cfg in "${CONFIGS[@]}"; do mkdir "../out/$cfg"; done
	"$TOOL" all "$t" "$e" "$c" ../blobs ../out "${FILES[@]}" || bad_tool=$((bad_tool + 1))
	for cfg in "${CONFIGS[@]}"; do
		ncase=$((ncase + 1))
		ac=${cfg%%-*} ce=${cfg#*-}
		export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.autocrlf GIT_CONFIG_VALUE_0=$ac
		[ -n "$ce" ] && export GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_1=core.eol GIT_CONFIG_VALUE_1=$ce
		rm -f "${FILES[@]}"
		git checkout -q -- .
		for f in "${FILES[@]}"; do
			if ! cmp -s "../out/$cfg/$f" "$f"; then
				bad_checkout=$((bad_checkout + 1))
				[ $bad_checkout -le 5 ] && note "checkout $f with '$a' autocrlf=$ac eol=$ce differs"
			fi
		done
		# (ls-files lists by name)
		git ls-files --eol | sort >../ls-git
		sort "../out/$cfg/ls-eol" >../ls-ours
		if ! cmp -s ../ls-ours ../ls-git; then
			bad_ls=$((bad_ls + 1))
			[ $bad_ls -le 3 ] && note "ls-files --eol with '$a' autocrlf=$ac eol=$ce: $(diff ../ls-git ../ls-ours | head -4)"
		fi
		# check-in: git add of the next file's content in place of one
		for i in $((RANDOM % ${#FILES[@]})); do
			f=${FILES[i]} src=${FILES[(i + 1) % ${#FILES[@]}]}
			cp "../blobs/$src" "$f"
			git -c core.safecrlf=false add -- "$f"
			if ! git cat-file blob ":$f" | cmp -s "../out/$cfg/add-$f" -; then
				bad_checkin=$((bad_checkin + 1))
				[ $bad_checkin -le 5 ] && note "add $src as $f with '$a' autocrlf=$ac eol=$ce differs"
			fi
		done
		git reset -q
		unset GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0 GIT_CONFIG_KEY_1 GIT_CONFIG_VALUE_1
	done
done
check "eol_tool ran cleanly every time" test $bad_tool = 0
check "git checkout's bytes in all $ncase settings x ${#FILES[@]} contents" test $bad_checkout = 0
check "git ls-files --eol's i/, w/ and attr/ in every case" test $bad_ls = 0
check "git add's blobs in every setting" test $bad_checkin = 0
