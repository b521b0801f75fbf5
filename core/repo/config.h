/* Git configuration files: reading, querying and editing, byte-compatible
 * with git's own config.c.
 *
 * A struct wg_config holds one file's exact bytes plus what git's parser
 * sees in them. Reads follow git's grammar to the letter (sections, quoted
 * subsections, the deprecated [section.subsection] form, comments, quoted
 * values and escapes, continuation lines, whitespace trimming, a UTF-8 BOM,
 * CRLF). Edits splice the bytes the way `git config` does, so everything
 * that is not touched -- comments, blank lines, spacing, other entries --
 * stays byte for byte, and an unchanged config serializes to its original
 * bytes exactly.
 *
 * Keys are "section.name" or "section.subsection.name". Section and
 * variable names are case-insensitive, subsections case-sensitive (except
 * in the deprecated [section.subsection] form, which git lower-cases on
 * reading). The canonical form -- what wg_config_foreach() reports and
 * `git config --list` prints -- has section and name lower-cased.
 *
 * Values are C strings. A key written without '=' ("[core]\n\tbare\n") has
 * no value at all: queries give NULL for it, and it means true as a
 * boolean. Value pointers handed out stay valid until the config is
 * modified or freed.
 *
 * Two deliberate differences from git, both where git's own edit would be
 * lost on reading the file back: a file holding only a UTF-8 BOM gets new
 * entries after the BOM (git writes them before it, and a BOM mid-file is
 * a syntax error); and after a value whose backslash continuation runs
 * into the end of the file, an appended entry is preceded by an empty line
 * (git appends it directly, and it becomes part of that value).
 *
 * Not done here: include.path and includeIf.*.path are kept as ordinary
 * entries and are not followed; there is no notion of scopes (system,
 * global, local) -- one wg_config is one file. */
#ifndef WG_REPO_CONFIG_H
#define WG_REPO_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

struct wg_config;

/* An empty config (as a missing file would be). */
int wg_config_new(struct wg_config **out);

/* Parse `len` bytes. `origin` names the file in error messages ("bad config
 * line 5 in file .git/config", as git says it); NULL for data that has no
 * file. Malformed input gives WG_ECORRUPT. The bytes are copied. */
int wg_config_parse(struct wg_config **out, const char *data, size_t len,
		    const char *origin);

/* Parse `len` bytes and hand every entry to `cb` as wg_config_foreach()
 * would, without keeping them: what git's config_from_mem() does for a
 * blob. Unlike wg_config_parse(), the entries before a syntax error are
 * still handed over (git's parser calls back as it goes), then the error
 * (WG_ECORRUPT) is returned: a check of untrusted text must see what git
 * would act on. A non-zero return from `cb` stops and is returned. */
int wg_config_parse_entries(const char *data, size_t len, const char *origin,
			    int (*cb)(const char *key, const char *value, void *payload),
			    void *payload);

/* Read and parse a file. WG_ENOTFOUND if it does not exist (callers that
 * treat a missing config as empty use wg_config_new() then), WG_EIO if it
 * cannot be read, WG_ECORRUPT if it does not parse. */
int wg_config_read_file(struct wg_config **out, const char *path);

void wg_config_free(struct wg_config *cfg);

/* Check a key name as git does, without touching any config: WG_EINVALID,
 * with git's message ("invalid key: a.1b"), if it has no section, no
 * variable name, a section or variable name with characters outside
 * [A-Za-z0-9-], a variable name that does not start with a letter, or a
 * newline in the subsection. */
int wg_config_validate_key(const char *key);

/* The canonical form of a valid key (section and name lower-cased,
 * subsection kept), to be freed with wg_free(). */
int wg_config_canonical_key(char **out, const char *key);

/* The value of the last entry for `key` (git's "last one wins"). *out is
 * NULL for a key written without '='. WG_ENOTFOUND if absent, WG_EINVALID
 * for a malformed key. */
int wg_config_get_string(const struct wg_config *cfg, const char *key, const char **out);

/* The last value as a boolean with git's rules: true, yes, on and non-zero
 * integers (unit suffixes allowed) are true; false, no, off, 0 and the
 * empty string are false (case-insensitive); a key without '=' is true.
 * Anything else is WG_EINVALID ("bad boolean config value 'x' for 'a.b'"). */
int wg_config_get_bool(const struct wg_config *cfg, const char *key, bool *out);
/* The same rules for a value found elsewhere (NULL: a key without '=');
 * `key` names it in the error message. */
int wg_config_bool_value(const char *key, const char *value, bool *out);

/* The last value as a signed 64-bit integer with git's rules: C syntax
 * (decimal, 0x hex, leading-0 octal, leading blanks and sign allowed), an
 * optional k, m or g suffix (case-insensitive, powers of 1024). Malformed
 * or out-of-range values, and keys without '=', are WG_EINVALID with git's
 * message ("bad numeric config value 'x' for 'a.b' in file F: invalid
 * unit"). */
int wg_config_get_int64(const struct wg_config *cfg, const char *key, int64_t *out);
/* The same rules for a value found elsewhere (NULL: a key without '='). */
int wg_config_int64_value(const char *key, const char *value, int64_t *out);

/* Every value of a (multi-valued) key in file order. `value` is NULL for a
 * key written without '='. A non-zero return from `cb` stops the walk and
 * is returned. WG_ENOTFOUND if the key has no entries. */
int wg_config_get_all(const struct wg_config *cfg, const char *key,
		      int (*cb)(const char *value, void *payload), void *payload);

/* Every entry in file order, with the key canonical as `git config --list`
 * prints it. Entries that precede any section header are reported with a
 * bare name (git accepts them; no key query can reach them). A non-zero
 * return from `cb` stops the walk and is returned. */
int wg_config_foreach(const struct wg_config *cfg,
		      int (*cb)(const char *key, const char *value, void *payload),
		      void *payload);

/* Set `key` to `value` as `git config key value` does: replace the single
 * existing entry in place; if there is none, append to the last section
 * with the right name, or add a new section at the end. The key's
 * spelling is written as given ("Core.FooBar" adds "[Core]" and
 * "FooBar = ..."). WG_EAMBIGUOUS if the key has several values (use
 * wg_config_replace_all() or wg_config_add()). Values are quoted and
 * escaped so that git reads back exactly `value`. */
int wg_config_set_string(struct wg_config *cfg, const char *key, const char *value);

/* Add one more value for a multi-valued key (`git config --add`). */
int wg_config_add(struct wg_config *cfg, const char *key, const char *value);

/* Replace every value of `key` by one entry, written where the last one
 * was (`git config --replace-all`). */
int wg_config_replace_all(struct wg_config *cfg, const char *key, const char *value);

/* Remove the single entry for `key` (`git config --unset`). WG_ENOTFOUND if
 * there is none, WG_EAMBIGUOUS if there are several. As git does, a
 * section left empty loses its header too unless comments sit in or around
 * it, in which case the header stays. */
int wg_config_unset(struct wg_config *cfg, const char *key);

/* Remove every entry for `key` (`git config --unset-all`). WG_ENOTFOUND if
 * there is none. */
int wg_config_unset_all(struct wg_config *cfg, const char *key);

/* Rename every section `old_name` ("branch.a", as git names it) to
 * `new_name` (`git config --rename-section`), or remove the sections and
 * everything in them when new_name is NULL (`--remove-section`), editing
 * the text line by line as git does. Returns how many sections matched
 * (0: none, nothing changed) or <0. */
int wg_config_rename_section(struct wg_config *cfg, const char *old_name,
			     const char *new_name);
/* Copy every section `old_name` as `new_name`, each copy right after its
 * original (git branch -c). Returns how many sections matched, or <0. */
int wg_config_copy_section(struct wg_config *cfg, const char *old_name, const char *new_name);

/* Append the file's bytes to `out`: the original bytes, exactly, for an
 * unchanged config. */
int wg_config_serialize(const struct wg_config *cfg, struct wg_buf *out);

/* Write the config to `path` atomically through "<path>.lock"; an existing
 * file keeps its permission bits. WG_ELOCKED if the lock is held. The lock
 * is held only while writing: unlike `git config`, which reads under the
 * lock, a change another process makes between wg_config_read_file() and
 * this call is overwritten. */
int wg_config_write_file(const struct wg_config *cfg, const char *path);

#endif
