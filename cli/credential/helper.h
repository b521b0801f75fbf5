/* git's credential helpers for the native command line (gitcredentials(7)):
 * which helpers apply (credential.* and credential.<url>.* settings,
 * config.c and urlmatch.c), running one (helper.c), and the credential
 * source the HTTP client asks on a 401 (source.c).
 *
 * The client knows nothing of configuration or helpers: it calls the
 * source's fill on a 401, approve once credentials worked, reject when
 * they were refused (http_client.h). The source does what git 2.53's
 * credential_fill(), credential_approve() and credential_reject() do: the
 * helpers' "get" in order until one gives a user name and a password (or
 * a ready authorization), "store" to every helper after success, "erase"
 * to every helper after a refusal.
 *
 * Differences from git, all on purpose or not yet needed:
 *   - the "url" attribute in a helper's answer is ignored (git starts the
 *     credential over from it, dropping the list of helpers it is
 *     running);
 *   - credentials in the URL itself are sent by the remote operation
 *     (util/url.h) and never reach the helpers (git also stores them);
 *   - credential.interactive and core.askPass/GIT_ASKPASS are not read:
 *     without a helper's answer the client prompts on a terminal, or
 *     fails without one. */
#ifndef WG_CLI_CREDENTIAL_HELPER_H
#define WG_CLI_CREDENTIAL_HELPER_H

#include <stdbool.h>
#include <stddef.h>

#include "credential/credential.h"
#include "http_client.h"
#include "repo/config.h"

/* --- URL matching (urlmatch.c) --- */

/* A URL normalized as git's url_normalize() does it for matching. */
struct cli_url_norm {
	char *scheme;   /* lower case */
	char *user;     /* NULL: no user information */
	char *host;     /* lower case; may hold '*' labels (a pattern) */
	char *port;     /* "" for the scheme's default */
	char *path;     /* starts with '/', no query or fragment */
};
/* 0, -1 when `url` is not a whole URL (no "scheme://", no host, a bad
 * port, escape or ".." segment), -2 when out of memory. `globs`: a
 * config pattern, where host labels may be "*". */
int cli_url_normalize(struct cli_url_norm *u, const char *url, bool globs);
void cli_url_norm_release(struct cli_url_norm *u);
bool cli_url_match(const struct cli_url_norm *url, const struct cli_url_norm *pattern);

/* --- configuration (config.c) --- */

struct cli_cred_config {
	struct cli_strlist helpers;  /* in the order they run */
	char *username;              /* credential.username; NULL if unset */
	bool use_http_path;          /* credential.useHttpPath */
	bool protect_protocol;       /* credential.protectProtocol (default true) */
};

/* Read the credential.* settings that apply to c (its protocol, host,
 * path and user name) from config files given lowest priority first
 * (git's order: the XDG file, ~/.gitconfig, the repository's, -c). As in
 * git, every entry that matches applies in that order: helpers add up
 * (an empty value empties the list), the last username and useHttpPath
 * win. WG_EINVALID for a key without a value or a bad boolean. */
int cli_cred_config_read(struct cli_cred_config *out, const struct wg_config *const *layers,
			 size_t nlayers, const struct cli_credential *c);
void cli_cred_config_release(struct cli_cred_config *cfg);

/* --- running a helper (helper.c) --- */

/* The command git runs for helper `spec` and `action` ("get", "store",
 * "erase"): "!cmd" runs cmd, an absolute path runs as it is, a name runs
 * "git credential-<name> ..."; then " <action>" -- all through "sh -c". */
int cli_credential_helper_command(struct wg_buf *out, const char *spec, const char *action);

/* Run a helper: c written to its standard input (its standard error is
 * ours); for "get" its answer read back into c. A helper that cannot run,
 * fails, or answers a malformed line is passed over as git does (a
 * warning for the line); the error returned is for what git dies of: a
 * value that cannot be written, a bad boolean in the answer, no memory. */
int cli_credential_helper_run(struct cli_credential *c, const char *spec, const char *action);

/* --- the source the HTTP client asks (source.c) --- */

struct cli_cred_source {
	struct http_credential_source hooks;  /* give &hooks to the client */
	struct cli_credential cred;
	struct cli_cred_config cfg;
	char *url;
	const struct wg_config *layers[4];
	size_t nlayers;
	bool configured;
	bool approved;
};

/* A source for requests to `url` (the remote's URL, without credentials),
 * with the settings of `layers` (lowest priority first; NULL entries are
 * skipped; they must outlive the source). */
int cli_cred_source_init(struct cli_cred_source *s, const char *url,
			 const struct wg_config *const *layers, size_t nlayers);
void cli_cred_source_release(struct cli_cred_source *s);

#endif
