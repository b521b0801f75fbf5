#!/usr/bin/env bash
# t30-branch-tag: webgit branch and tag against git's, in twin
# repositories driven by the same commands with the same environment:
# after every step the two agree on stdout, stderr and exit code, on
# every ref and HEAD, on the reflogs of HEAD and of every branch (and the
# raw .git/logs with the files backend), on .git/config, and git fsck
# --strict passes on webgit's repository. Creation (tracking from a
# remote-tracking branch, --track from a local one, --no-track, -f, -f -t
# to the same value), the listings (-a, -r, --list patterns, -v, -vv
# with ahead/behind, --show-current, a detached HEAD), -u and
# --unset-upstream, delete (-d of merged, unmerged and current branches,
# -D, -r), rename and copy (-m of the current branch, onto an existing
# branch with and without force, into a subdirectory of itself, -c with
# the config section), bad names; lightweight and annotated tags, -f
# with "Updated tag", -d, -l with patterns, a missing object, bad names;
# the listing filters --contains, --no-contains, --merged and --no-merged
# of both (repeated, combined, defaulting to HEAD, on tags, trees and
# missing names, outside list mode).
# Both object formats and both ref formats.

. "$(dirname "$0")/lib.sh"
require_webgit

W=$WEBGIT
T=$PWD/tmp-t30 && rm -rf "$T" && mkdir -p "$T"
export GIT_COMMITTER_DATE="1700000000 +0000" GIT_AUTHOR_DATE="1700000000 +0000"
export GIT_COMMITTER_NAME=T GIT_COMMITTER_EMAIL=t@example.com
export GIT_AUTHOR_NAME=T GIT_AUTHOR_EMAIL=t@example.com
export GIT_EDITOR=false

# state DIR: what the repository holds, as git reads it. (A fixed handful
# of git processes, not one per ref and one per tag: this runs twice after
# every step, and those processes were most of the script's time. The
# reflogs of all refs come from one `git log -g`, which walks each ref's
# reflog in turn, every entry named by its full selector, refs/heads/x@{n};
# the tags from one `git cat-file --batch`, each object after a "tag"
# line with its name, id, type and size.)
state() {
	(
		cd "$1" || exit 1
		echo "HEAD $("$GIT" rev-parse -q --verify HEAD) $("$GIT" symbolic-ref -q HEAD)"
		"$GIT" for-each-ref --format='%(refname) %(objectname) %(symref)'
		echo "reflog HEAD"
		"$GIT" reflog show --format='%H %gn <%ge> %gd %gs' HEAD -- 2>&1
		local refs
		refs=$("$GIT" for-each-ref --format='%(refname)' refs/heads refs/remotes refs/tags)
		echo "reflogs of the refs"
		# (no ref at all: log -g would fall back to HEAD's, shown above)
		[ -z "$refs" ] || "$GIT" log -g --format='%H %gn <%ge> %gD %gs' $refs -- 2>&1
		log_files .git/logs
		echo "config"
		cat .git/config
		"$GIT" for-each-ref --format='%(refname) %(refname)' refs/tags |
			"$GIT" cat-file --batch='tag %(rest) %(objectname) %(objecttype) %(objectsize)'
	)
}

# both and on_both: lib.sh's twin-repository helpers

for combo in sha1:files sha256:reftable sha1:reftable sha256:files; do
	FMT=${combo%%:*} REFS=${combo#*:}
	C="$FMT/$REFS"
	G=$T/g-$FMT-$REFS V=$T/w-$FMT-$REFS
	"$GIT" init -q -b main --object-format="$FMT" --ref-format="$REFS" "$G"
	"$GIT" init -q -b main --object-format="$FMT" --ref-format="$REFS" "$V"
	if [ "$FMT" = sha1 ]; then MISSING=$(printf '%039d1' 0); else MISSING=$(printf '%063d1' 0); fi

	on_both 'echo a >a && "$GIT" add a && "$GIT" commit -q -m one &&
		echo b >b && "$GIT" add b && "$GIT" commit -q -m two &&
		"$GIT" update-ref refs/remotes/origin/main HEAD~1 &&
		"$GIT" config remote.origin.url /nowhere &&
		"$GIT" config remote.origin.fetch "+refs/heads/*:refs/remotes/origin/*"'

	both "list, one branch" branch
	both "create from a remote-tracking branch: tracks it" branch t1 origin/main
	both "--track from a local branch" branch --track t2 main
	both "--no-track" branch --no-track t3 origin/main
	both "create an existing branch" branch t1
	both "-f an existing branch" branch -f t1 HEAD
	both "-f the current branch" branch -f main
	both "a bad name" branch 'a..b'
	both "a bad start point" branch x nope
	both "-d the current branch" branch -d main
	both "-D the current branch" branch -D main
	both "rename onto an existing branch" branch -m t2 t1
	both "-d a missing branch" branch -d nope
	both "-v" branch -v
	both "-vv" branch -vv
	both "-d a branch merged to HEAD but not to its upstream" branch -d t1
	both "rename the current branch onto itself" branch -m main
	both "-f -t" branch -f -t t3 origin/main
	both "-f -t to the same value again" branch -f -t t3 origin/main
	both "-u" branch -u origin/main
	both "-vv with the current branch tracking" branch -vv
	both "--unset-upstream" branch --unset-upstream
	both "--unset-upstream without upstream" branch --unset-upstream
	both "-a" branch -a
	both "-r" branch -r
	both "--list with a pattern" branch --list 't*'
	both "--list with two patterns, -v" branch -v --list 't1' 'm*'
	both "--show-current" branch --show-current
	both "-D" branch -D t2
	both "rename to a bad name" branch -m t3 'a b'
	both "-c with the config section" branch -c t3 t5
	both "-c onto an existing branch" branch -c t3 t5
	both "-C onto an existing branch" branch -C t1 t5
	both "-m into a subdirectory of its own name" branch -m t3 t3/sub
	both "-m back out of it" branch -m t3/sub t3
	both "-M the current branch onto an existing one" branch -M main t5
	both "-m the current branch" branch -m t5 main
	both "-m a missing branch" branch -m nope other
	both "-r -d" branch -r -d origin/main
	both "-r -d a missing remote-tracking branch" branch -r -d origin/main
	on_both '"$GIT" update-ref refs/heads/u $(echo u | "$GIT" commit-tree HEAD^{tree} -p HEAD)'
	both "-d an unmerged branch" branch -d u
	both "-D an unmerged branch" branch -D u
	both "-d a merged branch" branch -d t3
	on_both '"$GIT" checkout -q --detach HEAD~1'
	both "list with a detached HEAD" branch
	both "-v with a detached HEAD" branch -v
	both "--show-current detached" branch --show-current
	both "-m while detached" branch -m x
	on_both '"$GIT" checkout -q main'

	both "tag list, empty" tag
	both "lightweight tag" tag v1
	both "existing tag" tag v1
	both "annotated tag" tag -a -m "msg  here " v2
	both "annotated tag, two paragraphs, on HEAD~1" tag -m "a" -m "b" v3 HEAD~1
	both "-f moves a tag" tag -f v1 HEAD~1
	both "-f to the same value" tag -f v1 HEAD~1
	both "-l" tag -l
	both "-l with a pattern" tag -l 'v[12]'
	both "-d" tag -d v1
	both "-d a missing tag" tag -d nope
	both "a missing object" tag x "$MISSING"
	both "an unknown revision" tag x nope
	both "a bad tag name" tag 'bad..name'
	both "tag a tag" tag -m "nested" v4 v2

	# the listing filters: --contains, --no-contains, --merged, --no-merged
	on_both '"$GIT" branch side HEAD~1 && "$GIT" tag tree-tag "HEAD^{tree}" &&
		"$GIT" update-ref refs/heads/side2 $(echo s | "$GIT" commit-tree "HEAD~1^{tree}" -p HEAD~1)'
	both "--contains" branch --contains HEAD~1
	both "--contains as the last argument: HEAD" branch --contains
	both "-v --no-contains" branch -v --no-contains main
	both "--merged (HEAD)" branch --merged
	both "--no-merged (HEAD)" branch --no-merged
	both "--merged twice: either" branch --merged side2 --merged main
	both "--no-contains twice: neither" branch --no-contains side2 --no-contains main
	both "--contains with --no-merged" branch --contains HEAD~1 --no-merged main
	both "--contains=<commit> with a pattern" branch --contains=HEAD~1 's*'
	both "--contains an annotated tag's commit" branch --contains v3
	both "--contains a missing name" branch --contains nope
	both "--merged a missing name" branch --merged nope
	both "--merged a tree" branch --merged 'HEAD^{tree}'
	both "--contains a tree" branch --contains 'HEAD^{tree}'
	ERR_DIFFERS=1 both "-d with --contains: usage" branch -d side --contains
	both "tag --contains" tag --contains HEAD~1
	both "tag --no-contains (HEAD)" tag --no-contains
	both "tag --merged" tag --merged HEAD~1
	both "tag --no-merged" tag --no-merged side2
	both "tag -l with a pattern and --contains" tag -l 'v*' --contains HEAD~1
	both "tag --contains a missing name" tag --contains nope
	both "tag --no-merged a tree" tag --no-merged 'HEAD^{tree}'
	both "tag -d with --no-merged and --contains" tag -d v2 --no-merged --contains HEAD
	ERR_DIFFERS=1 both "tag -m with --contains: usage" tag -m x --contains HEAD
done
