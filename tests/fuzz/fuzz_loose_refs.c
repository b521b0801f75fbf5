/* The files ref backend's readers (core/refs/refs_files.c): loose ref
 * files, symbolic refs, packed-refs and reflogs, written from the input
 * into a private $GIT_DIR and read through the ref database. Input: parts
 * separated by the line "=====" ("\n=====\n"), stored as HEAD,
 * refs/heads/main, refs/heads/topic, refs/tags/v1, packed-refs and
 * logs/HEAD (missing parts: no file). */
#include "fuzz.h"

#include "refs/refdb.h"
#include "util/alloc.h"
#include "util/error.h"

#define SEP "\n=====\n"

static const char *const files[] = { "HEAD", "refs/heads/main", "refs/heads/topic",
				     "refs/tags/v1", "packed-refs", "logs/HEAD" };
#define NFILES (sizeof(files) / sizeof(files[0]))

static int on_problem(const char *name, const char *message, void *payload)
{
	(void)payload;
	FUZZ_ASSERT(name && message);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char gitdir[300];
	const uint8_t *p = data, *end = data + size;
	struct wg_refdb_options opts = WG_REFDB_OPTIONS_INIT;
	struct wg_refdb *db;
	struct wg_ref ref;
	struct wg_ref_iter *it;
	struct wg_reflog_iter *lit;
	const struct wg_ref *r;
	const struct wg_reflog_entry *le;
	struct wg_oid oid;
	char path[600], *resolved = NULL;
	size_t i, n;

	if (!gitdir[0]) {
		snprintf(gitdir, sizeof(gitdir), "%s/git", fz_tmpdir());
		mkdir(gitdir, 0700);
		snprintf(path, sizeof(path), "%s/refs", gitdir);
		mkdir(path, 0700);
		snprintf(path, sizeof(path), "%s/refs/heads", gitdir);
		mkdir(path, 0700);
		snprintf(path, sizeof(path), "%s/refs/tags", gitdir);
		mkdir(path, 0700);
		snprintf(path, sizeof(path), "%s/logs", gitdir);
		mkdir(path, 0700);
	}
	for (i = 0; i < NFILES; i++) {
		snprintf(path, sizeof(path), "%s/%s", gitdir, files[i]);
		if (p) {
			const uint8_t *s = fz_find(p, (size_t)(end - p), SEP, sizeof(SEP) - 1);
			size_t len = s ? (size_t)(s - p) : (size_t)(end - p);
			fz_write_file(path, p, len);
			p = s ? s + sizeof(SEP) - 1 : NULL;
		} else {
			unlink(path);
		}
	}
	if (wg_refdb_open(&db, gitdir, WG_REF_FORMAT_FILES, fz_algo(size % 5 == 4), &opts))
		return 0;
	memset(&ref, 0, sizeof(ref));
	for (i = 0; i < 4; i++) {
		if (!wg_refdb_read(&ref, db, files[i])) {
			FUZZ_ASSERT(ref.name != NULL);
			FUZZ_ASSERT(!ref.symbolic || ref.target != NULL);
		}
		wg_ref_release(&ref);
	}
	(void)wg_refdb_read(&ref, db, "refs/heads/packed");
	wg_ref_release(&ref);
	if (!wg_refdb_resolve(&oid, &resolved, db, "HEAD", WG_RESOLVE_ALLOW_MISSING))
		wg_free(resolved);
	resolved = NULL;
	if (!wg_refdb_resolve(&oid, &resolved, db, "refs/tags/v1", 0))
		wg_free(resolved);
	if (!wg_refdb_iter_new(&it, db, NULL)) {
		for (n = 0; n < 10000 && !wg_ref_iter_next(&r, it); n++)
			FUZZ_ASSERT(r && r->name);
		wg_ref_iter_free(it);
	}
	if (!wg_refdb_iter_new(&it, db, "refs/tags/")) {
		for (n = 0; n < 10000 && !wg_ref_iter_next(&r, it); n++)
			FUZZ_ASSERT(!strncmp(r->name, "refs/tags/", 10));
		wg_ref_iter_free(it);
	}
	if (!wg_reflog_iter_new(&lit, db, "HEAD", size & 1 ? WG_REFLOG_OLDEST_FIRST : 0)) {
		for (n = 0; n < 10000 && !wg_reflog_iter_next(&le, lit); n++)
			FUZZ_ASSERT(le && le->committer && le->message);
		wg_reflog_iter_free(lit);
	}
	(void)wg_refdb_verify(db, on_problem, NULL);
	wg_refdb_free(db);
	return 0;
}
