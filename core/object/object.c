#include "object/object.h"

#include <stdio.h>
#include <string.h>

#include "util/error.h"

static const char *const type_names[] = {
	[WG_OBJ_COMMIT] = "commit",
	[WG_OBJ_TREE] = "tree",
	[WG_OBJ_BLOB] = "blob",
	[WG_OBJ_TAG] = "tag",
};

const char *wg_object_type_name(enum wg_object_type type)
{
	if (type < WG_OBJ_COMMIT || type > WG_OBJ_TAG)
		return NULL;
	return type_names[type];
}

enum wg_object_type wg_object_type_from_name(const char *name, size_t len)
{
	int t;
	for (t = WG_OBJ_COMMIT; t <= WG_OBJ_TAG; t++)
		if (strlen(type_names[t]) == len && !memcmp(type_names[t], name, len))
			return (enum wg_object_type)t;
	return WG_OBJ_BAD;
}

size_t wg_object_header(char *out, enum wg_object_type type, size_t size)
{
	int n = snprintf(out, 32, "%s %zu", wg_object_type_name(type), size);
	return (size_t)n + 1;
}

int wg_object_hash(struct wg_oid *out, const struct wg_hash_algo *algo,
		   enum wg_object_type type, const void *data, size_t len)
{
	struct wg_hash_ctx ctx;
	unsigned char raw[WG_MAX_RAWSZ];
	char hdr[32];
	size_t hdrlen;
	int err;
	if (!wg_object_type_name(type))
		return wg_error_set(WG_EINVALID, "cannot hash an object of unknown type %d", (int)type);
	hdrlen = wg_object_header(hdr, type, len);
	wg_hash_init(&ctx, algo);
	wg_hash_update(&ctx, hdr, hdrlen);
	wg_hash_update(&ctx, data, len);
	err = wg_hash_final(&ctx, raw);
	wg_oid_from_raw(out, algo, raw);
	return err;
}
