/* webgit check-attr: the attributes of paths, as git check-attr prints
 * them (-a, --stdin, -z, --cached; names and paths split at "--" as git
 * does). No --source yet. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "index/index.h"
#include "repo/config.h"
#include "repo/repo.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/quote.h"
#include "worktree/attr.h"
#include "worktree/attr_source.h"

static const char usage[] =
	"webgit check-attr [-a | --all | <attr>...] [--] <pathname>...\n"
	"   or: webgit check-attr --stdin [-z] [-a | --all | <attr>...]";

struct run {
	struct wg_attr *attr;
	struct wg_attr_source src;
	struct wg_repo *repo;
	const char *prefix; /* the current directory under the top, "" or "dir/" */
	bool all, nul;
	unsigned *ids;
	const char **names;
	size_t n;
	struct wg_attr_value *values;
	struct wg_buf full, out;
};

static void warn_stderr(void *payload, const char *line)
{
	(void)payload;
	fprintf(stderr, "%s\n", line);
}

static int error_usage(const char *msg)
{
	fprintf(stderr, "error: %s\n", msg);
	return cli_usage(usage);
}

/* git's prefix_path: the path from the top, "." and ".." resolved; a
 * trailing '/' stays (the matcher takes it for a directory). */
static int full_path(struct wg_buf *out, const char *prefix, const char *path)
{
	struct wg_buf in = WG_BUF_INIT;
	const char *p;
	size_t plen = strlen(path);
	int err;

	wg_buf_reset(out);
	if ((err = wg_buf_adds(&in, prefix)) || (err = wg_buf_adds(&in, path)))
		goto done;
	for (p = wg_buf_cstr(&in); *p;) {
		const char *e = strchr(p, '/');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			size_t n = out->len;
			if (!n) {
				err = wg_error_set(WG_EINVALID, "'%s' is outside repository", path);
				goto done;
			}
			while (n && out->data[n - 1] != '/')
				n--;
			wg_buf_setlen(out, n ? n - 1 : 0);
		} else if (len && !(len == 1 && p[0] == '.')) {
			if ((out->len && (err = wg_buf_addch(out, '/'))) || (err = wg_buf_add(out, p, len)))
				goto done;
		}
		p += len + (e ? 1 : 0);
	}
	if (plen && path[plen - 1] == '/' && out->len)
		err = wg_buf_addch(out, '/');
	else if (!out->len)
		err = wg_buf_adds(out, "");
done:
	wg_buf_release(&in);
	return err;
}

/* git's builtin_objectmode, computed when nothing set it: the index's
 * mode (--cached), or the file's. */
static int object_mode(struct run *r, const char *path, char *buf, size_t size, bool *found)
{
	const struct wg_index *ix = r->src.index;
	long pos = ix ? wg_index_find(ix, path, strlen(path), 0) : -1;
	unsigned mode = 0;
	struct stat st;

	*found = false;
	if (r->src.direction != WG_ATTR_CHECKIN || !r->src.workdir) {
		if (pos < 0)
			return 0;
		mode = ix->entries[pos]->mode;
	} else {
		struct wg_buf p = WG_BUF_INIT;
		int rc = wg_fs_join(&p, r->src.workdir, path) ? -1 : wg_fs_lstat(wg_buf_cstr(&p), &st);
		wg_buf_release(&p);
		if (rc)
			return cli_fatal("unable to stat '%s': %s", path, strerror(errno));
		if (S_ISLNK(st.st_mode))
			mode = 0120000;
		else if (S_ISDIR(st.st_mode))
			mode = pos >= 0 && ix->entries[pos]->mode == 0160000 ? 0160000 : 040000;
		else
			mode = st.st_mode & 0100 ? 0100755 : 0100644;
	}
	snprintf(buf, size, "%06o", mode);
	*found = true;
	return 0;
}

static int add_line(struct run *r, const char *file, const char *name, const char *value)
{
	int err = 0;

	if (r->nul)
		err = wg_buf_adds(&r->out, file) || wg_buf_addch(&r->out, '\0') ||
		      wg_buf_adds(&r->out, name) || wg_buf_addch(&r->out, '\0') ||
		      wg_buf_adds(&r->out, value) || wg_buf_addch(&r->out, '\0');
	else
		err = wg_quote_c_style(&r->out, file, strlen(file)) ||
		      wg_buf_printf(&r->out, ": %s: %s\n", name, value);
	return err ? wg_error_set(WG_ENOMEM, "out of memory") : 0;
}

static const char *value_text(const struct wg_attr_value *v)
{
	switch (v->state) {
	case WG_ATTR_SET: return "set";
	case WG_ATTR_UNSET: return "unset";
	case WG_ATTR_VALUE: return v->value;
	case WG_ATTR_UNSPECIFIED: break;
	}
	return "unspecified";
}

static int check_one(struct run *r, const char *file)
{
	int err;

	if ((err = full_path(&r->full, r->prefix, file)))
		return cli_fatal("%s", wg_error_message());
	wg_buf_reset(&r->out);
	if (r->all) {
		const struct wg_attr_item *items;
		size_t n;
		if ((err = wg_attr_check_all(r->attr, wg_buf_cstr(&r->full), &items, &n)))
			return cli_fatal_core();
		for (size_t i = 0; i < n && !err; i++)
			err = add_line(r, file, wg_attr_name(r->attr, items[i].id), value_text(&items[i].v));
	} else {
		if ((err = wg_attr_check(r->attr, wg_buf_cstr(&r->full), r->ids, r->n, r->values)))
			return cli_fatal_core();
		for (size_t i = 0; i < r->n && !err; i++) {
			char mode[16];
			bool found = false;
			const char *v = value_text(&r->values[i]);
			if (r->values[i].state == WG_ATTR_UNSPECIFIED &&
			    !strcmp(r->names[i], "builtin_objectmode")) {
				int rc = object_mode(r, wg_buf_cstr(&r->full), mode, sizeof(mode), &found);
				if (rc)
					return rc;
				if (found)
					v = mode;
			}
			err = add_line(r, file, r->names[i], v);
		}
	}
	if (err)
		return cli_fatal_core();
	err = cli_write_stdout(r->out.data, r->out.len);
	fflush(stdout);
	return err;
}

static int check_stdin(struct run *r)
{
	struct wg_buf in = WG_BUF_INIT, un = WG_BUF_INIT;
	char term = r->nul ? '\0' : '\n';
	size_t pos = 0;
	int rc = 0;

	if (cli_read_stream(stdin, &in)) {
		wg_buf_release(&in);
		return cli_fatal("out of memory");
	}
	while (pos < in.len && !rc) {
		char *line = (char *)in.data + pos;
		char *end = memchr(line, term, in.len - pos);
		size_t len = end ? (size_t)(end - line) : in.len - pos;

		line[len] = '\0';
		pos += len + 1;
		if (!r->nul && line[0] == '"') {
			wg_buf_reset(&un);
			if (wg_unquote_c_style(&un, line, len)) {
				rc = cli_fatal("line is badly quoted");
				break;
			}
			rc = check_one(r, wg_buf_cstr(&un));
		} else {
			rc = check_one(r, line);
		}
	}
	wg_buf_release(&in);
	wg_buf_release(&un);
	return rc;
}

/* The current directory below the top, as "dir/" ("" at the top). */
static int cwd_prefix(struct wg_buf *out, const char *workdir)
{
	char cwd[PATH_MAX];
	char *real, *top;
	size_t n;
	int err = 0;

	wg_buf_reset(out);
	if (!workdir || !getcwd(cwd, sizeof(cwd)))
		return 0;
	real = wg_fs_realpath(cwd);
	top = wg_fs_realpath(workdir);
	if (real && top) {
		n = strlen(top);
		if (!strncmp(real, top, n) && real[n] == '/')
			err = wg_buf_adds(out, real + n + 1) || wg_buf_addch(out, '/');
	}
	free(real);
	free(top);
	return err ? wg_error_set(WG_ENOMEM, "out of memory") : 0;
}

int cmd_check_attr(int argc, char **argv)
{
	struct run r = { 0 };
	struct wg_buf global = WG_BUF_INIT, info = WG_BUF_INIT, prefix = WG_BUF_INIT;
	struct wg_index *ix = NULL;
	struct wg_attr_options ao = { 0 };
	bool cached = false, use_stdin = false;
	char **args = NULL;
	const char *v;
	int nargs = 0, doubledash = -1, cnt = 0, filei = 0, rc = 0;

	if (!(args = wg_calloc((size_t)argc + 1, sizeof(*args))))
		return cli_fatal("out of memory");
	/* git's parse_options: options anywhere before "--", which stays */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (doubledash < 0 && !strcmp(a, "--")) {
			doubledash = nargs;
			args[nargs++] = argv[i];
		} else if (doubledash >= 0 || a[0] != '-' || !a[1]) {
			args[nargs++] = argv[i];
		} else if (!strcmp(a, "-a") || !strcmp(a, "--all")) {
			r.all = true;
		} else if (!strcmp(a, "--cached")) {
			cached = true;
		} else if (!strcmp(a, "--stdin")) {
			use_stdin = true;
		} else if (!strcmp(a, "-z")) {
			r.nul = true;
		} else {
			wg_free(args);
			fprintf(stderr, "error: unknown option `%s'\n", a + (a[1] == '-' ? 2 : 1));
			return cli_usage(usage);
		}
	}
	if (r.all) {
		if (doubledash >= 1)
			rc = error_usage("Attributes and --all both specified");
		cnt = 0;
		filei = doubledash + 1;
	} else if (doubledash == 0) {
		rc = error_usage("No attribute specified");
	} else if (doubledash < 0) {
		if (!nargs)
			rc = error_usage("No attribute specified");
		cnt = use_stdin ? nargs : 1;
		filei = cnt;
	} else {
		cnt = doubledash;
		filei = doubledash + 1;
	}
	if (!rc && use_stdin && filei < nargs)
		rc = error_usage("Can't specify files with --stdin");
	else if (!rc && !use_stdin && filei >= nargs)
		rc = error_usage("No file specified");
	if (rc) {
		wg_free(args);
		return rc;
	}

	if ((rc = cli_open_repo(&r.repo))) {
		wg_free(args);
		return rc;
	}
	if (cli_read_index(&ix, r.repo)) {
		rc = cli_fatal("invalid cache");
		goto out;
	}
	/* the config git reads: core.attributesFile, core.ignoreCase */
	v = NULL;
	if (wg_repo_config_get(r.repo, "core.attributesfile", &v))
		v = NULL;
	if (wg_attr_global_path(&global, v, getenv("HOME"), getenv("XDG_CONFIG_HOME")) ||
	    wg_fs_join(&info, wg_repo_gitdir(r.repo), "info/attributes") ||
	    cwd_prefix(&prefix, wg_repo_workdir(r.repo))) {
		rc = cli_fatal("out of memory");
		goto out;
	}
	if (!wg_repo_config_get(r.repo, "core.ignorecase", &v)) {
		bool b;
		if (wg_config_bool_value("core.ignorecase", v, &b)) {
			rc = cli_fatal_core();
			goto out;
		}
		ao.ignore_case = b;
	}
	wg_error_clear();
	r.prefix = wg_buf_cstr(&prefix);
	r.src.workdir = wg_repo_workdir(r.repo);
	r.src.info_file = wg_buf_cstr(&info);
	{
		/* git names it from the top of the working tree: ".git/info/attributes" */
		const char *top = r.src.workdir, *gd = wg_repo_gitdir(r.repo);
		size_t n = top ? strlen(top) : 0;
		if (top && !strncmp(gd, top, n) && gd[n] == '/')
			r.src.info_name = wg_buf_cstr(&info) + n + 1;
	}
	r.src.global_file = global.len ? wg_buf_cstr(&global) : NULL;
	r.src.index = ix;
	r.src.odb = wg_repo_odb(r.repo);
	r.src.direction = cached || !r.src.workdir ? WG_ATTR_INDEX : WG_ATTR_CHECKIN;
	r.src.warn = warn_stderr;
	ao.read = wg_attr_source_read;
	ao.warn = warn_stderr;
	ao.payload = &r.src;
	if (wg_attr_new(&r.attr, &ao)) {
		rc = cli_fatal_core();
		goto out;
	}
	if (!r.all) {
		r.n = (size_t)cnt;
		r.ids = wg_calloc(r.n ? r.n : 1, sizeof(*r.ids));
		r.values = wg_calloc(r.n ? r.n : 1, sizeof(*r.values));
		r.names = (const char **)args;
		if (!r.ids || !r.values) {
			rc = cli_fatal("out of memory");
			goto out;
		}
		for (size_t i = 0; i < r.n; i++)
			if (wg_attr_intern(r.attr, args[i], &r.ids[i])) {
				fprintf(stderr, "error: %s\n", wg_error_message());
				rc = 1;
				goto out;
			}
	}
	if (use_stdin)
		rc = check_stdin(&r);
	else
		for (int i = filei; i < nargs && !rc; i++)
			rc = check_one(&r, args[i]);
out:
	wg_attr_free(r.attr);
	wg_free(r.ids);
	wg_free(r.values);
	wg_buf_release(&r.full);
	wg_buf_release(&r.out);
	wg_buf_release(&global);
	wg_buf_release(&info);
	wg_buf_release(&prefix);
	wg_index_free(ix);
	wg_repo_free(r.repo);
	wg_free(args);
	return rc;
}
