/* webgit unpack-objects: store the objects of a pack read from standard
 * input as loose objects (git unpack-objects).
 *
 * The pack is first indexed into a private directory under objects/ with
 * the streaming indexer (which checks every object, resolves deltas and
 * takes thin-pack bases from the repository), then each object is read
 * back and written loose unless the repository has it. The private
 * directory is removed whatever happens. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "pack/indexer.h"
#include "pack/pack.h"
#include "util/alloc.h"
#include "util/error.h"

static const char usage_str[] = "webgit unpack-objects [-n] [-q] [-r] [--strict] < <pack-file>";

static int feed_stdin(struct wg_indexer *ix)
{
	unsigned char *buf = wg_malloc(65536);
	int err = 0;
	if (!buf)
		return wg_error_set(WG_ENOMEM, "out of memory");
	for (;;) {
		ssize_t n = read(0, buf, 65536);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = wg_error_set(WG_EIO, "read error on input: %s", strerror(errno));
			break;
		}
		if (!n || (err = wg_indexer_feed(ix, buf, (size_t)n)))
			break;
	}
	wg_free(buf);
	return err;
}

static int unpack(struct wg_repo *repo, const char *idx_path, bool dry_run)
{
	struct wg_odb *odb = wg_repo_odb(repo);
	struct wg_buf data = WG_BUF_INIT;
	struct wg_pack *pack = NULL;
	const struct wg_pack_idx *idx;
	uint32_t i, n;
	int err;
	if ((err = wg_pack_open(&pack, idx_path, wg_repo_algo(repo))))
		return err;
	idx = wg_pack_index(pack);
	n = wg_pack_idx_count(idx);
	for (i = 0; i < n && !err; i++) {
		enum wg_object_type type;
		struct wg_oid oid;
		wg_pack_idx_oid_at(idx, i, &oid);
		if (dry_run)
			continue;
		if ((err = wg_odb_exists(odb, &oid)) > 0) {
			err = 0;
			continue;
		}
		if (err || (err = wg_pack_read(pack, &oid, &type, &data)) ||
		    (err = wg_odb_write(odb, type, data.data, data.len, NULL)))
			break;
	}
	wg_buf_release(&data);
	wg_pack_free(pack);
	return err;
}

int cmd_unpack_objects(int argc, char **argv)
{
	struct wg_indexer_options o = WG_INDEXER_OPTIONS_INIT;
	struct wg_object_source bases;
	struct wg_fsck_options fsck = WG_FSCK_OPTIONS_INIT;
	struct wg_buf dir = WG_BUF_INIT, idx = WG_BUF_INIT;
	struct wg_repo *repo = NULL;
	struct wg_indexer *ix = NULL;
	unsigned char hash[WG_MAX_RAWSZ];
	bool dry_run = false, made_dir = false;
	int i, rc = 0, err;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n"))
			dry_run = true;
		else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "-r"))
			; /* no progress is shown anyway; -r: nothing to recover */
		else if (!strcmp(argv[i], "--strict"))
			o.fsck = &fsck;
		else
			return cli_usage(usage_str);
	}
	if ((rc = cli_open_repo(&repo)))
		return rc;
	if ((err = wg_buf_printf(&dir, "%s/objects/unpack-XXXXXX", wg_repo_gitdir(repo))))
		goto fail;
	if (!mkdtemp((char *)dir.data)) {
		err = wg_error_set(WG_EIO, "cannot create a temporary directory in '%s/objects': %s",
				   wg_repo_gitdir(repo), strerror(errno));
		goto fail;
	}
	made_dir = true;
	o.algo = wg_repo_algo(repo);
	o.pack_dir = (const char *)dir.data;
	bases = wg_odb_object_source(wg_repo_odb(repo));
	o.bases = &bases;
	o.fix_thin = true;
	o.write_rev = false;
	if ((err = wg_indexer_new(&ix, &o)) || (err = feed_stdin(ix)) ||
	    (err = wg_indexer_finish(ix, hash)) ||
	    (err = unpack(repo, wg_indexer_idx_path(ix), dry_run)))
		goto fail;
	goto done;
fail:
	rc = cli_fatal_core();
done:
	if (ix && wg_indexer_idx_path(ix)) {
		unlink(wg_indexer_idx_path(ix));
		unlink(wg_indexer_pack_path(ix));
	}
	wg_indexer_free(ix);
	if (made_dir)
		rmdir((const char *)dir.data);
	wg_buf_release(&dir);
	wg_buf_release(&idx);
	wg_repo_free(repo);
	return rc;
}
