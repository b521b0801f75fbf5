/* fsck and path safety: every hand-made object of data/fsck_cases.h checked
 * against what the reference git printed for it (ids, order, and severity
 * once webgit's documented changes are applied), every reachable message id
 * triggered, strict mode, overrides, and every disguise of .git. */
#include "test.h"

#include "hash/oid.h"
#include "object/fsck.h"
#include "object/object.h"
#include "object/path.h"
#include "object/tree.h"
#include "util/buf.h"

#include "data/fsck_cases.h"

#define NCASES (sizeof(fsck_cases) / sizeof(fsck_cases[0]))
#define MAXREP 32

struct collected {
	int n;
	enum wg_fsck_msg_id id[MAXREP];
	enum wg_fsck_severity sev[MAXREP];
	char first_msg[256];
	const struct wg_oid *oid;
	enum wg_object_type type;
	int special[2];
};

static void collect(void *payload, const struct wg_oid *oid, enum wg_object_type type,
		    enum wg_fsck_msg_id id, enum wg_fsck_severity severity, const char *message)
{
	struct collected *c = payload;
	if (!c->n)
		snprintf(c->first_msg, sizeof(c->first_msg), "%s", message);
	if (c->n < MAXREP) {
		c->id[c->n] = id;
		c->sev[c->n] = severity;
	}
	c->n++;
	c->oid = oid;
	c->type = type;
}

static void count_special(void *payload, const struct wg_oid *tree, const struct wg_oid *blob,
			  enum wg_fsck_special kind)
{
	struct collected *c = payload;
	(void)tree;
	(void)blob;
	c->special[kind]++;
}

static int run(const struct fsck_case *fc, bool strict, struct collected *out,
	       const struct wg_oid *oid)
{
	struct wg_fsck_options opts = WG_FSCK_OPTIONS_INIT;
	opts.strict = strict;
	opts.report = collect;
	opts.special_blob = count_special;
	opts.payload = out;
	memset(out, 0, sizeof(*out));
	return wg_fsck_object(&opts, wg_hash_algo_by_id(fc->algo), oid, fc->type, fc->data,
			      fc->len);
}

/* "id:sev id:sev" -> parallel arrays; sev 'e'rror, 'w'arning or '?'. */
static int parse_expect(const char *s, char names[][64], char *sev)
{
	int n = 0;
	while (s && *s && n < MAXREP) {
		const char *colon = strchr(s, ':'), *end = strchr(s, ' ');
		size_t len = (size_t)(colon - s);
		if (!end)
			end = s + strlen(s);
		memcpy(names[n], s, len);
		names[n][len] = '\0';
		sev[n] = colon[1];
		n++;
		s = *end ? end + 1 : end;
	}
	return n;
}

static bool ids_seen[WG_FSCK_MSG_COUNT];

static void check_case(const struct fsck_case *fc, bool strict)
{
	const char *git = strict ? fc->git_strict : fc->git;
	char names[MAXREP][64], sev[MAXREP];
	struct collected got;
	struct wg_oid oid;
	int n, i, rc, errors = 0, before = wg_test_failures;
	bool differs = fc->ours != NULL;

	CHECK_OK(wg_oid_from_hex_str(&oid, wg_hash_algo_by_id(fc->algo), fc->hex));
	rc = run(fc, strict, &got, &oid);
	if (differs) {
		/* A documented difference: compare with our own list, all
		 * of which are errors. */
		n = parse_expect(NULL, names, sev);
		{
			char buf[256];
			char *tok, *save = NULL;
			snprintf(buf, sizeof(buf), "%s", fc->ours);
			for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
				snprintf(names[n], sizeof(names[n]), "%s", tok);
				sev[n++] = 'e';
			}
		}
	} else {
		n = parse_expect(git, names, sev);
	}
	CHECK(got.n == n);
	for (i = 0; i < got.n && i < MAXREP; i++) {
		const char *name = wg_fsck_msg_name(got.id[i]);
		bool is_error = got.sev[i] >= WG_FSCK_ERROR;
		ids_seen[got.id[i]] = true;
		errors += is_error;
		if (i >= n)
			continue;
		CHECK_STR(name, names[i]);
		if (sev[i] == '?')
			continue;
		if (wg_fsck_default_severity(got.id[i]) != wg_fsck_git_default_severity(got.id[i]))
			/* Every webgit change makes an id an error. */
			CHECK(is_error);
		else
			CHECK(is_error == (sev[i] == 'e'));
	}
	CHECK(rc == (errors ? WG_EFSCK : 0));
	if (rc == WG_EFSCK) {
		char prefix[128];
		snprintf(prefix, sizeof(prefix), "error in %s %s: ",
			 wg_object_type_name(fc->type), fc->hex);
		CHECK(!strncmp(wg_error_message(), prefix, strlen(prefix)));
	}
	CHECK(got.n == 0 || (got.oid == &oid && got.type == fc->type));
	if (wg_test_failures != before)
		fprintf(stderr, "case %s (%s): git says '%s', ours '%s', we reported %d: %s\n",
			fc->name, strict ? "strict" : "normal", git,
			fc->ours ? fc->ours : "-", got.n, got.first_msg);
}

static void test_cases_match_git(void)
{
	size_t i;
	for (i = 0; i < NCASES; i++) {
		const struct fsck_case *fc = &fsck_cases[i];
		struct wg_oid oid;
		/* The fixture's bytes are what git hashed. */
		CHECK_OK(wg_object_hash(&oid, wg_hash_algo_by_id(fc->algo), fc->type, fc->data,
					fc->len));
		CHECK_STR(wg_oid_hex(&oid), fc->hex);
		check_case(fc, false);
		check_case(fc, true);
	}
}

static const struct fsck_case *find_case(const char *name)
{
	size_t i;
	for (i = 0; i < NCASES; i++)
		if (!strcmp(fsck_cases[i].name, name))
			return &fsck_cases[i];
	fprintf(stderr, "no case %s\n", name);
	abort();
}

static void test_unknown_type_and_extra_header(void)
{
	struct wg_fsck_options opts = WG_FSCK_OPTIONS_INIT;
	struct collected got;
	const struct fsck_case *fc;
	memset(&got, 0, sizeof(got));
	opts.report = collect;
	opts.payload = &got;
	CHECK_ERR(wg_fsck_object(&opts, wg_hash_algo_by_id(WG_HASH_SHA1), NULL, WG_OBJ_OFS_DELTA,
				 "x", 1), WG_EFSCK);
	CHECK(got.n == 1 && got.id[0] == WG_FSCK_UNKNOWN_TYPE);
	ids_seen[WG_FSCK_UNKNOWN_TYPE] = true;
	/* Without an id the message names only the type. */
	CHECK(!strncmp(wg_error_message(), "error in unknown: unknownType: ", 31));

	/* extraHeaderEntry is ignored unless asked for. */
	fc = find_case("tag_extra_header");
	memset(&got, 0, sizeof(got));
	CHECK_OK(wg_fsck_object(&opts, wg_hash_algo_by_id(fc->algo), NULL, fc->type, fc->data,
				fc->len));
	CHECK(got.n == 0);
	CHECK_OK(wg_fsck_set_severity_by_name(&opts, "extraheaderentry", "error"));
	CHECK_ERR(wg_fsck_object(&opts, wg_hash_algo_by_id(fc->algo), NULL, fc->type, fc->data,
				 fc->len), WG_EFSCK);
	CHECK(got.n == 1 && got.id[0] == WG_FSCK_EXTRA_HEADER_ENTRY);
	CHECK_STR(wg_error_message(), "error in tag: extraHeaderEntry: invalid format - "
		  "extra header(s) after 'tagger'");
	ids_seen[WG_FSCK_EXTRA_HEADER_ENTRY] = true;
	/* A signature header is not an extra header. */
	fc = find_case("tag_gpgsig_ok");
	memset(&got, 0, sizeof(got));
	CHECK_OK(wg_fsck_object(&opts, wg_hash_algo_by_id(fc->algo), NULL, fc->type, fc->data,
				fc->len));
	CHECK(got.n == 0);
	/* Blobs have nothing to check here. */
	CHECK_OK(wg_fsck_object(NULL, wg_hash_algo_by_id(WG_HASH_SHA1), NULL, WG_OBJ_BLOB,
				"\0\0\0", 3));
}

/* Every id this module can report fires in some case. The ones it cannot
 * (refs, blob contents, and the four that the header check makes
 * unreachable in git as well) are listed here. */
static void test_every_reachable_id_seen(void)
{
	static const enum wg_fsck_msg_id unreachable[] = {
		WG_FSCK_BAD_HEAD_TARGET, WG_FSCK_BAD_PACKED_REF_ENTRY,
		WG_FSCK_BAD_PACKED_REF_HEADER, WG_FSCK_BAD_REFERENT_NAME,
		WG_FSCK_BAD_REF_CONTENT, WG_FSCK_BAD_REF_FILETYPE, WG_FSCK_BAD_REF_NAME,
		WG_FSCK_BAD_REF_OID, WG_FSCK_PACKED_REF_ENTRY_NOT_TERMINATED,
		WG_FSCK_PACKED_REF_UNSORTED, WG_FSCK_BAD_REFTABLE_TABLE_NAME,
		WG_FSCK_EMPTY_PACKED_REFS_FILE, WG_FSCK_REF_MISSING_NEWLINE, WG_FSCK_SYMLINK_REF,
		WG_FSCK_SYMREF_TARGET_IS_NOT_A_REF, WG_FSCK_TRAILING_REF_CONTENT,
		WG_FSCK_GITATTRIBUTES_BLOB, WG_FSCK_GITATTRIBUTES_LARGE,
		WG_FSCK_GITATTRIBUTES_LINE_LENGTH, WG_FSCK_GITATTRIBUTES_MISSING,
		WG_FSCK_GITMODULES_BLOB, WG_FSCK_GITMODULES_LARGE, WG_FSCK_GITMODULES_MISSING,
		WG_FSCK_GITMODULES_NAME, WG_FSCK_GITMODULES_PATH, WG_FSCK_GITMODULES_UPDATE,
		WG_FSCK_GITMODULES_URL, WG_FSCK_GITMODULES_PARSE,
		WG_FSCK_BAD_GPGSIG, WG_FSCK_BAD_HEADER_CONTINUATION, WG_FSCK_MISSING_TYPE,
		WG_FSCK_MISSING_TAG,
	};
	bool skip[WG_FSCK_MSG_COUNT] = { false };
	size_t i;
	for (i = 0; i < sizeof(unreachable) / sizeof(unreachable[0]); i++)
		skip[unreachable[i]] = true;
	for (i = 0; i < WG_FSCK_MSG_COUNT; i++) {
		if (skip[i])
			continue;
		CHECK(ids_seen[i]);
		if (!ids_seen[i])
			fprintf(stderr, "fsck id %s was never reported\n",
				wg_fsck_msg_name((enum wg_fsck_msg_id)i));
	}
}

static void test_names_and_severities(void)
{
	CHECK_STR(wg_fsck_msg_name(WG_FSCK_HAS_DOTGIT), "hasDotgit");
	CHECK_STR(wg_fsck_msg_name(WG_FSCK_BAD_OBJECT_SHA1), "badObjectSha1");
	CHECK_STR(wg_fsck_msg_name(WG_FSCK_SYMREF_TARGET_IS_NOT_A_REF), "symrefTargetIsNotARef");
	CHECK_STR(wg_fsck_msg_name(WG_FSCK_NUL_IN_HEADER), "nulInHeader");
	CHECK(wg_fsck_msg_name(WG_FSCK_MSG_COUNT) == NULL);
	CHECK(wg_fsck_msg_from_name("hasDotgit") == WG_FSCK_HAS_DOTGIT);
	CHECK(wg_fsck_msg_from_name("HASDOTGIT") == WG_FSCK_HAS_DOTGIT);
	CHECK(wg_fsck_msg_from_name("zeroPaddedFilemode") == WG_FSCK_ZERO_PADDED_FILEMODE);
	CHECK(wg_fsck_msg_from_name("nosuchthing") == -1);
	CHECK_STR(wg_fsck_severity_name(WG_FSCK_WARN), "warn");

	/* webgit's documented departures from git's defaults, and only those. */
	{
		static const enum wg_fsck_msg_id changed[] = {
			WG_FSCK_HAS_DOT, WG_FSCK_HAS_DOTDOT, WG_FSCK_HAS_DOTGIT,
			WG_FSCK_EMPTY_NAME, WG_FSCK_FULL_PATHNAME, WG_FSCK_BAD_FILEMODE,
		};
		int i, nchanged = 0;
		for (i = 0; i < WG_FSCK_MSG_COUNT; i++)
			nchanged += wg_fsck_default_severity((enum wg_fsck_msg_id)i) !=
				    wg_fsck_git_default_severity((enum wg_fsck_msg_id)i);
		CHECK(nchanged == 6);
		for (i = 0; i < 6; i++)
			CHECK(wg_fsck_default_severity(changed[i]) == WG_FSCK_ERROR);
	}
	CHECK(wg_fsck_default_severity(WG_FSCK_ZERO_PADDED_FILEMODE) == WG_FSCK_WARN);
	CHECK(wg_fsck_default_severity(WG_FSCK_GITMODULES_SYMLINK) == WG_FSCK_ERROR);
	CHECK(wg_fsck_git_default_severity(WG_FSCK_BAD_FILEMODE) == WG_FSCK_INFO);
}

static void test_overrides(void)
{
	struct wg_fsck_options opts = WG_FSCK_OPTIONS_INIT;
	const struct fsck_case *fc = find_case("tree_dotgit");
	const struct wg_hash_algo *algo = wg_hash_algo_by_id(fc->algo);
	struct collected got;
	opts.report = collect;
	opts.payload = &got;

	memset(&got, 0, sizeof(got));
	CHECK_ERR(wg_fsck_object(&opts, algo, NULL, fc->type, fc->data, fc->len), WG_EFSCK);
	CHECK_STR(wg_error_message(), "error in tree: hasDotgit: contains '.git'");
	CHECK_OK(wg_fsck_set_severity_by_name(&opts, "hasDotgit", "warn"));
	memset(&got, 0, sizeof(got));
	CHECK_OK(wg_fsck_object(&opts, algo, NULL, fc->type, fc->data, fc->len));
	CHECK(got.n == 1 && got.sev[0] == WG_FSCK_WARN);
	/* An explicit warn stays a warning under strict, as in git. */
	opts.strict = true;
	memset(&got, 0, sizeof(got));
	CHECK_OK(wg_fsck_object(&opts, algo, NULL, fc->type, fc->data, fc->len));
	CHECK_OK(wg_fsck_set_severity(&opts, WG_FSCK_HAS_DOTGIT, WG_FSCK_IGNORE));
	memset(&got, 0, sizeof(got));
	CHECK_OK(wg_fsck_object(&opts, algo, NULL, fc->type, fc->data, fc->len));
	CHECK(got.n == 0);
	CHECK_OK(wg_fsck_set_severity(&opts, WG_FSCK_HAS_DOTGIT, WG_FSCK_DEFAULT));
	CHECK(wg_fsck_severity_of(&opts, WG_FSCK_HAS_DOTGIT) == WG_FSCK_ERROR);

	/* Fatal ids cannot be demoted below error. */
	CHECK_ERR(wg_fsck_set_severity(&opts, WG_FSCK_NUL_IN_HEADER, WG_FSCK_WARN), WG_EINVALID);
	CHECK_ERR(wg_fsck_set_severity_by_name(&opts, "unterminatedHeader", "ignore"),
		  WG_EINVALID);
	CHECK_OK(wg_fsck_set_severity_by_name(&opts, "unterminatedHeader", "error"));
	CHECK_ERR(wg_fsck_set_severity_by_name(&opts, "hasDotgit", "fatal"), WG_EINVALID);
	CHECK_ERR(wg_fsck_set_severity_by_name(&opts, "noSuchId", "warn"), WG_EINVALID);
	CHECK_ERR(wg_fsck_set_severity(&opts, WG_FSCK_MSG_COUNT, WG_FSCK_WARN), WG_EINVALID);
	CHECK(wg_fsck_severity_of(NULL, WG_FSCK_HAS_DOT) == WG_FSCK_ERROR);

	/* A demoted error no longer stops the checks that follow. */
	fc = find_case("commit_bad_tree_sha1");
	opts.strict = false;
	CHECK_OK(wg_fsck_set_severity_by_name(&opts, "badTreeSha1", "warn"));
	memset(&got, 0, sizeof(got));
	CHECK_OK(wg_fsck_object(&opts, wg_hash_algo_by_id(fc->algo), NULL, fc->type, fc->data,
				fc->len));
	CHECK(got.n == 1 && got.id[0] == WG_FSCK_BAD_TREE_SHA1);
}

static void test_strict(void)
{
	struct wg_fsck_options opts = WG_FSCK_OPTIONS_INIT;
	const struct fsck_case *zp = find_case("tree_zero_padded");
	const struct fsck_case *gw = find_case("tree_mode_100664");
	const struct wg_hash_algo *algo = wg_hash_algo_by_id(WG_HASH_SHA1);
	struct collected got;
	opts.report = collect;
	opts.payload = &got;

	/* A zero-padded mode (redis has them) passes with a warning... */
	memset(&got, 0, sizeof(got));
	CHECK_OK(wg_fsck_object(&opts, algo, NULL, zp->type, zp->data, zp->len));
	CHECK(got.n == 1 && got.id[0] == WG_FSCK_ZERO_PADDED_FILEMODE &&
	      got.sev[0] == WG_FSCK_WARN);
	/* ...and 100664 silently. */
	memset(&got, 0, sizeof(got));
	CHECK_OK(wg_fsck_object(&opts, algo, NULL, gw->type, gw->data, gw->len));
	CHECK(got.n == 0);
	opts.strict = true;
	memset(&got, 0, sizeof(got));
	CHECK_ERR(wg_fsck_object(&opts, algo, NULL, zp->type, zp->data, zp->len), WG_EFSCK);
	CHECK(got.n == 1 && got.sev[0] == WG_FSCK_ERROR);
	memset(&got, 0, sizeof(got));
	CHECK_ERR(wg_fsck_object(&opts, algo, NULL, gw->type, gw->data, gw->len), WG_EFSCK);
	CHECK(got.n == 1 && got.id[0] == WG_FSCK_BAD_FILEMODE);
	/* Info-level ids are not made errors by strict. */
	CHECK(wg_fsck_severity_of(&opts, WG_FSCK_MISSING_TAGGER_ENTRY) == WG_FSCK_INFO);
	CHECK(wg_fsck_severity_of(&opts, WG_FSCK_NULL_SHA1) == WG_FSCK_ERROR);
}

static void test_max_path_len_and_special_blobs(void)
{
	const struct wg_hash_algo *sha1 = wg_hash_algo_by_id(WG_HASH_SHA1);
	struct wg_fsck_options opts = WG_FSCK_OPTIONS_INIT;
	struct wg_tree_builder *b = NULL;
	struct wg_buf tree = WG_BUF_INIT;
	struct wg_oid blob;
	struct collected got;
	wg_oid_empty_blob(&blob, sha1);
	CHECK_OK(wg_tree_builder_new(&b, sha1));
	CHECK_OK(wg_tree_builder_add(b, WG_MODE_BLOB, ".gitmodules", 11, &blob));
	CHECK_OK(wg_tree_builder_add(b, WG_MODE_BLOB, "GI7EBA~1", 8, &blob));
	CHECK_OK(wg_tree_builder_add(b, WG_MODE_BLOB, ".gitattributes", 14, &blob));
	CHECK_OK(wg_tree_builder_add(b, WG_MODE_BLOB, "a\\.gitmodules", 13, &blob));
	CHECK_OK(wg_tree_builder_add(b, WG_MODE_BLOB, "0123456789", 10, &blob));
	CHECK_OK(wg_tree_builder_write(b, &tree));
	opts.report = collect;
	opts.special_blob = count_special;
	opts.payload = &got;
	memset(&got, 0, sizeof(got));
	CHECK_OK(wg_fsck_object(&opts, sha1, NULL, WG_OBJ_TREE, tree.data, tree.len));
	CHECK(got.n == 0);
	CHECK(got.special[WG_FSCK_SPECIAL_GITMODULES] == 3);
	CHECK(got.special[WG_FSCK_SPECIAL_GITATTRIBUTES] == 1);
	opts.max_path_len = 10;
	memset(&got, 0, sizeof(got));
	CHECK_OK(wg_fsck_object(&opts, sha1, NULL, WG_OBJ_TREE, tree.data, tree.len));
	CHECK(got.n == 1 && got.id[0] == WG_FSCK_LARGE_PATHNAME);
	/* And NULL options: defaults, no callbacks. */
	CHECK_OK(wg_fsck_object(NULL, sha1, NULL, WG_OBJ_TREE, tree.data, tree.len));
	wg_buf_release(&tree);
	wg_tree_builder_free(b);
}

static void test_several_errors_message(void)
{
	const struct wg_hash_algo *sha1 = wg_hash_algo_by_id(WG_HASH_SHA1);
	static const char tree[] = "40000 .git\0aaaaaaaaaaaaaaaaaaaa40000 ..\0aaaaaaaaaaaaaaaaaaaa";
	CHECK_ERR(wg_fsck_object(NULL, sha1, NULL, WG_OBJ_TREE, tree, sizeof(tree) - 1), WG_EFSCK);
	/* The first in git's order ("..": hasDotdot), then the rest counted;
	 * the entries are also out of order. */
	CHECK_STR(wg_error_message(), "error in tree: hasDotdot: contains '..' (and more errors)");
}

/* Every prefix and every one-byte corruption of every case: no crash, no
 * read outside the exactly sized buffer, 0 or WG_EFSCK. */
static void test_fsck_never_crashes(void)
{
	static const unsigned char subst[] = { 0, '\n', ' ', '<', '>', '0', 0xff };
	size_t i, cut, s;
	for (i = 0; i < NCASES; i++) {
		const struct fsck_case *fc = &fsck_cases[i];
		const struct wg_hash_algo *algo = wg_hash_algo_by_id(fc->algo);
		size_t len = fc->len > 600 ? 600 : fc->len;
		for (cut = 0; cut <= len; cut++) {
			unsigned char *copy = malloc(cut ? cut : 1);
			int rc;
			memcpy(copy, fc->data, cut);
			rc = wg_fsck_object(NULL, algo, NULL, fc->type, copy, cut);
			CHECK(rc == 0 || rc == WG_EFSCK);
			/* The last byte of the prefix replaced: corruption at
			 * every offset of the object. */
			for (s = 0; cut && s < sizeof(subst); s++) {
				unsigned char keep = copy[cut - 1];
				copy[cut - 1] = subst[s];
				rc = wg_fsck_object(NULL, algo, NULL, fc->type, copy, cut);
				CHECK(rc == 0 || rc == WG_EFSCK);
				copy[cut - 1] = keep;
			}
			free(copy);
		}
	}
}

/* --- path.h ------------------------------------------------------------ */

static bool is_dotgit(const char *s)
{
	return wg_path_is_dotgit(s, strlen(s));
}

static void test_dotgit_disguises(void)
{
	static const char *const yes[] = {
		".git", ".GIT", ".Git", ".gIt", ".git ", ".Git ", ".git.", ".git..", ".git . .",
		".git::$INDEX_ALLOCATION", ".git:foo", ".git/", ".git/config", ".git\\config",
		"git~1", "GIT~1", "Git~1", "git~1.", "git~1 ", "git~1::$INDEX_ALLOCATION",
		".g\342\200\214it",          /* U+200C ZERO WIDTH NON-JOINER */
		".gi\342\200\215t",          /* U+200D */
		"\342\200\216.git",          /* U+200E before the dot */
		".git\342\200\217",          /* U+200F at the end */
		".\342\200\252git",          /* U+202A */
		".g\342\200\256it",          /* U+202E */
		".gi\342\201\257t",          /* U+206F */
		"\357\273\277.git",          /* U+FEFF */
		".\357\273\277G\357\273\277I\357\273\277T",
		".git\377",                  /* malformed UTF-8 after .git */
	};
	static const char *const no[] = {
		"", ".", "..", "git", ".gi", ".gitx", ".git-", "x.git", "git~2", "git~10", "git~",
		".git x", ".g\342\200\213it",   /* U+200B is not ignored by HFS+ */
		".g\303\255t",               /* í */
		".\303\247it",
		"..git", "gitmodules", ".gi\342\200\214",
	};
	size_t i;
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		CHECK(is_dotgit(yes[i]));
		if (!is_dotgit(yes[i]))
			fprintf(stderr, "not seen as .git: '%s'\n", yes[i]);
		CHECK(!wg_path_component_valid(yes[i], strlen(yes[i]), WG_MODE_TREE));
	}
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		CHECK(!is_dotgit(no[i]));
		if (is_dotgit(no[i]))
			fprintf(stderr, "wrongly seen as .git: '%s'\n", no[i]);
	}
	/* Each form specifically. */
	CHECK(wg_path_is_hfs_dotgit(".g\342\200\214it", 7));
	CHECK(!wg_path_is_ntfs_dotgit(".g\342\200\214it", 7));
	CHECK(wg_path_is_ntfs_dotgit("git~1", 5));
	CHECK(!wg_path_is_hfs_dotgit("git~1", 5));
	CHECK(wg_path_is_ntfs_dotgit(".git. ", 6));
	CHECK(!wg_path_is_hfs_dotgit(".git. ", 6));
	/* Bounded: the length is honoured, nothing past it is read. */
	CHECK(wg_path_is_dotgit(".gitx", 4));
	CHECK(!wg_path_is_dotgit(".git", 3));
	CHECK(!wg_path_is_dotgit(".g\342\200\214it", 4));
}

static void test_dotgitmodules_disguises(void)
{
	static const char *const yes[] = {
		".gitmodules", ".GITMODULES", ".gitmodules ", ".gitmodules.", ".gitmodules:x",
		"gitmod~1", "GITMOD~4", "gitmod~1 .", "gi7eba~1", "GI7EBA~9", "gi7eb~12",
		"gi7e~123", "~1234567", ".gitmodules\342\200\214", ".g\342\200\215itmodules",
	};
	static const char *const no[] = {
		".gitmodule", ".gitmodulesx", "gitmod~5", "gitmod~0", "gi7eba~0", "gi7eba~1x",
		"gi7ebb~1", "gi7eba~", "gitmodules", ".gitmodules\\", "gi7eba\303\251~1",
	};
	size_t i;
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		CHECK(wg_path_is_dotgitmodules(yes[i], strlen(yes[i])));
		if (!wg_path_is_dotgitmodules(yes[i], strlen(yes[i])))
			fprintf(stderr, "not seen as .gitmodules: '%s'\n", yes[i]);
		/* Only as a symbolic link is it refused at checkout. */
		CHECK(wg_path_component_valid(yes[i], strlen(yes[i]), WG_MODE_BLOB));
		CHECK(!wg_path_component_valid(yes[i], strlen(yes[i]), WG_MODE_SYMLINK));
	}
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		CHECK(!wg_path_is_dotgitmodules(no[i], strlen(no[i])));
		if (wg_path_is_dotgitmodules(no[i], strlen(no[i])))
			fprintf(stderr, "wrongly seen as .gitmodules: '%s'\n", no[i]);
	}
	CHECK(wg_path_is_hfs_dotgitmodules(".gitmodules\342\200\214", 14));
	CHECK(!wg_path_is_ntfs_dotgitmodules(".gitmodules\342\200\214", 14));
	CHECK(wg_path_is_ntfs_dotgitmodules("GI7EBA~1", 8));
	CHECK(wg_path_is_dotgitattributes(".gitattributes", 14));
	CHECK(wg_path_is_dotgitattributes("gi7d29~1", 8));
	CHECK(wg_path_is_dotgitattributes("gitatt~2", 8));
	CHECK(!wg_path_is_dotgitattributes(".gitattribute", 13));
	CHECK(wg_path_is_dotgitignore(".GitIgnore", 10));
	CHECK(wg_path_is_dotgitignore("gi250a~1", 8));
	CHECK(wg_path_is_dotmailmap(".mailmap", 8));
	CHECK(wg_path_is_dotmailmap("maba30~1", 8));
	CHECK(!wg_path_is_dotmailmap("mailmap", 7));
}

static void test_component_valid(void)
{
	static const char *const bad[] = { "", ".", "..", "a/b", "/", ".git", ".GIT ", "git~1",
					   "x\\.git", "x\\git~1\\y", ".git::$INDEX_ALLOCATION" };
	static const char *const good[] = { "a", "...", ".a", "..a", "a..", ".gitignore",
					    ".gitx", "git~2", "x\\y", " ", "naïve", ".git-rewrite" };
	size_t i;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(!wg_path_component_valid(bad[i], strlen(bad[i]), WG_MODE_BLOB));
		CHECK_ERR(wg_path_check_component(bad[i], strlen(bad[i]), WG_MODE_BLOB),
			  WG_EINVALID);
	}
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		CHECK(wg_path_component_valid(good[i], strlen(good[i]), WG_MODE_BLOB));
		CHECK_OK(wg_path_check_component(good[i], strlen(good[i]), WG_MODE_SYMLINK));
	}
	CHECK(!wg_path_component_valid("a\0b", 3, WG_MODE_BLOB));
	CHECK_ERR(wg_path_check_component(".Git", 4, WG_MODE_TREE), WG_EINVALID);
	CHECK(strstr(wg_error_message(), ".Git") != NULL);
	CHECK(!wg_path_component_valid("x\\.gitmodules", 13, WG_MODE_SYMLINK));
	CHECK(wg_path_component_valid("x\\.gitmodules", 13, WG_MODE_BLOB));

	CHECK_OK(wg_path_check("a/b/c.txt", 9, WG_MODE_BLOB));
	CHECK_OK(wg_path_check("a", 1, WG_MODE_BLOB));
	CHECK_OK(wg_path_check("sub/.gitmodules", 15, WG_MODE_BLOB));
	CHECK_ERR(wg_path_check("sub/.gitmodules", 15, WG_MODE_SYMLINK), WG_EINVALID);
	CHECK_ERR(wg_path_check("", 0, WG_MODE_BLOB), WG_EINVALID);
	CHECK_ERR(wg_path_check("/etc/passwd", 11, WG_MODE_BLOB), WG_EINVALID);
	CHECK_ERR(wg_path_check("a//b", 4, WG_MODE_BLOB), WG_EINVALID);
	CHECK_ERR(wg_path_check("a/", 2, WG_MODE_BLOB), WG_EINVALID);
	CHECK_ERR(wg_path_check("a/../b", 6, WG_MODE_BLOB), WG_EINVALID);
	CHECK_ERR(wg_path_check("a/.GIT/hooks/x", 14, WG_MODE_BLOB), WG_EINVALID);
	CHECK_ERR(wg_path_check("a/git~1/hooks", 13, WG_MODE_BLOB), WG_EINVALID);
	CHECK_ERR(wg_path_check("./a", 3, WG_MODE_BLOB), WG_EINVALID);
	/* A .gitmodules directory is only a problem as a symlink leaf. */
	CHECK_OK(wg_path_check(".gitmodules/x", 13, WG_MODE_SYMLINK));
}

WG_TEST_MAIN("fsck",
	WG_TEST(test_cases_match_git),
	WG_TEST(test_unknown_type_and_extra_header),
	WG_TEST(test_every_reachable_id_seen),
	WG_TEST(test_names_and_severities),
	WG_TEST(test_overrides),
	WG_TEST(test_strict),
	WG_TEST(test_max_path_len_and_special_blobs),
	WG_TEST(test_several_errors_message),
	WG_TEST(test_fsck_never_crashes),
	WG_TEST(test_dotgit_disguises),
	WG_TEST(test_dotgitmodules_disguises),
	WG_TEST(test_component_valid))
