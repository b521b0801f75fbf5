#include "object/tag.h"

#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

void wg_tag_init(struct wg_tag *tag)
{
	memset(tag, 0, sizeof(*tag));
}

void wg_tag_release(struct wg_tag *tag)
{
	if (!tag)
		return;
	wg_free(tag->tag);
	wg_free(tag->tagger);
	wg_header_fields_free(tag->headers, tag->nheaders);
	wg_free(tag->message);
	wg_tag_init(tag);
}

static int oom(const char *what)
{
	return wg_error_set(WG_ENOMEM, "out of memory %s", what);
}

static int set_message(char **slot, size_t *slot_len, const char *msg, size_t len)
{
	char *copy = wg_malloc(len + 1);
	if (!copy)
		return oom("copying a tag message");
	if (len)
		memcpy(copy, msg, len);
	copy[len] = '\0';
	wg_free(*slot);
	*slot = copy;
	*slot_len = len;
	return 0;
}

int wg_tag_parse(struct wg_tag *out, const struct wg_hash_algo *algo,
		 const void *data, size_t len)
{
	struct wg_header_field *f = NULL;
	size_t nf = 0, i, j, body_len;
	const char *body;
	int err;

	wg_tag_init(out);
	out->type = WG_OBJ_BAD;
	err = wg_header_fields_parse(&f, &nf, &body, &body_len, &out->no_body, "tag",
				     data, len);
	if (err)
		return err;

	if (nf < 1 || strcmp(f[0].name, "object") || !f[0].value ||
	    strlen(f[0].value) != algo->hexsz || wg_oid_from_hex(&out->object, algo, f[0].value)) {
		err = wg_error_set(WG_ECORRUPT, "tag does not start with an 'object <%s id>' line",
				   algo->name);
		goto done;
	}
	if (nf < 2 || strcmp(f[1].name, "type") || !f[1].value ||
	    (out->type = wg_object_type_from_name(f[1].value, strlen(f[1].value))) == WG_OBJ_BAD) {
		err = wg_error_set(WG_ECORRUPT, "tag has no 'type' line naming an object type%s%.40s%s",
				   nf >= 2 && f[1].value ? " (found '" : "",
				   nf >= 2 && f[1].value ? f[1].value : "",
				   nf >= 2 && f[1].value ? "')" : "");
		goto done;
	}
	if (nf < 3 || strcmp(f[2].name, "tag") || !f[2].value) {
		err = wg_error_set(WG_ECORRUPT, "tag has no 'tag <name>' line after its type");
		goto done;
	}
	out->tag = f[2].value;
	f[2].value = NULL;
	i = 3;
	if (i < nf && f[i].value && !strcmp(f[i].name, "tagger")) {
		out->tagger = f[i].value;
		f[i++].value = NULL;
	}
	if (i < nf) {
		if (!(out->headers = wg_calloc(nf - i, sizeof(*out->headers)))) {
			err = oom("reading tag headers");
			goto done;
		}
		for (j = i; j < nf; j++) {
			out->headers[j - i] = f[j];
			f[j].name = f[j].value = NULL;
		}
		out->nheaders = nf - i;
	}
	err = set_message(&out->message, &out->message_len, body ? body : "", body_len);

done:
	wg_header_fields_free(f, nf);
	return err;
}

int wg_tag_serialize(const struct wg_tag *tag, struct wg_buf *out)
{
	const char *type = wg_object_type_name(tag->type);
	char hex[WG_MAX_HEXSZ + 1];
	size_t i, start = out->len;
	int err;

	if (!wg_oid_algo(&tag->object))
		return wg_error_set(WG_EINVALID, "tag has no object id");
	if (!type)
		return wg_error_set(WG_EINVALID, "tag names an object of unknown type %d",
				    (int)tag->type);
	if (!tag->tag)
		return wg_error_set(WG_EINVALID, "tag has no name");
	for (i = 0; i < tag->nheaders; i++) {
		const char *n = tag->headers[i].name;
		if (!n || !*n || strchr(n, ' ') || strchr(n, '\n'))
			return wg_error_set(WG_EINVALID, "'%s' cannot be a header name",
					    n ? n : "(null)");
	}
	if (tag->no_body && tag->message_len)
		return wg_error_set(WG_EINVALID, "a tag without a body cannot have a message");

	if ((err = wg_buf_printf(out, "object %s\ntype %s\n",
				 wg_oid_to_hex(&tag->object, hex), type)) ||
	    (err = wg_header_field_write(out, "tag", tag->tag)) ||
	    (tag->tagger && (err = wg_header_field_write(out, "tagger", tag->tagger))))
		goto fail;
	if ((err = wg_header_tail_write(out, tag->headers, tag->nheaders, tag->no_body,
					tag->message, tag->message_len)))
		goto fail;
	return 0;
fail:
	wg_buf_setlen(out, start);
	return err;
}

static int replace_string(char **slot, const char *value)
{
	return wg_str_replace(slot, value) ? oom("setting a tag field") : 0;
}

int wg_tag_set_name(struct wg_tag *tag, const char *name)
{
	return replace_string(&tag->tag, name);
}

int wg_tag_set_tagger(struct wg_tag *tag, const char *ident)
{
	return replace_string(&tag->tagger, ident);
}

int wg_tag_add_header(struct wg_tag *tag, const char *name, const char *value)
{
	struct wg_header_field *grown, *f;
	size_t bytes;
	if (!name || !*name || strchr(name, ' ') || strchr(name, '\n'))
		return wg_error_set(WG_EINVALID, "'%s' cannot be a header name",
				    name ? name : "(null)");
	if (wg_size_mul(&bytes, tag->nheaders + 1, sizeof(*grown)) ||
	    !(grown = wg_realloc(tag->headers, bytes)))
		return oom("adding a tag header");
	tag->headers = grown;
	f = &grown[tag->nheaders];
	f->name = wg_strdup(name);
	f->value = value ? wg_strdup(value) : NULL;
	if (!f->name || (value && !f->value)) {
		wg_free(f->name);
		wg_free(f->value);
		return oom("adding a tag header");
	}
	tag->nheaders++;
	return 0;
}

int wg_tag_set_message(struct wg_tag *tag, const void *message, size_t len)
{
	return set_message(&tag->message, &tag->message_len, message ? message : "",
			   message ? len : 0);
}
