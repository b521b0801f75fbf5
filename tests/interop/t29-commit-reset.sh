#!/usr/bin/env bash
# t29-commit-reset: webgit commit, reset and restore against git's, in
# twin repositories driven by the same commands with the same
# environment (fixed dates and identities): after every step the two
# agree on stdout, stderr and exit code, on the commit ids (HEAD,
# ORIG_HEAD), on the reflogs of HEAD and the branch (and the raw
# .git/logs with the files backend), on the index entries, on the
# working-tree files and on git status; git fsck --strict passes on
# webgit's repository. Initial commit, multi-paragraph -m, -F, changes of
# every kind in the summary (edits, new, deleted, mode change, binary,
# links, quoted names), --allow-empty, nothing to commit (clean, with
# untracked files, with unstaged changes, unborn), -a, --amend (message
# kept, --author, Author/Date lines), empty messages, a detached HEAD,
# the unmerged refusal, reset --soft/--mixed/--hard, with paths and
# their refusals, restore --staged/--worktree/--source and its errors.
# Both object formats and both ref formats.

. "$(dirname "$0")/lib.sh"
require_webgit

W=$WEBGIT
T=$PWD/tmp-t29 && rm -rf "$T" && mkdir -p "$T"
export GIT_COMMITTER_DATE="1700000000 +0000" GIT_AUTHOR_DATE="1700000000 +0000"
export GIT_COMMITTER_NAME=T GIT_COMMITTER_EMAIL=t@example.com
export GIT_AUTHOR_NAME=T GIT_AUTHOR_EMAIL=t@example.com
export GIT_EDITOR=false

# state DIR: what the repository holds, as git reads it
state() {
	(
		cd "$1" || exit 1
		echo "HEAD $("$GIT" rev-parse -q --verify HEAD) $("$GIT" symbolic-ref -q HEAD)"
		echo "ORIG_HEAD $("$GIT" rev-parse -q --verify ORIG_HEAD)"
		"$GIT" for-each-ref --format='%(refname) %(objectname)'
		for r in HEAD refs/heads/main; do
			echo "reflog $r"
			"$GIT" reflog show --format='%H %gn <%ge> %gd %gs' "$r" -- 2>&1
		done
		log_files .git/logs
		echo "index"
		"$GIT" ls-files -s
		echo "status"
		"$GIT" status --porcelain=v2 --branch -uall
		echo "files"
		tree_listing .
	)
}

# both and on_both: lib.sh's twin-repository helpers

for combo in sha1:files sha256:reftable sha1:reftable sha256:files; do
	FMT=${combo%%:*} REFS=${combo#*:}
	C="$FMT/$REFS"
	G=$T/g-$FMT-$REFS V=$T/w-$FMT-$REFS
	"$GIT" init -q -b main --object-format="$FMT" --ref-format="$REFS" "$G"
	"$GIT" init -q -b main --object-format="$FMT" --ref-format="$REFS" "$V"

	both "nothing to commit, unborn" commit -m nothing
	on_both 'echo u >untracked'
	both "untracked only, unborn" commit -m nothing
	on_both 'rm untracked'
	both "reset on an unborn branch" reset
	on_both 'echo s >staged && "$GIT" add staged'
	both "restore --staged on an unborn branch" restore --staged staged
	on_both '"$GIT" rm -q --cached staged && rm staged'

	on_both 'printf "one\ntwo\nthree\nfour\nfive\n" >a && mkdir -p dir/sub &&
		echo b >dir/sub/b && echo x >"sp ace" && printf "q\n" >"q\"uote" &&
		printf "#!/bin/sh\n" >run && chmod +x run && ln -s a link && "$GIT" add -A'
	both "initial commit" commit -m "first  subject  " -m "" -m "body line   " -m "third"

	on_both 'printf "one\nTWO\nthree\nfive\nsix\nseven" >a && rm "sp ace" &&
		echo new >dir/new && chmod -x run && printf "bin\0ary\n" >bin &&
		rm link && ln -s dir link && printf "" >empty && "$GIT" add -A'
	both "second commit: every kind of change" commit -m second

	# renames in the summary, as git pairs them (diff.renames on by default)
	on_both 'mkdir -p moved/deep && "$GIT" mv dir/sub/b moved/deep/b && "$GIT" mv a a.txt &&
		printf "one\nTWO\nthree\nfive\nsix\nseven\neight\n" >a.txt && "$GIT" mv run run2 &&
		chmod -x run2 && "$GIT" mv bin "na\303\257ve" && "$GIT" add -A'
	both "renames: exact, edited, into a deeper directory, mode change, quoted" commit -m renames
	on_both '"$GIT" mv moved/deep/b dir/sub/b && "$GIT" mv a.txt a && "$GIT" mv run2 run &&
		"$GIT" mv "na\303\257ve" bin && chmod +x run && "$GIT" add -A'
	both "renames back" commit -m "renames back"
	on_both '"$GIT" mv a x && "$GIT" -c core.quotepath=off config diff.renames false'
	both "diff.renames false: the summary still pairs renames" commit -m "no renames"
	on_both '"$GIT" config --unset diff.renames && "$GIT" mv x a'
	both "and back with renames" commit -m "back"
	both "allow-empty" commit --allow-empty -m "empty one"
	both "nothing to commit, clean" commit -m nothing
	on_both 'echo u >untracked'
	both "nothing to commit, untracked" commit -m nothing
	on_both 'echo more >>a'
	both "nothing to commit, unstaged change" commit -m nothing
	both "quiet -a" commit -q -a -m "all of it"
	on_both 'rm dir/new && echo again >>a && chmod +x run'
	both "-a with a deletion and a mode change" commit -a -m "deleted and moded"

	on_both 'echo amend >>a && "$GIT" add a'
	both "amend, message kept" commit --amend --no-edit
	GIT_COMMITTER_DATE="1700000500 +0130" GIT_AUTHOR_DATE="1600000000 -0700" \
		both "amend, new author and message" \
		commit --amend --author="Other Person <other@example.com>" -m "amended
with a second line"
	both "an empty commit to amend" commit --allow-empty -m "to be emptied"
	both "amend to nothing" commit --amend -m "x"
	on_both 'echo u2 >untracked2'
	both "amend to nothing, untracked" commit --amend -m "x"
	on_both 'rm untracked2'
	both "amend to nothing, allowed" commit --amend --allow-empty -m "now empty"

	on_both 'echo e >>a && "$GIT" add a'
	both "empty message" commit -m "  
	 "
	both "only a sign-off is empty" commit -m "Signed-off-by: T <t@example.com>"
	both "empty message allowed" commit --allow-empty-message -m ""
	printf "\n\n  subject from a file  \r\n\n\n\nbody\t\n\n" >"$T/msg"
	on_both 'echo f >>a && "$GIT" add a'
	both "-F" commit -F "$T/msg"
	both "-m with -F" commit -m x -F "$T/msg"
	printf "caf\351\n" >"$T/latin1"
	both "a message that is not UTF-8" commit --allow-empty -F "$T/latin1"

	on_both '"$GIT" checkout -q --detach'
	both "detached HEAD" commit --allow-empty -m detached
	on_both '"$GIT" checkout -q main'

	# a conflict in the index: stages 1-3 of one path
	on_both 'blob=$(echo base | "$GIT" hash-object -w --stdin) &&
		printf "100644 %s 1\tconf\n100644 %s 2\tconf\n100644 %s 3\tconf\n" $blob $blob $blob |
		"$GIT" update-index --index-info'
	both "unmerged refusal" commit -m conflict
	both "soft reset refused in a merge" reset --soft HEAD
	both "hard reset clears the conflict" reset --hard

	# reset
	H1=$(cd "$G" && "$GIT" rev-parse HEAD~1)
	both "soft reset" reset --soft HEAD~2
	both "mixed reset" reset
	on_both 'echo local >>a && rm run'
	both "mixed reset to a commit" reset "$H1"
	both "quiet mixed reset" reset -q HEAD~1
	on_both 'echo staged >dir/sub/b && "$GIT" add dir/sub/b && echo junk >junk'
	both "reset paths" reset -- dir
	on_both '"$GIT" add -A'
	both "reset paths from a commit" reset HEAD~1 -- dir a
	both "reset paths from a commit, no --" reset HEAD~2 junk
	both "hard reset with paths refused" reset --hard HEAD -- a
	both "soft reset with paths refused" reset --soft HEAD a
	both "unknown revision" reset nosuchthing
	both "hard reset" reset --hard "$H1"
	both "hard reset, quiet" reset -q --hard HEAD~1
	both "hard reset to HEAD" reset --hard
	# the reflog forms users reset to
	both "hard reset to HEAD@{2}" reset --hard "HEAD@{2}"
	both "hard reset to main@{1}" reset -q --hard "main@{1}"
	both "mixed reset to @{1}~1" reset -q "@{1}~1"
	both "reset to ORIG_HEAD" reset -q --hard ORIG_HEAD
	on_both '"$GIT" checkout -q --detach HEAD~1 && "$GIT" checkout -q main'
	both "reset to @{-1}" reset -q --hard "@{-1}"
	for rev in "HEAD@{0}" "main@{3}" "main@{3}:a" "@{-1}" "HEAD@{1}^{tree}"; do
		both "rev-parse $rev" rev-parse "$rev"
	done
	both "rev-parse, past the end of the reflog" rev-parse "main@{999}"
	both "rev-parse @{u} without an upstream" rev-parse "@{u}"
	both "rev-parse main@{upstream} without an upstream" rev-parse "main@{upstream}"
	on_both '"$GIT" config branch.main.remote . && "$GIT" config branch.main.merge refs/heads/main'
	both "rev-parse @{u} with the branch itself as upstream" rev-parse "@{u}" "main@{U}"
	on_both '"$GIT" config --unset branch.main.remote && "$GIT" config --unset branch.main.merge'
	on_both 'echo sub >>dir/sub/b && "$GIT" add dir/sub/b'
	IN=dir both "reset a path from a subdirectory" reset -q -- sub/b
	IN=dir/sub both "restore from a subdirectory" restore b ../../a
	on_both 'echo x >>a && echo y >>dir/sub/b'
	both "restore with a glob" restore "*b"
	both "options after the commit" reset HEAD --hard -q
	on_both 'echo z >>a'
	both "a path named like an option, after --" reset -- --hard
	both "restore -- a" restore -- a
	# a working-tree directory replaced by a link: restore writes no file
	# through it (the victim outside stays as it was)
	on_both 'mkdir -p "$T/victim-$(basename "$PWD")" && rm -rf dir/sub &&
		ln -s "$T/victim-$(basename "$PWD")" dir/sub'
	ERR_DIFFERS=1 both "restore through a link" restore dir/sub/b
	check "$C restore wrote nothing through the link" test ! -e "$T/victim-$(basename "$V")/b"
	on_both 'rm dir/sub'
	both "restore after the link is gone" restore dir

	# restore
	on_both 'echo changed >>a && rm dir/sub/b && echo x >>bin'
	both "restore from the index" restore a dir
	both "restore everything" restore .
	on_both 'echo staged >>a && "$GIT" add a && echo more >>a'
	both "restore --staged" restore --staged a
	on_both '"$GIT" add a'
	both "restore --staged --worktree" restore --staged --worktree a
	both "restore --source" restore --source=HEAD~1 a
	both "restore --source, a path not in the source" restore --source=HEAD~2 dir
	on_both '"$GIT" add -A'
	both "restore -S -W --source" restore -S -W --source=HEAD~1 .
	both "restore, no such path" restore nosuch
	both "restore, no path" restore
	both "restore, bad source" restore --source=nosuch a
	both "commit after all that" commit -a -m "after restore" --allow-empty
done
