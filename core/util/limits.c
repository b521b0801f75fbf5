#include "util/limits.h"

#include <stdbool.h>
#include <string.h>

#include "util/error.h"

static const struct wg_limits builtin = WG_LIMITS_INIT;
static struct wg_limits current = WG_LIMITS_INIT;

const struct wg_limits *wg_limits_default(void) { return &current; }

void wg_limits_set_default(const struct wg_limits *limits)
{
	current = limits ? *limits : builtin;
}

const struct wg_limits *wg_limits_or_default(const struct wg_limits *limits)
{
	return limits ? limits : &current;
}

int wg_limits_check_object_size(const struct wg_limits *limits, uint64_t size, const char *what)
{
	limits = wg_limits_or_default(limits);
	if (limits->max_object_size && size > limits->max_object_size)
		return wg_error_set(WG_ELIMIT, "%s declares %llu bytes, more than the limit of "
				    "%llu (max_object_size): refusing to hold it in memory",
				    what, (unsigned long long)size,
				    (unsigned long long)limits->max_object_size);
	return 0;
}

int wg_limits_check_inflate(const struct wg_limits *limits, uint64_t out, uint64_t in,
			    const char *what)
{
	limits = wg_limits_or_default(limits);
	if (!limits->max_inflate_ratio || out <= limits->inflate_ratio_floor)
		return 0;
	if (out / limits->max_inflate_ratio > in)
		return wg_error_set(WG_ELIMIT, "%s inflates %llu compressed bytes to over %llu: "
				    "more than %u times (max_inflate_ratio), a zlib bomb?",
				    what, (unsigned long long)in, (unsigned long long)out,
				    (unsigned)limits->max_inflate_ratio);
	return 0;
}

int wg_limits_check_tree_depth(const struct wg_limits *limits, uint64_t depth,
			       const char *tree_hex)
{
	limits = wg_limits_or_default(limits);
	if (limits->max_tree_depth && depth > limits->max_tree_depth)
		return wg_error_set(WG_ELIMIT, "tree %s is nested more than %u deep "
				    "(core.maxTreeDepth)", tree_hex,
				    (unsigned)limits->max_tree_depth);
	return 0;
}

struct field {
	const char *name;
	size_t offset;
	bool wide;   /* uint64_t, else uint32_t */
};

#define FIELD(f, w) { #f, offsetof(struct wg_limits, f), w }
static const struct field fields[] = {
	FIELD(max_object_size, true),
	FIELD(max_inflate_ratio, false),
	FIELD(inflate_ratio_floor, true),
	FIELD(max_pack_objects, false),
	FIELD(max_tree_depth, false),
	FIELD(max_refs, false),
	FIELD(max_advertisement_bytes, true),
};

static int parse_value(uint64_t *out, const char *p, size_t len, bool wide)
{
	uint64_t v = 0, mult = 1, max = wide ? UINT64_MAX : UINT32_MAX;
	size_t i = 0;
	if (!len)
		return -1;
	switch (p[len - 1]) {
	case 'k': case 'K': mult = (uint64_t)1 << 10; len--; break;
	case 'm': case 'M': mult = (uint64_t)1 << 20; len--; break;
	case 'g': case 'G': mult = (uint64_t)1 << 30; len--; break;
	}
	if (!len)
		return -1;
	for (i = 0; i < len; i++) {
		if (p[i] < '0' || p[i] > '9' || v > (max - (uint64_t)(p[i] - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(p[i] - '0');
	}
	if (v && mult > max / v)
		return -1;
	*out = v * mult;
	return 0;
}

int wg_limits_parse(struct wg_limits *limits, const char *spec)
{
	struct wg_limits l = *limits;
	const char *p = spec ? spec : "";
	while (*p) {
		const char *end = strchr(p, ','), *eq;
		size_t len, nlen, i;
		uint64_t v;
		if (!end)
			end = p + strlen(p);
		len = (size_t)(end - p);
		eq = memchr(p, '=', len);
		nlen = eq ? (size_t)(eq - p) : len;
		for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
			if (strlen(fields[i].name) == nlen && !memcmp(fields[i].name, p, nlen))
				break;
		if (len && i == sizeof(fields) / sizeof(fields[0]))
			return wg_error_set(WG_EINVALID, "unknown limit '%.*s' (known: max_object_size, "
					    "max_inflate_ratio, inflate_ratio_floor, max_pack_objects, "
					    "max_tree_depth, max_refs, max_advertisement_bytes)",
					    (int)nlen, p);
		if (len) {
			if (!eq || parse_value(&v, eq + 1, (size_t)(end - eq - 1), fields[i].wide))
				return wg_error_set(WG_EINVALID, "bad value for limit %s in '%.*s': "
						    "expected a number with an optional k, m or g",
						    fields[i].name, (int)len, p);
			if (fields[i].wide)
				*(uint64_t *)(void *)((char *)&l + fields[i].offset) = v;
			else
				*(uint32_t *)(void *)((char *)&l + fields[i].offset) = (uint32_t)v;
		}
		p = *end ? end + 1 : end;
	}
	*limits = l;
	return 0;
}
