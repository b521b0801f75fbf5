#!/usr/bin/env bash
# tests/server/make-fsck-corpus.sh — repositories whose history carries one
# object that git's fsck flags, one repository per case, made with the
# reference git (hash-object --literally, commit-tree), to be served over
# HTTP and cloned by git (-c transfer.fsckObjects=true) and webgit.
#
#   tests/server/make-fsck-corpus.sh DIR sha1|sha256
#
# Writes DIR/<case>.git (bare, `main` names a commit whose tree or history
# holds the flagged object; tag cases have refs/tags/t too) and DIR/cases,
# one line per case: "<case> <msgId> <webgit default>", where the default is
# what webgit does without configuration: "refuse" (the id is an error in
# webgit's table, object/fsck.h), "warn" (reported, accepted) or "accept"
# (nothing to report: the control cases). Uses $GIT (default: git).
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 DIR sha1|sha256" >&2; exit 2; }
out=$1
fmt=$2
GIT=${GIT:-git}
mkdir -p "$out"
out=$(cd "$out" && pwd)
: >"$out/cases"

export GIT_AUTHOR_NAME="A U Thor" GIT_AUTHOR_EMAIL=author@example.com
export GIT_COMMITTER_NAME="C O Mitter" GIT_COMMITTER_EMAIL=committer@example.com
export GIT_AUTHOR_DATE="1700000000 +0000" GIT_COMMITTER_DATE="1700000000 +0000"

hex2bin() { printf "$(printf '%s' "$1" | sed 's/../\\x&/g')"; }
blob() { printf '%s' "$1" | "$GIT" hash-object -w --stdin; }
# tree ENTRY...: a tree written as given (no sorting, no checks); each
# ENTRY is "<mode> <name> <id>".
tree() {
	local e rest
	for e in "$@"; do
		rest=${e#* }
		printf '%s %s\0' "${e%% *}" "${rest% *}"
		hex2bin "${rest##* }"
	done | "$GIT" hash-object -t tree -w --literally --stdin
}
commit_of() { "$GIT" commit-tree -m "$1" "$2"; }
raw() { printf "$2" | "$GIT" hash-object -t "$1" -w --literally --stdin; }

# new CASE MSGID DEFAULT: start a case's repository (we cd into it).
new() {
	cd "$out"
	"$GIT" init -q --bare --object-format="$fmt" --ref-format=files "$1.git"
	cd "$1.git"
	echo "$1 $2 $3" >>"$out/cases"
	B=$(blob "hello
")
	T=$(tree "100644 a $B")
}
# main COMMIT: point main at it.
# (written as files: update-ref parses what a ref names, and some of these
# objects do not parse)
main() { echo "$1" >refs/heads/main; }
# on_tree TREE: main names a commit of TREE, above a good first commit.
on_tree() { main "$("$GIT" commit-tree -p "$(commit_of first "$T")" -m bad "$1")"; }

# --- controls ---------------------------------------------------------------
new control-plain ok accept
on_tree "$(tree "100644 a $B" "40000 d $T")"
new control-gitmodules ok accept
on_tree "$(tree "100644 .gitmodules $(blob '[submodule "lib"]
	path = lib
	url = https://example.com/lib.git
	update = rebase
')" "100644 a $B")"
new gitattributes-symlink gitattributesSymlink warn
on_tree "$(tree "120000 .gitattributes $B" "100644 a $B")"

# --- tree entries -------------------------------------------------------------
new dotgit hasDotgit refuse
on_tree "$(tree "100644 .git $B" "100644 a $B")"
new dotgit-case hasDotgit refuse
on_tree "$(tree "40000 .GiT $T" "100644 a $B")"
new dotgit-ntfs-short hasDotgit refuse
on_tree "$(tree "100644 a $B" "40000 git~1 $T")"
new dotgit-ntfs-trailing hasDotgit refuse
on_tree "$(tree "40000 .git. $T" "100644 a $B")"
new dotgit-hfs hasDotgit refuse
on_tree "$(tree "40000 .gi$(printf '\342\200\214')t $T" "100644 a $B")"
new dot hasDot refuse
on_tree "$(tree "40000 . $T" "100644 a $B")"
new dotdot hasDotdot refuse
on_tree "$(tree "40000 .. $T" "100644 a $B")"
new full-pathname fullPathname refuse
on_tree "$(tree "100644 a $B" "100644 b/c $B")"
new duplicate duplicateEntries refuse
on_tree "$(tree "100644 a $B" "100644 a $B")"
new duplicate-dir duplicateEntries refuse
on_tree "$(tree "100644 a $B" "40000 a $T")"
new unsorted treeNotSorted refuse
on_tree "$(tree "100644 b $B" "100644 a $B")"
new bad-filemode badFilemode refuse
on_tree "$(tree "100666 a $B")"
new zero-padded-filemode zeroPaddedFilemode warn
on_tree "$(tree "100644 a $B" "040000 d $T")"
new null-gitlink nullSha1 warn
on_tree "$(tree "100644 a $B" "160000 sub $(printf '%0*d' "${#B}" 0)")"
new gitmodules-symlink gitmodulesSymlink refuse
on_tree "$(tree "120000 .gitmodules $B" "100644 a $B")"
new gitmodules-symlink-ntfs gitmodulesSymlink refuse
on_tree "$(tree "120000 GITMOD~1 $B" "100644 a $B")"

# --- .gitmodules and .gitattributes contents -------------------------------------
gitmodules_case() {   # CASE MSGID DEFAULT TEXT
	new "$1" "$2" "$3"
	on_tree "$(tree "100644 .gitmodules $(blob "$4")" "100644 a $B")"
}
gitmodules_case gitmodules-name gitmodulesName refuse '[submodule "../../hooks"]
	path = x
	url = https://example.com/x.git
'
gitmodules_case gitmodules-url-option gitmodulesUrl refuse '[submodule "x"]
	path = x
	url = --upload-pack=touch$IFS/tmp/pwned
'
gitmodules_case gitmodules-url-newline gitmodulesUrl refuse '[submodule "x"]
	path = x
	url = https://example.com/%0ahost=evil.example/x.git
'
gitmodules_case gitmodules-url-relative-newline gitmodulesUrl refuse '[submodule "x"]
	path = x
	url = ./x%0a.git
'
gitmodules_case gitmodules-url-climb gitmodulesUrl refuse '[submodule "x"]
	path = x
	url = ../../:example.com/x.git
'
gitmodules_case gitmodules-url-bad-host gitmodulesUrl refuse '[submodule "x"]
	path = x
	url = http::https://exa mple.com/x.git
'
gitmodules_case gitmodules-url-bad-port gitmodulesUrl refuse '[submodule "x"]
	path = x
	url = https://example.com:99999/x.git
'
gitmodules_case gitmodules-path-option gitmodulesPath refuse '[submodule "x"]
	path = --x
	url = https://example.com/x.git
'
gitmodules_case gitmodules-update-command gitmodulesUpdate refuse '[submodule "x"]
	path = x
	url = https://example.com/x.git
	update = !touch pwned
'
# git's parser calls back entry by entry: what comes before a syntax error
# is still checked.
gitmodules_case gitmodules-url-before-syntax-error gitmodulesUrl refuse '[submodule "x"]
	url = -oops
[broken
'
gitmodules_case gitmodules-unparsable gitmodulesParse warn '[submodule "x"
	path = x
'
new gitmodules-tree gitmodulesBlob refuse
on_tree "$(tree "40000 .gitmodules $T" "100644 a $B")"
new gitattributes-long-line gitattributesLineLength refuse
on_tree "$(tree "100644 .gitattributes $(blob "*.c $(printf 'x%.0s' $(seq 1 3000))=text
")" "100644 a $B")"
new gitattributes-tree gitattributesBlob refuse
on_tree "$(tree "40000 .gitattributes $T" "100644 a $B")"

# --- commits -------------------------------------------------------------------------
commit_case() {   # CASE MSGID DEFAULT BODY-AFTER-TREE-LINE
	new "$1" "$2" "$3"
	main "$(raw commit "tree $T\n$4")"
}
A="author A U Thor <author@example.com> 1700000000 +0000"
C="committer C O Mitter <committer@example.com> 1700000000 +0000"
commit_case commit-missing-author missingAuthor refuse "$C\n\nx\n"
commit_case commit-multiple-authors multipleAuthors refuse "$A\n$A\n$C\n\nx\n"
commit_case commit-missing-committer missingCommitter refuse "$A\n\nx\n"
commit_case commit-bad-email badEmail refuse "author A U Thor <author@example.com 1700000000 +0000\n$C\n\nx\n"
commit_case commit-missing-email missingEmail refuse "author A U Thor 1700000000 +0000\n$C\n\nx\n"
commit_case commit-missing-space-before-email missingSpaceBeforeEmail refuse "author A U Thor<author@example.com> 1700000000 +0000\n$C\n\nx\n"
commit_case commit-missing-space-before-date missingSpaceBeforeDate refuse "author A U Thor <author@example.com>1700000000 +0000\n$C\n\nx\n"
commit_case commit-bad-date badDate refuse "author A U Thor <author@example.com> 17x0000000 +0000\n$C\n\nx\n"
commit_case commit-date-overflow badDateOverflow refuse "author A U Thor <author@example.com> 99999999999999999999999 +0000\n$C\n\nx\n"
commit_case commit-zero-padded-date zeroPaddedDate refuse "author A U Thor <author@example.com> 01700000000 +0000\n$C\n\nx\n"
commit_case commit-bad-timezone badTimezone refuse "author A U Thor <author@example.com> 1700000000 +00x0\n$C\n\nx\n"
commit_case commit-nul-in-message nulInCommit warn "$A\n$C\n\nx\0y\n"

# --- tags ------------------------------------------------------------------------------
tag_case() {   # CASE MSGID DEFAULT BODY-AFTER-OBJECT-LINE
	new "$1" "$2" "$3"
	c=$(commit_of tagged "$T")
	main "$c"
	raw tag "object $c\n$4" >refs/tags/t
}
# (A tag without a type or tag line cannot arrive from git's upload-pack,
# which refuses to serve it; the unit tests cover those ids.)
TG="tagger C O Mitter <committer@example.com> 1700000000 +0000"
tag_case tag-bad-tagger badEmail refuse "type commit\ntag t\ntagger C O Mitter <committer@example.com 1700000000 +0000\n\nx\n"
tag_case tag-missing-tagger missingTaggerEntry warn "type commit\ntag t\n\nx\n"
tag_case tag-bad-name badTagName warn "type commit\ntag a..b\n$TG\n\nx\n"
