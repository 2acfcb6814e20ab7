/*
 * ask.c: one exchange: gather the input, make the request, write the answer.
 *
 * Output rules (see ai-ask(1)): in text mode the answer goes to stdout as it
 * arrives, flushed, sanitized when stdout is a terminal, and ends with a
 * newline; in JSON mode the records message (when the answer has text),
 * tool_call (one per call) and usage are written once the answer is
 * complete, with delta records before them under --stream.  An answer cut
 * short by the network never yields a message record.  An answer cut at the
 * maximum length is written, marked "truncated", and ends the run with the
 * limit status; a --schema answer that is not a JSON object (also out of
 * one fenced block) becomes the fallback object, and one that does not
 * follow the schema is written as it is: both end with the format status.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ask.h"
#include "budget.h"
#include "http.h"
#include "io.h"
#include "json.h"
#include "msg.h"
#include "record.h"
#include "sig.h"
#include "text.h"
#include "url.h"
#include "util.h"
#include "banned.h"

struct run {
	struct opts *o;
	struct conv conv;
	struct answer ans;
	struct ai_buf in;          /* standard input */
	int in_records;            /* ... and it is records */
	char *user_text;           /* the user turn made from the prompt and plain input */
	cJSON *tools, *schema;
	struct attach *att;        /* the files of -a */
	size_t natt;
	int tx_fd;                 /* the --continue transcript, locked, or -1 */
	int tx_created;
	struct ai_buf tx;
	int tty;                   /* stdout is a terminal */
	struct ai_sanitizer z;
	char last;                 /* the last byte of text written to stdout */
	size_t written;
	size_t body_len;           /* of every request made */
	uint64_t pauses;           /* continuations of a paused turn */
	uint64_t in_tok, cached_tok, out_tok; /* the usage of the requests before the last */
	char service[300];
	int live;                  /* the answer is written as it arrives */
	/* the request in progress (exch_begin .. exch_end) */
	char **headers;            /* borrowed, unless owns_headers */
	int owns_headers;
	cJSON *body;
	char *text;                /* the body as sent */
	struct stream *s;
	struct ai_http_req req;
	struct ai_http_resp resp;
	int has_resp;
	struct ai_buf cbuf;        /* --cache: the body as it arrived */
	char ctype[128];           /* ... its content type */
	int hit_now;               /* the cache answered this request */
	int budget_refused;        /* the shared budget was spent before the request */
	int nocache;               /* ... with an entry that was no answer: ask */
	uint64_t hits;             /* requests the cache answered */
	int attempts;              /* left */
	int64_t start, deadline, backoff;
	/* what a retry takes back: nothing before it, nothing already written */
	size_t text0, calls0, emitted0;
	uint64_t in0, cached0, out0;
	int usage0;
};

/* ---- files ---- */

static int
read_json_file(const char *path, const char *what, cJSON **out, struct ai_err *e)
{
	struct ai_buf b = AI_BUF_INIT(ASK_MAX_FILE);
	int rc = ai_read_file(path, &b, ASK_MAX_FILE, e);

	if (rc == 0 && (*out = ai_json_parse(b.buf, b.len, e)) == NULL) {
		ai_err_prefix(e, "%s '%s'", what, path);
		rc = -1;
	}
	ai_buf_release(&b);
	return rc;
}

int
name_ok(const char *s)
{
	size_t n;

	for (n = 0; s[n]; n++)
		if (!((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ||
		    (s[n] >= '0' && s[n] <= '9') || s[n] == '_' || s[n] == '-'))
			return 0;
	return n > 0 && n <= 64;
}

/* A JSON array of {name, description, parameters}: what every provider can declare. */
static int
check_tools(const char *path, const cJSON *tools, struct ai_err *e)
{
	const cJSON *t;
	int i = 0;

	if (!cJSON_IsArray(tools) || cJSON_GetArraySize(tools) == 0)
		return ai_err_set(e, AI_EXIT_DATAERR,
		    "tools file '%s' must hold a non-empty JSON array of tools", path);
	cJSON_ArrayForEach(t, tools) {
		const char *name = ai_json_str(t, "name");
		const cJSON *d = ai_json_get(t, "description"), *p = ai_json_get(t, "parameters");
		const cJSON *u;

		i++;
		if (!cJSON_IsObject(t))
			return ai_err_set(e, AI_EXIT_DATAERR, "tools file '%s': tool %d is not an object",
			    path, i);
		if (name == NULL || !name_ok(name))
			return ai_err_set(e, AI_EXIT_DATAERR,
			    "tools file '%s': tool %d needs a \"name\" of 1 to 64 letters, digits, _ or -",
			    path, i);
		if (d != NULL && !cJSON_IsString(d))
			return ai_err_set(e, AI_EXIT_DATAERR,
			    "tools file '%s': tool '%s': \"description\" must be a string", path, name);
		if (p != NULL && !cJSON_IsObject(p))
			return ai_err_set(e, AI_EXIT_DATAERR,
			    "tools file '%s': tool '%s': \"parameters\" must be a JSON Schema object",
			    path, name);
		cJSON_ArrayForEach(u, tools) {
			if (u == t)
				break;
			if (strcmp(ai_json_str(u, "name"), name) == 0)
				return ai_err_set(e, AI_EXIT_DATAERR,
				    "tools file '%s': tool '%s' is declared twice", path, name);
		}
	}
	return 0;
}

/* Every provider wants an object at the top of the schema. */
static int
check_schema(const char *path, const cJSON *s, struct ai_err *e)
{
	const char *type = ai_json_str(s, "type");

	if (!cJSON_IsObject(s) || (ai_json_get(s, "type") != NULL &&
	    (type == NULL || strcmp(type, "object") != 0)))
		return ai_err_set(e, AI_EXIT_DATAERR,
		    "schema file '%s' must hold a JSON Schema for an object ({\"type\": \"object\", ...})",
		    path);
	if (schema_lint(s, e) < 0) {
		ai_err_prefix(e, "schema file '%s'", path);
		e->code = AI_EXIT_DATAERR;
		return -1;
	}
	return 0;
}

/* ---- the transcript of --continue ---- */

/*
 * The transcript is locked for the whole run, so that two runs cannot
 * interleave their appends; it is created (mode 0600) if missing, and
 * removed again if this run adds nothing to it.
 */
static int
open_transcript(struct run *r, const char *path, struct ai_err *e)
{
	struct stat st;
	char what[PATH_MAX + 16];

	r->tx_fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0600);
	if (r->tx_fd >= 0) {
		/* nothing is in it yet: a signal does not leave it behind */
		r->tx_created = 1;
		ai_sig_remove_on_signal(path);
	}
	else if (errno == EEXIST)
		r->tx_fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (r->tx_fd < 0)
		return ai_err_set(e, AI_EXIT_NOINPUT, "cannot open transcript '%s': %s", path,
		    strerror(errno));
	if (fstat(r->tx_fd, &st) < 0 || !S_ISREG(st.st_mode))
		return ai_err_set(e, AI_EXIT_NOINPUT, "transcript '%s' is not a regular file", path);
	if (flock(r->tx_fd, LOCK_EX | LOCK_NB) < 0)
		return ai_err_set(e, AI_EXIT_TEMPFAIL, "transcript '%s' is in use by another process",
		    path);
	snprintf(what, sizeof(what), "transcript '%s'", path);
	if (ai_read_fd(r->tx_fd, &r->tx, path, e) < 0 ||
	    ai_text_check(r->tx.buf, r->tx.len, what, 0, 1, e) < 0)
		return -1;
	if (!ai_line_is_blank(r->tx.buf, r->tx.len) && !ai_input_is_records(r->tx.buf, r->tx.len))
		return ai_err_set(e, AI_EXIT_DATAERR, "transcript '%s' does not hold records", path);
	return 0;
}

static void
close_transcript(struct run *r)
{
	if (r->tx_fd < 0)
		return;
	if (r->tx_created) {
		struct stat st;

		if (fstat(r->tx_fd, &st) == 0 && st.st_size == 0)
			unlink(r->o->continue_file);
		ai_sig_keep(r->o->continue_file);
	}
	close(r->tx_fd);
	r->tx_fd = -1;
}

static void
add_record_line(struct ai_buf *b, const cJSON *rec)
{
	char *s = ai_json_print(rec);

	ai_buf_adds(b, s);
	ai_buf_addc(b, '\n');
	free(s);
}

/* Append this exchange: its input records, then the answer's records, in one write. */
static int
append_transcript(struct run *r, const cJSON *answer_recs, struct ai_err *e)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	const cJSON *rec;
	int rc = 0;

	if (r->tx.len > 0 && r->tx.buf[r->tx.len - 1] != '\n')
		ai_buf_addc(&b, '\n');
	if (r->in_records) {
		ai_buf_add(&b, r->in.buf, r->in.len);
		if (r->in.len > 0 && r->in.buf[r->in.len - 1] != '\n')
			ai_buf_addc(&b, '\n');
	}
	if (r->user_text != NULL) {
		cJSON *m = ai_record_message("user", r->user_text);

		add_record_line(&b, m);
		cJSON_Delete(m);
	}
	cJSON_ArrayForEach(rec, answer_recs)
		add_record_line(&b, rec);
	if (lseek(r->tx_fd, 0, SEEK_END) < 0 || ai_write_all(r->tx_fd, b.buf, b.len) < 0)
		rc = ai_err_set(e, AI_EXIT_IOERR, "cannot append to transcript '%s': %s",
		    r->o->continue_file, strerror(errno));
	else
		ai_sig_keep(r->o->continue_file);
	ai_buf_release(&b);
	return rc;
}

/* ---- input ---- */

/*
 * Standard input: records, in which an error record stops the run before
 * anything costs (aicli(7)), or text, which must be text (text.h).
 */
static int
read_stdin(struct run *r, struct ai_err *e)
{
	const char *line;
	size_t len;

	if (r->o->no_stdin || isatty(0) || fcntl(0, F_GETFD) < 0)
		return 0;
	if (ai_read_fd(0, &r->in, "standard input", e) < 0 ||
	    ai_text_check(r->in.buf, r->in.len, "standard input", 0, 1, e) < 0)
		return -1;
	r->in_records = ai_input_is_records(r->in.buf, r->in.len);
	if (r->in_records && ai_records_upstream(r->in.buf, r->in.len, &line, &len, e))
		return ai_error_pass(line, len, r->o->json, e);
	return 0;
}

/* System context, transcript, standard input, prompt: the conversation. */
static int
build_system(struct run *r, struct ai_err *e)
{
	struct opts *o = r->o;

	if (o->system_file != NULL) {
		struct ai_buf b = AI_BUF_INIT(ASK_MAX_FILE);

		char what[PATH_MAX + 16];

		snprintf(what, sizeof(what), "'%s'", o->system_file);
		if (ai_read_file(o->system_file, &b, ASK_MAX_FILE, e) < 0 ||
		    ai_text_check(b.buf, b.len, what, 0, 1, e) < 0) {
			ai_buf_release(&b);
			return -1;
		}
		conv_add_system(&r->conv, b.buf, b.len);
		ai_buf_release(&b);
	}
	if (o->system != NULL)
		conv_add_system(&r->conv, o->system, strlen(o->system));
	return 0;
}

static int
build_conv(struct run *r, struct ai_err *e)
{
	struct opts *o = r->o;

	if (build_system(r, e) < 0)
		return -1;
	if (r->tx_fd >= 0 && conv_add_records(&r->conv, r->tx.buf, r->tx.len, o->continue_file, e) < 0)
		return -1;
	if (r->in_records) {
		if (conv_add_records(&r->conv, r->in.buf, r->in.len, "standard input", e) < 0)
			return -1;
		if (o->prompt != NULL && *o->prompt)
			r->user_text = ai_xstrdup(o->prompt);
	} else {
		/* plain text is the material, the prompt the instruction after it */
		struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
		size_t n = r->in.len;

		while (n > 0 && (r->in.buf[n - 1] == '\n' || r->in.buf[n - 1] == '\r' ||
		    r->in.buf[n - 1] == ' ' || r->in.buf[n - 1] == '\t'))
			n--;
		if (!ai_line_is_blank(r->in.buf, n))
			ai_buf_add(&b, r->in.buf, n);
		if (o->prompt != NULL && *o->prompt) {
			if (b.len > 0)
				ai_buf_adds(&b, "\n\n");
			ai_buf_adds(&b, o->prompt);
		}
		if (b.len > 0)
			r->user_text = ai_buf_detach(&b, NULL);
		ai_buf_release(&b);
	}
	if (r->user_text != NULL)
		conv_add_user(&r->conv, r->user_text, strlen(r->user_text));
	return conv_check(&r->conv, e);
}

/* ---- output ---- */

/* Write answer text to stdout: sanitized on a terminal, flushed at once. */
static int
emit(struct run *r, const char *p, size_t n, struct ai_err *e)
{
	int rc;

	spinner_stop();
	if (n == 0)
		return 0;
	if (r->tty) {
		struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);

		ai_sanitize_feed(&r->z, &b, p, n);
		rc = ai_out_write(stdout, b.buf, b.len, e);
		ai_buf_release(&b);
	} else {
		rc = ai_out_write(stdout, p, n, e);
	}
	r->last = p[n - 1];
	r->written += n;
	return rc < 0 ? -1 : ai_out_flush(stdout, e);
}

static int
on_text(void *ctx, const char *p, size_t n, struct ai_err *e)
{
	struct run *r = ctx;
	cJSON *d;
	int rc;

	if (!r->o->json)
		return emit(r, p, n, e);
	spinner_stop();
	d = ai_record_new("delta");
	ai_json_addstrn(d, "text", p, n);
	rc = ai_record_write(stdout, d, e);
	cJSON_Delete(d);
	return rc;
}

/* The end of partial text in text mode: a newline, so the shell prompt starts clean. */
static void
end_line(struct run *r)
{
	struct ai_err ignore = AI_ERR_INIT;

	if (!r->o->json && r->written > 0 && r->last != '\n')
		emit(r, "\n", 1, &ignore);
}

static cJSON *
usage_record(struct run *r, struct price *price, int *priced)
{
	const struct answer *a = &r->ans;
	uint64_t in = a->input, cached = a->cached, out = a->output, written = a->written;
	cJSON *u = ai_record_new("usage");
	size_t i, chars = a->text.len;
	int hit = r->hits > 0 && r->hits == 1 + r->pauses;

	if (!a->has_usage) {
		/* no count from the provider: estimate at four bytes a token */
		for (i = 0; i < a->ncalls; i++)
			chars += a->calls[i].args.len;
		in = (r->body_len + 3) / 4;
		cached = written = 0;
		out = (chars + 3) / 4;
	}
	ai_json_addstr(u, "model", r->o->k.model);
	ai_json_addnum(u, "input_tokens", (double)in);
	ai_json_addnum(u, "cached_tokens", (double)cached);
	if (written > 0)
		ai_json_addnum(u, "cache_write_tokens", (double)written);
	ai_json_addnum(u, "output_tokens", (double)out);
	ai_json_addnum(u, "calls", (double)(1 + r->pauses - r->hits));
	/* answered from the cache: nothing was spent */
	ai_json_addnum(u, "weighted_tokens", hit ? 0 : usage_weighted(in, cached, out));
	*priced = price_find(r->o->prices, r->o->k.model, a->model, price);
	if (*priced)
		ai_json_addnum(u, "cost_usd", hit ? 0 : usage_cost(price, in, cached, written, out));
	if (hit)
		ai_json_addbool(u, "cache_hit", 1);
	if (!a->has_usage)
		ai_json_addbool(u, "estimated", 1);
	return u;
}

void
ask_print_usage(const cJSON *u)
{
	char cost[64] = "";

	if (ai_json_get(u, "cost_usd") != NULL)
		snprintf(cost, sizeof(cost), ", $%.6f", cJSON_GetObjectItemCaseSensitive(u,
		    "cost_usd")->valuedouble);
	ai_error("usage: %.0f input tokens (%.0f cached), %.0f output tokens, %.15g weighted%s%s (%s)",
	    cJSON_GetObjectItemCaseSensitive(u, "input_tokens")->valuedouble,
	    cJSON_GetObjectItemCaseSensitive(u, "cached_tokens")->valuedouble,
	    cJSON_GetObjectItemCaseSensitive(u, "output_tokens")->valuedouble,
	    cJSON_GetObjectItemCaseSensitive(u, "weighted_tokens")->valuedouble, cost,
	    ai_json_get(u, "estimated") ? ", estimated" : "", ai_json_str(u, "model"));
}

/* s[0..n), blanks around it aside, as a JSON object (*off, *len: where); else NULL. */
static cJSON *
object_in(const char *s, size_t n, size_t *off, size_t *len)
{
	struct ai_err pe = AI_ERR_INIT;
	size_t i = 0;
	cJSON *v;

	while (i < n && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t'))
		i++;
	while (n > i && (s[n - 1] == ' ' || s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == '\t'))
		n--;
	v = ai_json_parse(s + i, n - i, &pe);
	if (!cJSON_IsObject(v)) {
		cJSON_Delete(v);
		return NULL;
	}
	*off = i;
	*len = n - i;
	return v;
}

/*
 * The JSON object of an answer: the whole text, else the one fenced block in
 * it (the model wrapped its JSON in ```json ... ```).
 */
static cJSON *
schema_json(const char *s, size_t n, size_t *off, size_t *len)
{
	size_t fo, fl;
	cJSON *v = object_in(s, n, off, len);

	if (v != NULL || !schema_fenced(s, n, &fo, &fl))
		return v;
	v = object_in(s + fo, fl, off, len);
	*off += fo;
	return v;
}

/*
 * The answer that a --schema run prints: the model's JSON object as it gave
 * it (trimmed, and out of its fence), checked against the schema (*code 4
 * and why when it does not follow it), or the fallback object when there is
 * no JSON object (*code 4 too).
 */
static char *
schema_answer(const struct ai_buf *text, const cJSON *schema, int *code, struct ai_err *why)
{
	size_t off = 0, len = 0;
	cJSON *v = schema_json(text->buf ? text->buf : "", text->len, &off, &len);
	char *out;

	*code = 0;
	if (v == NULL) {
		cJSON *f = cJSON_CreateObject();

		ai_json_addstrn(f, "result", text->buf, text->len);
		ai_json_addbool(f, "_fallback", 1);
		ai_json_addstr(f, "_reason", "model_output_was_not_valid_json");
		out = ai_json_print(f);
		cJSON_Delete(f);
		*code = AI_EXIT_FORMAT;
		ai_err_set(why, AI_EXIT_FORMAT, "the answer is not a JSON object: wrote the fallback "
		    "object {\"result\": ..., \"_fallback\": true} instead");
		return out;
	}
	if (schema_check(schema, v, why) < 0)
		*code = AI_EXIT_FORMAT;
	cJSON_Delete(v);
	return ai_xmemdup(text->buf + off, len);
}

/*
 * The records of the complete answer into out_recs (reasoning, message,
 * tool_call, usage last); its status: 0, or -1 with e set when the answer
 * is incomplete, a refusal or not in the format asked for.
 */
int
exch_records(struct run *r, cJSON *out_recs, struct ai_err *e)
{
	struct answer *a = &r->ans;
	struct opts *o = r->o;
	const char *text = a->text.buf;
	char *schema_text = NULL;
	size_t i, tlen = a->text.len;
	int code = 0, priced = 0;
	struct ai_err why = AI_ERR_INIT;
	struct price price;
	cJSON *rec;

	if (a->stop == STOP_LENGTH || a->stop == STOP_PAUSE)
		code = AI_EXIT_LIMIT;
	else if (a->stop == STOP_FILTER || a->stop == STOP_REFUSAL)
		code = AI_EXIT_FAIL;
	else if (o->k.schema != NULL) {
		schema_text = schema_answer(&a->text, o->k.schema, &code, &why);
		text = schema_text;
		tlen = strlen(schema_text);
	}
	for (i = 0; i < a->nthoughts; i++) {
		const struct thought *t = &a->thoughts[i];

		if (t->text.len == 0 && t->sig == NULL && t->data == NULL)
			continue;
		rec = ai_record_new("reasoning");
		ai_json_addstr(rec, "provider", o->k.p->name);
		ai_json_addstrn(rec, "text", t->text.buf ? t->text.buf : "", t->text.len);
		if (t->sig != NULL)
			ai_json_addstr(rec, "signature", t->sig);
		if (t->data != NULL)
			ai_json_addstr(rec, "data", t->data);
		cJSON_AddItemToArray(out_recs, rec);
	}
	if (tlen > 0 || o->k.schema != NULL) {
		rec = ai_record_new("message");
		ai_json_addstr(rec, "role", "assistant");
		ai_json_addstrn(rec, "content", text, tlen);
		/* a refusal is marked as one; an answer cut short as truncated (a filter's, both) */
		if (code == AI_EXIT_FAIL)
			ai_json_addbool(rec, "refusal", 1);
		if (code == AI_EXIT_LIMIT || a->stop == STOP_FILTER)
			ai_json_addbool(rec, "truncated", 1);
		cJSON_AddItemToArray(out_recs, rec);
	}
	free(schema_text);
	for (i = 0; i < a->ncalls; i++) {
		rec = ai_record_new("tool_call");
		ai_json_addstr(rec, "id", a->calls[i].id);
		ai_json_addstr(rec, "name", a->calls[i].name);
		cJSON_AddItemToObject(rec, "arguments", cJSON_Duplicate(a->calls[i].obj, 1));
		if (a->calls[i].sig != NULL)
			ai_json_addstr(rec, "signature", a->calls[i].sig);
		/* arguments that are not an object: the model's text, for the caller to answer */
		if (a->calls[i].malformed)
			ai_json_addstrn(rec, "arguments_text", a->calls[i].args.buf,
			    a->calls[i].args.len);
		cJSON_AddItemToArray(out_recs, rec);
	}
	cJSON_AddItemToArray(out_recs, usage_record(r, &price, &priced));
	if (code == AI_EXIT_LIMIT && a->stop == STOP_PAUSE)
		return ai_err_set(e, code, "the answer is incomplete: %s paused the turn %llu times "
		    "(--max-pauses %llu)", a->service, (unsigned long long)o->max_pauses + 1,
		    (unsigned long long)o->max_pauses);
	if (code == AI_EXIT_LIMIT)
		return ai_err_set(e, code, "the answer is incomplete: it reached the maximum length "
		    "(%s said '%s'); raise --max-tokens", a->service, a->stop_word);
	if (code == AI_EXIT_FAIL && a->stop == STOP_FILTER)
		return ai_err_set(e, code, "%s stopped the answer: a refusal ('%s')", a->service,
		    a->stop_word);
	if (code == AI_EXIT_FAIL)
		return ai_err_set(e, code, "the model refused to answer (%s said '%s')", a->service,
		    a->stop_word);
	if (code == AI_EXIT_FORMAT) {
		*e = why;
		return -1;
	}
	return 0;
}

/* Write the complete answer; its records also go into out_recs (for the transcript). */
static int
write_answer(struct run *r, int live, cJSON *out_recs, struct ai_err *e)
{
	struct answer *a = &r->ans;
	struct opts *o = r->o;
	struct ai_err status = AI_ERR_INIT;
	int code = exch_records(r, out_recs, &status) < 0 ? status.code : 0, rc = 0;
	const cJSON *rec, *usage = cJSON_GetArrayItem(out_recs, cJSON_GetArraySize(out_recs) - 1);
	size_t i;

	spinner_stop();
	if (o->json) {
		cJSON_ArrayForEach(rec, out_recs)
			if ((rc = ai_record_write(stdout, rec, e)) < 0)
				break;
	} else {
		const char *text = "";

		cJSON_ArrayForEach(rec, out_recs)
			if (strcmp(ai_record_type(rec), "message") == 0)
				text = ai_json_str(rec, "content");
		if (!live)
			rc = emit(r, text, strlen(text), e);
		end_line(r);
		for (i = 0; rc == 0 && i < a->ncalls; i++) {
			char *args = ai_json_print(a->calls[i].obj);
			struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);

			ai_buf_addf(&b, "%s(%s)\n", a->calls[i].name, args);
			rc = emit(r, b.buf, b.len, e);
			ai_buf_release(&b);
			cJSON_free(args);
		}
	}
	if (rc == 0 && o->usage)
		ask_print_usage(usage);
	if (rc < 0)
		return -1;
	if (a->text.len == 0 && a->ncalls == 0 && code == 0)
		ai_warn("the answer from %s is empty", a->service);
	if (code != 0) {
		*e = status;
		return -1;
	}
	return 0;
}

/* ---- the request ---- */

/* 'host' or 'host:port', as lib/http names a service in its messages. */
static void
service_name(const char *url, char *out, size_t n)
{
	struct ai_err e = AI_ERR_INIT;
	struct ai_url u;

	if (ai_url_parse(url, &u, &e) < 0) {
		snprintf(out, n, "'%s'", url);
		return;
	}
	if (u.port == (strcmp(u.scheme, "https") == 0 ? 443 : 80))
		snprintf(out, n, "'%s'", u.host);
	else
		snprintf(out, n, "'%s:%d'", u.host, u.port);
	ai_url_free(&u);
}

/* After a refused key, say where the key came from (never the key). */
static void
hint_key(const struct opts *o, struct ai_err *e)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	const char *from = o->key_from;
	size_t n;

	if (e->code != AI_EXIT_CONFIG || (e->status != 401 && e->status != 403) || from == NULL)
		return;
	ai_buf_addf(&b, "%s (the key from %s%s)", e->msg,
	    strcmp(from, "config file") == 0 ? "" : "$", from);
	n = b.len < sizeof(e->msg) - 1 ? b.len : sizeof(e->msg) - 1;
	memcpy(e->msg, b.buf, n);
	e->msg[n] = '\0';
	ai_buf_release(&b);
}

/* One header line, allocated. */
static char *
header(const char *fmt, const char *name, const char *value)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);

	ai_buf_addf(&b, fmt, name, value);
	return ai_buf_detach(&b, NULL);
}

/*
 * The headers of a request: the key in the adapter's header, the
 * provider's own, then the profile's extra headers.  Free with
 * ask_headers_free.
 */
char **
ask_headers(const struct opts *o)
{
	size_t n = 4 + (o->headers != NULL ? (size_t)cJSON_GetArraySize(o->headers) : 0), k = 0;
	char **h = ai_xcalloc(n + 1, sizeof(*h));
	const cJSON *it;

	h[k++] = ai_xstrdup("Content-Type: application/json");
	if (o->k.key != NULL && o->k.p->auth == AUTH_X_API_KEY)
		h[k++] = header("%s: %s", "x-api-key", o->k.key);
	else if (o->k.key != NULL && o->k.p->auth == AUTH_GOOG_KEY)
		h[k++] = header("%s: %s", "x-goog-api-key", o->k.key);
	else if (o->k.key != NULL)
		h[k++] = header("%s: Bearer %s", "Authorization", o->k.key);
	if (o->k.p == &provider_anthropic)
		h[k++] = ai_xstrdup("anthropic-version: 2023-06-01");
	cJSON_ArrayForEach(it, o->headers)
		h[k++] = header("%s: %s", it->string, it->valuestring);
	h[k] = NULL;
	return h;
}

void
ask_headers_free(char **h)
{
	size_t i;

	for (i = 0; h != NULL && h[i] != NULL; i++)
		free(h[i]);
	free(h);
}

/*
 * A request is one unit that both drivers move on: ask_run makes it with
 * ai_http_request, the --each driver (each.c) with many at once.
 * lib/http retries HTTP failures itself; an error that the provider reports
 * inside a 200 stream (Anthropic's overloaded_error), or an answer cut
 * wherever it was cut, is retried here, with what is left of the attempts
 * and of the time, as long as nothing of the answer has been written.  A
 * paused turn is continued with its content sent back, bounded.
 */

/* The body of the next request, from the conversation. */
static void
exch_body(struct run *r)
{
	struct opts *o = r->o;

	cJSON_Delete(r->body);
	free(r->text);
	r->body = o->k.p->body(&o->k, &r->conv);
	r->text = ai_json_print(r->body);
	r->body_len += strlen(r->text);
	r->text0 = r->ans.text.len;
	r->calls0 = r->ans.ncalls;
	r->emitted0 = r->ans.emitted;
	r->in0 = r->ans.input;
	r->cached0 = r->ans.cached;
	r->out0 = r->ans.output;
	r->usage0 = r->ans.has_usage;
	r->attempts = o->attempts;
	r->backoff = 1000;
	r->nocache = 0;
}

/* The first request of an exchange: its clock starts now. */
static void
exch_first(struct run *r)
{
	exch_body(r);
	r->start = r->deadline = 0; /* the clock starts with the first request */
	if (r->o->verbose)
		ai_error("POST %s (%s, model %s, %zu bytes%s)", r->o->url, r->o->k.p->name,
		    r->o->k.model, r->body_len, r->o->k.stream ? ", streamed" : "");
	if (r->o->verbose > 1)
		ai_error("request body: %s", r->text);
}

/*
 * What the exchange spent, into the shared budget: its weighted tokens and
 * cost (its calls were counted as they were made).  A failure to write it
 * is only a warning: the answer is there.
 */
static void
charge_budget(struct run *r)
{
	struct ai_err e = AI_ERR_INIT;
	struct price price;
	int priced = 0;
	cJSON *u = usage_record(r, &price, &priced);
	const cJSON *cost = ai_json_get(u, "cost_usd");

	if (ai_budget_charge(r->o->budget_file, 0,
	    cJSON_GetNumberValue(ai_json_get(u, "weighted_tokens")),
	    cJSON_IsNumber(cost) ? cost->valuedouble : 0, &e) < 0)
		ai_warn("%s", e.msg);
	cJSON_Delete(u);
}

/* Forget what the request in progress added to the answer. */
static void
rewind_request(struct run *r)
{
	answer_rewind(&r->ans, r->text0, r->calls0);
	r->ans.input = r->in0;
	r->ans.cached = r->cached0;
	r->ans.output = r->out0;
	r->ans.has_usage = r->usage0;
}

/* The body as it arrives: kept for the cache, and read. */
static int
tee_data(void *ctx, const char *p, size_t n, struct ai_err *e)
{
	struct run *r = ctx;

	ai_buf_add(&r->cbuf, p, n); /* it cannot be larger than the answer's cap */
	return stream_data(r->s, p, n, e);
}

int
exch_begin(struct run *r, const struct ai_http_req **req, struct ai_http_resp **resp,
    struct ai_err *e)
{
	struct opts *o = r->o;
	char dur[32];

	r->s = stream_new(o->k.p, &r->ans, &o->k);
	r->hit_now = 0;
	ai_buf_reset(&r->cbuf);
	if (o->cache && !r->nocache &&
	    cache_get(o, o->url, r->text, strlen(r->text), &r->cbuf, r->ctype, sizeof(r->ctype))) {
		struct ai_err ce = AI_ERR_INIT;

		r->hit_now = 1;
		ai_http_resp_init(&r->resp);
		r->has_resp = 1;
		r->resp.status = 200;
		r->resp.attempts = 0;
		memcpy(r->resp.content_type, r->ctype, sizeof(r->resp.content_type));
		stream_watch_type(r->s, r->resp.content_type);
		if (stream_data(r->s, r->cbuf.buf ? r->cbuf.buf : "", r->cbuf.len, &ce) < 0)
			r->resp.status = 0; /* not an answer: exch_end asks */
		return 1;
	}
	memset(&r->req, 0, sizeof(r->req));
	/* a request draws a call from the shared budget first: none when it is spent */
	if (o->budget_file != NULL && ai_budget_take(o->budget_file, e) < 0) {
		ai_http_resp_init(&r->resp);
		r->has_resp = 1;
		r->budget_refused = 1;
		*req = &r->req;
		*resp = &r->resp;
		return -1;
	}
	r->req.method = "POST";
	r->req.url = o->url;
	r->req.headers = (const char *const *)r->headers;
	r->req.body = r->text;
	r->req.body_len = strlen(r->text);
	{
		int64_t now = ai_now_ms();

		if (r->deadline == 0) {
			r->start = now;
			r->deadline = now + o->timeout_ms;
		}
		r->req.timeout_ms = r->deadline - now;
		r->req.limit_ms = o->timeout_ms;
	}
	r->req.idle_timeout_ms = o->idle_ms;
	r->req.max_attempts = r->attempts;
	r->req.verbose = o->verbose > 0;
	r->req.on_data = o->cache ? tee_data : stream_data;
	r->req.data_ctx = o->cache ? (void *)r : (void *)r->s;
	ai_http_resp_init(&r->resp);
	r->has_resp = 1;
	stream_watch_type(r->s, r->resp.content_type);
	*req = &r->req;
	*resp = &r->resp;
	if (r->req.timeout_ms <= 0)
		return ai_err_set(e, AI_EXIT_TEMPFAIL, "%s did not answer within %s", r->service,
		    ai_fmt_ms(o->timeout_ms, dur, sizeof(dur)));
	return 0;
}

int
exch_end(struct run *r, int rc, int64_t *wait, struct ai_err *e)
{
	struct opts *o = r->o;
	char dur[32];
	int cut;

	if (r->hit_now) {
		struct ai_err ce = AI_ERR_INIT;

		if (r->resp.status != 200 || stream_end(r->s, &ce) < 0) {
			/* an entry that is no answer: forget it, and ask */
			stream_free(r->s);
			r->s = NULL;
			ai_http_resp_free(&r->resp);
			r->has_resp = 0;
			rewind_request(r);
			r->nocache = 1;
			*wait = 0;
			return EXCH_AGAIN;
		}
		r->hits++;
	} else if (rc == 0) {
		rc = stream_end(r->s, e);
		if (rc == 0 && o->cache)
			cache_put(o, o->url, r->text, strlen(r->text), r->resp.content_type,
			    r->cbuf.buf ? r->cbuf.buf : "", r->cbuf.len);
	} else if (r->resp.status >= 400 && o->k.p->http_error != NULL) {
		o->k.p->http_error(r->resp.body.buf, r->resp.body.len, e);
	}
	if (o->verbose && !r->hit_now)
		ai_error("%s answered HTTP %ld after %d attempt(s), %s", r->service, r->resp.status,
		    r->resp.attempts, ai_fmt_ms(ai_now_ms() - r->start, dur, sizeof(dur)));
	r->attempts -= r->resp.attempts;
	cut = rc < 0 && (r->resp.cut || stream_cut(r->s));
	stream_free(r->s);
	r->s = NULL;
	ai_http_resp_free(&r->resp);
	r->has_resp = 0;
	if (rc < 0 && ((r->ans.instream_error && e->retryable) || cut) &&
	    r->ans.emitted == r->emitted0 && r->attempts > 0 &&
	    ai_now_ms() + r->backoff < r->deadline) {
		if (o->verbose)
			ai_error("%s; retrying in %s", e->msg, ai_fmt_ms(r->backoff, dur, sizeof(dur)));
		*wait = r->backoff;
		r->backoff *= 2;
		rewind_request(r);
		ai_err_clear(e);
		return EXCH_RETRY;
	}
	if (rc == 0)
		rc = answer_finish(&r->ans, e);
	/* a paused turn goes on: its content back, the same request again, bounded */
	if (rc == 0 && r->ans.stop == STOP_PAUSE && r->ans.raw != NULL &&
	    r->pauses < o->max_pauses) {
		r->pauses++;
		if (o->verbose)
			ai_error("%s paused the turn; continuing it (%llu of at most %llu)",
			    r->service, (unsigned long long)r->pauses,
			    (unsigned long long)o->max_pauses);
		conv_add_raw(&r->conv, r->ans.raw);
		r->ans.raw = NULL;
		r->in_tok += r->ans.input;
		r->cached_tok += r->ans.cached;
		r->out_tok += r->ans.output;
		r->ans.input = r->ans.cached = r->ans.output = 0;
		answer_next(&r->ans);
		exch_body(r);
		*wait = 0;
		return EXCH_AGAIN;
	}
	r->ans.input += r->in_tok;
	r->ans.cached += r->cached_tok;
	r->ans.output += r->out_tok;
	r->in_tok = r->cached_tok = r->out_tok = 0;
	/* an answer that never came spent nothing that is known */
	if (o->budget_file != NULL && !r->budget_refused && r->hits < 1 + r->pauses &&
	    (rc == 0 || r->ans.has_usage))
		charge_budget(r);
	if (rc < 0)
		hint_key(o, e);
	return rc < 0 ? EXCH_FAILED : EXCH_DONE;
}

/* The whole exchange, one request at a time. */
static int
exchange(struct run *r, struct ai_err *e)
{
	const struct ai_http_req *req;
	struct ai_http_resp *resp;
	struct ai_http h;
	int64_t wait = 0;
	int step;

	if (ai_http_init(&h, e) < 0) {
		ai_http_cleanup(&h);
		return -1;
	}
	/* the clock starts once libcurl is loaded: the first attempt gets the whole time */
	exch_first(r);
	do {
		int rc = exch_begin(r, &req, &resp, e);

		if (rc == 1)
			rc = 0; /* from the cache */
		else if (rc == 0)
			rc = ai_http_request(&h, req, resp, e);
		step = exch_end(r, rc, &wait, e);
		if (step == EXCH_RETRY)
			ai_sleep_ms(wait, NULL);
	} while (step == EXCH_RETRY || step == EXCH_AGAIN);
	ai_http_cleanup(&h);
	return step == EXCH_DONE ? 0 : -1;
}

/* ---- the run ---- */

/* The endpoint (o->url, allocated: free with ask_endpoint_free) and the seed of made-up ids. */
void
ask_endpoint(struct opts *o)
{
	if (o->k.p->url != NULL) {
		o->url_buf = o->k.p->url(o->base, &o->k);
	} else {
		struct ai_buf ub = AI_BUF_INIT(AI_BUF_NOLIMIT);

		ai_buf_addf(&ub, "%s%s", o->base, o->k.p->path);
		o->url_buf = ai_buf_detach(&ub, NULL);
	}
	o->url = o->url_buf;
	snprintf(o->k.idseed, sizeof(o->k.idseed), "%08llx",
	    (unsigned long long)((uint64_t)ai_wall_ms() * 2654435761u ^ (uint64_t)getpid()) &
	    0xffffffffu);
}

static void
run_free(struct run *r)
{
	if (r->s != NULL)
		stream_free(r->s);
	if (r->has_resp)
		ai_http_resp_free(&r->resp);
	cJSON_Delete(r->body);
	free(r->text);
	ai_buf_release(&r->cbuf);
	close_transcript(r);
	conv_free(&r->conv);
	answer_free(&r->ans);
	ai_buf_release(&r->in);
	ai_buf_release(&r->tx);
	free(r->user_text);
	cJSON_Delete(r->tools);
	cJSON_Delete(r->schema);
	attach_free(r->att, r->natt);
}

/*
 * The attachments go with the user message this run adds (PROMPT and plain
 * input) or, when it adds none, with the last user message of the records.
 */
static int
attach_to(struct run *r, struct ai_err *e)
{
	size_t i = r->conv.n;

	while (i > 0 && (r->conv.t[i - 1].kind != TURN_USER || r->conv.t[i - 1].sources))
		i--;
	if (i == 0)
		return ai_err_set(e, AI_EXIT_USAGE,
		    "nothing to attach the files to: give a PROMPT, or a user message");
	r->conv.t[i - 1].att = r->att;
	r->conv.t[i - 1].natt = r->natt;
	return 0;
}

/* What every exchange of a run shares: the tools, the schema, the prompts checked. */
static int
prepare_files(struct run *r, struct ai_err *e)
{
	struct opts *o = r->o;

	if (o->tools_file != NULL && (read_json_file(o->tools_file, "tools file", &r->tools, e) < 0 ||
	    check_tools(o->tools_file, r->tools, e) < 0))
		return -1;
	if (o->schema_file != NULL &&
	    (read_json_file(o->schema_file, "schema file", &r->schema, e) < 0 ||
	    check_schema(o->schema_file, r->schema, e) < 0))
		return -1;
	if ((o->prompt != NULL &&
	    ai_text_check(o->prompt, strlen(o->prompt), "the prompt", 0, 1, e) < 0) ||
	    (o->system != NULL &&
	    ai_text_check(o->system, strlen(o->system), "the system prompt (-s)", 0, 1, e) < 0))
		return -1;
	o->k.tools = r->tools;
	o->k.schema = r->schema;
	if (r->tools != NULL && !profile_model_tools(o->k.model)) {
		ai_warn("%s cannot call tools: the tools of '%s' are not declared", o->k.model,
		    o->tools_file);
		o->k.tools = NULL;
	}
	return 0;
}

static int
prepare(struct run *r, struct ai_err *e)
{
	struct opts *o = r->o;

	if (prepare_files(r, e) < 0)
		return -1;
	if (o->attach.n > 0 && attach_load(o, &r->att, &r->natt, e) < 0)
		return -1;
	if (o->continue_file != NULL && open_transcript(r, o->continue_file, e) < 0)
		return -1;
	if (read_stdin(r, e) < 0 || build_conv(r, e) < 0)
		return -1;
	return r->natt > 0 ? attach_to(r, e) : 0;
}

static void
run_init(struct run *r, struct opts *o)
{
	memset(r, 0, sizeof(*r));
	r->o = o;
	r->tx_fd = -1;
	conv_init(&r->conv);
	answer_init(&r->ans);
	ai_buf_init(&r->in, ASK_MAX_INPUT);
	ai_buf_init(&r->tx, ASK_MAX_INPUT);
	ai_buf_init(&r->cbuf, (size_t)32 << 20);
}

struct run *
exch_template(struct opts *o, struct ai_err *e)
{
	struct run *r = ai_xmalloc(sizeof(*r));

	run_init(r, o);
	o->k.stream = 0;
	ask_endpoint(o);
	service_name(o->url, r->service, sizeof(r->service));
	if (prepare_files(r, e) < 0 || build_system(r, e) < 0) {
		exch_free(r);
		return NULL;
	}
	r->headers = ask_headers(o);
	r->owns_headers = 1;
	return r;
}

struct run *
exch_new(const struct run *tmpl, const char *user_text, struct ai_err *e)
{
	struct run *r = ai_xmalloc(sizeof(*r));

	run_init(r, tmpl->o);
	memcpy(r->service, tmpl->service, sizeof(r->service));
	r->ans.service = r->service;
	r->headers = tmpl->headers;
	if (tmpl->conv.system.len > 0)
		conv_add_system(&r->conv, tmpl->conv.system.buf, tmpl->conv.system.len);
	if (ai_text_check(user_text, strlen(user_text), "the prompt", 0, 1, e) < 0) {
		exch_free(r);
		return NULL;
	}
	conv_add_user(&r->conv, user_text, strlen(user_text));
	if (conv_check(&r->conv, e) < 0) {
		exch_free(r);
		return NULL;
	}
	exch_first(r);
	return r;
}

size_t
exch_body_len(const struct run *r)
{
	return r->body_len;
}

const cJSON *
exch_request(const struct run *r)
{
	return r->body;
}

struct run *
exch_blank(const struct run *tmpl)
{
	struct run *r = ai_xmalloc(sizeof(*r));

	run_init(r, tmpl->o);
	memcpy(r->service, tmpl->service, sizeof(r->service));
	r->ans.service = r->service;
	r->headers = tmpl->headers;
	return r;
}

int
exch_answer(struct run *r, const char *body, size_t n, struct ai_err *e)
{
	static const char ctype[] = "application/json";
	int rc;

	r->s = stream_new(r->o->k.p, &r->ans, &r->o->k);
	stream_watch_type(r->s, ctype);
	rc = stream_data(r->s, body, n, e);
	if (rc == 0)
		rc = stream_end(r->s, e);
	stream_free(r->s);
	r->s = NULL;
	if (rc == 0)
		rc = answer_finish(&r->ans, e);
	return rc;
}

void
exch_free(struct run *r)
{
	if (r == NULL)
		return;
	if (r->owns_headers)
		ask_headers_free(r->headers);
	run_free(r);
	free(r);
}

int
ask_run(struct opts *o, struct ai_err *e)
{
	struct run r;
	cJSON *recs = cJSON_CreateArray();
	int rc, live;

	run_init(&r, o);
	r.tty = isatty(1);
	/*
	 * Text streams unless it must be checked first (--schema); records only
	 * with --stream.  Ollama is asked for tool calls without streaming: its
	 * streamed calls are not reliable across versions.
	 */
	o->k.stream = o->json ? o->deltas : o->schema_file == NULL;
	live = o->json ? o->deltas : o->k.stream;
	if (o->k.p == &provider_ollama && o->tools_file != NULL)
		o->k.stream = 0;
	ask_endpoint(o);
	service_name(o->url, r.service, sizeof(r.service));

	rc = prepare(&r, e);
	if (rc == 0) {
		r.ans.service = r.service;
		if (live) {
			r.ans.on_text = on_text;
			r.ans.ctx = &r;
		}
		r.headers = ask_headers(o);
		if (!o->verbose)
			spinner_start("ai-ask: waiting for the answer");
		rc = exchange(&r, e);
		ask_headers_free(r.headers);
		r.headers = NULL;
		spinner_stop();
		if (rc < 0)
			end_line(&r);
		else
			rc = write_answer(&r, live, recs, e);
		if (rc == 0 && r.tx_fd >= 0)
			rc = append_transcript(&r, recs, e);
	}
	spinner_stop();
	cJSON_Delete(recs);
	run_free(&r);
	return rc;
}
