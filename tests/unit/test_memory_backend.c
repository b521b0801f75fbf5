/* The in-memory object backend (odb/memory_backend.h): what it holds is
 * read through an odb by id like loose objects, in both formats, behind
 * the other backends; the odb never writes into it; an object added twice
 * is held once; and an allocation that fails at any point leaves it
 * whole (what it held before is still there, the failed object is not). */
#include "test.h"
#include "fixtures.h"

#include "odb/loose.h"
#include "odb/memory_backend.h"
#include "odb/odb.h"
#include "util/buf.h"

static void test_read_through_odb(void)
{
	for (int a = WG_HASH_SHA1; a <= WG_HASH_SHA256; a++) {
		const struct wg_hash_algo *algo = wg_hash_algo_by_id(a);
		struct wg_odb *odb = NULL;
		struct wg_odb_backend *loose = NULL;
		struct wg_memory_backend *mem = NULL;
		struct wg_buf out = WG_BUF_INIT;
		struct wg_oid held, again, written, empty;
		enum wg_object_type type;
		size_t size;

		CHECK_OK(wg_odb_new(&odb, algo));
		CHECK_OK(wg_odb_loose_new(&loose, wg_test_tmpdir("memory-backend"), algo, NULL));
		CHECK_OK(wg_odb_add_backend(odb, loose, 0));
		CHECK_OK(wg_memory_backend_new(&mem, algo));
		CHECK_OK(wg_odb_add_backend(odb, wg_memory_backend_base(mem), -1));
		CHECK_OK(wg_memory_backend_add(mem, WG_OBJ_BLOB, "hello world\n", 12, &held));
		if (a == WG_HASH_SHA1)
			CHECK_STR(wg_oid_hex(&held), "3b18e512dba79e4c8300dd08aeb37f8e728b8dad");
		CHECK(wg_odb_exists(odb, &held) == 1);
		CHECK_OK(wg_odb_read(odb, &held, &type, &out));
		CHECK(type == WG_OBJ_BLOB && out.len == 12 && !memcmp(out.data, "hello world\n", 12));
		CHECK_OK(wg_odb_read_header(odb, &held, &type, &size));
		CHECK(type == WG_OBJ_BLOB && size == 12);
		/* held once */
		CHECK_OK(wg_memory_backend_add(mem, WG_OBJ_BLOB, "hello world\n", 12, &again));
		CHECK(wg_oid_equal(&held, &again));
		CHECK(wg_memory_backend_count(mem) == 1 && wg_memory_backend_bytes(mem) == 12);
		/* the same bytes as another type are another object */
		CHECK_OK(wg_memory_backend_add(mem, WG_OBJ_TREE, "", 0, &again));
		wg_oid_empty_tree(&empty, algo);
		CHECK(wg_oid_equal(&again, &empty));
		CHECK_OK(wg_odb_read(odb, &again, &type, &out));
		CHECK(type == WG_OBJ_TREE && out.len == 0);
		/* writes go to the loose backend, never here */
		CHECK_OK(wg_odb_write(odb, WG_OBJ_BLOB, "written\n", 8, &written));
		CHECK(wg_memory_backend_count(mem) == 2);
		CHECK_OK(wg_odb_read(odb, &written, &type, &out));
		CHECK(out.len == 8);
		/* what it does not hold is absent */
		wg_oid_null(&again, algo);
		CHECK(wg_odb_exists(odb, &again) == 0);
		CHECK(wg_odb_read(odb, &again, &type, &out) == WG_ENOTFOUND);
		wg_buf_release(&out);
		wg_odb_free(odb);
	}
}

static void test_many_objects(void)
{
	const struct wg_hash_algo *algo = wg_hash_algo_by_id(WG_HASH_SHA256);
	struct wg_memory_backend *mem = NULL;
	struct wg_odb_backend *base;
	struct wg_oid ids[300];
	struct wg_buf out = WG_BUF_INIT;
	enum wg_object_type type;
	char text[32];

	CHECK_OK(wg_memory_backend_new(&mem, algo));
	base = wg_memory_backend_base(mem);
	for (int i = 0; i < 300; i++) {
		int n = snprintf(text, sizeof(text), "object %d\n", i);
		CHECK_OK(wg_memory_backend_add(mem, WG_OBJ_BLOB, text, (size_t)n, &ids[i]));
	}
	CHECK(wg_memory_backend_count(mem) == 300);
	for (int i = 0; i < 300; i++) {
		int n = snprintf(text, sizeof(text), "object %d\n", i);
		CHECK_OK(base->read(base, &ids[i], &type, &out));
		CHECK(out.len == (size_t)n && !memcmp(out.data, text, (size_t)n));
	}
	wg_buf_release(&out);
	base->free(base);
}

static void test_out_of_memory(void)
{
	const struct wg_hash_algo *algo = wg_hash_algo_by_id(WG_HASH_SHA1);
	struct wg_buf out = WG_BUF_INIT;
	enum wg_object_type type;
	bool done = false;

	for (fx_fail_at = 0; !done; fx_fail_at++) {
		struct wg_memory_backend *mem = NULL;
		struct wg_oid first, next;
		int err = 0;
		char text[32];

		fx_alloc_count = 0;
		wg_allocator_set(&fx_failing_allocator);
		if (!(err = wg_memory_backend_new(&mem, algo)))
			err = wg_memory_backend_add(mem, WG_OBJ_BLOB, "first\n", 6, &first);
		for (int i = 0; !err && i < 20; i++) {
			int n = snprintf(text, sizeof(text), "object %d\n", i);
			err = wg_memory_backend_add(mem, WG_OBJ_BLOB, text, (size_t)n, &next);
			if (err) {
				/* the failed one is not there, the rest is */
				wg_allocator_set(NULL);
				CHECK(err == WG_ENOMEM);
				CHECK(wg_memory_backend_base(mem)->exists(wg_memory_backend_base(mem), &next) == 0);
				CHECK(wg_memory_backend_count(mem) == (size_t)i + 1);
			}
		}
		wg_allocator_set(NULL);
		if (mem) {
			struct wg_odb_backend *base = wg_memory_backend_base(mem);
			if (wg_memory_backend_count(mem)) {
				CHECK_OK(base->read(base, &first, &type, &out));
				CHECK(out.len == 6 && !memcmp(out.data, "first\n", 6));
			}
			base->free(base);
		}
		done = !err;
	}
	wg_buf_release(&out);
}

WG_TEST_MAIN("memory_backend",
	WG_TEST(test_read_through_odb),
	WG_TEST(test_many_objects),
	WG_TEST(test_out_of_memory))
