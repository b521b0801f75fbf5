#include "fixtures.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "object/commit.h"
#include "odb/odb.h"
#include "protocol/pktline.h"
#include "repo/repo.h"
#include "test.h"

const struct wg_hash_algo *fx_sha1(void) { return wg_hash_algo_by_id(WG_HASH_SHA1); }
const struct wg_hash_algo *fx_sha256(void) { return wg_hash_algo_by_id(WG_HASH_SHA256); }

const char *fx_hexid(const struct wg_hash_algo *algo, char c)
{
	static char bufs[8][WG_MAX_HEXSZ + 1];
	static int next;
	char *b = bufs[next++ % 8];
	memset(b, c, algo->hexsz);
	b[algo->hexsz] = '\0';
	return b;
}

struct wg_oid fx_oid_of(const struct wg_hash_algo *algo, char c)
{
	struct wg_oid oid;
	CHECK_OK(wg_oid_from_hex(&oid, algo, fx_hexid(algo, c)));
	return oid;
}

void fx_pkt(struct wg_buf *b, const char *fmt, ...)
{
	struct wg_buf tmp = WG_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	CHECK_OK(wg_buf_vprintf(&tmp, fmt, ap));
	va_end(ap);
	CHECK_OK(wg_pkt_write(b, tmp.data, tmp.len));
	wg_buf_release(&tmp);
}

void fx_band(struct wg_buf *b, int n, const void *data, size_t len)
{
	struct wg_buf tmp = WG_BUF_INIT;
	CHECK_OK(wg_buf_addch(&tmp, n));
	CHECK_OK(wg_buf_add(&tmp, data, len));
	CHECK_OK(wg_pkt_write(b, tmp.data, tmp.len));
	wg_buf_release(&tmp);
}

void fx_flush(struct wg_buf *b) { CHECK_OK(wg_pkt_write_flush(b)); }
void fx_delim(struct wg_buf *b) { CHECK_OK(wg_pkt_write_delim(b)); }

struct fx_tracking fx_tracked;

/* The allocators below count in globals, and the code under test may
 * allocate from several threads (the indexer's workers): a spin lock
 * around each count, so the tests read them as plain ints once the
 * threads are joined. */
static atomic_flag fx_lock = ATOMIC_FLAG_INIT;

static void fx_enter(void)
{
	while (atomic_flag_test_and_set_explicit(&fx_lock, memory_order_acquire))
		;
}

static void fx_leave(void) { atomic_flag_clear_explicit(&fx_lock, memory_order_release); }

static void *track_malloc(size_t n, void *p)
{
	size_t *h = malloc(n + 2 * sizeof(size_t));
	(void)p;
	if (!h)
		return NULL;
	h[0] = n;
	fx_enter();
	fx_tracked.live += n;
	if (fx_tracked.live > fx_tracked.peak)
		fx_tracked.peak = fx_tracked.live;
	fx_leave();
	return h + 2;
}

static void track_free(void *ptr, void *p)
{
	size_t *h;
	(void)p;
	if (!ptr)
		return;
	h = (size_t *)ptr - 2;
	fx_enter();
	fx_tracked.live -= h[0];
	fx_leave();
	free(h);
}

static void *track_realloc(void *ptr, size_t n, void *p)
{
	void *q = track_malloc(n, p);
	if (q && ptr) {
		size_t old = ((size_t *)ptr - 2)[0];
		memcpy(q, ptr, old < n ? old : n);
		track_free(ptr, p);
	}
	return q;
}

const struct wg_allocator fx_tracking_allocator = { track_malloc, track_realloc, track_free,
						    NULL };

int fx_fail_at, fx_alloc_count;

static bool fail_now(void)
{
	bool fail;
	fx_enter();
	fail = fx_alloc_count++ == fx_fail_at;
	fx_leave();
	return fail;
}

static void *fail_malloc(size_t n, void *p)
{
	(void)p;
	if (fail_now())
		return NULL;
	return malloc(n);
}

static void *fail_realloc(void *ptr, size_t n, void *p)
{
	(void)p;
	if (fail_now())
		return NULL;
	return realloc(ptr, n);
}

static void fail_free(void *ptr, void *p)
{
	(void)p;
	free(ptr);
}

const struct wg_allocator fx_failing_allocator = { fail_malloc, fail_realloc, fail_free, NULL };

void fx_chunker_init(struct fx_chunker *c, const void *data, size_t len, size_t split)
{
	c->data = data;
	c->len = len;
	c->split = split;
	c->pos = 0;
	c->idx = 0;
}

unsigned char *fx_chunker_next(struct fx_chunker *c, size_t *n)
{
	unsigned char *copy;
	if (c->split == FX_BYTEWISE) {
		if (c->pos >= c->len)
			return NULL;
		*n = 1;
	} else if (c->idx == 0) {
		*n = c->split;
	} else if (c->idx == 1) {
		*n = c->len - c->split;
	} else {
		return NULL;
	}
	c->idx++;
	copy = malloc(*n ? *n : 1);
	if (*n)
		memcpy(copy, c->data + c->pos, *n);
	c->pos += *n;
	return copy;
}

int fx_dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;
	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

void fx_rm_flat_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[4096];
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

struct wg_oid fx_commit_tree(struct wg_odb *odb, const struct fx_tree_entry *e, size_t n,
			     const struct wg_oid *parents, size_t np, const char *ident,
			     const char *msg)
{
	struct wg_buf tree = WG_BUF_INIT, raw = WG_BUF_INIT;
	struct wg_oid t, c;
	struct wg_commit cm;

	for (size_t i = 0; i < n; i++) {
		wg_buf_printf(&tree, "100644 %s", e[i].name);
		wg_buf_addch(&tree, 0);
		wg_buf_add(&tree, e[i].oid.hash, wg_oid_rawsz(&e[i].oid));
	}
	CHECK_OK(wg_odb_write(odb, WG_OBJ_TREE, tree.data, tree.len, &t));
	wg_commit_init(&cm);
	cm.tree = t;
	for (size_t i = 0; i < np; i++)
		CHECK_OK(wg_commit_add_parent(&cm, &parents[i]));
	CHECK_OK(wg_commit_set_author(&cm, ident));
	CHECK_OK(wg_commit_set_committer(&cm, ident));
	CHECK_OK(wg_commit_set_message(&cm, msg, strlen(msg)));
	CHECK_OK(wg_commit_serialize(&cm, &raw));
	CHECK_OK(wg_odb_write(odb, WG_OBJ_COMMIT, raw.data, raw.len, &c));
	wg_commit_release(&cm);
	wg_buf_release(&tree);
	wg_buf_release(&raw);
	return c;
}

struct wg_oid fx_commit_file(struct wg_odb *odb, const char *path, const char *text,
			     const struct wg_oid *parents, size_t n, const char *who,
			     long timestamp, const char *tz, const char *msg)
{
	struct wg_buf ident = WG_BUF_INIT;
	struct fx_tree_entry e = { .name = path };
	struct wg_oid c;

	CHECK_OK(wg_odb_write(odb, WG_OBJ_BLOB, text, strlen(text), &e.oid));
	wg_buf_printf(&ident, "%s %ld %s", who, timestamp, tz);
	c = fx_commit_tree(odb, &e, 1, parents, n, wg_buf_cstr(&ident), msg);
	wg_buf_release(&ident);
	return c;
}

struct wg_repo *fx_init_bare_repo(const char *name)
{
	struct wg_repo_init_options o = WG_REPO_INIT_OPTIONS_INIT;
	struct wg_repo *repo = NULL;

	o.bare = true;
	o.object_format = "sha1";
	CHECK_OK(wg_repo_init(&repo, wg_test_tmpdir(name), &o));
	return repo;
}
