/*
 * child.c: ai-loop's children, all driven from one poll loop.
 *
 * Every child leads its own session (no terminal to read from or prompt
 * on; a terminal's ^C reaches only ai-loop, which ends its children in
 * order), gets SIGTERM if ai-loop dies, and has stdin, stdout and stderr on
 * pipes that are never blocking: a child that writes a lot while ai-loop is
 * still feeding it cannot deadlock either side.  Each gets only the
 * environment its tool needs.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loop.h"
#include "msg.h"
#include "record.h"
#include "util.h"
#include "banned.h"

extern char **environ;

/* ---- signals ---- */

static volatile sig_atomic_t caught;
static int sig_pipe[2] = { -1, -1 };
/* the children's process groups, for a second signal that cannot wait */
#define MAX_LIVE 64
static volatile pid_t live_pids[MAX_LIVE];

/*
 * The first SIGINT, SIGTERM or SIGHUP is noted and wakes the poll loop,
 * which then stops the children, flushes what is due and ends ai-loop by the
 * same signal.  A second one (ai-loop stuck writing to a reader that does
 * not read) ends the children and ai-loop at once.
 */
static void
on_signal(int sig)
{
	int saved = errno;
	size_t i;

	if (caught) {
		for (i = 0; i < MAX_LIVE; i++)
			if (live_pids[i] > 0)
				kill(-live_pids[i], SIGKILL);
		signal(sig, SIG_DFL);
		raise(sig);
	}
	caught = sig;
	(void)!write(sig_pipe[1], "", 1);
	errno = saved;
}

void
child_setup(void)
{
	struct sigaction sa;

	if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		sig_pipe[0] = sig_pipe[1] = -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int
child_caught(void)
{
	return caught;
}

static void
live_add(pid_t pid)
{
	size_t i;

	for (i = 0; i < MAX_LIVE; i++)
		if (live_pids[i] == 0) {
			live_pids[i] = pid;
			return;
		}
}

static void
live_del(pid_t pid)
{
	size_t i;

	for (i = 0; i < MAX_LIVE; i++)
		if (live_pids[i] == pid)
			live_pids[i] = 0;
}

/* ---- the environment ---- */

/* Each tool's own settings; a child sees its own and no other tool's. */
static const char *const model_vars[] = { "OPENAI_*", "AICLI_OPENAI_*", "ANTHROPIC_*",
	"OLLAMA_*", "GEMINI_*", "AICLI_MODEL", "AICLI_PROVIDER", NULL };
static const char *const search_vars[] = { "GOOGLE_*", "BRAVE_*", "TAVILY_*", "EXA_*",
	"AICLI_SEARCH_*", "AICLI_SEARXNG_*", NULL };
/* Names that hold secrets, whoever they belong to (compared ignoring case). */
static const char *const secret_vars[] = { "*_API_KEY", "*_KEY", "*_TOKEN", "*_SECRET",
	"*SECRET*", "*PASSWORD*", "*PASSWD*", "*CREDENTIAL*", NULL };

static int
matches(const char *name, const char *const *pats, int flags)
{
	size_t i;

	for (i = 0; pats[i] != NULL; i++)
		if (fnmatch(pats[i], name, flags) == 0)
			return 1;
	return 0;
}

/*
 * Whether a child of this kind keeps the variable: its own tool's settings
 * (keys included) stay; another tool's settings and anything that looks
 * like a secret go.  ai-exec keeps nothing of the suite's (it reads no
 * configuration) and no secret at all.
 */
static int
keep_var(int kind, const char *name)
{
	int model = matches(name, model_vars, 0), search = matches(name, search_vars, 0);

	if ((kind == KIND_ASK || kind == KIND_CONTEXT) && model)
		return 1;
	if (kind == KIND_SEARCH && search)
		return 1;
	if (model || search || matches(name, secret_vars, FNM_CASEFOLD))
		return 0;
	if (kind == KIND_EXEC && strncmp(name, "AICLI_", 6) == 0)
		return 0;
	return 1;
}

/* The entries of environ a child keeps, then extra; a name in extra replaces ours. */
static const char **
child_env(int kind, const char *const *extra)
{
	size_t n = 0, k = 0, i, j;
	const char **env;

	for (i = 0; environ[i] != NULL; i++)
		n++;
	for (i = 0; extra != NULL && extra[i] != NULL; i++)
		n++;
	env = ai_xcalloc(n + 1, sizeof(*env));
	for (i = 0; environ[i] != NULL; i++) {
		const char *eq = strchr(environ[i], '=');
		char name[256];
		size_t len = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
		int replaced = 0;

		if (eq == NULL || len >= sizeof(name))
			continue;
		memcpy(name, environ[i], len);
		name[len] = '\0';
		for (j = 0; extra != NULL && extra[j] != NULL; j++)
			if (strncmp(extra[j], environ[i], len + 1) == 0)
				replaced = 1;
		if (!replaced && keep_var(kind, name))
			env[k++] = environ[i];
	}
	for (i = 0; extra != NULL && extra[i] != NULL; i++)
		env[k++] = extra[i];
	env[k] = NULL;
	return env;
}

/* ---- argument vectors ---- */

void
args_add(struct args *a, const char *s)
{
	if (a->n + 2 > a->alloc) {
		a->alloc = a->alloc ? 2 * a->alloc : 32;
		a->v = ai_xrealloc(a->v, a->alloc * sizeof(*a->v));
	}
	a->v[a->n++] = (char *)s;
	a->v[a->n] = NULL;
}

void
args_opt(struct args *a, const char *flag, const char *value)
{
	if (value != NULL) {
		args_add(a, flag);
		args_add(a, value);
	}
}

void
args_free(struct args *a)
{
	free(a->v);
	memset(a, 0, sizeof(*a));
}

/* ---- jobs ---- */

static int
feed_line(void *ctx, const char *line, size_t len, struct ai_err *e)
{
	struct job *j = ctx;

	return j->on_line(j, line, len, e);
}

int
job_start(struct job *j, const char *name, int kind, const char *path, char **argv,
    const char *const *env_extra, int inherit_err, job_line_fn on_line, void *ctx,
    struct ai_err *e)
{
	const char **env = child_env(kind, env_extra);
	int rc;

	memset(j, 0, sizeof(*j));
	j->name = name;
	j->kind = kind;
	j->on_line = on_line;
	j->ctx = ctx;
	j->deadline = -1;
	j->code = -1;
	ai_buf_init(&j->q, AI_BUF_NOLIMIT);
	ai_buf_init(&j->err, AI_BUF_NOLIMIT);
	ai_lines_init(&j->out, AI_LINES_LF, (size_t)16 << 20);
	j->c.path = path;
	j->c.argv = argv;
	j->c.env_set = env;
	j->c.env_clear = 1;
	j->c.in = AI_FD_PIPE;
	j->c.out = AI_FD_PIPE;
	j->c.err = inherit_err ? AI_FD_INHERIT : AI_FD_PIPE;
	j->c.new_session = 1;
	j->c.die_with_parent = 1;
	fflush(stderr);
	rc = ai_child_start(&j->c, e);
	free(env);
	if (rc < 0)
		return -1;
	j->started = j->live = 1;
	live_add(j->c.pid);
	fcntl(j->c.in_fd, F_SETFL, O_NONBLOCK);
	fcntl(j->c.out_fd, F_SETFL, O_NONBLOCK);
	if (j->c.err_fd >= 0)
		fcntl(j->c.err_fd, F_SETFL, O_NONBLOCK);
	return 0;
}

void
job_send(struct job *j, const char *p, size_t n)
{
	ai_buf_add(&j->q, p, n);
}

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void
job_close_input(struct job *j)
{
	j->close_in = 1;
	if (j->q.len == 0)
		close_fd(&j->c.in_fd);
}

static void
reaped(struct job *j)
{
	ai_child_close(&j->c);
	live_del(j->c.pid);
	j->live = 0;
	j->code = ai_child_exit_code(&j->c);
}

void
job_kill(struct job *j)
{
	if (!j->live)
		return;
	ai_child_kill(&j->c, 500);
	reaped(j);
}

void
job_free(struct job *j)
{
	if (!j->started)
		return;
	job_kill(j);
	ai_buf_release(&j->q);
	ai_buf_release(&j->err);
	ai_lines_release(&j->out);
	j->started = 0;
}

/* Keep the last JOB_ERR_TAIL bytes of its stderr. */
static void
keep_err(struct job *j, const char *p, size_t n)
{
	if (n > JOB_ERR_TAIL) {
		p += n - JOB_ERR_TAIL;
		n = JOB_ERR_TAIL;
	}
	if (j->err.len + n > JOB_ERR_TAIL)
		ai_buf_consume(&j->err, j->err.len + n - JOB_ERR_TAIL);
	ai_buf_add(&j->err, p, n);
}

static void
do_write(struct job *j)
{
	ssize_t w;

	do
		w = write(j->c.in_fd, j->q.buf, j->q.len);
	while (w < 0 && errno == EINTR);
	if (w > 0)
		ai_buf_consume(&j->q, (size_t)w);
	if (w < 0 && errno != EAGAIN) {
		/* it stopped reading (it ended): what it says next tells why */
		ai_buf_reset(&j->q);
		close_fd(&j->c.in_fd);
		return;
	}
	if (j->q.len == 0 && j->close_in)
		close_fd(&j->c.in_fd);
}

/* Read what is there; at the end of its stdout a last line without LF still counts. */
static int
do_read(struct job *j, int *fd, int is_out, struct ai_err *e)
{
	char chunk[65536];
	ssize_t r;

	do
		r = read(*fd, chunk, sizeof(chunk));
	while (r < 0 && errno == EINTR);
	if (r < 0 && errno == EAGAIN)
		return 0;
	if (r <= 0) {
		close_fd(fd);
		if (is_out && ai_lines_end(&j->out, feed_line, j, NULL, e) < 0)
			return -1;
		return 0;
	}
	if (!is_out) {
		keep_err(j, chunk, (size_t)r);
		return 0;
	}
	if (ai_lines_feed(&j->out, chunk, (size_t)r, feed_line, j, e) < 0) {
		if (e->code == AI_EXIT_DATAERR && strncmp(e->msg, "line ", 5) == 0) {
			/* a line past the cap */
			ai_err_prefix(e, "cannot read the output of '%s'", j->name);
			e->code = AI_EXIT_PROTOCOL;
		}
		return -1;
	}
	return 0;
}

/* Both its outputs are at their end: it is ending, reap it (killing it if it lingers). */
static void
finish(struct job *j)
{
	int64_t left = 5000;
	struct ai_err we = AI_ERR_INIT;

	if (j->deadline >= 0 && j->deadline - ai_now_ms() < left)
		left = j->deadline - ai_now_ms();
	if (left < 0)
		left = 0;
	if (ai_child_wait(&j->c, left, &we) < 0)
		j->timed_out = 1;
	reaped(j);
}

/* A signal asked us to stop: 130 for SIGINT, 143 for the others, and no message. */
static int
interrupted(struct ai_err *e)
{
	return ai_err_set(e, caught == SIGINT ? AI_EXIT_INTERRUPT : AI_EXIT_TERM, "%s", "");
}

int
jobs_poll(struct job *const *jobs, size_t n, int64_t wake, struct ai_err *e)
{
	struct pollfd *p = ai_xcalloc(3 * n + 1, sizeof(*p));
	struct job **who = ai_xcalloc(3 * n + 1, sizeof(*who));
	int *what = ai_xcalloc(3 * n + 1, sizeof(*what));
	size_t i, k = 0;
	int64_t now = ai_now_ms(), due = wake;
	int rc;

	for (i = 0; i < n; i++) {
		struct job *j = jobs[i];

		if (!j->live)
			continue;
		if (j->deadline >= 0 && j->deadline <= now) {
			/* its time is up: that is what happened, the caller looks again */
			ai_child_kill(&j->c, 500);
			j->timed_out = 1;
			reaped(j);
			free(p);
			free(who);
			free(what);
			return 0;
		}
		if (j->deadline >= 0 && (due < 0 || j->deadline < due))
			due = j->deadline;
		if (j->c.in_fd >= 0 && j->q.len > 0) {
			p[k] = (struct pollfd){ j->c.in_fd, POLLOUT, 0 };
			who[k] = j;
			what[k++] = 0;
		}
		if (j->c.out_fd >= 0) {
			p[k] = (struct pollfd){ j->c.out_fd, POLLIN, 0 };
			who[k] = j;
			what[k++] = 1;
		}
		if (j->c.err_fd >= 0) {
			p[k] = (struct pollfd){ j->c.err_fd, POLLIN, 0 };
			who[k] = j;
			what[k++] = 2;
		}
	}
	if (k == 0 && due < 0) {
		/* nothing to wait for */
		free(p);
		free(who);
		free(what);
		return caught ? interrupted(e) : 0;
	}
	if (sig_pipe[0] >= 0) {
		p[k] = (struct pollfd){ sig_pipe[0], POLLIN, 0 };
		who[k] = NULL;
		what[k++] = 3;
	}
	for (;;) {
		int64_t left = due < 0 ? -1 : due - ai_now_ms(), tick = status_next();
		int ms = left < 0 ? (due < 0 ? -1 : 0) : left > INT_MAX ? INT_MAX : (int)left;

		/* the status line is redrawn on time while nothing else happens */
		if (tick >= 0 && (tick -= ai_now_ms()) < 0)
			tick = 0;
		if (tick >= 0 && (ms < 0 || tick < ms))
			ms = (int)tick;
		else
			tick = -1;
		rc = poll(p, (nfds_t)k, ms);
		if (rc == 0 && tick >= 0 && (due < 0 || ai_now_ms() < due)) {
			status_tick();
			continue;
		}
		if (!(rc < 0 && errno == EINTR && !caught))
			break;
	}
	if (caught)
		rc = interrupted(e);
	else if (rc < 0)
		rc = ai_err_set(e, AI_EXIT_OSERR, "poll: %s", strerror(errno));
	for (i = 0; rc >= 0 && i < k; i++) {
		struct job *j = who[i];

		if (p[i].revents == 0 || j == NULL || !j->live)
			continue;
		if (what[i] == 0 && j->c.in_fd >= 0)
			do_write(j);
		else if (what[i] == 1 && j->c.out_fd >= 0 && do_read(j, &j->c.out_fd, 1, e) < 0)
			rc = -1;
		else if (what[i] == 2 && j->c.err_fd >= 0 && do_read(j, &j->c.err_fd, 0, e) < 0)
			rc = -1;
	}
	for (i = 0; rc >= 0 && i < n; i++)
		if (jobs[i]->live && jobs[i]->c.out_fd < 0 && jobs[i]->c.err_fd < 0)
			finish(jobs[i]);
	free(p);
	free(who);
	free(what);
	return rc < 0 ? -1 : 0;
}

void
job_relay(const struct job *j)
{
	ai_relay(j->err.buf, j->err.len);
}

int
job_record(struct job *j, const char *line, size_t len, cJSON **rec, struct ai_err *e)
{
	*rec = NULL;
	if (ai_line_is_blank(line, len))
		return 0;
	if ((*rec = ai_record_parse(line, len, j->out.lineno, e)) == NULL) {
		ai_err_prefix(e, "'%s' wrote a malformed record", j->name);
		e->code = AI_EXIT_PROTOCOL;
		return -1;
	}
	return 0;
}

/* The last line it wrote on stderr, without its "NAME: " prefix, into out. */
static void
last_words(const struct job *j, char *out, size_t n)
{
	const char *p = j->err.buf, *end = j->err.buf + j->err.len, *line = NULL;
	size_t len = 0, plen = strlen(j->name);

	out[0] = '\0';
	while (p < end) {
		const char *lf = memchr(p, '\n', (size_t)(end - p));
		size_t l = lf ? (size_t)(lf - p) : (size_t)(end - p);

		if (!ai_line_is_blank(p, l)) {
			line = p;
			len = l;
		}
		p += l + (lf != NULL);
	}
	if (line == NULL)
		return;
	if (len > plen + 2 && memcmp(line, j->name, plen) == 0 && line[plen] == ':' &&
	    line[plen + 1] == ' ') {
		line += plen + 2;
		len -= plen + 2;
	}
	snprintf(out, n, ": %.*s", (int)len, line);
}

const char *
job_status(const struct job *j, char *buf, size_t n)
{
	char words[512];

	last_words(j, words, sizeof(words));
	if (j->timed_out)
		snprintf(buf, n, "did not finish in time and was stopped%s", words);
	else if (j->code > 128 && j->code < 128 + 65)
		snprintf(buf, n, "was killed by signal %d (%s)%s", j->code - 128,
		    strsignal(j->code - 128), words);
	else
		snprintf(buf, n, "failed (exit status %d)%s", j->code, words);
	return buf;
}
