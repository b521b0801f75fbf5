/* The credential source of the native HTTP client (see helper.h): git's
 * credential_fill(), credential_approve() and credential_reject() over the
 * configured helpers. */
#include "credential/helper.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/url.h"

static bool expired(const struct cli_credential *c)
{
	return c->password_expiry_utc != CLI_CRED_NO_EXPIRY &&
	       c->password_expiry_utc < (uintmax_t)time(NULL);
}

/* The settings, once: they depend only on the URL (git applies them on
 * the first fill, approve or reject). */
static int configure(struct cli_cred_source *s)
{
	struct cli_credential *c = &s->cred;
	int err;

	if (s->configured)
		return 0;
	if ((err = cli_credential_from_url(c, s->url)) ||
	    (err = cli_cred_config_read(&s->cfg, s->layers, s->nlayers, c)))
		return err;
	if (!c->username && s->cfg.username && !(c->username = wg_strdup(s->cfg.username)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	c->protect_protocol = s->cfg.protect_protocol;
	/* by default the path is no business of the helpers' for http(s) */
	if (!s->cfg.use_http_path &&
	    (!strcmp(c->protocol, "http") || !strcmp(c->protocol, "https"))) {
		wg_free(c->path);
		c->path = NULL;
	}
	s->configured = true;
	return 0;
}

static int set_challenges(struct cli_credential *c, const char *const *ch, size_t n)
{
	cli_strlist_clear(&c->wwwauth);
	for (size_t i = 0; i < n; i++)
		if (cli_strlist_push(&c->wwwauth, ch[i]))
			return WG_ENOMEM;
	return 0;
}

static char *dup_or_null(const char *s, bool *oom)
{
	char *d = s ? wg_strdup(s) : NULL;
	*oom |= s && !d;
	return d;
}

/* Hand the credential to the client. */
static int give(const struct cli_credential *c, struct http_credential *out)
{
	bool oom = false;
	out->user = dup_or_null(c->username, &oom);
	out->pass = dup_or_null(c->password, &oom);
	if (c->authtype && c->credential) {
		struct wg_buf v = WG_BUF_INIT;
		oom |= wg_buf_printf(&v, "%s %s", c->authtype, c->credential) != 0;
		out->authorization = (char *)wg_buf_detach(&v, NULL);
		oom |= !out->authorization;
	}
	out->multistage = c->multistage;
	return oom ? wg_error_set(WG_ENOMEM, "out of memory") : 0;
}

static bool complete(const struct cli_credential *c)
{
	return (c->username && c->password) || c->credential;
}

static int fill(void *payload, const char *const *ch, size_t n, const char *user,
		struct http_credential *out)
{
	struct cli_cred_source *s = payload;
	struct cli_credential *c = &s->cred;
	int err;

	if ((err = configure(s)))
		return err;
	if (user && !c->username && !(c->username = wg_strdup(user)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	/* The client asks only when it has nothing usable: after a first
	 * 401, or for the next round of a multistage authentication, whose
	 * secrets are new (git clears them and fills again). */
	cli_credential_clear_secrets(c);
	cli_credential_next_state(c);
	c->multistage = false;
	cli_credential_announce_all(c);
	if ((err = set_challenges(c, ch, n)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	for (size_t i = 0; i < s->cfg.helpers.n; i++) {
		const char *helper = s->cfg.helpers.v[i];
		if ((err = cli_credential_helper_run(c, helper, "get")))
			return err;
		if (expired(c)) {
			cli_credential_clear_secrets(c);
			c->password_expiry_utc = CLI_CRED_NO_EXPIRY;
		}
		if (complete(c)) {
			cli_strlist_clear(&c->wwwauth);
			return give(c, out);
		}
		if (c->quit)
			return wg_error_set(WG_EAUTH, "credential helper '%s' told us to quit",
					    helper);
	}
	/* what there is (a user name, say); the prompt asks for the rest */
	return give(c, out);
}

static void approve(void *payload, const char *user, const char *pass)
{
	struct cli_cred_source *s = payload;
	struct cli_credential *c = &s->cred;
	int err = 0;

	if (s->approved || (err = configure(s)))
		goto out;
	/* the prompt's answer, or the same as the source gave */
	if (user && (!c->username || strcmp(user, c->username)) &&
	    wg_str_replace(&c->username, user)) {
		err = wg_error_set(WG_ENOMEM, "out of memory");
		goto out;
	}
	if (pass && (!c->password || strcmp(pass, c->password))) {
		char *p = wg_strdup(pass);
		if (!p) {
			err = wg_error_set(WG_ENOMEM, "out of memory");
			goto out;
		}
		wg_url_free_secret(c->password);
		c->password = p;
	}
	if (!complete(c) || expired(c))
		goto out;
	cli_credential_next_state(c);
	/* git's wwwauth[] are the last response's, and a 2xx has none (after
	 * the prompt they are still the 401's here) */
	cli_strlist_clear(&c->wwwauth);
	for (size_t i = 0; i < s->cfg.helpers.n && !err; i++)
		err = cli_credential_helper_run(c, s->cfg.helpers.v[i], "store");
	s->approved = true;
out:
	/* storing is a courtesy: the transfer goes on whatever happened */
	if (err) {
		fprintf(stderr, "warning: %s\n", wg_error_message());
		wg_error_clear();
	}
}

static void reject(void *payload, const char *const *ch, size_t n)
{
	struct cli_cred_source *s = payload;
	struct cli_credential *c = &s->cred;

	if (configure(s))
		goto out;
	cli_credential_next_state(c);
	if (set_challenges(c, ch, n))
		goto out;
	for (size_t i = 0; i < s->cfg.helpers.n; i++)
		if (cli_credential_helper_run(c, s->cfg.helpers.v[i], "erase"))
			break;
out:
	cli_credential_clear_secrets(c);
	wg_free(c->username);
	c->username = NULL;
	wg_url_free_secret(c->oauth_refresh_token);
	c->oauth_refresh_token = NULL;
	c->password_expiry_utc = CLI_CRED_NO_EXPIRY;
	s->approved = false;
	/* the refusal is the error the caller reports */
	wg_error_clear();
}

/* The client follows the repository to another origin: what was known
 * (and configured) for the old URL goes, the new one's is read when next
 * needed. */
static int moved(void *payload, const char *url)
{
	struct cli_cred_source *s = payload;
	char *u = wg_strdup(url);

	if (!u)
		return wg_error_set(WG_ENOMEM, "out of memory");
	cli_credential_release(&s->cred);
	cli_credential_init(&s->cred);
	cli_cred_config_release(&s->cfg);
	wg_free(s->url);
	s->url = u;
	s->configured = false;
	s->approved = false;
	return 0;
}

int cli_cred_source_init(struct cli_cred_source *s, const char *url,
			 const struct wg_config *const *layers, size_t nlayers)
{
	memset(s, 0, sizeof(*s));
	cli_credential_init(&s->cred);
	s->cfg.protect_protocol = true;
	if (nlayers > sizeof(s->layers) / sizeof(*s->layers))
		return wg_error_set(WG_EINVALID, "too many config files");
	for (size_t i = 0; i < nlayers; i++)
		if (layers[i])
			s->layers[s->nlayers++] = layers[i];
	if (!(s->url = wg_strdup(url)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	s->hooks.fill = fill;
	s->hooks.approve = approve;
	s->hooks.reject = reject;
	s->hooks.moved = moved;
	s->hooks.payload = s;
	return 0;
}

void cli_cred_source_release(struct cli_cred_source *s)
{
	cli_credential_release(&s->cred);
	cli_cred_config_release(&s->cfg);
	wg_free(s->url);
	memset(s, 0, sizeof(*s));
}
