/* Shared pieces of the native command-line front end. Each verb lives in
 * its own cmd_<verb>.c and has git's flags and output where they overlap. */
#ifndef WG_CLI_CLI_H
#define WG_CLI_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "repo/repo.h"

struct cli_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
};

/* Print "fatal: <message>" (git's wording) and return 128, git's exit code
 * for fatal errors. */
int cli_fatal(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;
/* "fatal: " plus the core's last error message; returns 128. */
int cli_fatal_core(void);
/* Print a usage line for the verb and return 129, as git does. */
int cli_usage(const char *usage);

/* Open the repository around the current directory (GIT_DIR honoured).
 * Returns 0 or prints the error and returns 128. */
int cli_open_repo(struct wg_repo **out);

/* The index file (<gitdir>/index, or GIT_INDEX_FILE), and reading it (a
 * missing file is an empty index). cli/index_file.c */
struct wg_index;
int cli_index_path(struct wg_buf *out, struct wg_repo *repo);
int cli_read_index(struct wg_index **out, struct wg_repo *repo);

/* Move the index and the working tree from old_tree (NULL: none, a first
 * checkout) to new_tree; force overwrites local changes; show_changes
 * lists the local changes carried over (cli_show_local_changes). Returns 0, 1
 * when refused (git's messages printed) or 128. cli/worktree_update.c */
struct wg_oid;
struct wg_checkout;
int cli_checkout_tree(struct wg_repo *repo, const struct wg_oid *old_tree,
		      const struct wg_oid *new_tree, bool force, bool show_changes);
/* git's refusal of a checkout (every category with its paths, then
 * "Aborting") on stderr; returns 1, git's exit code. */
int cli_print_checkout_refusal(const struct wg_checkout *co);
/* git checkout's list of the local changes it carried over to `tree`
 * ("M\tpath" lines on stdout). */
int cli_show_local_changes(struct wg_repo *repo, struct wg_index *ix, const struct wg_oid *tree);
/* Warning callbacks of the core: the line as it is, or after "warning: ". */
void cli_warn_plain(void *payload, const char *line);
void cli_warn_warning(void *payload, const char *line);

/* Commits on refs/heads/<branch> and not on upstream, and the other way:
 * 0, 1 when the upstream ref is gone, -1 when nothing can be said. */
int cli_ahead_behind(struct wg_repo *repo, const char *branch, const char *upstream,
		     size_t *ahead, size_t *behind);

/* Match "--name=value" or "--name value": returns the value, advancing *i,
 * or NULL if argv[*i] is not this option. */
const char *cli_option_value(int argc, char **argv, int *i, const char *name);

/* git's find_unique_abbrev for the short ids of messages, into out
 * (WG_MAX_HEXSZ + 1 bytes): 7 digits, more while the prefix is ambiguous.
 * (git grows the default with the object count past 2^14 objects; webgit
 * does not yet.) */
struct wg_oid;
void cli_abbrev(char *out, struct wg_repo *repo, const struct wg_oid *oid);

/* Write all bytes to stdout; returns 0 or prints an error. */
int cli_write_stdout(const void *data, size_t len);
/* Read all of a stream into buf. */
int cli_read_stream(FILE *f, struct wg_buf *buf);

/* "Name <email> <time> <tz>" for who = "AUTHOR" or "COMMITTER", from
 * GIT_<who>_NAME/EMAIL/DATE, else user.name/user.email (EMAIL), as git
 * does; prints git's fatal error and returns 128 when unknown. cli/ident.c */
int cli_ident(struct wg_buf *out, struct wg_repo *repo, const char *who);
/* A commit's subject as git's %s gives it (the first paragraph's lines
 * joined by spaces), appended to out; and "<msg> <abbrev> <subject>\n"
 * on f. cli/commit_subject.c */
int cli_commit_subject(struct wg_buf *out, struct wg_repo *repo, const struct wg_oid *oid);
void cli_describe_commit(FILE *f, struct wg_repo *repo, const char *msg,
			 const struct wg_oid *oid);

int cmd_init(int argc, char **argv);
int cmd_hash_object(int argc, char **argv);
int cmd_cat_file(int argc, char **argv);
int cmd_ls_tree(int argc, char **argv);
int cmd_ls_files(int argc, char **argv);
int cmd_check_ignore(int argc, char **argv);
int cmd_check_attr(int argc, char **argv);
int cmd_update_index(int argc, char **argv);
int cmd_read_tree(int argc, char **argv);
int cmd_checkout(int argc, char **argv);
int cmd_switch(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_write_tree(int argc, char **argv);
int cmd_mktree(int argc, char **argv);
int cmd_commit_tree(int argc, char **argv);
int cmd_rev_parse(int argc, char **argv);
int cmd_update_ref(int argc, char **argv);
int cmd_show_ref(int argc, char **argv);
int cmd_for_each_ref(int argc, char **argv);
int cmd_symbolic_ref(int argc, char **argv);
int cmd_reflog(int argc, char **argv);
int cmd_branch(int argc, char **argv);
int cmd_tag(int argc, char **argv);
int cmd_pack_refs(int argc, char **argv);
int cmd_refs(int argc, char **argv);
int cmd_pack_objects(int argc, char **argv);
int cmd_index_pack(int argc, char **argv);
int cmd_verify_pack(int argc, char **argv);
int cmd_unpack_objects(int argc, char **argv);
int cmd_ls_remote(int argc, char **argv);
int cmd_read_remote_file(int argc, char **argv);
int cmd_clone(int argc, char **argv);
int cmd_fetch(int argc, char **argv);
int cmd_push(int argc, char **argv);
int cmd_commit(int argc, char **argv);
int cmd_reset(int argc, char **argv);
int cmd_restore(int argc, char **argv);
/* The current directory below the working tree workdir ("" or "a/b/"):
 * what a command's paths are relative to. cli/cwd_prefix.c */
int cli_cwd_prefix(struct wg_buf *out, const char *workdir);

int cmd_add(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_diff_tree(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_log(int argc, char **argv);
int cmd_rev_list(int argc, char **argv);
int cmd_merge_base(int argc, char **argv);
int cmd_last_modified(int argc, char **argv);
int cmd_blame(int argc, char **argv);
int cmd_rm(int argc, char **argv);
int cmd_mv(int argc, char **argv);
/* A message as git commit takes it (cli/message_option.c): each -m a
 * paragraph; -F's file ("-": standard input) replaces msg. Each returns 0,
 * or prints git's fatal error and returns 128. */
int cli_message_add_paragraph(struct wg_buf *msg, const char *text);
int cli_message_read_file(struct wg_buf *msg, const char *file);
/* cli/cmd_history_edit.c */
int cmd_reword(int argc, char **argv);
int cmd_split(int argc, char **argv);

#endif
