/*
 * execute.c: the "execute" tool, shared by the command line and --serve.
 *
 * A call is parsed and checked (nothing runs when it is refused), looked up
 * in the idempotency cache when it has a key, run, and written to the audit
 * log.  The cache is an LRU in memory for the life of the
 * process; its key is the idempotency key, the command, the file hint,
 * start, size and the policy's fingerprint.  It keeps results of commands
 * that ran (successes and stage failures), never refusals, limits or
 * timeouts, and a hit answers exactly what the first run answered, with
 * cache_hit true.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tool.h"
#include "json.h"
#include "msg.h"
#include "record.h"
#include "redact.h"
#include "text.h"
#include "util.h"
#include "banned.h"

cJSON *
x_result_record(const cJSON *id, const char *name, const struct x_result *r)
{
	cJSON *rec = x_result_head(id, name, r->ok, &r->err);

	x_json_addtext(rec, "stdout_text", r->out, r->out_len);
	x_json_addtext(rec, "stderr_text", r->errtext, r->errtext_len);
	ai_json_addnum(rec, "exit_code", r->exit_code);
	ai_json_addnum(rec, "total_bytes", (double)r->total);
	if (r->more)
		ai_json_addnum(rec, "next_start", (double)r->next);
	else
		ai_json_addnull(rec, "next_start");
	ai_json_addbool(rec, "truncated", r->more);
	ai_json_addbool(rec, "cache_hit", r->cache_hit);
	return rec;
}

static const char *const arg_names[] = {
	"command", "file", "idempotency", "start", "size", "reason", NULL
};

int
x_execute_args(const struct x_ctx *c, const cJSON *args, struct x_call *call, struct ai_err *e)
{
	uint64_t v;
	int rc;

	memset(call, 0, sizeof(*call));
	call->size = c->pol.lim.max_size < 4096 ? c->pol.lim.max_size : 4096;
	if (x_args_known(args, arg_names,
	    "execute takes command, file, idempotency, start, size and reason", e) < 0)
		return -1;
	if (x_str_arg(args, "command", &call->command, e) < 0 ||
	    x_str_arg(args, "file", &call->file, e) < 0 ||
	    x_str_arg(args, "idempotency", &call->idempotency, e) < 0 ||
	    x_str_arg(args, "reason", &call->reason, e) < 0)
		return -1;
	if (call->command == NULL)
		return ai_err_set(e, AI_EXIT_DATAERR, "argument 'command' is missing");
	call->command_len = strlen(call->command);
	rc = ai_json_u64(args, "start", &v);
	if (rc < 0)
		return ai_err_set(e, AI_EXIT_DATAERR,
		    "argument 'start' must be a whole number of bytes from 0 to 2^53");
	if (rc > 0)
		call->start = v;
	rc = ai_json_u64(args, "size", &v);
	if (rc < 0 || (rc > 0 && v == 0))
		return ai_err_set(e, AI_EXIT_DATAERR,
		    "argument 'size' must be a whole number of bytes from 1 to 2^53");
	if (rc > 0)
		call->size = v < c->pol.lim.max_size ? v : c->pol.lim.max_size;
	return 0;
}

/* ---- the cache ---- */

static char *
cache_key(const struct x_ctx *c, const struct x_call *call, size_t *len)
{
	struct ai_buf k = AI_BUF_INIT(AI_BUF_NOLIMIT);

	ai_buf_adds(&k, call->idempotency);
	ai_buf_addc(&k, '\0');
	ai_buf_add(&k, call->command, call->command_len);
	ai_buf_addc(&k, '\0');
	ai_buf_adds(&k, call->file ? call->file : "");
	ai_buf_addc(&k, call->file ? '\1' : '\0');
	ai_buf_add(&k, &call->start, sizeof(call->start));
	ai_buf_add(&k, &call->size, sizeof(call->size));
	ai_buf_add(&k, &c->pol.fingerprint, sizeof(c->pol.fingerprint));
	return ai_buf_detach(&k, len);
}

static struct x_cache_entry *
cache_find(struct x_ctx *c, const char *key, size_t len)
{
	size_t i;

	for (i = 0; i < c->ncache; i++)
		if (c->cache[i].keylen == len && memcmp(c->cache[i].key, key, len) == 0) {
			c->cache[i].used = ++c->clock;
			return &c->cache[i];
		}
	return NULL;
}

static void
cache_put(struct x_ctx *c, char *key, size_t len, const struct x_result *r)
{
	struct x_cache_entry *slot;
	size_t i;

	if (c->pol.lim.cache == 0) {
		free(key);
		return;
	}
	if (c->ncache < c->pol.lim.cache) {
		c->cache = ai_xrealloc(c->cache, (c->ncache + 1) * sizeof(*c->cache));
		slot = &c->cache[c->ncache++];
	} else {
		slot = &c->cache[0];
		for (i = 1; i < c->ncache; i++)
			if (c->cache[i].used < slot->used)
				slot = &c->cache[i];
		free(slot->key);
		x_result_free(&slot->r);
	}
	slot->key = key;
	slot->keylen = len;
	slot->used = ++c->clock;
	x_result_copy(&slot->r, r);
}

/* ---- the audit line ---- */

int
x_tool_audit(struct x_ctx *c, const struct x_call *call, const struct x_result *r, struct ai_err *e)
{
	cJSON *line, *files;
	int refused = !r->ran && !r->cache_hit ? 1 : r->err.code == AI_EXIT_POLICY;
	size_t i;

	if (c->audit.fd < 0)
		return 0;
	line = x_audit_begin("execute");
	if (call->id != NULL)
		x_json_addredacted(line, "id", call->id, strlen(call->id));
	x_json_addredacted(line, "command", call->command, call->command ? call->command_len : 0);
	x_json_addredacted(line, "reason", call->reason, call->reason ? strlen(call->reason) : 0);
	x_json_addredacted(line, "file", call->file, call->file ? strlen(call->file) : 0);
	ai_json_addbool(line, "refused", refused);
	if (refused)
		x_json_addredacted(line, "why", r->err.msg, strlen(r->err.msg));
	ai_json_addbool(line, "ok", r->ok);
	if (!r->ok)
		ai_json_addstr(line, "error_kind", x_kind(r->err.code));
	ai_json_addnum(line, "exit_code", r->exit_code);
	files = cJSON_AddArrayToObject(line, "files");
	for (i = 0; i < r->nfiles; i++)
		cJSON_AddItemToArray(files, cJSON_CreateString(c->pol.files[r->files[i]].name));
	cJSON_AddItemToObject(line, "urls", r->urls ? cJSON_Duplicate(r->urls, 1) :
	    cJSON_CreateArray());
	ai_json_addnum(line, "bytes_read", (double)r->bytes_read);
	ai_json_addnum(line, "total_bytes", (double)r->total);
	ai_json_addnum(line, "duration_ms", (double)r->duration_ms);
	ai_json_addbool(line, "cache_hit", r->cache_hit);
	return x_audit_end(&c->audit, line, e);
}

int
x_tool_execute(struct x_ctx *c, const struct x_call *call, struct x_result *r, struct ai_err *e)
{
	struct x_pipeline pl;
	struct ai_err pe = AI_ERR_INIT;
	char *key = NULL;
	size_t keylen = 0;
	int64_t t0 = ai_now_ms();

	memset(r, 0, sizeof(*r));
	if (x_parse(call->command, call->command_len, call->file, &c->pol, &pl, &pe) < 0) {
		x_result_error(r, &pe);
		r->start = call->start;
		r->duration_ms = ai_now_ms() - t0;
		return x_tool_audit(c, call, r, e);
	}
	if (call->idempotency != NULL) {
		struct x_cache_entry *hit;

		key = cache_key(c, call, &keylen);
		hit = cache_find(c, key, keylen);
		if (hit != NULL) {
			x_result_copy(r, &hit->r);
			r->cache_hit = 1;
			r->ran = 0;
			/* nothing was read or fetched this time */
			free(r->files);
			r->files = NULL;
			r->nfiles = 0;
			cJSON_Delete(r->urls);
			r->urls = NULL;
			r->bytes_read = 0;
			r->duration_ms = ai_now_ms() - t0;
			free(key);
			x_pipeline_free(&pl);
			return x_tool_audit(c, call, r, e);
		}
	}
	x_execute(&c->pol, &pl, call->start, call->size, r);
	x_pipeline_free(&pl);
	r->duration_ms = ai_now_ms() - t0;
	if (key != NULL && !r->aborted && (r->ok || r->err.code == AI_EXIT_FAIL))
		cache_put(c, key, keylen, r);
	else
		free(key);
	if (c->verbose)
		ai_error("ran in %lld ms: exit %d, %llu bytes of output, %llu bytes read",
		    (long long)r->duration_ms, r->exit_code, (unsigned long long)r->total,
		    (unsigned long long)r->bytes_read);
	return x_tool_audit(c, call, r, e);
}
