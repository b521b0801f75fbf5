#include "remote/remote_push.h"

#include <string.h>

#include "odb/reachable.h"
#include "pack/writer.h"
#include "protocol/push.h"
#include "refs/refdb.h"
#include "refs/refname.h"
#include "remote/operation_internal.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/url.h"

enum rp_state { RP_DISCOVERY = 0, RP_NEED_PUSH, RP_WAITING, RP_DONE };

struct rpush {
	struct wg_remote_op base;
	struct wg_repo *repo;
	char *remote;                /* NULL when pushing to a URL */
	char *url;                   /* without user information */
	struct wg_remote_push_options opts;
	char **specs;
	size_t nspecs;
	enum rp_state state;
	struct wg_discovery d;
	struct wg_remote_push_result *results;
	size_t nresults;
	struct wg_push_command *commands;
	size_t ncommands;
	size_t *command_result;          /* results index of each command */
	struct wg_push_args args;
	struct wg_push_response *resp;
};

#define RP(op) ((struct rpush *)(op))

static int nomem(void)
{
	return wg_error_set(WG_ENOMEM, "out of memory");
}

static const char *const receive_pack_headers[] = {
	"Content-Type: application/x-git-receive-pack-request",
	"Accept: application/x-git-receive-pack-result",
};

/* "main" -> "refs/heads/main" when that exists (git's DWIM for push
 * sources); full names as they are. */
static int resolve_src(struct rpush *p, const char *src, char **full, struct wg_oid *oid)
{
	static const char *const tries[] = { "%s", "refs/%s", "refs/tags/%s", "refs/heads/%s" };
	struct wg_buf name = WG_BUF_INIT;
	int err = WG_ENOTFOUND;

	for (size_t i = 0; i < sizeof(tries) / sizeof(*tries) && err == WG_ENOTFOUND; i++) {
		wg_buf_reset(&name);
		if (wg_buf_printf(&name, tries[i], src)) {
			err = nomem();
			break;
		}
		if (!wg_refdb_name_is_valid(wg_buf_cstr(&name)))
			continue;
		err = wg_refdb_resolve(oid, full, wg_repo_refdb(p->repo), wg_buf_cstr(&name), 0);
		if (err == WG_ENOTFOUND)
			wg_error_clear();
	}
	wg_buf_release(&name);
	/* an object id names itself (git takes any object name here; a full
	 * id is what scripts and tools pass) */
	if (err == WG_ENOTFOUND && !wg_oid_from_hex_str(oid, wg_repo_algo(p->repo), src)) {
		wg_error_clear();
		if (wg_odb_exists(wg_repo_odb(p->repo), oid) > 0) {
			*full = NULL;
			return 0;
		}
	}
	if (err == WG_ENOTFOUND)
		return wg_error_set(WG_ENOTFOUND, "src refspec %s does not match any", src);
	return err;
}

/* Turn the refspecs into results (and, for what must change, commands). */
static int plan(struct rpush *p)
{
	const struct wg_remote_ref_list *remote = p->d.refs;
	int err = 0;

	if (!(p->results = wg_calloc(p->nspecs, sizeof(*p->results))) ||
	    !(p->commands = wg_calloc(p->nspecs, sizeof(*p->commands))) ||
	    !(p->command_result = wg_calloc(p->nspecs, sizeof(*p->command_result))))
		return nomem();
	for (size_t i = 0; i < p->nspecs && !err; i++) {
		struct wg_remote_push_result *r = &p->results[p->nresults++];
		const char *spec = p->specs[i], *colon;
		const struct wg_remote_ref *theirs;
		bool force = p->opts.force;
		char *src_full = NULL;

		if (*spec == '+') {
			force = true;
			spec++;
		}
		colon = strchr(spec, ':');
		wg_oid_null(&r->new_oid, p->d.algo);
		wg_oid_null(&r->old_oid, p->d.algo);
		if (colon == spec) {
			/* ":dst" deletes */
			r->deleted = true;
			if (!(r->dst = wg_strdup(colon + 1)))
				return nomem();
		} else {
			char *src = colon ? wg_strndup(spec, (size_t)(colon - spec)) : wg_strdup(spec);
			if (!src)
				return nomem();
			err = resolve_src(p, src, &src_full, &r->new_oid);
			r->src = src;
			if (err)
				break;
			if (!colon && !src_full)
				return wg_error_set(WG_EINVALID, "the destination you provided is not a "
						    "full refname: push %s to <object>:refs/...", src);
			r->dst = colon ? wg_strdup(colon + 1) : wg_strdup(src_full);
			wg_free(src_full);
			if (!r->dst)
				return nomem();
		}
		/* "main" as a destination means the branch, as in git */
		if (strncmp(r->dst, "refs/", 5)) {
			char *full = wg_malloc(strlen(r->dst) + 12);
			if (!full)
				return nomem();
			strcpy(full, "refs/heads/");
			strcat(full, r->dst);
			wg_free(r->dst);
			r->dst = full;
		}
		if (!wg_refname_is_valid(r->dst, 0))
			return wg_error_set(WG_EINVALID, "invalid destination ref '%s'", r->dst);
		theirs = wg_remote_ref_list_find(remote, r->dst);
		if (theirs)
			r->old_oid = theirs->oid;
		if (r->deleted && !theirs) {
			/* git: "unable to delete 'x': remote ref does not exist" */
			return wg_error_set(WG_ENOTFOUND, "unable to delete '%s': remote ref does "
					    "not exist", r->dst);
		}
		r->created = !theirs;
		if (theirs && wg_oid_equal(&r->old_oid, &r->new_oid)) {
			r->state = WG_REMOTE_PUSH_UP_TO_DATE;
			continue;
		}
		if (theirs && !r->deleted) {
			bool ff = false;
			int have = wg_odb_exists(wg_repo_odb(p->repo), &r->old_oid);
			if (have < 0)
				return have;
			if (have && (err = wg_odb_is_ancestor(wg_repo_odb(p->repo), &r->old_oid,
							      &r->new_oid, &ff)))
				break;
			if (!ff && !force) {
				r->state = have ? WG_REMOTE_PUSH_REJECTED_NONFF :
					   WG_REMOTE_PUSH_REJECTED_FETCH_FIRST;
				continue;
			}
			r->forced = !ff;
		}
		p->commands[p->ncommands].old_oid = r->old_oid;
		p->commands[p->ncommands].new_oid = r->new_oid;
		p->commands[p->ncommands].refname = r->dst;
		p->command_result[p->ncommands++] = p->nresults - 1;
		r->state = WG_REMOTE_PUSH_OK;      /* until the server says otherwise */
	}
	return err;
}

struct pack_ctx {
	struct wg_pack_writer *w;
	int err;
};

static int add_object(const struct wg_oid *oid, enum wg_object_type type, const char *path,
		      void *payload)
{
	struct pack_ctx *c = payload;
	(void)type;
	return c->err = wg_pack_writer_add(c->w, oid, path);
}

static int add_boundary(const struct wg_oid *oid, const char *path, void *payload)
{
	struct pack_ctx *c = payload;
	return c->err = wg_pack_writer_add_have(c->w, oid, path);
}

/* The objects the remote lacks: reachable from what we push, not from
 * anything it advertised that we have. Thin: its objects may be bases. */
static int write_pack(struct rpush *p)
{
	struct wg_pack_writer_options wo = WG_PACK_WRITER_OPTIONS_INIT;
	struct wg_object_source src;
	const struct wg_remote_ref_list *remote = p->d.refs;
	struct wg_oid *tips = NULL, *haves = NULL;
	size_t ntips = 0, nhaves = 0;
	struct pack_ctx ctx = { NULL, 0 };
	int err;

	if (!(tips = wg_calloc(p->ncommands + 1, sizeof(*tips))) ||
	    !(haves = wg_calloc(remote->nr + 1, sizeof(*haves)))) {
		err = nomem();
		goto done;
	}
	for (size_t i = 0; i < p->ncommands; i++)
		if (!wg_oid_is_null(&p->commands[i].new_oid))
			tips[ntips++] = p->commands[i].new_oid;
	for (size_t i = 0; i < remote->nr; i++) {
		int have = wg_odb_exists(wg_repo_odb(p->repo), &remote->refs[i].oid);
		if (have < 0) {
			err = have;
			goto done;
		}
		if (have)
			haves[nhaves++] = remote->refs[i].oid;
	}
	wo.thin = !wg_caps_has(p->d.caps, "no-thin");
	src = wg_odb_object_source(wg_repo_odb(p->repo));
	if ((err = wg_pack_writer_new(&ctx.w, &src, &wo)) ||
	    (err = wg_odb_reachable(wg_repo_odb(p->repo), tips, ntips, haves, nhaves, add_object,
				    wo.thin ? add_boundary : NULL, &ctx)))
		goto done;
	err = wg_pack_writer_write(ctx.w, wg_pack_buf_sink_write, &p->base.body);
done:
	wg_pack_writer_free(ctx.w);
	wg_free(tips);
	wg_free(haves);
	return err;
}

static int push_request(struct rpush *p)
{
	int err;

	p->args = (struct wg_push_args)WG_PUSH_ARGS_INIT;
	p->args.algo = p->d.algo;
	p->args.commands = p->commands;
	p->args.ncommands = p->ncommands;
	p->args.atomic = p->opts.atomic;
	p->args.push_options = p->opts.push_options;
	p->args.npush_options = p->opts.npush_options;
	p->args.quiet = !p->base.progress || p->base.quiet;
	wg_buf_reset(&p->base.body);
	if ((err = wg_push_request(&p->base.body, p->d.caps, &p->args)) ||
	    (wg_push_needs_pack(&p->args) && (err = write_pack(p))) ||
	    (err = wg_push_response_new_for(&p->resp, p->d.caps, &p->args)))
		return err;
	return wg_remote_op_set_request(&p->base, "POST", p->d.url, "/git-receive-pack",
					receive_pack_headers, 2);
}

/* Pushed branches move their remote-tracking refs (git's "update tracking
 * ref"): refs/heads/X -> refs/remotes/<remote>/X. */
static int update_tracking(struct rpush *p)
{
	struct wg_ref_transaction *tx = NULL;
	struct wg_buf name = WG_BUF_INIT;
	int err;

	if (!p->remote)
		return 0;   /* a push to a URL has no remote-tracking refs */
	if ((err = wg_ref_transaction_new(&tx, wg_repo_refdb(p->repo))))
		return err;
	for (size_t i = 0; i < p->nresults && !err; i++) {
		const struct wg_remote_push_result *r = &p->results[i];
		if (r->state != WG_REMOTE_PUSH_OK || strncmp(r->dst, "refs/heads/", 11))
			continue;
		wg_buf_reset(&name);
		if (wg_buf_printf(&name, "refs/remotes/%s/%s", p->remote, r->dst + 11)) {
			err = nomem();
			break;
		}
		if (r->deleted)
			err = wg_ref_transaction_delete(tx, wg_buf_cstr(&name), NULL, 0,
							"update by push");
		else
			err = wg_ref_transaction_update(tx, wg_buf_cstr(&name), &r->new_oid, NULL, 0,
							"update by push");
	}
	if (!err && wg_ref_transaction_count(tx))
		err = wg_ref_transaction_commit(tx);
	wg_ref_transaction_free(tx);
	wg_buf_release(&name);
	return err;
}

static int apply_report(struct rpush *p)
{
	const struct wg_push_report *rep = wg_push_response_report(p->resp);
	bool any_failed = false;
	int err;

	if (!rep->unpack_ok)
		return wg_error_set(WG_ERROR, "the remote could not unpack what we sent: %s",
				    rep->unpack_error ? rep->unpack_error : "(no reason given)");
	for (size_t i = 0; i < rep->nrefs; i++) {
		const struct wg_push_ref_status *st = &rep->refs[i];
		for (size_t k = 0; k < p->ncommands; k++) {
			struct wg_remote_push_result *r = &p->results[p->command_result[k]];
			if (strcmp(p->commands[k].refname, st->refname))
				continue;
			if (!st->ok) {
				any_failed = true;
				r->state = WG_REMOTE_PUSH_REMOTE_REJECTED;
				if (st->reason && !(r->reason = wg_strdup(st->reason)))
					return nomem();
			}
		}
	}
	if (p->opts.atomic && any_failed)
		for (size_t k = 0; k < p->ncommands; k++) {
			struct wg_remote_push_result *r = &p->results[p->command_result[k]];
			if (r->state == WG_REMOTE_PUSH_OK)
				r->state = WG_REMOTE_PUSH_ATOMIC_FAILED;
		}
	if ((err = update_tracking(p)))
		return err;
	p->state = RP_DONE;
	return 0;
}

static int rp_next(struct wg_remote_op *op)
{
	struct rpush *p = RP(op);
	int err;

	switch (p->state) {
	case RP_DISCOVERY:
		err = wg_discovery_next_request(&p->d, op);
		if (err != WG_ITEROVER)
			return err;
		if ((err = plan(p)))
			return err;
		/* Nothing to send; or, atomically, a ref refused here stops all. */
		if (!p->ncommands || (p->opts.atomic && !wg_remote_push_all_ok(op))) {
			if (p->opts.atomic)
				for (size_t k = 0; k < p->ncommands; k++)
					p->results[p->command_result[k]].state =
						WG_REMOTE_PUSH_ATOMIC_FAILED;
			p->state = RP_DONE;
			return WG_ITEROVER;
		}
		if ((err = push_request(p)))
			return err;
		p->state = RP_WAITING;
		return 0;
	case RP_DONE:
		return WG_ITEROVER;
	default:
		return wg_error_set(WG_EINVALID, "push: a response is still expected");
	}
}

static int rp_begin(struct wg_remote_op *op, int status, const char *type)
{
	struct rpush *p = RP(op);

	if (p->state == RP_DISCOVERY)
		return wg_discovery_response_begin(&p->d, op, status, type);
	return wg_remote_check_response(p->d.url, status, type,
					"application/x-git-receive-pack-result");
}

static int rp_feed(struct wg_remote_op *op, const void *data, size_t len)
{
	struct rpush *p = RP(op);

	if (p->state == RP_DISCOVERY)
		return wg_discovery_feed(&p->d, data, len);
	return wg_push_response_feed(p->resp, data, len);
}

static int rp_end(struct wg_remote_op *op)
{
	struct rpush *p = RP(op);
	int err;

	if (p->state == RP_DISCOVERY)
		return wg_discovery_response_end(&p->d);
	if ((err = wg_push_response_finish(p->resp)))
		return err;
	return apply_report(p);
}

static void rp_free(struct wg_remote_op *op)
{
	struct rpush *p = RP(op);

	wg_push_response_free(p->resp);
	wg_discovery_release(&p->d);
	for (size_t i = 0; i < p->nspecs; i++)
		wg_free(p->specs[i]);
	wg_free(p->specs);
	for (size_t i = 0; i < p->nresults; i++) {
		wg_free(p->results[i].src);
		wg_free(p->results[i].dst);
		wg_free(p->results[i].reason);
	}
	wg_free(p->results);
	wg_free(p->commands);
	wg_free(p->command_result);
	wg_free(p->remote);
	wg_free(p->url);
	wg_free(p);
}

static const struct wg_remote_op_vtable rp_vtable = { rp_next, rp_begin, rp_feed, rp_end,
						      rp_free };

int wg_remote_push_new(struct wg_remote_op **out, struct wg_repo *repo, const char *remote,
		       const char *const *refspecs, size_t nrefspecs,
		       const struct wg_remote_push_options *opts)
{
	static const struct wg_remote_push_options defaults = WG_REMOTE_PUSH_OPTIONS_INIT;
	struct rpush *p;
	struct wg_buf key = WG_BUF_INIT;
	const char *url = NULL;
	int err;

	if (!opts)
		opts = &defaults;
	if (!nrefspecs)
		return wg_error_set(WG_EINVALID, "nothing to push: name the refs to push");
	if (!(p = wg_calloc(1, sizeof(*p))))
		return nomem();
	p->base.vt = &rp_vtable;
	p->repo = repo;
	p->opts = *opts;
	p->base.progress = opts->progress;
	p->base.progress_payload = opts->progress_payload;
	p->base.quiet = opts->quiet;
	if ((!wg_remote_is_url(remote) &&
	     (!(p->remote = wg_strdup(remote)) || wg_buf_printf(&key, "remote.%s.url", remote))) ||
	    !(p->specs = wg_calloc(nrefspecs, sizeof(char *)))) {
		err = nomem();
		goto fail;
	}
	for (size_t i = 0; i < nrefspecs; i++, p->nspecs++)
		if (!(p->specs[i] = wg_strdup(refspecs[i]))) {
			err = nomem();
			goto fail;
		}
	if (!p->remote) {
		url = remote;   /* git push <url>: no configuration */
	} else if (wg_repo_config_get(repo, wg_buf_cstr(&key), &url)) {
		err = wg_error_set(WG_ENOTFOUND, "'%s' does not appear to be a git repository",
				   remote);
		goto fail;
	}
	if (!(p->url = wg_url_redact_dup(url))) {
		err = nomem();
		goto fail;
	}
	if ((err = wg_remote_op_set_credentials(&p->base, url)))
		goto fail;
	if ((err = wg_discovery_init_push(&p->d, p->url, wg_repo_algo(repo))))
		goto fail;
	wg_buf_release(&key);
	*out = &p->base;
	return 0;
fail:
	wg_buf_release(&key);
	rp_free(&p->base);
	return err;
}

const char *wg_remote_push_url(struct wg_remote_op *op)
{
	return RP(op)->url;
}

size_t wg_remote_push_results(struct wg_remote_op *op, const struct wg_remote_push_result **out)
{
	*out = RP(op)->results;
	return RP(op)->nresults;
}

bool wg_remote_push_all_ok(struct wg_remote_op *op)
{
	struct rpush *p = RP(op);

	for (size_t i = 0; i < p->nresults; i++)
		if (p->results[i].state != WG_REMOTE_PUSH_OK &&
		    p->results[i].state != WG_REMOTE_PUSH_UP_TO_DATE)
			return false;
	return true;
}
