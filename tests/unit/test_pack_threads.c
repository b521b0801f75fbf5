/* The indexer's delta resolution on a pool of threads (pack/indexer.h,
 * `threads`): the same packs indexed with 1, 2 and 8 threads give the
 * same bytes (.pack, .idx, .rev), the same objects to on_object, and the
 * same failures cleanly: an allocation failing anywhere, a cancel from the
 * progress callback, an error from on_object, all with nothing left behind.
 *
 * The packs are built here: many files, each a whole first version then a
 * chain of versions as deltas (OFS_DELTA mostly, REF_DELTA now and then,
 * some against the version before last, so bases have several children),
 * chains 60 deep. And a pack with one whole object twice, so two trees
 * reach the REF_DELTA on its id: resolved once, then refused as git does
 * (an index cannot hold one id twice). In a build without threads (WebAssembly)
 * every count runs on one thread, and the checks still hold. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "fixtures.h"
#include "pack/delta_create.h"
#include "pack/indexer.h"
#include "pack/pack_format.h"
#include "test.h"
#include "util/alloc.h"
#include "util/endian.h"
#include "util/hex.h"
#include "util/varint.h"

/* ---- building packs ------------------------------------------------------ */

struct pb {
	const struct wg_hash_algo *algo;
	struct wg_buf buf;
	uint32_t count;
};

static void pb_init(struct pb *p, const struct wg_hash_algo *algo)
{
	unsigned char hdr[WG_PACK_HEADER_SIZE];
	memset(p, 0, sizeof(*p));
	p->algo = algo;
	wg_pack_header_write(hdr, 0);
	CHECK_OK(wg_buf_add(&p->buf, hdr, sizeof(hdr)));
}

/* An entry (ref: REF_DELTA base id; ofs_base: OFS_DELTA base offset) with
 * its content deflated; returns its offset. */
static uint64_t pb_entry(struct pb *p, int type, const unsigned char *ref, uint64_t ofs_base,
			 const void *content, size_t len)
{
	unsigned char hdr[WG_PACK_OBJ_HEADER_MAX + WG_VARINT_MAX];
	uLongf zlen = compressBound((uLong)len);
	unsigned char *z = malloc(zlen);
	uint64_t off = p->buf.len;
	size_t n = wg_pack_object_header_encode(hdr, (enum wg_object_type)type, len);
	CHECK_OK(wg_buf_add(&p->buf, hdr, n));
	if (type == WG_OBJ_OFS_DELTA) {
		n = wg_varint_ofs_encode(hdr, off - ofs_base);
		CHECK_OK(wg_buf_add(&p->buf, hdr, n));
	} else if (type == WG_OBJ_REF_DELTA) {
		CHECK_OK(wg_buf_add(&p->buf, ref, p->algo->rawsz));
	}
	compress2(z, &zlen, content, (uLong)len, 6);
	CHECK_OK(wg_buf_add(&p->buf, z, zlen));
	free(z);
	p->count++;
	return off;
}

static void pb_finish(struct pb *p)
{
	unsigned char h[WG_MAX_RAWSZ];
	wg_put_be32(p->buf.data + 8, p->count);
	CHECK_OK(wg_hash_buffer(p->algo, p->buf.data, p->buf.len, h));
	CHECK_OK(wg_buf_add(&p->buf, h, p->algo->rawsz));
}

static uint32_t rnd_state;
static uint32_t rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}

/* Version v+1 of a text: a few of its lines replaced, one added (never
 * in the first 5 lines: a commit's headers stay as they are). */
static void next_version(struct wg_buf *out, const struct wg_buf *prev)
{
	size_t pos = 0, line = 0, target = 5 + rnd() % 35, target2 = 5 + rnd() % 35;
	wg_buf_reset(out);
	while (pos < prev->len) {
		const unsigned char *nl = memchr(prev->data + pos, '\n', prev->len - pos);
		size_t n = nl ? (size_t)(nl - (prev->data + pos)) + 1 : prev->len - pos;
		if (line == target || line == target2)
			CHECK_OK(wg_buf_printf(out, "changed line %u in a new version\n", rnd()));
		else
			CHECK_OK(wg_buf_add(out, prev->data + pos, n));
		if (line == 20)
			CHECK_OK(wg_buf_printf(out, "an added line %u\n", rnd()));
		pos += n;
		line++;
	}
}

/* nfiles files of `versions` versions each (see the top of the file).
 * The first file's chain is of commits (on_object and fsck see them:
 * valid ones, their message lines edited), the others of blobs. With
 * `duplicate`, the second file's first version twice; with `bad_commit`,
 * one more delta on the first commit whose result is no commit. */
static void build_pack(struct pb *p, const struct wg_hash_algo *algo, unsigned nfiles,
		       unsigned versions, bool duplicate, bool bad_commit)
{
	struct wg_buf *text = calloc((size_t)nfiles * versions, sizeof(*text));
	uint64_t *offset = calloc((size_t)nfiles * versions, sizeof(*offset));
	struct wg_oid *id = calloc((size_t)nfiles * versions, sizeof(*id));
	struct wg_buf delta = WG_BUF_INIT;
	unsigned f, v, l;

	rnd_state = 20261205u;
	pb_init(p, algo);
	for (f = 0; f < nfiles; f++) {
		struct wg_buf *t = &text[f * versions];
		int type = f == 0 ? WG_OBJ_COMMIT : WG_OBJ_BLOB;
		l = 0;
		if (f == 0) {
			struct wg_oid tree;
			CHECK_OK(wg_object_hash(&tree, algo, WG_OBJ_TREE, "", 0));
			CHECK_OK(wg_buf_printf(t, "tree %s\n"
					       "author A U Thor <author@example.com> 1 +0000\n"
					       "committer A U Thor <author@example.com> 1 +0000\n"
					       "\nsubject\n", wg_oid_hex(&tree)));
			l = 5;
		}
		for (; l < 40; l++)
			CHECK_OK(wg_buf_printf(t, "file %u line %u: %u %u\n", f, l, rnd(), rnd()));
		for (v = 1; v < versions; v++)
			next_version(&text[f * versions + v], &text[f * versions + v - 1]);
		for (v = 0; v < versions; v++)
			CHECK_OK(wg_object_hash(&id[f * versions + v], algo, (enum wg_object_type)type,
						text[f * versions + v].data, text[f * versions + v].len));
		offset[f * versions] = pb_entry(p, type, NULL, 0, t->data, t->len);
	}
	/* Bases first, as git writes packs; then the deltas, version by
	 * version across the files, so the trees interleave in the file. */
	for (v = 1; v < versions; v++) {
		for (f = 0; f < nfiles; f++) {
			unsigned k = f * versions + v, b = v >= 2 && v % 5 == 0 ? k - 2 : k - 1;
			struct wg_delta_index *index = NULL;
			CHECK_OK(wg_delta_index_new(&index, text[b].data, text[b].len));
			CHECK_OK(wg_delta_create(&delta, index, text[k].data, text[k].len, 0));
			wg_delta_index_free(index);
			if (v % 7 == 3)
				offset[k] = pb_entry(p, WG_OBJ_REF_DELTA, id[b].hash, 0, delta.data,
						     delta.len);
			else
				offset[k] = pb_entry(p, WG_OBJ_OFS_DELTA, NULL, offset[b], delta.data,
						     delta.len);
		}
	}
	/* The second file's first version again, whole, then a REF_DELTA on
	 * its id: both copies are roots that reach that delta. */
	if (duplicate && nfiles > 1) {
		pb_entry(p, WG_OBJ_BLOB, NULL, 0, text[versions].data, text[versions].len);
		struct wg_delta_index *index = NULL;
		CHECK_OK(wg_delta_index_new(&index, text[versions].data, text[versions].len));
		CHECK_OK(wg_delta_create(&delta, index, text[versions + 1].data,
					 text[versions + 1].len, 0));
		wg_delta_index_free(index);
		pb_entry(p, WG_OBJ_REF_DELTA, id[versions].hash, 0, delta.data, delta.len);
	}
	if (bad_commit) {
		static const char garbage[] = "this is no commit\n";
		struct wg_delta_index *index = NULL;
		CHECK_OK(wg_delta_index_new(&index, text[0].data, text[0].len));
		CHECK_OK(wg_delta_create(&delta, index, garbage, sizeof(garbage) - 1, 0));
		wg_delta_index_free(index);
		pb_entry(p, WG_OBJ_OFS_DELTA, NULL, offset[0], delta.data, delta.len);
	}
	pb_finish(p);
	for (f = 0; f < nfiles * versions; f++)
		wg_buf_release(&text[f]);
	free(text);
	free(offset);
	free(id);
	wg_buf_release(&delta);
}

/* ---- running the indexer ------------------------------------------------- */

static void read_file(const char *path, struct wg_buf *out)
{
	unsigned char buf[65536];
	FILE *fp = fopen(path, "rb");
	size_t n;
	wg_buf_reset(out);
	CHECK(fp != NULL);
	if (!fp)
		return;
	while ((n = fread(buf, 1, sizeof(buf), fp)))
		CHECK_OK(wg_buf_add(out, buf, n));
	fclose(fp);
}

/* What one indexing gave. */
struct outcome {
	struct wg_buf pack, idx, rev;
	struct wg_buf objects;     /* what on_object saw: sorted lines */
	struct wg_buf depths;      /* each object's depth, in pack order */
};

static void outcome_release(struct outcome *o)
{
	wg_buf_release(&o->pack);
	wg_buf_release(&o->idx);
	wg_buf_release(&o->rev);
	wg_buf_release(&o->objects);
	wg_buf_release(&o->depths);
}

/* Callbacks: the lines on_object saw, per worker (a worker's calls never
 * overlap; different workers' may), a call that fails (the k-th of
 * on_object, or of progress once deltas are being resolved). */
struct worker_seen {
	char **lines;
	size_t n, cap;
	int in_callback;
};

struct seen {
	struct worker_seen w[WG_INDEXER_THREADS_MAX];
	size_t fail_object_at;     /* 0: never */
	uint32_t cancel_at;        /* 0: never */
	_Atomic size_t calls;
	int in_callback;           /* progress and fsck's reports never overlap */
	_Atomic int overlaps;
};

static int on_object(unsigned worker, const struct wg_oid *oid, enum wg_object_type type,
		     const void *data, size_t len, void *payload)
{
	struct seen *s = payload;
	struct worker_seen *w;
	char line[WG_MAX_HEXSZ + 64];
	int err = 0;
	(void)data;
	if (worker >= WG_INDEXER_THREADS_MAX) {
		s->overlaps++;
		return wg_error_set(WG_ERROR, "no worker %u", worker);
	}
	w = &s->w[worker];
	if (w->in_callback++)
		s->overlaps++;
	snprintf(line, sizeof(line), "%s %d %zu", wg_oid_hex(oid), (int)type, len);
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 64;
		w->lines = realloc(w->lines, w->cap * sizeof(*w->lines));
	}
	w->lines[w->n++] = strdup(line);
	if (s->fail_object_at && ++s->calls == s->fail_object_at)
		err = wg_error_set(WG_EFSCK, "on_object stops here");
	w->in_callback--;
	return err;
}

static int on_progress(const struct wg_indexer_progress *p, void *payload)
{
	struct seen *s = payload;
	int stop;
	if (s->in_callback++)
		s->overlaps++;
	stop = s->cancel_at && p->resolved_deltas >= s->cancel_at;
	s->in_callback--;
	return stop;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* With the failing allocator (fixtures.h) while the indexer runs, not
 * while the test looks at what it made. */
static bool inject;
/* Non-NULL: the indexer checks what it receives. */
static const struct wg_fsck_options *fsck;

/* Index `pack` into `dir` with `threads` threads, fed in `chunk`-byte
 * pieces (0: whole). The outcome is filled on success. */
static int run(const struct wg_hash_algo *algo, const struct wg_buf *pack, const char *dir,
	       unsigned threads, size_t window, size_t chunk, struct seen *s,
	       struct outcome *out)
{
	struct wg_indexer_options o = WG_INDEXER_OPTIONS_INIT;
	struct wg_indexer *ix = NULL;
	unsigned char hash[WG_MAX_RAWSZ];
	size_t pos = 0, i;
	int err;

	o.algo = algo;
	o.pack_dir = dir;
	o.threads = threads;
	o.window = window;
	o.on_object = on_object;
	o.object_payload = s;
	o.fsck = fsck;
	o.progress = on_progress;
	o.payload = s;
	if (inject)
		wg_allocator_set(&fx_failing_allocator);
	err = wg_indexer_new(&ix, &o);
	while (!err && pos < pack->len) {
		size_t n = chunk && chunk < pack->len - pos ? chunk : pack->len - pos;
		err = wg_indexer_feed(ix, pack->data + pos, n);
		pos += n;
	}
	if (!err)
		err = wg_indexer_finish(ix, hash);
	if (inject)
		wg_allocator_set(NULL);
	if (!err && out) {
		struct wg_buf path = WG_BUF_INIT;
		const char *idx = wg_indexer_idx_path(ix);
		uint32_t k;
		read_file(wg_indexer_pack_path(ix), &out->pack);
		read_file(idx, &out->idx);
		CHECK(out->idx.len == wg_indexer_idx_data(ix)->len &&
		      !memcmp(out->idx.data, wg_indexer_idx_data(ix)->data, out->idx.len));
		CHECK_OK(wg_buf_add(&path, idx, strlen(idx) - 4));
		CHECK_OK(wg_buf_adds(&path, ".rev"));
		read_file(wg_buf_cstr(&path), &out->rev);
		wg_buf_release(&path);
		char **all = NULL;
		size_t n = 0;
		unsigned k2;
		for (k2 = 0; k2 < WG_INDEXER_THREADS_MAX; k2++) {
			/* only the workers there were */
			CHECK(k2 < (threads ? threads : WG_INDEXER_THREADS_MAX) || !s->w[k2].n);
			if (!s->w[k2].n)
				continue;
			all = realloc(all, (n + s->w[k2].n) * sizeof(*all));
			memcpy(all + n, s->w[k2].lines, s->w[k2].n * sizeof(*all));
			n += s->w[k2].n;
		}
		if (n)
			qsort(all, n, sizeof(*all), cmp_str);
		for (i = 0; i < n; i++)
			CHECK_OK(wg_buf_printf(&out->objects, "%s\n", all[i]));
		free(all);
		for (k = 0; k < wg_indexer_object_count(ix); k++) {
			struct wg_indexer_object obj;
			wg_indexer_object(ix, k, &obj);
			CHECK_OK(wg_buf_printf(&out->depths, "%u %d\n", obj.depth, (int)obj.type));
		}
	}
	for (unsigned k = 0; k < WG_INDEXER_THREADS_MAX; k++) {
		struct worker_seen *w = &s->w[k];
		for (i = 0; i < w->n; i++)
			free(w->lines[i]);
		free(w->lines);
		w->lines = NULL;
		w->n = w->cap = 0;
	}
	s->calls = 0;
	wg_indexer_free(ix);
	return err;
}

static bool same(const struct wg_buf *a, const struct wg_buf *b)
{
	return a->len == b->len && !memcmp(a->data, b->data, a->len);
}

/* ---- the same bytes at every thread count -------------------------------- */

static void test_same_outputs(void)
{
	static const unsigned counts[] = { 1, 2, 8, 0 };
	int a;
	for (a = WG_HASH_SHA1; a <= WG_HASH_SHA256; a++) {
		const struct wg_hash_algo *algo = wg_hash_algo_by_id((enum wg_hash_id)a);
		struct outcome ref = { 0 };
		struct pb p;
		size_t i;

		build_pack(&p, algo, 24, 60, false, false);
		for (i = 0; i < sizeof(counts) / sizeof(*counts); i++) {
			/* Each count whole, in small pieces, and with a window so
			 * small every base is evicted and rebuilt. */
			static const size_t windows[] = { 0, 0, 1 };
			static const size_t chunks[] = { 0, 1000, 0 };
			size_t m;
			for (m = 0; m < 3; m++) {
				struct seen s = { 0 };
				struct outcome got = { 0 };
				const char *dir = wg_test_tmpdir("ix-threads");
				bool first = i == 0 && m == 0;
				CHECK_OK(run(algo, &p.buf, dir, counts[i], windows[m], chunks[m], &s,
					     first ? &ref : &got));
				CHECK(s.overlaps == 0);
				if (!first) {
					CHECK(same(&got.pack, &ref.pack));
					CHECK(same(&got.idx, &ref.idx));
					CHECK(same(&got.rev, &ref.rev));
					CHECK(same(&got.objects, &ref.objects));
					CHECK(same(&got.depths, &ref.depths));
				}
				outcome_release(&got);
				fx_rm_flat_dir(dir);
			}
		}
		/* The pack is what was fed, there is a .rev, and on_object saw
		 * the commit chain (60 versions, the first in pass 1). */
		CHECK(same(&ref.pack, &p.buf));
		CHECK(ref.rev.len > 0 && ref.idx.len > 0);
		CHECK(ref.objects.len > 0 && ref.objects.data[0]);
		{
			size_t lines = 0;
			for (i = 0; i < ref.objects.len; i++)
				lines += ref.objects.data[i] == '\n';
			CHECK(lines == 60);
		}
		outcome_release(&ref);
		wg_buf_release(&p.buf);
	}
}

/* ---- failures with threads on -------------------------------------------- */

static void expect_clean_failure(int err, const char *dir, int line)
{
	wg_test_checks++;
	if (!err || !*wg_error_message()) {
		wg_test_failures++;
		fprintf(stderr, "line %d: indexing succeeded or gave no message\n", line);
	}
	wg_test_checks++;
	if (fx_dir_entries(dir) != 0) {
		wg_test_failures++;
		fprintf(stderr, "line %d: files left behind in %s\n", line, dir);
	}
}

/* Allocation number k fails, for every k a run makes: an error with a
 * message each time and nothing left, or (an allocation the indexer can
 * do without: read windows) the same outputs; no leak (ASan). */
static void test_alloc_failures(void)
{
	const struct wg_hash_algo *algo = wg_hash_algo_by_id(WG_HASH_SHA1);
	struct outcome ref = { 0 };
	struct pb p;
	int failures = 0, messages = 0, left = 0, differ = 0, k, total;

	build_pack(&p, algo, 6, 14, false, false);
	{
		struct seen s = { 0 };
		const char *dir = wg_test_tmpdir("ix-threads-ref");
		fx_fail_at = -1;
		fx_alloc_count = 0;
		inject = true;
		CHECK_OK(run(algo, &p.buf, dir, 8, 0, 0, &s, &ref));
		inject = false;
		total = fx_alloc_count;
		fx_rm_flat_dir(dir);
	}
	/* The count varies a little with how the trees fall to the workers. */
	for (k = 0; k < total + 16; k++) {
		struct seen s = { 0 };
		struct outcome got = { 0 };
		const char *dir = wg_test_tmpdir("ix-threads-oom");
		int err;
		fx_fail_at = k;
		fx_alloc_count = 0;
		inject = true;
		err = run(algo, &p.buf, dir, 8, k % 3 == 0 ? 1 : 0, 0, &s, &got);
		inject = false;
		if (err) {
			failures++;
			if (!*wg_error_message())
				messages++;
			if (fx_dir_entries(dir) != 0)
				left++;
		} else if (!same(&got.idx, &ref.idx) || !same(&got.rev, &ref.rev) ||
			   !same(&got.pack, &ref.pack)) {
			differ++;
		}
		outcome_release(&got);
		fx_rm_flat_dir(dir);
	}
	CHECK(total > 100);
	CHECK(failures > total / 2);  /* most allocations matter */
	CHECK(messages == 0);
	CHECK(left == 0);
	CHECK(differ == 0);
	outcome_release(&ref);
	wg_buf_release(&p.buf);
}

/* A cancel from the progress callback and an error from on_object while
 * the workers resolve: that error comes back, nothing is left. */
static void test_callback_failures(void)
{
	const struct wg_hash_algo *algo = wg_hash_algo_by_id(WG_HASH_SHA1);
	struct pb p;
	uint32_t at;

	build_pack(&p, algo, 16, 30, false, false);
	for (at = 1; at <= 400; at += 37) {
		struct seen s = { 0 };
		const char *dir = wg_test_tmpdir("ix-threads-cancel");
		int err;
		s.cancel_at = at;
		err = run(algo, &p.buf, dir, 8, 0, 0, &s, NULL);
		CHECK(err == WG_ERROR);
		CHECK(strstr(wg_error_message(), "cancelled") != NULL);
		CHECK(s.overlaps == 0);
		expect_clean_failure(err, dir, __LINE__);
		fx_rm_flat_dir(dir);
	}
	for (at = 2; at <= 30; at += 7) {
		struct seen s = { 0 };
		const char *dir = wg_test_tmpdir("ix-threads-object");
		int err;
		s.fail_object_at = at;
		err = run(algo, &p.buf, dir, 8, 0, 0, &s, NULL);
		CHECK(err == WG_EFSCK);
		CHECK(strstr(wg_error_message(), "on_object stops here") != NULL);
		expect_clean_failure(err, dir, __LINE__);
		fx_rm_flat_dir(dir);
	}
	wg_buf_release(&p.buf);
}

/* A pack whose delta cannot apply (its declared base size is wrong), in
 * the middle of one tree of many: the same error at every count. */
static void test_bad_delta(void)
{
	const struct wg_hash_algo *algo = wg_hash_algo_by_id(WG_HASH_SHA1);
	static const unsigned counts[] = { 1, 2, 8 };
	struct pb p, bad;
	size_t i;

	build_pack(&p, algo, 12, 20, false, false);
	/* The same entries and one more: a delta on the first base that
	 * claims a base of the wrong size. */
	pb_init(&bad, algo);
	CHECK_OK(wg_buf_add(&bad.buf, p.buf.data + WG_PACK_HEADER_SIZE,
			    p.buf.len - WG_PACK_HEADER_SIZE - algo->rawsz));
	bad.count = wg_get_be32(p.buf.data + 8);
	{
		/* base size 1 (the base is larger), result 1, one insert */
		static const unsigned char d[] = { 0x01, 0x01, 0x01, 'x' };
		pb_entry(&bad, WG_OBJ_OFS_DELTA, NULL, WG_PACK_HEADER_SIZE, d, sizeof(d));
	}
	pb_finish(&bad);
	for (i = 0; i < sizeof(counts) / sizeof(*counts); i++) {
		struct seen s = { 0 };
		const char *dir = wg_test_tmpdir("ix-threads-bad");
		int err = run(algo, &bad.buf, dir, counts[i], 0, 0, &s, NULL);
		CHECK(err == WG_ECORRUPT);
		CHECK(strstr(wg_error_message(), "cannot apply its delta") != NULL);
		expect_clean_failure(err, dir, __LINE__);
		fx_rm_flat_dir(dir);
	}
	wg_buf_release(&p.buf);
	wg_buf_release(&bad.buf);
}

/* fsck runs on the workers, its report callback one call at a time: the
 * valid pack passes at every count with the same outputs, and a delta
 * whose result is no commit fails it at every count. */
static void fsck_report(void *payload, const struct wg_oid *oid, enum wg_object_type type,
			enum wg_fsck_msg_id id, enum wg_fsck_severity severity, const char *message)
{
	struct seen *s = payload;
	(void)oid, (void)type, (void)id, (void)severity, (void)message;
	if (s->in_callback++)
		s->overlaps++;
	s->calls++;
	s->in_callback--;
}

static void test_fsck_in_workers(void)
{
	const struct wg_hash_algo *algo = wg_hash_algo_by_id(WG_HASH_SHA1);
	static const unsigned counts[] = { 1, 2, 8 };
	struct wg_fsck_options opts = WG_FSCK_OPTIONS_INIT;
	struct outcome ref = { 0 };
	struct seen reports = { 0 };
	struct pb p, bad;
	size_t i;

	opts.report = fsck_report;
	opts.payload = &reports;
	fsck = &opts;
	build_pack(&p, algo, 8, 40, false, false);
	build_pack(&bad, algo, 8, 40, false, true);
	for (i = 0; i < sizeof(counts) / sizeof(*counts); i++) {
		struct seen s = { 0 };
		struct outcome got = { 0 };
		const char *dir = wg_test_tmpdir("ix-threads-fsck");
		int err;
		CHECK_OK(run(algo, &p.buf, dir, counts[i], 0, 0, &s, i ? &got : &ref));
		if (i)
			CHECK(same(&got.idx, &ref.idx) && same(&got.rev, &ref.rev));
		outcome_release(&got);
		fx_rm_flat_dir(dir);
		dir = wg_test_tmpdir("ix-threads-fsck-bad");
		reports.calls = 0;
		err = run(algo, &bad.buf, dir, counts[i], 0, 0, &s, NULL);
		CHECK(err == WG_EFSCK);
		CHECK(reports.calls > 0 && reports.overlaps == 0);
		expect_clean_failure(err, dir, __LINE__);
		fx_rm_flat_dir(dir);
	}
	fsck = NULL;
	outcome_release(&ref);
	wg_buf_release(&p.buf);
	wg_buf_release(&bad.buf);
}

/* Two copies of one base are two roots that reach the same REF_DELTA:
 * the first worker to get there resolves it, the other skips it; the
 * pack is then refused for the duplicate, whatever the count. */
static void test_duplicate_base(void)
{
	const struct wg_hash_algo *algo = wg_hash_algo_by_id(WG_HASH_SHA1);
	static const unsigned counts[] = { 1, 2, 8 };
	struct pb p;
	size_t i;

	build_pack(&p, algo, 12, 20, true, false);
	for (i = 0; i < sizeof(counts) / sizeof(*counts); i++) {
		struct seen s = { 0 };
		const char *dir = wg_test_tmpdir("ix-threads-dup");
		int err = run(algo, &p.buf, dir, counts[i], 0, 0, &s, NULL);
		CHECK(err == WG_ECORRUPT);
		CHECK(strstr(wg_error_message(), "twice") != NULL);
		expect_clean_failure(err, dir, __LINE__);
		fx_rm_flat_dir(dir);
	}
	wg_buf_release(&p.buf);
}

WG_TEST_MAIN("pack_threads",
	WG_TEST(test_same_outputs),
	WG_TEST(test_alloc_failures),
	WG_TEST(test_callback_failures),
	WG_TEST(test_bad_delta),
	WG_TEST(test_duplicate_base),
	WG_TEST(test_fsck_in_workers))
