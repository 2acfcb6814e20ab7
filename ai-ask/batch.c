/*
 * batch.c: --batch, the prompts of --each sent as one provider batch,
 * answered within a day at a lower price.
 *
 * submit builds every prompt's request with the adapter's one body builder
 * (each.c, ask.c) and sends them: to OpenAI as a JSONL file (POST /files,
 * purpose "batch") and a batch made of it (POST /batches); to Anthropic
 * as one Message Batch (POST /v1/messages/batches).  Each request's
 * custom_id is its prompt's id.  status reports the batch; results fetches
 * its answers (OpenAI: the output and error files; Anthropic: results_url)
 * and writes them as --each does, each answer through the adapter's parser
 * for a whole answer, in the order the prompts were submitted.  The state
 * file keeps what results needs between the two.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ask.h"
#include "http.h"
#include "io.h"
#include "json.h"
#include "msg.h"
#include "record.h"
#include "util.h"
#include "banned.h"

#define BATCH_MAX_STATE ((size_t)16 << 20)

struct conn {
	struct opts *o;
	struct ai_http h;
	char **headers;
	int anthropic;
};

static int
conn_open(struct conn *c, struct opts *o, struct ai_err *e)
{
	memset(c, 0, sizeof(*c));
	c->o = o;
	c->anthropic = o->k.p == &provider_anthropic;
	if (o->k.p != &provider_anthropic && o->k.p != &provider_openai &&
	    o->k.p != &provider_chat)
		return ai_err_set(e, AI_EXIT_USAGE, "--batch works with the openai, openai-chat and "
		    "anthropic adapters, not %s (profile %s)", o->k.p->name, o->profile);
	if (ai_http_init(&c->h, e) < 0)
		return -1;
	c->headers = ask_headers(o);
	return 0;
}

static void
conn_close(struct conn *c)
{
	ai_http_cleanup(&c->h);
	ask_headers_free(c->headers);
}

/* One request; the answer's body into out.  ctype: the body's type, NULL for a GET. */
static int
call(struct conn *c, const char *url, const char *ctype, const char *body, size_t n,
    struct ai_buf *out, struct ai_err *e)
{
	struct ai_http_req req;
	struct ai_http_resp resp;
	char *ct = NULL;
	int rc;

	memset(&req, 0, sizeof(req));
	req.method = body != NULL ? "POST" : "GET";
	req.url = url;
	if (ctype != NULL && strcmp(ctype, "application/json") != 0) {
		/* the first header is the content type */
		struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);

		ai_buf_addf(&b, "Content-Type: %s", ctype);
		ct = c->headers[0];
		c->headers[0] = ai_buf_detach(&b, NULL);
	}
	req.headers = (const char *const *)c->headers + (body == NULL);
	req.body = body;
	req.body_len = n;
	req.timeout_ms = c->o->timeout_ms;
	req.max_attempts = c->o->attempts;
	req.verbose = c->o->verbose > 0;
	req.max_bytes = (size_t)256 << 20;
	ai_http_resp_init(&resp);
	if (c->o->verbose)
		ai_error("%s %s (%zu bytes)", req.method, url, n);
	rc = ai_http_request(&c->h, &req, &resp, e);
	if (rc < 0 && resp.status >= 400 && c->o->k.p->http_error != NULL)
		c->o->k.p->http_error(resp.body.buf, resp.body.len, e);
	if (rc == 0)
		ai_buf_add(out, resp.body.buf ? resp.body.buf : "", resp.body.len);
	ai_http_resp_free(&resp);
	if (ct != NULL) {
		free(c->headers[0]);
		c->headers[0] = ct;
	}
	return rc;
}

/* A JSON answer of call. */
static cJSON *
call_json(struct conn *c, const char *url, const char *ctype, const char *body, size_t n,
    struct ai_err *e)
{
	struct ai_buf out = AI_BUF_INIT(AI_BUF_NOLIMIT);
	cJSON *v = NULL;

	if (call(c, url, ctype, body, n, &out, e) == 0 &&
	    (v = ai_json_parse(out.buf ? out.buf : "", out.len, e)) == NULL) {
		e->code = AI_EXIT_PROTOCOL;
		ai_err_prefix(e, "the answer to %s is not JSON", url);
	}
	if (v != NULL && !cJSON_IsObject(v)) {
		cJSON_Delete(v);
		v = NULL;
		ai_err_set(e, AI_EXIT_PROTOCOL, "the answer to %s is not a JSON object", url);
	}
	ai_buf_release(&out);
	return v;
}

static char *
url_of(const struct opts *o, const char *path, const char *id, const char *tail)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);

	ai_buf_addf(&b, "%s%s%s%s%s", o->base, path, id ? "/" : "", id ? id : "",
	    tail ? tail : "");
	return ai_buf_detach(&b, NULL);
}

/* A prompt's id as a custom_id: its text. */
static char *
custom_id(const cJSON *id)
{
	return cJSON_IsString(id) ? ai_xstrdup(id->valuestring) : ai_json_print(id);
}

/*
 * Every custom_id once; Anthropic's also of [A-Za-z0-9_-], 1 to 64 of them.
 * Checked before anything is sent, so that a batch is never half refused.
 */
static int
check_ids(const struct each_prompt *p, size_t n, int anthropic, struct ai_err *e)
{
	cJSON *seen = cJSON_CreateObject();
	size_t i;
	int rc = 0;

	for (i = 0; i < n && rc == 0; i++) {
		char *cid = custom_id(p[i].id);

		if (anthropic && !name_ok(cid))
			rc = ai_err_set(e, AI_EXIT_DATAERR, "the id '%.80s' cannot name a request of "
			    "an Anthropic batch: 1 to 64 letters, digits, '_' or '-'", cid);
		else if (cJSON_GetObjectItemCaseSensitive(seen, cid) != NULL)
			rc = ai_err_set(e, AI_EXIT_DATAERR, "the id '%.80s' is given to two prompts: "
			    "a batch needs each once", cid);
		else
			cJSON_AddItemToObject(seen, cid, cJSON_CreateTrue());
		free(cid);
	}
	cJSON_Delete(seen);
	return rc;
}

/* ---- the state file ---- */

static int
state_write(const char *path, const cJSON *st, struct ai_err *e)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	char *text = ai_json_print(st), *tmp;
	int fd, rc = 0;

	ai_buf_addf(&b, "%s.XXXXXX", path);
	tmp = ai_buf_detach(&b, NULL);
	if ((fd = mkstemp(tmp)) < 0) {
		rc = ai_err_set(e, AI_EXIT_IOERR, "cannot write '%s': %s", path, strerror(errno));
	} else {
		if (ai_write_all(fd, text, strlen(text)) < 0 || ai_write_all(fd, "\n", 1) < 0 ||
		    fsync(fd) < 0 || close(fd) < 0 || rename(tmp, path) < 0) {
			rc = ai_err_set(e, AI_EXIT_IOERR, "cannot write '%s': %s", path,
			    strerror(errno));
			unlink(tmp);
		}
	}
	free(tmp);
	free(text);
	return rc;
}

int
batch_state_load(const char *path, cJSON **out, struct ai_err *e)
{
	struct ai_buf b = AI_BUF_INIT(BATCH_MAX_STATE);
	cJSON *st;
	int rc;

	rc = ai_read_file(path, &b, BATCH_MAX_STATE, e);
	if (rc < 0) {
		ai_buf_release(&b);
		return -1;
	}
	st = ai_json_parse(b.buf ? b.buf : "", b.len, e);
	ai_buf_release(&b);
	if (st == NULL) {
		e->code = AI_EXIT_DATAERR;
		ai_err_prefix(e, "'%s'", path);
		return -1;
	}
	if (!cJSON_IsObject(st) || ai_json_str(st, "batch") == NULL ||
	    ai_json_str(st, "provider") == NULL || ai_json_str(st, "model") == NULL ||
	    !cJSON_IsArray(ai_json_get(st, "ids"))) {
		cJSON_Delete(st);
		return ai_err_set(e, AI_EXIT_DATAERR, "'%s' is not a batch state file (it needs "
		    "\"batch\", \"provider\", \"model\" and \"ids\")", path);
	}
	*out = st;
	return 0;
}

/* ---- submit ---- */

/* OpenAI: the JSONL file of requests, uploaded; the batch made of it.  The batch object. */
static cJSON *
submit_openai(struct conn *c, const struct each_prompt *p, size_t n, const char *endpoint,
    struct ai_err *e)
{
	struct ai_buf jl = AI_BUF_INIT(AI_BUF_NOLIMIT), mp = AI_BUF_INIT(AI_BUF_NOLIMIT);
	char boundary[64], ctype[128], *url, *text;
	cJSON *file, *req, *batch = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		char *cid = custom_id(p[i].id);

		req = cJSON_CreateObject();
		ai_json_addstr(req, "custom_id", cid);
		ai_json_addstr(req, "method", "POST");
		ai_json_addstr(req, "url", endpoint);
		cJSON_AddItemToObject(req, "body", cJSON_Duplicate(exch_request(p[i].r), 1));
		text = ai_json_print(req);
		ai_buf_addf(&jl, "%s\n", text);
		free(text);
		free(cid);
		cJSON_Delete(req);
	}
	snprintf(boundary, sizeof(boundary), "aicli-batch-%08lx%08lx",
	    (unsigned long)ai_wall_ms() & 0xffffffffUL, (unsigned long)getpid());
	ai_buf_addf(&mp, "--%s\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\n"
	    "batch\r\n", boundary);
	ai_buf_addf(&mp, "--%s\r\nContent-Disposition: form-data; name=\"file\"; "
	    "filename=\"batch.jsonl\"\r\nContent-Type: application/jsonl\r\n\r\n", boundary);
	ai_buf_add(&mp, jl.buf, jl.len);
	ai_buf_addf(&mp, "\r\n--%s--\r\n", boundary);
	ai_buf_release(&jl);
	snprintf(ctype, sizeof(ctype), "multipart/form-data; boundary=%s", boundary);
	url = url_of(c->o, "/files", NULL, NULL);
	file = call_json(c, url, ctype, mp.buf, mp.len, e);
	free(url);
	ai_buf_release(&mp);
	if (file == NULL)
		return NULL;
	if (ai_json_str(file, "id") == NULL) {
		cJSON_Delete(file);
		ai_err_set(e, AI_EXIT_PROTOCOL, "the upload's answer has no file \"id\"");
		return NULL;
	}
	req = cJSON_CreateObject();
	ai_json_addstr(req, "input_file_id", ai_json_str(file, "id"));
	ai_json_addstr(req, "endpoint", endpoint);
	ai_json_addstr(req, "completion_window", "24h");
	text = ai_json_print(req);
	url = url_of(c->o, "/batches", NULL, NULL);
	batch = call_json(c, url, "application/json", text, strlen(text), e);
	free(url);
	free(text);
	cJSON_Delete(req);
	cJSON_Delete(file);
	return batch;
}

/* Anthropic: one Message Batch of every request.  The batch object. */
static cJSON *
submit_anthropic(struct conn *c, const struct each_prompt *p, size_t n, struct ai_err *e)
{
	cJSON *doc = cJSON_CreateObject(), *reqs = cJSON_AddArrayToObject(doc, "requests"), *batch;
	char *text, *url;
	size_t i;

	for (i = 0; i < n; i++) {
		cJSON *req = cJSON_CreateObject();
		char *cid = custom_id(p[i].id);

		ai_json_addstr(req, "custom_id", cid);
		cJSON_AddItemToObject(req, "params", cJSON_Duplicate(exch_request(p[i].r), 1));
		cJSON_AddItemToArray(reqs, req);
		free(cid);
	}
	text = ai_json_print(doc);
	cJSON_Delete(doc);
	url = url_of(c->o, c->o->k.p->path, NULL, "/batches");
	batch = call_json(c, url, "application/json", text, strlen(text), e);
	free(url);
	free(text);
	return batch;
}

/* The batch object's status and counts, the same words for both providers. */
struct state {
	const char *id, *status;
	int ended;              /* its results can be fetched */
	double total, done, failed;
};

static void
read_batch(int anthropic, const cJSON *b, struct state *s)
{
	const cJSON *rc = ai_json_get(b, "request_counts");

	memset(s, 0, sizeof(*s));
	s->id = ai_json_str(b, "id");
	if (anthropic) {
		s->status = ai_json_str(b, "processing_status");
		s->ended = s->status != NULL && strcmp(s->status, "ended") == 0;
		s->done = cJSON_GetNumberValue(ai_json_get(rc, "succeeded"));
		s->failed = cJSON_GetNumberValue(ai_json_get(rc, "errored")) +
		    cJSON_GetNumberValue(ai_json_get(rc, "canceled")) +
		    cJSON_GetNumberValue(ai_json_get(rc, "expired"));
		s->total = s->done + s->failed + cJSON_GetNumberValue(ai_json_get(rc, "processing"));
	} else {
		s->status = ai_json_str(b, "status");
		s->ended = s->status != NULL && (strcmp(s->status, "completed") == 0 ||
		    strcmp(s->status, "expired") == 0 || strcmp(s->status, "cancelled") == 0 ||
		    strcmp(s->status, "failed") == 0);
		s->total = cJSON_GetNumberValue(ai_json_get(rc, "total"));
		s->done = cJSON_GetNumberValue(ai_json_get(rc, "completed"));
		s->failed = cJSON_GetNumberValue(ai_json_get(rc, "failed"));
	}
	if (s->status == NULL)
		s->status = "unknown";
	if (s->total != s->total)
		s->total = 0;
	if (s->done != s->done)
		s->done = 0;
	if (s->failed != s->failed)
		s->failed = 0;
}

static int
write_state(const struct opts *o, const struct state *s, struct ai_err *e)
{
	int rc = 0;

	if (o->json) {
		cJSON *rec = ai_record_new("batch");

		ai_json_addstr(rec, "id", s->id);
		ai_json_addstr(rec, "provider", o->profile);
		ai_json_addstr(rec, "status", s->status);
		ai_json_addbool(rec, "ended", s->ended);
		ai_json_addnum(rec, "total", s->total);
		ai_json_addnum(rec, "completed", s->done);
		ai_json_addnum(rec, "failed", s->failed);
		rc = ai_record_write(stdout, rec, e);
		cJSON_Delete(rec);
		return rc;
	}
	printf("%s %s: %.0f of %.0f done, %.0f failed\n", s->id, s->status, s->done, s->total,
	    s->failed);
	return ai_out_flush(stdout, e);
}

static int
submit(struct conn *c, struct ai_err *e)
{
	struct opts *o = c->o;
	struct run *tmpl;
	struct each_prompt *p;
	size_t n, i;
	char endpoint[64], when[32];
	cJSON *batch, *st, *ids;
	struct state s;
	time_t now = time(NULL);
	int rc = 0;

	if ((p = each_prompts(o, &tmpl, &n, e)) == NULL)
		return -1;
	if (check_ids(p, n, c->anthropic, e) < 0) {
		each_prompts_free(p, n, tmpl);
		return -1;
	}
	snprintf(endpoint, sizeof(endpoint), "%s%s", c->anthropic ? "" : "/v1", o->k.p->path);
	batch = c->anthropic ? submit_anthropic(c, p, n, e) : submit_openai(c, p, n, endpoint, e);
	if (batch == NULL) {
		each_prompts_free(p, n, tmpl);
		return -1;
	}
	read_batch(c->anthropic, batch, &s);
	if (s.id == NULL) {
		rc = ai_err_set(e, AI_EXIT_PROTOCOL, "the batch's answer has no \"id\"");
		goto out;
	}
	if (o->batch_state != NULL) {
		st = cJSON_CreateObject();
		ai_json_addstr(st, "batch", s.id);
		ai_json_addstr(st, "provider", o->profile);
		ai_json_addstr(st, "endpoint", c->anthropic ? o->k.p->path : endpoint);
		ai_json_addstr(st, "model", o->k.model);
		ids = cJSON_AddArrayToObject(st, "ids");
		for (i = 0; i < n; i++)
			cJSON_AddItemToArray(ids, cJSON_Duplicate(p[i].id, 1));
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
		ai_json_addstr(st, "submitted", when);
		rc = state_write(o->batch_state, st, e);
		cJSON_Delete(st);
		if (rc < 0) {
			ai_error("the batch %s was submitted; its state was not kept", s.id);
			goto out;
		}
	}
	if (o->verbose)
		ai_error("submitted %zu prompts as batch %s", n, s.id);
	if (o->json)
		rc = write_state(o, &s, e);
	else {
		printf("%s\n", s.id);
		rc = ai_out_flush(stdout, e);
	}
out:
	cJSON_Delete(batch);
	each_prompts_free(p, n, tmpl);
	return rc;
}

/* ---- status and results ---- */

static cJSON *
get_batch(struct conn *c, struct state *s, struct ai_err *e)
{
	char *url = c->anthropic ? url_of(c->o, c->o->k.p->path, NULL, "/batches/") :
	    url_of(c->o, "/batches/", NULL, NULL);
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	cJSON *batch;

	ai_buf_addf(&b, "%s%s", url, c->o->batch_id);
	free(url);
	batch = call_json(c, b.buf, NULL, NULL, 0, e);
	ai_buf_release(&b);
	if (batch != NULL)
		read_batch(c->anthropic, batch, s);
	return batch;
}

/* A failed item's error: its message, and a status by its kind. */
static void
item_error(struct ai_err *f, long status, const char *kind, const char *msg)
{
	int code = status == 401 || status == 403 ? AI_EXIT_CONFIG :
	    status == 429 || status >= 500 ? AI_EXIT_TEMPFAIL : AI_EXIT_DATAERR;

	if (kind != NULL && (strcmp(kind, "expired") == 0 || strcmp(kind, "canceled") == 0 ||
	    strcmp(kind, "cancelled") == 0 ||
	    strcmp(kind, "overloaded_error") == 0 || strcmp(kind, "api_error") == 0 ||
	    strcmp(kind, "rate_limit_error") == 0))
		code = AI_EXIT_TEMPFAIL;
	else if (kind != NULL && (strcmp(kind, "authentication_error") == 0 ||
	    strcmp(kind, "permission_error") == 0))
		code = AI_EXIT_CONFIG;
	ai_err_set(f, code, "the batch did not answer it: %s%s%s", kind ? kind : "error",
	    msg ? ": " : "", msg ? msg : "");
}

/* Index the lines of a JSONL body by custom_id into items (an object). */
static int
index_lines(const char *data, size_t len, cJSON *items, struct ai_err *e)
{
	size_t at = 0;
	unsigned long lineno = 0;

	while (at < len) {
		const char *nl = memchr(data + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (data + at)) : len - at;
		cJSON *it;
		const char *cid;

		lineno++;
		if (!ai_line_is_blank(data + at, n)) {
			if ((it = ai_json_parse(data + at, n, e)) == NULL) {
				e->code = AI_EXIT_PROTOCOL;
				ai_err_prefix(e, "the batch's results: line %lu", lineno);
				return -1;
			}
			if ((cid = ai_json_str(it, "custom_id")) == NULL) {
				cJSON_Delete(it);
				return ai_err_set(e, AI_EXIT_PROTOCOL, "the batch's results: line %lu "
				    "has no custom_id", lineno);
			}
			if (ai_json_get(items, cid) == NULL)
				cJSON_AddItemToObject(items, cid, it);
			else
				cJSON_Delete(it);
		}
		at += n + (nl != NULL);
	}
	return 0;
}

static int
fetch_into(struct conn *c, const char *url, cJSON *items, struct ai_err *e)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	int rc = call(c, url, NULL, NULL, 0, &b, e);

	if (rc == 0)
		rc = index_lines(b.buf ? b.buf : "", b.len, items, e);
	ai_buf_release(&b);
	return rc;
}

/* One item to its answer body or its failure. */
static void
write_item(struct each *ea, int anthropic, const char *status, const cJSON *id,
    const cJSON *it)
{
	struct ai_err f = AI_ERR_INIT;
	const cJSON *body = NULL;
	char *text;

	if (it == NULL && (strcmp(status, "completed") == 0 || strcmp(status, "ended") == 0)) {
		ai_err_set(&f, AI_EXIT_PROTOCOL, "the batch's results do not hold it");
	} else if (it == NULL) {
		/* a batch that failed, expired or was cancelled before it */
		item_error(&f, 0, status, NULL);
	} else if (anthropic) {
		const cJSON *res = ai_json_get(it, "result");
		const char *type = ai_json_str(res, "type");
		const cJSON *err = ai_json_get(ai_json_get(res, "error"), "error");

		if (type != NULL && strcmp(type, "succeeded") == 0)
			body = ai_json_get(res, "message");
		else if (type != NULL && strcmp(type, "errored") == 0)
			item_error(&f, 0, ai_json_str(err, "type"), ai_json_str(err, "message"));
		else
			item_error(&f, 0, type ? type : "unknown", NULL);
	} else {
		const cJSON *resp = ai_json_get(it, "response");
		long st = (long)cJSON_GetNumberValue(ai_json_get(resp, "status_code"));
		const cJSON *err = ai_json_get(it, "error");

		if (st == 200 && cJSON_IsObject(ai_json_get(resp, "body")))
			body = ai_json_get(resp, "body");
		else if (cJSON_IsObject(ai_json_get(ai_json_get(resp, "body"), "error")))
			err = ai_json_get(ai_json_get(resp, "body"), "error");
		if (body == NULL)
			item_error(&f, st, ai_json_str(err, "code") ? ai_json_str(err, "code") :
			    ai_json_str(err, "type"), ai_json_str(err, "message"));
	}
	if (body == NULL) {
		each_result(ea, id, NULL, 0, &f);
		return;
	}
	text = ai_json_print(body);
	each_result(ea, id, text, strlen(text), NULL);
	free(text);
}

static int
results(struct conn *c, const struct state *s, cJSON *batch, struct ai_err *e)
{
	struct opts *o = c->o;
	cJSON *items = cJSON_CreateObject(), *id;
	const cJSON *ids = ai_json_get(o->state, "ids");
	struct each *ea;
	int rc = 0;

	if (!s->ended) {
		cJSON_Delete(items);
		ai_err_set(e, AI_EXIT_TEMPFAIL, "the batch %s has not ended (%s: %.0f of %.0f "
		    "done); ask again later", s->id, s->status, s->done + s->failed, s->total);
		e->passed = 1; /* nothing on stdout: there are no results yet */
		return -1;
	}
	if (c->anthropic) {
		const char *u = ai_json_str(batch, "results_url");

		if (u == NULL)
			rc = ai_err_set(e, AI_EXIT_PROTOCOL, "the batch %s has ended without a "
			    "results_url", s->id);
		else
			rc = fetch_into(c, u, items, e);
	} else {
		static const char *const files[] = { "output_file_id", "error_file_id" };
		size_t i;

		for (i = 0; rc == 0 && i < 2; i++) {
			const char *fid = ai_json_str(batch, files[i]);
			char *u;

			if (fid == NULL)
				continue;
			u = url_of(o, "/files", fid, "/content");
			rc = fetch_into(c, u, items, e);
			free(u);
		}
	}
	if (rc < 0) {
		cJSON_Delete(items);
		return -1;
	}
	if ((ea = each_results_begin(o, e)) == NULL) {
		cJSON_Delete(items);
		return -1;
	}
	if (ids != NULL) {
		/* in the order they were submitted */
		cJSON_ArrayForEach(id, ids) {
			char *cid = custom_id(id);

			write_item(ea, c->anthropic, s->status, id, ai_json_get(items, cid));
			free(cid);
		}
	} else {
		/* no state file: the order of the results */
		cJSON_ArrayForEach(id, items) {
			cJSON *num = cJSON_CreateString(id->string);

			write_item(ea, c->anthropic, s->status, num, id);
			cJSON_Delete(num);
		}
	}
	cJSON_Delete(items);
	return each_results_end(ea, e);
}

int
batch_run(struct opts *o, struct ai_err *e)
{
	struct conn c;
	struct state s;
	cJSON *batch;
	int rc;

	if (conn_open(&c, o, e) < 0) {
		conn_close(&c);
		return -1;
	}
	if (strcmp(o->batch, "submit") == 0) {
		rc = submit(&c, e);
		conn_close(&c);
		return rc;
	}
	if ((batch = get_batch(&c, &s, e)) == NULL)
		rc = -1;
	else if (s.id == NULL)
		rc = ai_err_set(e, AI_EXIT_PROTOCOL, "the batch's answer has no \"id\"");
	else if (strcmp(o->batch, "status") == 0)
		rc = write_state(o, &s, e);
	else
		rc = results(&c, &s, batch, e);
	cJSON_Delete(batch);
	conn_close(&c);
	return rc;
}
