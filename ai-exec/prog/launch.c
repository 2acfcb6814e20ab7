/*
 * launch.c: running one allowed program.
 *
 * The program is executed from the real path resolved when the policy
 * loaded, with the literal argument vector: no shell, so ';', '$(' or a
 * newline in an argument is that argument's text.  It runs in the sandbox
 * (bwrap.c: bubblewrap, then ai-exec's helper, which confines and
 * supervises it, confine.c), or with --unconfined directly, confined in the
 * child before execve.  The environment is built from nothing: a few
 * harmless variables passed on (x_env_pass), PATH made of the policy's
 * trusted directories, PWD, HOME and TMPDIR the private /tmp in the
 * sandbox, and what the caller sets (git's, gitcfg.c); nothing else, so no
 * API key, no LD_*, no GIT_* of the caller's reaches it.  Standard input is
 * /dev/null; no other descriptor is inherited.
 *
 * The child leads its own process group (bubblewrap's own, the program
 * being in a session of its own inside); when the program ends, when it
 * outlives its timeout, and when its output passes the cap, the whole
 * group is killed (SIGTERM, then SIGKILL), which ends the sandbox and
 * everything in it, and it is reaped.  Standard output is kept up to the
 * cap (the parsers read it); of standard error only the last 64 KiB are
 * kept; both count towards the cap.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "prog.h"
#include "proc.h"
#include "util.h"
#include "banned.h"

#define X_ERR_KEEP ((size_t)64 << 10)  /* bytes of standard error kept */
#define X_AFTER_EXIT_MS 500            /* reading on after the program ended */

const char *const x_env_pass[] = {
	"HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "LC_*", "TZ", "TMPDIR",
	"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
	NULL
};

extern char **environ;

static int
passed(const char *entry, int boxed)
{
	const char *eq = strchr(entry, '=');
	size_t n = eq ? (size_t)(eq - entry) : 0, i;

	if (n == 0)
		return 0;
	/* in the sandbox, the home and temporary directories are its private /tmp */
	if (boxed && ((n == 4 && strncmp(entry, "HOME", 4) == 0) ||
	    (n == 6 && strncmp(entry, "TMPDIR", 6) == 0)))
		return 0;
	for (i = 0; x_env_pass[i] != NULL; i++) {
		const char *p = x_env_pass[i];
		size_t len = strlen(p);

		/* a name, or a prefix ending in '*' ("LC_*") */
		if (p[len - 1] == '*' ? n >= len - 1 && strncmp(entry, p, len - 1) == 0 :
		    n == len && strncmp(entry, p, n) == 0)
			return 1;
	}
	return 0;
}

/* The child's environment: what is passed on, then PATH, PWD and set. */
static void
make_env(struct x_argv *env, const struct x_spawn *s)
{
	size_t i;

	for (i = 0; environ[i] != NULL; i++)
		if (passed(environ[i], s->sb != NULL))
			x_argv_add(env, environ[i]);
	if (s->sb != NULL) {
		x_argv_add(env, "HOME=/tmp");
		x_argv_add(env, "TMPDIR=/tmp");
	}
	x_argv_addf(env, "PATH=%s", s->search);
	x_argv_addf(env, "PWD=%s", s->box.cwd);
	for (i = 0; s->set != NULL && s->set[i] != NULL; i++)
		x_argv_add(env, s->set[i]);
}

void
x_launch_free(struct x_launch *o)
{
	ai_buf_release(&o->out);
	ai_buf_release(&o->err);
	ai_buf_release(&o->status);
}

/* Read what is there; 0 at the end of the stream (fd closed), 1 otherwise. */
static int
drain(int *fd, struct x_launch *o, int which, uint64_t max_out)
{
	char chunk[65536];
	ssize_t r;

	do
		r = read(*fd, chunk, sizeof(chunk));
	while (r < 0 && errno == EINTR);
	if (r < 0 && errno == EAGAIN)
		return 1;
	if (r <= 0) {
		close(*fd);
		*fd = -1;
		return 0;
	}
	if (which == 2) {
		ai_buf_add(&o->status, chunk, (size_t)r); /* capped: a few lines at most */
		return 1;
	}
	if (o->out_bytes + o->err_bytes + (uint64_t)r > max_out)
		o->over_cap = 1;
	if (which == 1) {
		o->err_bytes += (uint64_t)r;
		if (o->err.len + (size_t)r > 2 * X_ERR_KEEP)
			ai_buf_consume(&o->err, o->err.len + (size_t)r - X_ERR_KEEP);
		ai_buf_add(&o->err, chunk, (size_t)r);
		return 1;
	}
	o->out_bytes += (uint64_t)r;
	if (o->out.len + (size_t)r > max_out) {
		ai_buf_add(&o->out, chunk, (size_t)(max_out - o->out.len));
		return 1;
	}
	ai_buf_add(&o->out, chunk, (size_t)r);
	return 1;
}

/* The child itself ended: reap it (with its resource use) and kill what it left in its group. */
static int
reaped(struct ai_child *c, struct rusage *ru)
{
	pid_t r;

	if (c->reaped)
		return 1;
	do
		r = wait4(c->pid, &c->status, WNOHANG, ru);
	while (r < 0 && errno == EINTR);
	if (r != c->pid)
		return 0;
	c->reaped = 1;
	kill(-c->pid, SIGKILL);
	return 1;
}

/*
 * What the helper said on its status descriptor: "R" started, "E..." why
 * not, "T" past the process limit, "U RSS CPU" its use.
 */
static void
read_status(struct x_launch *o)
{
	const char *p = o->status.buf, *end = p + o->status.len;

	while (p < end) {
		const char *lf = memchr(p, '\n', (size_t)(end - p));
		int n = (int)((lf ? lf : end) - p);
		long long rss = 0, cpu = 0;
		char line[1024];

		snprintf(line, sizeof(line), "%.*s", n, p);
		if (line[0] == 'R')
			o->started = 1;
		else if (line[0] == 'E')
			snprintf(o->failed, sizeof(o->failed), "%.500s", line + 1);
		else if (line[0] == 'T')
			o->over_tasks = 1;
		else if (line[0] == 'U' && sscanf(line + 1, "%lld %lld", &rss, &cpu) == 2) {
			o->maxrss_kib = rss;
			o->cpu_ms = cpu;
			o->usage = 1;
		}
		p += n + (lf != NULL);
	}
}

int
x_launch_run(const struct x_spawn *s, struct x_launch *o, struct ai_err *e)
{
	struct x_argv env = { NULL, 0 }, bargv = { NULL, 0 };
	struct ai_child c;
	struct rusage ru;
	int64_t t0 = ai_now_ms(), deadline = t0 + s->timeout_ms;
	int pidfd, st[2] = { -1, -1 };

	memset(o, 0, sizeof(*o));
	memset(&ru, 0, sizeof(ru));
	ai_buf_init(&o->out, s->max_out);
	ai_buf_init(&o->err, 2 * X_ERR_KEEP);
	ai_buf_init(&o->status, 4096);
	o->exit_code = -1;
	o->boxed = s->sb != NULL;
	make_env(&env, s);
	memset(&c, 0, sizeof(c));
	c.env_clear = 1;
	c.env_set = (const char *const *)env.v;
	c.in = AI_FD_NULL;
	c.out = AI_FD_PIPE;
	c.err = AI_FD_PIPE;
	c.new_pgroup = 1;
	c.die_with_parent = 1;
	if (s->sb != NULL) {
		/* bubblewrap, told where to chdir; the helper reports on descriptor 3 */
		if (pipe2(st, O_CLOEXEC) < 0) {
			x_argv_free(&env);
			return ai_err_set(e, AI_EXIT_OSERR, "cannot make a pipe: %s",
			    strerror(errno));
		}
		x_sandbox_argv(s->sb, &s->box, &bargv);
		c.path = X_BWRAP;
		c.argv = bargv.v;
		c.fd3 = st[1];
	} else {
		c.path = s->box.path;
		c.argv = s->box.argv;
		c.cwd = s->box.cwd;
		c.before_exec = x_confine_child;
		c.before_exec_arg = (void *)s->box.conf;
	}
	if (ai_child_start(&c, e) < 0) {
		x_argv_free(&env);
		x_argv_free(&bargv);
		if (st[0] >= 0) {
			close(st[0]);
			close(st[1]);
		}
		return -1;
	}
	x_argv_free(&env);
	x_argv_free(&bargv);
	if (st[1] >= 0)
		close(st[1]);
	fcntl(c.out_fd, F_SETFL, O_NONBLOCK);
	fcntl(c.err_fd, F_SETFL, O_NONBLOCK);
	if (st[0] >= 0)
		fcntl(st[0], F_SETFL, O_NONBLOCK);
	pidfd = (int)syscall(SYS_pidfd_open, c.pid, 0);
	for (;;) {
		struct pollfd p[4];
		int np = 0, io = -1, ie = -1, is = -1, wait;
		int64_t left;

		if (reaped(&c, &ru) && c.out_fd < 0 && c.err_fd < 0 && st[0] < 0)
			break;
		if (c.reaped && deadline > ai_now_ms() + X_AFTER_EXIT_MS)
			deadline = ai_now_ms() + X_AFTER_EXIT_MS; /* the output left by a straggler */
		left = deadline - ai_now_ms();
		if (left <= 0) {
			o->timed_out = !c.reaped;
			break;
		}
		if (c.out_fd >= 0) {
			p[np] = (struct pollfd){ c.out_fd, POLLIN, 0 };
			io = np++;
		}
		if (c.err_fd >= 0) {
			p[np] = (struct pollfd){ c.err_fd, POLLIN, 0 };
			ie = np++;
		}
		if (st[0] >= 0) {
			p[np] = (struct pollfd){ st[0], POLLIN, 0 };
			is = np++;
		}
		if (pidfd >= 0 && !c.reaped) {
			p[np++] = (struct pollfd){ pidfd, POLLIN, 0 };
		}
		wait = left > INT_MAX ? INT_MAX : (int)left;
		if (pidfd < 0 && wait > 20)
			wait = 20; /* no pidfd: look for the end every 20 ms */
		if (poll(p, (nfds_t)np, wait) < 0 && errno != EINTR)
			break;
		if (io >= 0 && p[io].revents)
			drain(&c.out_fd, o, 0, s->max_out);
		if (ie >= 0 && p[ie].revents)
			drain(&c.err_fd, o, 1, s->max_out);
		if (is >= 0 && p[is].revents)
			drain(&st[0], o, 2, s->max_out);
		if (o->over_cap)
			break;
	}
	if (!c.reaped)
		ai_child_kill(&c, 200);
	ai_child_close(&c);
	if (st[0] >= 0) {
		/* what the helper said before it was stopped */
		drain(&st[0], o, 2, s->max_out);
		close(st[0]);
	}
	if (pidfd >= 0)
		close(pidfd);
	o->exit_code = ai_child_exit_code(&c);
	o->duration_ms = ai_now_ms() - t0;
	o->err_cut = o->err_bytes > o->err.len;
	if (s->sb != NULL) {
		read_status(o);
	} else {
		o->started = 1;
		o->maxrss_kib = ru.ru_maxrss;
		o->cpu_ms = (int64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
		    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
		o->usage = c.reaped;
	}
	return 0;
}
