/*
 * ollama.c: Ollama's native API (POST {OLLAMA_HOST}/api/chat).
 *
 * Request: Chat-Completions-like "messages" (see chat_messages) with tool
 * call arguments as objects and results as "tool" messages naming their
 * tool; "options" carry temperature and num_predict; "format" carries the
 * --schema; "stream" is always given, since Ollama streams by default.
 * Images of -a are the user message's "images" (base64).
 * Answer: NDJSON objects, each with a "message" piece (content; thinking,
 * the reasoning; tool_calls, each call whole), the last with "done":
 * true, "done_reason" and the token counts prompt_eval_count and
 * eval_count.  Ollama gives calls no id (newer versions may): ai-ask makes
 * one up, unique to the run, so that results can be paired with them.
 */
#include <string.h>

#include "ask.h"
#include "json.h"
#include "util.h"
#include "banned.h"

static cJSON *
body(const struct ask *k, const struct conv *c)
{
	cJSON *o = cJSON_CreateObject(), *opts = NULL;

	ai_json_addstr(o, "model", k->model);
	cJSON_AddItemToObject(o, "messages", chat_messages(c, 1));
	if (k->tools != NULL)
		cJSON_AddItemToObject(o, "tools", tools_openai_style(k->tools, 1));
	if (k->schema != NULL)
		cJSON_AddItemToObject(o, "format", cJSON_Duplicate(k->schema, 1));
	if (k->has_temperature || k->max_tokens > 0) {
		opts = cJSON_AddObjectToObject(o, "options");
		if (k->has_temperature)
			ai_json_addnum(opts, "temperature", k->temperature);
		if (k->max_tokens > 0)
			ai_json_addnum(opts, "num_predict", (double)k->max_tokens);
	}
	ai_json_addbool(o, "stream", k->stream);
	return o;
}

/* One object of the answer: the whole answer, or one line of the stream. */
static int
take(const struct ask *k, struct answer *a, const cJSON *d, struct ai_err *e)
{
	const cJSON *m = ai_json_get(d, "message"), *tc, *err = ai_json_get(d, "error");
	const char *text = ai_json_str(m, "content"), *model = ai_json_str(d, "model");
	const char *thinking = ai_json_str(m, "thinking");
	int done = ai_json_bool(d, "done", 0);

	if (err != NULL)
		return answer_fail(a, 0, "reported an error", err, e);
	if (model != NULL)
		snprintf(a->model, sizeof(a->model), "%s", model);
	if (thinking != NULL)
		answer_reason(a, 0, thinking, strlen(thinking));
	if (text != NULL && answer_text(a, text, strlen(text), e) < 0)
		return -1;
	cJSON_ArrayForEach(tc, ai_json_get(m, "tool_calls")) {
		const cJSON *f = ai_json_get(tc, "function"), *args = ai_json_get(f, "arguments");
		struct call *c = answer_call(a, (long)a->ncalls);
		char id[64];

		snprintf(id, sizeof(id), "call_%s_%zu", k->idseed, a->ncalls - 1);
		call_set(&c->id, ai_json_str(tc, "id") ? ai_json_str(tc, "id") : id);
		call_set(&c->name, ai_json_str(f, "name"));
		if (cJSON_IsObject(args))
			c->obj = cJSON_Duplicate(args, 1);
		else if (cJSON_IsString(args))
			ai_buf_adds(&c->args, args->valuestring);
	}
	if (done == 1) {
		const char *why = ai_json_str(d, "done_reason");
		uint64_t v;

		if (ai_json_u64(d, "prompt_eval_count", &v) == 1) {
			a->input = v;
			a->has_usage = 1;
		}
		if (ai_json_u64(d, "eval_count", &v) == 1) {
			a->output = v;
			a->has_usage = 1;
		}
		if (why != NULL)
			snprintf(a->stop_word, sizeof(a->stop_word), "%s", why);
		a->stop = why != NULL && strcmp(why, "length") == 0 ? STOP_LENGTH :
		    a->ncalls > 0 ? STOP_TOOLS : STOP_END;
		a->done = 1;
	}
	return 0;
}

static int
parse(const struct ask *k, struct answer *a, const cJSON *r, struct ai_err *e)
{
	return take(k, a, r, e);
}

static int
event(const struct ask *k, struct answer *a, const char *type, const cJSON *d, struct ai_err *e)
{
	(void)type;
	return d != NULL ? take(k, a, d, e) : 0;
}

const struct provider provider_ollama = {
	"ollama", "/api/chat", AUTH_NONE, 1, body, parse, event, NULL, NULL
};
