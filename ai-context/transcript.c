/* transcript.c: reading a transcript, pairing tool calls, the recent window. */
#include <stdlib.h>
#include <string.h>

#include "transcript.h"
#include "json.h"
#include "record.h"
#include "text.h"
#include "util.h"
#include "banned.h"

/* Tool-call ids to the index of the latest call with that id (open addressing). */
struct idmap {
	char **key;
	int32_t *val;
	size_t cap, used;
};

static uint64_t
hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static void idmap_put(struct idmap *m, const char *k, int32_t v);

static void
idmap_grow(struct idmap *m)
{
	struct idmap old = *m;
	size_t i;

	m->cap = old.cap ? old.cap * 2 : 64;
	m->key = ai_xcalloc(m->cap, sizeof(*m->key));
	m->val = ai_xcalloc(m->cap, sizeof(*m->val));
	m->used = 0;
	for (i = 0; i < old.cap; i++)
		if (old.key[i] != NULL) {
			idmap_put(m, old.key[i], old.val[i]);
			free(old.key[i]);
		}
	free(old.key);
	free(old.val);
}

static size_t
idmap_slot(const struct idmap *m, const char *k)
{
	size_t i = (size_t)hash_str(k) & (m->cap - 1);

	while (m->key[i] != NULL && strcmp(m->key[i], k) != 0)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void
idmap_put(struct idmap *m, const char *k, int32_t v)
{
	size_t i;

	if ((m->used + 1) * 2 > m->cap)
		idmap_grow(m);
	i = idmap_slot(m, k);
	if (m->key[i] == NULL) {
		m->key[i] = ai_xstrdup(k);
		m->used++;
	}
	m->val[i] = v;
}

static int32_t
idmap_get(const struct idmap *m, const char *k)
{
	size_t i;

	if (m->cap == 0)
		return -1;
	i = idmap_slot(m, k);
	return m->key[i] ? m->val[i] : -1;
}

static void
idmap_free(struct idmap *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		free(m->key[i]);
	free(m->key);
	free(m->val);
}

int
ac_visible(int kind)
{
	return kind != AC_USAGE && kind != AC_META;
}

static int
kind_of(const cJSON *rec)
{
	const char *type = ai_record_type(rec), *role;

	if (strcmp(type, "message") == 0) {
		role = ai_json_str(rec, "role");
		if (role != NULL && strcmp(role, "system") == 0)
			return AC_SYSTEM;
		if (role != NULL && strcmp(role, "user") == 0)
			return AC_USER;
		return AC_ASSISTANT;
	}
	if (strcmp(type, "tool_call") == 0)
		return AC_TOOL_CALL;
	if (strcmp(type, "tool_result") == 0)
		return AC_TOOL_RESULT;
	if (strcmp(type, "search_result") == 0)
		return AC_SEARCH;
	if (strcmp(type, "summary") == 0)
		return AC_SUMMARY;
	if (strcmp(type, "usage") == 0)
		return AC_USAGE;
	if (strcmp(type, "error") == 0 || strcmp(type, "result") == 0 ||
	    strcmp(type, "delta") == 0 || strcmp(type, "query") == 0)
		return AC_META;
	return AC_UNKNOWN;
}

/* Fill in one record from its parsed form; pair tool calls and results by id. */
static void
describe(struct ac_transcript *t, size_t i, const cJSON *rec, struct idmap *calls)
{
	struct ac_rec *r = &t->r[i];
	const char *id;
	uint64_t v;

	r->kind = (uint8_t)kind_of(rec);
	r->next = -1;
	r->group = -1;
	switch (r->kind) {
	case AC_TOOL_CALL:
		r->group = (int32_t)i;
		if ((id = ai_json_str(rec, "id")) != NULL)
			idmap_put(calls, id, (int32_t)i);
		break;
	case AC_TOOL_RESULT:
		if ((id = ai_json_str(rec, "id")) != NULL) {
			int32_t c = idmap_get(calls, id);

			if (c >= 0) {
				r->group = c;
				r->next = t->r[c].next;
				t->r[c].next = (int32_t)i;
			}
		}
		break;
	case AC_USAGE:
		if (ai_json_u64(rec, "input_tokens", &v) == 1 && v > 0) {
			uint64_t calls_n = 1;
			int rc = ai_json_u64(rec, "calls", &calls_n);

			r->input_tokens = v;
			/*
			 * ai-loop's totals (several calls) do not measure one
			 * request, and estimated counts measure nothing
			 */
			r->usage_ok = (rc == 0 || (rc == 1 && calls_n == 1)) &&
			    ai_json_bool(rec, "estimated", 0) == 0;
		}
		break;
	default:
		break;
	}
}

int
ac_transcript_read(struct ac_transcript *t, const char *data, size_t size, struct ai_err *e)
{
	struct idmap calls = { NULL, NULL, 0, 0 };
	size_t pos = 0, cap = 0;
	unsigned long lineno = 0;

	memset(t, 0, sizeof(*t));
	t->data = data;
	t->size = size;
	while (pos < size) {
		const char *line = data + pos, *lf = memchr(line, '\n', size - pos);
		size_t len = lf ? (size_t)(lf - line) : size - pos;
		struct ac_rec *r;
		cJSON *rec;

		lineno++;
		pos += len + (lf != NULL);
		if (len > 0 && line[len - 1] == '\r')
			len--;
		if (ai_line_is_blank(line, len))
			continue;
		if (len > AI_MAX_LINE) {
			ai_err_set(e, AI_EXIT_DATAERR, "line %lu is longer than the limit of %zu bytes",
			    lineno, AI_MAX_LINE);
			goto fail;
		}
		if ((rec = ai_record_parse(line, len, lineno, e)) == NULL)
			goto fail;
		if (t->n == cap) {
			cap = cap ? cap * 2 : 1024;
			t->r = ai_xrealloc(t->r, cap * sizeof(*t->r));
		}
		r = &t->r[t->n];
		memset(r, 0, sizeof(*r));
		r->off = (size_t)(line - data);
		r->len = (uint32_t)len;
		r->lineno = (uint32_t)lineno;
		r->chars = (uint32_t)ai_utf8_count(line, len);
		describe(t, t->n, rec, &calls);
		cJSON_Delete(rec);
		t->n++;
	}
	idmap_free(&calls);
	t->window = t->n;
	return 0;
fail:
	idmap_free(&calls);
	ac_transcript_free(t);
	return -1;
}

void
ac_transcript_free(struct ac_transcript *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->r[i].repl);
	free(t->r);
	t->r = NULL;
	t->n = 0;
}

void
ac_window(struct ac_transcript *t, uint64_t keep)
{
	/* the last keep turn starts, kept in a ring (never more than records) */
	size_t ring = keep < t->n + 1 ? (size_t)keep : t->n + 1, i, start = t->n, *starts;
	uint64_t nstarts = 0;
	int last = -1;

	starts = ring > 0 ? ai_xcalloc(ring, sizeof(*starts)) : NULL;
	for (i = 0; i < t->n && ring > 0; i++) {
		int k = t->r[i].kind;

		if (k != AC_USER && k != AC_ASSISTANT && k != AC_TOOL_CALL && k != AC_TOOL_RESULT)
			continue;
		if (k == AC_USER || last == -1 ||
		    ((k == AC_ASSISTANT || k == AC_TOOL_CALL) && last == AC_TOOL_RESULT))
			starts[nstarts++ % ring] = i;
		last = k;
	}
	if (nstarts > 0)
		/* the oldest start still in the ring begins the window */
		start = nstarts >= ring ? starts[nstarts % ring] : starts[0];
	free(starts);
	t->window = start;
	/* a call outside the window whose results reach into it stays, with them */
	for (i = 0; i < start; i++) {
		int32_t j;
		int inside = 0;

		if (t->r[i].kind != AC_TOOL_CALL || t->r[i].group != (int32_t)i)
			continue;
		for (j = t->r[i].next; j >= 0; j = t->r[j].next)
			if ((size_t)j >= start)
				inside = 1;
		if (!inside)
			continue;
		t->r[i].pinned = 1;
		for (j = t->r[i].next; j >= 0; j = t->r[j].next)
			if ((size_t)j < start)
				t->r[j].pinned = 1;
	}
}
