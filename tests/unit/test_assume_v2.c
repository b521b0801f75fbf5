/* Unit tests for wg_remote_op_assume_v2() (remote/operation.h): the
 * capability advertisement skipped, so the first request is the ls-refs
 * POST; what a server that is not so does to the operation (an error the
 * caller answers by retrying without); where the call is refused. A real
 * server answering the assumed requests: tests/js/edge.test.mjs. */
#include <string.h>

#include "hash/hash.h"
#include "protocol/pktline.h"
#include "remote/ls_remote.h"
#include "remote/operation.h"
#include "remote/promisor_fetch.h"
#include "test.h"
#include "util/buf.h"
#include "util/error.h"

#define BASE "http://host/repo.git"
#define OID1 "1111111111111111111111111111111111111111"

/* One answer: status, type and body for whatever the operation asks. */
struct answer {
	int status;
	const char *type;
	struct wg_buf body;
	unsigned requests;
	struct wg_buf first_body;       /* the first request's */
	char first_method[8];
	char first_url[128];
	bool first_v2;                  /* it had "Git-Protocol: version=2" */
};

static int serve(struct answer *a, struct wg_remote_op *op, size_t split)
{
	const struct wg_http_request *req;
	int err;

	while (!(err = wg_remote_op_next_request(op, &req))) {
		if (!a->requests++) {
			snprintf(a->first_method, sizeof(a->first_method), "%s", req->method);
			snprintf(a->first_url, sizeof(a->first_url), "%s", req->url);
			wg_buf_add(&a->first_body, req->body, req->body_len);
			for (size_t i = 0; i < req->nheaders; i++)
				a->first_v2 |= !strcmp(req->headers[i], "Git-Protocol: version=2");
		}
		if ((err = wg_remote_op_response_begin(op, a->status, a->type)))
			break;
		for (size_t off = 0; off < a->body.len && !err; off += split)
			err = wg_remote_op_feed(op, a->body.data + off,
						a->body.len - off < split ? a->body.len - off : split);
		if (err || (err = wg_remote_op_response_end(op)))
			break;
	}
	return err == WG_ITEROVER ? 0 : err;
}

static void answer_release(struct answer *a)
{
	wg_buf_release(&a->body);
	wg_buf_release(&a->first_body);
	memset(a, 0, sizeof(*a));
}

static void ls_refs_answer(struct answer *a)
{
	memset(a, 0, sizeof(*a));
	a->status = 200;
	a->type = "application/x-git-upload-pack-result";
	wg_pkt_writes(&a->body, OID1 " HEAD symref-target:refs/heads/main\n");
	wg_pkt_writes(&a->body, OID1 " refs/heads/main\n");
	wg_pkt_write_flush(&a->body);
}

static int ls_remote(struct answer *a, const char *format, size_t split,
		     struct wg_remote_op **out)
{
	static const char *const prefixes[] = { "refs/heads/" };
	struct wg_ls_remote_options o = WG_LS_REMOTE_OPTIONS_INIT;
	int err;

	o.prefixes = prefixes;
	o.nprefixes = 1;
	CHECK_OK(wg_ls_remote_new(out, BASE, &o));
	if ((err = wg_remote_op_assume_v2(*out, format)))
		return err;
	return serve(a, *out, split);
}

/* Every split of the answer: one request, the POST, and the refs read. */
static void test_first_request_is_ls_refs(void)
{
	for (size_t split = 1; split <= 64; split++) {
		struct answer a;
		struct wg_remote_op *op = NULL;
		const struct wg_remote_ref_list *refs;

		ls_refs_answer(&a);
		CHECK_OK(ls_remote(&a, "sha1", split, &op));
		CHECK(a.requests == 1);
		CHECK_STR(a.first_method, "POST");
		CHECK_STR(a.first_url, BASE "/git-upload-pack");
		CHECK(a.first_v2);
		wg_buf_addch(&a.first_body, '\0');
		CHECK(strstr((char *)a.first_body.data, "command=ls-refs\n") != NULL);
		CHECK(strstr((char *)a.first_body.data, "object-format=sha1\n") != NULL);
		CHECK(strstr((char *)a.first_body.data, "ref-prefix refs/heads/\n") != NULL);
		/* no agent: the assumed server named none */
		CHECK(strstr((char *)a.first_body.data, "agent=") == NULL);
		CHECK(wg_ls_remote_protocol(op) == 2);
		CHECK(wg_ls_remote_algo(op) == wg_hash_algo_by_id(WG_HASH_SHA1));
		refs = wg_ls_remote_refs(op);
		CHECK(refs && refs->nr == 1 && !strcmp(refs->refs[0].name, "refs/heads/main"));
		wg_remote_op_free(op);
		answer_release(&a);
	}
}

/* A server that is not as assumed: each way fails the operation, and the
 * caller retries with discovery. */
static void test_wrong_server_fails(void)
{
	struct answer a;
	struct wg_remote_op *op = NULL;

	/* SHA-1 ids where SHA-256 was assumed */
	ls_refs_answer(&a);
	CHECK(ls_remote(&a, "sha256", 7, &op) != 0);
	CHECK(strstr(a.first_body.data ? (char *)a.first_body.data : "", "object-format=sha256"));
	wg_remote_op_free(op);
	answer_release(&a);

	/* git's upload-pack died (a SHA-256 repository asked in SHA-1): 200
	 * and nothing */
	ls_refs_answer(&a);
	a.body.len = 0;
	CHECK_ERR(ls_remote(&a, "sha1", 7, &op), WG_ECORRUPT);
	wg_remote_op_free(op);
	answer_release(&a);

	/* no smart server there (a static host, or none) */
	ls_refs_answer(&a);
	a.status = 404;
	a.type = "text/html";
	CHECK(ls_remote(&a, "sha1", 7, &op) != 0);
	CHECK(a.requests == 1);
	wg_remote_op_free(op);
	answer_release(&a);

	/* a v0 server's answer to a v2 request: an ERR line */
	ls_refs_answer(&a);
	wg_buf_reset(&a.body);
	wg_pkt_writes(&a.body, "ERR protocol error: expected want\n");
	CHECK(ls_remote(&a, "sha1", 7, &op) != 0);
	wg_remote_op_free(op);
	answer_release(&a);
}

static void test_refused(void)
{
	struct wg_ls_remote_options o = WG_LS_REMOTE_OPTIONS_INIT;
	struct wg_remote_op *op;
	const struct wg_http_request *req;

	CHECK_OK(wg_ls_remote_new(&op, BASE, &o));
	CHECK_ERR(wg_remote_op_assume_v2(op, "md5"), WG_EINVALID);
	wg_remote_op_free(op);

	/* too late once the advertisement has been asked for */
	CHECK_OK(wg_ls_remote_new(&op, BASE, &o));
	CHECK_OK(wg_remote_op_next_request(op, &req));
	CHECK_STR(req->method, "GET");
	CHECK_ERR(wg_remote_op_assume_v2(op, "sha1"), WG_EINVALID);
	wg_remote_op_free(op);
}

WG_TEST_MAIN("assume_v2",
	     WG_TEST(test_first_request_is_ls_refs),
	     WG_TEST(test_wrong_server_fails),
	     WG_TEST(test_refused))
