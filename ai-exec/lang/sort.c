/*
 * sort.c: sort, as GNU sort compares lines in the C locale.
 *
 * Keys (-k POS1[,POS2]) are found as GNU finds them (fields after -t SEP,
 * or runs of blanks with the blanks before them; characters counted from
 * the field's start); each key compares as text (bytes, with -f, -d, -i),
 * as a number (-n: GNU's digit-by-digit comparison, never through a
 * floating-point value; -g: as strtold reads it; -h: with an SI suffix),
 * as a month name (-M) or a version (-V, GNU's filevercmp); lines whose
 * keys tie are compared as whole lines, unless -s or -u.  Every input's
 * last line ends with a line end, as GNU's inputs are read.  The sort is a
 * stable merge sort over the lines of the whole input, each carrying its
 * first eight bytes as a number, so that most comparisons of plain lines
 * are one integer comparison.  -m merges the inputs as they are; -c and -C
 * check the order.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang.h"
#include "util.h"
#include "banned.h"

struct line {
	const char *p;
	size_t n;           /* without the line end */
	uint64_t key;       /* the first 8 bytes, big-endian, zero-padded; or the first key's */
	uint32_t ks, ke;    /* where the first key starts and ends (with cmp.first) */
};

struct sort_rt {
	struct ai_buf data;      /* all input; every line ends with the line end */
	size_t *runs;            /* -m: where each input starts in data */
	size_t nruns;
	const char *name;        /* -c: the input's name */
	unsigned char eol;
};

static int
sort_prepare(struct x_stage *st, struct x_run *x, struct ai_err *e)
{
	const struct x_opts_sort *o = st->priv;
	struct sort_rt *rt = ai_xcalloc(1, sizeof(*rt));

	(void)x;
	(void)e;
	ai_buf_init(&rt->data, AI_BUF_NOLIMIT);
	rt->eol = o->zero ? '\0' : '\n';
	st->rt = rt;
	return 0;
}

static void
sort_release(struct x_stage *st)
{
	struct sort_rt *rt = st->rt;

	ai_buf_release(&rt->data);
	free(rt->runs);
	free(rt);
	st->rt = NULL;
}

static int
sort_begin(struct x_stage *st, struct x_run *x, const char *name)
{
	struct sort_rt *rt = st->rt;

	(void)x;
	rt->name = name ? name : "-";
	rt->runs = ai_xrealloc(rt->runs, (rt->nruns + 1) * sizeof(*rt->runs));
	rt->runs[rt->nruns++] = rt->data.len;
	return XR_OK;
}

static int
sort_feed(struct x_stage *st, struct x_run *x, const char *p, size_t n)
{
	struct sort_rt *rt = st->rt;

	(void)x;
	ai_buf_add(&rt->data, p, n);
	return XR_OK;
}

static int
sort_finish(struct x_stage *st, struct x_run *x)
{
	struct sort_rt *rt = st->rt;

	(void)x;
	if (rt->data.len > rt->runs[rt->nruns - 1] &&
	    (unsigned char)rt->data.buf[rt->data.len - 1] != rt->eol)
		ai_buf_addc(&rt->data, rt->eol);
	return XR_OK;
}

/* ---- comparing ---- */

static int
blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

static int
digit(int c)
{
	return c >= '0' && c <= '9';
}

/* The byte at i of a key of n bytes, 0 past its end (GNU compares NUL-terminated keys). */
static int
at(const char *p, size_t i, size_t n)
{
	return i < n ? (unsigned char)p[i] : 0;
}

#define AT(p, i, n) at((p), (i), (n))

/* GNU's fraccompare: a and b at their decimal points (or ends). */
static int
fraccompare(const char *a, size_t i, size_t na, const char *b, size_t j, size_t nb)
{
	if (AT(a, i, na) == '.' && AT(b, j, nb) == '.') {
		for (;;) {
			int x = AT(a, ++i, na), y = AT(b, ++j, nb);

			if (x != y) {
				if (digit(x) && digit(y))
					return x - y;
				if (digit(x)) {
					while (AT(a, i, na) == '0')
						i++;
					return digit(AT(a, i, na));
				}
				if (digit(y)) {
					while (AT(b, j, nb) == '0')
						j++;
					return -digit(AT(b, j, nb));
				}
				return 0;
			}
			if (!digit(x))
				return 0;
		}
	}
	if (AT(a, i, na) == '.') {
		i++;
		while (AT(a, i, na) == '0')
			i++;
		return digit(AT(a, i, na));
	}
	if (AT(b, j, nb) == '.') {
		j++;
		while (AT(b, j, nb) == '0')
			j++;
		return -digit(AT(b, j, nb));
	}
	return 0;
}

/* GNU's numcompare (strnumcmp) in the C locale: no thousands separator. */
static int
numcompare(const char *a, size_t na, const char *b, size_t nb)
{
	size_t i = 0, j = 0, la, lb;
	int ta, tb, tmp;

	while (i < na && blank((unsigned char)a[i]))
		i++;
	while (j < nb && blank((unsigned char)b[j]))
		j++;
	ta = AT(a, i, na);
	tb = AT(b, j, nb);
	if (ta == '-') {
		do
			ta = AT(a, ++i, na);
		while (ta == '0');
		if (tb != '-') {
			if (ta == '.')
				do
					ta = AT(a, ++i, na);
				while (ta == '0');
			if (digit(ta))
				return -1;
			while (tb == '0')
				tb = AT(b, ++j, nb);
			if (tb == '.')
				do
					tb = AT(b, ++j, nb);
				while (tb == '0');
			return -digit(tb);
		}
		do
			tb = AT(b, ++j, nb);
		while (tb == '0');
		while (ta == tb && digit(ta)) {
			ta = AT(a, ++i, na);
			tb = AT(b, ++j, nb);
		}
		if ((ta == '.' && !digit(tb)) || (tb == '.' && !digit(ta)))
			return fraccompare(b, j, nb, a, i, na);
		tmp = tb - ta;
		for (la = 0; digit(ta); la++)
			ta = AT(a, ++i, na);
		for (lb = 0; digit(tb); lb++)
			tb = AT(b, ++j, nb);
		if (la != lb)
			return la < lb ? 1 : -1;
		return la ? tmp : 0;
	}
	if (tb == '-') {
		do
			tb = AT(b, ++j, nb);
		while (tb == '0');
		if (tb == '.')
			do
				tb = AT(b, ++j, nb);
			while (tb == '0');
		if (digit(tb))
			return 1;
		while (ta == '0')
			ta = AT(a, ++i, na);
		if (ta == '.')
			do
				ta = AT(a, ++i, na);
			while (ta == '0');
		return digit(ta);
	}
	while (ta == '0')
		ta = AT(a, ++i, na);
	while (tb == '0')
		tb = AT(b, ++j, nb);
	while (ta == tb && digit(ta)) {
		ta = AT(a, ++i, na);
		tb = AT(b, ++j, nb);
	}
	if ((ta == '.' && !digit(tb)) || (tb == '.' && !digit(ta)))
		return fraccompare(a, i, na, b, j, nb);
	tmp = ta - tb;
	for (la = 0; digit(ta); la++)
		ta = AT(a, ++i, na);
	for (lb = 0; digit(tb); lb++)
		tb = AT(b, ++j, nb);
	if (la != lb)
		return la < lb ? -1 : 1;
	return la ? tmp : 0;
}

/* A key as a C string (GNU compares numbers, months and versions that way). */
static char *
cstr(const char *p, size_t n, char *stack, size_t stacksz)
{
	char *s = n < stacksz ? stack : ai_xmalloc(n + 1);

	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

static int
general_numcompare(const char *a, size_t na, const char *b, size_t nb)
{
	char sa[64], sb[64], *ca = cstr(a, na, sa, sizeof(sa)), *cb = cstr(b, nb, sb, sizeof(sb));
	char *ea, *eb;
	long double x = strtold(ca, &ea), y = strtold(cb, &eb);
	int r;

	if (ca == ea)
		r = cb == eb ? 0 : -1;
	else if (cb == eb)
		r = 1;
	else if (x < y)
		r = -1;
	else if (x > y)
		r = 1;
	else if (x == y)
		r = 0;
	else if (y == y)
		r = -1;
	else if (x == x)
		r = 1;
	else
		r = memcmp(&x, &y, sizeof(x)) < 0 ? -1 : memcmp(&x, &y, sizeof(x)) > 0;
	if (ca != sa)
		free(ca);
	if (cb != sb)
		free(cb);
	return r;
}

/* -h: the SI suffix's order (K 1 ... Y 8), 0 for none or a zero number. */
static int
unit_order(const char *p, size_t n)
{
	static const char units[] = "KMGTPEZY";
	size_t i = 0;
	int minus = AT(p, 0, n) == '-', nonzero = 0, c;
	const char *u;

	i = (size_t)minus;
	while (digit(c = AT(p, i, n))) {
		nonzero |= c - '0';
		i++;
	}
	if (c == '.')
		while (digit(c = AT(p, ++i, n)))
			nonzero |= c - '0';
	if (!nonzero || c == 0)
		return 0;
	u = c == 'k' ? units : strchr(units, c);
	if (u == NULL)
		return 0;
	return (minus ? -1 : 1) * (int)(u - units + 1);
}

static int
human_numcompare(const char *a, size_t na, const char *b, size_t nb)
{
	size_t i = 0, j = 0;
	int diff;

	while (i < na && blank((unsigned char)a[i]))
		i++;
	while (j < nb && blank((unsigned char)b[j]))
		j++;
	diff = unit_order(a + i, na - i) - unit_order(b + j, nb - j);
	return diff ? diff : numcompare(a + i, na - i, b + j, nb - j);
}

static int
month(const char *p, size_t n)
{
	static const char *const names[] = {
		"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"
	};
	size_t i = 0, k;

	while (i < n && blank((unsigned char)p[i]))
		i++;
	if (n - i < 3)
		return 0;
	for (k = 0; k < 12; k++)
		if (toupper((unsigned char)p[i]) == names[k][0] &&
		    toupper((unsigned char)p[i + 1]) == names[k][1] &&
		    toupper((unsigned char)p[i + 2]) == names[k][2])
			return (int)k + 1;
	return 0;
}

/* ---- version order: gnulib's filevercmp ---- */

static int
c_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/*
 * The length of s without its file suffix, the longest match of
 * (\.[A-Za-z~][A-Za-z0-9~]*)*$ (which may be all of s, as in the
 * filevercmp of GNU sort 9.1: ".b" sorts before ".5").
 */
static size_t
file_prefixlen(const char *s, size_t n)
{
	size_t prefixlen = 0, i = 0;

	for (;;) {
		while (i + 1 < n && s[i] == '.' && (c_alpha((unsigned char)s[i + 1]) ||
		    s[i + 1] == '~'))
			for (i += 2; i < n && (c_alpha((unsigned char)s[i]) || digit(s[i]) ||
			    s[i] == '~'); i++)
				;
		if (i == n)
			return prefixlen;
		prefixlen = ++i;
	}
}

static int
order(const char *s, size_t pos, size_t len)
{
	unsigned char c;

	if (pos == len)
		return -1;
	c = (unsigned char)s[pos];
	if (digit(c))
		return 0;
	if (c_alpha(c))
		return c;
	if (c == '~')
		return -2;
	return c + 256;
}

static int
verrevcmp(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t i = 0, j = 0;

	while (i < alen || j < blen) {
		int first_diff = 0;

		while ((i < alen && !digit(a[i])) || (j < blen && !digit(b[j]))) {
			int ac = order(a, i, alen), bc = order(b, j, blen);

			if (ac != bc)
				return ac - bc;
			i++;
			j++;
		}
		while (i < alen && a[i] == '0')
			i++;
		while (j < blen && b[j] == '0')
			j++;
		while (i < alen && j < blen && digit(a[i]) && digit(b[j])) {
			if (!first_diff)
				first_diff = a[i] - b[j];
			i++;
			j++;
		}
		if (i < alen && digit(a[i]))
			return 1;
		if (j < blen && digit(b[j]))
			return -1;
		if (first_diff)
			return first_diff;
	}
	return 0;
}

static int
filevercmp(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t ap, bp;
	int r;

	if (alen == 0)
		return -(blen != 0);
	if (blen == 0)
		return 1;
	if (a[0] == '.') {
		if (b[0] != '.')
			return -1;
		if (alen == 1)
			return -(blen != 1);
		if (blen == 1)
			return 1;
		if (a[1] == '.' && alen == 2)
			return -!(b[1] == '.' && blen == 2);
		if (b[1] == '.' && blen == 2)
			return 1;
	} else if (b[0] == '.') {
		return 1;
	}
	ap = file_prefixlen(a, alen);
	bp = file_prefixlen(b, blen);
	r = verrevcmp(a, ap, b, bp);
	return r || (ap == alen && bp == blen) ? r : verrevcmp(a, alen, b, blen);
}

/* ---- keys ---- */

/* GNU's begfield: where key k starts in line l. */
static size_t
begfield(const struct line *l, const struct x_sortkey *k, int tab)
{
	size_t p = 0, lim = l->n, sword = k->sword;

	if (tab >= 0) {
		while (p < lim && sword--) {
			while (p < lim && (unsigned char)l->p[p] != tab)
				p++;
			if (p < lim)
				p++;
		}
	} else {
		while (p < lim && sword--) {
			while (p < lim && blank((unsigned char)l->p[p]))
				p++;
			while (p < lim && !blank((unsigned char)l->p[p]))
				p++;
		}
	}
	if (k->skipsblanks)
		while (p < lim && blank((unsigned char)l->p[p]))
			p++;
	return lim - p < k->schar ? lim : p + k->schar;
}

/* GNU's limfield: where key k ends in line l. */
static size_t
limfield(const struct line *l, const struct x_sortkey *k, int tab)
{
	size_t p = 0, lim = l->n, eword = k->eword, echar = k->echar;

	if (echar == 0)
		eword++;
	if (tab >= 0) {
		while (p < lim && eword--) {
			while (p < lim && (unsigned char)l->p[p] != tab)
				p++;
			if (p < lim && (eword || echar))
				p++;
		}
	} else {
		while (p < lim && eword--) {
			while (p < lim && blank((unsigned char)l->p[p]))
				p++;
			while (p < lim && !blank((unsigned char)l->p[p]))
				p++;
		}
	}
	if (echar != 0) {
		if (k->skipeblanks)
			while (p < lim && blank((unsigned char)l->p[p]))
				p++;
		p = lim - p < echar ? lim : p + echar;
	}
	return p;
}

/* Bytes a key ignores (-d, -i). */
static int
ignored(const struct x_sortkey *k, unsigned char c)
{
	/* -d wins over -i (GNU: -d implies -i's effect, and order does not matter) */
	if (k->dict)
		return !(isalnum(c) || blank(c));
	return k->nonprint && !(c >= 32 && c < 127);
}

static unsigned char
translate(const struct x_sortkey *k, unsigned char c)
{
	return k->fold && c >= 'a' && c <= 'z' ? (unsigned char)(c - 32) : c;
}

/* Compare the texts of one key, with -f, -d, -i. */
static int
textcompare(const struct x_sortkey *k, const char *a, size_t na, const char *b, size_t nb)
{
	size_t i = 0, j = 0;

	if (k->dict || k->nonprint) {
		for (;;) {
			while (i < na && ignored(k, (unsigned char)a[i]))
				i++;
			while (j < nb && ignored(k, (unsigned char)b[j]))
				j++;
			if (!(i < na && j < nb))
				return (i < na) - (j < nb);
			if (translate(k, (unsigned char)a[i]) != translate(k, (unsigned char)b[j]))
				return translate(k, (unsigned char)a[i]) -
				    translate(k, (unsigned char)b[j]);
			i++;
			j++;
		}
	}
	if (k->fold) {
		for (; i < na && j < nb; i++, j++)
			if (translate(k, (unsigned char)a[i]) != translate(k, (unsigned char)b[j]))
				return translate(k, (unsigned char)a[i]) -
				    translate(k, (unsigned char)b[j]);
		return (i < na) - (j < nb);
	}
	{
		size_t n = na < nb ? na : nb;
		int d = memcmp(a, b, n);

		if (d)
			return d;
		return na < nb ? -1 : na != nb;
	}
}

/* A key with -d, -i or -f, as the copy GNU makes before comparing a number with it. */
static char *
filtered(const struct x_sortkey *k, const char *p, size_t n, size_t *len)
{
	char *s = ai_xmalloc(n + 1);
	size_t i, m = 0;

	for (i = 0; i < n; i++)
		if (!ignored(k, (unsigned char)p[i]))
			s[m++] = (char)translate(k, (unsigned char)p[i]);
	*len = m;
	return s;
}

/* Compare keys a and b by k; nul: the input holds a NUL somewhere. */
static int
keycompare1(const struct x_sortkey *k, const char *a, size_t na, const char *b, size_t nb,
    int nul)
{
	int numeric = k->numeric || k->general || k->human || k->month || k->version, d;
	char *fa = NULL, *fb = NULL;

	if (!numeric)
		return textcompare(k, a, na, b, nb);
	if (k->dict || k->nonprint || k->fold) {
		fa = filtered(k, a, na, &na);
		fb = filtered(k, b, nb, &nb);
		a = fa;
		b = fb;
	}
	/* a NUL ends the key, as in GNU's C strings */
	if (nul) {
		const char *z = memchr(a, '\0', na);

		if (z != NULL)
			na = (size_t)(z - a);
		z = memchr(b, '\0', nb);
		if (z != NULL)
			nb = (size_t)(z - b);
	}
	if (k->numeric)
		d = numcompare(a, na, b, nb);
	else if (k->general)
		d = general_numcompare(a, na, b, nb);
	else if (k->human)
		d = human_numcompare(a, na, b, nb);
	else if (k->month)
		d = month(a, na) - month(b, nb);
	else
		d = filevercmp(a, na, b, nb);
	free(fa);
	free(fb);
	return d;
}

static uint64_t
prefix_key(const char *p, size_t n)
{
	uint64_t k = 0;
	size_t i;

	for (i = 0; i < 8; i++)
		k = k << 8 | (i < n ? (unsigned char)p[i] : 0);
	return k;
}

struct cmp {
	const struct x_opts_sort *o;
	int plain;               /* no key: whole lines as bytes */
	int nul;                 /* a NUL is in the input (it ends a numeric key) */
	int first;               /* line.key sums up the first key: FIRST_* */
};

enum { FIRST_NONE, FIRST_TEXT, FIRST_NUMBER };

/* Where key k of line l starts and ends. */
static void
key_bounds(const struct x_opts_sort *o, const struct x_sortkey *k, const struct line *l,
    size_t *s, size_t *e)
{
	size_t as = 0, ae = l->n;

	if (o->nkeys) {
		if (k->eword != SIZE_MAX)
			ae = limfield(l, k, o->sep);
		if (k->sword != SIZE_MAX)
			as = begfield(l, k, o->sep);
	}
	if ((!o->nkeys || k->sword == SIZE_MAX) && k->skipsblanks)
		while (as < ae && blank((unsigned char)l->p[as]))
			as++;
	*s = as;
	*e = ae < as ? as : ae;
}

/*
 * A number as numcompare reads it, summed up in 64 bits that keep its
 * order: numbers whose sums differ compare as their sums do; equal sums
 * need numcompare.  The sum holds the sign, the count of integer digits
 * and the first 15 significant digits.
 */
static uint64_t
numkey(const char *a, size_t n)
{
	const uint64_t half = 1ull << 63;
	size_t i = 0, len = 0, nd = 0;
	uint64_t dig = 0, m;
	int neg = 0, nonzero = 0;

	while (i < n && blank((unsigned char)a[i]))
		i++;
	if (i < n && a[i] == '-') {
		neg = 1;
		i++;
	}
	while (i < n && a[i] == '0')
		i++;
	for (; i < n && digit(a[i]); i++, len++) {
		nonzero = 1;
		if (nd < 15) {
			dig = dig * 10 + (uint64_t)(a[i] - '0');
			nd++;
		}
	}
	if (i < n && a[i] == '.') {
		for (i++; i < n && digit(a[i]); i++) {
			nonzero |= a[i] != '0';
			if (nd < 15) {
				dig = dig * 10 + (uint64_t)(a[i] - '0');
				nd++;
			}
		}
	}
	if (!nonzero)
		return half;
	for (; nd < 15; nd++)
		dig *= 10;
	if (len >= 4095) {
		/* all such numbers sum up alike, above every shorter one */
		len = 4095;
		dig = 999999999999999ull;
	}
	m = (uint64_t)len << 50 | dig;
	return neg ? half - 1 - m : half + 1 + m;
}

/*
 * The first key of l: where it is, and its sum (FIRST_TEXT: its first 8
 * bytes as compared, after -d, -i and -f, zero-padded).
 */
static void
first_key(const struct cmp *c, struct line *l)
{
	const struct x_opts_sort *o = c->o;
	const struct x_sortkey *k = o->nkeys ? &o->keys[0] : &o->global;
	size_t s, e, i, m = 0;

	key_bounds(o, k, l, &s, &e);
	l->ks = (uint32_t)s;
	l->ke = (uint32_t)e;
	if (c->first == FIRST_NUMBER) {
		l->key = numkey(l->p + s, e - s);
		return;
	}
	l->key = 0;
	for (i = s; i < e && m < 8; i++) {
		unsigned char b = (unsigned char)l->p[i];

		if (!ignored(k, b)) {
			l->key = l->key << 8 | translate(k, b);
			m++;
		}
	}
	if (m > 0 && m < 8)
		l->key <<= 8 * (8 - m);
}

static int
keycompare(const struct cmp *c, const struct line *a, const struct line *b)
{
	const struct x_opts_sort *o = c->o;
	size_t i, nk = o->nkeys ? o->nkeys : 1;

	for (i = 0; i < nk; i++) {
		const struct x_sortkey *k = o->nkeys ? &o->keys[i] : &o->global;
		size_t as, ae, bs, be;
		int d;

		if (i == 0 && c->first != FIRST_NONE) {
			d = a->key < b->key ? -1 : a->key != b->key;
			if (!d)
				d = keycompare1(k, a->p + a->ks, a->ke - a->ks, b->p + b->ks,
				    b->ke - b->ks, c->nul);
		} else {
			key_bounds(o, k, a, &as, &ae);
			key_bounds(o, k, b, &bs, &be);
			d = keycompare1(k, a->p + as, ae - as, b->p + bs, be - bs, c->nul);
		}
		if (d)
			return k->reverse ? (d < 0 ? 1 : -1) : d;
	}
	return 0;
}

/* Whole lines as bytes; prefixed: line.key holds their first 8 bytes. */
static int
bytecompare(const struct line *a, const struct line *b, int prefixed)
{
	size_t n, skip = 0;
	int d;

	if (prefixed) {
		if (a->key != b->key)
			return a->key < b->key ? -1 : 1;
		if (a->n <= 8 || b->n <= 8)
			return a->n < b->n ? -1 : a->n != b->n;
		skip = 8;
	}
	n = (a->n < b->n ? a->n : b->n) - skip;
	d = memcmp(a->p + skip, b->p + skip, n);
	if (d)
		return d;
	return a->n < b->n ? -1 : a->n != b->n;
}

/* GNU's compare: the keys, then (unless -s or -u) the whole lines. */
static int
compare(const struct cmp *c, const struct line *a, const struct line *b)
{
	const struct x_opts_sort *o = c->o;
	int d;

	if (!c->plain) {
		d = keycompare(c, a, b);
		if (d || o->unique || o->stable)
			return d;
	}
	d = bytecompare(a, b, c->first == FIRST_NONE);
	return o->global.reverse ? -d : d;
}

/* A stable merge sort: runs of 8 by insertion, then merges. */
static void
merge_sort(const struct cmp *c, struct line *v, struct line *tmp, size_t n)
{
	size_t width, i;

	for (i = 0; i < n; i += 8) {
		size_t end = i + 8 < n ? i + 8 : n, j;

		for (j = i + 1; j < end; j++) {
			struct line t = v[j];
			size_t k = j;

			while (k > i && compare(c, &v[k - 1], &t) > 0) {
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

			if (mid >= end || compare(c, &v[mid - 1], &v[mid]) <= 0) {
				memcpy(tmp + i, v + i, (end - i) * sizeof(*v));
				continue;
			}
			while (a < mid && b < end)
				tmp[k++] = compare(c, &v[b], &v[a]) < 0 ? v[b++] : v[a++];
			while (a < mid)
				tmp[k++] = v[a++];
			while (b < end)
				tmp[k++] = v[b++];
		}
		memcpy(v, tmp, n * sizeof(*v));
	}
}

/* The lines of data[from..to). */
static size_t
split_lines(const struct sort_rt *rt, const struct cmp *c, size_t from, size_t to,
    struct line *v)
{
	const char *p = rt->data.buf;
	size_t n = 0, off = from;

	while (off < to) {
		const char *e = memchr(p + off, rt->eol, to - off);
		size_t len = (size_t)(e - (p + off));

		v[n].p = p + off;
		v[n].n = len;
		if (c->first == FIRST_NONE)
			v[n].key = prefix_key(p + off, len);
		else
			first_key(c, &v[n]);
		n++;
		off += len + 1;
	}
	return n;
}

static int
emit_line(struct x_stage *st, struct x_run *x, const struct sort_rt *rt, const struct line *l)
{
	if (x_emit(x, st, l->p, l->n) != XR_OK || x_emit(x, st, &rt->eol, 1) != XR_OK)
		return XR_STOP;
	return XR_OK;
}

static int
sort_check_order(struct x_stage *st, struct x_run *x, const struct cmp *c, struct line *v,
    size_t n)
{
	const struct x_opts_sort *o = c->o;
	const struct sort_rt *rt = st->rt;
	size_t i;

	for (i = 1; i < n; i++) {
		int d = compare(c, &v[i - 1], &v[i]);

		if (d > 0 || (o->unique && d == 0)) {
			st->status = 1;
			if (o->check == 'c')
				x_warn(x, st, "%s:%zu: disorder: %.*s", rt->name, i + 1,
				    (int)(v[i].n < 400 ? v[i].n : 400), v[i].p);
			return XR_OK;
		}
	}
	return XR_OK;
}

static int
sort_end(struct x_stage *st, struct x_run *x)
{
	const struct x_opts_sort *o = st->priv;
	struct sort_rt *rt = st->rt;
	struct cmp c;
	struct line *v, *tmp, *last = NULL;
	size_t nl = 0, i, cap = 0;
	int rc = XR_OK;

	c.o = o;
	c.plain = o->nkeys == 0 && !o->global.skipsblanks && !o->global.dict &&
	    !o->global.nonprint && !o->global.fold && !o->global.numeric && !o->global.general &&
	    !o->global.human && !o->global.month && !o->global.version;
	c.nul = memchr(rt->data.buf, '\0', rt->data.len) != NULL;
	{
		const struct x_sortkey *k = o->nkeys ? &o->keys[0] : &o->global;
		int filters = k->dict || k->nonprint || k->fold;

		/* (offsets in a line are kept in 32 bits) */
		c.first = FIRST_NONE;
		if (rt->data.len > UINT32_MAX || c.plain)
			;
		else if (k->numeric && !filters && !c.nul)
			c.first = FIRST_NUMBER;
		else if (!k->numeric && !k->general && !k->human && !k->month && !k->version)
			c.first = FIRST_TEXT;
	}
	{
		const char *p = rt->data.buf, *end = p + rt->data.len;

		while ((p = memchr(p, rt->eol, (size_t)(end - p))) != NULL) {
			cap++;
			p++;
		}
	}
	v = ai_xmalloc((cap ? cap : 1) * sizeof(*v));
	if (o->check) {
		nl = split_lines(rt, &c, 0, rt->data.len, v);
		rc = sort_check_order(st, x, &c, v, nl);
		free(v);
		return rc;
	}
	tmp = ai_xmalloc((cap ? cap : 1) * sizeof(*tmp));
	if (o->merge && rt->nruns > 1) {
		/* merge the inputs as they are: each is one sorted run */
		size_t *at = ai_xcalloc(rt->nruns, sizeof(*at)), *end = ai_xcalloc(rt->nruns,
		    sizeof(*end)), r;

		for (r = 0; r < rt->nruns; r++) {
			size_t to = r + 1 < rt->nruns ? rt->runs[r + 1] : rt->data.len;

			at[r] = nl;
			nl += split_lines(rt, &c, rt->runs[r], to, v + nl);
			end[r] = nl;
		}
		for (i = 0; i < nl; i++) {
			size_t best = rt->nruns;

			for (r = 0; r < rt->nruns; r++)
				if (at[r] < end[r] && (best == rt->nruns ||
				    compare(&c, &v[at[r]], &v[at[best]]) < 0))
					best = r;
			tmp[i] = v[at[best]++];
		}
		memcpy(v, tmp, nl * sizeof(*v));
		free(at);
		free(end);
	} else {
		nl = split_lines(rt, &c, 0, rt->data.len, v);
		if (!o->merge)
			merge_sort(&c, v, tmp, nl);
	}
	for (i = 0; i < nl && rc == XR_OK; i++) {
		if (o->unique && last != NULL && compare(&c, last, &v[i]) == 0)
			continue;
		rc = emit_line(st, x, rt, &v[i]);
		last = &v[i];
	}
	free(v);
	free(tmp);
	return x->abort.code ? XR_ABORT : XR_OK;
}

const struct x_rt x_rt_sort = {
	.prepare = sort_prepare,
	.begin = sort_begin,
	.feed = sort_feed,
	.finish = sort_finish,
	.end = sort_end,
	.release = sort_release,
};
