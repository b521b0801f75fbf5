/* Commits, tags and idents: byte-exact round trips of objects the reference
 * git wrote (signed, merged with mergetag, encoding header, no message, in
 * SHA-1 and SHA-256), serialization from scratch as `git commit-tree` and
 * `git tag -a` write it, odd hand-made layouts, and every truncation. */
#include "test.h"

#include "hash/oid.h"
#include "object/commit.h"
#include "object/ident.h"
#include "object/object.h"
#include "object/tag.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/date.h"

#include "data/object_fixtures.h"

#define NFIXTURES (sizeof(object_fixtures) / sizeof(object_fixtures[0]))

static const struct object_fixture *fixture(enum wg_hash_id algo, const char *name)
{
	size_t i;
	for (i = 0; i < NFIXTURES; i++)
		if (object_fixtures[i].algo == algo && !strcmp(object_fixtures[i].name, name))
			return &object_fixtures[i];
	fprintf(stderr, "no fixture %s\n", name);
	abort();
}

static bool same(const struct wg_buf *b, const void *data, size_t len)
{
	return b->len == len && (!len || !memcmp(b->data, data, len));
}

static unsigned char *exact_copy(const void *data, size_t len)
{
	unsigned char *p = malloc(len ? len : 1);
	if (p && len)
		memcpy(p, data, len);
	return p;
}

static void test_fixture_round_trips(void)
{
	size_t i;
	for (i = 0; i < NFIXTURES; i++) {
		const struct object_fixture *fx = &object_fixtures[i];
		const struct wg_hash_algo *algo = wg_hash_algo_by_id(fx->algo);
		struct wg_buf out = WG_BUF_INIT;
		struct wg_oid oid;
		if (fx->type != WG_OBJ_COMMIT && fx->type != WG_OBJ_TAG)
			continue;
		CHECK_OK(wg_object_hash(&oid, algo, fx->type, fx->data, fx->len));
		CHECK_STR(wg_oid_hex(&oid), fx->hex);
		if (fx->type == WG_OBJ_COMMIT) {
			struct wg_commit c;
			CHECK_OK(wg_commit_parse(&c, algo, fx->data, fx->len));
			CHECK(c.tree.algo == algo->id);
			CHECK(c.author && c.committer && !c.no_body);
			CHECK_OK(wg_commit_serialize(&c, &out));
			wg_commit_release(&c);
		} else {
			struct wg_tag t;
			CHECK_OK(wg_tag_parse(&t, algo, fx->data, fx->len));
			CHECK(t.tag && t.tagger && !t.no_body);
			CHECK_OK(wg_tag_serialize(&t, &out));
			wg_tag_release(&t);
		}
		CHECK(same(&out, fx->data, fx->len));
		if (!same(&out, fx->data, fx->len))
			fprintf(stderr, "%s/%s differs:\n%s\n", wg_hash_algo_by_id(fx->algo)->name,
				fx->name, wg_buf_cstr(&out));
		wg_buf_release(&out);
	}
}

static void test_commit_fields(void)
{
	int a;
	for (a = WG_HASH_SHA1; a <= WG_HASH_SHA256; a++) {
		const struct wg_hash_algo *algo = wg_hash_algo_by_id(a);
		const struct object_fixture *fx;
		const struct wg_header_field *h;
		struct wg_commit c;

		fx = fixture(a, "root_commit");
		CHECK_OK(wg_commit_parse(&c, algo, fx->data, fx->len));
		CHECK(c.nparents == 0 && c.nheaders == 0 && !c.encoding);
		CHECK_STR(c.author, "A U Thor <author@example.com> 1700000000 +0100");
		CHECK_STR(c.committer, "C O Mitter <committer@example.com> 1700000100 -0530");
		CHECK_STR(c.message, "initial\n\nwith a body\n");
		wg_commit_release(&c);

		fx = fixture(a, "merge_mergetag");
		CHECK_OK(wg_commit_parse(&c, algo, fx->data, fx->len));
		CHECK(c.nparents == 2 && c.nheaders == 1);
		h = wg_commit_header(&c, "mergetag");
		CHECK(h && !strncmp(h->value, "object ", 7));
		/* The blank line inside the tag became an empty line in the value,
		 * and no continuation space is left. */
		CHECK(h && strstr(h->value, "\n\nsigned tag\n-----BEGIN SSH SIGNATURE-----\n"));
		CHECK(h && h->value[strlen(h->value) - 1] != '\n');
		CHECK(h && !strstr(h->value, "\n "));
		CHECK_STR(c.message, "Merge tag 'v1-signed'\n");
		wg_commit_release(&c);

		fx = fixture(a, "signed_commit");
		CHECK_OK(wg_commit_parse(&c, algo, fx->data, fx->len));
		/* The signature header is named after the repository's hash. */
		h = wg_commit_header(&c, a == WG_HASH_SHA1 ? "gpgsig" : "gpgsig-sha256");
		CHECK(h && !strncmp(h->value, "-----BEGIN SSH SIGNATURE-----\n", 30));
		CHECK(h && !strcmp(h->value + strlen(h->value) - 27, "-----END SSH SIGNATURE-----"));
		CHECK(c.nheaders == 1 && c.nparents == 1);
		wg_commit_release(&c);

		fx = fixture(a, "encoding_commit");
		CHECK_OK(wg_commit_parse(&c, algo, fx->data, fx->len));
		CHECK_STR(c.encoding, "ISO-8859-1");
		CHECK(c.nheaders == 0);
		CHECK_STR(c.message, "caf\351 latin-1 message\n");
		wg_commit_release(&c);

		fx = fixture(a, "empty_message_commit");
		CHECK_OK(wg_commit_parse(&c, algo, fx->data, fx->len));
		CHECK(c.message_len == 0 && !c.no_body && c.message && !c.message[0]);
		wg_commit_release(&c);

		fx = fixture(a, "octopus_no_newline");
		CHECK_OK(wg_commit_parse(&c, algo, fx->data, fx->len));
		CHECK(c.nparents == 2);
		CHECK_STR(c.message, "no newline at the end");
		wg_commit_release(&c);
	}
	wg_commit_release(NULL);
}

static void test_tag_fields(void)
{
	int a;
	for (a = WG_HASH_SHA1; a <= WG_HASH_SHA256; a++) {
		const struct wg_hash_algo *algo = wg_hash_algo_by_id(a);
		const struct object_fixture *fx;
		struct wg_tag t;

		fx = fixture(a, "signed_tag");
		CHECK_OK(wg_tag_parse(&t, algo, fx->data, fx->len));
		CHECK(t.type == WG_OBJ_COMMIT && t.nheaders == 0);
		CHECK_STR(t.tag, "v1-signed");
		CHECK_STR(t.tagger, "C O Mitter <committer@example.com> 1700000100 -0530");
		/* The signature is the end of the message. */
		CHECK(!strncmp(t.message, "signed tag\n-----BEGIN SSH SIGNATURE-----\n", 41));
		wg_tag_release(&t);

		fx = fixture(a, "tree_tag");
		CHECK_OK(wg_tag_parse(&t, algo, fx->data, fx->len));
		CHECK(t.type == WG_OBJ_TREE);
		CHECK_STR(t.message, "a tree\n");
		wg_tag_release(&t);

		fx = fixture(a, "tag_of_tag");
		CHECK_OK(wg_tag_parse(&t, algo, fx->data, fx->len));
		CHECK(t.type == WG_OBJ_TAG);
		CHECK_STR(wg_oid_hex(&t.object), fixture(a, "annotated_tag")->hex);
		wg_tag_release(&t);

		fx = fixture(a, "blob_tag");
		CHECK_OK(wg_tag_parse(&t, algo, fx->data, fx->len));
		CHECK(t.type == WG_OBJ_BLOB);
		CHECK_STR(t.tag, "blobtag");
		wg_tag_release(&t);
	}
	wg_tag_release(NULL);
}

/* Build a commit field by field and compare with what git commit-tree
 * wrote for the same input. */
static void test_commit_from_scratch(void)
{
	int a;
	for (a = WG_HASH_SHA1; a <= WG_HASH_SHA256; a++) {
		const struct wg_hash_algo *algo = wg_hash_algo_by_id(a);
		static const char *const names[] = { "root_commit", "encoding_commit",
						     "empty_message_commit", "octopus_no_newline",
						     "second_commit" };
		size_t k;
		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
			const struct object_fixture *fx = fixture(a, names[k]);
			struct wg_commit parsed, c;
			struct wg_buf out = WG_BUF_INIT;
			size_t i;
			CHECK_OK(wg_commit_parse(&parsed, algo, fx->data, fx->len));
			wg_commit_init(&c);
			c.tree = parsed.tree;
			for (i = 0; i < parsed.nparents; i++)
				CHECK_OK(wg_commit_add_parent(&c, &parsed.parents[i]));
			CHECK_OK(wg_commit_set_author(&c, "A U Thor <author@example.com> 1700000000 +0100"));
			CHECK_OK(wg_commit_set_committer(&c,
				"C O Mitter <committer@example.com> 1700000100 -0530"));
			if (parsed.encoding)
				CHECK_OK(wg_commit_set_encoding(&c, "ISO-8859-1"));
			CHECK_OK(wg_commit_set_message(&c, parsed.message, parsed.message_len));
			CHECK_OK(wg_commit_serialize(&c, &out));
			CHECK(same(&out, fx->data, fx->len));
			wg_buf_release(&out);
			wg_commit_release(&c);
			wg_commit_release(&parsed);
		}
	}
}

static void test_tag_from_scratch(void)
{
	int a;
	for (a = WG_HASH_SHA1; a <= WG_HASH_SHA256; a++) {
		const struct wg_hash_algo *algo = wg_hash_algo_by_id(a);
		const struct object_fixture *fx = fixture(a, "annotated_tag");
		struct wg_tag parsed, t;
		struct wg_buf out = WG_BUF_INIT;
		CHECK_OK(wg_tag_parse(&parsed, algo, fx->data, fx->len));
		wg_tag_init(&t);
		t.object = parsed.object;
		t.type = WG_OBJ_COMMIT;
		CHECK_OK(wg_tag_set_name(&t, "v1"));
		CHECK_OK(wg_tag_set_tagger(&t, "C O Mitter <committer@example.com> 1700000100 -0530"));
		CHECK_OK(wg_tag_set_message(&t, "release 1\n", 10));
		CHECK_OK(wg_tag_serialize(&t, &out));
		CHECK(same(&out, fx->data, fx->len));
		/* Invalid fields are refused, leaving the buffer as it was. */
		t.type = WG_OBJ_OFS_DELTA;
		CHECK_ERR(wg_tag_serialize(&t, &out), WG_EINVALID);
		CHECK(same(&out, fx->data, fx->len));
		t.type = WG_OBJ_COMMIT;
		CHECK_ERR(wg_tag_add_header(&t, "bad name", "x"), WG_EINVALID);
		CHECK_ERR(wg_tag_add_header(&t, "", "x"), WG_EINVALID);
		CHECK_OK(wg_tag_add_header(&t, "gpgsig-sha256", "sig\nline 2\n"));
		wg_buf_reset(&out);
		CHECK_OK(wg_tag_serialize(&t, &out));
		CHECK(strstr(wg_buf_cstr(&out), "tagger C O Mitter <committer@example.com> "
			     "1700000100 -0530\ngpgsig-sha256 sig\n line 2\n \n\nrelease 1\n") != NULL);
		wg_buf_release(&out);
		wg_tag_release(&t);
		wg_tag_release(&parsed);
	}
}

/* Parse, check a few things, serialize, compare with the input. */
static void round_trip(const char *data, struct wg_commit *c)
{
	struct wg_buf out = WG_BUF_INIT;
	const struct wg_hash_algo *sha1 = wg_hash_algo_by_id(WG_HASH_SHA1);
	size_t len = strlen(data);
	CHECK_OK(wg_commit_parse(c, sha1, data, len));
	CHECK_OK(wg_commit_serialize(c, &out));
	CHECK(same(&out, data, len));
	if (!same(&out, data, len))
		fprintf(stderr, "round trip of:\n%s\ngave:\n%s\n", data, wg_buf_cstr(&out));
	wg_buf_release(&out);
}

#define T40 "1111111111111111111111111111111111111111"
#define P40 "2222222222222222222222222222222222222222"
#define ID "A <a@x> 1 +0000"

static void test_commit_odd_layouts(void)
{
	struct wg_commit c;

	/* No blank line at all. */
	round_trip("tree " T40 "\nauthor " ID "\ncommitter " ID "\n", &c);
	CHECK(c.no_body && c.message_len == 0);
	wg_commit_release(&c);
	/* A key without a value and one with an empty value. */
	round_trip("tree " T40 "\nauthor " ID "\ncommitter " ID "\nbare\nempty \n\nm\n", &c);
	CHECK(c.nheaders == 2 && !c.headers[0].value && !strcmp(c.headers[1].value, ""));
	wg_commit_release(&c);
	/* Continuation lines that are empty, or start with more spaces. */
	round_trip("tree " T40 "\nauthor " ID "\ncommitter " ID "\nx a\n \n  b\n\n", &c);
	CHECK(c.nheaders == 1 && !strcmp(c.headers[0].value, "a\n\n b"));
	wg_commit_release(&c);
	/* Headers out of place stay where they were. */
	round_trip("tree " T40 "\nfoo bar\nauthor " ID "\ncommitter " ID "\n\nm", &c);
	CHECK(!c.author && !c.committer && c.nheaders == 3);
	wg_commit_release(&c);
	round_trip("tree " T40 "\nauthor " ID "\nparent " P40 "\ncommitter " ID "\n\n", &c);
	CHECK(c.nparents == 0 && c.author && !c.committer);
	wg_commit_release(&c);
	round_trip("tree " T40 "\ncommitter " ID "\nauthor " ID "\n\n", &c);
	CHECK(!c.author && c.committer && c.nheaders == 1);
	wg_commit_release(&c);
	/* Two encodings: the second is an extra header. */
	round_trip("tree " T40 "\nauthor " ID "\ncommitter " ID "\nencoding a\nencoding b\n\n", &c);
	CHECK_STR(c.encoding, "a");
	CHECK(c.nheaders == 1);
	wg_commit_release(&c);
	/* A multi-line author is kept whole. */
	round_trip("tree " T40 "\nauthor " ID "\n more\ncommitter " ID "\n\n", &c);
	CHECK_STR(c.author, ID "\nmore");
	wg_commit_release(&c);
	/* A message with NUL bytes and blank lines. */
	{
		static const char raw[] = "tree " T40 "\nauthor " ID "\ncommitter " ID "\n\n\na\0b\n\n";
		struct wg_buf out = WG_BUF_INIT;
		CHECK_OK(wg_commit_parse(&c, wg_hash_algo_by_id(WG_HASH_SHA1), raw, sizeof(raw) - 1));
		CHECK(c.message_len == 6 && !memcmp(c.message, "\na\0b\n\n", 6));
		CHECK_OK(wg_commit_serialize(&c, &out));
		CHECK(same(&out, raw, sizeof(raw) - 1));
		wg_buf_release(&out);
		wg_commit_release(&c);
	}
	/* Upper-case hex is read (as Git does) but written lower-case. */
	{
		struct wg_buf out = WG_BUF_INIT;
		static const char raw[] = "tree ABCDEF1111111111111111111111111111111111\n\n";
		CHECK_OK(wg_commit_parse(&c, wg_hash_algo_by_id(WG_HASH_SHA1), raw, sizeof(raw) - 1));
		CHECK_OK(wg_commit_serialize(&c, &out));
		CHECK_STR(wg_buf_cstr(&out), "tree abcdef1111111111111111111111111111111111\n\n");
		wg_buf_release(&out);
		wg_commit_release(&c);
	}
}

static void test_commit_parse_errors(void)
{
	const struct wg_hash_algo *sha1 = wg_hash_algo_by_id(WG_HASH_SHA1);
	const struct wg_hash_algo *sha256 = wg_hash_algo_by_id(WG_HASH_SHA256);
	static const char *const bad[] = {
		"",
		"\n",
		"author " ID "\n\n",
		"tree " T40 "x\n\n",
		"tree " "111111111111111111111111111111111111111\n\n",
		"tree " "111111111111111111111111111111111111111g\n\n",
		"tree  " T40 "\n\n",
		"tree " T40 "\nparent " "222\n\n",
		"tree " T40 "\nparent " P40 "\nparent " P40 " \n\n",
		"tree " T40 "\n continuation\n\n",
		"tree " T40 "\nbare\n continuation\n\n",
		"tree " T40 "\nauthor " ID,
		"tree " T40,
	};
	struct wg_commit c;
	size_t i;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_ERR(wg_commit_parse(&c, sha1, bad[i], strlen(bad[i])), WG_ECORRUPT);
		CHECK(wg_error_message()[0] != '\0');
		wg_commit_release(&c);
	}
	/* NUL in the headers. */
	CHECK_ERR(wg_commit_parse(&c, sha1, "tree " T40 "\nauthor a\0b\n\n", 5 + 40 + 1 + 11 + 1),
		  WG_ECORRUPT);
	wg_commit_release(&c);
	/* A SHA-1 id in a SHA-256 commit. */
	CHECK_ERR(wg_commit_parse(&c, sha256, "tree " T40 "\n\n", 47), WG_ECORRUPT);
	wg_commit_release(&c);
}

static void test_commit_serialize_errors(void)
{
	struct wg_commit c;
	struct wg_buf out = WG_BUF_INIT;
	struct wg_oid p;
	wg_commit_init(&c);
	CHECK_ERR(wg_commit_serialize(&c, &out), WG_EINVALID);
	wg_oid_empty_tree(&c.tree, wg_hash_algo_by_id(WG_HASH_SHA1));
	wg_oid_empty_tree(&p, wg_hash_algo_by_id(WG_HASH_SHA256));
	CHECK_OK(wg_commit_add_parent(&c, &p));
	CHECK_ERR(wg_commit_serialize(&c, &out), WG_EINVALID);
	CHECK(out.len == 0);
	wg_commit_release(&c);

	wg_oid_empty_tree(&c.tree, wg_hash_algo_by_id(WG_HASH_SHA1));
	CHECK_ERR(wg_commit_add_header(&c, "a b", "x"), WG_EINVALID);
	CHECK_ERR(wg_commit_add_header(&c, "a\nb", "x"), WG_EINVALID);
	CHECK_ERR(wg_commit_add_header(&c, "", "x"), WG_EINVALID);
	/* A newline in a value cannot inject a header: it becomes a
	 * continuation line. */
	CHECK_OK(wg_commit_set_author(&c, "A <a> 1 +0000\nparent " P40));
	CHECK_OK(wg_commit_add_header(&c, "bare", NULL));
	CHECK_OK(wg_commit_serialize(&c, &out));
	CHECK_STR(wg_buf_cstr(&out), "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
		  "author A <a> 1 +0000\n parent " P40 "\nbare\n\n");
	c.no_body = true;
	CHECK_OK(wg_commit_set_message(&c, "x", 1));
	CHECK_ERR(wg_commit_serialize(&c, &out), WG_EINVALID);
	CHECK_OK(wg_commit_set_message(&c, NULL, 0));
	CHECK_OK(wg_commit_set_encoding(&c, "UTF-16"));
	CHECK_OK(wg_commit_set_encoding(&c, NULL));
	wg_buf_reset(&out);
	CHECK_OK(wg_commit_serialize(&c, &out));
	CHECK_STR(wg_buf_cstr(&out), "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
		  "author A <a> 1 +0000\n parent " P40 "\nbare\n");
	wg_buf_release(&out);
	wg_commit_release(&c);
}

static void test_header_field_write(void)
{
	struct wg_buf out = WG_BUF_INIT;
	CHECK_OK(wg_header_field_write(&out, "k", "a\n\nb\n"));
	CHECK_OK(wg_header_field_write(&out, "bare", NULL));
	CHECK_OK(wg_header_field_write(&out, "empty", ""));
	CHECK_STR(wg_buf_cstr(&out), "k a\n \n b\n \nbare\nempty \n");
	wg_buf_release(&out);
}

static void test_tag_parse_errors(void)
{
	const struct wg_hash_algo *sha1 = wg_hash_algo_by_id(WG_HASH_SHA1);
	static const char *const bad[] = {
		"",
		"object " T40 "\n\n",
		"object " T40 "\ntype commits\ntag v\n\n",
		"object " T40 "\ntype\ntag v\n\n",
		"object " T40 "\ntype commit\n\n",
		"object " T40 "\ntype commit\ntag\n\n",
		"object " T40 "\ntype commit\ntagger " ID "\n\n",
		"type commit\nobject " T40 "\ntag v\n\n",
		"object 123\ntype commit\ntag v\n\n",
		"object " T40 "\ntype commit\ntag v",
	};
	struct wg_tag t;
	size_t i;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_ERR(wg_tag_parse(&t, sha1, bad[i], strlen(bad[i])), WG_ECORRUPT);
		wg_tag_release(&t);
	}
	/* No tagger, a misplaced tagger, extra headers, no body: all kept. */
	{
		static const char *const good[] = {
			"object " T40 "\ntype commit\ntag v\n\nold tag\n",
			"object " T40 "\ntype tree\ntag \nfoo bar\ntagger " ID "\n\n",
			"object " T40 "\ntype blob\ntag v\ntagger " ID "\n",
			"object " T40 "\ntype tag\ntag v\ntagger " ID "\ngpgsig-sha256 a\n b\n\nm",
		};
		for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
			struct wg_buf out = WG_BUF_INIT;
			CHECK_OK(wg_tag_parse(&t, sha1, good[i], strlen(good[i])));
			CHECK_OK(wg_tag_serialize(&t, &out));
			CHECK_STR(wg_buf_cstr(&out), good[i]);
			wg_buf_release(&out);
			if (i == 0)
				CHECK(!t.tagger && t.nheaders == 0);
			if (i == 1)
				CHECK(!t.tagger && t.nheaders == 2 && !strcmp(t.tag, ""));
			if (i == 2)
				CHECK(t.no_body && t.tagger);
			wg_tag_release(&t);
		}
	}
}

/* Every prefix of every fixture commit and tag: no crash, no read past
 * the (exactly sized) buffer; either a clean error or a parse whose
 * serialization is exactly that prefix. */
static void test_truncated_at_every_offset(void)
{
	size_t i, cut;
	for (i = 0; i < NFIXTURES; i++) {
		const struct object_fixture *fx = &object_fixtures[i];
		const struct wg_hash_algo *algo = wg_hash_algo_by_id(fx->algo);
		if (fx->type != WG_OBJ_COMMIT && fx->type != WG_OBJ_TAG)
			continue;
		for (cut = 0; cut <= fx->len; cut++) {
			unsigned char *copy = exact_copy(fx->data, cut);
			struct wg_buf out = WG_BUF_INIT;
			int rc;
			if (fx->type == WG_OBJ_COMMIT) {
				struct wg_commit c;
				rc = wg_commit_parse(&c, algo, copy, cut);
				if (!rc)
					CHECK_OK(wg_commit_serialize(&c, &out));
				wg_commit_release(&c);
			} else {
				struct wg_tag t;
				rc = wg_tag_parse(&t, algo, copy, cut);
				if (!rc)
					CHECK_OK(wg_tag_serialize(&t, &out));
				wg_tag_release(&t);
			}
			CHECK(rc == 0 || rc == WG_ECORRUPT);
			if (!rc)
				CHECK(same(&out, copy, cut));
			wg_buf_release(&out);
			free(copy);
		}
	}
}

static void test_ident_parse(void)
{
	struct wg_ident id;
	const char *s;

	s = "A U Thor <author@example.com> 1700000000 +0100";
	CHECK_OK(wg_ident_parse(&id, s, strlen(s)));
	CHECK(id.name_len == 8 && !memcmp(id.name, "A U Thor", 8));
	CHECK(id.email_len == 18 && !memcmp(id.email, "author@example.com", 18));
	CHECK(id.has_date && id.timestamp == 1700000000u && id.tz_offset == 60);
	CHECK(id.tz_len == 5 && !memcmp(id.tz, "+0100", 5));
	CHECK(id.date_len == 10);

	s = "X <x> 0 -0530";
	CHECK_OK(wg_ident_parse(&id, s, strlen(s)));
	CHECK(id.has_date && id.timestamp == 0 && id.tz_offset == -330);

	/* Trailing blanks of the name go, leading ones stay. */
	s = "  Name \t <e>  12   +1245";
	CHECK_OK(wg_ident_parse(&id, s, strlen(s)));
	CHECK(id.name_len == 6 && !memcmp(id.name, "  Name", 6));
	CHECK(id.timestamp == 12 && id.tz_offset == 12 * 60 + 45);

	/* No name at all. */
	s = "<e> 1 +0000";
	CHECK_OK(wg_ident_parse(&id, s, strlen(s)));
	CHECK(id.name_len == 0 && id.email_len == 1);
	s = " <e> 1 +0000";
	CHECK_OK(wg_ident_parse(&id, s, strlen(s)));
	CHECK(id.name_len == 0);

	/* Person only: date or zone missing or malformed. */
	s = "A <a@x>";
	CHECK_OK(wg_ident_parse(&id, s, strlen(s)));
	CHECK(!id.has_date && id.email_len == 3 && id.timestamp == 0);
	s = "A <a@x> tomorrow +0000";
	CHECK_OK(wg_ident_parse(&id, s, strlen(s)));
	CHECK(!id.has_date);
	s = "A <a@x> 12";
	CHECK_OK(wg_ident_parse(&id, s, strlen(s)));
	CHECK(!id.has_date);
	s = "A <a@x> 12 +";
	CHECK_OK(wg_ident_parse(&id, s, strlen(s)));
	CHECK(!id.has_date);

	/* A stray '>' in the email: the date follows the last one. */
	s = "A <a>b> 5 +0000";
	CHECK_OK(wg_ident_parse(&id, s, strlen(s)));
	CHECK(id.email_len == 1 && id.has_date && id.timestamp == 5);

	/* Overflow saturates. */
	s = "A <a> 99999999999999999999999999 +0000";
	CHECK_OK(wg_ident_parse(&id, s, strlen(s)));
	CHECK(id.has_date && id.timestamp == UINT64_MAX);
	s = "A <a> 18446744073709551615 +99999999999";
	CHECK_OK(wg_ident_parse(&id, s, strlen(s)));
	CHECK(id.timestamp == UINT64_MAX && id.tz_offset > 0);

	/* Parsing stops at a NUL, as for Git's C strings. */
	CHECK_OK(wg_ident_parse(&id, "A <a> 5 +0000\0junk", 18));
	CHECK(id.timestamp == 5 && id.tz_len == 5);
	CHECK_ERR(wg_ident_parse(&id, "A \0<a> 5 +0000", 14), WG_ECORRUPT);

	CHECK_ERR(wg_ident_parse(&id, "no email here", 13), WG_ECORRUPT);
	CHECK_ERR(wg_ident_parse(&id, "A <unclosed 1 +0000", 19), WG_ECORRUPT);
	CHECK_ERR(wg_ident_parse(&id, "", 0), WG_ECORRUPT);
	/* Bounded: a length shorter than the string is respected. */
	CHECK_OK(wg_ident_parse(&id, "A <a> 1234 +0000", 9));
	CHECK(id.has_date == false);
}

static void test_ident_check(void)
{
	static const struct {
		const char *ident;
		enum wg_ident_problem problem;
	} cases[] = {
		{ "A U Thor <a@x> 1700000000 +0100", WG_IDENT_OK },
		{ "A <a@x> 0 +0000", WG_IDENT_OK },
		{ " <a@x> 1 +0000", WG_IDENT_OK },
		{ "A <a@x> \t 1 -1200", WG_IDENT_OK },
		{ "A <> 1 +0000", WG_IDENT_OK },
		{ "A <a@x> 9223372036854775807 +0000", WG_IDENT_OK },
		{ "A <a@x> 1 +0000\nignored", WG_IDENT_OK },
		{ "<a@x> 1 +0000", WG_IDENT_MISSING_NAME_BEFORE_EMAIL },
		{ "A a@x 1 +0000", WG_IDENT_MISSING_EMAIL },
		{ "", WG_IDENT_MISSING_EMAIL },
		{ "A\n<a@x> 1 +0000", WG_IDENT_MISSING_EMAIL },
		{ "A > <a@x> 1 +0000", WG_IDENT_BAD_NAME },
		{ "A<a@x> 1 +0000", WG_IDENT_MISSING_SPACE_BEFORE_EMAIL },
		{ "A <a<x> 1 +0000", WG_IDENT_BAD_EMAIL },
		{ "A <a@x", WG_IDENT_BAD_EMAIL },
		{ "A <a@x>", WG_IDENT_MISSING_SPACE_BEFORE_DATE },
		{ "A <a@x>1 +0000", WG_IDENT_MISSING_SPACE_BEFORE_DATE },
		{ "A <a@x> ", WG_IDENT_BAD_DATE },
		{ "A <a@x> x +0000", WG_IDENT_BAD_DATE },
		{ "A <a@x> 1", WG_IDENT_BAD_DATE },
		{ "A <a@x> 1x +0000", WG_IDENT_BAD_DATE },
		{ "A <a@x> 01 +0000", WG_IDENT_ZERO_PADDED_DATE },
		{ "A <a@x> 0", WG_IDENT_ZERO_PADDED_DATE },
		{ "A <a@x> 9223372036854775808 +0000", WG_IDENT_BAD_DATE_OVERFLOW },
		{ "A <a@x> 99999999999999999999999999999 +0000", WG_IDENT_BAD_DATE_OVERFLOW },
		{ "A <a@x> 1 +000", WG_IDENT_BAD_TIMEZONE },
		{ "A <a@x> 1 +00000", WG_IDENT_BAD_TIMEZONE },
		{ "A <a@x> 1 0100", WG_IDENT_BAD_TIMEZONE },
		{ "A <a@x> 1 +01a0", WG_IDENT_BAD_TIMEZONE },
		{ "A <a@x> 1 ", WG_IDENT_BAD_TIMEZONE },
		{ "A <a@x> 1  +0000", WG_IDENT_BAD_TIMEZONE },
	};
	size_t i;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum wg_ident_problem got = wg_ident_check(cases[i].ident, strlen(cases[i].ident));
		CHECK(got == cases[i].problem);
		if (got != cases[i].problem)
			fprintf(stderr, "ident '%s': got %d (%s), expected %d\n", cases[i].ident,
				(int)got, wg_ident_problem_message(got), (int)cases[i].problem);
	}
	CHECK_STR(wg_ident_problem_message(WG_IDENT_BAD_TIMEZONE),
		  "invalid author/committer line - bad time zone");
}

/* An allocator that fails after a budget of allocations. */
struct failing {
	int budget;
	int calls;
};

static void *failing_malloc(size_t n, void *p)
{
	struct failing *f = p;
	if (f->calls++ >= f->budget)
		return NULL;
	return malloc(n ? n : 1);
}

static void *failing_realloc(void *ptr, size_t n, void *p)
{
	struct failing *f = p;
	if (f->calls++ >= f->budget)
		return NULL;
	return realloc(ptr, n ? n : 1);
}

static void failing_free(void *ptr, void *p)
{
	(void)p;
	free(ptr);
}

static void test_out_of_memory(void)
{
	struct failing f;
	struct wg_allocator al = { failing_malloc, failing_realloc, failing_free, &f };
	int a;
	for (a = WG_HASH_SHA1; a <= WG_HASH_SHA256; a++) {
		const struct wg_hash_algo *algo = wg_hash_algo_by_id(a);
		const struct object_fixture *cfx = fixture(a, "merge_mergetag");
		const struct object_fixture *tfx = fixture(a, "signed_tag");
		int budget;
		bool commit_done = false, tag_done = false;
		for (budget = 0; budget < 400 && !(commit_done && tag_done); budget++) {
			struct wg_commit c;
			struct wg_tag t;
			struct wg_buf out = WG_BUF_INIT;
			int rc;
			f.budget = budget;
			f.calls = 0;
			wg_allocator_set(&al);
			rc = wg_commit_parse(&c, algo, cfx->data, cfx->len);
			if (!rc)
				rc = wg_commit_serialize(&c, &out);
			wg_commit_release(&c);
			wg_buf_release(&out);
			CHECK(rc == 0 || rc == WG_ENOMEM);
			commit_done |= rc == 0;
			f.calls = 0;
			rc = wg_tag_parse(&t, algo, tfx->data, tfx->len);
			if (!rc)
				rc = wg_tag_serialize(&t, &out);
			wg_tag_release(&t);
			wg_buf_release(&out);
			wg_allocator_set(NULL);
			CHECK(rc == 0 || rc == WG_ENOMEM);
			tag_done |= rc == 0;
		}
		CHECK(commit_done && tag_done);
	}
}

/* Dates for idents (GIT_COMMITTER_DATE and friends): the three forms, and
 * fields out of range. Found by fuzz_date: a minute of -876927887 (from a
 * number too large for sscanf's %d) overflowed the seconds computation. */
static void test_date_parse(void)
{
	int64_t ts;
	int tz;
	CHECK_OK(wg_date_parse("1700000000 +0100", &ts, &tz));
	CHECK(ts == 1700000000 && tz == 60);
	CHECK_OK(wg_date_parse("2023-11-14 22:13:20 +0000", &ts, &tz));
	CHECK(ts == 1700000000 && tz == 0);
	CHECK_OK(wg_date_parse("Tue, 14 Nov 2023 23:13:20 +0100", &ts, &tz));
	CHECK(ts == 1700000000 && tz == 60);
	CHECK_ERR(wg_date_parse("14 Nov 2023 22:37777777777:20 +0000", &ts, &tz), WG_EINVALID);
	CHECK_ERR(wg_date_parse("14 Nov 2023 -1:00:00 +0000", &ts, &tz), WG_EINVALID);
	CHECK_ERR(wg_date_parse("14 Nov 2023 10:-5:00 +0000", &ts, &tz), WG_EINVALID);
	CHECK_ERR(wg_date_parse("14 Nov 2023 10:05:-3 +0000", &ts, &tz), WG_EINVALID);
	CHECK_ERR(wg_date_parse("2023-11-14 22:-1:20 +0000", &ts, &tz), WG_EINVALID);
	CHECK_ERR(wg_date_parse("2023-13-14 22:13:20 +0000", &ts, &tz), WG_EINVALID);
	/* the hand-written scanner: what sscanf took and what it did not */
	CHECK_OK(wg_date_parse("2023-11-14T22:13:20.123456 +0000", &ts, &tz));
	CHECK(ts == 1700000000 && tz == 0);
	CHECK_OK(wg_date_parse("14  Nov  2023  23:13:20 +0100", &ts, &tz));
	CHECK(ts == 1700000000 && tz == 60);
	CHECK_OK(wg_date_parse("Tue,14 Nov 2023 22:13:20 -0000", &ts, &tz));
	CHECK(ts == 1700000000 && tz == 0);
	CHECK_ERR(wg_date_parse("2023-+1-14 22:13:20 +0000", &ts, &tz), WG_EINVALID);
	CHECK_ERR(wg_date_parse("20231-11-14 22:13:20 +0000", &ts, &tz), WG_EINVALID);
	CHECK_ERR(wg_date_parse("2023-11-14 22:13 +0000", &ts, &tz), WG_EINVALID);
	CHECK_ERR(wg_date_parse("14 Novembre 2023 22:13:20 +0000", &ts, &tz), WG_EINVALID);
	CHECK_ERR(wg_date_parse("14 Xyz 2023 22:13:20 +0000", &ts, &tz), WG_EINVALID);
	CHECK_ERR(wg_date_parse("14 Nov 9999999999 22:13:20 +0000", &ts, &tz), WG_EINVALID);
	CHECK_ERR(wg_date_parse("14 Nov 2023 +1:13:20 +0000", &ts, &tz), WG_EINVALID);
	CHECK_ERR(wg_date_parse("14 Nov", &ts, &tz), WG_EINVALID);
	CHECK_ERR(wg_date_parse("2023-11-14", &ts, &tz), WG_EINVALID);
}

WG_TEST_MAIN("commit_tag",
	WG_TEST(test_date_parse),
	WG_TEST(test_fixture_round_trips),
	WG_TEST(test_commit_fields),
	WG_TEST(test_tag_fields),
	WG_TEST(test_commit_from_scratch),
	WG_TEST(test_tag_from_scratch),
	WG_TEST(test_commit_odd_layouts),
	WG_TEST(test_commit_parse_errors),
	WG_TEST(test_commit_serialize_errors),
	WG_TEST(test_header_field_write),
	WG_TEST(test_tag_parse_errors),
	WG_TEST(test_truncated_at_every_offset),
	WG_TEST(test_ident_parse),
	WG_TEST(test_ident_check),
	WG_TEST(test_out_of_memory))
