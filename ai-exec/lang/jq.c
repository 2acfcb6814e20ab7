/*
 * jq.c: jq through libjq 1.6, run as jq 1.6's own main loop runs it.
 *
 * The filter is compiled inside a fixed prefix that hides the environment
 * ("env" and "$ENV" are {}), keeps "stderr" from writing, makes "import"
 * and "include" syntax errors (they must come first in a program, and the
 * prefix is first), and takes away the module functions; the library
 * search path is empty.  It runs in the sandboxed child, whose environment
 * is empty as well, under its CPU and memory limits: a filter that never
 * ends or allocates without bound is stopped there.
 *
 * The input (its FILEs one after the other, or the previous stage's
 * output) is read whole, then given to the parser as jq reads it, a line
 * (of at most 4095 bytes) at a time, so that positions in messages are
 * jq's; "input" and "inputs" read from the same place.  Output is what the
 * jq program prints with the same options, in the order they came (-c,
 * --tab and --indent: the last one wins); -r and -j print strings raw and
 * other values as jq prints them.  "halt" and "halt_error" end the filter
 * for the current input, as in jq 1.6 (which goes on with the next one):
 * halt_error's message goes to standard error, and a non-zero exit code
 * fails the stage.
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
    "def env: {}; def stderr: .; def input_filename: null; "
    "def modulemeta: error(\"modulemeta is disabled\"); def get_search_list: []; "
    "def get_prog_origin: null; def get_jq_origin: null; {} as $ENV | (";
static const char suffix[] = "\n)";

struct seg {
	size_t off;         /* where the input from this FILE starts */
	const char *name;
};

struct jq_rt {
	jq_state *jq;
	struct ai_buf errors;
	struct ai_buf input;
	struct seg *segs;
	size_t nsegs;
	int dumpopts;
	/* reading, as jq_util_input_next_input does */
	jv_parser *parser;
	size_t off;         /* input given to the parser */
	uint64_t line;      /* lines given, in the current FILE */
	size_t seg;
	int eof;            /* the current FILE is read to its end */
	jv slurped;         /* -s: the values read so far, until they are given */
	char msg[512];
	struct x_stage *st;
	struct x_run *x;
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

/* debug: ["DEBUG:",value] on standard error, as jq prints it. */
static void
on_debug(void *d, jv v)
{
	struct jq_rt *rt = d;
	jv s = jv_dump_string(JV_ARRAY(jv_string("DEBUG:"), v), 0);

	x_warn(rt->x, rt->st, "%s", jv_string_value(s));
	jv_free(s);
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

/*
 * jq's read_more: the next piece, as fgets(buf, 4096) reads a FILE: up to
 * and with a LF, or 4095 bytes, never across FILEs.  Returns whether this was
 * the end of the last FILE.
 */
static int
read_more(struct jq_rt *rt, const char **piece, size_t *len)
{
	const struct x_opts_jq *o = rt->st->priv;
	const char *p = rt->input.buf;
	size_t end, max;
	const char *lf;

	*piece = p + rt->off;
	*len = 0;
	if (rt->eof) {
		if (rt->seg + 1 >= rt->nsegs)
			return 1;
		rt->seg++;
		rt->line = 0;
		rt->eof = 0;
	}
	end = rt->seg + 1 < rt->nsegs ? rt->segs[rt->seg + 1].off : rt->input.len;
	if (rt->off >= end) {
		rt->eof = 1; /* fgets met the end */
		return rt->seg + 1 >= rt->nsegs;
	}
	max = end - rt->off < 4095 ? end - rt->off : 4095;
	lf = memchr(p + rt->off, '\n', max);
	*len = lf ? (size_t)(lf - (p + rt->off)) + 1 : max;
	rt->off += *len;
	if (lf != NULL) {
		rt->line++;
	} else {
		if (rt->off == end)
			rt->eof = 1;
		if (!o->raw_input) {
			/* a piece without LF is taken as a C string */
			const char *z = memchr(*piece, '\0', *len);

			if (z != NULL)
				*len = (size_t)(z - *piece);
		} else if (rt->eof) {
			/* jq finds where fgets stopped by the last byte that is not NUL */
			while (*len > 0 && (*piece)[*len - 1] == '\0')
				(*len)--;
		}
	}
	return rt->eof && rt->seg + 1 >= rt->nsegs;
}

/* The next input, as jq_util_input_next_input gives it; invalid at the end. */
static jv
next_input(struct jq_rt *rt)
{
	const struct x_opts_jq *o = rt->st->priv;
	int is_last = 0, has_more = 0;
	jv value = jv_invalid();
	const char *piece;
	size_t len;

	do {
		if (o->raw_input) {
			is_last = read_more(rt, &piece, &len);
			if (len > 0) {
				jv str = jv_string_sized(piece, (int)len);

				if (jv_is_valid(rt->slurped)) {
					rt->slurped = jv_string_concat(rt->slurped, str);
				} else {
					if (!jv_is_valid(value)) {
						jv_free(value);
						value = jv_string("");
					}
					if (piece[len - 1] == '\n') {
						jv_free(str);
						return jv_string_concat(value, jv_string_sized(piece, (int)len - 1));
					}
					value = jv_string_concat(value, str);
				}
			}
		} else {
			if (jv_parser_remaining(rt->parser) == 0) {
				is_last = read_more(rt, &piece, &len);
				jv_parser_set_buf(rt->parser, piece, (int)len, !is_last);
			}
			jv_free(value);
			value = jv_parser_next(rt->parser);
			if (jv_is_valid(rt->slurped)) {
				has_more = jv_parser_remaining(rt->parser);
				if (jv_is_valid(value)) {
					rt->slurped = jv_array_append(rt->slurped, value);
					value = jv_invalid();
				} else if (jv_invalid_has_msg(jv_copy(value))) {
					return value;
				}
			} else if (jv_is_valid(value) || jv_invalid_has_msg(jv_copy(value))) {
				return value;
			}
		}
	} while (!is_last || has_more);
	if (jv_is_valid(rt->slurped)) {
		jv_free(value);
		value = rt->slurped;
		rt->slurped = jv_invalid();
	}
	return value;
}

/* What jq's "input" reads (and "inputs"), and its main loop. */
static jv
input_cb(jq_state *jq, void *d)
{
	(void)jq;
	return next_input(d);
}

static int
jq_prepare(struct x_stage *st, struct x_run *x, struct ai_err *e)
{
	const struct x_opts_jq *o = st->priv;
	struct jq_rt *rt = ai_xcalloc(1, sizeof(*rt));
	struct ai_buf prog = AI_BUF_INIT(AI_BUF_NOLIMIT);
	jv args = jv_object(), named = jv_object(), positional = jv_array(), v;
	size_t i;
	int ok;

	st->rt = rt;
	rt->st = st;
	rt->x = x;
	rt->slurped = jv_invalid();
	ai_buf_init(&rt->errors, 64 * 1024);
	ai_buf_init(&rt->input, AI_BUF_NOLIMIT);
	rt->jq = jq_init();
	if (rt->jq == NULL)
		_exit(X_CHILD_NOMEM);
	jq_set_nomem_handler(rt->jq, on_nomem, NULL);
	jq_set_input_cb(rt->jq, input_cb, rt);
	jq_set_debug_cb(rt->jq, on_debug, rt);
	jq_set_error_cb(rt->jq, on_error, &rt->errors);
	jq_set_attr(rt->jq, jv_string("JQ_LIBRARY_PATH"), jv_array());
	for (i = 0; i < o->nargs; i++) {
		v = o->args[i].json ? jv_parse(o->args[i].value) : jv_string(o->args[i].value);
		if (!jv_is_valid(v)) {
			ai_err_set(e, AI_EXIT_DATAERR,
			    "%s: option '--argjson': the value of '%s' is not JSON", st->label,
			    o->args[i].name);
			goto bad;
		}
		named = jv_object_set(named, jv_string(o->args[i].name), jv_copy(v));
		/* jq 1.6 binds a name given twice to its first value */
		if (jv_object_has(jv_copy(args), jv_string(o->args[i].name)))
			jv_free(v);
		else
			args = jv_object_set(args, jv_string(o->args[i].name), v);
	}
	for (i = st->file_to; o->positional && i < st->nops; i++) {
		v = o->positional == 'j' ? jv_parse(st->ops[i]) : jv_string(st->ops[i]);
		if (!jv_is_valid(v)) {
			ai_err_set(e, AI_EXIT_DATAERR, "%s: Invalid JSON text passed to --jsonargs",
			    st->label);
			goto bad;
		}
		positional = jv_array_append(positional, v);
	}
	args = jv_object_set(args, jv_string("ARGS"),
	    JV_OBJECT(jv_string("positional"), positional, jv_string("named"), named));
	ai_buf_adds(&prog, prefix);
	ai_buf_adds(&prog, st->arg);
	ai_buf_adds(&prog, suffix);
	ok = jq_compile_args(rt->jq, prog.buf, args);
	ai_buf_release(&prog);
	if (!ok) {
		compile_error(st, &rt->errors, e);
		return -1;
	}
	rt->dumpopts = o->dumpopts;
	if (o->sort)
		rt->dumpopts |= JV_PRINT_SORTED;
	if (o->ascii)
		rt->dumpopts |= JV_PRINT_ASCII;
	if (o->color)
		rt->dumpopts |= JV_PRINT_COLOR;
	return 0;
bad:
	jv_free(v);
	jv_free(args);
	jv_free(named);
	jv_free(positional);
	return -1;
}

static int
jq_begin(struct x_stage *st, struct x_run *x, const char *name)
{
	struct jq_rt *rt = st->rt;

	(void)x;
	rt->segs = ai_xrealloc(rt->segs, (rt->nsegs + 1) * sizeof(*rt->segs));
	rt->segs[rt->nsegs].off = rt->input.len;
	rt->segs[rt->nsegs].name = name;
	rt->nsegs++;
	return XR_OK;
}

static int
jq_feed(struct x_stage *st, struct x_run *x, const char *p, size_t n)
{
	struct jq_rt *rt = st->rt;

	(void)x;
	if (rt->input.len + n > (size_t)0x7fffffff)
		return x_abort(x, st, AI_EXIT_LIMIT, "the input is larger than jq reads (2 GiB)");
	ai_buf_add(&rt->input, p, n);
	return XR_OK;
}

/* Append the bytes of a jv string (consumed) to the output. */
static int
emit_jv_string(struct x_run *x, struct x_stage *st, jv s)
{
	int rc = x_emit(x, st, jv_string_value(s), (size_t)jv_string_length_bytes(jv_copy(s)));

	jv_free(s);
	return rc;
}

/* The text of a jv (consumed): a string as it is, anything else as JSON. */
static void
jv_text(jv v, char *out, size_t n, int *not_string)
{
	*not_string = jv_get_kind(v) != JV_KIND_STRING;
	if (!*not_string) {
		snprintf(out, n, "%s", jv_string_value(v));
		jv_free(v);
	} else {
		jv s = jv_dump_string(v, 0);

		snprintf(out, n, "%s", jv_string_value(s));
		jv_free(s);
	}
}

/* Where jq would say it is: "<stdin>:LINE" or "FILE:LINE". */
static void
position(const struct jq_rt *rt, char *out, size_t n)
{
	const char *name = rt->nsegs > 0 ? rt->segs[rt->seg].name : NULL;

	snprintf(out, n, "%s:%llu", name ? name : "<stdin>", (unsigned long long)rt->line);
}

/* Run the program on one input (consumed), as jq's process() does. */
static int
process(struct x_stage *st, struct x_run *x, jv input)
{
	const struct x_opts_jq *o = st->priv;
	struct jq_rt *rt = st->rt;
	jv r;

	jq_start(rt->jq, input, 0);
	while (jv_is_valid(r = jq_next(rt->jq))) {
		int w;

		if (o->raw && jv_get_kind(r) == JV_KIND_STRING) {
			if (o->ascii)
				w = emit_jv_string(x, st, jv_dump_string(r, JV_PRINT_ASCII));
			else
				w = emit_jv_string(x, st, r);
		} else {
			if (o->seq && x_emit(x, st, "\x1e", 1) != XR_OK) {
				jv_free(r);
				return XR_STOP;
			}
			w = emit_jv_string(x, st, jv_dump_string(r, rt->dumpopts));
		}
		if (w != XR_OK || (!o->join && x_emit(x, st, "\n", 1) != XR_OK))
			return x->abort.code ? XR_ABORT : XR_STOP;
	}
	if (jq_halted(rt->jq)) {
		jv code = jq_get_exit_code(rt->jq), msg = jq_get_error_message(rt->jq);
		int failed = jv_is_valid(code) &&
		    !(jv_get_kind(code) == JV_KIND_NUMBER && jv_number_value(code) == 0);
		char text[512] = "";

		if (jv_get_kind(msg) == JV_KIND_STRING) {
			size_t len = strlen(jv_string_value(msg));

			/* printed as it is; a line end at its end is the message's own */
			snprintf(text, sizeof(text), "%.*s", (int)(len > 0 &&
			    jv_string_value(msg)[len - 1] == '\n' ? len - 1 : len), jv_string_value(msg));
		} else if (jv_is_valid(msg) && jv_get_kind(msg) != JV_KIND_NULL) {
			jv d = jv_dump_string(jv_copy(msg), 0);

			snprintf(text, sizeof(text), "%s", jv_string_value(d));
			jv_free(d);
		}
		if (failed)
			x_fail(x, st, "%s", text[0] ? text : "halt_error");
		else if (text[0])
			x_warn(x, st, "%s", text);
		jv_free(code);
		jv_free(msg);
	} else if (jv_invalid_has_msg(jv_copy(r))) {
		char text[512], pos[300];
		int ns;

		jv_text(jv_invalid_get_msg(jv_copy(r)), text, sizeof(text), &ns);
		if (o->null_input && rt->off == 0)
			snprintf(pos, sizeof(pos), "<unknown>");
		else
			position(rt, pos, sizeof(pos));
		x_fail(x, st, "error (at %s)%s: %s", pos, ns ? " (not a string)" : "", text);
	}
	jv_free(r);
	return XR_OK;
}

static int
jq_end(struct x_stage *st, struct x_run *x)
{
	const struct x_opts_jq *o = st->priv;
	struct jq_rt *rt = st->rt;
	int flags = (o->stream ? JV_PARSE_STREAMING : 0) | (o->seq ? JV_PARSE_SEQ : 0);
	jv v;

	rt->parser = jv_parser_new(flags);
	if (o->slurp)
		rt->slurped = o->raw_input ? jv_string("") : jv_array();
	if (rt->nsegs == 0)
		jq_begin(st, x, NULL);
	if (o->null_input)
		return process(st, x, jv_null()) == XR_ABORT ? XR_ABORT : XR_OK;
	for (;;) {
		v = input_cb(rt->jq, rt);
		if (jv_is_valid(v)) {
			if (process(st, x, v) != XR_OK)
				break;
			continue;
		}
		if (jv_invalid_has_msg(jv_copy(v))) {
			char text[512];
			int ns;

			jv_text(jv_invalid_get_msg(v), text, sizeof(text), &ns);
			if (o->seq) {
				x_warn(x, st, "ignoring parse error: %s", text);
				continue;
			}
			x_fail(x, st, "parse error: %s", text);
			break;
		}
		jv_free(v);
		break;
	}
	return x->abort.code ? XR_ABORT : XR_OK;
}

static void
jq_release(struct x_stage *st)
{
	struct jq_rt *rt = st->rt;

	if (rt->parser != NULL)
		jv_parser_free(rt->parser);
	jv_free(rt->slurped);
	if (rt->jq != NULL)
		jq_teardown(&rt->jq);
	ai_buf_release(&rt->errors);
	ai_buf_release(&rt->input);
	free(rt->segs);
	free(rt);
	st->rt = NULL;
}

const struct x_rt x_rt_jq = {
	.prepare = jq_prepare,
	.begin = jq_begin,
	.feed = jq_feed,
	.end = jq_end,
	.release = jq_release,
};
