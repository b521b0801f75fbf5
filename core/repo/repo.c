#include "repo/repo.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "odb/loose.h"
#include "odb/pack_backend.h"
#include "refs/refname.h"
#include "repo/revparse.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/staged_dir.h"

struct wg_repo {
	char *gitdir;
	char *workdir;  /* NULL when bare */
	bool bare;
	const struct wg_hash_algo *algo;
	enum wg_ref_format ref_format;
	struct wg_config *config;
	struct wg_config *user_config[2];  /* ~/.gitconfig, XDG; may be NULL */
	struct wg_odb *odb;
	struct wg_refdb *refdb;
	/* A new repository built aside, not yet published (init's `staged`),
	 * and the path to open once it is. */
	struct wg_staged_dir stage;
	char *publish_path;
	int abbrev_len;   /* wg_repo_abbrev_len_memo */
};

void wg_repo_free(struct wg_repo *repo)
{
	if (!repo)
		return;
	wg_odb_free(repo->odb);
	wg_refdb_free(repo->refdb);
	wg_config_free(repo->config);
	wg_config_free(repo->user_config[0]);
	wg_config_free(repo->user_config[1]);
	wg_free(repo->gitdir);
	wg_free(repo->workdir);
	wg_staged_dir_release(&repo->stage);
	wg_free(repo->publish_path);
	wg_free(repo);
}

const char *wg_repo_gitdir(const struct wg_repo *repo) { return repo->gitdir; }
const char *wg_repo_workdir(const struct wg_repo *repo) { return repo->workdir; }
bool wg_repo_is_bare(const struct wg_repo *repo) { return repo->bare; }
const struct wg_hash_algo *wg_repo_algo(const struct wg_repo *repo) { return repo->algo; }
int wg_repo_abbrev_len_memo(const struct wg_repo *repo) { return repo->abbrev_len; }
void wg_repo_set_abbrev_len_memo(struct wg_repo *repo, int len) { repo->abbrev_len = len; }
enum wg_ref_format wg_repo_ref_format(const struct wg_repo *repo) { return repo->ref_format; }
struct wg_odb *wg_repo_odb(struct wg_repo *repo) { return repo->odb; }
struct wg_config *wg_repo_config(struct wg_repo *repo) { return repo->config; }
struct wg_refdb *wg_repo_refdb(struct wg_repo *repo) { return repo->refdb; }

static char *absolute_path(const char *path)
{
	char *real = wg_fs_realpath(path);
	char *copy;
	if (!real)
		return NULL;
	/* realpath's memory comes from libc; keep ours on our allocator. */
	copy = wg_strdup(real);
	free(real);
	return copy;
}

int wg_repo_require_workdir(const struct wg_repo *repo)
{
	if (!wg_repo_workdir(repo))
		return wg_error_set(WG_EINVALID, "this operation must be run in a work tree");
	return 0;
}

/* Extensions git knows: those valid in a version-0 repository are ignored
 * there when unknown; the others need version 1 (Documentation/config/
 * extensions.adoc). We refuse any extension we do not implement. */
static const char *const v0_extensions[] = { "noop", "partialclone", "preciousobjects",
					      "worktreeconfig", NULL };
static const char *const v1_extensions[] = { "noop-v1", "objectformat", "refstorage", NULL };

static bool in_list(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

struct ext_check {
	int64_t version;
	int err;
};

static int check_extension(const char *key, const char *value, void *payload)
{
	struct ext_check *c = payload;
	const char *name;
	(void)value;
	if (strncmp(key, "extensions.", 11))
		return 0;
	name = key + 11;
	if (in_list(v0_extensions, name))
		return 0;
	if (in_list(v1_extensions, name)) {
		if (c->version < 1)
			return c->err = wg_error_set(WG_EUNSUPPORTED,
				"repo version is 0, but v1-only extension found: %s", name);
		return 0;
	}
	if (c->version >= 1)
		return c->err = wg_error_set(WG_EUNSUPPORTED,
			"unknown repository extension found: %s", name);
	return 0;
}

/* Read config and honour core.repositoryformatversion and extensions.* */
static int load_config(struct wg_repo *repo)
{
	struct wg_buf path = WG_BUF_INIT;
	struct ext_check check = { 0, 0 };
	const char *value = NULL;
	bool bare = false;
	int err;

	if ((err = wg_fs_join(&path, repo->gitdir, "config")))
		return err;
	err = wg_config_read_file(&repo->config, (const char *)path.data);
	wg_buf_release(&path);
	if (err)
		return err;
	err = wg_config_get_int64(repo->config, "core.repositoryformatversion", &check.version);
	if (err == WG_ENOTFOUND)
		check.version = 0;
	else if (err)
		return err;
	if (check.version < 0 || check.version > 1)
		return wg_error_set(WG_EUNSUPPORTED, "Expected git repo version <= 1, found %lld",
				    (long long)check.version);
	if ((err = wg_config_foreach(repo->config, check_extension, &check)))
		return check.err ? check.err : err;

	repo->algo = wg_hash_algo_by_id(WG_HASH_SHA1);
	err = wg_config_get_string(repo->config, "extensions.objectformat", &value);
	if (!err && check.version >= 1) {
		if (!value || !(repo->algo = wg_hash_algo_by_name(value)))
			return wg_error_set(WG_EUNSUPPORTED, "invalid value for "
					    "'extensions.objectformat': '%s'", value ? value : "");
	} else if (err && err != WG_ENOTFOUND) {
		return err;
	}

	repo->ref_format = WG_REF_FORMAT_FILES;
	err = wg_config_get_string(repo->config, "extensions.refstorage", &value);
	if (!err && check.version >= 1) {
		if (value && !strcmp(value, "reftable"))
			repo->ref_format = WG_REF_FORMAT_REFTABLE;
		else if (!value || strcmp(value, "files"))
			return wg_error_set(WG_EUNSUPPORTED, "invalid value for "
					    "'extensions.refstorage': '%s'", value ? value : "");
	} else if (err && err != WG_ENOTFOUND) {
		return err;
	}

	err = wg_config_get_bool(repo->config, "core.bare", &bare);
	if (err && err != WG_ENOTFOUND)
		return err;
	repo->bare = err ? repo->workdir == NULL : bare;
	wg_error_clear();
	return 0;
}

/* The limits git has a config key for (util/limits.h): core.maxTreeDepth,
 * from the repository's config, else the user's. */
static int apply_limits(struct wg_repo *repo)
{
	struct wg_config *cfgs[3] = { repo->config, repo->user_config[0], repo->user_config[1] };
	struct wg_limits limits = *wg_odb_limits(repo->odb);
	int64_t v;
	size_t i;
	for (i = 0; i < 3; i++) {
		int err;
		if (!cfgs[i])
			continue;
		err = wg_config_get_int64(cfgs[i], "core.maxtreedepth", &v);
		if (err == WG_ENOTFOUND)
			continue;
		if (err)
			return err;
		if (v < 1 || v > UINT32_MAX)
			return wg_error_set(WG_EINVALID, "bad core.maxTreeDepth %lld: it must be a "
					    "positive number", (long long)v);
		limits.max_tree_depth = (uint32_t)v;
		wg_odb_set_limits(repo->odb, &limits);
		break;
	}
	wg_error_clear();
	return 0;
}

static int open_odb(struct wg_repo *repo)
{
	struct wg_buf path = WG_BUF_INIT;
	struct wg_odb_backend *loose = NULL, *packed = NULL;
	int err;
	/* Packs are asked first: in a gc'd repository nearly every object is
	 * packed (git's order too). Writes go to loose, the only writer. */
	if ((err = wg_fs_join(&path, repo->gitdir, "objects")) ||
	    (err = wg_odb_new(&repo->odb, repo->algo)) ||
	    (err = wg_odb_loose_new(&loose, (const char *)path.data, repo->algo, NULL)) ||
	    (err = wg_odb_add_backend(repo->odb, loose, 0)) ||
	    (err = wg_buf_adds(&path, "/pack")) ||
	    (err = wg_odb_pack_new(&packed, (const char *)path.data, repo->algo)) ||
	    (err = wg_odb_add_backend(repo->odb, packed, 1))) {
		wg_buf_release(&path);
		return err;
	}
	wg_buf_release(&path);
	return apply_limits(repo);
}

/* Does `dir` look like a git directory? (git's is_git_directory: HEAD,
 * objects/ and refs/ present.) */
static bool is_git_directory(const char *dir)
{
	struct wg_buf p = WG_BUF_INIT;
	bool ok = !wg_fs_join(&p, dir, "HEAD") && wg_fs_exists((const char *)p.data) &&
		  !wg_fs_join(&p, dir, "objects") && wg_fs_is_dir((const char *)p.data) &&
		  !wg_fs_join(&p, dir, "refs") && wg_fs_exists((const char *)p.data);
	wg_buf_release(&p);
	return ok;
}

/* Read a ".git" file ("gitdir: <path>") into an absolute git directory. */
static int read_gitfile(char **out, const char *dotgit, const char *workdir)
{
	struct wg_buf content = WG_BUF_INIT, target = WG_BUF_INIT;
	int err;
	size_t len;
	if ((err = wg_fs_read_file(&content, dotgit)))
		return err;
	len = content.len;
	while (len && (content.data[len - 1] == '\n' || content.data[len - 1] == '\r'))
		len--;
	if (len < 8 || memcmp(content.data, "gitdir: ", 8)) {
		err = wg_error_set(WG_ECORRUPT, "invalid gitfile format: %s", dotgit);
		goto done;
	}
	if (content.data[8] == '/')
		err = wg_buf_add(&target, content.data + 8, len - 8);
	else
		err = wg_buf_printf(&target, "%s/%.*s", workdir, (int)(len - 8),
				    (const char *)content.data + 8);
	if (err)
		goto done;
	if (!is_git_directory((const char *)target.data)) {
		err = wg_error_set(WG_ENOTFOUND, "not a git repository: %s",
				   (const char *)target.data);
		goto done;
	}
	if (!(*out = absolute_path((const char *)target.data)))
		err = wg_error_set(WG_EIO, "cannot resolve '%s': %s", (const char *)target.data,
				   strerror(errno));
done:
	wg_buf_release(&content);
	wg_buf_release(&target);
	return err;
}

/* Fill gitdir/workdir from a directory that is a working tree (has .git)
 * or a git directory. WG_ENOTFOUND if it is neither. */
static int locate(struct wg_repo *repo, const char *dir)
{
	struct wg_buf dotgit = WG_BUF_INIT;
	int err = 0;
	if ((err = wg_fs_join(&dotgit, dir, ".git")))
		return err;
	if (wg_fs_is_dir((const char *)dotgit.data) && is_git_directory((const char *)dotgit.data)) {
		repo->gitdir = absolute_path((const char *)dotgit.data);
		repo->workdir = absolute_path(dir);
		if (!repo->gitdir || !repo->workdir)
			err = wg_error_set(WG_EIO, "cannot resolve '%s': %s", dir, strerror(errno));
	} else if (wg_fs_exists((const char *)dotgit.data) && !wg_fs_is_dir((const char *)dotgit.data)) {
		char *wd = absolute_path(dir);
		if (!wd)
			err = wg_error_set(WG_EIO, "cannot resolve '%s': %s", dir, strerror(errno));
		else if (!(err = read_gitfile(&repo->gitdir, (const char *)dotgit.data, wd)))
			repo->workdir = wd;
		else
			wg_free(wd);
	} else if (is_git_directory(dir)) {
		if (!(repo->gitdir = absolute_path(dir)))
			err = wg_error_set(WG_EIO, "cannot resolve '%s': %s", dir, strerror(errno));
	} else {
		err = wg_error_set(WG_ENOTFOUND, "not a git repository: %s", dir);
	}
	wg_buf_release(&dotgit);
	return err;
}

/* The refdb's peeler (pack-refs writes ^peeled lines): 1 and the first
 * non-tag object for an annotated tag, 0 for anything else. */
static int peel_tag(struct wg_oid *out, const struct wg_oid *oid, void *payload)
{
	struct wg_repo *repo = payload;
	enum wg_object_type type;
	size_t size;
	int err = wg_odb_read_header(repo->odb, oid, &type, &size);
	if (err)
		return err;
	if (type != WG_OBJ_TAG)
		return 0;
	if ((err = wg_object_peel(out, repo, oid, WG_OBJ_NONE)))
		return err;
	return 1;
}

/* Options for the ref database from config and environment, as git reads
 * them: core.logAllRefUpdates (default true unless bare) and the reflog
 * identity (GIT_COMMITTER_NAME/EMAIL/DATE, then user.name/user.email). */
static int open_refdb(struct wg_repo *repo)
{
	struct wg_refdb_options opts = WG_REFDB_OPTIONS_INIT;
	const char *v = NULL;
	bool b;

	opts.log_all_ref_updates = repo->bare ? WG_LOG_REFS_NONE : WG_LOG_REFS_NORMAL;
	if (!wg_config_get_string(repo->config, "core.logallrefupdates", &v) && v &&
	    !strcasecmp(v, "always"))
		opts.log_all_ref_updates = WG_LOG_REFS_ALWAYS;
	else if (!wg_config_get_bool(repo->config, "core.logallrefupdates", &b))
		opts.log_all_ref_updates = b ? WG_LOG_REFS_NORMAL : WG_LOG_REFS_NONE;
	opts.committer_name = getenv("GIT_COMMITTER_NAME");
	if (!opts.committer_name && !wg_repo_config_get(repo, "user.name", &v))
		opts.committer_name = v;
	opts.committer_email = getenv("GIT_COMMITTER_EMAIL");
	if (!opts.committer_email && !wg_repo_config_get(repo, "user.email", &v))
		opts.committer_email = v;
	if (!opts.committer_email)
		opts.committer_email = getenv("EMAIL");
	if (!opts.committer_name)
		opts.committer_name = getenv("USER");
	opts.committer_date = getenv("GIT_COMMITTER_DATE");
	if (opts.committer_date && !*opts.committer_date)
		opts.committer_date = NULL;
	opts.peel = peel_tag;
	opts.peel_payload = repo;
	wg_error_clear();
	return wg_refdb_open(&repo->refdb, repo->gitdir, repo->ref_format, repo->algo, &opts);
}

/* The per-user config files git reads beneath the repository's own:
 * ~/.gitconfig, then $XDG_CONFIG_HOME/git/config (or ~/.config/git/config).
 * Missing or unreadable files are simply absent. */
void wg_user_config_read(struct wg_config *out[2])
{
	const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
	struct wg_buf p = WG_BUF_INIT;
	out[0] = out[1] = NULL;
	if (home && *home && !wg_buf_printf(&p, "%s/.gitconfig", home) &&
	    wg_config_read_file(&out[1], (const char *)p.data))
		out[1] = NULL;
	wg_buf_reset(&p);
	if (((xdg && *xdg && !wg_buf_printf(&p, "%s/git/config", xdg)) ||
	     (home && *home && !wg_buf_printf(&p, "%s/.config/git/config", home))) &&
	    wg_config_read_file(&out[0], (const char *)p.data))
		out[0] = NULL;
	wg_buf_release(&p);
	wg_error_clear();
}

static void load_user_configs(struct wg_repo *repo)
{
	struct wg_config *files[2];
	wg_user_config_read(files);
	repo->user_config[0] = files[1];
	repo->user_config[1] = files[0];
}

void wg_repo_config_files(struct wg_repo *repo, const struct wg_config *out[3])
{
	out[0] = repo->user_config[1];
	out[1] = repo->user_config[0];
	out[2] = repo->config;
}

int wg_repo_config_get(struct wg_repo *repo, const char *key, const char **out)
{
	int i, err = wg_config_get_string(repo->config, key, out);
	for (i = 0; i < 2 && err == WG_ENOTFOUND; i++)
		if (repo->user_config[i])
			err = wg_config_get_string(repo->user_config[i], key, out);
	return err;
}

static int finish_open(struct wg_repo *repo)
{
	int err;
	if ((err = load_config(repo)))
		return err;
	load_user_configs(repo);
	if ((err = open_odb(repo)) || (err = open_refdb(repo)))
		return err;
	if (repo->bare && repo->workdir) {
		/* core.bare = true in a ".git" directory: git treats it as bare. */
		wg_free(repo->workdir);
		repo->workdir = NULL;
	}
	return 0;
}

int wg_repo_open(struct wg_repo **out, const char *path)
{
	struct wg_repo *repo = wg_calloc(1, sizeof(*repo));
	int err;
	if (!repo)
		return wg_error_set(WG_ENOMEM, "out of memory opening a repository");
	if ((err = locate(repo, path)) || (err = finish_open(repo))) {
		wg_repo_free(repo);
		return err;
	}
	*out = repo;
	return 0;
}

int wg_repo_discover(struct wg_repo **out, const char *start)
{
	char *dir = absolute_path(start);
	int err;
	if (!dir)
		return wg_error_set(WG_ENOTFOUND, "cannot resolve '%s': %s", start, strerror(errno));
	for (;;) {
		char *slash;
		err = wg_repo_open(out, dir);
		if (err != WG_ENOTFOUND)
			break;
		slash = strrchr(dir, '/');
		if (!slash || slash == dir) {
			err = wg_error_set(WG_ENOTFOUND, "not a git repository (or any of the "
					   "parent directories): .git");
			break;
		}
		*slash = '\0';
	}
	wg_free(dir);
	return err;
}

/* --- init ------------------------------------------------------------------ */

static int write_file_if_missing(const char *dir, const char *name, const char *content)
{
	struct wg_buf path = WG_BUF_INIT;
	int err;
	if ((err = wg_fs_join(&path, dir, name)))
		return err;
	err = wg_fs_write_new_file((const char *)path.data, content, strlen(content), 0666);
	if (err == WG_EEXISTS) {
		wg_error_clear();
		err = 0;
	}
	wg_buf_release(&path);
	return err;
}

static int make_dirs(const char *gitdir, const char *const *names)
{
	struct wg_buf path = WG_BUF_INIT;
	int err = 0;
	for (; *names && !err; names++)
		if (!(err = wg_fs_join(&path, gitdir, *names)))
			err = wg_fs_mkdir_p((const char *)path.data);
	wg_buf_release(&path);
	return err;
}

/* Does this filesystem keep the executable bit? (git init's probe) A file
 * system that refuses chmod has no file modes; one that fails with an I/O
 * error is failing, and init says so rather than guessing. */
static int probe_filemode(bool *out, const char *gitdir)
{
	struct wg_buf path = WG_BUF_INIT;
	struct stat st;
	int err = 0;
	*out = false;
	if (!wg_fs_join(&path, gitdir, "config") && !wg_fs_stat((const char *)path.data, &st)) {
		const char *p = (const char *)path.data;
		if (wg_fs_chmod(p, st.st_mode ^ S_IXUSR)) {
			if (errno == EIO || errno == ENOSPC)
				err = wg_error_set(WG_EIO, "cannot chmod '%s': %s", p, strerror(errno));
		} else {
			*out = !wg_fs_stat(p, &st) && (st.st_mode & S_IXUSR);
			if (wg_fs_chmod(p, st.st_mode & ~(mode_t)S_IXUSR) &&
			    (errno == EIO || errno == ENOSPC))
				err = wg_error_set(WG_EIO, "cannot chmod '%s': %s", p,
						   strerror(errno));
		}
	}
	wg_buf_release(&path);
	return err;
}

/* Can this file system hold symbolic links? (git init's probe: where it
 * cannot, core.symlinks = false makes checkout write a link as a file
 * holding its target.) Browsers' IndexedDB storage cannot keep them. As
 * with the file-mode probe, an I/O error is an error, not an answer. */
static int probe_symlinks(bool *out, const char *gitdir)
{
	struct wg_buf path = WG_BUF_INIT;
	struct stat st;
	int err = 0;
	*out = false;
	if (!(err = wg_fs_join(&path, gitdir, "webgit-symlink-probe"))) {
		const char *p = (const char *)path.data;
		if (wg_fs_symlink("testing", p)) {
			/* no links here, unless the file system is failing */
			if (errno == EIO || errno == ENOSPC || errno == EEXIST)
				err = wg_error_set(WG_EIO, "cannot create '%s': %s", p,
						   strerror(errno));
		} else {
			if (wg_fs_lstat(p, &st))
				err = wg_error_set(WG_EIO, "cannot stat '%s': %s", p,
						   strerror(errno));
			else
				*out = S_ISLNK(st.st_mode);
			if (wg_fs_unlink(p) && !err)
				err = wg_error_set(WG_EIO, "cannot remove '%s': %s", p,
						   strerror(errno));
		}
	}
	wg_buf_release(&path);
	return err;
}

static int write_init_config(const char *gitdir, const struct wg_hash_algo *algo,
			     enum wg_ref_format ref_format, bool bare)
{
	struct wg_config *cfg = NULL;
	struct wg_buf path = WG_BUF_INIT;
	const char *existing = NULL;
	bool v1 = algo->id != WG_HASH_SHA1 || ref_format != WG_REF_FORMAT_FILES;
	bool filemode, symlinks, existing_config = false;
	int err;

	if ((err = wg_fs_join(&path, gitdir, "config")))
		return err;
	err = wg_config_read_file(&cfg, (const char *)path.data);
	existing_config = !err;
	if (err == WG_ENOTFOUND) {
		/* Create the file first so the filemode probe has a target. */
		if ((err = wg_fs_write_new_file((const char *)path.data, "", 0, 0666)) ||
		    (err = wg_config_new(&cfg)))
			goto done;
	} else if (err) {
		goto done;
	} else if (!wg_config_get_string(cfg, "extensions.objectformat", &existing) &&
		   existing && strcmp(existing, algo->name)) {
		err = wg_error_set(WG_EINVALID, "attempt to reinitialize repository with "
				   "different hash");
		goto done;
	}
	wg_error_clear();
	if ((err = probe_filemode(&filemode, gitdir)) ||
	    (err = wg_config_set_string(cfg, "core.repositoryformatversion", v1 ? "1" : "0")) ||
	    (err = wg_config_set_string(cfg, "core.filemode", filemode ? "true" : "false")) ||
	    (err = wg_config_set_string(cfg, "core.bare", bare ? "true" : "false")))
		goto done;
	if (!bare && (err = wg_config_set_string(cfg, "core.logallrefupdates", "true")))
		goto done;
	if (!existing_config && ((err = probe_symlinks(&symlinks, gitdir)) ||
				 (!symlinks && (err = wg_config_set_string(cfg, "core.symlinks",
									    "false")))))
		goto done;
	if (algo->id != WG_HASH_SHA1 &&
	    (err = wg_config_set_string(cfg, "extensions.objectformat", algo->name)))
		goto done;
	if (ref_format == WG_REF_FORMAT_REFTABLE &&
	    (err = wg_config_set_string(cfg, "extensions.refstorage", "reftable")))
		goto done;
	err = wg_config_write_file(cfg, (const char *)path.data);
done:
	wg_config_free(cfg);
	wg_buf_release(&path);
	return err;
}

/* Write what init makes into gitdir: its directories, config, the ref
 * backend's files and HEAD, the description. A re-init keeps what is
 * there. */
static int write_gitdir(const char *gitdir, const struct wg_hash_algo *algo,
			enum wg_ref_format ref_format, bool bare, const char *branch)
{
	/* refs/heads and refs/tags come from the ref backend: directories for
	 * the files format, a marker file (refs/heads) for reftable. */
	static const char *const dirs[] = { "objects/info", "objects/pack", "info", NULL };
	struct wg_buf head = WG_BUF_INIT;
	int err;

	if (!(err = wg_fs_mkdir_p(gitdir)) && !(err = make_dirs(gitdir, dirs)) &&
	    !(err = write_init_config(gitdir, algo, ref_format, bare)) &&
	    !(err = wg_buf_printf(&head, "refs/heads/%s", branch)) &&
	    !(err = wg_refdb_init(gitdir, ref_format, algo, (const char *)head.data)))
		err = write_file_if_missing(gitdir, "description",
			"Unnamed repository; edit this file 'description' to name the repository.\n");
	wg_buf_release(&head);
	return err;
}

/* Take back what a failed first init made in place (the directory that
 * was there empty stays, empty), keeping the error it reported. */
static void undo_init_in_place(const char *path)
{
	struct wg_error_saved first;
	void *dir;
	const char *name;
	struct wg_buf p = WG_BUF_INIT;

	wg_error_save(&first);
	if ((dir = wg_fs_opendir(path))) {
		while ((name = wg_fs_readdir(dir)))
			if (strcmp(name, ".") && strcmp(name, "..") && !wg_fs_join(&p, path, name))
				wg_fs_remove_tree((const char *)p.data);
		wg_fs_closedir(dir);
	}
	wg_buf_release(&p);
	wg_error_restore(&first);
}

/* A first init builds the repository aside and renames it into place
 * (util/staged_dir), so that even a killed process leaves nothing at
 * `path`: the whole directory when `path` does not exist, else (a
 * working tree that exists, empty or not) its ".git". Only a bare
 * repository in an existing empty directory is built in place, and taken
 * back if init fails; a re-init only replaces files atomically. */
int wg_repo_init(struct wg_repo **out, const char *path, const struct wg_repo_init_options *opts)
{
	static const struct wg_repo_init_options defaults = WG_REPO_INIT_OPTIONS_INIT;
	const struct wg_hash_algo *algo;
	/* Git 3.0's default, as for the hash. */
	enum wg_ref_format ref_format = WG_REF_FORMAT_REFTABLE;
	struct wg_staged_dir stage = WG_STAGED_DIR_INIT;
	struct wg_buf gitdir = WG_BUF_INIT, final = WG_BUF_INIT;
	const char *branch;
	bool path_existed, fresh, in_place = false;
	int err;

	if (!opts)
		opts = &defaults;
	algo = wg_hash_algo_by_name(opts->object_format ? opts->object_format : "sha256");
	if (opts->ref_format && !strcmp(opts->ref_format, "files"))
		ref_format = WG_REF_FORMAT_FILES;
	else if (opts->ref_format && strcmp(opts->ref_format, "reftable"))
		return wg_error_set(WG_EINVALID, "unknown ref storage format '%s'", opts->ref_format);
	{
		/* Re-initialising keeps the existing formats, as git init does,
		 * and refuses to change them. */
		struct wg_repo *existing = NULL;
		if (algo && !wg_repo_open(&existing, path)) {
			if (opts->object_format && existing->algo != algo) {
				wg_repo_free(existing);
				return wg_error_set(WG_EINVALID, "attempt to reinitialize repository "
						    "with different hash");
			}
			if (opts->ref_format && existing->ref_format != ref_format) {
				wg_repo_free(existing);
				return wg_error_set(WG_EINVALID, "attempt to reinitialize repository "
						    "with different reference storage format");
			}
			algo = existing->algo;
			ref_format = existing->ref_format;
		}
		wg_repo_free(existing);
		wg_error_clear();
	}
	if (!algo)
		return wg_error_set(WG_EINVALID, "unknown hash algorithm '%s'", opts->object_format);
	branch = opts->initial_branch ? opts->initial_branch : "main";
	if (!wg_refname_is_valid(branch, WG_REFNAME_ALLOW_ONELEVEL) || *branch == '-')
		return wg_error_set(WG_EINVALID, "invalid initial branch name: '%s'", branch);

	path_existed = wg_fs_exists(path);
	fresh = !path_existed || wg_fs_dir_is_empty(path);
	if (path_existed && !opts->bare) {
		if ((err = wg_fs_join(&final, path, ".git")))
			goto done;
		fresh = !wg_fs_exists((const char *)final.data);
	} else if (!path_existed) {
		if ((err = wg_buf_adds(&final, path)))
			goto done;
	} else {
		in_place = fresh;
	}
	if (!fresh || in_place) {
		err = opts->bare ? wg_buf_adds(&gitdir, path) : wg_fs_join(&gitdir, path, ".git");
		if (!err && !(err = write_gitdir((const char *)gitdir.data, algo, ref_format,
						 opts->bare, branch)))
			err = wg_repo_open(out, path);
		if (err && in_place)
			undo_init_in_place(path);
		goto done;
	}

	/* The parent of a new directory is made (git init a/b/c does), then
	 * the repository beside it. */
	if (!path_existed) {
		char *parent = wg_strdup(path), *slash;
		size_t n = parent ? strlen(parent) : 0;
		if (!parent) {
			err = wg_error_set(WG_ENOMEM, "out of memory");
			goto done;
		}
		while (n > 1 && parent[n - 1] == '/')
			parent[--n] = '\0';
		if ((slash = strrchr(parent, '/')) && slash != parent) {
			*slash = '\0';
			err = wg_fs_mkdir_p(parent);
		}
		wg_free(parent);
		if (err)
			goto done;
	}
	if ((err = wg_staged_dir_begin(&stage, (const char *)final.data)))
		goto done;
	if (path_existed || opts->bare)
		err = wg_buf_adds(&gitdir, stage.path);
	else
		err = wg_fs_join(&gitdir, stage.path, ".git");
	if (err || (err = write_gitdir((const char *)gitdir.data, algo, ref_format, opts->bare,
				       branch)))
		goto done;
	if (opts->staged) {
		/* open the temporary repository; wg_repo_publish moves it. Its
		 * working tree is the staged directory when the whole of it is
		 * staged, else (only .git is) the one it will have. */
		if (!path_existed && !opts->bare)
			err = wg_repo_open(out, stage.path);
		else if (!(err = wg_repo_open(out, (const char *)gitdir.data)) && !opts->bare) {
			wg_free((*out)->workdir);
			(*out)->bare = false;
			if (!((*out)->workdir = absolute_path(path))) {
				wg_repo_free(*out);
				*out = NULL;
				err = wg_error_set(WG_EIO, "cannot resolve '%s': %s", path,
						   strerror(errno));
			}
		}
		if (!err) {
			(*out)->stage = stage;
			stage = (struct wg_staged_dir)WG_STAGED_DIR_INIT;
			if (!((*out)->publish_path = wg_strdup(path))) {
				wg_repo_free(*out);
				*out = NULL;
				err = wg_error_set(WG_ENOMEM, "out of memory");
			}
		}
	} else if (!(err = wg_staged_dir_publish(&stage))) {
		err = wg_repo_open(out, path);
	}
done:
	wg_staged_dir_release(&stage);
	wg_buf_release(&gitdir);
	wg_buf_release(&final);
	return err;
}

bool wg_repo_unpublished(const struct wg_repo *repo)
{
	return repo->publish_path && !repo->stage.published;
}

int wg_repo_publish(struct wg_repo **repo)
{
	struct wg_repo *r = *repo, *opened = NULL;
	int err;

	if (!r->publish_path)
		return 0;
	if ((err = wg_staged_dir_publish(&r->stage)))
		return err;
	/* its paths named the temporary place */
	err = wg_repo_open(&opened, r->publish_path);
	wg_repo_free(r);
	*repo = opened;
	return err;
}
