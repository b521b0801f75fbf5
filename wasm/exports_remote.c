/* The WebAssembly module's C ABI, part three: the network operations,
 * driven from JavaScript with fetch() (conventions: wasm/exports.c). */
#include <stdint.h>
#include <stdlib.h>

#include "exports.h"
#include "protocol/advertisement.h"
#include "remote/clone.h"
#include "remote/ls_remote.h"
#include "remote/operation.h"
#include "remote/promisor_fetch.h"
#include "remote/rev_plan.h"
#include "remote/remote_fetch.h"
#include "remote/remote_push.h"
#include "remote/static_read.h"
#ifdef __EMSCRIPTEN_PTHREADS__
#include <emscripten/threading.h>
#include <stdatomic.h>
#endif
#include "util/error.h"

/* --- network operations ------------------------------------------------------------------ */

/* Progress goes to Module.wgjsProgress(token, phase, done, total, bytes,
 * finished, remote, line, warning, notice) when the host set it; `token`
 * is the number the host passed when starting the operation. */
EM_JS(void, wgjs_progress_js, (int token, const char *phase, double done, double total,
			       double bytes, int finished, int remote, const char *line,
			       int warning, int notice), {
	if (Module['wgjsProgress'])
		Module['wgjsProgress'](token, phase ? UTF8ToString(phase) : "", done, total, bytes,
				       !!finished, !!remote, line ? UTF8ToString(line) : null,
				       !!warning, !!notice);
});

struct progress_call {
	const struct wg_remote_progress *p;
	int token;
};

static void progress_main(void *arg)
{
	const struct progress_call *c = arg;
	const struct wg_remote_progress *p = c->p;
	wgjs_progress_js(c->token, p->phase, (double)p->done, (double)p->total, (double)p->bytes,
			 p->finished, p->remote, p->line, p->warning, p->notice);
}

/* From the indexer's workers too, in the threaded build: there each call
 * waits until the main thread, which polls for them about every
 * millisecond while it waits for the workers, has run it. Per object that
 * made a clone forty times slower, so a worker passes on at most one
 * report per PROGRESS_WORKER_MS (the main thread's are all passed on, the
 * last of a phase among them). */
#define PROGRESS_WORKER_MS 100
static void on_progress(const struct wg_remote_progress *p, void *payload)
{
	struct progress_call c = { p, (int)(intptr_t)payload };
#ifdef __EMSCRIPTEN_PTHREADS__
	static _Atomic long long next_ms;
	if (!emscripten_is_main_runtime_thread() && !p->finished) {
		long long now = (long long)emscripten_get_now(), due = next_ms;
		if (now < due || !atomic_compare_exchange_strong(&next_ms, &due, now + PROGRESS_WORKER_MS))
			return;
	}
#endif
	wgjs_on_main_thread(progress_main, &c);
}

/* ls-remote of `url`; `prefixes` is an array of `nprefixes` strings (only
 * refs starting with one of them), or NULL. NULL on error. */
API struct wg_remote_op *wgjs_ls_remote_new(const char *url, const char *const *prefixes,
					    int nprefixes)
{
	struct wg_ls_remote_options opts = WG_LS_REMOTE_OPTIONS_INIT;
	struct wg_remote_op *op = NULL;

	wg_error_clear();
	opts.prefixes = prefixes;
	opts.nprefixes = nprefixes > 0 ? (size_t)nprefixes : 0;
	if (wg_ls_remote_new(&op, url, &opts))
		return NULL;
	return op;
}

static const struct wg_remote_ref *ls_ref(struct wg_remote_op *op, int i)
{
	const struct wg_remote_ref_list *list = wg_ls_remote_refs(op);

	if (!list || i < 0 || (size_t)i >= list->nr)
		return NULL;
	return &list->refs[i];
}

/* Once the ls-remote completed: the number of refs, and for each its name,
 * id (hex; the null id when unborn), peeled id (NULL if none), symref
 * target (NULL if none) and whether it is unborn. */
API int wgjs_ls_remote_count(struct wg_remote_op *op)
{
	const struct wg_remote_ref_list *list = wg_ls_remote_refs(op);
	return list ? (int)list->nr : 0;
}

API const char *wgjs_ls_remote_name(struct wg_remote_op *op, int i)
{
	const struct wg_remote_ref *r = ls_ref(op, i);
	return r ? r->name : NULL;
}

API const char *wgjs_ls_remote_oid(struct wg_remote_op *op, int i)
{
	const struct wg_remote_ref *r = ls_ref(op, i);
	return r ? wgjs_hex(&r->oid) : NULL;
}

API const char *wgjs_ls_remote_peeled(struct wg_remote_op *op, int i)
{
	const struct wg_remote_ref *r = ls_ref(op, i);
	return r && r->has_peeled ? wgjs_hex(&r->peeled) : NULL;
}

API const char *wgjs_ls_remote_target(struct wg_remote_op *op, int i)
{
	const struct wg_remote_ref *r = ls_ref(op, i);
	return r ? r->symref_target : NULL;
}

API int wgjs_ls_remote_unborn(struct wg_remote_op *op, int i)
{
	const struct wg_remote_ref *r = ls_ref(op, i);
	return r ? r->unborn : 0;
}

API const char *wgjs_ls_remote_object_format(struct wg_remote_op *op)
{
	const struct wg_hash_algo *algo = wg_ls_remote_algo(op);
	return algo ? algo->name : NULL;
}

/* Clone `url` into `path` (which must not exist, or be empty). `branch`,
 * `filter` and `revision` (git clone --revision: a full id) may be NULL; depth 0 is full history. Progress is reported
 * with `token` (see wgjs_progress_js) when `token` is not 0. With
 * `checkout` the clone stays unpublished when the operation completes,
 * for the caller to check out (wgjs_clone_checkout_repo) and publish
 * (wgjs_clone_publish). NULL on error. */
API struct wg_remote_op *wgjs_clone_new(const char *url, const char *path, int bare,
					const char *branch, int single_branch, int depth,
					const char *filter, const char *const *config, int nconfig,
					int checkout, int token, const char *revision)
{
	struct wg_clone_options opts = WG_CLONE_OPTIONS_INIT;
	struct wg_remote_op *op = NULL;

	wg_error_clear();
	opts.bare = bare != 0;
	opts.branch = branch;
	opts.revision = revision;
	opts.single_branch = single_branch != 0;
	opts.depth = depth > 0 ? (unsigned)depth : 0;
	opts.filter = filter;
	opts.config = nconfig > 0 ? config : NULL;
	opts.nconfig = nconfig > 0 ? (size_t)nconfig : 0;
	opts.defer_publish = checkout && !bare;
	if (token) {
		opts.progress = on_progress;
		opts.progress_payload = (void *)(intptr_t)token;
	}
	if (wg_clone_new(&op, url, path, &opts))
		return NULL;
	return op;
}

/* `git fetch [--prune] [--no-tags] <remote> [<refspec>...]` in `repo`,
 * which must stay open until the operation is freed. `refspecs` is an
 * array of `nrefspecs` strings, or NULL for the remote's configured ones.
 * NULL on error. */
API struct wg_remote_op *wgjs_fetch_new(struct wg_repo *repo, const char *remote,
					const char *const *refspecs, int nrefspecs, int prune,
					int no_tags, int token)
{
	struct wg_remote_fetch_options opts = WG_REMOTE_FETCH_OPTIONS_INIT;
	struct wg_remote_op *op = NULL;

	wg_error_clear();
	opts.refspecs = nrefspecs > 0 ? refspecs : NULL;
	opts.nrefspecs = nrefspecs > 0 ? (size_t)nrefspecs : 0;
	opts.prune = prune != 0;
	opts.no_tags = no_tags != 0;
	if (token) {
		opts.progress = on_progress;
		opts.progress_payload = (void *)(intptr_t)token;
	}
	if (wg_remote_fetch_new(&op, repo, remote, &opts))
		return NULL;
	return op;
}

/* Once a fetch completed: what it did to each ref, as a buffer of
 * "<flag>\0<remote name>\0<local name or empty>\0<old hex>\0<new hex>\0"
 * records (flag: ' ' fast-forward, '+' forced, '*' new, '-' pruned,
 * '=' unchanged). NULL on error. */
API struct wgjs_object *wgjs_fetch_updates(struct wg_remote_op *op)
{
	const struct wg_remote_fetch_update *u;
	struct wgjs_object *list;
	char old_hex[WG_MAX_HEXSZ + 1], new_hex[WG_MAX_HEXSZ + 1];
	size_t i, n;

	wg_error_clear();
	if (!(list = wgjs_object_alloc(WG_OBJ_NONE)))
		return NULL;
	n = wg_remote_fetch_updates(op, &u);
	for (i = 0; i < n; i++) {
		const char flag[2] = { u[i].flag, '\0' };
		const char *fields[] = { flag, u[i].remote_name, u[i].local_name,
					 wg_oid_to_hex(&u[i].old_oid, old_hex),
					 wg_oid_to_hex(&u[i].new_oid, new_hex) };
		if (wgjs_record_add(list, fields, 5)) {
			wgjs_object_free(list);
			return NULL;
		}
	}
	return list;
}

/* The bytes of pack the last fetch received (0 when nothing was needed). */
API double wgjs_fetch_pack_bytes(struct wg_remote_op *op)
{
	return (double)wg_remote_fetch_pack_bytes(op);
}

/* `git push [-f] [--atomic] [-o <option>...] <remote> <refspec>...` from
 * `repo`, which must stay open until the operation is freed. NULL on
 * error. */
API struct wg_remote_op *wgjs_push_new(struct wg_repo *repo, const char *remote,
				       const char *const *refspecs, int nrefspecs, int force,
				       int atomic, const char *const *push_options,
				       int npush_options, int token)
{
	struct wg_remote_push_options opts = WG_REMOTE_PUSH_OPTIONS_INIT;
	struct wg_remote_op *op = NULL;

	wg_error_clear();
	opts.force = force != 0;
	opts.atomic = atomic != 0;
	opts.push_options = npush_options > 0 ? push_options : NULL;
	opts.npush_options = npush_options > 0 ? (size_t)npush_options : 0;
	if (token) {
		opts.progress = on_progress;
		opts.progress_payload = (void *)(intptr_t)token;
	}
	if (wg_remote_push_new(&op, repo, remote, refspecs,
			       nrefspecs > 0 ? (size_t)nrefspecs : 0, &opts))
		return NULL;
	return op;
}

static const char *push_state_name(enum wg_remote_push_state state)
{
	switch (state) {
	case WG_REMOTE_PUSH_UP_TO_DATE: return "up-to-date";
	case WG_REMOTE_PUSH_OK: return "ok";
	case WG_REMOTE_PUSH_REJECTED_NONFF: return "rejected-non-fast-forward";
	case WG_REMOTE_PUSH_REJECTED_FETCH_FIRST: return "rejected-fetch-first";
	case WG_REMOTE_PUSH_REMOTE_REJECTED: return "remote-rejected";
	case WG_REMOTE_PUSH_ATOMIC_FAILED: return "atomic-push-failed";
	}
	return "unknown";
}

/* Once a push completed (also when some refs were refused): per ref,
 * "<state>\0<src or empty>\0<dst>\0<old hex>\0<new hex>\0<reason or
 * empty>\0" records, state as push_state_name() spells it. NULL on error. */
API struct wgjs_object *wgjs_push_results(struct wg_remote_op *op)
{
	const struct wg_remote_push_result *r;
	struct wgjs_object *list;
	char old_hex[WG_MAX_HEXSZ + 1], new_hex[WG_MAX_HEXSZ + 1];
	size_t i, n;

	wg_error_clear();
	if (!(list = wgjs_object_alloc(WG_OBJ_NONE)))
		return NULL;
	n = wg_remote_push_results(op, &r);
	for (i = 0; i < n; i++) {
		const char *fields[] = { push_state_name(r[i].state), r[i].src, r[i].dst,
					 wg_oid_to_hex(&r[i].old_oid, old_hex),
					 wg_oid_to_hex(&r[i].new_oid, new_hex), r[i].reason };
		if (wgjs_record_add(list, fields, 6)) {
			wgjs_object_free(list);
			return NULL;
		}
	}
	return list;
}

/* Fetch the objects `oid_hexes` (an array of `n` full ids) from the
 * promisor remote of a partial clone, as git's lazy fetch does; `repo`
 * must stay open until the operation is freed. NULL on error. */
API struct wg_remote_op *wgjs_promisor_fetch_new(struct wg_repo *repo,
						 const char *const *oid_hexes, int n)
{
	struct wg_oid *oids;
	struct wg_remote_op *op = NULL;
	int i;

	wg_error_clear();
	if (n <= 0) {
		wg_error_set(WG_EINVALID, "no objects to fetch");
		return NULL;
	}
	if (!(oids = calloc((size_t)n, sizeof(*oids)))) {
		wg_error_set(WG_ENOMEM, "out of memory");
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (wgjs_parse_oid(&oids[i], repo, oid_hexes[i])) {
			free(oids);
			return NULL;
		}
	}
	if (wg_promisor_fetch_new(&op, repo, oids, (size_t)n))
		op = NULL;
	free(oids);
	return op;
}

/* Read `path` at `ref` (NULL: HEAD) of the repository on a static host at
 * `url` with Range requests (remote/static_read.h); `no_probe` asks for
 * info/refs without the smart-HTTP query. NULL on error. */
API struct wg_remote_op *wgjs_static_read_new(const char *url, const char *ref,
					      const char *path, int no_probe)
{
	struct wg_static_read_options opts = WG_STATIC_READ_OPTIONS_INIT;
	struct wg_remote_op *op = NULL;

	wg_error_clear();
	opts.no_probe = no_probe != 0;
	if (wg_static_read_new(&op, url, ref, path, &opts))
		return NULL;
	return op;
}

/* Once complete: the file's bytes and their length (valid until the
 * operation is freed). */
API const unsigned char *wgjs_static_read_data(struct wg_remote_op *op)
{
	size_t len;
	return wg_static_read_data(op, &len);
}

API double wgjs_static_read_len(struct wg_remote_op *op)
{
	size_t len;
	wg_static_read_data(op, &len);
	return (double)len;
}

/* Once complete: the file's blob id, hex (valid until the next call). */
API const char *wgjs_static_read_oid(struct wg_remote_op *op)
{
	struct wg_oid oid;
	unsigned mode;

	wg_static_read_blob(op, &oid, &mode);
	return wgjs_hex(&oid);
}

/* Limits for this operation only: the process-wide ones with
 * "name=value,..." applied (util/limits.h). Before the first request. */
API int wgjs_op_set_limits(struct wg_remote_op *op, const char *spec)
{
	struct wg_limits l = *wg_limits_default();
	int err;
	wg_error_clear();
	if ((err = wg_limits_parse(&l, spec)))
		return err;
	wg_remote_op_set_limits(op, &l);
	return 0;
}

/* After completion: the protocol version the clone spoke (0, 1 or 2). */
API int wgjs_clone_protocol(struct wg_remote_op *op)
{
	return wg_clone_protocol(op);
}

/* wg_rev_plan(spec), its result read by the two calls after it. */
static struct wg_rev_plan rev_plan;

API int wgjs_rev_plan(const char *spec)
{
	wg_error_clear();
	return wg_rev_plan(&rev_plan, spec);
}

API int wgjs_rev_plan_name_len(void)
{
	return (int)rev_plan.name_len;
}

API int wgjs_rev_plan_generations(void)
{
	return (int)rev_plan.generations;
}

/* Skip the capability advertisement: the server is taken to speak v2
 * in `object_format` (remote/operation.h). Before the first request. */
API int wgjs_op_assume_v2(struct wg_remote_op *op, const char *object_format)
{
	wg_error_clear();
	return wg_remote_op_assume_v2(op, object_format);
}

/* 0 and the request in *out; WG_ITEROVER when the operation is complete;
 * or an error. */
API int wgjs_op_next_request(struct wg_remote_op *op, const struct wg_http_request **out)
{
	wg_error_clear();
	*out = NULL;
	return wg_remote_op_next_request(op, out);
}

API const char *wgjs_req_method(const struct wg_http_request *req)
{
	return req->method;
}

API const char *wgjs_req_url(const struct wg_http_request *req)
{
	return req->url;
}

API int wgjs_req_nheaders(const struct wg_http_request *req)
{
	return (int)req->nheaders;
}

/* "Name: value" */
API const char *wgjs_req_header(const struct wg_http_request *req, int i)
{
	return i >= 0 && (size_t)i < req->nheaders ? req->headers[i] : NULL;
}

API const unsigned char *wgjs_req_body(const struct wg_http_request *req)
{
	return req->body;
}

API size_t wgjs_req_body_len(const struct wg_http_request *req)
{
	return req->body ? req->body_len : 0;
}

/* The URL that answered after redirects (see wg_remote_op_response_url). */
API int wgjs_op_response_url(struct wg_remote_op *op, const char *url)
{
	wg_error_clear();
	return wg_remote_op_response_url(op, url);
}

API int wgjs_op_response_begin(struct wg_remote_op *op, int status, const char *content_type)
{
	wg_error_clear();
	return wg_remote_op_response_begin(op, status, content_type);
}

API int wgjs_op_feed(struct wg_remote_op *op, const void *data, size_t len)
{
	wg_error_clear();
	return wg_remote_op_feed(op, data, len);
}

API int wgjs_op_response_end(struct wg_remote_op *op)
{
	wg_error_clear();
	return wg_remote_op_response_end(op);
}

API void wgjs_op_free(struct wg_remote_op *op)
{
	wg_remote_op_free(op);
}
