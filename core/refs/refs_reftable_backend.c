/* The reftable ref backend: the refdb interface over the $GIT_DIR/reftable
 * stack (reftable.h), laid out and behaving as git 2.53's reftable backend
 * does, so that git and webgit can share a repository:
 *  - HEAD, root refs and refs/ live in the tables; FETCH_HEAD and
 *    MERGE_HEAD (git's "pseudo refs") stay files in the git directory;
 *  - one transaction is one table: prepare takes tables.list.lock, brings
 *    the snapshot up to date and checks every expectation against it;
 *    finish writes the table and publishes it by replacing tables.list, so
 *    a reader sees all of a transaction or none of it;
 *  - reflogs are log records in the same table; deleting a ref writes
 *    tombstones for its whole reflog; an "existence marker" (a log record
 *    with null old and new ids) makes an empty reflog exist;
 *  - readers refresh their snapshot from tables.list before each
 *    operation, so a long-lived refdb sees other writers' changes. */
#include "refs/refdb_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/ident.h"
#include "refs/refname.h"
#include "reftable/reftable.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/fs.h"

struct rt_backend {
	struct wg_refdb_backend base;
	char *gitdir;
	const struct wg_hash_algo *algo;
	const struct wg_refdb_options *opts;
	struct wg_reftable_stack *stack;
};

#define RB(b) ((struct rt_backend *)(b))

static int nomem(void)
{
	return wg_error_set(WG_ENOMEM, "out of memory in the reftable ref backend");
}

/* git's is_pseudo_ref(): refs that are files whatever the ref format. */
static bool is_pseudo_ref(const char *name)
{
	return !strcmp(name, "FETCH_HEAD") || !strcmp(name, "MERGE_HEAD");
}

static int refresh(struct rt_backend *rb)
{
	return wg_reftable_stack_reload(rb->stack);
}

static struct wg_reftable_merged *merged(struct rt_backend *rb)
{
	return wg_reftable_stack_merged(rb->stack);
}

/* Copy a table record into a refdb ref (name included). */
static int ref_from_record(struct wg_ref *out, const struct wg_reftable_ref *rec)
{
	memset(out, 0, sizeof(*out));
	if (!(out->name = wg_strdup(rec->refname)))
		return nomem();
	switch (rec->type) {
	case WG_REFTABLE_REF_SYMREF:
		out->symbolic = true;
		if (!(out->target = wg_strdup(rec->target))) {
			wg_ref_release(out);
			return nomem();
		}
		break;
	case WG_REFTABLE_REF_VAL2:
		out->has_peeled = true;
		out->peeled = rec->peeled;
		/* fall through */
	case WG_REFTABLE_REF_VAL1:
		out->oid = rec->value;
		break;
	default:
		wg_ref_release(out);
		return wg_error_set(WG_ECORRUPT, "reftable: unexpected deletion record for %s",
				    rec->refname);
	}
	return 0;
}

/* FETCH_HEAD and MERGE_HEAD: the first object id of the file. */
static int read_pseudo_ref(struct rt_backend *rb, struct wg_ref *out, const char *name)
{
	struct wg_buf path = WG_BUF_INIT, data = WG_BUF_INIT;
	size_t hexsz = rb->algo->hexsz;
	int err;

	if ((err = wg_fs_join(&path, rb->gitdir, name)))
		return err;
	err = wg_fs_read_file(&data, wg_buf_cstr(&path));
	if (err == WG_ENOTFOUND) {
		wg_error_set(WG_ENOTFOUND, "ref %s not found", name);
	} else if (!err) {
		const char *d = (const char *)data.data;
		if (data.len < hexsz || wg_oid_from_hex(&out->oid, rb->algo, d) ||
		    (data.len > hexsz && d[hexsz] != '\n' && d[hexsz] != '\t' && d[hexsz] != ' '))
			err = wg_error_set(WG_ECORRUPT, "%s does not start with an object id",
					   wg_buf_cstr(&path));
		else if (!(out->name = wg_strdup(name)))
			err = nomem();
	}
	wg_buf_release(&path);
	wg_buf_release(&data);
	return err;
}

static int rt_read(struct wg_refdb_backend *b, struct wg_ref *out, const char *name)
{
	struct rt_backend *rb = RB(b);
	struct wg_reftable_ref rec = { 0 };
	int err;

	if (is_pseudo_ref(name))
		return read_pseudo_ref(rb, out, name);
	if ((err = refresh(rb)))
		return err;
	err = wg_reftable_merged_read_ref(&rec, merged(rb), name);
	if (err == WG_ENOTFOUND)
		return wg_error_set(WG_ENOTFOUND, "ref %s not found", name);
	if (!err)
		err = ref_from_record(out, &rec);
	wg_reftable_ref_release(&rec);
	return err;
}

/* --- iteration -------------------------------------------------------------------- */

struct rt_iter {
	struct wg_ref_iter base;
	struct wg_reftable_iter *it;
	struct wg_reftable_ref rec;
	struct wg_ref cur;
};

static int rt_iter_next(const struct wg_ref **out, struct wg_ref_iter *base)
{
	struct rt_iter *it = (struct rt_iter *)base;
	int err;

	wg_ref_release(&it->cur);
	if ((err = wg_reftable_iter_next_ref(&it->rec, it->it)))
		return err;
	if ((err = ref_from_record(&it->cur, &it->rec)))
		return err;
	*out = &it->cur;
	return 0;
}

static void rt_iter_free(struct wg_ref_iter *base)
{
	struct rt_iter *it = (struct rt_iter *)base;

	wg_reftable_iter_free(it->it);
	wg_reftable_ref_release(&it->rec);
	wg_ref_release(&it->cur);
	wg_free(it);
}

static int rt_iter_new(struct wg_ref_iter **out, struct wg_refdb_backend *b, const char *prefix)
{
	struct rt_backend *rb = RB(b);
	struct rt_iter *it;
	int err;

	if ((err = refresh(rb)))
		return err;
	if (!(it = wg_calloc(1, sizeof(*it))))
		return nomem();
	it->base.next = rt_iter_next;
	it->base.free = rt_iter_free;
	/* As the files backend: "everything" means the refs under refs/,
	 * not HEAD and the root refs that share the tables. */
	if ((err = wg_reftable_merged_iter_refs(&it->it, merged(rb),
						*prefix ? prefix : "refs/"))) {
		wg_free(it);
		return err;
	}
	*out = &it->base;
	return 0;
}

/* --- reflogs ----------------------------------------------------------------------- */

/* git stores the zone as the decimal value of +HHMM. */
static int tz_minutes(int16_t hhmm)
{
	int v = hhmm < 0 ? -hhmm : hhmm;
	int m = (v / 100) * 60 + v % 100;
	return hhmm < 0 ? -m : m;
}

static int16_t tz_hhmm(int minutes)
{
	int v = minutes < 0 ? -minutes : minutes;
	int h = (v / 60) * 100 + v % 60;
	return (int16_t)(minutes < 0 ? -h : h);
}

static bool is_existence_marker(const struct wg_reftable_log *log)
{
	return wg_oid_is_null(&log->old_id) && wg_oid_is_null(&log->new_id);
}

static int entry_from_log(struct wg_reflog_entry *out, const struct wg_reftable_log *log)
{
	struct wg_buf who = WG_BUF_INIT;
	size_t mlen = log->message ? strlen(log->message) : 0;

	memset(out, 0, sizeof(*out));
	out->old_oid = log->old_id;
	out->new_oid = log->new_id;
	out->time = (int64_t)log->time;
	out->tz = tz_minutes(log->tz_offset);
	if (mlen && log->message[mlen - 1] == '\n')
		mlen--;
	if (wg_buf_printf(&who, "%s <%s>", log->name ? log->name : "",
			  log->email ? log->email : "") ||
	    !(out->message = wg_strndup(log->message ? log->message : "", mlen))) {
		wg_buf_release(&who);
		wg_reflog_entry_release(out);
		return nomem();
	}
	out->committer = (char *)wg_buf_detach(&who, NULL);
	return 0;
}

struct rt_reflog_iter {
	struct wg_reflog_iter base;
	struct wg_reftable_iter *it;         /* newest first, streaming */
	struct wg_reftable_log log;
	bool have_log;                       /* `log` is read ahead, not yet used */
	struct wg_reflog_entry *entries;     /* oldest first: collected */
	size_t nr, pos;
	struct wg_reflog_entry cur;
};

static int rt_reflog_next(const struct wg_reflog_entry **out, struct wg_reflog_iter *base)
{
	struct rt_reflog_iter *it = (struct rt_reflog_iter *)base;
	int err;

	if (it->entries) {
		if (it->pos == it->nr)
			return WG_ITEROVER;
		*out = &it->entries[it->pos++];
		return 0;
	}
	wg_reflog_entry_release(&it->cur);
	for (;;) {
		if (!it->have_log && (err = wg_reftable_iter_next_log(&it->log, it->it)))
			return err;
		it->have_log = false;
		if (!is_existence_marker(&it->log))
			break;
	}
	if ((err = entry_from_log(&it->cur, &it->log)))
		return err;
	*out = &it->cur;
	return 0;
}

static void rt_reflog_free(struct wg_reflog_iter *base)
{
	struct rt_reflog_iter *it = (struct rt_reflog_iter *)base;

	wg_reftable_iter_free(it->it);
	wg_reftable_log_release(&it->log);
	for (size_t i = 0; i < it->nr; i++)
		wg_reflog_entry_release(&it->entries[i]);
	wg_free(it->entries);
	wg_reflog_entry_release(&it->cur);
	wg_free(it);
}

/* Reverse a newest-first stream into an oldest-first array. */
static int collect_oldest_first(struct rt_reflog_iter *it)
{
	const struct wg_reflog_entry *e;
	struct wg_reflog_entry *v = NULL;
	size_t nr = 0, alloc = 0;
	int err;

	while (!(err = rt_reflog_next(&e, &it->base))) {
		if (nr == alloc) {
			size_t na = alloc ? 2 * alloc : 16;
			struct wg_reflog_entry *nv = wg_realloc(v, na * sizeof(*nv));
			if (!nv) {
				err = nomem();
				break;
			}
			v = nv;
			alloc = na;
		}
		v[nr++] = it->cur;
		memset(&it->cur, 0, sizeof(it->cur));
	}
	if (err != WG_ITEROVER) {
		for (size_t i = 0; i < nr; i++)
			wg_reflog_entry_release(&v[i]);
		wg_free(v);
		return err;
	}
	for (size_t i = 0; i < nr / 2; i++) {
		struct wg_reflog_entry t = v[i];
		v[i] = v[nr - 1 - i];
		v[nr - 1 - i] = t;
	}
	if (!v && !(v = wg_malloc(sizeof(*v))))
		return nomem();
	it->entries = v;
	it->nr = nr;
	return 0;
}

static int rt_reflog_iter(struct wg_reflog_iter **out, struct wg_refdb_backend *b,
			  const char *name, unsigned flags)
{
	struct rt_backend *rb = RB(b);
	struct rt_reflog_iter *it;
	int err;

	if ((err = refresh(rb)))
		return err;
	if (!(it = wg_calloc(1, sizeof(*it))))
		return nomem();
	it->base.next = rt_reflog_next;
	it->base.free = rt_reflog_free;
	if ((err = wg_reftable_merged_iter_logs(&it->it, merged(rb), name)))
		goto fail;
	/* Read one record ahead: no record at all means no reflog. */
	err = wg_reftable_iter_next_log(&it->log, it->it);
	if (err == WG_ITEROVER)
		err = wg_error_set(WG_ENOTFOUND, "reflog for '%s' does not exist", name);
	if (err)
		goto fail;
	it->have_log = true;
	if ((flags & WG_REFLOG_OLDEST_FIRST) && (err = collect_oldest_first(it)))
		goto fail;
	*out = &it->base;
	return 0;
fail:
	rt_reflog_free(&it->base);
	return err;
}

/* 1 if `name` has log records (an existence marker counts), 0 if not. */
static int has_reflog(struct rt_backend *rb, const char *name)
{
	struct wg_reftable_iter *it;
	struct wg_reftable_log log = { 0 };
	int err;

	if ((err = wg_reftable_merged_iter_logs(&it, merged(rb), name)))
		return err;
	err = wg_reftable_iter_next_log(&log, it);
	wg_reftable_log_release(&log);
	wg_reftable_iter_free(it);
	if (err == WG_ITEROVER)
		return 0;
	return err ? err : 1;
}

static int rt_reflog_exists(struct wg_refdb_backend *b, const char *name)
{
	int err;

	if ((err = refresh(RB(b))))
		return err;
	return has_reflog(RB(b), name);
}

/* The update index of every log record of `name`, newest first. */
static int log_indices(struct rt_backend *rb, const char *name, uint64_t **out, size_t *nr)
{
	struct wg_reftable_iter *it;
	struct wg_reftable_log log = { 0 };
	size_t alloc = 0;
	int err;

	*out = NULL;
	*nr = 0;
	if ((err = wg_reftable_merged_iter_logs(&it, merged(rb), name)))
		return err;
	while (!(err = wg_reftable_iter_next_log(&log, it))) {
		if (*nr == alloc) {
			size_t na = alloc ? 2 * alloc : 8;
			uint64_t *nv = wg_realloc(*out, na * sizeof(*nv));
			if (!nv) {
				err = nomem();
				break;
			}
			*out = nv;
			alloc = na;
		}
		(*out)[(*nr)++] = log.update_index;
	}
	wg_reftable_log_release(&log);
	wg_reftable_iter_free(it);
	if (err == WG_ITEROVER)
		return 0;
	wg_free(*out);
	*out = NULL;
	*nr = 0;
	return err;
}

static int add_log_tombstones(struct wg_reftable_writer *w, const char *name,
			      const uint64_t *indices, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		struct wg_reftable_log t = { 0 };
		int err;
		t.refname = (char *)name;
		t.update_index = indices[i];
		t.type = WG_REFTABLE_LOG_DELETION;
		if ((err = wg_reftable_writer_add_log(w, &t)))
			return err;
	}
	return 0;
}

struct one_log_arg {
	struct rt_backend *rb;
	const char *name;
	bool create;                /* marker, else tombstones */
	uint64_t *indices;
	size_t nr;
};

static int write_one_log(struct wg_reftable_writer *w, void *payload)
{
	struct one_log_arg *a = payload;
	struct wg_reftable_log marker = { 0 };

	if (!a->create)
		return add_log_tombstones(w, a->name, a->indices, a->nr);
	marker.refname = (char *)a->name;
	marker.update_index = wg_reftable_writer_min_update_index(w);
	marker.type = WG_REFTABLE_LOG_UPDATE;
	wg_oid_null(&marker.old_id, a->rb->algo);
	wg_oid_null(&marker.new_id, a->rb->algo);
	return wg_reftable_writer_add_log(w, &marker);
}

static int rt_reflog_create(struct wg_refdb_backend *b, const char *name)
{
	struct rt_backend *rb = RB(b);
	struct wg_reftable_addition *add;
	struct one_log_arg a = { rb, name, true, NULL, 0 };
	int err;

	if ((err = wg_reftable_stack_new_addition(&add, rb->stack, WG_REFTABLE_ADD_RELOAD)))
		return err;
	err = has_reflog(rb, name);
	if (err == 0)
		err = wg_reftable_addition_commit(add, write_one_log, &a);
	else if (err == 1)
		err = 0;
	wg_reftable_addition_free(add);
	return err;
}

static int rt_reflog_delete(struct wg_refdb_backend *b, const char *name)
{
	struct rt_backend *rb = RB(b);
	struct wg_reftable_addition *add;
	struct one_log_arg a = { rb, name, false, NULL, 0 };
	int err;

	if ((err = wg_reftable_stack_new_addition(&add, rb->stack, WG_REFTABLE_ADD_RELOAD)))
		return err;
	if (!(err = log_indices(rb, name, &a.indices, &a.nr)) && a.nr)
		err = wg_reftable_addition_commit(add, write_one_log, &a);
	wg_reftable_addition_free(add);
	wg_free(a.indices);
	return err;
}

/* --- transactions ------------------------------------------------------------------ */

/* What prepare learned about one update, kept for finish. */
struct rt_update {
	bool exists;
	struct wg_ref raw;          /* the ref as stored (symbolic or not) */
	char *df_conflict;          /* an existing ref in the way of creating it */
	bool has_reflog;
	uint64_t *log_indices;      /* its log records, for deletion tombstones */
	size_t log_nr;
};

struct rt_tx {
	struct wg_reftable_addition *addition;
	struct rt_update *state;    /* parallel to tx->updates */
};

static void rt_tx_free(struct wg_ref_transaction *tx)
{
	struct rt_tx *t = tx->backend_data;

	if (!t)
		return;
	wg_reftable_addition_free(t->addition);
	for (size_t i = 0; t->state && i < tx->nr; i++) {
		wg_ref_release(&t->state[i].raw);
		wg_free(t->state[i].df_conflict);
		wg_free(t->state[i].log_indices);
		tx->updates[i]->backend_data = NULL;
	}
	wg_free(t->state);
	wg_free(t);
	tx->backend_data = NULL;
}

/* Would this update bring a ref into existence? */
static bool creates(const struct wg_ref_update *u, const struct rt_update *s)
{
	return !s->exists && (u->flags & WG_REF_HAVE_NEW) && !(u->flags & WG_REF_DELETING) &&
	       !(u->flags & WG_REF_LOG_ONLY);
}

static int set_conflict(struct rt_update *s, const char *name, size_t len)
{
	if (s->df_conflict)
		return 0;
	return (s->df_conflict = wg_strndup(name, len)) ? 0 : nomem();
}

/* Point lookups: right for a transaction that is small beside the stack. */
static int load_by_lookup(struct rt_backend *rb, struct wg_ref_transaction *tx)
{
	struct wg_reftable_merged *m = merged(rb);
	struct wg_reftable_ref rec = { 0 };
	int err = 0;

	for (size_t i = 0; i < tx->nr && !err; i++) {
		struct wg_ref_update *u = tx->updates[i];
		struct rt_update *s = u->backend_data;
		struct wg_reftable_iter *it;
		const char *p;

		err = wg_reftable_merged_read_ref(&rec, m, u->name);
		if (!err) {
			s->exists = true;
			err = ref_from_record(&s->raw, &rec);
		} else if (err == WG_ENOTFOUND) {
			wg_error_clear();
			err = 0;
		}
		if (err || !creates(u, s))
			continue;
		/* A ref named like one of its directories... */
		for (p = strchr(u->name, '/'); p && !err && !s->df_conflict; p = strchr(p + 1, '/')) {
			size_t len = (size_t)(p - u->name);
			char *dir = wg_strndup(u->name, len);
			if (!dir) {
				err = nomem();
				break;
			}
			int rerr = wg_reftable_merged_read_ref(&rec, m, dir);
			if (!rerr && !wg_ref_transaction_deletes(tx, dir, len))
				err = set_conflict(s, dir, len);
			else if (rerr == WG_ENOTFOUND)
				wg_error_clear();
			else if (rerr)
				err = rerr;
			wg_free(dir);
		}
		/* ...or refs below it. */
		if (!err && !s->df_conflict) {
			struct wg_buf sub = WG_BUF_INIT;
			if (wg_buf_printf(&sub, "%s/", u->name)) {
				err = nomem();
			} else if (!(err = wg_reftable_merged_iter_refs(&it, m, wg_buf_cstr(&sub)))) {
				while (!(err = wg_reftable_iter_next_ref(&rec, it)))
					if (!wg_ref_transaction_deletes(tx, rec.refname,
									strlen(rec.refname))) {
						err = set_conflict(s, rec.refname, strlen(rec.refname));
						break;
					}
				if (err == WG_ITEROVER)
					err = 0;
				wg_reftable_iter_free(it);
			}
			wg_buf_release(&sub);
		}
	}
	wg_reftable_ref_release(&rec);
	return err;
}

/* One pass over every ref: right for a transaction that touches a large
 * part of the stack (creating a million refs must not cost a million
 * seeks, and several more for the directory checks). Updates are sorted,
 * so each existing ref finds its update, its parent directories' updates
 * and its children's by binary search. */
static int load_by_scan(struct rt_backend *rb, struct wg_ref_transaction *tx)
{
	struct wg_reftable_iter *it;
	struct wg_reftable_ref rec = { 0 };
	struct wg_buf dir = WG_BUF_INIT;
	int err;

	if ((err = wg_reftable_merged_iter_refs(&it, merged(rb), "")))
		return err;
	while (!(err = wg_reftable_iter_next_ref(&rec, it))) {
		const char *name = rec.refname, *p;
		size_t len = strlen(name);
		struct wg_ref_update *u = wg_ref_transaction_find(tx, name, len);
		bool gone = u && (u->flags & WG_REF_DELETING) && !(u->flags & WG_REF_LOG_ONLY);

		if (u) {
			struct rt_update *s = u->backend_data;
			s->exists = true;
			if ((err = ref_from_record(&s->raw, &rec)))
				break;
		}
		if (gone)
			continue;
		/* This ref is a directory of updates "name/...". */
		wg_buf_reset(&dir);
		if (wg_buf_printf(&dir, "%s/", name)) {
			err = nomem();
			break;
		}
		{
			size_t lo = 0, hi = tx->nr;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (strcmp(tx->updates[mid]->name, wg_buf_cstr(&dir)) < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (; lo < tx->nr && !strncmp(tx->updates[lo]->name, wg_buf_cstr(&dir),
						       dir.len) && !err; lo++)
				err = set_conflict(tx->updates[lo]->backend_data, name, len);
		}
		/* Its directories are updates. */
		for (p = strchr(name, '/'); p && !err; p = strchr(p + 1, '/')) {
			struct wg_ref_update *d = wg_ref_transaction_find(tx, name,
									  (size_t)(p - name));
			if (d)
				err = set_conflict(d->backend_data, name, len);
		}
		if (err)
			break;
	}
	wg_reftable_iter_free(it);
	wg_reftable_ref_release(&rec);
	wg_buf_release(&dir);
	return err == WG_ITEROVER ? 0 : err;
}

/* Which refs already have a reflog, and the log records of refs being
 * deleted: per update for small transactions, one pass over all logs for
 * large ones. */
static int load_logs(struct rt_backend *rb, struct wg_ref_transaction *tx, bool scan)
{
	struct wg_reftable_iter *it;
	struct wg_reftable_log log = { 0 };
	int err = 0;

	if (!scan) {
		for (size_t i = 0; i < tx->nr && !err; i++) {
			struct wg_ref_update *u = tx->updates[i];
			struct rt_update *s = u->backend_data;
			if ((u->flags & WG_REF_DELETING) && !(u->flags & WG_REF_LOG_ONLY)) {
				err = log_indices(rb, u->name, &s->log_indices, &s->log_nr);
				s->has_reflog = s->log_nr > 0;
			} else if (u->flags & (WG_REF_HAVE_NEW | WG_REF_LOG_ONLY)) {
				err = has_reflog(rb, u->name);
				s->has_reflog = err == 1;
				err = err == 1 ? 0 : err;
			}
		}
		return err;
	}
	if ((err = wg_reftable_merged_iter_logs(&it, merged(rb), NULL)))
		return err;
	while (!(err = wg_reftable_iter_next_log(&log, it))) {
		struct wg_ref_update *u = wg_ref_transaction_find(tx, log.refname,
								  strlen(log.refname));
		struct rt_update *s;
		if (!u)
			continue;
		s = u->backend_data;
		s->has_reflog = true;
		if ((u->flags & WG_REF_DELETING) && !(u->flags & WG_REF_LOG_ONLY)) {
			uint64_t *nv = wg_realloc(s->log_indices, (s->log_nr + 1) * sizeof(*nv));
			if (!nv) {
				err = nomem();
				break;
			}
			s->log_indices = nv;
			s->log_indices[s->log_nr++] = log.update_index;
		}
	}
	wg_reftable_log_release(&log);
	wg_reftable_iter_free(it);
	return err == WG_ITEROVER ? 0 : err;
}

/* The object id a symref chain ends at (null when it dangles). */
static int resolve_in_stack(struct rt_backend *rb, const char *target, struct wg_oid *out)
{
	struct wg_reftable_ref rec = { 0 };
	char *name = wg_strdup(target);
	int err = 0, depth;

	wg_oid_null(out, rb->algo);
	if (!name)
		return nomem();
	for (depth = 0; depth <= WG_SYMREF_MAX_DEPTH; depth++) {
		err = wg_reftable_merged_read_ref(&rec, merged(rb), name);
		if (err == WG_ENOTFOUND) {
			wg_error_clear();
			err = 0;
			break;
		}
		if (err)
			break;
		if (rec.type != WG_REFTABLE_REF_SYMREF) {
			*out = rec.value;
			break;
		}
		wg_free(name);
		if (!(name = wg_strdup(rec.target))) {
			err = nomem();
			break;
		}
	}
	if (depth > WG_SYMREF_MAX_DEPTH)
		err = wg_error_set(WG_ECORRUPT, "too many levels of symbolic refs at %s", target);
	wg_reftable_ref_release(&rec);
	wg_free(name);
	return err;
}

static uint64_t stack_bytes(struct rt_backend *rb)
{
	struct wg_reftable_merged *m = merged(rb);
	uint64_t total = 0;

	for (size_t i = 0; i < wg_reftable_merged_count(m); i++)
		total += wg_reftable_table_size(wg_reftable_merged_table(m, i));
	return total;
}

static int rt_prepare(struct wg_refdb_backend *b, struct wg_ref_transaction *tx)
{
	struct rt_backend *rb = RB(b);
	struct rt_tx *t = wg_calloc(1, sizeof(*t));
	bool scan;
	int err = 0;

	if (!t || !(t->state = wg_calloc(tx->nr ? tx->nr : 1, sizeof(*t->state)))) {
		wg_free(t);
		return nomem();
	}
	tx->backend_data = t;
	for (size_t i = 0; i < tx->nr; i++) {
		tx->updates[i]->backend_data = &t->state[i];
		if (is_pseudo_ref(tx->updates[i]->name)) {
			err = wg_error_set(WG_EINVALID, "refusing to update pseudoref '%s'",
					   tx->updates[i]->name);
			goto fail;
		}
	}
	/* Lock tables.list and bring the snapshot up to date under the lock:
	 * everything checked below stays true until finish publishes. */
	err = wg_reftable_stack_new_addition(&t->addition, rb->stack, WG_REFTABLE_ADD_RELOAD);
	if (err == WG_ELOCKED)
		err = wg_error_prefix("cannot lock references");
	if (err)
		goto fail;
	/* A ref costs some 30-60 bytes in a table; a scan reads each once, a
	 * lookup a few blocks: scan when the transaction is a sizeable part. */
	scan = tx->nr >= 256 && (uint64_t)tx->nr * 64 * 16 >= stack_bytes(rb);
	if ((err = scan ? load_by_scan(rb, tx) : load_by_lookup(rb, tx)) ||
	    (err = load_logs(rb, tx, scan)))
		goto fail;
	for (size_t i = 0; i < tx->nr; i++) {
		struct wg_ref_update *u = tx->updates[i];
		struct rt_update *s = &t->state[i];
		u->current_symbolic = s->raw.symbolic;
		if (!s->exists)
			wg_oid_null(&u->current, rb->algo);
		else if (s->raw.symbolic)
			err = resolve_in_stack(rb, s->raw.target, &u->current);
		else
			u->current = s->raw.oid;
		if (err || (err = wg_ref_update_check(tx, u, &s->raw, s->exists)))
			goto fail;
		if (creates(u, s) && s->df_conflict) {
			/* git's reftable wording: no "cannot lock ref" here. */
			err = wg_error_set(WG_EEXISTS, "'%s' exists; cannot create '%s'",
					   s->df_conflict, u->name);
			goto fail;
		}
	}
	return 0;
fail:
	rt_tx_free(tx);
	return err;
}

static void rt_abort(struct wg_refdb_backend *b, struct wg_ref_transaction *tx)
{
	(void)b;
	rt_tx_free(tx);
}

struct write_arg {
	struct rt_backend *rb;
	struct wg_ref_transaction *tx;
	struct wg_ident who;
	/* The last id peeled and the result: bulk updates repeat ids, and
	 * peeling reads the object. */
	bool have_last;
	struct wg_oid last, last_peeled;
	int last_rc;
};

static int write_ref_record(struct write_arg *a, struct wg_reftable_writer *w,
			    const struct wg_ref_update *u, uint64_t ui)
{
	const struct wg_refdb_options *o = a->rb->opts;
	struct wg_reftable_ref rec = { 0 };
	struct wg_oid peeled = { { 0 }, 0 };

	rec.refname = u->name;
	rec.update_index = ui;
	if (u->new_target) {
		rec.type = WG_REFTABLE_REF_SYMREF;
		rec.target = u->new_target;
	} else if (u->flags & WG_REF_DELETING) {
		rec.type = WG_REFTABLE_REF_DELETION;
	} else {
		int err = 0;
		if (a->have_last && wg_oid_equal(&a->last, &u->new_oid)) {
			err = a->last_rc;
			peeled = a->last_peeled;
		} else if (o->peel) {
			if ((err = o->peel(&peeled, &u->new_oid, o->peel_payload)) < 0)
				return err;
			a->have_last = true;
			a->last = u->new_oid;
			a->last_peeled = peeled;
			a->last_rc = err;
		}
		rec.type = err == 1 ? WG_REFTABLE_REF_VAL2 : WG_REFTABLE_REF_VAL1;
		rec.value = u->new_oid;
		if (err == 1)
			rec.peeled = peeled;
	}
	return wg_reftable_writer_add_ref(w, &rec);
}

/* An update that would store the value the ref already has: git's
 * reftable backend drops it, so it writes neither a record nor a reflog
 * entry (HEAD's log-only entry for it, a separate update, still is). */
static bool is_noop(const struct wg_ref_update *u)
{
	const struct rt_update *s = u->backend_data;
	return !u->new_target && !(u->flags & (WG_REF_LOG_ONLY | WG_REF_DELETING)) &&
	       (u->flags & WG_REF_HAVE_NEW) && s->exists && !s->raw.symbolic &&
	       !u->current_symbolic && wg_oid_equal(&u->current, &u->new_oid);
}

/* The reflog entry for `u`, as the files backend would append it. */
static int write_log_record(struct write_arg *a, struct wg_reftable_writer *w,
			    const struct wg_ref_update *u, uint64_t ui)
{
	const struct rt_update *s = u->backend_data;
	const struct wg_ref_update *src = u;
	struct wg_reftable_log log = { 0 };
	char *name = NULL, *email = NULL;
	int err;

	if ((u->flags & WG_REF_DELETING) && !(u->flags & WG_REF_LOG_ONLY) && !s->raw.symbolic)
		return add_log_tombstones(w, u->name, s->log_indices, s->log_nr);
	if (u->flags & WG_REF_LOG_ONLY) {
		if (!u->parent)
			return 0;
		src = u->parent;
	}
	if ((!(src->flags & WG_REF_HAVE_NEW) && !src->new_target) || (u->flags & WG_REF_SKIP_REFLOG))
		return 0;
	if (!(u->flags & WG_REF_FORCE_REFLOG) && !s->has_reflog &&
	    !wg_refdb_should_autocreate_reflog(a->rb->opts, u->name))
		return 0;
	log.old_id = src->current;
	log.new_id = src->new_oid;
	if (src->new_target) {
		/* git skips logging a symref pointed at nothing. */
		if ((err = resolve_in_stack(a->rb, src->new_target, &log.new_id)))
			return err;
		if (wg_oid_is_null(&log.new_id))
			return 0;
	}
	if (!(name = wg_strndup(a->who.name, a->who.name_len)) ||
	    !(email = wg_strndup(a->who.email, a->who.email_len))) {
		wg_free(name);
		return nomem();
	}
	log.refname = u->name;
	log.update_index = ui;
	log.type = WG_REFTABLE_LOG_UPDATE;
	log.name = name;
	log.email = email;
	log.time = a->who.timestamp;
	log.tz_offset = tz_hhmm(a->who.tz_offset);
	log.message = u->msg;
	err = wg_reftable_writer_add_log(w, &log);
	wg_free(name);
	wg_free(email);
	return err;
}

static int write_transaction(struct wg_reftable_writer *w, void *payload)
{
	struct write_arg *a = payload;
	struct wg_ref_transaction *tx = a->tx;
	uint64_t ui = wg_reftable_writer_min_update_index(w);
	int err = 0;

	/* Refs then logs, each in name order (the updates are sorted). */
	for (size_t i = 0; i < tx->nr && !err; i++) {
		const struct wg_ref_update *u = tx->updates[i];
		if (!(u->flags & WG_REF_LOG_ONLY) && (u->flags & WG_REF_HAVE_NEW) && !is_noop(u))
			err = write_ref_record(a, w, u, ui);
	}
	for (size_t i = 0; i < tx->nr && !err; i++)
		if (!is_noop(tx->updates[i]))
			err = write_log_record(a, w, tx->updates[i], ui);
	return err;
}

static int rt_finish(struct wg_refdb_backend *b, struct wg_ref_transaction *tx)
{
	struct rt_tx *t = tx->backend_data;
	struct write_arg a;
	int err;

	memset(&a, 0, sizeof(a));
	a.rb = RB(b);
	a.tx = tx;
	if (wg_ident_parse(&a.who, tx->committer, strlen(tx->committer)) || !a.who.has_date)
		err = wg_error_set(WG_EINVALID, "bad reflog identity '%s'", tx->committer);
	else
		err = wg_reftable_addition_commit(t->addition, write_transaction, &a);
	rt_tx_free(tx);
	return err;
}

/* --- rename ---------------------------------------------------------------------- */

struct rename_arg {
	struct rt_backend *rb;
	const struct wg_ref_rename *r;
	struct wg_ident who;
};

/* A log record stamped with the renaming identity. */
static void stamp_log(struct wg_reftable_log *log, const struct rename_arg *a, char *name,
		      char *email, const char *refname, uint64_t ui)
{
	memset(log, 0, sizeof(*log));
	log->refname = (char *)refname;
	log->update_index = ui;
	log->type = WG_REFTABLE_LOG_UPDATE;
	log->name = name;
	log->email = email;
	log->time = a->who.timestamp;
	log->tz_offset = tz_hhmm(a->who.tz_offset);
	log->message = (char *)a->r->msg;
	wg_oid_null(&log->old_id, a->rb->algo);
	wg_oid_null(&log->new_id, a->rb->algo);
}

/* The old name's log records, newest first (exactly that name). */
static int old_logs(struct rt_backend *rb, const char *name, struct wg_reftable_log **out,
		    size_t *nr)
{
	struct wg_reftable_iter *it;
	struct wg_reftable_log log = { 0 };
	size_t alloc = 0;
	int err;

	*out = NULL;
	*nr = 0;
	if ((err = wg_reftable_merged_iter_logs(&it, merged(rb), name)))
		return err;
	while (!(err = wg_reftable_iter_next_log(&log, it)) && !strcmp(log.refname, name)) {
		if (*nr == alloc) {
			size_t na = alloc ? 2 * alloc : 8;
			struct wg_reftable_log *nv = wg_realloc(*out, na * sizeof(*nv));
			if (!nv) {
				err = nomem();
				break;
			}
			*out = nv;
			alloc = na;
		}
		memset(&(*out)[*nr], 0, sizeof(**out));
		if ((err = wg_reftable_log_copy(&(*out)[*nr], &log)))
			break;
		(*nr)++;
	}
	wg_reftable_log_release(&log);
	wg_reftable_iter_free(it);
	return err == WG_ITEROVER || err == 0 ? 0 : err;
}

/* git's write_copy_table: one table holding, for a rename, the deletion
 * of the old ref at index N and the new ref at N+1; the new name's reflog
 * gets "old -> 0" at N and "0 -> old" at N+1 (the files backend's delete
 * and create, as git's reftable backend mirrors them), then a copy of
 * every old entry under its own index; the old entries get tombstones,
 * and HEAD, when it names the old ref, the "old -> 0" entry. A copy keeps
 * the old ref and writes only the creation at N. */
static int write_rename(struct wg_reftable_writer *w, void *payload)
{
	struct rename_arg *a = payload;
	const struct wg_ref_rename *r = a->r;
	struct rt_backend *rb = a->rb;
	uint64_t del_ts = wg_reftable_writer_min_update_index(w);
	uint64_t cre_ts = del_ts + (r->copy ? 0 : 1);
	struct wg_reftable_ref old = { 0 }, head = { 0 }, rec, del;
	struct wg_reftable_log *logs = NULL, l;
	size_t nr = 0;
	char *name = NULL, *email = NULL;
	bool head_log = false;
	int err;

	if ((err = wg_reftable_writer_set_limits(w, del_ts, cre_ts)))
		return err;
	err = wg_reftable_merged_read_ref(&old, merged(rb), r->old_name);
	if (err == WG_ENOTFOUND)
		return wg_error_set(WG_ENOTFOUND, "refname %s not found", r->old_name);
	if (err)
		return err;
	if (old.type == WG_REFTABLE_REF_SYMREF || !wg_oid_equal(&old.value, &r->oid)) {
		err = wg_error_set(WG_EEXISTS, "cannot lock ref '%s': it changed while renaming",
				   r->old_name);
		goto done;
	}
	if (!r->copy) {
		int herr = wg_reftable_merged_read_ref(&head, merged(rb), "HEAD");
		if (herr && herr != WG_ENOTFOUND) {
			err = herr;
			goto done;
		}
		wg_error_clear();
		head_log = !herr && head.type == WG_REFTABLE_REF_SYMREF &&
			   !strcmp(head.target, r->old_name);
	}
	if ((err = old_logs(rb, r->old_name, &logs, &nr)))
		goto done;
	if (!(name = wg_strndup(a->who.name, a->who.name_len)) ||
	    !(email = wg_strndup(a->who.email, a->who.email_len))) {
		err = nomem();
		goto done;
	}

	/* Refs, in name order. */
	rec = old;
	rec.refname = (char *)r->new_name;
	rec.update_index = cre_ts;
	memset(&del, 0, sizeof(del));
	del.refname = (char *)r->old_name;
	del.update_index = del_ts;
	del.type = WG_REFTABLE_REF_DELETION;
	if (!r->copy && strcmp(r->old_name, r->new_name) < 0)
		err = wg_reftable_writer_add_ref(w, &del);
	if (!err)
		err = wg_reftable_writer_add_ref(w, &rec);
	if (!err && !r->copy && strcmp(r->old_name, r->new_name) > 0)
		err = wg_reftable_writer_add_ref(w, &del);

	/* Logs, by name then newest first; "HEAD" sorts before "refs/". */
	if (!err && head_log) {
		stamp_log(&l, a, name, email, "HEAD", del_ts);
		l.old_id = r->oid;
		err = wg_reftable_writer_add_log(w, &l);
	}
	for (int pass = 0; pass < 2 && !err; pass++) {
		bool old_first = strcmp(r->old_name, r->new_name) < 0;
		bool do_old = (pass == 0) == old_first;
		if (do_old) {
			for (size_t i = 0; i < nr && !err && !r->copy; i++) {
				struct wg_reftable_log t = { 0 };
				t.refname = (char *)r->old_name;
				t.update_index = logs[i].update_index;
				t.type = WG_REFTABLE_LOG_DELETION;
				err = wg_reftable_writer_add_log(w, &t);
			}
			continue;
		}
		stamp_log(&l, a, name, email, r->new_name, cre_ts);
		l.new_id = r->oid;
		err = wg_reftable_writer_add_log(w, &l);
		if (!err && !r->copy) {
			stamp_log(&l, a, name, email, r->new_name, del_ts);
			l.old_id = r->oid;
			err = wg_reftable_writer_add_log(w, &l);
		}
		for (size_t i = 0; i < nr && !err; i++) {
			l = logs[i];
			l.refname = (char *)r->new_name;
			err = wg_reftable_writer_add_log(w, &l);
		}
	}
done:
	for (size_t i = 0; i < nr; i++)
		wg_reftable_log_release(&logs[i]);
	wg_free(logs);
	wg_free(name);
	wg_free(email);
	wg_reftable_ref_release(&old);
	wg_reftable_ref_release(&head);
	return err;
}

static int rt_rename(struct wg_refdb_backend *b, struct wg_refdb *db,
		     const struct wg_ref_rename *r)
{
	struct rename_arg a;

	(void)db;
	/* Onto itself: git's reftable backend leaves the ref and its log as
	 * they are (the caller's update of HEAD is still logged). */
	if (!strcmp(r->old_name, r->new_name))
		return 0;
	memset(&a, 0, sizeof(a));
	a.rb = RB(b);
	a.r = r;
	if (wg_ident_parse(&a.who, r->committer, strlen(r->committer)) || !a.who.has_date)
		return wg_error_set(WG_EINVALID, "bad reflog identity '%s'", r->committer);
	return wg_reftable_stack_add(a.rb->stack, WG_REFTABLE_ADD_RELOAD, write_rename, &a);
}

/* --- maintenance --------------------------------------------------------------------- */

static int rt_pack(struct wg_refdb_backend *b, unsigned flags)
{
	int err;

	(void)flags;
	if ((err = refresh(RB(b))))
		return err;
	return wg_reftable_stack_compact_all(RB(b)->stack);
}

static int rt_verify(struct wg_refdb_backend *b, wg_refdb_verify_cb cb, void *payload)
{
	struct rt_backend *rb = RB(b);
	struct wg_reftable_merged *m;
	struct wg_reftable_iter *it;
	struct wg_reftable_ref rec = { 0 };
	int problems = 0, err;
	bool stop = false;

#define REPORT(name, msg) do { \
		problems++; \
		if (cb && !stop && cb((name), (msg), payload)) \
			stop = true; \
	} while (0)

	if ((err = refresh(rb))) {
		REPORT("reftable", wg_error_message());
		wg_error_clear();
		return problems;
	}
	m = merged(rb);
	for (size_t i = 0; i < wg_reftable_merged_count(m); i++) {
		struct wg_reftable_table *table = wg_reftable_merged_table(m, i);
		if (wg_reftable_table_verify(table)) {
			REPORT(wg_reftable_table_name(table), wg_error_message());
			wg_error_clear();
		}
	}
	if (problems)
		return problems;
	if ((err = wg_reftable_merged_iter_refs(&it, m, "")))
		return err;
	while (!(err = wg_reftable_iter_next_ref(&rec, it))) {
		char msg[600];
		if (!wg_refdb_name_is_valid(rec.refname)) {
			snprintf(msg, sizeof(msg), "badRefName: invalid refname format");
			REPORT(rec.refname, msg);
		} else if (rec.type == WG_REFTABLE_REF_SYMREF && !wg_refdb_name_is_valid(rec.target)) {
			snprintf(msg, sizeof(msg), "badReferentName: points to invalid refname '%.500s'",
				 rec.target);
			REPORT(rec.refname, msg);
		}
	}
	wg_reftable_ref_release(&rec);
	wg_reftable_iter_free(it);
#undef REPORT
	if (err != WG_ITEROVER)
		return err;
	return problems;
}

static void rt_free(struct wg_refdb_backend *b)
{
	struct rt_backend *rb = RB(b);

	wg_reftable_stack_free(rb->stack);
	wg_free(rb->gitdir);
	wg_free(rb);
}

static int open_stack(struct wg_reftable_stack **out, const char *gitdir,
		      const struct wg_hash_algo *algo, bool fsync)
{
	struct wg_reftable_stack_options so = WG_REFTABLE_STACK_OPTIONS_INIT;
	struct wg_buf dir = WG_BUF_INIT;
	int err;

	so.algo = algo;
	so.fsync = fsync;
	if ((err = wg_fs_join(&dir, gitdir, "reftable")))
		return err;
	if (!wg_fs_is_dir(wg_buf_cstr(&dir)))
		err = wg_error_set(WG_ECORRUPT, "%s is missing: the repository says it uses "
				   "reftable", wg_buf_cstr(&dir));
	else
		err = wg_reftable_stack_open(out, wg_buf_cstr(&dir), &so);
	wg_buf_release(&dir);
	return err;
}

int wg_refdb_reftable_new(struct wg_refdb_backend **out, const struct wg_refdb_config *cfg)
{
	struct rt_backend *rb = wg_calloc(1, sizeof(*rb));
	int err;

	if (!rb || !(rb->gitdir = wg_strdup(cfg->gitdir))) {
		wg_free(rb);
		return nomem();
	}
	rb->algo = cfg->algo;
	rb->opts = cfg->opts;
	if ((err = open_stack(&rb->stack, rb->gitdir, rb->algo, cfg->opts->fsync))) {
		rt_free(&rb->base);
		return err;
	}
	rb->base.version = WG_REFDB_BACKEND_VERSION;
	rb->base.read = rt_read;
	rb->base.iter = rt_iter_new;
	rb->base.reflog_iter = rt_reflog_iter;
	rb->base.reflog_exists = rt_reflog_exists;
	rb->base.reflog_create = rt_reflog_create;
	rb->base.reflog_delete = rt_reflog_delete;
	rb->base.prepare = rt_prepare;
	rb->base.finish = rt_finish;
	rb->base.abort = rt_abort;
	rb->base.pack = rt_pack;
	rb->base.verify = rt_verify;
	rb->base.rename = rt_rename;
	rb->base.free = rt_free;
	*out = &rb->base;
	return 0;
}

/* --- a new repository ------------------------------------------------------------------ */

static int write_file_unless_exists(const char *gitdir, const char *name, const char *content)
{
	struct wg_buf path = WG_BUF_INIT;
	int err;

	if (!(err = wg_fs_join(&path, gitdir, name)) && !wg_fs_exists(wg_buf_cstr(&path)))
		err = wg_fs_write_new_file(wg_buf_cstr(&path), content, strlen(content), 0666);
	wg_buf_release(&path);
	return err;
}

struct head_arg {
	const char *target;
};

static int write_head(struct wg_reftable_writer *w, void *payload)
{
	struct head_arg *a = payload;
	struct wg_reftable_ref rec = { 0 };

	rec.refname = "HEAD";
	rec.update_index = wg_reftable_writer_min_update_index(w);
	rec.type = WG_REFTABLE_REF_SYMREF;
	rec.target = (char *)a->target;
	return wg_reftable_writer_add_ref(w, &rec);
}

int wg_refdb_reftable_init(const char *gitdir, const struct wg_hash_algo *algo,
			   const char *head_target)
{
	struct wg_reftable_stack *st = NULL;
	struct wg_reftable_ref rec = { 0 };
	struct wg_buf path = WG_BUF_INIT;
	struct head_arg a = { head_target };
	int err;

	/* git's layout: HEAD and refs/heads exist so that older gits and
	 * tools still recognise a repository, but name nothing usable. */
	if ((err = wg_fs_join(&path, gitdir, "reftable")) ||
	    (err = wg_fs_mkdir_p(wg_buf_cstr(&path))) ||
	    (err = wg_fs_join(&path, gitdir, "refs")) ||
	    (err = wg_fs_mkdir_p(wg_buf_cstr(&path))) ||
	    (err = write_file_unless_exists(gitdir, "HEAD", "ref: refs/heads/.invalid\n")) ||
	    (err = write_file_unless_exists(gitdir, "refs/heads",
					    "this repository uses the reftable format\n")) ||
	    (err = open_stack(&st, gitdir, algo, false)))
		goto done;
	/* Re-initialising keeps an existing HEAD, as with the files format. */
	err = wg_reftable_merged_read_ref(&rec, wg_reftable_stack_merged(st), "HEAD");
	if (err == WG_ENOTFOUND) {
		wg_error_clear();
		err = wg_reftable_stack_add(st, 0, write_head, &a);
	}
done:
	wg_reftable_ref_release(&rec);
	wg_reftable_stack_free(st);
	wg_buf_release(&path);
	return err;
}
