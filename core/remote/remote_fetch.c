#include "remote/remote_fetch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "odb/reachable.h"
#include "refs/refdb.h"
#include "refs/refname.h"
#include "remote/dumb_fetch.h"
#include "remote/negotiator.h"
#include "remote/promisor_fetch.h"
#include "remote/operation_internal.h"
#include "remote/pack_receiver.h"
#include "refs/refspec.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/lockfile.h"
#include "util/url.h"

/* git gives up offering haves after this many without a new common one. */
#define MAX_IN_VAIN 256
#define FIRST_BATCH 32
#define MAX_BATCH 256

enum rf_state { RF_DISCOVERY = 0, RF_NEGOTIATE, RF_WAITING, RF_BACKFILL, RF_DUMB, RF_DONE };

struct rf_update {
	struct wg_remote_fetch_update pub;
	bool force;
	bool is_tag_follow;          /* only if its object arrives */
	bool for_merge;
	struct wg_oid peeled;        /* what a tag names at the end, else new_oid */
	const char *kind;            /* "branch", "tag", "" for FETCH_HEAD */
	const char *short_name;      /* into pub.remote_name */
};

struct rfetch {
	struct wg_remote_op base;
	struct wg_repo *repo;
	char *remote;                /* NULL when fetching from a URL */
	char *url;                   /* without user information */
	struct wg_refspec *specs;
	size_t nspecs;
	char **resolved;             /* per non-pattern spec: the remote ref it names */
	bool cmdline;                /* the refspecs came from the caller */
	bool default_head;           /* no refspec at all: the remote's HEAD */
	bool autotags;               /* tag following (git's rule, see _new) */
	struct wg_remote_fetch_options opts;
	enum rf_state state;
	struct wg_discovery d;
	char **prefixes;
	size_t nprefixes;
	struct rf_update *updates;
	size_t nupdates;
	struct wg_remote_fetch_update *pub;   /* the completed list */
	struct wg_oid *wants;
	size_t nwants;
	struct wg_oid *shallows;          /* $GIT_DIR/shallow: we are a shallow clone */
	size_t nshallows;
	struct wg_negotiator *neg;
	struct wg_oid *haves;                 /* common ones first, then this round's */
	size_t nhaves, ncommon, haves_alloc;
	size_t batch, in_vain;
	bool exhausted, done_sent, ready;
	unsigned rounds;
	struct wg_pack_receiver rcv;
	/* git's tag backfill: followed tags whose commits came but not the
	 * tags themselves (a server that ignores include-tag) are asked for
	 * in a second request, into their own pack. */
	struct wg_pack_receiver tags_rcv;
	struct wg_pack_receiver *cur;         /* the one receiving */
	size_t nfirst_wants;                  /* wants[0..n): the first request's */
	uint64_t pack_bytes;
	/* A static host: its walker, and whether the followed tags were
	 * asked of it once what the first walk brought was known. */
	struct wg_dumb_fetch *dumb;
	bool dumb_backfilled;
};

#define RF(op) ((struct rfetch *)(op))

static int nomem(void)
{
	return wg_error_set(WG_ENOMEM, "out of memory");
}

/* --- planning: which refs, which objects ------------------------------------------ */

static int add_update(struct rfetch *f, const struct wg_remote_ref *r, const char *local,
		      bool force, bool follow)
{
	struct rf_update *u;
	struct wg_ref cur;
	int err;

	u = wg_realloc(f->updates, (f->nupdates + 1) * sizeof(*u));
	if (!u)
		return nomem();
	f->updates = u;
	u = &f->updates[f->nupdates];
	memset(u, 0, sizeof(*u));
	if (!(u->pub.remote_name = wg_strdup(r->name)) ||
	    (local && !(u->pub.local_name = wg_strdup(local)))) {
		wg_free(u->pub.remote_name);
		return nomem();
	}
	f->nupdates++;
	u->pub.new_oid = r->oid;
	u->peeled = r->has_peeled ? r->peeled : r->oid;
	u->force = force;
	u->is_tag_follow = follow;
	wg_oid_null(&u->pub.old_oid, f->d.algo);
	if (!strncmp(r->name, "refs/heads/", 11)) {
		u->kind = "branch";
		u->short_name = u->pub.remote_name + 11;
	} else if (!strncmp(r->name, "refs/tags/", 10)) {
		u->kind = "tag";
		u->short_name = u->pub.remote_name + 10;
	} else {
		u->kind = "";
		u->short_name = u->pub.remote_name;
	}
	if (local) {
		err = wg_refdb_read(&cur, wg_repo_refdb(f->repo), local);
		if (!err) {
			if (!cur.symbolic)
				u->pub.old_oid = cur.oid;
			wg_ref_release(&cur);
		} else if (err != WG_ENOTFOUND) {
			return err;
		}
		wg_error_clear();
	}
	return 0;
}

static int cmp_oid(const void *a, const void *b)
{
	return memcmp(((const struct wg_oid *)a)->hash, ((const struct wg_oid *)b)->hash,
		      sizeof(((const struct wg_oid *)a)->hash));
}

/* A non-pattern refspec names the first remote ref the rules find; one
 * given on the command line that names nothing is an error, as in git. */
static int resolve_specs(struct rfetch *f)
{
	const struct wg_remote_ref_list *refs = f->d.refs;
	struct wg_buf name = WG_BUF_INIT;
	int err = 0;

	if (!(f->resolved = wg_calloc(f->nspecs ? f->nspecs : 1, sizeof(char *))))
		return nomem();
	for (size_t j = 0; j < f->nspecs && !err; j++) {
		const struct wg_remote_ref *r = NULL;
		if (f->specs[j].pattern)
			continue;
		for (size_t k = 0; k < WG_REF_DWIM_RULES && !r; k++) {
			wg_buf_reset(&name);
			if (wg_buf_printf(&name, wg_ref_dwim_rules[k], f->specs[j].src)) {
				err = nomem();
				break;
			}
			r = wg_remote_ref_list_find(refs, wg_buf_cstr(&name));
			if (r && r->unborn)
				r = NULL;
		}
		if (!err && r && !(f->resolved[j] = wg_strdup(r->name)))
			err = nomem();
		else if (!err && !r && f->cmdline)
			err = wg_error_set(WG_ENOTFOUND, "couldn't find remote ref %s",
					   f->specs[j].src);
	}
	wg_buf_release(&name);
	return err;
}

/* git's local side of a refspec: "refs/..." as it is, "heads/x",
 * "tags/x", "remotes/x" under refs/, anything else a branch. */
static int local_dst(const char *dst, struct wg_buf *out)
{
	if (!strncmp(dst, "refs/", 5) || !strcmp(dst, "HEAD"))
		return wg_buf_adds(out, dst);
	if (!strncmp(dst, "heads/", 6) || !strncmp(dst, "tags/", 5) ||
	    !strncmp(dst, "remotes/", 8))
		return wg_buf_printf(out, "refs/%s", dst);
	return wg_buf_printf(out, "refs/heads/%s", dst);
}

/* The branch "git pull" would merge, branch.<current>.merge, when the
 * current branch's remote is the one fetched without refspecs given; NULL
 * otherwise. The string is the config's. */
static const char *branch_merge(struct rfetch *f)
{
	const char *merge = NULL;
	struct wg_ref head;

	if (!f->remote || f->cmdline || wg_refdb_read(&head, wg_repo_refdb(f->repo), "HEAD")) {
		wg_error_clear();
		return NULL;
	}
	if (head.symbolic && !strncmp(head.target, "refs/heads/", 11)) {
		struct wg_buf k = WG_BUF_INIT;
		const char *rem = NULL;
		if (!wg_buf_printf(&k, "branch.%s.remote", head.target + 11) &&
		    !wg_repo_config_get(f->repo, wg_buf_cstr(&k), &rem) && !strcmp(rem, f->remote)) {
			wg_buf_reset(&k);
			if (!wg_buf_printf(&k, "branch.%s.merge", head.target + 11))
				wg_repo_config_get(f->repo, wg_buf_cstr(&k), &merge);
		}
		wg_buf_release(&k);
	}
	wg_ref_release(&head);
	wg_error_clear();
	return merge;
}

static int plan(struct rfetch *f)
{
	const struct wg_remote_ref_list *refs = f->d.refs;
	struct wg_buf local = WG_BUF_INIT;
	const char *merge = branch_merge(f);
	int err = 0;

	if ((err = resolve_specs(f)))
		return err;
	for (size_t i = 0; i < refs->nr && !err; i++) {
		const struct wg_remote_ref *r = &refs->refs[i];
		bool matched = false;
		if (r->unborn)
			continue;
		for (size_t j = 0; j < f->nspecs && !matched && !err; j++) {
			int m;
			if (!f->specs[j].pattern) {
				/* "main" names what it resolved to */
				m = f->resolved[j] && !strcmp(f->resolved[j], r->name);
				if (m) {
					wg_buf_reset(&local);
					if (f->specs[j].dst && local_dst(f->specs[j].dst, &local))
						m = nomem();
				}
			} else {
				m = wg_refspec_map(&f->specs[j], r->name, &local);
			}
			if (m < 0) {
				err = m;
			} else if (m) {
				matched = true;
				err = add_update(f, r, f->specs[j].dst ? wg_buf_cstr(&local) : NULL,
						 f->specs[j].force, false);
				/* git: what the command line names is all for merge */
				if (!err && (f->cmdline || f->default_head ||
					     (merge && !strcmp(merge, r->name))))
					f->updates[f->nupdates - 1].for_merge = true;
			}
		}
		/* Tag following: a tag we do not have, kept if its object is
		 * (or, after the pack, will be) here. */
		if (!err && !matched && f->autotags && !strncmp(r->name, "refs/tags/", 10)) {
			struct wg_ref cur;
			int rerr = wg_refdb_read(&cur, wg_repo_refdb(f->repo), r->name);
			if (!rerr)
				wg_ref_release(&cur);
			else if (rerr == WG_ENOTFOUND)
				err = add_update(f, r, r->name, false, true);
			else
				err = rerr;
			wg_error_clear();
		}
	}
	wg_buf_release(&local);
	if (err)
		return err;
	/* Wants: what the stored refs name and we lack. */
	if (!(f->wants = wg_calloc(f->nupdates ? f->nupdates : 1, sizeof(*f->wants))))
		return nomem();
	for (size_t i = 0; i < f->nupdates; i++) {
		struct rf_update *u = &f->updates[i];
		if (wg_oid_equal(&u->pub.old_oid, &u->pub.new_oid))
			continue;
		/* A followed tag comes with the pack when what it names does
		 * (include-tag); one naming what we already have is asked for
		 * itself, as git does. */
		if (u->is_tag_follow) {
			err = wg_odb_exists(wg_repo_odb(f->repo), &u->peeled);
			if (err < 0)
				return err;
			if (!err)
				continue;
		}
		err = wg_odb_exists(wg_repo_odb(f->repo), &u->pub.new_oid);
		if (err < 0)
			return err;
		if (!err)
			f->wants[f->nwants++] = u->pub.new_oid;
	}
	qsort(f->wants, f->nwants, sizeof(*f->wants), cmp_oid);
	{
		size_t n = 0;
		for (size_t i = 0; i < f->nwants; i++)
			if (!n || !wg_oid_equal(&f->wants[n - 1], &f->wants[i]))
				f->wants[n++] = f->wants[i];
		f->nwants = n;
	}
	return 0;
}

static int start_negotiation(struct rfetch *f)
{
	struct wg_ref_iter *it;
	const struct wg_ref *r;
	struct wg_oid head;
	int err;

	if ((err = wg_negotiator_new(&f->neg, wg_repo_odb(f->repo))) ||
	    (err = wg_refdb_iter_new(&it, wg_repo_refdb(f->repo), "")))
		return err;
	while (!(err = wg_ref_iter_next(&r, it)))
		if (!r->symbolic && (err = wg_negotiator_add_tip(f->neg, &r->oid)))
			break;
	wg_ref_iter_free(it);
	if (err != WG_ITEROVER)
		return err;
	if (!wg_refdb_resolve(&head, NULL, wg_repo_refdb(f->repo), "HEAD", 0) &&
	    (err = wg_negotiator_add_tip(f->neg, &head)))
		return err;
	wg_error_clear();
	f->batch = FIRST_BATCH;
	return 0;
}

static int push_have(struct rfetch *f, const struct wg_oid *oid)
{
	if (f->nhaves == f->haves_alloc) {
		size_t n = f->haves_alloc ? 2 * f->haves_alloc : 64;
		struct wg_oid *v = wg_realloc(f->haves, n * sizeof(*v));
		if (!v)
			return nomem();
		f->haves = v;
		f->haves_alloc = n;
	}
	f->haves[f->nhaves++] = *oid;
	return 0;
}

/* This round's haves: the common ones found so far (the protocol is
 * stateless over HTTP) and the next batch from the walk. */
static int next_haves(struct rfetch *f, size_t batch)
{
	struct wg_oid oid;
	int err = 0;

	f->nhaves = f->ncommon;
	for (size_t i = 0; i < batch; i++) {
		err = wg_negotiator_next(f->neg, &oid);
		if (err == WG_ITEROVER) {
			f->exhausted = true;
			return 0;
		}
		if (err || (err = push_have(f, &oid)))
			return err;
		f->in_vain++;
	}
	return 0;
}

/* The negotiation's side of a response: acknowledged commits become
 * common (their ancestors are not offered again); "ready" ends it. */
static int rf_event(const struct wg_fetch_event *ev, void *payload)
{
	struct rfetch *f = payload;
	int err;

	switch (ev->kind) {
	case WG_FETCH_EV_ACK:
		if ((err = wg_negotiator_ack(f->neg, &ev->oid)))
			return err;
		/* keep it among the haves of later rounds */
		for (size_t i = f->ncommon; i < f->nhaves; i++)
			if (wg_oid_equal(&f->haves[i], &ev->oid)) {
				struct wg_oid t = f->haves[f->ncommon];
				f->haves[f->ncommon] = f->haves[i];
				f->haves[i] = t;
				f->ncommon++;
				f->in_vain = 0;
				break;
			}
		return 0;
	case WG_FETCH_EV_READY:
		f->ready = true;
		return 0;
	case WG_FETCH_EV_SHALLOW:
	case WG_FETCH_EV_UNSHALLOW:
		return wg_error_set(WG_ECORRUPT, "the server sent shallow information to a "
				    "fetch that asked for none");
	default:
		return 0;
	}
}

/* Send `args` (wants, haves, done, include-tag set by the caller) with
 * what every request of a fetch asks: a thin pack with offset deltas, our
 * shallow boundary, progress as wanted; `rcv` receives the answer. */
static int send_request(struct rfetch *f, struct wg_pack_receiver *rcv,
			struct wg_fetch_args *args)
{
	args->algo = f->d.algo;
	args->thin_pack = true;
	args->ofs_delta = true;
	args->no_progress = !f->base.progress || f->base.quiet;
	args->shallows = f->shallows;
	args->nshallows = f->nshallows;
	f->cur = rcv;
	return wg_pack_receiver_request(rcv, &f->base, f->repo, &f->d, args, true, rf_event, f);
}

static int fetch_request(struct rfetch *f)
{
	struct wg_fetch_args args = WG_FETCH_ARGS_INIT;
	bool v2 = f->d.version == 2;
	int err;

	/* v0/v1 over HTTP: one request with our most recent history and
	 * "done" (multi-round negotiation needs the v2 exchange). */
	if ((err = next_haves(f, v2 ? f->batch : MAX_IN_VAIN)))
		return err;
	/* as git: "done" once a round adds no new "have" (the common ones
	 * are repeated in every stateless round; a server that is ready
	 * sends the pack before that) */
	f->done_sent = !v2 || f->nhaves == f->ncommon || f->in_vain >= MAX_IN_VAIN;
	args.wants = f->wants;
	args.nwants = f->nwants;
	args.haves = f->haves;
	args.nhaves = f->nhaves;
	args.done = f->done_sent;
	args.include_tag = f->autotags;
	if ((err = send_request(f, &f->rcv, &args)))
		return err;
	f->rounds++;
	f->ready = false;
	if (f->batch < MAX_BATCH)
		f->batch *= 2;
	return 0;
}

/* --- applying ----------------------------------------------------------------------- */

static int write_fetch_head(struct rfetch *f)
{
	struct wg_lockfile lk = WG_LOCKFILE_INIT;
	struct wg_buf path = WG_BUF_INIT, data = WG_BUF_INIT;
	char hex[WG_MAX_HEXSZ + 1];
	size_t ulen = strlen(f->url);
	int err = 0;

	/* git names the remote without a trailing "/" or ".git". */
	while (ulen && f->url[ulen - 1] == '/')
		ulen--;
	if (ulen > 4 && !strncmp(f->url + ulen - 4, ".git", 4))
		ulen -= 4;
	/* git's order: what "git pull" merges first, then the rest. */
	for (int pass = 0; pass < 2 && !err; pass++)
		for (size_t i = 0; i < f->nupdates && !err; i++) {
			struct rf_update *u = &f->updates[i];
			/* followed tags are listed when they came (apply() drops
			 * the local name of those that did not) */
			if ((u->is_tag_follow && !u->pub.local_name) || u->for_merge != (pass == 0))
				continue;
			/* git: the remote's HEAD is named by the URL alone */
			if (!strcmp(u->pub.remote_name, "HEAD"))
				err = wg_buf_printf(&data, "%s\t%s\t%.*s\n",
						    wg_oid_to_hex(&u->pub.new_oid, hex),
						    u->for_merge ? "" : "not-for-merge", (int)ulen,
						    f->url);
			else
				err = wg_buf_printf(&data, "%s\t%s\t%s%s'%s' of %.*s\n",
						    wg_oid_to_hex(&u->pub.new_oid, hex),
						    u->for_merge ? "" : "not-for-merge", u->kind,
						    *u->kind ? " " : "", u->short_name, (int)ulen,
						    f->url);
		}
	if (err || (err = wg_fs_join(&path, wg_repo_gitdir(f->repo), "FETCH_HEAD")) ||
	    (err = wg_lockfile_acquire(&lk, wg_buf_cstr(&path))) ||
	    (err = wg_lockfile_write(&lk, data.data ? data.data : (unsigned char *)"", data.len)))
		goto done;
	err = wg_lockfile_commit(&lk);
done:
	wg_lockfile_rollback(&lk);
	wg_buf_release(&path);
	wg_buf_release(&data);
	return err;
}

static int fetch_head_path(struct rfetch *f, struct wg_buf *path)
{
	return wg_fs_join(path, wg_repo_gitdir(f->repo), "FETCH_HEAD");
}

static int save_fetch_head(struct rfetch *f, struct wg_buf *old, bool *had)
{
	struct wg_buf path = WG_BUF_INIT;
	int err = fetch_head_path(f, &path);
	if (!err && (err = wg_fs_read_file(old, wg_buf_cstr(&path))) == WG_ENOTFOUND) {
		wg_error_clear();
		err = 0;
	} else if (!err) {
		*had = true;
	}
	wg_buf_release(&path);
	return err;
}

/* Put FETCH_HEAD back as it was, keeping the error being reported. */
static void restore_fetch_head(struct rfetch *f, const struct wg_buf *old, bool had)
{
	struct wg_lockfile lk = WG_LOCKFILE_INIT;
	struct wg_buf path = WG_BUF_INIT;
	struct wg_error_saved first;

	wg_error_save(&first);
	if (!fetch_head_path(f, &path)) {
		if (!had)
			wg_fs_unlink(wg_buf_cstr(&path));
		else if (!wg_lockfile_acquire(&lk, wg_buf_cstr(&path)) &&
			 !wg_lockfile_write(&lk, old->data ? old->data : (unsigned char *)"",
					    old->len))
			wg_lockfile_commit(&lk);
		wg_lockfile_rollback(&lk);
	}
	wg_buf_release(&path);
	wg_error_restore(&first);
}

static int prune(struct rfetch *f, struct wg_ref_transaction *tx)
{
	struct wg_ref_iter *it;
	const struct wg_ref *r;
	int err;

	if ((err = wg_refdb_iter_new(&it, wg_repo_refdb(f->repo), "")))
		return err;
	while (!(err = wg_ref_iter_next(&r, it))) {
		bool ours = false, kept = false;
		for (size_t j = 0; j < f->nspecs && !ours; j++)
			ours = f->specs[j].pattern && wg_refspec_dst_matches(&f->specs[j], r->name);
		if (!ours || r->symbolic)
			continue;
		for (size_t i = 0; i < f->nupdates && !kept; i++)
			kept = f->updates[i].pub.local_name &&
			       !strcmp(f->updates[i].pub.local_name, r->name);
		if (kept)
			continue;
		if ((err = wg_ref_transaction_delete(tx, r->name, &r->oid, 0, "fetch: prune")))
			break;
	}
	wg_ref_iter_free(it);
	return err == WG_ITEROVER ? 0 : err;
}

/* $GIT_DIR/shallow: the commits whose parents a shallow clone lacks. The
 * server must hear of them, and the connectivity check stops there. */
static int read_shallow(struct rfetch *f)
{
	struct wg_buf path = WG_BUF_INIT, data = WG_BUF_INIT;
	const struct wg_hash_algo *algo = wg_repo_algo(f->repo);
	const char *p, *end;
	int err;

	if ((err = wg_fs_join(&path, wg_repo_gitdir(f->repo), "shallow")))
		return err;
	err = wg_fs_read_file(&data, wg_buf_cstr(&path));
	if (err == WG_ENOTFOUND) {
		wg_error_clear();
		err = 0;
		goto done;
	}
	if (err)
		goto done;
	p = (const char *)data.data;
	end = p + data.len;
	if (!(f->shallows = wg_calloc(data.len / algo->hexsz + 1, sizeof(*f->shallows)))) {
		err = nomem();
		goto done;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (len && (len != algo->hexsz ||
			    wg_oid_from_hex(&f->shallows[f->nshallows++], algo, p))) {
			err = wg_error_set(WG_ECORRUPT, "%s: bad line '%.*s'", wg_buf_cstr(&path),
					   (int)(len > 80 ? 80 : len), p);
			break;
		}
		p += len + 1;
	}
done:
	wg_buf_release(&path);
	wg_buf_release(&data);
	return err;
}

/* What the new refs name must be complete down to what our refs already
 * named (git's connectivity check after a fetch). */
static int check_connected(struct rfetch *f)
{
	struct wg_ref_iter *it;
	const struct wg_ref *r;
	struct wg_oid *haves = NULL;
	size_t n = 0, alloc = 0;
	int err;

	if ((err = wg_refdb_iter_new(&it, wg_repo_refdb(f->repo), "")))
		return err;
	while (!(err = wg_ref_iter_next(&r, it))) {
		if (r->symbolic)
			continue;
		if (n == alloc) {
			size_t a = alloc ? 2 * alloc : 64;
			struct wg_oid *v = wg_realloc(haves, a * sizeof(*v));
			if (!v) {
				err = nomem();
				break;
			}
			haves = v;
			alloc = a;
		}
		haves[n++] = r->oid;
	}
	wg_ref_iter_free(it);
	if (err == WG_ITEROVER)
		err = wg_odb_check_connected(wg_repo_odb(f->repo), f->wants, f->nwants, haves, n,
					     f->shallows, f->nshallows,
					     wg_repo_promisor_remote(f->repo, NULL));
	wg_free(haves);
	return err;
}

/* After a failed ref update: does every ref the fetch meant to move still
 * hold its old value? Only then may the new pack go (no ref names it). */
static bool refs_unmoved(struct rfetch *f)
{
	for (size_t i = 0; i < f->nupdates; i++) {
		const struct rf_update *u = &f->updates[i];
		struct wg_ref r = { 0 };
		int e;
		bool same;

		if (!u->pub.local_name || wg_oid_equal(&u->pub.old_oid, &u->pub.new_oid))
			continue;
		e = wg_refdb_read(&r, wg_repo_refdb(f->repo), u->pub.local_name);
		if (e == WG_ENOTFOUND)
			same = wg_oid_is_null(&u->pub.old_oid);
		else
			same = !e && !r.symbolic && wg_oid_equal(&r.oid, &u->pub.old_oid);
		wg_ref_release(&r);
		if (!same)
			return false;
	}
	return true;
}

static int apply(struct rfetch *f)
{
	struct wg_ref_transaction *tx = NULL;
	struct wg_buf msg = WG_BUF_INIT;
	const char *action = f->opts.reflog_action ? f->opts.reflog_action : "fetch";
	char hex[WG_MAX_HEXSZ + 1];
	struct wg_buf old_head = WG_BUF_INIT;
	bool had_head = false;
	int err;

	for (size_t i = 0; i < f->nwants; i++)
		if (wg_odb_exists(wg_repo_odb(f->repo), &f->wants[i]) <= 0)
			return wg_error_set(WG_ECORRUPT, "the server did not send %s, which it "
					    "advertised", wg_oid_to_hex(&f->wants[i], hex));
	if (f->nwants && (err = check_connected(f)))
		return err;
	if ((err = wg_ref_transaction_new(&tx, wg_repo_refdb(f->repo))))
		return err;
	for (size_t i = 0; i < f->nupdates; i++) {
		struct rf_update *u = &f->updates[i];
		const char *what;
		bool ff = false;

		if (!u->pub.local_name)
			continue;
		if (wg_oid_equal(&u->pub.old_oid, &u->pub.new_oid)) {
			u->pub.flag = '=';
			continue;
		}
		if (u->is_tag_follow) {
			int e = wg_odb_exists(wg_repo_odb(f->repo), &u->pub.new_oid);
			if (e < 0) {
				err = e;
				break;
			}
			if (!e) {
				u->pub.flag = '=';   /* not followed: its object did not come */
				wg_free(u->pub.local_name);
				u->pub.local_name = NULL;
				continue;
			}
		}
		if (wg_oid_is_null(&u->pub.old_oid)) {
			u->pub.flag = '*';
			what = !strncmp(u->pub.local_name, "refs/tags/", 10) ? "storing tag" :
			       "storing head";
		} else {
			if ((err = wg_odb_is_ancestor(wg_repo_odb(f->repo), &u->pub.old_oid,
						      &u->pub.new_oid, &ff)))
				break;
			if (!ff && (!u->force || !strncmp(u->pub.local_name, "refs/tags/", 10))) {
				/* git rejects it and goes on with the others */
				u->pub.flag = '!';
				continue;
			}
			u->pub.flag = ff ? ' ' : '+';
			what = ff ? "fast-forward" : "forced-update";
		}
		wg_buf_reset(&msg);
		if (wg_buf_printf(&msg, "%s: %s", action, what)) {
			err = nomem();
			break;
		}
		if ((err = wg_ref_transaction_update(tx, u->pub.local_name, &u->pub.new_oid,
						     &u->pub.old_oid, 0, wg_buf_cstr(&msg))))
			break;
	}
	if (!err && f->opts.prune)
		err = prune(f, tx);
	/* FETCH_HEAD before the refs, and put back if they cannot move: the
	 * fetch happens entirely or not at all. */
	if (!err && !(err = save_fetch_head(f, &old_head, &had_head)) &&
	    !(err = write_fetch_head(f)) && (err = wg_ref_transaction_commit(tx)))
		restore_fetch_head(f, &old_head, had_head);
	wg_ref_transaction_free(tx);
	wg_buf_release(&msg);
	wg_buf_release(&old_head);
	if (err)
		return err;
	f->state = RF_DONE;
	return 0;
}

/* Followed tags whose object is missing while what they name is here now
 * (git's find_non_local_tags after the first pack): their ids join the
 * wants, and a second request asks for them. Returns how many. */
static int tags_to_backfill(struct rfetch *f, size_t *n)
{
	struct wg_odb *odb = wg_repo_odb(f->repo);
	struct wg_oid *v;
	int err;

	*n = 0;
	if (!f->autotags)
		return 0;
	for (size_t i = 0; i < f->nupdates; i++) {
		const struct rf_update *u = &f->updates[i];
		if (!u->is_tag_follow || !u->pub.local_name ||
		    wg_oid_equal(&u->pub.old_oid, &u->pub.new_oid))
			continue;
		if ((err = wg_odb_exists(odb, &u->pub.new_oid)) < 0)
			return err;
		if (err)
			continue;
		if ((err = wg_odb_exists(odb, &u->peeled)) < 0)
			return err;
		if (!err)
			continue;
		if (!(v = wg_realloc(f->wants, (f->nwants + 1) * sizeof(*v))))
			return nomem();
		f->wants = v;
		f->wants[f->nwants++] = u->pub.new_oid;
		(*n)++;
	}
	return 0;
}

/* The backfill request: the tags, with what the first pack brought as
 * haves, so that only the tag objects come. */
static int backfill_request(struct rfetch *f)
{
	struct wg_fetch_args args = WG_FETCH_ARGS_INIT;

	args.wants = f->wants + f->nfirst_wants;
	args.nwants = f->nwants - f->nfirst_wants;
	args.haves = f->wants;
	args.nhaves = f->nfirst_wants;
	args.done = true;
	return send_request(f, &f->tags_rcv, &args);
}

/* --- a static host --------------------------------------------------------------------- */

static int dumb_start(struct wg_remote_op *op)
{
	struct rfetch *f = RF(op);
	int err;

	struct wg_ref_iter *it;
	const struct wg_ref *r;

	if ((err = wg_dumb_fetch_new(&f->dumb, op, f->repo, f->d.url)) ||
	    (err = wg_refdb_iter_new(&it, wg_repo_refdb(f->repo), "")))
		return err;
	/* what our refs name is complete (the connectivity check in apply()
	 * relies on the same) */
	while (!(err = wg_ref_iter_next(&r, it)))
		if (!r->symbolic && (err = wg_dumb_fetch_have(f->dumb, &r->oid)))
			break;
	wg_ref_iter_free(it);
	if (err != WG_ITEROVER)
		return err;
	for (size_t i = 0; i < f->nwants; i++)
		if ((err = wg_dumb_fetch_want(f->dumb, &f->wants[i])))
			return err;
	f->state = RF_DUMB;
	return 0;
}

/* The walk went as far as it could: the followed tags whose objects
 * are missing while what they name is here now are walked too (git's
 * second fetch for them), then the refs move. */
static int dumb_next(struct rfetch *f)
{
	size_t ntags = 0;
	int err;

	for (;;) {
		err = wg_dumb_fetch_next_request(f->dumb);
		if (err != WG_ITEROVER)
			return err;
		if (f->dumb_backfilled)
			break;
		f->dumb_backfilled = true;
		f->nfirst_wants = f->nwants;
		if ((err = tags_to_backfill(f, &ntags)))
			return err;
		for (size_t i = f->nfirst_wants; i < f->nwants; i++)
			if ((err = wg_dumb_fetch_want(f->dumb, &f->wants[i])))
				return err;
		if (!ntags)
			break;
	}
	if ((err = apply(f)))
		return err;
	return WG_ITEROVER;
}

/* --- the operation ----------------------------------------------------------------------- */

static int rf_next(struct wg_remote_op *op)
{
	struct rfetch *f = RF(op);
	int err;

	switch (f->state) {
	case RF_DISCOVERY:
		err = wg_discovery_next_request(&f->d, op);
		if (err != WG_ITEROVER)
			return err;
		if ((err = plan(f)) || (err = read_shallow(f)))
			return err;
		if (!f->nwants) {
			if ((err = apply(f)))
				return err;
			return WG_ITEROVER;
		}
		if (f->d.dumb) {
			if ((err = dumb_start(op)))
				return err;
			goto dumb;
		}
		if ((err = start_negotiation(f)))
			return err;
		f->state = RF_NEGOTIATE;
		/* fall through */
	case RF_NEGOTIATE:
		if ((err = fetch_request(f)))
			return err;
		f->state = RF_WAITING;
		return 0;
	case RF_BACKFILL:
		if ((err = backfill_request(f)))
			return err;
		f->state = RF_WAITING;
		return 0;
	case RF_DUMB:
	dumb:
		err = dumb_next(f);
		/* all or nothing: if no ref moved, what the walk stored goes */
		if (err && err != WG_ITEROVER && refs_unmoved(f))
			wg_dumb_fetch_discard(f->dumb);
		return err;
	case RF_DONE:
		return WG_ITEROVER;
	default:
		return wg_error_set(WG_EINVALID, "fetch: a response is still expected");
	}
}

/* A failed walk leaves nothing (no ref has moved yet). */
static int dumb_failed(struct rfetch *f, int err)
{
	if (err)
		wg_dumb_fetch_discard(f->dumb);
	return err;
}

static int rf_begin(struct wg_remote_op *op, int status, const char *type)
{
	struct rfetch *f = RF(op);

	if (f->state == RF_DISCOVERY)
		return wg_discovery_response_begin(&f->d, op, status, type);
	if (f->state == RF_DUMB)
		return dumb_failed(f, wg_dumb_fetch_response_begin(f->dumb, status, type));
	return wg_remote_check_response(f->d.url, status, type,
					"application/x-git-upload-pack-result");
}

static int rf_feed(struct wg_remote_op *op, const void *data, size_t len)
{
	struct rfetch *f = RF(op);

	if (f->state == RF_DISCOVERY)
		return wg_discovery_feed(&f->d, data, len);
	if (f->state == RF_DUMB)
		return dumb_failed(f, wg_dumb_fetch_feed(f->dumb, data, len));
	return wg_pack_receiver_feed(f->cur, data, len);
}

static int rf_end(struct wg_remote_op *op)
{
	struct rfetch *f = RF(op);
	unsigned char hash[WG_MAX_RAWSZ];
	bool got_pack, backfill = f->cur == &f->tags_rcv;
	size_t ntags = 0;
	int err;

	if (f->state == RF_DISCOVERY)
		return wg_discovery_response_end(&f->d);
	if (f->state == RF_DUMB)
		return dumb_failed(f, wg_dumb_fetch_response_end(f->dumb));
	if ((err = wg_pack_receiver_finish(f->cur, &got_pack, hash)))
		goto fail;
	if (!got_pack) {
		if (f->done_sent || backfill) {
			err = wg_error_set(WG_ECORRUPT, "the server sent no pack");
			goto fail;
		}
		f->state = RF_NEGOTIATE;      /* another round of haves */
		return 0;
	}
	f->pack_bytes += f->cur->pack_bytes;
	if (wg_repo_promisor_remote(f->repo, NULL) &&
	    (err = wg_pack_receiver_mark_promisor(f->cur, hash)))
		goto fail;
	if (!backfill) {
		f->nfirst_wants = f->nwants;
		if ((err = tags_to_backfill(f, &ntags)))
			goto fail;
		if (ntags) {
			f->state = RF_BACKFILL;
			return 0;
		}
	}
	if ((err = apply(f)))
		goto fail;
	return 0;
fail:
	/* All or nothing: if no ref moved, the packs go too. */
	if (refs_unmoved(f)) {
		wg_pack_receiver_discard(&f->rcv);
		wg_pack_receiver_discard(&f->tags_rcv);
	}
	return err;
}

static void rf_free(struct wg_remote_op *op)
{
	struct rfetch *f = RF(op);

	wg_pack_receiver_release(&f->rcv);
	wg_pack_receiver_release(&f->tags_rcv);
	wg_dumb_fetch_free(f->dumb);
	wg_negotiator_free(f->neg);
	wg_discovery_release(&f->d);
	for (size_t i = 0; i < f->nspecs; i++) {
		wg_refspec_release(&f->specs[i]);
		if (f->resolved)
			wg_free(f->resolved[i]);
	}
	wg_free(f->specs);
	wg_free(f->resolved);
	for (size_t i = 0; i < f->nprefixes; i++)
		wg_free(f->prefixes[i]);
	wg_free(f->prefixes);
	for (size_t i = 0; i < f->nupdates; i++) {
		wg_free(f->updates[i].pub.remote_name);
		wg_free(f->updates[i].pub.local_name);
	}
	wg_free(f->updates);
	wg_free(f->pub);
	wg_free(f->wants);
	wg_free(f->shallows);
	wg_free(f->haves);
	wg_free(f->remote);
	wg_free(f->url);
	wg_free(f);
}

static const struct wg_remote_op_vtable rf_vtable = { rf_next, rf_begin, rf_feed, rf_end,
						      rf_free };

struct spec_list {
	struct rfetch *f;
	int err;
};

static int add_spec(const char *value, void *payload)
{
	struct spec_list *l = payload;
	struct wg_refspec *v;

	if (!value)
		return 0;
	if (!(v = wg_realloc(l->f->specs, (l->f->nspecs + 1) * sizeof(*v))))
		return l->err = nomem();
	l->f->specs = v;
	if ((l->err = wg_refspec_parse(&v[l->f->nspecs], value)))
		return l->err;
	l->f->nspecs++;
	return 0;
}

/* The ls-refs ref-prefix values, as git's fetch makes them
 * (builtin/fetch.c): the refspecs' (a pattern's fixed part, a name every
 * way the rules spell it), else the remote's, with the branch "git pull"
 * would merge, or HEAD when that is all; refs/tags/ unless tags are off;
 * HEAD again when the remote's HEAD is followed (remote.<name>.fetch set
 * and followRemoteHEAD not "never"). */
static int add_prefixes(struct rfetch *f, bool tags, bool follow_head)
{
	struct wg_buf p = WG_BUF_INIT;
	const size_t nrules = WG_REF_DWIM_RULES;
	const char *merge = branch_merge(f);

	if (!(f->prefixes = wg_calloc(f->nspecs * nrules + 4, sizeof(char *))))
		return nomem();
	for (size_t i = 0; i < f->nspecs && !f->default_head; i++) {
		/* a pattern's fixed part; a name, every way the rules spell it */
		for (size_t k = 0; k < (f->specs[i].pattern ? 1 : nrules); k++) {
			wg_buf_reset(&p);
			if ((f->specs[i].pattern ? !wg_refspec_prefix(&f->specs[i], &p) :
			     wg_buf_printf(&p, wg_ref_dwim_rules[k], f->specs[i].src) != 0) ||
			    !(f->prefixes[f->nprefixes++] = wg_strdup(wg_buf_cstr(&p)))) {
				wg_buf_release(&p);
				return nomem();
			}
		}
	}
	wg_buf_release(&p);
	if ((merge && !(f->prefixes[f->nprefixes++] = wg_strdup(merge))) ||
	    (!f->nprefixes && !(f->prefixes[f->nprefixes++] = wg_strdup("HEAD"))) ||
	    (tags && !(f->prefixes[f->nprefixes++] = wg_strdup("refs/tags/"))) ||
	    (follow_head && !(f->prefixes[f->nprefixes++] = wg_strdup("HEAD"))))
		return nomem();
	f->d.prefixes = (const char *const *)f->prefixes;
	f->d.nprefixes = f->nprefixes;
	return 0;
}

int wg_remote_fetch_new(struct wg_remote_op **out, struct wg_repo *repo, const char *remote,
			const struct wg_remote_fetch_options *opts)
{
	static const struct wg_remote_fetch_options defaults = WG_REMOTE_FETCH_OPTIONS_INIT;
	struct rfetch *f;
	struct wg_buf key = WG_BUF_INIT;
	struct spec_list sl;
	const char *url = NULL;
	bool tags = !(opts ? opts : &defaults)->no_tags, follow_head = false;
	int err;

	if (!opts)
		opts = &defaults;
	if (!(f = wg_calloc(1, sizeof(*f))))
		return nomem();
	f->base.vt = &rf_vtable;
	f->repo = repo;
	f->opts = *opts;
	f->base.progress = opts->progress;
	f->base.progress_payload = opts->progress_payload;
	f->base.quiet = opts->quiet;
	sl.f = f;
	sl.err = 0;
	f->cmdline = opts->nrefspecs != 0;
	if (wg_remote_is_url(remote)) {
		/* git fetch <url>: an anonymous remote, no configuration */
		url = remote;
	} else {
		if (!(f->remote = wg_strdup(remote)) ||
		    wg_buf_printf(&key, "remote.%s.url", remote)) {
			err = nomem();
			goto fail;
		}
		if ((err = wg_repo_config_get(repo, wg_buf_cstr(&key), &url))) {
			err = wg_error_set(WG_ENOTFOUND, "'%s' does not appear to be a git "
					   "repository", remote);
			goto fail;
		}
	}
	if (!(f->url = wg_url_redact_dup(url))) {
		err = nomem();
		goto fail;
	}
	if ((err = wg_remote_op_set_credentials(&f->base, url)))
		goto fail;
	if (opts->nrefspecs) {
		for (size_t i = 0; i < opts->nrefspecs && !sl.err; i++) {
			add_spec(opts->refspecs[i], &sl);
			/* git follows tags when a refspec stores something */
			if (!sl.err && f->specs[f->nspecs - 1].dst)
				f->autotags = true;
		}
	} else if (!f->remote) {
		f->default_head = true;
		add_spec("HEAD", &sl);
	} else {
		f->autotags = true;
		wg_buf_reset(&key);
		if (wg_buf_printf(&key, "remote.%s.fetch", remote)) {
			err = nomem();
			goto fail;
		}
		err = wg_config_get_all(wg_repo_config(repo), wg_buf_cstr(&key), add_spec, &sl);
		if (err == WG_ENOTFOUND) {
			wg_error_clear();
			/* no refspec: fetch the remote's HEAD into FETCH_HEAD only,
			 * without tags */
			f->autotags = false;
			f->default_head = true;
			add_spec("HEAD", &sl);
		}
	}
	if (f->remote && !sl.err) {
		/* remote.<name>.tagOpt = --no-tags (what clone --mirror
		 * writes) turns tag following off, as --no-tags does */
		const char *tagopt = NULL;
		wg_buf_reset(&key);
		if (wg_buf_printf(&key, "remote.%s.tagopt", remote)) {
			err = nomem();
			goto fail;
		}
		if (wg_config_get_string(wg_repo_config(repo), wg_buf_cstr(&key), &tagopt))
			wg_error_clear();
		else if (tagopt && !strcmp(tagopt, "--no-tags"))
			f->autotags = tags = false;
		/* git keeps refs/remotes/<name>/HEAD with the remote's unless
		 * remote.<name>.followRemoteHEAD is "never": it asks for HEAD */
		if (!f->cmdline && !f->default_head) {
			const char *follow = NULL;
			wg_buf_reset(&key);
			if (wg_buf_printf(&key, "remote.%s.followremotehead", remote)) {
				err = nomem();
				goto fail;
			}
			if (wg_config_get_string(wg_repo_config(repo), wg_buf_cstr(&key), &follow))
				wg_error_clear();
			follow_head = !follow || strcmp(follow, "never");
		}
	}
	if (opts->no_tags)
		f->autotags = false;
	if ((err = sl.err) || (err = wg_discovery_init(&f->d, f->url, wg_repo_algo(repo))) ||
	    (err = add_prefixes(f, tags, follow_head)))
		goto fail;
	f->d.allow_dumb = true;
	wg_buf_release(&key);
	f->base.discovery = &f->d;
	*out = &f->base;
	return 0;
fail:
	wg_buf_release(&key);
	rf_free(&f->base);
	return err;
}

size_t wg_remote_fetch_updates(struct wg_remote_op *op, const struct wg_remote_fetch_update **out)
{
	struct rfetch *f = RF(op);
	struct wg_remote_fetch_update *v = wg_realloc(f->pub, (f->nupdates ? f->nupdates : 1) *
						      sizeof(*v));
	if (!v) {
		*out = NULL;
		return 0;
	}
	f->pub = v;
	for (size_t i = 0; i < f->nupdates; i++)
		v[i] = f->updates[i].pub;
	*out = v;
	return f->nupdates;
}

uint64_t wg_remote_fetch_pack_bytes(struct wg_remote_op *op)
{
	return RF(op)->pack_bytes;
}

unsigned wg_remote_fetch_rounds(struct wg_remote_op *op)
{
	return RF(op)->rounds;
}

const char *wg_remote_fetch_url(struct wg_remote_op *op)
{
	return RF(op)->url;
}
