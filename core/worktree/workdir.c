#include "worktree/workdir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hash/hash.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"

#define CHUNK 65536

/* A boolean setting, or `def` when it is not set. */
static int config_bool(struct wg_repo *repo, const char *key, bool def, bool *out)
{
	const char *v;
	int err = wg_repo_config_get(repo, key, &v);
	*out = def;
	if (err == WG_ENOTFOUND) {
		wg_error_clear();
		return 0;
	}
	return err ? err : wg_config_bool_value(key, v, out);
}

int wg_workdir_open(struct wg_workdir **out, struct wg_repo *repo,
		    const struct wg_workdir_options *opts)
{
	static const char *const names[3] = { "text", "eol", "crlf" };
	struct wg_attr_options ao = { 0 };
	struct wg_workdir *wd;
	const char *v;
	int err;

	*out = NULL;
	if ((err = wg_repo_require_workdir(repo)))
		return err;
	if (!(wd = wg_calloc(1, sizeof(*wd))))
		return wg_error_set(WG_ENOMEM, "out of memory");
	wd->repo = repo;
	wd->root = wg_repo_workdir(repo);
	wd->odb = wg_repo_odb(repo);
	wd->algo = wg_repo_algo(repo);
	wd->check_stat = true;
	if ((err = config_bool(repo, "core.filemode", true, &wd->filemode)) ||
	    (err = config_bool(repo, "core.symlinks", true, &wd->symlinks)) ||
	    (err = config_bool(repo, "core.trustctime", true, &wd->trustctime)))
		goto fail;
	if (!wg_repo_config_get(repo, "core.checkstat", &v))
		wd->check_stat = !v || strcasecmp(v, "minimal");
	if (!wg_repo_config_get(repo, "core.autocrlf", &v) &&
	    (err = wg_autocrlf_parse(&wd->eol.autocrlf, v)))
		goto fail;
	if (!wg_repo_config_get(repo, "core.eol", &v) && v)
		wg_core_eol_parse(&wd->eol.eol, v);
	wg_error_clear();

	/* the attributes: the global file, info/attributes, the tree's */
	v = NULL;
	if (wg_repo_config_get(repo, "core.attributesfile", &v))
		v = NULL;
	wg_error_clear();
	if ((err = wg_attr_global_path(&wd->global_file, v, getenv("HOME"),
				       getenv("XDG_CONFIG_HOME"))) ||
	    (err = wg_fs_join(&wd->info_file, wg_repo_gitdir(repo), "info/attributes")))
		goto fail;
	wd->attr_src.workdir = wd->root;
	wd->attr_src.info_file = wg_buf_cstr(&wd->info_file);
	wd->attr_src.global_file = wd->global_file.len ? wg_buf_cstr(&wd->global_file) : NULL;
	wd->attr_src.index = opts ? opts->index : NULL;
	wd->attr_src.odb = wd->odb;
	wd->attr_src.direction = opts ? opts->direction : WG_ATTR_CHECKIN;
	wd->attr_src.warn = opts ? opts->warn : NULL;
	wd->attr_src.payload = opts ? opts->payload : NULL;
	ao.read = wg_attr_source_read;
	ao.warn = opts ? opts->warn : NULL;
	ao.payload = &wd->attr_src;
	if ((err = config_bool(repo, "core.ignorecase", false, &ao.ignore_case)) ||
	    (err = wg_attr_new(&wd->attr, &ao)))
		goto fail;
	for (int i = 0; i < 3; i++)
		if ((err = wg_attr_intern(wd->attr, names[i], &wd->attr_ids[i])))
			goto fail;
	*out = wd;
	return 0;
fail:
	wg_workdir_free(wd);
	return err;
}

void wg_workdir_free(struct wg_workdir *wd)
{
	if (!wd)
		return;
	wg_attr_free(wd->attr);
	wg_buf_release(&wd->path);
	wg_buf_release(&wd->info_file);
	wg_buf_release(&wd->global_file);
	wg_buf_release(&wd->clean_dir);
	wg_free(wd);
}

const char *wg_workdir_path(struct wg_workdir *wd, const char *path)
{
	wg_buf_reset(&wd->path);
	if (wg_buf_printf(&wd->path, "%s/%s", wd->root, path))
		return NULL;
	return wg_buf_cstr(&wd->path);
}

bool wg_workdir_leading_unsafe(struct wg_workdir *wd, const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) : 0, from = 0;
	struct wg_buf p = WG_BUF_INIT;
	bool unsafe = false;

	if (!dirlen)
		return false;
	if (wd->clean_dir.len) {
		if (wd->clean_dir.len == dirlen && !memcmp(wd->clean_dir.data, path, dirlen))
			return false;
		/* the components the cached directory shares need no new look */
		if (wd->clean_dir.len < dirlen &&
		    !memcmp(wd->clean_dir.data, path, wd->clean_dir.len) &&
		    path[wd->clean_dir.len] == '/')
			from = wd->clean_dir.len + 1;
	}
	for (size_t i = from; i <= dirlen && !unsafe; i++) {
		struct stat st;
		if (i < dirlen && path[i] != '/')
			continue;
		wg_buf_reset(&p);
		if (wg_buf_printf(&p, "%s/%.*s", wd->root, (int)i, path) ||
		    wg_fs_lstat(wg_buf_cstr(&p), &st) || !S_ISDIR(st.st_mode))
			unsafe = true;
	}
	wg_buf_release(&p);
	wg_buf_reset(&wd->clean_dir);
	if (!unsafe && wg_buf_add(&wd->clean_dir, path, dirlen))
		wg_buf_reset(&wd->clean_dir);
	return unsafe;
}

int wg_workdir_conv_attrs(struct wg_workdir *wd, const char *path, struct wg_conv_attrs *out)
{
	struct wg_attr_value v[3];
	int err = wg_attr_check(wd->attr, path, wd->attr_ids, 3, v);
	if (err)
		return err;
	wg_convert_attrs(out, &v[0], &v[1], &v[2], &wd->eol);
	return 0;
}

unsigned wg_workdir_mode_from_stat(const struct wg_workdir *wd, const struct stat *st,
				   unsigned was)
{
	if (S_ISLNK(st->st_mode))
		return 0120000;
	if (S_ISDIR(st->st_mode))
		return 0160000;
	if (!wd->symlinks && (was & 0170000u) == 0120000)
		return 0120000;
	if (!wd->filemode)
		return (was & 0170000u) == 0100000 ? was : 0100644;
	return st->st_mode & 0100 ? 0100755 : 0100644;
}

void wg_index_stat_from(struct wg_index_stat *out, const struct stat *st)
{
	out->ctime_sec = (uint32_t)st->st_ctime;
	out->mtime_sec = (uint32_t)st->st_mtime;
#if defined(__APPLE__)
	out->ctime_nsec = (uint32_t)st->st_ctimespec.tv_nsec;
	out->mtime_nsec = (uint32_t)st->st_mtimespec.tv_nsec;
#else
	out->ctime_nsec = (uint32_t)st->st_ctim.tv_nsec;
	out->mtime_nsec = (uint32_t)st->st_mtim.tv_nsec;
#endif
	out->dev = (uint32_t)st->st_dev;
	out->ino = (uint32_t)st->st_ino;
	out->uid = (uint32_t)st->st_uid;
	out->gid = (uint32_t)st->st_gid;
	out->size = (uint32_t)st->st_size;
}

/* --- hashing a file as a blob ----------------------------------------------- */

/* Read the file at full in chunks, calling fn on each. */
static int each_chunk(const char *full, int (*fn)(void *payload, const void *data, size_t len),
		      void *payload)
{
	unsigned char *buf = wg_malloc(CHUNK);
	int fd, err = 0;
	if (!buf)
		return wg_error_set(WG_ENOMEM, "out of memory");
	if ((fd = wg_fs_open(full, O_RDONLY, 0)) < 0) {
		err = wg_error_set(errno == ENOENT ? WG_ENOTFOUND : WG_EIO, "cannot open '%s': %s",
				   full, strerror(errno));
		wg_free(buf);
		return err;
	}
	for (;;) {
		ssize_t n = wg_fs_read(fd, buf, CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = wg_error_set(WG_EIO, "cannot read '%s': %s", full, strerror(errno));
			break;
		}
		if (!n || (err = fn(payload, buf, (size_t)n)))
			break;
	}
	wg_fs_close(fd);
	wg_free(buf);
	return err;
}

static int stat_chunk(void *payload, const void *data, size_t len)
{
	wg_text_stat_update(payload, data, len);
	return 0;
}

struct hasher {
	struct wg_hash_ctx ctx;
	struct wg_eol_stream eol;
	struct wg_buf out;
	uint64_t size;  /* bytes hashed */
};

static int hash_chunk(void *payload, const void *data, size_t len)
{
	struct hasher *h = payload;
	int err;
	if (h->eol.conv == WG_EOL_CONV_NONE) {
		wg_hash_update(&h->ctx, data, len);
		h->size += len;
		return 0;
	}
	wg_buf_reset(&h->out);
	if ((err = wg_eol_stream_feed(&h->eol, &h->out, data, len)))
		return err;
	wg_hash_update(&h->ctx, h->out.data, h->out.len);
	h->size += h->out.len;
	return 0;
}

/* Does the index's blob for path hold CRLF (text=auto then keeps CRLF)? */
static int index_has_crlf(struct wg_workdir *wd, const struct wg_index *ix, const char *path,
			  bool *out)
{
	struct wg_buf blob = WG_BUF_INIT;
	struct wg_text_stat st;
	enum wg_object_type type;
	long pos;
	int err;
	*out = false;
	if (!ix || (pos = wg_index_find(ix, path, strlen(path), 0)) < 0)
		return 0;
	if ((ix->entries[pos]->mode & 0170000) != 0100000)
		return 0;
	if ((err = wg_odb_read(wd->odb, &ix->entries[pos]->oid, &type, &blob))) {
		wg_buf_release(&blob);
		/* git reads it as no blob: nothing to keep */
		if (err == WG_ENOTFOUND) {
			wg_error_clear();
			return 0;
		}
		return err;
	}
	wg_text_stat_gather(&st, blob.data, blob.len);
	*out = wg_text_stat_index_has_crlf(&st);
	wg_buf_release(&blob);
	return 0;
}

static int hash_regular(struct wg_workdir *wd, const struct wg_index *ix, const char *path,
			const char *full, const struct stat *st, struct wg_oid *out)
{
	struct wg_conv_attrs ca;
	struct hasher h = { .out = WG_BUF_INIT };
	enum wg_eol_conv conv;
	char hdr[64];
	unsigned char raw[WG_MAX_RAWSZ];
	uint64_t size = (uint64_t)st->st_size;
	int err, n;

	if ((err = wg_workdir_conv_attrs(wd, path, &ca)))
		return err;
	conv = wg_convert_checkin(&ca, NULL, false);
	if (conv == WG_EOL_CONV_NEED_STATS) {
		struct wg_text_stat ts;
		bool crlf = false;
		wg_text_stat_init(&ts);
		if ((err = each_chunk(full, stat_chunk, &ts)))
			return err;
		wg_text_stat_finish(&ts);
		if (ts.crlf && (err = index_has_crlf(wd, ix, path, &crlf)))
			return err;
		conv = wg_convert_checkin(&ca, &ts, crlf);
		size = ts.size;
		if (conv == WG_EOL_CONV_CRLF_TO_LF)
			size -= ts.crlf;
	}
	/* The header needs the size first: the file's, less the CRs that
	 * go. A file that changes under us hashes to something else, and
	 * the size check below says so. */
	wg_hash_init(&h.ctx, wd->algo);
	n = snprintf(hdr, sizeof(hdr), "blob %llu", (unsigned long long)size);
	wg_hash_update(&h.ctx, hdr, (size_t)n + 1);
	wg_eol_stream_init(&h.eol, conv == WG_EOL_CONV_CRLF_TO_LF ? conv : WG_EOL_CONV_NONE);
	err = each_chunk(full, hash_chunk, &h);
	if (!err && h.eol.conv != WG_EOL_CONV_NONE) {
		wg_buf_reset(&h.out);
		if (!(err = wg_eol_stream_finish(&h.eol, &h.out))) {
			wg_hash_update(&h.ctx, h.out.data, h.out.len);
			h.size += h.out.len;
		}
	}
	wg_buf_release(&h.out);
	if (err)
		return err;
	if (h.size != size)
		return wg_error_set(WG_EIO, "'%s' changed while it was read", full);
	if ((err = wg_hash_final(&h.ctx, raw)))
		return err;
	wg_oid_from_raw(out, wd->algo, raw);
	return 0;
}

static int read_link(const char *full, const struct stat *st, struct wg_buf *out)
{
	size_t cap = st->st_size > 0 ? (size_t)st->st_size + 1 : 256;
	for (;;) {
		ssize_t n;
		int err;
		wg_buf_reset(out);
		if ((err = wg_buf_grow(out, cap)))
			return err;
		n = wg_fs_readlink(full, (char *)out->data, cap);
		if (n < 0)
			return wg_error_set(WG_EIO, "cannot read the link '%s': %s", full,
					    strerror(errno));
		if ((size_t)n < cap) {
			wg_buf_setlen(out, (size_t)n);
			return 0;
		}
		cap *= 2;
	}
}

int wg_workdir_hash_file(struct wg_workdir *wd, const struct wg_index *ix, const char *path,
			 const struct stat *st, struct wg_oid *out)
{
	const char *full;
	char *copy;
	int err;
	if (!(full = wg_workdir_path(wd, path)) || !(copy = wg_strdup(full)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	if (S_ISLNK(st->st_mode)) {
		struct wg_buf target = WG_BUF_INIT;
		if (!(err = read_link(copy, st, &target)))
			err = wg_object_hash(out, wd->algo, WG_OBJ_BLOB,
					     target.data ? (const void *)target.data : "", target.len);
		wg_buf_release(&target);
	} else {
		err = hash_regular(wd, ix, path, copy, st, out);
	}
	wg_free(copy);
	return err;
}

static int append_chunk(void *payload, const void *data, size_t len)
{
	return wg_buf_add(payload, data, len);
}

int wg_workdir_read_clean(struct wg_workdir *wd, const struct wg_index *ix, const char *path,
			  const struct stat *st, struct wg_buf *out)
{
	struct wg_buf raw = WG_BUF_INIT;
	struct wg_conv_attrs ca;
	enum wg_eol_conv conv;
	const char *full;
	char *copy;
	int err;

	wg_buf_reset(out);
	if (!(full = wg_workdir_path(wd, path)) || !(copy = wg_strdup(full)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	if (S_ISLNK(st->st_mode)) {
		err = read_link(copy, st, out);
		wg_free(copy);
		return err;
	}
	if ((err = each_chunk(copy, append_chunk, &raw)) ||
	    (err = wg_workdir_conv_attrs(wd, path, &ca)))
		goto out;
	conv = wg_convert_checkin(&ca, NULL, false);
	if (conv == WG_EOL_CONV_NEED_STATS) {
		struct wg_text_stat ts;
		bool crlf = false;
		wg_text_stat_gather(&ts, raw.data, raw.len);
		if (ts.crlf && (err = index_has_crlf(wd, ix, path, &crlf)))
			goto out;
		conv = wg_convert_checkin(&ca, &ts, crlf);
	}
	if (conv == WG_EOL_CONV_CRLF_TO_LF)
		err = wg_convert_buffer(out, conv, raw.data, raw.len);
	else
		err = wg_buf_add(out, raw.data, raw.len);
out:
	wg_buf_release(&raw);
	wg_free(copy);
	return err;
}

/* --- does the file still hold the entry? ------------------------------------ */

static bool is_empty_blob(const struct wg_workdir *wd, const struct wg_oid *oid)
{
	return !memcmp(oid->hash, wd->algo->empty_blob, wd->algo->rawsz);
}

int wg_workdir_entry_modified(struct wg_workdir *wd, const struct wg_index *ix,
			      const struct wg_index_entry *e, const struct stat *st,
			      bool *modified)
{
	struct wg_index_stat now;
	bool changed = false, data_changed = false;
	struct wg_oid oid;
	int err;

	*modified = true;
	switch (e->mode & 0170000) {
	case 0100000:
		if (!S_ISREG(st->st_mode))
			return 0;
		/* only the owner's x bit is a mode change */
		if (wd->filemode && ((e->mode ^ (unsigned)st->st_mode) & 0100))
			return 0;
		break;
	case 0120000:
		if (!S_ISLNK(st->st_mode) && (wd->symlinks || !S_ISREG(st->st_mode)))
			return 0;
		break;
	case 0160000:
		/* a submodule: only that it is a directory (webgit does not
		 * look into submodules) */
		*modified = !S_ISDIR(st->st_mode);
		return 0;
	default:
		return 0;
	}
	wg_index_stat_from(&now, st);
	if (e->st.mtime_sec != now.mtime_sec)
		changed = true;
	if (wd->trustctime && wd->check_stat && e->st.ctime_sec != now.ctime_sec)
		changed = true;
	if (wd->check_stat && (e->st.uid != now.uid || e->st.gid != now.gid ||
			       e->st.ino != now.ino))
		changed = true;
	if (e->st.size != now.size)
		data_changed = true;
	/* fresh from a tree, or smudged: the size says nothing */
	if (!e->st.size && !is_empty_blob(wd, &e->oid))
		data_changed = true;
	if (!changed && !data_changed && !wg_index_entry_is_racy(ix, e)) {
		*modified = false;
		return 0;
	}
	if (data_changed && e->st.size)
		return 0;  /* a different size: different content */
	if ((err = wg_workdir_hash_file(wd, ix, e->path, st, &oid)))
		return err;
	*modified = !wg_oid_equal(&oid, &e->oid);
	return 0;
}
