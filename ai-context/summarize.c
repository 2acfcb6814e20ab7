/* summarize.c: the summary made by a model, through ai-ask. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "summarize.h"
#include "compact.h"
#include "json.h"
#include "msg.h"
#include "proc.h"
#include "record.h"
#include "redact.h"
#include "text.h"
#include "util.h"
#include "banned.h"

static const char schema[] =
	"{\"type\":\"object\",\"properties\":{"
	"\"content\":{\"type\":\"string\"},"
	"\"key_facts\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
	"\"open_tasks\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},"
	"\"required\":[\"content\",\"key_facts\",\"open_tasks\"],"
	"\"additionalProperties\":false}\n";

static const char system_prompt[] =
	"You compact conversations between a user, an assistant and its tools. "
	"Answer with the JSON object the schema describes and nothing else.";

static const char prompt[] =
	"Summarise the conversation above so that the summary can replace it. "
	"content: what the user asked for, what was done, found and decided, in at most 200 words. "
	"key_facts: facts that later turns may need (names, paths, URLs, numbers, decisions, constraints). "
	"open_tasks: what is still to be done. "
	"Merge any earlier summary into yours: keep its key facts and open tasks unless the "
	"conversation settled them. Never include secrets.";

/* Add s, cut to its first and last halves of max bytes when longer. */
static void
add_capped(struct ai_buf *b, const char *s, size_t n, size_t max)
{
	size_t head, tail;

	if (n <= max) {
		ai_buf_add(b, s, n);
		return;
	}
	head = ai_utf8_cut(s, n, max / 2);
	tail = ai_utf8_start(s, n, n - max / 2);
	ai_buf_add(b, s, head);
	ai_buf_addf(b, "\n[... %zu bytes left out ...]\n", tail - head);
	ai_buf_add(b, s + tail, n - tail);
}

static void
add_value(struct ai_buf *b, const cJSON *v)
{
	if (cJSON_IsString(v)) {
		ai_buf_adds(b, v->valuestring);
	} else {
		char *p = ai_json_print(v);

		ai_buf_adds(b, p);
		free(p);
	}
}

static void
add_list(struct ai_buf *b, const char *title, const cJSON *a)
{
	const cJSON *m;

	if (!cJSON_IsArray(a) || a->child == NULL)
		return;
	ai_buf_addf(b, "\n%s:", title);
	for (m = a->child; m != NULL; m = m->next) {
		ai_buf_adds(b, "\n- ");
		add_value(b, m);
	}
}

/* One record as text. */
static void
render_one(struct ai_buf *b, const cJSON *rec, int kind)
{
	const char *name = ai_json_str(rec, "name"), *id = ai_json_str(rec, "id");
	const cJSON *m;

	switch (kind) {
	case AC_SUMMARY:
		ai_buf_adds(b, "Earlier summary:\n");
		add_value(b, ai_json_get(rec, "content"));
		add_list(b, "Key facts", ai_json_get(rec, "key_facts"));
		add_list(b, "Open tasks", ai_json_get(rec, "open_tasks"));
		break;
	case AC_USER:
	case AC_ASSISTANT: {
		const char *role = ai_json_str(rec, "role");

		ai_buf_addf(b, "%s:\n", role ? role : "assistant");
		add_value(b, ai_json_get(rec, "content"));
		break;
	}
	case AC_TOOL_CALL:
		ai_buf_addf(b, "tool call %s (id %s): ", name ? name : "?", id ? id : "?");
		add_value(b, ai_json_get(rec, "arguments"));
		break;
	case AC_TOOL_RESULT:
		ai_buf_addf(b, "tool result %s (id %s):", name ? name : "?", id ? id : "?");
		for (m = rec->child; m != NULL; m = m->next) {
			if (strcmp(m->string, "type") == 0 || strcmp(m->string, "name") == 0 ||
			    strcmp(m->string, "id") == 0)
				continue;
			if ((cJSON_IsString(m) && m->valuestring[0] == '\0') || cJSON_IsNull(m))
				continue;
			ai_buf_addf(b, "\n%s:%s", m->string,
			    cJSON_IsString(m) && strchr(m->valuestring, '\n') ? "\n" : " ");
			add_value(b, m);
		}
		break;
	case AC_SEARCH: {
		const cJSON *snippet = ai_json_get(rec, "snippet");
		const char *q = ai_json_str(rec, "query");

		ai_buf_adds(b, "search result");
		if ((m = ai_json_get(rec, "rank")) != NULL && cJSON_IsNumber(m))
			ai_buf_addf(b, " %.0f", m->valuedouble);
		if (q != NULL)
			ai_buf_addf(b, " for \"%s\"", q);
		ai_buf_adds(b, ": ");
		add_value(b, ai_json_get(rec, "title"));
		ai_buf_adds(b, " <");
		add_value(b, ai_json_get(rec, "url"));
		ai_buf_adds(b, ">");
		if (cJSON_IsString(snippet) && snippet->valuestring[0]) {
			ai_buf_addc(b, '\n');
			add_value(b, snippet);
		}
		break;
	}
	default:
		break;
	}
}

void
ac_render(const struct ac_transcript *t, const size_t *idx, size_t n, size_t max,
    struct ai_buf *out)
{
	struct ai_buf *blocks = ai_xcalloc(n ? n : 1, sizeof(*blocks)), doc = AI_BUF_INIT(AI_BUF_NOLIMIT);
	size_t i, total = 0, left_out = 0;
	char *skip = ai_xcalloc(n ? n : 1, 1);

	for (i = 0; i < n; i++) {
		struct ai_buf one = AI_BUF_INIT(AI_BUF_NOLIMIT);
		struct ai_err e = AI_ERR_INIT;
		size_t len;
		const char *line = ac_line(t, idx[i], &len);
		cJSON *rec = ai_json_parse(line, len, &e);
		int kind = t->r[idx[i]].kind;

		ai_buf_init(&blocks[i], AI_BUF_NOLIMIT);
		if (rec != NULL)
			render_one(&one, rec, kind);
		cJSON_Delete(rec);
		if (kind == AC_SUMMARY)
			ai_buf_add(&blocks[i], one.buf, one.len);
		else
			add_capped(&blocks[i], one.buf, one.len, AC_BLOCK_MAX);
		ai_buf_release(&one);
		total += blocks[i].len + 2;
	}
	/* over the cap: leave out the oldest records, never an earlier summary */
	for (i = 0; i < n && total > max; i++)
		if (t->r[idx[i]].kind != AC_SUMMARY) {
			skip[i] = 1;
			total -= blocks[i].len + 2;
			left_out++;
		}
	if (left_out > 0)
		ai_buf_addf(&doc, "[%zu older record%s left out]\n\n", left_out, left_out == 1 ? "" : "s");
	for (i = 0; i < n; i++) {
		if (!skip[i]) {
			ai_buf_add(&doc, blocks[i].buf, blocks[i].len);
			ai_buf_adds(&doc, "\n\n");
		}
		ai_buf_release(&blocks[i]);
	}
	ai_redact(out, doc.buf, doc.len);
	ai_buf_release(&doc);
	free(blocks);
	free(skip);
}

static int
string_array(const cJSON *a)
{
	const cJSON *m;

	if (!cJSON_IsArray(a))
		return 0;
	for (m = a->child; m != NULL; m = m->next)
		if (!cJSON_IsString(m))
			return 0;
	return 1;
}

static cJSON *
redacted_array(const cJSON *a)
{
	cJSON *r = cJSON_CreateArray();
	const cJSON *m;

	for (m = a->child; m != NULL; m = m->next) {
		char *s = ai_redact_str(m->valuestring);

		cJSON_AddItemToArray(r, cJSON_CreateString(s));
		free(s);
	}
	return r;
}

cJSON *
ac_parse_answer(const char *text, size_t n, struct ai_err *e)
{
	cJSON *v = ai_json_parse(text, n, e), *sum;
	const cJSON *kf, *ot;
	const char *content, *bad = NULL;
	char *s;

	if (v == NULL) {
		ai_err_prefix(e, "the summary from 'ai-ask' is not JSON");
		e->code = AI_EXIT_FORMAT;
		return NULL;
	}
	content = ai_json_str(v, "content");
	kf = ai_json_get(v, "key_facts");
	ot = ai_json_get(v, "open_tasks");
	if (!cJSON_IsObject(v))
		bad = "it is not an object";
	else if (content == NULL)
		bad = "'content' is not a string";
	else if (!string_array(kf))
		bad = "'key_facts' is not an array of strings";
	else if (!string_array(ot))
		bad = "'open_tasks' is not an array of strings";
	if (bad != NULL) {
		cJSON_Delete(v);
		ai_err_set(e, AI_EXIT_FORMAT, "the summary from 'ai-ask' is not in the requested format: %s",
		    bad);
		return NULL;
	}
	sum = cJSON_CreateObject();
	s = ai_redact_str(content);
	ai_json_addstr(sum, "content", s);
	free(s);
	cJSON_AddItemToObject(sum, "key_facts", redacted_array(kf));
	cJSON_AddItemToObject(sum, "open_tasks", redacted_array(ot));
	cJSON_Delete(v);
	return sum;
}

/* The schema file lives only while ai-ask runs; a signal must not leave it behind. */
static char schema_path[PATH_MAX];

static void
on_signal(int sig)
{
	if (schema_path[0])
		unlink(schema_path);
	signal(sig, SIG_DFL);
	raise(sig);
}

static int
write_schema(struct ai_err *e)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
	if ((size_t)snprintf(schema_path, sizeof(schema_path), "%s/ai-context.XXXXXX", dir) >=
	    sizeof(schema_path)) {
		schema_path[0] = '\0';
		return ai_err_set(e, AI_EXIT_OSERR, "TMPDIR is too long");
	}
	if ((fd = mkstemp(schema_path)) < 0) {
		ai_err_set(e, AI_EXIT_OSERR, "cannot create a file in '%s': %s", dir, strerror(errno));
		schema_path[0] = '\0';
		return -1;
	}
	if (ai_write_all(fd, schema, sizeof(schema) - 1) < 0) {
		ai_err_set(e, AI_EXIT_OSERR, "cannot write '%s': %s", schema_path, strerror(errno));
		close(fd);
		unlink(schema_path);
		schema_path[0] = '\0';
		return -1;
	}
	close(fd);
	return 0;
}

/* Relay the child's diagnostics (already "ai-ask: ..." lines), made safe. */
static void
relay(const struct ai_buf *err)
{
	ai_relay(err->buf, err->len);
}

/* ai-ask's exit status as ours: the suite's codes pass, anything else is ours to own. */
static int
child_code(int code)
{
	switch (code) {
	case AI_EXIT_LIMIT:
		/* the summary was cut at the maximum length: an answer cut short */
		return AI_EXIT_PROTOCOL;
	case AI_EXIT_FAIL: case AI_EXIT_FORMAT: case AI_EXIT_DATAERR:
	case AI_EXIT_NOINPUT: case AI_EXIT_UNAVAILABLE: case AI_EXIT_OSERR: case AI_EXIT_IOERR:
	case AI_EXIT_TEMPFAIL: case AI_EXIT_PROTOCOL: case AI_EXIT_POLICY: case AI_EXIT_CONFIG:
	case AI_EXIT_INTERRUPT: case AI_EXIT_TERM:
		return code;
	default:
		return AI_EXIT_SOFTWARE; /* 64 included: the command line was ours */
	}
}

/*
 * ai-ask's records: the answer text (the last message) and the usage.
 * *http_error says whether an error record carries an HTTP status (a key
 * the service refused, as opposed to no key at all).
 */
static int
read_answer(struct ac_summarizer *s, const struct ai_buf *out, char **answer, int *http_error,
    struct ai_err *e)
{
	const char *p = out->buf, *end = out->buf + out->len;
	unsigned long lineno = 0;

	*answer = NULL;
	*http_error = 0;
	while (p < end) {
		const char *lf = memchr(p, '\n', (size_t)(end - p));
		size_t len = lf ? (size_t)(lf - p) : (size_t)(end - p);
		const char *type, *content;
		cJSON *rec;
		uint64_t v;

		lineno++;
		if (!ai_line_is_blank(p, len)) {
			if ((rec = ai_record_parse(p, len, lineno, e)) == NULL) {
				free(*answer);
				*answer = NULL;
				ai_err_prefix(e, "cannot read the output of 'ai-ask'");
				e->code = AI_EXIT_PROTOCOL;
				return -1;
			}
			type = ai_record_type(rec);
			if (strcmp(type, "message") == 0 &&
			    (content = ai_json_str(rec, "content")) != NULL) {
				free(*answer);
				/* an answer cut at the maximum length is no summary */
				*answer = ai_json_bool(rec, "truncated", 0) == 0 ? ai_xstrdup(content) :
				    NULL;
			} else if (strcmp(type, "usage") == 0) {
				s->have_usage = 1;
				if (ai_json_u64(rec, "input_tokens", &v) == 1)
					s->in_tokens += v;
				if (ai_json_u64(rec, "output_tokens", &v) == 1)
					s->out_tokens += v;
			} else if (strcmp(type, "error") == 0 && ai_json_get(rec, "status") != NULL) {
				*http_error = 1;
			}
			cJSON_Delete(rec);
		}
		p += len + (lf != NULL);
	}
	return 0;
}

/*
 * Run ai-ask on the document: the schema file exists only meanwhile (also
 * when a signal ends this process), stdout and stderr are captured (stderr
 * is left to the terminal with -v).  *code is its exit status.
 */
static int
run_ask(struct ac_summarizer *s, const struct ai_buf *doc, struct ai_buf *out,
    struct ai_buf *err, int *code, struct ai_err *e)
{
	static const char *const env_unset[] = { "BRAVE_API_KEY", "TAVILY_API_KEY", "EXA_API_KEY",
		"GOOGLE_CSE_CX", NULL };
	struct sigaction sa, old_int, old_term, old_hup;
	struct ai_child c;
	const char *argv[16];
	char timeout_env[64];
	const char *env_set[] = { timeout_env, NULL };
	size_t k = 0;
	int rc;

	if (write_schema(e) < 0)
		return -1;
	argv[k++] = s->program;
	argv[k++] = "--json";
	argv[k++] = "--schema";
	argv[k++] = schema_path;
	argv[k++] = "-s";
	argv[k++] = system_prompt;
	if (s->model != NULL) {
		argv[k++] = "-m";
		argv[k++] = s->model;
	}
	if (s->provider != NULL) {
		argv[k++] = "--provider";
		argv[k++] = s->provider;
	}
	if (s->verbose)
		argv[k++] = "-v";
	argv[k++] = "--";
	argv[k++] = prompt;
	argv[k] = NULL;
	snprintf(timeout_env, sizeof(timeout_env), "AICLI_TIMEOUT=%.3f", s->timeout_s);
	memset(&c, 0, sizeof(c));
	c.path = s->program;
	c.argv = (char *const *)argv;
	c.env_set = env_set;
	c.env_unset = env_unset;
	c.in = AI_FD_PIPE;
	c.out = AI_FD_PIPE;
	c.err = s->verbose ? AI_FD_INHERIT : AI_FD_PIPE;
	c.die_with_parent = 1;
	if (s->verbose)
		ai_error("summarising with '%s' --json --schema '%s'%s%s%s%s: %zu bytes on its stdin",
		    s->program, schema_path, s->model ? " -m " : "", s->model ? s->model : "",
		    s->provider ? " --provider " : "", s->provider ? s->provider : "", doc->len);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	/* ai-ask keeps to AICLI_TIMEOUT itself; the margin only catches one that hangs */
	rc = ai_child_run(&c, doc->buf, doc->len, out, s->verbose ? NULL : err,
	    (int64_t)((s->timeout_s + 10) * 1000), e);
	unlink(schema_path);
	schema_path[0] = '\0';
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	*code = rc < 0 ? -1 : ai_child_exit_code(&c);
	return rc;
}

int
ac_summarize(void *ctx, const struct ac_transcript *t, const size_t *idx, size_t n,
    cJSON **summary, struct ai_err *e)
{
	struct ac_summarizer *s = ctx;
	struct ai_buf doc = AI_BUF_INIT(AI_BUF_NOLIMIT), out = AI_BUF_INIT(8 << 20),
	    err = AI_BUF_INIT(1 << 20);
	char *answer = NULL;
	int code, http_error = 0, ret = -1;

	*summary = NULL;
	if (s->program == NULL) {
		if (!s->explicit_model)
			return 1;
		return ai_err_set(e, AI_EXIT_UNAVAILABLE, "cannot summarise: 'ai-ask' not found (%s)",
		    s->where);
	}
	ac_render(t, idx, n, s->doc_max, &doc);
	if (s->verbose)
		ai_error("summarising %zu records", n);
	if (run_ask(s, &doc, &out, &err, &code, e) < 0) {
		relay(&err);
		if (e->code == AI_EXIT_DATAERR)
			e->code = AI_EXIT_PROTOCOL; /* its output passed the cap */
		ai_err_prefix(e, "cannot summarise");
		goto done;
	}
	if (read_answer(s, &out, &answer, &http_error, e) < 0 && code == 0)
		goto done;
	if (code == AI_EXIT_CONFIG && !http_error && !s->explicit_model) {
		/* no key: no model is configured */
		if (s->verbose)
			relay(&err);
		ai_err_clear(e);
		ret = 1;
		goto done;
	}
	if (code != 0) {
		relay(&err);
		ai_err_set(e, child_code(code), "cannot summarise: 'ai-ask' failed (exit status %d)",
		    code);
		goto done;
	}
	if (answer == NULL) {
		relay(&err);
		ai_err_set(e, AI_EXIT_PROTOCOL, "cannot summarise: 'ai-ask' wrote no answer");
		goto done;
	}
	if ((*summary = ac_parse_answer(answer, strlen(answer), e)) == NULL)
		goto done;
	ret = 0;
done:
	free(answer);
	ai_buf_release(&doc);
	ai_buf_release(&out);
	ai_buf_release(&err);
	return ret;
}
