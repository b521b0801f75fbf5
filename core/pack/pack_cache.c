#include "pack/pack_cache.h"

#include <errno.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"

/* What identifies an index file (see the header). */
struct idx_key {
	const char *name;          /* the path's last component */
	const struct wg_hash_algo *algo;
	uint64_t size, dev, ino;
	int64_t mtime_sec, mtime_nsec;
};

struct entry {
	struct wg_pack_idx *idx;
	struct wg_pack_windows *windows;   /* kept while nobody reads through them */
	size_t windows_bytes;
	char *name;
	struct idx_key key;        /* key.name points at name */
	unsigned refs;
	uint64_t used;             /* when last released: for LRU */
};

static struct {
	struct entry *v;
	size_t n, cap;
	size_t budget;
	size_t idle_bytes;         /* indexes with refs == 0, and all kept windows */
	uint64_t clock;
} cache;

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static int key_of(struct idx_key *k, const char *path, const struct wg_hash_algo *algo)
{
	struct stat st;
	if (wg_fs_stat(path, &st))
		return -1;
	memset(k, 0, sizeof(*k));
	k->name = base_name(path);
	k->algo = algo;
	k->size = (uint64_t)st.st_size;
	k->dev = (uint64_t)st.st_dev;
	k->ino = (uint64_t)st.st_ino;
	k->mtime_sec = (int64_t)st.st_mtim.tv_sec;
	k->mtime_nsec = (int64_t)st.st_mtim.tv_nsec;
	return 0;
}

static int key_eq(const struct idx_key *a, const struct idx_key *b)
{
	return a->algo == b->algo && a->size == b->size && a->dev == b->dev && a->ino == b->ino &&
	       a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec &&
	       !strcmp(a->name, b->name);
}

static void drop(size_t i)
{
	struct entry *e = &cache.v[i];
	if (!e->refs)
		cache.idle_bytes -= (size_t)e->key.size;
	cache.idle_bytes -= e->windows_bytes;
	wg_pack_windows_free(e->windows);
	wg_pack_idx_free(e->idx);
	wg_free(e->name);
	cache.v[i] = cache.v[--cache.n];
}

/* Free idle indexes and kept windows, least recently used first, until
 * they fit (windows of a pack in use go without its index). */
static void trim(void)
{
	while (cache.idle_bytes > cache.budget) {
		size_t i, lru = cache.n;
		for (i = 0; i < cache.n; i++)
			if ((!cache.v[i].refs || cache.v[i].windows) &&
			    (lru == cache.n || cache.v[i].used < cache.v[lru].used))
				lru = i;
		if (lru == cache.n)
			break;
		if (!cache.v[lru].refs) {
			drop(lru);
			continue;
		}
		cache.idle_bytes -= cache.v[lru].windows_bytes;
		wg_pack_windows_free(cache.v[lru].windows);
		cache.v[lru].windows = NULL;
		cache.v[lru].windows_bytes = 0;
	}
}

void wg_pack_cache_set_budget(size_t bytes)
{
	cache.budget = bytes;
	trim();
	if (!cache.n) {
		wg_free(cache.v);
		cache.v = NULL;
		cache.cap = 0;
	}
}

/* Keep idx (read from the file `k` describes) for later opens; it is
 * simply not kept when there is no room for the entry. */
static void remember(struct wg_pack_idx *idx, const struct idx_key *k)
{
	struct entry *e;
	char *name;
	if (cache.n == cache.cap) {
		size_t cap = cache.cap ? 2 * cache.cap : 8;
		struct entry *v = wg_realloc(cache.v, cap * sizeof(*v));
		if (!v)
			return;
		cache.v = v;
		cache.cap = cap;
	}
	if (!(name = wg_strdup(k->name)))
		return;
	e = &cache.v[cache.n++];
	e->idx = idx;
	e->windows = NULL;
	e->windows_bytes = 0;
	e->name = name;
	e->key = *k;
	e->key.name = name;
	e->refs = 1;
	e->used = 0;
}

int wg_pack_cache_open_idx(struct wg_pack_idx **out, const char *path,
			   const struct wg_hash_algo *algo)
{
	struct idx_key before, after;
	size_t i;
	int err;

	if (!cache.budget || key_of(&before, path, algo))
		return wg_pack_idx_open(out, path, algo);
	for (i = 0; i < cache.n; i++) {
		struct entry *e = &cache.v[i];
		if (key_eq(&e->key, &before)) {
			if (!e->refs++)
				cache.idle_bytes -= (size_t)e->key.size;
			*out = e->idx;
			return 0;
		}
	}
	if ((err = wg_pack_idx_open(out, path, algo)))
		return err;
	/* A file replaced while it was read is not kept: which one was read
	 * is not known. */
	if (!key_of(&after, path, algo) && key_eq(&before, &after))
		remember(*out, &before);
	return 0;
}

static struct entry *entry_of(const struct wg_pack_idx *idx)
{
	for (size_t i = 0; i < cache.n; i++)
		if (cache.v[i].idx == idx)
			return &cache.v[i];
	return NULL;
}

struct wg_pack_windows *wg_pack_cache_take_windows(const struct wg_pack_idx *idx)
{
	struct entry *e = entry_of(idx);
	struct wg_pack_windows *w;
	if (!e || !e->windows)
		return NULL;
	w = e->windows;
	cache.idle_bytes -= e->windows_bytes;
	e->windows = NULL;
	e->windows_bytes = 0;
	return w;
}

void wg_pack_cache_release(struct wg_pack_idx *idx, struct wg_pack_windows *windows)
{
	struct entry *e = idx ? entry_of(idx) : NULL;
	if (!e) {
		wg_pack_windows_free(windows);
		wg_pack_idx_free(idx);
		return;
	}
	if (windows && !e->windows) {
		e->windows = windows;
		e->windows_bytes = wg_pack_windows_bytes(windows);
		cache.idle_bytes += e->windows_bytes;
	} else {
		wg_pack_windows_free(windows);
	}
	e->used = ++cache.clock;
	if (!--e->refs)
		cache.idle_bytes += (size_t)e->key.size;
	trim();
}
