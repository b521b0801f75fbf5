/* webgit: a git-like command line over the webgit core. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "remote_driver.h"
#include "util/error.h"
#include "util/fs_fault.h"
#include "util/limits.h"

static const struct cli_command commands[] = {
	{ "init", cmd_init, "webgit init [-q] [--bare] [--object-format=<format>] "
	  "[--ref-format=<format>] [-b <branch-name>] [<directory>]" },
	{ "hash-object", cmd_hash_object, "webgit hash-object [-t <type>] [-w] [--literally] "
	  "[--stdin] [--] <file>..." },
	{ "cat-file", cmd_cat_file, "webgit cat-file (-t | -s | -e | -p | <type>) <object> | "
	  "(--batch | --batch-check)[=<format>] [--batch-all-objects] [--buffer]" },
	{ "ls-tree", cmd_ls_tree, "webgit ls-tree [-d] [-r] [-t] [-l] [-z] [--name-only] "
	  "[--object-only] <tree-ish> [<path>...]" },
	{ "ls-files", cmd_ls_files, "webgit ls-files [-s | --stage] [-u | --unmerged] [--debug] "
	  "[--resolve-undo] [-z]" },
	{ "check-ignore", cmd_check_ignore, "webgit check-ignore [-q] [-v] [-n | --non-matching] "
	  "[--no-index] [--stdin [-z]] [--] [<pathname>...]" },
	{ "check-attr", cmd_check_attr, "webgit check-attr [--cached] [-a | --all | <attr>...] "
	  "[--] <pathname>... | --stdin [-z] [-a | --all | <attr>...]" },
	{ "update-index", cmd_update_index, "webgit update-index --index-version <n>" },
	{ "read-tree", cmd_read_tree, "webgit read-tree <tree-ish>" },
	{ "checkout", cmd_checkout, "webgit checkout [-q] [-f] [--detach] [-b | -B <new-branch>] "
	  "[<branch> | <commit>]" },
	{ "status", cmd_status, "webgit status [-s | --short] [--porcelain[=<version>]] "
	  "[-b | --branch] [-z] [-u<mode>] [--ignored]" },
	{ "switch", cmd_switch, "webgit switch [-q] [-f | --discard-changes] [-d | --detach] "
	  "[-c | -C <new-branch>] [<branch> | <commit>]" },
	{ "add", cmd_add, "webgit add [-n] [-v] [-f] [-A | -u | --no-all] [-N] [--] [<pathspec>...]" },
	{ "rm", cmd_rm, "webgit rm [-f] [-n] [-r] [--cached] [-q] [--] <pathspec>..." },
	{ "mv", cmd_mv, "webgit mv [-f] [-n] [-k] [-v] <source>... <destination>" },
	{ "commit", cmd_commit, "webgit commit [-q] [-a] [--amend] [--allow-empty] "
	  "[--allow-empty-message] [--author=<author>] (-m <msg> | -F <file>)..." },
	{ "reword", cmd_reword, "webgit reword [-q] [--allow-published] (-m <msg> | -F <file>)... <commit>" },
	{ "split", cmd_split, "webgit split [-q] [--allow-published] [-m <msg>] [--first-message <msg>] "
		"[--hunks <path>:<n>[,<n>]...]... <commit> [--] [<pathspec>...]" },
	{ "reset", cmd_reset, "webgit reset [--soft | --mixed | --hard] [-q] [<commit>] | "
	  "reset [<tree-ish>] [--] <pathspec>..." },
	{ "restore", cmd_restore, "webgit restore [-S | --staged] [-W | --worktree] "
	  "[-s <tree> | --source=<tree>] [--] <pathspec>..." },
	{ "diff", cmd_diff, "webgit diff [<options>] [--cached [<commit>] | <commit> <commit>] "
	  "[--] [<path>...]" },
	{ "diff-tree", cmd_diff_tree, "webgit diff-tree [-p] [-r] [-M] [--root] <tree-ish> "
	  "[<tree-ish>] [--] [<path>...]" },
	{ "show", cmd_show, "webgit show [<diff options>] [<commit>...]" },
	{ "log", cmd_log, "webgit log [<options>] [<revision-range>] [[--] <path>...]" },
	{ "rev-list", cmd_rev_list, "webgit rev-list [<options>] <commit>... [--] [<path>...]" },
	{ "last-modified", cmd_last_modified, "webgit last-modified [--recursive] [--show-trees] "
	  "[<revision>] [[--] <path>...]" },
	{ "merge-base", cmd_merge_base, "webgit merge-base [-a | --all] <commit> <commit>... | "
	  "--octopus <commit>... | --is-ancestor <commit> <commit> | --independent <commit>..." },
	{ "blame", cmd_blame, "webgit blame [-l] [-s] [-e] [-t] [-f] [-n] [-w] [--root] [--porcelain | "
	  "--line-porcelain] [--abbrev=<n>] [-L <start>,<end>] [<rev>] [--] <file>" },
	{ "write-tree", cmd_write_tree, "webgit write-tree" },
	{ "mktree", cmd_mktree, "webgit mktree [-z] [--missing]" },
	{ "commit-tree", cmd_commit_tree, "webgit commit-tree <tree> [(-p <parent>)...] "
	  "[(-m <message>)...] [(-F <file>)...]" },
	{ "pack-objects", cmd_pack_objects, "webgit pack-objects [-q] [--window=<n>] "
	  "[--depth=<n>] [--compression=<n>] [--thin] [--stdout | <base-name>]" },
	{ "rev-parse", cmd_rev_parse, "webgit rev-parse [<options>] <args>..." },
	{ "update-ref", cmd_update_ref, "webgit update-ref [-m <reason>] [--no-deref] "
	  "[--create-reflog] (-d <ref> [<old>] | <ref> <new> [<old>] | --stdin [-z])" },
	{ "show-ref", cmd_show_ref, "webgit show-ref [--head] [--branches] [--tags] [-d] "
	  "[-s] [--verify] [-q] [<pattern>...]" },
	{ "for-each-ref", cmd_for_each_ref, "webgit for-each-ref [--format=<format>] "
	  "[--sort=<key>] [--count=<n>] [<pattern>...]" },
	{ "symbolic-ref", cmd_symbolic_ref, "webgit symbolic-ref [-q] [--short] [-d] "
	  "[-m <reason>] <name> [<ref>]" },
	{ "branch", cmd_branch, "webgit branch [-v [-v]] [-a | -r] [--list] [<pattern>...] | "
	  "[-f] [-t | --no-track] <name> [<start>] | (-d | -D) <name>... | (-m | -M | -c | -C) "
	  "[<old>] <new> | (-u <upstream> | --unset-upstream) [<name>] | --show-current" },
	{ "tag", cmd_tag, "webgit tag [-l] [<pattern>...] | [-a] [-f] [-m <msg>] <name> "
	  "[<object>] | -d <name>..." },
	{ "reflog", cmd_reflog, "webgit reflog [show] [<ref>] | exists <ref>" },
	{ "pack-refs", cmd_pack_refs, "webgit pack-refs [--all] [--no-prune]" },
	{ "refs", cmd_refs, "webgit refs verify" },
	{ "index-pack", cmd_index_pack, "webgit index-pack [-o <index-file>] [--keep[=<msg>]] "
	  "[--strict] [--object-format=<format>] (<pack-file> | --stdin [--fix-thin] [<pack-file>])" },
	{ "verify-pack", cmd_verify_pack, "webgit verify-pack [-v] [-s] <pack>.idx..." },
	{ "ls-remote", cmd_ls_remote, "webgit ls-remote [--heads] [--tags] [--refs] [--symref] "
	  "<repository> [<patterns>...]" },
	{ "read-remote-file", cmd_read_remote_file, "webgit read-remote-file [--static] "
	  "[--stats] <url> <ref> <path>" },
	{ "fetch", cmd_fetch, "webgit fetch [--prune] [--no-tags] [-q | --progress] "
	  "[<remote> [<refspec>...]]" },
	{ "push", cmd_push, "webgit push [-f | --force] [--atomic] [-o <option>]... [-d] "
	  "<remote> <refspec>..." },
	{ "clone", cmd_clone, "webgit clone [--bare | --mirror] [--depth <n>] [--filter <spec>] "
	  "[-b <branch>] [--single-branch] [-q] <repository> [<directory>]" },
	{ "unpack-objects", cmd_unpack_objects, "webgit unpack-objects [-n] [-q] < <pack-file>" },
};

int cli_fatal(const char *fmt, ...)
{
	va_list ap;
	fflush(stdout);
	fputs("fatal: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 128;
}

int cli_fatal_core(void)
{
	const char *msg = wg_error_message();
	return cli_fatal("%s", *msg ? msg : "unknown error");
}

int cli_usage(const char *usage)
{
	fprintf(stderr, "usage: %s\n", usage);
	return 129;
}

const char *cli_option_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);
	const char *arg = argv[*i];
	if (strncmp(arg, name, n))
		return NULL;
	if (arg[n] == '=')
		return arg + n + 1;
	if (arg[n] == '\0' && *i + 1 < argc)
		return argv[++*i];
	return NULL;
}

int cli_open_repo(struct wg_repo **out)
{
	const char *gitdir = getenv("GIT_DIR");
	int err = gitdir && *gitdir ? wg_repo_open(out, gitdir) : wg_repo_discover(out, ".");
	if (err)
		return cli_fatal_core();
	/* A partial clone fetches what it lacks when it is read, as git does. */
	cli_install_lazy_fetch(*out);
	return 0;
}

void cli_abbrev(char *out, struct wg_repo *repo, const struct wg_oid *oid)
{
	const char *hex = wg_oid_hex(oid);
	size_t len = 7, max = strlen(hex);
	struct wg_oid found;
	while (len < max && wg_odb_resolve_prefix(wg_repo_odb(repo), hex, len, &found) ==
				    WG_EAMBIGUOUS)
		len++;
	wg_error_clear();
	memcpy(out, hex, len);
	out[len] = '\0';
}

int cli_write_stdout(const void *data, size_t len)
{
	if (len && fwrite(data, 1, len, stdout) != len)
		return cli_fatal("write error: %s", strerror(errno));
	return 0;
}

int cli_read_stream(FILE *f, struct wg_buf *buf)
{
	for (;;) {
		size_t n;
		int err = wg_buf_grow(buf, 65536);
		if (err)
			return err;
		n = fread(buf->data + buf->len, 1, 65536, f);
		wg_buf_setlen(buf, buf->len + n);
		if (n < 65536) {
			if (ferror(f))
				return wg_error_set(WG_EIO, "read error: %s", strerror(errno));
			return 0;
		}
	}
}

static void trace_fs_call(unsigned long n, const char *op, const char *path, void *payload)
{
	/* Flushed line by line: the next call may end the process. */
	fprintf(payload, "%lu %s %s\n", n, op, path);
	fflush(payload);
}

/* Crash-safety tests (t20-crash-safety.sh) make the k-th change to the
 * disk fail: WEBGIT_TEST_FS_FAULT=count|<k>:eio|<k>:enospc|<k>:exit, and
 * WEBGIT_TEST_FS_TRACE=<file> appends "<n> <call> <path>" per change. */
static int install_fault_injection(void)
{
	const char *spec = getenv("WEBGIT_TEST_FS_FAULT");
	const char *trace = getenv("WEBGIT_TEST_FS_TRACE");
	struct wg_fs_fault fault;
	int err;

	if (!spec || !*spec)
		return 0;
	if ((err = wg_fs_fault_parse(&fault, spec)))
		return err;
	if (trace && *trace) {
		if (!(fault.payload = fopen(trace, "a")))
			return wg_error_set(WG_EIO, "cannot open '%s': %s", trace, strerror(errno));
		fault.trace = trace_fs_call;
	}
	wg_fs_fault_install(&fault);
	return 0;
}

static void print_help(void)
{
	size_t i;
	printf("usage: webgit [-C <path>] <command> [<args>]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		printf("   %s\n", commands[i].usage);
}

int main(int argc, char **argv)
{
	int i = 1, rc;
	size_t c;
	while (i < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "-C") && i + 1 < argc) {
			if (*argv[i + 1] && chdir(argv[i + 1]))
				return cli_fatal("cannot change to '%s': %s", argv[i + 1],
						 strerror(errno));
			i += 2;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			print_help();
			return 0;
		} else if (!strcmp(argv[i], "--version")) {
			printf("webgit version 0.1.0\n");
			return 0;
		} else {
			fprintf(stderr, "unknown option: %s\n", argv[i]);
			print_help();
			return 129;
		}
	}
	if (i >= argc) {
		print_help();
		return 1;
	}
	{
		/* WEBGIT_LIMITS="max_refs=1000,max_object_size=64m": the
		 * limits on untrusted input (docs/limits.md). A repository's
		 * core.maxTreeDepth still applies on top. */
		const char *spec = getenv("WEBGIT_LIMITS");
		struct wg_limits limits = *wg_limits_default();
		if (spec && *spec) {
			if (wg_limits_parse(&limits, spec))
				return cli_fatal("WEBGIT_LIMITS: %s", wg_error_message());
			wg_limits_set_default(&limits);
		}
	}
	if (install_fault_injection())
		return cli_fatal("WEBGIT_TEST_FS_FAULT: %s", wg_error_message());
	for (c = 0; c < sizeof(commands) / sizeof(commands[0]); c++) {
		if (strcmp(argv[i], commands[c].name))
			continue;
		rc = commands[c].run(argc - i, argv + i);
		if (fflush(stdout) && !rc)
			rc = cli_fatal("unable to write to standard output: %s", strerror(errno));
		return rc;
	}
	fprintf(stderr, "webgit: '%s' is not a webgit command. See 'webgit --help'.\n", argv[i]);
	return 1;
}
