#!/usr/bin/env bash
# Self-test of the interop harness (lib.sh, run.sh): uses only the reference
# git, so it runs before webgit's CLI exists. It checks the sandbox, that the
# helpers pass what they should, and (through an inner script run with its
# own result file) that they fail what they should, crashes included.
. "$(dirname "$0")/lib.sh"

# --- the sandbox -------------------------------------------------------------
check "GIT is the reference git" test -x "$GIT"
check "WG_SRC is the repository root" test -f "$WG_SRC/tests/interop/lib.sh"
check_output "working directory starts empty" "" ls -A
check_output "HOME has the test identity" "A U Thor author@example.com" \
	sh -c 'echo $("$GIT" config user.name) $("$GIT" config user.email)'
check_output "the identity and dates reach commits" \
	"A U Thor <author@example.com> 1700000000 +0000" \
	sh -c '"$GIT" init -q r && cd r && "$GIT" commit -q --allow-empty -m x &&
	       "$GIT" cat-file commit HEAD | sed -n "s/^author //p"'
check_output "default branch is main" "refs/heads/main" "$GIT" -C r symbolic-ref HEAD
check "system config is off" test "$GIT_CONFIG_NOSYSTEM" = 1
check "git on PATH is the reference git" test "$(command -v git)" = "$(dirname "$GIT")/git"

# --- helpers that pass -------------------------------------------------------
check_same "same output passes" '"$GIT" -C r rev-parse HEAD' 'cd r && "$GIT" rev-parse HEAD'
check_fail "a clean error passes check_fail" sh -c 'echo "error: no" >&2; exit 1'
check_fail "git's fatal status 128 is a clean error" "$GIT" -C r rev-parse --verify no-such-ref
check_output "trailing newline ignored" "$(printf 'a\nb')" printf 'a\nb\n'
last=$(cat "$LAST_OUT")
check "LAST_OUT holds the last stdout" test "$last" = "$(printf 'a\nb')"
check "a shell function can be the command" eval 'f() { test -d r/.git; }; f'
check_same "sha256 repositories work" \
	'"$GIT" init -q --object-format=sha256 r256 && echo hi >f && "$GIT" -C r256 hash-object ../f' \
	'printf "blob 3\0hi\n" | sha256sum | cut -d" " -f1'
skip "skip is counted, not failed" "demonstration"

# --- helpers that fail: an inner script with its own result file --------------
cat >inner.sh <<'EOF'
. "$WG_SRC/tests/interop/lib.sh"
check "false fails" false
check "a sanitizer report fails check even with status 0" \
	sh -c 'echo "x.c:1:2: runtime error: signed integer overflow" >&2'
check_fail "success fails check_fail" true
check_fail "a signal fails check_fail" sh -c 'kill -SEGV $$'
check_fail "an abort fails check_fail" sh -c 'kill -ABRT $$'
check_fail "an ASan report fails check_fail" \
	sh -c 'echo "==1==ERROR: AddressSanitizer: heap-use-after-free" >&2; exit 1'
check_fail "command not found fails check_fail" ./no-such-program
check_same "different stdout fails" 'echo a' 'echo b'
check_same "a failing command fails check_same" 'false' 'false'
check_output "wrong output fails" "x" echo y
check_fail "an ordinary error passes" false
# A failing command hidden on the left of a pipeline still fails.
check_same "a failure left of a pipe fails check_same" 'false | cat' 'true | cat'
check "a failure left of a pipe fails check" eval 'false | cat'
check_output "a failure left of a pipe fails check_output" "" eval 'false | sort'
f() { printf 'x\n' | false | cat; }
check "a failure inside a function's pipeline fails check" f
skip "one skip"
EOF
check_fail "the inner script reports failure" \
	env WG_INTEROP_RESULT="$PWD/inner.result" bash inner.sh
check_output "inner counts: 1 passed, 14 failed, 1 skipped" "1 14 1" \
	sh -c 'read -r p f s rest <inner.result && echo "$p $f $s"'

cat >dies.sh <<'EOF'
. "$WG_SRC/tests/interop/lib.sh"
check "one" true
exit 3
EOF
check_fail "a script that exits non-zero fails" \
	env WG_INTEROP_RESULT="$PWD/dies.result" bash dies.sh
check_output "and counts one extra failure" "1 1 0" \
	sh -c 'read -r p f s rest <dies.result && echo "$p $f $s"'
