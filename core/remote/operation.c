/* The generic half of a remote operation: dispatch with sticky errors, the
 * request buffer, response checks. */
#include "remote/operation_internal.h"

#include <string.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/url.h"

static void mask(struct wg_remote_op *op)
{
	for (size_t i = 0; i < 2; i++)
		wg_error_mask(op->secrets[i]);
}

static int sticky(struct wg_remote_op *op, int err)
{
	if (err && err != WG_ITEROVER) {
		/* whatever produced the message (a server's ERR line, say),
		 * it does not repeat the URL's password */
		mask(op);
		if (!op->error)
			op->error = err;
	}
	return err;
}

static int failed(struct wg_remote_op *op)
{
	/* Replay the first failure's code; its message is still the
	 * thread's last one unless the caller did other work in between. */
	return op->error;
}

int wg_remote_op_next_request(struct wg_remote_op *op, const struct wg_http_request **out)
{
	int err;

	if (op->error)
		return failed(op);
	if (op->complete)
		return WG_ITEROVER;
	if (op->in_response)
		return sticky(op, wg_error_set(WG_EINVALID, "the previous response is not "
						 "finished (call wg_remote_op_response_end)"));
	wg_buf_reset(&op->response_url);
	err = op->vt->next_request(op);
	if (err == WG_ITEROVER) {
		op->complete = true;
		return err;
	}
	if (err)
		return sticky(op, err);
	*out = &op->req;
	return 0;
}

const char *const wg_remote_accept_any[1] = { "Accept: */*" };

int wg_remote_op_response_url(struct wg_remote_op *op, const char *url)
{
	char *clean;

	if (op->error)
		return failed(op);
	if (op->in_response)
		return sticky(op, wg_error_set(WG_EINVALID, "wg_remote_op_response_url after "
						 "wg_remote_op_response_begin"));
	wg_buf_reset(&op->response_url);
	if (!url || !op->req.url || !strcmp(url, op->req.url))
		return 0;
	if (!(clean = wg_url_redact_dup(url)))
		return sticky(op, wg_error_set(WG_ENOMEM, "out of memory"));
	if (strcmp(clean, op->req.url) && wg_buf_adds(&op->response_url, clean)) {
		wg_free(clean);
		return sticky(op, wg_error_set(WG_ENOMEM, "out of memory"));
	}
	/* Moved to another origin: the credentials in the URL were given for
	 * the old one, and go nowhere else. A new origin that wants some asks
	 * (401), and the driver's own credentials answer, if it has any. */
	if (!wg_url_same_origin(clean, op->req.url))
		wg_url_release_secret(&op->auth);
	wg_free(clean);
	return 0;
}

int wg_remote_op_response_begin(struct wg_remote_op *op, int status, const char *content_type)
{
	if (op->error)
		return failed(op);
	op->in_response = true;
	return sticky(op, op->vt->response_begin(op, status, content_type));
}

int wg_remote_op_feed(struct wg_remote_op *op, const void *data, size_t len)
{
	if (op->error)
		return failed(op);
	if (!op->in_response)
		return sticky(op, wg_error_set(WG_EINVALID, "response bytes before "
						 "wg_remote_op_response_begin"));
	return sticky(op, op->vt->feed(op, data, len));
}

int wg_remote_op_response_end(struct wg_remote_op *op)
{
	if (op->error)
		return failed(op);
	op->in_response = false;
	return sticky(op, op->vt->response_end(op));
}

void wg_remote_op_free(struct wg_remote_op *op)
{
	if (!op)
		return;
	wg_buf_release(&op->url);
	wg_buf_release(&op->body);
	wg_buf_release(&op->response_url);
	wg_url_release_secret(&op->auth);
	for (size_t i = 0; i < 2; i++)
		wg_url_free_secret(op->secrets[i]);
	op->vt->free(op);
}

int wg_remote_op_set_request(struct wg_remote_op *op, const char *method, const char *base,
			     const char *suffix, const char *const *headers, size_t nheaders)
{
	if (nheaders + (op->auth.len != 0) > WG_REMOTE_MAX_HEADERS)
		return wg_error_set(WG_EINVALID, "too many request headers");
	wg_buf_reset(&op->url);
	if (wg_buf_adds(&op->url, base) || wg_buf_adds(&op->url, suffix))
		return wg_error_set(WG_ENOMEM, "out of memory");
	for (size_t i = 0; i < nheaders; i++)
		op->headers[i] = headers[i];
	if (op->auth.len)
		op->headers[nheaders++] = wg_buf_cstr(&op->auth);
	op->req.method = method;
	op->req.url = wg_buf_cstr(&op->url);
	op->req.headers = op->headers;
	op->req.nheaders = nheaders;
	op->req.body = strcmp(method, "POST") ? NULL : op->body.data;
	op->req.body_len = strcmp(method, "POST") ? 0 : op->body.len;
	return 0;
}

int wg_remote_check_response(const char *url, int status, const char *content_type,
			     const char *expected_type)
{
	size_t n = strlen(expected_type);

	if (status == 401)
		return wg_error_set(WG_EAUTH, "Authentication failed for '%s'", url);
	if (status == 403)
		return wg_error_set(WG_EAUTH, "access to '%s' denied (HTTP 403)", url);
	if (status == 404)
		return wg_error_set(WG_ENOTFOUND, "repository '%s' not found", url);
	if (status != 200)
		return wg_error_set(WG_ERROR, "unable to access '%s': the server answered "
				    "HTTP %d", url, status);
	/* "application/x-git-upload-pack-result; charset=..." is fine. */
	if (!content_type || strncmp(content_type, expected_type, n) ||
	    (content_type[n] && content_type[n] != ';' && content_type[n] != ' '))
		return wg_error_set(WG_EUNSUPPORTED, "'%s' is not a smart Git HTTP server "
				    "(Content-Type '%s', expected '%s'); dumb HTTP is not "
				    "supported", url, content_type ? content_type : "",
				    expected_type);
	return 0;
}

void wg_remote_report(struct wg_remote_op *op, const struct wg_remote_progress *p)
{
	struct wg_remote_progress masked;
	char *line = NULL;

	if (!op->progress)
		return;
	/* A server's progress line that repeats the password does not pass. */
	if (p->line && op->secrets[0] && (line = wg_strdup(p->line))) {
		for (size_t i = 0; i < 2; i++)
			wg_str_mask(line, op->secrets[i]);
		masked = *p;
		masked.line = line;
		p = &masked;
	} else if (p->line && op->secrets[0]) {
		return;   /* out of memory: better no line than the password */
	}
	op->progress(p, op->progress_payload);
	wg_url_free_secret(line);
}

int wg_remote_op_set_credentials(struct wg_remote_op *op, const char *url)
{
	size_t start, len;
	const char *colon;
	int err;

	if ((err = wg_url_basic_auth(&op->auth, url, &op->secrets[0])))
		return err;
	if (!op->auth.len || !wg_url_userinfo(url, &start, &len))
		return 0;
	/* The password as the URL spells it (percent-encoded), too. */
	if ((colon = memchr(url + start, ':', len)) &&
	    !(op->secrets[1] = wg_strndup(colon + 1, len - (size_t)(colon + 1 - (url + start)))))
		return wg_error_set(WG_ENOMEM, "out of memory");
	/* A password of a few characters is not masked: every "1" of a
	 * message would go (and the URLs in messages never have it anyway). */
	for (size_t i = 0; i < 2; i++)
		if (op->secrets[i] && strlen(op->secrets[i]) < 4) {
			wg_url_free_secret(op->secrets[i]);
			op->secrets[i] = NULL;
		}
	if (!op->secrets[0] && op->secrets[1]) {
		op->secrets[0] = op->secrets[1];
		op->secrets[1] = NULL;
	}
	return 0;
}

static const char *const upload_pack_v2[] = {
	"Git-Protocol: version=2",
	"Content-Type: application/x-git-upload-pack-request",
	"Accept: application/x-git-upload-pack-result",
};

int wg_remote_op_set_upload_pack(struct wg_remote_op *op, const char *base, int version)
{
	/* v0/v1 requests are the same without the Git-Protocol header */
	if (version == 2)
		return wg_remote_op_set_request(op, "POST", base, "/git-upload-pack",
						upload_pack_v2, 3);
	return wg_remote_op_set_request(op, "POST", base, "/git-upload-pack",
					upload_pack_v2 + 1, 2);
}

void wg_remote_op_set_limits(struct wg_remote_op *op, const struct wg_limits *limits)
{
	op->limits = *wg_limits_or_default(limits);
	op->has_limits = true;
}

int wg_remote_op_assume_v2(struct wg_remote_op *op, const char *object_format)
{
	const struct wg_hash_algo *algo = wg_hash_algo_by_name(object_format ? object_format :
							       "sha1");
	struct wg_discovery *d = op->discovery;

	if (op->error)
		return failed(op);
	if (!d || d->receive_pack)
		return sticky(op, wg_error_set(WG_EUNSUPPORTED, "only a fetch-side operation can "
						 "skip the capability advertisement"));
	if (!algo)
		return sticky(op, wg_error_set(WG_EINVALID, "unknown object format '%s'",
						 object_format));
	if (d->state != WG_DISCOVERY_START)
		return sticky(op, wg_error_set(WG_EINVALID, "wg_remote_op_assume_v2 after the "
						 "first request"));
	/* a repository's own format wins: a fetch into it cannot change it */
	if (d->expected && d->expected != algo)
		return sticky(op, wg_error_set(WG_EINVALID, "the repository uses %s object ids, "
						 "not %s", d->expected->name, algo->name));
	d->assume_v2 = algo;
	return 0;
}

const struct wg_limits *wg_remote_op_limits(const struct wg_remote_op *op,
					    const struct wg_limits *fallback)
{
	return op->has_limits ? &op->limits : wg_limits_or_default(fallback);
}

bool wg_remote_is_url(const char *remote)
{
	return remote && strstr(remote, "://") != NULL;
}
