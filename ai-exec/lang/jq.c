/*
 * jq.c: jq [-rjcsnSa] [--tab] [--indent N] [--arg NAME VALUE]...
 * [--argjson NAME JSON]... [FILTER] [FILE]... through libjq 1.6.
 *
 * The filter is compiled inside a fixed prefix that hides the
 * environment ("env" and "$ENV" are {}), turns "input" and "inputs" into
 * errors, keeps "stderr" from writing, makes "import" and "include" syntax
 * errors (they must come first in a program, and the prefix is first), and
 * takes away the module functions; the library search path is empty.  It
 * runs in the sandboxed child, whose environment is empty as well, under its
 * CPU and memory limits: a filter that never ends or allocates without bound
 * is stopped there.  Output is what the jq program prints with the same
 * options (pretty with two spaces by default).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jq.h>
#include <jv.h>

#include "lang.h"
#include "util.h"
#include "banned.h"

static const char prefix[] =
    "def env: {}; def stderr: .; def input: error(\"input is disabled\"); "
    "def inputs: error(\"inputs is disabled\"); def input_filename: null; "
    "def modulemeta: error(\"modulemeta is disabled\"); def get_search_list: []; "
    "def get_prog_origin: null; def get_jq_origin: null; {} as $ENV | (";
static const char suffix[] = "\n)";

struct jq_rt {
	jq_state *jq;
	struct ai_buf errors;
	int dumpopts;
};

static void
on_nomem(void *d)
{
	(void)d;
	_exit(X_CHILD_NOMEM);
}

static void
on_error(void *d, jv msg)
{
	struct ai_buf *b = d;

	if (jv_get_kind(msg) == JV_KIND_STRING) {
		ai_buf_adds(b, jv_string_value(msg));
		ai_buf_addc(b, '\n');
	}
	jv_free(msg);
}

/*
 * The first line of libjq's compile error, made to speak of the filter as
 * given: without "jq: error: ", the prefix and a final ':'.  The filter is
 * followed by a line holding ')', so an unfinished filter shows as an
 * unexpected ')' on line 2: that is said as the end of the filter.
 */
static void
compile_error(const struct x_stage *st, struct ai_buf *errs, struct ai_err *e)
{
	char *s = errs->buf, *lf = strchr(s, '\n'), *p;
	size_t n;

	if (lf != NULL)
		*lf = '\0';
	if (strncmp(s, "jq: error: ", 11) == 0)
		s += 11;
	while ((p = strstr(s, prefix)) != NULL)
		memmove(p, p + sizeof(prefix) - 1, strlen(p + sizeof(prefix) - 1) + 1);
	n = strlen(s);
	if (n > 0 && s[n - 1] == ':')
		s[--n] = '\0';
	if ((p = strstr(s, ", line 2")) != NULL && strstr(s, "unexpected ')'") != NULL) {
		*p = '\0';
		p = strstr(s, "unexpected ')'");
		ai_err_set(e, AI_EXIT_DATAERR, "%s: %.*sunexpected end of the filter%s", st->label,
		    (int)(p - s), s, p + 14);
		return;
	}
	ai_err_set(e, AI_EXIT_DATAERR, "%s: %s", st->label, s[0] ? s : "compile error");
}

int
x_prepare_jq(struct x_stage *st, struct x_run *x, struct ai_err *e)
{
	const struct x_opts_jq *o = st->priv;
	struct jq_rt *rt = ai_xcalloc(1, sizeof(*rt));
	struct ai_buf prog = AI_BUF_INIT(AI_BUF_NOLIMIT);
	jv args = jv_object();
	size_t i;
	int ok;

	(void)x;
	st->rt = rt;
	ai_buf_init(&rt->errors, 64 * 1024);
	rt->jq = jq_init();
	if (rt->jq == NULL)
		_exit(X_CHILD_NOMEM);
	jq_set_nomem_handler(rt->jq, on_nomem, NULL);
	jq_set_input_cb(rt->jq, NULL, NULL);
	jq_set_debug_cb(rt->jq, NULL, NULL);
	jq_set_error_cb(rt->jq, on_error, &rt->errors);
	jq_set_attr(rt->jq, jv_string("JQ_LIBRARY_PATH"), jv_array());
	for (i = 0; i < o->nargs; i++) {
		jv v = o->args[i].json ? jv_parse(o->args[i].value) : jv_string(o->args[i].value);

		if (!jv_is_valid(v)) {
			jv_free(v);
			jv_free(args);
			return ai_err_set(e, AI_EXIT_DATAERR,
			    "%s: option '--argjson': the value of '%s' is not JSON", st->label,
			    o->args[i].name);
		}
		args = jv_object_set(args, jv_string(o->args[i].name), v);
	}
	ai_buf_adds(&prog, prefix);
	ai_buf_adds(&prog, st->arg);
	ai_buf_adds(&prog, suffix);
	ok = jq_compile_args(rt->jq, prog.buf, args);
	ai_buf_release(&prog);
	if (!ok) {
		compile_error(st, &rt->errors, e);
		return -1;
	}
	if (o->compact)
		rt->dumpopts = 0;
	else if (o->tab)
		rt->dumpopts = JV_PRINT_TAB | JV_PRINT_PRETTY;
	else
		rt->dumpopts = JV_PRINT_INDENT_FLAGS(o->indent >= 0 ? o->indent : 2);
	if (o->sort)
		rt->dumpopts |= JV_PRINT_SORTED;
	if (o->ascii)
		rt->dumpopts |= JV_PRINT_ASCII;
	return 0;
}

/* Append the text of a jv that is a string (consumed) to the stage output. */
static int
emit_jv_string(struct x_run *x, const struct x_stage *st, jv s)
{
	int rc = x_emit(x, st, jv_string_value(s), (size_t)jv_string_length_bytes(jv_copy(s)));

	jv_free(s);
	return rc;
}

/* The message of an invalid jv (consumed), as text. */
static void
invalid_message(jv v, char *out, size_t n)
{
	jv msg = jv_invalid_get_msg(v);

	if (jv_get_kind(msg) == JV_KIND_STRING) {
		snprintf(out, n, "%s", jv_string_value(msg));
		jv_free(msg);
	} else {
		jv s = jv_dump_string(msg, 0);

		snprintf(out, n, "%s (not a string)", jv_string_value(s));
		jv_free(s);
	}
}

/* Run the program on one input (consumed).  1 when the program halted. */
static int
process(struct x_stage *st, struct x_run *x, jv input, uint64_t line, int *rc)
{
	const struct x_opts_jq *o = st->priv;
	struct jq_rt *rt = st->rt;
	jv r;

	jq_start(rt->jq, input, 0);
	while (jv_is_valid(r = jq_next(rt->jq))) {
		int w;

		if (o->raw && jv_get_kind(r) == JV_KIND_STRING && !o->ascii)
			w = emit_jv_string(x, st, r);
		else
			w = emit_jv_string(x, st, jv_dump_string(r, o->raw ? JV_PRINT_ASCII : rt->dumpopts));
		if (w < 0 || (!o->join && x_emit(x, st, "\n", 1) < 0)) {
			*rc = XR_ABORT;
			return 1;
		}
	}
	if (jq_halted(rt->jq)) {
		jv code = jq_get_exit_code(rt->jq), msg = jq_get_error_message(rt->jq);
		int failed = jv_is_valid(code) &&
		    !(jv_get_kind(code) == JV_KIND_NUMBER && jv_number_value(code) == 0);

		if (failed) {
			char text[512] = "halted";

			if (jv_get_kind(msg) == JV_KIND_STRING) {
				snprintf(text, sizeof(text), "%s", jv_string_value(msg));
			} else if (jv_is_valid(msg) && jv_get_kind(msg) != JV_KIND_NULL) {
				jv d = jv_dump_string(jv_copy(msg), 0);

				snprintf(text, sizeof(text), "%s", jv_string_value(d));
				jv_free(d);
			}
			text[strcspn(text, "\n")] = '\0';
			*rc = x_fail(x, st, "%s", text);
		}
		jv_free(code);
		jv_free(msg);
		jv_free(r);
		return 1;
	}
	if (jv_invalid_has_msg(jv_copy(r))) {
		char text[512];

		invalid_message(r, text, sizeof(text));
		if (o->null_input)
			*rc = x_fail(x, st, "error (at <unknown>): %s", text);
		else
			*rc = x_fail(x, st, "error (at <stdin>:%llu): %s", (unsigned long long)line, text);
		return 0;
	}
	jv_free(r);
	return 0;
}

/*
 * The position jq reports for a value that ends at offset used: the lines
 * read so far, jq reading whole lines, so up to the end of used's line.
 */
static uint64_t
line_at(const char *p, size_t n, size_t used, size_t *counted, uint64_t *line)
{
	size_t from = used > 0 ? used - 1 : 0, end;
	const char *lf = from < n ? memchr(p + from, '\n', n - from) : NULL, *q;

	end = lf ? (size_t)(lf - p) + 1 : n;
	for (q = p + *counted; end > *counted && (q = memchr(q, '\n', end - (size_t)(q - p))) != NULL;
	    q++)
		++*line;
	if (end > *counted)
		*counted = end;
	return *line;
}

int
x_run_jq(struct x_stage *st, struct x_run *x)
{
	const struct x_opts_jq *o = st->priv;
	const char *p;
	size_t n, counted = 0;
	uint64_t line = 0;
	jv_parser *parser;
	jv v, all = jv_array();
	int rc = XR_OK, bad = 0;

	if (x_input(x, st, &p, &n) < 0)
		return XR_ABORT;
	if (o->null_input) {
		jv_free(all);
		process(st, x, jv_null(), 1, &rc);
		return rc;
	}
	if (n > (size_t)0x7fffffff) {
		jv_free(all);
		return x_abort(x, st, AI_EXIT_LIMIT, "the input is too large for jq");
	}
	parser = jv_parser_new(0);
	jv_parser_set_buf(parser, p, (int)n, 0);
	while (jv_is_valid(v = jv_parser_next(parser))) {
		size_t used = n - (size_t)jv_parser_remaining(parser);

		if (o->slurp) {
			all = jv_array_append(all, v);
			continue;
		}
		if (process(st, x, v, line_at(p, n, used, &counted, &line), &rc))
			break;
	}
	if (rc != XR_ABORT && jv_invalid_has_msg(jv_copy(v))) {
		char text[512];
		size_t used = n - (size_t)jv_parser_remaining(parser);

		(void)used;
		invalid_message(v, text, sizeof(text));
		rc = x_fail(x, st, "parse error: %s", text);
		bad = 1;
	} else {
		jv_free(v);
	}
	jv_parser_free(parser);
	if (o->slurp && !bad && rc != XR_ABORT)
		process(st, x, all, 1, &rc);
	else
		jv_free(all);
	return rc;
}

void
x_release_jq(struct x_stage *st)
{
	struct jq_rt *rt = st->rt;

	if (rt->jq != NULL)
		jq_teardown(&rt->jq);
	ai_buf_release(&rt->errors);
	free(rt);
	st->rt = NULL;
}
