/* A file system that fails on purpose, for crash-safety tests.
 *
 * It wraps the current wg_fs_ops and numbers every call that changes
 * something on disk (an open that may create or write, write, pwrite,
 * fsync, ftruncate, chmod, close of a file opened for writing, rename,
 * link, unlink, mkdir, rmdir, mkstemp). The call numbered `fail_at` fails:
 * with EIO, with ENOSPC (a write first writes half of its bytes, as a disk
 * filling up does), or the process stops there with _exit(), as if killed.
 * Every other call goes through. fail_at = 0 only counts, so a test runs an
 * operation once to learn how many cut points it has, then once per cut
 * point (tests/interop/t20-crash-safety.sh, docs/crash-safety.md).
 *
 * The CLI installs it from WEBGIT_TEST_FS_FAULT (see wg_fs_fault_parse);
 * nothing else does. */
#ifndef WG_UTIL_FS_FAULT_H
#define WG_UTIL_FS_FAULT_H

#include <stdbool.h>

enum wg_fs_fault_action {
	WG_FS_FAULT_EIO,
	WG_FS_FAULT_ENOSPC,
	WG_FS_FAULT_EXIT,
};

struct wg_fs_fault {
	unsigned long fail_at;  /* 1-based; 0: fail nothing, only count */
	enum wg_fs_fault_action action;
	int exit_code;          /* for WG_FS_FAULT_EXIT */
	/* Called for every counted call before it runs (n is its number),
	 * e.g. to log where an operation's cut points are. May be NULL. */
	void (*trace)(unsigned long n, const char *op, const char *path, void *payload);
	void *payload;
};

/* "count", "<k>:eio", "<k>:enospc" or "<k>:exit"; exit_code is 86.
 * WG_EINVALID for anything else. */
int wg_fs_fault_parse(struct wg_fs_fault *out, const char *spec);

/* Wrap the current file system (wg_fs_set_ops) with the fault injector;
 * a second install replaces the first's settings and count. */
void wg_fs_fault_install(const struct wg_fs_fault *spec);
/* Put back the file system that was current before install. */
void wg_fs_fault_remove(void);
/* Calls counted since install. */
unsigned long wg_fs_fault_count(void);
/* Whether the call numbered fail_at has happened (and failed). */
bool wg_fs_fault_fired(void);

#endif
