/* Ref name rules, exactly as `git check-ref-format` applies them. */
#ifndef WG_REFS_REFNAME_H
#define WG_REFS_REFNAME_H

#include <stdbool.h>

enum wg_refname_flags {
	WG_REFNAME_ALLOW_ONELEVEL = 1,  /* "HEAD", "main" (--allow-onelevel) */
	WG_REFNAME_REFSPEC_PATTERN = 2, /* one '*' allowed (--refspec-pattern) */
};

/* 0 if valid, WG_EINVALID with a message naming the broken rule. */
int wg_refname_check(const char *name, unsigned flags);
bool wg_refname_is_valid(const char *name, unsigned flags);

#endif
