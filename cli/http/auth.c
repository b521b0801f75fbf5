/* Authentication of the native HTTP client (see auth.h): where
 * credentials come from (the URL, the environment, a credential source, a
 * terminal prompt), the Authorization header they become, and what a 401
 * asks for. */
#include "http/auth.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <termios.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/url.h"

static const char base64_chars[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int base64_add(struct wg_buf *out, const unsigned char *in, size_t len)
{
	size_t i;
	int err = 0;
	for (i = 0; i + 2 < len && !err; i += 3) {
		char q[4] = { base64_chars[in[i] >> 2],
			      base64_chars[((in[i] & 3) << 4) | (in[i + 1] >> 4)],
			      base64_chars[((in[i + 1] & 15) << 2) | (in[i + 2] >> 6)],
			      base64_chars[in[i + 2] & 63] };
		err = wg_buf_add(out, q, 4);
	}
	if (!err && len - i == 1) {
		char q[4] = { base64_chars[in[i] >> 2], base64_chars[(in[i] & 3) << 4], '=', '=' };
		err = wg_buf_add(out, q, 4);
	} else if (!err && len - i == 2) {
		char q[4] = { base64_chars[in[i] >> 2],
			      base64_chars[((in[i] & 3) << 4) | (in[i + 1] >> 4)],
			      base64_chars[(in[i + 1] & 15) << 2], '=' };
		err = wg_buf_add(out, q, 4);
	}
	return err;
}

/* Read a line from the terminal, without echo for passwords. */
static int prompt_line(const char *prompt, bool echo, char **out)
{
	struct termios old, quiet;
	bool restore = false;
	struct wg_buf line = WG_BUF_INIT;
	int err = 0;

	fputs(prompt, stderr);
	fflush(stderr);
	if (!echo && tcgetattr(STDIN_FILENO, &old) == 0) {
		quiet = old;
		quiet.c_lflag &= ~(tcflag_t)ECHO;
		/* TCSANOW, not TCSAFLUSH: keep what the user already typed ahead. */
		restore = tcsetattr(STDIN_FILENO, TCSANOW, &quiet) == 0;
	}
	for (;;) {
		char ch;
		ssize_t n = read(STDIN_FILENO, &ch, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = wg_error_set(WG_EIO, "could not read from the terminal");
			break;
		}
		if (ch == '\n')
			break;
		if (line.len >= 4096) {
			err = wg_error_set(WG_EINVALID, "input too long");
			break;
		}
		if (ch != '\r' && (err = wg_buf_addch(&line, ch)))
			break;
	}
	if (restore) {
		tcsetattr(STDIN_FILENO, TCSANOW, &old);
		fputc('\n', stderr);
	}
	if (err) {
		if (line.data)
			memset(line.data, 0, line.cap);
		wg_buf_release(&line);
		return err;
	}
	*out = (char *)wg_buf_detach(&line, NULL);
	return *out ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

int http_basic_line(struct wg_buf *out, const char *field, const char *user, const char *pass)
{
	struct wg_buf cred = WG_BUF_INIT;
	int err = wg_buf_printf(&cred, "%s:%s", user, pass ? pass : "");
	if (!err)
		err = wg_buf_printf(out, "%s: Basic ", field);
	if (!err)
		err = base64_add(out, cred.data, cred.len);
	if (!err)
		err = wg_buf_adds(out, "\r\n");
	wg_url_release_secret(&cred);
	return err ? wg_error_set(WG_ENOMEM, "out of memory") : 0;
}

/* A header value may hold no control character: it would end the line
 * (and a CR or LF would let the value add header lines of its own). */
static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

int http_auth_init(struct http_auth *a, struct http_url *base)
{
	memset(a, 0, sizeof(*a));
	if (base->user) {
		a->user = base->user;
		a->pass = base->pass;
		base->user = base->pass = NULL;
		return 0;
	}
	{
		const char *u = getenv("WEBGIT_HTTP_USER"), *p = getenv("WEBGIT_HTTP_PASSWORD");
		const char *t = getenv("WEBGIT_HTTP_BEARER");
		if (u && *u) {
			a->user = wg_strdup(u);
			a->pass = p ? wg_strdup(p) : NULL;
			if (!a->user || (p && !a->pass))
				return wg_error_set(WG_ENOMEM, "out of memory");
		} else if (t && *t) {
			struct wg_buf v = WG_BUF_INIT;
			if (has_control(t))
				return wg_error_set(WG_EINVALID, "WEBGIT_HTTP_BEARER contains a "
						    "control character");
			if (wg_buf_printf(&v, "Bearer %s", t)) {
				wg_url_release_secret(&v);
				return wg_error_set(WG_ENOMEM, "out of memory");
			}
			a->authz = (char *)wg_buf_detach(&v, NULL);
		}
	}
	return 0;
}

void http_auth_release(struct http_auth *a)
{
	wg_url_free_secret(a->user);
	wg_url_free_secret(a->pass);
	wg_url_free_secret(a->authz);
	memset(a, 0, sizeof(*a));
}

int http_auth_add_header(const struct http_auth *a, struct wg_buf *head, bool *sent)
{
	*sent = false;
	if (a->authz) {
		*sent = true;
		return wg_buf_printf(head, "Authorization: %s\r\n", a->authz) ?
		       wg_error_set(WG_ENOMEM, "out of memory") : 0;
	}
	if (a->basic_active && a->user) {
		*sent = true;
		return http_basic_line(head, "Authorization", a->user, a->pass);
	}
	return 0;
}

bool http_auth_offers(const struct http_header *headers, size_t n, const char *field,
		      const char *scheme, bool *any)
{
	size_t i, sl = strlen(scheme);
	*any = false;
	for (i = 0; i < n; i++) {
		const char *p;
		if (strcasecmp(headers[i].name, field))
			continue;
		*any = true;
		/* Challenges are "Scheme params, Scheme2 ..."; a scheme starts
		 * the value or follows a comma and is followed by a space,
		 * comma or the end. */
		for (p = headers[i].value; p; p = strchr(p, ',')) {
			while (*p == ',' || *p == ' ' || *p == '\t')
				p++;
			if (!strncasecmp(p, scheme, sl) && (!p[sl] || p[sl] == ' ' || p[sl] == ','))
				return true;
		}
	}
	return false;
}

/* Ask for what is missing of user and password, as git's credential
 * prompt does. */
static int prompt_credentials(struct http_auth *a, const struct http_url *base)
{
	struct wg_buf prompt = WG_BUF_INIT, origin = WG_BUF_INIT;
	int err = http_url_origin(&origin, base);
	if (!err && !a->user) {
		err = wg_buf_printf(&prompt, "Username for '%s': ", wg_buf_cstr(&origin));
		if (!err)
			err = prompt_line(wg_buf_cstr(&prompt), true, &a->user);
	}
	if (!err && !a->pass) {
		wg_buf_reset(&prompt);
		/* scheme://user@host[:port] */
		err = wg_buf_printf(&prompt, "Password for '%s://%s@%s': ",
				    base->https ? "https" : "http", a->user,
				    strstr(wg_buf_cstr(&origin), "://") + 3);
		if (!err)
			err = prompt_line(wg_buf_cstr(&prompt), false, &a->pass);
	}
	wg_buf_release(&prompt);
	wg_buf_release(&origin);
	return err;
}

/* The values of the WWW-Authenticate headers, in order, for the source
 * (git hands them to helpers as wwwauth[]). */
static const char **challenges(const struct http_header *headers, size_t n, size_t *count)
{
	const char **v = wg_calloc(n ? n : 1, sizeof(*v));
	*count = 0;
	for (size_t i = 0; v && i < n; i++)
		if (!strcasecmp(headers[i].name, "WWW-Authenticate"))
			v[(*count)++] = headers[i].value;
	return v;
}

/* Take what the source gave (the strings are ours now). */
static int take_filled(struct http_auth *a, struct http_credential *got)
{
	int err = 0;
	if (got->authorization && has_control(got->authorization))
		err = wg_error_set(WG_EINVALID, "the credential helper's authtype or credential "
				   "contains a control character");
	if (!err && got->authorization) {
		wg_url_free_secret(a->authz);
		a->authz = got->authorization;
		got->authorization = NULL;
	}
	if (!err && got->user) {
		wg_url_free_secret(a->user);
		a->user = got->user;
		got->user = NULL;
	}
	if (!err && got->pass) {
		wg_url_free_secret(a->pass);
		a->pass = got->pass;
		got->pass = NULL;
	}
	a->multistage = got->multistage;
	wg_url_free_secret(got->authorization);
	wg_url_free_secret(got->user);
	wg_url_free_secret(got->pass);
	return err;
}

static int ask_source(struct http_auth *a, const struct http_header *headers, size_t n)
{
	struct http_credential got = { NULL, NULL, NULL, false };
	size_t nch;
	const char **ch = challenges(headers, n, &nch);
	int err;

	if (!ch)
		return wg_error_set(WG_ENOMEM, "out of memory");
	err = a->src->fill(a->src->payload, ch, nch, a->user, &got);
	wg_free(ch);
	/* what the source gave, and what the prompt adds, go back to it */
	a->hooked = true;
	if (!err)
		err = take_filled(a, &got);
	return err;
}

static void tell_reject(struct http_auth *a, const struct http_header *headers, size_t n)
{
	size_t nch;
	const char **ch = challenges(headers, n, &nch);
	if (ch)
		a->src->reject(a->src->payload, ch, nch);
	wg_free(ch);
	a->hooked = a->approved = false;
}

int http_auth_challenge(struct http_auth *a, const struct http_url *base,
			const struct http_header *headers, size_t n, const char *url, bool refused)
{
	bool any, basic = http_auth_offers(headers, n, "WWW-Authenticate", "Basic", &any);
	bool bearer = http_auth_offers(headers, n, "WWW-Authenticate", "Bearer", &any);
	int err;

	if (refused) {
		if (!(a->hooked && a->src && a->multistage && ++a->rounds < 3)) {
			if (a->hooked && a->src)
				tell_reject(a, headers, n);
			a->refused = true;
			return wg_error_set(WG_EAUTH, "authentication failed for %s", url);
		}
		/* a multistage authentication: the next round's credentials */
		wg_url_free_secret(a->pass);
		wg_url_free_secret(a->authz);
		a->pass = a->authz = NULL;
	}
	if (a->src && !a->authz && !(a->user && a->pass) && (err = ask_source(a, headers, n)))
		return err;
	if (a->authz)
		return 0;
	if (any && !basic)
		return wg_error_set(WG_EAUTH, "authentication required for %s (%s)", url,
				    bearer ? "the server wants a token: set WEBGIT_HTTP_BEARER"
					   : "the server asks for a scheme other than Basic or Bearer");
	if (!a->user || !a->pass) {
		if (!isatty(STDIN_FILENO) || !isatty(STDERR_FILENO))
			return wg_error_set(WG_EAUTH, "authentication required for %s (put credentials "
					    "in the URL, or set WEBGIT_HTTP_USER and "
					    "WEBGIT_HTTP_PASSWORD, or WEBGIT_HTTP_BEARER, or "
					    "configure a credential.helper)", url);
		if ((err = prompt_credentials(a, base)))
			return err;
	}
	a->basic_active = true;
	return 0;
}

void http_auth_response(struct http_auth *a, int status)
{
	if (!a->hooked || a->approved || !a->src || status < 200 || status > 299)
		return;
	a->approved = true;
	a->src->approve(a->src->payload, a->authz ? NULL : a->user, a->authz ? NULL : a->pass);
}
