/*
 * decide.c: the decision on a call of a program, made before
 * anything runs and explained by the rule that made it.
 *
 * In order: the program must be in the policy; a program with subcommands
 * must be given one of them first (so no option reaches it before the
 * subcommand: "git -c core.pager=...", "git -C /"); a program or subcommand
 * at L2 is refused whatever follows; every argument is checked against the
 * denied options and prefixes, wherever it stands (even as another
 * option's value, or after "--"), so that a wrong idea of which option takes
 * a value cannot hide one; then the arguments are read as the program reads
 * them: options must be in the allowlist (spelled out in full, values
 * attached or following as the rule says, short options grouped when the
 * program groups them), the other arguments are operands.  Every operand
 * and every option value (but those named TEXT) is taken as a path too, and
 * must stay inside the root.  The level is the command's, raised by the
 * options that have their own; the rule that set it is kept for the
 * messages, the question and the audit log.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prog.h"
#include "util.h"
#include "banned.h"

#define X_RUN_MAX_ARGS 256             /* arguments of one call */
#define X_RUN_MAX_ARGBYTES (128 << 10) /* their bytes, all together */

void
x_decision_free(struct x_decision *d)
{
	free(d->cwd);
	d->cwd = NULL;
}

/* A refusal by a rule: "PROG: MESSAGE (rule 'RULE': WHY)". */
static int
refuse(struct x_decision *d, struct ai_err *e, int code, const char *rule, const char *why,
    const char *fmt, ...) AI_PRINTF(6, 7);

static int
refuse(struct x_decision *d, struct ai_err *e, int code, const char *rule, const char *why,
    const char *fmt, ...)
{
	char msg[AI_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	d->rule = rule;
	d->why = why;
	if (why != NULL)
		return ai_err_set(e, code, "%s: %s (rule '%s': %s)", d->prog ? d->prog->name : "?",
		    msg, rule, why);
	return ai_err_set(e, code, "%s: %s (rule '%s')", d->prog ? d->prog->name : "?", msg, rule);
}

/* An argument quoted for a message: control characters escaped, long ones cut. */
static const char *
shown(const char *s, char *out, size_t n)
{
	return ai_excerpt(s, strlen(s), out, n);
}

/* The working directory of a call: a real directory inside the root. */
static int
work_dir(const char *root, const char *cwd, struct x_decision *d, struct ai_err *e)
{
	struct ai_buf want = AI_BUF_INIT(AI_BUF_NOLIMIT);
	char ex[200], *real;
	struct stat st;

	if (cwd == NULL) {
		char *here = getcwd(NULL, 0);

		/* the current directory, or the root when it lies outside */
		real = here ? realpath(here, NULL) : NULL;
		free(here);
		if (real != NULL && x_inside_root(root, "/", real)) {
			d->cwd = real;
			return 0;
		}
		free(real);
		d->cwd = ai_xstrdup(root);
		return 0;
	}
	if (cwd[0] == '/')
		ai_buf_adds(&want, cwd);
	else
		ai_buf_addf(&want, "%s/%s", root, cwd);
	shown(cwd, ex, sizeof(ex));
	if (!x_inside_root(root, root, want.buf)) {
		ai_buf_release(&want);
		return refuse(d, e, AI_EXIT_POLICY, "root", NULL,
		    "the working directory '%s' is outside the root '%s'", ex, root);
	}
	real = realpath(want.buf, NULL);
	ai_buf_release(&want);
	if (real == NULL || stat(real, &st) < 0 || !S_ISDIR(st.st_mode)) {
		int err = real ? ENOTDIR : errno;

		free(real);
		return refuse(d, e, AI_EXIT_POLICY, "root", NULL,
		    "cannot use the working directory '%s': %s", ex, strerror(err));
	}
	d->cwd = real;
	return 0;
}

static const struct x_denyrule *
deny_match(const struct x_cmd *c, const char *a, int groups)
{
	size_t i;

	for (i = 0; c != NULL && i < c->ndeny; i++) {
		const struct x_denyrule *r = &c->deny[i];
		size_t n = strlen(r->spell);

		if (strcmp(a, r->spell) == 0 || (r->prefix && strncmp(a, r->spell, n) == 0))
			return r;
		/* "--output=x"; and "-x" inside a group such as "-rxf" */
		if (n > 2 && strncmp(a, r->spell, n) == 0 && a[n] == '=')
			return r;
		if (groups && n == 2 && a[0] == '-' && a[1] != '-' && a[1] != '\0' &&
		    strchr(a + 1, r->spell[1]) != NULL)
			return r;
	}
	return NULL;
}

static const struct x_optrule *
opt_find(const struct x_cmd *c, const char *s, size_t n)
{
	size_t i;

	for (i = 0; c != NULL && i < c->nopts; i++)
		if (strlen(c->opts[i].spell) == n && memcmp(c->opts[i].spell, s, n) == 0)
			return &c->opts[i];
	return NULL;
}

/* The options a command allows, for a message. */
static void
list_opts(const struct x_cmd *a, const struct x_cmd *b, char *out, size_t n)
{
	struct ai_buf l = AI_BUF_INIT(AI_BUF_NOLIMIT);
	const struct x_cmd *both[2] = { a, b };
	size_t k, i;

	for (k = 0; k < 2; k++)
		for (i = 0; both[k] != NULL && i < both[k]->nopts; i++)
			ai_buf_addf(&l, "%s%s", l.len ? ", " : "", both[k]->opts[i].spell);
	if (l.len == 0)
		snprintf(out, n, "it allows no option");
	else if (l.len + 20 < n)
		snprintf(out, n, "it allows %s", l.buf);
	else
		snprintf(out, n, "it allows %.*s...", (int)(n - 24), l.buf);
	ai_buf_release(&l);
}

struct reader {
	const struct x_prog *p;
	const struct x_cmd *cmd;   /* the subcommand, or the program */
	const struct x_cmd *all;   /* the program's rules, when cmd is a subcommand */
	const char *root;
	struct x_decision *d;
	struct ai_err *e;
	int level;
	const char *rule, *why;
	struct ai_buf base;        /* what relative paths are taken against: cwd, then -C's */
	unsigned char seen[128];   /* the short options given ("-s" in "-sf" too) */
	const char *ops[X_RUN_MAX_ARGS]; /* the operands, as given */
	size_t nops;
};

static const struct x_optrule *
lookup(struct reader *r, const char *s, size_t n)
{
	const struct x_optrule *o = opt_find(r->cmd, s, n);

	return o != NULL ? o : opt_find(r->all, s, n);
}

static void
raise_to(struct reader *r, const struct x_optrule *o)
{
	if (o->level > r->level) {
		r->level = o->level;
		r->rule = o->rule;
		r->why = x_rule_why(o->why, o->level);
	}
}

/* A path taken against base must stay inside the root. */
static int
check_path_from(struct reader *r, const char *base, const char *v)
{
	char ex[200];

	if (x_inside_root(r->root, base, v))
		return 0;
	return refuse(r->d, r->e, AI_EXIT_POLICY, "root", NULL, "'%s' is outside the root '%s'",
	    shown(v, ex, sizeof(ex)), r->root);
}

/* An operand or an option's value: a path inside the root. */
static int
check_path(struct reader *r, const char *v)
{
	return check_path_from(r, r->base.buf, v);
}

/*
 * A value named DATA: text, but "@FILE" and "NAME@FILE" (curl -d, -H,
 * --data-urlencode) and "NAME=@FILE", "NAME=<FILE" (curl -F) read FILE,
 * which must be inside the root (up to a ';', where curl -F's options begin).
 */
static int
check_data(struct reader *r, const char *v)
{
	const char *at = strchr(v, '@'), *eq = strchr(v, '='), *f = NULL;

	if (at != NULL && (eq == NULL || at < eq))
		f = at + 1;
	else if (eq != NULL && (eq[1] == '@' || eq[1] == '<'))
		f = eq + 2;
	if (f != NULL) {
		struct ai_buf path = AI_BUF_INIT(AI_BUF_NOLIMIT);
		int rc;

		ai_buf_add(&path, f, strcspn(f, ";"));
		rc = check_path(r, path.len ? path.buf : ".");
		ai_buf_release(&path);
		return rc;
	}
	return 0;
}

/* A value named CHDIR: the directory the paths after it are taken against. */
static int
change_base(struct reader *r, const char *v)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);

	if (check_path(r, v) < 0)
		return -1;
	if (v[0] == '/')
		ai_buf_adds(&b, v);
	else
		ai_buf_addf(&b, "%s/%s", r->base.buf, v);
	ai_buf_release(&r->base);
	r->base = b;
	return 0;
}

/*
 * An option's value.  After a CHDIR value, a program may take another
 * option's path from either directory (tar opens its -f archive from the
 * working directory, make its -f makefile from -C's): it must stay inside
 * from both.
 */
static int
value_of(struct reader *r, const struct x_optrule *o, const char *v)
{
	if (v == NULL || o->text)
		return 0;
	if (o->data)
		return check_data(r, v);
	if (o->chdir)
		return change_base(r, v);
	if (strcmp(r->base.buf, r->d->cwd) != 0 && check_path_from(r, r->d->cwd, v) < 0)
		return -1;
	return check_path(r, v);
}

static int
not_allowed(struct reader *r, const char *what)
{
	char ex[120], list[600];

	list_opts(r->cmd, r->all, list, sizeof(list));
	return refuse(r->d, r->e, AI_EXIT_POLICY, r->cmd->rule, NULL, "option '%s' is not allowed; %s",
	    shown(what, ex, sizeof(ex)), list);
}

static int
needs_value(struct reader *r, const struct x_optrule *o)
{
	return refuse(r->d, r->e, AI_EXIT_DATAERR, r->cmd->rule, NULL, "option '%s' needs a value",
	    o->spell);
}

/* A group of short options, "-la", "-n5", "-vn" "5". */
static int
short_group(struct reader *r, char *const *args, size_t n, size_t *i)
{
	const char *a = args[*i];
	size_t k;

	for (k = 1; a[k]; k++) {
		char sp[3] = { '-', a[k], '\0' }, what[160];
		const struct x_optrule *o = lookup(r, sp, 2);

		if (o == NULL || o->arity == XA_NUMBER) {
			if (k == 1 && a[2] == '\0')
				return not_allowed(r, a);
			snprintf(what, sizeof(what), "%s' (in '%.100s", sp, a);
			return not_allowed(r, what);
		}
		r->seen[(unsigned char)a[k] & 127] = 1;
		raise_to(r, o);
		if (o->arity == XA_VALUE) {
			if (a[k + 1])
				return value_of(r, o, a + k + 1);
			if (*i + 1 >= n)
				return needs_value(r, o);
			return value_of(r, o, args[++*i]);
		}
		if (o->arity == XA_OPTVAL)
			return value_of(r, o, a[k + 1] ? a + k + 1 : NULL);
	}
	return 0;
}

/* Read the arguments after the subcommand as the program would. */
static int
read_args(struct reader *r, char *const *args, size_t n)
{
	int64_t operands = 0;
	int endopts = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		const char *a = args[i], *eq;
		const struct x_optrule *o;
		size_t len;

		if (endopts || a[0] != '-' || a[1] == '\0') {
			operands++;
			r->ops[r->nops++] = a;
			/* ln's operands are checked once all are read: a target is the link's */
			if (r->p->harden != XH_LN && check_path(r, a) < 0)
				return -1;
			continue;
		}
		if (r->p->dashdash && strcmp(a, "--") == 0) {
			endopts = 1;
			continue;
		}
		eq = a[1] == '-' ? strchr(a, '=') : NULL;
		len = eq ? (size_t)(eq - a) : strlen(a);
		o = lookup(r, a, len);
		if (o != NULL && o->arity != XA_NUMBER) {
			const char *v = eq ? eq + 1 : NULL;

			if (o->arity == XA_FLAG && eq != NULL)
				return refuse(r->d, r->e, AI_EXIT_DATAERR, r->cmd->rule, NULL,
				    "option '%s' takes no value", o->spell);
			if (o->arity == XA_VALUE && v == NULL) {
				if (i + 1 >= n)
					return needs_value(r, o);
				v = args[++i];
			}
			if (a[1] != '-' && a[2] == '\0')
				r->seen[(unsigned char)a[1] & 127] = 1;
			raise_to(r, o);
			if (value_of(r, o, v) < 0)
				return -1;
			continue;
		}
		if (a[1] >= '0' && a[1] <= '9' && strspn(a + 1, "0123456789") == strlen(a + 1) &&
		    (o = lookup(r, "-NUM", 4)) != NULL) {
			raise_to(r, o);
			continue;
		}
		if (r->p->groups && a[1] != '-') {
			if (short_group(r, args, n, &i) < 0)
				return -1;
			continue;
		}
		return not_allowed(r, a);
	}
	if (r->cmd->max_operands >= 0 && operands > r->cmd->max_operands)
		return refuse(r->d, r->e, AI_EXIT_POLICY, r->cmd->rule, NULL,
		    "%lld operands given; it takes at most %lld", (long long)operands,
		    (long long)r->cmd->max_operands);
	return 0;
}

/*
 * ln's operands.  A symbolic link's target is resolved against the link's
 * own directory, not the working directory: "ln -s ../x sub/lnk" points at
 * sub/../x.  The forms: ln TARGET (a link in the working directory), ln
 * TARGET LINK (LINK's directory, or LINK when it is a directory and -T is
 * not given), ln TARGET... DIR.  A hard link's target, and a symbolic
 * link's made relative by ln itself (-r), is taken from the working
 * directory; the link, or the directory, always is.
 */
static int
link_targets(struct reader *r)
{
	struct ai_buf dir = AI_BUF_INIT(AI_BUF_NOLIMIT);
	const char *last;
	struct stat st;
	size_t i, ntargets;
	int rc, symbolic = r->seen['s'] && !r->seen['r'];

	if (r->nops == 0)
		return 0;
	if (r->nops == 1)
		return check_path(r, r->ops[0]);
	last = r->ops[r->nops - 1];
	ntargets = r->nops - 1;
	if ((rc = check_path(r, last)) < 0)
		return rc;
	if (last[0] == '/')
		ai_buf_adds(&dir, last);
	else
		ai_buf_addf(&dir, "%s/%s", r->base.buf, last);
	if (r->nops == 2 && (r->seen['T'] || stat(dir.buf, &st) < 0 || !S_ISDIR(st.st_mode))) {
		/* LINK names the link itself: its directory */
		while (dir.len > 1 && dir.buf[dir.len - 1] == '/')
			ai_buf_truncate(&dir, dir.len - 1);
		ai_buf_truncate(&dir, (size_t)(strrchr(dir.buf, '/') - dir.buf));
		if (dir.len == 0)
			ai_buf_adds(&dir, "/");
	}
	for (i = 0; i < ntargets && rc == 0; i++)
		rc = symbolic ? check_path_from(r, dir.buf, r->ops[i]) : check_path(r, r->ops[i]);
	ai_buf_release(&dir);
	return rc;
}

static const struct x_cmd *
find_sub(const struct x_prog *p, const char *name, char *list, size_t n)
{
	struct ai_buf l = AI_BUF_INIT(AI_BUF_NOLIMIT);
	const struct x_cmd *found = NULL;
	size_t i, plen = strlen(p->name);

	for (i = 0; i < p->nsubs; i++) {
		const char *sub = p->subs[i].rule + plen + 1;

		if (name != NULL && strcmp(sub, name) == 0)
			found = &p->subs[i];
		ai_buf_addf(&l, "%s%s", i ? ", " : "", sub);
	}
	if (l.len + 20 < n)
		snprintf(list, n, "%s", l.buf);
	else
		snprintf(list, n, "%.*s...", (int)(n - 4), l.buf);
	ai_buf_release(&l);
	return found;
}

int
x_decide(const struct x_progs *ps, const char *root, const char *program, char *const *args,
    size_t nargs, const char *cwd, struct x_decision *d, struct ai_err *e)
{
	struct reader r;
	size_t i, bytes = 0, first = 0;
	char ex[120], list[600];
	const struct x_denyrule *dr;

	memset(d, 0, sizeof(*d));
	d->level = -1;
	if (nargs > X_RUN_MAX_ARGS)
		return ai_err_set(e, AI_EXIT_LIMIT, "%zu arguments: at most %d", nargs,
		    X_RUN_MAX_ARGS);
	for (i = 0; i < nargs; i++)
		bytes += strlen(args[i]) + 1;
	if (bytes > X_RUN_MAX_ARGBYTES)
		return ai_err_set(e, AI_EXIT_LIMIT, "the arguments are %zu bytes: at most %d", bytes,
		    X_RUN_MAX_ARGBYTES);
	d->prog = x_progs_find(ps, program);
	if (d->prog == NULL) {
		d->rule = "programs";
		return ai_err_set(e, AI_EXIT_POLICY,
		    "'%s' is not in the policy (rule 'programs': it allows %s)",
		    shown(program, ex, sizeof(ex)), ps->n ? ps->names : "no program");
	}
	memset(&r, 0, sizeof(r));
	r.p = d->prog;
	r.cmd = &d->prog->cmd;
	r.root = root;
	r.d = d;
	r.e = e;
	if (d->prog->nsubs > 0) {
		const struct x_cmd *sub = find_sub(d->prog, nargs ? args[0] : NULL, list, sizeof(list));

		if (nargs == 0 || args[0][0] == '-')
			return refuse(d, e, AI_EXIT_POLICY, d->prog->cmd.rule, NULL,
			    "%s%s%s comes before a subcommand; it must come first (one of %s)",
			    nargs ? "'" : "nothing", nargs ? shown(args[0], ex, sizeof(ex)) : "",
			    nargs ? "'" : "", list);
		if (sub == NULL)
			return refuse(d, e, AI_EXIT_POLICY, d->prog->cmd.rule, NULL,
			    "'%s' is not an allowed subcommand (one of %s)",
			    shown(args[0], ex, sizeof(ex)), list);
		r.cmd = sub;
		r.all = &d->prog->cmd;
		d->sub = args[0];
		first = 1;
	}
	d->cmd = r.cmd;
	r.level = r.cmd->level;
	r.rule = r.cmd->rule;
	r.why = x_rule_why(r.cmd->why, r.level);
	if (r.level == XL_L2) {
		d->level = XL_L2;
		return refuse(d, e, AI_EXIT_POLICY, r.rule, r.why, "refused at level L2");
	}
	for (i = first; i < nargs; i++)
		if ((dr = deny_match(r.all, args[i], d->prog->groups)) != NULL ||
		    (dr = deny_match(r.cmd, args[i], d->prog->groups)) != NULL) {
			d->level = XL_L2;
			return refuse(d, e, AI_EXIT_POLICY, dr->rule, x_rule_why(dr->why, XL_L2),
			    "'%s' is denied: refused at level L2", shown(args[i], ex, sizeof(ex)));
		}
	if (work_dir(root, cwd, d, e) < 0)
		return -1;
	ai_buf_init(&r.base, AI_BUF_NOLIMIT);
	ai_buf_adds(&r.base, d->cwd);
	if (read_args(&r, args + first, nargs - first) < 0 ||
	    (d->prog->harden == XH_LN && link_targets(&r) < 0)) {
		ai_buf_release(&r.base);
		return -1;
	}
	ai_buf_release(&r.base);
	d->network = r.cmd->network > 0 || (r.cmd->network < 0 && d->prog->cmd.network > 0);
	d->level = r.level;
	d->rule = r.rule;
	d->why = r.why;
	if (d->level == XL_L2)
		return refuse(d, e, AI_EXIT_POLICY, r.rule, r.why, "refused at level L2");
	return 0;
}
