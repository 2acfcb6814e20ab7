/*
 * url.h: a strict parser for http and https URLs, with canonical form.
 *
 * Used wherever a URL decides something: an allowlist match, a redirect
 * check, a base URL that replaces an endpoint's host.  It accepts less than
 * browsers do, on purpose, so that the URL it checks is the URL that is
 * fetched: only http and https; an ASCII host (IDNs must be given in
 * punycode); no backslashes, spaces, control characters or raw non-ASCII
 * bytes; numeric hosts only as four decimal octets or a bracketed IPv6
 * address (no "0x7f.1" or "2130706433"); ports 1..65535; no percent-encoded
 * '/' or '\' in the path.
 *
 * Canonical form: scheme and host in lower case, one trailing dot of the
 * host removed, the port known (u->port; the text leaves out a default
 * port), "." and ".." path segments
 * resolved, percent-encodings of unreserved characters decoded and the rest
 * written with upper-case hex, an empty path made "/".
 */
#ifndef AI_URL_H
#define AI_URL_H

#include "buf.h"
#include "err.h"

struct ai_url {
	char *scheme;   /* "http" or "https" */
	char *userinfo; /* NULL when absent */
	char *host;     /* lower case; an IPv6 address without its brackets */
	int port;       /* explicit or the scheme's default */
	int ipv6;
	char *path;     /* canonical, begins with '/' */
	char *query;    /* without '?'; NULL when absent */
	char *fragment; /* without '#'; NULL when absent */
};

/* Parse and canonicalize.  Errors are AI_EXIT_DATAERR with the reason. */
int ai_url_parse(const char *s, struct ai_url *u, struct ai_err *e);
void ai_url_free(struct ai_url *u);
/*
 * The canonical text: scheme://host:port/path?query, without userinfo and
 * fragment, the port left out when it is the scheme's default.  To free().
 */
char *ai_url_string(const struct ai_url *u);
/* scheme://host[:port] only: what is used to name a service in messages. */
char *ai_url_origin(const struct ai_url *u);
/* Append s as one component of a path or query: all but the unreserved characters encoded. */
void ai_url_encode(struct ai_buf *out, const char *s);

#endif
