/* redact.c: secret redaction by value and by shape. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "redact.h"
#include "util.h"
#include "banned.h"

#define MAX_SECRETS 32

static char *secrets[MAX_SECRETS];
static size_t secret_len[MAX_SECRETS];
static size_t nsecrets;

void
ai_secret_add(const char *value)
{
	size_t i, n;

	if (value == NULL || (n = strlen(value)) < 6)
		return;
	for (i = 0; i < nsecrets; i++)
		if (secret_len[i] == n && memcmp(secrets[i], value, n) == 0)
			return;
	if (nsecrets == MAX_SECRETS) {
		/* Keep the newest: drop the oldest. */
		free(secrets[0]);
		memmove(secrets, secrets + 1, (MAX_SECRETS - 1) * sizeof(secrets[0]));
		memmove(secret_len, secret_len + 1, (MAX_SECRETS - 1) * sizeof(secret_len[0]));
		nsecrets--;
	}
	secrets[nsecrets] = ai_xstrdup(value);
	secret_len[nsecrets] = n;
	nsecrets++;
}

void
ai_secret_clear(void)
{
	size_t i;

	for (i = 0; i < nsecrets; i++)
		free(secrets[i]);
	nsecrets = 0;
}

static int
is_word(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '-';
}

static int
is_token_char(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '-';
}

/* Characters that end a credential value in free text. */
static int
ends_value(unsigned char c)
{
	return c <= 0x20 || c == '"' || c == '\'' || c == ',' || c == ';' || c == '&' ||
	    c == ')' || c == '(' || c == '}' || c == '{' || c == ']' || c == '[' ||
	    c == '<' || c == '>' || c == '`' || c == 0x7f;
}

static int
prefix_ci(const char *s, size_t n, const char *pre)
{
	size_t l = strlen(pre);

	return n >= l && strncasecmp(s, pre, l) == 0;
}

static size_t
span(const char *s, size_t n, int (*ok)(unsigned char))
{
	size_t i = 0;

	while (i < n && ok((unsigned char)s[i]))
		i++;
	return i;
}

static int
is_b64(unsigned char c)
{
	return isalnum(c) || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' ||
	    c == '=' || c == '-';
}

static int
is_upper_digit(unsigned char c)
{
	return isupper(c) || isdigit(c);
}

static int
not_value_end(unsigned char c)
{
	return !ends_value(c);
}

/* Known token shapes: a prefix, then at least min token characters. */
static const struct {
	const char *prefix;
	size_t min;
	int (*chars)(unsigned char);
} shapes[] = {
	{ "sk-", 16, is_token_char },
	{ "AIza", 30, is_token_char },
	{ "ghp_", 20, is_token_char },
	{ "gho_", 20, is_token_char },
	{ "ghu_", 20, is_token_char },
	{ "ghs_", 20, is_token_char },
	{ "ghr_", 20, is_token_char },
	{ "github_pat_", 20, is_token_char },
	{ "xoxb-", 10, is_token_char },
	{ "xoxp-", 10, is_token_char },
	{ "xoxa-", 10, is_token_char },
	{ "xoxr-", 10, is_token_char },
	{ "xoxs-", 10, is_token_char },
	{ "AKIA", 16, is_upper_digit },
	{ "ASIA", 16, is_upper_digit },
	{ "tvly-", 16, is_token_char },
	{ "glpat-", 20, is_token_char },
	{ "hf_", 30, is_token_char },
	{ "gsk_", 20, is_token_char },
	{ "pplx-", 20, is_token_char },
	{ "sk_live_", 16, is_token_char }, /* Stripe secret and restricted keys */
	{ "sk_test_", 16, is_token_char },
	{ "rk_live_", 16, is_token_char },
	{ "rk_test_", 16, is_token_char },
	{ "BSA", 24, is_token_char }, /* Brave Search API keys */
};

/* Query parameters whose value is a credential. */
static const char *const query_names[] = {
	"key", "api_key", "apikey", "api-key", "access_token", "token", "auth",
	"secret", "client_secret", "password", "passwd", "sig", "signature",
	"subscription-key", "x-api-key", "refresh_token", "id_token",
};

/* Assignment names (their last part) whose value is a credential. */
static const char *const name_suffixes[] = {
	"_key", "-key", "apikey", "token", "secret", "password", "passwd",
	"authorization", "credentials", "private_key",
};

static size_t
match_secret(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < nsecrets; i++)
		if (secret_len[i] <= n && s[0] == secrets[i][0] &&
		    memcmp(s, secrets[i], secret_len[i]) == 0)
			return secret_len[i];
	return 0;
}

static size_t
match_shape(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < AI_ARRAY_SIZE(shapes); i++) {
		size_t pl = strlen(shapes[i].prefix), rest;

		if (n < pl || memcmp(s, shapes[i].prefix, pl) != 0)
			continue;
		rest = span(s + pl, n - pl, shapes[i].chars);
		if (rest >= shapes[i].min && (pl + rest == n || !is_word((unsigned char)s[pl + rest])))
			return pl + rest;
	}
	return 0;
}

static int
is_b64url(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '-';
}

/*
 * A JSON Web Token: three base64url parts joined by dots, the first one
 * beginning "eyJ" (the encoding of '{"').  Returns its length, or 0.
 */
static size_t
match_jwt(const char *s, size_t n)
{
	size_t i = 0, part;
	int parts;

	if (n < 3 || memcmp(s, "eyJ", 3) != 0)
		return 0;
	for (parts = 1;; parts++) {
		part = span(s + i, n - i, is_b64url);
		if (part < 8)
			return 0;
		i += part;
		if (parts == 3 || i >= n || s[i] != '.')
			break;
		i++;
	}
	if (parts < 3 || (i < n && (is_word((unsigned char)s[i]) || s[i] == '.')))
		return 0;
	return i;
}

/*
 * "NAME" [quote] [spaces] (= or :) [spaces] [quote] VALUE, where NAME ends
 * with a credential-like suffix.  Returns the offset and length of VALUE.
 */
static int
match_assignment(const char *s, size_t n, size_t *voff, size_t *vlen)
{
	size_t name = 0, i, j, v;

	while (name < n && (is_word((unsigned char)s[name]) || s[name] == '.'))
		name++;
	if (name < 3)
		return 0;
	for (j = 0; j < AI_ARRAY_SIZE(name_suffixes); j++) {
		size_t sl = strlen(name_suffixes[j]);

		if (name >= sl && strncasecmp(s + name - sl, name_suffixes[j], sl) == 0)
			break;
	}
	if (j == AI_ARRAY_SIZE(name_suffixes))
		return 0;
	i = name;
	if (i < n && (s[i] == '"' || s[i] == '\''))
		i++;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i >= n || (s[i] != '=' && s[i] != ':'))
		return 0;
	i++;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i < n && (s[i] == '"' || s[i] == '\''))
		i++;
	/* "Authorization: Bearer x" is left to the bearer rule, which keeps the scheme. */
	if (prefix_ci(s + i, n - i, "bearer ") || prefix_ci(s + i, n - i, "basic "))
		return 0;
	v = span(s + i, n - i, not_value_end);
	if (v < 6)
		return 0;
	*voff = i;
	*vlen = v;
	return 1;
}

/* The redactor; assignments: also NAME=value and NAME: value (see redact.h). */
static int
redact(struct ai_buf *out, const char *s, size_t n, int assignments)
{
	size_t i = 0, run = 0;

#define FLUSH_TO(pos) do { if (ai_buf_add(out, s + run, (pos) - run) < 0) return -1; } while (0)
#define REDACT(from, len) do { FLUSH_TO(from); if (ai_buf_adds(out, AI_REDACTED) < 0) return -1; \
	i = (from) + (len); run = i; } while (0)

	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		int boundary = i == 0 || !is_word((unsigned char)s[i - 1]);
		size_t m, off, len;

		if (nsecrets && (m = match_secret(s + i, n - i)) > 0) {
			REDACT(i, m);
			continue;
		}
		if (c == '-' && prefix_ci(s + i, n - i, "-----BEGIN ")) {
			const char *end = NULL, *k;
			size_t lim = n - i;

			k = memchr(s + i + 11, '\n', lim - 11);
			if (k != NULL && (size_t)(k - (s + i)) < 80 &&
			    memmem(s + i, (size_t)(k - (s + i)), "PRIVATE KEY-----", 16) != NULL)
				end = memmem(k, n - (size_t)(k - s), "-----END ", 9);
			if (end != NULL) {
				const char *stop = memmem(end + 9, n - (size_t)(end + 9 - s), "-----", 5);

				len = stop ? (size_t)(stop + 5 - (s + i)) : n - i;
				REDACT(i, len);
				continue;
			}
		}
		if (c == ':' && i + 2 < n && s[i + 1] == '/' && s[i + 2] == '/') {
			size_t j = i + 3;

			while (j < n && !strchr("/?#@ \t\r\n\"'<>", s[j]))
				j++;
			if (j < n && s[j] == '@' && j > i + 3) {
				FLUSH_TO(i + 3);
				if (ai_buf_adds(out, AI_REDACTED) < 0)
					return -1;
				i = j;
				run = i;
				continue;
			}
		}
		if ((c == '?' || c == '&') && i + 1 < n) {
			size_t name = span(s + i + 1, n - i - 1, is_word);
			size_t q;

			if (name > 0 && i + 1 + name < n && s[i + 1 + name] == '=') {
				for (q = 0; q < AI_ARRAY_SIZE(query_names); q++)
					if (strlen(query_names[q]) == name &&
					    strncasecmp(s + i + 1, query_names[q], name) == 0)
						break;
				off = i + 2 + name;
				len = 0;
				while (off + len < n && !strchr("&#\"' \t\r\n<>", s[off + len]))
					len++;
				if (q < AI_ARRAY_SIZE(query_names) && len > 0) {
					REDACT(off, len);
					continue;
				}
			}
		}
		if (boundary && (c == 'B' || c == 'b') &&
		    (prefix_ci(s + i, n - i, "bearer ") || prefix_ci(s + i, n - i, "basic "))) {
			size_t j = i + ((c == 'B' || c == 'b') && (s[i + 1] == 'e' || s[i + 1] == 'E') ? 7 : 6);

			while (j < n && s[j] == ' ')
				j++;
			len = span(s + j, n - j, is_b64);
			if (len >= 8) {
				REDACT(j, len);
				continue;
			}
		}
		if (boundary && c == 'e' && (m = match_jwt(s + i, n - i)) > 0) {
			REDACT(i, m);
			continue;
		}
		if (boundary && isalnum(c) && (m = match_shape(s + i, n - i)) > 0) {
			REDACT(i, m);
			continue;
		}
		if (assignments && boundary && (isalpha(c) || c == '_') &&
		    match_assignment(s + i, n - i, &off, &len)) {
			/* Keep the name, replace the value. */
			REDACT(i + off, len);
			continue;
		}
		/* Skip the rest of a word: none of the rules start inside one. */
		if (is_word(c)) {
			i++;
			while (i < n && is_word((unsigned char)s[i]) && !(nsecrets && match_secret(s + i, n - i)))
				i++;
			continue;
		}
		i++;
	}
	FLUSH_TO(n);
	return 0;
#undef FLUSH_TO
#undef REDACT
}

int
ai_redact(struct ai_buf *out, const char *s, size_t n)
{
	return redact(out, s, n, 1);
}

int
ai_redact_output(struct ai_buf *out, const char *s, size_t n)
{
	return redact(out, s, n, 0);
}

int
ai_secret_json_plain(void)
{
	size_t i, k;

	for (i = 0; i < nsecrets; i++)
		for (k = 0; k < secret_len[i]; k++)
			if ((unsigned char)secrets[i][k] < 0x20 || secrets[i][k] == '"' ||
			    secrets[i][k] == '\\' || secrets[i][k] == 0x7f)
				return 0;
	return 1;
}

size_t
ai_secret_maxlen(void)
{
	size_t i, max = 0;

	for (i = 0; i < nsecrets; i++)
		if (secret_len[i] > max)
			max = secret_len[i];
	return max;
}

int
ai_redact_span(struct ai_buf *out, const char *s, size_t n, size_t from, size_t to)
{
	struct ai_buf mid = AI_BUF_INIT(AI_BUF_NOLIMIT);
	size_t back = ai_secret_maxlen(), p = from;
	size_t end = 0; /* where the secrets found so far end */
	int inside = 0, rc;

	if (back > 0)
		p = from >= back - 1 ? from - (back - 1) : 0;
	/* from a secret's length before the page: a secret that starts there may reach into it */
	for (; p < to; p++) {
		size_t k;

		for (k = 0; k < nsecrets; k++)
			if (secret_len[k] <= n - p && s[p] == secrets[k][0] &&
			    memcmp(s + p, secrets[k], secret_len[k]) == 0 &&
			    p + secret_len[k] > end)
				end = p + secret_len[k];
		if (p < from)
			continue;
		if (p < end) {
			/* one mark for the whole run of secret bytes within the page */
			if (!inside)
				ai_buf_adds(&mid, AI_REDACTED);
			inside = 1;
			continue;
		}
		inside = 0;
		ai_buf_addc(&mid, s[p]);
	}
	rc = ai_redact_output(out, mid.buf, mid.len);
	ai_buf_release(&mid);
	return rc;
}

char *
ai_redact_str(const char *s)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);

	ai_redact(&b, s, strlen(s));
	return ai_buf_detach(&b, NULL);
}
