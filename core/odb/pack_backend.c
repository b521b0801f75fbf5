#include "odb/pack_backend.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "odb/object_stream.h"
#include "pack/idx.h"
#include "pack/pack.h"
#include "util/alloc.h"
#include "util/fs.h"
#include "util/buf.h"
#include "util/error.h"

struct pack_slot {
	struct wg_pack *pack;
	char *idx_path;
	bool seen;  /* during a rescan */
};

struct pack_backend {
	struct wg_odb_backend base;
	const struct wg_hash_algo *algo;
	char *dir;
	struct pack_slot *packs;
	size_t npacks;
	size_t last_hit;      /* the pack that answered last: asked first */
	struct stat dir_stat; /* of the last scan, to rescan only on change */
	bool scanned;
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

static int add_pack(struct pack_backend *pb, const char *idx_path)
{
	struct pack_slot *slots;
	struct wg_pack *pack;
	char *copy;
	int err = wg_pack_open(&pack, idx_path, pb->algo);
	if (err == WG_ENOTFOUND) {
		/* An .idx whose .pack is not there (yet or any more). */
		wg_error_clear();
		return 0;
	}
	if (err)
		return err;
	slots = wg_realloc(pb->packs, (pb->npacks + 1) * sizeof(*slots));
	copy = wg_strdup(idx_path);
	if (!slots || !copy) {
		if (slots)
			pb->packs = slots;
		wg_free(copy);
		wg_pack_free(pack);
		return wg_error_set(WG_ENOMEM, "out of memory opening packs");
	}
	pb->packs = slots;
	slots[pb->npacks].pack = pack;
	slots[pb->npacks].idx_path = copy;
	slots[pb->npacks].seen = true;
	pb->npacks++;
	return 0;
}

static bool dir_changed(struct pack_backend *pb, struct stat *st)
{
	if (wg_fs_stat(pb->dir, st))
		memset(st, 0, sizeof(*st));
	if (!pb->scanned)
		return true;
	/* A directory modified within the last two seconds may have changed
	 * again since our scan without its coarse timestamp showing it (some
	 * filesystems, Emscripten's among them, keep whole seconds): treat it
	 * as changed, as git treats "racily clean" index entries. */
	if ((int64_t)st->st_mtime >= (int64_t)time(NULL) - 1)
		return true;
	return st->st_ino != pb->dir_stat.st_ino || st->st_mtime != pb->dir_stat.st_mtime ||
	       st->st_size != pb->dir_stat.st_size ||
#if defined(__linux__) && !defined(__EMSCRIPTEN__)
	       st->st_mtim.tv_nsec != pb->dir_stat.st_mtim.tv_nsec ||
#endif
	       st->st_nlink != pb->dir_stat.st_nlink;
}

static int scan(struct pack_backend *pb, bool force)
{
	struct wg_buf path = WG_BUF_INIT;
	struct stat st;
	const char *name;
	void *dir;
	size_t i, j;
	int err = 0;

	if (!dir_changed(pb, &st) && !force)
		return 0;
	pb->dir_stat = st;
	pb->scanned = true;
	for (i = 0; i < pb->npacks; i++)
		pb->packs[i].seen = false;
	dir = wg_fs_opendir(pb->dir);
	while (dir && !err && (name = wg_fs_readdir(dir))) {
		if (strncmp(name, "pack-", 5) || !ends_with(name, ".idx"))
			continue;
		wg_buf_reset(&path);
		if ((err = wg_buf_printf(&path, "%s/%s", pb->dir, name)))
			break;
		for (i = 0; i < pb->npacks; i++)
			if (!strcmp(pb->packs[i].idx_path, (const char *)path.data))
				break;
		if (i < pb->npacks) {
			pb->packs[i].seen = true;
			continue;
		}
		if ((err = add_pack(pb, (const char *)path.data))) {
			/* One bad pack must not hide the others: skip it, as
			 * git does with a warning. */
			if (err != WG_ENOMEM)
				err = 0;
			wg_error_clear();
		}
	}
	if (dir)
		wg_fs_closedir(dir);
	wg_buf_release(&path);
	/* Drop packs that disappeared. */
	for (i = j = 0; i < pb->npacks; i++) {
		if (pb->packs[i].seen) {
			pb->packs[j++] = pb->packs[i];
		} else {
			wg_pack_free(pb->packs[i].pack);
			wg_free(pb->packs[i].idx_path);
		}
	}
	pb->npacks = j;
	pb->last_hit = 0;
	return err;
}

int wg_odb_pack_refresh(struct wg_odb_backend *backend)
{
	return scan((struct pack_backend *)backend, true);
}

static long search(struct pack_backend *pb, const struct wg_oid *oid)
{
	size_t i;
	uint32_t pos;
	if (pb->last_hit < pb->npacks &&
	    !wg_pack_idx_find(wg_pack_index(pb->packs[pb->last_hit].pack), oid, &pos))
		return (long)pb->last_hit;
	for (i = 0; i < pb->npacks; i++)
		if (!wg_pack_idx_find(wg_pack_index(pb->packs[i].pack), oid, &pos)) {
			pb->last_hit = i;
			return (long)i;
		}
	return -1;
}

/* Find the pack holding oid: index into pb->packs, or -1. On a miss the
 * directory is checked (one stat) and re-read if it changed. */
static long locate(struct pack_backend *pb, const struct wg_oid *oid, int *err)
{
	long i;
	*err = 0;
	if (!pb->scanned && (*err = scan(pb, true)))
		return -1;
	if ((i = search(pb, oid)) >= 0)
		return i;
	if ((*err = scan(pb, false)))
		return -1;
	return search(pb, oid);
}

static int not_found(const struct wg_oid *oid)
{
	return wg_error_set(WG_ENOTFOUND, "object %s not found", wg_oid_hex(oid));
}

static int pb_read(struct wg_odb_backend *backend, const struct wg_oid *oid,
		   enum wg_object_type *type_out, struct wg_buf *out)
{
	struct pack_backend *pb = (struct pack_backend *)backend;
	int err;
	long i = locate(pb, oid, &err);
	if (i < 0)
		return err ? err : not_found(oid);
	wg_pack_set_limits(pb->packs[i].pack, backend->limits);
	return wg_pack_read(pb->packs[i].pack, oid, type_out, out);
}

static int pb_read_header(struct wg_odb_backend *backend, const struct wg_oid *oid,
			  enum wg_object_type *type_out, size_t *size_out)
{
	struct pack_backend *pb = (struct pack_backend *)backend;
	int err;
	long i = locate(pb, oid, &err);
	if (i < 0)
		return err ? err : not_found(oid);
	return wg_pack_read_header(pb->packs[i].pack, oid, type_out, size_out);
}

/* Objects this small are read whole: one read beats a file opened for
 * the stream, and memory is no concern at this size. */
#define STREAM_MIN_SIZE ((uint64_t)1 << 20)

struct pack_fill {
	int fd;
	uint64_t offset, end;
};

static int pack_fill(void *payload, unsigned char *buf, size_t cap, size_t *got)
{
	struct pack_fill *pf = payload;
	size_t n = pf->end - pf->offset < cap ? (size_t)(pf->end - pf->offset) : cap;
	int err;
	*got = 0;
	if (!n)
		return 0;
	if ((err = wg_pack_pread(pf->fd, buf, n, pf->offset)))
		return err;
	pf->offset += n;
	*got = n;
	return 0;
}

static void pack_fill_free(void *payload)
{
	struct pack_fill *pf = payload;
	wg_fs_close(pf->fd);
	wg_free(pf);
}

/* An undeltified entry of at least STREAM_MIN_SIZE, read through a file
 * descriptor of the stream's own: the pack may be closed (a refresh after
 * a lazy fetch) while the stream is still being read. */
static int pb_open_stream(struct wg_odb_backend *backend, const struct wg_oid *oid,
			  struct wg_object_stream **out)
{
	struct pack_backend *pb = (struct pack_backend *)backend;
	struct wg_zstream_source src = { pack_fill, pack_fill_free, NULL };
	enum wg_object_type type;
	uint64_t size, data, end;
	struct pack_fill *pf;
	struct wg_pack *pack;
	int err;
	long i = locate(pb, oid, &err);
	if (i < 0)
		return err ? err : not_found(oid);
	pack = pb->packs[i].pack;
	if ((err = wg_pack_entry_of(pack, oid, &type, &size, &data, &end)))
		return err;
	if (type == WG_OBJ_OFS_DELTA || type == WG_OBJ_REF_DELTA || size < STREAM_MIN_SIZE)
		return WG_EUNSUPPORTED;
	if (!(pf = wg_calloc(1, sizeof(*pf))))
		return wg_error_set(WG_ENOMEM, "out of memory opening an object stream");
	pf->offset = data;
	pf->end = end;
	if ((pf->fd = wg_fs_open(wg_pack_path(pack), O_RDONLY, 0)) < 0) {
		err = wg_error_set(WG_EIO, "cannot open pack '%s': %s", wg_pack_path(pack),
				   strerror(errno));
		wg_free(pf);
		return err;
	}
	src.payload = pf;
	return wg_object_stream_inflate(out, &src, 0, type, size, NULL, pb->algo, backend->limits,
					"pack entry");
}

static int pb_exists(struct wg_odb_backend *backend, const struct wg_oid *oid)
{
	struct pack_backend *pb = (struct pack_backend *)backend;
	int err;
	long i = locate(pb, oid, &err);
	return i >= 0 ? 1 : err;
}

/* Whether any pack has an object starting with prefix. */
static bool prefix_in_packs(struct pack_backend *pb, const unsigned char *prefix, size_t hexlen)
{
	for (size_t i = 0; i < pb->npacks; i++) {
		uint32_t pos, end;
		wg_pack_idx_prefix_range(wg_pack_index(pb->packs[i].pack), prefix, hexlen, &pos, &end);
		if (pos < end)
			return true;
	}
	return false;
}

static int pb_foreach(struct wg_odb_backend *backend, const unsigned char *prefix,
		      size_t prefix_hexlen, wg_odb_foreach_cb cb, void *payload)
{
	struct pack_backend *pb = (struct pack_backend *)backend;
	bool by_prefix = prefix && prefix_hexlen;
	size_t i;
	int err;
	/* A prefix search (an abbreviation: a diff's "index" lines ask one
	 * per blob) checks the directory only when the packs it knows have
	 * nothing with the prefix, as a read does on a miss; a whole listing
	 * checks it first. */
	if (!pb->scanned || !by_prefix || !prefix_in_packs(pb, prefix, prefix_hexlen))
		if ((err = scan(pb, false)))
			return err;
	for (i = 0; i < pb->npacks; i++) {
		const struct wg_pack_idx *idx = wg_pack_index(pb->packs[i].pack);
		uint32_t pos, end;
		if (by_prefix)
			wg_pack_idx_prefix_range(idx, prefix, prefix_hexlen, &pos, &end);
		else {
			pos = 0;
			end = wg_pack_idx_count(idx);
		}
		for (; pos < end; pos++) {
			struct wg_oid oid;
			wg_pack_idx_oid_at(idx, pos, &oid);
			if ((err = cb(&oid, payload)))
				return err;
		}
	}
	return 0;
}

static void pb_free(struct wg_odb_backend *backend)
{
	struct pack_backend *pb = (struct pack_backend *)backend;
	size_t i;
	if (!pb)
		return;
	for (i = 0; i < pb->npacks; i++) {
		wg_pack_free(pb->packs[i].pack);
		wg_free(pb->packs[i].idx_path);
	}
	wg_free(pb->packs);
	wg_free(pb->dir);
	wg_free(pb);
}

int wg_odb_pack_new(struct wg_odb_backend **out, const char *pack_dir,
		    const struct wg_hash_algo *algo)
{
	struct pack_backend *pb = wg_calloc(1, sizeof(*pb));
	if (!pb || !(pb->dir = wg_strdup(pack_dir))) {
		wg_free(pb);
		return wg_error_set(WG_ENOMEM, "out of memory creating the pack backend");
	}
	pb->algo = algo;
	pb->base.version = WG_ODB_BACKEND_VERSION;
	pb->base.name = "pack";
	pb->base.read = pb_read;
	pb->base.read_header = pb_read_header;
	pb->base.exists = pb_exists;
	pb->base.foreach = pb_foreach;
	pb->base.free = pb_free;
	pb->base.open_stream = pb_open_stream;
	*out = &pb->base;
	return 0;
}
