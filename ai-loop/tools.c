/*
 * tools.c: the tools the model is offered, and where its calls go.
 *
 * "execute" (and "run", with a policy) go to ai-exec --serve servers that
 * live as long as the loop, each answering its calls in order, as many as a
 * step's calls need to run at the same time; each "web_search" is an
 * ai-search of its own.  The calls of one step run concurrently, all from
 * the poll loop of child.c, and their results are emitted in the order of
 * the calls.
 *
 * The declarations reach ai-ask as a file that never touches a disk: a
 * sealed memfd, named by its /proc/PID/fd path, gone when ai-loop ends
 * however it ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io.h"
#include "json.h"
#include "loop.h"
#include "msg.h"
#include "record.h"
#include "util.h"
#include "banned.h"

#define SEARCH_COUNT_MAX 10
/* bytes of one call's arguments, as JSON: far above any tool's, far below a line's cap */
#define MAX_CALL_ARGS ((size_t)256 << 10)
#define SEARCH_COUNT_DEFAULT 5
/* how long ai-exec may take to say it is ready */
#define READY_MS 10000

static const char decide_schema[] =
	"{\"type\":\"object\",\"properties\":{\"search\":{\"type\":\"boolean\"},"
	"\"query\":{\"type\":\"string\"}},\"required\":[\"search\",\"query\"],"
	"\"additionalProperties\":false}\n";

static void
add_prop(cJSON *props, const char *name, const char *type, const char *desc)
{
	cJSON *p = cJSON_AddObjectToObject(props, name);

	ai_json_addstr(p, "type", type);
	if (desc != NULL)
		ai_json_addstr(p, "description", desc);
}

/* An optional argument that may also be null. */
static void
add_nullable(cJSON *props, const char *name, const char *type, const char *desc)
{
	cJSON *p = cJSON_AddObjectToObject(props, name), *t = cJSON_CreateArray();

	cJSON_AddItemToArray(t, cJSON_CreateString(type));
	cJSON_AddItemToArray(t, cJSON_CreateString("null"));
	cJSON_AddItemToObject(p, "type", t);
	ai_json_addstr(p, "description", desc);
}

static cJSON *
declare(cJSON *tools, const char *name, const char *desc, cJSON **props)
{
	cJSON *t = cJSON_CreateObject(), *params;

	ai_json_addstr(t, "name", name);
	ai_json_addstr(t, "description", desc);
	params = cJSON_AddObjectToObject(t, "parameters");
	ai_json_addstr(params, "type", "object");
	*props = cJSON_AddObjectToObject(params, "properties");
	cJSON_AddItemToArray(tools, t);
	return params;
}

static void
require(cJSON *params, const char *name)
{
	cJSON *r = cJSON_CreateArray();

	cJSON_AddItemToArray(r, cJSON_CreateString(name));
	cJSON_AddItemToObject(params, "required", r);
}

static void
add_list(struct ai_buf *b, const struct ai_strlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		ai_buf_addf(b, "%s%s", i ? ", " : "", l->v[i]);
	if (l->n == 0)
		ai_buf_adds(b, "none");
}

/* execute, with the files and URL prefixes the user listed. */
static void
declare_execute(cJSON *tools, const struct lopts *o)
{
	struct ai_buf d = AI_BUF_INIT(AI_BUF_NOLIMIT);
	cJSON *props, *params;

	ai_buf_adds(&d, "Run a read-only command and get one page of its output. A command is "
	    "built-ins joined by '|', with GNU's options and output (C locale): cat, nl, head, "
	    "tail, wc, sort, uniq, cut, grep (basic regular expressions as in GNU grep, -E "
	    "extended, -F fixed), jq (1.6), and curl URL (GET). There is no shell: no other programs, "
	    "no redirections, no variables, nothing is written; quote words with blanks in single "
	    "quotes. Files it can read: ");
	add_list(&d, &o->files);
	ai_buf_adds(&d, ". URLs curl can fetch: those under ");
	add_list(&d, &o->urls);
	ai_buf_adds(&d, ". The result has stdout_text (at most size bytes from byte start), "
	    "stderr_text, exit_code, total_bytes and next_start: call again with start = "
	    "next_start for the rest.");
	params = declare(tools, "execute", d.buf, &props);
	add_prop(props, "command", "string",
	    "the command, such as: grep -n TODO notes.md | head -n 20");
	add_prop(props, "file", "string", "the listed file the command reads (a hint)");
	add_prop(props, "idempotency", "string",
	    "a key: the same call with the same key is answered from the cache");
	add_prop(props, "start", "integer", "the first byte of the output to return (default 0)");
	add_prop(props, "size", "integer", "how many bytes to return (default and at most 4096)");
	add_prop(props, "reason", "string", "why you run it, for the audit log");
	require(params, "command");
	ai_json_addbool(params, "additionalProperties", 0);
	ai_buf_release(&d);
}

static void
declare_search(cJSON *tools)
{
	cJSON *props, *params;

	params = declare(tools, "web_search", "Search the web. The results have rank, title, url, "
	    "snippet and date (when known); cite the URLs you use.", &props);
	add_prop(props, "query", "string", "the search query");
	add_prop(props, "count", "integer", "how many results, 1 to 10 (default 5)");
	require(params, "query");
	ai_json_addbool(params, "additionalProperties", 0);
}

/*
 * run: only with a policy, which ai-exec enforces; the schema is
 * the one ai-exec(1) gives for it.
 */
static void
declare_run(cJSON *tools)
{
	cJSON *props, *params, *args, *req;

	params = declare(tools, "run", "Run an allowed program with literal arguments (never "
	    "through a shell). The policy decides what may run; a refusal names the rule that "
	    "matched. The result has the exit code, the tails of its output and, for known "
	    "outputs, a parsed form.", &props);
	add_prop(props, "program", "string", "the program, such as git or ls");
	args = cJSON_AddObjectToObject(props, "args");
	ai_json_addstr(args, "type", "array");
	ai_json_addstr(cJSON_AddObjectToObject(args, "items"), "type", "string");
	ai_json_addstr(args, "description", "its arguments, each one literal");
	add_nullable(props, "cwd", "string", "the directory to run it in, inside the root");
	add_nullable(props, "reason", "string", "why you run it, for the audit log");
	add_nullable(props, "timeout", "number", "seconds it may take");
	req = cJSON_CreateArray();
	cJSON_AddItemToArray(req, cJSON_CreateString("program"));
	cJSON_AddItemToArray(req, cJSON_CreateString("args"));
	cJSON_AddItemToObject(params, "required", req);
	ai_json_addbool(params, "additionalProperties", 0);
}

static int
offers_execute(const struct lopts *o)
{
	return o->files.n > 0 || o->urls.n > 0;
}

int
tools_offered(const struct loop *L)
{
	return offers_execute(L->o) || L->o->policy != NULL || L->o->search;
}

int
tools_setup(struct loop *L, struct ai_err *e)
{
	cJSON *tools = cJSON_CreateArray();
	char *text;
	int rc = 0;

	L->tools_fd = L->schema_fd = -1;
	if (offers_execute(L->o))
		declare_execute(tools, L->o);
	if (L->o->policy != NULL)
		declare_run(tools);
	if (L->o->search)
		declare_search(tools);
	if (cJSON_GetArraySize(tools) > 0) {
		text = ai_json_print(tools);
		L->tools_fd = ai_sealed_file("ai-loop-tools", text, strlen(text), L->tools_path,
		    sizeof(L->tools_path), e);
		free(text);
		rc = L->tools_fd < 0 ? -1 : 0;
	}
	cJSON_Delete(tools);
	if (rc == 0 && L->o->auto_search) {
		L->schema_fd = ai_sealed_file("ai-loop-schema", decide_schema,
		    sizeof(decide_schema) - 1, L->schema_path, sizeof(L->schema_path), e);
		rc = L->schema_fd < 0 ? -1 : 0;
	}
	return rc;
}

/* ---- the calls as they come ---- */

static int
id_used(const struct loop *L, const char *id)
{
	size_t i;

	for (i = 0; i < L->nids; i++)
		if (strcmp(L->ids[i], id) == 0)
			return 1;
	return 0;
}

static void
id_add(struct loop *L, const char *id)
{
	L->ids = ai_xrealloc(L->ids, (L->nids + 1) * sizeof(*L->ids));
	L->ids[L->nids++] = ai_xstrdup(id);
}

void
tools_seen(struct loop *L, const char *p, size_t n)
{
	const char *end = p + n;

	while (p < end) {
		const char *lf = memchr(p, '\n', (size_t)(end - p));
		size_t len = lf ? (size_t)(lf - p) : (size_t)(end - p);
		struct ai_err e = AI_ERR_INIT;
		cJSON *rec = ai_json_parse(p, len, &e);
		const char *id = ai_json_str(rec, "id");

		if (rec != NULL && strcmp(ai_record_type(rec), "tool_call") == 0 && id != NULL &&
		    !id_used(L, id))
			id_add(L, id);
		cJSON_Delete(rec);
		p += len + (lf != NULL);
	}
}

static void
set_bad(struct call *c, const char *fmt, ...) AI_PRINTF(2, 3);

static void
set_bad(struct call *c, const char *fmt, ...)
{
	char msg[AI_ERR_MSG_MAX];
	va_list ap;

	if (c->bad != NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->bad = ai_xstrdup(msg);
}

void
tools_accept(struct loop *L, struct call *c, int *changed)
{
	const cJSON *id = ai_json_get(c->rec, "id"), *text = ai_json_get(c->rec, "arguments_text");
	cJSON *args = cJSON_GetObjectItemCaseSensitive(c->rec, "arguments");
	char ex[96];

	*changed = 0;
	c->name = ai_json_str(c->rec, "name");
	if (!cJSON_IsString(id) || id->valuestring[0] == '\0' || id_used(L, id->valuestring)) {
		/* one of its own, so that its result pairs with it alone */
		char fresh[64];
		unsigned k = 1;

		do
			snprintf(fresh, sizeof(fresh), "ai-loop-%lu-%u", L->steps, k++);
		while (id_used(L, fresh));
		if (!cJSON_IsString(id) || id->valuestring[0] == '\0')
			set_bad(c, "the call has no id: each call needs one of its own (this one "
			    "is now '%s'); call the tool again", fresh);
		else
			set_bad(c, "the call's id '%s' is an earlier call's: each call needs one "
			    "of its own (this one is now '%s'); call the tool again",
			    ai_excerpt(id->valuestring, strlen(id->valuestring), ex, sizeof(ex)),
			    fresh);
		cJSON_DeleteItemFromObjectCaseSensitive(c->rec, "id");
		ai_json_addstr(c->rec, "id", fresh);
		*changed = 1;
	}
	c->id = ai_json_str(c->rec, "id");
	id_add(L, c->id);
	if (cJSON_IsString(text)) {
		set_bad(c, "the arguments are not a JSON object: '%s'; call the tool again with "
		    "an object", ai_excerpt(text->valuestring, strlen(text->valuestring), ex,
		    sizeof(ex)));
		if (strlen(text->valuestring) > MAX_CALL_ARGS) {
			/* the conversation does not carry it to every later step */
			cJSON_DeleteItemFromObjectCaseSensitive(c->rec, "arguments_text");
			*changed = 1;
		}
	} else if (!cJSON_IsObject(args)) {
		set_bad(c, "the arguments are not a JSON object; call the tool again with an "
		    "object");
		cJSON_DeleteItemFromObjectCaseSensitive(c->rec, "arguments");
		cJSON_AddItemToObject(c->rec, "arguments", cJSON_CreateObject());
		*changed = 1;
	} else {
		char *t = ai_json_print(args);
		size_t n = strlen(t);

		free(t);
		if (n > MAX_CALL_ARGS) {
			set_bad(c, "the arguments are %zu bytes: at most %zu; call the tool again "
			    "with less", n, MAX_CALL_ARGS);
			/* the conversation does not carry them to every later step */
			cJSON_DeleteItemFromObjectCaseSensitive(c->rec, "arguments");
			cJSON_AddItemToObject(c->rec, "arguments", cJSON_CreateObject());
			*changed = 1;
		}
	}
}

/* ---- results ---- */

static char *
print_rec(cJSON *rec)
{
	char *s = ai_json_print(rec);

	cJSON_Delete(rec);
	return s;
}

/* An ok:false tool_result for a call. */
static char *
error_result(const struct call *c, const char *kind, const char *fmt, ...) AI_PRINTF(3, 4);

static char *
error_result(const struct call *c, const char *kind, const char *fmt, ...)
{
	cJSON *rec = ai_record_new("tool_result");
	char msg[AI_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ai_json_addstr(rec, "id", c->id);
	ai_json_addstr(rec, "name", c->name);
	ai_json_addbool(rec, "ok", 0);
	ai_json_addstr(rec, "error", msg);
	ai_json_addstr(rec, "error_kind", kind);
	return print_rec(rec);
}

/* The error_kind of a child's exit status, as aicli(7) and ai-exec(1) map them. */
static const char *
kind_of(int code, int timed_out)
{
	if (timed_out || code == AI_EXIT_TEMPFAIL)
		return "timeout";
	switch (code) {
	case AI_EXIT_USAGE: case AI_EXIT_DATAERR:
		return "usage";
	case AI_EXIT_POLICY:
		return "policy";
	case AI_EXIT_LIMIT:
		return "limit";
	case AI_EXIT_FAIL:
		return "execution";
	default:
		return "unavailable";
	}
}

/* A warning about a tool that fails, once per distinct message. */
static void
warn_once(struct loop *L, const char *msg)
{
	size_t i;

	for (i = 0; i < L->nwarned; i++)
		if (strcmp(L->warned[i], msg) == 0)
			return;
	L->warned = ai_xrealloc(L->warned, (L->nwarned + 1) * sizeof(*L->warned));
	L->warned[L->nwarned++] = ai_xstrdup(msg);
	ai_warn("%s", msg);
}

/* ---- ai-exec --serve ---- */

/*
 * The time ai-exec may take to answer one call: --tool-timeout, which it
 * keeps to itself (a run's own timeout is at most that), and a margin.
 */
static int64_t
call_allowance(const struct loop *L)
{
	return (int64_t)(L->o->tool_timeout * 1100) + 2000;
}

static int
srv_line(struct job *j, const char *line, size_t len, struct ai_err *e)
{
	struct server *sv = j->ctx;
	cJSON *rec;
	const char *id;
	struct call *c;

	if (job_record(j, line, len, &rec, e) < 0)
		return -1;
	if (rec == NULL)
		return 0;
	if (strcmp(ai_record_type(rec), "tool_result") != 0) {
		cJSON_Delete(rec);
		return ai_err_set(e, AI_EXIT_PROTOCOL, "'%s' wrote a record that is not a "
		    "tool_result (line %lu)", j->name, j->out.lineno);
	}
	if (!sv->ready) {
		/* the answer to the hello */
		sv->ready = 1;
		cJSON_Delete(rec);
		return 0;
	}
	id = ai_json_str(rec, "id");
	if (sv->head == sv->n) {
		cJSON_Delete(rec);
		return ai_err_set(e, AI_EXIT_PROTOCOL, "'%s' answered a call it was not given "
		    "(line %lu)", j->name, j->out.lineno);
	}
	c = sv->wait[sv->head];
	if (id == NULL || strcmp(id, c->id) != 0) {
		ai_err_set(e, AI_EXIT_PROTOCOL, "'%s' answered call '%s' where '%s' was due "
		    "(line %lu)", j->name, id ? id : "null", c->id, j->out.lineno);
		cJSON_Delete(rec);
		return -1;
	}
	cJSON_Delete(rec);
	c->result = ai_xmemdup(line, len);
	c->ms = ai_now_ms() - c->t0;
	sv->head++;
	sv->answered++;
	j->deadline = sv->head < sv->n ? ai_now_ms() + call_allowance(sv->L) : -1;
	return 0;
}

/* The pool: room for as many servers as a step may run calls at once. */
static void
pool_init(struct loop *L)
{
	size_t i, cap = (size_t)L->o->max_actions;

	if (L->srv != NULL)
		return;
	L->srv = ai_xcalloc(cap, sizeof(*L->srv));
	for (i = 0; i < cap; i++) {
		L->srv[i].L = L;
		L->srv[i].wait = ai_xcalloc(cap, sizeof(*L->srv[i].wait));
	}
}

/* Start one server, without waiting for it: its hello is answered once it is up. */
static int
server_spawn(struct loop *L, struct server *sv, struct ai_err *e)
{
	const struct lopts *o = L->o;
	struct args a = { NULL, 0, 0 };
	char timeout[32], max_runs[32];
	size_t i;
	int rc;

	snprintf(timeout, sizeof(timeout), "%g", o->tool_timeout);
	snprintf(max_runs, sizeof(max_runs), "%llu",
	    (unsigned long long)(o->max_steps * o->max_actions));
	args_add(&a, L->exec);
	args_add(&a, "--serve");
	for (i = 0; i < o->files.n; i++)
		args_opt(&a, "--file", o->files.v[i]);
	for (i = 0; i < o->urls.n; i++)
		args_opt(&a, "--allow-url", o->urls.v[i]);
	args_opt(&a, "--timeout", timeout);
	args_opt(&a, "--audit", o->audit);
	args_opt(&a, "--policy", o->policy);
	args_opt(&a, "--approve", o->approve);
	if (o->unconfined)
		args_add(&a, "--unconfined");
	/* ai-exec's own cap counts the runs of its whole life; ai-loop caps each step */
	args_opt(&a, "--max-runs", o->policy != NULL ? max_runs : NULL);
	if (o->verbose > 1)
		args_add(&a, "-v");
	sv->ready = 0;
	sv->answered = 0;
	sv->head = sv->n = 0;
	rc = job_start(&sv->job, "ai-exec", KIND_EXEC, L->exec, a.v, NULL, o->verbose > 1,
	    srv_line, sv, e);
	args_free(&a);
	if (rc < 0)
		return -1;
	/* a record it does not take: its answer says it is up, files and policy loaded */
	job_send(&sv->job, "{\"type\":\"hello\"}\n", 17);
	sv->job.deadline = ai_now_ms() + READY_MS;
	return 0;
}

size_t
server_jobs(struct loop *L, struct job **jobs)
{
	size_t i, n = 0;

	for (i = 0; i < L->nsrv; i++)
		if (L->srv[i].job.live)
			jobs[n++] = &L->srv[i].job;
	return n;
}

/*
 * Servers 0..n-1 running and ready: those missing are started (one that
 * ended between steps is said, once, and started again), all at once, and
 * waited for.  One that does not come up is an error with its status.
 */
static int
servers_need(struct loop *L, size_t n, struct ai_err *e)
{
	struct job **jobs;
	size_t i, k;
	int rc = 0;

	pool_init(L);
	for (i = 0; i < n; i++) {
		struct server *sv = &L->srv[i];

		if (sv->job.live)
			continue;
		if (sv->job.started) {
			char st[768];
			struct ai_buf w = AI_BUF_INIT(AI_BUF_NOLIMIT);

			ai_buf_addf(&w, "'ai-exec' %s; starting it again",
			    job_status(&sv->job, st, sizeof(st)));
			warn_once(L, w.buf);
			ai_buf_release(&w);
			job_free(&sv->job);
		}
		if (server_spawn(L, sv, e) < 0)
			return -1;
		if (i >= L->nsrv)
			L->nsrv = i + 1;
	}
	jobs = ai_xcalloc(n + 1, sizeof(*jobs));
	for (;;) {
		for (i = k = 0; i < n; i++)
			if (L->srv[i].job.live && !L->srv[i].ready)
				jobs[k++] = &L->srv[i].job;
		if (k == 0 || (rc = jobs_poll(jobs, k, -1, e)) < 0)
			break;
	}
	free(jobs);
	for (i = 0; rc == 0 && i < n; i++) {
		struct server *sv = &L->srv[i];
		char st[768];
		int code = sv->job.code;

		if (sv->ready) {
			sv->job.deadline = -1;
			continue;
		}
		if (L->o->verbose == 1)
			job_relay(&sv->job);
		/* 66: a --file; 77, 78: the policy; its own command line is ours */
		code = code == AI_EXIT_USAGE ? AI_EXIT_SOFTWARE : code > 0 && code < 128 ? code :
		    AI_EXIT_UNAVAILABLE;
		rc = ai_err_set(e, code, "'ai-exec' %s", job_status(&sv->job, st, sizeof(st)));
	}
	return rc;
}

int
server_start(struct loop *L, struct ai_err *e)
{
	return servers_need(L, 1, e);
}

void
server_kill(struct loop *L)
{
	size_t i;

	for (i = 0; i < L->nsrv; i++)
		job_free(&L->srv[i].job);
}

void
server_stop(struct loop *L)
{
	struct ai_err e = AI_ERR_INIT;
	struct job **jobs;
	size_t i, n;

	if (L->srv == NULL)
		return;
	jobs = ai_xcalloc(L->nsrv + 1, sizeof(*jobs));
	/* the end of their input ends them */
	for (i = 0; i < L->nsrv; i++)
		if (L->srv[i].job.live) {
			job_close_input(&L->srv[i].job);
			L->srv[i].job.deadline = ai_now_ms() + 2000;
		}
	while ((n = server_jobs(L, jobs)) > 0)
		if (jobs_poll(jobs, n, -1, &e) < 0)
			break;
	free(jobs);
	server_kill(L);
	for (i = 0; i < (size_t)L->o->max_actions; i++) {
		free(L->srv[i].wait);
		free(L->srv[i].key);
	}
	free(L->srv);
	L->srv = NULL;
	L->nsrv = 0;
}

/* ---- ai-search ---- */

int
search_run(struct loop *L, struct job *j, const char *query, unsigned count,
    job_line_fn on_line, void *ctx, struct ai_err *e)
{
	char n[16], timeout[32];
	struct args a = { NULL, 0, 0 };
	int rc;

	snprintf(n, sizeof(n), "%u", count);
	snprintf(timeout, sizeof(timeout), "%g", L->o->tool_timeout);
	args_add(&a, L->search);
	args_add(&a, "--json");
	args_opt(&a, "-n", n);
	args_opt(&a, "--timeout", timeout);
	if (L->o->verbose > 1)
		args_add(&a, "-v");
	args_opt(&a, "--", query);
	rc = job_start(j, "ai-search", KIND_SEARCH, L->search, a.v, NULL, L->o->verbose > 1,
	    on_line, ctx, e);
	args_free(&a);
	if (rc == 0) {
		job_close_input(j);
		j->deadline = ai_now_ms() + call_allowance(L);
	}
	return rc;
}

static int
search_line(struct job *j, const char *line, size_t len, struct ai_err *e)
{
	struct call *c = j->ctx;
	const char *type, *s;
	cJSON *rec, *hit;
	const cJSON *v;
	uint64_t u;

	if (job_record(j, line, len, &rec, e) < 0)
		return -1;
	if (rec == NULL)
		return 0;
	type = ai_record_type(rec);
	if (strcmp(type, "search_result") == 0) {
		static const char *const keep[] = { "title", "url", "snippet", "date" };
		size_t i;

		hit = cJSON_CreateObject();
		if (ai_json_u64(rec, "rank", &u) == 1)
			ai_json_addnum(hit, "rank", (double)u);
		for (i = 0; i < AI_ARRAY_SIZE(keep); i++)
			if ((s = ai_json_str(rec, keep[i])) != NULL)
				ai_json_addstr(hit, keep[i], s);
		cJSON_AddItemToArray(c->hits, hit);
	} else if (strcmp(type, "error") == 0) {
		free(c->err_msg);
		c->err_msg = ai_xstrdup((s = ai_json_str(rec, "message")) ? s : "failed");
		if ((v = ai_json_get(rec, "exit")) != NULL && cJSON_IsNumber(v))
			c->err_code = v->valueint;
	}
	cJSON_Delete(rec);
	return 0;
}

/* web_search's arguments: query, a non-empty string; count, 1 to 10.  NULL when good. */
static const char *
search_args(const cJSON *args, const char **query, unsigned *count, char *buf, size_t bufsz)
{
	const cJSON *m;
	uint64_t n;

	for (m = args->child; m != NULL; m = m->next)
		if (strcmp(m->string, "query") != 0 && strcmp(m->string, "count") != 0) {
			char ex[64];

			snprintf(buf, bufsz, "unknown argument '%s' (web_search takes query and "
			    "count)", ai_excerpt(m->string, strlen(m->string), ex, sizeof(ex)));
			return buf;
		}
	*query = ai_json_str(args, "query");
	if (*query == NULL || ai_line_is_blank(*query, strlen(*query)))
		return "'query' must be a non-empty string";
	*count = SEARCH_COUNT_DEFAULT;
	switch (ai_json_u64(args, "count", &n)) {
	case -1:
		return "'count' must be an integer from 1 to 10";
	case 1:
		if (n < 1 || n > SEARCH_COUNT_MAX)
			return "'count' must be an integer from 1 to 10";
		*count = (unsigned)n;
		break;
	default:
		break;
	}
	return NULL;
}

/* The search is over: its tool_result. */
static void
search_done(struct loop *L, struct call *c)
{
	const char *q = ai_json_str(ai_json_get(c->rec, "arguments"), "query");
	char st[768];

	c->ms = ai_now_ms() - c->t0;
	if (c->search.code == 0 && !c->search.timed_out && c->err_msg == NULL) {
		cJSON *rec = ai_record_new("tool_result");

		ai_json_addstr(rec, "id", c->id);
		ai_json_addstr(rec, "name", c->name);
		ai_json_addbool(rec, "ok", 1);
		ai_json_addstr(rec, "query", q);
		cJSON_AddItemToObject(rec, "results", c->hits);
		c->hits = NULL;
		c->result = print_rec(rec);
		return;
	}
	if (c->err_msg != NULL) {
		c->result = error_result(c, kind_of(c->err_code, 0), "%s", c->err_msg);
		{
			struct ai_buf w = AI_BUF_INIT(AI_BUF_NOLIMIT);

			ai_buf_addf(&w, "web_search: ai-search: %s", c->err_msg);
			warn_once(L, w.buf);
			ai_buf_release(&w);
		}
		return;
	}
	job_status(&c->search, st, sizeof(st));
	if (L->o->verbose == 1)
		job_relay(&c->search);
	c->result = error_result(c, kind_of(c->search.code, c->search.timed_out), "'ai-search' %s",
	    st);
	{
		struct ai_buf w = AI_BUF_INIT(AI_BUF_NOLIMIT);

		ai_buf_addf(&w, "web_search: 'ai-search' %s", st);
		warn_once(L, w.buf);
		ai_buf_release(&w);
	}
}

/* ---- a step's calls ---- */

/*
 * What a call runs, which decides its server: the calls of one command
 * (its pages, a repeated call) go to one server, whose cache answers them;
 * with --approve L1 every run goes to one server, in order, since an L1
 * program may write what another reads.
 */
static char *
call_key(const struct loop *L, const struct call *c)
{
	const cJSON *args = ai_json_get(c->rec, "arguments");
	struct ai_buf k = AI_BUF_INIT(AI_BUF_NOLIMIT);
	char *a;

	if (strcmp(c->name, "run") == 0 && L->o->approve != NULL && strcmp(L->o->approve, "L1") == 0) {
		ai_buf_adds(&k, "run");
	} else if (strcmp(c->name, "execute") == 0) {
		const char *cmd = ai_json_str(args, "command");

		ai_buf_addf(&k, "execute %s", cmd != NULL ? cmd : "");
	} else {
		a = ai_json_print(args);
		ai_buf_addf(&k, "%s %s", c->name, a);
		free(a);
	}
	return ai_buf_detach(&k, NULL);
}

/*
 * The execute and run calls of the step, spread over the servers so that
 * they run at the same time: a call goes with an earlier call of the step
 * that has its key, else to a server that ran the key before and is free
 * this step, else to the first free server.  Each server gets its calls at
 * once, in their order; tools_wait emits the results in the calls' order.
 */
static int
exec_send(struct loop *L, struct ai_err *e)
{
	size_t i, j, k, need = 0, cap = (size_t)L->o->max_actions;
	char *busy;
	int rc;

	pool_init(L);
	busy = ai_xcalloc(cap, 1);
	for (i = 0; i < L->ncalls; i++) {
		struct call *c = &L->calls[i];

		if (c->route != ROUTE_EXEC)
			continue;
		c->key = call_key(L, c);
		for (j = 0; j < i && c->srv == NULL; j++)
			if (L->calls[j].route == ROUTE_EXEC && strcmp(L->calls[j].key, c->key) == 0)
				c->srv = L->calls[j].srv;
		for (k = 0; k < L->nsrv && c->srv == NULL; k++)
			if (!busy[k] && L->srv[k].key != NULL && strcmp(L->srv[k].key, c->key) == 0)
				c->srv = &L->srv[k];
		for (k = 0; k < cap && c->srv == NULL; k++)
			if (!busy[k])
				c->srv = &L->srv[k];
		k = (size_t)(c->srv - L->srv);
		busy[k] = 1;
		if (k + 1 > need)
			need = k + 1;
		free(c->srv->key);
		c->srv->key = ai_xstrdup(c->key);
	}
	free(busy);
	if ((rc = servers_need(L, need, e)) < 0)
		return -1;
	for (k = 0; k < need; k++) {
		struct server *sv = &L->srv[k];
		struct ai_buf lines = AI_BUF_INIT(AI_BUF_NOLIMIT);

		sv->head = sv->n = 0;
		for (i = 0; i < L->ncalls; i++) {
			struct call *c = &L->calls[i];
			cJSON *call;
			char *s;

			if (c->route != ROUTE_EXEC || c->srv != sv)
				continue;
			/* the call as ai-exec reads it: one line, nothing else */
			call = ai_record_new("tool_call");
			ai_json_addstr(call, "id", c->id);
			ai_json_addstr(call, "name", c->name);
			cJSON_AddItemToObject(call, "arguments",
			    cJSON_Duplicate(ai_json_get(c->rec, "arguments"), 1));
			s = print_rec(call);
			ai_buf_adds(&lines, s);
			ai_buf_addc(&lines, '\n');
			free(s);
			sv->wait[sv->n++] = c;
		}
		if (lines.len > 0) {
			job_send(&sv->job, lines.buf, lines.len);
			sv->job.deadline = ai_now_ms() + call_allowance(L);
		}
		ai_buf_release(&lines);
	}
	return 0;
}

static const char *
tool_names(const struct loop *L, char *buf, size_t n)
{
	snprintf(buf, n, "%s%s%s%s%s", offers_execute(L->o) ? "execute" : "",
	    L->o->policy ? (offers_execute(L->o) ? ", run" : "run") : "",
	    L->o->search && (offers_execute(L->o) || L->o->policy) ? ", " : "",
	    L->o->search ? "web_search" : "", tools_offered(L) ? "" : "none");
	return buf;
}

int
tools_dispatch(struct loop *L, struct ai_err *e)
{
	size_t i, nexec = 0;
	char names[64];

	for (i = 0; i < L->ncalls; i++) {
		struct call *c = &L->calls[i];
		const cJSON *args = ai_json_get(c->rec, "arguments");
		int exec_tool = (strcmp(c->name, "execute") == 0 && offers_execute(L->o)) ||
		    (strcmp(c->name, "run") == 0 && L->o->policy != NULL);
		const char *why, *query;
		char whybuf[160];
		unsigned count;

		c->t0 = ai_now_ms();
		if (c->bad != NULL) {
			c->result = error_result(c, "usage", "%s", c->bad);
		} else if (i >= L->o->max_actions) {
			c->result = error_result(c, "limit", "too many tool calls in one step: "
			    "only the first %llu are run; call this one again in the next step",
			    (unsigned long long)L->o->max_actions);
		} else if (exec_tool) {
			c->route = ROUTE_EXEC;
			nexec++;
		} else if (strcmp(c->name, "web_search") == 0 && L->o->search) {
			why = search_args(args, &query, &count, whybuf, sizeof(whybuf));
			if (why != NULL) {
				c->result = error_result(c, "usage", "%s", why);
			} else {
				c->route = ROUTE_SEARCH;
				c->hits = cJSON_CreateArray();
			}
		} else {
			c->result = error_result(c, "unavailable", "there is no tool '%s' (the "
			    "tools are: %s)", c->name, tool_names(L, names, sizeof(names)));
		}
	}
	if (nexec > 0 && exec_send(L, e) < 0)
		return -1;
	for (i = 0; i < L->ncalls; i++) {
		struct call *c = &L->calls[i];

		if (c->route == ROUTE_SEARCH) {
			const char *q = ai_json_str(ai_json_get(c->rec, "arguments"), "query");
			unsigned count = SEARCH_COUNT_DEFAULT;
			uint64_t n;

			if (ai_json_u64(ai_json_get(c->rec, "arguments"), "count", &n) == 1)
				count = (unsigned)n;
			if (search_run(L, &c->search, q, count, search_line, c, e) < 0) {
				/* it cannot even start: the model hears why */
				c->result = error_result(c, "unavailable", "%s", e->msg);
				warn_once(L, e->msg);
				ai_err_clear(e);
			}
		}
	}
	return 0;
}

/* -v: one line per call: the tool, its arguments, what came back, how long it took. */
static void
say_call(const struct loop *L, const struct call *c)
{
	char *args = ai_json_print(ai_json_get(c->rec, "arguments")), ex[160], ms[32];
	struct ai_err e = AI_ERR_INIT;
	cJSON *r = ai_json_parse(c->result, strlen(c->result), &e);
	const cJSON *hits = ai_json_get(r, "results");
	const char *out = ai_json_str(r, "stdout_text");
	struct ai_buf what = AI_BUF_INIT(AI_BUF_NOLIMIT);

	if (ai_json_bool(r, "ok", 0) == 1) {
		const cJSON *code = ai_json_get(r, "exitCode");
		const char *tail = ai_json_str(r, "stdoutTail");

		if (cJSON_IsArray(hits))
			ai_buf_addf(&what, "ok, %d results", cJSON_GetArraySize(hits));
		else if (out != NULL)
			ai_buf_addf(&what, "ok, %zu bytes", strlen(out));
		else if (cJSON_IsNumber(code))
			ai_buf_addf(&what, "ok, exit status %d, %zu bytes of output",
			    code->valueint, tail ? strlen(tail) : 0);
		else
			ai_buf_adds(&what, "ok");
	} else {
		const char *kind = ai_json_str(r, "error_kind"), *msg = ai_json_str(r, "error");

		ai_buf_addf(&what, "%s: %s", kind ? kind : "error", msg ? msg : "");
	}
	ai_error("step %lu: %s %s: %s (%s)", L->steps, c->name,
	    ai_excerpt(args, strlen(args), ex, sizeof(ex)), what.buf,
	    ai_fmt_ms(c->ms, ms, sizeof(ms)));
	ai_buf_release(&what);
	cJSON_Delete(r);
	free(args);
}

/* A server ended with calls of this step unanswered: they fail, the loop goes on. */
static void
server_lost(struct loop *L, struct server *sv)
{
	char st[768];
	struct ai_buf w = AI_BUF_INIT(AI_BUF_NOLIMIT);

	job_status(&sv->job, st, sizeof(st));
	if (L->o->verbose == 1)
		job_relay(&sv->job);
	ai_buf_addf(&w, "'ai-exec' %s; it is started again for the next call", st);
	warn_once(L, w.buf);
	ai_buf_release(&w);
	while (sv->head < sv->n) {
		struct call *c = sv->wait[sv->head++];

		c->ms = ai_now_ms() - c->t0;
		c->result = sv->job.timed_out ?
		    error_result(c, "timeout", "'ai-exec' did not answer in time and was stopped") :
		    error_result(c, "unavailable", "'ai-exec' %s before it answered", st);
	}
}

/* Emit the results that are ready, in the calls' order, after those already emitted. */
static int
emit_ready(struct loop *L, struct ai_err *e)
{
	while (L->emitted < L->ncalls && L->calls[L->emitted].result != NULL) {
		struct call *c = &L->calls[L->emitted];

		if (L->o->verbose)
			say_call(L, c);
		if (loop_emit(L, c->result, strlen(c->result), TO_ALL, e) < 0)
			return -1;
		L->emitted++;
	}
	return 0;
}

int
tools_wait(struct loop *L, struct ai_err *e)
{
	struct job **jobs = ai_xcalloc(L->ncalls + L->nsrv + 1, sizeof(*jobs));
	size_t i;
	int rc = 0;

	while (rc == 0) {
		size_t n = 0;

		for (i = 0; i < L->ncalls; i++) {
			struct call *c = &L->calls[i];

			if (c->route == ROUTE_SEARCH && c->result == NULL && !c->search.live &&
			    c->search.started)
				search_done(L, c);
		}
		for (i = 0; i < L->nsrv; i++)
			if (L->srv[i].head < L->srv[i].n && !L->srv[i].job.live)
				server_lost(L, &L->srv[i]);
		if ((rc = emit_ready(L, e)) < 0 || L->emitted == L->ncalls)
			break;
		n = server_jobs(L, jobs);
		for (i = 0; i < L->ncalls; i++)
			if (L->calls[i].search.live)
				jobs[n++] = &L->calls[i].search;
		rc = jobs_poll(jobs, n, -1, e);
	}
	free(jobs);
	return rc;
}

int
tools_abandon(struct loop *L, const char *why, struct ai_err *e)
{
	size_t i;

	for (i = 0; i < L->ncalls; i++) {
		struct call *c = &L->calls[i];

		if (c->search.started)
			job_kill(&c->search);
		if (c->result == NULL)
			c->result = error_result(c, "unavailable", "%s", why);
	}
	return emit_ready(L, e);
}

void
tools_free_calls(struct loop *L)
{
	size_t i;

	for (i = 0; i < L->ncalls; i++) {
		struct call *c = &L->calls[i];

		job_free(&c->search);
		cJSON_Delete(c->rec);
		cJSON_Delete(c->hits);
		free(c->result);
		free(c->err_msg);
		free(c->key);
		free(c->bad);
	}
	free(L->calls);
	L->calls = NULL;
	L->ncalls = L->emitted = 0;
	for (i = 0; i < L->nsrv; i++)
		L->srv[i].head = L->srv[i].n = 0;
}
