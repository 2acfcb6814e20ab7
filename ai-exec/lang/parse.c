/*
 * parse.c: words into a checked pipeline.
 *
 * Each stage's first word must be a built-in's name.  Its options are read
 * against the built-in's allowlist, as GNU tools read them (grouped short
 * options, "-n5" and "-n 5", long options spelled out in full, "--" ends
 * them, options may follow operands); anything else is refused with the
 * list of what is allowed.  Its FILE operands must be listed files, its URL
 * an allowed one.  Only when every stage passes does anything run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang.h"
#include "util.h"
#include "banned.h"

/* "-f, -k KEY, -n" for messages. */
static void
allowed_list(const struct x_builtin *b, char *out, size_t n)
{
	const struct x_optspec *o;
	size_t len = 0;

	out[0] = '\0';
	for (o = b->opts; o->sname || o->lname; o++) {
		const struct x_optspec *p;
		int k;

		for (p = b->opts; p < o && p->id != o->id; p++)
			;
		if (p < o)
			continue; /* another spelling of an option already listed */

		if (o->sname)
			k = snprintf(out + len, n - len, "%s-%c%s%s", len ? ", " : "", o->sname,
			    o->arg ? " " : "", o->arg ? o->arg : "");
		else
			k = snprintf(out + len, n - len, "%s--%s%s%s%s", len ? ", " : "", o->lname,
			    o->arg ? (o->nargs < 0 ? "[=" : " ") : "", o->arg ? o->arg : "",
			    o->arg && o->nargs < 0 ? "]" : "");
		if (k < 0 || (size_t)k >= n - len)
			break;
		len += (size_t)k;
	}
	if (len == 0)
		snprintf(out, n, "none");
}

static int
refuse_option(const struct x_stage *st, const char *spelled, struct ai_err *e)
{
	const struct x_deny *d;
	char allowed[640], ex[64];

	allowed_list(st->b, allowed, sizeof(allowed));
	ai_excerpt(spelled, strlen(spelled), ex, sizeof(ex));
	for (d = st->b->deny; d != NULL && d->spelling != NULL; d++)
		if (strcmp(d->spelling, spelled) == 0)
			return ai_err_set(e, AI_EXIT_POLICY,
			    "%s: option '%s' is not allowed: %s (allowed: %s)", st->label, ex, d->why,
			    allowed);
	return ai_err_set(e, AI_EXIT_POLICY, "%s: unknown option '%s' (allowed: %s)", st->label, ex,
	    allowed);
}

static void
add_opt(struct x_stage *st, int id, const char *spelled, const char *val, const char *val2)
{
	st->opts = ai_xrealloc(st->opts, (st->nopts + 1) * sizeof(*st->opts));
	st->opts[st->nopts].id = id;
	st->opts[st->nopts].spelled = spelled;
	st->opts[st->nopts].val = val;
	st->opts[st->nopts].val2 = val2;
	st->nopts++;
}

/* Static spellings for messages: "-n" for each byte, "--name" from the table. */
static const char *
short_spelling(const struct x_optspec *o)
{
	static char names[128][3];
	unsigned char c = (unsigned char)o->sname;

	if (c >= 128)
		return "-?";
	names[c][0] = '-';
	names[c][1] = (char)c;
	names[c][2] = '\0';
	return names[c];
}

static int
all_digits(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/*
 * A long option at w[*i] ("--name" or "--name=value").  The word is cut at
 * its '=' so that it reads "--name" in messages; the value stays after it.
 */
static int
long_option(struct x_stage *st, struct x_word *w, size_t nw, size_t *i, struct ai_err *e)
{
	char *word = w[*i].s, *a = word + 2, *eq = strchr(a, '=');
	size_t len = eq ? (size_t)(eq - a) : strlen(a);
	const struct x_optspec *o;
	const char *val = NULL, *val2 = NULL;

	if (eq != NULL)
		*eq = '\0';
	for (o = st->b->opts; o->sname || o->lname; o++)
		if (o->lname && strlen(o->lname) == len && memcmp(o->lname, a, len) == 0)
			break;
	if (!o->sname && !o->lname)
		return refuse_option(st, word, e);
	if (o->nargs == 0 && eq)
		return ai_err_set(e, AI_EXIT_DATAERR, "%s: option '%s' takes no value", st->label,
		    word);
	if (o->nargs < 0) {
		/* an optional value, only ever attached: "--color=never" */
		add_opt(st, o->id, word, eq ? eq + 1 : NULL, NULL);
		return 0;
	}
	if (o->nargs >= 1) {
		if (eq)
			val = eq + 1;
		else if (*i + 1 < nw)
			val = w[++*i].s;
		else
			return ai_err_set(e, AI_EXIT_DATAERR, "%s: option '%s' needs %s", st->label,
			    word, o->arg);
	}
	if (o->nargs == 2) {
		if (*i + 1 < nw)
			val2 = w[++*i].s;
		else
			return ai_err_set(e, AI_EXIT_DATAERR, "%s: option '%s' needs %s", st->label,
			    word, o->arg);
	}
	add_opt(st, o->id, word, val, val2);
	return 0;
}

/* A group of short options at w[*i] ("-in", "-n5"). */
static int
short_options(struct x_stage *st, struct x_word *w, size_t nw, size_t *i, struct ai_err *e)
{
	const char *a = w[*i].s + 1;

	for (; *a; a++) {
		const struct x_optspec *o;

		for (o = st->b->opts; o->sname || o->lname; o++)
			if (o->sname && o->sname == *a)
				break;
		if (!o->sname && !o->lname) {
			char sp[3] = { '-', *a, '\0' };

			return refuse_option(st, sp, e);
		}
		if (o->nargs == 0) {
			add_opt(st, o->id, short_spelling(o), NULL, NULL);
			continue;
		}
		if (a[1] != '\0') {
			add_opt(st, o->id, short_spelling(o), a + 1, NULL);
		} else if (*i + 1 < nw) {
			add_opt(st, o->id, short_spelling(o), w[++*i].s, NULL);
		} else {
			return ai_err_set(e, AI_EXIT_DATAERR, "%s: option '-%c' needs %s", st->label,
			    *a, o->arg);
		}
		return 0;
	}
	return 0;
}

/* The message for a first word that is not a built-in. */
static int
not_builtin(const char *name, struct ai_err *e)
{
	const char *slash = strrchr(name, '/'), *eq = strchr(name, '=');
	char ex[80];

	ai_excerpt(name, strlen(name), ex, sizeof(ex));
	if (eq != NULL && eq > name) {
		size_t i, n = (size_t)(eq - name);
		int ident = !(name[0] >= '0' && name[0] <= '9');

		for (i = 0; i < n; i++)
			if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
			    (name[i] >= '0' && name[i] <= '9') || name[i] == '_'))
				ident = 0;
		if (ident)
			return ai_err_set(e, AI_EXIT_POLICY,
			    "assignments ('%.*s=...') are not allowed: nothing is expanded",
			    (int)(n < 40 ? n : 40), name);
	}
	if (slash != NULL) {
		if (x_builtin_find(slash + 1) != NULL)
			return ai_err_set(e, AI_EXIT_POLICY,
			    "'%s' is a path: ai-exec never runs programs; use the built-in '%s'", ex,
			    slash + 1);
		return ai_err_set(e, AI_EXIT_POLICY,
		    "'%s' is a path: ai-exec never runs programs (built-ins: %s)", ex,
		    x_builtin_names());
	}
	return ai_err_set(e, AI_EXIT_POLICY,
	    "'%s' is not a built-in: ai-exec never runs programs (built-ins: %s)", ex,
	    x_builtin_names());
}

/* Resolve the FILE operands ops[file_from..file_to) against the listed files. */
static int
resolve_files(struct x_stage *st, const struct x_policy *pol, struct ai_err *e)
{
	size_t k;

	for (k = st->file_from; k < st->file_to && k < st->nops; k++) {
		int idx;

		if (strcmp(st->ops[k], "-") == 0)
			return ai_err_set(e, AI_EXIT_DATAERR,
			    "%s: '-' (standard input) is not an operand here: leave the FILEs out to "
			    "read the previous stage's output", st->label);
		idx = x_policy_file(pol, st->ops[k]);
		if (idx < 0) {
			x_policy_refuse_file(pol, st->ops[k], e);
			ai_err_prefix(e, "%s", st->label);
			return -1;
		}
		st->files = ai_xrealloc(st->files, (st->nfiles + 1) * sizeof(*st->files));
		st->fnames = ai_xrealloc(st->fnames, (st->nfiles + 1) * sizeof(*st->fnames));
		st->files[st->nfiles] = idx;
		st->fnames[st->nfiles++] = st->ops[k];
	}
	return 0;
}

static int
parse_stage(struct x_stage *st, struct x_word *w, size_t nw, const struct x_policy *pol,
    struct ai_err *e)
{
	int ddash = 0;
	size_t i;

	st->b = x_builtin_find(w[0].s);
	if (st->b == NULL)
		return not_builtin(w[0].s, e);
	for (i = 1; i < nw; i++) {
		const char *a = w[i].s;

		if (!ddash && strcmp(a, "--") == 0) {
			ddash = 1;
		} else if (!ddash && a[0] == '-' && a[1] != '\0') {
			int rc;

			rc = 0;
			if (st->b->numeric_count && all_digits(a + 1)) {
				/* "-20": head and tail only as their first word (tail: before one FILE at most) */
				if (st->b->numeric_count == 'n' && (i != 1 || (st->b->id == XB_TAIL &&
				    (nw > 3 || (nw == 3 && w[2].s[0] == '-' && w[2].s[1] != '\0')))))
					return ai_err_set(e, AI_EXIT_DATAERR, st->b->id == XB_TAIL ?
					    "%s: option used in invalid context -- %s" :
					    "%s: invalid trailing option -- %s", st->label, a + 1);
				add_opt(st, st->b->numeric_count, a, a + 1, NULL);
			}
			else if (a[1] == '-')
				rc = long_option(st, w, nw, &i, e);
			else
				rc = short_options(st, w, nw, &i, e);
			if (rc < 0)
				return -1;
		} else if (i == 1 && st->b->id == XB_TAIL && a[0] == '+' && all_digits(a + 1) &&
		    (nw == 2 || (nw == 3 && w[2].s[0] != '-'))) {
			/* the old "tail +N [FILE]": from line N */
			add_opt(st, 'n', a, a, NULL);
		} else {
			st->ops = ai_xrealloc(st->ops, (st->nops + 1) * sizeof(*st->ops));
			st->ops[st->nops++] = a;
		}
	}
	st->file_from = 0;
	st->file_to = st->nops;
	if (st->b->check(st, e) < 0)
		return -1;
	switch (st->b->operands) {
	case XOP_FILE:
		if (st->nops > 1)
			return ai_err_set(e, AI_EXIT_DATAERR, "%s: at most one FILE (%s)", st->label,
			    st->b->synopsis);
		return resolve_files(st, pol, e);
	case XOP_FILES:
	case XOP_PATTERN:
	case XOP_FILTER:
		return resolve_files(st, pol, e);
	case XOP_URL:
		if (st->nops != 1)
			return ai_err_set(e, AI_EXIT_DATAERR, "%s: one URL is needed (%s)", st->label,
			    st->b->synopsis);
		if (x_policy_url(pol, st->ops[0], &st->url, e) < 0) {
			ai_err_prefix(e, "%s", st->label);
			return -1;
		}
		return 0;
	default:
		if (st->nops > 0)
			return ai_err_set(e, AI_EXIT_DATAERR, "%s: no operands are taken", st->label);
		return 0;
	}
}

/* Whether a stage with no FILE reads the previous stage's output. */
static int
reads_previous(const struct x_stage *st)
{
	if (!st->b->reads_input || st->nfiles > 0)
		return 0;
	if (st->b->id == XB_JQ && ((const struct x_opts_jq *)st->priv)->null_input)
		return 0;
	return 1;
}

/* The "file" argument: a file the command reads, or the input of a bare cat. */
static int
apply_hint(struct x_pipeline *pl, const char *hint, const struct x_policy *pol,
    struct ai_err *e)
{
	struct x_stage *first = &pl->stages[0];
	int idx = x_policy_file(pol, hint);
	char ex[160];
	size_t i, k;

	if (idx < 0) {
		x_policy_refuse_file(pol, hint, e);
		ai_err_prefix(e, "argument 'file'");
		return -1;
	}
	for (i = 0; i < pl->nstages; i++)
		for (k = 0; k < pl->stages[i].nfiles; k++)
			if (pl->stages[i].files[k] == idx)
				return 0;
	if (first->b->id == XB_CAT && first->nops == 0) {
		first->files = ai_xmalloc(sizeof(*first->files));
		first->fnames = ai_xmalloc(sizeof(*first->fnames));
		first->files[0] = idx;
		first->fnames[0] = hint;
		first->nfiles = 1;
		return 0;
	}
	ai_excerpt(hint, strlen(hint), ex, sizeof(ex));
	return ai_err_set(e, AI_EXIT_DATAERR,
	    "argument 'file' names '%s', which the command does not read: give it as an operand, "
	    "or start with 'cat' and no operand", ex);
}

int
x_parse(const char *cmd, size_t n, const char *hint, const struct x_policy *pol,
    struct x_pipeline *pl, struct ai_err *e)
{
	size_t i, start, count = 1;

	memset(pl, 0, sizeof(*pl));
	if (x_lex(cmd, n, &pl->words, &pl->nwords, e) < 0)
		return -1;
	for (i = 0; i < pl->nwords; i++)
		if (pl->words[i].s == NULL)
			count++;
	pl->stages = ai_xcalloc(count, sizeof(*pl->stages));
	pl->nstages = count;
	for (i = 0, start = 0; i < count; i++) {
		struct x_stage *st = &pl->stages[i];
		size_t end = start;

		while (end < pl->nwords && pl->words[end].s != NULL)
			end++;
		st->index = (unsigned)i + 1;
		st->col = pl->words[start].col;
		if (count == 1)
			snprintf(st->label, sizeof(st->label), "%.40s", pl->words[start].s);
		else
			snprintf(st->label, sizeof(st->label), "stage %u (%.24s)", (unsigned)(i % 100) + 1,
			    pl->words[start].s);
		if (parse_stage(st, pl->words + start, end - start, pol, e) < 0)
			goto fail;
		if (st->b->id == XB_CURL) {
			pl->uses_net = 1;
			if (i > 0) {
				ai_err_set(e, AI_EXIT_DATAERR,
				    "%s: curl must be the first command: it reads no input", st->label);
				goto fail;
			}
		}
		start = end + 1;
	}
	if (hint != NULL && apply_hint(pl, hint, pol, e) < 0)
		goto fail;
	if (reads_previous(&pl->stages[0])) {
		const struct x_stage *st = &pl->stages[0];

		ai_err_set(e, AI_EXIT_DATAERR,
		    "%s has no input: the first command reads a FILE (%s) or fetches a URL (curl URL)",
		    st->label, st->b->synopsis);
		goto fail;
	}
	return 0;
fail:
	x_pipeline_free(pl);
	return -1;
}

void
x_pipeline_free(struct x_pipeline *pl)
{
	size_t i;

	for (i = 0; i < pl->nstages; i++) {
		struct x_stage *st = &pl->stages[i];

		if (st->b != NULL && st->b->release != NULL)
			st->b->release(st);
		free(st->opts);
		free(st->ops);
		free(st->files);
		free(st->fnames);
		free(st->url);
	}
	free(pl->stages);
	x_words_free(pl->words, pl->nwords);
	memset(pl, 0, sizeof(*pl));
}
