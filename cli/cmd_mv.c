/* webgit mv: move or rename files and directories in the working tree
 * and the index together (git mv: -f/--force, -n/--dry-run, -k,
 * -v/--verbose), with git's checks, messages and exit codes. Index
 * entries keep their stat data and flags under their new names; the
 * cache tree is invalidated along both paths. Not yet: sparse checkouts
 * and rewriting .gitmodules or a moved submodule's gitfile. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "index/index.h"
#include "repo/repo.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/pathspec.h"
#include "worktree/workdir.h"

#define MOVE_DIR 0x1u        /* a directory: its entries move with it */
#define VIA_PARENT 0x2u      /* an entry below a moved directory */

struct move {
	char *src, *dst;
	unsigned flags;
};

struct mv {
	struct wg_repo *repo;
	struct wg_index *ix;
	struct wg_workdir *wd;
	const char *top;
	struct move *v;
	size_t n, alloc;
	struct wg_buf full;
};

static int push(struct mv *m, char *src, char *dst, unsigned flags)
{
	if (!src || !dst) {
		wg_free(src);
		wg_free(dst);
		return -1;
	}
	if (m->n == m->alloc) {
		size_t na = m->alloc ? 2 * m->alloc : 8;
		struct move *v = wg_realloc(m->v, na * sizeof(*v));
		if (!v)
			return -1;
		m->v = v;
		m->alloc = na;
	}
	m->v[m->n].src = src;
	m->v[m->n].dst = dst;
	m->v[m->n++].flags = flags;
	return 0;
}

static void drop(struct mv *m, size_t i)
{
	wg_free(m->v[i].src);
	wg_free(m->v[i].dst);
	memmove(m->v + i, m->v + i + 1, (m->n - i - 1) * sizeof(*m->v));
	m->n--;
}

/* lstat of a path from the top. */
static int lstat_top(struct mv *m, const char *path, struct stat *st)
{
	if (wg_fs_join(&m->full, m->top, path))
		return -1;
	if (!*path)
		wg_buf_setlen(&m->full, m->full.len - 1);
	return wg_fs_lstat(wg_buf_cstr(&m->full), st);
}

static bool is_dir(struct mv *m, const char *path)
{
	struct stat st;
	return !lstat_top(m, path, &st) && S_ISDIR(st.st_mode);
}

/* A command-line path from the top (git's prefix_path), without its
 * trailing '/' unless keep_slash. NULL (message printed) when outside. */
static char *from_top(const char *prefix, const char *arg, bool keep_slash, const char *top)
{
	struct wg_pathspec ps;
	char *out;
	if (wg_pathspec_init(&ps, prefix, &arg, 1)) {
		if (wg_error_code() == WG_EINVALID)
			cli_fatal("%s at '%s'", wg_error_message(), top);
		else
			cli_fatal_core();
		return NULL;
	}
	out = ps.items[0].match;
	ps.items[0].match = NULL;
	wg_pathspec_release(&ps);
	if (!keep_slash) {
		size_t len = strlen(out);
		while (len && out[len - 1] == '/')
			out[--len] = '\0';
	}
	return out;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static char *join(const char *dir, const char *name)
{
	struct wg_buf b = WG_BUF_INIT;
	if ((*dir && (wg_buf_adds(&b, dir) ||
		      (dir[strlen(dir) - 1] != '/' && wg_buf_addch(&b, '/')))) ||
	    wg_buf_adds(&b, name) || wg_buf_grow(&b, 1)) {
		wg_buf_release(&b);
		return NULL;
	}
	return (char *)wg_buf_detach(&b, NULL);
}

/* The index entries below dir ("d/..."): [*first, *last). */
static void dir_range(const struct wg_index *ix, const char *dir, size_t *first, size_t *last)
{
	size_t len = strlen(dir);
	long pos = wg_index_find(ix, dir, len, 0);
	size_t i = pos >= 0 ? (size_t)pos + 1 : (size_t)(-pos - 1);
	/* entries "d<byte below '/'>..." sort before "d/" */
	while (i < ix->nr && ix->entries[i]->path_len > len && !memcmp(ix->entries[i]->path, dir, len) &&
	       (unsigned char)ix->entries[i]->path[len] < '/')
		i++;
	*first = i;
	while (i < ix->nr && ix->entries[i]->path_len > len &&
	       !memcmp(ix->entries[i]->path, dir, len) && ix->entries[i]->path[len] == '/')
		i++;
	*last = i;
}

/* Is there an entry at path, any stage? Its first stage, else NULL. */
static const struct wg_index_entry *entry_at(const struct wg_index *ix, const char *path)
{
	size_t len = strlen(path);
	long pos = wg_index_find(ix, path, len, 0);
	if (pos < 0)
		pos = -pos - 1;
	if ((size_t)pos < ix->nr && ix->entries[pos]->path_len == len &&
	    !memcmp(ix->entries[pos]->path, path, len))
		return ix->entries[pos];
	return NULL;
}

/* git mv's checks on move i: NULL, or why it cannot be. */
static const char *check(struct mv *m, size_t i, bool force, bool verbose)
{
	const char *src = m->v[i].src, *dst = m->v[i].dst;
	size_t len = strlen(src);
	const struct wg_index_entry *e;
	struct stat st, dst_st;

	if (lstat_top(m, src, &st))
		return "bad source";
	if (!strncmp(src, dst, len) && (dst[len] == '\0' || dst[len] == '/'))
		return "can not move directory into itself";
	if (S_ISDIR(st.st_mode) && !lstat_top(m, dst, &dst_st))
		return "destination already exists";
	if (S_ISDIR(st.st_mode)) {
		size_t first, last;
		char *slash;
		if (wg_index_find(m->ix, src, len, 0) >= 0)
			return NULL;  /* a submodule: one entry */
		dir_range(m->ix, src, &first, &last);
		if (first == last)
			return "source directory is empty";
		m->v[i].flags |= MOVE_DIR;
		if (!(slash = join(dst, "")))
			return "out of memory";
		for (size_t j = first; j < last; j++) {
			const struct wg_index_entry *c = m->ix->entries[j];
			if (j > first && !strcmp(m->ix->entries[j - 1]->path, c->path))
				continue;  /* one move per path, whatever its stages */
			if (push(m, wg_strdup(c->path), join(slash, c->path + len + 1), VIA_PARENT)) {
				wg_free(slash);
				return "out of memory";
			}
		}
		wg_free(slash);
		return NULL;
	}
	if (!(e = entry_at(m->ix, src)))
		return "not under version control";
	if (e->stage)
		return "conflicted";
	if (!lstat_top(m, dst, &dst_st)) {
		if (!force)
			return "destination exists";
		if (!S_ISREG(dst_st.st_mode) && !S_ISLNK(dst_st.st_mode))
			return "Cannot overwrite";
		if (verbose)
			fprintf(stderr, "warning: overwriting '%s'\n", dst);
		return NULL;
	}
	for (size_t j = 0; j < i; j++)
		if (!(m->v[j].flags & MOVE_DIR) && !strcmp(m->v[j].dst, dst))
			return "multiple sources for the same target";
	if (dst[strlen(dst) - 1] == '/')
		return "destination directory does not exist";
	return NULL;
}

/* Give the entry at src (every stage) the name dst, stat data kept; as
 * git's rename_index_entry_at, an entry the file still holds gets the
 * file's new stat data (the rename changed its ctime). */
static int rename_entry(struct wg_workdir *wd, struct wg_index *ix, const char *src,
			const char *dst)
{
	size_t sl = strlen(src), dl = strlen(dst);
	for (unsigned stage = 0; stage <= 3; stage++) {
		long pos = wg_index_find(ix, src, sl, stage);
		const struct wg_index_entry *old;
		struct wg_index_entry *e;
		if (pos < 0)
			continue;
		old = ix->entries[pos];
		if (!(e = wg_index_entry_new(dst, dl, old->mode, &old->oid, old->stage)))
			return wg_error_set(WG_ENOMEM, "out of memory");
		e->st = old->st;
		e->flags = old->flags;
		wg_index_remove_at(ix, (size_t)pos);
		if (!stage) {
			const char *full = wg_workdir_path(wd, dst);
			struct stat st;
			bool modified = true;
			if (full && !wg_fs_lstat(full, &st) &&
			    (e->mode & 0170000) == (S_ISLNK(st.st_mode) ? 0120000u
						    : S_ISDIR(st.st_mode) ? 0160000u : 0100000u) &&
			    !wg_workdir_entry_modified(wd, ix, e, &st, &modified) && !modified)
				wg_index_stat_from(&e->st, &st);
			wg_error_clear();
		}
		if (wg_index_add(ix, e)) {
			wg_free(e);
			return wg_error_code();
		}
	}
	return 0;
}

int cmd_mv(int argc, char **argv)
{
	static const char usage[] = "webgit mv [-v] [-f] [-n] [-k] <source>... <destination>";
	struct mv m = { 0 };
	struct wg_workdir_options wo = { WG_ATTR_CHECKIN, NULL, NULL, NULL };
	struct wg_buf prefix = WG_BUF_INIT, path = WG_BUF_INIT, from = WG_BUF_INIT;
	bool force = false, dry_run = false, skip_errors = false, verbose = false;
	int rc = 0, i, nsrc;
	char *dest = NULL;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1])
			break;
		if (!strcmp(a, "--force"))
			force = true;
		else if (!strcmp(a, "--dry-run"))
			dry_run = true;
		else if (!strcmp(a, "--verbose"))
			verbose = true;
		else if (a[1] == '-')
			return cli_usage(usage);
		else
			for (const char *c = a + 1; *c; c++) {
				switch (*c) {
				case 'f': force = true; break;
				case 'n': dry_run = true; break;
				case 'k': skip_errors = true; break;
				case 'v': verbose = true; break;
				default: return cli_usage(usage);
				}
			}
	}
	nsrc = argc - i - 1;
	if (nsrc < 1)
		return cli_usage(usage);
	if (cli_open_repo(&m.repo))
		return 128;
	if (!(m.top = wg_repo_workdir(m.repo))) {
		rc = cli_fatal("this operation must be run in a work tree");
		goto out;
	}
	if (cli_cwd_prefix(&prefix, m.top) || cli_read_index(&m.ix, m.repo)) {
		rc = cli_fatal_core();
		goto out;
	}
	wo.index = m.ix;
	if (wg_workdir_open(&m.wd, m.repo, &wo)) {
		rc = cli_fatal_core();
		goto out;
	}
	{
		/* "git mv file no-such-dir/" fails on the slash, but a
		 * directory may be renamed to "new/" */
		char *src0 = from_top(wg_buf_cstr(&prefix), argv[i], false, m.top);
		bool keep = true;
		if (!src0) {
			rc = 128;
			goto out;
		}
		if (!(dest = from_top(wg_buf_cstr(&prefix), argv[argc - 1], true, m.top))) {
			wg_free(src0);
			rc = 128;
			goto out;
		}
		if (nsrc == 1 && is_dir(&m, src0) && !is_dir(&m, dest))
			keep = false;
		wg_free(src0);
		if (!keep) {
			size_t len = strlen(dest);
			while (len && dest[len - 1] == '/')
				dest[--len] = '\0';
		}
	}
	{
		bool into = !*dest || is_dir(&m, dest);
		if (!into && nsrc != 1) {
			size_t len = strlen(dest);
			while (len > 1 && dest[len - 1] == '/')
				dest[--len] = '\0';
			rc = cli_fatal("destination '%s' is not a directory", dest);
			goto out;
		}
		for (int k = 0; k < nsrc; k++) {
			char *src = from_top(wg_buf_cstr(&prefix), argv[i + k], false, m.top);
			if (!src) {
				rc = 128;
				goto out;
			}
			if (push(&m, src, into ? join(dest, base_name(src)) : wg_strdup(dest), 0)) {
				rc = cli_fatal("out of memory");
				goto out;
			}
		}
	}
	for (size_t k = 0; k < m.n; k++) {
		const char *bad;
		if (dry_run)
			printf("Checking rename of '%s' to '%s'\n", m.v[k].src, m.v[k].dst);
		if (!(bad = check(&m, k, force, verbose)))
			continue;
		if (!skip_errors) {
			rc = cli_fatal("%s, source=%s, destination=%s", bad, m.v[k].src, m.v[k].dst);
			goto out;
		}
		drop(&m, k--);
	}
	/* a path and a directory above it cannot both be named */
	for (size_t k = 0; k < m.n; k++) {
		if (m.v[k].flags & VIA_PARENT)
			continue;
		for (size_t j = 0; j < m.n; j++) {
			size_t dl = strlen(m.v[j].src);
			if (!(m.v[j].flags & MOVE_DIR) || j == k)
				continue;
			if (!strncmp(m.v[k].src, m.v[j].src, dl) && m.v[k].src[dl] == '/') {
				rc = cli_fatal("cannot move both '%s' and its parent directory '%s'",
					       m.v[k].src, m.v[j].src);
				goto out;
			}
		}
	}
	for (size_t k = 0; k < m.n; k++) {
		const struct move *mv = &m.v[k];
		if (dry_run || verbose)
			printf("Renaming %s to %s\n", mv->src, mv->dst);
		if (dry_run)
			continue;
		if (!(mv->flags & VIA_PARENT)) {
			if (wg_fs_join(&from, m.top, mv->src) || wg_fs_join(&path, m.top, mv->dst)) {
				rc = cli_fatal("out of memory");
				goto out;
			}
			if (wg_fs_rename(wg_buf_cstr(&from), wg_buf_cstr(&path))) {
				if (skip_errors)
					continue;
				rc = cli_fatal("renaming '%s' failed: %s", mv->src, strerror(errno));
				goto out;
			}
		}
		if (mv->flags & MOVE_DIR)
			continue;
		if (rename_entry(m.wd, m.ix, mv->src, mv->dst)) {
			rc = cli_fatal_core();
			goto out;
		}
	}
	if (!dry_run &&
	    (cli_index_path(&path, m.repo) || wg_index_write(m.ix, wg_buf_cstr(&path))))
		rc = cli_fatal_core();
out:
	for (size_t k = 0; k < m.n; k++) {
		wg_free(m.v[k].src);
		wg_free(m.v[k].dst);
	}
	wg_free(m.v);
	wg_free(dest);
	wg_buf_release(&m.full);
	wg_buf_release(&prefix);
	wg_buf_release(&path);
	wg_buf_release(&from);
	wg_workdir_free(m.wd);
	wg_index_free(m.ix);
	wg_repo_free(m.repo);
	return rc;
}
