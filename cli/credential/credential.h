/* git's credential helper protocol (gitcredentials(7), git-credential(1),
 * "INPUT/OUTPUT FORMAT"), for the native command line.
 *
 * A credential is a set of attributes written one per line as "key=value"
 * to a helper's standard input and read back from its standard output. The
 * list ends with a blank line or the end of the stream. There is no
 * quoting: a value can hold any byte but newline and NUL.
 *
 * This file is the data and its format (credential.c); running helpers,
 * the credential.* configuration and the hook the HTTP client calls are in
 * helper.h. The behaviour is git 2.53's, byte for byte where a helper can
 * see it: the attributes written, their order, what is sent back to store
 * and erase (tests/interop/t17-credentials.sh compares the logs). */
#ifndef WG_CLI_CREDENTIAL_H
#define WG_CLI_CREDENTIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* Who is reading or writing, for the capabilities (authtype, state): git
 * announces one to a helper's "get" (HELPER) only if it supports it, and
 * repeats it on "store" and "erase" (RESPONSE) only if the helper
 * announced it back. */
enum cli_cred_op {
	CLI_CRED_OP_INITIAL,   /* git itself supports it */
	CLI_CRED_OP_HELPER,    /* written to, or read from, a helper's "get" */
	CLI_CRED_OP_RESPONSE,  /* written to "store" and "erase" */
};

struct cli_cred_capa {
	bool initial;
	bool helper;
};

/* A list of strings (wwwauth[], state[]). */
struct cli_strlist {
	char **v;
	size_t n;
};

/* No password_expiry_utc. */
#define CLI_CRED_NO_EXPIRY UINTMAX_MAX

struct cli_credential {
	char *protocol;            /* "http", "https" */
	char *host;                /* "host" or "host:port", as in the URL */
	char *path;                /* without leading or trailing '/'; NULL if none */
	char *username;
	char *password;            /* secret */
	char *authtype;            /* with `credential`: "Authorization: <authtype> <credential>" */
	char *credential;          /* secret */
	char *oauth_refresh_token; /* secret */
	uintmax_t password_expiry_utc;
	bool ephemeral;
	bool quit;                 /* a helper said: ask no further */
	bool multistage;           /* a helper said "continue": another round follows */
	struct cli_strlist wwwauth;       /* the 401's WWW-Authenticate values */
	struct cli_strlist state;         /* state[] read from helpers */
	struct cli_strlist state_to_send; /* state[] written to helpers */
	struct cli_cred_capa capa_authtype;
	struct cli_cred_capa capa_state;
	/* credential.protectProtocol: refuse to write a value with a CR */
	bool protect_protocol;
};

void cli_credential_init(struct cli_credential *c);
/* Free everything, secrets wiped first; the struct is ready for reuse. */
void cli_credential_release(struct cli_credential *c);
/* Forget password, credential (wiped). */
void cli_credential_clear_secrets(struct cli_credential *c);
/* Before each round of helpers: state[] read so far becomes what is sent. */
void cli_credential_next_state(struct cli_credential *c);
/* Mark both capabilities as supported (by webgit). */
void cli_credential_announce_all(struct cli_credential *c);

int cli_strlist_push(struct cli_strlist *l, const char *s);
void cli_strlist_clear(struct cli_strlist *l);

/* Set the context attributes from a URL as git's credential_from_url()
 * does: protocol (the scheme as written), host (the authority after any
 * "user@", port included, percent-decoded), path (percent-decoded,
 * without leading and trailing slashes), username. WG_EINVALID for a URL
 * without "scheme://", or with a newline in a part. */
int cli_credential_from_url(struct cli_credential *c, const char *url);

/* Append c's attributes as a helper reads them for `op`: the capabilities,
 * authtype/credential/ephemeral (with the authtype capability), protocol,
 * host, path, username, password, oauth_refresh_token,
 * password_expiry_utc, wwwauth[], then continue and state[] (with the
 * state capability). No blank line ends it (git closes the pipe instead).
 * WG_EINVALID, with git's message and nothing appended, for a value with a
 * newline, or a carriage return while protect_protocol is on; WG_ENOMEM. */
int cli_credential_write(const struct cli_credential *c, struct wg_buf *out,
			 enum cli_cred_op op);

/* Read a helper's answer, `len` bytes that may end anywhere: lines up to a
 * blank one (which ends the list; what follows is ignored) or the end of
 * the data (a last line without '\n' counts). A line may end in "\r\n".
 * Known keys set their attribute (the last one wins), "capability[]",
 * "wwwauth[]" and "state[]" add to their list; unknown keys are ignored,
 * as git does, and so is "url" (see helper.h). Returns 0, or WG_ECORRUPT
 * ("invalid credential line") at a line without '=' or with a NUL byte:
 * the attributes read before it stay set, as in git. A bad boolean
 * ("quit", "continue", "ephemeral") is WG_EINVALID with git's message. */
int cli_credential_read(struct cli_credential *c, const char *data, size_t len,
			enum cli_cred_op op);

/* Does `data` hold the end of a helper's answer, a blank line? Then
 * reading can stop, as git stops. */
bool cli_credential_answer_complete(const char *data, size_t len);

#endif
