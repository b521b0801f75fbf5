/* reftable_tool: a small driver over core/refs/reftable.h for the interop
 * test t8-reftable-format.sh (format-level checks against the reference git,
 * independent of the refs CLI).
 *
 *   reftable_tool [--sha256] refs DIR|FILE     "<oid> <name>" (+ "<peeled> <name>^{}"),
 *                                               "ref: <target> <name>" for symrefs
 *   reftable_tool [--sha256] logs DIR|FILE     files-backend reflog lines per ref:
 *                                               "<name>\t<old> <new> <who> <time> <tz>\t<msg>"
 *   reftable_tool [--sha256] add DIR           one table from stdin lines, tab-separated:
 *        ref NAME OID | peeled NAME OID PEELED | symref NAME TARGET | delete NAME |
 *        log NAME OLD NEW NAME EMAIL TIME TZ MSG
 *   reftable_tool [--sha256] compact DIR       full compaction (pack-refs)
 *   reftable_tool [--sha256] auto-compact DIR
 *   reftable_tool [--sha256] verify DIR|FILE   structure check of every table
 *   reftable_tool [--sha256] count DIR         number of tables in the stack
 *   reftable_tool [--sha256] bench DIR N       timings for the 1M-ref figures */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "reftable/reftable.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"

static const struct wg_hash_algo *algo;

static int die_err(const char *what, int err)
{
	fprintf(stderr, "reftable_tool: %s: %s (%s)\n", what, wg_error_message(),
		wg_error_name(err));
	return 1;
}

static void print_ref(const struct wg_reftable_ref *r)
{
	switch (r->type) {
	case WG_REFTABLE_REF_VAL1:
		printf("%s %s\n", wg_oid_hex(&r->value), r->refname);
		break;
	case WG_REFTABLE_REF_VAL2:
		printf("%s %s\n", wg_oid_hex(&r->value), r->refname);
		printf("%s %s^{}\n", wg_oid_hex(&r->peeled), r->refname);
		break;
	case WG_REFTABLE_REF_SYMREF:
		printf("ref: %s %s\n", r->target, r->refname);
		break;
	default:
		printf("deleted %s\n", r->refname);
		break;
	}
}

struct logline {
	char *ref;
	char *text;
};

static void print_log_entry(const struct wg_reftable_log *l, struct wg_buf *out)
{
	size_t mlen = l->message ? strlen(l->message) : 0;

	if (mlen && l->message[mlen - 1] == '\n')
		mlen--;
	/* tz_offset holds git's +HHMM as a decimal number */
	wg_buf_printf(out, "%s\t%s %s %s <%s> %llu %c%04d", l->refname, wg_oid_hex(&l->old_id),
		      wg_oid_hex(&l->new_id), l->name, l->email, (unsigned long long)l->time,
		      l->tz_offset < 0 ? '-' : '+', l->tz_offset < 0 ? -l->tz_offset : l->tz_offset);
	if (mlen)
		wg_buf_printf(out, "\t%.*s", (int)mlen, l->message);
	wg_buf_addch(out, '\n');
}

/* Open either a single table file or a stack directory as a merged view. */
static int open_view(struct wg_reftable_merged **m, struct wg_reftable_stack **st,
		     const char *path)
{
	struct wg_reftable_stack_options opts = WG_REFTABLE_STACK_OPTIONS_INIT;
	struct stat sb;
	int err;

	*st = NULL;
	if (!stat(path, &sb) && S_ISREG(sb.st_mode)) {
		struct wg_reftable_source *src;
		struct wg_reftable_table *t;
		if ((err = wg_reftable_source_from_file(&src, path)) ||
		    (err = wg_reftable_table_open(&t, src, path)))
			return err;
		err = wg_reftable_merged_new(m, &t, 1);
		wg_reftable_table_free(t);
		return err;
	}
	opts.algo = algo;
	opts.disable_auto_compact = true;
	if ((err = wg_reftable_stack_open(st, path, &opts)))
		return err;
	*m = wg_reftable_stack_merged(*st);
	return 0;
}

static int cmd_refs(const char *path)
{
	struct wg_reftable_merged *m;
	struct wg_reftable_stack *st;
	struct wg_reftable_iter *it;
	struct wg_reftable_ref r = { 0 };
	int err;

	if ((err = open_view(&m, &st, path)) || (err = wg_reftable_merged_iter_refs(&it, m, NULL)))
		return die_err(path, err);
	while (!(err = wg_reftable_iter_next_ref(&r, it)))
		print_ref(&r);
	wg_reftable_ref_release(&r);
	wg_reftable_iter_free(it);
	if (!st)
		wg_reftable_merged_free(m);
	wg_reftable_stack_free(st);
	return err == WG_ITEROVER ? 0 : die_err("iterating refs", err);
}

static int cmd_logs(const char *path)
{
	struct wg_reftable_merged *m;
	struct wg_reftable_stack *st;
	struct wg_reftable_iter *it;
	struct wg_reftable_log l = { 0 };
	struct wg_buf out = WG_BUF_INIT;
	struct logline *lines = NULL;
	size_t n = 0, cap = 0, i;
	int err;

	if ((err = open_view(&m, &st, path)) || (err = wg_reftable_merged_iter_logs(&it, m, NULL)))
		return die_err(path, err);
	/* Storage order is newest first; a files-backend reflog is oldest
	 * first: collect, then print each ref's entries reversed. */
	while (!(err = wg_reftable_iter_next_log(&l, it))) {
		wg_buf_reset(&out);
		print_log_entry(&l, &out);
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			lines = realloc(lines, cap * sizeof(*lines));
		}
		lines[n].ref = strdup(l.refname);
		lines[n].text = strdup(wg_buf_cstr(&out));
		n++;
	}
	for (i = 0; i < n;) {
		size_t j = i;
		while (j < n && !strcmp(lines[j].ref, lines[i].ref))
			j++;
		for (size_t k = j; k-- > i;)
			fputs(lines[k].text, stdout);
		i = j;
	}
	for (i = 0; i < n; i++) {
		free(lines[i].ref);
		free(lines[i].text);
	}
	free(lines);
	wg_buf_release(&out);
	wg_reftable_log_release(&l);
	wg_reftable_iter_free(it);
	if (!st)
		wg_reftable_merged_free(m);
	wg_reftable_stack_free(st);
	return err == WG_ITEROVER ? 0 : die_err("iterating logs", err);
}

struct input {
	struct wg_reftable_ref *refs;
	size_t nrefs;
	struct wg_reftable_log *logs;
	size_t nlogs;
};

static int cmp_ref(const void *a, const void *b)
{
	return strcmp(((const struct wg_reftable_ref *)a)->refname,
		      ((const struct wg_reftable_ref *)b)->refname);
}

static int cmp_log(const void *a, const void *b)
{
	const struct wg_reftable_log *x = a, *y = b;
	int c = strcmp(x->refname, y->refname);
	if (c)
		return c;
	return x->update_index > y->update_index ? -1 : x->update_index < y->update_index;
}

static int write_input(struct wg_reftable_writer *w, void *payload)
{
	struct input *in = payload;
	int err;

	for (size_t i = 0; i < in->nrefs; i++)
		if ((err = wg_reftable_writer_add_ref(w, &in->refs[i])))
			return err;
	for (size_t i = 0; i < in->nlogs; i++)
		if ((err = wg_reftable_writer_add_log(w, &in->logs[i])))
			return err;
	return 0;
}

static char *field(char **p)
{
	char *s = *p, *tab;

	if (!s)
		return NULL;
	tab = strchr(s, '\t');
	if (tab) {
		*tab = '\0';
		*p = tab + 1;
	} else {
		*p = NULL;
	}
	return s;
}

static int parse_oid(struct wg_oid *out, const char *hex)
{
	if (!hex || wg_oid_from_hex_str(out, algo, hex)) {
		fprintf(stderr, "reftable_tool: bad object id '%s'\n", hex ? hex : "");
		return -1;
	}
	return 0;
}

static int cmd_add(const char *dir)
{
	struct wg_reftable_stack_options opts = WG_REFTABLE_STACK_OPTIONS_INIT;
	struct wg_reftable_stack *st;
	struct input in = { 0 };
	char line[8192];
	uint64_t ui;
	int err;

	opts.algo = algo;
	if ((err = wg_reftable_stack_open(&st, dir, &opts)))
		return die_err(dir, err);
	ui = wg_reftable_stack_next_update_index(st);
	in.refs = calloc(100000, sizeof(*in.refs));
	in.logs = calloc(100000, sizeof(*in.logs));
	while (fgets(line, sizeof(line), stdin) && in.nrefs < 100000 && in.nlogs < 100000) {
		char *p = line, *kind;
		size_t len = strlen(line);
		if (len && line[len - 1] == '\n')
			line[len - 1] = '\0';
		kind = field(&p);
		if (!strcmp(kind, "log")) {
			struct wg_reftable_log *l = &in.logs[in.nlogs++];
			char *tz;
			l->refname = strdup(field(&p));
			l->update_index = ui;
			l->type = WG_REFTABLE_LOG_UPDATE;
			if (parse_oid(&l->old_id, field(&p)) || parse_oid(&l->new_id, field(&p)))
				return 1;
			l->name = strdup(field(&p));
			l->email = strdup(field(&p));
			l->time = strtoull(field(&p), NULL, 10);
			tz = field(&p);
			l->tz_offset = (int16_t)atoi(tz);
			l->message = strdup(p ? p : "");
			continue;
		}
		{
			struct wg_reftable_ref *r = &in.refs[in.nrefs++];
			r->refname = strdup(field(&p));
			r->update_index = ui;
			if (!strcmp(kind, "ref")) {
				r->type = WG_REFTABLE_REF_VAL1;
				if (parse_oid(&r->value, field(&p)))
					return 1;
			} else if (!strcmp(kind, "peeled")) {
				r->type = WG_REFTABLE_REF_VAL2;
				if (parse_oid(&r->value, field(&p)) || parse_oid(&r->peeled, field(&p)))
					return 1;
			} else if (!strcmp(kind, "symref")) {
				r->type = WG_REFTABLE_REF_SYMREF;
				r->target = strdup(field(&p));
			} else if (!strcmp(kind, "delete")) {
				r->type = WG_REFTABLE_REF_DELETION;
			} else {
				fprintf(stderr, "reftable_tool: unknown line kind '%s'\n", kind);
				return 1;
			}
		}
	}
	qsort(in.refs, in.nrefs, sizeof(*in.refs), cmp_ref);
	qsort(in.logs, in.nlogs, sizeof(*in.logs), cmp_log);
	err = wg_reftable_stack_add(st, 0, write_input, &in);
	for (size_t i = 0; i < in.nrefs; i++)
		wg_reftable_ref_release(&in.refs[i]);
	for (size_t i = 0; i < in.nlogs; i++)
		wg_reftable_log_release(&in.logs[i]);
	free(in.refs);
	free(in.logs);
	wg_reftable_stack_free(st);
	return err ? die_err("adding a table", err) : 0;
}

static int cmd_compact(const char *dir, bool all)
{
	struct wg_reftable_stack_options opts = WG_REFTABLE_STACK_OPTIONS_INIT;
	struct wg_reftable_stack *st;
	int err;

	opts.algo = algo;
	if ((err = wg_reftable_stack_open(&st, dir, &opts)))
		return die_err(dir, err);
	err = all ? wg_reftable_stack_compact_all(st) : wg_reftable_stack_auto_compact(st);
	wg_reftable_stack_free(st);
	return err ? die_err("compacting", err) : 0;
}

static int cmd_verify(const char *path)
{
	struct wg_reftable_merged *m;
	struct wg_reftable_stack *st;
	int err = 0;

	if ((err = open_view(&m, &st, path)))
		return die_err(path, err);
	for (size_t i = 0; !err && i < wg_reftable_merged_count(m); i++)
		err = wg_reftable_table_verify(wg_reftable_merged_table(m, i));
	if (!st)
		wg_reftable_merged_free(m);
	wg_reftable_stack_free(st);
	return err ? die_err("verify", err) : 0;
}

static int cmd_count(const char *dir)
{
	struct wg_reftable_merged *m;
	struct wg_reftable_stack *st;
	int err;

	if ((err = open_view(&m, &st, dir)))
		return die_err(dir, err);
	printf("%zu\n", wg_reftable_merged_count(m));
	wg_reftable_stack_free(st);
	return 0;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

struct bench_arg {
	unsigned n;
	unsigned i;
};

static int bench_write(struct wg_reftable_writer *w, void *payload)
{
	struct bench_arg *a = payload;
	char name[64];
	int err;

	for (unsigned i = 0; i < a->n; i++) {
		struct wg_reftable_ref r = { 0 };
		snprintf(name, sizeof(name), "refs/heads/b/%08u", a->n > 1 ? i : a->i);
		r.refname = name;
		r.type = WG_REFTABLE_REF_VAL1;
		wg_hash_buffer(algo, name, strlen(name), r.value.hash);
		r.value.algo = (unsigned char)algo->id;
		r.update_index = wg_reftable_writer_min_update_index(w);
		if ((err = wg_reftable_writer_add_ref(w, &r)))
			return err;
	}
	return 0;
}

static int cmd_bench(const char *dir, unsigned n)
{
	struct wg_reftable_stack_options opts = WG_REFTABLE_STACK_OPTIONS_INIT;
	struct wg_reftable_stack *st;
	struct wg_reftable_ref r = { 0 };
	struct bench_arg a = { n, 0 };
	double t0, t1;
	int err;

	opts.algo = algo;
	if ((err = wg_reftable_stack_open(&st, dir, &opts)))
		return die_err(dir, err);
	t0 = now_ms();
	if ((err = wg_reftable_stack_add(st, 0, bench_write, &a)))
		return die_err("bulk add", err);
	t1 = now_ms();
	printf("write %u refs in one table: %.1f ms\n", n, t1 - t0);
	wg_reftable_stack_free(st);

	for (int round = 0; round < 5; round++) {
		struct bench_arg one = { 1, (unsigned)(round * 7919) % n };
		t0 = now_ms();
		if ((err = wg_reftable_stack_open(&st, dir, &opts)))
			return die_err(dir, err);
		t1 = now_ms();
		if ((err = wg_reftable_stack_add(st, 0, bench_write, &one)))
			return die_err("add one", err);
		printf("open stack: %.3f ms; add one update (incl. auto-compaction): %.3f ms; tables %zu\n",
		       t1 - t0, now_ms() - t1, wg_reftable_merged_count(wg_reftable_stack_merged(st)));
		wg_reftable_stack_free(st);
	}
	t0 = now_ms();
	if ((err = wg_reftable_stack_open(&st, dir, &opts)))
		return die_err(dir, err);
	t1 = now_ms();
	{
		char name[64];
		snprintf(name, sizeof(name), "refs/heads/b/%08u", n / 2 + 1);
		if ((err = wg_reftable_merged_read_ref(&r, wg_reftable_stack_merged(st), name)))
			return die_err("read", err);
	}
	printf("open stack: %.3f ms; read one ref: %.3f ms\n", t1 - t0, now_ms() - t1);
	t0 = now_ms();
	for (unsigned i = 0; i < 10000; i++) {
		char name[64];
		snprintf(name, sizeof(name), "refs/heads/b/%08u", (i * 104729u) % n);
		if ((err = wg_reftable_merged_read_ref(&r, wg_reftable_stack_merged(st), name)))
			return die_err("read", err);
	}
	printf("10000 random reads: %.1f ms (%.1f us each)\n", now_ms() - t0,
	       (now_ms() - t0) * 1000 / 10000);
	wg_reftable_ref_release(&r);
	wg_reftable_stack_free(st);
	return 0;
}

int main(int argc, char **argv)
{
	int i = 1;

	algo = wg_hash_algo_by_id(WG_HASH_SHA1);
	if (i < argc && !strcmp(argv[i], "--sha256")) {
		algo = wg_hash_algo_by_id(WG_HASH_SHA256);
		i++;
	}
	if (argc - i < 2) {
		fprintf(stderr, "usage: reftable_tool [--sha256] refs|logs|add|compact|auto-compact|"
			"verify|count|bench PATH [N]\n");
		return 2;
	}
	if (!strcmp(argv[i], "refs"))
		return cmd_refs(argv[i + 1]);
	if (!strcmp(argv[i], "logs"))
		return cmd_logs(argv[i + 1]);
	if (!strcmp(argv[i], "add"))
		return cmd_add(argv[i + 1]);
	if (!strcmp(argv[i], "compact"))
		return cmd_compact(argv[i + 1], true);
	if (!strcmp(argv[i], "auto-compact"))
		return cmd_compact(argv[i + 1], false);
	if (!strcmp(argv[i], "verify"))
		return cmd_verify(argv[i + 1]);
	if (!strcmp(argv[i], "count"))
		return cmd_count(argv[i + 1]);
	if (!strcmp(argv[i], "bench") && argc - i >= 3)
		return cmd_bench(argv[i + 1], (unsigned)strtoul(argv[i + 2], NULL, 10));
	fprintf(stderr, "reftable_tool: unknown command %s\n", argv[i]);
	return 2;
}
