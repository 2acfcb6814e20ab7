/* url.c: strict URL parsing and canonical form. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "url.h"
#include "buf.h"
#include "num.h"
#include "util.h"
#include "banned.h"

static int
is_unreserved(unsigned char c)
{
	return isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

void
ai_url_encode(struct ai_buf *out, const char *s)
{
	for (; *s; s++)
		if (is_unreserved((unsigned char)*s))
			ai_buf_addc(out, *s);
		else
			ai_buf_addf(out, "%%%02X", (unsigned char)*s);
}

static int
is_sub_delim(unsigned char c)
{
	return c != '\0' && strchr("!$&'()*+,;=", c) != NULL;
}

static int
hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Normalize the percent-encoding of a path, query or fragment (extra is the
 * set of other characters allowed raw).  Encoded '/' and '\' are refused in
 * paths: a server may decode them after the allowlist has looked.
 */
static int
normalize_part(const char *s, size_t n, const char *extra, int is_path, struct ai_buf *out,
    struct ai_err *e)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '%') {
			int hi, lo, v;

			if (i + 2 >= n || (hi = hexval((unsigned char)s[i + 1])) < 0 ||
			    (lo = hexval((unsigned char)s[i + 2])) < 0)
				return ai_err_set(e, AI_EXIT_DATAERR, "bad percent-encoding");
			v = hi * 16 + lo;
			if (is_path && (v == '/' || v == '\\'))
				return ai_err_set(e, AI_EXIT_DATAERR, "encoded '/' or '\\' in the path");
			if (v == 0)
				return ai_err_set(e, AI_EXIT_DATAERR, "encoded NUL");
			if (is_unreserved((unsigned char)v))
				ai_buf_addc(out, v);
			else
				ai_buf_addf(out, "%%%02X", v);
			i += 2;
			continue;
		}
		if (is_unreserved(c) || is_sub_delim(c) || c == ':' || c == '@' ||
		    (extra && c && strchr(extra, c))) {
			ai_buf_addc(out, c);
			continue;
		}
		if (c == '\\')
			return ai_err_set(e, AI_EXIT_DATAERR, "backslash in URL");
		if (c <= 0x20 || c >= 0x7f)
			return ai_err_set(e, AI_EXIT_DATAERR,
			    "space, control or non-ASCII character in URL (percent-encode it)");
		return ai_err_set(e, AI_EXIT_DATAERR, "character '%c' not allowed in URL", c);
	}
	return 0;
}

/* RFC 3986 5.2.4, on an already normalized path. */
static char *
remove_dots(const char *in)
{
	struct ai_buf out = AI_BUF_INIT(AI_BUF_NOLIMIT);
	const char *p = in;

	while (*p) {
		if (strncmp(p, "../", 3) == 0) {
			p += 3;
		} else if (strncmp(p, "./", 2) == 0) {
			p += 2;
		} else if (strncmp(p, "/./", 3) == 0) {
			p += 2;
		} else if (strcmp(p, "/.") == 0) {
			p = "/";
		} else if (strncmp(p, "/../", 4) == 0 || strcmp(p, "/..") == 0) {
			char *slash;

			p = p[3] ? p + 3 : "/";
			slash = out.len ? memrchr(out.buf, '/', out.len) : NULL;
			ai_buf_truncate(&out, slash ? (size_t)(slash - out.buf) : 0);
		} else if (strcmp(p, ".") == 0 || strcmp(p, "..") == 0) {
			break;
		} else {
			const char *next = strchr(p + 1, '/');
			size_t n = next ? (size_t)(next - p) : strlen(p);

			ai_buf_add(&out, p, n);
			p += n;
		}
	}
	if (out.len == 0)
		ai_buf_addc(&out, '/');
	return ai_buf_detach(&out, NULL);
}

static int
parse_ipv4(const char *h, int *is_ip)
{
	int parts = 0;
	const char *p = h;

	*is_ip = 0;
	/* Numeric-looking last label: then it must be a plain dotted quad. */
	{
		const char *last = strrchr(h, '.');
		const char *l = last ? last + 1 : h;

		if (*l == '\0' || !(isdigit((unsigned char)*l)))
			return 0;
		if (strspn(l, "0123456789") != strlen(l) &&
		    !(l[0] == '0' && (l[1] == 'x' || l[1] == 'X')))
			return 0;
	}
	*is_ip = 1;
	while (*p) {
		size_t n = strspn(p, "0123456789");
		uint64_t v;
		const char *why;
		char part[8];

		if (n == 0 || n > 3 || (n > 1 && p[0] == '0'))
			return -1;
		memcpy(part, p, n);
		part[n] = '\0';
		if (ai_parse_u64(part, 0, 255, &v, &why) < 0)
			return -1;
		parts++;
		p += n;
		if (*p == '.') {
			p++;
			if (*p == '\0')
				return -1;
		} else if (*p) {
			return -1;
		}
	}
	return parts == 4 ? 0 : -1;
}

static int
parse_host(const char *s, size_t n, struct ai_url *u, struct ai_err *e)
{
	size_t i;
	int is_ip;

	if (n == 0)
		return ai_err_set(e, AI_EXIT_DATAERR, "empty host");
	if (s[0] == '[') {
		if (s[n - 1] != ']' || n < 4)
			return ai_err_set(e, AI_EXIT_DATAERR, "bad IPv6 address");
		for (i = 1; i + 1 < n; i++)
			if (!isxdigit((unsigned char)s[i]) && s[i] != ':' && s[i] != '.')
				return ai_err_set(e, AI_EXIT_DATAERR, "bad IPv6 address");
		u->host = ai_xmemdup(s + 1, n - 2);
		for (i = 0; u->host[i]; i++)
			u->host[i] = (char)tolower((unsigned char)u->host[i]);
		u->ipv6 = 1;
		return 0;
	}
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '%')
			return ai_err_set(e, AI_EXIT_DATAERR, "percent-encoded host");
		if (c >= 0x80)
			return ai_err_set(e, AI_EXIT_DATAERR,
			    "non-ASCII host (give an internationalized name in punycode)");
		if (!isalnum(c) && c != '-' && c != '.' && c != '_')
			return ai_err_set(e, AI_EXIT_DATAERR, "character '%c' not allowed in host", c);
	}
	if (n > 1 && s[n - 1] == '.')
		n--;
	if (s[0] == '.' || s[n - 1] == '.' || memmem(s, n, "..", 2) != NULL || n > 253)
		return ai_err_set(e, AI_EXIT_DATAERR, "bad host name");
	u->host = ai_xmemdup(s, n);
	for (i = 0; i < n; i++)
		u->host[i] = (char)tolower((unsigned char)u->host[i]);
	if (parse_ipv4(u->host, &is_ip) < 0)
		return ai_err_set(e, AI_EXIT_DATAERR,
		    "numeric host must be four decimal octets (like 127.0.0.1)");
	return 0;
}

int
ai_url_parse(const char *s, struct ai_url *u, struct ai_err *e)
{
	const char *p, *auth, *auth_end, *hostp, *at, *colon, *q, *h;
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	size_t i;

	memset(u, 0, sizeof(*u));
	for (i = 0; s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= 0x20 || c >= 0x7f)
			return ai_err_set(e, AI_EXIT_DATAERR,
			    "space, control or non-ASCII character in URL (percent-encode it)");
		if (c == '\\')
			return ai_err_set(e, AI_EXIT_DATAERR, "backslash in URL");
	}
	p = strstr(s, "://");
	if (p == NULL)
		return ai_err_set(e, AI_EXIT_DATAERR, "not an absolute URL (scheme://host/...)");
	if ((size_t)(p - s) == 4 && strncasecmp(s, "http", 4) == 0)
		u->scheme = ai_xstrdup("http");
	else if ((size_t)(p - s) == 5 && strncasecmp(s, "https", 5) == 0)
		u->scheme = ai_xstrdup("https");
	else
		return ai_err_set(e, AI_EXIT_DATAERR, "only http and https URLs are supported");
	auth = p + 3;
	auth_end = auth + strcspn(auth, "/?#");
	at = NULL;
	for (h = auth; h < auth_end; h++)
		if (*h == '@')
			at = h;
	if (at != NULL) {
		u->userinfo = ai_xmemdup(auth, (size_t)(at - auth));
		hostp = at + 1;
	} else {
		hostp = auth;
	}
	if (*hostp == '[') {
		const char *close = memchr(hostp, ']', (size_t)(auth_end - hostp));

		if (close == NULL)
			goto bad;
		colon = close + 1 < auth_end ? close + 1 : NULL;
		if (colon != NULL && *colon != ':')
			goto bad;
	} else {
		colon = memchr(hostp, ':', (size_t)(auth_end - hostp));
	}
	if (parse_host(hostp, (size_t)((colon ? colon : auth_end) - hostp), u, e) < 0)
		goto fail;
	u->port = strcmp(u->scheme, "https") == 0 ? 443 : 80;
	if (colon != NULL) {
		char port[8];
		size_t n = (size_t)(auth_end - colon - 1);
		uint64_t v;
		const char *why;

		if (n > 0) {
			if (n >= sizeof(port))
				goto badport;
			memcpy(port, colon + 1, n);
			port[n] = '\0';
			if (ai_parse_u64(port, 1, 65535, &v, &why) < 0)
				goto badport;
			u->port = (int)v;
		}
	}
	/* path */
	p = auth_end;
	q = p + strcspn(p, "?#");
	if (normalize_part(p, (size_t)(q - p), "/", 1, &b, e) < 0)
		goto fail;
	u->path = remove_dots(b.len ? b.buf : "/");
	if (u->path[0] != '/') {
		char *t = u->path;

		u->path = ai_xmalloc(strlen(t) + 2);
		u->path[0] = '/';
		memcpy(u->path + 1, t, strlen(t) + 1);
		free(t);
	}
	ai_buf_reset(&b);
	if (*q == '?') {
		const char *f = q + 1 + strcspn(q + 1, "#");

		if (normalize_part(q + 1, (size_t)(f - q - 1), "/?", 0, &b, e) < 0)
			goto fail;
		u->query = ai_xmemdup(b.buf, b.len);
		ai_buf_reset(&b);
		q = f;
	}
	if (*q == '#') {
		if (normalize_part(q + 1, strlen(q + 1), "/?#", 0, &b, e) < 0)
			goto fail;
		u->fragment = ai_xmemdup(b.buf, b.len);
	}
	ai_buf_release(&b);
	return 0;
badport:
	ai_err_set(e, AI_EXIT_DATAERR, "bad port (1..65535)");
	goto fail;
bad:
	ai_err_set(e, AI_EXIT_DATAERR, "bad host");
fail:
	ai_buf_release(&b);
	ai_url_free(u);
	return -1;
}

void
ai_url_free(struct ai_url *u)
{
	free(u->scheme);
	free(u->userinfo);
	free(u->host);
	free(u->path);
	free(u->query);
	free(u->fragment);
	memset(u, 0, sizeof(*u));
}

char *
ai_url_origin(const struct ai_url *u)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	int def = u->port == (strcmp(u->scheme, "https") == 0 ? 443 : 80);

	ai_buf_addf(&b, "%s://%s%s%s", u->scheme, u->ipv6 ? "[" : "", u->host, u->ipv6 ? "]" : "");
	if (!def)
		ai_buf_addf(&b, ":%d", u->port);
	return ai_buf_detach(&b, NULL);
}

char *
ai_url_string(const struct ai_url *u)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	char *o = ai_url_origin(u);

	ai_buf_adds(&b, o);
	free(o);
	ai_buf_adds(&b, u->path);
	if (u->query != NULL) {
		ai_buf_addc(&b, '?');
		ai_buf_adds(&b, u->query);
	}
	return ai_buf_detach(&b, NULL);
}
