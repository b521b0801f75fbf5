#include "index/cache_tree.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

void wg_cache_tree_free(struct wg_cache_tree *ct)
{
	if (!ct)
		return;
	for (size_t i = 0; i < ct->nsub; i++)
		wg_cache_tree_free(ct->sub[i]);
	wg_free(ct->sub);
	wg_free(ct->name);
	wg_free(ct);
}

/* A decimal number as git writes it (optional '-', digits), in bounds. */
static int parse_int(const unsigned char **p, const unsigned char *end, int *out)
{
	const unsigned char *q = *p;
	bool neg = false;
	long v = 0;

	if (q < end && *q == '-') {
		neg = true;
		q++;
	}
	if (q == end || *q < '0' || *q > '9')
		return -1;
	while (q < end && *q >= '0' && *q <= '9') {
		v = v * 10 + (*q++ - '0');
		if (v > 0x7fffffffL)
			return -1;
	}
	*out = neg ? (int)-v : (int)v;
	*p = q;
	return 0;
}

static int read_one(struct wg_cache_tree **out, const struct wg_hash_algo *algo,
		    const unsigned char **p, const unsigned char *end, unsigned depth)
{
	const unsigned char *q = *p, *name = q;
	struct wg_cache_tree *ct;
	int nsub;

	/* a damaged extension could nest without end; no path of an index
	 * has that many directories (git's core.maxTreeDepth is 2048) */
	if (depth > 4096)
		return -1;
	while (q < end && *q)
		q++;
	if (q == end)
		return -1;
	if (!(ct = wg_calloc(1, sizeof(*ct))) ||
	    !(ct->name = wg_strndup((const char *)name, (size_t)(q - name)))) {
		wg_free(ct);
		return wg_error_set(WG_ENOMEM, "out of memory reading the cache tree");
	}
	ct->name_len = (size_t)(q - name);
	q++;
	if (parse_int(&q, end, &ct->entry_count) || q == end || *q++ != ' ' ||
	    parse_int(&q, end, &nsub) || nsub < 0 || q == end || *q++ != '\n')
		goto bad;
	if (ct->entry_count >= 0) {
		if ((size_t)(end - q) < algo->rawsz)
			goto bad;
		wg_oid_from_raw(&ct->oid, algo, q);
		q += algo->rawsz;
	} else {
		ct->entry_count = -1;
	}
	/* each subtree takes at least 5 bytes ("\0" "0 0\n"): no count can
	 * ask for more memory than the extension's size justifies */
	if ((size_t)nsub > (size_t)(end - q) / 5)
		goto bad;
	if (nsub && !(ct->sub = wg_calloc((size_t)nsub, sizeof(*ct->sub)))) {
		wg_cache_tree_free(ct);
		return wg_error_set(WG_ENOMEM, "out of memory reading the cache tree");
	}
	for (int i = 0; i < nsub; i++) {
		int err = read_one(&ct->sub[i], algo, &q, end, depth + 1);
		if (err) {
			wg_cache_tree_free(ct);
			return err;
		}
		ct->nsub++;
	}
	*p = q;
	*out = ct;
	return 0;
bad:
	wg_cache_tree_free(ct);
	return -1;
}

int wg_cache_tree_parse(struct wg_cache_tree **out, const struct wg_hash_algo *algo,
			const unsigned char *data, size_t len)
{
	const unsigned char *p = data, *end = data + len;
	int err = read_one(out, algo, &p, end, 0);

	if (err == -1 || (!err && p != end)) {
		if (!err)
			wg_cache_tree_free(*out);
		*out = NULL;
		return wg_error_set(WG_ECORRUPT, "index: malformed cache tree (TREE) extension");
	}
	return err;
}

static int write_one(struct wg_buf *out, const struct wg_cache_tree *ct)
{
	int err;

	if ((err = wg_buf_add(out, ct->name, ct->name_len)) || (err = wg_buf_addch(out, '\0')) ||
	    (err = wg_buf_printf(out, "%d %zu\n", ct->entry_count < 0 ? -1 : ct->entry_count,
				 ct->nsub)))
		return err;
	if (ct->entry_count >= 0 &&
	    (err = wg_buf_add(out, ct->oid.hash, wg_oid_rawsz(&ct->oid))))
		return err;
	for (size_t i = 0; i < ct->nsub && !err; i++)
		err = write_one(out, ct->sub[i]);
	return err;
}

int wg_cache_tree_serialize(struct wg_buf *out, const struct wg_cache_tree *ct)
{
	return write_one(out, ct) ? wg_error_set(WG_ENOMEM, "out of memory") : 0;
}

static long find_sub(const struct wg_cache_tree *ct, const char *name, size_t len)
{
	for (size_t i = 0; i < ct->nsub; i++)
		if (ct->sub[i]->name_len == len && !memcmp(ct->sub[i]->name, name, len))
			return (long)i;
	return -1;
}

void wg_cache_tree_invalidate(struct wg_cache_tree *ct, const char *path, size_t len)
{
	while (ct) {
		const char *slash = memchr(path, '/', len);
		size_t n = slash ? (size_t)(slash - path) : len;
		long pos = find_sub(ct, path, n);

		ct->entry_count = -1;
		if (!slash) {
			/* a file where a directory was: the directory's node goes */
			if (pos >= 0) {
				wg_cache_tree_free(ct->sub[pos]);
				memmove(ct->sub + pos, ct->sub + pos + 1,
					(ct->nsub - (size_t)pos - 1) * sizeof(*ct->sub));
				ct->nsub--;
			}
			return;
		}
		ct = pos >= 0 ? ct->sub[pos] : NULL;
		path += n + 1;
		len -= n + 1;
	}
}
