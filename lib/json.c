/* json.c: the strict JSON checker and cJSON helpers. */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "buf.h"
#include "redact.h"
#include "text.h"
#include "util.h"
#include "banned.h"

static void *
json_malloc(size_t n)
{
	return ai_xmalloc(n);
}

void
ai_json_init(void)
{
	cJSON_Hooks hooks = { json_malloc, free };

	cJSON_InitHooks(&hooks);
}

struct checker {
	const char *s;
	size_t n, i;
	const char *why;
};

static void
skip_ws(struct checker *c)
{
	while (c->i < c->n) {
		char ch = c->s[c->i];

		if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r')
			break;
		c->i++;
	}
}

static int
fail(struct checker *c, const char *why)
{
	c->why = why;
	return -1;
}

static int
hex4(struct checker *c, unsigned *v)
{
	size_t k;

	*v = 0;
	if (c->n - c->i < 4)
		return fail(c, "bad \\u escape");
	for (k = 0; k < 4; k++) {
		char h = c->s[c->i + k];
		unsigned d;

		if (h >= '0' && h <= '9')
			d = (unsigned)(h - '0');
		else if (h >= 'a' && h <= 'f')
			d = (unsigned)(h - 'a' + 10);
		else if (h >= 'A' && h <= 'F')
			d = (unsigned)(h - 'A' + 10);
		else
			return fail(c, "bad \\u escape");
		*v = *v * 16 + d;
	}
	c->i += 4;
	return 0;
}

static int
check_string(struct checker *c)
{
	c->i++; /* opening quote */
	while (c->i < c->n) {
		unsigned char ch = (unsigned char)c->s[c->i];

		if (ch == '"') {
			c->i++;
			return 0;
		}
		if (ch < 0x20)
			return fail(c, "control character in string");
		if (ch == '\\') {
			char esc;

			if (++c->i >= c->n)
				break;
			esc = c->s[c->i++];
			if (esc == 'u') {
				unsigned v, lo;

				if (hex4(c, &v) < 0)
					return -1;
				if (v == 0)
					return fail(c, "\\u0000 in a string is not supported");
				if (v >= 0xdc00 && v <= 0xdfff)
					return fail(c, "lone surrogate in \\u escape");
				if (v >= 0xd800 && v <= 0xdbff) {
					if (c->n - c->i < 6 || c->s[c->i] != '\\' || c->s[c->i + 1] != 'u')
						return fail(c, "lone surrogate in \\u escape");
					c->i += 2;
					if (hex4(c, &lo) < 0)
						return -1;
					if (lo < 0xdc00 || lo > 0xdfff)
						return fail(c, "lone surrogate in \\u escape");
				}
			} else if (!strchr("\"\\/bfnrt", esc) || esc == '\0') {
				c->i--;
				return fail(c, "bad escape in string");
			}
			continue;
		}
		if (ch >= 0x80) {
			uint32_t cp;
			int l = ai_utf8_decode(c->s + c->i, c->n - c->i, &cp);

			if (l <= 0)
				return fail(c, "invalid UTF-8 in string");
			c->i += (size_t)l;
			continue;
		}
		c->i++;
	}
	return fail(c, "unterminated string");
}

static int
digits(struct checker *c)
{
	size_t start = c->i;

	while (c->i < c->n && c->s[c->i] >= '0' && c->s[c->i] <= '9')
		c->i++;
	return c->i > start ? 0 : -1;
}

static int
check_number(struct checker *c)
{
	if (c->s[c->i] == '-')
		c->i++;
	if (c->i < c->n && c->s[c->i] == '0') {
		c->i++;
		if (c->i < c->n && c->s[c->i] >= '0' && c->s[c->i] <= '9')
			return fail(c, "leading zero in number");
	} else if (digits(c) < 0) {
		return fail(c, "bad number");
	}
	if (c->i < c->n && c->s[c->i] == '.') {
		c->i++;
		if (digits(c) < 0)
			return fail(c, "bad number");
	}
	if (c->i < c->n && (c->s[c->i] == 'e' || c->s[c->i] == 'E')) {
		c->i++;
		if (c->i < c->n && (c->s[c->i] == '+' || c->s[c->i] == '-'))
			c->i++;
		if (digits(c) < 0)
			return fail(c, "bad number");
	}
	return 0;
}

static int
check_word(struct checker *c, const char *w)
{
	size_t l = strlen(w);

	if (c->n - c->i < l || memcmp(c->s + c->i, w, l) != 0)
		return fail(c, "unexpected character");
	c->i += l;
	return 0;
}

static int check_value(struct checker *c, int depth);

static int
check_container(struct checker *c, int depth, char close)
{
	if (depth > AI_JSON_DEPTH)
		return fail(c, "nested too deeply");
	c->i++;
	skip_ws(c);
	if (c->i < c->n && c->s[c->i] == close) {
		c->i++;
		return 0;
	}
	for (;;) {
		skip_ws(c);
		if (c->i >= c->n)
			return fail(c, "unexpected end of input");
		if (close == '}') {
			if (c->s[c->i] != '"')
				return fail(c, "expected a string key");
			if (check_string(c) < 0)
				return -1;
			skip_ws(c);
			if (c->i >= c->n || c->s[c->i] != ':')
				return fail(c, "expected ':'");
			c->i++;
		}
		if (check_value(c, depth + 1) < 0)
			return -1;
		skip_ws(c);
		if (c->i >= c->n)
			return fail(c, "unexpected end of input");
		if (c->s[c->i] == close) {
			c->i++;
			return 0;
		}
		if (c->s[c->i] != ',')
			return fail(c, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
		c->i++;
		skip_ws(c);
		if (c->i < c->n && c->s[c->i] == close)
			return fail(c, "trailing comma");
	}
}

static int
check_value(struct checker *c, int depth)
{
	skip_ws(c);
	if (c->i >= c->n)
		return fail(c, "unexpected end of input");
	switch (c->s[c->i]) {
	case '{':
		return check_container(c, depth, '}');
	case '[':
		return check_container(c, depth, ']');
	case '"':
		return check_string(c);
	case 't':
		return check_word(c, "true");
	case 'f':
		return check_word(c, "false");
	case 'n':
		return check_word(c, "null");
	default:
		if (c->s[c->i] == '-' || (c->s[c->i] >= '0' && c->s[c->i] <= '9'))
			return check_number(c);
		return fail(c, "unexpected character");
	}
}

int
ai_json_check(const char *s, size_t n, size_t *off, const char **why)
{
	struct checker c = { s, n, 0, NULL };

	if (check_value(&c, 0) == 0) {
		skip_ws(&c);
		if (c.i == c.n)
			return 0;
		c.why = "trailing data after the JSON value";
	}
	*off = c.i;
	*why = c.why;
	return -1;
}

static int
cmp_names(const void *a, const void *b)
{
	const cJSON *const *x = a, *const *y = b;

	return strcmp((*x)->string, (*y)->string);
}

/* The first key that appears twice in some object of v, or NULL. */
static const char *
duplicate_key(const cJSON *v)
{
	const cJSON *k;
	const char *d;
	size_t n = 0, i;

	if (!cJSON_IsObject(v) && !cJSON_IsArray(v))
		return NULL;
	for (k = v->child; k != NULL; k = k->next) {
		if ((d = duplicate_key(k)) != NULL)
			return d;
		n++;
	}
	if (!cJSON_IsObject(v) || n < 2)
		return NULL;
	if (n <= 16) {
		for (k = v->child; k != NULL; k = k->next) {
			const cJSON *l;

			for (l = k->next; l != NULL; l = l->next)
				if (strcmp(k->string, l->string) == 0)
					return k->string;
		}
		return NULL;
	} else {
		const cJSON **arr = ai_xmalloc(n * sizeof(*arr));

		d = NULL;
		for (i = 0, k = v->child; k != NULL; k = k->next)
			arr[i++] = k;
		qsort(arr, n, sizeof(*arr), cmp_names);
		for (i = 1; i < n && d == NULL; i++)
			if (strcmp(arr[i - 1]->string, arr[i]->string) == 0)
				d = arr[i]->string;
		free(arr);
		return d;
	}
}

static void
position(const char *s, size_t off, size_t *line, size_t *col)
{
	size_t i, last = 0;

	*line = 1;
	for (i = 0; i < off; i++)
		if (s[i] == '\n') {
			(*line)++;
			last = i + 1;
		}
	*col = off - last + 1;
}

cJSON *
ai_json_parse(const char *s, size_t n, struct ai_err *e)
{
	const char *why, *end = NULL, *dup;
	size_t off, line, col;
	cJSON *v;

	if (ai_json_check(s, n, &off, &why) < 0) {
		position(s, off, &line, &col);
		if (memchr(s, '\n', n) != NULL && line > 1)
			ai_err_set(e, AI_EXIT_DATAERR, "line %zu, column %zu: %s", line, col, why);
		else
			ai_err_set(e, AI_EXIT_DATAERR, "column %zu: %s", col, why);
		return NULL;
	}
	v = cJSON_ParseWithLengthOpts(s, n, &end, 0);
	if (v == NULL) {
		ai_err_set(e, AI_EXIT_DATAERR, "cannot parse JSON");
		return NULL;
	}
	if ((dup = duplicate_key(v)) != NULL) {
		char ex[64];

		ai_err_set(e, AI_EXIT_DATAERR, "duplicate key '%s'",
		    ai_excerpt(dup, strlen(dup), ex, sizeof(ex)));
		cJSON_Delete(v);
		return NULL;
	}
	return v;
}

const cJSON *
ai_json_get(const cJSON *obj, const char *key)
{
	if (!cJSON_IsObject(obj))
		return NULL;
	return cJSON_GetObjectItemCaseSensitive(obj, key);
}

const char *
ai_json_str(const cJSON *obj, const char *key)
{
	const cJSON *v = ai_json_get(obj, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

int
ai_json_u64(const cJSON *obj, const char *key, uint64_t *out)
{
	const cJSON *v = ai_json_get(obj, key);
	double d;

	if (v == NULL || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsNumber(v))
		return -1;
	d = v->valuedouble;
	if (!(d >= 0) || d > 9007199254740992.0 || d != (double)(uint64_t)d)
		return -1;
	*out = (uint64_t)d;
	return 1;
}

int
ai_json_bool(const cJSON *obj, const char *key, int def)
{
	const cJSON *v = ai_json_get(obj, key);

	if (v == NULL || cJSON_IsNull(v))
		return def;
	if (!cJSON_IsBool(v))
		return -1;
	return cJSON_IsTrue(v) ? 1 : 0;
}

char *
ai_json_print(const cJSON *v)
{
	char *s = cJSON_PrintUnformatted(v);

	if (s == NULL)
		ai_oom();
	return s;
}

cJSON *
ai_json_addstr(cJSON *obj, const char *key, const char *val)
{
	return cJSON_AddStringToObject(obj, key, val ? val : "");
}

cJSON *
ai_json_addstrn(cJSON *obj, const char *key, const char *val, size_t n)
{
	char *copy = ai_xmemdup(val, n);
	cJSON *r = cJSON_AddStringToObject(obj, key, copy);

	free(copy);
	return r;
}

cJSON *
ai_json_addnum(cJSON *obj, const char *key, double val)
{
	return cJSON_AddNumberToObject(obj, key, val);
}

cJSON *
ai_json_addbool(cJSON *obj, const char *key, int val)
{
	return cJSON_AddBoolToObject(obj, key, val ? 1 : 0);
}

cJSON *
ai_json_addnull(cJSON *obj, const char *key)
{
	return cJSON_AddNullToObject(obj, key);
}

/* s redacted into a new cJSON allocation, or NULL when nothing changes. */
static char *
redacted_copy(const char *s)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	size_t n = strlen(s);
	char *copy = NULL;

	ai_redact_output(&b, s, n);
	if (b.len != n || memcmp(b.buf, s, n) != 0) {
		copy = cJSON_malloc(b.len + 1);
		if (copy == NULL)
			ai_oom();
		memcpy(copy, b.buf, b.len + 1);
	}
	ai_buf_release(&b);
	return copy;
}

int
ai_json_redact(cJSON *v)
{
	int changed = 0;
	cJSON *c;
	char *r;

	if (v == NULL)
		return 0;
	if (v->string != NULL && !(v->type & cJSON_StringIsConst) &&
	    (r = redacted_copy(v->string)) != NULL) {
		cJSON_free(v->string);
		v->string = r;
		changed = 1;
	}
	if (cJSON_IsString(v) && v->valuestring != NULL &&
	    (r = redacted_copy(v->valuestring)) != NULL) {
		cJSON_free(v->valuestring);
		v->valuestring = r;
		changed = 1;
	}
	for (c = v->child; c != NULL; c = c->next)
		changed |= ai_json_redact(c);
	return changed;
}
