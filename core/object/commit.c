#include "object/commit.h"

#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

static int oom(const char *what)
{
	return wg_error_set(WG_ENOMEM, "out of memory %s", what);
}

/* --- header fields, shared with tags ---------------------------------- */

int wg_header_field_write(struct wg_buf *out, const char *name, const char *value)
{
	const char *p, *nl;
	int err;
	if ((err = wg_buf_adds(out, name)))
		return err;
	if (value) {
		if ((err = wg_buf_addch(out, ' ')))
			return err;
		for (p = value; (nl = strchr(p, '\n')); p = nl + 1)
			if ((err = wg_buf_add(out, p, (size_t)(nl - p))) ||
			    (err = wg_buf_add(out, "\n ", 2)))
				return err;
		if ((err = wg_buf_adds(out, p)))
			return err;
	}
	return wg_buf_addch(out, '\n');
}

int wg_header_tail_write(struct wg_buf *out, const struct wg_header_field *fields,
			 size_t nfields, bool no_body, const char *message, size_t message_len)
{
	int err;
	for (size_t i = 0; i < nfields; i++)
		if ((err = wg_header_field_write(out, fields[i].name, fields[i].value)))
			return err;
	if (!no_body && ((err = wg_buf_addch(out, '\n')) ||
			 (err = wg_buf_add(out, message, message_len))))
		return err;
	return 0;
}

void wg_header_fields_free(struct wg_header_field *fields, size_t nfields)
{
	size_t i;
	if (!fields)
		return;
	for (i = 0; i < nfields; i++) {
		wg_free(fields[i].name);
		wg_free(fields[i].value);
	}
	wg_free(fields);
}

/* Move the value being assembled in `cur` into the last field. */
static int finish_value(struct wg_header_field *field, struct wg_buf *cur, bool has_value)
{
	if (!has_value)
		return 0;
	field->value = (char *)wg_buf_detach(cur, NULL);
	return field->value ? 0 : oom("reading an object header");
}

int wg_header_fields_parse(struct wg_header_field **fields_out, size_t *nfields_out,
			   const char **body, size_t *body_len, bool *no_body,
			   const char *what, const char *data, size_t len)
{
	struct wg_header_field *fields = NULL;
	size_t nr = 0, alloc = 0, pos = 0;
	struct wg_buf cur = WG_BUF_INIT;
	bool cur_has_value = false;
	int err = 0;

	*fields_out = NULL;
	*nfields_out = 0;
	*body = NULL;
	*body_len = 0;
	*no_body = true;

	while (pos < len) {
		const char *line = data + pos, *nl, *sp;
		size_t linelen;

		if (*line == '\n') {
			*body = line + 1;
			*body_len = len - pos - 1;
			*no_body = false;
			break;
		}
		nl = memchr(line, '\n', len - pos);
		if (!nl) {
			err = wg_error_set(WG_ECORRUPT, "%s header at byte %zu is not ended by a newline",
					   what, pos);
			goto fail;
		}
		linelen = (size_t)(nl - line);
		if (memchr(line, '\0', linelen)) {
			err = wg_error_set(WG_ECORRUPT, "%s header at byte %zu contains a NUL byte",
					   what, pos);
			goto fail;
		}
		pos += linelen + 1;

		if (*line == ' ') {
			/* A continuation: one more line of the current value. */
			if (!nr || !cur_has_value) {
				err = wg_error_set(WG_ECORRUPT,
						   "%s has a continuation line at byte %zu with no header value to continue",
						   what, (size_t)(line - data));
				goto fail;
			}
			if ((err = wg_buf_addch(&cur, '\n')) ||
			    (err = wg_buf_add(&cur, line + 1, linelen - 1)))
				goto fail;
			continue;
		}

		if (nr && (err = finish_value(&fields[nr - 1], &cur, cur_has_value)))
			goto fail;
		if (nr == alloc) {
			size_t n = alloc ? alloc * 2 : 8, bytes;
			struct wg_header_field *grown;
			if (wg_size_mul(&bytes, n, sizeof(*grown)) ||
			    !(grown = wg_realloc(fields, bytes))) {
				err = oom("reading object headers");
				goto fail;
			}
			fields = grown;
			alloc = n;
		}
		sp = memchr(line, ' ', linelen);
		fields[nr].value = NULL;
		fields[nr].name = wg_strndup(line, sp ? (size_t)(sp - line) : linelen);
		nr++;
		if (!fields[nr - 1].name) {
			err = oom("reading object headers");
			goto fail;
		}
		cur_has_value = sp != NULL;
		wg_buf_reset(&cur);
		/* An empty value becomes "" (detach allocates), not NULL. */
		if (sp && (err = wg_buf_add(&cur, sp + 1, (size_t)(nl - sp - 1))))
			goto fail;
	}
	if (nr && (err = finish_value(&fields[nr - 1], &cur, cur_has_value)))
		goto fail;
	wg_buf_release(&cur);
	*fields_out = fields;
	*nfields_out = nr;
	return 0;

fail:
	wg_buf_release(&cur);
	wg_header_fields_free(fields, nr);
	*body = NULL;
	*body_len = 0;
	return err;
}

/* --- commits ---------------------------------------------------------- */

void wg_commit_init(struct wg_commit *commit)
{
	memset(commit, 0, sizeof(*commit));
}

void wg_commit_release(struct wg_commit *commit)
{
	if (!commit)
		return;
	wg_free(commit->parents);
	wg_free(commit->author);
	wg_free(commit->committer);
	wg_free(commit->encoding);
	wg_header_fields_free(commit->headers, commit->nheaders);
	wg_free(commit->message);
	wg_commit_init(commit);
}

/* A field that is exactly "<name> <full hex id>". */
static bool field_is_id(const struct wg_header_field *f, const char *name,
			const struct wg_hash_algo *algo, struct wg_oid *oid)
{
	if (strcmp(f->name, name) || !f->value || strlen(f->value) != algo->hexsz)
		return false;
	return wg_oid_from_hex(oid, algo, f->value) == 0;
}

static bool field_has_value(const struct wg_header_field *f, const char *name)
{
	return f->value && !strcmp(f->name, name);
}

/* Take the value out of a field, leaving the name for the caller to free. */
static char *take_value(struct wg_header_field *f)
{
	char *v = f->value;
	f->value = NULL;
	return v;
}

static int copy_message(char **out, size_t *out_len, const char *body, size_t len)
{
	*out = wg_malloc(len + 1);
	if (!*out)
		return oom("copying a message");
	if (len)
		memcpy(*out, body, len);
	(*out)[len] = '\0';
	*out_len = len;
	return 0;
}

int wg_commit_parse(struct wg_commit *out, const struct wg_hash_algo *algo,
		    const void *data, size_t len)
{
	struct wg_header_field *f = NULL;
	size_t nf = 0, i = 0, np = 0, j, body_len;
	const char *body;
	int err;

	wg_commit_init(out);
	err = wg_header_fields_parse(&f, &nf, &body, &body_len, &out->no_body, "commit",
				     data, len);
	if (err)
		return err;

	if (!nf || !field_is_id(&f[0], "tree", algo, &out->tree)) {
		err = wg_error_set(WG_ECORRUPT, "commit does not start with a 'tree <%s id>' line",
				   algo->name);
		goto done;
	}
	/* Parents follow the tree; a "parent" line there must be valid, as in
	 * Git, rather than silently becoming an extra header. */
	for (i = 1; i < nf && field_has_value(&f[i], "parent"); i++)
		np++;
	if (np) {
		if (!(out->parents = wg_calloc(np, sizeof(*out->parents)))) {
			err = oom("reading commit parents");
			goto done;
		}
		for (j = 0; j < np; j++)
			if (!field_is_id(&f[1 + j], "parent", algo, &out->parents[j])) {
				err = wg_error_set(WG_ECORRUPT, "commit parent %zu is not a %s id: '%.80s'",
						   j + 1, algo->name, f[1 + j].value);
				goto done;
			}
		out->nparents = np;
	}
	i = 1 + np;
	if (i < nf && field_has_value(&f[i], "author"))
		out->author = take_value(&f[i++]);
	if (i < nf && field_has_value(&f[i], "committer"))
		out->committer = take_value(&f[i++]);
	if (i < nf && field_has_value(&f[i], "encoding"))
		out->encoding = take_value(&f[i++]);

	if (i < nf) {
		if (!(out->headers = wg_calloc(nf - i, sizeof(*out->headers)))) {
			err = oom("reading commit headers");
			goto done;
		}
		for (j = i; j < nf; j++) {
			out->headers[j - i] = f[j];
			f[j].name = f[j].value = NULL;
		}
		out->nheaders = nf - i;
	}
	err = copy_message(&out->message, &out->message_len, body ? body : "", body_len);

done:
	wg_header_fields_free(f, nf);
	return err;
}

static int check_header_name(const char *name)
{
	if (!name || !*name || strchr(name, ' ') || strchr(name, '\n'))
		return wg_error_set(WG_EINVALID, "'%s' cannot be a header name",
				    name ? name : "(null)");
	return 0;
}

int wg_commit_serialize(const struct wg_commit *commit, struct wg_buf *out)
{
	const struct wg_hash_algo *algo = wg_oid_algo(&commit->tree);
	char hex[WG_MAX_HEXSZ + 1];
	size_t i, start = out->len;
	int err = 0;

	if (!algo)
		return wg_error_set(WG_EINVALID, "commit has no tree id");
	for (i = 0; i < commit->nparents; i++)
		if (commit->parents[i].algo != commit->tree.algo)
			return wg_error_set(WG_EINVALID, "commit parent %zu is not a %s id",
					    i + 1, algo->name);
	for (i = 0; i < commit->nheaders; i++)
		if ((err = check_header_name(commit->headers[i].name)))
			return err;
	if (commit->no_body && commit->message_len)
		return wg_error_set(WG_EINVALID, "a commit without a body cannot have a message");

	if ((err = wg_buf_printf(out, "tree %s\n", wg_oid_to_hex(&commit->tree, hex))))
		goto fail;
	for (i = 0; i < commit->nparents; i++)
		if ((err = wg_buf_printf(out, "parent %s\n", wg_oid_to_hex(&commit->parents[i], hex))))
			goto fail;
	if ((commit->author && (err = wg_header_field_write(out, "author", commit->author))) ||
	    (commit->committer &&
	     (err = wg_header_field_write(out, "committer", commit->committer))) ||
	    (commit->encoding && (err = wg_header_field_write(out, "encoding", commit->encoding))))
		goto fail;
	if ((err = wg_header_tail_write(out, commit->headers, commit->nheaders, commit->no_body,
					commit->message, commit->message_len)))
		goto fail;
	return 0;
fail:
	wg_buf_setlen(out, start);
	return err;
}

static int replace_string(char **slot, const char *value)
{
	return wg_str_replace(slot, value) ? oom("setting a commit header") : 0;
}

int wg_commit_add_parent(struct wg_commit *commit, const struct wg_oid *parent)
{
	struct wg_oid *grown;
	size_t bytes;
	if (wg_size_mul(&bytes, commit->nparents + 1, sizeof(*grown)) ||
	    !(grown = wg_realloc(commit->parents, bytes)))
		return oom("adding a commit parent");
	grown[commit->nparents++] = *parent;
	commit->parents = grown;
	return 0;
}

int wg_commit_set_author(struct wg_commit *commit, const char *ident)
{
	return replace_string(&commit->author, ident);
}

int wg_commit_set_committer(struct wg_commit *commit, const char *ident)
{
	return replace_string(&commit->committer, ident);
}

int wg_commit_set_encoding(struct wg_commit *commit, const char *encoding)
{
	return replace_string(&commit->encoding, encoding);
}

int wg_commit_add_header(struct wg_commit *commit, const char *name, const char *value)
{
	struct wg_header_field *grown, *f;
	size_t bytes;
	int err;
	if ((err = check_header_name(name)))
		return err;
	if (wg_size_mul(&bytes, commit->nheaders + 1, sizeof(*grown)) ||
	    !(grown = wg_realloc(commit->headers, bytes)))
		return oom("adding a commit header");
	commit->headers = grown;
	f = &grown[commit->nheaders];
	f->name = wg_strdup(name);
	f->value = value ? wg_strdup(value) : NULL;
	if (!f->name || (value && !f->value)) {
		wg_free(f->name);
		wg_free(f->value);
		return oom("adding a commit header");
	}
	commit->nheaders++;
	return 0;
}

int wg_commit_set_message(struct wg_commit *commit, const void *message, size_t len)
{
	char *copy = NULL;
	size_t n = 0;
	int err = copy_message(&copy, &n, message ? message : "", message ? len : 0);
	if (err)
		return err;
	wg_free(commit->message);
	commit->message = copy;
	commit->message_len = n;
	return 0;
}

const struct wg_header_field *wg_commit_header(const struct wg_commit *commit,
					       const char *name)
{
	size_t i;
	for (i = 0; i < commit->nheaders; i++)
		if (!strcmp(commit->headers[i].name, name))
			return &commit->headers[i];
	return NULL;
}
