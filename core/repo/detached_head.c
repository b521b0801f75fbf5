/* The label of a detached HEAD (see detached_head.h). */
#include "repo/detached_head.h"

#include <string.h>

#include "repo/revparse.h"
#include "util/alloc.h"
#include "refs/refname.h"
#include "util/error.h"

int wg_detached_head_label(struct wg_buf *name, struct wg_oid *oid, bool *at,
			   struct wg_repo *repo, const struct wg_oid *head)
{
	const char *const *rules = wg_ref_dwim_rules;
	struct wg_reflog_iter *it;
	const struct wg_reflog_entry *e;
	struct wg_buf full = WG_BUF_INIT, match = WG_BUF_INIT;
	char *to = NULL;
	struct wg_oid noid, cur;
	int matches = 0, rc = 0;

	wg_buf_reset(name);
	if (wg_reflog_iter_new(&it, wg_repo_refdb(repo), "HEAD", 0)) {
		wg_error_clear();
		return 0;
	}
	while (!to && !wg_reflog_iter_next(&e, it)) {
		const char *m = e->message, *p;
		if (!m || strncmp(m, "checkout: moving from ", 22) || !(p = strstr(m + 22, " to ")))
			continue;
		p += 4;
		if (!(to = wg_strndup(p, strcspn(p, "\n")))) {
			wg_reflog_iter_free(it);
			return wg_error_set(WG_ENOMEM, "out of memory");
		}
		noid = e->new_oid;
	}
	wg_reflog_iter_free(it);
	wg_error_clear();
	if (!to)
		return 0;
	for (size_t i = 0; i < WG_REF_DWIM_RULES; i++) {
		wg_buf_reset(&full);
		if (wg_buf_printf(&full, rules[i], to) || !wg_refdb_name_is_valid(wg_buf_cstr(&full)) ||
		    wg_refdb_resolve(&cur, NULL, wg_repo_refdb(repo), wg_buf_cstr(&full), 0))
			continue;
		if (!matches++) {
			wg_buf_reset(&match);
			wg_buf_adds(&match, wg_buf_cstr(&full));
			if (wg_object_peel(&cur, repo, &cur, WG_OBJ_COMMIT) || !wg_oid_equal(&cur, &noid))
				matches = 99;  /* names another commit now */
		}
	}
	wg_error_clear();
	if (matches == 1) {
		const char *from = wg_buf_cstr(&match);
		if (!strncmp(from, "refs/tags/", 10))
			from += 10;
		else if (!strncmp(from, "refs/remotes/", 13))
			from += 13;
		if (wg_buf_adds(name, from))
			rc = wg_error_set(WG_ENOMEM, "out of memory");
	}
	*oid = noid;
	*at = wg_oid_equal(&noid, head);
	wg_buf_release(&full);
	wg_buf_release(&match);
	wg_free(to);
	return rc ? rc : 1;
}
