#!/bin/sh
# check-fs-seam.sh LIBRARY...: fail if any object of core/ other than
# util/fs_posix.c calls the host's file functions directly. Every file
# operation must go through util/fs.h, or a fault-injection test cannot
# reach it (see docs/crash-safety.md). Run by ctest on native builds.
set -eu
NM=${NM:-nm}
# The C library's file calls, with the large-file and glibc-internal names.
deny='open|open64|openat|openat64|creat|close|read|pread|pread64|write|pwrite|pwrite64'
deny="$deny|fsync|fdatasync|ftruncate|ftruncate64|truncate|fstat|fstat64|stat|stat64"
deny="$deny|lstat|lstat64|fstatat|fstatat64|__xstat|__fxstat|__lxstat|__xstat64"
deny="$deny|__fxstat64|__lxstat64|chmod|fchmod|rename|renameat|renameat2|link|linkat"
deny="$deny|unlink|unlinkat|mkdir|mkdirat|rmdir|mkstemp|mkstemp64|mkostemp|opendir"
deny="$deny|fdopendir|readdir|readdir64|closedir|mmap|mmap64|munmap|realpath|fopen"
deny="$deny|fopen64|fdopen|fclose|fread|fwrite|access|symlink|readlink|utime|utimes"
deny="$deny|futimens|utimensat|dup|dup2"
[ $# -gt 0 ] || { echo "usage: $0 LIBRARY..." >&2; exit 2; }
syms=$("$NM" -A -u "$@" 2>/dev/null)
found=$(printf '%s\n' "$syms" | grep -v 'fs_posix\.c\.o' |
	awk '{print $1, $NF}' | grep -E " ($deny)(@.*)?\$" || true)
if ! printf '%s\n' "$syms" | grep -q 'fs_posix\.c\.o'; then
	echo "check-fs-seam: no fs_posix.c.o in $* (are these the core libraries?)" >&2
	exit 1
fi
if [ -n "$found" ]; then
	echo "check-fs-seam: host file calls outside util/fs_posix.c:" >&2
	echo "$found" | sed 's/^/  /' >&2
	exit 1
fi
echo "check-fs-seam: no host file calls outside util/fs_posix.c"
