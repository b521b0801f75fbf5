/* Ref name rules, exactly as `git check-ref-format` applies them. */
#ifndef WG_REFS_REFNAME_H
#define WG_REFS_REFNAME_H

#include <stdbool.h>

#include "util/buf.h"

enum wg_refname_flags {
	WG_REFNAME_ALLOW_ONELEVEL = 1,  /* "HEAD", "main" (--allow-onelevel) */
	WG_REFNAME_REFSPEC_PATTERN = 2, /* one '*' allowed (--refspec-pattern) */
};

/* 0 if valid, WG_EINVALID with a message naming the broken rule. */
int wg_refname_check(const char *name, unsigned flags);
bool wg_refname_is_valid(const char *name, unsigned flags);

/* Whether a short name a user gives (a branch, a tag) is valid under
 * `dir` ("refs/heads/", "refs/tags/"): no leading '-' (it would read as
 * an option) and dir + name a valid ref name, as git's
 * strbuf_check_branch_ref and check_tag_ref decide. -1 without memory. */
int wg_refname_short_is_valid(const char *dir, const char *name);

/* Append the short form of a full ref name, as git shows it for
 * refname:short and `symbolic-ref --short`: "refs/heads/x" -> "x",
 * "refs/remotes/origin/HEAD" -> "origin" (git's shorten_unambiguous_ref,
 * without the ambiguity check that matters only for odd names). */
int wg_refname_shorten(struct wg_buf *out, const char *name);

/* git's rules for what a short name means (ref_rev_parse_rules), in its
 * order: printf formats with one %s, tried first to last. */
#define WG_REF_DWIM_RULES 6
extern const char *const wg_ref_dwim_rules[WG_REF_DWIM_RULES];

#endif
