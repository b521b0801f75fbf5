/* The backend-independent half of the ref database: name checks, symref
 * resolution, transaction queueing and splitting, reflog line parsing. */
#include "refs/refdb_backend.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/ident.h"
#include "refs/refname.h"
#include "util/alloc.h"
#include "util/error.h"

struct wg_refdb {
	char *gitdir;
	enum wg_ref_format format;
	const struct wg_hash_algo *algo;
	struct wg_refdb_options opts;   /* strings owned below */
	char *name, *email, *date;
	struct wg_refdb_backend *backend;
};

static char *dup_or_null(const char *s, bool *oom)
{
	char *d;
	if (!s)
		return NULL;
	if (!(d = wg_strdup(s)))
		*oom = true;
	return d;
}

int wg_refdb_open(struct wg_refdb **out, const char *gitdir, enum wg_ref_format format,
		  const struct wg_hash_algo *algo, const struct wg_refdb_options *opts)
{
	static const struct wg_refdb_options defaults = WG_REFDB_OPTIONS_INIT;
	struct wg_refdb_config cfg;
	struct wg_refdb *db;
	bool oom = false;
	int err;

	if (!opts)
		opts = &defaults;
	if (opts->version != WG_REFDB_OPTIONS_VERSION)
		return wg_error_set(WG_EINVALID, "unsupported refdb options version %u",
				    opts->version);
	if (!(db = wg_calloc(1, sizeof(*db))))
		return wg_error_set(WG_ENOMEM, "out of memory opening the ref database");
	db->gitdir = dup_or_null(gitdir, &oom);
	db->opts = *opts;
	db->opts.committer_name = db->name = dup_or_null(opts->committer_name, &oom);
	db->opts.committer_email = db->email = dup_or_null(opts->committer_email, &oom);
	db->opts.committer_date = db->date = dup_or_null(opts->committer_date, &oom);
	if (oom || !db->gitdir) {
		wg_refdb_free(db);
		return wg_error_set(WG_ENOMEM, "out of memory opening the ref database");
	}
	db->format = format;
	db->algo = algo;
	cfg.gitdir = db->gitdir;
	cfg.algo = algo;
	cfg.opts = &db->opts;
	if (format == WG_REF_FORMAT_FILES)
		err = wg_refdb_files_new(&db->backend, &cfg);
	else if (format == WG_REF_FORMAT_REFTABLE)
		err = wg_refdb_reftable_new(&db->backend, &cfg);
	else
		err = wg_error_set(WG_EUNSUPPORTED, "unknown ref storage format %d", (int)format);
	if (err) {
		wg_refdb_free(db);
		return err;
	}
	*out = db;
	return 0;
}

void wg_refdb_free(struct wg_refdb *db)
{
	if (!db)
		return;
	if (db->backend)
		db->backend->free(db->backend);
	wg_free(db->gitdir);
	wg_free(db->name);
	wg_free(db->email);
	wg_free(db->date);
	wg_free(db);
}

const struct wg_hash_algo *wg_refdb_algo(const struct wg_refdb *db) { return db->algo; }
enum wg_ref_format wg_refdb_format(const struct wg_refdb *db) { return db->format; }

void wg_ref_release(struct wg_ref *ref)
{
	if (!ref)
		return;
	wg_free(ref->name);
	wg_free(ref->target);
	memset(ref, 0, sizeof(*ref));
}

/* git's is_root_ref_syntax(): upper case letters and '_' only. Git reads
 * any such name as a pseudo/root ref from the git directory. */
bool wg_refname_is_root(const char *name)
{
	const char *p;
	for (p = name; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || *p == '_'))
			return false;
	return p != name;
}

bool wg_refdb_name_is_valid(const char *name)
{
	if (!strncmp(name, "refs/", 5))
		return wg_refname_is_valid(name, 0);
	return wg_refname_is_root(name);
}

static int check_name(const char *name)
{
	if (wg_refdb_name_is_valid(name))
		return 0;
	return wg_error_set(WG_EINVALID, "refusing to update ref with bad name '%s'", name);
}

bool wg_refdb_should_autocreate_reflog(const struct wg_refdb_options *opts, const char *name)
{
	switch (opts->log_all_ref_updates) {
	case WG_LOG_REFS_ALWAYS:
		return true;
	case WG_LOG_REFS_NORMAL:
		return !strncmp(name, "refs/heads/", 11) || !strncmp(name, "refs/remotes/", 13) ||
		       !strncmp(name, "refs/notes/", 11) || !strcmp(name, "HEAD");
	default:
		return false;
	}
}

/* --- reading -------------------------------------------------------------- */

int wg_refdb_read(struct wg_ref *out, struct wg_refdb *db, const char *name)
{
	memset(out, 0, sizeof(*out));
	if (!wg_refdb_name_is_valid(name))
		return wg_error_set(WG_EINVALID, "'%s' is not a valid ref name", name);
	return db->backend->read(db->backend, out, name);
}

int wg_refdb_resolve(struct wg_oid *out, char **resolved_name, struct wg_refdb *db,
		     const char *name, unsigned flags)
{
	struct wg_ref ref;
	char *current = wg_strdup(name);
	int depth, err = 0;
	if (!current)
		return wg_error_set(WG_ENOMEM, "out of memory");
	for (depth = 0;; depth++) {
		if (depth > WG_SYMREF_MAX_DEPTH) {
			err = wg_error_set(WG_ECORRUPT, "too many levels of symbolic refs at %s",
					   name);
			break;
		}
		err = wg_refdb_read(&ref, db, current);
		if (err == WG_ENOTFOUND && (flags & WG_RESOLVE_ALLOW_MISSING)) {
			wg_error_clear();
			wg_oid_null(out, db->algo);
			err = 0;
			break;
		}
		if (err)
			break;
		if (!ref.symbolic) {
			*out = ref.oid;
			wg_ref_release(&ref);
			break;
		}
		wg_free(current);
		current = ref.target;
		ref.target = NULL;
		wg_ref_release(&ref);
	}
	if (!err && resolved_name)
		*resolved_name = current;
	else
		wg_free(current);
	return err;
}

/* --- iteration ------------------------------------------------------------ */

int wg_refdb_iter_new(struct wg_ref_iter **out, struct wg_refdb *db, const char *prefix)
{
	return db->backend->iter(out, db->backend, prefix ? prefix : "");
}

int wg_ref_iter_next(const struct wg_ref **out, struct wg_ref_iter *it)
{
	return it->next(out, it);
}

void wg_ref_iter_free(struct wg_ref_iter *it)
{
	if (it)
		it->free(it);
}

/* --- reflogs --------------------------------------------------------------- */

void wg_reflog_entry_release(struct wg_reflog_entry *e)
{
	if (!e)
		return;
	wg_free(e->committer);
	wg_free(e->message);
	memset(e, 0, sizeof(*e));
}

int wg_reflog_parse_line(struct wg_reflog_entry *out, const struct wg_hash_algo *algo,
			 const char *line, size_t len)
{
	size_t hexsz = algo->hexsz;
	const char *p, *end = line + len, *tab, *gt, *q;
	char *num_end;
	char tzbuf[8];
	long tz;

	memset(out, 0, sizeof(*out));
	if (len < 2 * hexsz + 2 || line[hexsz] != ' ' || line[2 * hexsz + 1] != ' ' ||
	    wg_oid_from_hex(&out->old_oid, algo, line) ||
	    wg_oid_from_hex(&out->new_oid, algo, line + hexsz + 1))
		goto bad;
	p = line + 2 * hexsz + 2;
	tab = memchr(p, '\t', (size_t)(end - p));
	if (!tab)
		tab = end;
	/* The ident ends with "> <time> <tz>"; find the last '>' before the tab. */
	for (gt = tab; gt > p && gt[-1] != '>'; gt--)
		;
	if (gt == p)
		goto bad;
	if (!(out->committer = wg_strndup(p, (size_t)(gt - p))))
		goto oom;
	q = gt;
	while (q < tab && *q == ' ')
		q++;
	{
		char numbuf[32];
		size_t n = 0;
		while (q < tab && *q >= '0' && *q <= '9' && n < sizeof(numbuf) - 1)
			numbuf[n++] = *q++;
		numbuf[n] = '\0';
		if (!n)
			goto bad;
		out->time = (int64_t)strtoll(numbuf, &num_end, 10);
	}
	while (q < tab && *q == ' ')
		q++;
	if (tab - q == 5 && (*q == '+' || *q == '-')) {
		memcpy(tzbuf, q + 1, 4);
		tzbuf[4] = '\0';
		tz = strtol(tzbuf, &num_end, 10);
		if (*num_end)
			goto bad;
		out->tz = (int)((tz / 100) * 60 + tz % 100) * (*q == '-' ? -1 : 1);
	} else if (q != tab) {
		goto bad;
	}
	if (tab < end)
		out->message = wg_strndup(tab + 1, (size_t)(end - tab - 1));
	else
		out->message = wg_strdup("");
	if (!out->message)
		goto oom;
	return 0;
oom:
	wg_reflog_entry_release(out);
	return wg_error_set(WG_ENOMEM, "out of memory");
bad:
	wg_reflog_entry_release(out);
	return wg_error_set(WG_ECORRUPT, "bad reflog entry '%.*s'", (int)(len > 200 ? 200 : len),
			    line);
}

int wg_reflog_iter_new(struct wg_reflog_iter **out, struct wg_refdb *db, const char *name,
		       unsigned flags)
{
	if (!wg_refdb_name_is_valid(name))
		return wg_error_set(WG_EINVALID, "'%s' is not a valid ref name", name);
	return db->backend->reflog_iter(out, db->backend, name, flags);
}

int wg_reflog_iter_next(const struct wg_reflog_entry **out, struct wg_reflog_iter *it)
{
	return it->next(out, it);
}

void wg_reflog_iter_free(struct wg_reflog_iter *it)
{
	if (it)
		it->free(it);
}

int wg_refdb_reflog_exists(struct wg_refdb *db, const char *name)
{
	if (!wg_refdb_name_is_valid(name))
		return 0;
	return db->backend->reflog_exists(db->backend, name);
}

int wg_refdb_reflog_create(struct wg_refdb *db, const char *name)
{
	int err;
	if ((err = check_name(name)))
		return err;
	return db->backend->reflog_create(db->backend, name);
}

int wg_refdb_reflog_delete(struct wg_refdb *db, const char *name)
{
	int err;
	if ((err = check_name(name)))
		return err;
	return db->backend->reflog_delete(db->backend, name);
}

/* --- transactions ---------------------------------------------------------- */

enum { TX_OPEN = 0, TX_PREPARED = 1, TX_CLOSED = 2 };

int wg_ref_transaction_new(struct wg_ref_transaction **out, struct wg_refdb *db)
{
	struct wg_ref_transaction *tx = wg_calloc(1, sizeof(*tx));
	if (!tx)
		return wg_error_set(WG_ENOMEM, "out of memory");
	tx->refdb = db;
	*out = tx;
	return 0;
}

static void update_free(struct wg_ref_update *u)
{
	if (!u)
		return;
	wg_free(u->name);
	wg_free(u->new_target);
	wg_free(u->old_target);
	wg_free(u->msg);
	wg_free(u);
}

void wg_ref_transaction_abort(struct wg_ref_transaction *tx)
{
	if (!tx)
		return;
	if (tx->state == TX_PREPARED)
		tx->refdb->backend->abort(tx->refdb->backend, tx);
	tx->state = TX_CLOSED;
}

void wg_ref_transaction_free(struct wg_ref_transaction *tx)
{
	size_t i;
	if (!tx)
		return;
	wg_ref_transaction_abort(tx);
	for (i = 0; i < tx->nr; i++)
		update_free(tx->updates[i]);
	wg_free(tx->updates);
	wg_free(tx->committer);
	wg_free(tx);
}

size_t wg_ref_transaction_count(const struct wg_ref_transaction *tx)
{
	return tx->nr;
}

/* git's copy_reflog_msg(): runs of whitespace become one space, leading
 * and trailing whitespace go, so a message never breaks the line format. */
static char *normalize_msg(const char *msg)
{
	size_t n = msg ? strlen(msg) : 0, o = 0, i;
	char *out = wg_malloc(n + 1);
	bool wasspace = true;
	if (!out)
		return NULL;
	for (i = 0; i < n; i++) {
		char c = msg[i];
		bool sp = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
			  c == '\f';
		if (wasspace && sp)
			continue;
		wasspace = sp;
		out[o++] = sp ? ' ' : c;
	}
	while (o && out[o - 1] == ' ')
		o--;
	out[o] = '\0';
	return out;
}

static int add_update(struct wg_ref_update **out, struct wg_ref_transaction *tx,
		      const char *name, unsigned flags, const struct wg_oid *new_oid,
		      const struct wg_oid *old_oid, const char *new_target,
		      const char *old_target, const char *msg)
{
	struct wg_ref_update *u;
	if (tx->state != TX_OPEN)
		return wg_error_set(WG_EINVALID, "the transaction is already %s",
				    tx->state == TX_PREPARED ? "prepared" : "closed");
	if (tx->nr == tx->alloc) {
		size_t alloc = tx->alloc ? tx->alloc * 2 : 16;
		struct wg_ref_update **n = wg_realloc(tx->updates, alloc * sizeof(*n));
		if (!n)
			return wg_error_set(WG_ENOMEM, "out of memory");
		tx->updates = n;
		tx->alloc = alloc;
	}
	if (!(u = wg_calloc(1, sizeof(*u))))
		return wg_error_set(WG_ENOMEM, "out of memory");
	u->flags = flags;
	if (new_oid) {
		u->new_oid = *new_oid;
		u->flags |= WG_REF_HAVE_NEW;
	}
	if (old_oid) {
		u->old_oid = *old_oid;
		u->flags |= WG_REF_HAVE_OLD;
	}
	u->name = wg_strdup(name);
	u->new_target = new_target ? wg_strdup(new_target) : NULL;
	u->old_target = old_target ? wg_strdup(old_target) : NULL;
	u->msg = normalize_msg(msg);
	wg_oid_null(&u->current, tx->refdb->algo);
	if (!u->name || !u->msg || (new_target && !u->new_target) ||
	    (old_target && !u->old_target)) {
		update_free(u);
		return wg_error_set(WG_ENOMEM, "out of memory");
	}
	tx->updates[tx->nr++] = u;
	if (out)
		*out = u;
	return 0;
}

static int check_oid_algo(struct wg_ref_transaction *tx, const struct wg_oid *oid)
{
	if (oid && wg_oid_algo(oid) != tx->refdb->algo)
		return wg_error_set(WG_EINVALID, "object id %s is not a %s id", wg_oid_hex(oid),
				    tx->refdb->algo->name);
	return 0;
}

int wg_ref_transaction_update(struct wg_ref_transaction *tx, const char *name,
			      const struct wg_oid *new_oid, const struct wg_oid *old_oid,
			      unsigned flags, const char *msg)
{
	int err;
	if ((err = check_name(name)) || (err = check_oid_algo(tx, new_oid)) ||
	    (err = check_oid_algo(tx, old_oid)))
		return err;
	flags &= WG_REF_NO_DEREF | WG_REF_FORCE_REFLOG | WG_REF_SKIP_REFLOG;
	return add_update(NULL, tx, name, flags, new_oid, old_oid, NULL, NULL, msg);
}

int wg_ref_transaction_create(struct wg_ref_transaction *tx, const char *name,
			      const struct wg_oid *new_oid, unsigned flags, const char *msg)
{
	struct wg_oid null;
	wg_oid_null(&null, tx->refdb->algo);
	if (!new_oid || wg_oid_is_null(new_oid))
		return wg_error_set(WG_EINVALID, "create %s: zero new value", name);
	return wg_ref_transaction_update(tx, name, new_oid, &null, flags, msg);
}

int wg_ref_transaction_delete(struct wg_ref_transaction *tx, const char *name,
			      const struct wg_oid *old_oid, unsigned flags, const char *msg)
{
	struct wg_oid null;
	wg_oid_null(&null, tx->refdb->algo);
	if (old_oid && wg_oid_is_null(old_oid))
		return wg_error_set(WG_EINVALID, "delete %s: zero old value", name);
	return wg_ref_transaction_update(tx, name, &null, old_oid, flags, msg);
}

int wg_ref_transaction_verify(struct wg_ref_transaction *tx, const char *name,
			      const struct wg_oid *old_oid, unsigned flags)
{
	struct wg_oid null;
	if (!old_oid) {
		wg_oid_null(&null, tx->refdb->algo);
		old_oid = &null;
	}
	return wg_ref_transaction_update(tx, name, NULL, old_oid, flags, NULL);
}

int wg_ref_transaction_symref_update(struct wg_ref_transaction *tx, const char *name,
				     const char *new_target, const char *old_target,
				     unsigned flags, const char *msg)
{
	int err;
	if ((err = check_name(name)))
		return err;
	if (!new_target || !wg_refdb_name_is_valid(new_target))
		return wg_error_set(WG_EINVALID, "refusing to point %s at bad name '%s'", name,
				    new_target ? new_target : "");
	if (old_target && !wg_refdb_name_is_valid(old_target))
		return wg_error_set(WG_EINVALID, "invalid old target '%s' for %s", old_target,
				    name);
	flags &= WG_REF_NO_DEREF | WG_REF_FORCE_REFLOG | WG_REF_SKIP_REFLOG;
	return add_update(NULL, tx, name, flags | WG_REF_HAVE_NEW, NULL, NULL, new_target,
			  old_target, msg);
}

int wg_ref_transaction_set_committer(struct wg_ref_transaction *tx, const char *ident)
{
	char *c = wg_strdup(ident);
	if (!c)
		return wg_error_set(WG_ENOMEM, "out of memory");
	wg_free(tx->committer);
	tx->committer = c;
	return 0;
}

/* The reflog identity the options give ("Name <email> time tz"). */
static int format_committer(char **out, const struct wg_refdb *db)
{
	const struct wg_refdb_options *o = &db->opts;
	struct wg_buf ident = WG_BUF_INIT;
	int err;
	err = wg_ident_format(&ident, o->committer_name ? o->committer_name : "unknown",
			      o->committer_email ? o->committer_email : "", o->committer_date);
	if (err) {
		wg_buf_release(&ident);
		return err == WG_EINVALID ? wg_error_prefix("invalid committer date") : err;
	}
	if (!(*out = (char *)wg_buf_detach(&ident, NULL)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	return 0;
}

static int make_committer(struct wg_ref_transaction *tx)
{
	if (tx->committer)
		return 0;
	return format_committer(&tx->committer, tx->refdb);
}

const char *wg_ref_update_original_name(const struct wg_ref_transaction *tx,
					const struct wg_ref_update *u)
{
	size_t i;
	bool again = true;
	/* Walk back from a split-off update to the one the caller queued. */
	while (again) {
		again = false;
		for (i = 0; i < tx->nr; i++) {
			const struct wg_ref_update *v = tx->updates[i];
			if (v->parent == u && (v->flags & WG_REF_LOG_ONLY) &&
			    !(v->flags & WG_REF_LOG_VIA_SPLIT)) {
				u = v;
				again = true;
				break;
			}
		}
	}
	return u->name;
}

int wg_ref_update_error(const struct wg_ref_transaction *tx, const struct wg_ref_update *u,
			int code, const char *fmt, ...)
{
	char reason[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	return wg_error_set(code, "cannot lock ref '%s': %s",
			    wg_ref_update_original_name(tx, u), reason);
}

int wg_ref_update_check(const struct wg_ref_transaction *tx, const struct wg_ref_update *u,
			const struct wg_ref *cur, bool exists)
{
	char a[WG_MAX_HEXSZ + 1], b[WG_MAX_HEXSZ + 1];

	if (u->flags & WG_REF_LOG_ONLY)
		return 0;
	if ((u->flags & WG_REF_HAVE_OLD) && !wg_oid_is_null(&u->old_oid) && !exists)
		return wg_ref_update_error(tx, u, WG_ENOTFOUND, "unable to resolve reference '%s'",
					   u->name);
	if (u->old_target) {
		if (!cur->symbolic)
			return wg_ref_update_error(tx, u, WG_EEXISTS, exists ?
						   "expected symref with target '%s': but is a "
						   "regular ref" : "expected symref with target "
						   "'%s': but is missing", u->old_target);
		if (strcmp(cur->target, u->old_target))
			return wg_ref_update_error(tx, u, WG_EEXISTS, "is at %s but expected %s",
						   cur->target, u->old_target);
		return 0;
	}
	if ((u->flags & WG_REF_HAVE_OLD) && !wg_oid_equal(&u->current, &u->old_oid)) {
		if (wg_oid_is_null(&u->old_oid))
			return wg_ref_update_error(tx, u, WG_EEXISTS, "reference already exists");
		if (wg_oid_is_null(&u->current))
			return wg_ref_update_error(tx, u, WG_ENOTFOUND, "reference is missing but "
						   "expected %s", wg_oid_to_hex(&u->old_oid, a));
		return wg_ref_update_error(tx, u, WG_EEXISTS, "is at %s but expected %s",
					   wg_oid_to_hex(&u->current, a),
					   wg_oid_to_hex(&u->old_oid, b));
	}
	if ((u->flags & WG_REF_HAVE_OLD) && cur->symbolic && (u->flags & WG_REF_NO_DEREF) &&
	    wg_oid_is_null(&u->old_oid))
		return wg_ref_update_error(tx, u, WG_EEXISTS, "dangling symref already exists");
	return 0;
}

struct wg_ref_update *wg_ref_transaction_find(const struct wg_ref_transaction *tx,
					      const char *name, size_t len)
{
	size_t lo = 0, hi = tx->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *n = tx->updates[mid]->name;
		int c = strncmp(n, name, len);
		if (!c && n[len])
			c = 1;
		if (!c)
			return tx->updates[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

bool wg_ref_transaction_deletes(const struct wg_ref_transaction *tx, const char *name,
				size_t len)
{
	const struct wg_ref_update *u = wg_ref_transaction_find(tx, name, len);
	return u && (u->flags & WG_REF_DELETING) && !(u->flags & WG_REF_LOG_ONLY);
}

static int cmp_update(const void *a, const void *b)
{
	const struct wg_ref_update *x = *(const struct wg_ref_update *const *)a;
	const struct wg_ref_update *y = *(const struct wg_ref_update *const *)b;
	return strcmp(x->name, y->name);
}

static struct wg_ref_update *find_update(struct wg_ref_transaction *tx, size_t nr,
					 const char *name)
{
	size_t i;
	for (i = 0; i < nr; i++)
		if (!strcmp(tx->updates[i]->name, name))
			return tx->updates[i];
	return NULL;
}

/* Split symref updates the way git's files backend does, before sorting:
 * an update of a symref (without NO_DEREF) becomes a LOG_ONLY update of the
 * symref plus a real update of its referent; an update of the branch that
 * HEAD names also logs to HEAD. Reading the symrefs here, before locking,
 * is what git does too (it re-checks under the lock). */
static int split_updates(struct wg_ref_transaction *tx)
{
	struct wg_refdb *db = tx->refdb;
	struct wg_ref head;
	char *head_ref = NULL;
	size_t i, orig = tx->nr;
	int err = 0;

	/* Duplicates among the caller's own updates first: git's message. */
	if (orig > 1) {
		struct wg_ref_update **sorted = wg_malloc(orig * sizeof(*sorted));
		if (!sorted)
			return wg_error_set(WG_ENOMEM, "out of memory");
		memcpy(sorted, tx->updates, orig * sizeof(*sorted));
		qsort(sorted, orig, sizeof(*sorted), cmp_update);
		for (i = 1; i < orig && !err; i++)
			if (!strcmp(sorted[i - 1]->name, sorted[i]->name))
				err = wg_error_set(WG_EINVALID, "multiple updates for ref '%s' "
						   "not allowed", sorted[i]->name);
		wg_free(sorted);
		if (err)
			return err;
	}
	if (!wg_refdb_read(&head, db, "HEAD")) {
		if (head.symbolic) {
			head_ref = head.target;
			head.target = NULL;
		}
		wg_ref_release(&head);
	}
	wg_error_clear();

	for (i = 0; i < tx->nr && !err; i++) {
		struct wg_ref_update *u = tx->updates[i], *n;
		struct wg_ref cur;
		if (u->flags & WG_REF_LOG_ONLY)
			continue;
		if (!(u->flags & WG_REF_NO_DEREF)) {
			int rerr = wg_refdb_read(&cur, db, u->name);
			if (rerr && rerr != WG_ENOTFOUND) {
				err = rerr;
				break;
			}
			wg_error_clear();
			if (!rerr && cur.symbolic) {
				unsigned nflags = u->flags & ~(WG_REF_LOG_ONLY);
				if (find_update(tx, tx->nr, cur.target)) {
					err = wg_error_set(WG_EINVALID, "multiple updates for '%s' "
							   "(including one via symref '%s') "
							   "are not allowed", cur.target, u->name);
					wg_ref_release(&cur);
					break;
				}
				if (!strcmp(u->name, "HEAD"))
					nflags |= WG_REF_VIA_HEAD;
				err = add_update(&n, tx, cur.target, nflags & ~(WG_REF_HAVE_NEW |
						 WG_REF_HAVE_OLD),
						 (u->flags & WG_REF_HAVE_NEW) && !u->new_target ?
						 &u->new_oid : NULL,
						 (u->flags & WG_REF_HAVE_OLD) ? &u->old_oid : NULL,
						 u->new_target, u->old_target, u->msg);
				wg_ref_release(&cur);
				if (err)
					break;
				if (u->new_target)
					n->flags |= WG_REF_HAVE_NEW;
				/* add_update() may have moved the array; re-fetch u. */
				u = tx->updates[i];
				u->flags |= WG_REF_LOG_ONLY | WG_REF_NO_DEREF;
				u->parent = n;
				continue;
			}
			if (!rerr)
				wg_ref_release(&cur);
		}
		if (head_ref && !strcmp(u->name, head_ref) && !(u->flags & WG_REF_VIA_HEAD) &&
		    !u->new_target && (u->flags & WG_REF_HAVE_NEW)) {
			if (find_update(tx, tx->nr, "HEAD")) {
				err = wg_error_set(WG_EINVALID, "multiple updates for 'HEAD' "
						   "(including one via its referent '%s') are "
						   "not allowed", u->name);
				break;
			}
			err = add_update(&n, tx, "HEAD", (u->flags & ~(WG_REF_HAVE_NEW |
					 WG_REF_HAVE_OLD)) | WG_REF_LOG_ONLY | WG_REF_NO_DEREF |
					 WG_REF_LOG_VIA_SPLIT,
					 (u->flags & WG_REF_HAVE_NEW) ? &tx->updates[i]->new_oid : NULL,
					 NULL, NULL, NULL, tx->updates[i]->msg);
			if (!err)
				n->parent = tx->updates[i];
		}
	}
	wg_free(head_ref);
	return err;
}

int wg_ref_transaction_prepare(struct wg_ref_transaction *tx)
{
	struct wg_refdb_backend *b = tx->refdb->backend;
	size_t i;
	int err;
	if (tx->state != TX_OPEN)
		return wg_error_set(WG_EINVALID, "the transaction is already %s",
				    tx->state == TX_PREPARED ? "prepared" : "closed");
	if ((err = make_committer(tx)) || (err = split_updates(tx))) {
		tx->state = TX_CLOSED;
		return err;
	}
	for (i = 0; i < tx->nr; i++) {
		struct wg_ref_update *u = tx->updates[i];
		if ((u->flags & WG_REF_HAVE_NEW) && !u->new_target && wg_oid_is_null(&u->new_oid))
			u->flags |= WG_REF_DELETING;
	}
	if (tx->nr > 1)
		qsort(tx->updates, tx->nr, sizeof(*tx->updates), cmp_update);
	for (i = 1; i < tx->nr; i++)
		if (!strcmp(tx->updates[i - 1]->name, tx->updates[i]->name)) {
			tx->state = TX_CLOSED;
			return wg_error_set(WG_EINVALID, "multiple updates for ref '%s' not allowed",
					    tx->updates[i]->name);
		}
	/* Two updates where one name is a directory of the other. */
	for (i = 0; i < tx->nr; i++) {
		const char *name = tx->updates[i]->name, *p;
		if (tx->updates[i]->flags & WG_REF_LOG_ONLY)
			continue;
		for (p = strchr(name, '/'); p; p = strchr(p + 1, '/')) {
			struct wg_ref_update *o = wg_ref_transaction_find(tx, name,
									  (size_t)(p - name));
			if (o && !(o->flags & WG_REF_LOG_ONLY)) {
				tx->state = TX_CLOSED;
				return wg_error_set(WG_EEXISTS, "cannot process '%s' and '%s' at "
						    "the same time", o->name, name);
			}
		}
	}
	if ((err = b->prepare(b, tx))) {
		/* The backend released whatever it had locked. */
		tx->state = TX_CLOSED;
		return err;
	}
	tx->state = TX_PREPARED;
	return 0;
}

int wg_ref_transaction_commit(struct wg_ref_transaction *tx)
{
	struct wg_refdb_backend *b = tx->refdb->backend;
	int err;
	if (tx->state == TX_OPEN && (err = wg_ref_transaction_prepare(tx)))
		return err;
	if (tx->state != TX_PREPARED)
		return wg_error_set(WG_EINVALID, "the transaction is closed");
	err = b->finish(b, tx);
	tx->state = TX_CLOSED;
	return err;
}

int wg_refdb_update(struct wg_refdb *db, const char *name, const struct wg_oid *new_oid,
		    const struct wg_oid *old_oid, unsigned flags, const char *msg)
{
	struct wg_ref_transaction *tx = NULL;
	int err;
	if (!(err = wg_ref_transaction_new(&tx, db)) &&
	    !(err = wg_ref_transaction_update(tx, name, new_oid, old_oid, flags, msg)))
		err = wg_ref_transaction_commit(tx);
	wg_ref_transaction_free(tx);
	return err;
}

int wg_refdb_delete(struct wg_refdb *db, const char *name, const struct wg_oid *old_oid,
		    unsigned flags, const char *msg)
{
	struct wg_ref_transaction *tx = NULL;
	int err;
	if (!(err = wg_ref_transaction_new(&tx, db)) &&
	    !(err = wg_ref_transaction_delete(tx, name, old_oid, flags, msg)))
		err = wg_ref_transaction_commit(tx);
	wg_ref_transaction_free(tx);
	return err;
}

int wg_refdb_symref_update(struct wg_refdb *db, const char *name, const char *target,
			   const char *msg)
{
	struct wg_ref_transaction *tx = NULL;
	int err;
	if (!(err = wg_ref_transaction_new(&tx, db)) &&
	    !(err = wg_ref_transaction_symref_update(tx, name, target, NULL, WG_REF_NO_DEREF,
						     msg)))
		err = wg_ref_transaction_commit(tx);
	wg_ref_transaction_free(tx);
	return err;
}

int wg_refdb_init(const char *gitdir, enum wg_ref_format format,
		  const struct wg_hash_algo *algo, const char *head_target)
{
	if (!wg_refdb_name_is_valid(head_target))
		return wg_error_set(WG_EINVALID, "invalid HEAD target '%s'", head_target);
	if (format == WG_REF_FORMAT_FILES)
		return wg_refdb_files_init(gitdir, head_target);
	if (format == WG_REF_FORMAT_REFTABLE)
		return wg_refdb_reftable_init(gitdir, algo, head_target);
	return wg_error_set(WG_EUNSUPPORTED, "unknown ref storage format %d", (int)format);
}

/* --- renaming ------------------------------------------------------------------- */

int wg_refdb_rename(struct wg_refdb *db, const char *old_name, const char *new_name,
		    unsigned flags, const char *msg)
{
	struct wg_ref_rename r;
	struct wg_ref cur;
	char *nmsg = NULL, *committer = NULL;
	int err;

	memset(&r, 0, sizeof(r));
	if ((err = check_name(old_name)) || (err = check_name(new_name)))
		return err;
	if (!db->backend->rename)
		return wg_error_set(WG_EUNSUPPORTED, "this ref storage cannot rename refs");
	/* git's wording (files_copy_or_rename_ref). */
	err = wg_refdb_read(&cur, db, old_name);
	if (err == WG_ENOTFOUND)
		return wg_error_set(WG_ENOTFOUND, "refname %s not found", old_name);
	if (err)
		return err;
	r.oid = cur.oid;
	if (cur.symbolic) {
		wg_ref_release(&cur);
		return wg_error_set(WG_EINVALID, "refname %s is a symbolic ref, %s it is not "
				    "supported", old_name, (flags & WG_REF_RENAME_COPY) ?
				    "copying" : "renaming");
	}
	wg_ref_release(&cur);
	/* Onto itself: git goes through the whole rename (the files backend
	 * logs it); the backend sees no existing target. */
	err = strcmp(old_name, new_name) ? wg_refdb_read(&cur, db, new_name) : WG_ENOTFOUND;
	if (!err) {
		wg_ref_release(&cur);
		if (!(flags & WG_REF_RENAME_FORCE))
			return wg_error_set(WG_EEXISTS, "cannot lock ref '%s': reference already "
					    "exists", new_name);
		r.new_exists = true;
	} else if (err != WG_ENOTFOUND) {
		return err;
	}
	wg_error_clear();
	if (!(nmsg = normalize_msg(msg)))
		return wg_error_set(WG_ENOMEM, "out of memory");
	if ((err = format_committer(&committer, db))) {
		wg_free(nmsg);
		return err;
	}
	r.old_name = old_name;
	r.new_name = new_name;
	r.copy = (flags & WG_REF_RENAME_COPY) != 0;
	r.msg = nmsg;
	r.committer = committer;
	err = db->backend->rename(db->backend, db, &r);
	wg_free(nmsg);
	wg_free(committer);
	return err;
}

/* --- maintenance ------------------------------------------------------------ */

int wg_refdb_pack(struct wg_refdb *db, unsigned flags)
{
	return db->backend->pack(db->backend, flags);
}

int wg_refdb_verify(struct wg_refdb *db, wg_refdb_verify_cb cb, void *payload)
{
	return db->backend->verify(db->backend, cb, payload);
}
