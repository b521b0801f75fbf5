/* A credential and its "key=value" lines (see credential.h). */
#include "credential/credential.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repo/config.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/hex.h"
#include "util/url.h"

void cli_credential_init(struct cli_credential *c)
{
	memset(c, 0, sizeof(*c));
	c->password_expiry_utc = CLI_CRED_NO_EXPIRY;
	c->protect_protocol = true;
}

int cli_strlist_push(struct cli_strlist *l, const char *s)
{
	char **v = wg_realloc(l->v, (l->n + 1) * sizeof(*v));
	if (!v)
		return wg_error_set(WG_ENOMEM, "out of memory");
	l->v = v;
	if (!(v[l->n] = wg_strdup(s)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	l->n++;
	return 0;
}

void cli_strlist_clear(struct cli_strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		wg_url_free_secret(l->v[i]);  /* state[] may be anything */
	wg_free(l->v);
	l->v = NULL;
	l->n = 0;
}

void cli_credential_clear_secrets(struct cli_credential *c)
{
	wg_url_free_secret(c->password);
	wg_url_free_secret(c->credential);
	c->password = c->credential = NULL;
}

void cli_credential_release(struct cli_credential *c)
{
	cli_credential_clear_secrets(c);
	wg_free(c->protocol);
	wg_free(c->host);
	wg_free(c->path);
	wg_free(c->username);
	wg_free(c->authtype);
	wg_url_free_secret(c->oauth_refresh_token);
	cli_strlist_clear(&c->wwwauth);
	cli_strlist_clear(&c->state);
	cli_strlist_clear(&c->state_to_send);
	cli_credential_init(c);
}

void cli_credential_next_state(struct cli_credential *c)
{
	cli_strlist_clear(&c->state_to_send);
	c->state_to_send = c->state;
	c->state.v = NULL;
	c->state.n = 0;
}

void cli_credential_announce_all(struct cli_credential *c)
{
	c->capa_authtype.initial = true;
	c->capa_state.initial = true;
}

/* Is the capability to be written for `op`? Each step passes on only
 * what the step before had: git to "get" what git has, to "store" and
 * "erase" what the helper answered too. */
static bool has_capa(const struct cli_cred_capa *capa, enum cli_cred_op op)
{
	switch (op) {
	case CLI_CRED_OP_HELPER:
		return capa->initial;
	case CLI_CRED_OP_RESPONSE:
		return capa->initial && capa->helper;
	default:
		return false;
	}
}

/* --- from a URL ---------------------------------------------------------------------- */

/* Percent-decode s[0..len) as git's url_decode_mem() does: a '%' not
 * followed by two hex digits stays as it is. */
static char *url_decode(const char *s, size_t len)
{
	char *out = wg_malloc(len + 1), *o = out;
	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		int hi, lo;
		if (s[i] == '%' && i + 2 < len && (hi = wg_hex_value((unsigned char)s[i + 1])) >= 0 &&
		    (lo = wg_hex_value((unsigned char)s[i + 2])) >= 0) {
			*o++ = (char)(hi << 4 | lo);
			i += 2;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	return out;
}

int cli_credential_from_url(struct cli_credential *c, const char *url)
{
	const char *proto_end = strstr(url, "://"), *cp, *at, *colon, *slash, *host;
	const char *what = NULL;

	if (!proto_end || proto_end == url)
		return wg_error_set(WG_EINVALID, "url has no scheme: %s", url);
	cp = proto_end + 3;
	at = strchr(cp, '@');
	colon = strchr(cp, ':');
	/* a query or fragment before any slash ends the host too */
	slash = cp + strcspn(cp, "/?#");
	wg_free(c->protocol);
	wg_free(c->host);
	wg_free(c->path);
	wg_free(c->username);
	c->path = c->username = NULL;
	cli_credential_clear_secrets(c);
	if (!at || slash <= at) {
		host = cp;
	} else {
		const char *user_end = !colon || at <= colon ? at : colon;
		if (!(c->username = url_decode(cp, (size_t)(user_end - cp))))
			goto oom;
		host = at + 1;
		/* a password in the URL is the caller's business, not a helper's */
	}
	c->protocol = wg_strndup(url, (size_t)(proto_end - url));
	c->host = url_decode(host, (size_t)(slash - host));
	if (!c->protocol || !c->host)
		goto oom;
	while (*slash == '/')
		slash++;
	if (*slash) {
		size_t n;
		if (!(c->path = url_decode(slash, strlen(slash))))
			goto oom;
		for (n = strlen(c->path); n > 1 && c->path[n - 1] == '/'; n--)
			c->path[n - 1] = '\0';
	}
	if (c->username && strchr(c->username, '\n'))
		what = "username";
	else if (strchr(c->protocol, '\n'))
		what = "protocol";
	else if (strchr(c->host, '\n'))
		what = "host";
	else if (c->path && strchr(c->path, '\n'))
		what = "path";
	if (what)
		return wg_error_set(WG_EINVALID, "url contains a newline in its %s component: %s",
				    what, url);
	return 0;
oom:
	return wg_error_set(WG_ENOMEM, "out of memory");
}

/* --- writing ------------------------------------------------------------------------- */

static int write_item(const struct cli_credential *c, struct wg_buf *out, const char *key,
		      const char *value)
{
	if (!value)
		return 0;
	if (strchr(value, '\n'))
		return wg_error_set(WG_EINVALID, "credential value for %s contains newline", key);
	if (c->protect_protocol && strchr(value, '\r'))
		return wg_error_set(WG_EINVALID, "credential value for %s contains carriage "
				    "return\nIf this is intended, set "
				    "`credential.protectProtocol=false`", key);
	if (wg_buf_printf(out, "%s=%s\n", key, value))
		return wg_error_set(WG_ENOMEM, "out of memory");
	return 0;
}

int cli_credential_write(const struct cli_credential *c, struct wg_buf *out,
			 enum cli_cred_op op)
{
	size_t start = out->len, i;
	bool authtype = has_capa(&c->capa_authtype, op), state = has_capa(&c->capa_state, op);
	int err = 0;

	if (!c->protocol || !c->host)
		return wg_error_set(WG_EINVALID, "a credential needs a protocol and a host");
	if (authtype)
		err = write_item(c, out, "capability[]", "authtype");
	if (!err && state)
		err = write_item(c, out, "capability[]", "state");
	if (!err && authtype) {
		err = write_item(c, out, "authtype", c->authtype);
		if (!err)
			err = write_item(c, out, "credential", c->credential);
		if (!err && c->ephemeral)
			err = write_item(c, out, "ephemeral", "1");
	}
	if (!err)
		err = write_item(c, out, "protocol", c->protocol);
	if (!err)
		err = write_item(c, out, "host", c->host);
	if (!err)
		err = write_item(c, out, "path", c->path);
	if (!err)
		err = write_item(c, out, "username", c->username);
	if (!err)
		err = write_item(c, out, "password", c->password);
	if (!err)
		err = write_item(c, out, "oauth_refresh_token", c->oauth_refresh_token);
	if (!err && c->password_expiry_utc != CLI_CRED_NO_EXPIRY) {
		char num[32];
		snprintf(num, sizeof(num), "%" PRIuMAX, c->password_expiry_utc);
		err = write_item(c, out, "password_expiry_utc", num);
	}
	for (i = 0; !err && i < c->wwwauth.n; i++)
		err = write_item(c, out, "wwwauth[]", c->wwwauth.v[i]);
	if (!err && state) {
		if (c->multistage)
			err = write_item(c, out, "continue", "1");
		for (i = 0; !err && i < c->state_to_send.n; i++)
			err = write_item(c, out, "state[]", c->state_to_send.v[i]);
	}
	if (err) {
		/* nothing half-written; and the secrets written so far go */
		if (out->data)
			memset(out->data + start, 0, out->len - start);
		wg_buf_setlen(out, start);
	}
	return err;
}

/* --- reading ------------------------------------------------------------------------- */

static int set_str(char **slot, const char *value, bool secret)
{
	char *copy = wg_strdup(value);
	if (!copy)
		return wg_error_set(WG_ENOMEM, "out of memory");
	if (secret)
		wg_url_free_secret(*slot);
	else
		wg_free(*slot);
	*slot = copy;
	return 0;
}

static int set_bool(bool *slot, const char *key, const char *value)
{
	return wg_config_bool_value(key, value, slot);
}

/* git's parse_timestamp(): strtoumax, where 0 or an overflow mean none. */
static uintmax_t parse_expiry(const char *value)
{
	uintmax_t v;
	errno = 0;
	v = strtoumax(value, NULL, 10);
	if (v == 0 || errno == ERANGE)
		return CLI_CRED_NO_EXPIRY;
	return v;
}

static int read_line(struct cli_credential *c, char *key, enum cli_cred_op op)
{
	char *value = strchr(key, '=');

	*value++ = '\0';
	if (!strcmp(key, "username"))
		return set_str(&c->username, value, false);
	if (!strcmp(key, "password"))
		return set_str(&c->password, value, true);
	if (!strcmp(key, "credential"))
		return set_str(&c->credential, value, true);
	if (!strcmp(key, "protocol"))
		return set_str(&c->protocol, value, false);
	if (!strcmp(key, "host"))
		return set_str(&c->host, value, false);
	if (!strcmp(key, "path"))
		return set_str(&c->path, value, false);
	if (!strcmp(key, "ephemeral"))
		return set_bool(&c->ephemeral, "ephemeral", value);
	if (!strcmp(key, "wwwauth[]"))
		return cli_strlist_push(&c->wwwauth, value);
	if (!strcmp(key, "state[]"))
		return cli_strlist_push(&c->state, value);
	if (!strcmp(key, "capability[]")) {
		struct cli_cred_capa *capa = !strcmp(value, "authtype") ? &c->capa_authtype :
					     !strcmp(value, "state") ? &c->capa_state : NULL;
		if (capa && op == CLI_CRED_OP_INITIAL)
			capa->initial = true;
		else if (capa && op == CLI_CRED_OP_HELPER)
			capa->helper = true;
		return 0;
	}
	if (!strcmp(key, "continue"))
		return set_bool(&c->multistage, "continue", value);
	if (!strcmp(key, "password_expiry_utc")) {
		c->password_expiry_utc = parse_expiry(value);
		return 0;
	}
	if (!strcmp(key, "oauth_refresh_token"))
		return set_str(&c->oauth_refresh_token, value, true);
	if (!strcmp(key, "authtype"))
		return set_str(&c->authtype, value, false);
	if (!strcmp(key, "quit"))
		return set_bool(&c->quit, "quit", value);
	/* Anything else, "url" included, is ignored: unknown keys so that
	 * newer helpers work with us; "url" because git's handling of it
	 * starts the whole credential over (helper list included). */
	return 0;
}

int cli_credential_read(struct cli_credential *c, const char *data, size_t len,
			enum cli_cred_op op)
{
	struct wg_buf line = WG_BUF_INIT;
	size_t pos = 0;
	int err = 0;

	while (pos < len && !err) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (data + pos)) : len - pos;
		size_t next = pos + n + (nl ? 1 : 0);

		if (n && data[pos + n - 1] == '\r')
			n--;
		if (!n)
			break;  /* the blank line: the end */
		wg_buf_reset(&line);
		if (wg_buf_add(&line, data + pos, n)) {
			err = wg_error_set(WG_ENOMEM, "out of memory");
			break;
		}
		if (memchr(data + pos, '\0', n) || !memchr(data + pos, '=', n)) {
			/* a NUL would cut the value short where git's C strings
			 * do; refused whole instead, as the format forbids it */
			err = wg_error_set(WG_ECORRUPT, "invalid credential line");
			break;
		}
		err = read_line(c, (char *)wg_buf_cstr(&line), op);
		pos = next;
	}
	wg_url_release_secret(&line);
	return err;
}

bool cli_credential_answer_complete(const char *data, size_t len)
{
	size_t pos = 0;
	while (pos < len) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t n;
		if (!nl)
			return false;
		n = (size_t)(nl - (data + pos));
		if (n == 0 || (n == 1 && data[pos] == '\r'))
			return true;
		pos += n + 1;
	}
	return false;
}
