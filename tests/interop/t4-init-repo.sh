#!/usr/bin/env bash
# t4-init-repo: `webgit init` makes repositories git accepts, and webgit
# opens the repositories git makes.
#
#   - webgit init for sha1/sha256 x bare/non-bare x default/-b branch, each
#     next to `git init` with the same options at the same path: same stdout;
#     git fsck --strict, git status, rev-parse --show-object-format,
#     --is-bare-repository and git config --list accept it; the config holds
#     the same settings (sorted `git config --list`), HEAD names the same
#     branch; core.repositoryformatversion is 1 with extensions.objectformat
#     for sha256 and 0 without it for sha1; git can commit into it and webgit
#     reads that commit back.
#   - init with no directory, into nested new directories, re-init of an
#     existing repository (keeps objects and HEAD, refuses another object
#     format), and refusal of an unknown --object-format.
#   - webgit opens git-made repositories: rev-parse --git-dir from the top,
#     from subdirectories and in bare repositories, with -C; refuses a
#     repository with an unknown extension (repositoryformatversion 1) or an
#     unknown repositoryformatversion with a clear error, and says "not a git
#     repository" outside one.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fixtures.sh"
require_webgit

if ! fx_webgit_is_git; then
	FX_ONE_LINE=1
fi

# config_list FILE: the settings of a config file, sorted.
config_list() { "$GIT" config --file "$1" --list | LC_ALL=C sort; }

mkdir -p inits
for fmt in sha1 sha256; do
	for kind in nonbare bare; do
		for branch in default trunk; do
		# webgit's default ref format is reftable (Git 3.0's): git is asked
		# for it explicitly; files is asked of both.
		for rf in reftable files; do
			name="$fmt-$kind-$branch-$rf"
			opts="--object-format=$fmt"
			[ "$kind" = bare ] && opts="$opts --bare"
			[ "$branch" != default ] && opts="$opts -b $branch"
			wopts=$opts gopts="$opts --ref-format=$rf"
			[ $rf = files ] && wopts="$opts --ref-format=files"
			s="$name: webgit init $wopts"
			# Both at the same path in turn, so their messages can be compared.
			(cd inits && "$WEBGIT" init $wopts "$name") >"inits/$name.w.out" 2>"inits/$name.w.err"
			wrc=$?
			mv "inits/$name" "inits/$name.w" 2>/dev/null
			(cd inits && "$GIT" init $gopts "$name") >"inits/$name.g.out" 2>"inits/$name.g.err"
			mv "inits/$name" "inits/$name.g"
			W="$PWD/inits/$name.w"
			G="$PWD/inits/$name.g"
			check "$s: exit status 0" test "$wrc" = 0
			check_same "$s: same stdout as git init" "cat inits/$name.w.out" "cat inits/$name.g.out"
			check_output "$s: nothing on stderr" "" cat "inits/$name.w.err"
			if [ "$kind" = bare ]; then
				WD="$W" GD="$G"
			else
				WD="$W/.git" GD="$G/.git"
				check "$s: .git is a directory" test -d "$W/.git"
			fi
			check "$s: HEAD, config, objects/, refs/ exist" \
				sh -c 'test -f "$1/HEAD" && test -f "$1/config" && test -d "$1/objects" && test -d "$1/refs"' sh "$WD"
			check_same "$s: HEAD file as git writes it" "cat '$WD/HEAD'" "cat '$GD/HEAD'"
			check_same "$s: config settings as git writes them" "config_list '$WD/config'" "config_list '$GD/config'"
			check "$s: git config --list accepts it" "$GIT" -C "$W" config --list
			check "$s: git fsck --strict accepts it" "$GIT" -C "$W" fsck --strict
			check_output "$s: git sees object format $fmt" "$fmt" "$GIT" -C "$W" rev-parse --show-object-format
			check_same "$s: git rev-parse --is-bare-repository" \
				"\"\$GIT\" -C '$W' rev-parse --is-bare-repository" "\"\$GIT\" -C '$G' rev-parse --is-bare-repository"
			check_same "$s: git symbolic-ref HEAD" \
				"\"\$GIT\" -C '$W' symbolic-ref HEAD" "\"\$GIT\" -C '$G' symbolic-ref HEAD"
			check_output "$s: git sees ref format $rf" "$rf" "$GIT" -C "$W" rev-parse --show-ref-format
			if [ $rf = reftable ]; then
				check_same "$s: the same reftable layout as git" \
					"cd '$WD' && find refs reftable ! -name '*.ref' | sort && cat refs/heads" \
					"cd '$GD' && find refs reftable ! -name '*.ref' | sort && cat refs/heads"
			else
				check_same "$s: the same refs/ layout as git" \
					"cd '$WD' && find refs | sort" "cd '$GD' && find refs | sort"
			fi
			if [ "$fmt" = sha256 ] || [ $rf = reftable ]; then
				check_output "$s: core.repositoryformatversion is 1" "1" \
					"$GIT" config --file "$WD/config" core.repositoryformatversion
			fi
			if [ "$fmt" = sha256 ]; then
				check_output "$s: extensions.objectformat is sha256" "sha256" \
					"$GIT" config --file "$WD/config" extensions.objectformat
			else
				[ $rf = files ] && check_output "$s: core.repositoryformatversion is 0" "0" \
					"$GIT" config --file "$WD/config" core.repositoryformatversion
				check_fail "$s: no extensions.objectformat" \
					"$GIT" config --file "$WD/config" extensions.objectformat
			fi
			check_output "$s: core.bare" "$([ "$kind" = bare ] && echo true || echo false)" \
				"$GIT" config --file "$WD/config" --bool core.bare
			# webgit on its own repository.
			for q in --show-object-format --is-bare-repository --git-dir; do
				check_same "$s: webgit rev-parse $q" \
					"\"\$WEBGIT\" -C '$W' rev-parse $q" "\"\$GIT\" -C '$W' rev-parse $q"
			done
			if [ "$kind" = nonbare ]; then
				check_same "$s: git status" "\"\$GIT\" -C '$W' status" "\"\$GIT\" -C '$G' status"
				# git commits into it; webgit reads the commit back.
				printf 'hello\n' >"$W/hello.txt"
				mkdir -p "$W/sub"
				printf 'nested\n' >"$W/sub/file"
				check "$s: git add + commit in it" \
					sh -c '"$GIT" -C "$1" add -A && "$GIT" -C "$1" commit -q -m first' sh "$W"
				check "$s: git fsck --strict after a commit" "$GIT" -C "$W" fsck --strict --no-dangling
				check_same "$s: webgit rev-parse HEAD after git committed" \
					"\"\$WEBGIT\" -C '$W' rev-parse HEAD" "\"\$GIT\" -C '$W' rev-parse HEAD"
				ref=refs/heads/$([ "$branch" = default ] && echo main || echo "$branch")
				check_same "$s: webgit rev-parse $ref" \
					"\"\$WEBGIT\" -C '$W' rev-parse $ref" "\"\$GIT\" -C '$W' rev-parse $ref"
				check_same "$s: webgit cat-file -p HEAD" \
					"\"\$WEBGIT\" -C '$W' cat-file -p HEAD" "\"\$GIT\" -C '$W' cat-file -p HEAD"
				check_same "$s: webgit ls-tree -r HEAD" \
					"\"\$WEBGIT\" -C '$W' ls-tree -r HEAD" "\"\$GIT\" -C '$W' ls-tree -r HEAD"
			else
				check_fail "$s: webgit rev-parse --verify HEAD fails on the unborn branch" \
					"$WEBGIT" -C "$W" rev-parse --verify HEAD
			fi
		done
		done
	done

	# --- more init forms -------------------------------------------------------
	mkdir -p "cwd-$fmt"
	check "$fmt: webgit init with no directory argument" \
		sh -c 'cd "$1" && "$WEBGIT" init --object-format="$2" >/dev/null' sh "$PWD/cwd-$fmt" "$fmt"
	check_output "$fmt: ...made a repository there" "$fmt" "$GIT" -C "cwd-$fmt" rev-parse --show-object-format
	check_same "$fmt: ...whose top level is that directory" \
		"\"\$GIT\" -C 'cwd-$fmt' rev-parse --show-toplevel" "cd 'cwd-$fmt' && pwd -P"
	check "$fmt: webgit init creates missing parent directories" \
		"$WEBGIT" init --object-format="$fmt" "new-$fmt/a/b/c"
	check "$fmt: ...and git fsck accepts it" "$GIT" -C "new-$fmt/a/b/c" fsck --strict
	check "$fmt: webgit -C DIR init" "$WEBGIT" -C "new-$fmt" init --object-format="$fmt" other
	check_output "$fmt: ...made DIR/other" "$fmt" "$GIT" -C "new-$fmt/other" rev-parse --show-object-format

	# Re-init keeps objects and HEAD; another object format is refused.
	R="$PWD/reinit-$fmt"
	"$GIT" init -q --object-format="$fmt" -b keep "$R"
	blob=$(printf 'keep me\n' | "$GIT" -C "$R" hash-object -w --stdin)
	check "$fmt: webgit init over an existing repository succeeds" "$WEBGIT" init "$R"
	check_output "$fmt: ...keeps its objects" "keep me" "$GIT" -C "$R" cat-file -p "$blob"
	check_output "$fmt: ...keeps HEAD" "refs/heads/keep" "$GIT" -C "$R" symbolic-ref HEAD
	check_output "$fmt: ...keeps the object format" "$fmt" "$GIT" -C "$R" rev-parse --show-object-format
	check_output "$fmt: ...keeps the files ref format (webgit's default is reftable)" files \
		"$GIT" -C "$R" rev-parse --show-ref-format
	check_fail "$fmt: re-init with --ref-format=reftable is refused" \
		"$WEBGIT" init --ref-format=reftable "$R"
	cp "$LAST_ERR" reinit.err
	check "$fmt: ...with git's message" grep -q "attempt to reinitialize repository with different reference storage format" reinit.err
	check_same "$fmt: re-init message as git's" \
		"\"\$WEBGIT\" init '$R'" "\"\$GIT\" init '$R'"
	other=$([ "$fmt" = sha1 ] && echo sha256 || echo sha1)
	check_fail "$fmt: re-init with --object-format=$other is refused" \
		"$WEBGIT" init --object-format="$other" "$R"
	check_output "$fmt: ...and the format is unchanged" "$fmt" "$GIT" -C "$R" rev-parse --show-object-format

	# --- webgit opens repositories git made ----------------------------------
	R="$PWD/gitmade-$fmt"
	B="$PWD/gitmade-$fmt.git"
	"$GIT" init -q --object-format="$fmt" "$R"
	"$GIT" init -q --bare --object-format="$fmt" "$B"
	mkdir -p "$R/a/b/c" "$B/refs/heads/x"
	for d in "$R" "$R/a" "$R/a/b/c" "$R/.git" "$R/.git/objects" "$B" "$B/refs/heads/x"; do
		for q in --git-dir --show-object-format --is-bare-repository; do
			check_same "$fmt: rev-parse $q in ${d#"$PWD"/}" \
				"cd '$d' && \"\$WEBGIT\" rev-parse $q" "cd '$d' && \"\$GIT\" rev-parse $q"
		done
	done
	check_same "$fmt: -C DIR rev-parse --git-dir from a subdirectory" \
		"\"\$WEBGIT\" -C '$R/a/b' rev-parse --git-dir" "\"\$GIT\" -C '$R/a/b' rev-parse --git-dir"
	check_same "$fmt: two -C options combine" \
		"\"\$WEBGIT\" -C '$R' -C a/b rev-parse --git-dir" "\"\$GIT\" -C '$R' -C a/b rev-parse --git-dir"

	# Unknown extension with repositoryformatversion 1: refused.
	X="$PWD/ext-$fmt"
	"$GIT" init -q --object-format="$fmt" "$X"
	"$GIT" -C "$X" config core.repositoryformatversion 1
	"$GIT" -C "$X" config extensions.foo bar
	check "$fmt: unknown extension refused by rev-parse --git-dir" \
		fx_error_like 'extension' "$WEBGIT" -C "$X" rev-parse --git-dir
	check "$fmt: ...the error names the extension" \
		fx_error_like 'foo' "$WEBGIT" -C "$X" rev-parse --git-dir
	check "$fmt: unknown extension refused by cat-file" \
		fx_error_like 'extension' "$WEBGIT" -C "$X" cat-file -t HEAD
	check "$fmt: unknown extension refused by hash-object -w" \
		fx_error_like 'extension' sh -c 'echo x | "$WEBGIT" -C "$1" hash-object -w --stdin' sh "$X"
	check_output "$fmt: ...which wrote nothing" "0" fx_object_count "$X/.git"
	# Unknown repository format version.
	V="$PWD/version-$fmt"
	"$GIT" init -q --object-format="$fmt" "$V"
	"$GIT" -C "$V" config core.repositoryformatversion 2
	check "$fmt: repositoryformatversion 2 refused" \
		fx_error_like 'version|format' "$WEBGIT" -C "$V" rev-parse --git-dir
	# Known extensions are fine.
	K="$PWD/known-$fmt"
	"$GIT" init -q --object-format="$fmt" "$K"
	"$GIT" -C "$K" config core.repositoryformatversion 1
	"$GIT" -C "$K" config extensions.objectformat "$fmt"
	check_same "$fmt: explicit extensions.objectformat=$fmt is accepted" \
		"\"\$WEBGIT\" -C '$K' rev-parse --show-object-format" "\"\$GIT\" -C '$K' rev-parse --show-object-format"
done

# --- defaults ------------------------------------------------------------------
# Without --object-format and --ref-format, webgit uses SHA-256 and reftable,
# the Git 3.0 defaults (git 2.x still defaults to SHA-1 and files), so the
# reference is git asked for those.
(cd inits && "$WEBGIT" init default-w >/dev/null 2>&1)
(cd inits && "$GIT" init --object-format=sha256 --ref-format=reftable default-g >/dev/null 2>&1)
check_output "init without --object-format uses sha256 (the Git 3.0 default)" sha256 \
	"$GIT" -C inits/default-w rev-parse --show-object-format
check_same "init without -b uses init.defaultBranch" \
	"\"\$GIT\" -C inits/default-w symbolic-ref HEAD" "\"\$GIT\" -C inits/default-g symbolic-ref HEAD"
check_same "init with no options writes the config git writes" \
	"config_list inits/default-w/.git/config" "config_list inits/default-g/.git/config"

# --- bad object format, outside a repository ------------------------------
check "init --object-format=md5 refused" fx_error_like 'md5|format|hash|algorithm' "$WEBGIT" init --object-format=md5 bad-format
check "...and made no repository" test ! -e bad-format/.git -a ! -e bad-format/HEAD
check_fail "init --object-format= (empty) refused" "$WEBGIT" init --object-format= bad-format2
check "...and made no repository" test ! -e bad-format2/.git -a ! -e bad-format2/HEAD
mkdir -p outside/deeper
check "rev-parse --git-dir outside a repository fails" \
	fx_error_like 'not a git repository' sh -c 'cd "$1" && GIT_CEILING_DIRECTORIES="$2" "$WEBGIT" rev-parse --git-dir' \
	sh "$PWD/outside/deeper" "$PWD"
check "cat-file outside a repository fails" \
	fx_error_like 'not a git repository' sh -c 'cd "$1" && GIT_CEILING_DIRECTORIES="$2" "$WEBGIT" cat-file -t HEAD' \
	sh "$PWD/outside/deeper" "$PWD"
