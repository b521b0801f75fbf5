/* webgit cat-file: show an object's type, size or content (git cat-file),
 * one object from the command line or many from stdin (--batch,
 * --batch-check, --batch-all-objects). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "object/fsck.h"
#include "object/tree.h"
#include "repo/revparse.h"
#include "util/error.h"

static int pretty_tree(const struct wg_hash_algo *algo, const struct wg_buf *data)
{
	struct wg_tree_iter it;
	struct wg_tree_entry e;
	struct wg_buf line = WG_BUF_INIT;
	int err, rc = 0;
	wg_tree_iter_init(&it, algo, data->data, data->len);
	while (!rc && !(err = wg_tree_iter_next(&it, &e))) {
		wg_buf_reset(&line);
		if (wg_tree_entry_format(&line, &e, WG_TREE_FORMAT_QUOTE) ||
		    wg_buf_addch(&line, '\n'))
			rc = cli_fatal_core();
		else
			rc = cli_write_stdout(line.data, line.len);
	}
	wg_buf_release(&line);
	if (!rc && err != WG_ITEROVER)
		rc = cli_fatal_core();
	return rc;
}

/* --- --batch and --batch-check ------------------------------------------------ */

struct batch {
	struct wg_repo *repo;
	const char *format;     /* NULL: "%(objectname) %(objecttype) %(objectsize)" */
	bool contents;          /* --batch: the object's bytes follow its line */
	bool split;             /* the format has %(rest): names end at whitespace */
	bool flush;             /* flush after every object (no --buffer) */
	struct wg_buf out, data;
};

/* Expand the format for one object into b->out (without the newline), as
 * git's expand_format does: "%%" is "%", a "%" not followed by "(" stays
 * as it is, and an element git does not know is fatal. With oid NULL it
 * only checks the format (and notes %(rest)). Returns 0 or an exit status. */
static int batch_expand(struct batch *b, const struct wg_oid *oid, enum wg_object_type type,
			size_t size, const char *rest)
{
	const char *f = b->format, *end;
	int err = 0;
	while (!err && *f) {
		const char *pct = strchr(f, '%');
		size_t len;
		if (!pct) {
			err = wg_buf_adds(&b->out, f);
			break;
		}
		err = wg_buf_add(&b->out, f, (size_t)(pct - f));
		f = pct + 1;
		if (err)
			break;
		if (*f == '%' || *f != '(') {
			if (*f == '%')
				f++;
			err = wg_buf_addch(&b->out, '%');
			continue;
		}
		if (!(end = strchr(f + 1, ')')))
			return cli_fatal("bad cat-file format: element '%s' does not end in ')'", f);
		len = (size_t)(end - f - 1);
#define ATOM(name) (len == sizeof(name) - 1 && !memcmp(f + 1, name, len))
		if (ATOM("objectname")) {
			if (oid)
				err = wg_buf_adds(&b->out, wg_oid_hex(oid));
		} else if (ATOM("objecttype")) {
			if (oid)
				err = wg_buf_adds(&b->out, wg_object_type_name(type));
		} else if (ATOM("objectsize")) {
			if (oid)
				err = wg_buf_printf(&b->out, "%zu", size);
		} else if (ATOM("rest")) {
			if (!oid)
				b->split = true;
			else if (rest)
				err = wg_buf_adds(&b->out, rest);
		} else if (ATOM("objectsize:disk") || ATOM("deltabase") || ATOM("objectmode")) {
			return cli_fatal("cat-file: %%%.*s is not supported by webgit",
					 (int)(end - f + 1), f);
		} else {
			return cli_fatal("bad cat-file format: %%%.*s", (int)(end - f + 1), f);
		}
#undef ATOM
		f = end + 1;
	}
	return err ? cli_fatal_core() : 0;
}

/* "<name> missing" / "<name> ambiguous", flushed as git does. */
static int batch_status(const char *name, const char *status)
{
	if (printf("%s %s\n", name, status) < 0 || fflush(stdout))
		return cli_fatal("write error");
	return 0;
}

/* One object: its line, then with --batch its bytes and a newline. name is
 * what the caller asked for (NULL for --batch-all-objects), shown when the
 * object is missing. */
static int batch_object(struct batch *b, const char *name, const struct wg_oid *oid,
			const char *rest)
{
	struct wg_odb *odb = wg_repo_odb(b->repo);
	enum wg_object_type type;
	size_t size;
	int err, rc;
	if (b->contents) {
		err = wg_odb_read(odb, oid, &type, &b->data);
		size = b->data.len;
	} else {
		err = wg_odb_read_header(odb, oid, &type, &size);
	}
	if (err == WG_ENOTFOUND)
		return batch_status(name ? name : wg_oid_hex(oid), "missing");
	if (err)
		return cli_fatal_core();
	wg_buf_reset(&b->out);
	if (b->format) {
		if ((rc = batch_expand(b, oid, type, size, rest)))
			return rc;
	} else if (wg_buf_printf(&b->out, "%s %s %zu", wg_oid_hex(oid),
				 wg_object_type_name(type), size)) {
		return cli_fatal_core();
	}
	if (wg_buf_addch(&b->out, '\n'))
		return cli_fatal_core();
	if ((rc = cli_write_stdout(b->out.data, b->out.len)))
		return rc;
	if (b->contents && ((rc = cli_write_stdout(b->data.data, b->data.len)) ||
			    (rc = cli_write_stdout("\n", 1))))
		return rc;
	if (b->flush && fflush(stdout))
		return cli_fatal("write error");
	return 0;
}

/* Names from stdin, one a line (a CR before the LF is dropped). */
static int batch_stdin(struct batch *b)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0;
	while (!rc && (n = getline(&line, &cap, stdin)) >= 0) {
		char *rest = NULL;
		struct wg_oid oid;
		int err;
		if (n > 0 && line[n - 1] == '\n') {
			line[--n] = '\0';
			if (n > 0 && line[n - 1] == '\r')
				line[--n] = '\0';
		}
		if (b->split && (rest = strpbrk(line, " \t"))) {
			while (*rest == ' ' || *rest == '\t')
				*rest++ = '\0';
		}
		err = wg_revparse(&oid, b->repo, line);
		if (err == WG_ENOTFOUND || err == WG_EINVALID)
			rc = batch_status(line, "missing");
		else if (err == WG_EAMBIGUOUS)
			rc = batch_status(line, "ambiguous");
		else if (err)
			rc = cli_fatal_core();
		else
			rc = batch_object(b, line, &oid, rest);
	}
	if (!rc && ferror(stdin))
		rc = cli_fatal("error reading standard input");
	free(line);
	return rc;
}

struct oid_list {
	struct wg_oid *v;
	size_t n, cap;
};

static int collect_oid(const struct wg_oid *oid, void *payload)
{
	struct oid_list *l = payload;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 1024;
		struct wg_oid *v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return wg_error_set(WG_ENOMEM, "out of memory listing objects");
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *oid;
	return 0;
}

static int cmp_oid(const void *a, const void *b)
{
	return wg_oid_cmp(a, b);
}

/* Every object of the repository, sorted by id, each once. */
static int batch_all(struct batch *b)
{
	struct oid_list l = { NULL, 0, 0 };
	size_t i;
	int rc = 0;
	if (wg_odb_foreach(wg_repo_odb(b->repo), collect_oid, &l)) {
		free(l.v);
		return cli_fatal_core();
	}
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), cmp_oid);
	for (i = 0; !rc && i < l.n; i++) {
		if (i && wg_oid_equal(&l.v[i - 1], &l.v[i]))
			continue;
		rc = batch_object(b, NULL, &l.v[i], NULL);
	}
	free(l.v);
	return rc;
}

static int cat_file_batch(int argc, char **argv, const char *usage)
{
	struct batch b = { .flush = true };
	bool all = false, mode = false;
	int i, rc;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--batch-all-objects")) {
			all = true;
		} else if (!strcmp(a, "--buffer")) {
			b.flush = false;
		} else if (!strncmp(a, "--batch", 7) &&
			   (a[7] == '\0' || a[7] == '=' || !strncmp(a + 7, "-check", 6))) {
			const char *p = a + 7;
			if (mode) {
				fputs("error: only one batch option may be specified\n", stderr);
				return cli_usage(usage);
			}
			mode = true;
			b.contents = strncmp(p, "-check", 6) != 0;
			if (!b.contents)
				p += 6;
			if (*p == '=')
				b.format = p + 1;
			else if (*p)
				return cli_usage(usage);
		} else {
			return cli_usage(usage);
		}
	}
	if (!mode)
		return cli_usage(usage);
	if (b.format && !strcmp(b.format, "%(objectname) %(objecttype) %(objectsize)"))
		b.format = NULL;
	/* Check the format (and find %(rest)) before reading anything. */
	if (!(b.format && (rc = batch_expand(&b, NULL, WG_OBJ_NONE, 0, NULL))) &&
	    !(rc = cli_open_repo(&b.repo))) {
		rc = all ? batch_all(&b) : batch_stdin(&b);
		if (!rc && fflush(stdout))
			rc = cli_fatal("write error");
	}
	wg_buf_release(&b.out);
	wg_buf_release(&b.data);
	wg_repo_free(b.repo);
	return rc;
}

int cmd_cat_file(int argc, char **argv)
{
	static const char usage[] = "webgit cat-file (-t | -s | -e | -p | <type>) <object>\n"
		"   or: webgit cat-file (--batch | --batch-check)[=<format>] [--batch-all-objects] "
		"[--buffer]";
	struct wg_repo *repo = NULL;
	struct wg_buf data = WG_BUF_INIT;
	enum wg_object_type type, want = WG_OBJ_NONE;
	struct wg_oid oid;
	const char *mode, *name;
	size_t size;
	int rc, err;

	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--batch", 7) || !strcmp(argv[i], "--buffer"))
			return cat_file_batch(argc, argv, usage);
	}
	if (argc != 3)
		return cli_usage(usage);
	mode = argv[1];
	name = argv[2];
	if (mode[0] != '-') {
		want = wg_object_type_from_name(mode, strlen(mode));
		if (want == WG_OBJ_BAD)
			return cli_fatal("invalid object type \"%s\"", mode);
	} else if (strcmp(mode, "-t") && strcmp(mode, "-s") && strcmp(mode, "-e") &&
		   strcmp(mode, "-p")) {
		return cli_usage(usage);
	}
	if ((rc = cli_open_repo(&repo)))
		return rc;
	if ((err = wg_revparse(&oid, repo, name))) {
		if (err == WG_ENOTFOUND || err == WG_EINVALID)
			rc = cli_fatal("Not a valid object name %s", name);
		else
			rc = cli_fatal_core();
		goto done;
	}
	if (!strcmp(mode, "-e")) {
		/* Exists and is readable: read it whole so corruption shows. */
		err = wg_odb_read(wg_repo_odb(repo), &oid, &type, &data);
		if (err && err != WG_ENOTFOUND)
			rc = cli_fatal_core();
		else
			rc = err ? 1 : 0;
		goto done;
	}
	if (!strcmp(mode, "-t") || !strcmp(mode, "-s")) {
		if ((err = wg_odb_read_header(wg_repo_odb(repo), &oid, &type, &size))) {
			rc = err == WG_ENOTFOUND ? cli_fatal("git cat-file: could not get object "
							     "info") : cli_fatal_core();
			goto done;
		}
		if (mode[1] == 't')
			printf("%s\n", wg_object_type_name(type));
		else
			printf("%zu\n", size);
		goto done;
	}
	if (want != WG_OBJ_NONE) {
		/* "cat-file tree <commit>" shows the commit's tree, as git does. */
		if ((err = wg_object_peel(&oid, repo, &oid, want))) {
			rc = cli_fatal_core();
			goto done;
		}
	}
	if ((err = wg_odb_read(wg_repo_odb(repo), &oid, &type, &data))) {
		rc = cli_fatal_core();
		goto done;
	}
	if (want != WG_OBJ_NONE && type != want) {
		rc = cli_fatal("git cat-file %s: bad file", name);
		goto done;
	}
	if (want == WG_OBJ_NONE && type != WG_OBJ_BLOB) {
		/* Pretty-printing is for people: refuse what we would refuse
		 * from a remote (a ".git" entry, a bad mode, a missing header)
		 * with the reason, rather than show it as if it were fine. */
		struct wg_fsck_options fsck = WG_FSCK_OPTIONS_INIT;
		if (wg_fsck_object(&fsck, wg_repo_algo(repo), &oid, type, data.data, data.len)) {
			rc = cli_fatal_core();
			goto done;
		}
	}
	if (want == WG_OBJ_NONE && type == WG_OBJ_TREE)
		rc = pretty_tree(wg_repo_algo(repo), &data);
	else
		rc = cli_write_stdout(data.data, data.len);
done:
	wg_buf_release(&data);
	wg_repo_free(repo);
	return rc;
}
