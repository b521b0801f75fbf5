#include "remote/dumb_fetch.h"

#include <string.h>

#include "hash/oidmap.h"
#include "object/commit.h"
#include "object/tag.h"
#include "object/tree.h"
#include "odb/loose.h"
#include "odb/odb.h"
#include "pack/idx.h"
#include "pack/indexer.h"
#include "remote/dumb_packs.h"
#include "remote/receive_check.h"
#include "repo/pack_threads.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/strlist.h"

#define QUEUED 1u

/* What the response being received is. */
enum wait {
	WAIT_NONE = 0,
	WAIT_LOOSE,       /* objects/xx/<rest> of the object looked for */
	WAIT_PACKS,       /* objects/info/packs */
	WAIT_IDX,         /* a pack's .idx on the host */
	WAIT_PACK,        /* a whole pack, into the indexer */
	WAIT_ALTERNATES,  /* objects/info/http-alternates, then alternates */
};

struct host_pack {
	char *name;               /* "pack-<hex>" */
	struct wg_pack_idx *idx;  /* the host's index, once read */
	bool idx_tried;
	bool fetched;
};

struct wg_dumb_fetch {
	struct wg_remote_op *op;
	struct wg_repo *repo;
	const struct wg_hash_algo *algo;
	char *url;
	struct wg_receive_check check;
	struct wg_oidmap queued;      /* every id ever queued: walked once */
	struct wg_oid *stack;
	size_t nstack, stack_alloc;
	struct wg_oid cur;            /* the object being looked for */
	bool have_cur;
	bool loose_missing;           /* cur: the host has no loose file for it */
	bool packs_listed;
	struct host_pack *packs;
	size_t npacks;
	size_t pack_i;                /* WAIT_IDX, WAIT_PACK: which */
	unsigned alt_step;            /* alternates files asked for so far */
	bool borrows;                 /* the host names alternates */
	bool checked;                 /* the blob checks ran for this walk */
	enum wait wait;
	int status;
	struct wg_buf body;
	uint64_t body_max;
	struct wg_indexer *ix;        /* the pack being received */
	struct wg_indexer **installed;
	size_t ninstalled;
	struct wg_strlist loose_paths; /* loose objects stored, to take back */
	struct wg_dumb_fetch_stats stats;
	uint64_t walked;              /* objects walked, for progress */
	struct wg_buf path;           /* of the last request, after the URL */
	struct wg_buf pack_dir;       /* the indexer keeps a pointer to it */
};

static int nomem(void)
{
	return wg_error_set(WG_ENOMEM, "out of memory");
}

static const struct wg_limits *limits(struct wg_dumb_fetch *w)
{
	return wg_remote_op_limits(w->op, wg_odb_limits(wg_repo_odb(w->repo)));
}

int wg_dumb_fetch_new(struct wg_dumb_fetch **out, struct wg_remote_op *op,
		      struct wg_repo *repo, const char *url)
{
	struct wg_dumb_fetch *w = wg_calloc(1, sizeof(*w));
	int err;

	if (!w || !(w->url = wg_strdup(url))) {
		wg_free(w);
		return nomem();
	}
	w->op = op;
	w->repo = repo;
	w->algo = wg_repo_algo(repo);
	if ((err = wg_receive_check_init(&w->check, repo, op))) {
		wg_dumb_fetch_free(w);
		return err;
	}
	*out = w;
	return 0;
}

static int push(struct wg_dumb_fetch *w, const struct wg_oid *oid)
{
	unsigned old;

	if (wg_oidmap_set(&w->queued, oid, QUEUED, &old))
		return nomem();
	if (old & QUEUED)
		return 0;
	if (w->nstack == w->stack_alloc) {
		size_t n = w->stack_alloc ? 2 * w->stack_alloc : 64;
		struct wg_oid *v = wg_realloc(w->stack, n * sizeof(*v));
		if (!v)
			return nomem();
		w->stack = v;
		w->stack_alloc = n;
	}
	w->stack[w->nstack++] = *oid;
	return 0;
}

int wg_dumb_fetch_want(struct wg_dumb_fetch *w, const struct wg_oid *oid)
{
	w->checked = false;
	return push(w, oid);
}

int wg_dumb_fetch_have(struct wg_dumb_fetch *w, const struct wg_oid *oid)
{
	return wg_oidmap_set(&w->queued, oid, QUEUED, NULL) ? nomem() : 0;
}

/* Queue what an object names (git's walker: process_commit, process_tree,
 * process_tag). Gitlinks name commits of other repositories. */
static int queue_links(struct wg_dumb_fetch *w, const struct wg_oid *oid,
		       enum wg_object_type type, const void *data, size_t len)
{
	int err = 0;

	if (type == WG_OBJ_COMMIT) {
		struct wg_commit c;
		if (!(err = wg_commit_parse(&c, w->algo, data, len))) {
			err = push(w, &c.tree);
			for (size_t i = 0; i < c.nparents && !err; i++)
				err = push(w, &c.parents[i]);
		}
		wg_commit_release(&c);
	} else if (type == WG_OBJ_TREE) {
		struct wg_tree_iter it;
		struct wg_tree_entry e;
		wg_tree_iter_init(&it, w->algo, data, len);
		while (!(err = wg_tree_iter_next(&it, &e)))
			if ((e.mode & WG_MODE_TYPE_MASK) != WG_MODE_GITLINK &&
			    (err = push(w, &e.oid)))
				break;
		if (err == WG_ITEROVER)
			err = 0;
	} else if (type == WG_OBJ_TAG) {
		struct wg_tag t;
		if (!(err = wg_tag_parse(&t, w->algo, data, len)))
			err = push(w, &t.object);
		wg_tag_release(&t);
	}
	if (err && err != WG_ENOMEM)
		return wg_error_prefix("object %s from %s", wg_oid_hex(oid), w->url);
	return err;
}

/* A pack this walk downloaded holds oid: its type, else WG_OBJ_NONE. */
static enum wg_object_type in_new_pack(struct wg_dumb_fetch *w, const struct wg_oid *oid)
{
	for (size_t i = 0; i < w->ninstalled; i++) {
		enum wg_object_type t = wg_indexer_find(w->installed[i], oid);
		if (t != WG_OBJ_NONE)
			return t;
	}
	return WG_OBJ_NONE;
}

/* 1: oid is here and was walked; 0: it must be fetched. */
static int visit(struct wg_dumb_fetch *w, const struct wg_oid *oid)
{
	enum wg_object_type type = in_new_pack(w, oid);
	struct wg_buf data = WG_BUF_INIT;
	int err;

	if (type == WG_OBJ_NONE) {
		/* here before the walk: complete, as the caller checks */
		err = wg_odb_exists(wg_repo_odb(w->repo), oid);
		return err < 0 ? err : err > 0;
	}
	if (type == WG_OBJ_BLOB)
		return 1;
	if (!(err = wg_odb_read(wg_repo_odb(w->repo), oid, &type, &data)))
		err = queue_links(w, oid, type, data.data, data.len);
	wg_buf_release(&data);
	return err ? err : 1;
}

/* --- requests ---------------------------------------------------------------------- */

static int request(struct wg_dumb_fetch *w, enum wait what, const char *fmt, const char *a,
		   const char *b)
{
	int err;

	wg_buf_reset(&w->path);
	if (wg_buf_printf(&w->path, fmt, a, b))
		return nomem();
	wg_buf_reset(&w->op->body);
	if ((err = wg_remote_op_set_request(w->op, "GET", w->url, wg_buf_cstr(&w->path),
					    wg_remote_accept_any, 1)))
		return err;
	w->wait = what;
	return 0;
}

static int request_loose(struct wg_dumb_fetch *w)
{
	char hex[WG_MAX_HEXSZ + 1], dir[3];

	wg_oid_to_hex(&w->cur, hex);
	memcpy(dir, hex, 2);
	dir[2] = '\0';
	return request(w, WAIT_LOOSE, "/objects/%s/%s", dir, hex + 2);
}

/* The pack the host's indexes say holds cur: its index in w->packs,
 * -1 if none read so far does. */
static long pack_holding(struct wg_dumb_fetch *w)
{
	uint32_t pos;

	for (size_t i = 0; i < w->npacks; i++)
		if (w->packs[i].idx && !wg_pack_idx_find(w->packs[i].idx, &w->cur, &pos))
			return (long)i;
	return -1;
}

static int not_found(struct wg_dumb_fetch *w)
{
	char hex[WG_MAX_HEXSZ + 1];

	wg_oid_to_hex(&w->cur, hex);
	if (w->borrows)
		return wg_error_set(WG_EUNSUPPORTED, "Unable to find %s under %s: the repository "
				    "borrows objects from others (objects/info/alternates or "
				    "http-alternates), which webgit does not follow", hex, w->url);
	return wg_error_set(WG_ECORRUPT, "Unable to find %s under %s\nCannot obtain needed "
			    "object %s", hex, w->url, hex);
}

/* The host had no file of cur: find it in a pack. */
static int next_source(struct wg_dumb_fetch *w)
{
	long p = pack_holding(w);

	if (p >= 0 && !w->packs[p].fetched) {
		w->pack_i = (size_t)p;
		return request(w, WAIT_PACK, "/objects/pack/%s%s", w->packs[p].name, ".pack");
	}
	if (p >= 0)
		return wg_error_set(WG_ECORRUPT, "%s/objects/pack/%s.idx lists %s, but the pack "
				    "does not hold it", w->url, w->packs[p].name,
				    wg_oid_hex(&w->cur));
	if (!w->loose_missing)
		return request_loose(w);
	if (!w->packs_listed)
		return request(w, WAIT_PACKS, "/objects/info/%s%s", "packs", "");
	for (size_t i = 0; i < w->npacks; i++)
		if (!w->packs[i].idx_tried) {
			w->pack_i = i;
			return request(w, WAIT_IDX, "/objects/pack/%s%s", w->packs[i].name, ".idx");
		}
	if (w->alt_step == 0)
		return request(w, WAIT_ALTERNATES, "/objects/info/%s%s", "http-alternates", "");
	if (w->alt_step == 1)
		return request(w, WAIT_ALTERNATES, "/objects/info/%s%s", "alternates", "");
	return not_found(w);
}

/* git's walker shows "Fetching objects: <n>" as it goes. */
static void progress(struct wg_dumb_fetch *w, bool finished)
{
	struct wg_remote_progress p = { 0 };

	p.phase = "Fetching objects";
	p.done = w->walked;
	p.finished = finished;
	wg_remote_report(w->op, &p);
}

int wg_dumb_fetch_next_request(struct wg_dumb_fetch *w)
{
	int err;

	for (;;) {
		if (!w->have_cur) {
			if (!w->nstack)
				break;
			w->cur = w->stack[--w->nstack];
			w->have_cur = true;
			w->loose_missing = false;
		}
		if ((err = visit(w, &w->cur)) < 0)
			return err;
		if (!err)
			return next_source(w);
		w->have_cur = false;
		w->walked++;
		if (!(w->walked & 1023))
			progress(w, false);
	}
	/* Everything is here: the blobs trees named .gitmodules or
	 * .gitattributes, read from the repository now. */
	if (!w->checked) {
		if ((err = wg_receive_check_blobs(&w->check, NULL)))
			return err;
		w->checked = true;
		if (w->walked)
			progress(w, true);
	}
	return WG_ITEROVER;
}

/* --- responses --------------------------------------------------------------------- */

static int start_indexer(struct wg_dumb_fetch *w)
{
	struct wg_indexer_options o = WG_INDEXER_OPTIONS_INIT;
	int err;

	wg_buf_reset(&w->pack_dir);
	if ((err = wg_fs_join(&w->pack_dir, wg_repo_gitdir(w->repo), "objects/pack")) ||
	    (err = wg_fs_mkdir_p(wg_buf_cstr(&w->pack_dir))))
		return err;
	o.algo = w->algo;
	o.pack_dir = wg_buf_cstr(&w->pack_dir);
	o.limits = limits(w);
	o.fsck = wg_receive_check_fsck(&w->check);
	if ((err = wg_repo_pack_threads(w->repo, &o.threads)))
		return err;
	return wg_indexer_new(&w->ix, &o);
}

int wg_dumb_fetch_response_begin(struct wg_dumb_fetch *w, int status, const char *content_type)
{
	const struct wg_limits *l = limits(w);
	bool missing = status == 404 || status == 410 || status == 403;

	(void)content_type;   /* a static host says anything */
	w->stats.requests++;
	w->status = status;
	wg_buf_reset(&w->body);
	w->body_max = 0;
	switch (w->wait) {
	case WAIT_LOOSE:
		if (missing)
			return 0;
		/* deflate never grows data much: the object's limit bounds
		 * its file too */
		w->body_max = l->max_object_size ? l->max_object_size + 1024 : 0;
		break;
	case WAIT_PACKS:
	case WAIT_ALTERNATES:
		if (missing)
			return 0;
		w->body_max = l->max_advertisement_bytes;
		break;
	case WAIT_IDX:
		if (missing)
			return 0;
		if (l->max_pack_objects)
			w->body_max = (uint64_t)l->max_pack_objects * (w->algo->rawsz + 16) +
				      1072 + 2 * w->algo->rawsz;
		break;
	case WAIT_PACK:
		if (status != 200)
			break;
		return start_indexer(w);
	default:
		return wg_error_set(WG_EINVALID, "dumb fetch: no request is waiting");
	}
	if (status != 200)
		return wg_error_set(WG_ERROR, "unable to access '%s%s': the server answered "
				    "HTTP %d", w->url, wg_buf_cstr(&w->path), status);
	return 0;
}

int wg_dumb_fetch_feed(struct wg_dumb_fetch *w, const void *data, size_t len)
{
	w->stats.bytes += len;
	if (w->status != 200)
		return 0;
	if (w->wait == WAIT_PACK)
		return wg_indexer_feed(w->ix, data, len);
	if (w->body_max && w->body.len + len > w->body_max)
		return wg_error_set(WG_ELIMIT, "%s%s is larger than %llu bytes", w->url,
				    wg_buf_cstr(&w->path), (unsigned long long)w->body_max);
	return wg_buf_add(&w->body, data, len) ? nomem() : 0;
}

/* A loose object: the id it hashes to must be the one asked for; then it
 * is checked, stored as git's walker stores it (loose), and walked. */
static int loose_end(struct wg_dumb_fetch *w)
{
	struct wg_buf content = WG_BUF_INIT, file = WG_BUF_INIT;
	enum wg_object_type type;
	struct wg_oid got;
	char hex[WG_MAX_HEXSZ + 1];
	const struct wg_fsck_options *fsck = wg_receive_check_fsck(&w->check);
	int err;

	if (w->status != 200) {
		w->loose_missing = true;
		return 0;
	}
	wg_oid_to_hex(&w->cur, hex);
	if ((err = wg_loose_inflate(w->body.data, w->body.len, limits(w), &type, &content)))
		goto fail;
	if ((err = wg_object_hash(&got, w->algo, type, content.data, content.len)))
		goto done;
	if (!wg_oid_equal(&got, &w->cur)) {
		err = wg_error_set(WG_ECORRUPT, "File %s (%s%s) has bad hash: its content hashes "
				   "to %s", hex, w->url,
				   wg_buf_cstr(&w->path), wg_oid_hex(&got));
		goto done;
	}
	if (fsck && type != WG_OBJ_BLOB &&
	    (err = wg_fsck_object(fsck, w->algo, &w->cur, type, content.data, content.len)))
		goto done;
	if ((err = queue_links(w, &w->cur, type, content.data, content.len)))
		goto done;
	/* where the loose backend puts it, to take it back on failure */
	if ((err = wg_fs_join(&file, wg_repo_gitdir(w->repo), "objects/")) ||
	    (err = wg_buf_add(&file, hex, 2) ? nomem() : 0) ||
	    (err = wg_buf_printf(&file, "/%s", hex + 2) ? nomem() : 0) ||
	    (err = wg_strlist_add(&w->loose_paths, (const char *)file.data, file.len)))
		goto done;
	if ((err = wg_odb_write(wg_repo_odb(w->repo), type, content.data, content.len, NULL)))
		goto done;
	w->stats.loose++;
	w->have_cur = false;
	w->walked++;
	progress(w, false);
	goto done;
fail:
	wg_error_prefix("%s%s", w->url, wg_buf_cstr(&w->path));
done:
	wg_buf_release(&content);
	wg_buf_release(&file);
	return err;
}

static int packs_end(struct wg_dumb_fetch *w)
{
	struct wg_strlist names = { 0 };
	int err = 0;

	w->packs_listed = true;
	if (w->status != 200)
		return 0;
	if ((err = wg_dumb_packs_parse(&names, (const char *)w->body.data, w->body.len,
				       w->algo)))
		goto done;
	if (names.n && !(w->packs = wg_calloc(names.n, sizeof(*w->packs)))) {
		err = nomem();
		goto done;
	}
	for (size_t i = 0; i < names.n; i++) {
		w->packs[i].name = names.v[i];
		names.v[i] = NULL;
	}
	w->npacks = names.n;
done:
	wg_strlist_release(&names);
	return err;
}

static int idx_end(struct wg_dumb_fetch *w)
{
	struct host_pack *p = &w->packs[w->pack_i];

	p->idx_tried = true;
	if (w->status != 200)
		return 0;
	return wg_pack_idx_parse(&p->idx, w->body.data, w->body.len, w->algo,
				 wg_buf_cstr(&w->path));
}

static int pack_end(struct wg_dumb_fetch *w)
{
	unsigned char hash[WG_MAX_RAWSZ];
	struct wg_indexer **v;
	int err;

	if ((err = wg_indexer_finish(w->ix, hash)))
		return wg_error_prefix("%s%s", w->url, wg_buf_cstr(&w->path));
	if (!(v = wg_realloc(w->installed, (w->ninstalled + 1) * sizeof(*v))))
		return nomem();
	w->installed = v;
	w->installed[w->ninstalled++] = w->ix;
	w->ix = NULL;
	w->packs[w->pack_i].fetched = true;
	w->stats.packs++;
	return 0;
}

int wg_dumb_fetch_response_end(struct wg_dumb_fetch *w)
{
	enum wait what = w->wait;
	int err = 0;

	w->wait = WAIT_NONE;
	switch (what) {
	case WAIT_LOOSE:
		err = loose_end(w);
		break;
	case WAIT_PACKS:
		err = packs_end(w);
		break;
	case WAIT_IDX:
		err = idx_end(w);
		break;
	case WAIT_PACK:
		err = pack_end(w);
		break;
	case WAIT_ALTERNATES:
		w->alt_step++;
		/* a file with something in it: objects live elsewhere */
		for (size_t i = 0; w->status == 200 && i < w->body.len; i++)
			if (w->body.data[i] > ' ')
				w->borrows = true;
		break;
	default:
		err = wg_error_set(WG_EINVALID, "dumb fetch: no request is waiting");
	}
	wg_buf_release(&w->body);
	return err;
}

void wg_dumb_fetch_discard(struct wg_dumb_fetch *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->ninstalled; i++)
		wg_indexer_uninstall(w->installed[i]);
	for (size_t i = 0; i < w->loose_paths.n; i++)
		wg_fs_unlink(w->loose_paths.v[i]);
}

void wg_dumb_fetch_free(struct wg_dumb_fetch *w)
{
	if (!w)
		return;
	wg_indexer_free(w->ix);
	for (size_t i = 0; i < w->ninstalled; i++)
		wg_indexer_free(w->installed[i]);
	wg_free(w->installed);
	for (size_t i = 0; i < w->npacks; i++) {
		wg_free(w->packs[i].name);
		wg_pack_idx_free(w->packs[i].idx);
	}
	wg_free(w->packs);
	wg_receive_check_release(&w->check);
	wg_oidmap_release(&w->queued);
	wg_strlist_release(&w->loose_paths);
	wg_free(w->stack);
	wg_buf_release(&w->body);
	wg_buf_release(&w->path);
	wg_buf_release(&w->pack_dir);
	wg_free(w->url);
	wg_free(w);
}

void wg_dumb_fetch_stats(const struct wg_dumb_fetch *w, struct wg_dumb_fetch_stats *out)
{
	*out = w->stats;
}
