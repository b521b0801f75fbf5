/* The C ABI of the WebAssembly module: a thin layer over core/ for
 * js/index.js. Every function here only converts between core types and
 * what JavaScript can read from linear memory (numbers, NUL-terminated
 * UTF-8 strings, byte ranges); the logic stays in core/.
 *
 * Conventions:
 * - Functions that return a pointer return NULL on failure; functions that
 *   return an int return 0 or a negative WG_E* code. Either way the code's
 *   name and message are then wgjs_error_name(code)/wgjs_error_code() and
 *   wgjs_error_message(). Each entry point clears the last error first, so
 *   a message is always about the call that just failed.
 * - Strings returned as `const char *` live until the next call on the
 *   same object (or, for object ids, until the next call that returns an
 *   id): JavaScript copies them out at once.
 * - Network operations are driven exactly as cli/remote_driver.c does:
 *   wgjs_op_next_request, then response_begin / feed* / response_end,
 *   until next_request says WG_ITEROVER; wgjs_op_free in every case
 *   (before completion it undoes the operation: a clone removes its
 *   directory). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <emscripten.h>

#include "hash/oid.h"
#include "object/object.h"
#include "object/tree.h"
#include "odb/odb.h"
#include "protocol/advertisement.h"
#include "remote/clone.h"
#include "remote/ls_remote.h"
#include "remote/operation.h"
#include "repo/repo.h"
#include "repo/revparse.h"
#include "util/buf.h"
#include "util/error.h"

#define API EMSCRIPTEN_KEEPALIVE

/* --- errors ------------------------------------------------------------------------------ */

API int wgjs_error_code(void)
{
	return wg_error_code();
}

/* "ENOTFOUND", ...; for 0, "OK". */
API const char *wgjs_error_name(int code)
{
	const char *name = wg_error_name(code);
	return name ? name : "ERROR";
}

API const char *wgjs_error_message(void)
{
	return wg_error_message();
}

/* The values JavaScript compares return codes with. */
API int wgjs_iterover(void)
{
	return WG_ITEROVER;
}

/* --- environment --------------------------------------------------------------------- */

/* Emscripten's umask starts at 0777 (its syscall stub), so every file the
 * core creates with mode 0666 & ~umask would be mode 0 and unreadable in
 * the module's file system (MEMFS checks permissions too). The host sets
 * a real one: Node's process.umask(), else 022. Returns the old one. */
API int wgjs_set_umask(int mask)
{
	return (int)umask((mode_t)mask);
}

/* --- object ids ---------------------------------------------------------------------------- */

static char hexbuf[WG_MAX_HEXSZ + 1];

static const char *hex(const struct wg_oid *oid)
{
	return wg_oid_to_hex(oid, hexbuf);
}

/* --- repositories ---------------------------------------------------------------------------- */

/* The repository whose git directory or working tree is `path`, or NULL. */
API struct wg_repo *wgjs_repo_open(const char *path)
{
	struct wg_repo *repo = NULL;

	wg_error_clear();
	if (wg_repo_open(&repo, path))
		return NULL;
	return repo;
}

API void wgjs_repo_free(struct wg_repo *repo)
{
	wg_repo_free(repo);
}

API const char *wgjs_repo_object_format(struct wg_repo *repo)
{
	return wg_repo_algo(repo)->name;
}

/* `git rev-parse <spec>`: the id in hex, or NULL (WG_ENOTFOUND, ...). */
API const char *wgjs_revparse(struct wg_repo *repo, const char *spec)
{
	struct wg_oid oid;

	wg_error_clear();
	if (wg_revparse(&oid, repo, spec))
		return NULL;
	return hex(&oid);
}

/* --- objects ------------------------------------------------------------------------------- */

/* An object's type and bytes, or a tree listing (wgjs_tree_list). */
struct wgjs_object {
	enum wg_object_type type;
	struct wg_buf data;
};

static int parse_oid(struct wg_oid *out, struct wg_repo *repo, const char *oid_hex)
{
	if (wg_oid_from_hex_str(out, wg_repo_algo(repo), oid_hex))
		return wg_error_set(WG_EINVALID, "'%s' is not a full %s object id", oid_hex,
				    wg_repo_algo(repo)->name);
	return 0;
}

static struct wgjs_object *object_read(struct wg_repo *repo, const struct wg_oid *oid)
{
	struct wgjs_object *obj = calloc(1, sizeof(*obj));

	if (!obj) {
		wg_error_set(WG_ENOMEM, "out of memory");
		return NULL;
	}
	if (wg_odb_read(wg_repo_odb(repo), oid, &obj->type, &obj->data)) {
		wg_buf_release(&obj->data);
		free(obj);
		return NULL;
	}
	return obj;
}

/* The object with this full hex id, or NULL (WG_ENOTFOUND, ...). */
API struct wgjs_object *wgjs_object_read(struct wg_repo *repo, const char *oid_hex)
{
	struct wg_oid oid;

	wg_error_clear();
	if (parse_oid(&oid, repo, oid_hex))
		return NULL;
	return object_read(repo, &oid);
}

/* "commit", "tree", "blob", "tag". */
API const char *wgjs_object_type(const struct wgjs_object *obj)
{
	const char *name = wg_object_type_name(obj->type);
	return name ? name : "unknown";
}

API const unsigned char *wgjs_object_data(const struct wgjs_object *obj)
{
	return obj->data.data;
}

API size_t wgjs_object_size(const struct wgjs_object *obj)
{
	return obj->data.len;
}

API void wgjs_object_free(struct wgjs_object *obj)
{
	if (!obj)
		return;
	wg_buf_release(&obj->data);
	free(obj);
}

/* The entries of a tree (a commit or tag is peeled to its tree), as a
 * wgjs_object of type "tree" whose data is, per entry,
 * "<octal mode> <type> <hex id> <name>\0" in the tree's order. NULL on error. */
API struct wgjs_object *wgjs_tree_list(struct wg_repo *repo, const char *oid_hex)
{
	struct wg_oid oid, tree;
	struct wgjs_object *raw, *list;
	struct wg_tree_iter it;
	struct wg_tree_entry e;
	int err;

	wg_error_clear();
	if (parse_oid(&oid, repo, oid_hex) || wg_object_peel(&tree, repo, &oid, WG_OBJ_TREE))
		return NULL;
	if (!(raw = object_read(repo, &tree)))
		return NULL;
	if (!(list = calloc(1, sizeof(*list)))) {
		wgjs_object_free(raw);
		wg_error_set(WG_ENOMEM, "out of memory");
		return NULL;
	}
	list->type = WG_OBJ_TREE;
	wg_tree_iter_init(&it, wg_repo_algo(repo), raw->data.data, raw->data.len);
	while (!(err = wg_tree_iter_next(&it, &e))) {
		if ((err = wg_buf_printf(&list->data, "%o %s %s ", e.mode,
					    wg_object_type_name(wg_tree_mode_type(e.mode)), hex(&e.oid))) ||
		    (err = wg_buf_add(&list->data, e.name, e.namelen)) ||
		    (err = wg_buf_addch(&list->data, '\0')))
			break;
	}
	wgjs_object_free(raw);
	if (err != WG_ITEROVER) {
		wgjs_object_free(list);
		return NULL;
	}
	return list;
}

/* --- network operations ------------------------------------------------------------------ */

/* Progress goes to Module.wgjsProgress(token, phase, done, total, bytes,
 * finished, remote, line) when the host set it; `token` is the number the
 * host passed when starting the operation. */
EM_JS(void, wgjs_progress_js, (int token, const char *phase, double done, double total,
			       double bytes, int finished, int remote, const char *line), {
	if (Module['wgjsProgress'])
		Module['wgjsProgress'](token, phase ? UTF8ToString(phase) : "", done, total, bytes,
				       !!finished, !!remote, line ? UTF8ToString(line) : null);
});

static void on_progress(const struct wg_remote_progress *p, void *payload)
{
	wgjs_progress_js((int)(intptr_t)payload, p->phase, (double)p->done, (double)p->total,
			 (double)p->bytes, p->finished, p->remote, p->line);
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
	return r ? hex(&r->oid) : NULL;
}

API const char *wgjs_ls_remote_peeled(struct wg_remote_op *op, int i)
{
	const struct wg_remote_ref *r = ls_ref(op, i);
	return r && r->has_peeled ? hex(&r->peeled) : NULL;
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

/* Clone `url` into `path` (which must not exist, or be empty). `branch`
 * and `filter` may be NULL; depth 0 is full history. Progress is reported
 * with `token` (see wgjs_progress_js) when `token` is not 0. NULL on error. */
API struct wg_remote_op *wgjs_clone_new(const char *url, const char *path, int bare,
					const char *branch, int single_branch, int depth,
					const char *filter, int token)
{
	struct wg_clone_options opts = WG_CLONE_OPTIONS_INIT;
	struct wg_remote_op *op = NULL;

	wg_error_clear();
	opts.bare = bare != 0;
	opts.branch = branch;
	opts.single_branch = single_branch != 0;
	opts.depth = depth > 0 ? (unsigned)depth : 0;
	opts.filter = filter;
	if (token) {
		opts.progress = on_progress;
		opts.progress_payload = (void *)(intptr_t)token;
	}
	if (wg_clone_new(&op, url, path, &opts))
		return NULL;
	return op;
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
