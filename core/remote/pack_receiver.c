#include "remote/pack_receiver.h"

#include <string.h>

#include "repo/pack_threads.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"

/* A filter the server cannot apply is dropped, with git's warning, and the
 * fetch goes on unfiltered (a clone stays a partial clone, as git's does:
 * its config and .promisor mark are written all the same). git's
 * fetch-pack warns when it reads a v0 advertisement and again as it writes
 * the request; in v2 only the second time. */
static bool server_filters(const struct wg_discovery *d)
{
	return d->version == 2 ? wg_caps_has_feature(d->caps, "fetch", "filter") :
				 wg_caps_has(d->caps, "filter");
}

static void warn_filter_ignored(struct wg_remote_op *op, int times)
{
	struct wg_remote_progress p = { 0 };

	p.phase = "warning";
	p.warning = true;
	p.finished = true;
	p.line = "filtering not recognized by server, ignoring";
	while (times-- > 0)
		wg_remote_report(op, &p);
}

int wg_pack_receiver_request(struct wg_pack_receiver *rcv, struct wg_remote_op *op,
			     struct wg_repo *repo, const struct wg_discovery *d,
			     const struct wg_fetch_args *args, bool fix_thin,
			     wg_pack_receiver_event_fn on_event, void *payload)
{
	bool v2 = d->version == 2;
	struct wg_fetch_args unfiltered;
	int err;

	if (args->filter && d->caps && !server_filters(d)) {
		warn_filter_ignored(op, v2 ? 1 : 2);
		unfiltered = *args;
		unfiltered.filter = NULL;
		args = &unfiltered;
	}

	wg_pack_receiver_release(rcv);
	if ((err = wg_receive_check_init(&rcv->check, repo, op)))
		return err;
	rcv->op = op;
	rcv->repo = repo;
	rcv->algo = d->algo;
	rcv->fix_thin = fix_thin;
	rcv->on_event = on_event;
	rcv->payload = payload;
	wg_buf_reset(&op->body);
	if ((err = v2 ? wg_fetch_request_v2(&op->body, d->caps, args) :
		   wg_fetch_request_v0(&op->body, d->caps, args)) ||
	    (err = wg_fetch_response_new_for(&rcv->resp, d->caps, args)))
		return err;
	return wg_remote_op_set_upload_pack(op, d->url, d->version);
}

static int ix_progress(const struct wg_indexer_progress *p, void *payload)
{
	struct wg_pack_receiver *rcv = payload;
	struct wg_remote_progress rp = { 0 };

	if (p->total_deltas && p->received_objects == p->total_objects) {
		rp.phase = "Resolving deltas";
		rp.done = p->resolved_deltas;
		rp.total = p->total_deltas;
		rp.finished = p->resolved_deltas == p->total_deltas;
	} else {
		rp.phase = "Receiving objects";
		rp.done = p->received_objects;
		rp.total = p->total_objects;
		rp.bytes = p->received_bytes;
		rp.finished = p->received_objects == p->total_objects;
	}
	wg_remote_report(rcv->op, &rp);
	return 0;
}

/* Each indexer worker records into its own shard. */
_Static_assert(WG_LINK_CHECK_SHARDS >= WG_INDEXER_THREADS_MAX, "a link-check shard per worker");
static int link_object(unsigned worker, const struct wg_oid *oid, enum wg_object_type type,
		       const void *data, size_t len, void *payload)
{
	return wg_link_check_object(payload, worker, oid, type, data, len);
}

/* What arrived: the pack's objects (its index, in memory), then (known)
 * what the repository had. */
static enum wg_object_type arrived_type(const struct wg_oid *oid, bool known, void *payload)
{
	struct wg_pack_receiver *rcv = payload;
	enum wg_object_type type = wg_indexer_find(rcv->ix, oid);
	size_t size;

	if (type != WG_OBJ_NONE || !known)
		return type;
	if (wg_odb_read_header(wg_repo_odb(rcv->repo), oid, &type, &size))
		return WG_OBJ_NONE;
	return type;
}

static int check_links(struct wg_pack_receiver *rcv)
{
	int err = wg_link_check_finish(rcv->links, arrived_type, rcv, rcv->links_promisor);

	if (err == WG_ENOTFOUND || err == WG_ECORRUPT)
		return wg_error_prefix("the remote did not send all necessary objects");
	return err;
}

/* The last checks, with every object resolved and nothing installed. */
static int before_install(struct wg_indexer *ix, void *payload)
{
	struct wg_pack_receiver *rcv = payload;
	int err;

	if ((err = wg_receive_check_blobs(&rcv->check, ix)) ||
	    (rcv->links && (err = check_links(rcv))))
		return err;
	return 0;
}

static int start_indexer(struct wg_pack_receiver *rcv)
{
	struct wg_indexer_options o = WG_INDEXER_OPTIONS_INIT;
	int err;

	if ((err = wg_fs_join(&rcv->pack_dir, wg_repo_gitdir(rcv->repo), "objects/pack")))
		return err;
	o.algo = rcv->algo;
	o.pack_dir = wg_buf_cstr(&rcv->pack_dir);
	if (rcv->fix_thin) {
		rcv->bases = wg_odb_object_source(wg_repo_odb(rcv->repo));
		o.bases = &rcv->bases;
		o.fix_thin = true;
	}
	o.limits = wg_remote_op_limits(rcv->op, wg_odb_limits(wg_repo_odb(rcv->repo)));
	o.progress = rcv->op->progress ? ix_progress : NULL;
	o.payload = rcv;
	if (rcv->links) {
		o.on_object = link_object;
		o.object_payload = rcv->links;
	}
	/* pack.threads, as git's index-pack reads it: the threads of the
	 * indexer's finish step (a detail of the indexer, not of the
	 * protocol: feeding it stays on the caller's thread). */
	if ((err = wg_repo_pack_threads(rcv->repo, &o.threads)))
		return err;
	o.fsck = wg_receive_check_fsck(&rcv->check);
	o.before_install = before_install;
	o.install_payload = rcv;
	return wg_indexer_new(&rcv->ix, &o);
}

int wg_pack_receiver_feed(struct wg_pack_receiver *rcv, const void *data, size_t len)
{
	const void *in = data;
	size_t in_len = len;
	int err;

	for (;;) {
		struct wg_fetch_event ev;
		struct wg_remote_progress rp = { 0 };

		err = wg_fetch_response_next(rcv->resp, &ev, &in, &in_len);
		if (err == WG_ENEEDMORE)
			return 0;
		if (err)
			return err;
		switch (ev.kind) {
		case WG_FETCH_EV_PACK_DATA:
			if (!rcv->ix && (err = start_indexer(rcv)))
				return err;
			rcv->pack_bytes += ev.len;
			if ((err = wg_indexer_feed(rcv->ix, ev.data, ev.len)))
				return err;
			break;
		case WG_FETCH_EV_PROGRESS:
			rp.phase = ev.progress->phase;
			rp.done = ev.progress->done;
			rp.total = ev.progress->total;
			rp.finished = ev.progress->eol;
			rp.remote = true;
			rp.line = ev.progress->line;
			wg_remote_report(rcv->op, &rp);
			break;
		case WG_FETCH_EV_END:
			break;
		default:
			if (rcv->on_event && (err = rcv->on_event(&ev, rcv->payload)))
				return err;
		}
	}
}

int wg_pack_receiver_finish(struct wg_pack_receiver *rcv, bool *got_pack,
			    unsigned char *pack_hash)
{
	int err;

	*got_pack = false;
	if ((err = wg_fetch_response_finish(rcv->resp)))
		return err;
	if (!rcv->ix)
		return 0;
	/* The pack and its index are in place (renamed, .idx last) before
	 * any ref can name their objects; every check ran before that. */
	if ((err = wg_indexer_finish(rcv->ix, pack_hash)))
		return err;
	wg_indexer_free(rcv->installed);
	rcv->installed = rcv->ix;
	rcv->ix = NULL;
	*got_pack = true;
	return 0;
}

void wg_pack_receiver_release(struct wg_pack_receiver *rcv)
{
	wg_indexer_free(rcv->ix);
	rcv->ix = NULL;
	wg_indexer_free(rcv->installed);
	rcv->installed = NULL;
	wg_free(rcv->promisor_path);
	rcv->promisor_path = NULL;
	wg_fetch_response_free(rcv->resp);
	rcv->resp = NULL;
	wg_buf_release(&rcv->pack_dir);
	wg_receive_check_release(&rcv->check);
}

int wg_pack_receiver_mark_promisor(struct wg_pack_receiver *rcv, const unsigned char *pack_hash)
{
	struct wg_buf path = WG_BUF_INIT;
	char hex[WG_MAX_HEXSZ + 1];
	struct wg_oid h;
	int err;

	wg_oid_from_raw(&h, rcv->algo, pack_hash);
	if ((err = wg_fs_join(&path, wg_repo_gitdir(rcv->repo), "objects/pack")) ||
	    (err = wg_buf_printf(&path, "/pack-%s.promisor", wg_oid_to_hex(&h, hex))))
		goto done;
	err = wg_fs_write_new_file(wg_buf_cstr(&path), "", 0, 0444);
	if (err == WG_EEXISTS) {
		wg_error_clear();
		err = 0;
	} else if (!err && !(rcv->promisor_path = wg_strdup(wg_buf_cstr(&path)))) {
		err = wg_error_set(WG_ENOMEM, "out of memory");
	}
done:
	wg_buf_release(&path);
	return err;
}

void wg_pack_receiver_discard(struct wg_pack_receiver *rcv)
{
	if (rcv->installed)
		wg_indexer_uninstall(rcv->installed);
	if (rcv->promisor_path) {
		wg_fs_unlink(rcv->promisor_path);
		wg_free(rcv->promisor_path);
		rcv->promisor_path = NULL;
	}
}
