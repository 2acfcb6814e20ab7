/*
 * launch.c: running one allowed program.
 *
 * execve of the real path resolved when the policy loaded, with the literal
 * argument vector: no shell, so ';', '$(' or a newline in an argument is
 * that argument's text.  The environment is built from nothing: a few
 * harmless variables passed on (x_env_pass), PATH made of the policy's
 * trusted directories, PWD, and what the caller sets (git's, gitcfg.c);
 * nothing else, so no API key, no LD_*, no GIT_* of the caller's reaches it.
 * Standard input is /dev/null.  The program leads its own process group;
 * when it ends, when it outlives its timeout, and when its output passes the
 * cap, the whole group is killed (SIGTERM, then SIGKILL), grandchildren
 * included, and it is reaped.  Standard output is kept up to the cap (the
 * parsers read it); of standard error only the last 64 KiB are kept.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
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
passed(const char *entry)
{
	const char *eq = strchr(entry, '=');
	size_t n = eq ? (size_t)(eq - entry) : 0, i;

	if (n == 0)
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
make_env(struct x_argv *env, const char *const *set, const char *search, const char *cwd)
{
	size_t i;

	for (i = 0; environ[i] != NULL; i++)
		if (passed(environ[i]))
			x_argv_add(env, environ[i]);
	x_argv_addf(env, "PATH=%s", search);
	x_argv_addf(env, "PWD=%s", cwd);
	for (i = 0; set != NULL && set[i] != NULL; i++)
		x_argv_add(env, set[i]);
}

void
x_launch_free(struct x_launch *o)
{
	ai_buf_release(&o->out);
	ai_buf_release(&o->err);
}

/* Read what is there; 0 at the end of the stream (fd closed), 1 otherwise. */
static int
drain(int *fd, struct x_launch *o, int is_err, uint64_t max_out)
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
	if (is_err) {
		o->err_bytes += (uint64_t)r;
		if (o->err.len + (size_t)r > 2 * X_ERR_KEEP)
			ai_buf_consume(&o->err, o->err.len + (size_t)r - X_ERR_KEEP);
		ai_buf_add(&o->err, chunk, (size_t)r);
		return 1;
	}
	o->out_bytes += (uint64_t)r;
	if (o->out.len + (size_t)r > max_out) {
		ai_buf_add(&o->out, chunk, (size_t)(max_out - o->out.len));
		o->over_cap = 1;
		return 1;
	}
	ai_buf_add(&o->out, chunk, (size_t)r);
	return 1;
}

/* The program itself ended: reap it and kill what it left in its group. */
static int
reaped(struct ai_child *c)
{
	pid_t r;

	if (c->reaped)
		return 1;
	do
		r = waitpid(c->pid, &c->status, WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r != c->pid)
		return 0;
	c->reaped = 1;
	kill(-c->pid, SIGKILL);
	return 1;
}

int
x_launch_run(const char *path, char *const *argv, const char *const *set, const char *search,
    const char *cwd, const struct x_confine *conf, int64_t timeout_ms, uint64_t max_out,
    struct x_launch *o, struct ai_err *e)
{
	struct x_argv env = { NULL, 0 };
	struct ai_child c;
	int64_t t0 = ai_now_ms(), deadline = t0 + timeout_ms;
	int pidfd;

	memset(o, 0, sizeof(*o));
	ai_buf_init(&o->out, max_out);
	ai_buf_init(&o->err, 2 * X_ERR_KEEP);
	o->exit_code = -1;
	make_env(&env, set, search, cwd);
	memset(&c, 0, sizeof(c));
	c.path = path;
	c.argv = argv;
	c.env_clear = 1;
	c.env_set = (const char *const *)env.v;
	c.in = AI_FD_NULL;
	c.out = AI_FD_PIPE;
	c.err = AI_FD_PIPE;
	c.new_pgroup = 1;
	c.die_with_parent = 1;
	c.cwd = cwd;
	if (conf != NULL && conf->fd >= 0) {
		c.before_exec = x_confine_apply;
		c.before_exec_arg = (void *)conf;
		o->confined = 1;
	}
	if (ai_child_start(&c, e) < 0) {
		x_argv_free(&env);
		o->confined = 0;
		return -1;
	}
	x_argv_free(&env);
	fcntl(c.out_fd, F_SETFL, O_NONBLOCK);
	fcntl(c.err_fd, F_SETFL, O_NONBLOCK);
	pidfd = (int)syscall(SYS_pidfd_open, c.pid, 0);
	for (;;) {
		struct pollfd p[3];
		int np = 0, io = -1, ie = -1, wait;
		int64_t left;

		if (reaped(&c) && c.out_fd < 0 && c.err_fd < 0)
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
		if (pidfd >= 0 && !c.reaped) {
			p[np++] = (struct pollfd){ pidfd, POLLIN, 0 };
		}
		wait = left > INT_MAX ? INT_MAX : (int)left;
		if (pidfd < 0 && wait > 20)
			wait = 20; /* no pidfd: look for the end every 20 ms */
		if (poll(p, (nfds_t)np, wait) < 0 && errno != EINTR)
			break;
		if (io >= 0 && p[io].revents)
			drain(&c.out_fd, o, 0, max_out);
		if (ie >= 0 && p[ie].revents)
			drain(&c.err_fd, o, 1, max_out);
		if (o->over_cap)
			break;
	}
	if (!c.reaped)
		ai_child_kill(&c, 200);
	ai_child_close(&c);
	if (pidfd >= 0)
		close(pidfd);
	o->exit_code = ai_child_exit_code(&c);
	o->duration_ms = ai_now_ms() - t0;
	return 0;
}
