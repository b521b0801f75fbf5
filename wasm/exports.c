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
 *   directory).
 *
 * Files: this one (errors, environment, ids, byte buffers),
 * exports_repo.c (repositories, objects, refs), exports_remote.c (the
 * network operations). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef __EMSCRIPTEN_PTHREADS__
#include <emscripten/threading.h>
#endif

#include "exports.h"
#include "pack/pack_cache.h"
#include "util/error.h"
#include "util/limits.h"

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

/* --- limits ------------------------------------------------------------------------------ */

/* The process-wide limits (util/limits.h): the built-in defaults with
 * "name=value,..." applied (NULL or "": the built-in defaults). */
API int wgjs_limits_set(const char *spec)
{
	struct wg_limits l = WG_LIMITS_INIT;
	int err;
	wg_error_clear();
	if ((err = wg_limits_parse(&l, spec)))
		return err;
	wg_limits_set_default(&l);
	return 0;
}

/* One of the current process-wide limits by name, as a double (exact up to
 * 2^53); -1 for an unknown name. */
API double wgjs_limits_get(const char *name)
{
	const struct wg_limits *l = wg_limits_default();
	if (!strcmp(name, "max_object_size")) return (double)l->max_object_size;
	if (!strcmp(name, "max_inflate_ratio")) return (double)l->max_inflate_ratio;
	if (!strcmp(name, "inflate_ratio_floor")) return (double)l->inflate_ratio_floor;
	if (!strcmp(name, "max_pack_objects")) return (double)l->max_pack_objects;
	if (!strcmp(name, "max_tree_depth")) return (double)l->max_tree_depth;
	if (!strcmp(name, "max_refs")) return (double)l->max_refs;
	if (!strcmp(name, "max_advertisement_bytes")) return (double)l->max_advertisement_bytes;
	return -1;
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

/* How many bytes of pack indexes and read windows stay in memory between
 * calls (pack/pack_cache.h): every JS call opens the repository again,
 * and without this each one reads every .idx whole and loads its pack
 * windows again. 0 turns it off. */
API void wgjs_set_pack_cache_budget(double bytes)
{
	wg_pack_cache_set_budget(bytes > 0 ? (size_t)bytes : 0);
}

/* --- object ids ---------------------------------------------------------------------------- */

void wgjs_on_main_thread(void (*fn)(void *), void *arg)
{
#ifdef __EMSCRIPTEN_PTHREADS__
	if (!emscripten_is_main_runtime_thread()) {
		emscripten_sync_run_in_main_runtime_thread(EM_FUNC_SIG_VI, fn, arg);
		return;
	}
#endif
	fn(arg);
}

static char hexbuf[WG_MAX_HEXSZ + 1];

const char *wgjs_hex(const struct wg_oid *oid)
{
	return wg_oid_to_hex(oid, hexbuf);
}

int wgjs_parse_oid(struct wg_oid *out, struct wg_repo *repo, const char *oid_hex)
{
	if (!oid_hex || wg_oid_from_hex_str(out, wg_repo_algo(repo), oid_hex))
		return wg_error_set(WG_EINVALID, "'%s' is not a full %s object id",
				    oid_hex ? oid_hex : "", wg_repo_algo(repo)->name);
	return 0;
}

/* --- byte buffers ------------------------------------------------------------------------- */

struct wgjs_object *wgjs_object_alloc(enum wg_object_type type)
{
	struct wgjs_object *obj = calloc(1, sizeof(*obj));

	if (!obj) {
		wg_error_set(WG_ENOMEM, "out of memory");
		return NULL;
	}
	obj->type = type;
	return obj;
}

int wgjs_record_add(struct wgjs_object *list, const char *const *fields, size_t nfields)
{
	int err = 0;

	for (size_t i = 0; i < nfields && !err; i++)
		err = wg_buf_add(&list->data, fields[i] ? fields[i] : "",
				 (fields[i] ? strlen(fields[i]) : 0) + 1);
	return err;
}

struct wgjs_object *wgjs_oid_list(const struct wg_oid *oids, size_t n)
{
	struct wgjs_object *list = wgjs_object_alloc(WG_OBJ_NONE);

	for (size_t i = 0; list && i < n; i++) {
		const char *hex = wgjs_hex(&oids[i]);
		if (wgjs_record_add(list, &hex, 1)) {
			wgjs_object_free(list);
			return NULL;
		}
	}
	return list;
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
