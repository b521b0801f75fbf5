#include "object/tree.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/quote.h"

/* Large enough for any real mode, small enough that shifting in one more
 * octal digit cannot overflow an unsigned int. */
#define MODE_SATURATED 077777777u

void wg_tree_iter_init_flags(struct wg_tree_iter *iter, const struct wg_hash_algo *algo,
			     const void *data, size_t len, unsigned flags)
{
	iter->algo = algo;
	iter->data = data;
	iter->len = len;
	iter->pos = 0;
	iter->flags = flags;
	iter->failed = 0;
}

void wg_tree_iter_init(struct wg_tree_iter *iter, const struct wg_hash_algo *algo,
		       const void *data, size_t len)
{
	wg_tree_iter_init_flags(iter, algo, data, len, 0);
}

static int iter_fail(struct wg_tree_iter *iter, const char *what)
{
	iter->failed = 1;
	return wg_error_set(WG_ECORRUPT, "malformed %s tree: %s at byte %zu", iter->algo->name,
			    what, iter->pos);
}

int wg_tree_iter_next(struct wg_tree_iter *iter, struct wg_tree_entry *entry)
{
	const unsigned char *p, *end, *name, *nul;
	size_t left, rawsz = iter->algo->rawsz;
	unsigned mode = 0;

	if (iter->failed)
		return wg_error_set(WG_ECORRUPT, "malformed %s tree at byte %zu",
				    iter->algo->name, iter->pos);
	if (iter->pos >= iter->len)
		return WG_ITEROVER;

	p = iter->data + iter->pos;
	left = iter->len - iter->pos;
	end = p + left;
	/* The smallest entry is "0 x\0" and an id. Git also insists that the
	 * byte just before the tree's last id is a NUL, which guarantees
	 * every name is terminated; checking it here rejects exactly the
	 * trees Git rejects, at the same entry. */
	if (left < rawsz + 3 || end[-(ptrdiff_t)rawsz - 1] != '\0')
		return iter_fail(iter, "truncated entry");

	if (*p == ' ')
		return iter_fail(iter, "empty mode");
	entry->flags = *p == '0' ? WG_TREE_ENTRY_ZERO_PADDED : 0;
	for (; *p != ' '; p++) {
		/* A NUL or anything else ends the digits badly; the NUL checked
		 * above stops this loop before the end of the data. */
		if (*p < '0' || *p > '7')
			return iter_fail(iter, "bad mode");
		if (mode <= MODE_SATURATED)
			mode = (mode << 3) | (unsigned)(*p - '0');
		if (mode > MODE_SATURATED)
			mode = MODE_SATURATED;
	}
	name = p + 1;
	/* There is a NUL at end - rawsz - 1 >= name - 1; the name cannot run
	 * into the id. */
	nul = memchr(name, '\0', (size_t)(end - rawsz - name));
	if (!nul)
		return iter_fail(iter, "unterminated name");
	if (nul == name && !(iter->flags & WG_TREE_ITER_ALLOW_EMPTY_NAME))
		return iter_fail(iter, "empty name");

	entry->mode = mode;
	entry->name = (const char *)name;
	entry->namelen = (size_t)(nul - name);
	wg_oid_from_raw(&entry->oid, iter->algo, nul + 1);
	iter->pos = (size_t)(nul + 1 + rawsz - iter->data);
	return 0;
}

enum wg_object_type wg_tree_mode_type(unsigned mode)
{
	switch (mode & WG_MODE_TYPE_MASK) {
	case WG_MODE_TREE:
		return WG_OBJ_TREE;
	case WG_MODE_GITLINK:
		return WG_OBJ_COMMIT;
	default:
		return WG_OBJ_BLOB;
	}
}

unsigned wg_tree_mode_canonical(unsigned mode)
{
	switch (mode & WG_MODE_TYPE_MASK) {
	case 0100000u:
		return (mode & 0100) ? WG_MODE_EXEC : WG_MODE_BLOB;
	case WG_MODE_SYMLINK:
		return WG_MODE_SYMLINK;
	case WG_MODE_TREE:
		return WG_MODE_TREE;
	default:
		return WG_MODE_GITLINK;
	}
}

bool wg_tree_mode_is_canonical(unsigned mode)
{
	return mode == WG_MODE_TREE || mode == WG_MODE_BLOB || mode == WG_MODE_EXEC ||
	       mode == WG_MODE_SYMLINK || mode == WG_MODE_GITLINK;
}

int wg_tree_name_cmp(const char *a, size_t alen, unsigned amode,
		     const char *b, size_t blen, unsigned bmode)
{
	size_t n = alen < blen ? alen : blen;
	int c = memcmp(a, b, n), ca, cb;
	if (c)
		return c;
	if (alen == blen)
		return 0;
	/* The shorter name continues with '/' if it is a directory. */
	ca = n < alen ? (unsigned char)a[n] :
	     (amode & WG_MODE_TYPE_MASK) == WG_MODE_TREE ? '/' : 0;
	cb = n < blen ? (unsigned char)b[n] :
	     (bmode & WG_MODE_TYPE_MASK) == WG_MODE_TREE ? '/' : 0;
	return ca - cb;
}

int wg_tree_entry_format(struct wg_buf *out, const struct wg_tree_entry *entry,
			 unsigned flags)
{
	char hex[WG_MAX_HEXSZ + 1];
	int err = wg_buf_printf(out, "%06o %s %s\t", entry->mode,
				wg_object_type_name(wg_tree_mode_type(entry->mode)),
				wg_oid_to_hex(&entry->oid, hex));
	if (err)
		return err;
	if (flags & WG_TREE_FORMAT_QUOTE)
		return wg_quote_c_style(out, entry->name, entry->namelen);
	return wg_buf_add(out, entry->name, entry->namelen);
}

struct builder_entry {
	unsigned mode;
	char *name;
	size_t namelen;
	struct wg_oid oid;
};

struct wg_tree_builder {
	const struct wg_hash_algo *algo;
	struct builder_entry *entries;
	size_t nr, alloc;
};

int wg_tree_builder_new(struct wg_tree_builder **out, const struct wg_hash_algo *algo)
{
	struct wg_tree_builder *b = wg_calloc(1, sizeof(*b));
	*out = NULL;
	if (!b)
		return wg_error_set(WG_ENOMEM, "out of memory creating a tree builder");
	b->algo = algo;
	*out = b;
	return 0;
}

void wg_tree_builder_free(struct wg_tree_builder *builder)
{
	size_t i;
	if (!builder)
		return;
	for (i = 0; i < builder->nr; i++)
		wg_free(builder->entries[i].name);
	wg_free(builder->entries);
	wg_free(builder);
}

size_t wg_tree_builder_count(const struct wg_tree_builder *builder)
{
	return builder->nr;
}

int wg_tree_builder_add(struct wg_tree_builder *builder, unsigned mode,
			const char *name, size_t namelen, const struct wg_oid *oid)
{
	struct builder_entry *e;
	if (!wg_tree_mode_is_canonical(mode))
		return wg_error_set(WG_EINVALID, "tree entry '%.*s': mode %o is not one Git writes",
				    (int)(namelen > 256 ? 256 : namelen), name, mode);
	if (!namelen)
		return wg_error_set(WG_EINVALID, "tree entry with an empty name");
	if (memchr(name, '/', namelen) || memchr(name, '\0', namelen))
		return wg_error_set(WG_EINVALID, "tree entry name '%.*s' contains '/' or NUL",
				    (int)(namelen > 256 ? 256 : namelen), name);
	if ((namelen == 1 && name[0] == '.') ||
	    (namelen == 2 && name[0] == '.' && name[1] == '.'))
		return wg_error_set(WG_EINVALID, "tree entry cannot be named '%.*s'",
				    (int)namelen, name);
	if (oid->algo != builder->algo->id)
		return wg_error_set(WG_EINVALID, "tree entry '%.*s': id is not a %s id",
				    (int)(namelen > 256 ? 256 : namelen), name, builder->algo->name);
	if (builder->nr == builder->alloc) {
		size_t alloc = builder->alloc ? builder->alloc * 2 : 16;
		struct builder_entry *grown;
		size_t bytes;
		if (wg_size_mul(&bytes, alloc, sizeof(*grown)) ||
		    !(grown = wg_realloc(builder->entries, bytes)))
			return wg_error_set(WG_ENOMEM, "out of memory adding a tree entry");
		builder->entries = grown;
		builder->alloc = alloc;
	}
	e = &builder->entries[builder->nr];
	if (!(e->name = wg_strndup(name, namelen)))
		return wg_error_set(WG_ENOMEM, "out of memory adding a tree entry");
	e->mode = mode;
	e->namelen = namelen;
	e->oid = *oid;
	builder->nr++;
	return 0;
}

static int cmp_git_order(const void *va, const void *vb)
{
	const struct builder_entry *a = va, *b = vb;
	return wg_tree_name_cmp(a->name, a->namelen, a->mode, b->name, b->namelen, b->mode);
}

static int cmp_plain_name(const void *va, const void *vb)
{
	const struct builder_entry *a = *(const struct builder_entry *const *)va;
	const struct builder_entry *b = *(const struct builder_entry *const *)vb;
	size_t n = a->namelen < b->namelen ? a->namelen : b->namelen;
	int c = memcmp(a->name, b->name, n);
	if (c)
		return c;
	return a->namelen < b->namelen ? -1 : a->namelen > b->namelen;
}

/* A file and a directory of the same name need not be neighbours in Git's
 * order ("foo", "foo.c", "foo/"), so look for duplicates in plain byte
 * order, where equal names always are. */
static int check_duplicates(struct wg_tree_builder *b)
{
	struct builder_entry **v;
	size_t i, bytes;
	int err = 0;
	if (b->nr < 2)
		return 0;
	if (wg_size_mul(&bytes, b->nr, sizeof(*v)) || !(v = wg_malloc(bytes)))
		return wg_error_set(WG_ENOMEM, "out of memory checking tree entries");
	for (i = 0; i < b->nr; i++)
		v[i] = &b->entries[i];
	qsort(v, b->nr, sizeof(*v), cmp_plain_name);
	for (i = 1; i < b->nr; i++)
		if (!cmp_plain_name(&v[i - 1], &v[i])) {
			err = wg_error_set(WG_EEXISTS, "tree has two entries named '%.*s'",
					   (int)(v[i]->namelen > 256 ? 256 : v[i]->namelen),
					   v[i]->name);
			break;
		}
	wg_free(v);
	return err;
}

int wg_tree_builder_write(struct wg_tree_builder *builder, struct wg_buf *out)
{
	size_t i, start = out->len;
	int err;

	if ((err = check_duplicates(builder)))
		return err;
	if (builder->nr > 1)  /* qsort() may not be handed a NULL array */
		qsort(builder->entries, builder->nr, sizeof(*builder->entries), cmp_git_order);
	for (i = 0; i < builder->nr; i++) {
		const struct builder_entry *e = &builder->entries[i];
		/* "%o": Git writes 40000 for a tree, never 040000. */
		if ((err = wg_buf_printf(out, "%o ", e->mode)) ||
		    (err = wg_buf_add(out, e->name, e->namelen)) ||
		    (err = wg_buf_addch(out, '\0')) ||
		    (err = wg_buf_add(out, e->oid.hash, builder->algo->rawsz))) {
			wg_buf_setlen(out, start);
			return err;
		}
	}
	return 0;
}
