/* Commit nodes (see commit_nodes.h). */
#include "history/commit_nodes.h"

#include <string.h>

#include "object/ident.h"
#include "object/object.h"
#include "util/alloc.h"
#include "util/error.h"

#define FIRST_BLOCK 4096

void wg_commit_nodes_init(struct wg_commit_nodes *set, struct wg_odb *odb)
{
	memset(set, 0, sizeof(*set));
	set->odb = odb;
	set->scratch = (struct wg_buf)WG_BUF_INIT;
}

void wg_commit_nodes_release(struct wg_commit_nodes *set)
{
	for (size_t i = 0; i < set->nblocks; i++)
		wg_free(set->blocks[i]);
	wg_free(set->blocks);
	wg_free(set->slots);
	wg_buf_release(&set->scratch);
	for (size_t i = 0; i < set->nrecent; i++)
		wg_buf_release(&set->recent[i].buf);
	wg_free(set->recent);
	memset(set, 0, sizeof(*set));
}

int wg_commit_nodes_keep_recent(struct wg_commit_nodes *set, size_t n)
{
	if (set->nrecent || !n)
		return 0;
	if (!(set->recent = wg_calloc(n, sizeof(*set->recent))))
		return wg_error_set(WG_ENOMEM, "out of memory");
	set->nrecent = n;
	return 0;
}

const struct wg_buf *wg_commit_nodes_recent(const struct wg_commit_nodes *set,
					    const struct wg_oid *oid)
{
	/* newest first: the commit asked for was most likely parsed last */
	for (size_t k = 1; k <= set->nrecent; k++) {
		const struct wg_commit_recent *r =
			&set->recent[(set->recent_next + set->nrecent - k) % set->nrecent];
		if (r->buf.len && wg_oid_equal(&r->oid, oid))
			return &r->buf;
	}
	return NULL;
}

/* Keep the bytes just read (best effort: out of memory keeps nothing). */
static void remember(struct wg_commit_nodes *set, const struct wg_oid *oid, const struct wg_buf *b)
{
	struct wg_commit_recent *r = &set->recent[set->recent_next];

	set->recent_next = (set->recent_next + 1) % set->nrecent;
	wg_buf_reset(&r->buf);
	r->oid = *oid;
	if (wg_buf_add(&r->buf, b->data, b->len)) {
		wg_error_clear();
		wg_buf_reset(&r->buf);
	}
}

/* Aligned bytes from the arena; they live as long as the set. */
static void *arena_alloc(struct wg_commit_nodes *set, size_t n)
{
	char **blocks;
	size_t size;

	n = (n + 15) & ~(size_t)15;
	if (set->nblocks && set->block_used + n <= set->block_size) {
		void *p = set->blocks[set->nblocks - 1] + set->block_used;
		set->block_used += n;
		return p;
	}
	size = set->block_size ? set->block_size * 2 : FIRST_BLOCK;
	if (size > (1u << 22))
		size = 1u << 22;
	if (size < n)
		size = n;
	if (!(blocks = wg_realloc(set->blocks, (set->nblocks + 1) * sizeof(*blocks))))
		return NULL;
	set->blocks = blocks;
	if (!(blocks[set->nblocks] = wg_malloc(size)))
		return NULL;
	set->nblocks++;
	set->block_size = size;
	set->block_used = n;
	return blocks[set->nblocks - 1];
}

static size_t slot_of(const struct wg_oid *oid, size_t size)
{
	size_t h;
	memcpy(&h, oid->hash, sizeof(h));   /* ids are uniformly spread */
	return h & (size - 1);
}

static int grow(struct wg_commit_nodes *set)
{
	size_t size = set->size ? set->size * 2 : 1024;
	struct wg_commit_node **slots = wg_calloc(size, sizeof(*slots));

	if (!slots)
		return wg_error_set(WG_ENOMEM, "out of memory in a history walk");
	for (size_t i = 0; i < set->size; i++) {
		struct wg_commit_node *n = set->slots[i];
		size_t s;
		if (!n)
			continue;
		for (s = slot_of(&n->oid, size); slots[s]; s = (s + 1) & (size - 1))
			;
		slots[s] = n;
	}
	wg_free(set->slots);
	set->slots = slots;
	set->size = size;
	return 0;
}

int wg_commit_nodes_get(struct wg_commit_nodes *set, const struct wg_oid *oid,
			struct wg_commit_node **out)
{
	struct wg_commit_node *n;
	size_t s;
	int err;

	if (2 * (set->nr + 1) > set->size && (err = grow(set)))
		return err;
	for (s = slot_of(oid, set->size); (n = set->slots[s]); s = (s + 1) & (set->size - 1))
		if (wg_oid_equal(&n->oid, oid)) {
			*out = n;
			return 0;
		}
	if (!(n = arena_alloc(set, sizeof(*n))))
		return wg_error_set(WG_ENOMEM, "out of memory in a history walk");
	memset(n, 0, sizeof(*n));
	n->oid = *oid;
	set->slots[s] = n;
	set->nr++;
	*out = n;
	return 0;
}

/* The header line starting at p (of the headers ending at end): its end. */
static const char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	return nl ? nl : end;
}

static int corrupt(const struct wg_commit_node *n, const char *what)
{
	return wg_error_set(WG_ECORRUPT, "commit %s: %s", wg_oid_hex(&n->oid), what);
}

/* Only what a walk needs, as git's parse_commit_buffer reads it: the
 * tree, the parents and the committer's date. */
int wg_commit_nodes_parse(struct wg_commit_nodes *set, struct wg_commit_node *n)
{
	const struct wg_hash_algo *algo = wg_oid_algo(&n->oid);
	struct wg_buf *buf = &set->scratch;
	enum wg_object_type type;
	const char *p, *end, *le;
	struct wg_oid pid;
	size_t np = 0;
	int err;

	if (n->parsed || n->missing)
		return 0;
	err = wg_odb_read(set->odb, &n->oid, &type, buf);
	if (err == WG_ENOTFOUND) {
		wg_error_clear();
		n->missing = true;
		return 0;
	}
	if (err)
		return err;
	if (type != WG_OBJ_COMMIT)
		return wg_error_set(WG_ECORRUPT, "%s is a %s, not a commit", wg_oid_hex(&n->oid),
				    wg_object_type_name(type));
	if (set->nrecent)
		remember(set, &n->oid, buf);
	p = (const char *)buf->data;
	end = p + buf->len;
	if ((size_t)(end - p) < 5 + algo->hexsz + 1 || memcmp(p, "tree ", 5) ||
	    wg_oid_from_hex(&n->tree, algo, p + 5) || p[5 + algo->hexsz] != '\n')
		return corrupt(n, "bad tree line");
	p += 5 + algo->hexsz + 1;
	for (le = p; (size_t)(end - le) >= 7 + algo->hexsz && !memcmp(le, "parent ", 7);
	     le += 7 + algo->hexsz + 1)
		np++;
	if (set->shallow && wg_oidmap_get(set->shallow, &n->oid)) {
		p = le;      /* a cut-off commit: no parents, as git grafts it */
		np = 0;
	}
	if (np && !(n->parents = arena_alloc(set, np * sizeof(*n->parents))))
		return wg_error_set(WG_ENOMEM, "out of memory in a history walk");
	for (size_t i = 0; i < np; i++, p += 7 + algo->hexsz + 1) {
		if (wg_oid_from_hex(&pid, algo, p + 7) || p[7 + algo->hexsz] != '\n')
			return corrupt(n, "bad parent line");
		if ((err = wg_commit_nodes_get(set, &pid, &n->parents[i])))
			return err;
	}
	n->nparents = (uint32_t)np;
	/* the committer line, among the headers (they end at a blank line) */
	for (; p < end && *p != '\n'; p = le + 1) {
		le = line_end(p, end);
		if (le - p > 10 && !memcmp(p, "committer ", 10)) {
			struct wg_ident who;
			if (!wg_ident_parse(&who, p + 10, (size_t)(le - p - 10)) && who.has_date)
				n->date = who.timestamp;
			break;
		}
		if (le == end)
			break;
	}
	n->parsed = true;
	return 0;
}
