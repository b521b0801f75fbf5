/* Lock files: git's create-exclusive / rename-to-commit protocol. */
#include "test.h"

#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/lockfile.h"

static char target[4096], lock[4200];

static const char *fresh_dir(const char *name)
{
	const char *dir = wg_test_tmpdir(name);
	if (dir) {
		snprintf(target, sizeof(target), "%s/file", dir);
		snprintf(lock, sizeof(lock), "%s.lock", target);
	}
	return dir;
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static bool file_is(const char *path, const char *expect, size_t len)
{
	unsigned char *data;
	FILE *f = fopen(path, "rb");
	size_t n;
	bool same;
	if (!f)
		return false;
	data = malloc(len + 2);
	n = data ? fread(data, 1, len + 1, f) : 0;
	fclose(f);
	same = data && n == len && !memcmp(data, expect, len);
	free(data);
	return same;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void cleanup(const char *dir)
{
	unlink(lock);
	unlink(target);
	rmdir(dir);
}

static void test_commit_creates_and_replaces(void)
{
	struct wg_lockfile lk = WG_LOCKFILE_INIT;
	const char *dir = fresh_dir("lock-commit");
	CHECK(dir != NULL);
	if (!dir)
		return;
	CHECK(wg_lockfile_lock_path(&lk) == NULL);
	CHECK_OK(wg_lockfile_acquire(&lk, target));
	CHECK_STR(wg_lockfile_lock_path(&lk), lock);
	CHECK(exists(lock));
	CHECK(!exists(target));
	CHECK_OK(wg_lockfile_write(&lk, "hello ", 6));
	CHECK_OK(wg_lockfile_write(&lk, "world\n", 6));
	CHECK_OK(wg_lockfile_write(&lk, NULL, 0));
	CHECK_OK(wg_lockfile_fsync(&lk));
	/* Readers see nothing until the commit. */
	CHECK(!exists(target));
	CHECK_OK(wg_lockfile_commit(&lk));
	CHECK(!exists(lock));
	CHECK(file_is(target, "hello world\n", 12));
	CHECK(wg_lockfile_lock_path(&lk) == NULL);
	/* Rolling back after a commit is harmless. */
	wg_lockfile_rollback(&lk);
	CHECK(file_is(target, "hello world\n", 12));

	/* A second round replaces the file as a whole. */
	CHECK_OK(wg_lockfile_acquire(&lk, target));
	CHECK_OK(wg_lockfile_write(&lk, "x", 1));
	CHECK(file_is(target, "hello world\n", 12));
	CHECK_OK(wg_lockfile_commit(&lk));
	CHECK(file_is(target, "x", 1));
	cleanup(dir);
}

static void test_rollback_leaves_target(void)
{
	struct wg_lockfile lk = WG_LOCKFILE_INIT;
	const char *dir = fresh_dir("lock-rollback");
	CHECK(dir != NULL);
	if (!dir)
		return;
	write_file(target, "old\n");
	CHECK_OK(wg_lockfile_acquire(&lk, target));
	CHECK_OK(wg_lockfile_write(&lk, "new\n", 4));
	wg_lockfile_rollback(&lk);
	CHECK(!exists(lock));
	CHECK(file_is(target, "old\n", 4));
	/* Twice, on a never-acquired lock, and on NULL: all no-ops. */
	wg_lockfile_rollback(&lk);
	{
		struct wg_lockfile never = WG_LOCKFILE_INIT;
		wg_lockfile_rollback(&never);
	}
	wg_lockfile_rollback(NULL);
	{
		/* All-zero memory (fd 0) must not close stdin. */
		struct wg_lockfile zero;
		bool stdin_open = fcntl(0, F_GETFD) != -1;
		memset(&zero, 0, sizeof(zero));
		wg_lockfile_rollback(&zero);
		CHECK(!stdin_open || fcntl(0, F_GETFD) != -1);
	}
	/* The lock can be taken again. */
	CHECK_OK(wg_lockfile_acquire(&lk, target));
	wg_lockfile_rollback(&lk);
	cleanup(dir);
}

static void test_held_lock(void)
{
	struct wg_lockfile a = WG_LOCKFILE_INIT, b = WG_LOCKFILE_INIT;
	const char *dir = fresh_dir("lock-held");
	CHECK(dir != NULL);
	if (!dir)
		return;
	CHECK_OK(wg_lockfile_acquire(&a, target));
	CHECK_ERR(wg_lockfile_acquire(&b, target), WG_ELOCKED);
	/* The message names the lock file, as git's does. */
	CHECK(strstr(wg_error_message(), lock) != NULL);
	CHECK(strstr(wg_error_message(), "File exists") != NULL);
	CHECK(wg_lockfile_lock_path(&b) == NULL);
	/* The loser's rollback must not remove the winner's lock. */
	wg_lockfile_rollback(&b);
	CHECK(exists(lock));
	CHECK_ERR(wg_lockfile_write(&b, "x", 1), WG_EINVALID);
	CHECK_ERR(wg_lockfile_commit(&b), WG_EINVALID);
	CHECK_OK(wg_lockfile_commit(&a));
	CHECK_OK(wg_lockfile_acquire(&b, target));
	wg_lockfile_rollback(&b);

	/* A lock left behind by a crashed process blocks too. */
	write_file(lock, "");
	CHECK_ERR(wg_lockfile_acquire(&a, target), WG_ELOCKED);
	CHECK(exists(lock));
	cleanup(dir);
}

static void test_errors(void)
{
	struct wg_lockfile lk = WG_LOCKFILE_INIT;
	const char *dir = fresh_dir("lock-errors");
	char path[4200];
	CHECK(dir != NULL);
	if (!dir)
		return;
	/* No such directory. */
	snprintf(path, sizeof(path), "%s/missing/file", dir);
	CHECK_ERR(wg_lockfile_acquire(&lk, path), WG_EIO);
	CHECK(strstr(wg_error_message(), "missing/file.lock") != NULL);
	CHECK(wg_lockfile_lock_path(&lk) == NULL);
	wg_lockfile_rollback(&lk);
	CHECK_ERR(wg_lockfile_acquire(&lk, ""), WG_EINVALID);
	CHECK_ERR(wg_lockfile_acquire(&lk, NULL), WG_EINVALID);
	CHECK_ERR(wg_lockfile_fsync(&lk), WG_EINVALID);

	/* The rename fails (the target is a non-empty directory): the lock
	 * goes away and the target stays. */
	CHECK(mkdir(target, 0777) == 0);
	snprintf(path, sizeof(path), "%s/inside", target);
	write_file(path, "keep");
	CHECK_OK(wg_lockfile_acquire(&lk, target));
	CHECK_OK(wg_lockfile_write(&lk, "data", 4));
	CHECK_ERR(wg_lockfile_commit(&lk), WG_EIO);
	CHECK(strstr(wg_error_message(), "could not rename") != NULL);
	CHECK(!exists(lock));
	CHECK(file_is(path, "keep", 4));
	CHECK(wg_lockfile_lock_path(&lk) == NULL);
	unlink(path);
	rmdir(target);
	cleanup(dir);
}

static void test_large_write(void)
{
	struct wg_lockfile lk = WG_LOCKFILE_INIT;
	const char *dir = fresh_dir("lock-large");
	size_t len = 3u << 20, i;
	char *data = malloc(len);
	CHECK(dir != NULL && data != NULL);
	if (!dir || !data) {
		free(data);
		return;
	}
	for (i = 0; i < len; i++)
		data[i] = (char)(i * 31 + 7);
	CHECK_OK(wg_lockfile_acquire(&lk, target));
	CHECK_OK(wg_lockfile_write(&lk, data, len));
	CHECK_OK(wg_lockfile_commit(&lk));
	CHECK(file_is(target, data, len));
	free(data);
	cleanup(dir);
}

WG_TEST_MAIN("lockfile",
	WG_TEST(test_commit_creates_and_replaces),
	WG_TEST(test_rollback_leaves_target),
	WG_TEST(test_held_lock),
	WG_TEST(test_errors),
	WG_TEST(test_large_write))
