/*
 * spec.c: the built-ins as the parser sees them: each one's options (GNU's
 * names and meanings), the options refused with a reason (so that a model
 * learns why "sort -o" or "tail -f" are not there), its operands, and the
 * check of every option value, with GNU's wording where GNU has one.
 * Nothing here runs anything; the runtime is in text.c, head.c, sort.c,
 * grep.c, jq.c and fetch.c, reached through run.c's table.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang.h"
#include "num.h"
#include "util.h"
#include "banned.h"

#define OPT_END { 0, 0, NULL, 0, NULL }
#define DENY_END { NULL, NULL }

/* Long-only options get ids above the byte range. */
enum {
	O_TAB = 256, O_INDENT, O_ARG, O_ARGJSON, O_ARGS, O_JSONARGS, O_SEQ, O_STREAM, O_UNBUF,
	O_COMPLEMENT, O_OUTDELIM, O_ALLREP, O_GROUP, O_SORTWORD, O_PARALLEL, O_BATCH, O_CHECKW,
	O_NOICASE, O_LABEL, O_BINFILES, O_GROUPSEP, O_NOGROUPSEP, O_COLOR, O_LINEBUF
};

int
x_number(const struct x_stage *st, const char *opt, const char *s, uint64_t *out,
    struct ai_err *e)
{
	const char *why;
	char ex[64];

	if (ai_parse_u64(s, 0, INT64_MAX, out, &why) == 0)
		return 0;
	ai_excerpt(s, strlen(s), ex, sizeof(ex));
	return ai_err_set(e, AI_EXIT_DATAERR, "%s: option '%s': '%s': %s", st->label, opt, ex, why);
}

/* The value of each option, in order: call with *i = 0 until it returns NULL. */
static const struct x_opt *
next_opt(const struct x_stage *st, size_t *i)
{
	return *i < st->nopts ? &st->opts[(*i)++] : NULL;
}

static int
bad_value(const struct x_stage *st, const char *what, const char *v, struct ai_err *e)
{
	char ex[64];

	ai_excerpt(v, strlen(v), ex, sizeof(ex));
	return ai_err_set(e, AI_EXIT_DATAERR, "%s: %s: '%s'", st->label, what, ex);
}

/*
 * A count as GNU's tools read one (xstrtoumax): blanks, then digits, then
 * an optional multiplier: b (512), k K m M g G t T p P e E z Z y Y (powers
 * of 1024), followed by "B" for powers of 1000 or "iB" for 1024.  A sign is
 * the caller's business.  -1, with *big when it does not fit.
 */
static int
gnu_count(const char *s, uint64_t *out, int *big)
{
	static const char units[] = "kKmMgGtTpPeEzZyY";
	uint64_t v = 0, mult = 1, base = 1024;
	const char *u;
	int i, power;

	*big = 0;
	while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
		s++;
	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			*big = 1;
		else
			v = v * 10 + (uint64_t)(*s - '0');
	}
	if (*s == '\0')
		goto done;
	if (*s == 'b' && s[1] == '\0') {
		mult = 512;
		goto done;
	}
	u = strchr(units, *s);
	if (u == NULL)
		return -1;
	power = (int)(u - units) / 2 + 1;
	if (s[1] == 'B' && s[2] == '\0')
		base = 1000;
	else if (!(s[1] == '\0' || (s[1] == 'i' && s[2] == 'B' && s[3] == '\0')))
		return -1;
	for (i = 0; i < power; i++) {
		if (mult > UINT64_MAX / base)
			*big = 1;
		else
			mult *= base;
	}
done:
	if (*big || (v != 0 && mult > UINT64_MAX / v)) {
		*big = 1;
		return -1;
	}
	*out = v * mult;
	return 0;
}

/* ---- cat ---- */

static const struct x_optspec cat_opts[] = {
	{ 'A', 'A', "show-all", 0, NULL },
	{ 'b', 'b', "number-nonblank", 0, NULL },
	{ 'e', 'e', NULL, 0, NULL },
	{ 'E', 'E', "show-ends", 0, NULL },
	{ 'n', 'n', "number", 0, NULL },
	{ 's', 's', "squeeze-blank", 0, NULL },
	{ 't', 't', NULL, 0, NULL },
	{ 'T', 'T', "show-tabs", 0, NULL },
	{ 'u', 'u', NULL, 0, NULL },
	{ 'v', 'v', "show-nonprinting", 0, NULL },
	OPT_END
};

static int
cat_check(struct x_stage *st, struct ai_err *e)
{
	struct x_opts_cat *o = ai_xcalloc(1, sizeof(*o));
	const struct x_opt *p;
	size_t i = 0;

	(void)e;
	st->priv = o;
	while ((p = next_opt(st, &i)) != NULL) {
		switch (p->id) {
		case 'A':
			o->nonprinting = o->ends = o->tabs = 1;
			break;
		case 'b':
			o->nonblank = o->number = 1;
			break;
		case 'e':
			o->nonprinting = o->ends = 1;
			break;
		case 'E':
			o->ends = 1;
			break;
		case 'n':
			o->number = 1;
			break;
		case 's':
			o->squeeze = 1;
			break;
		case 't':
			o->nonprinting = o->tabs = 1;
			break;
		case 'T':
			o->tabs = 1;
			break;
		case 'v':
			o->nonprinting = 1;
			break;
		default:
			break;
		}
	}
	return 0;
}

/* ---- nl ---- */

static const struct x_optspec nl_opts[] = {
	{ 'b', 'b', "body-numbering", 1, "STYLE" },
	{ 'd', 'd', "section-delimiter", 1, "CC" },
	{ 'f', 'f', "footer-numbering", 1, "STYLE" },
	{ 'h', 'h', "header-numbering", 1, "STYLE" },
	{ 'i', 'i', "line-increment", 1, "NUMBER" },
	{ 'l', 'l', "join-blank-lines", 1, "NUMBER" },
	{ 'n', 'n', "number-format", 1, "FORMAT" },
	{ 'p', 'p', "no-renumber", 0, NULL },
	{ 's', 's', "number-separator", 1, "STRING" },
	{ 'v', 'v', "starting-line-number", 1, "NUMBER" },
	{ 'w', 'w', "number-width", 1, "NUMBER" },
	OPT_END
};

/* A signed decimal, as nl reads its numbers. */
static int
signed_number(const char *s, int64_t *out)
{
	int neg = 0;
	uint64_t v;
	const char *why;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (ai_parse_u64(s, 0, (uint64_t)INT64_MAX, &v, &why) < 0)
		return -1;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

static int
nl_check(struct x_stage *st, struct ai_err *e)
{
	struct x_opts_nl *o = ai_xcalloc(1, sizeof(*o));
	const struct x_opt *p;
	size_t i = 0;

	st->priv = o;
	memcpy(o->style, "ntn", 3);
	memcpy(o->delim, "\\:", 3);
	o->sep = "\t";
	o->start = 1;
	o->incr = 1;
	o->join = 1;
	o->width = 6;
	o->format = 'r';
	while ((p = next_opt(st, &i)) != NULL) {
		int k = p->id == 'h' ? 0 : p->id == 'b' ? 1 : 2;
		uint64_t v;
		const char *why;

		switch (p->id) {
		case 'b':
		case 'f':
		case 'h':
			if (p->val[0] == 'p') {
				o->style[k] = 'p';
				o->re[k] = p->val + 1;
			} else if (strlen(p->val) == 1 && strchr("atn", p->val[0]) != NULL) {
				o->style[k] = p->val[0];
			} else {
				return ai_err_set(e, AI_EXIT_DATAERR,
				    "%s: invalid %s numbering style: '%s' (a, t, n or pBRE)", st->label,
				    k == 0 ? "header" : k == 1 ? "body" : "footer", p->val);
			}
			break;
		case 'd': {
			size_t n = strlen(p->val);

			if (n >= sizeof(o->delim) - 1)
				return ai_err_set(e, AI_EXIT_DATAERR,
				    "%s: option '%s': the section delimiter is too long", st->label,
				    p->spelled);
			memcpy(o->delim, p->val, n + 1);
			if (n == 1)
				memcpy(o->delim + 1, ":", 2);
			break;
		}
		case 'i':
		case 'v':
			if (signed_number(p->val, p->id == 'i' ? &o->incr : &o->start) < 0)
				return bad_value(st, p->id == 'i' ? "invalid line number increment" :
				    "invalid starting line number", p->val, e);
			break;
		case 'l':
		case 'w':
			if (ai_parse_u64(p->val, 1, p->id == 'w' ? 1000000 : INT64_MAX, &v, &why) < 0)
				return bad_value(st, p->id == 'l' ?
				    "invalid line number of blank lines" : "invalid line number field width",
				    p->val, e);
			if (p->id == 'l')
				o->join = v;
			else
				o->width = v;
			break;
		case 'n':
			if (strcmp(p->val, "ln") == 0 || strcmp(p->val, "rn") == 0 ||
			    strcmp(p->val, "rz") == 0)
				o->format = p->val[1] == 'z' ? 'z' : p->val[0];
			else
				return bad_value(st, "invalid line numbering format (ln, rn or rz)",
				    p->val, e);
			break;
		case 'p':
			o->no_renumber = 1;
			break;
		default: /* 's' */
			o->sep = p->val;
			break;
		}
	}
	return 0;
}

/* ---- head, tail ---- */

static const struct x_optspec head_opts[] = {
	{ 'n', 'n', "lines", 1, "[-]N" },
	{ 'c', 'c', "bytes", 1, "[-]N" },
	{ 'q', 'q', "quiet", 0, NULL },
	{ 'q', 0, "silent", 0, NULL },
	{ 'v', 'v', "verbose", 0, NULL },
	{ 'z', 'z', "zero-terminated", 0, NULL },
	OPT_END
};

static const struct x_optspec tail_opts[] = {
	{ 'n', 'n', "lines", 1, "[+]N" },
	{ 'c', 'c', "bytes", 1, "[+]N" },
	{ 'q', 'q', "quiet", 0, NULL },
	{ 'q', 0, "silent", 0, NULL },
	{ 'v', 'v', "verbose", 0, NULL },
	{ 'z', 'z', "zero-terminated", 0, NULL },
	OPT_END
};

static const struct x_deny tail_deny[] = {
	{ "-f", "it waits for more data" },
	{ "-F", "it waits for more data" },
	{ "--follow", "it waits for more data" },
	{ "--retry", "it waits for the file" },
	{ "-s", "it waits" },
	{ "--sleep-interval", "it waits" },
	{ "--pid", "it waits for a process" },
	{ "--max-unchanged-stats", "it waits for more data" },
	DENY_END
};

static int
ht_check(struct x_stage *st, struct ai_err *e)
{
	struct x_opts_ht *o = ai_xcalloc(1, sizeof(*o));
	const struct x_opt *p;
	size_t i = 0;
	int tail = st->b->id == XB_TAIL;

	st->priv = o;
	o->count = 10;
	o->headers = -1;
	o->eol = '\n';
	while ((p = next_opt(st, &i)) != NULL) {
		const char *v = p->val;
		int big;

		switch (p->id) {
		case 'q':
			o->headers = 0;
			continue;
		case 'v':
			o->headers = 1;
			continue;
		case 'z':
			o->eol = '\0';
			continue;
		default:
			break;
		}
		o->bytes = p->id == 'c';
		o->from_start = o->all_but = 0;
		if (*v == '+') {
			o->from_start = tail;
			v++;
			if (*v < '0' || *v > '9')
				v = ""; /* strtoumax: no blank after a '+' */
		} else if (*v == '-') {
			o->all_but = !tail;
			v++;
		}
		if (gnu_count(v, &o->count, &big) < 0)
			return ai_err_set(e, AI_EXIT_DATAERR, "%s: invalid number of %s: '%s'%s",
			    st->label, o->bytes ? "bytes" : "lines", p->val,
			    big ? ": Value too large for defined data type" : "");
	}
	return 0;
}

/* ---- wc ---- */

static const struct x_optspec wc_opts[] = {
	{ 'c', 'c', "bytes", 0, NULL },
	{ 'm', 'm', "chars", 0, NULL },
	{ 'l', 'l', "lines", 0, NULL },
	{ 'L', 'L', "max-line-length", 0, NULL },
	{ 'w', 'w', "words", 0, NULL },
	OPT_END
};

static const struct x_deny wc_deny[] = {
	{ "--files0-from", "it reads a list of files" },
	DENY_END
};

static int
wc_check(struct x_stage *st, struct ai_err *e)
{
	struct x_opts_wc *o = ai_xcalloc(1, sizeof(*o));
	const struct x_opt *p;
	size_t i = 0;

	(void)e;
	st->priv = o;
	while ((p = next_opt(st, &i)) != NULL) {
		if (p->id == 'l')
			o->lines = 1;
		else if (p->id == 'w')
			o->words = 1;
		else if (p->id == 'm')
			o->chars = 1;
		else if (p->id == 'L')
			o->maxlen = 1;
		else
			o->bytes = 1;
	}
	if (!o->lines && !o->words && !o->chars && !o->bytes && !o->maxlen)
		o->lines = o->words = o->bytes = 1;
	return 0;
}

/* ---- sort ---- */

static const struct x_optspec sort_opts[] = {
	{ 'b', 'b', "ignore-leading-blanks", 0, NULL },
	{ 'd', 'd', "dictionary-order", 0, NULL },
	{ 'f', 'f', "ignore-case", 0, NULL },
	{ 'g', 'g', "general-numeric-sort", 0, NULL },
	{ 'h', 'h', "human-numeric-sort", 0, NULL },
	{ 'i', 'i', "ignore-nonprinting", 0, NULL },
	{ 'M', 'M', "month-sort", 0, NULL },
	{ 'n', 'n', "numeric-sort", 0, NULL },
	{ 'r', 'r', "reverse", 0, NULL },
	{ 'V', 'V', "version-sort", 0, NULL },
	{ O_SORTWORD, 0, "sort", 1, "WORD" },
	{ 'c', 'c', NULL, 0, NULL },
	{ O_CHECKW, 0, "check", -1, "WHEN" },
	{ 'C', 'C', NULL, 0, NULL },
	{ 'k', 'k', "key", 1, "KEYDEF" },
	{ 'm', 'm', "merge", 0, NULL },
	{ 's', 's', "stable", 0, NULL },
	{ 'S', 'S', "buffer-size", 1, "SIZE" },
	{ 't', 't', "field-separator", 1, "SEP" },
	{ 'u', 'u', "unique", 0, NULL },
	{ 'z', 'z', "zero-terminated", 0, NULL },
	{ O_PARALLEL, 0, "parallel", 1, "N" },
	{ O_BATCH, 0, "batch-size", 1, "NMERGE" },
	OPT_END
};

static const struct x_deny sort_deny[] = {
	{ "-o", "it writes a file" },
	{ "--output", "it writes a file" },
	{ "-T", "it writes temporary files" },
	{ "--temporary-directory", "it writes temporary files" },
	{ "--compress-program", "it runs a program" },
	{ "--files0-from", "it reads a list of files" },
	{ "--random-source", "it reads a file" },
	{ "-R", "its order is random: the same command would not give the same answer" },
	{ "--random-sort", "its order is random: the same command would not give the same answer" },
	{ "--debug", "its annotations are not produced" },
	DENY_END
};

/* Ordering letters of a key (or the global flags); 0, or the bad letter. */
static int
ordering(struct x_sortkey *k, char c, int end)
{
	switch (c) {
	case 'b':
		if (end)
			k->skipeblanks = 1;
		else
			k->skipsblanks = 1;
		return 0;
	case 'd':
		k->dict = 1;
		return 0;
	case 'f':
		k->fold = 1;
		return 0;
	case 'g':
		k->general = 1;
		return 0;
	case 'h':
		k->human = 1;
		return 0;
	case 'i':
		k->nonprint = 1;
		return 0;
	case 'M':
		k->month = 1;
		return 0;
	case 'n':
		k->numeric = 1;
		return 0;
	case 'r':
		k->reverse = 1;
		return 0;
	case 'V':
		k->version = 1;
		return 0;
	default:
		return c;
	}
}

/* A field or character count of a key: digits, saturating. */
static const char *
key_count(const char *s, size_t *out)
{
	uint64_t v = 0;

	if (*s < '0' || *s > '9')
		return NULL;
	for (; *s >= '0' && *s <= '9'; s++)
		v = v > 100000000 ? v : v * 10 + (uint64_t)(*s - '0');
	*out = (size_t)v;
	return s;
}

static int
bad_key(const struct x_stage *st, const char *why, const char *spec, struct ai_err *e)
{
	return ai_err_set(e, AI_EXIT_DATAERR, "%s: %s: invalid field specification '%s'",
	    st->label, why, spec);
}

/* -k POS1[,POS2], POS being F[.C][OPTS], as GNU sort reads it. */
static int
sort_key(const struct x_stage *st, const char *spec, struct x_sortkey *k, struct ai_err *e)
{
	const char *s = spec;

	memset(k, 0, sizeof(*k));
	if ((s = key_count(s, &k->sword)) == NULL)
		return bad_key(st, "invalid number at field start", spec, e);
	if (k->sword-- == 0)
		return bad_key(st, "field number is zero", spec, e);
	if (*s == '.') {
		if ((s = key_count(s + 1, &k->schar)) == NULL)
			return bad_key(st, "invalid number after '.'", spec, e);
		if (k->schar-- == 0)
			return bad_key(st, "character offset is zero", spec, e);
	}
	if (!(k->sword || k->schar))
		k->sword = SIZE_MAX;
	for (; *s && *s != ','; s++)
		if (ordering(k, *s, 0))
			return bad_key(st, "stray character in field spec", spec, e);
	if (*s != ',') {
		k->eword = SIZE_MAX;
		k->echar = 0;
		return 0;
	}
	if ((s = key_count(s + 1, &k->eword)) == NULL)
		return bad_key(st, "invalid number after ','", spec, e);
	if (k->eword-- == 0)
		return bad_key(st, "field number is zero", spec, e);
	if (*s == '.' && (s = key_count(s + 1, &k->echar)) == NULL)
		return bad_key(st, "invalid number after '.'", spec, e);
	for (; *s; s++)
		if (ordering(k, *s, 1))
			return bad_key(st, "stray character in field spec", spec, e);
	return 0;
}

static int
key_is_default(const struct x_sortkey *k)
{
	return !(k->dict || k->nonprint || k->fold || k->skipsblanks || k->skipeblanks ||
	    k->numeric || k->general || k->human || k->month || k->version);
}

static int
sort_check(struct x_stage *st, struct ai_err *e)
{
	struct x_opts_sort *o = ai_xcalloc(1, sizeof(*o));
	const struct x_opt *p;
	size_t i = 0;
	int kinds;

	st->priv = o;
	o->sep = -1;
	while ((p = next_opt(st, &i)) != NULL) {
		switch (p->id) {
		case 'c':
		case 'C':
			o->check = p->id;
			break;
		case O_CHECKW:
			if (p->val == NULL || strcmp(p->val, "diagnose-first") == 0)
				o->check = 'c';
			else if (strcmp(p->val, "quiet") == 0 || strcmp(p->val, "silent") == 0)
				o->check = 'C';
			else
				return bad_value(st,
				    "invalid argument for '--check' (diagnose-first, quiet or silent)",
				    p->val, e);
			break;
		case 'k':
			o->keys = ai_xrealloc(o->keys, (o->nkeys + 1) * sizeof(*o->keys));
			if (sort_key(st, p->val, &o->keys[o->nkeys], e) < 0)
				return -1;
			o->nkeys++;
			break;
		case 'm':
			o->merge = 1;
			break;
		case 's':
			o->stable = 1;
			break;
		case 'S':
		case O_PARALLEL:
		case O_BATCH:
			break; /* how GNU sort uses memory and threads: nothing to do here */
		case 't': {
			int c;

			if (p->val[0] == '\0')
				return ai_err_set(e, AI_EXIT_DATAERR, "%s: empty tab", st->label);
			if (p->val[1] != '\0') {
				if (strcmp(p->val, "\\0") != 0)
					return ai_err_set(e, AI_EXIT_DATAERR, "%s: multi-character tab '%s'",
					    st->label, p->val);
				c = 0;
			} else {
				c = (unsigned char)p->val[0];
			}
			if (o->sep >= 0 && o->sep != c)
				return ai_err_set(e, AI_EXIT_DATAERR, "%s: incompatible tabs", st->label);
			o->sep = c;
			break;
		}
		case 'u':
			o->unique = 1;
			break;
		case 'z':
			o->zero = 1;
			break;
		case O_SORTWORD: {
			static const char *const words[] = {
				"general-numeric", "human-numeric", "month", "numeric", "version", NULL
			};
			static const char letters[] = "ghMnV";
			size_t w;

			for (w = 0; words[w] != NULL && strcmp(words[w], p->val) != 0; w++)
				;
			if (words[w] == NULL)
				return bad_value(st, strcmp(p->val, "random") == 0 ?
				    "option '--sort=random': its order is random" :
				    "invalid argument for '--sort'", p->val, e);
			ordering(&o->global, letters[w], 0);
			break;
		}
		default:
			ordering(&o->global, (char)p->id, 0);
			if (p->id == 'b')
				o->global.skipeblanks = 1;
			break;
		}
	}
	/* keys without ordering options of their own take the global ones */
	for (i = 0; i < o->nkeys; i++) {
		struct x_sortkey *k = &o->keys[i];

		if (key_is_default(k) && !k->reverse) {
			size_t sw = k->sword, sc = k->schar, ew = k->eword, ec = k->echar;

			*k = o->global;
			k->sword = sw;
			k->schar = sc;
			k->eword = ew;
			k->echar = ec;
		}
	}
	if (o->check && st->nops > 1)
		return ai_err_set(e, AI_EXIT_DATAERR, "%s: extra operand '%s' not allowed with -%c",
		    st->label, st->ops[1], o->check);
	/* GNU: at most one of -n, -g, -h, -M and -V, -d or -i per key */
	for (i = 0; i <= o->nkeys; i++) {
		const struct x_sortkey *k = i < o->nkeys ? &o->keys[i] : &o->global;

		if (i == o->nkeys && o->nkeys > 0)
			break;
		kinds = k->numeric + k->general + k->human + k->month +
		    (k->version || k->dict || k->nonprint);
		if (kinds > 1)
			return ai_err_set(e, AI_EXIT_DATAERR,
			    "%s: options '-%s%s%s%s%s%s%s' are incompatible", st->label,
			    k->dict ? "d" : "", k->general ? "g" : "", k->nonprint ? "i" : "",
			    k->month ? "M" : "", k->human ? "h" : "", k->numeric ? "n" : "",
			    k->version ? "V" : "");
	}
	return 0;
}

static void
sort_release(struct x_stage *st)
{
	struct x_opts_sort *o = st->priv;

	if (o != NULL)
		free(o->keys);
	free(o);
}

/* ---- uniq ---- */

static const struct x_optspec uniq_opts[] = {
	{ 'c', 'c', "count", 0, NULL },
	{ 'd', 'd', "repeated", 0, NULL },
	{ 'D', 'D', NULL, 0, NULL },
	{ O_ALLREP, 0, "all-repeated", -1, "METHOD" },
	{ 'f', 'f', "skip-fields", 1, "N" },
	{ O_GROUP, 0, "group", -1, "METHOD" },
	{ 'i', 'i', "ignore-case", 0, NULL },
	{ 's', 's', "skip-chars", 1, "N" },
	{ 'u', 'u', "unique", 0, NULL },
	{ 'w', 'w', "check-chars", 1, "N" },
	{ 'z', 'z', "zero-terminated", 0, NULL },
	OPT_END
};

static int
uniq_check(struct x_stage *st, struct ai_err *e)
{
	struct x_opts_uniq *o = ai_xcalloc(1, sizeof(*o));
	const struct x_opt *p;
	size_t i = 0;

	st->priv = o;
	o->check_chars = UINT64_MAX;
	while ((p = next_opt(st, &i)) != NULL) {
		uint64_t v;

		switch (p->id) {
		case 'c':
			o->count = 1;
			break;
		case 'd':
			o->repeated = 1;
			break;
		case 'D':
			o->all = 'n';
			break;
		case O_ALLREP:
			if (p->val == NULL || strcmp(p->val, "none") == 0)
				o->all = 'n';
			else if (strcmp(p->val, "prepend") == 0 || strcmp(p->val, "separate") == 0)
				o->all = p->val[0];
			else
				return bad_value(st,
				    "invalid argument for '--all-repeated' (none, prepend or separate)",
				    p->val, e);
			break;
		case O_GROUP:
			if (p->val == NULL || strcmp(p->val, "separate") == 0)
				o->group = 's';
			else if (strcmp(p->val, "prepend") == 0 || strcmp(p->val, "append") == 0 ||
			    strcmp(p->val, "both") == 0)
				o->group = p->val[0];
			else
				return bad_value(st,
				    "invalid argument for '--group' (separate, prepend, append or both)",
				    p->val, e);
			break;
		case 'i':
			o->icase = 1;
			break;
		case 'u':
			o->unique = 1;
			break;
		case 'z':
			o->zero = 1;
			break;
		default: {
			int big;

			if (gnu_count(p->val, &v, &big) < 0 && !big)
				return bad_value(st, p->id == 'f' ? "invalid number of fields to skip" :
				    p->id == 's' ? "invalid number of bytes to skip" :
				    "invalid number of bytes to compare", p->val, e);
			if (big)
				v = UINT64_MAX;
			if (p->id == 'f')
				o->skip_fields = v;
			else if (p->id == 's')
				o->skip_chars = v;
			else
				o->check_chars = v;
			break;
		}
		}
	}
	if (o->group && (o->count || o->repeated || o->all || o->unique))
		return ai_err_set(e, AI_EXIT_DATAERR,
		    "%s: --group is mutually exclusive with -c/-d/-D/-u", st->label);
	if (o->all && o->count)
		return ai_err_set(e, AI_EXIT_DATAERR,
		    "%s: printing all duplicated lines and repeat counts is meaningless", st->label);
	if (st->nops > 1)
		return ai_err_set(e, AI_EXIT_POLICY,
		    "%s: a second operand names an output file: not allowed (nothing is written)",
		    st->label);
	return 0;
}

/* ---- cut ---- */

static const struct x_optspec cut_opts[] = {
	{ 'b', 'b', "bytes", 1, "LIST" },
	{ 'c', 'c', "characters", 1, "LIST" },
	{ 'd', 'd', "delimiter", 1, "DELIM" },
	{ 'f', 'f', "fields", 1, "LIST" },
	{ 'n', 'n', NULL, 0, NULL },
	{ O_COMPLEMENT, 0, "complement", 0, NULL },
	{ 's', 's', "only-delimited", 0, NULL },
	{ O_OUTDELIM, 0, "output-delimiter", 1, "STRING" },
	{ 'z', 'z', "zero-terminated", 0, NULL },
	OPT_END
};

static int
cmp_range(const void *a, const void *b)
{
	const struct x_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* A LIST: N, N-M, N- or -M, separated by commas or blanks; numbered from 1. */
static int
cut_list(struct x_stage *st, const struct x_opt *p, struct x_opts_cut *o, struct ai_err *e)
{
	const char *s = p->val, *what = p->id == 'f' ? "field" : "byte/character";
	size_t i, k;

	free(o->r);
	o->r = NULL;
	o->nr = 0;
	for (;;) {
		struct x_range r = { 1, UINT64_MAX };
		size_t len = strcspn(s, ", \t");
		const char *dash = memchr(s, '-', len);
		char a[32], b[32];
		size_t la = dash ? (size_t)(dash - s) : len, lb = dash ? len - la - 1 : 0;
		const char *why;

		if (len == 0 || la >= sizeof(a) || lb >= sizeof(b)) {
			if (len == 0)
				return ai_err_set(e, AI_EXIT_DATAERR, "%s: %ss are numbered from 1",
				    st->label, p->id == 'f' ? "field" : "byte/character position");
			return bad_value(st, "invalid list", p->val, e);
		}
		memcpy(a, s, la);
		a[la] = '\0';
		memcpy(b, dash ? dash + 1 : "", lb);
		b[lb] = '\0';
		if (dash && la == 0 && lb == 0)
			return ai_err_set(e, AI_EXIT_DATAERR, "%s: invalid range with no endpoint: -",
			    st->label);
		if ((la > 0 && strspn(a, "0123456789") != la) ||
		    (lb > 0 && strspn(b, "0123456789") != lb))
			return ai_err_set(e, AI_EXIT_DATAERR, "%s: invalid %s value '%.*s'", st->label,
			    p->id == 'f' ? "field" : "byte/character", (int)len, s);
		if ((la > 0 && ai_parse_u64(a, 0, UINT64_MAX - 1, &r.lo, &why) < 0) ||
		    (lb > 0 && ai_parse_u64(b, 0, UINT64_MAX - 1, &r.hi, &why) < 0))
			return ai_err_set(e, AI_EXIT_DATAERR, "%s: %s number '%s' is too large",
			    st->label, what, la > 0 && strlen(a) > 18 ? a : b);
		if ((la > 0 && r.lo == 0) || (lb > 0 && r.hi == 0))
			return ai_err_set(e, AI_EXIT_DATAERR, "%s: %ss are numbered from 1",
			    st->label, p->id == 'f' ? "field" : "byte/character position");
		if (!dash)
			r.hi = r.lo;
		if (r.hi < r.lo)
			return ai_err_set(e, AI_EXIT_DATAERR, "%s: invalid decreasing range", st->label);
		o->r = ai_xrealloc(o->r, (o->nr + 1) * sizeof(*o->r));
		o->r[o->nr++] = r;
		if (s[len] == '\0')
			break;
		s += len + 1;
	}
	/* sorted, and overlapping ranges merged, as GNU does (adjacent ones stay apart) */
	qsort(o->r, o->nr, sizeof(*o->r), cmp_range);
	for (i = 1, k = 0; i < o->nr; i++) {
		if (o->r[i].lo <= o->r[k].hi) {
			if (o->r[i].hi > o->r[k].hi)
				o->r[k].hi = o->r[i].hi;
		} else {
			o->r[++k] = o->r[i];
		}
	}
	o->nr = k + 1;
	return 0;
}

static int
cut_check(struct x_stage *st, struct ai_err *e)
{
	struct x_opts_cut *o = ai_xcalloc(1, sizeof(*o));
	const struct x_opt *p;
	int delim = 0;
	size_t i = 0;

	st->priv = o;
	o->delim = '\t';
	while ((p = next_opt(st, &i)) != NULL) {
		switch (p->id) {
		case 'd':
			if (strlen(p->val) > 1)
				return ai_err_set(e, AI_EXIT_DATAERR,
				    "%s: the delimiter must be a single character", st->label);
			o->delim = (unsigned char)p->val[0];
			delim = 1;
			break;
		case 's':
			o->only_delimited = 1;
			break;
		case 'n':
			break;
		case O_COMPLEMENT:
			o->complement = 1;
			break;
		case O_OUTDELIM:
			o->out_delim = p->val;
			break;
		case 'z':
			o->zero = 1;
			break;
		default:
			if (o->mode && o->mode != p->id)
				return ai_err_set(e, AI_EXIT_DATAERR,
				    "%s: only one type of list may be specified", st->label);
			o->mode = p->id;
			if (cut_list(st, p, o, e) < 0)
				return -1;
			break;
		}
	}
	if (!o->mode)
		return ai_err_set(e, AI_EXIT_DATAERR,
		    "%s: you must specify a list of bytes, characters, or fields", st->label);
	if (o->mode != 'f' && delim)
		return ai_err_set(e, AI_EXIT_DATAERR,
		    "%s: an input delimiter may be specified only when operating on fields", st->label);
	if (o->mode != 'f' && o->only_delimited)
		return ai_err_set(e, AI_EXIT_DATAERR,
		    "%s: suppressing non-delimited lines makes sense only when operating on fields",
		    st->label);
	return 0;
}

static void
cut_release(struct x_stage *st)
{
	struct x_opts_cut *o = st->priv;

	if (o != NULL)
		free(o->r);
	free(o);
}

/* ---- grep ---- */

static const struct x_optspec grep_opts[] = {
	{ 'E', 'E', "extended-regexp", 0, NULL },
	{ 'F', 'F', "fixed-strings", 0, NULL },
	{ 'G', 'G', "basic-regexp", 0, NULL },
	{ 'e', 'e', "regexp", 1, "PATTERN" },
	{ 'i', 'i', "ignore-case", 0, NULL },
	{ 'i', 'y', NULL, 0, NULL },
	{ O_NOICASE, 0, "no-ignore-case", 0, NULL },
	{ 'w', 'w', "word-regexp", 0, NULL },
	{ 'x', 'x', "line-regexp", 0, NULL },
	{ 'z', 'z', "null-data", 0, NULL },
	{ 's', 's', "no-messages", 0, NULL },
	{ 'v', 'v', "invert-match", 0, NULL },
	{ 'm', 'm', "max-count", 1, "NUM" },
	{ 'b', 'b', "byte-offset", 0, NULL },
	{ 'n', 'n', "line-number", 0, NULL },
	{ O_LINEBUF, 0, "line-buffered", 0, NULL },
	{ 'H', 'H', "with-filename", 0, NULL },
	{ 'h', 'h', "no-filename", 0, NULL },
	{ O_LABEL, 0, "label", 1, "LABEL" },
	{ 'o', 'o', "only-matching", 0, NULL },
	{ 'q', 'q', "quiet", 0, NULL },
	{ 'q', 0, "silent", 0, NULL },
	{ O_BINFILES, 0, "binary-files", 1, "TYPE" },
	{ 'a', 'a', "text", 0, NULL },
	{ 'I', 'I', NULL, 0, NULL },
	{ 'L', 'L', "files-without-match", 0, NULL },
	{ 'l', 'l', "files-with-matches", 0, NULL },
	{ 'c', 'c', "count", 0, NULL },
	{ 'T', 'T', "initial-tab", 0, NULL },
	{ 'Z', 'Z', "null", 0, NULL },
	{ 'B', 'B', "before-context", 1, "NUM" },
	{ 'A', 'A', "after-context", 1, "NUM" },
	{ 'C', 'C', "context", 1, "NUM" },
	{ O_GROUPSEP, 0, "group-separator", 1, "SEP" },
	{ O_NOGROUPSEP, 0, "no-group-separator", 0, NULL },
	{ O_COLOR, 0, "color", -1, "WHEN" },
	{ O_COLOR, 0, "colour", -1, "WHEN" },
	{ 'U', 'U', "binary", 0, NULL },
	OPT_END
};

static const struct x_deny grep_deny[] = {
	{ "-f", "it reads patterns from a second file" },
	{ "--file", "it reads patterns from a second file" },
	{ "-r", "it reads directories" },
	{ "-R", "it reads directories" },
	{ "--recursive", "it reads directories" },
	{ "--dereference-recursive", "it reads directories" },
	{ "-d", "it reads directories" },
	{ "--directories", "it reads directories" },
	{ "-D", "it reads devices" },
	{ "--devices", "it reads devices" },
	{ "--include", "it selects files in a directory walk, which is not available" },
	{ "--exclude", "it selects files in a directory walk, which is not available" },
	{ "--exclude-dir", "it selects files in a directory walk, which is not available" },
	{ "--exclude-from", "it reads a second file" },
	{ "-P", "Perl regular expressions can run for a very long time" },
	{ "--perl-regexp", "Perl regular expressions can run for a very long time" },
	DENY_END
};

static int
grep_count(const struct x_stage *st, const struct x_opt *p, uint64_t *out, int context,
    struct ai_err *e)
{
	const char *why;

	if (ai_parse_u64(p->val, 0, UINT64_MAX, out, &why) == 0)
		return 0;
	if (!context && p->val[0] == '-' && ai_parse_u64(p->val + 1, 0, UINT64_MAX, out, &why) == 0) {
		*out = UINT64_MAX; /* GNU grep: a negative count is no limit */
		return 0;
	}
	return bad_value(st, context ? "invalid context length argument" : "invalid max count",
	    p->val, e);
}

static int
grep_check(struct x_stage *st, struct ai_err *e)
{
	struct x_opts_grep *o = ai_xcalloc(1, sizeof(*o));
	const struct x_opt *p;
	size_t i = 0;
	int matcher = 0, before = -1, after = -1, context_given = 0;
	uint64_t context = 0, v;

	st->priv = o;
	o->syntax = X_RE_BASIC;
	o->with_name = -1;
	o->binary = 'b';
	o->max_count = UINT64_MAX;
	o->group_sep = "--";
	while ((p = next_opt(st, &i)) != NULL) {
		switch (p->id) {
		case 'E':
		case 'F':
		case 'G':
			if (matcher && matcher != p->id)
				return ai_err_set(e, AI_EXIT_DATAERR, "%s: conflicting matchers specified",
				    st->label);
			matcher = p->id;
			o->syntax = p->id == 'E' ? X_RE_EXTENDED : p->id == 'F' ? X_RE_FIXED :
			    X_RE_BASIC;
			break;
		case 'e':
			o->pats = ai_xrealloc(o->pats, (o->npats + 1) * sizeof(*o->pats));
			o->lens = ai_xrealloc(o->lens, (o->npats + 1) * sizeof(*o->lens));
			o->pats[o->npats] = p->val;
			o->lens[o->npats++] = strlen(p->val);
			break;
		case 'i':
			o->icase = 1;
			break;
		case O_NOICASE:
			o->icase = 0;
			break;
		case 'w':
			o->words = 1;
			break;
		case 'x':
			o->lines = 1;
			break;
		case 'z':
			o->null_data = 1;
			break;
		case 'v':
			o->invert = 1;
			break;
		case 'm':
			if (grep_count(st, p, &o->max_count, 0, e) < 0)
				return -1;
			break;
		case 'b':
			o->byte_offset = 1;
			break;
		case 'n':
			o->number = 1;
			break;
		case 'H':
			o->with_name = 1;
			break;
		case 'h':
			o->with_name = 0;
			break;
		case O_LABEL:
			o->label = p->val;
			break;
		case 'o':
			o->only = 1;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case O_BINFILES:
			if (strcmp(p->val, "binary") == 0)
				o->binary = 'b';
			else if (strcmp(p->val, "text") == 0)
				o->binary = 't';
			else if (strcmp(p->val, "without-match") == 0)
				o->binary = 'w';
			else
				return ai_err_set(e, AI_EXIT_DATAERR, "%s: unknown binary-files type",
				    st->label);
			break;
		case 'a':
			o->binary = 't';
			break;
		case 'I':
			o->binary = 'w';
			break;
		case 'L':
		case 'l':
			o->list = p->id;
			break;
		case 'c':
			o->count = 1;
			break;
		case 'T':
			o->initial_tab = 1;
			break;
		case 'Z':
			o->null_name = 1;
			break;
		case 'A':
		case 'B':
		case 'C':
			if (grep_count(st, p, &v, 1, e) < 0)
				return -1;
			if (p->id == 'A')
				after = 1, o->after = v;
			else if (p->id == 'B')
				before = 1, o->before = v;
			else
				context = v, context_given = 1;
			break;
		case O_GROUPSEP:
			o->group_sep = p->val;
			break;
		case O_NOGROUPSEP:
			o->group_sep = NULL;
			break;
		case O_COLOR:
			if (p->val != NULL && strcmp(p->val, "never") != 0 &&
			    strcmp(p->val, "auto") != 0 && strcmp(p->val, "tty") != 0 &&
			    strcmp(p->val, "if-tty") != 0 && strcmp(p->val, "none") != 0 &&
			    strcmp(p->val, "no") != 0) {
				if (strcmp(p->val, "always") == 0 || strcmp(p->val, "yes") == 0 ||
				    strcmp(p->val, "force") == 0)
					return ai_err_set(e, AI_EXIT_POLICY,
					    "%s: option '%s=%s' is not allowed: the output is text, without "
					    "escape sequences (allowed: --color=never or auto)", st->label,
					    p->spelled, p->val);
				return bad_value(st, "invalid argument for '--color'", p->val, e);
			}
			break;
		default:
			break; /* -s, -U, --line-buffered: nothing to do */
		}
	}
	if (before < 0)
		o->before = context;
	if (after < 0)
		o->after = context;
	o->context = before > 0 || after > 0 || context_given;
	/* the PATTERN operand, unless -e gave the patterns */
	if (o->npats == 0) {
		if (st->nops == 0)
			return ai_err_set(e, AI_EXIT_DATAERR,
			    "%s: a PATTERN is needed (grep [OPTION]... PATTERN [FILE]...)", st->label);
		o->pats = ai_xmalloc(sizeof(*o->pats));
		o->lens = ai_xmalloc(sizeof(*o->lens));
		o->pats[0] = st->ops[0];
		o->lens[0] = strlen(st->ops[0]);
		o->npats = 1;
		st->arg = st->ops[0];
		st->file_from = 1;
	} else {
		st->arg = o->pats[0];
		st->file_from = 0;
	}
	return 0;
}

static void
grep_release(struct x_stage *st)
{
	struct x_opts_grep *o = st->priv;

	if (o != NULL) {
		free(o->pats);
		free(o->lens);
	}
	free(o);
}

/* ---- jq ---- */

static const struct x_optspec jq_opts[] = {
	{ 'r', 'r', "raw-output", 0, NULL },
	{ 'j', 'j', "join-output", 0, NULL },
	{ 'a', 'a', "ascii-output", 0, NULL },
	{ 'c', 'c', "compact-output", 0, NULL },
	{ 'C', 'C', "color-output", 0, NULL },
	{ 'M', 'M', "monochrome-output", 0, NULL },
	{ 'S', 'S', "sort-keys", 0, NULL },
	{ 's', 's', "slurp", 0, NULL },
	{ 'R', 'R', "raw-input", 0, NULL },
	{ 'n', 'n', "null-input", 0, NULL },
	{ O_TAB, 0, "tab", 0, NULL },
	{ O_INDENT, 0, "indent", 1, "N" },
	{ O_UNBUF, 0, "unbuffered", 0, NULL },
	{ O_SEQ, 0, "seq", 0, NULL },
	{ O_STREAM, 0, "stream", 0, NULL },
	{ O_ARG, 0, "arg", 2, "NAME VALUE" },
	{ O_ARGJSON, 0, "argjson", 2, "NAME JSON" },
	{ O_ARGS, 0, "args", 0, NULL },
	{ O_JSONARGS, 0, "jsonargs", 0, NULL },
	OPT_END
};

static const struct x_deny jq_deny[] = {
	{ "-f", "it reads the filter from a file" },
	{ "--from-file", "it reads the filter from a file" },
	{ "-L", "it reads modules from a directory" },
	{ "--slurpfile", "it reads a second file" },
	{ "--rawfile", "it reads a second file" },
	{ "--run-tests", "it reads a file" },
	{ "-e", "the exit status is the pipeline's" },
	{ "--exit-status", "the exit status is the pipeline's" },
	{ "--stream-errors", "it is not supported" },
	{ "--debug-dump-disasm", "it is not supported" },
	{ "--debug-trace", "it is not supported" },
	DENY_END
};

static int
identifier(const char *s)
{
	size_t i;

	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
		return 0;
	for (i = 1; s[i]; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || s[i] == '_' ||
		    (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return i <= 64;
}

/* jq 1.6's print flags (jv.h), here so that the parser needs no libjq. */
#define JQ_PRETTY 1
#define JQ_TAB 64
#define JQ_INDENT(n) ((n) == 0 ? 0 : (n) << 8 | JQ_PRETTY)
#define JQ_INDENT_MASK (7 << 8 | JQ_PRETTY)

static int
jq_check(struct x_stage *st, struct ai_err *e)
{
	struct x_opts_jq *o = ai_xcalloc(1, sizeof(*o));
	const struct x_opt *p;
	size_t i = 0;

	st->priv = o;
	o->dumpopts = JQ_INDENT(2);
	while ((p = next_opt(st, &i)) != NULL) {
		switch (p->id) {
		case 'r':
			o->raw = 1;
			break;
		case 'j':
			o->raw = o->join = 1;
			break;
		case 'a':
			o->ascii = 1;
			break;
		case 'c':
			o->dumpopts &= ~(JQ_TAB | JQ_INDENT_MASK);
			break;
		case 'C':
			o->color = 1;
			break;
		case 'M':
			o->color = 0;
			break;
		case 'S':
			o->sort = 1;
			break;
		case 's':
			o->slurp = 1;
			break;
		case 'R':
			o->raw_input = 1;
			break;
		case 'n':
			o->null_input = 1;
			break;
		case O_TAB:
			o->dumpopts &= ~JQ_INDENT_MASK;
			o->dumpopts |= JQ_TAB | JQ_PRETTY;
			break;
		case O_INDENT: {
			uint64_t v;
			const char *why;

			if (ai_parse_u64(p->val, 0, UINT64_MAX, &v, &why) < 0)
				return bad_value(st, "option '--indent': not a number", p->val, e);
			if (v > 7)
				return ai_err_set(e, AI_EXIT_DATAERR,
				    "%s: Cannot indent more than 7 characters", st->label);
			o->dumpopts &= ~(JQ_TAB | JQ_INDENT_MASK);
			o->dumpopts |= JQ_INDENT((int)v);
			break;
		}
		case O_UNBUF:
			break;
		case O_SEQ:
			o->seq = 1;
			break;
		case O_STREAM:
			o->stream = 1;
			break;
		case O_ARGS:
		case O_JSONARGS:
			o->positional = p->id == O_ARGS ? 's' : 'j';
			break;
		default:
			if (!identifier(p->val))
				return ai_err_set(e, AI_EXIT_DATAERR,
				    "%s: option '%s': '%s' is not a variable name", st->label, p->spelled,
				    p->val);
			o->args = ai_xrealloc(o->args, (o->nargs + 1) * sizeof(*o->args));
			o->args[o->nargs].name = p->val;
			o->args[o->nargs].value = p->val2;
			o->args[o->nargs].json = p->id == O_ARGJSON;
			o->nargs++;
			break;
		}
	}
	st->arg = st->nops > 0 ? st->ops[0] : ".";
	st->file_from = st->nops > 0 ? 1 : 0;
	if (o->positional)
		st->file_to = st->file_from; /* the other operands are $ARGS.positional */
	return 0;
}

static void
jq_release(struct x_stage *st)
{
	struct x_opts_jq *o = st->priv;

	if (o != NULL)
		free(o->args);
	free(o);
}

/* ---- curl ---- */

static const struct x_optspec curl_opts[] = {
	{ 's', 's', "silent", 0, NULL },
	{ 'S', 'S', "show-error", 0, NULL },
	{ 'L', 'L', "location", 0, NULL },
	{ 'f', 'f', "fail", 0, NULL },
	OPT_END
};

static const struct x_deny curl_deny[] = {
	{ "-o", "it writes a file" },
	{ "--output", "it writes a file" },
	{ "-O", "it writes a file" },
	{ "--remote-name", "it writes a file" },
	{ "-K", "it reads a configuration file" },
	{ "--config", "it reads a configuration file" },
	{ "-d", "it sends data: only GET is allowed" },
	{ "--data", "it sends data: only GET is allowed" },
	{ "--data-binary", "it sends data: only GET is allowed" },
	{ "--data-raw", "it sends data: only GET is allowed" },
	{ "-F", "it sends data: only GET is allowed" },
	{ "--form", "it sends data: only GET is allowed" },
	{ "-T", "it uploads a file" },
	{ "--upload-file", "it uploads a file" },
	{ "-X", "only GET is allowed" },
	{ "--request", "only GET is allowed" },
	{ "-I", "only GET is allowed" },
	{ "--head", "only GET is allowed" },
	{ "-x", "proxies are not used" },
	{ "--proxy", "proxies are not used" },
	{ "-u", "it sends credentials" },
	{ "--user", "it sends credentials" },
	{ "-b", "it sends cookies" },
	{ "--cookie", "it sends cookies" },
	{ "-c", "it writes cookies" },
	{ "--cookie-jar", "it writes cookies" },
	{ "-H", "it sends headers" },
	{ "--header", "it sends headers" },
	{ "-n", "it reads credentials" },
	{ "--netrc", "it reads credentials" },
	{ "-k", "it turns off certificate checks" },
	{ "--insecure", "it turns off certificate checks" },
	{ "--unix-socket", "it connects somewhere else" },
	{ "--resolve", "it connects somewhere else" },
	{ "--connect-to", "it connects somewhere else" },
	DENY_END
};

static int
flags_check(struct x_stage *st, struct ai_err *e)
{
	(void)st;
	(void)e;
	return 0;
}

static void
plain_release(struct x_stage *st)
{
	free(st->priv);
}

static const struct x_builtin b_cat = {
	XB_CAT, "cat", "cat [-AbeEnstTuv] [FILE]...", cat_opts, NULL, XOP_FILES, 0, 1,
	cat_check, plain_release
};
static const struct x_builtin b_nl = {
	XB_NL, "nl", "nl [-p] [-b|-h|-f STYLE] [-d CC] [-i N] [-l N] [-n FORMAT] [-s STRING] "
	"[-v N] [-w N] [FILE]...", nl_opts, NULL, XOP_FILES, 0, 1, nl_check, plain_release
};
static const struct x_builtin b_head = {
	XB_HEAD, "head", "head [-qvz] [-n [-]N | -c [-]N] [FILE]...", head_opts, NULL, XOP_FILES,
	'n', 1, ht_check, plain_release
};
static const struct x_builtin b_tail = {
	XB_TAIL, "tail", "tail [-qvz] [-n [+]N | -c [+]N] [FILE]...", tail_opts, tail_deny,
	XOP_FILES, 'n', 1, ht_check, plain_release
};
static const struct x_builtin b_wc = {
	XB_WC, "wc", "wc [-clLmw] [FILE]...", wc_opts, wc_deny, XOP_FILES, 0, 1,
	wc_check, plain_release
};
static const struct x_builtin b_sort = {
	XB_SORT, "sort", "sort [-bdfghiMnrVcCmsuz] [-t SEP] [-k KEYDEF]... [FILE]...", sort_opts,
	sort_deny, XOP_FILES, 0, 1, sort_check, sort_release
};
static const struct x_builtin b_uniq = {
	XB_UNIQ, "uniq", "uniq [-cdDiuz] [-f N] [-s N] [-w N] [FILE]", uniq_opts, NULL, XOP_FILE,
	0, 1, uniq_check, plain_release
};
static const struct x_builtin b_cut = {
	XB_CUT, "cut", "cut -b LIST | -c LIST | -f LIST [-d DELIM] [-s] [--complement] "
	"[--output-delimiter STRING] [-z] [FILE]...", cut_opts, NULL, XOP_FILES, 0, 1, cut_check,
	cut_release
};
static const struct x_builtin b_grep = {
	XB_GREP, "grep", "grep [-EFGiwxvcloqnbhHsTZz] [-e PATTERN]... [-m N] [-A N] [-B N] [-C N] "
	"PATTERN [FILE]...", grep_opts, grep_deny, XOP_PATTERN, 'C', 1, grep_check, grep_release
};
static const struct x_builtin b_jq = {
	XB_JQ, "jq", "jq [-rjacCMSsRn] [--tab] [--indent N] [--seq] [--stream] "
	"[--arg NAME VALUE]... [--argjson NAME JSON]... [FILTER] [FILE]... "
	"[--args ARG... | --jsonargs JSON...]", jq_opts, jq_deny, XOP_FILTER, 0, 1,
	jq_check, jq_release
};
static const struct x_builtin b_curl = {
	XB_CURL, "curl", "curl [-sSLf] URL", curl_opts, curl_deny, XOP_URL, 0, 0,
	flags_check, plain_release
};

const struct x_builtin *const x_builtins[] = {
	&b_cat, &b_cut, &b_curl, &b_grep, &b_head, &b_jq, &b_nl, &b_sort, &b_tail, &b_uniq, &b_wc,
	NULL
};

const struct x_builtin *
x_builtin_find(const char *name)
{
	size_t i;

	for (i = 0; x_builtins[i] != NULL; i++)
		if (strcmp(x_builtins[i]->name, name) == 0)
			return x_builtins[i];
	return NULL;
}

const char *
x_builtin_names(void)
{
	return "cat, cut, curl, grep, head, jq, nl, sort, tail, uniq, wc";
}
