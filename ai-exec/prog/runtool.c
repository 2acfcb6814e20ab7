/*
 * runtool.c: the "run" tool: one allowed
 * program with literal arguments, decided by the policy, asked about when
 * its level says so, run, parsed, audited.
 *
 * L0 runs.  L2 is refused.  L1 runs when --approve L1 was given; without
 * it, the question goes to the controlling terminal (/dev/tty, and only
 * when this process is in its foreground), showing the program, its
 * arguments escaped, the working directory, the reason and the rule, and
 * waits at most X_ASK_SECONDS for "y"; with no terminal it is refused, as
 * with --approve L0.  Every refusal names the rule.
 *
 * A request (--max-runs) is one ai-exec process:
 * one --run, or one --serve, which ai-loop keeps for one user request.
 * Calls that ran, or that were put to the user, count; refusals do not.
 *
 * The audit log gets a "decision" line for every call and an "execution"
 * line for every call that ran, written before and after it runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../tool.h"
#include "json.h"
#include "msg.h"
#include "redact.h"
#include "text.h"
#include "util.h"
#include "banned.h"

#define X_ASK_SECONDS 120
#define X_TAIL_BYTES ((size_t)16 << 10)   /* bytes of each tail */
#define X_PARSED_ITEMS 50

static const char *const run_keys[] = { "program", "args", "cwd", "reason", "timeout", NULL };

void
x_runres_free(struct x_runres *r)
{
	free(r->cwd);
	x_launch_free(&r->l);
	cJSON_Delete(r->parsed);
	memset(r, 0, sizeof(*r));
}

int
x_run_args(const cJSON *a, struct x_runcall *call, struct ai_err *e)
{
	const cJSON *m, *args, *t;

	memset(call, 0, sizeof(*call));
	if (x_args_known(a, run_keys, "run takes program, args, cwd, reason and timeout", e) < 0)
		return -1;
	if (x_str_arg(a, "program", &call->program, e) < 0 ||
	    x_str_arg(a, "cwd", &call->cwd, e) < 0 || x_str_arg(a, "reason", &call->reason, e) < 0)
		return -1;
	if (call->program == NULL || call->program[0] == '\0')
		return ai_err_set(e, AI_EXIT_DATAERR, "argument 'program' is missing");
	args = ai_json_get(a, "args");
	if (args != NULL && !cJSON_IsNull(args)) {
		if (!cJSON_IsArray(args))
			return ai_err_set(e, AI_EXIT_DATAERR, "argument 'args' must be an array of strings");
		call->args = ai_xcalloc((size_t)cJSON_GetArraySize(args) + 1, sizeof(*call->args));
		cJSON_ArrayForEach(m, args) {
			if (!cJSON_IsString(m)) {
				free(call->args);
				call->args = NULL;
				call->nargs = 0;
				return ai_err_set(e, AI_EXIT_DATAERR,
				    "argument 'args' must be an array of strings");
			}
			call->args[call->nargs++] = m->valuestring;
		}
	}
	t = ai_json_get(a, "timeout");
	if (t != NULL && !cJSON_IsNull(t)) {
		if (!cJSON_IsNumber(t) || !(t->valuedouble > 0) || t->valuedouble > 86400) {
			free(call->args);
			call->args = NULL;
			call->nargs = 0;
			return ai_err_set(e, AI_EXIT_DATAERR,
			    "argument 'timeout' must be a number of seconds, more than 0 and at most 86400");
		}
		call->timeout_ms = (int64_t)(t->valuedouble * 1000);
		if (call->timeout_ms < 1)
			call->timeout_ms = 1;
	}
	return 0;
}

/* ---- showing a call to a person ---- */

/* One argument as a shell would need it quoted; control characters made visible. */
static void
shell_word(struct ai_buf *out, const char *s)
{
	struct ai_buf q = AI_BUF_INIT(AI_BUF_NOLIMIT);
	const char *p;

	if (*s != '\0' && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789%+,-./:=@_^") == strlen(s)) {
		ai_buf_adds(&q, s);
	} else {
		ai_buf_addc(&q, '\'');
		for (p = s; *p; p++)
			if (*p == '\'')
				ai_buf_adds(&q, "'\\''");
			else
				ai_buf_addc(&q, *p);
		ai_buf_addc(&q, '\'');
	}
	ai_term_sanitize(out, q.buf, q.len);
	ai_buf_release(&q);
}

static void
command_line(struct ai_buf *out, const struct x_runcall *call)
{
	size_t i;

	shell_word(out, call->program);
	for (i = 0; i < call->nargs; i++) {
		ai_buf_addc(out, ' ');
		shell_word(out, call->args[i]);
	}
}

/*
 * Ask on the controlling terminal: 1 yes, 0 no (or no answer in time), -1
 * when there is no terminal this process may use (none, or not in the
 * foreground).
 */
static int
ask(const struct x_runcall *call, const struct x_runres *r)
{
	struct ai_buf q = AI_BUF_INIT(AI_BUF_NOLIMIT), redacted = AI_BUF_INIT(AI_BUF_NOLIMIT);
	char answer[64];
	size_t got = 0;
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC), yes = 0;
	int64_t deadline;

	if (fd < 0)
		return -1;
	if (tcgetpgrp(fd) != getpgrp()) {
		close(fd);
		return -1;
	}
	ai_buf_addf(&q, "%s: run this program? level %s, rule '%s': ", ai_progname,
	    x_level_name(r->level), r->rule);
	ai_term_sanitize(&q, r->why, strlen(r->why));
	ai_buf_adds(&q, "\n  ");
	command_line(&q, call);
	ai_buf_adds(&q, "\n  in ");
	ai_term_sanitize(&q, r->cwd, strlen(r->cwd));
	ai_buf_adds(&q, "\n  reason: ");
	if (call->reason != NULL) {
		ai_redact(&redacted, call->reason, strlen(call->reason));
		ai_term_sanitize(&q, redacted.buf, redacted.len);
	} else {
		ai_buf_adds(&q, "(none given)");
	}
	ai_buf_adds(&q, "\nRun it? [y/N] ");
	if (ai_write_all(fd, q.buf, q.len) < 0) {
		close(fd);
		ai_buf_release(&q);
		ai_buf_release(&redacted);
		return -1;
	}
	deadline = ai_now_ms() + X_ASK_SECONDS * 1000;
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		int64_t left = deadline - ai_now_ms();
		ssize_t n;

		if (left <= 0) {
			static const char late[] = "\n(no answer: not run)\n";

			(void)!write(fd, late, sizeof(late) - 1);
			break;
		}
		if (poll(&p, 1, (int)left) <= 0)
			continue;
		n = read(fd, answer + got, sizeof(answer) - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			(void)!write(fd, "\n", 1); /* end of input: the next message on its own line */
			break;
		}
		got += (size_t)n;
		if (memchr(answer, '\n', got) != NULL || got == sizeof(answer) - 1)
			break;
	}
	answer[got] = '\0';
	answer[strcspn(answer, "\r\n")] = '\0';
	yes = strcasecmp(answer, "y") == 0 || strcasecmp(answer, "yes") == 0;
	close(fd);
	ai_buf_release(&q);
	ai_buf_release(&redacted);
	return yes;
}

/* ---- the audit log ---- */

static void
add_redacted(cJSON *obj, const char *key, const char *s)
{
	x_json_addredacted(obj, key, s, s != NULL ? strlen(s) : 0);
}

static cJSON *
audit_line(const char *event, uint64_t n, const struct x_runcall *call,
    const struct x_runres *r)
{
	cJSON *line = x_audit_begin("run"), *args;
	size_t i;

	ai_json_addstr(line, "event", event);
	ai_json_addnum(line, "call", (double)n);
	add_redacted(line, "id", call->id);
	add_redacted(line, "program", call->program);
	args = cJSON_AddArrayToObject(line, "args");
	for (i = 0; i < call->nargs; i++) {
		struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT), t = AI_BUF_INIT(AI_BUF_NOLIMIT);

		ai_redact(&b, call->args[i], strlen(call->args[i]));
		x_json_text(&t, b.buf, b.len);
		cJSON_AddItemToArray(args, cJSON_CreateString(t.buf));
		ai_buf_release(&b);
		ai_buf_release(&t);
	}
	add_redacted(line, "cwd", r->cwd ? r->cwd : call->cwd);
	add_redacted(line, "reason", call->reason);
	if (r->level >= 0)
		ai_json_addstr(line, "level", x_level_name(r->level));
	else
		ai_json_addnull(line, "level");
	add_redacted(line, "rule", r->rule);
	ai_json_addstr(line, "decision", r->decision);
	return line;
}

static int
audit_decision(struct x_ctx *c, uint64_t n, const struct x_runcall *call,
    const struct x_runres *r, struct ai_err *e)
{
	cJSON *line;

	if (c->audit.fd < 0)
		return 0;
	line = audit_line("decision", n, call, r);
	if (r->err.code) {
		add_redacted(line, "why", r->err.msg);
		ai_json_addstr(line, "error_kind", x_kind(r->err.code));
	}
	return x_audit_end(&c->audit, line, e);
}

static int
audit_execution(struct x_ctx *c, uint64_t n, const struct x_runcall *call,
    const struct x_runres *r, const char *path, struct ai_err *e)
{
	cJSON *line;

	if (c->audit.fd < 0)
		return 0;
	line = audit_line("execution", n, call, r);
	ai_json_addstr(line, "path", path);
	ai_json_addbool(line, "ok", r->ok);
	if (!r->ok)
		ai_json_addstr(line, "error_kind", x_kind(r->err.code));
	ai_json_addnum(line, "exit_code", r->l.exit_code);
	ai_json_addnum(line, "duration_ms", (double)r->l.duration_ms);
	ai_json_addbool(line, "timed_out", r->l.timed_out);
	ai_json_addnum(line, "stdout_bytes", (double)r->l.out_bytes);
	ai_json_addnum(line, "stderr_bytes", (double)r->l.err_bytes);
	ai_json_addstr(line, "sandbox", r->l.boxed ? "bubblewrap" : "none");
	return x_audit_end(&c->audit, line, e);
}

/* ---- the call ---- */

static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* argv as executed: the program's name, what is built in, the call's arguments. */
static void
build_argv(const struct x_prog *p, const struct x_runcall *call, struct x_argv *a)
{
	size_t i = 0;

	x_argv_add(a, p->name);
	if (p->harden == XH_GIT && call->nargs > 0) {
		x_argv_add(a, "--no-pager");
		x_argv_add(a, call->args[0]);
		x_git_after(call->args[0], a);
		i = 1;
	} else if (p->harden == XH_SED) {
		x_argv_add(a, "--sandbox");
	} else if (p->harden == XH_RG) {
		x_argv_add(a, "--no-config");
	}
	for (; i < call->nargs; i++)
		x_argv_add(a, call->args[i]);
}

static int
refused(struct x_ctx *c, uint64_t n, const struct x_runcall *call, struct x_runres *r,
    const char *decision, struct ai_err *e)
{
	r->ok = 0;
	r->decision = decision;
	return audit_decision(c, n, call, r, e);
}

/* Why a program's run failed: a limit it reached, or its own failure. */
static void
set_failure(struct x_runres *r, const struct x_prog *p, const struct x_runopts *ro)
{
	const struct x_launch *l = &r->l;
	char d[32];
	size_t i;

	if (l->timed_out) {
		ai_err_set(&r->err, AI_EXIT_TEMPFAIL,
		    "%s: did not finish within %s: stopped it and its process group", p->name,
		    ai_fmt_ms(l->duration_ms, d, sizeof(d)));
		return;
	}
	if (l->over_cap) {
		ai_err_set(&r->err, AI_EXIT_LIMIT, "%s: wrote more than %llu bytes on its standard "
		    "output and error (--max-output): stopped it", p->name,
		    (unsigned long long)ro->max_out);
		return;
	}
	if (l->over_tasks) {
		ai_err_set(&r->err, AI_EXIT_LIMIT, "%s: had more than %llu processes at a time "
		    "(--max-procs): stopped it and all it started", p->name,
		    (unsigned long long)ro->max_tasks);
		return;
	}
	for (i = 0; i < p->nok; i++)
		if (l->exit_code == p->ok[i]) {
			r->ok = 1;
			return;
		}
	if (l->exit_code == 128 + SIGXCPU || (l->exit_code == 128 + SIGKILL && l->usage &&
	    l->cpu_ms >= (long long)ro->max_cpu * 1000)) {
		ai_err_set(&r->err, AI_EXIT_LIMIT, "%s: used more than %llu s of CPU time "
		    "(--max-cpu): stopped it", p->name, (unsigned long long)ro->max_cpu);
		return;
	}
	/* a program that fails near its memory limit failed because of it (its allocation did) */
	if (l->usage && (uint64_t)l->maxrss_kib * 1024 >= ro->max_memory / 4 * 3) {
		ai_err_set(&r->err, AI_EXIT_LIMIT, "%s: reached its memory limit of %llu MiB "
		    "(--max-memory) and failed (%s %d)", p->name,
		    (unsigned long long)(ro->max_memory >> 20), l->exit_code > 128 ? "signal" :
		    "exit status", l->exit_code > 128 ? l->exit_code - 128 : l->exit_code);
		return;
	}
	if (l->exit_code > 128)
		ai_err_set(&r->err, AI_EXIT_FAIL, "%s: ended by signal %d", p->name,
		    l->exit_code - 128);
	else
		ai_err_set(&r->err, AI_EXIT_FAIL, "%s: exited with status %d", p->name,
		    l->exit_code);
}

/* The sandbox did not start, or the helper could not start the program in it. */
static void
not_started(struct x_runres *r, const struct x_prog *p)
{
	struct x_launch *l = &r->l;

	if (l->failed[0] != '\0') {
		ai_err_set(&r->err, AI_EXIT_OSERR, "%s: cannot be started in the sandbox: %s",
		    p->name, l->failed);
	} else {
		/* bubblewrap's own words: its last line of standard error */
		char msg[512];
		const char *s = l->err.buf, *end = s + l->err.len;

		while (end > s && (end[-1] == '\n' || end[-1] == '\r'))
			end--;
		s = end;
		while (s > l->err.buf && s[-1] != '\n')
			s--;
		ai_excerpt(s, (size_t)(end - s), msg, sizeof(msg));
		/* the usual cause, when bubblewrap says nothing or speaks of namespaces */
		ai_err_set(&r->err, AI_EXIT_CONFIG, "%s: bubblewrap could not start the sandbox "
		    "(%s, exit status %d)%s", p->name, msg[0] ? msg : "no message", l->exit_code,
		    msg[0] == '\0' || strstr(msg, "namespace") || strstr(msg, "not permitted") ?
		    ": user namespaces may be off or restricted (sysctl user.max_user_namespaces, "
		    "kernel.unprivileged_userns_clone, "
		    "kernel.apparmor_restrict_unprivileged_userns); --unconfined runs programs "
		    "without it" : "");
	}
	ai_buf_reset(&l->out);
	ai_buf_reset(&l->err);
	l->out_bytes = l->err_bytes = 0;
}

/* Output fit for a record: every secret the suite knows, and their like, replaced. */
static void
redact_output(struct ai_buf *b)
{
	struct ai_buf red = AI_BUF_INIT(AI_BUF_NOLIMIT);

	if (b->len == 0)
		return;
	ai_redact_output(&red, b->buf, b->len);
	if (red.len != b->len || memcmp(red.buf, b->buf, b->len) != 0) {
		size_t max = b->max;

		ai_buf_release(b);
		*b = red;
		b->max = max > red.len ? max : red.len;
	} else {
		ai_buf_release(&red);
	}
}

/* Run the decided program in its sandbox (or confined without); r->ran when it ran. */
static void
launch(struct x_ctx *c, const struct x_decision *d, const struct x_runcall *call,
    const struct x_argv *env, struct x_runres *r)
{
	struct x_runopts *ro = c->run;
	struct x_argv argv = { NULL, 0 };
	struct x_confine conf;
	struct x_spawn s;
	char *interp[2] = { NULL, NULL };
	struct x_outhint hint;

	build_argv(d->prog, call, &argv);
	memset(&conf, 0, sizeof(conf));
	conf.level = r->level;
	conf.network = d->network;
	conf.boxed = ro->sb != NULL;
	conf.cpu = ro->max_cpu;
	conf.memory = ro->max_memory;
	conf.tasks = ro->max_tasks;
	conf.write = r->level == XL_L1 ? ro->root : NULL;
	if (r->level == XL_L0) {
		/* what it may execute: itself, its interpreter, and that one's */
		interp[0] = x_interpreter(d->prog->path);
		interp[1] = interp[0] != NULL ? x_interpreter(interp[0]) : NULL;
		conf.exec[conf.nexec++] = d->prog->path;
		if (interp[0] != NULL)
			conf.exec[conf.nexec++] = interp[0];
		if (interp[1] != NULL)
			conf.exec[conf.nexec++] = interp[1];
	}
	memset(&s, 0, sizeof(s));
	s.box.root = ro->root;
	s.box.cwd = r->cwd;
	s.box.writable = r->level == XL_L1;
	s.box.network = d->network;
	s.box.tmp_size = ro->max_memory;
	s.box.conf = &conf;
	s.box.path = d->prog->path;
	s.box.argv = argv.v;
	s.sb = ro->sb;
	s.set = (const char *const *)env->v;
	s.search = c->progs->search;
	s.timeout_ms = call->timeout_ms > 0 && call->timeout_ms < ro->timeout_ms ?
	    call->timeout_ms : ro->timeout_ms;
	s.max_out = ro->max_out;
	if (x_launch_run(&s, &r->l, &r->err) < 0) {
		r->l.exit_code = -1;
	} else if (!r->l.started || r->l.failed[0] != '\0') {
		not_started(r, d->prog);
	} else {
		r->ran = 1;
		set_failure(r, d->prog, ro);
		if (ro->redact) {
			redact_output(&r->l.out);
			redact_output(&r->l.err);
		}
		x_outhint(base_name(d->prog->path), r->cwd, call->args, call->nargs, &hint);
		r->parsed = x_outparse(&hint, r->l.out.buf, r->l.out.len, X_PARSED_ITEMS);
	}
	free(interp[0]);
	free(interp[1]);
	x_argv_free(&argv);
}

int
x_tool_run(struct x_ctx *c, const struct x_runcall *call, struct x_runres *r, struct ai_err *e)
{
	struct x_runopts *ro = c->run;
	struct x_decision d;
	struct x_argv env = { NULL, 0 };
	uint64_t n;
	int rc;

	memset(r, 0, sizeof(*r));
	r->level = -1;
	r->l.exit_code = -1;
	n = ro != NULL ? ++ro->calls : 0;
	if (c->progs == NULL || ro == NULL) {
		ai_err_set(&r->err, AI_EXIT_UNAVAILABLE,
		    "the run tool is off: ai-exec was started without --policy");
		return refused(c, n, call, r, "unavailable", e);
	}
	if (x_decide(c->progs, ro->root, call->program, call->args, call->nargs, call->cwd, &d,
	    &r->err) < 0) {
		r->level = d.level;
		r->rule = d.rule;
		r->why = d.why;
		r->cwd = d.cwd;
		return refused(c, n, call, r, "refused", e);
	}
	r->decided = 1;
	r->level = d.level;
	r->rule = d.rule;
	r->why = d.why;
	r->cwd = d.cwd;
	if (d.prog->path == NULL) {
		ai_err_set(&r->err, AI_EXIT_UNAVAILABLE,
		    "%s: not found in the policy's directories (%s)", d.prog->name,
		    c->progs->search[0] ? c->progs->search : "none exists");
		return refused(c, n, call, r, "unavailable", e);
	}
	if (ro->runs >= ro->max_runs) {
		ai_err_set(&r->err, AI_EXIT_LIMIT,
		    "%s: the limit of %llu runs per request is reached (rule 'max-runs'; --max-runs)",
		    d.prog->name, (unsigned long long)ro->max_runs);
		return refused(c, n, call, r, "refused", e);
	}
	if (d.prog->harden == XH_GIT && x_git_setup(ro->root, r->cwd, d.sub, &env, &r->err) < 0) {
		r->rule = "git";
		x_argv_free(&env);
		return refused(c, n, call, r, "refused", e);
	}
	r->decision = "run";
	if (r->level == XL_L1) {
		int yes = ro->approve >= XL_L1 ? 1 : ro->approve == XL_L0 ? -2 : ask(call, r);

		if (yes != -2 && yes != -1)
			ro->runs++;
		if (yes == 1) {
			r->decision = ro->approve >= XL_L1 ? "approved" : "confirmed";
		} else {
			x_argv_free(&env);
			ai_err_set(&r->err, AI_EXIT_POLICY, yes == 0 ?
			    "%s: level L1 needs confirmation and the user declined (rule '%s': %s)" :
			    yes == -1 ? "%s: level L1 needs confirmation and there is no terminal to ask "
			    "(rule '%s': %s); --approve L1 allows it" :
			    "%s: level L1 is refused by --approve L0 (rule '%s': %s)",
			    d.prog->name, r->rule, r->why);
			return refused(c, n, call, r, yes == 0 ? "declined" : "refused", e);
		}
	} else {
		ro->runs++;
	}
	rc = audit_decision(c, n, call, r, e);
	if (rc < 0) {
		x_argv_free(&env);
		return -1;
	}
	launch(c, &d, call, &env, r);
	x_argv_free(&env);
	if (c->verbose && r->ran)
		ai_error("%s ran in %lld ms: exit %d, %llu bytes of output%s", d.prog->name,
		    (long long)r->l.duration_ms, r->l.exit_code,
		    (unsigned long long)r->l.out_bytes, r->l.boxed ? "" : " (not in the sandbox)");
	return audit_execution(c, n, call, r, d.prog->path, e);
}

/* ---- the record ---- */

/* Where the last lines of p[0..n) start: at most lines lines, X_TAIL_BYTES bytes. */
static size_t
tail_start(const char *p, size_t n, uint64_t lines)
{
	size_t i = n, start;
	uint64_t seen = 0;

	if (i > 0 && p[i - 1] == '\n')
		i--;
	while (i > 0) {
		if (p[i - 1] == '\n' && ++seen >= lines)
			break;
		i--;
	}
	start = lines == 0 ? n : i;
	if (n - start > X_TAIL_BYTES)
		start = ai_utf8_start(p, n, n - X_TAIL_BYTES);
	return start;
}

cJSON *
x_runres_record(const cJSON *id, const struct x_runcall *call, const struct x_runres *r,
    uint64_t tail)
{
	cJSON *rec = x_result_head(id, "run", r->ok, &r->err), *args;
	size_t i, so = 0, se = 0;

	x_json_addtext(rec, "program", call->program, strlen(call->program));
	args = cJSON_AddArrayToObject(rec, "args");
	for (i = 0; i < call->nargs; i++) {
		struct ai_buf t = AI_BUF_INIT(AI_BUF_NOLIMIT);

		x_json_text(&t, call->args[i], strlen(call->args[i]));
		cJSON_AddItemToArray(args, cJSON_CreateString(t.buf));
		ai_buf_release(&t);
	}
	if (r->cwd != NULL)
		x_json_addtext(rec, "cwd", r->cwd, strlen(r->cwd));
	else
		ai_json_addnull(rec, "cwd");
	if (r->level >= 0)
		ai_json_addstr(rec, "level", x_level_name(r->level));
	else
		ai_json_addnull(rec, "level");
	if (r->rule != NULL)
		ai_json_addstr(rec, "rule", r->rule);
	else
		ai_json_addnull(rec, "rule");
	if (r->ran)
		ai_json_addnum(rec, "exitCode", r->l.exit_code);
	else
		ai_json_addnull(rec, "exitCode");
	ai_json_addnum(rec, "durationMs", (double)r->l.duration_ms);
	if (r->ran) {
		so = tail_start(r->l.out.buf, r->l.out.len, tail);
		se = tail_start(r->l.err.buf, r->l.err.len, tail);
	}
	x_json_addtext(rec, "stdoutTail", r->l.out.buf + so, r->l.out.len - so);
	x_json_addtext(rec, "stderrTail", r->l.err.buf + se, r->l.err.len - se);
	ai_json_addbool(rec, "truncated", so > 0 || se > 0 || r->l.over_cap || r->l.err_cut);
	if (r->parsed != NULL)
		cJSON_AddItemToObject(rec, "parsed", cJSON_Duplicate(r->parsed, 1));
	else
		ai_json_addnull(rec, "parsed");
	return rec;
}
