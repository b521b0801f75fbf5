/* Repositories: find, open and create Git repositories.
 *
 * A repository is a git directory (".git", or the directory itself when
 * bare) with its config, object database and ref storage, plus an optional
 * working tree. The layout is Git's own, so real git opens what we create
 * and we open what it creates. */
#ifndef WG_REPO_REPO_H
#define WG_REPO_REPO_H

#include <stdbool.h>

#include "hash/hash.h"
#include "odb/odb.h"
#include "refs/refdb.h"
#include "repo/config.h"

struct wg_repo;

struct wg_repo_init_options {
	unsigned version;
	bool bare;
	const char *object_format;   /* "sha1" or "sha256"; NULL = sha256 */
	const char *ref_format;      /* "files" or "reftable"; NULL = reftable */
	const char *initial_branch;  /* NULL = "main" */
	/* A first init builds the repository aside and renames it to `path`
	 * when complete (a killed process leaves nothing at `path`). With
	 * `staged`, init stops before the rename: *out is open on the
	 * temporary place, wg_repo_publish() moves it (a clone fetches into
	 * it first), and freeing the repository unpublished removes it. */
	bool staged;
};
#define WG_REPO_INIT_OPTIONS_INIT { 1, false, NULL, NULL, NULL, false }

/* Create a repository at `path` (the working tree, or the git directory
 * itself when bare). Re-initialising an existing repository keeps what is
 * there, as `git init` does, but refuses to change its object format. */
int wg_repo_init(struct wg_repo **out, const char *path, const struct wg_repo_init_options *opts);

/* Rename a repository made by a staged init to its path, and reopen it
 * there (*repo is replaced; NULL if the reopening fails). Nothing to do
 * for any other repository. */
int wg_repo_publish(struct wg_repo **repo);
/* A staged init's repository, not published yet. */
bool wg_repo_unpublished(const struct wg_repo *repo);

/* Open the repository whose git directory or working tree is `path`
 * exactly. */
int wg_repo_open(struct wg_repo **out, const char *path);

/* Open the repository containing `start`, walking up parent directories as
 * git does (a ".git" directory, a ".git" file with "gitdir: <path>", or a
 * bare repository). WG_ENOTFOUND with git's wording if there is none. */
int wg_repo_discover(struct wg_repo **out, const char *start);

void wg_repo_free(struct wg_repo *repo);

const char *wg_repo_gitdir(const struct wg_repo *repo);
/* The working tree, or NULL for a bare repository. */
const char *wg_repo_workdir(const struct wg_repo *repo);
/* 0 when the repository has a working tree; WG_EINVALID with git's
 * message ("this operation must be run in a work tree") otherwise. */
int wg_repo_require_workdir(const struct wg_repo *repo);
bool wg_repo_is_bare(const struct wg_repo *repo);
const struct wg_hash_algo *wg_repo_algo(const struct wg_repo *repo);
/* The default abbreviation length, as the diff layer derives it from the
 * packs and core.abbrev (diff/abbrev_len.h), kept for the repository's
 * open life as git keeps it for its process: 0 until set. */
int wg_repo_abbrev_len_memo(const struct wg_repo *repo);
void wg_repo_set_abbrev_len_memo(struct wg_repo *repo, int len);
enum wg_ref_format wg_repo_ref_format(const struct wg_repo *repo);
struct wg_odb *wg_repo_odb(struct wg_repo *repo);
struct wg_config *wg_repo_config(struct wg_repo *repo);
/* Look a key up as git does for user settings: the repository's config,
 * then ~/.gitconfig, then the XDG config. The value lives as long as the
 * repository. WG_ENOTFOUND if none has it. */
int wg_repo_config_get(struct wg_repo *repo, const char *key, const char **out);
/* The same files for a walk of every entry (a multi-valued key such as
 * credential.helper), in git's reading order, lowest priority first:
 * out[0] the XDG config, out[1] ~/.gitconfig, out[2] the repository's.
 * An absent file is NULL. They live as long as the repository. */
void wg_repo_config_files(struct wg_repo *repo, const struct wg_config *out[3]);
/* The user's files alone, for a command outside any repository (git clone
 * before the new repository exists, ls-remote <url>): out[0] the XDG
 * config ($XDG_CONFIG_HOME/git/config, or ~/.config/git/config), out[1]
 * ~/.gitconfig; NULL when missing or unreadable. Free each with
 * wg_config_free(). */
void wg_user_config_read(struct wg_config *out[2]);
struct wg_refdb *wg_repo_refdb(struct wg_repo *repo);

#endif
