/* Server capabilities (gitprotocol-capabilities(5), gitprotocol-v2(5)).
 *
 * Protocol v0/v1 sends them as one space-separated list after a NUL on the
 * first ref line ("multi_ack side-band-64k symref=HEAD:refs/heads/main
 * agent=git/2.53"); v2 sends one "key[=value]" per pkt-line after
 * "version 2". Both become the same list of (name, value) entries, in the
 * server's order, with repeated keys kept (symref may appear many times;
 * the first object-format is the one in use). */
#ifndef WG_PROTOCOL_CAPABILITIES_H
#define WG_PROTOCOL_CAPABILITIES_H

#include <stdbool.h>
#include <stddef.h>

#include "hash/hash.h"

struct wg_caps;

/* An empty list for protocol `version` (0, 1 or 2). */
int wg_caps_new(struct wg_caps **out, int version);
void wg_caps_free(struct wg_caps *caps);

/* Parse a v0/v1 list: tokens separated by spaces, each "key" or
 * "key=value". Empty tokens are skipped; a control character or a token
 * starting with '=' is WG_ECORRUPT. */
int wg_caps_parse_v1(struct wg_caps **out, const char *list, size_t len);

/* Add one v2 advertisement line ("fetch=shallow filter", with or without
 * its LF). The key must match 1*(ALPHA | DIGIT | "-" | "_"), else
 * WG_ECORRUPT; control characters in the value are WG_ECORRUPT too. */
int wg_caps_add_v2_line(struct wg_caps *caps, const void *line, size_t len);

/* 1 for a v0/v1 list (wg_caps_parse_v1), 2 for a v2 advertisement; for
 * wg_caps_new, the version it was given. */
int wg_caps_version(const struct wg_caps *caps);

/* Entries in the server's order; name and value of entry i (value is NULL
 * for a bare "key", "" for "key="). */
size_t wg_caps_count(const struct wg_caps *caps);
const char *wg_caps_name_at(const struct wg_caps *caps, size_t i);
const char *wg_caps_value_at(const struct wg_caps *caps, size_t i);

/* True if the capability is present, with or without a value. */
bool wg_caps_has(const struct wg_caps *caps, const char *name);
/* The value of the nth (0-based) occurrence of `name` that has a value;
 * NULL when there are fewer. Repeated keys such as symref are read with
 * nth = 0, 1, ... until NULL. */
const char *wg_caps_get(const struct wg_caps *caps, const char *name, size_t nth);

/* v2 command features: true if `command` is advertised and its value, a
 * space-separated list, contains `feature` ("fetch", "filter"). */
bool wg_caps_has_feature(const struct wg_caps *caps, const char *command, const char *feature);

/* The object format of the server's ref ids: the first "object-format"
 * value, or SHA-1 when absent (the protocol's default). WG_EUNSUPPORTED
 * for a name this build does not know. */
int wg_caps_hash_algo(const struct wg_caps *caps, const struct wg_hash_algo **out);

#endif
