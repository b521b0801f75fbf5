/* Tree objects (core/object/tree.c) and their fsck checks
 * (core/object/fsck.c, core/object/path.c). Input: one option byte (bit 0:
 * sha256, bit 1: allow empty names, bit 2: strict fsck), then the tree.
 * Entries that iterate are formatted and rebuilt with the tree builder;
 * a strictly valid tree must rebuild to the same bytes. */
#include "fuzz.h"

#include "object/fsck.h"
#include "object/tree.h"
#include "util/error.h"

static void special(void *payload, const struct wg_oid *tree, const struct wg_oid *blob,
		    enum wg_fsck_special kind)
{
	(void)payload; (void)tree; (void)blob; (void)kind;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wg_fsck_options fo = WG_FSCK_OPTIONS_INIT;
	const struct wg_hash_algo *algo;
	struct wg_tree_builder *tb = NULL;
	struct wg_tree_iter it;
	struct wg_tree_entry e;
	struct wg_buf fmt = WG_BUF_INIT, rebuilt = WG_BUF_INIT;
	uint8_t *tree;
	size_t len;
	int err, fsck_rc, all_ok = 1;

	if (size < 1)
		return 0;
	algo = fz_algo(data[0] & 1);
	len = size - 1;
	tree = fz_dup(data + 1, len);

	fo.strict = data[0] & 4;
	fo.report = fz_fsck_report;
	fo.special_blob = special;
	fsck_rc = wg_fsck_object(&fo, algo, NULL, WG_OBJ_TREE, tree, len);

	if (wg_tree_builder_new(&tb, algo))
		tb = NULL;
	wg_tree_iter_init_flags(&it, algo, tree, len, data[0] & 2 ? WG_TREE_ITER_ALLOW_EMPTY_NAME : 0);
	while ((err = wg_tree_iter_next(&it, &e)) == 0) {
		FUZZ_ASSERT(e.name >= (const char *)tree && e.name + e.namelen < (const char *)tree + len);
		FUZZ_ASSERT(e.name[e.namelen] == '\0');
		(void)wg_tree_mode_type(e.mode);
		(void)wg_tree_mode_canonical(e.mode);
		wg_buf_reset(&fmt);
		(void)wg_tree_entry_format(&fmt, &e, e.namelen & 1 ? WG_TREE_FORMAT_QUOTE : 0);
		if (!e.namelen || !wg_tree_mode_is_canonical(e.mode) ||
		    (e.flags & WG_TREE_ENTRY_ZERO_PADDED) || !tb ||
		    wg_tree_builder_add(tb, e.mode, e.name, e.namelen, &e.oid))
			all_ok = 0;
	}
	if (err != WG_ITEROVER)
		all_ok = 0;
	/* Ask again: a failed iterator stays failed, a finished one finished. */
	FUZZ_ASSERT(wg_tree_iter_next(&it, &e) == err || (err != WG_ITEROVER && it.failed));
	if (tb && all_ok && fsck_rc == 0 && !wg_tree_builder_write(tb, &rebuilt)) {
		/* A tree fsck accepts (sorted, no duplicates, canonical modes)
		 * is what the builder writes for the same entries. */
		FUZZ_ASSERT(rebuilt.len == len && (!len || !memcmp(rebuilt.data, tree, len)));
	}
	wg_tree_builder_free(tb);
	wg_buf_release(&fmt);
	wg_buf_release(&rebuilt);
	free(tree);
	return 0;
}
