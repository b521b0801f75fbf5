/* The credential.* settings for a credential (see helper.h). */
#include "credential/helper.h"

#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

struct walk {
	struct cli_cred_config *cfg;
	const struct cli_credential *c;
	struct cli_url_norm url;   /* the credential as a URL; scheme NULL: none */
};

/* Percent-encode what is not unreserved, keeping `keep` as it is, as
 * git's credential_format() builds the URL it matches. */
static int add_encoded(struct wg_buf *out, const char *s, const char *keep)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		bool plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			     (ch >= '0' && ch <= '9') || strchr("-._~", ch) || strchr(keep, ch);
		int err = plain ? wg_buf_addch(out, ch) : wg_buf_printf(out, "%%%02X", ch);
		if (err)
			return err;
	}
	return 0;
}

/* Does a credential.<url> that is not a whole URL match? Each part it
 * names (scheme, user, host, path) must equal the credential's. */
static int match_partial(const char *pat, const struct cli_credential *c, bool *out)
{
	struct cli_credential want;
	const char *proto_end = strstr(pat, "://");
	int err;

	cli_credential_init(&want);
	*out = false;
	if (proto_end && proto_end != pat) {
		err = cli_credential_from_url(&want, pat);
	} else {
		/* no scheme: "host[/path]", "/path" or "://host": parsed behind
		 * a stand-in scheme, which then goes */
		struct wg_buf b = WG_BUF_INIT;
		err = wg_buf_printf(&b, "x://%s", proto_end ? proto_end + 3 : pat) ?
		      wg_error_set(WG_ENOMEM, "out of memory") :
		      cli_credential_from_url(&want, wg_buf_cstr(&b));
		wg_buf_release(&b);
		wg_free(want.protocol);
		want.protocol = NULL;
	}
	if (err == WG_ENOMEM) {
		cli_credential_release(&want);
		return err;
	}
	if (!err) {
		if (want.host && !*want.host) {
			wg_free(want.host);
			want.host = NULL;
		}
#define SAME(f) (!want.f || (c->f && !strcmp(want.f, c->f)))
		*out = SAME(protocol) && SAME(host) && SAME(path) && SAME(username);
#undef SAME
	} else {
		fprintf(stderr, "warning: skipping credential lookup for key: credential.%s\n", pat);
	}
	wg_error_clear();
	cli_credential_release(&want);
	return 0;
}

static int on_entry(const char *key, const char *value, void *payload)
{
	struct walk *w = payload;
	struct cli_cred_config *cfg = w->cfg;
	const char *name, *dot;
	int err;

	if (strncmp(key, "credential.", 11))
		return 0;
	name = key + 11;
	dot = strrchr(name, '.');
	if (dot) {
		char *pat = wg_strndup(name, (size_t)(dot - name));
		struct cli_url_norm pn;
		bool match = false;
		if (!pat)
			return wg_error_set(WG_ENOMEM, "out of memory");
		err = cli_url_normalize(&pn, pat, true);
		if (!err) {
			match = w->url.scheme && cli_url_match(&w->url, &pn);
			cli_url_norm_release(&pn);
		} else if (err == -1) {
			err = match_partial(pat, w->c, &match);
		} else {
			err = wg_error_set(WG_ENOMEM, "out of memory");
		}
		wg_free(pat);
		if (err)
			return err;
		if (!match)
			return 0;
		name = dot + 1;
	}
	if (strcmp(name, "helper") && strcmp(name, "username") && strcmp(name, "usehttppath") &&
	    strcmp(name, "protectprotocol"))
		return 0;
	if (!value)
		return wg_error_set(WG_EINVALID, "missing value for '%s'", key);
	if (!strcmp(name, "helper")) {
		if (!*value) {
			cli_strlist_clear(&cfg->helpers);
			return 0;
		}
		return cli_strlist_push(&cfg->helpers, value);
	}
	if (!strcmp(name, "username"))
		return wg_str_replace(&cfg->username, value) ?
		       wg_error_set(WG_ENOMEM, "out of memory") : 0;
	if (!strcmp(name, "usehttppath"))
		return wg_config_bool_value(key, value, &cfg->use_http_path);
	return wg_config_bool_value(key, value, &cfg->protect_protocol);
}

int cli_cred_config_read(struct cli_cred_config *out, const struct wg_config *const *layers,
			 size_t nlayers, const struct cli_credential *c)
{
	struct walk w;
	struct wg_buf url = WG_BUF_INIT;
	int err = 0;

	memset(out, 0, sizeof(*out));
	out->protect_protocol = true;
	memset(&w, 0, sizeof(w));
	w.cfg = out;
	w.c = c;
	/* protocol://[user@]host[/path], as git formats the credential */
	if (wg_buf_printf(&url, "%s://", c->protocol) ||
	    (c->username && *c->username &&
	     (add_encoded(&url, c->username, "") || wg_buf_addch(&url, '@'))) ||
	    add_encoded(&url, c->host, ":[]") ||
	    (c->path && (wg_buf_addch(&url, '/') || add_encoded(&url, c->path, "/"))))
		err = wg_error_set(WG_ENOMEM, "out of memory");
	if (!err && cli_url_normalize(&w.url, wg_buf_cstr(&url), false) == -2)
		err = wg_error_set(WG_ENOMEM, "out of memory");
	wg_buf_release(&url);
	for (size_t i = 0; i < nlayers && !err; i++)
		if (layers[i])
			err = wg_config_foreach(layers[i], on_entry, &w);
	cli_url_norm_release(&w.url);
	if (err)
		cli_cred_config_release(out);
	return err;
}

void cli_cred_config_release(struct cli_cred_config *cfg)
{
	cli_strlist_clear(&cfg->helpers);
	wg_free(cfg->username);
	memset(cfg, 0, sizeof(*cfg));
	cfg->protect_protocol = true;
}
