/*
 * conv.c: the input, records and text, as one provider-neutral conversation.
 *
 * Records map onto turns: a user or assistant message is a turn of its own;
 * system messages and summaries join the system context; tool_call and
 * tool_result records are the calls and their results, paired by id;
 * search_result records become one user turn listing numbered sources.
 * Other record types (usage, delta, error...) carry nothing for the model
 * and are skipped.  An empty message is skipped too: providers reject empty
 * text, and an assistant turn that only called tools is its tool_call
 * records.
 */
#include <stdlib.h>
#include <string.h>

#include "ask.h"
#include "json.h"
#include "record.h"
#include "util.h"
#include "banned.h"

void
conv_init(struct conv *c)
{
	memset(c, 0, sizeof(*c));
	ai_buf_init(&c->system, AI_BUF_NOLIMIT);
}

void
conv_free(struct conv *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		free(c->t[i].text);
		free(c->t[i].id);
		free(c->t[i].name);
		free(c->t[i].sig);
		free(c->t[i].data);
		free(c->t[i].provider);
		cJSON_Delete(c->t[i].args);
	}
	free(c->t);
	ai_buf_release(&c->system);
	memset(c, 0, sizeof(*c));
}

static struct turn *
add_turn(struct conv *c, int kind, const char *src, unsigned long line)
{
	struct turn *t;

	if (c->n == c->alloc) {
		c->alloc = c->alloc ? 2 * c->alloc : 16;
		c->t = ai_xrealloc(c->t, c->alloc * sizeof(*c->t));
	}
	t = &c->t[c->n++];
	memset(t, 0, sizeof(*t));
	t->kind = kind;
	t->src = src;
	t->line = line;
	return t;
}

/* A part of the system context, its trailing blank lines dropped. */
void
conv_add_system(struct conv *c, const char *text, size_t n)
{
	while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' ' ||
	    text[n - 1] == '\t'))
		n--;
	if (n == 0)
		return;
	if (c->system.len > 0)
		ai_buf_adds(&c->system, "\n\n");
	ai_buf_add(&c->system, text, n);
}

void
conv_add_user(struct conv *c, const char *text, size_t n)
{
	if (n > 0)
		add_turn(c, TURN_USER, NULL, 0)->text = ai_xmemdup(text, n);
}

void
conv_add_raw(struct conv *c, cJSON *raw)
{
	add_turn(c, TURN_RAW, NULL, 0)->args = raw;
}

/* A string member that must be there and not empty. */
static const char *
need_str(const cJSON *rec, const char *key, const char *type, struct ai_err *e)
{
	const char *s = ai_json_str(rec, key);

	if (s == NULL || *s == '\0')
		ai_err_set(e, AI_EXIT_DATAERR, "%s needs a non-empty string \"%s\"", type, key);
	return s && *s ? s : NULL;
}

static int
add_message(struct conv *c, const cJSON *rec, const char *src, unsigned long line,
    struct ai_err *e)
{
	const char *role = need_str(rec, "role", "message", e);
	const cJSON *content = ai_json_get(rec, "content");
	size_t n;

	if (role == NULL)
		return -1;
	if (!cJSON_IsString(content))
		return ai_err_set(e, AI_EXIT_DATAERR, "message needs a string \"content\"");
	n = strlen(content->valuestring);
	if (strcmp(role, "system") == 0)
		conv_add_system(c, content->valuestring, n);
	else if (strcmp(role, "user") == 0 || strcmp(role, "assistant") == 0) {
		if (n > 0)
			add_turn(c, role[0] == 'u' ? TURN_USER : TURN_ASSISTANT, src, line)->text =
			    ai_xstrdup(content->valuestring);
	} else
		return ai_err_set(e, AI_EXIT_DATAERR,
		    "message role must be \"system\", \"user\" or \"assistant\", not \"%.40s\"", role);
	return 0;
}

static int
add_call(struct conv *c, const cJSON *rec, const char *src, unsigned long line, struct ai_err *e)
{
	const char *id = need_str(rec, "id", "tool_call", e), *name;
	const cJSON *args = ai_json_get(rec, "arguments");
	struct turn *t;

	if (id == NULL || (name = need_str(rec, "name", "tool_call", e)) == NULL)
		return -1;
	if (args != NULL && !cJSON_IsObject(args))
		return ai_err_set(e, AI_EXIT_DATAERR, "tool_call \"arguments\" must be a JSON object");
	t = add_turn(c, TURN_CALL, src, line);
	t->id = ai_xstrdup(id);
	t->name = ai_xstrdup(name);
	if (ai_json_str(rec, "signature") != NULL)
		t->sig = ai_xstrdup(ai_json_str(rec, "signature"));
	t->args = args ? cJSON_Duplicate(args, 1) : cJSON_CreateObject();
	return 0;
}

/* The model reads a result as the record's members other than type, id and name. */
static int
add_result(struct conv *c, const cJSON *rec, const char *src, unsigned long line,
    struct ai_err *e)
{
	const char *id = need_str(rec, "id", "tool_result", e), *name;
	cJSON *body;
	struct turn *t;
	int ok;

	if (id == NULL)
		return -1;
	name = ai_json_str(rec, "name");
	if ((ok = ai_json_bool(rec, "ok", 1)) < 0)
		return ai_err_set(e, AI_EXIT_DATAERR, "tool_result \"ok\" must be true or false");
	body = cJSON_Duplicate(rec, 1);
	cJSON_DeleteItemFromObjectCaseSensitive(body, "type");
	cJSON_DeleteItemFromObjectCaseSensitive(body, "id");
	cJSON_DeleteItemFromObjectCaseSensitive(body, "name");
	t = add_turn(c, TURN_RESULT, src, line);
	t->id = ai_xstrdup(id);
	t->name = name && *name ? ai_xstrdup(name) : NULL;
	t->text = ai_json_print(body);
	t->failed = !ok;
	cJSON_Delete(body);
	return 0;
}

/*
 * What a model reasoned in: only its own provider can take it back (and
 * only Anthropic's signed thinking is sent back); the others skip it.
 */
static int
add_reasoning(struct conv *c, const cJSON *rec, const char *src, unsigned long line,
    struct ai_err *e)
{
	const char *text = ai_json_str(rec, "text"), *prov = ai_json_str(rec, "provider");
	const char *sig = ai_json_str(rec, "signature"), *data = ai_json_str(rec, "data");
	struct turn *t;

	if ((ai_json_get(rec, "text") != NULL && text == NULL) ||
	    (ai_json_get(rec, "signature") != NULL && sig == NULL) ||
	    (ai_json_get(rec, "data") != NULL && data == NULL))
		return ai_err_set(e, AI_EXIT_DATAERR,
		    "reasoning \"text\", \"signature\" and \"data\" must be strings");
	t = add_turn(c, TURN_REASONING, src, line);
	t->text = ai_xstrdup(text ? text : "");
	t->provider = ai_xstrdup(prov ? prov : "");
	t->sig = sig ? ai_xstrdup(sig) : NULL;
	t->data = data ? ai_xstrdup(data) : NULL;
	return 0;
}

/* A summary is system context: its text, then its facts and open tasks as lists. */
static int
add_summary(struct conv *c, const cJSON *rec, struct ai_err *e)
{
	static const char *const lists[] = { "key_facts", "Key facts:", "open_tasks", "Open tasks:" };
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	const char *content = ai_json_str(rec, "content");
	size_t i;

	if (content == NULL)
		return ai_err_set(e, AI_EXIT_DATAERR, "summary needs a string \"content\"");
	ai_buf_adds(&b, "Summary of the earlier conversation:\n");
	ai_buf_adds(&b, content);
	for (i = 0; i < AI_ARRAY_SIZE(lists); i += 2) {
		const cJSON *l = ai_json_get(rec, lists[i]), *it;

		if (l == NULL || cJSON_IsNull(l))
			continue;
		if (!cJSON_IsArray(l)) {
			ai_buf_release(&b);
			return ai_err_set(e, AI_EXIT_DATAERR, "summary \"%s\" must be an array of strings",
			    lists[i]);
		}
		if (cJSON_GetArraySize(l) == 0)
			continue;
		ai_buf_addf(&b, "\n\n%s", lists[i + 1]);
		cJSON_ArrayForEach(it, l) {
			if (!cJSON_IsString(it)) {
				ai_buf_release(&b);
				return ai_err_set(e, AI_EXIT_DATAERR,
				    "summary \"%s\" must be an array of strings", lists[i]);
			}
			ai_buf_addf(&b, "\n- %s", it->valuestring);
		}
	}
	conv_add_system(c, b.buf, b.len);
	ai_buf_release(&b);
	return 0;
}

/*
 * Search results, in a row, become one user turn: a SEARCH_RESULTS
 * block, numbered across the whole conversation so that a number cites one
 * source only.
 */
static int
add_source(struct conv *c, const cJSON *rec, int continues, const char *src, unsigned long line,
    struct ai_err *e)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	const char *url = need_str(rec, "url", "search_result", e);
	const char *title = ai_json_str(rec, "title"), *snippet = ai_json_str(rec, "snippet");
	const char *query = ai_json_str(rec, "query"), *date = ai_json_str(rec, "date");
	struct turn *t;

	if (url == NULL)
		return -1;
	if (continues) {
		t = &c->t[c->n - 1];
		ai_buf_adds(&b, t->text);
		free(t->text);
		ai_buf_adds(&b, "\n\n");
	} else {
		t = add_turn(c, TURN_USER, src, line);
		t->sources = 1;
		ai_buf_adds(&b, "SEARCH_RESULTS (web search results; cite them by number and URL):\n\n");
		if (query != NULL && *query)
			ai_buf_addf(&b, "Query: %s\n\n", query);
	}
	ai_buf_addf(&b, "[%u] %s\nURL: %s", ++c->nsources, title && *title ? title : url, url);
	if (date != NULL && *date)
		ai_buf_addf(&b, "\nDate: %s", date);
	if (snippet != NULL && *snippet)
		ai_buf_addf(&b, "\n%s", snippet);
	t->text = ai_buf_detach(&b, NULL);
	return 0;
}

int
conv_add_records(struct conv *c, const char *data, size_t len, const char *src,
    struct ai_err *e)
{
	const char *p = data, *end = data + len;
	unsigned long line = 0;
	int in_sources = 0;

	while (p < end) {
		const char *lf = memchr(p, '\n', (size_t)(end - p));
		size_t n = lf ? (size_t)(lf - p) : (size_t)(end - p);
		const char *type;
		cJSON *rec;
		int rc = 0, was_sources = in_sources;

		line++;
		if (n > 0 && p[n - 1] == '\r')
			n--;
		if (ai_line_is_blank(p, n)) {
			p = lf ? lf + 1 : end;
			continue;
		}
		rec = ai_record_parse(p, n, line, e);
		if (rec == NULL) {
			ai_err_prefix(e, "%s", src);
			return -1;
		}
		type = ai_record_type(rec);
		in_sources = 0;
		if (strcmp(type, "message") == 0)
			rc = add_message(c, rec, src, line, e);
		else if (strcmp(type, "tool_call") == 0)
			rc = add_call(c, rec, src, line, e);
		else if (strcmp(type, "tool_result") == 0)
			rc = add_result(c, rec, src, line, e);
		else if (strcmp(type, "summary") == 0)
			rc = add_summary(c, rec, e);
		else if (strcmp(type, "reasoning") == 0)
			rc = add_reasoning(c, rec, src, line, e);
		else if (strcmp(type, "search_result") == 0) {
			rc = add_source(c, rec, was_sources, src, line, e);
			in_sources = 1;
		}
		cJSON_Delete(rec);
		if (rc < 0) {
			ai_err_prefix(e, "%s: line %lu", src, line);
			return -1;
		}
		p = lf ? lf + 1 : end;
	}
	return 0;
}

/* "standard input, line 3" or "" for turns that come from the command line. */
static const char *
where(const struct turn *t, char *buf, size_t n)
{
	if (t->src == NULL)
		snprintf(buf, n, "%s", "");
	else
		snprintf(buf, n, " (%s, line %lu)", t->src, t->line);
	return buf;
}

/*
 * Providers reject a call without its result and a result without its call:
 * after a group of calls come the results of all of them, before any other
 * turn.  A result without a name takes its call's.
 */
static int
group_answered(const struct conv *c, size_t gs, size_t ge, const char *answered,
    struct ai_err *e)
{
	char w[300];
	size_t j;

	for (j = gs; j < ge; j++)
		if (!answered[j])
			return ai_err_set(e, AI_EXIT_DATAERR, "tool_call '%.100s'%s has no tool_result",
			    c->t[j].id, where(&c->t[j], w, sizeof(w)));
	return 0;
}

int
conv_check(struct conv *c, struct ai_err *e)
{
	size_t i, j, gs = 0, ge = 0;
	char *answered, w[300];
	int rc = 0;

	if (c->n == 0)
		return ai_err_set(e, AI_EXIT_USAGE,
		    "nothing to ask: give a PROMPT, or input on standard input");
	answered = ai_xcalloc(c->n, 1);
	for (i = 0; i < c->n && rc == 0; i++) {
		struct turn *t = &c->t[i];

		if (t->kind == TURN_CALL) {
			if (ge == i && ge > gs) {
				ge++;
				continue;
			}
			rc = group_answered(c, gs, ge, answered, e);
			gs = i;
			ge = i + 1;
		} else if (t->kind == TURN_RESULT) {
			for (j = gs; j < ge; j++)
				if (!answered[j] && strcmp(c->t[j].id, t->id) == 0)
					break;
			if (j == ge) {
				rc = ai_err_set(e, AI_EXIT_DATAERR,
				    "tool_result '%.100s'%s answers no tool_call just before it", t->id,
				    where(t, w, sizeof(w)));
				break;
			}
			answered[j] = 1;
			if (t->name == NULL)
				t->name = ai_xstrdup(c->t[j].name);
		} else {
			rc = group_answered(c, gs, ge, answered, e);
			gs = ge = 0;
		}
	}
	if (rc == 0)
		rc = group_answered(c, gs, ge, answered, e);
	free(answered);
	if (rc == 0 && c->t[c->n - 1].kind == TURN_ASSISTANT)
		rc = ai_err_set(e, AI_EXIT_USAGE,
		    "nothing to ask: the conversation ends with an answer; give a PROMPT");
	return rc;
}
