/* Shared by the files of the WebAssembly module's C ABI (wasm/exports*.c);
 * not a public header: the ABI's declarations are js/index.js. */
#ifndef WG_WASM_EXPORTS_H
#define WG_WASM_EXPORTS_H

#include <emscripten.h>

#include "hash/oid.h"
#include "object/object.h"
#include "repo/repo.h"
#include "util/buf.h"

#define API EMSCRIPTEN_KEEPALIVE

/* Run fn(arg) where the host's JavaScript lives: at once on the module's
 * main thread, and from another thread (the threaded build's indexer
 * workers: their JavaScript has no Module.wgjsHostFs, no progress
 * callback) synchronously on the main thread, which runs it while it
 * waits for those threads (util/thread.h: wg_thread_caller_serves). */
void wgjs_on_main_thread(void (*fn)(void *), void *arg);

/* An object id in hex, in a buffer shared by every export: valid until the
 * next call that returns an id (JavaScript copies it out at once). */
const char *wgjs_hex(const struct wg_oid *oid);

/* A full hex id of the repository's format; WG_EINVALID with a message
 * otherwise. */
int wgjs_parse_oid(struct wg_oid *out, struct wg_repo *repo, const char *oid_hex);

/* Bytes handed to JavaScript with a type: an object's content, a tree or
 * ref listing. Freed with wgjs_object_free. */
struct wgjs_object {
	enum wg_object_type type;
	struct wg_buf data;
};

/* An empty one, or NULL with WG_ENOMEM set. */
struct wgjs_object *wgjs_object_alloc(enum wg_object_type type);

/* Append one record of a listing: each field (NULL as "") and a NUL after
 * it. JavaScript splits listings into records of a known width. */
int wgjs_record_add(struct wgjs_object *list, const char *const *fields, size_t nfields);
void wgjs_object_free(struct wgjs_object *obj);

/* A listing of hex ids, one field per record (the blobs a checkout must
 * fetch first); NULL with WG_ENOMEM set. */
struct wgjs_object *wgjs_oid_list(const struct wg_oid *oids, size_t n);

#endif
