/* Unit tests for the reftable library: records, blocks, writer, reader,
 * merged views and the stack, in memory and on a temporary directory. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reftable/reftable.h"
#include "test.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/endian.h"
#include "util/fs.h"

static const struct wg_hash_algo *sha1(void)
{
	return wg_hash_algo_by_id(WG_HASH_SHA1);
}

static const struct wg_hash_algo *sha256(void)
{
	return wg_hash_algo_by_id(WG_HASH_SHA256);
}

static void make_oid(struct wg_oid *out, const struct wg_hash_algo *algo, uint64_t n)
{
	unsigned char raw[WG_MAX_RAWSZ];
	char seed[32];

	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)n);
	wg_hash_buffer(algo, seed, strlen(seed), raw);
	wg_oid_from_raw(out, algo, raw);
}

struct built {
	struct wg_buf buf;
	struct wg_reftable_table *t;
};

static int open_buf(struct wg_reftable_table **t, const struct wg_buf *buf, const char *name)
{
	struct wg_reftable_source *src;
	int err = wg_reftable_source_from_memory(&src, buf->data, buf->len);

	if (err)
		return err;
	return wg_reftable_table_open(t, src, name);
}

static char *refname_of(char *out, size_t cap, unsigned i)
{
	snprintf(out, cap, "refs/heads/branch/%06u", i);
	return out;
}

/* Writes n refs "refs/heads/branch/%06u" (every 7th annotated, every 11th
 * a symref) into a table. */
static void build_refs(struct wg_buf *buf, const struct wg_reftable_write_options *opts,
		       unsigned n)
{
	struct wg_reftable_writer *w;
	const struct wg_hash_algo *algo = opts && opts->algo ? opts->algo : sha1();
	char name[64];

	wg_buf_reset(buf);
	CHECK_OK(wg_reftable_writer_new(&w, opts, wg_reftable_write_to_buf, buf));
	CHECK_OK(wg_reftable_writer_set_limits(w, 1, 1));
	for (unsigned i = 0; i < n; i++) {
		struct wg_reftable_ref ref = { 0 };
		ref.refname = refname_of(name, sizeof(name), i);
		ref.update_index = 1;
		if (i % 11 == 10) {
			ref.type = WG_REFTABLE_REF_SYMREF;
			ref.target = "refs/heads/main";
		} else {
			ref.type = i % 7 == 6 ? WG_REFTABLE_REF_VAL2 : WG_REFTABLE_REF_VAL1;
			make_oid(&ref.value, algo, i);
			make_oid(&ref.peeled, algo, i + 1000000);
		}
		if (wg_reftable_writer_add_ref(w, &ref)) {
			CHECK_OK(-1);
			break;
		}
	}
	CHECK_OK(wg_reftable_writer_finish(w));
	wg_reftable_writer_free(w);
}

static void check_ref_i(const struct wg_reftable_ref *ref, const struct wg_hash_algo *algo,
			unsigned i)
{
	char name[64];
	struct wg_oid oid;

	CHECK_STR(ref->refname, refname_of(name, sizeof(name), i));
	if (i % 11 == 10) {
		CHECK(ref->type == WG_REFTABLE_REF_SYMREF);
		CHECK_STR(ref->target, "refs/heads/main");
		return;
	}
	CHECK(ref->type == (i % 7 == 6 ? WG_REFTABLE_REF_VAL2 : WG_REFTABLE_REF_VAL1));
	make_oid(&oid, algo, i);
	CHECK(wg_oid_equal(&ref->value, &oid));
	if (ref->type == WG_REFTABLE_REF_VAL2) {
		make_oid(&oid, algo, i + 1000000);
		CHECK(wg_oid_equal(&ref->peeled, &oid));
	}
}

/* --- records --------------------------------------------------------------------- */

static void roundtrip_records(const struct wg_hash_algo *algo)
{
	struct wg_reftable_write_options opts = WG_REFTABLE_WRITE_OPTIONS_INIT;
	struct wg_buf buf = WG_BUF_INIT;
	struct wg_reftable_writer *w;
	struct wg_reftable_table *t;
	struct wg_reftable_iter *it;
	struct wg_reftable_ref refs[4] = { { 0 } }, got = { 0 };
	struct wg_reftable_log logs[3] = { { 0 } }, glog = { 0 };
	size_t i;

	opts.algo = algo;
	refs[0].refname = "HEAD";
	refs[0].type = WG_REFTABLE_REF_SYMREF;
	refs[0].target = "refs/heads/main";
	refs[0].update_index = 5;
	refs[1].refname = "refs/heads/gone";
	refs[1].type = WG_REFTABLE_REF_DELETION;
	refs[1].update_index = 7;
	refs[2].refname = "refs/heads/main";
	refs[2].type = WG_REFTABLE_REF_VAL1;
	make_oid(&refs[2].value, algo, 1);
	refs[2].update_index = 6;
	refs[3].refname = "refs/tags/v1.0";
	refs[3].type = WG_REFTABLE_REF_VAL2;
	make_oid(&refs[3].value, algo, 2);
	make_oid(&refs[3].peeled, algo, 3);
	refs[3].update_index = 7;

	logs[0].refname = "refs/heads/main";
	logs[0].update_index = 7;
	logs[0].type = WG_REFTABLE_LOG_UPDATE;
	make_oid(&logs[0].old_id, algo, 1);
	make_oid(&logs[0].new_id, algo, 4);
	logs[0].name = "A U Thor";
	logs[0].email = "author@example.com";
	logs[0].time = 1700000000;
	logs[0].tz_offset = -480;
	logs[0].message = "commit: second\n\n";
	logs[1].refname = "refs/heads/main";
	logs[1].update_index = 6;
	logs[1].type = WG_REFTABLE_LOG_UPDATE;
	wg_oid_null(&logs[1].old_id, algo);
	make_oid(&logs[1].new_id, algo, 1);
	logs[1].name = "";
	logs[1].email = "";
	logs[1].time = 0;
	logs[1].tz_offset = 150;
	logs[1].message = NULL;
	logs[2].refname = "refs/heads/zz";
	logs[2].update_index = 3;
	logs[2].type = WG_REFTABLE_LOG_DELETION;

	CHECK_OK(wg_reftable_writer_new(&w, &opts, wg_reftable_write_to_buf, &buf));
	CHECK_OK(wg_reftable_writer_set_limits(w, 5, 7));
	for (i = 0; i < 4; i++)
		CHECK_OK(wg_reftable_writer_add_ref(w, &refs[i]));
	/* out of order, and a ref after logs, are refused */
	CHECK_ERR(wg_reftable_writer_add_ref(w, &refs[0]), WG_EINVALID);
	for (i = 0; i < 3; i++)
		CHECK_OK(wg_reftable_writer_add_log(w, &logs[i]));
	CHECK_ERR(wg_reftable_writer_add_log(w, &logs[0]), WG_EINVALID);
	CHECK_ERR(wg_reftable_writer_add_ref(w, &refs[3]), WG_EINVALID);
	CHECK_OK(wg_reftable_writer_finish(w));
	wg_reftable_writer_free(w);

	CHECK_MEM(buf.data, "REFT", 4);
	CHECK(buf.data[4] == (algo == sha1() ? 1 : 2));
	CHECK_OK(open_buf(&t, &buf, "records"));
	CHECK(wg_reftable_table_algo(t) == algo);
	CHECK(wg_reftable_table_min_update_index(t) == 5);
	CHECK(wg_reftable_table_max_update_index(t) == 7);
	CHECK_OK(wg_reftable_table_verify(t));

	CHECK_OK(wg_reftable_table_iter_refs(&it, t, NULL));
	for (i = 0; i < 4; i++) {
		CHECK_OK(wg_reftable_iter_next_ref(&got, it));
		CHECK_STR(got.refname, refs[i].refname);
		CHECK(got.type == refs[i].type);
		CHECK(got.update_index == refs[i].update_index);
		if (got.type == WG_REFTABLE_REF_VAL1 || got.type == WG_REFTABLE_REF_VAL2)
			CHECK(wg_oid_equal(&got.value, &refs[i].value));
		if (got.type == WG_REFTABLE_REF_VAL2)
			CHECK(wg_oid_equal(&got.peeled, &refs[i].peeled));
		if (got.type == WG_REFTABLE_REF_SYMREF)
			CHECK_STR(got.target, refs[i].target);
	}
	CHECK_ERR(wg_reftable_iter_next_ref(&got, it), WG_ITEROVER);
	CHECK_ERR(wg_reftable_iter_next_log(&glog, it), WG_EINVALID);
	wg_reftable_iter_free(it);

	CHECK_OK(wg_reftable_table_iter_logs(&it, t, NULL));
	for (i = 0; i < 3; i++) {
		CHECK_OK(wg_reftable_iter_next_log(&glog, it));
		CHECK_STR(glog.refname, logs[i].refname);
		CHECK(glog.update_index == logs[i].update_index);
		CHECK(glog.type == logs[i].type);
		if (glog.type != WG_REFTABLE_LOG_UPDATE)
			continue;
		CHECK(wg_oid_equal(&glog.old_id, &logs[i].old_id));
		CHECK(wg_oid_equal(&glog.new_id, &logs[i].new_id));
		CHECK_STR(glog.name, logs[i].name);
		CHECK_STR(glog.email, logs[i].email);
		CHECK(glog.time == logs[i].time);
		CHECK(glog.tz_offset == logs[i].tz_offset);
	}
	CHECK_ERR(wg_reftable_iter_next_log(&glog, it), WG_ITEROVER);
	wg_reftable_iter_free(it);

	/* The message is normalised to one line ending in a newline, as git
	 * stores it; no message stays empty. */
	CHECK_OK(wg_reftable_table_iter_logs(&it, t, "refs/heads/main"));
	CHECK_OK(wg_reftable_iter_next_log(&glog, it));
	CHECK_STR(glog.message, "commit: second\n");
	CHECK_OK(wg_reftable_iter_next_log(&glog, it));
	CHECK_STR(glog.message, "");
	CHECK(glog.update_index == 6);
	CHECK_ERR(wg_reftable_iter_next_log(&glog, it), WG_ITEROVER);
	wg_reftable_iter_free(it);
	CHECK_OK(wg_reftable_table_iter_logs(&it, t, "refs/heads/mai"));
	CHECK_ERR(wg_reftable_iter_next_log(&glog, it), WG_ITEROVER);
	wg_reftable_iter_free(it);

	CHECK_OK(wg_reftable_table_read_ref(&got, t, "refs/tags/v1.0"));
	CHECK(got.type == WG_REFTABLE_REF_VAL2);
	CHECK_OK(wg_reftable_table_read_ref(&got, t, "refs/heads/gone"));
	CHECK(got.type == WG_REFTABLE_REF_DELETION);
	CHECK_ERR(wg_reftable_table_read_ref(&got, t, "refs/heads/mai"), WG_ENOTFOUND);
	CHECK_ERR(wg_reftable_table_read_ref(&got, t, "zzz"), WG_ENOTFOUND);
	CHECK_ERR(wg_reftable_table_read_ref(&got, t, ""), WG_ENOTFOUND);

	wg_reftable_ref_release(&got);
	wg_reftable_log_release(&glog);
	wg_reftable_table_free(t);
	wg_buf_release(&buf);
}

static void test_records_sha1(void)
{
	roundtrip_records(sha1());
}

static void test_records_sha256(void)
{
	roundtrip_records(sha256());
}

static void test_multiline_message_refused(void)
{
	struct wg_buf buf = WG_BUF_INIT;
	struct wg_reftable_writer *w;
	struct wg_reftable_log log = { 0 };

	CHECK_OK(wg_reftable_writer_new(&w, NULL, wg_reftable_write_to_buf, &buf));
	CHECK_OK(wg_reftable_writer_set_limits(w, 1, 1));
	log.refname = "refs/heads/x";
	log.update_index = 1;
	log.type = WG_REFTABLE_LOG_UPDATE;
	wg_oid_null(&log.old_id, sha1());
	wg_oid_null(&log.new_id, sha1());
	log.message = "two\nlines";
	CHECK_ERR(wg_reftable_writer_add_log(w, &log), WG_EINVALID);
	log.update_index = 2;
	CHECK_ERR(wg_reftable_writer_add_log(w, &log), WG_EINVALID);
	wg_reftable_writer_free(w);
	wg_buf_release(&buf);
}

/* --- tables of various sizes ---------------------------------------------------------- */

static void test_empty_table(void)
{
	const struct wg_hash_algo *algos[2] = { sha1(), sha256() };

	for (int a = 0; a < 2; a++) {
		struct wg_reftable_write_options opts = WG_REFTABLE_WRITE_OPTIONS_INIT;
		struct wg_buf buf = WG_BUF_INIT;
		struct wg_reftable_table *t;
		struct wg_reftable_iter *it;
		struct wg_reftable_ref ref = { 0 };
		struct wg_reftable_log log = { 0 };

		opts.algo = algos[a];
		build_refs(&buf, &opts, 0);
		CHECK(buf.len == (a ? 28u + 72u : 24u + 68u));
		CHECK_OK(open_buf(&t, &buf, "empty"));
		CHECK_OK(wg_reftable_table_verify(t));
		CHECK_OK(wg_reftable_table_iter_refs(&it, t, ""));
		CHECK_ERR(wg_reftable_iter_next_ref(&ref, it), WG_ITEROVER);
		wg_reftable_iter_free(it);
		CHECK_OK(wg_reftable_table_iter_logs(&it, t, NULL));
		CHECK_ERR(wg_reftable_iter_next_log(&log, it), WG_ITEROVER);
		wg_reftable_iter_free(it);
		CHECK_ERR(wg_reftable_table_read_ref(&ref, t, "HEAD"), WG_ENOTFOUND);
		wg_reftable_table_free(t);
		wg_buf_release(&buf);
	}
}

static void test_one_ref(void)
{
	struct wg_buf buf = WG_BUF_INIT;
	struct wg_reftable_table *t;
	struct wg_reftable_ref ref = { 0 };

	build_refs(&buf, NULL, 1);
	/* header + block header + record + restart + count + footer, no padding */
	CHECK(buf.len < 24 + 4 + 64 + 5 + 68);
	CHECK_OK(open_buf(&t, &buf, "one"));
	CHECK_OK(wg_reftable_table_read_ref(&ref, t, "refs/heads/branch/000000"));
	check_ref_i(&ref, sha1(), 0);
	wg_reftable_ref_release(&ref);
	wg_reftable_table_free(t);
	wg_buf_release(&buf);
}

/* So many refs at one object that its obj record (a list of block
 * positions) cannot fit a block: the writer falls back to the spec's
 * "count 0" form and readers find the refs by scanning. */
static void test_one_object_everywhere(void)
{
	struct wg_reftable_writer *w;
	struct wg_reftable_table *t;
	struct wg_reftable_iter *it;
	struct wg_reftable_ref ref = { 0 };
	struct wg_buf buf = WG_BUF_INIT;
	struct wg_oid same, other;
	char name[64];
	unsigned n = 0, i;
	int err;

	make_oid(&same, sha1(), 42);
	make_oid(&other, sha1(), 43);
	CHECK_OK(wg_reftable_writer_new(&w, NULL, wg_reftable_write_to_buf, &buf));
	CHECK_OK(wg_reftable_writer_set_limits(w, 1, 1));
	for (i = 0; i < 200000; i++) {
		struct wg_reftable_ref r = { 0 };
		r.refname = refname_of(name, sizeof(name), i);
		r.update_index = 1;
		r.type = WG_REFTABLE_REF_VAL1;
		r.value = i == 777 ? other : same;
		if (wg_reftable_writer_add_ref(w, &r)) {
			CHECK_OK(-1);
			break;
		}
	}
	CHECK_OK(wg_reftable_writer_finish(w));
	wg_reftable_writer_free(w);
	CHECK_OK(open_buf(&t, &buf, "one-object"));
	CHECK_OK(wg_reftable_table_verify(t));
	CHECK_OK(wg_reftable_table_iter_refs_for(&it, t, &same));
	while (!(err = wg_reftable_iter_next_ref(&ref, it)))
		n++;
	CHECK_ERR(err, WG_ITEROVER);
	CHECK(n == 199999);
	wg_reftable_iter_free(it);
	n = 0;
	CHECK_OK(wg_reftable_table_iter_refs_for(&it, t, &other));
	while (!(err = wg_reftable_iter_next_ref(&ref, it))) {
		CHECK_STR(ref.refname, refname_of(name, sizeof(name), 777));
		n++;
	}
	CHECK(n == 1);
	wg_reftable_iter_free(it);
	wg_reftable_ref_release(&ref);
	wg_reftable_table_free(t);
	wg_buf_release(&buf);
}

static void many_refs(const struct wg_hash_algo *algo, unsigned n, uint32_t block_size,
		      uint16_t restart_interval, bool unpadded)
{
	struct wg_reftable_write_options opts = WG_REFTABLE_WRITE_OPTIONS_INIT;
	struct wg_buf buf = WG_BUF_INIT;
	struct wg_reftable_table *t;
	struct wg_reftable_iter *it;
	struct wg_reftable_ref ref = { 0 };
	char name[64];
	unsigned i, count, fails = 0;

	opts.algo = algo;
	opts.block_size = block_size;
	opts.restart_interval = restart_interval;
	opts.unpadded = unpadded;
	build_refs(&buf, &opts, n);
	CHECK_OK(open_buf(&t, &buf, "many"));
	CHECK_OK(wg_reftable_table_verify(t));

	/* full scan in order */
	CHECK_OK(wg_reftable_table_iter_refs(&it, t, NULL));
	for (i = 0; !wg_reftable_iter_next_ref(&ref, it); i++)
		if (i < n && strcmp(ref.refname, refname_of(name, sizeof(name), i)))
			fails++;
	CHECK(i == n);
	CHECK(fails == 0);
	wg_reftable_iter_free(it);

	/* seek to each ref, and to names between refs */
	for (i = 0; i < n; i += (n > 20000 ? 7 : 1)) {
		int r = wg_reftable_table_read_ref(&ref, t, refname_of(name, sizeof(name), i));
		if (r || strcmp(ref.refname, name)) {
			fails++;
			continue;
		}
		check_ref_i(&ref, algo, i);
		strcat(name, "x");
		if (wg_reftable_table_read_ref(&ref, t, name) != WG_ENOTFOUND)
			fails++;
	}
	CHECK(fails == 0);
	CHECK_ERR(wg_reftable_table_read_ref(&ref, t, "refs/heads/branch/999999z"), WG_ENOTFOUND);
	CHECK_ERR(wg_reftable_table_read_ref(&ref, t, "a"), WG_ENOTFOUND);

	/* prefix iteration: refs/heads/branch/0001 holds 100 refs if n >= 200 */
	if (n >= 2000) {
		CHECK_OK(wg_reftable_table_iter_refs(&it, t, "refs/heads/branch/0012"));
		for (count = 0; !wg_reftable_iter_next_ref(&ref, it); count++)
			check_ref_i(&ref, algo, 1200 + count);
		CHECK(count == 100);
		wg_reftable_iter_free(it);
	}
	CHECK_OK(wg_reftable_table_iter_refs(&it, t, "refs/heads/branch/x"));
	CHECK_ERR(wg_reftable_iter_next_ref(&ref, it), WG_ITEROVER);
	wg_reftable_iter_free(it);

	/* refs by object id, through obj blocks when present */
	for (i = 0; i < n; i += n / 16 + 1) {
		struct wg_oid oid;
		if (i % 11 == 10)
			continue;
		make_oid(&oid, algo, i);
		CHECK_OK(wg_reftable_table_iter_refs_for(&it, t, &oid));
		CHECK_OK(wg_reftable_iter_next_ref(&ref, it));
		check_ref_i(&ref, algo, i);
		CHECK_ERR(wg_reftable_iter_next_ref(&ref, it), WG_ITEROVER);
		wg_reftable_iter_free(it);
		if (i % 7 == 6) {
			make_oid(&oid, algo, i + 1000000);
			CHECK_OK(wg_reftable_table_iter_refs_for(&it, t, &oid));
			CHECK_OK(wg_reftable_iter_next_ref(&ref, it));
			CHECK_ERR(wg_reftable_iter_next_ref(&ref, it), WG_ITEROVER);
			wg_reftable_iter_free(it);
		}
		make_oid(&oid, algo, i + 5000000);
		CHECK_OK(wg_reftable_table_iter_refs_for(&it, t, &oid));
		CHECK_ERR(wg_reftable_iter_next_ref(&ref, it), WG_ITEROVER);
		wg_reftable_iter_free(it);
	}
	wg_reftable_ref_release(&ref);
	wg_reftable_table_free(t);
	wg_buf_release(&buf);
}

static void test_small_tables(void)
{
	for (unsigned n = 1; n < 300; n += 37) {
		many_refs(sha1(), n, 0, 0, false);
		many_refs(sha1(), n, 256, 1, true);
		many_refs(sha256(), n, 256, 3, false);
	}
}

static void test_restart_intervals(void)
{
	/* tiny blocks force many blocks, multi-level indexes and restart
	 * tables of every shape */
	for (uint16_t ri = 1; ri <= 40; ri += 13) {
		many_refs(sha1(), 3000, 512, ri, false);
		many_refs(sha256(), 3000, 1024, ri, true);
	}
}

static void test_100k_refs(void)
{
	many_refs(sha1(), 100000, 0, 0, false);
	many_refs(sha256(), 100000, 4096, 64, false);
}

/* --- logs -------------------------------------------------------------------------------- */

static void test_many_logs(void)
{
	struct wg_reftable_write_options opts = WG_REFTABLE_WRITE_OPTIONS_INIT;
	struct wg_buf buf = WG_BUF_INIT;
	struct wg_reftable_writer *w;
	struct wg_reftable_table *t;
	struct wg_reftable_iter *it;
	struct wg_reftable_log log = { 0 };
	struct wg_reftable_ref ref = { 0 };
	char name[64], msg[64];
	unsigned i, j, count;

	opts.block_size = 1024;
	CHECK_OK(wg_reftable_writer_new(&w, &opts, wg_reftable_write_to_buf, &buf));
	CHECK_OK(wg_reftable_writer_set_limits(w, 1, 1000));
	/* some refs first, then logs: the log section follows unpadded */
	for (i = 0; i < 50; i++) {
		ref.refname = refname_of(name, sizeof(name), i);
		ref.type = WG_REFTABLE_REF_VAL1;
		ref.update_index = 1000;
		make_oid(&ref.value, sha1(), i);
		CHECK_OK(wg_reftable_writer_add_ref(w, &ref));
	}
	for (i = 0; i < 200; i++) {
		for (j = 0; j < 20; j++) {
			log.refname = refname_of(name, sizeof(name), i);
			log.update_index = 1000 - j;
			log.type = WG_REFTABLE_LOG_UPDATE;
			make_oid(&log.old_id, sha1(), j);
			make_oid(&log.new_id, sha1(), j + 1);
			log.name = "C O Mitter";
			log.email = "committer@example.com";
			log.time = 1700000000 + j;
			log.tz_offset = (int16_t)(j * 15);
			snprintf(msg, sizeof(msg), "update %u of %u", j, i);
			log.message = msg;
			CHECK_OK(wg_reftable_writer_add_log(w, &log));
		}
	}
	CHECK_OK(wg_reftable_writer_finish(w));
	wg_reftable_writer_free(w);
	memset(&log, 0, sizeof(log));
	memset(&ref, 0, sizeof(ref));

	CHECK_OK(open_buf(&t, &buf, "logs"));
	CHECK_OK(wg_reftable_table_verify(t));
	CHECK_OK(wg_reftable_table_iter_refs(&it, t, NULL));
	for (count = 0; !wg_reftable_iter_next_ref(&ref, it); count++)
		;
	CHECK(count == 50);
	wg_reftable_iter_free(it);
	for (i = 0; i < 200; i += 13) {
		CHECK_OK(wg_reftable_table_iter_logs(&it, t, refname_of(name, sizeof(name), i)));
		for (count = 0; !wg_reftable_iter_next_log(&log, it); count++) {
			CHECK(log.update_index == 1000 - count);
			snprintf(msg, sizeof(msg), "update %u of %u\n", count, i);
			CHECK_STR(log.message, msg);
			CHECK(log.tz_offset == (int16_t)(count * 15));
		}
		CHECK(count == 20);
		wg_reftable_iter_free(it);
	}
	CHECK_OK(wg_reftable_table_iter_logs(&it, t, NULL));
	for (count = 0; !wg_reftable_iter_next_log(&log, it); count++)
		;
	CHECK(count == 4000);
	wg_reftable_iter_free(it);
	wg_reftable_log_release(&log);
	wg_reftable_ref_release(&ref);
	wg_reftable_table_free(t);
	wg_buf_release(&buf);
}

static void test_log_only_table(void)
{
	struct wg_buf buf = WG_BUF_INIT;
	struct wg_reftable_writer *w;
	struct wg_reftable_table *t;
	struct wg_reftable_iter *it;
	struct wg_reftable_log log = { 0 };
	struct wg_reftable_ref ref = { 0 };

	CHECK_OK(wg_reftable_writer_new(&w, NULL, wg_reftable_write_to_buf, &buf));
	CHECK_OK(wg_reftable_writer_set_limits(w, 4, 4));
	log.refname = "refs/heads/main";
	log.update_index = 4;
	log.type = WG_REFTABLE_LOG_UPDATE;
	wg_oid_null(&log.old_id, sha1());
	make_oid(&log.new_id, sha1(), 9);
	log.message = "branch: Created";
	CHECK_OK(wg_reftable_writer_add_log(w, &log));
	CHECK_OK(wg_reftable_writer_finish(w));
	wg_reftable_writer_free(w);
	CHECK(buf.data[24] == 'g');
	memset(&log, 0, sizeof(log));
	CHECK_OK(open_buf(&t, &buf, "logonly"));
	CHECK_OK(wg_reftable_table_verify(t));
	CHECK_OK(wg_reftable_table_iter_refs(&it, t, NULL));
	CHECK_ERR(wg_reftable_iter_next_ref(&ref, it), WG_ITEROVER);
	wg_reftable_iter_free(it);
	CHECK_OK(wg_reftable_table_iter_logs(&it, t, "refs/heads/main"));
	CHECK_OK(wg_reftable_iter_next_log(&log, it));
	CHECK_STR(log.message, "branch: Created\n");
	CHECK_ERR(wg_reftable_iter_next_log(&log, it), WG_ITEROVER);
	wg_reftable_iter_free(it);
	wg_reftable_log_release(&log);
	wg_reftable_table_free(t);
	wg_buf_release(&buf);
}

/* --- merged views -------------------------------------------------------------------------- */

struct spec_ref {
	const char *name;
	int type;      /* -1: none */
	uint64_t val;
};

static void build_table(struct wg_buf *buf, uint64_t ui, const struct spec_ref *refs)
{
	struct wg_reftable_writer *w;

	wg_buf_reset(buf);
	CHECK_OK(wg_reftable_writer_new(&w, NULL, wg_reftable_write_to_buf, buf));
	CHECK_OK(wg_reftable_writer_set_limits(w, ui, ui));
	for (; refs->name; refs++) {
		struct wg_reftable_ref ref = { 0 };
		ref.refname = (char *)refs->name;
		ref.update_index = ui;
		ref.type = (enum wg_reftable_ref_type)refs->type;
		make_oid(&ref.value, sha1(), refs->val);
		CHECK_OK(wg_reftable_writer_add_ref(w, &ref));
	}
	{
		struct wg_reftable_log log = { 0 };
		log.refname = "refs/heads/a";
		log.update_index = ui;
		log.type = ui == 3 ? WG_REFTABLE_LOG_DELETION : WG_REFTABLE_LOG_UPDATE;
		/* table 3 deletes the log entry table 1 wrote */
		if (ui == 3)
			log.update_index = 1;
		wg_oid_null(&log.old_id, sha1());
		make_oid(&log.new_id, sha1(), ui);
		log.message = "m";
		CHECK_OK(wg_reftable_writer_add_log(w, &log));
	}
	CHECK_OK(wg_reftable_writer_finish(w));
	wg_reftable_writer_free(w);
}

static void test_merged(void)
{
	static const struct spec_ref t1[] = {
		{ "refs/heads/a", 1, 1 }, { "refs/heads/b", 1, 2 }, { "refs/heads/c", 1, 3 },
		{ "refs/tags/t", 1, 4 }, { NULL, 0, 0 } };
	static const struct spec_ref t2[] = {
		{ "refs/heads/b", 0, 0 }, { "refs/heads/c", 1, 30 }, { "refs/heads/d", 1, 40 },
		{ NULL, 0, 0 } };
	static const struct spec_ref t3[] = {
		{ "refs/heads/b", 1, 200 }, { "refs/heads/d", 0, 0 }, { NULL, 0, 0 } };
	struct wg_buf bufs[3] = { WG_BUF_INIT, WG_BUF_INIT, WG_BUF_INIT };
	struct wg_reftable_table *tabs[3];
	struct wg_reftable_merged *m;
	struct wg_reftable_iter *it;
	struct wg_reftable_ref ref = { 0 };
	struct wg_reftable_log log = { 0 };
	struct wg_oid oid;
	const char *want[] = { "refs/heads/a", "refs/heads/b", "refs/heads/c", "refs/tags/t" };
	uint64_t wantv[] = { 1, 200, 30, 4 };
	unsigned i;

	build_table(&bufs[0], 1, t1);
	build_table(&bufs[1], 2, t2);
	build_table(&bufs[2], 3, t3);
	for (i = 0; i < 3; i++)
		CHECK_OK(open_buf(&tabs[i], &bufs[i], "merged"));
	CHECK_OK(wg_reftable_merged_new(&m, tabs, 3));
	/* the view holds its own references */
	for (i = 0; i < 3; i++)
		wg_reftable_table_free(tabs[i]);

	CHECK_OK(wg_reftable_merged_iter_refs(&it, m, NULL));
	for (i = 0; !wg_reftable_iter_next_ref(&ref, it); i++) {
		CHECK(i < 4);
		if (i >= 4)
			break;
		CHECK_STR(ref.refname, want[i]);
		make_oid(&oid, sha1(), wantv[i]);
		CHECK(wg_oid_equal(&ref.value, &oid));
	}
	CHECK(i == 4);
	/* the iterator outlives the view */
	wg_reftable_merged_free(m);
	CHECK_ERR(wg_reftable_iter_next_ref(&ref, it), WG_ITEROVER);
	wg_reftable_iter_free(it);

	for (i = 0; i < 3; i++)
		CHECK_OK(open_buf(&tabs[i], &bufs[i], "merged"));
	CHECK_OK(wg_reftable_merged_new(&m, tabs, 3));
	for (i = 0; i < 3; i++)
		wg_reftable_table_free(tabs[i]);
	CHECK_ERR(wg_reftable_merged_read_ref(&ref, m, "refs/heads/d"), WG_ENOTFOUND);
	CHECK_OK(wg_reftable_merged_read_ref(&ref, m, "refs/heads/b"));
	CHECK(ref.update_index == 3);
	CHECK_OK(wg_reftable_merged_read_ref(&ref, m, "refs/tags/t"));
	CHECK(ref.update_index == 1);
	CHECK_OK(wg_reftable_merged_iter_refs(&it, m, "refs/tags/"));
	CHECK_OK(wg_reftable_iter_next_ref(&ref, it));
	CHECK_STR(ref.refname, "refs/tags/t");
	CHECK_ERR(wg_reftable_iter_next_ref(&ref, it), WG_ITEROVER);
	wg_reftable_iter_free(it);

	/* raw iteration keeps tombstones */
	CHECK_OK(wg_reftable_merged_iter_refs_raw(&it, m));
	for (i = 0; !wg_reftable_iter_next_ref(&ref, it); i++)
		;
	CHECK(i == 5);
	wg_reftable_iter_free(it);

	/* logs: entry 2 survives, entry 1 is deleted by table 3 */
	CHECK_OK(wg_reftable_merged_iter_logs(&it, m, "refs/heads/a"));
	CHECK_OK(wg_reftable_iter_next_log(&log, it));
	CHECK(log.update_index == 2);
	CHECK_ERR(wg_reftable_iter_next_log(&log, it), WG_ITEROVER);
	wg_reftable_iter_free(it);

	wg_reftable_ref_release(&ref);
	wg_reftable_log_release(&log);
	wg_reftable_merged_free(m);
	for (i = 0; i < 3; i++)
		wg_buf_release(&bufs[i]);
}

/* --- stack ---------------------------------------------------------------------------------------- */

struct add_arg {
	const char *name;
	int type;
	uint64_t val;
	bool with_log;
	const struct wg_hash_algo *algo;  /* NULL: SHA-1 */
};

static int add_one(struct wg_reftable_writer *w, void *payload)
{
	const struct add_arg *a = payload;
	const struct wg_hash_algo *algo = a->algo ? a->algo : sha1();
	struct wg_reftable_ref ref = { 0 };
	struct wg_reftable_log log = { 0 };
	int err;

	ref.refname = (char *)a->name;
	ref.type = (enum wg_reftable_ref_type)a->type;
	make_oid(&ref.value, algo, a->val);
	ref.update_index = wg_reftable_writer_min_update_index(w);
	if ((err = wg_reftable_writer_add_ref(w, &ref)))
		return err;
	if (a->with_log) {
		log.refname = (char *)a->name;
		log.update_index = ref.update_index;
		log.type = WG_REFTABLE_LOG_UPDATE;
		wg_oid_null(&log.old_id, algo);
		log.new_id = ref.value;
		log.name = "A U Thor";
		log.email = "author@example.com";
		log.time = 1700000000;
		log.message = "update";
		err = wg_reftable_writer_add_log(w, &log);
	}
	return err;
}

static int count_files(const char *dir, const char *suffix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t sl = strlen(suffix);
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l >= sl && !strcmp(de->d_name + l - sl, suffix))
			n++;
	}
	closedir(d);
	return n;
}

static void test_stack(void)
{
	const char *dir = wg_test_tmpdir("reftable-stack");
	struct wg_reftable_stack_options opts = WG_REFTABLE_STACK_OPTIONS_INIT;
	struct wg_reftable_stack *st, *st2;
	struct wg_reftable_ref ref = { 0 };
	struct wg_reftable_log log = { 0 };
	struct wg_reftable_iter *it;
	struct add_arg a = { "refs/heads/main", WG_REFTABLE_REF_VAL1, 1, true, NULL };
	char name[64];
	unsigned i, count;

	CHECK(dir != NULL);
	opts.disable_auto_compact = true;
	CHECK_OK(wg_reftable_stack_open(&st, dir, &opts));
	CHECK(wg_reftable_stack_next_update_index(st) == 1);
	CHECK_ERR(wg_reftable_merged_read_ref(&ref, wg_reftable_stack_merged(st), "HEAD"),
		  WG_ENOTFOUND);
	CHECK_OK(wg_reftable_stack_add(st, 0, add_one, &a));
	CHECK(wg_reftable_stack_next_update_index(st) == 2);
	for (i = 0; i < 10; i++) {
		struct add_arg b = { name, WG_REFTABLE_REF_VAL1, i + 10, true, NULL };
		refname_of(name, sizeof(name), i);
		CHECK_OK(wg_reftable_stack_add(st, 0, add_one, &b));
	}
	CHECK(wg_reftable_merged_count(wg_reftable_stack_merged(st)) == 11);
	CHECK(wg_reftable_stack_next_update_index(st) == 12);
	CHECK(count_files(dir, ".ref") == 11);

	/* a second stack sees the same; a stale one is refused */
	CHECK_OK(wg_reftable_stack_open(&st2, dir, &opts));
	{
		struct add_arg d = { "refs/heads/branch/000003", WG_REFTABLE_REF_DELETION, 0, false, NULL };
		CHECK_OK(wg_reftable_stack_add(st2, 0, add_one, &d));
		CHECK_ERR(wg_reftable_stack_add(st, 0, add_one, &a), WG_ELOCKED);
		CHECK(strstr(wg_error_message(), "outdated") != NULL);
		CHECK_OK(wg_reftable_stack_add(st, WG_REFTABLE_ADD_RELOAD, add_one, &a));
	}
	CHECK_ERR(wg_reftable_merged_read_ref(&ref, wg_reftable_stack_merged(st),
					      "refs/heads/branch/000003"), WG_ENOTFOUND);
	CHECK_OK(wg_reftable_merged_read_ref(&ref, wg_reftable_stack_merged(st),
					     "refs/heads/branch/000004"));

	/* a held lock refuses writers */
	{
		char lockpath[600];
		snprintf(lockpath, sizeof(lockpath), "%s/tables.list.lock", dir);
		CHECK_OK(wg_fs_write_new_file(lockpath, "", 0, 0666));
		CHECK_OK(wg_reftable_stack_reload(st));
		CHECK_ERR(wg_reftable_stack_add(st, 0, add_one, &a), WG_ELOCKED);
		CHECK_ERR(wg_reftable_stack_compact_all(st), WG_ELOCKED);
		unlink(lockpath);
	}

	/* full compaction: one table, tombstones gone, logs kept */
	CHECK_OK(wg_reftable_stack_compact_all(st));
	CHECK(wg_reftable_merged_count(wg_reftable_stack_merged(st)) == 1);
	CHECK(count_files(dir, ".ref") == 1);
	CHECK(count_files(dir, ".lock") == 0);
	CHECK(wg_reftable_stack_next_update_index(st) == 14);
	CHECK_OK(wg_reftable_merged_iter_refs_raw(&it, wg_reftable_stack_merged(st)));
	for (count = 0; !wg_reftable_iter_next_ref(&ref, it); count++)
		CHECK(ref.type != WG_REFTABLE_REF_DELETION);
	CHECK(count == 10);
	wg_reftable_iter_free(it);
	CHECK_OK(wg_reftable_merged_iter_logs(&it, wg_reftable_stack_merged(st), "refs/heads/main"));
	for (count = 0; !wg_reftable_iter_next_log(&log, it); count++)
		;
	CHECK(count == 2);
	wg_reftable_iter_free(it);

	/* st2 still reads its old snapshot: the files are gone but open */
	CHECK_OK(wg_reftable_merged_read_ref(&ref, wg_reftable_stack_merged(st2),
					     "refs/heads/branch/000004"));
	CHECK_OK(wg_reftable_stack_reload(st2));
	CHECK(wg_reftable_merged_count(wg_reftable_stack_merged(st2)) == 1);
	wg_reftable_stack_free(st2);

	/* tables.list naming a missing table */
	{
		char listpath[600];
		struct wg_buf list = WG_BUF_INIT;
		FILE *f;
		snprintf(listpath, sizeof(listpath), "%s/tables.list", dir);
		CHECK_OK(wg_fs_read_file(&list, listpath));
		f = fopen(listpath, "a");
		fputs("0x000000000099-0x000000000099-deadbeef.ref\n", f);
		fclose(f);
		CHECK_ERR(wg_reftable_stack_open(&st2, dir, &opts), WG_ECORRUPT);
		CHECK(strstr(wg_error_message(), "deadbeef") != NULL);
		CHECK_ERR(wg_reftable_stack_reload(st), WG_ECORRUPT);
		f = fopen(listpath, "w");
		fwrite(list.data, 1, list.len, f);
		fclose(f);
		CHECK_OK(wg_reftable_stack_reload(st));
		f = fopen(listpath, "a");
		fputs("../escape.ref\n", f);
		fclose(f);
		CHECK_ERR(wg_reftable_stack_reload(st), WG_ECORRUPT);
		f = fopen(listpath, "w");
		fwrite(list.data, 1, list.len, f);
		fclose(f);
		wg_buf_release(&list);
		CHECK_OK(wg_reftable_stack_reload(st));
	}
	wg_reftable_ref_release(&ref);
	wg_reftable_log_release(&log);
	wg_reftable_stack_free(st);
}

static void test_auto_compaction(void)
{
	const char *dir = wg_test_tmpdir("reftable-auto");
	struct wg_reftable_stack_options opts = WG_REFTABLE_STACK_OPTIONS_INIT;
	struct wg_reftable_stack *st;
	struct wg_reftable_ref ref = { 0 };
	struct wg_reftable_log log = { 0 };
	struct wg_reftable_iter *it;
	struct wg_oid oid;
	char name[64];
	unsigned i, count, max_tables = 0;

	opts.algo = sha256();
	CHECK_OK(wg_reftable_stack_open(&st, dir, &opts));
	for (i = 0; i < 256; i++) {
		struct add_arg b = { name, WG_REFTABLE_REF_VAL1, i, true, sha256() };
		size_t n;
		refname_of(name, sizeof(name), i % 50);
		CHECK_OK(wg_reftable_stack_add(st, 0, add_one, &b));
		n = wg_reftable_merged_count(wg_reftable_stack_merged(st));
		if (n > max_tables)
			max_tables = (unsigned)n;
	}
	/* geometric compaction keeps the stack logarithmic */
	CHECK(max_tables <= 10);
	CHECK(wg_reftable_stack_next_update_index(st) == 257);
	CHECK(count_files(dir, ".ref") ==
	      (int)wg_reftable_merged_count(wg_reftable_stack_merged(st)));
	CHECK(count_files(dir, "XXXXXX") == 0);
	/* table sizes form a geometric sequence again */
	for (i = 1; i < wg_reftable_merged_count(wg_reftable_stack_merged(st)); i++)
		CHECK(wg_reftable_table_size(wg_reftable_merged_table(wg_reftable_stack_merged(st), i - 1)) >=
		      wg_reftable_table_size(wg_reftable_merged_table(wg_reftable_stack_merged(st), i)));
	for (i = 0; i < 50; i++) {
		unsigned last = i + 50 * ((255 - i) / 50);
		CHECK_OK(wg_reftable_merged_read_ref(&ref, wg_reftable_stack_merged(st),
						     refname_of(name, sizeof(name), i)));
		make_oid(&oid, sha256(), last);
		CHECK(wg_oid_equal(&ref.value, &oid));
		CHECK(ref.update_index == last + 1);
	}
	CHECK_OK(wg_reftable_merged_iter_logs(&it, wg_reftable_stack_merged(st),
					      refname_of(name, sizeof(name), 7)));
	for (count = 0; !wg_reftable_iter_next_log(&log, it); count++)
		;
	CHECK(count == 5);
	wg_reftable_iter_free(it);
	CHECK_OK(wg_reftable_stack_compact_all(st));
	CHECK(wg_reftable_merged_count(wg_reftable_stack_merged(st)) == 1);
	CHECK(wg_reftable_stack_next_update_index(st) == 257);
	wg_reftable_ref_release(&ref);
	wg_reftable_log_release(&log);
	wg_reftable_stack_free(st);
}

/* --- corruption ------------------------------------------------------------------------------- */

static void build_sample(struct wg_buf *buf)
{
	struct wg_reftable_write_options opts = WG_REFTABLE_WRITE_OPTIONS_INIT;
	struct wg_reftable_writer *w;
	char name[64];

	opts.block_size = 256;
	wg_buf_reset(buf);
	CHECK_OK(wg_reftable_writer_new(&w, &opts, wg_reftable_write_to_buf, buf));
	CHECK_OK(wg_reftable_writer_set_limits(w, 1, 2));
	for (unsigned i = 0; i < 60; i++) {
		struct wg_reftable_ref ref = { 0 };
		ref.refname = refname_of(name, sizeof(name), i);
		ref.update_index = 2;
		ref.type = i % 5 ? WG_REFTABLE_REF_VAL1 : WG_REFTABLE_REF_VAL2;
		make_oid(&ref.value, sha1(), i);
		make_oid(&ref.peeled, sha1(), i + 100);
		CHECK_OK(wg_reftable_writer_add_ref(w, &ref));
	}
	for (unsigned i = 0; i < 30; i++) {
		struct wg_reftable_log log = { 0 };
		log.refname = refname_of(name, sizeof(name), i);
		log.update_index = 2;
		log.type = WG_REFTABLE_LOG_UPDATE;
		make_oid(&log.old_id, sha1(), i);
		make_oid(&log.new_id, sha1(), i + 1);
		log.name = "n";
		log.email = "e";
		log.message = "some reflog message";
		CHECK_OK(wg_reftable_writer_add_log(w, &log));
	}
	CHECK_OK(wg_reftable_writer_finish(w));
	wg_reftable_writer_free(w);
}

/* Open and read everything; returns the first error (0 if all worked). */
static int exercise(const unsigned char *data, size_t len)
{
	struct wg_buf copy = WG_BUF_INIT;
	struct wg_reftable_table *t;
	struct wg_reftable_iter *it;
	struct wg_reftable_ref ref = { 0 };
	struct wg_reftable_log log = { 0 };
	struct wg_oid oid;
	int err, r;

	/* an exact-size heap copy, so ASan sees any overread */
	wg_buf_add(&copy, data, len);
	{
		unsigned char *exact = wg_malloc(len ? len : 1);
		struct wg_reftable_source *src;
		memcpy(exact, copy.data, len);
		wg_buf_release(&copy);
		wg_reftable_source_from_memory(&src, exact, len);
		err = wg_reftable_table_open(&t, src, "damaged");
		if (err) {
			wg_free(exact);
			return err;
		}
		r = wg_reftable_table_verify(t);
		err = err ? err : r;
		r = wg_reftable_table_read_ref(&ref, t, "refs/heads/branch/000033");
		err = err ? err : r;
		if (!wg_reftable_table_iter_refs(&it, t, "refs/heads/branch/0000")) {
			while (!(r = wg_reftable_iter_next_ref(&ref, it)))
				;
			if (r != WG_ITEROVER)
				err = err ? err : r;
			wg_reftable_iter_free(it);
		}
		if (!wg_reftable_table_iter_logs(&it, t, "refs/heads/branch/000005")) {
			while (!(r = wg_reftable_iter_next_log(&log, it)))
				;
			if (r != WG_ITEROVER)
				err = err ? err : r;
			wg_reftable_iter_free(it);
		}
		make_oid(&oid, sha1(), 7);
		if (!(r = wg_reftable_table_iter_refs_for(&it, t, &oid)))
			wg_reftable_iter_free(it);
		else
			err = err ? err : r;
		wg_reftable_table_free(t);
		wg_free(exact);
	}
	wg_reftable_ref_release(&ref);
	wg_reftable_log_release(&log);
	return err;
}

static void test_corrupt_footer_header(void)
{
	struct wg_buf buf = WG_BUF_INIT;
	unsigned char *d;

	build_sample(&buf);
	CHECK_OK(exercise(buf.data, buf.len));
	d = buf.data;
	/* a flipped footer byte fails the CRC-32 */
	d[buf.len - 20] ^= 0x40;
	CHECK_ERR(exercise(d, buf.len), WG_ECORRUPT);
	CHECK(strstr(wg_error_message(), "CRC-32") != NULL);
	CHECK(strstr(wg_error_message(), "damaged") != NULL);
	d[buf.len - 20] ^= 0x40;
	d[0] = 'X';
	CHECK_ERR(exercise(d, buf.len), WG_ECORRUPT);
	CHECK(strstr(wg_error_message(), "magic") != NULL);
	d[0] = 'R';
	d[4] = 3;
	CHECK_ERR(exercise(d, buf.len), WG_ECORRUPT);
	CHECK(strstr(wg_error_message(), "version") != NULL);
	d[4] = 1;
	CHECK_OK(exercise(d, buf.len));
	wg_buf_release(&buf);
}

static void test_corrupt_truncated(void)
{
	struct wg_buf buf = WG_BUF_INIT;
	unsigned fails = 0;

	build_sample(&buf);
	/* every prefix of the table is refused, cleanly */
	for (size_t len = 0; len < buf.len; len++)
		if (exercise(buf.data, len) != WG_ECORRUPT)
			fails++;
	CHECK(fails == 0);
	wg_buf_release(&buf);
}

static void test_corrupt_blocks(void)
{
	struct wg_buf buf = WG_BUF_INIT;
	unsigned char *d;
	uint32_t blen, count;

	build_sample(&buf);
	d = buf.data;
	CHECK(d[24] == 'r');
	blen = wg_get_be24(d + 25);
	count = wg_get_be16(d + blen - 2);
	CHECK(count >= 1);

	/* a restart offset pointing outside the block */
	wg_put_be24(d + blen - 2 - 3 * count, 0xfffff0);
	CHECK_ERR(exercise(d, buf.len), WG_ECORRUPT);
	CHECK(strstr(wg_error_message(), "restart offset") != NULL);
	wg_put_be24(d + blen - 2 - 3 * count, 3);
	CHECK_ERR(exercise(d, buf.len), WG_ECORRUPT);
	build_sample(&buf);
	d = buf.data;

	/* a restart count larger than the block */
	wg_put_be16(d + blen - 2, 0xffff);
	CHECK_ERR(exercise(d, buf.len), WG_ECORRUPT);
	CHECK(strstr(wg_error_message(), "restart table") != NULL);
	build_sample(&buf);
	d = buf.data;

	/* a block length past the end of the file */
	wg_put_be24(d + 25, 0xfffff0);
	CHECK_ERR(exercise(d, buf.len), WG_ECORRUPT);
	CHECK(strstr(wg_error_message(), "past the end") != NULL);
	build_sample(&buf);
	d = buf.data;

	/* a block length too small to hold anything */
	wg_put_be24(d + 25, 30);
	CHECK_ERR(exercise(d, buf.len), WG_ECORRUPT);
	build_sample(&buf);
	d = buf.data;

	/* an unknown block type */
	d[24] = 'x';
	CHECK_ERR(exercise(d, buf.len), WG_ECORRUPT);
	wg_buf_release(&buf);
}

static void test_corrupt_every_byte(void)
{
	struct wg_buf buf = WG_BUF_INIT;
	static const unsigned char vals[] = { 0x00, 0xff, 0x80, 0x01 };
	unsigned errors = 0;

	build_sample(&buf);
	/* any damage anywhere: a clean error or a readable table, never a
	 * crash (this is the ASan/UBSan case) */
	for (size_t i = 0; i < buf.len; i++) {
		unsigned char orig = buf.data[i];
		for (size_t v = 0; v < sizeof(vals); v++) {
			if (vals[v] == orig)
				continue;
			buf.data[i] = vals[v];
			if (exercise(buf.data, buf.len))
				errors++;
		}
		buf.data[i] = orig;
	}
	CHECK(errors > 0);
	CHECK_OK(exercise(buf.data, buf.len));
	wg_buf_release(&buf);
}

WG_TEST_MAIN("reftable",
	     WG_TEST(test_records_sha1),
	     WG_TEST(test_records_sha256),
	     WG_TEST(test_multiline_message_refused),
	     WG_TEST(test_empty_table),
	     WG_TEST(test_one_ref),
	     WG_TEST(test_small_tables),
	     WG_TEST(test_restart_intervals),
	     WG_TEST(test_100k_refs),
	     WG_TEST(test_one_object_everywhere),
	     WG_TEST(test_many_logs),
	     WG_TEST(test_log_only_table),
	     WG_TEST(test_merged),
	     WG_TEST(test_stack),
	     WG_TEST(test_auto_compaction),
	     WG_TEST(test_corrupt_footer_header),
	     WG_TEST(test_corrupt_truncated),
	     WG_TEST(test_corrupt_blocks),
	     WG_TEST(test_corrupt_every_byte))
