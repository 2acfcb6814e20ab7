/*
 * grep.c: grep, as GNU grep 3.8 behaves in the C locale.
 *
 * The patterns are basic regular expressions unless -E or -F, matched by
 * regex.c in time linear in the input.  Output is GNU's: FILE:, LINE: and
 * OFFSET: prefixes (':' for selected lines, '-' for context), "--" between
 * groups of context, -o's matches one per line, -c's counts, -l's and -L's
 * names, -q's silence, -m's stop (its trailing context still printed).
 *
 * GNU grep reads 96 KiB at a time and decides per buffer whether the input
 * is binary (a NUL in it): from that buffer on, NULs end lines, no line is
 * printed, the first selected line ends the input and "binary file
 * matches" goes to standard error (-c, -l, -L and -q count and list as
 * usual; -a reads on as text; -I takes the input as matching nothing).
 * The same buffers are cut here, so the same lines come out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lang.h"
#include "util.h"
#include "banned.h"

#define GNU_BUF 98304

struct ctx_line {
	uint64_t no, off;
	char *p;
	size_t n;
};

struct grep_rt {
	struct x_re *re;         /* selects lines */
	struct x_re *spans;      /* -o: the matches of a selected line */
	unsigned char eol;
	int fast;                /* no context, no -v: jump from match to match */
	int show_name;
	int used;                /* something was printed: "--" may come */
	uint64_t total;          /* lines selected in all inputs */
	/* the current input */
	const char *name;
	struct ai_buf win;       /* from the start of a partial line to the data received */
	uint64_t win_off;        /* the input offset of win.buf[0] */
	uint64_t boundary;       /* where GNU's current buffer ends */
	uint64_t lineno;         /* lines before win */
	int binary, bin_selected, ignored;
	uint64_t count;
	uint64_t left;           /* -m */
	int done;                /* no more lines are selected */
	uint64_t pending;        /* trailing context still to print */
	uint64_t last_out;       /* the number of the last line printed, 0 none */
	int width;               /* -T: the width of numbers */
	struct ctx_line *ring;   /* -B: the lines before, not printed */
	size_t nring;
};

static int
grep_prepare(struct x_stage *st, struct x_run *x, struct ai_err *e)
{
	const struct x_opts_grep *o = st->priv;
	struct grep_rt *rt = ai_xcalloc(1, sizeof(*rt));
	struct x_re_opts ro;
	char why[256];
	int rc;

	(void)x;
	st->rt = rt;
	ai_buf_init(&rt->win, AI_BUF_NOLIMIT);
	rt->eol = o->null_data ? '\0' : '\n';
	memset(&ro, 0, sizeof(ro));
	ro.syntax = o->syntax;
	ro.icase = o->icase;
	ro.words = o->words;
	ro.lines = o->lines;
	ro.eol = rt->eol;
	rc = x_re_compile(&rt->re, o->pats, o->lens, o->npats, &ro, why, sizeof(why));
	if (rc == 0 && o->only) {
		/* GNU finds the spans with glibc's reading, and -x does not constrain them */
		ro.spans = 1;
		ro.lines = 0;
		ro.words = o->words && !o->lines;
		rc = x_re_compile(&rt->spans, o->pats, o->lens, o->npats, &ro, why, sizeof(why));
	}
	if (rc < 0)
		return ai_err_set(e, rc == X_RE_EBACKREF ? AI_EXIT_POLICY : rc == X_RE_EBIG ?
		    AI_EXIT_LIMIT : AI_EXIT_DATAERR, "%s: %s%s", st->label, why,
		    rc == X_RE_EBACKREF ? ": no matcher runs them in time linear in the input" : "");
	rt->fast = !o->invert && !o->context;
	rt->show_name = o->with_name == 1 || (o->with_name < 0 && st->nfiles > 1);
	if (o->before > 0)
		rt->ring = ai_xcalloc(o->before < 1024 ? (size_t)o->before : 1024,
		    sizeof(*rt->ring));
	return 0;
}

static void
ring_clear(struct grep_rt *rt)
{
	size_t i;

	for (i = 0; i < rt->nring; i++)
		free(rt->ring[i].p);
	rt->nring = 0;
}

static void
grep_release(struct x_stage *st)
{
	struct grep_rt *rt = st->rt;

	x_re_free(rt->re);
	x_re_free(rt->spans);
	ai_buf_release(&rt->win);
	ring_clear(rt);
	free(rt->ring);
	free(rt);
	st->rt = NULL;
}

static int
grep_begin(struct x_stage *st, struct x_run *x, const char *name)
{
	const struct x_opts_grep *o = st->priv;
	struct grep_rt *rt = st->rt;
	uint64_t size = 0;
	size_t i;

	rt->name = name ? name : o->label ? o->label : "(standard input)";
	ai_buf_reset(&rt->win);
	rt->win_off = 0;
	rt->boundary = GNU_BUF;
	rt->lineno = 0;
	rt->binary = rt->bin_selected = rt->ignored = 0;
	rt->count = 0;
	rt->left = o->max_count;
	rt->done = o->max_count == 0 || (o->quiet && rt->total > 0);
	rt->pending = 0;
	rt->last_out = 0;
	ring_clear(rt);
	/* -T: numbers as wide as the input's size needs; 19 for a pipe */
	rt->width = 19;
	for (i = 0; name != NULL && i < st->nfiles; i++)
		if (st->fnames[i] == name) {
			struct stat sb;

			if (fstat(x->pol->files[st->files[i]].fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
				size = (uint64_t)sb.st_size;
				for (rt->width = 1; size >= 10; size /= 10)
					rt->width++;
			}
		}
	return XR_OK;
}

/* The head of an output line: FILE, LINE, OFFSET, each followed by sep. */
static int
head(struct x_stage *st, struct x_run *x, uint64_t no, uint64_t off, char sep, int nonempty)
{
	const struct x_opts_grep *o = st->priv;
	struct grep_rt *rt = st->rt;
	int w = o->initial_tab ? rt->width : 0;

	if (rt->show_name && (x_emit(x, st, rt->name, strlen(rt->name)) != XR_OK ||
	    x_emit(x, st, o->null_name ? "" : &sep, 1) != XR_OK))
		return XR_STOP;
	if (o->number && x_emitf(x, st, "%*llu%c", w, (unsigned long long)no, sep) != XR_OK)
		return XR_STOP;
	if (o->byte_offset && x_emitf(x, st, "%*llu%c", w, (unsigned long long)off, sep) != XR_OK)
		return XR_STOP;
	if (o->initial_tab && (rt->show_name || o->number || o->byte_offset) && nonempty &&
	    x_emit(x, st, "\t", 1) != XR_OK)
		return XR_STOP;
	return XR_OK;
}

/* Print a line: selected (':') or context ('-'). */
static int
print_line(struct x_stage *st, struct x_run *x, const char *p, size_t n, uint64_t no,
    uint64_t off, char sep)
{
	const struct x_opts_grep *o = st->priv;
	struct grep_rt *rt = st->rt;

	/* "--" between groups that are not adjacent (in another input, never) */
	if (o->context && rt->used && o->group_sep != NULL &&
	    (rt->last_out == 0 || no != rt->last_out + 1) &&
	    (x_emit(x, st, o->group_sep, strlen(o->group_sep)) != XR_OK ||
	    x_emit(x, st, "\n", 1) != XR_OK))
		return XR_STOP;
	rt->used = 1;
	rt->last_out = no;
	if (!o->only) {
		if (head(st, x, no, off, sep, n > 0) != XR_OK || x_emit(x, st, p, n) != XR_OK ||
		    x_emit(x, st, &rt->eol, 1) != XR_OK)
			return XR_STOP;
		return XR_OK;
	}
	if (o->words && o->lines) {
		/* GNU prints the line with its end as the match, then an end: kept as is */
		if ((sep == ':') == !o->invert)
			if (head(st, x, no, off, sep, 1) != XR_OK || x_emit(x, st, p, n) != XR_OK ||
			    x_emit(x, st, &rt->eol, 1) != XR_OK || x_emit(x, st, &rt->eol, 1) != XR_OK)
				return XR_STOP;
		return XR_OK;
	}
	if ((sep == ':') != !o->invert)
		return XR_OK; /* a line without matches to show */
	{
		size_t from = 0, ms, me;
		char msep = o->invert ? '-' : ':';

		while (from < n && x_re_match(rt->spans, p, n, from, &ms, &me)) {
			if (head(st, x, no, off + ms, msep, 1) != XR_OK ||
			    x_emit(x, st, p + ms, me - ms) != XR_OK ||
			    x_emit(x, st, &rt->eol, 1) != XR_OK)
				return XR_STOP;
			from = me;
		}
	}
	return XR_OK;
}

/* A line that was not selected: trailing context, or kept for leading context. */
static int
other_line(struct x_stage *st, struct x_run *x, const char *p, size_t n, uint64_t no,
    uint64_t off)
{
	const struct x_opts_grep *o = st->priv;
	struct grep_rt *rt = st->rt;
	size_t cap = o->before < 1024 ? (size_t)o->before : 1024;

	if (rt->pending > 0 && !rt->binary) {
		rt->pending--;
		return print_line(st, x, p, n, no, off, '-');
	}
	if (cap == 0 || rt->binary)
		return XR_OK;
	if (rt->nring == cap) {
		free(rt->ring[0].p);
		memmove(rt->ring, rt->ring + 1, (cap - 1) * sizeof(*rt->ring));
		rt->nring--;
	}
	rt->ring[rt->nring].no = no;
	rt->ring[rt->nring].off = off;
	rt->ring[rt->nring].p = ai_xmemdup(p, n);
	rt->ring[rt->nring].n = n;
	rt->nring++;
	return XR_OK;
}

/* A selected line. */
static int
selected(struct x_stage *st, struct x_run *x, const char *p, size_t n, uint64_t no,
    uint64_t off)
{
	const struct x_opts_grep *o = st->priv;
	struct grep_rt *rt = st->rt;
	size_t i;

	rt->count++;
	rt->total++;
	if (--rt->left == 0)
		rt->done = 1;
	if (o->list || o->quiet) {
		rt->done = 1;
		return XR_OK;
	}
	if (rt->binary && !o->count) {
		rt->bin_selected = 1;
		rt->done = 1;
		rt->used = 1; /* GNU counts a quiet group for "--" all the same */
		return XR_OK;
	}
	if (o->count) {
		rt->used = 1;
		return XR_OK;
	}
	for (i = 0; i < rt->nring; i++)
		if (print_line(st, x, rt->ring[i].p, rt->ring[i].n, rt->ring[i].no, rt->ring[i].off,
		    '-') != XR_OK)
			return XR_STOP;
	ring_clear(rt);
	rt->pending = o->after;
	return print_line(st, x, p, n, no, off, ':');
}

static uint64_t
count_ends(const char *p, size_t n, unsigned char eol)
{
	const char *end = p + n;
	uint64_t k = 0;

	while ((p = memchr(p, eol, (size_t)(end - p))) != NULL) {
		k++;
		p++;
	}
	return k;
}

/*
 * The lines of win.buf[0..len) (each ending in eol, the last one too
 * unless last); returns where the unprocessed rest starts.
 */
static size_t
lines_of(struct x_stage *st, struct x_run *x, size_t len, int last)
{
	const struct x_opts_grep *o = st->priv;
	struct grep_rt *rt = st->rt;
	const char *p = rt->win.buf;
	size_t off = 0, end;
	const char *lf = len > 0 ? memrchr(p, rt->eol, len) : NULL;

	end = lf ? (size_t)(lf - p) + 1 : 0;
	if (last)
		end = len;
	if (rt->fast && !rt->done) {
		/* jump from selected line to selected line */
		size_t counted = 0;
		uint64_t no = rt->lineno;

		while (off < end && !rt->done) {
			size_t ls, le;

			if (!x_re_find_line(rt->re, p, end, off, &ls, &le))
				break;
			if (o->number) {
				no += count_ends(p + counted, ls - counted, rt->eol);
				counted = ls;
			}
			if (selected(st, x, p + ls, le - ls, no + 1, rt->win_off + ls) != XR_OK)
				return end;
			off = le + 1;
		}
		if (o->number)
			rt->lineno += count_ends(p, end, rt->eol) + (last && end > 0 &&
			    (unsigned char)p[end - 1] != rt->eol);
		return end;
	}
	while (off < end) {
		const char *e = memchr(p + off, rt->eol, end - off);
		size_t le = e ? (size_t)(e - p) : end;
		int m;

		rt->lineno++;
		if (rt->done && rt->pending == 0)
			break;
		if (rt->done)
			m = 0;
		else
			m = x_re_line(rt->re, p + off, le - off) != o->invert;
		if (m) {
			if (selected(st, x, p + off, le - off, rt->lineno, rt->win_off + off) != XR_OK)
				return end;
		} else if (other_line(st, x, p + off, le - off, rt->lineno, rt->win_off + off) !=
		    XR_OK) {
			return end;
		}
		off = le + 1;
	}
	return end;
}

/* GNU's buffer: decide whether it is binary, then take its lines. */
static void
region(struct x_stage *st, struct x_run *x, size_t len, int last)
{
	const struct x_opts_grep *o = st->priv;
	struct grep_rt *rt = st->rt;
	size_t used;

	if (!rt->binary && !o->null_data && o->binary != 't' && memchr(rt->win.buf, 0, len)) {
		if (o->binary == 'w') {
			/* -I: the input matches nothing, from here and before */
			rt->total -= rt->count;
			rt->count = 0;
			rt->ignored = rt->done = 1;
			rt->pending = 0;
		} else {
			/* GNU prints nothing more from here, context included */
			rt->binary = 1;
			if (!o->count)
				rt->pending = 0;
		}
	}
	if (rt->binary) {
		char *q = rt->win.buf, *end = q + len;

		while ((q = memchr(q, 0, (size_t)(end - q))) != NULL)
			*q++ = (char)rt->eol;
	}
	if (rt->ignored) {
		ai_buf_consume(&rt->win, len);
		rt->win_off += len;
		return;
	}
	used = lines_of(st, x, len, last);
	ai_buf_consume(&rt->win, used);
	rt->win_off += used;
}

static int
grep_feed(struct x_stage *st, struct x_run *x, const char *p, size_t n)
{
	struct grep_rt *rt = st->rt;

	while (n > 0) {
		uint64_t have = rt->win_off + rt->win.len;
		size_t take = rt->boundary - have < n ? (size_t)(rt->boundary - have) : n;

		if (p == rt->win.buf + rt->win.len) {
			/* read in place (grep_space) */
			rt->win.len += take;
			rt->win.buf[rt->win.len] = '\0';
		} else {
			ai_buf_add(&rt->win, p, take);
		}
		p += take;
		n -= take;
		if (rt->win_off + rt->win.len == rt->boundary) {
			region(st, x, rt->win.len, 0);
			rt->boundary += GNU_BUF;
		}
		if (x->abort.code)
			return XR_ABORT;
		if (rt->done && rt->pending == 0)
			return XR_STOP;
	}
	return XR_OK;
}

/* A listed file is read straight into the window, up to GNU's next buffer end. */
static char *
grep_space(struct x_stage *st, struct x_run *x, size_t *n)
{
	struct grep_rt *rt = st->rt;
	uint64_t room = rt->boundary - (rt->win_off + rt->win.len);

	(void)x;
	*n = room;
	ai_buf_grow(&rt->win, (size_t)room);
	return rt->win.buf + rt->win.len;
}

static int
grep_finish(struct x_stage *st, struct x_run *x)
{
	const struct x_opts_grep *o = st->priv;
	struct grep_rt *rt = st->rt;
	char end = o->null_name ? '\0' : '\n';

	if (rt->win.len > 0 && !(rt->done && rt->pending == 0))
		region(st, x, rt->win.len, 1);
	if (x->abort.code)
		return XR_ABORT;
	if (o->quiet || (o->max_count == 0 && o->list != 'L'))
		return XR_OK; /* -m 0: GNU grep reads nothing, and prints nothing but -L's names */
	if (o->list) {
		if ((o->list == 'l') == (rt->count > 0) &&
		    (x_emit(x, st, rt->name, strlen(rt->name)) == XR_ABORT ||
		    x_emit(x, st, &end, 1) == XR_ABORT))
			return XR_ABORT;
		return XR_OK;
	}
	if (o->count) {
		if (rt->show_name && (x_emit(x, st, rt->name, strlen(rt->name)) == XR_ABORT ||
		    x_emit(x, st, o->null_name ? "" : ":", 1) == XR_ABORT))
			return XR_ABORT;
		if (x_emitf(x, st, "%llu\n", (unsigned long long)rt->count) == XR_ABORT)
			return XR_ABORT;
		return XR_OK;
	}
	if (rt->bin_selected)
		x_warn(x, st, "%s: binary file matches", rt->name);
	return XR_OK;
}

static int
grep_end(struct x_stage *st, struct x_run *x)
{
	struct grep_rt *rt = st->rt;

	(void)x;
	st->status = rt->total > 0 ? 0 : 1;
	return XR_OK;
}

const struct x_rt x_rt_grep = {
	.prepare = grep_prepare,
	.begin = grep_begin,
	.feed = grep_feed,
	.finish = grep_finish,
	.end = grep_end,
	.release = grep_release,
	.space = grep_space,
};
