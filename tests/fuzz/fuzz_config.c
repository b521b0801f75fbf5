/* Git config files (core/repo/config.c). The input is parsed, every entry
 * is read back through the typed getters, the config is edited and
 * serialized, and what it serializes to must parse again with the same
 * entries. */
#include "fuzz.h"

#include <stdbool.h>

#include "repo/config.h"
#include "util/alloc.h"
#include "util/error.h"

struct collect {
	const struct wg_config *cfg;
	int has_nul;   /* a NUL in a subsection cuts the key's C string, as in git */
	struct wg_buf keys;
	size_t n;
	char *first;   /* the first key seen */
};

static int each(const char *key, const char *value, void *payload)
{
	struct collect *c = payload;
	const char *s;
	bool b;
	int64_t i;
	char *canon = NULL;

	/* git also lists a key before any section header ("u"), which is
	 * no valid key to set: only call the check. */
	FUZZ_ASSERT(key != NULL);
	(void)wg_config_validate_key(key);
	if (!wg_config_canonical_key(&canon, key))
		wg_free(canon);
	if (c->cfg) {
		FUZZ_ASSERT(wg_config_get_string(c->cfg, key, &s) != WG_ENOTFOUND || c->has_nul ||
			    wg_config_validate_key(key) != 0);
		(void)wg_config_get_bool(c->cfg, key, &b);
		(void)wg_config_get_int64(c->cfg, key, &i);
	}
	if (!c->first)
		c->first = wg_strdup(key);
	wg_buf_adds(&c->keys, key);
	wg_buf_addch(&c->keys, '=');
	wg_buf_adds(&c->keys, value ? value : "(null)");
	wg_buf_addch(&c->keys, '\n');
	c->n++;
	return 0;
}

static int count_value(const char *value, void *payload)
{
	(void)value;
	(*(size_t *)payload)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wg_config *cfg, *again;
	struct collect c1 = { NULL, 0, WG_BUF_INIT, 0, NULL },
		       c2 = { NULL, 0, WG_BUF_INIT, 0, NULL };
	struct wg_buf out = WG_BUF_INIT;
	char *text = fz_cstr(data, size);

	c1.has_nul = c2.has_nul = memchr(data, 0, size) != NULL;

	if (!wg_config_parse(&cfg, text, size, NULL)) {
		c1.cfg = cfg;
		FUZZ_ASSERT(wg_config_foreach(cfg, each, &c1) == 0);
		if (c1.first) {
			/* the first key: all its values, then edits */
			const char *key = c1.first;
			size_t nvals = 0;
			int rc = wg_config_get_all(cfg, key, count_value, &nvals);
			FUZZ_ASSERT((rc == 0 && nvals) || c1.has_nul ||
				    wg_config_validate_key(key) != 0);
			(void)wg_config_add(cfg, key, "added");
			(void)wg_config_set_string(cfg, "fuzz.section.key", "v a\"l\\ue\n");
			(void)wg_config_unset(cfg, key);
			(void)wg_config_replace_all(cfg, key, "x");
			(void)wg_config_unset_all(cfg, key);
		}
		wg_buf_release(&c1.keys);
		c1.n = 0;
		FUZZ_ASSERT(wg_config_foreach(cfg, each, &c1) == 0);
		if (!wg_config_serialize(cfg, &out)) {
			int rc = wg_config_parse(&again, (const char *)out.data, out.len, NULL);
			FUZZ_ASSERT(rc == 0);
			c2.cfg = again;
			FUZZ_ASSERT(wg_config_foreach(again, each, &c2) == 0);
			FUZZ_ASSERT(c1.keys.len == c2.keys.len && (!c1.keys.len ||
				    !memcmp(c1.keys.data, c2.keys.data, c1.keys.len)));
			wg_config_free(again);
		}
		wg_config_free(cfg);
	}
	wg_buf_release(&c1.keys);
	wg_buf_release(&c2.keys);
	wg_free(c1.first);
	wg_free(c2.first);
	wg_buf_release(&out);
	free(text);
	return 0;
}
