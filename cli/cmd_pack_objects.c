/* webgit pack-objects: write a pack of the objects named on standard input
 * (git pack-objects without --revs). Each line is an object id, optionally
 * followed by a space and the path it was reached by, as
 * `git rev-list --objects` prints it. With --thin, a line "-<id>" names an
 * object the receiver has: for a commit its whole tree, for a tree the
 * tree and everything in it, may then serve as delta bases without being
 * sent (git calls these preferred bases).
 *
 * Writes <base>-<checksum>.pack, .idx and .rev and prints the checksum, or
 * with --stdout writes the pack to standard output. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "object/commit.h"
#include "object/tree.h"
#include "pack/writer.h"
#include "util/error.h"
#include "util/limits.h"

/* Declare a tree and everything below it as the receiver's. Directory
 * recursion is bounded by max_tree_depth (core.maxTreeDepth). */
static int add_have_tree(struct wg_pack_writer *w, struct wg_odb *odb, const struct wg_oid *tree,
			 struct wg_buf *path, unsigned level)
{
	struct wg_buf data = WG_BUF_INIT;
	struct wg_tree_iter it;
	struct wg_tree_entry e;
	enum wg_object_type type;
	size_t keep = path->len;
	int err;
	if ((err = wg_limits_check_tree_depth(wg_odb_limits(odb), level, wg_oid_hex(tree))))
		return err;
	if ((err = wg_pack_writer_add_have(w, tree, wg_buf_cstr(path))))
		return err;
	if ((err = wg_odb_read(odb, tree, &type, &data))) {
		wg_buf_release(&data);
		/* A have we cannot read is only a missed opportunity. */
		wg_error_clear();
		return 0;
	}
	wg_tree_iter_init(&it, wg_odb_algo(odb), data.data, data.len);
	while (!(err = wg_tree_iter_next(&it, &e))) {
		enum wg_object_type t = wg_tree_mode_type(e.mode);
		if (t == WG_OBJ_COMMIT)
			continue;  /* submodule commits live elsewhere */
		wg_buf_setlen(path, keep);
		if ((keep && (err = wg_buf_addch(path, '/'))) ||
		    (err = wg_buf_add(path, e.name, e.namelen)))
			break;
		if (t == WG_OBJ_TREE)
			err = add_have_tree(w, odb, &e.oid, path, level + 1);
		else
			err = wg_pack_writer_add_have(w, &e.oid, wg_buf_cstr(path));
		if (err)
			break;
	}
	wg_buf_setlen(path, keep);
	wg_buf_release(&data);
	return err == WG_ITEROVER ? 0 : err;
}

static int add_have(struct wg_pack_writer *w, struct wg_odb *odb, const struct wg_oid *oid)
{
	struct wg_buf data = WG_BUF_INIT, path = WG_BUF_INIT;
	enum wg_object_type type;
	int err;
	if (wg_odb_read(odb, oid, &type, &data)) {
		wg_buf_release(&data);
		wg_error_clear();
		return 0;
	}
	if (type == WG_OBJ_COMMIT) {
		struct wg_commit c;
		if (!(err = wg_commit_parse(&c, wg_odb_algo(odb), data.data, data.len)))
			err = add_have_tree(w, odb, &c.tree, &path, 0);
		wg_commit_release(&c);
	} else if (type == WG_OBJ_TREE) {
		err = add_have_tree(w, odb, oid, &path, 0);
	} else {
		err = wg_pack_writer_add_have(w, oid, NULL);
	}
	wg_buf_release(&data);
	wg_buf_release(&path);
	return err;
}

static int read_list(struct wg_pack_writer *w, struct wg_odb *odb, bool thin)
{
	const struct wg_hash_algo *algo = wg_odb_algo(odb);
	struct wg_buf in = WG_BUF_INIT;
	char *line, *next, *end;
	int rc = 0;
	if (cli_read_stream(stdin, &in)) {
		wg_buf_release(&in);
		return cli_fatal_core();
	}
	line = (char *)wg_buf_cstr(&in);
	end = line + in.len;
	for (; line < end && !rc; line = next) {
		struct wg_oid oid;
		bool have = false;
		char *nl = memchr(line, '\n', (size_t)(end - line));
		next = nl ? nl + 1 : end;
		if (nl)
			*nl = '\0';
		if (!*line)
			continue;
		if (*line == '-') {
			have = true;
			line++;
		}
		if (wg_oid_from_hex(&oid, algo, line) ||
		    (line[algo->hexsz] && line[algo->hexsz] != ' ')) {
			rc = cli_fatal("expected object ID, got garbage:\n %s", line);
			break;
		}
		if (have) {
			if (thin && add_have(w, odb, &oid))
				rc = cli_fatal_core();
		} else if (wg_pack_writer_add(w, &oid, line[algo->hexsz] ? line + algo->hexsz + 1 : NULL)) {
			rc = cli_fatal_core();
		}
	}
	wg_buf_release(&in);
	return rc;
}

static int parse_uint(const char *s, unsigned *out)
{
	char *endp;
	unsigned long v = strtoul(s, &endp, 10);
	if (!*s || *endp || v > 1000000)
		return -1;
	*out = (unsigned)v;
	return 0;
}

int cmd_pack_objects(int argc, char **argv)
{
	static const char usage[] = "webgit pack-objects [-q] [--window=<n>] [--depth=<n>] "
				    "[--compression=<n>] [--thin] [--stdout | <base-name>]";
	struct wg_pack_writer_options opts = WG_PACK_WRITER_OPTIONS_INIT;
	struct wg_object_source src;
	struct wg_pack_writer *w = NULL;
	struct wg_repo *repo = NULL;
	const char *base = NULL, *v;
	bool to_stdout = false;
	int i, rc, progress = isatty(STDERR_FILENO);

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];
		unsigned n;
		if (!strcmp(arg, "--stdout"))
			to_stdout = true;
		else if (!strcmp(arg, "--thin"))
			opts.thin = true;
		else if (!strcmp(arg, "-q") || !strcmp(arg, "--quiet") ||
			 !strcmp(arg, "--no-progress"))
			progress = 0;
		else if (!strcmp(arg, "--progress") || !strcmp(arg, "--all-progress"))
			progress = 1;
		else if ((v = cli_option_value(argc, argv, &i, "--window"))) {
			if (parse_uint(v, &opts.window))
				return cli_fatal("invalid --window value '%s'", v);
		} else if ((v = cli_option_value(argc, argv, &i, "--depth"))) {
			if (parse_uint(v, &opts.depth))
				return cli_fatal("invalid --depth value '%s'", v);
			/* git caps the depth at 4095 (the index stores it in 12 bits) */
			if (opts.depth > 4095)
				opts.depth = 4095;
		} else if ((v = cli_option_value(argc, argv, &i, "--compression"))) {
			if (parse_uint(v, &n) || n > 9)
				return cli_fatal("bad pack compression level %s", v);
			opts.compression = (int)n;
		} else if (arg[0] == '-' && arg[1])
			return cli_usage(usage);
		else if (!base)
			base = arg;
		else
			return cli_usage(usage);
	}
	if (to_stdout == (base != NULL))
		return cli_usage(usage);
	if (to_stdout && isatty(STDOUT_FILENO))
		return cli_fatal("refusing to write a pack to a terminal");

	if ((rc = cli_open_repo(&repo)))
		return rc;
	src = wg_odb_object_source(wg_repo_odb(repo));
	if (wg_pack_writer_new(&w, &src, &opts)) {
		rc = cli_fatal_core();
		goto done;
	}
	if ((rc = read_list(w, wg_repo_odb(repo), opts.thin)))
		goto done;

	if (to_stdout) {
		struct wg_pack_fd_sink *sink = NULL;
		/* stdout's FILE buffer holds nothing yet: write the fd directly. */
		fflush(stdout);
		if (wg_pack_fd_sink_new(&sink, STDOUT_FILENO) ||
		    wg_pack_writer_write(w, wg_pack_fd_sink_write, sink) ||
		    wg_pack_fd_sink_flush(sink))
			rc = cli_fatal_core();
		wg_pack_fd_sink_free(sink);
	} else {
		struct wg_oid sum;
		if (wg_pack_writer_write_files(w, base, true, &sum))
			rc = cli_fatal_core();
		else
			printf("%s\n", wg_oid_hex(&sum));
	}
	if (!rc && progress) {
		/* git's summary line (there is no progress meter yet) */
		struct wg_pack_writer_stats st;
		wg_pack_writer_get_stats(w, &st);
		fprintf(stderr, "Total %u (delta %u), thin %u, recomputed %u, %llu bytes\n",
			st.objects, st.deltas, st.thin_deltas, st.recomputed,
			(unsigned long long)st.pack_size);
	}
done:
	wg_pack_writer_free(w);
	wg_repo_free(repo);
	return rc;
}
