/*
 * spec.c: the built-ins as the parser sees them: each one's option
 * allowlist, the options refused with a reason (so that a model learns why
 * "sort -o" or "tail -f" are not there), its operands, and the check of its
 * option values.  Nothing here runs anything; the runtime is in text.c,
 * grep.c, jq.c and fetch.c, reached through run.c's table.
 */
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
enum { O_TAB = 256, O_INDENT, O_ARG, O_ARGJSON };

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

/* ---- cat ---- */

static const struct x_optspec cat_opts[] = {
	{ 'n', 'n', "number", 0, NULL },
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
	while ((p = next_opt(st, &i)) != NULL)
		o->number = 1;
	return 0;
}

/* ---- nl ---- */

static const struct x_optspec nl_opts[] = {
	{ 'b', 'b', "body-numbering", 1, "STYLE" },
	OPT_END
};

static int
nl_check(struct x_stage *st, struct ai_err *e)
{
	struct x_opts_nl *o = ai_xcalloc(1, sizeof(*o));
	const struct x_opt *p;
	size_t i = 0;

	st->priv = o;
	o->style = 't';
	while ((p = next_opt(st, &i)) != NULL) {
		if (strlen(p->val) != 1 || strchr("atn", p->val[0]) == NULL)
			return ai_err_set(e, AI_EXIT_DATAERR,
			    "%s: option '%s': the style is a (all lines), t (non-empty lines) or n (none)",
			    st->label, p->spelled);
		o->style = p->val[0];
	}
	return 0;
}

/* ---- head, tail ---- */

static const struct x_optspec head_opts[] = {
	{ 'n', 'n', "lines", 1, "N" },
	{ 'c', 'c', "bytes", 1, "N" },
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
	DENY_END
};

static int
ht_check(struct x_stage *st, struct ai_err *e)
{
	struct x_opts_ht *o = ai_xcalloc(1, sizeof(*o));
	const struct x_opt *p;
	size_t i = 0;

	st->priv = o;
	o->count = 10;
	while ((p = next_opt(st, &i)) != NULL) {
		const char *v = p->val;

		o->bytes = p->id == 'c';
		o->from_start = 0;
		if (st->b->id == XB_TAIL && v[0] == '+') {
			o->from_start = 1;
			v++;
		}
		if (x_number(st, p->spelled, v, &o->count, e) < 0)
			return -1;
	}
	return 0;
}

/* ---- wc ---- */

static const struct x_optspec wc_opts[] = {
	{ 'l', 'l', "lines", 0, NULL },
	{ 'w', 'w', "words", 0, NULL },
	{ 'c', 'c', "bytes", 0, NULL },
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
		else
			o->bytes = 1;
	}
	if (!o->lines && !o->words && !o->bytes)
		o->lines = o->words = o->bytes = 1;
	return 0;
}

/* ---- sort ---- */

static const struct x_optspec sort_opts[] = {
	{ 'r', 'r', "reverse", 0, NULL },
	{ 'n', 'n', "numeric-sort", 0, NULL },
	{ 'u', 'u', "unique", 0, NULL },
	{ 'f', 'f', "ignore-case", 0, NULL },
	{ 't', 't', "field-separator", 1, "SEP" },
	{ 'k', 'k', "key", 1, "KEY" },
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
	{ "-R", "it reads random data" },
	{ "--random-sort", "it reads random data" },
	DENY_END
};

/* Parse "N[nrf]" at *s; advances *s. */
static int
key_part(const char **s, size_t *field, struct x_sortkey *k)
{
	uint64_t v = 0;
	const char *p = *s;

	if (*p < '0' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > 1000000)
			return -1;
		p++;
	}
	*field = (size_t)v;
	for (; *p && *p != ','; p++) {
		if (*p == 'n')
			k->numeric = 1;
		else if (*p == 'r')
			k->reverse = 1;
		else if (*p == 'f')
			k->fold = 1;
		else
			return -1;
		k->own = 1;
	}
	*s = p;
	return 0;
}

static int
sort_check(struct x_stage *st, struct ai_err *e)
{
	struct x_opts_sort *o = ai_xcalloc(1, sizeof(*o));
	const struct x_opt *p;
	size_t i = 0;

	st->priv = o;
	o->sep = -1;
	while ((p = next_opt(st, &i)) != NULL) {
		switch (p->id) {
		case 'r':
			o->reverse = 1;
			break;
		case 'n':
			o->numeric = 1;
			break;
		case 'u':
			o->unique = 1;
			break;
		case 'f':
			o->fold = 1;
			break;
		case 't':
			if (strlen(p->val) != 1)
				return ai_err_set(e, AI_EXIT_DATAERR,
				    "%s: option '%s': the separator must be one byte", st->label,
				    p->spelled);
			o->sep = (unsigned char)p->val[0];
			break;
		default: {
			struct x_sortkey k;
			const char *s = p->val;

			memset(&k, 0, sizeof(k));
			if (key_part(&s, &k.sf, &k) < 0 || k.sf == 0 ||
			    (*s == ',' && (s++, key_part(&s, &k.ef, &k) < 0 || k.ef == 0)) || *s)
				return ai_err_set(e, AI_EXIT_DATAERR,
				    "%s: option '%s': '%s' is not a key: give FIELD or FIELD,FIELD "
				    "(fields from 1), optionally followed by n, r or f", st->label,
				    p->spelled, p->val);
			o->keys = ai_xrealloc(o->keys, (o->nkeys + 1) * sizeof(*o->keys));
			o->keys[o->nkeys++] = k;
			break;
		}
		}
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
	{ 'u', 'u', "unique", 0, NULL },
	{ 'i', 'i', "ignore-case", 0, NULL },
	OPT_END
};

static int
uniq_check(struct x_stage *st, struct ai_err *e)
{
	struct x_opts_uniq *o = ai_xcalloc(1, sizeof(*o));
	const struct x_opt *p;
	size_t i = 0;

	st->priv = o;
	while ((p = next_opt(st, &i)) != NULL) {
		if (p->id == 'c')
			o->count = 1;
		else if (p->id == 'd')
			o->repeated = 1;
		else if (p->id == 'u')
			o->unique = 1;
		else
			o->icase = 1;
	}
	if (st->nops > 1)
		return ai_err_set(e, AI_EXIT_POLICY,
		    "%s: a second operand names an output file: not allowed (nothing is written)",
		    st->label);
	return 0;
}

/* ---- cut ---- */

static const struct x_optspec cut_opts[] = {
	{ 'f', 'f', "fields", 1, "LIST" },
	{ 'd', 'd', "delimiter", 1, "DELIM" },
	{ 'b', 'b', "bytes", 1, "LIST" },
	{ 'c', 'c', "characters", 1, "LIST" },
	{ 's', 's', "only-delimited", 0, NULL },
	OPT_END
};

/* A LIST: N, N-M, N- or -M, separated by commas; numbered from 1. */
static int
cut_list(struct x_stage *st, const struct x_opt *p, struct x_opts_cut *o, struct ai_err *e)
{
	const char *s = p->val;

	free(o->r);
	o->r = NULL;
	o->nr = 0;
	for (;;) {
		struct x_range r = { 1, UINT64_MAX };
		const char *end = s + strcspn(s, ",");
		const char *dash = memchr(s, '-', (size_t)(end - s));
		char a[24], b[24];
		const char *why;
		size_t la = dash ? (size_t)(dash - s) : (size_t)(end - s);
		size_t lb = dash ? (size_t)(end - dash - 1) : 0;

		if (la >= sizeof(a) || lb >= sizeof(b) || (la == 0 && lb == 0))
			goto bad;
		memcpy(a, s, la);
		a[la] = '\0';
		memcpy(b, dash ? dash + 1 : "", lb);
		b[lb] = '\0';
		if (la > 0 && ai_parse_u64(a, 1, INT64_MAX, &r.lo, &why) < 0)
			goto bad;
		if (lb > 0 && ai_parse_u64(b, 1, INT64_MAX, &r.hi, &why) < 0)
			goto bad;
		if (!dash)
			r.hi = r.lo;
		if (r.hi < r.lo)
			return ai_err_set(e, AI_EXIT_DATAERR, "%s: option '%s': decreasing range in '%s'",
			    st->label, p->spelled, p->val);
		o->r = ai_xrealloc(o->r, (o->nr + 1) * sizeof(*o->r));
		o->r[o->nr++] = r;
		if (*end == '\0')
			return 0;
		s = end + 1;
	}
bad:
	return ai_err_set(e, AI_EXIT_DATAERR,
	    "%s: option '%s': '%s' is not a list: give N, N-M, N- or -M, separated by commas "
	    "(numbered from 1)", st->label, p->spelled, p->val);
}

static int
cut_check(struct x_stage *st, struct ai_err *e)
{
	struct x_opts_cut *o = ai_xcalloc(1, sizeof(*o));
	const struct x_opt *p;
	int mode = 0, delim = 0;
	size_t i = 0;

	st->priv = o;
	o->delim = '\t';
	while ((p = next_opt(st, &i)) != NULL) {
		if (p->id == 'd') {
			if (strlen(p->val) != 1)
				return ai_err_set(e, AI_EXIT_DATAERR,
				    "%s: option '%s': the delimiter must be one byte", st->label, p->spelled);
			o->delim = p->val[0];
			delim = 1;
		} else if (p->id == 's') {
			o->only_delimited = 1;
		} else {
			if (mode && mode != p->id)
				return ai_err_set(e, AI_EXIT_DATAERR,
				    "%s: only one of -f, -b and -c may be given", st->label);
			mode = p->id;
			if (cut_list(st, p, o, e) < 0)
				return -1;
		}
	}
	if (!mode)
		return ai_err_set(e, AI_EXIT_DATAERR, "%s: give -f LIST, -b LIST or -c LIST",
		    st->label);
	o->fields = mode == 'f';
	if (!o->fields && (delim || o->only_delimited))
		return ai_err_set(e, AI_EXIT_DATAERR, "%s: -d and -s go with -f only", st->label);
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
	{ 'i', 'i', "ignore-case", 0, NULL },
	{ 'v', 'v', "invert-match", 0, NULL },
	{ 'n', 'n', "line-number", 0, NULL },
	{ 'c', 'c', "count", 0, NULL },
	{ 'F', 'F', "fixed-strings", 0, NULL },
	{ 'E', 'E', "extended-regexp", 0, NULL },
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
	{ "--exclude-from", "it reads a second file" },
	{ "-P", "Perl regular expressions can run for a very long time" },
	{ "--perl-regexp", "Perl regular expressions can run for a very long time" },
	DENY_END
};

static int
grep_check(struct x_stage *st, struct ai_err *e)
{
	struct x_opts_grep *o = ai_xcalloc(1, sizeof(*o));
	const struct x_opt *p;
	size_t i = 0;
	int matcher = 0;

	st->priv = o;
	while ((p = next_opt(st, &i)) != NULL) {
		switch (p->id) {
		case 'i':
			o->icase = 1;
			break;
		case 'v':
			o->invert = 1;
			break;
		case 'n':
			o->number = 1;
			break;
		case 'c':
			o->count = 1;
			break;
		default:
			if (matcher && matcher != p->id)
				return ai_err_set(e, AI_EXIT_DATAERR, "%s: -F and -E conflict", st->label);
			matcher = p->id;
			o->fixed = p->id == 'F';
			break;
		}
	}
	if (st->arg == NULL)
		return ai_err_set(e, AI_EXIT_DATAERR,
		    "%s: a PATTERN is needed (grep [-ivncFE] PATTERN [FILE]...)", st->label);
	if (!o->fixed) {
		const char *s;

		for (s = st->arg; *s; s++) {
			if (*s == '\\' && s[1] >= '1' && s[1] <= '9')
				return ai_err_set(e, AI_EXIT_DATAERR,
				    "%s: back-references ('\\%c') are not supported", st->label, s[1]);
			if (*s == '\\' && s[1])
				s++;
		}
	}
	return 0;
}

/* ---- jq ---- */

static const struct x_optspec jq_opts[] = {
	{ 'r', 'r', "raw-output", 0, NULL },
	{ 'j', 'j', "join-output", 0, NULL },
	{ 'c', 'c', "compact-output", 0, NULL },
	{ 's', 's', "slurp", 0, NULL },
	{ 'n', 'n', "null-input", 0, NULL },
	{ 'S', 'S', "sort-keys", 0, NULL },
	{ 'a', 'a', "ascii-output", 0, NULL },
	{ O_TAB, 0, "tab", 0, NULL },
	{ O_INDENT, 0, "indent", 1, "N" },
	{ O_ARG, 0, "arg", 2, "NAME VALUE" },
	{ O_ARGJSON, 0, "argjson", 2, "NAME JSON" },
	OPT_END
};

static const struct x_deny jq_deny[] = {
	{ "-f", "it reads the filter from a file" },
	{ "--from-file", "it reads the filter from a file" },
	{ "-L", "it reads modules from a directory" },
	{ "--slurpfile", "it reads a second file" },
	{ "--rawfile", "it reads a second file" },
	{ "--run-tests", "it reads a file" },
	{ "--args", "positional arguments are not supported" },
	{ "--jsonargs", "positional arguments are not supported" },
	{ "-e", "the exit status is the pipeline's" },
	{ "--exit-status", "the exit status is the pipeline's" },
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

static int
jq_check(struct x_stage *st, struct ai_err *e)
{
	struct x_opts_jq *o = ai_xcalloc(1, sizeof(*o));
	const struct x_opt *p;
	size_t i = 0;

	st->priv = o;
	o->indent = -1;
	while ((p = next_opt(st, &i)) != NULL) {
		switch (p->id) {
		case 'r':
			o->raw = 1;
			break;
		case 'j':
			o->raw = o->join = 1;
			break;
		case 'c':
			o->compact = 1;
			break;
		case 's':
			o->slurp = 1;
			break;
		case 'n':
			o->null_input = 1;
			break;
		case 'S':
			o->sort = 1;
			break;
		case 'a':
			o->ascii = 1;
			break;
		case O_TAB:
			o->tab = 1;
			break;
		case O_INDENT: {
			uint64_t v;

			if (x_number(st, p->spelled, p->val, &v, e) < 0)
				return -1;
			if (v > 7)
				return ai_err_set(e, AI_EXIT_DATAERR, "%s: option '--indent': at most 7",
				    st->label);
			o->indent = (int)v;
			o->tab = 0;
			break;
		}
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
	if (st->arg == NULL)
		st->arg = ".";
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
	XB_CAT, "cat", "cat [-n] [FILE]...", cat_opts, NULL, XOP_FILES, 0, 1,
	cat_check, plain_release
};
static const struct x_builtin b_nl = {
	XB_NL, "nl", "nl [-b a|t|n] [FILE]...", nl_opts, NULL, XOP_FILES, 0, 1,
	nl_check, plain_release
};
static const struct x_builtin b_head = {
	XB_HEAD, "head", "head [-n N | -c N] [FILE]", head_opts, NULL, XOP_FILE, 1, 1,
	ht_check, plain_release
};
static const struct x_builtin b_tail = {
	XB_TAIL, "tail", "tail [-n [+]N | -c [+]N] [FILE]", head_opts, tail_deny, XOP_FILE, 1, 1,
	ht_check, plain_release
};
static const struct x_builtin b_wc = {
	XB_WC, "wc", "wc [-lwc] [FILE]...", wc_opts, wc_deny, XOP_FILES, 0, 1,
	wc_check, plain_release
};
static const struct x_builtin b_sort = {
	XB_SORT, "sort", "sort [-rnuf] [-t SEP] [-k KEY]... [FILE]...", sort_opts, sort_deny,
	XOP_FILES, 0, 1, sort_check, sort_release
};
static const struct x_builtin b_uniq = {
	XB_UNIQ, "uniq", "uniq [-cdui] [FILE]", uniq_opts, NULL, XOP_FILE, 0, 1,
	uniq_check, plain_release
};
static const struct x_builtin b_cut = {
	XB_CUT, "cut", "cut -f LIST [-d DELIM] [-s] | -b LIST | -c LIST [FILE]...", cut_opts, NULL,
	XOP_FILES, 0, 1, cut_check, cut_release
};
static const struct x_builtin b_grep = {
	XB_GREP, "grep", "grep [-ivncFE] PATTERN [FILE]...", grep_opts, grep_deny, XOP_PATTERN,
	0, 1, grep_check, plain_release
};
static const struct x_builtin b_jq = {
	XB_JQ, "jq", "jq [-rjcsnSa] [--tab] [--indent N] [--arg NAME VALUE]... "
	"[--argjson NAME JSON]... [FILTER] [FILE]...", jq_opts, jq_deny, XOP_FILTER, 0, 1,
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
