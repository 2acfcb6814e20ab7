/*
 * answer.c: the provider-neutral answer, and the reader that feeds a
 * provider's stream (SSE or NDJSON) or whole body into it.
 *
 * Adapters call answer_text for each piece of text and answer_call for each
 * tool call (pieces of arguments are keyed by the provider's index), set the
 * usage, and set done when the provider's own end of answer arrives.  A body
 * that ends without that end is a cut answer, whatever the transport said.
 */
#include <stdlib.h>
#include <string.h>

#include "ask.h"
#include "json.h"
#include "lines.h"
#include "record.h"
#include "sse.h"
#include "util.h"
#include "banned.h"

void
answer_init(struct answer *a)
{
	memset(a, 0, sizeof(*a));
	ai_buf_init(&a->text, AI_BUF_NOLIMIT);
}

void
answer_free(struct answer *a)
{
	size_t i;

	for (i = 0; i < a->nthoughts; i++) {
		ai_buf_release(&a->thoughts[i].text);
		free(a->thoughts[i].sig);
		free(a->thoughts[i].data);
	}
	free(a->thoughts);
	a->thoughts = NULL;
	a->nthoughts = 0;
	for (i = 0; i < a->ncalls; i++) {
		free(a->calls[i].id);
		free(a->calls[i].name);
		free(a->calls[i].sig);
		ai_buf_release(&a->calls[i].args);
		cJSON_Delete(a->calls[i].obj);
	}
	free(a->calls);
	ai_buf_release(&a->text);
	a->calls = NULL;
	a->ncalls = 0;
	answer_next(a);
}

void
answer_next(struct answer *a)
{
	size_t i;

	for (i = 0; a->partial != NULL && i < a->nblocks; i++)
		ai_buf_release(&a->partial[i]);
	free(a->partial);
	free(a->blocks);
	cJSON_Delete(a->raw);
	a->partial = NULL;
	a->blocks = NULL;
	a->raw = NULL;
	a->nblocks = 0;
	a->done = 0;
	a->stop = STOP_NONE;
	a->stop_word[0] = '\0';
	a->instream_error = 0;
}

int
answer_text(struct answer *a, const char *p, size_t n, struct ai_err *e)
{
	if (n == 0)
		return 0;
	ai_buf_add(&a->text, p, n);
	if (a->on_text == NULL)
		return 0;
	a->emitted += n;
	return a->on_text(a->ctx, p, n, e);
}

int
answer_refusal(struct answer *a, const char *p, size_t n, struct ai_err *e)
{
	if (n == 0)
		return 0;
	answer_refuse(a, NULL);
	return answer_text(a, p, n, e);
}

void
answer_refuse(struct answer *a, const char *why)
{
	a->refused = 1;
	if (why != NULL)
		snprintf(a->stop_word, sizeof(a->stop_word), "%s", why);
}

struct call *
answer_call(struct answer *a, long key)
{
	struct call *c;
	size_t i;

	for (i = 0; i < a->ncalls; i++)
		if (a->calls[i].key == key)
			return &a->calls[i];
	a->calls = ai_xrealloc(a->calls, (a->ncalls + 1) * sizeof(*a->calls));
	c = &a->calls[a->ncalls++];
	memset(c, 0, sizeof(*c));
	c->key = key;
	ai_buf_init(&c->args, AI_BUF_NOLIMIT);
	return c;
}

struct thought *
answer_thought(struct answer *a, long key)
{
	struct thought *t;
	size_t i;

	for (i = 0; i < a->nthoughts; i++)
		if (a->thoughts[i].key == key)
			return &a->thoughts[i];
	a->thoughts = ai_xrealloc(a->thoughts, (a->nthoughts + 1) * sizeof(*a->thoughts));
	t = &a->thoughts[a->nthoughts++];
	memset(t, 0, sizeof(*t));
	t->key = key;
	ai_buf_init(&t->text, AI_BUF_NOLIMIT);
	return t;
}

/* Reasoning text never joins the answer's text: it is kept apart, for a reasoning record. */
void
answer_reason(struct answer *a, long key, const char *p, size_t n)
{
	if (n > 0)
		ai_buf_add(&answer_thought(a, key)->text, p, n);
}

void
call_set(char **field, const char *value)
{
	if (value == NULL || *value == '\0')
		return;
	free(*field);
	*field = ai_xstrdup(value);
}

int
answer_finish(struct answer *a, struct ai_err *e)
{
	size_t i;

	/* refusal text makes a refusal of whatever end the provider reported */
	if (a->refused && a->stop != STOP_FILTER && a->stop != STOP_PAUSE) {
		a->stop = STOP_REFUSAL;
		if (a->stop_word[0] == '\0' || strcmp(a->stop_word, "completed") == 0 ||
		    strcmp(a->stop_word, "stop") == 0 || strcmp(a->stop_word, "end_turn") == 0)
			snprintf(a->stop_word, sizeof(a->stop_word), "refusal");
	}

	for (i = 0; i < a->ncalls; i++) {
		struct call *c = &a->calls[i];
		struct ai_err pe = AI_ERR_INIT;

		if (c->name == NULL)
			return ai_err_set(e, AI_EXIT_PROTOCOL,
			    "%s: the model called a tool without a name", a->service);
		if (c->obj == NULL) {
			if (ai_line_is_blank(c->args.buf, c->args.len))
				c->obj = cJSON_CreateObject();
			else
				c->obj = ai_json_parse(c->args.buf, c->args.len, &pe);
		}
		if (c->obj == NULL || !cJSON_IsObject(c->obj)) {
			if (a->stop == STOP_LENGTH)
				return ai_err_set(e, AI_EXIT_LIMIT,
				    "the call of tool '%.64s' was cut off at the maximum length of the answer",
				    c->name);
			/* the model's mistake, not the service's: the call goes on with its text */
			cJSON_Delete(c->obj);
			c->obj = cJSON_CreateObject();
			c->malformed = 1;
		}
	}
	return 0;
}

void
answer_usage(struct answer *a, const cJSON *u, const char *in, const char *out, const char *details)
{
	uint64_t v;

	if (!cJSON_IsObject(u))
		return;
	a->has_usage = 1;
	if (ai_json_u64(u, in, &v) == 1)
		a->input = v;
	if (ai_json_u64(u, out, &v) == 1)
		a->output = v;
	if (details != NULL && ai_json_u64(ai_json_get(u, details), "cached_tokens", &v) == 1)
		a->cached = v;
}

/* The suite's exit code for a provider's own error type. */
static int
code_for(const char *type)
{
	if (type == NULL)
		return AI_EXIT_UNAVAILABLE;
	if (strstr(type, "rate_limit") != NULL)
		return AI_EXIT_TEMPFAIL;
	if (strstr(type, "authentication") != NULL || strstr(type, "permission") != NULL ||
	    strstr(type, "api_key") != NULL)
		return AI_EXIT_CONFIG;
	if (strstr(type, "invalid_request") != NULL || strstr(type, "not_found") != NULL)
		return AI_EXIT_DATAERR;
	return AI_EXIT_UNAVAILABLE;
}

int
answer_fail(struct answer *a, int code, const char *what, const cJSON *err, struct ai_err *e)
{
	const char *type = NULL, *msg = NULL;
	int rc;

	if (cJSON_IsObject(err)) {
		type = ai_json_str(err, "type");
		if (type == NULL || strcmp(type, "error") == 0)
			type = ai_json_str(err, "code");
		msg = ai_json_str(err, "message");
	} else if (cJSON_IsString(err)) {
		msg = err->valuestring;
	}
	if (code == 0)
		code = code_for(type);
	a->instream_error = 1;
	rc = ai_err_set(e, code, "%s %s%s%s%s%s", a->service, what, type || msg ? ": " : "",
	    type ? type : "", type && msg ? ": " : "", msg ? msg : "");
	return rc;
}

cJSON *
role_items(cJSON *msgs, const char *role, const char *key)
{
	cJSON *last = cJSON_GetArrayItem(msgs, cJSON_GetArraySize(msgs) - 1), *m;
	const char *r = ai_json_str(last, "role");

	if (r != NULL && strcmp(r, role) == 0)
		return cJSON_GetObjectItemCaseSensitive(last, key);
	m = cJSON_CreateObject();
	ai_json_addstr(m, "role", role);
	cJSON_AddItemToArray(msgs, m);
	return cJSON_AddArrayToObject(m, key);
}

/*
 * The --tools declarations in the OpenAI shapes: flat for the Responses API
 * (strict off: its default is on, which refuses most hand-written schemas),
 * nested under "function" for Chat Completions and Ollama.
 */
cJSON *
tools_openai_style(const cJSON *tools, int nested)
{
	cJSON *out = cJSON_CreateArray();
	const cJSON *t;

	cJSON_ArrayForEach(t, tools) {
		cJSON *o = cJSON_CreateObject(), *f = nested ? cJSON_CreateObject() : o;
		const char *desc = ai_json_str(t, "description");
		const cJSON *params = ai_json_get(t, "parameters");

		ai_json_addstr(o, "type", "function");
		ai_json_addstr(f, "name", ai_json_str(t, "name"));
		if (desc != NULL)
			ai_json_addstr(f, "description", desc);
		if (params != NULL)
			cJSON_AddItemToObject(f, "parameters", cJSON_Duplicate(params, 1));
		else
			cJSON_AddItemToObject(f, "parameters",
			    cJSON_Parse("{\"type\":\"object\",\"properties\":{}}"));
		if (nested)
			cJSON_AddItemToObject(o, "function", f);
		else
			ai_json_addbool(o, "strict", 0);
		cJSON_AddItemToArray(out, o);
	}
	return out;
}

/* ---- the stream reader ---- */

enum { MODE_UNKNOWN, MODE_SSE, MODE_NDJSON, MODE_BODY };

struct stream {
	const struct provider *p;
	const struct ask *k;
	struct answer *a;
	const char *ctype;     /* the response's content type, filled in by lib/http */
	int mode;
	struct ai_sse sse;
	struct ai_lines lines;
	struct ai_buf body;
	unsigned long n;       /* events or lines handed on */
	unsigned long good;    /* lines that were JSON */
	int cut;               /* it ended before the answer did */
	struct ai_buf raw;     /* NDJSON: the bytes until a line was JSON */
	int to_body;           /* ... and the first line was not: it is one JSON body */
};

static int
bad_event(struct stream *s, struct ai_err *e)
{
	if (s->mode == MODE_BODY)
		ai_err_prefix(e, "cannot parse the answer from %s", s->a->service);
	else
		ai_err_prefix(e, "cannot parse the answer from %s: %s %lu", s->a->service,
		    s->mode == MODE_SSE ? "event" : "line", s->n);
	e->code = AI_EXIT_PROTOCOL;
	e->retryable = 0;
	return -1;
}

static int
on_event(void *ctx, const char *event, const char *data, size_t len, struct ai_err *e)
{
	struct stream *s = ctx;
	cJSON *v;
	int rc;

	s->n++;
	if (ai_line_is_blank(data, len))
		return 0;
	if (len == 6 && memcmp(data, "[DONE]", 6) == 0)
		return s->p->event(s->k, s->a, "[DONE]", NULL, e);
	v = ai_json_parse(data, len, e);
	if (v == NULL)
		return bad_event(s, e);
	rc = s->p->event(s->k, s->a, event, v, e);
	cJSON_Delete(v);
	return rc;
}

static int
on_line(void *ctx, const char *line, size_t len, struct ai_err *e)
{
	struct stream *s = ctx;
	cJSON *v;
	int rc;

	s->n++;
	if (ai_line_is_blank(line, len))
		return 0;
	v = ai_json_parse(line, len, e);
	if (v == NULL && s->good == 0) {
		/* not a stream of lines after all: one JSON body over several lines */
		s->to_body = 1;
		return 1;
	}
	if (v == NULL)
		return bad_event(s, e);
	if (s->good++ == 0)
		ai_buf_release(&s->raw);
	rc = s->p->event(s->k, s->a, NULL, v, e);
	cJSON_Delete(v);
	return rc;
}

struct stream *
stream_new(const struct provider *p, struct answer *a, const struct ask *k)
{
	struct stream *s = ai_xcalloc(1, sizeof(*s));

	s->p = p;
	s->k = k;
	s->a = a;
	ai_sse_init(&s->sse, ASK_MAX_EVENT, on_event, s);
	ai_lines_init(&s->lines, AI_LINES_LF, ASK_MAX_EVENT);
	ai_buf_init(&s->body, (size_t)32 << 20);
	ai_buf_init(&s->raw, (size_t)32 << 20);
	return s;
}

void
stream_watch_type(struct stream *s, const char *ctype)
{
	s->ctype = ctype;
}

void
stream_free(struct stream *s)
{
	if (s == NULL)
		return;
	ai_sse_release(&s->sse);
	ai_lines_release(&s->lines);
	ai_buf_release(&s->body);
	ai_buf_release(&s->raw);
	free(s);
}

/* Too much of an answer that was to be one JSON body. */
static int
too_big(struct stream *s, struct ai_err *e)
{
	return ai_err_set(e, AI_EXIT_PROTOCOL, "the answer from %s is larger than the limit of %zu bytes",
	    s->a->service, s->body.max);
}

/*
 * Lines of NDJSON, whatever the content type said; when the first line is
 * not JSON (a body spread over several lines), everything so far and after
 * is one JSON body instead.
 */
static int
ndjson_data(struct stream *s, const char *p, size_t n, struct ai_err *e)
{
	int rc;

	if (s->good == 0 && ai_buf_add(&s->raw, p, n) < 0)
		return too_big(s, e);
	rc = ai_lines_feed(&s->lines, p, n, on_line, s, e);
	if (rc > 0 && s->to_body) {
		s->mode = MODE_BODY;
		ai_buf_add(&s->body, s->raw.buf, s->raw.len);
		ai_buf_release(&s->raw);
		return 0;
	}
	return rc;
}

/*
 * A server asked to stream may answer with one JSON body anyway (some
 * OpenAI-compatible servers do), and one asked not to may stream: the
 * content type decides, and only without one does the request.  Ollama's
 * native API streams NDJSON whatever its content type says (ollama.com
 * sends application/json), and one JSON body on one line reads the same.
 */
int
stream_data(void *ctx, const char *p, size_t n, struct ai_err *e)
{
	struct stream *s = ctx;

	if (s->mode == MODE_UNKNOWN) {
		const char *t = s->ctype != NULL ? s->ctype : "";

		if (s->p->ndjson)
			s->mode = MODE_NDJSON;
		else if (strncmp(t, "text/event-stream", 17) == 0)
			s->mode = MODE_SSE;
		else if (strncmp(t, "application/x-ndjson", 20) == 0)
			s->mode = MODE_NDJSON;
		else if (strncmp(t, "application/json", 16) == 0 || !s->k->stream)
			s->mode = MODE_BODY;
		else
			s->mode = s->p->ndjson ? MODE_NDJSON : MODE_SSE;
	}
	switch (s->mode) {
	case MODE_SSE:
		return ai_sse_feed(&s->sse, p, n, e);
	case MODE_NDJSON:
		return ndjson_data(s, p, n, e);
	default:
		if (ai_buf_add(&s->body, p, n) < 0)
			return too_big(s, e);
		return 0;
	}
}

int
stream_end(struct stream *s, struct ai_err *e)
{
	int rc = 0;

	switch (s->mode) {
	case MODE_SSE:
		rc = ai_sse_end(&s->sse, e);
		if (rc < 0) {
			/* inside an event */
			s->cut = 1;
			ai_err_prefix(e, "%s", s->a->service);
		}
		break;
	case MODE_NDJSON: {
		int partial = 0;

		rc = ai_lines_end(&s->lines, on_line, s, &partial, e);
		/* a last line without its end that is not JSON: cut inside it */
		s->cut = rc < 0 && partial;
		if (rc > 0 && s->to_body) {
			/* the last line was the first that was not JSON */
			ai_buf_add(&s->body, s->raw.buf, s->raw.len);
			ai_buf_release(&s->raw);
		} else {
			break;
		}
	}
		/* fall through */
	default: {
		size_t off;
		const char *why;
		cJSON *v;

		if (s->body.len == 0)
			return ai_err_set(e, AI_EXIT_PROTOCOL, "%s sent an empty answer", s->a->service);
		s->n = 1;
		/* JSON that is fine up to where it stops was cut there */
		s->cut = ai_json_check(s->body.buf, s->body.len, &off, &why) < 0 &&
		    off >= s->body.len;
		v = ai_json_parse(s->body.buf, s->body.len, e);
		if (v == NULL)
			return bad_event(s, e);
		rc = cJSON_IsObject(v) ? s->p->parse(s->k, s->a, v, e) :
		    ai_err_set(e, AI_EXIT_PROTOCOL, "%s answered with JSON that is not an object",
			s->a->service);
		cJSON_Delete(v);
		break;
	}
	}
	if (rc == 0 && !s->a->done) {
		s->cut = 1;
		rc = ai_err_set(e, AI_EXIT_PROTOCOL, "the answer from %s ended before it was complete",
		    s->a->service);
	}
	return rc;
}

int
stream_cut(const struct stream *s)
{
	return s->cut;
}

void
answer_rewind(struct answer *a, size_t text_len, size_t ncalls)
{
	while (a->ncalls > ncalls) {
		struct call *c = &a->calls[--a->ncalls];

		free(c->id);
		free(c->name);
		ai_buf_release(&c->args);
		cJSON_Delete(c->obj);
	}
	ai_buf_truncate(&a->text, text_len);
	a->emitted = a->emitted < text_len ? a->emitted : text_len;
	a->has_usage = 0;
	a->input = a->cached = a->output = 0;
	a->refused = 0;
	answer_next(a);
}
