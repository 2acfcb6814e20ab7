/*
 * serve.c: ai-exec --serve.  One tool_call record per line in, one
 * tool_result record per line out, flushed, in order, until the end of the
 * input.  ai-loop keeps one server per loop, so the cache lives that long.
 *
 * Nothing a line holds can stop the server: a malformed line, a record of
 * another type, a tool it does not serve or bad arguments each get an
 * ok:false result (naming the line number for a line that is not a record)
 * and the next line is read.  Only a failure to write the results (or the
 * audit log) ends it, or an error record: an earlier tool failed, and the
 * record is passed on and ends the server with its status (aicli(7)).
 *
 * Tools are found in one table: "execute" (the command language) and "run"
 * (allowlisted programs, with --policy), each with its own arguments and
 * result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "io.h"
#include "json.h"
#include "record.h"
#include "util.h"
#include "banned.h"

#define X_MAX_CALL ((size_t)1 << 20) /* bytes in one tool_call line */

struct tool {
	const char *name;
	/* The tool_result for a call; -1 (with e) only when the server must stop. */
	int (*call)(struct x_ctx *c, const cJSON *id, const cJSON *args, cJSON **result,
	    struct ai_err *e);
};

static int
call_execute(struct x_ctx *c, const cJSON *id, const cJSON *args, cJSON **result,
    struct ai_err *e)
{
	struct x_call call;
	struct x_result r;
	struct ai_err ae = AI_ERR_INIT;
	int rc = 0;

	memset(&r, 0, sizeof(r));
	if (x_execute_args(c, args, &call, &ae) < 0) {
		x_result_error(&r, &ae);
		call.id = cJSON_IsString(id) ? id->valuestring : NULL;
		rc = x_tool_audit(c, &call, &r, e);
	} else {
		call.id = cJSON_IsString(id) ? id->valuestring : NULL;
		rc = x_tool_execute(c, &call, &r, e);
	}
	*result = x_result_record(id, "execute", &r);
	x_result_free(&r);
	return rc;
}

static int
call_run(struct x_ctx *c, const cJSON *id, const cJSON *args, cJSON **result, struct ai_err *e)
{
	struct x_runcall call;
	struct x_runres r;
	int rc = 0;

	memset(&r, 0, sizeof(r));
	if (x_run_args(args, &call, &r.err) < 0) {
		r.level = -1;
		r.decision = "refused";
		/* what could be read of the call is still shown */
		if (call.program == NULL)
			call.program = "";
	} else {
		call.id = cJSON_IsString(id) ? id->valuestring : NULL;
		rc = x_tool_run(c, &call, &r, e);
	}
	*result = x_runres_record(id, &call, &r, c->run ? c->run->tail : 0);
	x_runres_free(&r);
	free(call.args);
	return rc;
}

static const struct tool tools[] = {
	{ "execute", call_execute },
	{ "run", call_run },
	{ NULL, NULL }
};

/* An ok:false result for a line that is not a call this server answers. */
static cJSON *
refusal(const cJSON *id, const cJSON *name, int code, const char *msg)
{
	cJSON *rec = ai_record_new("tool_result");

	cJSON_AddItemToObject(rec, "id", cJSON_IsString(id) ? cJSON_Duplicate(id, 0) :
	    cJSON_CreateNull());
	cJSON_AddItemToObject(rec, "name", cJSON_IsString(name) ? cJSON_Duplicate(name, 0) :
	    cJSON_CreateNull());
	ai_json_addbool(rec, "ok", 0);
	ai_json_addstr(rec, "error", msg);
	ai_json_addstr(rec, "error_kind", x_kind(code));
	return rec;
}

/* The answer to one line; 1 (with fatal set) for an error record, which ends the serving. */
static int
answer(struct x_ctx *c, const char *line, size_t len, unsigned long lineno, cJSON **out,
    struct ai_err *fatal)
{
	struct ai_err e = AI_ERR_INIT;
	const cJSON *id, *name, *args;
	const struct tool *t;
	const char *type;
	char msg[AI_ERR_MSG_MAX + 64];
	cJSON *rec;
	int rc;

	rec = ai_record_parse(line, len, lineno, &e);
	if (rec == NULL) {
		*out = refusal(NULL, NULL, AI_EXIT_DATAERR, e.msg);
		return 0;
	}
	if (ai_record_upstream(rec, fatal)) {
		/* an earlier tool failed: the server passes it on and stops */
		cJSON_Delete(rec);
		return 1;
	}
	id = ai_json_get(rec, "id");
	name = ai_json_get(rec, "name");
	type = ai_record_type(rec);
	if (strcmp(type, "tool_call") != 0) {
		char ex[64];

		ai_excerpt(type, strlen(type), ex, sizeof(ex));
		snprintf(msg, sizeof(msg), "line %lu: a '%s' record is not a tool call", lineno, ex);
		*out = refusal(id, name, AI_EXIT_DATAERR, msg);
		cJSON_Delete(rec);
		return 0;
	}
	if (!cJSON_IsString(name)) {
		snprintf(msg, sizeof(msg), "line %lu: the tool call has no string \"name\"", lineno);
		*out = refusal(id, name, AI_EXIT_DATAERR, msg);
		cJSON_Delete(rec);
		return 0;
	}
	for (t = tools; t->name != NULL; t++)
		if (strcmp(t->name, name->valuestring) == 0)
			break;
	if (t->name == NULL) {
		char ex[64];

		ai_excerpt(name->valuestring, strlen(name->valuestring), ex, sizeof(ex));
		snprintf(msg, sizeof(msg), "line %lu: tool '%s' is not served by ai-exec (it serves: "
		    "execute, run)", lineno, ex);
		*out = refusal(id, name, AI_EXIT_UNAVAILABLE, msg);
		cJSON_Delete(rec);
		return 0;
	}
	args = ai_json_get(rec, "arguments");
	{
		/* a call without a string id is answered with "id": null */
		cJSON *nullid = cJSON_CreateNull();

		rc = t->call(c, cJSON_IsString(id) ? id : nullid, args, out, fatal);
		cJSON_Delete(nullid);
	}
	cJSON_Delete(rec);
	return rc;
}

int
x_serve(struct x_ctx *c, int fd, struct ai_err *e)
{
	struct ai_reader rd;
	int rc = 0;

	ai_reader_init(&rd, fd, X_MAX_CALL, "standard input");
	for (;;) {
		const char *line;
		size_t len;
		cJSON *out = NULL;
		int r = ai_reader_next(&rd, &line, &len, e);

		if (r == 0)
			break;
		if (r < 0) {
			char msg[AI_ERR_MSG_MAX];

			if (e->code != AI_EXIT_DATAERR) {
				rc = -1;
				break;
			}
			/* a line over the limit: answered, then skipped */
			snprintf(msg, sizeof(msg), "%s", e->msg);
			ai_err_clear(e);
			out = refusal(NULL, NULL, AI_EXIT_DATAERR, msg);
			rc = x_record_write(out, e);
			cJSON_Delete(out);
			if (rc < 0 || ai_reader_skip_line(&rd, e) < 0) {
				rc = -1;
				break;
			}
			continue;
		}
		if (ai_line_is_blank(line, len))
			continue;
		if ((r = answer(c, line, len, rd.lineno, &out, e)) != 0) {
			cJSON_Delete(out);
			rc = r > 0 ? ai_error_pass(line, len, 1, e) : -1;
			break;
		}
		rc = x_record_write(out, e);
		cJSON_Delete(out);
		if (rc < 0)
			break;
	}
	ai_reader_release(&rd);
	return rc;
}
