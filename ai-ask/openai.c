/*
 * openai.c: the OpenAI Responses API (POST {base}/responses).
 *
 * Request: "instructions" for the system context, "input" items: messages
 * {role, content}, "function_call" {call_id, name, arguments as a JSON
 * string} and "function_call_output" {call_id, output}; "store": false,
 * since ai-ask keeps no history unless asked; files of -a are input_image and
 * input_file parts of their user message.  Answer: "output" items of
 * type "message" (output_text, refusal) and "function_call"; streamed as
 * response.output_text.delta, response.output_item.added/done and
 * response.function_call_arguments.delta keyed by output_index, ended by
 * response.completed or response.incomplete (with the usage), or by
 * response.failed and error events.  A "refusal" content part (streamed as
 * response.refusal.delta) makes the answer a refusal.
 */
#include <string.h>

#include "ask.h"
#include "json.h"
#include "util.h"
#include "banned.h"

/* A user message's content with the files of -a: input_text, input_image, input_file. */
static cJSON *
with_files(const struct turn *t)
{
	cJSON *parts = cJSON_CreateArray(), *p = cJSON_CreateObject();
	size_t i;

	ai_json_addstr(p, "type", "input_text");
	ai_json_addstr(p, "text", t->text);
	cJSON_AddItemToArray(parts, p);
	for (i = 0; i < t->natt; i++) {
		struct ai_buf url = AI_BUF_INIT(AI_BUF_NOLIMIT);

		p = cJSON_CreateObject();
		ai_buf_addf(&url, "data:%s;base64,%s", t->att[i].mime, t->att[i].b64);
		if (t->att[i].kind == ATT_PDF) {
			ai_json_addstr(p, "type", "input_file");
			ai_json_addstr(p, "filename", t->att[i].name);
			ai_json_addstr(p, "file_data", url.buf);
		} else {
			ai_json_addstr(p, "type", "input_image");
			ai_json_addstr(p, "image_url", url.buf);
		}
		ai_buf_release(&url);
		cJSON_AddItemToArray(parts, p);
	}
	return parts;
}

static cJSON *
body(const struct ask *k, const struct conv *c)
{
	cJSON *o = cJSON_CreateObject(), *in = cJSON_CreateArray();
	size_t i;

	ai_json_addstr(o, "model", k->model);
	if (c->system.len > 0)
		ai_json_addstr(o, "instructions", c->system.buf);
	for (i = 0; i < c->n; i++) {
		const struct turn *t = &c->t[i];
		cJSON *it;

		if (t->kind == TURN_REASONING || t->kind == TURN_RAW)
			continue; /* only Anthropic pauses a turn */
		it = cJSON_CreateObject();
		switch (t->kind) {
		case TURN_USER:
		case TURN_ASSISTANT:
			ai_json_addstr(it, "role", t->kind == TURN_USER ? "user" : "assistant");
			if (t->natt > 0)
				cJSON_AddItemToObject(it, "content", with_files(t));
			else
				ai_json_addstr(it, "content", t->text);
			break;
		case TURN_CALL: {
			char *args = ai_json_print(t->args);

			ai_json_addstr(it, "type", "function_call");
			ai_json_addstr(it, "call_id", t->id);
			ai_json_addstr(it, "name", t->name);
			ai_json_addstr(it, "arguments", args);
			cJSON_free(args);
			break;
		}
		default:
			ai_json_addstr(it, "type", "function_call_output");
			ai_json_addstr(it, "call_id", t->id);
			ai_json_addstr(it, "output", t->text);
			break;
		}
		cJSON_AddItemToArray(in, it);
	}
	cJSON_AddItemToObject(o, "input", in);
	if (k->tools != NULL)
		cJSON_AddItemToObject(o, "tools", tools_openai_style(k->tools, 0));
	if (k->schema != NULL) {
		cJSON *text = cJSON_AddObjectToObject(o, "text");
		cJSON *f = cJSON_AddObjectToObject(text, "format");

		ai_json_addstr(f, "type", "json_schema");
		ai_json_addstr(f, "name", "answer");
		cJSON_AddItemToObject(f, "schema", cJSON_Duplicate(k->schema, 1));
		ai_json_addbool(f, "strict", 0);
	}
	if (k->has_temperature)
		ai_json_addnum(o, "temperature", k->temperature);
	if (k->max_tokens > 0)
		ai_json_addnum(o, "max_output_tokens", (double)k->max_tokens);
	ai_json_addbool(o, "store", 0);
	ai_json_addbool(o, "stream", k->stream);
	return o;
}

/* A function_call output item; key is its output_index. */
static void
take_call(struct answer *a, long key, const cJSON *item, int final)
{
	struct call *c = answer_call(a, key);
	const char *args = ai_json_str(item, "arguments");

	call_set(&c->id, ai_json_str(item, "call_id"));
	call_set(&c->name, ai_json_str(item, "name"));
	if (args != NULL && (final || c->args.len == 0)) {
		ai_buf_reset(&c->args);
		ai_buf_adds(&c->args, args);
	}
}

/* The end of an answer: status, usage, model; the whole response object. */
static int
finish(struct answer *a, const cJSON *r, struct ai_err *e)
{
	const char *status = ai_json_str(r, "status"), *model = ai_json_str(r, "model");
	const cJSON *err = ai_json_get(r, "error");

	if (cJSON_IsObject(err) || (status != NULL && strcmp(status, "failed") == 0))
		return answer_fail(a, 0, "could not answer", err, e);
	if (model != NULL)
		snprintf(a->model, sizeof(a->model), "%s", model);
	answer_usage(a, ai_json_get(r, "usage"), "input_tokens", "output_tokens",
	    "input_tokens_details");
	a->stop = a->ncalls > 0 ? STOP_TOOLS : STOP_END;
	if (status != NULL && strcmp(status, "incomplete") == 0) {
		const char *why = ai_json_str(ai_json_get(r, "incomplete_details"), "reason");

		snprintf(a->stop_word, sizeof(a->stop_word), "%s", why ? why : "incomplete");
		a->stop = why != NULL && strcmp(why, "content_filter") == 0 ? STOP_FILTER :
		    STOP_LENGTH;
	} else if (status != NULL) {
		snprintf(a->stop_word, sizeof(a->stop_word), "%s", status);
	}
	a->done = 1;
	return 0;
}

/*
 * The output items of a whole response.  At the end of a stream they only
 * fill in what the events did not bring (a proxy that sends no deltas):
 * text when none arrived, calls by their output index.
 */
static int
take_output(struct answer *a, const cJSON *r, int with_text, struct ai_err *e)
{
	const cJSON *item, *part;
	long i = 0;

	cJSON_ArrayForEach(item, ai_json_get(r, "output")) {
		const char *type = ai_json_str(item, "type");

		if (type != NULL && strcmp(type, "message") == 0 && with_text) {
			cJSON_ArrayForEach(part, ai_json_get(item, "content")) {
				const char *t = ai_json_str(part, "text"), *no = ai_json_str(part, "refusal");
				const char *pt = ai_json_str(part, "type");

				if (pt != NULL && strcmp(pt, "refusal") == 0 && no != NULL) {
					if (answer_refusal(a, no, strlen(no), e) < 0)
						return -1;
				} else if (t != NULL && answer_text(a, t, strlen(t), e) < 0) {
					return -1;
				}
			}
		} else if (type != NULL && strcmp(type, "function_call") == 0) {
			take_call(a, i, item, 1);
		} else if (type != NULL && strcmp(type, "reasoning") == 0 &&
		    answer_thought(a, i)->text.len == 0) {
			cJSON_ArrayForEach(part, ai_json_get(item, "summary")) {
				const char *t = ai_json_str(part, "text");

				if (t != NULL)
					answer_reason(a, i, t, strlen(t));
			}
		}
		i++;
	}
	return 0;
}

static int
parse(const struct ask *k, struct answer *a, const cJSON *r, struct ai_err *e)
{
	(void)k;
	if (take_output(a, r, 1, e) < 0)
		return -1;
	return finish(a, r, e);
}

static int
event(const struct ask *k, struct answer *a, const char *sse_type, const cJSON *d,
    struct ai_err *e)
{
	const char *type = ai_json_str(d, "type"), *delta;
	uint64_t idx = 0;

	(void)k;
	if (type == NULL)
		type = sse_type != NULL ? sse_type : "";
	ai_json_u64(d, "output_index", &idx);
	if (strcmp(type, "response.output_text.delta") == 0) {
		delta = ai_json_str(d, "delta");
		return delta ? answer_text(a, delta, strlen(delta), e) : 0;
	}
	if (strcmp(type, "response.refusal.delta") == 0) {
		delta = ai_json_str(d, "delta");
		return delta ? answer_refusal(a, delta, strlen(delta), e) : 0;
	}
	if (strcmp(type, "response.output_item.added") == 0 ||
	    strcmp(type, "response.output_item.done") == 0) {
		const cJSON *item = ai_json_get(d, "item");
		const char *it = ai_json_str(item, "type");

		if (it != NULL && strcmp(it, "function_call") == 0)
			take_call(a, (long)idx, item, strcmp(type, "response.output_item.done") == 0);
		return 0;
	}
	if (strcmp(type, "response.reasoning_summary_text.delta") == 0 ||
	    strcmp(type, "response.reasoning_text.delta") == 0) {
		delta = ai_json_str(d, "delta");
		if (delta != NULL)
			answer_reason(a, (long)idx, delta, strlen(delta));
		return 0;
	}
	if (strcmp(type, "response.function_call_arguments.delta") == 0) {
		delta = ai_json_str(d, "delta");
		if (delta != NULL)
			ai_buf_adds(&answer_call(a, (long)idx)->args, delta);
		return 0;
	}
	if (strcmp(type, "response.completed") == 0 || strcmp(type, "response.incomplete") == 0 ||
	    strcmp(type, "response.failed") == 0) {
		const cJSON *r = ai_json_get(d, "response");

		if (take_output(a, r, a->text.len == 0, e) < 0)
			return -1;
		return finish(a, r, e);
	}
	if (strcmp(type, "error") == 0)
		return answer_fail(a, 0, "reported an error", d, e);
	return 0;
}

const struct provider provider_openai = {
	"openai", "/responses", AUTH_BEARER, 0, body, parse, event, NULL, NULL
};
