#include "remote/receive_check.h"

#include <stdio.h>
#include <string.h>

#include "odb/odb.h"
#include "repo/config.h"
#include "repo/gitmodules.h"
#include "util/buf.h"
#include "util/error.h"

#define SPECIAL_GITMODULES 1u
#define SPECIAL_GITATTRIBUTES 2u

static void note_special(void *payload, const struct wg_oid *tree, const struct wg_oid *blob,
			 enum wg_fsck_special kind)
{
	struct wg_receive_check *rc = payload;
	unsigned bit = kind == WG_FSCK_SPECIAL_GITMODULES ? SPECIAL_GITMODULES
							  : SPECIAL_GITATTRIBUTES;
	if (!rc->error && wg_oidmap_set(&rc->special, blob, bit, NULL))
		rc->error = WG_ENOMEM;
}

/* Findings below error level are shown as git shows them ("warning:
 * object <id>: zeroPaddedFilemode: ..."); those at error level become the
 * operation's error. */
static void report(void *payload, const struct wg_oid *oid, enum wg_object_type type,
		   enum wg_fsck_msg_id id, enum wg_fsck_severity severity, const char *message)
{
	struct wg_receive_check *rc = payload;
	struct wg_remote_progress p = { 0 };
	char hex[WG_MAX_HEXSZ + 1], line[640];

	if (severity >= WG_FSCK_ERROR)
		return;
	snprintf(line, sizeof(line), "object %s: %s", oid ? wg_oid_to_hex(oid, hex) : "?",
		 message);
	p.phase = "warning";
	p.warning = true;
	p.finished = true;
	p.line = line;
	rc->warnings++;
	wg_remote_report(rc->op, &p);
}

/* fetch.fsck.<id> = <severity> */
static int severity_entry(const char *key, const char *value, void *payload)
{
	struct wg_receive_check *rc = payload;

	if (strncmp(key, "fetch.fsck.", 11) || !strcmp(key + 11, "skiplist"))
		return 0;
	if (!value)
		return wg_error_set(WG_EINVALID, "missing value for '%s'", key);
	if (wg_fsck_set_severity_by_name(&rc->fsck, key + 11, value))
		return wg_error_prefix("bad config '%s'", key);
	return 0;
}

/* fetch.fsckObjects wins over transfer.fsckObjects; -1 when neither. */
static int configured(struct wg_repo *repo, int *out)
{
	static const char *const keys[] = { "fetch.fsckobjects", "transfer.fsckobjects" };
	size_t i;

	*out = -1;
	for (i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		const char *v;
		bool on;
		int err = wg_repo_config_get(repo, keys[i], &v);
		if (err == WG_ENOTFOUND) {
			wg_error_clear();
			continue;
		}
		if (err || (err = wg_config_bool_value(keys[i], v, &on)))
			return err;
		*out = on;
		return 0;
	}
	return 0;
}

int wg_receive_check_init(struct wg_receive_check *rc, struct wg_repo *repo,
			  struct wg_remote_op *op)
{
	int mode, err;

	memset(rc, 0, sizeof(*rc));
	rc->repo = repo;
	rc->op = op;
	if ((err = configured(repo, &mode)))
		return err;
	if (mode == 0)
		return 0;
	rc->enabled = true;
	rc->fsck.strict = mode == 1;
	rc->fsck.report = report;
	rc->fsck.special_blob = note_special;
	rc->fsck.payload = rc;
	return wg_config_foreach(wg_repo_config(repo), severity_entry, rc);
}

void wg_receive_check_release(struct wg_receive_check *rc)
{
	wg_oidmap_release(&rc->special);
}

const struct wg_fsck_options *wg_receive_check_fsck(struct wg_receive_check *rc)
{
	return rc->enabled ? &rc->fsck : NULL;
}

/* The blob `oid` from the pack, else from the repository. WG_ENOTFOUND
 * when neither has it; WG_ELIMIT when it is larger than max. */
static int read_blob(struct wg_receive_check *rc, struct wg_indexer *ix,
		     const struct wg_oid *oid, size_t max, enum wg_object_type *type,
		     struct wg_buf *out)
{
	struct wg_odb *odb = wg_repo_odb(rc->repo);
	size_t size;
	int err;

	if (ix && wg_indexer_find(ix, oid) != WG_OBJ_NONE)
		return wg_indexer_read(ix, oid, type, out, max);
	/* Not fetched lazily: a partial clone leaves it out on purpose. */
	if (wg_odb_exists(odb, oid) <= 0)
		return wg_error_set(WG_ENOTFOUND, "not here");
	if ((err = wg_odb_read_header(odb, oid, type, &size)))
		return err;
	if (size > max)
		return wg_error_set(WG_ELIMIT, "object too large to read");
	return wg_odb_read(odb, oid, type, out);
}

static int check_one(struct wg_receive_check *rc, struct wg_indexer *ix,
		     const struct wg_oid *oid, bool gitmodules, struct wg_buf *data)
{
	struct wg_fsck_reporter r;
	enum wg_object_type type = WG_OBJ_NONE;
	size_t max = gitmodules ? WG_GITMODULES_MAX_SIZE : WG_FSCK_ATTR_MAX_FILE_SIZE;
	int err = read_blob(rc, ix, oid, max, &type, data);

	if (err == WG_ENOTFOUND) {
		wg_error_clear();
		return 0;
	}
	wg_fsck_reporter_init(&r, &rc->fsck, oid, type == WG_OBJ_NONE ? WG_OBJ_BLOB : type);
	if (err == WG_ELIMIT) {
		wg_error_clear();
		wg_fsck_reportf(&r, gitmodules ? WG_FSCK_GITMODULES_LARGE
					       : WG_FSCK_GITATTRIBUTES_LARGE,
				"%s too large to parse", gitmodules ? ".gitmodules" : ".gitattributes");
		return wg_fsck_reporter_result(&r);
	}
	if (err)
		return err;
	if (type != WG_OBJ_BLOB) {
		wg_fsck_reportf(&r, gitmodules ? WG_FSCK_GITMODULES_BLOB : WG_FSCK_GITATTRIBUTES_BLOB,
				"non-blob found at %s", gitmodules ? ".gitmodules" : ".gitattributes");
		return wg_fsck_reporter_result(&r);
	}
	return gitmodules ? wg_fsck_gitmodules_blob(&rc->fsck, oid, data->data, data->len)
			  : wg_fsck_gitattributes_blob(&rc->fsck, oid, data->data, data->len);
}

int wg_receive_check_blobs(struct wg_receive_check *rc, struct wg_indexer *ix)
{
	struct wg_buf data = WG_BUF_INIT;
	size_t i;
	int err = 0;

	if (!rc->enabled)
		return 0;
	if (rc->error)
		return wg_error_set(WG_ENOMEM, "out of memory noting .gitmodules blobs");
	for (i = 0; i < rc->special.size && !err; i++) {
		unsigned bits = rc->special.flags[i];
		const struct wg_oid *oid = &rc->special.keys[i];
		if ((bits & SPECIAL_GITMODULES) && (err = check_one(rc, ix, oid, true, &data)))
			break;
		if ((bits & SPECIAL_GITATTRIBUTES))
			err = check_one(rc, ix, oid, false, &data);
	}
	wg_buf_release(&data);
	return err;
}
