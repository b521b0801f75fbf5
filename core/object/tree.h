/* Tree objects: a bounded iterator over the raw format, a builder that
 * writes trees byte-for-byte as Git does, and mode helpers.
 *
 * Raw format, repeated: "<octal mode> <name>\0<raw id>", where the raw id
 * has algo->rawsz bytes (20 for SHA-1, 32 for SHA-256) and entries are
 * sorted in Git's path order (see wg_tree_name_cmp()). */
#ifndef WG_OBJECT_TREE_H
#define WG_OBJECT_TREE_H

#include <stdbool.h>
#include <stddef.h>

#include "hash/oid.h"
#include "object/object.h"
#include "util/buf.h"

/* The modes Git writes (canonical), as numbers. */
#define WG_MODE_TREE     0040000u
#define WG_MODE_BLOB     0100644u
#define WG_MODE_EXEC     0100755u
#define WG_MODE_SYMLINK  0120000u
#define WG_MODE_GITLINK  0160000u
#define WG_MODE_TYPE_MASK 0170000u

/* Set in wg_tree_entry.flags when the mode was written with a leading zero
 * ("040000"): Git reads it, fsck warns (zeroPaddedFilemode), and the
 * tree's bytes differ from what Git would write. */
#define WG_TREE_ENTRY_ZERO_PADDED 0x1u

struct wg_tree_entry {
	/* The octal digits as written. Unlike Git, which keeps 16 bits and so
	 * reads "1100644" as 100644, we keep the value (saturated at
	 * 077777777) so fsck sees such a mode as bad. Only the type bits
	 * (WG_MODE_TYPE_MASK) decide the entry's kind, exactly as in Git. */
	unsigned mode;
	const char *name;  /* points into the tree data; a NUL follows it there */
	size_t namelen;    /* never 0 from a strict iterator */
	struct wg_oid oid;
	unsigned flags;    /* WG_TREE_ENTRY_* */
};

/* Iterator flags. */
/* Return entries with an empty name instead of failing. Git's tree reader
 * refuses them; fsck uses this to name the problem (emptyName) precisely. */
#define WG_TREE_ITER_ALLOW_EMPTY_NAME 0x1u

/* On the stack, so callers need no allocation; fields are read-only. */
struct wg_tree_iter {
	const struct wg_hash_algo *algo;
	const unsigned char *data;
	size_t len;
	size_t pos;   /* offset of the next entry */
	unsigned flags;
	int failed;   /* sticky error: a broken tree stays broken */
};

/* Prepare to read `len` bytes of raw tree. Nothing is copied: `data` must
 * outlive the iterator and every entry taken from it. */
void wg_tree_iter_init(struct wg_tree_iter *iter, const struct wg_hash_algo *algo,
		       const void *data, size_t len);
void wg_tree_iter_init_flags(struct wg_tree_iter *iter, const struct wg_hash_algo *algo,
			     const void *data, size_t len, unsigned flags);
/* 0 and the next entry; WG_ITEROVER at the end; WG_ECORRUPT (with the byte
 * offset in the message) for a malformed entry, and again on every later
 * call. Accepts exactly what Git's tree reader accepts (mode digits 0-7
 * ended by a space, no leading space, a non-empty name ended by NUL, a full
 * raw id), and never reads outside [data, data + len). */
int wg_tree_iter_next(struct wg_tree_iter *iter, struct wg_tree_entry *entry);

/* The object an entry of this mode names: WG_OBJ_TREE for directories,
 * WG_OBJ_COMMIT for gitlinks (submodules, 160000), else WG_OBJ_BLOB. */
enum wg_object_type wg_tree_mode_type(unsigned mode);
/* The mode Git would write for this one: 040000, 0100644 or 0100755 (by
 * the owner-execute bit), 0120000; anything else becomes 0160000 as in
 * Git's canon_mode(). */
unsigned wg_tree_mode_canonical(unsigned mode);
/* True for the five modes Git writes. */
bool wg_tree_mode_is_canonical(unsigned mode);

/* Git's tree order: bytewise, where a directory's name compares as if it
 * ended in '/'. So file "a.b" < directory "a" < file "a0". Names with
 * the same bytes compare equal whatever their modes. */
int wg_tree_name_cmp(const char *a, size_t alen, unsigned amode,
		     const char *b, size_t blen, unsigned bmode);

/* Append one entry as `git ls-tree` and `git cat-file -p` print it:
 * "%06o %s %s\t%s" (mode, type, hex id, name), with no line terminator.
 * With WG_TREE_FORMAT_QUOTE the name is C-quoted when needed, as Git does
 * with core.quotePath on (the default; ls-tree -z does not quote). */
#define WG_TREE_FORMAT_QUOTE 0x1u
int wg_tree_entry_format(struct wg_buf *out, const struct wg_tree_entry *entry,
			 unsigned flags);

/* Build a tree from entries in any order. */
struct wg_tree_builder;

int wg_tree_builder_new(struct wg_tree_builder **out, const struct wg_hash_algo *algo);
void wg_tree_builder_free(struct wg_tree_builder *builder);
/* Add an entry; the name is copied. WG_EINVALID for a mode that is not one
 * of the five canonical ones (normalise first with
 * wg_tree_mode_canonical()), for an empty name, ".", "..", a name with
 * '/' or NUL, or an id of another hash algorithm. Whether a name is safe
 * to check out (".git" etc.) is for the caller and fsck to judge. */
int wg_tree_builder_add(struct wg_tree_builder *builder, unsigned mode,
			const char *name, size_t namelen, const struct wg_oid *oid);
size_t wg_tree_builder_count(const struct wg_tree_builder *builder);
/* Append the raw tree, sorted in Git's order, to out. WG_EEXISTS if two
 * entries share a name (also a file and a directory). The builder can be
 * written again or extended afterwards. */
int wg_tree_builder_write(struct wg_tree_builder *builder, struct wg_buf *out);

#endif
