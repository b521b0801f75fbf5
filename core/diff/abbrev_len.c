/* git's default abbreviation length (abbrev_len.h). */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diff/abbrev_len.h"
#include "hash/hash.h"
#include "repo/config.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/fs.h"

#define FALLBACK_ABBREV 7
#define IDX_V2_MAGIC "\377tOc"

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* the objects of one .idx: the last fanout entry */
static unsigned long idx_count(const char *path)
{
	unsigned char head[8], last[4];
	int64_t at;
	int fd = wg_fs_open(path, O_RDONLY, 0);
	unsigned long n = 0;
	if (fd < 0)
		return 0;
	if (!wg_fs_pread_all(fd, head, sizeof(head), 0)) {
		at = !memcmp(head, IDX_V2_MAGIC, 4) ? 8 : 0;
		if (!wg_fs_pread_all(fd, last, sizeof(last), at + 255 * 4))
			n = be32(last);
	}
	wg_fs_close(fd);
	return n;
}

static unsigned long packed_count(struct wg_repo *repo)
{
	struct wg_buf dir = WG_BUF_INIT, path = WG_BUF_INIT;
	unsigned long count = 0;
	const char *name;
	void *d;
	if (wg_fs_join(&dir, wg_repo_gitdir(repo), "objects/pack") ||
	    !(d = wg_fs_opendir(wg_buf_cstr(&dir)))) {
		wg_buf_release(&dir);
		return 0;
	}
	while ((name = wg_fs_readdir(d))) {
		size_t len = strlen(name);
		struct stat st;
		if (len < 5 || strncmp(name, "pack-", 5) || strcmp(name + len - 4, ".idx"))
			continue;
		/* a pack counts when its .pack is there, as git opens it */
		wg_buf_reset(&path);
		if (wg_fs_join(&path, wg_buf_cstr(&dir), name))
			continue;
		memcpy(path.data + path.len - 4, ".pac", 4);
		if (wg_buf_addch(&path, 'k') || wg_fs_stat(wg_buf_cstr(&path), &st))
			continue;
		wg_buf_setlen(&path, path.len - 5);
		if (wg_buf_adds(&path, ".idx"))
			continue;
		count += idx_count(wg_buf_cstr(&path));
	}
	wg_fs_closedir(d);
	wg_buf_release(&dir);
	wg_buf_release(&path);
	return count;
}

static int compute(struct wg_repo *repo)
{
	const char *v = NULL;
	int hexsz = (int)wg_repo_algo(repo)->hexsz;
	unsigned long count;
	int bits = 0, len;
	if (!wg_config_get_string(wg_repo_config(repo), "core.abbrev", &v) && v &&
	    strcmp(v, "auto")) {
		char *end;
		long n = strtol(v, &end, 10);
		wg_error_clear();
		if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "off"))
			return hexsz;
		if (*v && !*end && n > 0)
			return n < 4 ? 4 : n > hexsz ? hexsz : (int)n;
	}
	wg_error_clear();
	count = packed_count(repo);
	while (count >>= 1)
		bits++;
	len = (bits + 1 + 1) / 2;
	return len < FALLBACK_ABBREV ? FALLBACK_ABBREV : len;
}

int wg_default_abbrev_len(struct wg_repo *repo)
{
	int len = wg_repo_abbrev_len_memo(repo);

	if (!len) {
		len = compute(repo);
		wg_repo_set_abbrev_len_memo(repo, len);
	}
	return len;
}
