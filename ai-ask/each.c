/*
 * each.c: --each, every line or record of standard input an independent
 * prompt, up to -P of them in flight at once in this one process.
 *
 * Each prompt is an exchange of its own (ask.c), driven over lib/http's
 * multi interface, so that one limiter holds every request (429s, the
 * provider's rate-limit headers, --rpm and --tpm).  Its records (message,
 * reasoning, usage, or an error record) carry the prompt's id: the input
 * record's "id", else its line number.  They come out in input order, or
 * as the prompts finish with --unordered; a total usage record ends the
 * run.  A failed prompt does not stop the others, except for a refused key,
 * which would fail every one of them: then nothing more is started.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ask.h"
#include "budget.h"
#include "http.h"
#include "json.h"
#include "msg.h"
#include "record.h"
#include "util.h"
#include "banned.h"

enum { J_WAIT, J_HTTP, J_DONE };

struct each;

struct job {
	struct each *ea;
	cJSON *id;           /* the prompt's id (owned) */
	struct run *r;       /* NULL for a record passed through or a bad prompt */
	cJSON *recs;         /* what it writes, once done */
	int state;
	int64_t at;          /* J_WAIT: when its next request may begin */
	int code;            /* its status: 0, or the exit status of its failure */
};

struct each {
	struct opts *o;
	struct run *tmpl;
	struct ai_http_multi *m;
	struct job **q;      /* started and not yet written, in input order */
	size_t nq, aq;
	size_t inflight;     /* jobs with a request queued, running or waiting */
	char **done;         /* --skip-done: the ids already answered (sorted JSON texts) */
	size_t ndone;
	unsigned long prompts, failed, skipped;
	int first_code;      /* the status of the first failed prompt in input order */
	int stop;            /* start nothing more (a refused key, an error record read) */
	int collect;         /* a batch: build the requests, make none */
	struct ai_err stop_err;
	int out_failed;      /* writing stdout failed */
	struct ai_err out_err;
	/* the total */
	double in, cached, out, written, calls, weighted, cost;
	int unpriced;
	unsigned long usages;
};

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *
id_key(const cJSON *id)
{
	return ai_json_print(id);
}

/*
 * --skip-done FILE: the ids of prompts FILE holds an answer for (a message
 * or usage record with the id) and no error record for.
 */
static int
load_done(struct each *ea, const char *path, struct ai_err *e)
{
	struct ai_reader rd;
	char **bad = NULL;
	size_t nbad = 0, i, k;
	const char *line;
	size_t len;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY), rc;

	if (fd < 0)
		return ai_err_set(e, AI_EXIT_NOINPUT, "cannot open '%s': %s", path, strerror(errno));
	ai_reader_init(&rd, fd, AI_MAX_LINE, path);
	while ((rc = ai_reader_next(&rd, &line, &len, e)) > 0) {
		cJSON *rec;
		const cJSON *id;
		const char *type;

		if (ai_line_is_blank(line, len))
			continue;
		if ((rec = ai_record_parse(line, len, rd.lineno, e)) == NULL) {
			rc = -1;
			ai_err_prefix(e, "'%s'", path);
			break;
		}
		type = ai_record_type(rec);
		id = ai_json_get(rec, "id");
		if ((cJSON_IsString(id) || cJSON_IsNumber(id)) && (strcmp(type, "message") == 0 ||
		    strcmp(type, "usage") == 0 || strcmp(type, "error") == 0)) {
			char ***set = strcmp(type, "error") == 0 ? &bad : &ea->done;
			size_t *n = strcmp(type, "error") == 0 ? &nbad : &ea->ndone;

			*set = ai_xrealloc(*set, (*n + 1) * sizeof(**set));
			(*set)[(*n)++] = id_key(id);
		}
		cJSON_Delete(rec);
	}
	ai_reader_release(&rd);
	close(fd);
	if (ea->ndone > 0)
		qsort(ea->done, ea->ndone, sizeof(*ea->done), cmp_str);
	/* a prompt that failed is not done, whatever else it wrote */
	for (i = 0; i < nbad; i++) {
		char **hit = ea->ndone == 0 ? NULL :
		    bsearch(&bad[i], ea->done, ea->ndone, sizeof(*ea->done), cmp_str);

		while (hit != NULL && hit > ea->done && strcmp(hit[-1], bad[i]) == 0)
			hit--;
		while (hit != NULL && hit < ea->done + ea->ndone && strcmp(*hit, bad[i]) == 0) {
			free(*hit);
			*hit = NULL;
			hit++;
		}
		free(bad[i]);
	}
	free(bad);
	for (i = k = 0; i < ea->ndone; i++)
		if (ea->done[i] != NULL)
			ea->done[k++] = ea->done[i];
	ea->ndone = k;
	return rc < 0 ? -1 : 0;
}

static int
is_done(const struct each *ea, const cJSON *id)
{
	char *k;
	int hit;

	if (ea->ndone == 0)
		return 0;
	k = id_key(id);
	hit = bsearch(&k, ea->done, ea->ndone, sizeof(*ea->done), cmp_str) != NULL;
	free(k);
	return hit;
}

/* ---- output ---- */

static void
job_free(struct job *j)
{
	exch_free(j->r);
	cJSON_Delete(j->id);
	cJSON_Delete(j->recs);
	free(j);
}

static void
add_total(struct each *ea, const cJSON *u)
{
	const cJSON *c = ai_json_get(u, "cost_usd");

	ea->in += cJSON_GetNumberValue(ai_json_get(u, "input_tokens"));
	ea->cached += cJSON_GetNumberValue(ai_json_get(u, "cached_tokens"));
	if (ai_json_get(u, "cache_write_tokens") != NULL)
		ea->written += cJSON_GetNumberValue(ai_json_get(u, "cache_write_tokens"));
	ea->out += cJSON_GetNumberValue(ai_json_get(u, "output_tokens"));
	ea->calls += cJSON_GetNumberValue(ai_json_get(u, "calls"));
	ea->weighted += cJSON_GetNumberValue(ai_json_get(u, "weighted_tokens"));
	ea->usages++;
	if (cJSON_IsNumber(c))
		ea->cost += c->valuedouble;
	else
		ea->unpriced = 1;
}

/* Write a finished job's records, each with the prompt's id. */
static void
job_write(struct each *ea, struct job *j)
{
	cJSON *rec;

	cJSON_ArrayForEach(rec, j->recs) {
		if (j->r != NULL) {
			cJSON_DeleteItemFromObjectCaseSensitive(rec, "id");
			cJSON_AddItemToObject(rec, "id", cJSON_Duplicate(j->id, 1));
			if (strcmp(ai_record_type(rec), "usage") == 0)
				add_total(ea, rec);
		}
		if (!ea->out_failed && ai_record_write(stdout, rec, &ea->out_err) < 0) {
			ea->out_failed = 1;
			ea->stop = 1;
		}
	}
	if (j->code != 0 && ea->first_code == 0)
		ea->first_code = j->code;
}

/* Write what is finished: the head of the queue in order, or everything with --unordered. */
static void
flush(struct each *ea)
{
	size_t i, k = 0;

	for (i = 0; i < ea->nq; i++) {
		struct job *j = ea->q[i];

		if (j->state == J_DONE && (ea->o->unordered || k == 0)) {
			job_write(ea, j);
			job_free(j);
			continue;
		}
		ea->q[k++] = j;
	}
	ea->nq = k;
}

/* ---- the prompts ---- */

static void on_http(void *ctx, int rc, struct ai_err *e);

/* The job is over: its records, or an error record; the request slot is free. */
static void
job_finish(struct job *j, int step, struct ai_err *e)
{
	struct each *ea = j->ea;
	struct ai_err why = AI_ERR_INIT;
	char idtext[64];
	char *idp = id_key(j->id);

	snprintf(idtext, sizeof(idtext), "%s", idp);
	free(idp);
	if (j->r != NULL)
		ea->inflight--;
	j->recs = cJSON_CreateArray();
	if (step == EXCH_DONE && exch_records(j->r, j->recs, &why) < 0) {
		e = &why;
		step = EXCH_FAILED;
	}
	if (step == EXCH_FAILED) {
		cJSON *rec = ai_record_error("ai-ask", e);

		cJSON_AddItemToObject(rec, "id", cJSON_Duplicate(j->id, 1));
		cJSON_AddItemToArray(j->recs, rec);
		j->code = e->code ? e->code : AI_EXIT_SOFTWARE;
		ea->failed++;
		if (ea->collect) {
			/* a batch is sent whole or not at all */
			ea->stop = 1;
			ea->stop_err = *e;
			ai_err_prefix(&ea->stop_err, "prompt %s", idtext);
			j->state = J_DONE;
			return;
		}
		ai_error("prompt %s: %s", idtext, e->msg);
		/* a refused key refuses every prompt, a spent budget too: start no more */
		if (!ea->stop && (e->code == AI_EXIT_CONFIG || (e->code == AI_EXIT_LIMIT &&
		    ea->o->budget_file != NULL && ai_budget_check(ea->o->budget_file, &why) < 0))) {
			ea->stop = 1;
			ea->stop_err = *e;
		}
	}
	j->state = J_DONE;
}

/* Begin the job's next request (or end it, when no time is left for one). */
static void
job_begin(struct job *j)
{
	struct each *ea = j->ea;
	const struct ai_http_req *req;
	struct ai_http_resp *resp;
	struct ai_err e = AI_ERR_INIT;
	size_t tokens = exch_body_len(j->r) / 4 + (size_t)ea->o->k.max_tokens;

	int rc;

	j->state = J_HTTP;
	rc = exch_begin(j->r, &req, &resp, &e);
	if (rc == 1)
		on_http(j, 0, &e); /* from the cache */
	else if (rc < 0 || ai_http_multi_add(ea->m, req, resp, tokens, on_http, j, &e) < 0)
		on_http(j, -1, &e);
}

static void
on_http(void *ctx, int rc, struct ai_err *e)
{
	struct job *j = ctx;
	int64_t wait = 0;
	int step = exch_end(j->r, rc, &wait, e);

	if (step == EXCH_RETRY) {
		j->state = J_WAIT;
		j->at = ai_now_ms() + wait;
	} else if (step == EXCH_AGAIN) {
		job_begin(j);
	} else {
		job_finish(j, step, e);
	}
}

static struct job *
job_new(struct each *ea, cJSON *id)
{
	struct job *j = ai_xcalloc(1, sizeof(*j));

	j->ea = ea;
	j->id = id;
	if (ea->nq == ea->aq) {
		ea->aq = ea->aq ? ea->aq * 2 : 64;
		ea->q = ai_xrealloc(ea->q, ea->aq * sizeof(*ea->q));
	}
	ea->q[ea->nq++] = j;
	return j;
}

/* A prompt with its text: its exchange begins (or it fails at once). */
static void
start_prompt(struct each *ea, cJSON *id, const char *item)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	struct ai_err e = AI_ERR_INIT;
	struct job *j = job_new(ea, id);

	ea->prompts++;
	/* the item is the material, the operands the instruction after it (as with one prompt) */
	ai_buf_adds(&b, item);
	if (ea->o->prompt != NULL && *ea->o->prompt)
		ai_buf_addf(&b, "\n\n%s", ea->o->prompt);
	j->r = exch_new(ea->tmpl, b.buf, &e);
	ai_buf_release(&b);
	if (j->r == NULL) {
		job_finish(j, EXCH_FAILED, &e);
		return;
	}
	if (ea->collect) {
		j->state = J_DONE;
		return;
	}
	ea->inflight++;
	job_begin(j);
}

/* A prompt that fails before any request (a record without text). */
static void
bad_prompt(struct each *ea, cJSON *id, struct ai_err *e)
{
	struct job *j = job_new(ea, id);

	ea->prompts++;
	job_finish(j, EXCH_FAILED, e);
}

/* A record that is no prompt: it goes through, in its place. */
static void
pass_record(struct each *ea, const char *line, size_t len)
{
	struct ai_err e = AI_ERR_INIT;
	struct job *j = job_new(ea, cJSON_CreateNull());

	j->recs = cJSON_CreateArray();
	cJSON_AddItemToArray(j->recs, ai_json_parse(line, len, &e));
	j->state = J_DONE;
}

/* One line of input: 1 when it started a job or passed a record on, 0 for nothing, -1 stop. */
static int
take_line(struct each *ea, const char *line, size_t len, unsigned long lineno, int records,
    struct ai_err *e)
{
	cJSON *rec, *id;
	const cJSON *rid, *text;
	const char *type;
	char *item;

	if (ai_line_is_blank(line, len))
		return 0;
	if (!records) {
		id = cJSON_CreateNumber((double)lineno);
		if (is_done(ea, id)) {
			ea->skipped++;
			cJSON_Delete(id);
			return 0;
		}
		item = ai_xmemdup(line, len);
		start_prompt(ea, id, item);
		free(item);
		return 1;
	}
	if ((rec = ai_record_parse(line, len, lineno, e)) == NULL) {
		ai_err_prefix(e, "standard input");
		return -1;
	}
	type = ai_record_type(rec);
	if (ai_record_upstream(rec, e)) {
		/* errors travel: pass it on, start nothing more, end with its status */
		pass_record(ea, line, len);
		e->passed = 1;
		ea->stop = 1;
		ea->stop_err = *e;
		cJSON_Delete(rec);
		return 1;
	}
	rid = ai_json_get(rec, "id");
	id = (cJSON_IsString(rid) || cJSON_IsNumber(rid)) ? cJSON_Duplicate(rid, 0) :
	    cJSON_CreateNumber((double)lineno);
	text = strcmp(type, "query") == 0 ? ai_json_get(rec, "query") :
	    strcmp(type, "message") == 0 ? ai_json_get(rec, "content") : NULL;
	if (strcmp(type, "message") == 0 && ai_json_str(rec, "role") != NULL &&
	    strcmp(ai_json_str(rec, "role"), "user") != 0)
		type = "other";
	if (strcmp(type, "query") != 0 && strcmp(type, "message") != 0) {
		cJSON_Delete(id);
		cJSON_Delete(rec);
		pass_record(ea, line, len);
		return 1;
	}
	if (is_done(ea, id)) {
		ea->skipped++;
		cJSON_Delete(id);
	} else if (!cJSON_IsString(text) || text->valuestring[0] == '\0') {
		struct ai_err be = AI_ERR_INIT;

		ai_err_set(&be, AI_EXIT_DATAERR, "standard input: line %lu: a %s record needs a "
		    "non-empty \"%s\" string", lineno, type,
		    strcmp(type, "query") == 0 ? "query" : "content");
		bad_prompt(ea, id, &be);
	} else {
		start_prompt(ea, id, text->valuestring);
	}
	cJSON_Delete(rec);
	return 1;
}

/* Restart the jobs whose wait is over; the time until the next one (ms). */
static int64_t
wake(struct each *ea)
{
	int64_t now = ai_now_ms(), next = 1000;
	size_t i;

	for (i = 0; i < ea->nq; i++) {
		struct job *j = ea->q[i];

		if (j->state != J_WAIT)
			continue;
		if (j->at <= now)
			job_begin(j);
		else if (j->at - now < next)
			next = j->at - now;
	}
	return next;
}

static void
write_total(struct each *ea)
{
	cJSON *u = ai_record_new("usage");
	struct ai_err e = AI_ERR_INIT;

	ai_json_addstr(u, "model", ea->o->k.model);
	ai_json_addnum(u, "input_tokens", ea->in);
	ai_json_addnum(u, "cached_tokens", ea->cached);
	if (ea->written > 0)
		ai_json_addnum(u, "cache_write_tokens", ea->written);
	ai_json_addnum(u, "output_tokens", ea->out);
	ai_json_addnum(u, "calls", ea->calls);
	ai_json_addnum(u, "weighted_tokens", ea->weighted);
	if (!ea->unpriced && ea->usages > 0)
		ai_json_addnum(u, "cost_usd", ea->cost);
	ai_json_addbool(u, "total", 1);
	ai_json_addnum(u, "prompts", (double)ea->prompts);
	ai_json_addnum(u, "failed", (double)ea->failed);
	if (ea->skipped > 0)
		ai_json_addnum(u, "skipped", (double)ea->skipped);
	if (!ea->out_failed && ai_record_write(stdout, u, &e) < 0) {
		ea->out_failed = 1;
		ea->out_err = e;
	}
	if (ea->o->usage)
		ask_print_usage(u);
	cJSON_Delete(u);
}

/* The total usage record, and the run's status: 0, or -1 with e set. */
static int
each_status(struct each *ea, struct ai_err *e)
{
	int rc = 0;

	write_total(ea);
	if (ea->out_failed) {
		*e = ea->out_err;
		rc = -1;
	} else if (ea->stop && ea->stop_err.passed) {
		/* an error record read on the input: passed on, its status is the run's */
		*e = ea->stop_err;
		e->msg[0] = '\0';
		rc = -1;
	} else if (ea->stop && (ea->stop_err.code == AI_EXIT_CONFIG ||
	    ea->stop_err.code == AI_EXIT_LIMIT)) {
		ai_err_set(e, ea->stop_err.code, "stopped after %lu prompts: %s", ea->prompts,
		    ea->stop_err.code == AI_EXIT_CONFIG ? "the API key was refused" :
		    "the budget is spent");
		e->passed = 1;
		rc = -1;
	} else if (ea->stop) {
		/* the input itself is bad: nothing more could be read */
		*e = ea->stop_err;
		rc = -1;
	} else if (ea->failed > 0) {
		ai_err_set(e, ea->first_code, "%lu of %lu prompts failed", ea->failed, ea->prompts);
		e->passed = 1;
		rc = -1;
	}
	return rc;
}

static int
stdin_ok(struct ai_err *e)
{
	if (isatty(0) || fcntl(0, F_GETFD) < 0)
		return ai_err_set(e, AI_EXIT_USAGE,
		    "--each reads its prompts from standard input, one a line or record");
	return 0;
}

int
each_run(struct opts *o, struct ai_err *e)
{
	struct each ea;
	struct ai_reader rd;
	size_t window = o->parallel * 4 < 64 ? 64 : o->parallel * 4;
	int rc = 0, records = -1, eof = 0;
	size_t i;

	memset(&ea, 0, sizeof(ea));
	ea.o = o;
	if (stdin_ok(e) < 0)
		return -1;
	if (o->skip_done != NULL && load_done(&ea, o->skip_done, e) < 0) {
		rc = -1;
		goto out;
	}
	if ((ea.tmpl = exch_template(o, e)) == NULL ||
	    (ea.m = ai_http_multi_new(e)) == NULL) {
		rc = -1;
		goto out;
	}
	ai_http_multi_limit(ea.m, o->rpm, o->tpm);
	ai_reader_init(&rd, 0, AI_MAX_LINE, "standard input");
	for (;;) {
		int64_t next;

		/* read prompts while there is room: in flight, and not yet written */
		while (!eof && !ea.stop && ea.inflight < o->parallel && ea.nq < window) {
			const char *line;
			size_t len;
			int got = ai_reader_next(&rd, &line, &len, e);

			if (got < 0) {
				ea.stop = 1;
				ea.stop_err = *e;
				break;
			}
			if (got == 0) {
				eof = 1;
				break;
			}
			if (records < 0) {
				if (ai_line_is_blank(line, len))
					continue;
				records = ai_input_is_records(line, len);
			}
			if (take_line(&ea, line, len, rd.lineno, records, e) < 0) {
				ea.stop = 1;
				ea.stop_err = *e;
				break;
			}
		}
		flush(&ea);
		if (ea.inflight == 0 && (eof || ea.stop))
			break;
		next = wake(&ea);
		if (ai_http_multi_pending(ea.m) > 0)
			ai_http_multi_run(ea.m, next);
		else if (ea.inflight > 0)
			ai_sleep_ms(next, NULL);
		flush(&ea);
	}
	ai_reader_release(&rd);
	flush(&ea);
	if (o->verbose && ai_http_multi_limited(ea.m) > 0)
		ai_error("%llu answers said the rate limit was reached (HTTP 429)",
		    (unsigned long long)ai_http_multi_limited(ea.m));
	rc = each_status(&ea, e);
out:
	/* the transfers first: a request still queued borrows its job's answer */
	ai_http_multi_free(ea.m);
	for (i = 0; i < ea.nq; i++)
		job_free(ea.q[i]);
	free(ea.q);
	for (i = 0; i < ea.ndone; i++)
		free(ea.done[i]);
	free(ea.done);
	exch_free(ea.tmpl);
	return rc;
}

/* ---- a provider batch (batch.c) ---- */

struct each_prompt *
each_prompts(struct opts *o, struct run **tmpl, size_t *n, struct ai_err *e)
{
	struct each ea;
	struct ai_reader rd;
	struct each_prompt *out = NULL;
	const char *line;
	size_t len, i, k = 0;
	int got, records = -1;

	memset(&ea, 0, sizeof(ea));
	ea.o = o;
	ea.collect = 1;
	*tmpl = NULL;
	*n = 0;
	if (stdin_ok(e) < 0 || (ea.tmpl = exch_template(o, e)) == NULL)
		return NULL;
	ai_reader_init(&rd, 0, AI_MAX_LINE, "standard input");
	while (!ea.stop && (got = ai_reader_next(&rd, &line, &len, e)) != 0) {
		if (got < 0) {
			ea.stop = 1;
			ea.stop_err = *e;
			break;
		}
		if (records < 0) {
			if (ai_line_is_blank(line, len))
				continue;
			records = ai_input_is_records(line, len);
		}
		if (take_line(&ea, line, len, rd.lineno, records, e) < 0) {
			ea.stop = 1;
			ea.stop_err = *e;
		}
	}
	ai_reader_release(&rd);
	if (!ea.stop && ea.prompts == 0) {
		ea.stop = 1;
		ai_err_set(&ea.stop_err, AI_EXIT_DATAERR, "standard input holds no prompt");
	}
	if (!ea.stop)
		out = ai_xcalloc(ea.prompts, sizeof(*out));
	for (i = 0; i < ea.nq; i++) {
		struct job *j = ea.q[i];

		/* records that are no prompts have no place in a batch */
		if (out != NULL && j->r != NULL) {
			out[k].id = j->id;
			out[k++].r = j->r;
			j->id = NULL;
			j->r = NULL;
		}
		job_free(j);
	}
	free(ea.q);
	if (ea.stop) {
		*e = ea.stop_err;
		exch_free(ea.tmpl);
		return NULL;
	}
	*tmpl = ea.tmpl;
	*n = k;
	return out;
}

void
each_prompts_free(struct each_prompt *p, size_t n, struct run *tmpl)
{
	size_t i;

	for (i = 0; p != NULL && i < n; i++) {
		cJSON_Delete(p[i].id);
		exch_free(p[i].r);
	}
	free(p);
	exch_free(tmpl);
}

struct each *
each_results_begin(struct opts *o, struct ai_err *e)
{
	struct each *ea = ai_xcalloc(1, sizeof(*ea));

	ea->o = o;
	if ((ea->tmpl = exch_template(o, e)) == NULL) {
		free(ea);
		return NULL;
	}
	return ea;
}

void
each_result(struct each *ea, const cJSON *id, const char *body, size_t n,
    const struct ai_err *fail)
{
	struct job *j = job_new(ea, cJSON_Duplicate(id, 1));
	struct ai_err e = AI_ERR_INIT;

	ea->prompts++;
	if (body == NULL) {
		e = *fail;
		job_finish(j, EXCH_FAILED, &e);
	} else {
		j->r = exch_blank(ea->tmpl);
		ea->inflight++;
		job_finish(j, exch_answer(j->r, body, n, &e) < 0 ? EXCH_FAILED : EXCH_DONE, &e);
	}
	flush(ea);
}

int
each_results_end(struct each *ea, struct ai_err *e)
{
	size_t i;
	int rc;

	flush(ea);
	rc = each_status(ea, e);
	for (i = 0; i < ea->nq; i++)
		job_free(ea->q[i]);
	free(ea->q);
	exch_free(ea->tmpl);
	free(ea);
	return rc;
}
