/* The reftable stack (core/refs/reftable_stack.c, reftable_merged.c): a
 * $GIT_DIR/reftable directory written from the input, opened, merged and
 * read. Input: "tables.list" text, then the tables' bytes, each part
 * separated from the next by the line "=====" ("\n=====\n"); the i-th
 * table part is stored under the i-th name tables.list lists (names that
 * could leave the directory are skipped; names without a part are
 * missing files). One run in eight also compacts the stack. */
#include "fuzz.h"

#include <dirent.h>

#include "reftable/reftable.h"
#include "util/error.h"

#define SEP "\n=====\n"
#define MAX_PARTS 8

static void clear_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];
	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[300];
	const uint8_t *parts[MAX_PARTS + 1], *p = data, *end = data + size;
	size_t lens[MAX_PARTS + 1], nparts = 0;
	struct wg_reftable_stack_options so = WG_REFTABLE_STACK_OPTIONS_INIT;
	struct wg_reftable_stack *st;
	struct wg_reftable_merged *m;
	struct wg_reftable_iter *it;
	struct wg_reftable_ref ref;
	struct wg_reftable_log log;
	char path[600], *list, *name, *save = NULL;
	size_t n, ti = 1;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "%s/reftable", fz_tmpdir());
		mkdir(dir, 0700);
	}
	clear_dir(dir);
	while (nparts < MAX_PARTS) {
		const uint8_t *s = fz_find(p, (size_t)(end - p), SEP, sizeof(SEP) - 1);
		parts[nparts] = p;
		lens[nparts++] = s ? (size_t)(s - p) : (size_t)(end - p);
		if (!s)
			break;
		p = s + sizeof(SEP) - 1;
	}
	snprintf(path, sizeof(path), "%s/tables.list", dir);
	fz_write_file(path, parts[0], lens[0]);
	list = fz_cstr(parts[0], lens[0]);
	for (name = strtok_r(list, "\n", &save); name && ti < nparts;
	     name = strtok_r(NULL, "\n", &save)) {
		if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..") ||
		    strlen(name) > 200)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		fz_write_file(path, parts[ti], lens[ti]);
		ti++;
	}
	free(list);

	so.algo = fz_algo((size % 3) == 2);
	so.disable_auto_compact = true;
	if (wg_reftable_stack_open(&st, dir, &so))
		return 0;
	memset(&ref, 0, sizeof(ref));
	memset(&log, 0, sizeof(log));
	m = wg_reftable_stack_merged(st);
	(void)wg_reftable_stack_next_update_index(st);
	if (!wg_reftable_merged_iter_refs(&it, m, NULL)) {
		for (n = 0; n < 10000 && !wg_reftable_iter_next_ref(&ref, it); n++)
			FUZZ_ASSERT(ref.refname && ref.type != WG_REFTABLE_REF_DELETION);
		wg_reftable_iter_free(it);
	}
	wg_reftable_ref_release(&ref);
	if (!wg_reftable_merged_iter_logs(&it, m, NULL)) {
		for (n = 0; n < 10000 && !wg_reftable_iter_next_log(&log, it); n++)
			FUZZ_ASSERT(log.refname != NULL);
		wg_reftable_iter_free(it);
	}
	wg_reftable_log_release(&log);
	if (!wg_reftable_merged_iter_refs_raw(&it, m)) {
		for (n = 0; n < 10000 && !wg_reftable_iter_next_ref(&ref, it); n++)
			;
		wg_reftable_iter_free(it);
	}
	wg_reftable_ref_release(&ref);
	(void)wg_reftable_merged_read_ref(&ref, m, "HEAD");
	wg_reftable_ref_release(&ref);
	(void)wg_reftable_merged_read_ref(&ref, m, "refs/heads/main");
	wg_reftable_ref_release(&ref);
	(void)wg_reftable_stack_reload(st);
	if (fz_hash(data, size) % 8 == 0)
		(void)wg_reftable_stack_compact_all(st);
	wg_reftable_stack_free(st);
	return 0;
}
