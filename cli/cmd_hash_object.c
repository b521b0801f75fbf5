/* webgit hash-object: compute an object id, optionally store the object
 * (git hash-object). Objects other than blobs are validated as git does
 * unless --literally is given. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "object/fsck.h"
#include "util/error.h"
#include "util/fs.h"

struct hash_job {
	struct wg_repo *repo;
	const struct wg_hash_algo *algo;
	enum wg_object_type type;
	bool write;
	bool literally;
};

static int hash_one(const struct hash_job *job, const struct wg_buf *data, const char *what)
{
	struct wg_oid oid;
	int err;
	if (!job->literally && job->type != WG_OBJ_BLOB) {
		/* git hash-object checks objects strictly: a zero-padded
		 * mode is refused here although fsck only warns about it. */
		struct wg_fsck_options fsck = WG_FSCK_OPTIONS_INIT;
		fsck.strict = true;
		if (wg_fsck_object(&fsck, job->algo, NULL, job->type, data->data, data->len))
			return cli_fatal("refusing to hash %s: %s", what, wg_error_message());
	}
	if (job->write)
		err = wg_odb_write(wg_repo_odb(job->repo), job->type, data->data, data->len, &oid);
	else
		err = wg_object_hash(&oid, job->algo, job->type, data->data, data->len);
	if (err)
		return cli_fatal("unable to hash %s: %s", what, wg_error_message());
	printf("%s\n", wg_oid_hex(&oid));
	return 0;
}

int cmd_hash_object(int argc, char **argv)
{
	static const char usage[] = "webgit hash-object [-t <type>] [-w] [--literally] "
				    "[--stdin] [--] <file>...";
	struct hash_job job = { NULL, NULL, WG_OBJ_BLOB, false, false };
	bool from_stdin = false, no_more_opts = false;
	const char *type_name = "blob", *v;
	int i, nfiles = 0, rc = 0;
	struct wg_buf data = WG_BUF_INIT;

	/* Options and file names may mix, as with git's option parser; the
	 * file names are gathered at the front of argv. */
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (no_more_opts || arg[0] != '-' || !arg[1]) {
			argv[nfiles++] = argv[i];
			continue;
		}
		if (!strcmp(arg, "--"))
			no_more_opts = true;
		else if (!strcmp(arg, "-w"))
			job.write = true;
		else if (!strcmp(arg, "--stdin"))
			from_stdin = true;
		else if (!strcmp(arg, "--literally"))
			job.literally = true;
		else if (!strcmp(arg, "--no-filters") || !strcmp(arg, "--path"))
			;  /* no filters exist yet: content is hashed as given */
		else if ((v = cli_option_value(argc, argv, &i, "-t")))
			type_name = v;
		else
			return cli_usage(usage);
	}
	job.type = wg_object_type_from_name(type_name, strlen(type_name));
	if (job.type == WG_OBJ_BAD)
		return cli_fatal("invalid object type \"%s\"", type_name);

	if (job.write) {
		if ((rc = cli_open_repo(&job.repo)))
			return rc;
		job.algo = wg_repo_algo(job.repo);
	} else {
		/* Outside a write, use the repository's format if there is one,
		 * else git's default (GIT_DEFAULT_HASH, or SHA-1). */
		const char *def = getenv("GIT_DEFAULT_HASH");
		if (!wg_repo_discover(&job.repo, "."))
			job.algo = wg_repo_algo(job.repo);
		else if (!(job.algo = wg_hash_algo_by_name(def && *def ? def : "sha1")))
			return cli_fatal("unknown hash algorithm '%s' in GIT_DEFAULT_HASH", def);
		wg_error_clear();
	}

	if (from_stdin) {
		if (cli_read_stream(stdin, &data))
			rc = cli_fatal_core();
		else
			rc = hash_one(&job, &data, "standard input");
	}
	for (i = 0; i < nfiles && !rc; i++) {
		wg_buf_reset(&data);
		if (wg_fs_read_file(&data, argv[i]))
			rc = cli_fatal("could not open '%s' for reading: %s", argv[i],
				       wg_error_message());
		else
			rc = hash_one(&job, &data, argv[i]);
	}
	wg_buf_release(&data);
	wg_repo_free(job.repo);
	return rc;
}
