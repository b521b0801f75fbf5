/* webgit ls-files: show what the index holds (git ls-files, the index's
 * own listing: -s, --debug, --resolve-undo, -z; no working-tree modes or
 * pathspecs yet). */
#include <string.h>

#include "cli.h"
#include "index/index.h"
#include "index/resolve_undo.h"
#include "repo/repo.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/quote.h"

static int add_name(struct wg_buf *line, const char *name, size_t len, char term)
{
	int err = term == '\n' ? wg_quote_c_style(line, name, len) : wg_buf_add(line, name, len);
	return err ? err : wg_buf_addch(line, term);
}

int cmd_ls_files(int argc, char **argv)
{
	static const char usage[] = "webgit ls-files [-s | --stage] [-u | --unmerged] [--debug] "
				    "[--resolve-undo] [-z]";
	bool stage = false, unmerged = false, debug = false, resolve_undo = false, cached;
	char term = '\n';
	struct wg_repo *repo = NULL;
	struct wg_index *ix = NULL;
	struct wg_buf line = WG_BUF_INIT;
	int rc = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-s") || !strcmp(argv[i], "--stage"))
			stage = true;
		else if (!strcmp(argv[i], "-u") || !strcmp(argv[i], "--unmerged"))
			unmerged = stage = true;
		else if (!strcmp(argv[i], "--debug"))
			debug = true;
		else if (!strcmp(argv[i], "--resolve-undo"))
			resolve_undo = true;
		else if (!strcmp(argv[i], "-z"))
			term = '\0';
		else
			return cli_usage(usage);
	}
	if (cli_open_repo(&repo))
		return 128;
	if (cli_read_index(&ix, repo)) {
		wg_repo_free(repo);
		return cli_fatal_core();
	}
	/* as git: the entries are listed by default, or when asked for */
	cached = stage || !resolve_undo;
	for (size_t i = 0; cached && i < ix->nr && !rc; i++) {
		const struct wg_index_entry *e = ix->entries[i];
		int err = 0;
		if (unmerged && !e->stage)
			continue;
		wg_buf_reset(&line);
		if (stage)
			err = wg_buf_printf(&line, "%06o %s %u\t", e->mode, wg_oid_hex(&e->oid),
					    e->stage);
		if (!err)
			err = add_name(&line, e->path, e->path_len, term);
		if (!err && debug) {
			/* git prints its in-memory flags: stage, assume-valid, the
			 * extended bit and the extended flags above bit 16 */
			unsigned flags = e->stage << 12 |
					 (e->flags & WG_INDEX_ASSUME_VALID ? 0x8000u : 0) |
					 (e->flags & (WG_INDEX_SKIP_WORKTREE | WG_INDEX_INTENT_TO_ADD)
						  ? 0x4000u | (e->flags & 0x6000u) << 16 : 0);
			err = wg_buf_printf(&line, "  ctime: %u:%u\n  mtime: %u:%u\n"
					    "  dev: %u\tino: %u\n  uid: %u\tgid: %u\n"
					    "  size: %u\tflags: %x\n",
					    e->st.ctime_sec, e->st.ctime_nsec, e->st.mtime_sec,
					    e->st.mtime_nsec, e->st.dev, e->st.ino, e->st.uid, e->st.gid,
					    e->st.size, flags);
		}
		rc = err ? cli_fatal("out of memory") : cli_write_stdout(line.data, line.len);
	}
	if (resolve_undo && ix->resolve_undo) {
		for (size_t i = 0; i < ix->resolve_undo->nr && !rc; i++) {
			const struct wg_resolve_undo_entry *ru = &ix->resolve_undo->v[i];
			for (int s = 0; s < 3 && !rc; s++) {
				if (!ru->mode[s])
					continue;
				wg_buf_reset(&line);
				if (wg_buf_printf(&line, "%06o %s %d\t", ru->mode[s],
						  wg_oid_hex(&ru->oid[s]), s + 1) ||
				    add_name(&line, ru->path, strlen(ru->path), term))
					rc = cli_fatal("out of memory");
				else
					rc = cli_write_stdout(line.data, line.len);
			}
		}
	}
	wg_buf_release(&line);
	wg_index_free(ix);
	wg_repo_free(repo);
	return rc;
}
