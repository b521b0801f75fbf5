#!/usr/bin/env bash
# t25-checkout: webgit checkout / switch / clone move the working tree and
# the index exactly as git does, refuse what git refuses with git's words,
# and never write a path git's verify_path would refuse.
#
#   - Both object formats and both ref formats: a history whose branches
#     differ in every way a checkout meets (changed, added, deleted and
#     renamed files, an executable bit, symbolic links turning into files
#     and back, a file becoming a directory and back, a directory that
#     goes, a gitlink, names that need quoting, .gitattributes line
#     endings: text=auto, eol=crlf, -text, binary content), walked branch
#     to branch by git in one clone and by webgit in another: the same
#     stdout, stderr and exit status, the same files (type, mode, link
#     target, bytes), the same `ls-files -s`, the same reflog and config,
#     and git's status clean after webgit's checkout. Also with
#     core.autocrlf=true and core.symlinks=false.
#   - Local changes: a modified file, a staged change, an untracked file
#     in the way, an untracked file where one leaves, an ignored file in
#     the way: the same refusal (or the same success, with the same list of
#     local changes carried over), and nothing touched when refused;
#     --force takes the new tree.
#   - Malicious trees, each built with git's hash-object --literally: a
#     ".git" entry in any case or HFS/NTFS disguise, "." and "..", names
#     with "/" in them, a ".gitmodules" symlink, a path both a link and a
#     directory: refused before anything is written (no file, no index,
#     HEAD unmoved, nothing outside the working tree).
#   - Over HTTP: `webgit clone` checks out as `git clone` does (a blob over
#     1 MiB streamed from the pack, with and without core.autocrlf); a
#     blob-less partial clone fetches the blobs of its checkout in one
#     request.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/http_lib.sh"
require_webgit

W=$WEBGIT
T=$PWD/tmp-t25 && mkdir -p "$T"
export GIT_COMMITTER_DATE="1700000000 +0000" GIT_AUTHOR_DATE="1700000000 +0000"
export GIT_COMMITTER_NAME=T GIT_COMMITTER_EMAIL=t@example.com
export GIT_AUTHOR_NAME=T GIT_AUTHOR_EMAIL=t@example.com

# said TEXT: the last failing command's stderr says TEXT.
said() {
	cp "$LAST_ERR" "$T/said"
	check "  saying '$1'" grep -qF -- "$1" "$T/said"
}

# make_source DIR FORMAT REFFORMAT: the history the walks check out.
make_source() {
	local d=$1
	"$GIT" init -q -b main --object-format="$2" --ref-format="$3" "$d"
	(
		cd "$d"
		mkdir -p dir/sub deep/er/est
		echo hello >a
		printf 'one\ntwo\n' >b.txt
		printf 'x\r\ny\r\n' >crlf.txt
		printf 'auto\nlf\n' >auto.txt
		printf 'dos\nfile\n' >dos.txt
		printf 'bin\0ary\r\n' >bin.dat
		printf '#!/bin/sh\necho hi\n' >exec.sh && chmod +x exec.sh
		ln -s a link
		ln -s dir dirlink
		echo deep >dir/sub/deep.txt
		echo leaf >deep/er/est/leaf
		echo dfx >dfx
		echo sp >"sp ace.txt"
		echo uni >"na$(printf '\303\257')ve.txt"
		# over 1 MiB: read from a pack as a stream (the HTTP clones below)
		seq 1 250000 >big.txt
		printf '*.txt text=auto\ndos.txt eol=crlf\ncrlf.txt -text\n*.dat binary\n' >.gitattributes
		printf '*.log\n' >.gitignore
		"$GIT" add -A
		"$GIT" update-index --add --cacheinfo "160000,$(printf '%0*d' "$(git_hexlen)" 1),mod"
		"$GIT" commit -qm main
		"$GIT" checkout -qb other
		echo changed >a
		"$GIT" rm -q b.txt
		chmod -x exec.sh
		ln -sf b.txt link
		"$GIT" rm -q dfx && mkdir dfx && echo inner >dfx/inner
		"$GIT" rm -rq dir
		"$GIT" mv auto.txt renamed.txt
		echo new >new.txt
		echo tracked-log >x.log && "$GIT" add -f x.log
		printf 'dos\nfile\nmore\n' >dos.txt
		"$GIT" add -A
		"$GIT" update-index --add --cacheinfo "160000,$(printf '%0*d' "$(git_hexlen)" 2),mod"
		"$GIT" commit -qm other
		"$GIT" checkout -qb third main
		rm link && echo "now a file" >link
		rm a && ln -s b.txt a
		rm dirlink && mkdir dirlink && echo x >dirlink/x
		"$GIT" add -A
		"$GIT" update-index --add --cacheinfo "160000,$(printf '%0*d' "$(git_hexlen)" 1),mod"
		"$GIT" commit -qm third
		"$GIT" checkout -q main
	)
}

git_hexlen() {
	case $FMT in sha256) echo 64 ;; *) echo 40 ;; esac
}

# both ARGS...: the same command with git in g/ and webgit in w/: the
# same stdout, stderr and exit status.
both() {
	local desc="$STEP: $*"
	(cd g && "$GIT" "$@" >"$T/g.out" 2>"$T/g.err"; echo "rc=$?" >>"$T/g.out")
	(cd w && "$W" "$@" >"$T/w.out" 2>"$T/w.err"; echo "rc=$?" >>"$T/w.out")
	check "$desc: the same stdout and exit status" diff "$T/g.out" "$T/w.out"
	check "$desc: the same stderr" diff "$T/g.err" "$T/w.err"
}

# same_state: the two clones hold the same working tree, index and refs.
same_state() {
	check_same "$STEP: the same files" "tree_listing g" "tree_listing w"
	check_same "$STEP: the same ls-files -s" "'$GIT' -C g ls-files -s" "'$GIT' -C w ls-files -s"
	check_same "$STEP: the same status (git's view)" \
		"'$GIT' -C g status --porcelain=v2 --branch --ignored -uall" \
		"'$GIT' -C w status --porcelain=v2 --branch --ignored -uall"
	check_same "$STEP: the same HEAD and reflog" \
		"'$GIT' -C g symbolic-ref -q HEAD; '$GIT' -C g reflog --format='%H %gs'; '$GIT' -C g for-each-ref" \
		"'$GIT' -C w symbolic-ref -q HEAD; '$GIT' -C w reflog --format='%H %gs'; '$GIT' -C w for-each-ref"
	check_same "$STEP: the same config" "'$GIT' -C g config --local --list" \
		"'$GIT' -C w config --local --list"
	check "$STEP: git fsck --strict" "$GIT" -C w fsck --strict --no-progress
}

fresh_clones() {
	rm -rf g w
	"$GIT" clone -q --no-checkout "$@" "$SRC" g
	"$GIT" clone -q --no-checkout "$@" "$SRC" w
}

for combo in sha1:files sha256:reftable sha256:files sha1:reftable; do
	FMT=${combo%%:*} REFS=${combo#*:}
	SRC=$T/src-$FMT-$REFS
	make_source "$SRC" "$FMT" "$REFS"
	C="$FMT/$REFS"

	# branch to branch, as a user walks them
	fresh_clones
	STEP="$C first checkout"
	both checkout main
	same_state
	check "$C: git status is clean after webgit's checkout" \
		test -z "$("$GIT" -C w status --porcelain)"
	for to in other third main "--detach other" "third" "-b topic" "main" "origin/third" \
		"other" "-"; do
		[ "$to" = "-" ] && continue
		STEP="$C checkout $to"
		# shellcheck disable=SC2086 # the words are the arguments
		both checkout $to
		same_state
	done
	STEP="$C switch"
	both switch main
	both switch -c topic2 other
	both switch origin/other
	both switch --detach origin/other
	both switch nosuch
	both checkout nosuch
	same_state

	# line endings and links as settings change them (the settings do not
	# meet the formats: two combinations are enough)
	case $combo in sha256:files | sha1:reftable) continue ;; esac
	for cfg in core.autocrlf=true core.autocrlf=input core.eol=crlf core.symlinks=false; do
		fresh_clones -c "$cfg"
		STEP="$C $cfg"
		both checkout main
		same_state
		both checkout other
		same_state
		both checkout third
		same_state
	done
done

# --- local changes -------------------------------------------------------------------
SRC=$T/src-sha1-files FMT=sha1
C=changes
prepare() {
	fresh_clones
	(cd g && "$GIT" checkout -q main) && (cd w && "$GIT" checkout -q main)
	for d in g w; do (cd $d && eval "$1"); done
}
for change in \
	"echo mine >a" \
	"echo mine >a && '$GIT' add a" \
	"echo mine >b.txt" \
	"echo staged >exec.sh && '$GIT' add exec.sh" \
	"echo untracked >new.txt" \
	"mkdir -p new.txt && echo x >new.txt/inside" \
	"echo ignored >x.log" \
	"rm a" \
	"'$GIT' rm -q --cached dfx" \
	"echo sub-change >deep/er/est/leaf" \
	"echo in-dir >dfx.new && rm dfx && mkdir dfx && echo u >dfx/untracked" \
	"chmod +x a" \
	"rm dfx && '$GIT' rm -q --cached dfx && ln -s '$T/outside' dfx" \
	"rm -r dir && ln -s '$T/outside' dir" \
	"touch a && sleep 1 && touch b.txt"; do
	STEP="$C [$change]"
	# what a link in the working tree points at is never written through
	rm -rf "$T/outside" && mkdir -p "$T/outside" && echo keep >"$T/outside/marker" &&
		echo victim >"$T/outside/x"
	prepare "$change"
	both checkout other
	same_state
	prepare "$change"
	both checkout -f other
	same_state
	prepare "$change"
	both checkout third
	same_state
	check_output "$STEP: nothing written or removed outside the working tree" \
		"$(printf 'keep\nvictim')" cat "$T/outside/marker" "$T/outside/x"
done

# --- malicious trees -----------------------------------------------------------------
# tree_with NAME MODE: a tree holding one entry NAME (mode MODE) whose
# content is a small blob or a tree with one file, built byte by byte.
evil_repo() {
	rm -rf "$T/evil"
	"$GIT" init -q -b main "$T/evil"
	(cd "$T/evil" && echo ok >ok && "$GIT" add ok && "$GIT" commit -qm base)
}
raw_tree() {
	# raw_tree "MODE NAME OID" ...: a tree object from entries (given sorted)
	local e mode name oid
	for e in "$@"; do
		mode=${e%% *} e=${e#* } name=${e%% *} oid=${e#* }
		printf '%s %s\0' "$mode" "$name"
		printf '%s' "$oid" | xxd -r -p
	done | "$GIT" -C "$T/evil" hash-object -t tree -w --literally --stdin
}
evil_case() {
	# evil_case DESC TREE: a commit of TREE on branch evil; webgit refuses
	# to check it out and writes nothing.
	local desc=$1 tree=$2 commit
	commit=$("$GIT" -C "$T/evil" commit-tree "$tree" -m evil -p main)
	"$GIT" -C "$T/evil" update-ref refs/heads/evil "$commit"
	rm -rf "$T/ev" "$T/outside" && mkdir -p "$T/outside"
	echo keep >"$T/outside/marker"
	"$GIT" clone -q --no-checkout "$T/evil" "$T/ev" 2>/dev/null
	(cd "$T/ev" && "$W" checkout -q main)
	before=$(tree_listing "$T/ev"; cat "$T/ev/.git/index" | md5sum; "$GIT" -C "$T/ev" rev-parse HEAD)
	check_fail "evil $desc: webgit refuses the checkout" sh -c "cd '$T/ev' && '$W' checkout evil"
	check_same "evil $desc: nothing in the working tree, index or HEAD changed" \
		"printf '%s\n' \"\$before\"" \
		"tree_listing '$T/ev'; cat '$T/ev/.git/index' | md5sum; '$GIT' -C '$T/ev' rev-parse HEAD"
	check_output "evil $desc: nothing outside" "keep" cat "$T/outside/marker"
	check "evil $desc: nothing else outside" test "$(ls "$T/outside")" = marker
}
evil_repo
blob=$(echo pwned | "$GIT" -C "$T/evil" hash-object -w --stdin)
hook=$(raw_tree "100755 post-checkout $blob")
okb=$("$GIT" -C "$T/evil" rev-parse main:ok)
for name in .git .GIT .Git ".git " ".git." "git~1" ".git::\$INDEX_ALLOCATION" \
	"$(printf '.g\342\200\214it')" "$(printf '.gi\357\273\277t')" . ..; do
	inner=$(raw_tree "40000 hooks $hook")
	evil_case "tree named '$name'" "$(raw_tree "40000 $name $inner" "100644 ok $okb")"
	evil_case "file named '$name'" "$(raw_tree "100644 $name $blob" "100644 ok $okb")"
done
# (a backslash is a name's own byte on Linux, as in git: only ".git"
# after one is refused, as Windows would read it)
for name in "a/b" "/etc" ".git\\config" "..\\.git"; do
	evil_case "name '$name'" "$(raw_tree "100644 $name $blob" "100644 ok $okb")"
done
target=$(printf '%s' "$T/outside" | "$GIT" -C "$T/evil" hash-object -w --stdin)
evil_case "symlink .gitmodules" "$(raw_tree "120000 .gitmodules $target" "100644 ok $okb")"
evil_case "a link and a directory at one path" \
	"$(raw_tree "120000 a $target" "40000 a $(raw_tree "100644 pwned $blob")" "100644 ok $okb")"
evil_case "a file twice" "$(raw_tree "100644 ok $blob" "100644 ok $okb")"

# --- over HTTP ------------------------------------------------------------------------
ROOT=$T/served && mkdir -p "$ROOT"
"$GIT" clone -q --bare "$T/src-sha256-reftable" "$ROOT/r.git"
"$GIT" -C "$ROOT/r.git" config uploadpack.allowfilter true
"$GIT" -C "$ROOT/r.git" config uploadpack.allowanysha1inwant true
start srv --root "$ROOT"
rm -rf gc wc
check "git clone over HTTP" "$GIT" clone -q "$url/git/r.git" gc
check "webgit clone over HTTP" "$W" clone -q "$url/git/r.git" wc
check_same "clone over HTTP: the same files" "tree_listing gc" "tree_listing wc"
check_same "clone over HTTP: the same index" "'$GIT' -C gc ls-files -s" "'$GIT' -C wc ls-files -s"
check "clone over HTTP: git status is clean" test -z "$("$GIT" -C wc status --porcelain)"
rm -rf gc2 wc2
check "git clone -c core.autocrlf=true" "$GIT" clone -q -c core.autocrlf=true "$url/git/r.git" gc2
check "webgit clone -c core.autocrlf=true" "$W" clone -q -c core.autocrlf=true "$url/git/r.git" wc2
check_same "  the same files" "tree_listing gc2" "tree_listing wc2"
check "  the big file has CRLF" grep -q "$(printf '^250000\r$')" wc2/big.txt
rm -rf pc
check "blob-less clone checks out" "$W" clone -q --filter=blob:none "$url/git/r.git" pc
check_same "blob-less clone: the same files" "tree_listing gc" "tree_listing pc"
check_output "blob-less clone: the checkout's blobs came in one request (2 packs)" 2 \
	sh -c "ls pc/.git/objects/pack/*.promisor | wc -l"
check "blob-less clone: git fsck" "$GIT" -C pc fsck --no-progress
# restore and reset --hard in the blob-less clone fetch the blobs they lack
rm -rf gr && "$GIT" clone -q "$url/git/r.git" gr
for step in "restore --source=origin/other ." "reset -q --hard origin/third" \
	"restore --source=ORIG_HEAD -- ." "restore --staged --worktree --source=origin/other -- ."; do
	check "git: $step" sh -c "cd gr && '$GIT' $step"
	check "blob-less clone: $step" sh -c "cd pc && '$W' $step"
	check_same "  the same files as git's" "tree_listing gr" "tree_listing pc"
	check_same "  the same index" "'$GIT' -C gr ls-files -s" "'$GIT' -C pc ls-files -s"
done
check "  git fsck" "$GIT" -C pc fsck --no-progress
check "a bare clone has no working tree" "$W" clone -q --bare "$url/git/r.git" bc
check "  (no index)" test ! -e bc/index
check "--no-checkout leaves the tree empty" "$W" clone -q -n "$url/git/r.git" nc
check_output "  (only .git)" ".git" ls -A nc
