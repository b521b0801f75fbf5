/* Planning a remote revision read (see rev_plan.h). */
#include "remote/rev_plan.h"

#include <string.h>

#include "util/error.h"

static int refuse(const char *spec, const char *why)
{
	return wg_error_set(WG_EINVALID, "'%s' cannot be read from a remote without a clone: "
			    "%s", spec, why);
}

/* The number after ~ or ^ in *n (none: 1); -1 past the most generations. */
static int count(const char **p, unsigned *n)
{
	unsigned long v = 0;

	if (**p < '0' || **p > '9') {
		*n = 1;
		return 0;
	}
	while (**p >= '0' && **p <= '9') {
		v = v * 10 + (unsigned long)(**p - '0');
		if (v > WG_REV_PLAN_MAX_GENERATIONS)
			return -1;
		(*p)++;
	}
	*n = (unsigned)v;
	return 0;
}

int wg_rev_plan(struct wg_rev_plan *out, const char *spec)
{
	static const char *const types[] = { "", "commit", "tree", "blob", "tag", "object" };
	const char *p = spec + strcspn(spec, "~^");
	unsigned long total = 0;

	memset(out, 0, sizeof(*out));
	if (strchr(spec, ':'))
		return refuse(spec, "a path goes in its own argument");
	if (strstr(spec, "@{"))
		return refuse(spec, "reflogs are local");
	if (strstr(spec, ".."))
		return refuse(spec, "a range is not one revision");
	out->name_len = (size_t)(p - spec);
	out->navigation = p;
	if (!out->name_len)
		return refuse(spec, "no name before the suffix (git would not read it either)");
	while (*p) {
		unsigned n;
		char kind = *p++;
		if (kind == '^' && *p == '{') {
			const char *end = strchr(p, '}');
			size_t len = end ? (size_t)(end - p - 1) : 0, i;
			for (i = 0; end && i < sizeof(types) / sizeof(types[0]); i++)
				if (strlen(types[i]) == len && !strncmp(p + 1, types[i], len))
					break;
			if (!end || i == sizeof(types) / sizeof(types[0]))
				return refuse(spec, "only ^{<type>} and ^{} peel here");
			p = end + 1;
			continue;
		}
		if (kind != '~' && kind != '^')
			return refuse(spec, "not a ~<n>, ^<n> or ^{<type>} suffix");
		if (count(&p, &n))
			return refuse(spec, "too many generations back");
		/* ^<n> is one generation (^0 none), ~<n> n of them */
		total += kind == '~' ? n : n != 0;
		if (total > WG_REV_PLAN_MAX_GENERATIONS)
			return refuse(spec, "too many generations back");
	}
	out->generations = (unsigned)total;
	return 0;
}
