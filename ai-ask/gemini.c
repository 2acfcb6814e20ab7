/*
 * gemini.c: the Gemini API (POST {base}/v1beta/models/MODEL:generateContent,
 * or :streamGenerateContent?alt=sse to stream; the key in the
 * x-goog-api-key header, never in the URL).
 *
 * Request: "systemInstruction" for the system context; "contents" of role
 * "user" or "model", turns of one role in a row merged (parallel calls are
 * one model turn of functionCall parts, their results one user turn of
 * functionResponse parts, each result an object); tools as
 * "functionDeclarations" with "parametersJsonSchema" (full JSON Schema);
 * "generationConfig" with temperature, maxOutputTokens and, for --schema,
 * responseMimeType application/json with "responseJsonSchema".  A call's
 * thoughtSignature, which Gemini wants back, is kept in its tool_call
 * record and sent back with it.
 * Answer: GenerateContentResponse objects, one whole or one per SSE event:
 * candidates[0].content.parts (text; text with "thought": true, which is
 * reasoning; functionCall {name, args}, which has no id: ai-ask makes one
 * up), finishReason on the last, usageMetadata (cachedContentTokenCount,
 * thoughtsTokenCount counted as output).  A prompt blocked before any
 * candidate (promptFeedback.blockReason) and the safety stops are
 * refusals; an error object inside the stream is an error.
 */
#include <stdlib.h>
#include <string.h>

#include "ask.h"
#include "json.h"
#include "url.h"
#include "util.h"
#include "banned.h"

/*
 * The API's root: the base URL and /v1beta, unless the base already ends in
 * a version (/v1beta or /v1), as many clients write it.  Returns the
 * version to append ("" or "/v1beta"); the base goes into b.
 */
const char *
gemini_root(const char *base, struct ai_buf *b)
{
	size_t n = strlen(base);

	ai_buf_adds(b, base);
	if ((n >= 7 && strcmp(base + n - 7, "/v1beta") == 0) || (n >= 3 && strcmp(base + n - 3, "/v1") == 0))
		return "";
	return "/v1beta";
}

/* The endpoint: the model, percent-encoded, in the path. */
static char *
url(const char *base, const struct ask *k)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	const char *m = k->model;

	if (strncmp(m, "models/", 7) == 0)
		m += 7;
	ai_buf_addf(&b, "%s/models/", gemini_root(base, &b));
	ai_url_encode(&b, m);
	ai_buf_adds(&b, k->stream ? ":streamGenerateContent?alt=sse" : ":generateContent");
	return ai_buf_detach(&b, NULL);
}

/* A result as the object functionResponse.response wants: the result's members. */
static cJSON *
result_object(const struct turn *t)
{
	cJSON *v = cJSON_Parse(t->text);

	if (!cJSON_IsObject(v)) {
		cJSON_Delete(v);
		v = cJSON_CreateObject();
		ai_json_addstr(v, "output", t->text);
	}
	return v;
}

static cJSON *
contents(const struct conv *c)
{
	cJSON *out = cJSON_CreateArray();
	size_t i, j;

	for (i = 0; i < c->n; i++) {
		const struct turn *t = &c->t[i];
		cJSON *p = cJSON_CreateObject(), *f, *parts;

		switch (t->kind) {
		case TURN_USER:
		case TURN_ASSISTANT:
			parts = role_items(out, t->kind == TURN_USER ? "user" : "model", "parts");
			ai_json_addstr(p, "text", t->text);
			cJSON_AddItemToArray(parts, p);
			for (j = 0; j < t->natt; j++) {
				cJSON *d = cJSON_CreateObject(), *in = cJSON_AddObjectToObject(d, "inlineData");

				ai_json_addstr(in, "mimeType", t->att[j].mime);
				ai_json_addstr(in, "data", t->att[j].b64);
				cJSON_AddItemToArray(parts, d);
			}
			break;
		case TURN_CALL:
			parts = role_items(out, "model", "parts");
			f = cJSON_AddObjectToObject(p, "functionCall");
			ai_json_addstr(f, "name", t->name);
			cJSON_AddItemToObject(f, "args", cJSON_Duplicate(t->args, 1));
			if (t->sig != NULL)
				ai_json_addstr(p, "thoughtSignature", t->sig);
			cJSON_AddItemToArray(parts, p);
			break;
		case TURN_RESULT:
			parts = role_items(out, "user", "parts");
			f = cJSON_AddObjectToObject(p, "functionResponse");
			ai_json_addstr(f, "name", t->name);
			cJSON_AddItemToObject(f, "response", result_object(t));
			cJSON_AddItemToArray(parts, p);
			break;
		default:
			/* reasoning of other providers: nothing Gemini can take */
			cJSON_Delete(p);
			break;
		}
	}
	return out;
}

/*
 * Without --tools, a conversation that called tools declares each of them
 * with an open schema, so that its calls are understood; toolConfig mode
 * NONE keeps the model from calling them.  Returns whether any was.
 */
static int
declare_called(const struct conv *c, cJSON *o)
{
	cJSON *decl = NULL;
	size_t i, j;

	for (i = 0; i < c->n; i++) {
		cJSON *d;

		if (c->t[i].kind != TURN_CALL)
			continue;
		for (j = 0; j < i; j++)
			if (c->t[j].kind == TURN_CALL && strcmp(c->t[j].name, c->t[i].name) == 0)
				break;
		if (j < i)
			continue;
		if (decl == NULL) {
			cJSON *w = cJSON_CreateObject();

			cJSON_AddItemToArray(cJSON_AddArrayToObject(o, "tools"), w);
			decl = cJSON_AddArrayToObject(w, "functionDeclarations");
		}
		d = cJSON_CreateObject();
		ai_json_addstr(d, "name", c->t[i].name);
		ai_json_addstr(d, "description", "Called earlier in this conversation.");
		cJSON_AddItemToObject(d, "parametersJsonSchema", cJSON_Parse("{\"type\":\"object\"}"));
		cJSON_AddItemToArray(decl, d);
	}
	return decl != NULL;
}

static cJSON *
body(const struct ask *k, const struct conv *c)
{
	cJSON *o = cJSON_CreateObject(), *gen = NULL;
	const cJSON *t;

	if (c->system.len > 0) {
		cJSON *si = cJSON_AddObjectToObject(o, "systemInstruction");
		cJSON *p = cJSON_CreateObject();

		ai_json_addstr(p, "text", c->system.buf);
		cJSON_AddItemToArray(cJSON_AddArrayToObject(si, "parts"), p);
	}
	cJSON_AddItemToObject(o, "contents", contents(c));
	if (k->tools != NULL) {
		cJSON *tools = cJSON_AddArrayToObject(o, "tools"), *w = cJSON_CreateObject();
		cJSON *decl = cJSON_AddArrayToObject(w, "functionDeclarations");

		cJSON_AddItemToArray(tools, w);
		cJSON_ArrayForEach(t, k->tools) {
			cJSON *d = cJSON_CreateObject();
			const char *desc = ai_json_str(t, "description");
			const cJSON *params = ai_json_get(t, "parameters");

			ai_json_addstr(d, "name", ai_json_str(t, "name"));
			if (desc != NULL)
				ai_json_addstr(d, "description", desc);
			if (params != NULL)
				cJSON_AddItemToObject(d, "parametersJsonSchema", cJSON_Duplicate(params, 1));
			cJSON_AddItemToArray(decl, d);
		}
	}
	if (k->tools == NULL && declare_called(c, o))
		ai_json_addstr(cJSON_AddObjectToObject(cJSON_AddObjectToObject(o, "toolConfig"),
		    "functionCallingConfig"), "mode", "NONE");
	if (k->has_temperature || k->max_tokens > 0 || k->schema != NULL) {
		gen = cJSON_AddObjectToObject(o, "generationConfig");
		if (k->has_temperature)
			ai_json_addnum(gen, "temperature", k->temperature);
		if (k->max_tokens > 0)
			ai_json_addnum(gen, "maxOutputTokens", (double)k->max_tokens);
		if (k->schema != NULL) {
			ai_json_addstr(gen, "responseMimeType", "application/json");
			cJSON_AddItemToObject(gen, "responseJsonSchema", cJSON_Duplicate(k->schema, 1));
		}
	}
	return o;
}

/* finishReason: the suite's stop.  The safety family is a refusal. */
static void
set_stop(struct answer *a, const char *reason)
{
	static const char *const refusals[] = { "SAFETY", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII",
		"IMAGE_SAFETY", NULL };
	size_t i;

	snprintf(a->stop_word, sizeof(a->stop_word), "%s", reason);
	a->done = 1;
	if (strcmp(reason, "STOP") == 0) {
		a->stop = a->ncalls > 0 ? STOP_TOOLS : STOP_END;
		return;
	}
	if (strcmp(reason, "MAX_TOKENS") == 0) {
		a->stop = STOP_LENGTH;
		return;
	}
	for (i = 0; refusals[i] != NULL; i++)
		if (strcmp(reason, refusals[i]) == 0) {
			a->stop = STOP_REFUSAL;
			return;
		}
	/* RECITATION, LANGUAGE, MALFORMED_FUNCTION_CALL, OTHER...: the provider stopped it */
	a->stop = STOP_FILTER;
}

static void
take_usage(struct answer *a, const cJSON *u)
{
	uint64_t in = 0, tool = 0, out = 0, thoughts = 0, cached = 0;

	if (!cJSON_IsObject(u))
		return;
	a->has_usage = 1;
	ai_json_u64(u, "promptTokenCount", &in);
	ai_json_u64(u, "toolUsePromptTokenCount", &tool);
	ai_json_u64(u, "candidatesTokenCount", &out);
	ai_json_u64(u, "thoughtsTokenCount", &thoughts);
	ai_json_u64(u, "cachedContentTokenCount", &cached);
	a->input = in + tool;
	a->cached = cached;
	a->output = out + thoughts;
}

/* One GenerateContentResponse: the whole answer, or one event of the stream. */
static int
take(const struct ask *k, struct answer *a, const cJSON *r, struct ai_err *e)
{
	const cJSON *cand = cJSON_GetArrayItem(ai_json_get(r, "candidates"), 0), *p;
	const cJSON *fb = ai_json_get(r, "promptFeedback");
	const char *model = ai_json_str(r, "modelVersion"), *why;

	if (ai_json_get(r, "error") != NULL) {
		const cJSON *err = ai_json_get(r, "error");
		const char *status = ai_json_str(err, "status");
		int code = 0;

		if (status != NULL && strcmp(status, "RESOURCE_EXHAUSTED") == 0)
			code = AI_EXIT_TEMPFAIL;
		else if (status != NULL && (strcmp(status, "INVALID_ARGUMENT") == 0 ||
		    strcmp(status, "NOT_FOUND") == 0 || strcmp(status, "FAILED_PRECONDITION") == 0))
			code = AI_EXIT_DATAERR;
		else if (status != NULL && (strcmp(status, "PERMISSION_DENIED") == 0 ||
		    strcmp(status, "UNAUTHENTICATED") == 0))
			code = AI_EXIT_CONFIG;
		cJSON *shown = cJSON_CreateObject();
		int rc;

		/* its status ("UNAVAILABLE") is what says what went wrong */
		if (status != NULL)
			ai_json_addstr(shown, "type", status);
		if (ai_json_str(err, "message") != NULL)
			ai_json_addstr(shown, "message", ai_json_str(err, "message"));
		rc = answer_fail(a, code, "reported an error", shown, e);
		cJSON_Delete(shown);
		if (rc < 0 && status != NULL &&
		    (strcmp(status, "UNAVAILABLE") == 0 || strcmp(status, "INTERNAL") == 0 ||
		    strcmp(status, "RESOURCE_EXHAUSTED") == 0))
			e->retryable = 1;
		return -1;
	}
	if (model != NULL)
		snprintf(a->model, sizeof(a->model), "%s", model);
	take_usage(a, ai_json_get(r, "usageMetadata"));
	if (cand == NULL && (why = ai_json_str(fb, "blockReason")) != NULL) {
		/* the prompt itself was blocked: no candidate will come */
		snprintf(a->stop_word, sizeof(a->stop_word), "%s", why);
		a->stop = STOP_REFUSAL;
		a->done = 1;
		return 0;
	}
	cJSON_ArrayForEach(p, ai_json_get(ai_json_get(cand, "content"), "parts")) {
		const char *text = ai_json_str(p, "text");
		const cJSON *fc = ai_json_get(p, "functionCall");

		if (cJSON_IsObject(fc)) {
			struct call *c = answer_call(a, (long)a->ncalls);
			const cJSON *args = ai_json_get(fc, "args");
			char id[64];

			snprintf(id, sizeof(id), "call_%s_%zu", k->idseed, a->ncalls - 1);
			call_set(&c->id, ai_json_str(fc, "id") ? ai_json_str(fc, "id") : id);
			call_set(&c->name, ai_json_str(fc, "name"));
			call_set(&c->sig, ai_json_str(p, "thoughtSignature"));
			c->obj = cJSON_IsObject(args) ? cJSON_Duplicate(args, 1) : args == NULL ?
			    cJSON_CreateObject() : NULL;
		} else if (text != NULL && ai_json_bool(p, "thought", 0) == 1) {
			answer_reason(a, 0, text, strlen(text));
		} else if (text != NULL && answer_text(a, text, strlen(text), e) < 0) {
			return -1;
		}
	}
	if ((why = ai_json_str(cand, "finishReason")) != NULL)
		set_stop(a, why);
	return 0;
}

static int
parse(const struct ask *k, struct answer *a, const cJSON *r, struct ai_err *e)
{
	if (take(k, a, r, e) < 0)
		return -1;
	if (!a->done && cJSON_GetArraySize(ai_json_get(r, "candidates")) == 0)
		return ai_err_set(e, AI_EXIT_PROTOCOL, "%s answered without a candidate", a->service);
	a->done = 1;
	return 0;
}

static int
event(const struct ask *k, struct answer *a, const char *type, const cJSON *d, struct ai_err *e)
{
	(void)type;
	return d != NULL ? take(k, a, d, e) : 0;
}

/*
 * Gemini refuses a bad key with HTTP 400 INVALID_ARGUMENT and the reason
 * API_KEY_INVALID: that is a configuration error, as a 401 is elsewhere.
 */
static void
http_error(const char *body, size_t n, struct ai_err *e)
{
	if (body != NULL && memmem(body, n, "\"API_KEY_INVALID\"", 17) != NULL) {
		e->code = AI_EXIT_CONFIG;
		e->retryable = 0;
	}
}

const struct provider provider_gemini = {
	"gemini", "/v1beta/models", AUTH_GOOG_KEY, 0, body, parse, event, url, http_error
};
