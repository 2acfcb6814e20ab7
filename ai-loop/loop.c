/*
 * loop.c: the agent loop.
 *
 * Each step: compact the conversation with ai-context when it has grown
 * past --context-budget, check the quotas, run ai-ask on the whole
 * conversation with the tools declared, and run the calls it asked for; the
 * results go back into the conversation and the next step begins.  The loop
 * ends when the model answers without calling a tool, at --max-steps (one
 * last call without tools asks for the best answer so far), when a quota is
 * used up, or on an error.  Every record goes, as it happens, to --json's
 * stream and to the transcript files; the conversation keeps them for the
 * next step.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"
#include "json.h"
#include "budget.h"
#include "loop.h"
#include "msg.h"
#include "record.h"
#include "redact.h"
#include "sig.h"
#include "text.h"
#include "util.h"
#include "banned.h"

#define MAX_STDIN ((size_t)16 << 20)
#define MAX_TRANSCRIPT ((size_t)256 << 20)

static const char final_prompt[] =
	"The step limit is reached: do not call any more tools. Answer now, as well as you can "
	"from what you have found so far, and say what is still unknown.";

static const char decide_prompt[] =
	"Before anyone answers the conversation above: would a web search help to answer its last "
	"request well (recent events, facts you are not sure of)? Answer with a JSON object only: "
	"{\"search\": true or false, \"query\": \"a short web search query, or an empty string\"}.";

static const char plan_prompt[] =
	"Before doing anything, write a short numbered plan for the task above: its steps, and "
	"the tools each step needs. Do not carry it out yet.";

static const char go_prompt[] =
	"Now carry out the plan, step by step, with the tools. Answer the task when it is done.";

/* MODE_PLAN: the plan model, without tools, before the first step. */
enum { MODE_STEP, MODE_FINAL, MODE_DECIDE, MODE_PLAN };

/* What a model call is collecting. */
struct ask {
	struct loop *L;
	int mode;
	struct ai_buf lines;    /* message, tool_call, usage: for the files and the conversation */
	struct ai_buf msgs;     /* the message lines alone: what is kept of a call that failed */
	int saw_usage, ok;
};

/* ---- output ---- */

static int emit(struct loop *L, const char *line, size_t len, int where, struct ai_err *e);

static int
write_fd(int fd, const char *what, const char *p, size_t n, struct ai_err *e)
{
	if (fd >= 0 && ai_write_all(fd, p, n) < 0)
		return ai_err_set(e, AI_EXIT_IOERR, "cannot write to %s: %s", what,
		    strerror(errno));
	return 0;
}

/*
 * A record line with every secret the suite knows (and their like)
 * replaced, to free; NULL when it holds none.  Whatever ai-loop writes or
 * sends goes through here.
 */
static char *
redacted(const char *line, size_t len)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	struct ai_err e = AI_ERR_INIT;
	cJSON *rec;
	char *out = NULL;

	/* a first look at the text: most records hold nothing to hide */
	ai_redact_output(&b, line, len);
	if (b.len == len && memcmp(b.buf, line, len) == 0 && ai_secret_json_plain()) {
		ai_buf_release(&b);
		return NULL;
	}
	ai_buf_release(&b);
	rec = ai_json_parse(line, len, &e);
	if (rec != NULL && ai_json_redact(rec))
		out = ai_json_print(rec);
	cJSON_Delete(rec);
	return out;
}

/* Redact every record line of b in place. */
static void
redact_lines(struct ai_buf *b)
{
	struct ai_buf out = AI_BUF_INIT(AI_BUF_NOLIMIT);
	const char *p = b->buf, *end = b->buf + b->len;
	int any = 0;

	while (p < end) {
		const char *lf = memchr(p, '\n', (size_t)(end - p));
		size_t len = lf ? (size_t)(lf - p) : (size_t)(end - p);
		char *r = redacted(p, len);

		ai_buf_adds(&out, r ? r : "");
		if (r == NULL)
			ai_buf_add(&out, p, len);
		if (lf != NULL)
			ai_buf_addc(&out, '\n');
		any |= r != NULL;
		free(r);
		p += len + (lf != NULL);
	}
	if (any) {
		ai_buf_reset(b);
		ai_buf_add(b, out.buf, out.len);
	}
	ai_buf_release(&out);
}

int
loop_emit(struct loop *L, const char *line, size_t len, int where, struct ai_err *e)
{
	char *r = redacted(line, len);
	int rc;

	if (r != NULL) {
		rc = emit(L, r, strlen(r), where, e);
		free(r);
		return rc;
	}
	return emit(L, line, len, where, e);
}

/* One record, already redacted, to each output where says. */
static int
emit(struct loop *L, const char *line, size_t len, int where, struct ai_err *e)
{
	if ((where & TO_STREAM) && L->o->json) {
		int rc;

		status_pause();
		rc = ai_out_write(stdout, line, len, e) < 0 || ai_out_write(stdout, "\n", 1, e) < 0 ||
		    ai_out_flush(stdout, e) < 0;
		status_resume();
		if (rc)
			return -1;
	}
	if ((where & TO_FILES) && L->holding) {
		ai_buf_add(&L->held, line, len);
		ai_buf_addc(&L->held, '\n');
	} else if (where & TO_FILES) {
		/* one write per record: a reader never sees half of one */
		char *rec = ai_xmalloc(len + 1);

		memcpy(rec, line, len);
		rec[len] = '\n';
		if (write_fd(L->tx_fd, "the transcript", rec, len + 1, e) < 0 ||
		    write_fd(L->cont_fd, "the transcript", rec, len + 1, e) < 0) {
			free(rec);
			return -1;
		}
		if (L->cont_fd >= 0)
			L->cont_added = 1;
		free(rec);
	}
	if (where & TO_CONV)
		conv_add(&L->conv, line, len);
	return 0;
}

/*
 * The model answered for the first time: the files get the conversation so
 * far, and every record from now on as it comes.  A run that fails before
 * leaves them as they were (a --continue file it created is removed).
 */
static int
release(struct loop *L, struct ai_err *e)
{
	int rc = 0;

	if (!L->holding)
		return 0;
	L->holding = 0;
	if (L->tx_fd >= 0 && (ftruncate(L->tx_fd, 0) < 0 ||
	    write_fd(L->tx_fd, "the transcript", L->hist.buf, L->hist.len, e) < 0 ||
	    write_fd(L->tx_fd, "the transcript", L->held.buf, L->held.len, e) < 0))
		rc = e->code ? -1 : ai_err_set(e, AI_EXIT_IOERR,
		    "cannot write to the transcript: %s", strerror(errno));
	if (rc == 0 && L->cont_fd >= 0 && L->cont_lf)
		rc = write_fd(L->cont_fd, "the transcript", "\n", 1, e);
	if (rc == 0 && L->cont_fd >= 0) {
		rc = write_fd(L->cont_fd, "the transcript", L->held.buf, L->held.len, e);
		L->cont_added = 1;
	}
	ai_buf_release(&L->hist);
	ai_buf_release(&L->held);
	return rc;
}

int
loop_emit_rec(struct loop *L, const cJSON *rec, int where, struct ai_err *e)
{
	char *s = ai_json_print(rec);
	int rc = loop_emit(L, s, strlen(s), where, e);

	free(s);
	return rc;
}

/* ---- input ---- */

/* --continue FILE: locked for the run, read, checked; created (0600) when missing. */
static int
open_continue(struct loop *L, struct ai_buf *hist, struct ai_err *e)
{
	const char *path = L->o->cont;
	struct ai_buf raw = AI_BUF_INIT(MAX_TRANSCRIPT);
	struct stat st;
	int fd, rc;

	fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 && errno == ENOENT) {
		fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0600);
		L->cont_created = fd >= 0;
	}
	if (fd < 0)
		return ai_err_set(e, AI_EXIT_NOINPUT, "cannot open transcript '%s': %s", path,
		    strerror(errno));
	L->cont_fd = fd;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return ai_err_set(e, AI_EXIT_NOINPUT, "transcript '%s' is not a regular file",
		    path);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0)
		return ai_err_set(e, AI_EXIT_TEMPFAIL, "transcript '%s' is in use by another run",
		    path);
	if (ai_read_fd(fd, &raw, path, e) < 0) {
		ai_buf_release(&raw);
		return -1;
	}
	{
		struct ai_buf what = AI_BUF_INIT(AI_BUF_NOLIMIT);

		ai_buf_addf(&what, "transcript '%s'", path);
		rc = ai_text_check(raw.buf, raw.len, what.buf, 0, 1, e);
		ai_buf_release(&what);
		if (rc < 0) {
			ai_buf_release(&raw);
			return -1;
		}
	}
	rc = conv_check_records(raw.buf, raw.len, path, hist, e);
	/* a last line without its LF: what is appended starts on a line of its own */
	L->cont_lf = raw.len > 0 && raw.buf[raw.len - 1] != '\n';
	ai_buf_release(&raw);
	return rc;
}

static int
open_outputs(struct loop *L, struct ai_err *e)
{
	int rc = 0;

	L->holding = 1;
	ai_buf_init(&L->hist, AI_BUF_NOLIMIT);
	ai_buf_init(&L->held, AI_BUF_NOLIMIT);
	if (L->o->cont != NULL)
		rc = open_continue(L, &L->hist, e);
	if (rc == 0 && L->o->transcript != NULL) {
		/* opened now, so that a path that cannot be written fails first; emptied later */
		L->tx_fd = open(L->o->transcript, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (L->tx_fd < 0 && errno == ENOENT) {
			L->tx_fd = open(L->o->transcript, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
			    O_NOCTTY, 0600);
			L->tx_created = L->tx_fd >= 0;
		}
		if (L->tx_fd < 0)
			rc = ai_err_set(e, AI_EXIT_IOERR, "cannot open transcript '%s': %s",
			    L->o->transcript, strerror(errno));
	}
	if (rc == 0 && L->hist.len > 0) {
		redact_lines(&L->hist);
		rc = conv_replace(&L->conv, L->hist.buf, L->hist.len, e);
	}
	return rc;
}

/*
 * The task, as ai-ask takes it: standard input (records, or plain text that
 * is the material) and the operands.
 */
static int
read_input(struct loop *L, struct ai_err *e)
{
	struct ai_buf in = AI_BUF_INIT(MAX_STDIN), text = AI_BUF_INIT(AI_BUF_NOLIMIT);
	const char *task = L->o->task;
	size_t before = L->conv.n;
	int rc = 0;

	if (!L->o->no_stdin && !isatty(0) && fcntl(0, F_GETFD) >= 0 &&
	    (ai_read_fd(0, &in, "standard input", e) < 0 ||
	    ai_text_check(in.buf, in.len, "standard input", 0, 1, e) < 0))
		rc = -1;
	if (rc == 0 && task != NULL && ai_text_check(task, strlen(task), "the task", 0, 1, e) < 0)
		rc = -1;
	if (rc == 0 && L->o->system != NULL &&
	    ai_text_check(L->o->system, strlen(L->o->system), "the system prompt (-s)", 0, 1, e) < 0)
		rc = -1;
	if (rc == 0 && ai_input_is_records(in.buf, in.len)) {
		struct ai_buf recs = AI_BUF_INIT(AI_BUF_NOLIMIT);
		const char *p, *end, *line;
		size_t len;

		/* an earlier tool failed: passed on, and no model is called */
		if (ai_records_upstream(in.buf, in.len, &line, &len, e)) {
			ai_error_pass(line, len, L->o->json, e);
			ai_buf_release(&in);
			return -1;
		}
		rc = conv_check_records(in.buf, in.len, "standard input", &recs, e);
		for (p = recs.buf, end = recs.buf + recs.len; rc == 0 && p < end;) {
			const char *lf = memchr(p, '\n', (size_t)(end - p));

			rc = loop_emit(L, p, (size_t)(lf - p), TO_ALL, e);
			p = lf + 1;
		}
		ai_buf_release(&recs);
	} else if (rc == 0) {
		size_t n = in.len;

		while (n > 0 && (in.buf[n - 1] == '\n' || in.buf[n - 1] == '\r' ||
		    in.buf[n - 1] == ' ' || in.buf[n - 1] == '\t'))
			n--;
		if (!ai_line_is_blank(in.buf, n))
			ai_buf_add(&text, in.buf, n);
	}
	if (rc == 0 && task != NULL && *task) {
		if (text.len > 0)
			ai_buf_adds(&text, "\n\n");
		ai_buf_adds(&text, task);
	}
	if (rc == 0 && text.len > 0) {
		cJSON *m = ai_record_message("user", text.buf);

		rc = loop_emit_rec(L, m, TO_ALL, e);
		cJSON_Delete(m);
	}
	if (rc == 0 && L->conv.n == before)
		rc = ai_err_set(e, AI_EXIT_USAGE,
		    "no task: give it as an argument or on standard input");
	ai_buf_release(&in);
	ai_buf_release(&text);
	return rc;
}

/* ---- counting ---- */

/* With --plan-model, each model's own totals (the usage record's model, else "unknown"). */
static void
account_model(struct loop *L, const cJSON *u)
{
	static const char *const fields[] = { "calls", "input_tokens", "cached_tokens",
		"output_tokens", "weighted_tokens", "cost_usd" };
	const char *model = ai_json_str(u, "model");
	cJSON *m;
	size_t i;

	if (L->by_model == NULL)
		L->by_model = cJSON_CreateObject();
	if (model == NULL || *model == '\0')
		model = "unknown";
	if ((m = cJSON_GetObjectItemCaseSensitive(L->by_model, model)) == NULL) {
		m = cJSON_AddObjectToObject(L->by_model, model);
		for (i = 0; i < AI_ARRAY_SIZE(fields); i++)
			ai_json_addnum(m, fields[i], 0);
	}
	for (i = 0; i < AI_ARRAY_SIZE(fields); i++) {
		const cJSON *v = ai_json_get(u, fields[i]);
		cJSON *t = cJSON_GetObjectItemCaseSensitive(m, fields[i]);
		double add = cJSON_IsNumber(v) ? v->valuedouble : i == 0 ? 1 : 0;

		if (i == 5 && !cJSON_IsNumber(v)) {
			/* a cost nobody knows: none for that model */
			cJSON_DeleteItemFromObjectCaseSensitive(m, "cost_usd");
			continue;
		}
		if (t != NULL)
			cJSON_SetNumberValue(t, t->valuedouble + add);
	}
}

/* A usage record: the calls, tokens and cost it reports count against the quotas. */
static void
account(struct loop *L, const cJSON *u)
{
	uint64_t calls = 1, in = 0, cached = 0, out = 0;
	const cJSON *w = ai_json_get(u, "weighted_tokens"), *cost = ai_json_get(u, "cost_usd");

	ai_json_u64(u, "calls", &calls);
	ai_json_u64(u, "input_tokens", &in);
	ai_json_u64(u, "cached_tokens", &cached);
	ai_json_u64(u, "output_tokens", &out);
	L->calls_made += calls;
	L->in_tok += in;
	L->cached_tok += cached;
	L->out_tok += out;
	if (cJSON_IsNumber(w))
		L->weighted += w->valuedouble;
	else
		L->weighted += (double)(in - (cached < in ? cached : in)) + 0.25 * (double)cached +
		    4 * (double)out;
	if (cJSON_IsNumber(cost))
		L->cost += cost->valuedouble;
	else
		L->cost_unknown = 1;
	if (L->o->plan_model != NULL)
		account_model(L, u);
	status_update();
}

/* The quota that stops the loop before another model call, or STOP_NONE. */
static int
quota_left(struct loop *L, struct ai_err *e)
{
	if (L->calls_made >= L->o->max_calls) {
		ai_err_set(e, AI_EXIT_LIMIT,
		    "the limit of %llu model calls is reached (--max-calls)",
		    (unsigned long long)L->o->max_calls);
		return STOP_MAX_CALLS;
	}
	if (L->weighted >= (double)L->o->budget) {
		ai_err_set(e, AI_EXIT_LIMIT,
		    "the budget of %llu weighted tokens is used up: %.0f used (--budget)",
		    (unsigned long long)L->o->budget, L->weighted);
		return STOP_BUDGET;
	}
	if (L->shared_budget != NULL && ai_budget_check(L->shared_budget, e) < 0)
		return e->code == AI_EXIT_LIMIT ? STOP_BUDGET : STOP_ERROR;
	return STOP_NONE;
}

/* ---- children's exit status ---- */

/*
 * A child's exit status as ours: the suite's codes pass on; a command line
 * it refused, or a crash, is ours to own.
 */
static int
child_code(const struct job *j)
{
	if (j->timed_out)
		return AI_EXIT_TEMPFAIL;
	switch (j->code) {
	case AI_EXIT_FAIL: case AI_EXIT_LIMIT: case AI_EXIT_FORMAT: case AI_EXIT_DATAERR:
	case AI_EXIT_NOINPUT: case AI_EXIT_UNAVAILABLE: case AI_EXIT_OSERR: case AI_EXIT_IOERR:
	case AI_EXIT_TEMPFAIL: case AI_EXIT_PROTOCOL: case AI_EXIT_POLICY: case AI_EXIT_CONFIG:
		return j->code;
	default:
		return AI_EXIT_SOFTWARE;
	}
}

/* The child failed: its own message (its error record's, else its stderr), and our status. */
static int
child_failed(struct loop *L, const struct job *j, const char *msg, struct ai_err *e)
{
	char st[768];

	if (L->o->verbose == 1)
		job_relay(j);
	if (msg != NULL)
		return ai_err_set(e, child_code(j), "%s: %s", j->name, msg);
	return ai_err_set(e, child_code(j), "'%s' %s", j->name, job_status(j, st, sizeof(st)));
}

/* ---- a model call ---- */

static int
ask_line(struct job *j, const char *line, size_t len, struct ai_err *e)
{
	struct ask *a = j->ctx;
	struct loop *L = a->L;
	const char *type, *s;
	cJSON *rec;
	int rc = 0;

	if (job_record(j, line, len, &rec, e) < 0)
		return -1;
	if (rec == NULL)
		return 0;
	type = ai_record_type(rec);
	if (strcmp(type, "message") == 0) {
		ai_buf_reset(&L->answer);
		if ((s = ai_json_str(rec, "content")) != NULL)
			ai_buf_adds(&L->answer, s);
		L->have_answer = 1;
		L->truncated = ai_json_bool(rec, "truncated", 0) == 1;
		L->refused = ai_json_bool(rec, "refusal", 0) == 1;
		if (a->mode != MODE_DECIDE) {
			rc = loop_emit(L, line, len, TO_STREAM, e);
			ai_buf_add(&a->lines, line, len);
			ai_buf_addc(&a->lines, '\n');
			ai_buf_add(&a->msgs, line, len);
			ai_buf_addc(&a->msgs, '\n');
		}
	} else if (strcmp(type, "reasoning") == 0 && a->mode != MODE_DECIDE) {
		/* kept in the conversation: a provider may need it back (signed thinking) */
		rc = loop_emit(L, line, len, TO_STREAM, e);
		ai_buf_add(&a->lines, line, len);
		ai_buf_addc(&a->lines, '\n');
	} else if (strcmp(type, "tool_call") == 0 && a->mode == MODE_STEP) {
		struct call *c;

		char *fixed = NULL;
		int changed;

		L->calls = ai_xrealloc(L->calls, (L->ncalls + 1) * sizeof(*L->calls));
		c = &L->calls[L->ncalls++];
		memset(c, 0, sizeof(*c));
		c->rec = rec;
		rec = NULL;
		if (ai_json_str(c->rec, "name") == NULL) {
			L->ncalls--;
			cJSON_Delete(c->rec);
			return ai_err_set(e, AI_EXIT_PROTOCOL, "'%s' wrote a tool call without a "
			    "name (line %lu)", j->name, j->out.lineno);
		}
		tools_accept(L, c, &changed);
		if (changed) {
			/* the call as the conversation keeps it: with the id it was given */
			fixed = ai_json_print(c->rec);
			line = fixed;
			len = strlen(fixed);
		}
		rc = loop_emit(L, line, len, TO_STREAM, e);
		ai_buf_add(&a->lines, line, len);
		ai_buf_addc(&a->lines, '\n');
		free(fixed);
	} else if (strcmp(type, "usage") == 0) {
		uint64_t in;

		a->saw_usage = 1;
		account(L, rec);
		if (a->mode != MODE_DECIDE && ai_json_u64(rec, "input_tokens", &in) == 1 &&
		    ai_json_bool(rec, "estimated", 0) != 1) {
			L->conv.cal_tokens = in;
			L->conv.cal_chars = L->sent_chars;
		}
		rc = loop_emit(L, line, len, TO_STREAM, e);
		if (a->mode != MODE_DECIDE) {
			ai_buf_add(&a->lines, line, len);
			ai_buf_addc(&a->lines, '\n');
		}
	} else if (strcmp(type, "error") == 0) {
		const cJSON *x = ai_json_get(rec, "exit");

		free(L->ask_err);
		L->ask_err = ai_xstrdup((s = ai_json_str(rec, "message")) ? s : "failed");
		L->ask_err_code = cJSON_IsNumber(x) ? x->valueint : 0;
		free(L->ask_err_line);
		L->ask_err_line = ai_xmemdup(line, len);
	}
	cJSON_Delete(rec);
	return rc;
}

/* Emit each line of buf (lines ending in LF). */
static int
emit_lines(struct loop *L, const struct ai_buf *b, int where, struct ai_err *e)
{
	const char *p = b->buf, *end = b->buf + b->len;

	while (p < end) {
		const char *lf = memchr(p, '\n', (size_t)(end - p));

		if (loop_emit(L, p, (size_t)(lf - p), where, e) < 0)
			return -1;
		p = lf + 1;
	}
	return 0;
}

/* The jobs to poll while a child of the loop runs: it, and the servers (so that their end is seen). */
static int
wait_for(struct loop *L, struct job *j, struct ai_err *e)
{
	struct job **jobs = ai_xcalloc(L->o->max_actions + 1, sizeof(*jobs));
	int rc = 0;

	while (rc == 0 && j->live) {
		jobs[0] = j;
		rc = jobs_poll(jobs, 1 + server_jobs(L, jobs + 1), -1, e);
	}
	free(jobs);
	return rc;
}

/* Options every model call passes on: -m, --provider, --timeout. */
static void
model_args(const struct lopts *o, struct args *a, const char *model, const char *timeout)
{
	args_opt(a, "-m", model);
	args_opt(a, "--provider", o->provider);
	args_opt(a, "--timeout", o->timeout_given ? timeout : NULL);
	if (o->verbose > 1)
		args_add(a, "-v");
}

/* The longest a model call may take before ai-loop stops it: ai-ask keeps to its own timeout. */
static int64_t
watchdog(const struct lopts *o)
{
	return (int64_t)(o->timeout * 1100) + 2000;
}

/*
 * One ai-ask on the whole conversation: with the tools (a step), without
 * them (the final answer at the cap), or with the search-decision prompt
 * and schema.  *ok says whether it succeeded; on failure e says why.
 */
static int
model_call(struct loop *L, int mode, struct ai_err *e)
{
	const struct lopts *o = L->o;
	char temp[32], maxtok[32], timeout[32];
	struct args argv = { NULL, 0, 0 };
	struct ask a;
	struct job j;
	int rc;

	memset(&a, 0, sizeof(a));
	a.L = L;
	a.mode = mode;
	ai_buf_init(&a.lines, AI_BUF_NOLIMIT);
	ai_buf_init(&a.msgs, AI_BUF_NOLIMIT);
	snprintf(temp, sizeof(temp), "%.6f", o->temperature);
	snprintf(maxtok, sizeof(maxtok), "%llu", (unsigned long long)o->max_tokens);
	snprintf(timeout, sizeof(timeout), "%.3f", o->timeout);
	args_add(&argv, L->ask);
	args_add(&argv, "--json");
	args_opt(&argv, "--tools", mode == MODE_STEP && L->tools_fd >= 0 ? L->tools_path : NULL);
	args_opt(&argv, "--schema", mode == MODE_DECIDE ? L->schema_path : NULL);
	model_args(o, &argv, mode == MODE_PLAN ? o->plan_model : o->model, timeout);
	if (mode != MODE_DECIDE) {
		args_opt(&argv, "--temperature", o->temperature_given ? temp : NULL);
		args_opt(&argv, "--max-tokens", o->max_tokens > 0 ? maxtok : NULL);
	}
	if (mode != MODE_DECIDE) {
		size_t i;

		/* every step sends the whole conversation: the files go with its task each time */
		for (i = 0; i < o->attach.n; i++)
			args_opt(&argv, "-a", o->attach.v[i]);
		args_opt(&argv, "--max-attach", o->attach.n > 0 ? o->max_attach : NULL);
	}
	args_opt(&argv, "--system-file", o->system_file);
	args_opt(&argv, "-s", o->system);
	if (mode == MODE_DECIDE)
		args_opt(&argv, "--", decide_prompt);

	{
		char doing[200];

		snprintf(doing, sizeof(doing), "%s %s", mode == MODE_DECIDE ?
		    "asking whether to search:" : mode == MODE_FINAL ? "the final answer:" :
		    mode == MODE_PLAN ? "planning:" : "asking",
		    mode == MODE_PLAN ? o->plan_model : o->model ? o->model : "the model");
		status_doing(doing);
	}
	ai_buf_reset(&L->answer);
	L->have_answer = L->truncated = L->refused = 0;
	free(L->ask_err);
	free(L->ask_err_line);
	L->ask_err = L->ask_err_line = NULL;
	L->sent_chars = L->conv.chars;
	rc = job_start(&j, "ai-ask", KIND_ASK, L->ask, argv.v, NULL, o->verbose > 1, ask_line, &a,
	    e);
	args_free(&argv);
	if (rc < 0) {
		ai_buf_release(&a.lines);
		ai_buf_release(&a.msgs);
		return -1;
	}
	job_send(&j, L->conv.text.buf, L->conv.text.len);
	job_close_input(&j);
	j.deadline = ai_now_ms() + watchdog(o);
	rc = wait_for(L, &j, e);
	if (!a.saw_usage && j.started) {
		/* a call without a usage record still counts, at a cost nobody knows */
		L->calls_made++;
		L->cost_unknown = 1;
	}
	if (rc == 0) {
		a.ok = j.code == 0 && !j.timed_out;
		if (a.ok && mode != MODE_DECIDE)
			rc = release(L, e);
		/* the answer joins the conversation; of a call that failed, only its text */
		if (rc == 0 && mode != MODE_DECIDE)
			rc = emit_lines(L, a.ok ? &a.lines : &a.msgs, TO_FILES | TO_CONV, e);
		if (rc == 0 && !a.ok) {
			rc = child_failed(L, &j, L->ask_err, e);
			/* the model refused: a stop of its own, not an error of the loop */
			if (L->refused && e->code == AI_EXIT_FAIL)
				L->stop = STOP_REFUSAL;
		}
	}
	job_free(&j);
	ai_buf_release(&a.lines);
	ai_buf_release(&a.msgs);
	return rc;
}

/*
 * --plan-model: the plan model, once and without tools, writes a plan for
 * the task; the plan and the request to carry it out join the
 * conversation, and the steps go on with -m's model.
 */
static int
plan(struct loop *L, struct ai_err *e)
{
	cJSON *m = ai_record_message("user", plan_prompt);
	int64_t t = ai_now_ms();
	int stop, rc;
	char ms[32];

	if ((stop = quota_left(L, e)) != STOP_NONE) {
		L->stop = stop;
		cJSON_Delete(m);
		return -1;
	}
	rc = loop_emit_rec(L, m, TO_ALL, e);
	cJSON_Delete(m);
	if (rc < 0 || model_call(L, MODE_PLAN, e) < 0)
		return -1;
	if (L->o->verbose)
		ai_error("plan by %s (%s)", L->o->plan_model, ai_fmt_ms(ai_now_ms() - t, ms,
		    sizeof(ms)));
	m = ai_record_message("user", go_prompt);
	rc = loop_emit_rec(L, m, TO_ALL, e);
	cJSON_Delete(m);
	return rc;
}

/* ---- compaction ---- */

static int
context_line(struct job *j, const char *line, size_t len, struct ai_err *e)
{
	struct ai_buf *out = j->ctx;

	(void)e;
	ai_buf_add(out, line, len);
	ai_buf_addc(out, '\n');
	return 0;
}

/* ai-context --stats says what its summarising call cost: it counts against the quotas. */
static int
context_usage(struct loop *L, const struct job *j, struct ai_err *e)
{
	const char *p = j->err.buf, *end = j->err.buf + j->err.len;
	unsigned long long in, out, calls;

	while (p < end) {
		const char *lf = memchr(p, '\n', (size_t)(end - p));
		size_t len = lf ? (size_t)(lf - p) : (size_t)(end - p);
		char line[256];

		if (len < sizeof(line)) {
			int got;

			memcpy(line, p, len);
			line[len] = '\0';
			got = sscanf(line, "ai-context: summary: %llu input tokens, %llu output "
			    "tokens, %llu call", &in, &out, &calls);
			if (got >= 2) {
				cJSON *u = ai_record_new("usage");
				int rc;

				ai_json_addnum(u, "input_tokens", (double)in);
				ai_json_addnum(u, "cached_tokens", 0);
				ai_json_addnum(u, "output_tokens", (double)out);
				ai_json_addnum(u, "calls", got == 3 ? (double)calls : 1);
				ai_json_addnum(u, "weighted_tokens", (double)in + 4 * (double)out);
				account(L, u);
				rc = loop_emit_rec(L, u, TO_STREAM, e);
				cJSON_Delete(u);
				return rc;
			}
		}
		p += len + (lf != NULL);
	}
	return 0;
}

/*
 * Before a step: over 80% of --context-budget, ai-context
 * shrinks the conversation.
 */
static int
maybe_compact(struct loop *L, struct ai_err *e)
{
	const struct lopts *o = L->o;
	uint64_t before = conv_tokens(&L->conv);
	size_t nbefore = L->conv.n;
	char budget[32], timeout[32], libexec[4096 + 32], *slash;
	const char *env[] = { libexec, NULL };
	struct args argv = { NULL, 0, 0 };
	struct ai_buf out = AI_BUF_INIT(AI_BUF_NOLIMIT);
	struct job j;
	int rc;

	if (before * 5 <= o->context_budget * 4 || before < L->compact_floor)
		return 0;
	if (L->context == NULL)
		return ai_err_set(e, AI_EXIT_UNAVAILABLE, "the conversation needs compacting, and "
		    "'ai-context' is not found (%s)", o->libexec ?
		    "looked in the libexec directory" : "looked next to ai-loop and in PATH");
	snprintf(budget, sizeof(budget), "%llu", (unsigned long long)o->context_budget);
	snprintf(timeout, sizeof(timeout), "%.3f", o->timeout);
	/* the summary is made by the same ai-ask as the steps */
	slash = strrchr(L->ask, '/');
	snprintf(libexec, sizeof(libexec), "AICLI_LIBEXEC=%.*s", slash ? (int)(slash - L->ask) : 1,
	    slash ? L->ask : ".");
	status_doing("compacting the conversation");
	args_add(&argv, L->context);
	args_opt(&argv, "--budget", budget);
	args_add(&argv, "--stats");
	model_args(o, &argv, o->model, timeout);
	rc = job_start(&j, "ai-context", KIND_CONTEXT, L->context, argv.v, env, 0, context_line,
	    &out, e);
	args_free(&argv);
	if (rc < 0)
		return -1;
	job_send(&j, L->conv.text.buf, L->conv.text.len);
	job_close_input(&j);
	j.deadline = ai_now_ms() + watchdog(o);
	rc = wait_for(L, &j, e);
	if (rc == 0 && (j.code == 0 || j.code == AI_EXIT_LIMIT) && !j.timed_out) {
		if (o->verbose > 1)
			job_relay(&j);
		rc = context_usage(L, &j, e);
		redact_lines(&out);
		if (rc == 0 && conv_replace(&L->conv, out.buf, out.len, e) < 0) {
			ai_err_prefix(e, "'ai-context' wrote a malformed record");
			e->code = AI_EXIT_PROTOCOL;
			rc = -1;
		}
		if (rc == 0 && o->verbose)
			ai_error("compacted the conversation: about %llu tokens in %zu records, "
			    "now %llu in %zu", (unsigned long long)before, nbefore,
			    (unsigned long long)conv_tokens(&L->conv), L->conv.n);
		/* as small as it gets: not again before it has grown by a quarter of the budget */
		L->compact_floor = rc == 0 && j.code == AI_EXIT_LIMIT ?
		    conv_tokens(&L->conv) + o->context_budget / 4 : 0;
		if (rc == 0 && j.code == AI_EXIT_LIMIT && !L->over_warned++)
			ai_warn("the conversation is still larger than --context-budget %llu after "
			    "compacting", (unsigned long long)o->context_budget);
	} else if (rc == 0) {
		rc = child_failed(L, &j, NULL, e);
	}
	job_free(&j);
	ai_buf_release(&out);
	return rc;
}

/* ---- auto-search (--auto-search) ---- */

static int
found_line(struct job *j, const char *line, size_t len, struct ai_err *e)
{
	struct ai_buf *hits = j->ctx;
	cJSON *rec;

	if (job_record(j, line, len, &rec, e) < 0)
		return -1;
	if (rec == NULL)
		return 0;
	if (strcmp(ai_record_type(rec), "search_result") == 0) {
		ai_buf_add(hits, line, len);
		ai_buf_addc(hits, '\n');
	}
	cJSON_Delete(rec);
	return 0;
}

/*
 * Ask the model, with a short JSON-only prompt, whether a search is needed
 * and for what; search only if so, and add the results to the conversation
 * as search_result records.  A decision that cannot be read, or a search
 * that fails, is a warning: the model still answers, without results.
 */
static int
auto_search(struct loop *L, struct ai_err *e)
{
	struct ai_buf hits = AI_BUF_INIT(AI_BUF_NOLIMIT);
	struct ai_err pe = AI_ERR_INIT;
	const char *query = NULL;
	cJSON *d = NULL;
	struct job j;
	int rc, yes = 0;

	rc = model_call(L, MODE_DECIDE, e);
	if (rc < 0 && e->code == AI_EXIT_FORMAT) {
		ai_warn("the model's search decision is not JSON; answering without a search");
		ai_err_clear(e);
		free(L->ask_err_line);
		L->ask_err_line = NULL;
		return 0;
	}
	if (rc < 0)
		return -1;
	if ((d = ai_json_parse(L->answer.buf, L->answer.len, &pe)) != NULL) {
		yes = ai_json_bool(d, "search", 0) == 1;
		query = ai_json_str(d, "query");
	}
	if (d == NULL || ai_json_bool(d, "search", 0) < 0 || (yes && (query == NULL ||
	    ai_line_is_blank(query, strlen(query))))) {
		ai_warn("the model's search decision cannot be read; answering without a search");
		cJSON_Delete(d);
		return 0;
	}
	if (L->o->verbose)
		ai_error("auto-search: %s%s%s", yes ? "searching for '" : "no search needed",
		    yes ? query : "", yes ? "'" : "");
	if (!yes) {
		cJSON_Delete(d);
		return 0;
	}
	if (search_run(L, &j, query, 5, found_line, &hits, e) < 0) {
		ai_warn("%s; answering without a search", e->msg);
		ai_err_clear(e);
		cJSON_Delete(d);
		return 0;
	}
	rc = wait_for(L, &j, e);
	if (rc == 0 && (j.code != 0 || j.timed_out)) {
		char st[768];

		if (L->o->verbose == 1)
			job_relay(&j);
		ai_warn("'ai-search' %s; answering without search results",
		    job_status(&j, st, sizeof(st)));
	} else if (rc == 0) {
		rc = emit_lines(L, &hits, TO_ALL, e);
	}
	job_free(&j);
	ai_buf_release(&hits);
	cJSON_Delete(d);
	return rc;
}

/* ---- the end ---- */

static const char *const stop_names[] = { "", "answer", "max_steps", "max_calls", "budget",
	"error", "interrupted", "refusal" };

/* The answer on stdout (text mode), sanitized on a terminal, ending with a newline. */
static int
print_answer(struct loop *L, struct ai_err *e)
{
	struct ai_buf out = AI_BUF_INIT(AI_BUF_NOLIMIT), red = AI_BUF_INIT(AI_BUF_NOLIMIT);
	int rc;

	if (L->o->json || !L->have_answer)
		return 0;
	ai_redact_output(&red, L->answer.buf, L->answer.len);
	if (isatty(1))
		ai_term_sanitize(&out, red.buf, red.len);
	else
		ai_buf_add(&out, red.buf, red.len);
	ai_buf_release(&red);
	if (out.len == 0 || out.buf[out.len - 1] != '\n')
		ai_buf_addc(&out, '\n');
	rc = ai_out_write(stdout, out.buf, out.len, e);
	if (rc == 0)
		rc = ai_out_flush(stdout, e);
	ai_buf_release(&out);
	return rc;
}

/* The totals: a result record (--json), a line on stderr (-v, --usage). */
static int
report(struct loop *L, int code, struct ai_err *e)
{
	int64_t ms = ai_now_ms() - L->t0;
	const char *status = code == 0 ? "ok" : code == AI_EXIT_LIMIT ? "limit" : "error";
	const cJSON *m;
	int rc = 0;

	if (L->o->verbose || L->o->usage) {
		char cost[48] = "", dur[32];

		if (!L->cost_unknown)
			snprintf(cost, sizeof(cost), "; $%.6f", L->cost);
		ai_error("%s after %lu step%s; %lu model call%s; tokens: %llu input (%llu cached), "
		    "%llu output, %.0f weighted%s; %s", stop_names[L->stop], L->steps,
		    L->steps == 1 ? "" : "s", L->calls_made, L->calls_made == 1 ? "" : "s",
		    (unsigned long long)L->in_tok, (unsigned long long)L->cached_tok,
		    (unsigned long long)L->out_tok, L->weighted, cost,
		    ai_fmt_ms(ms, dur, sizeof(dur)));
		cJSON_ArrayForEach(m, L->by_model) {
			const cJSON *c = ai_json_get(m, "cost_usd");

			cost[0] = '\0';
			if (cJSON_IsNumber(c))
				snprintf(cost, sizeof(cost), "; $%.6f", c->valuedouble);
			ai_error("  %s: %.0f model call%s; tokens: %.0f input (%.0f cached), %.0f output, "
			    "%.0f weighted%s", m->string,
			    cJSON_GetNumberValue(ai_json_get(m, "calls")),
			    cJSON_GetNumberValue(ai_json_get(m, "calls")) == 1 ? "" : "s",
			    cJSON_GetNumberValue(ai_json_get(m, "input_tokens")),
			    cJSON_GetNumberValue(ai_json_get(m, "cached_tokens")),
			    cJSON_GetNumberValue(ai_json_get(m, "output_tokens")),
			    cJSON_GetNumberValue(ai_json_get(m, "weighted_tokens")), cost);
		}
	}
	if (L->o->json) {
		cJSON *r = ai_record_new("result");

		ai_json_addstr(r, "status", status);
		ai_json_addstr(r, "stop_reason", stop_names[L->stop]);
		ai_json_addnum(r, "steps", (double)L->steps);
		ai_json_addnum(r, "calls", (double)L->calls_made);
		ai_json_addnum(r, "input_tokens", (double)L->in_tok);
		ai_json_addnum(r, "cached_tokens", (double)L->cached_tok);
		ai_json_addnum(r, "output_tokens", (double)L->out_tok);
		ai_json_addnum(r, "weighted_tokens", L->weighted);
		if (!L->cost_unknown)
			ai_json_addnum(r, "cost_usd", L->cost);
		ai_json_addnum(r, "duration_ms", (double)ms);
		if (L->by_model != NULL)
			cJSON_AddItemToObject(r, "models", cJSON_Duplicate(L->by_model, 1));
		rc = loop_emit_rec(L, r, TO_STREAM, e);
		cJSON_Delete(r);
	}
	return rc;
}

/* ---- the loop ---- */

static int
steps(struct loop *L, struct ai_err *e)
{
	const struct lopts *o = L->o;
	int stop;

	if (o->auto_search && auto_search(L, e) < 0)
		return -1;
	if (o->plan_model != NULL && plan(L, e) < 0)
		return -1;
	for (;;) {
		int64_t t;
		char ms[32];

		if ((stop = quota_left(L, e)) != STOP_NONE) {
			L->stop = stop;
			return -1;
		}
		if (maybe_compact(L, e) < 0)
			return -1;
		if ((stop = quota_left(L, e)) != STOP_NONE) {
			L->stop = stop;
			return -1;
		}
		t = ai_now_ms();
		if (L->steps >= o->max_steps) {
			/* the best answer so far, without tools */
			cJSON *m = ai_record_message("user", final_prompt);
			int rc = loop_emit_rec(L, m, TO_ALL, e);

			cJSON_Delete(m);
			if (rc < 0 || model_call(L, MODE_FINAL, e) < 0)
				return -1;
			if (o->verbose)
				ai_error("step limit %llu reached: the final answer (%s)",
				    (unsigned long long)o->max_steps, ai_fmt_ms(ai_now_ms() - t, ms,
				    sizeof(ms)));
			L->stop = STOP_MAX_STEPS;
			return ai_err_set(e, AI_EXIT_LIMIT, "the step limit of %llu is reached "
			    "(--max-steps); the answer is the best so far",
			    (unsigned long long)o->max_steps);
		}
		L->steps++;
		if (model_call(L, MODE_STEP, e) < 0)
			return -1;
		if (o->verbose && L->ncalls == 0)
			ai_error("step %lu: answer (%s)", L->steps,
			    ai_fmt_ms(ai_now_ms() - t, ms, sizeof(ms)));
		else if (o->verbose)
			ai_error("step %lu: %zu tool call%s (%s)", L->steps, L->ncalls,
			    L->ncalls == 1 ? "" : "s", ai_fmt_ms(ai_now_ms() - t, ms, sizeof(ms)));
		if (L->ncalls == 0) {
			L->stop = STOP_ANSWER;
			return 0;
		}
		status_calls(L);
		if (tools_dispatch(L, e) < 0 || tools_wait(L, e) < 0)
			return -1;
		tools_free_calls(L);
	}
}

/*
 * After the loop: the answer on stdout (also the best one at --max-steps,
 * and what arrived of one that was cut), the failure as a record (--json),
 * the totals.  A failure to write stdout becomes the exit status.
 */
static int
conclude(struct loop *L, int code, struct ai_err *e)
{
	struct ai_err we = AI_ERR_INIT;
	int answer = L->stop == STOP_ANSWER || L->stop == STOP_MAX_STEPS ||
	    (code == AI_EXIT_LIMIT && L->truncated) || (code == AI_EXIT_FAIL && L->have_answer);

	status_end();
	if (answer && print_answer(L, &we) < 0)
		goto failed;
	if (L->o->json && code != 0 && code != AI_EXIT_INTERRUPT && code != AI_EXIT_TERM &&
	    code != AI_EXIT_HANGUP && !e->passed) {
		int rc;

		if (L->ask_err_line != NULL) {
			rc = loop_emit(L, L->ask_err_line, strlen(L->ask_err_line), TO_STREAM, &we);
		} else {
			cJSON *er = ai_record_error("ai-loop", e);

			rc = loop_emit_rec(L, er, TO_STREAM, &we);
			cJSON_Delete(er);
		}
		if (rc < 0)
			goto failed;
	}
	if (report(L, code, &we) < 0)
		goto failed;
	return code;
failed:
	if (code == 0 || we.code == AI_EXIT_PIPE) {
		*e = we;
		return we.code;
	}
	return code;
}

/*
 * The budget the children draw on, in the environment they inherit
 * (AICLI_BUDGET_FILE): a budget file given (--budget-file, or the
 * environment), which this run checks before every step too; else a file
 * of this run's own --max-calls and --budget, so that what a child spends
 * (ai-ask, ai-context, and their children) counts against them.  It fails
 * first: a spent or broken budget file stops the run before anything runs.
 */
static int
budget_setup(struct loop *L, struct ai_err *e)
{
	const char *env = getenv("AICLI_BUDGET_FILE"), *tmp = getenv("TMPDIR");
	struct ai_budget_use limit;
	int fd;

	L->shared_budget = L->o->budget_file != NULL ? L->o->budget_file :
	    env != NULL && *env ? env : NULL;
	if (L->shared_budget != NULL) {
		if (ai_budget_check(L->shared_budget, e) < 0)
			return -1;
		if (setenv("AICLI_BUDGET_FILE", L->shared_budget, 1) < 0)
			return ai_err_set(e, AI_EXIT_OSERR, "cannot set AICLI_BUDGET_FILE");
		return 0;
	}
	snprintf(L->own_budget, sizeof(L->own_budget), "%s/aicli-budget.XXXXXX",
	    tmp != NULL && *tmp == '/' ? tmp : "/tmp");
	if ((fd = mkstemp(L->own_budget)) < 0) {
		L->own_budget[0] = '\0';
		return ai_err_set(e, AI_EXIT_OSERR, "cannot create a budget file: %s",
		    strerror(errno));
	}
	close(fd);
	ai_sig_remove_on_signal(L->own_budget);
	limit.calls = (double)L->o->max_calls;
	limit.weighted = (double)L->o->budget;
	limit.cost = 0;
	if (ai_budget_create(L->own_budget, &limit, e) < 0)
		return -1;
	if (setenv("AICLI_BUDGET_FILE", L->own_budget, 1) < 0)
		return ai_err_set(e, AI_EXIT_OSERR, "cannot set AICLI_BUDGET_FILE");
	return 0;
}

int
loop_run(struct loop *L, struct ai_err *e)
{
	int rc, code;

	L->t0 = ai_now_ms();
	L->tx_fd = L->cont_fd = -1;
	conv_init(&L->conv);
	ai_buf_init(&L->answer, AI_BUF_NOLIMIT);
	child_setup();
	status_start(L);
	rc = budget_setup(L, e);
	if (rc == 0)
		rc = open_outputs(L, e);
	if (rc == 0)
		tools_seen(L, L->hist.buf, L->hist.len);
	if (rc == 0)
		rc = read_input(L, e);
	if (rc == 0)
		rc = tools_setup(L, e);
	if (rc == 0 && (L->o->files.n > 0 || L->o->urls.n > 0 || L->o->policy != NULL))
		rc = server_start(L, e);
	if (rc == 0)
		rc = steps(L, e);
	code = rc == 0 ? 0 : e->code ? e->code : AI_EXIT_SOFTWARE;
	if (code == AI_EXIT_INTERRUPT || code == AI_EXIT_TERM || code == AI_EXIT_HANGUP)
		L->stop = STOP_INTERRUPTED;
	else if (code != 0 && L->stop == STOP_NONE)
		L->stop = STOP_ERROR;
	if (L->ncalls > 0) {
		/* the calls of an unfinished step get a result each: the transcript stays whole */
		struct ai_err we = AI_ERR_INIT;

		server_kill(L);
		tools_abandon(L, L->stop == STOP_INTERRUPTED ?
		    "interrupted before the tool answered" :
		    "the loop stopped before the tool answered", &we);
	}
	tools_free_calls(L);
	server_stop(L);
	status_end();
	if (code != AI_EXIT_PIPE)
		code = conclude(L, code, e);
	if (L->cont_fd >= 0) {
		if (L->cont_created && !L->cont_added)
			unlink(L->o->cont);
		close(L->cont_fd);
	}
	if (L->tx_fd >= 0) {
		if (L->tx_created && L->holding)
			unlink(L->o->transcript);
		close(L->tx_fd);
	}
	if (L->own_budget[0]) {
		unlink(L->own_budget);
		ai_sig_keep(L->own_budget);
	}
	ai_buf_release(&L->hist);
	ai_buf_release(&L->held);
	if (L->tools_fd >= 0)
		close(L->tools_fd);
	if (L->schema_fd >= 0)
		close(L->schema_fd);
	conv_free(&L->conv);
	cJSON_Delete(L->by_model);
	ai_buf_release(&L->answer);
	free(L->ask_err);
	free(L->ask_err_line);
	while (L->nwarned > 0)
		free(L->warned[--L->nwarned]);
	free(L->warned);
	while (L->nids > 0)
		free(L->ids[--L->nids]);
	free(L->ids);
	return code;
}
