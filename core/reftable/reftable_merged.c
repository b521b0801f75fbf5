/* A merged view over a stack of tables: for each key the newest table's
 * record wins; deletion records hide older values (and are themselves
 * hidden, except in the raw iterators compaction uses).
 *
 * The merge keeps one head record per table and picks the smallest key by a
 * linear scan: stacks stay short (geometric compaction keeps them at about
 * log2 of the ref count), so a heap would not pay for itself. */
#include <string.h>

#include "reftable/reftable_internal.h"
#include "util/alloc.h"
#include "util/error.h"

struct wg_reftable_merged {
	struct wg_reftable_table **tables;  /* oldest first; one reference each */
	size_t n;
};

int wg_reftable_merged_new(struct wg_reftable_merged **out,
			   struct wg_reftable_table *const *tables, size_t n)
{
	struct wg_reftable_merged *m;

	*out = NULL;
	for (size_t i = 1; i < n; i++)
		if (wg_reftable_table_algo(tables[i]) != wg_reftable_table_algo(tables[0]))
			return wg_error_set(WG_EINVALID, "reftable %s uses %s, %s uses %s",
					    wg_reftable_table_name(tables[i]),
					    wg_reftable_table_algo(tables[i])->name,
					    wg_reftable_table_name(tables[0]),
					    wg_reftable_table_algo(tables[0])->name);
	m = wg_calloc(1, sizeof(*m));
	if (!m || (n && !(m->tables = wg_calloc(n, sizeof(*m->tables))))) {
		wg_free(m);
		return wg_error_set(WG_ENOMEM, "out of memory merging reftables");
	}
	for (size_t i = 0; i < n; i++) {
		m->tables[i] = tables[i];
		rt_table_incref(tables[i]);
	}
	m->n = n;
	*out = m;
	return 0;
}

void wg_reftable_merged_free(struct wg_reftable_merged *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		wg_reftable_table_free(m->tables[i]);
	wg_free(m->tables);
	wg_free(m);
}

size_t wg_reftable_merged_count(const struct wg_reftable_merged *m)
{
	return m->n;
}

struct wg_reftable_table *wg_reftable_merged_table(const struct wg_reftable_merged *m, size_t i)
{
	return i < m->n ? m->tables[i] : NULL;
}

int wg_reftable_merged_read_ref(struct wg_reftable_ref *out, struct wg_reftable_merged *m,
				const char *refname)
{
	for (size_t i = m->n; i-- > 0;) {
		int r = wg_reftable_table_read_ref(out, m->tables[i], refname);
		if (r == WG_ENOTFOUND)
			continue;
		if (r)
			return r;
		if (out->type == WG_REFTABLE_REF_DELETION) {
			wg_reftable_ref_release(out);
			break;
		}
		return 0;
	}
	return wg_error_set(WG_ENOTFOUND, "ref %s not found", refname);
}

enum head_state { HEAD_EMPTY, HEAD_VALID, HEAD_DONE };

struct merged_iter {
	struct wg_reftable_iter base;
	bool logs;
	bool suppress;
	size_t n;
	struct wg_reftable_iter **subs;
	struct wg_reftable_ref *refs;
	struct wg_reftable_log *logv;
	enum head_state *state;
};

static int ref_cmp(const struct wg_reftable_ref *a, const struct wg_reftable_ref *b)
{
	return strcmp(a->refname, b->refname);
}

/* Same order as the on-disk key name '\0' reverse(update_index). */
static int log_cmp(const struct wg_reftable_log *a, const struct wg_reftable_log *b)
{
	int c = strcmp(a->refname, b->refname);

	if (c)
		return c;
	return a->update_index > b->update_index ? -1 : a->update_index < b->update_index;
}

static int fill_heads(struct merged_iter *mi)
{
	for (size_t i = 0; i < mi->n; i++) {
		int r;

		if (mi->state[i] != HEAD_EMPTY)
			continue;
		r = mi->logs ? wg_reftable_iter_next_log(&mi->logv[i], mi->subs[i]) :
			wg_reftable_iter_next_ref(&mi->refs[i], mi->subs[i]);
		if (r == WG_ITEROVER)
			mi->state[i] = HEAD_DONE;
		else if (r)
			return r;
		else
			mi->state[i] = HEAD_VALID;
	}
	return 0;
}

static int head_cmp(const struct merged_iter *mi, size_t i, size_t j)
{
	return mi->logs ? log_cmp(&mi->logv[i], &mi->logv[j]) : ref_cmp(&mi->refs[i], &mi->refs[j]);
}

/* Index of the winning head (smallest key, newest table on ties), with the
 * older heads of the same key marked consumed; n when all are done. */
static size_t pick(struct merged_iter *mi)
{
	size_t best = mi->n;

	for (size_t i = 0; i < mi->n; i++) {
		if (mi->state[i] != HEAD_VALID)
			continue;
		if (best == mi->n || head_cmp(mi, i, best) <= 0)
			best = i;
	}
	if (best == mi->n)
		return best;
	for (size_t i = 0; i < best; i++)
		if (mi->state[i] == HEAD_VALID && head_cmp(mi, i, best) == 0)
			mi->state[i] = HEAD_EMPTY;
	mi->state[best] = HEAD_EMPTY;
	return best;
}

static int merged_next_ref(struct wg_reftable_iter *it, struct wg_reftable_ref *out)
{
	struct merged_iter *mi = (struct merged_iter *)it;
	size_t best;
	int r;

	if (mi->logs)
		return wg_error_set(WG_EINVALID, "reftable iterator does not yield refs");
	for (;;) {
		if ((r = fill_heads(mi)))
			return r;
		if ((best = pick(mi)) == mi->n)
			return WG_ITEROVER;
		wg_reftable_ref_release(out);
		*out = mi->refs[best];
		memset(&mi->refs[best], 0, sizeof(mi->refs[best]));
		if (mi->suppress && out->type == WG_REFTABLE_REF_DELETION)
			continue;
		return 0;
	}
}

static int merged_next_log(struct wg_reftable_iter *it, struct wg_reftable_log *out)
{
	struct merged_iter *mi = (struct merged_iter *)it;
	size_t best;
	int r;

	if (!mi->logs)
		return wg_error_set(WG_EINVALID, "reftable iterator does not yield reflog entries");
	for (;;) {
		if ((r = fill_heads(mi)))
			return r;
		if ((best = pick(mi)) == mi->n)
			return WG_ITEROVER;
		wg_reftable_log_release(out);
		*out = mi->logv[best];
		memset(&mi->logv[best], 0, sizeof(mi->logv[best]));
		if (mi->suppress && out->type == WG_REFTABLE_LOG_DELETION)
			continue;
		return 0;
	}
}

static void merged_iter_free(struct wg_reftable_iter *it)
{
	struct merged_iter *mi = (struct merged_iter *)it;

	for (size_t i = 0; i < mi->n; i++) {
		wg_reftable_iter_free(mi->subs[i]);
		if (mi->refs)
			wg_reftable_ref_release(&mi->refs[i]);
		if (mi->logv)
			wg_reftable_log_release(&mi->logv[i]);
	}
	wg_free(mi->subs);
	wg_free(mi->refs);
	wg_free(mi->logv);
	wg_free(mi->state);
	wg_free(mi);
}

static int merged_iter_new(struct wg_reftable_iter **out, struct wg_reftable_merged *m,
			   bool logs, bool suppress, const char *filter)
{
	struct merged_iter *mi = wg_calloc(1, sizeof(*mi));
	size_t n = m->n ? m->n : 1;
	int r = 0;

	*out = NULL;
	if (!mi)
		return wg_error_set(WG_ENOMEM, "out of memory creating a reftable iterator");
	mi->base.next_ref = merged_next_ref;
	mi->base.next_log = merged_next_log;
	mi->base.free = merged_iter_free;
	mi->logs = logs;
	mi->suppress = suppress;
	mi->subs = wg_calloc(n, sizeof(*mi->subs));
	mi->state = wg_calloc(n, sizeof(*mi->state));
	if (logs)
		mi->logv = wg_calloc(n, sizeof(*mi->logv));
	else
		mi->refs = wg_calloc(n, sizeof(*mi->refs));
	if (!mi->subs || !mi->state || (!mi->logv && !mi->refs)) {
		merged_iter_free(&mi->base);
		return wg_error_set(WG_ENOMEM, "out of memory creating a reftable iterator");
	}
	for (size_t i = 0; i < m->n && !r; i++) {
		r = logs ? wg_reftable_table_iter_logs(&mi->subs[i], m->tables[i], filter) :
			wg_reftable_table_iter_refs(&mi->subs[i], m->tables[i], filter);
		mi->n = i + 1;
	}
	if (r) {
		merged_iter_free(&mi->base);
		return r;
	}
	*out = &mi->base;
	return 0;
}

int wg_reftable_merged_iter_refs(struct wg_reftable_iter **out, struct wg_reftable_merged *m,
				 const char *prefix)
{
	return merged_iter_new(out, m, false, true, prefix);
}

int wg_reftable_merged_iter_logs(struct wg_reftable_iter **out, struct wg_reftable_merged *m,
				 const char *refname)
{
	return merged_iter_new(out, m, true, true, refname);
}

int wg_reftable_merged_iter_refs_raw(struct wg_reftable_iter **out,
				     struct wg_reftable_merged *m)
{
	return merged_iter_new(out, m, false, false, NULL);
}

int wg_reftable_merged_iter_logs_raw(struct wg_reftable_iter **out,
				     struct wg_reftable_merged *m)
{
	return merged_iter_new(out, m, true, false, NULL);
}
