/*
 * schema.c: --schema keeps its promise: the answer is checked against the
 * JSON Schema, and JSON the model wrapped in one fenced block is recovered.
 *
 * The keywords checked are those the providers' strict modes accept, and a
 * few more: type (one or a list; "integer" is a number without a
 * fraction), enum, const, properties, required, additionalProperties (false
 * or a schema), patternProperties, minProperties, maxProperties, items,
 * prefixItems, minItems, maxItems, uniqueItems, minLength, maxLength (in
 * characters), pattern, format (date-time, date, time, duration, email,
 * hostname, ipv4, ipv6, uuid), minimum, maximum, exclusiveMinimum,
 * exclusiveMaximum, multipleOf, anyOf, oneOf, allOf, not, and $ref to a
 * place in the same schema ("#", "#/$defs/x", "#/definitions/x").  Other
 * keywords are annotations and checked by nothing.  A pattern is an
 * ECMA-262 regular expression; it is read as a POSIX extended one, with
 * \d, \w, \s and their negations, which covers what schemas use.
 *
 * The first failure is reported with its JSON path: $.items[2].name.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ask.h"
#include "json.h"
#include "record.h"
#include "text.h"
#include "util.h"
#include "banned.h"

#define MAX_DEPTH 256


struct check {
	const cJSON *root;      /* the whole schema, for $ref */
	struct ai_buf path;     /* where we are: "$.a[2]" */
	int depth;
	struct ai_err *e;
};

/* ---- paths ---- */

static int
is_ident(const char *s)
{
	size_t i;

	if (!isalpha((unsigned char)s[0]) && s[0] != '_')
		return 0;
	for (i = 1; s[i]; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return 0;
	return 1;
}

static size_t
path_key(struct check *c, const char *key)
{
	size_t was = c->path.len;

	if (is_ident(key)) {
		ai_buf_addf(&c->path, ".%s", key);
	} else {
		cJSON *k = cJSON_CreateString(key);
		char *q = ai_json_print(k);

		ai_buf_addf(&c->path, "[%s]", q);
		free(q);
		cJSON_Delete(k);
	}
	return was;
}

static size_t
path_index(struct check *c, int i)
{
	size_t was = c->path.len;

	ai_buf_addf(&c->path, "[%d]", i);
	return was;
}

static void
path_back(struct check *c, size_t was)
{
	ai_buf_truncate(&c->path, was);
}

static int fail(struct check *c, const char *fmt, ...) AI_PRINTF(2, 3);

/* The first failure: where it is, and why. */
static int
fail(struct check *c, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return ai_err_set(c->e, AI_EXIT_FORMAT, "%s: %s", c->path.buf, why);
}

/* ---- types ---- */

/* Whether x has no fraction (large doubles have none); no libm needed. */
static int
whole(double x)
{
	if (!isfinite(x))
		return 0;
	if (x > 9e15 || x < -9e15)
		return 1;
	return x == (double)(long long)x;
}

/* How far x is from the nearest whole number. */
static double
off_whole(double x)
{
	double f;

	if (x > 9e15 || x < -9e15)
		return 0;
	f = x - (double)(long long)x;
	if (f < 0)
		f = -f;
	return f > 0.5 ? 1 - f : f;
}

static cJSON_bool
is_integer(const cJSON *const v)
{
	return cJSON_IsNumber(v) && whole(v->valuedouble);
}

/* The types of JSON Schema, in the order a value is named by (an integer before a number). */
static const struct {
	const char *name, *a;
	cJSON_bool (*is)(const cJSON *const v);
} types[] = {
	{ "object", "an object", cJSON_IsObject }, { "array", "an array", cJSON_IsArray },
	{ "string", "a string", cJSON_IsString }, { "integer", "an integer", is_integer },
	{ "number", "a number", cJSON_IsNumber }, { "boolean", "a boolean", cJSON_IsBool },
	{ "null", "null", cJSON_IsNull },
};

static int
known_type(const char *t)
{
	size_t i;

	for (i = 0; i < AI_ARRAY_SIZE(types); i++)
		if (strcmp(t, types[i].name) == 0)
			return (int)i;
	return -1;
}

static int
has_type(const cJSON *v, const char *t)
{
	int i = known_type(t);

	return i >= 0 && types[i].is(v);
}

static const char *
type_of(const cJSON *v)
{
	size_t i;

	for (i = 0; i < AI_ARRAY_SIZE(types); i++)
		if (types[i].is(v))
			return types[i].a;
	return "null";
}

/* ---- formats ---- */

static int
digits(const char *s, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

static int
num(const char *s, int n)
{
	int v = 0, i;

	for (i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

/* YYYY-MM-DD, with the days the month has. */
static int
is_date(const char *s, size_t n)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y, m, d;

	if (n != 10 || !digits(s, 4) || s[4] != '-' || !digits(s + 5, 2) || s[7] != '-' ||
	    !digits(s + 8, 2))
		return 0;
	y = num(s, 4);
	m = num(s + 5, 2);
	d = num(s + 8, 2);
	if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1])
		return 0;
	return !(m == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)));
}

/* HH:MM:SS[.frac](Z|+HH:MM|-HH:MM), as RFC 3339 writes it. */
static int
is_time(const char *s, size_t n)
{
	size_t i = 8;

	if (n < 9 || !digits(s, 2) || s[2] != ':' || !digits(s + 3, 2) || s[5] != ':' ||
	    !digits(s + 6, 2) || num(s, 2) > 23 || num(s + 3, 2) > 59 || num(s + 6, 2) > 60)
		return 0;
	if (s[i] == '.') {
		size_t f = ++i;

		while (i < n && isdigit((unsigned char)s[i]))
			i++;
		if (i == f)
			return 0;
	}
	if (i + 1 == n && (s[i] == 'Z' || s[i] == 'z'))
		return 1;
	return i + 6 == n && (s[i] == '+' || s[i] == '-') && digits(s + i + 1, 2) &&
	    s[i + 3] == ':' && digits(s + i + 4, 2) && num(s + i + 1, 2) <= 23 &&
	    num(s + i + 4, 2) <= 59;
}

/* ISO 8601 durations: P1Y2M3DT4H5M6S, P2W, PT0.5S. */
static int
is_duration(const char *s, size_t n)
{
	const char *units = "YMDWHMS";
	size_t i = 1;
	int any = 0, t = 0, last = -1;

	if (n < 2 || s[0] != 'P')
		return 0;
	while (i < n) {
		size_t d = i;
		const char *u;
		int at;

		if (s[i] == 'T' && !t) {
			t = 1;
			i++;
			if (i == n)
				return 0;
			continue;
		}
		while (i < n && (isdigit((unsigned char)s[i]) || s[i] == '.'))
			i++;
		if (i == d || i == n)
			return 0;
		u = strchr(t ? "HMS" : "YMDW", s[i]);
		if (u == NULL)
			return 0;
		at = (int)(strchr(units + (t ? 4 : 0), s[i]) - units);
		if (at <= last)
			return 0;
		last = at;
		any = 1;
		i++;
	}
	return any;
}

static int
is_hostname(const char *s, size_t n)
{
	size_t i, label = 0;

	if (n == 0 || n > 253)
		return 0;
	for (i = 0; i < n; i++) {
		if (s[i] == '.') {
			if (label == 0 || s[i - 1] == '-')
				return 0;
			label = 0;
		} else if (isalnum((unsigned char)s[i]) || (s[i] == '-' && label > 0)) {
			if (++label > 63)
				return 0;
		} else {
			return 0;
		}
	}
	return label > 0 && s[n - 1] != '-';
}

static int
is_email(const char *s, size_t n)
{
	const char *at = memchr(s, '@', n);
	size_t i;

	if (at == NULL || at == s || memchr(at + 1, '@', n - (size_t)(at + 1 - s)) != NULL)
		return 0;
	for (i = 0; s + i < at; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == '"' || s[i] == '(' || s[i] == ')' ||
		    s[i] == ',' || s[i] == ':' || s[i] == ';' || s[i] == '<' || s[i] == '>' ||
		    s[i] == '[' || s[i] == ']' || s[i] == '\\')
			return 0;
	return is_hostname(at + 1, n - (size_t)(at + 1 - s));
}

static int
is_ip(const char *s, size_t n, int family)
{
	unsigned char buf[16];
	char tmp[64];

	if (n == 0 || n >= sizeof(tmp))
		return 0;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	return inet_pton(family, tmp, buf) == 1;
}

static int
is_uuid(const char *s, size_t n)
{
	size_t i;

	if (n != 36)
		return 0;
	for (i = 0; i < n; i++)
		if ((i == 8 || i == 13 || i == 18 || i == 23) ? s[i] != '-' :
		    !isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* 1 when s has the format (or the format is one nothing checks), else 0. */
static int
format_ok(const char *f, const char *s)
{
	size_t n = strlen(s);

	if (strcmp(f, "date-time") == 0) {
		const char *t = memchr(s, 'T', n);

		if (t == NULL)
			t = memchr(s, 't', n);
		return t != NULL && is_date(s, (size_t)(t - s)) &&
		    is_time(t + 1, n - (size_t)(t + 1 - s));
	}
	if (strcmp(f, "date") == 0)
		return is_date(s, n);
	if (strcmp(f, "time") == 0)
		return is_time(s, n);
	if (strcmp(f, "duration") == 0)
		return is_duration(s, n);
	if (strcmp(f, "email") == 0)
		return is_email(s, n);
	if (strcmp(f, "hostname") == 0)
		return is_hostname(s, n);
	if (strcmp(f, "ipv4") == 0)
		return is_ip(s, n, AF_INET);
	if (strcmp(f, "ipv6") == 0)
		return is_ip(s, n, AF_INET6);
	if (strcmp(f, "uuid") == 0)
		return is_uuid(s, n);
	return 1;
}

/* ---- patterns ---- */

/*
 * An ECMA-262 pattern as a POSIX extended one: \d \w \s and their
 * negations spelled out (inside a bracket too), a lazy quantifier read as
 * the greedy one (whether there is a match is the same), a brace that is no
 * quantifier made literal.  What POSIX cannot say or a regular expression
 * engine could blow up on is refused: a quantifier with nothing to repeat
 * or on another quantifier, a count above 1000, more than 1024 bytes.
 * Returns 0, or -1 when it cannot be read.
 */
static int
pattern_compile(const char *pat, regex_t *re)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	int in_bracket = 0, rc = 0;
	int prev = 0; /* what came before: 0 nothing to repeat, 1 an atom, 2 a quantifier */
	size_t i;

	if (strlen(pat) > 1024)
		return -1;
	for (i = 0; pat[i] && rc == 0; i++) {
		char c = pat[i];

		if (c == '\\' && pat[i + 1] != '\0') {
			char d = pat[++i];
			const char *cls = d == 'd' || d == 'D' ? "0-9" : d == 'w' || d == 'W' ?
			    "A-Za-z0-9_" : d == 's' || d == 'S' ? " \t\n\r\f\v" : NULL;

			if (cls != NULL && in_bracket && islower((unsigned char)d))
				ai_buf_adds(&b, cls);
			else if (cls != NULL && !in_bracket)
				ai_buf_addf(&b, "[%s%s]", islower((unsigned char)d) ? "" : "^", cls);
			else if (cls != NULL)
				rc = -1; /* a negated class inside a bracket has no POSIX spelling */
			else if (d == 't' || d == 'n' || d == 'r')
				ai_buf_addc(&b, d == 't' ? '\t' : d == 'n' ? '\n' : '\r');
			else if (in_bracket)
				ai_buf_addc(&b, d);
			else
				ai_buf_addf(&b, "\\%c", d);
			prev = in_bracket ? prev : 1;
			continue;
		}
		if (in_bracket) {
			in_bracket = c != ']';
			prev = in_bracket ? prev : 1;
			ai_buf_addc(&b, c);
			continue;
		}
		if (c == '[') {
			in_bracket = 1;
			ai_buf_addc(&b, c);
			if (pat[i + 1] == '^')
				ai_buf_addc(&b, pat[++i]);
			if (pat[i + 1] == ']')
				ai_buf_addc(&b, pat[++i]);
			continue;
		}
		if (c == '*' || c == '+' || c == '?' ||
		    (c == '{' && isdigit((unsigned char)pat[i + 1]))) {
			if (c == '?' && prev == 2)
				continue; /* lazy */
			if (prev != 1) {
				rc = -1;
				break;
			}
			prev = 2;
			if (c == '{') {
				char *end;
				unsigned long lo = strtoul(pat + i + 1, &end, 10), hi = lo;

				if (*end == ',' && isdigit((unsigned char)end[1]))
					hi = strtoul(end + 1, &end, 10);
				else if (*end == ',')
					end++;
				if (*end != '}' || lo > 1000 || hi > 1000 || hi < lo) {
					rc = -1;
					break;
				}
				ai_buf_add(&b, pat + i, (size_t)(end - (pat + i)) + 1);
				i = (size_t)(end - pat);
				continue;
			}
			ai_buf_addc(&b, c);
			continue;
		}
		if (c == '{' || c == '}')
			ai_buf_addc(&b, '\\');
		prev = c == '(' || c == '|' || c == '^' || c == '$' ? 0 : 1;
		ai_buf_addc(&b, c);
	}
	if (rc == 0 && in_bracket)
		rc = -1;
	if (rc == 0)
		rc = regcomp(re, b.buf ? b.buf : "", REG_EXTENDED | REG_NOSUB) == 0 ? 0 : -1;
	ai_buf_release(&b);
	return rc;
}

/* 1 when s matches pat somewhere, 0 when not, -1 when pat cannot be read. */
static int
pattern_match(const char *pat, const char *s)
{
	regex_t re;
	int rc;

	if (pattern_compile(pat, &re) < 0)
		return -1;
	rc = regexec(&re, s, 0, NULL, 0) == 0;
	regfree(&re);
	return rc;
}

/* ---- $ref ---- */

/* A place in the schema: "#", "#/a/b" (with ~0, ~1 and %XX). */
static const cJSON *
resolve(const cJSON *root, const char *ref)
{
	const cJSON *at = root;
	const char *p;

	if (ref[0] != '#')
		return NULL;
	p = ref + 1;
	while (*p == '/') {
		struct ai_buf tok = AI_BUF_INIT(AI_BUF_NOLIMIT);
		const cJSON *next;

		for (p++; *p && *p != '/'; p++) {
			if (p[0] == '~' && (p[1] == '0' || p[1] == '1')) {
				ai_buf_addc(&tok, p[1] == '0' ? '~' : '/');
				p++;
			} else if (p[0] == '%' && isxdigit((unsigned char)p[1]) &&
			    isxdigit((unsigned char)p[2])) {
				char hex[3] = { p[1], p[2], 0 };

				ai_buf_addc(&tok, (char)strtol(hex, NULL, 16));
				p += 2;
			} else {
				ai_buf_addc(&tok, *p);
			}
		}
		if (cJSON_IsArray(at)) {
			char *end;
			long i = strtol(tok.buf ? tok.buf : "", &end, 10);

			next = tok.len > 0 && *end == '\0' && i >= 0 ? cJSON_GetArrayItem(at, (int)i) :
			    NULL;
		} else {
			next = ai_json_get(at, tok.buf ? tok.buf : "");
		}
		ai_buf_release(&tok);
		if (next == NULL)
			return NULL;
		at = next;
	}
	return *p == '\0' ? at : NULL;
}

/* ---- the check ---- */

static int check(struct check *c, const cJSON *s, const cJSON *v);

/* Whether v follows s, quietly (for anyOf, oneOf, not). */
static int
follows(struct check *c, const cJSON *s, const cJSON *v)
{
	struct ai_err quiet = AI_ERR_INIT, *was = c->e;
	size_t len = c->path.len;
	int ok;

	c->e = &quiet;
	ok = check(c, s, v) == 0;
	c->e = was;
	path_back(c, len);
	return ok;
}

static int
check_type(struct check *c, const cJSON *t, const cJSON *v)
{
	const cJSON *it;
	struct ai_buf want = AI_BUF_INIT(AI_BUF_NOLIMIT);
	int rc;

	if (cJSON_IsString(t)) {
		if (has_type(v, t->valuestring))
			return 0;
		return fail(c, "is %s, not of type %s", type_of(v), t->valuestring);
	}
	cJSON_ArrayForEach(it, t)
		if (cJSON_IsString(it) && has_type(v, it->valuestring))
			return 0;
	cJSON_ArrayForEach(it, t)
		ai_buf_addf(&want, "%s%s", want.len ? " or " : "", cJSON_IsString(it) ? it->valuestring : "?");
	rc = fail(c, "is %s, not of type %s", type_of(v), want.buf ? want.buf : "none");
	ai_buf_release(&want);
	return rc;
}

static int
check_object(struct check *c, const cJSON *s, const cJSON *v)
{
	const cJSON *props = ai_json_get(s, "properties"), *req = ai_json_get(s, "required");
	const cJSON *addl = ai_json_get(s, "additionalProperties");
	const cJSON *pprops = ai_json_get(s, "patternProperties"), *m, *r;
	uint64_t lim;
	int n = cJSON_GetArraySize(v);

	cJSON_ArrayForEach(r, req) {
		if (cJSON_IsString(r) && cJSON_GetObjectItemCaseSensitive(v, r->valuestring) == NULL) {
			size_t was = path_key(c, r->valuestring);
			int rc = fail(c, "is required and missing");

			path_back(c, was);
			return rc;
		}
	}
	for (m = v->child; m != NULL; m = m->next) {
		const cJSON *sub = ai_json_get(props, m->string), *pp;
		int matched = sub != NULL;
		size_t was = path_key(c, m->string);

		if (sub != NULL && check(c, sub, m) < 0)
			return -1;
		for (pp = pprops != NULL ? pprops->child : NULL; pp != NULL; pp = pp->next) {
			if (pattern_match(pp->string, m->string) != 1)
				continue;
			matched = 1;
			if (check(c, pp, m) < 0)
				return -1;
		}
		if (!matched && cJSON_IsFalse(addl))
			return fail(c, "is not allowed (additionalProperties is false)");
		if (!matched && cJSON_IsObject(addl) && check(c, addl, m) < 0)
			return -1;
		path_back(c, was);
	}
	if (ai_json_u64(s, "minProperties", &lim) == 1 && (uint64_t)n < lim)
		return fail(c, "has fewer than minProperties");
	if (ai_json_u64(s, "maxProperties", &lim) == 1 && (uint64_t)n > lim)
		return fail(c, "has more than maxProperties");
	return 0;
}

static int
check_array(struct check *c, const cJSON *s, const cJSON *v)
{
	const cJSON *items = ai_json_get(s, "items"), *prefix = ai_json_get(s, "prefixItems"), *m;
	int n = cJSON_GetArraySize(v), i = 0, np = cJSON_GetArraySize(prefix);
	uint64_t lim;
	char nb[32];

	for (m = v->child; m != NULL; m = m->next, i++) {
		const cJSON *sub = i < np ? cJSON_GetArrayItem(prefix, i) : items;
		size_t was = path_index(c, i);

		if (cJSON_IsFalse(sub))
			return fail(c, "is not allowed (no more items)");
		if (cJSON_IsObject(sub) && check(c, sub, m) < 0)
			return -1;
		path_back(c, was);
	}
	snprintf(nb, sizeof(nb), "%d", n);
	if (ai_json_u64(s, "minItems", &lim) == 1 && (uint64_t)n < lim)
		return fail(c, "has %s items, fewer than minItems", nb);
	if (ai_json_u64(s, "maxItems", &lim) == 1 && (uint64_t)n > lim)
		return fail(c, "has %s items, more than maxItems", nb);
	if (ai_json_bool(s, "uniqueItems", 0) == 1) {
		const cJSON *a, *b;

		for (a = v->child, i = 0; a != NULL; a = a->next, i++)
			for (b = a->next; b != NULL; b = b->next)
				if (cJSON_Compare(a, b, 1)) {
					size_t was = path_index(c, i);
					int rc = fail(c, "appears twice (uniqueItems)");

					path_back(c, was);
					return rc;
				}
	}
	return 0;
}

static int
check_string(struct check *c, const cJSON *s, const cJSON *v)
{
	size_t chars = ai_utf8_count(v->valuestring, strlen(v->valuestring));
	const char *pat = ai_json_str(s, "pattern"), *f = ai_json_str(s, "format");
	uint64_t lim;

	if (ai_json_u64(s, "minLength", &lim) == 1 && chars < lim)
		return fail(c, "is shorter than minLength");
	if (ai_json_u64(s, "maxLength", &lim) == 1 && chars > lim)
		return fail(c, "is longer than maxLength");
	if (pat != NULL && pattern_match(pat, v->valuestring) == 0)
		return fail(c, "does not match the pattern '%s'", pat);
	if (f != NULL && !format_ok(f, v->valuestring))
		return fail(c, "is not a valid %s", f);
	return 0;
}

static int
check_number(struct check *c, const cJSON *s, const cJSON *v)
{
	static const char *const keys[] = { "minimum", "maximum", "exclusiveMinimum",
		"exclusiveMaximum", "multipleOf" };
	double x = v->valuedouble;
	size_t i;

	for (i = 0; i < AI_ARRAY_SIZE(keys); i++) {
		const cJSON *k = ai_json_get(s, keys[i]);
		double lim, q;
		int bad;

		if (!cJSON_IsNumber(k))
			continue;
		lim = k->valuedouble;
		switch (i) {
		case 0: bad = x < lim; break;
		case 1: bad = x > lim; break;
		case 2: bad = x <= lim; break;
		case 3: bad = x >= lim; break;
		default:
			q = lim > 0 ? x / lim : 0;
			bad = lim > 0 && off_whole(q) > 1e-9 * (q > 1 ? q : q < -1 ? -q : 1);
			break;
		}
		if (bad) {
			char *ls = ai_json_print(k);
			int rc = fail(c, "is out of range (%s %s)", keys[i], ls);

			free(ls);
			return rc;
		}
	}
	return 0;
}

static int
check(struct check *c, const cJSON *s, const cJSON *v)
{
	const cJSON *t, *sub, *ref;
	int rc = 0, hits;

	if (cJSON_IsTrue(s))
		return 0;
	if (cJSON_IsFalse(s))
		return fail(c, "is not allowed (the schema is false)");
	if (!cJSON_IsObject(s))
		return 0;
	if (++c->depth > MAX_DEPTH) {
		c->depth--;
		return fail(c, "is nested deeper than the schema can be followed");
	}
	ref = ai_json_get(s, "$ref");
	if (cJSON_IsString(ref)) {
		const cJSON *target = resolve(c->root, ref->valuestring);

		rc = target != NULL ? check(c, target, v) :
		    fail(c, "cannot be checked: the schema's $ref '%s' leads nowhere", ref->valuestring);
		if (rc < 0)
			goto out;
	}
	if ((t = ai_json_get(s, "type")) != NULL && (rc = check_type(c, t, v)) < 0)
		goto out;
	if ((t = ai_json_get(s, "enum")) != NULL && cJSON_IsArray(t)) {
		for (sub = t->child; sub != NULL; sub = sub->next)
			if (cJSON_Compare(sub, v, 1))
				break;
		if (sub == NULL && (rc = fail(c, "is not one of the values of enum")) < 0)
			goto out;
	}
	if ((t = ai_json_get(s, "const")) != NULL && !cJSON_Compare(t, v, 1) &&
	    (rc = fail(c, "is not the const value")) < 0)
		goto out;
	if (cJSON_IsObject(v) && (rc = check_object(c, s, v)) < 0)
		goto out;
	if (cJSON_IsArray(v) && (rc = check_array(c, s, v)) < 0)
		goto out;
	if (cJSON_IsString(v) && (rc = check_string(c, s, v)) < 0)
		goto out;
	if (cJSON_IsNumber(v) && (rc = check_number(c, s, v)) < 0)
		goto out;
	cJSON_ArrayForEach(sub, ai_json_get(s, "allOf"))
		if ((rc = check(c, sub, v)) < 0)
			goto out;
	if ((t = ai_json_get(s, "anyOf")) != NULL && cJSON_IsArray(t)) {
		for (sub = t->child; sub != NULL; sub = sub->next)
			if (follows(c, sub, v))
				break;
		if (sub == NULL && (rc = fail(c, "matches none of anyOf")) < 0)
			goto out;
	}
	if ((t = ai_json_get(s, "oneOf")) != NULL && cJSON_IsArray(t)) {
		hits = 0;
		cJSON_ArrayForEach(sub, t)
			hits += follows(c, sub, v);
		if (hits != 1 && (rc = fail(c, "matches %s of oneOf, not exactly one",
		    hits == 0 ? "none" : "more than one")) < 0)
			goto out;
	}
	if ((t = ai_json_get(s, "not")) != NULL && follows(c, t, v))
		rc = fail(c, "matches what not excludes");
out:
	c->depth--;
	return rc;
}

int
schema_check(const cJSON *schema, const cJSON *v, struct ai_err *e)
{
	struct check c;
	int rc;

	c.root = schema;
	ai_buf_init(&c.path, AI_BUF_NOLIMIT);
	ai_buf_adds(&c.path, "$");
	c.depth = 0;
	c.e = e;
	rc = check(&c, schema, v);
	if (rc < 0)
		ai_err_prefix(e, "the answer does not follow the schema");
	ai_buf_release(&c.path);
	return rc;
}

/* ---- the schema itself ---- */

/* The keywords checked, and what each must be. */
static int
bad_keyword(const cJSON *s, const char **which, const char **want)
{
	static const struct {
		const char *key;
		int kind; /* 0 schema-or-bool, 1 object of schemas, 2 array of schemas, 3 array of
			     strings, 4 non-negative integer, 5 number, 6 string, 7 boolean, 8 array,
			     9 a number above 0 */
	} kw[] = {
		{ "properties", 1 }, { "patternProperties", 1 }, { "$defs", 1 }, { "definitions", 1 },
		{ "additionalProperties", 0 }, { "items", 0 }, { "not", 0 },
		{ "prefixItems", 2 }, { "anyOf", 2 }, { "oneOf", 2 }, { "allOf", 2 },
		{ "required", 3 }, { "enum", 8 },
		{ "minItems", 4 }, { "maxItems", 4 }, { "minLength", 4 }, { "maxLength", 4 },
		{ "minProperties", 4 }, { "maxProperties", 4 },
		{ "minimum", 5 }, { "maximum", 5 }, { "exclusiveMinimum", 5 },
		{ "exclusiveMaximum", 5 }, { "multipleOf", 9 },
		{ "pattern", 6 }, { "format", 6 }, { "$ref", 6 }, { "uniqueItems", 7 },
	};
	static const char *const wants[] = { "a schema", "an object of schemas",
		"an array of schemas", "an array of strings", "a whole number >= 0", "a number",
		"a string", "true or false", "an array", "a number above 0" };
	size_t i;

	for (i = 0; i < AI_ARRAY_SIZE(kw); i++) {
		const cJSON *v = ai_json_get(s, kw[i].key), *m;
		uint64_t u;
		int ok = 1;

		if (v == NULL)
			continue;
		switch (kw[i].kind) {
		case 0: ok = cJSON_IsObject(v) || cJSON_IsBool(v); break;
		case 1:
			ok = cJSON_IsObject(v);
			cJSON_ArrayForEach(m, v)
				ok = ok && (cJSON_IsObject(m) || cJSON_IsBool(m));
			break;
		case 2:
			ok = cJSON_IsArray(v);
			cJSON_ArrayForEach(m, v)
				ok = ok && (cJSON_IsObject(m) || cJSON_IsBool(m));
			break;
		case 3:
			ok = cJSON_IsArray(v);
			cJSON_ArrayForEach(m, v)
				ok = ok && cJSON_IsString(m);
			break;
		case 4: ok = ai_json_u64(s, kw[i].key, &u) == 1; break;
		case 5: ok = cJSON_IsNumber(v); break;
		case 6: ok = cJSON_IsString(v); break;
		case 7: ok = cJSON_IsBool(v); break;
		case 8: ok = cJSON_IsArray(v); break;
		default: ok = cJSON_IsNumber(v) && v->valuedouble > 0; break;
		}
		if (!ok) {
			*which = kw[i].key;
			*want = wants[kw[i].kind];
			return 1;
		}
	}
	return 0;
}

/* A type name, or a non-empty array of them. */
static int
known_types(const cJSON *t)
{
	const cJSON *m;

	if (cJSON_IsArray(t) && t->child == NULL)
		return 0;
	for (m = cJSON_IsString(t) ? t : cJSON_IsArray(t) ? t->child : NULL; m != NULL;
	    m = cJSON_IsString(t) ? NULL : m->next)
		if (!cJSON_IsString(m) || known_type(m->valuestring) < 0)
			return 0;
	return cJSON_IsString(t) || cJSON_IsArray(t);
}

/* Walk the schema: every checked keyword of the right kind, every type known, every pattern readable. */
static int
lint(struct check *c, const cJSON *s)
{
	const char *which, *want, *pat;
	const cJSON *t, *m;
	static const char *const subs[] = { "properties", "patternProperties", "$defs",
		"definitions", "prefixItems", "anyOf", "oneOf", "allOf" };
	static const char *const one[] = { "additionalProperties", "items", "not" };
	size_t i;

	if (!cJSON_IsObject(s))
		return 0;
	if (++c->depth > MAX_DEPTH)
		return fail(c, "is nested too deep");
	if (bad_keyword(s, &which, &want))
		return fail(c, "\"%s\" must be %s", which, want);
	if ((t = ai_json_get(s, "type")) != NULL && !known_types(t))
		return fail(c, "\"type\" must name types among object, array, string, number, "
		    "integer, boolean and null");
	if ((pat = ai_json_str(s, "pattern")) != NULL && pattern_match(pat, "") < 0)
		return fail(c, "\"pattern\" '%s' is not a regular expression ai-ask can read", pat);
	for (m = ai_json_get(s, "patternProperties") ? ai_json_get(s, "patternProperties")->child :
	    NULL; m != NULL; m = m->next)
		if (pattern_match(m->string, "") < 0)
			return fail(c, "\"patternProperties\" '%s' is not a regular expression ai-ask "
			    "can read", m->string);
	if ((t = ai_json_get(s, "$ref")) != NULL && resolve(c->root, t->valuestring) == NULL)
		return fail(c, "\"$ref\" '%s' leads nowhere in the schema", t->valuestring);
	for (i = 0; i < AI_ARRAY_SIZE(subs); i++) {
		const cJSON *list = ai_json_get(s, subs[i]);
		int k = 0;

		cJSON_ArrayForEach(m, list) {
			size_t was = path_key(c, subs[i]);

			if (cJSON_IsArray(list))
				path_index(c, k++);
			else
				path_key(c, m->string);
			if (lint(c, m) < 0)
				return -1;
			path_back(c, was);
		}
	}
	for (i = 0; i < AI_ARRAY_SIZE(one); i++) {
		size_t was = path_key(c, one[i]);

		if (lint(c, ai_json_get(s, one[i])) < 0)
			return -1;
		path_back(c, was);
	}
	c->depth--;
	return 0;
}

int
schema_lint(const cJSON *schema, struct ai_err *e)
{
	struct check c;
	int rc;

	c.root = schema;
	ai_buf_init(&c.path, AI_BUF_NOLIMIT);
	ai_buf_adds(&c.path, "$");
	c.depth = 0;
	c.e = e;
	rc = lint(&c, schema);
	ai_buf_release(&c.path);
	return rc;
}

/* ---- recovering the JSON ---- */

/* The length of a fence (3 or more ` or ~) at s, after up to 3 spaces; 0 when none. */
static size_t
fence_at(const char *s, size_t n, char *ch, size_t *indent)
{
	size_t i = 0, k;

	while (i < 3 && i < n && s[i] == ' ')
		i++;
	if (i >= n || (s[i] != '`' && s[i] != '~'))
		return 0;
	*ch = s[i];
	for (k = i; k < n && s[k] == *ch; k++)
		;
	*indent = i;
	return k - i >= 3 ? k - i : 0;
}

int
schema_fenced(const char *s, size_t n, size_t *off, size_t *len)
{
	const char *p = s, *end = s + n, *body = NULL;
	size_t open = 0, found = 0;
	char ch = 0;

	while (p < end) {
		const char *lf = memchr(p, '\n', (size_t)(end - p));
		size_t l = lf ? (size_t)(lf - p) : (size_t)(end - p), indent = 0, f;
		char c = 0;

		f = fence_at(p, l, &c, &indent);
		if (open == 0 && f > 0) {
			/* an opening fence: its info string (json, or nothing) may follow */
			open = f;
			ch = c;
			body = lf ? lf + 1 : end;
		} else if (open > 0 && f >= open && c == ch &&
		    ai_line_is_blank(p + indent + f, l - indent - f)) {
			if (++found > 1)
				return 0;
			*off = (size_t)(body - s);
			*len = (size_t)(p - body);
			open = 0;
		}
		p = lf ? lf + 1 : end;
	}
	return found == 1 && open == 0;
}
