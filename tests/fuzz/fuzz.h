/* Helpers the libFuzzer targets share (tests/fuzz/fuzz_*.c).
 *
 * Streaming parsers are fed the input in chunks whose boundaries are
 * derived from the input itself (a hash of it seeds a small generator), so
 * every mutation also changes where the splits fall: whole, byte by byte,
 * or pieces of random sizes. Each chunk is a private malloc'd copy freed
 * right after the call that consumed it, so AddressSanitizer catches a
 * parser that keeps a pointer into an earlier chunk. */
#ifndef WG_FUZZ_FUZZ_H
#define WG_FUZZ_FUZZ_H

/* nftw() (include this header first) */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif

#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash/hash.h"
#include "object/fsck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A target's own invariant failed: crash so libFuzzer reports it. */
#define FUZZ_ASSERT(cond) do { if (!(cond)) __builtin_trap(); } while (0)

static inline uint64_t fz_hash(const uint8_t *data, size_t size)
{
	uint64_t h = 0xcbf29ce484222325ull;   /* FNV-1a */
	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 0x100000001b3ull;
	return h;
}

struct fz_chunks {
	const uint8_t *data;
	size_t size, pos;
	uint64_t state;
	int mode;          /* 0 whole, 1 bytewise, 2 random small, 3 random large */
	uint8_t *last;     /* the previous chunk, freed on the next call */
};

static inline void fz_chunks_init(struct fz_chunks *c, const uint8_t *data, size_t size,
				  uint64_t seed)
{
	c->data = data;
	c->size = size;
	c->pos = 0;
	c->state = seed | 1;
	c->mode = (int)(seed % 4);
	c->last = NULL;
}

static inline uint64_t fz_rand(uint64_t *state)
{
	uint64_t x = *state;   /* xorshift64 */
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

/* The next chunk (a fresh copy, valid until the next call), or NULL at the
 * end. An empty chunk is never returned. */
static inline const uint8_t *fz_chunks_next(struct fz_chunks *c, size_t *n)
{
	size_t left = c->size - c->pos, want;
	free(c->last);
	c->last = NULL;
	if (!left)
		return NULL;
	switch (c->mode) {
	case 0: want = left; break;
	case 1: want = 1; break;
	case 2: want = 1 + (size_t)(fz_rand(&c->state) % 16); break;
	default: want = 1 + (size_t)(fz_rand(&c->state) % 4096); break;
	}
	if (want > left)
		want = left;
	c->last = malloc(want);
	memcpy(c->last, c->data + c->pos, want);
	c->pos += want;
	*n = want;
	return c->last;
}

static inline void fz_chunks_release(struct fz_chunks *c)
{
	free(c->last);
	c->last = NULL;
}

/* The first occurrence of needle in hay, or NULL (memmem is a GNU
 * extension). */
static inline const uint8_t *fz_find(const uint8_t *hay, size_t hlen, const void *needle,
				     size_t nlen)
{
	if (nlen == 0)
		return hay;
	for (size_t i = 0; i + nlen <= hlen; i++)
		if (hay[i] == *(const uint8_t *)needle && !memcmp(hay + i, needle, nlen))
			return hay + i;
	return NULL;
}

/* A private copy of exactly `size` bytes, so that AddressSanitizer sees a
 * read past the end (libFuzzer's own buffer may be larger). */
static inline uint8_t *fz_dup(const uint8_t *data, size_t size)
{
	uint8_t *p = malloc(size ? size : 1);
	memcpy(p, data, size);
	return p;
}

/* A NUL-terminated copy of the input (for parsers of C strings). */
static inline char *fz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Hex ids are read in either case but written in lower case: the one
 * documented difference of an object's parse/serialize round trip. */
static inline int fz_same_but_case(const uint8_t *a, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t x = a[i], y = b[i];
		if (x >= 'A' && x <= 'F')
			x = (uint8_t)(x - 'A' + 'a');
		if (y >= 'A' && y <= 'F')
			y = (uint8_t)(y - 'A' + 'a');
		if (x != y)
			return 0;
	}
	return 1;
}

/* The fsck report callback of the object targets: what every report must
 * hold (a known id, a message). */
static inline void fz_fsck_report(void *payload, const struct wg_oid *oid,
				  enum wg_object_type type, enum wg_fsck_msg_id id,
				  enum wg_fsck_severity severity, const char *message)
{
	(void)payload; (void)oid; (void)type; (void)severity;
	FUZZ_ASSERT(id >= 0 && id < WG_FSCK_MSG_COUNT);
	FUZZ_ASSERT(message && strlen(message) > 0);
}

static inline const struct wg_hash_algo *fz_algo(int sha256)
{
	return wg_hash_algo_by_id(sha256 ? WG_HASH_SHA256 : WG_HASH_SHA1);
}

/* A private temporary directory for targets that need files: made once
 * per process (in /dev/shm when it exists, to spare the disk) and removed
 * at exit. */
static char fz_tmp_path[256];

static inline int fz_rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	return remove(path);
}

static inline void fz_tmp_cleanup(void)
{
	if (fz_tmp_path[0])
		nftw(fz_tmp_path, fz_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static inline const char *fz_tmpdir(void)
{
	if (!fz_tmp_path[0]) {
		struct stat st;
		const char *base = getenv("TMPDIR");
		if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0)
			base = "/dev/shm";
		snprintf(fz_tmp_path, sizeof(fz_tmp_path), "%s/wg-fuzz-XXXXXX",
			 base && *base ? base : "/tmp");
		if (!mkdtemp(fz_tmp_path))
			abort();
		atexit(fz_tmp_cleanup);
	}
	return fz_tmp_path;
}

/* Write a whole file (abort on failure: the target cannot go on). */
static inline void fz_write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f))
		abort();
}

#endif
