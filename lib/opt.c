/* opt.c: the option parser and help printer. */
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "msg.h"
#include "template.h"
#include "num.h"
#include "util.h"
#include "banned.h"

/* The help's width, and the widest option column before a description. */
#define AI_HELP_WIDTH 80
#define AI_HELP_LEFT 28

void
ai_strlist_free(struct ai_strlist *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static int
takes_value(const struct ai_option *o)
{
	return o->type == AI_OPT_STR || o->type == AI_OPT_LIST || o->type == AI_OPT_U64 ||
	    o->type == AI_OPT_DOUBLE;
}

/* How the option was written, for messages: "--model" or "-m". */
static void
spelled(const struct ai_option *o, int as_long, char *out, size_t n)
{
	if (as_long || !o->short_name)
		snprintf(out, n, "--%s", o->long_name);
	else
		snprintf(out, n, "-%c", o->short_name);
}

/*
 * A parse that stores nothing but the value of one option (a dry run, to
 * find the template a command line names before the real parse).
 */
struct dry {
	const struct ai_option *want;
	const char *got;
};

static int
store(const struct ai_option *o, const char *val, int as_long, struct dry *dry,
    struct ai_err *e)
{
	char name[64];
	const char *why;

	if (dry != NULL) {
		if (o == dry->want && val != NULL)
			dry->got = val;
		return 0;
	}
	if (o->given != NULL)
		*o->given = 1;
	spelled(o, as_long, name, sizeof(name));
	switch (o->type) {
	case AI_OPT_FLAG:
		*(int *)o->value = 1;
		return 0;
	case AI_OPT_COUNT:
		(*(int *)o->value)++;
		return 0;
	case AI_OPT_STR:
		*(const char **)o->value = val;
		return 0;
	case AI_OPT_LIST: {
		struct ai_strlist *l = o->value;

		l->v = ai_xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
		l->v[l->n++] = val;
		return 0;
	}
	case AI_OPT_U64:
		if (ai_parse_u64(val, o->min, o->max, o->value, &why) < 0) {
			if (strcmp(why, "out of range") == 0)
				return ai_err_set(e, AI_EXIT_USAGE,
				    "option '%s': '%s' is out of range %llu..%llu", name, val,
				    (unsigned long long)o->min, (unsigned long long)o->max);
			return ai_err_set(e, AI_EXIT_USAGE, "option '%s': '%s': %s", name, val, why);
		}
		return 0;
	case AI_OPT_DOUBLE:
		if (ai_parse_double(val, o->dmin, o->dmax, o->value, &why) < 0) {
			if (strcmp(why, "out of range") == 0)
				return ai_err_set(e, AI_EXIT_USAGE,
				    "option '%s': '%s' is out of range %g..%g", name, val, o->dmin,
				    o->dmax);
			return ai_err_set(e, AI_EXIT_USAGE, "option '%s': '%s': %s", name, val, why);
		}
		return 0;
	default:
		return 0;
	}
}

/* Edit distance, to suggest the option the user probably meant. */
static size_t
distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, prev[64], cur[64];

	if (la >= 63 || lb >= 63)
		return 99;
	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t d = prev[j - 1] + (a[i - 1] != b[j - 1]);

			if (prev[j] + 1 < d)
				d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			cur[j] = d;
		}
		memcpy(prev, cur, (lb + 1) * sizeof(size_t));
	}
	return prev[lb];
}

static int
unknown_long(const struct ai_option *opts, const char *name, size_t len, struct ai_err *e)
{
	char given[64], ex[80];
	const struct ai_option *o, *best = NULL;
	size_t bestd = 3;

	snprintf(given, sizeof(given), "%.*s", (int)(len < 60 ? len : 60), name);
	for (o = opts; o->type != AI_OPT_END; o++) {
		size_t d;

		if (o->long_name == NULL)
			continue;
		/* an abbreviation counts as close */
		d = strncmp(o->long_name, given, strlen(given)) == 0 ? 1 : distance(given, o->long_name);
		if (d < bestd) {
			bestd = d;
			best = o;
		}
	}
	ai_excerpt(given, strlen(given), ex, sizeof(ex));
	if (best != NULL)
		return ai_err_set(e, AI_EXIT_USAGE, "unknown option '--%s' (did you mean '--%s'?)",
		    ex, best->long_name);
	return ai_err_set(e, AI_EXIT_USAGE, "unknown option '--%s'", ex);
}

static int
finish_type(const struct ai_option *o)
{
	if (o->type == AI_OPT_HELP)
		return AI_OPT_HELP_SHOWN;
	if (o->type == AI_OPT_VERSION)
		return AI_OPT_VERSION_SHOWN;
	if (o->type == AI_OPT_TEMPLATES)
		return AI_OPT_TEMPLATES_SHOWN;
	return AI_OPT_RUN;
}

static int
parse(const struct ai_command *cmd, int argc, char **argv, int *nops, char ***ops,
    struct dry *dry, struct ai_err *e)
{
	const struct ai_option *o;
	char **operands;
	int i, n = 0, result = AI_OPT_RUN, rest = 0;

	operands = argv + 1;
	for (i = 1; i < argc; i++) {
		char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			for (i++; i < argc; i++)
				operands[n++] = argv[i];
			break;
		}
		if (a[0] != '-' || a[1] == '\0') {
			operands[n++] = a;
			if (cmd->flags & AI_OPT_STOP_AT_OPERAND) {
				for (i++; i < argc; i++)
					operands[n++] = argv[i];
				break;
			}
			continue;
		}
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);

			for (o = cmd->options; o->type != AI_OPT_END; o++)
				if (o->long_name && strlen(o->long_name) == len &&
				    memcmp(o->long_name, name, len) == 0)
					break;
			if (o->type == AI_OPT_END)
				return unknown_long(cmd->options, name, len, e);
			if (takes_value(o)) {
				const char *val;

				if (eq)
					val = eq + 1;
				else if (i + 1 < argc)
					val = argv[++i];
				else
					return ai_err_set(e, AI_EXIT_USAGE, "option '--%s' needs a value",
					    o->long_name);
				if (store(o, val, 1, dry, e) < 0)
					return -1;
			} else {
				if (eq)
					return ai_err_set(e, AI_EXIT_USAGE,
					    "option '--%s' takes no value", o->long_name);
				if (store(o, NULL, 1, dry, e) < 0)
					return -1;
				if (result == AI_OPT_RUN)
					result = finish_type(o);
				if (o->rest) {
					for (i++; i < argc; i++)
						operands[n++] = argv[i];
					break;
				}
			}
			continue;
		}
		/* one or more short options */
		for (a++; *a; a++) {
			for (o = cmd->options; o->type != AI_OPT_END; o++)
				if (o->short_name && o->short_name == (unsigned char)*a)
					break;
			if (o->type == AI_OPT_END) {
				if ((unsigned char)*a < 0x20 || (unsigned char)*a >= 0x7f)
					return ai_err_set(e, AI_EXIT_USAGE, "unknown option");
				return ai_err_set(e, AI_EXIT_USAGE, "unknown option '-%c'", *a);
			}
			if (takes_value(o)) {
				const char *val;

				if (a[1])
					val = a + 1;
				else if (i + 1 < argc)
					val = argv[++i];
				else
					return ai_err_set(e, AI_EXIT_USAGE, "option '-%c' needs a value", *a);
				if (store(o, val, 0, dry, e) < 0)
					return -1;
				break;
			}
			if (store(o, NULL, 0, dry, e) < 0)
				return -1;
			if (result == AI_OPT_RUN)
				result = finish_type(o);
			if (o->rest)
				rest = 1;
		}
		if (rest) {
			for (i++; i < argc; i++)
				operands[n++] = argv[i];
			break;
		}
	}
	*nops = n;
	*ops = operands;
	return result;
}

int
ai_opt_parse(const struct ai_command *cmd, int argc, char **argv, int *nops, char ***ops,
    struct ai_err *e)
{
	return parse(cmd, argc, argv, nops, ops, NULL, e);
}

/* The command's template option (-t NAME), or NULL. */
static const struct ai_option *
template_option(const struct ai_command *cmd)
{
	const struct ai_option *o;

	for (o = cmd->options; o->type != AI_OPT_END; o++)
		if (o->type == AI_OPT_STR && o->complete == AI_COMPLETE_TEMPLATE)
			return o;
	return NULL;
}

/* The template argv names (the last one given), or NULL; argv is not changed. */
static const char *
named_template(const struct ai_command *cmd, const struct ai_option *to, int argc, char **argv)
{
	struct ai_err e = AI_ERR_INIT;
	struct dry dry = { to, NULL };
	char **copy = ai_xcalloc((size_t)argc + 1, sizeof(*copy)), **ops;
	int n;

	memcpy(copy, argv, (size_t)argc * sizeof(*copy));
	/* a command line the real parse refuses names no template: it will say why */
	if (parse(cmd, argc, copy, &n, &ops, &dry, &e) < 0)
		dry.got = NULL;
	free(copy);
	return dry.got;
}

/*
 * Apply the template the command line names: parse the arguments it stands
 * for before the command line's, so that the command line wins.  A template
 * may hold settings only: no operand, no other template, no --help.
 */
static int
apply_template(const struct ai_command *cmd, int argc, char **argv, struct ai_err *e)
{
	const struct ai_option *to = template_option(cmd);
	const char *name = to ? named_template(cmd, to, argc, argv) : NULL;
	char **targv, **ops;
	int targc, n, r;

	if (name == NULL)
		return 0;
	if (ai_template_args(cmd, name, &targc, &targv, e) < 0)
		return -1;
	if (named_template(cmd, to, targc, targv) != NULL)
		r = ai_err_set(e, AI_EXIT_CONFIG, "a template cannot name another template");
	else if ((r = parse(cmd, targc, targv, &n, &ops, NULL, e)) > AI_OPT_RUN)
		r = ai_err_set(e, AI_EXIT_CONFIG, "\"options\" may hold settings only, not --help, "
		    "--version or --templates");
	else if (r == AI_OPT_RUN && n > 0)
		r = ai_err_set(e, AI_EXIT_CONFIG, "\"options\" holds '%.40s', which is not an option "
		    "of %s", ops[0], ai_progname);
	if (r < 0) {
		ai_err_prefix(e, "template '%s' (%s)", name, ai_template_path());
		e->code = AI_EXIT_CONFIG;
		return -1;
	}
	return 0;
}

void
ai_opt_version(FILE *f)
{
	fprintf(f, "%s (aicli) %s\n", ai_progname, AI_VERSION);
}

/* Columns a string takes on a terminal: UTF-8 continuation bytes take none. */
static size_t
columns(const char *s, size_t n)
{
	size_t i, w = 0;

	for (i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			w++;
	return w;
}

/*
 * The length of the unit of text at s that must not be broken: a word, or
 * for a usage line a whole group in brackets or parentheses with its
 * alternatives ("[--tools FILE | --schema FILE]").
 */
static size_t
unit_len(const char *s, int groups)
{
	size_t i = 0;
	int depth = 0;

	for (; s[i] != '\0'; i++) {
		if (groups && (s[i] == '[' || s[i] == '('))
			depth++;
		else if (groups && (s[i] == ']' || s[i] == ')') && depth > 0)
			depth--;
		else if (s[i] == ' ' && depth == 0)
			break;
	}
	return i;
}

/*
 * Write text from column col (what is already on the line), wrapping at
 * AI_HELP_WIDTH and indenting each further line by indent; ends the line.
 * A unit longer than a whole line goes on a line of its own.
 */
static void
wrap(FILE *f, const char *text, size_t col, size_t indent, int groups)
{
	const char *p = text;
	int first = 1;

	while (*p == ' ')
		p++;
	while (*p != '\0') {
		size_t n = unit_len(p, groups), w = columns(p, n);

		if (!first && col + 1 + w > AI_HELP_WIDTH) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (!first) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, n, f);
		col += w;
		first = 0;
		p += n;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

void
ai_opt_help(const struct ai_command *cmd, FILE *f)
{
	const struct ai_option *o;
	size_t i, width = 0, lead = strlen("usage: ");

	for (i = 0; cmd->synopsis[i] != NULL; i++) {
		const char *s = cmd->synopsis[i];
		size_t name = unit_len(s, 0);

		/* the program's name, then its arguments wrapped under the first of them */
		fprintf(f, "%s%.*s ", i == 0 ? "usage: " : "       ", (int)name, s);
		wrap(f, s + name, lead + columns(s, name) + 1, lead + columns(s, name) + 1, 1);
	}
	if (cmd->summary) {
		fputc('\n', f);
		wrap(f, cmd->summary, 0, 0, 0);
	}
	for (o = cmd->options; o->type != AI_OPT_END; o++) {
		size_t w = 4 + (o->long_name ? strlen(o->long_name) + 2 : 0) +
		    (o->arg ? strlen(o->arg) + 1 : 0);

		if (w > width)
			width = w;
	}
	if (width > AI_HELP_LEFT)
		width = AI_HELP_LEFT;
	fprintf(f, "\nOptions:\n");
	for (o = cmd->options; o->type != AI_OPT_END; o++) {
		char left[128];
		int k;

		if (o->short_name && o->long_name)
			k = snprintf(left, sizeof(left), "-%c, --%s", o->short_name, o->long_name);
		else if (o->short_name)
			k = snprintf(left, sizeof(left), "-%c", o->short_name);
		else
			k = snprintf(left, sizeof(left), "    --%s", o->long_name);
		if (o->arg && k > 0 && (size_t)k < sizeof(left))
			snprintf(left + k, sizeof(left) - (size_t)k, " %s", o->arg);
		if (strlen(left) > width)
			fprintf(f, "  %s\n  %*s  ", left, (int)width, "");
		else
			fprintf(f, "  %-*s  ", (int)width, left);
		wrap(f, o->help ? o->help : "", width + 4, width + 4, 0);
	}
	fprintf(f, "\nSee %s(1).\n", ai_progname);
}

void
ai_opt_join(struct ai_buf *b, int nops, char **ops)
{
	int i;

	for (i = 0; i < nops; i++) {
		if (i > 0)
			ai_buf_addc(b, ' ');
		ai_buf_adds(b, ops[i]);
	}
}

void
ai_opt_usage_error(const struct ai_err *e)
{
	ai_err_print(e);
	ai_error("try '%s --help' for more information", ai_progname);
}

int
ai_opt_run(const struct ai_command *cmd, int argc, char **argv, int *nops, char ***ops,
    int *exitcode)
{
	struct ai_err e = AI_ERR_INIT;
	const char *shell = NULL;
	int r;

	/* the hidden completion option, alone on the command line */
	if (argc == 3 && strcmp(argv[1], "--aicli-completion") == 0)
		shell = argv[2];
	else if (argc == 2 && strncmp(argv[1], "--aicli-completion=", 19) == 0)
		shell = argv[1] + 19;
	if (shell != NULL) {
		if (ai_complete_print(cmd, shell, stdout) == 0) {
			*exitcode = AI_EXIT_OK;
			return 1;
		}
		ai_err_set(&e, AI_EXIT_USAGE, "option '--aicli-completion': '%s' is not bash, zsh "
		    "or fish", shell);
		ai_opt_usage_error(&e);
		*exitcode = AI_EXIT_USAGE;
		return 1;
	}
	if (apply_template(cmd, argc, argv, &e) < 0) {
		if (e.code == AI_EXIT_USAGE)
			ai_opt_usage_error(&e);
		else
			ai_err_print(&e);
		*exitcode = e.code;
		return 1;
	}
	r = ai_opt_parse(cmd, argc, argv, nops, ops, &e);
	switch (r) {
	case AI_OPT_RUN:
		return 0;
	case AI_OPT_HELP_SHOWN:
		ai_opt_help(cmd, stdout);
		*exitcode = AI_EXIT_OK;
		return 1;
	case AI_OPT_VERSION_SHOWN:
		ai_opt_version(stdout);
		*exitcode = AI_EXIT_OK;
		return 1;
	case AI_OPT_TEMPLATES_SHOWN:
		*exitcode = AI_EXIT_OK;
		if (ai_template_list(stdout, &e) < 0) {
			if (e.code != AI_EXIT_PIPE)
				ai_err_print(&e);
			*exitcode = e.code;
		}
		return 1;
	default:
		ai_opt_usage_error(&e);
		*exitcode = AI_EXIT_USAGE;
		return 1;
	}
}
