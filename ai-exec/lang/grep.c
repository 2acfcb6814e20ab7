/*
 * grep.c: grep [-ivncFE] PATTERN [FILE]...
 *
 * Fixed strings (-F), and POSIX extended regular expressions otherwise
 * (there is no basic-regex mode; -E is the default).  Matching is by bytes
 * (the C locale): -i folds ASCII letters.  A pattern without regex
 * metacharacters is searched as a fixed string with memmem over the whole
 * input, so that only matching lines cost anything.  Back-references are
 * refused by the parser: with them, glibc's matcher can take exponential
 * time; everything else is bounded by the child's CPU limit anyway.
 *
 * Exit status as grep's: 0 when a line was selected, 1 when none was.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang.h"
#include "util.h"
#include "banned.h"

struct grep_rt {
	regex_t re;
	int compiled;
	char *fixed;       /* the pattern when searched as a fixed string */
	size_t flen;
	struct ai_buf low; /* the input folded to lower case, for -i fixed strings */
};

static int
has_meta(const char *s)
{
	return strpbrk(s, ".[]()*+?{}|^$\\") != NULL;
}

static void
lower(char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] >= 'A' && p[i] <= 'Z')
			p[i] = (char)(p[i] + 32);
}

int
x_prepare_grep(struct x_stage *st, struct x_run *x, struct ai_err *e)
{
	const struct x_opts_grep *o = st->priv;
	struct grep_rt *rt = ai_xcalloc(1, sizeof(*rt));
	int rc;

	(void)x;
	st->rt = rt;
	ai_buf_init(&rt->low, AI_BUF_NOLIMIT);
	if (o->fixed || !has_meta(st->arg)) {
		rt->flen = strlen(st->arg);
		rt->fixed = ai_xmemdup(st->arg, rt->flen);
		if (o->icase)
			lower(rt->fixed, rt->flen);
		return 0;
	}
	rc = regcomp(&rt->re, st->arg, REG_EXTENDED | REG_NOSUB | (o->icase ? REG_ICASE : 0));
	if (rc != 0) {
		char why[256];

		regerror(rc, &rt->re, why, sizeof(why));
		return ai_err_set(e, rc == REG_ESPACE ? AI_EXIT_LIMIT : AI_EXIT_DATAERR,
		    "%s: bad regular expression: %s", st->label, why);
	}
	rt->compiled = 1;
	return 0;
}

/* Whether line[0..len) matches. */
static int
match(struct grep_rt *rt, const char *line, size_t len)
{
	regmatch_t m;

	if (rt->fixed != NULL)
		return rt->flen == 0 || memmem(line, len, rt->fixed, rt->flen) != NULL;
	m.rm_so = 0;
	m.rm_eo = (regoff_t)len;
	return regexec(&rt->re, line, 1, &m, REG_STARTEND) == 0;
}

struct out {
	struct x_run *x;
	struct x_stage *st;
	const char *name; /* prefix, with several files */
	uint64_t count;
};

static int
selected_line(struct out *w, const struct x_opts_grep *o, uint64_t no, const char *line,
    size_t len)
{
	w->count++;
	if (o->count)
		return 0;
	if (w->name != NULL && (x_emit(w->x, w->st, w->name, strlen(w->name)) < 0 ||
	    x_emit(w->x, w->st, ":", 1) < 0))
		return -1;
	if (o->number && x_emitf(w->x, w->st, "%llu:", (unsigned long long)no) < 0)
		return -1;
	if (x_emit(w->x, w->st, line, len) < 0 || x_emit(w->x, w->st, "\n", 1) < 0)
		return -1;
	return 0;
}

static uint64_t
count_lf(const char *p, size_t n)
{
	const char *end = p + n;
	uint64_t k = 0;

	while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		k++;
		p++;
	}
	return k;
}

/*
 * The fast path: a fixed string, no -v.  memmem finds the next hit; only the
 * lines around hits are looked at (and counted, for -n).
 */
static int
grep_fixed(struct grep_rt *rt, const struct x_opts_grep *o, struct out *w, const char *p,
    size_t n, const char *hay)
{
	size_t off = 0, counted = 0;
	uint64_t no = 1;

	while (off < n) {
		const char *hit = memmem(hay + off, n - off, rt->fixed, rt->flen), *lf;
		size_t ls, le;

		if (hit == NULL)
			break;
		ls = (size_t)(hit - hay);
		while (ls > off && hay[ls - 1] != '\n')
			ls--;
		lf = memchr(hit, '\n', n - (size_t)(hit - hay));
		le = lf ? (size_t)(lf - hay) : n;
		if (o->number) {
			no += count_lf(hay + counted, ls - counted);
			counted = ls;
		}
		if (selected_line(w, o, no, p + ls, le - ls) < 0)
			return -1;
		off = le + 1;
	}
	return 0;
}

static int
grep_data(struct grep_rt *rt, const struct x_opts_grep *o, struct out *w, const char *p,
    size_t n)
{
	const char *hay = p, *line;
	size_t off = 0, len;
	uint64_t no = 0;

	if (rt->fixed != NULL && o->icase && rt->flen > 0) {
		ai_buf_reset(&rt->low);
		ai_buf_add(&rt->low, p, n);
		lower(rt->low.buf, n);
		hay = rt->low.buf;
	}
	if (rt->fixed != NULL && !o->invert && rt->flen > 0)
		return grep_fixed(rt, o, w, p, n, hay);
	while (x_next_line(p, n, &off, &line, &len)) {
		int m = match(rt, hay + (line - p), len);

		no++;
		if (m != o->invert && selected_line(w, o, no, line, len) < 0)
			return -1;
	}
	return 0;
}

int
x_run_grep(struct x_stage *st, struct x_run *x)
{
	const struct x_opts_grep *o = st->priv;
	struct grep_rt *rt = st->rt;
	struct out w = { x, st, NULL, 0 };
	uint64_t total = 0;
	size_t i;

	if (st->nfiles == 0) {
		if (grep_data(rt, o, &w, x->in.p, x->in.n) < 0)
			return XR_ABORT;
		if (o->count && x_emitf(x, st, "%llu\n", (unsigned long long)w.count) < 0)
			return XR_ABORT;
		return w.count > 0 ? XR_OK : XR_NONE;
	}
	for (i = 0; i < st->nfiles; i++) {
		ai_buf_reset(&x->files_in);
		if (x_read_file(x, st, st->files[i], &x->files_in) < 0)
			return XR_ABORT;
		w.name = st->nfiles > 1 ? x->pol->files[st->files[i]].name : NULL;
		w.count = 0;
		if (grep_data(rt, o, &w, x->files_in.buf, x->files_in.len) < 0)
			return XR_ABORT;
		if (o->count) {
			if (w.name != NULL && x_emitf(x, st, "%s:", w.name) < 0)
				return XR_ABORT;
			if (x_emitf(x, st, "%llu\n", (unsigned long long)w.count) < 0)
				return XR_ABORT;
		}
		total += w.count;
	}
	return total > 0 ? XR_OK : XR_NONE;
}

void
x_release_grep(struct x_stage *st)
{
	struct grep_rt *rt = st->rt;

	if (rt->compiled)
		regfree(&rt->re);
	free(rt->fixed);
	ai_buf_release(&rt->low);
	free(rt);
	st->rt = NULL;
}
