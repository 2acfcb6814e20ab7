/*
 * text.c: cat, nl, wc, cut and uniq.
 *
 * Each behaves as its GNU coreutils namesake does with LC_ALL=C: bytes are
 * characters, compared as bytes.  cat works on the bytes of all its inputs
 * as one stream (a last line without LF runs into the next file, as with
 * cat itself); nl, cut and uniq work on lines, and end each input's last
 * line with LF; wc counts each input.  Input comes in pieces (feed); each
 * keeps only what it must (a partial line, uniq's previous line).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lang.h"
#include "util.h"
#include "banned.h"

static int
printable(unsigned char c)
{
	return c >= 32 && c < 127;
}

/* ---- cat ---- */

struct cat_rt {
	uint64_t lineno;
	int bol;          /* at the start of a line */
	int blanks;       /* empty lines just output (-s) */
	int cr;           /* -E: a CR held back, to be shown as ^M if a LF follows */
};

static int
cat_prepare(struct x_stage *st, struct x_run *x, struct ai_err *e)
{
	struct cat_rt *rt = ai_xcalloc(1, sizeof(*rt));

	(void)x;
	(void)e;
	rt->bol = 1;
	st->rt = rt;
	return 0;
}

/* The bytes of p with -v, -T and -E made visible (-E shows a CR before a LF as ^M). */
static int
cat_visible(struct x_stage *st, struct x_run *x, const struct x_opts_cat *o, const char *p,
    size_t n)
{
	struct cat_rt *rt = st->rt;
	char buf[4096];
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if (k > sizeof(buf) - 8) {
			if (x_emit(x, st, buf, k) != XR_OK)
				return XR_STOP;
			k = 0;
		}
		if (rt->cr) {
			rt->cr = 0;
			if (c == '\n') {
				memcpy(buf + k, "^M$\n", 4);
				k += 4;
				continue;
			}
			buf[k++] = '\r';
		}
		if (c == '\r' && o->ends && !o->nonprinting) {
			rt->cr = 1;
		} else if (c == '\n') {
			if (o->ends)
				buf[k++] = '$';
			buf[k++] = '\n';
		} else if (c == '\t') {
			if (o->tabs) {
				buf[k++] = '^';
				buf[k++] = 'I';
			} else {
				buf[k++] = '\t';
			}
		} else if (o->nonprinting && !printable(c)) {
			if (c >= 128) {
				buf[k++] = 'M';
				buf[k++] = '-';
				c = (unsigned char)(c - 128);
			}
			if (c < 32) {
				buf[k++] = '^';
				buf[k++] = (char)(c + 64);
			} else if (c == 127) {
				buf[k++] = '^';
				buf[k++] = '?';
			} else {
				buf[k++] = (char)c;
			}
		} else {
			buf[k++] = (char)c;
		}
	}
	return x_emit(x, st, buf, k) != XR_OK ? XR_STOP : XR_OK;
}

static int
cat_feed(struct x_stage *st, struct x_run *x, const char *p, size_t n)
{
	const struct x_opts_cat *o = st->priv;
	struct cat_rt *rt = st->rt;
	size_t i = 0;

	if (!o->number && !o->squeeze && !o->ends && !o->tabs && !o->nonprinting)
		return x_emit(x, st, p, n) == XR_OK ? XR_OK : XR_STOP;
	while (i < n) {
		const char *lf;
		size_t len;

		if (rt->bol) {
			if (p[i] == '\n') {
				if (o->squeeze && rt->blanks > 0) {
					i++;
					continue;
				}
				rt->blanks++;
				if (o->number && !o->nonblank &&
				    x_emit_number(x, st, ++rt->lineno, 6, ' ', 0, "\t", 1) != XR_OK)
					return XR_STOP;
				if (cat_visible(st, x, o, p + i, 1) != XR_OK)
					return XR_STOP;
				i++;
				continue;
			}
			rt->blanks = 0;
			if (o->number && x_emit_number(x, st, ++rt->lineno, 6, ' ', 0, "\t", 1) != XR_OK)
				return XR_STOP;
			rt->bol = 0;
		}
		lf = memchr(p + i, '\n', n - i);
		len = lf ? (size_t)(lf - (p + i)) + 1 : n - i;
		if (cat_visible(st, x, o, p + i, len) != XR_OK)
			return XR_STOP;
		if (lf != NULL)
			rt->bol = 1;
		i += len;
	}
	return XR_OK;
}

/* A CR held back at the very end is only a CR. */
static int
cat_end(struct x_stage *st, struct x_run *x)
{
	struct cat_rt *rt = st->rt;

	if (rt->cr) {
		rt->cr = 0;
		return x_emit(x, st, "\r", 1) == XR_ABORT ? XR_ABORT : XR_OK;
	}
	return XR_OK;
}

static void
free_rt(struct x_stage *st)
{
	free(st->rt);
	st->rt = NULL;
}

const struct x_rt x_rt_cat = {
	.prepare = cat_prepare,
	.feed = cat_feed,
	.end = cat_end,
	.release = free_rt,
};

/* ---- nl ---- */

struct nl_rt {
	struct x_lines lines;
	struct x_re *re[3];
	int section;      /* 0 header, 1 body, 2 footer */
	int64_t lineno;
	uint64_t blanks;
	char *del[3];     /* the delimiter lines of header, body, footer */
	size_t dellen[3];
};

static int
nl_prepare(struct x_stage *st, struct x_run *x, struct ai_err *e)
{
	const struct x_opts_nl *o = st->priv;
	struct nl_rt *rt = ai_xcalloc(1, sizeof(*rt));
	size_t k, dl = strlen(o->delim);
	int i;

	(void)x;
	st->rt = rt;
	x_lines_init(&rt->lines, '\n');
	rt->section = 1;
	rt->lineno = o->start;
	for (i = 0; i < 3; i++) {
		rt->dellen[i] = dl * (size_t)(3 - i);
		rt->del[i] = ai_xmalloc(rt->dellen[i] + 1);
		for (k = 0; k < (size_t)(3 - i); k++)
			memcpy(rt->del[i] + k * dl, o->delim, dl);
		rt->del[i][rt->dellen[i]] = '\0';
		if (o->style[i] == 'p') {
			struct x_re_opts ro = { X_RE_BASIC, 0, 0, 0, '\n', 1 };
			size_t len = strlen(o->re[i]);
			char why[256];

			if (x_re_compile(&rt->re[i], &o->re[i], &len, 1, &ro, why, sizeof(why)) < 0)
				return ai_err_set(e, AI_EXIT_DATAERR, "%s: %s", st->label, why);
		}
	}
	return 0;
}

static int
nl_number(struct x_stage *st, struct x_run *x, struct nl_rt *rt, const struct x_opts_nl *o)
{
	char buf[64];
	int k;

	if (o->format == 'l')
		k = snprintf(buf, sizeof(buf), "%-*" PRId64, (int)o->width, rt->lineno);
	else if (o->format == 'z')
		k = snprintf(buf, sizeof(buf), "%0*" PRId64, (int)o->width, rt->lineno);
	else
		k = snprintf(buf, sizeof(buf), "%*" PRId64, (int)o->width, rt->lineno);
	rt->lineno += o->incr;
	if (x_emit(x, st, buf, (size_t)k) != XR_OK)
		return XR_STOP;
	return x_emit(x, st, o->sep, strlen(o->sep)) != XR_OK ? XR_STOP : XR_OK;
}

static int
nl_blank(struct x_stage *st, struct x_run *x, const struct x_opts_nl *o)
{
	uint64_t i, n = o->width + strlen(o->sep);

	for (i = 0; i < n; i++)
		if (x_emit(x, st, " ", 1) != XR_OK)
			return XR_STOP;
	return XR_OK;
}

static int
nl_line(struct x_stage *st, struct x_run *x, const char *line, size_t len)
{
	const struct x_opts_nl *o = st->priv;
	struct nl_rt *rt = st->rt;
	int i, number = 0, rc;

	if (len >= 2 && o->delim[0] != '\0' && memcmp(line, o->delim, 2) == 0) {
		for (i = 0; i < 3; i++)
			if (len == rt->dellen[i] && memcmp(line, rt->del[i], len) == 0)
				break;
		if (i < 3) {
			rt->section = i;
			if (!o->no_renumber)
				rt->lineno = o->start;
			return x_emit(x, st, "\n", 1) != XR_OK ? XR_STOP : XR_OK;
		}
	}
	switch (o->style[rt->section]) {
	case 'a':
		if (o->join > 1) {
			if (len > 0 || ++rt->blanks == o->join) {
				number = 1;
				rt->blanks = 0;
			}
		} else {
			number = 1;
		}
		break;
	case 't':
		number = len > 0;
		break;
	case 'p':
		number = x_re_line(rt->re[rt->section], line, len);
		break;
	default:
		break;
	}
	rc = number ? nl_number(st, x, rt, o) : nl_blank(st, x, o);
	if (rc != XR_OK || x_emit(x, st, line, len) != XR_OK || x_emit(x, st, "\n", 1) != XR_OK)
		return XR_STOP;
	return XR_OK;
}

static int
nl_block(struct x_stage *st, struct x_run *x, const char *p, size_t n, int last)
{
	const char *line;
	size_t off = 0, len;

	(void)last;
	while (x_next_line(p, n, '\n', &off, &line, &len))
		if (nl_line(st, x, line, len) != XR_OK)
			return XR_STOP;
	return XR_OK;
}

static int
nl_feed(struct x_stage *st, struct x_run *x, const char *p, size_t n)
{
	struct nl_rt *rt = st->rt;

	return x_lines_feed(&rt->lines, st, x, p, n, nl_block);
}

static int
nl_finish(struct x_stage *st, struct x_run *x)
{
	struct nl_rt *rt = st->rt;

	return x_lines_end(&rt->lines, st, x, nl_block) == XR_ABORT ? XR_ABORT : XR_OK;
}

static void
nl_release(struct x_stage *st)
{
	struct nl_rt *rt = st->rt;
	int i;

	x_lines_release(&rt->lines);
	for (i = 0; i < 3; i++) {
		x_re_free(rt->re[i]);
		free(rt->del[i]);
	}
	free(rt);
	st->rt = NULL;
}

const struct x_rt x_rt_nl = {
	.prepare = nl_prepare,
	.feed = nl_feed,
	.finish = nl_finish,
	.release = nl_release,
};

/* ---- wc ---- */

struct wc_counts {
	uint64_t lines, words, bytes, maxlen;
};

struct wc_rt {
	struct wc_counts cur, total;
	const char *name;
	int inword;
	uint64_t linepos;
	int width;
	int inputs;
};

static int
wc_prepare(struct x_stage *st, struct x_run *x, struct ai_err *e)
{
	const struct x_opts_wc *o = st->priv;
	struct wc_rt *rt = ai_xcalloc(1, sizeof(*rt));
	int ncounts = o->lines + o->words + o->chars + o->bytes + o->maxlen;
	uint64_t size = 0;
	size_t i;

	(void)e;
	st->rt = rt;
	/*
	 * GNU's width: one count of one input is bare; else the digits of the
	 * files' total size, 7 at least for a pipe
	 */
	rt->width = 1;
	if (!(ncounts == 1 && st->nfiles <= 1)) {
		int minimum = st->nfiles == 0 ? 7 : 1;

		for (i = 0; i < st->nfiles; i++) {
			struct stat sb;

			if (fstat(x->pol->files[st->files[i]].fd, &sb) == 0 && S_ISREG(sb.st_mode))
				size += (uint64_t)sb.st_size;
			else
				minimum = 7;
		}
		for (; size >= 10; size /= 10)
			rt->width++;
		if (rt->width < minimum)
			rt->width = minimum;
	}
	return 0;
}

static int
wc_begin(struct x_stage *st, struct x_run *x, const char *name)
{
	struct wc_rt *rt = st->rt;

	(void)x;
	memset(&rt->cur, 0, sizeof(rt->cur));
	rt->name = name;
	rt->inword = 0;
	rt->linepos = 0;
	return XR_OK;
}

static int
wc_feed(struct x_stage *st, struct x_run *x, const char *p, size_t n)
{
	const struct x_opts_wc *o = st->priv;
	struct wc_rt *rt = st->rt;
	struct wc_counts *c = &rt->cur;
	const unsigned char *s = (const unsigned char *)p;
	size_t i;

	(void)x;
	c->bytes += n;
	if (!o->words && !o->maxlen) {
		const char *q = p, *end = p + n;

		while ((q = memchr(q, '\n', (size_t)(end - q))) != NULL) {
			c->lines++;
			q++;
		}
		return XR_OK;
	}
	for (i = 0; i < n; i++) {
		unsigned char ch = s[i];

		switch (ch) {
		case '\n':
			c->lines++;
			/* fall through */
		case '\r':
		case '\f':
			if (rt->linepos > c->maxlen)
				c->maxlen = rt->linepos;
			rt->linepos = 0;
			rt->inword = 0;
			break;
		case '\t':
			rt->linepos += 8 - rt->linepos % 8;
			rt->inword = 0;
			break;
		case ' ':
			rt->linepos++;
			rt->inword = 0;
			break;
		case '\v':
			rt->inword = 0;
			break;
		default:
			if (printable(ch)) {
				rt->linepos++;
				if (!rt->inword) {
					rt->inword = 1;
					c->words++;
				}
			}
			break;
		}
	}
	return XR_OK;
}

static int
wc_print(struct x_stage *st, struct x_run *x, const struct wc_counts *c, const char *name)
{
	const struct x_opts_wc *o = st->priv;
	const struct wc_rt *rt = st->rt;
	uint64_t v[5];
	int on[5], i, first = 1;

	v[0] = c->lines;
	v[1] = c->words;
	v[2] = c->bytes;
	v[3] = c->bytes;
	v[4] = c->maxlen;
	on[0] = o->lines;
	on[1] = o->words;
	on[2] = o->chars;
	on[3] = o->bytes;
	on[4] = o->maxlen;
	for (i = 0; i < 5; i++) {
		if (!on[i])
			continue;
		if (x_emitf(x, st, "%s%*llu", first ? "" : " ", rt->width, (unsigned long long)v[i]) !=
		    XR_OK)
			return XR_ABORT;
		first = 0;
	}
	if (name != NULL && x_emitf(x, st, " %s", name) != XR_OK)
		return XR_ABORT;
	return x_emit(x, st, "\n", 1) == XR_ABORT ? XR_ABORT : XR_OK;
}

static int
wc_finish(struct x_stage *st, struct x_run *x)
{
	struct wc_rt *rt = st->rt;

	if (rt->linepos > rt->cur.maxlen)
		rt->cur.maxlen = rt->linepos;
	rt->total.lines += rt->cur.lines;
	rt->total.words += rt->cur.words;
	rt->total.bytes += rt->cur.bytes;
	if (rt->cur.maxlen > rt->total.maxlen)
		rt->total.maxlen = rt->cur.maxlen;
	rt->inputs++;
	return wc_print(st, x, &rt->cur, rt->name);
}

static int
wc_end(struct x_stage *st, struct x_run *x)
{
	struct wc_rt *rt = st->rt;

	if (st->nfiles > 1)
		return wc_print(st, x, &rt->total, "total");
	return XR_OK;
}

const struct x_rt x_rt_wc = {
	.prepare = wc_prepare,
	.begin = wc_begin,
	.feed = wc_feed,
	.finish = wc_finish,
	.end = wc_end,
	.release = free_rt,
};

/* ---- cut ---- */

struct cut_rt {
	struct x_lines lines;
};

static int
cut_prepare(struct x_stage *st, struct x_run *x, struct ai_err *e)
{
	const struct x_opts_cut *o = st->priv;
	struct cut_rt *rt = ai_xcalloc(1, sizeof(*rt));

	(void)x;
	(void)e;
	x_lines_init(&rt->lines, o->zero ? '\0' : '\n');
	st->rt = rt;
	return 0;
}

/* Whether position k (from 1) is selected; *r walks the sorted ranges. */
static int
cut_selected(const struct x_opts_cut *o, uint64_t k, size_t *r)
{
	while (*r < o->nr && o->r[*r].hi < k)
		(*r)++;
	return (*r < o->nr && o->r[*r].lo <= k) != o->complement;
}

/* Whether position k starts a run of selected positions after a gap. */
static int
cut_run_start(const struct x_opts_cut *o, uint64_t k)
{
	size_t i;

	if (!o->complement) {
		for (i = 0; i < o->nr; i++)
			if (o->r[i].lo == k)
				return 1;
		return 0;
	}
	for (i = 0; i < o->nr; i++)
		if (o->r[i].hi != UINT64_MAX && o->r[i].hi + 1 == k)
			return 1;
	return k == 1;
}

static int
cut_line(struct x_stage *st, struct x_run *x, const char *line, size_t len)
{
	const struct x_opts_cut *o = st->priv;
	char eol = o->zero ? '\0' : '\n';
	size_t r = 0, i;
	int first = 1;

	if (o->mode != 'f') {
		for (i = 0; i < len; i++) {
			if (!cut_selected(o, (uint64_t)i + 1, &r))
				continue;
			if (o->out_delim != NULL && !first && cut_run_start(o, (uint64_t)i + 1) &&
			    x_emit(x, st, o->out_delim, strlen(o->out_delim)) != XR_OK)
				return XR_STOP;
			if (x_emit(x, st, line + i, 1) != XR_OK)
				return XR_STOP;
			first = 0;
		}
	} else if (memchr(line, o->delim, len) == NULL) {
		if (o->only_delimited)
			return XR_OK;
		if (x_emit(x, st, line, len) != XR_OK)
			return XR_STOP;
	} else {
		size_t start = 0;
		uint64_t field = 1;
		const char *od = o->out_delim ? o->out_delim : (const char *)&o->delim;
		size_t odl = o->out_delim ? strlen(o->out_delim) : 1;

		for (;;) {
			const char *d = start < len ? memchr(line + start, o->delim, len - start) : NULL;
			size_t end = d ? (size_t)(d - line) : len;

			if (cut_selected(o, field, &r)) {
				if ((!first && x_emit(x, st, od, odl) != XR_OK) ||
				    x_emit(x, st, line + start, end - start) != XR_OK)
					return XR_STOP;
				first = 0;
			}
			if (d == NULL)
				break;
			start = end + 1;
			field++;
		}
	}
	return x_emit(x, st, &eol, 1) != XR_OK ? XR_STOP : XR_OK;
}

static int
cut_block(struct x_stage *st, struct x_run *x, const char *p, size_t n, int last)
{
	const struct x_opts_cut *o = st->priv;
	const char *line;
	size_t off = 0, len;

	(void)last;
	while (x_next_line(p, n, o->zero ? '\0' : '\n', &off, &line, &len))
		if (cut_line(st, x, line, len) != XR_OK)
			return XR_STOP;
	return XR_OK;
}

static int
cut_feed(struct x_stage *st, struct x_run *x, const char *p, size_t n)
{
	struct cut_rt *rt = st->rt;

	return x_lines_feed(&rt->lines, st, x, p, n, cut_block);
}

static int
cut_finish(struct x_stage *st, struct x_run *x)
{
	struct cut_rt *rt = st->rt;

	return x_lines_end(&rt->lines, st, x, cut_block) == XR_ABORT ? XR_ABORT : XR_OK;
}

static void
cut_release(struct x_stage *st)
{
	struct cut_rt *rt = st->rt;

	x_lines_release(&rt->lines);
	free(rt);
	st->rt = NULL;
}

const struct x_rt x_rt_cut = {
	.prepare = cut_prepare,
	.feed = cut_feed,
	.finish = cut_finish,
	.release = cut_release,
};

/* ---- uniq ---- */

/*
 * GNU uniq's own state machine: a line is written when the next one shows
 * whether it was unique, the first of a group or a later repeat; -d, -D, -u
 * and --group decide which of those are written.
 */
struct uniq_rt {
	struct x_lines lines;
	struct ai_buf prev;
	int have;
	uint64_t matches;          /* lines after prev's group's first that matched */
	int first_delimiter;       /* -D separate: no group printed yet */
	int first_group;           /* --group: no group printed yet */
	int unique, first, later;  /* which lines are written */
};

static int
uniq_prepare(struct x_stage *st, struct x_run *x, struct ai_err *e)
{
	const struct x_opts_uniq *o = st->priv;
	struct uniq_rt *rt = ai_xcalloc(1, sizeof(*rt));

	(void)x;
	(void)e;
	x_lines_init(&rt->lines, o->zero ? '\0' : '\n');
	ai_buf_init(&rt->prev, AI_BUF_NOLIMIT);
	rt->unique = !o->repeated && !o->all;
	rt->first = !o->unique;
	rt->later = o->all != 0;
	rt->first_delimiter = rt->first_group = 1;
	st->rt = rt;
	return 0;
}

/* The part of a line that is compared: after -f fields and -s bytes, at most -w bytes. */
static void
uniq_key(const struct x_opts_uniq *o, const char *p, size_t n, size_t *off, size_t *len)
{
	size_t i = 0;
	uint64_t f;

	for (f = 0; f < o->skip_fields && i < n; f++) {
		while (i < n && (p[i] == ' ' || p[i] == '\t'))
			i++;
		while (i < n && p[i] != ' ' && p[i] != '\t')
			i++;
	}
	i = o->skip_chars < n - i ? i + (size_t)o->skip_chars : n;
	*off = i;
	*len = o->check_chars < n - i ? (size_t)o->check_chars : n - i;
}

static int
uniq_same(const struct x_opts_uniq *o, const char *a, size_t na, const char *b, size_t nb)
{
	size_t ao, al, bo, bl, i;

	uniq_key(o, a, na, &ao, &al);
	uniq_key(o, b, nb, &bo, &bl);
	if (al != bl)
		return 0;
	if (!o->icase)
		return memcmp(a + ao, b + bo, al) == 0;
	for (i = 0; i < al; i++) {
		unsigned char x = (unsigned char)a[ao + i], y = (unsigned char)b[bo + i];

		if (x >= 'a' && x <= 'z')
			x = (unsigned char)(x - 32);
		if (y >= 'a' && y <= 'z')
			y = (unsigned char)(y - 32);
		if (x != y)
			return 0;
	}
	return 1;
}

static int
uniq_write(struct x_stage *st, struct x_run *x, const char *p, size_t n, int match,
    uint64_t count)
{
	const struct x_opts_uniq *o = st->priv;
	const struct uniq_rt *rt = st->rt;
	char eol = o->zero ? '\0' : '\n';

	if (!(count == 0 ? rt->unique : !match ? rt->first : rt->later))
		return XR_OK;
	if (o->count && x_emitf(x, st, "%7llu ", (unsigned long long)count + 1) != XR_OK)
		return XR_STOP;
	if (x_emit(x, st, p, n) != XR_OK || x_emit(x, st, &eol, 1) != XR_OK)
		return XR_STOP;
	return XR_OK;
}

static int
uniq_line(struct x_stage *st, struct x_run *x, const char *line, size_t len)
{
	const struct x_opts_uniq *o = st->priv;
	struct uniq_rt *rt = st->rt;
	char eol = o->zero ? '\0' : '\n';
	int match;

	if (rt->unique && rt->first && !o->count) {
		/* every group's first line (or, with --group, every line, with separators) */
		int new_group = !rt->have || !uniq_same(o, rt->prev.buf, rt->prev.len, line, len);

		if (new_group && o->group && (o->group == 'p' || o->group == 'b' ||
		    (!rt->first_group && (o->group == 'a' || o->group == 's'))) &&
		    x_emit(x, st, &eol, 1) != XR_OK)
			return XR_STOP;
		if (new_group || o->group) {
			if (x_emit(x, st, line, len) != XR_OK || x_emit(x, st, &eol, 1) != XR_OK)
				return XR_STOP;
			ai_buf_reset(&rt->prev);
			ai_buf_add(&rt->prev, line, len);
			rt->have = 1;
			rt->first_group = 0;
		}
		return XR_OK;
	}
	if (!rt->have) {
		ai_buf_add(&rt->prev, line, len);
		rt->have = 1;
		return XR_OK;
	}
	match = uniq_same(o, rt->prev.buf, rt->prev.len, line, len);
	rt->matches += (uint64_t)match;
	if (o->all == 's' || o->all == 'p') {
		if (!match) {
			if (rt->matches)
				rt->first_delimiter = 0;
		} else if (rt->matches == 1 && (o->all == 'p' || !rt->first_delimiter) &&
		    x_emit(x, st, &eol, 1) != XR_OK) {
			return XR_STOP;
		}
	}
	if (!match || rt->later) {
		if (uniq_write(st, x, rt->prev.buf, rt->prev.len, match, rt->matches) != XR_OK)
			return XR_STOP;
		ai_buf_reset(&rt->prev);
		ai_buf_add(&rt->prev, line, len);
		if (!match)
			rt->matches = 0;
	}
	return XR_OK;
}

static int
uniq_block(struct x_stage *st, struct x_run *x, const char *p, size_t n, int last)
{
	const struct x_opts_uniq *o = st->priv;
	const char *line;
	size_t off = 0, len;

	(void)last;
	while (x_next_line(p, n, o->zero ? '\0' : '\n', &off, &line, &len))
		if (uniq_line(st, x, line, len) != XR_OK)
			return XR_STOP;
	return XR_OK;
}

static int
uniq_feed(struct x_stage *st, struct x_run *x, const char *p, size_t n)
{
	struct uniq_rt *rt = st->rt;

	return x_lines_feed(&rt->lines, st, x, p, n, uniq_block);
}

static int
uniq_finish(struct x_stage *st, struct x_run *x)
{
	const struct x_opts_uniq *o = st->priv;
	struct uniq_rt *rt = st->rt;
	char eol = o->zero ? '\0' : '\n';

	if (x_lines_end(&rt->lines, st, x, uniq_block) == XR_ABORT)
		return XR_ABORT;
	if (rt->unique && rt->first && !o->count) {
		if ((o->group == 'b' || o->group == 'a') && !rt->first_group &&
		    x_emit(x, st, &eol, 1) == XR_ABORT)
			return XR_ABORT;
	} else if (rt->have &&
	    uniq_write(st, x, rt->prev.buf, rt->prev.len, 0, rt->matches) == XR_ABORT) {
		return XR_ABORT;
	}
	return x->abort.code ? XR_ABORT : XR_OK;
}

static void
uniq_release(struct x_stage *st)
{
	struct uniq_rt *rt = st->rt;

	x_lines_release(&rt->lines);
	ai_buf_release(&rt->prev);
	free(rt);
	st->rt = NULL;
}

const struct x_rt x_rt_uniq = {
	.prepare = uniq_prepare,
	.feed = uniq_feed,
	.finish = uniq_finish,
	.release = uniq_release,
};
