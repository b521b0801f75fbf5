/* The push response (core/protocol/push.c): report-status and
 * report-status-v2, plain or inside side-band-64k with progress. Input:
 * one option byte, then the response, fed in input-derived chunks.
 *   bit 0    sha256
 *   bits 1-2 0: report-status, 1: report-status-v2, 2: both, 3: none
 *   bit 3    side-band-64k
 * The request pushed refs/heads/main, refs/heads/topic (a delete) and
 * refs/tags/v1. */
#include "fuzz.h"

#include "protocol/push.h"
#include "util/error.h"

static int on_progress(const struct wg_progress_event *ev, void *payload)
{
	(void)payload;
	FUZZ_ASSERT(ev->line != NULL);
	(void)strlen(ev->line);
	return 0;
}

static void check_status(const struct wg_push_ref_status *s)
{
	FUZZ_ASSERT(s->refname != NULL);
	FUZZ_ASSERT(s->ok || s->reason);
	if (s->reason)
		for (const char *p = s->reason; *p; p++)
			FUZZ_ASSERT((unsigned char)*p >= 0x20 || *p == '\t');
	if (s->new_refname)
		(void)strlen(s->new_refname);
	FUZZ_ASSERT(s->nmore <= WG_PUSH_MAX_EXTRA_REPORTS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const reports[] = { "report-status", "report-status-v2",
					       "report-status report-status-v2", "" };
	const struct wg_hash_algo *algo;
	struct wg_push_command cmds[3];
	struct wg_push_args args = WG_PUSH_ARGS_INIT;
	struct wg_push_response *r;
	struct wg_caps *caps = NULL;
	struct fz_chunks ch;
	const uint8_t *chunk;
	char list[256];
	size_t n;
	int err = 0;

	if (size < 1)
		return 0;
	algo = fz_algo(data[0] & 1);
	snprintf(list, sizeof(list), "%s%s delete-refs ofs-delta atomic agent=git/2.53.0 "
		 "object-format=%s", reports[data[0] >> 1 & 3],
		 data[0] & 8 ? " side-band-64k" : "", algo->name);
	if (wg_caps_parse_v1(&caps, list, strlen(list)))
		return 0;
	memset(cmds, 0, sizeof(cmds));
	for (int i = 0; i < 3; i++) {
		cmds[i].old_oid.algo = cmds[i].new_oid.algo = (unsigned char)algo->id;
		cmds[i].old_oid.hash[0] = (unsigned char)(i + 1);
		cmds[i].new_oid.hash[0] = (unsigned char)(i + 0x10);
	}
	memset(cmds[1].new_oid.hash, 0, sizeof(cmds[1].new_oid.hash));
	memset(cmds[2].old_oid.hash, 0, sizeof(cmds[2].old_oid.hash));
	cmds[0].refname = "refs/heads/main";
	cmds[1].refname = "refs/heads/topic";
	cmds[2].refname = "refs/tags/v1";
	args.algo = algo;
	args.commands = cmds;
	args.ncommands = 3;
	if (wg_push_response_new_for(&r, caps, &args)) {
		wg_caps_free(caps);
		return 0;
	}
	wg_caps_free(caps);
	wg_push_response_on_progress(r, on_progress, NULL);
	fz_chunks_init(&ch, data + 1, size - 1, fz_hash(data, size));
	while (!err && (chunk = fz_chunks_next(&ch, &n)))
		err = wg_push_response_feed(r, chunk, n);
	fz_chunks_release(&ch);
	if (!err && !wg_push_response_finish(r)) {
		const struct wg_push_report *rep = wg_push_response_report(r);
		FUZZ_ASSERT(rep->unpack_ok || rep->unpack_error);
		for (size_t i = 0; i < rep->nrefs; i++) {
			check_status(&rep->refs[i]);
			for (size_t j = 0; j < rep->refs[i].nmore; j++)
				check_status(&rep->refs[i].more[j]);
			FUZZ_ASSERT(wg_push_report_find(rep, rep->refs[i].refname) != NULL);
		}
	}
	wg_push_response_free(r);
	return 0;
}
