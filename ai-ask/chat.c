/*
 * chat.c: OpenAI Chat Completions (POST {base}/chat/completions), the API
 * every OpenAI-compatible server speaks (Ollama's /v1, llama.cpp, vLLM, LM
 * Studio, OpenRouter, Groq, DeepSeek, Qwen, GLM, Kimi).
 *
 * Request: "messages" with the system context first; an assistant turn's
 * calls go in its "tool_calls" (arguments as a JSON string, content null
 * when the turn has no text); each result is a "tool" message with its
 * "tool_call_id".  Streams ask for "stream_options": {"include_usage": true}.
 * Answer: choices[0] only (ai-ask never asks for n > 1); a "refusal"
 * (message.refusal, delta.refusal) makes the answer a refusal; streamed tool
 * calls arrive in pieces keyed by "index", several in parallel; the usage
 * comes in a last chunk with no choices, then "data: [DONE]".  What the
 * servers add: reasoning in "reasoning_content" (DeepSeek, Qwen, GLM, Kimi)
 * or "reasoning" (OpenRouter, Groq); cached input as
 * "prompt_cache_hit_tokens" (DeepSeek) or "cached_tokens" beside the
 * counts (Kimi); Groq's usage in "x_groq", and its whole call in one chunk.
 * Images of -a are image_url parts with data URLs.
 */
#include <string.h>

#include "ask.h"
#include "json.h"
#include "util.h"
#include "banned.h"

/* A user message's text and images as content parts. */
static cJSON *
image_parts(const struct turn *t)
{
	cJSON *parts = cJSON_CreateArray(), *p = cJSON_CreateObject();
	size_t i;

	ai_json_addstr(p, "type", "text");
	ai_json_addstr(p, "text", t->text);
	cJSON_AddItemToArray(parts, p);
	for (i = 0; i < t->natt; i++) {
		struct ai_buf url = AI_BUF_INIT(AI_BUF_NOLIMIT);

		p = cJSON_CreateObject();
		ai_json_addstr(p, "type", "image_url");
		ai_buf_addf(&url, "data:%s;base64,%s", t->att[i].mime, t->att[i].b64);
		ai_json_addstr(cJSON_AddObjectToObject(p, "image_url"), "url", url.buf);
		ai_buf_release(&url);
		cJSON_AddItemToArray(parts, p);
	}
	return parts;
}

/*
 * The messages array of Chat Completions, also used by Ollama's native API,
 * which differs in three ways: arguments are an object, a turn without text
 * has content "", and a result names its tool instead of the call's id.
 */
cJSON *
chat_messages(const struct conv *c, int ollama)
{
	cJSON *msgs = cJSON_CreateArray(), *asst = NULL;
	size_t i;

	if (c->system.len > 0) {
		cJSON *m = cJSON_CreateObject();

		ai_json_addstr(m, "role", "system");
		ai_json_addstr(m, "content", c->system.buf);
		cJSON_AddItemToArray(msgs, m);
	}
	for (i = 0; i < c->n; i++) {
		const struct turn *t = &c->t[i];
		cJSON *m, *calls, *tc, *f;

		if (t->kind == TURN_REASONING || t->kind == TURN_RAW)
			continue; /* only Anthropic pauses a turn */
		if (t->kind == TURN_CALL) {
			if (asst == NULL) {
				asst = cJSON_CreateObject();
				ai_json_addstr(asst, "role", "assistant");
				if (ollama)
					ai_json_addstr(asst, "content", "");
				else
					ai_json_addnull(asst, "content");
				cJSON_AddItemToArray(msgs, asst);
			}
			calls = cJSON_GetObjectItemCaseSensitive(asst, "tool_calls");
			if (calls == NULL)
				calls = cJSON_AddArrayToObject(asst, "tool_calls");
			tc = cJSON_CreateObject();
			if (!ollama) {
				ai_json_addstr(tc, "id", t->id);
				ai_json_addstr(tc, "type", "function");
			}
			f = cJSON_AddObjectToObject(tc, "function");
			ai_json_addstr(f, "name", t->name);
			if (ollama) {
				cJSON_AddItemToObject(f, "arguments", cJSON_Duplicate(t->args, 1));
			} else {
				char *args = ai_json_print(t->args);

				ai_json_addstr(f, "arguments", args);
				cJSON_free(args);
			}
			cJSON_AddItemToArray(calls, tc);
			continue;
		}
		m = cJSON_CreateObject();
		asst = NULL;
		if (t->kind == TURN_RESULT) {
			ai_json_addstr(m, "role", "tool");
			if (ollama)
				ai_json_addstr(m, "tool_name", t->name);
			else
				ai_json_addstr(m, "tool_call_id", t->id);
		} else {
			ai_json_addstr(m, "role", t->kind == TURN_USER ? "user" : "assistant");
			if (t->kind == TURN_ASSISTANT)
				asst = m;
		}
		if (t->natt > 0 && !ollama)
			cJSON_AddItemToObject(m, "content", image_parts(t));
		else
			ai_json_addstr(m, "content", t->text);
		if (t->natt > 0 && ollama) {
			cJSON *imgs = cJSON_AddArrayToObject(m, "images");
			size_t j;

			for (j = 0; j < t->natt; j++)
				cJSON_AddItemToArray(imgs, cJSON_CreateString(t->att[j].b64));
		}
		cJSON_AddItemToArray(msgs, m);
	}
	return msgs;
}

static cJSON *
body(const struct ask *k, const struct conv *c)
{
	cJSON *o = cJSON_CreateObject();

	ai_json_addstr(o, "model", k->model);
	cJSON_AddItemToObject(o, "messages", chat_messages(c, 0));
	if (k->tools != NULL)
		cJSON_AddItemToObject(o, "tools", tools_openai_style(k->tools, 1));
	if (k->schema != NULL) {
		cJSON *rf = cJSON_AddObjectToObject(o, "response_format");
		cJSON *js;

		ai_json_addstr(rf, "type", "json_schema");
		js = cJSON_AddObjectToObject(rf, "json_schema");
		ai_json_addstr(js, "name", "answer");
		cJSON_AddItemToObject(js, "schema", cJSON_Duplicate(k->schema, 1));
		ai_json_addbool(js, "strict", 0);
	}
	if (k->has_temperature)
		ai_json_addnum(o, "temperature", k->temperature);
	if (k->max_tokens > 0)
		ai_json_addnum(o, "max_tokens", (double)k->max_tokens);
	ai_json_addbool(o, "stream", k->stream);
	if (k->stream)
		ai_json_addbool(cJSON_AddObjectToObject(o, "stream_options"), "include_usage", 1);
	return o;
}

static void
set_stop(struct answer *a, const char *reason)
{
	if (reason == NULL)
		return;
	snprintf(a->stop_word, sizeof(a->stop_word), "%s", reason);
	if (strcmp(reason, "length") == 0)
		a->stop = STOP_LENGTH;
	else if (strcmp(reason, "content_filter") == 0)
		a->stop = STOP_FILTER;
	else if (strcmp(reason, "tool_calls") == 0 || strcmp(reason, "function_call") == 0)
		a->stop = STOP_TOOLS;
	else
		a->stop = STOP_END;
	a->done = 1;
}

/* Arguments as a JSON string (the API) or, from some servers, an object. */
static void
add_args(struct call *c, const cJSON *args)
{
	if (cJSON_IsString(args)) {
		ai_buf_adds(&c->args, args->valuestring);
	} else if (cJSON_IsObject(args)) {
		char *s = ai_json_print(args);

		ai_buf_adds(&c->args, s);
		cJSON_free(s);
	}
}

/* A message (whole) or a delta (a piece): its text and its tool calls. */
static int
take_message(struct answer *a, const cJSON *m, int delta, struct ai_err *e)
{
	const char *text = ai_json_str(m, "content"), *no = ai_json_str(m, "refusal"), *r;
	const cJSON *tc;
	long pos = 0;

	if ((r = ai_json_str(m, "reasoning_content")) != NULL ||
	    (r = ai_json_str(m, "reasoning")) != NULL)
		answer_reason(a, 0, r, strlen(r));
	if (text != NULL && answer_text(a, text, strlen(text), e) < 0)
		return -1;
	/* "refusal": a string (also in pieces) when the model refused, null or "" otherwise */
	if (no != NULL && answer_refusal(a, no, strlen(no), e) < 0)
		return -1;
	cJSON_ArrayForEach(tc, ai_json_get(m, "tool_calls")) {
		const cJSON *f = ai_json_get(tc, "function");
		const char *id = ai_json_str(tc, "id");
		uint64_t idx = (uint64_t)pos;
		struct call *c;

		if (ai_json_u64(tc, "index", &idx) != 1 && delta) {
			/* a server that sends no index: a new id is a new call, else a piece of the last */
			size_t i;

			idx = a->ncalls > 0 ? (uint64_t)a->calls[a->ncalls - 1].key : 0;
			for (i = 0; id != NULL && i < a->ncalls; i++)
				if (a->calls[i].id != NULL && strcmp(a->calls[i].id, id) == 0)
					break;
			if (id != NULL && i == a->ncalls)
				idx = a->ncalls > 0 ? idx + 1 : 0;
			else if (id != NULL)
				idx = (uint64_t)a->calls[i].key;
		}
		c = answer_call(a, (long)idx);
		call_set(&c->id, ai_json_str(tc, "id"));
		call_set(&c->name, ai_json_str(f, "name"));
		add_args(c, ai_json_get(f, "arguments"));
		pos++;
	}
	return 0;
}

/* The first choice, or NULL (usage chunks have none; other choices are ignored). */
static const cJSON *
first_choice(const cJSON *r)
{
	const cJSON *ch;

	cJSON_ArrayForEach(ch, ai_json_get(r, "choices")) {
		uint64_t idx = 0;

		ai_json_u64(ch, "index", &idx);
		if (idx == 0)
			return ch;
	}
	return NULL;
}

static void
take_common(struct answer *a, const cJSON *r)
{
	const char *model = ai_json_str(r, "model");
	const cJSON *u = ai_json_get(r, "usage");
	uint64_t v;

	if (model != NULL)
		snprintf(a->model, sizeof(a->model), "%s", model);
	if (!cJSON_IsObject(u))
		u = ai_json_get(ai_json_get(r, "x_groq"), "usage");
	answer_usage(a, u, "prompt_tokens", "completion_tokens", "prompt_tokens_details");
	if (cJSON_IsObject(u) && (ai_json_u64(u, "prompt_cache_hit_tokens", &v) == 1 ||
	    ai_json_u64(u, "cached_tokens", &v) == 1))
		a->cached = v;
}

static int
parse(const struct ask *k, struct answer *a, const cJSON *r, struct ai_err *e)
{
	const cJSON *ch = first_choice(r);

	(void)k;
	if (cJSON_IsObject(ai_json_get(r, "error")))
		return answer_fail(a, 0, "could not answer", ai_json_get(r, "error"), e);
	if (ch == NULL)
		return ai_err_set(e, AI_EXIT_PROTOCOL, "%s answered without a choice", a->service);
	take_common(a, r);
	if (take_message(a, ai_json_get(ch, "message"), 0, e) < 0)
		return -1;
	set_stop(a, ai_json_str(ch, "finish_reason"));
	a->done = 1;
	return 0;
}

static int
event(const struct ask *k, struct answer *a, const char *sse_type, const cJSON *d,
    struct ai_err *e)
{
	const cJSON *ch;

	(void)k;
	if (sse_type != NULL && strcmp(sse_type, "[DONE]") == 0) {
		a->done = 1;
		return 0;
	}
	if (ai_json_get(d, "error") != NULL)
		return answer_fail(a, 0, "reported an error", ai_json_get(d, "error"), e);
	take_common(a, d);
	ch = first_choice(d);
	if (ch == NULL)
		return 0;
	if (take_message(a, ai_json_get(ch, "delta"), 1, e) < 0)
		return -1;
	set_stop(a, ai_json_str(ch, "finish_reason"));
	return 0;
}

const struct provider provider_chat = {
	"openai-chat", "/chat/completions", AUTH_BEARER, 0, body, parse, event, NULL, NULL
};
