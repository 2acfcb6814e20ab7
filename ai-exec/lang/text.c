/*
 * text.c: the text built-ins: cat, nl, head, tail, wc, sort, uniq, cut.
 *
 * Each behaves as its GNU coreutils namesake does with LC_ALL=C, for the
 * options it has: bytes compared as bytes, lines ended by LF, a last line
 * without LF still a line.  Each reads its FILEs or the previous stage's
 * output (x_input) and writes through x_emit, which enforces --max-output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang.h"
#include "util.h"
#include "banned.h"

/* "%6llu\t" without printf, for line numbers on every line of 10 MB. */
static int
emit_number(struct x_run *x, const struct x_stage *st, uint64_t v, int width, char sep)
{
	char buf[32];
	int i = (int)sizeof(buf);

	buf[--i] = sep;
	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0);
	while ((int)sizeof(buf) - 1 - i < width)
		buf[--i] = ' ';
	return x_emit(x, st, buf + i, sizeof(buf) - (size_t)i);
}

/* cat [-n] [FILE]...: -n numbers every line as GNU cat does ("%6d\t"). */
int
x_run_cat(struct x_stage *st, struct x_run *x)
{
	const struct x_opts_cat *o = st->priv;
	const char *p, *line;
	size_t n, off = 0, len, i;
	uint64_t no = 0;

	if (!o->number) {
		if (st->nfiles == 0)
			return x_emit(x, st, x->in.p, x->in.n) < 0 ? XR_ABORT : XR_OK;
		for (i = 0; i < st->nfiles; i++)
			if (x_read_file(x, st, st->files[i], &x->out) < 0)
				return XR_ABORT;
		return XR_OK;
	}
	if (x_input(x, st, &p, &n) < 0)
		return XR_ABORT;
	while (x_next_line(p, n, &off, &line, &len)) {
		int lf = line + len < p + n;

		if (emit_number(x, st, ++no, 6, '\t') < 0 || x_emit(x, st, line, len + (size_t)lf) < 0)
			return XR_ABORT;
	}
	return XR_OK;
}

/* nl [-b a|t|n]: numbered lines "%6d\t", unnumbered ones indented by 7 spaces. */
int
x_run_nl(struct x_stage *st, struct x_run *x)
{
	const struct x_opts_nl *o = st->priv;
	const char *p, *line;
	size_t n, off = 0, len;
	uint64_t no = 0;

	if (x_input(x, st, &p, &n) < 0)
		return XR_ABORT;
	while (x_next_line(p, n, &off, &line, &len)) {
		int number = o->style == 'a' || (o->style == 't' && len > 0);

		if (number ? emit_number(x, st, ++no, 6, '\t') < 0 : x_emit(x, st, "       ", 7) < 0)
			return XR_ABORT;
		if (x_emit(x, st, line, len) < 0 || x_emit(x, st, "\n", 1) < 0)
			return XR_ABORT;
	}
	return XR_OK;
}

/* Offset just past the first count lines of p. */
static size_t
skip_lines(const char *p, size_t n, uint64_t count)
{
	size_t off = 0;

	while (count > 0 && off < n) {
		const char *lf = memchr(p + off, '\n', n - off);

		off = lf ? (size_t)(lf - p) + 1 : n;
		count--;
	}
	return off;
}

int
x_run_head(struct x_stage *st, struct x_run *x)
{
	const struct x_opts_ht *o = st->priv;
	const char *p;
	size_t n, end;

	if (x_input(x, st, &p, &n) < 0)
		return XR_ABORT;
	if (o->bytes)
		end = o->count < n ? (size_t)o->count : n;
	else
		end = skip_lines(p, n, o->count);
	return x_emit(x, st, p, end) < 0 ? XR_ABORT : XR_OK;
}

int
x_run_tail(struct x_stage *st, struct x_run *x)
{
	const struct x_opts_ht *o = st->priv;
	const char *p;
	size_t n, from;

	if (x_input(x, st, &p, &n) < 0)
		return XR_ABORT;
	if (o->from_start) {
		uint64_t k = o->count > 0 ? o->count - 1 : 0;

		if (o->bytes)
			from = k < n ? (size_t)k : n;
		else
			from = skip_lines(p, n, k);
	} else if (o->bytes) {
		from = o->count < n ? n - (size_t)o->count : 0;
	} else {
		uint64_t k = o->count;
		size_t end = n;

		from = n;
		if (end > 0 && p[end - 1] == '\n')
			end--; /* the last line's own LF */
		while (k > 0) {
			const char *lf = end > 0 ? memrchr(p, '\n', end) : NULL;

			if (lf == NULL) {
				from = 0;
				break;
			}
			from = (size_t)(lf - p) + 1;
			end = (size_t)(lf - p);
			k--;
		}
		if (o->count == 0)
			from = n;
	}
	return x_emit(x, st, p + from, n - from) < 0 ? XR_ABORT : XR_OK;
}

/* ---- wc ---- */

struct counts {
	uint64_t lines, words, bytes;
};

static void
count(const char *p, size_t n, struct counts *c)
{
	size_t i;
	int inword = 0;

	c->bytes += n;
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)p[i];
		int space = ch == ' ' || (ch >= '\t' && ch <= '\r');

		if (ch == '\n')
			c->lines++;
		if (space)
			inword = 0;
		else if (!inword) {
			inword = 1;
			c->words++;
		}
	}
}

static int
wc_line(struct x_run *x, const struct x_stage *st, const struct x_opts_wc *o,
    const struct counts *c, int width, const char *name)
{
	const char *sep = "";

	if (o->lines) {
		if (x_emitf(x, st, "%*llu", width, (unsigned long long)c->lines) < 0)
			return -1;
		sep = " ";
	}
	if (o->words) {
		if (x_emitf(x, st, "%s%*llu", sep, width, (unsigned long long)c->words) < 0)
			return -1;
		sep = " ";
	}
	if (o->bytes && x_emitf(x, st, "%s%*llu", sep, width, (unsigned long long)c->bytes) < 0)
		return -1;
	if (name != NULL && x_emitf(x, st, " %s", name) < 0)
		return -1;
	return x_emit(x, st, "\n", 1);
}

/*
 * wc [-lwc] [FILE]...: GNU's layout: one count of one input is printed bare;
 * otherwise the columns are as wide as the total size of the files needs,
 * at least 7 when reading a pipe.
 */
int
x_run_wc(struct x_stage *st, struct x_run *x)
{
	const struct x_opts_wc *o = st->priv;
	struct counts *c, total;
	int width = 1, ncounts = o->lines + o->words + o->bytes;
	size_t i, k = st->nfiles ? st->nfiles : 1;
	uint64_t size = 0;

	c = ai_xcalloc(k, sizeof(*c));
	memset(&total, 0, sizeof(total));
	if (st->nfiles == 0) {
		count(x->in.p, x->in.n, &c[0]);
	} else {
		for (i = 0; i < st->nfiles; i++) {
			ai_buf_reset(&x->files_in);
			if (x_read_file(x, st, st->files[i], &x->files_in) < 0) {
				free(c);
				return XR_ABORT;
			}
			count(x->files_in.buf, x->files_in.len, &c[i]);
			size += x->files_in.len;
		}
	}
	for (i = 0; i < k; i++) {
		total.lines += c[i].lines;
		total.words += c[i].words;
		total.bytes += c[i].bytes;
	}
	if (!(ncounts == 1 && k == 1)) {
		for (; size >= 10; size /= 10)
			width++;
		if (st->nfiles == 0 && width < 7)
			width = 7;
	}
	for (i = 0; i < k; i++)
		if (wc_line(x, st, o, &c[i], width,
		    st->nfiles ? x->pol->files[st->files[i]].name : NULL) < 0) {
			free(c);
			return XR_ABORT;
		}
	free(c);
	if (k > 1 && wc_line(x, st, o, &total, width, "total") < 0)
		return XR_ABORT;
	return XR_OK;
}

/* ---- sort ---- */

struct line {
	const char *p;
	size_t n;
};

struct sorter {
	const struct x_opts_sort *o;
	struct x_sortkey whole; /* the line as the key, with the global flags */
};

static int
blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The bytes of field f (from 1) starting position: with -t after f-1 separators. */
static size_t
field_start(const struct line *l, int sep, size_t f)
{
	size_t i = 0;

	while (--f > 0 && i < l->n) {
		if (sep >= 0) {
			const char *s = memchr(l->p + i, sep, l->n - i);

			i = s ? (size_t)(s - l->p) + 1 : l->n;
		} else {
			while (i < l->n && blank(l->p[i]))
				i++;
			while (i < l->n && !blank(l->p[i]))
				i++;
		}
	}
	return i;
}

/* The end of field f (from 1). */
static size_t
field_end(const struct line *l, int sep, size_t f)
{
	size_t i = field_start(l, sep, f);

	if (sep >= 0) {
		const char *s = i < l->n ? memchr(l->p + i, sep, l->n - i) : NULL;

		return s ? (size_t)(s - l->p) : l->n;
	}
	while (i < l->n && blank(l->p[i]))
		i++;
	while (i < l->n && !blank(l->p[i]))
		i++;
	return i;
}

/*
 * Compare two numbers as GNU sort -n does in the C locale: leading blanks,
 * an optional '-', digits, an optional fraction; anything else counts as 0.
 */
static int
numcmp(const char *a, size_t na, const char *b, size_t nb)
{
	size_t i = 0, j = 0, ia, ja, la, lb, k;
	int neg_a = 0, neg_b = 0, sign, c = 0;

	while (i < na && blank(a[i]))
		i++;
	while (j < nb && blank(b[j]))
		j++;
	if (i < na && a[i] == '-') {
		neg_a = 1;
		i++;
	}
	if (j < nb && b[j] == '-') {
		neg_b = 1;
		j++;
	}
	while (i < na && a[i] == '0')
		i++;
	while (j < nb && b[j] == '0')
		j++;
	for (ia = i; ia < na && a[ia] >= '0' && a[ia] <= '9'; ia++)
		;
	for (ja = j; ja < nb && b[ja] >= '0' && b[ja] <= '9'; ja++)
		;
	la = ia - i;
	lb = ja - j;
	/* is either value zero? (digits all zero, fraction all zero) */
	{
		size_t fa = ia, fb = ja;
		int za = la == 0, zb = lb == 0;

		if (za && fa < na && a[fa] == '.')
			for (fa++; fa < na && a[fa] >= '0' && a[fa] <= '9'; fa++)
				if (a[fa] != '0')
					za = 0;
		if (zb && fb < nb && b[fb] == '.')
			for (fb++; fb < nb && b[fb] >= '0' && b[fb] <= '9'; fb++)
				if (b[fb] != '0')
					zb = 0;
		if (za)
			neg_a = 0;
		if (zb)
			neg_b = 0;
		if (neg_a != neg_b)
			return neg_a ? -1 : 1;
		if (za && zb)
			return 0;
	}
	sign = neg_a ? -1 : 1;
	if (la != lb)
		return la < lb ? -sign : sign;
	for (k = 0; k < la; k++)
		if (a[i + k] != b[j + k])
			return a[i + k] < b[j + k] ? -sign : sign;
	/* fractions */
	i = ia;
	j = ja;
	if (i < na && a[i] == '.')
		i++;
	else
		i = na + 1;
	if (j < nb && b[j] == '.')
		j++;
	else
		j = nb + 1;
	for (;;) {
		int da = i < na && a[i] >= '0' && a[i] <= '9' ? a[i] : '0';
		int db = j < nb && b[j] >= '0' && b[j] <= '9' ? b[j] : '0';
		int more_a = i < na && a[i] >= '0' && a[i] <= '9';
		int more_b = j < nb && b[j] >= '0' && b[j] <= '9';

		if (!more_a && !more_b)
			break;
		if (da != db) {
			c = da < db ? -1 : 1;
			break;
		}
		i++;
		j++;
	}
	return c * sign;
}

static int
bytecmp(const char *a, size_t na, const char *b, size_t nb, int fold)
{
	size_t i, n = na < nb ? na : nb;
	int c;

	if (!fold) {
		c = memcmp(a, b, n);
		if (c != 0)
			return c < 0 ? -1 : 1;
	} else {
		for (i = 0; i < n; i++) {
			unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];

			if (x >= 'a' && x <= 'z')
				x = (unsigned char)(x - 32);
			if (y >= 'a' && y <= 'z')
				y = (unsigned char)(y - 32);
			if (x != y)
				return x < y ? -1 : 1;
		}
	}
	return na < nb ? -1 : na > nb;
}

static int
keycmp(const struct sorter *s, const struct x_sortkey *k, const struct line *a,
    const struct line *b)
{
	const struct x_opts_sort *o = s->o;
	int numeric = k->own ? k->numeric : o->numeric, fold = k->own ? k->fold : o->fold;
	int reverse = k->own ? k->reverse : o->reverse, c;
	size_t as = 0, ae = a->n, bs = 0, be = b->n;

	if (k != &s->whole) {
		as = field_start(a, o->sep, k->sf);
		bs = field_start(b, o->sep, k->sf);
		if (k->ef) {
			ae = field_end(a, o->sep, k->ef);
			be = field_end(b, o->sep, k->ef);
		}
		if (ae < as)
			ae = as;
		if (be < bs)
			be = bs;
	}
	if (numeric)
		c = numcmp(a->p + as, ae - as, b->p + bs, be - bs);
	else
		c = bytecmp(a->p + as, ae - as, b->p + bs, be - bs, fold);
	return reverse ? -c : c;
}

/* GNU's order: the keys in turn; when they tie, the whole lines as bytes (not with -u). */
static int
linecmp(const struct sorter *s, const struct line *a, const struct line *b)
{
	const struct x_opts_sort *o = s->o;
	int c = 0;
	size_t i;

	if (o->nkeys > 0) {
		for (i = 0; i < o->nkeys && c == 0; i++)
			c = keycmp(s, &o->keys[i], a, b);
	} else if (o->numeric || o->fold) {
		c = keycmp(s, &s->whole, a, b);
	} else {
		c = bytecmp(a->p, a->n, b->p, b->n, 0);
		return o->reverse ? -c : c;
	}
	if (c != 0 || o->unique)
		return c;
	c = bytecmp(a->p, a->n, b->p, b->n, 0);
	return o->reverse ? -c : c;
}

/* A stable merge sort (GNU sort -u keeps the first of equal lines). */
static void
merge_sort(const struct sorter *s, struct line *v, struct line *tmp, size_t n)
{
	size_t width, i;

	/* insertion sort of runs of 8, then merges */
	for (i = 0; i < n; i += 8) {
		size_t end = i + 8 < n ? i + 8 : n, j;

		for (j = i + 1; j < end; j++) {
			struct line t = v[j];
			size_t k = j;

			while (k > i && linecmp(s, &v[k - 1], &t) > 0) {
				v[k] = v[k - 1];
				k--;
			}
			v[k] = t;
		}
	}
	for (width = 8; width < n; width *= 2) {
		for (i = 0; i < n; i += 2 * width) {
			size_t mid = i + width < n ? i + width : n;
			size_t end = i + 2 * width < n ? i + 2 * width : n, a = i, b = mid, k = i;

			if (mid >= end || linecmp(s, &v[mid - 1], &v[mid]) <= 0) {
				memcpy(tmp + i, v + i, (end - i) * sizeof(*v));
				continue;
			}
			while (a < mid && b < end)
				tmp[k++] = linecmp(s, &v[b], &v[a]) < 0 ? v[b++] : v[a++];
			while (a < mid)
				tmp[k++] = v[a++];
			while (b < end)
				tmp[k++] = v[b++];
		}
		memcpy(v, tmp, n * sizeof(*v));
	}
}

int
x_run_sort(struct x_stage *st, struct x_run *x)
{
	struct sorter s;
	struct line *v, *tmp;
	const char *p, *line;
	size_t n, off = 0, len, nl = 0, cap = 1024, i;
	int rc = XR_OK;

	if (x_input(x, st, &p, &n) < 0)
		return XR_ABORT;
	memset(&s, 0, sizeof(s));
	s.o = st->priv;
	v = ai_xmalloc(cap * sizeof(*v));
	while (x_next_line(p, n, &off, &line, &len)) {
		if (nl == cap) {
			cap *= 2;
			v = ai_xrealloc(v, cap * sizeof(*v));
		}
		v[nl].p = line;
		v[nl].n = len;
		nl++;
	}
	tmp = ai_xmalloc((nl ? nl : 1) * sizeof(*tmp));
	merge_sort(&s, v, tmp, nl);
	for (i = 0; i < nl; i++) {
		if (s.o->unique && i > 0 && linecmp(&s, &v[i - 1], &v[i]) == 0)
			continue;
		if (x_emit(x, st, v[i].p, v[i].n) < 0 || x_emit(x, st, "\n", 1) < 0) {
			rc = XR_ABORT;
			break;
		}
	}
	free(v);
	free(tmp);
	return rc;
}

/* ---- uniq ---- */

static int
same(const char *a, size_t na, const char *b, size_t nb, int icase)
{
	return na == nb && bytecmp(a, na, b, nb, icase) == 0;
}

int
x_run_uniq(struct x_stage *st, struct x_run *x)
{
	const struct x_opts_uniq *o = st->priv;
	const char *p, *line, *prev = NULL;
	size_t n, off = 0, len, plen = 0;
	uint64_t run = 0;

	if (x_input(x, st, &p, &n) < 0)
		return XR_ABORT;
	for (;;) {
		int more = x_next_line(p, n, &off, &line, &len);

		if (more && prev != NULL && same(prev, plen, line, len, o->icase)) {
			run++;
			continue;
		}
		if (prev != NULL && (!o->repeated || run > 1) && (!o->unique || run == 1)) {
			if ((o->count && x_emitf(x, st, "%7llu ", (unsigned long long)run) < 0) ||
			    x_emit(x, st, prev, plen) < 0 || x_emit(x, st, "\n", 1) < 0)
				return XR_ABORT;
		}
		if (!more)
			break;
		prev = line;
		plen = len;
		run = 1;
	}
	return XR_OK;
}

/* ---- cut ---- */

static int
selected(const struct x_opts_cut *o, uint64_t k)
{
	size_t i;

	for (i = 0; i < o->nr; i++)
		if (k >= o->r[i].lo && k <= o->r[i].hi)
			return 1;
	return 0;
}

int
x_run_cut(struct x_stage *st, struct x_run *x)
{
	const struct x_opts_cut *o = st->priv;
	const char *p, *line;
	size_t n, off = 0, len;

	if (x_input(x, st, &p, &n) < 0)
		return XR_ABORT;
	while (x_next_line(p, n, &off, &line, &len)) {
		size_t i;

		if (!o->fields) {
			for (i = 0; i < len; i++)
				if (selected(o, (uint64_t)i + 1) && x_emit(x, st, line + i, 1) < 0)
					return XR_ABORT;
		} else if (memchr(line, o->delim, len) == NULL) {
			if (!o->only_delimited && x_emit(x, st, line, len) < 0)
				return XR_ABORT;
			if (o->only_delimited)
				continue;
		} else {
			size_t start = 0;
			uint64_t field = 1;
			int first = 1;

			while (start <= len) {
				const char *d = start < len ? memchr(line + start, o->delim, len - start) : NULL;
				size_t end = d ? (size_t)(d - line) : len;

				if (selected(o, field)) {
					if ((!first && x_emit(x, st, &o->delim, 1) < 0) ||
					    x_emit(x, st, line + start, end - start) < 0)
						return XR_ABORT;
					first = 0;
				}
				if (d == NULL)
					break;
				start = end + 1;
				field++;
			}
		}
		if (x_emit(x, st, "\n", 1) < 0)
			return XR_ABORT;
	}
	return XR_OK;
}
