#include "index/index.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "index/cache_tree.h"
#include "index/resolve_undo.h"
#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/lockfile.h"

#define STAT_BYTES 40               /* ten 32-bit fields before the object name */
#define FLAG_EXTENDED 0x4000u       /* in the 16-bit flags */
#define NAME_MASK 0x0fffu
#define EXTENDED_FLAGS (WG_INDEX_SKIP_WORKTREE | WG_INDEX_INTENT_TO_ADD)

int wg_index_new(struct wg_index **out, const struct wg_hash_algo *algo)
{
	struct wg_index *ix = wg_calloc(1, sizeof(*ix));
	if (!ix)
		return wg_error_set(WG_ENOMEM, "out of memory");
	ix->algo = algo;
	*out = ix;
	return 0;
}

void wg_index_free(struct wg_index *ix)
{
	if (!ix)
		return;
	for (size_t i = 0; i < ix->nr; i++)
		wg_free(ix->entries[i]);
	wg_free(ix->entries);
	wg_cache_tree_free(ix->cache_tree);
	wg_resolve_undo_free(ix->resolve_undo);
	wg_free(ix);
}

struct wg_index_entry *wg_index_entry_new(const char *path, size_t len, uint32_t mode,
					  const struct wg_oid *oid, unsigned stage)
{
	struct wg_index_entry *e;

	if (len > SIZE_MAX - sizeof(*e) - 1 || !(e = wg_calloc(1, sizeof(*e) + len + 1)))
		return NULL;
	memcpy(e->path, path, len);
	e->path_len = len;
	e->mode = mode;
	e->oid = *oid;
	e->stage = stage;
	return e;
}

int wg_index_entry_cmp(const char *a, size_t alen, unsigned astage, const char *b, size_t blen,
		       unsigned bstage)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);
	if (c)
		return c;
	if (alen != blen)
		return alen < blen ? -1 : 1;
	return astage < bstage ? -1 : astage > bstage;
}

long wg_index_find(const struct wg_index *ix, const char *path, size_t len, unsigned stage)
{
	size_t lo = 0, hi = ix->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct wg_index_entry *e = ix->entries[mid];
		int c = wg_index_entry_cmp(path, len, stage, e->path, e->path_len, e->stage);
		if (!c)
			return (long)mid;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -(long)lo - 1;
}

int wg_index_check_df(const struct wg_index *ix)
{
	/* Sorted by bytes, "a/..." follows "a" with only names between them
	 * that continue "a" by a byte below '/' ("a-b", "a.c"): find where
	 * "a/" would go and look there. */
	for (size_t i = 0; i < ix->nr; i++) {
		const struct wg_index_entry *e = ix->entries[i], *f;
		size_t lo = i + 1, hi = ix->nr;
		if (i + 1 < ix->nr && ix->entries[i + 1]->path_len == e->path_len &&
		    !memcmp(ix->entries[i + 1]->path, e->path, e->path_len))
			continue;  /* another stage of the same path */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			const struct wg_index_entry *m = ix->entries[mid];
			size_t n = m->path_len < e->path_len ? m->path_len : e->path_len;
			/* is m below "<e>/"? */
			int c = memcmp(m->path, e->path, n);
			bool below = c ? c < 0
				       : m->path_len <= e->path_len ||
					 (unsigned char)m->path[e->path_len] < '/';
			if (below)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < ix->nr && (f = ix->entries[lo])->path_len > e->path_len &&
		    !memcmp(f->path, e->path, e->path_len) && f->path[e->path_len] == '/')
			return wg_error_set(WG_EINVALID, "'%s' is both a file and a directory "
					    "('%s')", e->path, f->path);
	}
	return 0;
}

int wg_index_add(struct wg_index *ix, struct wg_index_entry *e)
{
	long pos = wg_index_find(ix, e->path, e->path_len, e->stage);

	if (ix->cache_tree)
		wg_cache_tree_invalidate(ix->cache_tree, e->path, e->path_len);
	if (pos >= 0) {
		wg_free(ix->entries[pos]);
		ix->entries[pos] = e;
		return 0;
	}
	if (ix->nr == ix->alloc) {
		size_t n = ix->alloc ? ix->alloc * 2 : 64;
		void *v = n <= SIZE_MAX / sizeof(*ix->entries)
				  ? wg_realloc(ix->entries, n * sizeof(*ix->entries)) : NULL;
		if (!v) {
			wg_free(e);
			return wg_error_set(WG_ENOMEM, "out of memory");
		}
		ix->entries = v;
		ix->alloc = n;
	}
	pos = -pos - 1;
	memmove(ix->entries + pos + 1, ix->entries + pos,
		(ix->nr - (size_t)pos) * sizeof(*ix->entries));
	ix->entries[pos] = e;
	ix->nr++;
	return 0;
}

void wg_index_remove_at(struct wg_index *ix, size_t pos)
{
	struct wg_index_entry *e = ix->entries[pos];

	if (ix->cache_tree)
		wg_cache_tree_invalidate(ix->cache_tree, e->path, e->path_len);
	wg_free(e);
	memmove(ix->entries + pos, ix->entries + pos + 1,
		(ix->nr - pos - 1) * sizeof(*ix->entries));
	ix->nr--;
}

/* git's rule without nanoseconds: written in the second the index was
 * (or later), the file may change again unseen by its stat data. */
bool wg_index_entry_is_racy(const struct wg_index *ix, const struct wg_index_entry *e)
{
	return ix->mtime_sec && ix->mtime_sec <= (int64_t)e->st.mtime_sec;
}

/* --- reading ------------------------------------------------------------------------ */

/* Version 4's prefix-compression count: the offset encoding of OFS_DELTA. */
static int read_varint(const unsigned char **p, const unsigned char *end, size_t *out)
{
	const unsigned char *q = *p;
	size_t v;
	unsigned char c;

	if (q == end)
		return -1;
	c = *q++;
	v = c & 0x7f;
	while (c & 0x80) {
		if (q == end || v > (SIZE_MAX >> 8))
			return -1;
		c = *q++;
		v = ((v + 1) << 7) | (c & 0x7f);
	}
	*p = q;
	*out = v;
	return 0;
}

static int corrupt(const char *what)
{
	return wg_error_set(WG_ECORRUPT, "index file corrupt: %s", what);
}

static int read_entries(struct wg_index *ix, const unsigned char **pp, const unsigned char *end,
			uint32_t nr, bool *empty_path)
{
	const size_t rawsz = ix->algo->rawsz;
	const unsigned char *p = *pp;
	struct wg_buf prev = WG_BUF_INIT;
	int err = 0;

	for (uint32_t i = 0; i < nr && !err; i++) {
		const unsigned char *start = p, *name;
		size_t fixed = STAT_BYTES + rawsz + 2, len;
		unsigned flags16, flags = 0;
		struct wg_index_entry *e;
		struct wg_oid oid;

		if ((size_t)(end - p) < fixed) {
			err = corrupt("an entry runs past the end");
			break;
		}
		flags16 = wg_get_be16(p + STAT_BYTES + rawsz);
		if (flags16 & FLAG_EXTENDED) {
			unsigned ext;
			fixed += 2;
			if ((size_t)(end - p) < fixed) {
				err = corrupt("an entry runs past the end");
				break;
			}
			ext = (unsigned)wg_get_be16(p + STAT_BYTES + rawsz + 2) << 16;
			if (ext & ~((unsigned)EXTENDED_FLAGS << 16)) {
				err = wg_error_set(WG_ECORRUPT, "unknown index entry format 0x%08x", ext);
				break;
			}
			flags |= ext >> 16;
		}
		if (flags16 & 0x8000u)
			flags |= WG_INDEX_ASSUME_VALID;
		name = p + fixed;
		if (ix->version == 4) {
			size_t strip;
			const unsigned char *q = name, *nul;
			if (read_varint(&q, end, &strip) || strip > prev.len ||
			    !(nul = memchr(q, '\0', (size_t)(end - q)))) {
				err = corrupt("a compressed path is malformed");
				break;
			}
			wg_buf_setlen(&prev, prev.len - strip);
			if ((err = wg_buf_add(&prev, q, (size_t)(nul - q))))
				break;
			p = nul + 1;
		} else {
			const unsigned char *nul;
			size_t size;
			len = flags16 & NAME_MASK;
			if (len == NAME_MASK) {
				if (!(nul = memchr(name, '\0', (size_t)(end - name)))) {
					err = corrupt("a path runs past the end");
					break;
				}
				len = (size_t)(nul - name);
			} else if ((size_t)(end - name) < len + 1 || memchr(name, '\0', len) ||
				   name[len]) {
				err = corrupt("a path does not match its length");
				break;
			}
			size = (fixed + len + 8) & ~(size_t)7;
			if ((size_t)(end - start) < size) {
				err = corrupt("an entry runs past the end");
				break;
			}
			wg_buf_reset(&prev);
			if ((err = wg_buf_add(&prev, name, len)))
				break;
			p = start + size;
		}
		len = prev.len;
		/* A split index's replaced entries have empty names: the
		 * "link" extension after the entries is what gets refused,
		 * so an empty name is reported only if none comes. */
		if (!len)
			*empty_path = true;
		wg_oid_from_raw(&oid, ix->algo, start + STAT_BYTES);
		if (!(e = wg_index_entry_new((const char *)prev.data, len,
					     wg_get_be32(start + 24), &oid, (flags16 >> 12) & 3))) {
			err = wg_error_set(WG_ENOMEM, "out of memory reading the index");
			break;
		}
		e->flags = flags;
		e->st.ctime_sec = wg_get_be32(start);
		e->st.ctime_nsec = wg_get_be32(start + 4);
		e->st.mtime_sec = wg_get_be32(start + 8);
		e->st.mtime_nsec = wg_get_be32(start + 12);
		e->st.dev = wg_get_be32(start + 16);
		e->st.ino = wg_get_be32(start + 20);
		e->st.uid = wg_get_be32(start + 28);
		e->st.gid = wg_get_be32(start + 32);
		e->st.size = wg_get_be32(start + 36);
		if ((e->mode & S_IFMT) == S_IFDIR) {
			wg_free(e);
			err = wg_error_set(WG_EUNSUPPORTED, "the index is a sparse index (a directory "
					   "entry), which webgit does not support: run 'git sparse-checkout "
					   "disable' or 'git update-index --no-sparse'");
			break;
		}
		/* git's check_ce_order: sorted by path, then stage */
		if (ix->nr && len && ix->entries[ix->nr - 1]->path_len) {
			const struct wg_index_entry *q = ix->entries[ix->nr - 1];
			int c = wg_index_entry_cmp(q->path, q->path_len, 0, e->path, e->path_len, 0);
			/* (a stage 0 beside stages 1-3 of one path is not refused:
			 * git's update-index --index-info writes that) */
			if (c > 0)
				err = wg_error_set(WG_ECORRUPT, "unordered stage entries in index");
			else if (!c && q->stage >= e->stage)
				err = wg_error_set(WG_ECORRUPT, "unordered stage entries for '%s'",
						   q->path);
			if (err) {
				wg_free(e);
				break;
			}
		}
		/* appended in order: no search, no cache-tree invalidation */
		if (ix->nr == ix->alloc) {
			wg_free(e);
			err = corrupt("more entries than its header says");
			break;
		}
		ix->entries[ix->nr++] = e;
	}
	wg_buf_release(&prev);
	*pp = p;
	return err;
}

static int read_extension(struct wg_index *ix, const unsigned char *sig, const unsigned char *data,
			  uint32_t len)
{
	int err;

	if (!memcmp(sig, "TREE", 4)) {
		/* As git: a damaged cache tree is dropped (it is only a cache),
		 * the index still reads. */
		wg_cache_tree_free(ix->cache_tree);
		ix->cache_tree = NULL;
		if (wg_cache_tree_parse(&ix->cache_tree, ix->algo, data, len) == WG_ENOMEM)
			return WG_ENOMEM;
		wg_error_clear();
		return 0;
	}
	if (!memcmp(sig, "REUC", 4)) {
		wg_resolve_undo_free(ix->resolve_undo);
		ix->resolve_undo = NULL;
		if ((err = wg_resolve_undo_parse(&ix->resolve_undo, ix->algo, data, len)) == WG_ENOMEM)
			return err;
		wg_error_clear();
		return 0;
	}
	if (!memcmp(sig, "link", 4))
		return wg_error_set(WG_EUNSUPPORTED, "the index is split (core.splitIndex), which "
				    "webgit does not support: run 'git update-index --no-split-index'");
	if (!memcmp(sig, "sdir", 4))
		return wg_error_set(WG_EUNSUPPORTED, "the index is a sparse index, which webgit does "
				    "not support: run 'git sparse-checkout disable'");
	if (sig[0] < 'A' || sig[0] > 'Z')
		return wg_error_set(WG_EUNSUPPORTED, "index uses %.4s extension, which we do not "
				    "understand", (const char *)sig);
	/* UNTR, FSMN, EOIE, IEOT and any optional one: caches, dropped */
	return 0;
}

int wg_index_parse(struct wg_index **out, const struct wg_hash_algo *algo,
		   const unsigned char *data, size_t len)
{
	const size_t rawsz = algo->rawsz;
	const unsigned char *p, *end;
	unsigned char sum[WG_MAX_RAWSZ];
	static const unsigned char zero[WG_MAX_RAWSZ];
	struct wg_hash_ctx ctx;
	struct wg_index *ix = NULL;
	uint32_t sig, version, nr;
	bool empty_path = false;
	int err;

	if (len < 12 + rawsz)
		return wg_error_set(WG_ECORRUPT, "index file smaller than expected");
	sig = wg_get_be32(data);
	if (sig != 0x44495243u)  /* "DIRC" */
		return wg_error_set(WG_ECORRUPT, "bad signature 0x%08x", sig);
	version = wg_get_be32(data + 4);
	if (version < 2 || version > 4)
		return wg_error_set(WG_ECORRUPT, "bad index version %u", version);
	end = data + len - rawsz;
	/* an all-zero trailer: written with index.skipHash, not checked */
	if (memcmp(end, zero, rawsz)) {
		wg_hash_init(&ctx, algo);
		wg_hash_update(&ctx, data, len - rawsz);
		if (wg_hash_final(&ctx, sum))
			return WG_ERROR;
		if (memcmp(sum, end, rawsz))
			return wg_error_set(WG_ECORRUPT, "bad index file sha1 signature");
	}
	nr = wg_get_be32(data + 8);
	/* every entry takes at least its fixed part and a NUL */
	if (nr > (size_t)(end - data - 12) / (STAT_BYTES + rawsz + 3))
		return wg_error_set(WG_ECORRUPT, "index file smaller than expected");
	if ((err = wg_index_new(&ix, algo)))
		return err;
	ix->version = version;
	if (nr && !(ix->entries = wg_calloc(nr, sizeof(*ix->entries)))) {
		wg_index_free(ix);
		return wg_error_set(WG_ENOMEM, "out of memory reading the index");
	}
	ix->alloc = nr;
	p = data + 12;
	if ((err = read_entries(ix, &p, end, nr, &empty_path)))
		goto fail;
	/* extensions, until fewer than a header's bytes remain (git ignores
	 * those) */
	while ((size_t)(end - p) >= 8) {
		uint32_t ext_len = wg_get_be32(p + 4);
		if ((size_t)(end - p - 8) < ext_len) {
			err = corrupt("an extension runs past the end");
			goto fail;
		}
		if ((err = read_extension(ix, p, p + 8, ext_len)))
			goto fail;
		p += 8 + (size_t)ext_len;
	}
	if (empty_path) {
		err = corrupt("an entry has an empty path");
		goto fail;
	}
	*out = ix;
	return 0;
fail:
	wg_index_free(ix);
	return err;
}

int wg_index_read(struct wg_index **out, const struct wg_hash_algo *algo, const char *path)
{
	struct wg_buf data = WG_BUF_INIT;
	struct stat st;
	int err;

	if (wg_fs_stat(path, &st)) {
		if (errno == ENOENT)
			return wg_index_new(out, algo);
		return wg_error_set(WG_EIO, "cannot stat '%s': %s", path, strerror(errno));
	}
	if ((err = wg_fs_read_file(&data, path)))
		return err;
	if (!(err = wg_index_parse(out, algo, data.data, data.len))) {
		(*out)->mtime_sec = st.st_mtime;
#if defined(__APPLE__)
		(*out)->mtime_nsec = (uint32_t)st.st_mtimespec.tv_nsec;
#else
		(*out)->mtime_nsec = (uint32_t)st.st_mtim.tv_nsec;
#endif
	} else {
		wg_error_prefix("%s", path);
	}
	wg_buf_release(&data);
	return err;
}

/* --- writing ------------------------------------------------------------------------ */

static int add_varint(struct wg_buf *out, size_t v)
{
	unsigned char b[16];
	size_t pos = sizeof(b) - 1;

	b[pos] = v & 0x7f;
	while (v >>= 7)
		b[--pos] = 0x80 | (--v & 0x7f);
	return wg_buf_add(out, b + pos, sizeof(b) - pos);
}

static int add_entry(struct wg_buf *out, const struct wg_index *ix, const struct wg_index_entry *e,
		     const struct wg_index_entry *prev, unsigned version)
{
	const size_t rawsz = ix->algo->rawsz;
	unsigned char fixed[STAT_BYTES + WG_MAX_RAWSZ + 4];
	bool extended = e->flags & EXTENDED_FLAGS;
	size_t n = STAT_BYTES + rawsz + 2 + (extended ? 2 : 0);
	unsigned flags16 = (e->path_len < NAME_MASK ? (unsigned)e->path_len : NAME_MASK) |
			   (e->stage & 3) << 12 | (extended ? FLAG_EXTENDED : 0) |
			   (e->flags & WG_INDEX_ASSUME_VALID ? 0x8000u : 0);
	int err;

	wg_put_be32(fixed, e->st.ctime_sec);
	wg_put_be32(fixed + 4, e->st.ctime_nsec);
	wg_put_be32(fixed + 8, e->st.mtime_sec);
	wg_put_be32(fixed + 12, e->st.mtime_nsec);
	wg_put_be32(fixed + 16, e->st.dev);
	wg_put_be32(fixed + 20, e->st.ino);
	wg_put_be32(fixed + 24, e->mode);
	wg_put_be32(fixed + 28, e->st.uid);
	wg_put_be32(fixed + 32, e->st.gid);
	wg_put_be32(fixed + 36, e->st.size);
	memcpy(fixed + STAT_BYTES, e->oid.hash, rawsz);
	wg_put_be16(fixed + STAT_BYTES + rawsz, (uint16_t)flags16);
	if (extended)
		wg_put_be16(fixed + STAT_BYTES + rawsz + 2, (uint16_t)(e->flags & EXTENDED_FLAGS));
	if ((err = wg_buf_add(out, fixed, n)))
		return err;
	if (version == 4) {
		size_t common = 0;
		if (prev)
			while (common < prev->path_len && common < e->path_len &&
			       prev->path[common] == e->path[common])
				common++;
		if ((err = add_varint(out, prev ? prev->path_len - common : 0)) ||
		    (err = wg_buf_add(out, e->path + common, e->path_len - common)))
			return err;
		return wg_buf_addch(out, '\0');
	} else {
		static const unsigned char nuls[8];
		size_t size = (n + e->path_len + 8) & ~(size_t)7;
		if ((err = wg_buf_add(out, e->path, e->path_len)))
			return err;
		return wg_buf_add(out, nuls, size - n - e->path_len);
	}
}

static int add_extension(struct wg_buf *out, const char *sig, const struct wg_buf *data)
{
	unsigned char hdr[8];

	if (data->len > UINT32_MAX)
		return wg_error_set(WG_ELIMIT, "index extension %s too large", sig);
	memcpy(hdr, sig, 4);
	wg_put_be32(hdr + 4, (uint32_t)data->len);
	return wg_buf_add(out, hdr, 8) || wg_buf_add(out, data->data, data->len) ? WG_ENOMEM : 0;
}

int wg_index_serialize(struct wg_buf *out, const struct wg_index *ix)
{
	unsigned char hdr[12], sum[WG_MAX_RAWSZ];
	struct wg_buf ext = WG_BUF_INIT;
	struct wg_hash_ctx ctx;
	unsigned version = ix->version ? ix->version : 2;
	bool extended = false;
	size_t start = out->len;
	int err = 0;

	if (ix->nr > UINT32_MAX)
		return wg_error_set(WG_ELIMIT, "too many index entries");
	for (size_t i = 0; i < ix->nr && !extended; i++)
		extended = ix->entries[i]->flags & EXTENDED_FLAGS;
	/* git's rule: version 3 only when an entry needs it */
	if (version == 2 || version == 3)
		version = extended ? 3 : 2;
	if (version < 2 || version > 4)
		return wg_error_set(WG_EINVALID, "bad index version %u", version);
	memcpy(hdr, "DIRC", 4);
	wg_put_be32(hdr + 4, version);
	wg_put_be32(hdr + 8, (uint32_t)ix->nr);
	if (wg_buf_add(out, hdr, sizeof(hdr)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	for (size_t i = 0; i < ix->nr && !err; i++)
		err = add_entry(out, ix, ix->entries[i], i ? ix->entries[i - 1] : NULL, version);
	if (!err && ix->cache_tree && !(err = wg_cache_tree_serialize(&ext, ix->cache_tree)))
		err = add_extension(out, "TREE", &ext);
	wg_buf_reset(&ext);
	if (!err && ix->resolve_undo && ix->resolve_undo->nr &&
	    !(err = wg_resolve_undo_serialize(&ext, ix->resolve_undo)))
		err = add_extension(out, "REUC", &ext);
	wg_buf_release(&ext);
	if (!err) {
		wg_hash_init(&ctx, ix->algo);
		wg_hash_update(&ctx, out->data + start, out->len - start);
		if (!(err = wg_hash_final(&ctx, sum)))
			err = wg_buf_add(out, sum, ix->algo->rawsz);
	}
	if (err) {
		wg_buf_setlen(out, start);
		return err == WG_ENOMEM || err == -1 ? wg_error_set(WG_ENOMEM, "out of memory") : err;
	}
	return 0;
}

int wg_index_write(const struct wg_index *ix, const char *path)
{
	struct wg_lockfile lk = WG_LOCKFILE_INIT;
	struct wg_buf data = WG_BUF_INIT;
	int err;

	if (!(err = wg_index_serialize(&data, ix)) && !(err = wg_lockfile_acquire(&lk, path)) &&
	    !(err = wg_lockfile_write(&lk, data.data, data.len)))
		err = wg_lockfile_commit(&lk);
	wg_lockfile_rollback(&lk);
	wg_buf_release(&data);
	return err;
}
