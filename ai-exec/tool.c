/*
 * tool.c: what the execute and run tools share: the context's end, the
 * reading of a call's arguments, the head of every tool_result, the names
 * of error kinds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "json.h"
#include "record.h"
#include "text.h"
#include "util.h"
#include "banned.h"

const char *
x_kind(int code)
{
	switch (code) {
	case AI_EXIT_USAGE:
	case AI_EXIT_DATAERR:
		return "usage";
	case AI_EXIT_POLICY:
		return "policy";
	case AI_EXIT_LIMIT:
		return "limit";
	case AI_EXIT_TEMPFAIL:
		return "timeout";
	case AI_EXIT_UNAVAILABLE:
	case AI_EXIT_CONFIG:
		return "unavailable";
	default:
		return "execution";
	}
}

cJSON *
x_result_head(const cJSON *id, const char *name, int ok, const struct ai_err *err)
{
	cJSON *rec = ai_record_new("tool_result");

	if (id != NULL)
		cJSON_AddItemToObject(rec, "id", cJSON_Duplicate(id, 1));
	ai_json_addstr(rec, "name", name);
	ai_json_addbool(rec, "ok", ok);
	if (!ok) {
		char msg[AI_ERR_MSG_MAX];

		/* one line, as aicli(7) says */
		snprintf(msg, sizeof(msg), "%s", err->msg);
		msg[strcspn(msg, "\n")] = '\0';
		x_json_addtext(rec, "error", msg, strlen(msg));
		ai_json_addstr(rec, "error_kind", x_kind(err->code));
	}
	return rec;
}

int
x_str_arg(const cJSON *args, const char *key, const char **out, struct ai_err *e)
{
	const cJSON *v = ai_json_get(args, key);

	*out = NULL;
	if (v == NULL || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v))
		return ai_err_set(e, AI_EXIT_DATAERR, "argument '%s' must be a string", key);
	*out = v->valuestring;
	return 1;
}

int
x_args_known(const cJSON *args, const char *const *names, const char *takes, struct ai_err *e)
{
	const cJSON *m;

	if (!cJSON_IsObject(args))
		return ai_err_set(e, AI_EXIT_DATAERR, "the arguments must be a JSON object");
	cJSON_ArrayForEach(m, args) {
		size_t i;

		for (i = 0; names[i] != NULL; i++)
			if (strcmp(m->string, names[i]) == 0)
				break;
		if (names[i] == NULL) {
			char ex[64];

			ai_excerpt(m->string, strlen(m->string), ex, sizeof(ex));
			return ai_err_set(e, AI_EXIT_DATAERR, "unknown argument '%s' (%s)", ex, takes);
		}
	}
	return 0;
}

int
x_record_write(cJSON *rec, struct ai_err *e)
{
	ai_json_redact(rec);
	return ai_record_write(stdout, rec, e);
}

void
x_ctx_free(struct x_ctx *c)
{
	size_t i;

	for (i = 0; i < c->ncache; i++) {
		free(c->cache[i].key);
		x_result_free(&c->cache[i].r);
	}
	free(c->cache);
	c->cache = NULL;
	c->ncache = 0;
	x_audit_close(&c->audit);
	x_policy_free(&c->pol);
	if (c->progs != NULL)
		x_progs_free(c->progs);
	free(c->progs);
	c->progs = NULL;
	if (c->sandbox != NULL)
		x_sandbox_free(c->sandbox);
	free(c->sandbox);
	c->sandbox = NULL;
	if (c->run != NULL)
		free((char *)c->run->root);
	free(c->run);
	c->run = NULL;
}
