/* record.c: reading and writing records. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "io.h"
#include "json.h"
#include "redact.h"
#include "sig.h"
#include "util.h"
#include "banned.h"

#define READ_CHUNK 65536

void
ai_reader_init(struct ai_reader *r, int fd, size_t max_line, const char *what)
{
	r->fd = fd;
	/* room for one maximal line plus one read beyond it */
	ai_buf_init(&r->in, max_line + READ_CHUNK + 1);
	r->off = 0;
	r->scanned = 0;
	r->max_line = max_line;
	r->lineno = 0;
	r->base = 0;
	r->line_off = 0;
	r->eof = 0;
	r->timeout_ms = -1;
	r->what = what;
}

void
ai_reader_release(struct ai_reader *r)
{
	ai_buf_release(&r->in);
}

static int
fill(struct ai_reader *r, struct ai_err *e)
{
	ssize_t n;

	if (r->off > 0 && (r->off >= r->in.len / 2 || r->in.max - r->in.len < READ_CHUNK)) {
		ai_buf_consume(&r->in, r->off);
		r->base += r->off;
		r->off = 0;
	}
	if (ai_buf_grow(&r->in, READ_CHUNK) < 0)
		return ai_err_set(e, AI_EXIT_DATAERR, "%s: line %lu is longer than the limit of %zu bytes",
		    r->what, r->lineno + 1, r->max_line);
	if (r->timeout_ms >= 0) {
		struct pollfd p[2] = { { r->fd, POLLIN, 0 }, { ai_sig_fd(), POLLIN, 0 } };
		int rc;

		do
			rc = poll(p, p[1].fd >= 0 ? 2 : 1, r->timeout_ms);
		while (rc < 0 && errno == EINTR && !ai_sig_caught());
		if (ai_sig_caught())
			return ai_sig_interrupted(e);
		if (rc == 0)
			return ai_err_set(e, AI_EXIT_TEMPFAIL, "%s: no input for %d ms", r->what,
			    r->timeout_ms);
	} else if (ai_wait_readable(r->fd, e) < 0) {
		return -1;
	}
	do
		n = read(r->fd, r->in.buf + r->in.len, READ_CHUNK);
	while (n < 0 && errno == EINTR && !ai_sig_caught());
	if (n < 0 && errno == EINTR)
		return ai_sig_interrupted(e);
	if (n < 0)
		return ai_err_set(e, AI_EXIT_IOERR, "cannot read %s: %s", r->what, strerror(errno));
	if (n == 0)
		r->eof = 1;
	r->in.len += (size_t)n;
	r->in.buf[r->in.len] = '\0';
	return 0;
}

int
ai_reader_next(struct ai_reader *r, const char **line, size_t *len, struct ai_err *e)
{
	for (;;) {
		char *start = r->in.buf + r->off;
		size_t avail = r->in.len - r->off;
		char *lf = memchr(start + r->scanned, '\n', avail - r->scanned);
		size_t n;

		if (lf == NULL && !(r->eof && avail > 0)) {
			if (r->eof)
				return 0;
			r->scanned = avail;
			if (avail > r->max_line)
				return ai_err_set(e, AI_EXIT_DATAERR,
				    "%s: line %lu is longer than the limit of %zu bytes",
				    r->what, r->lineno + 1, r->max_line);
			if (fill(r, e) < 0)
				return -1;
			continue;
		}
		n = lf ? (size_t)(lf - start) : avail;
		if (n > r->max_line)
			return ai_err_set(e, AI_EXIT_DATAERR,
			    "%s: line %lu is longer than the limit of %zu bytes",
			    r->what, r->lineno + 1, r->max_line);
		r->line_off = r->base + r->off;
		r->off += lf ? n + 1 : n;
		r->scanned = 0;
		r->lineno++;
		if (n > 0 && start[n - 1] == '\r')
			n--;
		*line = start;
		*len = n;
		return 1;
	}
}

int
ai_reader_skip_line(struct ai_reader *r, struct ai_err *e)
{
	int dropped = 0;

	for (;;) {
		char *start = r->in.buf + r->off;
		size_t avail = r->in.len - r->off;
		char *lf = memchr(start, '\n', avail);

		if (lf != NULL) {
			r->off += (size_t)(lf - start) + 1;
			r->scanned = 0;
			r->lineno++;
			return 1;
		}
		/* everything buffered belongs to the line: forget it */
		if (avail > 0)
			dropped = 1;
		r->base += avail;
		r->in.len = r->off;
		r->in.buf[r->in.len] = '\0';
		r->scanned = 0;
		if (r->eof) {
			if (dropped)
				r->lineno++;
			return dropped;
		}
		if (fill(r, e) < 0)
			return -1;
	}
}

int
ai_line_is_blank(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return 0;
	return 1;
}

cJSON *
ai_record_parse(const char *line, size_t len, unsigned long lineno, struct ai_err *e)
{
	cJSON *v = ai_json_parse(line, len, e);
	const cJSON *t;

	if (v == NULL) {
		ai_err_prefix(e, "line %lu", lineno);
		return NULL;
	}
	if (!cJSON_IsObject(v)) {
		cJSON_Delete(v);
		ai_err_set(e, AI_EXIT_DATAERR, "line %lu: a record must be a JSON object", lineno);
		return NULL;
	}
	t = ai_json_get(v, "type");
	if (!cJSON_IsString(t) || t->valuestring[0] == '\0') {
		cJSON_Delete(v);
		ai_err_set(e, AI_EXIT_DATAERR, "line %lu: a record needs a string \"type\"", lineno);
		return NULL;
	}
	return v;
}

const char *
ai_record_type(const cJSON *rec)
{
	return ai_json_str(rec, "type");
}

int
ai_input_is_records(const char *data, size_t len)
{
	const char *lf = memchr(data, '\n', len);
	size_t n = lf ? (size_t)(lf - data) : len;
	struct ai_err e = AI_ERR_INIT;
	cJSON *v;
	int yes;

	if (n > 0 && data[n - 1] == '\r')
		n--;
	/* Cheap test first: a record line starts with '{' (after blanks). */
	{
		size_t i = 0;

		while (i < n && (data[i] == ' ' || data[i] == '\t'))
			i++;
		if (i == n || data[i] != '{')
			return 0;
	}
	v = ai_json_parse(data, n, &e);
	yes = v != NULL && cJSON_IsObject(v) && cJSON_IsString(ai_json_get(v, "type"));
	cJSON_Delete(v);
	return yes;
}

int
ai_record_write(FILE *f, const cJSON *rec, struct ai_err *e)
{
	char *s = ai_json_print(rec);
	size_t n = strlen(s);
	int rc;

	s[n] = '\n'; /* overwrite the NUL: cJSON's buffer is ours to use, n+1 bytes long */
	rc = ai_out_write(f, s, n + 1, e);
	free(s);
	if (rc == 0)
		rc = ai_out_flush(f, e);
	return rc;
}

cJSON *
ai_record_new(const char *type)
{
	cJSON *r = cJSON_CreateObject();

	ai_json_addstr(r, "type", type);
	return r;
}

cJSON *
ai_record_message(const char *role, const char *content)
{
	cJSON *r = ai_record_new("message");

	ai_json_addstr(r, "role", role);
	ai_json_addstr(r, "content", content);
	return r;
}

cJSON *
ai_record_error(const char *tool, const struct ai_err *e)
{
	cJSON *r = ai_record_new("error");
	char *msg = ai_redact_str(e->msg);

	ai_json_addstr(r, "tool", tool);
	ai_json_addstr(r, "code", ai_exit_name(e->code));
	ai_json_addnum(r, "exit", e->code);
	ai_json_addstr(r, "message", msg);
	ai_json_addbool(r, "retryable", e->retryable);
	if (e->status > 0)
		ai_json_addnum(r, "status", e->status);
	free(msg);
	return r;
}

int
ai_record_upstream(const cJSON *rec, struct ai_err *e)
{
	const char *type = ai_record_type(rec), *tool, *msg;
	const cJSON *x;
	int code = -1, retryable;
	char ex[64];

	if (type == NULL || strcmp(type, "error") != 0)
		return 0;
	x = ai_json_get(rec, "exit");
	if (cJSON_IsNumber(x) && x->valuedouble >= 1 && x->valuedouble <= 255 &&
	    x->valuedouble == (double)(int)x->valuedouble)
		code = (int)x->valuedouble;
	if (code < 0 && (code = ai_exit_code_of(ai_json_str(rec, "code"))) <= 0)
		code = AI_EXIT_FAIL;
	tool = ai_json_str(rec, "tool");
	msg = ai_json_str(rec, "message");
	retryable = ai_json_bool(rec, "retryable", 0) == 1;
	ai_err_set(e, code, "error from %s: %s",
	    tool != NULL && *tool ? ai_excerpt(tool, strlen(tool), ex, sizeof(ex)) : "an earlier tool",
	    msg != NULL && *msg ? msg : "(no message)");
	e->retryable = retryable;
	return 1;
}

int
ai_records_upstream(const char *data, size_t n, const char **line, size_t *len,
    struct ai_err *e)
{
	const char *p = data, *end = data + n;
	unsigned long lineno = 0;

	while (p < end) {
		const char *lf = memchr(p, '\n', (size_t)(end - p));
		size_t l = lf ? (size_t)(lf - p) : (size_t)(end - p);

		lineno++;
		/* only a line that could be an error record is parsed: "error", or escapes */
		if (memmem(p, l, "error", 5) != NULL || memmem(p, l, "\\u", 2) != NULL) {
			struct ai_err pe = AI_ERR_INIT;
			size_t k = l > 0 && p[l - 1] == '\r' ? l - 1 : l;
			cJSON *rec = ai_record_parse(p, k, lineno, &pe);
			int yes = rec != NULL && ai_record_upstream(rec, e);

			cJSON_Delete(rec);
			if (yes) {
				*line = p;
				*len = k;
				return 1;
			}
		}
		p += l + (lf != NULL);
	}
	return 0;
}

int
ai_error_pass(const char *line, size_t len, int records_out, struct ai_err *e)
{
	int code = e->code, retryable = e->retryable;

	if (!records_out)
		return -1;
	if (ai_out_write(stdout, line, len, e) < 0 || ai_out_write(stdout, "\n", 1, e) < 0 ||
	    ai_out_flush(stdout, e) < 0)
		return -1;
	ai_err_set(e, code, "%s", "");
	e->retryable = retryable;
	e->passed = 1;
	return -1;
}
