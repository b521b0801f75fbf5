/* TLS for the native HTTP client (see tls.h): BearSSL's client engine
 * over the connection's socket, with trust anchors decoded from a PEM file
 * and BearSSL's error codes turned into messages a person can act on. */
#include "http/tls.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"

#define HTTP_DEFAULT_CA_FILE "/etc/ssl/certs/ca-certificates.crt"


/* Collects bytes from BearSSL decoders (a DN, a PEM object). */
struct dn_sink {
	struct wg_buf buf;
	int err;
};

static void dn_append(void *ctx, const void *data, size_t len)
{
	struct dn_sink *s = ctx;
	if (!s->err)
		s->err = wg_buf_add(&s->buf, data, len);
}

static void free_anchors(struct http_trust *c)
{
	size_t i;
	for (i = 0; i < c->ntas; i++) {
		br_x509_trust_anchor *ta = &c->tas[i];
		wg_free(ta->dn.data);
		if (ta->pkey.key_type == BR_KEYTYPE_RSA) {
			wg_free(ta->pkey.key.rsa.n);
			wg_free(ta->pkey.key.rsa.e);
		} else if (ta->pkey.key_type == BR_KEYTYPE_EC) {
			wg_free(ta->pkey.key.ec.q);
		}
	}
	wg_free(c->tas);
	c->tas = NULL;
	c->ntas = 0;
}

static void *memdup(const void *p, size_t len)
{
	void *d = wg_malloc(len ? len : 1);
	if (d && len)
		memcpy(d, p, len);
	return d;
}

/* Turn one DER certificate into a trust anchor; certificates BearSSL
 * cannot decode (exotic key types) are skipped, as brssl does. Returns 1
 * if an anchor was added, 0 if skipped, or an error. */
static int add_trust_anchor(struct http_trust *c, size_t *cap, const unsigned char *der,
			    size_t len)
{
	br_x509_decoder_context dc;
	struct dn_sink dn = { WG_BUF_INIT, 0 };
	br_x509_pkey *pk;
	br_x509_trust_anchor ta;
	bool ok;

	br_x509_decoder_init(&dc, dn_append, &dn);
	br_x509_decoder_push(&dc, der, len);
	pk = br_x509_decoder_get_pkey(&dc);
	if (dn.err) {
		wg_buf_release(&dn.buf);
		return dn.err;
	}
	if (!pk || (pk->key_type != BR_KEYTYPE_RSA && pk->key_type != BR_KEYTYPE_EC)) {
		wg_buf_release(&dn.buf);
		return 0;
	}
	memset(&ta, 0, sizeof(ta));
	ta.dn.len = dn.buf.len;
	ta.dn.data = memdup(dn.buf.data, dn.buf.len);
	wg_buf_release(&dn.buf);
	ta.flags = br_x509_decoder_isCA(&dc) ? BR_X509_TA_CA : 0;
	ta.pkey.key_type = pk->key_type;
	if (pk->key_type == BR_KEYTYPE_RSA) {
		ta.pkey.key.rsa.n = memdup(pk->key.rsa.n, pk->key.rsa.nlen);
		ta.pkey.key.rsa.nlen = pk->key.rsa.nlen;
		ta.pkey.key.rsa.e = memdup(pk->key.rsa.e, pk->key.rsa.elen);
		ta.pkey.key.rsa.elen = pk->key.rsa.elen;
		ok = ta.pkey.key.rsa.n && ta.pkey.key.rsa.e;
	} else {
		ta.pkey.key.ec.curve = pk->key.ec.curve;
		ta.pkey.key.ec.q = memdup(pk->key.ec.q, pk->key.ec.qlen);
		ta.pkey.key.ec.qlen = pk->key.ec.qlen;
		ok = ta.pkey.key.ec.q != NULL;
	}
	ok = ok && ta.dn.data;
	if (ok && c->ntas == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		br_x509_trust_anchor *n = wg_realloc(c->tas, ncap * sizeof(*n));
		ok = n != NULL;
		if (n) {
			c->tas = n;
			*cap = ncap;
		}
	}
	if (!ok) {
		wg_free(ta.dn.data);
		if (pk->key_type == BR_KEYTYPE_RSA) {
			wg_free(ta.pkey.key.rsa.n);
			wg_free(ta.pkey.key.rsa.e);
		} else {
			wg_free(ta.pkey.key.ec.q);
		}
		return wg_error_set(WG_ENOMEM, "out of memory loading trust anchors");
	}
	c->tas[c->ntas++] = ta;
	return 1;
}

static const char *ca_file_path(void)
{
	static const char *const vars[] = { "WEBGIT_SSL_CAINFO", "GIT_SSL_CAINFO", "SSL_CERT_FILE" };
	size_t i;
	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);
		if (v && *v)
			return v;
	}
	return HTTP_DEFAULT_CA_FILE;
}

/* Decode every CERTIFICATE in a PEM file into trust anchors. */
static int load_trust_anchors(struct http_trust *c)
{
	const char *path = ca_file_path();
	struct wg_buf pem = WG_BUF_INIT;
	br_pem_decoder_context pc;
	struct dn_sink der = { WG_BUF_INIT, 0 };
	size_t cap = 0, off = 0, found = 0;
	bool in_cert = false;
	int err = 0;
	FILE *f;

	wg_free(c->ca_file);
	c->ca_file = wg_strdup(path);
	f = fopen(path, "rb");
	if (!f)
		return wg_error_set(WG_EIO, "cannot read the CA certificates in %s: %s (set "
				    "WEBGIT_SSL_CAINFO or SSL_CERT_FILE to a PEM file)", path,
				    strerror(errno));
	for (;;) {
		size_t n;
		if ((err = wg_buf_grow(&pem, 65536)))
			break;
		n = fread(pem.data + pem.len, 1, 65536, f);
		wg_buf_setlen(&pem, pem.len + n);
		if (n < 65536) {
			if (ferror(f))
				err = wg_error_set(WG_EIO, "error reading %s: %s", path, strerror(errno));
			break;
		}
	}
	fclose(f);
	/* The decoder needs a newline after the last END line to see it. */
	if (!err)
		err = wg_buf_addch(&pem, '\n');

	br_pem_decoder_init(&pc);
	while (!err && off < pem.len) {
		int ev;
		off += br_pem_decoder_push(&pc, pem.data + off, pem.len - off);
		ev = br_pem_decoder_event(&pc);
		if (ev == BR_PEM_BEGIN_OBJ) {
			const char *name = br_pem_decoder_name(&pc);
			in_cert = !strcmp(name, "CERTIFICATE") || !strcmp(name, "X509 CERTIFICATE");
			wg_buf_reset(&der.buf);
			br_pem_decoder_setdest(&pc, in_cert ? dn_append : NULL, &der);
		} else if (ev == BR_PEM_END_OBJ) {
			if (der.err) {
				err = der.err;
			} else if (in_cert) {
				int rc = add_trust_anchor(c, &cap, der.buf.data, der.buf.len);
				if (rc < 0)
					err = rc;
				found += rc > 0;
			}
			in_cert = false;
		} else if (ev == BR_PEM_ERROR) {
			err = wg_error_set(WG_ECORRUPT, "malformed PEM data in %s", path);
		}
	}
	wg_buf_release(&pem);
	wg_buf_release(&der.buf);
	if (!err && !found)
		err = wg_error_set(WG_ECORRUPT, "no usable CA certificates in %s", path);
	if (err) {
		free_anchors(c);
		return err;
	}
	c->loaded = true;
	return 0;
}

static int tls_error(struct http_conn *c, int err)
{
	const char *host = c->tls->server_name;
	if (err == BR_ERR_IO) {
		/* The socket layer said why; end of stream it leaves to us. */
		if (c->io_failed)
			return WG_EIO;
		return wg_error_set(WG_EIO, "%s closed the TLS connection unexpectedly", host);
	}
	switch (err) {
	case BR_ERR_X509_NOT_TRUSTED:
		return wg_error_set(WG_EIO, "server certificate of %s is not trusted: it does not "
				    "chain to a CA in %s (set WEBGIT_SSL_CAINFO to the CA's PEM file)",
				    host, c->tls->ca_file ? c->tls->ca_file : "the CA file");
	case BR_ERR_X509_BAD_SERVER_NAME:
		return wg_error_set(WG_EIO, "server certificate does not match the host name '%s'",
				    host);
	case BR_ERR_X509_EXPIRED:
		return wg_error_set(WG_EIO, "server certificate of %s has expired or is not yet "
				    "valid", host);
	case BR_ERR_X509_NOT_CA:
		return wg_error_set(WG_EIO, "server certificate chain of %s is invalid: an issuer "
				    "is not a CA", host);
	case BR_ERR_X509_BAD_SIGNATURE:
		return wg_error_set(WG_EIO, "server certificate chain of %s has a bad signature",
				    host);
	default:
		break;
	}
	if (err >= 32 && err < 64)
		return wg_error_set(WG_EIO, "invalid server certificate from %s (BearSSL X.509 "
				    "error %d)", host, err);
	if (err >= BR_ERR_SEND_FATAL_ALERT)
		return wg_error_set(WG_EIO, "TLS connection to %s failed: we sent fatal alert %d",
				    host, err - BR_ERR_SEND_FATAL_ALERT);
	if (err >= BR_ERR_RECV_FATAL_ALERT)
		return wg_error_set(WG_EIO, "TLS connection to %s failed: the server sent fatal "
				    "alert %d (no common protocol version or cipher suite?)",
				    host, err - BR_ERR_RECV_FATAL_ALERT);
	return wg_error_set(WG_EIO, "TLS connection to %s failed (BearSSL error %d)", host, err);
}

void http_trust_release(struct http_trust *t)
{
	free_anchors(t);
	wg_free(t->ca_file);
	t->ca_file = NULL;
	t->loaded = false;
}

static int tls_low_read(void *ctx, unsigned char *data, size_t len)
{
	long n = http_sock_recv(ctx, data, len);
	return n > 0 ? (int)n : -1;  /* end of stream is an error to BearSSL */
}

static int tls_low_write(void *ctx, const unsigned char *data, size_t len)
{
	long n = http_sock_send(ctx, data, len);
	return n > 0 ? (int)n : -1;
}

int http_conn_start_tls(struct http_conn *c, struct http_trust *trust, const char *server_name)
{
	int rc;
	if (!trust->loaded && (rc = load_trust_anchors(trust))) {
		http_conn_close(c);
		return rc;
	}
	c->tls = wg_malloc(sizeof(*c->tls));
	if (!c->tls) {
		http_conn_close(c);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	c->tls->ca_file = trust->ca_file;
	snprintf(c->tls->server_name, sizeof(c->tls->server_name), "%s", server_name);
	br_ssl_client_init_full(&c->tls->sc, &c->tls->xc, trust->tas, trust->ntas);
	br_ssl_engine_set_buffer(&c->tls->sc.eng, c->tls->iobuf, sizeof(c->tls->iobuf), 1);
	/* The host name goes into SNI and is what the certificate must name.
	 * An IP literal is checked the same way, so it only passes with a
	 * certificate naming that exact text (never with none at all). */
	if (!br_ssl_client_reset(&c->tls->sc, server_name, 0)) {
		rc = tls_error(c, br_ssl_engine_last_error(&c->tls->sc.eng));
		http_conn_close(c);
		return rc;
	}
	br_sslio_init(&c->tls->ioc, &c->tls->sc.eng, tls_low_read, c, tls_low_write, c);
	/* Run the handshake now, so a certificate problem is reported as
	 * such rather than as a failure to send the request. */
	if (br_sslio_flush(&c->tls->ioc) < 0) {
		rc = tls_error(c, br_ssl_engine_last_error(&c->tls->sc.eng));
		http_conn_close(c);
		return rc;
	}
	return 0;
}

long http_tls_read(struct http_conn *c, void *buf, size_t len)
{
	int n = br_sslio_read(&c->tls->ioc, buf, len), err;
	if (n > 0)
		return n;
	err = br_ssl_engine_last_error(&c->tls->sc.eng);
	if (err == BR_ERR_OK)
		return 0;  /* close_notify */
	if (err == BR_ERR_IO && c->sock_eof && !c->io_failed)
		/* Closed without close_notify: many servers do; the framing
		 * (length or chunks) still catches a truncated body. */
		return 0;
	return tls_error(c, err);
}

int http_tls_write(struct http_conn *c, const void *data, size_t len)
{
	if (br_sslio_write_all(&c->tls->ioc, data, len) < 0)
		return tls_error(c, br_ssl_engine_last_error(&c->tls->sc.eng));
	return 0;
}

int http_tls_flush(struct http_conn *c)
{
	if (br_sslio_flush(&c->tls->ioc) < 0)
		return tls_error(c, br_ssl_engine_last_error(&c->tls->sc.eng));
	return 0;
}

bool http_tls_closed(const struct http_conn *c)
{
	return (br_ssl_engine_current_state(&c->tls->sc.eng) & BR_SSL_CLOSED) != 0;
}
