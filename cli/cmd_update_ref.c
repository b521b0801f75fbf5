/* webgit update-ref: update, create or delete refs one at a time or as a
 * transaction read from stdin (git update-ref). */
#include <ctype.h>
#include <string.h>

#include "cli.h"
#include "object/object.h"
#include "repo/revparse.h"
#include "util/alloc.h"
#include "util/error.h"

static const char usage_str[] =
	"webgit update-ref [<options>] -d <refname> [<old-oid>]\n"
	"   or: webgit update-ref [<options>]    <refname> <new-oid> [<old-oid>]\n"
	"   or: webgit update-ref [<options>] --stdin [-z]";

struct stdin_ctx {
	struct wg_repo *repo;
	struct wg_oid checked;  /* last object found valid: bulk input repeats ids */
	bool have_checked;
	struct wg_ref_transaction *tx;
	const char *msg;
	unsigned flags;        /* default flags (--create-reflog) */
	unsigned next_flags;   /* "option no-deref" for the next command */
	bool z;
};

/* git refuses refs at objects that do not exist, and non-commits on
 * branches (write_ref_to_lockfile). */
static int check_new_object(struct wg_repo *repo, const char *name, const struct wg_oid *oid)
{
	enum wg_object_type type;
	size_t size;
	if (wg_oid_is_null(oid))
		return 0;

	if (wg_odb_read_header(wg_repo_odb(repo), oid, &type, &size)) {
		wg_error_clear();
		return wg_error_set(WG_ENOTFOUND, "cannot update ref '%s': trying to write ref "
				    "'%s' with nonexistent object %s", name, name, wg_oid_hex(oid));
	}
	if (type != WG_OBJ_COMMIT && !strncmp(name, "refs/heads/", 11))
		return wg_error_set(WG_EINVALID, "cannot update ref '%s': trying to write "
				    "non-commit object %s to branch '%s'", name, wg_oid_hex(oid), name);
	return 0;
}

/* The check is per object, except that a commit is fine on any ref: cache
 * the last commit found. */
static int check_cached(struct stdin_ctx *c, const char *name, const struct wg_oid *oid)
{
	enum wg_object_type type;
	size_t size;
	int err;
	if (c->have_checked && wg_oid_equal(&c->checked, oid))
		return 0;
	if ((err = check_new_object(c->repo, name, oid)))
		return err;
	if (!wg_oid_is_null(oid) &&
	    !wg_odb_read_header(wg_repo_odb(c->repo), oid, &type, &size) && type == WG_OBJ_COMMIT) {
		c->checked = *oid;
		c->have_checked = true;
	}
	wg_error_clear();
	return 0;
}

/* --- stdin parsing (text: SP-separated, LF-terminated; -z: NUL-separated) --- */

/* Read the next argument from *p (text mode). Returns 1 with arg set, 0 if
 * there is none. */
static int next_arg_text(const char **p, char **arg)
{
	const char *s = *p, *e;
	if (!*s)
		return 0;
	if (*s != ' ')
		return -1;
	s++;
	e = s;
	while (*e && *e != ' ')
		e++;
	*arg = wg_strndup(s, (size_t)(e - s));
	*p = e;
	return 1;
}

struct cmd_args {
	char *v[4];
	int n;
};

static void cmd_args_release(struct cmd_args *a)
{
	int i;
	for (i = 0; i < a->n; i++)
		wg_free(a->v[i]);
	a->n = 0;
}

static int parse_oid_arg(struct wg_oid *out, struct stdin_ctx *c, const char *cmd,
			 const char *ref, const char *arg, bool old)
{
	if (!*arg) {
		wg_oid_null(out, wg_repo_algo(c->repo));
		return 0;
	}
	if (wg_revparse(out, c->repo, arg)) {
		wg_error_clear();
		return cli_fatal("%s %s: invalid <%s-oid>: %s", cmd, ref, old ? "old" : "new", arg);
	}
	return 0;
}

static int run_cmd(struct stdin_ctx *c, const char *cmd, struct cmd_args *a)
{
	struct wg_oid nv, ov;
	const char *ref = a->n > 0 ? a->v[0] : NULL;
	unsigned flags = c->flags | c->next_flags;
	int err = 0, rc;
	bool has_old;

	c->next_flags = 0;
	if (!ref || !*ref)
		return cli_fatal("%s: missing <ref>", cmd);
	if (!wg_refdb_name_is_valid(ref))
		return cli_fatal("invalid ref format: %s", ref);
	if (!strcmp(cmd, "update")) {
		if (a->n < 2 || (c->z && !*a->v[1]))
			return cli_fatal("update %s: missing <new-oid>", ref);
		if ((rc = parse_oid_arg(&nv, c, cmd, ref, a->v[1], false)))
			return rc;
		has_old = a->n > 2 && !(c->z && !*a->v[2]);
		if (has_old && (rc = parse_oid_arg(&ov, c, cmd, ref, a->v[2], true)))
			return rc;
		if (!(err = check_cached(c, ref, &nv)))
			err = wg_ref_transaction_update(c->tx, ref, &nv, has_old ? &ov : NULL, flags,
							c->msg);
	} else if (!strcmp(cmd, "create")) {
		if (a->n < 2 || !*a->v[1])
			return cli_fatal("create %s: missing <new-oid>", ref);
		if ((rc = parse_oid_arg(&nv, c, cmd, ref, a->v[1], false)))
			return rc;
		if (wg_oid_is_null(&nv))
			return cli_fatal("create %s: zero <new-oid>", ref);
		if (!(err = check_cached(c, ref, &nv)))
			err = wg_ref_transaction_create(c->tx, ref, &nv, flags, c->msg);
	} else if (!strcmp(cmd, "delete")) {
		has_old = a->n > 1 && *a->v[1];
		if (has_old && (rc = parse_oid_arg(&ov, c, cmd, ref, a->v[1], true)))
			return rc;
		if (has_old && wg_oid_is_null(&ov))
			return cli_fatal("delete %s: zero <old-oid>", ref);
		err = wg_ref_transaction_delete(c->tx, ref, has_old ? &ov : NULL, flags, c->msg);
	} else {  /* verify */
		has_old = a->n > 1 && *a->v[1];
		if (has_old && (rc = parse_oid_arg(&ov, c, cmd, ref, a->v[1], true)))
			return rc;
		err = wg_ref_transaction_verify(c->tx, ref, has_old ? &ov : NULL, flags);
	}
	return err ? cli_fatal_core() : 0;
}

static const struct {
	const char *name;
	int maxargs;
} commands[] = {
	{ "update", 3 }, { "create", 2 }, { "delete", 2 }, { "verify", 2 },
};

enum { ST_OPEN, ST_STARTED, ST_PREPARED, ST_CLOSED };

static int run_stdin(struct stdin_ctx *c)
{
	struct wg_buf in = WG_BUF_INIT;
	size_t pos = 0;
	int rc = 0, state = ST_OPEN;
	char term = c->z ? '\0' : '\n';

	if (cli_read_stream(stdin, &in))
		return cli_fatal_core();
	if (wg_ref_transaction_new(&c->tx, wg_repo_refdb(c->repo))) {
		wg_buf_release(&in);
		return cli_fatal_core();
	}
	while (!rc && pos < in.len) {
		const char *line = (const char *)in.data + pos, *p;
		const char *end = memchr(line, term, in.len - pos);
		size_t len = end ? (size_t)(end - line) : in.len - pos, k;
		char *cmdline = wg_strndup(line, len);
		struct cmd_args a = { { NULL }, 0 };
		pos += len + 1;
		if (!cmdline) {
			rc = cli_fatal("out of memory");
			break;
		}
		if (!len) {
			rc = cli_fatal("empty command in input");
		} else if (isspace((unsigned char)cmdline[0])) {
			rc = cli_fatal("whitespace before command: %s", cmdline);
		} else if (!strcmp(cmdline, "start") || !strcmp(cmdline, "prepare") ||
			   !strcmp(cmdline, "commit") || !strcmp(cmdline, "abort")) {
			int want = cmdline[0] == 's' ? ST_STARTED : cmdline[0] == 'p' ?
				   ST_PREPARED : ST_CLOSED;
			if (state == ST_STARTED && want == ST_STARTED)
				rc = cli_fatal("cannot restart ongoing transaction");
			else if (state == ST_PREPARED && want != ST_CLOSED)
				rc = cli_fatal("prepared transactions can only be closed");
			else if (state == ST_CLOSED && want != ST_STARTED)
				rc = cli_fatal("transaction is closed");
			if (!rc && state == ST_CLOSED) {
				wg_ref_transaction_free(c->tx);
				c->tx = NULL;
				if (wg_ref_transaction_new(&c->tx, wg_repo_refdb(c->repo)))
					rc = cli_fatal_core();
			}
			if (!rc && want == ST_PREPARED && wg_ref_transaction_prepare(c->tx))
				rc = cli_fatal("prepare: %s", wg_error_message());
			else if (!rc && !strcmp(cmdline, "commit") &&
				 wg_ref_transaction_commit(c->tx))
				rc = cli_fatal("commit: %s", wg_error_message());
			else if (!rc && !strcmp(cmdline, "abort"))
				wg_ref_transaction_abort(c->tx);
			if (!rc) {
				printf("%s: ok\n", cmdline);
				fflush(stdout);
				state = want;
			}
		} else if (!strncmp(cmdline, "option ", 7)) {
			if (!strcmp(cmdline + 7, "no-deref"))
				c->next_flags |= WG_REF_NO_DEREF;
			else
				rc = cli_fatal("option unknown: %s", cmdline + 7);
		} else {
			for (k = 0; k < sizeof(commands) / sizeof(commands[0]); k++) {
				size_t n = strlen(commands[k].name);
				if (!strncmp(cmdline, commands[k].name, n) && cmdline[n] == ' ')
					break;
			}
			if (k == sizeof(commands) / sizeof(commands[0])) {
				rc = cli_fatal("unknown command: %s", cmdline);
			} else if (state == ST_PREPARED) {
				rc = cli_fatal("prepared transactions can only be closed");
			} else if (state == ST_CLOSED) {
				rc = cli_fatal("transaction is closed");
			} else if (c->z) {
				/* The ref follows the space; each further arg is NUL-terminated. */
				p = cmdline + strlen(commands[k].name) + 1;
				a.v[a.n++] = wg_strdup(p);
				while (a.n < commands[k].maxargs && pos < in.len) {
					const char *s = (const char *)in.data + pos;
					const char *e = memchr(s, '\0', in.len - pos);
					size_t l = e ? (size_t)(e - s) : in.len - pos;
					a.v[a.n++] = wg_strndup(s, l);
					pos += l + 1;
				}
				rc = run_cmd(c, commands[k].name, &a);
			} else {
				int r;
				char *arg = NULL;
				p = cmdline + strlen(commands[k].name);
				while (a.n < 4 && (r = next_arg_text(&p, &arg)) == 1)
					a.v[a.n++] = arg;
				if (*p || a.n > commands[k].maxargs)
					rc = cli_fatal("%s %s: extra input: %s", commands[k].name,
						       a.n ? a.v[0] : "", p);
				else
					rc = run_cmd(c, commands[k].name, &a);
			}
		}
		cmd_args_release(&a);
		wg_free(cmdline);
	}
	if (!rc && state == ST_OPEN && wg_ref_transaction_commit(c->tx))
		rc = cli_fatal_core();
	wg_ref_transaction_free(c->tx);  /* aborts a started or prepared one */
	c->tx = NULL;
	wg_buf_release(&in);
	return rc;
}

int cmd_update_ref(int argc, char **argv)
{
	struct wg_repo *repo = NULL;
	struct stdin_ctx c;
	const char *msg = NULL, *args[3];
	bool del = false, use_stdin = false, z = false;
	unsigned flags = 0;
	int i, nargs = 0, rc;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-m") && i + 1 < argc)
			msg = argv[++i];
		else if (!strncmp(a, "-m", 2) && a[2])
			msg = a + 2;
		else if (!strcmp(a, "-d"))
			del = true;
		else if (!strcmp(a, "--no-deref"))
			flags |= WG_REF_NO_DEREF;
		else if (!strcmp(a, "--create-reflog"))
			flags |= WG_REF_FORCE_REFLOG;
		else if (!strcmp(a, "--stdin"))
			use_stdin = true;
		else if (!strcmp(a, "-z"))
			z = true;
		else if (!strcmp(a, "--"))
			continue;
		else if (a[0] == '-' && a[1])
			return cli_usage(usage_str);
		else if (nargs < 3)
			args[nargs++] = a;
		else
			return cli_usage(usage_str);
	}
	if (msg && !*msg)
		return cli_fatal("Refusing to perform update with empty message.");
	if ((use_stdin && (del || nargs)) || (!use_stdin && z) ||
	    (!use_stdin && del && (nargs < 1 || nargs > 2)) ||
	    (!use_stdin && !del && (nargs < 2 || nargs > 3)))
		return cli_usage(usage_str);
	if ((rc = cli_open_repo(&repo)))
		return rc;
	memset(&c, 0, sizeof(c));
	c.repo = repo;
	c.msg = msg;
	c.flags = flags;
	c.z = z;
	if (use_stdin) {
		rc = run_stdin(&c);
	} else {
		struct wg_oid nv, ov;
		const char *ref = args[0], *oldval = del ? (nargs > 1 ? args[1] : NULL) :
					       (nargs > 2 ? args[2] : NULL);
		if (!del && wg_revparse(&nv, repo, args[1])) {
			rc = cli_fatal("%s: not a valid SHA1", args[1]);
			goto done;
		}
		if (oldval && !*oldval) {
			wg_oid_null(&ov, wg_repo_algo(repo));
		} else if (oldval && wg_revparse(&ov, repo, oldval)) {
			rc = cli_fatal("%s: not a valid old SHA1", oldval);
			goto done;
		}
		if (del) {
			if (wg_refdb_delete(wg_repo_refdb(repo), ref,
					    oldval && !wg_oid_is_null(&ov) ? &ov : NULL, flags, msg)) {
				fprintf(stderr, "error: %s\n", wg_error_message());
				rc = 1;
			}
		} else if (!wg_refdb_name_is_valid(ref)) {
			rc = cli_fatal("update_ref failed for ref '%s': refusing to update ref with "
				       "bad name '%s'", ref, ref);
		} else if (check_new_object(repo, ref, &nv) ||
			   wg_refdb_update(wg_repo_refdb(repo), ref, &nv, oldval ? &ov : NULL,
					   flags, msg)) {
			rc = cli_fatal("update_ref failed for ref '%s': %s", ref, wg_error_message());
		}
	}
done:
	wg_repo_free(repo);
	return rc;
}
