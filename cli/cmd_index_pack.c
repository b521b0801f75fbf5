/* webgit index-pack: build the index of a pack, from a file or streamed
 * on standard input (git index-pack). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "object/fsck.h"
#include "pack/indexer.h"
#include "repo/pack_threads.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/hex.h"

static const char usage_str[] = "webgit index-pack [-v] [-o <index-file>] [--keep | --keep=<msg>] "
	"[--[no-]rev-index] [--strict] [--threads=<n>] [--object-format=<format>] "
	"(<pack-file> | --stdin [--fix-thin] [<pack-file>])";

/* Feed a whole stream to the indexer in 64 KiB chunks. */
static int feed_fd(struct wg_indexer *ix, int fd)
{
	unsigned char *buf = wg_malloc(65536);
	int err = 0;
	if (!buf)
		return wg_error_set(WG_ENOMEM, "out of memory");
	for (;;) {
		ssize_t n = read(fd, buf, 65536);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = wg_error_set(WG_EIO, "read error on input: %s", strerror(errno));
			break;
		}
		if (!n)
			break;
		if ((err = wg_indexer_feed(ix, buf, (size_t)n)))
			break;
	}
	wg_free(buf);
	return err;
}

int cmd_index_pack(int argc, char **argv)
{
	struct wg_indexer_options o = WG_INDEXER_OPTIONS_INIT;
	struct wg_object_source bases;
	struct wg_fsck_options fsck = WG_FSCK_OPTIONS_INIT;
	struct wg_repo *repo = NULL;
	struct wg_indexer *ix = NULL;
	struct wg_buf packdir = WG_BUF_INIT;
	const char *pack = NULL, *idx = NULL, *format = NULL, *keep = NULL, *v;
	char *idx_owned = NULL;
	bool from_stdin = false, fix = false, threads_given = false;
	unsigned char hash[WG_MAX_RAWSZ];
	char hex[WG_MAX_HEXSZ + 1];
	int i, rc = 0, fd = -1, err;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--stdin"))
			from_stdin = true;
		else if (!strcmp(a, "--fix-thin"))
			fix = true;
		else if (!strcmp(a, "--keep"))
			keep = "";
		else if (!strncmp(a, "--keep=", 7))
			keep = a + 7;
		else if (!strcmp(a, "--rev-index"))
			o.write_rev = true;
		else if (!strcmp(a, "--no-rev-index"))
			o.write_rev = false;
		else if (!strcmp(a, "--strict") || !strcmp(a, "--fsck-objects"))
			o.fsck = &fsck;
		else if (!strncmp(a, "--threads=", 10)) {
			/* 0: as many as the machine has (git's rule) */
			char *end;
			long n = strtol(a + 10, &end, 0);
			if (!a[10] || *end || n < 0)
				return cli_fatal("invalid number of threads specified (%s)", a + 10);
			o.threads = n > WG_INDEXER_THREADS_MAX ? WG_INDEXER_THREADS_MAX : (unsigned)n;
			threads_given = true;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--check-self-contained-and-connected"))
			; /* accepted for compatibility; nothing to change */
		else if (!strcmp(a, "-o") && i + 1 < argc)
			idx = argv[++i];
		else if ((v = cli_option_value(argc, argv, &i, "--object-format")))
			format = v;
		else if (a[0] == '-')
			return cli_usage(usage_str);
		else if (!pack)
			pack = a;
		else
			return cli_usage(usage_str);
	}
	if (!pack && !from_stdin)
		return cli_usage(usage_str);
	if (fix && !from_stdin)
		return cli_fatal("the option '--fix-thin' requires '--stdin'");
	if (from_stdin && format)
		return cli_fatal("options '--object-format' and '--stdin' cannot be used together");

	/* A repository is needed with --stdin (the destination, thin bases);
	 * otherwise it only decides the object format. */
	if (from_stdin) {
		if ((rc = cli_open_repo(&repo)))
			return rc;
	} else if (!format) {
		const char *gitdir = getenv("GIT_DIR");
		if (gitdir && *gitdir ? wg_repo_open(&repo, gitdir) : wg_repo_discover(&repo, "."))
			wg_error_clear();
	}
	o.algo = format ? wg_hash_algo_by_name(format) :
		 repo ? wg_repo_algo(repo) : wg_hash_algo_by_id(WG_HASH_SHA1);
	if (!o.algo) {
		rc = cli_fatal("unknown hash algorithm '%s'", format);
		goto done;
	}
	if (pack && (strlen(pack) < 5 || strcmp(pack + strlen(pack) - 5, ".pack"))) {
		rc = cli_fatal("packfile name '%s' does not end with '.pack'", pack);
		goto done;
	}
	if (!idx && pack) {
		size_t n = strlen(pack) - 5;
		if (!(idx_owned = wg_malloc(n + 5))) {
			rc = cli_fatal("out of memory");
			goto done;
		}
		memcpy(idx_owned, pack, n);
		memcpy(idx_owned + n, ".idx", 5);
		idx = idx_owned;
	}
	o.idx_path = idx;
	o.keep_msg = keep;
	if (repo && !threads_given && wg_repo_pack_threads(repo, &o.threads)) {
		rc = cli_fatal_core();
		goto done;
	}
	if (repo) {
		bases = wg_odb_object_source(wg_repo_odb(repo));
		o.bases = &bases;
	}
	o.fix_thin = fix;
	if (from_stdin) {
		if (pack) {
			o.pack_path = pack;
		} else {
			if (wg_buf_printf(&packdir, "%s/objects/pack", wg_repo_gitdir(repo))) {
				rc = cli_fatal_core();
				goto done;
			}
			o.pack_dir = (const char *)packdir.data;
		}
		fd = 0;
	} else {
		fd = open(pack, O_RDONLY);
		if (fd < 0) {
			rc = cli_fatal("cannot open packfile '%s': %s", pack, strerror(errno));
			goto done;
		}
	}
	if ((err = wg_indexer_new(&ix, &o)) || (err = feed_fd(ix, fd)) ||
	    (err = wg_indexer_finish(ix, hash))) {
		rc = cli_fatal_core();
		goto done;
	}
	wg_hex_encode(hex, hash, o.algo->rawsz);
	hex[o.algo->hexsz] = '\0';
	if (from_stdin)
		printf("%s\t%s\n", keep ? "keep" : "pack", hex);
	else
		printf("%s\n", hex);
done:
	if (fd > 0)
		close(fd);
	wg_indexer_free(ix);
	wg_repo_free(repo);
	wg_buf_release(&packdir);
	wg_free(idx_owned);
	return rc;
}
