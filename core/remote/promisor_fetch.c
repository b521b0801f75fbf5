#include "remote/promisor_fetch.h"

#include <stdio.h>
#include <string.h>

#include "remote/operation_internal.h"
#include "remote/pack_receiver.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/url.h"
#include "util/fs.h"

enum pf_state { PF_DISCOVERY = 0, PF_WAITING, PF_DONE };

struct pfetch {
	struct wg_remote_op base;
	struct wg_repo *repo;
	char *url;
	struct wg_oid *oids;
	size_t noids;
	enum pf_state state;
	struct wg_discovery d;
	struct wg_pack_receiver rcv;
};

#define PF(op) ((struct pfetch *)(op))

/* wg_config_foreach: the first remote.<name>.promisor that is true. */
static int first_promisor(const char *key, const char *value, void *payload)
{
	static const char suffix[] = ".promisor";
	size_t n = strlen(key), s = sizeof(suffix) - 1;
	bool on = true;

	if (strncmp(key, "remote.", 7) || n <= 7 + s || strcmp(key + n - s, suffix))
		return 0;
	if (value && wg_config_bool_value(key, value, &on)) {
		wg_error_clear();   /* git too takes what it cannot read as no */
		return 0;
	}
	if (!on)
		return 0;
	*(const char **)payload = key;
	return 1;
}

bool wg_repo_promisor_remote(struct wg_repo *repo, struct wg_buf *name)
{
	const struct wg_config *cfg = wg_repo_config(repo);
	const char *found = NULL, *key = NULL;
	size_t len;

	if (!wg_config_get_string(cfg, "extensions.partialclone", &found)) {
		len = strlen(found);
	} else {
		wg_error_clear();
		if (wg_config_foreach(cfg, first_promisor, &key) != 1)
			return false;
		found = key + 7;
		len = strlen(found) - strlen(".promisor");
	}
	if (name) {
		wg_buf_reset(name);
		/* out of memory: said by the caller's use of an empty name */
		if (wg_buf_add(name, found, len))
			wg_buf_reset(name);
	}
	return true;
}

static int pf_event(const struct wg_fetch_event *ev, void *payload)
{
	(void)payload;
	if (ev->kind == WG_FETCH_EV_SHALLOW || ev->kind == WG_FETCH_EV_UNSHALLOW)
		return wg_error_set(WG_ECORRUPT, "the promisor remote sent shallow information "
				    "to an object fetch");
	return 0;
}

static int pf_next(struct wg_remote_op *op)
{
	struct pfetch *p = PF(op);
	struct wg_fetch_args args = WG_FETCH_ARGS_INIT;
	int err;

	if (p->state == PF_DONE)
		return WG_ITEROVER;
	if (p->state != PF_DISCOVERY)
		return wg_error_set(WG_EINVALID, "promisor fetch: a response is still expected");
	err = wg_discovery_next_request(&p->d, op);
	if (err != WG_ITEROVER)
		return err;
	if ((err = wg_discovery_check_wants(&p->d, p->oids, p->noids)))
		return err;
	/* Wanted by id: what a tree needs below it comes in the same pack,
	 * but not the blobs (they are fetched when read). */
	args.algo = p->d.algo;
	args.wants = p->oids;
	args.nwants = p->noids;
	args.done = true;
	/* As git's lazy fetch (a "git fetch") asks; a delta may then use an
	 * object we have as its base (fix_thin). */
	args.thin_pack = true;
	args.ofs_delta = true;
	args.no_progress = true;
	args.filter = "blob:none";
	if ((err = wg_pack_receiver_request(&p->rcv, op, p->repo, &p->d, &args, true, pf_event,
					    p)))
		return err;
	p->state = PF_WAITING;
	return 0;
}

static int pf_begin(struct wg_remote_op *op, int status, const char *type)
{
	struct pfetch *p = PF(op);

	if (p->state == PF_DISCOVERY)
		return wg_discovery_response_begin(&p->d, op, status, type);
	return wg_remote_check_response(p->d.url, status, type,
					"application/x-git-upload-pack-result");
}

static int pf_feed(struct wg_remote_op *op, const void *data, size_t len)
{
	struct pfetch *p = PF(op);

	if (p->state == PF_DISCOVERY)
		return wg_discovery_feed(&p->d, data, len);
	return wg_pack_receiver_feed(&p->rcv, data, len);
}

static int pf_end(struct wg_remote_op *op)
{
	struct pfetch *p = PF(op);
	unsigned char hash[WG_MAX_RAWSZ];
	char hex[WG_MAX_HEXSZ + 1];
	bool got_pack;
	int err;

	if (p->state == PF_DISCOVERY)
		return wg_discovery_response_end(&p->d);
	if ((err = wg_pack_receiver_finish(&p->rcv, &got_pack, hash)))
		return err;
	if (!got_pack)
		return wg_error_set(WG_ECORRUPT, "the promisor remote sent no pack");
	/* Marked as the promisor's, so git may lazily fetch what it lacks. */
	if ((err = wg_pack_receiver_mark_promisor(&p->rcv, hash)))
		return err;
	for (size_t i = 0; i < p->noids; i++)
		if (wg_odb_exists(wg_repo_odb(p->repo), &p->oids[i]) <= 0)
			return wg_error_set(WG_ENOTFOUND, "the promisor remote did not send %s",
					    wg_oid_to_hex(&p->oids[i], hex));
	p->state = PF_DONE;
	return 0;
}

static void pf_free(struct wg_remote_op *op)
{
	struct pfetch *p = PF(op);

	wg_pack_receiver_release(&p->rcv);
	wg_discovery_release(&p->d);
	wg_free(p->oids);
	wg_free(p->url);
	wg_free(p);
}

static const struct wg_remote_op_vtable pf_vtable = { pf_next, pf_begin, pf_feed, pf_end,
						      pf_free };

int wg_promisor_fetch_new(struct wg_remote_op **out, struct wg_repo *repo,
			  const struct wg_oid *oids, size_t noids)
{
	const char *url = NULL;
	struct wg_buf key = WG_BUF_INIT, remote = WG_BUF_INIT;
	struct pfetch *p;
	int err;

	if (!wg_repo_promisor_remote(repo, &remote))
		return wg_error_set(WG_ENOTFOUND, "not a partial clone: no promisor remote to "
				    "fetch missing objects from");
	if (!noids) {
		wg_buf_release(&remote);
		return wg_error_set(WG_EINVALID, "no objects to fetch");
	}
	if (!remote.len || wg_buf_printf(&key, "remote.%s.url", wg_buf_cstr(&remote))) {
		wg_buf_release(&remote);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	err = wg_repo_config_get(repo, wg_buf_cstr(&key), &url);
	wg_buf_release(&key);
	if (err) {
		err = wg_error_set(WG_ENOTFOUND, "the promisor remote '%s' has no url",
				   wg_buf_cstr(&remote));
		wg_buf_release(&remote);
		return err;
	}
	wg_buf_release(&remote);
	if (!(p = wg_calloc(1, sizeof(*p))))
		return wg_error_set(WG_ENOMEM, "out of memory");
	p->base.vt = &pf_vtable;
	p->repo = repo;
	if (!(p->url = wg_url_redact_dup(url)) || !(p->oids = wg_malloc(noids * sizeof(*oids)))) {
		pf_free(&p->base);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	if ((err = wg_remote_op_set_credentials(&p->base, url))) {
		pf_free(&p->base);
		return err;
	}
	memcpy(p->oids, oids, noids * sizeof(*oids));
	p->noids = noids;
	if ((err = wg_discovery_init(&p->d, p->url, wg_repo_algo(repo)))) {
		pf_free(&p->base);
		return err;
	}
	p->d.caps_only = true;   /* objects by id: the refs are not needed */
	p->base.discovery = &p->d;
	*out = &p->base;
	return 0;
}

const char *wg_promisor_fetch_url(struct wg_remote_op *op)
{
	return PF(op)->url;
}
