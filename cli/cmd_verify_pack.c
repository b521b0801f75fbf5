/* webgit verify-pack: check packs against their indexes by indexing them
 * again (git verify-pack, which runs index-pack --verify). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "pack/idx.h"
#include "pack/indexer.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"

static const char usage_str[] = "webgit verify-pack [-v | --verbose] [-s | --stat-only] "
	"[--object-format=<format>] [--] <pack>.idx...";

static int feed_file(struct wg_indexer *ix, const char *path)
{
	unsigned char *buf = wg_malloc(65536);
	int fd, err = 0;
	if (!buf)
		return wg_error_set(WG_ENOMEM, "out of memory");
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		wg_free(buf);
		return wg_error_set(WG_EIO, "cannot open packfile '%s': %s", path, strerror(errno));
	}
	for (;;) {
		ssize_t n = read(fd, buf, 65536);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = wg_error_set(WG_EIO, "read error on '%s': %s", path, strerror(errno));
			break;
		}
		if (!n || (err = wg_indexer_feed(ix, buf, (size_t)n)))
			break;
	}
	close(fd);
	wg_free(buf);
	return err;
}

/* The rebuilt index must say what the existing one says. */
static int compare_idx(struct wg_indexer *ix, const char *idx_path, const struct wg_hash_algo *algo)
{
	struct wg_pack_idx *old = NULL;
	struct wg_buf file = WG_BUF_INIT;
	const struct wg_buf *mine = wg_indexer_idx_data(ix);
	uint32_t i, pos;
	int err;
	if ((err = wg_fs_read_file(&file, idx_path)))
		return err;
	if ((err = wg_pack_idx_parse(&old, file.data, file.len, algo, idx_path)))
		goto done;
	if (wg_pack_idx_version(old) == 2) {
		if (file.len != mine->len || memcmp(file.data, mine->data, mine->len))
			err = wg_error_set(WG_ECORRUPT, "index file '%s' does not match its pack",
					   idx_path);
		goto done;
	}
	/* Version 1: same ids at the same offsets. */
	if (wg_pack_idx_count(old) != wg_indexer_object_count(ix)) {
		err = wg_error_set(WG_ECORRUPT, "index file '%s' does not match its pack", idx_path);
		goto done;
	}
	for (i = 0; i < wg_indexer_object_count(ix); i++) {
		struct wg_indexer_object obj;
		wg_indexer_object(ix, i, &obj);
		if (wg_pack_idx_find(old, &obj.oid, &pos) ||
		    wg_pack_idx_offset_at(old, pos) != obj.offset) {
			err = wg_error_set(WG_ECORRUPT, "index file '%s' does not match its pack",
					   idx_path);
			break;
		}
	}
done:
	wg_pack_idx_free(old);
	wg_buf_release(&file);
	return err;
}

static void show(struct wg_indexer *ix, const struct wg_hash_algo *algo, bool stat_only)
{
	uint32_t n = wg_indexer_object_count(ix), i, deepest = 0, base_objects = 0;
	unsigned long *hist = NULL;
	char hex[WG_MAX_HEXSZ + 1];
	struct wg_indexer_object o, b;
	(void)algo;
	for (i = 0; i < n; i++) {
		wg_indexer_object(ix, i, &o);
		if (o.depth > deepest)
			deepest = o.depth;
	}
	if (deepest && !(hist = wg_calloc(deepest, sizeof(*hist))))
		deepest = 0;
	for (i = 0; i < n; i++) {
		wg_indexer_object(ix, i, &o);
		if (o.depth && hist)
			hist[o.depth - 1]++;
		else if (!o.depth)
			base_objects++;
		if (stat_only)
			continue;
		printf("%s %-6s %llu %llu %llu", wg_oid_to_hex(&o.oid, hex),
		       wg_object_type_name(o.type), (unsigned long long)o.size,
		       (unsigned long long)o.packed_size, (unsigned long long)o.offset);
		if (o.depth) {
			wg_indexer_object(ix, o.base, &b);
			printf(" %u %s", o.depth, wg_oid_to_hex(&b.oid, hex));
		}
		putchar('\n');
	}
	if (base_objects)
		printf("non delta: %u object%s\n", base_objects, base_objects == 1 ? "" : "s");
	for (i = 0; i < deepest; i++)
		if (hist[i])
			printf("chain length = %u: %lu object%s\n", i + 1, hist[i],
			       hist[i] == 1 ? "" : "s");
	wg_free(hist);
}

static int verify_one(const char *arg, const struct wg_hash_algo *algo, bool verbose,
		      bool stat_only)
{
	struct wg_indexer_options o = WG_INDEXER_OPTIONS_INIT;
	struct wg_buf pack = WG_BUF_INIT, idx = WG_BUF_INIT;
	struct wg_indexer *ix = NULL;
	unsigned char hash[WG_MAX_RAWSZ];
	const char *tmp = getenv("TMPDIR");
	size_t n = strlen(arg);
	int err, rc = 0;

	/* "foo.idx", "foo.pack" and "foo" all name foo.pack. */
	if (n >= 4 && !strcmp(arg + n - 4, ".idx"))
		n -= 4;
	if ((err = wg_buf_add(&pack, arg, n)))
		goto fail;
	if (pack.len < 5 || strcmp((const char *)pack.data + pack.len - 5, ".pack"))
		err = wg_buf_adds(&pack, ".pack");
	if (err || (err = wg_buf_add(&idx, pack.data, pack.len - 5)) ||
	    (err = wg_buf_adds(&idx, ".idx")))
		goto fail;
	o.algo = algo;
	o.tmp_dir = tmp && *tmp ? tmp : "/tmp";
	o.write_rev = false;
	if ((err = wg_indexer_new(&ix, &o)) || (err = feed_file(ix, (const char *)pack.data)) ||
	    (err = wg_indexer_finish(ix, hash)) ||
	    (!stat_only && (err = compare_idx(ix, (const char *)idx.data, algo))))
		goto fail;
	if (verbose || stat_only)
		show(ix, algo, stat_only);
	if (verbose && !stat_only)
		printf("%s: ok\n", (const char *)pack.data);
	goto done;
fail:
	fflush(stdout);
	fprintf(stderr, "fatal: %s\n", wg_error_message());
	rc = 1;
	if (verbose || stat_only)
		printf("%s: bad\n", (const char *)pack.data);
done:
	wg_indexer_free(ix);
	wg_buf_release(&pack);
	wg_buf_release(&idx);
	return rc;
}

int cmd_verify_pack(int argc, char **argv)
{
	const struct wg_hash_algo *algo = NULL;
	struct wg_repo *repo = NULL;
	bool verbose = false, stat_only = false, dashdash = false;
	const char *v;
	int i, rc = 0, npacks = 0;

	for (i = 1; i < argc; i++) {
		if (dashdash || argv[i][0] != '-') {
			npacks++;
			continue;
		}
		if (!strcmp(argv[i], "--"))
			dashdash = true;
		else if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose"))
			verbose = true;
		else if (!strcmp(argv[i], "-s") || !strcmp(argv[i], "--stat-only"))
			stat_only = true;
		else if ((v = cli_option_value(argc, argv, &i, "--object-format"))) {
			if (!(algo = wg_hash_algo_by_name(v)))
				return cli_fatal("unknown hash algorithm '%s'", v);
		} else
			return cli_usage(usage_str);
	}
	if (!npacks)
		return cli_usage(usage_str);
	if (!algo) {
		const char *gitdir = getenv("GIT_DIR");
		if (gitdir && *gitdir ? wg_repo_open(&repo, gitdir) : wg_repo_discover(&repo, ".")) {
			wg_error_clear();
			algo = wg_hash_algo_by_id(WG_HASH_SHA1);
		} else {
			algo = wg_repo_algo(repo);
		}
	}
	dashdash = false;
	for (i = 1; i < argc; i++) {
		if (!dashdash && argv[i][0] == '-') {
			if (!strcmp(argv[i], "--"))
				dashdash = true;
			else if (!strcmp(argv[i], "--object-format") && i + 1 < argc)
				i++;
			continue;
		}
		if (verify_one(argv[i], algo, verbose, stat_only))
			rc = 1;
	}
	wg_repo_free(repo);
	return rc;
}
