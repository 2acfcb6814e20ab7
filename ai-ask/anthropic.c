/*
 * anthropic.c: the Anthropic Messages API (POST {base}/v1/messages, headers
 * x-api-key and anthropic-version: 2023-06-01).
 *
 * Request: "system" for the system context; "messages" of content blocks,
 * consecutive turns of one role merged into one message (the API wants
 * user and assistant to alternate): text blocks (never empty), tool_use
 * {id, name, input} in assistant messages, tool_result {tool_use_id,
 * content, is_error} in user messages, ahead of any text.  "max_tokens" is
 * required.  --schema is a forced tool ("answer", tool_choice type tool)
 * whose input is the answer.
 * Images and PDFs of -a are image and document blocks ahead of the text of
 * their user message.  Signed thinking blocks of an earlier answer (its
 * reasoning records) go back in their assistant message, as the API wants
 * when tools are used.
 * Answer: content blocks text, thinking and redacted_thinking (reasoning,
 * never the answer), tool_use; streamed as
 * message_start (usage), content_block_start/delta/stop (text_delta,
 * input_json_delta, thinking_delta...), message_delta (stop_reason, usage),
 * message_stop, ping and error events.  stop_reason "refusal" is a
 * refusal; "pause_turn" a turn the API paused, which ask.c continues by
 * sending the answer's content back as it came (rebuilt from the stream).
 */
#include <stdlib.h>
#include <string.h>

#include "ask.h"
#include "json.h"
#include "util.h"
#include "banned.h"

#define ANTHROPIC_MAX_TOKENS 4096
#define SCHEMA_TOOL "answer"

/* Content block kinds of a streamed answer. */
enum { BLOCK_SKIP, BLOCK_TEXT, BLOCK_TOOL, BLOCK_SCHEMA, BLOCK_THINK };

/* Tool ids must match [A-Za-z0-9_-]+: an id from another provider is made to. */
static char *
clean_id(const char *id)
{
	char *s = ai_xstrdup(id), *p;

	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    *p == '_' || *p == '-'))
			*p = '_';
	return s;
}

/* The files of -a, as image and document blocks. */
static void
add_files(cJSON *blocks, const struct turn *t)
{
	size_t i;

	for (i = 0; i < t->natt; i++) {
		cJSON *b = cJSON_CreateObject(), *src;

		ai_json_addstr(b, "type", t->att[i].kind == ATT_PDF ? "document" : "image");
		src = cJSON_AddObjectToObject(b, "source");
		ai_json_addstr(src, "type", "base64");
		ai_json_addstr(src, "media_type", t->att[i].mime);
		ai_json_addstr(src, "data", t->att[i].b64);
		cJSON_AddItemToArray(blocks, b);
	}
}

static cJSON *
messages(const struct conv *c)
{
	cJSON *msgs = cJSON_CreateArray();
	size_t i;

	for (i = 0; i < c->n; i++) {
		const struct turn *t = &c->t[i];
		cJSON *b = cJSON_CreateObject(), *blocks;
		char *id;

		switch (t->kind) {
		case TURN_REASONING:
			if (strcmp(t->provider, "anthropic") != 0 || (t->sig == NULL && t->data == NULL)) {
				cJSON_Delete(b);
				break;
			}
			blocks = role_items(msgs, "assistant", "content");
			if (t->data != NULL) {
				ai_json_addstr(b, "type", "redacted_thinking");
				ai_json_addstr(b, "data", t->data);
			} else {
				ai_json_addstr(b, "type", "thinking");
				ai_json_addstr(b, "thinking", t->text);
				ai_json_addstr(b, "signature", t->sig);
			}
			cJSON_AddItemToArray(blocks, b);
			break;
		case TURN_USER:
		case TURN_ASSISTANT:
			blocks = role_items(msgs, t->kind == TURN_USER ? "user" : "assistant", "content");
			add_files(blocks, t);
			ai_json_addstr(b, "type", "text");
			ai_json_addstr(b, "text", t->text);
			cJSON_AddItemToArray(blocks, b);
			break;
		case TURN_RAW: {
			const cJSON *r;

			/* a paused turn goes back as the API gave it */
			blocks = role_items(msgs, "assistant", "content");
			cJSON_Delete(b);
			cJSON_ArrayForEach(r, t->args)
				cJSON_AddItemToArray(blocks, cJSON_Duplicate(r, 1));
			break;
		}
		case TURN_CALL:
			blocks = role_items(msgs, "assistant", "content");
			id = clean_id(t->id);
			ai_json_addstr(b, "type", "tool_use");
			ai_json_addstr(b, "id", id);
			ai_json_addstr(b, "name", t->name);
			cJSON_AddItemToObject(b, "input", cJSON_Duplicate(t->args, 1));
			cJSON_AddItemToArray(blocks, b);
			free(id);
			break;
		default: {
			cJSON *before;
			int at = 0;

			/* results go ahead of any text in the same user message */
			blocks = role_items(msgs, "user", "content");
			cJSON_ArrayForEach(before, blocks) {
				const char *bt = ai_json_str(before, "type");

				if (bt == NULL || strcmp(bt, "tool_result") != 0)
					break;
				at++;
			}
			id = clean_id(t->id);
			ai_json_addstr(b, "type", "tool_result");
			ai_json_addstr(b, "tool_use_id", id);
			ai_json_addstr(b, "content", t->text);
			if (t->failed)
				ai_json_addbool(b, "is_error", 1);
			if (at < cJSON_GetArraySize(blocks))
				cJSON_InsertItemInArray(blocks, at, b);
			else
				cJSON_AddItemToArray(blocks, b);
			free(id);
			break;
		}
		}
	}
	return msgs;
}

/*
 * The API refuses a conversation with tool_use or tool_result blocks unless
 * tools are declared.  Without --tools (a final answer after a tool loop, a
 * summary of a transcript), each tool the conversation called is declared
 * with an open schema; tool_choice then keeps the model from calling them.
 * Returns whether any was declared.
 */
static int
declare_called(const struct conv *c, cJSON *tools)
{
	size_t i, j;
	int any = 0;

	for (i = 0; i < c->n; i++) {
		if (c->t[i].kind != TURN_CALL)
			continue;
		for (j = 0; j < i; j++)
			if (c->t[j].kind == TURN_CALL && strcmp(c->t[j].name, c->t[i].name) == 0)
				break;
		if (j == i && strcmp(c->t[i].name, SCHEMA_TOOL) != 0) {
			cJSON *d = cJSON_CreateObject();

			ai_json_addstr(d, "name", c->t[i].name);
			ai_json_addstr(d, "description", "Called earlier in this conversation.");
			cJSON_AddItemToObject(d, "input_schema", cJSON_Parse("{\"type\":\"object\"}"));
			cJSON_AddItemToArray(tools, d);
			any = 1;
		}
	}
	return any;
}

static cJSON *
body(const struct ask *k, const struct conv *c)
{
	cJSON *o = cJSON_CreateObject(), *tools = NULL;
	const cJSON *t;

	ai_json_addstr(o, "model", k->model);
	ai_json_addnum(o, "max_tokens", k->max_tokens > 0 ? (double)k->max_tokens :
	    ANTHROPIC_MAX_TOKENS);
	if (c->system.len > 0)
		ai_json_addstr(o, "system", c->system.buf);
	cJSON_AddItemToObject(o, "messages", messages(c));
	if (k->tools != NULL) {
		tools = cJSON_AddArrayToObject(o, "tools");
		cJSON_ArrayForEach(t, k->tools) {
			cJSON *d = cJSON_CreateObject();
			const char *desc = ai_json_str(t, "description");
			const cJSON *params = ai_json_get(t, "parameters");

			ai_json_addstr(d, "name", ai_json_str(t, "name"));
			if (desc != NULL)
				ai_json_addstr(d, "description", desc);
			cJSON_AddItemToObject(d, "input_schema", params ? cJSON_Duplicate(params, 1) :
			    cJSON_Parse("{\"type\":\"object\",\"properties\":{}}"));
			cJSON_AddItemToArray(tools, d);
		}
	} else if (k->schema != NULL) {
		cJSON *d = cJSON_CreateObject(), *choice;

		tools = cJSON_AddArrayToObject(o, "tools");
		ai_json_addstr(d, "name", SCHEMA_TOOL);
		ai_json_addstr(d, "description", "Give the answer as JSON that follows the schema.");
		cJSON_AddItemToObject(d, "input_schema", cJSON_Duplicate(k->schema, 1));
		cJSON_AddItemToArray(tools, d);
		declare_called(c, tools);
		choice = cJSON_AddObjectToObject(o, "tool_choice");
		ai_json_addstr(choice, "type", "tool");
		ai_json_addstr(choice, "name", SCHEMA_TOOL);
	} else {
		tools = cJSON_CreateArray();
		if (declare_called(c, tools)) {
			cJSON_AddItemToObject(o, "tools", tools);
			ai_json_addstr(cJSON_AddObjectToObject(o, "tool_choice"), "type", "none");
		} else {
			cJSON_Delete(tools);
		}
	}
	if (k->has_temperature)
		ai_json_addnum(o, "temperature", k->temperature);
	ai_json_addbool(o, "stream", k->stream);
	return o;
}

/* Input tokens include those written to and read from the cache. */
static void
take_usage(struct answer *a, const cJSON *u)
{
	uint64_t in = 0, cw = 0, cr = 0, out;

	if (!cJSON_IsObject(u))
		return;
	a->has_usage = 1;
	if (ai_json_u64(u, "input_tokens", &in) == 1) {
		ai_json_u64(u, "cache_creation_input_tokens", &cw);
		ai_json_u64(u, "cache_read_input_tokens", &cr);
		a->input = in + cw + cr;
		a->cached = cr;
		a->written = cw;
	}
	if (ai_json_u64(u, "output_tokens", &out) == 1)
		a->output = out;
}

static void
set_stop(struct answer *a, const struct ask *k, const char *reason)
{
	if (reason == NULL)
		return;
	snprintf(a->stop_word, sizeof(a->stop_word), "%s", reason);
	if (strcmp(reason, "max_tokens") == 0)
		a->stop = STOP_LENGTH;
	else if (strcmp(reason, "tool_use") == 0 && k->schema == NULL)
		a->stop = STOP_TOOLS;
	else if (strcmp(reason, "refusal") == 0)
		a->stop = STOP_REFUSAL;
	else if (strcmp(reason, "pause_turn") == 0)
		a->stop = STOP_PAUSE;
	else
		a->stop = STOP_END;
}

static int
parse(const struct ask *k, struct answer *a, const cJSON *r, struct ai_err *e)
{
	const cJSON *b;
	const char *model = ai_json_str(r, "model");
	long i = 0;

	if (cJSON_IsObject(ai_json_get(r, "error")))
		return answer_fail(a, 0, "could not answer", ai_json_get(r, "error"), e);
	if (model != NULL)
		snprintf(a->model, sizeof(a->model), "%s", model);
	cJSON_Delete(a->raw);
	a->raw = cJSON_IsArray(ai_json_get(r, "content")) ?
	    cJSON_Duplicate(ai_json_get(r, "content"), 1) : NULL;
	cJSON_ArrayForEach(b, ai_json_get(r, "content")) {
		const char *type = ai_json_str(b, "type"), *text = ai_json_str(b, "text");
		const cJSON *input = ai_json_get(b, "input");

		if (type == NULL)
			continue;
		if (strcmp(type, "text") == 0 && text != NULL && k->schema == NULL) {
			if (answer_text(a, text, strlen(text), e) < 0)
				return -1;
		} else if (strcmp(type, "thinking") == 0 || strcmp(type, "redacted_thinking") == 0) {
			struct thought *th = answer_thought(a, i);
			const char *s = ai_json_str(b, "thinking");

			if (s != NULL)
				ai_buf_adds(&th->text, s);
			call_set(&th->sig, ai_json_str(b, "signature"));
			call_set(&th->data, ai_json_str(b, "data"));
		} else if (strcmp(type, "tool_use") == 0 && k->schema != NULL) {
			/* with --schema the only tool is the forced one: its input is the answer */
			char *s = ai_json_print(input);

			if (answer_text(a, s, strlen(s), e) < 0) {
				cJSON_free(s);
				return -1;
			}
			cJSON_free(s);
		} else if (strcmp(type, "tool_use") == 0) {
			struct call *c = answer_call(a, i);

			call_set(&c->id, ai_json_str(b, "id"));
			call_set(&c->name, ai_json_str(b, "name"));
			c->obj = cJSON_IsObject(input) ? cJSON_Duplicate(input, 1) : NULL;
		}
		i++;
	}
	take_usage(a, ai_json_get(r, "usage"));
	set_stop(a, k, ai_json_str(r, "stop_reason"));
	a->done = 1;
	return 0;
}

/*
 * The content of a streamed answer, rebuilt block by block, so that a
 * paused turn can go back as the API gave it: each block as it started,
 * its text, thinking or input JSON gathered in a->partial, its signature
 * and citations as they come, completed at content_block_stop.
 */
static void
raw_start(struct answer *a, uint64_t idx, const cJSON *b)
{
	if (a->raw == NULL)
		a->raw = cJSON_CreateArray();
	while ((uint64_t)cJSON_GetArraySize(a->raw) < idx)
		cJSON_AddItemToArray(a->raw, cJSON_CreateNull());
	if ((uint64_t)cJSON_GetArraySize(a->raw) == idx)
		cJSON_AddItemToArray(a->raw, cJSON_Duplicate(b, 1));
	else
		cJSON_ReplaceItemInArray(a->raw, (int)idx, cJSON_Duplicate(b, 1));
}

static void
raw_delta(struct answer *a, uint64_t idx, const cJSON *delta)
{
	cJSON *blk = idx < a->nblocks ? cJSON_GetArrayItem(a->raw, (int)idx) : NULL;
	const char *dt = ai_json_str(delta, "type"), *s;
	const cJSON *cit;

	if (blk == NULL || dt == NULL)
		return;
	if ((strcmp(dt, "text_delta") == 0 && (s = ai_json_str(delta, "text")) != NULL) ||
	    (strcmp(dt, "thinking_delta") == 0 && (s = ai_json_str(delta, "thinking")) != NULL) ||
	    (strcmp(dt, "input_json_delta") == 0 &&
	    (s = ai_json_str(delta, "partial_json")) != NULL))
		ai_buf_adds(&a->partial[idx], s);
	else if (strcmp(dt, "signature_delta") == 0 && (s = ai_json_str(delta, "signature")) != NULL) {
		cJSON_DeleteItemFromObjectCaseSensitive(blk, "signature");
		ai_json_addstr(blk, "signature", s);
	} else if (strcmp(dt, "citations_delta") == 0 &&
	    cJSON_IsObject(cit = ai_json_get(delta, "citation"))) {
		cJSON *list = cJSON_GetObjectItemCaseSensitive(blk, "citations");

		if (!cJSON_IsArray(list)) {
			cJSON_DeleteItemFromObjectCaseSensitive(blk, "citations");
			list = cJSON_AddArrayToObject(blk, "citations");
		}
		cJSON_AddItemToArray(list, cJSON_Duplicate(cit, 1));
	}
}

static void
raw_stop(struct answer *a, uint64_t idx)
{
	cJSON *blk = idx < a->nblocks ? cJSON_GetArrayItem(a->raw, (int)idx) : NULL;
	const char *type = ai_json_str(blk, "type");
	struct ai_buf *p;

	if (blk == NULL || type == NULL)
		return;
	p = &a->partial[idx];
	if (strcmp(type, "text") == 0 || strcmp(type, "thinking") == 0) {
		const char *was = ai_json_str(blk, type);
		struct ai_buf all = AI_BUF_INIT(AI_BUF_NOLIMIT);

		ai_buf_adds(&all, was != NULL ? was : "");
		ai_buf_add(&all, p->buf, p->len);
		cJSON_DeleteItemFromObjectCaseSensitive(blk, type);
		ai_json_addstrn(blk, type, all.buf, all.len);
		ai_buf_release(&all);
	} else if (p->len > 0) {
		struct ai_err pe = AI_ERR_INIT;
		cJSON *in = ai_json_parse(p->buf, p->len, &pe);

		if (in != NULL) {
			cJSON_DeleteItemFromObjectCaseSensitive(blk, "input");
			cJSON_AddItemToObject(blk, "input", in);
		}
	}
	ai_buf_release(p);
}

static int
block_kind(const struct answer *a, uint64_t idx)
{
	return idx < a->nblocks ? a->blocks[idx] : BLOCK_SKIP;
}

/* content_block_start: remember what the block is; a tool_use block is a new call. */
static int
block_start(const struct ask *k, struct answer *a, uint64_t idx, const cJSON *b,
    struct ai_err *e)
{
	const char *type = ai_json_str(b, "type"), *text;
	int kind = BLOCK_SKIP;

	if (idx >= 4096)
		return ai_err_set(e, AI_EXIT_PROTOCOL, "%s sent too many content blocks", a->service);
	if (type != NULL && strcmp(type, "text") == 0 && k->schema == NULL)
		kind = BLOCK_TEXT;
	else if (type != NULL && (strcmp(type, "thinking") == 0 ||
	    strcmp(type, "redacted_thinking") == 0))
		kind = BLOCK_THINK;
	else if (type != NULL && strcmp(type, "tool_use") == 0)
		kind = k->schema != NULL ? BLOCK_SCHEMA : BLOCK_TOOL;
	if (idx >= a->nblocks) {
		size_t j;

		a->blocks = ai_xrealloc(a->blocks, (size_t)idx + 1);
		memset(a->blocks + a->nblocks, BLOCK_SKIP, (size_t)idx + 1 - a->nblocks);
		a->partial = ai_xrealloc(a->partial, ((size_t)idx + 1) * sizeof(*a->partial));
		for (j = a->nblocks; j <= idx; j++)
			ai_buf_init(&a->partial[j], ASK_MAX_EVENT);
		a->nblocks = (size_t)idx + 1;
	}
	a->blocks[idx] = (signed char)kind;
	raw_start(a, idx, b);
	if (kind == BLOCK_TOOL) {
		struct call *c = answer_call(a, (long)idx);

		call_set(&c->id, ai_json_str(b, "id"));
		call_set(&c->name, ai_json_str(b, "name"));
	} else if (kind == BLOCK_TEXT && (text = ai_json_str(b, "text")) != NULL) {
		return answer_text(a, text, strlen(text), e);
	} else if (kind == BLOCK_THINK) {
		struct thought *th = answer_thought(a, (long)idx);

		if ((text = ai_json_str(b, "thinking")) != NULL)
			ai_buf_adds(&th->text, text);
		call_set(&th->sig, ai_json_str(b, "signature"));
		call_set(&th->data, ai_json_str(b, "data"));
	}
	return 0;
}

static int
event(const struct ask *k, struct answer *a, const char *sse_type, const cJSON *d,
    struct ai_err *e)
{
	const char *type = ai_json_str(d, "type");
	uint64_t idx = 0;

	if (type == NULL)
		type = sse_type != NULL ? sse_type : "";
	ai_json_u64(d, "index", &idx);
	if (strcmp(type, "content_block_delta") == 0) {
		const cJSON *delta = ai_json_get(d, "delta");
		const char *dt = ai_json_str(delta, "type"), *s;
		int kind = block_kind(a, idx);

		if (dt == NULL)
			return 0;
		raw_delta(a, idx, delta);
		if (strcmp(dt, "text_delta") == 0 && kind == BLOCK_TEXT &&
		    (s = ai_json_str(delta, "text")) != NULL)
			return answer_text(a, s, strlen(s), e);
		if (strcmp(dt, "thinking_delta") == 0 && kind == BLOCK_THINK &&
		    (s = ai_json_str(delta, "thinking")) != NULL)
			answer_reason(a, (long)idx, s, strlen(s));
		if (strcmp(dt, "signature_delta") == 0 && kind == BLOCK_THINK &&
		    (s = ai_json_str(delta, "signature")) != NULL) {
			struct thought *th = answer_thought(a, (long)idx);
			struct ai_buf sb = AI_BUF_INIT(AI_BUF_NOLIMIT);

			/* a signature may come in pieces */
			ai_buf_addf(&sb, "%s%s", th->sig ? th->sig : "", s);
			free(th->sig);
			th->sig = ai_buf_detach(&sb, NULL);
		}
		if (strcmp(dt, "input_json_delta") == 0 &&
		    (s = ai_json_str(delta, "partial_json")) != NULL) {
			if (kind == BLOCK_SCHEMA)
				return answer_text(a, s, strlen(s), e);
			if (kind == BLOCK_TOOL)
				ai_buf_adds(&answer_call(a, (long)idx)->args, s);
		}
		return 0;
	}
	if (strcmp(type, "content_block_start") == 0)
		return block_start(k, a, idx, ai_json_get(d, "content_block"), e);
	if (strcmp(type, "content_block_stop") == 0) {
		raw_stop(a, idx);
		return 0;
	}
	if (strcmp(type, "message_start") == 0) {
		const cJSON *m = ai_json_get(d, "message");
		const char *model = ai_json_str(m, "model");

		if (model != NULL)
			snprintf(a->model, sizeof(a->model), "%s", model);
		take_usage(a, ai_json_get(m, "usage"));
		return 0;
	}
	if (strcmp(type, "message_delta") == 0) {
		set_stop(a, k, ai_json_str(ai_json_get(d, "delta"), "stop_reason"));
		take_usage(a, ai_json_get(d, "usage"));
		return 0;
	}
	if (strcmp(type, "message_stop") == 0) {
		a->done = 1;
		return 0;
	}
	if (strcmp(type, "error") == 0)
		return answer_fail(a, 0, "reported an error", ai_json_get(d, "error"), e);
	return 0;
}

const struct provider provider_anthropic = {
	"anthropic", "/v1/messages", AUTH_X_API_KEY, 0, body, parse, event, NULL, NULL
};
