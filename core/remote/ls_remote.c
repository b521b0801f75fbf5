#include "remote/ls_remote.h"

#include <string.h>

#include "remote/operation_internal.h"
#include "util/alloc.h"
#include "util/error.h"

struct ls_remote {
	struct wg_remote_op base;
	struct wg_discovery d;
	char **prefixes;
	size_t nprefixes;
	struct wg_remote_ref_list refs;   /* filtered copy */
};

static int lr_next(struct wg_remote_op *op)
{
	struct ls_remote *lr = (struct ls_remote *)op;
	int err = wg_discovery_next_request(&lr->d, op);

	if (err != WG_ITEROVER)
		return err;
	/* Done: keep the refs the caller asked for (v0 servers send all). */
	for (size_t i = 0; i < lr->d.refs->nr; i++) {
		const struct wg_remote_ref *r = &lr->d.refs->refs[i];
		struct wg_remote_ref copy = *r;
		bool keep = !lr->nprefixes;
		for (size_t j = 0; j < lr->nprefixes && !keep; j++)
			keep = !strncmp(r->name, lr->prefixes[j], strlen(lr->prefixes[j]));
		if (!keep)
			continue;
		copy.name = wg_strdup(r->name);
		copy.symref_target = r->symref_target ? wg_strdup(r->symref_target) : NULL;
		if (!copy.name || (r->symref_target && !copy.symref_target)) {
			wg_free(copy.name);
			wg_free(copy.symref_target);
			return wg_error_set(WG_ENOMEM, "out of memory");
		}
		if ((err = wg_remote_ref_list_add(&lr->refs, &copy)))
			return err;
	}
	return WG_ITEROVER;
}

static int lr_begin(struct wg_remote_op *op, int status, const char *type)
{
	return wg_discovery_response_begin(&((struct ls_remote *)op)->d, op, status, type);
}

static int lr_feed(struct wg_remote_op *op, const void *data, size_t len)
{
	return wg_discovery_feed(&((struct ls_remote *)op)->d, data, len);
}

static int lr_end(struct wg_remote_op *op)
{
	return wg_discovery_response_end(&((struct ls_remote *)op)->d);
}

static void lr_free(struct wg_remote_op *op)
{
	struct ls_remote *lr = (struct ls_remote *)op;

	wg_discovery_release(&lr->d);
	for (size_t i = 0; i < lr->nprefixes; i++)
		wg_free(lr->prefixes[i]);
	wg_free(lr->prefixes);
	wg_remote_ref_list_release(&lr->refs);
	wg_free(lr);
}

static const struct wg_remote_op_vtable lr_vtable = {
	lr_next, lr_begin, lr_feed, lr_end, lr_free,
};

int wg_ls_remote_new(struct wg_remote_op **out, const char *url,
		     const struct wg_ls_remote_options *opts)
{
	struct ls_remote *lr = wg_calloc(1, sizeof(*lr));
	int err;

	if (!lr)
		return wg_error_set(WG_ENOMEM, "out of memory");
	lr->base.vt = &lr_vtable;
	if ((err = wg_discovery_init(&lr->d, url, NULL)) ||
	    (err = wg_remote_op_set_credentials(&lr->base, url)))
		goto fail;
	lr->d.allow_dumb = true;   /* git ls-remote reads a static host too */
	lr->base.discovery = &lr->d;
	if (opts && opts->nprefixes) {
		if (!(lr->prefixes = wg_calloc(opts->nprefixes, sizeof(char *)))) {
			err = wg_error_set(WG_ENOMEM, "out of memory");
			goto fail;
		}
		for (size_t i = 0; i < opts->nprefixes; i++, lr->nprefixes++)
			if (!(lr->prefixes[i] = wg_strdup(opts->prefixes[i]))) {
				err = wg_error_set(WG_ENOMEM, "out of memory");
				goto fail;
			}
		lr->d.prefixes = (const char *const *)lr->prefixes;
		lr->d.nprefixes = lr->nprefixes;
	}
	if (opts) {
		lr->base.progress = opts->progress;
		lr->base.progress_payload = opts->progress_payload;
	}
	*out = &lr->base;
	return 0;
fail:
	lr_free(&lr->base);
	return err;
}

const struct wg_remote_ref_list *wg_ls_remote_refs(struct wg_remote_op *op)
{
	return &((struct ls_remote *)op)->refs;
}

const struct wg_hash_algo *wg_ls_remote_algo(struct wg_remote_op *op)
{
	return ((struct ls_remote *)op)->d.algo;
}

int wg_ls_remote_protocol(struct wg_remote_op *op)
{
	return ((struct ls_remote *)op)->d.version;
}
